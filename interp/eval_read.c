/*
 * eval_read.c - reads of tensors, per element and per row, with their
 * bounds: a plain read outside the tensor's domain is a run-time error
 * (RT_INDEX_OOB), `zero_pad` gives 0 there and `clamp_edge` the nearest
 * element (SPEC 7.7, 9.4).  Reads the checker proved in bounds are
 * checked too: a check costs little here, and a wrong proof must never
 * turn into a wild load.
 *
 * A row read whose varying indices are all affine in the row variable
 * (`B[k, j]`, `X[n, c, y + r, x * stride + s - pad]`) has its bounds
 * checked at the row's two ends and becomes one strided load; anything
 * else (gathers, boundary helpers at the edge, masked lanes) goes lane
 * by lane.
 */
#include "interp/eval_int.h"

#include <string.h>

/* ====================================================================
 * Messages
 * ==================================================================== */

/* An index written as a literal shows its value only. */
static int is_literal(const TlExpr *e)
{
    while (e && ((e->kind == EX_CAST && e->ival == 1) ||
                 (e->kind == EX_UNARY && e->op == OP_NEG)))
        e = e->a;
    return e && e->kind == EX_INT;
}

/* Index `axis` of read n is out of range: the message shows every
 * index, "A[i=3, k=512]". */
static void report_oob(ItpFrame *F, ItpNode *n, const int64_t *idx,
                       int axis)
{
    ItpRead *rd = n->rd;
    ItpSlot *sl = &F->slots[rd->slot];
    const TlExpr *e = rd->r ? rd->r->expr : n->e;
    TlBuf at, range;

    buf_init(&at);
    buf_init(&range);
    buf_printf(&at, "%s[", rd->func->name);
    for (int j = 0; j < rd->rank; j++) {
        const TlExpr *x = e->args.v[j];
        if (j)
            buf_puts(&at, ", ");
        if (!is_literal(x)) {
            /* "k=512", "idx[i]=9", "(i + by)=4" */
            TlBuf t;
            buf_init(&t);
            ast_print_expr(&t, x);
            buf_printf(&at, strchr(t.s, ' ') ? "(%s)=" : "%s=", t.s);
            buf_free(&t);
        }
        buf_printf(&at, "%lld", (long long)idx[j]);
    }
    buf_putc(&at, ']');
    if (sl->ext[axis] > 0)
        buf_printf(&range, "%lld..%lld", (long long)sl->lo[axis],
                   (long long)(sl->lo[axis] + sl->ext[axis] - 1));
    else
        buf_puts(&range, "(the axis is empty)");
    diag_error(F->s, e->loc, DIAG_RT_INDEX_OOB, (long long)idx[axis],
               range.s, axis, rd->func->name, at.s,
               itp_loc_text(F, rd->func->loc));
    itp_note_point(F);
    buf_free(&at);
    buf_free(&range);
}

/* ====================================================================
 * Per element
 * ==================================================================== */

/* v - lo when lo <= v < lo + ext, else -1 (without overflowing: the
 * difference modulo 2^64 is below ext exactly for those v). */
static int64_t rel_index(int64_t v, int64_t lo, int64_t ext)
{
    uint64_t rel = (uint64_t)v - (uint64_t)lo;
    return rel < (uint64_t)ext ? (int64_t)rel : -1;
}

static ItpVal zero(TlDType dt)
{
    ItpVal v;
    if (dt_is_float(dt))
        v.f = 0.0;
    else
        v.i = 0;
    return v;
}

int itp_read1(ItpFrame *F, ItpNode *n, ItpVal *out)
{
    ItpRead *rd = n->rd;
    ItpSlot *sl = &F->slots[rd->slot];
    const TlTensor *t = sl->t;
    int64_t idx[TL_MAX_RANK], off = 0;

    TL_ASSERT(t && sl->done);
    for (int j = 0; j < rd->rank; j++) {
        ItpVal v;
        if (itp_eval1(F, rd->idx[j], &v))
            return -1;
        idx[j] = v.i;
    }
    for (int j = 0; j < rd->rank; j++) {
        int64_t rel = rel_index(idx[j], sl->lo[j], sl->ext[j]);
        if (rel < 0) {
            if (rd->mode == READ_ZERO_PAD) {
                *out = zero(n->dt);
                return 0;
            }
            if (rd->mode != READ_CLAMP_EDGE || sl->ext[j] == 0) {
                if (!F->quiet)
                    report_oob(F, n, idx, j);
                return -1;
            }
            rel = idx[j] < sl->lo[j] ? 0 : sl->ext[j] - 1;
        }
        off += rel * t->strides[j];
    }
    *out = itp_load(t->dtype, (const char *)t->data +
                                  off * dt_size(t->dtype));
    return 0;
}

