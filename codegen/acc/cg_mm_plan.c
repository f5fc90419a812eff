/*
 * cg_mm_plan.c - the matmul route's shape (cg_mm.c's comment says what
 * the program does): for each level of the k split and each way of
 * loading (A's loads as runs, A chunks double-buffered, the queues
 * apart, B from a window image, the rows over the top nodes), the row
 * chunks and the loads' sizes that fit the machine's memories, the
 * program's steps estimated by its busiest resource per pair, and the
 * cheapest of them.
 */
#include "codegen/acc/cg_mm_int.h"

#include <math.h>
#include <string.h>

/* Long words per PE of B set v: a window image's rows new to pair v,
 * or KU tiles. */
int64_t acc_cg_mm_bset(const AccCgMm *x, int64_t v)
{
    return x->win ? acc_cg_win_end(&x->w, v) - acc_cg_win_end(&x->w, v - 1)
                  : x->KU * x->tw;
}

/* Long words per PE of one load of B set v. */
int64_t acc_cg_mm_b_w(const AccCgMm *x, int64_t v)
{
    return v == 0 ? x->Wb0 : x->Wb;
}

/* Loads of B set v. */
int64_t acc_cg_mm_b_n(const AccCgMm *x, int64_t v)
{
    int64_t W = acc_cg_mm_b_w(x, v);

    return (acc_cg_mm_bset(x, v) + W - 1) / W;
}

/* A chunk mc loads in the bundles of the chunk before, in BM words
 * of its own (Wa per piece), or by itself, filling the BMs (Wa0).
 * Beside a window image's first rows or (bres) the first B set, the
 * first chunk keeps to its words too. */
int acc_cg_mm_rides(const AccCgMm *x, int64_t mc)
{
    return !x->oneq && (x->win || (x->adb && mc > 0) || x->bres);
}

int64_t acc_cg_mm_a_w(const AccCgMm *x, int64_t mc)
{
    return acc_cg_mm_rides(x, mc) ? x->Wa : x->Wa0;
}

/* Loads of A chunk mc. */
int64_t acc_cg_mm_a_n(const AccCgMm *x, int64_t mc)
{
    return (x->Mc * x->KU + acc_cg_mm_a_w(x, mc) - 1) / acc_cg_mm_a_w(x, mc);
}

/* PEs of one piece of A's image: scope h's, in every part. */
int64_t acc_cg_mm_a_pes(const AccCgMm *x)
{
    return acc_cg_scope_pes(x->g.m, x->h) * x->R * x->Cq;
}

/* PEs of one piece of B's image. */
int64_t acc_cg_mm_b_pes(const AccCgMm *x)
{
    return acc_cg_scope_pes(x->g.m, x->bk & ACC_CG_LEVEL) * x->Cq;
}

/* Long words of B's image before set v's. */
int64_t acc_cg_mm_b_off(const AccCgMm *x, int64_t v)
{
    int64_t off = 0;

    for (int64_t c = 0; c < v; c++)
        off += acc_cg_mm_b_n(x, c) * acc_cg_mm_b_pes(x) * acc_cg_mm_b_w(x, c);
    return off;
}

/* Long words of A's image before chunk mc's. */
int64_t acc_cg_mm_a_off(const AccCgMm *x, int64_t mc)
{
    int64_t sa = acc_cg_mm_a_pes(x), off = 0;

    for (int64_t c = 0; c < mc; c++)
        off += acc_cg_mm_a_n(x, c) * sa * acc_cg_mm_a_w(x, c);
    return off;
}

/* The loads' sizes (Wa, Wb) and their words in every BM when the B
 * sets, the reductions and the next A chunk ride together in the
 * tiles' bundles: each keeps words of its own, the reduction's partial
 * tiles (len at L1) from 0, then a B set (wb, or a third of what is
 * left, as a set is small), then A's nbuf buffers.  0, or -1 when a
 * load would move less than 4 long words per PE. */
