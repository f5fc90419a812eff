/*
 * cg_pipe_piece.c - the pipeline route's pieces of columns (cg_pipe.c):
 * whether one block of one row pair a PE loads its input and stores
 * its output in pieces, where the row-invariant images wait in the BMs
 * meanwhile, and their way down between the pieces' folds.
 */
#include "codegen/acc/cg_pipe_int.h"

#include <stdio.h>

/* Places the row-invariant images' loads beside the pieces' two
 * buffers in every BM (ioff), when every one is a single load that
 * fits there; else ninv = 0 and they load as before. */
static void place_inv(Pipe *x)
{
    const AccMachine *m = x->g.m;
    AccCgProgram *p = x->g.p;
    int nbm = acc_bm_levels(m);
    int64_t used[ACC_MAX_LEVELS + 1];

    x->ninv = 0;
    for (int j = 1; j <= nbm; j++)
        used[j] = 2 * acc_cg_scope_pes(m, j) * x->pw_in;
    for (int k = 0; k < 2 * p->nins; k++) {
        int i = k % p->nins;
        const Img *im = &x->imgs[i];
        int64_t W = x->RB * im->C * 4;
        /* The images stage 0 reads first: they go down before its
         * first fold. */
        if (!im->inv || (im->stage == 0) != (k < p->nins))
            continue;
        if (W > x->Wmax) {
            x->ninv = 0;
            return;
        }
        for (int j = 1; j <= nbm; j++) {
            const AccLevel *l = &m->level[acc_bm_level(m, j)];
            if (used[j] + x->L1 * W > l->bm_words) {
                x->ninv = 0;
                return;
            }
            x->ioff[x->ninv][j] = used[j];
            used[j] += x->L1 * W;
        }
        x->inv_img[x->ninv++] = i;
    }
}

/* Pieces of columns: one block of one row pair a PE (mn2's 512 x 512,
 * each input one load) would wait for the whole load before its first
 * fold and compute its last stage before the first store.  When one
 * image (besides row-invariant ones) feeds stage 0, a reduction, it
 * comes in pieces of pc chunks, stage 0 folding each as it lands; when
 * the last stage is elementwise, its pieces go up the tree and to DRAM
 * while it computes the next. */
void pipe_choose_pieces(Pipe *x)
{
    AccCgProgram *p = x->g.p;
    const Tensor *t = &x->ts[x->st[x->nst - 1].tensor];
    const AccMachine *m = x->g.m;
    int n = 0;

    if (x->lay || x->RB != 1 || x->NB != 1)
        return;
    for (int i = 0; i < p->nins; i++)
        if (!x->imgs[i].inv)
            n++, x->pimg = i;
    /* Where the pieces' DMAs, one after another, model faster than
     * one load (small tensors: one DMA's latency is the whole). */
    if (n == 1 && x->st[0].acc && x->imgs[x->pimg].stage == 0 &&
        acc_cg_pieces_pay(m, 4 * x->imgs[x->pimg].C, x->P))
        x->pw_in = acc_cg_piece_words(4 * x->imgs[x->pimg].C);
    if (x->pw_in)
        place_inv(x);
    if (!x->st[x->nst - 1].acc && acc_cg_pieces_pay(m, 4 * t->C, x->P))
        x->pw_out = acc_cg_piece_words(4 * t->C);
}

/* The next row-invariant image's way down the tree (its DMA went out
 * before the pieces'). */
void pipe_inv_down(Pipe *x, TlBuf *o)
{
    const Img *im = &x->imgs[x->inv_img[x->inv_next]];
    char sp[8];

    snprintf(sp, sizeof sp, "lm%d", im->bank);
    if (x->inv_next == 0)
        buf_puts(o, "wait t4\n");
    acc_cg_emit_load_tree(o, x->g.m, x->RB * im->C * 4, sp, im->at, 1,
                          x->ioff[x->inv_next]);
    x->inv_next++;
}
