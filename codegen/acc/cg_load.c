/*
 * cg_load.c - moving data between DRAM and the PEs for the reduction
 * and matmul routes, and the waits a transfer needs.
 *
 * A load takes W long words per PE (W a multiple of 4) from a DRAM
 * image laid out in the order the tree's transfers consume it, so that
 * each level moves its whole share with one op: below a node of BM
 * level j the image is the concatenation of its children's images, and
 * under one node of L1 it is T = W/4 groups, each the PE-major image
 * `dist.L1` reads (PE i, sub-cycle c at [i*4 + c]).  The DMA
 * distributes the top level's share (or broadcasts it when the data is
 * the same in every node of a lower level, the scope), BM levels above
 * the scope broadcast, the others distribute, and L1 writes 4 long
 * words per PE per op.  cg_overlap.c issues such a load in the free
 * slots of compute bundles (the matmul route's B sets); the reduction
 * route issues a chunk's DMA (acc_cg_emit_load_dma) a chunk or two
 * before its tree transfers (acc_cg_emit_load_tree); the pipeline
 * route loads a block before its stages, in runs of pieces, or, one
 * block of one row pair a PE, in pieces of columns whose first stage's
 * folds go between them (acc_cg_emit_load_run_then; TODO(issue 6):
 * under the stages of the block before, cg_pipe.c).
 *
 * A run of loads (acc_cg_emit_load_run, the matmul route's A chunks)
 * alternates between two buffers in every BM, so that piece q + 1's
 * DMA and tree transfers proceed while piece q's dist.L1s write the
 * PEs; its DMAs alternate two tags, so that piece q + 1's goes out as
 * soon as piece q's tree transfers have read the top buffer it fills,
 * and piece q's wait does not wait for it: on mn2 a chunk of A is
 * bound by the L2 broadcast alone.  When the DMA is the slower stage
 * (a B set broadcast on every channel), piece 1's DMA goes out right
 * behind piece 0's and piece q + 2's before the wait for piece q + 1,
 * so that the channels never wait for a piece's latency and tree
 * transfers.  A scope may carry ACC_CG_PARTS:
 * the DMA then distributes a scope image to each top node; or column
 * parts (cg_int.h): one DMA per block of top nodes broadcasts that
 * block's part to it (`dma.bcast@{...}`), each DRAM channel moving the
 * parts of the blocks it serves only.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>

void acc_cg_bm_name(char *buf, size_t n, int k)
{
    snprintf(buf, n, k == 1 ? "lb" : k == 2 ? "lc" : "b%d", k);
}

void acc_cg_nop(TlBuf *o, int64_t n)
{
    if (n > 0)
        buf_printf(o, "nop/%lld\n", (long long)n);
}

int64_t acc_cg_wait(const AccMachine *m, int k, int kind, double bm,
                    double child)
{
    const AccLevel *l = &m->level[acc_bm_level(m, k)];
    double cyc = fmax(bm / l->bw_bm[kind], child / l->bw_child[kind]);
    int64_t steps = (int64_t)ceil(cyc / m->step_cycles - 1e-9);

    if (steps < 1)
        steps = 1;
    /* The result is readable lat steps after the op's last step; the
     * next bundle issues one step after the op. */
    return steps - 1 + l->lat_steps - 1;
}

int64_t acc_cg_scope_pes(const AccMachine *m, int k)
{
    if (k > acc_bm_levels(m))
        return acc_machine_pes(m);
    return acc_level_span(m, acc_bm_level(m, k));
}

int64_t acc_cg_img_pos(const AccMachine *m, int64_t pe, int64_t w,
                       int64_t W)
{
    int64_t span1 = acc_cg_scope_pes(m, 1);
    int64_t node = pe / span1, i = pe % span1, t = w / 4, c = w % 4;

    return ((node * (W / 4) + t) * span1 + i) * 4 + c;
}

int64_t acc_cg_max_load(const AccMachine *m, int k)
{
    int nbm = acc_bm_levels(m);
    int64_t best = -1;

    for (int j = 1; j <= nbm; j++) {
        int64_t span = acc_cg_scope_pes(m, j < k ? j : k);
        int64_t w = m->level[acc_bm_level(m, j)].bm_words / span;
        if (best < 0 || w < best)
            best = w;
    }
    return best / 4 * 4;
}

