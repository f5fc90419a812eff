/*
 * eval_reduce.c - reductions (SPEC 7.6): sum, prod, max, min, argmax,
 * argmin over every combination of their variables, the first variable
 * outermost and each running upward from its start.
 *
 * The accumulation is sequential and in the body's dtype: the first
 * element starts it and each next one is combined by the language's
 * own operation (`+` rounded to the dtype, the binary max/min that let
 * a NaN through), so a sum of f16 values rounds after every addition.
 * An empty range gives the identity (sum 0, prod 1, max -inf or the
 * type's minimum, min +inf or its maximum); argmax/argmin of nothing is
 * an error.  argmax keeps the first of equal values, and a NaN beats
 * everything (the first NaN wins), as numpy does.
 *
 * Rows accumulate all their lanes at once, one step of the reduction
 * at a time: the lanes are different output elements, so each lane
 * still sees its elements in the order written.
 */
#include "interp/eval_int.h"

#include <math.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

static ItpVal identity(TlOp op, TlDType dt)
{
    ItpVal v;
    int up = op == RD_MAX;

    if (op == RD_SUM || op == RD_PROD) {
        if (dt_is_float(dt))
            v.f = op == RD_SUM ? 0.0 : 1.0;
        else
            v.i = op == RD_SUM ? 0 : 1;
        return v;
    }
    TL_ASSERT(op == RD_MAX || op == RD_MIN);
    switch (dt) {
    case DT_BOOL: v.i = up ? 0 : 1; break;
    case DT_U8: v.i = up ? 0 : UINT8_MAX; break;
    case DT_I8: v.i = up ? INT8_MIN : INT8_MAX; break;
    case DT_I16: v.i = up ? INT16_MIN : INT16_MAX; break;
    case DT_I32: v.i = up ? INT32_MIN : INT32_MAX; break;
    case DT_I64: v.i = up ? INT64_MIN : INT64_MAX; break;
    case DT_U16: v.i = up ? 0 : UINT16_MAX; break;
    case DT_U32: v.i = up ? 0 : UINT32_MAX; break;
    case DT_U64: v.i = up ? 0 : (int64_t)UINT64_MAX; break;
    default: v.f = up ? -INFINITY : INFINITY; break;
    }
    return v;
}

static ItpVal combine(TlOp op, TlDType dt, ItpVal acc, ItpVal v)
{
    switch (op) {
    case RD_SUM: return itp_binary(I_ADD, dt, acc, v);
    case RD_PROD: return itp_binary(I_MUL, dt, acc, v);
    case RD_MAX: return itp_max(dt, acc, v);
    case RD_MIN: return itp_min(dt, acc, v);
    default: tl_unreachable();
    }
}

/* Should v replace best as the extreme of argmax/argmin? */
static int better(TlOp op, TlDType dt, ItpVal best, ItpVal v)
{
    if (dt_is_float(dt)) {
        if (isnan(best.f))
            return 0;
        if (isnan(v.f))
            return 1;
        return op == RD_ARGMAX ? v.f > best.f : v.f < best.f;
    }
    return op == RD_ARGMAX ? itp_ilt(dt, best.i, v.i)
                           : itp_ilt(dt, v.i, best.i);
}

static int is_arg(TlOp op)
{
    return op == RD_ARGMAX || op == RD_ARGMIN;
}

static void start(ItpFrame *F, ItpRed *red)
{
    for (int i = 0; i < red->nv; i++)
        F->env[red->vars[i]].i = red->lo[i];
}

/* The next combination, last variable fastest. */
static void advance(ItpFrame *F, ItpRed *red)
{
    for (int i = red->nv - 1; i >= 0; i--) {
        ItpVal *v = &F->env[red->vars[i]];
        if (++v->i < red->lo[i] + red->ext[i])
            return;
        v->i = red->lo[i];
    }
}

static void report_empty(ItpFrame *F, ItpNode *n)
{
    ItpRed *red = n->red;

    if (F->quiet)
        return;
    diag_error(F->s, n->e->loc, DIAG_RT_EMPTY_ARG_REDUCE,
               op_spelling(red->op), red->r->rvars[0]->name,
               (long long)red->lo[0], (long long)(red->lo[0] + red->ext[0]));
    itp_note_point(F);
}

/* ====================================================================
 * Per element
 * ==================================================================== */

