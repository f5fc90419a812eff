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
 *  3. when the reduced axes are spread over levels, the partial
 *     results (a tensor of the output's shape plus one axis Q, the
 *     reduced axes' level positions: layout Lp, the same words as Lr)
 *     are converted to Lq, where Q is an address axis of the PEs at
 *     position 0 of those levels, and folded there once more;
 *  4. an output with a `layout` other than Lr is converted into it;
 *     the result is stored from its layout and read back through it.
 *
 * Every tensor must fit the PEs' memories at once; sums are
 * reassociated (each PE's order, then the levels'), max and min are
 * exact.  The conversions go through the tree or DRAM as
 * acc_layout_emit_convert decides (its scratch area follows the
 * output in DRAM).
 *
 * TODO(issue 6): combine the partial results with the tree's `red*`
 * transfers when the reduced levels are the ones they combine (a
 * conversion moves each partial to position 0 today); layouts with
 * two elements a long word (a `W` factor: no conversion re-pairs
 * elements yet); inputs with a `layout` read broadcast; a plan of
 * the route for the planner's line in `time` (AccCgProgram.plan is not
 * set: `time` gives the program's conversions, measured against
 * AccCgProgram.bare, without an estimate).
 */
#include "codegen/acc/cg_int.h"
#include "codegen/acc/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FAC = 24 };

/* One factor of an axis of the domain: a level's positions, or
 * addresses. */
typedef struct Fac {
    int level;              /* -1: addresses */
    int64_t n, stride;
} Fac;

typedef struct Ax {
    Fac f[MAX_FAC];
    int nf;
} Ax;

typedef struct RL {
    AccCg *g;
    const TlSchedInfo *si;
    const LExpr *f;
    const char *opname, *ident;
    int nout, nd;
    const char *names[TL_MAX_RANK];
    Ax dom[TL_MAX_RANK];
    /* A PE's output and reduction positions; Opad: long words of one
     * reduction step (Orem rounded up to 4, or 4 Orem in lane mode),
     * steps of them; Q: the reduced axes' positions over levels. */
    int64_t Orem, Opad, Rrem, steps, span, Q, P, Wmax;
    int lane;
    /* Per operand: the input's own layout (NULL: loaded in Lc), and
     * the input's axis each domain axis reads (perm), -1: none. */
    const AccLayout *Li[ACC_CG_MAX_OPERANDS];
    int perm[ACC_CG_MAX_OPERANDS][TL_MAX_RANK];
    const AccLayout *Lo;    /* the output's `layout`, or NULL */
    TlLoc lo_at;
    int64_t dram, scratch, scratch_words;
    int nconv, noconv;
} RL;

static int refuse(RL *x, TlLoc at, const char *what)
{
    AccCg *g = x->g;

    diag_error(g->s, at, DIAG_ACC_CG_UNSUPPORTED, what);
    diag_note(g->s, g->loc, "in this call of '%s'", g->c->k->name);
    g->failed = 1;
    return -1;
}

static int fail(RL *x, const char *what)
{
    return acc_cg_fail(x->g, what);
}

/* The user's `layout` of f checked with this shape, *L NULL when there
 * is none.  -1 after reporting. */
static int user_layout(RL *x, const TlFunc *f, int rank,
                       const int64_t *shape, const AccLayout **L,
                       TlLoc *at)
{
    TlSession *s = x->g->s;

    *L = NULL;
    for (int j = 0; j < x->si->nlayouts; j++) {
        const TlSchedLayout *sl = x->si->layouts[j];
        AccLayoutReq r;
        if (sl->func != f)
            continue;
        memset(&r, 0, sizeof r);
        r.m = x->g->m;
        r.dtype = f->dtype;
        r.rank = rank;
        memcpy(r.shape, shape, (size_t)rank * sizeof *shape);
        r.axis_names = acc_layout_axis_names(s, f);
        r.tensor = f->name;
        r.where = sl->stmt->name_loc;
        r.place_loc = r.where;
        *at = r.where;
        if (!(*L = acc_layout_check(s, sl->layout, &r))) {
            x->g->failed = 1;
            return -1;
        }
        for (int i = 0; i < (*L)->nf; i++)
            if ((*L)->f[i].kind == ACC_F_WORD && (*L)->f[i].n > 1)
                return refuse(x, r.where, arena_printf(
                    &s->arena, "a `layout` of '%s' with %d elements a "
                    "long word (the layout routes compute one element a "
                    "long word and convert nothing into or out of "
                    "packed layouts yet)", f->name, (*L)->epl));
        return 0;
    }
    return 0;
}

