/*
 * cg_pipe_map.c - where the pipeline route's rows and columns live
 * (cg_pipe.c): whether a row pair spreads over the MABs of an L1B
 * (pipe_choose_split), which PE and word hold each element, and the
 * DRAM images of the inputs (AccCgIn.map; a row-invariant input as
 * one L1B's share) and of the output (AccCgProgram.omap) in that
 * order.
 */
#include "codegen/acc/cg_pipe_int.h"

#include <stdlib.h>

static int fail(Pipe *x, const char *what)
{
    return acc_cg_fail(&x->g, what);
}

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Spreads each row pair over the K = L1 / G MABs of an L1B when the
 * machine has more PEs than row pairs to spare: a PE holding whole
 * rows then computes padding (512 rows on mn2's 4096 PEs: 15 of 16 PEs
 * loaded, computed and stored rows that do not exist, and DRAM moved
 * 16 times the tensors), while K PEs a row pair do a K-th of a row
 * each and combine their reductions in the tree (one red and one
 * mbcast at L1 per row pair).  Only when every stage's columns split
 * into whole chunks of 4 on every PE (no padding columns to mask) and
 * the PEs' share of rows shrinks by more than the tree's steps cost
 * (a quarter kept as margin). */
void pipe_choose_split(Pipe *x)
{
    int64_t K = x->L1 / x->G, rows2 = cdiv(x->N, 2);

    if (K < 2 || x->P % (x->L1) != 0)
        return;
    for (int i = 0; i < x->nst; i++) {
        /* D = 1: a value per row, replicated (a reduction's D is the
         * columns it reduces, which must split). */
        int64_t D = x->st[i].D;
        if ((D != 1 || x->st[i].acc) && (D <= 0 || D % (4 * K)))
            return;
    }
    if (cdiv(rows2, x->P / K) * 4 >= cdiv(rows2, x->P) * K * 3)
        return;
    x->K = K;
    for (int i = 0; i < x->nts; i++)
        x->ts[i].C = cdiv(pipe_local_D(x, x->ts[i].D), 4);
}

int64_t pipe_local_D(const Pipe *x, int64_t D)
{
    return D == 1 ? 1 : D / x->K;
}

void pipe_pos(const Pipe *x, int64_t b, int64_t pe, int64_t v, int64_t C,
              int64_t D, int64_t *rp2, int64_t *col)
{
    int64_t node = pe / x->L1, j = pe % x->L1 / x->G, p = pe % x->G;
    int64_t grp = x->K > 1 ? node * x->G + p : pe;

    *rp2 = (b * (x->P / x->K) + grp) * x->RB + v / C;
    *col = D == 1 ? 0 : (x->K > 1 ? j * (D / x->K) : 0) + v % C * 4;
}

int64_t pipe_piece(const Pipe *x, int64_t W, int input)
{
    int64_t h = x->Wmax / 2 / 4 * 4;

    if (input && x->pw_in && W > x->pw_in)
        return x->pw_in;
    if (!input && x->pw_out && W > x->pw_out)
        return x->pw_out;
    return input && W > x->Wmax && h >= 4 ? h : x->Wmax;
}

/* Loads of at most Wp long words each (pipe_piece). */
int64_t pipe_img_lw(const Pipe *x, int64_t b, int64_t pe, int64_t w,
                    int64_t W, int64_t Wp)
{
    int64_t q = w / Wp, Wq = W - q * Wp;

    if (Wq > Wp)
        Wq = Wp;
    return b * x->P * W + q * x->P * Wp +
           acc_cg_img_pos(x->g.m, pe, w % Wp, Wq);
}

int64_t pipe_img_index(const Pipe *x, int i, int64_t row, int64_t col)
{
    const AccCgIn *in = &x->g.p->ins[i];
    const Stage *s = &x->st[x->imgs[i].stage];
    int64_t at = in->k, cc = col, rr = row;

    for (int l = s->nloops - 1; l >= s->nrow; l--) {
        at += in->coef[l] * (cc % s->ext[l]);
        cc /= s->ext[l];
    }
    for (int l = s->nrow - 1; l >= 0; l--) {
        at += in->coef[l] * (rr % s->ext[l]);
        rr /= s->ext[l];
    }
    return at;
}

/* Long word position of word w of PE pe (< L1) in a row-invariant
 * image (Img.inv): loads of at most Wmax long words, each over one
 * L1B's PEs. */
static int64_t inv_lw(const Pipe *x, int64_t pe, int64_t w, int64_t W)
{
    int64_t q = w / x->Wmax, Wq = W - q * x->Wmax;

    if (Wq > x->Wmax)
        Wq = x->Wmax;
    return q * x->L1 * x->Wmax + acc_cg_img_pos(x->g.m, pe, w % x->Wmax, Wq);
}

