/*
 * symexpr.c - symbolic integer expressions: the normal form the checker
 * uses for sizes, domains and affine indices (see lang.h, "symbolic
 * integer expressions").
 *
 * An expression is c + sum(coef * atom), terms sorted by atom and never
 * zero, so structural equality is value equality for the linear part.
 * Anything non-linear (division, modulo, min, max, products of unknowns)
 * becomes an opaque atom over canonical operands.  Arithmetic that
 * overflows int64 yields NULL ("unknown"), and every function accepts
 * NULL and passes it on.  Proofs (sym_prove_*) are sound and
 * incomplete: "not proven" says nothing.
 */
#include "lang/lang_int.h"

#include <string.h>

/* ====================================================================
 * Construction
 * ==================================================================== */

static TlSymExpr *new_expr(TlArena *a, int n)
{
    TlSymExpr *e = arena_alloc(a, sizeof *e + (size_t)n * sizeof e->t[0]);
    e->n = n;
    return e;
}

TlSymExpr *sym_const(TlArena *a, int64_t c)
{
    TlSymExpr *e = new_expr(a, 0);
    e->c = c;
    return e;
}

static TlSymExpr *atom_expr(TlArena *a, const TlSymAtom *at, int64_t coef)
{
    TlSymExpr *e = new_expr(a, 1);
    e->t[0].coef = coef;
    e->t[0].atom = at;
    return e;
}

TlSymExpr *sym_var(TlArena *a, TlVar *v)
{
    TlSymAtom *at = arena_alloc(a, sizeof *at);
    at->kind = SYM_VAR;
    at->var = v;
    return atom_expr(a, at, 1);
}

int tl_sym_const(const TlSymExpr *e, int64_t *c)
{
    if (!e || e->n)
        return 0;
    if (c)
        *c = e->c;
    return 1;
}

/* ====================================================================
 * Order: a total order on atoms and expressions, used to sort terms
 * and operands of commutative atoms, and as equality.
 * ==================================================================== */

static int cmp_i64(int64_t x, int64_t y)
{
    return x < y ? -1 : x > y;
}

static int cmp_var(const TlVar *x, const TlVar *y)
{
    int r;

    if (x == y)
        return 0;
    if ((r = cmp_i64(x->id, y->id)))
        return r;
    if ((r = strcmp(x->name ? x->name : "", y->name ? y->name : "")))
        return r < 0 ? -1 : 1;
    return (uintptr_t)x < (uintptr_t)y ? -1 : 1;
}

static int cmp_atom(const TlSymAtom *x, const TlSymAtom *y)
{
    int r;

    if (x == y)
        return 0;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->kind == SYM_VAR)
        return cmp_var(x->var, y->var);
    if ((r = sym_cmp(x->a, y->a)))
        return r;
    if ((r = sym_cmp(x->b, y->b)))
        return r;
    return x->kind == SYM_SEL ? sym_cmp(x->c, y->c) : 0;
}

int sym_cmp(const TlSymExpr *x, const TlSymExpr *y)
{
    int r;

    if (x == y)
        return 0;
    if (!x || !y)
        return !x ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    for (int i = 0; i < x->n; i++) {
        if ((r = cmp_atom(x->t[i].atom, y->t[i].atom)))
            return r;
        if ((r = cmp_i64(x->t[i].coef, y->t[i].coef)))
            return r;
    }
    return cmp_i64(x->c, y->c);
}

int sym_equal(const TlSymExpr *x, const TlSymExpr *y)
{
    return x && y && sym_cmp(x, y) == 0;
}

/* ====================================================================
 * Linear arithmetic
 * ==================================================================== */

/* x*kx + y*ky, merging the sorted term lists; NULL on overflow. */
static TlSymExpr *combine(TlArena *a, const TlSymExpr *x, int64_t kx,
                          const TlSymExpr *y, int64_t ky)
{
    TlSymExpr *e;
    int i = 0, j = 0, n = 0;
    int64_t cx, cy;

    if (!x || !y)
        return NULL;
    e = new_expr(a, x->n + y->n);
    if (__builtin_mul_overflow(x->c, kx, &cx) ||
        __builtin_mul_overflow(y->c, ky, &cy) ||
        __builtin_add_overflow(cx, cy, &e->c))
        return NULL;
    while (i < x->n || j < y->n) {
        int r = i == x->n ? 1 : j == y->n ? -1
                : cmp_atom(x->t[i].atom, y->t[j].atom);
        int64_t c = 0, t;
        const TlSymAtom *at;
        if (r <= 0) {
            if (__builtin_mul_overflow(x->t[i].coef, kx, &c))
                return NULL;
            at = x->t[i++].atom;
        } else {
            at = y->t[j].atom;
        }
        if (r >= 0) {
            if (__builtin_mul_overflow(y->t[j++].coef, ky, &t) ||
                __builtin_add_overflow(c, t, &c))
                return NULL;
        }
        if (c) {
            e->t[n].coef = c;
            e->t[n].atom = at;
            n++;
        }
    }
    e->n = n;
    return e;
}

