/*
 * pass_accum.c - vector accumulators in registers.  A serial loop
 * (a reduction's) whose body is a nest of `unrolled` loops around one
 * vector store X[idx] = f(X[idx], ...) with idx independent of the
 * loop reads and writes the same elements of X in every iteration: a
 * register tile of a matmul or a convolution.  The pass keeps them in a
 * register allocation instead (the C compiler puts it in vector
 * registers once the unrolled loops are unrolled):
 *
 *   if <the tile's elements are distinct> {
 *     alloc X.acc: T[n * W] on register
 *     <nest> X.acc[ramp(slot * W, 1, W)] = X[idx]
 *     for k { <nest> X.acc[slot...] = f(X.acc[slot...], ...) }
 *     <nest> X[idx] = X.acc[ramp(slot * W, 1, W)]
 *   } else {
 *     <the loop as it was>
 *   }
 *
 * where slot numbers the iterations of the unrolled nest.  The serial
 * loop may also be a nest of serial loops with nothing else in their
 * bodies (a reduction over several variables); the promoted block
 * then encloses the outermost of them.  Each element
 * sees the same operations in the same order, so results are the same
 * bit for bit, provided two iterations of the nest never touch one
 * element: the check asks that idx's base be affine in the nest's
 * variables with positive strides, the innermost at least W apart and
 * each outer one past the whole span of the ones inside it (it folds
 * away when the strides are constants).  Anything else leaves the loop
 * as it is.
 *
 * A tile that starts at the first step of its reduction for every
 * element (its serial loops, and every loop of the update nest around
 * it that runs over the reduction's variables, at 0: LVar.red) starts
 * from the value the reduction's initialization stored (LVar.red_init,
 * set by lowering) instead of loading it back:
 *
 *     if ko == 0 { <nest> X.acc[slot...] = broadcast(init) }
 *     else { <nest> X.acc[slot...] = X[idx] }
 *
 * The bits are the same (the element holds init until then); the
 * loads were of lines the initialization wrote long before (matmul
 * 1024's C, 4 MB: 1-2% of its time).  TODO(issue 4): the
 * initialization's stores are then dead wherever a tile covers the
 * element (0.5% more at 1024), but the tails and K = 0 still read
 * them; and a tile's rows past the last whole tile (matmul's 4 rows
 * of 1024) run without registers (bench/README.md 2026-11-29 09:05).
 *
 * TODO(issue 4): the loop as it was is kept beside the promoted one
 * whenever the check does not fold away, which doubles that code (and
 * cc's time); a schedule-level store_at of the update in registers
 * would make the check unnecessary.
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { AC_MAX_NEST = 8, AC_MAX_LETS = 32, AC_MAX_AROUND = 64 };

/* The loops around the one being promoted, and the function. */
typedef struct Around {
    const LStmt *loops[AC_MAX_AROUND];
    int n;
    const LFunc *f;     /* NULL: too deep to know the loops around */
} Around;

typedef struct Ac {
    TlSession *s;
    LStmt *ks[AC_MAX_NEST];     /* the serial loops, outermost first */
    int nk;
    LStmt *fors[AC_MAX_NEST];   /* the unrolled nest, outermost first */
    int64_t ext[AC_MAX_NEST];
    int tile[AC_MAX_NEST];      /* the index depends on it */
    int nfor;
    LStmt *lets[AC_MAX_LETS];   /* the lets around the store */
    int nlet;
    LStmt *store;
} Ac;

static int const_int(const LExpr *e, int64_t *v)
{
    if (!e || e->kind != LE_INT)
        return 0;
    *v = e->ival;
    return 1;
}

/* The nest: unrolled loops from 0 to a constant, then lets and one
 * store. */
