/*
 * resolve.c - scopes and name resolution.
 *
 * A scope is a small hash table with a parent: a reduction's variables
 * sit inside its stage's index variables, inside the kernel's names,
 * inside the program's items; builtins come last.  Resolving a stage's
 * right side points every name at what it means (expr->sym), turns
 * each tensor read into a TlRead and each reduction into a TlReduce,
 * and records which tensors the stage needs.  Types come later
 * (typecheck.c), in dependency order.
 */
#include "lang/lang_int.h"

#include <stdio.h>
#include <string.h>

/* ====================================================================
 * Scopes
 * ==================================================================== */

static unsigned hash_name(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

Scope *rsv_scope(Chk *c, Scope *up, const char *what)
{
    Scope *sc = arena_alloc(c->a, sizeof *sc);
    sc->up = up;
    sc->what = what;
    return sc;
}

static ScopeEnt **find_slot(Scope *sc, const char *name)
{
    unsigned i = hash_name(name) & (unsigned)(sc->cap - 1);
    while (sc->slot[i] && strcmp(sc->slot[i]->name, name))
        i = (i + 1) & (unsigned)(sc->cap - 1);
    return &sc->slot[i];
}

ScopeEnt *rsv_here(Scope *sc, const char *name)
{
    if (!sc || !sc->cap || !name)
        return NULL;
    return *find_slot(sc, name);
}

ScopeEnt *rsv_find(Scope *sc, const char *name)
{
    for (; sc; sc = sc->up) {
        ScopeEnt *e = rsv_here(sc, name);
        if (e)
            return e;
    }
    return NULL;
}

ScopeEnt *rsv_add(Chk *c, Scope *sc, const char *name, void *sym,
                  TlLoc loc)
{
    ScopeEnt *e, **slot;

    if (!name)
        return NULL;
    if ((e = rsv_here(sc, name)))
        return e;
    if (2 * (sc->n + 1) > sc->cap) {
        ScopeEnt **old = sc->slot;
        int ocap = sc->cap;
        sc->cap = sc->cap ? sc->cap * 2 : 16;
        sc->slot = arena_alloc(c->a, (size_t)sc->cap * sizeof *sc->slot);
        for (int i = 0; i < ocap; i++)
            if (old[i])
                *find_slot(sc, old[i]->name) = old[i];
    }
    e = arena_alloc(c->a, sizeof *e);
    e->name = name;
    e->sym = sym;
    e->loc = loc;
    slot = find_slot(sc, name);
    *slot = e;
    sc->n++;
    return NULL;
}

/* ====================================================================
 * Builtins
 * ==================================================================== */

static const TlBuiltin builtins[BI__COUNT] = {
#define X(id, nm, lo, hi, top) {REF_BUILTIN, BI_##id, nm, lo, hi, top},
    TL_BUILTINS(X)
#undef X
};

const TlBuiltin *rsv_builtin(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < BI__COUNT; i++)
        if (!strcmp(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

TlRefKind tl_ref_kind(const void *sym)
{
    return sym ? *(const TlRefKind *)sym : REF__COUNT;
}

const char *rsv_what(const void *sym)
{
    switch (tl_ref_kind(sym)) {
    case REF_VAR:
        switch (((const TlVar *)sym)->kind) {
        case VAR_INDEX:
            return ((const TlVar *)sym)->pack ? "index pack"
                                              : "index variable";
        case VAR_RVAR: return "reduction variable";
        case VAR_SIZE:
            return ((const TlVar *)sym)->pack ? "shape pack"
                                              : "size variable";
        case VAR_SCALAR: return "scalar parameter";
        case VAR_LOOP: return "loop variable";
        }
        break;
    case REF_FUNC:
        switch (((const TlFunc *)sym)->kind) {
        case FN_INPUT: return "tensor parameter";
        case FN_STAGE: return "stage";
        case FN_OUTPUT: return "output";
        case FN_CALL: return "call result";
        case FN_CONST: return "top-level tensor";
        }
        break;
    case REF_LET: return "top-level value";
    case REF_BUILTIN: return "builtin function";
    case REF_EXTERN: return "extern function";
    case REF_KERNEL: return "kernel";
    case REF_TYPEVAR: return "dtype variable";
    default: break;
    }
    return "name";
}

/* ====================================================================
 * "did you mean"
 * ==================================================================== */

/* Levenshtein distance, capped: returns cap + 1 when larger. */
static int edit_distance(const char *x, const char *y, int cap)
{
    int nx = (int)strlen(x), ny = (int)strlen(y);
    int row[64];

    if (nx > 62 || ny > 62 || nx - ny > cap || ny - nx > cap)
        return cap + 1;
    for (int j = 0; j <= ny; j++)
        row[j] = j;
    for (int i = 1; i <= nx; i++) {
        int diag = row[0], best;
        row[0] = i;
        best = row[0];
        for (int j = 1; j <= ny; j++) {
            int up = row[j];
            int v = diag + (x[i - 1] != y[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[ny];
}

typedef struct Suggest {
    const char *name;
    const char *best;
    int dist, cap;
} Suggest;

static void consider(Suggest *sg, const char *cand)
{
    int d;

    if (!cand || !strcmp(cand, sg->name) || strchr(cand, '.'))
        return;
    d = edit_distance(sg->name, cand, sg->cap);
    if (d <= sg->cap && (d < sg->dist ||
                         (d == sg->dist && strcmp(cand, sg->best) < 0))) {
        sg->dist = d;
        sg->best = cand;
    }
}

void rsv_suggest(Chk *c, Scope *sc, const char *name,
                 int (*filter)(const void *sym))
{
    Suggest sg;
    int len;

    if (!name)
        return;
    len = (int)strlen(name);
    sg.name = name;
    sg.best = NULL;
    /* One-letter names are too short to guess at. */
    sg.cap = len <= 1 ? 0 : len <= 3 ? 1 : len <= 6 ? 2 : 3;
    sg.dist = sg.cap + 1;
    for (; sc; sc = sc->up)
        for (int i = 0; i < sc->cap; i++)
            if (sc->slot[i] && (!filter || filter(sc->slot[i]->sym)))
                consider(&sg, sc->slot[i]->name);
    for (int i = 0; i < BI__COUNT; i++)
        if (!filter || filter(&builtins[i]))
            consider(&sg, builtins[i].name);
    if (sg.best)
        diag_hint(c->s, "did you mean '%s'?", sg.best);
}

const char *rsv_dotted(Chk *c, const TlExpr *e)
{
    const char *left;

    if (!e || !e->str)
        return NULL;
    if (e->kind == EX_NAME)
        return e->str;
    if (e->kind != EX_MEMBER || !(left = rsv_dotted(c, e->a)))
        return NULL;
    return arena_printf(c->a, "%s.%s", left, e->str);
}

/* ====================================================================
 * Resolving kernel expressions
 * ==================================================================== */

typedef struct RCtx {
    Kern *kc;
    TlFunc *f;              /* the stage being resolved (NULL: scalar
                             * context) */
    Scope *sc;
    const char *scalar_ctx; /* set: only sizes, scalars and literals */
    int cond;               /* inside a select branch */
} RCtx;

static void walk(RCtx *r, TlExpr *e);

static int is_function(const void *sym)
{
    TlRefKind k = tl_ref_kind(sym);
    return k == REF_BUILTIN || k == REF_EXTERN || k == REF_KERNEL ||
           k == REF_TYPEVAR;
}

static int is_value(const void *sym)
{
    return !is_function(sym);
}

/* Looks name up in the scopes, then among the builtins.  A name that
 * two imported modules define is reported (once per use) and treated
 * as the first one, so that nothing cascades. */
static void *lookup(RCtx *r, const char *name, TlLoc loc)
{
    ScopeEnt *e = rsv_find(r->sc, name);
    Chk *c = r->kc->c;

    if (e) {
        if (e->other) {
            diag_error(c->s, loc, DIAG_AMBIGUOUS_NAME, name, e->module,
                       e->other);
            diag_hint(c->s, "import one of the modules with 'as NAME' and "
                        "write NAME.%s", name);
        }
        return e->sym;
    }
    return (void *)rsv_builtin(name);
}

/* Records that stage r->f needs tensor g (reads or call inputs). */
void rsv_dep(Kern *kc, TlFunc *f, TlFunc *g, TlLoc loc)
{
    Chk *c = kc->c;
    FuncX *fx;
    TlLoc *l;

    if (!f || !g)
        return;
    g->used = 1;
    if (g->kind == FN_CONST) {
        for (int i = 0; i < kc->consts.n; i++)
            if (kc->consts.v[i] == g)
                return;
        vec_push(c->a, &kc->consts, g);
        return;
    }
    if (g->kind == FN_INPUT)
        return;
    fx = chk_fx(c, f);
    l = arena_alloc(c->a, sizeof *l);
    *l = loc;
    vec_push(c->a, &fx->deps, g);
    vec_push(c->a, &fx->dep_locs, l);
}

/* The tensor a name stands for, for reads: a TlFunc of the kernel or
 * the FN_CONST func of a top-level let.  NULL (quietly) when the let
 * had an error; reports anything that is not a tensor. */
static TlFunc *tensor_of(RCtx *r, TlExpr *name, void *sym, int indexed)
{
    Chk *c = r->kc->c;

    if (tl_ref_kind(sym) == REF_LET) {
        TlLet *l = sym;
        chk_let(c, l);
        if (!l->func) {
            if (l->checked == 2) {
                diag_error(c->s, name->loc, DIAG_LET_TYPE_UNKNOWN, l->name);
                diag_note(c->s, l->loc, "'%s' is defined here", l->name);
                diag_hint(c->s, "declare its type where it is defined, "
                                "as in 'let %s: f32[64, 3] = load(...)', "
                                "or pass it to the kernel as a parameter",
                          l->name);
            }
            return NULL;
        }
        sym = l->func;
    }
    if (tl_ref_kind(sym) == REF_FUNC)
        return sym;
    if (indexed)
        diag_error(c->s, name->loc, DIAG_NOT_INDEXABLE, name->str,
                   rsv_what(sym));
    return NULL;
}

/* `hash(x)` in a kernel (SPEC 6.8): x is a tensor parameter of the
 * kernel, named whole, and the call is in an `assert`.  The argument's
 * sym is then the parameter (a TlFunc of any rank: only hash reads a
 * tensor whole, and no read is made of it). */
static void walk_hash(RCtx *r, TlExpr *e, void *b)
{
    Chk *c = r->kc->c;
    TlExpr *x = e->args.v[0];
    void *sym = x && x->kind == EX_NAME ? lookup(r, x->str, x->loc) : NULL;
    TlFunc *f = tl_ref_kind(sym) == REF_FUNC ? sym : NULL;

    if (!f || f->kind != FN_INPUT || f->kernel != r->kc->k ||
        !tl_func_is_assert(r->f)) {
        diag_error(c->s, x ? x->loc : e->loc, DIAG_BUILTIN_ARG, 1, "hash",
                   "a tensor parameter of the kernel, in an 'assert'");
        return;
    }
    e->sym = e->a->sym = b;
    x->sym = f;
}

static void walk_name(RCtx *r, TlExpr *e)
{
    Chk *c = r->kc->c;
    void *sym = lookup(r, e->str, e->loc);
    TlFunc *g;

    if (!sym && dt_from_name(e->str, strlen(e->str)) != DT_NONE) {
        /* A bare dtype names a type only in top-level calls such as
         * rand(f32, [4]). */
        diag_error(c->s, e->loc, DIAG_NOT_IN_KERNEL, "a dtype name");
        diag_hint(c->s, "to convert a value, write %s(...)", e->str);
        return;
    }
    if (!sym) {
        diag_error(c->s, e->loc, DIAG_UNKNOWN_NAME, e->str);
        rsv_suggest(c, r->sc, e->str, is_value);
        return;
    }
    if (is_function(sym)) {
        diag_error(c->s, e->loc, DIAG_FUNCTION_AS_VALUE, e->str,
                   rsv_what(sym));
        if (tl_ref_kind(sym) == REF_TYPEVAR)
            diag_hint(c->s, "to convert a value, write %s(...)", e->str);
        else
            diag_hint(c->s, "call it: %s(...)", e->str);
        return;
    }
    if (tl_ref_kind(sym) == REF_VAR && ((TlVar *)sym)->pack) {
        gen_pack_bare(c, e->loc, sym);
        return;
    }
    if (tl_ref_kind(sym) == REF_VAR) {
        TlVar *v = sym;
        if (r->scalar_ctx && (v->kind == VAR_INDEX || v->kind == VAR_RVAR)) {
            diag_error(c->s, e->loc, DIAG_NOT_SCALAR_CONTEXT, rsv_what(v),
                       e->str, r->scalar_ctx);
            diag_note(c->s, v->loc, "'%s' is introduced here", v->name);
            return;
        }
        e->sym = v;
        return;
    }
    if (r->scalar_ctx) {
        diag_error(c->s, e->loc, DIAG_NOT_SCALAR_CONTEXT, rsv_what(sym),
                   e->str, r->scalar_ctx);
        return;
    }
    g = tensor_of(r, e, sym, 0);
    if (!g)
        return;
    if (g->rank > 0 && tl_func_is_assert(r->f)) {
        diag_error(c->s, e->loc, DIAG_ASSERT_NOT_SCALAR, e->str, g->rank);
        diag_hint(c->s, "reduce it to one value: assert min(i) %s[i] > 0",
                  e->str);
        return;
    }
    if (g->rank > 0) {
        diag_error(c->s, e->loc, DIAG_TENSOR_NOT_INDEXED, e->str, g->rank);
        diag_hint(c->s, "index it: %s[...]", e->str);
        return;
    }
    e->sym = g;
    if (g->rank == 0)
        rsv_dep(r->kc, r->f, g, e->loc);
}

static void walk_index(RCtx *r, TlExpr *e)
{
    Chk *c = r->kc->c;
    TlExpr *base = e->a, *name = base;
    TlReadMode mode = READ_PLAIN;
    TlFunc *g;
    TlRead *rd;
    void *sym;
    int npack = 0;

    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (x && x->kind == EX_SLICE) {
            diag_error(c->s, x->loc, DIAG_NOT_IN_KERNEL, "a slice");
            return;
        }
    }
    /* `..i`: the stage's index pack (its length is the instance's). */
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        TlVar *v;
        if (!x || x->kind != EX_NAME || !x->ival || !x->str)
            continue;
        v = lookup(r, x->str, x->loc);
        if (++npack > 1) {
            diag_error(c->s, x->loc, DIAG_TWO_PACKS, x->str, "index list");
            return;
        }
        if (tl_ref_kind(v) != REF_VAR || v->kind != VAR_INDEX || !v->pack) {
            gen_not_index_pack(c, x, v);
            return;
        }
        x->sym = v;
        if (!r->kc->generic)
            return;     /* reported on the stage's left side */
    }
    if (!base)
        return;
    if (r->scalar_ctx) {
        diag_error(c->s, e->loc, DIAG_NOT_SCALAR_CONTEXT, "tensor read",
                   base->str ? base->str : "?", r->scalar_ctx);
        return;
    }
    if (base->kind == EX_MEMBER) {
        name = base->a;
        if (!name || name->kind != EX_NAME) {
            diag_error(c->s, base->loc, DIAG_NOT_INDEXABLE,
                       base->str ? base->str : "?", "member");
            return;
        }
        if (base->str && !strcmp(base->str, "zero_pad"))
            mode = READ_ZERO_PAD;
        else if (base->str && !strcmp(base->str, "clamp_edge"))
            mode = READ_CLAMP_EDGE;
        else {
            diag_error(c->s, base->loc, DIAG_UNKNOWN_MEMBER,
                       base->str ? base->str : "?", name->str);
            return;
        }
    }
    if (name->kind == EX_CALL) {
        const char *callee = rsv_dotted(c, name->a);
        sym = callee ? lookup(r, callee, name->loc) : NULL;
        if (tl_ref_kind(sym) == REF_KERNEL) {
            diag_error(c->s, name->loc, DIAG_CALL_IN_EXPR, callee);
            diag_hint(c->s, "bind the call first: t = %s(...), then read "
                            "t[...]", callee);
        } else {
            diag_error(c->s, name->loc, DIAG_NOT_INDEXABLE,
                       callee ? callee : "?", "function call");
        }
        return;
    }
    if (name->kind != EX_NAME) {
        walk(r, name);
        diag_error(c->s, name->loc, DIAG_NOT_INDEXABLE, "expression",
                   "value");
        return;
    }
    sym = lookup(r, name->str, name->loc);
    if (!sym) {
        diag_error(c->s, name->loc, DIAG_UNKNOWN_NAME, name->str);
        rsv_suggest(c, r->sc, name->str, is_value);
        return;
    }
    if (is_function(sym)) {
        diag_error(c->s, name->loc, DIAG_NOT_INDEXABLE, name->str,
                   rsv_what(sym));
        diag_hint(c->s, "call it with (...), not [...]");
        return;
    }
    if (mode != READ_PLAIN && tl_ref_kind(sym) != REF_FUNC &&
        tl_ref_kind(sym) != REF_LET) {
        diag_error(c->s, base->loc, DIAG_MEMBER_NOT_TENSOR, base->str,
                   name->str, rsv_what(sym));
        return;
    }
    g = tensor_of(r, name, sym, 1);
    if (!g)
        return;
    name->sym = g;
    if (mode != READ_PLAIN && g->rank == 0) {
        diag_error(c->s, base->loc, DIAG_HELPER_RANK0, name->str, base->str);
        return;
    }
    if (!npack && g->rank >= 0 && g->rank != e->args.n) {
        diag_error(c->s, e->loc, DIAG_INDEX_COUNT, name->str, g->rank,
                   e->args.n, e->args.n == 1 ? "index is" : "indices are");
        return;
    }
    for (int i = 0; i < e->args.n; i++)
        walk(r, e->args.v[i]);
    rd = arena_alloc(c->a, sizeof *rd);
    rd->ref = REF_READ;
    rd->func = g;
    rd->in = r->f;
    rd->mode = mode;
    rd->expr = e;
    rd->conditional = r->cond;
    if (e->args.n) {
        rd->lo = arena_alloc(c->a, (size_t)e->args.n * sizeof *rd->lo);
        rd->hi = arena_alloc(c->a, (size_t)e->args.n * sizeof *rd->hi);
    }
    e->sym = rd;
    if (mode != READ_PLAIN && g->kind == FN_STAGE)
        g->fixed = 1;
    if (r->f) {
        vec_push(c->a, &chk_fx(c, r->f)->reads_in, rd);
        vec_push(c->a, &chk_fx(c, g)->reads_of, rd);
    }
    rsv_dep(r->kc, r->f, g, name->loc);
}

static const char *plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "1 argument", "2 to 4 arguments" */
static const char *count_text(Chk *c, int lo, int hi)
{
    if (lo == hi)
        return arena_printf(c->a, "%d %s", lo,
                            plural(lo, "argument", "arguments"));
    return arena_printf(c->a, "%d to %d arguments", lo, hi);
}

static int check_arity(RCtx *r, TlExpr *e, const char *name, int lo, int hi)
{
    Chk *c = r->kc->c;

    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (x && x->kind == EX_NAMED) {
            diag_error(c->s, x->loc, DIAG_NAMED_ARG_NOT_ALLOWED, name);
            return 0;
        }
    }
    if (e->args.n < lo || e->args.n > hi) {
        diag_error(c->s, e->loc, DIAG_ARITY, name, count_text(c, lo, hi),
                   e->args.n, plural(e->args.n, "was", "were"));
        return 0;
    }
    return 1;
}

static void walk_call(RCtx *r, TlExpr *e)
{
    Chk *c = r->kc->c;
    const char *name = rsv_dotted(c, e->a);
    void *sym;

    if (!name) {
        diag_error(c->s, e->a ? e->a->loc : e->loc, DIAG_NOT_CALLABLE,
                   "expression", "value");
        return;
    }
    sym = lookup(r, name, e->a->loc);
    if (!sym) {
        diag_error(c->s, e->a->loc, DIAG_UNKNOWN_FUNCTION, name);
        rsv_suggest(c, r->sc, name, is_function);
        return;
    }
    /* Kernel calls never stand inside an element expression, so there a
     * builtin's name means the builtin even when an imported module
     * has a kernel of that name (std.nn's `sigmoid` serves whole
     * tensors; `sigmoid(x[i])` is still the scalar function). */
    if (tl_ref_kind(sym) == REF_KERNEL && !e->b && rsv_builtin(name) &&
        !rsv_builtin(name)->top_level)
        sym = (void *)rsv_builtin(name);
    if (e->b && tl_ref_kind(sym) != REF_KERNEL) {
        diag_error(c->s, e->b->loc, DIAG_NOT_GENERIC, name);
        return;
    }
    switch (tl_ref_kind(sym)) {
    case REF_TYPEVAR:
        /* `T(x)`: a cast, made one in each instance. */
        if (!check_arity(r, e, name, 1, 1))
            return;
        e->a->sym = sym;
        walk(r, e->args.v[0]);
        return;
    case REF_BUILTIN: {
        const TlBuiltin *b = sym;
        if (b->top_level) {
            diag_error(c->s, e->a->loc, DIAG_TOP_LEVEL_ONLY, name);
            return;
        }
        if (!check_arity(r, e, name, b->min_args, b->max_args))
            return;
        if (b->id == BI_HASH) {
            walk_hash(r, e, sym);
            return;
        }
        e->sym = e->a->sym = sym;
        for (int i = 0; i < e->args.n; i++) {
            int save = r->cond;
            if (b->id == BI_SELECT && i > 0)
                r->cond = 1;
            walk(r, e->args.v[i]);
            r->cond = save;
        }
        return;
    }
    case REF_EXTERN: {
        TlExternInfo *x = sym;
        if (r->scalar_ctx) {
            diag_error(c->s, e->a->loc, DIAG_NOT_SCALAR_CONTEXT,
                       "extern function", name, r->scalar_ctx);
            return;
        }
        if (x->tensors) {
            diag_error(c->s, e->a->loc, DIAG_EXTERN_TENSOR_PARAM, name);
            diag_hint(c->s, "call it in a top-level statement");
            return;
        }
        if (!check_arity(r, e, name, x->nparams, x->nparams))
            return;
        e->sym = e->a->sym = sym;
        for (int i = 0; i < e->args.n; i++)
            walk(r, e->args.v[i]);
        return;
    }
    case REF_KERNEL:
        diag_error(c->s, e->loc, DIAG_CALL_IN_EXPR, name);
        diag_hint(c->s, "bind the call first: t = %s(...), then read "
                        "t[...]", name);
        return;
    default:
        diag_error(c->s, e->a->loc, DIAG_NOT_CALLABLE, name, rsv_what(sym));
        if (tl_ref_kind(sym) == REF_FUNC || tl_ref_kind(sym) == REF_LET)
            diag_hint(c->s, "index a tensor with [...]: %s[...]", name);
        return;
    }
}

/* Does e read one of red's reduction variables? */
static int reads_rvar(const TlExpr *e, const TlReduce *red)
{
    if (!e)
        return 0;
    for (int i = 0; i < red->nrvars; i++)
        if (e->sym == red->rvars[i])
            return 1;
    if (reads_rvar(e->a, red) || reads_rvar(e->b, red) ||
        reads_rvar(e->c, red))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (reads_rvar(e->args.v[i], red))
            return 1;
    return 0;
}

/* A reduction's body extends as far right as it can (SPEC 7.6), so
 * `sum(k) A[s, k] * W[k, d] + X[s, d]` adds X once for each k, where a
 * residual was meant: warn for each term of the body's top-level
 * `+`/`-` chain that reads no reduction variable.  A body written in
 * parentheses says the term belongs inside. */
static void warn_invariant_terms(Chk *c, const TlExpr *body,
                                 const TlReduce *red)
{
    const TlExpr *e = body;
    char names[128];
    size_t len = 0;

    if (!body || body->parens || body->kind != EX_BINARY ||
        (body->op != OP_ADD && body->op != OP_SUB))
        return;
    names[0] = 0;
    for (int i = 0; i < red->nrvars && len + 8 < sizeof names; i++) {
        int w = snprintf(names + len, sizeof names - len, "%s'%s'",
                         i == 0 ? "" : i == red->nrvars - 1 ? " or " : ", ",
                         red->rvars[i]->name);
        if (w < 0 || (size_t)w >= sizeof names - len)
            break;
        len += (size_t)w;
    }
    while (e->kind == EX_BINARY && !e->parens &&
           (e->op == OP_ADD || e->op == OP_SUB)) {
        if (!reads_rvar(e->b, red)) {
            diag_warning(c->s, e->b->loc, DIAG_SUM_TERM_INVARIANT, names);
            diag_hint(c->s, "to add it once, close the reduction before "
                      "it: (sum(...) ...) + term; to keep it inside, put "
                      "the body in parentheses");
        }
        e = e->a;
    }
    if (!reads_rvar(e, red)) {
        diag_warning(c->s, e->loc, DIAG_SUM_TERM_INVARIANT, names);
        diag_hint(c->s, "to add it once, take it out of the reduction: "
                  "term + sum(...) ...; to keep it inside, put the body in "
                  "parentheses");
    }
}

static void walk_reduce(RCtx *r, TlExpr *e)
{
    Chk *c = r->kc->c;
    TlReduce *red = arena_alloc(c->a, sizeof *red);
    Scope *outer = r->sc, *sc = rsv_scope(c, outer, "reduction");
    int n = 0;

    red->ref = REF_REDUCE;
    red->op = e->op;
    red->expr = e;
    red->func = r->f;
    red->rvars = arena_alloc(c->a, (size_t)(e->args.n + 1) *
                                       sizeof *red->rvars);
    e->sym = red;
    if ((e->op == RD_ARGMAX || e->op == RD_ARGMIN) && e->args.n != 1) {
        diag_error(c->s, e->loc, DIAG_ARG_REDUCE_VARS, op_spelling(e->op),
                   e->args.n);
        diag_hint(c->s, "reduce over one variable, e.g. %s(k) x[k]",
                  op_spelling(e->op));
    }
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        ScopeEnt *prev;
        TlVar *v;

        if (!x || x->kind != EX_NAME || !x->str)
            continue;
        /* Ranges see the names outside this reduction only. */
        if (x->a || x->b) {
            RCtx rr = *r;
            rr.sc = outer;
            rr.scalar_ctx = "a reduction range";
            walk(&rr, x->a);
            walk(&rr, x->b);
        }
        if ((prev = rsv_here(sc, x->str))) {
            diag_error(c->s, x->loc, DIAG_DUPLICATE_RVAR, x->str);
            diag_note(c->s, prev->loc, "'%s' is first introduced here",
                      x->str);
            continue;
        }
        prev = rsv_find(outer, x->str);
        if (prev && prev != rsv_here(c->top, x->str)) {
            diag_error(c->s, x->loc, DIAG_RVAR_SHADOWS, x->str,
                       rsv_what(prev->sym));
            diag_note(c->s, prev->loc, "the %s '%s' is introduced here",
                      rsv_what(prev->sym), x->str);
            diag_hint(c->s, "give the reduction variable another name");
            continue;
        }
        v = chk_var(c, VAR_RVAR, x->str, x->loc);
        v->num = n;
        v->func = r->f;
        v->red = red;
        v->dtype = DT_I32;
        red->rvars[n++] = v;
        x->sym = v;
        rsv_add(c, sc, x->str, v, x->loc);
    }
    red->nrvars = n;
    r->sc = sc;
    walk(r, e->a);
    r->sc = outer;
    if (e->op == RD_SUM && red->nrvars == e->args.n)
        warn_invariant_terms(c, e->a, red);
    if (r->f) {
        TlFunc *f = r->f;
        TlReduce **v = arena_alloc(c->a, (size_t)(f->nreds + 1) * sizeof *v);
        if (f->nreds)
            memcpy(v, f->reds, (size_t)f->nreds * sizeof *v);
        v[f->nreds++] = red;
        f->reds = v;
    }
}

static void walk(RCtx *r, TlExpr *e)
{
    Chk *c = r->kc->c;

    if (!e)
        return;
    switch (e->kind) {
    case EX_INT:
    case EX_FLOAT:
    case EX_BOOL:
        return;
    case EX_STR:        /* a str literal (SPEC 8.6) */
        return;
    case EX_NAME:
        if (e->ival)
            return;     /* `..i`, resolved with its index list */
        if (e->str)
            walk_name(r, e);
        return;
    case EX_MEMBER: {
        const char *d = rsv_dotted(c, e);
        diag_error(c->s, e->loc, DIAG_MEMBER_NOT_VALUE, d ? d : "?");
        return;
    }
    case EX_INDEX:
        walk_index(r, e);
        return;
    case EX_SLICE:
        diag_error(c->s, e->loc, DIAG_NOT_IN_KERNEL, "a slice");
        return;
    case EX_CALL:
        walk_call(r, e);
        return;
    case EX_NAMED:
        walk(r, e->a);
        return;
    case EX_REDUCE:
        if (r->scalar_ctx) {
            diag_error(c->s, e->loc, DIAG_NOT_SCALAR_CONTEXT, "reduction",
                       op_spelling(e->op), r->scalar_ctx);
            return;
        }
        walk_reduce(r, e);
        return;
    case EX_UNARY:
    case EX_CAST:
        walk(r, e->a);
        return;
    case EX_BINARY:
        walk(r, e->a);
        walk(r, e->b);
        return;
    case EX_LIST:
        diag_error(c->s, e->loc, DIAG_NOT_IN_KERNEL, "a list");
        return;
    case EX_ON:
        diag_error(c->s, e->loc, DIAG_NOT_IN_KERNEL, "'on'");
        return;
    case EX__COUNT:
        break;
    }
}

void rsv_stage(Kern *kc, TlFunc *f, Scope *sc, TlExpr *e)
{
    RCtx r = {kc, f, sc, NULL, 0};
    walk(&r, e);
}

void rsv_scalar_expr(Kern *kc, TlExpr *e, const char *what)
{
    RCtx r = {kc, NULL, kc->scope, what, 0};
    walk(&r, e);
}
