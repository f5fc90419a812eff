/*
 * plan_sim.c - the conversions of a layout plan run on the simulator:
 * each conversion the plan (or the naive plan) pays is emitted as
 * instructions (acc_layout_emit_convert) and simulated by itself, so
 * that the planner's estimate can be set beside a measured count.
 *
 * A conversion runs on whatever the memories hold (the simulator counts
 * the same cycles for any data; tests/unit/test_layout_emit.c checks
 * the values the same routes produce).  The source stays where the
 * plan puts every tensor (lm0 from address 0) and the destination goes
 * to the same addresses of lm1, as a program keeping both alive would
 * place them; DRAM from long word 0 is the scratch area.
 */
#include "codegen/acc/plan_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Simulates src -> dst; adds to o, *cyc gets its cycles.  0, or -1
 * with the reason in why. */
static int one(AccPlan *p, const AccLayout *src, const AccLayout *dst,
               AccPlanSim *o, int64_t *cyc, TlBuf *why)
{
    TlSession *s = p->s;
    const AccLayout *d = pl_conv_target(p, src, dst);
    AccEmitCounts c;
    AccProgram *prog;
    AccSim *sim;
    TlBuf text;
    int rc = -1;

    buf_init(&text);
    if (acc_layout_emit_convert(&text, src, d, 0, &c, why) < 0)
        goto out;
    buf_puts(&text, "halt\n");
    prog = acc_assemble(s, tl_add_source(s, "plan-conversion.s", text.s,
                                         text.len), p->m, 0);
    if (!prog) {
        buf_printf(why, "the emitted conversion does not assemble");
        goto out;
    }
    sim = acc_sim_new(s, prog, 1);
    if (acc_sim_run(sim) == 0) {
        const AccStats *st = acc_sim_stats(sim);
        /* The halt's step is not the conversion's. */
        *cyc = st->cycles - p->m->step_cycles;
        o->cycles += *cyc;
        for (int k = 0; k < ACC_MAX_LEVELS; k++)
            o->link_words += st->link_words[k][0] + st->link_words[k][1];
        o->dram_words += st->dram_words[0] + st->dram_words[1];
        o->groups_moved += c.local + c.indirect;
        o->groups_dram += c.dram;
        rc = 0;
    } else {
        buf_printf(why, "the emitted conversion fails on the simulator");
    }
    acc_sim_free(sim);
out:
    buf_free(&text);
    return rc;
}

void acc_plan_simulate(const AccPlan *cp, int naive, AccPlanSim *o)
{
    AccPlan *p = (AccPlan *)cp;     /* the memo tables fill as they go */
    int *save = NULL;
    TlBuf why;

    memset(o, 0, sizeof *o);
    buf_init(&why);
    if (naive) {
        save = tl_xcalloc((size_t)p->nt + 1, sizeof *save);
        for (int i = 0; i < p->nt; i++) {
            save[i] = p->t[i].choice;
            p->t[i].choice = p->t[i].naive;
        }
        p->fixed = 1;
        pl_total(p);
    }
    for (int i = 0; i < p->nop; i++) {
        const PlOp *op = &p->op[i];
        const PlDist *d = &op->dist[op->choice];
        for (int r = 0; r <= op->nreads; r++) {
            PlTensor *t = &p->t[r < op->nreads ? op->reads[r].t : op->out];
            int a = r < op->nreads ? t->choice : d->out_lay;
            int b = r < op->nreads ? d->in_lay[r] : t->choice;
            double c = pl_conv(p, t, a, b), off;
            int64_t cyc = 0;
            if (c <= 0)
                continue;
            o->nconv++;
            why.len = 0;
            if (one(p, t->cand[a].L, t->cand[b].L, o, &cyc, &why) == 0) {
                o->nsim++;
                o->est += c;
                off = cyc > 0 ? fabs(c / (double)cyc - 1) : c > 0;
                if (off > o->worst || !o->worst_what) {
                    o->worst = off;
                    o->worst_what = arena_printf(&p->s->arena, "%s %s",
                                                 op->f->name, t->name);
                }
                o->est_words += pl_conv_words(p, t, a, b);
            } else if (!o->why) {
                o->why = arena_printf(&p->s->arena, "%s %s: %s",
                                      op->f->name, t->name, why.s);
            }
        }
    }
    if (naive) {
        p->fixed = 0;
        for (int i = 0; i < p->nt; i++)
            p->t[i].choice = save[i];
        pl_total(p);
        free(save);
    }
    buf_free(&why);
}

void acc_plan_explain_sim(TlBuf *out, const AccPlan *p)
{
    for (int naive = 0; naive < 2; naive++) {
        AccPlanSim o;
        acc_plan_simulate(p, naive, &o);
        buf_printf(out, "%s: %d of %d conversions simulated: %lld cycles "
                   "(estimate %.0f), %lld lw over BM links and %lld "
                   "to and from DRAM (estimate %lld lw); groups moved "
                   "inside PEs %lld, through DRAM %lld\n",
                   naive ? "simulated naive" : "simulated plan", o.nsim,
                   o.nconv, (long long)o.cycles, o.est,
                   (long long)o.link_words, (long long)o.dram_words,
                   (long long)o.est_words, (long long)o.groups_moved,
                   (long long)o.groups_dram);
        if (o.worst_what)
            buf_printf(out, "    estimate off by at most %.1f%% (%s)\n",
                       100 * o.worst, o.worst_what);
        if (o.why)
            buf_printf(out, "    not simulated: %s\n", o.why);
    }
}