static int match_nest(Ac *a, LStmt *st)
{
    int64_t lo, hi;

    while (st->kind == LS_FOR) {
        if (st->loop != LP_UNROLLED || a->nfor == AC_MAX_NEST ||
            !const_int(st->a, &lo) || !const_int(st->b, &hi) || lo != 0 ||
            hi < 1)
            return 0;
        a->fors[a->nfor] = st;
        a->ext[a->nfor++] = hi;
        st = st->body;
    }
    if (st->kind == LS_STORE) {
        a->store = st;
        return 1;
    }
    if (st->kind != LS_BLOCK)
        return 0;
    for (int i = 0; i < st->nitems; i++) {
        LStmt *it = st->items[i];
        if (i == st->nitems - 1 && it->kind == LS_STORE) {
            a->store = it;
            return 1;
        }
        if (it->kind != LS_LET || a->nlet == AC_MAX_LETS)
            return 0;
        a->lets[a->nlet++] = it;
    }
    return 0;
}

/* e with the nest's lets substituted (the latest first). */
static LExpr *unlet(Ac *a, LExpr *e)
{
    for (int i = a->nlet - 1; i >= 0; i--)
        e = lir_substitute_expr(a->s, e, a->lets[i]->var, a->lets[i]->a);
    return e;
}

/* The change of e when u grows by one, if e is affine in u (NULL
 * otherwise).  Widening integer casts count as affine (indices do not
 * wrap around, as pass_vectorize.c assumes). */
/* Whether e uses the variable of one of the serial loops. */
static int uses_k(const Ac *a, const LExpr *e)
{
    for (int i = 0; i < a->nk; i++)
        if (lir_count_uses_expr(e, a->ks[i]->var))
            return 1;
    return 0;
}

static LExpr *slope(Ac *a, LExpr *e, const LVar *u)
{
    LExpr *da, *db;

    if (!lir_count_uses_expr(e, u))
        return lir_const(a->s, e->type, 0);
    switch (e->kind) {
    case LE_VAR:
        return e->var == u ? lir_const(a->s, e->type, 1) : NULL;
    case LE_CAST:
        if (!dt_is_int(e->type.dt) || !dt_is_int(e->a->type.dt) ||
            dt_size(e->type.dt) < dt_size(e->a->type.dt))
            return NULL;
        da = slope(a, e->a, u);
        return da ? lir_cast(a->s, e->type.dt, da) : NULL;
    case LE_BINARY:
        if (e->op != LO_ADD && e->op != LO_SUB && e->op != LO_MUL)
            return NULL;
        da = slope(a, e->a, u);
        db = slope(a, e->b, u);
        if (!da || !db)
            return NULL;
        if (e->op != LO_MUL)
            return lir_binary(a->s, e->op, da, db);
        if (!lir_count_uses_expr(e->a, u))
            return lir_binary(a->s, LO_MUL, e->a, db);
        if (!lir_count_uses_expr(e->b, u))
            return lir_binary(a->s, LO_MUL, da, e->b);
        return NULL;
    default:
        return NULL;
    }
}

typedef struct Uses {
    const LVar *buf;
    const LExpr *idx;
    int other;          /* an access of buf at another index */
} Uses;

static int see_load(LVisitor *v, const LExpr *e)
{
    Uses *u = v->ctx;

    if (e->kind == LE_LOAD && e->var == u->buf &&
        !(e->nargs == 1 && lir_expr_equal(e->args[0], u->idx)))
        u->other = 1;
    return 1;
}

/* acc[ramp(slot * W, 1, W)] for the current iteration of the nest. */
static LExpr *slot_index(Ac *a, int w)
{
    LExpr *lin = lir_int(a->s, DT_I32, 0);

    for (int i = 0; i < a->nfor; i++)
        if (a->tile[i])
            lin = lir_binary(a->s, LO_ADD, lir_binary(a->s, LO_MUL, lin,
                             lir_int(a->s, DT_I32, a->ext[i])),
                             lir_ref(a->s, a->fors[i]->var));
    lin = lir_binary(a->s, LO_MUL, lin, lir_int(a->s, DT_I32, w));
    return lir_ramp(a->s, lir_simplify_expr(a->s, lin),
                    lir_int(a->s, DT_I32, 1), w);
}