int itp_reduce1(ItpFrame *F, ItpNode *n, ItpVal *out)
{
    ItpRed *red = n->red;
    TlDType bdt = red->body->dt;
    ItpVal acc = {0}, v;
    int64_t arg = 0;
    int pushed = F->nred < (int)(sizeof F->redstack / sizeof *F->redstack);

    if (red->total == 0) {
        if (is_arg(red->op)) {
            report_empty(F, n);
            return -1;
        }
        *out = identity(red->op, bdt);
        return 0;
    }
    if (pushed)
        F->redstack[F->nred++] = red;
    start(F, red);
    for (int64_t it = 0; it < red->total; it++) {
        if (itp_eval1(F, red->body, &v)) {
            if (pushed)
                F->nred--;
            return -1;
        }
        if (is_arg(red->op)) {
            if (it == 0 || better(red->op, bdt, acc, v)) {
                acc = v;
                arg = F->env[red->vars[0]].i;
            }
        } else {
            acc = it == 0 ? v : combine(red->op, bdt, acc, v);
        }
        advance(F, red);
    }
    if (pushed)
        F->nred--;
    if (is_arg(red->op))
        out->i = arg;
    else
        *out = acc;
    return 0;
}

/* ====================================================================
 * Rows
 * ==================================================================== */

/* acc[l] = combine(acc[l], V[l * sv]) for every lane. */
static void combine_row(TlOp op, TlDType dt, ItpVal *restrict acc,
                        const ItpVal *restrict V, int sv, int N)
{
    if (op == RD_SUM && dt == DT_F32 && sv) {
        for (int l = 0; l < N; l++)
            acc[l].f = (double)(float)(acc[l].f + V[l].f);
        return;
    }
    if (op == RD_SUM && dt == DT_F64 && sv) {
        for (int l = 0; l < N; l++)
            acc[l].f = acc[l].f + V[l].f;
        return;
    }
    if (op == RD_SUM && dt == DT_I64) {
        for (int l = 0; l < N; l++)
            acc[l].i = (int64_t)((uint64_t)acc[l].i + (uint64_t)V[l * sv].i);
        return;
    }
    for (int l = 0; l < N; l++)
        acc[l] = combine(op, dt, acc[l], V[l * sv]);
}

/* sum(...) a * b in f32 or f64, the product and the sum each rounded
 * as always, in one pass over the lanes instead of two: the step
 * costs most of a matmul or a convolution.  0 when the body is not
 * such a product (then the general loop below runs). */
static int sum_of_products(ItpFrame *F, ItpRed *red, const uint8_t *mask,
                           int64_t it)
{
    ItpNode *m = red->body;
    const ItpVal *restrict A, *restrict B;
    ItpVal *restrict acc = red->acc;
    int sa, sb, N = F->n;

    if (red->op != RD_SUM || m->op != I_MUL || !m->vary ||
        (m->dt != DT_F32 && m->dt != DT_F64))
        return 0;
    if (!(A = itp_operand(F, m->a, mask, &sa)) ||
        !(B = itp_operand(F, m->b, mask, &sb)))
        return -1;
    if (!sa) {                  /* keep the varying one in A */
        const ItpVal *t = A;
        A = B;
        B = t;
        sb = 0;
    }
    if (m->dt == DT_F32) {
        if (it == 0 && sb)
            for (int l = 0; l < N; l++)
                acc[l].f = (double)(float)(A[l].f * B[l].f);
        else if (it == 0)
            for (int l = 0; l < N; l++)
                acc[l].f = (double)(float)(A[l].f * B[0].f);
        else if (sb)
            for (int l = 0; l < N; l++)
                acc[l].f = (double)(float)(acc[l].f +
                                           (double)(float)(A[l].f * B[l].f));
        else
            for (int l = 0; l < N; l++)
                acc[l].f = (double)(float)(acc[l].f +
                                           (double)(float)(A[l].f * B[0].f));
    } else {
        for (int l = 0; l < N; l++) {
            double p = A[l].f * B[l * sb].f;
            acc[l].f = it == 0 ? p : acc[l].f + p;
        }
    }
    return 1;
}

int itp_reduce_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    ItpRed *red = n->red;
    TlDType bdt = red->body->dt;
    ItpVal *acc = red->acc;
    int N = F->n;

    if (red->total == 0) {
        ItpVal id;
        if (is_arg(red->op))
            return -1;
        id = identity(red->op, bdt);
        for (int l = 0; l < N; l++)
            acc[l] = id;
        return 0;
    }
    start(F, red);
    for (int64_t it = 0; it < red->total; it++) {
        int sv, r = sum_of_products(F, red, mask, it);
        const ItpVal *V;
        if (r < 0)
            return -1;
        if (r) {
            advance(F, red);
            continue;
        }
        if (!(V = itp_operand(F, red->body, mask, &sv)))
            return -1;
        if (is_arg(red->op)) {
            int64_t k = F->env[red->vars[0]].i;
            for (int l = 0; l < N; l++) {
                if (it == 0 || better(red->op, bdt, acc[l], V[l * sv])) {
                    acc[l] = V[l * sv];
                    red->arg[l].i = k;
                }
            }
        } else if (it == 0) {
            for (int l = 0; l < N; l++)
                acc[l] = V[l * sv];
        } else {
            combine_row(red->op, bdt, acc, V, sv, N);
        }
        advance(F, red);
    }
    return 0;
}
