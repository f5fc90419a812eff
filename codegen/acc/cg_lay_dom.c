/*
 * cg_lay_dom.c - the layout route's layouts (cg_red_lay.c says what the
 * route does): the iteration domain's layout Lc from the schedule's
 * distributes or `layout`s, its address strides (lane mode included),
 * and the layouts built from it (an input's share of Lc, the result
 * Lr, the partial results Lp and Lq, a user's layout placed anew).
 */
#include "codegen/acc/cg_lay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lay_refuse(RL *x, TlLoc at, const char *what)
{
    AccCg *g = x->g;

    diag_error(g->s, at, DIAG_ACC_CG_UNSUPPORTED, what);
    diag_note(g->s, g->loc, "in this call of '%s'", g->c->k->name);
    g->failed = 1;
    return -1;
}

int lay_fail(RL *x, const char *what)
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

    if (acc_cg_user_layout(x->g, x->si, f, rank, shape, L, at) < 0)
        return -1;
    for (int i = 0; *L && i < (*L)->nf; i++)
        if ((*L)->f[i].kind == ACC_F_WORD && (*L)->f[i].n > 1)
            return lay_refuse(x, *at, arena_printf(
                &s->arena, "a `layout` of '%s' with %d elements a "
                "long word (the layout routes compute one element a "
                "long word and convert nothing into or out of "
                "packed layouts yet)", f->name, (*L)->epl));
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
const char *lay_loop_name(TlSession *s, const char *n)
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
                return lay_refuse(x, d->loc, arena_printf(
                    &s->arena, "%s of stage '%s', which the %s route "
                    "computes inside '%s',", acc_dist_what(s, d),
                    ch->func ? ch->func->name : "?",
                    x->nout < x->nd ? "reduction" : "elementwise",
                    of->name));
            ax = domain_axis(x, d->args[0].var);
            if (ax < 0)
                return lay_refuse(x, d->loc, arena_printf(
                    &s->arena, "%s of stage '%s', whose loop '%s' is "
                    "neither an axis of its result nor a variable it "
                    "reduces over,", acc_dist_what(s, d), of->name,
                    d->args[0].var ? d->args[0].var->name : "?"));
            for (int j = 0; j < d->args[1].nitems; j++) {
                const char *ln = d->args[1].items[j].name;
                int lv = acc_level_index(m, ln);
                Ax *a = &x->dom[ax];
                if (!strcmp(ln, "W"))
                    return lay_refuse(x, d->loc, arena_printf(
                        &s->arena, "%s of stage '%s' over `W` (the %s "
                        "route computes one element a long word)",
                        acc_dist_what(s, d), of->name,
                        x->nout < x->nd ? "reduction" : "layout"));
                if (a->nf >= MAX_FAC - 1)
                    return lay_fail(x, "distributes this long");
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
                    return lay_refuse(x, d->loc, arena_printf(
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
int lay_domain(RL *x)
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
            return lay_refuse(x, sl->stmt->name_loc, arena_printf(
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
            return lay_refuse(x, at, arena_printf(
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
            return lay_fail(x, "a `layout` of an output its loops do not "
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
        return lay_fail(x, "a stage whose schedule lays out only inputs it "
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
void lay_strides(RL *x)
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
void lay_put_axis(TlBuf *b, const RL *x, const Ax *a, int levels_only)
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
const AccLayout *lay_make(RL *x, const char *text, int rank,
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
const AccLayout *lay_lc_of_input(RL *x, int o, int64_t base)
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
            lay_put_axis(&b, x, &x->dom[d], 0);
        else
            buf_puts(&b, "(1)");
    }
    buf_putc(&b, ')');
    L = lay_make(x, b.s, T->rank, T->shape, 0, base,
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
const AccLayout *lay_result(RL *x, int q, int bank, int64_t base)
{
    int64_t shape[ACC_LAYOUT_MAX_RANK];
    int rank = out_shape(x, shape);
    TlBuf b;
    const AccLayout *L;

    if (rank + (q > 0) > ACC_LAYOUT_MAX_RANK) {
        lay_fail(x, "outputs of this rank");
        return NULL;
    }
    buf_init(&b);
    buf_putc(&b, '(');
    if (x->nout == 0)
        buf_puts(&b, "(1)");
    for (int d = 0; d < x->nout; d++) {
        if (d)
            buf_puts(&b, ", ");
        lay_put_axis(&b, x, &x->dom[d], 0);
    }
    if (q == 1) {
        Ax all;
        all.nf = 0;
        for (int d = x->nout; d < x->nd; d++)
            for (int i = 0; i < x->dom[d].nf; i++)
                if (x->dom[d].f[i].level >= 0 && all.nf < MAX_FAC)
                    all.f[all.nf++] = x->dom[d].f[i];
        buf_puts(&b, ", ");
        lay_put_axis(&b, x, &all, 1);
    } else if (q == 2) {
        buf_printf(&b, ", (%lld:%lld)", (long long)x->Q, (long long)x->Opad);
    }
    buf_putc(&b, ')');
    if (q)
        shape[rank++] = x->Q;
    L = lay_make(x, b.s, rank, shape, bank, base,
             x->g->c->k->outputs[0]->name);
    buf_free(&b);
    return L;
}

/* L's factors, placed anew at lm<bank>[base ..] (an axis of one
 * element, which has none, as `(1)`). */
const AccLayout *lay_replace(RL *x, const AccLayout *L, int bank,
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
    R = lay_make(x, b.s, L->rank, L->shape, bank, base, name);
    buf_free(&b);
    return R;
}
