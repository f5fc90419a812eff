/*
 * plan_cost.c - what the layout planner chooses from, and what each
 * choice costs: the distributions of every stage, the layouts they
 * need (the candidates of each tensor) and a stage's compute time under
 * a distribution, in estimated cycles (what moving a tensor costs,
 * conversions, loads and stores: plan_move.c).
 *
 * Layouts are written as canonical text and checked by the layout
 * module, so every candidate is a layout a user could write; they are
 * built valid (sizes divide, addresses fit), and checked quietly all
 * the same.
 *
 * The rates (ACCELERATOR.md 5.1): a PE's vector op covers 4 long words
 * per step, a stage taking the steps the vector routes emit for each
 * chunk of 4 long words (plan_graph.c); a sum of products runs on the
 * matrix unit at its peak shared by the MAB's PEs; partial results of
 * a reduction split over a level are combined once in the BM above it
 * (`red`), or by rotations in a MAB; a stencil's halo comes through
 * the BM above the lowest level splitting its axis.  Stages that use
 * few PEs pay for it in iterations per PE.
 */
#include "codegen/acc/plan_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layouts larger than this (elements times copies) are not considered:
 * their conversion plans would take too long to cost. */
#define PL_MAX_COPY_ELEMS ((int64_t)1 << 24)

static int epl_of(TlDType dt)
{
    int sz = dt_size(dt);
    return sz > 0 && sz <= 8 ? 8 / sz : 1;
}

/* ====================================================================
 * Candidate layouts
 * ==================================================================== */

static const AccLayout *check_quietly(AccPlan *p, const PlTensor *t,
                                      const char *text)
{
    TlSession *s = p->s;
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int nerr = s->nerrors, supp = s->suppressed;
    AccLayoutReq r;
    const AccLayout *L;

    memset(&r, 0, sizeof r);
    r.m = p->m;
    r.dtype = t->dt;
    r.rank = t->rank;
    memcpy(r.shape, t->shape, sizeof r.shape);
    r.tensor = t->name;
    if (null)
        s->diag_out = null;
    L = acc_layout_from_text(s, "<plan>", text, &r);
    s->diag_out = saved;
    if (null)
        fclose(null);
    s->nerrors = nerr;
    s->suppressed = supp;
    return L;
}

int pl_add_layout(AccPlan *p, PlTensor *t, const char *text,
                  const char *from)
{
    const AccLayout *L;

    for (int i = 0; i < t->ncand; i++)
        if (!strcmp(t->cand[i].text, text))
            return i;
    if (t->ncand == PL_MAX_CANDS || !(L = check_quietly(p, t, text)) ||
        L->nelems * L->ncopies > PL_MAX_COPY_ELEMS)
        return -1;
    t->cand[t->ncand].L = L;
    t->cand[t->ncand].text = arena_strdup(&p->s->arena, text);
    t->cand[t->ncand].from = from;
    return t->ncand++;
}

/* The text of the layout of t that puts level l on axis ax[l] (-1:
 * none), copies over the levels with rep[l]; NULL when it cannot be
 * (does not divide, does not fit). */
