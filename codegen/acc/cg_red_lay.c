/*
 * cg_red_lay.c - reductions (and elementwise stages that need a
 * conversion) computed in the layout the accel schedule gives: `S[o..]
 * = sum|max|min(r..) f(inputs)` where the kernel's `distribute`s or
 * `layout`s say where the iterations live (lang/SPEC.md 10.6).
 *
 * The iteration domain (the output loops, then the reduction's) gets a
 * layout Lc: the stage's distributes (dist.c's meaning, reduction
 * variables included: `Y.distribute(d, [PE])` spreads the reduced axis
 * over the PEs), else the `layout` of an input read at the domain's
 * own index (its axes possibly permuted: a column sum reads X[n, d]
 * for the domain (d, n)), else the output's `layout` with the reduced
 * axes in each PE's memory.  Lc keeps the source's level factors as
 * they are and puts every other factor in the address, one element a
 * long word (lane 0), the reduced axes' addresses major: address
 * j * Opad + o holds reduction position j of output position o (Opad:
 * the output positions of a PE rounded up to 4), so a group of 4
 * addresses holds 4 outputs of one j and the fold is a chain of
 * whole-group ops into a GRF accumulator per group of outputs; or,
 * when a PE's outputs are not a multiple of 4, 4 reduction positions
 * in the sub-cycles, folded across them at the end (strides()).
 *
 * Then, in the program:
 *  1. every operand's image is loaded in Lc (the runner lays it out,
 *     AccCgIn.map); an input with a `layout` of its own is loaded in
 *     that layout and converted into Lc (layout_emit.c), unless the two
 *     put every element in the same place;
 *  2. each PE evaluates f over its addresses and folds its reduction
 *     positions (the result Lr: the output axes' factors of Lc, in lm1);
 *  3. when the reduced axes are spread over levels: if those are
 *     exactly the levels the tree's `red*` combine from the MABs up
 *     (MAB; MAB and L1B; ...; the top nodes by `dma.red`), each taken
 *     whole, the partial results are combined up the tree and sent
 *     back down to every PE (tree_mode); otherwise they (a tensor of
 *     the output's shape plus one axis Q, the reduced axes' level
 *     positions: layout Lp, the same words as Lr) are converted to Lq,
 *     where Q is an address axis of the PEs at position 0 of those
 *     levels, and folded there once more;
 *  4. an output with a `layout` other than Lr is converted into it;
 *     the result is stored from its layout and read back through it.
 *
 * Every tensor must fit the PEs' memories at once; sums are
 * reassociated (each PE's order, then the levels'), max and min are
 * exact.  The conversions go through the tree or DRAM as
 * acc_layout_emit_convert decides (its scratch area follows the
 * output in DRAM).
 *
 * The domain and the layouts are cg_lay_dom.c's, the tree's all-reduce
 * cg_lay_tree.c's; this file lays out the DRAM images and writes the
 * program.
 *
 * TODO(issue 6): combine partial results over other sets of levels in
 * the tree too (the PEs of a MAB by msl/msr rotations; a level between
 * others that hold outputs by masked transfers): a conversion gathers
 * them today; layouts with two elements a long word (a `W` factor: no
 * conversion re-pairs elements yet); inputs with a `layout` read
 * broadcast; a plan of the route for the planner's line in `time`
 * (AccCgProgram.plan is not set: `time` gives the program's
 * conversions, measured against AccCgProgram.bare, without an
 * estimate).
 */
#include "codegen/acc/cg_lay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Long-word position in a DRAM image of W long words per PE (loaded
 * in pieces of Wmax) of word w of PE pe. */
static int64_t img_lw(const RL *x, int64_t pe, int64_t w, int64_t W)
{
    int64_t q = w / x->Wmax, Wq = W - q * x->Wmax;

    if (Wq > x->Wmax)
        Wq = x->Wmax;
    return q * x->P * x->Wmax + acc_cg_img_pos(x->g->m, pe, w % x->Wmax, Wq);
}

