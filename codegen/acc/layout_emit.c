/*
 * layout_emit.c - a layout conversion as instructions, in the assembly
 * of docs/accel-asm.md: a first, always-correct route through DRAM.
 * Every instruction goes through a sink (layout_time.c) that writes
 * its text, times it as the simulator will, or both: the planner's
 * cost of a conversion (acc_layout_emit_estimate) is this code run
 * without text, so it takes the routes the text takes.
 *
 * The tensor goes up whole (every PE gathers 4 long words per step
 * into its L1 BM, each BM level gathers its children's into its own,
 * DMA stores each long word at its row-major place in a DRAM scratch
 * area), then down whole (DMA loads each long word where the top BM's
 * image of the destination needs it, each BM level distributes slices
 * to its children, the L1 BMs distribute 4 long words to every PE).
 * In a BM, the image of 4 addresses of every PE below it is PE-major:
 * PE i's sub-cycle c at [i*4 + c], which is what the L1 `gather` and
 * `dist` and the BM-level `gather` and `dist` produce and consume.
 *
 * The same two halves load a row-major DRAM tensor into a layout and
 * store one back, which is how the tests check a conversion on the
 * simulator.  DMA moves runs of consecutive long words as one op.
 *
 * acc_layout_emit_convert follows layout_conv.c's plan where the
 * machine's one instruction stream allows it: each destination group
 * (4 addresses on every PE) is decided by where its long words come
 * from.  Nothing moves when every one is already in place (a rename).
 * When each comes from its own PE (the nearest copy of a replicated
 * source), an ALU `mov` reads it: from addresses all PEs share, or
 * from each PE's own addresses through the T operand, computed from
 * the PE's ids when they are an affine function of its child indices
 * (a block of a replicated tensor).  When each comes from a PE under
 * its own node of some BM level, with the addresses all PEs share:
 * every PE's 4 long words gathered up to the lowest such level, then
 * either one PE's broadcast down (`bcast` at each level), or each
 * child's image rebuilt there 4 long words at a time (a `bcast` per
 * PE below the child, when the pattern is the same under every child)
 * and distributed down.  When the pattern is the same but the source
 * is under another top node, the top BMs' images go through DRAM
 * whole (one DMA op per top node each way) and are rebuilt the same
 * way.  Other groups, and every group when source and destination
 * share addresses, go through DRAM element by element (the source
 * stored once).  TODO(issue 6): rotations inside MABs (msl/msr),
 * PE-dependent addresses across PEs (write masks from `$gpe`
 * compares), patterns that differ between children (ucast), batching
 * the groups of the BM routes, so that only elements meeting at the
 * root go through DRAM, in long runs.  Every route writes each PE's 4
 * addresses of a group, including places the layout leaves empty.  The
 * conversion uses r[0:16], s[0:8], T and the BMs as scratch.
 */
#include "codegen/acc/layout.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The space name of BM level k (1-based from the bottom). */
static void bm_name(char *buf, size_t n, int k)
{
    if (k == 1)
        snprintf(buf, n, "lb");
    else if (k == 2)
        snprintf(buf, n, "lc");
    else
        snprintf(buf, n, "b%d", k);
}

/* Whether L keeps one element in each long word (sub-word 0) though
 * the dtype packs more. */
static int unpacked(const AccLayout *L)
{
    if (L->epl == 1)
        return 0;
    for (int i = 0; i < L->nf; i++)
        if (L->f[i].kind == ACC_F_WORD)
            return 0;
    return 1;
}

/* acc_layout_emit_ok, the long words' contents checked only when
 * packing is set. */
static int emit_ok(const AccLayout *L, int packing, TlBuf *why)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m);
    int last = L->rank - 1;

    if (L->space != ACC_LSP_LM0 && L->space != ACC_LSP_LM1) {
        buf_printf(why, "only layouts in lm0 or lm1 can be emitted yet");
        return 0;
    }
    /* Each long word must hold row-major neighbours: one W factor, the
     * innermost of the last axis, as wide as a long word. */
    if (packing && L->epl > 1) {
        int nw = 0;
        for (int i = 0; i < L->nf; i++)
            nw += L->f[i].kind == ACC_F_WORD;
        if (nw != 1 || L->f[L->nf - 1].kind != ACC_F_WORD ||
            L->f[L->nf - 1].axis != last || L->f[L->nf - 1].n != L->epl ||
            L->f[L->nf - 1].stride != 1) {
            buf_printf(why, "the long words must hold row-major neighbours "
                       "(one %d_W:1, innermost on the last axis)", L->epl);
            return 0;
        }
    }
    if (nbm < 1) {
        buf_printf(why, "machine '%s' has no BM level", m->name);
        return 0;
    }
    for (int k = 1; k <= nbm; k++) {
        int lv = acc_bm_level(m, k);
        int64_t need = acc_level_span(m, lv) * 4;
        if (need > m->level[lv].bm_words) {
            buf_printf(why, "a %s BM holds %lld long words, and the route "
                       "needs %lld", m->level[lv].name,
                       (long long)m->level[lv].bm_words, (long long)need);
            return 0;
        }
    }
    return 1;
}

int acc_layout_emit_ok(const AccLayout *L, TlBuf *why)
{
    return emit_ok(L, 1, why);
}

