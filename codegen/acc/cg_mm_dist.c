/*
 * cg_mm_dist.c - what the matmul route takes of an accel schedule
 * (lang/SPEC.md 10.6): a `distribute` of the output's rows, columns or
 * reduction over levels of the tree fixes that part of the route's
 * split (cg_mm.c), which cg_mm_plan.c otherwise chooses:
 *
 *   C.distribute(i, [L2B])          the rows in blocks over the top
 *                                   BM level's nodes (R parts);
 *   C.distribute(j, [L2B, L1B])     the columns' j tiles over the nodes
 *                                   of consecutive BM levels from the
 *                                   top (from the one below it when
 *                                   the rows take the top): the last
 *                                   is the level h of the k split;
 *   C.distribute(k, [MAB])          the reduction over the groups of
 *                                   consecutive levels down to the
 *                                   groups' (MAB), right below h.
 *
 * What no distribute names, the plan chooses, among the shapes that
 * keep what is named (and without the columns over blocks of the top
 * nodes, Cq, which no distribute says).  Inside a group the route deals
 * k over the PEs, the columns over PEs and sub-words and the rows over
 * the sub-cycles itself, so `PE`, `S` and `W` are refused, as is
 * anything else the route has no shape for, at the directive, naming
 * what it takes.
 *
 * A `layout` of C is followed after the route: its reductions gather
 * C into a DRAM image of their own order, whose long words hold column
 * pairs (C[i, j0 + 2p], C[i, j0 + 2p + 1]), so the program moves it
 * row-major through the top BM of node 0 in runs of long words (DMA
 * loads, then stores, a BM's worth at a time), loads it into the
 * layout and stores it from there, row-major, where the runner reads
 * it (layout_emit.c).  That is the program's one conversion, which
 * `time` counts against the program without it.
 *
 * A `layout` of A or B is followed before the route: the route reads
 * them from DRAM images of its own (cg_mm_img.c, in the order its
 * loads consume them), so the program takes the operand row-major,
 * loads it into the layout and stores it from there row-major (the
 * operand in its layout, then out of it: layout_emit.c), and moves its
 * long words into the image (move_pairs), before the route's first
 * load; the route's program is unchanged after it.  Where an image
 * long word is not a long word of the operand row-major (f32 B read
 * B[k, j] and f16 A read A[i, k] are; f32 A keeps one element a long
 * word, f16 B's run down its columns), the elements move inside long
 * words on the PEs instead (cg_mm_lane.c), into a scratch image that
 * the long-word moves then put in place.  TODO(issue 6): the route's
 * loads straight from the layout; C's runs
 * longer than a j tile's row (4 long words on test: the DMA issue
 * interval bounds the move), by gathering the pairs' blocks in the
 * BMs.
 */
#include "codegen/acc/cg_mm_int.h"
#include "codegen/acc/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The axis of f that d deals, or -1 (a reduced variable). */
static int axis_of(const TlFunc *f, const TlSchedDir *d)
{
    const TlVar *v = d->nargs > 0 ? d->args[0].var : NULL;

    for (int a = 0; v && a < f->rank; a++)
        if (f->axes && f->axes[a].var &&
            (f->axes[a].var == v || !strcmp(f->axes[a].var->name, v->name)))
            return a;
    return -1;
}

/* d's levels as tree level indices, in its order; S and W give -1.
 * Their count. */
static int levels_of(const AccMachine *m, const TlSchedDir *d, int *lv)
{
    int n = 0;

    for (int j = 0; j < d->args[1].nitems && n < ACC_MAX_LEVELS + 2; j++)
        lv[n++] = d->args[1].items[j].name
                      ? acc_level_index(m, d->args[1].items[j].name) : -1;
    return n;
}

/* Whether lv[0..n-1] are consecutive levels, outermost first. */
static int consecutive(const int *lv, int n)
{
    for (int q = 0; q < n; q++)
        if (lv[q] < 0 || (q && lv[q] != lv[q - 1] + 1))
            return 0;
    return n > 0;
}

