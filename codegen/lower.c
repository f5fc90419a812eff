/*
 * lower.c - a checked kernel and its cpu schedule to a loop-IR
 * function, then the pass pipeline (cg_lower_kernel lists it).
 *
 * Default schedule (SPEC 10): every stage is computed at root over its
 * whole domain into a heap buffer of its own, in dependency order;
 * loops run row-major (axis 0 outermost) and a reduction's variables
 * run innermost in the order written.  Outputs are written directly.
 * Tensors passed in (inputs, outputs, top-level constants) are flat
 * buffers with an extent and a stride parameter per axis, so any
 * strides work.  Reads the checker could not prove in range are
 * checked per element: an out-of-range read sets the error flag and
 * reads nothing, and the runner has the interpreter report it.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

/* Per tensor: its buffer, and per axis the domain start, extent and
 * stride (i64 expressions). */
typedef struct FInfo {
    const TlFunc *f;
    LVar *buf;
    LExpr *lo[TL_MAX_RANK], *ext[TL_MAX_RANK], *stride[TL_MAX_RANK];
} FInfo;

typedef struct VMap {
    const TlVar *tv;
    LVar *lv;
} VMap;

/* A growing list of statements. */
typedef struct SList {
    LStmt **v;
    int n, cap;
} SList;

typedef struct Lw {
    TlSession *s;
    TlKernelInfo *k;
    CgParam *cps;
    LParam *params;
    int np, capp;
    VMap *vars;
    int nvars, capvars;
    FInfo *fs;
    int nfs, capfs;
    LVar *err;
    int uniq;
    int failed;
} Lw;

static void sl_add(SList *l, LStmt *st)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = tl_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = st;
}

/* The list as one statement; frees the list. */
static LStmt *sl_done(Lw *L, SList *l)
{
    LStmt *st = lir_block(L->s, l->v, l->n);
    free(l->v);
    memset(l, 0, sizeof *l);
    return st;
}

static void unsupported(Lw *L, TlLoc loc, const char *what)
{
    diag_error(L->s, loc, DIAG_CG_UNSUPPORTED, what);
    L->failed = 1;
}

/* A fresh name "base.N" (dotted names never collide with C words). */
static const char *fresh(Lw *L, const char *base)
{
    return arena_printf(&L->s->arena, "%s.%d", base, ++L->uniq);
}

static LVar *add_param(Lw *L, LVar *v, CgParamKind kind, TlFunc *f,
                       int axis, TlVar *var)
{
    if (L->np == L->capp) {
        L->capp = L->capp ? 2 * L->capp : 16;
        L->params = tl_xrealloc(L->params,
                                (size_t)L->capp * sizeof *L->params);
        L->cps = tl_xrealloc(L->cps, (size_t)L->capp * sizeof *L->cps);
    }
    memset(&L->params[L->np], 0, sizeof L->params[L->np]);
    L->params[L->np].var = v;
    L->cps[L->np].kind = kind;
    L->cps[L->np].f = f;
    L->cps[L->np].axis = axis;
    L->cps[L->np].var = var;
    L->np++;
    return v;
}

static void map_var(Lw *L, const TlVar *tv, LVar *lv)
{
    if (L->nvars == L->capvars) {
        L->capvars = L->capvars ? 2 * L->capvars : 16;
        L->vars = tl_xrealloc(L->vars, (size_t)L->capvars * sizeof *L->vars);
    }
    L->vars[L->nvars].tv = tv;
    L->vars[L->nvars].lv = lv;
    L->nvars++;
}

static LVar *find_var(Lw *L, const TlVar *tv)
{
    for (int i = L->nvars - 1; i >= 0; i--)
        if (L->vars[i].tv == tv)
            return L->vars[i].lv;
    return NULL;
}

