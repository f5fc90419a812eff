/*
 * cg_pipe_lay.c - the pipeline route's layout mode: when the kernel's
 * accel schedule writes a `layout`, every tensor of the program is in
 * the layout the layout planner chose for it (plan.h), which keeps the
 * user's, and the program converts (layout_emit.c) wherever that
 * differs from the layout a stage computes in.
 *
 * The stages compute as in cg_pipe.c, on one row per long word (lane 0;
 * lane 1 is idle): layout_emit.c converts between layouts whose long
 * words hold the same elements, and the user's layouts hold one
 * element a long word unless they say otherwise (a `W` factor).  In
 * the notation of docs/accel-layouts.md a stage's f32[N, D] is
 * ((f_L2B, ..., f_PE, RB:4C), (C:4, 4_S:1)) with C = D/4, the levels'
 * factors taking the greatest common divisor of the rows left and the
 * level's fan-out, outermost first, RB the rows left (the slots of a
 * PE); a tensor with one value per row, ((f_L2B, ..., RB:4)), holds it
 * in all 4 sub-cycles of its slot (copied after a conversion into it).
 * The plan sees those as the stages' only distributions
 * (acc_plan_route): it keeps every tensor in them but those the user
 * placed, and charges a conversion for each stage reading such a
 * tensor and for the stage writing it; the program runs exactly
 * those, and the runner tells their traffic from the rest by running
 * the program without them (AccCgProgram.bare).
 *
 * An input in a layout of its own is laid out by the runner in that
 * layout (its DRAM image is the layout's places, PE by PE); the output
 * is stored from the plan's layout and read back through it.
 *
 * A `distribute` of the rows (dist_rows) says which levels the rows
 * are dealt over; it puts the program in layout mode too, and the plan
 * then converts only where a `layout` says otherwise.
 *
 * TODO(issue 6): layouts with two elements a long word (a route that
 * pairs rows, as the stages do, from pairs of columns); rows over
 * several axes, rows not a multiple of 4 long and more rows than one
 * block; inputs read broadcast in a layout (their images are made by
 * the runner); distributes of columns (rows split over PEs).
 */
#include "codegen/acc/cg_pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(Pipe *x, const char *what)
{
    return acc_cg_fail(&x->g, what);
}

const TlSchedInfo *pipe_lay_schedule(const TlKernelInfo *k)
{
    const TlSchedInfo *si = acc_sched_accel(k);

    if (si && si->nlayouts)
        return si;
    for (int c = 0; si && c < si->nchains; c++)
        for (int i = 0; i < si->chains[c]->ndirs; i++)
            if (si->chains[c]->dirs[i].kind == SD_DISTRIBUTE)
                return si;
    return NULL;
}

static int64_t gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The layout the stages compute a tensor of this shape in (canonical
 * factors), or NULL when they cannot (rows not its first axis, a last
 * axis not a multiple of 4 long). */
static const char *stage_text(Pipe *x, int rank, const int64_t *shape)
{
    const AccMachine *m = x->g.m;
    int64_t row_lw = 4;
    TlBuf b;
    char *res;

    if (rank < 1 || shape[0] != x->N ||
        (rank > 1 && shape[rank - 1] % 4))
        return NULL;
    for (int a = 1; a < rank; a++)
        row_lw *= a == rank - 1 ? shape[a] / 4 : shape[a];
    buf_init(&b);
    buf_puts(&b, "((");
    for (int i = 0; i < m->nlevels; i++) {
        int l = x->roword[i];
        if (x->rowf[l] > 1)
            buf_printf(&b, "%lld_%s, ", (long long)x->rowf[l],
                       m->level[l].name);
    }
    buf_printf(&b, "%lld:%lld)", (long long)x->RB, (long long)row_lw);
    for (int a = 1; a < rank; a++) {
        int64_t later = 4;
        for (int c = a + 1; c < rank; c++)
            later *= c == rank - 1 ? shape[c] / 4 : shape[c];
        if (a < rank - 1)
            buf_printf(&b, ", (%lld:%lld)", (long long)shape[a],
                       (long long)later);
        else
            buf_printf(&b, ", (%lld:4, 4_S:1)", (long long)(shape[a] / 4));
    }
    buf_putc(&b, ')');
    res = arena_strdup(&x->g.s->arena, b.s);
    buf_free(&b);
    return res;
}

