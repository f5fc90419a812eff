/*
 * lir_access.c - the memory accesses of loop IR statements, each index
 * an affine form over the loop variables, ramp lanes and terms that do
 * not change in the loop, and what follows from them: whether two
 * statements may be reordered (no write of one touches what the other
 * uses), and whether a store in iteration i of a loop and a load in
 * iteration j < i of another over the same range may meet (the loop
 * fusion of pass_fuse.c).  Buffer parameters may alias one another,
 * so they count as one memory.
 *
 * The forms: an index is sum(coef * z) + k, each z a loop variable of
 * the statement (with its range: a loop without constant bounds gets
 * a huge one), a lane of a ramp, the fused loop's variable, or a
 * loop-invariant term (an expression without loads; lets from outside
 * the loops are read through when their values are affine: bounds
 * inference's e.rlo0 = min(i64(no) * 8, s.rlo0) and s.rlo0 = i64(no)
 * * 8 are then one term).  Anything else is not a form, and the
 * answer is "may meet".
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

enum { LIR_ENV_MAX = 32, LIR_DEP_BUDGET = 4096, LIR_BRANCH_MAX = 1024,
       LIR_COEF_MAX = 1 << 20 };

/* ---- linear index forms ------------------------------------------- */

/* A term: coef * z, z a ranged variable (lo..hi inclusive; key names
 * it) or a loop-invariant atom (the expression; no range). */




/* What a body defines around an access: loop variables with their
 * ranges, lets with their values. */
typedef struct Env {
    const LVar *var[LIR_ENV_MAX];
    const LExpr *val[LIR_ENV_MAX];   /* a let's value; NULL: a loop */
    int64_t lo[LIR_ENV_MAX], hi[LIR_ENV_MAX];
    int n;
} Env;



static int add_term(LLin *l, const void *key, const LExpr *atom, int64_t c,
                    int64_t lo, int64_t hi)
{
    for (int i = 0; i < l->n; i++)
        if ((key && l->t[i].key == key) ||
            (atom && l->t[i].atom && lir_expr_equal(l->t[i].atom, atom))) {
            l->t[i].coef += c;
            return 1;
        }
    if (l->n == LIR_LIN_TERMS)
        return 0;
    l->t[l->n].key = key;
    l->t[l->n].atom = atom;
    l->t[l->n].coef = c;
    l->t[l->n].lo = lo;
    l->t[l->n].hi = hi;
    l->n++;
    return 1;
}

/* Whether a and b are one form (terms in any order; lanes are never
 * equal, being numbered apart). */
static int lin_equal(const LLin *a, const LLin *b)
{
    int na = 0, nb = 0;
    if (a->k != b->k)
        return 0;
    for (int i = 0; i < a->n; i++) {
        int found = 0;
        if (!a->t[i].coef)
            continue;
        na++;
        for (int j = 0; j < b->n && !found; j++)
            found = b->t[j].coef == a->t[i].coef &&
                    ((a->t[i].key && b->t[j].key == a->t[i].key) ||
                     (a->t[i].atom && b->t[j].atom &&
                      lir_expr_equal(a->t[i].atom, b->t[j].atom)));
        if (!found)
            return 0;
    }
    for (int j = 0; j < b->n; j++)
        nb += b->t[j].coef != 0;
    return na == nb;
}

static int env_find(const Env *env, const LVar *var)
{
    for (int i = env->n - 1; i >= 0; i--)
        if (env->var[i] == var || !strcmp(env->var[i]->name, var->name))
            return i;
    return -1;
}

typedef struct Refs {
    const Env *env;
    const LVar *v;
    int bad;
} Refs;

static int refs_expr(LVisitor *vis, const LExpr *e)
{
    Refs *r = vis->ctx;
    if (e->kind == LE_LOAD || (e->kind == LE_VAR &&
        (env_find(r->env, e->var) >= 0 || !strcmp(e->var->name,
                                                   r->v->name))))
        r->bad = 1;
    return !r->bad;
}

