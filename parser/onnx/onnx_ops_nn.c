/*
 * onnx_ops_nn.c - ONNX ops that move or reduce data: MatMul, Gemm,
 * Softmax/LogSoftmax, Transpose, Reshape/Flatten/Squeeze/Unsqueeze,
 * Concat, the Reduce* family, ArgMax/ArgMin, and Shape/Size (folded to
 * constants); Conv, pools and BatchNormalization are in
 * onnx_ops_conv.c, MatMul's integer and quantized forms in
 * onnx_ops_quant.c (through ox_matmul_geometry).  Each writes explicit
 * stages with the index arithmetic spelled out, over the concrete
 * shapes found at import.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int norm_axis(OxModel *m, int64_t a, int rank)
{
    if (a < -rank || a >= (rank ? rank : 1)) {
        ox_unsupported(m, "axis %lld is out of range for rank %d",
                       (long long)a, rank);
        return -1;
    }
    return (int)(a < 0 ? a + rank : a);
}

/* --------------------------------------------------------------------
 * Reshapes: y reads x at the element with the same row-major position.
 * -------------------------------------------------------------------- */

static int emit_reshape(OxModel *m, OxValue *x, int rank,
                        const int64_t *dims)
{
    OxValue *y;
    OxIdx idx[TL_MAX_RANK];
    int xa[TL_MAX_RANK], ya[TL_MAX_RANK], nx = 0, ny = 0;
    int64_t n = 1;

    for (int i = 0; i < rank; i++)
        n *= dims[i];
    if (n != ox_numel(x)) {
        ox_unsupported(m, "cannot reshape %lld elements into %lld",
                       (long long)ox_numel(x), (long long)n);
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, rank);
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] != 1)
            xa[nx++] = i;
    for (int i = 0; i < rank; i++)
        if (dims[i] != 1)
            ya[ny++] = i;
    int same = nx == ny;
    for (int i = 0; same && i < nx; i++)
        same = x->dims[xa[i]] == dims[ya[i]];
    if (same) {
        /* only axes of 1 come and go */
        for (int i = 0; i < x->rank; i++)
            strcpy(idx[i], "0");
        for (int i = 0; i < nx; i++)
            snprintf(idx[xa[i]], sizeof idx[0], "i%d", ya[i]);
    } else {
        TlBuf flat;
        int64_t st = 1;
        buf_init(&flat);
        for (int i = rank - 1; i >= 0; i--) {
            if (dims[i] == 1)
                continue;
            if (flat.len)
                buf_puts(&flat, " + ");
            if (st == 1)
                buf_printf(&flat, "i%d", i);
            else
                buf_printf(&flat, "i%d * %lld", i, (long long)st);
            st *= dims[i];
        }
        if (!flat.len)
            buf_putc(&flat, '0');
        st = 1;
        for (int i = x->rank - 1; i >= 0; i--) {
            if (x->dims[i] == 1)
                strcpy(idx[i], "0");
            else if (st == 1 && i == 0)
                snprintf(idx[i], sizeof idx[0], "%s", flat.s);
            else if (st == 1)
                snprintf(idx[i], sizeof idx[0], "(%s) %% %lld", flat.s,
                         (long long)x->dims[i]);
            else if (i == 0)
                snprintf(idx[i], sizeof idx[0], "(%s) / %lld", flat.s,
                         (long long)st);
            else
                snprintf(idx[i], sizeof idx[0], "(%s) / %lld %% %lld",
                         flat.s, (long long)st, (long long)x->dims[i]);
            st *= x->dims[i];
        }
        buf_free(&flat);
        if (strlen(idx[0]) >= sizeof idx[0] - 2) {
            ox_unsupported(m, "the reshape is too complex");
            return -1;
        }
    }
    ox_read(&m->body, x, idx);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_reshape(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *s;
    int64_t sh[TL_MAX_RANK], known = 1, n;
    int rank, infer = -1;

    if (!x)
        return -1;
    if (m->opset < 5) {
        rank = ox_attr_ints(m, "shape", sh, TL_MAX_RANK);
        if (rank < 0) {
            ox_unsupported(m, "no 'shape' attribute");
            return -1;
        }
    } else {
        if (!(s = ox_need_in(m, 1)) ||
            (rank = ox_const_ints(m, s, sh, TL_MAX_RANK)) < 0)
            return -1;
    }
    for (int i = 0; i < rank; i++) {
        if (sh[i] == 0 && !ox_attr_i(m, "allowzero", 0)) {
            if (i >= x->rank) {
                ox_unsupported(m, "shape entry %d is 0 beyond the input's "
                               "rank", i);
                return -1;
            }
            sh[i] = x->dims[i];
        }
        if (sh[i] == -1) {
            if (infer >= 0) {
                ox_unsupported(m, "two -1 entries in the shape");
                return -1;
            }
            infer = i;
        } else if (sh[i] < 0) {
            ox_unsupported(m, "negative shape entry %lld", (long long)sh[i]);
            return -1;
        } else {
            known *= sh[i];
        }
    }
    n = ox_numel(x);
    if (infer >= 0)
        sh[infer] = known ? n / known : 0;
    return emit_reshape(m, x, rank, sh);
}

