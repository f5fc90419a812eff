/*
 * check.c - the checker's entry point and its per-kernel driver.
 *
 * tl_check registers a program's items in one scope (imports first,
 * so that local names win), then checks kernels and top-level
 * statements in order, kernels on demand when something uses them
 * earlier, and schedules last.  A kernel is checked in steps:
 *
 *   1. header: parameters, sizes, scalars, outputs (shape.c)
 *   2. collect the body's definitions, so stages may come in any order
 *   3. resolve the right sides' names (resolve.c)
 *   4. sort by dependency, producers first; report cycles
 *   5. in that order: types (typecheck.c), calls (shape.c), reduction
 *      ranges and natural domains (bounds.c)
 *   6. domains and out-of-bounds reads, consumers first (bounds.c)
 *
 * and its TlKernelInfo is filled for the interpreter and compilers.
 */
#include "lang/lang_int.h"

#include <string.h>

/* ====================================================================
 * Small constructors
 * ==================================================================== */

TlVar *chk_var(Chk *c, TlVarKind kind, const char *name, TlLoc loc)
{
    TlVar *v = arena_alloc(c->a, sizeof *v);
    v->ref = REF_VAR;
    v->kind = kind;
    v->name = name;
    v->loc = loc;
    v->id = (*c->next_id)++;
    v->dtype = DT_I32;
    return v;
}

TlFunc *chk_func(Chk *c, TlFuncKind kind, const char *name, TlLoc loc,
                 int rank)
{
    TlFunc *f = arena_alloc(c->a, sizeof *f);
    f->ref = REF_FUNC;
    f->kind = kind;
    f->name = name;
    f->loc = loc;
    f->rank = rank;
    if (rank > 0)
        f->axes = arena_alloc(c->a, (size_t)rank * sizeof *f->axes);
    return f;
}

FuncX *chk_fx(Chk *c, TlFunc *f)
{
    if (!f->priv)
        f->priv = arena_alloc(c->a, sizeof(FuncX));
    return f->priv;
}

int tl_target_known(const char *name)
{
    return name && (!strcmp(name, "cpu") || !strcmp(name, "accel"));
}

TlKernelInfo *tl_kernel_info(const TlItem *it)
{
    return it && it->kind == IT_KERNEL && tl_ref_kind(it->sym) == REF_KERNEL
               ? it->sym
               : NULL;
}

int tl_func_index(TlFunc *const *fs, int n, const TlFunc *f)
{
    for (int i = 0; i < n; i++)
        if (fs[i] == f)
            return i;
    return -1;
}

/* ====================================================================
 * Step 2: definitions of the body
 * ==================================================================== */

TlFunc chk_failed_def;
#define failed_def chk_failed_def

/* The existing definition of name in the kernel, reported when the
 * name may not be defined again; returns the output to define, a new
 * stage (NULL), or &failed_def after an error. */
TlFunc *chk_existing(Kern *kc, const char *name, TlLoc loc)
{
    Chk *c = kc->c;
    ScopeEnt *ent = rsv_here(kc->scope, name);
    TlFunc *f;

    if (!ent)
        return NULL;
    f = ent->sym;
    if (tl_ref_kind(f) == REF_FUNC && f->kind == FN_OUTPUT && !f->stmt)
        return f;
    if (tl_ref_kind(f) == REF_FUNC && f->kind != FN_INPUT) {
        diag_error(c->s, loc, DIAG_DUPLICATE_DEF, name);
        diag_note(c->s, f->stmt ? f->stmt->loc : f->loc,
                  "'%s' is first defined here", name);
        diag_hint(c->s, "a tensor is defined by one statement; give the "
                        "second one another name");
        return &failed_def;
    }
    diag_error(c->s, loc, DIAG_DEFINES_PARAM, name, rsv_what(ent->sym),
               kc->k->name);
    diag_note(c->s, ent->loc, "'%s' is declared here", name);
    return &failed_def;
}

