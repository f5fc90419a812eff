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
 *
 * A kernel call inside the kernel is lowered inline (expand_call): the
 * callee's stages join the caller's, in a context of their own, and
 * are scheduled through the call's binding name.  compute_at places a
 * producer's nest inside a loop of its consumer over the region one
 * iteration needs (site).
 *
 * A stage whose schedule names a reduction variable is lowered as an
 * update (like Halide's update definitions): its buffer is set to the
 * reduction's identity, then one loop nest, pure and reduction loops
 * as scheduled, accumulates `buf = buf op body`, then what surrounds
 * the reduction in the stage's value is applied per element.  The
 * reduction loops stay serial and in the written order
 * (sched_apply.c), so every element accumulates in the interpreter's
 * order and the result is the same bits.
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
    int inl;                /* compute_inline: substituted, no buffer */
    LExpr *size;            /* stages: elements of the buffer */
    LExpr *lo[TL_MAX_RANK], *ext[TL_MAX_RANK], *stride[TL_MAX_RANK];
    /* The region computed and stored: the domain, or for compute_at
     * the part one iteration of the consumer's loop needs (variables
     * bound where the region is computed; see `site`). */
    LExpr *rlo[TL_MAX_RANK], *rext[TL_MAX_RANK];
    LVar *rlov[TL_MAX_RANK], *rextv[TL_MAX_RANK], *stv[TL_MAX_RANK];
    CgNest *nest;           /* compute_at: its nest, placed by `site` */
    TlReduce *red;          /* ... lowered as an update when set */
    int live;               /* compute_at: readable where lowering is */
    int placed, level;      /* ... placed at loop `level` of its nest */
    int ctx;                /* the inlined kernel call it belongs to */
    int alias;              /* a callee's input or output: the caller's
                             * tensor it stands for (index), else -1 */
    int need_alloc;         /* a call's result: not allocated yet */
    const TlFunc *vf;       /* inline: whose value (default f) ... */
    int vctx;               /* ... in which call */
} FInfo;

typedef struct VMap {
    const TlVar *tv;
    LVar *lv;
    int ctx;
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
    /* Kernel calls are lowered inline: each expansion is a context
     * (0: the kernel itself) reached through path[0 .. npath - 1]. */
    int ctx, nctx;
    TlCall *path[16];
    int npath;
    TlCall **done;          /* calls expanded, with their context */
    int *done_ctx, ndone, capdone;
    TlReduce *red_sub;      /* while applying what surrounds an update */
    LExpr *red_val;         /* ... red_sub reads as this */
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

/* A fresh name "base.__N" (dotted names never collide with C words,
 * and index variables are not written with two leading underscores). */
static const char *fresh(Lw *L, const char *base)
{
    return arena_printf(&L->s->arena, "%s.__%d", base, ++L->uniq);
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
    L->vars[L->nvars].ctx = L->ctx;
    L->nvars++;
}

static LVar *find_var(Lw *L, const TlVar *tv)
{
    for (int i = L->nvars - 1; i >= 0; i--)
        if (L->vars[i].tv == tv && L->vars[i].ctx == L->ctx)
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
    L->fs[L->nfs].ctx = L->ctx;
    L->fs[L->nfs].alias = -1;
    return &L->fs[L->nfs++];
}

static FInfo *find_finfo(Lw *L, const TlFunc *f)
{
    for (int i = 0; i < L->nfs; i++)
        if (L->fs[i].f == f && (L->fs[i].ctx == L->ctx ||
                                f->kind == FN_CONST))
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
        x = bin(L, LO_MUL, bin(L, LO_SUB, x, fi->rlo[j]), fi->stride[j]);
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
        LVar *v = lir_var(L->s, fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          vf->name, vf->axes[j].var->name)),
                          lir_type(DT_I32, 1));
        L->ctx = ctx;
        idx[j] = to_dt(L, DT_I32, lower_expr(L, e->args.v[j], pre));
        if (r->mode == READ_CLAMP_EDGE) {
            LExpr *lo = to_dt(L, DT_I32, fi->lo[j]);
            LExpr *hi = bin(L, LO_SUB, bin(L, LO_ADD, lo, to_dt(L, DT_I32,
                            fi->ext[j])), lir_int(L->s, DT_I32, 1));
            idx[j] = bin(L, LO_MIN, bin(L, LO_MAX, idx[j], lo), hi);
        }
        sl_add(pre, lir_let(L->s, v, idx[j]));
        idx[j] = to_dt(L, DT_I64, lir_ref(L->s, v));
        if (fi->vf)
            L->ctx = fi->vctx;
        map_var(L, vf->axes[j].var, v);
    }
    if (fi->vf)
        L->ctx = fi->vctx;
    if (r->mode == READ_ZERO_PAD) {
        /* Lazy like a select: the value's statements run in range. */
        ok = in_range(L, fi, f->rank, idx);
        val = to_dt(L, f->dtype, lower_expr(L, vf->value, &p));
        if (p.n)
            sl_add(pre, lir_if(L->s, ok, sl_done(L, &p), NULL));
        free(p.v);
        L->nvars = saved;
        L->ctx = ctx;
        return lir_select(L->s, ok, val,
                          lir_const(L->s, lir_type(f->dtype, 1), 0));
    }
    if (r->check && r->mode == READ_PLAIN) {
        LExpr *z = i64c(L, 0);
        ok = in_range(L, fi, f->rank, idx);
        sl_add(pre, lir_if(L->s, lir_unary(L->s, LO_NOT, ok),
                           lir_store(L->s, L->err, &z, 1,
                                     lir_int(L->s, DT_I32, 1)), NULL));
    }
    val = to_dt(L, f->dtype, lower_expr(L, vf->value, pre));
    L->nvars = saved;
    L->ctx = ctx;
    return val;
}

