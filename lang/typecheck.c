/*
 * typecheck.c - dtypes of kernel expressions: promotion, weak literals,
 * implicit casts, and the type rules of operators, builtins, externs,
 * reads and reductions (docs/frontend-decisions.md, "Dtypes and
 * promotion").
 *
 * Promotion of two (non-literal) operand types, by kind and width:
 *
 *            | bool  u8    i8    i16   i32   i64   f16   bf16  f32  f64
 *     -------+------------------------------------------------------------
 *     bool   | bool  u8    i8    i16   i32   i64   f16   bf16  f32  f64
 *     u8     |       u8    i16   i16   i32   i64   f16   bf16  f32  f64
 *     i8     |             i8    i16   i32   i64   f16   bf16  f32  f64
 *     i16    |                   i16   i32   i64   f16   bf16  f32  f64
 *     i32    |                         i32   i64   f16   bf16  f32  f64
 *     i64    |                               i64   f16   bf16  f32  f64
 *     f16    |                                     f16   f32   f32  f64
 *     bf16   |                                           bf16  f32  f64
 *     f32    |                                                 f32  f64
 *     f64    |                                                      f64
 *
 * Literals are weak: an expression made only of literals (a "weak"
 * expression, e.g. `2`, `-1.5`, `(1 + 2)`) takes the other operand's
 * type; a weak float next to an integer or bool gives f32.  Alone, an
 * integer literal is i32 and a float literal f32.  Arithmetic, `-` and
 * ordering comparisons refuse bool; && || ! need bool; math functions
 * turn integers into f32 (abs, min, max and clamp keep them).
 *
 * Every node ends with the dtype it is computed in: weak subtrees are
 * retyped to their context, and other operands that differ get an
 * implicit EX_CAST (ival = 1).  An erroneous node gets DT_NONE and
 * whatever contains it stays quiet.
 */
#include "lang/lang_int.h"

#include <math.h>
#include <string.h>

static const int dt_rank[DT__COUNT] = {
#define X(n, s, sz, fl, sg, rk) [DT_##n] = rk,
    TL_DTYPES(X)
#undef X
};

TlDType ty_promote(TlDType a, TlDType b)
{
    if (a == DT_NONE || b == DT_NONE)
        return DT_NONE;
    if (a == b)
        return a;
    if (dt_is_float(a) || dt_is_float(b)) {
        if (!dt_is_float(a))
            return b;
        if (!dt_is_float(b))
            return a;
        if (dt_rank[a] == dt_rank[b])       /* f16 with bf16 */
            return DT_F32;
        return dt_rank[a] > dt_rank[b] ? a : b;
    }
    if (a == DT_BOOL)
        return b;
    if (b == DT_BOOL)
        return a;
    if (dt_is_signed(a) == dt_is_signed(b))
        return dt_rank[a] > dt_rank[b] ? a : b;
    {
        /* An unsigned with a signed: the signed if it is wider, else
         * the signed of twice the unsigned's width (u8 with i8: i16);
         * u64 has no wider signed, so it gives i64. */
        static const TlDType twice[] = {DT_I16, DT_I32, DT_I64, DT_I64};
        TlDType sg = dt_is_signed(a) ? a : b;
        TlDType un = dt_is_signed(a) ? b : a;
        if (dt_rank[sg] > dt_rank[un])
            return sg;
        return twice[dt_rank[un] - 1];
    }
}

/* ====================================================================
 * Weak expressions
 * ==================================================================== */

static int builtin_id(const TlExpr *e)
{
    const TlBuiltin *b = e->sym;
    if (e->kind != EX_CALL || tl_ref_kind(b) != REF_BUILTIN)
        return -1;
    return b->id;
}

/* Is argument i of builtin call e one of its value operands (those
 * that share the result type)? */
static int value_arg(int id, int i)
{
    switch (id) {
    case BI_SELECT: return i > 0;
    case BI_MIN: case BI_MAX: case BI_CLAMP: return 1;
    default: return 0;
    }
}

/* An integer literal's own dtype: i32, or i64 where i32 cannot hold
 * it, so that 5000000000 + 1 stays weak and exact until it meets the
 * dtype it takes (SPEC 8.3). */
TlDType ty_int_literal(const TlExpr *e)
{
    return e->ival >= INT32_MIN && e->ival <= INT32_MAX ? DT_I32 : DT_I64;
}

