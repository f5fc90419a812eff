/*
 * pass_simplify.c - the simplifier: constant folding, algebraic
 * identities and dead-code removal over the loop IR, used after
 * schedule application and by the other passes (unrolling and
 * vectorization leave much to fold).
 *
 * Expressions are simplified bottom-up: the children first, then the
 * rules of the node (node()), whose rewrites are themselves passed
 * through node() so that each result is simplified at its root.
 * Integer rules that are only true without wraparound (dividing
 * x * 4 + y by 4, moving a constant across a comparison, deciding
 * x < 16) consult value ranges: each integer expression has an
 * interval computed from constants and from the bounds of the loops
 * and lets around it (range()); an operation whose interval leaves
 * its dtype may wrap and proves nothing.  Float rules are only those
 * true for every value, NaN and signed zeros included.
 *
 * Statements are simplified in order inside each block with an
 * environment of the variables in scope: what a let is known to equal
 * (constants and variables are substituted) and the interval of each
 * let and loop variable.  The whole pass repeats until it changes
 * nothing, so its result is a fixed point.
 */
#include "codegen/codegen_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rewrites nested deeper than MAX_DEPTH apply no more rules, and the
 * pass stops after MAX_ROUNDS rounds: nets against rules that would
 * feed each other forever (the result stays correct, only less
 * simple). */
enum { MAX_DEPTH = 64, MAX_ROUNDS = 16 };

/* The values an integer expression may take (both ends included). */
typedef struct Range {
    int64_t lo, hi;
} Range;

typedef struct Bind {
    const LVar *var;
    LExpr *with;        /* substitute this, or NULL */
    LExpr *def;         /* a let's value (a binary operation), or NULL */
    int has_range;
    Range r;
} Bind;

typedef struct Simp {
    TlSession *s;
    LMutator m;
    Bind *env;          /* heap array, innermost last */
    int n, cap;
    int depth;
} Simp;

static LExpr *node(Simp *S, LExpr *e);

/* ====================================================================
 * The environment
 * ==================================================================== */

static Bind *bind(Simp *S, const LVar *var)
{
    Bind *b;

    if (S->n == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 32;
        S->env = tl_xrealloc(S->env, (size_t)S->cap * sizeof *S->env);
    }
    b = &S->env[S->n++];
    memset(b, 0, sizeof *b);
    b->var = var;
    return b;
}

static const Bind *lookup(const Simp *S, const LVar *var)
{
    for (int i = S->n - 1; i >= 0; i--)
        if (S->env[i].var == var)
            return &S->env[i];
    return NULL;
}

/* ====================================================================
 * Integer arithmetic of the language (SPEC 8.5)
 * ==================================================================== */

static int64_t fold_int(LOp op, TlDType dt, int64_t x, int64_t y)
{
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;

    if (dt == DT_U64) {
        /* Held as bits: / % and the order are the unsigned ones. */
        switch (op) {
        case LO_DIV: return uy ? (int64_t)(ux / uy) : 0;
        case LO_MOD: return uy ? (int64_t)(ux % uy) : 0;
        case LO_MIN: return uy < ux ? y : x;
        case LO_MAX: return uy > ux ? y : x;
        case LO_LT: return ux < uy;
        case LO_LE: return ux <= uy;
        case LO_GT: return ux > uy;
        case LO_GE: return ux >= uy;
        default: break;
        }
    }
    switch (op) {
    case LO_ADD: return lir_wrap_int(dt, (int64_t)(ux + uy));
    case LO_SUB: return lir_wrap_int(dt, (int64_t)(ux - uy));
    case LO_MUL: return lir_wrap_int(dt, (int64_t)(ux * uy));
    case LO_DIV: return lir_wrap_int(dt, tl_floor_div(x, y));
    case LO_MOD: return lir_wrap_int(dt, tl_floor_mod(x, y));
    case LO_MIN: return y < x ? y : x;
    case LO_MAX: return y > x ? y : x;
    case LO_EQ: return x == y;
    case LO_NE: return x != y;
    case LO_LT: return x < y;
    case LO_LE: return x <= y;
    case LO_GT: return x > y;
    case LO_GE: return x >= y;
    case LO_AND: return x && y;
    case LO_OR: return x || y;
    default: tl_unreachable();
    }
}

/* Python's float modulo, as the interpreter computes it. */
static double float_mod(double a, double b)
{
    double m = fmod(a, b);

    if (m != 0) {
        if ((b < 0) != (m < 0))
            m += b;
    } else {
        m = copysign(0.0, b);
    }
    return m;
}

/* min/max: NaN if either is NaN (the first one), a on a tie. */
static double float_minmax(LOp op, double a, double b)
{
    if (isnan(a))
        return a;
    if (isnan(b))
        return b;
    if (op == LO_MIN)
        return b < a ? b : a;
    return b > a ? b : a;
}

/* ====================================================================
 * Ranges
 * ==================================================================== */

/* Ranges are intervals of int64_t.  A u64 value is held as its bits,
 * so its ranges are those of the bits read as i64: exact through the
 * wrapping + - * (the same ring) and casts, but not for the unsigned
 * / % min max and comparisons, which take no rules from ranges. */
static Range full(TlDType dt)
{
    Range r;
    r.lo = dt == DT_U64 ? INT64_MIN : lir_int_min(dt);
    r.hi = dt == DT_U64 ? INT64_MAX : lir_int_max(dt);
    return r;
}

static Range point(int64_t v)
{
    Range r;
    r.lo = r.hi = v;
    return r;
}

