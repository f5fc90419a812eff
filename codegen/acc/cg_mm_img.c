/*
 * cg_mm_img.c - the matmul route's DRAM images (cg_mm.c's comment says
 * what the program does): which element of A and of B each lane of
 * the A chunks' and the B sets' loads carries, in the order the tree's
 * transfers consume them (AccCgIn.map), and where each element of C
 * lands in the stored sums (AccCgProgram.omap).
 */
#include "codegen/acc/cg_mm_int.h"

#include <stdlib.h>
#include <string.h>

/* in's element at loop values v, or ACC_CG_OUTSIDE when one of its
 * bounds tests fails there (a zero_pad read). */
static int64_t elem_v(const AccCgMm *x, const AccCgIn *in, const int64_t *v)
{
    int64_t at = in->k;

    for (int t = 0; t < in->nbt; t++) {
        int64_t d = in->btest[t].k;
        for (int l = 0; l < x->g.nloops; l++)
            d += in->btest[t].coef[l] * v[l];
        if ((d < 0) != in->blt[t])
            return ACC_CG_OUTSIDE;
    }
    for (int l = 0; l < x->g.nloops; l++)
        at += in->coef[l] * v[l];
    return at;
}

/* in's element at (i, j, k): each unflattened over its loops. */
static int64_t elem(const AccCgMm *x, const AccCgIn *in, int64_t i, int64_t j,
                    int64_t k)
{
    const int64_t *ext = x->g.p->ext;
    int64_t v[TL_MAX_RANK] = {0};

    for (int l = x->ni - 1; l >= 0; l--) {
        v[x->il[l]] = i % ext[x->il[l]];
        i /= ext[x->il[l]];
    }
    for (int l = x->nj - 1; l >= 0; l--) {
        v[x->jl[l]] = j % ext[x->jl[l]];
        j /= ext[x->jl[l]];
    }
    for (int l = x->g.nloops - 1; l >= x->nout; l--) {
        v[l] = k % ext[l];
        k /= ext[l];
    }
    return elem_v(x, in, v);
}

/* in's element at row i of A's side and the other loops' values v
 * (A reads no j loop). */
static int64_t elem_at(const AccCgMm *x, const AccCgIn *in, int64_t i,
                       int64_t *v)
{
    const int64_t *ext = x->g.p->ext;

    for (int l = x->ni - 1; l >= 0; l--) {
        v[x->il[l]] = i % ext[x->il[l]];
        i /= ext[x->il[l]];
    }
    return elem_v(x, in, v);
}

/* Lanes of a long word (of PE pe inside the scope, word w) of the
 * image of A chunk mc, load piece q; B set v, piece q. */
static void a_elems(const AccCgMm *x, int64_t mc, int64_t w, int64_t pe,
                    int64_t *e)
{
    const AccCgIn *in = &x->g.p->ins[x->a];
    /* pe / sa: the top node; with column parts each block of R holds
     * the rows parts again. */
    int64_t sa = acc_cg_scope_pes(x->g.m, x->h), r = pe / sa % x->R;
    int64_t km = pe % sa / x->G, p = pe % x->G;
    int64_t u = w / x->Mc, ii = mc * x->Mc + w % x->Mc, i = r * x->Mp + ii;
    int64_t kt = km + x->kspan * u;

    if (x->win) {
        int64_t v[TL_MAX_RANK] = {0};
        e[1] = -1;
        e[0] = ii < x->Mp && i < x->M && !acc_cg_win_k(&x->w, u, km, p, v)
                   ? elem_at(x, in, i, v) : -1;
        return;
    }
    for (int l = 0; l < x->ew; l++) {
        int64_t k = kt * x->Nc + p * x->cn + l;
        e[l] = -1;
        if (l < x->cn && ii < x->Mp && i < x->M && kt < x->KT && k < x->K)
            e[l] = elem(x, in, i, 0, k);
    }
}

static void b_elems(const AccCgMm *x, int64_t v, int64_t w, int64_t pe,
                    int64_t *e)
{
    const AccCgIn *in = &x->g.p->ins[x->b];
    /* Column part cp's scope image follows part cp - 1's. */
    int64_t P = acc_cg_scope_pes(x->g.m, x->bk & ACC_CG_LEVEL);
    int64_t cp = pe / P;
    int64_t gm = pe % P / x->G, p = pe % x->G;
    int64_t g = gm / x->kspan, km = gm % x->kspan;
    int64_t u = w / x->tw, t = w % x->tw;
    int64_t kt = km + x->kspan * u, jl = g + x->NHj * v;
    int64_t jt = cp * x->JTc + jl;

    for (int l = 0; l < x->ew; l++) {
        /* f32: sub-cycle t of the tile's mwrite, rows 2t and 2t + 1
         * (lanes), column p.  f16: long word t of the two .dd mwrites
         * (rows 0 and 8), each sub-cycle two rows of 4 lanes, one a
         * long word; column 4p + lane. */
        int64_t row = x->ew == 2 ? 2 * t + l : t / 8 * 8 + t % 8 / 2 * 2 +
                                                   t % 2;
        int64_t k = kt * x->Nc + p * x->cn + (x->ew == 2 ? 0 : l);
        int64_t j = jt * x->Mr + row;
        e[l] = -1;
        if (kt < x->KT && k < x->K && jl < x->JTc && jt < x->JT &&
            j < x->N)
            e[l] = elem(x, in, 0, j, k);
    }
}

