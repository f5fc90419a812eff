/*
 * cg_mm.c - matmul on the matrix unit: C[i, j] = sum(k) A[i, k] *
 * B[k, j], f32 (or f16/bf16 inputs, f32 sums), with the weights
 * stationary and the accumulation kept local and reduced once.
 *
 * The f32 unit computes, per sub-cycle, y = X b with X 8 x 4 (rows x
 * columns, machine keys mau_f32): X holds a tile of B transposed (8
 * columns j, 4 rows k), b is 4 values of a row of A (one per PE of the
 * group, in lane 0 of its long word) and PE p receives C[i, j0 + 2p],
 * C[i, j0 + 2p + 1] in its long word.  So a group streams the rows i of
 * A through one B tile, 4 rows a step along the sub-cycles, and
 * accumulates in GRF: one long word per row i per PE.
 *
 * Work: the k tiles (KT) are dealt over the kspan groups under one node
 * of some BM level h (or the whole machine), the j tiles (JT) over the
 * NH nodes of that level; h is the level that gives each group the
 * fewest tiles (then the lowest: the cheapest reduction).  Each group
 * keeps KU = KT / kspan k tiles of A's columns for Mc rows in lm0 (the
 * same in every level-h node, so the load broadcasts above h), and for
 * each of its JV j tiles loads its KU B tiles into lm1 and runs them:
 * `mwrite` of tile u + 1 into the other matrix register rides in the
 * first bundle of tile u (the MW slot), then Mc / 4 `mfma` steps.  The
 * partial sums are then combined once per (rows, j tile): `redadd.L1`
 * four rows at a time, `redadd` at the levels up to h, `gather` above
 * it, and `dma.redadd` or `dma.gather` into DRAM.  The runner lays A
 * and B out in the order the loads consume them and reads C back
 * (AccCgIn.map, AccCgProgram.omap).
 *
 * When two B sets fit in lm1, they alternate between its halves and
 * the next (rows, j set) pair's set loads under this one's mfma steps
 * (cg_overlap.c: its DMA, BM transfers and dist.L1 ride in the free
 * slots of the same bundles).  The pairs' sums alternate between the
 * GRFs r and s, and each pair's reduction rides the same way in the
 * next pair's bundles, before that pair's load.
 *
 * A chunk's loads go as one run (acc_cg_emit_load_run): pieces of half
 * what a BM takes, two buffers in every BM, so that piece q + 1's DMA
 * and broadcast proceed while piece q's dist.L1s write lm0.  And when
 * two chunks fit, A chunks are double-buffered between the LMs: chunk
 * mc's A in lm<mc % 2> from word 0, its B sets in the other LM from
 * word boff (2 Mc KU), and chunk mc + 1's run rides in chunk mc's
 * pairs.  Its dist.L1s write the LM that only the mwrite bundles
 * read; the first B set of chunk mc + 1 goes last, its dist.L1s after
 * the tiles, as they write the LM every mfma of chunk mc reads.
 *
 * What rides goes in three queues of the overlap engine (cg_overlap.c:
 * the next B set, the last pair's reduction, the next A chunk's run),
 * each with BM words of its own (regions(): the reduction's partial
 * tiles, a B set, A's two buffers) and its own DMA tag (t0, t1, t2), so
 * that A's run uses the DRAM channels and the links while a B set
 * waits for its DMA, across the pairs of the chunk; where the BMs are
 * too small for that (tiny), one queue keeps them in order, A's run in
 * shares behind each pair's reduction and B set, each load filling the
 * BMs.  cg_mm_plan.c's estimate() prices the ways (runs or not,
 * double buffer or not, ...) at each level h by their busiest resource
 * per pair (DRAM channels, the L1 link, the chains of latencies), and
 * its plan() takes the cheapest.
 *
 * The rows may also split over the nodes of the top BM level (R
 * parts, mode bit 4 of plan()): each node then computes its Mp rows
 * for every j tile, its level-h nodes sharing the j tiles, so that A's
 * pieces are distributed from DRAM (each node its own rows: a scope-h
 * load with ACC_CG_PARTS, cg_load.c) and B's sets broadcast (scope:
 * the top level).  A, one f32 per long word (b takes lane 0; no op
 * moves lane 1 to lane 0), then crosses each DRAM channel once per
 * node it serves instead of whole: f32 1024 on mn2 moves 256K long
 * words of A per channel instead of 1M.
 *
 * When B reads its input through a window (a convolution: cg_win.c),
 * plan() also prices B from a window image: each PE keeps its node's
 * block of input rows once in lm1 (with a halo), each mwrite reads a
 * tile's shifted columns from it with stride 4 words, and pair v's new
 * rows load in pair v - 1's bundles, once for all chunks of A (which
 * then load by themselves into lm0, the first beside the first rows,
 * those in pieces of 4 long words per PE that go out on the DRAM
 * channels between A's pieces).  The k order changes to (channel
 * slot, r, s) per group, the j tiles of a node to a block of rows by
 * tiles along x.
 *
 * Where no A chunk rides in the pairs, B's sets may load as runs too
 * (brun): two buffers in every BM's B region (the words A's buffers
 * would take), the DMAs alternating tags t4 and t5, and the last
 * pair's store (its `dma.gather` or `dma.redadd`) then waits in a
 * fourth queue (Q_ST, acc_cg_ov_after) for the set's last DMA, so that
 * the DRAM channels move it while that piece goes down the tree rather
 * than between the set's pieces.  And where a node's rows take two or
 * more chunks that all fit lm0 (f16: the GRF holds the sums of 128
 * rows), every chunk's A may stay there (ares): the pairs then go j
 * set by j set, the chunks' pairs of one set sharing its B tiles in
 * lm1, the next set loading across all of them, so that each B set
 * crosses the DRAM channels once instead of once per chunk.  Where
 * they do not fit lm0 at once (the columns split, mn2 f16 2048: 512
 * rows a node, 4096 long words of A a PE), every B set may stay in lm1
 * instead (bres, with the columns split and A chunks double-buffered):
 * set v from word boff + 2 v KU tw, each loading once, in chunk 0's
 * pairs, as a run; chunk mc's A in lm<mc % 2> as with adb, chunk mc +
 * 1's riding in chunk mc's pairs.  An odd chunk's A and the B sets
 * then share lm1, so its mwrites take bundles of their own (2 steps a
 * tile of 32 mfma steps on mn2 f16 2048).
 *
 * f16 and bf16 inputs converted to f32 in the product run on the 16 x
 * 16 unit: b is 4 values of k per PE (one long word), X a 16 x 16
 * tile written by two .dd mwrites, and each PE sums 4 columns j in
 * f32 (a double long word per row, reduced as such).
 *
 * TODO(issue 6): on mn2, f32 1024 (rows over the L2Bs, one chunk,
 * 73%) loads its A chunk by itself before the first pair, 2048 steps
 * of DRAM for 8192 mfma steps: two chunks would hide it but load every
 * B set twice, unless the B sets (1024 long words per PE) stayed in
 * lm1 across the chunks, whose mwrite then shares lm1 with the mfma of
 * a chunk there.  f16 is bound by DRAM at dram_bw 32: its least
 * traffic (A and B once, C once in f32: N^2 long words over the 4
 * channels) takes 2048 steps at 1024 (50% of the f16 peak at best)
 * and 8192 at 2048 (100%), but on the tree every L2B needs the B
 * columns of its j tiles, broadcast on each channel (1.25 N^2 / 4 + C
 * per channel with the rows split, 3584 steps at 1024: 29%, 14336 at
 * 2048: 57%); the programs reach 26% and 51% (B's runs, the stores
 * behind them, ares at 2048).  The columns may split over the top
 * nodes too (Cq = 2 blocks of top nodes, mode bit 7 of plan(), where a
 * DRAM channel serves one block): node c R + r computes rows part r
 * for the j tiles of column part c, each B piece goes as one
 * `dma.bcast@{...}` per block (a DMA broadcast to a node set,
 * MN-Core's `mvb`), and A's image holds each rows part once per block,
 * distributed as before: a channel moves A / 2 + B / 2 + C / 4 (3072
 * steps at 1024, 33% at best; the program 3510 steps, 29%).  Its
 * program is taken only when timed faster than the best shape without
 * it (by_time: the model mis-orders the two on some shapes).
 * At 2048 the split doubles a node's rows (512 f16 rows, 4 chunks),
 * whose A no longer fits lm0 at once (ares): the B sets stay in lm1
 * (bres) and the program reaches 56% (a channel moves A / 2 + B / 2 +
 * C / 4 = 1.5M long words, 12288 steps, 67% at best).  No split does
 * better under these channels: a channel's nodes compute a part of C
 * of area a and read the rows and columns of A and B it needs, a
 * fraction r and c of each with r c >= a (a k split adds partial sums
 * of C instead), so with A = B = N^2 / 4 and C = N^2 / 2 long words
 * its words are at least N^2 / 4 (r + c) + N^2 / 2 a >= N^2 / 4 2
 * sqrt(a) + N^2 / 2 a, at a = 1/4 (4 channels) 3 N^2 / 8: issue 6's
 * 70% for f16 needs more DRAM bandwidth.  TODO(issue 6): what keeps
 * bres from its bound is the last chunk, whose pairs leave the
 * channels half idle (its stores, 1024 steps, for 2176 of mfma), and
 * the chains of latencies; computing chunks 0 and 1 side by side does
 * not help (bench/README.md).  conv2d 1x64x56x56 (3x3)
 * reaches 51%: A's run (the weights, 36864 lw per L1B) is bound by the
 * L2 broadcast (16 lw/cycle, 576 steps) and the first pair waits for
 * all of it; the pair's first tiles could start as their pieces land,
 * but the window image's first rows load beside A's run for as long.
 * The window image stays in lm1, so A chunks cannot alternate the LMs
 * (an mfma reading A from lm1 beside an mwrite reading the image); and
 * on `test` the 56x56 image does not fit an LM (a ring of rows would).
 */
