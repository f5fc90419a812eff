/*
 * checktop.c - imports and top-level statements.
 *
 * An import loads a module through the session's loader, checks it
 * once, and makes its kernels and externs visible unqualified and
 * under the module's name (`relu`, `nn.relu`, `std.nn.relu`).
 *
 * Top-level statements run in order, so a `let` must come before its
 * uses (kernels may use any top-level tensor, as a constant; a call of
 * such a kernel must come after the tensor's definition).  Values are
 * typed as far as the checker can know them: shapes are numbers when
 * they come from literals (rand, zeros, ...) and kernel calls on such
 * tensors; `load` gives a tensor of unknown type.
 */
#include "lang/lang_int.h"

#include <math.h>
#include <string.h>

/* ====================================================================
 * Imports
 * ==================================================================== */

static int checked_already(const TlProgram *p)
{
    for (int i = 0; i < p->items.n; i++)
        if (p->items.v[i] && p->items.v[i]->sym)
            return 1;
    return 0;
}

static void add_imported(Chk *c, const char *name, void *sym, TlLoc loc,
                         const char *module)
{
    ScopeEnt *prev = rsv_add(c, c->top, name, sym, loc);

    if (!prev) {
        rsv_here(c->top, name)->module = module;
        return;
    }
    if (prev->sym != sym && prev->module && !prev->other)
        prev->other = module;
}

void chk_import(Chk *c, TlItem *it)
{
    TlSession *s = c->s;
    TlProgram *m;
    const char *alias = it->alias;

    if (!s->load_module || !it->path)
        return;
    m = s->load_module(s, it->path, it->loc);
    if (!m)
        return;
    it->sym = m;
    for (int i = 0; i < c->stack->n; i++)
        if (c->stack->v[i] == m) {
            diag_error(s, it->loc, DIAG_IMPORT_CYCLE, it->path);
            return;
        }
    if (c->stack->n > 64) {
        diag_error(s, it->loc, DIAG_IMPORT_CYCLE, it->path);
        return;
    }
    if (!checked_already(m)) {
        Chk sub = *c;
        sub.cur_let = NULL;
        sub.module = it->path;
        sub.allow_redefine = 0;
        chk_program(&sub, m);
    }
    /* `import std.nn`: relu, nn.relu, std.nn.relu;
     * `import std.nn as k`: k.relu only (SPEC 5.2). */
    if (!alias && !it->is_file) {
        const char *dot = strrchr(it->path, '.');
        alias = dot ? dot + 1 : it->path;
    }
    for (int i = 0; i < m->items.n; i++) {
        TlItem *x = m->items.v[i];
        if (!x || !x->name || !x->sym ||
            (x->kind != IT_KERNEL && x->kind != IT_EXTERN))
            continue;
        if (!it->alias)
            add_imported(c, x->name, x->sym, x->name_loc, it->path);
        if (alias)
            add_imported(c, arena_printf(c->a, "%s.%s", alias, x->name),
                         x->sym, x->name_loc, it->path);
        if (!it->alias && !it->is_file && strcmp(alias, it->path))
            add_imported(c, arena_printf(c->a, "%s.%s", it->path, x->name),
                         x->sym, x->name_loc, it->path);
    }
}

/* ====================================================================
 * Values of top-level expressions
 * ==================================================================== */

typedef enum {
    TV_ERR,         /* an error was reported */
    TV_VALUE,       /* a tensor or scalar (rank 0); rank -1: unknown */
    TV_STR,
    TV_DTYPE,
    TV_LIST,
    TV_NONE,        /* no value (save) */
    TV_MULTI        /* a call with several outputs */
} TvKind;

typedef struct TVal {
    TvKind kind;
    TlDType dt;             /* DT_NONE: unknown (load) */
    int rank;
    TlSymExpr **shape;      /* [rank]: known sizes, else NULL entries */
    TlCall *call;           /* TV_MULTI, and calls */
} TVal;

static const TVal err = {TV_ERR, DT_NONE, -1, NULL, NULL};

static TVal top(Chk *c, TlExpr **slot);

static TVal value(TlDType dt, int rank, TlSymExpr **shape)
{
    TVal v = {TV_VALUE, dt, rank, shape, NULL};
    return v;
}

static TVal kind_only(TvKind k)
{
    TVal v = {k, DT_NONE, -1, NULL, NULL};
    return v;
}

/* "'f32[4, 5]'", "a string", ... for messages. */
static const char *describe(Chk *c, TVal v)
{
    TlBuf b;
    const char *r;

    switch (v.kind) {
    case TV_STR: return "a string";
    case TV_DTYPE: return "a dtype";
    case TV_LIST: return "a list";
    case TV_NONE: return "no value";
    case TV_MULTI: return "several values";
    default: break;
    }
    if (v.rank < 0)
        return "a tensor";
    buf_init(&b);
    buf_printf(&b, "'%s", dt_name(v.dt));
    if (v.rank > 0) {
        buf_putc(&b, '[');
        for (int i = 0; i < v.rank; i++) {
            if (i)
                buf_puts(&b, ", ");
            tl_sym_print(&b, v.shape ? v.shape[i] : NULL);
        }
        buf_putc(&b, ']');
    }
    buf_putc(&b, '\'');
    r = arena_strdup(c->a, b.s);
    buf_free(&b);
    return r;
}

/* The dtype a bare dtype keyword argument names, or DT_NONE. */
static TlDType dtype_token(const TlExpr *e)
{
    if (!e)
        return DT_NONE;
    if (e->kind == EX_NAME && e->str)
        return dt_from_name(e->str, strlen(e->str));
    if (e->kind == EX_CAST && !e->a)
        return e->dtype;
    return DT_NONE;
}

static ScopeEnt *lookup_top(Chk *c, const char *name, TlLoc loc)
{
    ScopeEnt *e = rsv_find(c->local ? c->local : c->top, name);

    if (e && e->other) {
        diag_error(c->s, loc, DIAG_AMBIGUOUS_NAME, name, e->module,
                   e->other);
        diag_hint(c->s, "import one of the modules with 'as NAME' and "
                        "write NAME.%s", name);
    }
    return e;
}

static int is_value_sym(const void *sym)
{
    return tl_ref_kind(sym) == REF_LET;
}

static int is_callable(const void *sym)
{
    TlRefKind k = tl_ref_kind(sym);
    return k == REF_KERNEL || k == REF_EXTERN || k == REF_BUILTIN;
}

