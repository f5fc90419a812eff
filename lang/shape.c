/*
 * shape.c - shapes with size variables: a kernel's parameters and
 * outputs, and kernel calls.
 *
 * A size variable is bound where it first appears alone as an axis of
 * a tensor parameter (`A: f32[M, K]` binds M and K); every other use is
 * a constraint that a call must satisfy.  Output shapes are symbolic
 * expressions over sizes and integer scalar parameters.  A call binds
 * the callee's sizes to the caller's extents (numbers at top level,
 * symbols inside kernels), checks the constraints - an error when they
 * provably fail, left to the callee's entry check when unknown - and
 * instantiates the callee's output shapes in the caller's terms.
 */
#include "lang/lang_int.h"

#include <string.h>

/* ====================================================================
 * Expressions to symbols
 * ==================================================================== */

static int int_typed(const TlExpr *e)
{
    return e->dtype == DT_NONE || dt_is_int(e->dtype);
}

/* The 0/1 value of condition e: comparisons of integer expressions,
 * `&&`, `||`, `!`, true and false; NULL for anything else. */
static TlSymExpr *shp_cond(Chk *c, const TlExpr *e, int loopvars)
{
    TlArena *a = c->a;
    TlSymExpr *x, *y, *one = sym_const(a, 1);

    if (!e)
        return NULL;
    if (e->kind == EX_BOOL)
        return sym_const(a, e->ival != 0);
    if (e->kind == EX_UNARY && e->op == OP_NOT)
        return sym_sub(a, one, shp_cond(c, e->a, loopvars));
    if (e->kind != EX_BINARY)
        return NULL;
    if (e->op == OP_AND || e->op == OP_OR) {
        x = shp_cond(c, e->a, loopvars);
        y = shp_cond(c, e->b, loopvars);
        return e->op == OP_AND ? sym_min(a, x, y) : sym_max(a, x, y);
    }
    x = shp_sym(c, e->a, loopvars);
    y = shp_sym(c, e->b, loopvars);
    switch (e->op) {
    case OP_EQ: return sym_eq(a, x, y);
    case OP_NE: return sym_sub(a, one, sym_eq(a, x, y));
    case OP_LT: return sym_lt(a, x, y);
    case OP_GT: return sym_lt(a, y, x);
    case OP_LE: return sym_sub(a, one, sym_lt(a, y, x));
    case OP_GE: return sym_sub(a, one, sym_lt(a, x, y));
    default: return NULL;
    }
}

TlSymExpr *shp_sym(Chk *c, const TlExpr *e, int loopvars)
{
    TlArena *a = c->a;

    if (!e || !int_typed(e))
        return NULL;
    switch (e->kind) {
    case EX_INT:
        return sym_const(a, e->ival);
    case EX_NAME: {
        TlVar *v = e->sym;
        if (tl_ref_kind(v) != REF_VAR)
            return NULL;
        if ((v->kind == VAR_INDEX || v->kind == VAR_RVAR) && !loopvars)
            return NULL;
        if (v->kind == VAR_SCALAR && !dt_is_int(v->dtype))
            return NULL;
        return sym_var(a, v);
    }
    case EX_UNARY:
        if (e->op != OP_NEG)
            return NULL;
        return sym_scale(a, shp_sym(c, e->a, loopvars), -1);
    case EX_BINARY: {
        TlSymExpr *x = shp_sym(c, e->a, loopvars);
        TlSymExpr *y = x ? shp_sym(c, e->b, loopvars) : NULL;
        switch (e->op) {
        case OP_ADD: return sym_add(a, x, y);
        case OP_SUB: return sym_sub(a, x, y);
        case OP_MUL: return sym_mul(a, x, y);
        case OP_DIV: return sym_div(a, x, y);
        case OP_MOD: return sym_mod(a, x, y);
        default: return NULL;
        }
    }
    case EX_CAST:
        /* Widening integer casts keep the value. */
        if (!e->a || !dt_is_int(e->dtype) || dt_size(e->dtype) < 4 ||
            (e->a->dtype != DT_NONE && !dt_is_int(e->a->dtype)))
            return NULL;
        return shp_sym(c, e->a, loopvars);
    case EX_CALL: {
        const TlBuiltin *b = e->sym;
        TlSymExpr *x, *y, *z;
        if (tl_ref_kind(b) != REF_BUILTIN)
            return NULL;
        if ((b->id == BI_MIN || b->id == BI_MAX) && e->args.n == 2) {
            x = shp_sym(c, e->args.v[0], loopvars);
            y = shp_sym(c, e->args.v[1], loopvars);
            return b->id == BI_MIN ? sym_min(a, x, y) : sym_max(a, x, y);
        }
        if (b->id == BI_CLAMP && e->args.n == 3) {
            x = shp_sym(c, e->args.v[0], loopvars);
            y = shp_sym(c, e->args.v[1], loopvars);
            z = shp_sym(c, e->args.v[2], loopvars);
            return sym_max(a, sym_min(a, x, z), y);
        }
        /* Only for sizes and ranges: in an index, a select over the
         * index variables is left to the run-time checks (9.4). */
        if (b->id == BI_SELECT && e->args.n == 3 && !loopvars) {
            z = shp_cond(c, e->args.v[0], loopvars);
            x = shp_sym(c, e->args.v[1], loopvars);
            y = shp_sym(c, e->args.v[2], loopvars);
            return sym_sel(a, z, x, y);
        }
        return NULL;
    }
    default:
        return NULL;
    }
}

