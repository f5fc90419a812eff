/*
 * dist.c - what `distribute` means on the accel target (lang/SPEC.md
 * 10.6): a stage's `distribute(v, [L2B, PE])` deals v's iterations in
 * contiguous blocks over the listed levels, which for the routes that
 * follow it is where the stage's result elements are computed: the
 * compact layout [v@L2B, v@PE] of the stage's output (its other
 * distributes added, outermost first; levels no distribute names stay
 * idle, holding position 0).  `W` and `S` deal iterations over the
 * sub-words of a long word and the sub-cycle lanes of a step, as in a
 * compact layout.
 *
 * Checked twice: the level names and their repetition once the program
 * is checked (acc_dist_check_schedule, with the machine of --machine),
 * the loop variable and the sizes when a call is compiled
 * (acc_dist_stage).  The matmul route reads its distributes as the
 * split of its work (cg_mm_dist.c); the layout route (cg_red_lay.c)
 * reads a reduction's distributes itself, reduced variables included.
 */
#include "codegen/acc/layout.h"

#include <string.h>

const TlSchedInfo *acc_sched_accel(const TlKernelInfo *k)
{
    for (int i = 0; k && i < k->nschedules; i++) {
        const TlSchedInfo *si = k->schedules[i];
        if (si->target && !strcmp(si->target, "accel") && !si->variant)
            return si;
    }
    return NULL;
}

/* Whether name is a level of m or a lane kind a compact layout takes
 * (`W`, `S`). */
static int known_level(const AccMachine *m, const char *name)
{
    return !strcmp(name, "W") || !strcmp(name, "S") ||
           acc_level_index(m, name) >= 0;
}