#include "codegen/acc/cg_mm_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int qid(const AccCgMm *x, int q)
{
    return x->oneq ? Q_B : q;
}

enum { MAX_TESTS = 4 * TL_MAX_RANK };

/* The tests of cond, a conjunction of comparisons of linear forms of
 * the loops (a zero_pad read's bounds), added to in; -1 when cond is
 * something else. */
static int tests_of(AccCg *g, const LExpr *cond, AccCgIn *in)
{
    AccCgLin a, b, *t;
    int64_t off;

    if (cond->kind == LE_BINARY && cond->op == LO_AND)
        return tests_of(g, cond->a, in) || tests_of(g, cond->b, in) ? -1 : 0;
    if (cond->kind != LE_BINARY || in->nbt == MAX_TESTS ||
        (cond->op != LO_LT && cond->op != LO_LE && cond->op != LO_GT &&
         cond->op != LO_GE) ||
        acc_cg_lin(g, cond->a, &a) || acc_cg_lin(g, cond->b, &b))
        return -1;
    /* a < b: a - b < 0; a <= b: a - b - 1 < 0; a >= b: a - b >= 0;
     * a > b: a - b - 1 >= 0. */
    off = cond->op == LO_LE || cond->op == LO_GT ? 1 : 0;
    t = &in->btest[in->nbt];
    for (int l = 0; l < TL_MAX_RANK; l++)
        t->coef[l] = a.coef[l] - b.coef[l];
    t->k = a.k - b.k - off;
    in->blt[in->nbt++] = cond->op == LO_LT || cond->op == LO_LE;
    return 0;
}

