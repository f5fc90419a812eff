/*
 * cg_seg_conv.c - the conversions between the segments of one program
 * (target_seg.c) as instructions: a DRAM image of f32 elements gathered
 * element by element into another (a route's operand image: an
 * im2col-like window with its padding, a broadcast operand expanded, a
 * matmul's output read back in row-major order), through the tree.
 *
 * A long word holds two f32 elements and DMA moves long words, so an
 * element that changes its half of a long word cannot move by DMA
 * alone.  The source is first unpacked: loaded into the PEs, each
 * element widened to an f64 long word of its own (`cvt.f64.f32`, exact)
 * and stored back, so that element e is long word e of the unpacked
 * copy; a constant the destination holds (its padding) is an area of
 * long words of its value.  Then the destination is built in chunks:
 * DMA gathers the long words each chunk needs into the top BMs, in the
 * destination's order (one `dma.ld@node` per run of consecutive source
 * words: a window's rows, a tile's columns), the tree distributes them
 * 8 to a PE (`dist.L1 ... .dd`: 4 double long words), the PEs narrow
 * each pair back into one long word (`cvt.f32.f64`, exact) and the
 * chunk goes back up 4 long words a PE, which is the destination's
 * order again.  The unpacking keeps the order the same way (4 long
 * words a PE down, 4 double ones up).  Both passes use every PE; r,
 * lm0, lm1 and the BMs are scratch, as between two segments nothing
 * lives there.  A chunk's
 * store may write past the destination's last element, up to
 * acc_seg_conv_slack long words.  That is the DMA path, one DMA op a
 * run; cg_seg_tree.c gathers a chunk with few DMA ops and a broadcast
 * of the top level a run instead, and acc_seg_emit_gather takes
 * whichever is estimated fewer steps.  TODO(issue 6): long words whose
 * two elements stay together (runs of row-major pairs) could skip the
 * unpacking; runs of one element (transposes, broadcasts) permuted
 * inside the PEs or MABs rather than a broadcast each; conversions on
 * the tree (layout_emit.c) once the routes take the planner's layouts.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long words per PE of a full chunk of the gather: a multiple of 8
 * that the BMs hold and the LMs hold twice over. */
int64_t acc_seg_chunk_w(const AccMachine *m)
{
    int64_t w = acc_cg_max_load(m, acc_bm_levels(m) + 1);

    if (w > m->lm_words / 4)
        w = m->lm_words / 4;
    return w / 8 * 8;
}

int acc_seg_conv_ok(const AccMachine *m)
{
    return acc_bm_levels(m) >= 1 && acc_seg_chunk_w(m) >= 8;
}

int64_t acc_seg_conv_slack(const AccMachine *m)
{
    return acc_seg_chunk_w(m) * acc_machine_pes(m);
}

/* Per-PE long words of chunk c of `total` per-PE long words in chunks
 * of full (the last one rounded up to a multiple of `mult`). */
static int64_t chunk_of(int64_t total, int64_t full, int64_t mult,
                        int64_t c)
{
    int64_t left = total - c * full;

    if (left >= full)
        return full;
    return (left + mult - 1) / mult * mult;
}

/* Stores W double long words per PE from `space` word 0 on into DRAM at
 * `at` in order: PE i's 4t + c at (t * span1 + i) * 4 + c, over the
 * nodes in order (acc_cg_emit_store with `.dd` operands). */
static void store_dd(TlBuf *o, const AccMachine *m, const char *space,
                     int64_t W, int64_t at)
{
    int64_t span1 = acc_cg_scope_pes(m, 1);

    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "gather.L1 %s[%lld+].dd -> lb[%lld]\n", space,
                   (long long)(16 * t), (long long)(t * span1 * 8));
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_GATHER, (double)(span1 * 8), 8));
    acc_cg_gather_up(o, m, span1 * W * 2, at);
}

/* The level-top BMs' W double long words per PE (in order) down to
 * `space` word 0 on (acc_cg_emit_load_tree with `.dd` operands). */