static void define_stage(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;
    TlFunc *f = chk_existing(kc, st->name, st->name_loc);
    Scope *sc;
    int npack = gen_stage_packs(kc, st, f);

    if (f == &failed_def || npack < 0)
        return;
    if (f) {
        if (!npack && f->rank >= 0 && f->rank != st->names.n) {
            diag_error(c->s, st->name_loc, DIAG_OUTPUT_RANK, f->name,
                       f->rank, st->names.n);
            diag_note(c->s, f->loc, "'%s' is declared here", f->name);
            f->stmt = st;
            st->sym = f;
            f->dtype = DT_NONE;
            return;
        }
    } else {
        f = chk_func(c, FN_STAGE, st->name, st->name_loc,
                     npack ? -1 : st->names.n);
        f->kernel = kc->k;
        rsv_add(c, kc->scope, st->name, f, st->name_loc);
    }
    f->stmt = st;
    st->sym = f;
    vec_push(c->a, &kc->funcs, f);
    sc = rsv_scope(c, kc->scope, st->name);
    chk_fx(c, f)->sc = sc;
    for (int j = 0; j < st->names.n; j++) {
        TlIdent *id = &st->names.v[j];
        ScopeEnt *prev;
        TlVar *v;
        if (!id->name)
            continue;
        if ((prev = rsv_here(sc, id->name))) {
            diag_error(c->s, id->loc, DIAG_DUPLICATE_INDEX_VAR, id->name,
                       st->name);
            diag_note(c->s, prev->loc, "'%s' is first introduced here",
                      id->name);
            continue;
        }
        if ((prev = rsv_here(kc->scope, id->name))) {
            /* Reported, then introduced anyway: the body means it. */
            diag_error(c->s, id->loc, DIAG_INDEX_VAR_SHADOWS, id->name,
                       rsv_what(prev->sym));
            diag_note(c->s, prev->loc, "the %s '%s' is declared here",
                      rsv_what(prev->sym), id->name);
        }
        if (id->lo && f->kind == FN_OUTPUT) {
            diag_error(c->s, id->lo->loc, DIAG_RANGE_ON_OUTPUT, f->name,
                       id->name);
            diag_hint(c->s, "remove the range; it is declared in the "
                            "kernel's outputs");
            id->lo = id->hi = NULL;
        } else if (id->lo) {
            f->fixed = 1;       /* computed over what it declares */
        }
        v = chk_var(c, VAR_INDEX, id->name, id->loc);
        v->num = j;
        v->func = f;
        v->pack = id->pack;
        if (!npack)
            f->axes[j].var = v;
        rsv_add(c, sc, id->name, v, id->loc);
    }
}

/* `assert e, "message"` in a body (SPEC 6.8): a rank-0 stage of its
 * own, kept for what it checks though nothing reads it; its name,
 * "assert.lineN" after its line, is none a program can write.  Its
 * statement's kind tells it from a stage after the checker
 * (tl_func_is_assert). */
static void define_assert(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;
    TlFunc *f = chk_func(c, FN_STAGE, arena_printf(c->a, "assert.line%d",
                                                   st->loc.line),
                         st->loc, 0);

    f->kernel = kc->k;
    f->stmt = st;
    st->sym = f;
    vec_push(c->a, &kc->funcs, f);
    chk_fx(c, f)->sc = rsv_scope(c, kc->scope, f->name);
}

/* The kernel an EX_CALL calls, or NULL after reporting why not (when
 * report is set; bindings look quietly first, and report in statement
 * order). */
TlKernelInfo *chk_callee(Kern *kc, TlExpr *e, const char *bindtext,
                         int report)
{
    Chk *c = kc->c;
    const char *name = e && e->kind == EX_CALL ? rsv_dotted(c, e->a) : NULL;
    ScopeEnt *ent = name ? rsv_find(kc->scope, name) : NULL;
    TlKernelInfo *k;
    Kern *ck;

    if (!e)
        return NULL;
    if (!report) {
        k = ent && !ent->other && tl_ref_kind(ent->sym) == REF_KERNEL
                ? ent->sym : NULL;
        if (!k || k == kc->k || !chk_kernel(c, k))
            return NULL;
        e->a->sym = k;
        return k;
    }
    if (!name || (!ent && rsv_builtin(name)) ||
        (ent && tl_ref_kind(ent->sym) != REF_KERNEL)) {
        diag_error(c->s, e->loc, DIAG_BIND_NOT_CALL, bindtext);
        diag_hint(c->s, "define it element by element instead: "
                        "%s[i, ...] = ...", bindtext);
        return NULL;
    }
    if (!ent) {
        diag_error(c->s, e->a->loc, DIAG_UNKNOWN_FUNCTION, name);
        rsv_suggest(c, kc->scope, name, NULL);
        return NULL;
    }
    if (ent->other) {
        diag_error(c->s, e->a->loc, DIAG_AMBIGUOUS_NAME, name, ent->module,
                   ent->other);
        diag_hint(c->s, "import one of the modules with 'as NAME' and "
                        "write NAME.%s", name);
    }
    k = ent->sym;
    e->a->sym = k;
    ck = chk_kernel(c, k);
    if (!ck || k == kc->k) {
        diag_error(c->s, e->a->loc, DIAG_RECURSIVE_CALL, name);
        return NULL;
    }
    return k;
}