int64_t acc_cg_cols(int k)
{
    return k >> ACC_CG_COLS_SHIFT > 1 ? k >> ACC_CG_COLS_SHIFT : 1;
}

/* Top nodes, and those on one DRAM channel. */
static int64_t top_nodes(const AccMachine *m, int64_t *per)
{
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, acc_bm_levels(m)));

    *per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;
    return NT;
}

/* The DRAM channel of top node nd (acc_dma_volumes' rule). */
static int64_t chan_of(const AccMachine *m, int64_t nd)
{
    int64_t per;

    top_nodes(m, &per);
    return nd / per < m->dram_channels ? nd / per : m->dram_channels - 1;
}

int64_t acc_cg_cols_per_chan(const AccMachine *m, int64_t cq)
{
    int64_t per, NT = top_nodes(m, &per), most = 0;

    for (int64_t ch = 0; ch < m->dram_channels && cq > 1; ch++) {
        int64_t n = 0;
        for (int64_t c = 0; c < cq; c++) {
            int on = 0;
            for (int64_t nd = c * (NT / cq); nd < (c + 1) * (NT / cq); nd++)
                on |= chan_of(m, nd) == ch;
            n += on;
        }
        if (n > most)
            most = n;
    }
    return cq > 1 ? most : 1;
}

/* Long words of a load's DMA (its scope k, ACC_CG_PARTS included): a
 * broadcast sends the scope's image (each column part's), a
 * distribution every node's. */
static int64_t dma_words(const AccMachine *m, int k, int64_t W)
{
    int nbm = acc_bm_levels(m);
    int64_t n = acc_cg_scope_pes(m, k & ACC_CG_LEVEL) * W;

    if (k & ACC_CG_PARTS)
        n *= acc_level_nodes(m, acc_bm_level(m, nbm));
    return n * acc_cg_cols(k);
}

/* Whether the DMA of a load of scope k distributes. */
static int dma_dist(const AccMachine *m, int k)
{
    return (k & ACC_CG_PARTS) || (k & ACC_CG_LEVEL) > acc_bm_levels(m);
}

/* The DMA ops of a load of scope k (tag, the top BM word off): one,
 * or one per column part, each to its block of top nodes. */
static void put_dma(TlBuf *o, const AccMachine *m, int64_t at, int64_t W,
                    int k, int64_t off, int tag)
{
    int64_t cq = acc_cg_cols(k), n = dma_words(m, k, W) / cq, per;
    int64_t NT = top_nodes(m, &per);
    char b[16];

    acc_cg_bm_name(b, sizeof b, acc_bm_levels(m));
    for (int64_t c = 0; c < cq; c++) {
        buf_printf(o, "dma.%s.t%d", dma_dist(m, k) ? "dist" : "bcast", tag);
        for (int64_t nd = c * (NT / cq); cq > 1 && nd < (c + 1) * (NT / cq);
             nd++)
            buf_printf(o, "%s%lld", nd == c * (NT / cq) ? "@{" : ",",
                       (long long)nd);
        buf_printf(o, "%s d[%lld:%lld] -> %s[%lld]\n", cq > 1 ? "}" : "",
                   (long long)(at + c * n), (long long)(at + (c + 1) * n), b,
                   (long long)off);
    }
}

/* The BM word where a load's area at level j starts (off: by level,
 * NULL: all 0). */
static int64_t base_of(const int64_t *off, int j)
{
    return off ? off[j] : 0;
}

void acc_cg_emit_load(TlBuf *o, const AccMachine *m, int64_t at,
                      int64_t W, const char *space, int64_t dst, int k)
{
    acc_cg_emit_load_in(o, m, at, W, space, dst, k, 0, NULL);
}

void acc_cg_emit_load_dma(TlBuf *o, const AccMachine *m, int64_t at,
                          int64_t W, int k, int tag, const int64_t *off)
{
    put_dma(o, m, at, W, k, base_of(off, acc_bm_levels(m)), tag);
}

