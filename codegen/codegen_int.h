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
/* The smallest and largest value of integer dtype dt. */
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

#endif
