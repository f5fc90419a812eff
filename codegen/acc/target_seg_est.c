/*
 * target_seg_est.c - the layout planner's estimate of a kernel run as
 * segments in one program (target_seg.c) beside what the program
 * takes: `time`'s `planner` line, and the `program:` / `model:` lines
 * of `tdsl lower --target accel --explain` for such a kernel.
 *
 * The estimate is what the program does: each segment's route model
 * (AccCgProgram.est_cycles) and each conversion between them (an
 * unpacking, constants, a gather: cg_seg_conv.c) at the model of
 * cg_seg_cost.c, on the instructions the emitter wrote for it.  The
 * kernel inputs the host lays out in their first consumer's image are
 * not in the program, so not in the estimate either.
 */
#include "codegen/acc/target_int.h"

#include <stdio.h>
#include <string.h>

void acc_seg_plan_line(TlBuf *out, const AccSegProg *pg, int64_t cycles,
                       int64_t bare)
{
    double est = pg->est_seg + pg->est_conv;

    buf_printf(out, "planner    %.0f cycles estimated for the program "
               "(the segments' route models %.0f%s, conversions %.0f, of "
               "which the inputs' into later routes' images %.0f); "
               "simulated/estimated %.2f, conversions simulated/"
               "estimated %.2f\n", est, pg->est_seg,
               pg->nomodel ? " with the text model of those without one"
                           : "",
               pg->est_conv, pg->est_in,
               est > 0 ? (double)cycles / est : 0.0,
               pg->est_conv > 0 ? (double)(cycles - bare) / pg->est_conv
                                : 0.0);
}

int acc_seg_attach(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                   const int64_t *sizes, TlTensor *const *in, AccPlan *plan)
{
    AccSegPlan sp;
    AccSegProg sg;
    AccTiming all, bare;
    AccPlanSeg g;
    TlBuf why;
    int rc = -1;

    buf_init(&why);
    if (acc_seg_plan(s, k, m, sizes, in, &sp, &why) ||
        acc_seg_program(s, k, m, &sp, in, &sg, &why)) {
        buf_free(&why);
        return -1;
    }
    if (acc_tg_time_text(s, k, m, &sg.text, &all) == 0 &&
        acc_tg_time_text(s, k, m, &sg.bare, &bare) == 0) {
        memset(&g, 0, sizeof g);
        g.n = sp.n;
        g.nconv = sg.nconv;
        g.nhost = sg.nhost;
        g.nomodel = sg.nomodel;
        g.cycles = all.cycles;
        g.bare_cycles = bare.cycles;
        g.est_seg = sg.est_seg;
        g.est_conv = sg.est_conv;
        g.est_in = sg.est_in;
        acc_plan_set_segments(plan, &g);
        rc = 0;
    }
    acc_seg_program_free(&sg);
    buf_free(&why);
    return rc;
}