/* Whether a conversion from src to dst can be emitted: both as
 * acc_layout_emit_ok, or both one element a long word, which every
 * route moves long word by long word just as well (through DRAM as BM
 * images only: row-major DRAM packs the elements). */
static int conv_ok(const AccLayout *src, const AccLayout *dst, TlBuf *why)
{
    if (unpacked(src) && unpacked(dst))
        return emit_ok(src, 0, why) && emit_ok(dst, 0, why);
    return emit_ok(src, 1, why) && emit_ok(dst, 1, why);
}

/* Steps to wait after a transfer of BM level k before its result may
 * be read: its occupancy (as the simulator counts it) and latency. */
static int64_t settle(const AccMachine *m, int k, int down)
{
    int lv = acc_bm_level(m, k);
    const AccLevel *l = &m->level[lv];
    int xk = down ? ACC_XK_DIST : ACC_XK_GATHER;
    double bm, child;
    if (k == 1) {
        bm = (double)acc_level_span(m, lv) * 4;
        child = 4;
    } else {
        double n = (double)acc_level_span(m, lv) * 4;
        double F = (double)acc_level_span(m, lv) /
                   (double)acc_level_span(m, acc_bm_level(m, k - 1));
        bm = n;
        child = n / F;
    }
    double cyc = fmax(bm / l->bw_bm[xk], child / l->bw_child[xk]);
    return (int64_t)ceil(cyc / m->step_cycles) + l->lat_steps + 1;
}

/* The element (and copy) at PE number pe (global), address addr, or -1. */
static int64_t at(const AccLayout *L, int64_t pe, int64_t addr,
                  int64_t *copy)
{
    return acc_layout_at(L, pe, addr, copy);
}

static int64_t groups(const AccLayout *L)
{
    return (L->addr_span + 3) / 4;
}

/* DMA transfers of one top node, merged into runs: consecutive BM
 * positions to (or from) consecutive DRAM long words go as one op. */
typedef struct Run {
    AccSink *e;
    int store;              /* dma.st (BM -> DRAM), else dma.ld */
    const char *bm;
    int64_t node, bm0, d0, n;
    int64_t ops;            /* ops flushed (e NULL: only counted) */
} Run;

static void run_flush(Run *r)
{
    if (!r->n)
        return;
    r->ops++;
    if (!r->e)
        r->n = 0;
    else if (r->store)
        acc_sink_dma(r->e, r->node, r->n,
                     "dma.st.t0@%lld %s[%lld:%lld] -> d[%lld]\n",
                     (long long)r->node, r->bm, (long long)r->bm0,
                     (long long)(r->bm0 + r->n), (long long)r->d0);
    else
        acc_sink_dma(r->e, r->node, r->n,
                     "dma.ld.t0@%lld d[%lld:%lld] -> %s[%lld]\n",
                     (long long)r->node, (long long)r->d0,
                     (long long)(r->d0 + r->n), r->bm, (long long)r->bm0);
    r->n = 0;
}

static void run_add(Run *r, int64_t node, int64_t bm, int64_t d)
{
    if (r->n && (node != r->node || bm != r->bm0 + r->n ||
                 d != r->d0 + r->n))
        run_flush(r);
    if (!r->n) {
        r->node = node;
        r->bm0 = bm;
        r->d0 = d;
    }
    r->n++;
}

static int64_t batch(const AccMachine *m);

/* Where a conversion's DRAM scratch area keeps the long word of source
 * S holding element e (copy 0): the image of S's group h on top node t
 * at [(h * ntop + t) * span * 4], as the top BMs hold it. */
static int64_t img_place(const AccLayout *S, int64_t e)
{
    const AccMachine *m = S->m;
    int top = acc_bm_level(m, acc_bm_levels(m));
    int64_t ntop = acc_level_nodes(m, top), span = acc_level_span(m, top);
    int64_t pe, h, k;
    AccLoc loc;

    acc_layout_locate(S, e, 0, &loc);
    pe = acc_loc_node(m, &loc, m->nlevels - 1);
    h = (loc.addr - S->base) / 4;
    k = (loc.addr - S->base) % 4;
    return (h * ntop + pe / span) * span * 4 + (pe % span) * 4 + k;
}

/* The DMA half of loading group g of L from DRAM at dram into the top
 * BMs at [off]: row-major, or (via not NULL) from the images of via's
 * groups (img_place).  e NULL: only counts the DMA ops into *ops.
 * 0 when L has nothing there. */
static int load_dma(AccSink *e, const AccLayout *L, int64_t dram,
                    int64_t g, const AccLayout *via, int64_t off,
                    int64_t *ops)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m), top = acc_bm_level(m, nbm);
    int64_t ntop = acc_level_nodes(m, top), span = acc_level_span(m, top);
    char tb[16];
    Run r;

    bm_name(tb, sizeof tb, nbm);
    memset(&r, 0, sizeof r);
    r.e = e;
    r.bm = tb;
    for (int64_t t = 0; t < ntop; t++)
        for (int64_t i = 0; i < span; i++)
            for (int k = 0; k < 4; k++) {
                int64_t e = at(L, t * span + i, L->base + 4 * g + k, NULL);
                if (e >= 0)
                    run_add(&r, t, off + i * 4 + k,
                            dram + (via ? img_place(via, e) : e / L->epl));
            }
    run_flush(&r);
    if (ops)
        *ops += r.ops;
    return r.ops > 0;
}

