/*
 * cg_mm_lane.c - a matmul operand from its `layout` into the route's
 * image when the image's long words are not long words of the operand
 * row-major (cg_mm_dist.c): an f32 A, whose image keeps one element a
 * long word, and an f16 B, whose image's long words run down B's
 * columns.  DMA moves long words, so the elements change their places
 * inside long words on the PEs, by conversions that are exact both
 * ways (f16 -> f32 -> f64 and back), as cg_seg_conv.c does between
 * segments:
 *
 *   f16 only: the row-major copy widened to f32 row-major (each long
 *     word to a double long word, `cvt.f32.f16`);
 *   the f32 row-major copy unpacked, one f64 long word an element
 *     (acc_seg_emit_unpack), beside one area for each padding value
 *     the image holds (A's -0, B's +0, a zero_pad read's value);
 *   the f32 image gathered from them (acc_seg_emit_gather: DMA runs of
 *     long words into the top BMs, `cvt.f32.f64` on the PEs);
 *   f16 only: that f32 image narrowed to f16 (`cvt.f16.f32`, each
 *     double long word to a long word).
 *
 * Every pass goes down the tree to every PE and up again, a chunk at a
 * time, and its last chunk may write past its end, so each result has
 * a scratch area of its own after the operand's row-major copy; the
 * caller moves the finished image into place by long words.  A NaN's
 * payload may not survive the widening (the f64 conversions quiet a
 * signalling NaN); every other value, -0 included, comes out as it
 * went in.
 */
#include "codegen/acc/cg_mm_int.h"

#include <stdio.h>
#include <stdlib.h>

/* Long words per PE of a full chunk: as cg_seg_conv.c's, a multiple
 * of 8 the BMs hold and the LMs hold twice over. */
static int64_t chunk_w(const AccMachine *m)
{
    int64_t w = acc_cg_max_load(m, acc_bm_levels(m) + 1);

    if (w > m->lm_words / 4)
        w = m->lm_words / 4;
    return w / 8 * 8;
}

/* Per-PE long words of chunk c of `total` in chunks of full, the last
 * rounded up to a multiple of mult. */
static int64_t chunk_of(int64_t total, int64_t full, int64_t mult, int64_t c)
{
    int64_t left = total - c * full;

    if (left >= full)
        return full;
    return (left + mult - 1) / mult * mult;
}

static int64_t chunks(int64_t perpe, int64_t full)
{
    int64_t n = (perpe + full - 1) / full;

    return n < 1 ? 1 : n;
}

/* The widening's chunk: W source long words per PE. */
static int64_t widen_w(const AccMachine *m)
{
    return chunk_w(m) / 2 / 4 * 4;
}

/* Long words the widening of n f16 writes (f32 row-major, then what
 * its last chunk writes past it). */
static int64_t widen_words(const AccMachine *m, int64_t n)
{
    int64_t P = acc_machine_pes(m), W = widen_w(m);
    int64_t perpe = ((n + 3) / 4 + P - 1) / P, nc = chunks(perpe, W);

    return 2 * P * ((nc - 1) * W + chunk_of(perpe, W, 4, nc - 1));
}

/* Long words the narrowing of n f32 (at a chunk's multiple) writes. */
static int64_t narrow_words(const AccMachine *m, int64_t n)
{
    int64_t P = acc_machine_pes(m), full = chunk_w(m);
    int64_t perpe = ((n + 1) / 2 + P - 1) / P, nc = chunks(perpe, full);

    return P * ((nc - 1) * full + chunk_of(perpe, full, 8, nc - 1)) / 2;
}

/* W double long words per PE from `space` word 0 on to DRAM at `at`,
 * PE i's 4t + c at double long word (t * span1 + i) * 4 + c: the
 * order acc_cg_emit_load gives long words (cg_seg_conv.c's store of
 * an unpacking). */
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

/* n f16 row-major at src into f32 row-major at dst. */
static void emit_widen(TlBuf *o, const AccMachine *m, int64_t src, int64_t n,
                       int64_t dst)
{
    int64_t P = acc_machine_pes(m), W = widen_w(m);
    int64_t perpe = ((n + 3) / 4 + P - 1) / P, nc = chunks(perpe, W);

    buf_printf(o, "# widen %lld f16 at d[%lld] to f32 at d[%lld]\n",
               (long long)n, (long long)src, (long long)dst);
    for (int64_t c = 0; c < nc; c++) {
        int64_t Wc = chunk_of(perpe, W, 4, c);
        acc_cg_emit_load(o, m, src + c * W * P, Wc, "lm0", 0,
                         acc_bm_levels(m) + 1);
        for (int64_t t = 0; t < Wc / 4; t++)
            buf_printf(o, "cvt.f32.f16 lm0[%lld+] -> lm1[%lld+].dd\n",
                       (long long)(8 * t), (long long)(16 * t));
        acc_cg_nop(o, m->lat_lm);
        store_dd(o, m, "lm1", Wc, dst + c * 2 * W * P);
        buf_puts(o, "wait t1\n");
    }
}

