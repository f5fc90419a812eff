/*
 * schedcheck.c - the names in schedules: `schedule K for T`, each
 * directive chain's stage path, directive names and argument shapes,
 * loop variables (including those made by earlier split/tile/fuse/
 * rfactor directives of the same stage, in order), `compute_at`
 * targets and `layout` tensors.  The result is a TlSchedInfo with every
 * reference resolved.  Whether a schedule is legal (parallel over a
 * reduction, ...) is decided later, by the scheduler.
 *
 * A schedule of a generic kernel is checked here only for what does
 * not depend on a binding (stages, directive names, no index pack in
 * a directive); each instance checks a copy of it in full.
 */
#include "lang/lang_int.h"

#include <string.h>

static const struct {
    const char *name, *sig;
} dirs[SD__COUNT] = {
#define X(id, nm, sg) [SD_##id] = {nm, sg},
    TL_DIRECTIVES(X)
#undef X
};

/* How each directive is written, for hints. */
static const char *const usage[SD__COUNT] = {
    [SD_SPLIT] = "split(v, outer, inner, factor[, tail])",
    [SD_FUSE] = "fuse(a, b, fused)",
    [SD_REORDER] = "reorder(v1, v2, ...)",
    [SD_TILE] = "tile(x, y, xo, yo, xi, yi, fx, fy[, tail])",
    [SD_VECTORIZE] = "vectorize(v[, width])",
    [SD_UNROLL] = "unroll(v[, factor])",
    [SD_PARALLEL] = "parallel(v[, chunk])",
    [SD_COMPUTE_AT] = "compute_at(stage, v)",
    [SD_COMPUTE_ROOT] = "compute_root()",
    [SD_COMPUTE_INLINE] = "compute_inline()",
    [SD_STORE_AT] = "store_at(stage, v)",
    [SD_STORE_ROOT] = "store_root()",
    [SD_REORDER_STORAGE] = "reorder_storage(v1, v2, ...)",
    [SD_RFACTOR] = "rfactor(r, v)",
    [SD_BOUND] = "bound(v, min, extent)",
    [SD_STREAM] = "stream()",
    [SD_DISTRIBUTE] = "distribute(v, [level, ...])",
    [SD_GPU_BLOCKS] = "gpu_blocks(v, ...)",
    [SD_GPU_THREADS] = "gpu_threads(v, ...)",
};

/* The loop variables of one stage (reached through one call path) as
 * the schedule so far has made them. */
typedef struct StageVars {
    TlCall **path;
    int npath;
    TlFunc *func;
    TlVec vars;             /* TlVar* */
    TlVec gone;             /* TlDirective* that split/fused it, or NULL */
} StageVars;

typedef struct SCtx {
    Chk *c;
    TlKernelInfo *k;
    TlSchedInfo *info;
    TlVec stages;           /* StageVars* */
    TlVec later;            /* deferred compute_at/store_at: Later* */
    TlVec chains, layouts;  /* for info */
} SCtx;

typedef struct Later {
    TlSchedArg *stage, *var;
    TlCall **path;
    int npath;
    TlFunc *self;
    const char *dir;
} Later;

/* ====================================================================
 * Stages and their variables
 * ==================================================================== */

static Kern *kern_of(TlKernelInfo *k)
{
    return k->priv;
}

static TlFunc *find_func(TlKernelInfo *k, const char *name)
{
    Kern *kc = kern_of(k);

    if (!name)
        return NULL;
    for (int i = 0; kc && i < kc->funcs.n; i++)
        if (!strcmp(((TlFunc *)kc->funcs.v[i])->name, name))
            return kc->funcs.v[i];
    for (int i = 0; i < k->ninputs; i++)
        if (!strcmp(k->inputs[i]->name, name))
            return k->inputs[i];
    for (int i = 0; i < k->noutputs; i++)
        if (!strcmp(k->outputs[i]->name, name))
            return k->outputs[i];
    return NULL;
}

