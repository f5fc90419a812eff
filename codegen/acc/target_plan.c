/*
 * target_plan.c - the layout planner's line of `time ... on accel`
 * (target.c runs the program): the plan's estimate of the kernel
 * beside the simulated count, and the program's conversions (what
 * they move and take beyond the same program without them).
 */
#include "codegen/acc/target_int.h"

#include <stdio.h>
#include <string.h>

/* Assembles text, a program of k, and times it without running it
 * (acc_time_program).  -1 when it does not assemble. */
int acc_tg_time_text(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                     const TlBuf *text, AccTiming *t)
{
    char *name = arena_printf(&s->arena, "<accel %s>", k->name);
    int file = tl_add_source(s, name, text->s, text->len);
    AccProgram *prog = acc_assemble(s, file, m, 1);

    if (!prog)
        return -1;
    acc_time_program(prog, t);
    return 0;
}

/* The plan's estimate of the whole kernel: program pg (of the route
 * named route), timed instruction by instruction as the simulator
 * times it, and without its conversions when it has some; attached to
 * plan when there is one.  -1 when it cannot be timed. */
int acc_tg_attach(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                  AccPlan *plan, const AccCgProgram *pg, const char *route,
                  AccTiming *all)
{
    AccTiming bare;
    int has_bare;

    if (acc_tg_time_text(s, k, m, &pg->text, all))
        return -1;
    has_bare = pg->nconv && pg->bare.len &&
               acc_tg_time_text(s, k, m, &pg->bare, &bare) == 0;
    if (plan) {
        acc_plan_set_program(plan, route, all, has_bare ? &bare : NULL);
        acc_plan_set_followed(plan, pg->plan);
        acc_plan_set_route_model(plan, pg->est_cycles);
        acc_plan_set_conv_what(plan, pg->conv_what);
    }
    return 0;
}

static int64_t words_moved(const AccStats *st)
{
    int64_t w = st->dram_words[0] + st->dram_words[1];
    for (int k = 0; k < ACC_MAX_LEVELS; k++)
        w += st->link_words[k][0] + st->link_words[k][1];
    return w;
}

/* The layout planner's estimate of k beside the simulated count: the
 * plan the program follows (p->plan), else the planner's own when it
 * can plan k (its reasons for not planning it are not the user's
 * concern here: they are dropped). */
