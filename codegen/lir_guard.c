/*
 * lir_guard.c - what the loop passes (pass_partition.c, pass_bounds.c)
 * share: finding the guard of a loop, reading a condition as a linear
 * constraint on the loop's variable, and fresh names.
 *
 * The guard of a loop is the `if` (without else) its body reaches
 * through inner loops and lets alone: every iteration does nothing
 * unless that condition holds.  Splits with a guarded tail produce
 * exactly this shape (sched_apply.c).  The condition is read with the
 * lets substituted (lir_guard_subst), as a conjunction of terms; a
 * term `a < b` (or <=, >, >=) on signed integers that is linear in
 * the loop variable v, with
 * constant coefficients on v and on the inner loop variables (whose
 * bounds do not depend on v or each other) gives a range of v where
 * it holds for every inner iteration ("sure") and a range where it
 * holds for some ("maybe").  The arithmetic is done in i64, which is
 * exact for i32 operands; the rewrite assumes the guard's own integer
 * arithmetic does not wrap, which holds for lowered index arithmetic
 * (indices stay within tensor extents, which fit in i32).
 */
#include "codegen/codegen_int.h"

#include <string.h>

static int sint(TlDType dt)
{
    return dt_is_int(dt) && dt_is_signed(dt);
}

/* ====================================================================
 * Fresh names
 * ==================================================================== */

typedef struct Names {
    const char *name;
    int found;
} Names;

static int name_expr(LVisitor *v, const LExpr *e)
{
    Names *n = v->ctx;
    if (e->var && !strcmp(e->var->name, n->name))
        n->found = 1;
    return !n->found;
}

static int name_stmt(LVisitor *v, const LStmt *st)
{
    Names *n = v->ctx;
    if (st->var && !strcmp(st->var->name, n->name))
        n->found = 1;
    return !n->found;
}

const char *lir_fresh_name(TlSession *s, const LFunc *f, const char *base,
                           int *k)
{
    for (;;) {
        const char *name = arena_printf(&s->arena, "%s.__p%d", base, ++*k);
        Names n = {name, 0};
        LVisitor v = {&n, name_expr, name_stmt};
        for (int i = 0; i < f->nparams; i++)
            n.found |= !strcmp(f->params[i].var->name, name);
        lir_visit_stmt(&v, f->body);
        if (!n.found)
            return name;
    }
}

/* ====================================================================
 * The guard of a loop
 * ==================================================================== */

int lir_find_guard(const LStmt *loop, LGuard *g)
{
    const LStmt *st = loop->body;

    memset(g, 0, sizeof *g);
    for (;;) {
        if (st->kind == LS_FOR && g->ninner < LIR_GUARD_MAX) {
            g->inner[g->ninner++] = st;
            st = st->body;
        } else if (st->kind == LS_BLOCK && st->nitems > 1) {
            for (int i = 0; i < st->nitems - 1; i++) {
                if (st->items[i]->kind != LS_LET ||
                    g->nlets == LIR_GUARD_MAX)
                    return -1;
                g->lets[g->nlets++] = st->items[i];
            }
            st = st->items[st->nitems - 1];
        } else if (st->kind == LS_IF && !st->orelse) {
            break;
        } else {
            return -1;
        }
    }
    g->ifst = st;
    return 0;
}

LExpr *lir_guard_subst(TlSession *s, const LGuard *g, LExpr *e)
{
    for (int i = g->nlets - 1; i >= 0; i--)
        e = lir_substitute_expr(s, e, g->lets[i]->var, g->lets[i]->a);
    return e;
}

/* Rebuilds the path from loop->body to its guard with the guard's
 * statement replaced by `with`. */
static LStmt *rebuild(TlSession *s, const LStmt *st, LStmt *with)
{
    if (st->kind == LS_FOR)
        return lir_for(s, st->loop, st->width, st->level, st->var, st->a,
                       st->b, rebuild(s, st->body, with));
    if (st->kind == LS_BLOCK && st->nitems > 1) {
        LStmt **items = arena_alloc(&s->arena, (size_t)st->nitems *
                                    sizeof *items);
        memcpy(items, st->items, (size_t)st->nitems * sizeof *items);
        items[st->nitems - 1] = rebuild(s, items[st->nitems - 1], with);
        return lir_block(s, items, st->nitems);
    }
    TL_ASSERT(st->kind == LS_IF);
    return with;
}