int ty_weak(const TlExpr *e)
{
    int id;

    if (!e)
        return 0;
    switch (e->kind) {
    case EX_INT:
    case EX_FLOAT:
        return 1;
    case EX_UNARY:
        return e->op == OP_NEG && ty_weak(e->a);
    case EX_BINARY:
        return e->op >= OP_ADD && e->op <= OP_MOD && ty_weak(e->a) &&
               ty_weak(e->b);
    case EX_REDUCE:
        return e->op != RD_ARGMAX && e->op != RD_ARGMIN && ty_weak(e->a);
    case EX_CALL:
        id = builtin_id(e);
        if (id != BI_SELECT && id != BI_MIN && id != BI_MAX &&
            id != BI_CLAMP)
            return 0;
        for (int i = 0; i < e->args.n; i++)
            if (value_arg(id, i) && !ty_weak(e->args.v[i]))
                return 0;
        return 1;
    default:
        return 0;
    }
}

/* Does weak expression e hold a float literal? */
static int weak_float(const TlExpr *e)
{
    if (!e)
        return 0;
    switch (e->kind) {
    case EX_FLOAT:
        return 1;
    case EX_UNARY:
    case EX_REDUCE:
        return weak_float(e->a);
    case EX_BINARY:
        return weak_float(e->a) || weak_float(e->b);
    case EX_CALL:
        for (int i = 0; i < e->args.n; i++)
            if (value_arg(builtin_id(e), i) && weak_float(e->args.v[i]))
                return 1;
        return 0;
    default:
        return 0;
    }
}

/* ====================================================================
 * Retyping and implicit casts
 * ==================================================================== */

static int int_fits(int64_t v, TlDType t)
{
    switch (t) {
    case DT_BOOL: return v == 0 || v == 1;
    case DT_U8: return v >= 0 && v <= 255;
    case DT_U16: return v >= 0 && v <= 65535;
    case DT_U32: return v >= 0 && v <= UINT32_MAX;
    case DT_U64: return v >= 0;
    case DT_I8: return v >= -128 && v <= 127;
    case DT_I16: return v >= -32768 && v <= 32767;
    case DT_I32: return v >= INT32_MIN && v <= INT32_MAX;
    default: return 1;
    }
}

static int float_fits(double v, TlDType t)
{
    double lim = t == DT_F16 ? 65504.0 : t == DT_BF16 ? 3.3895313892515355e38
                 : t == DT_F32 ? 3.4028234663852886e38 : INFINITY;
    return !(fabs(v) > lim);
}

/* Gives weak subtree e type t; neg says e sits under a unary minus
 * (for the range check of `-128`). */
static void retype(Chk *c, TlExpr *e, TlDType t, int neg)
{
    int id;

    if (!e)
        return;
    e->dtype = t;
    e->rank = 0;
    switch (e->kind) {
    case EX_INT:
        if (!dt_is_float(t)) {
            int ok = e->ival == INT64_MIN ||
                     int_fits(neg ? -e->ival : e->ival, t);
            if (!ok) {
                char *txt = arena_printf(c->a, "%s%lld", neg ? "-" : "",
                                         (long long)e->ival);
                diag_error(c->s, e->loc, DIAG_LITERAL_RANGE, txt,
                           dt_name(t));
                e->dtype = DT_NONE;
            }
        } else if (!float_fits((double)e->ival, t)) {
            diag_error(c->s, e->loc, DIAG_LITERAL_RANGE,
                       arena_printf(c->a, "%lld", (long long)e->ival),
                       dt_name(t));
        }
        return;
    case EX_FLOAT:
        if (!float_fits(e->fval, t))
            diag_error(c->s, e->loc, DIAG_LITERAL_RANGE,
                       e->str ? e->str : "?", dt_name(t));
        return;
    case EX_UNARY:
        retype(c, e->a, t, !neg);
        return;
    case EX_BINARY:
        retype(c, e->a, t, 0);
        retype(c, e->b, t, 0);
        return;
    case EX_REDUCE:
        retype(c, e->a, t, 0);
        return;
    case EX_CALL:
        id = builtin_id(e);
        for (int i = 0; i < e->args.n; i++)
            if (value_arg(id, i))
                retype(c, e->args.v[i], t, 0);
        return;
    default:
        return;
    }
}

static TlExpr *implicit_cast(Chk *c, TlExpr *e, TlDType t)
{
    TlExpr *x = ast_expr(c->s, EX_CAST, e->loc);
    x->a = e;
    x->dtype = t;
    x->ival = 1;
    x->rank = 0;
    return x;
}