void acc_cg_emit_load_tree(TlBuf *o, const AccMachine *m, int64_t W,
                           const char *space, int64_t dst, int k,
                           const int64_t *off)
{
    int nbm = acc_bm_levels(m);
    int64_t span1 = acc_cg_scope_pes(m, 1), n;
    char b[16], c[16];

    k &= ACC_CG_LEVEL;
    n = acc_cg_scope_pes(m, k) * W;
    for (int j = nbm; j >= 2; j--) {
        int64_t len = j > k ? n : acc_cg_scope_pes(m, j) * W;
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        int64_t from = base_of(off, j);
        acc_cg_bm_name(b, sizeof b, j);
        acc_cg_bm_name(c, sizeof c, j - 1);
        buf_printf(o, "%s.L%d %s[%lld:%lld] -> %s[%lld]\n",
                   j > k ? "bcast" : "dist", j, b, (long long)from,
                   (long long)(from + len), c,
                   (long long)base_of(off, j - 1));
        if (j > k)
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_BCAST, (double)len,
                                      (double)len));
        else
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_DIST, (double)len,
                                      (double)len / (double)F));
    }
    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "dist.L1 lb[%lld] -> %s[%lld+]\n",
                   (long long)(base_of(off, 1) + t * span1 * 4), space,
                   (long long)(dst + 8 * t));
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_DIST, (double)(span1 * 4), 4));
}

void acc_cg_emit_load_in(TlBuf *o, const AccMachine *m, int64_t at,
                         int64_t W, const char *space, int64_t dst, int k,
                         int tag, const int64_t *off)
{
    acc_cg_emit_load_dma(o, m, at, W, k, tag, off);
    buf_printf(o, "wait t%d\n", tag);
    acc_cg_emit_load_tree(o, m, W, space, dst, k, off);
}

/* Steps until such a piece's DMA lands: the latency, its words on one
 * channel (a broadcast sends all of them on each, a distribution the
 * share of the top nodes a channel serves). */
static int64_t run_dma_steps(const AccMachine *m, int k, int64_t W)
{
    int nbm = acc_bm_levels(m);
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    int64_t per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;
    int64_t n = dma_words(m, k, W);
    double vol = dma_dist(m, k) ? (double)n * per / NT
                                : (double)n / acc_cg_cols(k) *
                                      acc_cg_cols_per_chan(m, acc_cg_cols(k));

    return (int64_t)ceil((vol / m->dram_bw + m->dma_latency) /
                             m->step_cycles - 1e-9);
}

/* Piece W's transfers down the BM levels to L1, buffer `buf` of
 * buffers of Wmax per PE; returns the steps until the last one is
 * readable (its nop is the caller's). */
static int64_t run_tree(TlBuf *o, const AccMachine *m, int64_t W,
                        int64_t Wmax, int k, int buf, const int64_t *off)
{
    int nbm = acc_bm_levels(m);
    int64_t n = acc_cg_scope_pes(m, k) * W, last = 0;
    char b[16], c[16];

    for (int j = nbm; j >= 2; j--) {
        int64_t len = j > k ? n : acc_cg_scope_pes(m, j) * W;
        int64_t sz = j > k ? acc_cg_scope_pes(m, k) * Wmax
                           : acc_cg_scope_pes(m, j) * Wmax;
        int64_t szc = j - 1 > k ? acc_cg_scope_pes(m, k) * Wmax
                                : acc_cg_scope_pes(m, j - 1) * Wmax;
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        acc_cg_nop(o, last);
        acc_cg_bm_name(b, sizeof b, j);
        acc_cg_bm_name(c, sizeof c, j - 1);
        buf_printf(o, "%s.L%d %s[%lld:%lld] -> %s[%lld]\n",
                   j > k ? "bcast" : "dist", j, b,
                   (long long)(base_of(off, j) + buf * sz),
                   (long long)(base_of(off, j) + buf * sz + len), c,
                   (long long)(base_of(off, j - 1) + buf * szc));
        last = j > k ? acc_cg_wait(m, j, ACC_XK_BCAST, (double)len,
                                   (double)len)
                     : acc_cg_wait(m, j, ACC_XK_DIST, (double)len,
                                   (double)len / (double)F);
    }
    return last;
}

int64_t acc_cg_tree_steps(const AccMachine *m, int64_t W, int k)
{
    int nbm = acc_bm_levels(m);
    int64_t n, steps = 0;

    k &= ACC_CG_LEVEL;
    n = acc_cg_scope_pes(m, k) * W;

    for (int j = nbm; j >= 2; j--) {
        int64_t len = j > k ? n : acc_cg_scope_pes(m, j) * W;
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        steps += 1 + (j > k ? acc_cg_wait(m, j, ACC_XK_BCAST, (double)len,
                                          (double)len)
                            : acc_cg_wait(m, j, ACC_XK_DIST, (double)len,
                                          (double)len / (double)F));
    }
    return steps;
}