static void suggest_func(Chk *c, TlKernelInfo *k, const char *name)
{
    Scope *sc = rsv_scope(c, NULL, "stages");
    Kern *kc = kern_of(k);
    TlLoc none = {-1, 0, 0, 0, 0};

    for (int i = 0; kc && i < kc->funcs.n; i++)
        rsv_add(c, sc, ((TlFunc *)kc->funcs.v[i])->name, NULL, none);
    for (int i = 0; i < k->noutputs; i++)
        rsv_add(c, sc, k->outputs[i]->name, NULL, none);
    rsv_suggest(c, sc, name, NULL);
}

static StageVars *stage_vars(SCtx *x, TlCall **path, int npath, TlFunc *f)
{
    Chk *c = x->c;
    StageVars *sv;

    for (int i = 0; i < x->stages.n; i++) {
        int same;
        sv = x->stages.v[i];
        same = sv->func == f && sv->npath == npath;
        for (int j = 0; same && j < npath; j++)
            same = sv->path[j] == path[j];
        if (same)
            return sv;
    }
    sv = arena_alloc(c->a, sizeof *sv);
    sv->path = path;
    sv->npath = npath;
    sv->func = f;
    for (int j = 0; j < f->rank; j++)
        if (f->axes[j].var) {
            vec_push(c->a, &sv->vars, f->axes[j].var);
            vec_push(c->a, &sv->gone, NULL);
        }
    for (int r = 0; r < f->nreds; r++)
        for (int j = 0; j < f->reds[r]->nrvars; j++) {
            vec_push(c->a, &sv->vars, f->reds[r]->rvars[j]);
            vec_push(c->a, &sv->gone, NULL);
        }
    vec_push(c->a, &x->stages, sv);
    return sv;
}

static int var_index(StageVars *sv, const char *name)
{
    for (int i = 0; name && i < sv->vars.n; i++)
        if (!strcmp(((TlVar *)sv->vars.v[i])->name, name))
            return i;
    return -1;
}

static void hint_vars(Chk *c, StageVars *sv)
{
    TlBuf b;
    int n = 0;

    buf_init(&b);
    for (int i = 0; i < sv->vars.n; i++)
        if (!sv->gone.v[i]) {
            buf_printf(&b, "%s'%s'", n++ ? ", " : "",
                       ((TlVar *)sv->vars.v[i])->name);
        }
    if (n)
        diag_hint(c->s, "the loop variables of '%s' are %s", sv->func->name,
                  b.s);
    else
        diag_hint(c->s, "'%s' has no loop variables", sv->func->name);
    buf_free(&b);
}

/* ====================================================================
 * Arguments
 * ==================================================================== */

static int positive_int(TlExpr *e, int64_t *v)
{
    if (e && e->kind == EX_INT && e->ival > 0) {
        *v = e->ival;
        return 1;
    }
    return 0;
}

static void arg_kind_error(Chk *c, TlExpr *e, int pos, const char *dir,
                           const char *what)
{
    diag_error(c->s, e->loc, DIAG_SCHED_ARG_KIND, pos, dir, what);
}

