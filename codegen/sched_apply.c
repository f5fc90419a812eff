/*
 * sched_apply.c - schedule directives applied to a stage's loop nest
 * (STYLE.md rule 24: each primitive checks what it needs, then
 * transforms).  The nest (CgNest, cgc.h) starts as the stage's default
 * loops, one per axis; split, tile, fuse, reorder, parallel, unroll
 * and vectorize rewrite it, compute_root is the default, and
 * compute_inline marks the stage for substitution into its readers.
 * A replaced loop variable is defined again, at the top of the body,
 * from the loops that replaced it.  Everything else is refused with
 * an error at the directive.  compute_at is recorded here and placed
 * by lower.c, and so is store_at (lower_bounds.c).  Loops over
 * reduction variables may be split, reordered among pure loops and
 * unrolled, but stay serial and in the order written, so each element
 * accumulates in the same order as the interpreter.  Stages of inlined
 * kernel calls take the directives of the outermost schedule that
 * names them.  bound fixes a loop's extent (lower.c checks it);
 * rfactor turns a reduction loop into a pure one over partial results
 * (lower_stage.c); reorder_storage orders a buffer's strides
 * (cg_sched_storage, used where buffers are made); the tail
 * strategies are in `split`.
 */
#include "codegen/c/cgc.h"

#include <string.h>

typedef struct Ap {
    TlSession *s;
    TlFunc *f;
    CgNest *n;
    const TlSchedDir *d;
    int np;             /* the stage is inside this many kernel calls */
} Ap;

static int refuse(Ap *a, const char *what)
{
    diag_error(a->s, a->d->loc, DIAG_CG_UNSUPPORTED, what);
    return -1;
}

static int find(Ap *a, const TlVar *v)
{
    for (int i = 0; i < a->n->nloops; i++)
        if (a->n->loops[i].tv == v)
            return i;
    return -1;
}

/* The loop a `v` argument names, or -1 after reporting. */
static int loop_arg(Ap *a, const TlSchedArg *arg)
{
    int i;

    if (arg->kind != SARG_VAR || !arg->var)
        return refuse(a, arena_printf(&a->s->arena, "this argument of "
                                      "'%s'", a->d->name));
    i = find(a, arg->var);
    if (i < 0)
        return refuse(a, arena_printf(&a->s->arena, "'%s' of '%s' here",
                                      a->d->name, arg->var->name));
    return i;
}

static LVar *new_var(Ap *a, const char *name)
{
    return lir_var(a->s, arena_printf(&a->s->arena,
                                  "%s.%s.l%d", a->f->name, name,
                                  ++a->n->uniq),
                   lir_type(DT_I32, 1));
}

static void define(Ap *a, LVar *v, LExpr *val)
{
    CgNest *n = a->n;

    TL_ASSERT(n->ndefs < 3 * CG_MAX_LOOPS);
    n->defvar[n->ndefs] = v;
    n->defval[n->ndefs] = val;
    n->ndefs++;
}

static LExpr *i32c(Ap *a, int64_t v)
{
    return lir_int(a->s, DT_I32, v);
}

/* Tail strategies of split and tile (SPEC 10.3). */
enum { TAIL_GUARD, TAIL_SHIFT, TAIL_ROUND };

/* Split step by step:
 *   1. loop i (extent E) must exist and the nest have room;
 *   2. i becomes outer (extent ceil(E / f)) and inner (extent f), inner
 *      right inside outer;
 *   3. i's variable is defined as outer * f + inner, guarded by
 *      i < E unless f divides E (TAIL_GUARD); or the last block moves
 *      back to end at E, max(min(outer * f, E - f), 0) + inner, with
 *      the guard only when E may be below f (TAIL_SHIFT); or no guard
 *      at all, the stage's buffer padded to a multiple of f and its
 *      reads clamped into the domain (TAIL_ROUND, lower_stage.c).
 * Preserves: every other loop, their order, and the iterations run
 * (TAIL_SHIFT runs some twice, TAIL_ROUND some past the end). */