/* A read of an input, f32, or f16/bf16 converted to f32 (*dt: the
 * input's type); or such a read through bounds tests, padded with a
 * constant (a zero_pad read, lang/SPEC.md 9.3): the image holds the
 * constant where the tests fail (AccCgIn.btest), as the CPU path's
 * select reads it. */
static int load_of(AccCg *g, const LExpr *e, int *op, TlDType *dt)
{
    AccCgLin l;
    int p;
    const LExpr *cond = NULL;
    double pad = 0.0;

    if (e->kind == LE_SELECT && e->type.dt == DT_F32 &&
        !acc_cg_const(g, e->c, &pad)) {
        cond = e->a;
        e = e->b;
    }

    /* The unit sums f16 and bf16 products in f32: only a product of
     * inputs converted to f32 means that. */
    if (e->kind == LE_CAST && e->type.dt == DT_F32 && e->a->kind == LE_LOAD &&
        (e->a->type.dt == DT_F16 || e->a->type.dt == DT_BF16))
        e = e->a;
    else if (e->type.dt != DT_F32)
        return 1;
    *dt = e->type.dt;
    p = e->kind == LE_LOAD ? acc_cg_param_of(g, e->var) : -1;
    if (e->kind != LE_LOAD || p < 0 ||
        g->c->ck->params[p].kind != CGP_BUF || e->nargs != 1 ||
        acc_cg_lin(g, e->args[0], &l))
        return 1;
    for (int i = 0; i < g->c->k->ninputs; i++)
        if (g->c->k->inputs[i] == g->c->ck->params[p].f) {
            AccCgIn *in = &g->p->ins[g->p->nins];
            memset(in, 0, sizeof *in);
            in->name = g->p->nins ? "B" : "A";
            in->input = i;
            memcpy(in->coef, l.coef, sizeof l.coef);
            in->k = l.k;
            if (cond) {
                in->btest = arena_alloc(&g->s->arena,
                                        MAX_TESTS * sizeof *in->btest);
                in->blt = arena_alloc(&g->s->arena, MAX_TESTS);
                in->bpad = (float)pad;
                if (tests_of(g, cond, in))
                    return 1;
            }
            *op = g->p->nins++;
            return 0;
        }
    return 1;
}

/* LM word where the B set of pair number `pair` goes: alternate
 * halves when double-buffered. */
static int64_t half(const AccCgMm *x, int64_t pair)
{
    if (x->bres)
        return x->boff + 2 * (pair % x->JV) * x->KU * x->tw;
    return x->boff + (x->db && pair % 2 ? 2 * x->KU * x->tw : 0);
}

/* The LM that holds A chunk mc (B's sets are in the other). */
static int a_lm(const AccCgMm *x, int64_t mc)
{
    return x->adb ? (int)(mc % 2) : 0;
}

static const char *lm_name(int lm)
{
    return lm ? "lm1" : "lm0";
}

/* Ends bundle line: the overlapped load's next op, if any, rides in
 * it (reads: the LMs the bundle reads, bit i for lm<i>). */
static void end_bundle(TlBuf *o, AccCgOverlap *ov, int reads)
{
    const char *op = ov ? acc_cg_ov_next(ov, reads) : NULL;

    if (op)
        buf_printf(o, " ; %s", op);
    buf_putc(o, '\n');
}

/* Part h of B tile u's mwrite (f32: one; f16: two .dd, rows 0 and 8)
 * from LM bl into register R; with a window image, pair v's tile u
 * from where the image has it. */