/* ====================================================================
 * Affine indices
 * ==================================================================== */

static int fits(TlDType dt, int64_t v)
{
    switch (dt) {
    case DT_U8: return v >= 0 && v <= UINT8_MAX;
    case DT_I8: return v >= INT8_MIN && v <= INT8_MAX;
    case DT_I16: return v >= INT16_MIN && v <= INT16_MAX;
    case DT_I32: return v >= INT32_MIN && v <= INT32_MAX;
    case DT_U16: return v >= 0 && v <= UINT16_MAX;
    case DT_U32: return v >= 0 && v <= UINT32_MAX;
    default: return 1;
    }
}

/* b + c * lane holds at both ends of the row without wrapping. */
static int ends_fit(ItpFrame *F, TlDType dt, int64_t b, int64_t c)
{
    int64_t cl, e;

    if (__builtin_mul_overflow(c, (int64_t)(F->n - 1), &cl) ||
        __builtin_add_overflow(b, cl, &e))
        return 0;
    return fits(dt, b) && fits(dt, e);
}

int itp_affine(ItpFrame *F, ItpNode *n, int64_t *b, int64_t *c)
{
    ItpNode *var, *uni;
    ItpVal u;
    int64_t vb, vc, nb, nc;
    int r;

    switch (n->op) {
    case I_ROWVAR:
        nb = F->row0;
        nc = 1;
        break;
    case I_CAST:
        if ((r = itp_affine(F, n->a, &nb, &nc)))
            return r;
        break;
    case I_NEG:
        if ((r = itp_affine(F, n->a, &vb, &vc)))
            return r;
        if (__builtin_sub_overflow((int64_t)0, vb, &nb) ||
            __builtin_sub_overflow((int64_t)0, vc, &nc))
            return 1;
        break;
    case I_ADD:
    case I_SUB:
    case I_MUL:
        var = n->a->affine && !n->b->vary ? n->a : n->b;
        uni = var == n->a ? n->b : n->a;
        if ((r = itp_affine(F, var, &vb, &vc)))
            return r;
        if (itp_eval1(F, uni, &u))
            return -1;
        if (n->op == I_MUL) {
            if (__builtin_mul_overflow(vb, u.i, &nb) ||
                __builtin_mul_overflow(vc, u.i, &nc))
                return 1;
        } else if (n->op == I_ADD) {
            nc = vc;
            if (__builtin_add_overflow(vb, u.i, &nb))
                return 1;
        } else if (var == n->a) {       /* v - u */
            nc = vc;
            if (__builtin_sub_overflow(vb, u.i, &nb))
                return 1;
        } else {                        /* u - v */
            if (__builtin_sub_overflow(u.i, vb, &nb) ||
                __builtin_sub_overflow((int64_t)0, vc, &nc))
                return 1;
        }
        break;
    default:
        tl_unreachable();
    }
    if (!ends_fit(F, n->dt, nb, nc))
        return 1;
    *b = nb;
    *c = nc;
    return 0;
}

/* ====================================================================
 * Rows
 * ==================================================================== */