static int fits(TlDType dt, Range r)
{
    Range f = full(dt);
    return r.lo >= f.lo && r.hi <= f.hi;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The interval of a op b for a in ra, b in rb, computed exactly; 1 when
 * it fits dt (so the operation cannot wrap), else 0. */
static int range_op(LOp op, TlDType dt, Range ra, Range rb, Range *out)
{
    int64_t c[4];
    int ov = 0;

    switch (op) {
    case LO_ADD:
        ov = __builtin_add_overflow(ra.lo, rb.lo, &out->lo) ||
             __builtin_add_overflow(ra.hi, rb.hi, &out->hi);
        break;
    case LO_SUB:
        ov = __builtin_sub_overflow(ra.lo, rb.hi, &out->lo) ||
             __builtin_sub_overflow(ra.hi, rb.lo, &out->hi);
        break;
    case LO_MUL:
        ov = __builtin_mul_overflow(ra.lo, rb.lo, &c[0]) ||
             __builtin_mul_overflow(ra.lo, rb.hi, &c[1]) ||
             __builtin_mul_overflow(ra.hi, rb.lo, &c[2]) ||
             __builtin_mul_overflow(ra.hi, rb.hi, &c[3]);
        if (!ov) {
            out->lo = min64(min64(c[0], c[1]), min64(c[2], c[3]));
            out->hi = max64(max64(c[0], c[1]), max64(c[2], c[3]));
        }
        break;
    case LO_DIV:
        /* Only positive divisors: then x / d grows with x and, for a
         * fixed sign of x, moves one way with d. */
        if (rb.lo <= 0)
            return 0;
        c[0] = tl_floor_div(ra.lo, rb.lo);
        c[1] = tl_floor_div(ra.lo, rb.hi);
        c[2] = tl_floor_div(ra.hi, rb.lo);
        c[3] = tl_floor_div(ra.hi, rb.hi);
        out->lo = min64(c[0], c[1]);
        out->hi = max64(c[2], c[3]);
        break;
    case LO_MOD:
        if (rb.lo <= 0)
            return 0;
        out->lo = 0;
        out->hi = rb.hi - 1;
        if (ra.lo >= 0 && ra.hi < rb.lo) {
            *out = ra;
        }
        break;
    case LO_MIN:
        out->lo = min64(ra.lo, rb.lo);
        out->hi = min64(ra.hi, rb.hi);
        break;
    case LO_MAX:
        out->lo = max64(ra.lo, rb.lo);
        out->hi = max64(ra.hi, rb.hi);
        break;
    default:
        return 0;
    }
    return !ov && fits(dt, *out);
}

static Range range(const Simp *S, const LExpr *e);

/* The lanes of ramp(b, s, n) lie between b and b + s * (n - 1). */
static int range_ramp(const Simp *S, const LExpr *e, Range *out)
{
    TlDType dt = e->type.dt;
    Range rs, span;

    if (!range_op(LO_MUL, dt, range(S, e->b),
                  point(e->type.lanes - 1), &rs))
        return 0;
    span.lo = min64(rs.lo, 0);
    span.hi = max64(rs.hi, 0);
    return range_op(LO_ADD, dt, range(S, e->a), span, out);
}

/* The interval of an integer expression's value (every lane); the
 * dtype's range when nothing better is known. */
static Range range(const Simp *S, const LExpr *e)
{
    TlDType dt = e->type.dt;
    Range r = full(dt), a, b;
    const Bind *bd;

    if (!dt_is_int(dt))
        return r;
    switch (e->kind) {
    case LE_INT:
        return point(e->ival);
    case LE_VAR:
        bd = lookup(S, e->var);
        return bd && bd->has_range ? bd->r : r;
    case LE_BROADCAST:
        return range(S, e->a);
    case LE_RAMP:
        return range_ramp(S, e, &a) ? a : r;
    case LE_BINARY:
        if (dt == DT_U64 && e->op != LO_ADD && e->op != LO_SUB &&
            e->op != LO_MUL)
            return r;
        a = range(S, e->a);
        b = range(S, e->b);
        return range_op(e->op, dt, a, b, &a) ? a : r;
    case LE_UNARY:
        a = range(S, e->a);
        return range_op(LO_SUB, dt, point(0), a, &b) ? b : r;
    case LE_CAST:
        if (e->a->type.dt == DT_BOOL)
            return full(DT_BOOL);
        if (!dt_is_int(e->a->type.dt))
            return r;
        a = range(S, e->a);
        return fits(dt, a) ? a : r;
    case LE_SELECT:
        a = range(S, e->b);
        b = range(S, e->c);
        a.lo = min64(a.lo, b.lo);
        a.hi = max64(a.hi, b.hi);
        return a;
    case LE_CALL:
        if (e->fn != LC_ABS || dt == DT_U64)
            return r;
        a = range(S, e->args[0]);
        if (a.lo >= 0)
            return a;
        if (a.lo == INT64_MIN || -a.lo > lir_int_max(dt))
            return r;
        b.lo = a.hi < 0 ? -a.hi : 0;
        b.hi = max64(-a.lo, a.hi);
        return b;
    default:
        return r;
    }
}

/* ====================================================================
 * Constants
 * ==================================================================== */

/* The value of an integer constant, or of a broadcast of one. */
static int int_const(const LExpr *e, int64_t *v)
{
    if (e->kind == LE_BROADCAST)
        e = e->a;
    if (e->kind != LE_INT)
        return 0;
    *v = e->ival;
    return 1;
}

static int float_const(const LExpr *e, double *v)
{
    if (e->kind == LE_BROADCAST)
        e = e->a;
    if (e->kind != LE_FLOAT)
        return 0;
    *v = e->fval;
    return 1;
}

static int is_const(const LExpr *e)
{
    int64_t i;
    double f;
    return int_const(e, &i) || float_const(e, &f);
}

static LExpr *int_of(Simp *S, LType t, int64_t v)
{
    LExpr *e = lir_int(S->s, t.dt, lir_wrap_int(t.dt, v));
    return t.lanes > 1 ? lir_broadcast(S->s, e, t.lanes) : e;
}

static LExpr *float_of(Simp *S, LType t, double v)
{
    LExpr *e = lir_float(S->s, t.dt, v);
    return t.lanes > 1 ? lir_broadcast(S->s, e, t.lanes) : e;
}

static LExpr *bool_of(Simp *S, int lanes, int v)
{
    return int_of(S, lir_type(DT_BOOL, lanes), v != 0);
}

/* The constant of the language's cast of v (of dtype from) to t. */
static LExpr *cast_const(Simp *S, LType t, TlDType from, int64_t i,
                         double f)
{
    unsigned char tmp[8];

    if (dt_is_float(from)) {
        if (dt_is_float(t.dt))
            return float_of(S, t, f);
        return int_of(S, t, tl_f64_to_int(t.dt, f));
    }
    if (dt_is_float(t.dt)) {
        if (from == DT_U64)
            tl_dt_store_u64(t.dt, tmp, (uint64_t)i);
        else
            tl_dt_store_i64(t.dt, tmp, i);
        return float_of(S, t, tl_dt_load_f64(t.dt, tmp));
    }
    return int_of(S, t, i);
}

/* ====================================================================
 * Building simplified nodes
 * ==================================================================== */

static LExpr *B(Simp *S, LOp op, LExpr *a, LExpr *b)
{
    return node(S, lir_binary(S->s, op, a, b));
}

static LExpr *U(Simp *S, LOp op, LExpr *a)
{
    return node(S, lir_unary(S->s, op, a));
}

/* Splits e into base + k for a constant k of e's dtype: k = 0 and base
 * = e when there is no constant offset; base NULL when e is constant. */
static int64_t split_off(const LExpr *e, LExpr **base)
{
    int64_t k;

    if (int_const(e, &k)) {
        *base = NULL;
        return k;
    }
    if (e->kind == LE_BINARY && (e->op == LO_ADD || e->op == LO_SUB) &&
        int_const(e->b, &k)) {
        *base = e->a;
        return e->op == LO_ADD ? k
                               : lir_wrap_int(e->type.dt,
                                              (int64_t)(0 - (uint64_t)k));
    }
    *base = (LExpr *)e;
    return 0;
}

/* base + k written the usual way: `x - 3` rather than `x + -3` (and
 * `x - 1` rather than `x + 255` in u8). */
static LExpr *with_off(Simp *S, LExpr *base, int64_t k, LType t)
{
    int64_t b, neg;

    k = lir_wrap_int(t.dt, k);
    if (base && int_const(base, &b))
        return int_of(S, t, fold_int(LO_ADD, t.dt, b, k));
    if (!base)
        return int_of(S, t, k);
    if (k == 0)
        return base;
    neg = lir_wrap_int(t.dt, (int64_t)(0 - (uint64_t)k));
    if (k < 0 ? k != lir_int_min(t.dt) : neg > 0 && neg < k)
        return lir_binary(S->s, LO_SUB, base, int_of(S, t, neg));
    return lir_binary(S->s, LO_ADD, base, int_of(S, t, k));
}

/* e / c when e is provably a multiple of c > 0 whose computation does
 * not wrap, so that the quotient can be taken term by term; else
 * NULL. */
static LExpr *exact_div(Simp *S, LExpr *e, int64_t c)
{
    TlDType dt = e->type.dt;
    LExpr *p, *q;
    Range r;
    int64_t k;

    switch (e->kind) {
    case LE_INT:
        return e->ival % c == 0 ? lir_int(S->s, dt, e->ival / c) : NULL;
    case LE_BROADCAST:
        p = exact_div(S, e->a, c);
        return p ? lir_broadcast(S->s, p, e->type.lanes) : NULL;
    case LE_RAMP:
        if (!range_ramp(S, e, &r))
            return NULL;
        p = exact_div(S, e->a, c);
        q = p ? exact_div(S, e->b, c) : NULL;
        return q ? node(S, lir_ramp(S->s, p, q, e->type.lanes)) : NULL;
    case LE_BINARY:
        break;
    default:
        return NULL;
    }
    if (e->op == LO_MUL && int_const(e->b, &k) && k % c == 0 &&
        range_op(LO_MUL, dt, range(S, e->a), point(k), &r))
        return k == c ? e->a : B(S, LO_MUL, e->a, int_of(S, e->type, k / c));
    if ((e->op == LO_ADD || e->op == LO_SUB) &&
        range_op(e->op, dt, range(S, e->a), range(S, e->b), &r)) {
        p = exact_div(S, e->a, c);
        q = p ? exact_div(S, e->b, c) : NULL;
        return q ? B(S, e->op, p, q) : NULL;
    }
    return NULL;
}

/* ====================================================================
 * Integer rules
 * ==================================================================== */

/* A sum split into terms: value(e) = sum of +-value(term), exactly,
 * because no + or - node that was opened can wrap (one that might is
 * kept whole as a term). */
enum { MAX_TERMS = 16 };

typedef struct Terms {
    LExpr *e[MAX_TERMS];
    int neg[MAX_TERMS];
    int n;
} Terms;

static void split_terms(Simp *S, LExpr *e, int neg, Terms *t)
{
    Range r;

    if (e->kind == LE_BINARY && (e->op == LO_ADD || e->op == LO_SUB) &&
        t->n + 2 <= MAX_TERMS &&
        range_op(e->op, e->type.dt, range(S, e->a), range(S, e->b), &r)) {
        split_terms(S, e->a, neg, t);
        split_terms(S, e->b, e->op == LO_SUB ? !neg : neg, t);
        return;
    }
    t->e[t->n] = e;
    t->neg[t->n++] = neg;
}

/* The signed sum of the terms of t for which q[i] is not NULL, each
 * replaced by q[i] (the term or its quotient), or NULL when there are
 * none.  *r receives a bound on the sum's exact value; *fits is
 * cleared when the bound leaves the dtype. */
static LExpr *sum_terms(Simp *S, const Terms *t, LExpr *const *q,
                        Range *r, int *fits)
{
    LExpr *acc = NULL;
    TlDType dt = t->e[0]->type.dt;

    for (int i = 0; i < t->n; i++) {
        LExpr *x = q[i];
        Range rx;
        if (!x)
            continue;
        rx = range(S, x);
        if (!acc) {
            acc = t->neg[i] ? U(S, LO_NEG, x) : x;
            if (t->neg[i] && !range_op(LO_SUB, dt, point(0), rx, &rx))
                *fits = 0;
            *r = rx;
        } else {
            acc = B(S, t->neg[i] ? LO_SUB : LO_ADD, acc, x);
            if (!range_op(t->neg[i] ? LO_SUB : LO_ADD, dt, *r, rx, r))
                *fits = 0;
        }
    }
    return acc;
}

/* (m + r) / c = m / c + r / c and (m + r) % c = r % c, where m is the
 * part of a sum that c divides: a term by term rewrite that needs the
 * sum's value to be its exact value (split_terms) and the rest's exact
 * value to fit the dtype (so that computing it alone cannot wrap). */
static LExpr *split_by(Simp *S, LExpr *e, int64_t c)
{
    Terms t;
    LExpr *q[MAX_TERMS], *m, *rest, *ck = e->b;
    Range rm, rr;
    int nq = 0, fits = 1;

    t.n = 0;
    split_terms(S, e->a, 0, &t);
    for (int i = 0; i < t.n; i++) {
        q[i] = exact_div(S, t.e[i], c);
        nq += q[i] != NULL;
    }
    if (nq == 0 || nq == t.n)
        return e;
    {
        LExpr *parts[MAX_TERMS];
        for (int i = 0; i < t.n; i++)
            parts[i] = q[i] ? NULL : t.e[i];
        rest = sum_terms(S, &t, parts, &rr, &fits);
    }
    if (!fits)
        return e;
    if (e->op == LO_MOD)
        return B(S, LO_MOD, rest, ck);
    m = sum_terms(S, &t, q, &rm, &fits);
    return B(S, LO_ADD, m, B(S, LO_DIV, rest, ck));
}

static LExpr *div_rules(Simp *S, LExpr *e, int64_t c)
{
    LExpr *a = e->a, *p;
    LType t = e->type;
    TlDType dt = t.dt;
    Range r, ra = range(S, a);
    int64_t k;

    if (c == 0)
        return int_of(S, t, 0);         /* division by zero gives 0 */
    if (c == 1)
        return a;
    if (c == -1)
        return U(S, LO_NEG, a);
    if (c < 0)
        return e;
    p = exact_div(S, a, c);
    if (p)
        return p;
    if (tl_floor_div(ra.lo, c) == tl_floor_div(ra.hi, c))
        return int_of(S, t, tl_floor_div(ra.lo, c));
    p = split_by(S, e, c);
    if (p != e)
        return p;
    /* x / k / c = x / (k * c) for positive divisors */
    if (a->kind == LE_BINARY && a->op == LO_DIV && int_const(a->b, &k) &&
        k > 0 && range_op(LO_MUL, dt, point(k), point(c), &r))
        return B(S, LO_DIV, a->a, int_of(S, t, k * c));
    /* x * k / c = x / (c / k) when k divides c */
    if (a->kind == LE_BINARY && a->op == LO_MUL && int_const(a->b, &k) &&
        k > 0 && c % k == 0 &&
        range_op(LO_MUL, dt, range(S, a->a), point(k), &r))
        return B(S, LO_DIV, a->a, int_of(S, t, c / k));
    return e;
}

static LExpr *mod_rules(Simp *S, LExpr *e, int64_t c)
{
    LExpr *a = e->a;
    LType t = e->type;
    Range ra = range(S, a);
    int64_t k;

    if (c == 0 || c == 1 || c == -1)
        return int_of(S, t, 0);
    if (c < 0)
        return e;
    if (exact_div(S, a, c))
        return int_of(S, t, 0);
    if (ra.lo >= 0 && ra.hi < c)
        return a;
    /* x % k % c = x % c when c divides k */
    if (a->kind == LE_BINARY && a->op == LO_MOD && int_const(a->b, &k) &&
        k > 0 && k % c == 0)
        return B(S, LO_MOD, a->a, e->b);
    return split_by(S, e, c);
}

/* A comparison decided by the ranges of its sides: 1 true, 0 false,
 * -1 unknown. */
static int decide(LOp op, Range a, Range b)
{
    switch (op) {
    case LO_LT: return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1;
    case LO_LE: return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1;
    case LO_GT: return a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1;
    case LO_GE: return a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1;
    case LO_EQ:
    case LO_NE:
        if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo)
            return op == LO_EQ;
        if (a.hi < b.lo || b.hi < a.lo)
            return op == LO_NE;
        return -1;
    default: return -1;
    }
}