static LExpr *lower_read(Lw *L, TlExpr *e, TlFunc *f, TlRead *r,
                         SList *pre)
{
    FInfo *fi = find_finfo(L, f);
    LExpr *idx[TL_MAX_RANK], *zero = lir_const(L->s, lir_type(f->dtype, 1), 0);
    LExpr *off, *ok, *load;

    if (fi && fi->inl)
        return inline_read(L, e, f, fi, r, pre);
    if (!fi || !fi->buf || (fi->nest && !fi->live)) {
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

/* The identity of red's operation in dt, or NULL after reporting. */
static LExpr *red_identity(Lw *L, TlExpr *e, TlReduce *red, TlDType dt)
{
    LType t = lir_type(dt, 1);
    LExpr *init;
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
        return NULL;
    }
    return init;
}

static LExpr *red_combine(Lw *L, TlReduce *red, LExpr *cur, LExpr *val)
{
    switch (red->op) {
    case RD_SUM: return bin(L, LO_ADD, cur, val);
    case RD_PROD: return bin(L, LO_MUL, cur, val);
    case RD_MAX: return bin(L, LO_MAX, cur, val);
    default: return bin(L, LO_MIN, cur, val);
    }
}

static LExpr *lower_reduce(Lw *L, TlExpr *e, TlReduce *red, SList *pre)
{
    TlDType dt = e->dtype;
    LType t = lir_type(dt, 1);
    const char *st = red->func ? red->func->name : "red";
    LVar *acc = lir_buffer(L->s, fresh(L, arena_printf(&L->s->arena,
                           "%s.acc", st)), dt);
    LExpr *z = i64c(L, 0), *init, *val, *cur;
    SList body = {0};
    LStmt *loop;

    if (red == L->red_sub)
        return L->red_val;
    if (!(init = red_identity(L, e, red, dt)))
        return lir_const(L->s, t, 0);
    sl_add(pre, lir_alloc(L->s, acc, LM_STACK, &(LExpr *){i64c(L, 1)}, 1));
    sl_add(pre, lir_store(L->s, acc, &z, 1, init));
    for (int i = 0; i < red->nrvars; i++) {
        TlVar *rv = red->rvars[i];
        map_var(L, rv, lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                               "%s.%s", st, rv->name)), lir_type(DT_I32, 1)));
    }
    val = lower_expr(L, e->a, &body);
    cur = lir_load(L->s, acc, &z, 1);
    val = red_combine(L, red, cur, val);
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

/* ====================================================================
 * The kernel
 * ==================================================================== */

/* A tensor passed in: data pointer, then extent and stride per axis. */
static void extern_tensor(Lw *L, TlFunc *f, const char *what)
{
    FInfo *fi = new_finfo(L, f);
    const char *base = arena_printf(&L->s->arena, "%s.%s", what, f->name);

    fi->buf = add_param(L, lir_buffer(L->s, base, f->dtype), CGP_BUF, f, 0,
                        NULL);
    for (int j = 0; j < f->rank; j++) {
        LType t = lir_type(DT_I64, 1);
        LVar *e = lir_var(L->s, arena_printf(&L->s->arena, "%s.n%d", base, j),
                          t);
        LVar *st = lir_var(L->s, arena_printf(&L->s->arena, "%s.s%d", base,
                                              j), t);
        add_param(L, e, CGP_EXTENT, f, j, NULL);
        add_param(L, st, CGP_STRIDE, f, j, NULL);
        fi->lo[j] = fi->rlo[j] = i64c(L, 0);
        fi->ext[j] = fi->rext[j] = lir_ref(L->s, e);
        fi->stride[j] = lir_ref(L->s, st);
    }
}

/* Scalars: `let x = select(given, arg, default)`. */
static void scalars(Lw *L, SList *out)
{
    TlKernelInfo *k = L->k;

    for (int i = 0; i < k->nscalars; i++) {
        TlVar *v = k->scalars[i];
        const char *base = arena_printf(&L->s->arena, "sc.%s", v->name);
        TlDType pdt = dt_is_float(v->dtype) ? DT_F64 : DT_I64;
        LVar *arg = add_param(L, lir_var(L->s, arena_printf(&L->s->arena,
                              "%s.arg", base), lir_type(pdt, 1)),
                              CGP_SCALAR, NULL, 0, v);
        LVar *given = add_param(L, lir_var(L->s, arena_printf(&L->s->arena,
                                "%s.given", base), lir_type(DT_BOOL, 1)),
                                CGP_GIVEN, NULL, 0, v);
        LVar *x = lir_var(L->s, base, lir_type(v->dtype, 1));
        LExpr *val = to_dt(L, v->dtype, lir_ref(L->s, arg));
        if (v->dtype == DT_F16 || v->dtype == DT_BF16)
            unsupported(L, v->loc, "an f16 or bf16 scalar parameter");
        if (v->param && v->param->init) {
            SList p = {0};
            LExpr *d = to_dt(L, v->dtype,
                             lower_expr(L, v->param->init, &p));
            if (p.n)
                unsupported(L, v->param->init->loc,
                            "this scalar default");
            free(p.v);
            val = lir_select(L->s, lir_ref(L->s, given), val, d);
        }
        sl_add(out, lir_let(L->s, x, val));
        map_var(L, v, x);
    }
}

/* ====================================================================
 * compute_at: bounds per loop level by interval arithmetic.  A
 * producer computed inside loop `v` of its consumer covers what one
 * iteration of `v` reads of it: the consumer's index ranges over the
 * loops inside `v` give each read's index range; the hull of those,
 * cut to the producer's domain, is the region it computes and stores
 * (indexed from the region's start).  Producers computed at the same
 * loop that read each other are done consumers first.  Where an index
 * is not affine enough to bound, the whole domain on that axis is
 * used, which is always correct.
 * ==================================================================== */

typedef struct Ival2 {
    LExpr *lo, *hi;         /* inclusive, i64 */
} Ival2;

/* Index variables bound to ranges while bounding reads. */
typedef struct Env {
    const TlVar *v[4 * TL_MAX_RANK + 8];
    Ival2 iv[4 * TL_MAX_RANK + 8];
    int n;
} Env;

static Ival2 pt(LExpr *e)
{
    Ival2 r;
    r.lo = r.hi = e;
    return r;
}

