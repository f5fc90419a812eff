/*
 * cg_elem_lay.c - the elementwise route's layout mode: when the
 * kernel's accel schedule distributes its stage or lays out one of its
 * tensors, the stage computes each output element where that layout
 * puts it, and every input is read there.
 *
 * The layout the stage computes in (Lc, of the output's shape) is,
 * first found: its distributes' compact layout (dist.c), the output's
 * `layout`, the `layout` of an input it reads at each element's own
 * position.  An elementwise stage needs nothing of its neighbours, so
 * any layout in the PEs' memory will do: group g of the route
 * (cg_elem.c) is then addresses 4g .. 4g+3 of every PE, sub-cycle c
 * address 4g+c, and the DRAM image of each operand holds, at the place
 * of each output element, the input element it reads there (the runner
 * lays it out, AccCgIn.map: what dma.dist, dist and dist.L1 deliver to
 * that place).  Places Lc leaves empty hold 0 and are computed like
 * the padding of the plain route; the output is read back through Lc
 * (AccCgProgram.omap).  A PE that Lc leaves empty computes nothing
 * useful, which is what a distribute over fewer levels costs.
 *
 * Without a schedule's layout, a caller may ask for the output in a
 * DRAM image (AccCgCall.order: a program of segments passes its
 * producer's, target_seg_lay.c); the groups then follow that image
 * (follow_order).
 *
 * Nothing is converted here: when a `layout` of the output or of an
 * input read at the output's index puts its elements elsewhere than
 * Lc, the stage goes to the layout route (cg_red_lay.c), which
 * converts; a `layout` of an input read broadcast is refused by name.
 */
#include "codegen/acc/cg_int.h"
#include "codegen/acc/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lay {
    AccCg *g;
    const TlSchedInfo *si;
    const AccLayout *Lc;
    int64_t *place;         /* [slots]: the output element, or -1 */
    int64_t slots, gw;
    int conv;               /* a layout differs from Lc: convert */
} Lay;

int acc_cg_user_layout(AccCg *g, const TlSchedInfo *si, const TlFunc *f,
                       int rank, const int64_t *shape, const AccLayout **L,
                       TlLoc *at)
{
    TlSession *s = g->s;

    *L = NULL;
    for (int j = 0; j < si->nlayouts; j++) {
        const TlSchedLayout *sl = si->layouts[j];
        AccLayoutReq r;
        if (sl->func != f)
            continue;
        memset(&r, 0, sizeof r);
        r.m = g->m;
        r.dtype = f->dtype;
        r.rank = rank;
        memcpy(r.shape, shape, (size_t)rank * sizeof *shape);
        r.axis_names = acc_layout_axis_names(s, f);
        r.tensor = f->name;
        r.where = sl->stmt->name_loc;
        r.place_loc = r.where;
        *at = r.where;
        if (!(*L = acc_layout_check(s, sl->layout, &r))) {
            g->failed = 1;
            return -1;
        }
        return 0;
    }
    return 0;
}

static int user_layout(Lay *x, const TlFunc *f, int rank,
                       const int64_t *shape, const AccLayout **L,
                       TlLoc *at)
{
    return acc_cg_user_layout(x->g, x->si, f, rank, shape, L, at);
}

/* Reports what the route cannot follow, at the schedule's statement. */
static int refuse(Lay *x, TlLoc at, const char *what)
{
    AccCg *g = x->g;

    diag_error(g->s, at, DIAG_ACC_CG_UNSUPPORTED, what);
    diag_note(g->s, g->loc, "in this call of '%s'", g->c->k->name);
    g->failed = 1;
    return -1;
}

/* Whether every operand reading input `in` reads it at the output
 * element's own position (1), none reads it (0), or one reads it
 * broadcast (-1). */
static int read_direct(const Lay *x, int in)
{
    const AccCgProgram *p = x->g->p;
    int any = 0;

    for (int i = 0; i < p->nins; i++) {
        if (p->ins[i].input != in)
            continue;
        if (!p->ins[i].direct)
            return -1;
        any = 1;
    }
    return any;
}