static char *layout_text(AccPlan *p, const PlTensor *t, const int *ax,
                         const int *rep)
{
    const AccMachine *m = p->m;
    int epl = epl_of(t->dt), nrep = 0;
    int64_t span = 1;
    TlBuf b;
    char *res;

    buf_init(&b);
    buf_putc(&b, '(');
    for (int a = 0; a < t->rank; a++) {
        int64_t rem = t->shape[a];
        int n = 0;
        buf_puts(&b, a ? ", (" : "(");
        for (int l = 0; l < m->nlevels; l++) {
            if (ax[l] != a)
                continue;
            if (rem % m->level[l].fanout) {
                buf_free(&b);
                return NULL;
            }
            rem /= m->level[l].fanout;
            buf_printf(&b, "%s%d_%s", n++ ? ", " : "", m->level[l].fanout,
                       m->level[l].name);
        }
        if (a == t->rank - 1 && epl > 1 && rem % epl == 0) {
            rem /= epl;
            if (rem > 1)
                buf_printf(&b, "%s%lld", n++ ? ", " : "", (long long)rem);
            buf_printf(&b, "%s%d_W", n++ ? ", " : "", epl);
        } else if (rem > 1 || !n) {
            buf_printf(&b, "%s%lld", n++ ? ", " : "", (long long)rem);
        }
        span *= rem;
        buf_putc(&b, ')');
    }
    buf_putc(&b, ')');
    for (int l = 0; l < m->nlevels; l++)
        if (rep[l])
            buf_printf(&b, "%s%s", nrep++ ? ", " : "; B@[", m->level[l].name);
    if (nrep)
        buf_putc(&b, ']');
    if (span > m->lm_words) {
        buf_free(&b);
        return NULL;
    }
    res = arena_strdup(&p->s->arena, b.s);
    buf_free(&b);
    return res;
}

/* Whether L puts each level whole on axis ax[l] (-1: none) and copies
 * over the levels with rep[l]: then a stage that needs that can use
 * L as it is (the user's layout, whatever its addresses). */
static int same_levels(const AccPlan *p, const AccLayout *L, const int *ax,
                       const int *rep)
{
    for (int l = 0; l < p->m->nlevels; l++) {
        int on = -1, n = 0;
        for (int i = 0; i < L->nf; i++)
            if (L->f[i].kind == ACC_F_LEVEL && L->f[i].level == l) {
                on = L->f[i].axis;
                n++;
                if (L->f[i].n != p->m->level[l].fanout)
                    return 0;
            }
        if (n > 1 || on != ax[l] || !!(L->bcast & (1u << l)) != !!rep[l])
            return 0;
    }
    return 1;
}

/* The layout tensor t (read by op o as rd, or o's output when rd is
 * NULL) needs under distribution d: candidate index, -1 if none. */
static int needed(AccPlan *p, const PlOp *o, const PlRead *rd,
                  const PlDist *d, const char *from)
{
    const AccMachine *m = p->m;
    PlTensor *t = &p->t[rd ? rd->t : o->out];
    int ax[ACC_MAX_LEVELS] = {0}, rep[ACC_MAX_LEVELS] = {0};
    const int *map = rd ? rd->var : o->out_var;
    char *text;

    for (int l = 0; l < m->nlevels; l++) {
        int v = d->var[l];
        ax[l] = -1;
        rep[l] = 0;
        if (v < 0)
            continue;
        for (int a = 0; a < t->rank && ax[l] < 0; a++)
            if (map[a] == v)
                ax[l] = a;
        /* An input is copied over the levels of the variables it does
         * not depend on; an output's partial results are reduced into
         * position 0 of such a level. */
        if (ax[l] < 0 && rd)
            rep[l] = 1;
    }
    if (t->user && same_levels(p, t->cand[0].L, ax, rep))
        return 0;
    text = layout_text(p, t, ax, rep);
    if (!text && rd) {
        /* An axis a block of the variable does not divide (a stencil's
         * input): every node of those levels gets it whole. */
        for (int l = 0; l < m->nlevels; l++)
            if (ax[l] >= 0 && t->shape[ax[l]] != o->ext[d->var[l]]) {
                ax[l] = -1;
                rep[l] = 1;
            }
        text = layout_text(p, t, ax, rep);
    }
    return text ? pl_add_layout(p, t, text, from) : -1;
}

/* ====================================================================
 * Compute cost of a distribution
 * ==================================================================== */

/* The nearest level above l with a BM, or -1 (the root). */
static int bm_above(const AccMachine *m, int l)
{
    for (int b = l - 1; b >= 0; b--)
        if (m->level[b].bm_words > 0)
            return b;
    return -1;
}