static int split(Ap *a, int i, const TlVar *outer, const char *oname,
                 const TlVar *inner, const char *iname, int64_t f, int tail)
{
    CgNest *n = a->n;
    CgLoop old = n->loops[i];
    LExpr *e = old.extent, *fe = i32c(a, f), *val;
    LExpr *ce = lir_simplify_expr(a->s, e);

    if (n->nloops >= CG_MAX_LOOPS || f <= 0 || f > INT32_MAX)
        return refuse(a, "a split this deep or by this factor");
    memmove(&n->loops[i + 2], &n->loops[i + 1],
            (size_t)(n->nloops - i - 1) * sizeof n->loops[0]);
    n->nloops++;
    n->loops[i].tv = outer;
    n->loops[i].lv = new_var(a, oname);
    n->loops[i].extent = lir_binary(a->s, LO_DIV, lir_binary(a->s, LO_ADD,
                                    e, i32c(a, f - 1)), fe);
    n->loops[i].kind = LP_SERIAL;
    n->loops[i].width = 0;
    n->loops[i].rkey = old.rkey ? arena_printf(&a->s->arena, "%sa",
                                               old.rkey) : NULL;
    n->loops[i + 1].rkey = old.rkey ? arena_printf(&a->s->arena, "%sb",
                                                   old.rkey) : NULL;
    n->loops[i + 1].tv = inner;
    n->loops[i + 1].lv = new_var(a, iname);
    n->loops[i + 1].extent = fe;
    n->loops[i + 1].kind = LP_SERIAL;
    n->loops[i + 1].width = 0;
    val = lir_binary(a->s, LO_MUL, lir_ref(a->s, n->loops[i].lv), fe);
    if (tail == TAIL_SHIFT)
        val = lir_binary(a->s, LO_MAX, lir_binary(a->s, LO_MIN, val,
                         lir_binary(a->s, LO_SUB, e, fe)), i32c(a, 0));
    val = lir_binary(a->s, LO_ADD, val, lir_ref(a->s, n->loops[i + 1].lv));
    define(a, old.lv, val);
    if (tail == TAIL_ROUND) {
        for (int j = 0; j < a->f->rank; j++)
            if (n->defvar[j] == old.lv)
                n->rup[j] = f;
    } else if (!(ce->kind == LE_INT && ce->ival % f == 0) &&
               !(tail == TAIL_SHIFT && ce->kind == LE_INT &&
                 ce->ival >= f)) {
        TL_ASSERT(n->nguards < CG_MAX_LOOPS);
        n->guards[n->nguards++] = lir_binary(a->s, LO_LT,
                                             lir_ref(a->s, old.lv), e);
    }
    return 0;
}

static int tail_error(Ap *a, const char *name, const char *why)
{
    diag_error(a->s, a->d->loc, DIAG_CG_TAIL, name, why);
    return -1;
}

/* The tail strategy of argument arg for splitting loop i (arg NULL:
 * the default), or -1 after reporting why it does not apply. */
static int tail_of(Ap *a, const TlSchedArg *arg, int i)
{
    const char *t = arg && arg->kind == SARG_NAME ? arg->name : NULL;
    CgNest *n = a->n;
    int j = 0;

    if (!t || !strcmp(t, "guard_with_if"))
        return TAIL_GUARD;
    if (!strcmp(t, "shift_inwards")) {
        if (n->nrv)
            return tail_error(a, t, "this nest accumulates a reduction, "
                              "and the elements the shifted last block "
                              "computes again would be added twice");
        return TAIL_SHIFT;
    }
    if (strcmp(t, "round_up"))
        return refuse(a, arena_printf(&a->s->arena, "the tail strategy "
                                      "'%s'", t));
    if (a->f->kind != FN_STAGE || n->call_out)
        return tail_error(a, t, arena_printf(&a->s->arena, "'%s' is not "
                          "an intermediate of this kernel, so its buffer "
                          "is not one the kernel allocates and may pad",
                          a->f->name));
    if (n->nrv)
        return tail_error(a, t, "this nest accumulates a reduction into "
                          "the buffer, which has no identity past the end");
    while (j < a->f->rank && n->defvar[j] != n->loops[i].lv)
        j++;
    if (j == a->f->rank)
        return refuse(a, "'round_up' of a loop other than an index "
                      "variable's own");
    return TAIL_ROUND;
}

static int do_split(Ap *a)
{
    const TlSchedArg *g = a->d->args;
    int i = loop_arg(a, &g[0]), t;

    if (i < 0 || (t = tail_of(a, a->d->nargs > 4 ? &g[4] : NULL, i)) < 0)
        return -1;
    return split(a, i, g[1].var, g[1].var->name, g[2].var, g[2].var->name,
                 g[3].ival, t);
}

/* Fuse: a and b (directly inside a) become one loop over a's and b's
 * iterations, in the same order. */