/* Whether e is free of loads and of what the body defines: then it has
 * one value in both loops, a term of its own. */
static int invariant(const LAccCtx *cx, const Env *env, const LExpr *e)
{
    Refs r = {env, cx->v, 0};
    LVisitor vis = {&r, refs_expr, NULL};
    lir_visit_expr(&vis, e);
    return !r.bad;
}

static int is_int(TlDType dt)
{
    return dt_is_int(dt);
}

/* l += c * e; 0 when e is not affine in what it may use. */
static int lin_add(LAccCtx *cx, const Env *env, LLin *l, const LExpr *e,
                   int64_t c, int depth)
{
    LLin m;
    int i;

    if (depth > 64)
        return 0;
    switch (e->kind) {
    case LE_INT:
        l->k += c * e->ival;
        return 1;
    case LE_VAR:
        if (e->var == cx->v || !strcmp(e->var->name, cx->v->name))
            return add_term(l, cx->v, NULL, c, cx->vlo, cx->vhi);
        i = env_find(env, e->var);
        if (i >= 0 && env->val[i]) {
            Env inner = *env;
            inner.n = i;    /* a let sees only what was before it */
            return lin_add(cx, &inner, l, env->val[i], c, depth + 1);
        }
        if (i >= 0)
            return add_term(l, env->var[i], NULL, c, env->lo[i],
                            env->hi[i]);
        /* A let from outside the loops: its value, when that is
         * affine (the bounds of a stage's region: e.rlo0 and s.rlo0
         * are both i64(no) * 8), else a term of its own. */
        for (i = 0; i < cx->nouter; i++)
            if (!strcmp(cx->outer[i]->var->name, e->var->name)) {
                LLin save = *l;
                Env none;
                none.n = 0;
                if (is_int(e->type.dt) &&
                    lin_add(cx, &none, l, cx->outer[i]->a, c, depth + 1))
                    return 1;
                *l = save;
                break;
            }
        return add_term(l, NULL, e, c, 0, 0);
    case LE_CAST:
        /* Widening an integer keeps its value. */
        if (is_int(e->type.dt) && is_int(e->a->type.dt) &&
            (e->type.dt == e->a->type.dt ||
             (dt_size(e->type.dt) > dt_size(e->a->type.dt) &&
              (dt_is_signed(e->type.dt) || !dt_is_signed(e->a->type.dt)))))
            return lin_add(cx, env, l, e->a, c, depth + 1);
        break;
    case LE_BINARY:
        if (e->op == LO_ADD || e->op == LO_SUB)
            return lin_add(cx, env, l, e->a, c, depth + 1) &&
                   lin_add(cx, env, l, e->b,
                           e->op == LO_SUB ? -c : c, depth + 1);
        if (e->op == LO_MIN || e->op == LO_MAX) {
            /* min(x, x) and max(x, x), as bounds inference writes
             * them for one region demanded twice. */
            LLin m2;
            memset(&m, 0, sizeof m);
            memset(&m2, 0, sizeof m2);
            if (lin_add(cx, env, &m, e->a, 1, depth + 1) &&
                lin_add(cx, env, &m2, e->b, 1, depth + 1) &&
                lin_equal(&m, &m2) && lin_add(cx, env, l, e->a, c, depth + 1))
                return 1;
            break;
        }
        if (e->op == LO_MUL) {
            memset(&m, 0, sizeof m);
            if (e->b->kind == LE_INT)
                return lin_add(cx, env, l, e->a, c * e->b->ival, depth + 1);
            if (e->a->kind == LE_INT)
                return lin_add(cx, env, l, e->b, c * e->a->ival, depth + 1);
        }
        break;
    case LE_BROADCAST:
        return lin_add(cx, env, l, e->a, c, depth + 1);
    case LE_RAMP:
        if (e->b->kind != LE_INT || cx->lane >= LIR_ACC_MAX * 2)
            return 0;
        if (!add_term(l, &cx->lane_keys[cx->lane++], NULL, c * e->b->ival,
                      0, e->type.lanes - 1))
            return 0;
        return lin_add(cx, env, l, e->a, c, depth + 1);
    default:
        break;
    }
    /* Anything else is a term of its own when it is invariant. */
    return is_int(e->type.dt) && invariant(cx, env, e) &&
           add_term(l, NULL, e, c, 0, 0);
}