static TVal let_value(Chk *c, TlExpr *e, TlLet *l)
{
    if (l->pos >= c->item_pos)
        l = chk_prior_let(c, l);    /* the REPL's `let a = a + 1` */
    if (l->pos >= c->item_pos) {
        diag_error(c->s, e->loc, DIAG_USE_BEFORE_DEF, l->name);
        diag_note(c->s, l->loc, "'%s' is defined here", l->name);
        return err;
    }
    chk_let(c, l);
    e->sym = l;
    if (l->checked == 3)
        return err;
    if (l->vkind != TV_VALUE)
        return kind_only((TvKind)l->vkind);
    return value(l->dtype, l->rank, l->shape);
}

static TVal top_name(Chk *c, TlExpr *e)
{
    ScopeEnt *ent;
    const char *name = rsv_dotted(c, e);

    if (!name)
        return err;
    if (e->kind == EX_NAME && dtype_token(e) != DT_NONE)
        return kind_only(TV_DTYPE);
    ent = lookup_top(c, name, e->loc);
    if (ent && tl_ref_kind(ent->sym) == REF_LET)
        return let_value(c, e, ent->sym);
    if (ent && tl_ref_kind(ent->sym) == REF_VAR) {
        e->sym = ent->sym;      /* a reduction variable */
        return value(DT_I32, 0, NULL);
    }
    if (e->kind == EX_MEMBER && e->str &&
        (!strcmp(e->str, "zero_pad") || !strcmp(e->str, "clamp_edge"))) {
        diag_error(c->s, e->loc, DIAG_NOT_AT_TOP_LEVEL,
                   arena_printf(c->a, "'%s'", e->str));
        return err;
    }
    if ((ent && is_callable(ent->sym)) || rsv_builtin(name)) {
        void *sym = ent ? ent->sym : (void *)rsv_builtin(name);
        diag_error(c->s, e->loc, DIAG_FUNCTION_AS_VALUE, name,
                   rsv_what(sym));
        diag_hint(c->s, "call it: %s(...)", name);
        return err;
    }
    diag_error(c->s, e->loc, DIAG_UNKNOWN_NAME, name);
    rsv_suggest(c, c->top, name, is_value_sym);
    return err;
}

/* A constant integer argument (literal, maybe negated), or 0. */
static int const_int(const TlExpr *e, int64_t *v)
{
    if (e && e->kind == EX_INT) {
        *v = e->ival;
        return 1;
    }
    if (e && e->kind == EX_UNARY && e->op == OP_NEG && e->a &&
        e->a->kind == EX_INT && e->a->ival != INT64_MIN) {
        *v = -e->a->ival;
        return 1;
    }
    return 0;
}

static int const_num(const TlExpr *e, double *v)
{
    int64_t i;

    if (const_int(e, &i)) {
        *v = (double)i;
        return 1;
    }
    if (e && e->kind == EX_FLOAT) {
        *v = e->fval;
        return 1;
    }
    if (e && e->kind == EX_UNARY && e->op == OP_NEG && e->a &&
        e->a->kind == EX_FLOAT) {
        *v = -e->a->fval;
        return 1;
    }
    return 0;
}

/* An integer scalar operand; reports otherwise. */
static int int_scalar(Chk *c, TlExpr **slot, TVal v, int pos,
                      const char *what)
{
    if (v.kind == TV_ERR)
        return 0;
    if (v.kind != TV_VALUE || v.rank != 0 ||
        !(dt_is_int(v.dt) || (ty_weak(*slot) && (*slot)->dtype == DT_I32))) {
        diag_error(c->s, (*slot)->loc, DIAG_INDEX_NOT_INT, pos, what,
                   describe(c, v));
        return 0;
    }
    return 1;
}

static TVal top_index(Chk *c, TlExpr *e)
{
    TVal b = top(c, &e->a);
    TlSymExpr **shape;
    int rank = 0;
    const char *name = e->a && e->a->str ? e->a->str : "value";

    for (int i = 0; i < e->args.n; i++)
        if (e->args.v[i] && e->args.v[i]->kind == EX_SLICE)
            rank++;
    if (b.kind == TV_ERR)
        return err;
    if (b.kind != TV_VALUE || b.rank == 0) {
        const char *what = b.kind == TV_VALUE ? "scalar" : describe(c, b);

        /* The message supplies its own article: "is a dtype". */
        if (!strncmp(what, "a ", 2))
            what += 2;
        diag_error(c->s, e->a->loc, DIAG_NOT_INDEXABLE, name, what);
        return err;
    }
    if (b.rank > 0 && b.rank != e->args.n) {
        diag_error(c->s, e->loc, DIAG_INDEX_COUNT, name, b.rank, e->args.n,
                   e->args.n == 1 ? "index is" : "indices are");
        return err;
    }
    shape = arena_alloc(c->a, (size_t)(rank + 1) * sizeof *shape);
    rank = 0;
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        int64_t n = -1, v;
        if (!x)
            return err;
        if (b.rank > 0 && b.shape && b.shape[i])
            tl_sym_const(b.shape[i], &n);
        if (x->kind == EX_SLICE) {
            TlExpr **parts[3] = {&x->a, &x->b, &x->c};
            int64_t lo = 0, hi = n, step = 1, known = n >= 0;
            for (int j = 0; j < 3; j++) {
                if (!*parts[j])
                    continue;
                if (!int_scalar(c, parts[j], top(c, parts[j]), i + 1, name))
                    return err;
                if (!const_int(*parts[j], &v))
                    known = 0;
                else if (j == 0)
                    lo = v;
                else if (j == 1)
                    hi = v;
                else
                    step = v;
            }
            if (x->c && const_int(x->c, &v) && v <= 0) {
                diag_error(c->s, x->c->loc, DIAG_SLICE_STEP, (long long)v);
                return err;
            }
            /* numpy: negative ends count from the end; both clamp. */
            shape[rank] = NULL;
            if (known) {
                lo = lo < 0 ? (lo + n < 0 ? 0 : lo + n) : lo > n ? n : lo;
                hi = hi < 0 ? (hi + n < 0 ? 0 : hi + n) : hi > n ? n : hi;
                shape[rank] = sym_const(c->a, hi > lo ? (hi - lo + step - 1)
                                                            / step : 0);
            }
            rank++;
            continue;
        }
        if (!int_scalar(c, &e->args.v[i], top(c, &e->args.v[i]), i + 1,
                        name))
            return err;
        if (n >= 0 && const_int(x, &v) && (v >= n || v < -n)) {
            diag_error(c->s, x->loc, DIAG_TOP_INDEX_OOB, (long long)v, i,
                       name, (long long)n);
            return err;
        }
    }
    /* An unknown rank is checked at run time; the result has one axis
     * per slice either way. */
    return value(b.dt, rank, shape);
}