/* The domain axis the loop variable v of a distribute names, or -1:
 * an output axis by the output's index variables, a reduction loop by
 * its name (the loop IR names it "<stage>.<var>[.suffix]"). */
static int domain_axis(const RL *x, const TlVar *v)
{
    const TlFunc *of = x->g->c->k->outputs[0];

    if (!v)
        return -1;
    for (int a = 0; a < of->rank && a < x->nout; a++)
        if (of->axes && of->axes[a].var &&
            (of->axes[a].var == v || !strcmp(of->axes[a].var->name, v->name)))
            return a;
    for (int d = x->nout; d < x->nd; d++)
        if (!strcmp(x->names[d], v->name))
            return d;
    return -1;
}

/* "Y.d.__3" -> "d". */
static const char *loop_name(TlSession *s, const char *n)
{
    const char *a = strchr(n, '.');
    size_t len;

    if (!a)
        return n;
    a++;
    len = strcspn(a, ".");
    return arena_printf(&s->arena, "%.*s", (int)len, a);
}

/* Lc's level factors from the output stage's distributes: 1 when there
 * are some, 0 when none, -1 after reporting. */
static int from_dist(RL *x)
{
    TlSession *s = x->g->s;
    const AccMachine *m = x->g->m;
    const TlFunc *of = x->g->c->k->outputs[0];
    int any = 0;

    for (int c = 0; c < x->si->nchains; c++) {
        const TlSchedChain *ch = x->si->chains[c];
        for (int i = 0; i < ch->ndirs; i++) {
            const TlSchedDir *d = &ch->dirs[i];
            int ax;
            if (d->kind != SD_DISTRIBUTE || d->nargs < 2)
                continue;
            if (ch->func != of || ch->npath)
                return refuse(x, d->loc, arena_printf(
                    &s->arena, "%s of stage '%s', which the %s route "
                    "computes inside '%s',", acc_dist_what(s, d),
                    ch->func ? ch->func->name : "?",
                    x->nout < x->nd ? "reduction" : "elementwise",
                    of->name));
            ax = domain_axis(x, d->args[0].var);
            if (ax < 0)
                return refuse(x, d->loc, arena_printf(
                    &s->arena, "%s of stage '%s', whose loop '%s' is "
                    "neither an axis of its result nor a variable it "
                    "reduces over", acc_dist_what(s, d), of->name,
                    d->args[0].var ? d->args[0].var->name : "?"));
            for (int j = 0; j < d->args[1].nitems; j++) {
                const char *ln = d->args[1].items[j].name;
                int lv = acc_level_index(m, ln);
                Ax *a = &x->dom[ax];
                if (!strcmp(ln, "W"))
                    return refuse(x, d->loc, arena_printf(
                        &s->arena, "%s of stage '%s' over `W` (the %s "
                        "route computes one element a long word)",
                        acc_dist_what(s, d), of->name,
                        x->nout < x->nd ? "reduction" : "layout"));
                if (a->nf >= MAX_FAC - 1)
                    return fail(x, "distributes this long");
                a->f[a->nf].level = lv;       /* S: -1, addresses */
                a->f[a->nf].n = lv >= 0 ? m->level[lv].fanout : 4;
                a->f[a->nf].stride = 1;
                a->nf++;
            }
            {
                int64_t all = 1;
                for (int j = 0; j < x->dom[ax].nf; j++)
                    all *= x->dom[ax].f[j].n;
                if (x->g->p->ext[ax] % all)
                    return refuse(x, d->loc, arena_printf(
                        &s->arena, "%s of stage '%s' over %lld "
                        "iterations, not a multiple of the %lld places "
                        "it deals them to,", acc_dist_what(s, d),
                        of->name, (long long)x->g->p->ext[ax],
                        (long long)all));
            }
            any = 1;
        }
    }
    if (!any)
        return 0;
    for (int d = 0; d < x->nd; d++) {
        Ax *a = &x->dom[d];
        int64_t all = 1;
        for (int j = 0; j < a->nf; j++)
            all *= a->f[j].n;
        a->f[a->nf].level = -1;
        a->f[a->nf].n = x->g->p->ext[d] / all;
        a->f[a->nf].stride = 0;
        a->nf++;
    }
    return 1;
}