static int64_t div_floor(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t div_ceil(int64_t a, int64_t b)
{
    return -div_floor(-a, b);
}

/* Narrows [*l0, *l1] to the lanes l where lo <= b + c*l < lo + ext;
 * -1 when that cannot be computed without overflowing. */
static int inside_lanes(int64_t b, int64_t c, int64_t lo, int64_t ext,
                        int64_t *l0, int64_t *l1)
{
    int64_t first, last, d0, d1;

    if (c == 0) {
        if (rel_index(b, lo, ext) < 0)
            *l1 = *l0 - 1;
        return 0;
    }
    if (ext <= 0) {
        *l1 = *l0 - 1;
        return 0;
    }
    /* lo - b <= c*l <= lo + ext - 1 - b */
    if (__builtin_sub_overflow(lo, b, &d0) ||
        __builtin_add_overflow(d0, ext - 1, &d1))
        return -1;
    if (c > 0) {
        first = div_ceil(d0, c);
        last = div_floor(d1, c);
    } else {
        first = div_ceil(d1, c);
        last = div_floor(d0, c);
    }
    if (first > *l0)
        *l0 = first;
    if (last < *l1)
        *l1 = last;
    return 0;
}

/* n elements of dtype dt from p, `step` elements apart. */
static void load_strided(TlDType dt, const char *restrict p, int64_t step,
                         int n, ItpVal *restrict out)
{
    int es = dt_size(dt);

    switch (dt) {
    case DT_F32: {
        const float *q = (const float *)(const void *)p;
        if (step == 1)
            for (int l = 0; l < n; l++)
                out[l].f = q[l];
        else
            for (int l = 0; l < n; l++)
                out[l].f = q[l * step];
        return;
    }
    case DT_F64: {
        const double *q = (const double *)(const void *)p;
        for (int l = 0; l < n; l++)
            out[l].f = q[l * step];
        return;
    }
    case DT_I32: {
        const int32_t *q = (const int32_t *)(const void *)p;
        for (int l = 0; l < n; l++)
            out[l].i = q[l * step];
        return;
    }
    case DT_I64: {
        const int64_t *q = (const int64_t *)(const void *)p;
        for (int l = 0; l < n; l++)
            out[l].i = q[l * step];
        return;
    }
    default:
        for (int l = 0; l < n; l++)
            out[l] = itp_load(dt, p + (int64_t)l * step * es);
        return;
    }
}

/* A read affine in every axis: the lanes l0..l1 inside the domain are
 * one strided load (masked lanes inside load too, harmlessly), and
 * with zero_pad the others are 0.  0 when the lanes must go one by one
 * (lanes outside a plain or clamp_edge read, or arithmetic that would
 * overflow). */
static int affine_load(ItpNode *n, const ItpSlot *sl, const int64_t *b,
                       const int64_t *c, int N)
{
    const ItpRead *rd = n->rd;
    const TlTensor *t = sl->t;
    int64_t l0 = 0, l1 = N - 1, off = 0, step = 0;
    ItpVal z = zero(n->dt);

    for (int j = 0; j < rd->rank && l0 <= l1; j++)
        if (inside_lanes(b[j], c[j], sl->lo[j], sl->ext[j], &l0, &l1))
            return 0;
    if (rd->mode != READ_ZERO_PAD && (l0 != 0 || l1 != N - 1))
        return 0;
    for (int64_t l = 0; l < N && l < l0; l++)
        n->buf[l] = z;
    for (int64_t l = l1 + 1 > 0 ? l1 + 1 : 0; l < N; l++)
        n->buf[l] = z;
    if (l0 > l1)
        return 1;
    for (int j = 0; j < rd->rank; j++) {
        off += (b[j] + c[j] * l0 - sl->lo[j]) * t->strides[j];
        if (l1 > l0)
            step += c[j] * t->strides[j];
    }
    load_strided(t->dtype, (const char *)t->data + off * dt_size(t->dtype),
                 step, (int)(l1 - l0 + 1), n->buf + l0);
    return 1;
}

int itp_read_row(ItpFrame *F, ItpNode *n, const uint8_t *mask)
{
    ItpRead *rd = n->rd;
    ItpSlot *sl = &F->slots[rd->slot];
    const TlTensor *t = sl->t;
    const char *data = t->data;
    int64_t b[TL_MAX_RANK], c[TL_MAX_RANK];
    const ItpVal *gen[TL_MAX_RANK];
    int es = dt_size(t->dtype), ngen = 0, N = F->n;
    ItpVal *out = n->buf, z = zero(n->dt);

    TL_ASSERT(sl->done && t->dtype == n->dt);
    for (int j = 0; j < rd->rank; j++) {
        ItpNode *x = rd->idx[j];
        ItpVal v;
        int r = 1;
        gen[j] = NULL;
        c[j] = 0;
        if (!x->vary) {
            if (itp_eval1(F, x, &v))
                return -1;
            b[j] = v.i;
            /* clamp_edge: a uniform index clamps once for the row. */
            if (rd->mode == READ_CLAMP_EDGE && sl->ext[j] > 0 &&
                rel_index(b[j], sl->lo[j], sl->ext[j]) < 0)
                b[j] = b[j] < sl->lo[j] ? sl->lo[j]
                                        : sl->lo[j] + sl->ext[j] - 1;
            continue;
        }
        if (x->affine && (r = itp_affine(F, x, &b[j], &c[j])) < 0)
            return -1;
        if (r) {
            if (itp_eval_row(F, x, mask))
                return -1;
            gen[j] = x->buf;
            ngen++;
        }
    }
    if (!ngen && affine_load(n, sl, b, c, N))
        return 0;
    for (int l = 0; l < N; l++) {
        int64_t off = 0;
        int outside = 0;
        if (mask && !mask[l]) {
            out[l] = z;
            continue;
        }
        for (int j = 0; j < rd->rank; j++) {
            int64_t v = gen[j] ? gen[j][l].i : b[j] + c[j] * l;
            int64_t rel = rel_index(v, sl->lo[j], sl->ext[j]);
            if (rel < 0) {
                if (rd->mode == READ_ZERO_PAD) {
                    outside = 1;
                    break;
                }
                if (rd->mode != READ_CLAMP_EDGE || sl->ext[j] == 0)
                    return -1;
                rel = v < sl->lo[j] ? 0 : sl->ext[j] - 1;
            }
            off += rel * t->strides[j];
        }
        out[l] = outside ? z : itp_load(t->dtype, data + off * es);
    }
    return 0;
}