/* ====================================================================
 * Calls
 * ==================================================================== */

static TVal top_kernel_call(Chk *c, TlExpr *e, TlKernelInfo *k)
{
    int np = k->ninputs + k->nscalars, bad = 0;
    TlCall *call;
    ShpArg *args;

    if (!chk_kernel(c, k)) {
        /* Only a let that the kernel reads gets here. */
        if (c->cur_let) {
            diag_error(c->s, e->loc, DIAG_LET_CYCLE, c->cur_let->name);
            diag_note(c->s, k->item->name_loc, "kernel '%s' reads '%s'",
                      k->name, c->cur_let->name);
        } else {
            diag_error(c->s, e->loc, DIAG_RECURSIVE_CALL, k->name);
        }
        return err;
    }
    call = arena_alloc(c->a, sizeof *call);
    call->ref = REF_CALL;
    call->callee = k;
    call->loc = e->loc;
    call->expr = e;
    call->args = arena_alloc(c->a, (size_t)(np + 1) * sizeof *call->args);
    call->scalars = arena_alloc(c->a, (size_t)(k->nscalars + 1) *
                                          sizeof *call->scalars);
    call->results = arena_alloc(c->a, (size_t)(k->noutputs + 1) *
                                          sizeof *call->results);
    if (shp_match_args(c, k, e, call->args) < 0)
        return err;
    e->sym = call;
    args = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *args);
    for (int i = 0; i < k->ninputs; i++) {
        TlExpr **slot = &call->args[i];
        TVal v = top(c, slot);
        args[i].expr = *slot;
        args[i].dtype = DT_NONE;
        args[i].rank = -1;
        if (v.kind == TV_ERR) {
            bad = 1;
            continue;
        }
        if (v.kind != TV_VALUE) {
            diag_error(c->s, (*slot)->loc, DIAG_ARG_NOT_TENSOR,
                       k->inputs[i]->name, k->name, describe(c, v));
            bad = 1;
            continue;
        }
        args[i].dtype = v.dt;
        args[i].rank = v.rank;
        args[i].shape = v.shape;
    }
    /* A generic kernel: the call runs the instance for these types. */
    if (k->generic || e->b) {
        if (bad || !(k = gen_top_instance(c, k, e, args)))
            return err;
        call->callee = k;
    }
    for (int j = 0; j < k->nscalars; j++) {
        TlExpr **slot = &call->args[k->ninputs + j];
        TlVar *p = k->scalars[j];
        TVal v;
        if (!*slot)
            continue;
        v = top(c, slot);
        if (v.kind == TV_ERR) {
            bad = 1;
            continue;
        }
        if (v.kind != TV_VALUE || v.rank != 0) {
            diag_error(c->s, (*slot)->loc, DIAG_SCALAR_ARG_NOT_SCALAR,
                       p->name, k->name, describe(c, v));
            bad = 1;
        } else if (v.dt != DT_NONE && !ty_fits(c, slot, p->dtype)) {
            diag_error(c->s, (*slot)->loc, DIAG_KERNEL_ARG_DTYPE, p->name,
                       k->name, dt_name(v.dt), dt_name(p->dtype));
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            bad = 1;
        }
    }
    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *o = k->outputs[i];
        TlFunc *r = chk_func(c, FN_CALL, o->name, e->loc, o->rank);
        r->call = call;
        r->call_out = i;
        call->results[i] = r;
    }
    if (bad)
        return err;
    shp_call(c, call, args);
    /* The kernel reads top-level tensors, which must exist by now. */
    for (int i = 0; i < k->nconsts; i++) {
        TlLet *l = k->consts[i]->let;
        if (l && l->pos >= c->item_pos) {
            diag_error(c->s, e->loc, DIAG_CONST_BEFORE_DEF, k->name, l->name);
            diag_note(c->s, l->loc, "'%s' is defined here", l->name);
            return err;
        }
    }
    if (k->noutputs != 1) {
        TVal v = kind_only(TV_MULTI);
        v.call = call;
        return v;
    }
    {
        TlFunc *r = call->results[0];
        TlSymExpr **shape = arena_alloc(c->a, (size_t)(r->rank + 1) *
                                                  sizeof *shape);
        for (int j = 0; j < r->rank; j++)
            shape[j] = r->axes[j].extent;
        TVal v = value(r->dtype, r->rank, shape);
        v.call = call;
        return v;
    }
}

static int is_arg_named(const TlExpr *x, const char *name)
{
    return x && x->kind == EX_NAMED && x->str && !strcmp(x->str, name);
}

/* Named arguments a top-level builtin accepts. */
static int named_ok(const TlBuiltin *b, const char *name)
{
    if (b->id == BI_RAND)
        return !strcmp(name, "seed");
    if (b->id == BI_ALLCLOSE)
        return !strcmp(name, "rtol") || !strcmp(name, "atol");
    return 0;
}

static void builtin_arg_error(Chk *c, TlExpr *x, int pos,
                              const TlBuiltin *b, const char *what)
{
    diag_error(c->s, x->loc, DIAG_BUILTIN_ARG, pos, b->name, what);
}

/* A list of sizes: [2, 3]; the shape, or NULL after an error. */
static TlSymExpr **dims_arg(Chk *c, TlExpr *x, const TlBuiltin *b, int *rank)
{
    TlSymExpr **shape;

    if (!x || x->kind != EX_LIST) {
        if (x && top(c, &x).kind != TV_ERR)
            builtin_arg_error(c, x, 2, b, "a list of sizes such as [2, 3]");
        return NULL;
    }
    shape = arena_alloc(c->a, (size_t)(x->args.n + 1) * sizeof *shape);
    for (int i = 0; i < x->args.n; i++) {
        TlExpr **slot = &x->args.v[i];
        TVal v = top(c, slot);
        int64_t n;
        if (!int_scalar(c, slot, v, i + 1, "the shape list"))
            return NULL;
        if (const_int(*slot, &n)) {
            if (n < 0) {
                diag_error(c->s, (*slot)->loc, DIAG_NEGATIVE_SIZE,
                           (long long)n);
                return NULL;
            }
            shape[i] = sym_const(c->a, n);
        }
    }
    x->dtype = DT_I64;
    x->rank = 1;
    *rank = x->args.n;
    return shape;
}