void acc_seg_load_dd(TlBuf *o, const AccMachine *m, int64_t W,
                     const char *space, int nbm)
{
    int64_t span1 = acc_cg_scope_pes(m, 1);
    char b[16], c[16];

    for (int j = nbm; j >= 2; j--) {
        int64_t len = acc_cg_scope_pes(m, j) * W * 2;
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        acc_cg_bm_name(b, sizeof b, j);
        acc_cg_bm_name(c, sizeof c, j - 1);
        buf_printf(o, "dist.L%d %s[0:%lld] -> %s[0]\n", j, b,
                   (long long)len, c);
        acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_DIST, (double)len,
                                  (double)len / (double)F));
    }
    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "dist.L1 lb[%lld] -> %s[%lld+].dd\n",
                   (long long)(t * span1 * 8), space, (long long)(16 * t));
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_DIST, (double)(span1 * 8), 8));
}

void acc_seg_unpack_init(AccSegUnpack *u, const AccMachine *m, int64_t src,
                         int64_t n, int64_t dst)
{
    int64_t P = acc_machine_pes(m), lw = (n + 1) / 2;

    u->m = m;
    u->src = src;
    u->n = n;
    u->dst = dst;
    u->W = acc_seg_chunk_w(m) / 2 / 4 * 4;
    u->perpe = (lw + P - 1) / P;
    u->chunks = (u->perpe + u->W - 1) / u->W;
    if (u->chunks < 1)
        u->chunks = 1;
    u->words = 2 * P * ((u->chunks - 1) * u->W +
                        chunk_of(u->perpe, u->W, 4, u->chunks - 1));
}

int64_t acc_seg_unpacked_at(const AccSegUnpack *u, int64_t e)
{
    return u->dst + e;
}

void acc_seg_emit_unpack(TlBuf *o, const AccSegUnpack *u)
{
    const AccMachine *m = u->m;
    int64_t P = acc_machine_pes(m);

    buf_printf(o, "# unpack %lld f32 at d[%lld] into f64 long words at "
               "d[%lld]\n", (long long)u->n, (long long)u->src,
               (long long)u->dst);
    for (int64_t c = 0; c < u->chunks; c++) {
        int64_t Wc = chunk_of(u->perpe, u->W, 4, c);
        acc_cg_emit_load(o, m, u->src + c * u->W * P, Wc, "lm0", 0,
                         acc_bm_levels(m) + 1);
        for (int64_t t = 0; t < Wc / 4; t++)
            buf_printf(o, "cvt.f64.f32 lm0[%lld+] -> lm1[%lld+].dd\n",
                       (long long)(8 * t), (long long)(16 * t));
        acc_cg_nop(o, m->lat_lm);
        store_dd(o, m, "lm1", Wc, u->dst + c * 2 * u->W * P);
        buf_puts(o, "wait t1\n");
    }
}

int64_t acc_seg_const_words(const AccMachine *m)
{
    return 4 * acc_machine_pes(m);
}

int acc_seg_emit_const(TlBuf *o, const AccMachine *m, double v, int64_t at)
{
    if (!isfinite(v))
        return -1;
    buf_printf(o, "# the constant %.17g in f64 long words at d[%lld]\n", v,
               (long long)at);
    buf_printf(o, "mov.f64 #%.17g -> lm1[0+]\n", v);
    acc_cg_nop(o, m->lat_lm);
    acc_cg_emit_store(o, m, "lm1", 0, 4, at);
    buf_puts(o, "wait t1\n");
    return 0;
}

/* The DRAM long word of destination element d: from[d] >= 0 an
 * unpacked element's, else constant -1 - from[d], continuing a run
 * where it can (*prev: the last word given, -1: none). */
int64_t acc_seg_word_of(const int64_t *from, int64_t d,
                       const int64_t *cat, int64_t cwords, int64_t prev)
{
    int64_t ci, base;

    if (from[d] >= 0)
        return from[d];
    ci = -1 - from[d];
    base = cat[ci];
    if (prev >= base && prev + 1 < base + cwords)
        return prev + 1;
    return base;
}