/* The BM index (1 = lowest) of tree level li, or 0 when it has no BM. */
static int bm_index(const AccMachine *m, int li)
{
    for (int j = 1; j <= acc_bm_levels(m); j++)
        if (acc_bm_level(m, j) == li)
            return j;
    return 0;
}

static int refuse(AccCgMm *x, const TlSchedDir *d, const char *why)
{
    TlSession *s = x->g.s;

    diag_error(s, d->loc, DIAG_ACC_CG_UNSUPPORTED,
               arena_printf(&s->arena, "%s of stage '%s' on the matmul "
                            "route, which %s,", acc_dist_what(s, d),
                            x->g.c->k->outputs[0]->name, why));
    return -1;
}

/* The names of tree levels a..b, for messages. */
static const char *names(AccCgMm *x, int a, int b)
{
    TlBuf t;
    const char *res;

    buf_init(&t);
    for (int i = a; i <= b; i++)
        buf_printf(&t, "%s%s", i > a ? ", " : "", x->g.m->level[i].name);
    res = arena_strdup(&x->g.s->arena, t.s);
    buf_free(&t);
    return res;
}

/* Rows, columns and reduction directives (NULL: none) into the
 * plan's constraints.  0, or -1 after reporting. */
static int constrain(AccCgMm *x, const TlSchedDir *dr, const TlSchedDir *dc,
                     const TlSchedDir *dk)
{
    const AccMachine *m = x->g.m;
    int nbm = acc_bm_levels(m), top = acc_bm_level(m, nbm);
    int group = m->nlevels - 2;
    int lv[ACC_MAX_LEVELS + 2], n, hc = 0, hk = 0;

    if (dr) {
        n = levels_of(m, dr, lv);
        if (n != 1 || lv[0] != top || acc_level_nodes(m, top) < 2)
            return refuse(x, dr, arena_printf(&x->g.s->arena,
                          "deals the rows only over the top level (%s), "
                          "a block of rows a node", m->level[top].name));
        x->fix_parts = 1;
    }
    if (dc) {
        int first = dr ? top + 1 : top;
        n = levels_of(m, dc, lv);
        if (!consecutive(lv, n) || lv[0] != first ||
            !bm_index(m, lv[n - 1]))
            return refuse(x, dc, arena_printf(&x->g.s->arena,
                          "deals the columns over consecutive levels from "
                          "%s down to at most %s%s", m->level[first].name,
                          m->level[acc_bm_level(m, 1)].name,
                          dr ? " (the rows take the top level)"
                             : ", or from the one below when the rows take "
                               "the top level"));
        hc = bm_index(m, lv[n - 1]);
        if (!dr)
            x->fix_parts = 0;
    }
    if (dk) {
        n = levels_of(m, dk, lv);
        if (consecutive(lv, n) && lv[n - 1] == group)
            hk = lv[0] == 0 ? nbm + 1 : bm_index(m, lv[0] - 1);
        if (!hk || (hc && hk != hc) || (dr && hk > nbm))
            return refuse(x, dk, arena_printf(&x->g.s->arena,
                          "deals the reduction over consecutive levels "
                          "down to %s, right below the columns' levels%s "
                          "(%s here)", m->level[group].name,
                          dr ? " and the rows' top one" : "",
                          hc ? names(x, acc_bm_level(m, hc) + 1, group)
                          : dr ? names(x, top + 1, group)
                               : "one of them"));
    }
    x->fix_h = hc ? hc : hk;
    /* No distribute says the columns over blocks of the top nodes. */
    if (dr || dc || dk)
        x->nocols = 1;
    return 0;
}

/* A `layout` of an operand (sl): into olay.  0, or -1 after
 * reporting (other tensors, an operand read twice, a layout the
 * conversion cannot emit). */