static int op_flatten(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0);
    int64_t d[2] = {1, 1};
    int a;

    int64_t ax;

    if (!x)
        return -1;
    ax = ox_attr_i(m, "axis", 1);
    if (ax < 0)
        ax += x->rank;
    if ((a = norm_axis(m, ax, x->rank + 1)) < 0)
        return -1;
    for (int i = 0; i < x->rank; i++)
        d[i < a] *= x->dims[i];
    /* d[1] is the part before the axis */
    int64_t out[2] = {d[1], d[0]};
    return emit_reshape(m, x, 2, out);
}

/* Axes from the attribute (before opset 13) or input 1. */
static int get_axes(OxModel *m, int from_input, int64_t *axes)
{
    OxValue *a;

    if (!from_input)
        return ox_attr_ints(m, "axes", axes, TL_MAX_RANK);
    if (!(a = ox_in(m, 1)))
        return -1;
    return ox_const_ints(m, a, axes, TL_MAX_RANK);
}

static int op_squeeze(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0);
    int64_t axes[TL_MAX_RANK], dims[TL_MAX_RANK];
    int n, drop[TL_MAX_RANK] = {0}, rank = 0;

    if (!x)
        return -1;
    n = get_axes(m, m->opset >= 13, axes);
    if (m->error)
        return -1;
    for (int i = 0; i < n; i++) {
        int a = norm_axis(m, axes[i], x->rank);
        if (a < 0)
            return -1;
        drop[a] = 1;
    }
    for (int i = 0; i < x->rank; i++)
        if (n < 0 ? x->dims[i] != 1 : !drop[i])
            dims[rank++] = x->dims[i];
    return emit_reshape(m, x, rank, dims);
}

static int op_unsqueeze(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0);
    int64_t axes[TL_MAX_RANK], dims[TL_MAX_RANK];
    int n, add[TL_MAX_RANK] = {0}, rank, k = 0;

    if (!x)
        return -1;
    n = get_axes(m, m->opset >= 13, axes);
    if (m->error)
        return -1;
    if (n < 0 || (rank = x->rank + n) > TL_MAX_RANK) {
        ox_unsupported(m, "needs axes (and at most rank %d)", TL_MAX_RANK);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int a = norm_axis(m, axes[i], rank);
        if (a < 0)
            return -1;
        add[a] = 1;
    }
    for (int i = 0; i < rank; i++)
        dims[i] = add[i] ? 1 : x->dims[k++];
    return emit_reshape(m, x, rank, dims);
}

/* Identity-like: Dropout at inference (the mask, if asked, is all
 * true), or with a ratio of 0.  In training mode it draws
 * (onnx_ops_random.c): training_mode true, or (opset 1 to 6) is_test
 * 0; one not known at import (an input) decides when the model runs. */
