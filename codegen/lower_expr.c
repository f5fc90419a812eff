/*
 * lower_expr.c - symbolic sizes and expressions of the language to
 * loop-IR expressions: reads (buffers, inlined stages, checked and
 * padded reads), reductions, built-in functions.
 */
#include "codegen/lower_int.h"

#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * Symbolic sizes
 * ==================================================================== */

static LExpr *atom_lower(Lw *L, const TlSymAtom *a, TlDType dt, TlLoc loc)
{
    LOp op;

    if (a->kind == SYM_VAR) {
        LVar *v = cg_find_var(L, a->var);
        if (!v) {
            cg_unsupported(L, loc, arena_printf(&L->s->arena,
                        "a size that depends on '%s'", a->var->name));
            return lir_int(L->s, dt, 0);
        }
        return to_dt(L, dt, lir_ref(L->s, v));
    }
    if (a->kind == SYM_SEL)
        return lir_select(L->s,
                          bin(L, LO_NE, cg_sym_lower(L, a->c, dt, loc),
                              lir_int(L->s, dt, 0)),
                          cg_sym_lower(L, a->a, dt, loc),
                          cg_sym_lower(L, a->b, dt, loc));
    if (a->kind == SYM_LT || a->kind == SYM_EQ)
        return to_dt(L, dt, bin(L, a->kind == SYM_LT ? LO_LT : LO_EQ,
                                cg_sym_lower(L, a->a, dt, loc),
                                cg_sym_lower(L, a->b, dt, loc)));
    switch (a->kind) {
    case SYM_DIV: op = LO_DIV; break;
    case SYM_MOD: op = LO_MOD; break;
    case SYM_MIN: op = LO_MIN; break;
    case SYM_MAX: op = LO_MAX; break;
    default: op = LO_MUL; break;
    }
    return bin(L, op, cg_sym_lower(L, a->a, dt, loc),
               cg_sym_lower(L, a->b, dt, loc));
}

LExpr *cg_sym_lower(Lw *L, const TlSymExpr *e, TlDType dt, TlLoc loc)
{
    LExpr *r;

    if (!e) {
        cg_unsupported(L, loc, "a size that is known only while running");
        return lir_int(L->s, dt, 0);
    }
    r = lir_int(L->s, dt, lir_wrap_int(dt, e->c));
    for (int i = 0; i < e->n; i++) {
        LExpr *t = atom_lower(L, e->t[i].atom, dt, loc);
        if (e->t[i].coef != 1)
            t = bin(L, LO_MUL, lir_int(L->s, dt,
                                       lir_wrap_int(dt, e->t[i].coef)), t);
        r = i == 0 && e->c == 0 ? t : bin(L, LO_ADD, r, t);
    }
    return r;
}

/* ====================================================================
 * Expressions.  Statements an expression needs first (reductions,
 * range checks) go to `pre`, which runs right before its user.
 * ==================================================================== */

/* The flat offset (i64) of element idx[] of fi, from its domain start;
 * clamped into the domain when clamp is set. */
LExpr *cg_offset(Lw *L, FInfo *fi, int rank, LExpr **idx, int clamp)
{
    LExpr *off = i64c(L, 0);

    for (int j = 0; j < rank; j++) {
        LExpr *x = idx[j];
        if (clamp) {
            LExpr *hi = bin(L, LO_SUB, bin(L, LO_ADD, fi->lo[j], fi->ext[j]),
                            i64c(L, 1));
            x = bin(L, LO_MIN, bin(L, LO_MAX, x, fi->lo[j]), hi);
        }
        x = bin(L, LO_MUL, bin(L, LO_SUB, x, fi->slo[j] ? fi->slo[j] :
                                        fi->rlo[j]), fi->stride[j]);
        off = j == 0 ? x : bin(L, LO_ADD, off, x);
    }
    return off;
}