static int do_fuse(Ap *a)
{
    const TlSchedArg *g = a->d->args;
    CgNest *n = a->n;
    int i = loop_arg(a, &g[0]), j;
    CgLoop lo, li;
    LExpr *ei;

    if (i < 0 || (j = loop_arg(a, &g[1])) < 0)
        return -1;
    if (j != i + 1)
        return refuse(a, "'fuse' of loops that are not directly nested");
    if (n->loops[i].rkey || n->loops[j].rkey)
        return refuse(a, "'fuse' of a reduction variable");
    lo = n->loops[i];
    li = n->loops[j];
    ei = li.extent;
    n->loops[i].tv = g[2].var;
    n->loops[i].lv = new_var(a, g[2].var->name);
    n->loops[i].extent = lir_binary(a->s, LO_MUL, lo.extent, ei);
    n->loops[i].kind = LP_SERIAL;
    n->loops[i].width = 0;
    memmove(&n->loops[j], &n->loops[j + 1],
            (size_t)(n->nloops - j - 1) * sizeof n->loops[0]);
    n->nloops--;
    define(a, lo.lv, lir_binary(a->s, LO_DIV, lir_ref(a->s,
                                n->loops[i].lv), ei));
    define(a, li.lv, lir_binary(a->s, LO_MOD, lir_ref(a->s,
                                n->loops[i].lv), ei));
    return 0;
}

/* Reorder: the listed loops take the positions they held, sorted, in
 * the order listed. */
static int reorder(Ap *a, const TlSchedArg *g, int m)
{
    int pos[CG_MAX_LOOPS];
    CgLoop l[CG_MAX_LOOPS];

    if (m > CG_MAX_LOOPS)
        return refuse(a, "'reorder' of this many loops");
    for (int i = 0; i < m; i++) {
        if ((pos[i] = loop_arg(a, &g[i])) < 0)
            return -1;
        l[i] = a->n->loops[pos[i]];
    }
    for (int i = 1; i < m; i++)     /* sort the positions */
        for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
            int t = pos[j];
            pos[j] = pos[j - 1];
            pos[j - 1] = t;
        }
    for (int i = 0; i < m; i++)
        a->n->loops[pos[i]] = l[i];
    return 0;
}

static int do_tile(Ap *a)
{
    const TlSchedArg *g = a->d->args;
    const TlSchedArg *tl = a->d->nargs > 8 ? &g[8] : NULL;
    TlSchedArg order[4];
    int i, t;

    if ((i = loop_arg(a, &g[0])) < 0 || (t = tail_of(a, tl, i)) < 0 ||
        split(a, i, g[2].var, g[2].var->name, g[4].var, g[4].var->name,
              g[6].ival, t) ||
        (i = loop_arg(a, &g[1])) < 0 || (t = tail_of(a, tl, i)) < 0 ||
        split(a, i, g[3].var, g[3].var->name, g[5].var, g[5].var->name,
              g[7].ival, t))
        return -1;
    order[0] = g[2];
    order[1] = g[3];
    order[2] = g[4];
    order[3] = g[5];
    return reorder(a, order, 4);
}

/* vectorize, unroll, parallel: mark a loop; with a factor (vectorize,
 * unroll), split it first and mark the inner part. */
