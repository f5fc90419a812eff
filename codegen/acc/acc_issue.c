/*
 * acc_issue.c - the timing rules the simulator (acc_sim.c,
 * acc_sim_xfer.c) and the timer (acc_time.c) share, so that the two
 * count the same cycles by construction rather than by a test keeping
 * two copies equal: the step a bundle issues at (each op's slot free,
 * DMA ops `dma_issue_steps` apart, a `wait` until its tag's transfers
 * have landed), and a DMA op's long words on the DRAM channels (each
 * channel busy in turn at `dram_bw` long words a cycle, the last word
 * readable `dma_latency` cycles later).  ACCELERATOR.md 5.
 */
#include "codegen/acc/acc_int.h"

#include <math.h>

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int64_t acc_issue_step(const AccIssue *q, const AccMachine *m, int64_t s,
                       const AccOp *ops, int n, int64_t *busy,
                       int64_t *dma, int64_t *wait)
{
    int64_t issue;

    *busy = *dma = *wait = s;
    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        if (q->slot_free[op->slot] > *busy)
            *busy = q->slot_free[op->slot];
        if (op->slot == ACC_SLOT_DMA && q->next_dma_step > *dma)
            *dma = q->next_dma_step;
        if (op->opc == ACC_OP_WAIT) {
            int64_t w = ceil_div(q->tag_done[op->tag], m->step_cycles);
            if (w > *wait)
                *wait = w;
        }
    }
    issue = *busy > *dma ? *busy : *dma;
    return *wait > issue ? *wait : issue;
}

void acc_issue_op(AccIssue *q, const AccMachine *m, const AccOp *op,
                  int64_t s, int64_t occ)
{
    if (op->slot == ACC_SLOT_DMA)
        q->next_dma_step = s + m->dma_issue_steps;
    q->slot_free[op->slot] = s + occ;
}

int64_t acc_issue_dma(AccIssue *q, const AccMachine *m, const AccOp *op,
                      const int64_t *vol, int64_t cyc, int64_t *start,
                      int64_t *len, int64_t *words)
{
    int64_t done = cyc;

    for (int ch = 0; ch < m->dram_channels && ch < 1024; ch++) {
        int64_t at, x;
        if (start)
            start[ch] = len[ch] = 0;
        if (!vol[ch])
            continue;
        at = cyc > q->chan_free[ch] ? cyc : q->chan_free[ch];
        /* dram_bw need not be whole (a machine file's). */
        x = (int64_t)ceil((double)vol[ch] / m->dram_bw - 1e-9);
        q->chan_free[ch] = at + x;
        if (start) {
            start[ch] = at;
            len[ch] = x;
        }
        if (at + x + m->dma_latency > done)
            done = at + x + m->dma_latency;
        *words += vol[ch];
    }
    if (done > q->tag_done[op->tag])
        q->tag_done[op->tag] = done;
    return done;
}
