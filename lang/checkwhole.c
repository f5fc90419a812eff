/*
 * checkwhole.c - whole-tensor bindings (SPEC 6.5): `t = A * 2.0`,
 * `u = exp(t) + relu(B)`.  Element-wise operators, builtins and casts
 * over whole tensors of one shape, and scalars.
 *
 * Such a binding becomes an ordinary stage: it gets fresh index
 * variables `_0, _1, ...` (one per axis of its operands) and the value
 * with every tensor operand read at them (`t[_0] = A[_0] * 2.0`); a
 * kernel call among the operands becomes an anonymous call whose
 * result is read the same way.  The statement keeps its text; the
 * element-wise value is TlFunc.value.  Its domain is the operands'
 * shape, which must agree.
 *
 * The ranks of calls of generic kernels (bound or inside such an
 * expression) come from their arguments' ranks, so they are found in
 * the same pass, which repeats until nothing changes.
 */
#include "lang/lang_int.h"

#include <string.h>

/* A call is a kernel call unless it names a builtin or an extern,
 * which apply element-wise. */
static int elementwise_call(Kern *kc, TlExpr *e)
{
    const char *name = rsv_dotted(kc->c, e->a);
    ScopeEnt *ent = name ? rsv_find(kc->scope, name) : NULL;

    if (ent)
        return tl_ref_kind(ent->sym) == REF_EXTERN;
    return rsv_builtin(name) != NULL;
}

int chk_whole_is(Kern *kc, TlStmt *st)
{
    TlExpr *e = st->value;

    if (!e || e->kind == EX_ON || st->names.n != 1)
        return 0;
    return e->kind != EX_CALL || elementwise_call(kc, e);
}

void chk_whole_define(Kern *kc, TlStmt *st)
{
    Chk *c = kc->c;
    TlIdent *id = &st->names.v[0];
    TlFunc *f;

    if (!id->name)
        return;
    f = chk_existing(kc, id->name, id->loc);
    if (f == &chk_failed_def)
        return;
    if (!f) {
        f = chk_func(c, FN_STAGE, id->name, id->loc, -1);
        f->kernel = kc->k;
        rsv_add(c, kc->scope, id->name, f, id->loc);
    }
    f->stmt = st;
    st->sym = f;
    chk_fx(c, f)->whole = 1;
    vec_push(c->a, &kc->funcs, f);
}

/* ====================================================================
 * Ranks
 * ==================================================================== */

enum { PENDING = -2, BAD = -3 };

/* The rank of the tensor a name stands for (0: a scalar), PENDING or
 * BAD as rank_of. */
static int name_rank(Kern *kc, TlFunc *self, TlExpr *e, int *tensor)
{
    Chk *c = kc->c;
    ScopeEnt *ent = rsv_find(kc->scope, e->str);
    void *sym = ent ? ent->sym : NULL;

    if (tl_ref_kind(sym) == REF_LET) {
        chk_let(c, sym);
        sym = ((TlLet *)sym)->func;
        if (!sym)
            return 0;   /* reported when resolved */
    }
    if (tl_ref_kind(sym) != REF_FUNC)
        return 0;       /* scalars; unknown names are reported later */
    *tensor = 1;
    if (sym == self)
        return PENDING;
    if (chk_fx(c, sym)->whole == 1 || chk_fx(c, sym)->gpending)
        return PENDING;
    return ((TlFunc *)sym)->rank < 0 ? BAD : ((TlFunc *)sym)->rank;
}

static int generic_rank(Kern *kc, TlFunc *self, TlKernelInfo *k,
                        TlExpr *e, int report);

/* The rank of a tensor argument of a call: a name or a call of a
 * kernel with one output; BAD (quietly: the call reports it) for
 * anything else. */
static int arg_rank(Kern *kc, TlFunc *self, TlExpr *x)
{
    TlKernelInfo *k;
    int tensor = 0;

    if (x->kind == EX_NAME && x->str)
        return name_rank(kc, self, x, &tensor);
    if (x->kind != EX_CALL || elementwise_call(kc, x) ||
        !(k = chk_callee(kc, x, NULL, 0)) || k->noutputs != 1)
        return BAD;
    return k->generic ? generic_rank(kc, self, k, x, 0)
                      : k->outputs[0]->rank;
}

/* The rank of the first output of generic kernel k called by e, from
 * its tensor arguments' ranks (a binding that fails is reported when
 * report is set). */