static LExpr *compare_rules(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b, *base;
    TlDType dt = a->type.dt;
    int lanes = e->type.lanes, d;
    int64_t ka, kb;
    Range r;

    if (lir_expr_equal(a, b))
        return bool_of(S, lanes, e->op == LO_EQ || e->op == LO_LE ||
                                     e->op == LO_GE);
    d = decide(e->op, range(S, a), range(S, b));
    if (d >= 0)
        return bool_of(S, lanes, d);
    /* x + ka OP kb  ->  x OP kb - ka, when neither side wraps */
    ka = split_off(a, &base);
    if (ka != 0 && base && int_const(b, &kb) &&
        range_op(LO_ADD, dt, range(S, base), point(ka), &r) &&
        range_op(LO_SUB, dt, point(kb), point(ka), &r))
        return B(S, e->op, base, int_of(S, b->type, r.lo));
    return e;
}

static LExpr *minmax_rules(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b, *a0, *b0;
    Range ra = range(S, a), rb = range(S, b), r;
    int64_t k1, k2;

    if (e->op == LO_MIN ? ra.hi <= rb.lo : ra.lo >= rb.hi)
        return a;
    if (e->op == LO_MIN ? rb.hi <= ra.lo : rb.lo >= ra.hi)
        return b;
    /* min(x + k1, x + k2) = x + min(k1, k2) where neither sum wraps
     * (bounds inference writes the rows a 3-tap stencil reads as
     * min(min(y, y + 1), y + 2); folded, its region's extent is a
     * constant and the loops over it have constant trip counts) */
    k1 = split_off(a, &a0);
    k2 = split_off(b, &b0);
    if (a0 && b0 && (k1 != 0 || k2 != 0) && lir_expr_equal(a0, b0) &&
        range_op(LO_ADD, e->type.dt, range(S, a0), point(k1), &r) &&
        range_op(LO_ADD, e->type.dt, range(S, a0), point(k2), &r))
        return (e->op == LO_MIN) == (k1 <= k2) ? a : b;
    /* min(min(x, k1), k2) = min(x, min(k1, k2)) */
    if (a->kind == LE_BINARY && a->op == e->op && int_const(a->b, &k1) &&
        int_const(b, &k2))
        return B(S, e->op, a->a,
                 int_of(S, e->type, fold_int(e->op, e->type.dt, k1, k2)));
    return e;
}