void ty_coerce(Chk *c, TlExpr **slot, TlDType t)
{
    TlExpr *e = *slot;

    if (!e || e->dtype == DT_NONE || t == DT_NONE)
        return;
    /* Numbers and strings never convert implicitly (SPEC 8.6). */
    if ((e->dtype == DT_STR) != (t == DT_STR))
        return;
    /* A weak expression is computed in the dtype it takes (SPEC 8.3):
     * x + (0.1 * 3) with x f64 multiplies in f64, and 5000000000 + 1
     * next to an i64 never passes through i32. */
    if (ty_weak(e) && (dt_is_float(t) || !weak_float(e))) {
        retype(c, e, t, 0);
        return;
    }
    if (e->dtype != t)
        *slot = implicit_cast(c, e, t);
}

int ty_fits(Chk *c, TlExpr **slot, TlDType want)
{
    TlExpr *e = *slot;

    if (!e || e->dtype == DT_NONE || want == DT_NONE)
        return 1;
    if (e->dtype == want)
        return 1;
    if ((e->dtype == DT_STR) != (want == DT_STR))
        return 0;
    if (ty_weak(e) && (dt_is_float(want) || !weak_float(e))) {
        ty_coerce(c, slot, want);
        return 1;
    }
    return 0;
}

/* ====================================================================
 * Operators
 * ==================================================================== */

static TlDType type_of(Kern *kc, TlExpr **slot);

/* The common type of n operands (weak ones follow the others), after
 * which each is converted to it.  DT_NONE if one failed. */
TlDType ty_unify(Chk *c, TlExpr **slots[], int n)
{
    TlDType strong = DT_NONE, weak = DT_NONE, t;
    int nstrong = 0, wfloat = 0, nstr = 0;

    for (int i = 0; i < n; i++) {
        TlExpr *e = *slots[i];
        if (!e || e->dtype == DT_NONE)
            return DT_NONE;
        nstr += e->dtype == DT_STR;
    }
    if (nstr && nstr < n) {
        /* str meets a number: no common type (SPEC 8.6). */
        TlExpr *num = NULL;
        for (int i = 0; i < n && !num; i++)
            if ((*slots[i])->dtype != DT_STR)
                num = *slots[i];
        diag_error(c->s, num->loc, DIAG_STR_MIX, dt_name(num->dtype));
        diag_hint(c->s, "convert one side: str(x), or f32(s) to parse a "
                        "string");
        return DT_NONE;
    }
    for (int i = 0; i < n; i++) {
        TlExpr *e = *slots[i];
        if (ty_weak(e)) {
            weak = weak == DT_NONE ? e->dtype : ty_promote(weak, e->dtype);
            wfloat |= weak_float(e);
        } else {
            strong = nstrong++ ? ty_promote(strong, e->dtype) : e->dtype;
        }
    }
    if (nstrong == 0)
        t = weak;
    else if (strong == DT_BOOL && weak != DT_NONE)
        t = weak;           /* `b == 1` compares as i32 (SPEC 8.3) */
    else if (wfloat && !dt_is_float(strong))
        t = DT_F32;
    else
        t = strong;
    for (int i = 0; i < n; i++)
        ty_coerce(c, slots[i], t);
    return t;
}

static TlDType no_bool(Chk *c, TlExpr *e, TlDType t, const char *what)
{
    if (t == DT_STR) {
        diag_error(c->s, e->oploc, DIAG_STR_OPERAND, what);
        diag_hint(c->s, "strings only compare with == and !=; convert "
                        "to a number first, e.g. f32(s)");
        return DT_NONE;
    }
    if (t == DT_BOOL) {
        diag_error(c->s, e->oploc, DIAG_BOOL_OPERAND, what);
        diag_hint(c->s, "convert it first, e.g. i32(x)");
        return DT_NONE;
    }
    return t;
}