/* ---- the dependence test ----------------------------------------- */

static int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Whether sum(t[i].coef * z_i) + k = 0 may have a solution with every
 * z_i in its range; 1 when unsure (the caller then does not fuse).
 * The term of the largest coefficient takes each value that the
 * range of the others' sum leaves it in turn: for a flattened index
 * (rows 1024 apart, vectors 16 apart, lanes) that is one value or
 * none at each step. */
static int dep_feasible(const LTerm *t, int n, int64_t k, int *budget)
{
    LTerm rest[LIR_LIN_TERMS * 2];
    int64_t g = 0, mn = k, mx = k, c, zlo, zhi;
    int big = -1, m = 0;

    if (--*budget < 0)
        return 1;
    for (int i = 0; i < n; i++)
        if (t[i].coef)
            rest[m++] = t[i];
    if (m == 0)
        return k == 0;
    for (int i = 0; i < m; i++) {
        g = gcd64(g, rest[i].coef);
        if (big < 0 || llabs(rest[i].coef) > llabs(rest[big].coef))
            big = i;
    }
    if (k % g != 0)
        return 0;
    for (int i = 0; i < m; i++) {
        int64_t a = rest[i].coef * rest[i].lo, b = rest[i].coef * rest[i].hi;
        if (i == big)
            continue;
        mn += a < b ? a : b;
        mx += a < b ? b : a;
    }
    /* c * z must be in [-mx, -mn]. */
    c = rest[big].coef;
    if (c > 0) {
        zlo = -mx >= 0 ? (-mx + c - 1) / c : -(mx / c);
        zhi = -mn >= 0 ? -mn / c : -((mn + c - 1) / c);
    } else {
        zlo = mn >= 0 ? (mn + -c - 1) / -c : -(-mn / -c);
        zhi = mx >= 0 ? mx / -c : -((-mx + -c - 1) / -c);
    }
    if (zlo < rest[big].lo)
        zlo = rest[big].lo;
    if (zhi > rest[big].hi)
        zhi = rest[big].hi;
    if (zlo > zhi)
        return 0;
    if (zhi - zlo >= LIR_BRANCH_MAX)
        return 1;
    {
        LTerm b = rest[big];
        rest[big] = rest[m - 1];
        for (int64_t z = zlo; z <= zhi; z++)
            if (dep_feasible(rest, m - 1, k + b.coef * z, budget))
                return 1;
    }
    return 0;
}

/* Whether the store index w (producer, at i) and the load index r
 * (consumer, at j) may meet with i > j. */