static int regions_apart(AccCgMm *x, int64_t len, int64_t wb, int nbuf)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m);

    int nbb = x->brun ? 2 : 1;

    x->Wb = wb;
    x->Wa = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 1, red = len; j <= nbm; j++) {
            int64_t F = j > 1 ? acc_cg_scope_pes(m, j) /
                                    acc_cg_scope_pes(m, j - 1) : 1;
            int64_t pa = acc_cg_scope_pes(m, j < x->h ? j : x->h);
            int64_t pb = acc_cg_scope_pes(m, j);
            int64_t bm = m->level[acc_bm_level(m, j)].bm_words;
            if (j > x->h)
                red *= F;
            if (pass == 0) {
                /* B's runs take A's region, but beside resident B
                 * sets the next A chunk rides in chunk 0's pairs. */
                int64_t d = x->brun && !x->bres ? 2 * pb : 3 * pb;
                if ((bm - red) / d / 4 * 4 < x->Wb)
                    x->Wb = (bm - red) / d / 4 * 4;
                continue;
            }
            int64_t w = (bm - red - nbb * pb * x->Wb) / (nbuf * pa) / 4 * 4;
            if (x->Wa < 0 || w < x->Wa)
                x->Wa = w;
            x->offb[j] = red;
            x->offa[j] = red + nbb * pb * x->Wb;
        }
    /* B's second buffers take A's region: A loads by itself. */
    if (x->brun && !x->bres)
        x->Wa = x->Wa0;
    return x->Wa < 4 || x->Wb < 4 ? -1 : 0;
}

/* The loads' sizes and places: apart when double-buffered, they fit
 * and apart is set, else (oneq when double-buffered) each filling the
 * BMs. */
static int regions(AccCgMm *x, int apart)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m), nbuf = x->arun ? 2 : 1;
    int64_t len = x->Mc * x->G * x->rw, wb = (x->KU * x->tw + 3) / 4 * 4;

    /* A window image's largest set: the first pair's rows. */
    if (x->win)
        wb = acc_cg_mm_bset(x, 0);
    memset(x->offa, 0, sizeof x->offa);
    memset(x->offb, 0, sizeof x->offb);
    x->oneq = 0;
    x->Wa0 = acc_cg_max_load(m, x->h) / (4 * nbuf) * 4;
    if (x->db && apart && regions_apart(x, len, wb, nbuf) == 0)
        return 0;
    memset(x->offa, 0, sizeof x->offa);
    memset(x->offb, 0, sizeof x->offb);
    x->oneq = x->db;
    x->Wa = x->Wa0;
    x->Wb = acc_cg_max_load(m, nbm + 1);
    return x->Wa < 4 || x->Wb < 4 ? -1 : 0;
}

static void first_rows(AccCgMm *x);

/* Everything that follows from splitting k at level h, with A chunks
 * double-buffered when adb, B from a window image when win, the rows
 * over the top nodes when parts; 0, or -1 when it does not fit the
 * machine's memories (or adb buys nothing: one chunk). */
