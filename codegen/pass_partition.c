/*
 * pass_partition.c - loop partitioning for tails.  A loop whose
 * iterations are guarded (lir_guard.c) by a condition that holds for
 * every inner iteration over a middle range of its variable, and not
 * near the ends (a split's guarded tail: `xo * 4 + xi < n` holds for
 * all xi while xo < n / 4), becomes up to three loops: the head and
 * the tail keep the guard, the main loop runs without the terms it
 * proves.  The split points are computed once, in i64, clamped into
 * the loop's range:
 *
 *   for xo in 0 .. (n + 3) / 4 {           let xo.__p1 = i32(...0...)
 *     for xi in 0 .. 4 {                   let xo.__p2 = i32(...n / 4...)
 *       if xo * 4 + xi < n { S }    ==>    for xo in xo.__p1 .. xo.__p2 {
 *     }                                      for xi in 0 .. 4 { S }
 *   }                                      }
 *                                          for xo in xo.__p2 .. (n + 3) / 4
 *                                            { ...guarded as before... }
 *
 * (no head loop here: the guard gives no lower limit).  Terms that do
 * not depend on the inner loops are left to pass_bounds.c, which
 * shrinks the loop itself.  Partitioned loops keep their kind (a
 * parallel loop's head and tail go inside it: parallel_body); their
 * bodies are partitioned in turn, so a 2-d tile's main part has no
 * guard at all.
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { MAXT = 32 };

typedef struct Part {
    const LFunc *f;
    int uniq;
    int tail;       /* inside a head or tail loop */
} Part;

static LExpr *as64(TlSession *s, LExpr *e)
{
    return e->type.dt == DT_I64 ? e : lir_cast(s, DT_I64, e);
}

static LExpr *lmin(TlSession *s, LExpr *a, LExpr *b)
{
    return a ? lir_binary(s, LO_MIN, a, b) : b;
}

static LExpr *lmax(TlSession *s, LExpr *a, LExpr *b)
{
    return a ? lir_binary(s, LO_MAX, a, b) : b;
}

/* Head and tail loops run a few iterations at most: their `unrolled`
 * loops stay loops.  Unrolling them would multiply the code (every
 * partitioned level copies its body) and the C compiler's time for
 * next to no speed. */
static LStmt *plain_for(LMutator *m, LStmt *st)
{
    LStmt *body = lir_mutate_stmt(m, st->body);

    if (st->loop != LP_UNROLLED && body == st->body)
        return st;
    if (st->loop == LP_UNROLLED)
        return lir_for(m->s, LP_SERIAL, LIR_ROLLED, NULL, st->var, st->a,
                       st->b, body);
    return lir_for(m->s, st->loop, st->width, st->level, st->var, st->a,
                   st->b, body);
}

static LStmt *not_unrolled(TlSession *s, LStmt *st)
{
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.stmt[LS_FOR] = plain_for;
    return lir_mutate_stmt(&m, st);
}

/* Whether st runs a vectorized loop itself (not one in a nested loop).
 * Inside head and tail loops only such loops are partitioned: that
 * keeps their vector loops free of lane guards (full vectors and a
 * short tail) while every other level keeps its guard, so that a tail
 * is one guarded copy of the nest instead of a copy per combination
 * of main and tail parts (2^k of them for k split levels), which is
 * most of the C of a tiled kernel and of the C compiler's time.  The
 * tails run a small part of the iterations. */