static double through(const AccMachine *m, int l, int64_t words,
                      AccXferKind k)
{
    int b = bm_above(m, l);
    const AccLevel *lv;
    double r;

    if (words <= 0)
        return 0;
    if (l > 0 && m->level[l - 1].bm_words == 0 && b == l - 2 &&
        l == m->nlevels - 1 && k == ACC_XK_RED) {
        /* Among the PEs of a MAB: rotate and combine, log2 fanout. */
        double steps = ceil(log2((double)m->level[l].fanout));
        return (double)words * steps;
    }
    if (b < 0)
        return (double)words / m->dram_bw + m->dma_latency;
    lv = &m->level[b];
    r = fmin(lv->bw_bm[k], lv->bw_child[k]);
    return (double)words / (r > 0 ? r : 1) +
           (double)lv->lat_steps * m->step_cycles;
}

static void cost(AccPlan *p, const PlOp *o, PlDist *d)
{
    const AccMachine *m = p->m;
    const PlTensor *out = &p->t[o->out];
    int epl = epl_of(out->dt);
    double per[PL_MAX_VARS], used = 1, points = 1, outpts = 1, outdiv = 1;

    for (int v = 0; v < o->nvars; v++) {
        per[v] = (double)o->ext[v];
        points *= (double)o->ext[v];
        if (v < o->nindex)
            outpts *= (double)o->ext[v];
    }
    for (int l = 0; l < m->nlevels; l++)
        if (d->var[l] >= 0) {
            per[d->var[l]] /= m->level[l].fanout;
            used *= m->level[l].fanout;
            if (d->var[l] < o->nindex)
                outdiv *= m->level[l].fanout;
        }
    double local = points / used;
    double peak = acc_peak_flops(m, out->dt) / (double)acc_machine_pes(m);
    if (o->matmul && peak > 0)
        d->compute = 2 * local / peak;
    else
        d->compute = ceil(local / (4.0 * epl)) * o->steps *
                     m->step_cycles;
    /* Partial results reduced once per level a reduction variable is
     * split over. */
    d->reduce = 0;
    int64_t ow = (int64_t)ceil(outpts / outdiv / epl);
    for (int l = 0; l < m->nlevels; l++)
        if (d->var[l] >= o->nindex)
            d->reduce += through(m, l, ow, ACC_XK_RED);
    /* Halos: neighbours' rows through the BM above the lowest level
     * splitting the axis, there and back. */
    d->halo = 0;
    for (int r = 0; r < o->nreads; r++) {
        const PlRead *rd = &o->reads[r];
        const PlTensor *t = &p->t[rd->t];
        for (int a = 0; a < t->rank; a++) {
            int low = -1;
            double rows = 1;
            if (rd->var[a] < 0 || !rd->halo[a])
                continue;
            for (int l = 0; l < m->nlevels; l++)
                if (d->var[l] == rd->var[a])
                    low = l;
            if (low < 0)
                continue;
            for (int b = 0; b < t->rank; b++)
                if (b != a)
                    rows *= rd->var[b] >= 0 ? per[rd->var[b]]
                                            : (double)t->shape[b];
            d->halo += 2 * through(m, low, (int64_t)ceil(
                                   rows * (double)rd->halo[a] / epl),
                                   ACC_XK_DIST);
        }
    }
}

/* Whether d splits each variable into blocks that divide it. */
static int divides(const AccPlan *p, const PlOp *o, const PlDist *d)
{
    int64_t f[PL_MAX_VARS];

    for (int v = 0; v < o->nvars; v++)
        f[v] = 1;
    for (int l = 0; l < p->m->nlevels; l++)
        if (d->var[l] >= 0)
            f[d->var[l]] *= p->m->level[l].fanout;
    for (int v = 0; v < o->nvars; v++)
        if (o->ext[v] % f[v])
            return 0;
    return 1;
}

static double total(const PlDist *d)
{
    return d->compute + d->reduce + d->halo;
}

/* Adds d to o's distributions with the layouts it needs; 0 if it was
 * already there or cannot be. */