static LExpr *in_range(Lw *L, FInfo *fi, int rank, LExpr **idx)
{
    LExpr *ok = NULL;

    for (int j = 0; j < rank; j++) {
        LExpr *c = bin(L, LO_AND, bin(L, LO_GE, idx[j], fi->lo[j]),
                       bin(L, LO_LT, idx[j],
                           bin(L, LO_ADD, fi->lo[j], fi->ext[j])));
        ok = ok ? bin(L, LO_AND, ok, c) : c;
    }
    return ok ? ok : lir_bool(L->s, 1);
}

/* select(cond, a, b) where a needs statements pa and b needs pb
 * (lets, reductions), each run only when its side is chosen: under
 * `if cond ... else ...`, where their names are in scope, each side
 * storing its value into a one-element buffer made before, which is
 * then read.  A plain select when neither needs statements. */
static LExpr *lazy_select(Lw *L, SList *pre, LExpr *cond, SList *pa,
                          LExpr *a, SList *pb, LExpr *b)
{
    LVar *tmp;
    LExpr *z = i64c(L, 0);

    if (!pa->n && !pb->n)
        return lir_select(L->s, cond, a, b);
    tmp = lir_buffer(L->s, cg_fresh(L, "sel"), a->type.dt);
    cg_sl_add(pre, lir_alloc(L->s, tmp, LM_STACK, &(LExpr *){i64c(L, 1)},
                             1));
    cg_sl_add(pa, lir_store(L->s, tmp, &z, 1, a));
    cg_sl_add(pb, lir_store(L->s, tmp, &z, 1, b));
    cg_sl_add(pre, lir_if(L->s, cond, cg_sl_done(L, pa),
                          cg_sl_done(L, pb)));
    return lir_load(L->s, tmp, &z, 1);
}

/* A read of a compute_inline stage: its value with its index
 * variables bound to the read's indices (lets in pre). */
static LExpr *inline_read(Lw *L, TlExpr *e, TlFunc *f, FInfo *fi,
                          TlRead *r, SList *pre)
{
    LExpr *idx[TL_MAX_RANK], *val;
    int saved = L->nvars, ctx = L->ctx;
    const TlFunc *vf = fi->vf ? fi->vf : f;
    SList p = {0};
    LExpr *ok = NULL;

    TL_ASSERT(r);
    for (int j = 0; j < f->rank; j++) {
        LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          vf->name, vf->axes[j].var->name)),
                          lir_type(DT_I32, 1));
        L->ctx = ctx;
        idx[j] = to_dt(L, DT_I32, cg_lower_expr(L, e->args.v[j], pre));
        if (r->mode == READ_CLAMP_EDGE) {
            LExpr *lo = to_dt(L, DT_I32, fi->lo[j]);
            LExpr *hi = bin(L, LO_SUB, bin(L, LO_ADD, lo, to_dt(L, DT_I32,
                            fi->ext[j])), lir_int(L->s, DT_I32, 1));
            idx[j] = bin(L, LO_MIN, bin(L, LO_MAX, idx[j], lo), hi);
        }
        cg_sl_add(pre, lir_let(L->s, v, idx[j]));
        idx[j] = to_dt(L, DT_I64, lir_ref(L->s, v));
        if (fi->vf)
            L->ctx = fi->vctx;
        cg_map_var(L, vf->axes[j].var, v);
    }
    if (fi->vf)
        L->ctx = fi->vctx;
    if (r->mode == READ_ZERO_PAD) {
        /* Lazy like a select: the value's statements run in range. */
        ok = in_range(L, fi, f->rank, idx);
        SList none = {0};
        val = to_dt(L, f->dtype, cg_lower_expr(L, vf->value, &p));
        val = lazy_select(L, pre, ok, &p, val, &none,
                          lir_const(L->s, lir_type(f->dtype, 1), 0));
        free(p.v);
        free(none.v);
        L->nvars = saved;
        L->ctx = ctx;
        return val;
    }
    if (r->check && r->mode == READ_PLAIN) {
        LExpr *z = i64c(L, 0);
        ok = in_range(L, fi, f->rank, idx);
        cg_sl_add(pre, lir_if(L->s, lir_unary(L->s, LO_NOT, ok),
                           lir_store(L->s, L->err, &z, 1,
                                     lir_int(L->s, DT_I32, CG_ERR_RANGE)),
                           NULL));
    }
    val = to_dt(L, f->dtype, cg_lower_expr(L, vf->value, pre));
    L->nvars = saved;
    L->ctx = ctx;
    return val;
}