/* ====================================================================
 * Kernel headers
 * ==================================================================== */

static int shape_cond(Chk *c, const TlExpr *e);

/* Is e a form a shape entry may take?  Reports the first bad node. */
static int shape_form(Chk *c, const TlExpr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case EX_INT:
    case EX_NAME:
        return 1;
    case EX_UNARY:
        if (e->op == OP_NEG)
            return shape_form(c, e->a);
        break;
    case EX_BINARY:
        if (e->op >= OP_ADD && e->op <= OP_MOD)
            return shape_form(c, e->a) && shape_form(c, e->b);
        break;
    case EX_CALL: {
        const char *n = e->a && e->a->kind == EX_NAME ? e->a->str : NULL;
        if (n && (!strcmp(n, "min") || !strcmp(n, "max")) &&
            e->args.n == 2) {
            e->a->sym = (void *)rsv_builtin(n);
            ((TlExpr *)e)->sym = e->a->sym;
            return shape_form(c, e->args.v[0]) &&
                   shape_form(c, e->args.v[1]);
        }
        if (n && !strcmp(n, "select") && e->args.n == 3) {
            e->a->sym = (void *)rsv_builtin(n);
            ((TlExpr *)e)->sym = e->a->sym;
            return shape_cond(c, e->args.v[0]) &&
                   shape_form(c, e->args.v[1]) &&
                   shape_form(c, e->args.v[2]);
        }
        break;
    }
    default:
        break;
    }
    diag_error(c->s, e->loc, DIAG_SHAPE_EXPR);
    diag_hint(c->s, "use sizes, integer scalar parameters, literals, "
                    "+ - * / %%, min/max and select");
    return 0;
}

/* Is e a condition a select in a shape may take? */
static int shape_cond(Chk *c, const TlExpr *e)
{
    if (!e)
        return 0;
    if (e->kind == EX_BOOL)
        return 1;
    if (e->kind == EX_UNARY && e->op == OP_NOT)
        return shape_cond(c, e->a);
    if (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR))
        return shape_cond(c, e->a) && shape_cond(c, e->b);
    if (e->kind == EX_BINARY && e->op >= OP_EQ && e->op <= OP_GE)
        return shape_form(c, e->a) && shape_form(c, e->b);
    diag_error(c->s, e->loc, DIAG_SHAPE_COND);
    diag_hint(c->s, "compare sizes and integer scalar parameters: "
                    "select(axis == 0, N, 1)");
    return 0;
}

/* Resolves the names of shape entry e.  For inputs (in_func set), an
 * unknown name becomes a new size variable, bound here when e is just
 * that name; for outputs it is an error. */
