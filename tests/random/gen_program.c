/*
 * gen_program.c - random valid kernels as tdsl text (gen.h).
 *
 * A program is made forwards: inputs over a few size variables, then
 * intermediate stages and outputs, each reading tensors made before
 * it.  Expressions are trees (Node) so that a second, backward pass
 * can compute every intermediate's domain as the checker will (the
 * bounding box of its readers' index ranges, SPEC 9.3) and rewrite
 * the reads that would leave an input, or a stage computed over its
 * natural domain, into clamped indices.  Domains are kept as offsets
 * from the size variable of the axis, [lo, N + hi), which is exact
 * for the index forms made here: a variable of the reader or a
 * reduction variable, plus a stencil tap variable, plus a constant.
 *
 * What the checker needs and this file guarantees:
 *  - a reduction variable's range is written unless every read it
 *    indexes alone is a read of an input at the variable itself;
 *  - a stage read through zero_pad or clamp_edge has a known natural
 *    domain: each of its axes is indexed alone by a read of an input
 *    or of another such stage, and no read gives a different one;
 *  - a literal always stands next to a typed operand and fits it.
 */
#include "gen.h"

#include <stdio.h>
#include <string.h>

/* ====================================================================
 * Random numbers
 * ==================================================================== */

uint64_t rg_next(RgRng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int rg_below(RgRng *r, int n)
{
    return (int)(rg_next(r) % (uint64_t)n);
}

int rg_chance(RgRng *r, int pct)
{
    return rg_below(r, 100) < pct;
}

/* ====================================================================
 * The model
 * ==================================================================== */

enum { MAXT = 12, MAXD = 4, MAXRV = 16, MAXN = 400, MAXS = 2 };

/* TK_CALL: bound to a call of a generated kernel, `c0 = h0(arg)`. */
typedef enum { TK_INPUT, TK_STAGE, TK_OUTPUT, TK_CALL } TKind;

/* How a read reaches its tensor. */
typedef enum {
    RM_PLAIN,       /* T[i + 1] */
    RM_ZERO,        /* T.zero_pad[i + 1] */
    RM_EDGE,        /* T.clamp_edge[i + 1] */
    RM_GUARD,       /* select(0 <= i + 1 && i + 1 < N, T[i + 1], v) */
    RM_CLAMP        /* T[clamp(i + 1, 0, N - 1)] on the axes that need it */
} RMode;

/* One index: base (the reader's axis `which`, reduction variable
 * `which`, or the constant 0) + tap variable (-1: none) + c. */
typedef enum { IB_AXIS, IB_RVAR, IB_ZERO } IBase;
typedef struct Idx {
    IBase base;
    int which, tap, c;
    int clamp;      /* RM_CLAMP: this axis is clamped */
} Idx;

typedef enum {
    NK_LIT, NK_AXIS, NK_RV, NK_SIZE, NK_SCALAR, NK_READ, NK_UN, NK_BIN,
    NK_CALL, NK_SEL, NK_CAST, NK_RED
} NKind;

typedef struct Node Node;
struct Node {
    NKind k;
    TlDType dt;
    const char *op;         /* NK_UN, NK_BIN, NK_CALL, NK_RED */
    Node *a, *b, *c;
    int64_t ival;           /* NK_LIT (ints, bool), NK_AXIS, NK_RV,
                             * NK_SIZE, NK_SCALAR: which */
    double fval;            /* NK_LIT floats */
    int ten;                /* NK_READ */
    RMode mode;
    Idx idx[TL_MAX_RANK];
    int rv[3], nrv;         /* NK_RED */
};

typedef struct Ten {
    char name[16];
    TKind kind;
    TlDType dt;
    int rank;
    int dim[TL_MAX_RANK];
    int shrink[TL_MAX_RANK];    /* outputs: extent N - shrink */
    int lo[TL_MAX_RANK], hi[TL_MAX_RANK], has_dom;
    int fixed;      /* read through a helper: its natural domain */
    int natok;      /* its natural domain is [0, N) on every axis */
    int used;
    Node *value;
    int callee, arg;    /* TK_CALL: which kernel, on which tensor */
} Ten;

/* A reduction variable: over 0 .. N(dim) (sym) or 0 .. K (a tap). */
typedef struct RVar {
    int sym, dim, k;
    int explicit_;  /* range written */
} RVar;

typedef struct Gen {
    RgRng *r;
    Ten t[MAXT];
    int nt;
    RVar rv[MAXRV];
    int nrv;
    int ndims;
    int size[MAXD], minsize[MAXD];
    int lit_sizes;          /* shapes written as numbers */
    int nscalars;
    TlDType sdt[MAXS];
    Node nodes[MAXN];
    int nnodes;
    /* while making stage `cur`: its reduction variables in scope */
    int cur;
    int scope[MAXRV], nscope;
    int natural;            /* the stage is made helper-readable */
    struct Gen *callee[2];  /* kernels called, h0 and h1 */
    int ncallees;
} Gen;

/* A tensor whose domain is its shape: an input or a call result. */
static int shaped(const Ten *t)
{
    return t->kind == TK_INPUT || t->kind == TK_CALL;
}

static const TlDType dtypes[] = {
    DT_F32, DT_F32, DT_F32, DT_F64, DT_I32, DT_I32, DT_I64, DT_I16,
    DT_I8, DT_U8, DT_BOOL, DT_F16, DT_BF16, DT_U16, DT_U32, DT_U64
};

static Node *node(Gen *g, NKind k, TlDType dt)
{
    Node *n;

    if (g->nnodes >= MAXN)
        return NULL;
    n = &g->nodes[g->nnodes++];
    memset(n, 0, sizeof *n);
    n->k = k;
    n->dt = dt;
    return n;
}

static TlDType pick_dtype(Gen *g)
{
    return dtypes[rg_below(g->r, (int)(sizeof dtypes / sizeof dtypes[0]))];
}

/* ====================================================================
 * Reads
 * ==================================================================== */

/* Fills idx for reading tensor ti from the stage being made; 0 when it
 * cannot be read from here (an axis of a size nothing ranges over). */
static int make_index(Gen *g, int ti, Idx *idx, int want_offsets)
{
    Ten *t = &g->t[ti], *cur = &g->t[g->cur];

    for (int j = 0; j < t->rank; j++) {
        int opts[8], kinds[8], n = 0;
        for (int a = 0; a < cur->rank; a++)
            if (cur->dim[a] == t->dim[j]) {
                kinds[n] = IB_AXIS;
                opts[n++] = a;
            }
        for (int q = 0; q < g->nscope && n < 7; q++) {
            RVar *v = &g->rv[g->scope[q]];
            if (v->sym && v->dim == t->dim[j]) {
                /* reduction variables are read more often */
                kinds[n] = IB_RVAR;
                opts[n++] = g->scope[q];
                if (n < 7) {
                    kinds[n] = IB_RVAR;
                    opts[n++] = g->scope[q];
                }
            }
        }
        if (shaped(t) && (n == 0 || rg_chance(g->r, 5))) {
            kinds[n] = IB_ZERO;
            opts[n++] = 0;
        }
        if (!n)
            return 0;
        n = rg_below(g->r, n);
        idx[j].base = (IBase)kinds[n];
        idx[j].which = opts[n];
        idx[j].tap = -1;
        idx[j].c = 0;
        idx[j].clamp = 0;
        if (idx[j].base == IB_ZERO || !want_offsets)
            continue;
        if (rg_chance(g->r, 30))
            idx[j].c = rg_below(g->r, 5) - 2;
        for (int q = 0; q < g->nscope; q++)
            if (!g->rv[g->scope[q]].sym && rg_chance(g->r, 60)) {
                idx[j].tap = g->scope[q];
                idx[j].c = -rg_below(g->r, g->rv[idx[j].tap].k);
                break;
            }
    }
    return 1;
}

/* A read of some tensor made before the current stage, of its own
 * dtype; NULL when none can be read. */
static Node *gen_read(Gen *g)
{
    int cand[MAXT], n = 0;
    Idx idx[TL_MAX_RANK];
    Node *x;
    int ti, offs = 0;

    for (int i = 0; i < g->cur; i++) {
        Ten *t = &g->t[i];
        if (t->kind == TK_OUTPUT)
            continue;
        /* a helper-readable stage reads only inputs and other such
         * stages, so that its natural domain is known */
        if (g->natural && t->kind == TK_STAGE && !t->natok)
            continue;
        cand[n++] = i;
        if (i >= g->cur - 2)
            cand[n++] = i;  /* recent stages more often */
    }
    for (int tries = 0; tries < 6 && n; tries++) {
        ti = cand[rg_below(g->r, n)];
        if (make_index(g, ti, idx, 1))
            break;
        ti = -1;
    }
    if (!n || ti < 0 || !(x = node(g, NK_READ, g->t[ti].dt)))
        return NULL;
    x->ten = ti;
    memcpy(x->idx, idx, sizeof idx);
    for (int j = 0; j < g->t[ti].rank; j++)
        offs |= idx[j].c != 0 || idx[j].tap >= 0;
    x->mode = RM_PLAIN;
    {
        Ten *t = &g->t[ti];
        int helper_ok = shaped(t) || t->natok;
        int w = rg_below(g->r, 100);
        if (offs && g->natural)
            /* offsets would disagree on the natural domain */
            x->mode = helper_ok ? (w < 50 ? RM_ZERO : RM_EDGE) : RM_CLAMP;
        else if (helper_ok && w < (offs ? 40 : 8))
            x->mode = w % 2 ? RM_ZERO : RM_EDGE;
        else if (offs && w < 60)
            x->mode = RM_GUARD;
        if (x->mode == RM_CLAMP && !shaped(t) && !t->natok) {
            /* never: clamped reads of stages computed over their
             * readers' region would make the region conservative */
            return NULL;
        }
    }
    return x;
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static Node *gen(Gen *g, TlDType dt, int depth);

static Node *lit(Gen *g, TlDType dt)
{
    Node *x = node(g, NK_LIT, dt);

    if (!x)
        return NULL;
    if (dt == DT_BOOL)
        x->ival = rg_below(g->r, 2);
    else if (dt_is_float(dt))
        x->fval = (rg_below(g->r, 33) - 16) / 4.0;
    else if (dt_is_unsigned(dt))
        x->ival = rg_below(g->r, 10);
    else
        x->ival = rg_below(g->r, 19) - 9;
    return x;
}

static Node *cast(Gen *g, TlDType dt, Node *a)
{
    Node *x;

    if (!a || a->dt == dt)
        return a;
    if (!(x = node(g, NK_CAST, dt)))
        return NULL;
    x->a = a;
    return x;
}

static Node *bin(Gen *g, const char *op, TlDType dt, Node *a, Node *b)
{
    Node *x;

    if (!a || !b || !(x = node(g, NK_BIN, dt)))
        return NULL;
    x->op = op;
    x->a = a;
    x->b = b;
    return x;
}

static Node *leaf(Gen *g, TlDType dt)
{
    int w = rg_below(g->r, 100);
    Node *x;

    if (w < 70 && (x = gen_read(g)))
        return cast(g, dt, x);
    if (w < 80 && dt != DT_BOOL) {
        Ten *cur = &g->t[g->cur];
        if (g->nscope && rg_chance(g->r, 40)) {
            x = node(g, NK_RV, DT_I32);
            if (x)
                x->ival = g->scope[rg_below(g->r, g->nscope)];
        } else if (rg_chance(g->r, 20)) {
            x = node(g, NK_SIZE, DT_I32);
            if (x)
                x->ival = rg_below(g->r, g->ndims);
        } else {
            x = node(g, NK_AXIS, DT_I32);
            if (x)
                x->ival = rg_below(g->r, cur->rank);
        }
        return cast(g, dt, x);
    }
    if (w < 88 && g->nscalars) {
        int i = rg_below(g->r, g->nscalars);
        x = node(g, NK_SCALAR, g->sdt[i]);
        if (x)
            x->ival = i;
        return cast(g, dt, x);
    }
    return lit(g, dt);
}

/* A comparison or a logic operation: a bool. */
static Node *gen_bool(Gen *g, int depth)
{
    static const char *cmp[] = {"==", "!=", "<", "<=", ">", ">="};
    int w = rg_below(g->r, 100);
    TlDType dt;
    Node *x;

    if (depth <= 0 || w < 15)
        return leaf(g, DT_BOOL);
    if (w < 30) {
        const char *op = rg_chance(g->r, 50) ? "&&" : "||";
        return bin(g, op, DT_BOOL, gen(g, DT_BOOL, depth - 1),
                   gen(g, DT_BOOL, depth - 1));
    }
    if (w < 35) {
        if (!(x = node(g, NK_UN, DT_BOOL)))
            return NULL;
        x->op = "!";
        x->a = gen(g, DT_BOOL, depth - 1);
        return x->a ? x : NULL;
    }
    do
        dt = pick_dtype(g);
    while (dt == DT_BOOL);
    x = bin(g, cmp[rg_below(g->r, 6)], DT_BOOL, gen(g, dt, depth - 1),
            gen(g, dt, depth - 1));
    /* a literal on both sides would make a weak comparison */
    if (x && x->a->k == NK_LIT && x->b->k == NK_LIT)
        x->a = cast(g, dt, leaf(g, dt));
    return x;
}

static Node *gen_reduce(Gen *g, TlDType dt, int depth)
{
    static const char *ops[] = {"sum", "sum", "prod", "max", "min"};
    Node *x = node(g, NK_RED, dt);
    int saved = g->nscope, n;

    if (!x || g->nrv + 2 > MAXRV)
        return NULL;
    x->op = dt == DT_BOOL ? (rg_chance(g->r, 50) ? "max" : "min")
                          : ops[rg_below(g->r, 5)];
    n = 1 + rg_chance(g->r, 35);
    /* argmax/argmin: an i64 index, one variable, a body of any dtype;
     * the ranges are never empty (sizes are at least 1) */
    if (dt == DT_I64 && rg_chance(g->r, 40)) {
        x->op = rg_chance(g->r, 50) ? "argmax" : "argmin";
        n = 1;
        dt = pick_dtype(g);
    }
    for (int i = 0; i < n; i++) {
        RVar *v = &g->rv[g->nrv];
        memset(v, 0, sizeof *v);
        v->sym = rg_chance(g->r, 65);
        v->dim = rg_below(g->r, g->ndims);
        v->k = 2 + rg_below(g->r, 2);
        v->explicit_ = 1;
        x->rv[x->nrv++] = g->nrv;
        g->scope[g->nscope++] = g->nrv++;
    }
    x->a = gen(g, dt, depth - 1);
    /* a literal alone would take its dtype from around the reduction
     * (`u8(min(r0) (-7))`: -7 a u8, seed 13074) */
    if (x->a && x->a->k == NK_LIT)
        x->a = leaf(g, dt);
    g->nscope = saved;
    return x->a ? x : NULL;
}

static Node *gen(Gen *g, TlDType dt, int depth)
{
    static const char *fmath[] = {
        "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin",
        "cos", "floor", "ceil", "round", "abs"
    };
    static const char *arith[] = {"+", "-", "*", "/", "%", "min", "max"};
    int w = rg_below(g->r, 100);
    Node *x;

    if (dt == DT_BOOL)
        return gen_bool(g, depth);
    if (depth <= 0 || w < 25)
        return leaf(g, dt);
    if (w < 55) {
        /* +, - and * most often; / and % (by zero: 0 for integers) */
        int o = rg_below(g->r, 10);
        const char *op = o < 7 ? arith[o % 3] : arith[o - 4];
        x = bin(g, op, dt, gen(g, dt, depth - 1), gen(g, dt, depth - 1));
        if (x && x->a->k == NK_LIT && x->b->k == NK_LIT)
            x->a = leaf(g, dt);
        if (x && (!strcmp(op, "min") || !strcmp(op, "max"))) {
            x->k = NK_CALL;
        }
        return x;
    }
    if (w < 63) {
        x = node(g, NK_SEL, dt);
        if (!x)
            return NULL;
        x->a = gen_bool(g, depth - 1);
        x->b = gen(g, dt, depth - 1);
        x->c = gen(g, dt, depth - 1);
        return x->a && x->b && x->c ? x : NULL;
    }
    if (w < 70) {
        TlDType from = pick_dtype(g);
        return cast(g, dt, gen(g, from, depth - 1));
    }
    if (w < 80) {
        if (!(x = node(g, NK_CALL, dt)))
            return NULL;
        if (dt_is_float(dt)) {
            int f = rg_below(g->r, 15);
            if (f == 13) {
                x->op = "pow";
                x->a = gen(g, dt, depth - 1);
                x->b = lit(g, dt);
                return x->a && x->b ? x : NULL;
            }
            if (f == 14) {
                x->op = "clamp";
                x->a = gen(g, dt, depth - 1);
                x->b = lit(g, dt);
                x->c = lit(g, dt);
                if (x->b && x->c && x->b->fval > x->c->fval) {
                    Node *t = x->b;
                    x->b = x->c;
                    x->c = t;
                }
                return x->a && x->b && x->c ? x : NULL;
            }
            x->op = fmath[f];
            /* Half of f32's abs draws instead (SPEC 7.5), chosen from
             * the node count so that other programs stay as they
             * were: a seed and a counter of integer dtypes. */
            if (dt == DT_F32 && f == 12 && (g->nnodes & 1)) {
                x->op = g->nnodes & 2 ? "uniform" : "normal";
                x->a = gen(g, DT_I32, depth - 1);
                x->b = gen(g, DT_I64, depth - 1);
                return x->a && x->b ? x : NULL;
            }
        } else {
            if (dt_is_unsigned(dt) || rg_chance(g->r, 50)) {
                x->op = "clamp";
                x->a = gen(g, dt, depth - 1);
                x->b = lit(g, dt);
                x->c = lit(g, dt);
                if (x->b && x->c && x->b->ival > x->c->ival) {
                    Node *t = x->b;
                    x->b = x->c;
                    x->c = t;
                }
                return x->a && x->b && x->c ? x : NULL;
            }
            x->op = "abs";
        }
        x->a = gen(g, dt, depth - 1);
        return x->a ? x : NULL;
    }
    if (w < 85 && !dt_is_unsigned(dt)) {
        if (!(x = node(g, NK_UN, dt)))
            return NULL;
        x->op = "-";
        x->a = gen(g, dt, depth - 1);
        if (x->a && x->a->k == NK_LIT)
            x->a = leaf(g, dt);
        return x->a ? x : NULL;
    }
    if (g->nscope < 4)
        return gen_reduce(g, dt, depth);
    return leaf(g, dt);
}

static int has_read(const Node *x)
{
    return x && (x->k == NK_READ || has_read(x->a) || has_read(x->b) ||
                 has_read(x->c));
}

/* ====================================================================
 * Checks of the model: natural domains and reduction ranges
 * ==================================================================== */

/* Does x read some tensor with axis `a` of the current stage alone on
 * an axis whose natural domain is [0, N)? */
static int indexes_axis(const Gen *g, const Node *x, int a)
{
    if (!x)
        return 0;
    if (x->k == NK_READ) {
        const Ten *t = &g->t[x->ten];
        for (int j = 0; j < t->rank; j++)
            if (x->idx[j].base == IB_AXIS && x->idx[j].which == a &&
                x->idx[j].tap < 0 && x->idx[j].c == 0 &&
                x->mode != RM_CLAMP && shaped(t))
                return 1;
    }
    return indexes_axis(g, x->a, a) || indexes_axis(g, x->b, a) ||
           indexes_axis(g, x->c, a);
}

/* Reduction variable v is read alone only in reads of inputs (then
 * its range can be left to the checker): 1; used elsewhere: 0. */
static void rv_uses(const Gen *g, const Node *x, int v, int *good, int *bad)
{
    if (!x)
        return;
    if (x->k == NK_READ) {
        const Ten *t = &g->t[x->ten];
        for (int j = 0; j < t->rank; j++) {
            const Idx *d = &x->idx[j];
            if (d->base == IB_RVAR && d->which == v) {
                if (shaped(t) && d->c == 0 && d->tap < 0 &&
                    !d->clamp)
                    (*good)++;
                else
                    (*bad)++;
            }
            if (d->tap == v)
                (*bad)++;
        }
    }
    rv_uses(g, x->a, v, good, bad);
    rv_uses(g, x->b, v, good, bad);
    rv_uses(g, x->c, v, good, bad);
}

static void infer_ranges(Gen *g, const Node *root, const Node *x)
{
    if (!x)
        return;
    if (x->k == NK_RED)
        for (int i = 0; i < x->nrv; i++) {
            RVar *v = &g->rv[x->rv[i]];
            int good = 0, bad = 0;
            if (!v->sym)
                continue;
            rv_uses(g, root, x->rv[i], &good, &bad);
            if (good && !bad && rg_chance(g->r, 60))
                v->explicit_ = 0;
        }
    infer_ranges(g, root, x->a);
    infer_ranges(g, root, x->b);
    infer_ranges(g, root, x->c);
}

/* ====================================================================
 * Bounds: the backward pass
 * ==================================================================== */

/* The range of index d of a read made by stage `in`, as [lo, N + hi)
 * (ok = 0 for the constant 0). */
static int idx_range(const Gen *g, const Ten *in, const Idx *d, int *lo,
                     int *hi)
{
    if (d->base == IB_ZERO)
        return 0;
    if (d->base == IB_AXIS) {
        *lo = in->lo[d->which];
        *hi = in->hi[d->which];
    } else {
        *lo = 0;
        *hi = 0;
    }
    *lo += d->c;
    *hi += d->c;
    if (d->tap >= 0)
        *hi += g->rv[d->tap].k - 1;
    return 1;
}

static void bounds_reads(Gen *g, Ten *in, Node *x)
{
    if (!x)
        return;
    if (x->k == NK_READ) {
        Ten *t = &g->t[x->ten];
        t->used = 1;
        for (int j = 0; j < t->rank; j++) {
            int lo, hi;
            if (!idx_range(g, in, &x->idx[j], &lo, &hi))
                continue;
            if (shaped(t) || t->fixed) {
                if ((x->mode == RM_PLAIN || x->mode == RM_CLAMP) &&
                    (lo < 0 || hi > 0)) {
                    x->mode = RM_CLAMP;
                    x->idx[j].clamp = 1;
                }
            } else if (!t->has_dom) {
                t->lo[j] = lo;
                t->hi[j] = hi;
                t->has_dom = 1;
            } else {
                t->lo[j] = lo < t->lo[j] ? lo : t->lo[j];
                t->hi[j] = hi > t->hi[j] ? hi : t->hi[j];
            }
        }
        if (!t->has_dom && (shaped(t) || t->fixed))
            t->has_dom = 1;
    }
    bounds_reads(g, in, x->a);
    bounds_reads(g, in, x->b);
    bounds_reads(g, in, x->c);
}

/* Marks what x reads as used, and stages read through a helper as
 * fixed (computed over their natural domain). */
static void mark_reads(Gen *g, const Node *x)
{
    if (!x)
        return;
    if (x->k == NK_READ) {
        Ten *t = &g->t[x->ten];
        t->used = 1;
        if ((x->mode == RM_ZERO || x->mode == RM_EDGE) &&
            t->kind == TK_STAGE)
            t->fixed = 1;
    }
    mark_reads(g, x->a);
    mark_reads(g, x->b);
    mark_reads(g, x->c);
}

static void bounds(Gen *g)
{
    /* first what is used (readers come after what they read), and
     * what is fixed by a reader that is used */
    for (int i = g->nt - 1; i >= 0; i--) {
        Ten *t = &g->t[i];
        t->used = t->kind == TK_OUTPUT;
        t->fixed = 0;
    }
    for (int i = g->nt - 1; i >= 0; i--) {
        Ten *t = &g->t[i];
        if (t->used && t->kind == TK_CALL) {
            /* a stage passed whole is computed over its natural domain */
            Ten *a = &g->t[t->arg];
            a->used = 1;
            a->fixed = a->kind == TK_STAGE;
        } else if (t->used) {
            mark_reads(g, t->value);
        }
    }
    for (int i = g->nt - 1; i >= 0; i--) {
        Ten *t = &g->t[i];
        if (shaped(t))
            continue;
        if (t->kind == TK_OUTPUT) {
            t->used = 1;
            for (int j = 0; j < t->rank; j++) {
                t->lo[j] = 0;
                t->hi[j] = -t->shrink[j];
            }
        } else if (t->fixed) {
            for (int j = 0; j < t->rank; j++)
                t->lo[j] = t->hi[j] = 0;
        }
        if (!t->used)
            continue;
        bounds_reads(g, t, t->value);
    }
}

/* ====================================================================
 * Printing
 * ==================================================================== */

static void put_size(const Gen *g, TlBuf *b, int d, int plus)
{
    if (g->lit_sizes)
        buf_printf(b, "%d", g->size[d] + plus);
    else if (plus > 0)
        buf_printf(b, "N%d + %d", d, plus);
    else if (plus < 0)
        buf_printf(b, "N%d - %d", d, -plus);
    else
        buf_printf(b, "N%d", d);
}

static void put_lit(TlBuf *b, const Node *x)
{
    if (x->dt == DT_BOOL)
        buf_puts(b, x->ival ? "true" : "false");
    else if (dt_is_float(x->dt))
        buf_printf(b, x->fval < 0 ? "(%.2f)" : "%.2f", x->fval);
    else
        buf_printf(b, x->ival < 0 ? "(%lld)" : "%lld", (long long)x->ival);
}

static void put_index(const Gen *g, TlBuf *b, const Idx *d)
{
    if (d->base == IB_ZERO) {
        buf_puts(b, "0");
        return;
    }
    if (d->base == IB_AXIS)
        buf_printf(b, "i%d", d->which);
    else
        buf_printf(b, "r%d", d->which);
    if (d->tap >= 0)
        buf_printf(b, " + r%d", d->tap);
    if (d->c > 0)
        buf_printf(b, " + %d", d->c);
    else if (d->c < 0)
        buf_printf(b, " - %d", -d->c);
    (void)g;
}

static void put(const Gen *g, TlBuf *b, const Node *x);

static void put_read(const Gen *g, TlBuf *b, const Node *x)
{
    const Ten *t = &g->t[x->ten];

    if (x->mode == RM_GUARD) {
        int any = 0;
        buf_puts(b, "select(");
        for (int j = 0; j < t->rank; j++) {
            const Idx *d = &x->idx[j];
            /* every axis: the reader's own domain may be wider */
            if (d->base == IB_ZERO)
                continue;
            buf_puts(b, any ? " && 0 <= " : "0 <= ");
            put_index(g, b, d);
            buf_puts(b, " && ");
            put_index(g, b, d);
            buf_puts(b, " < ");
            put_size(g, b, t->dim[j], 0);
            any = 1;
        }
        if (!any)
            buf_puts(b, "true");
        buf_puts(b, ", ");
    }
    buf_puts(b, t->name);
    if (x->mode == RM_ZERO)
        buf_puts(b, ".zero_pad");
    else if (x->mode == RM_EDGE)
        buf_puts(b, ".clamp_edge");
    buf_putc(b, '[');
    for (int j = 0; j < t->rank; j++) {
        const Idx *d = &x->idx[j];
        if (j)
            buf_puts(b, ", ");
        if (d->clamp) {
            buf_puts(b, "clamp(");
            put_index(g, b, d);
            buf_puts(b, ", 0, ");
            put_size(g, b, t->dim[j], -1);
            buf_putc(b, ')');
        } else {
            put_index(g, b, d);
        }
    }
    buf_putc(b, ']');
    if (x->mode == RM_GUARD) {
        /* the other side: a literal of the tensor's dtype */
        if (t->dt == DT_BOOL)
            buf_puts(b, ", false)");
        else if (dt_is_float(t->dt))
            buf_puts(b, ", 0.5)");
        else
            buf_puts(b, ", 1)");
    }
}

static void put(const Gen *g, TlBuf *b, const Node *x)
{
    switch (x->k) {
    case NK_LIT: put_lit(b, x); break;
    case NK_AXIS: buf_printf(b, "i%d", (int)x->ival); break;
    case NK_RV: buf_printf(b, "r%d", (int)x->ival); break;
    case NK_SIZE: put_size(g, b, (int)x->ival, 0); break;
    case NK_SCALAR: buf_printf(b, "p%d", (int)x->ival); break;
    case NK_READ: put_read(g, b, x); break;
    case NK_UN:
        buf_printf(b, "%s(", x->op);
        put(g, b, x->a);
        buf_putc(b, ')');
        break;
    case NK_BIN:
        buf_putc(b, '(');
        put(g, b, x->a);
        buf_printf(b, " %s ", x->op);
        put(g, b, x->b);
        buf_putc(b, ')');
        break;
    case NK_CALL:
        buf_printf(b, "%s(", x->op);
        put(g, b, x->a);
        if (x->b) {
            buf_puts(b, ", ");
            put(g, b, x->b);
        }
        if (x->c) {
            buf_puts(b, ", ");
            put(g, b, x->c);
        }
        buf_putc(b, ')');
        break;
    case NK_SEL:
        buf_puts(b, "select(");
        put(g, b, x->a);
        buf_puts(b, ", ");
        put(g, b, x->b);
        buf_puts(b, ", ");
        put(g, b, x->c);
        buf_putc(b, ')');
        break;
    case NK_CAST:
        buf_printf(b, "%s(", dt_name(x->dt));
        /* `u8(-2)` would make -2 a u8 literal, which it cannot be: the
         * literal is a value of its own dtype, converted */
        if (x->a->k == NK_LIT && dt_is_unsigned(x->dt) && x->a->ival < 0 &&
            !dt_is_float(x->a->dt)) {
            buf_printf(b, "%s(", dt_name(x->a->dt));
            put(g, b, x->a);
            buf_putc(b, ')');
        } else {
            put(g, b, x->a);
        }
        buf_putc(b, ')');
        break;
    case NK_RED:
        buf_printf(b, "(%s(", x->op);
        for (int i = 0; i < x->nrv; i++) {
            const RVar *v = &g->rv[x->rv[i]];
            buf_printf(b, "%sr%d", i ? ", " : "", x->rv[i]);
            if (!v->explicit_)
                continue;
            buf_puts(b, " in 0..");
            if (v->sym)
                put_size(g, b, v->dim, 0);
            else
                buf_printf(b, "%d", v->k);
        }
        /* `max(r) -x` would read as a call of max minus x */
        buf_puts(b, x->a->k == NK_UN ? ") (" : ") ");
        put(g, b, x->a);
        buf_puts(b, x->a->k == NK_UN ? "))" : ")");
        break;
    }
}

static void put_shape(const Gen *g, TlBuf *b, const Ten *t)
{
    buf_printf(b, "%s: %s[", t->name, dt_name(t->dt));
    for (int j = 0; j < t->rank; j++) {
        if (j)
            buf_puts(b, ", ");
        put_size(g, b, t->dim[j], -t->shrink[j]);
    }
    buf_putc(b, ']');
}

static void print_kernel(const Gen *g, TlBuf *b, const char *name)
{
    int first = 1;

    buf_printf(b, "kernel %s(", name);
    for (int i = 0; i < g->nt; i++)
        if (g->t[i].kind == TK_INPUT) {
            if (!first)
                buf_puts(b, ", ");
            put_shape(g, b, &g->t[i]);
            first = 0;
        }
    for (int i = 0; i < g->nscalars; i++) {
        buf_printf(b, "%sp%d: %s = ", i ? ", " : "; ", i,
                   dt_name(g->sdt[i]));
        buf_puts(b, dt_is_float(g->sdt[i]) ? "1.5" : "3");
    }
    buf_puts(b, ") -> (");
    first = 1;
    for (int i = 0; i < g->nt; i++)
        if (g->t[i].kind == TK_OUTPUT) {
            if (!first)
                buf_puts(b, ", ");
            put_shape(g, b, &g->t[i]);
            first = 0;
        }
    buf_puts(b, ") {\n");
    for (int i = 0; i < g->nt; i++) {
        const Ten *t = &g->t[i];
        if (t->kind == TK_INPUT || !t->used)
            continue;
        if (t->kind == TK_CALL) {
            buf_printf(b, "    %s = h%d(%s)\n", t->name, t->callee,
                       g->t[t->arg].name);
            continue;
        }
        buf_printf(b, "    %s[", t->name);
        for (int j = 0; j < t->rank; j++)
            buf_printf(b, "%si%d", j ? ", " : "", j);
        buf_puts(b, "] = ");
        put(g, b, t->value);
        buf_putc(b, '\n');
    }
    buf_puts(b, "}\n");
}

/* ====================================================================
 * The program
 * ==================================================================== */

/* Dims for a new tensor, from those of tensor `from`: the same, one
 * dropped, one added, or permuted. */
static int derive_dims(Gen *g, const Ten *from, int *dim)
{
    int n = from->rank, w = rg_below(g->r, 100);

    memcpy(dim, from->dim, sizeof from->dim);
    if (w < 20 && n > 1) {
        int j = rg_below(g->r, n);
        memmove(&dim[j], &dim[j + 1], (size_t)(n - j - 1) * sizeof *dim);
        n--;
    } else if (w < 40 && n < 3 && n < g->ndims) {
        int d, again;
        do {
            d = rg_below(g->r, g->ndims);
            again = 0;
            for (int j = 0; j < n; j++)
                again |= dim[j] == d;
        } while (again);
        {
            int at = rg_below(g->r, n + 1);
            memmove(&dim[at + 1], &dim[at], (size_t)(n - at) * sizeof *dim);
            dim[at] = d;
            n++;
        }
    } else if (w < 55 && n > 1) {
        int a = rg_below(g->r, n), c = rg_below(g->r, n), t = dim[a];
        dim[a] = dim[c];
        dim[c] = t;
    }
    return n;
}

/* Makes tensor i's value; 0 when it could not. */
static int make_value(Gen *g, int i)
{
    Ten *t = &g->t[i];

    g->cur = i;
    g->nscope = 0;
    g->natural = t->kind == TK_STAGE && rg_chance(g->r, 35);
    for (int tries = 0; tries < 8; tries++) {
        int saved_nodes = g->nnodes, saved_rv = g->nrv;
        t->value = gen(g, t->dt, 1 + rg_below(g->r, 4));
        if (t->value && has_read(t->value)) {
            /* a weak value (select of literals) would take another
             * dtype: say it */
            Node *c = node(g, NK_CAST, t->dt);
            if (c && t->value->k != NK_READ) {
                c->a = t->value;
                t->value = c;
            }
            int ok = 1;
            if (g->natural)
                for (int a = 0; a < t->rank; a++)
                    ok &= indexes_axis(g, t->value, a);
            t->natok = g->natural && ok;
            if (!g->natural || ok)
                return 1;
        }
        g->nnodes = saved_nodes;
        g->nrv = saved_rv;
    }
    t->value = NULL;
    return 0;
}

/* Picks sizes: primes and small numbers, so that splits leave tails,
 * within a bound on the elements of each tensor. */
static void pick_sizes(Gen *g)
{
    static const int sz[] = {1, 2, 3, 3, 4, 5, 5, 7, 7, 8, 11, 13, 16, 17,
                             19, 23, 31};
    for (int d = 0; d < g->ndims; d++) {
        int s;
        do
            s = sz[rg_below(g->r, (int)(sizeof sz / sizeof sz[0]))];
        while (s < g->minsize[d]);
        g->size[d] = s;
    }
}

/* Adds stage (or output) number `num` after the tensors made so far,
 * its dims from one of the last two; 0 when no value could be made. */
static int add_stage(Gen *g, int out, int num)
{
    Ten *t = &g->t[g->nt];
    const Ten *from = &g->t[g->nt - 1 - rg_below(g->r, g->nt > 2 ? 2
                                                                 : g->nt)];

    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, out ? "out%d" : "s%d", num);
    t->kind = out ? TK_OUTPUT : TK_STAGE;
    t->rank = derive_dims(g, from, t->dim);
    t->dt = rg_chance(g->r, 50) ? from->dt : pick_dtype(g);
    if (out && rg_chance(g->r, 20)) {
        int j = rg_below(g->r, t->rank);
        t->shrink[j] = 1 + rg_below(g->r, 2);
        if (g->minsize[t->dim[j]] < t->shrink[j] + 1)
            g->minsize[t->dim[j]] = t->shrink[j] + 1;
    }
    g->nt++;
    return make_value(g, g->nt - 1);
}

/* A kernel to call on tensor a: one input of a's dtype and rank, one
 * output of its shape, a few stages between. */
static int make_callee(Gen *cg, RgRng *rng, const Ten *a)
{
    Ten *t;
    int nst = rg_below(rng, 3);

    memset(cg, 0, sizeof *cg);
    cg->r = rng;
    cg->ndims = a->rank;
    for (int d = 0; d < cg->ndims; d++)
        cg->minsize[d] = 1;
    t = &cg->t[cg->nt++];
    snprintf(t->name, sizeof t->name, "in0");
    t->kind = TK_INPUT;
    t->dt = a->dt;
    t->rank = a->rank;
    for (int j = 0; j < t->rank; j++)
        t->dim[j] = j;
    for (int i = 0; i < nst; i++)
        if (!add_stage(cg, 0, i))
            return 0;
    t = &cg->t[cg->nt];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "out0");
    t->kind = TK_OUTPUT;
    t->dt = pick_dtype(cg);
    t->rank = a->rank;
    for (int j = 0; j < t->rank; j++)
        t->dim[j] = j;
    cg->nt++;
    if (!make_value(cg, cg->nt - 1))
        return 0;
    bounds(cg);
    for (int i = 0; i < cg->nt; i++)
        if (cg->t[i].value)
            infer_ranges(cg, cg->t[i].value, cg->t[i].value);
    return 1;
}