TlSymExpr *sym_add(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    return combine(a, x, 1, y, 1);
}

TlSymExpr *sym_sub(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    return combine(a, x, 1, y, -1);
}

TlSymExpr *sym_scale(TlArena *a, const TlSymExpr *x, int64_t k)
{
    static const TlSymExpr zero = {0, 0};
    return combine(a, x, k, &zero, 0);
}

TlSymExpr *sym_addc(TlArena *a, const TlSymExpr *x, int64_t c)
{
    TlSymExpr k = {c, 0};
    return combine(a, x, 1, &k, 1);
}

/* ====================================================================
 * Opaque operations
 * ==================================================================== */

static TlSymExpr *opaque(TlArena *a, TlSymAtomKind kind,
                         const TlSymExpr *x, const TlSymExpr *y)
{
    TlSymAtom *at = arena_alloc(a, sizeof *at);
    at->kind = kind;
    at->a = x;
    at->b = y;
    return atom_expr(a, at, 1);
}

TlSymExpr *sym_mul(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    int64_t k;

    if (!x || !y)
        return NULL;
    if (tl_sym_const(x, &k))
        return sym_scale(a, y, k);
    if (tl_sym_const(y, &k))
        return sym_scale(a, x, k);
    /* Pull a common coefficient out of single-term operands, so that
     * (2*H)*W and H*(2*W) meet as 2*(H*W). */
    k = 1;
    if (x->n == 1 && x->c == 0 && x->t[0].coef != 1) {
        k = x->t[0].coef;
        x = atom_expr(a, x->t[0].atom, 1);
    }
    if (y->n == 1 && y->c == 0 && y->t[0].coef != 1) {
        if (__builtin_mul_overflow(k, y->t[0].coef, &k))
            return NULL;
        y = atom_expr(a, y->t[0].atom, 1);
    }
    if (sym_cmp(x, y) > 0) {
        const TlSymExpr *t = x;
        x = y;
        y = t;
    }
    return sym_scale(a, opaque(a, SYM_MUL, x, y), k);
}

TlSymExpr *sym_div(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    int64_t k, c;

    if (!x || !y)
        return NULL;
    if (!tl_sym_const(y, &k))
        return opaque(a, SYM_DIV, x, y);
    if (k == 0)
        return NULL;
    if (k < 0) {
        /* floor(x / -m) == floor(-x / m) */
        if (k == INT64_MIN)
            return NULL;
        x = sym_scale(a, x, -1);
        k = -k;
        if (!x)
            return NULL;
    }
    if (k == 1)
        return (TlSymExpr *)x;
    if (tl_sym_const(x, &c))
        return sym_const(a, tl_floor_div(c, k));
    /* When k divides every coefficient, floor((k*q + c) / k) is
     * q + floor(c / k) exactly. */
    for (int i = 0; i < x->n; i++)
        if (x->t[i].coef % k)
            return opaque(a, SYM_DIV, x, sym_const(a, k));
    {
        TlSymExpr *e = new_expr(a, x->n);
        for (int i = 0; i < x->n; i++) {
            e->t[i].coef = x->t[i].coef / k;
            e->t[i].atom = x->t[i].atom;
        }
        e->c = tl_floor_div(x->c, k);
        return e;
    }
}

TlSymExpr *sym_mod(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    int64_t k, c;
    TlSymExpr *r;
    int n = 0;

    if (!x || !y)
        return NULL;
    if (!tl_sym_const(y, &k))
        return opaque(a, SYM_MOD, x, y);
    if (k == 0)
        return NULL;
    if (tl_sym_const(x, &c))
        return k == -1 ? sym_const(a, 0) : sym_const(a, tl_floor_mod(c, k));
    if (k < 0)
        return opaque(a, SYM_MOD, x, y);
    /* Reduce coefficients and constant modulo k; terms that vanish
     * are multiples of k and do not change the result. */
    r = new_expr(a, x->n);
    for (int i = 0; i < x->n; i++) {
        int64_t m = tl_floor_mod(x->t[i].coef, k);
        if (m) {
            r->t[n].coef = m;
            r->t[n].atom = x->t[i].atom;
            n++;
        }
    }
    r->n = n;
    r->c = tl_floor_mod(x->c, k);
    if (n == 0)
        return r;
    return opaque(a, SYM_MOD, r, y);
}