static int mark(Ap *a, LLoopKind kind)
{
    const TlSchedArg *g = a->d->args;
    int i = loop_arg(a, &g[0]);
    int64_t w = 0, c;
    LExpr *e;

    if (i < 0)
        return -1;
    /* parallel(v, n): n iterations a chunk, kept in the loop's width
     * for the backend's schedule clause (OpenMP's chunk is an int). */
    if (kind == LP_PARALLEL && a->d->nargs > 1) {
        if (g[1].kind != SARG_INT || g[1].ival > INT32_MAX)
            return refuse(a, arena_printf(&a->s->arena, "'parallel' with "
                                          "a chunk above %d", INT32_MAX));
        w = g[1].ival;
    }
    if (a->n->loops[i].rkey && kind != LP_UNROLLED) {
        diag_error(a->s, a->d->loc, DIAG_CG_RVAR_SERIAL, a->d->name,
                   g[0].var->name);
        return -1;
    }
    if (a->d->nargs > 1 && kind != LP_PARALLEL) {
        if (g[1].kind != SARG_INT)
            return refuse(a, arena_printf(&a->s->arena, "'%s' with this "
                                          "width", a->d->name));
        w = g[1].ival;
        if (kind == LP_VECTORIZED && (w < 2 || w > 64 || (w & (w - 1)))) {
            diag_error(a->s, a->d->loc, DIAG_CG_VECTOR_WIDTH, a->d->name,
                       (long long)w, 64);
            return -1;
        }
        if (split(a, i, g[0].var, g[0].var->name, NULL, "in", w,
                  TAIL_GUARD))
            return -1;
        i++;
    }
    e = lir_simplify_expr(a->s, a->n->loops[i].extent);
    c = e->kind == LE_INT ? e->ival : -1;
    if ((kind == LP_UNROLLED || kind == LP_VECTORIZED) && c < 0) {
        diag_error(a->s, a->d->loc, DIAG_CG_CONST_EXTENT, a->d->name,
                   g[0].var->name);
        diag_hint(a->s, "give a factor, '%s(%s, n)', to split it and %s "
                  "the inner n iterations", a->d->name, g[0].var->name,
                  a->d->name);
        return -1;
    }
    if (kind == LP_VECTORIZED) {
        if (c < 1 || c > LIR_MAX_LANES)
            return refuse(a, "'vectorize' of a loop this long");
        a->n->loops[i].width = (int)c;
    }
    if (kind == LP_PARALLEL)
        a->n->loops[i].width = (int)w;
    a->n->loops[i].kind = kind;
    return 0;
}

/* An `e` argument: its value when it is a constant (1), else 0. */
static int arg_const(const TlSchedArg *g, int64_t *v)
{
    if (g->kind == SARG_INT) {
        *v = g->ival;
        return 1;
    }
    return g->kind == SARG_EXPR && g->sym && tl_sym_const(g->sym, v);
}

static LExpr *arg_lower(Ap *a, const TlSchedArg *g)
{
    if (g->kind == SARG_INT)
        return i32c(a, g->ival);
    return a->n->sym_lower(a->n->sym_ctx, g->sym, a->d->loc);
}

/* bound(x, min, extent), step by step:
 *   1. x is an index variable whose default loop is still there;
 *   2. when the domain and the bound are both constants, they agree
 *      (else the error is here, not at run time);
 *   3. the loop runs over the bound's extent and x starts at its min,
 *      so that later directives see constants; lower.c checks the
 *      domain against the bound before the stage runs. */
static int do_bound(Ap *a)
{
    const TlSchedArg *g = a->d->args;
    const TlFunc *f = a->f;
    CgNest *n = a->n;
    int j = 0, i;
    int64_t dlo, dext, blo, bext;

    while (j < f->rank && f->axes[j].var != g[0].var)
        j++;
    if (j == f->rank || g[0].kind != SARG_VAR ||
        (g[1].kind != SARG_INT && g[1].kind != SARG_EXPR) ||
        (g[2].kind != SARG_INT && g[2].kind != SARG_EXPR))
        return refuse(a, "this 'bound'");
    if (!n->sym_lower || n->call_out || a->np)
        return refuse(a, "'bound' of a stage of a kernel call");
    for (i = 0; i < n->nloops && n->loops[i].lv != n->defvar[j]; i++)
        ;
    if (i == n->nloops) {
        diag_error(a->s, a->d->loc, DIAG_CG_BOUND_AFTER, g[0].var->name);
        return -1;
    }
    if (f->axes[j].lo && f->axes[j].extent &&
        tl_sym_const(f->axes[j].lo, &dlo) &&
        tl_sym_const(f->axes[j].extent, &dext) &&
        arg_const(&g[1], &blo) && arg_const(&g[2], &bext) &&
        (dlo != blo || dext != bext)) {
        diag_error(a->s, a->d->loc, DIAG_CG_BOUND, g[0].var->name, f->name,
                   (long long)blo, (long long)bext, (long long)dlo,
                   (long long)dext);
        return -1;
    }
    n->bmin[j] = arg_lower(a, &g[1]);
    n->bext[j] = arg_lower(a, &g[2]);
    n->bdir[j] = a->d;
    n->loops[i].extent = n->bext[j];
    return 0;
}

/* rfactor(r, v), step by step:
 *   1. r's loop is a reduction loop of the stage's only reduction
 *      (any operation: argmax/argmin combine their partial results'
 *      best values and indices), and nothing is factored yet;
 *   2. the loop becomes the pure loop v (parallel, vectorize may name
 *      it now), and lower_stage.c accumulates into partial results
 *      indexed by it, then combines those in order.
 * Preserves: the loops, their order, the iterations run; the result
 * only up to the reassociation of the reduction. */
