/*
 * cg_red.c - reductions to TAM assembly: `S[i..] = sum|max|min(r..)
 * f(inputs)` with f a pointwise f32 expression, over every level of the
 * tree.
 *
 * The plain loop IR of such a kernel is a nest of output loops around
 * { alloc acc; acc[0] = init; for r.. { acc[0] = acc[0] op f };
 * out[..] = acc[0] }.  Work is cut in blocks of 8G outputs (G PEs per
 * matrix group): inside a block, output slot (c*G + p)*2 + l is
 * sub-cycle c, PE p of the group, lane l of the long word, which is
 * exactly what `red*.L1` keeps apart (docs/accel-asm.md: PE positions
 * side by side, groups combined).  The reduction index is spread over
 * the NM groups of the whole machine and over T steps inside each PE:
 * r = t * NM + group.  Each PE folds its T values locally in GRF, then
 * one `red*` per BM level combines the groups, and `dma.red*` combines
 * the top nodes into DRAM: the reduction goes up the tree once per
 * block.  Lanes past the reduction's end are padding: a pad flag image
 * marks them and `sel` puts the operation's identity there.
 *
 * A chunk's DMAs go out a chunk ahead (two sets of the operands in the
 * top BMs, when that halves the chunks at most: test row sums 512 x 512
 * keep one set, 64 x 64 and every mn2 case take two) or, with one set,
 * right after the chunk before has moved down the tree, so DRAM's
 * latency and traffic hide under the tree transfers and compute of the
 * chunk before; the block's result goes up beside the sets.
 * TODO(issue 6): a reduction shorter than the machine's groups (mn2:
 * 1024 groups, row sums of 64 columns) still loads an image padded to
 * every group and a pad flag image as large (65536 lw each for a
 * 4096-element input): blocks side by side on groups of the machine
 * would take neither; and the tree transfers of chunk q + 1 under the
 * compute of chunk q (two sets in the lower BMs and LMs too).
 *
 * The runner lays every operand out in DRAM in the order the loads
 * consume it (AccCgIn.map); sums are reassociated (tree order), so they
 * match the interpreter within rounding, max and min bit for bit.
 * Product reductions are refused: the tree combines with add, max and
 * min only.  A kernel whose accel schedule has a `distribute` or a
 * `layout` goes to the layout route (cg_red_lay.c) once matched.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Red {
    AccCg g;
    int nout, nred;         /* loops: outputs then the reduction's */
    int64_t O, R;           /* outputs, reduction length */
    int64_t G, P, NM, S, NB, Tc, NQ, W;
    int nsets;              /* chunks in flight: their sets in the top BMs */
    const char *opname;     /* add, max, min */
    const char *ident;
    int mask;               /* a pad flag image follows the operands */
} Red;

static int for_bounds(AccCg *g, const LStmt *st, int64_t *ext)
{
    AccCgLin l;

    if (st->loop != LP_SERIAL && st->loop != LP_PARALLEL)
        return acc_cg_fail(g, "vectorized or unrolled loops");
    if (g->nloops == TL_MAX_RANK)
        return acc_cg_fail(g, "loop nests this deep");
    if (acc_cg_lin(g, st->a, &l) || l.k != 0 || acc_cg_lin(g, st->b, &l))
        return acc_cg_fail(g, "loops with computed bounds");
    for (int i = 0; i < g->nloops; i++)
        if (l.coef[i])
            return acc_cg_fail(g, "loops with computed bounds");
    *ext = l.k;
    g->loops[g->nloops++] = st->var;
    return 0;
}

static int is_acc(const LExpr *e, const LVar *acc)
{
    return e->kind == LE_LOAD && e->var == acc;
}

/* Input element read for output o, reduction index r, by operand in. */
static int64_t element(const Red *x, const AccCgIn *in, int64_t o,
                       int64_t r)
{
    const AccCgProgram *p = x->g.p;
    int64_t at = in->k;

    for (int l = x->nout - 1; l >= 0; l--) {
        at += in->coef[l] * (o % p->ext[l]);
        o /= p->ext[l];
    }
    for (int l = x->nout + x->nred - 1; l >= x->nout; l--) {
        at += in->coef[l] * (r % p->ext[l]);
        r /= p->ext[l];
    }
    return at;
}

