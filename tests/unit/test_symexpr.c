/*
 * test_symexpr.c - unit tests of the symbolic size expressions
 * (lang/symexpr.c): normal form, folding, opaque atoms, proofs,
 * substitution, evaluation and printing.  Exit status 0 on success;
 * each failed check prints its line and what it saw.
 */
#include "lang/lang_int.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

static TlArena A;

/* Checks that e prints as want. */
#define PRINTS(e, want) prints(__LINE__, (e), (want))

static void prints(int line, const TlSymExpr *e, const char *want)
{
    check_str_at(__FILE__, line, sym_str(&A, e), want);
}

static TlVar vars[8];

static TlVar *mkvar(int i, const char *name, TlVarKind kind)
{
    vars[i].ref = REF_VAR;
    vars[i].kind = kind;
    vars[i].name = name;
    vars[i].id = i + 1;
    return &vars[i];
}

static TlSymExpr *K(int64_t c) { return sym_const(&A, c); }
static TlSymExpr *add(const TlSymExpr *x, const TlSymExpr *y)
{
    return sym_add(&A, x, y);
}
static TlSymExpr *sub(const TlSymExpr *x, const TlSymExpr *y)
{
    return sym_sub(&A, x, y);
}

/* Values for evaluation: H = 10, W = 7, pad = 1, R = 3, stride = 2. */
static int lookup(void *ctx, const TlVar *v, int64_t *out)
{
    static const int64_t val[] = {10, 7, 1, 3, 2, 5};
    (void)ctx;
    if (v < vars || v >= vars + 6)
        return -1;
    *out = val[v - vars];
    return 0;
}

static TlSymExpr *map_h(void *ctx, TlVar *v)
{
    /* H -> 2*W, everything else kept */
    (void)ctx;
    if (v == &vars[0])
        return sym_scale(&A, sym_var(&A, &vars[1]), 2);
    return sym_var(&A, v);
}

static int is_w(void *ctx, const TlVar *v)
{
    (void)ctx;
    return v == &vars[1];
}