static void mwrite(const AccCgMm *x, TlBuf *o, int bl, int64_t lb, int64_t v,
                   int64_t u, int h, const char *R)
{
    if (x->win) {
        buf_printf(o, "mwrite.f32 lm%d[%lld by 4] -> %s[0]", bl,
                   (long long)(2 * acc_cg_win_tile(&x->w, v, u)), R);
        return;
    }
    buf_printf(o, "mwrite.%s lm%d[%lld+]%s -> %s[%d]", dt_name(x->dt), bl,
               (long long)(lb + 2 * x->tw * u + 16 * h),
               x->rw == 2 ? ".dd" : "", R, 8 * h);
}

/* The mfma steps of j set v whose B tiles are in lm<1 - al> (bres:
 * lm1) from word lb, A's in lm<al>, summing into GRF R (r or s); ov:
 * what rides in their free slots (the last set's reduction, the next
 * set's load, a share of the next A chunk).  When A and B share an
 * LM, the next tile's mwrites take bundles of their own. */
static void emit_tiles(AccCgMm *x, int al, int64_t lb, int64_t v,
                       AccCgOverlap *ov, char R)
{
    TlBuf *o = &x->g.p->text;
    int64_t steps = x->Mc / 4, rs = 8 * x->rw;
    int nmw = x->ew == 2 ? 1 : 2;
    const char *T = dt_name(x->dt), *dd = x->rw == 2 ? ".dd" : "";
    int bl = x->bres ? 1 : 1 - al;

    for (int h = 0; h < nmw; h++) {
        mwrite(x, o, bl, lb, v, 0, h, "x");
        end_bundle(o, ov, 1 << bl);
    }
    for (int64_t u = 0; u < x->KU; u++) {
        const char *X = u % 2 ? "y" : "x", *Xn = u % 2 ? "x" : "y";
        int64_t a = x->a0 + u * x->Mc * 2;
        int mw = 0;
        /* The register the last tile read, written before this one's
         * mfma steps. */
        for (int h = 0; al == bl && h < nmw && u + 1 < x->KU; h++) {
            mwrite(x, o, bl, lb, v, u + 1, h, Xn);
            end_bundle(o, ov, 1 << bl);
        }
        for (int64_t s = 0; s < steps; s++) {
            if (u == 0)
                buf_printf(o, "mmul.%s %s, lm%d[%lld+] -> %c[%lld+]%s", T,
                           X, al, (long long)(a + 8 * s), R,
                           (long long)(rs * s), dd);
            else
                buf_printf(o, "mfma.%s %s, lm%d[%lld+], %c[%lld+]%s -> "
                           "%c[%lld+]%s", T, X, al, (long long)(a + 8 * s),
                           R, (long long)(rs * s), dd, R,
                           (long long)(rs * s), dd);
            mw = s < nmw && u + 1 < x->KU && al != bl;
            if (mw) {
                buf_puts(o, " ; ");
                mwrite(x, o, bl, lb, v, u + 1, (int)s, Xn);
            }
            end_bundle(o, ov, 1 << al | (mw ? 1 << bl : 0));
        }
        for (int64_t h = steps; h < nmw && u + 1 < x->KU && al != bl;
             h++) {
            mwrite(x, o, bl, lb, v, u + 1, (int)h, Xn);
            end_bundle(o, ov, 1 << bl);
        }
    }
    if (ov)
        acc_cg_ov_flush(ov, o, (x->keepb ? 0u : 1u << Q_B) | 1u << Q_RED |
                                   1u << Q_ST);
}

/* Writes to o the ops that combine the groups' partial sums of rows
 * chunk mc, j set v (in GRF R) and store them. */
static void emit_reduce(AccCgMm *x, TlBuf *o, int64_t mc, int64_t v, char R)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m);
    int64_t G = x->G, rw = x->rw, tile = x->Mc * G * rw;
    int64_t steps = x->Mc / 4, len = tile;
    char b[16], c[16];

    /* A .dd redadd.L1 holds the L1 link two steps: the next one waits
     * out the second in a nop, which a compute bundle fills when the
     * reduction rides, rather than stalling it. */
    for (int64_t s = 0; s < steps; s++) {
        if (s > 0)
            acc_cg_nop(o, rw - 1);
        buf_printf(o, "redadd.L1.f32 %c[%lld+]%s -> lb[%lld]\n", R,
                   (long long)(8 * rw * s), rw == 2 ? ".dd" : "",
                   (long long)(s * 4 * G * rw));
    }
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_RED, (double)(4 * G * rw),
                              (double)(4 * rw)));
    for (int j = 2; j <= nbm; j++) {
        acc_cg_bm_name(b, sizeof b, j - 1);
        acc_cg_bm_name(c, sizeof c, j);
        if (j <= x->h) {
            buf_printf(o, "redadd.L%d.f32 %s[0:%lld] -> %s[0]\n", j, b,
                       (long long)len, c);
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_RED, (double)len,
                                      (double)len));
        } else {
            int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
            buf_printf(o, "gather.L%d %s[0:%lld] -> %s[0]\n", j, b,
                       (long long)len, c);
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_GATHER,
                                      (double)(len * F), (double)len));
            len *= F;
        }
    }
    acc_cg_bm_name(b, sizeof b, nbm);
    buf_printf(o, "%s.t1 %s[0:%lld] -> d[%lld]\n",
               x->h > nbm ? "dma.redadd.f32" : "dma.gather", b,
               (long long)len,
               (long long)(x->c_at + (mc * x->JV + v) * x->NH * tile));
}

