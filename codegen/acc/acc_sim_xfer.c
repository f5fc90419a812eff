/*
 * acc_sim_xfer.c - data movement: the transfers of each BM level
 * (ACCELERATOR.md 4.5) with their occupancy from the level's rates,
 * and the asynchronous DMA between DRAM and the top BMs, timed per
 * channel (5.1).
 *
 * Layouts in a BM for L1 ops, with w the PE operand's width in long
 * words, c the sub-cycle, p the PE's index in its group (MAB) and i its
 * index under the L1 node: bcast reads [c*w], mbcast, ucast and red use
 * [(c*G + p)*w], dist and gather [(i*4 + c)*w].
 */
#include "codegen/acc/acc_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *stage_bm(AccStage *st, int64_t nodes, int64_t len)
{
    if (nodes * len > st->bmcap) {
        st->bmcap = nodes * len;
        st->bmv = tl_xrealloc(st->bmv, (size_t)st->bmcap * 8);
    }
    st->bmlen = len;
    st->bmset = 0;
    return st->bmv;
}

static double lane_get(TlDType dt, const uint64_t *v, int l)
{
    return tl_dt_load_f64(dt, (const uint8_t *)v + l * (acc_dt_bits(dt) / 8));
}

/* Combines long words src into acc elementwise for a reduction. */
static void reduce_lw(AccOpcode opc, TlDType dt, uint64_t *acc,
                      const uint64_t *src, int64_t n)
{
    if (dt == DT_F32 && (opc == ACC_OP_REDADD || opc == ACC_OP_DREDADD)) {
        for (int64_t j = 0; j < n; j++) {
            float a[2], b[2];
            memcpy(a, acc + j, 8);
            memcpy(b, src + j, 8);
            a[0] += b[0];
            a[1] += b[1];
            memcpy(acc + j, a, 8);
        }
        return;
    }
    int per = 64 / acc_dt_bits(dt), bytes = acc_dt_bits(dt) / 8;
    int isf = dt == DT_F64 || dt == DT_F32 || dt == DT_F16 || dt == DT_BF16;
    for (int64_t j = 0; j < n; j++)
        for (int l = 0; l < per; l++) {
            uint8_t *pa = (uint8_t *)(acc + j) + l * bytes;
            double a = lane_get(dt, acc + j, l), b = lane_get(dt, src + j, l);
            int add = opc == ACC_OP_REDADD || opc == ACC_OP_DREDADD;
            int mx = opc == ACC_OP_REDMAX || opc == ACC_OP_DREDMAX;
            if (!isf) {
                int64_t x = tl_dt_load_i64(dt, pa);
                int64_t y = tl_dt_load_i64(dt, (const uint8_t *)(src + j) +
                                                   l * bytes);
                int64_t r = add ? (int64_t)((uint64_t)x + (uint64_t)y)
                            : mx ? (x >= y ? x : y) : (x <= y ? x : y);
                tl_dt_store_i64(dt, pa, r);
                continue;
            }
            double r;
            if (add)
                r = dt == DT_F32 ? (double)((float)a + (float)b) : a + b;
            else if (isnan(a) || isnan(b))
                r = NAN;
            else
                r = mx ? (a >= b ? a : b) : (a <= b ? a : b);
            tl_dt_store_f64(dt, pa, r);
        }
}

static int is_red(int opc)
{
    return (opc >= ACC_OP_REDADD && opc <= ACC_OP_REDMIN) ||
           opc >= ACC_OP_DREDADD;
}