/* Axis a of layout L as domain axis d's factors. */
static void take_axis(RL *x, int d, const AccLayout *L, int a)
{
    Ax *ax = &x->dom[d];

    ax->nf = 0;
    for (int i = L->first[a]; i < L->first[a + 1] && ax->nf < MAX_FAC; i++) {
        const AccFactor *f = &L->f[i];
        ax->f[ax->nf].level = f->kind == ACC_F_LEVEL ? f->level : -1;
        ax->f[ax->nf].n = f->n;
        ax->f[ax->nf].stride = f->stride;
        ax->nf++;
    }
}

/* For operand o reading its input at the domain's own index with the
 * axes permuted: perm[d] the input axis of domain axis d (-1 for an
 * axis of one iteration the input does not have).  0, or 1 when it
 * reads otherwise (a broadcast). */
static int direct_perm(RL *x, int o)
{
    const AccCgProgram *p = x->g->p;
    const AccCgIn *in = &p->ins[o];
    const TlTensor *T = x->g->c->in[in->input];
    int64_t stride[TL_MAX_RANK], dom = 1;
    int used[TL_MAX_RANK] = {0};

    if (in->k != 0 || T->rank > TL_MAX_RANK)
        return 1;
    for (int a = T->rank - 1; a >= 0; a--)
        stride[a] = a == T->rank - 1 ? 1 : stride[a + 1] * T->shape[a + 1];
    for (int d = 0; d < x->nd; d++) {
        x->perm[o][d] = -1;
        dom *= p->ext[d];
        if (p->ext[d] == 1)
            continue;
        for (int a = 0; a < T->rank; a++)
            if (!used[a] && T->shape[a] == p->ext[d] &&
                in->coef[d] == stride[a]) {
                used[a] = 1;
                x->perm[o][d] = a;
                break;
            }
        if (x->perm[o][d] < 0)
            return 1;
    }
    return dom == tl_tensor_numel(T) ? 0 : 1;
}

/* Lc's factors from the schedule; -1 after reporting. */
static int domain_layout(RL *x)
{
    AccCg *g = x->g;
    TlSession *s = g->s;
    const AccCgCall *c = g->c;
    const TlKernelInfo *k = c->k;
    const TlFunc *of = k->outputs[0];
    AccCgProgram *p = g->p;
    int rc, have;
    TlLoc at = g->loc;

    for (int j = 0; j < x->si->nlayouts; j++) {
        const TlSchedLayout *sl = x->si->layouts[j];
        if (sl->func != of &&
            tl_func_index(k->inputs, k->ninputs, sl->func) < 0)
            return refuse(x, sl->stmt->name_loc, arena_printf(
                &s->arena, "a `layout` of '%s', a stage the %s route "
                "computes inside '%s',", sl->func->name,
                x->nout < x->nd ? "reduction" : "elementwise", of->name));
    }
    if ((rc = from_dist(x)) < 0)
        return -1;
    have = rc;
    if (c->out_rank <= TL_MAX_RANK &&
        user_layout(x, of, c->out_rank, c->out_shape, &x->Lo, &x->lo_at))
        return -1;
    /* An elementwise stage computes where its output is laid out
     * (cg_elem_lay.c's order), a reduction where its input is. */
    if (x->Lo && !have && x->nout == x->nd && x->nout == c->out_rank) {
        for (int d = 0; d < x->nd; d++)
            take_axis(x, d, x->Lo, d);
        have = 1;
    }
    for (int o = 0; o < p->nins; o++) {
        const AccLayout *L;
        int in = p->ins[o].input;
        if (in < 0)
            continue;
        if (user_layout(x, k->inputs[in], c->in[in]->rank,
                        c->in[in]->shape, &L, &at))
            return -1;
        if (!L)
            continue;
        if (direct_perm(x, o))
            return refuse(x, at, arena_printf(
                &s->arena, "a `layout` of '%s', which stage '%s' reads "
                "broadcast or at another index than its own (the %s "
                "route converts inputs read at each iteration's own "
                "index only),", k->inputs[in]->name, of->name,
                x->nout < x->nd ? "reduction" : "elementwise"));
        x->Li[o] = L;
        /* A layout with copies is converted from, not computed in. */
        if (!have && L->ncopies == 1) {
            for (int d = 0; d < x->nd; d++) {
                if (x->perm[o][d] >= 0) {
                    take_axis(x, d, L, x->perm[o][d]);
                } else {
                    x->dom[d].nf = 1;
                    x->dom[d].f[0].level = -1;
                    x->dom[d].f[0].n = 1;
                }
            }
            have = 1;
        }
    }
    if (x->Lo && !have) {
        if (x->nout != c->out_rank)
            return fail(x, "a `layout` of an output its loops do not "
                           "follow");
        for (int d = 0; d < x->nd; d++) {
            if (d < x->nout) {
                take_axis(x, d, x->Lo, d);
            } else {
                x->dom[d].nf = 1;
                x->dom[d].f[0].level = -1;
                x->dom[d].f[0].n = p->ext[d];
            }
        }
        have = 1;
    }
    if (!have)
        return fail(x, "a stage whose schedule lays out only inputs it "
                       "does not read or copies (B@) of inputs, with no "
                       "`distribute` or `layout` of its output to say "
                       "where it computes,");
    return 0;
}

