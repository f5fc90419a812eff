/*
 * plan.c - the layout planner's search and its explanation
 * (plan.h).
 *
 * The variables are each tensor's layout (one of its candidates; the
 * user's layout is the only one) and each stage's distribution.  Given
 * the tensors' layouts, every stage independently takes the
 * distribution that costs least: its compute time, plus converting
 * each tensor it reads from the tensor's layout into the one it needs,
 * plus converting its result into the output tensor's layout.  Inputs
 * add their load from DRAM, outputs their store.
 *
 * The search: a greedy pass in dependency order (each stage takes its
 * best distribution given the layouts chosen so far, and fixes the
 * layouts of the tensors it touches that have none yet, so a chain
 * converts nowhere it need not), then rounds of improvement until none
 * helps: move one tensor to another candidate, or move a stage to
 * another distribution together with every tensor it touches (which
 * changes a producer and its consumers at once, as a single tensor
 * move cannot).  Each move is kept only when the total falls.
 */
#include "codegen/acc/plan_int.h"

#include <stdlib.h>
#include <string.h>

/* The cost of stage o under distribution d with the tensors' current
 * layouts (a tensor with none yet: no conversion). */
static double op_cost_d(AccPlan *p, const PlOp *o, const PlDist *d,
                        double bound)
{
    double c = d->compute + d->reduce + d->halo;

    for (int r = 0; r < o->nreads; r++) {
        PlTensor *t = &p->t[o->reads[r].t];
        /* Past the bound it cannot win: leave the rest uncosted. */
        if (bound >= 0 && c >= bound)
            return c;
        if (t->follow && !p->fixed)
            c += pl_io(p, t, d->in_lay[r]);
        else if (t->choice >= 0)
            c += pl_conv(p, t, t->choice, d->in_lay[r]);
        else if (t->role == PT_INPUT)
            c += pl_io(p, t, d->in_lay[r]);
    }
    PlTensor *t = &p->t[o->out];
    if (t->follow && !p->fixed)
        c += pl_io(p, t, d->out_lay);
    else if (t->choice >= 0)
        c += pl_conv(p, t, d->out_lay, t->choice);
    return c;
}

static int best_dist(AccPlan *p, const PlOp *o, double *cost)
{
    int best = 0;
    double bc = -1;

    /* Distributions are sorted by their own cost, and conversions
     * only add: the first that cannot win ends the search. */
    for (int i = 0; i < o->ndist; i++) {
        const PlDist *d = &o->dist[i];
        double c;
        if (bc >= 0 && d->compute + d->reduce + d->halo >= bc)
            break;
        c = op_cost_d(p, o, d, bc);
        if (bc < 0 || c < bc) {
            bc = c;
            best = i;
        }
    }
    *cost = bc;
    return best;
}

/* The plan's total with the current layouts; sets every stage's
 * choice. */
static double total(AccPlan *p)
{
    double sum = 0, c;

    for (int i = 0; i < p->nop; i++) {
        PlOp *o = &p->op[i];
        const PlDist *d;
        o->choice = best_dist(p, o, &c);
        sum += c;
        d = &o->dist[o->choice];
        for (int r = 0; r < o->nreads && !p->fixed; r++)
            if (p->t[o->reads[r].t].follow)
                p->t[o->reads[r].t].choice = d->in_lay[r];
        if (p->t[o->out].follow && !p->fixed)
            p->t[o->out].choice = d->out_lay;
    }
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].role != PT_STAGE && (p->fixed || !p->t[i].follow))
            sum += pl_io(p, &p->t[i], p->t[i].choice);
    return sum;
}

double pl_total(AccPlan *p)
{
    return total(p);
}

static void greedy(AccPlan *p)
{
    for (int i = 0; i < p->nt; i++)
        p->t[i].choice = p->t[i].user ? 0 : -1;
    for (int i = 0; i < p->nop; i++) {
        PlOp *o = &p->op[i];
        double c;
        const PlDist *d = &o->dist[best_dist(p, o, &c)];
        for (int r = 0; r < o->nreads; r++)
            if (p->t[o->reads[r].t].choice < 0)
                p->t[o->reads[r].t].choice = d->in_lay[r];
        if (p->t[o->out].choice < 0)
            p->t[o->out].choice = d->out_lay;
    }
    /* Inputs no stage reads. */
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].choice < 0)
            p->t[i].choice = 0;
}

