/*
 * layout_time.c - where layout_emit.c's instructions go: their text,
 * and the steps, long words and DMA traffic the simulator will count
 * for them (acc_sim.c's issue rules, acc_sim_xfer.c's occupancy and
 * DMA timing), so that a conversion can be costed by emitting it
 * without its text.  The emitter writes one op per bundle, so each
 * call here is one bundle.
 *
 * Only the kinds of op the emitter writes are timed: ALU ops, `nop/N`,
 * transfers of 4 long words per PE (bcast, dist, gather at L1; the
 * written lengths at the levels above), DMA ld/st of one top node, and
 * `wait` on the one tag it uses.
 */
#include "codegen/acc/layout.h"
#include "codegen/acc/acc_int.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void acc_sink_init(AccSink *e, const AccMachine *m, TlBuf *out)
{
    memset(e, 0, sizeof *e);
    e->m = m;
    e->out = out;
}

void acc_sink_text(AccSink *e, const char *fmt, ...)
{
    va_list ap;
    if (!e->out)
        return;
    va_start(ap, fmt);
    buf_vprintf(e->out, fmt, ap);
    va_end(ap);
}

/* One bundle of one op in slot (occupying it occ steps) that issues
 * not before step `after`; the stream moves on nsteps. */
static void bundle(AccSink *e, int slot, int64_t occ, int64_t after,
                   int64_t nsteps)
{
    int64_t s = e->step;
    if (slot >= 0 && e->slot_free[slot] > s)
        s = e->slot_free[slot];
    if (after > s)
        s = after;
    if (slot >= 0)
        e->slot_free[slot] = s + occ;
    e->step = s + nsteps;
}

void acc_sink_alu(AccSink *e, const char *fmt, ...)
{
    va_list ap;
    bundle(e, ACC_SLOT_ALU, 1, 0, 1);
    if (!e->out)
        return;
    va_start(ap, fmt);
    buf_vprintf(e->out, fmt, ap);
    va_end(ap);
}

void acc_sink_nop(AccSink *e, int64_t n)
{
    bundle(e, -1, 0, 0, n);
    if (e->out)
        buf_printf(e->out, "nop/%lld\n", (long long)n);
}

void acc_sink_xfer(AccSink *e, int k, AccXferKind xk, int64_t n,
                   const char *fmt, ...)
{
    const AccMachine *m = e->m;
    const AccLevel *l = &m->level[acc_bm_level(m, k)];
    int64_t F = acc_children(m, k), occ;
    int64_t nodes = acc_level_nodes(m, acc_bm_level(m, k));
    double bm, child, cyc;
    va_list ap;

    /* As acc_xfer_steps and the link counts of acc_sim_xfer.c, for PE
     * operands one long word wide. */
    if (k == 1) {
        bm = xk == ACC_XK_BCAST ? 4.0 : (double)F * 4;
        child = 4;
        e->link_words += acc_machine_pes(m) * 4;
    } else {
        bm = xk == ACC_XK_GATHER ? (double)n * F : (double)n;
        child = xk == ACC_XK_DIST ? (double)n / F : (double)n;
        e->link_words += nodes * F * (xk == ACC_XK_DIST ? n / F : n);
    }
    cyc = fmax(bm / l->bw_bm[xk], child / l->bw_child[xk]);
    occ = (int64_t)ceil(cyc / m->step_cycles - 1e-9);
    bundle(e, ACC_SLOT_L + k - 1, occ < 1 ? 1 : occ, 0, 1);
    if (!e->out)
        return;
    va_start(ap, fmt);
    buf_vprintf(e->out, fmt, ap);
    va_end(ap);
}

void acc_sink_dma(AccSink *e, int64_t node, int64_t n, const char *fmt,
                  ...)
{
    const AccMachine *m = e->m;
    int64_t nt = acc_level_nodes(m, acc_bm_level(m, acc_bm_levels(m)));
    int64_t per = nt / m->dram_channels > 0 ? nt / m->dram_channels : 1;
    int64_t ch = node / per < m->dram_channels ? node / per
                                               : m->dram_channels - 1;
    int64_t cyc, start, x;
    va_list ap;

    bundle(e, ACC_SLOT_DMA, 1, e->next_dma, 1);
    /* The op issued at step e->step - 1. */
    e->next_dma = e->step - 1 + m->dma_issue_steps;
    cyc = (e->step - 1) * m->step_cycles;
    if (ch >= ACC_SINK_CHANNELS)
        ch = ACC_SINK_CHANNELS - 1;
    start = cyc > e->chan_free[ch] ? cyc : e->chan_free[ch];
    x = (int64_t)ceil((double)n / m->dram_bw - 1e-9);
    e->chan_free[ch] = start + x;
    if (start + x + m->dma_latency > e->tag_done)
        e->tag_done = start + x + m->dma_latency;
    e->dram_words += n;
    e->dma_ops++;
    if (!e->out)
        return;
    va_start(ap, fmt);
    buf_vprintf(e->out, fmt, ap);
    va_end(ap);
}

void acc_sink_wait(AccSink *e)
{
    int64_t sc = e->m->step_cycles;
    bundle(e, -1, 0, (e->tag_done + sc - 1) / sc, 1);
    if (e->out)
        buf_puts(e->out, "wait t0\n");
}

int64_t acc_sink_cycles(const AccSink *e)
{
    int64_t c = e->step * e->m->step_cycles;
    return c > e->tag_done ? c : e->tag_done;
}