/* The layout the stage computes in; NULL after reporting. */
static const AccLayout *compute_layout(Lay *x, const AccDist *ad)
{
    AccCg *g = x->g;
    TlSession *s = g->s;
    const AccCgCall *c = g->c;
    const TlKernelInfo *k = c->k;
    const TlFunc *of = k->outputs[0];
    const AccLayout *Lc = NULL, *Lo, *Li;
    TlLoc lat = g->loc;

    if (ad->first) {
        AccLayoutReq q;
        memset(&q, 0, sizeof q);
        q.m = g->m;
        q.dtype = of->dtype;
        q.rank = c->out_rank;
        memcpy(q.shape, c->out_shape, (size_t)c->out_rank * sizeof
                                          *q.shape);
        q.axis_names = acc_layout_axis_names(s, of);
        q.tensor = of->name;
        q.where = ad->first->loc;
        q.place_loc = q.where;
        if (!(Lc = acc_layout_from_text(s, "<distribute>", ad->text, &q))) {
            diag_note(s, ad->first->loc, "the layout %s of stage '%s' "
                      "deals its elements in", ad->text, of->name);
            g->failed = 1;
            return NULL;
        }
    }
    if (user_layout(x, of, c->out_rank, c->out_shape, &Lo, &lat))
        return NULL;
    if (Lo && Lc && !acc_layout_same_places(Lo, Lc)) {
        x->conv = 1;
        return NULL;
    }
    if (!Lc)
        Lc = Lo;
    for (int i = 0; i < k->ninputs; i++) {
        const TlTensor *T = c->in[i];
        if (user_layout(x, k->inputs[i], T->rank, T->shape, &Li, &lat))
            return NULL;
        if (!Li)
            continue;
        if (read_direct(x, i) < 0) {
            refuse(x, lat, arena_printf(&s->arena, "a `layout` of '%s', "
                                        "which stage '%s' reads broadcast,",
                                        k->inputs[i]->name, of->name));
            return NULL;
        }
        if (!Lc && Li->nelems == g->p->nelems)
            Lc = Li;
        if (Lc && !acc_layout_same_places(Li, Lc)) {
            x->conv = 1;
            return NULL;
        }
    }
    if (Lc && Lc->space != ACC_LSP_LM0) {
        refuse(x, lat, "a layout outside lm0 for the elementwise route");
        return NULL;
    }
    return Lc;
}

/* Every place of Lc, group by group, PE by PE (cg_elem.c's order): the
 * output element there, or -1. */
static void fill_places(Lay *x, int64_t groups)
{
    const AccMachine *m = x->g->m;
    const AccLayout *L = x->Lc;
    int64_t P = acc_machine_pes(m);

    x->gw = P * 4;
    x->slots = 2 * groups * x->gw;
    x->place = tl_xmalloc((size_t)x->slots * sizeof *x->place);
    for (int64_t gi = 0; gi < groups; gi++)
        for (int64_t pe = 0; pe < P; pe++)
            for (int64_t cc = 0; cc < 4; cc++)
                for (int w = 0; w < 2; w++) {
                    AccLoc loc;
                    int64_t slot = 2 * (gi * x->gw + pe * 4 + cc) + w;
                    acc_loc_of_pe(m, pe, L->space, L->base + gi * 4 + cc,
                                  &loc);
                    loc.word = w;
                    x->place[slot] = w < L->epl
                                         ? acc_layout_element(L, &loc, NULL)
                                         : -1;
                }
}

/* The input element operand ci reads for output element e. */
static int64_t read_of(const AccCgProgram *p, const AccCgIn *ci, int64_t e)
{
    int64_t at = ci->k;

    for (int l = p->nloops - 1; l >= 0; l--) {
        at += ci->coef[l] * (e % p->ext[l]);
        e /= p->ext[l];
    }
    return at;
}

static const char *factors(TlSession *s, const AccLayout *L)
{
    TlBuf b;
    const char *res;

    buf_init(&b);
    acc_layout_print_factors(&b, L);
    res = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return res;
}

/* The planner's view of the route: the output and the inputs read at
 * each element's own position in Lc, the others as the planner likes. */
static const char *route_text(void *ctx, const TlFunc *f)
{
    Lay *x = ctx;
    const TlKernelInfo *k = x->g->c->k;
    int in = tl_func_index(k->inputs, k->ninputs, f);

    if (f == k->outputs[0] ||
        (in >= 0 && read_direct(x, in) > 0 &&
         tl_tensor_numel(x->g->c->in[in]) == x->Lc->nelems))
        return factors(x->g->s, x->Lc);
    return NULL;
}

/* The plan of the route, quietly: its estimate is only shown beside
 * the simulated figures (`time`), so a kernel it cannot plan still
 * runs. */
static AccPlan *plan_quietly(Lay *x)
{
    TlSession *s = x->g->s;
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed;
    AccPlanRoute route;
    AccPlan *p;

    if (!null)
        return NULL;
    route.text = route_text;
    route.ctx = x;
    s->diag_out = null;
    p = acc_plan_route(s, x->g->m, (TlKernelInfo *)x->g->c->k, x->si,
                       x->g->c->sizes, &route, x->g->loc);
    s->diag_out = saved;
    s->nerrors = ne;
    s->nwarnings = nw;
    s->suppressed = sup;
    fclose(null);
    return p;
}

/* The image the caller asks the output in (AccCgCall.order: a program
 * of segments passes the image its producer wrote an input in) as the
 * route's groups, when the schedule lays out nothing: image element q
 * is computed at the place DMA and the tree deliver it to (group q /
 * (8P), as in the plain route), every operand's image holds there what
 * it reads for output element order[q], and the output stays in that
 * image.  So an input read at each element's own position in that
 * image is the image itself, and the program reads it where its
 * producer left it.  1 when followed, 0 when there is none or it does
 * not hold every output element exactly once. */
