/*
 * eval_scalar.c - the per-element walk over a compiled node tree, and
 * the operations on single values that define the language's
 * arithmetic (SPEC sections 7 and 8).  The row evaluator (eval_row.c)
 * calls the same operations, or loops that compute exactly what they
 * compute, so the two modes agree bit for bit.
 *
 * Floats are computed in double and rounded to the node's dtype after
 * every operation.  For + - * / and sqrt this gives the correctly
 * rounded result of the dtype (a double holds more than twice the
 * digits of an f32, so the double rounding is harmless); the other math
 * functions may differ from a float-precision libm by an ulp, which
 * SPEC 8.5 allows.  Integers are computed in int64 and wrapped to the
 * dtype; `/` and `%` round toward negative infinity, and give 0 for a
 * zero divisor (SPEC 8.5).  Scalars at the top level (value.c) use
 * these same operations, so a script and a kernel never disagree.
 */
#include "interp/eval_int.h"
#include "lang/fast_exp.h"
#include "lang/rng.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TL_FEXP_AS_C(...) __VA_ARGS__
static TL_FAST_EXP_DEF(TL_FEXP_AS_C)
static TL_RNG_BITS_DEF(TL_FEXP_AS_C)
static TL_UNIFORM_DEF(TL_FEXP_AS_C)
static TL_NORMAL_DEF(TL_FEXP_AS_C)

ItpVal itp_random(ItpOp op, int64_t seed, int64_t k)
{
    ItpVal r;

    r.f = op == I_UNIFORM ? tl_uniformf(seed, k) : tl_normalf(seed, k);
    return r;
}

/* ====================================================================
 * Dtype arithmetic
 * ==================================================================== */

double itp_round(TlDType dt, double x)
{
    switch (dt) {
    case DT_F32: return (double)(float)x;
    case DT_F16: return tl_f16_to_f32(tl_f64_to_f16(x));
    case DT_BF16: return tl_bf16_to_f32(tl_f64_to_bf16(x));
    default: return x;
    }
}

int64_t itp_wrap(TlDType dt, int64_t v)
{
    switch (dt) {
    case DT_BOOL: return v != 0;
    case DT_U8: return (uint8_t)v;
    case DT_I8: return (int8_t)(uint8_t)v;
    case DT_I16: return (int16_t)(uint16_t)v;
    case DT_I32: return (int32_t)(uint32_t)v;
    case DT_U16: return (uint16_t)v;
    case DT_U32: return (uint32_t)v;
    default: return v;
    }
}

int itp_ilt(TlDType dt, int64_t a, int64_t b)
{
    return dt == DT_U64 ? (uint64_t)a < (uint64_t)b : a < b;
}

/* An integer converted to float dtype dt in one rounding step. */
static double int_to_float(TlDType dt, int64_t v)
{
    switch (dt) {
    case DT_F32: return (double)(float)v;
    case DT_F16: return tl_f16_to_f32(tl_i64_to_f16(v));
    case DT_BF16: return tl_bf16_to_f32(tl_i64_to_bf16(v));
    default: return (double)v;
    }
}

/* A u64 value (held as its bits) converted to float dtype dt. */
static double u64_to_float(TlDType dt, uint64_t v)
{
    char tmp[8];

    tl_dt_store_u64(dt, tmp, v);
    return tl_dt_load_f64(dt, tmp);
}

ItpVal itp_cast(TlDType to, TlDType from, ItpVal v)
{
    ItpVal r;

    if (from == DT_STR || to == DT_STR) {
        char tmp[8];
        if (from == to)
            return v;
        if (to == DT_STR) {
            itp_store(from, tmp, v);
            r.s = tl_str_from(from, tmp);
            return r;
        }
        /* Not a number: NaN or 0 here; itp_eval1 reports it first. */
        if (tl_str_to(to, v.s ? v.s : "", tmp))
            tl_dt_store_f64(to, tmp, dt_is_float(to) ? NAN : 0);
        return itp_load(to, tmp);
    }
    if (dt_is_float(from)) {
        if (dt_is_float(to))
            r.f = itp_round(to, v.f);
        else
            r.i = tl_f64_to_int(to, v.f);
    } else if (dt_is_float(to)) {
        r.f = from == DT_U64 ? u64_to_float(to, (uint64_t)v.i)
                             : int_to_float(to, v.i);
    } else {
        r.i = itp_wrap(to, v.i);
    }
    return r;
}

ItpVal itp_scalar_arg(TlDType dt, const TlScalarArg *a)
{
    ItpVal x;

    if (a->is_float) {
        x.f = a->f;
        return itp_cast(dt, DT_F64, x);
    }
    x.i = a->i;
    return itp_cast(dt, DT_I64, x);
}