static void load(RL *x, TlBuf *o, int64_t at, int64_t W, int bank,
                 int64_t dst)
{
    int nbm = acc_bm_levels(x->g->m);
    char sp[8];

    snprintf(sp, sizeof sp, "lm%d", bank);
    for (int64_t q = 0; q * x->Wmax < W; q++) {
        int64_t Wq = W - q * x->Wmax < x->Wmax ? W - q * x->Wmax : x->Wmax;
        acc_cg_emit_load(o, x->g->m, at + q * x->P * x->Wmax, Wq, sp,
                         2 * (dst + q * x->Wmax), nbm + 1);
    }
}

static void convert(RL *x, TlBuf *o, const AccLayout *from,
                    const AccLayout *to)
{
    TlBuf why;

    if (x->noconv)
        return;
    buf_init(&why);
    if (acc_layout_emit_convert(o, from, to, x->scratch, NULL, &why) < 0)
        lay_fail(x, arena_printf(&x->g->s->arena, "this conversion (%s)",
                             why.s));
    buf_free(&why);
    x->nconv++;
}

static void need_scratch(RL *x, const AccLayout *src)
{
    int64_t n = acc_layout_emit_scratch(src);
    if (n > x->scratch_words)
        x->scratch_words = n;
}

static int64_t round4(int64_t n)
{
    return (n + 3) / 4 * 4;
}

/* acc accumulates `op` over the group of 4 long words just put in
 * r[0+] (mov for the first). */
static void fold(RL *x, TlBuf *o, int first, int64_t acc)
{
    if (first)
        buf_printf(o, "mov.f32 r[0+] -> r[%lld+]\n", (long long)acc);
    else
        buf_printf(o, "%s.f32 r[%lld+], r[0+] -> r[%lld+]\n", x->opname,
                   (long long)acc, (long long)acc);
}

/* The input element operand ci reads at domain element de. */
static int64_t read_at(const AccCgProgram *p, int nd, const AccCgIn *ci,
                       int64_t de)
{
    int64_t at = ci->k;

    for (int l = nd - 1; l >= 0; l--) {
        at += ci->coef[l] * (de % p->ext[l]);
        de /= p->ext[l];
    }
    return at;
}