static int generic_rank(Kern *kc, TlFunc *self, TlKernelInfo *k,
                        TlExpr *e, int report)
{
    Chk *c = kc->c;
    TlExpr **xs = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *xs);
    int *in = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *in);
    int *out = arena_alloc(c->a, (size_t)(k->noutputs + 1) * sizeof *out);
    int pending = 0;

    gen_tensor_args(k, e, xs);
    for (int i = 0; i < k->ninputs; i++) {
        in[i] = xs[i] ? arg_rank(kc, self, xs[i]) : BAD;
        if (in[i] == BAD)
            return BAD;
        pending |= in[i] == PENDING;
    }
    if (pending)
        return PENDING;
    return gen_out_ranks(c, k, in, xs, report && !kc->generic, out) < 0
               ? BAD : out[0];
}

/* The rank of a whole-tensor operand expression: 0 for scalars,
 * PENDING when it depends on a binding not ranked yet, BAD after an
 * error (reported). */
static int rank_of(Kern *kc, TlFunc *self, TlExpr *e, int *tensor)
{
    Chk *c = kc->c;
    int r = 0;

    if (!e)
        return BAD;
    switch (e->kind) {
    case EX_INT:
    case EX_FLOAT:
    case EX_BOOL:
        return 0;
    case EX_NAME:
        return name_rank(kc, self, e, tensor);
    case EX_CALL: {
        TlKernelInfo *k;
        if (!elementwise_call(kc, e)) {
            k = chk_callee(kc, e, self->name, 1);
            if (!k)
                return BAD;
            if (k->noutputs != 1) {
                diag_error(c->s, e->loc, DIAG_MULTI_OUTPUT_VALUE, k->name,
                           k->noutputs);
                return BAD;
            }
            *tensor = 1;
            return k->generic ? generic_rank(kc, self, k, e, 1)
                              : k->outputs[0]->rank;
        }
        for (int i = 0; i < e->args.n; i++) {
            int a = rank_of(kc, self, e->args.v[i], tensor);
            if (a < 0)
                return a;
            if (a > r)
                r = a;
        }
        return r;
    }
    case EX_UNARY:
    case EX_CAST:
        return rank_of(kc, self, e->a, tensor);
    case EX_BINARY: {
        int a = rank_of(kc, self, e->a, tensor), b;
        if (a < 0)
            return a;
        b = rank_of(kc, self, e->b, tensor);
        if (b < 0)
            return b;
        return a > b ? a : b;
    }
    default:
        diag_error(c->s, e->loc, DIAG_WHOLE_FORM, self->name);
        diag_hint(c->s, "define it element by element: %s[i, ...] = ...",
                  self->name);
        return BAD;
    }
}

/* ====================================================================
 * The element-wise value
 * ==================================================================== */

static TlExpr *copy(Chk *c, const TlExpr *e)
{
    TlExpr *x;

    if (!e)
        return NULL;
    x = ast_expr(c->s, e->kind, e->loc);
    *x = *e;
    x->args.v = NULL;
    x->args.n = x->args.cap = 0;
    x->a = copy(c, e->a);
    x->b = copy(c, e->b);
    x->c = copy(c, e->c);
    for (int i = 0; i < e->args.n; i++)
        ast_push_expr(c->s, &x->args, copy(c, e->args.v[i]));
    return x;
}

/* A read of the tensor called name at the binding's index variables. */
static TlExpr *read_at(Kern *kc, TlFunc *f, TlExpr *at, const char *name)
{
    Chk *c = kc->c;
    TlExpr *ix = ast_expr(c->s, EX_INDEX, at->loc);

    ix->a = ast_name(c->s, at->loc, name);
    for (int j = 0; j < f->rank; j++)
        ast_push_expr(c->s, &ix->args,
                      ast_name(c->s, at->loc, f->axes[j].var->name));
    vec_push(c->a, &chk_fx(c, f)->leaves, ix);
    return ix;
}

/* Rewrites the copy *slot in place: tensor operands become reads.
 * Returns 0 after reporting an operand of another rank. */