static FInfo *new_finfo(Lw *L, const TlFunc *f)
{
    if (L->nfs == L->capfs) {
        L->capfs = L->capfs ? 2 * L->capfs : 16;
        L->fs = tl_xrealloc(L->fs, (size_t)L->capfs * sizeof *L->fs);
    }
    memset(&L->fs[L->nfs], 0, sizeof L->fs[L->nfs]);
    L->fs[L->nfs].f = f;
    return &L->fs[L->nfs++];
}

static FInfo *find_finfo(Lw *L, const TlFunc *f)
{
    for (int i = 0; i < L->nfs; i++)
        if (L->fs[i].f == f)
            return &L->fs[i];
    return NULL;
}

static LExpr *i64c(Lw *L, int64_t v)
{
    return lir_int(L->s, DT_I64, v);
}

static LExpr *to_dt(Lw *L, TlDType dt, LExpr *e)
{
    return e->type.dt == dt ? e : lir_cast(L->s, dt, e);
}

static LExpr *bin(Lw *L, LOp op, LExpr *a, LExpr *b)
{
    return lir_binary(L->s, op, a, b);
}

/* ====================================================================
 * Symbolic sizes
 * ==================================================================== */

static LExpr *sym_lower(Lw *L, const TlSymExpr *e, TlDType dt, TlLoc loc);

static LExpr *atom_lower(Lw *L, const TlSymAtom *a, TlDType dt, TlLoc loc)
{
    LOp op;

    if (a->kind == SYM_VAR) {
        LVar *v = find_var(L, a->var);
        if (!v) {
            unsupported(L, loc, arena_printf(&L->s->arena,
                        "a size that depends on '%s'", a->var->name));
            return lir_int(L->s, dt, 0);
        }
        return to_dt(L, dt, lir_ref(L->s, v));
    }
    switch (a->kind) {
    case SYM_DIV: op = LO_DIV; break;
    case SYM_MOD: op = LO_MOD; break;
    case SYM_MIN: op = LO_MIN; break;
    case SYM_MAX: op = LO_MAX; break;
    default: op = LO_MUL; break;
    }
    return bin(L, op, sym_lower(L, a->a, dt, loc), sym_lower(L, a->b, dt, loc));
}