static int shape_names(Kern *kc, TlExpr *e, TlFunc *in_func, int axis,
                       int whole)
{
    Chk *c = kc->c;
    ScopeEnt *ent;

    if (!e)
        return 0;
    if (e->kind == EX_UNARY)
        return shape_names(kc, e->a, in_func, axis, 0);
    if (e->kind == EX_BINARY)
        return shape_names(kc, e->a, in_func, axis, 0) &
               shape_names(kc, e->b, in_func, axis, 0);
    if (e->kind == EX_CALL) {
        int ok = 1;
        for (int i = 0; i < e->args.n; i++)
            ok &= shape_names(kc, e->args.v[i], in_func, axis, 0);
        return ok;
    }
    if (e->kind != EX_NAME) {
        e->dtype = e->kind == EX_BOOL ? DT_BOOL : DT_I32;
        e->rank = 0;
        return 1;
    }
    ent = rsv_here(kc->scope, e->str);
    if (!ent) {
        TlVar *v;
        if (!in_func) {
            diag_error(c->s, e->loc, DIAG_UNKNOWN_SIZE, e->str);
            rsv_suggest(c, kc->scope, e->str, NULL);
            return 0;
        }
        v = chk_var(c, VAR_SIZE, e->str, e->loc);
        v->dtype = DT_I32;
        v->kernel = kc->k;
        v->bound_axis = -1;
        rsv_add(c, kc->scope, e->str, v, e->loc);
        ent = rsv_here(kc->scope, e->str);
    }
    if (tl_ref_kind(ent->sym) == REF_VAR && ((TlVar *)ent->sym)->pack) {
        gen_pack_bare(c, e->loc, ent->sym);
        return 0;
    }
    if (tl_ref_kind(ent->sym) != REF_VAR ||
        (((TlVar *)ent->sym)->kind == VAR_SCALAR &&
         !dt_is_int(((TlVar *)ent->sym)->dtype))) {
        diag_error(c->s, e->loc, DIAG_SHAPE_NAME_KIND, e->str,
                   tl_ref_kind(ent->sym) == REF_VAR
                       ? arena_printf(c->a, "a scalar parameter of type "
                                      "'%s'",
                                      dt_name(((TlVar *)ent->sym)->dtype))
                       : arena_printf(c->a, "a %s", rsv_what(ent->sym)));
        return 0;
    }
    {
        TlVar *v = ent->sym;
        if (v->kind == VAR_SIZE && whole && !v->bound_by && in_func) {
            v->bound_by = in_func;
            v->bound_axis = axis;
        }
        e->sym = v;
        e->dtype = v->dtype;
        e->rank = 0;
    }
    return 1;
}

static TlSymExpr *shape_entry(Kern *kc, TlExpr *e, TlFunc *in_func, int ax)
{
    Chk *c = kc->c;
    TlSymExpr *s;
    int64_t k;

    if (!shape_form(c, e))
        return NULL;
    if (!shape_names(kc, e, in_func, ax, 1))
        return NULL;
    s = shp_sym(c, e, 0);
    if (!s) {
        diag_error(c->s, e->loc, DIAG_SHAPE_EXPR);
        return NULL;
    }
    if (tl_sym_const(s, &k) && k < 0) {
        diag_error(c->s, e->loc, DIAG_NEGATIVE_SIZE, (long long)k);
        return NULL;
    }
    return s;
}

/* Reports a name of kernel kc declared twice; returns 1 if it was. */
static int duplicate(Kern *kc, const char *name, TlLoc loc)
{
    ScopeEnt *prev = rsv_here(kc->scope, name);

    if (!prev)
        return 0;
    diag_error(kc->c->s, loc, DIAG_DUPLICATE_PARAM, name, kc->k->name);
    diag_note(kc->c->s, prev->loc, "'%s' is first declared here", name);
    return 1;
}

/* The shape entries of tensor parameter or output p (f: its tensor,
 * with rank -1 when the shape holds a pack; in_func: f for an input,
 * NULL for an output).  A pack `..S` is a generic kernel's. */