/* The other half: group g's image at [off] of the top BMs down every
 * BM level to the PEs. */
static void load_down(AccSink *e, const AccLayout *L, int64_t g,
                      int64_t off)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m);
    char b[16], c[16];

    for (int k = nbm; k >= 2; k--) {
        int lv = acc_bm_level(m, k);
        int64_t o = k == nbm ? off : 0, n = acc_level_span(m, lv) * 4;
        bm_name(b, sizeof b, k);
        bm_name(c, sizeof c, k - 1);
        acc_sink_xfer(e, k, ACC_XK_DIST, n, "dist.L%d %s[%lld:%lld] -> "
                      "%s[0]\n", k, b, (long long)o, (long long)(o + n), c);
        acc_sink_nop(e, settle(m, k, 1));
    }
    acc_sink_xfer(e, 1, ACC_XK_DIST, 0, "dist.L1 lb[%lld] -> %s[%lld+]\n",
                  (long long)(nbm == 1 ? off : 0),
                  acc_layout_space_name(L->space),
                  (long long)(2 * (L->base + 4 * g)));
    acc_sink_nop(e, settle(m, 1, 1));
}

/* Group images the top BMs hold at once. */
static int64_t batch(const AccMachine *m)
{
    int top = acc_bm_level(m, acc_bm_levels(m));
    int64_t n = m->level[top].bm_words / (acc_level_span(m, top) * 4);
    return n > 0 ? n : 1;
}

/* Loads the groups of L that how marks 'd' (how NULL: all), a batch
 * of them into the top BMs side by side, one wait, then each down. */
static void load_groups(AccSink *e, const AccLayout *L, int64_t dram,
                        const char *how, const AccLayout *via)
{
    const AccMachine *m = L->m;
    int top = acc_bm_level(m, acc_bm_levels(m));
    int64_t img = acc_level_span(m, top) * 4, nb = batch(m);
    int64_t *in = tl_xmalloc((size_t)(nb + 1) * sizeof *in);
    int64_t n = 0;

    for (int64_t g = 0; g <= groups(L); g++) {
        if (g < groups(L) && (!how || how[g] == 'd') &&
            load_dma(e, L, dram, g, via, n * img, NULL))
            in[n++] = g;
        if (n && (n == nb || g == groups(L))) {
            acc_sink_wait(e);
            for (int64_t j = 0; j < n; j++)
                load_down(e, L, in[j], j * img);
            n = 0;
        }
    }
    free(in);
}

/* The DMA ops of load_groups. */
static void count_loads(const AccLayout *L, const char *how,
                        const AccLayout *via, int64_t *ops)
{
    for (int64_t g = 0; g < groups(L); g++)
        if (!how || how[g] == 'd')
            load_dma(NULL, L, 0, g, via, 0, ops);
}

int acc_layout_emit_load_group(TlBuf *out, const AccLayout *L,
                               int64_t dram, int64_t g)
{
    AccSink e;
    acc_sink_init(&e, L->m, out);
    if (!load_dma(&e, L, dram, g, NULL, 0, NULL))
        return 0;
    acc_sink_wait(&e);
    load_down(&e, L, g, 0);
    return 1;
}

void acc_layout_emit_load(TlBuf *out, const AccLayout *L, int64_t dram)
{
    AccSink e;
    acc_sink_init(&e, L->m, out);
    acc_sink_text(&e, "# load %s from d[%lld] (row-major)\n",
                  acc_layout_space_name(L->space), (long long)dram);
    load_groups(&e, L, dram, NULL, NULL);
}

/* Whether top node t holds a long word of the first copy of L in
 * group g. */
static int holds(const AccLayout *L, int64_t g, int64_t t)
{
    const AccMachine *m = L->m;
    int64_t span = acc_level_span(m, acc_bm_level(m, acc_bm_levels(m)));
    for (int64_t i = 0; i < span; i++)
        for (int k = 0; k < 4; k++) {
            int64_t cp = -1;
            if (at(L, t * span + i, L->base + 4 * g + k, &cp) >= 0 && !cp)
                return 1;
        }
    return 0;
}

/* Stores L to DRAM at dram: row-major, or (img) each group's image in
 * the top BMs whole (img_place).  e NULL: only counts the DMA ops.
 * Returns the DMA ops. */