/* The stage that computes tensor t, or NULL. */
static const Stage *producer(const Pipe *x, int t)
{
    for (int i = 0; i < x->nst; i++)
        if (x->st[i].tensor == t)
            return &x->st[i];
    return NULL;
}

/* The kernel's tensor an allocation or the output's param stands for:
 * "e.__7" is stage e, "out.Y" output Y. */
static const TlFunc *func_of(const Pipe *x, const LVar *v)
{
    const TlKernelInfo *k = x->g.c->k;
    const char *n = v->name;
    size_t len;

    if (!strncmp(n, "out.", 4))
        for (int i = 0; i < k->noutputs; i++)
            if (!strcmp(k->outputs[i]->name, n + 4))
                return k->outputs[i];
    len = strcspn(n, ".");
    for (int i = 0; i < k->nfuncs; i++)
        if (strlen(k->funcs[i]->name) == len &&
            !strncmp(k->funcs[i]->name, n, len))
            return k->funcs[i];
    return NULL;
}

/* The text of input image i's layout when it is the input itself read
 * at every element's own position (own), else NULL. */
static const char *own_text(Pipe *x, int i)
{
    const Img *im = &x->imgs[i];
    const TlTensor *T = x->g.c->in[x->g.p->ins[i].input];
    const char *text = stage_text(x, T->rank, T->shape);

    if (!text || tl_tensor_numel(T) != x->N * im->D)
        return NULL;
    for (int64_t r = 0; r < x->N; r++)
        for (int64_t c = 0; c < im->D; c++)
            if (pipe_img_index(x, i, r, c) != r * im->D + c)
                return NULL;
    return text;
}

static const char *route_text(void *ctx, const TlFunc *f)
{
    Pipe *x = ctx;
    const TlKernelInfo *k = x->g.c->k;

    for (int i = 0; i < x->nts; i++)
        if (x->ts[i].f == f)
            return x->ts[i].text;
    for (int i = 0; i < x->g.p->nins; i++)
        if (x->imgs[i].own && k->inputs[x->g.p->ins[i].input] == f)
            return own_text(x, i);
    return NULL;
}

/* L's canonical factors. */
static const char *factors(Pipe *x, const AccLayout *L)
{
    TlBuf b;
    char *res;

    buf_init(&b);
    acc_layout_print_factors(&b, L);
    res = arena_strdup(&x->g.s->arena, b.s);
    buf_free(&b);
    return res;
}

/* Layout `text` of an f32 tensor of this shape, placed at region r (or
 * lm0 from 0 when r is NULL). */
static const AccLayout *layout(Pipe *x, const char *text, int rank,
                               const int64_t *shape, const Region *r,
                               const char *name)
{
    AccLayoutReq q;

    memset(&q, 0, sizeof q);
    q.m = x->g.m;
    q.dtype = DT_F32;
    q.rank = rank;
    memcpy(q.shape, shape, (size_t)rank * sizeof *shape);
    q.tensor = name;
    q.where = x->g.loc;
    q.place_loc = x->g.loc;
    if (r) {
        q.has_place = 1;
        q.space = r->bank ? ACC_LSP_LM1 : ACC_LSP_LM0;
        q.base = r->at / 2;
        q.end = (r->at + r->words) / 2;
    }
    return acc_layout_from_text(x->g.s, "<pipeline>", text, &q);
}

/* The plan's layout L of a tensor when it is not the stages' (text):
 * into u, unplaced, with the words its region takes.  -1 after
 * reporting one the conversions cannot take. */
static int other(Pipe *x, const AccLayout *L, const char *text,
                 const char *name, int rank, const int64_t *shape,
                 Region *u)
{
    const AccLayout *S = layout(x, text, rank, shape, NULL, name);

    if (!S)
        return fail(x, "the layout its stages compute in");
    if (acc_layout_same_places(L, S))
        return 0;
    for (int i = 0; i < L->nf; i++)
        if (L->f[i].kind == ACC_F_WORD)
            return fail(x, arena_printf(&x->g.s->arena, "a `layout` of "
                                        "'%s' with %d elements a long "
                                        "word (a pipeline with layouts "
                                        "keeps one in each)", name,
                                        L->epl));
    u->L = L;
    u->words = (L->addr_span + 3) / 4 * 8;
    return 0;
}

/* Each row's place: rowmap from the layout of a tensor of one value a
 * row. */