/* + - * on integers: identities and constant offsets. */
static LExpr *arith_rules(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b, *a0, *b0, *base;
    LType t = e->type;
    TlDType dt = t.dt;
    int64_t ka, kb, k;

    if (e->op == LO_MUL) {
        if (!int_const(b, &k))
            return e;
        if (k == 0)
            return int_of(S, t, 0);
        if (k == 1)
            return a;
        /* (x * k1) * k = x * (k1 * k); (x + k1) * k = x * k + k1 * k:
         * both exact in wrapping arithmetic */
        if (a->kind == LE_BINARY && a->op == LO_MUL && int_const(a->b, &ka))
            return B(S, LO_MUL, a->a,
                     int_of(S, t, fold_int(LO_MUL, dt, ka, k)));
        ka = split_off(a, &a0);
        if (ka != 0 && a0)
            return with_off(S, B(S, LO_MUL, a0, b),
                            fold_int(LO_MUL, dt, ka, k), t);
        return e;
    }
    if (int_const(b, &k) && k == 0)
        return a;                       /* x + 0, x - 0 */
    if (e->op == LO_SUB && lir_expr_equal(a, b))
        return int_of(S, t, 0);
    /* (x - y) + y = x; (x + y) - y = x; (x + y) - x = y */
    if (e->op == LO_ADD && a->kind == LE_BINARY && a->op == LO_SUB &&
        lir_expr_equal(a->b, b))
        return a->a;
    if (e->op == LO_SUB && a->kind == LE_BINARY && a->op == LO_ADD) {
        if (lir_expr_equal(a->b, b))
            return a->a;
        if (lir_expr_equal(a->a, b))
            return a->b;
    }
    ka = split_off(a, &a0);
    kb = split_off(b, &b0);
    if (ka == 0 && kb == 0)
        return e;
    if (e->op == LO_ADD) {
        base = a0 && b0 ? B(S, LO_ADD, a0, b0) : a0 ? a0 : b0;
        k = fold_int(LO_ADD, dt, ka, kb);
    } else if (a0) {
        base = b0 ? B(S, LO_SUB, a0, b0) : a0;
        k = fold_int(LO_SUB, dt, ka, kb);
    } else {
        /* k - (y + kb) = (k - kb) - y */
        k = fold_int(LO_SUB, dt, ka, kb);
        base = lir_binary(S->s, LO_SUB, int_of(S, t, k), b0);
        return lir_expr_equal(base, e) ? e : base;
    }
    base = with_off(S, base, k, t);
    return lir_expr_equal(base, e) ? e : base;
}

