/*
 * eval_row.c - a varying node over a whole row: up to ITP_ROW
 * consecutive points of the innermost axis of the stage being computed.
 * Each node fills its own row buffer from its operands' rows (a uniform
 * operand is computed once and read with stride 0), so the work per
 * element is one pass of a tight loop per node instead of a tree walk.
 *
 * Every loop computes exactly what itp_unary/itp_binary/itp_cast
 * compute for one element (most loops simply call them; the common
 * float and integer arithmetic is written out so the compiler can
 * vectorize it).  `select` evaluates each side under a mask of the
 * lanes that chose it, so a side is never evaluated for a lane that
 * did not choose it (reads and externs skip masked lanes; pure
 * arithmetic on them is harmless).  Errors are not reported here: the
 * driver walks the row again element by element to report the first.
 */
#include "interp/eval_int.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF    /* a*b + c is two roundings (SPEC 8.5) */
#endif

const ItpVal *itp_operand(ItpFrame *F, ItpNode *n, const uint8_t *mask,
                          int *stride)
{
    if (n->vary) {
        *stride = 1;
        return itp_eval_row(F, n, mask) ? NULL : n->buf;
    }
    *stride = 0;
    return itp_eval1(F, n, &n->k) ? NULL : &n->k;
}

/* ====================================================================
 * Element-wise operations
 * ==================================================================== */

/* One loop per stride pattern of (a, b): row-row, row-uniform,
 * uniform-row; x and y are the lane's operands. */
#define FLOAT_LOOP(EXPR)                                                 \
    do {                                                                 \
        if (sa && sb) {                                                  \
            for (int l = 0; l < N; l++) {                                \
                double x = A[l].f, y = B[l].f;                           \
                o[l].f = (EXPR);                                         \
            }                                                            \
        } else if (sa) {                                                 \
            double y = B[0].f;                                           \
            for (int l = 0; l < N; l++) {                                \
                double x = A[l].f;                                       \
                o[l].f = (EXPR);                                         \
            }                                                            \
        } else {                                                         \
            double x = A[0].f;                                           \
            for (int l = 0; l < N; l++) {                                \
                double y = B[l].f;                                       \
                o[l].f = (EXPR);                                         \
            }                                                            \
        }                                                                \
    } while (0)

#define INT_LOOP(EXPR)                                                   \
    do {                                                                 \
        for (int l = 0; l < N; l++) {                                    \
            uint64_t x = (uint64_t)A[l * sa].i, y = (uint64_t)B[l * sb].i; \
            o[l].i = (EXPR);                                             \
        }                                                                \
    } while (0)

/* The fast loops; 0 when there is none for this op and dtype.  A
 * node's row never overlaps its operands' (restrict lets the compiler
 * vectorize without checking). */
static int binary_fast(ItpOp op, TlDType dt, ItpVal *restrict o,
                       const ItpVal *restrict A, int sa,
                       const ItpVal *restrict B, int sb, int N)
{
    if (dt == DT_F32) {
        switch (op) {
        case I_ADD: FLOAT_LOOP((double)(float)(x + y)); return 1;
        case I_SUB: FLOAT_LOOP((double)(float)(x - y)); return 1;
        case I_MUL: FLOAT_LOOP((double)(float)(x * y)); return 1;
        case I_DIV: FLOAT_LOOP((double)(float)(x / y)); return 1;
        default: return 0;
        }
    }
    if (dt == DT_F64) {
        switch (op) {
        case I_ADD: FLOAT_LOOP(x + y); return 1;
        case I_SUB: FLOAT_LOOP(x - y); return 1;
        case I_MUL: FLOAT_LOOP(x * y); return 1;
        case I_DIV: FLOAT_LOOP(x / y); return 1;
        default: return 0;
        }
    }
    if (dt == DT_I64) {
        switch (op) {
        case I_ADD: INT_LOOP((int64_t)(x + y)); return 1;
        case I_SUB: INT_LOOP((int64_t)(x - y)); return 1;
        case I_MUL: INT_LOOP((int64_t)(x * y)); return 1;
        default: return 0;
        }
    }
    if (dt == DT_I32) {
        switch (op) {
        case I_ADD: INT_LOOP((int32_t)(uint32_t)(x + y)); return 1;
        case I_SUB: INT_LOOP((int32_t)(uint32_t)(x - y)); return 1;
        case I_MUL: INT_LOOP((int32_t)(uint32_t)(x * y)); return 1;
        default: return 0;
        }
    }
    return 0;
}

static void binary_row(ItpOp op, TlDType dt, ItpVal *o, const ItpVal *A,
                       int sa, const ItpVal *B, int sb, int N)
{
    if (binary_fast(op, dt, o, A, sa, B, sb, N))
        return;
    for (int l = 0; l < N; l++)
        o[l] = itp_binary(op, dt, A[l * sa], B[l * sb]);
}

static int clamp_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    int sa, sb, sc;
    const ItpVal *A, *B, *C;

    if (!(A = itp_operand(F, n->a, mask, &sa)) ||
        !(B = itp_operand(F, n->b, mask, &sb)) ||
        !(C = itp_operand(F, n->c, mask, &sc)))
        return -1;
    for (int l = 0; l < F->n; l++)
        n->buf[l] = itp_min(n->dt, itp_max(n->dt, A[l * sa], B[l * sb]),
                            C[l * sc]);
    return 0;
}

