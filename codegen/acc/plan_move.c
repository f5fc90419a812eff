/*
 * plan_move.c - what moving a tensor costs the layout planner: a
 * conversion between two candidate layouts (what layout_emit.c emits
 * for it, timed as the simulator times it; the LCA model of
 * layout_conv.c for pairs the emitter refuses), and the load of an
 * input or the store of an output as the routes emit them, in
 * estimated cycles and long words.  The tables fill as the search asks
 * (plan_int.h: PlTensor.conv, .io).
 */
#include "codegen/acc/plan_int.h"
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <string.h>

/* ====================================================================
 * Conversions
 * ==================================================================== */

static int64_t link_words(const AccConvPlan *cp)
{
    int64_t w = 0;
    for (int i = 0; i < cp->nsteps; i++)
        if (cp->steps[i].kind != ACC_STEP_LOCAL)
            w += cp->steps[i].words;
    return w;
}

const AccLayout *pl_conv_target(AccPlan *p, const AccLayout *src,
                                const AccLayout *dst)
{
    AccLayout *d;

    if (src->space != ACC_LSP_LM0 || dst->space != ACC_LSP_LM0)
        return dst;
    d = arena_alloc(&p->s->arena, sizeof *d);
    *d = *dst;
    d->space = ACC_LSP_LM1;
    return d;
}

static void conv_fill(AccPlan *p, PlTensor *t, int a, int b)
{
    size_t at = (size_t)a * (size_t)t->ncand + (size_t)b;
    const AccConvPlan *cp;
    AccEmitEst est;
    TlBuf why;

    if (t->conv[at] >= 0)
        return;
    if (a == b) {
        t->conv[at] = 0;
        t->conv_words[at] = 0;
        return;
    }
    /* What layout_emit.c would emit, timed as the simulator times it;
     * the LCA model's ideal routes only for layouts it cannot emit.
     * TODO(issue 6): a packed layout against one of one element a
     * long word (the naive plan's 1-D tensors) is costed by the LCA
     * model, far below what a route would take.  TODO(issue 6): the
     * estimate visits every place of both layouts several times (the
     * route of each group, DMA ops counted both ways through DRAM,
     * then timed): resblock's plan on mn2 takes 12 s of host time (26
     * before acc_layout_at's table went address-major and took every
     * layout of mn2's PEs), 5.6 with the LCA model; one pass per layout
     * would do. */
    buf_init(&why);
    if (acc_layout_emit_estimate(t->cand[a].L,
                                 pl_conv_target(p, t->cand[a].L,
                                                t->cand[b].L),
                                 &est, &why) == 0) {
        t->conv[at] = (double)est.cycles;
        t->conv_words[at] = est.link_words + est.dram_words;
        t->conv_emit[at] = 1;
    } else {
        cp = acc_layout_convert_plan(&p->s->arena, t->cand[a].L,
                                     t->cand[b].L);
        t->conv[at] = cp->cycles;
        t->conv_words[at] = link_words(cp);
    }
    buf_free(&why);
}

double pl_conv(AccPlan *p, PlTensor *t, int a, int b)
{
    conv_fill(p, t, a, b);
    return t->conv[(size_t)a * (size_t)t->ncand + (size_t)b];
}

int64_t pl_conv_words(AccPlan *p, PlTensor *t, int a, int b)
{
    conv_fill(p, t, a, b);
    return t->conv_words[(size_t)a * (size_t)t->ncand + (size_t)b];
}

/* Cycles of moving W long words a PE between DRAM and every PE as
 * the routes do (acc_cg_emit_load, and a store the same way up:
 * gather.L1, the tree, dma.gather), each piece waited for: pieces of
 * at most what every BM on the way holds, each its DMA (latency, the
 * words of the busiest channel), its tree transfers and W/4 dist.L1
 * (or gather.L1) steps.  run 1: a matrix stage's run (each piece after
 * the first under the last one's dist.L1s); 2: a pipeline's input,
 * which comes as such a run of pieces of half a load when it is
 * larger than one. */