static TlDType type_binary(Kern *kc, TlExpr *e)
{
    Chk *c = kc->c;
    TlExpr **ops[2] = {&e->a, &e->b};
    TlDType ta = type_of(kc, &e->a), tb = type_of(kc, &e->b), t;

    if (ta == DT_NONE || tb == DT_NONE)
        return DT_NONE;
    if (e->op == OP_AND || e->op == OP_OR) {
        TlExpr *bad = ta != DT_BOOL ? e->a : tb != DT_BOOL ? e->b : NULL;
        if (bad) {
            diag_error(c->s, bad->loc, DIAG_LOGIC_NOT_BOOL,
                       op_spelling(e->op), dt_name(bad->dtype));
            diag_hint(c->s, "compare it to get a bool, e.g. x != 0");
            return DT_NONE;
        }
        return DT_BOOL;
    }
    t = ty_unify(c, ops, 2);
    if (t == DT_NONE)
        return DT_NONE;
    if (e->op == OP_EQ || e->op == OP_NE)
        return DT_BOOL;
    if (no_bool(c, e, t, op_spelling(e->op)) == DT_NONE)
        return DT_NONE;
    if (e->op >= OP_LT && e->op <= OP_GE)
        return DT_BOOL;
    return t;
}

static TlDType type_unary(Kern *kc, TlExpr *e)
{
    Chk *c = kc->c;
    TlDType t = type_of(kc, &e->a);

    if (t == DT_NONE)
        return DT_NONE;
    if (e->op == OP_NOT) {
        if (t != DT_BOOL) {
            diag_error(c->s, e->a->loc, DIAG_LOGIC_NOT_BOOL, "!",
                       dt_name(t));
            diag_hint(c->s, "compare it to get a bool, e.g. x == 0");
            return DT_NONE;
        }
        return DT_BOOL;
    }
    if (t == DT_STR)
        return no_bool(c, e, t, "-");
    if (dt_is_unsigned(t) && !ty_weak(e->a)) {
        diag_error(c->s, e->oploc, DIAG_NEG_UNSIGNED, dt_name(t));
        diag_hint(c->s, "convert it to a signed type first, e.g. "
                        "-%s(x)", dt_name(ty_promote(t, DT_I8)));
        return DT_NONE;
    }
    return no_bool(c, e, t, "-");
}

static TlDType type_cast(Kern *kc, TlExpr *e)
{
    TlDType t = type_of(kc, &e->a);

    if (e->ival == 1)       /* an implicit cast from an earlier pass */
        return e->dtype;
    if (t == DT_NONE)
        return DT_NONE;
    /* f16(1.5) means the f16 nearest 1.5, not a rounding of f32 1.5;
     * str(1.5) the text of the literal's own dtype (f32). */
    if (ty_weak(e->a) && e->dtype != DT_BOOL && e->dtype != DT_STR &&
        (dt_is_float(e->dtype) || !weak_float(e->a)))
        retype(kc->c, e->a, e->dtype, 0);
    return e->dtype;
}

static TlDType type_builtin(Kern *kc, TlExpr *e, const TlBuiltin *b)
{
    int bad = 0;

    if (b->id == BI_HASH) {     /* of a whole parameter (resolve.c) */
        TlFunc *f = e->args.v[0]->sym;
        e->args.v[0]->dtype = f->dtype;
        e->args.v[0]->rank = f->rank;
        return f->dtype == DT_NONE ? DT_NONE : DT_I64;
    }

    for (int i = 0; i < e->args.n; i++)
        if (type_of(kc, &e->args.v[i]) == DT_NONE)
            bad = 1;
    return bad ? DT_NONE : ty_builtin(kc->c, e, b);
}