/* Whether e (lets substituted) depends on the reduction loop or on an
 * unrolled loop outside the tile. */
static int moves(Ac *a, LExpr *e)
{
    e = unlet(a, e);
    if (uses_k(a, e))
        return 1;
    for (int i = 0; i < a->nfor; i++)
        if (!a->tile[i] && lir_count_uses_expr(e, a->fors[i]->var))
            return 1;
    return 0;
}

/* The nest again around `inner`: every loop and let (all), or only the
 * tile's loops and the lets that do not move. */
static LStmt *renest(Ac *a, LStmt *inner, int all)
{
    LStmt *items[AC_MAX_LETS + 1];
    int n = 0;
    LStmt *st;

    for (int i = 0; i < a->nlet; i++)
        if (all || !moves(a, lir_ref(a->s, a->lets[i]->var)))
            items[n++] = a->lets[i];
    items[n++] = inner;
    st = lir_block(a->s, items, n);
    for (int i = a->nfor - 1; i >= 0; i--)
        if (all || a->tile[i])
            st = lir_for(a->s, LP_UNROLLED, 0, NULL, a->fors[i]->var,
                         a->fors[i]->a, a->fors[i]->b, st);
    return st;
}

typedef struct Rep {
    const LVar *buf;
    LExpr *with;
} Rep;

static LExpr *rep_load(LMutator *m, LExpr *e)
{
    Rep *r = m->ctx;

    if (e->kind == LE_LOAD && e->var == r->buf)
        return r->with;
    return lir_mutate_expr_children(m, e);
}

/* Whether strides c[] of the nest, taken innermost first in the
 * nest's order (rev: the reverse order), are positive digits: the
 * innermost at least w, each next one at least the span of those
 * before it. */
static LExpr *digits(Ac *a, LExpr **c, int w, int rev)
{
    LExpr *cond = lir_bool(a->s, 1), *span = lir_const(a->s, c[0]->type, w);

    for (int j = 0; j < a->nfor; j++) {
        int i = rev ? j : a->nfor - 1 - j;
        LExpr *ok;
        if (!a->tile[i])
            continue;
        ok = lir_binary(a->s, LO_GE, c[i], span);
        cond = lir_binary(a->s, LO_AND, cond, ok);
        span = lir_binary(a->s, LO_MUL, c[i],
                          lir_const(a->s, c[i]->type, a->ext[i]));
    }
    return cond;
}

static LStmt *serial_for(LMutator *m, LStmt *st)
{
    st = lir_mutate_stmt_children(m, st);
    if (st->kind != LS_FOR || st->loop != LP_UNROLLED)
        return st;
    return lir_for(m->s, LP_SERIAL, LIR_ROLLED, NULL, st->var, st->a,
                   st->b, st->body);
}

/* st with its unrolled loops serial: the fallback, taken only for
 * overlapping tiles, need not cost compile time. */
static LStmt *unrolled_to_serial(TlSession *s, LStmt *st)
{
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.stmt[LS_FOR] = serial_for;
    return lir_mutate_stmt(&m, st);
}

typedef struct Params {
    const LFunc *f;
    int other;          /* a load, or a variable not a parameter */
} Params;

static int see_non_param(LVisitor *v, const LExpr *e)
{
    Params *p = v->ctx;
    int param = 0;

    if (e->kind == LE_LOAD)
        p->other = 1;
    if (e->kind != LE_VAR)
        return !p->other;
    for (int i = 0; i < p->f->nparams; i++)
        param |= p->f->params[i].var == e->var;
    p->other |= !param;
    return !p->other;
}

/* Whether e reads the function's parameters alone (the lets lowering
 * made around the initialization may be gone by now: substituted, or
 * out of scope at the tile). */