/* Says why binding st (which define_bind refused quietly) failed. */
static void report_bind(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;
    const char *first = st->names.n ? st->names.v[0].name : NULL;
    TlKernelInfo *k;

    if (!first || (st->value && st->value->kind == EX_ON))
        return;
    for (int i = 1; i < st->names.n; i++)
        first = arena_printf(c->a, "%s, %s", first,
                             st->names.v[i].name ? st->names.v[i].name : "?");
    k = chk_callee(kc, st->value, first, 1);
    if (k && k->noutputs != st->names.n)
        diag_error(c->s, st->loc, DIAG_BIND_COUNT, k->name, k->noutputs,
                   k->noutputs == 1 ? "" : "s", st->names.n);
}

TlCall *chk_new_call(Kern *kc, TlKernelInfo *k, TlExpr *e, const char *name)
{
    Chk *c = kc->c;
    TlCall *call = arena_alloc(c->a, sizeof *call);
    int np = k->ninputs + k->nscalars;

    call->ref = REF_CALL;
    call->callee = k;
    call->name = name;
    call->loc = e->loc;
    call->expr = e;
    call->kernel = kc->k;
    call->args = arena_alloc(c->a, (size_t)(np + 1) * sizeof *call->args);
    call->inputs = arena_alloc(c->a, (size_t)(k->ninputs + 1) *
                                         sizeof *call->inputs);
    call->scalars = arena_alloc(c->a, (size_t)(k->nscalars + 1) *
                                          sizeof *call->scalars);
    call->results = arena_alloc(c->a, (size_t)(k->noutputs + 1) *
                                          sizeof *call->results);
    e->sym = call;
    vec_push(c->a, &kc->calls, call);
    return call;
}

/* After a failed binding its names still exist, with an unknown type
 * and rank, so that their uses stay quiet. */
static void poison_names(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;

    for (int i = 0; i < st->names.n; i++) {
        TlIdent *id = &st->names.v[i];
        ScopeEnt *ent = id->name ? rsv_here(kc->scope, id->name) : NULL;
        TlFunc *f;
        if (ent && tl_ref_kind(ent->sym) == REF_FUNC) {
            /* An output it meant to define is not "never defined". */
            f = ent->sym;
            if (f->kind == FN_OUTPUT && !f->stmt) {
                f->stmt = st;
                f->dtype = DT_NONE;
            }
        }
        if (!id->name || ent)
            continue;
        f = chk_func(c, FN_CALL, id->name, id->loc, -1);
        f->kernel = kc->k;
        f->stmt = st;
        rsv_add(c, kc->scope, id->name, f, id->loc);
    }
}

static void define_bind(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;
    TlKernelInfo *k;
    TlCall *call;
    const char *first = st->names.n ? st->names.v[0].name : NULL;

    if (!first)
        return;
    if (chk_whole_is(kc, st)) {
        chk_whole_define(kc, st);
        return;
    }
    if (st->value && st->value->kind == EX_ON) {
        diag_error(c->s, st->value->loc, DIAG_NOT_IN_KERNEL, "'on'");
        poison_names(kc, st);
        return;
    }
    k = chk_callee(kc, st->value, first, 0);
    if (!k || k->noutputs != st->names.n) {
        poison_names(kc, st);       /* reported in statement order */
        return;
    }
    call = chk_new_call(kc, k, st->value, first);
    st->sym = call;
    for (int i = 0; i < st->names.n; i++) {
        TlIdent *id = &st->names.v[i];
        TlFunc *o = k->outputs[i], *f;
        if (!id->name || !strcmp(id->name, "_"))
            continue;
        f = chk_existing(kc, id->name, id->loc);
        if (f == &failed_def)
            continue;
        if (f) {
            if (o->rank < 0) {
                chk_fx(c, f)->gpending = 1;     /* a generic callee's */
            } else if (f->rank != o->rank) {
                diag_error(c->s, id->loc, DIAG_BIND_RANK, f->name, f->rank,
                           k->name, o->rank);
                f->dtype = DT_NONE;
            } else if (f->dtype != o->dtype && o->dtype != DT_NONE) {
                diag_error(c->s, id->loc, DIAG_BIND_DTYPE, f->name,
                           dt_name(f->dtype), k->name, dt_name(o->dtype));
                f->dtype = DT_NONE;
            }
        } else {
            f = chk_func(c, FN_CALL, id->name, id->loc, o->rank);
            f->kernel = kc->k;
            f->dtype = o->dtype;
            chk_fx(c, f)->gpending = o->rank < 0;
            rsv_add(c, kc->scope, id->name, f, id->loc);
        }
        f->stmt = st;
        f->call = call;
        f->call_out = i;
        call->results[i] = f;
        vec_push(c->a, &kc->funcs, f);
    }
}

/* ====================================================================
 * Step 3: kernel-call arguments
 * ==================================================================== */