ItpVal itp_load(TlDType dt, const void *p)
{
    ItpVal v;

    if (dt == DT_STR)
        v.s = tl_str_at(p);
    else if (dt_is_float(dt))
        v.f = tl_dt_load_f64(dt, p);
    else
        v.i = tl_dt_load_i64(dt, p);
    return v;
}

void itp_store(TlDType dt, void *p, ItpVal v)
{
    if (dt == DT_STR)
        tl_str_put(p, v.s);
    else if (dt_is_float(dt))
        tl_dt_store_f64(dt, p, v.f);
    else
        tl_dt_store_i64(dt, p, v.i);
}

/* Python's float modulo: exact fmod, moved to the divisor's sign. */
static double float_mod(double a, double b)
{
    double m = fmod(a, b);

    if (m != 0) {
        if ((b < 0) != (m < 0))
            m += b;
    } else {
        m = copysign(0.0, b);
    }
    return m;
}

ItpVal itp_min(TlDType dt, ItpVal a, ItpVal b)
{
    if (dt_is_float(dt)) {
        if (isnan(a.f))
            return a;
        if (isnan(b.f))
            return b;
        return b.f < a.f ? b : a;
    }
    return itp_ilt(dt, b.i, a.i) ? b : a;
}

ItpVal itp_max(TlDType dt, ItpVal a, ItpVal b)
{
    if (dt_is_float(dt)) {
        if (isnan(a.f))
            return a;
        if (isnan(b.f))
            return b;
        return b.f > a.f ? b : a;
    }
    return itp_ilt(dt, a.i, b.i) ? b : a;
}

ItpVal itp_clamp(TlDType dt, ItpVal x, ItpVal lo, ItpVal hi)
{
    return itp_min(dt, itp_max(dt, x, lo), hi);
}

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

ItpVal itp_unary(ItpOp op, TlDType dt, ItpVal a)
{
    ItpVal r;
    double x = a.f;

    if (op == I_LOWER || op == I_UPPER) {
        const char *s = a.s ? a.s : "";
        r.s = op == I_LOWER ? tl_str_lower(s) : tl_str_upper(s);
        return r;
    }
    if (!dt_is_float(dt)) {
        switch (op) {
        case I_NEG: r.i = itp_wrap(dt, (int64_t)(0 - (uint64_t)a.i)); break;
        case I_NOT: r.i = !a.i; break;
        case I_ABS:
            r.i = itp_wrap(dt, a.i < 0 && dt != DT_U64
                                   ? (int64_t)(0 - (uint64_t)a.i) : a.i);
            break;
        default: tl_unreachable();
        }
        return r;
    }
    switch (op) {
    case I_NEG: x = -x; break;
    case I_ABS: x = fabs(x); break;
    case I_EXP: x = exp(x); break;
    case I_FEXP:      /* f32 arithmetic, the same as compiled code */
        x = dt == DT_F64 ? exp(x) : (double)tl_fexpf((float)x);
        break;
    case I_LOG: x = log(x); break;
    case I_SQRT: x = sqrt(x); break;
    case I_RSQRT: x = 1.0 / sqrt(x); break;
    case I_TANH: x = tanh(x); break;
    case I_SIGMOID: x = sigmoid(x); break;
    case I_ERF: x = erf(x); break;
    case I_SIN: x = sin(x); break;
    case I_COS: x = cos(x); break;
    case I_TAN: x = tan(x); break;
    case I_ASIN: x = asin(x); break;
    case I_ACOS: x = acos(x); break;
    case I_ATAN: x = atan(x); break;
    case I_SINH: x = sinh(x); break;
    case I_COSH: x = cosh(x); break;
    case I_ASINH: x = asinh(x); break;
    case I_ACOSH: x = acosh(x); break;
    case I_ATANH: x = atanh(x); break;
    case I_FLOOR: x = floor(x); break;
    case I_CEIL: x = ceil(x); break;
    case I_ROUND: x = nearbyint(x); break;   /* ties to even */
    default: tl_unreachable();
    }
    r.f = itp_round(dt, x);
    return r;
}