static int operand_layout(AccCgMm *x, const TlSchedInfo *si,
                          const TlSchedLayout *sl)
{
    TlSession *s = x->g.s;
    const AccCgCall *c = x->g.c;
    const AccCgIn *in = x->g.p->ins;
    const TlFunc *f = sl->func;
    int i = -1;
    TlBuf why;

    for (int o = 0; o < 2; o++)
        if (f && in[o].input >= 0 && c->k->inputs[in[o].input] == f)
            i = i < 0 ? o : 2;
    if (i < 0 || i == 2) {
        diag_error(s, sl->stmt->name_loc, DIAG_ACC_CG_UNSUPPORTED,
                   arena_printf(&s->arena, "a `layout` of '%s' on the "
                                "matmul route, which takes a `layout` of "
                                "its output, '%s', and of each operand "
                                "it reads once,", f ? f->name : "?",
                                c->k->outputs[0]->name));
        return -1;
    }
    if (acc_cg_user_layout(&x->g, si, f, c->in[in[i].input]->rank,
                           c->in[in[i].input]->shape, &x->olay[i],
                           &x->olay_at[i]))
        return -1;
    buf_init(&why);
    if (x->olay[i] && !acc_layout_emit_ok(x->olay[i], &why)) {
        diag_error(s, x->olay_at[i], DIAG_ACC_CG_UNSUPPORTED,
                   arena_printf(&s->arena, "this `layout` of '%s' on the "
                                "matmul route (%s),", f->name, why.s));
        buf_free(&why);
        return -1;
    }
    buf_free(&why);
    x->nolay += x->olay[i] != NULL;
    return 0;
}

int acc_cg_mm_schedule(AccCgMm *x)
{
    TlSession *s = x->g.s;
    const TlKernelInfo *k = x->g.c->k;
    const TlSchedInfo *si = acc_sched_accel(k);
    const TlFunc *of = k->outputs[0];
    const TlSchedDir *dr = NULL, *dc = NULL, *dk = NULL;
    const TlVar *kv = of->nreds && of->reds[0]->nrvars
                          ? of->reds[0]->rvars[0] : NULL;
    AccDist dist;
    int errors = 0, lerrors = 0;

    x->fix_parts = -1;
    x->fix_h = 0;
    x->sched_at = NULL;
    if (!si)
        return 0;
    /* Level names, repetition and the sizes' multiples, as every route
     * checks them. */
    if (acc_dist_stage(s, x->g.m, si, of, x->g.c->out_shape, &dist) < 0)
        errors++;
    for (int c = 0; !errors && c < si->nchains; c++) {
        const TlSchedChain *ch = si->chains[c];
        for (int i = 0; !errors && i < ch->ndirs; i++) {
            const TlSchedDir *d = &ch->dirs[i];
            int a;
            if (d->kind != SD_DISTRIBUTE || d->nargs < 2)
                continue;
            const TlSchedDir **slot;
            a = axis_of(of, d);
            if (!x->sched_at)
                x->sched_at = d;
            /* The output's loops are its axes, in order; k is the
             * reduction's loops flattened, the first outermost. */
            slot = a < 0 ? (d->args[0].var == kv ||
                            (kv && !strcmp(d->args[0].var->name, kv->name))
                                ? &dk : NULL)
                   : a == x->il[0] ? &dr : a == x->jl[0] ? &dc : NULL;
            if (!slot)
                errors += refuse(x, d, arena_printf(&s->arena,
                                 "deals only the outermost loop of the "
                                 "rows ('%s'), of the columns ('%s') and "
                                 "of the reduction ('%s')",
                                 of->axes[x->il[0]].var->name,
                                 of->axes[x->jl[0]].var->name,
                                 kv ? kv->name : "?")) < 0;
            else if (*slot)
                errors += refuse(x, d, "takes one `distribute` of a loop, "
                                 "listing all its levels") < 0;
            else
                *slot = d;
        }
    }
    if (!errors && constrain(x, dr, dc, dk))
        errors++;
    for (int j = 0; j < si->nlayouts; j++) {
        const TlSchedLayout *sl = si->layouts[j];
        if (sl->func == of)
            continue;
        if (operand_layout(x, si, sl))
            lerrors++;
    }
    if (!errors && !lerrors) {
        const AccLayout *L;
        TlBuf why;
        if (acc_cg_user_layout(&x->g, si, of, x->g.c->out_rank,
                               x->g.c->out_shape, &L, &x->clay_at))
            return -1;
        buf_init(&why);
        if (L && !acc_layout_emit_ok(L, &why)) {
            diag_error(s, x->clay_at, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&s->arena, "this `layout` of '%s' on "
                                    "the matmul route (%s),", of->name,
                                    why.s));
            lerrors++;
        }
        buf_free(&why);
        x->clay = L;
    }
    if (errors || lerrors) {
        diag_note(s, x->g.loc, "in this call of '%s'", k->name);
        x->g.failed = 1;
        return -1;
    }
    return 0;
}