/* Makes tensor i a call of a new kernel on an input or on a stage
 * whose natural domain is known (it is passed whole); 0 if none. */
static int make_call(Gen *g, int i)
{
    static Gen callees[2];
    int cand[MAXT], n = 0, a;
    Gen *cg;
    Ten *t;

    for (int q = 0; q < i; q++)
        if (g->t[q].kind == TK_INPUT ||
            (g->t[q].kind == TK_STAGE && g->t[q].natok))
            cand[n++] = q;
    if (!n)
        return 0;
    a = cand[rg_below(g->r, n)];
    cg = &callees[g->ncallees];
    if (!make_callee(cg, g->r, &g->t[a]))
        return 0;
    t = &g->t[i];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "c%d", g->ncallees);
    t->kind = TK_CALL;
    t->callee = g->ncallees;
    t->arg = a;
    t->rank = g->t[a].rank;
    memcpy(t->dim, g->t[a].dim, sizeof t->dim);
    t->dt = cg->t[cg->nt - 1].dt;
    g->callee[g->ncallees++] = cg;
    return 1;
}

void rg_program(RgRng *rng, RgProgram *p)
{
    static Gen gs;
    Gen *g = &gs;
    int nin, nst, nout, ok = 0;

    memset(p, 0, sizeof *p);
    buf_init(&p->text);
    for (int attempt = 0; attempt < 50 && !ok; attempt++) {
        memset(g, 0, sizeof *g);
        g->r = rng;
        g->ndims = 2 + rg_below(rng, 3);
        g->lit_sizes = rg_chance(rng, 25);
        g->nscalars = rg_chance(rng, 30) ? 1 + rg_chance(rng, 30) : 0;
        for (int i = 0; i < g->nscalars; i++) {
            static const TlDType sd[] = {DT_F32, DT_I32, DT_F64, DT_I16};
            g->sdt[i] = sd[rg_below(rng, 4)];
        }
        for (int d = 0; d < g->ndims; d++)
            g->minsize[d] = 1;
        nin = 1 + rg_below(rng, 3);
        nst = rg_below(rng, 6);
        nout = 1 + rg_chance(rng, 25);
        /* inputs: together they cover every size variable */
        for (int i = 0; i < nin; i++) {
            Ten *t = &g->t[g->nt++];
            snprintf(t->name, sizeof t->name, "in%d", i);
            t->kind = TK_INPUT;
            t->dt = pick_dtype(g);
            t->rank = 1 + rg_below(rng, 3);
            if (t->rank > g->ndims)
                t->rank = g->ndims;
            for (int j = 0; j < t->rank; j++) {
                int d, again;
                do {
                    d = rg_below(rng, g->ndims);
                    again = 0;
                    for (int q = 0; q < j; q++)
                        again |= t->dim[q] == d;
                } while (again);
                t->dim[j] = d;
            }
            if (i == nin - 1) {
                /* the last input takes the sizes nobody has, first */
                int unseen[MAXD], n = 0;
                for (int d = 0; d < g->ndims; d++) {
                    int seen = 0;
                    for (int q = 0; q < g->nt - 1; q++)
                        for (int j = 0; j < g->t[q].rank; j++)
                            seen |= g->t[q].dim[j] == d;
                    if (!seen)
                        unseen[n++] = d;
                }
                if (n > 3) {
                    t->rank = 0;    /* too many: try again */
                } else if (n) {
                    int m = 0;
                    for (int j = 0; j < n; j++)
                        t->dim[m++] = unseen[j];
                    for (int d = 0; d < g->ndims && m < t->rank; d++) {
                        int have = 0;
                        for (int j = 0; j < m; j++)
                            have |= t->dim[j] == d;
                        if (!have)
                            t->dim[m++] = d;
                    }
                    t->rank = m > n ? m : n;
                }
            }
        }
        if (g->t[g->nt - 1].rank == 0)
            continue;
        ok = 1;
        for (int i = 0; i < nst + nout && ok; i++) {
            if (i < nst && g->ncallees < 2 && rg_chance(rng, 15) &&
                make_call(g, g->nt)) {
                g->nt++;
                continue;
            }
            ok = add_stage(g, i >= nst, i >= nst ? i - nst : i);
        }
        if (!ok)
            continue;
        bounds(g);
        for (int i = 0; i < g->nt; i++)
            if (g->t[i].value)
                infer_ranges(g, g->t[i].value, g->t[i].value);
    }
    pick_sizes(g);
    for (int c = 0; c < g->ncallees; c++) {
        char name[16];
        snprintf(name, sizeof name, "h%d", c);
        print_kernel(g->callee[c], &p->text, name);
        buf_putc(&p->text, '\n');
    }
    print_kernel(g, &p->text, "k");
    for (int i = 0; i < g->nt && p->ninputs < RG_MAX_INPUTS; i++) {
        const Ten *t = &g->t[i];
        if (t->kind != TK_INPUT)
            continue;
        p->dtype[p->ninputs] = t->dt;
        p->rank[p->ninputs] = t->rank;
        for (int j = 0; j < t->rank; j++)
            p->shape[p->ninputs][j] = g->size[t->dim[j]];
        p->ninputs++;
    }
}
