/*
 * plan.h - the layout planner of the accel target (ACCELERATOR.md 6.3
 * and 7.6): the layout of every tensor of a kernel's pipeline (inputs,
 * intermediates, outputs) chosen to minimise the estimated time of the
 * whole pipeline, conversions included, keeping the layouts the user
 * wrote in the kernel's accel schedule.  Prefix acc_plan_.
 *
 * The pipeline is the kernel's stages in dependency order.  Each stage
 * runs under a *distribution*: every level of the machine either takes
 * a block of one of the stage's loop variables (index or reduction
 * variables) or stays idle.  A distribution fixes the layout each
 * tensor of the stage needs (the levels of the variables that index
 * its axes; copies over levels of variables it does not depend on) and
 * the stage's compute time (its iterations per PE, at the vector or
 * matrix unit's rate, plus reducing partial results and exchanging
 * halos).  A tensor's layout is one of those its stages propose; where
 * it differs from what a stage needs, the stage pays the conversion
 * (acc_layout_convert_plan).  Inputs are loaded from, and outputs
 * stored to, row-major DRAM.
 *
 * Everything lives in the session's arena.
 */
#ifndef TL_ACC_PLAN_H
#define TL_ACC_PLAN_H

#include "codegen/acc/layout.h"

typedef struct AccPlan AccPlan;

/* What a plan costs, in estimated cycles and long words moved. */
typedef struct AccPlanTotals {
    double compute;         /* stages (and their reductions, halos) */
    double conv;            /* conversions between layouts */
    double io;              /* DRAM loads of inputs, stores of outputs */
    double total;
    int64_t conv_words;     /* long words the conversions move over
                             * links (each link crossing counted) */
    int64_t io_words;
    int nconv;              /* conversions that move data */
    /* The kernel's program as code generation emits it, timed as the
     * simulator times it (acc_plan_set_program); -1 when none is
     * attached.  This, not the model above, is the plan's estimate of
     * the whole kernel. */
    int64_t program;
    int64_t program_conv;   /* of which its conversions (the program
                             * against the same without them), or 0 */
    const char *route;      /* the route that emitted it */
    AccTiming timing;       /* the program's figures */
    /* The cost model's total for the plan the program follows (the
     * route's own plan when it has one, cg_pipe_lay.c and
     * cg_elem_lay.c: its layouts and distributions, conversions
     * included; else this plan), and its parts; model < 0 when no
     * program is attached.  This is the model to set beside the
     * program: tests/cli/accel_plan_model.sh keeps it within 20%. */
    double model, model_compute, model_conv, model_io;
    int model_own;          /* 1: the model of this plan itself */
    int model_parts;        /* 1: the parts above are known */
    const char *model_of;   /* what the model is of, in words */
} AccPlanTotals;

/* Builds and solves the plan of kernel k on machine m.  sizes[i] is the
 * value of k->sizes[i] (NULL when every shape is constant); si is k's
 * accel schedule (NULL: none), whose `layout` statements are kept.
 * NULL after reporting at loc what cannot be planned (the construct,
 * or a size not known). */
AccPlan *acc_plan_kernel(TlSession *s, const AccMachine *m,
                         TlKernelInfo *k, const TlSchedInfo *si,
                         const int64_t *sizes, TlLoc loc);

/* A route that computes every stage with each tensor in one layout of
 * its own (the pipeline route, cg_pipe.c).  text(ctx, f) gives the
 * canonical factors of tensor f's layout there, or NULL when the route
 * reads f otherwise (an input it reads broadcast: the planner's own
 * layout for the route's distribution stands for it).  Each stage then
 * has one distribution, the route's (its levels those the stage's
 * output splits its first axis over), so the plan converts only where
 * a tensor's layout (the user's) differs from the route's, and its
 * conversions are the program's. */
typedef struct AccPlanRoute {
    const char *(*text)(void *ctx, const TlFunc *f);
    void *ctx;
} AccPlanRoute;
AccPlan *acc_plan_route(TlSession *s, const AccMachine *m,
                        TlKernelInfo *k, const TlSchedInfo *si,
                        const int64_t *sizes, const AccPlanRoute *route,
                        TlLoc loc);

/* Attaches the program code generation emits for the planned kernel
 * (route names the route: "pipeline", "matmul", ...), timed by
 * acc_time_program, and when its conversions are in it, the same
 * program without them (bare, else NULL).  The cost model above ranks
 * distributions no route emits; the program's timing is what the
 * plan that runs takes, instruction by instruction, as the
 * conversions' estimate is what layout_emit.c emits (target.c attaches
 * it: acc_cg_time_kernel). */