/* The name of the top BM level's space in assembly. */
static const char *top_bm(const AccMachine *m)
{
    int k = acc_bm_levels(m);
    static char buf[16];

    if (k <= 2)
        return k == 1 ? "lb" : "lc";
    snprintf(buf, sizeof buf, "b%d", k);
    return buf;
}

int acc_cg_mm_layout_prep(AccCgMm *x)
{
    AccCgProgram *p = x->g.p;
    int64_t half = (p->nelems + 1) / 2;

    /* The gathered C keeps column pairs in its long words (C's last
     * axis is a column loop, and the layout, which holds row-major
     * neighbours in a long word, makes it even): the conversion moves
     * whole long words to C row-major. */
    for (int64_t e = 0; e < p->nelems; e += 2)
        if (p->omap[e] % 2 ||
            (e + 1 < p->nelems && p->omap[e + 1] != p->omap[e] + 1))
            tl_internal_error(__FILE__, __LINE__, "the matmul route's C "
                              "image splits a column pair");
    x->img_omap = p->omap;
    /* C row-major after its image, then again after that: the layout's
     * store, which the runner reads back. */
    x->rm_at = x->c_at + (p->oimage + 1) / 2;
    x->o_at = x->rm_at + half;
    if (x->o_at + half > x->g.m->dram_words)
        return acc_cg_fail(&x->g, "tensors larger than the machine's DRAM");
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++)
        p->omap[e] = e;
    p->oimage = 2 * half;
    return 0;
}

/* Moves runs[0..n) (source long word, destination long word, length)
 * through the top BM of node 0, where they lie one after another: all
 * loads, then all stores, a DMA op for each stretch whose source (for
 * the loads) or destination (for the stores) continues the last
 * run's, so that a gather into consecutive words stores at once. */
static void move_runs(TlBuf *o, const AccMachine *m, int64_t (*runs)[3],
                      int n)
{
    const char *bm = top_bm(m);

    for (int pass = 0; pass < 2; pass++) {
        int64_t at = 0;
        for (int r = 0; r < n;) {
            int64_t first = at, len = runs[r][2], end = runs[r][pass];
            int q = r + 1;
            at += runs[r][2];
            end += runs[r][2];
            while (q < n && runs[q][pass] == end) {
                len += runs[q][2];
                end += runs[q][2];
                at += runs[q][2];
                q++;
            }
            if (pass == 0)
                buf_printf(o, "dma.ld.t0@0 d[%lld:%lld] -> %s[%lld]\n",
                           (long long)runs[r][0],
                           (long long)(runs[r][0] + len), bm,
                           (long long)first);
            else
                buf_printf(o, "dma.st.t0@0 %s[%lld:%lld] -> d[%lld]\n", bm,
                           (long long)first, (long long)(first + len),
                           (long long)runs[r][1]);
            r = q;
        }
        buf_puts(o, "wait t0\n");
    }
}

/* Runs a batch of move_runs takes at most (its text's size). */
enum { MAX_RUNS = 1024 };

/* Moves long word src[w] to dst[w] for w < n, in runs of consecutive
 * long words through the top BM of node 0 (move_runs), as many as it
 * holds at a time. */
