/*
 * cg_win.c - the window image of a convolution run as a matmul
 * (cg_mm.c): which input elements each PE keeps and where a tile's
 * mwrite finds them, so that the input loads once per node (with a
 * halo of R - 1 rows and S - 1 columns) instead of once per window
 * offset (im2col: R S copies).
 *
 * The j tiles (Mr output positions along x each) of one node of the k
 * split's level form a block of BH rows by BX tiles; pair v of the
 * node is row v / BX, tile v % BX.  Group km of the kspan groups
 * under the node, PE p, takes the channels c = (cu kspan + km) Nc + p
 * for cu < CU; k tile u of the group is channel slot cu at window
 * offset (r, s), u = (cu R + r) S + s.  Its image is rows x rowlen
 * long words, row-major over (input row of the block, cu, column):
 * the long word at column col holds the block's input columns col and
 * col + 1, so sub-cycle t of tile (v, u) reads column Mr (v % BX) + 2t
 * + s of row v / BX + r: one long word in two per sub-cycle, an
 * mwrite with stride 4 words.  The rows load in the order the pairs
 * first read them, pair 0 the first R, each next row of the block in
 * the bundles of the pair before (cg_overlap.c).
 */
#include "codegen/acc/cg_int.h"

#include <string.h>

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int acc_cg_win_match(AccCgWin *w, const int64_t *ext, const int64_t *coef,
                     const int *jl, int nj, int nout, int nloops)
{
    memset(w, 0, sizeof *w);
    memcpy(w->ext, ext, sizeof w->ext);
    w->jx = jl[nj - 1];
    w->jy = nj > 1 ? jl[nj - 2] : -1;
    w->rx = w->ry = -1;
    /* The element read depends on y + r and x + s only when their
     * coefficients are equal. */
    for (int l = nout; l < nloops; l++) {
        if (w->rx < 0 && coef[l] == coef[w->jx])
            w->rx = l;
        else if (w->ry < 0 && w->jy >= 0 && coef[l] == coef[w->jy])
            w->ry = l;
    }
    if (w->rx < 0)
        return 1;
    w->X = ext[w->jx];
    w->Y = w->jy >= 0 ? ext[w->jy] : 1;
    w->S = ext[w->rx];
    w->R = w->ry >= 0 ? ext[w->ry] : 1;
    if (w->S * w->R < 2)
        return 1;
    w->O = w->C = 1;
    for (int i = 0; i < nj - (w->jy >= 0 ? 2 : 1); i++) {
        w->ol[w->nol++] = jl[i];
        w->O *= ext[jl[i]];
    }
    for (int l = nout; l < nloops; l++)
        if (l != w->rx && l != w->ry) {
            w->cl[w->ncl++] = l;
            w->C *= ext[l];
        }
    return 0;
}

int64_t acc_cg_win_shape(AccCgWin *w, int64_t NH, int64_t kspan,
                         int64_t Nc, int64_t Mr, int64_t tw,
                         int64_t lm_words)
{
    int64_t XT = cdiv(w->X, Mr), best = -1, bwords = 0;
    int64_t CU = cdiv(w->C, kspan * Nc);

    /* The fewest pairs per node, then the smallest image: a block as
     * tall as the nodes allow, as narrow as they allow. */
    for (int64_t BX = 1; BX <= XT; BX++) {
        int64_t XB = cdiv(XT, BX), YBmax = NH / (w->O * XB), BH;
        int64_t cols = Mr * (BX - 1) + 2 * (tw - 1) + w->S, words;
        if (YBmax < 1)
            continue;
        BH = cdiv(w->Y, YBmax);
        words = cdiv((BH + w->R - 1) * CU * cols, 4) * 4;
        if (words > lm_words)
            continue;
        if (best < 0 || BH * BX < best ||
            (BH * BX == best && words < bwords)) {
            best = BH * BX;
            bwords = words;
            w->BX = BX;
            w->BH = BH;
            w->XB = XB;
            w->YB = cdiv(w->Y, BH);
            w->cols = cols;
        }
    }
    if (best < 0)
        return -1;
    w->kspan = kspan;
    w->Nc = Nc;
    w->Mr = Mr;
    w->tw = tw;
    w->CU = CU;
    w->rowlen = CU * w->cols;
    w->rows = w->BH + w->R - 1;
    w->words = bwords;
    return best;
}