LExpr *cg_read_at(Lw *L, const TlFunc *f, LExpr **idx, TlLoc loc,
                  SList *pre)
{
    FInfo *fi = cg_find_finfo(L, f);
    int saved = L->nvars, ctx = L->ctx;
    LExpr *off, *val;

    if (fi && fi->inl) {
        /* as inline_read: the value's index variables are the indices */
        const TlFunc *vf = fi->vf ? fi->vf : f;
        if (fi->vf)
            L->ctx = fi->vctx;
        for (int j = 0; j < f->rank; j++) {
            LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                              "%s.%s", vf->name, vf->axes[j].var->name)),
                              lir_type(DT_I32, 1));
            cg_sl_add(pre, lir_let(L->s, v, to_dt(L, DT_I32, idx[j])));
            cg_map_var(L, vf->axes[j].var, v);
        }
        val = to_dt(L, f->dtype, cg_lower_expr(L, vf->value, pre));
        L->nvars = saved;
        L->ctx = ctx;
        return val;
    }
    if (!fi || !fi->buf || fi->nest) {
        cg_unsupported(L, loc, arena_printf(&L->s->arena, "reading '%s' "
                                            "here", f->name));
        return lir_const(L->s, lir_type(f->dtype, 1), 0);
    }
    off = cg_offset(L, fi, f->rank, idx, 0);
    return lir_load(L->s, fi->buf, &off, 1);
}

static LExpr *lower_read(Lw *L, TlExpr *e, TlFunc *f, TlRead *r,
                         SList *pre)
{
    FInfo *fi = cg_find_finfo(L, f);
    LExpr *idx[TL_MAX_RANK], *zero = lir_const(L->s, lir_type(f->dtype, 1), 0);
    LExpr *off, *ok, *load;

    if (fi && fi->inl)
        return inline_read(L, e, f, fi, r, pre);
    if (fi && fi->buf && fi->nest && !fi->live && f->kind != FN_CALL) {
        /* Read outside the loop it is computed in. */
        diag_error(L->s, fi->nest->at_loc, DIAG_CG_AT_NOT_ENCLOSING,
                   f->name, fi->nest->at_var->name, fi->nest->at_func->name);
        diag_note(L->s, e->loc, "read here, outside that loop");
        L->failed = 1;
        return zero;
    }
    if (!fi || !fi->buf || (fi->nest && !fi->live)) {
        cg_unsupported(L, e->loc, f->kind == FN_CALL ?
                    "reading the result of a kernel call inside a kernel" :
                    arena_printf(&L->s->arena, "reading '%s' here", f->name));
        return zero;
    }
    for (int j = 0; j < f->rank; j++)
        idx[j] = r ? to_dt(L, DT_I64, cg_lower_expr(L, e->args.v[j], pre))
                   : i64c(L, 0);
    if (r && r->mode == READ_CLAMP_EDGE) {
        off = cg_offset(L, fi, f->rank, idx, 1);
        return lir_load(L->s, fi->buf, &off, 1);
    }
    off = cg_offset(L, fi, f->rank, idx, 0);
    load = lir_load(L->s, fi->buf, &off, 1);
    if (r && r->mode == READ_ZERO_PAD)
        return lir_select(L->s, in_range(L, fi, f->rank, idx), load, zero);
    if (!r || !r->check)
        return load;
    /* Not proven in range: flag the error, read nothing. */
    ok = in_range(L, fi, f->rank, idx);
    {
        LExpr *z = i64c(L, 0);
        cg_sl_add(pre, lir_if(L->s, lir_unary(L->s, LO_NOT, ok),
                           lir_store(L->s, L->err, &z, 1,
                                     lir_int(L->s, DT_I32, CG_ERR_RANGE)),
                           NULL));
    }
    return lir_select(L->s, ok, load, zero);
}