static ItpVal int_binary(ItpOp op, TlDType dt, int64_t a, int64_t b)
{
    ItpVal r;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

    if (dt == DT_U64) {
        /* Held as bits: /, % and the orderings are unsigned ones. */
        switch (op) {
        case I_DIV: r.i = ub ? (int64_t)(ua / ub) : 0; return r;
        case I_MOD: r.i = ub ? (int64_t)(ua % ub) : 0; return r;
        case I_LT: r.i = ua < ub; return r;
        case I_LE: r.i = ua <= ub; return r;
        case I_GT: r.i = ua > ub; return r;
        case I_GE: r.i = ua >= ub; return r;
        case I_MIN: r.i = ub < ua ? b : a; return r;
        case I_MAX: r.i = ub > ua ? b : a; return r;
        default: break;
        }
    }
    switch (op) {
    case I_ADD: r.i = itp_wrap(dt, (int64_t)(ua + ub)); break;
    case I_SUB: r.i = itp_wrap(dt, (int64_t)(ua - ub)); break;
    case I_MUL: r.i = itp_wrap(dt, (int64_t)(ua * ub)); break;
    case I_DIV: r.i = itp_wrap(dt, tl_floor_div(a, b)); break;
    case I_MOD: r.i = itp_wrap(dt, tl_floor_mod(a, b)); break;
    case I_EQ: r.i = a == b; break;
    case I_NE: r.i = a != b; break;
    case I_LT: r.i = a < b; break;
    case I_LE: r.i = a <= b; break;
    case I_GT: r.i = a > b; break;
    case I_GE: r.i = a >= b; break;
    case I_AND: r.i = a && b; break;
    case I_OR: r.i = a || b; break;
    case I_MIN: r.i = b < a ? b : a; break;
    case I_MAX: r.i = b > a ? b : a; break;
    default: tl_unreachable();
    }
    return r;
}

ItpVal itp_binary(ItpOp op, TlDType dt, ItpVal a, ItpVal b)
{
    ItpVal r;
    double x = a.f, y = b.f;

    if (dt == DT_STR) {
        /* The checker lets only == and != through (SPEC 8.6). */
        int eq = !strcmp(a.s ? a.s : "", b.s ? b.s : "");
        TL_ASSERT(op == I_EQ || op == I_NE);
        r.i = op == I_EQ ? eq : !eq;
        return r;
    }
    if (!dt_is_float(dt))
        return int_binary(op, dt, a.i, b.i);
    switch (op) {
    case I_ADD: r.f = itp_round(dt, x + y); return r;
    case I_SUB: r.f = itp_round(dt, x - y); return r;
    case I_MUL: r.f = itp_round(dt, x * y); return r;
    case I_DIV: r.f = itp_round(dt, x / y); return r;
    case I_MOD: r.f = itp_round(dt, float_mod(x, y)); return r;
    case I_POW: r.f = itp_round(dt, pow(x, y)); return r;
    case I_EQ: r.i = x == y; return r;
    case I_NE: r.i = x != y; return r;
    case I_LT: r.i = x < y; return r;
    case I_LE: r.i = x <= y; return r;
    case I_GT: r.i = x > y; return r;
    case I_GE: r.i = x >= y; return r;
    case I_MIN: return itp_min(dt, a, b);
    case I_MAX: return itp_max(dt, a, b);
    default: tl_unreachable();
    }
}

/* ====================================================================
 * Operators of the syntax tree
 * ==================================================================== */

ItpOp itp_op_of(TlOp op)
{
    switch (op) {
    case OP_ADD: return I_ADD;
    case OP_SUB: return I_SUB;
    case OP_MUL: return I_MUL;
    case OP_DIV: return I_DIV;
    case OP_MOD: return I_MOD;
    case OP_EQ: return I_EQ;
    case OP_NE: return I_NE;
    case OP_LT: return I_LT;
    case OP_LE: return I_LE;
    case OP_GT: return I_GT;
    case OP_GE: return I_GE;
    case OP_AND: return I_AND;
    case OP_OR: return I_OR;
    case OP_NEG: return I_NEG;
    case OP_NOT: return I_NOT;
    default: tl_unreachable();      /* reductions: not element-wise */
    }
}

ItpOp itp_builtin_op(TlBuiltinId id)
{
    switch (id) {
    case BI_SELECT: return I_SELECT;
    case BI_CLAMP: return I_CLAMP;
    case BI_MIN: return I_MIN;
    case BI_MAX: return I_MAX;
    case BI_POW: return I_POW;
    case BI_EXP: return I_EXP;
    case BI_FAST_EXP: return I_FEXP;
    case BI_LOG: return I_LOG;
    case BI_SQRT: return I_SQRT;
    case BI_RSQRT: return I_RSQRT;
    case BI_TANH: return I_TANH;
    case BI_SIGMOID: return I_SIGMOID;
    case BI_ERF: return I_ERF;
    case BI_SIN: return I_SIN;
    case BI_COS: return I_COS;
    case BI_TAN: return I_TAN;
    case BI_ASIN: return I_ASIN;
    case BI_ACOS: return I_ACOS;
    case BI_ATAN: return I_ATAN;
    case BI_SINH: return I_SINH;
    case BI_COSH: return I_COSH;
    case BI_ASINH: return I_ASINH;
    case BI_ACOSH: return I_ACOSH;
    case BI_ATANH: return I_ATANH;
    case BI_ABS: return I_ABS;
    case BI_FLOOR: return I_FLOOR;
    case BI_CEIL: return I_CEIL;
    case BI_ROUND: return I_ROUND;
    case BI_UNIFORM: return I_UNIFORM;
    case BI_NORMAL: return I_NORMAL;
    case BI_LOWER: return I_LOWER;
    case BI_UPPER: return I_UPPER;
    default: tl_unreachable();    /* top-level builtins: not element-wise */
    }
}