static int do_rfactor(Ap *a)
{
    const TlSchedArg *g = a->d->args;
    CgNest *n = a->n;
    int i = loop_arg(a, &g[0]);

    if (i < 0)
        return -1;
    if (!n->loops[i].rkey)      /* the checker lets only those through */
        return refuse(a, "'rfactor' of a loop that is not a reduction "
                      "loop");
    if (n->rf_lv)
        return refuse(a, "a second 'rfactor' of a stage");
    n->rf_lv = n->loops[i].lv;
    n->rf_ext = n->loops[i].extent;
    n->rf_dir = a->d;
    n->loops[i].rkey = NULL;
    n->loops[i].tv = g[1].var;
    return 0;
}

static int apply(Ap *a)
{
    switch (a->d->kind) {
    case SD_SPLIT: return do_split(a);
    case SD_FUSE: return do_fuse(a);
    case SD_REORDER: return reorder(a, a->d->args, a->d->nargs);
    case SD_TILE: return do_tile(a);
    case SD_VECTORIZE: return mark(a, LP_VECTORIZED);
    case SD_UNROLL: return mark(a, LP_UNROLLED);
    case SD_PARALLEL: return mark(a, LP_PARALLEL);
    case SD_BOUND: return do_bound(a);
    case SD_RFACTOR: return do_rfactor(a);
    case SD_COMPUTE_ROOT:
        a->n->at_func = NULL;
        return 0;
    case SD_COMPUTE_AT:
        if (a->d->nargs < 2 || a->d->args[0].kind != SARG_FUNC ||
            a->d->args[1].kind != SARG_VAR || a->f->kind == FN_OUTPUT)
            return refuse(a, "this 'compute_at'");
        a->n->at_func = a->d->args[0].func;
        a->n->at_var = a->d->args[1].var;
        a->n->at_loc = a->d->loc;
        return 0;
    case SD_STREAM:
        /* Applied where the buffer is made (cg_sched_streamed). */
        if (a->f->kind != FN_OUTPUT) {
            diag_error(a->s, a->d->loc, DIAG_CG_STREAM_NOT_OUTPUT,
                       a->f->name);
            return -1;
        }
        return 0;
    case SD_REORDER_STORAGE:
        /* Applied where the buffer is made (cg_sched_storage). */
        if (a->f->kind == FN_OUTPUT) {
            diag_error(a->s, a->d->loc, DIAG_CG_STORAGE_OUTPUT, a->f->name);
            return -1;
        }
        return 0;
    case SD_STORE_AT:
        if (a->d->nargs < 2 || a->d->args[0].kind != SARG_FUNC ||
            a->d->args[1].kind != SARG_VAR)
            return refuse(a, "this 'store_at'");
        a->n->store_dir = a->d;
        a->n->store_func = a->d->args[0].func;
        a->n->store_var = a->d->args[1].var;
        return 0;
    case SD_STORE_ROOT:
        a->n->store_dir = a->d;
        a->n->store_func = NULL;
        a->n->store_var = NULL;
        return 0;
    case SD_COMPUTE_INLINE:
        if ((a->f->kind == FN_OUTPUT && !a->n->call_out) || a->f->nreds)
            return refuse(a, "'compute_inline' of an output or of a stage "
                          "with a reduction");
        a->n->inline_ = 1;
        return 0;
    default:
        return refuse(a, arena_printf(&a->s->arena, "'%s'", a->d->name));
    }
}

/* The loops over reduction variables must still run in the order the
 * variables were written (their keys ascending). */
static int rvar_order(Ap *a)
{
    const char *last = NULL;

    for (int i = 0; i < a->n->nloops; i++) {
        const char *k = a->n->loops[i].rkey;
        if (!k)
            continue;
        if (last && strcmp(last, k) >= 0) {
            diag_error(a->s, a->d->loc, DIAG_CG_RVAR_ORDER, a->d->name);
            return -1;
        }
        last = k;
    }
    return 0;
}

/* OpenMP cannot start threads inside a `simd` loop: a parallel loop
 * must not be nested in a vectorized one. */