static TlSymExpr *minmax(TlArena *a, TlSymAtomKind kind,
                         const TlSymExpr *x, const TlSymExpr *y)
{
    TlSymExpr *d;
    int64_t c;

    if (!x || !y)
        return NULL;
    d = sym_sub(a, x, y);
    if (tl_sym_const(d, &c))
        return (TlSymExpr *)((c <= 0) == (kind == SYM_MIN) ? x : y);
    if (sym_prove_nonneg(d))        /* x >= y */
        return (TlSymExpr *)(kind == SYM_MIN ? y : x);
    if (d && sym_prove_nonneg(sym_scale(a, d, -1)))   /* x <= y */
        return (TlSymExpr *)(kind == SYM_MIN ? x : y);
    if (sym_cmp(x, y) > 0) {
        const TlSymExpr *t = x;
        x = y;
        y = t;
    }
    return opaque(a, kind, x, y);
}

TlSymExpr *sym_min(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    return minmax(a, SYM_MIN, x, y);
}

TlSymExpr *sym_max(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    return minmax(a, SYM_MAX, x, y);
}

TlSymExpr *sym_lt(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    if (!x || !y)
        return NULL;
    if (sym_prove_lt(x, y))
        return sym_const(a, 1);
    if (sym_prove_le(y, x))
        return sym_const(a, 0);
    return opaque(a, SYM_LT, x, y);
}

TlSymExpr *sym_eq(TlArena *a, const TlSymExpr *x, const TlSymExpr *y)
{
    if (!x || !y)
        return NULL;
    if (sym_equal(x, y))
        return sym_const(a, 1);
    if (sym_prove_ne(x, y))
        return sym_const(a, 0);
    if (sym_cmp(x, y) > 0) {
        const TlSymExpr *t = x;
        x = y;
        y = t;
    }
    return opaque(a, SYM_EQ, x, y);
}

TlSymExpr *sym_sel(TlArena *a, const TlSymExpr *c, const TlSymExpr *x,
                   const TlSymExpr *y)
{
    TlSymExpr *e;
    int64_t k;

    if (!c || !x || !y)
        return NULL;
    if (tl_sym_const(c, &k))
        return (TlSymExpr *)(k ? x : y);
    if (sym_equal(x, y))
        return (TlSymExpr *)x;
    e = opaque(a, SYM_SEL, x, y);
    ((TlSymAtom *)e->t[0].atom)->c = c;
    return e;
}

/* ====================================================================
 * Proofs
 * ==================================================================== */

/* Bounds of an atom's value that hold for every valid program: sizes
 * are >= 0, x mod k (k > 0) is in [0, k-1], and so on.  Sets *lo or
 * *hi and returns which are known (bit 1: lo, bit 2: hi). */
static int atom_range(const TlSymAtom *at, int64_t *lo, int64_t *hi)
{
    int64_t k;

    switch (at->kind) {
    case SYM_VAR:
        if (at->var && at->var->kind == VAR_SIZE) {
            *lo = 0;
            return 1;
        }
        return 0;
    case SYM_MOD:
        if (tl_sym_const(at->b, &k) && k > 0) {
            *lo = 0;
            *hi = k - 1;
            return 3;
        }
        return 0;
    case SYM_DIV:
        if (tl_sym_const(at->b, &k) && k > 0 && sym_prove_nonneg(at->a)) {
            *lo = 0;
            return 1;
        }
        return 0;
    case SYM_MUL:
        if (sym_prove_nonneg(at->a) && sym_prove_nonneg(at->b)) {
            *lo = 0;
            return 1;
        }
        return 0;
    case SYM_LT:
    case SYM_EQ:
        *lo = 0;
        *hi = 1;
        return 3;
    default:
        return 0;
    }
}