/* Fills the DRAM image of every operand (and the pad flags). */
static int build_maps(Red *x)
{
    AccCgProgram *p = x->g.p;
    int64_t chunk = x->P * x->W, n = 2 * x->NB * x->NQ * chunk;
    int nimg = p->nins;

    for (int i = 0; i < nimg; i++) {
        AccCgIn *in = &p->ins[i];
        int64_t numel = in->input >= 0
                            ? tl_tensor_numel(x->g.c->in[in->input]) : 0;
        in->nmap = n;
        in->map = tl_xmalloc((size_t)n * sizeof *in->map);
        for (int64_t bq = 0; bq < x->NB * x->NQ; bq++)
            for (int64_t pe = 0; pe < x->P; pe++)
                for (int64_t w = 0; w < x->W; w++)
                    for (int l = 0; l < 2; l++) {
                        int64_t t = (bq % x->NQ) * x->Tc + w / 4;
                        int64_t c = w % 4, grp = pe / x->G;
                        int64_t o = bq / x->NQ * x->S +
                                    (c * x->G + pe % x->G) * 2 + l;
                        int64_t r = t * x->NM + grp, e = -1;
                        int64_t at = 2 * (bq * chunk +
                                          acc_cg_img_pos(x->g.m, pe, w,
                                                         x->W)) + l;
                        if (o < x->O && r < x->R && in->input >= 0) {
                            e = element(x, in, o, r);
                            if (e < 0 || e >= numel)
                                return acc_cg_fail(&x->g,
                                                   "reads outside an input");
                        }
                        in->map[at] = in->input >= 0 ? e
                                      : r < x->R ? 0 : -1;
                    }
    }
    return 0;
}

/* Where operand i of chunk cq lies in the top BMs: chunk cq uses set
 * cq % nsets, operand after operand. */
static int64_t set_at(const Red *x, int64_t cq, int i)
{
    const AccMachine *m = x->g.m;
    int64_t share = acc_cg_scope_pes(m, acc_bm_levels(m)) * x->W;

    return ((cq % x->nsets) * x->g.p->nins + i) * share;
}

/* Chunk cq's DMAs (every operand), under tag 2 + its set. */
static void chunk_dma(Red *x, int64_t cq)
{
    const AccMachine *m = x->g.m;
    AccCgProgram *p = x->g.p;
    int64_t chunk = x->P * x->W, off[ACC_MAX_LEVELS + 1] = {0};
    int nbm = acc_bm_levels(m);

    for (int i = 0; i < p->nins; i++) {
        off[nbm] = set_at(x, cq, i);
        acc_cg_emit_load_dma(&p->text, m, (i * x->NB * x->NQ + cq) * chunk,
                             x->W, nbm + 1, 2 + (int)(cq % x->nsets), off);
    }
}

/* The route's model of the program emit writes, in cycles: per chunk
 * its operands' transfers down the tree (acc_cg_emit_load_tree), the
 * next chunk's DMAs and its compute (steps: the text of one step t),
 * stalled while that chunk's DMA has not landed (two sets: it went
 * out a chunk earlier; one: at the start of this chunk's compute, or
 * after the block's result when the chunk starts a block); per block
 * the `red*` up the tree; the first DMA before and the last result's
 * after. */
static double red_estimate(const Red *x, int64_t tsteps)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m), nimg = x->g.p->nins;
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    int64_t ch = NT < m->dram_channels ? NT : m->dram_channels;
    double tree = (double)acc_cg_tree_steps(m, x->W, nbm + 1) + x->W / 4.0 +
                  (double)acc_cg_wait(m, 1, ACC_XK_DIST,
                                      (double)(acc_cg_scope_pes(m, 1) * 4),
                                      4);
    double lat = (double)m->dma_latency / m->step_cycles;
    double xfer = (double)nimg * x->P * x->W / ch / m->dram_bw /
                  m->step_cycles;
    double comp = (double)x->Tc * tsteps, issue = nimg, red = 2, total;

    red += (double)acc_cg_wait(m, 1, ACC_XK_RED, (double)(4 * x->G), 4);
    for (int j = 2; j <= nbm; j++)
        red += 1 + (double)acc_cg_wait(m, j, ACC_XK_RED, (double)(4 * x->G),
                                       (double)(4 * x->G));
    total = lat + xfer;
    for (int64_t blk = 0; blk < x->NB; blk++)
        for (int64_t q = 0; q < x->NQ; q++) {
            double body = 1 + nimg * tree + issue + comp, stall;
            /* The result of the block of the chunk before this one, or
             * of the one before that. */
            double r1 = q == 0 ? red : 0;
            double r2 = x->NQ == 1 || q == 1 ? red : 0;
            if (blk + q == 0)
                stall = 0;
            else if (x->nsets == 2 && blk * x->NQ + q == 1)
                stall = xfer - body - r1;
            else if (x->nsets == 2)
                stall = lat + xfer - (issue + comp + r2) - body - r1;
            else if (q == 0)
                stall = lat + xfer;
            else
                stall = lat + xfer - issue - comp;
            total += body + fmax(stall, 0);
        }
    total += (double)x->NB * red + lat;
    /* The channels move every chunk one after the other. */
    total = fmax(total, 2 * lat + (double)(x->NB * x->NQ) * xfer);
    return total * m->step_cycles;
}