/* ====================================================================
 * The walk
 * ==================================================================== */

static int extern1(ItpFrame *F, ItpNode *n, ItpVal *out)
{
    ItpExt *x = n->ext;
    ItpFfiFn *fn;

    for (int i = 0; i < x->nargs; i++)
        if (itp_eval1(F, x->args[i], &x->vals[i]))
            return -1;
    fn = itp_ffi_get(F->rt, x->x, F->quiet, x->loc);
    if (!fn) {
        if (!F->quiet)
            itp_note_point(F);
        return -1;
    }
    *out = itp_ffi_call(fn, x->vals);
    return 0;
}

/* A str parsed as a number (SPEC 8.6); one that is no number of the
 * node's dtype is an error at the element. */
static int str_number(ItpFrame *F, ItpNode *n, ItpVal a, ItpVal *out)
{
    char tmp[8];
    const char *s = a.s ? a.s : "";

    if (tl_str_to(n->dt, s, tmp)) {
        if (!F->quiet) {
            char shown[64];
            snprintf(shown, sizeof shown, "%.40s%s", s,
                     strlen(s) > 40 ? "..." : "");
            diag_error(F->s, n->e->loc, DIAG_RT_STR_NUMBER, shown,
                       dt_is_float(n->dt) ? "a number" : "an integer",
                       dt_name(n->dt));
            itp_note_point(F);
        }
        return -1;
    }
    *out = itp_load(n->dt, tmp);
    return 0;
}

int itp_eval1(ItpFrame *F, ItpNode *n, ItpVal *out)
{
    ItpVal a, b, c;

    switch (n->op) {
    case I_CONST:
        *out = n->k;
        return 0;
    case I_VAR:
    case I_ROWVAR:
        *out = F->env[n->var];
        if (!dt_is_float(n->dt))
            out->i = itp_wrap(n->dt, out->i);
        return 0;
    case I_READ:
        return itp_read1(F, n, out);
    case I_CAST:
        if (itp_eval1(F, n->a, &a))
            return -1;
        if (n->a->dt == DT_STR && n->dt != DT_STR)
            return str_number(F, n, a, out);
        *out = itp_cast(n->dt, n->a->dt, a);
        return 0;
    case I_LOWER:
    case I_UPPER:
        if (itp_eval1(F, n->a, &a))
            return -1;
        *out = itp_unary(n->op, n->dt, a);
        return 0;
    case I_NEG: case I_NOT: case I_ABS: case I_EXP: case I_LOG:
    case I_FEXP:
    case I_SQRT: case I_RSQRT: case I_TANH: case I_SIGMOID: case I_ERF:
    case I_SIN: case I_COS: case I_FLOOR: case I_CEIL: case I_ROUND:
    case I_TAN: case I_ASIN: case I_ACOS: case I_ATAN: case I_SINH:
    case I_COSH: case I_ASINH: case I_ACOSH: case I_ATANH:
        if (itp_eval1(F, n->a, &a))
            return -1;
        *out = itp_unary(n->op, n->dt, a);
        return 0;
    case I_ADD: case I_SUB: case I_MUL: case I_DIV: case I_MOD:
    case I_EQ: case I_NE: case I_LT: case I_LE: case I_GT: case I_GE:
    case I_AND: case I_OR: case I_MIN: case I_MAX: case I_POW:
        /* Both operands always (SPEC 7.2: && and || do not skip). */
        if (itp_eval1(F, n->a, &a) || itp_eval1(F, n->b, &b))
            return -1;
        *out = itp_binary(n->op, n->a->dt, a, b);
        return 0;
    case I_UNIFORM: case I_NORMAL:
        if (itp_eval1(F, n->a, &a) || itp_eval1(F, n->b, &b))
            return -1;
        *out = itp_random(n->op, a.i, b.i);
        return 0;
    case I_CLAMP:
        if (itp_eval1(F, n->a, &a) || itp_eval1(F, n->b, &b) ||
            itp_eval1(F, n->c, &c))
            return -1;
        *out = itp_clamp(n->dt, a, b, c);
        return 0;
    case I_SELECT:
        if (itp_eval1(F, n->c, &c))
            return -1;
        return itp_eval1(F, c.i ? n->a : n->b, out);
    case I_REDUCE:
        return itp_reduce1(F, n, out);
    case I_EXTERN:
        return extern1(F, n, out);
    case I__COUNT:
        break;
    }
    tl_unreachable();
}