/* Loads, conversions, the compute and the store (the layouts set). */
static void emit(RL *x, TlBuf *o, const AccLayout *const *U,
                 const AccLayout *const *Lc, const AccLayout *Lr,
                 const AccLayout *Lp, const AccLayout *Lq,
                 const AccLayout *Lo, const int64_t *in_dram,
                 int64_t out_dram)
{
    AccCg *g = x->g;
    const AccMachine *m = g->m;
    AccCgProgram *p = g->p;
    const AccLayout *Lfin = Lo ? Lo : Lr;
    int nimg = p->nins, lat = m->lat_grf > 1 ? m->lat_grf - 1 : 0;
    int64_t acc = 2 * m->grf_words - 16, W;
    char sp[8];

    buf_printf(o, "# accel: kernel %s in the schedule's layout: %lld "
               "outputs (%lld a PE, %lld long words a step) by %lld "
               "reduction positions a PE (%lld steps%s), %lld positions "
               "over the levels\n", g->c->k->name, (long long)p->nelems,
               (long long)x->Orem, (long long)x->Opad, (long long)x->Rrem,
               (long long)x->steps, x->lane ? ", 4 in the lanes" : "",
               (long long)x->Q);
    for (int i = 0; i < nimg; i++)
        buf_printf(o, ".input %s f32[%lld] d[%lld]\n", p->ins[i].name,
                   (long long)p->ins[i].nmap, (long long)in_dram[i]);
    buf_printf(o, ".output %s f32[%lld] d[%lld]\n",
               g->c->k->outputs[0]->name, (long long)p->oimage,
               (long long)out_dram);
    for (int i = 0; i < nimg; i++) {
        if (U[i])
            load(x, o, in_dram[i], round4(U[i]->addr_span), 1, U[i]->base);
        else
            load(x, o, in_dram[i], x->span, 0, i * x->span);
    }
    for (int i = 0; i < nimg; i++)
        if (U[i])
            convert(x, o, U[i], Lc[i]);
    g->op_step = 2 * x->span;
    g->t = o;
    for (int64_t q = 0; q < x->Opad / 4 && !g->failed; q++) {
        for (int64_t j = 0; j < x->steps; j++) {
            g->op_at = 2 * (j * x->Opad + 4 * q);
            if (acc_cg_eval(g, x->f, 0))
                return;
            acc_cg_nop(o, lat);
            fold(x, o, j == 0, acc);
        }
        acc_cg_nop(o, lat);
        if (x->lane) {
            /* Sub-cycles c and c + 2, then c and c ^ 1 (cg_pipe.c):
             * every sub-cycle ends with all four combined. */
            int64_t f1 = acc + 8;
            buf_printf(o, "%s.f32 r[%lld+], r[%lld,%lld,%lld,%lld] -> "
                       "r[%lld+]\n", x->opname, (long long)acc,
                       (long long)(acc + 4), (long long)(acc + 6),
                       (long long)acc, (long long)(acc + 2), (long long)f1);
            acc_cg_nop(o, lat);
            buf_printf(o, "%s.f32 r[%lld+], r[%lld,%lld,%lld,%lld] -> "
                       "r[%lld+]\n", x->opname, (long long)f1,
                       (long long)(f1 + 2), (long long)f1,
                       (long long)(f1 + 6), (long long)(f1 + 4),
                       (long long)acc);
            acc_cg_nop(o, lat);
        }
        buf_printf(o, "mov.f32 r[%lld+] -> lm1[%lld+]\n", (long long)acc,
                   (long long)(2 * (Lr->base + 4 * q)));
    }
    acc_cg_nop(o, m->lat_lm);
    if (x->tree)
        lay_tree_reduce(x, o, Lr->base);
    if (Lp) {
        convert(x, o, Lp, Lq);
        for (int64_t q = 0; q < x->Opad / 4; q++) {
            for (int64_t j = 0; j < x->Q; j++) {
                buf_printf(o, "mov.f32 lm0[%lld+] -> r[0+]\n",
                           (long long)(2 * (Lq->base + j * x->Opad + 4 * q)));
                acc_cg_nop(o, lat);
                fold(x, o, j == 0, acc);
            }
            acc_cg_nop(o, lat);
            buf_printf(o, "mov.f32 r[%lld+] -> lm1[%lld+]\n",
                       (long long)acc, (long long)(2 * (Lr->base + 4 * q)));
        }
        acc_cg_nop(o, m->lat_lm);
    }
    if (Lo)
        convert(x, o, Lr, Lo);
    W = round4(Lfin->addr_span);
    snprintf(sp, sizeof sp, "lm%d", Lfin->space == ACC_LSP_LM1);
    for (int64_t q = 0; q * x->Wmax < W; q++) {
        int64_t Wq = W - q * x->Wmax < x->Wmax ? W - q * x->Wmax : x->Wmax;
        acc_cg_emit_store(o, m, sp, 2 * (Lfin->base + q * x->Wmax), Wq,
                          out_dram + q * x->P * x->Wmax);
    }
    buf_puts(o, "wait t1\n");
}