static int prove_nonneg(const TlSymExpr *d, int depth)
{
    TlArena scratch;
    int64_t low;
    int r = -1;

    if (!d)
        return 0;
    if (d->n == 0)
        return d->c >= 0;
    if (depth > 6)
        return 0;
    /* Split on the first min/max/select atom:
     *   rest + k*min(A, B) >= 0  <=>  both rest + k*A, rest + k*B (k > 0)
     *   rest + k*max(A, B) >= 0  <=   either (k > 0)
     *   rest + k*select(C, A, B) >= 0  <=  both
     * and a negative k swaps the roles of min and max. */
    for (int i = 0; i < d->n && r < 0; i++) {
        const TlSymAtom *at = d->t[i].atom;
        int64_t k = d->t[i].coef;
        TlSymExpr *rest, *ea, *eb;
        int both;

        if (at->kind != SYM_MIN && at->kind != SYM_MAX &&
            at->kind != SYM_SEL)
            continue;
        arena_init(&scratch);
        rest = sym_sub(&scratch, d, atom_expr(&scratch, at, k));
        ea = combine(&scratch, rest, 1, at->a, k);
        eb = combine(&scratch, rest, 1, at->b, k);
        both = at->kind == SYM_SEL || (at->kind == SYM_MIN) == (k > 0);
        if (!ea || !eb)
            r = 0;
        else if (both)
            r = prove_nonneg(ea, depth + 1) && prove_nonneg(eb, depth + 1);
        else
            r = prove_nonneg(ea, depth + 1) || prove_nonneg(eb, depth + 1);
        arena_free(&scratch);
    }
    if (r >= 0)
        return r;
    /* No min/max: add up the lower bounds of the terms. */
    low = d->c;
    for (int i = 0; i < d->n; i++) {
        int64_t lo = 0, hi = 0, k = d->t[i].coef, part;
        int known = atom_range(d->t[i].atom, &lo, &hi);
        if (k > 0 && (known & 1)) {
            if (__builtin_mul_overflow(k, lo, &part))
                return 0;
        } else if (k < 0 && (known & 2)) {
            if (__builtin_mul_overflow(k, hi, &part))
                return 0;
        } else {
            return 0;
        }
        if (__builtin_add_overflow(low, part, &low))
            return 0;
    }
    return low >= 0;
}

int sym_prove_nonneg(const TlSymExpr *d)
{
    return prove_nonneg(d, 0);
}

/* The differences below are built in a scratch arena so that proofs
 * leave nothing behind. */
static int prove_diff(const TlSymExpr *x, const TlSymExpr *y, int64_t c)
{
    TlArena scratch;
    int r;

    if (!x || !y)
        return 0;
    arena_init(&scratch);
    r = prove_nonneg(sym_addc(&scratch, sym_sub(&scratch, y, x), c), 0);
    arena_free(&scratch);
    return r;
}

int sym_prove_le(const TlSymExpr *x, const TlSymExpr *y)
{
    return prove_diff(x, y, 0);
}

int sym_prove_lt(const TlSymExpr *x, const TlSymExpr *y)
{
    return prove_diff(x, y, -1);
}

int sym_prove_eq(const TlSymExpr *x, const TlSymExpr *y)
{
    return sym_equal(x, y) || (sym_prove_le(x, y) && sym_prove_le(y, x));
}

int sym_prove_ne(const TlSymExpr *x, const TlSymExpr *y)
{
    return sym_prove_lt(x, y) || sym_prove_lt(y, x);
}

/* ====================================================================
 * Inspection and substitution
 * ==================================================================== */

int64_t sym_coef(const TlSymExpr *e, const TlVar *v)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n; i++)
        if (e->t[i].atom->kind == SYM_VAR && e->t[i].atom->var == v)
            return e->t[i].coef;
    return 0;
}

TlSymExpr *sym_drop(TlArena *a, const TlSymExpr *e, const TlVar *v)
{
    TlSymExpr *r;
    int n = 0;

    if (!e)
        return NULL;
    r = new_expr(a, e->n);
    r->c = e->c;
    for (int i = 0; i < e->n; i++) {
        if (e->t[i].atom->kind == SYM_VAR && e->t[i].atom->var == v)
            continue;
        r->t[n++] = e->t[i];
    }
    r->n = n;
    return r;
}

static int atom_mentions(const TlSymAtom *at, SymVarPred pred, void *ctx)
{
    if (at->kind == SYM_VAR)
        return pred(ctx, at->var);
    return sym_mentions(at->a, pred, ctx) || sym_mentions(at->b, pred, ctx)
           || (at->kind == SYM_SEL && sym_mentions(at->c, pred, ctx));
}

int sym_mentions(const TlSymExpr *e, SymVarPred pred, void *ctx)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n; i++)
        if (atom_mentions(e->t[i].atom, pred, ctx))
            return 1;
    return 0;
}

