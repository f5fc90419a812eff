/*
 * layout_sched.c - the `layout` statements of accel schedules
 * (lang/SPEC.md 10.7), checked against a machine once the program has
 * been checked: the language knows their syntax and that they name a
 * tensor of the kernel; only a machine says whether the levels exist,
 * fit their fan-outs and give every element its own place.
 *
 * Kernel shapes are often symbolic (`A: f32[M, K]`).  A canonical
 * layout fixes its axes' sizes, so a size variable gets its value from
 * the first canonical layout that covers it, and every other layout in
 * the same schedule must agree.  A compact layout takes its sizes from
 * the shape; when one stays unknown, it cannot be checked before the
 * kernel is called, and is left to that time (TODO(issue 6): check it
 * when the accel target compiles a call with known sizes).
 */
#include "codegen/acc/layout.h"

#include <string.h>

/* ====================================================================
 * Axis names
 * ==================================================================== */

/* Finds a read of f by plain index variables in e; fills names. */
static int find_read(const TlExpr *e, const TlFunc *f, const char **names)
{
    if (!e)
        return 0;
    if (e->kind == EX_INDEX && tl_ref_kind(e->sym) == REF_READ &&
        ((const TlRead *)e->sym)->func == f && e->args.n == f->rank) {
        int ok = 1;
        for (int i = 0; i < e->args.n && ok; i++) {
            const TlExpr *x = e->args.v[i];
            ok = x && x->kind == EX_NAME && tl_ref_kind(x->sym) == REF_VAR;
        }
        if (ok) {
            for (int i = 0; i < e->args.n; i++)
                names[i] = e->args.v[i]->str;
            return 1;
        }
    }
    if (find_read(e->a, f, names) || find_read(e->b, f, names) ||
        find_read(e->c, f, names))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (find_read(e->args.v[i], f, names))
            return 1;
    return 0;
}

const char **acc_layout_axis_names(TlSession *s, const TlFunc *f)
{
    const char **names = arena_alloc(&s->arena, (size_t)(f->rank + 1) *
                                                    sizeof *names);
    const TlKernelInfo *k = f->kernel;
    int found = 1;

    for (int a = 0; a < f->rank; a++) {
        names[a] = f->axes && f->axes[a].var ? f->axes[a].var->name : NULL;
        found &= names[a] != NULL;
    }
    for (int i = 0; !found && k && i < k->nfuncs; i++)
        found = find_read(k->funcs[i]->value, f, names);
    for (int a = 0; a < f->rank; a++)
        if (!names[a])
            names[a] = "?";
    return names;
}

/* ====================================================================
 * Sizes
 * ==================================================================== */

typedef struct Bind {
    const TlVar *var;
    int64_t value;
    const char *by;     /* the tensor whose layout gave it */
} Bind;

typedef struct Sx {
    TlSession *s;
    const AccMachine *m;
    Bind bind[64];
    int nbind;
} Sx;

/* The size variable e is, or NULL. */
static const TlVar *size_var(const TlSymExpr *e)
{
    if (!e || e->c != 0 || e->n != 1 || e->t[0].coef != 1 ||
        e->t[0].atom->kind != SYM_VAR)
        return NULL;
    return e->t[0].atom->var;
}

static Bind *bound(Sx *x, const TlVar *v)
{
    for (int i = 0; i < x->nbind; i++)
        if (x->bind[i].var == v)
            return &x->bind[i];
    return NULL;
}

static TlLoc axis_span(const TlFactorList *l)
{
    return loc_span(l->v[0].loc, l->v[l->n - 1].loc);
}

/* A canonical layout's axis sizes bind the size variables they stand
 * for. */