static int parallel_in_vector(Ap *a)
{
    int vec = 0;

    for (int i = 0; i < a->n->nloops; i++) {
        if (a->n->loops[i].kind == LP_PARALLEL && vec)
            return refuse(a, "a parallel loop inside a vectorized loop");
        vec |= a->n->loops[i].kind == LP_VECTORIZED;
    }
    return 0;
}

static const TlSchedInfo *cpu_schedule(const TlKernelInfo *k)
{
    for (int i = 0; i < k->nschedules; i++) {
        const TlSchedInfo *si = k->schedules[i];
        if (si->target && !strcmp(si->target, "cpu") && !si->variant)
            return si;
    }
    return NULL;
}

/* The chains for stage f reached through the calls path[0..np-1] of k
 * (inlined kernel calls): those of the outermost kernel whose schedule
 * names f at all, so a caller's schedule replaces the callee's own.
 * Returns how many (at most max). */
static int chains_for(TlKernelInfo *k, TlCall *const *path, int np,
                      const TlFunc *f, const TlSchedChain **out, int max)
{
    for (int lv = 0; lv <= np; lv++) {
        const TlKernelInfo *kk = lv ? path[lv - 1]->callee : k;
        const TlSchedInfo *si = cpu_schedule(kk);
        int n = 0;
        for (int c = 0; si && c < si->nchains; c++) {
            const TlSchedChain *ch = si->chains[c];
            int same = ch->npath == np - lv && ch->func == f;
            for (int i = 0; same && i < ch->npath; i++)
                same = ch->path[i] == path[lv + i];
            if (same && n < max)
                out[n++] = ch;
        }
        if (n)
            return n;
    }
    return 0;
}

/* Whether a directive of k's cpu schedule names f as the stage to
 * compute or store at. */
static int targeted(const TlKernelInfo *k, const TlFunc *f)
{
    const TlSchedInfo *si = cpu_schedule(k);

    for (int c = 0; si && c < si->nchains; c++)
        for (int d = 0; d < si->chains[c]->ndirs; d++) {
            const TlSchedDir *dir = &si->chains[c]->dirs[d];
            for (int g = 0; g < dir->nargs; g++)
                if (dir->args[g].kind == SARG_FUNC &&
                    dir->args[g].func == f)
                    return 1;
        }
    return 0;
}

/* The default for a stage without directives (SPEC 10.4): the
 * innermost index loop vectorized by a vector register's worth of
 * elements (a split with a guarded tail), the outermost loop parallel
 * when the stage has at least CG_PAR_MIN elements (the nest is built
 * twice, lower_stage.c).  Neither changes any result: no reduction is
 * reassociated.  Stages other stages are computed or stored at keep
 * the plain nest, so that the loops those directives name stay. */
static void default_schedule(Ap *a)
{
    CgNest *n = a->n;
    int r = a->f->rank, bytes = dt_size(a->f->dtype);

    if (r < 1 || n->nloops != r || a->f->dtype == DT_BOOL ||
        a->f->dtype == DT_F16 || a->f->dtype == DT_BF16 || bytes < 1)
        return;
    /* Strings have no vector form (pass_vectorize.c keeps their loops
     * scalar): only the parallel loop. */
    if (cg_auto_scalar(a->f) || a->f->dtype == DT_STR ||
        ast_has_str(a->f->value)) {
        n->loops[0].kind = LP_PARALLEL;
        n->loops[0].width = 0;
        n->par_if = 1;
        return;
    }
    if (split(a, r - 1, n->loops[r - 1].tv, n->loops[r - 1].tv ?
              n->loops[r - 1].tv->name : "_", NULL, "in", 32 / bytes,
              TAIL_GUARD))
        return;
    n->loops[r].kind = LP_VECTORIZED;
    n->loops[r].width = 32 / bytes;
    n->loops[0].kind = LP_PARALLEL;
    n->loops[0].width = 0;
    n->par_if = 1;
}

/* The nest that sets a reduction's stage to the identity before its
 * update, or computes the stage from the reduction after it (lower_
 * stage.c): stores of values that need no other element, so ordered
 * as the buffer is stored (the innermost loop over stride 1) and that
 * loop vectorized like the default schedule's.  Not in parallel here:
 * it is memory-bound, and a second (serial) copy of the nest would
 * add to the C that cc compiles for every reduction; lower_stage.c
 * makes it parallel where the update has a parallel loop of its own
 * (no serial copy then).  Before this the identity was stored element
 * by element (strided after a reorder_storage). */