int main(void)
{
    TlVar *vh, *vw, *vpad, *vr, *vstride, *vi;
    TlSymExpr *H, *W, *pad, *R, *stride, *i, *e, *f;
    int64_t v;

    arena_init(&A);
    vh = mkvar(0, "H", VAR_SIZE);
    vw = mkvar(1, "W", VAR_SIZE);
    vpad = mkvar(2, "pad", VAR_SCALAR);
    vr = mkvar(3, "R", VAR_SIZE);
    vstride = mkvar(4, "stride", VAR_SCALAR);
    vi = mkvar(5, "i", VAR_INDEX);
    H = sym_var(&A, vh);
    W = sym_var(&A, vw);
    pad = sym_var(&A, vpad);
    R = sym_var(&A, vr);
    stride = sym_var(&A, vstride);
    i = sym_var(&A, vi);

    /* --- linear normal form and printing --- */
    PRINTS(sub(H, K(2)), "H - 2");
    PRINTS(K(-5), "-5");
    PRINTS(sub(K(2), H), "2 - H");
    PRINTS(sym_scale(&A, H, -1), "-H");
    PRINTS(add(sym_scale(&A, pad, 2), sub(H, R)), "H + 2*pad - R");
    e = sym_addc(&A, sym_div(&A, add(H, sub(sym_scale(&A, pad, 2), R)),
                             stride), 1);
    PRINTS(e, "(H + 2*pad - R) / stride + 1");
    CHECK(sym_equal(sub(add(H, K(1)), add(H, K(1))), K(0)));
    CHECK(sym_equal(add(H, W), add(W, H)));
    CHECK(sym_cmp(add(H, W), add(H, sym_scale(&A, W, 2))) != 0);
    CHECK(tl_sym_const(sub(add(H, K(3)), H), &v) && v == 3);
    CHECK(!tl_sym_const(H, NULL));

    /* --- division and modulo --- */
    CHECK(tl_sym_const(sym_div(&A, K(-7), K(2)), &v) && v == -4);
    CHECK(tl_sym_const(sym_mod(&A, K(-7), K(2)), &v) && v == 1);
    CHECK(tl_sym_const(sym_mod(&A, K(7), K(-2)), &v) && v == -1);
    CHECK(tl_sym_const(sym_div(&A, K(7), K(-2)), &v) && v == -4);
    CHECK(sym_div(&A, H, K(0)) == NULL);
    PRINTS(sym_div(&A, add(sym_scale(&A, H, 2), K(4)), K(2)), "H + 2");
    PRINTS(sym_div(&A, add(sym_scale(&A, H, 2), K(1)), K(2)), "H");
    PRINTS(sym_div(&A, add(sym_scale(&A, H, 3), K(1)), K(2)),
           "(3*H + 1) / 2");
    PRINTS(sym_div(&A, H, K(1)), "H");
    PRINTS(sym_mod(&A, add(sym_scale(&A, H, 4), K(6)), K(4)), "2");
    PRINTS(sym_mod(&A, add(sym_scale(&A, H, 5), K(6)), K(4)),
           "(H + 2) % 4");
    PRINTS(sym_scale(&A, sym_div(&A, sub(H, K(1)), K(2)), 2),
           "2*((H - 1) / 2)");

    /* --- products --- */
    PRINTS(sym_mul(&A, H, K(3)), "3*H");
    CHECK(sym_equal(sym_mul(&A, sym_scale(&A, H, 2), W),
                    sym_mul(&A, H, sym_scale(&A, W, 2))));
    PRINTS(sym_mul(&A, sym_scale(&A, H, 2), W), "2*H*W");
    PRINTS(sym_mul(&A, add(H, K(1)), W), "(H + 1)*W");

    /* --- min and max --- */
    PRINTS(sym_min(&A, H, add(H, K(2))), "H");
    PRINTS(sym_max(&A, sub(H, K(1)), H), "H");
    PRINTS(sym_min(&A, W, H), "min(H, W)");
    CHECK(sym_equal(sym_min(&A, W, H), sym_min(&A, H, W)));
    PRINTS(sym_max(&A, H, K(0)), "H");      /* sizes are >= 0 */

    /* --- proofs --- */
    CHECK(sym_prove_le(sub(H, K(2)), H));
    CHECK(!sym_prove_le(H, sub(H, K(2))));
    CHECK(sym_prove_lt(sub(H, K(1)), H));
    CHECK(!sym_prove_le(H, W));
    CHECK(!sym_prove_le(W, H));
    CHECK(sym_prove_le(sym_min(&A, H, W), H));
    CHECK(sym_prove_le(H, sym_max(&A, H, W)));
    CHECK(!sym_prove_le(sym_max(&A, H, W), H));
    CHECK(sym_prove_nonneg(H));
    CHECK(!sym_prove_nonneg(sub(H, K(1))));
    CHECK(!sym_prove_nonneg(pad));          /* scalars have no sign */
    CHECK(sym_prove_le(sym_mod(&A, i, K(4)), K(3)));
    CHECK(sym_prove_nonneg(sym_mod(&A, i, K(4))));
    CHECK(sym_prove_eq(add(H, W), add(W, H)));
    CHECK(sym_prove_ne(H, add(H, K(1))));
    CHECK(!sym_prove_ne(H, W));
    CHECK(!sym_prove_le(NULL, H));

    /* --- inspection and substitution --- */
    e = add(sym_scale(&A, i, 3), sub(H, K(1)));
    CHECK(sym_coef(e, vi) == 3);
    CHECK(sym_coef(e, vw) == 0);
    PRINTS(sym_drop(&A, e, vi), "H - 1");
    f = sym_subst(&A, sub(H, K(2)), map_h, NULL);
    PRINTS(f, "2*W - 2");
    CHECK(sym_mentions(f, is_w, NULL));
    CHECK(!sym_mentions(sub(H, K(2)), is_w, NULL));
    CHECK(sym_mentions(sym_min(&A, H, W), is_w, NULL));
    /* Substitution folds what becomes constant. */
    f = sym_subst(&A, sym_div(&A, H, K(2)), map_h, NULL);
    PRINTS(f, "W");

    /* --- evaluation --- */
    e = sym_addc(&A, sym_div(&A, add(H, sub(sym_scale(&A, pad, 2), R)),
                             stride), 1);
    CHECK(tl_sym_eval(e, lookup, NULL, &v) == 0 && v == 5);
    CHECK(tl_sym_eval(sym_mod(&A, sub(K(0), H), W), lookup, NULL, &v) == 0
          && v == 4);                       /* -10 mod 7 */
    CHECK(tl_sym_eval(sym_min(&A, H, W), lookup, NULL, &v) == 0 && v == 7);
    CHECK(tl_sym_eval(H, NULL, NULL, &v) < 0);
    CHECK(tl_sym_eval(NULL, lookup, NULL, &v) < 0);
    CHECK(tl_sym_eval(sym_div(&A, H, sub(W, W)), lookup, NULL, &v) < 0);

    /* --- conditions and select (shapes, SPEC 9) --- */
    PRINTS(sym_lt(&A, H, add(H, K(1))), "1");    /* proven */
    PRINTS(sym_lt(&A, add(H, K(1)), H), "0");
    PRINTS(sym_eq(&A, add(H, W), add(W, H)), "1");
    e = sym_sel(&A, sym_eq(&A, pad, K(0)), H, W);
    PRINTS(e, "select(pad == 0, H, W)");
    CHECK(tl_sym_eval(e, lookup, NULL, &v) == 0 && v == 7);  /* pad 1 */
    CHECK(tl_sym_eval(sym_sel(&A, sym_lt(&A, pad, R), H, W), lookup, NULL,
                      &v) == 0 && v == 10);
    PRINTS(sym_sel(&A, K(1), H, W), "H");
    PRINTS(sym_sel(&A, sym_lt(&A, pad, R), H, H), "H");
    PRINTS(sym_add(&A, K(1), sym_scale(&A, sym_lt(&A, pad, R), 2)),
           "2*(pad < R) + 1");
    /* Only the side chosen is evaluated: the other divides by zero. */
    CHECK(tl_sym_eval(sym_sel(&A, sym_eq(&A, pad, K(1)), H,
                              sym_div(&A, H, sub(W, K(7)))),
                      lookup, NULL, &v) == 0 && v == 10);
    CHECK(sym_mentions(e, is_w, NULL));
    f = sym_subst(&A, sym_sel(&A, sym_lt(&A, H, W), H, W), map_h, NULL);
    PRINTS(f, "W");                          /* 2*W < W is false */
    /* Both sides of a select at least 0: the select is. */
    CHECK(sym_prove_nonneg(e));
    CHECK(!sym_prove_nonneg(sym_sel(&A, sym_lt(&A, pad, R), H, K(-1))));

    /* --- overflow gives "unknown" --- */
    CHECK(sym_addc(&A, K(INT64_MAX), 1) == NULL);
    CHECK(sym_scale(&A, H, INT64_MAX) != NULL);
    CHECK(sym_scale(&A, sym_scale(&A, H, INT64_MAX), 2) == NULL);
    CHECK(sym_add(&A, NULL, H) == NULL);
    PRINTS(NULL, "?");

    arena_free(&A);
    return check_done();
}
