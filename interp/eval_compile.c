/*
 * eval_compile.c - a checked kernel expression (lang.h, "Checked
 * pipeline") becomes a tree of ItpNode: names resolved to variable
 * slots and tensors, builtins to operations, literals to values of
 * their dtype, reduction ranges evaluated.  The compiler also marks
 * which nodes vary along a row (depend on the row variable) and which
 * integer nodes are affine in it (the row variable times a uniform
 * factor plus a uniform term), which eval_read.c turns into strided
 * loads.  A node tree lives in its frame's arena.
 */
#include "interp/eval_int.h"

#include <string.h>

typedef struct Comp {
    ItpFrame *F;
    int row_var;
    int failed;
} Comp;

static ItpNode *compile(Comp *C, const TlExpr *e);

static ItpNode *new_node(Comp *C, ItpOp op, const TlExpr *e, TlDType dt)
{
    ItpNode *n = arena_alloc(&C->F->arena, sizeof *n);
    n->op = op;
    n->dt = dt;
    n->e = e;
    return n;
}

/* A literal's value in its (retyped) dtype. */
static ItpVal literal(const TlExpr *e)
{
    ItpVal v;

    if (e->kind == EX_FLOAT) {
        if (dt_is_float(e->dtype))
            v.f = itp_round(e->dtype, e->fval);
        else
            v.i = tl_f64_to_int(e->dtype, e->fval);
        return v;
    }
    v.i = e->kind == EX_BOOL ? e->ival != 0 : e->ival;
    return itp_cast(e->dtype, DT_I64, v);
}

static ItpNode *compile_read(Comp *C, const TlExpr *e, TlFunc *f, TlRead *r)
{
    ItpFrame *F = C->F;
    ItpNode *n = new_node(C, I_READ, e, f->dtype);
    ItpRead *rd = arena_alloc(&F->arena, sizeof *rd);

    rd->slot = itp_slot_of(F, f);
    rd->func = f;
    rd->r = r;
    rd->mode = r ? r->mode : READ_PLAIN;
    rd->rank = r ? e->args.n : 0;
    TL_ASSERT(rd->rank == f->rank);
    if (rd->rank)
        rd->idx = arena_alloc(&F->arena, (size_t)rd->rank * sizeof *rd->idx);
    for (int j = 0; j < rd->rank; j++) {
        rd->idx[j] = compile(C, e->args.v[j]);
        n->vary |= rd->idx[j]->vary;
    }
    n->rd = rd;
    return n;
}

static ItpNode *compile_reduce(Comp *C, const TlExpr *e)
{
    ItpFrame *F = C->F;
    TlReduce *r = e->sym;
    ItpNode *n = new_node(C, I_REDUCE, e, e->dtype);
    ItpRed *red = arena_alloc(&F->arena, sizeof *red);

    TL_ASSERT(tl_ref_kind(r) == REF_REDUCE && r->nrvars > 0);
    red->r = r;
    red->op = r->op;
    red->nv = r->nrvars;
    red->vars = arena_alloc(&F->arena, (size_t)red->nv * sizeof *red->vars);
    red->lo = arena_alloc(&F->arena, (size_t)red->nv * sizeof *red->lo);
    red->ext = arena_alloc(&F->arena, (size_t)red->nv * sizeof *red->ext);
    red->total = 1;
    for (int i = 0; i < red->nv; i++) {
        TlVar *v = r->rvars[i];
        const char *what = arena_printf(&F->arena,
                                        "the range of reduction variable "
                                        "'%s'", v->name);
        red->vars[i] = itp_var_index(F, v);
        if (itp_sym(F, v->lo, v->loc, what, &red->lo[i]) ||
            itp_sym(F, v->extent, v->loc, what, &red->ext[i])) {
            C->failed = 1;
            return n;
        }
        if (red->ext[i] < 0)
            red->ext[i] = 0;
        if (red->total > 0 && red->ext[i] > INT64_MAX / red->total)
            red->total = INT64_MAX;     /* never finishes anyway */
        else
            red->total *= red->ext[i];
    }
    red->body = compile(C, e->a);
    n->vary = red->body->vary;
    n->red = red;
    return n;
}

