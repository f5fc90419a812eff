/*
 * layout_emit.c - a layout conversion as instructions, in the assembly
 * of docs/accel-asm.md: a first, always-correct route through DRAM.
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
 * simulator.  This route moves every element through DRAM whatever its
 * meeting level; emitting the plan of layout_conv.c (rotations, BM
 * permutations, broadcasts) is TODO(issue 6).  It also writes every
 * PE's 4 addresses of each step, including PEs and addresses the layout
 * leaves empty (TODO(issue 6): write masks from `$gpe` compares).
 */
#include "codegen/acc/layout.h"

#include <math.h>
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

int acc_layout_emit_ok(const AccLayout *L, TlBuf *why)
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
    if (L->epl > 1) {
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
    const AccMachine *m = L->m;
    AccLoc loc;
    memset(&loc, 0, sizeof loc);
    loc.node_level = m->nlevels - 1;
    loc.space = L->space;
    loc.addr = addr;
    for (int lv = m->nlevels - 1; lv >= 0; lv--) {
        loc.path[lv] = pe % m->level[lv].fanout;
        pe /= m->level[lv].fanout;
    }
    return acc_layout_element(L, &loc, copy);
}

static int64_t groups(const AccLayout *L)
{
    return (L->addr_span + 3) / 4;
}

void acc_layout_emit_load(TlBuf *out, const AccLayout *L, int64_t dram)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m), top = acc_bm_level(m, nbm);
    int64_t ntop = acc_level_nodes(m, top), span = acc_level_span(m, top);
    char tb[16], b[16], c[16];
    const char *sp = acc_layout_space_name(L->space);

    bm_name(tb, sizeof tb, nbm);
    buf_printf(out, "# load %s from d[%lld] (row-major)\n", sp,
               (long long)dram);
    for (int64_t g = 0; g < groups(L); g++) {
        int any = 0;
        for (int64_t t = 0; t < ntop; t++)
            for (int64_t i = 0; i < span; i++)
                for (int k = 0; k < 4; k++) {
                    int64_t e = at(L, t * span + i, L->base + 4 * g + k, NULL);
                    int64_t lw = e / L->epl;
                    if (e < 0)
                        continue;
                    buf_printf(out, "dma.ld.t0@%lld d[%lld:%lld] -> "
                               "%s[%lld]\n", (long long)t,
                               (long long)(dram + lw),
                               (long long)(dram + lw + 1), tb,
                               (long long)(i * 4 + k));
                    any = 1;
                }
        if (!any)
            continue;
        buf_puts(out, "wait t0\n");
        for (int k = nbm; k >= 2; k--) {
            int lv = acc_bm_level(m, k);
            bm_name(b, sizeof b, k);
            bm_name(c, sizeof c, k - 1);
            buf_printf(out, "dist.L%d %s[0:%lld] -> %s[0]\nnop/%lld\n", k, b,
                       (long long)(acc_level_span(m, lv) * 4), c,
                       (long long)settle(m, k, 1));
        }
        buf_printf(out, "dist.L1 lb[0] -> %s[%lld+]\nnop/%lld\n", sp,
                   (long long)(2 * (L->base + 4 * g)),
                   (long long)settle(m, 1, 1));
    }
}

void acc_layout_emit_store(TlBuf *out, const AccLayout *L, int64_t dram)
{
    const AccMachine *m = L->m;
    int nbm = acc_bm_levels(m), top = acc_bm_level(m, nbm);
    int64_t ntop = acc_level_nodes(m, top), span = acc_level_span(m, top);
    char tb[16], b[16], c[16];
    const char *sp = acc_layout_space_name(L->space);

    bm_name(tb, sizeof tb, nbm);
    buf_printf(out, "# store %s to d[%lld] (row-major)\n", sp,
               (long long)dram);
    for (int64_t g = 0; g < groups(L); g++) {
        buf_printf(out, "gather.L1 %s[%lld+] -> lb[0]\nnop/%lld\n", sp,
                   (long long)(2 * (L->base + 4 * g)),
                   (long long)settle(m, 1, 0));
        for (int k = 2; k <= nbm; k++) {
            int lv = acc_bm_level(m, k - 1);
            bm_name(b, sizeof b, k);
            bm_name(c, sizeof c, k - 1);
            buf_printf(out, "gather.L%d %s[0:%lld] -> %s[0]\nnop/%lld\n", k,
                       c, (long long)(acc_level_span(m, lv) * 4), b,
                       (long long)settle(m, k, 0));
        }
        for (int64_t t = 0; t < ntop; t++)
            for (int64_t i = 0; i < span; i++)
                for (int k = 0; k < 4; k++) {
                    int64_t cp = -1;
                    int64_t e = at(L, t * span + i, L->base + 4 * g + k, &cp);
                    int64_t lw = e / L->epl;
                    if (e < 0 || cp != 0 || e % L->epl)
                        continue;
                    buf_printf(out, "dma.st.t0@%lld %s[%lld:%lld] -> "
                               "d[%lld]\n", (long long)t, tb,
                               (long long)(i * 4 + k),
                               (long long)(i * 4 + k + 1),
                               (long long)(dram + lw));
                }
        buf_puts(out, "wait t0\n");
    }
}

int acc_layout_emit_convert(TlBuf *out, const AccLayout *src,
                            const AccLayout *dst, int64_t scratch,
                            TlBuf *why)
{
    TL_ASSERT(src->m == dst->m && src->nelems == dst->nelems &&
              src->dtype == dst->dtype);
    if (!acc_layout_emit_ok(src, why) || !acc_layout_emit_ok(dst, why))
        return -1;
    buf_puts(out, "# convert through DRAM\n");
    acc_layout_emit_store(out, src, scratch);
    acc_layout_emit_load(out, dst, scratch);
    return 0;
}