static int map_rows(Pipe *x)
{
    const AccMachine *m = x->g.m;
    const AccLayout *L = layout(x, stage_text(x, 1, &x->N), 1, &x->N,
                                NULL, "rows");
    int64_t n = x->P * x->RB;

    if (!L)
        return fail(x, "the layout its stages compute in");
    x->rowmap = tl_xmalloc((size_t)n * sizeof *x->rowmap);
    for (int64_t i = 0; i < n; i++)
        x->rowmap[i] = -1;
    for (int64_t r = 0; r < x->N; r++) {
        AccLoc loc;
        acc_layout_locate(L, r, 0, &loc);
        x->rowmap[acc_loc_node(m, &loc, m->nlevels - 1) * x->RB +
                  (loc.addr - L->base) / 4] = r;
    }
    return 0;
}

static void need_scratch(Pipe *x, const AccLayout *src)
{
    int64_t n = acc_layout_emit_scratch(src);
    if (n > x->scratch_words)
        x->scratch_words = n;
}

/* What the route cannot follow, at the schedule's directive. */
static int refuse(Pipe *x, TlLoc at, const char *what)
{
    diag_error(x->g.s, at, DIAG_ACC_CG_UNSUPPORTED, what);
    diag_note(x->g.s, x->g.loc, "in this call of '%s'", x->g.c->k->name);
    x->g.failed = 1;
    return -1;
}

/* The rows' places from the stages' distributes (dist.c): every stage
 * computes its rows in the same places, so the stages that distribute
 * must deal the rows (their first axis) over the same levels, in the
 * same order; the levels they name take their whole fan-out, the
 * others stay idle, and each PE holds a contiguous block of RB rows.
 * Stages that do not distribute follow them.  Without any, the rows
 * spread over every level (pipe_lay_setup).  -1 after reporting. */
static int dist_rows(Pipe *x)
{
    TlSession *s = x->g.s;
    const AccMachine *m = x->g.m;
    const AccDist *ref = NULL;
    const TlFunc *reff = NULL;
    AccDist ad[MAX_STAGES];

    x->dist = 0;
    for (int i = 0; i < x->nst; i++) {
        const Stage *st = &x->st[i];
        const TlFunc *f = func_of(x, x->ts[st->tensor].buf);
        AccDist *d = &ad[i];
        int rc, ok = 1;
        if (!f)
            continue;
        rc = acc_dist_stage(s, m, x->si, f, st->ext, d);
        if (rc < 0) {
            diag_note(s, x->g.loc, "in this call of '%s'", x->g.c->k->name);
            x->g.failed = 1;
            return -1;
        }
        if (rc == 0)
            continue;
        for (int j = 0; j < d->n; j++)
            ok &= d->axis[j] == 0 && d->level[j] >= 0;
        if (!ok)
            return refuse(x, d->first->loc,
                          arena_printf(&s->arena, "%s of stage '%s', which "
                                       "deals more than its rows over the "
                                       "machine's levels (a pipeline deals "
                                       "rows only, one a long word),",
                                       d->what, f->name));
        if (ref && (ref->n != d->n ||
                    memcmp(ref->level, d->level,
                           (size_t)d->n * sizeof *d->level)))
            return refuse(x, d->first->loc,
                          arena_printf(&s->arena, "%s of stage '%s', "
                                       "other than stage '%s''s %s (a "
                                       "pipeline computes every stage's "
                                       "rows in the same places),",
                                       d->what, f->name, reff->name,
                                       ref->what));
        if (!ref) {
            ref = d;
            reff = f;
        }
    }
    if (!ref)
        return 0;
    x->dist = 1;
    for (int l = 0; l < m->nlevels; l++)
        x->rowf[l] = 1;
    for (int j = 0; j < ref->n; j++) {
        x->roword[j] = ref->level[j];
        x->rowf[ref->level[j]] = m->level[ref->level[j]].fanout;
    }
    /* The idle levels after them, in any order: their factor is 1. */
    for (int l = 0, n = ref->n; l < m->nlevels; l++) {
        int named = 0;
        for (int j = 0; j < ref->n; j++)
            named |= ref->level[j] == l;
        if (!named)
            x->roword[n++] = l;
    }
    return 0;
}

