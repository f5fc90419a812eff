/*
 * onnx_ops_resize.c - Resize and Upsample.  Resizing is separable: on
 * each axis, every output position reads a few input positions (taps)
 * with weights that depend only on the sizes, the scales and the
 * attributes.  Those are computed here, at import, into small constant
 * tables (`y_index2[i, t]`, `y_weight2[i, t]` for axis 2), and the stage
 * combines the input through them:
 *     y[i0, i1, i2, i3] = sum(r0 in 0..2, r1 in 0..2)
 *         y_weight2[i2, r0] * y_weight3[i3, r1]
 *         * x[i0, i1, y_index2[i2, r0], y_index3[i3, r1]]
 * An axis whose mapping is the identity reads x at its own variable;
 * one where a single tap has all the weight (nearest) reads through its
 * index table alone.  The coordinate mapping follows the operator's
 * text (coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
 * exclude_outside, extrapolation_value for tf_crop_and_resize).
 */
#include "parser/onnx/onnx_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { C_HALF, C_PYTORCH_HALF, C_ALIGN, C_ASYM, C_CROP, C_TF_HALF_NN };
enum { N_ROUND_FLOOR, N_ROUND_CEIL, N_FLOOR, N_CEIL };
enum { MAXTAPS = 4 };

typedef struct Axis {
    int64_t in, out;
    double scale;
    double roi0, roi1;
    int ntaps;              /* 0: identity; 1: index only; else taps */
    int64_t *idx;           /* [out * ntaps] */
    double *w;              /* [out * ntaps] */
    unsigned char *inside;  /* [out]: 0 where tf_crop_and_resize
                               extrapolates */
    int any_outside;
} Axis;

static int str_is(const Onnx__AttributeProto *a, const char *s)
{
    return a && a->has_s && a->s.len == strlen(s) &&
           !memcmp(a->s.data, s, a->s.len);
}