static ItpNode *compile_call(Comp *C, const TlExpr *e)
{
    ItpFrame *F = C->F;
    ItpNode *n;

    if (tl_ref_kind(e->sym) == REF_EXTERN) {
        ItpExt *x = arena_alloc(&F->arena, sizeof *x);
        n = new_node(C, I_EXTERN, e, e->dtype);
        x->x = e->sym;
        x->nargs = e->args.n;
        x->loc = e->loc;
        x->args = arena_alloc(&F->arena,
                              (size_t)(x->nargs + 1) * sizeof *x->args);
        x->vals = arena_alloc(&F->arena,
                              (size_t)(x->nargs + 1) * sizeof *x->vals);
        x->rows = arena_alloc(&F->arena,
                              (size_t)(x->nargs + 1) * sizeof *x->rows);
        x->strides = arena_alloc(&F->arena,
                                 (size_t)(x->nargs + 1) * sizeof *x->strides);
        for (int i = 0; i < x->nargs; i++) {
            x->args[i] = compile(C, e->args.v[i]);
            n->vary |= x->args[i]->vary;
        }
        n->ext = x;
        return n;
    }
    TL_ASSERT(tl_ref_kind(e->sym) == REF_BUILTIN);
    if (((const TlBuiltin *)e->sym)->id == BI_HASH) {
        /* Of a whole input of this call: a constant of the call. */
        ItpSlot *sl = &C->F->slots[itp_slot_of(C->F, e->args.v[0]->sym)];
        n = new_node(C, I_CONST, e, DT_I64);
        n->k.i = (int64_t)tl_tensor_hash(sl->t);
        return n;
    }
    n = new_node(C, itp_builtin_op(((const TlBuiltin *)e->sym)->id), e,
                 e->dtype);
    if (n->op == I_SELECT) {
        TL_ASSERT(e->args.n == 3);
        n->c = compile(C, e->args.v[0]);
        n->a = compile(C, e->args.v[1]);
        n->b = compile(C, e->args.v[2]);
    } else {
        TL_ASSERT(e->args.n >= 1 && e->args.n <= 3);
        n->a = compile(C, e->args.v[0]);
        if (e->args.n > 1)
            n->b = compile(C, e->args.v[1]);
        if (e->args.n > 2)
            n->c = compile(C, e->args.v[2]);
    }
    return n;
}

static ItpNode *compile_name(Comp *C, const TlExpr *e)
{
    ItpNode *n;

    if (tl_ref_kind(e->sym) == REF_FUNC)
        return compile_read(C, e, e->sym, NULL);
    TL_ASSERT(tl_ref_kind(e->sym) == REF_VAR);
    n = new_node(C, I_VAR, e, e->dtype);
    n->var = itp_var_index(C->F, e->sym);
    if (n->var == C->row_var) {
        n->op = I_ROWVAR;
        n->vary = 1;
    }
    return n;
}

static ItpNode *compile(Comp *C, const TlExpr *e)
{
    ItpNode *n;

    TL_ASSERT(e && e->dtype != DT_NONE);
    switch (e->kind) {
    case EX_INT:
    case EX_FLOAT:
    case EX_BOOL:
        n = new_node(C, I_CONST, e, e->dtype);
        n->k = literal(e);
        return n;
    case EX_STR:
        n = new_node(C, I_CONST, e, DT_STR);
        n->k.s = tl_str_intern(e->str, strlen(e->str));
        return n;
    case EX_NAME:
        return compile_name(C, e);
    case EX_INDEX:
        TL_ASSERT(tl_ref_kind(e->sym) == REF_READ);
        return compile_read(C, e, ((TlRead *)e->sym)->func, e->sym);
    case EX_CALL:
        n = compile_call(C, e);
        break;
    case EX_REDUCE:
        return compile_reduce(C, e);
    case EX_UNARY:
        n = new_node(C, e->op == OP_NOT ? I_NOT : I_NEG, e, e->dtype);
        n->a = compile(C, e->a);
        break;
    case EX_BINARY:
        n = new_node(C, itp_op_of(e->op), e, e->dtype);
        n->a = compile(C, e->a);
        n->b = compile(C, e->b);
        /* Both operands of an operator have one dtype (the checker's
         * implicit casts); comparisons compute in it. */
        TL_ASSERT(n->a->dt == n->b->dt);
        break;
    case EX_CAST:
        n = new_node(C, I_CAST, e, e->dtype);
        n->a = compile(C, e->a);
        break;
    default:
        tl_unreachable();
    }
    n->vary |= (n->a && n->a->vary) || (n->b && n->b->vary) ||
               (n->c && n->c->vary);
    return n;
}

