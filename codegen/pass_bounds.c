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
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { MAXT = 32 };

static LExpr *as64(TlSession *s, LExpr *e)
{
    return e->type.dt == DT_I64 ? e : lir_cast(s, DT_I64, e);
}

static LStmt *bounds_for(LMutator *m, LStmt *st)
{
    TlSession *s = m->s;
    LGuard g;
    LExpr *terms[MAXT], *lo = NULL, *hi = NULL, *a, *b;
    int keep[MAXT], n, any = 0;
    TlDType dt = st->var->type.dt;

    if (lir_find_guard(st, &g) ||
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

LFunc *lir_infer_bounds(TlSession *s, LFunc *f)
{
    LMutator m;
    LStmt *body;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.stmt[LS_FOR] = bounds_for;
    body = lir_mutate_stmt(&m, f->body);
    return body == f->body ? f : lir_func(s, f->name, f->params,
                                          f->nparams, body);
}
