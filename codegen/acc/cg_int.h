/*
 * cg_int.h - code generation for the accelerator (the `accel` target):
 * a kernel lowered to loop IR, with the shapes of one call, becomes a
 * TAM assembly program (docs/accel-asm.md) that the runner
 * (codegen/acc/target.c) assembles and runs on the simulator.
 * Prefix acc_cg_.  Only codegen/acc/ uses it.
 */
#ifndef TL_ACC_CG_INT_H
#define TL_ACC_CG_INT_H

#include "codegen/acc/acc.h"
#include "codegen/c/cgc.h"

/* The values of a lowered kernel's integer parameters for one call
 * (extents, strides of the packed tensors, sizes), indexed like
 * ck->params; buffers and the error flag have none. */
typedef struct AccCgCall {
    const CgKernel *ck;
    const int64_t *pval;
    int *pknown;
    /* The shapes of the call: in[k->ninputs] (packed), the output's. */
    TlKernelInfo *k;
    TlTensor *const *in;
    int out_rank;
    const int64_t *out_shape;
} AccCgCall;

/* What the program reads, in `.input` order: one per way the kernel
 * reads an input.  The element of the operand at flat position e of
 * the output is input element k + sum coef[l] * v[l], with v the loop
 * indices of e (row-major over ext[]).  `direct`: that is e itself, so
 * the input goes in as it is; otherwise (a broadcast) the runner
 * gathers it to the output's shape first (TODO(issue 6): broadcast in
 * the tree with bcast and B@ layouts instead). */
typedef struct AccCgIn {
    const char *name;       /* its `.input` name */
    int input;              /* index in k->inputs */
    int direct;
    int64_t coef[TL_MAX_RANK], k;
} AccCgIn;

typedef struct AccCgProgram {
    TlBuf text;             /* the assembly; buf_free it */
    AccCgIn *ins;           /* in s's arena */
    int nins;
    int nloops;
    int64_t ext[TL_MAX_RANK];   /* the loop nest's extents */
    int64_t nelems;         /* of the output */
} AccCgProgram;

/* Compiles an elementwise kernel (one loop nest storing a pointwise f32
 * expression of its inputs, read at the output's index or broadcast)
 * for machine m.  Returns 0, or -1 after reporting at loc what it
 * cannot compile yet ("accel target cannot compile ... yet"). */
int acc_cg_elementwise(TlSession *s, const AccMachine *m,
                       const AccCgCall *c, AccCgProgram *out, TlLoc loc);

#endif