static void emit(Red *x, const LExpr *f)
{
    AccCg *g = &x->g;
    const AccMachine *m = g->m;
    AccCgProgram *p = g->p;
    TlBuf *o = &p->text;
    int nbm = acc_bm_levels(m), nimg = p->nins;
    int64_t chunk = x->P * x->W, acc = 2 * m->grf_words - 16;
    int64_t id = acc + 8, out = nimg * x->NB * x->NQ * chunk, tsteps = 1;
    /* Two sets: the block's result lies after them; one: at 0. */
    int64_t rbase = (x->nsets - 1) * 2 * nimg *
                    acc_cg_scope_pes(m, nbm) * x->W;
    char b[16], c[16];

    buf_printf(o, "# accel: kernel %s, %s-reduction of %lld outputs over "
               "%lld elements: %lld blocks of %lld, %lld chunks of %lld "
               "steps per PE\n", g->c->k->name, x->opname,
               (long long)x->O, (long long)x->R, (long long)x->NB,
               (long long)x->S, (long long)x->NQ, (long long)x->Tc);
    for (int i = 0; i < nimg; i++)
        buf_printf(o, ".input %s f32[%lld] d[%lld]\n", p->ins[i].name,
                   (long long)p->ins[i].nmap,
                   (long long)(i * x->NB * x->NQ * chunk));
    buf_printf(o, ".output %s f32[%lld] d[%lld]\n",
               g->c->k->outputs[0]->name, (long long)p->oimage,
               (long long)out);
    buf_printf(o, "mov.f32 #%s -> r[%lld+]\n", x->ident, (long long)id);
    for (int64_t c = 0; c < x->nsets && c < x->NB * x->NQ; c++)
        chunk_dma(x, c);
    for (int64_t blk = 0; blk < x->NB; blk++) {
        for (int64_t q = 0; q < x->NQ; q++) {
            int64_t cq = blk * x->NQ + q, off[ACC_MAX_LEVELS + 1] = {0};
            /* Chunk cq's DMAs were issued nsets chunks ago; its top
             * set is free for chunk cq + nsets once its transfers have
             * read it. */
            buf_printf(o, "wait t%d\n", 2 + (int)(cq % x->nsets));
            for (int i = 0; i < nimg; i++) {
                off[nbm] = set_at(x, cq, i);
                acc_cg_emit_load_tree(o, m, x->W, "lm0", i * x->Tc * 8,
                                      nbm + 1, off);
            }
            /* With one set, the block's result lands where the next
             * chunk's DMA would: that one goes out after the result's. */
            if (cq + x->nsets < x->NB * x->NQ &&
                (x->nsets == 2 || q + 1 < x->NQ))
                chunk_dma(x, cq + x->nsets);
            for (int64_t t = 0; t < x->Tc; t++) {
                TlBuf e;
                if (x->mask)
                    buf_printf(o, "cmpeq.f32 lm0[%lld+], #1 -> m1\n",
                               (long long)((nimg - 1) * x->Tc * 8 + 8 * t));
                buf_init(&e);
                g->t = &e;
                g->op_at = 8 * t;
                acc_cg_eval(g, f, 0);
                buf_puts(o, e.s);
                tsteps = acc_cg_text_steps(e.s) + 1 + 2 * x->mask;
                buf_free(&e);
                if (x->mask)
                    buf_printf(o, "sel.f32 m1, r[%lld+], r[0+] -> r[0+]\n",
                               (long long)id);
                if (q == 0 && t == 0)
                    buf_printf(o, "mov.f32 r[0+] -> r[%lld+]\n",
                               (long long)acc);
                else
                    buf_printf(o, "%s.f32 r[%lld+], r[0+] -> r[%lld+]\n",
                               x->opname, (long long)acc, (long long)acc);
            }
        }
        /* The block's result goes to the top BMs beside the sets, where
         * no DMA of a later chunk lands. */
        buf_printf(o, "red%s.L1.f32 r[%lld+] -> lb[%lld]\n", x->opname,
                   (long long)acc, (long long)(nbm == 1 ? rbase : 0));
        acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_RED, (double)(4 * x->G), 4));
        for (int j = 2; j <= nbm; j++) {
            acc_cg_bm_name(b, sizeof b, j - 1);
            acc_cg_bm_name(c, sizeof c, j);
            buf_printf(o, "red%s.L%d.f32 %s[0:%lld] -> %s[%lld]\n",
                       x->opname, j, b, (long long)(4 * x->G), c,
                       (long long)(j == nbm ? rbase : 0));
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_RED, (double)(4 * x->G),
                                      (double)(4 * x->G)));
        }
        acc_cg_bm_name(b, sizeof b, nbm);
        buf_printf(o, "dma.red%s.f32.t1 %s[%lld:%lld] -> d[%lld]\n",
                   x->opname, b, (long long)rbase,
                   (long long)(rbase + 4 * x->G),
                   (long long)(out + blk * 4 * x->G));
        if (x->nsets == 1 && blk + 1 < x->NB)
            chunk_dma(x, (blk + 1) * x->NQ);
    }
    buf_puts(o, "wait t1\n");
    p->est_cycles = red_estimate(x, tsteps);
}