static Ival2 iv_mk(LExpr *lo, LExpr *hi)
{
    Ival2 r;
    r.lo = lo;
    r.hi = hi;
    return r;
}

static int iv_point(Ival2 a)
{
    return a.lo == a.hi;
}

/* a op b over intervals; -1 when op is not bounded here. */
static int iv_bin(Lw *L, LOp op, Ival2 a, Ival2 b, Ival2 *r)
{
    if (iv_point(a) && iv_point(b)) {
        *r = pt(bin(L, op, a.lo, b.lo));
        return 0;
    }
    switch (op) {
    case LO_ADD:
        *r = iv_mk(bin(L, LO_ADD, a.lo, b.lo), bin(L, LO_ADD, a.hi, b.hi));
        return 0;
    case LO_SUB:
        *r = iv_mk(bin(L, LO_SUB, a.lo, b.hi), bin(L, LO_SUB, a.hi, b.lo));
        return 0;
    case LO_MIN:
    case LO_MAX:
        *r = iv_mk(bin(L, op, a.lo, b.lo), bin(L, op, a.hi, b.hi));
        return 0;
    case LO_MUL: {
        LExpr *p1 = bin(L, LO_MUL, a.lo, b.lo);
        LExpr *p2 = bin(L, LO_MUL, a.lo, b.hi);
        LExpr *p3 = bin(L, LO_MUL, a.hi, b.lo);
        LExpr *p4 = bin(L, LO_MUL, a.hi, b.hi);
        *r = iv_mk(bin(L, LO_MIN, bin(L, LO_MIN, p1, p2),
                       bin(L, LO_MIN, p3, p4)),
                   bin(L, LO_MAX, bin(L, LO_MAX, p1, p2),
                       bin(L, LO_MAX, p3, p4)));
        return 0;
    }
    case LO_DIV:    /* monotone in a for a positive constant divisor */
        if (!iv_point(b) || b.lo->kind != LE_INT || b.lo->ival <= 0)
            return -1;
        *r = iv_mk(bin(L, LO_DIV, a.lo, b.lo), bin(L, LO_DIV, a.hi, b.lo));
        return 0;
    case LO_MOD:
        if (!iv_point(b) || b.lo->kind != LE_INT || b.lo->ival <= 0)
            return -1;
        *r = iv_mk(i64c(L, 0), i64c(L, b.lo->ival - 1));
        return 0;
    default:
        return -1;
    }
}

/* The range of an i32/i64 loop-IR expression over nest n's loops
 * inside level `at` (those at or outside it are fixed). */
static int lexpr_ival(Lw *L, const CgNest *n, int at, LExpr *e, Ival2 *r)
{
    Ival2 a, b;

    switch (e->kind) {
    case LE_INT:
        *r = pt(i64c(L, e->ival));
        return 0;
    case LE_CAST:
        if (!dt_is_int(e->type.dt))
            return -1;
        return lexpr_ival(L, n, at, e->a, r);
    case LE_VAR:
        for (int i = 0; i < n->nloops; i++)
            if (n->loops[i].lv == e->var) {
                if (i <= at) {
                    *r = pt(to_dt(L, DT_I64, e));
                    return 0;
                }
                *r = iv_mk(i64c(L, 0), bin(L, LO_SUB, to_dt(L, DT_I64,
                           n->loops[i].extent), i64c(L, 1)));
                return 0;
            }
        for (int d = n->ndefs - 1; d >= 0; d--)
            if (n->defvar[d] == e->var && n->defval[d])
                return lexpr_ival(L, n, at, n->defval[d], r);
        *r = pt(to_dt(L, DT_I64, e));
        return 0;
    case LE_BINARY:
        if (lexpr_ival(L, n, at, e->a, &a) || lexpr_ival(L, n, at, e->b, &b))
            return -1;
        return iv_bin(L, e->op, a, b, r);
    default:
        return -1;
    }
}

static int rvar_ival(Lw *L, const TlVar *v, Ival2 *r)
{
    LExpr *lo, *ext;

    if (!v->lo || !v->extent)
        return -1;
    lo = to_dt(L, DT_I64, sym_lower(L, v->lo, DT_I32, v->loc));
    ext = to_dt(L, DT_I64, sym_lower(L, v->extent, DT_I32, v->loc));
    *r = iv_mk(lo, bin(L, LO_SUB, bin(L, LO_ADD, lo, ext), i64c(L, 1)));
    return 0;
}

/* The range of an index expression of the language. */
static int texpr_ival(Lw *L, Env *env, TlExpr *e, Ival2 *r)
{
    Ival2 a, b;
    TlVar *v;

    switch (e->kind) {
    case EX_INT:
        *r = pt(i64c(L, e->ival));
        return 0;
    case EX_NAME:
        if (tl_ref_kind(e->sym) != REF_VAR)
            return -1;
        v = e->sym;
        for (int i = env->n - 1; i >= 0; i--)
            if (env->v[i] == v) {
                *r = env->iv[i];
                return 0;
            }
        if (v->kind == VAR_RVAR)
            return rvar_ival(L, v, r);
        if (v->kind == VAR_INDEX || !find_var(L, v))
            return -1;
        *r = pt(to_dt(L, DT_I64, lir_ref(L->s, find_var(L, v))));
        return 0;
    case EX_CAST:
        if (!dt_is_int(e->dtype))
            return -1;
        return texpr_ival(L, env, e->a, r);
    case EX_UNARY:
        if (e->op != OP_NEG || texpr_ival(L, env, e->a, &a))
            return -1;
        *r = iv_mk(lir_unary(L->s, LO_NEG, a.hi), lir_unary(L->s, LO_NEG,
                                                             a.lo));
        return 0;
    case EX_BINARY:
        if (!dt_is_int(e->dtype) || map_op(e->op) == LO__COUNT ||
            texpr_ival(L, env, e->a, &a) || texpr_ival(L, env, e->b, &b))
            return -1;
        return iv_bin(L, map_op(e->op), a, b, r);
    case EX_CALL:
        if (tl_ref_kind(e->sym) == REF_BUILTIN && e->args.n == 2 &&
            (((TlBuiltin *)e->sym)->id == BI_MIN ||
             ((TlBuiltin *)e->sym)->id == BI_MAX)) {
            if (texpr_ival(L, env, e->args.v[0], &a) ||
                texpr_ival(L, env, e->args.v[1], &b))
                return -1;
            return iv_bin(L, ((TlBuiltin *)e->sym)->id == BI_MIN ? LO_MIN :
                          LO_MAX, a, b, r);
        }
        return -1;
    default:
        return -1;
    }
}