/* Whether a stage touching tensor ti needs candidate c under its
 * current distribution: converting through a layout no stage needs
 * is never cheaper than converting directly, so only those are
 * tried. */
static int needed_now(const AccPlan *p, int ti, int c)
{
    for (int i = 0; i < p->nop; i++) {
        const PlOp *o = &p->op[i];
        const PlDist *d = &o->dist[o->choice];
        for (int r = 0; r < o->nreads; r++)
            if (o->reads[r].t == ti && d->in_lay[r] == c)
                return 1;
        if (o->out == ti && d->out_lay == c)
            return 1;
    }
    return 0;
}

static void improve(AccPlan *p)
{
    double cur = total(p);
    int changed = 1;

    for (p->iterations = 0; changed && p->iterations < 20;
         p->iterations++) {
        changed = 0;
        for (int i = 0; i < p->nt; i++) {
            PlTensor *t = &p->t[i];
            int keep = t->choice;
            for (int c = 0; c < t->ncand && !t->user && !t->follow; c++) {
                double x;
                if (c == t->choice || !needed_now(p, i, c))
                    continue;
                t->choice = c;
                x = total(p);
                if (x < cur - 1e-6) {
                    cur = x;
                    keep = c;
                    changed = 1;
                }
                t->choice = keep;
            }
        }
        for (int i = 0; i < p->nop; i++) {
            PlOp *o = &p->op[i];
            for (int d = 0; d < o->ndist; d++) {
                int save[PL_MAX_READS + 1];
                double x;
                for (int r = 0; r < o->nreads; r++)
                    save[r] = p->t[o->reads[r].t].choice;
                save[o->nreads] = p->t[o->out].choice;
                for (int r = 0; r < o->nreads; r++)
                    if (!p->t[o->reads[r].t].user &&
                        !p->t[o->reads[r].t].follow)
                        p->t[o->reads[r].t].choice = o->dist[d].in_lay[r];
                if (!p->t[o->out].user && !p->t[o->out].follow)
                    p->t[o->out].choice = o->dist[d].out_lay;
                x = total(p);
                if (x < cur - 1e-6) {
                    cur = x;
                    changed = 1;
                    continue;
                }
                p->t[o->out].choice = save[o->nreads];
                for (int r = o->nreads - 1; r >= 0; r--)
                    p->t[o->reads[r].t].choice = save[r];
            }
        }
    }
    total(p);
}

AccPlan *acc_plan_kernel(TlSession *s, const AccMachine *m,
                         TlKernelInfo *k, const TlSchedInfo *si,
                         const int64_t *sizes, TlLoc loc)
{
    return acc_plan_route(s, m, k, si, sizes, NULL, loc);
}

AccPlan *acc_plan_route(TlSession *s, const AccMachine *m,
                        TlKernelInfo *k, const TlSchedInfo *si,
                        const int64_t *sizes, const AccPlanRoute *route,
                        TlLoc loc)
{
    AccPlan *p = arena_alloc(&s->arena, sizeof *p);
    int *keep;

    memset(p, 0, sizeof *p);
    p->s = s;
    p->m = m;
    p->k = k;
    p->route = route;
    if (pl_build(p, k, sizes, loc) || pl_candidates(p, si, loc))
        return NULL;
    for (int i = 0; i < p->nt; i++) {
        PlTensor *t = &p->t[i];
        int readers = 0;
        for (int j = 0; j < p->nop; j++)
            for (int r = 0; r < p->op[j].nreads; r++)
                readers += p->op[j].reads[r].t == i;
        t->follow = !t->user && ((t->role == PT_INPUT && readers == 1) ||
                                 (t->role == PT_OUTPUT && readers == 0));
    }
    /* The naive plan first: every tensor in its fixed layout. */
    for (int i = 0; i < p->nt; i++)
        p->t[i].choice = p->t[i].naive;
    p->fixed = 1;
    total(p);
    p->fixed = 0;
    p->naive_choice = arena_alloc(&s->arena, (size_t)(p->nop + 1) *
                                                 sizeof(int));
    for (int i = 0; i < p->nop; i++)
        p->naive_choice[i] = p->op[i].choice;
    greedy(p);
    improve(p);
    /* The naive plan is one the search could reach: never worse. */
    keep = arena_alloc(&s->arena, (size_t)p->nt * sizeof *keep);
    for (int i = 0; i < p->nt; i++)
        keep[i] = p->t[i].choice;
    double planned = total(p), x;
    for (int i = 0; i < p->nt; i++)
        p->t[i].choice = p->t[i].naive;
    p->fixed = 1;
    x = total(p);
    p->fixed = 0;
    /* Under a route the stages have one distribution each: what it
     * needs is the plan (the naive layouts are not the program's). */
    if (x < planned && !route)
        improve(p);
    else
        for (int i = 0; i < p->nt; i++)
            p->t[i].choice = keep[i];
    total(p);
    return p;
}

