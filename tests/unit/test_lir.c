/*
 * test_lir.c - unit tests of the loop IR (codegen/lir*.c) and of the
 * simplifier (codegen/pass_simplify.c).
 *
 * Random well-typed functions (a fixed seed; TDSL_LIR_SEED and
 * TDSL_LIR_CASES override) check that print and parse are inverse,
 * that lir_verify accepts them, that the default rewriter gives back
 * the same pointers, and that simplifying keeps the meaning: an
 * evaluator runs each function before and after on the same memory,
 * computing every operation with the interpreter's scalar semantics
 * (interp/eval_scalar.c), so folding is checked against the
 * reference.  Hand-written cases cover parse errors and each verify
 * message.  Exit status 0 on success; each failure prints what it saw.
 */
#include "codegen/codegen.h"
#include "interp/eval_int.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ====================================================================
 * Random numbers (xorshift64*, reproducible everywhere)
 * ==================================================================== */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static int rnd(int n)
{
    return (int)(rnd64() % (uint64_t)n);
}

/* ====================================================================
 * A generator of random well-typed functions
 *
 * Every index is reduced into its buffer with `% size` (floor modulo,
 * so always in range), which keeps the evaluator's memory accesses
 * safe whatever the simplifier does to the index arithmetic.
 * ==================================================================== */

enum { MAX_VALS = 64, MAX_BUFS = 16, BUF_SIZE = 64 };

typedef struct Buf {
    LVar *var;
    int ndims;
    int64_t dims[2];
} Buf;

typedef struct Gen {
    TlSession *s;
    LVar *vals[MAX_VALS];       /* values in scope */
    int nvals;
    LVar *loops[MAX_VALS];      /* loop variables in scope */
    int nloops;
    Buf bufs[MAX_BUFS];         /* buffers in scope */
    int nbufs;
    TlVec names;                /* every name used in the function */
    int stmts;                  /* statements made so far */
    int in_index;               /* inside an index: no more loads */
    LExpr *last_lo;             /* the last lower bound made */
} Gen;

static const TlDType int_dts[] = {DT_I32, DT_I32, DT_I32, DT_I8, DT_U8,
                                  DT_I16, DT_I64};
static const TlDType float_dts[] = {DT_F32, DT_F32, DT_F64, DT_F16,
                                    DT_BF16};

/* A name not used before in the function: from a pool that has
 * keywords (written with $) and dotted names, numbered if taken. */
static const char *fresh(Gen *g, const char *hint)
{
    static const char *const pool[] = {
        "x", "y", "tmp", "acc", "min", "for", "f32", "inf", "nan_f16",
        "ramp", "C.s0.x", "b_2", "select", "heap", "true", "on", "exp",
    };
    const char *base = hint ? hint : pool[rnd(sizeof pool / sizeof *pool)];
    const char *name = base;

    for (int k = 1;; k++) {
        int taken = 0;
        for (int i = 0; i < g->names.n; i++)
            taken |= !strcmp(g->names.v[i], name);
        if (!taken)
            break;
        name = arena_printf(&g->s->arena, "%s%d", base, k);
    }
    vec_push(&g->s->arena, &g->names, (void *)name);
    return name;
}

static LExpr *gen_expr(Gen *g, LType t, int depth);
static LExpr *leaf(Gen *g, LType t);

static LExpr *int_const(Gen *g, TlDType dt)
{
    static const int64_t vals[] = {0, 1, -1, 2, 3, 4, 7, 8, 16, 63, 64,
                                   100, -5, -64, 255, 1000, 1 << 20};
    int64_t v;

    switch (rnd(8)) {
    case 0: v = (int64_t)rnd64(); break;
    case 1: v = rnd(2) ? INT64_MAX : INT64_MIN; break;
    default: v = vals[rnd(sizeof vals / sizeof *vals)]; break;
    }
    {
        unsigned char tmp[8];           /* wrapped into dt */
        tl_dt_store_i64(dt, tmp, v);
        v = tl_dt_load_i64(dt, tmp);
    }
    return lir_int(g->s, dt, v);
}

static LExpr *float_const(Gen *g, TlDType dt)
{
    static const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0,
                                  0.1, 1e30, -2.5, 65504.0, 1e-8};
    double v;

    switch (rnd(10)) {
    case 0: v = INFINITY; break;
    case 1: v = -INFINITY; break;
    case 2: v = NAN; break;
    case 3: v = (double)(int64_t)(rnd64() % 2001) / 16.0 - 60.0; break;
    default: v = vals[rnd(sizeof vals / sizeof *vals)]; break;
    }
    return lir_float(g->s, dt, v);
}

static LExpr *scalar_const(Gen *g, TlDType dt)
{
    if (dt == DT_BOOL)
        return lir_bool(g->s, rnd(2));
    return dt_is_float(dt) ? float_const(g, dt) : int_const(g, dt);
}

static LExpr *c32(Gen *g, int64_t v)
{
    return lir_int(g->s, DT_I32, v);
}

/* An i32 expression shaped like index arithmetic: loop variables times
 * small constants plus a constant, sometimes divided or reduced. */
static LExpr *index_expr(Gen *g)
{
    LExpr *e = c32(g, rnd(9) - 2);

    for (int k = rnd(3); k >= 0; k--) {
        LExpr *term = leaf(g, lir_type(DT_I32, 1));
        if (g->nloops && rnd(3))
            term = lir_ref(g->s, g->loops[rnd(g->nloops)]);
        if (rnd(3))
            term = lir_binary(g->s, LO_MUL, term, c32(g, 1 << rnd(4)));
        e = rnd(2) ? lir_binary(g->s, LO_ADD, term, e)
                   : lir_binary(g->s, LO_ADD, e, term);
    }
    switch (rnd(6)) {
    case 0: return lir_binary(g->s, LO_DIV, e, c32(g, 1 << rnd(4)));
    case 1: return lir_binary(g->s, LO_MOD, e, c32(g, 1 << rnd(4)));
    case 2: {
        LOp op = rnd(2) ? LO_MIN : LO_MAX;
        return lir_binary(g->s, op, e, c32(g, rnd(20)));
    }
    case 3: return gen_expr(g, lir_type(DT_I32, 1), 2);
    default: return e;
    }
}

/* An index into [0, n - (lanes - 1) * stride), then a ramp if lanes. */
static LExpr *safe_index(Gen *g, int64_t n, int lanes)
{
    int stride = 1 + rnd(2);
    int64_t room = n - (int64_t)(lanes - 1) * stride;
    LExpr *i = lir_binary(g->s, LO_MOD, index_expr(g), c32(g, room));

    if (lanes == 1)
        return i;
    return lir_ramp(g->s, i, c32(g, stride), lanes);
}

/* Indices for a load or store of b with the given lanes. */
static int buf_index(Gen *g, const Buf *b, int lanes, LExpr **idx)
{
    if (b->ndims == 0) {
        idx[0] = safe_index(g, BUF_SIZE, lanes);
        return 1;
    }
    for (int d = 0; d < b->ndims; d++)
        idx[d] = safe_index(g, b->dims[d], d == b->ndims - 1 ? lanes : 1);
    return b->ndims;
}

static const Buf *find_buf(Gen *g, TlDType dt, int lanes)
{
    int cand[MAX_BUFS], n = 0;

    for (int i = 0; i < g->nbufs; i++) {
        const Buf *b = &g->bufs[i];
        int last = b->ndims ? (int)b->dims[b->ndims - 1] : BUF_SIZE;
        if (b->var->type.dt == dt && lanes <= last)
            cand[n++] = i;
    }
    return n ? &g->bufs[cand[rnd(n)]] : NULL;
}

