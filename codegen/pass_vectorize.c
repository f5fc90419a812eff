/*
 * pass_vectorize.c - a `vectorized(W)` loop of W iterations becomes
 * straight-line vector code: its variable becomes ramp(lo, 1, W), what
 * depends on it becomes W-lane expressions (vector loads and stores,
 * ramps of indices, broadcasts of what does not depend on it), and
 * what does not stays scalar.  The C backend writes the result with
 * vector types.
 *
 * The loop is replaced only when the result does the same thing:
 *
 * - Stores run in lane order, loads before the stores of their
 *   statement, as the loop did, so only a dependence between lanes
 *   could change a result.  A buffer the body stores into must be
 *   accessed everywhere in the body at one index that is a ramp with a
 *   nonzero constant stride and depends on nothing the body binds
 *   (every lane has its own element, whatever inner loops do), or be
 *   only stored once and never loaded.
 * - A guard (`if c` with c depending on the variable: the tail of a
 *   split) cannot be a vector.  The vector code runs under the
 *   condition that c holds on every lane, checked once before it; when
 *   it does not, the original loop runs as a serial (scalar) loop.
 *   For a comparison of a ramp with something lane-invariant the
 *   check looks at the extreme lane only.  A guard that reads a buffer
 *   the body stores into, under an inner loop or after such a store
 *   (argmin's `v < best[l]` with the reduction loop inside the vector
 *   one), changes as the body runs: checking it once before would let
 *   its first value stand for every later one (the last tie won, the
 *   random test's seed 13874), so the loop stays.
 *   The lanes past a tile's last whole vector are a loop of its own
 *   after partitioning (a computed trip count below 16), which the C
 *   backend runs as one masked vector on AVX-512 with the body
 *   lir_vectorize_masked gives (codegen/c/emit_vmask.c): matmul 252
 *   1.65 -> 0.56 ms against 0.33 at 256 (bench/README.md 2026-11-29).
 *   TODO(issue 4): the rest is the partial panel's tile, which is not
 *   kept in registers: partitioning makes its ii loop serial and splits
 *   its jv loop into whole vectors and the tail before pass_accum sees
 *   it, so C is read and written every k step (240, all whole vectors,
 *   0.37 ms against 0.33 at 256; 500 3.7 against 2.7 at 512).  Keeping
 *   it needs a masked vector store in the loop IR: the tail panel left
 *   unpartitioned and unrolled, its lane guard `ramp < n` made the
 *   mask of its stores and of C's loads (Bp is padded to whole panels,
 *   but its loads would need the mask too unless their bounds are
 *   proved), and pass_accum loading the tile under the mask before k
 *   and storing it under the mask after (by hand in the generated C:
 *   240 0.36 -> 0.30, 252 0.58 -> 0.33, 500 3.7 -> 2.7 ms).  The C
 *   backend's masked tails (emit_vmask.c) are not enough for it as
 *   they are: each keeps a scalar loop beside its masked vector, chosen
 *   per run of the loop, so inside k the tile would be indexed lane by
 *   lane on one path and stay an array (emit_reg.c splits only tiles
 *   read and written in whole slots); the choice has to be made once,
 *   outside k (AVX-512 or not), for the whole promoted tile.
 * - Anything else the vector form cannot say (an allocation, a loop
 *   whose bounds depend on the variable, a nested vector loop, an else
 *   under a guard, a width that is not a power of two from 2 to 64)
 *   leaves the loop as it is.
 *
 * Ramps of i32 that are widened to i64 (indices) become ramps of i64:
 * this assumes, like the loop bounds lowering writes, that the lanes
 * of an index do not wrap around.
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { VZ_MAX_SUB = 256, VZ_MAX_BOUND = 256, VZ_MAX_ACC = 256 };

typedef struct Access {
    const LVar *buf;
    LExpr *idx;         /* the (single) vectorized index */
    int store;
} Access;