/* A unique name for a call nested in another call's arguments. */
const char *chk_nested_name(Kern *kc, const char *base)
{
    Chk *c = kc->c;
    const char *n = base;

    for (int i = 2;; i++) {
        int taken = rsv_here(kc->scope, n) != NULL;
        for (int j = 0; j < kc->funcs.n && !taken; j++)
            taken = !strcmp(((TlFunc *)kc->funcs.v[j])->name, n);
        if (!taken)
            return n;
        n = arena_printf(c->a, "%s_%d", base, i);
    }
}

/* The tensor argument x of a call: a tensor's name or a nested call
 * with one output. */
static TlFunc *tensor_arg(Kern *kc, TlCall *call, int i, TlExpr *x)
{
    Chk *c = kc->c;
    const char *pname = call->callee->inputs[i]->name;
    ScopeEnt *ent;

    if (x->kind == EX_CALL) {
        TlKernelInfo *k = chk_callee(kc, x, pname, 1);
        TlCall *inner;
        TlFunc *f;
        if (!k)
            return NULL;
        if (k->noutputs != 1) {
            diag_error(c->s, x->loc, DIAG_MULTI_OUTPUT_VALUE, k->name,
                       k->noutputs);
            diag_hint(c->s, "bind them first: a, b = %s(...)", k->name);
            return NULL;
        }
        inner = chk_new_call(kc, k, x, chk_nested_name(kc, k->name));
        f = chk_func(c, FN_CALL, inner->name, x->loc, k->outputs[0]->rank);
        f->kernel = kc->k;
        f->dtype = k->outputs[0]->dtype;
        f->call = inner;
        f->stmt = call->results[0] ? call->results[0]->stmt : NULL;
        inner->results[0] = f;
        vec_push(c->a, &kc->funcs, f);
        chk_resolve_call(kc, inner);
        gen_nested_rank(kc, inner);
        return f;
    }
    if (x->kind != EX_NAME || !x->str) {
        diag_error(c->s, x->loc, DIAG_ARG_NOT_TENSOR, pname,
                   call->callee->name, "an expression");
        diag_hint(c->s, "compute it in a stage first, then pass the "
                        "stage's name");
        return NULL;
    }
    ent = rsv_find(kc->scope, x->str);
    if (!ent) {
        diag_error(c->s, x->loc, DIAG_UNKNOWN_NAME, x->str);
        rsv_suggest(c, kc->scope, x->str, NULL);
        return NULL;
    }
    if (tl_ref_kind(ent->sym) == REF_LET) {
        TlLet *l = ent->sym;
        chk_let(c, l);
        if (!l->func)
            return NULL;
        x->sym = l->func;
        return l->func;
    }
    if (tl_ref_kind(ent->sym) != REF_FUNC) {
        diag_error(c->s, x->loc, DIAG_ARG_NOT_TENSOR, pname,
                   call->callee->name,
                   arena_printf(c->a, "a %s", rsv_what(ent->sym)));
        return NULL;
    }
    x->sym = ent->sym;
    return ent->sym;
}

void chk_resolve_call(Kern *kc, TlCall *call)
{
    Chk *c = kc->c;
    TlKernelInfo *k = call->callee;

    if (shp_match_args(c, k, call->expr, call->args) < 0) {
        for (int i = 0; i < k->noutputs; i++)
            if (call->results[i])
                call->results[i]->dtype = DT_NONE;
        return;
    }
    if (call->expr->b)
        gen_check_targs(kc, call);
    for (int i = 0; i < k->ninputs; i++) {
        TlFunc *g = tensor_arg(kc, call, i, call->args[i]);
        call->inputs[i] = g;
        if (!g)
            continue;
        vec_push(c->a, &chk_fx(c, g)->call_uses, call);
        for (int r = 0; r < k->noutputs; r++)
            rsv_dep(kc, call->results[r], g, call->args[i]->loc);
    }
    for (int j = 0; j < k->nscalars; j++) {
        TlExpr **slot = &call->args[k->ninputs + j];
        TlVar *p = k->scalars[j];
        if (!*slot)
            continue;
        rsv_scalar_expr(kc, *slot, "a scalar argument");
        if (kc->generic || k->generic)
            continue;   /* typed in the instance (checkinst.c) */
        if (ty_expr(kc, slot) == DT_NONE)
            continue;
        if (!ty_fits(c, slot, p->dtype)) {
            diag_error(c->s, (*slot)->loc, DIAG_KERNEL_ARG_DTYPE, p->name,
                       k->name, dt_name((*slot)->dtype), dt_name(p->dtype));
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
        }
    }
}

/* ====================================================================
 * Step 4: dependency order
 * ==================================================================== */