static int numeric_scalar(TVal v)
{
    return v.kind == TV_VALUE && v.rank == 0 && v.dt != DT_BOOL;
}

static TVal top_builtin(Chk *c, TlExpr *e, const TlBuiltin *b)
{
    TlExpr *pos[4] = {NULL, NULL, NULL, NULL};
    int npos = 0, rank = 0;
    TlDType dt;
    TlSymExpr **shape;

    e->sym = e->a->sym = (void *)b;
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (!x)
            return err;
        if (x->kind == EX_NAMED) {
            if (!b->top_level || !b->max_args || !x->str) {
                diag_error(c->s, x->loc, DIAG_NAMED_ARG_NOT_ALLOWED, b->name);
                return err;
            }
            if (!named_ok(b, x->str)) {
                diag_error(c->s, x->loc, DIAG_UNKNOWN_NAMED_ARG, b->name,
                           x->str);
                return err;
            }
            continue;
        }
        if (npos < 4)
            pos[npos] = x;
        npos++;
    }
    if (e->args.n < b->min_args || e->args.n > b->max_args ||
        npos < b->min_args - (b->id == BI_ALLCLOSE ? 0 : 0)) {
        diag_error(c->s, e->loc, DIAG_ARITY, b->name,
                   b->min_args == b->max_args
                       ? arena_printf(c->a, "%d argument%s", b->min_args,
                                      b->min_args == 1 ? "" : "s")
                       : arena_printf(c->a, "%d to %d arguments",
                                      b->min_args, b->max_args),
                   e->args.n, e->args.n == 1 ? "was" : "were");
        return err;
    }
    if (!b->top_level && b->id != BI_HASH) {
        /* Scalar math at top level, with the kernel rules. */
        for (int i = 0; i < e->args.n; i++) {
            TVal v = top(c, &e->args.v[i]);
            if (v.kind == TV_ERR)
                return err;
            if (v.kind != TV_VALUE || v.rank != 0) {
                diag_error(c->s, e->args.v[i]->loc, DIAG_TOP_TENSOR_ARITH,
                           b->name);
                diag_hint(c->s, "write a kernel for element-wise work");
                return err;
            }
        }
        dt = ty_builtin(c, e, b);
        return dt == DT_NONE ? err : value(dt, 0, NULL);
    }
    switch (b->id) {
    case BI_RAND:
    case BI_ZEROS:
    case BI_ONES:
    case BI_FULL:
        dt = dtype_token(pos[0]);
        if (dt == DT_NONE) {
            if (top(c, &pos[0]).kind != TV_ERR)
                builtin_arg_error(c, pos[0], 1, b, "a dtype such as f32");
            return err;
        }
        /* zeros(str, ...) holds empty strings; the others numbers. */
        if (dt == DT_STR && b->id != BI_ZEROS) {
            diag_error(c->s, pos[0]->loc, DIAG_STR_OPERAND, b->name);
            return err;
        }
        pos[0]->dtype = dt;
        shape = dims_arg(c, pos[1], b, &rank);
        if (!shape)
            return err;
        for (int i = 2; i < npos && i < 4; i++) {
            TVal v = top(c, &pos[i]);
            if (v.kind == TV_ERR)
                return err;
            if (!numeric_scalar(v)) {
                builtin_arg_error(c, pos[i], i + 1, b, "a number");
                return err;
            }
        }
        for (int i = 0; i < e->args.n; i++)
            if (is_arg_named(e->args.v[i], "seed")) {
                TlExpr **slot = &e->args.v[i]->a;
                if (!int_scalar(c, slot, top(c, slot), i + 1, "rand"))
                    return err;
            }
        return value(dt, rank, shape);
    case BI_ARANGE: {
        double v[3] = {0, 0, 1};
        int known = 1;
        dt = dtype_token(pos[0]);
        if (dt == DT_NONE) {
            if (top(c, &pos[0]).kind != TV_ERR)
                builtin_arg_error(c, pos[0], 1, b, "a dtype such as f32");
            return err;
        }
        if (dt == DT_STR) {
            diag_error(c->s, pos[0]->loc, DIAG_STR_OPERAND, b->name);
            return err;
        }
        pos[0]->dtype = dt;
        for (int i = 1; i < npos && i < 4; i++) {
            TVal t = top(c, &pos[i]);
            if (t.kind == TV_ERR)
                return err;
            if (!numeric_scalar(t)) {
                builtin_arg_error(c, pos[i], i + 1, b, "a number");
                return err;
            }
            if (!const_num(pos[i], &v[npos == 2 ? 1 : i - 1]))
                known = 0;
        }
        shape = arena_alloc(c->a, sizeof *shape);
        if (known && v[2] == 0) {
            builtin_arg_error(c, pos[3], 4, b, "a step other than 0");
            return err;
        }
        if (known) {
            double n = ceil((v[1] - v[0]) / v[2]);
            if (n < 0)
                n = 0;
            if (n < 9e18)
                shape[0] = sym_const(c->a, (int64_t)n);
        }
        return value(dt, 1, shape);
    }
    case BI_LOAD:
        for (int i = 0; i < npos && i < 2; i++) {
            TVal t = top(c, &pos[i]);
            if (t.kind == TV_ERR)
                return err;
            if (t.kind != TV_STR) {
                builtin_arg_error(c, pos[i], i + 1, b, "a string");
                return err;
            }
        }
        return value(DT_NONE, -1, NULL);
    case BI_SAVE: {
        TVal t = top(c, &pos[0]), p = top(c, &pos[1]);
        if (t.kind == TV_ERR || p.kind == TV_ERR)
            return err;
        if (t.kind != TV_VALUE) {
            builtin_arg_error(c, pos[0], 1, b, "a tensor");
            return err;
        }
        if (p.kind != TV_STR) {
            builtin_arg_error(c, pos[1], 2, b, "a string");
            return err;
        }
        return kind_only(TV_NONE);
    }
    case BI_ALLCLOSE:
        for (int i = 0; i < e->args.n; i++) {
            TlExpr **slot = &e->args.v[i];
            TVal t;
            int tol = i >= 2 || (*slot)->kind == EX_NAMED;
            if ((*slot)->kind == EX_NAMED)
                slot = &(*slot)->a;
            t = top(c, slot);
            if (t.kind == TV_ERR)
                return err;
            if (tol ? !numeric_scalar(t) : t.kind != TV_VALUE) {
                builtin_arg_error(c, *slot, i + 1, b,
                                  tol ? "a number" : "a tensor");
                return err;
            }
            if (!tol && t.dt == DT_STR) {
                diag_error(c->s, (*slot)->loc, DIAG_STR_OPERAND, b->name);
                diag_hint(c->s, "compare strings in a kernel with ==");
                return err;
            }
        }
        if (npos < 2) {
            diag_error(c->s, e->loc, DIAG_ARITY, b->name,
                       "2 tensors and 2 tolerances", npos, "were");
            return err;
        }
        return value(DT_BOOL, 0, NULL);
    case BI_HASH: {
        TVal t = top(c, &pos[0]);
        if (t.kind == TV_ERR)
            return err;
        if (t.kind != TV_VALUE || t.rank == 0) {
            builtin_arg_error(c, pos[0], 1, b, "a tensor");
            return err;
        }
        return value(DT_I64, 0, NULL);
    }
    case BI_SHAPE: {
        TVal t = top(c, &pos[0]);
        if (t.kind == TV_ERR)
            return err;
        if (t.kind != TV_VALUE) {
            builtin_arg_error(c, pos[0], 1, b, "a tensor");
            return err;
        }
        shape = arena_alloc(c->a, sizeof *shape);
        if (t.rank >= 0)
            shape[0] = sym_const(c->a, t.rank);
        return value(DT_I64, 1, shape);
    }
    default:
        return err;
    }
}