static int64_t store(AccSink *e, const AccLayout *L, int64_t dram, int img)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m), top = acc_bm_level(m, nbm);
    int64_t ntop = acc_level_nodes(m, top), span = acc_level_span(m, top);
    char tb[16], b[16], c[16];
    const char *sp = acc_layout_space_name(L->space);
    Run r;

    bm_name(tb, sizeof tb, nbm);
    memset(&r, 0, sizeof r);
    r.e = e;
    r.store = 1;
    r.bm = tb;
    if (e)
        acc_sink_text(e, "# store %s to d[%lld] (%s)\n", sp,
                      (long long)dram, img ? "BM images" : "row-major");
    for (int64_t g = 0; g < groups(L); g++) {
        /* A batch of groups side by side in the top BMs, one wait. */
        int64_t off = (g % batch(m)) * span * 4;
        if (e) {
            acc_sink_xfer(e, 1, ACC_XK_GATHER, 0,
                          "gather.L1 %s[%lld+] -> lb[%lld]\n", sp,
                          (long long)(2 * (L->base + 4 * g)),
                          (long long)(nbm == 1 ? off : 0));
            acc_sink_nop(e, settle(m, 1, 0));
            for (int k = 2; k <= nbm; k++) {
                int64_t n = acc_level_span(m, acc_bm_level(m, k - 1)) * 4;
                bm_name(b, sizeof b, k);
                bm_name(c, sizeof c, k - 1);
                acc_sink_xfer(e, k, ACC_XK_GATHER, n,
                              "gather.L%d %s[0:%lld] -> %s[%lld]\n", k, c,
                              (long long)n, b,
                              (long long)(k == nbm ? off : 0));
                acc_sink_nop(e, settle(m, k, 0));
            }
        }
        for (int64_t t = 0; t < ntop; t++) {
            /* Loads read the first copy only: a top node holding none
             * of it in this group stores nothing. */
            if (img && !holds(L, g, t))
                continue;
            for (int64_t i = 0; i < span; i++)
                for (int k = 0; k < 4; k++) {
                    int64_t cp = -1, el;
                    if (img) {
                        run_add(&r, t, off + i * 4 + k, dram +
                                (g * ntop + t) * span * 4 + i * 4 + k);
                        continue;
                    }
                    el = at(L, t * span + i, L->base + 4 * g + k, &cp);
                    if (el < 0 || cp != 0 || el % L->epl)
                        continue;
                    run_add(&r, t, off + i * 4 + k, dram + el / L->epl);
                }
        }
        if ((g + 1) % batch(m) == 0 || g + 1 == groups(L)) {
            run_flush(&r);
            if (e)
                acc_sink_wait(e);
        }
    }
    return r.ops;
}

void acc_layout_emit_store(TlBuf *out, const AccLayout *L, int64_t dram)
{
    AccSink e;
    acc_sink_init(&e, L->m, out);
    store(&e, L, dram, 0);
}

int64_t acc_layout_emit_scratch(const AccLayout *src)
{
    int64_t img = groups(src) * acc_machine_pes(src->m) * 4;
    int64_t rm = (src->nelems + src->epl - 1) / src->epl;
    return img > rm ? img : rm;
}

/* Whether the groups of dst marked in how ('d'; NULL: all) go through
 * DRAM in fewer DMA ops with src's BM images than row-major. */
static int use_images(const AccLayout *src, const AccLayout *dst,
                      const char *how)
{
    int64_t rm = store(NULL, src, 0, 0), img = store(NULL, src, 0, 1);
    count_loads(dst, how, NULL, &rm);
    count_loads(dst, how, src, &img);
    return img < rm;
}

int acc_layout_emit_convert_dram(TlBuf *out, const AccLayout *src,
                                 const AccLayout *dst, int64_t scratch,
                                 TlBuf *why)
{
    TL_ASSERT(src->m == dst->m && src->nelems == dst->nelems &&
              src->dtype == dst->dtype);
    if (!conv_ok(src, dst, why))
        return -1;
    {
        int img = unpacked(src) || use_images(src, dst, NULL);
        AccSink e;
        acc_sink_init(&e, src->m, out);
        acc_sink_text(&e, "# convert through DRAM\n");
        store(&e, src, scratch, img);
        load_groups(&e, dst, scratch, NULL, img ? src : NULL);
    }
    return 0;
}

/* ====================================================================
 * The route through the lowest common ancestor, one destination group
 * (4 addresses on every PE) at a time
 * ==================================================================== */

/* Where the destination long word at (PE, sub-cycle) of a group comes
 * from: the source's PE and address; pe -1 where the destination
 * leaves the place empty. */
typedef struct Want {
    int64_t pe, addr;
} Want;

/* The nearest source copy of element e for PE pe: on each B@ level of
 * the source, pe's own child index (as layout_conv.c routes it). */
static void source_of(const AccLayout *S, int64_t e, int64_t pe, Want *w)
{
    const AccMachine *m = S->m;
    int pl = m->nlevels - 1;
    AccLoc at, loc;

    acc_loc_of_pe(m, pe, S->space, 0, &at);
    acc_layout_locate(S, e, 0, &loc);
    for (int lv = 0; lv <= pl; lv++)
        if (S->bcast & (1u << lv))
            loc.path[lv] = at.path[lv];
    w->pe = acc_loc_node(m, &loc, pl);
    w->addr = loc.addr;
}

/* PE pe's child index at level lv. */
static int64_t child_at(const AccMachine *m, int64_t pe, int lv)
{
    return (pe / acc_level_span(m, lv)) % m->level[lv].fanout;
}

/* Whether every used place of the group reads its own PE. */
static int all_local(const Want *want, int64_t npe)
{
    for (int64_t p = 0; p < npe; p++)
        for (int c = 0; c < 4; c++)
            if (want[p * 4 + c].pe >= 0 && want[p * 4 + c].pe != p)
                return 0;
    return 1;
}

/* The source address of sub-cycle c if every PE's is the same:
 * INT64_MAX when no PE uses c, INT64_MIN when they differ. */
static int64_t same_addr(const Want *want, int64_t npe, int c)
{
    int64_t v = INT64_MAX;
    for (int64_t p = 0; p < npe; p++) {
        const Want *w = &want[p * 4 + c];
        if (w->pe < 0)
            continue;
        if (v != INT64_MAX && w->addr != v)
            return INT64_MIN;
        v = w->addr;
    }
    return v;
}

