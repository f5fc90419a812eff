/*
 * cg_seg_tree.c - a conversion between segments (cg_seg_conv.c) with
 * the permutation done below the root.
 *
 * The DMA path of cg_seg_conv.c gathers every run of consecutive source
 * words of the destination with one DMA op, and DMA accepts one op per
 * 4 steps: a matmul route's tiles or a convolution's window give runs
 * of 7-8 long words, so the conversion is bound by DMA issue while the
 * DRAM channel moves 32 long words a cycle.  Here a chunk of the
 * destination is built under one top node instead: the source words
 * the chunk needs, sorted, are loaded into that node's BM in few large
 * DMA ops (spans; small gaps are loaded with them, as the channel moves
 * them almost for free), then every run of the destination is a
 * broadcast of the top level to one child (`bcast.L2@{c} lc[s:s+n] ->
 * lb[b]`), one step each, into the children's BMs in the destination's
 * order; from there the chunk goes down, is narrowed to f32 pairs and
 * back up exactly as in the DMA path, and is stored from that node.
 * The broadcasts run on every top node at once, so chunks that need
 * the same ones (a periodic map: a window's rows of another pixel
 * tile, a transpose's blocks) are built together, one a node; a node
 * without a chunk of its own works on what its BM holds and is not
 * stored.
 *
 * Which path a conversion takes is chosen by estimated steps (the DMA
 * path's ops times the DMA issue interval against this path's loads,
 * broadcasts and chunks), so long runs keep the DMA path.  All of it
 * is linear in the destination but for the sorts of each chunk's words
 * and of the chunks.  TODO(issue 6): chunks cut at the map's period, so
 * that more of them are alike; the next chunk's DMA loads under the
 * current chunk's broadcasts (two staging areas).
 */
#include "codegen/acc/cg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gaps between source words up to this many long words are loaded with
 * them: the channel moves them in a fraction of a DMA issue interval. */
enum { GAP = 16 };

int64_t acc_seg_chunk_steps(const AccMachine *m, int64_t W)
{
    /* The two DMA waits (latency), W/8 dists, cvts and gathers (2, 1,
     * 2 steps each), the BM levels' transfers. */
    return 2 * (m->dma_latency / m->step_cycles) + 5 * (W / 8) +
           8 * acc_bm_levels(m);
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

typedef struct Span {
    int64_t lo, hi, at;     /* DRAM words lo..hi at BM word at */
} Span;

/* The spans of the sorted words u[0..n) (duplicates allowed), gaps up
 * to gap merged; their count, *words the BM words they take. */
static int64_t spans_of(const int64_t *u, int64_t n, int64_t gap, Span *sp,
                        int64_t *words)
{
    int64_t ns = 0, at = 0;

    for (int64_t k = 0; k < n; k++) {
        if (ns > 0 && u[k] < sp[ns - 1].hi)
            continue;
        if (ns > 0 && u[k] - sp[ns - 1].hi <= gap) {
            at += u[k] + 1 - sp[ns - 1].hi;
            sp[ns - 1].hi = u[k] + 1;
            continue;
        }
        sp[ns].lo = u[k];
        sp[ns].hi = u[k] + 1;
        sp[ns].at = at;
        at++;
        ns++;
    }
    *words = at;
    return ns;
}

/* The BM word of DRAM word w, which one of the ns spans holds. */
static int64_t staged_at(const Span *sp, int64_t ns, int64_t w)
{
    int64_t lo = 0, hi = ns - 1;

    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (sp[mid].lo <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    return sp[lo].at + w - sp[lo].lo;
}

/* Gathers W long words per PE from lm1 up the levels into the top BMs
 * (acc_cg_emit_store's way up) and stores top node n's at at[n], for
 * the k nodes whose chunks were built. */
static void store_nodes(TlBuf *o, const AccMachine *m, int64_t W,
                        const int64_t *at, int64_t k)
{
    int nbm = acc_bm_levels(m);
    int64_t span1 = acc_cg_scope_pes(m, 1), len = span1 * W;
    char b[16], c[16];

    for (int64_t t = 0; t < W / 4; t++)
        buf_printf(o, "gather.L1 lm1[%lld+] -> lb[%lld]\n",
                   (long long)(8 * t), (long long)(t * span1 * 4));
    acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_GATHER, (double)(span1 * 4), 4));
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
    for (int64_t n = 0; n < k; n++)
        buf_printf(o, "dma.st.t1@%lld %s[0:%lld] -> d[%lld]\n",
                   (long long)n, b, (long long)len, (long long)at[n]);
}