typedef struct Vz {
    TlSession *s;
    const LVar *v;      /* the loop variable */
    LExpr *lo;          /* its lower bound */
    int w;
    const LVar *from[VZ_MAX_SUB];
    LExpr *to[VZ_MAX_SUB];
    int nsub;
    const LVar *bound[VZ_MAX_BOUND];    /* scalars the body binds */
    int nbound;
    const LVar *hvar[VZ_MAX_BOUND];     /* lane-invariant lets of what */
    LExpr *hval[VZ_MAX_BOUND];          /* is defined outside: they */
    int nhoist;                         /* could be computed outside */
    Access acc[VZ_MAX_ACC];
    int nacc;
    LExpr *all;         /* every guard holds on every lane */
    const LStmt *body;  /* the loop's body as it was */
    int depth;          /* inner loops around the statement */
    int stored;         /* a store was vectorized before it */
    int fail;
} Vz;

typedef struct Stored {
    const LStmt *body;
    const LVar *buf;
    int hit;
} Stored;

static int stored_stmt(LVisitor *v, const LStmt *st)
{
    Stored *x = v->ctx;

    x->hit |= st->kind == LS_STORE && st->var == x->buf;
    return 1;
}

static int stored_expr(LVisitor *v, const LExpr *e)
{
    Stored *x = v->ctx;

    if (e->kind == LE_LOAD && !x->hit) {
        Stored y = {NULL, e->var, 0};
        LVisitor w = {&y, NULL, stored_stmt};
        lir_visit_stmt(&w, x->body);
        x->hit = y.hit;
    }
    return 1;
}

/* Does c load a buffer that the loop's body stores into? */
static int reads_stored(Vz *z, const LExpr *c)
{
    Stored x = {z->body, NULL, 0};
    LVisitor v = {&x, stored_expr, NULL};

    lir_visit_expr(&v, c);
    return x.hit;
}

static int is_pow2(int64_t w)
{
    return w >= 2 && (w & (w - 1)) == 0;
}

static LExpr *widen(Vz *z, LExpr *e)
{
    return e->type.lanes == 1 ? lir_broadcast(z->s, e, z->w) : e;
}

static void bind(Vz *z, const LVar *v)
{
    if (z->nbound == VZ_MAX_BOUND)
        z->fail = 1;
    else
        z->bound[z->nbound++] = v;
}

static int mentions_bound(Vz *z, const LExpr *e)
{
    for (int i = 0; i < z->nbound; i++)
        if (lir_count_uses_expr(e, z->bound[i]))
            return 1;
    return 0;
}

/* A widening integer cast of a ramp is a ramp (no wraparound in
 * indices, see the top). */
