/*
 * lir.c - the loop IR's nodes: tables of operators and functions,
 * facts about types and names, the constructors, and structural
 * equality.  Every node is allocated in the session arena and never
 * changed afterwards (STYLE.md rule 9).
 */
#include "codegen/codegen_int.h"

#include <math.h>
#include <string.h>

/* ====================================================================
 * Tables
 * ==================================================================== */

static const struct {
    const char *name;
    int prec, cls;
} ops[LO__COUNT] = {
#define X(n, sp, prec, cls) [LO_##n] = {sp, prec, cls},
    LIR_OPS(X)
#undef X
};

static const struct {
    const char *name;
    int nargs, ints;
} calls[LC__COUNT] = {
#define X(n, sp, nargs, ints) [LC_##n] = {sp, nargs, ints},
    LIR_CALLS(X)
#undef X
};

static const char *const loop_names[LP__COUNT] = {
    "serial", "parallel", "vectorized", "unrolled", "distributed"
};

static const char *const mem_names[LM__COUNT] = {"heap", "stack",
                                                 "register"};

const char *lir_op_name(LOp op)
{
    return (unsigned)op < LO__COUNT ? ops[op].name : "?";
}

int lir_op_prec(LOp op)
{
    return (unsigned)op < LO__COUNT ? ops[op].prec : 9;
}

int lir_op_class(LOp op)
{
    return (unsigned)op < LO__COUNT ? ops[op].cls : 'A';
}

int lir_op_unary(LOp op)
{
    return op == LO_NEG || op == LO_NOT;
}

const char *lir_call_name(LCall fn)
{
    return (unsigned)fn < LC__COUNT ? calls[fn].name : "?";
}

int lir_call_nargs(LCall fn)
{
    return (unsigned)fn < LC__COUNT ? calls[fn].nargs : 0;
}

int lir_call_ints(LCall fn)
{
    return (unsigned)fn < LC__COUNT ? calls[fn].ints : 0;
}

const char *lir_loop_name(LLoopKind k)
{
    return (unsigned)k < LP__COUNT ? loop_names[k] : "?";
}

const char *lir_mem_name(LMemKind m)
{
    return (unsigned)m < LM__COUNT ? mem_names[m] : "?";
}

/* ====================================================================
 * Types and values
 * ==================================================================== */

LType lir_type(TlDType dt, int lanes)
{
    LType t;
    t.dt = dt;
    t.lanes = lanes;
    return t;
}

int lir_type_eq(LType a, LType b)
{
    return a.dt == b.dt && a.lanes == b.lanes;
}

void lir_print_type(TlBuf *out, LType t)
{
    buf_puts(out, dt_name(t.dt));
    if (t.lanes != 1)
        buf_printf(out, "x%d", t.lanes);
}

/* Through a store and a load of the dtype, so that f16 and bf16 round
 * exactly as the language defines (lang/tensor.c). */
double lir_round_float(TlDType dt, double v)
{
    unsigned char tmp[8];

    if (dt == DT_F64)
        return v;
    tl_dt_store_f64(dt, tmp, v);
    return tl_dt_load_f64(dt, tmp);
}

int64_t lir_wrap_int(TlDType dt, int64_t v)
{
    unsigned char tmp[8];

    if (dt == DT_BOOL)
        return v != 0;
    if (dt == DT_I64 || dt == DT_U64 || !dt_is_int(dt))
        return v;
    tl_dt_store_i64(dt, tmp, v);
    return tl_dt_load_i64(dt, tmp);
}

int64_t lir_int_min(TlDType dt)
{
    switch (dt) {
    case DT_I8: return INT8_MIN;
    case DT_I16: return INT16_MIN;
    case DT_I32: return INT32_MIN;
    case DT_I64: return INT64_MIN;
    default: return 0;
    }
}

int64_t lir_int_max(TlDType dt)
{
    switch (dt) {
    case DT_BOOL: return 1;
    case DT_U8: return UINT8_MAX;
    case DT_U16: return UINT16_MAX;
    case DT_U32: return UINT32_MAX;
    case DT_U64: return -1;     /* the bits of UINT64_MAX */
    case DT_I8: return INT8_MAX;
    case DT_I16: return INT16_MAX;
    case DT_I32: return INT32_MAX;
    case DT_I64: return INT64_MAX;
    default: return 0;
    }
}

int lir_int_fits(TlDType dt, int64_t v)
{
    if (dt == DT_U64)           /* held as its bits: any int64_t */
        return 1;
    if (dt == DT_STR)           /* 0: the empty string (SPEC 8.6) */
        return v == 0;
    return (dt == DT_BOOL || dt_is_int(dt)) && v >= lir_int_min(dt) &&
           v <= lir_int_max(dt);
}