/* A chunk of the destination: Wc long words per PE from element base
 * on, its spans sp[0..ns) and the staged BM word of each of its T Wc
 * elements s[] (-1 past the end), h a hash of Wc and s[]. */
typedef struct Chunk {
    int64_t base, Wc, ns;
    Span *sp;
    int64_t *s;
    uint64_t h;
} Chunk;

typedef struct Tree {
    const AccMachine *m;
    int nbm;
    int64_t NT;         /* top nodes */
    int64_t T;          /* PEs under a top node */
    int64_t C;          /* PEs under one of its children */
    int64_t topw;       /* a top BM's long words */
    int64_t full;       /* long words per PE of a full chunk */
    int64_t *w;         /* the DRAM word of each destination element */
    int64_t *u;         /* scratch: a chunk's words, sorted */
} Tree;

/* Plans chunk c (c->base set) of Wc long words per PE with gaps up to
 * gap, its spans and staged words from sp and s on: 0 when they fit
 * the top BM, else -1. */
static int plan_chunk(Tree *t, int64_t nd, Chunk *c, int64_t Wc,
                      int64_t gap, Span *sp, int64_t *s)
{
    int64_t k = 0, words, len = t->T * Wc;
    uint64_t h = (uint64_t)Wc * 0x9e3779b97f4a7c15u;

    for (int64_t q = 0; q < len && c->base + q < nd; q++)
        t->u[k++] = t->w[c->base + q];
    qsort(t->u, (size_t)k, sizeof *t->u, cmp64);
    c->ns = spans_of(t->u, k, gap, sp, &words);
    if (words > t->topw)
        return -1;
    for (int64_t q = 0; q < len; q++) {
        s[q] = c->base + q < nd ? staged_at(sp, c->ns, t->w[c->base + q])
                                : -1;
        h = (h ^ (uint64_t)s[q]) * 0x100000001b3u;
    }
    c->Wc = Wc;
    c->sp = sp;
    c->s = s;
    c->h = h;
    return 0;
}

/* Orders chunks by their broadcasts (Wc, hash, then where they are). */
static int cmp_chunk(const void *a, const void *b)
{
    const Chunk *x = *(Chunk *const *)a, *y = *(Chunk *const *)b;

    if (x->Wc != y->Wc)
        return x->Wc < y->Wc ? -1 : 1;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->base < y->base ? -1 : x->base > y->base;
}

static int same_moves(const Chunk *a, const Chunk *b, int64_t T)
{
    return a->Wc == b->Wc && a->h == b->h &&
           !memcmp(a->s, b->s, (size_t)(T * a->Wc) * sizeof *a->s);
}

/* Emits the chunks g[0..k) (the same broadcasts), top node n building
 * g[n]; its tree ops in *tops (NULL: only estimates) and its estimated
 * steps returned. */