/* A loop-variable argument: an existing (v/r/x) or a new (n) one. */
static int var_arg(SCtx *x, StageVars *sv, TlDirective *d, TlExpr *e,
                   int pos, char letter, TlSchedArg *out)
{
    Chk *c = x->c;
    int i;

    if (!e || e->kind != EX_NAME || !e->str) {
        arg_kind_error(c, e, pos, d->name,
                       letter == 'n' ? "a new loop variable name"
                                     : "a loop variable");
        return 0;
    }
    out->kind = SARG_VAR;
    i = var_index(sv, e->str);
    if (letter == 'n') {
        TlVar *v;
        if (i >= 0) {
            diag_error(c->s, e->loc, DIAG_SCHED_VAR_EXISTS, e->str,
                       sv->func->name);
            diag_note(c->s, ((TlVar *)sv->vars.v[i])->loc,
                      "'%s' is introduced here", e->str);
            return 0;
        }
        v = chk_var(c, VAR_LOOP, e->str, e->loc);
        v->func = sv->func;
        vec_push(c->a, &sv->vars, v);
        vec_push(c->a, &sv->gone, NULL);
        out->var = v;
        return 1;
    }
    if (i < 0) {
        diag_error(c->s, e->loc, DIAG_SCHED_UNKNOWN_VAR, e->str,
                   sv->func->name);
        hint_vars(c, sv);
        return 0;
    }
    out->var = sv->vars.v[i];
    /* A loop split off a reduction variable (its `red` set, below)
     * is a reduction loop too. */
    if (letter == 'r' && out->var->kind != VAR_RVAR &&
        !(out->var->kind == VAR_LOOP && out->var->red)) {
        diag_error(c->s, e->loc, DIAG_SCHED_NOT_RVAR, e->str,
                   sv->func->name, d->name);
        return 0;
    }
    if (letter == 'x' && out->var->kind != VAR_INDEX) {
        diag_error(c->s, e->loc, DIAG_SCHED_NOT_INDEX_VAR, e->str,
                   sv->func->name, d->name);
        return 0;
    }
    /* reorder_storage names the stage's axes, which a split of their
     * loops leaves in place (SPEC 10.3): only loops go */
    if (sv->gone.v[i] &&
        !(letter == 'x' && !strcmp(d->name, "reorder_storage"))) {
        TlDirective *by = sv->gone.v[i];
        int split = !strcmp(d->name, "split") || !strcmp(d->name, "tile");
        int was_split = !strcmp(by->name, "split") ||
                        !strcmp(by->name, "tile");
        if (split && was_split && pos <= 2)
            diag_error(c->s, e->loc, DIAG_SCHED_SPLIT_TWICE, e->str,
                       sv->func->name);
        else
            diag_error(c->s, e->loc, DIAG_SCHED_VAR_GONE, e->str,
                       sv->func->name, by->name);
        diag_note(c->s, by->loc, "'%s' is replaced by the new loop "
                  "variables of this '%s'", e->str, by->name);
        return 0;
    }
    return 1;
}

/* Marks the variable of argument a as replaced by directive d. */
static void consume(StageVars *sv, TlSchedArg *a, TlDirective *d)
{
    for (int i = 0; i < sv->vars.n; i++)
        if (a->kind == SARG_VAR && sv->vars.v[i] == a->var)
            sv->gone.v[i] = d;
}

/* A new loop variable `to` made from the loop `from`: a reduction loop
 * when `from` is one. */
static void inherit_red(const TlSchedArg *from, TlSchedArg *to)
{
    if (from->kind == SARG_VAR && from->var && to->kind == SARG_VAR &&
        to->var && to->var->kind == VAR_LOOP &&
        (from->var->kind == VAR_RVAR || from->var->kind == VAR_LOOP))
        to->var->red = from->var->red;
}

static int expr_arg(SCtx *x, TlKernelInfo *k, TlDirective *d, TlExpr *e,
                    int pos, TlSchedArg *out)
{
    Chk *c = x->c;
    Kern *kc = chk_kernel(c, k);    /* lends it this Chk */
    int nerr = c->s->nerrors;

    if (e->kind == EX_INT) {
        out->kind = SARG_INT;
        out->ival = e->ival;
        return 1;
    }
    if (kc && kc->scope) {
        rsv_scalar_expr(kc, e, "a schedule argument");
        if (c->s->nerrors != nerr)
            return 0;
        ty_expr(kc, &e);
        out->sym = shp_sym(c, e, 0);
    }
    if (!out->sym) {
        arg_kind_error(c, e, pos, d->name, "an integer expression of "
                       "sizes and scalar parameters");
        return 0;
    }
    out->kind = SARG_EXPR;
    return 1;
}

/* The signature letter of argument i ('+' repeats the letter before
 * it for all remaining arguments). */
static char sig_letter(const char *sig, int i)
{
    int k = 0;

    for (const char *p = sig; *p; p++) {
        if (*p == '?' || *p == '+')
            continue;
        if (p[1] == '+' || k == i)
            return *p;
        k++;
    }
    return 0;
}