static TVal top_call(Chk *c, TlExpr *e)
{
    const char *name = rsv_dotted(c, e->a);
    ScopeEnt *ent;
    const TlBuiltin *b;

    if (!name) {
        diag_error(c->s, e->loc, DIAG_NOT_CALLABLE, "expression", "value");
        return err;
    }
    ent = lookup_top(c, name, e->a->loc);
    if (e->b && !(ent && tl_ref_kind(ent->sym) == REF_KERNEL)) {
        diag_error(c->s, e->b->loc, DIAG_NOT_GENERIC, name);
        return err;
    }
    if (ent) {
        e->a->sym = ent->sym;
        switch (tl_ref_kind(ent->sym)) {
        case REF_KERNEL:
            return top_kernel_call(c, e, ent->sym);
        case REF_EXTERN: {
            TlExternInfo *x = ent->sym;
            if (e->args.n != x->nparams) {
                diag_error(c->s, e->loc, DIAG_ARITY, name,
                           arena_printf(c->a, "%d argument%s", x->nparams,
                                        x->nparams == 1 ? "" : "s"),
                           e->args.n, e->args.n == 1 ? "was" : "were");
                return err;
            }
            for (int i = 0; i < e->args.n; i++) {
                TVal v = top(c, &e->args.v[i]);
                int rank = x->item->params.v[i].shape.n;
                if (v.kind == TV_ERR)
                    return err;
                if (v.kind == TV_VALUE && rank && v.rank >= 0 &&
                    v.rank != rank) {
                    diag_error(c->s, e->args.v[i]->loc,
                               DIAG_KERNEL_ARG_RANK,
                               x->item->params.v[i].name, name, v.rank,
                               rank);
                    return err;
                }
                if (v.kind != TV_VALUE || (!rank && v.rank != 0) ||
                    (v.dt != DT_NONE &&
                     !ty_fits(c, &e->args.v[i], x->params[i]))) {
                    diag_error(c->s, e->args.v[i]->loc, DIAG_ARG_DTYPE,
                               i + 1, name, describe(c, v),
                               dt_name(x->params[i]));
                    return err;
                }
            }
            e->sym = x;
            return value(x->ret, 0, NULL);
        }
        default:
            diag_error(c->s, e->a->loc, DIAG_NOT_CALLABLE, name,
                       rsv_what(ent->sym));
            return err;
        }
    }
    if ((b = rsv_builtin(name)))
        return top_builtin(c, e, b);
    diag_error(c->s, e->a->loc, DIAG_UNKNOWN_FUNCTION, name);
    rsv_suggest(c, c->top, name, is_callable);
    return err;
}

/* ====================================================================
 * Operators
 * ==================================================================== */

static TVal top_operator(Chk *c, TlExpr *e)
{
    TVal x = top(c, &e->a), y = e->kind == EX_BINARY ? top(c, &e->b) : x;
    TlExpr **ops[2] = {&e->a, &e->b};
    TlDType t;

    if (x.kind == TV_ERR || y.kind == TV_ERR)
        return err;
    if (x.kind != TV_VALUE || y.kind != TV_VALUE || x.rank != 0 ||
        y.rank != 0) {
        diag_error(c->s, e->oploc, DIAG_TOP_TENSOR_ARITH,
                   op_spelling(e->op));
        diag_hint(c->s, "write a kernel for element-wise work, or compare "
                        "tensors with allclose(a, b)");
        return err;
    }
    if (x.dt == DT_NONE || y.dt == DT_NONE)
        return value(DT_NONE, 0, NULL);
    if (e->op == OP_AND || e->op == OP_OR || e->op == OP_NOT) {
        TlExpr *bad = x.dt != DT_BOOL ? e->a
                      : e->kind == EX_BINARY && y.dt != DT_BOOL ? e->b : NULL;
        if (bad) {
            diag_error(c->s, bad->loc, DIAG_LOGIC_NOT_BOOL,
                       op_spelling(e->op), dt_name(bad->dtype));
            return err;
        }
        return value(DT_BOOL, 0, NULL);
    }
    t = ty_unify(c, ops, e->kind == EX_BINARY ? 2 : 1);
    if (t == DT_NONE)
        return err;
    if (e->op == OP_EQ || e->op == OP_NE)
        return value(DT_BOOL, 0, NULL);
    if (t == DT_STR) {
        diag_error(c->s, e->oploc, DIAG_STR_OPERAND, op_spelling(e->op));
        return err;
    }
    if (t == DT_BOOL) {
        diag_error(c->s, e->oploc, DIAG_BOOL_OPERAND, op_spelling(e->op));
        return err;
    }
    if (e->op >= OP_LT && e->op <= OP_GE)
        return value(DT_BOOL, 0, NULL);
    return value(t, 0, NULL);
}