/* The identity of red's operation in dt, or NULL after reporting. */
LExpr *cg_red_identity(Lw *L, TlExpr *e, TlReduce *red, TlDType dt)
{
    LType t = lir_type(dt, 1);
    LExpr *init;
    int up = red->op == RD_MAX;

    switch (red->op) {
    case RD_SUM:
        /* The interpreter starts a sum at its first term, so a sum of
         * -0.0 terms is -0.0; -0.0 is the float identity that gives
         * the same bits (+0.0 would give +0.0).  Over an empty range
         * the sum is SPEC 7.6's identity +0.0, so the start is +0.0
         * when a variable's range is empty (a constant once the
         * extents are). */
        if (!dt_is_float(dt)) {
            init = lir_const(L->s, t, 0);
            break;
        }
        init = lir_float(L->s, dt, -0.0);
        for (int i = 0; i < red->nrvars; i++) {
            LExpr *n = cg_sym_lower(L, red->rvars[i]->extent, DT_I32,
                                    e->loc);
            init = lir_select(L->s, bin(L, LO_GT, n, lir_int(L->s, DT_I32,
                                                             0)),
                              init, lir_float(L->s, dt, 0.0));
        }
        break;
    case RD_PROD: init = lir_const(L->s, t, 1); break;
    case RD_MAX:
    case RD_MIN:
        if (dt_is_float(dt))
            init = lir_float(L->s, dt, up ? -1.0 / 0.0 : 1.0 / 0.0);
        else if (dt == DT_BOOL)
            init = lir_bool(L->s, !up);
        else
            init = lir_int(L->s, dt, up ? lir_int_min(dt) : lir_int_max(dt));
        break;
    default:
        cg_unsupported(L, e->loc, arena_printf(&L->s->arena, "'%s'",
                                            op_spelling(red->op)));
        return NULL;
    }
    return init;
}

LExpr *cg_red_combine(Lw *L, TlReduce *red, LExpr *cur, LExpr *val)
{
    /* max and min of bool values (SPEC 7.6: any and all; the LIR's
     * max and min are for numbers) */
    if (cur->type.dt == DT_BOOL)
        return bin(L, red->op == RD_MAX ? LO_OR : LO_AND, cur, val);
    switch (red->op) {
    case RD_SUM: return bin(L, LO_ADD, cur, val);
    case RD_PROD: return bin(L, LO_MUL, cur, val);
    case RD_MAX: return bin(L, LO_MAX, cur, val);
    default: return bin(L, LO_MIN, cur, val);
    }
}

LExpr *cg_arg_start(Lw *L, TlReduce *red, TlDType bdt)
{
    int up = red->op == RD_ARGMAX;

    if (dt_is_float(bdt))
        return lir_float(L->s, bdt, up ? -1.0 / 0.0 : 1.0 / 0.0);
    if (bdt == DT_BOOL)
        return lir_bool(L->s, !up);
    return lir_int(L->s, bdt, up ? lir_int_min(bdt) : lir_int_max(bdt));
}

LExpr *cg_arg_better(Lw *L, TlReduce *red, LExpr *v, LExpr *cur)
{
    TlDType bdt = v->type.dt;
    int up = red->op == RD_ARGMAX;
    LExpr *c;

    if (bdt == DT_BOOL)     /* true > false */
        c = up ? bin(L, LO_AND, v, lir_unary(L->s, LO_NOT, cur))
               : bin(L, LO_AND, lir_unary(L->s, LO_NOT, v), cur);
    else
        c = bin(L, up ? LO_GT : LO_LT, v, cur);
    if (dt_is_float(bdt))
        c = bin(L, LO_OR, c, bin(L, LO_AND, bin(L, LO_NE, v, v),
                                 bin(L, LO_EQ, cur, cur)));
    return c;
}

LExpr *cg_arg_tie(Lw *L, LExpr *v, LExpr *cur)
{
    LExpr *c = bin(L, LO_EQ, v, cur);

    if (dt_is_float(v->type.dt))
        c = bin(L, LO_OR, c, bin(L, LO_AND, bin(L, LO_NE, v, v),
                                 bin(L, LO_NE, cur, cur)));
    return c;
}