int lir_access_may_meet(const LAccCtx *cx, const LLin *w, const LLin *r)
{
    LTerm t[LIR_LIN_TERMS * 2];
    int n = 0, budget = LIR_DEP_BUDGET;
    int64_t cw = 0, cr = 0;

    for (int i = 0; i < w->n; i++) {
        if (w->t[i].key == cx->v) {
            cw = w->t[i].coef;
            continue;
        }
        t[n] = w->t[i];
        n++;
    }
    for (int i = 0; i < r->n; i++) {
        if (r->t[i].key == cx->v) {
            cr = r->t[i].coef;
            continue;
        }
        if (!r->t[i].coef)
            continue;
        if (r->t[i].atom) {
            /* A common invariant term cancels; one without a match
             * is unknown. */
            int found = 0;
            for (int j = 0; j < n; j++)
                if (t[j].atom && lir_expr_equal(t[j].atom, r->t[i].atom)) {
                    t[j].coef -= r->t[i].coef;
                    found = 1;
                    break;
                }
            if (!found)
                return 1;
            continue;
        }
        t[n] = r->t[i];
        t[n].coef = -t[n].coef;
        n++;
    }
    for (int j = 0; j < n; j++)
        if ((t[j].atom && t[j].coef) || llabs(t[j].coef) > LIR_COEF_MAX)
            return 1;
    if (llabs(cw) > LIR_COEF_MAX)
        return 1;
    if (cw != cr)
        return 1;
    /* cw * i - cw * j = cw * d, d = i - j >= 1. */
    t[n].key = cx;
    t[n].atom = NULL;
    t[n].coef = cw;
    t[n].lo = 1;
    t[n].hi = cx->vhi - cx->vlo;
    if (t[n].hi < 1)
        return 0;
    n++;
    return dep_feasible(t, n, w->k - r->k, &budget);
}

/* ---- accesses ------------------------------------------------------ */





static int is_param(const LAccCtx *cx, const LVar *buf)
{
    for (int i = 0; i < cx->f->nparams; i++)
        if (cx->f->params[i].var == buf ||
            !strcmp(cx->f->params[i].var->name, buf->name))
            return 1;
    return 0;
}

/* Whether two buffers may be one memory. */
int lir_access_same_mem(const LAccCtx *cx, const LVar *a, const LVar *b)
{
    return a == b || !strcmp(a->name, b->name) ||
           (is_param(cx, a) && is_param(cx, b));
}

static void note(LAccCtx *cx, LAccs *as, const Env *env, const LVar *buf,
                 int write, LExpr *const *idx, int nidx)
{
    LAcc *a;

    if (as->n == LIR_ACC_MAX) {
        as->over = 1;
        return;
    }
    a = &as->a[as->n++];
    memset(a, 0, sizeof *a);
    a->buf = buf;
    a->write = write;
    /* Flattened buffers have one index (pass_flatten.c). */
    a->ok = nidx == 1 && lin_add(cx, env, &a->idx, idx[0], 1, 0);
}

static void acc_expr(LAccCtx *cx, LAccs *as, const Env *env, const LExpr *e)
{
    if (!e)
        return;
    if (e->kind == LE_LOAD)
        note(cx, as, env, e->var, 0, e->args, e->nargs);
    acc_expr(cx, as, env, e->a);
    acc_expr(cx, as, env, e->b);
    acc_expr(cx, as, env, e->c);
    for (int i = 0; i < e->nargs; i++)
        acc_expr(cx, as, env, e->args[i]);
}

/* The accesses of st, with the loops and lets around each (a loop
 * without constant bounds: an index using it is not affine here). */
static void acc_stmt(LAccCtx *cx, LAccs *as, Env *env, const LStmt *st)
{
    int n0 = env->n;

    switch (st->kind) {
    case LS_FOR:
        acc_expr(cx, as, env, st->a);
        acc_expr(cx, as, env, st->b);
        if (env->n == LIR_ENV_MAX) {
            as->over = 1;
            return;
        }
        env->var[env->n] = st->var;
        env->val[env->n] = NULL;
        if (st->a->kind == LE_INT && st->b->kind == LE_INT &&
            st->b->ival > st->a->ival) {
            env->lo[env->n] = st->a->ival;
            env->hi[env->n] = st->b->ival - 1;
        } else {
            /* An unknown range: a huge one, which no test can bound. */
            env->lo[env->n] = -((int64_t)1 << 40);
            env->hi[env->n] = (int64_t)1 << 40;
        }
        env->n++;
        acc_stmt(cx, as, env, st->body);
        env->n = n0;
        return;
    case LS_LET:
        acc_expr(cx, as, env, st->a);
        if (env->n == LIR_ENV_MAX) {
            as->over = 1;
            return;
        }
        env->var[env->n] = st->var;
        env->val[env->n] = st->a;
        env->n++;   /* stays for the block's later items */
        return;
    case LS_STORE:
        acc_expr(cx, as, env, st->a);
        for (int i = 0; i < st->nargs; i++)
            acc_expr(cx, as, env, st->args[i]);
        note(cx, as, env, st->var, 1, st->args, st->nargs);
        return;
    case LS_ALLOC:
        for (int i = 0; i < st->nargs; i++)
            acc_expr(cx, as, env, st->args[i]);
        return;
    case LS_IF:
        acc_expr(cx, as, env, st->a);
        acc_stmt(cx, as, env, st->body);
        env->n = n0;
        if (st->orelse)
            acc_stmt(cx, as, env, st->orelse);
        env->n = n0;
        return;
    case LS_BLOCK:
        for (int i = 0; i < st->nitems; i++)
            acc_stmt(cx, as, env, st->items[i]);
        env->n = n0;
        return;
    default:
        as->over = 1;
        return;
    }
}