static int runs_vector_loop(const LStmt *st)
{
    if (!st)
        return 0;
    switch (st->kind) {
    case LS_FOR:
        return st->loop == LP_VECTORIZED;
    case LS_IF:
        return runs_vector_loop(st->body) || runs_vector_loop(st->orelse);
    case LS_BLOCK:
        for (int i = 0; i < st->nitems; i++)
            if (runs_vector_loop(st->items[i]))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* The body of a head or tail loop, partitioned as runs_vector_loop
 * says. */
static LStmt *tail_body(LMutator *m, Part *p, LStmt *body)
{
    LStmt *r;

    p->tail++;
    r = lir_mutate_stmt(m, not_unrolled(m->s, body));
    p->tail--;
    return r;
}

/* The body of a partitioned parallel loop: the main part where
 * vlo <= v < vhi (either NULL: no limit on that side), else the guarded
 * head or tail.  As loops of their own the edges ran after the parallel
 * loop's join, serially (a fork and a join for one iteration would cost
 * more): on 2 threads matmul 256's 4 rows past the last block of 6 took
 * a serial step per k block while the other thread waited.  Inside the
 * parallel loop they run beside the main iterations, in one copy. */
static LStmt *parallel_body(LMutator *m, Part *p, const LStmt *st,
                            LStmt *main_body, LVar *vlo, LVar *vhi)
{
    TlSession *s = m->s;
    LExpr *in = NULL, *c;

    if (vlo)
        in = lir_binary(s, LO_GE, lir_ref(s, st->var), lir_ref(s, vlo));
    if (vhi) {
        c = lir_binary(s, LO_LT, lir_ref(s, st->var), lir_ref(s, vhi));
        in = in ? lir_binary(s, LO_AND, in, c) : c;
    }
    return lir_if(s, in, lir_mutate_stmt(m, main_body),
                  tail_body(m, p, st->body));
}

static LStmt *part_for(LMutator *m, LStmt *st)
{
    Part *p = m->ctx;
    TlSession *s = m->s;
    LGuard g;
    LExpr *terms[MAXT], *lo = NULL, *hi = NULL, *lo64, *hi64, *mlo, *mhi;
    LStmt *items[5], *main_body;
    LVar *vlo, *vhi;
    int keep[MAXT], n, nit = 0;
    LType t = st->var->type;

    if ((p->tail && !runs_vector_loop(st->body)) ||
        lir_find_guard(st, &g) ||
        (n = lir_conjuncts(g.ifst->a, terms, MAXT)) < 0)
        return lir_mutate_stmt_children(m, st);
    for (int i = 0; i < n; i++) {
        LTermRange r;
        keep[i] = 1;
        if (lir_term_range(s, lir_guard_subst(s, &g, terms[i]), st, &g, &r)
            || !r.inner)
            continue;
        keep[i] = 0;
        if (r.sure_lo)
            lo = lmax(s, lo, r.sure_lo);
        if (r.sure_hi)
            hi = lmin(s, hi, r.sure_hi);
    }
    if (!lo && !hi)
        return lir_mutate_stmt_children(m, st);
    main_body = lir_guard_replace(s, st, &g, keep, terms, n);
    lo64 = as64(s, st->a);
    hi64 = as64(s, st->b);
    mlo = lo ? lir_binary(s, LO_MAX, lir_binary(s, LO_MIN, lo, hi64), lo64)
             : lo64;
    mhi = hi ? lir_binary(s, LO_MAX, lir_binary(s, LO_MIN, hi, hi64), mlo)
             : hi64;
    vlo = lir_var(s, lir_fresh_name(s, p->f, st->var->name, &p->uniq), t);
    vhi = lir_var(s, lir_fresh_name(s, p->f, st->var->name, &p->uniq), t);
    if (st->loop == LP_PARALLEL) {
        if (lo)
            items[nit++] = lir_let(s, vlo, lir_cast(s, t.dt, mlo));
        if (hi)
            items[nit++] = lir_let(s, vhi, lir_cast(s, t.dt, mhi));
        items[nit++] = lir_for(s, st->loop, st->width, st->level, st->var,
                               st->a, st->b,
                               parallel_body(m, p, st, main_body, lo ? vlo
                                             : NULL, hi ? vhi : NULL));
        return lir_block(s, items, nit);
    }
    items[nit++] = lir_let(s, vlo, lir_cast(s, t.dt, mlo));
    items[nit++] = lir_let(s, vhi, lir_cast(s, t.dt, mhi));
    if (lo)
        items[nit++] = lir_for(s, st->loop, st->width, st->level, st->var,
                               st->a, lir_ref(s, vlo),
                               tail_body(m, p, st->body));
    items[nit++] = lir_for(s, st->loop, st->width, st->level, st->var,
                           lir_ref(s, vlo), lir_ref(s, vhi),
                           lir_mutate_stmt(m, main_body));
    if (hi)
        items[nit++] = lir_for(s, st->loop, st->width, st->level, st->var,
                               lir_ref(s, vhi), st->b,
                               tail_body(m, p, st->body));
    return lir_block(s, items, nit);
}

LFunc *lir_partition_loops(TlSession *s, LFunc *f)
{
    Part p = {f, 0, 0};
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = &p;
    m.stmt[LS_FOR] = part_for;
    return lir_mutate_func(&m, f);
}
