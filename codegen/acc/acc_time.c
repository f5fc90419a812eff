/*
 * acc_time.c - what a program takes on the simulator, without running
 * it: every bundle issued by the rules the simulator issues it by, in
 * code the two share (acc_issue.c: a slot busy until its op's
 * occupancy ends, DMA ops `dma_issue_steps` apart, `wait` until its
 * tag's transfers have landed, DMA traffic on the DRAM channels), and
 * `nop/N`.  None of this depends on the data (the stream is
 * straight-line), so the count is the simulator's
 * exactly, at the cost of a pass over the bundles; the layout planner
 * uses it to cost a kernel by the program code generation emits for it
 * (target.c times it and hands it to the plan, acc_plan_set_program),
 * as layout_time.c costs a conversion by what layout_emit.c emits.
 * tests/unit/test_acc_time.c checks it against the simulator (the
 * stall causes, the trace and the data are the simulator's alone).
 */
#include "codegen/acc/acc_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct Timer {
    const AccMachine *m;
    AccTiming *t;
    int64_t step;
    AccIssue q;
} Timer;

/* One bundle, as run_bundle issues it (acc_issue.c's rules); 1 at
 * halt. */
static int bundle(Timer *x, const AccOp *ops, int n)
{
    const AccMachine *m = x->m;
    int64_t s = x->step, busy, dmas, wait, nsteps = 1, vol[1024];
    int64_t issue = acc_issue_step(&x->q, m, s, ops, n, &busy, &dmas, &wait);
    int halt = 0;

    if (issue > s) {
        x->t->stall_steps += issue - s;
        if (wait == issue)
            x->t->wait_stalls += issue - s;
        x->step = s = issue;
    }
    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        int64_t occ = acc_op_steps(m, op);
        if (acc_op_kind(op->opc) == ACC_K_DMA) {
            /* The DRAM side, as acc_exec_dma. */
            int up = acc_dma_volumes(m, op, vol);
            acc_issue_dma(&x->q, m, op, vol, s * m->step_cycles, NULL, NULL,
                          &x->t->dram_words[up]);
            x->t->dma_ops++;
        }
        if (op->opc == ACC_OP_NOP)
            nsteps = op->nsteps;
        halt |= op->opc == ACC_OP_HALT;
        acc_issue_op(&x->q, m, op, s, occ);
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
        if (x->q.tag_done[i] > out->cycles)
            out->cycles = x->q.tag_done[i];
    free(x);
}
