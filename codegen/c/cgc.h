/*
 * cgc.h - the C backend's internal interface: lowering a checked
 * kernel to a loop-IR function (codegen/lower.c) with a description of
 * each of its parameters, C emission (emit.c), compiling and loading
 * (jit.c), and the `cpu` runner (target.c).  Only codegen/ uses it.
 */
#ifndef TL_CGC_H
#define TL_CGC_H

#include "codegen/codegen.h"

/* What the runner passes for each parameter of a lowered kernel. */
typedef enum {
    CGP_BUF,        /* data pointer of tensor `f` */
    CGP_EXTENT,     /* i64: extent of `f` on `axis` */
    CGP_STRIDE,     /* i64: stride (in elements) of `f` on `axis` */
    CGP_SIZE,       /* i32: the size variable `var` */
    CGP_SCALAR,     /* i64 or f64: scalar `var`, already converted */
    CGP_GIVEN,      /* bool: scalar `var` was passed */
    CGP_ERR         /* i32 *: set to 1 when a checked read is out of
                     * range (the runner then reports it) */
} CgParamKind;

typedef struct CgParam {
    CgParamKind kind;
    TlFunc *f;
    int axis;
    TlVar *var;
} CgParam;

/* A kernel lowered for the cpu: fn's parameters correspond one to one
 * to params. */
typedef struct CgKernel {
    LFunc *fn;
    CgParam *params;
    int nparams;
} CgKernel;

/* lower.c: the kernel with its cpu schedule (default when none), or
 * NULL after reporting why it cannot be compiled yet. */
TL_INTERNAL CgKernel *cg_lower_kernel(TlSession *s, TlKernelInfo *k);

/* sched_apply.c: reports every directive of k's cpu schedule that the
 * backend does not apply yet; returns the number reported. */
TL_INTERNAL int cg_sched_check(TlSession *s, TlKernelInfo *k);

/* emit.c: appends a C99 translation unit for f, with an entry point
 * `void tdsl_entry(void *const *args)` taking a pointer per parameter
 * (to the value for scalars, the data pointer itself for buffers). */
TL_INTERNAL void cgc_emit(TlBuf *out, const LFunc *f);

/* jit.c: compiles the C source (or finds it in the cache) and returns
 * its tdsl_entry, or NULL after reporting an error at loc. */
typedef void (*CgEntry)(void *const *args);
TL_INTERNAL CgEntry cgc_jit(TlSession *s, const char *src, TlLoc loc);

#endif