/* Marks the images whose elements do not depend on the row: every
 * row loop's coefficient 0. */
void pipe_find_invariant(Pipe *x)
{
    AccCgProgram *p = x->g.p;

    for (int i = 0; i < p->nins && !x->lay; i++) {
        const Stage *s = &x->st[x->imgs[i].stage];
        int inv = 1;
        for (int l = 0; l < s->nrow; l++)
            inv &= p->ins[i].coef[l] == 0 || s->ext[l] == 1;
        x->imgs[i].inv = inv;
    }
}

static int build_inv_map(Pipe *x, int i)
{
    AccCgIn *in = &x->g.p->ins[i];
    const Img *im = &x->imgs[i];
    int64_t W = x->RB * im->C * 4;
    int64_t numel = tl_tensor_numel(x->g.c->in[in->input]);

    in->nmap = 2 * x->L1 * W;
    in->map = tl_xmalloc((size_t)in->nmap * sizeof *in->map);
    for (int64_t pe = 0; pe < x->L1; pe++)
        for (int64_t w = 0; w < W; w++) {
            int64_t rp2, col, e = -1;
            pipe_pos(x, 0, pe, w / 4, im->C, im->splat ? 1 : im->D, &rp2,
                     &col);
            col += im->splat ? 0 : w % 4;
            if (col < im->D) {
                e = pipe_img_index(x, i, 0, col);
                if (e < 0 || e >= numel)
                    return fail(x, "reads outside an input");
            }
            in->map[2 * inv_lw(x, pe, w, W)] = e;
            in->map[2 * inv_lw(x, pe, w, W) + 1] = e;
        }
    return 0;
}

int pipe_build_maps(Pipe *x)
{
    AccCgProgram *p = x->g.p;
    AccCg *g = &x->g;

    if (x->lay)
        return pipe_lay_maps(x);
    for (int i = 0; i < p->nins; i++) {
        AccCgIn *in = &p->ins[i];
        const Img *im = &x->imgs[i];
        int64_t W = x->RB * im->C * 4;
        int64_t numel = tl_tensor_numel(g->c->in[in->input]);
        if (im->inv) {
            if (build_inv_map(x, i))
                return -1;
            continue;
        }
        in->nmap = 2 * x->NB * x->P * W;
        in->map = tl_xmalloc((size_t)in->nmap * sizeof *in->map);
        for (int64_t b = 0; b < x->NB; b++)
            for (int64_t pe = 0; pe < x->P; pe++)
                for (int64_t w = 0; w < W; w++)
                    for (int lane = 0; lane < 2; lane++) {
                        int64_t rp2, col, row, e = -1, at;
                        pipe_pos(x, b, pe, w / 4, im->C,
                                 im->splat ? 1 : im->D, &rp2, &col);
                        col += im->splat ? 0 : w % 4;
                        row = rp2 * 2 + lane;
                        if (row < x->N && col < im->D) {
                            at = pipe_img_index(x, i, row, col);
                            if (at < 0 || at >= numel)
                                return fail(x, "reads outside an input");
                            e = at;
                        }
                        in->map[2 * pipe_img_lw(x, b, pe, w, W,
                                                pipe_piece(x, W, 1)) +
                                lane] = e;
                    }
    }
    return 0;
}

int pipe_layout_output(Pipe *x)
{
    AccCgProgram *p = x->g.p;
    const Tensor *t = &x->ts[x->st[x->nst - 1].tensor];
    int64_t W = x->RB * t->C * 4;

    if (p->nelems != x->N * t->D)
        return fail(x, "a store that does not cover its output");
    if (x->lay)
        return 0;       /* pipe_lay_maps */
    p->oimage = 2 * x->NB * x->P * W;
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++) {
        int64_t row = e / t->D, col = e % t->D, g2 = row / 2;
        int64_t ng = x->P / x->K, Dl = pipe_local_D(x, t->D);
        int64_t b = g2 / (ng * x->RB), rem = g2 % (ng * x->RB);
        int64_t grp = rem / x->RB, rp = rem % x->RB, pe = grp;
        int64_t lc = t->D == 1 ? 0 : col % Dl;
        int64_t w = (rp * t->C + lc / 4) * 4 + lc % 4;
        if (x->K > 1)
            pe = grp / x->G * x->L1 + (t->D == 1 ? 0 : col / Dl) * x->G +
                 grp % x->G;
        p->omap[e] = 2 * pipe_img_lw(x, b, pe, w, W, pipe_piece(x, W, 0)) +
                     row % 2;
    }
    return 0;
}
