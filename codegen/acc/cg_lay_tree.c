/*
 * cg_lay_tree.c - the layout route's tree mode (cg_red_lay.c): partial
 * results of a reduced axis spread over exactly the levels the tree's
 * `red*` transfers combine are all-reduced up the tree and broadcast
 * back to every PE, with no conversion.
 */
#include "codegen/acc/cg_lay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the reduced levels are exactly those the tree's `red*`
 * combine from the PEs' MABs up to some BM level k (red.L1 combines the
 * MABs of an L1 node, red.Lk the L(k-1) nodes of an Lk node, dma.red
 * the top nodes), each taken whole by the reduced axes and by nothing
 * else: then x->tree = k and the partial results are combined up the
 * tree and broadcast back down (an all-reduce), with no conversion. */
void lay_tree_mode(RL *x)
{
    const AccMachine *m = x->g->m;
    int nbm = acc_bm_levels(m), n = m->nlevels;
    int64_t per[ACC_MAX_LEVELS] = {0}, G = m->level[n - 1].fanout, cap;
    int used_out[ACC_MAX_LEVELS] = {0}, any = 0;

    x->tree = 0;
    if (x->Q <= 1 || nbm < 1 || n < 2)
        return;
    for (int l = 0; l < n; l++)
        per[l] = 1;
    for (int d = 0; d < x->nd; d++)
        for (int i = 0; i < x->dom[d].nf; i++) {
            const Fac *f = &x->dom[d].f[i];
            if (f->level < 0)
                continue;
            if (d < x->nout)
                used_out[f->level] = 1;
            else
                per[f->level] *= f->n, any = 1;
        }
    if (!any || per[n - 1] > 1)
        return;
    /* Levels bm_level(k) + 1 .. hi(k) are what step k combines. */
    for (int k = 1, hi = n - 2; k <= nbm + 1; k++) {
        int lo = k <= nbm ? acc_bm_level(m, k) + 1 : 0, all = 1, rest = 0;
        for (int l = lo; l <= hi; l++)
            all &= per[l] == m->level[l].fanout && !used_out[l];
        for (int l = 0; l < lo; l++)
            rest |= per[l] > 1;
        if (!all)
            return;
        if (!rest) {
            x->tree = k;
            break;
        }
        hi = lo - 1;
    }
    if (!x->tree)
        return;
    cap = -1;
    for (int k = 1; k <= x->tree && k <= nbm; k++) {
        int64_t c = m->level[acc_bm_level(m, k)].bm_words / (4 * G);
        if (cap < 0 || c < cap)
            cap = c;
    }
    x->tree_nb = cap < x->Opad / 4 ? cap : x->Opad / 4;
    if (x->tree_nb < 1)
        x->tree = 0;
}

/* The all-reduce of the partial results in lm1 from `at` (tree mode):
 * up by red* to BM level x->tree (through DRAM scratch for the top
 * nodes), back down by bcast, and into every PE by mbcast.L1, which
 * reads the slot of the PE's position in its MAB, as red*.L1 writes
 * it. */
void lay_tree_reduce(RL *x, TlBuf *o, int64_t at)
{
    const AccMachine *m = x->g->m;
    int nbm = acc_bm_levels(m), top = x->tree <= nbm ? x->tree : nbm;
    int64_t G = m->level[m->nlevels - 1].fanout, ng = x->Opad / 4;
    char b[16], c[16];

    for (int64_t g0 = 0; g0 < ng; g0 += x->tree_nb) {
        int64_t nb = ng - g0 < x->tree_nb ? ng - g0 : x->tree_nb;
        int64_t len = nb * 4 * G;
        for (int64_t g = 0; g < nb; g++)
            buf_printf(o, "red%s.L1.f32 lm1[%lld+] -> lb[%lld]\n",
                       x->opname, (long long)(2 * (at + 4 * (g0 + g))),
                       (long long)(g * 4 * G));
        acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_RED, (double)(4 * G), 4));
        for (int k = 2; k <= top; k++) {
            acc_cg_bm_name(b, sizeof b, k - 1);
            acc_cg_bm_name(c, sizeof c, k);
            buf_printf(o, "red%s.L%d.f32 %s[0:%lld] -> %s[0]\n", x->opname,
                       k, b, (long long)len, c);
            acc_cg_nop(o, acc_cg_wait(m, k, ACC_XK_RED, (double)len,
                                      (double)len));
        }
        if (x->tree > nbm) {
            acc_cg_bm_name(b, sizeof b, nbm);
            buf_printf(o, "dma.red%s.f32.t1 %s[0:%lld] -> d[%lld]\n"
                       "wait t1\n", x->opname, b, (long long)len,
                       (long long)x->scratch);
            buf_printf(o, "dma.bcast.t1 d[%lld:%lld] -> %s[0]\nwait t1\n",
                       (long long)x->scratch, (long long)(x->scratch + len),
                       b);
        }
        for (int k = top; k >= 2; k--) {
            acc_cg_bm_name(b, sizeof b, k);
            acc_cg_bm_name(c, sizeof c, k - 1);
            buf_printf(o, "bcast.L%d %s[0:%lld] -> %s[0]\n", k, b,
                       (long long)len, c);
            acc_cg_nop(o, acc_cg_wait(m, k, ACC_XK_BCAST, (double)len,
                                      (double)len));
        }
        for (int64_t g = 0; g < nb; g++)
            buf_printf(o, "mbcast.L1 lb[%lld] -> lm1[%lld+]\n",
                       (long long)(g * 4 * G),
                       (long long)(2 * (at + 4 * (g0 + g))));
        acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_BCAST, (double)(4 * G), 4));
        acc_cg_nop(o, m->lat_lm);
    }
}