/* The operation of acc[0] = acc[0] op f, and f. */
static int update(Red *x, const LStmt *st, const LVar *accv,
                  const LExpr **f)
{
    const LExpr *e = st->a;

    if (st->kind != LS_STORE || st->var != accv || e->kind != LE_BINARY)
        return 1;
    if (is_acc(e->a, accv))
        *f = e->b;
    else if (is_acc(e->b, accv))
        *f = e->a;
    else
        return 1;
    switch (e->op) {
    case LO_ADD: x->opname = "add"; x->ident = "-0"; return 0;
    case LO_MAX: x->opname = "max"; x->ident = "-inf"; return 0;
    case LO_MIN: x->opname = "min"; x->ident = "inf"; return 0;
    case LO_MUL:
        acc_cg_fail(&x->g, "product reductions (the tree reduces with "
                           "add, max and min only)");
        return -1;
    default:
        return 1;
    }
}

void acc_cg_init(AccCg *g, TlSession *s, const AccMachine *m,
                 const AccCgCall *c, AccCgProgram *p, TlLoc loc)
{
    memset(p, 0, sizeof *p);
    buf_init(&p->text);
    p->ins = arena_alloc(&s->arena, ACC_CG_MAX_OPERANDS * sizeof *p->ins);
    memset(g, 0, sizeof *g);
    g->s = s;
    g->m = m;
    g->c = c;
    g->loc = loc;
    g->p = p;
    g->mapped = 1;
    g->max_temps = (int)((m->grf_words - 8) / 4);
    if (g->max_temps > ACC_CG_MAX_TEMPS)
        g->max_temps = ACC_CG_MAX_TEMPS;
    p->nelems = 1;
    for (int i = 0; i < c->out_rank; i++)
        p->nelems *= c->out_shape[i];
}

int acc_cg_match_reduce(AccCg *g, int *nout, const LVar **accv,
                        const LStmt **upd)
{
    const AccCgCall *c = g->c;
    AccCgProgram *p = g->p;
    const LStmt *st = c->ck->fn->body, *inner;
    int64_t run = 1;
    int par;

    for (; st->kind == LS_FOR; st = st->body)
        if (for_bounds(g, st, &p->ext[g->nloops]))
            return -1;
    *nout = g->nloops;
    if (st->kind != LS_BLOCK || st->nitems != 4 ||
        st->items[0]->kind != LS_ALLOC || st->items[1]->kind != LS_STORE ||
        st->items[1]->var != st->items[0]->var ||
        st->items[2]->kind != LS_FOR || st->items[3]->kind != LS_STORE ||
        !is_acc(st->items[3]->a, st->items[0]->var))
        return 1;
    *accv = st->items[0]->var;
    for (inner = st->items[2]; inner->kind == LS_FOR; inner = inner->body)
        if (for_bounds(g, inner, &p->ext[g->nloops]))
            return -1;
    *upd = inner;
    st = st->items[3];
    par = acc_cg_param_of(g, st->var);
    if (c->k->outputs[0]->dtype != DT_F32)
        return acc_cg_fail(g, "outputs of a type other than f32");
    if (par < 0 || c->ck->params[par].kind != CGP_BUF ||
        c->ck->params[par].f != c->k->outputs[0] || st->nargs != 1 ||
        acc_cg_lin(g, st->args[0], &g->store) || g->store.k != 0)
        return acc_cg_fail(g, "this store");
    for (int i = *nout - 1; i >= 0; i--) {
        if (p->ext[i] > 1 && g->store.coef[i] != run)
            return acc_cg_fail(g, "a loop order other than the output's");
        run *= p->ext[i];
    }
    for (int i = *nout; i < g->nloops; i++)
        if (g->store.coef[i])
            return acc_cg_fail(g, "this store");
    if (run != p->nelems)
        return acc_cg_fail(g, "a store that does not cover its output");
    if (acc_bm_levels(g->m) < 1)
        return acc_cg_fail(g, "a machine without BM levels");
    return 0;
}