/* Checks the arguments of directive d against its signature. */
static void directive(SCtx *x, StageVars *sv, TlKernelInfo *ck,
                      TlDirective *d, TlSchedDir *out)
{
    Chk *c = x->c;
    const char *sig = dirs[out->kind].sig;
    int min = 0, max = 0, rep = 0;
    TlSchedArg *stage_arg = NULL;

    for (const char *p = sig; *p; p++) {
        if (*p == '?')
            rep = -1;
        else if (*p == '+')
            rep = 1;
        else {
            max++;
            if (rep != -1)
                min++;
        }
    }
    if (d->args.n < min || (rep != 1 && d->args.n > max)) {
        const char *want = rep == 1
            ? arena_printf(c->a, "at least %d argument%s", min,
                           min == 1 ? "" : "s")
            : min == max ? arena_printf(c->a, "%d argument%s", min,
                                        min == 1 ? "" : "s")
                         : arena_printf(c->a, "%d to %d arguments", min,
                                        max);
        diag_error(c->s, d->loc, DIAG_SCHED_ARITY, d->name, want, d->args.n,
                   d->args.n == 1 ? "was" : "were");
        diag_hint(c->s, "write %s", usage[out->kind]);
        return;
    }
    out->args = arena_alloc(c->a, (size_t)(d->args.n + 1) *
                                      sizeof *out->args);
    out->nargs = d->args.n;
    for (int i = 0; i < d->args.n; i++) {
        TlExpr *e = d->args.v[i];
        TlSchedArg *a = &out->args[i];
        char letter = sig_letter(sig, i);
        int64_t v = 0;

        a->expr = e;
        if (!e)
            continue;
        switch (letter) {
        case 'v':
        case 'n':
        case 'r':
        case 'x':
            var_arg(x, sv, d, e, i + 1, letter, a);
            break;
        case 'i':
            if (!positive_int(e, &v))
                arg_kind_error(c, e, i + 1, d->name, "a positive integer");
            a->kind = SARG_INT;
            a->ival = v;
            break;
        case 'e':
            expr_arg(x, ck, d, e, i + 1, a);
            break;
        case 'w':
            if (e->kind == EX_NAME && e->str && !strcmp(e->str, "lane")) {
                a->kind = SARG_NAME;
                a->name = e->str;
            } else if (positive_int(e, &v)) {
                a->kind = SARG_INT;
                a->ival = v;
            } else {
                arg_kind_error(c, e, i + 1, d->name,
                               "a positive integer or 'lane'");
            }
            break;
        case 't':
            if (e->kind != EX_NAME || !e->str ||
                (strcmp(e->str, "guard_with_if") &&
                 strcmp(e->str, "shift_inwards") &&
                 strcmp(e->str, "round_up")))
                arg_kind_error(c, e, i + 1, d->name, "a tail strategy: "
                               "guard_with_if, shift_inwards or round_up");
            a->kind = SARG_NAME;
            a->name = e->str;
            break;
        case 's':
            if (e->kind != EX_NAME || !e->str) {
                arg_kind_error(c, e, i + 1, d->name, "a stage name");
                break;
            }
            a->kind = SARG_FUNC;
            stage_arg = a;
            break;
        case 'u': {
            Later *l = arena_alloc(c->a, sizeof *l);
            l->stage = stage_arg;
            l->var = a;
            l->path = sv->path;
            l->npath = sv->npath;
            l->self = sv->func;
            l->dir = d->name;
            a->kind = SARG_VAR;
            if (e->kind != EX_NAME || !e->str) {
                arg_kind_error(c, e, i + 1, d->name, "a loop variable");
                break;
            }
            if (stage_arg)
                vec_push(c->a, &x->later, l);
            break;
        }
        case 'L':
            if (e->kind != EX_LIST) {
                arg_kind_error(c, e, i + 1, d->name,
                               "a list of levels such as [L2B, PE]");
                break;
            }
            a->kind = SARG_LIST;
            a->nitems = e->args.n;
            a->items = arena_alloc(c->a, (size_t)(e->args.n + 1) *
                                             sizeof *a->items);
            for (int j = 0; j < e->args.n; j++) {
                TlExpr *lv = e->args.v[j];
                if (!lv || lv->kind != EX_NAME || !lv->str) {
                    arg_kind_error(c, lv ? lv : e, i + 1, d->name,
                                   "a list of levels such as [L2B, PE]");
                    break;
                }
                a->items[j].kind = SARG_NAME;
                a->items[j].name = lv->str;
                a->items[j].expr = lv;
            }
            break;
        default:
            break;
        }
    }
    /* The same loop twice in one directive. */
    for (int i = 1; i < out->nargs; i++)
        for (int j = 0; j < i; j++)
            if (out->args[i].kind == SARG_VAR && out->args[i].var &&
                out->args[j].kind == SARG_VAR &&
                out->args[j].var == out->args[i].var &&
                sig_letter(sig, i) != 'u' && sig_letter(sig, j) != 'u') {
                diag_error(c->s, d->args.v[i]->loc, DIAG_SCHED_VAR_TWICE,
                           out->args[i].var->name, d->name);
                return;
            }
    /* split/tile/fuse replace the variables they take apart, rfactor
     * the reduction loop it makes pure.  The parts of a reduction loop
     * are reduction loops. */
    switch (out->kind) {
    case SD_SPLIT:
        inherit_red(&out->args[0], &out->args[1]);
        inherit_red(&out->args[0], &out->args[2]);
        consume(sv, &out->args[0], d);
        break;
    case SD_TILE:
        inherit_red(&out->args[0], &out->args[2]);
        inherit_red(&out->args[0], &out->args[4]);
        inherit_red(&out->args[1], &out->args[3]);
        inherit_red(&out->args[1], &out->args[5]);
        consume(sv, &out->args[0], d);
        consume(sv, &out->args[1], d);
        break;
    case SD_FUSE:
        consume(sv, &out->args[0], d);
        consume(sv, &out->args[1], d);
        break;
    case SD_RFACTOR:
        consume(sv, &out->args[0], d);
        break;
    default:
        break;
    }
}