/* Widens hull[] by the reads of p in e (and in the compute_inline
 * stages e reads), e's index variables ranging as env says. */
static void hull_reads(Lw *L, Env *env, TlExpr *e, const TlFunc *p,
                       Ival2 *hull, int *any)
{
    if (!e)
        return;
    if (e->kind == EX_INDEX && tl_ref_kind(e->sym) == REF_READ) {
        TlRead *rd = e->sym;
        FInfo *q = find_finfo(L, rd->func);
        if (rd->func == p) {
            for (int j = 0; j < p->rank && j < e->args.n; j++) {
                Ival2 r;
                FInfo *fi = find_finfo(L, p);
                if (texpr_ival(L, env, e->args.v[j], &r))
                    r = iv_mk(fi->lo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              fi->lo[j], fi->ext[j]), i64c(L, 1)));
                if (!*any) {
                    hull[j] = r;
                } else {
                    hull[j].lo = bin(L, LO_MIN, hull[j].lo, r.lo);
                    hull[j].hi = bin(L, LO_MAX, hull[j].hi, r.hi);
                }
            }
            *any = 1;
        } else if (q && q->inl && env->n + rd->func->rank <=
                   (int)(sizeof env->v / sizeof env->v[0])) {
            int saved = env->n;
            for (int j = 0; j < rd->func->rank && j < e->args.n; j++) {
                Ival2 r;
                if (texpr_ival(L, env, e->args.v[j], &r))
                    r = iv_mk(q->lo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              q->lo[j], q->ext[j]), i64c(L, 1)));
                env->v[env->n] = rd->func->axes[j].var;
                env->iv[env->n++] = r;
            }
            hull_reads(L, env, rd->func->value, p, hull, any);
            env->n = saved;
        }
    }
    hull_reads(L, env, e->a, p, hull, any);
    hull_reads(L, env, e->b, p, hull, any);
    hull_reads(L, env, e->c, p, hull, any);
    for (int i = 0; i < e->args.n; i++)
        hull_reads(L, env, e->args.v[i], p, hull, any);
}

static void emit_stage(Lw *L, TlFunc *f, FInfo *fi, CgNest *n, TlReduce *red,
                       SList *out);

/* The producers computed at loop `at` of consumer f (nest n): their
 * regions, buffers and nests, before `body`.  Sites are placed inner
 * loops first; a producer placed deeper that reads one placed here
 * counts as a reader over what the whole iteration of `at` needs of it
 * (its region bounded at this level, in variables of its own). */
static LStmt *site(Lw *L, TlFunc *f, FInfo *cfi, CgNest *n, int at,
                   LStmt *body)
{
    enum { MAXP = 64 };
    FInfo *ps[MAXP];
    int real[MAXP], np = 0, nreal = 0;
    Ival2 reg[MAXP][TL_MAX_RANK];
    Env cenv;
    SList out = {0};

    for (int i = 0; i < L->nfs && np < MAXP; i++) {
        FInfo *p = &L->fs[i];
        if (!p->nest || p->nest->at_func != f || p->ctx != L->ctx)
            continue;
        if (!p->placed && p->nest->at_var == n->loops[at].tv) {
            real[np] = 1;
            ps[np++] = p;
            nreal++;
        } else if (p->placed && p->level > at) {
            real[np] = 0;
            ps[np++] = p;
        }
    }
    if (!nreal)
        return body;
    for (int i = 0; i < np; i++)
        if (real[i] && n->loops[at].kind == LP_VECTORIZED) {
            unsupported(L, ps[i]->nest->at_loc,
                        "'compute_at' inside a vectorized loop");
            return body;
        }
    /* The consumer's index ranges over one iteration of the loop. */
    memset(&cenv, 0, sizeof cenv);
    for (int j = 0; j < f->rank; j++) {
        Ival2 r;
        LExpr *lo = to_dt(L, DT_I64, cfi->rlo[j]);
        if (lexpr_ival(L, n, at, lir_ref(L->s, n->defvar[j]), &r))
            r = iv_mk(i64c(L, 0), bin(L, LO_SUB, to_dt(L, DT_I64,
                      cfi->rext[j]), i64c(L, 1)));
        cenv.v[cenv.n] = f->axes[j].var;
        cenv.iv[cenv.n++] = iv_mk(bin(L, LO_ADD, lo, r.lo),
                                  bin(L, LO_ADD, lo, r.hi));
    }
    /* An update's reduction variables, as far as its loops say. */
    for (int q = 0; q < n->nrv && cenv.n < (int)(sizeof cenv.v /
                                                 sizeof cenv.v[0]); q++) {
        const TlVar *rv = n->red->rvars[q];
        Ival2 r;
        LExpr *lo;
        if (!rv->lo ||
            lexpr_ival(L, n, at, lir_ref(L->s, n->defvar[f->rank + q]), &r))
            continue;
        lo = to_dt(L, DT_I64, sym_lower(L, rv->lo, DT_I32, rv->loc));
        cenv.v[cenv.n] = rv;
        cenv.iv[cenv.n++] = iv_mk(bin(L, LO_ADD, lo, r.lo),
                                  bin(L, LO_ADD, lo, r.hi));
    }
    for (int i = np - 1; i >= 0; i--) {
        FInfo *p = ps[i];
        const TlFunc *pf = p->f;
        Ival2 hull[TL_MAX_RANK];
        int any = 0;
        LExpr *size = i64c(L, 1);

        hull_reads(L, &cenv, f->value, pf, hull, &any);
        for (int q = i + 1; q < np; q++) {
            Env e;
            memset(&e, 0, sizeof e);
            for (int j = 0; j < ps[q]->f->rank; j++) {
                e.v[e.n] = ps[q]->f->axes[j].var;
                e.iv[e.n++] = reg[q][j];
            }
            hull_reads(L, &e, ps[q]->f->value, pf, hull, &any);
        }
        for (int j = pf->rank - 1; j >= 0; j--) {
            LExpr *lo = p->lo[j], *hi = bin(L, LO_SUB, bin(L, LO_ADD,
                        p->lo[j], p->ext[j]), i64c(L, 1));
            if (any) {
                lo = bin(L, LO_MAX, hull[j].lo, lo);
                hi = bin(L, LO_MIN, hull[j].hi, hi);
            }
            if (!real[i]) {
                LType t = lir_type(DT_I64, 1);
                LVar *vl = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                                   "%s.vlo%d", pf->name, j)), t);
                LVar *vh = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                                   "%s.vhi%d", pf->name, j)), t);
                sl_add(&out, lir_let(L->s, vl, lo));
                sl_add(&out, lir_let(L->s, vh, hi));
                reg[i][j] = iv_mk(lir_ref(L->s, vl), lir_ref(L->s, vh));
                continue;
            }
            sl_add(&out, lir_let(L->s, p->rlov[j], lo));
            sl_add(&out, lir_let(L->s, p->rextv[j], bin(L, LO_MAX,
                   i64c(L, 0), bin(L, LO_ADD, bin(L, LO_SUB, hi, lo),
                                   i64c(L, 1)))));
            sl_add(&out, lir_let(L->s, p->stv[j], size));
            size = bin(L, LO_MUL, lir_ref(L->s, p->stv[j]),
                       lir_ref(L->s, p->rextv[j]));
            reg[i][j] = iv_mk(p->rlo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              p->rlo[j], p->rext[j]), i64c(L, 1)));
        }
        if (real[i])
            p->size = size;
    }
    /* Deeper producers are not computed yet where these run. */
    for (int i = 0; i < np; i++)
        if (!real[i])
            ps[i]->live = 0;
    for (int i = 0; i < np; i++) {
        FInfo *p = ps[i];
        if (!real[i])
            continue;
        p->placed = 1;
        p->level = at;
        sl_add(&out, lir_alloc(L->s, p->buf, LM_HEAP, &p->size, 1));
        emit_stage(L, (TlFunc *)p->f, p, p->nest, p->red, &out);
    }
    for (int i = 0; i < np; i++)
        ps[i]->live = 1;
    sl_add(&out, body);
    return sl_done(L, &out);
}