/* The loads q0 .. q1 - 1 of A chunk mc, as one run: queued in ov, or
 * else written to the program. */
static void a_run(const AccCgMm *x, AccCgOverlap *ov, int64_t mc, int64_t q0,
                  int64_t q1)
{
    int qa = qid(x, Q_A);
    const AccMachine *m = x->g.m;
    int64_t sa = acc_cg_mm_a_pes(x), wa = x->Mc * x->KU, n = q1 - q0;
    int64_t Wa = acc_cg_mm_a_w(x, mc), *at, *W, *dst;
    const int64_t *off = acc_cg_mm_rides(x, mc) ? x->offa : NULL;
    const char *sp = lm_name(a_lm(x, mc));
    int64_t base = x->ares ? 2 * mc * x->Mc * x->KU : 0;

    if (!x->arun) {
        for (int64_t q = q0; q < q1; q++) {
            int64_t a = x->a_at + acc_cg_mm_a_off(x, mc) + q * sa * Wa;
            int64_t Wq = acc_cg_mm_piece(q, Wa, wa);
            if (ov)
                acc_cg_ov_load(ov, qa, a, Wq, sp, base + 2 * q * Wa, x->ak,
                               2, off);
            else
                acc_cg_emit_load_in(&x->g.p->text, m, a, Wq, sp,
                                    base + 2 * q * Wa, x->ak, 2, off);
        }
        return;
    }
    at = tl_xmalloc((size_t)(n + 1) * 3 * sizeof *at);
    W = at + n + 1;
    dst = W + n + 1;
    for (int64_t q = q0; q < q1; q++) {
        at[q - q0] = x->a_at + acc_cg_mm_a_off(x, mc) + q * sa * Wa;
        W[q - q0] = acc_cg_mm_piece(q, Wa, wa);
        dst[q - q0] = base + 2 * q * Wa;
    }
    if (ov)
        acc_cg_ov_run(ov, qa, n, at, W, Wa, sp, dst, x->ak, 2, off);
    else
        acc_cg_emit_load_run(&x->g.p->text, m, n, at, W, Wa, sp, dst, x->ak,
                             2, off);
    free(at);
}

/* Every A chunk's loads as one run into lm0 (ares): the channels
 * then move chunk mc + 1's first pieces while chunk mc's last ones go
 * down the tree, where a run each would wait for them. */
static void a_runs_all(const AccCgMm *x)
{
    int64_t n = 0, i = 0, sa = acc_cg_mm_a_pes(x), *at, *W, *dst;

    if (!x->arun) {
        for (int64_t mc = 0; mc < x->NMC; mc++)
            a_run(x, NULL, mc, 0, acc_cg_mm_a_n(x, mc));
        return;
    }
    for (int64_t mc = 0; mc < x->NMC; mc++)
        n += acc_cg_mm_a_n(x, mc);
    at = tl_xmalloc((size_t)(n + 1) * 3 * sizeof *at);
    W = at + n + 1;
    dst = W + n + 1;
    for (int64_t mc = 0; mc < x->NMC; mc++) {
        int64_t Wa = acc_cg_mm_a_w(x, mc);
        for (int64_t q = 0; q < acc_cg_mm_a_n(x, mc); q++, i++) {
            at[i] = x->a_at + acc_cg_mm_a_off(x, mc) + q * sa * Wa;
            W[i] = acc_cg_mm_piece(q, Wa, x->Mc * x->KU);
            dst[i] = 2 * mc * x->Mc * x->KU + 2 * q * Wa;
        }
    }
    acc_cg_emit_load_run(&x->g.p->text, x->g.m, n, at, W,
                         acc_cg_mm_a_w(x, 0), "lm0", dst, x->ak, 2, NULL);
    free(at);
}

/* Queues in ov (or, without, writes) the load of B set v for pair
 * number `pair` into LM bl: a window image's rows go after the rows
 * before them. */
static void ov_b(const AccCgMm *x, AccCgOverlap *ov, int64_t v, int64_t pair,
                 int bl)
{
    int qb = qid(x, Q_B);
    int64_t P = acc_cg_mm_b_pes(x), n = acc_cg_mm_bset(x, v);
    int64_t dst = x->win ? 2 * acc_cg_win_end(&x->w, v - 1) : half(x, pair);

    if (x->brun) {
        int64_t nq = acc_cg_mm_b_n(x, v), Wb = acc_cg_mm_b_w(x, v);
        int64_t *at = tl_xmalloc((size_t)(nq + 1) * 3 * sizeof *at);
        int64_t *W = at + nq + 1, *to = W + nq + 1;
        for (int64_t q = 0; q < nq; q++) {
            at[q] = x->b_at + acc_cg_mm_b_off(x, v) + q * P * Wb;
            W[q] = acc_cg_mm_piece(q, Wb, n);
            to[q] = dst + 2 * q * Wb;
        }
        if (ov)
            acc_cg_ov_run(ov, qb, nq, at, W, Wb, lm_name(bl), to, x->bk, 4,
                          x->offb);
        else
            acc_cg_emit_load_run(&x->g.p->text, x->g.m, nq, at, W, Wb,
                                 lm_name(bl), to, x->bk, 4, x->offb);
        free(at);
        return;
    }
    for (int64_t q = 0, W = acc_cg_mm_b_w(x, v); q < acc_cg_mm_b_n(x, v); q++) {
        int64_t at = x->b_at + acc_cg_mm_b_off(x, v) + q * P * W;
        if (ov)
            acc_cg_ov_load(ov, qb, at, acc_cg_mm_piece(q, W, n),
                           lm_name(bl), dst + 2 * q * W, x->bk, 0,
                           x->offb);
        else
            acc_cg_emit_load_in(&x->g.p->text, x->g.m, at,
                                acc_cg_mm_piece(q, W, n), lm_name(bl),
                                dst + 2 * q * W, x->bk, 0, x->offb);
    }
}