int acc_cg_lay_route(AccCg *g, int nout, const LExpr *f, const char *opname)
{
    TlSession *s = g->s;
    const AccMachine *m = g->m;
    const AccCgCall *c = g->c;
    AccCgProgram *p = g->p;
    int nimg = p->nins;
    RL *x = tl_xcalloc(1, sizeof *x);
    const AccLayout *Lc[ACC_CG_MAX_OPERANDS], *U[ACC_CG_MAX_OPERANDS];
    const AccLayout *LD, *Lr, *Lp = NULL, *Lq = NULL, *Lo = NULL, *Lfin;
    int64_t lm0, lm1, in_dram[ACC_CG_MAX_OPERANDS], out_dram, W;
    const char *oname = c->k->outputs[0]->name;
    TlBuf b;
    int rc = -1;

    x->g = g;
    x->si = acc_sched_accel(c->k);
    x->f = f;
    x->opname = opname ? opname : "add";
    x->nout = nout;
    x->nd = g->nloops;
    x->P = acc_machine_pes(m);
    x->Wmax = acc_cg_max_load(m, acc_bm_levels(m) + 1);
    /* The accumulator lives above the temporaries. */
    if (g->max_temps > (int)((m->grf_words - 8) / 4))
        g->max_temps = (int)((m->grf_words - 8) / 4);
    memset(Lc, 0, sizeof Lc);
    memset(U, 0, sizeof U);
    for (int d = 0; d < x->nd; d++)
        x->names[d] = lay_loop_name(s, g->loops[d]->name);
    if (x->nd > ACC_LAYOUT_MAX_RANK || c->out_rank >= ACC_LAYOUT_MAX_RANK) {
        lay_fail(x, "a `distribute` or `layout` of a loop nest this deep");
        goto out;
    }
    if (x->Wmax < 4) {
        lay_fail(x, "a machine whose BMs hold less than 4 long words per PE");
        goto out;
    }
    if (lay_domain(x))
        goto out;
    lay_strides(x);
    lay_tree_mode(x);
    if (nimg * x->span > m->lm_words ||
        (!x->tree && round4(x->Q * x->Opad) > m->lm_words)) {
        lay_fail(x, arena_printf(&s->arena, "a `distribute` or `layout` that "
                             "leaves a PE %lld iterations of the stage "
                             "(%lld long words a PE for each of its %d "
                             "operands, one element a long word; %lld "
                             "fit), which the layout route keeps in the "
                             "PEs' memories at once,",
                             (long long)(x->Orem * x->Rrem),
                             (long long)x->span, nimg,
                             (long long)m->lm_words));
        goto out;
    }
    /* lm0: the operands in Lc, then (once they are used) Lq and the
     * output's layout; lm1: the result, then the inputs in layouts of
     * their own. */
    buf_init(&b);
    buf_putc(&b, '(');
    for (int d = 0; d < x->nd; d++) {
        if (d)
            buf_puts(&b, ", ");
        lay_put_axis(&b, x, &x->dom[d], 0);
    }
    buf_putc(&b, ')');
    LD = lay_make(x, b.s, x->nd, p->ext, 0, 0, "the iterations");
    buf_free(&b);
    if (!LD || !(Lr = lay_result(x, 0, 1, 0)))
        goto out;
    lm1 = round4(x->Opad);
    for (int i = 0; i < nimg; i++) {
        const AccLayout *L = x->Li[i], *L0;
        if (!L)
            continue;
        if (!(Lc[i] = lay_lc_of_input(x, i, i * x->span)) ||
            !(L0 = lay_lc_of_input(x, i, 0)))
            goto out;
        if (acc_layout_same_places(L, L0))
            continue;
        if (!(U[i] = lay_replace(x, L, 1, lm1,
                             c->k->inputs[p->ins[i].input]->name)))
            goto out;
        lm1 += round4(U[i]->addr_span);
        need_scratch(x, U[i]);
    }
    lm0 = nimg * x->span;
    if (x->tree > acc_bm_levels(m) &&
        x->tree_nb * 4 * m->level[m->nlevels - 1].fanout > x->scratch_words)
        x->scratch_words = x->tree_nb * 4 * m->level[m->nlevels - 1].fanout;
    if (x->Q > 1 && !x->tree) {
        if (!(Lp = lay_result(x, 1, 1, 0)) || !(Lq = lay_result(x, 2, 0, 0)))
            goto out;
        need_scratch(x, Lp);
        if (round4(x->Q * x->Opad) > lm0)
            lm0 = round4(x->Q * x->Opad);
    }
    if (x->Lo) {
        const AccLayout *R0 = lay_result(x, 0, 0, 0);
        int64_t at = Lq ? round4(x->Q * x->Opad) : 0;
        if (!R0)
            goto out;
        if (!acc_layout_same_places(x->Lo, R0)) {
            if (!(Lo = lay_replace(x, x->Lo, 0, at, oname)))
                goto out;
            if (at + round4(Lo->addr_span) > lm0)
                lm0 = at + round4(Lo->addr_span);
            need_scratch(x, Lr);
        }
    }
    if (lm0 > m->lm_words || lm1 > m->lm_words) {
        lay_fail(x, arena_printf(&s->arena, "a `distribute` or `layout` whose "
                             "tensors do not fit the PEs' memories at "
                             "once (%lld and %lld long words of lm0 and "
                             "lm1 a PE, %lld each)", (long long)lm0,
                             (long long)lm1, (long long)m->lm_words));
        goto out;
    }
    /* The DRAM images: an input in a layout of its own in that layout,
     * every other operand at the places of Lc. */
    for (int i = 0; i < nimg; i++) {
        AccCgIn *ci = &p->ins[i];
        int64_t numel = tl_tensor_numel(c->in[ci->input]);
        W = U[i] ? round4(U[i]->addr_span) : x->span;
        in_dram[i] = x->dram;
        x->dram += x->P * W;
        free(ci->map);
        ci->nmap = 2 * x->P * W;
        ci->map = tl_xmalloc((size_t)ci->nmap * sizeof *ci->map);
        for (int64_t e = 0; e < ci->nmap; e++)
            ci->map[e] = -1;
        for (int64_t pe = 0; pe < x->P; pe++)
            for (int64_t w = 0; w < W; w++) {
                int64_t e;
                if (U[i]) {
                    e = acc_layout_at(U[i], pe, U[i]->base + w, NULL);
                } else {
                    e = acc_layout_at(LD, pe, w, NULL);
                    if (e >= 0)
                        e = read_at(p, x->nd, ci, e);
                    if (e >= numel || e < -1) {
                        lay_fail(x, "reads outside an input");
                        goto out;
                    }
                }
                ci->map[2 * img_lw(x, pe, w, W)] = e;
            }
    }
    Lfin = Lo ? Lo : Lr;
    W = round4(Lfin->addr_span);
    out_dram = x->dram;
    p->oimage = 2 * x->P * W;
    free(p->omap);
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++) {
        AccLoc loc;
        acc_layout_locate(Lfin, e, 0, &loc);
        p->omap[e] = 2 * img_lw(x, acc_loc_node(m, &loc, m->nlevels - 1),
                                loc.addr - Lfin->base, W) +
                     loc.word;
    }
    x->scratch = out_dram + x->P * W;
    if (x->scratch + x->scratch_words > m->dram_words) {
        lay_fail(x, "tensors larger than the machine's DRAM");
        goto out;
    }
    buf_free(&p->text);
    buf_init(&p->text);
    emit(x, &p->text, U, Lc, Lr, Lp, Lq, Lo, in_dram, out_dram);
    if (x->nconv && !g->failed) {
        /* The same program without its conversions, for the runner to
         * tell their traffic from the rest (`time`). */
        p->nconv = x->nconv;
        x->noconv = 1;
        buf_init(&p->bare);
        emit(x, &p->bare, U, Lc, Lr, Lp, Lq, Lo, in_dram, out_dram);
    }
    rc = g->failed ? -1 : 0;
out:
    free(x);
    return rc;
}

int acc_cg_lay_wanted(const TlKernelInfo *k)
{
    const TlSchedInfo *si = acc_sched_accel(k);

    if (si && si->nlayouts)
        return 1;
    for (int c = 0; si && c < si->nchains; c++)
        for (int i = 0; i < si->chains[c]->ndirs; i++)
            if (si->chains[c]->dirs[i].kind == SD_DISTRIBUTE)
                return 1;
    return 0;
}