int pipe_lay_setup(Pipe *x)
{
    AccCg *g = &x->g;
    AccCgProgram *p = g->p;
    const AccCgCall *c = g->c;
    const TlKernelInfo *k = c->k;
    const AccMachine *m = g->m;
    AccPlanRoute route;
    int64_t rem = x->N;

    for (int i = 0; i < x->nst; i++)
        if (x->st[i].nrow != 1)
            return fail(x, "a `layout` or `distribute` in the schedule of a "
                           "pipeline whose "
                           "rows span several axes");
    if (dist_rows(x))
        return -1;
    if (!x->dist)
        for (int l = 0; l < m->nlevels; l++) {
            x->roword[l] = l;
            x->rowf[l] = gcd(rem, m->level[l].fanout);
            rem /= x->rowf[l];
        }
    for (int l = 0; l < m->nlevels; l++)
        rem = x->dist ? rem / x->rowf[l] : rem;
    x->RB = rem;
    for (int i = 0; i < x->nts; i++) {
        Tensor *t = &x->ts[i];
        const Stage *s = producer(x, i);
        if (!s)
            continue;
        t->f = func_of(x, t->buf);
        t->text = stage_text(x, s->nout, s->ext);
        if (!t->f || !t->text)
            return fail(x, "a `layout` or `distribute` in the schedule of a "
                           "pipeline whose "
                           "rows are not a multiple of 4 long");
    }
    for (int i = 0; i < p->nins; i++)
        x->imgs[i].own = own_text(x, i) != NULL;
    /* A layout of an input the stages only read broadcast. */
    for (int j = 0; j < x->si->nlayouts; j++) {
        const TlFunc *f = x->si->layouts[j]->func;
        int in = tl_func_index(k->inputs, k->ninputs, f), own = 0;
        for (int i = 0; i < p->nins && in >= 0; i++)
            own |= x->imgs[i].own && p->ins[i].input == in;
        if (in >= 0 && !own)
            return fail(x, arena_printf(&g->s->arena, "a `layout` of '%s', "
                                        "which the pipeline reads "
                                        "broadcast,", f->name));
    }
    route.text = route_text;
    route.ctx = x;
    if (!(x->plan = acc_plan_route(g->s, m, c->k, x->si, c->sizes, &route,
                                   g->loc))) {
        g->failed = 1;
        return -1;
    }
    for (int i = 0; i < x->nts; i++) {
        Tensor *t = &x->ts[i];
        const Stage *s = producer(x, i);
        if (s && other(x, acc_plan_layout(x->plan, t->f), t->text,
                       t->f->name, s->nout, s->ext, &t->U))
            return -1;
    }
    for (int i = 0; i < p->nins; i++) {
        const TlFunc *f = k->inputs[p->ins[i].input];
        const TlTensor *T = c->in[p->ins[i].input];
        if (x->imgs[i].own &&
            other(x, acc_plan_layout(x->plan, f), own_text(x, i), f->name,
                  T->rank, T->shape, &x->imgs[i].U))
            return -1;
    }
    if (pipe_place(x, x->RB))
        return fail(x, "a `layout` or `distribute` in the schedule of a "
                           "pipeline whose "
                       "tensors do not fit the PEs' memories at once");
    /* Every layout at its region. */
    for (int i = 0; i < x->nts; i++) {
        Tensor *t = &x->ts[i];
        const Stage *s = producer(x, i);
        if (!s)
            continue;
        t->R.bank = t->bank;
        t->R.at = t->at;
        t->R.words = x->RB * t->C * 8;
        if (!(t->R.L = layout(x, t->text, s->nout, s->ext, &t->R,
                              t->f->name)))
            return fail(x, "the layout its stages compute in");
        if (t->U.L) {
            if (!(t->U.L = layout(x, factors(x, t->U.L), s->nout, s->ext,
                                  &t->U, t->f->name)))
                return fail(x, "the plan's layout");
            need_scratch(x, t->R.L);
            need_scratch(x, t->U.L);
        }
    }
    for (int i = 0; i < p->nins; i++) {
        Img *im = &x->imgs[i];
        const TlFunc *f = k->inputs[p->ins[i].input];
        const TlTensor *T = c->in[p->ins[i].input];
        if (!im->U.L)
            continue;
        im->R.bank = im->bank;
        im->R.at = im->at;
        im->R.words = x->RB * im->C * 8;
        if (!(im->R.L = layout(x, own_text(x, i), T->rank, T->shape, &im->R,
                               f->name)) ||
            !(im->U.L = layout(x, factors(x, im->U.L), T->rank, T->shape,
                               &im->U, f->name)))
            return fail(x, "the plan's layout");
        need_scratch(x, im->U.L);
    }
    return map_rows(x);
}

