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