static int of_params(const LExpr *e, const LFunc *f)
{
    Params p = {f, 0};
    LVisitor v = {&p, see_non_param, NULL};

    lir_visit_expr(&v, e);
    return !p.other;
}

/* The condition under which the tile's first step is its reduction's
 * first for every element, or NULL when there is none to know it
 * by. */
static LExpr *first_step(Ac *a, const Around *ar, const LVar *buf)
{
    TlSession *s = a->s;
    LExpr *c = lir_bool(s, 1);

    if (!ar->f || !buf->red_init || buf->red_ninit != 1 ||
        buf->red_init->type.dt != buf->type.dt ||
        buf->red_init->type.lanes != 1 || !of_params(buf->red_init,
                                                     ar->f))
        return NULL;
    for (int i = 0; i < a->nk; i++)
        if (!a->ks[i]->var->red || a->ks[i]->a->kind != LE_INT ||
            a->ks[i]->a->ival != 0)
            return NULL;
    for (int i = 0; i < ar->n; i++) {
        const LStmt *l = ar->loops[i];
        if (!l->var->red)
            continue;
        if (l->loop != LP_SERIAL)
            return NULL;
        c = lir_binary(s, LO_AND, c, lir_binary(s, LO_EQ, lir_ref(s,
                       l->var), lir_int(s, l->var->type.dt, 0)));
    }
    return lir_simplify_expr(s, c);
}

/* The promoted form of serial loop st, or st itself.  st may be a
 * nest of serial loops, each the only statement of the one outside it
 * (a reduction over several variables: a convolution's c, r, s): the
 * accumulators then stay in registers across all of them. */