int pipe_lay_maps(Pipe *x)
{
    AccCg *g = &x->g;
    AccCgProgram *p = g->p;
    const AccMachine *m = g->m;
    const Tensor *t = &x->ts[x->st[x->nst - 1].tensor];
    const Region *o = t->U.L ? &t->U : &t->R;
    int64_t W;

    for (int i = 0; i < p->nins; i++) {
        AccCgIn *in = &p->ins[i];
        const Img *im = &x->imgs[i];
        int64_t numel = tl_tensor_numel(g->c->in[in->input]);
        W = im->U.L ? im->U.words / 2 : x->RB * im->C * 4;
        in->nmap = 2 * x->P * W;
        in->map = tl_xmalloc((size_t)in->nmap * sizeof *in->map);
        for (int64_t pe = 0; pe < x->P; pe++)
            for (int64_t w = 0; w < W; w++) {
                int64_t e = -1, v = w / 4, rp = v / im->C, row, at;
                int64_t col = im->splat ? 0 : (v % im->C) * 4 + w % 4;
                if (im->U.L) {
                    /* The input itself, in the plan's layout. */
                    e = acc_layout_at(im->U.L, pe, im->U.L->base + w, NULL);
                } else if ((row = x->rowmap[pe * x->RB + rp]) >= 0 &&
                           col < im->D) {
                    e = pipe_img_index(x, i, row, col);
                    if (e < 0 || e >= numel)
                        return fail(x, "reads outside an input");
                }
                at = 2 * pipe_img_lw(x, 0, pe, w, W, pipe_piece(x, W, 1));
                in->map[at] = e;
                in->map[at + 1] = -1;
            }
    }
    if (!o->L)
        return fail(x, "the layout its stages compute in");
    W = o->words / 2;
    p->oimage = 2 * x->P * W;
    p->omap = tl_xmalloc((size_t)p->nelems * sizeof *p->omap + 1);
    for (int64_t e = 0; e < p->nelems; e++) {
        AccLoc loc;
        acc_layout_locate(o->L, e, 0, &loc);
        p->omap[e] = 2 * pipe_img_lw(x, 0, acc_loc_node(m, &loc,
                                                        m->nlevels - 1),
                                     loc.addr - o->L->base, W, x->Wmax) +
                     loc.word;
    }
    return 0;
}

/* Converts from one region to another; a tensor of one value a row
 * converted into the stages' layout gets it in every sub-cycle of its
 * slot again (the layout holds the first). */
static void convert(Pipe *x, TlBuf *o, const Region *from, const Region *to,
                    int splat)
{
    const AccMachine *m = x->g.m;
    TlBuf why;

    buf_init(&why);
    if (acc_layout_emit_convert(o, from->L, to->L, x->scratch, NULL,
                                &why) < 0)
        fail(x, arena_printf(&x->g.s->arena, "this conversion (%s)",
                             why.s));
    buf_free(&why);
    x->nconv++;
    if (!splat)
        return;
    for (int64_t rp = 0; rp < x->RB; rp++) {
        long long a = (long long)(to->at + rp * 8);
        buf_printf(o, "mov.f32 lm%d[%lld] -> r[0+]\n", to->bank, a);
        acc_cg_nop(o, m->lat_grf);
        buf_printf(o, "mov.f32 r[0+] -> lm%d[%lld+]\n", to->bank, a);
    }
    acc_cg_nop(o, m->lat_lm);
}

void pipe_lay_before(Pipe *x, int i, TlBuf *o)
{
    for (int j = 0; j < x->g.p->nins; j++) {
        const Img *im = &x->imgs[j];
        if (im->U.L && (im->readers & (1u << i)))
            convert(x, o, &im->U, &im->R, im->D == 1);
    }
    for (int j = 0; j < x->nts; j++) {
        const Tensor *t = &x->ts[j];
        if (t->U.L && (t->readers & (1u << i)))
            convert(x, o, &t->U, &t->R, t->D == 1);
    }
}

void pipe_lay_after(Pipe *x, int i, TlBuf *o)
{
    const Tensor *t = &x->ts[x->st[i].tensor];

    if (t->U.L)
        convert(x, o, &t->R, &t->U, 0);
}