const AccLayout *acc_plan_layout(const AccPlan *p, const TlFunc *f)
{
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].f == f)
            return p->t[i].cand[p->t[i].choice].L;
    return NULL;
}

/* Totals with the current choices. */
static void sums(AccPlan *p, AccPlanTotals *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < p->nop; i++) {
        const PlOp *op = &p->op[i];
        const PlDist *d = &op->dist[op->choice];
        o->compute += d->compute + d->reduce + d->halo;
        for (int r = 0; r <= op->nreads; r++) {
            PlTensor *t = &p->t[r < op->nreads ? op->reads[r].t : op->out];
            int a = r < op->nreads ? t->choice : d->out_lay;
            int b = r < op->nreads ? d->in_lay[r] : t->choice;
            double c = pl_conv(p, t, a, b);
            o->conv += c;
            o->conv_words += pl_conv_words(p, t, a, b);
            o->nconv += c > 0;
        }
    }
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].role != PT_STAGE) {
            o->io += pl_io(p, &p->t[i], p->t[i].choice);
            o->io_words += pl_io_words(p, &p->t[i], p->t[i].choice);
        }
    o->total = o->compute + o->conv + o->io;
}

void acc_plan_totals(const AccPlan *cp, int naive, AccPlanTotals *out)
{
    AccPlan *p = (AccPlan *)cp;  /* the memo tables fill as they go */
    int *save = NULL;

    if (naive) {
        save = tl_xcalloc((size_t)p->nt + 1, sizeof *save);
        for (int i = 0; i < p->nt; i++) {
            save[i] = p->t[i].choice;
            p->t[i].choice = p->t[i].naive;
        }
        p->fixed = 1;
        total(p);
    }
    sums(p, out);
    out->program = !naive && p->has_prog ? p->prog.cycles : -1;
    out->program_conv = !naive && p->has_bare
                            ? p->prog.cycles - p->bare.cycles : 0;
    out->route = !naive && p->has_prog ? p->prog_route : NULL;
    out->model = -1;
    if (!naive && p->has_prog) {
        out->timing = p->prog;
        out->model_own = !p->followed || p->followed == p;
        out->model_parts = 1;
        out->model_of = out->model_own ? "the plan above"
                                       : "the route's own plan (its "
                                         "layouts and distributions)";
        if (p->route_model > 0) {
            out->model_own = 0;
            out->model_parts = 0;
            out->model = p->route_model;
            out->model_of = arena_printf(&p->s->arena, "the %s route's "
                                         "model of its shape",
                                         p->prog_route);
        } else if (out->model_own) {
            out->model = out->total;
            out->model_compute = out->compute;
            out->model_conv = out->conv;
            out->model_io = out->io;
        } else {
            AccPlanTotals f;
            acc_plan_totals(p->followed, 0, &f);
            out->model = f.total;
            out->model_compute = f.compute;
            out->model_conv = f.conv;
            out->model_io = f.io;
        }
    }
    if (naive) {
        p->fixed = 0;
        for (int i = 0; i < p->nt; i++)
            p->t[i].choice = save[i];
        total(p);
        free(save);
    }
}

void acc_plan_set_program(AccPlan *p, const char *route,
                          const AccTiming *all, const AccTiming *bare)
{
    p->has_prog = 1;
    p->prog_route = route;
    p->prog = *all;
    p->has_bare = bare != NULL;
    if (bare)
        p->bare = *bare;
}

void acc_plan_set_followed(AccPlan *p, const AccPlan *followed)
{
    p->followed = followed;
}