static void exec_l1(AccSim *sim, const AccOp *op, AccStage *st)
{
    const AccMachine *m = sim->m;
    int64_t G = sim->gsize, span = acc_children(m, 1);
    int64_t words = m->level[acc_bm_level(m, 1)].bm_words;
    int down = acc_op_kind(op->opc) == ACC_K_XDOWN;
    const AccOpnd *pe_o = down ? &op->dst[0] : &op->src[0];
    const AccOpnd *bm_o = down ? &op->src[0] : &op->dst[0];
    int w = pe_o->width;
    int64_t nodes = sim->bm_nodes[1], len = acc_xfer_len(m, op);
    if (down) {
        int64_t got = 0;
        for (int64_t pe = 0; pe < sim->npe; pe++) {
            const uint64_t *bm = sim->bm[1] + (pe / span) * words +
                                 bm_o->addr;
            int64_t p = pe % G, i = pe % span;
            /* A node set names PEs, or groups for mbcast. */
            int64_t ch = op->opc == ACC_OP_MBCAST ? i / G : i;
            int in = !op->set || (op->set >> ch & 1);
            got += in;
            for (int c = 0; c < 4; c++) {
                int64_t off = op->opc == ACC_OP_BCAST ? c * w
                              : op->opc == ACC_OP_MBCAST ? (c * G + p) * w
                              : (i * 4 + c) * w;
                uint64_t *d = st->v + (pe * 4 + c) * 2;
                d[0] = bm[off];
                d[1] = w == 2 ? bm[off + 1] : 0;
                st->on[pe * 4 + c] = (uint8_t)in;
            }
        }
        sim->st.link_words[0][0] += got * 4 * w;
        return;
    }
    uint64_t *out = stage_bm(st, nodes, len);
    memset(out, 0, (size_t)(nodes * len) * 8);
    uint8_t *seen = NULL;
    int red = is_red(op->opc);
    if (red)
        seen = tl_xcalloc((size_t)nodes, 1);
    acc_load_opnd(sim, op, pe_o, sim->opv[0]);
    for (int64_t pe = 0; pe < sim->npe; pe++) {
        int64_t node = pe / span, p = pe % G, i = pe % span;
        if (op->opc == ACC_OP_UCAST && i / G != op->child)
            continue;
        for (int c = 0; c < 4; c++) {
            const uint64_t *v = sim->opv[0] + (pe * 4 + c) * 2;
            int64_t off = op->opc == ACC_OP_GATHER ? (i * 4 + c) * w
                                                   : (c * G + p) * w;
            uint64_t *d = out + node * len + off;
            if (red && i / G > 0)
                reduce_lw((AccOpcode)op->opc, (TlDType)op->dt, d, v, w);
            else
                memcpy(d, v, (size_t)w * 8);
        }
    }
    free(seen);
    sim->st.link_words[0][1] += op->opc == ACC_OP_UCAST
                                    ? nodes * G * 4 * w
                                    : sim->npe * 4 * w;
}

static void exec_lk(AccSim *sim, const AccOp *op, AccStage *st)
{
    const AccMachine *m = sim->m;
    int k = op->level;
    int64_t F = acc_children(m, k), NP = sim->bm_nodes[k];
    int64_t wp = m->level[acc_bm_level(m, k)].bm_words;
    int64_t wc = m->level[acc_bm_level(m, k - 1)].bm_words;
    int64_t n = op->src[0].stride;
    const uint64_t *par = sim->bm[k], *chd = sim->bm[k - 1];
    int64_t a = op->src[0].addr;
    if (acc_op_kind(op->opc) == ACC_K_XDOWN) {
        int64_t dlen = op->opc == ACC_OP_DIST ? n / F : n;
        uint64_t *out = stage_bm(st, NP * F, dlen);
        int64_t got = 0;
        for (int64_t P = 0; P < NP; P++)
            for (int64_t ch = 0; ch < F; ch++) {
                if (op->set && !(op->set >> ch & 1))
                    continue;
                memcpy(out + (P * F + ch) * dlen,
                       par + P * wp + a + (op->opc == ACC_OP_DIST
                                               ? ch * dlen : 0),
                       (size_t)dlen * 8);
                got++;
            }
        st->bmset = op->set;
        st->bmfan = F;
        sim->st.link_words[k - 1][0] += got * dlen;
        return;
    }
    int64_t dlen = op->opc == ACC_OP_GATHER ? n * F : n;
    uint64_t *out = stage_bm(st, NP, dlen);
    for (int64_t P = 0; P < NP; P++)
        for (int64_t ch = 0; ch < F; ch++) {
            const uint64_t *src = chd + (P * F + ch) * wc + a;
            uint64_t *d = out + P * dlen;
            if (op->opc == ACC_OP_GATHER)
                memcpy(d + ch * n, src, (size_t)n * 8);
            else if (op->opc == ACC_OP_UCAST) {
                if (ch == op->child)
                    memcpy(d, src, (size_t)n * 8);
            } else if (ch == 0)
                memcpy(d, src, (size_t)n * 8);
            else
                reduce_lw((AccOpcode)op->opc, (TlDType)op->dt, d, src, n);
        }
    sim->st.link_words[k - 1][1] += op->opc == ACC_OP_UCAST ? NP * n
                                                            : NP * F * n;
}