/* Integer vectors: ramps absorb broadcasts and each other. */
static LExpr *ramp_rules(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b;
    int lanes = e->type.lanes;
    LOp op = e->op;

    if (op != LO_ADD && op != LO_SUB && op != LO_MUL)
        return e;
    if (a->kind == LE_RAMP && b->kind == LE_RAMP && op != LO_MUL)
        return node(S, lir_ramp(S->s, B(S, op, a->a, b->a),
                                B(S, op, a->b, b->b), lanes));
    if (a->kind == LE_RAMP && b->kind == LE_BROADCAST)
        return node(S, lir_ramp(S->s, B(S, op, a->a, b->a),
                                op == LO_MUL ? B(S, op, a->b, b->a) : a->b,
                                lanes));
    if (a->kind == LE_BROADCAST && b->kind == LE_RAMP && op != LO_SUB)
        return node(S, lir_ramp(S->s, B(S, op, a->a, b->a),
                                op == LO_MUL ? B(S, op, a->a, b->b) : b->b,
                                lanes));
    return e;
}

/* ====================================================================
 * Binary nodes
 * ==================================================================== */

static LExpr *fold_binary(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b;
    TlDType dt = a->type.dt;
    int64_t x, y;
    double f, g;

    if (dt == DT_STR)           /* strings compare when the kernel runs */
        return e;
    if (int_const(a, &x) && int_const(b, &y)) {
        if ((e->op == LO_DIV || e->op == LO_MOD) && !dt_is_int(dt))
            return e;
        return int_of(S, e->type, fold_int(e->op, dt, x, y));
    }
    if (!float_const(a, &f) || !float_const(b, &g))
        return e;
    switch (e->op) {
    case LO_ADD: return float_of(S, e->type, f + g);
    case LO_SUB: return float_of(S, e->type, f - g);
    case LO_MUL: return float_of(S, e->type, f * g);
    case LO_DIV: return float_of(S, e->type, f / g);
    case LO_MOD: return float_of(S, e->type, float_mod(f, g));
    case LO_MIN:
    case LO_MAX: return float_of(S, e->type, float_minmax(e->op, f, g));
    case LO_EQ: return bool_of(S, e->type.lanes, f == g);
    case LO_NE: return bool_of(S, e->type.lanes, f != g);
    case LO_LT: return bool_of(S, e->type.lanes, f < g);
    case LO_LE: return bool_of(S, e->type.lanes, f <= g);
    case LO_GT: return bool_of(S, e->type.lanes, f > g);
    case LO_GE: return bool_of(S, e->type.lanes, f >= g);
    default: return e;
    }
}

/* The operator that gives a op b as b op' a, or -1 when there is
 * none that is exact: float min/max favour the left side on ties and
 * NaNs, so they do not commute. */
static int commuted(LOp op, TlDType dt)
{
    switch (op) {
    case LO_ADD: case LO_MUL: case LO_EQ: case LO_NE: case LO_AND:
    case LO_OR:
        return (int)op;
    case LO_MIN: case LO_MAX: return dt_is_float(dt) ? -1 : (int)op;
    case LO_LT: return LO_GT;
    case LO_GT: return LO_LT;
    case LO_LE: return LO_GE;
    case LO_GE: return LO_LE;
    default: return -1;
    }
}

/* Constants go right: `x + 3`, `x > 2` for `2 < x`. */
static LExpr *swap_const(Simp *S, LExpr *e)
{
    int to = commuted(e->op, e->a->type.dt);

    if (to < 0 || !is_const(e->a) || is_const(e->b))
        return e;
    return B(S, (LOp)to, e->b, e->a);
}

static LExpr *float_rules(LExpr *e)
{
    double k;

    if ((e->op == LO_MIN || e->op == LO_MAX) &&
        lir_expr_equal(e->a, e->b))
        return e->a;
    if (!float_const(e->b, &k))
        return e;
    /* Only identities that hold for NaN, inf and both zeros:
     * x * 1, x / 1, x - (+0), x + (-0).  Not x + 0 (-0 + 0 is +0),
     * not x * 0 (NaN, inf, and the sign of zero). */
    if ((e->op == LO_MUL || e->op == LO_DIV) && k == 1.0)
        return e->a;
    if (e->op == LO_SUB && k == 0.0 && !signbit(k))
        return e->a;
    if (e->op == LO_ADD && k == 0.0 && signbit(k))
        return e->a;
    return e;
}

static LExpr *bool_rules(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b;
    int64_t k;

    if ((e->op == LO_AND || e->op == LO_OR) && lir_expr_equal(a, b))
        return a;
    if (!int_const(b, &k))
        return e;
    switch (e->op) {
    case LO_AND: return k ? a : b;
    case LO_OR: return k ? b : a;
    case LO_EQ: return k ? a : U(S, LO_NOT, a);
    case LO_NE: return k ? U(S, LO_NOT, a) : a;
    default: return e;
    }
}

static LExpr *binary_node(Simp *S, LExpr *e)
{
    LExpr *a = e->a, *b = e->b, *r;
    TlDType dt = a->type.dt;
    int cls = lir_op_class(e->op);
    int64_t k;

    r = fold_binary(S, e);
    if (r != e)
        return r;
    if (a->kind == LE_BROADCAST && b->kind == LE_BROADCAST &&
        a->type.lanes == b->type.lanes)
        return node(S, lir_broadcast(S->s, B(S, e->op, a->a, b->a),
                                     e->type.lanes));
    r = swap_const(S, e);
    if (r != e)
        return r;
    if (dt == DT_BOOL)
        return bool_rules(S, e);
    if (dt_is_float(dt))
        return float_rules(e);
    if (!dt_is_int(dt))
        return e;
    r = ramp_rules(S, e);
    if (r != e)
        return r;
    if (dt == DT_U64)   /* the wrapping + - * only (see full()) */
        return e->op == LO_ADD || e->op == LO_SUB || e->op == LO_MUL
                   ? arith_rules(S, e) : e;
    if (cls == 'C')
        return compare_rules(S, e);
    switch (e->op) {
    case LO_DIV:
        return int_const(b, &k) ? div_rules(S, e, k) : e;
    case LO_MOD:
        return int_const(b, &k) ? mod_rules(S, e, k) : e;
    case LO_MIN:
    case LO_MAX:
        return lir_expr_equal(a, b) ? a : minmax_rules(S, e);
    default:
        return arith_rules(S, e);
    }
}

/* ====================================================================
 * Other nodes
 * ==================================================================== */

/* The comparison that is true exactly when op is false (on integers;
 * on floats only for == and !=). */