void acc_plan_set_conv_what(AccPlan *p, const char *what)
{
    p->conv_what = what;
}

void acc_plan_set_route_model(AccPlan *p, double cycles)
{
    p->route_model = cycles;
}

void acc_plan_set_segments(AccPlan *p, const AccPlanSeg *sg)
{
    p->has_seg = 1;
    p->seg = *sg;
}

/* ====================================================================
 * Explanation
 * ==================================================================== */

static const char *role_name(PlRole r)
{
    return r == PT_INPUT ? "input" : r == PT_OUTPUT ? "output" : "stage";
}

static void put_shape(TlBuf *out, const PlTensor *t)
{
    buf_printf(out, "%s[", dt_name(t->dt));
    for (int a = 0; a < t->rank; a++)
        buf_printf(out, "%s%lld", a ? "," : "", (long long)t->shape[a]);
    buf_putc(out, ']');
}

/* Why tensor t has its layout. */
static void reason(TlBuf *out, AccPlan *p, const PlTensor *t, int ti)
{
    int users = 0, agree = 0;

    if (t->user) {
        buf_puts(out, "written in the schedule (kept)");
        return;
    }
    for (int i = 0; i < p->nop; i++) {
        const PlOp *o = &p->op[i];
        const PlDist *d = &o->dist[o->choice];
        for (int r = 0; r < o->nreads; r++)
            if (o->reads[r].t == ti) {
                users++;
                agree += d->in_lay[r] == t->choice;
            }
        if (o->out == ti) {
            users++;
            agree += d->out_lay == t->choice;
        }
    }
    buf_printf(out, "proposed by %s; %d of the %d stage%s touching it "
               "use%s it as it is", t->cand[t->choice].from, agree, users,
               users == 1 ? "" : "s", agree == 1 ? "s" : "");
    if (t->role == PT_INPUT)
        buf_puts(out, ", loaded from DRAM");
    else if (t->role == PT_OUTPUT)
        buf_puts(out, ", stored to DRAM");
}

static void explain_op(TlBuf *out, AccPlan *p, const PlOp *o)
{
    const PlDist *d = &o->dist[o->choice];

    buf_printf(out, "stage %s: distribute ", o->f->name);
    pl_dist_print(out, p, o, d);
    buf_printf(out, "\n    compute %.0f cycles (%s", d->compute,
               o->matmul ? "matrix unit" : "vector unit");
    if (d->reduce > 0)
        buf_printf(out, ", reduce partial results %.0f", d->reduce);
    if (d->halo > 0)
        buf_printf(out, ", halo exchange %.0f", d->halo);
    if (o->forced)
        buf_puts(out, "); the schedule's distributes\n");
    else
        buf_printf(out, "); %d distribution%s considered\n", o->ndist,
                   o->ndist == 1 ? "" : "s");
    for (int r = 0; r <= o->nreads; r++) {
        int ti = r < o->nreads ? o->reads[r].t : o->out;
        PlTensor *t = &p->t[ti];
        int a = r < o->nreads ? t->choice : d->out_lay;
        int b = r < o->nreads ? d->in_lay[r] : t->choice;
        double c = pl_conv(p, t, a, b);
        buf_printf(out, "    %s %s: ", r < o->nreads ? "reads" : "writes",
                   t->name);
        if (c == 0) {
            buf_puts(out, "in place\n");
            continue;
        }
        buf_printf(out, "converts %s -> %s, %.0f cycles, %lld lw\n",
                   r < o->nreads ? "its layout" : "the stage's",
                   r < o->nreads ? "the stage's" : "its layout", c,
                   (long long)pl_conv_words(p, t, a, b));
        buf_printf(out, "      %s\n", t->cand[r < o->nreads ? b : a].text);
    }
}

/* "program: ..." up to the open parenthesis's last figure. */
static void put_program(TlBuf *out, const char *route, const AccTiming *t)
{
    buf_printf(out, "program: the %s route's instructions, timed as the "
               "simulator times them: %lld cycles (%lld steps, %lld "
               "waiting for DMA; DRAM %lld lw read, %lld written, %lld "
               "DMA ops", route, (long long)t->cycles, (long long)t->steps,
               (long long)t->wait_stalls, (long long)t->dram_words[0],
               (long long)t->dram_words[1], (long long)t->dma_ops);
}

