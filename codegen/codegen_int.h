/*
 * codegen_int.h - declarations shared between the files of codegen/
 * and nowhere else, grouped by the file that defines them.  Everything
 * here is hidden from the shared library (TL_INTERNAL).
 */
#ifndef TL_CODEGEN_INT_H
#define TL_CODEGEN_INT_H

#include "codegen/codegen.h"

/* ====================================================================
 * lir.c - tables and facts about types and names
 * ==================================================================== */

/* Binding strength of op in the text form (LIR_OPS), and its class
 * ('A', 'C' or 'L'). */
TL_INTERNAL int lir_op_prec(LOp op);
TL_INTERNAL int lir_op_class(LOp op);
/* Whether op is unary (LO_NEG, LO_NOT). */
TL_INTERNAL int lir_op_unary(LOp op);
/* Whether fn also applies to integers. */
TL_INTERNAL int lir_call_ints(LCall fn);

/* v rounded to float dtype dt (ties to even, overflow to inf). */
TL_INTERNAL double lir_round_float(TlDType dt, double v);
/* v reduced to integer dtype dt or bool by two's complement wrap
 * (bool: v != 0). */
TL_INTERNAL int64_t lir_wrap_int(TlDType dt, int64_t v);
/* Whether v is a value of integer dtype dt (bool: 0 or 1). */
TL_INTERNAL int lir_int_fits(TlDType dt, int64_t v);
/* The smallest and largest value of integer dtype dt (u64's largest
 * as its bits, -1: u64 values are held in int64_t as their bits). */
TL_INTERNAL int64_t lir_int_min(TlDType dt);
TL_INTERNAL int64_t lir_int_max(TlDType dt);

/* Whether name can be written without `$`: plain name syntax and not
 * a keyword of the text form. */
TL_INTERNAL int lir_name_is_plain(const char *name);
/* Whether name has the syntax of a name (possibly a keyword), so that
 * it can be written at all (with `$` if need be). */
TL_INTERNAL int lir_name_is_valid(const char *name);
/* Whether the n bytes at s are a keyword of the text form. */
TL_INTERNAL int lir_is_keyword(const char *s, size_t n);

/* ====================================================================
 * lir_print.c
 * ==================================================================== */

/* Appends a name as the text form writes it (with `$` if a keyword). */
TL_INTERNAL void lir_print_name(TlBuf *out, const char *name);
/* Appends the head of a statement on one line, without its body
 * (`for i in 0 .. n`, `if x < 3`, `A[i] = x`), for messages. */
TL_INTERNAL void lir_print_head(TlBuf *out, const LStmt *st);

/* ====================================================================
 * lir_access.c - memory accesses as affine index forms (for the loop
 * passes)
 * ==================================================================== */

enum { LIR_LIN_TERMS = 32, LIR_ACC_MAX = 256, LIR_OUTER_MAX = 512 };

/* One term of an index form: coef * z, z a variable with a range
 * (lo..hi inclusive; key names it) or an invariant atom. */
typedef struct LTerm {
    const void *key;
    const LExpr *atom;
    int64_t coef, lo, hi;
} LTerm;

/* An index: the sum of the terms plus k. */
typedef struct LLin {
    LTerm t[LIR_LIN_TERMS];
    int n;
    int64_t k;
} LLin;

/* What the forms are about: the function, its lets defined once (read
 * through), and the loop being fused (v over vlo..vhi). */
typedef struct LAccCtx {
    TlSession *s;
    const LFunc *f;
    const LStmt *outer[LIR_OUTER_MAX];
    int nouter;
    const LVar *v;
    int64_t vlo, vhi;
    int lane;                       /* numbers the lanes of ramps */
    int lane_keys[LIR_ACC_MAX * 2];
} LAccCtx;

/* One load or store; ok when idx holds its index. */
typedef struct LAcc {
    const LVar *buf;
    int write;
    LLin idx;
    int ok;
} LAcc;

/* The accesses of a statement; over when there were too many. */
typedef struct LAccs {
    LAcc a[LIR_ACC_MAX];
    int n, over;
} LAccs;

/* Prepares c for f's statements. */
TL_INTERNAL void lir_access_init(TlSession *s, LAccCtx *c, const LFunc *f);
/* Makes loop the one whose variable the forms single out. */
TL_INTERNAL void lir_access_loop(LAccCtx *c, const LStmt *loop);
/* The accesses of st, in as. */
TL_INTERNAL void lir_accesses(LAccCtx *c, LAccs *as, const LStmt *st);
/* Whether buffers a and b may be one memory. */
TL_INTERNAL int lir_access_same_mem(const LAccCtx *c, const LVar *a,
                                    const LVar *b);
/* Whether statements with accesses x and y may be swapped. */
TL_INTERNAL int lir_access_commute(const LAccCtx *c, const LAccs *x,
                                   const LAccs *y);
/* Whether store index w at iteration i of c's loop and load index r at
 * iteration j may be one element for some i > j (1 when unsure). */
TL_INTERNAL int lir_access_may_meet(const LAccCtx *c, const LLin *w,
                                    const LLin *r);

/* ====================================================================
 * lir_guard.c - guards of loops as linear constraints (for the loop
 * passes)
 * ==================================================================== */

enum { LIR_GUARD_MAX = 32 };

/* The guard of a loop: the `if` (no else) its body reaches through
 * inner loops (outermost first) and blocks of lets alone. */
typedef struct LGuard {
    const LStmt *inner[LIR_GUARD_MAX];
    int ninner;
    const LStmt *lets[LIR_GUARD_MAX];
    int nlets;
    const LStmt *ifst;
} LGuard;

/* What one term of a guard says about the loop variable v (i64
 * bounds; NULL: unbounded on that side): it holds for every inner
 * iteration when sure_lo <= v < sure_hi, for some when maybe_lo <= v <
 * maybe_hi; inner is set when the inner loop variables matter (else
 * the ranges agree). */
typedef struct LTermRange {
    LExpr *sure_lo, *sure_hi, *maybe_lo, *maybe_hi;
    int inner;
} LTermRange;

/* Fills g for loop; -1 when the loop has no guard of that shape. */
TL_INTERNAL int lir_find_guard(const LStmt *loop, LGuard *g);
/* e with the guard path's lets substituted. */
TL_INTERNAL LExpr *lir_guard_subst(TlSession *s, const LGuard *g,
                                   LExpr *e);
/* The terms of a conjunction (at most max), or -1. */
TL_INTERNAL int lir_conjuncts(LExpr *cond, LExpr **terms, int max);
/* The range of loop's variable where term t (with the lets
 * substituted) holds; -1 when t is not a linear comparison of signed
 * integers in v with constant coefficients. */
TL_INTERNAL int lir_term_range(TlSession *s, LExpr *t, const LStmt *loop,
                               const LGuard *g, LTermRange *r);
/* loop's body with the guard's condition made of terms[i] where
 * keep[i] (none kept: the `if` becomes its body). */
TL_INTERNAL LStmt *lir_guard_replace(TlSession *s, const LStmt *loop,
                                     const LGuard *g, const int *keep,
                                     LExpr *const *terms, int nterms);
/* A name "base.__pN" used nowhere in f, N from ++*k on (a pass keeps
 * one counter, so that the names it adds differ too). */
TL_INTERNAL const char *lir_fresh_name(TlSession *s, const LFunc *f,
                                       const char *base, int *k);

#endif