/* ====================================================================
 * Statements
 * ==================================================================== */

/* The stage that directive statement st names, through the calls of
 * its path (into ch->path); NULL after reporting.  *kp is the kernel
 * that holds it. */
static TlFunc *chain_stage(SCtx *x, TlStmt *st, TlSchedChain *ch,
                           TlKernelInfo **kp)
{
    Chk *c = x->c;
    TlKernelInfo *k = x->k;
    TlFunc *f = NULL;

    ch->path = arena_alloc(c->a, (size_t)(st->names.n + 1) *
                                     sizeof *ch->path);
    for (int i = 0; i < st->names.n; i++) {
        TlIdent *id = &st->names.v[i];
        f = find_func(k, id->name);
        if (!f) {
            diag_error(c->s, id->loc, DIAG_SCHED_UNKNOWN_STAGE,
                       id->name ? id->name : "?", k->name);
            suggest_func(c, k, id->name);
            return NULL;
        }
        if (f->kind == FN_INPUT) {
            diag_error(c->s, id->loc, DIAG_SCHED_INPUT, f->name, k->name);
            diag_hint(c->s, "place an input with 'layout %s: ...'", f->name);
            return NULL;
        }
        if (i + 1 < st->names.n) {
            if (!f->call) {
                diag_error(c->s, st->names.v[i + 1].loc, DIAG_SCHED_NOT_CALL,
                           f->name, st->names.v[i + 1].name);
                return NULL;
            }
            ch->path[ch->npath++] = f->call;
            k = f->call->callee;
        }
    }
    *kp = k;
    return f;
}

/* The directive called name, or -1 after reporting. */
static int directive_kind(Chk *c, const TlDirective *d)
{
    Scope *sc;

    for (int j = 0; j < SD__COUNT; j++)
        if (d->name && !strcmp(dirs[j].name, d->name))
            return j;
    sc = rsv_scope(c, NULL, "directives");
    for (int j = 0; j < SD__COUNT; j++)
        rsv_add(c, sc, dirs[j].name, NULL, d->loc);
    diag_error(c->s, d->loc, DIAG_SCHED_UNKNOWN_DIRECTIVE,
               d->name ? d->name : "?");
    rsv_suggest(c, sc, d->name, NULL);
    return -1;
}