static int follow_order(AccCg *g, int64_t *groups)
{
    const AccCgCall *c = g->c;
    AccCgProgram *p = g->p;
    int64_t gw = acc_machine_pes(g->m) * 4, slots, *omap;

    if (!c->order || c->norder < p->nelems)
        return 0;
    omap = tl_xmalloc((size_t)p->nelems * sizeof *omap + 1);
    for (int64_t e = 0; e < p->nelems; e++)
        omap[e] = -1;
    for (int64_t q = 0; q < c->norder; q++) {
        int64_t e = c->order[q];
        if (e < -1 || e >= p->nelems || (e >= 0 && omap[e] >= 0)) {
            free(omap);
            return 0;
        }
        if (e >= 0)
            omap[e] = q;
    }
    for (int64_t e = 0; e < p->nelems; e++)
        if (omap[e] < 0) {
            free(omap);
            return 0;
        }
    *groups = (c->norder + 2 * gw - 1) / (2 * gw);
    slots = *groups * 2 * gw;
    for (int i = 0; i < p->nins; i++) {
        AccCgIn *ci = &p->ins[i];
        ci->nmap = slots;
        ci->map = tl_xmalloc((size_t)slots * sizeof *ci->map);
        for (int64_t q = 0; q < slots; q++)
            ci->map[q] = q < c->norder && c->order[q] >= 0
                             ? read_of(p, ci, c->order[q])
                             : -1;
    }
    p->oimage = slots;
    p->omap = omap;
    return 1;
}

int acc_cg_elem_layout(AccCg *g, int64_t *groups)
{
    TlSession *s = g->s;
    AccCgProgram *p = g->p;
    const TlKernelInfo *k = g->c->k;
    const TlFunc *of = k->outputs[0];
    AccDist ad;
    Lay x;
    int rc;

    memset(&x, 0, sizeof x);
    x.g = g;
    if (!(x.si = acc_sched_accel(k)))
        return follow_order(g, groups);
    /* The route computes the output alone: a distribute of another
     * stage (inlined into it) has no place of its own. */
    for (int c = 0; c < x.si->nchains; c++) {
        const TlSchedChain *ch = x.si->chains[c];
        for (int i = 0; i < ch->ndirs && ch->func != of; i++)
            if (ch->dirs[i].kind == SD_DISTRIBUTE)
                return refuse(&x, ch->dirs[i].loc,
                              arena_printf(&s->arena, "%s of stage '%s', "
                                           "which the elementwise route "
                                           "computes inside '%s',",
                                           acc_dist_what(s, &ch->dirs[i]),
                                           ch->func ? ch->func->name : "?",
                                           of->name));
    }
    for (int j = 0; j < x.si->nlayouts; j++) {
        const TlSchedLayout *sl = x.si->layouts[j];
        if (sl->func != of &&
            tl_func_index(k->inputs, k->ninputs, sl->func) < 0)
            return refuse(&x, sl->stmt->name_loc,
                          arena_printf(&s->arena, "a `layout` of '%s', a "
                                       "stage the elementwise route "
                                       "computes inside '%s',",
                                       sl->func->name, of->name));
    }
    rc = acc_dist_stage(s, g->m, x.si, of, g->c->out_shape, &ad);
    if (rc < 0) {
        g->failed = 1;
        diag_note(s, g->loc, "in this call of '%s'", k->name);
        return -1;
    }
    if (rc == 0 && !x.si->nlayouts)
        return follow_order(g, groups);
    if (!(x.Lc = compute_layout(&x, &ad)))
        return x.conv ? 2 : -1;
    *groups = (x.Lc->addr_span + 3) / 4;
    if (*groups < 1)
        *groups = 1;
    fill_places(&x, *groups);
    for (int i = 0; i < p->nins; i++) {
        AccCgIn *ci = &p->ins[i];
        ci->nmap = x.slots;
        ci->map = tl_xmalloc((size_t)x.slots * sizeof *ci->map);
        for (int64_t sl = 0; sl < x.slots; sl++)
            ci->map[sl] = x.place[sl] < 0 ? -1 : read_of(p, ci, x.place[sl]);
    }
    p->oimage = x.slots;
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++) {
        AccLoc loc;
        int64_t a;
        acc_layout_locate(x.Lc, e, 0, &loc);
        a = loc.addr - x.Lc->base;
        p->omap[e] = 2 * ((a / 4) * x.gw +
                          acc_loc_node(g->m, &loc, g->m->nlevels - 1) * 4 +
                          a % 4) +
                     loc.word;
    }
    free(x.place);
    p->plan = plan_quietly(&x);
    return 1;
}