static void report_cycle(Kern *kc, TlVec *path, TlFunc *g, TlLoc at)
{
    Chk *c = kc->c;
    TlBuf b;
    int from = 0;

    for (int i = 0; i < path->n; i++)
        if (path->v[i] == g)
            from = i;
    buf_init(&b);
    for (int i = from; i < path->n; i++)
        buf_printf(&b, "'%s' -> ", ((TlFunc *)path->v[i])->name);
    buf_printf(&b, "'%s'", g->name);
    diag_error(c->s, at, DIAG_CYCLE, g->name, b.s);
    diag_hint(c->s, "a stage cannot read itself, directly or through "
                    "others");
    buf_free(&b);
    for (int i = from; i < path->n; i++)
        ((TlFunc *)path->v[i])->dtype = DT_NONE;
}

static void visit(Kern *kc, TlFunc *f, TlVec *path)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);

    fx->mark = 1;
    vec_push(c->a, path, f);
    for (int i = 0; i < fx->deps.n; i++) {
        TlFunc *g = fx->deps.v[i];
        FuncX *gx = chk_fx(c, g);
        if (gx->mark == 1)
            report_cycle(kc, path, g, *(TlLoc *)fx->dep_locs.v[i]);
        else if (gx->mark == 0)
            visit(kc, g, path);
    }
    path->n--;
    fx->mark = 2;
    vec_push(c->a, &kc->order, f);
}

static void reach(Chk *c, TlFunc *f)
{
    FuncX *fx = chk_fx(c, f);

    if (fx->reachable)
        return;
    fx->reachable = 1;
    for (int i = 0; i < fx->deps.n; i++)
        reach(c, fx->deps.v[i]);
}

/* ====================================================================
 * Step 5: types, calls and ranges, producers first
 * ==================================================================== */

static void check_call(Kern *kc, TlCall *call)
{
    Chk *c = kc->c;
    TlKernelInfo *k = call->callee;
    ShpArg *args = arena_alloc(c->a, (size_t)(k->ninputs + 1) *
                                         sizeof *args);

    for (int i = 0; i < k->ninputs; i++) {
        TlFunc *g = call->inputs[i];
        ShpArg *a = &args[i];
        a->expr = call->args[i] ? call->args[i] : call->expr;
        a->func = g;
        a->dtype = DT_NONE;
        a->rank = -1;
        if (!g)
            continue;
        a->dtype = g->dtype;
        a->rank = g->rank;
        a->name = g->name;
        a->shape = arena_alloc(c->a, (size_t)(g->rank + 1) *
                                         sizeof *a->shape);
        if (g->kind == FN_STAGE) {
            FuncX *gx = chk_fx(c, g);
            g->fixed = 1;
            for (int j = 0; j < g->rank; j++)
                a->shape[j] = gx->nat_ext ? gx->nat_ext[j] : NULL;
        } else {
            for (int j = 0; j < g->rank; j++)
                a->shape[j] = g->axes[j].extent;
        }
    }
    if (k->generic && !(call->callee = gen_call_instance(kc, call, args))) {
        call->callee = k;
        for (int i = 0; i < k->noutputs; i++)
            if (call->results[i])
                call->results[i]->dtype = DT_NONE;
        return;
    }
    shp_call(c, call, args);
}

/* The shapes of call results bound to declared outputs: shp_call wrote
 * the callee's shape into the output's axes; compare with the declared
 * one, kept in a copy. */
static void bind_output_shapes(Kern *kc, TlCall *call, TlSymExpr ***decl)
{
    Chk *c = kc->c;
    TlKernelInfo *k = call->callee;

    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *r = call->results[i];
        if (!r || r->kind != FN_OUTPUT || !decl[i])
            continue;
        for (int j = 0; j < r->rank; j++) {
            TlSymExpr *got = r->axes[j].extent, *want = decl[i][j];
            if (got && want && sym_prove_ne(got, want)) {
                diag_error(c->s, r->stmt ? r->stmt->loc : r->loc,
                           DIAG_BIND_SHAPE, r->name, j, sym_str(c->a, want),
                           k->name, sym_str(c->a, got));
                diag_note(c->s, r->loc, "'%s' is declared here", r->name);
            }
            r->axes[j].extent = want;
        }
    }
}

static void check_call_funcs(Kern *kc, TlCall *call)
{
    Chk *c = kc->c;
    TlKernelInfo *k = call->callee;
    TlSymExpr ***decl = arena_alloc(c->a, (size_t)(k->noutputs + 1) *
                                              sizeof *decl);

    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *r = call->results[i];
        if (!r || r->kind != FN_OUTPUT)
            continue;
        decl[i] = arena_alloc(c->a, (size_t)(r->rank + 1) * sizeof **decl);
        for (int j = 0; j < r->rank; j++)
            decl[i][j] = r->axes[j].extent;
    }
    check_call(kc, call);
    bind_output_shapes(kc, call, decl);
}