/* Fits each PE's source addresses as k[c] + sum over levels of
 * coef[lv] x the PE's child index there (what T-indirect operands
 * computed from the ids can read), checks the fit on every used place
 * and that every PE's addresses lie in the source's bank.  1 when it
 * holds. */
static int fit(const AccLayout *S, const Want *want, int64_t npe,
               int64_t k[4], int64_t coef[ACC_MAX_LEVELS])
{
    const AccMachine *m = S->m;
    int64_t p0[4];

    if (S->space != ACC_LSP_LM0)        /* T operands read lm0 only */
        return 0;

    for (int c = 0; c < 4; c++) {
        p0[c] = -1;
        for (int64_t p = 0; p < npe && p0[c] < 0; p++)
            if (want[p * 4 + c].pe >= 0)
                p0[c] = p;
    }
    for (int lv = 0; lv < m->nlevels; lv++) {
        coef[lv] = 0;
        for (int c = 0; c < 4; c++) {
            int64_t q = p0[c], found = 0;
            if (q < 0)
                continue;
            /* A used PE that differs from q only at level lv. */
            for (int64_t d = 1; d < m->level[lv].fanout && !found; d++) {
                int64_t p = q + d * acc_level_span(m, lv);
                if (child_at(m, q, lv) + d >= m->level[lv].fanout)
                    break;
                if (p < npe && want[p * 4 + c].pe >= 0) {
                    int64_t dv = want[p * 4 + c].addr -
                                 want[q * 4 + c].addr;
                    if (dv % d)
                        return 0;
                    coef[lv] = dv / d;
                    found = 1;
                }
            }
            if (found)
                break;
        }
    }
    for (int c = 0; c < 4; c++) {
        int64_t q = p0[c];
        k[c] = S->base;
        if (q < 0)
            continue;
        k[c] = want[q * 4 + c].addr;
        for (int lv = 0; lv < m->nlevels; lv++)
            k[c] -= coef[lv] * child_at(m, q, lv);
    }
    for (int64_t p = 0; p < npe; p++)
        for (int c = 0; c < 4; c++) {
            int64_t a = k[c];
            for (int lv = 0; lv < m->nlevels; lv++)
                a += coef[lv] * child_at(m, p, lv);
            if (a < 0 || a >= m->lm_words ||
                (want[p * 4 + c].pe >= 0 && a != want[p * 4 + c].addr))
                return 0;
        }
    return 1;
}

/* T[c] of every PE := its source address of sub-cycle c (words), as
 * fit() found them, computed from the ids; uses r[0:8] and s[0:8]. */
static void emit_t(AccSink *e, const AccMachine *m, const int64_t k[4],
                   const int64_t coef[ACC_MAX_LEVELS])
{
    for (int c = 0; c < 4; c++)
        acc_sink_alu(e, "mov.i32 #%lld -> r[%d]\n", (long long)(2 * k[c]),
                     2 * c);
    acc_sink_nop(e, m->lat_grf);
    for (int lv = 0; lv < m->nlevels; lv++) {
        char id[32];
        size_t j;
        if (!coef[lv])
            continue;
        snprintf(id, sizeof id, "%s", m->level[lv].name);
        for (j = 0; id[j]; j++)
            id[j] = (char)tolower((unsigned char)id[j]);
        acc_sink_alu(e, "mul.i32 $%s, #%lld -> s[0+]\n", id,
                     (long long)(2 * coef[lv]));
        acc_sink_nop(e, m->lat_grf);
        acc_sink_alu(e, "add.i32 r[0+], s[0+] -> r[0+]\n");
        acc_sink_nop(e, m->lat_grf);
    }
    acc_sink_alu(e, "mov.i32 r[0+] -> t[0+]\n");
    acc_sink_nop(e, m->lat_grf);
}

/* The source operand reading, in sub-cycle c, the address every PE
 * agrees on (sa[c]; any address where no PE needs one). */
static void flat_src(char *buf, size_t n, const AccLayout *S,
                     const int64_t *sa)
{
    int64_t a[4];
    for (int c = 0; c < 4; c++)
        a[c] = sa[c] == INT64_MAX ? S->base : sa[c];
    snprintf(buf, n, "%s[%lld,%lld,%lld,%lld]",
             acc_layout_space_name(S->space), (long long)(2 * a[0]),
             (long long)(2 * a[1]), (long long)(2 * a[2]),
             (long long)(2 * a[3]));
}

/* Whether the group is a broadcast: every used place takes, in its
 * sub-cycle c, the long word at the address every PE shares (sa[c])
 * of the PE at one position ql under its node of BM level k (the
 * lowest such k).  1 with *k and *ql set. */
static int bcast_from(const AccMachine *m, const Want *want, int64_t npe,
                      int *kp, int64_t *ql)
{
    for (int k = 1; k <= acc_bm_levels(m); k++) {
        int64_t span = acc_level_span(m, acc_bm_level(m, k)), q = -1;
        int ok = 1;
        for (int64_t p = 0; p < npe && ok; p++)
            for (int c = 0; c < 4 && ok; c++) {
                const Want *w = &want[p * 4 + c];
                if (w->pe < 0)
                    continue;
                if (w->pe / span != p / span ||
                    (q >= 0 && w->pe % span != q))
                    ok = 0;
                q = w->pe % span;
            }
        if (ok && q >= 0) {
            *kp = k;
            *ql = q;
            return 1;
        }
    }
    return 0;
}