static int add_dist(AccPlan *p, PlOp *o, const PlDist *d0)
{
    PlDist d = *d0;
    const char *from = o->f->name;

    if (o->ndist == PL_MAX_DISTS || !divides(p, o, &d))
        return 0;
    for (int i = 0; i < o->ndist; i++)
        if (!memcmp(o->dist[i].var, d.var, sizeof d.var))
            return 0;
    cost(p, o, &d);
    for (int r = 0; r < o->nreads; r++)
        if ((d.in_lay[r] = needed(p, o, &o->reads[r], &d, from)) < 0)
            return 0;
    if ((d.out_lay = needed(p, o, NULL, &d, from)) < 0)
        return 0;
    o->dist[o->ndist++] = d;
    return 1;
}

/* ====================================================================
 * Which distributions
 * ==================================================================== */

typedef struct Ranked {
    PlDist d;
    double c;
} Ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const Ranked *a = x, *b = y;
    if (a->c != b->c)
        return a->c < b->c ? -1 : 1;
    return memcmp(a->d.var, b->d.var, sizeof a->d.var);
}

/* Every assignment of levels to variables that divides them; the
 * cheapest few, preferring different split variables among equals. */
static void best_dists(AccPlan *p, PlOp *o, int keep)
{
    const AccMachine *m = p->m;
    int64_t n = 1, cap = 0, nr = 0;
    Ranked *r;

    for (int l = 0; l < m->nlevels; l++)
        n *= o->nvars + 1;
    r = tl_xcalloc((size_t)n, sizeof *r);
    for (int64_t c = 0; c < n; c++) {
        PlDist d;
        int64_t x = c;
        memset(&d, 0, sizeof d);
        for (int l = m->nlevels - 1; l >= 0; l--) {
            d.var[l] = (int)(x % (o->nvars + 1)) - 1;
            x /= o->nvars + 1;
        }
        if (!divides(p, o, &d))
            continue;
        cost(p, o, &d);
        r[nr].d = d;
        r[nr++].c = total(&d);
    }
    qsort(r, (size_t)nr, sizeof *r, cmp_ranked);
    /* Among the cheapest, take distributions whose top level splits
     * different variables first, so the candidates differ. */
    for (int pass = 0; pass < 2; pass++) {
        unsigned seen = 0;
        for (int64_t i = 0; i < nr && cap < keep; i++) {
            unsigned bit = 1u << (r[i].d.var[0] + 1);
            if (r[i].c > r[0].c * 4 + 64)
                break;
            if (pass == 0 && (seen & bit))
                continue;
            seen |= bit;
            cap += add_dist(p, o, &r[i].d);
        }
    }
    free(r);
}

/* The distribution of o that matches layout L of tensor t (read by o
 * as rd, or its output when rd is NULL): each level L splits an axis
 * over goes to the variable of that axis; the other levels go where
 * they cost least. */
static void match(AccPlan *p, PlOp *o, const PlRead *rd, const AccLayout *L)
{
    const AccMachine *m = p->m;
    const int *map = rd ? rd->var : o->out_var;
    PlDist d;

    if (o->forced)
        return;

    memset(&d, 0, sizeof d);
    for (int l = 0; l < m->nlevels; l++)
        d.var[l] = -2;
    for (int i = 0; i < L->nf; i++)
        if (L->f[i].kind == ACC_F_LEVEL && map[L->f[i].axis] >= 0)
            d.var[L->f[i].level] = map[L->f[i].axis];
    for (int l = 0; l < m->nlevels; l++) {
        double best = -1;
        int bv = -1;
        if (d.var[l] != -2)
            continue;
        for (int v = -1; v < o->nvars; v++) {
            PlDist e = d;
            for (int k = 0; k < m->nlevels; k++)
                if (e.var[k] == -2)
                    e.var[k] = -1;
            e.var[l] = v;
            if (!divides(p, o, &e))
                continue;
            cost(p, o, &e);
            if (best < 0 || total(&e) < best) {
                best = total(&e);
                bv = v;
            }
        }
        d.var[l] = bv;
    }
    if (divides(p, o, &d))
        add_dist(p, o, &d);
    /* The same with the levels L does not use left idle. */
    for (int l = 0; l < m->nlevels; l++)
        d.var[l] = -1;
    for (int i = 0; i < L->nf; i++)
        if (L->f[i].kind == ACC_F_LEVEL && map[L->f[i].axis] >= 0)
            d.var[L->f[i].level] = map[L->f[i].axis];
    if (divides(p, o, &d))
        add_dist(p, o, &d);
}