/* Piece of W long words a PE from the L1BM buffer at lb into space at
 * dst, 4 long words a dist.L1. */
static void put_dists(TlBuf *o, int64_t W, int64_t lb, int64_t span1,
                      const char *space, int64_t dst)
{
    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "dist.L1 lb[%lld] -> %s[%lld+]\n",
                   (long long)(lb + t * span1 * 4), space,
                   (long long)(dst + 8 * t));
}

void acc_cg_emit_load_run(TlBuf *o, const AccMachine *m, int64_t n,
                          const int64_t *at, const int64_t *W,
                          int64_t Wmax, const char *space,
                          const int64_t *dst, int k, int tag,
                          const int64_t *off)
{
    acc_cg_emit_load_run_then(o, m, n, at, W, Wmax, space, dst, k, tag, off,
                              NULL, NULL);
}

/* Piece q is readable once its dist.L1s have settled: the caller's
 * code for it, then; the steps it took (and the settling) count
 * towards piece q + 1's tree transfers' wait.  Returns those steps. */
static int64_t run_then(TlBuf *o, const AccMachine *m, int64_t span1,
                        AccCgPieceFn then, void *ctx, int64_t q)
{
    int64_t d = acc_cg_wait(m, 1, ACC_XK_DIST, (double)(span1 * 4), 4);
    TlBuf t;
    int64_t steps;

    acc_cg_nop(o, d);
    buf_init(&t);
    then(ctx, q, &t);
    steps = d + acc_cg_text_steps(t.s ? t.s : "");
    if (t.s)
        buf_puts(o, t.s);
    buf_free(&t);
    return steps;
}

void acc_cg_emit_load_run_then(TlBuf *o, const AccMachine *m, int64_t n,
                               const int64_t *at, const int64_t *W,
                               int64_t Wmax, const char *space,
                               const int64_t *dst, int k, int tag,
                               const int64_t *off, AccCgPieceFn then,
                               void *ctx)
{
    int nbm = acc_bm_levels(m), kd = k, early;
    int64_t span1, pes, top, lbsz, tw, done = 0;

    k &= ACC_CG_LEVEL;
    span1 = acc_cg_scope_pes(m, 1);
    pes = acc_cg_scope_pes(m, k);
    top = (nbm > k ? pes : acc_cg_scope_pes(m, nbm)) * Wmax;
    lbsz = span1 * Wmax;
    if (n <= 0)
        return;
    put_dma(o, m, at[0], W[0], kd, base_of(off, nbm), tag);
    if (nbm < 2) {
        buf_printf(o, "wait t%d\n", tag);
        /* Without tree transfers, the DMA lands in lb itself: piece q
         * + 1's DMA goes out while q's dist.L1s run. */
        for (int64_t q = 0; q < n; q++) {
            int b = (int)(q % 2);
            if (q > 0)
                buf_printf(o, "wait t%d\n", tag);
            if (q + 1 < n)
                put_dma(o, m, at[q + 1], W[q + 1], kd,
                        base_of(off, nbm) + (1 - b) * top, tag);
            put_dists(o, W[q], base_of(off, 1) + b * lbsz, span1, space,
                      dst[q]);
            if (then)
                run_then(o, m, span1, then, ctx, q);
        }
        if (!then)
            acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_DIST,
                                      (double)(span1 * 4), 4));
        return;
    }
    /* When the DMA is the slower stage, piece 1's DMA goes out at
     * once (both top buffers are free), under tag + 1, so that the
     * channels move it right behind piece 0's while piece 0 waits out
     * its latency and tree transfers; else after piece 0's tree
     * transfers, which then start sooner. */
    early = run_dma_steps(m, kd, Wmax) >= acc_cg_tree_steps(m, Wmax, k);
    if (n > 1 && early)
        put_dma(o, m, at[1], W[1], kd, base_of(off, nbm) + top, tag + 1);
    buf_printf(o, "wait t%d\n", tag);
    tw = run_tree(o, m, W[0], Wmax, k, 0, off);
    if (n > 1 && !early) {
        put_dma(o, m, at[1], W[1], kd, base_of(off, nbm) + top, tag + 1);
        tw--;
    }
    for (int64_t q = 0; q < n; q++) {
        int b = (int)(q % 2);
        /* tw counts from piece q's last tree transfer, which piece q -
         * 1's dist.L1s followed. */
        if (q > 0)
            tw -= W[q - 1] / 4 + done;
        acc_cg_nop(o, tw);
        /* Piece q's tree transfers have read top buffer b: piece q +
         * 2's DMA may go out now, before the wait for piece q + 1's, so
         * that the channels move it right behind q + 1's rather than
         * after q + 1's latency and tree transfers (early), or after
         * q + 1's tree transfers, which then start sooner. */
        if (q + 2 < n && early)
            put_dma(o, m, at[q + 2], W[q + 2], kd,
                    base_of(off, nbm) + b * top, tag + (int)(q % 2));
        if (q + 1 < n) {
            buf_printf(o, "wait t%d\n", tag + (int)((q + 1) % 2));
            tw = run_tree(o, m, W[q + 1], Wmax, k, 1 - b, off);
            if (q + 2 < n && !early) {
                put_dma(o, m, at[q + 2], W[q + 2], kd,
                        base_of(off, nbm) + b * top, tag + (int)(q % 2));
                tw--;
            }
        }
        put_dists(o, W[q], base_of(off, 1) + b * lbsz, span1, space,
                  dst[q]);
        if (then)
            done = run_then(o, m, span1, then, ctx, q);
    }
    if (!then)
        acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_DIST, (double)(span1 * 4),
                                  4));
}