/* argmax/argmin (SPEC 7.6): the first index of the extreme, a NaN
 * beating everything and the first NaN winning, as the interpreter's
 * `better`.  The best value starts at the extreme's opposite (-inf for
 * argmax) and the index at the first, so the first element wins when
 * nothing beats it; an empty range raises the error flag and the
 * interpreter reports it. */
static LExpr *lower_arg_reduce(Lw *L, TlExpr *e, TlReduce *red, SList *pre)
{
    TlDType bdt = e->a->dtype;
    TlVar *rv = red->rvars[0];
    const char *st = red->func ? red->func->name : "red";
    LVar *best = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                            "%s.best", st)), bdt);
    LVar *arg = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                           "%s.arg", st)), DT_I64);
    LVar *iv = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                       "%s.%s", st, rv->name)), lir_type(DT_I32, 1));
    LVar *vv = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                       "%s.v", st)), lir_type(bdt, 1));
    LExpr *z = i64c(L, 0), *lo, *n, *v, *cur;
    SList body = {0}, then = {0};

    lo = cg_sym_lower(L, rv->lo, DT_I32, e->loc);
    n = cg_sym_lower(L, rv->extent, DT_I32, e->loc);
    cg_sl_add(pre, lir_if(L->s, bin(L, LO_LE, n, lir_int(L->s, DT_I32, 0)),
                       lir_store(L->s, L->err, &z, 1,
                                 lir_int(L->s, DT_I32, CG_ERR_RANGE)),
                       NULL));
    cg_sl_add(pre, lir_alloc(L->s, best, LM_STACK, &(LExpr *){i64c(L, 1)},
                          1));
    cg_sl_add(pre, lir_alloc(L->s, arg, LM_STACK, &(LExpr *){i64c(L, 1)},
                          1));
    cg_sl_add(pre, lir_store(L->s, best, &z, 1, cg_arg_start(L, red, bdt)));
    cg_sl_add(pre, lir_store(L->s, arg, &z, 1, to_dt(L, DT_I64, lo)));
    cg_map_var(L, rv, iv);
    cg_sl_add(&body, lir_let(L->s, vv, cg_lower_expr(L, e->a, &body)));
    v = lir_ref(L->s, vv);
    cur = lir_load(L->s, best, &z, 1);
    cg_sl_add(&then, lir_store(L->s, best, &z, 1, v));
    cg_sl_add(&then, lir_store(L->s, arg, &z, 1,
                               to_dt(L, DT_I64, lir_ref(L->s, iv))));
    cg_sl_add(&body, lir_if(L->s, cg_arg_better(L, red, v, cur),
                            cg_sl_done(L, &then), NULL));
    cg_sl_add(pre, lir_for(L->s, LP_SERIAL, 0, NULL, iv, lo,
                           bin(L, LO_ADD, lo, n), cg_sl_done(L, &body)));
    return to_dt(L, e->dtype, lir_load(L->s, arg, &z, 1));
}

static LExpr *lower_reduce(Lw *L, TlExpr *e, TlReduce *red, SList *pre)
{
    TlDType dt = e->dtype;
    LType t = lir_type(dt, 1);
    const char *st = red->func ? red->func->name : "red";
    LVar *acc = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                           "%s.acc", st)), dt);
    LExpr *z = i64c(L, 0), *init, *val, *cur;
    SList body = {0};
    LStmt *loop;

    if (red == L->red_sub)
        return L->red_val;
    if ((red->op == RD_ARGMAX || red->op == RD_ARGMIN) && red->nrvars == 1)
        return lower_arg_reduce(L, e, red, pre);
    if (!(init = cg_red_identity(L, e, red, dt)))
        return lir_const(L->s, t, 0);
    cg_sl_add(pre, lir_alloc(L->s, acc, LM_STACK, &(LExpr *){i64c(L, 1)}, 1));
    cg_sl_add(pre, lir_store(L->s, acc, &z, 1, init));
    for (int i = 0; i < red->nrvars; i++) {
        TlVar *rv = red->rvars[i];
        cg_map_var(L, rv, lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                               "%s.%s", st, rv->name)), lir_type(DT_I32, 1)));
    }
    val = cg_lower_expr(L, e->a, &body);
    cur = lir_load(L->s, acc, &z, 1);
    val = cg_red_combine(L, red, cur, val);
    cg_sl_add(&body, lir_store(L->s, acc, &z, 1, val));
    loop = cg_sl_done(L, &body);
    for (int i = red->nrvars - 1; i >= 0; i--) {
        TlVar *rv = red->rvars[i];
        LExpr *lo = cg_sym_lower(L, rv->lo, DT_I32, e->loc);
        LExpr *hi = bin(L, LO_ADD, lo, cg_sym_lower(L, rv->extent, DT_I32,
                                                  e->loc));
        loop = lir_for(L->s, LP_SERIAL, 0, NULL, cg_find_var(L, rv), lo, hi,
                       loop);
    }
    cg_sl_add(pre, loop);
    return lir_load(L->s, acc, &z, 1);
}