static LExpr *leaf(Gen *g, LType t)
{
    LVar *cand[MAX_VALS];
    LExpr *idx[2];
    const Buf *b;
    int n = 0;

    for (int i = 0; i < g->nvals; i++)
        if (lir_type_eq(g->vals[i]->type, t))
            cand[n++] = g->vals[i];
    if (n && rnd(2))
        return lir_ref(g->s, cand[rnd(n)]);
    b = g->in_index ? NULL : find_buf(g, t.dt, t.lanes);
    if (b && rnd(2)) {
        int k;
        g->in_index++;
        k = buf_index(g, b, t.lanes, idx);
        g->in_index--;
        return lir_load(g->s, b->var, idx, k);
    }
    if (t.lanes > 1)
        return lir_broadcast(g->s, scalar_const(g, t.dt), t.lanes);
    return scalar_const(g, t.dt);
}

static TlDType any_num(void)
{
    if (rnd(2))
        return int_dts[rnd(sizeof int_dts / sizeof *int_dts)];
    return float_dts[rnd(sizeof float_dts / sizeof *float_dts)];
}

/* op of two new operands of type t.  (Every generator call is its own
 * statement: the order in which C evaluates arguments is unspecified,
 * and a seed must give the same function with every compiler.) */
static LExpr *gen_pair(Gen *g, LOp op, LType t, int depth)
{
    LExpr *a = gen_expr(g, t, depth);
    LExpr *b = gen_expr(g, t, depth);
    return lir_binary(g->s, op, a, b);
}

static LExpr *gen_bool(Gen *g, int lanes, int depth)
{
    static const LOp cmp[] = {LO_EQ, LO_NE, LO_LT, LO_LE, LO_GT, LO_GE};
    LType t = lir_type(DT_BOOL, lanes);
    LType u = lir_type(any_num(), lanes);

    switch (rnd(6)) {
    case 0:
        if (lanes == 1) {
            LOp op = cmp[rnd(6)];
            LExpr *a = index_expr(g);
            return lir_binary(g->s, op, a, c32(g, rnd(20) - 2));
        }
        /* fall through */
    case 1:
    case 4:
        return gen_pair(g, cmp[rnd(6)], u, depth - 1);
    case 2:
        return gen_pair(g, rnd(2) ? LO_AND : LO_OR, t, depth - 1);
    case 3:
        return lir_unary(g->s, LO_NOT, gen_expr(g, t, depth - 1));
    default:
        return gen_pair(g, rnd(2) ? LO_EQ : LO_NE, t, depth - 1);
    }
}

static LExpr *gen_expr(Gen *g, LType t, int depth)
{
    static const LOp arith[] = {LO_ADD, LO_SUB, LO_MUL, LO_DIV, LO_MOD,
                                LO_MIN, LO_MAX};
    static const LCall fns[] = {LC_ABS, LC_FLOOR, LC_CEIL, LC_ROUND,
                                LC_SQRT, LC_EXP, LC_SIN, LC_POW};
    int isf = dt_is_float(t.dt);
    LExpr *args[2];

    if (depth <= 0 || rnd(4) == 0)
        return leaf(g, t);
    if (t.dt == DT_BOOL)
        return gen_bool(g, t.lanes, depth);
    switch (rnd(t.lanes > 1 ? 9 : 7)) {
    case 0:
        /* identities: the right side 0, -0, 1 or an index-like value */
        if (isf) {
            static const double k[] = {0.0, -0.0, 1.0, -1.0};
            LExpr *c = lir_float(g->s, t.dt, k[rnd(4)]);
            LOp op = arith[rnd(7)];
            if (t.lanes > 1)
                c = lir_broadcast(g->s, c, t.lanes);
            return lir_binary(g->s, op, gen_expr(g, t, depth - 1), c);
        }
        if (t.dt == DT_I32 && t.lanes == 1)
            return index_expr(g);
        /* fall through */
    case 1:
    case 2:
        return gen_pair(g, arith[rnd(7)], t, depth - 1);
    case 3:
        return lir_unary(g->s, LO_NEG, gen_expr(g, t, depth - 1));
    case 4: {
        LExpr *c = gen_bool(g, rnd(2) ? t.lanes : 1, depth - 1);
        LExpr *a = gen_expr(g, t, depth - 1);
        return lir_select(g->s, c, a, gen_expr(g, t, depth - 1));
    }
    case 5: {
        TlDType from = rnd(6) ? any_num() : DT_BOOL;
        return lir_cast(g->s, t.dt,
                        gen_expr(g, lir_type(from, t.lanes), depth - 1));
    }
    case 6:
        if (!isf) {
            args[0] = gen_expr(g, t, depth - 1);
            return lir_call(g->s, LC_ABS, args, 1);
        } else {
            LCall fn = fns[rnd(sizeof fns / sizeof *fns)];
            for (int k = 0; k < lir_call_nargs(fn); k++)
                args[k] = gen_expr(g, t, depth - 1);
            return lir_call(g->s, fn, args, lir_call_nargs(fn));
        }
    case 7:
        return lir_broadcast(g->s, gen_expr(g, lir_type(t.dt, 1), depth - 1),
                             t.lanes);
    default:
        if (isf)
            return leaf(g, t);
        args[0] = gen_expr(g, lir_type(t.dt, 1), depth - 1);
        args[1] = gen_expr(g, lir_type(t.dt, 1), depth - 1);
        return lir_ramp(g->s, args[0], args[1], t.lanes);
    }
}

static LType any_type(void)
{
    static const int lanes[] = {1, 1, 1, 2, 4, 8};
    TlDType dt = rnd(8) ? any_num() : DT_BOOL;
    return lir_type(dt, lanes[rnd(6)]);
}

static LStmt *gen_block(Gen *g, int depth);

static LStmt *gen_store(Gen *g)
{
    static const int lanes[] = {1, 1, 2, 4, 8};
    const Buf *b = &g->bufs[rnd(g->nbufs)];
    int l = lanes[rnd(5)], n;
    LExpr *idx[2];

    if ((b->ndims ? b->dims[b->ndims - 1] : BUF_SIZE) < l)
        l = 1;
    g->in_index++;
    n = buf_index(g, b, l, idx);
    g->in_index--;
    return lir_store(g->s, b->var, idx, n,
                     gen_expr(g, lir_type(b->var->type.dt, l), 3));
}

static LExpr *loop_bound(Gen *g, int lo)
{
    if (rnd(30) == 0) {
        /* INT_MAX - n: then `lo .. lo + 1` wraps and runs no time */
        LExpr *e = lir_binary(g->s, LO_SUB, c32(g, INT32_MAX),
                              lir_ref(g->s, g->vals[0]));
        g->last_lo = lo ? e : NULL;
        return lo ? e : lir_binary(g->s, LO_ADD, e, c32(g, 1));
    }
    if (!lo && g->last_lo && rnd(2))
        return lir_binary(g->s, LO_ADD, g->last_lo, c32(g, 1));
    switch (rnd(4)) {
    case 0: return lo ? c32(g, rnd(3) - 1) : c32(g, 0);
    case 1:
        /* the first parameter, n, is between 0 and 5 at run time */
        return lir_binary(g->s, LO_ADD, lir_ref(g->s, g->vals[0]),
                          c32(g, rnd(3) - 1));
    default: return c32(g, lo ? rnd(3) : rnd(5) + 1);
    }
}