/* Coefficients of the taps for fraction `ratio` in (0, 1]. */
static int coeffs(int mode, int nmode, double A, double ratio, double *c)
{
    if (mode == M_NEAREST) {
        int right;
        if (ratio == 1)
            right = 1;
        else if (nmode == N_ROUND_FLOOR)
            right = ratio > 0.5;
        else if (nmode == N_ROUND_CEIL)
            right = ratio >= 0.5;
        else
            right = nmode == N_CEIL;
        c[0] = !right;
        c[1] = right;
        return 2;
    }
    if (mode == M_LINEAR) {
        c[0] = 1 - ratio;
        c[1] = ratio;
        return 2;
    }
    double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
    c[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    c[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    c[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
    c[3] = ((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A;
    return 4;
}

/* Fills ax's tables. */
static void plan_axis(Axis *ax, int mode, int cmode, int nmode, double A,
                      int exclude)
{
    double outw = ax->scale * (double)ax->in;
    int n = mode == M_CUBIC ? 4 : 2;

    ax->idx = tl_xcalloc((size_t)(ax->out * n) + 1, sizeof *ax->idx);
    ax->w = tl_xcalloc((size_t)(ax->out * n) + 1, sizeof *ax->w);
    ax->inside = tl_xcalloc((size_t)ax->out + 1, 1);
    ax->ntaps = n;
    for (int64_t i = 0; i < ax->out; i++) {
        double x = (double)i, xo, c[MAXTAPS], sum = 0;
        int64_t first;
        switch (cmode) {
        case C_ALIGN:
            xo = outw == 1 ? 0 : x * (double)(ax->in - 1) / (outw - 1);
            break;
        case C_ASYM:
            xo = x / ax->scale;
            break;
        case C_CROP:
            xo = outw == 1 ? (ax->roi1 - ax->roi0) * (double)(ax->in - 1) / 2
                           : x * (ax->roi1 - ax->roi0) *
                                 (double)(ax->in - 1) / (outw - 1);
            xo += ax->roi0 * (double)(ax->in - 1);
            break;
        case C_PYTORCH_HALF:
            xo = outw == 1 ? -0.5 : (x + 0.5) / ax->scale - 0.5;
            break;
        case C_TF_HALF_NN:
            xo = (x + 0.5) / ax->scale;
            break;
        default:
            xo = (x + 0.5) / ax->scale - 0.5;
            break;
        }
        ax->inside[i] = !(cmode == C_CROP &&
                          (xo < 0 || xo > (double)(ax->in - 1)));
        ax->any_outside |= !ax->inside[i];
        double fl = floor(xo);
        double ratio = xo == fl ? 1 : xo - fl;
        coeffs(mode, nmode, A, ratio, c);
        /* the n positions nearest xo (ties to the smaller), in order */
        if (n == 2)
            first = xo == fl ? (int64_t)fl - 1 : (int64_t)fl;
        else
            first = (int64_t)fl - (xo == fl ? 2 : 1);
        for (int t = 0; t < n; t++) {
            int64_t k = first + t;
            if (exclude && (k < 0 || k >= ax->in))
                c[t] = 0;
            sum += c[t];
            ax->idx[i * n + t] = k < 0 ? 0 : k >= ax->in ? ax->in - 1 : k;
        }
        for (int t = 0; t < n; t++)
            ax->w[i * n + t] = exclude && sum != 0 ? c[t] / sum : c[t];
    }
    /* Simplify: one tap holding all the weight, or the identity. */
    int one = 1, ident = ax->in == ax->out && !ax->any_outside;
    for (int64_t i = 0; i < ax->out && one; i++) {
        int nz = 0;
        for (int t = 0; t < n; t++)
            if (ax->w[i * n + t] != 0) {
                nz++;
                one = one && ax->w[i * n + t] == 1;
                ident = ident && ax->idx[i * n + t] == i;
            }
        one = one && nz == 1;
    }
    ident = ident && one;
    if (one)
        for (int64_t i = 0; i < ax->out; i++)
            for (int t = 0; t < n; t++)
                if (ax->w[i * n + t] != 0)
                    ax->idx[i] = ax->idx[i * n + t];
    ax->ntaps = ident ? 0 : one ? 1 : n;
}

/* A constant table named "<y>_<what><k>" of dtype dt, dims [out, nt] (or
 * [out] for nt 1). */
static OxValue *table(OxModel *m, const char *y, const char *what, int k,
                      TlDType dt, const Axis *ax, int nt, const void *src,
                      int is_double)
{
    char name[200], err[200];
    int64_t dims[2] = {ax->out, nt};
    int rank = nt == 1 ? 1 : 2;
    TlTensor *t;
    OxValue *v;

    snprintf(name, sizeof name, "%.100s_%s%d", y, what, k);
    if (ox_find(m, name) || !(t = tl_tensor_new(dt, rank, dims, err,
                                                 sizeof err))) {
        ox_unsupported(m, "cannot make the table '%s'", name);
        return NULL;
    }
    for (int64_t i = 0; i < ax->out * nt; i++) {
        int64_t at[2] = {i / nt, i % nt};
        if (is_double)
            tl_tensor_set_f64(t, at, ((const double *)src)[i]);
        else
            tl_tensor_set_i64(t, at, ((const int64_t *)src)[i]);
    }
    v = ox_add(m, name, OX_INIT, dt, rank, dims);
    v->cval = t;
    return v;
}

/* The float list of constant input v (NULL: absent or empty). */
static int floats_of(OxModel *m, OxValue *v, double *out, int max)
{
    int64_t n, i;

    if (!v || !(n = ox_numel(v)))
        return 0;
    if (!v->cval || v->rank != 1 || n > max) {
        ox_unsupported(m, "input '%s' must be a list known at import (a "
                       "constant, an initializer, or bound with --bind)",
                       v->name);
        return -1;
    }
    for (i = 0; i < n; i++)
        out[i] = tl_tensor_get_f64(v->cval, &i);
    return (int)n;
}

static int op_resize(OxModel *m)
{
    int up = !strcmp(m->node->op_type, "Upsample");
    OxValue *x = ox_in(m, 0), *y, *vi[TL_MAX_RANK], *vw[TL_MAX_RANK];
    OxValue *vin[TL_MAX_RANK];
    double scales[TL_MAX_RANK], sizes[TL_MAX_RANK], roi[2 * TL_MAX_RANK];
    int ns, nz, nr, mode, cmode, nmode, exclude, rc = -1;
    int64_t dims[TL_MAX_RANK];
    Axis ax[TL_MAX_RANK];
    double A, extrap;
    const Onnx__AttributeProto *a;
    TlBuf *b = &m->body;

    memset(ax, 0, sizeof ax);
    if (!x || x->rank == 0) {
        ox_unsupported(m, "needs an input of rank 1 or more");
        return -1;
    }
    a = ox_attr(m, "mode");
    mode = !a || str_is(a, "nearest") ? M_NEAREST
           : str_is(a, "linear") || str_is(a, "bilinear") ? M_LINEAR
           : str_is(a, "cubic") ? M_CUBIC : -1;
    a = ox_attr(m, "coordinate_transformation_mode");
    cmode = up || m->opset < 11 ? C_ASYM
            : !a || str_is(a, "half_pixel") ? C_HALF
            : str_is(a, "pytorch_half_pixel") ? C_PYTORCH_HALF
            : str_is(a, "align_corners") ? C_ALIGN
            : str_is(a, "asymmetric") ? C_ASYM
            : str_is(a, "tf_crop_and_resize") ? C_CROP
            : str_is(a, "tf_half_pixel_for_nn") ? C_TF_HALF_NN : -1;
    a = ox_attr(m, "nearest_mode");
    nmode = up || m->opset < 11 ? N_FLOOR
            : !a || str_is(a, "round_prefer_floor") ? N_ROUND_FLOOR
            : str_is(a, "round_prefer_ceil") ? N_ROUND_CEIL
            : str_is(a, "floor") ? N_FLOOR
            : str_is(a, "ceil") ? N_CEIL : -1;
    if (mode < 0 || cmode < 0 || nmode < 0 ||
        ox_attr(m, "keep_aspect_ratio_policy") || ox_attr(m, "axes")) {
        ox_unsupported(m, "unsupported mode or attribute");
        return -1;
    }
    A = ox_attr_f(m, "cubic_coeff_a", -0.75);
    exclude = (int)ox_attr_i(m, "exclude_outside", 0);
    extrap = ox_attr_f(m, "extrapolation_value", 0);
    nr = 0;
    nz = 0;
    if (up && m->opset < 9) {
        a = ox_attr(m, "scales");
        ns = a ? (int)a->n_floats : 0;
        for (int i = 0; i < ns && i < TL_MAX_RANK; i++)
            scales[i] = a->floats[i];
    } else if (up || m->opset < 11) {
        ns = floats_of(m, ox_in(m, 1), scales, TL_MAX_RANK);
    } else {
        nr = floats_of(m, ox_in(m, 1), roi, 2 * TL_MAX_RANK);
        ns = floats_of(m, ox_in(m, 2), scales, TL_MAX_RANK);
        nz = floats_of(m, ox_in(m, 3), sizes, TL_MAX_RANK);
    }
    if (ns < 0 || nz < 0 || nr < 0)
        return -1;
    if ((ns && ns != x->rank) || (nz && nz != x->rank) || (!ns && !nz) ||
        (cmode == C_CROP && nr != 2 * x->rank)) {
        ox_unsupported(m, "scales, sizes or roi do not fit the input's "
                       "rank %d", x->rank);
        return -1;
    }
    for (int k = 0; k < x->rank; k++) {
        ax[k].in = x->dims[k];
        if (nz) {
            ax[k].out = (int64_t)sizes[k];
            ax[k].scale = (double)ax[k].out / (double)ax[k].in;
        } else {
            ax[k].scale = scales[k];
            ax[k].out = (int64_t)floor((double)ax[k].in * scales[k]);
        }
        if (ax[k].scale <= 0 || ax[k].out < 1 || ax[k].in < 1 ||
            ax[k].out > OX_MAX_DIM) {
            ox_unsupported(m, "a scale or size is out of range");
            return -1;
        }
        if (cmode == C_CROP) {
            ax[k].roi0 = roi[k];
            ax[k].roi1 = roi[x->rank + k];
        }
        dims[k] = ax[k].out;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    for (int k = 0; k < x->rank; k++)
        plan_axis(&ax[k], mode, cmode, nmode, A, exclude);
    /* the tables */
    for (int k = 0; k < x->rank; k++) {
        vi[k] = vw[k] = vin[k] = NULL;
        if (ax[k].ntaps &&
            !(vi[k] = table(m, y->name, "index", k, DT_I64, &ax[k],
                            ax[k].ntaps, ax[k].idx, 0)))
            goto done;
        if (ax[k].ntaps > 1 &&
            !(vw[k] = table(m, y->name, "weight", k, x->dt, &ax[k],
                            ax[k].ntaps, ax[k].w, 1)))
            goto done;
        if (ax[k].any_outside) {
            int64_t *in = tl_xcalloc((size_t)ax[k].out + 1, sizeof *in);
            for (int64_t i = 0; i < ax[k].out; i++)
                in[i] = ax[k].inside[i];
            vin[k] = table(m, y->name, "inside", k, DT_BOOL, &ax[k], 1, in,
                           0);
            free(in);
            if (!vin[k])
                goto done;
        }
    }
    ox_comment(m);
    int nsum = 0, open = 0;
    char *inner = NULL;
    for (int k = 0; k < x->rank; k++)
        open |= vin[k] != NULL;
    if (open) {
        /* tf_crop_and_resize: the interpolation, then a stage that puts
         * extrapolation_value where the crop leaves the input */
        char tmp[200];
        snprintf(tmp, sizeof tmp, "%.100s_interp", y->name);
        inner = ox_ident(m, tmp);
        buf_printf(b, "    %s[", inner);
        for (int k = 0; k < x->rank; k++)
            buf_printf(b, "%si%d", k ? ", " : "", k);
        buf_puts(b, "] = ");
    } else {
        ox_lhs(b, y->id, y->rank);
    }
    for (int k = 0; k < x->rank; k++)
        if (ax[k].ntaps > 1) {
            buf_printf(b, "%sr%d in 0..%d", nsum ? ", " : "sum(", nsum,
                       ax[k].ntaps);
            nsum++;
        }
    if (nsum)
        buf_puts(b, ") ");
    for (int k = 0, r = 0; k < x->rank; k++)
        if (ax[k].ntaps > 1) {
            vw[k]->used = 1;
            buf_printf(b, "%s[i%d, r%d] * ", vw[k]->id, k, r++);
        }
    x->used = 1;
    buf_printf(b, "%s%s[", x->id, x->kind == OX_NODE ? ".clamp_edge" : "");
    for (int k = 0, r = 0; k < x->rank; k++) {
        buf_puts(b, k ? ", " : "");
        if (!ax[k].ntaps) {
            buf_printf(b, "i%d", k);
            continue;
        }
        vi[k]->used = 1;
        if (ax[k].ntaps == 1)
            buf_printf(b, "%s[i%d]", vi[k]->id, k);
        else
            buf_printf(b, "%s[i%d, r%d]", vi[k]->id, k, r++);
    }
    buf_puts(b, "]\n");
    if (open) {
        ox_lhs(b, y->id, y->rank);
        open = 0;
        for (int k = 0; k < x->rank; k++)
            if (vin[k]) {
                vin[k]->used = 1;
                buf_printf(b, "%s%s[i%d]", open++ ? " && " : "select(",
                           vin[k]->id, k);
            }
        buf_printf(b, ", %s[", inner);
        for (int k = 0; k < x->rank; k++)
            buf_printf(b, "%si%d", k ? ", " : "", k);
        buf_printf(b, "], %s(", dt_name(x->dt));
        ox_float_lit(b, extrap);
        buf_puts(b, "))\n");
    }
    rc = 0;
done:
    for (int k = 0; k < x->rank; k++) {
        free(ax[k].idx);
        free(ax[k].w);
        free(ax[k].inside);
    }
    return rc;
}

static const OxOp ops[] = {
    {"Resize", op_resize},
    {"Upsample", op_resize},
};

OxOpFn ox_resize_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