static void shape_entries(Kern *kc, TlParam *p, TlFunc *f, TlFunc *in_func)
{
    const char *pack = NULL;

    for (int j = 0; j < p->shape.n; j++) {
        TlExpr *e = p->shape.v[j];
        TlSymExpr *x;
        if (e && e->kind == EX_NAME && e->ival) {
            if (pack)
                diag_error(kc->c->s, e->loc, DIAG_TWO_PACKS, e->str,
                           "shape");
            else
                gen_shape_pack(kc, e, in_func);
            pack = e->str;
            continue;
        }
        x = shape_entry(kc, e, in_func, j);
        if (f->rank >= 0) {
            f->axes[j].lo = sym_const(kc->c->a, 0);
            f->axes[j].extent = x;
        }
    }
}

/* Does the shape of p hold a pack `..S`? */
static int has_pack(const TlParam *p)
{
    for (int j = 0; j < p->shape.n; j++)
        if (p->shape.v[j] && p->shape.v[j]->kind == EX_NAME &&
            p->shape.v[j]->ival)
            return 1;
    return 0;
}

void shp_header(Kern *kc)
{
    Chk *c = kc->c;
    TlKernelInfo *k = kc->k;
    TlItem *it = k->item;
    TlVec sizes = {0};

    /* Scalars first: shapes may use them. */
    k->scalars = arena_alloc(c->a, (size_t)(it->scalars.n + 1) *
                                       sizeof *k->scalars);
    for (int i = 0; i < it->scalars.n; i++) {
        TlParam *p = &it->scalars.v[i];
        TlVar *v;
        if (!p->name || duplicate(kc, p->name, p->loc))
            continue;
        v = chk_var(c, VAR_SCALAR, p->name, p->loc);
        /* Scalars sort after sizes in symbolic terms, so that shapes
         * print as written: "H + 2*pad - R". */
        v->id += 1 << 30;
        v->dtype = gen_param_dtype(kc, p, NULL);
        v->param = p;
        v->kernel = k;
        v->num = k->nscalars;
        k->scalars[k->nscalars++] = v;
        rsv_add(c, kc->scope, p->name, v, p->loc);
    }
    k->inputs = arena_alloc(c->a, (size_t)(it->params.n + 1) *
                                      sizeof *k->inputs);
    for (int i = 0; i < it->params.n; i++) {
        TlParam *p = &it->params.v[i];
        TlFunc *f;
        if (!p->name || duplicate(kc, p->name, p->loc))
            continue;
        f = chk_func(c, FN_INPUT, p->name, p->loc,
                     has_pack(p) ? -1 : p->shape.n);
        f->dtype = gen_param_dtype(kc, p, f);
        f->param = p;
        f->kernel = k;
        k->inputs[k->ninputs++] = f;
        rsv_add(c, kc->scope, p->name, f, p->loc);
        shape_entries(kc, p, f, f);
    }
    /* The sizes in binding order; one met only inside expressions
     * (`f32[2*N]`) has nothing to take its value from. */
    for (int i = 0; i < k->ninputs; i++)
        for (int j = 0; j < k->inputs[i]->rank; j++) {
            TlExpr *e = k->inputs[i]->param->shape.v[j];
            TlVar *v = e ? e->sym : NULL;
            if (e && e->kind == EX_NAME && tl_ref_kind(v) == REF_VAR &&
                v->kind == VAR_SIZE && v->bound_by == k->inputs[i] &&
                v->bound_axis == j)
                vec_push(c->a, &sizes, v);
        }
    for (int i = 0; i < kc->scope->cap; i++) {
        ScopeEnt *e = kc->scope->slot[i];
        TlVar *v = e ? e->sym : NULL;
        if (tl_ref_kind(v) == REF_VAR && v->kind == VAR_SIZE &&
            !v->bound_by) {
            diag_error(c->s, v->loc, DIAG_SIZE_NOT_BOUND, v->name);
            diag_hint(c->s, "write it alone as an axis of an input, e.g. "
                            "x: f32[%s]", v->name);
        }
    }
    k->sizes = arena_alloc(c->a, (size_t)(sizes.n + 1) * sizeof *k->sizes);
    for (int i = 0; i < sizes.n; i++) {
        TlVar *v = sizes.v[i];
        v->num = k->nsizes;
        k->sizes[k->nsizes++] = v;
    }
    k->outputs = arena_alloc(c->a, (size_t)(it->outputs.n + 1) *
                                       sizeof *k->outputs);
    for (int i = 0; i < it->outputs.n; i++) {
        TlParam *p = &it->outputs.v[i];
        TlFunc *f;
        if (!p->name || duplicate(kc, p->name, p->loc))
            continue;
        f = chk_func(c, FN_OUTPUT, p->name, p->loc,
                     has_pack(p) ? -1 : p->shape.n);
        f->dtype = gen_param_dtype(kc, p, NULL);
        f->param = p;
        f->kernel = k;
        f->fixed = 1;
        k->outputs[k->noutputs++] = f;
        rsv_add(c, kc->scope, p->name, f, p->loc);
        shape_entries(kc, p, f, NULL);
    }
}