static LExpr *sym_lower(Lw *L, const TlSymExpr *e, TlDType dt, TlLoc loc)
{
    LExpr *r;

    if (!e) {
        unsupported(L, loc, "a size that is known only while running");
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

static LExpr *lower_expr(Lw *L, TlExpr *e, SList *pre);

/* The flat offset (i64) of element idx[] of fi, from its domain start;
 * clamped into the domain when clamp is set. */
static LExpr *offset(Lw *L, FInfo *fi, int rank, LExpr **idx, int clamp)
{
    LExpr *off = i64c(L, 0);

    for (int j = 0; j < rank; j++) {
        LExpr *x = idx[j];
        if (clamp) {
            LExpr *hi = bin(L, LO_SUB, bin(L, LO_ADD, fi->lo[j], fi->ext[j]),
                            i64c(L, 1));
            x = bin(L, LO_MIN, bin(L, LO_MAX, x, fi->lo[j]), hi);
        }
        x = bin(L, LO_MUL, bin(L, LO_SUB, x, fi->lo[j]), fi->stride[j]);
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

static LExpr *lower_read(Lw *L, TlExpr *e, TlFunc *f, TlRead *r,
                         SList *pre)
{
    FInfo *fi = find_finfo(L, f);
    LExpr *idx[TL_MAX_RANK], *zero = lir_const(L->s, lir_type(f->dtype, 1), 0);
    LExpr *off, *ok, *load;

    if (!fi || !fi->buf) {
        unsupported(L, e->loc, f->kind == FN_CALL ?
                    "reading the result of a kernel call inside a kernel" :
                    arena_printf(&L->s->arena, "reading '%s' here", f->name));
        return zero;
    }
    for (int j = 0; j < f->rank; j++)
        idx[j] = r ? to_dt(L, DT_I64, lower_expr(L, e->args.v[j], pre))
                   : i64c(L, 0);
    if (r && r->mode == READ_CLAMP_EDGE) {
        off = offset(L, fi, f->rank, idx, 1);
        return lir_load(L->s, fi->buf, &off, 1);
    }
    off = offset(L, fi, f->rank, idx, 0);
    load = lir_load(L->s, fi->buf, &off, 1);
    if (r && r->mode == READ_ZERO_PAD)
        return lir_select(L->s, in_range(L, fi, f->rank, idx), load, zero);
    if (!r || !r->check)
        return load;
    /* Not proven in range: flag the error, read nothing. */
    ok = in_range(L, fi, f->rank, idx);
    {
        LExpr *z = i64c(L, 0);
        sl_add(pre, lir_if(L->s, lir_unary(L->s, LO_NOT, ok),
                           lir_store(L->s, L->err, &z, 1,
                                     lir_int(L->s, DT_I32, 1)), NULL));
    }
    return lir_select(L->s, ok, load, zero);
}

static LExpr *lower_reduce(Lw *L, TlExpr *e, TlReduce *red, SList *pre)
{
    TlDType dt = e->dtype;
    LType t = lir_type(dt, 1);
    LVar *acc = lir_buffer(L->s, fresh(L, "acc"), dt);
    LExpr *z = i64c(L, 0), *init, *val, *cur;
    SList body = {0};
    LStmt *loop;
    int up = red->op == RD_MAX;

    switch (red->op) {
    case RD_SUM: init = lir_const(L->s, t, 0); break;
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
        unsupported(L, e->loc, arena_printf(&L->s->arena, "'%s'",
                                            op_spelling(red->op)));
        return lir_const(L->s, t, 0);
    }
    sl_add(pre, lir_alloc(L->s, acc, LM_STACK, &(LExpr *){i64c(L, 1)}, 1));
    sl_add(pre, lir_store(L->s, acc, &z, 1, init));
    for (int i = 0; i < red->nrvars; i++) {
        TlVar *rv = red->rvars[i];
        map_var(L, rv, lir_var(L->s, fresh(L, rv->name), lir_type(DT_I32, 1)));
    }
    val = lower_expr(L, e->a, &body);
    cur = lir_load(L->s, acc, &z, 1);
    switch (red->op) {
    case RD_SUM: val = bin(L, LO_ADD, cur, val); break;
    case RD_PROD: val = bin(L, LO_MUL, cur, val); break;
    case RD_MAX: val = bin(L, LO_MAX, cur, val); break;
    default: val = bin(L, LO_MIN, cur, val); break;
    }
    sl_add(&body, lir_store(L->s, acc, &z, 1, val));
    loop = sl_done(L, &body);
    for (int i = red->nrvars - 1; i >= 0; i--) {
        TlVar *rv = red->rvars[i];
        LExpr *lo = sym_lower(L, rv->lo, DT_I32, e->loc);
        LExpr *hi = bin(L, LO_ADD, lo, sym_lower(L, rv->extent, DT_I32,
                                                  e->loc));
        loop = lir_for(L->s, LP_SERIAL, 0, NULL, find_var(L, rv), lo, hi,
                       loop);
    }
    sl_add(pre, loop);
    return lir_load(L->s, acc, &z, 1);
}

static LExpr *lower_builtin(Lw *L, TlExpr *e, TlBuiltin *b, SList *pre)
{
    LExpr *a[3];
    int n = e->args.n;
    LCall fn;

    if (n > 3) n = 3;
    if (b->id == BI_SELECT) {
        /* Lazy: each side's statements run only when it is chosen. */
        LExpr *c = lower_expr(L, e->args.v[0], pre);
        SList p1 = {0}, p2 = {0};
        a[1] = lower_expr(L, e->args.v[1], &p1);
        a[2] = lower_expr(L, e->args.v[2], &p2);
        if (p1.n)
            sl_add(pre, lir_if(L->s, c, sl_done(L, &p1), NULL));
        if (p2.n)
            sl_add(pre, lir_if(L->s, lir_unary(L->s, LO_NOT, c),
                               sl_done(L, &p2), NULL));
        free(p1.v);
        free(p2.v);
        return lir_select(L->s, c, a[1], a[2]);
    }
    for (int i = 0; i < n; i++)
        a[i] = lower_expr(L, e->args.v[i], pre);
    switch (b->id) {
    case BI_CLAMP:
        return bin(L, LO_MIN, bin(L, LO_MAX, a[0], a[1]), a[2]);
    case BI_MIN: return bin(L, LO_MIN, a[0], a[1]);
    case BI_MAX: return bin(L, LO_MAX, a[0], a[1]);
    case BI_POW: fn = LC_POW; break;
    case BI_EXP: fn = LC_EXP; break;
    case BI_LOG: fn = LC_LOG; break;
    case BI_SQRT: fn = LC_SQRT; break;
    case BI_RSQRT: fn = LC_RSQRT; break;
    case BI_TANH: fn = LC_TANH; break;
    case BI_SIGMOID: fn = LC_SIGMOID; break;
    case BI_ERF: fn = LC_ERF; break;
    case BI_SIN: fn = LC_SIN; break;
    case BI_COS: fn = LC_COS; break;
    case BI_ABS: fn = LC_ABS; break;
    case BI_FLOOR: fn = LC_FLOOR; break;
    case BI_CEIL: fn = LC_CEIL; break;
    case BI_ROUND: fn = LC_ROUND; break;
    default:
        unsupported(L, e->loc, arena_printf(&L->s->arena, "'%s'", b->name));
        return lir_const(L->s, lir_type(e->dtype, 1), 0);
    }
    return lir_call(L->s, fn, a, n);
}

static LOp map_op(TlOp op)
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

static LExpr *lower_expr(Lw *L, TlExpr *e, SList *pre)
{
    TlDType dt = e->dtype;

    if (dt == DT_F16 || dt == DT_BF16) {
        unsupported(L, e->loc, "f16 and bf16 arithmetic");
        return lir_int(L->s, DT_I32, 0);
    }
    switch (e->kind) {
    case EX_INT:
    case EX_BOOL:
        if (dt_is_float(dt))
            return lir_float(L->s, dt, (double)e->ival);
        return lir_int(L->s, dt, lir_wrap_int(dt, e->ival));
    case EX_FLOAT:
        return lir_float(L->s, dt, e->fval);
    case EX_NAME: {
        TlRefKind rk = tl_ref_kind(e->sym);
        if (rk == REF_VAR) {
            LVar *v = find_var(L, e->sym);
            if (v)
                return to_dt(L, dt, lir_ref(L->s, v));
        } else if (rk == REF_FUNC) {
            return lower_read(L, e, e->sym, NULL, pre);
        }
        unsupported(L, e->loc, arena_printf(&L->s->arena,
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
        return to_dt(L, dt, lower_expr(L, e->a, pre));
    case EX_UNARY:
        return lir_unary(L->s, map_op(e->op), lower_expr(L, e->a, pre));
    case EX_BINARY: {
        LExpr *a = lower_expr(L, e->a, pre);
        LExpr *b = lower_expr(L, e->b, pre);
        if (map_op(e->op) == LO__COUNT)
            break;
        return bin(L, map_op(e->op), a, b);
    }
    case EX_CALL:
        if (tl_ref_kind(e->sym) == REF_BUILTIN)
            return lower_builtin(L, e, e->sym, pre);
        unsupported(L, e->loc, tl_ref_kind(e->sym) == REF_EXTERN ?
                    "calling an extern function" :
                    "a kernel call inside a kernel");
        return lir_const(L->s, lir_type(dt, 1), 0);
    default:
        break;
    }
    unsupported(L, e->loc, "this expression");
    return lir_const(L->s, lir_type(dt == DT_NONE ? DT_I32 : dt, 1), 0);
}