static LStmt *promote(TlSession *s, LStmt *st, const Around *ar)
{
    Ac a;
    LExpr *idx, *base, *cond = NULL, *sidx, *x, *c[AC_MAX_NEST], *first;
    LVar *acc;
    LStmt *items[4], *body;
    Uses u;
    LVisitor v = {0};
    LMutator m;
    Rep r;
    int w;
    int64_t total = 1;
    LStmt *in = st, *loops;

    memset(&a, 0, sizeof a);
    a.s = s;
    for (;;) {
        LStmt *b = in->body;
        a.ks[a.nk++] = in;
        while (b->kind == LS_BLOCK && b->nitems == 1)
            b = b->items[0];
        if (b->kind != LS_FOR || b->loop != LP_SERIAL ||
            a.nk == AC_MAX_NEST)
            break;
        in = b;
    }
    if (!match_nest(&a, in->body))
        return st;
    idx = a.store->nargs == 1 ? a.store->args[0] : NULL;
    w = a.store->a->type.lanes;
    if (!idx || w < 2 || idx->kind != LE_RAMP || idx->b->kind != LE_INT ||
        idx->b->ival != 1)
        return st;
    /* Every access of X in the loop is this store or a load at its
     * index, which the reduction loop does not move. */
    base = unlet(&a, idx->a);
    if (uses_k(&a, base))
        return st;
    for (int i = 0; i < a.nfor; i++)
        a.tile[i] = 1;      /* until the slopes say otherwise */
    memset(&u, 0, sizeof u);
    u.buf = a.store->var;
    u.idx = idx;
    v.ctx = &u;
    v.expr = see_load;
    lir_visit_expr(&v, a.store->a);
    for (int i = 0; i < a.nlet; i++)
        if (lir_count_uses_expr(a.lets[i]->a, u.buf))
            return st;      /* would read X before the stores */
    for (int i = 1; i < a.nk; i++)
        if (lir_count_uses_expr(a.ks[i]->a, u.buf) ||
            lir_count_uses_expr(a.ks[i]->b, u.buf))
            return st;
    if (u.other)
        return st;
    /* Distinct elements for distinct iterations of the nest: strides
     * nested like digits (in the nest's order or the reverse one),
     * innermost at least W apart. */
    for (int i = 0; i < a.nfor; i++) {
        if (!(c[i] = slope(&a, base, a.fors[i]->var)))
            return st;
        c[i] = lir_simplify_expr(s, c[i]);
        if (c[i]->type.dt != c[0]->type.dt)
            return st;
        a.tile[i] = lir_count_uses_expr(base, a.fors[i]->var) > 0;
        if (a.tile[i])
            total *= a.ext[i];
    }
    if (total > 64)
        return st;          /* more than a register tile */
    if (a.nfor)
        cond = lir_binary(s, LO_OR, digits(&a, c, w, 0),
                          digits(&a, c, w, 1));
    acc = lir_buffer(s, arena_printf(&s->arena, "%s.acc",
                                     a.store->var->name),
                     a.store->var->type.dt);
    sidx = slot_index(&a, w);
    x = lir_load(s, acc, &sidx, 1);
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = &r;
    m.expr[LE_LOAD] = rep_load;
    r.buf = a.store->var;
    r.with = x;
    body = lir_store(s, acc, &sidx, 1, lir_mutate_expr(&m, a.store->a));
    items[0] = lir_alloc(s, acc, LM_REGISTER, (LExpr *[]){
                         lir_int(s, DT_I32, total * w)}, 1);
    items[1] = renest(&a, lir_store(s, acc, &sidx, 1,
                                    lir_load(s, a.store->var, &idx, 1)), 0);
    first = first_step(&a, ar, a.store->var);
    if (first) {
        LStmt *init = renest(&a, lir_store(s, acc, &sidx, 1, lir_broadcast(
                             s, a.store->var->red_init, w)), 0);
        if (first->kind == LE_INT)
            items[1] = first->ival ? init : items[1];
        else
            items[1] = lir_if(s, first, init, items[1]);
    }
    loops = renest(&a, body, 1);
    for (int i = a.nk - 1; i >= 0; i--)
        loops = lir_for(s, a.ks[i]->loop, a.ks[i]->width, a.ks[i]->level,
                        a.ks[i]->var, a.ks[i]->a, a.ks[i]->b, loops);
    items[2] = loops;
    items[3] = renest(&a, lir_store(s, a.store->var, &idx, 1, x), 0);
    body = lir_block(s, items, 4);
    if (!cond)
        return body;
    cond = lir_simplify_expr(s, cond);
    if (cond->kind == LE_INT)
        return cond->ival ? body : st;
    return lir_if(s, cond, body, unrolled_to_serial(s, st));
}

/* The outermost serial loop that promotes wins (its nest of serial
 * loops keeps the registers longest); else the loops inside it are
 * tried. */
static LStmt *on_for(LMutator *m, LStmt *st)
{
    Around *ar = m->ctx;

    if (st->kind == LS_FOR && st->loop == LP_SERIAL) {
        LStmt *p = promote(m->s, st, ar);
        if (p != st)
            return p;
    }
    if (ar->n < AC_MAX_AROUND) {
        ar->loops[ar->n++] = st;
        st = lir_mutate_stmt_children(m, st);
        ar->n--;
    } else {
        /* Too deep to know the loops around: no identity start. */
        const LFunc *f = ar->f;
        ar->f = NULL;
        st = lir_mutate_stmt_children(m, st);
        ar->f = f;
    }
    if (st->kind != LS_FOR || st->loop != LP_SERIAL)
        return st;
    return promote(m->s, st, ar);
}

LStmt *lir_promote_accumulators(TlSession *s, const LFunc *f)
{
    LMutator m;
    Around ar;

    memset(&m, 0, sizeof m);
    memset(&ar, 0, sizeof ar);
    ar.f = f;
    m.s = s;
    m.ctx = &ar;
    m.stmt[LS_FOR] = on_for;
    return lir_mutate_stmt(&m, f->body);
}