/* ====================================================================
 * select: each side under the mask of the lanes that chose it
 * ==================================================================== */

static int select_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    static const ItpVal none = {0};
    const ItpVal *C, *A = &none, *B = &none;
    int sc, sa = 0, sb = 0, na = 0, nb = 0, N = F->n;

    if (!(C = itp_operand(F, n->c, mask, &sc)))
        return -1;
    if (!sc) {
        /* The same side for every lane. */
        ItpNode *side = C[0].i ? n->a : n->b;
        if (!(A = itp_operand(F, side, mask, &sa)))
            return -1;
        for (int l = 0; l < N; l++)
            n->buf[l] = A[l * sa];
        return 0;
    }
    for (int l = 0; l < N; l++) {
        int on = !mask || mask[l];
        n->mask_a[l] = on && C[l].i;
        n->mask_b[l] = on && !C[l].i;
        na += n->mask_a[l];
        nb += n->mask_b[l];
    }
    if (na && !(A = itp_operand(F, n->a, n->mask_a, &sa)))
        return -1;
    if (nb && !(B = itp_operand(F, n->b, n->mask_b, &sb)))
        return -1;
    for (int l = 0; l < N; l++)
        n->buf[l] = C[l].i ? A[l * sa] : B[l * sb];
    return 0;
}

/* ====================================================================
 * Externs: one C call per active lane
 * ==================================================================== */

static int extern_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    ItpExt *x = n->ext;
    ItpFfiFn *fn = itp_ffi_get(F->rt, x->x, 1, x->loc);

    if (!fn)
        return -1;
    for (int i = 0; i < x->nargs; i++)
        if (!(x->rows[i] = itp_operand(F, x->args[i], mask, &x->strides[i])))
            return -1;
    for (int l = 0; l < F->n; l++) {
        if (mask && !mask[l]) {
            n->buf[l].i = 0;
            continue;
        }
        for (int i = 0; i < x->nargs; i++)
            x->vals[i] = x->rows[i][l * x->strides[i]];
        n->buf[l] = itp_ffi_call(fn, x->vals);
    }
    return 0;
}

/* ====================================================================
 * Dispatch
 * ==================================================================== */

int itp_eval_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    const ItpVal *A, *B;
    ItpVal *o = n->buf;
    int sa, sb, N = F->n;

    TL_ASSERT(n->vary && o);
    switch (n->op) {
    case I_ROWVAR:
        for (int l = 0; l < N; l++)
            o[l].i = itp_wrap(n->dt, F->row0 + l);
        return 0;
    case I_READ:
        return itp_read_row(F, n, mask);
    case I_CAST:
        if (!(A = itp_operand(F, n->a, mask, &sa)))
            return -1;
        if (n->dt == DT_F32 && dt_is_float(n->a->dt)) {
            for (int l = 0; l < N; l++)
                o[l].f = (double)(float)A[l].f;
        } else {
            for (int l = 0; l < N; l++)
                o[l] = itp_cast(n->dt, n->a->dt, A[l * sa]);
        }
        return 0;
    case I_NEG: case I_NOT: case I_ABS: case I_EXP: case I_LOG:
    case I_FEXP:
    case I_SQRT: case I_RSQRT: case I_TANH: case I_SIGMOID: case I_ERF:
    case I_SIN: case I_COS: case I_FLOOR: case I_CEIL: case I_ROUND:
    case I_TAN: case I_ASIN: case I_ACOS: case I_ATAN: case I_SINH:
    case I_COSH: case I_ASINH: case I_ACOSH: case I_ATANH:
        if (!(A = itp_operand(F, n->a, mask, &sa)))
            return -1;
        for (int l = 0; l < N; l++)
            o[l] = itp_unary(n->op, n->dt, A[l * sa]);
        return 0;
    case I_ADD: case I_SUB: case I_MUL: case I_DIV: case I_MOD:
    case I_EQ: case I_NE: case I_LT: case I_LE: case I_GT: case I_GE:
    case I_AND: case I_OR: case I_MIN: case I_MAX: case I_POW:
        if (!(A = itp_operand(F, n->a, mask, &sa)) ||
            !(B = itp_operand(F, n->b, mask, &sb)))
            return -1;
        binary_row(n->op, n->a->dt, o, A, sa, B, sb, N);
        return 0;
    case I_UNIFORM: case I_NORMAL:
        if (!(A = itp_operand(F, n->a, mask, &sa)) ||
            !(B = itp_operand(F, n->b, mask, &sb)))
            return -1;
        for (int l = 0; l < N; l++)
            o[l] = itp_random(n->op, A[l * sa].i, B[l * sb].i);
        return 0;
    case I_CLAMP:
        return clamp_row(F, n, mask);
    case I_SELECT:
        return select_row(F, n, mask);
    case I_REDUCE:
        return itp_reduce_row(F, n, mask);
    case I_EXTERN:
        return extern_row(F, n, mask);
    case I_LOWER:       /* str: per element only (eval.c has_str) */
    case I_UPPER:
    case I_CONST:
    case I_VAR:
    case I__COUNT:
        break;
    }
    tl_unreachable();
}