/* Address strides.  Normally the output axes' address factors
 * row-major over Orem, the reduced axes' over Rrem times Opad (Orem
 * rounded up to 4): a group of 4 long words is 4 outputs of one
 * reduction position.  When a PE's outputs are not a multiple of 4
 * and its least significant reduced factor is (lane mode), that
 * factor's last 4 positions go to the lanes instead: address
 * (jh * Orem + o) * 4 + jl, Opad = 4 Orem, a group is 4 reduction
 * positions of one output, folded across the lanes at the end. */
static void strides(RL *x)
{
    int64_t run = 1;
    Fac *low = NULL;
    int lowd = -1, lowi = -1;

    x->Q = 1;
    x->Orem = 1;
    for (int d = 0; d < x->nout; d++)
        for (int i = 0; i < x->dom[d].nf; i++)
            if (x->dom[d].f[i].level < 0)
                x->Orem *= x->dom[d].f[i].n;
    for (int d = x->nd - 1; d >= x->nout && !low; d--)
        for (int i = x->dom[d].nf - 1; i >= 0 && !low; i--)
            if (x->dom[d].f[i].level < 0 && x->dom[d].f[i].n > 1) {
                low = &x->dom[d].f[i];
                lowd = d;
                lowi = i;
            }
    x->lane = x->Orem % 4 && low && low->n % 4 == 0 &&
              x->dom[lowd].nf < MAX_FAC;
    if (x->lane) {
        Ax *a = &x->dom[lowd];
        memmove(&a->f[lowi + 1], &a->f[lowi],
                (size_t)(a->nf - lowi) * sizeof *a->f);
        a->nf++;
        a->f[lowi].n /= 4;
        a->f[lowi + 1].n = 4;
        a->f[lowi + 1].stride = 1;
        run = 4;
    }
    for (int d = x->nout - 1; d >= 0; d--)
        for (int i = x->dom[d].nf - 1; i >= 0; i--) {
            Fac *f = &x->dom[d].f[i];
            if (f->level < 0) {
                f->stride = run;
                run *= f->n;
            }
        }
    x->Opad = x->lane ? run : (run + 3) / 4 * 4;
    run = x->Opad;
    for (int d = x->nd - 1; d >= x->nout; d--)
        for (int i = x->dom[d].nf - 1; i >= 0; i--) {
            Fac *f = &x->dom[d].f[i];
            if (x->lane && d == lowd && i == lowi + 1)
                continue;       /* the lanes */
            if (f->level < 0) {
                f->stride = run;
                run *= f->n;
            } else {
                x->Q *= f->n;
            }
        }
    x->steps = run / x->Opad;
    x->Rrem = x->steps * (x->lane ? 4 : 1);
    x->span = (x->steps * x->Opad + 3) / 4 * 4;
}

/* The text of one axis's factors. */
static void put_axis(TlBuf *b, const RL *x, const Ax *a, int levels_only)
{
    const AccMachine *m = x->g->m;
    int n = 0;

    buf_putc(b, '(');
    for (int i = 0; i < a->nf; i++) {
        const Fac *f = &a->f[i];
        if (levels_only && f->level < 0)
            continue;
        if (f->level >= 0)
            buf_printf(b, "%s%lld_%s:%lld", n ? ", " : "", (long long)f->n,
                       m->level[f->level].name, (long long)f->stride);
        else
            buf_printf(b, "%s%lld:%lld", n ? ", " : "", (long long)f->n,
                       (long long)f->stride);
        n++;
    }
    if (!n)
        buf_puts(b, "1");
    buf_putc(b, ')');
}