/* The gather of acc_seg_emit_gather with every run of the destination
 * a DMA op into the top BMs; o NULL: only counts the ops. */
static int64_t gather_dma(TlBuf *o, const AccMachine *m,
                          const int64_t *from, int64_t nd,
                          const int64_t *cat, int64_t dst)
{
    int nbm = acc_bm_levels(m);
    int64_t P = acc_machine_pes(m), full = acc_seg_chunk_w(m);
    int64_t perpe = ((nd + 1) / 2 * 2 + P - 1) / P, chunks;
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm)), ops = 0;
    int64_t cwords = acc_seg_const_words(m);
    char b[16];

    chunks = (perpe + full - 1) / full;
    if (chunks < 1)
        chunks = 1;
    acc_cg_bm_name(b, sizeof b, nbm);
    if (o)
        buf_printf(o, "# gather %lld f32 into d[%lld]\n", (long long)nd,
                   (long long)dst);
    for (int64_t c = 0; c < chunks; c++) {
        int64_t Wc = chunk_of(perpe, full, 8, c), S = P * Wc / NT;
        for (int64_t nd_ = 0; nd_ < NT; nd_++) {
            int64_t run = -1, len = 0, at = 0, prev = -1;
            for (int64_t q = nd_ * S; q <= (nd_ + 1) * S; q++) {
                int64_t a = -1, d = c * P * full + q;
                if (q < (nd_ + 1) * S && d < nd)
                    a = acc_seg_word_of(from, d, cat, cwords, prev);
                if (a >= 0 && run >= 0 && a == run + len &&
                    q == at + len) {
                    len++;
                    prev = a;
                    continue;
                }
                if (run >= 0 && o)
                    buf_printf(o, "dma.ld.t0@%lld d[%lld:%lld] -> %s[%lld]\n",
                               (long long)nd_, (long long)run,
                               (long long)(run + len), b,
                               (long long)(at - nd_ * S));
                ops += run >= 0;
                run = a;
                len = a >= 0;
                at = q;
                prev = a;
            }
        }
        if (!o)
            continue;
        buf_puts(o, "wait t0\n");
        acc_seg_load_dd(o, m, Wc / 2, "lm0", nbm);
        for (int64_t t = 0; t < Wc / 8; t++)
            buf_printf(o, "cvt.f32.f64 lm0[%lld+].dd -> lm1[%lld+]\n",
                       (long long)(16 * t), (long long)(8 * t));
        acc_cg_nop(o, m->lat_lm);
        acc_cg_emit_store(o, m, "lm1", 0, Wc / 2, dst + c * P * full / 2);
        buf_puts(o, "wait t1\n");
    }
    return ops;
}

int64_t acc_seg_emit_gather(TlBuf *o, const AccMachine *m,
                            const int64_t *from, int64_t nd,
                            const int64_t *cat, int64_t dst)
{
    int64_t P = acc_machine_pes(m), full = acc_seg_chunk_w(m);
    int64_t perpe = ((nd + 1) / 2 * 2 + P - 1) / P;
    int64_t chunks = perpe > full ? (perpe + full - 1) / full : 1;
    /* Steps of the DMA path: its ops' issue, and a chunk's way through
     * the tree and back (the same estimate acc_seg_emit_tree makes). */
    int64_t dma = gather_dma(NULL, m, from, nd, cat, dst);
    int64_t est = dma * m->dma_issue_steps +
                  chunks * acc_seg_chunk_steps(m, full);
    TlBuf t;
    int64_t tops, r;

    buf_init(&t);
    r = acc_seg_emit_tree(&t, m, from, nd, cat, dst, est, &tops);
    if (r >= 0) {
        buf_puts(o, t.s);
        buf_free(&t);
        return r;
    }
    buf_free(&t);
    return gather_dma(o, m, from, nd, cat, dst);
}