static LExpr *cast_ramp(Vz *z, TlDType to, LExpr *a)
{
    TlDType from = a->type.dt;

    if (a->kind == LE_RAMP && dt_is_int(from) && dt_is_int(to) &&
        dt_size(to) > dt_size(from) && from != DT_BOOL &&
        !dt_is_unsigned(from))
        return lir_ramp(z->s, lir_cast(z->s, to, a->a),
                        lir_cast(z->s, to, a->b), a->type.lanes);
    return NULL;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

/* The lets in scope where the C backend builds a masked tail
 * (lir_vectorize_masked): after hoisting, a tail's index is a sum of
 * lets whose values say its alignment.  NULL in the pass. */
static const LVar *const *env_var;
static LExpr *const *env_val;
static int env_n;

/* What is known of e modulo something: e = r (mod m), m = 0 meaning
 * e = r exactly.  Only sums, products by constants and widening casts
 * of integers are followed (no wraparound, as for ramps). */
static void align(const LExpr *e, int64_t *m, int64_t *r)
{
    int64_t m1, r1, m2, r2;

    switch (e->kind) {
    case LE_VAR:
        for (int i = env_n - 1; i >= 0; i--)
            if (env_var[i] == e->var) {
                align(env_val[i], m, r);
                return;
            }
        break;
    case LE_INT:
        *m = 0;
        *r = e->ival;
        return;
    case LE_CAST:
        if (dt_is_int(e->type.dt) && dt_is_int(e->a->type.dt) &&
            dt_size(e->type.dt) >= dt_size(e->a->type.dt)) {
            align(e->a, m, r);
            return;
        }
        break;
    case LE_BINARY:
        if (e->op != LO_ADD && e->op != LO_SUB && e->op != LO_MUL)
            break;
        align(e->a, &m1, &r1);
        align(e->b, &m2, &r2);
        if (e->op == LO_MUL) {
            if (m1 == 0 && m2 == 0) {
                *m = 0;
                *r = r1 * r2;
            } else if (m1 == 0 || m2 == 0) {
                int64_t k = m1 == 0 ? r1 : r2;
                *m = (m1 == 0 ? m2 : m1) * (k < 0 ? -k : k);
                *r = (m1 == 0 ? r2 : r1) * k;
            } else {
                break;
            }
        } else {
            *m = gcd64(m1, m2);
            *r = e->op == LO_ADD ? r1 + r2 : r1 - r2;
        }
        if (*m > (int64_t)1 << 40 || *r > (int64_t)1 << 40 ||
            *r < -((int64_t)1 << 40))
            break;
        if (*m)
            *r = ((*r % *m) + *m) % *m;
        return;
    default:
        break;
    }
    *m = 1;
    *r = 0;
}

/* ramp(b, s, W) / c and % c when every lane lies in one block of c
 * (b's alignment says so): broadcast(b / c) and ramp(b % c, s, W);
 * NULL otherwise. */
static LExpr *ramp_divmod(Vz *z, LOp op, LExpr *a, LExpr *b)
{
    int64_t c, s, m, r, g;

    if (a->kind != LE_RAMP || b->kind != LE_BROADCAST ||
        b->a->kind != LE_INT || a->b->kind != LE_INT)
        return NULL;
    c = b->a->ival;
    s = a->b->ival;
    if (c <= 0 || s < 0 || s > c)
        return NULL;
    align(a->a, &m, &r);
    g = m ? gcd64(m, c) : c;
    r = ((r % g) + g) % g;
    if (r + s * (a->type.lanes - 1) >= g)
        return NULL;
    if (op == LO_DIV)
        return lir_broadcast(z->s, lir_binary(z->s, LO_DIV, a->a, b->a),
                             a->type.lanes);
    return lir_ramp(z->s, lir_binary(z->s, LO_MOD, a->a, b->a), a->b,
                    a->type.lanes);
}

static LExpr *vexpr(Vz *z, LExpr *e);

static void record(Vz *z, const LVar *buf, LExpr *idx, int store)
{
    if (z->nacc == VZ_MAX_ACC) {
        z->fail = 1;
        return;
    }
    z->acc[z->nacc].buf = buf;
    z->acc[z->nacc].idx = idx;
    z->acc[z->nacc++].store = store;
}

/* The indices of a load or a store, vectorized; *vec tells whether any
 * depends on the lanes (then all are widened). */
static LExpr **vindices(Vz *z, LExpr **args, int n, int *vec)
{
    LExpr **out = arena_alloc(&z->s->arena, (size_t)(n + 1) * sizeof *out);

    *vec = 0;
    for (int i = 0; i < n; i++) {
        out[i] = vexpr(z, args[i]);
        *vec |= out[i]->type.lanes > 1;
    }
    for (int i = 0; *vec && i < n; i++)
        out[i] = lir_simplify_expr(z->s, widen(z, out[i]));
    return out;
}

static LExpr *vexpr(Vz *z, LExpr *e)
{
    LExpr *a, *b, *c, **args, *r;
    int vec = 0;

    if (z->fail)
        return e;
    switch (e->kind) {
    case LE_INT:
    case LE_FLOAT:
        return e;
    case LE_VAR:
        if (e->var == z->v)
            return lir_ramp(z->s, z->lo, lir_const(z->s, e->type, 1), z->w);
        for (int i = z->nsub - 1; i >= 0; i--)
            if (z->from[i] == e->var)
                return z->to[i];
        return e;
    case LE_RAMP:
    case LE_BROADCAST:
        z->fail = 1;        /* already a vector: not nested */
        return e;
    case LE_LOAD:
        args = vindices(z, e->args, e->nargs, &vec);
        if (!vec) {
            for (int i = 0; i < e->nargs; i++)
                if (args[i] != e->args[i])
                    return lir_load(z->s, e->var, args, e->nargs);
            return e;
        }
        if (e->nargs == 1)
            record(z, e->var, args[0], 0);
        else
            z->fail = 1;
        return lir_load(z->s, e->var, args, e->nargs);
    case LE_CALL:
        args = arena_alloc(&z->s->arena, (size_t)(e->nargs + 1) *
                           sizeof *args);
        for (int i = 0; i < e->nargs; i++) {
            args[i] = vexpr(z, e->args[i]);
            vec |= args[i]->type.lanes > 1;
        }
        for (int i = 0; vec && i < e->nargs; i++)
            args[i] = widen(z, args[i]);
        return lir_call_like(z->s, e, args);
    default:
        break;
    }
    a = vexpr(z, e->a);
    b = e->b ? vexpr(z, e->b) : NULL;
    c = e->c ? vexpr(z, e->c) : NULL;
    vec = a->type.lanes > 1 || (b && b->type.lanes > 1) ||
          (c && c->type.lanes > 1);
    if (!vec && a == e->a && b == e->b && c == e->c)
        return e;
    if (vec) {
        a = widen(z, a);
        b = b ? widen(z, b) : NULL;
        c = c ? widen(z, c) : NULL;
    }
    switch (e->kind) {
    case LE_BINARY:
        if (vec && (e->op == LO_DIV || e->op == LO_MOD) &&
            dt_is_int(e->type.dt)) {
            r = ramp_divmod(z, e->op, lir_simplify_expr(z->s, a),
                            lir_simplify_expr(z->s, b));
            if (r)
                return lir_simplify_expr(z->s, r);
        }
        r = lir_binary(z->s, e->op, a, b);
        return vec ? lir_simplify_expr(z->s, r) : r;
    case LE_UNARY: return lir_unary(z->s, e->op, a);
    case LE_SELECT: return lir_select(z->s, a, b, c);
    case LE_CAST:
        if (vec) {
            a = lir_simplify_expr(z->s, a);
            r = cast_ramp(z, e->type.dt, a);
            if (r)
                return lir_simplify_expr(z->s, r);
        }
        return lir_cast(z->s, e->type.dt, a);
    default:
        tl_unreachable();
    }
}

/* Lane l of the vector expression e (scalar: e), or NULL when it
 * cannot be written without the vector (a vector variable). */
static LExpr *lane(Vz *z, LExpr *e, int l)
{
    LExpr *a, *b, *c, **args;

    if (e->type.lanes == 1)
        return e;
    switch (e->kind) {
    case LE_RAMP:
        return lir_binary(z->s, LO_ADD, e->a, lir_binary(z->s, LO_MUL,
                          lir_const(z->s, e->b->type, l), e->b));
    case LE_BROADCAST:
        return e->a;
    case LE_LOAD:
    case LE_CALL:
        args = arena_alloc(&z->s->arena, (size_t)(e->nargs + 1) *
                           sizeof *args);
        for (int i = 0; i < e->nargs; i++)
            if (!(args[i] = lane(z, e->args[i], l)))
                return NULL;
        return e->kind == LE_LOAD ? lir_load(z->s, e->var, args, e->nargs)
                                  : lir_call_like(z->s, e, args);
    case LE_BINARY:
    case LE_UNARY:
    case LE_SELECT:
    case LE_CAST:
        a = lane(z, e->a, l);
        b = e->b ? lane(z, e->b, l) : NULL;
        c = e->c ? lane(z, e->c, l) : NULL;
        if (!a || (e->b && !b) || (e->c && !c))
            return NULL;
        if (e->kind == LE_BINARY)
            return lir_binary(z->s, e->op, a, b);
        if (e->kind == LE_UNARY)
            return lir_unary(z->s, e->op, a);
        if (e->kind == LE_SELECT)
            return lir_select(z->s, a, b, c);
        return lir_cast(z->s, e->type.dt, a);
    default:
        return NULL;
    }
}

static int const_int(const LExpr *e, int64_t *v)
{
    if (e->kind != LE_INT)
        return 0;
    *v = e->ival;
    return 1;
}

/* A scalar condition that holds exactly when the vector condition c
 * holds on every lane, or NULL. */
static LExpr *all_lanes(Vz *z, LExpr *c)
{
    LExpr *a, *b, *r = NULL;
    int64_t st;
    int mx;

    if (c->kind == LE_BROADCAST)
        return c->a;
    if (c->kind == LE_BINARY && c->op == LO_AND) {
        a = all_lanes(z, c->a);
        b = a ? all_lanes(z, c->b) : NULL;
        return b ? lir_binary(z->s, LO_AND, a, b) : NULL;
    }
    if (c->kind == LE_BINARY && c->op >= LO_LT && c->op <= LO_GE) {
        a = c->a;
        b = c->b;
        /* ramp < x needs its largest lane below x; x < ramp its
         * smallest (and the same for <=, >, >=). */
        if (a->kind == LE_RAMP && b->kind == LE_BROADCAST &&
            const_int(a->b, &st)) {
            mx = c->op == LO_LT || c->op == LO_LE;
            return lir_binary(z->s, c->op,
                              lane(z, a, (st >= 0) == mx ? z->w - 1 : 0),
                              b->a);
        }
        if (b->kind == LE_RAMP && a->kind == LE_BROADCAST &&
            const_int(b->b, &st)) {
            mx = c->op == LO_GT || c->op == LO_GE;
            return lir_binary(z->s, c->op, a->a,
                              lane(z, b, (st >= 0) == mx ? z->w - 1 : 0));
        }
    }
    for (int l = 0; l < z->w; l++) {
        LExpr *x = lane(z, c, l);
        if (!x)
            return NULL;
        r = r ? lir_binary(z->s, LO_AND, r, x) : x;
    }
    return r;
}

static LStmt *vstmt(Vz *z, LStmt *st);

static LStmt *vblock(Vz *z, LStmt *st)
{
    LStmt **items = arena_alloc(&z->s->arena, (size_t)(st->nitems + 1) *
                                sizeof *items);
    int n = 0, nsub = z->nsub;

    for (int i = 0; i < st->nitems && !z->fail; i++) {
        LStmt *x = vstmt(z, st->items[i]);
        if (!lir_is_nop(x))
            items[n++] = x;
    }
    z->nsub = nsub;     /* the block's lets end here */
    return lir_block(z->s, items, n);
}

static LStmt *vstmt(Vz *z, LStmt *st)
{
    LExpr *a, *b, **args;
    LVar *nv;
    int vec;

    if (z->fail)
        return st;
    switch (st->kind) {
    case LS_BLOCK:
        return vblock(z, st);
    case LS_LET:
        a = vexpr(z, st->a);
        if (a->type.lanes == 1) {
            if (mentions_bound(z, a) || z->nhoist == VZ_MAX_BOUND) {
                bind(z, st->var);
            } else {
                z->hvar[z->nhoist] = st->var;
                z->hval[z->nhoist++] = a;
            }
            return a == st->a ? st : lir_let(z->s, st->var, a);
        }
        if (z->nsub == VZ_MAX_SUB) {
            z->fail = 1;
            return st;
        }
        a = lir_simplify_expr(z->s, a);
        z->from[z->nsub] = st->var;
        if (a->kind == LE_RAMP || a->kind == LE_BROADCAST) {
            z->to[z->nsub++] = a;   /* substituted: indices stay ramps */
            return lir_nop(z->s);
        }
        nv = lir_var(z->s, st->var->name, a->type);
        z->to[z->nsub++] = lir_ref(z->s, nv);
        return lir_let(z->s, nv, a);
    case LS_STORE:
        args = vindices(z, st->args, st->nargs, &vec);
        a = vexpr(z, st->a);
        if (!vec) {
            /* Every lane would store into one element. */
            z->fail = 1;
            return st;
        }
        if (st->nargs != 1) {
            z->fail = 1;
            return st;
        }
        record(z, st->var, args[0], 1);
        z->stored = 1;
        return lir_store(z->s, st->var, args, st->nargs, widen(z, a));
    case LS_FOR:
        a = vexpr(z, st->a);
        b = vexpr(z, st->b);
        if (a->type.lanes > 1 || b->type.lanes > 1 ||
            st->loop == LP_VECTORIZED || st->loop == LP_PARALLEL ||
            st->loop == LP_DISTRIBUTED) {
            z->fail = 1;
            return st;
        }
        bind(z, st->var);
        {
            LStmt *inner;
            z->depth++;
            inner = vstmt(z, st->body);
            z->depth--;
            return lir_for(z->s, st->loop, st->width, st->level, st->var,
                           a, b, inner);
        }
    case LS_IF:
        a = vexpr(z, st->a);
        if (a->type.lanes == 1)
            return lir_if(z->s, a, vstmt(z, st->body),
                          st->orelse ? vstmt(z, st->orelse) : NULL);
        a = lir_simplify_expr(z->s, a);
        b = st->orelse ? NULL : all_lanes(z, a);
        if (!b || mentions_bound(z, b) ||
            ((z->depth || z->stored) && reads_stored(z, st->a))) {
            z->fail = 1;
            return st;
        }
        z->all = z->all ? lir_binary(z->s, LO_AND, z->all, b) : b;
        return vstmt(z, st->body);
    default:
        z->fail = 1;    /* allocations */
        return st;
    }
}

/* e with the hoistable lets substituted (the latest first: it may use
 * an earlier one). */
static LExpr *unhoist(Vz *z, LExpr *e)
{
    for (int i = z->nhoist - 1; i >= 0; i--)
        e = lir_substitute_expr(z->s, e, z->hvar[i], z->hval[i]);
    return e;
}

/* Whether the accesses leave no dependence between lanes (see the
 * top). */
static int lanes_independent(Vz *z)
{
    for (int i = 0; i < z->nacc; i++) {
        const Access *s = &z->acc[i];
        int others = 0, same = 1;
        int64_t st;
        if (!s->store)
            continue;
        for (int j = 0; j < z->nacc; j++) {
            if (j == i || z->acc[j].buf != s->buf)
                continue;
            others = 1;
            same &= lir_expr_equal(z->acc[j].idx, s->idx);
        }
        if (!others)
            continue;
        if (!same || s->idx->kind != LE_RAMP || !const_int(s->idx->b, &st) ||
            st == 0 || mentions_bound(z, s->idx))
            return 0;
    }
    return 1;
}

/* The vector form of loop st, or st itself. */
static LStmt *vectorize_loop(TlSession *s, LStmt *st)
{
    Vz *z;
    LExpr *ext;
    LStmt *body, *serial;

    ext = lir_simplify_expr(s, lir_binary(s, LO_SUB, st->b, st->a));
    if (ext->kind != LE_INT || !is_pow2(ext->ival) || ext->ival > 64)
        return st;
    z = arena_alloc(&s->arena, sizeof *z);
    memset(z, 0, sizeof *z);
    z->s = s;
    z->v = st->var;
    z->lo = st->a;
    z->w = (int)ext->ival;
    z->body = st->body;
    body = vstmt(z, st->body);
    if (z->fail || !lanes_independent(z))
        return st;
    body = lir_simplify(s, body);
    if (!z->all)
        return body;
    serial = lir_for(s, LP_SERIAL, 0, NULL, st->var, st->a, st->b,
                     st->body);
    return lir_if(s, lir_simplify_expr(s, unhoist(z, z->all)), body,
                  serial);
}

static int half_expr(LVisitor *v, const LExpr *e)
{
    int *seen = v->ctx;

    *seen |= e->type.dt == DT_F16 || e->type.dt == DT_BF16;
    return !*seen;
}

static int half_stmt(LVisitor *v, const LStmt *st)
{
    int *seen = v->ctx;

    *seen |= st->var && (st->var->type.dt == DT_F16 ||
                         st->var->type.dt == DT_BF16);
    return !*seen;
}

/* Whether loop st computes with f16 or bf16 values. */
static int has_half(const LStmt *st)
{
    LVisitor v = {0};
    int half = 0;

    v.ctx = &half;
    v.expr = half_expr;
    v.stmt = half_stmt;
    lir_visit_stmt(&v, st);
    return half;
}

static int str_expr(LVisitor *v, const LExpr *e)
{
    int *seen = v->ctx;

    *seen |= e->type.dt == DT_STR;
    return !*seen;
}

/* Whether loop st computes with str values. */
static int has_str(const LStmt *st)
{
    LVisitor v = {0};
    int str = 0;

    v.ctx = &str;
    v.expr = str_expr;
    lir_visit_stmt(&v, st);
    return str;
}

static LStmt *on_for(LMutator *m, LStmt *st)
{
    st = lir_mutate_stmt_children(m, st);
    if (st->kind != LS_FOR || st->loop != LP_VECTORIZED)
        return st;
    /* A loop that makes strings takes them from the caller's allocator
     * in turn, a dependence between iterations that an `omp simd`
     * (what the C backend writes for a vector loop left as it is)
     * would deny: it becomes a serial loop. */
    if (has_str(st))
        return lir_for(m->s, LP_SERIAL, 0, NULL, st->var, st->a, st->b,
                       st->body);
    /* f16 and bf16 have no vector form in the C backend (each value
     * is rounded by a call): the loop stays scalar. */
    if (has_half(st))
        return st;
    return vectorize_loop(m->s, st);
}

LStmt *lir_vectorize(TlSession *s, LStmt *st)
{
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.stmt[LS_FOR] = on_for;
    return lir_mutate_stmt(&m, st);
}

/* --- the lanes of a tail: one masked vector (codegen/c/emit_vmask.c) */

typedef struct Mk {
    int ok;
} Mk;

/* idx is ramp(base, 1) over 4-byte elements: one masked instruction
 * moves it on AVX-512. */
static int dense4(const LExpr *idx, TlDType dt)
{
    return dt != DT_BOOL && dt_size(dt) == 4 && idx->kind == LE_RAMP &&
           idx->b->kind == LE_INT && idx->b->ival == 1;
}

/* The lanes past the trip count compute on zeros and ramps past the
 * end: nothing there may trap or be undefined in C (an integer
 * division by 0, a float out of an integer's range), call out, or read
 * other than through a masked load.  Math calls are left out too: the
 * C prelude holds the vector forms of the calls the function had. */
static int mk_expr(LVisitor *v, const LExpr *e)
{
    Mk *k = v->ctx;

    if (e->type.lanes == 1)
        return 1;
    switch (e->kind) {
    case LE_LOAD:
        k->ok &= e->nargs == 1 && dense4(e->args[0], e->type.dt);
        break;
    case LE_BINARY:
        /* By a constant other than 0 and -1 it cannot trap. */
        k->ok &= (e->op != LO_DIV && e->op != LO_MOD) ||
                 dt_is_float(e->type.dt) ||
                 (e->b->kind == LE_BROADCAST && e->b->a->kind == LE_INT &&
                  e->b->a->ival != 0 && e->b->a->ival != -1);
        break;
    case LE_CAST:
        k->ok &= !dt_is_float(e->a->type.dt) || dt_is_float(e->type.dt);
        break;
    case LE_CALL:
        k->ok = 0;      /* also: its vector form may not be in the prelude */
        break;
    default:
        break;
    }
    return 1;
}

static int mk_stmt(LVisitor *v, const LStmt *st)
{
    Mk *k = v->ctx;

    if (st->kind == LS_STORE)
        k->ok &= st->nargs == 1 && st->a->type.lanes == 16 &&
                 dense4(st->args[0], st->var->type.dt);
    k->ok &= st->kind != LS_ALLOC;
    return 1;
}

LStmt *lir_vectorize_masked(TlSession *s, const LStmt *st,
                            const LVar *const *lvar, LExpr *const *lval,
                            int nlet)
{
    LVisitor v;
    Mk k = {1};
    Vz *z;
    LStmt *body;

    if (st->kind != LS_FOR || st->loop != LP_VECTORIZED || st->width != 16)
        return NULL;
    if (has_half(st) || has_str(st))
        return NULL;
    z = arena_alloc(&s->arena, sizeof *z);
    memset(z, 0, sizeof *z);
    z->s = s;
    z->v = st->var;
    z->lo = st->a;
    z->w = 16;
    z->body = st->body;
    env_var = lvar;
    env_val = lval;
    env_n = nlet;
    body = vstmt(z, st->body);
    env_n = 0;
    /* A guard on the lanes would need its own mask. */
    if (z->fail || z->all || !lanes_independent(z))
        return NULL;
    body = lir_simplify(s, body);
    memset(&v, 0, sizeof v);
    v.ctx = &k;
    v.expr = mk_expr;
    v.stmt = mk_stmt;
    lir_visit_stmt(&v, body);
    if (!k.ok)
        return NULL;
    return body;
}