static void bind(Sx *x, const TlSchedLayout *sl, int report)
{
    const TlLayout *l = sl->layout;
    const TlFunc *f = sl->func;

    if (l->form != LAYOUT_CANONICAL || l->axes.n != f->rank)
        return;
    for (int a = 0; a < f->rank; a++) {
        const TlVar *v = size_var(f->axes[a].extent);
        int64_t p = 1;
        Bind *b;
        if (!v || !l->axes.v[a].n)
            continue;
        for (int i = 0; i < l->axes.v[a].n; i++)
            p *= l->axes.v[a].v[i].n > 0 ? l->axes.v[a].v[i].n : 1;
        b = bound(x, v);
        if (b && b->value != p) {
            if (report)
                    diag_error(x->s, axis_span(&l->axes.v[a]),
                           DIAG_LAYOUT_SIZE_CONFLICT, v->name,
                           (long long)p, b->by, (long long)b->value);
        } else if (!b && x->nbind < 64) {
            x->bind[x->nbind++] = (Bind){v, p, f->name};
        }
    }
}

static void bind_sizes(Sx *x, const TlSchedLayout *sl)
{
    bind(x, sl, 1);
}

static void bind_quiet(Sx *x, const TlSchedLayout *sl)
{
    bind(x, sl, 0);
}

static void check_one(Sx *x, const TlSchedLayout *sl)
{
    const TlFunc *f = sl->func;
    const TlLayout *l = sl->layout;
    AccLayoutReq r;

    if (!f || f->dtype == DT_NONE || f->rank < 0 ||
        f->rank > ACC_LAYOUT_MAX_RANK)
        return;
    memset(&r, 0, sizeof r);
    r.m = x->m;
    r.dtype = f->dtype;
    r.rank = f->rank;
    r.axis_names = acc_layout_axis_names(x->s, f);
    r.tensor = f->name;
    r.where = sl->stmt->name_loc;
    r.place_loc = r.where;
    for (int a = 0; a < f->rank; a++) {
        int64_t c;
        const TlVar *v = size_var(f->axes[a].extent);
        const Bind *b = v ? bound(x, v) : NULL;
        /* A canonical layout fixes its own symbolic sizes (bind_sizes
         * has compared them with the other layouts'). */
        if (tl_sym_const(f->axes[a].extent, &c))
            r.shape[a] = c;
        else if (l->form == LAYOUT_CANONICAL)
            r.shape[a] = -1;
        else if (b)
            r.shape[a] = b->value;
        else
            return;     /* known only when called */
    }
    if (f->rank == 0 && l->form == LAYOUT_COMPACT)
        return;
    acc_layout_check(x->s, l, &r);
}

int acc_layout_check_program(TlSession *s, TlProgram *prog,
                             const AccMachine *m)
{
    int before = s->nerrors;

    for (int i = 0; prog && i < prog->items.n; i++) {
        TlItem *it = prog->items.v[i];
        const TlSchedInfo *si;
        Sx x;
        if (!it || it->kind != IT_SCHEDULE ||
            tl_ref_kind(it->sym) != REF_SCHEDULE)
            continue;
        si = it->sym;
        if (!si->target || strcmp(si->target, "accel") != 0 ||
            !si->kernel || si->kernel->generic)
            continue;
        memset(&x, 0, sizeof x);
        x.s = s;
        x.m = m;
        for (int j = 0; j < si->nlayouts; j++)
            if (si->layouts[j]->func)
                bind_sizes(&x, si->layouts[j]);
        for (int j = 0; j < si->nlayouts; j++)
            check_one(&x, si->layouts[j]);
        acc_dist_check_schedule(s, si, m);
    }
    return s->nerrors - before;
}

void acc_layout_known_shape(TlSession *s, const TlSchedInfo *si,
                            const TlFunc *f, int64_t *shape)
{
    Sx x;

    memset(&x, 0, sizeof x);
    x.s = s;
    /* Conflicts were reported when the program was checked. */
    for (int j = 0; si && j < si->nlayouts; j++)
        if (si->layouts[j]->func)
            bind_quiet(&x, si->layouts[j]);
    for (int a = 0; a < f->rank && a < ACC_LAYOUT_MAX_RANK; a++) {
        int64_t c;
        const TlVar *v = size_var(f->axes[a].extent);
        const Bind *b = v ? bound(&x, v) : NULL;
        shape[a] = tl_sym_const(f->axes[a].extent, &c) ? c
                   : b                                 ? b->value
                                                       : -1;
    }
}