/* What a stage's loop nest stores per element. */
typedef enum {
    SM_VALUE,       /* the stage's value */
    SM_INIT,        /* red's identity */
    SM_UPDATE,      /* buf op red's body (the nest has red's loops) */
    SM_FINAL        /* the value, red reading as buf */
} StageMode;

/* Stage f over its domain, storing into its buffer, in the loop nest
 * its schedule gives (sched_apply.c). */
static LStmt *stage_loops(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                          StageMode mode, TlReduce *red)
{
    SList body = {0}, top = {0};
    LExpr *idx[TL_MAX_RANK], *val, *off, *guard = NULL;
    LStmt *st;
    int sites = mode == SM_VALUE || mode == SM_UPDATE;

    /* The producers computed inside this nest can be read here. */
    for (int i = 0; sites && i < L->nfs; i++)
        if (L->fs[i].nest && L->fs[i].nest->at_func == f &&
            L->fs[i].ctx == L->ctx)
            L->fs[i].live = 1;

    for (int j = 0; j < f->rank; j++) {
        TlVar *av = f->axes[j].var;
        LVar *v;
        if (!av) {
            unsupported(L, f->loc, "a stage without index variables");
            return lir_nop(L->s);
        }
        v = lir_var(L->s, arena_printf(&L->s->arena, "%s.%s", f->name,
                                       av->name), lir_type(DT_I32, 1));
        map_var(L, av, v);
        idx[j] = to_dt(L, DT_I64, lir_ref(L->s, v));
    }
    off = offset(L, fi, f->rank, idx, 0);
    if (mode == SM_UPDATE)
        for (int r = 0; r < red->nrvars; r++)
            map_var(L, red->rvars[r], lir_var(L->s, arena_printf(
                    &L->s->arena, "%s.%s", f->name, red->rvars[r]->name),
                    lir_type(DT_I32, 1)));
    switch (mode) {
    case SM_INIT:
        val = red_identity(L, red->expr, red, f->dtype);
        if (!val)
            return lir_nop(L->s);
        break;
    case SM_UPDATE:
        val = red_combine(L, red, lir_load(L->s, fi->buf, &off, 1),
                          to_dt(L, f->dtype, lower_expr(L, red->expr->a,
                                                        &body)));
        break;
    case SM_FINAL:
        L->red_sub = red;
        L->red_val = lir_load(L->s, fi->buf, &off, 1);
        val = to_dt(L, f->dtype, lower_expr(L, f->value, &body));
        L->red_sub = NULL;
        break;
    default:
        val = to_dt(L, f->dtype, lower_expr(L, f->value, &body));
        break;
    }
    sl_add(&body, lir_store(L->s, fi->buf, &off, 1, val));
    st = sl_done(L, &body);
    for (int g = 0; g < n->nguards; g++)
        guard = guard ? bin(L, LO_AND, guard, n->guards[g]) : n->guards[g];
    if (guard)
        st = lir_if(L->s, guard, st, NULL);
    /* The variables the directives replaced, the latest first (it may
     * define one an earlier definition uses), then the axis variables:
     * lo + the default loop's variable. */
    for (int d = n->ndefs - 1; d >= f->rank + n->nrv; d--)
        sl_add(&top, lir_let(L->s, n->defvar[d], n->defval[d]));
    for (int j = 0; j < f->rank; j++)
        sl_add(&top, lir_let(L->s, find_var(L, f->axes[j].var),
                             bin(L, LO_ADD, to_dt(L, DT_I32, fi->rlo[j]),
                                 lir_ref(L->s, n->defvar[j]))));
    for (int r = 0; r < n->nrv; r++) {
        TlVar *rv = red->rvars[r];
        sl_add(&top, lir_let(L->s, find_var(L, rv), bin(L, LO_ADD,
                             sym_lower(L, rv->lo, DT_I32, f->loc),
                             lir_ref(L->s, n->defvar[f->rank + r]))));
    }
    sl_add(&top, st);
    st = sl_done(L, &top);
    for (int i = n->nloops - 1; i >= 0; i--) {
        CgLoop *l = &n->loops[i];
        if (sites)
            st = site(L, f, fi, n, i, st);
        st = lir_for(L->s, l->kind, l->width, NULL, l->lv, lir_int(L->s,
                     DT_I32, 0), l->extent, st);
    }
    for (int i = 0; sites && i < L->nfs; i++)
        if (L->fs[i].nest && L->fs[i].nest->at_func == f &&
            L->fs[i].ctx == L->ctx)
            L->fs[i].live = 0;
    return st;
}

