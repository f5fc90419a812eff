/*
 * target_int.h - what target.c (the accel runner) shares with
 * target_plan.c (the planner's line of `time`).  Only those two use it.
 */
#ifndef TL_ACC_TARGET_INT_H
#define TL_ACC_TARGET_INT_H

#include "codegen/acc/cg_int.h"
#include "codegen/acc/plan.h"
#include "interp/interp.h"

/* A simulator for the program `text` of p (p->text or p->bare) of k
 * on m, with the call's inputs set (packed; rank and shape: the
 * output's). */
AccSim *acc_tg_start(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                     const AccCgProgram *p, const TlBuf *text,
                     TlTensor *const *packed, int rank,
                     const int64_t *shape);

/* Assembles text, a program of k, and times it without running it
 * (acc_time_program).  -1 when it does not assemble. */
int acc_tg_time_text(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                     const TlBuf *text, AccTiming *t);

/* The plan's estimate of the whole kernel: program pg (of the route
 * named route), timed instruction by instruction as the simulator
 * times it (*all), and without its conversions when it has some;
 * attached to plan when there is one.  -1 when it cannot be timed. */
int acc_tg_attach(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                  AccPlan *plan, const AccCgProgram *pg, const char *route,
                  AccTiming *all);

/* The `planner` and `conversion` lines of k's run (statistics st)
 * into out. */
void acc_tg_plan_line(TlBuf *out, TlSession *s, const AccMachine *m,
                      TlKernelInfo *k, const int64_t *sizes,
                      const AccCgProgram *pg, const char *route,
                      TlTensor *const *packed, int rank,
                      const int64_t *shape, const AccStats *st, TlLoc loc);

/* k compiled for inputs in (their shapes and dtypes; the output's
 * shape in oshape), as a call compiles it: 0, or -1 after reporting.
 * order (norder elements; NULL: none): the DRAM image asked of the
 * output (AccCgCall.order), which a route may follow. */
int acc_tg_build_call(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                      TlTensor *const *in, AccCgProgram *p,
                      const char **route, int64_t *oshape, TlLoc loc,
                      const int64_t *order, int64_t norder);
void acc_tg_free_program(AccCgProgram *p);

/* One program of kernel k split into segments (plan sp; in: the call's
 * inputs, packed): the segments' streams in order, their DRAM images
 * placed apart, and the conversions between them as instructions
 * (target_seg.c).  The program takes k's inputs and gives its output
 * row-major.  0 with the assembly in out (and, in bare, the same
 * program without its conversions, for their count), else -1 with the
 * reason in why. */
typedef struct AccSegProg {
    TlBuf text, bare;
    /* The same without the conversions of the kernel's inputs (into
     * the routes' images: what a host could lay out once). */
    TlBuf mid;
    int nconv;              /* conversions in it */
    int nhost;              /* inputs declared in their first
                             * consumer's image (laid out by the host) */
    int ncopies;            /* other copies of inputs in later
                             * consumers' images (laid out by the host) */
    int out_host;           /* the output declared in its producer's
                             * image (read back by the host) */
    int64_t gathers;        /* their DMA gathers */
    /* The planner's estimate of the program (cycles): the segments'
     * route models (est_cycles; the text model of cg_seg_cost.c for a
     * route without one, nomodel of them), the conversions' model, and
     * of that the kernel inputs' conversions into later routes'
     * images. */
    double est_seg, est_conv, est_in;
    int nomodel;
    const char *route[ACC_SEG_MAX];
} AccSegProg;
int acc_seg_program(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                    const AccSegPlan *sp, TlTensor *const *in,
                    AccSegProg *out, TlBuf *why);
void acc_seg_program_free(AccSegProg *sp);

/* Which image each tensor of a program of segments is kept in
 * (target_seg_lay.c).  acc_seg_naive: whether every intermediate is
 * kept row-major (TDSL_ACC_LAYOUTS=naive) rather than in the image its
 * producer wrote and its elementwise consumers follow.  acc_seg_order:
 * the AccCgCall.order of a tensor of n elements stored in an image of
 * nimage, element e at omap[e] (malloc'd).  acc_seg_in_place: whether
 * operand ci's image is that stored image itself (each place it reads
 * holds the element it wants, or is one it reads as nothing), so the
 * segment reads it where it is. */