/* Rebuilds an opaque atom from new operands through the constructors,
 * so that substituted constants fold. */
static TlSymExpr *rebuild(TlArena *a, TlSymAtomKind kind, TlSymExpr *x,
                          TlSymExpr *y, TlSymExpr *c)
{
    switch (kind) {
    case SYM_LT: return sym_lt(a, x, y);
    case SYM_EQ: return sym_eq(a, x, y);
    case SYM_SEL: return sym_sel(a, c, x, y);
    case SYM_DIV: return sym_div(a, x, y);
    case SYM_MOD: return sym_mod(a, x, y);
    case SYM_MIN: return sym_min(a, x, y);
    case SYM_MAX: return sym_max(a, x, y);
    case SYM_MUL: return sym_mul(a, x, y);
    default: return NULL;
    }
}

TlSymExpr *sym_subst(TlArena *a, const TlSymExpr *e, SymVarMap map,
                     void *ctx)
{
    TlSymExpr *r;

    if (!e)
        return NULL;
    r = sym_const(a, e->c);
    for (int i = 0; i < e->n && r; i++) {
        const TlSymAtom *at = e->t[i].atom;
        TlSymExpr *v;
        if (at->kind == SYM_VAR)
            v = map(ctx, at->var);
        else
            v = rebuild(a, at->kind, sym_subst(a, at->a, map, ctx),
                        sym_subst(a, at->b, map, ctx),
                        at->kind == SYM_SEL
                            ? sym_subst(a, at->c, map, ctx) : NULL);
        r = combine(a, r, 1, v, e->t[i].coef);
    }
    return r;
}

/* ====================================================================
 * Evaluation
 * ==================================================================== */

int tl_sym_eval(const TlSymExpr *e, TlSymLookup lookup, void *ctx,
                int64_t *out)
{
    int64_t acc;

    if (!e)
        return -1;
    acc = e->c;
    for (int i = 0; i < e->n; i++) {
        const TlSymAtom *at = e->t[i].atom;
        int64_t v, x = 0, y = 0, t;
        if (at->kind == SYM_VAR) {
            if (!lookup || lookup(ctx, at->var, &v) < 0)
                return -1;
        } else if (at->kind == SYM_SEL) {
            /* Only the side chosen is evaluated, as select does. */
            if (tl_sym_eval(at->c, lookup, ctx, &x) < 0 ||
                tl_sym_eval(x ? at->a : at->b, lookup, ctx, &v) < 0)
                return -1;
        } else {
            if (tl_sym_eval(at->a, lookup, ctx, &x) < 0 ||
                tl_sym_eval(at->b, lookup, ctx, &y) < 0)
                return -1;
            switch (at->kind) {
            case SYM_DIV:
            case SYM_MOD:
                if (y == 0 || (x == INT64_MIN && y == -1))
                    return -1;
                v = at->kind == SYM_DIV ? tl_floor_div(x, y)
                                        : tl_floor_mod(x, y);
                break;
            case SYM_MIN: v = x < y ? x : y; break;
            case SYM_MAX: v = x > y ? x : y; break;
            case SYM_LT: v = x < y; break;
            case SYM_EQ: v = x == y; break;
            default:
                if (__builtin_mul_overflow(x, y, &v))
                    return -1;
                break;
            }
        }
        if (__builtin_mul_overflow(v, e->t[i].coef, &t) ||
            __builtin_add_overflow(acc, t, &acc))
            return -1;
    }
    *out = acc;
    return 0;
}

/* ====================================================================
 * Printing
 * ==================================================================== */

/* A "simple" expression prints without parentheses anywhere: one
 * atom with coefficient 1, or a non-negative constant. */
static int simple(const TlSymExpr *e)
{
    if (!e)
        return 1;
    if (e->n == 0)
        return e->c >= 0;
    return e->n == 1 && e->c == 0 && e->t[0].coef == 1 &&
           e->t[0].atom->kind != SYM_DIV && e->t[0].atom->kind != SYM_MOD;
}

static void print_operand(TlBuf *out, const TlSymExpr *e, int parens)
{
    if (parens)
        buf_putc(out, '(');
    tl_sym_print(out, e);
    if (parens)
        buf_putc(out, ')');
}