/* The ares program: every A chunk into lm0, B set 0, then for each j
 * set v the pairs (mc, v) of every chunk from the same B tiles, the
 * next set loading in the first pair's bundles and each pair's
 * reduction in the next pair's. */
static void emit_ares(AccCgMm *x, TlBuf *red)
{
    const AccMachine *m = x->g.m;
    TlBuf *o = &x->g.p->text;
    AccCgOverlap ov;

    a_runs_all(x);
    ov_b(x, NULL, 0, 0, 1);
    acc_cg_ov_init(&ov, m);
    for (int64_t v = 0; v < x->JV; v++)
        for (int64_t mc = 0; mc < x->NMC; mc++) {
            int64_t pair = v * x->NMC + mc;
            if (red->len) {
                acc_cg_ov_text(&ov, Q_RED, red->s);
                red->len = 0;
            }
            if (mc == 0 && v + 1 < x->JV)
                ov_b(x, &ov, v + 1, v + 1, 1);
            /* The next set loads across all pairs of this one. */
            x->keepb = mc + 1 < x->NMC;
            x->a0 = 2 * mc * x->Mc * x->KU;
            emit_tiles(x, 0, half(x, v), v, &ov, "rs"[pair % 2]);
            emit_reduce(x, red, mc, v, "rs"[pair % 2]);
        }
    acc_cg_ov_flush(&ov, o, ~0u);
    acc_cg_ov_free(&ov);
    if (red->len)
        buf_puts(o, red->s);
}

