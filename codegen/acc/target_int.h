/*
 * target_int.h - what target.c (the accel runner) shares with
 * target_plan.c (the planner's line of `time`).  Only those two use it.
 */
#ifndef TL_ACC_TARGET_INT_H
#define TL_ACC_TARGET_INT_H

#include "codegen/acc/cg_int.h"
#include "codegen/acc/plan.h"

/* A simulator for the program `text` of p (p->text or p->bare) of k
 * on m, with the call's inputs set (packed; rank and shape: the
 * output's). */
AccSim *acc_tg_start(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                     const AccCgProgram *p, const TlBuf *text,
                     TlTensor *const *packed, int rank,
                     const int64_t *shape);

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

#endif