/* ====================================================================
 * Calls
 * ==================================================================== */

static const char *param_name(TlKernelInfo *k, int i)
{
    return i < k->ninputs ? k->inputs[i]->name
                          : k->scalars[i - k->ninputs]->name;
}

static int has_default(TlKernelInfo *k, int i)
{
    return i >= k->ninputs && k->scalars[i - k->ninputs]->param &&
           k->scalars[i - k->ninputs]->param->init;
}

int shp_match_args(Chk *c, TlKernelInfo *callee, TlExpr *call,
                   TlExpr **ordered)
{
    int np = callee->ninputs + callee->nscalars, pos = 0, named = 0;
    int ok = 1;

    for (int i = 0; i < np; i++)
        ordered[i] = NULL;
    for (int i = 0; i < call->args.n; i++) {
        TlExpr *x = call->args.v[i];
        int j;
        if (!x)
            continue;
        if (x->kind != EX_NAMED) {
            if (named) {
                diag_error(c->s, x->loc, DIAG_POSITIONAL_AFTER_NAMED);
                return -1;
            }
            if (pos >= np) {
                diag_error(c->s, x->loc, DIAG_TOO_MANY_ARGS, callee->name,
                           np, call->args.n);
                return -1;
            }
            ordered[pos++] = x;
            continue;
        }
        named = 1;
        for (j = 0; j < np; j++)
            if (x->str && !strcmp(param_name(callee, j), x->str))
                break;
        if (j == np) {
            diag_error(c->s, x->loc, DIAG_UNKNOWN_NAMED_ARG, callee->name,
                       x->str ? x->str : "?");
            {
                Scope *sc = rsv_scope(c, NULL, "params");
                for (int m = 0; m < np; m++)
                    rsv_add(c, sc, param_name(callee, m), NULL, x->loc);
                rsv_suggest(c, sc, x->str, NULL);
            }
            ok = 0;
            continue;
        }
        if (ordered[j]) {
            diag_error(c->s, x->loc, DIAG_DUPLICATE_ARG, x->str,
                       callee->name);
            ok = 0;
            continue;
        }
        ordered[j] = x->a;
    }
    if (!ok)
        return -1;
    for (int i = 0; i < np; i++)
        if (!ordered[i] && !has_default(callee, i)) {
            diag_error(c->s, call->loc, DIAG_MISSING_ARG,
                       param_name(callee, i), callee->name);
            diag_note(c->s, i < callee->ninputs
                               ? callee->inputs[i]->loc
                               : callee->scalars[i - callee->ninputs]->loc,
                      "'%s' is declared here", param_name(callee, i));
            return -1;
        }
    return 0;
}

/* Substitution of the callee's sizes and scalars by a call's values. */
typedef struct CallMap {
    TlCall *call;
    Chk *c;
} CallMap;