static void move_pairs(TlBuf *o, const AccMachine *m, const int64_t *src,
                       const int64_t *dst, int64_t n)
{
    int64_t cap = m->level[acc_bm_level(m, acc_bm_levels(m))].bm_words;
    int64_t (*runs)[3] = tl_xmalloc(MAX_RUNS * sizeof *runs);
    int64_t used = 0;
    int nr = 0;

    for (int64_t w = 0; w < n; w++) {
        if (nr && runs[nr - 1][0] + runs[nr - 1][2] == src[w] &&
            runs[nr - 1][1] + runs[nr - 1][2] == dst[w] && used < cap) {
            runs[nr - 1][2]++;
            used++;
            continue;
        }
        if (nr == MAX_RUNS || used >= cap) {
            move_runs(o, m, runs, nr);
            nr = 0;
            used = 0;
        }
        runs[nr][0] = src[w];
        runs[nr][1] = dst[w];
        runs[nr][2] = 1;
        nr++;
        used++;
    }
    if (nr)
        move_runs(o, m, runs, nr);
    free(runs);
}

/* Whether image long word w of operand i (lanes map[ew w ..]) is a
 * long word of the operand row-major (1; *rm its index), all padding
 * (0), or neither (-1): a lane that moves inside a long word, a
 * padding lane where the row-major long word has an element, or a
 * zero_pad read's value. */
static int image_word(const AccCgMm *x, const int64_t *map, int64_t w,
                      int64_t nelems, int64_t *rm)
{
    int64_t base = -1;

    for (int l = 0; l < x->ew; l++) {
        int64_t e = map[x->ew * w + l];
        if (e == ACC_CG_OUTSIDE)
            return -1;
        if (e >= 0) {
            if (e % x->ew != l || (base >= 0 && e / x->ew != base))
                return -1;
            base = e / x->ew;
        }
    }
    if (base < 0)
        return 0;
    for (int l = 0; l < x->ew; l++)
        if (map[x->ew * w + l] < 0 && base * x->ew + l < nelems)
            return -1;
    *rm = base;
    return 1;
}

int acc_cg_mm_operand_prep(AccCgMm *x)
{
    AccCgProgram *p = x->g.p;
    int64_t end = x->o_at + (p->oimage + 1) / 2;

    for (int i = 0; i < 2; i++) {
        AccCgIn *in = &p->ins[i];
        const TlTensor *t;
        int64_t lw;
        if (!x->olay[i])
            continue;
        t = x->g.c->in[in->input];
        x->lane[i] = 0;
        for (int64_t w = 0; w * x->ew < in->nmap && !x->lane[i]; w++) {
            int64_t rm;
            x->lane[i] = image_word(x, in->map, w, tl_tensor_numel(t),
                                    &rm) < 0;
        }
        /* Unreachable on the shipped machines (each has the BMs the
         * route itself needs); a user's machine may lack them. */
        if (x->lane[i] && !acc_cg_mm_lane_ok(x))
            return acc_cg_fail(&x->g, "a `layout` of a matmul operand "
                                      "whose image moves elements inside "
                                      "long words, on a machine whose BMs "
                                      "hold no chunk of the moves");
        lw = (tl_tensor_numel(t) + x->ew - 1) / x->ew;
        x->in_at[i] = end;
        x->mid_at[i] = end + lw;
        end += 2 * lw;
        x->lmap[i] = in->map;
        x->nlmap[i] = in->nmap;
        if (x->lane[i]) {
            x->lane_at[i] = end;
            end += acc_cg_mm_lane_words(x, i, end);
        }
    }
    if (end > x->g.m->dram_words)
        return acc_cg_fail(&x->g, "tensors larger than the machine's DRAM");
    for (int i = 0; i < 2; i++)
        if (x->olay[i]) {
            AccCgIn *in = &p->ins[i];
            in->map = NULL;
            in->nmap = 0;
            in->direct = 1;
            in->name = x->g.c->k->inputs[in->input]->name;
        }
    return 0;
}

void acc_cg_mm_input_line(AccCgMm *x, int i, TlBuf *o)
{
    const TlTensor *t = x->g.c->in[x->g.p->ins[i].input];

    buf_printf(o, ".input %s %s[", x->g.p->ins[i].name, dt_name(t->dtype));
    for (int d = 0; d < t->rank; d++)
        buf_printf(o, "%s%lld", d ? "," : "", (long long)t->shape[d]);
    buf_printf(o, "] d[%lld]\n", (long long)x->in_at[i]);
}