static void emit(AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    AccCgProgram *p = x->g.p;
    TlBuf *o = &p->text;
    TlBuf red;              /* the last pair's reduction, not yet out */

    buf_init(&red);

    buf_printf(o, "# accel: kernel %s, matmul %lldx%lldx%lld on the %s "
               "matrix unit: k split over %lld groups (level %d), j over "
               "%lld; %lld k tiles and %lld j tiles per group, rows%s in "
               "chunks of %lld%s%s%s%s\n", x->g.c->k->name, (long long)x->M,
               (long long)x->K, (long long)x->N, dt_name(x->dt),
               (long long)x->kspan, x->h,
               (long long)x->NHj, (long long)x->KU, (long long)x->JV,
               x->Cq > 1 ? " and columns over the top nodes"
               : x->R > 1 ? " over the top nodes" : "", (long long)x->Mc,
               x->adb ? ", double-buffered" : "",
               x->ares ? ", all in lm0, by j set"
               : x->bres ? ", every B set in lm1" : "",
               x->arun ? "; A loads in runs" : "",
               x->win ? "; B from a window image" : "");
    for (int i = 0; i < 2; i++)
        if (x->olay[i])
            acc_cg_mm_input_line(x, i, o);
        else
            buf_printf(o, ".input %s %s[%lld] d[%lld]\n", p->ins[i].name,
                       dt_name(x->dt),
                       (long long)p->ins[i].nmap,
                       (long long)(i == x->a ? x->a_at : x->b_at));
    buf_printf(o, ".output %s f32[%lld] d[%lld]\n",
               x->g.c->k->outputs[0]->name, (long long)p->oimage,
               (long long)x->o_at);
    x->body_at = o->len;
    if (x->ares) {
        emit_ares(x, &red);
        buf_free(&red);
        buf_puts(o, "wait t1\n");
        return;
    }
    for (int64_t mc = 0; mc < x->NMC; mc++) {
        int al = a_lm(x, mc);
        AccCgOverlap ov;
        x->a0 = 0;
        x->keepb = 0;
        /* The first A chunk and the first rows of a window image load
         * side by side: they are what the first pair waits for. */
        if (mc == 0 && acc_cg_mm_rides(x, 0)) {
            acc_cg_ov_init(&ov, m);
            a_run(x, &ov, 0, 0, acc_cg_mm_a_n(x, 0));
            ov_b(x, &ov, 0, 0, x->bres ? 1 : 1 - al);
            acc_cg_ov_flush(&ov, o, ~0u);
            acc_cg_ov_free(&ov);
        } else {
            if (!x->adb || mc == 0)
                a_run(x, NULL, mc, 0, acc_cg_mm_a_n(x, mc));
            if (mc == 0)
                ov_b(x, NULL, 0, 0, 1 - al);
        }
        /* The next A chunk's run rides in all of this chunk's pairs,
         * in a queue of its own, beside each pair's B set and
         * reduction. */
        acc_cg_ov_init(&ov, m);
        if (x->db && x->adb && mc + 1 < x->NMC && !x->oneq)
            a_run(x, &ov, mc + 1, 0, acc_cg_mm_a_n(x, mc + 1));
        for (int64_t v = 0; v < x->JV; v++) {
            int64_t pair = mc * x->JV + v, nv = (v + 1) % x->JV;
            int64_t nmc = (pair + 1) / x->JV;
            int last = pair + 1 == x->NMC * x->JV;
            if (!x->db) {
                if (pair > 0)
                    ov_b(x, NULL, v, pair, 1 - al);
                emit_tiles(x, al, half(x, pair), v, NULL, 'r');
                emit_reduce(x, o, mc, v, 'r');
                continue;
            }
            /* While this pair's tiles run, in their free slots: the
             * last pair's reduction (its sums in the other GRF), the
             * next pair's B set (the next j set, or the first one
             * again for the next rows) into the other half of B's LM,
             * and the next A chunk.  The next chunk's first B set goes
             * to this chunk's A LM, which every mfma reads: its
             * dist.L1s wait for the end of the tiles. */
            /* With B's runs, the reduction's store goes on the DRAM
             * channels behind the B set's last piece, not between its
             * pieces: the channels then move it while that piece goes
             * down the tree, where they would wait. */
            char *st = NULL;
            /* A window image stays: only the first chunk loads it;
             * resident B sets (bres) load in the first chunk's pairs,
             * each in a place of its own in lm1. */
            int nextb = x->bres ? mc == 0 && nv > 0
                                : !last && !(x->oneq && x->adb && nmc != mc) &&
                                      !(x->win && nmc > 0);
            if (red.len && x->brun && nextb) {
                st = strstr(red.s, "\ndma.");
                if (st)
                    *st++ = '\0';
            }
            if (red.len) {
                acc_cg_ov_text(&ov, qid(x, Q_RED), red.s);
                if (!st)
                    red.len = 0;
            }
            if (nextb)
                ov_b(x, &ov, nv, pair + 1, x->bres ? 1 : 1 - a_lm(x, nmc));
            if (st) {
                acc_cg_ov_after(&ov, Q_ST, st, Q_RED, Q_B);
                red.len = 0;
            }
            if (x->oneq && x->adb && mc + 1 < x->NMC)
                a_run(x, &ov, mc + 1, v * acc_cg_mm_a_n(x, mc + 1) / x->JV,
                      (v + 1) * acc_cg_mm_a_n(x, mc + 1) / x->JV);
            if (!last && x->oneq && x->adb && nmc != mc)
                ov_b(x, &ov, nv, pair + 1, 1 - a_lm(x, nmc));
            emit_tiles(x, al, half(x, pair), v, &ov, "rs"[pair % 2]);
            emit_reduce(x, &red, mc, v, "rs"[pair % 2]);
        }
        acc_cg_ov_flush(&ov, o, ~0u);
        acc_cg_ov_free(&ov);
    }
    if (red.len)
        buf_puts(o, red.s);
    buf_free(&red);
    buf_puts(o, "wait t1\n");
}

/* The cycles of x's program, emitted and timed as the simulator times
 * it (the text is then taken back); -1 when it does not assemble. */
static int64_t timed(const AccCgMm *x)
{
    AccCgMm c = *x;
    TlBuf *o = &x->g.p->text;
    size_t at = o->len;
    AccTiming t;
    int file;
    AccProgram *prog;

    emit(&c);
    file = tl_add_source(x->g.s, "<accel matmul shape>", o->s + at,
                         o->len - at);
    prog = c.g.failed ? NULL : acc_assemble(x->g.s, file, x->g.m, 1);
    o->len = at;
    if (at < o->cap)
        o->s[at] = 0;
    if (!prog)
        return -1;
    acc_time_program(prog, &t);
    return t.cycles;
}

/* The columns over the top nodes are taken only when their program is
 * faster than the best shape without them: the model that chose them
 * (cg_mm_plan.c) prices both within 20% or so, and the two are often
 * that close (mn2 f32 512 x 2048 x 512: 34032 cycles with the columns
 * split, 30296 without, the model saying the other way).  0, or -1
 * after reporting. */
static int by_time(AccCgMm *x)
{
    AccCgMm y = *x;
    int64_t with = timed(x), without;

    y.nocols = 1;
    if (acc_cg_mm_plan(&y))
        return -1;
    without = timed(&y);
    if (with < 0 || without < 0)
        return x->g.failed ? -1 : 0;
    if (without <= with)
        *x = y;
    return 0;
}