/* A layout from its text at lm<bank>[base ..]. */
static const AccLayout *make(RL *x, const char *text, int rank,
                             const int64_t *shape, int bank, int64_t base,
                             const char *name)
{
    const AccMachine *m = x->g->m;
    AccLayoutReq q;
    const AccLayout *L;

    memset(&q, 0, sizeof q);
    q.m = m;
    q.dtype = DT_F32;
    q.rank = rank;
    memcpy(q.shape, shape, (size_t)rank * sizeof *shape);
    q.tensor = name;
    q.where = x->g->loc;
    q.place_loc = x->g->loc;
    q.has_place = 1;
    q.space = bank ? ACC_LSP_LM1 : ACC_LSP_LM0;
    q.base = base;
    q.end = m->lm_words;
    L = acc_layout_from_text(x->g->s, "<layout route>", text, &q);
    if (!L)
        x->g->failed = 1;
    return L;
}

/* Lc as a layout of operand o's input (its axes in the input's order),
 * at lm0 from base. */
static const AccLayout *lc_of_input(RL *x, int o, int64_t base)
{
    const TlTensor *T = x->g->c->in[x->g->p->ins[o].input];
    TlBuf b;
    const AccLayout *L;

    buf_init(&b);
    buf_putc(&b, '(');
    for (int a = 0; a < T->rank; a++) {
        int d = -1;
        for (int e = 0; e < x->nd; e++)
            if (x->perm[o][e] == a)
                d = e;
        if (a)
            buf_puts(&b, ", ");
        if (d >= 0)
            put_axis(&b, x, &x->dom[d], 0);
        else
            buf_puts(&b, "(1)");
    }
    buf_putc(&b, ')');
    L = make(x, b.s, T->rank, T->shape, 0, base,
             x->g->c->k->inputs[x->g->p->ins[o].input]->name);
    buf_free(&b);
    return L;
}

/* The output's shape as the route sees it: rank 0 is one element. */
static int out_shape(const RL *x, int64_t *shape)
{
    const AccCgCall *c = x->g->c;

    if (c->out_rank == 0) {
        shape[0] = 1;
        return 1;
    }
    memcpy(shape, c->out_shape, (size_t)c->out_rank * sizeof *shape);
    return c->out_rank;
}

/* Layouts of the result: Lr (q 0), Lp (q 1: Q over the reduced axes'
 * levels), Lq (q 2: Q an address axis, stride Opad). */