void acc_cg_mm_operand_conv(AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    TlBuf *text = &x->g.p->text, c;
    char *rest;

    buf_init(&c);
    for (int i = 0; i < 2; i++) {
        int64_t n = x->nlmap[i] / x->ew, nw = 0, at;
        int64_t *src, *dst;
        if (!x->olay[i])
            continue;
        at = i == x->a ? x->a_at : x->b_at;
        src = tl_xmalloc((size_t)(n + 1) * sizeof *src);
        dst = tl_xmalloc((size_t)(n + 1) * sizeof *dst);
        buf_printf(&c, "# '%s' into the schedule's layout, stored from "
                   "it row-major at d[%lld], moved into the route's "
                   "image at d[%lld]%s\n", x->g.p->ins[i].name,
                   (long long)x->mid_at[i], (long long)at,
                   x->lane[i] ? " element by element" : "");
        acc_layout_emit_load(&c, x->olay[i], x->in_at[i]);
        acc_layout_emit_store(&c, x->olay[i], x->mid_at[i]);
        if (x->lane[i]) {
            /* The image built whole in the scratch, padding included,
             * then moved into place. */
            int64_t img = acc_cg_mm_lane_emit(x, i, &c, x->lane_at[i]);
            if (img < 0)
                acc_cg_fail(&x->g, "a padding value that is not finite");
            for (int64_t w = 0; img >= 0 && w < n; w++) {
                src[nw] = img + w;
                dst[nw++] = at + w;
            }
        }
        for (int64_t w = 0; !x->lane[i] && w < n; w++) {
            int64_t rm;
            if (image_word(x, x->lmap[i], w,
                           x->olay[i]->nelems, &rm) == 1) {
                src[nw] = x->mid_at[i] + rm;
                dst[nw++] = at + w;
            }
        }
        move_pairs(&c, m, src, dst, nw);
        free(src);
        free(dst);
    }
    /* The conversion goes before the route's first load. */
    rest = tl_xstrdup(text->s + x->body_at);
    text->len = x->body_at;
    text->s[text->len] = 0;
    buf_puts(text, c.s ? c.s : "");
    buf_puts(text, rest);
    free(rest);
    buf_free(&c);
}

const char *acc_cg_mm_conv_what(AccCgMm *x)
{
    TlBuf b;
    const char *r;
    int n = 0;

    buf_init(&b);
    for (int i = 0; i < 2; i++)
        if (x->olay[i])
            buf_printf(&b, "%s'%s' from its layout through DRAM into the "
                       "route's image of %s", n++ ? "; " : "",
                       x->g.p->ins[i].name, i == x->a ? "A" : "B");
    if (x->clay)
        buf_printf(&b, "%sthe route's '%s' through DRAM into its layout "
                   "and out", n++ ? "; " : "",
                   x->g.c->k->outputs[0]->name);
    r = arena_strdup(&x->g.s->arena, b.s ? b.s : "");
    buf_free(&b);
    return r;
}

void acc_cg_mm_layout_tail(AccCgMm *x)
{
    const AccMachine *m = x->g.m;
    AccCgProgram *p = x->g.p;
    TlBuf *o = &p->text;
    int64_t nw = (p->nelems + 1) / 2;
    int64_t *src = tl_xmalloc((size_t)(nw + 1) * sizeof *src);
    int64_t *dst = tl_xmalloc((size_t)(nw + 1) * sizeof *dst);

    buf_printf(o, "# the gathered C row-major at d[%lld], into the "
               "schedule's layout, stored from it at d[%lld]\n",
               (long long)x->rm_at, (long long)x->o_at);
    for (int64_t w = 0; w < nw; w++) {
        src[w] = x->c_at + x->img_omap[2 * w] / 2;
        dst[w] = x->rm_at + w;
    }
    move_pairs(o, m, src, dst, nw);
    free(src);
    free(dst);
    acc_layout_emit_load(o, x->clay, x->rm_at);
    acc_layout_emit_store(o, x->clay, x->o_at);
}