/* The elementwise and reduction routes without a schedule lay their
 * tensors out themselves and pipeline their DMAs under the groups or
 * chunks before: their own models (AccCgProgram.est_cycles, as the
 * matmul route's) stand for the plan's, whose layouts they do not
 * follow.  TODO(issue 6): where this is still off the routes'
 * programs: a matmul stage's loads, which the matmul route runs under
 * its mfma steps with its own shape; operands too large for the PEs'
 * memories have no candidate (test matmul 1024), where the route
 * streams them from DRAM. */
static double route_io(const AccMachine *m, int64_t W, int64_t pes,
                       int run)
{
    int k = acc_bm_levels(m) + 1;
    int64_t wmax = acc_cg_max_load(m, k);

    W = (W + 3) / 4 * 4;
    if (wmax < 4)
        wmax = 4;
    /* An input larger than one load: the pipeline route loads it as a
     * run of pieces of half a load (cg_pipe.c, put_loads). */
    if (run == 2 && W > wmax && wmax / 2 / 4 * 4 >= 4)
        wmax = wmax / 2 / 4 * 4;
    else if (run != 1 && acc_cg_pieces_pay(m, W, pes)) {
        /* One load: the pipeline route takes it in pieces of columns
         * (cg_pipe_piece.c) where they pay, stage 0 folding each piece
         * as it lands, and stores its output as the last stage
         * computes it, so that the pieces' DMAs follow one another. */
        wmax = acc_cg_piece_words(W);
        run = 1;
    } else if (run == 2)
        run = 0;
    return acc_cg_io_steps(m, W, pes, wmax, run) * m->step_cycles;
}

/* Whether a matrix-unit stage reads tensor t: the matmul route loads
 * it as a run (acc_cg_emit_load_run), each piece's DMA and tree
 * transfers under the last one's dist.L1s. */
static int read_as_run(const AccPlan *p, const PlTensor *t)
{
    for (int i = 0; i < p->nop; i++)
        for (int r = 0; r < p->op[i].nreads; r++)
            if (&p->t[p->op[i].reads[r].t] == t && p->op[i].matmul)
                return 1;
    return 0;
}

/* The PEs a load or store of L moves words of: every node under the
 * outermost level it splits its axes over, which a route loads W long
 * words a PE (acc_cg_emit_load) whether a PE holds words of its own,
 * copies or nothing (mn2's 64 x 64 softmax in ((8_L2B, 8_L1B),
 * (16_MAB, 2, 2_W)) moves 16384 lw each way, not 4096); copies over
 * the levels above it come once from DRAM and the tree broadcasts
 * them (gamma[d] of a layernorm: one L1B's share). */
static int64_t layout_pes(const AccLayout *L)
{
    int64_t n = 1;
    int high = -1;

    for (int i = 0; i < L->nf; i++)
        if (L->f[i].kind == ACC_F_LEVEL &&
            (high < 0 || L->f[i].level < high))
            high = L->f[i].level;
    for (int i = high; high >= 0 && i < L->m->nlevels; i++)
        n *= L->m->level[i].fanout;
    return n;
}

static void io_fill(AccPlan *p, PlTensor *t, int a)
{
    const AccLayout *L;

    if (t->io[a] >= 0)
        return;
    if (t->role == PT_STAGE) {
        t->io[a] = 0;
        t->io_words[a] = 0;
        return;
    }
    /* What the routes emit: the runner lays the image out in DRAM in
     * the order the program loads it (AccCgIn.map), so a load is a
     * few long DMA runs of the layout's long words a PE (copies
     * included: an image a copy), not one DMA op a row-major run
     * (acc_layout_emit_load/_store, which read a row-major image: 1.1
     * M cycles for test softmax 512 x 512). */
    L = t->cand[a].L;
    t->io[a] = route_io(p->m, L->addr_span, layout_pes(L),
                        t->role != PT_INPUT ? 0
                        : read_as_run(p, t) ? 1 : 2);
    t->io_words[a] = layout_pes(L) * ((L->addr_span + 3) / 4 * 4);
}

double pl_io(AccPlan *p, PlTensor *t, int a)
{
    io_fill(p, t, a);
    return t->io[a];
}

int64_t pl_io_words(AccPlan *p, PlTensor *t, int a)
{
    io_fill(p, t, a);
    return t->io_words[a];
}
