/*
 * acc_sim_stats.c - the simulator's report: cycles and time, FLOPs
 * executed and useful, utilization of the dominant type against the
 * matrix unit's peak and against the vector peak (ACCELERATOR.md 5.2),
 * how busy each slot was, words over each level's links and through
 * DRAM, stalls and hazards.
 */
#include "codegen/acc/acc_int.h"

static double pct(double a, double b)
{
    return b > 0 ? 100.0 * a / b : 0.0;
}

void acc_sim_print_stats(TlBuf *out, const AccSim *sim)
{
    acc_stats_print(out, sim->m, &sim->st);
    if (!sim->strict)
        buf_printf(out, "hazards    %lld early reads\n",
                   (long long)sim->st.hazards);
}

void acc_stats_print(TlBuf *out, const AccMachine *m, const AccStats *st)
{
    buf_printf(out, "machine    %s (%lld PEs)\n", m->name,
               (long long)acc_machine_pes(m));
    buf_printf(out, "cycles     %lld (%.3f us at %.0f MHz)\n",
               (long long)st->cycles, st->cycles / m->clock_hz * 1e6,
               m->clock_hz / 1e6);
    buf_printf(out, "steps      %lld: %lld bundles, %lld stalled (wait %lld, "
               "busy slot %lld, dma issue %lld)\n", (long long)st->steps,
               (long long)st->bundles, (long long)st->stall_steps,
               (long long)st->wait_stalls, (long long)st->busy_stalls,
               (long long)st->dma_stalls);
    TlDType dom = DT_NONE;
    double best = 0, exec = 0, useful = 0;
    for (int t = 0; t < DT__COUNT; t++) {
        exec += st->flops_exec[t];
        useful += st->flops_useful[t];
        if (st->flops_useful[t] > best) {
            best = st->flops_useful[t];
            dom = (TlDType)t;
        }
    }
    buf_printf(out, "flops      %.0f useful, %.0f executed\n", useful, exec);
    if (dom != DT_NONE) {
        double peak = acc_peak_flops(m, dom);
        /* Vector-bound kernels (ACCELERATOR.md 5.2): every PE does
         * one fma per lane of a long word per cycle at best. */
        double vpeak = 2.0 * (64 / acc_dt_bits(dom)) *
                       (double)acc_machine_pes(m);
        buf_printf(out, "util       %.2f%% of the %s matrix peak (%.0f "
                   "FLOP/cycle)\n", pct(best, peak * (double)st->cycles),
                   dt_name(dom), peak);
        buf_printf(out, "vector     %.2f%% of the %s vector peak (%.0f "
                   "FLOP/cycle)\n", pct(best, vpeak * (double)st->cycles),
                   dt_name(dom), vpeak);
    }
    buf_puts(out, "busy      ");
    int nslots = ACC_SLOT_L + acc_bm_levels(m);
    for (int s = 0; s < nslots; s++) {
        char nb[16];
        if (s == ACC_SLOT_CTL)
            continue;
        buf_printf(out, " %s %.1f%%", acc_slot_name(m, s, nb, sizeof nb),
                   pct((double)st->busy[s], (double)st->steps));
    }
    buf_putc(out, '\n');
    for (int k = 1; k <= acc_bm_levels(m); k++)
        buf_printf(out, "link L%d    %lld lw down, %lld lw up\n", k,
                   (long long)st->link_words[k - 1][0],
                   (long long)st->link_words[k - 1][1]);
    buf_printf(out, "dram       %lld lw read, %lld lw written\n",
               (long long)st->dram_words[0], (long long)st->dram_words[1]);
}

void acc_stats_add(AccStats *sum, const AccStats *st)
{
    sum->cycles += st->cycles;
    sum->steps += st->steps;
    sum->bundles += st->bundles;
    sum->stall_steps += st->stall_steps;
    sum->wait_stalls += st->wait_stalls;
    sum->busy_stalls += st->busy_stalls;
    sum->dma_stalls += st->dma_stalls;
    for (int t = 0; t < DT__COUNT; t++) {
        sum->flops_exec[t] += st->flops_exec[t];
        sum->flops_useful[t] += st->flops_useful[t];
    }
    for (int s = 0; s < ACC_SLOT__MAX; s++)
        sum->busy[s] += st->busy[s];
    for (int k = 0; k < ACC_MAX_LEVELS; k++)
        for (int d = 0; d < 2; d++)
            sum->link_words[k][d] += st->link_words[k][d];
    sum->dram_words[0] += st->dram_words[0];
    sum->dram_words[1] += st->dram_words[1];
    sum->hazards += st->hazards;
}