static int op_dropout(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y, *mask;
    OxIdx idx[TL_MAX_RANK];
    OxValue *ratio = m->opset >= 12 ? ox_in(m, 1) : NULL;
    OxValue *train = m->opset >= 12 ? ox_in(m, 2) : NULL;
    double r = ox_attr_f(m, "ratio", 0.5);
    int training = train != NULL;

    if (!x)
        return -1;
    /* Before opset 7 is_test chose inference, by default training;
     * from 7 to 11 Dropout is inference only. */
    if (m->opset < 7 && !ox_attr_i(m, "is_test", 0))
        training = 1;
    ox_attr_ignore(m, "is_test");
    ox_attr_ignore(m, "consumed_inputs");
    if (train && train->cval && train->rank == 0) {
        training = tl_tensor_get_i64(train->cval, NULL) != 0;
        train = NULL;
    }
    if (ratio && ratio->cval && ratio->rank == 0) {
        r = tl_tensor_get_f64(ratio->cval, NULL);
        ratio = NULL;
    }
    /* A ratio of 0 keeps every element, as inference does. */
    if (training && (ratio || r != 0))
        return ox_dropout_training(m, x, ratio, r, train);
    ox_attr_ignore(m, "seed");
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    for (int i = 0; i < x->rank; i++)
        snprintf(idx[i], sizeof idx[0], "i%d", i);
    ox_read(&m->body, x, idx);
    buf_putc(&m->body, '\n');
    if (m->node->n_output > 1 && *m->node->output[1]) {
        if (!(mask = ox_out(m, 1, DT_BOOL, x->rank, x->dims)))
            return -1;
        ox_lhs(&m->body, mask->id, x->rank);
        buf_puts(&m->body, "true\n");
    }
    return 0;
}