int64_t acc_cg_win_ku(const AccCgWin *w)
{
    return w->CU * w->R * w->S;
}

/* Sets the channel loops' values for channel c: 0, or -1 past them. */
static int channel(const AccCgWin *w, int64_t c, int64_t *v)
{
    if (c >= w->C)
        return -1;
    for (int i = w->ncl - 1; i >= 0; i--) {
        v[w->cl[i]] = c % w->ext[w->cl[i]];
        c /= w->ext[w->cl[i]];
    }
    return 0;
}

int acc_cg_win_k(const AccCgWin *w, int64_t u, int64_t km, int64_t p,
                 int64_t *v)
{
    int64_t s = u % w->S, r = u / w->S % w->R, cu = u / (w->S * w->R);

    v[w->rx] = s;
    if (w->ry >= 0)
        v[w->ry] = r;
    return channel(w, (cu * w->kspan + km) * w->Nc + p, v);
}

/* Splits input position at (of the block's output position plus a
 * window offset, < n + e - 1) between an output loop of extent n and
 * its window loop of extent e. */
static void split(int64_t at, int64_t n, int lo, int lw, int64_t *v)
{
    int64_t o = at < n - 1 ? at : n - 1;

    if (lo >= 0)
        v[lo] = o;
    if (lw >= 0)
        v[lw] = at - o;
}

int acc_cg_win_img(const AccCgWin *w, int64_t g, int64_t km, int64_t p,
                   int64_t U, int l, int64_t *v)
{
    int64_t row = U / w->rowlen, cu = U % w->rowlen / w->cols;
    int64_t col = U % w->cols;
    int64_t xb = g % w->XB, yb = g / w->XB % w->YB, o = g / w->XB / w->YB;
    int64_t py = yb * w->BH + row, px = xb * w->BX * w->Mr + col + l;

    if (row >= w->rows || o >= w->O || py > w->Y + w->R - 2 ||
        px > w->X + w->S - 2 ||
        channel(w, (cu * w->kspan + km) * w->Nc + p, v))
        return -1;
    split(py, w->Y, w->jy, w->ry, v);
    split(px, w->X, w->jx, w->rx, v);
    for (int i = w->nol - 1; i >= 0; i--) {
        v[w->ol[i]] = o % w->ext[w->ol[i]];
        o /= w->ext[w->ol[i]];
    }
    return 0;
}

int64_t acc_cg_win_tile(const AccCgWin *w, int64_t v, int64_t u)
{
    int64_t s = u % w->S, r = u / w->S % w->R, cu = u / (w->S * w->R);

    return (v / w->BX + r) * w->rowlen + cu * w->cols +
           w->Mr * (v % w->BX) + s;
}

int64_t acc_cg_win_end(const AccCgWin *w, int64_t v)
{
    int64_t need = v / w->BX + w->R;

    if (v < 0)
        return 0;
    if (need > w->rows)
        need = w->rows;
    return cdiv(need * w->rowlen, 4) * 4;
}

void acc_cg_win_out(const AccCgWin *w, const int64_t *v, int64_t *g,
                    int64_t *pair, int64_t *jj)
{
    int64_t x = v[w->jx], y = w->jy >= 0 ? v[w->jy] : 0, o = 0;
    int64_t xt = x / w->Mr;

    for (int i = 0; i < w->nol; i++)
        o = o * w->ext[w->ol[i]] + v[w->ol[i]];
    *jj = x % w->Mr;
    *g = (o * w->YB + y / w->BH) * w->XB + xt / w->BX;
    *pair = y % w->BH * w->BX + xt % w->BX;
}