static void check_def(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);
    TlStmt *st = f->stmt;
    TlExpr **slot;
    TlDType t;

    if (fx->typed)
        return;
    fx->typed = 1;
    if (f->call) {
        TlCall *call = f->call;
        for (int i = 0; i < call->callee->noutputs; i++)
            if (call->results[i])
                chk_fx(c, call->results[i])->typed = 1;
        check_call_funcs(kc, call);
        return;
    }
    if (fx->whole) {
        if (!f->value)
            return;
        slot = &f->value;
    } else if (st && (st->kind == ST_STAGE || st->kind == ST_ASSERT) &&
               st->value) {
        slot = &st->value;
    } else {
        return;
    }
    if (st && st->kind == ST_STAGE)
        ty_stage_ranges(kc, st);
    t = ty_expr(kc, slot);
    f->value = *slot;
    if (f->kind == FN_OUTPUT) {
        if (t != DT_NONE && f->dtype != DT_NONE &&
            !ty_fits(c, slot, f->dtype)) {
            diag_error(c->s, (*slot)->loc, DIAG_OUTPUT_DTYPE, f->name,
                       dt_name(f->dtype), dt_name(t));
            diag_hint(c->s, "convert it: %s[...] = %s(...)", f->name,
                      dt_name(f->dtype));
        }
        f->value = *slot;
    } else {
        f->dtype = t;
    }
    if (st && st->kind == ST_ASSERT && t != DT_NONE && t != DT_BOOL) {
        diag_error(c->s, (*slot)->loc, DIAG_ASSERT_NOT_BOOL,
                   arena_printf(c->a, "'%s'", dt_name(t)));
        diag_hint(c->s, "compare it: assert ... > 0");
        f->dtype = DT_NONE;
    }
    if (fx->whole)
        chk_whole_shapes(kc, f);
    bnd_forward(kc, f);
}

/* ====================================================================
 * The kernel driver
 * ==================================================================== */