void acc_plan_set_program(AccPlan *p, const char *route,
                          const AccTiming *all, const AccTiming *bare);
/* The plan the attached program follows, when the route planned the
 * kernel itself (AccCgProgram.plan; NULL or p: p's own).  Its model is
 * what --explain and `time` set beside the program. */
void acc_plan_set_followed(AccPlan *p, const AccPlan *followed);
/* The route's own model of the program it emitted (AccCgProgram
 * .est_cycles: the matmul route's shape, which the planner does not
 * choose), in cycles; 0: none.  It stands for the model then. */
void acc_plan_set_route_model(AccPlan *p, double cycles);
/* What the attached program's conversions are (AccCgProgram
 * .conv_what), for --explain; NULL: not said. */
void acc_plan_set_conv_what(AccPlan *p, const char *what);
/* A kernel no one route compiles, run as segments in one program
 * (target_seg.c): its timing (cycles; bare_cycles without its
 * conversions) beside the planner's estimate of that program, the
 * segments' route models and the conversions' model (est_in of that:
 * the kernel inputs' into later routes' images; the first consumer's
 * image the host lays out, not counted). */
typedef struct AccPlanSeg {
    int n, nconv, nhost, nomodel;
    int64_t cycles, bare_cycles;
    double est_seg, est_conv, est_in;
} AccPlanSeg;
void acc_plan_set_segments(AccPlan *p, const AccPlanSeg *sg);

/* Compiles kernel k for inputs of the sizes (sizes[i] the value of
 * k->sizes[i], NULL when every shape is constant) as a call would, and
 * attaches its program to p, timed (acc_plan_set_program; target.c).
 * -1, quietly, when no route compiles it. */
int acc_cg_time_kernel(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                       const int64_t *sizes, AccPlan *p);

/* The same without a plan (the planner cannot place the kernel, the
 * matmul route streams it): the program's timing in *t, its route's
 * name and the route's own model of it in cycles (0: none).  -1,
 * quietly, when no route compiles it. */
int acc_cg_time_program(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                        const int64_t *sizes, AccTiming *t,
                        const char **route, double *est);
/* The `program:` and `model:` lines of acc_plan_explain for a program
 * timed without a plan (acc_cg_time_program). */
void acc_plan_explain_program(TlBuf *out, const char *route,
                              const AccTiming *t, double est);

/* The chosen layout of tensor f of the planned kernel; NULL when f is
 * not one of its tensors. */
const AccLayout *acc_plan_layout(const AccPlan *p, const TlFunc *f);

/* The totals of the plan, or (naive 1) of the same pipeline with every
 * tensor in one fixed layout (the elementwise route's: blocks of the
 * row-major order over all PEs), each stage still choosing its best
 * distribution. */
void acc_plan_totals(const AccPlan *p, int naive, AccPlanTotals *out);

/* The plan in words: each tensor's layout and why, each stage's
 * distribution, compute time and conversions, the totals, and the
 * naive fixed layout's totals for comparison. */
void acc_plan_explain(TlBuf *out, const AccPlan *p);

/* The conversions of the plan (naive 1: of the naive fixed layout's
 * plan) emitted as instructions and each run by itself on the
 * simulator (plan_sim.c). */
typedef struct AccPlanSim {
    int nconv;              /* conversions that move data */
    int nsim;               /* of which emitted and simulated */
    double est;             /* estimated cycles of the simulated ones */
    int64_t est_words;      /* and their estimated lw over links */
    int64_t cycles;         /* simulated cycles, one after the other */
    int64_t link_words;     /* lw over the BM links (both directions) */
    int64_t dram_words;     /* lw to and from DRAM */
    int64_t groups_moved;   /* destination groups moved inside PEs */
    int64_t groups_dram;    /* and through DRAM */
    double worst;           /* the largest |estimate / simulated - 1| of
                             * one simulated conversion */
    const char *worst_what; /* which: "stage tensor" */
    const char *why;        /* why the first one not simulated was not */
} AccPlanSim;
void acc_plan_simulate(const AccPlan *p, int naive, AccPlanSim *out);
/* Two lines (the plan, the naive plan) of acc_plan_simulate's figures
 * beside the estimates. */
void acc_plan_explain_sim(TlBuf *out, const AccPlan *p);

#endif