static LStmt *gen_stmt(Gen *g, int depth)
{
    static const LLoopKind kinds[] = {LP_SERIAL, LP_SERIAL, LP_PARALLEL,
                                      LP_VECTORIZED, LP_UNROLLED,
                                      LP_DISTRIBUTED};
    g->stmts++;
    switch (depth > 0 ? rnd(6) : 0) {
    case 0:
    case 1:
        return gen_store(g);
    case 2:
    case 3: {
        LLoopKind k = kinds[rnd(6)];
        LExpr *lo, *hi;
        int width;
        g->last_lo = NULL;
        lo = loop_bound(g, 1);
        hi = loop_bound(g, 0);
        LVar *v = lir_var(g->s, fresh(g, rnd(2) ? "i" : NULL),
                          lir_type(DT_I32, 1));
        LStmt *body;
        g->vals[g->nvals++] = v;
        g->loops[g->nloops++] = v;
        body = gen_block(g, depth - 1);
        g->nvals--;
        g->nloops--;
        width = 1 << rnd(5);
        return lir_for(g->s, k, width, rnd(2) ? "L1" : "PE.lane", v, lo,
                       hi, body);
    }
    case 4: {
        LExpr *c = gen_bool(g, 1, 2);
        LStmt *then = gen_block(g, depth - 1);
        return lir_if(g->s, c, then,
                      rnd(2) ? gen_block(g, depth - 1) : NULL);
    }
    default:
        return gen_block(g, depth - 1);
    }
}

static LStmt *gen_block(Gen *g, int depth)
{
    LStmt *items[8];
    int n = rnd(6), vmark = g->nvals, bmark = g->nbufs;

    for (int i = 0; i < n; i++) {
        int what = g->stmts > 60 ? 9 : rnd(10);
        if (what < 2 && g->nvals < MAX_VALS) {
            LType t = rnd(3) ? any_type() : lir_type(DT_I32, 1);
            LExpr *value = t.dt == DT_I32 && t.lanes == 1 && rnd(2)
                               ? index_expr(g)
                               : gen_expr(g, t, 3);
            LVar *v = lir_var(g->s, fresh(g, NULL), t);
            items[i] = lir_let(g->s, v, value);
            g->vals[g->nvals++] = v;
        } else if (what == 3 && g->nvals < MAX_VALS && i + 2 < 8) {
            /* let t = B[..]; B[..] = ...; X[..] = t + ... (a let that
             * must not move past the store) */
            LStmt *st = gen_store(g);
            LExpr *idx[2];
            LVar *v = lir_var(g->s, fresh(g, "t"), lir_type(st->var->type.dt,
                                                            1));
            Buf *b = NULL;
            for (int k = 0; k < g->nbufs; k++)
                if (g->bufs[k].var == st->var)
                    b = &g->bufs[k];
            g->in_index++;
            items[i++] = lir_let(g->s, v,
                                 lir_load(g->s, b->var, idx,
                                          buf_index(g, b, 1, idx)));
            g->in_index--;
            items[i++] = st;
            g->vals[g->nvals++] = v;
            items[i] = gen_store(g);
            if (items[i]->a->type.dt == v->type.dt &&
                items[i]->a->type.lanes == 1)
                items[i] = lir_store(g->s, items[i]->var, items[i]->args,
                                     items[i]->nargs,
                                     lir_binary(g->s, LO_ADD, lir_ref(g->s, v),
                                                items[i]->a));
            if (i >= n)
                n = i + 1;
        } else if (what == 2 && g->nbufs < MAX_BUFS) {
            static const LMemKind mems[] = {LM_HEAP, LM_STACK, LM_REGISTER};
            Buf *b = &g->bufs[g->nbufs++];
            LExpr *ext[2];
            b->ndims = 1 + rnd(2);
            b->dims[0] = 4 + rnd(12);
            b->dims[1] = 8;
            const char *bname = fresh(g, NULL);
            b->var = lir_buffer(g->s, bname, any_num());
            ext[0] = c32(g, b->dims[0]);
            ext[1] = c32(g, b->dims[1]);
            items[i] = lir_alloc(g->s, b->var, mems[rnd(3)], ext, b->ndims);
        } else {
            items[i] = gen_stmt(g, depth);
        }
    }
    g->nvals = vmark;
    g->nbufs = bmark;
    return lir_block(g->s, items, n);
}

/* Parameters: n (i32, first), a scalar f32 `k`, buffers A: i32*,
 * F: f32*, H: f16*, M: i32[4, 8] and D: f64[w, 8] (w a parameter). */
static LFunc *gen_func(Gen *g)
{
    LParam p[7];
    LExpr *dims[2];

    memset(p, 0, sizeof p);
    g->nvals = g->nbufs = g->nloops = g->stmts = 0;
    g->names.n = 0;
    p[0].var = lir_var(g->s, fresh(g, "n"), lir_type(DT_I32, 1));
    p[1].var = lir_var(g->s, fresh(g, "k"), lir_type(DT_F32, 1));
    p[2].var = lir_var(g->s, fresh(g, "w"), lir_type(DT_I32, 1));
    g->vals[g->nvals++] = p[0].var;
    g->vals[g->nvals++] = p[1].var;
    p[3].var = lir_buffer(g->s, fresh(g, "A"), DT_I32);
    p[4].var = lir_buffer(g->s, fresh(g, "F"), DT_F32);
    p[5].var = lir_buffer(g->s, fresh(g, "M"), DT_I32);
    dims[0] = c32(g, 4);
    dims[1] = c32(g, 8);
    p[5].dims = dims;
    p[5].ndims = 2;
    p[6].var = lir_buffer(g->s, fresh(g, "H"), DT_F16);
    g->bufs[0].var = p[3].var;
    g->bufs[1].var = p[4].var;
    g->bufs[2].var = p[5].var;
    g->bufs[2].ndims = 2;
    g->bufs[2].dims[0] = 4;
    g->bufs[2].dims[1] = 8;
    g->bufs[3].var = p[6].var;
    g->nbufs = 4;
    return lir_func(g->s, "f", p, 7, gen_block(g, 3));
}

/* ====================================================================
 * An evaluator with the interpreter's scalar semantics
 * ==================================================================== */

enum { MAX_LANES = 8, MAX_ENV = 256, MAX_MEM = 32, MAX_STEPS = 200000 };

typedef struct Val {
    ItpVal v[MAX_LANES];
} Val;

typedef struct Mem {
    const LVar *buf;
    int ndims;
    int64_t dims[2];
    int64_t n;
    ItpVal *data;
} Mem;

typedef struct Ev {
    const LVar *vars[MAX_ENV];
    Val vals[MAX_ENV];
    int nenv;
    Mem mem[MAX_MEM];
    int nmem;
    int bad;            /* out of bounds, too long: skip the case */
    long steps;
} Ev;

static ItpOp itp_op(LOp op)
{
    switch (op) {
    case LO_ADD: return I_ADD;
    case LO_SUB: return I_SUB;
    case LO_MUL: return I_MUL;
    case LO_DIV: return I_DIV;
    case LO_MOD: return I_MOD;
    case LO_MIN: return I_MIN;
    case LO_MAX: return I_MAX;
    case LO_EQ: return I_EQ;
    case LO_NE: return I_NE;
    case LO_LT: return I_LT;
    case LO_LE: return I_LE;
    case LO_GT: return I_GT;
    case LO_GE: return I_GE;
    case LO_AND: return I_AND;
    case LO_OR: return I_OR;
    case LO_NEG: return I_NEG;
    default: return I_NOT;
    }
}

static ItpOp itp_fn(LCall fn)
{
    switch (fn) {
    case LC_EXP: return I_EXP;
    case LC_LOG: return I_LOG;
    case LC_SQRT: return I_SQRT;
    case LC_RSQRT: return I_RSQRT;
    case LC_TANH: return I_TANH;
    case LC_SIGMOID: return I_SIGMOID;
    case LC_ERF: return I_ERF;
    case LC_SIN: return I_SIN;
    case LC_COS: return I_COS;
    case LC_TAN: return I_TAN;
    case LC_ASIN: return I_ASIN;
    case LC_ACOS: return I_ACOS;
    case LC_ATAN: return I_ATAN;
    case LC_SINH: return I_SINH;
    case LC_COSH: return I_COSH;
    case LC_ASINH: return I_ASINH;
    case LC_ACOSH: return I_ACOSH;
    case LC_ATANH: return I_ATANH;
    case LC_ABS: return I_ABS;
    case LC_FLOOR: return I_FLOOR;
    case LC_CEIL: return I_CEIL;
    case LC_ROUND: return I_ROUND;
    default: return I_POW;
    }
}