static void chain(SCtx *x, TlStmt *st)
{
    Chk *c = x->c;
    TlSchedChain *ch = arena_alloc(c->a, sizeof *ch);
    TlKernelInfo *k = x->k;
    TlFunc *f;
    StageVars *sv;

    ch->ref = REF_CHAIN;
    ch->stmt = st;
    st->sym = ch;
    if (!(f = chain_stage(x, st, ch, &k)))
        return;
    ch->func = f;
    sv = stage_vars(x, ch->path, ch->npath, f);
    ch->dirs = arena_alloc(c->a, (size_t)(st->dirs.n + 1) * sizeof *ch->dirs);
    for (int i = 0; i < st->dirs.n; i++) {
        TlDirective *d = &st->dirs.v[i];
        TlSchedDir *out = &ch->dirs[ch->ndirs];
        int kind = directive_kind(c, d);
        if (kind < 0)
            continue;
        out->kind = (TlDirKind)kind;
        out->name = d->name;
        out->loc = d->loc;
        directive(x, sv, k, d, out);
        ch->ndirs++;
    }
    vec_push(c->a, &x->chains, ch);
}

static void layout(SCtx *x, TlStmt *st)
{
    Chk *c = x->c;
    TlSchedLayout *l = arena_alloc(c->a, sizeof *l);
    TlFunc *f = find_func(x->k, st->name);

    l->ref = REF_LAYOUT;
    l->stmt = st;
    l->layout = st->layout;
    st->sym = l;
    if (!f) {
        diag_error(c->s, st->name_loc, DIAG_SCHED_LAYOUT_TENSOR,
                   st->name ? st->name : "?", x->k->name);
        suggest_func(c, x->k, st->name);
        return;
    }
    l->func = f;
    vec_push(c->a, &x->layouts, l);
}

/* compute_at/store_at: the stage must exist beside this one, and the
 * variable must be one of its loops once the whole schedule is seen. */
static void resolve_later(SCtx *x, Later *l)
{
    Chk *c = x->c;
    TlKernelInfo *k = l->npath ? l->path[l->npath - 1]->callee : x->k;
    TlExpr *se = l->stage->expr, *ve = l->var->expr;
    TlFunc *g = find_func(k, se->str);
    StageVars *sv;
    int i;

    if (!g || g->kind == FN_INPUT) {
        diag_error(c->s, se->loc, DIAG_SCHED_UNKNOWN_STAGE, se->str,
                   k->name);
        suggest_func(c, k, se->str);
        return;
    }
    if (g == l->self) {
        diag_error(c->s, se->loc, DIAG_SCHED_AT_SELF, l->dir, g->name);
        return;
    }
    l->stage->func = g;
    sv = stage_vars(x, l->path, l->npath, g);
    i = var_index(sv, ve->str);
    if (i < 0) {
        diag_error(c->s, ve->loc, DIAG_SCHED_UNKNOWN_VAR, ve->str, g->name);
        hint_vars(c, sv);
        return;
    }
    l->var->var = sv->vars.v[i];
}

/* A generic kernel's schedule: what does not depend on a binding.
 * A directive may not name an index pack's variables. */
static void generic_chain(SCtx *x, TlStmt *st)
{
    Chk *c = x->c;
    TlSchedChain ch = {REF_CHAIN, st, NULL, 0, NULL, NULL, 0};
    TlKernelInfo *k = x->k;
    TlFunc *f = chain_stage(x, st, &ch, &k);
    FuncX *fx = f ? f->priv : NULL;

    for (int i = 0; f && i < st->dirs.n; i++) {
        TlDirective *d = &st->dirs.v[i];
        if (directive_kind(c, d) < 0)
            continue;
        for (int j = 0; j < d->args.n; j++) {
            TlExpr *e = d->args.v[j];
            ScopeEnt *ent = e && e->kind == EX_NAME && e->str && fx
                                ? rsv_here(fx->sc, e->str) : NULL;
            TlVar *v = ent ? ent->sym : NULL;
            if (tl_ref_kind(v) == REF_VAR && v->kind == VAR_INDEX &&
                v->pack) {
                diag_error(c->s, e->loc, DIAG_PACK_IN_DIRECTIVE, e->str,
                           f->name);
                diag_note(c->s, v->loc, "'%s' is introduced here", e->str);
            }
        }
    }
}

static void generic_body(SCtx *x, TlItem *it)
{
    for (int i = 0; i < it->body.n; i++) {
        TlStmt *st = it->body.v[i];
        if (st && st->kind == ST_DIRECTIVE)
            generic_chain(x, st);
        else if (st && st->kind == ST_LAYOUT && !find_func(x->k, st->name)) {
            diag_error(x->c->s, st->name_loc, DIAG_SCHED_LAYOUT_TENSOR,
                       st->name ? st->name : "?", x->k->name);
            suggest_func(x->c, x->k, st->name);
        }
    }
}