static int64_t emit_group(TlBuf *o, const Tree *t, Chunk *const *g,
                          int64_t k, int64_t dst, int64_t *tops)
{
    const AccMachine *m = t->m;
    int64_t Wc = g[0]->Wc, child = t->C * Wc, steps = 0, last = 1;
    int64_t run = -1, len = 0, at = 0, to[64];
    const int64_t *s = g[0]->s;
    char top[16], low[16];
    /* Every top node's chunk, one after the other: one store of all. */
    int whole = k == t->NT;

    for (int64_t n = 1; n < k; n++)
        whole &= g[n]->base == g[0]->base + n * t->T * Wc;

    acc_cg_bm_name(top, sizeof top, t->nbm);
    acc_cg_bm_name(low, sizeof low, t->nbm - 1);
    for (int64_t n = 0; n < k; n++) {
        for (int64_t j = 0; o && j < g[n]->ns; j++)
            buf_printf(o, "dma.ld.t0@%lld d[%lld:%lld] -> %s[%lld]\n",
                       (long long)n, (long long)g[n]->sp[j].lo,
                       (long long)g[n]->sp[j].hi, top,
                       (long long)g[n]->sp[j].at);
        steps += (g[n]->ns + (!whole || n == 0)) * m->dma_issue_steps;
        to[n] = dst + g[n]->base / 2;
    }
    if (o)
        buf_puts(o, "wait t0\n");
    for (int64_t q = 0; q <= t->T * Wc; q++) {
        int64_t v = q < t->T * Wc ? s[q] : -1;
        if (v >= 0 && run >= 0 && v == run + len && q == at + len &&
            q % child != 0) {
            len++;
            continue;
        }
        if (run >= 0) {
            if (o)
                buf_printf(o, "bcast.L%d@{%lld} %s[%lld:%lld] -> %s[%lld]\n",
                           t->nbm, (long long)(at / child), top,
                           (long long)run, (long long)(run + len), low,
                           (long long)(at % child));
            last = acc_cg_wait(m, t->nbm, ACC_XK_BCAST, (double)len,
                               (double)len);
            steps += 1 + (len - 1) / 64;
            if (tops)
                (*tops)++;
        }
        run = v;
        len = v >= 0;
        at = q;
    }
    if (o) {
        acc_cg_nop(o, last);
        acc_seg_load_dd(o, m, Wc / 2, "lm0", t->nbm - 1);
        for (int64_t j = 0; j < Wc / 8; j++)
            buf_printf(o, "cvt.f32.f64 lm0[%lld+].dd -> lm1[%lld+]\n",
                       (long long)(16 * j), (long long)(8 * j));
        acc_cg_nop(o, m->lat_lm);
        if (whole)
            acc_cg_emit_store(o, m, "lm1", 0, Wc / 2, to[0]);
        else
            store_nodes(o, m, Wc / 2, to, k);
        buf_puts(o, "wait t1\n");
    }
    return steps + acc_seg_chunk_steps(m, Wc);
}

/* Emits (o NULL: estimates) the chunks ord[0..nc) in groups of those
 * next in ord with the same broadcasts, up to a group a top node; its
 * estimated steps (stopping at than), *dma its DMA loads. */
static int64_t groups(TlBuf *o, const Tree *t, Chunk **ord, int64_t nc,
                      int64_t dst, int64_t than, int64_t *tops,
                      int64_t *dma)
{
    int64_t steps = 0;

    *dma = 0;
    for (int64_t i = 0; i < nc && steps < than;) {
        int64_t k = 1;
        while (i + k < nc && k < t->NT &&
               same_moves(ord[i], ord[i + k], t->T))
            k++;
        steps += emit_group(o, t, ord + i, k, dst, tops);
        for (int64_t n = 0; n < k; n++)
            *dma += ord[i + n]->ns;
        i += k;
    }
    return steps;
}