/* Steps after a broadcast of 4 long words by BM level k before they
 * may be read. */
static int64_t bsettle(const AccMachine *m, int k)
{
    const AccLevel *l = &m->level[acc_bm_level(m, k)];
    double cyc = fmax(4.0 / l->bw_bm[ACC_XK_BCAST],
                      4.0 / l->bw_child[ACC_XK_BCAST]);
    return (int64_t)ceil(cyc / m->step_cycles) + l->lat_steps + 1;
}

/* Every PE's 4 long words of source operand so gathered up to BM
 * level k, each level's image at [0]. */
static void gather_up(AccSink *e, const AccMachine *m, const char *so,
                      int k)
{
    char b[16], c[16];

    acc_sink_xfer(e, 1, ACC_XK_GATHER, 0, "gather.L1 %s -> lb[0]\n", so);
    acc_sink_nop(e, settle(m, 1, 0));
    for (int j = 2; j <= k; j++) {
        int64_t n = acc_level_span(m, acc_bm_level(m, j - 1)) * 4;
        bm_name(b, sizeof b, j);
        bm_name(c, sizeof c, j - 1);
        acc_sink_xfer(e, j, ACC_XK_GATHER, n,
                      "gather.L%d %s[0:%lld] -> %s[0]\n", j, c,
                      (long long)n, b);
        acc_sink_nop(e, settle(m, j, 0));
    }
}

/* The broadcast: gather source operand so (every PE's 4 long words) up
 * to BM level k, then PE ql's 4 long words down to every PE below. */
static void emit_bcast(AccSink *e, const AccMachine *m, const char *so,
                       const char *dst, int k, int64_t ql)
{
    char b[16], c[16];

    gather_up(e, m, so, k);
    for (int j = k; j >= 2; j--) {
        int64_t from = j == k ? 4 * ql : 0;
        bm_name(b, sizeof b, j);
        bm_name(c, sizeof c, j - 1);
        acc_sink_xfer(e, j, ACC_XK_BCAST, 4,
                      "bcast.L%d %s[%lld:%lld] -> %s[0]\n", j, b,
                      (long long)from, (long long)(from + 4), c);
        acc_sink_nop(e, bsettle(m, j));
    }
    acc_sink_xfer(e, 1, ACC_XK_BCAST, 0, "bcast.L1 lb[%lld] -> %s\n",
                  (long long)(k == 1 ? 4 * ql : 0), dst);
    acc_sink_nop(e, bsettle(m, 1));
}

/* Whether the group can be rebuilt through BM level k (k >= 2): every
 * used place takes, in its sub-cycle c, the long word at the address
 * every PE shares (sa[c]) of a PE under its own level-k node, whose
 * position there q[i] depends only on the place's PE position i under
 * its level k-1 node.  1 with q[0 .. span(k-1)-1] set (0 where no
 * place needs one). */
static int slot_map(const AccMachine *m, const Want *want, int64_t npe,
                    int k, int64_t *q)
{
    int64_t sk = acc_level_span(m, acc_bm_level(m, k));
    int64_t sc = acc_level_span(m, acc_bm_level(m, k - 1));

    for (int64_t i = 0; i < sc; i++)
        q[i] = -1;
    for (int64_t p = 0; p < npe; p++)
        for (int c = 0; c < 4; c++) {
            const Want *w = &want[p * 4 + c];
            int64_t i = p % sc;
            if (w->pe < 0)
                continue;
            if (w->pe / sk != p / sk || (q[i] >= 0 && q[i] != w->pe % sk))
                return 0;
            q[i] = w->pe % sk;
        }
    for (int64_t i = 0; i < sc; i++)
        if (q[i] < 0)
            q[i] = 0;
    return 1;
}

/* slot_map's rebuild through the top BM level and DRAM: each top node
 * takes from one top node tsrc[t] (any), the position q[i] there
 * depending only on the place's PE position i under its child.  1 when
 * it holds (the machine has two BM levels or more, and a top BM holds
 * two images). */
static int root_map(const AccMachine *m, const Want *want, int64_t npe,
                    int64_t *q, int64_t *tsrc)
{
    int k = acc_bm_levels(m), top = acc_bm_level(m, k);
    int64_t sk, sc, nt = acc_level_nodes(m, top);

    if (k < 2 || 8 * acc_level_span(m, top) > m->level[top].bm_words)
        return 0;
    sk = acc_level_span(m, top);
    sc = acc_level_span(m, acc_bm_level(m, k - 1));
    for (int64_t i = 0; i < sc; i++)
        q[i] = -1;
    for (int64_t t = 0; t < nt; t++)
        tsrc[t] = -1;
    for (int64_t p = 0; p < npe; p++)
        for (int c = 0; c < 4; c++) {
            const Want *w = &want[p * 4 + c];
            int64_t i = p % sc, t = p / sk;
            if (w->pe < 0)
                continue;
            if ((tsrc[t] >= 0 && tsrc[t] != w->pe / sk) ||
                (q[i] >= 0 && q[i] != w->pe % sk))
                return 0;
            tsrc[t] = w->pe / sk;
            q[i] = w->pe % sk;
        }
    for (int64_t i = 0; i < sc; i++)
        if (q[i] < 0)
            q[i] = 0;
    for (int64_t t = 0; t < nt; t++)
        if (tsrc[t] < 0)
            tsrc[t] = t;
    return 1;
}