static Mem *mem_of(Ev *ev, const LVar *buf)
{
    for (int i = ev->nmem - 1; i >= 0; i--)
        if (ev->mem[i].buf == buf)
            return &ev->mem[i];
    return NULL;
}

static void eval(Ev *ev, const LExpr *e, Val *out);

/* Offsets of each lane of a load or store; 0 when out of bounds. */
static int offsets(Ev *ev, const LVar *buf, LExpr *const *idx, int n,
                   int lanes, int64_t *off, Mem **mp)
{
    Mem *m = mem_of(ev, buf);
    Val iv[2];

    if (!m || n > 2) {
        ev->bad = 1;
        return 0;
    }
    for (int d = 0; d < n; d++)
        eval(ev, idx[d], &iv[d]);
    for (int l = 0; l < lanes; l++) {
        int64_t o = 0;
        for (int d = 0; d < n; d++) {
            int64_t x = iv[d].v[idx[d]->type.lanes > 1 ? l : 0].i;
            int64_t ext = m->ndims ? m->dims[d] : m->n;
            if (x < 0 || x >= ext) {
                ev->bad = 1;
                return 0;
            }
            o = o * ext + x;
        }
        off[l] = o;
    }
    *mp = m;
    return 1;
}

static void eval(Ev *ev, const LExpr *e, Val *out)
{
    Val a, b, c;
    int L = e->type.lanes;
    TlDType dt = e->a ? e->a->type.dt : e->type.dt;
    int64_t off[MAX_LANES];
    Mem *m;

    memset(out, 0, sizeof *out);
    switch (e->kind) {
    case LE_INT: out->v[0].i = e->ival; return;
    case LE_FLOAT: out->v[0].f = e->fval; return;
    case LE_VAR:
        for (int i = ev->nenv - 1; i >= 0; i--)
            if (ev->vars[i] == e->var) {
                *out = ev->vals[i];
                return;
            }
        ev->bad = 1;
        return;
    case LE_LOAD:
        if (offsets(ev, e->var, e->args, e->nargs, L, off, &m))
            for (int l = 0; l < L; l++)
                out->v[l] = m->data[off[l]];
        return;
    case LE_BINARY:
        eval(ev, e->a, &a);
        eval(ev, e->b, &b);
        for (int l = 0; l < L; l++)
            out->v[l] = itp_binary(itp_op(e->op), dt, a.v[l], b.v[l]);
        return;
    case LE_UNARY:
        eval(ev, e->a, &a);
        for (int l = 0; l < L; l++)
            out->v[l] = itp_unary(itp_op(e->op), dt, a.v[l]);
        return;
    case LE_SELECT:
        eval(ev, e->a, &a);
        eval(ev, e->b, &b);
        eval(ev, e->c, &c);
        for (int l = 0; l < L; l++)
            out->v[l] = a.v[e->a->type.lanes > 1 ? l : 0].i ? b.v[l]
                                                            : c.v[l];
        return;
    case LE_CAST:
        eval(ev, e->a, &a);
        for (int l = 0; l < L; l++)
            out->v[l] = itp_cast(e->type.dt, e->a->type.dt, a.v[l]);
        return;
    case LE_CALL:
        dt = e->args[0]->type.dt;
        eval(ev, e->args[0], &a);
        if (e->nargs > 1)
            eval(ev, e->args[1], &b);
        for (int l = 0; l < L; l++)
            out->v[l] = e->fn == LC_POW
                            ? itp_binary(I_POW, dt, a.v[l], b.v[l])
                            : itp_unary(itp_fn(e->fn), dt, a.v[l]);
        return;
    case LE_RAMP:
        eval(ev, e->a, &a);
        eval(ev, e->b, &b);
        for (int l = 0; l < L; l++) {
            ItpVal k;
            k.i = l;
            out->v[l] = itp_binary(I_ADD, dt, a.v[0],
                                   itp_binary(I_MUL, dt, k, b.v[0]));
        }
        return;
    case LE_BROADCAST:
        eval(ev, e->a, &a);
        for (int l = 0; l < L; l++)
            out->v[l] = a.v[0];
        return;
    default:
        ev->bad = 1;
        return;
    }
}

static void push(Ev *ev, const LVar *v, const Val *x)
{
    if (ev->nenv == MAX_ENV) {
        ev->bad = 1;
        return;
    }
    ev->vars[ev->nenv] = v;
    ev->vals[ev->nenv++] = *x;
}

/* Frees the allocations made since mark (a scope ended). */
static void pop_mem(Ev *ev, int mark)
{
    for (int i = mark; i < ev->nmem; i++)
        free(ev->mem[i].data);
    ev->nmem = mark;
}

static void exec(Ev *ev, const LStmt *st)
{
    int emark = ev->nenv, mmark = ev->nmem;
    int64_t off[MAX_LANES];
    Val a, b;
    Mem *m;

    if (ev->bad || ++ev->steps > MAX_STEPS) {
        ev->bad = 1;
        return;
    }
    switch (st->kind) {
    case LS_FOR:
        eval(ev, st->a, &a);
        eval(ev, st->b, &b);
        for (int64_t i = a.v[0].i; i < b.v[0].i && !ev->bad; i++) {
            Val x;
            memset(&x, 0, sizeof x);
            x.v[0].i = i;
            push(ev, st->var, &x);
            exec(ev, st->body);
            ev->nenv = emark;
            pop_mem(ev, mmark);
        }
        break;
    case LS_LET:
        eval(ev, st->a, &a);
        push(ev, st->var, &a);
        break;
    case LS_STORE:
        eval(ev, st->a, &a);
        if (offsets(ev, st->var, st->args, st->nargs, st->a->type.lanes,
                    off, &m))
            for (int l = 0; l < st->a->type.lanes; l++)
                m->data[off[l]] = a.v[l];
        break;
    case LS_ALLOC: {
        Mem *nm = &ev->mem[ev->nmem];
        if (ev->nmem == MAX_MEM || st->nargs > 2) {
            ev->bad = 1;
            break;
        }
        nm->buf = st->var;
        nm->ndims = st->nargs;
        nm->n = 1;
        for (int d = 0; d < st->nargs; d++) {
            eval(ev, st->args[d], &a);
            nm->dims[d] = a.v[0].i;
            nm->n *= a.v[0].i;
        }
        if (nm->n < 0 || nm->n > 4096) {
            ev->bad = 1;
            break;
        }
        /* allocations are zero-filled here, so that both runs agree */
        nm->data = calloc((size_t)nm->n + 1, sizeof *nm->data);
        ev->nmem++;
        break;
    }
    case LS_IF:
        eval(ev, st->a, &a);
        if (a.v[0].i)
            exec(ev, st->body);
        else if (st->orelse)
            exec(ev, st->orelse);
        ev->nenv = emark;
        pop_mem(ev, mmark);
        break;
    case LS_BLOCK:
        for (int i = 0; i < st->nitems && !ev->bad; i++)
            exec(ev, st->items[i]);
        ev->nenv = emark;
        pop_mem(ev, mmark);
        break;
    default:
        ev->bad = 1;
        break;
    }
}

static double round_to(TlDType dt, double v)
{
    unsigned char tmp[8];
    tl_dt_store_f64(dt, tmp, v);
    return tl_dt_load_f64(dt, tmp);
}

/* Initial contents of the parameter buffers, shared by both runs. */
typedef struct Input {
    Val n, k, w;
    ItpVal A[BUF_SIZE], F[BUF_SIZE], M[32], H[BUF_SIZE];
} Input;