static LOp negated(LOp op)
{
    switch (op) {
    case LO_EQ: return LO_NE;
    case LO_NE: return LO_EQ;
    case LO_LT: return LO_GE;
    case LO_GE: return LO_LT;
    case LO_GT: return LO_LE;
    default: return LO_GT;      /* LO_LE */
    }
}

static LExpr *unary_node(Simp *S, LExpr *e)
{
    LExpr *a = e->a;
    int64_t i;
    double f;

    if (int_const(a, &i))
        return int_of(S, e->type, e->op == LO_NOT
                                      ? !i
                                      : fold_int(LO_SUB, e->type.dt, 0, i));
    if (float_const(a, &f))
        return float_of(S, e->type, -f);
    if (a->kind == LE_BROADCAST)
        return node(S, lir_broadcast(S->s, U(S, e->op, a->a),
                                     e->type.lanes));
    if (a->kind == LE_UNARY && a->op == e->op)
        return a->a;
    /* !(a < b) is a >= b for integers; for floats only == and != flip
     * (comparisons with NaN are false both ways). */
    if (e->op == LO_NOT && a->kind == LE_BINARY &&
        lir_op_class(a->op) == 'C' &&
        (a->op == LO_EQ || a->op == LO_NE || dt_is_int(a->a->type.dt)))
        return B(S, negated(a->op), a->a, a->b);
    return e;
}

static LExpr *select_node(Simp *S, LExpr *e)
{
    int64_t c;

    if (int_const(e->a, &c))
        return c ? e->b : e->c;
    if (lir_expr_equal(e->b, e->c))
        return e->b;
    if (e->a->kind == LE_UNARY && e->a->op == LO_NOT)
        return node(S, lir_select(S->s, e->a->a, e->c, e->b));
    return e;
}

static int is_sint(TlDType dt)
{
    return dt == DT_I8 || dt == DT_I16 || dt == DT_I32 || dt == DT_I64;
}

/* A widening of a + b, a - b or a * b that cannot wrap in the narrow
 * type is the operation on the widened operands: i64(k0 + ki) is
 * i64(k0) + i64(ki).  An index then stays affine in the loop variables
 * in the wide type, where cc turns it into pointer increments (a sum
 * that may wrap in i32 and is then widened is not affine, and cc
 * recomputes it in every iteration). */
static LExpr *widen_node(Simp *S, LExpr *e)
{
    LExpr *a = e->a;
    TlDType dt = a->type.dt;
    const Bind *bd;
    Range r;

    /* Through a let of the sum (k = k0 + ki, then A[i64(k)]). */
    if (a->kind == LE_VAR && (bd = lookup(S, a->var)) && bd->def)
        a = bd->def;
    if (e->type.lanes != 1 || a->kind != LE_BINARY || !is_sint(dt) ||
        !is_sint(e->type.dt) || dt_size(e->type.dt) <= dt_size(dt) ||
        (a->op != LO_ADD && a->op != LO_SUB && a->op != LO_MUL) ||
        !range_op(a->op, dt, range(S, a->a), range(S, a->b), &r) ||
        !fits(dt, r))
        return e;
    return node(S, lir_binary(S->s, a->op,
                              node(S, lir_cast(S->s, e->type.dt, a->a)),
                              node(S, lir_cast(S->s, e->type.dt, a->b))));
}

static LExpr *cast_node(Simp *S, LExpr *e)
{
    LExpr *a = e->a;
    int64_t i = 0;
    double f = 0;

    if (lir_type_eq(a->type, e->type))
        return a;
    /* A cast between str and a number makes or parses text, which the
     * kernel does when it runs (a parse may fail there: SPEC 8.6). */
    if (a->type.dt == DT_STR || e->type.dt == DT_STR)
        return e;
    /* i32(i64(x)) for an i32 x: an integer widened and brought back
     * is itself. */
    if (a->kind == LE_CAST && lir_type_eq(a->a->type, e->type) &&
        dt_is_int(e->type.dt) && dt_is_int(a->type.dt) &&
        dt_size(a->type.dt) >= dt_size(e->type.dt))
        return a->a;
    /* i64(i32(x)) for an i64 x whose range i32 holds: the narrowing
     * changes nothing (a region's start, min(i64(xo) * 256, 3838),
     * narrowed for an index and widened back in every address) */
    if (a->kind == LE_CAST && lir_type_eq(a->a->type, e->type) &&
        dt_is_int(e->type.dt) && dt_is_int(a->type.dt) &&
        fits(a->type.dt, range(S, a->a)))
        return a->a;
    if (int_const(a, &i) || float_const(a, &f))
        return cast_const(S, e->type, a->type.dt, i, f);
    if (a->kind == LE_BROADCAST)
        return node(S, lir_broadcast(S->s,
                                     node(S, lir_cast(S->s, e->type.dt,
                                                      a->a)),
                                     e->type.lanes));
    return widen_node(S, e);
}

/* A C function's call on broadcast scalars is a broadcast of its call
 * on the scalars (called once, not once a lane). */
static LExpr *call_func_node(Simp *S, LExpr *e)
{
    LExpr **args;

    if (e->nargs == 0)
        return e;
    for (int k = 0; k < e->nargs; k++)
        if (e->args[k]->kind != LE_BROADCAST)
            return e;
    args = arena_alloc(&S->s->arena, (size_t)e->nargs * sizeof *args);
    for (int k = 0; k < e->nargs; k++)
        args[k] = e->args[k]->a;
    return node(S, lir_broadcast(S->s, node(S, lir_call_like(S->s, e, args)),
                                 e->type.lanes));
}

static LExpr *call_node(Simp *S, LExpr *e)
{
    LExpr *a, *args[2];
    int64_t i;
    double f;
    int all_bc = 1;

    if (e->var)
        return call_func_node(S, e);
    a = e->args[0];
    if (e->fn == LC_ABS && int_const(a, &i))
        return int_of(S, e->type, i < 0 ? (int64_t)(0 - (uint64_t)i) : i);
    if (float_const(a, &f)) {
        switch (e->fn) {
        case LC_ABS: return float_of(S, e->type, fabs(f));
        case LC_FLOOR: return float_of(S, e->type, floor(f));
        case LC_CEIL: return float_of(S, e->type, ceil(f));
        case LC_ROUND: return float_of(S, e->type, nearbyint(f));
        default: break;
        }
    }
    for (int k = 0; k < e->nargs; k++)
        all_bc &= e->args[k]->kind == LE_BROADCAST;
    if (all_bc && e->nargs <= 2) {
        for (int k = 0; k < e->nargs; k++)
            args[k] = e->args[k]->a;
        return node(S, lir_broadcast(S->s,
                                     node(S, lir_call(S->s, e->fn, args,
                                                      e->nargs)),
                                     e->type.lanes));
    }
    return e;
}