static TlSymExpr *map_callee(void *ctx, TlVar *v)
{
    CallMap *m = ctx;
    TlKernelInfo *k = m->call->callee;

    if (v->kernel == k && v->kind == VAR_SIZE && v->num < k->nsizes &&
        k->sizes[v->num] == v)
        return m->call->sizes[v->num];
    if (v->kernel == k && v->kind == VAR_SCALAR && v->num < k->nscalars)
        return m->call->scalars[v->num];
    return NULL;
}

/* Where a size variable of the callee got its value in this call. */
typedef struct Origin {
    const char *param;
    int axis;
} Origin;

void shp_call(Chk *c, TlCall *call, ShpArg *targs)
{
    TlKernelInfo *k = call->callee;
    CallMap m = {call, c};
    Origin *org = arena_alloc(c->a, (size_t)(k->nsizes + 1) * sizeof *org);
    int bad = 0;

    call->sizes = arena_alloc(c->a, (size_t)(k->nsizes + 1) *
                                        sizeof *call->sizes);
    /* Scalars: given, or the default in terms of earlier scalars. */
    for (int j = 0; j < k->nscalars; j++) {
        TlVar *v = k->scalars[j];
        if (!dt_is_int(v->dtype))
            call->scalars[j] = NULL;
        else if (call->args[k->ninputs + j])
            call->scalars[j] = shp_sym(c, call->args[k->ninputs + j], 0);
        else if (v->param && v->param->init)
            call->scalars[j] = sym_subst(c->a, shp_sym(c, v->param->init, 0),
                                         map_callee, &m);
    }
    for (int i = 0; i < k->ninputs; i++) {
        TlFunc *p = k->inputs[i];
        ShpArg *a = &targs[i];
        if (a->dtype != DT_NONE && p->dtype != DT_NONE &&
            a->dtype != p->dtype) {
            diag_error(c->s, a->expr->loc, DIAG_KERNEL_ARG_DTYPE, p->name,
                       k->name, dt_name(a->dtype), dt_name(p->dtype));
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            bad = 1;
        }
        if (a->rank >= 0 && a->rank != p->rank) {
            diag_error(c->s, a->expr->loc, DIAG_KERNEL_ARG_RANK, p->name,
                       k->name, a->rank, p->rank);
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            bad = 1;
            continue;
        }
        for (int j = 0; j < p->rank; j++) {
            TlSymExpr *got = a->shape && a->rank >= 0 ? a->shape[j] : NULL;
            TlSymExpr *want = p->axes[j].extent;
            TlVar *v = want && want->n == 1 && want->c == 0 &&
                               want->t[0].coef == 1 &&
                               want->t[0].atom->kind == SYM_VAR
                           ? want->t[0].atom->var
                           : NULL;
            if (v && v->kind == VAR_SIZE && v->bound_by == p &&
                v->bound_axis == j && v->num < k->nsizes &&
                k->sizes[v->num] == v) {
                call->sizes[v->num] = got;
                org[v->num].param = p->name;
                org[v->num].axis = j;
                continue;
            }
            want = sym_subst(c->a, want, map_callee, &m);
            if (!got || !want || !sym_prove_ne(got, want))
                continue;
            if (v && v->kind == VAR_SIZE && v->num < k->nsizes &&
                org[v->num].param) {
                diag_error(c->s, a->expr->loc, DIAG_SIZE_MISMATCH, v->name,
                           sym_str(c->a, want), org[v->num].param,
                           org[v->num].axis, sym_str(c->a, got), p->name, j);
            } else {
                diag_error(c->s, a->expr->loc, DIAG_SHAPE_MISMATCH, j,
                           p->name, k->name, sym_str(c->a, got),
                           sym_str(c->a, want));
            }
            diag_note(c->s, p->loc, "'%s' of '%s' is declared here",
                      p->name, k->name);
            bad = 1;
        }
    }
    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *o = k->outputs[i], *r = call->results[i];
        if (!r)
            continue;
        r->dtype = o->dtype;
        for (int j = 0; j < o->rank && j < r->rank; j++) {
            r->axes[j].lo = sym_const(c->a, 0);
            r->axes[j].extent =
                bad ? NULL : sym_subst(c->a, o->axes[j].extent, map_callee,
                                       &m);
        }
    }
}