static void make_input(Input *in)
{
    memset(in, 0, sizeof *in);
    in->n.v[0].i = rnd(6);
    in->k.v[0].f = rnd(4) ? (double)(rnd(200) - 100) / 8.0 : -0.0;
    in->w.v[0].i = rnd(4) + 1;
    for (int i = 0; i < BUF_SIZE; i++) {
        in->A[i].i = rnd(4) ? rnd(201) - 100 : (int32_t)rnd64();
        in->F[i].f = rnd(8) ? (float)(rnd(2001) - 1000) / 16.0f
                     : rnd(3) ? -0.0 : (rnd(2) ? INFINITY : NAN);
        in->H[i].f = tl_f16_to_f32(tl_f32_to_f16((float)(rnd(200) - 100)
                                                 / 4.0f));
    }
    for (int i = 0; i < 32; i++)
        in->M[i].i = rnd(100) - 50;
}

/* Runs f on a copy of in; the final buffer contents go to out.
 * Returns 0 when the run had to be abandoned. */
static int run_func(const LFunc *f, const Input *in, Input *out)
{
    Ev *ev = calloc(1, sizeof *ev);
    int ok;

    *out = *in;
    push(ev, f->params[0].var, &in->n);
    push(ev, f->params[1].var, &in->k);
    push(ev, f->params[2].var, &in->w);
    {
        static const int idx[] = {3, 4, 5, 6};
        ItpVal *data[] = {out->A, out->F, out->M, out->H};
        for (int i = 0; i < 4; i++) {
            Mem *m = &ev->mem[ev->nmem++];
            const LParam *p = &f->params[idx[i]];
            m->buf = p->var;
            m->ndims = p->ndims;
            m->dims[0] = 4;
            m->dims[1] = 8;
            m->n = p->ndims ? 32 : BUF_SIZE;
            m->data = data[i];
        }
    }
    exec(ev, f->body);
    ok = !ev->bad;
    pop_mem(ev, 4);
    free(ev);
    return ok;
}

static int same_val(TlDType dt, ItpVal a, ItpVal b)
{
    if (!dt_is_float(dt))
        return a.i == b.i;
    if (isnan(a.f) || isnan(b.f))
        return isnan(a.f) && isnan(b.f);
    return !memcmp(&a.f, &b.f, sizeof a.f);
}

static int same_output(const Input *x, const Input *y)
{
    for (int i = 0; i < BUF_SIZE; i++)
        if (!same_val(DT_I32, x->A[i], y->A[i]) ||
            !same_val(DT_F32, x->F[i], y->F[i]) ||
            !same_val(DT_F16, x->H[i], y->H[i]))
            return 0;
    for (int i = 0; i < 32; i++)
        if (!same_val(DT_I32, x->M[i], y->M[i]))
            return 0;
    return 1;
}

/* ====================================================================
 * Properties of random functions
 * ==================================================================== */

static LExpr *identity_expr(LMutator *m, LExpr *e)
{
    return lir_mutate_expr_children(m, e);
}

static void print_func(const char *what, const LFunc *f)
{
    TlBuf b;
    buf_init(&b);
    lir_print_func(&b, f);
    printf("%s:\n%s", what, b.s);
    buf_free(&b);
}

/* One random function: round trip, verify, identity rewrite, and the
 * simplifier's soundness and fixed point.  Returns 0 on a failure. */
static int random_case(TlSession *s, int num, int *simplified,
                       int *evaluated)
{
    Gen g;
    LFunc *f, *f2, *f3;
    TlBuf t1, t2, err;
    LMutator m;
    LStmt *simp;
    Input in, o1, o2;
    int ok = 1;

    memset(&g, 0, sizeof g);
    g.s = s;
    f = gen_func(&g);
    buf_init(&t1);
    buf_init(&t2);
    buf_init(&err);
    if (lir_verify(f, &err)) {
        printf("case %d: generated function does not verify:\n%s", num,
               err.s);
        ok = 0;
        goto done;
    }
    lir_print_func(&t1, f);
    f2 = lir_parse(s, "random", t1.s, t1.len, &err);
    if (!f2 || !lir_func_equal(f, f2)) {
        printf("case %d: round trip fails %s\n", num, err.s ? err.s : "");
        ok = 0;
        goto done;
    }
    lir_print_func(&t2, f2);
    if (strcmp(t1.s, t2.s)) {
        printf("case %d: printing the parse differs\n", num);
        ok = 0;
        goto done;
    }
    memset(&m, 0, sizeof m);
    m.s = s;
    for (int k = 0; k < LE__COUNT; k++)
        m.expr[k] = identity_expr;
    if (lir_mutate_stmt(&m, f->body) != f->body) {
        printf("case %d: the default rewriter rebuilt the tree\n", num);
        ok = 0;
    }
    simp = lir_simplify(s, f->body);
    if (simp != f->body)
        (*simplified)++;
    f3 = lir_func(s, f->name, f->params, f->nparams, simp);
    if (lir_verify(f3, &err)) {
        printf("case %d: simplified function does not verify:\n%s", num,
               err.s);
        print_func("before", f);
        print_func("after", f3);
        ok = 0;
        goto done;
    }
    if (lir_simplify(s, simp) != simp) {
        printf("case %d: simplify is not at a fixed point\n", num);
        print_func("after", f3);
        ok = 0;
    }
    for (int trial = 0; trial < 3; trial++) {
        make_input(&in);
        if (!run_func(f, &in, &o1))
            continue;
        (*evaluated)++;
        if (!run_func(f3, &in, &o2) || !same_output(&o1, &o2)) {
            printf("case %d: simplify changed the result (n = %lld)\n",
                   num, (long long)in.n.v[0].i);
            print_func("before", f);
            print_func("after", f3);
            ok = 0;
            break;
        }
    }
done:
    buf_free(&t1);
    buf_free(&t2);
    buf_free(&err);
    return ok;
}

/* Random expressions over variables x, y, z of one type, evaluated
 * before and after lir_simplify_expr at edge values (signed zeros,
 * NaN, infinities, the ends of integer ranges). */
static void test_random_exprs(uint64_t seed)
{
    static const double fv[] = {0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5,
                                1e30, INFINITY, -INFINITY, NAN, 65504.0};
    static const TlDType dts[] = {DT_I32, DT_I8, DT_U8, DT_I64, DT_I16,
                                  DT_F32, DT_F64, DT_F16, DT_BF16, DT_BOOL};
    int changed = 0, bad = 0;

    rng_state = seed * 0x9E3779B97F4A7C15ULL + 99;
    for (int i = 0; i < 20000 && bad < 3; i++) {
        TlSession *s = tl_session_new();
        TlDType dt = dts[rnd(10)];
        LType t = lir_type(dt, rnd(4) ? 1 : 4);
        LType rt = rnd(3) ? t : lir_type(DT_BOOL, t.lanes);
        Gen g;
        LExpr *e, *e2;
        memset(&g, 0, sizeof g);
        g.s = s;
        for (int k = 0; k < 3; k++)
            g.vals[g.nvals++] = lir_var(s, k == 0 ? "x" : k == 1 ? "y" : "z",
                                        t);
        e = gen_expr(&g, rt, 1 + rnd(4));
        e2 = lir_simplify_expr(s, e);
        changed += e2 != e;
        for (int trial = 0; trial < 24 && e2 != e; trial++) {
            Ev *ev = calloc(1, sizeof *ev);
            Val v, r1, r2;
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < t.lanes; l++) {
                    ItpVal x;
                    if (dt_is_float(t.dt)) {
                        x.f = round_to(t.dt,
                                                       fv[rnd(12)]);
                    } else {
                        int64_t raw = rnd(3) ? rnd(9) - 4
                                    : rnd(2) ? (int64_t)rnd64()
                                    : rnd(2) ? INT64_MIN : INT64_MAX;
                        unsigned char tmp[8];
                        tl_dt_store_i64(t.dt, tmp, raw);
                        x.i = tl_dt_load_i64(t.dt, tmp);
                    }
                    v.v[l] = x;
                }
                push(ev, g.vals[k], &v);
            }
            eval(ev, e, &r1);
            eval(ev, e2, &r2);
            for (int l = 0; l < rt.lanes; l++)
                if (!same_val(rt.dt, r1.v[l], r2.v[l])) {
                    TlBuf b;
                    buf_init(&b);
                    lir_print_expr(&b, e);
                    buf_puts(&b, "  ->  ");
                    lir_print_expr(&b, e2);
                    printf("expression %d (TDSL_LIR_SEED=%llu): simplify "
                           "changed the value: %s\n", i,
                           (unsigned long long)seed, b.s);
                    buf_free(&b);
                    check_failed();
                    bad++;
                    trial = 99;
                    break;
                }
            free(ev);
        }
        tl_session_free(s);
    }
    printf("random expressions: 20000, %d changed by simplify\n", changed);
}