/* ====================================================================
 * Names
 * ==================================================================== */

static const char *const keywords[] = {
    "func", "for", "in", "let", "alloc", "on", "if", "else", "parallel",
    "vectorized", "unrolled", "rolled", "stream", "distributed", "heap",
    "stack",
    "register",
    "true", "false", "inf", "nan", "select", "ramp", "broadcast", NULL
};

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_alnum(int c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

int lir_is_keyword(const char *s, size_t n)
{
    for (int i = 0; keywords[i]; i++)
        if (strlen(keywords[i]) == n && !memcmp(keywords[i], s, n))
            return 1;
    for (int i = 0; i < LO__COUNT; i++)
        if (is_alpha((unsigned char)ops[i].name[0]) &&
            strlen(ops[i].name) == n && !memcmp(ops[i].name, s, n))
            return 1;
    for (int i = 0; i < LC__COUNT; i++)
        if (strlen(calls[i].name) == n && !memcmp(calls[i].name, s, n))
            return 1;
    if (dt_from_name(s, n) != DT_NONE)
        return 1;
    /* inf_f64 and nan_f16 are float literals with a dtype. */
    if (n > 4 && (!memcmp(s, "inf_", 4) || !memcmp(s, "nan_", 4)) &&
        dt_from_name(s + 4, n - 4) != DT_NONE)
        return 1;
    return 0;
}

int lir_name_is_valid(const char *name)
{
    const char *p = name;

    if (!p)
        return 0;
    for (;;) {
        if (!is_alpha((unsigned char)*p))
            return 0;
        while (is_alnum((unsigned char)*p))
            p++;
        if (*p == 0)
            return 1;
        if (*p != '.')
            return 0;
        p++;
    }
}

int lir_name_is_plain(const char *name)
{
    return lir_name_is_valid(name) && !lir_is_keyword(name, strlen(name));
}

/* ====================================================================
 * Constructors
 * ==================================================================== */

static LExpr *new_expr(TlSession *s, LExprKind k, LType t)
{
    LExpr *e = arena_alloc(&s->arena, sizeof *e);
    e->kind = k;
    e->type = t;
    return e;
}

static LExpr **copy_exprs(TlSession *s, LExpr *const *v, int n)
{
    LExpr **c;

    if (n <= 0)
        return NULL;
    c = arena_alloc(&s->arena, (size_t)n * sizeof *c);
    memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

LVar *lir_var(TlSession *s, const char *name, LType type)
{
    LVar *v = arena_alloc(&s->arena, sizeof *v);
    v->name = arena_strdup(&s->arena, name);
    v->kind = LV_VALUE;
    v->type = type;
    return v;
}

LVar *lir_buffer(TlSession *s, const char *name, TlDType elem)
{
    LVar *v = lir_var(s, name, lir_type(elem, 1));
    v->kind = LV_BUFFER;
    return v;
}

LVar *lir_func_var(TlSession *s, const char *name, TlDType ret,
                   const TlDType *sig, int n)
{
    LVar *v = lir_var(s, name, lir_type(ret, 1));
    TlDType *d = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof *d);

    memcpy(d, sig, (size_t)n * sizeof *d);
    v->kind = LV_FUNC;
    v->sig = d;
    v->nsig = n;
    return v;
}

LExpr *lir_int(TlSession *s, TlDType dt, int64_t v)
{
    LExpr *e = new_expr(s, LE_INT, lir_type(dt, 1));
    e->ival = v;
    return e;
}

LExpr *lir_bool(TlSession *s, int v)
{
    return lir_int(s, DT_BOOL, v != 0);
}

LExpr *lir_float(TlSession *s, TlDType dt, double v)
{
    LExpr *e = new_expr(s, LE_FLOAT, lir_type(dt, 1));
    e->fval = dt_is_float(dt) ? lir_round_float(dt, v) : v;
    return e;
}

LExpr *lir_const(TlSession *s, LType t, int64_t v)
{
    LExpr *e;

    if (dt_is_float(t.dt)) {
        unsigned char tmp[8];
        tl_dt_store_i64(t.dt, tmp, v);
        e = lir_float(s, t.dt, tl_dt_load_f64(t.dt, tmp));
    } else {
        e = lir_int(s, t.dt, lir_wrap_int(t.dt, v));
    }
    return t.lanes > 1 ? lir_broadcast(s, e, t.lanes) : e;
}

LExpr *lir_ref(TlSession *s, LVar *v)
{
    LExpr *e = new_expr(s, LE_VAR, v->type);
    e->var = v;
    return e;
}

LExpr *lir_load(TlSession *s, LVar *buf, LExpr *const *idx, int n)
{
    int lanes = 1;
    LExpr *e;

    for (int i = 0; i < n; i++)
        if (idx[i]->type.lanes > lanes)
            lanes = idx[i]->type.lanes;
    e = new_expr(s, LE_LOAD, lir_type(buf->type.dt, lanes));
    e->var = buf;
    e->args = copy_exprs(s, idx, n);
    e->nargs = n;
    return e;
}

LExpr *lir_binary(TlSession *s, LOp op, LExpr *a, LExpr *b)
{
    LType t = a->type;
    LExpr *e;

    if (lir_op_class(op) != 'A')
        t.dt = DT_BOOL;
    e = new_expr(s, LE_BINARY, t);
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

LExpr *lir_unary(TlSession *s, LOp op, LExpr *a)
{
    LType t = a->type;
    LExpr *e;

    if (op == LO_NOT)
        t.dt = DT_BOOL;
    e = new_expr(s, LE_UNARY, t);
    e->op = op;
    e->a = a;
    return e;
}

LExpr *lir_select(TlSession *s, LExpr *cond, LExpr *a, LExpr *b)
{
    LExpr *e = new_expr(s, LE_SELECT, a->type);
    e->a = cond;
    e->b = a;
    e->c = b;
    return e;
}

LExpr *lir_cast(TlSession *s, TlDType dt, LExpr *a)
{
    LExpr *e = new_expr(s, LE_CAST, lir_type(dt, a->type.lanes));
    e->a = a;
    return e;
}

LExpr *lir_call(TlSession *s, LCall fn, LExpr *const *args, int n)
{
    LType t = n > 0 ? args[0]->type : lir_type(DT_F32, 1);
    LExpr *e;

    if (lir_call_ints(fn) == 2)         /* uniform, normal: f32 out */
        t.dt = DT_F32;
    e = new_expr(s, LE_CALL, t);
    e->fn = fn;
    e->args = copy_exprs(s, args, n);
    e->nargs = n;
    return e;
}

LExpr *lir_call_func(TlSession *s, LVar *f, LExpr *const *args, int n)
{
    int lanes = n > 0 ? args[0]->type.lanes : 1;
    LExpr *e = new_expr(s, LE_CALL, lir_type(f->type.dt, lanes));

    e->fn = LC__COUNT;
    e->var = f;
    e->args = copy_exprs(s, args, n);
    e->nargs = n;
    return e;
}

LExpr *lir_call_like(TlSession *s, const LExpr *e, LExpr *const *args)
{
    if (e->var)
        return lir_call_func(s, e->var, args, e->nargs);
    return lir_call(s, e->fn, args, e->nargs);
}

LExpr *lir_ramp(TlSession *s, LExpr *base, LExpr *stride, int lanes)
{
    LExpr *e = new_expr(s, LE_RAMP, lir_type(base->type.dt, lanes));
    e->a = base;
    e->b = stride;
    return e;
}

LExpr *lir_broadcast(TlSession *s, LExpr *a, int lanes)
{
    LExpr *e = new_expr(s, LE_BROADCAST, lir_type(a->type.dt, lanes));
    e->a = a;
    return e;
}

static LStmt *new_stmt(TlSession *s, LStmtKind k)
{
    LStmt *st = arena_alloc(&s->arena, sizeof *st);
    st->kind = k;
    return st;
}

LStmt *lir_for(TlSession *s, LLoopKind kind, int width, const char *level,
               LVar *var, LExpr *lo, LExpr *hi, LStmt *body)
{
    LStmt *st = new_stmt(s, LS_FOR);
    st->loop = kind;
    st->width = kind == LP_VECTORIZED || kind == LP_PARALLEL ? width
                : kind == LP_SERIAL && width == LIR_ROLLED ? LIR_ROLLED
                : 0;
    st->level = kind == LP_DISTRIBUTED && level
                    ? arena_strdup(&s->arena, level)
                    : NULL;
    st->var = var;
    st->a = lo;
    st->b = hi;
    st->body = body;
    return st;
}

LStmt *lir_let(TlSession *s, LVar *var, LExpr *value)
{
    LStmt *st = new_stmt(s, LS_LET);
    st->var = var;
    st->a = value;
    return st;
}

LStmt *lir_store(TlSession *s, LVar *buf, LExpr *const *idx, int n,
                 LExpr *value)
{
    LStmt *st = new_stmt(s, LS_STORE);
    st->var = buf;
    st->args = copy_exprs(s, idx, n);
    st->nargs = n;
    st->a = value;
    return st;
}

LStmt *lir_alloc(TlSession *s, LVar *buf, LMemKind mem,
                 LExpr *const *extents, int n)
{
    LStmt *st = new_stmt(s, LS_ALLOC);
    st->var = buf;
    st->mem = mem;
    st->args = copy_exprs(s, extents, n);
    st->nargs = n;
    return st;
}

LStmt *lir_if(TlSession *s, LExpr *cond, LStmt *then, LStmt *orelse)
{
    LStmt *st = new_stmt(s, LS_IF);
    st->a = cond;
    st->body = then;
    st->orelse = orelse;
    return st;
}

LStmt *lir_block(TlSession *s, LStmt *const *items, int n)
{
    LStmt *st;

    if (n == 1)
        return items[0];
    st = new_stmt(s, LS_BLOCK);
    if (n > 0) {
        st->items = arena_alloc(&s->arena, (size_t)n * sizeof *st->items);
        memcpy(st->items, items, (size_t)n * sizeof *st->items);
    }
    st->nitems = n > 0 ? n : 0;
    return st;
}

LStmt *lir_nop(TlSession *s)
{
    return lir_block(s, NULL, 0);
}

int lir_is_nop(const LStmt *st)
{
    return st->kind == LS_BLOCK && st->nitems == 0;
}

LFunc *lir_func(TlSession *s, const char *name, const LParam *params,
                int n, LStmt *body)
{
    LFunc *f = arena_alloc(&s->arena, sizeof *f);

    f->name = arena_strdup(&s->arena, name);
    if (n > 0) {
        f->params = arena_alloc(&s->arena, (size_t)n * sizeof *f->params);
        for (int i = 0; i < n; i++) {
            f->params[i] = params[i];
            f->params[i].dims = copy_exprs(s, params[i].dims,
                                           params[i].ndims);
        }
    }
    f->nparams = n > 0 ? n : 0;
    f->body = body;
    return f;
}

LFunc *lir_func_with_body(TlSession *s, LFunc *f, LStmt *b)
{
    return b == f->body ? f : lir_func(s, f->name, f->params, f->nparams, b);
}

/* ====================================================================
 * Structural equality
 * ==================================================================== */

static int var_equal(const LVar *a, const LVar *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    return a->kind == b->kind && lir_type_eq(a->type, b->type) &&
           !strcmp(a->name, b->name);
}

static int float_equal(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return !memcmp(&a, &b, sizeof a);
}

static int exprs_equal(LExpr *const *a, LExpr *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!lir_expr_equal(a[i], b[i]))
            return 0;
    return 1;
}

int lir_expr_equal(const LExpr *a, const LExpr *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    if (a->kind != b->kind || !lir_type_eq(a->type, b->type) ||
        a->nargs != b->nargs)
        return 0;
    switch (a->kind) {
    case LE_INT: return a->ival == b->ival;
    case LE_FLOAT: return float_equal(a->fval, b->fval);
    case LE_VAR: return var_equal(a->var, b->var);
    case LE_LOAD:
        return var_equal(a->var, b->var) &&
               exprs_equal(a->args, b->args, a->nargs);
    case LE_CALL:
        return a->fn == b->fn && a->var == b->var &&
               exprs_equal(a->args, b->args, a->nargs);
    case LE_BINARY:
    case LE_UNARY:
        if (a->op != b->op)
            return 0;
        break;
    default:
        break;
    }
    return lir_expr_equal(a->a, b->a) && lir_expr_equal(a->b, b->b) &&
           lir_expr_equal(a->c, b->c);
}

int lir_stmt_equal(const LStmt *a, const LStmt *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    if (a->kind != b->kind || a->nargs != b->nargs ||
        a->nitems != b->nitems || !var_equal(a->var, b->var))
        return 0;
    switch (a->kind) {
    case LS_FOR:
        if (a->loop != b->loop || a->width != b->width)
            return 0;
        if ((a->level || b->level) &&
            (!a->level || !b->level || strcmp(a->level, b->level)))
            return 0;
        break;
    case LS_ALLOC:
        if (a->mem != b->mem)
            return 0;
        break;
    case LS_BLOCK:
        for (int i = 0; i < a->nitems; i++)
            if (!lir_stmt_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    default:
        break;
    }
    return lir_expr_equal(a->a, b->a) && lir_expr_equal(a->b, b->b) &&
           exprs_equal(a->args, b->args, a->nargs) &&
           lir_stmt_equal(a->body, b->body) &&
           lir_stmt_equal(a->orelse, b->orelse);
}

int lir_func_equal(const LFunc *a, const LFunc *b)
{
    if (a == b)
        return 1;
    if (!a || !b || strcmp(a->name, b->name) || a->nparams != b->nparams)
        return 0;
    for (int i = 0; i < a->nparams; i++) {
        const LParam *p = &a->params[i], *q = &b->params[i];
        if (!var_equal(p->var, q->var) || p->ndims != q->ndims ||
            !exprs_equal(p->dims, q->dims, p->ndims))
            return 0;
    }
    return lir_stmt_equal(a->body, b->body);
}