/* The default nest of f: one loop per axis over its extent; defs[j]
 * holds axis j's default loop variable (so that directives that
 * replace it define it again). */
static void default_nest(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                         TlReduce *red)
{
    int nl;

    memset(n, 0, sizeof *n);
    for (int j = 0; j < f->rank && j < CG_MAX_LOOPS; j++) {
        TlVar *av = f->axes[j].var;
        LVar *v = lir_var(L->s, arena_printf(&L->s->arena, "%s.%s.l0",
                          f->name, av ? av->name : "_"), lir_type(DT_I32, 1));
        n->loops[j].tv = av;
        n->loops[j].lv = v;
        n->loops[j].extent = to_dt(L, DT_I32, fi->rext[j]);
        n->loops[j].kind = LP_SERIAL;
        n->defvar[j] = v;
        n->defval[j] = NULL;
    }
    nl = f->rank;
    /* With an update: red's loops innermost, in the order written. */
    for (int r = 0; red && r < red->nrvars && nl < CG_MAX_LOOPS && r < 26;
         r++, nl++) {
        TlVar *rv = red->rvars[r];
        LVar *v = lir_var(L->s, arena_printf(&L->s->arena, "%s.%s.l0",
                          f->name, rv->name), lir_type(DT_I32, 1));
        n->loops[nl].tv = rv;
        n->loops[nl].lv = v;
        n->loops[nl].extent = sym_lower(L, rv->extent, DT_I32, f->loc);
        n->loops[nl].kind = LP_SERIAL;
        n->loops[nl].rkey = arena_printf(&L->s->arena, "%c", 'a' + r);
        n->defvar[nl] = v;
        n->defval[nl] = NULL;
        n->nrv++;
        n->red = red;
    }
    n->nloops = n->ndefs = nl;
}

/* An intermediate stage: a heap buffer over its domain. */
static void stage_buffer(Lw *L, TlFunc *f, SList *out)
{
    FInfo *fi = new_finfo(L, f);
    LExpr *size = i64c(L, 1);

    fi->buf = lir_buffer(L->s, fresh(L, f->name), f->dtype);
    for (int j = f->rank - 1; j >= 0; j--) {
        LVar *lo = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                           "%s.lo%d", f->name, j)), lir_type(DT_I64, 1));
        LVar *ext = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                            "%s.n%d", f->name, j)), lir_type(DT_I64, 1));
        LVar *st = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                           "%s.s%d", f->name, j)), lir_type(DT_I64, 1));
        sl_add(out, lir_let(L->s, lo, to_dt(L, DT_I64,
                   sym_lower(L, f->axes[j].lo, DT_I32, f->loc))));
        sl_add(out, lir_let(L->s, ext, bin(L, LO_MAX, i64c(L, 0),
                   to_dt(L, DT_I64, sym_lower(L, f->axes[j].extent, DT_I32,
                                              f->loc)))));
        sl_add(out, lir_let(L->s, st, size));
        fi->lo[j] = fi->rlo[j] = lir_ref(L->s, lo);
        fi->ext[j] = fi->rext[j] = lir_ref(L->s, ext);
        fi->stride[j] = lir_ref(L->s, st);
        size = bin(L, LO_MUL, lir_ref(L->s, st), lir_ref(L->s, ext));
    }
    fi->size = size;
}

/* Stage f's loop nests into out: one, or for an update the
 * initialization, the update and what surrounds the reduction. */
static void emit_stage(Lw *L, TlFunc *f, FInfo *fi, CgNest *n, TlReduce *red,
                       SList *out)
{
    CgNest *plain;

    if (!red) {
        sl_add(out, stage_loops(L, f, fi, n, SM_VALUE, NULL));
        return;
    }
    plain = tl_xmalloc(sizeof *plain);
    default_nest(L, f, fi, plain, NULL);
    sl_add(out, stage_loops(L, f, fi, plain, SM_INIT, red));
    sl_add(out, stage_loops(L, f, fi, n, SM_UPDATE, red));
    if (f->value != red->expr) {
        default_nest(L, f, fi, plain, NULL);
        sl_add(out, stage_loops(L, f, fi, plain, SM_FINAL, red));
    }
    free(plain);
}

/* A stage computed at a loop of its consumer: its region's variables
 * (bound by `site`) replace its domain as what it computes and
 * stores. */
static void at_region(Lw *L, TlFunc *f, FInfo *fi)
{
    LType t = lir_type(DT_I64, 1);

    for (int j = 0; j < f->rank; j++) {
        fi->rlov[j] = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                              "%s.rlo%d", f->name, j)), t);
        fi->rextv[j] = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                               "%s.rn%d", f->name, j)), t);
        fi->stv[j] = lir_var(L->s, fresh(L, arena_printf(&L->s->arena,
                             "%s.rs%d", f->name, j)), t);
        fi->rlo[j] = lir_ref(L->s, fi->rlov[j]);
        fi->rext[j] = lir_ref(L->s, fi->rextv[j]);
        fi->stride[j] = lir_ref(L->s, fi->stv[j]);
    }
}