void lir_accesses(LAccCtx *cx, LAccs *as, const LStmt *st)
{
    Env env;
    env.n = 0;
    as->n = 0;
    as->over = 0;
    acc_stmt(cx, as, &env, st);
}

/* Whether a statement with accesses x can move across one with y: no
 * write of either touches memory the other uses. */
int lir_access_commute(const LAccCtx *cx, const LAccs *x, const LAccs *y)
{
    if (x->over || y->over)
        return 0;
    for (int i = 0; i < x->n; i++)
        for (int j = 0; j < y->n; j++)
            if ((x->a[i].write || y->a[j].write) &&
                lir_access_same_mem(cx, x->a[i].buf, y->a[j].buf))
                return 0;
    return 1;
}
/* ---- the function's lets ---------------------------------------- */

typedef struct Lets {
    LAccCtx *cx;
    const char *dup[LIR_OUTER_MAX];
    int ndup, full;
} Lets;

static int collect_let(LVisitor *vis, const LStmt *st)
{
    Lets *ls = vis->ctx;
    LAccCtx *cx = ls->cx;
    int i;

    if (ls->full)
        return 0;
    if (st->kind != LS_LET)
        return 1;
    for (i = 0; i < cx->nouter; i++)
        if (!strcmp(cx->outer[i]->var->name, st->var->name))
            break;
    if (i < cx->nouter) {
        /* Defined twice: neither definition is the one. */
        cx->outer[i] = cx->outer[--cx->nouter];
        if (ls->ndup == LIR_OUTER_MAX) {
            /* A third one would then look unique: read none. */
            ls->full = 1;
            cx->nouter = 0;
            return 0;
        }
        ls->dup[ls->ndup++] = st->var->name;
        return 1;
    }
    for (i = 0; i < ls->ndup; i++)
        if (!strcmp(ls->dup[i], st->var->name))
            return 1;
    if (cx->nouter < LIR_OUTER_MAX)
        cx->outer[cx->nouter++] = st;
    return 1;
}

void lir_access_init(TlSession *s, LAccCtx *c, const LFunc *f)
{
    Lets *ls = arena_alloc(&s->arena, sizeof *ls);
    LVisitor vis = {ls, NULL, collect_let};

    memset(c, 0, sizeof *c);
    c->s = s;
    c->f = f;
    memset(ls, 0, sizeof *ls);
    ls->cx = c;
    lir_visit_stmt(&vis, f->body);
}

void lir_access_loop(LAccCtx *c, const LStmt *loop)
{
    c->v = loop->var;
    c->vlo = loop->a->kind == LE_INT ? loop->a->ival : 0;
    c->vhi = loop->a->kind == LE_INT && loop->b->kind == LE_INT
             ? loop->b->ival - 1 : (int64_t)1 << 40;
    c->lane = 0;
}