void acc_exec_xfer(AccSim *sim, const AccOp *op, AccStage *st)
{
    if (op->level == 1)
        exec_l1(sim, op, st);
    else
        exec_lk(sim, op, st);
}

int64_t acc_xfer_steps(const AccMachine *m, const AccOp *op)
{
    const AccLevel *lv = &m->level[acc_bm_level(m, op->level)];
    int kind = op->opc == ACC_OP_DIST ? ACC_XK_DIST
               : op->opc == ACC_OP_GATHER ? ACC_XK_GATHER
               : acc_op_kind(op->opc) == ACC_K_XDOWN ? ACC_XK_BCAST
                                                     : ACC_XK_RED;
    double bm, child;
    if (op->level == 1) {
        const AccOpnd *pe = acc_op_kind(op->opc) == ACC_K_XDOWN
                                ? &op->dst[0] : &op->src[0];
        bm = (double)acc_xfer_len(m, op);
        child = 4.0 * pe->width;
    } else {
        double n = op->src[0].stride, F = (double)acc_children(m, op->level);
        bm = op->opc == ACC_OP_GATHER ? n * F : n;
        child = op->opc == ACC_OP_DIST ? n / F : n;
    }
    /* A dist to a node set reads only the set's slices from the BM;
     * a broadcast reads its words once whoever receives them. */
    if (op->opc == ACC_OP_DIST && op->set) {
        int64_t n, in = 0;
        const char *what, *under;
        acc_set_children(m, op, &n, &what, &under);
        for (int64_t c = 0; c < n && c < 64; c++)
            in += op->set >> c & 1;
        bm = bm * (double)in / (double)n;
    }
    double cyc = fmax(bm / lv->bw_bm[kind], child / lv->bw_child[kind]);
    int64_t steps = (int64_t)ceil(cyc / m->step_cycles - 1e-9);
    return steps < 1 ? 1 : steps;
}

/* --- DMA ----------------------------------------------------------------- */

int acc_dma_volumes(const AccMachine *m, const AccOp *op, int64_t *vol)
{
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, acc_bm_levels(m)));
    int64_t n = op->src[0].stride;
    int64_t per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;
    int opc = op->opc;

    memset(vol, 0, 1024 * sizeof *vol);
    for (int64_t nd = 0; nd < NT; nd++) {
        int64_t ch = nd / per < m->dram_channels ? nd / per
                                                 : m->dram_channels - 1;
        if (ch >= 1024)
            ch = 1023;
        switch (opc) {
        case ACC_OP_DLD: case ACC_OP_DST:
            if (nd == op->child)
                vol[ch] += n;
            break;
        case ACC_OP_DBCAST:
            /* A channel moves the words once for all of its nodes in
             * the set (MN-Core's mvb2: both L2BMs of a group). */
            if (!op->set || (op->set >> nd & 1))
                vol[ch] = n;
            break;
        case ACC_OP_DDIST:
            vol[ch] += n / NT;
            break;
        default:    /* dgather and the reductions */
            vol[ch] += n;
            break;
        }
    }
    return opc == ACC_OP_DST || opc == ACC_OP_DGATHER || is_red(opc);
}

static void dram_rw(AccSim *sim, int64_t lw, uint64_t *buf, int64_t n,
                    int write)
{
    for (int64_t j = 0; j < n; j++) {
        uint64_t *d = (uint64_t *)(void *)acc_dram_at(sim, lw + j, write);
        if (write)
            *d = buf[j];
        else
            buf[j] = *d;
    }
}

static int dram_hazard(AccSim *sim, int64_t lo, int64_t hi, int64_t cyc)
{
    for (int i = 0; i < sim->npending; i++) {
        const AccPending *q = &sim->pending[i];
        if (q->done <= cyc || q->hi <= lo || hi <= q->lo)
            continue;
        if (!sim->strict) {
            sim->st.hazards++;
            return 0;
        }
        const AccBundle *w = &sim->p->b[q->bundle];
        char msg[300];
        snprintf(msg, sizeof msg, "DRAM %lld..%lld is read at cycle %lld, "
                 "but the DMA of %s %d lands there only at cycle %lld: "
                 "wait for its tag first", (long long)lo, (long long)hi,
                 (long long)cyc, w->loc.file >= 0 ? "line" : "bundle",
                 w->loc.line, (long long)q->done);
        const AccBundle *b = &sim->p->b[sim->cur_b];
        diag_error(sim->s, b->loc, DIAG_ACC_HAZARD, msg);
        sim->failed = 1;
        return -1;
    }
    return 0;
}