static void check_kernel(Chk *c, Kern *kc)
{
    TlKernelInfo *k = kc->k;
    TlItem *it = k->item;
    TlVec path = {0}, funcs = {0}, calls = {0};

    kc->state = 1;
    kc->nerr0 = c->s->nerrors;
    kc->scope = rsv_scope(c, c->top, k->name);
    if (gen_is_generic(it)) {
        kc->def_top = c->top;
        gen_header(kc);
    }
    shp_header(kc);
    if (!kc->generic)
        ty_defaults(kc);

    /* 2: definitions */
    for (int i = 0; i < it->body.n; i++) {
        TlStmt *st = it->body.v[i];
        if (!st)
            continue;
        if (st->kind == ST_STAGE && st->name)
            define_stage(kc, st);
        else if (st->kind == ST_BIND)
            define_bind(kc, st);
        else if (st->kind == ST_ASSERT)
            define_assert(kc, st);
    }
    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *o = k->outputs[i];
        if (!o->stmt) {
            diag_error(c->s, o->loc, DIAG_OUTPUT_NOT_DEFINED, o->name,
                       k->name);
            diag_hint(c->s, "define it in the body: %s[...] = ...",
                      o->name);
        }
    }

    chk_whole_ranks(kc);

    /* 3: names, in statement order */
    for (int i = 0; i < it->body.n; i++) {
        TlStmt *st = it->body.v[i];
        TlFunc *f = st ? st->sym : NULL;
        if (!st)
            continue;
        if (st->kind == ST_ASSERT && tl_ref_kind(f) == REF_FUNC)
            rsv_stage(kc, f, chk_fx(c, f)->sc, st->value);
        else if (st->kind == ST_STAGE && tl_ref_kind(f) == REF_FUNC &&
            f->stmt == st && !f->call && chk_fx(c, f)->sc) {
            for (int j = 0; j < st->names.n; j++)
                if (st->names.v[j].lo) {
                    rsv_scalar_expr(kc, st->names.v[j].lo, "a stage range");
                    rsv_scalar_expr(kc, st->names.v[j].hi, "a stage range");
                }
            rsv_stage(kc, f, chk_fx(c, f)->sc, st->value);
        }
        else if (st->kind == ST_BIND && tl_ref_kind(st->sym) == REF_CALL)
            chk_resolve_call(kc, st->sym);
        else if (st->kind == ST_BIND && tl_ref_kind(f) == REF_FUNC) {
            if (f->value && chk_fx(c, f)->sc)
                rsv_stage(kc, f, chk_fx(c, f)->sc, f->value);
        }
        else if (st->kind == ST_BIND)
            report_bind(kc, st);
    }

    /* 4: order */
    for (int i = 0; i < kc->funcs.n; i++)
        if (chk_fx(c, kc->funcs.v[i])->mark == 0)
            visit(kc, kc->funcs.v[i], &path);
    for (int i = 0; i < k->noutputs; i++)
        if (k->outputs[i]->stmt)
            reach(c, k->outputs[i]);
    for (int i = 0; i < kc->funcs.n; i++)      /* asserts are kept */
        if (tl_func_is_assert(kc->funcs.v[i]))
            reach(c, kc->funcs.v[i]);

    /* 5: types, calls, ranges (a generic kernel stops before them;
     * its warnings are given here once, not by its instances) */
    for (int i = 0; i < kc->order.n && !kc->generic; i++)
        check_def(kc, kc->order.v[i]);
    for (int i = 0; i < kc->funcs.n && !kc->instance; i++) {
        TlFunc *f = kc->funcs.v[i];
        if (!chk_fx(c, f)->reachable && f->kind != FN_OUTPUT &&
            (f->dtype != DT_NONE || kc->generic)) {
            diag_warning(c->s, f->loc, DIAG_UNUSED_STAGE, rsv_what(f),
                         f->name);
            diag_hint(c->s, "remove it, or use it in an output");
        }
    }
    if (kc->generic) {
        gen_finish(kc);
        k->ok = c->s->nerrors == kc->nerr0;
        kc->state = 2;
        return;
    }

    /* 6: domains and reads, over what the outputs need */
    {
        TlVec order = {0};
        for (int i = 0; i < kc->order.n; i++)
            if (chk_fx(c, kc->order.v[i])->reachable)
                vec_push(c->a, &order, kc->order.v[i]);
        kc->order = order;
    }
    bnd_backward(kc);

    /* The pipeline: reachable tensors and calls in dependency order. */
    for (int i = 0; i < kc->order.n; i++) {
        TlFunc *f = kc->order.v[i];
        vec_push(c->a, &funcs, f);
        if (f->call) {
            int seen = 0;
            for (int j = 0; j < calls.n; j++)
                seen |= calls.v[j] == f->call;
            if (!seen)
                vec_push(c->a, &calls, f->call);
        }
    }
    /* A callee's constants are the caller's too (a top-level statement
     * calling it needs them defined). */
    for (int i = 0; i < calls.n; i++) {
        TlKernelInfo *ck = ((TlCall *)calls.v[i])->callee;
        for (int j = 0; j < ck->nconsts; j++) {
            int seen = 0;
            for (int m = 0; m < kc->consts.n; m++)
                seen |= kc->consts.v[m] == ck->consts[j];
            if (!seen)
                vec_push(c->a, &kc->consts, ck->consts[j]);
        }
    }
    k->funcs = (TlFunc **)funcs.v;
    k->nfuncs = funcs.n;
    k->calls = (TlCall **)calls.v;
    k->ncalls = calls.n;
    k->consts = (TlFunc **)kc->consts.v;
    k->nconsts = kc->consts.n;
    k->ok = c->s->nerrors == kc->nerr0;
    kc->state = 2;
}

Kern *chk_kernel(Chk *c, TlKernelInfo *k)
{
    Kern *kc = k->priv;

    if (!kc) {
        kc = arena_alloc(c->a, sizeof *kc);
        kc->c = c;
        kc->k = k;
        k->priv = kc;
    }
    if (kc->state == 1)
        return NULL;
    if (kc->state == 0)
        check_kernel(kc->c, kc);
    /* The check of an imported module has ended (its Chk is gone);
     * whoever uses the kernel now lends its own. */
    kc->c = c;
    return kc;
}

/* ====================================================================
 * Programs
 * ==================================================================== */

/* Adds a local item name to the program scope (local names replace
 * imported ones). */
static void add_local(Chk *c, const char *name, void *sym, TlLoc loc,
                      int pos)
{
    ScopeEnt *prev = rsv_add(c, c->top, name, sym, loc);

    if (!prev) {
        rsv_here(c->top, name)->pos = pos;
        return;
    }
    if (prev->module) {
        /* A clash with an import is an error where the name is used
         * (SPEC 5.2); the local meaning is kept for what follows. */
        prev->other = prev->module;
        prev->module = "this file";
        prev->sym = sym;
        prev->loc = loc;
        prev->pos = pos;
        return;
    }
    if (c->allow_redefine && tl_ref_kind(sym) == REF_LET &&
        tl_ref_kind(prev->sym) == REF_LET) {
        prev->sym = sym;
        prev->loc = loc;
        prev->pos = pos;
        return;
    }
    diag_error(c->s, loc, DIAG_DUPLICATE_ITEM, name);
    diag_note(c->s, prev->loc, "'%s' is first defined here", name);
}

