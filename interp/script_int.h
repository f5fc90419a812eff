/*
 * script_int.h - declarations shared by the files that run top-level
 * statements (exec.c, value.c, builtins.c) and by nothing else.  The
 * public side is the "Scripts" section of interp.h.
 */
#ifndef TL_SCRIPT_INT_H
#define TL_SCRIPT_INT_H

#include "interp/interp.h"

/* One bound top-level name. */
typedef struct ItpBinding {
    char *name;             /* owned */
    const TlLet *let;       /* its definition, NULL when made otherwise */
    TlValue v;
    TlTensor *t0;           /* v as a tensor, made when a kernel reads a
                             * scalar name as a rank-0 tensor */
} ItpBinding;

/* The value of a reduction variable while a top-level reduction runs. */
typedef struct ItpRvar {
    const TlVar *var;
    int64_t val;
} ItpRvar;

struct TlInterp {
    TlSession *s;
    FILE *out;                  /* where print and time write */
    TlRuntime rt;               /* ctx = this interpreter */
    ItpBinding *bind;           /* in order of binding */
    int nbind, bind_cap;
    const char *target;         /* from `target T`; NULL: interpreter */
    TlLoc target_loc;
    ItpRvar *rvars;             /* innermost last */
    int nrvars, rvar_cap;
    const TlLet **busy;         /* lets being computed by itp_let_value */
    int nbusy, busy_cap;
};

/* ====================================================================
 * value.c: bindings and scalar arithmetic
 * ==================================================================== */

/* The binding of let (exact definition), or the latest of name. */
TL_INTERNAL ItpBinding *itp_find_let(TlInterp *ip, const TlLet *let);
/* literal.c: v, the value of declared let l, made the tensor it writes
 * when it is a tensor literal (a list, or a string for a str scalar:
 * SPEC 11.1); 0, or -1 when the tensor cannot be made. */
TL_INTERNAL int itp_literal_tensor(TlValue *v, const TlLet *l);
TL_INTERNAL ItpBinding *itp_find_name(TlInterp *ip, const char *name);
/* Binds name (defined by let, may be NULL) to v, taking v over.  An
 * earlier binding of the name is dropped unless a kernel may still read
 * it as a constant (its let has a FN_CONST). */
TL_INTERNAL void itp_bind(TlInterp *ip, const char *name, const TlLet *let,
                          TlValue v);
TL_INTERNAL void itp_bindings_free(TlInterp *ip);

/* The dtype two operands are brought to (SPEC 8.2). */
TL_INTERNAL TlDType itp_promote(TlDType a, TlDType b);
/* The scalar operations below are the kernels' (eval_scalar.c:
 * itp_cast, itp_binary, itp_unary, ...) on VAL_NUM values, so a scalar
 * computes the same at the top level and in a kernel. */
/* v (a VAL_NUM) converted to dtype `to` by the language's casts. */
TL_INTERNAL TlValue itp_num_cast(const TlValue *v, TlDType to);
/* a op b computed in dtype dt (the operands are cast to it first), by
 * SPEC 8.5: integers wrap, `/` floors, `%` takes the divisor's sign,
 * integer division by zero gives 0; floats are computed in f64 and
 * rounded to dt.  Comparisons and && || give bool. */
TL_INTERNAL TlValue itp_num_binary(TlOp op, TlDType dt, const TlValue *a,
                                   const TlValue *b);
/* -a or !a in dtype dt. */
TL_INTERNAL TlValue itp_num_unary(TlOp op, TlDType dt, const TlValue *a);
/* The element-wise builtins on scalars, cast to dt first (select is
 * done by the caller, which evaluates only one side). */
TL_INTERNAL TlValue itp_num_builtin(TlBuiltinId id, TlDType dt,
                                    const TlValue *args, int n);
/* Shortest text that reads back as v at its dtype's precision, as
 * messages show numbers ("1.2345678", "1.0", "3" for integers, "nan"). */
TL_INTERNAL void itp_num_text(TlBuf *out, TlDType dt, double v);

/* ====================================================================
 * builtins.c: rand, zeros, ..., load, save, allclose, shape
 * ==================================================================== */

/* Evaluates the call e of top-level builtin b (b->top_level) into
 * *out; 0, or -1 after reporting. */
TL_INTERNAL int itp_builtin_call(TlInterp *ip, TlExpr *e, const TlBuiltin *b,
                                 TlValue *out);
/* Evaluates the assertion `allclose(...)` written as e.  Returns 0 when
 * it holds; 1 when not, with the failure's text appended to out:
 * "allclose(C, D): worst at [3, 17]: 1.2345678 vs 1.2346912 (|diff|
 * 1.2e-4 > atol + rtol*|b| = 1.3e-5)"; -1 after reporting an error. */
TL_INTERNAL int itp_assert_allclose(TlInterp *ip, TlExpr *e, TlBuf *out);

/* ====================================================================
 * exec.c: helpers for builtins.c
 * ==================================================================== */

/* Evaluates e, which the checker made an integer scalar (of any
 * integer dtype): 0 with *v, or -1 after reporting. */
TL_INTERNAL int itp_eval_int(TlInterp *ip, TlExpr *e, int64_t *v);

#endif