static int shape_at(AccCgMm *x, int h, int adb, int arun, int apart, int win,
                    int parts, int brun, int ares, int cols, int bres)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m);
    int64_t cap;

    /* What the schedule's distributes fixed. */
    if ((x->fix_parts >= 0 && parts != x->fix_parts) ||
        (x->fix_h && h != x->fix_h))
        return -1;
    x->h = h;
    x->kspan = acc_cg_scope_pes(m, h) / x->G;
    x->NH = x->NM / x->kspan;
    x->KU = (x->KT + x->kspan - 1) / x->kspan;
    /* Rows over the top nodes: each takes whole nodes of level h. */
    x->R = parts ? acc_level_nodes(m, acc_bm_level(m, nbm)) : 1;
    if (parts && (win || h > nbm || x->R < 2 || x->M < 4 * x->R))
        return -1;
    x->NHj = x->NH / x->R;
    /* Columns over blocks of the top nodes: only where a DRAM channel
     * serves one block (else it would move every part of B). */
    x->Cq = cols ? 2 : 1;
    if (cols && (!parts || x->R % 2 || x->R / 2 < 2 ||
                 acc_cg_cols_per_chan(m, 2) != 1))
        return -1;
    x->R /= x->Cq;
    x->JTc = (x->JT + x->Cq - 1) / x->Cq;
    x->Mp = (x->M + x->R - 1) / x->R;
    x->ak = parts ? h | ACC_CG_PARTS : h;
    x->bk = parts ? nbm | (cols ? 2 << ACC_CG_COLS_SHIFT : 0) : nbm + 1;
    x->JV = (x->JTc + x->NHj - 1) / x->NHj;
    /* The window image stays in lm1 for all chunks: A's chunks load
     * by themselves into lm0. */
    x->win = win;
    if (win) {
        if (!x->canwin || adb)
            return -1;
        x->JV = acc_cg_win_shape(&x->w, x->NH, x->kspan, x->Nc, x->Mr,
                                 x->tw, m->lm_words);
        if (x->JV < 0)
            return -1;
        x->KU = acc_cg_win_ku(&x->w);
    }
    /* Rows per chunk: A's KU tiles in lm0, the sums in GRF, the
     * partial tiles in every BM on the way up. */
    cap = m->lm_words / x->KU;
    if (cap > m->grf_words / x->rw)
        cap = m->grf_words / x->rw;
    for (int j = 1; j <= nbm; j++) {
        int64_t per = x->G * x->rw * (j > h ? acc_cg_scope_pes(m, j) /
                                          acc_cg_scope_pes(m, h)
                                    : 1);
        int64_t c = m->level[acc_bm_level(m, j)].bm_words / per;
        if (c < cap)
            cap = c;
    }
    /* Double-buffered, each LM holds an A chunk and two B sets; with
     * bres, lm1 an A chunk and every B set. */
    if (adb && (m->lm_words - 2 * x->KU * x->tw) / x->KU < cap)
        cap = (m->lm_words - 2 * x->KU * x->tw) / x->KU;
    if (bres && (m->lm_words - x->JV * x->KU * x->tw) / x->KU < cap)
        cap = (m->lm_words - x->JV * x->KU * x->tw) / x->KU;
    cap = cap / 4 * 4;
    x->arun = arun;
    if (cap < 4 || (!win && x->KU * x->tw > m->lm_words))
        return -1;
    x->Mc = (x->Mp + 3) / 4 * 4;
    if (x->Mc > cap)
        x->Mc = cap;
    x->NMC = (x->Mp + x->Mc - 1) / x->Mc;
    x->db = win || 2 * x->KU * x->tw <= m->lm_words;
    x->adb = adb;
    x->boff = 0;
    /* B's runs take A's buffers: only where no A chunk rides, or
     * beside resident B sets (regions_apart keeps A's buffers). */
    x->brun = brun;
    if (brun && (win || !x->db || !apart))
        return -1;
    /* Every chunk's A in lm0 at once, the B sets in lm1. */
    x->ares = ares;
    if (ares && (adb || win || !x->db || !apart || x->NMC < 2 ||
                 x->NMC * x->Mc * x->KU > m->lm_words ||
                 2 * x->KU * x->tw > m->lm_words))
        return -1;
    if (adb) {
        if (x->NMC < 2 || !x->db)
            return -1;
        /* As many chunks, as even as they can be: less padding. */
        x->Mc = ((x->Mp + x->NMC - 1) / x->NMC + 3) / 4 * 4;
        x->boff = 2 * x->Mc * x->KU;
    }
    /* Every B set in lm1 beside an A chunk: only with the columns
     * split, whose program is timed against the rows alone (by_time in
     * cg_mm.c), and where the sets would otherwise load per chunk. */
    x->bres = bres;
    if ((bres && (!adb || !cols || x->JV < 2 ||
                  x->Mc * x->KU + x->JV * x->KU * x->tw > m->lm_words)) ||
        (brun && adb && !bres))
        return -1;
    if (regions(x, apart) || (apart && x->oneq) || (bres && x->oneq))
        return -1;
    first_rows(x);
    return 0;
}

/* Long words each DRAM channel moves for a load of W long words per
 * PE of scope k (a broadcast sends all of them on every channel, a
 * distribution its share of the top nodes: with ACC_CG_PARTS, one
 * scope's image for each node). */
static double chan_words(const AccMachine *m, int k, int64_t W)
{
    int nbm = acc_bm_levels(m);
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    int64_t per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;

    if (k & ACC_CG_PARTS)
        return (double)(acc_cg_scope_pes(m, k & ACC_CG_LEVEL) * W * per);
    if ((k & ACC_CG_LEVEL) <= nbm)
        return (double)(acc_cg_scope_pes(m, k & ACC_CG_LEVEL) * W *
                        acc_cg_cols_per_chan(m, acc_cg_cols(k)));
    return (double)(acc_machine_pes(m) * W) * (double)per / (double)NT;
}