/* n f32 at src (a chunk's multiple may be read past it) into f16 at
 * dst. */
static void emit_narrow(TlBuf *o, const AccMachine *m, int64_t src, int64_t n,
                        int64_t dst)
{
    int nbm = acc_bm_levels(m);
    int64_t P = acc_machine_pes(m), full = chunk_w(m);
    int64_t perpe = ((n + 1) / 2 + P - 1) / P, nc = chunks(perpe, full);
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    char b[16];

    acc_cg_bm_name(b, sizeof b, nbm);
    buf_printf(o, "# narrow %lld f32 at d[%lld] to f16 at d[%lld]\n",
               (long long)n, (long long)src, (long long)dst);
    for (int64_t c = 0; c < nc; c++) {
        int64_t Wc = chunk_of(perpe, full, 8, c), S = P * Wc / NT;
        for (int64_t nd = 0; nd < NT; nd++)
            buf_printf(o, "dma.ld.t0@%lld d[%lld:%lld] -> %s[0]\n",
                       (long long)nd, (long long)(src + c * P * full + nd * S),
                       (long long)(src + c * P * full + (nd + 1) * S), b);
        buf_puts(o, "wait t0\n");
        acc_seg_load_dd(o, m, Wc / 2, "lm0", acc_bm_levels(m));
        for (int64_t t = 0; t < Wc / 8; t++)
            buf_printf(o, "cvt.f16.f32 lm0[%lld+].dd -> lm1[%lld+]\n",
                       (long long)(16 * t), (long long)(8 * t));
        acc_cg_nop(o, m->lat_lm);
        acc_cg_emit_store(o, m, "lm1", 0, Wc / 2, dst + c * P * full / 2);
        buf_puts(o, "wait t1\n");
    }
}

/* The padding values image i holds where its map has no element: 0
 * the operand's pad, 1 the zero_pad value. */
static int pads_used(const AccCgMm *x, int i, int used[2])
{
    const int64_t *map = x->lmap[i];

    used[0] = used[1] = 0;
    for (int64_t e = 0; e < x->nlmap[i]; e++)
        if (map[e] < 0)
            used[map[e] == ACC_CG_OUTSIDE] = 1;
    return used[0] + used[1];
}

/* Where each area goes after base: widened, unpacked, constants,
 * gathered, narrowed; the total. */
typedef struct {
    int64_t wide, unp, cat[2], gat, nar, end;
    AccSegUnpack u;
} Areas;

static void areas(const AccCgMm *x, int i, int64_t base, Areas *a)
{
    const AccMachine *m = x->g.m;
    const TlTensor *t = x->g.c->in[x->g.p->ins[i].input];
    int64_t n = tl_tensor_numel(t), nd = x->nlmap[i], at = base;
    int used[2];

    a->wide = at;
    if (x->ew == 4)
        at += widen_words(m, n);
    a->unp = at;
    acc_seg_unpack_init(&a->u, m, x->ew == 4 ? a->wide : x->mid_at[i], n,
                        a->unp);
    at += a->u.words;
    pads_used(x, i, used);
    for (int q = 0; q < 2; q++) {
        a->cat[q] = at;
        if (used[q])
            at += acc_seg_const_words(m);
    }
    a->gat = at;
    at += (nd + 1) / 2 + acc_seg_conv_slack(m);
    a->nar = at;
    if (x->ew == 4)
        at += narrow_words(m, nd) + 8;
    a->end = at;
}

int acc_cg_mm_lane_ok(const AccCgMm *x)
{
    return acc_seg_conv_ok(x->g.m) && (x->ew == 2 || x->ew == 4);
}

int64_t acc_cg_mm_lane_words(const AccCgMm *x, int i, int64_t base)
{
    Areas a;

    areas(x, i, base, &a);
    return a.end - base;
}

int64_t acc_cg_mm_lane_emit(AccCgMm *x, int i, TlBuf *o, int64_t base)
{
    const AccMachine *m = x->g.m;
    const AccCgIn *in = &x->g.p->ins[i];
    const int64_t *map = x->lmap[i];
    int64_t nd = x->nlmap[i], *from;
    double val[2] = {in->pad, in->bpad};
    int used[2];
    Areas a;

    areas(x, i, base, &a);
    pads_used(x, i, used);
    if (x->ew == 4)
        emit_widen(o, m, x->mid_at[i], a.u.n, a.wide);
    acc_seg_emit_unpack(o, &a.u);
    for (int q = 0; q < 2; q++)
        if (used[q] && acc_seg_emit_const(o, m, val[q], a.cat[q]))
            return -1;
    from = tl_xmalloc((size_t)(nd + 1) * sizeof *from);
    for (int64_t e = 0; e < nd; e++)
        from[e] = map[e] >= 0 ? acc_seg_unpacked_at(&a.u, map[e])
                              : -1 - (map[e] == ACC_CG_OUTSIDE);
    acc_seg_emit_gather(o, m, from, nd, a.cat, a.gat);
    free(from);
    if (x->ew == 2)
        return a.gat;
    emit_narrow(o, m, a.gat, nd, a.nar);
    return a.nar;
}