void acc_exec_dma(AccSim *sim, const AccOp *op)
{
    const AccMachine *m = sim->m;
    int top = sim->nbm;
    int64_t NT = sim->bm_nodes[top];
    int64_t words = m->level[acc_bm_level(m, top)].bm_words;
    int64_t n = op->src[0].stride, cyc = sim->step * m->step_cycles;
    int64_t vol[1024];
    int up = acc_dma_volumes(m, op, vol);
    uint64_t *bm = sim->bm[top];
    int opc = op->opc;
    int64_t dlen = opc == ACC_OP_DDIST ? n / NT
                   : opc == ACC_OP_DGATHER ? n * NT : n;
    if (!up && dram_hazard(sim, op->src[0].addr, op->src[0].addr + n, cyc))
        return;
    uint64_t *buf = tl_xmalloc((size_t)(n > dlen ? n : dlen) * 8);
    for (int64_t nd = 0; nd < NT; nd++) {
        uint64_t *b = bm + nd * words;
        switch (opc) {
        case ACC_OP_DLD: case ACC_OP_DST:
            if (nd != op->child)
                continue;
            if (opc == ACC_OP_DLD)
                dram_rw(sim, op->src[0].addr, b + op->dst[0].addr, n, 0);
            else
                dram_rw(sim, op->dst[0].addr, b + op->src[0].addr, n, 1);
            break;
        case ACC_OP_DBCAST:
            if (!op->set || (op->set >> nd & 1))
                dram_rw(sim, op->src[0].addr, b + op->dst[0].addr, n, 0);
            break;
        case ACC_OP_DDIST:
            dram_rw(sim, op->src[0].addr + nd * dlen, b + op->dst[0].addr,
                    dlen, 0);
            break;
        case ACC_OP_DGATHER:
            dram_rw(sim, op->dst[0].addr + nd * n, b + op->src[0].addr, n,
                    1);
            break;
        default:
            if (nd == 0)
                memcpy(buf, b + op->src[0].addr, (size_t)n * 8);
            else
                reduce_lw((AccOpcode)opc, (TlDType)op->dt, buf,
                          b + op->src[0].addr, n);
            break;
        }
    }
    if (is_red(opc))
        dram_rw(sim, op->dst[0].addr, buf, n, 1);
    free(buf);
    int64_t *start = sim->trace ? tl_xcalloc(2048, sizeof *start) : NULL;
    int64_t done = acc_issue_dma(&sim->q, m, op, vol, cyc, start,
                                 start ? start + 1024 : NULL,
                                 &sim->st.dram_words[up]);
    for (int ch = 0; start && ch < m->dram_channels && ch < 1024 &&
                     ch < sim->trace->nchan; ch++)
        if (start[1024 + ch])
            acc_trace_add(&sim->trace->chan[ch], start[ch],
                          start[ch] + start[1024 + ch], ACC_TS_BUSY);
    free(start);
    int64_t ready = (done + m->step_cycles - 1) / m->step_cycles;
    if (up) {
        /* Forget landed writes, then remember this one. */
        int k = 0;
        for (int i = 0; i < sim->npending; i++)
            if (sim->pending[i].done > cyc)
                sim->pending[k++] = sim->pending[i];
        sim->npending = k;
        GROW(sim->pending, sim->npending, sim->cappending);
        AccPending *q = &sim->pending[sim->npending++];
        q->lo = op->dst[0].addr;
        q->hi = op->dst[0].addr + dlen;
        q->done = done;
        q->bundle = sim->cur_b;
    } else if (op->set) {
        /* Readiness is kept per address, not per node: a broadcast to
         * some nodes must not make words another DMA still brings to
         * other nodes look landed, so a word is readable when both are
         * (strict, never lenient). */
        AccReady *rd = sim->rd_bm[top];
        for (int64_t a = op->dst[0].addr; a < op->dst[0].addr + dlen; a++)
            if (rd[a].step < ready) {
                rd[a].step = ready;
                rd[a].bundle = sim->cur_b;
            }
    } else {
        acc_mark_ready(sim, sim->rd_bm[top], op->dst[0].addr,
                       op->dst[0].addr + dlen, ready);
    }
}