/* The rules of e, whose children are already simplified. */
static LExpr *node(Simp *S, LExpr *e)
{
    LExpr *r = e;
    int64_t k;

    if (S->depth >= MAX_DEPTH)
        return e;
    S->depth++;
    switch (e->kind) {
    case LE_BINARY: r = binary_node(S, e); break;
    case LE_UNARY: r = unary_node(S, e); break;
    case LE_SELECT: r = select_node(S, e); break;
    case LE_CAST: r = cast_node(S, e); break;
    case LE_CALL: r = call_node(S, e); break;
    case LE_RAMP:
        if (int_const(e->b, &k) && k == 0)
            r = lir_broadcast(S->s, e->a, e->type.lanes);
        break;
    default: break;
    }
    S->depth--;
    return r;
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static LExpr *simp_var(LMutator *m, LExpr *e)
{
    const Bind *b = lookup(m->ctx, e->var);
    return b && b->with ? b->with : e;
}

static LExpr *simp_node(LMutator *m, LExpr *e)
{
    return node(m->ctx, lir_mutate_expr_children(m, e));
}

static LExpr *simp_expr(Simp *S, LExpr *e)
{
    return lir_mutate_expr(&S->m, e);
}

static void simp_init(Simp *S, TlSession *s)
{
    memset(S, 0, sizeof *S);
    S->s = s;
    S->m.s = s;
    S->m.ctx = S;
    for (int k = 0; k < LE__COUNT; k++)
        S->m.expr[k] = simp_node;
    S->m.expr[LE_VAR] = simp_var;
}

/* ====================================================================
 * Statements
 * ==================================================================== */

static LStmt *simp_stmt(Simp *S, LStmt *st);
static LStmt *simp_block(Simp *S, LStmt *st);

/* Worth substituting everywhere: as cheap as the variable itself. */
static int trivial(const LExpr *e)
{
    switch (e->kind) {
    case LE_INT:
    case LE_FLOAT:
    case LE_VAR:
        return 1;
    case LE_BROADCAST:
        return trivial(e->a);
    case LE_CAST:
        /* An integer widened: i64(i), which bounds inference writes
         * for every region's start; substituted, min(i64(i), i64(i))
         * and the like fold. */
        return e->a->kind == LE_VAR && dt_is_int(e->type.dt) &&
               dt_is_int(e->a->type.dt) &&
               dt_size(e->type.dt) >= dt_size(e->a->type.dt);
    case LE_RAMP:
        return is_const(e->a) && is_const(e->b);
    default:
        return 0;
    }
}

static int has_load(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD)
        *(int *)v->ctx = 1;
    return 1;
}

/* Uses of var that are not inside a loop body. */
static int outside_loops(LVisitor *v, const LStmt *st);

typedef struct Outside {
    const LVar *var;
    int n;
} Outside;

static int outside_expr(LVisitor *v, const LExpr *e)
{
    Outside *o = v->ctx;
    if (e->kind == LE_VAR && e->var == o->var)
        o->n++;
    return 1;
}

static int outside_loops(LVisitor *v, const LStmt *st)
{
    if (st->kind == LS_FOR) {
        lir_visit_expr(v, st->a);
        lir_visit_expr(v, st->b);
        return 0;
    }
    return 1;
}

/* Whether the let st, used once in `rest`, may move to its use: its
 * value reads no memory (a store on the way could change it) and the
 * use is not inside a loop (it would be computed each iteration). */
static int movable(const LStmt *st, LStmt *const *rest, int n)
{
    int loads = 0;
    LVisitor lv = {&loads, has_load, NULL};
    Outside o = {st->var, 0};
    LVisitor ov = {&o, outside_expr, outside_loops};

    lir_visit_expr(&lv, st->a);
    if (loads)
        return 0;
    for (int i = 0; i < n; i++)
        lir_visit_stmt(&ov, rest[i]);
    return o.n == 1;
}

/* Declares names visible to the statements after it in its block. */
static int declares(const LStmt *st)
{
    return st->kind == LS_LET || st->kind == LS_ALLOC;
}

static int flattens(const LStmt *st)
{
    if (st->kind != LS_BLOCK)
        return 0;
    for (int i = 0; i < st->nitems; i++)
        if (declares(st->items[i]))
            return 0;
    return 1;
}

/* Whether buffer v is loaded from, and a rewriter that drops the
 * stores into it: a buffer only written to can go, with its stores
 * (expressions have no effects). */
static int load_of(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD && e->var == ((const LVar **)v->ctx)[0])
        ((const LVar **)v->ctx)[1] = e->var;
    return 1;
}

static int loaded(const LVar *buf, LStmt *const *items, int n)
{
    const LVar *st[2] = {buf, NULL};
    LVisitor v = {st, load_of, NULL};

    for (int i = 0; i < n && !st[1]; i++)
        lir_visit_stmt(&v, items[i]);
    return st[1] != NULL;
}

static LStmt *drop_store(LMutator *m, LStmt *st)
{
    if (st->var == m->ctx)
        return lir_nop(m->s);
    return st;
}

/* Removes lets and allocs nobody uses (a buffer nobody loads from,
 * with its stores), and moves lets used once to
 * their use (movable()); items[*n] is changed in place.  Returns
 * whether anything changed. */
static int sweep(Simp *S, LStmt **items, int *n)
{
    int changed = 0;

    for (int k = *n - 1; k >= 0; k--) {
        LStmt *st = items[k];
        int uses = 0, j;
        if (!declares(st))
            continue;
        for (j = k + 1; j < *n; j++)
            uses += lir_count_uses(items[j], st->var);
        if (uses == 1 && st->kind == LS_LET &&
            movable(st, items + k + 1, *n - k - 1)) {
            for (j = k + 1; j < *n; j++)
                items[j] = lir_substitute(S->s, items[j], st->var, st->a);
            uses = 0;
        }
        if (uses && st->kind == LS_ALLOC &&
            !loaded(st->var, items + k + 1, *n - k - 1)) {
            LMutator m;
            memset(&m, 0, sizeof m);
            m.s = S->s;
            m.ctx = st->var;
            m.stmt[LS_STORE] = drop_store;
            for (j = k + 1; j < *n; j++)
                items[j] = lir_mutate_stmt(&m, items[j]);
            uses = 0;
        }
        if (uses == 0) {
            memmove(items + k, items + k + 1,
                    (size_t)(*n - k - 1) * sizeof *items);
            (*n)--;
            changed = 1;
        }
    }
    return changed;
}

static LStmt *simp_let(Simp *S, LStmt *st)
{
    LExpr *v = simp_expr(S, st->a);
    Bind *b;

    if (trivial(v)) {
        bind(S, st->var)->with = v;
        return lir_nop(S->s);
    }
    b = bind(S, st->var);
    if (dt_is_int(v->type.dt)) {
        b->has_range = 1;
        b->r = range(S, v);
        if (v->kind == LE_BINARY)
            b->def = v;
    }
    return v == st->a ? st : lir_let(S->s, st->var, v);
}