static void register_extern(Chk *c, TlItem *it, int pos)
{
    TlExternInfo *x = arena_alloc(c->a, sizeof *x);

    x->ref = REF_EXTERN;
    x->name = it->name;
    x->item = it;
    x->ret = it->ret;
    x->lib = it->lib;
    x->params = arena_alloc(c->a, (size_t)(it->params.n + 1) *
                                      sizeof *x->params);
    for (int i = 0; i < it->params.n; i++) {
        TlParam *p = &it->params.v[i];
        if (!p->is_scalar || p->shape.n)
            x->tensors = 1;
        for (int j = 0; j < p->shape.n; j++)
            if (p->shape.v[j] && p->shape.v[j]->kind == EX_NAME &&
                p->shape.v[j]->ival)
                diag_error(c->s, p->shape.v[j]->loc, DIAG_PACK_NOT_GENERIC,
                           p->shape.v[j]->str);
        for (int j = 0; j < i; j++)
            if (p->name && it->params.v[j].name &&
                !strcmp(p->name, it->params.v[j].name)) {
                diag_error(c->s, p->loc, DIAG_DUPLICATE_PARAM, p->name,
                           it->name);
                diag_note(c->s, it->params.v[j].loc,
                          "'%s' is first declared here", p->name);
            }
        x->params[x->nparams++] = p->dtype;
    }
    it->sym = x;
    add_local(c, it->name, x, it->name_loc, pos);
}

static void register_let(Chk *c, TlItem *it, int pos)
{
    TlStmt *st = it->stmt;
    TlLet *prev = NULL;

    for (int i = 0; i < st->names.n; i++) {
        TlIdent *id = &st->names.v[i];
        TlLet *l = arena_alloc(c->a, sizeof *l);
        l->ref = REF_LET;
        l->name = id->name;
        l->loc = id->loc;
        l->stmt = st;
        l->num = i;
        l->rank = -1;
        l->pos = pos;
        if (prev)
            prev->next = l;
        else
            st->sym = l;
        prev = l;
        if (id->name && strcmp(id->name, "_"))
            add_local(c, id->name, l, id->loc, pos);
    }
}

int chk_program(Chk *c, TlProgram *prog)
{
    int before = c->s->nerrors;
    TlItemList *items = &prog->items;

    c->prog = prog;
    c->top = rsv_scope(c, c->module ? NULL : c->prior, "program");
    vec_push(c->a, c->stack, prog);
    /* Imports first, then the program's own names. */
    for (int i = 0; i < items->n; i++)
        if (items->v[i] && items->v[i]->kind == IT_IMPORT) {
            c->item_pos = i;
            chk_import(c, items->v[i]);
        }
    for (int i = 0; i < items->n; i++) {
        TlItem *it = items->v[i];
        if (!it)
            continue;
        if (it->kind == IT_KERNEL && it->name) {
            TlKernelInfo *k = arena_alloc(c->a, sizeof *k);
            k->ref = REF_KERNEL;
            k->name = it->name;
            k->item = it;
            k->module = c->module;
            it->sym = k;
            add_local(c, it->name, k, it->name_loc, i);
        } else if (it->kind == IT_EXTERN && it->name) {
            register_extern(c, it, i);
        } else if (it->kind == IT_STMT && it->stmt &&
                   it->stmt->kind == ST_LET) {
            register_let(c, it, i);
        }
    }
    for (int i = 0; i < items->n; i++) {
        TlItem *it = items->v[i];
        if (!it)
            continue;
        c->item_pos = i;
        if (it->kind == IT_KERNEL && tl_ref_kind(it->sym) == REF_KERNEL)
            chk_kernel(c, it->sym);
        else if (it->kind == IT_STMT && it->stmt && !c->module)
            chk_top_stmt(c, it);        /* an import does not run them */
    }
    for (int i = 0; i < items->n; i++) {
        TlItem *it = items->v[i];
        c->item_pos = i;
        if (it && it->kind == IT_SCHEDULE)
            sck_schedule(c, it);
    }
    c->item_pos = items->n;
    c->stack->n--;
    return c->s->nerrors - before;
}

int tl_check_opts(TlSession *s, TlProgram *prog, const TlCheckOpts *opts)
{
    Chk c;
    TlVec stack = {0};
    int next_id = 1;

    if (!s || !prog)
        return 0;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.a = &s->arena;
    c.next_id = &next_id;
    c.stack = &stack;
    c.allow_redefine = opts && opts->allow_redefine;
    c.prior = chk_prior_scope(&c, opts);
    return chk_program(&c, prog);
}

int tl_check(TlSession *s, TlProgram *prog)
{
    return tl_check_opts(s, prog, NULL);
}