void acc_plan_explain_program(TlBuf *out, const char *route,
                              const AccTiming *t, double est)
{
    put_program(out, route, t);
    buf_puts(out, ")\n");
    if (est > 0)
        buf_printf(out, "model: %.0f cycles for the %s route's model of "
                   "its shape, %.2fx of the program\n", est, route,
                   est / (double)(t->cycles > 0 ? t->cycles : 1));
    else
        buf_puts(out, "model: none (no layout plan)\n");
}

void acc_plan_explain(TlBuf *out, const AccPlan *cp)
{
    AccPlan *p = (AccPlan *)cp;
    AccPlanTotals a, n;

    buf_printf(out, "layout plan of kernel %s on machine %s (%lld PEs): "
               "%d tensors, %d stages\n", p->k->name, p->m->name,
               (long long)acc_machine_pes(p->m), p->nt, p->nop);
    for (int i = 0; i < p->nt; i++) {
        const PlTensor *t = &p->t[i];
        buf_printf(out, "tensor %s (%s ", t->name, role_name(t->role));
        put_shape(out, t);
        buf_printf(out, "): %s\n    ", t->cand[t->choice].text);
        reason(out, p, t, i);
        buf_printf(out, "; %d candidate%s\n", t->ncand,
                   t->ncand == 1 ? "" : "s");
    }
    for (int i = 0; i < p->nop; i++)
        explain_op(out, p, &p->op[i]);
    acc_plan_totals(p, 0, &a);
    acc_plan_totals(p, 1, &n);
    buf_printf(out, "estimated: compute %.0f, conversions %.0f (%d, %lld "
               "lw), DRAM in/out %.0f (%lld lw): %.0f cycles\n",
               a.compute, a.conv, a.nconv, (long long)a.conv_words, a.io,
               (long long)a.io_words, a.total);
    buf_printf(out, "naive fixed layout: compute %.0f, conversions %.0f "
               "(%d, %lld lw), DRAM in/out %.0f (%lld lw): %.0f cycles\n",
               n.compute, n.conv, n.nconv, (long long)n.conv_words, n.io,
               (long long)n.io_words, n.total);
    if (a.program >= 0) {
        put_program(out, a.route, &a.timing);
        if (p->has_bare)
            buf_printf(out, "; its conversions %lld%s%s",
                       (long long)a.program_conv,
                       p->conv_what ? ": " : "",
                       p->conv_what ? p->conv_what : "");
        buf_puts(out, ")\n");
        buf_printf(out, "model: %.0f cycles", a.model);
        if (a.model_parts)
            buf_printf(out, " (compute %.0f, conversions %.0f, DRAM "
                       "in/out %.0f)", a.model_compute, a.model_conv,
                       a.model_io);
        buf_printf(out, " for %s, %.2fx of the program\n", a.model_of,
                   a.model / (double)(a.program > 0 ? a.program : 1));
    } else if (p->has_seg) {
        const AccPlanSeg *g = &p->seg;
        double est = g->est_seg + g->est_conv;
        buf_printf(out, "program: %d segments in one program (no one route "
                   "compiles this kernel for these sizes), timed as the "
                   "simulator times them: %lld cycles (the segments "
                   "alone %lld, its %d conversions %lld; %d of %d inputs "
                   "laid out by the host)\n", g->n, (long long)g->cycles,
                   (long long)g->bare_cycles, g->nconv,
                   (long long)(g->cycles - g->bare_cycles), g->nhost,
                   p->k->ninputs);
        buf_printf(out, "model: %.0f cycles (the segments' route models "
                   "%.0f%s, conversions %.0f, of which the inputs' into "
                   "later routes' images %.0f), %.2fx of the program\n",
                   est, g->est_seg, g->nomodel ? " with the text model of "
                   "those without one" : "", g->est_conv, g->est_in,
                   est / (double)(g->cycles > 0 ? g->cycles : 1));
    } else {
        buf_puts(out, "program: none (no route of code generation "
                 "compiles this kernel for these sizes)\n");
    }
    buf_printf(out, "search: %d round%s of improvement\n", p->iterations,
               p->iterations == 1 ? "" : "s");
}