/* Steps of one load of W long words per PE of scope k: the DMA
 * (latency and words), the tree transfers, W/4 dist.L1. */
static double load_steps(const AccMachine *m, int k, int64_t W)
{
    return (m->dma_latency + chan_words(m, k, W) / m->dram_bw) /
               m->step_cycles +
           (double)acc_cg_tree_steps(m, W, k) + W / 4.0 + 2;
}

/* Steps of the loads of one A chunk: each by itself, or as a run
 * whose pieces go at the pace of the slowest stage (the DMA, the tree
 * transfers, the dist.L1s). */
static double a_steps(const AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    double one = load_steps(m, x->ak, x->Wa0), dma, per;

    if (!x->arun)
        return acc_cg_mm_a_n(x, 0) * one;
    dma = (m->dma_latency + chan_words(m, x->ak, x->Wa0) / m->dram_bw) /
          m->step_cycles;
    per = fmax(fmax(dma, (double)acc_cg_tree_steps(m, x->Wa0, x->h)),
               x->Wa0 / 4.0) + 2;
    return one + (acc_cg_mm_a_n(x, 0) - 1) * per;
}

/* Steps of the loads of a B set of n long words per PE in pieces of
 * W: each by itself, or as a run (brun) at the pace of its slowest
 * stage, as a_steps. */
static double b_steps(const AccCgMm *x, int64_t n, int64_t W)
{
    const AccMachine *m = x->g.m;
    int64_t w = n < W ? n : W, pieces = (n + W - 1) / W;
    double one = load_steps(m, x->bk, w), dma, per;

    if (!x->brun)
        return pieces * one;
    dma = (m->dma_latency + chan_words(m, x->bk, w) / m->dram_bw) /
          m->step_cycles;
    per = fmax(fmax(dma, (double)acc_cg_tree_steps(m, w, x->bk)),
               w / 4.0) + 2;
    return one + (pieces - 1) * per;
}

/* A window image's first rows load beside A's first chunk: in the
 * smallest pieces when they still land within A's run, so that each
 * goes out on the DRAM channels in the time A's run leaves them free
 * (its pieces wait on the L2 broadcast) rather than holding back A's
 * next piece by the whole set. */
static void first_rows(AccCgMm *x)
{
    const AccMachine *m = x->g.m;

    x->Wb0 = x->Wb;
    if (x->win && acc_cg_mm_rides(x, 0) && x->Wb > 4) {
        x->Wb0 = 4;
        if (acc_cg_mm_b_n(x, 0) * load_steps(m, x->bk, 4) > a_steps(x))
            x->Wb0 = x->Wb;
    }
    x->nb = acc_cg_mm_b_n(x, 0);
}

/* Steps of one pair's reduction as emit_reduce writes it: the
 * redadd.L1s (rw steps each), the levels above, the DMA store. */
static double red_steps(const AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m);
    int64_t G = x->G, rw = x->rw, len = x->Mc * G * rw, ntop;
    double steps = (double)(x->Mc / 4 * rw) +
                   (double)acc_cg_wait(m, 1, ACC_XK_RED,
                                       (double)(4 * G * rw),
                                       (double)(4 * rw));

    for (int j = 2; j <= nbm; j++) {
        int64_t F = acc_cg_scope_pes(m, j) / acc_cg_scope_pes(m, j - 1);
        if (j <= x->h) {
            steps += 1 + (double)acc_cg_wait(m, j, ACC_XK_RED, (double)len,
                                             (double)len);
        } else {
            steps += 1 + (double)acc_cg_wait(m, j, ACC_XK_GATHER,
                                             (double)(len * F),
                                             (double)len);
            len *= F;
        }
    }
    ntop = acc_machine_pes(m) / acc_cg_scope_pes(m, nbm);
    ntop = ntop / m->dram_channels > 0 ? ntop / m->dram_channels : 1;
    return steps + (m->dma_latency + (double)(len * ntop) / m->dram_bw) /
                       m->step_cycles;
}

/* Steps per pair of the busiest shared resource when a pair's B set,
 * the last pair's reduction and (with a) the next A chunk's share of
 * the pair ride in its tiles' bundles in queues of their own: the
 * DRAM channels and the L1 link (the links above carry the same words
 * faster).  Their chains of latencies (the B set's load, the
 * reduction) must end within the pair too. */