/* The tensor read rd of o refers to, or o's output; each layout of it
 * proposes its matching distribution of o. */
static void propagate(AccPlan *p)
{
    for (int round = 0; round < 1; round++)
        for (int i = 0; i < p->nop; i++) {
            PlOp *o = &p->op[i];
            for (int r = 0; r < o->nreads; r++) {
                PlTensor *t = &p->t[o->reads[r].t];
                for (int c = 0; c < t->ncand; c++)
                    match(p, o, &o->reads[r], t->cand[c].L);
            }
            PlTensor *t = &p->t[o->out];
            for (int c = 0; c < t->ncand; c++)
                match(p, o, NULL, t->cand[c].L);
        }
}

/* What the plan cannot place under p->route: t in a layout its stages
 * need (too large for a PE's memory).  -1. */
static int no_layout(AccPlan *p, const PlTensor *t, TlLoc loc)
{
    diag_error(p->s, loc, DIAG_ACC_CG_UNSUPPORTED,
               arena_printf(&p->s->arena, "'%s' in a layout its stages "
                            "compute in on this machine", t->name));
    return -1;
}

/* The route's layout of tensor t (its text from p->route): candidate
 * index, -2 when the route gives none, -1 when it does not fit. */
static int route_layout(AccPlan *p, PlTensor *t)
{
    const char *text = p->route->text(p->route->ctx, t->f);

    return text ? pl_add_layout(p, t, text, "the route") : -2;
}

/* Stage o's one distribution under p->route: the levels its output's
 * layout splits an axis over take that axis's variable; the
 * tensors the route lays out are in its layouts, the others in what
 * the distribution needs.  -1 after reporting. */
static int route_dist(AccPlan *p, PlOp *o, TlLoc loc)
{
    PlTensor *out = &p->t[o->out];
    const AccLayout *L;
    PlDist d;
    int c;

    memset(&d, 0, sizeof d);
    if ((c = route_layout(p, out)) == -1)
        return no_layout(p, out, loc);
    for (int l = 0; l < p->m->nlevels; l++)
        d.var[l] = -1;
    if (c >= 0) {
        L = out->cand[c].L;
        for (int i = 0; i < L->nf; i++)
            if (L->f[i].kind == ACC_F_LEVEL)
                d.var[L->f[i].level] = o->out_var[L->f[i].axis];
    }
    cost(p, o, &d);
    for (int r = 0; r < o->nreads; r++) {
        PlTensor *t = &p->t[o->reads[r].t];
        int x = route_layout(p, t);
        if (x == -2)
            x = needed(p, o, &o->reads[r], &d, o->f->name);
        if (x < 0)
            return no_layout(p, t, loc);
        d.in_lay[r] = x;
    }
    d.out_lay = c >= 0 ? c : needed(p, o, NULL, &d, o->f->name);
    if (d.out_lay < 0)
        return no_layout(p, out, loc);
    o->dist[o->ndist++] = d;
    return 0;
}

/* Stage o's one distribution when the schedule distributes it
 * (dist.c): the levels its distributes name take the variable of the
 * axis they deal, the others stay idle (sub-words and lanes are the
 * layouts' business, not the levels').  1 when it has one, 0 when it
 * is free, -1 after reporting. */