/* A block (or a single statement standing for one): the statements in
 * order, each seeing the lets before it. */
static LStmt *simp_block(Simp *S, LStmt *st)
{
    LStmt *const *in = st->kind == LS_BLOCK ? st->items : &st;
    int nin = st->kind == LS_BLOCK ? st->nitems : 1;
    int mark = S->n, n = 0, changed = 0;
    LStmt **out = arena_alloc(&S->s->arena,
                              (size_t)(nin > 0 ? nin : 1) * sizeof *out);
    int cap = nin;

    for (int i = 0; i < nin; i++) {
        LStmt *x = in[i], *y;
        y = x->kind == LS_LET ? simp_let(S, x) : simp_stmt(S, x);
        if (y != x)
            changed = 1;
        if (lir_is_nop(y)) {
            changed = 1;
            continue;
        }
        /* A let that replaced another kind of statement is dead: its
         * scope ended there (see lir_mutate.c). */
        if (declares(y) && y->kind != x->kind) {
            changed = 1;
            continue;
        }
        if (flattens(y)) {
            changed = 1;
            if (n + y->nitems > cap) {
                LStmt **bigger;
                cap = 2 * (n + y->nitems);
                bigger = arena_alloc(&S->s->arena,
                                     (size_t)cap * sizeof *bigger);
                memcpy(bigger, out, (size_t)n * sizeof *out);
                out = bigger;
            }
            memcpy(out + n, y->items, (size_t)y->nitems * sizeof *out);
            n += y->nitems;
            continue;
        }
        if (n == cap) {
            LStmt **bigger;
            cap = 2 * cap + 1;
            bigger = arena_alloc(&S->s->arena, (size_t)cap * sizeof *bigger);
            memcpy(bigger, out, (size_t)n * sizeof *out);
            out = bigger;
        }
        out[n++] = y;
    }
    S->n = mark;
    if (sweep(S, out, &n))
        changed = 1;
    if (!changed)
        return st;
    return lir_block(S->s, out, n);
}

static LStmt *simp_for(Simp *S, LStmt *st)
{
    LExpr *lo = simp_expr(S, st->a), *hi = simp_expr(S, st->b), *n;
    Range rlo = range(S, lo), rhi = range(S, hi);
    int mark = S->n;
    int64_t one;
    LStmt *body;
    Bind *b;

    if (int_const(B(S, LO_LE, hi, lo), &one) && one)
        return lir_nop(S->s);          /* no iteration */
    /* hi - lo == 1 proves one iteration unless it wrapped, which only
     * lo == the dtype's largest value allows */
    n = B(S, LO_SUB, hi, lo);
    if (st->loop != LP_DISTRIBUTED && int_const(n, &one) && one == 1 &&
        rlo.hi < lir_int_max(lo->type.dt)) {
        bind(S, st->var)->with = lo;   /* one iteration: the body */
        body = simp_block(S, st->body);
        S->n = mark;
        return body;
    }
    b = bind(S, st->var);
    b->has_range = 1;
    b->r.lo = rlo.lo;
    b->r.hi = rhi.hi - 1;
    body = simp_block(S, st->body);
    S->n = mark;
    if (lir_is_nop(body))
        return body;                    /* a loop that does nothing */
    if (lo == st->a && hi == st->b && body == st->body)
        return st;
    return lir_for(S->s, st->loop, st->width, st->level, st->var, lo, hi,
                   body);
}

/* Inside `if c`: a variable that a conjunct of c tests equal to a
 * constant is that constant (a `bound` stage's guard: its extents and
 * the sizes they are, lower.c), so that what depends on it folds. */
static void bind_known(Simp *S, const LExpr *c)
{
    const LExpr *v, *k;

    if (c->kind != LE_BINARY)
        return;
    if (c->op == LO_AND && c->type.dt == DT_BOOL && c->type.lanes == 1) {
        bind_known(S, c->a);
        bind_known(S, c->b);
        return;
    }
    if (c->op != LO_EQ)
        return;
    v = c->a->kind == LE_VAR ? c->a : c->b;
    k = v == c->a ? c->b : c->a;
    if (v->kind == LE_VAR && k->kind == LE_INT && v->type.lanes == 1 &&
        dt_is_int(v->type.dt) && lir_type_eq(v->type, k->type))
        bind(S, v->var)->with = (LExpr *)k;
}

static LStmt *simp_if(Simp *S, LStmt *st)
{
    LExpr *c = simp_expr(S, st->a);
    LStmt *then, *orelse = NULL;
    int64_t k;
    int mark = S->n;

    if (int_const(c, &k)) {
        if (k)
            return simp_block(S, st->body);
        return st->orelse ? simp_block(S, st->orelse) : lir_nop(S->s);
    }
    bind_known(S, c);
    then = simp_block(S, st->body);
    S->n = mark;
    if (st->orelse) {
        orelse = simp_block(S, st->orelse);
        if (lir_is_nop(orelse))
            orelse = NULL;
    }
    if (lir_is_nop(then)) {
        if (!orelse)
            return then;
        return lir_if(S->s, U(S, LO_NOT, c), orelse, NULL);
    }
    if (c == st->a && then == st->body && orelse == st->orelse)
        return st;
    return lir_if(S->s, c, then, orelse);
}

static LStmt *simp_stmt(Simp *S, LStmt *st)
{
    switch (st->kind) {
    case LS_FOR:
        return simp_for(S, st);
    case LS_IF:
        return simp_if(S, st);
    case LS_BLOCK:
        return simp_block(S, st);
    case LS_LET:
        /* Alone (not in a block) a let defines nothing anyone sees. */
        return lir_nop(S->s);
    case LS_STORE:
    case LS_ALLOC:
        return lir_mutate_stmt_children(&S->m, st);
    default:
        tl_unreachable();
    }
}

LStmt *lir_simplify(TlSession *s, LStmt *st)
{
    Simp S;
    LStmt *cur = st;

    simp_init(&S, s);
    for (int round = 0; round < MAX_ROUNDS; round++) {
        LStmt *next = simp_block(&S, cur);
        if (next == cur)
            break;
        cur = next;
    }
    free(S.env);
    return cur;
}

LExpr *lir_simplify_expr(TlSession *s, LExpr *e)
{
    Simp S;
    LExpr *cur = e;

    simp_init(&S, s);
    for (int round = 0; round < MAX_ROUNDS; round++) {
        LExpr *next = simp_expr(&S, cur);
        if (next == cur)
            break;
        cur = next;
    }
    free(S.env);
    return cur;
}