static TVal top_on(Chk *c, TlExpr *e)
{
    TVal v;

    if (!e->a || e->a->kind != EX_CALL) {
        if (e->a && top(c, &e->a).kind == TV_ERR)
            return err;
        diag_error(c->s, e->loc, DIAG_ON_NOT_CALL);
        return err;
    }
    v = top(c, &e->a);
    if (v.kind == TV_ERR)
        return err;
    if (tl_ref_kind(e->a->sym) != REF_CALL) {
        diag_error(c->s, e->loc, DIAG_ON_NOT_CALL);
        return err;
    }
    if (!tl_target_known(e->str)) {
        diag_error(c->s, e->loc, DIAG_UNKNOWN_TARGET,
                   e->str ? e->str : "?");
        diag_hint(c->s, "the targets are 'cpu' and 'accel'");
        return err;
    }
    ((TlCall *)e->a->sym)->target = e->str;
    e->sym = e->a->sym;
    return v;
}

/* ====================================================================
 * Reductions over top-level tensors
 * ==================================================================== */

static const char *quoted(Chk *c, const TlSymExpr *e)
{
    return arena_printf(c->a, "'%s'", sym_str(c->a, e));
}

/* The candidates for v's range in body: axes of top-level tensors
 * indexed by v alone.  Sets *ext (NULL when the shape is not known
 * before run time); returns 0 when there is none, -1 after reporting
 * a disagreement. */
static int top_range(Chk *c, TlExpr *body, TlVar *v, TlReduce *red,
                     TlSymExpr **ext, TlExpr **at, int *ax)
{
    int found = 0, r;

    if (!body)
        return 0;
    if (body->kind == EX_INDEX && body->a && body->a->kind == EX_NAME &&
        tl_ref_kind(body->a->sym) == REF_LET) {
        TlLet *l = body->a->sym;
        for (int j = 0; j < body->args.n; j++) {
            TlExpr *x = body->args.v[j];
            TlSymExpr *e;
            if (!x || x->kind != EX_NAME || x->sym != v)
                continue;
            e = l->rank > j && l->shape ? l->shape[j] : NULL;
            if (found && *ext && e && !sym_equal(*ext, e)) {
                diag_error(c->s, x->loc, DIAG_RVAR_AMBIGUOUS, v->name,
                           quoted(c, *ext), (*at)->a->str, *ax,
                           quoted(c, e), l->name, j,
                           op_spelling(red->op), v->name,
                           sym_str(c->a, *ext));
                return -1;
            }
            if (!found || !*ext) {
                *ext = e;
                *at = body;
                *ax = j;
            }
            found = 1;
        }
    }
    {
        TlExpr *kids[3] = {body->a, body->b, body->c};
        for (int i = 0; i < 3 + body->args.n; i++) {
            TlExpr *k = i < 3 ? kids[i] : body->args.v[i - 3];
            TlSymExpr *e2 = NULL;
            TlExpr *at2 = NULL;
            int ax2 = 0;
            if (!k || (i == 0 && body->kind == EX_INDEX))
                continue;
            r = top_range(c, k, v, red, &e2, &at2, &ax2);
            if (r < 0)
                return -1;
            if (r > 0 && found && *ext && e2 && !sym_equal(*ext, e2)) {
                diag_error(c->s, k->loc, DIAG_RVAR_AMBIGUOUS, v->name,
                           quoted(c, *ext), (*at)->a->str, *ax,
                           quoted(c, e2), at2->a->str, ax2,
                           op_spelling(red->op), v->name,
                           sym_str(c->a, *ext));
                return -1;
            }
            if (r > 0 && (!found || !*ext)) {
                *ext = e2;
                *at = at2;
                *ax = ax2;
                found = 1;
            }
        }
    }
    return found;
}

static TVal top_reduce(Chk *c, TlExpr *e)
{
    TlReduce *red = arena_alloc(c->a, sizeof *red);
    Scope *outer = c->local, *sc;
    TVal b;
    int n = 0;

    sc = rsv_scope(c, outer ? outer : c->top, "reduction");
    red->ref = REF_REDUCE;
    red->op = e->op;
    red->expr = e;
    red->rvars = arena_alloc(c->a, (size_t)(e->args.n + 1) *
                                       sizeof *red->rvars);
    e->sym = red;
    if ((e->op == RD_ARGMAX || e->op == RD_ARGMIN) && e->args.n != 1) {
        diag_error(c->s, e->loc, DIAG_ARG_REDUCE_VARS, op_spelling(e->op),
                   e->args.n);
        return err;
    }
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        ScopeEnt *prev;
        TlVar *v;
        if (!x || x->kind != EX_NAME || !x->str)
            continue;
        for (int j = 0; j < 2; j++) {
            TlExpr **end = j ? &x->b : &x->a;
            if (*end && !int_scalar(c, end, top(c, end), j + 1, x->str))
                return err;
        }
        if ((prev = rsv_here(sc, x->str))) {
            diag_error(c->s, x->loc, DIAG_DUPLICATE_RVAR, x->str);
            diag_note(c->s, prev->loc, "'%s' is first introduced here",
                      x->str);
            return err;
        }
        v = chk_var(c, VAR_RVAR, x->str, x->loc);
        v->num = n;
        v->red = red;
        red->rvars[n++] = v;
        x->sym = v;
        rsv_add(c, sc, x->str, v, x->loc);
        if (x->a && x->b) {
            v->lo = shp_sym(c, x->a, 0);
            v->extent = sym_sub(c->a, shp_sym(c, x->b, 0), v->lo);
        }
    }
    red->nrvars = n;
    c->local = sc;
    b = top(c, &e->a);
    c->local = outer;
    if (b.kind == TV_ERR)
        return err;
    if (b.kind != TV_VALUE || b.rank != 0) {
        diag_error(c->s, e->a->loc, DIAG_TOP_TENSOR_ARITH,
                   op_spelling(e->op));
        diag_hint(c->s, "index the tensor with the reduction variables");
        return err;
    }
    /* Ranges not written come from the axes the variables index. */
    for (int i = 0; i < n; i++) {
        TlVar *v = red->rvars[i];
        TlExpr *x = NULL;
        TlSymExpr *ext = NULL;
        int r;
        for (int j = 0; j < e->args.n && !x; j++)
            if (e->args.v[j] && e->args.v[j]->sym == v)
                x = e->args.v[j];
        if (!x || x->a || x->b)
            continue;
        r = top_range(c, e->a, v, red, &ext, &(TlExpr *){NULL}, &(int){0});
        if (r < 0)
            return err;
        if (r == 0) {
            diag_error(c->s, x->loc, DIAG_RVAR_NO_RANGE, v->name);
            diag_hint(c->s, "give it a range: %s(%s in 0..N)",
                      op_spelling(e->op), v->name);
            return err;
        }
        v->lo = sym_const(c->a, 0);
        v->extent = ext;    /* NULL: known when the tensor is */
    }
    if (b.dt == DT_BOOL && (e->op == RD_SUM || e->op == RD_PROD)) {
        diag_error(c->s, e->loc, DIAG_BOOL_OPERAND, op_spelling(e->op));
        return err;
    }
    if (e->op == RD_ARGMAX || e->op == RD_ARGMIN)
        return value(DT_I64, 0, NULL);
    return value(b.dt, 0, NULL);
}