int acc_seg_naive(void);
int64_t *acc_seg_order(const int64_t *omap, int64_t n, int64_t nimage);
int acc_seg_in_place(const AccCgIn *ci, const int64_t *omap, int64_t n,
                     int64_t nimage);

/* The programs of segmented kernels, kept per machine, kernel text
 * (its name, inputs and stages) and input dtypes and shapes (the last
 * 16), so that a call plans and compiles once: acc_seg_cached finds
 * k's for inputs in, else NULL; acc_seg_cache_put keeps prog (plan
 * sp) and owns it from then on. */
enum { ACC_SEG_MAX_IN = 64 };
typedef struct AccSegCached {
    int used;
    uint64_t key;
    int nin;
    TlDType dt[ACC_SEG_MAX_IN];
    int rank[ACC_SEG_MAX_IN];
    int64_t shape[ACC_SEG_MAX_IN][TL_MAX_RANK];
    AccSegProg prog;
    int nseg;
    char lines[1024];       /* `time`'s line of each segment */
} AccSegCached;
AccSegCached *acc_seg_cached(TlKernelInfo *k, const AccMachine *m,
                             TlTensor *const *in);
AccSegCached *acc_seg_cache_put(TlKernelInfo *k, const AccMachine *m,
                                TlTensor *const *in, const AccSegPlan *sp,
                                AccSegProg *prog);
/* Runs c's program on the simulator with k's inputs (packed): the
 * output in *out, `time`'s lines in stats (the simulator's, a line a
 * segment, what the conversions take: the program against the same
 * without them, timed).  0, or -1 after reporting. */
/* The planner's estimate of program pg (target_seg_est.c) beside its
 * simulated cycles (bare: without its conversions): `time`'s
 * `planner` line into out. */
void acc_seg_plan_line(TlBuf *out, const AccSegProg *pg, int64_t cycles,
                       int64_t bare);
/* k (sizes: its size variables'; in: inputs of their shapes) split
 * into segments as a call splits it, its program timed and estimated,
 * attached to plan (acc_plan_set_segments).  -1, quietly, when it does
 * not split. */
int acc_seg_attach(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                   const int64_t *sizes, TlTensor *const *in, AccPlan *plan);
int acc_seg_run(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                const AccSegCached *c, TlTensor *const *packed,
                TlTensor **out, TlBuf *stats, TlLoc loc);

/* A kernel's asserts (target_assert.c).  acc_tg_assert_refusal: why
 * accel cannot check one (it reads a computed tensor; *at moved to it),
 * else NULL.  acc_tg_without_asserts: k, or a copy of it without its
 * asserts for the routes.  acc_tg_assert_directives: the `.assert`
 * lines of a stand-alone program ("" for none); NULL after an error at
 * the assert (*at) that has no such form. */
const char *acc_tg_assert_refusal(TlSession *s, const TlKernelInfo *k,
                                  TlLoc *at);
int acc_tg_has_asserts(const TlKernelInfo *k);
/* The computed tensors k's asserts read (at most max, into r), in the
 * order the asserts read them; their count. */
int acc_tg_assert_computed(const TlKernelInfo *k, const TlFunc **r, int max);
/* A call of k (acc_tg_run: as `on accel` runs it) whose asserts read
 * stages it computes: those stages first, each a kernel of its own on
 * the simulator, then the asserts on the host with their values, then
 * the rest; `time`'s lines (acc_tg_set_stats: takes b's text) tell
 * the parts' simulated counts summed.  0, or -1 after reporting. */
int acc_tg_run(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
               const TlScalarArg *sc, TlTensor **out, TlLoc call_loc);
void acc_tg_set_stats(TlBuf *b);
int acc_tg_run_checked(TlRuntime *rt, TlKernelInfo *k, const AccMachine *m,
                       TlTensor *const *packed, TlTensor *const *in,
                       const TlScalarArg *sc, const int64_t *sizes,
                       TlTensor **out, TlLoc loc);
/* Adds a finished simulation's counts to those of a call run in parts
 * (target.c), when one is running. */
void acc_tg_count_run(const AccStats *st);
TlKernelInfo *acc_tg_without_asserts(TlSession *s, TlKernelInfo *k);
const char *acc_tg_assert_directives(TlSession *s, const TlKernelInfo *k,
                                     TlLoc *at);
/* Program text into out, the lines asrt after its .input and .output
 * lines (where the assembler wants them). */
void acc_tg_put_with_asserts(TlBuf *out, const TlBuf *text,
                             const char *asrt);

#endif