static int forced_dist(AccPlan *p, PlOp *o, const TlSchedInfo *si)
{
    const PlTensor *t = &p->t[o->out];
    AccDist ad;
    PlDist d;
    int rc = acc_dist_stage(p->s, p->m, si, o->f, t->shape, &ad);

    if (rc <= 0)
        return rc;
    memset(&d, 0, sizeof d);
    for (int l = 0; l < p->m->nlevels; l++)
        d.var[l] = -1;
    for (int i = 0; i < ad.n; i++)
        if (ad.level[i] >= 0 && ad.axis[i] >= 0)
            d.var[ad.level[i]] = o->out_var[ad.axis[i]];
        else if (ad.level[i] >= 0)  /* a reduced variable */
            for (int v = o->nindex; v < o->nvars; v++)
                if (o->vars[v] == ad.var[i] ||
                    !strcmp(o->vars[v]->name, ad.var[i]->name))
                    d.var[ad.level[i]] = v;
    o->forced = 1;
    add_dist(p, o, &d);
    return 1;
}

/* The naive fixed layout: levels, outermost first, on the outermost
 * axis they divide (blocks of the row-major order over all PEs). */
static int naive_layout(AccPlan *p, PlTensor *t)
{
    const AccMachine *m = p->m;
    int ax[ACC_MAX_LEVELS] = {0}, rep[ACC_MAX_LEVELS] = {0};
    int64_t rem[ACC_LAYOUT_MAX_RANK];
    char *text;

    memcpy(rem, t->shape, sizeof rem);
    for (int l = 0; l < m->nlevels; l++) {
        ax[l] = -1;
        rep[l] = 0;
        for (int a = 0; a < t->rank && ax[l] < 0; a++)
            if (rem[a] % m->level[l].fanout == 0 &&
                (a < t->rank - 1 ||
                 rem[a] / m->level[l].fanout % epl_of(t->dt) == 0)) {
                ax[l] = a;
                rem[a] /= m->level[l].fanout;
            }
    }
    text = layout_text(p, t, ax, rep);
    return text ? pl_add_layout(p, t, text, "naive") : -1;
}

static const AccLayout *dram_layout(AccPlan *p, const PlTensor *t)
{
    int epl = epl_of(t->dt);
    TlBuf b;
    const AccLayout *L;
    int64_t words = 1;

    buf_init(&b);
    for (int a = 0; a < t->rank; a++)
        words *= a == t->rank - 1 && t->shape[a] % epl == 0
                     ? t->shape[a] / epl : t->shape[a];
    buf_printf(&b, "d[0:%lld], (", (long long)words);
    for (int a = 0; a < t->rank; a++)
        buf_printf(&b, "%s%lld", a ? "," : "", (long long)t->shape[a]);
    buf_puts(&b, ")/(");
    for (int a = 0; a < t->rank; a++) {
        buf_puts(&b, a ? ", (" : "(");
        if (a == t->rank - 1 && epl > 1 && t->shape[a] % epl == 0)
            buf_printf(&b, "%lld, %d_W", (long long)(t->shape[a] / epl),
                       epl);
        else
            buf_printf(&b, "%lld", (long long)t->shape[a]);
        buf_putc(&b, ')');
    }
    buf_putc(&b, ')');
    L = check_quietly(p, t, b.s);
    buf_free(&b);
    return L;
}

static int cmp_dist(const void *x, const void *y)
{
    double a = total(x), b = total(y);
    return a < b ? -1 : a > b;
}

/* The user's layout of tensor t from schedule si, checked with t's
 * sizes; 0 when there is none, -1 after reporting. */