/* A scalar extern's call: through the function pointer the runner
 * passes, each argument in its parameter's dtype (the checker made
 * them so; a literal adapts). */
static LExpr *lower_extern(Lw *L, TlExpr *e, TlExternInfo *x, SList *pre)
{
    LExpr **args = arena_alloc(&L->s->arena,
                               (size_t)(e->args.n + 1) * sizeof *args);

    TL_ASSERT(!x->tensors && e->args.n == x->nparams);
    for (int i = 0; i < e->args.n; i++)
        args[i] = to_dt(L, x->params[i], cg_lower_expr(L, e->args.v[i], pre));
    return lir_call_func(L->s, cg_extern_fn(L, x), args, e->args.n);
}

static LExpr *lower_builtin(Lw *L, TlExpr *e, TlBuiltin *b, SList *pre)
{
    LExpr *a[3];
    int n = e->args.n;
    LCall fn;

    if (n > 3) n = 3;
    if (b->id == BI_HASH)
        return cg_hash_param(L, e, pre);
    if (b->id == BI_SELECT) {
        /* Lazy: each side's statements run only when it is chosen. */
        LExpr *c = cg_lower_expr(L, e->args.v[0], pre);
        SList p1 = {0}, p2 = {0};
        a[1] = cg_lower_expr(L, e->args.v[1], &p1);
        a[2] = cg_lower_expr(L, e->args.v[2], &p2);
        a[0] = lazy_select(L, pre, c, &p1, a[1], &p2, a[2]);
        free(p1.v);
        free(p2.v);
        return a[0];
    }
    for (int i = 0; i < n; i++)
        a[i] = cg_lower_expr(L, e->args.v[i], pre);
    switch (b->id) {
    case BI_CLAMP:
        return bin(L, LO_MIN, bin(L, LO_MAX, a[0], a[1]), a[2]);
    case BI_MIN: return bin(L, LO_MIN, a[0], a[1]);
    case BI_MAX: return bin(L, LO_MAX, a[0], a[1]);
    case BI_POW: fn = LC_POW; break;
    case BI_EXP: fn = LC_EXP; break;
    case BI_FAST_EXP: fn = LC_FAST_EXP; break;
    case BI_LOG: fn = LC_LOG; break;
    case BI_SQRT: fn = LC_SQRT; break;
    case BI_RSQRT: fn = LC_RSQRT; break;
    case BI_TANH: fn = LC_TANH; break;
    case BI_SIGMOID: fn = LC_SIGMOID; break;
    case BI_ERF: fn = LC_ERF; break;
    case BI_SIN: fn = LC_SIN; break;
    case BI_COS: fn = LC_COS; break;
    case BI_TAN: fn = LC_TAN; break;
    case BI_ASIN: fn = LC_ASIN; break;
    case BI_ACOS: fn = LC_ACOS; break;
    case BI_ATAN: fn = LC_ATAN; break;
    case BI_SINH: fn = LC_SINH; break;
    case BI_COSH: fn = LC_COSH; break;
    case BI_ASINH: fn = LC_ASINH; break;
    case BI_ACOSH: fn = LC_ACOSH; break;
    case BI_ATANH: fn = LC_ATANH; break;
    case BI_ABS: fn = LC_ABS; break;
    case BI_FLOOR: fn = LC_FLOOR; break;
    case BI_CEIL: fn = LC_CEIL; break;
    case BI_ROUND: fn = LC_ROUND; break;
    case BI_UNIFORM: fn = LC_UNIFORM; break;
    case BI_NORMAL: fn = LC_NORMAL; break;
    case BI_LOWER: fn = LC_LOWER; break;
    case BI_UPPER: fn = LC_UPPER; break;
    default:
        cg_unsupported(L, e->loc, arena_printf(&L->s->arena, "'%s'", b->name));
        return lir_const(L->s, lir_type(e->dtype, 1), 0);
    }
    return lir_call(L->s, fn, a, n);
}