static double ride_steps(const AccCgMm *x, int a, int b)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m);
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    int64_t per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;
    int64_t wb = x->KU * x->tw, wa = x->Mc * x->KU;
    double top = (double)(x->Mc * x->G * x->rw) *
                 (double)(acc_cg_scope_pes(m, nbm) /
                          acc_cg_scope_pes(m, x->h < nbm ? x->h : nbm));
    double dram, l1, chain;

    /* A window image's rows: what pairs after the first load, each. */
    if (x->win)
        wb = (x->w.words - acc_cg_win_end(&x->w, 0)) /
             (x->JV > 1 ? x->JV - 1 : 1);
    /* bres: the pairs after chunk 0's load no B set. */
    if (!b)
        wb = 0;
    dram = chan_words(m, x->bk, wb) + top * (double)per;
    l1 = x->Mc / 4.0 * x->rw + wb / 4.0;

    if (a) {
        dram += chan_words(m, x->ak, wa) / (double)x->JV;
        l1 += wa / 4.0 / (double)x->JV;
    }
    dram /= m->dram_bw * m->step_cycles;
    /* Each piece of the B set may wait on the channels behind a piece
     * of A's run. */
    chain = load_steps(m, x->bk, wb < x->Wb ? wb : x->Wb);
    if (a)
        chain += chan_words(m, x->ak, x->Wa) / m->dram_bw / m->step_cycles;
    chain *= (double)((wb + x->Wb - 1) / x->Wb);
    if (x->brun)
        chain = b_steps(x, wb, x->Wb);
    if (!b)
        chain = 0;
    return fmax(fmax(dram, l1), fmax(chain, red_steps(x)));
}

/* The program's steps as emit() writes it, roughly: a double-buffered
 * B set loads under the previous set's tiles, with the last pair's
 * reduction; double-buffered A chunks load under the pairs of the
 * chunk before (the first B set of each chunk then lands after them:
 * its dist.L1s), else each by itself. */
static double estimate(const AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    double a = a_steps(x);
    double b = x->brun ? b_steps(x, acc_cg_mm_bset(x, 0), x->Wb0)
                       : x->nb * load_steps(m, x->bk, x->Wb0);
    double red = red_steps(x);
    double tiles = (double)x->KU * (x->Mc / 4.0);

    /* In one queue, what rides goes in order: the reduction, the B
     * set, the A share, which is whole pieces: when a chunk has fewer
     * than JV, the pairs that take one take it whole. */
    if (x->adb && x->oneq) {
        double n = (double)acc_cg_mm_a_n(x, 1), pair;
        if (n < (double)x->JV)
            pair = n / x->JV * fmax(tiles, red + b + a_steps(x) / n) +
                   (1 - n / x->JV) * fmax(tiles, red + b);
        else
            pair = fmax(tiles, red + b + a / x->JV);
        return a + b + red + (double)x->NMC *
                   ((double)x->JV * pair + x->KU * x->tw / 4.0);
    }
    if (x->ares) {
        /* Per j set: the chunks' pairs from the same B tiles, the next
         * set's load and the pairs' reductions and stores under them. */
        const AccMachine *mm = x->g.m;
        int nbm = acc_bm_levels(mm);
        int64_t NT = acc_level_nodes(mm, acc_bm_level(mm, nbm));
        int64_t per = NT / mm->dram_channels > 0 ? NT / mm->dram_channels
                                                 : 1;
        int64_t wb = x->KU * x->tw;
        double top = (double)(x->Mc * x->G * x->rw) *
                     (double)(acc_cg_scope_pes(mm, nbm) /
                              acc_cg_scope_pes(mm, x->h < nbm ? x->h
                                                              : nbm));
        double dram = (chan_words(mm, x->bk, wb) +
                       (double)x->NMC * top * (double)per) /
                      (mm->dram_bw * mm->step_cycles);
        double l1 = (double)x->NMC * x->Mc / 4.0 * x->rw + wb / 4.0;
        double chain = x->brun ? b_steps(x, wb, x->Wb)
                               : (double)((wb + x->Wb - 1) / x->Wb) *
                                     load_steps(mm, x->bk, x->Wb);
        double set = fmax(fmax((double)x->NMC * tiles, dram),
                          fmax(fmax(l1, chain), (double)x->NMC * red));
        return (double)x->NMC * a + b + red + (double)x->JV * set;
    }
    if (x->bres) {
        /* Chunk 0's pairs load the B sets and the next chunk's A; the
         * later chunks only the next A chunk (the last one none), the
         * odd ones' mwrites in bundles of their own. */
        double odd = (double)x->KU * (x->Mc / 4.0 + (x->ew == 2 ? 1 : 2));
        double t = a + b + red +
                   (double)x->JV * fmax(tiles, ride_steps(x, 1, 1));
        for (int64_t mc = 1; mc < x->NMC; mc++)
            t += (double)x->JV *
                 fmax(mc % 2 ? odd : tiles,
                      ride_steps(x, mc + 1 < x->NMC, 0));
        return t;
    }
    if (x->adb)
        return a + b + red + (double)x->NMC *
                   ((double)x->JV * fmax(tiles, ride_steps(x, 1, 1)) +
                    x->KU * x->tw / 4.0);
    if (x->win && !x->oneq)
        return fmax(a, b) + red + (double)(x->NMC - 1) * a +
               (double)x->NMC * (double)x->JV *
                   fmax(tiles, ride_steps(x, 0, 1));
    if (x->db)
        return b + red + (double)x->NMC *
                   (a + (double)x->JV *
                            fmax(tiles, x->oneq ? red + b
                                                : ride_steps(x, 0, 1)));
    return (double)x->NMC * (a + (double)x->JV * (b + tiles + red));
}