static void test_random(uint64_t seed)
{
    const char *cases_env = getenv("TDSL_LIR_CASES");
    int cases = cases_env ? atoi(cases_env) : 1000;
    int simplified = 0, evaluated = 0, bad = 0;

    for (int i = 0; i < cases && bad < 3; i++) {
        TlSession *s = tl_session_new();
        rng_state = seed * 0x9E3779B97F4A7C15ULL + (uint64_t)i + 1;
        if (!random_case(s, i, &simplified, &evaluated)) {
            printf("  (replay: TDSL_LIR_SEED=%llu, case %d)\n",
                   (unsigned long long)seed, i);
            check_failed();
            bad++;
        }
        tl_session_free(s);
    }
    printf("random: %d functions, %d changed by simplify, %d runs "
           "compared\n", cases, simplified, evaluated);
    CHECK(evaluated > cases);
    CHECK(simplified > cases / 2);
}

/* ====================================================================
 * Parse errors and robustness
 * ==================================================================== */

/* Parsing text fails with a message containing want. */
static void parse_error(int line, const char *text, const char *want)
{
    TlSession *s = tl_session_new();
    TlBuf err;
    LFunc *f;

    buf_init(&err);
    f = lir_parse(s, "t", text, strlen(text), &err);
    if (f || !err.s || !strstr(err.s, want)) {
        printf("%s:%d: parse of '%s' gave '%s', expected '%s'\n", __FILE__,
               line, text, err.s ? err.s : "(success)", want);
        check_failed();
    }
    buf_free(&err);
    tl_session_free(s);
}

#define PARSE_ERROR(t, w) parse_error(__LINE__, (t), (w))

static void test_parse_errors(void)
{
    PARSE_ERROR("", "t:1:1: expected 'func', found end of input");
    PARSE_ERROR("func f() { x[0] = 1 }", "t:1:12: unknown name 'x'");
    PARSE_ERROR("func f(A: i32*) { A[0] = 1 < 2 < 3 }",
                "comparisons do not chain");
    PARSE_ERROR("func f(A: i8*) { A[0] = 300_i8 }",
                "t:1:25: integer literal out of range for i8");
    PARSE_ERROR("func f(A: i32*) { A[0] = 2147483648 }",
                "out of range for i32");
    PARSE_ERROR("func f(A: i32*) { A[0] = 99999999999999999999 }",
                "is too large");
    PARSE_ERROR("func f(A: f16*) { A[0] = 1e10_f16 }",
                "float literal out of range for f16");
    PARSE_ERROR("func f(A: i32*) { A[0] = 1.5_i32 }",
                "a float literal needs a float dtype");
    PARSE_ERROR("func f(A: i32*) { A[0] = 3_q8 }", "unknown dtype suffix");
    PARSE_ERROR("func f(A: i32*) { A[0] = pow(1.0) }",
                "'pow' takes 2 arguments, not 1");
    PARSE_ERROR("func f(A: i32*) { A[0] = ramp(0, 1, 0) }",
                "a lane count must be between 1 and 1024");
    PARSE_ERROR("func f() { vectorized(0) for i in 0 .. 4 {} }",
                "a vector width must be between 1 and 1024");
    PARSE_ERROR("func f() { parallel(0) for i in 0 .. 4 {} }",
                "a chunk size must be between 1 and 2147483647");
    PARSE_ERROR("func f() { let for = 1 }", "expected a name, found 'for'");
    PARSE_ERROR("func f() { alloc t: f32[4] on disk }",
                "expected 'heap', 'stack' or 'register', found 'disk'");
    PARSE_ERROR("func f(x: q32) {}", "expected a type, found 'q32'");
    PARSE_ERROR("func f(x: f32x0) {}", "expected a type");
    PARSE_ERROR("func f() { } }", "expected end of input, found '}'");
    PARSE_ERROR("func f() { @ }", "unexpected character '@'");
    PARSE_ERROR("func f() { \x01 }", "unexpected byte 0x01");
    PARSE_ERROR("func f() {\n  for i in 0 .. 4 {\n", "t:3:1: expected '}'");
    PARSE_ERROR("func f() { else }", "expected a statement, found 'else'");
    PARSE_ERROR("func f(A: i32*) { A[0] = }",
                "expected an expression, found '}'");
    PARSE_ERROR("func f() { for i in 0 .. 4 { } i[0] = 1 }",
                "unknown name 'i'");
    {
        /* nesting is bounded, not a stack overflow */
        TlBuf b;
        buf_init(&b);
        buf_puts(&b, "func f(A: i32*) { A[0] = ");
        for (int i = 0; i < 5000; i++)
            buf_putc(&b, '(');
        PARSE_ERROR(b.s, "nested too deeply");
        buf_free(&b);
    }
}

/* Random damage to printed functions: parse, verify and print must
 * not crash, and anything that parses and verifies round-trips. */
static void test_damage(void)
{
    static const char *const junk[] = {"(", ")", "{", "}", "[", "]", ",",
                                       "-", "..", "let", "for", "$", "1",
                                       "1.5", "_i8", "x", " ", "\n",
                                       "nan", "#"};
    int parsed = 0;

    rng_state = 7;
    for (int i = 0; i < 300; i++) {
        TlSession *s = tl_session_new();
        Gen g;
        TlBuf text, err, again;
        LFunc *f;

        memset(&g, 0, sizeof g);
        g.s = s;
        buf_init(&text);
        buf_init(&err);
        buf_init(&again);
        lir_print_func(&text, gen_func(&g));
        for (int k = rnd(4); k >= 0; k--) {
            size_t at = (size_t)rnd((int)text.len + 1);
            TlBuf d;
            buf_init(&d);
            buf_putn(&d, text.s, at);
            if (rnd(2))
                buf_puts(&d, junk[rnd(sizeof junk / sizeof *junk)]);
            else if (at < text.len)
                at += (size_t)rnd(4);
            if (at < text.len)
                buf_puts(&d, text.s + at);
            buf_free(&text);
            text = d;
        }
        f = lir_parse(s, "damaged", text.s ? text.s : "", text.len, &err);
        if (f && !lir_verify(f, &err)) {
            LFunc *f2;
            parsed++;
            lir_print_func(&again, f);
            f2 = lir_parse(s, "again", again.s, again.len, &err);
            CHECK(f2 && lir_func_equal(f, f2));
        }
        buf_free(&text);
        buf_free(&err);
        buf_free(&again);
        tl_session_free(s);
    }
    CHECK(parsed > 0);
}

/* ====================================================================
 * Verify messages
 * ==================================================================== */