void cg_sched_fill(TlSession *s, TlFunc *f, const int *sorder, CgNest *n)
{
    CgLoop old[TL_MAX_RANK];
    Ap a;
    int r = f->rank, bytes = dt_size(f->dtype);

    if (r < 1 || r > TL_MAX_RANK || n->nloops != r ||
        f->dtype == DT_BOOL || f->dtype == DT_F16 ||
        f->dtype == DT_BF16 || bytes < 1)
        return;
    memcpy(old, n->loops, (size_t)r * sizeof old[0]);
    for (int p = 0; p < r; p++)
        n->loops[p] = old[sorder[p]];
    memset(&a, 0, sizeof a);
    a.s = s;
    a.f = f;
    a.n = n;
    if (split(&a, r - 1, n->loops[r - 1].tv, n->loops[r - 1].tv ?
              n->loops[r - 1].tv->name : "_", NULL, "in", 32 / bytes,
              TAIL_GUARD))
        return;
    n->loops[r].kind = LP_VECTORIZED;
    n->loops[r].width = 32 / bytes;
}

int cg_sched_split(TlSession *s, TlFunc *f, CgNest *n, int i,
                   const char *oname, const char *iname, int64_t fac)
{
    Ap a;

    memset(&a, 0, sizeof a);
    a.s = s;
    a.f = f;
    a.n = n;
    if (n->nloops >= CG_MAX_LOOPS || fac <= 0 || fac > INT32_MAX)
        return -1;
    return split(&a, i, NULL, oname, NULL, iname, fac, TAIL_GUARD);
}

int cg_sched_default(TlKernelInfo *k, TlCall *const *path, int np,
                     const TlFunc *f, int call_out)
{
    const TlSchedChain *chs[1];

    return !np && !call_out && !chains_for(k, path, np, f, chs, 1) &&
           !targeted(k, f);
}

int cg_sched_nest(TlSession *s, TlKernelInfo *k, TlCall *const *path,
                  int np, TlFunc *f, CgNest *n)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);
    Ap a;

    memset(&a, 0, sizeof a);
    a.s = s;
    a.f = f;
    a.n = n;
    a.np = np;
    for (int c = 0; c < nch; c++) {
        const TlSchedChain *ch = chs[c];
        for (int d = 0; d < ch->ndirs; d++) {
            a.d = &ch->dirs[d];
            if (n->inline_ && a.d->kind != SD_COMPUTE_INLINE)
                return refuse(&a, arena_printf(&s->arena, "'%s' after "
                              "'compute_inline'", a.d->name));
            if (apply(&a) || rvar_order(&a) || parallel_in_vector(&a))
                return -1;
        }
    }
    if (n->store_dir && n->store_var &&
        (!n->at_func || n->store_func != n->at_func)) {
        diag_error(s, n->store_dir->loc, DIAG_CG_STORE_AT,
                   n->store_dir->name, f->name, n->at_func ?
                   arena_printf(&s->arena, "a loop of '%s', which computes "
                                "it", n->at_func->name) :
                   "a loop of the stage that computes it ('compute_at' "
                   "names none)");
        return -1;
    }
    if (n->store_dir && !n->at_func)
        n->store_dir = NULL;    /* store_root of a stage computed there */
    for (int j = 0; j < f->rank && n->at_func; j++)
        if (n->rup[j])
            return refuse(&a, "'round_up' of a stage computed at a loop of "
                          "another");
    for (int j = 0; j < f->rank && n->at_func; j++)
        if (n->bdir[j]) {
            a.d = n->bdir[j];
            return refuse(&a, "'bound' of a stage computed at a loop of "
                          "another");
        }
    if (!nch && !np && !n->call_out && !targeted(k, f)) {
        if (cg_auto_inline(k, f))
            n->inline_ = 1;
        else if (!(n->nrv && !cg_auto_tile(s, f, n)))
            default_schedule(&a);
    }
    return 0;
}

int cg_sched_names_rvar(TlKernelInfo *k, TlCall *const *path, int np,
                        const TlFunc *f)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);

    for (int c = 0; c < nch; c++) {
        const TlSchedChain *ch = chs[c];
        for (int d = 0; d < ch->ndirs; d++)
            for (int g = 0; g < ch->dirs[d].nargs; g++) {
                const TlSchedArg *arg = &ch->dirs[d].args[g];
                if (arg->kind != SARG_VAR || !arg->var)
                    continue;
                for (int r = 0; r < f->nreds; r++)
                    for (int v = 0; v < f->reds[r]->nrvars; v++)
                        if (f->reds[r]->rvars[v] == arg->var)
                            return 1;
            }
    }
    return 0;
}