/* The lowest BM level k >= 2 slot_map accepts, or 0. */
static int slot_level(const AccMachine *m, const Want *want, int64_t npe,
                      int64_t *q)
{
    for (int k = 2; k <= acc_bm_levels(m); k++)
        if (slot_map(m, want, npe, k, q))
            return k;
    return 0;
}

/* The rebuild: every PE's 4 long words gathered up to BM level k, the
 * image of each level k-1 node rebuilt there 4 long words at a time
 * (q, broadcast to every child alike), then distributed down. */
static void emit_slots(AccSink *e, const AccMachine *m, const char *so,
                       const char *dst, int k, const int64_t *q,
                       const int64_t *tsrc, int64_t scratch)
{
    int64_t sc = acc_level_span(m, acc_bm_level(m, k - 1));
    int64_t sk = acc_level_span(m, acc_bm_level(m, k)), x = 0;
    char b[16], c[16];

    gather_up(e, m, so, k);
    bm_name(b, sizeof b, k);
    bm_name(c, sizeof c, k - 1);
    if (tsrc) {
        /* Through DRAM: each top node's image out, then the image of
         * the node it takes from in, beside its own. */
        int64_t nt = acc_level_nodes(m, acc_bm_level(m, k));
        x = 4 * sk;
        for (int64_t t = 0; t < nt; t++)
            acc_sink_dma(e, t, 4 * sk,
                         "dma.st.t0@%lld %s[0:%lld] -> d[%lld]\n",
                         (long long)t, b, (long long)(4 * sk),
                         (long long)(scratch + t * 4 * sk));
        acc_sink_wait(e);
        for (int64_t t = 0; t < nt; t++)
            acc_sink_dma(e, t, 4 * sk,
                         "dma.ld.t0@%lld d[%lld:%lld] -> %s[%lld]\n",
                         (long long)t,
                         (long long)(scratch + tsrc[t] * 4 * sk),
                         (long long)(scratch + (tsrc[t] + 1) * 4 * sk), b,
                         (long long)x);
        acc_sink_wait(e);
    }
    for (int64_t i = 0; i < sc; i++)
        acc_sink_xfer(e, k, ACC_XK_BCAST, 4,
                      "bcast.L%d %s[%lld:%lld] -> %s[%lld]\n", k, b,
                      (long long)(x + 4 * q[i]),
                      (long long)(x + 4 * q[i] + 4), c, (long long)(4 * i));
    acc_sink_nop(e, bsettle(m, k));
    for (int j = k - 1; j >= 2; j--) {
        int64_t n = acc_level_span(m, acc_bm_level(m, j)) * 4;
        bm_name(b, sizeof b, j);
        bm_name(c, sizeof c, j - 1);
        acc_sink_xfer(e, j, ACC_XK_DIST, n,
                      "dist.L%d %s[0:%lld] -> %s[0]\n", j, b,
                      (long long)n, c);
        acc_sink_nop(e, settle(m, j, 1));
    }
    acc_sink_xfer(e, 1, ACC_XK_DIST, 0, "dist.L1 lb[0] -> %s\n", dst);
    acc_sink_nop(e, settle(m, 1, 1));
}

/* Where each place of destination group g comes from. */
static void group_sources(const AccLayout *src, const AccLayout *dst,
                          int64_t g, Want *want, int64_t npe)
{
    for (int64_t p = 0; p < npe; p++)
        for (int c = 0; c < 4; c++) {
            Want *w = &want[p * 4 + c];
            int64_t e = at(dst, p, dst->base + 4 * g + c, NULL);
            w->pe = -1;
            if (e >= 0)
                source_of(src, e, p, w);
        }
}

static int overlap(const AccLayout *a, const AccLayout *b)
{
    return a->space == b->space && a->base < b->base + b->addr_span &&
           b->base < a->base + a->addr_span;
}

/* acc_layout_emit_convert into sink e: the text and the estimate
 * come from this one decision of each group's route. */