/* Logs the IR after a pass when TDSL_DEBUG contains "lower". */
static void log_pass(const char *pass, const LFunc *before, const LFunc *f)
{
    const char *d = getenv("TDSL_DEBUG");
    TlBuf b;

    if (!d || !strstr(d, "lower"))
        return;
    buf_init(&b);
    buf_printf(&b, "# after %s", pass);
    if (before == f) {
        buf_puts(&b, " (unchanged)\n");
    } else {
        buf_putc(&b, '\n');
        lir_print_func(&b, f);
    }
    fputs(b.s, stderr);
    buf_free(&b);
}

static LFunc *run_pipeline(TlSession *s, LFunc *f)
{
    /* The pass pipeline, in order.  TODO(issue 4): bounds inference,
     * loop partitioning, vectorization, unrolling, hoisting. */
    LFunc *g;

    log_pass("lowering", NULL, f);
    g = lir_func(s, f->name, f->params, f->nparams,
                 lir_simplify(s, f->body));
    if (g->body == f->body)
        g = f;
    log_pass("simplify", f, g);
    return g;
}

static void lower_funcs(Lw *L, TlKernelInfo *kk, SList *top);

/* A stand-in in the current context for the caller's tensor at index
 * i (of context parent). */
static void alias_to(Lw *L, const TlFunc *f, int i)
{
    FInfo *a = new_finfo(L, f), *p = &L->fs[i];

    *a = *p;
    a->f = f;
    a->ctx = L->ctx;
    a->alias = i;
    a->need_alloc = 0;
    if (p->inl && !p->vf) {
        a->vf = p->f;
        a->vctx = p->ctx;
    }
}

static int finfo_index(Lw *L, const TlFunc *f)
{
    FInfo *fi = find_finfo(L, f);
    return fi ? (int)(fi - L->fs) : -1;
}

/* A kernel call inside the kernel, lowered inline: its results are
 * buffers of the caller (allocated when the callee's output is
 * computed), the callee's inputs and outputs stand for the caller's
 * tensors, its sizes and scalars are lets, and its stages are lowered
 * like the caller's under the path of calls (so `c1.Y.parallel(n)`
 * schedules them). */
static void expand_call(Lw *L, TlCall *call, SList *top)
{
    TlKernelInfo *ce = call->callee;
    int parent = L->ctx, in[64], out[64];
    LExpr *sz[64], *sc[64];

    if (!ce || ce->ninputs > 64 || ce->noutputs > 64 || ce->nsizes > 64 ||
        ce->nscalars > 64 || L->npath >= 16) {
        unsupported(L, call->loc, "this kernel call inside a kernel");
        return;
    }
    for (int o = 0; o < ce->noutputs; o++) {
        TlFunc *r = call->results ? call->results[o] : NULL;
        out[o] = -1;
        if (!r)
            continue;
        if (!find_finfo(L, r)) {
            stage_buffer(L, r, top);
            find_finfo(L, r)->need_alloc = 1;
        }
        out[o] = finfo_index(L, r);
    }
    for (int i = 0; i < ce->ninputs; i++)
        if ((in[i] = call->inputs ? finfo_index(L, call->inputs[i]) : -1) < 0
            || L->fs[in[i]].nest) {
            unsupported(L, call->loc, "this argument of a kernel call "
                        "inside a kernel");
            return;
        }
    for (int i = 0; i < ce->nsizes; i++) {
        if (!call->sizes || !call->sizes[i]) {
            unsupported(L, call->loc, "a kernel call whose sizes are "
                        "known only while running");
            return;
        }
        sz[i] = sym_lower(L, call->sizes[i], DT_I32, call->loc);
    }
    for (int i = 0; i < ce->nscalars; i++) {
        TlExpr *a = call->args ? call->args[ce->ninputs + i] : NULL;
        SList p = {0};
        sc[i] = a ? to_dt(L, ce->scalars[i]->dtype, lower_expr(L, a, &p))
                  : NULL;
        if (p.n)
            unsupported(L, a->loc, "this scalar argument");
        free(p.v);
    }
    if (L->failed)
        return;
    L->ctx = ++L->nctx;
    L->path[L->npath++] = call;
    for (int i = 0; i < ce->nsizes; i++) {
        LVar *v = lir_var(L->s, fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          call->name ? call->name : ce->name,
                          ce->sizes[i]->name)), lir_type(DT_I32, 1));
        sl_add(top, lir_let(L->s, v, sz[i]));
        map_var(L, ce->sizes[i], v);
    }
    for (int i = 0; i < ce->nscalars; i++) {
        TlVar *sv = ce->scalars[i];
        LVar *v = lir_var(L->s, fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          call->name ? call->name : ce->name, sv->name)),
                          lir_type(sv->dtype, 1));
        if (!sc[i]) {
            SList p = {0};
            if (sv->param && sv->param->init)
                sc[i] = to_dt(L, sv->dtype, lower_expr(L, sv->param->init,
                                                       &p));
            if (!sc[i] || p.n)
                unsupported(L, call->loc, "this scalar default");
            free(p.v);
            if (!sc[i])
                break;
        }
        sl_add(top, lir_let(L->s, v, sc[i]));
        map_var(L, sv, v);
    }
    for (int i = 0; i < ce->ninputs; i++)
        alias_to(L, ce->inputs[i], in[i]);
    for (int o = 0; o < ce->noutputs; o++)
        if (out[o] >= 0)
            alias_to(L, ce->outputs[o], out[o]);
    if (!L->failed)
        lower_funcs(L, ce, top);
    L->npath--;
    L->ctx = parent;
}

/* The stages of kernel kk (the kernel itself or an inlined callee, in
 * the current context) in dependency order. */