static const AccLayout *result(RL *x, int q, int bank, int64_t base)
{
    int64_t shape[ACC_LAYOUT_MAX_RANK];
    int rank = out_shape(x, shape);
    TlBuf b;
    const AccLayout *L;

    if (rank + (q > 0) > ACC_LAYOUT_MAX_RANK) {
        fail(x, "outputs of this rank");
        return NULL;
    }
    buf_init(&b);
    buf_putc(&b, '(');
    if (x->nout == 0)
        buf_puts(&b, "(1)");
    for (int d = 0; d < x->nout; d++) {
        if (d)
            buf_puts(&b, ", ");
        put_axis(&b, x, &x->dom[d], 0);
    }
    if (q == 1) {
        Ax all;
        all.nf = 0;
        for (int d = x->nout; d < x->nd; d++)
            for (int i = 0; i < x->dom[d].nf; i++)
                if (x->dom[d].f[i].level >= 0 && all.nf < MAX_FAC)
                    all.f[all.nf++] = x->dom[d].f[i];
        buf_puts(&b, ", ");
        put_axis(&b, x, &all, 1);
    } else if (q == 2) {
        buf_printf(&b, ", (%lld:%lld)", (long long)x->Q, (long long)x->Opad);
    }
    buf_putc(&b, ')');
    if (q)
        shape[rank++] = x->Q;
    L = make(x, b.s, rank, shape, bank, base,
             x->g->c->k->outputs[0]->name);
    buf_free(&b);
    return L;
}

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
        fail(x, arena_printf(&x->g->s->arena, "this conversion (%s)",
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

/* L's factors, placed anew at lm<bank>[base ..] (an axis of one
 * element, which has none, as `(1)`). */
static const AccLayout *replace(RL *x, const AccLayout *L, int bank,
                                int64_t base, const char *name)
{
    const AccMachine *m = x->g->m;
    TlBuf b;
    const AccLayout *R;
    int n = 0;

    buf_init(&b);
    buf_putc(&b, '(');
    for (int a = 0; a < L->rank; a++) {
        buf_puts(&b, a ? ", (" : "(");
        if (L->first[a] == L->first[a + 1])
            buf_putc(&b, '1');
        for (int i = L->first[a]; i < L->first[a + 1]; i++) {
            const AccFactor *f = &L->f[i];
            buf_printf(&b, "%s%lld", i > L->first[a] ? ", " : "",
                       (long long)f->n);
            if (f->kind == ACC_F_LEVEL)
                buf_printf(&b, "_%s", m->level[f->level].name);
            else if (f->kind == ACC_F_WORD)
                buf_puts(&b, "_W");
            else if (f->kind == ACC_F_LANE)
                buf_puts(&b, "_S");
            buf_printf(&b, ":%lld", (long long)f->stride);
        }
        buf_putc(&b, ')');
    }
    buf_putc(&b, ')');
    for (int l = 0; l < m->nlevels; l++)
        if (L->bcast & (1u << l))
            buf_printf(&b, "%s%s", n++ ? ", " : "; B@[", m->level[l].name);
    if (n)
        buf_putc(&b, ']');
    R = make(x, b.s, L->rank, L->shape, bank, base, name);
    buf_free(&b);
    return R;
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
        x->names[d] = loop_name(s, g->loops[d]->name);
    if (x->nd > ACC_LAYOUT_MAX_RANK || c->out_rank >= ACC_LAYOUT_MAX_RANK) {
        fail(x, "a `distribute` or `layout` of a loop nest this deep");
        goto out;
    }
    if (x->Wmax < 4) {
        fail(x, "a machine whose BMs hold less than 4 long words per PE");
        goto out;
    }
    if (domain_layout(x))
        goto out;
    strides(x);
    if (nimg * x->span > m->lm_words ||
        round4(x->Q * x->Opad) > m->lm_words) {
        fail(x, arena_printf(&s->arena, "a `distribute` or `layout` that "
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
        put_axis(&b, x, &x->dom[d], 0);
    }
    buf_putc(&b, ')');
    LD = make(x, b.s, x->nd, p->ext, 0, 0, "the iterations");
    buf_free(&b);
    if (!LD || !(Lr = result(x, 0, 1, 0)))
        goto out;
    lm1 = round4(x->Opad);
    for (int i = 0; i < nimg; i++) {
        const AccLayout *L = x->Li[i], *L0;
        if (!L)
            continue;
        if (!(Lc[i] = lc_of_input(x, i, i * x->span)) ||
            !(L0 = lc_of_input(x, i, 0)))
            goto out;
        if (acc_layout_same_places(L, L0))
            continue;
        if (!(U[i] = replace(x, L, 1, lm1,
                             c->k->inputs[p->ins[i].input]->name)))
            goto out;
        lm1 += round4(U[i]->addr_span);
        need_scratch(x, U[i]);
    }
    lm0 = nimg * x->span;
    if (x->Q > 1) {
        if (!(Lp = result(x, 1, 1, 0)) || !(Lq = result(x, 2, 0, 0)))
            goto out;
        need_scratch(x, Lp);
        if (round4(x->Q * x->Opad) > lm0)
            lm0 = round4(x->Q * x->Opad);
    }
    if (x->Lo) {
        const AccLayout *R0 = result(x, 0, 0, 0);
        int64_t at = x->Q > 1 ? round4(x->Q * x->Opad) : 0;
        if (!R0)
            goto out;
        if (!acc_layout_same_places(x->Lo, R0)) {
            if (!(Lo = replace(x, x->Lo, 0, at, oname)))
                goto out;
            if (at + round4(Lo->addr_span) > lm0)
                lm0 = at + round4(Lo->addr_span);
            need_scratch(x, Lr);
        }
    }
    if (lm0 > m->lm_words || lm1 > m->lm_words) {
        fail(x, arena_printf(&s->arena, "a `distribute` or `layout` whose "
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
                        fail(x, "reads outside an input");
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
        fail(x, "tensors larger than the machine's DRAM");
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