static int op_transpose(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t perm[TL_MAX_RANK], dims[TL_MAX_RANK];
    OxIdx idx[TL_MAX_RANK];
    int n, seen[TL_MAX_RANK] = {0};

    if (!x)
        return -1;
    n = ox_attr_ints(m, "perm", perm, TL_MAX_RANK);
    if (n == -2)
        return -1;
    if (n < 0) {
        n = x->rank;
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
    }
    if (n != x->rank) {
        ox_unsupported(m, "perm has %d entries for rank %d", n, x->rank);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]]++) {
            ox_unsupported(m, "perm is not a permutation");
            return -1;
        }
        dims[i] = x->dims[perm[i]];
        snprintf(idx[perm[i]], sizeof idx[0], "i%d", i);
    }
    if (!(y = ox_out(m, 0, x->dt, n, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, n);
    ox_read(&m->body, x, idx);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_concat(OxModel *m)
{
    int n = (int)m->node->n_input, a;
    OxValue *in[32], *y;
    int64_t dims[TL_MAX_RANK], off[33];
    OxIdx idx[TL_MAX_RANK];
    int k = 0;

    if (n < 1 || n > 32) {
        ox_unsupported(m, "%d inputs (1 to 32 are supported)", n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!(in[i] = ox_need_in(m, i)))
            return -1;
    if ((a = norm_axis(m, ox_attr_i(m, "axis", 0), in[0]->rank)) < 0)
        return -1;
    if (in[0]->rank == 0) {
        ox_unsupported(m, "inputs of rank 0");
        return -1;
    }
    memcpy(dims, in[0]->dims, sizeof dims);
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        if (in[i]->rank != in[0]->rank) {
            ox_unsupported(m, "inputs of different ranks");
            return -1;
        }
        off[i + 1] = off[i] + in[i]->dims[a];
    }
    dims[a] = off[n];
    if (!(y = ox_out(m, 0, in[0]->dt, in[0]->rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, y->rank);
    for (int i = 0; i < n; i++) {
        if (!in[i]->dims[a])
            continue;
        k++;
        for (int j = 0; j < y->rank; j++)
            snprintf(idx[j], sizeof idx[0], "i%d", j);
        if (off[i])
            snprintf(idx[a], sizeof idx[0], "i%d - %lld", a,
                     (long long)off[i]);
        if (off[i + 1] < off[n])
            buf_printf(&m->body, "select(i%d < %lld, ", a,
                       (long long)off[i + 1]);
        /* (the inputs' extents are what Concat is about: each is
         * read directly, at its natural domain) */
        in[i]->used = 1;
        buf_printf(&m->body, "%s.clamp_edge[", in[i]->id);
        for (int j = 0; j < in[i]->rank; j++)
            buf_printf(&m->body, "%s%s", j ? ", " : "", idx[j]);
        buf_putc(&m->body, ']');
        if (off[i + 1] < off[n])
            buf_puts(&m->body, ", ");
    }
    if (!k)
        buf_printf(&m->body, "%s(0)", dt_name(y->dt));
    for (int i = 0; i < n; i++)
        if (in[i]->dims[a] && off[i + 1] < off[n])
            buf_putc(&m->body, ')');
    buf_putc(&m->body, '\n');
    return 0;
}

/* --------------------------------------------------------------------
 * Reductions
 * -------------------------------------------------------------------- */

/* Writes "OP(r0 in 0..D, ...) " for the axes in red[], and fills idx
 * with the reading index of x: reduced axes their r variable, the
 * others the output's variables (keep: same position, else packed). */
static void red_head(TlBuf *b, const char *op, OxValue *x, const int *red,
                     int keep, OxIdx *idx)
{
    int k = 0, o = 0;

    buf_printf(b, "%s(", op);
    for (int i = 0; i < x->rank; i++) {
        if (red[i]) {
            buf_printf(b, "%sr%d in 0..%lld", k ? ", " : "", k,
                       (long long)x->dims[i]);
            snprintf(idx[i], sizeof idx[0], "r%d", k++);
            if (keep)
                o++;
        } else {
            snprintf(idx[i], sizeof idx[0], "i%d", o++);
        }
    }
    buf_puts(b, ") ");
}

static int op_reduce(OxModel *m)
{
    const char *op = m->node->op_type + strlen("Reduce");
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t axes[TL_MAX_RANK], dims[TL_MAX_RANK], count = 1;
    int n, red[TL_MAX_RANK] = {0}, keep, rank = 0;
    OxIdx idx[TL_MAX_RANK];
    TlBuf *b = &m->body;
    const char *T;

    if (!x)
        return -1;
    keep = (int)ox_attr_i(m, "keepdims", 1);
    n = get_axes(m, !strcmp(op, "Sum") ? m->opset >= 13 : m->opset >= 18,
                 axes);
    if (m->error)
        return -1;
    if (n <= 0 && ox_attr_i(m, "noop_with_empty_axes", 0))
        return emit_reshape(m, x, x->rank, x->dims);
    for (int i = 0; i < n; i++) {
        int a = norm_axis(m, axes[i], x->rank);
        if (a < 0)
            return -1;
        red[a] = 1;
    }
    for (int i = 0; i < x->rank; i++) {
        if (n <= 0)
            red[i] = 1;
        if (red[i])
            count *= x->dims[i];
        if (!red[i] || keep)
            dims[rank++] = red[i] ? 1 : x->dims[i];
    }
    if (x->dt == DT_BOOL) {
        ox_unsupported(m, "bool inputs");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, rank, dims)))
        return -1;
    T = dt_name(x->dt);
    ox_comment(m);
    ox_lhs(&m->body, y->id, rank);
    if (!strcmp(op, "Max") || !strcmp(op, "Min") || !strcmp(op, "Prod")) {
        red_head(b, !strcmp(op, "Max") ? "max" : !strcmp(op, "Min")
                    ? "min" : "prod", x, red, keep, idx);
        ox_read(b, x, idx);
    } else if (!strcmp(op, "Sum") || !strcmp(op, "Mean") ||
               !strcmp(op, "L1") || !strcmp(op, "SumSquare")) {
        if (!strcmp(op, "Mean"))
            buf_putc(b, '(');
        red_head(b, "sum", x, red, keep, idx);
        if (!strcmp(op, "L1")) {
            buf_puts(b, "abs(");
            ox_read(b, x, idx);
            buf_putc(b, ')');
        } else {
            ox_read(b, x, idx);
            if (!strcmp(op, "SumSquare")) {
                buf_puts(b, " * ");
                ox_read(b, x, idx);
            }
        }
        if (!strcmp(op, "Mean"))
            buf_printf(b, ") / %s(%lld)", T, (long long)count);
    } else if (!strcmp(op, "L2") || !strcmp(op, "LogSum") ||
               !strcmp(op, "LogSumExp")) {
        if (!dt_is_float(x->dt))
            buf_printf(b, "%s(", T);
        buf_puts(b, !strcmp(op, "L2") ? "sqrt(" : "log(");
        red_head(b, "sum", x, red, keep, idx);
        if (!strcmp(op, "LogSumExp"))
            buf_puts(b, "exp(");
        ox_read(b, x, idx);
        if (!strcmp(op, "L2")) {
            buf_puts(b, " * ");
            ox_read(b, x, idx);
        }
        if (!strcmp(op, "LogSumExp"))
            buf_putc(b, ')');
        buf_putc(b, ')');
        if (!dt_is_float(x->dt))
            buf_putc(b, ')');
    } else {
        TL_ASSERT(0);
    }
    buf_putc(b, '\n');
    return 0;
}

static int op_argmax(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int a, keep, last, rank = 0, red[TL_MAX_RANK] = {0};
    int64_t dims[TL_MAX_RANK], d;
    OxIdx idx[TL_MAX_RANK];
    TlBuf *b = &m->body;
    const char *op = !strcmp(m->node->op_type, "ArgMax") ? "argmax"
                                                         : "argmin";

    if (!x || (a = norm_axis(m, ox_attr_i(m, "axis", 0), x->rank)) < 0)
        return -1;
    if (x->rank == 0 || x->dt == DT_BOOL) {
        ox_unsupported(m, "rank-0 or bool input");
        return -1;
    }
    keep = (int)ox_attr_i(m, "keepdims", 1);
    last = (int)ox_attr_i(m, "select_last_index", 0);
    red[a] = 1;
    for (int i = 0; i < x->rank; i++)
        if (i != a || keep)
            dims[rank++] = i == a ? 1 : x->dims[i];
    if (!(y = ox_out(m, 0, DT_I64, rank, dims)))
        return -1;
    d = x->dims[a];
    /* The position of the largest of nothing: ONNX gives no value
     * (nor does the language: RT_EMPTY_ARG_REDUCE), so such a model
     * has no result to import. */
    if (!d && ox_numel(y)) {
        ox_unsupported(m, "axis %d of '%s' is empty, so %s has no value "
                       "there", a, x->name, m->node->op_type);
        return -1;
    }
    ox_comment(m);
    ox_lhs(&m->body, y->id, rank);
    if (last)
        buf_printf(b, "%lld - (", (long long)(d - 1));
    red_head(b, op, x, red, keep, idx);
    if (last)
        snprintf(idx[a], sizeof idx[0], "%lld - r0", (long long)(d - 1));
    ox_read(b, x, idx);
    if (last)
        buf_putc(b, ')');
    buf_putc(b, '\n');
    return 0;
}

/* Writes names[0..n) separated by commas. */
static void put_idx(TlBuf *b, OxIdx *names, int n)
{
    for (int i = 0; i < n; i++)
        buf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

/* Writes the ranges "r0 in 0..N, .." of x's axes where red is set. */
static void put_ranges(TlBuf *b, const OxValue *x, const int *red)
{
    for (int i = 0, r = 0; i < x->rank; i++)
        if (red[i]) {
            buf_printf(b, "%sr%d in 0..%lld", r ? ", " : "", r,
                       (long long)x->dims[i]);
            r++;
        }
}

/* The index of x inside a reduction over the axes where red is set:
 * r0.. for those, i0.. for the kept ones, each in order. */
static void reduce_axes(const OxValue *x, const int *red, OxIdx *idx)
{
    for (int i = 0, r = 0, k = 0; i < x->rank; i++)
        if (red[i])
            snprintf(idx[i], sizeof idx[0], "r%d", r++);
        else
            snprintf(idx[i], sizeof idx[0], "i%d", k++);
}

/* Softmax and LogSoftmax: before opset 13 over the axes from `axis`
 * on (the input flattened to 2-D), from 13 over the one axis. */
static int op_softmax(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int opset13 = m->opset >= 13, a, red[TL_MAX_RANK] = {0}, kr = 0;
    int logsm = !strcmp(m->node->op_type, "LogSoftmax");
    OxIdx idx[TL_MAX_RANK], kidx[TL_MAX_RANK], full[TL_MAX_RANK];
    TlBuf *b = &m->body;
    char *mx, *ex, *sm, tmp[200];

    if (!x)
        return -1;
    if (!dt_is_float(x->dt) || x->rank == 0) {
        ox_unsupported(m, "needs a float input of rank 1 or more");
        return -1;
    }
    a = norm_axis(m, ox_attr_i(m, "axis", opset13 ? -1 : 1), x->rank);
    if (a < 0)
        return -1;
    for (int i = 0; i < x->rank; i++) {
        red[i] = opset13 ? i == a : i >= a;
        snprintf(full[i], sizeof full[0], "i%d", i);
        if (!red[i])
            snprintf(kidx[kr++], sizeof kidx[0], "i%d", i);
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    snprintf(tmp, sizeof tmp, "%s_max", y->name);
    mx = ox_ident(m, tmp);
    snprintf(tmp, sizeof tmp, "%s_exp", y->name);
    ex = ox_ident(m, tmp);
    snprintf(tmp, sizeof tmp, "%s_sum", y->name);
    sm = ox_ident(m, tmp);
    ox_comment(m);
    /* mx and sm over the kept axes (named i0.. in order), ex over the
     * full shape */
    reduce_axes(x, red, idx);
    buf_printf(b, "    %s[", mx);
    put_idx(b, full, kr);
    buf_puts(b, "] = max(");
    put_ranges(b, x, red);
    buf_puts(b, ") ");
    ox_read(b, x, idx);
    buf_printf(b, "\n    %s[", ex);
    put_idx(b, full, x->rank);
    buf_puts(b, "] = exp(");
    ox_read(b, x, full);
    buf_printf(b, " - %s[", mx);
    put_idx(b, kidx, kr);
    buf_printf(b, "])\n    %s[", sm);
    put_idx(b, full, kr);
    buf_puts(b, "] = sum(");
    put_ranges(b, x, red);
    buf_printf(b, ") %s[", ex);
    put_idx(b, idx, x->rank);
    buf_puts(b, "]\n");
    ox_lhs(&m->body, y->id, x->rank);
    if (logsm) {
        ox_read(b, x, full);
        buf_printf(b, " - %s[", mx);
    } else {
        buf_printf(b, "%s[", ex);
        put_idx(b, full, x->rank);
        buf_printf(b, "] / %s[", sm);
    }
    put_idx(b, kidx, kr);
    buf_putc(b, ']');
    if (logsm) {
        buf_printf(b, " - log(%s[", sm);
        put_idx(b, kidx, kr);
        buf_puts(b, "])");
    }
    buf_putc(b, '\n');
    return 0;
}

/* --------------------------------------------------------------------
 * Products
 * -------------------------------------------------------------------- */

int ox_matmul_geometry(OxModel *m, OxValue *a, OxValue *bv, OxMatMul *g)
{
    OxValue ab, bb;
    int br = 0;

    if (a->rank == 0 || bv->rank == 0) {
        ox_unsupported(m, "rank-0 operands");
        return -1;
    }
    g->k = a->dims[a->rank - 1];
    if (bv->dims[bv->rank > 1 ? bv->rank - 2 : 0] != g->k) {
        ox_unsupported(m, "inner sizes differ");
        return -1;
    }
    /* batch dims: broadcast of the leading axes */
    memset(&ab, 0, sizeof ab);
    memset(&bb, 0, sizeof bb);
    ab.name = a->name;
    bb.name = bv->name;
    ab.rank = a->rank > 2 ? a->rank - 2 : 0;
    bb.rank = bv->rank > 2 ? bv->rank - 2 : 0;
    memcpy(ab.dims, a->dims, sizeof ab.dims);
    memcpy(bb.dims, bv->dims, sizeof bb.dims);
    if (ox_broadcast(m, &ab, &bb, &br, g->dims) < 0)
        return -1;
    g->rank = br;
    if (a->rank > 1)
        g->dims[g->rank++] = a->dims[a->rank - 2];
    if (bv->rank > 1)
        g->dims[g->rank++] = bv->dims[bv->rank - 1];
    for (int i = 0; i < ab.rank; i++) {
        int o = i + br - ab.rank;
        if (ab.dims[i] == 1 && g->dims[o] != 1)
            strcpy(g->ia[i], "0");
        else
            snprintf(g->ia[i], sizeof g->ia[0], "i%d", o);
    }
    for (int i = 0; i < bb.rank; i++) {
        int o = i + br - bb.rank;
        if (bb.dims[i] == 1 && g->dims[o] != 1)
            strcpy(g->ib[i], "0");
        else
            snprintf(g->ib[i], sizeof g->ib[0], "i%d", o);
    }
    g->row = g->col = -1;
    if (a->rank > 1) {
        snprintf(g->ia[a->rank - 2], sizeof g->ia[0], "i%d", br);
        strcpy(g->ia[a->rank - 1], "r0");
        g->row = br;
    } else {
        strcpy(g->ia[0], "r0");
    }
    if (bv->rank > 1) {
        strcpy(g->ib[bv->rank - 2], "r0");
        snprintf(g->ib[bv->rank - 1], sizeof g->ib[0], "i%d", g->rank - 1);
        g->col = g->rank - 1;
    } else {
        strcpy(g->ib[0], "r0");
    }
    return 0;
}

static int op_matmul(OxModel *m)
{
    OxValue *a = ox_need_in(m, 0), *bv = ox_need_in(m, 1), *y;
    OxMatMul g;
    TlBuf *b = &m->body;

    if (!a || !bv || ox_matmul_geometry(m, a, bv, &g) < 0)
        return -1;
    if (!(y = ox_out(m, 0, a->dt, g.rank, g.dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, g.rank);
    buf_printf(b, "sum(r0 in 0..%lld) ", (long long)g.k);
    ox_read(b, a, g.ia);
    buf_puts(b, " * ");
    ox_read(b, bv, g.ib);
    buf_putc(b, '\n');
    return 0;
}

static int op_gemm(OxModel *m)
{
    OxValue *a = ox_need_in(m, 0), *bv = ox_need_in(m, 1), *c = ox_in(m, 2), *y;
    int ta = (int)ox_attr_i(m, "transA", 0);
    int tb = (int)ox_attr_i(m, "transB", 0);
    double alpha = ox_attr_f(m, "alpha", 1.0), beta = ox_attr_f(m, "beta", 1.0);
    int64_t dims[2], k;
    OxIdx ia[2], ib[2];
    TlBuf *b = &m->body;
    const char *T;

    if (!a || !bv)
        return -1;
    /* Before opset 7, broadcast = 1 allowed C to broadcast, as it
     * always may since. */
    ox_attr_ignore(m, "broadcast");
    if (a->rank != 2 || bv->rank != 2) {
        ox_unsupported(m, "operands must be matrices");
        return -1;
    }
    dims[0] = a->dims[ta ? 1 : 0];
    dims[1] = bv->dims[tb ? 0 : 1];
    k = a->dims[ta ? 0 : 1];
    if (bv->dims[tb ? 1 : 0] != k) {
        ox_unsupported(m, "inner sizes differ");
        return -1;
    }
    if (!(y = ox_out(m, 0, a->dt, 2, dims)))
        return -1;
    T = dt_name(a->dt);
    strcpy(ia[ta ? 1 : 0], "i0");
    strcpy(ia[ta ? 0 : 1], "r0");
    strcpy(ib[tb ? 0 : 1], "i1");
    strcpy(ib[tb ? 1 : 0], "r0");
    if (c && c->rank > 2) {
        ox_unsupported(m, "C has rank %d", c->rank);
        return -1;
    }
    ox_comment(m);
    ox_lhs(&m->body, y->id, 2);
    /* the reduction extends to the right: parenthesise it when a term
     * follows */
    int paren = alpha != 1.0 || (c && beta != 0.0);
    if (alpha != 1.0) {
        buf_printf(b, "%s(", T);
        ox_float_lit(b, alpha);
        buf_puts(b, ") * ");
    }
    if (paren)
        buf_putc(b, '(');
    buf_printf(b, "sum(r0 in 0..%lld) ", (long long)k);
    ox_read(b, a, ia);
    buf_puts(b, " * ");
    ox_read(b, bv, ib);
    if (paren)
        buf_putc(b, ')');
    if (c && beta != 0.0) {
        buf_puts(b, " + ");
        if (beta != 1.0) {
            buf_printf(b, "%s(", T);
            ox_float_lit(b, beta);
            buf_puts(b, ") * ");
        }
        ox_read_bcast(b, c, 2, dims);
    }
    buf_putc(b, '\n');
    return 0;
}

static int op_shape(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t n, start, end;
    TlTensor *t;
    char err[200];

    if (!x)
        return -1;
    if (!strcmp(m->node->op_type, "Size")) {
        t = tl_tensor_new(DT_I64, 0, NULL, err, sizeof err);
        *(int64_t *)t->data = ox_numel(x);
    } else {
        start = ox_attr_i(m, "start", 0);
        end = ox_attr_i(m, "end", x->rank);
        if (start < 0)
            start += x->rank;
        if (end < 0)
            end += x->rank;
        start = start < 0 ? 0 : start > x->rank ? x->rank : start;
        end = end < 0 ? 0 : end > x->rank ? x->rank : end;
        n = end > start ? end - start : 0;
        t = tl_tensor_new(DT_I64, 1, &n, err, sizeof err);
        for (int64_t i = 0; i < n; i++)
            ((int64_t *)t->data)[i] = x->dims[start + i];
    }
    if (!(y = ox_out(m, 0, DT_I64, t->rank, t->shape))) {
        tl_tensor_unref(t);
        return -1;
    }
    y->kind = OX_INIT;
    y->cval = t;
    return 0;
}

static const OxOp ops[] = {
    {"Reshape", op_reshape},
    {"Flatten", op_flatten},
    {"Squeeze", op_squeeze},
    {"Unsqueeze", op_unsqueeze},
    {"Dropout", op_dropout},
    {"Transpose", op_transpose},
    {"Concat", op_concat},
    {"ReduceSum", op_reduce},
    {"ReduceMean", op_reduce},
    {"ReduceMax", op_reduce},
    {"ReduceMin", op_reduce},
    {"ReduceProd", op_reduce},
    {"ReduceL1", op_reduce},
    {"ReduceL2", op_reduce},
    {"ReduceSumSquare", op_reduce},
    {"ReduceLogSum", op_reduce},
    {"ReduceLogSumExp", op_reduce},
    {"ArgMax", op_argmax},
    {"ArgMin", op_argmax},
    {"Softmax", op_softmax},
    {"LogSoftmax", op_softmax},
    {"MatMul", op_matmul},
    {"Gemm", op_gemm},
    {"Shape", op_shape},
    {"Size", op_shape},
};

OxOpFn ox_nn_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