void acc_cg_emit_store(TlBuf *o, const AccMachine *m, const char *space,
                       int64_t src, int64_t W, int64_t at)
{
    int64_t span1 = acc_cg_scope_pes(m, 1);

    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "gather.L1 %s[%lld+] -> lb[%lld]\n", space,
                   (long long)(src + 8 * t), (long long)(t * span1 * 4));
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_GATHER, (double)(span1 * 4), 4));
    acc_cg_gather_up(o, m, span1 * W, at);
}

void acc_cg_gather_up(TlBuf *o, const AccMachine *m, int64_t len,
                      int64_t at)
{
    int nbm = acc_bm_levels(m);
    char b[16], c[16];

    for (int j = 2; j <= nbm; j++) {
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        acc_cg_bm_name(b, sizeof b, j - 1);
        acc_cg_bm_name(c, sizeof c, j);
        buf_printf(o, "gather.L%d %s[0:%lld] -> %s[0]\n", j, b,
                   (long long)len, c);
        acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_GATHER, (double)(len * F),
                                  (double)len));
        len *= F;
    }
    acc_cg_bm_name(b, sizeof b, nbm);
    buf_printf(o, "dma.gather.t1 %s[0:%lld] -> d[%lld]\n", b,
               (long long)len, (long long)at);
}

double acc_cg_io_steps(const AccMachine *m, int64_t W, int64_t pes,
                       int64_t wmax, int run)
{
    int k = acc_bm_levels(m) + 1;
    double steps = 0;

    for (int first = 1; W > 0; first = 0) {
        int64_t w = W < wmax ? W : wmax;
        double chan = (double)(pes * w) / m->dram_channels;
        double dma = (m->dma_latency + chan / m->dram_bw) / m->step_cycles;
        double tree = (double)acc_cg_tree_steps(m, w, k);
        if (first || !run)
            steps += dma + tree + w / 4.0 + 2;
        else
            steps += fmax(fmax(chan / m->dram_bw / m->step_cycles, tree),
                          w / 4.0) + 2;
        W -= w;
    }
    return steps;
}

int64_t acc_cg_piece_words(int64_t W)
{
    return (W / 4 + ACC_CG_PIECES - 1) / ACC_CG_PIECES * 4;
}

int acc_cg_pieces_pay(const AccMachine *m, int64_t W, int64_t pes)
{
    int64_t wmax = acc_cg_max_load(m, acc_bm_levels(m) + 1);

    if (W < 8 || W % 4 || 2 * W > wmax)
        return 0;
    return acc_cg_io_steps(m, W, pes, acc_cg_piece_words(W), 1) <
           acc_cg_io_steps(m, W, pes, W, 0);
}