static const char *level_names(TlSession *s, const AccMachine *m)
{
    TlBuf b;
    const char *res;

    buf_init(&b);
    for (int i = 0; i < m->nlevels; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", m->level[i].name);
    res = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return res;
}

const char *acc_dist_what(TlSession *s, const TlSchedDir *d)
{
    TlBuf b;
    const char *res;

    buf_init(&b);
    buf_printf(&b, "`distribute(%s, [",
               d->nargs > 0 && d->args[0].var ? d->args[0].var->name : "?");
    for (int j = 0; d->nargs > 1 && j < d->args[1].nitems; j++)
        buf_printf(&b, "%s%s", j ? ", " : "", d->args[1].items[j].name);
    buf_puts(&b, "])`");
    res = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return res;
}

/* The next `distribute` of stage f's own chains after position (*c,
 * *i), or NULL; start with *c = 0, *i = -1.  Both the check and the
 * builder walk the directives through this, in the schedule's order. */
static const TlSchedDir *next_dist(const TlSchedInfo *si, const TlFunc *f,
                                   int *c, int *i)
{
    for (; *c < si->nchains; (*c)++, *i = -1) {
        const TlSchedChain *ch = si->chains[*c];
        if (ch->func != f || ch->npath)
            continue;
        while (++*i < ch->ndirs) {
            const TlSchedDir *d = &ch->dirs[*i];
            if (d->kind == SD_DISTRIBUTE && d->nargs >= 2)
                return d;
        }
    }
    return NULL;
}

/* Where a distribute's level name puts iterations: a level of m, or
 * the sub-cycle lanes (`S`) or sub-words (`W`). */
static int dist_level(const AccMachine *m, const char *name)
{
    int lv = acc_level_index(m, name);
    return lv >= 0 ? lv : !strcmp(name, "S") ? ACC_DIST_S : ACC_DIST_W;
}

/* Every level of every distribute of stage f's chains: known to m,
 * named once.  The number of errors reported. */
static int check_stage(TlSession *s, const AccMachine *m,
                       const TlSchedInfo *si, const TlFunc *f)
{
    const char *seen[2 * ACC_MAX_LEVELS + 4];
    const TlSchedDir *d;
    int nseen = 0, errors = 0, c = 0, i = -1;

    while ((d = next_dist(si, f, &c, &i))) {
        for (int j = 0; j < d->args[1].nitems; j++) {
            const TlSchedArg *a = &d->args[1].items[j];
            TlLoc at = a->expr ? a->expr->loc : d->loc;
            int twice = 0;
            if (!a->name)
                continue;
            if (!known_level(m, a->name)) {
                diag_error(s, at, DIAG_LAYOUT_LEVEL, m->name, a->name,
                           level_names(s, m));
                errors++;
                continue;
            }
            for (int k = 0; k < nseen; k++)
                twice |= !strcmp(seen[k], a->name);
            if (twice) {
                diag_error(s, at, DIAG_DIST_LEVEL_TWICE, a->name, f->name);
                errors++;
            } else if (nseen < (int)(sizeof seen / sizeof *seen)) {
                seen[nseen++] = a->name;
            }
        }
    }
    return errors;
}

int acc_dist_check_schedule(TlSession *s, const TlSchedInfo *si,
                            const AccMachine *m)
{
    const TlFunc *done[64];
    int ndone = 0, errors = 0;

    for (int c = 0; c < si->nchains; c++) {
        const TlFunc *f = si->chains[c]->func;
        int seen = 0;
        for (int k = 0; k < ndone; k++)
            seen |= done[k] == f;
        if (seen || !f)
            continue;
        if (ndone < 64)
            done[ndone++] = f;
        errors += check_stage(s, m, si, f);
    }
    return errors;
}

/* Whether v is a variable f reduces over. */
static int reduces_over(const TlFunc *f, const TlVar *v)
{
    for (int r = 0; v && r < f->nreds; r++)
        for (int j = 0; j < f->reds[r]->nrvars; j++)
            if (f->reds[r]->rvars[j] == v ||
                !strcmp(f->reds[r]->rvars[j]->name, v->name))
                return 1;
    return 0;
}

/* The axis of f that v indexes, or -1. */
static int axis_of(const TlFunc *f, const TlVar *v)
{
    for (int a = 0; v && a < f->rank; a++)
        if (f->axes && f->axes[a].var &&
            (f->axes[a].var == v || !strcmp(f->axes[a].var->name, v->name)))
            return a;
    return -1;
}

int acc_dist_stage(TlSession *s, const AccMachine *m, const TlSchedInfo *si,
                   const TlFunc *f, const int64_t *shape, AccDist *out)
{
    const char **names;
    const TlSchedDir *d;
    int64_t per[ACC_LAYOUT_MAX_RANK];
    int c = 0, i = -1;
    TlBuf b;

    memset(out, 0, sizeof *out);
    if (!si || !f || f->rank > ACC_LAYOUT_MAX_RANK)
        return 0;
    if (check_stage(s, m, si, f))
        return -1;
    for (int a = 0; a < f->rank; a++)
        per[a] = 1;
    names = acc_layout_axis_names(s, f);
    buf_init(&b);
    buf_putc(&b, '[');
    while ((d = next_dist(si, f, &c, &i))) {
        int ax;
        if (!out->first) {
            out->first = d;
            out->what = acc_dist_what(s, d);
        }
        ax = axis_of(f, d->args[0].var);
        if (ax < 0 && reduces_over(f, d->args[0].var)) {
            /* A reduced variable: the routes that reduce check it
             * themselves (cg_red_lay.c), the planner deals that
             * variable; not part of the result's layout. */
            for (int j = 0; j < d->args[1].nitems; j++) {
                if (out->n < ACC_DIST_MAX) {
                    out->axis[out->n] = -1;
                    out->var[out->n] = d->args[0].var;
                    out->level[out->n] =
                        dist_level(m, d->args[1].items[j].name);
                    out->n++;
                }
            }
            continue;
        }
        if (ax < 0) {
            diag_error(s, d->loc, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&s->arena, "%s of stage '%s', whose "
                                    "loop '%s' is not an axis of its "
                                    "result (accel deals the stage's own "
                                    "index variables)",
                                    acc_dist_what(s, d), f->name,
                                    d->args[0].var
                                        ? d->args[0].var->name : "?"));
            buf_free(&b);
            return -1;
        }
        for (int j = 0; j < d->args[1].nitems; j++) {
            const char *ln = d->args[1].items[j].name;
            int lv = dist_level(m, ln);
            int64_t n = lv >= 0 ? m->level[lv].fanout
                        : lv == ACC_DIST_S ? 4
                        : f->dtype == DT_F16 || f->dtype == DT_BF16 ? 4
                        : f->dtype == DT_F64 ? 1 : 2;
            per[ax] *= n;
            if (out->n < ACC_DIST_MAX) {
                out->axis[out->n] = ax;
                out->var[out->n] = d->args[0].var;
                out->level[out->n] = lv;
                out->n++;
            }
            buf_printf(&b, "%s%s@%s", b.len > 1 ? ", " : "", names[ax], ln);
        }
        if (shape && shape[ax] >= 0 && shape[ax] % per[ax]) {
            diag_error(s, d->loc, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&s->arena, "%s of stage '%s' over "
                                    "%lld iterations, not a multiple of "
                                    "the %lld places it deals them to,",
                                    acc_dist_what(s, d), f->name,
                                    (long long)shape[ax],
                                    (long long)per[ax]));
            buf_free(&b);
            return -1;
        }
    }
    buf_putc(&b, ']');
    if (out->first)
        out->text = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return out->first ? 1 : 0;
}