LStmt *lir_guard_replace(TlSession *s, const LStmt *loop, const LGuard *g,
                         const int *keep, LExpr *const *terms, int nterms)
{
    LExpr *cond = NULL;
    LStmt *with;

    for (int i = 0; i < nterms; i++)
        if (keep[i])
            cond = cond ? lir_binary(s, LO_AND, cond, terms[i]) : terms[i];
    with = cond ? lir_if(s, cond, g->ifst->body, NULL) : g->ifst->body;
    return rebuild(s, loop->body, with);
}

int lir_conjuncts(LExpr *cond, LExpr **terms, int max)
{
    int n;

    if (cond->kind == LE_BINARY && cond->op == LO_AND) {
        n = lir_conjuncts(cond->a, terms, max);
        if (n < 0)
            return -1;
        int m = lir_conjuncts(cond->b, terms + n, max - n);
        return m < 0 ? -1 : n + m;
    }
    if (max < 1)
        return -1;
    terms[0] = cond;
    return 1;
}

/* ====================================================================
 * Linear forms
 * ==================================================================== */

/* e (an integer scalar) as sum coef[k] * vars[k] + rest, in i64.
 * Returns -1 when a variable occurs other than linearly. */
typedef struct Lin {
    int64_t coef[LIR_GUARD_MAX + 1];
    LExpr *rest;            /* i64, free of the variables */
} Lin;

static int mentions(const LExpr *e, LVar *const *vars, int nv)
{
    for (int k = 0; k < nv; k++)
        if (lir_count_uses_expr(e, vars[k]))
            return 1;
    return 0;
}

static LExpr *as64(TlSession *s, LExpr *e)
{
    return e->type.dt == DT_I64 ? e : lir_cast(s, DT_I64, e);
}

static int small(int64_t c)
{
    return c > -(1 << 20) && c < (1 << 20);
}

static int linear(TlSession *s, LExpr *e, LVar *const *vars, int nv,
                  Lin *out)
{
    Lin a, b;

    memset(out, 0, sizeof *out);
    if (!sint(e->type.dt) || e->type.lanes != 1)
        return -1;
    if (!mentions(e, vars, nv)) {
        out->rest = as64(s, e);
        return 0;
    }
    switch (e->kind) {
    case LE_VAR:
        for (int k = 0; k < nv; k++)
            if (e->var == vars[k])
                out->coef[k] = 1;
        out->rest = lir_int(s, DT_I64, 0);
        return 0;
    case LE_CAST:
        /* Widening or same-width integer casts keep the value of a
         * non-wrapping index. */
        if (!sint(e->a->type.dt) ||
            dt_size(e->a->type.dt) > dt_size(e->type.dt))
            return -1;
        return linear(s, e->a, vars, nv, out);
    case LE_UNARY:
        if (e->op != LO_NEG || linear(s, e->a, vars, nv, &a))
            return -1;
        for (int k = 0; k < nv; k++)
            out->coef[k] = -a.coef[k];
        out->rest = lir_unary(s, LO_NEG, a.rest);
        return 0;
    case LE_BINARY:
        if (e->op == LO_ADD || e->op == LO_SUB) {
            if (linear(s, e->a, vars, nv, &a) ||
                linear(s, e->b, vars, nv, &b))
                return -1;
            for (int k = 0; k < nv; k++) {
                out->coef[k] = e->op == LO_ADD ? a.coef[k] + b.coef[k]
                                               : a.coef[k] - b.coef[k];
                if (!small(out->coef[k]))
                    return -1;
            }
            out->rest = lir_binary(s, e->op, a.rest, b.rest);
            return 0;
        }
        if (e->op == LO_MUL) {
            LExpr *x = e->a, *c = e->b;
            if (x->kind == LE_INT) {
                x = e->b;
                c = e->a;
            }
            if (c->kind != LE_INT || !small(c->ival) ||
                linear(s, x, vars, nv, &a))
                return -1;
            for (int k = 0; k < nv; k++) {
                out->coef[k] = a.coef[k] * c->ival;
                if (!small(out->coef[k]))
                    return -1;
            }
            out->rest = lir_binary(s, LO_MUL, a.rest,
                                   lir_int(s, DT_I64, c->ival));
            return 0;
        }
        return -1;
    default:
        return -1;
    }
}

static int load_expr(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD)
        *(int *)v->ctx = 1;
    return 1;
}

static int has_load(const LExpr *e)
{
    int found = 0;
    LVisitor v = {&found, load_expr, NULL};
    lir_visit_expr(&v, e);
    return found;
}

static LExpr *i64(TlSession *s, int64_t v)
{
    return lir_int(s, DT_I64, v);
}

