/*
 * pass_bounds.c - bounds inference per loop level: a loop whose
 * iterations are guarded (lir_guard.c) by terms that bound its own
 * variable, independently of the loops inside it, runs only over the
 * range those terms allow, and the terms go:
 *
 *   for xi in 0 .. 4 {                    for xi in 0 .. i32(max(min(
 *     let x = xo * 4 + xi          ==>        i64(4), n - xo * 4), 0)) {
 *     if x < n { S }                        let x = xo * 4 + xi
 *   }                                       S
 *                                         }
 *
 * (a split's tail after pass_partition.c).  The new bounds are the
 * old ones clamped, so they stay in the variable's type; the lower
 * one is raised and the upper one lowered, never past each other.
 *
 * lir_bound_tile_loops runs the same rule before partitioning, on
 * serial loops around unrolled or vectorized ones only (a register
 * tile's reduction loop: `for ki in 0 .. 128` of a split k).
 * Partitioning first would leave the last k block, and every block
 * when K is below the split factor, in a guarded copy of the nest
 * without the tile (a tail runs its inner loops rolled and guarded):
 * matmul 512 with k split by 1024 ran at 16 GFLOP/s instead of 100.
 * Shrunk, the loop runs `0 .. min(128, K - ko * 128)` with the tile
 * inside in one copy.  Loops that are themselves unrolled or
 * vectorized keep their constant extents for partitioning.
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { MAXT = 32 };

static LExpr *as64(TlSession *s, LExpr *e)
{
    return e->type.dt == DT_I64 ? e : lir_cast(s, DT_I64, e);
}

/* Whether st's body runs an unrolled or vectorized loop anywhere. */
static int holds_tile(const LStmt *st)
{
    if (!st)
        return 0;
    switch (st->kind) {
    case LS_FOR:
        return st->loop == LP_UNROLLED || st->loop == LP_VECTORIZED ||
               holds_tile(st->body);
    case LS_IF:
        return holds_tile(st->body) || holds_tile(st->orelse);
    case LS_BLOCK:
        for (int i = 0; i < st->nitems; i++)
            if (holds_tile(st->items[i]))
                return 1;
        return 0;
    default:
        return holds_tile(st->body);
    }
}

static LStmt *bounds_for(LMutator *m, LStmt *st)
{
    TlSession *s = m->s;
    LGuard g;
    LExpr *terms[MAXT], *lo = NULL, *hi = NULL, *a, *b;
    int keep[MAXT], n, any = 0;
    TlDType dt = st->var->type.dt;

    if ((m->ctx && (st->loop != LP_SERIAL || !holds_tile(st->body))) ||
        lir_find_guard(st, &g) ||
        (n = lir_conjuncts(g.ifst->a, terms, MAXT)) < 0)
        return lir_mutate_stmt_children(m, st);
    for (int i = 0; i < n; i++) {
        LTermRange r;
        keep[i] = 1;
        if (lir_term_range(s, lir_guard_subst(s, &g, terms[i]), st, &g, &r)
            || r.inner)
            continue;
        keep[i] = 0;
        any = 1;
        if (r.sure_lo)
            lo = lo ? lir_binary(s, LO_MAX, lo, r.sure_lo) : r.sure_lo;
        if (r.sure_hi)
            hi = hi ? lir_binary(s, LO_MIN, hi, r.sure_hi) : r.sure_hi;
    }
    if (!any)
        return lir_mutate_stmt_children(m, st);
    a = st->a;
    b = st->b;
    if (lo)
        a = lir_cast(s, dt, lir_binary(s, LO_MIN, lir_binary(s, LO_MAX,
                     as64(s, st->a), lo), as64(s, st->b)));
    if (hi)
        b = lir_cast(s, dt, lir_binary(s, LO_MAX, lir_binary(s, LO_MIN,
                     as64(s, st->b), hi), as64(s, a)));
    return lir_for(s, st->loop, st->width, st->level, st->var, a, b,
                   lir_mutate_stmt(m, lir_guard_replace(s, st, &g, keep,
                                                        terms, n)));
}

static LFunc *run(TlSession *s, LFunc *f, int tiles)
{
    static int tag;
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = tiles ? &tag : NULL;
    m.stmt[LS_FOR] = bounds_for;
    return lir_mutate_func(&m, f);
}

LFunc *lir_infer_bounds(TlSession *s, LFunc *f)
{
    return run(s, f, 0);
}

LFunc *lir_bound_tile_loops(TlSession *s, LFunc *f)
{
    return run(s, f, 1);
}