int acc_cg_reduce(TlSession *s, const AccMachine *m, const AccCgCall *c,
                  AccCgProgram *p, TlLoc loc)
{
    const LStmt *upd;
    const LExpr *f = NULL;
    const LVar *accv;
    Red x;
    AccCg *g = &x.g;
    int64_t TT, Wmax;
    int rc, nout;

    memset(&x, 0, sizeof x);
    acc_cg_init(g, s, m, c, p, loc);
    if ((rc = acc_cg_match_reduce(g, &nout, &accv, &upd)) != 0)
        return rc;
    x.nout = nout;
    x.nred = g->nloops - x.nout;
    if ((rc = update(&x, upd, accv, &f)) != 0)
        return rc;
    x.R = 1;
    for (int i = x.nout; i < g->nloops; i++)
        x.R *= p->ext[i];
    x.O = p->nelems;
    x.G = m->level[m->nlevels - 1].fanout;
    x.P = acc_machine_pes(m);
    x.NM = x.P / x.G;
    x.S = 8 * x.G;
    x.NB = (x.O + x.S - 1) / x.S;
    if (x.NB == 0)
        x.NB = 1;
    TT = (x.R + x.NM - 1) / x.NM;
    if (TT == 0)
        TT = 1;
    /* A first evaluation counts the operands. */
    {
        TlBuf e;
        buf_init(&e);
        g->t = &e;
        rc = acc_cg_eval(g, f, 0);
        buf_free(&e);
        if (rc)
            return -1;
    }
    /* A schedule's distribute or layout: the layout route computes
     * where it says (cg_red_lay.c). */
    if (acc_cg_lay_wanted(c->k))
        return acc_cg_lay_route(g, x.nout, f, x.opname);
    Wmax = acc_cg_max_load(m, acc_bm_levels(m) + 1);
    for (int pass = 0; pass < 2; pass++) {
        int nimg = p->nins + x.mask;
        int nbm = acc_bm_levels(m);
        int64_t top = m->level[acc_bm_level(m, nbm)].bm_words - 4 * x.G;
        int64_t span = acc_cg_scope_pes(m, nbm), one, two;
        /* One chunk's operands in the top BMs (the old chunk size), or
         * two sets beside the block's result, so that chunk cq + 1
         * loads while chunk cq is computed.  Two sets unless they cut
         * the chunks to less than half; a chunk that divides the
         * reduction keeps a pad flag image out. */
        one = TT * 4 > Wmax ? Wmax / 4 : TT;
        if (one * 4 * nimg > m->lm_words)
            one = m->lm_words / (4 * nimg);
        /* Every operand's share of a chunk has its own place in the
         * top BMs (their DMAs go out together). */
        if (one * 4 * span * nimg > top + 4 * x.G)
            one = (top + 4 * x.G) / (span * nimg) / 4;
        two = one;
        if (two * 4 * span * nimg * 2 > top)
            two = top / (span * nimg * 2) / 4;
        for (int64_t d = two; d > 0 && d * 2 >= two; d--)
            if (TT % d == 0) {
                two = d;
                break;
            }
        x.nsets = two >= 1 && two * 2 >= one ? 2 : 1;
        x.Tc = x.nsets == 2 ? two : one;
        x.NQ = (TT + x.Tc - 1) / x.Tc;
        x.mask = x.NQ * x.Tc * x.NM != x.R;
    }
    x.W = x.Tc * 4;
    if (x.mask) {
        AccCgIn *in = &p->ins[p->nins++];
        memset(in, 0, sizeof *in);
        in->name = "pad_flags";
        in->input = -1;
        in->pad = 1;
    }
    if ((int64_t)p->nins * x.NB * x.NQ * x.P * x.W + x.NB * 4 * x.G >
        m->dram_words)
        return acc_cg_fail(g, "tensors larger than the machine's DRAM");
    if (build_maps(&x))
        return -1;
    p->oimage = x.NB * x.S;
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++)
        p->omap[e] = e;
    g->op_step = x.Tc * 8;
    emit(&x, f);
    return g->failed ? -1 : 0;
}