double acc_cg_mm_estimate(const AccCgMm *x)
{
    return estimate(x) * x->g.m->step_cycles;
}

/* The level that splits k (the cheapest by estimate) and the rest. */
int acc_cg_mm_plan(AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m), best = 0, best_mode = 0;
    double cost = 0;

    /* mode: bit 0 A's loads as runs, bit 1 A double-buffered, bit 2
     * the queues apart (when double-buffered), bit 3 B from a window
     * image, bit 4 the rows over the top nodes, bit 5 B's loads as
     * runs, bit 6 every A chunk resident (the pairs by j set), bit 7
     * the columns over blocks of the top nodes too, bit 8 every B set
     * resident (bres). */
    for (int h = 1; h <= nbm + 1; h++)
        for (int mode = 0; mode < (x->nocols ? 128 : 512); mode++) {
            if (shape_at(x, h, mode >> 1 & 1, mode & 1, mode >> 2 & 1,
                         mode >> 3 & 1, mode >> 4 & 1, mode >> 5 & 1,
                         mode >> 6 & 1, mode >> 7 & 1, mode >> 8))
                continue;
            if (!best || estimate(x) < cost) {
                cost = estimate(x);
                best = h;
                best_mode = mode;
            }
        }
    if (!best && x->sched_at && !x->g.failed) {
        TlSession *s = x->g.s;
        diag_error(s, x->sched_at->loc, DIAG_ACC_CG_UNSUPPORTED,
                   "a matmul of this size on this machine in the split "
                   "this schedule's `distribute` asks for (with the rows "
                   "over the top level, 4 or more a node; each group's k "
                   "tiles in its local memory),");
        diag_note(s, x->g.loc, "in this call of '%s'", x->g.c->k->name);
        x->g.failed = 1;
        return -1;
    }
    if (!best)
        return acc_cg_fail(&x->g, "a matmul this large for this machine's "
                                  "local memories");
    shape_at(x, best, best_mode >> 1 & 1, best_mode & 1,
             best_mode >> 2 & 1, best_mode >> 3 & 1, best_mode >> 4 & 1,
             best_mode >> 5 & 1, best_mode >> 6 & 1, best_mode >> 7 & 1,
             best_mode >> 8);
    x->a_at = 0;
    x->b_at = acc_cg_mm_a_off(x, x->NMC);
    x->c_at = x->b_at + acc_cg_mm_b_off(x, x->JV);
    x->o_at = x->c_at;
    if (x->c_at + x->NMC * x->JV * x->NH * x->Mc * x->G * x->rw >
        m->dram_words)
        return acc_cg_fail(&x->g, "tensors larger than the machine's DRAM");
    return 0;
}
