/*
 * acc_time.c - what a program takes on the simulator, without running
 * it: every bundle issued by acc_sim.c's rules (a slot busy until its
 * op's occupancy ends, DMA ops `dma_issue_steps` apart, `wait` until
 * its tag's transfers have landed, `nop/N`), DMA traffic on the DRAM
 * channels as acc_sim_xfer.c counts it.  None of this depends on the
 * data (the stream is straight-line), so the count is the simulator's
 * exactly, at the cost of a pass over the bundles; the layout planner
 * uses it to cost a kernel by the program code generation emits for it
 * (target.c times it and hands it to the plan, acc_plan_set_program),
 * as layout_time.c costs a conversion by what layout_emit.c emits.
 * tests/unit/test_acc_time.c checks it against the simulator.
 */
#include "codegen/acc/acc_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct Timer {
    const AccMachine *m;
    AccTiming *t;
    int64_t step;
    int64_t slot_free[ACC_SLOT__MAX];
    int64_t next_dma;
    int64_t chan_free[1024];
    int64_t tag_done[256];
} Timer;

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The DRAM side of DMA op, issued at step s: as acc_exec_dma. */
static void dma(Timer *x, const AccOp *op, int64_t s)
{
    const AccMachine *m = x->m;
    int64_t vol[1024], cyc = s * m->step_cycles, done = cyc;
    int up = acc_dma_volumes(m, op, vol);

    for (int ch = 0; ch < m->dram_channels && ch < 1024; ch++) {
        int64_t start, n;
        if (!vol[ch])
            continue;
        start = cyc > x->chan_free[ch] ? cyc : x->chan_free[ch];
        n = ceil_div(vol[ch], m->dram_bw);
        x->chan_free[ch] = start + n;
        if (start + n + m->dma_latency > done)
            done = start + n + m->dma_latency;
        x->t->dram_words[up] += vol[ch];
    }
    if (done > x->tag_done[op->tag])
        x->tag_done[op->tag] = done;
    x->t->dma_ops++;
}

/* One bundle, as run_bundle issues it; 1 at halt. */
static int bundle(Timer *x, const AccOp *ops, int n)
{
    const AccMachine *m = x->m;
    int64_t s = x->step, busy = s, dmas = s, wait = s, issue, nsteps = 1;
    int halt = 0;

    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        if (x->slot_free[op->slot] > busy)
            busy = x->slot_free[op->slot];
        if (op->slot == ACC_SLOT_DMA && x->next_dma > dmas)
            dmas = x->next_dma;
        if (op->opc == ACC_OP_WAIT &&
            ceil_div(x->tag_done[op->tag], m->step_cycles) > wait)
            wait = ceil_div(x->tag_done[op->tag], m->step_cycles);
    }
    issue = busy > dmas ? busy : dmas;
    if (wait > issue)
        issue = wait;
    if (issue > s) {
        x->t->stall_steps += issue - s;
        if (wait == issue)
            x->t->wait_stalls += issue - s;
        x->step = s = issue;
    }
    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        int64_t occ = acc_op_steps(m, op);
        if (acc_op_kind(op->opc) == ACC_K_DMA)
            dma(x, op, s);
        if (op->slot == ACC_SLOT_DMA)
            x->next_dma = s + m->dma_issue_steps;
        if (op->opc == ACC_OP_NOP)
            nsteps = op->nsteps;
        halt |= op->opc == ACC_OP_HALT;
        x->slot_free[op->slot] = s + occ;
        if (op->slot != ACC_SLOT_CTL)
            x->t->busy[op->slot] += occ;
    }
    x->t->bundles++;
    x->step = s + nsteps;
    return halt;
}

void acc_time_program(const AccProgram *p, AccTiming *out)
{
    Timer *x = tl_xcalloc(1, sizeof *x);
    int r = 0, halt = 0;

    memset(out, 0, sizeof *out);
    x->m = p->m;
    x->t = out;
    /* A .rep block's copies differ only in addresses, which time
     * nothing: each bundle of it is issued count times as it is. */
    for (int b = 0; b < p->nb && !halt;) {
        const AccRep *rp = r < p->nreps && p->reps[r].first == b
                               ? &p->reps[r] : NULL;
        if (!rp) {
            halt = bundle(x, p->ops + p->b[b].first, p->b[b].nops);
            b++;
            continue;
        }
        for (int64_t j = 0; j < rp->count && !halt; j++)
            for (int t = 0; t < rp->n && !halt; t++)
                halt = bundle(x, p->ops + p->b[b + t].first,
                              p->b[b + t].nops);
        b += rp->n;
        r++;
    }
    out->steps = x->step;
    out->cycles = x->step * p->m->step_cycles;
    for (int i = 0; i < 256; i++)
        if (x->tag_done[i] > out->cycles)
            out->cycles = x->tag_done[i];
    free(x);
}