/* text parses, and lir_verify reports a problem containing want. */
static void verify_error(int line, const char *text, const char *want)
{
    TlSession *s = tl_session_new();
    TlBuf err;
    LFunc *f;

    buf_init(&err);
    f = lir_parse(s, "t", text, strlen(text), &err);
    if (!f || !lir_verify(f, &err) || !strstr(err.s, want)) {
        printf("%s:%d: verify of '%s' gave '%s', expected '%s'\n", __FILE__,
               line, text, err.s ? err.s : "(no problem)", want);
        check_failed();
    }
    buf_free(&err);
    tl_session_free(s);
}

#define VERIFY_ERROR(t, w) verify_error(__LINE__, (t), (w))

static void test_verify(void)
{
    TlSession *s = tl_session_new();
    LVar *x = lir_var(s, "x", lir_type(DT_I32, 1));
    LVar *y = lir_var(s, "x", lir_type(DT_I32, 1));
    LVar *A = lir_buffer(s, "A", DT_I32);
    LVar *bad = lir_var(s, "a b", lir_type(DT_I32, 1));
    LParam p[2] = {{A, NULL, 0}, {x, NULL, 0}};
    LExpr *zero = lir_int(s, DT_I32, 0);
    LStmt *items[2];
    TlBuf err;
    LFunc *f;

    VERIFY_ERROR("func f(A: f32*) { A[0] = 1 }",
                 "the value stored into 'A' has the wrong type in "
                 "'A[0] = 1'");
    VERIFY_ERROR("func f(A: f32*, x: i32) { A[0] = x + 1.5 }",
                 "operands of '+' have types i32 and f32 in 'x + 1.5'");
    VERIFY_ERROR("func f(A: f32*) { A[0.5] = 1.0 }",
                 "index 1 of 'A' is f32, not an integer");
    VERIFY_ERROR("func f(A: f32[4, 4]) { A[0] = 1.0 }",
                 "'A' takes 2 indexes, not 1");
    VERIFY_ERROR("func f(A: f32*) { A[ramp(0, 1, 4)] = 1.0 }",
                 "the value stored into 'A' has the wrong type");
    VERIFY_ERROR("func f(A: f32*) { A[0] = A[ramp(0, 1, 4)] }",
                 "wrong type");
    VERIFY_ERROR("func f(A: i32*) { A[0] = ramp(0, 1, 1) }",
                 "a vector needs at least 2 lanes");
    VERIFY_ERROR("func f(A: f32*) { A[ramp(0.0, 1.0, 4)] = "
                 "broadcast(1.0, 4) }",
                 "a ramp's base must be an integer, not f32");
    VERIFY_ERROR("func f(A: i32*) { let x = 1 for x in 0 .. 4 { } }",
                 "'x' is already defined in 'for x in 0 .. 4'");
    VERIFY_ERROR("func f(A: i32*, x: f32) { for i in 0 .. x { } }",
                 "a loop bound must be a scalar integer in 'x'");
    VERIFY_ERROR("func f(A: i32*) { for i in 0 .. 4_i64 { } }",
                 "the loop bounds differ in type");
    VERIFY_ERROR("func f(A: i32*) { if 1 { } }",
                 "the condition must be a scalar bool in 'if 1'");
    VERIFY_ERROR("func f(A: i32*) { A[0] = i32(!3) }",
                 "'!' needs a bool operand, not i32");
    VERIFY_ERROR("func f(A: i32*) { A[0] = i32(true < false) }",
                 "'<' does not apply to bool");
    VERIFY_ERROR("func f(A: i32*) { A[0] = i32(1 && 2) }",
                 "'&&' needs bool operands, not i32");
    VERIFY_ERROR("func f(A: i32*) { A[0] = exp(1) }",
                 "'exp' does not apply to i32");
    VERIFY_ERROR("func f(A: i32*) { A[0] = select(1, 2, 3) }",
                 "the condition of select must be bool");
    VERIFY_ERROR("func f(A: i32*) { A[0] = select(true, 2, 3_i8) }",
                 "the values of select differ in type");
    VERIFY_ERROR("func f(A: i32*, x: i32) { A[0] = x[0] }",
                 "'x' is not a buffer");
    VERIFY_ERROR("func f(A: i32*) { A[0] = A }", "buffer 'A' used as a value");
    VERIFY_ERROR("func f(A: i32*, n: i32) { alloc t: i32[n] on register }",
                 "a register allocation needs constant sizes");
    VERIFY_ERROR("func f(A: i32*) { alloc t: i32[-1] on stack }",
                 "a size is negative");
    VERIFY_ERROR("func f(A: i32*) { A[0] = broadcast(ramp(0, 1, 2), 2) }",
                 "the operand of a broadcast must be scalar");
    VERIFY_ERROR("func f(A: f32*) { A[0] = -true }",
                 "'-' needs a number, not bool");
    VERIFY_ERROR("func f(A: i32*) { A[0] = min(true, false) }",
                 "'min' needs numbers, not bool");
    VERIFY_ERROR("func f(A: i32*) { A[0] = 1 A[ramp(0, 1, 2), 1] = 1 }",
                 "'A' takes 1 index, not 2");
    VERIFY_ERROR("func f(A: i32[4, 4]) { A[ramp(0, 1, 2), ramp(0, 1, 4)] = "
                 "broadcast(1, 4) }",
                 "indices of 'A' have 2 and 4 lanes");

    /* Trees the text cannot express. */
    buf_init(&err);
    items[0] = lir_let(s, x, zero);
    items[1] = lir_store(s, A, &zero, 1, lir_ref(s, y));
    f = lir_func(s, "f", p, 1, lir_block(s, items, 2));
    CHECK(lir_verify(f, &err) == 1);
    CHECK(err.s && strstr(err.s, "'x' is a different variable than the "
                                 "'x' in scope in 'x'"));
    err.len = 0;
    f = lir_func(s, "f", p, 1, lir_store(s, A, &zero, 1, lir_ref(s, x)));
    CHECK(lir_verify(f, &err) == 1);
    CHECK(err.s && strstr(err.s, "'x' is used outside its scope in 'x'"));
    err.len = 0;
    f = lir_func(s, "f", p, 1, lir_let(s, bad, zero));
    CHECK(lir_verify(f, &err) == 1);
    CHECK(err.s && strstr(err.s, "name 'a b' cannot be written as text"));
    err.len = 0;
    f = lir_func(s, "f", p, 2, lir_store(s, A, &zero, 1,
                                          lir_binary(s, LO_NEG, zero, zero)));
    CHECK(lir_verify(f, &err) == 1);
    CHECK(err.s && strstr(err.s, "binary node with operator '-'"));
    err.len = 0;
    {
        LStmt *one = arena_alloc(&s->arena, sizeof *one);
        one->kind = LS_BLOCK;
        one->nitems = 1;
        one->items = items + 1;
        items[1] = lir_store(s, A, &zero, 1, zero);
        f = lir_func(s, "f", p, 1, one);
        CHECK(lir_verify(f, &err) == 1);
        CHECK(err.s && strstr(err.s, "a block of one statement"));
    }
    buf_free(&err);
    tl_session_free(s);
}

/* ====================================================================
 * Text form details
 * ==================================================================== */

/* text parses and prints as want (text itself when want is NULL). */
static void prints(int line, const char *text, const char *want)
{
    TlSession *s = tl_session_new();
    TlBuf err, out;
    LFunc *f;

    buf_init(&err);
    buf_init(&out);
    f = lir_parse(s, "t", text, strlen(text), &err);
    if (f)
        lir_print_func(&out, f);
    if (!f || strcmp(out.s, want ? want : text)) {
        printf("%s:%d: '%s' printed as '%s' %s\n", __FILE__, line, text,
               out.s ? out.s : "", err.s ? err.s : "");
        check_failed();
    }
    buf_free(&err);
    buf_free(&out);
    tl_session_free(s);
}

#define PRINTS(t, w) prints(__LINE__, (t), (w))