static int user_layout(AccPlan *p, PlTensor *t, const TlSchedInfo *si)
{
    for (int j = 0; si && j < si->nlayouts; j++) {
        const TlSchedLayout *sl = si->layouts[j];
        AccLayoutReq r;
        const AccLayout *L;
        TlBuf b;
        if (sl->func != t->f)
            continue;
        memset(&r, 0, sizeof r);
        r.m = p->m;
        r.dtype = t->dt;
        r.rank = t->rank;
        memcpy(r.shape, t->shape, sizeof r.shape);
        r.axis_names = acc_layout_axis_names(p->s, t->f);
        r.tensor = t->name;
        r.where = sl->stmt->name_loc;
        r.place_loc = r.where;
        if (!(L = acc_layout_check(p->s, sl->layout, &r)))
            return -1;
        buf_init(&b);
        acc_layout_print_factors(&b, L);
        t->cand[0].L = L;
        t->cand[0].text = arena_strdup(&p->s->arena, b.s);
        t->cand[0].from = "user";
        buf_free(&b);
        t->ncand = 1;
        t->user = 1;
        return 0;
    }
    return 0;
}

int pl_candidates(AccPlan *p, const TlSchedInfo *si, TlLoc loc)
{
    for (int i = 0; i < p->nt; i++) {
        PlTensor *t = &p->t[i];
        if (user_layout(p, t, si))
            return -1;
        if (t->role != PT_STAGE && !(t->dram = dram_layout(p, t))) {
            diag_error(p->s, loc, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&p->s->arena, "'%s' in DRAM (too "
                                    "large)", t->name));
            return -1;
        }
    }
    for (int i = 0; i < p->nop; i++) {
        int f = p->route ? 0 : forced_dist(p, &p->op[i], si);
        if (f < 0 || (p->route ? route_dist(p, &p->op[i], loc)
                               : (!f && (best_dists(p, &p->op[i], 4), 0))))
            return -1;
    }
    if (!p->route)
        propagate(p);
    for (int i = 0; i < p->nop; i++)
        qsort(p->op[i].dist, (size_t)p->op[i].ndist, sizeof(PlDist),
              cmp_dist);
    for (int i = 0; i < p->nt; i++) {
        PlTensor *t = &p->t[i];
        t->naive = t->user ? 0 : naive_layout(p, t);
        if (t->naive < 0) {
            /* No fixed layout divides it: the first candidate. */
            t->naive = 0;
        }
        if (!t->ncand) {
            diag_error(p->s, loc, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&p->s->arena, "a layout for '%s' (no "
                                    "candidate fits the machine)",
                                    t->name));
            return -1;
        }
    }
    for (int i = 0; i < p->nop; i++) {
        PlOp *o = &p->op[i];
        if (!o->ndist) {
            diag_error(p->s, o->f->loc, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&p->s->arena, "a distribution of "
                                    "stage '%s' (none fits the machine)",
                                    o->f->name));
            return -1;
        }
    }
    for (int i = 0; i < p->nt; i++) {
        PlTensor *t = &p->t[i];
        size_t n = (size_t)t->ncand;
        t->conv = arena_alloc(&p->s->arena, n * n * sizeof *t->conv);
        t->conv_words = arena_alloc(&p->s->arena,
                                    n * n * sizeof *t->conv_words);
        t->conv_emit = arena_alloc(&p->s->arena,
                                   n * n * sizeof *t->conv_emit);
        memset(t->conv_emit, 0, n * n * sizeof *t->conv_emit);
        t->io = arena_alloc(&p->s->arena, n * sizeof *t->io);
        t->io_words = arena_alloc(&p->s->arena, n * sizeof *t->io_words);
        for (size_t j = 0; j < n * n; j++)
            t->conv[j] = -1;
        for (size_t j = 0; j < n; j++)
            t->io[j] = -1;
    }
    return 0;
}

void pl_dist_print(TlBuf *out, const AccPlan *p, const PlOp *o,
                   const PlDist *d)
{
    int n = 0;

    for (int l = 0; l < p->m->nlevels; l++) {
        if (d->var[l] < 0)
            continue;
        buf_printf(out, "%s%s:%s", n++ ? " " : "", p->m->level[l].name,
                   o->vars[d->var[l]]->name);
    }
    if (!n)
        buf_puts(out, "(one PE)");
}