static void lower_funcs(Lw *L, TlKernelInfo *kk, SList *top)
{
    TlSession *s = L->s;
    TlKernelInfo *k = L->k;
    CgNest nest;

    for (int i = 0; i < kk->nfuncs && !L->failed; i++) {
        TlFunc *fn = kk->funcs[i];
        TlReduce *red = NULL;
        FInfo *fi;
        int out_of_call;
        if (fn->call) {
            int seen = 0;
            if (cg_sched_call_result(s, k, L->path, L->npath, fn)) {
                L->failed = 1;
                break;
            }
            for (int d = 0; d < L->ndone; d++)
                seen |= L->done[d] == fn->call && L->done_ctx[d] == L->ctx;
            if (seen)
                continue;
            if (L->ndone == L->capdone) {
                L->capdone = L->capdone ? 2 * L->capdone : 8;
                L->done = tl_xrealloc(L->done, (size_t)L->capdone *
                                      sizeof *L->done);
                L->done_ctx = tl_xrealloc(L->done_ctx, (size_t)L->capdone *
                                          sizeof *L->done_ctx);
            }
            L->done[L->ndone] = fn->call;
            L->done_ctx[L->ndone++] = L->ctx;
            expand_call(L, fn->call, top);
            continue;
        }
        if (!fn->value) {
            unsupported(L, fn->loc, "this stage");
            break;
        }
        if (fn->kind != FN_OUTPUT)
            stage_buffer(L, fn, top);
        fi = find_finfo(L, fn);
        TL_ASSERT(fi);
        /* An output of an inlined call that lands in a caller's stage
         * (not the kernel's output) may be inlined into its readers. */
        out_of_call = fn->kind == FN_OUTPUT && fi->alias >= 0 &&
                      L->fs[fi->alias].need_alloc;
        if (fn->kind != FN_OUTPUT &&
            cg_sched_at(k, L->path, L->npath, fn))
            at_region(L, fn, fi);
        if (cg_sched_names_rvar(k, L->path, L->npath, fn)) {
            red = fn->nreds == 1 ? fn->reds[0] : NULL;
            if (!red || red->expr->dtype != fn->dtype ||
                red->nrvars > 26 ||
                fn->rank + red->nrvars > CG_MAX_LOOPS) {
                unsupported(L, fn->loc, "scheduling the reduction "
                            "variables of this stage");
                break;
            }
        }
        default_nest(L, fn, fi, &nest, red);
        nest.call_out = out_of_call;
        if (fn->rank > CG_MAX_LOOPS ||
            cg_sched_nest(s, k, L->path, L->npath, fn, &nest)) {
            L->failed = 1;
            break;
        }
        if (nest.inline_) {
            fi->inl = 1;
            if (out_of_call) {
                FInfo *p = &L->fs[fi->alias];
                p->inl = 1;
                p->vf = fn;
                p->vctx = L->ctx;
                p->need_alloc = 0;
            }
            continue;
        }
        if (nest.at_func) {
            fi->nest = arena_alloc(&s->arena, sizeof nest);
            *fi->nest = nest;
            fi->red = red;
            continue;
        }
        if (fn->kind != FN_OUTPUT)
            sl_add(top, lir_alloc(s, fi->buf, LM_HEAP, &fi->size, 1));
        if (out_of_call) {
            FInfo *p = &L->fs[fi->alias];
            sl_add(top, lir_alloc(s, p->buf, LM_HEAP, &p->size, 1));
            p->need_alloc = 0;
        }
        emit_stage(L, fn, fi, &nest, red, top);
    }
}

CgKernel *cg_lower_kernel(TlSession *s, TlKernelInfo *k)
{
    Lw L;
    SList top = {0};
    CgKernel *ck;
    LFunc *f;
    TlBuf err;

    memset(&L, 0, sizeof L);
    L.s = s;
    L.k = k;
    if (cg_sched_check(s, k))
        return NULL;
    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        map_var(&L, v, add_param(&L, lir_var(s, arena_printf(&s->arena,
                                 "sz.%s", v->name), lir_type(DT_I32, 1)),
                                 CGP_SIZE, NULL, 0, v));
    }
    for (int i = 0; i < k->ninputs; i++)
        extern_tensor(&L, k->inputs[i], "in");
    for (int i = 0; i < k->noutputs; i++)
        extern_tensor(&L, k->outputs[i], "out");
    for (int i = 0; i < k->nconsts; i++)
        extern_tensor(&L, k->consts[i], "const");
    L.err = add_param(&L, lir_buffer(s, "tl.err", DT_I32), CGP_ERR, NULL, 0,
                      NULL);
    scalars(&L, &top);
    lower_funcs(&L, k, &top);
    for (int i = 0; i < L.nfs && !L.failed; i++)
        if (L.fs[i].nest && !L.fs[i].placed)
            unsupported(&L, L.fs[i].nest->at_loc, arena_printf(&s->arena,
                        "'compute_at' loop '%s' of '%s' here",
                        L.fs[i].nest->at_var->name,
                        L.fs[i].nest->at_func->name));
    if (L.failed) {
        free(top.v);
        free(L.cps);
        free(L.params);
        free(L.vars);
        free(L.fs);
        free(L.done);
        free(L.done_ctx);
        return NULL;
    }
    f = lir_func(s, arena_printf(&s->arena, "k.%s", k->name), L.params,
                 L.np, sl_done(&L, &top));
    buf_init(&err);
    if (lir_verify(f, &err))
        tl_internal_error(__FILE__, __LINE__, "lowered IR is ill-formed:\n%s",
                          err.s);
    buf_free(&err);
    f = run_pipeline(s, f);
    ck = arena_alloc(&s->arena, sizeof *ck);
    ck->fn = f;
    ck->nparams = L.np;
    ck->params = arena_alloc(&s->arena, (size_t)L.np * sizeof *ck->params);
    memcpy(ck->params, L.cps, (size_t)L.np * sizeof *ck->params);
    free(L.cps);
    free(L.params);
    free(L.vars);
    free(L.fs);
    free(L.done);
    free(L.done_ctx);
    return ck;
}