static TVal top(Chk *c, TlExpr **slot)
{
    TlExpr *e = *slot;
    TVal v = err;

    if (!e)
        return err;
    switch (e->kind) {
    case EX_INT: v = value(ty_int_literal(e), 0, NULL); break;
    case EX_FLOAT: v = value(DT_F32, 0, NULL); break;
    case EX_BOOL: v = value(DT_BOOL, 0, NULL); break;
    case EX_STR: v = kind_only(TV_STR); break;
    case EX_NAME:
        if (e->ival) {
            diag_error(c->s, e->loc, DIAG_NOT_AT_TOP_LEVEL,
                       "an index pack");
            break;
        }
        v = top_name(c, e);
        break;
    case EX_MEMBER: v = top_name(c, e); break;
    case EX_INDEX: v = top_index(c, e); break;
    case EX_CALL: v = top_call(c, e); break;
    case EX_ON: v = top_on(c, e); break;
    case EX_UNARY:
    case EX_BINARY: v = top_operator(c, e); break;
    case EX_CAST:
        if (!e->a) {
            v = kind_only(TV_DTYPE);
            break;
        }
        v = top(c, &e->a);
        if (v.kind == TV_ERR)
            break;
        if (v.kind != TV_VALUE) {
            diag_error(c->s, e->a->loc, DIAG_BUILTIN_ARG, 1,
                       dt_name(e->dtype), "a number or a tensor");
            v = err;
            break;
        }
        if (v.rank == 0 && ty_weak(e->a))
            ty_coerce(c, &e->a, e->dtype);
        v.dt = e->dtype;
        break;
    case EX_LIST:
        for (int i = 0; i < e->args.n; i++)
            if (top(c, &e->args.v[i]).kind == TV_ERR)
                return err;
        v = kind_only(TV_LIST);
        break;
    case EX_REDUCE:
        v = top_reduce(c, e);
        break;
    case EX_SLICE:
    case EX_NAMED:
        diag_error(c->s, e->loc, DIAG_NOT_AT_TOP_LEVEL,
                   e->kind == EX_SLICE ? "a slice" : "a named argument");
        break;
    default:
        break;
    }
    if (v.kind == TV_VALUE) {
        e->dtype = v.dt;
        e->rank = v.rank;
    }
    return v;
}

/* ====================================================================
 * Statements
 * ==================================================================== */

static void set_let(Chk *c, TlLet *l, TlDType dt, int rank,
                    TlSymExpr **shape)
{
    l->dtype = dt;
    l->rank = rank;
    l->shape = shape;
    l->vkind = TV_VALUE;
    if (dt == DT_NONE || rank < 0)
        return;
    l->func = chk_func(c, FN_CONST, l->name, l->loc, rank);
    l->func->dtype = dt;
    l->func->let = l;
    l->func->fixed = 1;
    for (int j = 0; j < rank; j++) {
        l->func->axes[j].lo = sym_const(c->a, 0);
        l->func->axes[j].extent = shape ? shape[j] : NULL;
    }
}

/* A size of a let's declared type as a constant: literals and
 * + - * / % of them (floor division, as in kernels).  NULL when it is
 * anything else, or divides by zero, or overflows. */
static TlSymExpr *decl_size(Chk *c, TlExpr *e)
{
    TlSymExpr *x, *y;

    if (!e)
        return NULL;
    if (e->kind == EX_INT) {
        e->dtype = DT_I64;
        e->rank = 0;
        return sym_const(c->a, e->ival);
    }
    if (e->kind == EX_UNARY && e->op == OP_NEG)
        return (x = decl_size(c, e->a)) ? sym_scale(c->a, x, -1) : NULL;
    if (e->kind != EX_BINARY || !(x = decl_size(c, e->a)) ||
        !(y = decl_size(c, e->b)))
        return NULL;
    switch (e->op) {
    case OP_ADD: return sym_add(c->a, x, y);
    case OP_SUB: return sym_sub(c->a, x, y);
    case OP_MUL: return sym_mul(c->a, x, y);
    case OP_DIV: return sym_div(c->a, x, y);
    case OP_MOD: return sym_mod(c->a, x, y);
    default: return NULL;
    }
}

/* The shape of `let NAME: DTYPE[...] = ...` as constants; NULL after
 * reporting a size that is not one. */
static TlSymExpr **decl_shape(Chk *c, const TlStmt *st)
{
    const TlParam *p = st->decl;
    TlSymExpr **shape = arena_alloc(c->a, (size_t)(p->shape.n + 1) *
                                              sizeof *shape);
    int ok = 1;

    for (int i = 0; i < p->shape.n; i++) {
        TlExpr *x = p->shape.v[i];
        TlSymExpr *e = decl_size(c, x);
        int64_t n;
        if (!x)
            return NULL;
        if (!e || !tl_sym_const(e, &n)) {
            TlBuf b;
            buf_init(&b);
            ast_print_expr(&b, x);
            diag_error(c->s, x->loc, DIAG_LET_DECL_SIZE, b.s, p->name);
            buf_free(&b);
            diag_hint(c->s, "the sizes of a top-level tensor are "
                            "numbers, or arithmetic on numbers: "
                            "f32[64, 3 * 3]");
            ok = 0;
        } else if (n < 0) {
            diag_error(c->s, x->loc, DIAG_NEGATIVE_SIZE, (long long)n);
            ok = 0;
        }
        shape[i] = e;
    }
    return ok ? shape : NULL;
}

/* "'f32[64, 3]'": a declared type for messages. */
static const char *decl_text(Chk *c, const TlParam *p,
                             TlSymExpr *const *shape)
{
    TlBuf b;
    const char *r;

    buf_init(&b);
    buf_printf(&b, "'%s[", dt_name(p->dtype));
    for (int i = 0; i < p->shape.n; i++) {
        if (i)
            buf_puts(&b, ", ");
        tl_sym_print(&b, shape[i]);
    }
    buf_puts(&b, "]'");
    r = arena_strdup(c->a, b.s);
    buf_free(&b);
    return r;
}