static LExpr *add(TlSession *s, LExpr *a, LExpr *b)
{
    return lir_binary(s, LO_ADD, a, b);
}

/* floor(x / c) + 1 for a constant c > 0 (the language's `/` floors). */
static LExpr *above(TlSession *s, LExpr *x, int64_t c)
{
    if (c != 1)
        x = lir_binary(s, LO_DIV, x, i64(s, c));
    return add(s, x, i64(s, 1));
}

int lir_term_range(TlSession *s, LExpr *t, const LStmt *loop,
                   const LGuard *g, LTermRange *r)
{
    LVar *vars[LIR_GUARD_MAX + 1];
    LExpr *ilo[LIR_GUARD_MAX], *ihi[LIR_GUARD_MAX];
    Lin lin;
    LExpr *d, *rmin, *rmax;
    int nv = 0;
    int64_t c;

    memset(r, 0, sizeof *r);
    if (t->kind != LE_BINARY || t->type.lanes != 1 ||
        !sint(t->a->type.dt) || t->a->type.lanes != 1)
        return -1;
    vars[nv++] = loop->var;
    for (int k = 0; k < g->ninner; k++)
        vars[nv++] = g->inner[k]->var;
    /* Inner bounds (which may use the path's lets) must not depend on
     * v or on inner variables; nothing may load (the split points are
     * computed before the loop, where a load might be out of range). */
    for (int k = 0; k < g->ninner; k++) {
        ilo[k] = lir_guard_subst(s, g, g->inner[k]->a);
        ihi[k] = lir_guard_subst(s, g, g->inner[k]->b);
        if (mentions(ilo[k], vars, nv) || mentions(ihi[k], vars, nv) ||
            has_load(ilo[k]) || has_load(ihi[k]))
            return -1;
    }
    if (has_load(t))
        return -1;
    /* Everything as `d < 0`. */
    switch (t->op) {
    case LO_LT: d = lir_binary(s, LO_SUB, as64(s, t->a), as64(s, t->b));
        break;
    case LO_LE: d = lir_binary(s, LO_SUB, lir_binary(s, LO_SUB,
                    as64(s, t->a), as64(s, t->b)), i64(s, 1));
        break;
    case LO_GT: d = lir_binary(s, LO_SUB, as64(s, t->b), as64(s, t->a));
        break;
    case LO_GE: d = lir_binary(s, LO_SUB, lir_binary(s, LO_SUB,
                    as64(s, t->b), as64(s, t->a)), i64(s, 1));
        break;
    default:
        return -1;
    }
    if (linear(s, d, vars, nv, &lin))
        return -1;
    c = lin.coef[0];
    if (c == 0)
        return -1;
    rmin = rmax = lin.rest;
    for (int k = 1; k < nv; k++) {
        LExpr *lo = as64(s, ilo[k - 1]);
        LExpr *hi = lir_binary(s, LO_SUB, as64(s, ihi[k - 1]), i64(s, 1));
        LExpr *ck = i64(s, lin.coef[k]);
        if (!lin.coef[k])
            continue;
        r->inner = 1;
        rmax = add(s, rmax, lir_binary(s, LO_MUL, ck,
                                       lin.coef[k] > 0 ? hi : lo));
        rmin = add(s, rmin, lir_binary(s, LO_MUL, ck,
                                       lin.coef[k] > 0 ? lo : hi));
    }
    if (c > 0) {
        /* c*v + R < 0  <=>  v < floor((-R - 1) / c) + 1 */
        r->sure_hi = above(s, lir_binary(s, LO_SUB, lir_unary(s, LO_NEG,
                           rmax), i64(s, 1)), c);
        r->maybe_hi = above(s, lir_binary(s, LO_SUB, lir_unary(s, LO_NEG,
                            rmin), i64(s, 1)), c);
    } else {
        /* -a*v + R < 0  <=>  v >= floor(R / a) + 1 */
        r->sure_lo = above(s, rmax, -c);
        r->maybe_lo = above(s, rmin, -c);
    }
    r->sure_lo = r->sure_lo ? lir_simplify_expr(s, r->sure_lo) : NULL;
    r->sure_hi = r->sure_hi ? lir_simplify_expr(s, r->sure_hi) : NULL;
    r->maybe_lo = r->maybe_lo ? lir_simplify_expr(s, r->maybe_lo) : NULL;
    r->maybe_hi = r->maybe_hi ? lir_simplify_expr(s, r->maybe_hi) : NULL;
    return 0;
}