/* The body of schedule it for kernel k, into info. */
static void check_body(Chk *c, TlItem *it, TlSchedInfo *info,
                       TlKernelInfo *k)
{
    SCtx x;

    memset(&x, 0, sizeof x);
    x.c = c;
    x.k = k;
    x.info = info;
    for (int i = 0; i < it->body.n; i++) {
        TlStmt *st = it->body.v[i];
        if (st && st->kind == ST_DIRECTIVE)
            chain(&x, st);
        else if (st && st->kind == ST_LAYOUT)
            layout(&x, st);
    }
    for (int i = 0; i < x.later.n; i++)
        resolve_later(&x, x.later.v[i]);
    info->chains = (TlSchedChain **)x.chains.v;
    info->nchains = x.chains.n;
    info->layouts = (TlSchedLayout **)x.layouts.v;
    info->nlayouts = x.layouts.n;
}

static void add_schedule(Chk *c, TlKernelInfo *k, TlSchedInfo *info)
{
    TlSchedInfo **v = arena_alloc(c->a, (size_t)(k->nschedules + 1) *
                                            sizeof *v);
    if (k->nschedules)
        memcpy(v, k->schedules, (size_t)k->nschedules * sizeof *v);
    v[k->nschedules++] = info;
    k->schedules = v;
}

void sck_instance(Chk *c, const TlSchedInfo *gsi, TlKernelInfo *inst)
{
    TlSchedInfo *info = arena_alloc(c->a, sizeof *info);

    info->ref = REF_SCHEDULE;
    info->item = gen_copy_item(c, gsi->item);
    info->item->sym = info;
    info->target = gsi->target;
    info->variant = gsi->variant;
    info->kernel = inst;
    info->origin = gsi;
    add_schedule(c, inst, info);
    check_body(c, info->item, info, inst);
}

void sck_schedule(Chk *c, TlItem *it)
{
    TlSchedInfo *info = arena_alloc(c->a, sizeof *info);
    ScopeEnt *ent = rsv_find(c->top, it->name);
    TlKernelInfo *k;
    SCtx x;

    info->ref = REF_SCHEDULE;
    info->item = it;
    info->target = it->target;
    info->variant = it->variant;
    it->sym = info;
    if (!ent || tl_ref_kind(ent->sym) != REF_KERNEL) {
        diag_error(c->s, it->name_loc, DIAG_SCHED_UNKNOWN_KERNEL,
                   it->name ? it->name : "?");
        rsv_suggest(c, c->top, it->name, NULL);
        return;
    }
    k = ent->sym;
    info->kernel = k;
    if (!chk_kernel(c, k))
        return;
    if (!tl_target_known(it->target)) {
        diag_error(c->s, it->target_loc, DIAG_UNKNOWN_TARGET,
                   it->target ? it->target : "?");
        diag_hint(c->s, "the targets are 'cpu' and 'accel'");
    }
    for (int i = 0; i < k->nschedules; i++) {
        TlSchedInfo *o = k->schedules[i];
        int same_variant = (!o->variant && !it->variant) ||
                           (o->variant && it->variant &&
                            !strcmp(o->variant, it->variant));
        if (o->target && it->target && !strcmp(o->target, it->target) &&
            same_variant) {
            diag_error(c->s, it->loc, DIAG_SCHED_DUPLICATE, k->name,
                       it->target);
            diag_note(c->s, o->item->loc, "the first one is here");
            diag_hint(c->s, "name a variant: schedule %s for %s as "
                            "fast { ... }", k->name, it->target);
            break;
        }
    }
    add_schedule(c, k, info);
    if (k->generic) {
        int nerr = c->s->nerrors;
        memset(&x, 0, sizeof x);
        x.c = c;
        x.k = k;
        x.info = info;
        generic_body(&x, it);
        gen_schedule_added(c, k, info, c->s->nerrors != nerr);
        return;
    }
    check_body(c, it, info, k);
}