/* ====================================================================
 * Row plumbing: which integer nodes are affine in the row variable,
 * and the buffers of varying nodes
 * ==================================================================== */

static void mark_affine(ItpNode *n)
{
    if (!n)
        return;
    mark_affine(n->a);
    mark_affine(n->b);
    mark_affine(n->c);
    if (n->rd)
        for (int j = 0; j < n->rd->rank; j++)
            mark_affine(n->rd->idx[j]);
    if (n->red)
        mark_affine(n->red->body);
    if (n->ext)
        for (int i = 0; i < n->ext->nargs; i++)
            mark_affine(n->ext->args[i]);
    if (!n->vary || !dt_is_int(n->dt))
        return;
    switch (n->op) {
    case I_ROWVAR:
        n->affine = 1;
        break;
    case I_CAST:
    case I_NEG:
        n->affine = dt_is_int(n->a->dt) && n->a->affine;
        break;
    case I_ADD:
    case I_SUB:
    case I_MUL:
        n->affine = (n->a->affine && !n->b->vary) ||
                    (n->b->affine && !n->a->vary);
        break;
    default:
        break;
    }
}

static void alloc_rows(ItpFrame *F, ItpNode *n)
{
    if (!n)
        return;
    alloc_rows(F, n->a);
    alloc_rows(F, n->b);
    alloc_rows(F, n->c);
    if (n->rd)
        for (int j = 0; j < n->rd->rank; j++)
            alloc_rows(F, n->rd->idx[j]);
    if (n->ext)
        for (int i = 0; i < n->ext->nargs; i++)
            alloc_rows(F, n->ext->args[i]);
    if (n->red)
        alloc_rows(F, n->red->body);
    if (!n->vary)
        return;
    n->buf = arena_alloc(&F->arena, ITP_ROW * sizeof *n->buf);
    if (n->op == I_SELECT) {
        n->mask_a = arena_alloc(&F->arena, ITP_ROW);
        n->mask_b = arena_alloc(&F->arena, ITP_ROW);
    }
    if (n->red) {
        /* argmax/argmin keep the best values beside the indices; the
         * other reductions accumulate in the node's own row. */
        if (n->red->op == RD_ARGMAX || n->red->op == RD_ARGMIN) {
            n->red->acc = arena_alloc(&F->arena, ITP_ROW * sizeof *n->buf);
            n->red->arg = n->buf;
        } else {
            n->red->acc = n->buf;
        }
    }
}

ItpNode *itp_compile(ItpFrame *F, const TlExpr *e, int row_var,
                     TlDType want)
{
    Comp C = {F, row_var, 0};
    ItpNode *n = compile(&C, e);

    if (C.failed)
        return NULL;
    if (want != DT_NONE && n->dt != want) {
        /* A value the checker let through in another dtype (a literal
         * or a default) is converted like an implicit cast. */
        ItpNode *x = new_node(&C, I_CAST, e, want);
        x->a = n;
        x->vary = n->vary;
        n = x;
    }
    if (row_var >= 0) {
        mark_affine(n);
        alloc_rows(F, n);
    }
    return n;
}