static int elementwise(Kern *kc, TlFunc *f, TlExpr **slot)
{
    Chk *c = kc->c;
    TlExpr *e = *slot;

    if (!e)
        return 1;
    switch (e->kind) {
    case EX_NAME: {
        ScopeEnt *ent = rsv_find(kc->scope, e->str);
        void *sym = ent ? ent->sym : NULL;
        int r = -1;
        if (tl_ref_kind(sym) == REF_LET && ((TlLet *)sym)->func)
            r = ((TlLet *)sym)->func->rank;
        else if (tl_ref_kind(sym) == REF_FUNC)
            r = ((TlFunc *)sym)->rank;
        if (r > 0 && r != f->rank) {
            diag_error(c->s, e->loc, DIAG_WHOLE_RANK, f->name, e->str, r,
                       f->rank);
            return 0;
        }
        if (r > 0)
            *slot = read_at(kc, f, e, e->str);
        return 1;
    }
    case EX_CALL:
        if (!elementwise_call(kc, e)) {
            /* A kernel call: an anonymous call, read element-wise.  Its
             * result is visible to this stage only. */
            TlKernelInfo *k = chk_callee(kc, e, f->name, 0);
            TlCall *call;
            TlFunc *r;
            int rank;
            if (!k)
                return 0;
            rank = k->generic ? generic_rank(kc, f, k, e, 0)
                              : k->outputs[0]->rank;
            if (rank != f->rank) {
                diag_error(c->s, e->loc, DIAG_WHOLE_RANK, f->name, k->name,
                           rank, f->rank);
                return 0;
            }
            call = chk_new_call(kc, k, e, chk_nested_name(kc, k->name));
            r = chk_func(c, FN_CALL, call->name, e->loc, rank);
            r->kernel = kc->k;
            r->dtype = k->outputs[0]->dtype;
            r->call = call;
            r->stmt = f->stmt;
            call->results[0] = r;
            vec_push(c->a, &kc->funcs, r);
            rsv_add(c, chk_fx(c, f)->sc, call->name, r, e->loc);
            chk_resolve_call(kc, call);
            *slot = read_at(kc, f, e, call->name);
            return 1;
        }
        for (int i = 0; i < e->args.n; i++)
            if (!elementwise(kc, f, &e->args.v[i]))
                return 0;
        return 1;
    case EX_UNARY:
    case EX_CAST:
        return elementwise(kc, f, &e->a);
    case EX_BINARY:
        return elementwise(kc, f, &e->a) && elementwise(kc, f, &e->b);
    default:
        return 1;
    }
}

static void give_rank(Kern *kc, TlFunc *f, int rank)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);
    TlExpr *value;

    fx->whole = 2;
    if (f->kind == FN_OUTPUT && f->rank != rank) {
        diag_error(c->s, f->stmt->loc, DIAG_OUTPUT_RANK, f->name, f->rank,
                   rank);
        f->dtype = DT_NONE;
        return;
    }
    if (f->kind != FN_OUTPUT) {
        f->rank = rank;
        f->axes = arena_alloc(c->a, (size_t)(rank + 1) * sizeof *f->axes);
    }
    fx->sc = rsv_scope(c, kc->scope, f->name);
    for (int j = 0; j < rank; j++) {
        TlVar *v = chk_var(c, VAR_INDEX, arena_printf(c->a, "_%d", j),
                           f->stmt->loc);
        v->num = j;
        v->func = f;
        f->axes[j].var = v;
        rsv_add(c, fx->sc, v->name, v, v->loc);
    }
    value = copy(c, f->stmt->value);
    if (elementwise(kc, f, &value))
        f->value = value;
    else
        f->dtype = DT_NONE;
}

/* Bindings of calls of generic kernels whose results wait for their
 * ranks (gpending): ranked once the arguments' ranks are known.
 * Returns whether one was. */