void acc_tg_plan_line(TlBuf *out, TlSession *s, const AccMachine *m,
                      TlKernelInfo *k, const int64_t *sizes,
                      const AccCgProgram *pg, const char *route,
                      TlTensor *const *packed, int rank,
                      const int64_t *shape, const AccStats *st, TlLoc loc)
{
    FILE *saved = s->diag_out;
    FILE *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed;
    AccPlan *p = pg->plan;
    AccPlanTotals t;
    AccTiming tm;

    if (!null)
        return;
    if (!p) {
        s->diag_out = null;
        p = acc_plan_kernel(s, m, k, NULL, sizes, loc);
        s->diag_out = saved;
        s->nerrors = ne;
        s->nwarnings = nw;
        s->suppressed = sup;
    }
    fclose(null);
    if (!p) {
        /* No plan (the planner's model does not take the kernel on
         * this machine): the program's timing all the same. */
        int rc = acc_tg_attach(s, k, m, NULL, pg, route, &tm);
        if (rc == 0 && pg->est_cycles > 0)
            buf_printf(out, "planner    %lld cycles estimated (the %s "
                       "route's program as emitted, timed; no layout plan "
                       "of the kernel on this machine; the route's model "
                       "of its shape %.0f); simulated/estimated %.2f, "
                       "simulated/model %.2f\n", (long long)tm.cycles,
                       route, pg->est_cycles,
                       tm.cycles > 0 ? (double)st->cycles /
                                           (double)tm.cycles : 0.0,
                       (double)st->cycles / pg->est_cycles);
        else if (rc == 0)
            buf_printf(out, "planner    %lld cycles estimated (the %s "
                       "route's program as emitted, timed; no layout plan "
                       "of the kernel on this machine); "
                       "simulated/estimated %.2f\n", (long long)tm.cycles,
                       route, tm.cycles > 0 ? (double)st->cycles /
                                                  (double)tm.cycles : 0.0);
        return;
    }
    acc_tg_attach(s, k, m, p, pg, route, &tm);
    acc_plan_totals(p, 0, &t);
    if (t.program >= 0 && !t.model_parts)
        buf_printf(out, "planner    %lld cycles estimated (the %s route's "
                   "program as emitted, timed; %s %.0f); "
                   "simulated/estimated %.2f, simulated/model %.2f\n",
                   (long long)t.program, t.route, t.model_of, t.model,
                   t.program > 0 ? (double)st->cycles / (double)t.program
                                 : 0.0,
                   t.model > 0 ? (double)st->cycles / t.model : 0.0);
    else if (t.program >= 0)
        buf_printf(out, "planner    %lld cycles estimated (the %s route's "
                   "program as emitted, timed; the plan's model %.0f: "
                   "compute %.0f, conversions %.0f, DRAM in/out %.0f); "
                   "simulated/estimated %.2f, simulated/model %.2f\n",
                   (long long)t.program, t.route, t.model, t.model_compute,
                   t.model_conv, t.model_io,
                   t.program > 0 ? (double)st->cycles / (double)t.program
                                 : 0.0,
                   t.model > 0 ? (double)st->cycles / t.model : 0.0);
    else
        buf_printf(out, "planner    %.0f cycles estimated (compute %.0f, "
                   "conversions %.0f, DRAM in/out %.0f); "
                   "simulated/estimated %.2f\n", t.total, t.compute,
                   t.conv, t.io,
                   t.total > 0 ? (double)st->cycles / t.total : 0.0);
    if (pg->plan || pg->nconv) {
        /* The program's conversions: what it moves and takes beyond
         * the same program without them. */
        int64_t words = 0, cycles = 0;
        if (pg->nconv) {
            AccSim *sim = acc_tg_start(s, k, m, pg, &pg->bare, packed,
                                       rank, shape);
            if (acc_sim_run(sim) == 0) {
                const AccStats *b = acc_sim_stats(sim);
                words = words_moved(st) - words_moved(b);
                cycles = st->cycles - b->cycles;
            }
            acc_sim_free(sim);
        }
        if (!pg->plan) {
            /* The layout route (cg_red_lay.c) and the matmul route
             * (a layout of C, cg_mm_dist.c) have no plan of their own. */
            buf_printf(out, "conversion %lld lw in the program (%d "
                       "conversions, %lld cycles); not planned (the "
                       "%s route's own conversions)\n",
                       (long long)words, pg->nconv, (long long)cycles,
                       strcmp(route, "matmul") ? "layout" : route);
            return;
        }
        buf_printf(out, "conversion %lld lw in the program (%d "
                   "conversions, %lld cycles); the plan's %d: %lld lw, "
                   "%.0f cycles estimated\n", (long long)words, pg->nconv,
                   (long long)cycles, t.nconv, (long long)t.conv_words,
                   t.conv);
        return;
    }
    /* TODO(issue 6): the plan's layouts and conversions in the
     * program of the other routes (cg_pipe.c follows the plan when the
     * schedule writes a layout, cg_pipe_lay.c); until then the plan's
     * conversions run each by itself. */
    if (!t.nconv) {
        buf_printf(out, "conversion 0 lw in the program (one layout for "
                   "every tensor); the plan converts nothing\n");
        return;
    }
    {
        AccPlanSim ps;
        acc_plan_simulate(p, 0, &ps);
        buf_printf(out, "conversion 0 lw in the program (one layout for "
                   "every tensor); the plan's %d conversions, %d emitted "
                   "and each simulated alone: %lld cycles, %lld lw "
                   "(estimated %.0f cycles, %lld lw)\n", ps.nconv, ps.nsim,
                   (long long)ps.cycles,
                   (long long)(ps.link_words + ps.dram_words), ps.est,
                   (long long)ps.est_words);
    }
}