/* Lanes of long word U of PE pe's window image. */
static void w_elems(const AccCgMm *x, int64_t U, int64_t pe, int64_t *e)
{
    const AccCgIn *in = &x->g.p->ins[x->b];
    int64_t gm = pe / x->G;

    for (int l = 0; l < 2; l++) {
        int64_t v[TL_MAX_RANK] = {0};
        e[l] = acc_cg_win_img(&x->w, gm / x->kspan, gm % x->kspan, pe % x->G,
                              U, l, v)
                   ? -1 : elem_at(x, in, 0, v);
    }
}

/* Long words per PE of piece q of a run of `total` in pieces of W. */
int64_t acc_cg_mm_piece(int64_t q, int64_t W, int64_t total)
{
    return total - q * W < W ? total - q * W : W;
}

/* Fills the images: A then B, each a run of loads of W lw per PE. */
void acc_cg_mm_maps(AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    AccCgProgram *p = x->g.p;
    int64_t sa = acc_cg_mm_a_pes(x), P = acc_cg_mm_b_pes(x);
    int64_t wa = x->Mc * x->KU;
    AccCgIn *A = &p->ins[x->a], *B = &p->ins[x->b];

    A->nmap = x->ew * acc_cg_mm_a_off(x, x->NMC);
    B->nmap = x->ew * acc_cg_mm_b_off(x, x->JV);
    A->map = tl_xmalloc((size_t)A->nmap * sizeof *A->map);
    B->map = tl_xmalloc((size_t)B->nmap * sizeof *B->map);
    for (int64_t e = 0; e < A->nmap; e++)
        A->map[e] = -1;
    for (int64_t e = 0; e < B->nmap; e++)
        B->map[e] = -1;
    for (int64_t mc = 0; mc < x->NMC; mc++)
        for (int64_t q = 0, W = acc_cg_mm_a_w(x, mc);
             q < acc_cg_mm_a_n(x, mc); q++)
            for (int64_t pe = 0; pe < sa; pe++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t e[4], at;
                    if (q * W + w >= wa)
                        continue;
                    a_elems(x, mc, q * W + w, pe, e);
                    at = (acc_cg_mm_a_off(x, mc) + q * sa * W +
                          acc_cg_img_pos(m, pe, w, acc_cg_mm_piece(q, W, wa))) *
                         x->ew;
                    memcpy(A->map + at, e, (size_t)x->ew * sizeof *e);
                }
    for (int64_t v = 0; v < x->JV; v++)
        for (int64_t q = 0, n = acc_cg_mm_bset(x, v),
                     W = acc_cg_mm_b_w(x, v);
             q < acc_cg_mm_b_n(x, v); q++)
            for (int64_t pe = 0; pe < P; pe++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t e[4], at;
                    if (q * W + w >= n)
                        continue;
                    if (x->win)
                        w_elems(x, acc_cg_win_end(&x->w, v - 1) + q * W + w,
                                pe, e);
                    else
                        b_elems(x, v, q * W + w, pe, e);
                    int64_t Wq = acc_cg_mm_piece(q, W, n);
                    at = (acc_cg_mm_b_off(x, v) + q * P * W +
                          acc_cg_img_pos(m, pe, w, Wq)) * x->ew;
                    memcpy(B->map + at, e, (size_t)x->ew * sizeof *e);
                }
}

void acc_cg_mm_omap(AccCgMm *x)
{
    AccCgProgram *p = x->g.p;
    int64_t G = x->G, tile = x->Mc * G * x->rw;

    p->oimage = 2 * x->NMC * x->JV * x->NH * tile;
    p->omap = tl_xmalloc((size_t)(x->M * x->N) * sizeof *p->omap + 1);
    for (int64_t e = 0; e < x->M * x->N; e++) {
        int64_t i = 0, j = 0, r = e, v[TL_MAX_RANK];
        for (int l = x->nout - 1; l >= 0; l--) {
            v[l] = r % p->ext[l];
            r /= p->ext[l];
        }
        for (int l = 0; l < x->ni; l++)
            i = i * p->ext[x->il[l]] + v[x->il[l]];
        for (int l = 0; l < x->nj; l++)
            j = j * p->ext[x->jl[l]] + v[x->jl[l]];
        int64_t part = i / x->Mp, mc = i % x->Mp / x->Mc;
        int64_t ii = i % x->Mp % x->Mc, s = ii / 4, c = ii % 4;
        int64_t jt = j / x->Mr, jj = j % x->Mr, cp = jt / x->JTc;
        int64_t jl = jt % x->JTc;
        int64_t g = (cp * x->R + part) * x->NHj + jl % x->NHj;
        int64_t jv = jl / x->NHj;
        if (x->win)
            acc_cg_win_out(&x->w, v, &g, &jv, &jj);
        int64_t pe = jj / x->cm, l = jj % x->cm;
        int64_t lw = ((mc * x->JV + jv) * x->NH + g) * tile +
                     (s * 4 * G + c * G + pe) * x->rw;
        p->omap[e] = 2 * lw + l;
    }
}