static int generic_bindings(Kern *kc)
{
    Chk *c = kc->c;
    int progress = 0;

    for (int i = 0; i < kc->calls.n; i++) {
        TlCall *call = kc->calls.v[i];
        TlKernelInfo *k = call->callee;
        TlExpr **xs;
        int *in, *out, pending = 0, bad = 0, st = -1;
        for (int j = 0; j < k->noutputs; j++)
            pending |= call->results[j] &&
                       chk_fx(c, call->results[j])->gpending;
        if (!k->generic || !pending)
            continue;
        xs = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *xs);
        in = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *in);
        out = arena_alloc(c->a, (size_t)(k->noutputs + 1) * sizeof *out);
        gen_tensor_args(k, call->expr, xs);
        pending = 0;
        for (int j = 0; j < k->ninputs; j++) {
            in[j] = xs[j] ? arg_rank(kc, NULL, xs[j]) : BAD;
            bad |= in[j] == BAD;
            pending |= in[j] == PENDING;
        }
        if (pending && !bad)
            continue;
        progress = 1;
        if (!bad)
            st = gen_out_ranks(c, k, in, xs, !kc->generic, out);
        if (st == -2)
            vec_push(c->a, &kc->bad_calls, call);
        for (int j = 0; j < k->noutputs; j++) {
            TlFunc *r = call->results[j];
            if (!r || !chk_fx(c, r)->gpending)
                continue;
            chk_fx(c, r)->gpending = 0;
            if (st < 0)
                continue;
            if (r->kind != FN_OUTPUT) {
                gen_set_rank(c, r, out[j]);
            } else if (r->rank != out[j]) {
                diag_error(c->s, r->stmt->loc, DIAG_BIND_RANK, r->name,
                           r->rank, k->name, out[j]);
                diag_note(c->s, r->loc, "'%s' is declared here", r->name);
                r->dtype = DT_NONE;
                vec_push(c->a, &kc->bad_calls, call);
            }
        }
    }
    return progress;
}

void chk_whole_ranks(Kern *kc)
{
    Chk *c = kc->c;
    int progress = 1;

    while (progress) {
        progress = generic_bindings(kc);
        for (int i = 0; i < kc->funcs.n; i++) {
            TlFunc *f = kc->funcs.v[i];
            int r, tensor = 0;
            if (chk_fx(c, f)->whole != 1)
                continue;
            r = rank_of(kc, f, f->stmt->value, &tensor);
            if (r == PENDING)
                continue;
            progress = 1;
            if (r == BAD) {
                chk_fx(c, f)->whole = 2;
                f->dtype = DT_NONE;
                if (f->rank < 0)
                    f->rank = -1;
                continue;
            }
            if (r == 0 && !tensor) {
                diag_error(c->s, f->stmt->value->loc, DIAG_WHOLE_SCALAR,
                           f->name);
                diag_hint(c->s, "a rank-0 stage is written %s[] = ...",
                          f->name);
                chk_fx(c, f)->whole = 2;
                f->dtype = DT_NONE;
                continue;
            }
            give_rank(kc, f, r);
        }
    }
    for (int i = 0; i < kc->funcs.n; i++) {
        TlFunc *f = kc->funcs.v[i];
        if (chk_fx(c, f)->whole == 1) {
            diag_error(c->s, f->stmt->loc, DIAG_CYCLE, f->name,
                       "through whole-tensor bindings");
            chk_fx(c, f)->whole = 2;
            f->dtype = DT_NONE;
        }
        /* Waiting on each other: the order step reports the cycle. */
        chk_fx(c, f)->gpending = 0;
    }
}

/* ====================================================================
 * Shapes
 * ==================================================================== */

void chk_whole_shapes(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);
    TlRead *first = NULL;

    fx->nat_lo = arena_alloc(c->a, (size_t)(f->rank + 1) *
                                       sizeof *fx->nat_lo);
    fx->nat_ext = arena_alloc(c->a, (size_t)(f->rank + 1) *
                                        sizeof *fx->nat_ext);
    for (int i = 0; i < fx->leaves.n; i++) {
        TlExpr *ix = fx->leaves.v[i];
        TlRead *rd = ix->sym;
        if (tl_ref_kind(rd) != REF_READ || rd->func->rank != f->rank)
            continue;
        if (rd->func->kind == FN_STAGE)
            continue;   /* its domain follows this one */
        if (!first) {
            first = rd;
            continue;
        }
        for (int j = 0; j < f->rank; j++) {
            TlSymExpr *x = first->func->axes[j].extent;
            TlSymExpr *y = rd->func->axes[j].extent;
            if (x && y && sym_prove_ne(x, y)) {
                diag_error(c->s, ix->a->loc, DIAG_WHOLE_SHAPE, f->name, j,
                           first->func->name, sym_str(c->a, x),
                           rd->func->name, sym_str(c->a, y));
                f->dtype = DT_NONE;
                return;
            }
        }
    }
    /* The domain is the operands' shape: fixed, like an input's. */
    if (first && f->kind == FN_STAGE) {
        f->fixed = 1;
        for (int j = 0; j < f->rank; j++) {
            fx->nat_lo[j] = sym_const(c->a, 0);
            fx->nat_ext[j] = first->func->axes[j].extent;
        }
    }
}