TlDType ty_builtin(Chk *c, TlExpr *e, const TlBuiltin *b)
{
    TlExpr **ops[3];
    TlDType t = DT_NONE;
    int n = e->args.n;

    if (n > 3 || n < 1)
        return DT_NONE;
    for (int i = 0; i < n; i++) {
        if (!e->args.v[i] || e->args.v[i]->dtype == DT_NONE)
            return DT_NONE;
        ops[i] = &e->args.v[i];
    }
    if (b->id == BI_LOWER || b->id == BI_UPPER) {
        if (e->args.v[0]->dtype != DT_STR) {
            diag_error(c->s, e->args.v[0]->loc, DIAG_BUILTIN_ARG, 1,
                       b->name, "a str");
            diag_hint(c->s, "convert it first, e.g. str(x)");
            return DT_NONE;
        }
        return DT_STR;
    }
    if (b->id != BI_SELECT)
        for (int i = 0; i < n; i++)
            if (e->args.v[i]->dtype == DT_STR) {
                diag_error(c->s, e->args.v[i]->loc, DIAG_STR_OPERAND,
                           b->name);
                return DT_NONE;
            }
    switch (b->id) {
    case BI_SELECT:
        if (e->args.v[0]->dtype != DT_BOOL) {
            diag_error(c->s, e->args.v[0]->loc, DIAG_COND_NOT_BOOL,
                       dt_name(e->args.v[0]->dtype));
            diag_hint(c->s, "compare it to get a bool, e.g. x > 0");
            return DT_NONE;
        }
        return ty_unify(c, ops + 1, 2);
    case BI_MIN:
    case BI_MAX:
    case BI_CLAMP:
        t = ty_unify(c, ops, n);
        if (t == DT_BOOL) {
            diag_error(c->s, e->a->loc, DIAG_BOOL_OPERAND, b->name);
            return DT_NONE;
        }
        return t;
    case BI_ABS:
        t = ty_unify(c, ops, n);
        break;
    case BI_UNIFORM:
    case BI_NORMAL:
        /* A seed and a counter, as i64 (SPEC 7.5); never a float, so
         * that no rounding can make two elements share a value. */
        for (int i = 0; i < n; i++) {
            TlDType a = e->args.v[i]->dtype;
            if (!dt_is_int(a)) {
                diag_error(c->s, e->args.v[i]->loc, DIAG_RANDOM_NOT_INT,
                           i ? "counter" : "seed", b->name, dt_name(a));
                diag_hint(c->s, i ? "an index, or a flat index of "
                          "indices: i * N + j" : "an integer, e.g. a "
                          "scalar parameter 'seed: i64'");
                return DT_NONE;
            }
            ty_coerce(c, ops[i], DT_I64);
        }
        return DT_F32;
    default:
        /* pow and the math functions compute in floats. */
        t = ty_unify(c, ops, n);
        if (t != DT_NONE && t != DT_BOOL && !dt_is_float(t)) {
            t = DT_F32;
            for (int i = 0; i < n; i++)
                ty_coerce(c, ops[i], t);
        }
        break;
    }
    if (t == DT_BOOL) {
        diag_error(c->s, e->a->loc, DIAG_BOOL_OPERAND, b->name);
        diag_hint(c->s, "convert it first, e.g. f32(x)");
        return DT_NONE;
    }
    return t;
}

static TlDType type_extern(Kern *kc, TlExpr *e, const TlExternInfo *x)
{
    Chk *c = kc->c;
    int bad = 0;

    for (int i = 0; i < e->args.n && i < x->nparams; i++) {
        TlExpr **slot = &e->args.v[i];
        if (type_of(kc, slot) == DT_NONE) {
            bad = 1;
            continue;
        }
        if (!ty_fits(c, slot, x->params[i])) {
            diag_error(c->s, (*slot)->loc, DIAG_ARG_DTYPE, i + 1, x->name,
                       arena_printf(c->a, "'%s'", dt_name((*slot)->dtype)),
                       dt_name(x->params[i]));
            diag_hint(c->s, "convert it: %s(...)", dt_name(x->params[i]));
            bad = 1;
        }
    }
    return bad ? DT_NONE : x->ret;
}

static TlDType type_read(Kern *kc, TlExpr *e, const TlRead *rd)
{
    Chk *c = kc->c;
    int bad = 0;

    for (int i = 0; i < e->args.n; i++) {
        TlExpr **slot = &e->args.v[i];
        TlDType t = type_of(kc, slot);
        if (t == DT_NONE) {
            bad = 1;
        } else if (!dt_is_int(t) && !(ty_weak(*slot) && !weak_float(*slot))) {
            diag_error(c->s, (*slot)->loc, DIAG_INDEX_NOT_INT, i + 1,
                       rd->func->name, arena_printf(c->a, "'%s'", dt_name(t)));
            diag_hint(c->s, "convert it: i32(...)");
            bad = 1;
        }
    }
    return bad ? DT_NONE : rd->func->dtype;
}

/* The ends of the range of variable name (a reduction's `k in a..b`, a
 * stage's `i in a..b`) are integers. */
static void range_ends(Kern *kc, const char *name, TlExpr **lo, TlExpr **hi)
{
    TlExpr **ends[2] = {lo, hi};

    for (int j = 0; j < 2; j++) {
        TlDType rt;
        if (!*ends[j])
            continue;
        rt = type_of(kc, ends[j]);
        if (rt != DT_NONE && !dt_is_int(rt) &&
            !(ty_weak(*ends[j]) && !weak_float(*ends[j]))) {
            diag_error(kc->c->s, (*ends[j])->loc, DIAG_RANGE_NOT_INT,
                       name ? name : "?", dt_name(rt));
            (*ends[j])->dtype = DT_NONE;
        } else
            ty_coerce(kc->c, ends[j], DT_I32);
    }
}