static void test_text(void)
{
    PRINTS("func f(A: i64*, x: i64, y: f64) {\n"
           "  A[0] = x - -3_i64 - (x - 1_i64) * -(4_i64) / (x % 2_i64)\n"
           "  A[1] = i64((y * 0.1_f64 < 1e+300_f64) == (x < 2_i64))\n"
           "  A[2] = i64(!(x == 1_i64) && !(!(y != y)) || -inf_f64 > -y)\n"
           "  A[3] = -9223372036854775808_i64\n"
           "}\n", NULL);
    PRINTS("func $min(C.s0.x: f16x8, $for: bool) {\n}\n", NULL);
    PRINTS("func f(A: f32*) { A[0] = 0.1 + 1e-45 + 3.4028235e+38 }",
           "func f(A: f32*) {\n"
           "  A[0] = 0.1 + 1e-45 + 3.4028235e+38\n"
           "}\n");
    PRINTS("func f(A: bf16*, B: f16*) { A[0] = 0.1_bf16  B[0] = -0.0_f16 }",
           "func f(A: bf16*, B: f16*) {\n"
           "  A[0] = 0.1_bf16\n"
           "  B[0] = -0.0_f16\n"
           "}\n");
    PRINTS("func f(A: i32*) {\n"
           "  if true {\n"
           "    A[0] = 1\n"
           "  } else if false {\n"
           "    {\n"
           "      let x = 1\n"
           "      A[x] = 2\n"
           "    }\n"
           "    A[1] = 3\n"
           "  } else {\n"
           "  }\n"
           "}\n", NULL);
    PRINTS("func f(A: i32*) { if true { A[0] = 1 } else { if false { } } }",
           "func f(A: i32*) {\n"
           "  if true {\n"
           "    A[0] = 1\n"
           "  } else if false {\n"
           "  }\n"
           "}\n");
    PRINTS("func f() {\n"
           "  unrolled for i in 0 .. 4 {\n"
           "    distributed(PE.lane) for j in i .. 8 {\n"
           "      alloc t: u8[2, 3] on register\n"
           "      t[1, 2] = u8(j)\n"
           "    }\n"
           "  }\n"
           "}\n", NULL);
}

/* ====================================================================
 * The rewriter and substitution
 * ==================================================================== */

static void test_mutate(void)
{
    TlSession *s = tl_session_new();
    static const char text[] =
        "func f(A: i32*, n: i32) {\n"
        "  for i in 0 .. n {\n"
        "    let t = i * 2\n"
        "    A[t] = t + i\n"
        "  }\n"
        "}\n";
    LFunc *f = lir_parse(s, "t", text, sizeof text - 1, NULL);
    LStmt *loop, *body, *sub;
    TlBuf out;

    CHECK(f != NULL);
    if (!f) {
        tl_session_free(s);
        return;
    }
    loop = f->body;
    CHECK(loop->kind == LS_FOR);
    body = loop->body;
    CHECK(lir_count_uses(body, loop->var) == 2);
    CHECK(lir_count_uses(body, body->items[0]->var) == 2);
    CHECK(lir_count_uses(f->body, f->params[0].var) == 1);
    CHECK(lir_count_uses_expr(body->items[1]->a, loop->var) == 1);
    /* substituting a variable that does not occur changes nothing */
    CHECK(lir_substitute(s, body, f->params[1].var, lir_int(s, DT_I32, 0))
          == body);
    sub = lir_substitute(s, loop, loop->var, lir_int(s, DT_I32, 5));
    CHECK(sub != loop);
    CHECK(sub->body->items[1]->a->b->kind == LE_INT);
    /* untouched subtrees are shared */
    CHECK(lir_substitute(s, body->items[1], loop->var,
                         lir_ref(s, loop->var))->args[0] ==
          body->items[1]->args[0]);
    buf_init(&out);
    lir_print_stmt(&out, sub, 0);
    CHECK(!strcmp(out.s, "for i in 0 .. n {\n"
                         "  let t = 5 * 2\n"
                         "  A[t] = t + 5\n"
                         "}\n"));
    buf_free(&out);
    tl_session_free(s);
}

/* ====================================================================
 * Simplifier details that golden files cannot show
 * ==================================================================== */

static void test_simplify(void)
{
    TlSession *s = tl_session_new();
    LVar *x = lir_var(s, "x", lir_type(DT_I32, 1));
    LExpr *e = lir_binary(s, LO_ADD, lir_ref(s, x), lir_int(s, DT_I32, 0));
    LExpr *same = lir_binary(s, LO_ADD, lir_ref(s, x),
                             lir_int(s, DT_I32, 1));
    LExpr *k;

    CHECK(lir_simplify_expr(s, e) == e->a);
    CHECK(lir_simplify_expr(s, same) == same);
    /* INT_MIN / -1 wraps; % by -1 is 0 */
    k = lir_simplify_expr(s, lir_binary(s, LO_DIV,
                                        lir_int(s, DT_I32, INT32_MIN),
                                        lir_int(s, DT_I32, -1)));
    CHECK(k->kind == LE_INT && k->ival == INT32_MIN);
    k = lir_simplify_expr(s, lir_binary(s, LO_MOD,
                                        lir_int(s, DT_I8, -128),
                                        lir_int(s, DT_I8, -1)));
    CHECK(k->kind == LE_INT && k->ival == 0);
    /* a constant of the wrong dtype is not folded into nonsense */
    k = lir_simplify_expr(s, lir_cast(s, DT_U8,
                                      lir_float(s, DT_F32, 300.0f)));
    CHECK(k->kind == LE_INT && k->ival == 255);
    k = lir_simplify_expr(s, lir_cast(s, DT_I32, lir_float(s, DT_F32, NAN)));
    CHECK(k->kind == LE_INT && k->ival == 0);
    /* constants of any type, by the language's casts */
    k = lir_const(s, lir_type(DT_F16, 4), 3);
    CHECK(k->kind == LE_BROADCAST && k->a->kind == LE_FLOAT &&
          k->a->fval == 3.0 && k->type.lanes == 4);
    k = lir_const(s, lir_type(DT_U8, 1), -1);
    CHECK(k->kind == LE_INT && k->ival == 255);
    tl_session_free(s);
}

/* ====================================================================
 * Loop fusion's memory
 * ==================================================================== */

/* pass_fuse.c tries every loop of a block as a producer; its scratch
 * access lists (330 KB each) must not come from the session's arena at
 * every try: that held 95 MB for the ONNX encoder's lowering.  40 loops
 * that do not fuse (each reads what the one before wrote, from other
 * ranges) are 40 tries; what the pass leaves in the arena is bounded
 * by a few of its nodes per try. */
static void test_fuse_memory(void)
{
    TlSession *s = tl_session_new();
    TlBuf text;
    LFunc *f;
    size_t before;

    buf_init(&text);
    buf_printf(&text, "func f(X: f32*, Y: f32*) {\n");
    for (int k = 0; k < 40; k++)
        buf_printf(&text, "  for i in 0 .. %d {\n"
                          "    Y[i] = X[i + %d]\n"
                          "  }\n", 8 + k, k);
    buf_printf(&text, "}\n");
    f = lir_parse(s, "t", text.s, text.len, NULL);
    CHECK(f != NULL);
    if (f) {
        before = s->arena.used_total;
        CHECK(lir_fuse_loops(s, f) == f);
        CHECK(s->arena.used_total - before < 256 * 1024);
    }
    buf_free(&text);
    tl_session_free(s);
}

int main(void)
{
    const char *seed_env = getenv("TDSL_LIR_SEED");
    uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 20261122;

    printf("seed %llu (TDSL_LIR_SEED)\n", (unsigned long long)seed);
    test_parse_errors();
    test_text();
    test_verify();
    test_mutate();
    test_simplify();
    test_fuse_memory();
    test_damage();
    test_random_exprs(seed);
    test_random(seed);
    return check_done();
}