static void print_cmp(TlBuf *out, const TlSymAtom *at)
{
    /* x == c reads better than the sorted c == x. */
    int swap = at->kind == SYM_EQ && tl_sym_const(at->a, NULL) &&
               !tl_sym_const(at->b, NULL);

    tl_sym_print(out, swap ? at->b : at->a);
    buf_puts(out, at->kind == SYM_LT ? " < " : " == ");
    tl_sym_print(out, swap ? at->a : at->b);
}

static void print_atom(TlBuf *out, const TlSymAtom *at)
{
    switch (at->kind) {
    case SYM_VAR:
        buf_puts(out, at->var && at->var->name ? at->var->name : "?");
        break;
    case SYM_DIV:
    case SYM_MOD:
        /* The left side may be a product (left-associative) but not a
         * sum; the right side must be a single name or number. */
        print_operand(out, at->a,
                      !simple(at->a) && !(at->a->n == 1 && at->a->c == 0 &&
                                          at->a->t[0].coef > 0));
        buf_puts(out, at->kind == SYM_DIV ? " / " : " % ");
        print_operand(out, at->b, !simple(at->b));
        break;
    case SYM_MUL:
        print_operand(out, at->a, !simple(at->a) &&
                      !(at->a->n == 1 && at->a->c == 0));
        buf_putc(out, '*');
        print_operand(out, at->b, !simple(at->b));
        break;
    case SYM_MIN:
    case SYM_MAX:
        buf_puts(out, at->kind == SYM_MIN ? "min(" : "max(");
        tl_sym_print(out, at->a);
        buf_puts(out, ", ");
        tl_sym_print(out, at->b);
        buf_putc(out, ')');
        break;
    case SYM_LT:
    case SYM_EQ:
        /* Parenthesized, so that no operator around it binds its
         * operands: "(p == 0)*D". */
        buf_putc(out, '(');
        print_cmp(out, at);
        buf_putc(out, ')');
        break;
    case SYM_SEL:
        buf_puts(out, "select(");
        if (at->c->n == 1 && at->c->c == 0 && at->c->t[0].coef == 1 &&
            (at->c->t[0].atom->kind == SYM_LT ||
             at->c->t[0].atom->kind == SYM_EQ))
            print_cmp(out, at->c->t[0].atom);
        else
            tl_sym_print(out, at->c);
        buf_puts(out, ", ");
        tl_sym_print(out, at->a);
        buf_puts(out, ", ");
        tl_sym_print(out, at->b);
        buf_putc(out, ')');
        break;
    }
}

/* One term; `first` says whether a sign separator is needed. */
static void print_term(TlBuf *out, const TlSymTerm *t, int first)
{
    int64_t k = t->coef;
    int wrap = t->atom->kind == SYM_DIV || t->atom->kind == SYM_MOD;
    uint64_t mag = k < 0 ? -(uint64_t)k : (uint64_t)k;

    if (first)
        buf_puts(out, k < 0 ? "-" : "");
    else
        buf_puts(out, k < 0 ? " - " : " + ");
    if (mag != 1)
        buf_printf(out, "%llu*", (unsigned long long)mag);
    else
        wrap = 0;
    if (wrap)
        buf_putc(out, '(');
    print_atom(out, t->atom);
    if (wrap)
        buf_putc(out, ')');
}

void tl_sym_print(TlBuf *out, const TlSymExpr *e)
{
    int first = 1;

    if (!e) {
        buf_putc(out, '?');
        return;
    }
    /* Positive terms first, then negative ones: "H + 2*pad - R". */
    for (int i = 0; i < e->n; i++)
        if (e->t[i].coef > 0) {
            print_term(out, &e->t[i], first);
            first = 0;
        }
    if (first && e->n && e->c > 0) {
        buf_printf(out, "%lld", (long long)e->c);
        first = 0;
        for (int i = 0; i < e->n; i++)
            print_term(out, &e->t[i], 0);
        return;
    }
    for (int i = 0; i < e->n; i++)
        if (e->t[i].coef < 0) {
            print_term(out, &e->t[i], first);
            first = 0;
        }
    if (first)
        buf_printf(out, "%lld", (long long)e->c);
    else if (e->c > 0)
        buf_printf(out, " + %lld", (long long)e->c);
    else if (e->c < 0)
        buf_printf(out, " - %llu", (unsigned long long)(-(uint64_t)e->c));
}

char *sym_str(TlArena *a, const TlSymExpr *e)
{
    TlBuf b;
    char *r;

    buf_init(&b);
    tl_sym_print(&b, e);
    r = arena_strdup(a, b.s ? b.s : "");
    buf_free(&b);
    return r;
}