/* `let l: DTYPE[shape] = v`: v must agree with the declaration where
 * the checker knows it (a weak literal adapts); what it cannot know (a
 * load) is left to the run time (l->verify).  The let gets the
 * declared type either way, so kernels can read it. */
static void let_decl(Chk *c, TlLet *l, TlExpr **slot, TVal v,
                     TlSymExpr **shape)
{
    const TlParam *p = l->stmt->decl;
    int rank = p->shape.n, bad_shape = 0, bad_type = 0, verify = 0, lit;

    if (v.kind == TV_ERR || !shape)
        return;
    /* a tensor literal: its type is the declaration (checklit.c) */
    lit = chk_let_literal(c, l->name, slot, p->dtype, rank, shape,
                          decl_text(c, p, shape));
    if (lit) {
        if (lit > 0) {
            set_let(c, l, p->dtype, rank, shape);
            l->declared = 1;
            l->verify = 0;
        }
        return;
    }
    if (v.kind != TV_VALUE) {
        bad_shape = 1;
    } else {
        if (v.rank < 0)
            verify = 1;
        else if (v.rank != rank)
            bad_shape = 1;
        for (int i = 0; !bad_shape && v.rank == rank && i < rank; i++) {
            int64_t have, want;
            if (!v.shape || !tl_sym_const(v.shape[i], &have))
                verify = 1;
            else if (tl_sym_const(shape[i], &want) && have != want)
                bad_shape = 1;
        }
        if (v.dt == DT_NONE)
            verify = 1;
        else if (rank == 0 && v.rank == 0 && ty_weak(*slot))
            bad_type = !ty_fits(c, slot, p->dtype);
        else
            bad_type = v.dt != p->dtype;
    }
    if (bad_shape || bad_type) {
        const char *what = describe(c, v);
        if (v.kind == TV_VALUE && v.rank < 0)
            what = arena_printf(c->a, "a tensor of type '%s'",
                                dt_name(v.dt));
        diag_error(c->s, (*slot)->loc, DIAG_LET_DECL_MISMATCH, l->name,
                   decl_text(c, p, shape), what);
        diag_note(c->s, p->type_loc, "the type of '%s' is declared here",
                  l->name);
        if (!bad_shape)
            diag_hint(c->s, "convert the value: %s(...)",
                      dt_name(p->dtype));
        return;
    }
    set_let(c, l, p->dtype, rank, shape);
    l->declared = 1;
    l->verify = verify;
}

void chk_let(Chk *c, TlLet *l)
{
    TlStmt *st = l->stmt;
    TlLet *first = st->sym;
    int save = c->item_pos, nerr = c->s->nerrors;
    TlSymExpr **shape = NULL;
    TVal v;

    if (first->checked >= 2)
        return;
    if (first->checked == 1) {
        diag_error(c->s, l->loc, DIAG_LET_CYCLE, l->name);
        for (TlLet *x = first; x; x = x->next)
            x->checked = 3;
        return;
    }
    first->checked = 1;
    c->item_pos = first->pos;
    if (st->decl)
        shape = decl_shape(c, st);
    {
        TlLet *outer = c->cur_let;
        c->cur_let = first;
        v = top(c, &st->value);
        c->cur_let = outer;
    }
    c->item_pos = save;
    if (first->checked != 1)
        return;
    if (v.kind == TV_MULTI && v.call) {
        TlKernelInfo *k = v.call->callee;
        if (k->noutputs != st->names.n) {
            diag_error(c->s, st->loc, DIAG_BIND_COUNT, k->name, k->noutputs,
                       k->noutputs == 1 ? "" : "s", st->names.n);
        } else {
            int i = 0;
            for (TlLet *x = first; x; x = x->next, i++) {
                TlFunc *r = v.call->results[i];
                TlSymExpr **shape = arena_alloc(c->a, (size_t)(r->rank + 1)
                                                          * sizeof *shape);
                for (int j = 0; j < r->rank; j++)
                    shape[j] = r->axes[j].extent;
                set_let(c, x, r->dtype, r->rank, shape);
            }
        }
    } else if (v.kind != TV_ERR && st->names.n != 1) {
        const char *callee = v.call ? v.call->callee->name : NULL;
        if (callee)
            diag_error(c->s, st->loc, DIAG_BIND_COUNT, callee, 1, "",
                       st->names.n);
        else
            diag_error(c->s, st->loc, DIAG_LET_COUNT, st->names.n);
    } else if (v.kind == TV_NONE) {
        diag_error(c->s, st->value->loc, DIAG_NO_VALUE);
    } else if (st->decl) {
        let_decl(c, first, &st->value, v, shape);
    } else if (v.kind == TV_VALUE) {
        set_let(c, first, v.dt, v.rank, v.shape);
    } else if (v.kind != TV_ERR) {
        first->vkind = v.kind;
    }
    for (TlLet *x = first; x; x = x->next)
        x->checked = c->s->nerrors == nerr ? 2 : 3;
}

void chk_top_stmt(Chk *c, TlItem *it)
{
    TlStmt *st = it->stmt;
    TVal v;

    it->sym = st;
    switch (st->kind) {
    case ST_LET:
        if (st->sym)
            chk_let(c, st->sym);
        return;
    case ST_TARGET:
        if (!tl_target_known(st->name)) {
            diag_error(c->s, st->name_loc, DIAG_UNKNOWN_TARGET,
                       st->name ? st->name : "?");
            diag_hint(c->s, "the targets are 'cpu' and 'accel'");
        }
        return;
    case ST_PRINT:
    case ST_ASSERT:
    case ST_TIME:
    case ST_EXPR:
        v = top(c, &st->value);
        if (v.kind == TV_ERR)
            return;
        if (st->kind == ST_ASSERT &&
            (v.kind != TV_VALUE || v.rank != 0 || v.dt != DT_BOOL)) {
            diag_error(c->s, st->value->loc, DIAG_ASSERT_NOT_BOOL,
                       describe(c, v));
            diag_hint(c->s, "compare tensors with allclose(a, b)");
        } else if (st->kind == ST_PRINT && v.kind == TV_MULTI) {
            diag_error(c->s, st->value->loc, DIAG_MULTI_OUTPUT_VALUE,
                       v.call->callee->name, v.call->callee->noutputs);
            diag_hint(c->s, "bind them first: let a, b = %s(...)",
                      v.call->callee->name);
        } else if (st->kind == ST_PRINT && v.kind == TV_NONE) {
            diag_error(c->s, st->value->loc, DIAG_NO_VALUE);
        }
        return;
    default:
        /* Kernel and schedule statements do not reach the top level. */
        return;
    }
}