/* round_up: the factor of the split of axis j's own loop. */
int64_t cg_sched_pad(TlKernelInfo *k, TlCall *const *path, int np,
                     const TlFunc *f, int j)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);

    for (int c = 0; c < nch; c++)
        for (int d = 0; d < chs[c]->ndirs; d++) {
            const TlSchedDir *dir = &chs[c]->dirs[d];
            const TlSchedArg *g = dir->args;
            if (dir->kind == SD_SPLIT && dir->nargs > 4 &&
                g[4].kind == SARG_NAME && !strcmp(g[4].name, "round_up") &&
                g[0].var == f->axes[j].var)
                return g[3].ival;
            if (dir->kind == SD_TILE && dir->nargs > 8 &&
                g[8].kind == SARG_NAME && !strcmp(g[8].name, "round_up") &&
                (g[0].var == f->axes[j].var || g[1].var == f->axes[j].var))
                return g[0].var == f->axes[j].var ? g[6].ival : g[7].ival;
        }
    return 1;
}

/* reorder_storage: like reorder, the listed axes take the positions
 * they held, in the order listed. */
void cg_sched_storage(TlKernelInfo *k, TlCall *const *path, int np,
                      const TlFunc *f, int *order)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);

    for (int j = 0; j < f->rank; j++)
        order[j] = j;
    for (int c = 0; c < nch; c++)
        for (int d = 0; d < chs[c]->ndirs; d++) {
            const TlSchedDir *dir = &chs[c]->dirs[d];
            int pos[TL_MAX_RANK], ax[TL_MAX_RANK], m = 0;
            if (dir->kind != SD_REORDER_STORAGE)
                continue;
            for (int g = 0; g < dir->nargs && m < TL_MAX_RANK; g++)
                for (int p = 0; p < f->rank; p++)
                    if (dir->args[g].kind == SARG_VAR &&
                        f->axes[order[p]].var == dir->args[g].var) {
                        pos[m] = p;
                        ax[m++] = order[p];
                    }
            for (int i = 1; i < m; i++)
                for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
                    int t = pos[j];
                    pos[j] = pos[j - 1];
                    pos[j - 1] = t;
                }
            for (int i = 0; i < m; i++)
                order[pos[i]] = ax[i];
        }
}

int cg_sched_streamed(TlKernelInfo *k, const TlFunc *f)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, NULL, 0, f, chs, 64);

    for (int c = 0; c < nch; c++)
        for (int d = 0; d < chs[c]->ndirs; d++)
            if (chs[c]->dirs[d].kind == SD_STREAM)
                return 1;
    return 0;
}

const TlSchedDir *cg_sched_at(TlKernelInfo *k, TlCall *const *path, int np,
                             const TlFunc *f)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);
    const TlSchedDir *at = NULL;

    for (int c = 0; c < nch; c++) {
        const TlSchedChain *ch = chs[c];
        for (int d = 0; d < ch->ndirs; d++)
            if (ch->dirs[d].kind == SD_COMPUTE_AT)
                at = &ch->dirs[d];
            else if (ch->dirs[d].kind == SD_COMPUTE_ROOT)
                at = NULL;
    }
    return at;
}

int cg_sched_call_result(TlSession *s, TlKernelInfo *k, TlCall *const *path,
                         int np, const TlFunc *f)
{
    const TlSchedChain *chs[64];
    int nch = chains_for(k, path, np, f, chs, 64);

    for (int c = 0; c < nch; c++)
        for (int d = 0; d < chs[c]->ndirs; d++) {
            const TlSchedDir *dir = &chs[c]->dirs[d];
            if (dir->kind == SD_COMPUTE_ROOT)
                continue;
            diag_error(s, dir->loc, DIAG_CG_UNSUPPORTED, arena_printf(
                       &s->arena, "'%s' of the result of a kernel call",
                       dir->name));
            return -1;
        }
    return 0;
}

int cg_sched_check(TlSession *s, TlKernelInfo *k)
{
    const TlSchedInfo *si = cpu_schedule(k);
    int n = 0;

    for (int l = 0; si && l < si->nlayouts; l++) {
        diag_error(s, si->layouts[l]->stmt->loc, DIAG_CG_UNSUPPORTED,
                   "'layout'");
        n++;
    }
    return n;
}