static int convert(AccSink *e, const AccLayout *src, const AccLayout *dst,
                   int64_t scratch, AccEmitCounts *cnt, TlBuf *why)
{
    const AccMachine *m = src->m;
    int64_t npe = acc_machine_pes(m), ng = groups(dst);
    AccEmitCounts local;
    Want *want;
    int64_t *qs;
    char *how;
    int stored = 0, img = 0;

    TL_ASSERT(src->m == dst->m && src->nelems == dst->nelems &&
              src->dtype == dst->dtype);
    if (!conv_ok(src, dst, why))
        return -1;
    if (!cnt)
        cnt = &local;
    memset(cnt, 0, sizeof *cnt);
    want = tl_xmalloc((size_t)npe * 4 * sizeof *want);
    /* slot positions, then top nodes (root_map) */
    qs = tl_xmalloc((size_t)(2 * npe) * sizeof *qs);
    how = tl_xmalloc((size_t)(ng ? ng : 1));
    /* Decide every group first: the source goes to DRAM once, before
     * any group that needs it. */
    for (int64_t g = 0; g < ng; g++) {
        int64_t sa[4], k[4], coef[ACC_MAX_LEVELS], bq;
        int64_t *q = qs, *ts = qs + npe;
        int same = 1, any = 0, uni = 1, bk;
        group_sources(src, dst, g, want, npe);
        for (int64_t i = 0; i < npe * 4; i++) {
            const Want *w = &want[i];
            if (w->pe < 0)
                continue;
            any = 1;
            same &= w->pe == i / 4 && src->space == dst->space &&
                    w->addr == dst->base + 4 * g + i % 4;
        }
        for (int c = 0; c < 4; c++) {
            sa[c] = same_addr(want, npe, c);
            uni &= sa[c] != INT64_MIN;
        }
        if (!any || same)
            how[g] = 'n';               /* nothing to move */
        else if (!all_local(want, npe))
            how[g] = !uni ? 'd'
                     : bcast_from(m, want, npe, &bk, &bq) ? 'b'
                     : slot_level(m, want, npe, q) ? 'q'
                     : root_map(m, want, npe, q, ts) ? 'R' : 'd';
        else if (uni)
            how[g] = 'l';               /* inside each PE */
        else if (fit(src, want, npe, k, coef))
            how[g] = 'i';               /* each PE its own addresses */
        else
            how[g] = 'd';
    }
    /* Moving in place would overwrite sources still to be read. */
    if (overlap(src, dst))
        for (int64_t g = 0; g < ng; g++)
            if (how[g] != 'n')
                how[g] = 'd';
    for (int64_t g = 0; g < ng && !img; g++)
        if (how[g] == 'd')
            img = 1 + (unpacked(src) || use_images(src, dst, how));
    img = img == 2;
    acc_sink_text(e, "# convert through the lowest common ancestor\n");
    for (int64_t g = 0; g < ng; g++) {
        int64_t sa[4], b = 2 * (dst->base + 4 * g);
        const char *dsp = acc_layout_space_name(dst->space);
        char so[96];

        cnt->groups++;
        if (how[g] == 'n') {
            cnt->in_place++;
            continue;
        }
        if (how[g] == 'd') {
            if (!stored) {
                store(e, src, scratch, img);
                load_groups(e, dst, scratch, how, img ? src : NULL);
            }
            stored = 1;
            cnt->dram++;
            continue;
        }
        group_sources(src, dst, g, want, npe);
        for (int c = 0; c < 4; c++)
            sa[c] = same_addr(want, npe, c);
        if (how[g] == 'b') {
            int bk = 0;
            int64_t bq = 0;
            char to[64];
            bcast_from(m, want, npe, &bk, &bq);
            flat_src(so, sizeof so, src, sa);
            snprintf(to, sizeof to, "%s[%lld+]", dsp, (long long)b);
            emit_bcast(e, m, so, to, bk, bq);
            cnt->bcast++;
            continue;
        }
        if (how[g] == 'q') {
            char to[64];
            int k = slot_level(m, want, npe, qs);
            flat_src(so, sizeof so, src, sa);
            snprintf(to, sizeof to, "%s[%lld+]", dsp, (long long)b);
            emit_slots(e, m, so, to, k, qs, NULL, 0);
            cnt->bcast++;
            continue;
        }
        if (how[g] == 'R') {
            char to[64];
            root_map(m, want, npe, qs, qs + npe);
            flat_src(so, sizeof so, src, sa);
            snprintf(to, sizeof to, "%s[%lld+]", dsp, (long long)b);
            emit_slots(e, m, so, to, acc_bm_levels(m), qs, qs + npe,
                       scratch);
            cnt->root++;
            continue;
        }
        if (how[g] == 'i') {
            int64_t k[4], coef[ACC_MAX_LEVELS];
            fit(src, want, npe, k, coef);
            emit_t(e, m, k, coef);
            snprintf(so, sizeof so, "%s[t]",
                     acc_layout_space_name(src->space));
            cnt->indirect++;
        } else {
            flat_src(so, sizeof so, src, sa);
            cnt->local++;
        }
        /* An LM bank has one port: a move inside one bank goes through
         * the GRF. */
        if (src->space == dst->space) {
            acc_sink_alu(e, "mov %s -> r[8+]\n", so);
            acc_sink_nop(e, m->lat_grf);
            acc_sink_alu(e, "mov r[8+] -> %s[%lld+]\n", dsp, (long long)b);
        } else {
            acc_sink_alu(e, "mov %s -> %s[%lld+]\n", so, dsp, (long long)b);
        }
    }
    if (cnt->local || cnt->indirect)
        acc_sink_nop(e, m->lat_lm);
    free(want);
    free(qs);
    free(how);
    return 0;
}

int acc_layout_emit_convert(TlBuf *out, const AccLayout *src,
                            const AccLayout *dst, int64_t scratch,
                            AccEmitCounts *cnt, TlBuf *why)
{
    AccSink e;
    acc_sink_init(&e, src->m, out);
    return convert(&e, src, dst, scratch, cnt, why);
}

int acc_layout_emit_estimate(const AccLayout *src, const AccLayout *dst,
                             AccEmitEst *est, TlBuf *why)
{
    AccSink e;
    memset(est, 0, sizeof *est);
    acc_sink_init(&e, src->m, NULL);
    if (convert(&e, src, dst, 0, &est->cnt, why) < 0)
        return -1;
    est->cycles = acc_sink_cycles(&e);
    est->link_words = e.link_words;
    est->dram_words = e.dram_words;
    est->dma_ops = e.dma_ops;
    return 0;
}