int64_t acc_seg_emit_tree(TlBuf *o, const AccMachine *m,
                          const int64_t *from, int64_t nd,
                          const int64_t *cat, int64_t dst, int64_t than,
                          int64_t *tops)
{
    Tree t;
    int64_t cwords = acc_seg_const_words(m), prev = -1, base = 0;
    int64_t steps = 0, dma = 0, nc = 0, room, used = 0, pwc = 0, near;
    int pgi = 0;
    Chunk *ch, **ord;
    Span *sp;
    int64_t *s;

    *tops = 0;
    t.m = m;
    t.nbm = acc_bm_levels(m);
    if (t.nbm < 2 || nd <= 0 ||
        acc_cg_scope_pes(m, t.nbm) / acc_cg_scope_pes(m, t.nbm - 1) > 64)
        return -1;
    t.NT = acc_level_nodes(m, acc_bm_level(m, t.nbm));
    t.T = acc_cg_scope_pes(m, t.nbm);
    t.C = acc_cg_scope_pes(m, t.nbm - 1);
    t.topw = m->level[acc_bm_level(m, t.nbm)].bm_words;
    t.full = acc_seg_chunk_w(m);
    if (t.topw < t.T * 8 || t.NT > 64)
        return -1;
    /* Every chunk but the last holds at least 8 T elements; the last
     * is padded to T Wc. */
    room = nd + t.T * t.full;
    t.w = tl_xmalloc((size_t)nd * sizeof *t.w);
    t.u = tl_xmalloc((size_t)(t.T * t.full) * sizeof *t.u);
    sp = tl_xmalloc((size_t)room * sizeof *sp);
    s = tl_xmalloc((size_t)room * sizeof *s);
    ch = tl_xmalloc((size_t)(nd / (8 * t.T) + 2) * sizeof *ch);
    ord = tl_xmalloc((size_t)(nd / (8 * t.T) + 2) * sizeof *ord);
    for (int64_t d = 0; d < nd; d++)
        prev = t.w[d] = acc_seg_word_of(from, d, cat, cwords, prev);
    /* The chunks in order: the largest gap, then the largest chunk,
     * whose words fit the top BM; 8 a PE without gaps always does
     * (topw >= 8 T). */
    while (base < nd) {
        int64_t left = (nd - base + t.T - 1) / t.T, Wc = t.full;
        int64_t gaps[] = {m->dram_bw * m->dma_issue_steps * m->step_cycles,
                          4 * GAP, GAP, 0};
        int gi = 0;
        Chunk *c = &ch[nc];
        if (left < Wc)
            Wc = (left + 7) / 8 * 8;
        c->base = base;
        /* The last chunk's choice first, so that the chunks of a
         * periodic map stay alike. */
        if (pwc > 0 && pwc <= Wc &&
            !plan_chunk(&t, nd, c, pwc, gaps[pgi], sp + used, s + used)) {
            Wc = pwc;
            gi = pgi;
        } else {
            while (plan_chunk(&t, nd, c, Wc, gaps[gi], sp + used,
                              s + used)) {
                if (gi < 2 || (Wc == 8 && gi < 3))
                    gi++;
                else {
                    Wc = Wc / 2 / 8 * 8 > 8 ? Wc / 2 / 8 * 8 : 8;
                    gi = 0;
                }
            }
        }
        pwc = Wc;
        pgi = gi;
        used += t.T * Wc;
        ord[nc++] = c;
        base += t.T * Wc;
    }
    /* Chunks with the same broadcasts (a periodic map: a window's rows,
     * a transpose's blocks) are built together, one on each top node:
     * those next to each other (stored by one dma.gather), or all alike
     * wherever they are (sorted by their broadcasts, a store each),
     * whichever is estimated fewer steps. */
    near = groups(NULL, &t, ord, nc, dst, than, NULL, &dma);
    qsort(ord, (size_t)nc, sizeof *ord, cmp_chunk);
    steps = groups(NULL, &t, ord, nc, dst, near < than ? near : than, NULL,
                   &dma);
    if (steps >= near && near < than) {
        for (int64_t i = 0; i < nc; i++)
            ord[i] = &ch[i];
        steps = near;
    }
    if (steps < than) {
        buf_printf(o, "# gather %lld f32 into d[%lld] through the tree\n",
                   (long long)nd, (long long)dst);
        groups(o, &t, ord, nc, dst, than, tops, &dma);
    }
    free(t.w);
    free(t.u);
    free(sp);
    free(s);
    free(ch);
    free(ord);
    return steps >= than ? -1 : dma;
}
