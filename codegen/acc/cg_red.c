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
 * The runner lays every operand out in DRAM in the order the loads
 * consume it (AccCgIn.map); sums are reassociated (tree order), so they
 * match the interpreter within rounding, max and min bit for bit.
 * Product reductions are refused: the tree combines with add, max and
 * min only.  A kernel whose accel schedule has a `distribute` or a
 * `layout` goes to the layout route (cg_red_lay.c) once matched.
 */
#include "codegen/acc/cg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Red {
    AccCg g;
    int nout, nred;         /* loops: outputs then the reduction's */
    int64_t O, R;           /* outputs, reduction length */
    int64_t G, P, NM, S, NB, Tc, NQ, W;
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

static void emit(Red *x, const LExpr *f)
{
    AccCg *g = &x->g;
    const AccMachine *m = g->m;
    AccCgProgram *p = g->p;
    TlBuf *o = &p->text;
    int nbm = acc_bm_levels(m), nimg = p->nins;
    int64_t chunk = x->P * x->W, acc = 2 * m->grf_words - 16;
    int64_t id = acc + 8, out = nimg * x->NB * x->NQ * chunk;
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
    for (int64_t blk = 0; blk < x->NB; blk++) {
        for (int64_t q = 0; q < x->NQ; q++) {
            for (int i = 0; i < nimg; i++)
                acc_cg_emit_load(o, m, (i * x->NB * x->NQ + blk * x->NQ +
                                        q) * chunk, x->W, "lm0",
                                 i * x->Tc * 8, nbm + 1);
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
        buf_printf(o, "red%s.L1.f32 r[%lld+] -> lb[0]\n", x->opname,
                   (long long)acc);
        acc_cg_nop(o, acc_cg_wait(m, 1, ACC_XK_RED, (double)(4 * x->G), 4));
        for (int j = 2; j <= nbm; j++) {
            acc_cg_bm_name(b, sizeof b, j - 1);
            acc_cg_bm_name(c, sizeof c, j);
            buf_printf(o, "red%s.L%d.f32 %s[0:%lld] -> %s[0]\n", x->opname,
                       j, b, (long long)(4 * x->G), c);
            acc_cg_nop(o, acc_cg_wait(m, j, ACC_XK_RED, (double)(4 * x->G),
                                      (double)(4 * x->G)));
        }
        acc_cg_bm_name(b, sizeof b, nbm);
        buf_printf(o, "dma.red%s.f32.t1 %s[0:%lld] -> d[%lld]\n", x->opname,
                   b, (long long)(4 * x->G),
                   (long long)(out + blk * 4 * x->G));
    }
    buf_puts(o, "wait t1\n");
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
        x.Tc = TT;
        if (x.Tc * 4 > Wmax)
            x.Tc = Wmax / 4;
        if (x.Tc * 4 * nimg > m->lm_words)
            x.Tc = m->lm_words / (4 * nimg);
        if (x.Tc < 1)
            return acc_cg_fail(g, "reductions with this many operands on "
                                  "this machine");
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
