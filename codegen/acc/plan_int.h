/*
 * plan_int.h - the layout planner's data, shared by plan_graph.c (the
 * pipeline of a kernel), plan_cost.c (distributions, the layouts they
 * need, their compute costs), plan_move.c (conversions, loads and
 * stores) and plan.c (the search and its explanation).
 * Only those files use it.
 */
#ifndef TL_ACC_PLAN_INT_H
#define TL_ACC_PLAN_INT_H

#include "codegen/acc/plan.h"

enum {
    PL_MAX_VARS = 8,        /* loop variables of one stage */
    PL_MAX_READS = 16,      /* tensors one stage reads */
    PL_MAX_CANDS = 16,      /* layouts considered per tensor */
    PL_MAX_DISTS = 12       /* distributions kept per stage */
};

/* A candidate layout of one tensor. */
typedef struct PlLay {
    const AccLayout *L;
    const char *text;       /* its canonical factors */
    const char *from;       /* why it is a candidate: the stage that
                             * needs it, "user", "fixed" */
} PlLay;

typedef enum { PT_INPUT, PT_STAGE, PT_OUTPUT } PlRole;

typedef struct PlTensor {
    const TlFunc *f;
    const char *name;
    PlRole role;
    TlDType dt;
    int rank;
    int64_t shape[ACC_LAYOUT_MAX_RANK];
    int64_t nelems;
    PlLay cand[PL_MAX_CANDS];
    int ncand;
    int user;               /* cand[0] is the user's layout: fixed */
    int naive;              /* index of the naive fixed layout */
    const AccLayout *dram;  /* row-major in DRAM (inputs, outputs) */
    double *conv;           /* [ncand*ncand] conversion cycles, < 0 not
                             * computed yet */
    int64_t *conv_words;    /* the same, long words (over BM links and
                             * to and from DRAM) */
    char *conv_emit;        /* the same, 1: costed as layout_emit.c
                             * emits it, 0: by the LCA model */
    double *io;             /* [ncand] DRAM load or store cycles, < 0
                             * not computed */
    int64_t *io_words;
    int choice;
    int follow;             /* read by one stage only (an input), or
                             * read by none (an output): its layout is
                             * what that stage needs */
} PlTensor;

/* How a stage reads one tensor: per axis, the loop variable indexing
 * it (-1: none, an index computed otherwise) and how far reads reach
 * beyond it (a stencil's halo). */
typedef struct PlRead {
    int t;                  /* the tensor */
    int var[ACC_LAYOUT_MAX_RANK];
    int64_t halo[ACC_LAYOUT_MAX_RANK];
} PlRead;

/* One distribution of a stage: the variable each level takes (-1:
 * idle), its compute cost and the layouts it needs. */
typedef struct PlDist {
    int var[ACC_MAX_LEVELS];
    double compute, reduce, halo;
    int in_lay[PL_MAX_READS];   /* candidate index in each read tensor */
    int out_lay;                /* in the output tensor */
} PlDist;

typedef struct PlOp {
    const TlFunc *f;
    int out;                    /* the tensor it defines */
    PlRead reads[PL_MAX_READS];
    int nreads;
    const TlVar *vars[PL_MAX_VARS]; /* index variables, then reduction
                                     * variables */
    int64_t ext[PL_MAX_VARS];
    int nvars, nindex;
    int out_var[ACC_LAYOUT_MAX_RANK];   /* var of each output axis */
    double ops;                 /* vector ops per iteration */
    int long_ops;               /* of which exp/log-like */
    double steps;               /* vector steps per chunk of 4 long
                                 * words of iterations, as the vector
                                 * routes emit them (plan_graph.c) */
    int matmul;                 /* a sum of products: matrix unit */
    PlDist dist[PL_MAX_DISTS];
    int ndist;
    int choice;                 /* distribution of the current plan */
    int forced;                 /* the schedule's distributes fix its
                                 * one distribution */
} PlOp;

struct AccPlan {
    TlSession *s;
    const AccMachine *m;
    const TlKernelInfo *k;
    PlTensor *t;
    int nt;
    PlOp *op;
    int nop;
    int *naive_choice;          /* [nop]: distributions, naive plan */
    int iterations;             /* rounds of improvement the search ran */
    int fixed;                  /* tensors do not follow their stage
                                 * (the naive plan) */
    const AccPlanRoute *route;  /* NULL: every distribution considered */
    /* The program emitted for the kernel, timed (acc_plan_set_program):
     * has_prog 0 when none; has_bare when its conversions are in it. */
    int has_prog, has_bare;
    const char *prog_route;
    const char *conv_what;      /* acc_plan_set_conv_what */
    AccTiming prog, bare;
    const AccPlan *followed;    /* the plan the program follows (NULL:
                                 * this one) */
    double route_model;         /* the route's own model, or 0 */
    int has_seg;                /* acc_plan_set_segments */
    AccPlanSeg seg;
};

/* ---- plan.c -------------------------------------------------------- */

/* The plan's estimated total with the current layouts; sets every
 * stage's distribution (and the layouts that follow a stage). */
double pl_total(AccPlan *p) TL_INTERNAL;

/* ---- plan_graph.c -------------------------------------------------- */

/* Fills p's tensors and stages from kernel k with the given size
 * values.  -1 after reporting at loc. */
int pl_build(AccPlan *p, TlKernelInfo *k, const int64_t *sizes, TlLoc loc)
    TL_INTERNAL;

/* ---- plan_cost.c --------------------------------------------------- */

/* Adds a candidate layout to tensor t from its text (canonical factors,
 * no shape); returns its index, or -1 when the layout is not valid for
 * the tensor on p's machine (checked quietly). */
int pl_add_layout(AccPlan *p, PlTensor *t, const char *text,
                  const char *from) TL_INTERNAL;
/* The distributions of every stage worth considering, and the layouts
 * they need as candidates of the tensors; the naive layout of every
 * tensor; the user's layouts first.  -1 after reporting. */
int pl_candidates(AccPlan *p, const TlSchedInfo *si, TlLoc loc)
    TL_INTERNAL;
/* Text of distribution d of op o: "L2B:i L1B:i MAB:j PE:j". */
void pl_dist_print(TlBuf *out, const AccPlan *p, const PlOp *o,
                   const PlDist *d) TL_INTERNAL;

/* ---- plan_move.c --------------------------------------------------- */

/* Conversion cost of tensor t from candidate a to b (0 when equal). */
double pl_conv(AccPlan *p, PlTensor *t, int a, int b) TL_INTERNAL;
int64_t pl_conv_words(AccPlan *p, PlTensor *t, int a, int b) TL_INTERNAL;
/* Where a conversion from src to dst puts its destination: dst, or
 * when both are in lm0 at the same addresses, the same addresses of
 * lm1 (a program keeping both alive would place them so; converting
 * in place would send every group through DRAM). */
const AccLayout *pl_conv_target(AccPlan *p, const AccLayout *src,
                                const AccLayout *dst) TL_INTERNAL;
/* DRAM load (inputs) or store (outputs) cost of t in candidate a; 0 for
 * intermediates. */
double pl_io(AccPlan *p, PlTensor *t, int a) TL_INTERNAL;
int64_t pl_io_words(AccPlan *p, PlTensor *t, int a) TL_INTERNAL;

#endif