int acc_cg_matmul(TlSession *s, const AccMachine *m, const AccCgCall *c,
                  AccCgProgram *p, TlLoc loc)
{
    const LStmt *upd;
    const LVar *accv;
    const LExpr *e, *f;
    AccCgMm x;
    AccCg *g = &x.g;
    int rc, nout, o1, o2;
    TlDType d1, d2;

    memset(&x, 0, sizeof x);
    acc_cg_init(g, s, m, c, p, loc);
    if ((rc = acc_cg_match_reduce(g, &nout, &accv, &upd)) != 0)
        return rc;
    /* A matmul has output loops and a reduction: a whole reduction
     * to a scalar, or no reduction, is another route's. */
    if (nout == 0 || g->nloops == nout ||
        c->k->outputs[0]->dtype != DT_F32)
        return 1;
    x.nout = nout;
    e = upd->a;
    if (upd->kind != LS_STORE || e->kind != LE_BINARY || e->op != LO_ADD)
        return 1;
    f = e->a->kind == LE_LOAD && e->a->var == accv ? e->b : e->a;
    if (f->kind != LE_BINARY || f->op != LO_MUL ||
        load_of(g, f->a, &o1, &d1) || load_of(g, f->b, &o2, &d2) ||
        d1 != d2)
        return 1;
    x.dt = d1;
    /* A reads (i, k), B reads (j, k): no output loop indexes both (a
     * batch loop leaves it to the reduction route).  B is the operand
     * that does not read the output's last loop, when one does not. */
    x.a = p->ins[o2].coef[nout - 1] && !p->ins[o1].coef[nout - 1] ? o1
                                                                   : o2;
    x.b = x.a == o1 ? o2 : o1;
    for (int l = 0; l < nout; l++) {
        if (p->ins[x.a].coef[l] && p->ins[x.b].coef[l])
            return 1;
        if (p->ins[x.b].coef[l])
            x.jl[x.nj++] = l;
        else
            x.il[x.ni++] = l;
    }
    p->ins[x.a].name = "a_image";
    p->ins[x.b].name = "b_image";
    /* A's padding (k past K) is -0, B's +0: their products are -0,
     * which leaves every sum as it is (a sum of -0 terms stays -0, as
     * in the interpreter, whose sums start at -0). */
    p->ins[x.a].pad = -0.0f;
    x.M = x.N = x.K = 1;
    for (int l = 0; l < x.ni; l++)
        x.M *= p->ext[x.il[l]];
    for (int l = 0; l < x.nj; l++)
        x.N *= p->ext[x.jl[l]];
    for (int l = nout; l < g->nloops; l++)
        x.K *= p->ext[l];
    x.G = m->level[m->nlevels - 1].fanout;
    if (x.dt == DT_F32) {
        x.Mr = m->mau_m_f32;
        x.Nc = m->mau_n_f32;
        x.ew = 2, x.cn = 1, x.cm = 2, x.tw = 4, x.rw = 1;
        if (x.Nc != x.G || x.Mr != 2 * x.G)
            return acc_cg_fail(g, "matmul on a matrix unit whose f32 shape "
                                  "is not (2 x PEs per group) x (PEs per "
                                  "group)");
    } else {
        x.Mr = m->mau_m_f16;
        x.Nc = m->mau_n_f16;
        x.ew = 4, x.cn = 4, x.cm = 4, x.tw = 16, x.rw = 2;
        if (x.Nc != 4 * x.G || x.Mr != 4 * x.G)
            return acc_cg_fail(g, "matmul on a matrix unit whose f16 shape "
                                  "is not (4 x PEs per group) x (4 x PEs "
                                  "per group)");
    }
    if (x.M == 0 || x.N == 0 || x.K == 0)
        return 1;
    x.canwin = x.dt == DT_F32 &&
               !acc_cg_win_match(&x.w, p->ext, p->ins[x.b].coef, x.jl, x.nj,
                                 nout, g->nloops);
    x.NM = acc_machine_pes(m) / x.G;
    x.JT = (x.N + x.Mr - 1) / x.Mr;
    x.KT = (x.K + x.Nc - 1) / x.Nc;
    if (acc_cg_mm_schedule(&x) || acc_cg_mm_plan(&x) ||
        (x.Cq > 1 && by_time(&x)))
        return -1;
    p->est_cycles = acc_cg_mm_estimate(&x);
    acc_cg_mm_maps(&x);
    acc_cg_mm_omap(&x);
    if (x.clay && acc_cg_mm_layout_prep(&x))
        return -1;
    if (x.nolay && acc_cg_mm_operand_prep(&x)) {
        free(x.img_omap);
        return -1;
    }
    emit(&x);
    if ((x.clay || x.nolay) && !g->failed) {
        /* The same program without the conversions: the runner tells
         * their traffic (its images unfilled: the timing does not
         * depend on the values). */
        buf_init(&p->bare);
        buf_putn(&p->bare, p->text.s, p->text.len);
        p->nconv = (x.clay != NULL) + x.nolay;
        p->conv_what = acc_cg_mm_conv_what(&x);
        if (x.nolay)
            acc_cg_mm_operand_conv(&x);
        if (x.clay)
            acc_cg_mm_layout_tail(&x);
    }
    free(x.img_omap);
    for (int i = 0; i < 2; i++)
        free(x.lmap[i]);
    return g->failed ? -1 : 0;
}