LOp cg_map_op(TlOp op)
{
    switch (op) {
    case OP_ADD: return LO_ADD;
    case OP_SUB: return LO_SUB;
    case OP_MUL: return LO_MUL;
    case OP_DIV: return LO_DIV;
    case OP_MOD: return LO_MOD;
    case OP_EQ: return LO_EQ;
    case OP_NE: return LO_NE;
    case OP_LT: return LO_LT;
    case OP_LE: return LO_LE;
    case OP_GT: return LO_GT;
    case OP_GE: return LO_GE;
    case OP_AND: return LO_AND;
    case OP_OR: return LO_OR;
    case OP_NEG: return LO_NEG;
    case OP_NOT: return LO_NOT;
    default: return LO__COUNT;
    }
}

LExpr *cg_lower_expr(Lw *L, TlExpr *e, SList *pre)
{
    TlDType dt = e->dtype;

    switch (e->kind) {
    case EX_INT:
    case EX_BOOL:
        if (dt_is_float(dt))
            return lir_float(L->s, dt, (double)e->ival);
        return lir_int(L->s, dt, lir_wrap_int(dt, e->ival));
    case EX_FLOAT:
        return lir_float(L->s, dt, e->fval);
    case EX_STR:
        return cg_str_lit(L, e->str);
    case EX_NAME: {
        TlRefKind rk = tl_ref_kind(e->sym);
        if (rk == REF_VAR) {
            LVar *v = cg_find_var(L, e->sym);
            if (v)
                return to_dt(L, dt, lir_ref(L->s, v));
        } else if (rk == REF_FUNC) {
            return lower_read(L, e, e->sym, NULL, pre);
        }
        cg_unsupported(L, e->loc, arena_printf(&L->s->arena,
                                            "the name '%s' here", e->str));
        return lir_const(L->s, lir_type(dt, 1), 0);
    }
    case EX_INDEX:
        if (tl_ref_kind(e->sym) == REF_READ) {
            TlRead *r = e->sym;
            return lower_read(L, e, r->func, r, pre);
        }
        break;
    case EX_REDUCE:
        if (tl_ref_kind(e->sym) == REF_REDUCE)
            return lower_reduce(L, e, e->sym, pre);
        break;
    case EX_CAST:
        return to_dt(L, dt, cg_lower_expr(L, e->a, pre));
    case EX_UNARY:
        return lir_unary(L->s, cg_map_op(e->op), cg_lower_expr(L, e->a, pre));
    case EX_BINARY: {
        LExpr *a = cg_lower_expr(L, e->a, pre);
        LExpr *b = cg_lower_expr(L, e->b, pre);
        if (cg_map_op(e->op) == LO__COUNT)
            break;
        return bin(L, cg_map_op(e->op), a, b);
    }
    case EX_CALL:
        if (tl_ref_kind(e->sym) == REF_BUILTIN)
            return lower_builtin(L, e, e->sym, pre);
        if (tl_ref_kind(e->sym) == REF_EXTERN)
            return lower_extern(L, e, e->sym, pre);
        cg_unsupported(L, e->loc, "a kernel call inside a kernel");
        return lir_const(L->s, lir_type(dt, 1), 0);
    default:
        break;
    }
    cg_unsupported(L, e->loc, "this expression");
    return lir_const(L->s, lir_type(dt == DT_NONE ? DT_I32 : dt, 1), 0);
}