void ty_stage_ranges(Kern *kc, TlStmt *st)
{
    for (int j = 0; j < st->names.n; j++) {
        TlIdent *id = &st->names.v[j];
        if (id->lo)
            range_ends(kc, id->name, &id->lo, &id->hi);
    }
}

static TlDType type_reduce(Kern *kc, TlExpr *e)
{
    Chk *c = kc->c;
    TlDType t;

    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (x)
            range_ends(kc, x->str, &x->a, &x->b);
    }
    t = type_of(kc, &e->a);
    if (t == DT_NONE)
        return DT_NONE;
    if (t == DT_STR) {
        diag_error(c->s, e->loc, DIAG_STR_OPERAND, op_spelling(e->op));
        return DT_NONE;
    }
    if (e->op == RD_ARGMAX || e->op == RD_ARGMIN)
        return DT_I64;
    if (t == DT_BOOL && (e->op == RD_SUM || e->op == RD_PROD)) {
        diag_error(c->s, e->loc, DIAG_BOOL_OPERAND, op_spelling(e->op));
        diag_hint(c->s, "convert it first, e.g. i32(x)");
        return DT_NONE;
    }
    return t;
}

static TlDType type_name(Kern *kc, TlExpr *e)
{
    (void)kc;
    switch (tl_ref_kind(e->sym)) {
    case REF_VAR: {
        TlVar *v = e->sym;
        return v->kind == VAR_SCALAR ? v->dtype : DT_I32;
    }
    case REF_FUNC:
        return ((TlFunc *)e->sym)->dtype;
    default:
        return DT_NONE;     /* unresolved: reported by resolve.c */
    }
}

static TlDType type_of(Kern *kc, TlExpr **slot)
{
    TlExpr *e = *slot;
    TlDType t = DT_NONE;

    if (!e)
        return DT_NONE;
    switch (e->kind) {
    case EX_INT: t = ty_int_literal(e); break;
    case EX_FLOAT: t = DT_F32; break;
    case EX_BOOL: t = DT_BOOL; break;
    case EX_STR: t = DT_STR; break;
    case EX_NAME: t = type_name(kc, e); break;
    case EX_INDEX:
        if (tl_ref_kind(e->sym) == REF_READ)
            t = type_read(kc, e, e->sym);
        break;
    case EX_CALL:
        if (tl_ref_kind(e->sym) == REF_BUILTIN)
            t = type_builtin(kc, e, e->sym);
        else if (tl_ref_kind(e->sym) == REF_EXTERN)
            t = type_extern(kc, e, e->sym);
        break;
    case EX_REDUCE: t = type_reduce(kc, e); break;
    case EX_UNARY: t = type_unary(kc, e); break;
    case EX_BINARY: t = type_binary(kc, e); break;
    case EX_CAST: t = type_cast(kc, e); break;
    default: break;         /* reported by resolve.c */
    }
    e->dtype = t;
    e->rank = t == DT_NONE ? -1 : 0;
    return t;
}

TlDType ty_expr(Kern *kc, TlExpr **slot)
{
    return type_of(kc, slot);
}

void ty_defaults(Kern *kc)
{
    Chk *c = kc->c;

    for (int i = 0; i < kc->k->nscalars; i++) {
        TlVar *v = kc->k->scalars[i];
        TlParam *p = v->param;
        TlDType t;

        /* A scalar comes from a number (--param, a call's argument);
         * text goes in tensors (SPEC 8.6). */
        if (v->dtype == DT_STR) {
            diag_error(c->s, v->loc, DIAG_STR_SCALAR, v->name);
            diag_hint(c->s, "pass a str[] tensor instead");
            continue;
        }
        if (!p || !p->init)
            continue;
        rsv_scalar_expr(kc, p->init, "a default value");
        t = ty_expr(kc, &p->init);
        if (t == DT_NONE || p->dtype == DT_NONE)
            continue;
        if (!ty_fits(c, &p->init, p->dtype)) {
            diag_error(c->s, p->init->loc, DIAG_DEFAULT_DTYPE, p->name,
                       dt_name(t), dt_name(p->dtype));
            diag_hint(c->s, "write a value of type '%s', or convert it: "
                            "%s(...)", dt_name(p->dtype), dt_name(p->dtype));
        }
    }
}
