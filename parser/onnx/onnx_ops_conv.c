/*
 * onnx_ops_conv.c - ONNX ops over sliding windows: Conv and
 * ConvTranspose (groups, dilations, auto_pad), MaxPool (with
 * Indices) and AveragePool, the global pools, and
 * BatchNormalization.  Like onnx_ops_nn.c, each writes explicit
 * stages with the window arithmetic spelled out over the concrete
 * shapes found at import; reads outside the input go through a
 * boundary helper (ox_read_bounded).  ConvInteger and QLinearConv
 * (onnx_ops_quant.c) share Conv's geometry (ox_conv_geometry).
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Window {
    int ns;                         /* spatial axes */
    int64_t k[TL_MAX_RANK], s[TL_MAX_RANK], d[TL_MAX_RANK];
    int64_t pb[TL_MAX_RANK], pe[TL_MAX_RANK], out[TL_MAX_RANK];
} Window;

/* auto_pad, when given, is one of the four the spec names (the tests
 * below look at its first letters only). */
static int auto_pad_ok(OxModel *m)
{
    static const char *const ok[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER",
                                     "VALID"};
    const Onnx__AttributeProto *ap = ox_attr(m, "auto_pad");

    if (!ap || !ap->has_s)
        return 0;
    for (int i = 0; i < 4; i++)
        if (ap->s.len == strlen(ok[i]) && !memcmp(ap->s.data, ok[i],
                                                  ap->s.len))
            return 0;
    ox_unsupported(m, "auto_pad '%.*s' is none of NOTSET, SAME_UPPER, "
                   "SAME_LOWER and VALID", (int)ap->s.len,
                   (const char *)ap->s.data);
    return -1;
}

/* kernel_shape (or kshape), strides, dilations, pads/auto_pad of the
 * node, and the output extents. */
static int window(OxModel *m, OxValue *x, const int64_t *kshape,
                  int ceil_mode, Window *w)
{
    int64_t tmp[2 * TL_MAX_RANK];
    const Onnx__AttributeProto *ap = ox_attr(m, "auto_pad");
    int n;

    if (auto_pad_ok(m) < 0)
        return -1;

    w->ns = x->rank - 2;
    for (int i = 0; i < w->ns; i++) {
        w->k[i] = kshape[i];
        w->s[i] = w->d[i] = 1;
        w->pb[i] = w->pe[i] = 0;
    }
    if ((n = ox_attr_ints(m, "strides", tmp, TL_MAX_RANK)) >= 0)
        for (int i = 0; i < n && i < w->ns; i++)
            w->s[i] = tmp[i];
    if ((n = ox_attr_ints(m, "dilations", tmp, TL_MAX_RANK)) >= 0)
        for (int i = 0; i < n && i < w->ns; i++)
            w->d[i] = tmp[i];
    if ((n = ox_attr_ints(m, "pads", tmp, 2 * TL_MAX_RANK)) >= 0) {
        if (n != 2 * w->ns) {
            ox_unsupported(m, "pads has %d entries", n);
            return -1;
        }
        for (int i = 0; i < w->ns; i++) {
            w->pb[i] = tmp[i];
            w->pe[i] = tmp[i + w->ns];
        }
    }
    if (m->error)
        return -1;
    for (int i = 0; i < w->ns; i++) {
        int64_t in = x->dims[i + 2], ext = w->d[i] * (w->k[i] - 1) + 1;
        if (w->s[i] < 1 || w->d[i] < 1 || w->k[i] < 1 || w->pb[i] < 0 ||
            w->pe[i] < 0) {
            ox_unsupported(m, "bad kernel, stride, dilation or pad");
            return -1;
        }
        /* (so that ext and span below cannot overflow, and each is an
         * i32 literal in the stages) */
        if (w->s[i] > OX_MAX_DIM || w->d[i] > OX_MAX_DIM ||
            w->k[i] > OX_MAX_DIM || w->pb[i] > OX_MAX_DIM ||
            w->pe[i] > OX_MAX_DIM) {
            ox_unsupported(m, "a kernel, stride, dilation or pad above "
                           "%lld", (long long)OX_MAX_DIM);
            return -1;
        }
        if (ap && ap->has_s && ap->s.len >= 4 &&
            !memcmp(ap->s.data, "SAME", 4)) {
            int64_t o = (in + w->s[i] - 1) / w->s[i];
            int64_t tot = (o - 1) * w->s[i] + ext - in;
            if (tot < 0)
                tot = 0;
            int lower = ap->s.len > 5 && ap->s.data[5] == 'L';
            w->pb[i] = lower ? (tot + 1) / 2 : tot / 2;
            w->pe[i] = tot - w->pb[i];
        } else if (ap && ap->has_s && ap->s.len == 5 &&
                   !memcmp(ap->s.data, "VALID", 5)) {
            w->pb[i] = w->pe[i] = 0;
        }
        int64_t span = in + w->pb[i] + w->pe[i] - ext;
        if (span < 0) {
            ox_unsupported(m, "the window is larger than the input");
            return -1;
        }
        w->out[i] = (ceil_mode ? (span + w->s[i] - 1) / w->s[i]
                               : span / w->s[i]) + 1;
        if (ceil_mode && (w->out[i] - 1) * w->s[i] >= in + w->pb[i])
            w->out[i]--;
    }
    return 0;
}

/* Conv and ConvTranspose: kernel_shape, when given, must be the
 * weights' spatial extents (which are what the stages use). */
static int kernel_shape_agrees(OxModel *m, const OxValue *w)
{
    int64_t ks[TL_MAX_RANK];
    int n = ox_attr_ints(m, "kernel_shape", ks, TL_MAX_RANK);

    if (n == -2)
        return -1;
    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (n != w->rank - 2 || ks[i] != w->dims[i + 2]) {
            ox_unsupported(m, "kernel_shape does not match the weights' "
                           "shape");
            return -1;
        }
    return 0;
}

/* "i2 * 2 + r1 * 3 - 1" with the trivial parts left out. */
static void pos(char *out, size_t n, int oi, int64_t s, int ri, int64_t d,
                int64_t p)
{
    int k = snprintf(out, n, "i%d", oi);
    if (s != 1)
        k += snprintf(out + k, n - (size_t)k, " * %lld", (long long)s);
    if (ri >= 0) {
        k += snprintf(out + k, n - (size_t)k, " + r%d", ri);
        if (d != 1)
            k += snprintf(out + k, n - (size_t)k, " * %lld", (long long)d);
    }
    if (p)
        snprintf(out + k, n - (size_t)k, " - %lld", (long long)p);
}

int ox_conv_geometry(OxModel *m, OxValue *x, OxValue *w, OxConv *g)
{
    int64_t group = ox_attr_i(m, "group", 1);
    int64_t ks[TL_MAX_RANK], F, CG, FG;
    Window win;
    int k;

    if (x->rank < 3 || w->rank != x->rank) {
        ox_unsupported(m, "needs N, C, spatial... input and weights");
        return -1;
    }
    F = w->dims[0];
    CG = w->dims[1];
    if (group < 1 || F % group || CG * group != x->dims[1]) {
        ox_unsupported(m, "channels and group do not agree");
        return -1;
    }
    FG = F / group;
    for (int i = 0; i < x->rank - 2; i++)
        ks[i] = w->dims[i + 2];
    if (kernel_shape_agrees(m, w) < 0 || window(m, x, ks, 0, &win) < 0)
        return -1;
    g->rank = x->rank;
    g->dims[0] = x->dims[0];
    g->dims[1] = F;
    for (int i = 0; i < win.ns; i++)
        g->dims[i + 2] = win.out[i];
    strcpy(g->ix[0], "i0");
    if (group == 1)
        strcpy(g->ix[1], "r0");
    else
        snprintf(g->ix[1], sizeof g->ix[0], "i1 / %lld * %lld + r0",
                 (long long)FG, (long long)CG);
    strcpy(g->iw[0], "i1");
    strcpy(g->iw[1], "r0");
    for (int i = 0; i < win.ns; i++) {
        pos(g->ix[i + 2], sizeof g->ix[0], i + 2, win.s[i], i + 1, win.d[i],
            win.pb[i]);
        snprintf(g->iw[i + 2], sizeof g->iw[0], "r%d", i + 1);
    }
    k = snprintf(g->range, sizeof g->range, "r0 in 0..%lld", (long long)CG);
    for (int i = 0; i < win.ns; i++)
        k += snprintf(g->range + k, sizeof g->range - (size_t)k,
                      ", r%d in 0..%lld", i + 1, (long long)win.k[i]);
    g->pad = 0;
    for (int i = 0; i < win.ns; i++)
        g->pad |= win.pb[i] || win.pe[i];
    return 0;
}

/* B, when given, is one value of x's dtype per output channel (it is
 * read as B[i1]: a tensor of another rank was read past the index
 * list). */
static int bias_ok(OxModel *m, const OxValue *bias, TlDType dt, int64_t f)
{
    if (!bias || (bias->rank == 1 && bias->dims[0] == f && bias->dt == dt))
        return 0;
    ox_unsupported(m, "B must be a 1-D %s tensor of %lld values",
                   dt_name(dt), (long long)f);
    return -1;
}

static int op_conv(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *w = ox_need_in(m, 1);
    OxValue *bias = ox_in(m, 2), *y;
    OxConv g;
    TlBuf *b = &m->body;

    if (!x || !w)
        return -1;
    if (!dt_is_float(x->dt)) {
        ox_unsupported(m, "needs float N, C, spatial... input and weights");
        return -1;
    }
    if (ox_conv_geometry(m, x, w, &g) < 0 ||
        bias_ok(m, bias, x->dt, w->dims[0]) < 0)
        return -1;
    if (!(y = ox_out(m, 0, x->dt, g.rank, g.dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, g.rank);
    if (bias) {
        OxIdx ib[1] = {"i1"};
        ox_read(b, bias, ib);
        buf_puts(b, " + ");
    }
    buf_printf(b, "sum(%s) ", g.range);
    if (g.pad)
        ox_read_bounded(m, b, x, "zero_pad", g.ix);
    else
        ox_read(b, x, g.ix);
    buf_puts(b, " * ");
    ox_read(b, w, g.iw);
    buf_putc(b, '\n');
    return 0;
}

static int op_conv_transpose(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *w = ox_need_in(m, 1);
    OxValue *bias = ox_in(m, 2), *y;
    int64_t group = ox_attr_i(m, "group", 1), dims[TL_MAX_RANK];
    int64_t s[TL_MAX_RANK], d[TL_MAX_RANK], pb[TL_MAX_RANK], pe[TL_MAX_RANK];
    int64_t op[TL_MAX_RANK], os[TL_MAX_RANK], tmp[2 * TL_MAX_RANK];
    int64_t C, FG, CG;
    int ns, n, has_os;
    const Onnx__AttributeProto *ap = ox_attr(m, "auto_pad");
    int same = ap && ap->has_s && ap->s.len >= 4 &&
               !memcmp(ap->s.data, "SAME", 4);
    int upper = same && ap->s.len > 5 && ap->s.data[5] == 'U';
    OxIdx ix[TL_MAX_RANK], iw[TL_MAX_RANK];
    TlBuf *b = &m->body;
    const char *T;

    if (!x || !w || auto_pad_ok(m) < 0)
        return -1;
    if (x->rank < 3 || w->rank != x->rank || !dt_is_float(x->dt)) {
        ox_unsupported(m, "needs float N, C, spatial... input and weights");
        return -1;
    }
    ns = x->rank - 2;
    C = x->dims[1];
    FG = w->dims[1];
    if (group < 1 || C % group || w->dims[0] != C) {
        ox_unsupported(m, "channels and group do not agree");
        return -1;
    }
    if (kernel_shape_agrees(m, w) < 0)
        return -1;
    CG = C / group;
    for (int i = 0; i < ns; i++) {
        s[i] = d[i] = 1;
        pb[i] = pe[i] = op[i] = 0;
    }
    if ((n = ox_attr_ints(m, "strides", tmp, TL_MAX_RANK)) >= 0)
        for (int i = 0; i < n && i < ns; i++)
            s[i] = tmp[i];
    if ((n = ox_attr_ints(m, "dilations", tmp, TL_MAX_RANK)) >= 0)
        for (int i = 0; i < n && i < ns; i++)
            d[i] = tmp[i];
    if ((n = ox_attr_ints(m, "output_padding", tmp, TL_MAX_RANK)) >= 0)
        for (int i = 0; i < n && i < ns; i++)
            op[i] = tmp[i];
    if ((n = ox_attr_ints(m, "pads", tmp, 2 * TL_MAX_RANK)) >= 0) {
        if (n != 2 * ns) {
            ox_unsupported(m, "pads has %d entries", n);
            return -1;
        }
        for (int i = 0; i < ns; i++) {
            pb[i] = tmp[i];
            pe[i] = tmp[i + ns];
        }
    }
    n = ox_attr_ints(m, "output_shape", os, TL_MAX_RANK);
    has_os = n >= 0;
    if (m->error)
        return -1;
    if (has_os && n != ns) {
        /* output_shape may include N and C */
        if (n == ns + 2)
            memmove(os, os + 2, (size_t)ns * sizeof *os);
        else {
            ox_unsupported(m, "output_shape has %d entries", n);
            return -1;
        }
    }
    for (int i = 0; i < ns; i++) {
        int64_t in = x->dims[i + 2], full;
        if (s[i] < 1 || d[i] < 1 || pb[i] < 0 || pe[i] < 0 || op[i] < 0) {
            ox_unsupported(m, "bad stride, dilation or pad");
            return -1;
        }
        if (s[i] > OX_MAX_DIM || d[i] > OX_MAX_DIM || pb[i] > OX_MAX_DIM ||
            pe[i] > OX_MAX_DIM || op[i] > OX_MAX_DIM ||
            (has_os && (os[i] < 0 || os[i] > OX_MAX_DIM))) {
            ox_unsupported(m, "a stride, dilation, pad or output size above "
                           "%lld", (long long)OX_MAX_DIM);
            return -1;
        }
        full = s[i] * (in - 1) + op[i] + d[i] * (w->dims[i + 2] - 1) + 1;
        if (has_os || same) {
            int64_t out = has_os ? os[i] : in * s[i];
            int64_t tot = full - out;
            /* A larger output_shape extends the end (output padding);
             * SAME_LOWER puts the odd unit at the start.  (The spec's
             * text has UPPER and LOWER the other way round; its
             * reference, and the test data, do this.) */
            if (tot < 0) {
                pb[i] = 0;
                pe[i] = tot;
            } else if (same && !upper) {
                pb[i] = tot - tot / 2;
                pe[i] = tot / 2;
            } else {
                pb[i] = tot / 2;
                pe[i] = tot - tot / 2;
            }
        }
        dims[i + 2] = full - pb[i] - pe[i];
        if (dims[i + 2] < 0) {
            ox_unsupported(m, "negative output extent");
            return -1;
        }
    }
    dims[0] = x->dims[0];
    dims[1] = FG * group;
    if (bias_ok(m, bias, x->dt, dims[1]) < 0 ||
        !(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    T = dt_name(x->dt);
    strcpy(ix[0], "i0");
    if (group == 1)
        strcpy(ix[1], "r0");
    else
        snprintf(ix[1], sizeof ix[0], "i1 / %lld * %lld + r0",
                 (long long)FG, (long long)CG);
    strcpy(iw[0], ix[1]);
    if (group == 1)
        strcpy(iw[1], "i1");
    else
        snprintf(iw[1], sizeof iw[0], "i1 %% %lld", (long long)FG);
    for (int i = 0; i < ns; i++) {
        char p[96];
        pos(p, sizeof p, i + 2, 1, -1, 1, -pb[i]);
        /* (o + pb - k * d) */
        if (d[i] == 1)
            snprintf(ix[i + 2], sizeof ix[0], "%.60s - r%d", p, i + 1);
        else
            snprintf(ix[i + 2], sizeof ix[0], "%.60s - r%d * %lld", p, i + 1,
                     (long long)d[i]);
        snprintf(iw[i + 2], sizeof iw[0], "r%d", i + 1);
    }
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    if (bias) {
        OxIdx ib[1] = {"i1"};
        ox_read(b, bias, ib);
        buf_puts(b, " + ");
    }
    buf_printf(b, "sum(r0 in 0..%lld", (long long)CG);
    for (int i = 0; i < ns; i++)
        buf_printf(b, ", r%d in 0..%lld", i + 1, (long long)w->dims[i + 2]);
    buf_puts(b, ") select(");
    int any = 0;
    for (int i = 0; i < ns; i++)
        if (s[i] != 1)
            buf_printf(b, "%s(%s) %% %lld == 0", any++ ? " && " : "",
                       ix[i + 2], (long long)s[i]);
    if (!any)
        buf_puts(b, "true");
    buf_puts(b, ", ");
    for (int i = 0; i < ns; i++)
        if (s[i] != 1) {
            char t[sizeof ix[0]];
            snprintf(t, sizeof t, "%s", ix[i + 2]);
            snprintf(ix[i + 2], sizeof ix[0], "(%.80s) / %lld", t,
                     (long long)s[i]);
        }
    ox_read_bounded(m, b, x, "zero_pad", ix);
    buf_puts(b, " * ");
    ox_read(b, w, iw);
    buf_printf(b, ", %s(0))\n", T);
    return 0;
}

/* The lowest value of dt, as a literal. */
static const char *lowest(TlDType dt)
{
    switch (dt) {
    case DT_F64: return "-1.7976931348623157e308";
    case DT_F32: return "-3.4028234663852886e38";
    case DT_F16: return "-65504.0";
    case DT_BF16: return "-3.3895313892515355e38";
    case DT_I8: return "-128";
    case DT_I16: return "-32768";
    case DT_I32: return "-2147483648";
    case DT_I64: return "-9223372036854775807 - 1";
    default: return "0";
    }
}

/* MaxPool's Indices output: where each maximum is, as a flat index of
 * x (row-major, or column-major over the spatial axes with
 * storage_order = 1).  The window's positions are counted by one
 * reduction variable (argmax takes one), split into one per axis; the
 * first maximum wins. */
static int pool_indices(OxModel *m, OxValue *x, const Window *w,
                        const int64_t *dims, int pad)
{
    OxValue *ind = ox_out(m, 1, DT_I64, x->rank, dims);
    int64_t after[TL_MAX_RANK], total = 1;
    int cm = (int)ox_attr_i(m, "storage_order", 0) == 1;
    char tmp[200], p[TL_MAX_RANK][240];
    const char *arg;
    TlBuf *b = &m->body;
    OxIdx ix[TL_MAX_RANK];

    if (!ind)
        return -1;
    for (int i = w->ns - 1; i >= 0; i--) {
        after[i] = total;
        total *= w->k[i];
    }
    snprintf(tmp, sizeof tmp, "%s_arg", ind->name);
    arg = ox_ident(m, tmp);
    /* the offset in the window along axis i, from r (or the argmax) */
    for (int pass = 0; pass < 2; pass++) {
        char r[64];
        if (pass == 0) {
            strcpy(r, "r0");
        } else {
            int k = snprintf(r, sizeof r, "%s[", arg);
            for (int i = 0; i < x->rank && k < (int)sizeof r; i++)
                k += snprintf(r + k, sizeof r - (size_t)k, "%si%d",
                              i ? ", " : "", i);
            if (k < (int)sizeof r)
                snprintf(r + k, sizeof r - (size_t)k, "]");
        }
        for (int i = 0; i < w->ns; i++) {
            char o[160];
            if (after[i] == 1)
                snprintf(o, sizeof o, "%s %% %lld", r, (long long)w->k[i]);
            else if (i == 0)
                snprintf(o, sizeof o, "%s / %lld", r, (long long)after[i]);
            else
                snprintf(o, sizeof o, "%s / %lld %% %lld", r,
                         (long long)after[i], (long long)w->k[i]);
            int k = snprintf(p[i], sizeof p[i], "i%d", i + 2);
            if (w->s[i] != 1)
                k += snprintf(p[i] + k, sizeof p[i] - (size_t)k, " * %lld",
                              (long long)w->s[i]);
            k += snprintf(p[i] + k, sizeof p[i] - (size_t)k, " + (%s)", o);
            if (w->d[i] != 1)
                k += snprintf(p[i] + k, sizeof p[i] - (size_t)k, " * %lld",
                              (long long)w->d[i]);
            if (w->pb[i])
                snprintf(p[i] + k, sizeof p[i] - (size_t)k, " - %lld",
                         (long long)w->pb[i]);
        }
        if (pass == 0) {
            buf_printf(b, "    %s[", arg);
            for (int i = 0; i < x->rank; i++)
                buf_printf(b, "%si%d", i ? ", " : "", i);
            buf_printf(b, "] = argmax(r0 in 0..%lld) ", (long long)total);
            strcpy(ix[0], "i0");
            strcpy(ix[1], "i1");
            for (int i = 0; i < w->ns; i++) {
                if (strlen(p[i]) >= sizeof ix[0]) {
                    ox_unsupported(m, "the window is too large");
                    return -1;
                }
                memcpy(ix[i + 2], p[i], strlen(p[i]) + 1);
            }
            if (pad) {
                buf_puts(b, "select(");
                for (int i = 0; i < w->ns; i++)
                    buf_printf(b, "%s%s >= 0 && %s < %lld",
                               i ? " && " : "", p[i], p[i],
                               (long long)x->dims[i + 2]);
                buf_puts(b, ", ");
                ox_read_bounded(m, b, x, "clamp_edge", ix);
                buf_printf(b, ", %s(%s))\n", dt_name(x->dt),
                           lowest(x->dt));
            } else {
                ox_read(b, x, ix);
                buf_putc(b, '\n');
            }
        }
    }
    /* the flat index of x at those positions */
    ox_lhs(&m->body, ind->id, x->rank);
    if (!cm) {
        buf_printf(b, "(i64(i0) * %lld + i64(i1))", (long long)x->dims[1]);
        for (int i = 0; i < w->ns; i++)
            buf_printf(b, " * %lld + (%s)", (long long)x->dims[i + 2],
                       p[i]);
    } else {
        int64_t sp = 1;
        for (int i = 0; i < w->ns; i++)
            sp *= x->dims[i + 2];
        buf_printf(b, "(i64(i0) * %lld + i64(i1)) * %lld",
                   (long long)x->dims[1], (long long)sp);
        sp = 1;
        for (int i = 0; i < w->ns; i++) {
            buf_printf(b, " + (%s) * %lld", p[i], (long long)sp);
            sp *= x->dims[i + 2];
        }
    }
    buf_putc(b, '\n');
    return 0;
}

/* x with the lowest value of its dtype outside its spatial axes, as a
 * stage of its own (made once) that a max pool reads without a test:
 * worth it when each position is read by many windows (a large or
 * dilated kernel: test_MaxPool2d_stride_padding_dilation tests its
 * bounds 4800 times per output otherwise), each element then tested
 * once. */
static const char *lowest_padded(OxModel *m, OxValue *x)
{
    TlBuf *b = &m->pending;
    int made;
    const char *id = ox_derived(m, x, "lowest", 0, "lo", &made);

    if (!made)
        return id;
    buf_printf(b, "    # '%s' with the lowest %s outside, for the windows "
               "that reach past it\n", x->name, dt_name(x->dt));
    ox_lhs(b, id, x->rank);
    buf_puts(b, "select(");
    for (int i = 2; i < x->rank; i++)
        buf_printf(b, "%si%d >= 0 && i%d < %lld", i > 2 ? " && " : "", i, i,
                   (long long)x->dims[i]);
    buf_printf(b, ", %s[i0, i1", x->id);
    for (int i = 2; i < x->rank; i++)
        buf_printf(b, ", clamp(i%d, 0, %lld)", i, (long long)x->dims[i] - 1);
    buf_printf(b, "], %s(%s))\n", dt_name(x->dt), lowest(x->dt));
    return id;
}

/* How far the window moves from one output to the next, as a volume
 * (the product of the strides): a window of count positions over it
 * is how many windows read each position of the input. */
static int64_t window_step(const Window *w)
{
    int64_t p = 1;

    for (int i = 0; i < w->ns; i++)
        p *= w->s[i] > 0 ? w->s[i] : 1;
    return p;
}

static int op_pool(OxModel *m)
{
    const char *op = m->node->op_type;
    int is_max = !strcmp(op, "MaxPool") || !strcmp(op, "GlobalMaxPool");
    int global = !strncmp(op, "Global", 6);
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t ks[TL_MAX_RANK], dims[TL_MAX_RANK], count = 1;
    Window win;
    OxIdx ix[TL_MAX_RANK];
    TlBuf *b = &m->body;
    int pad = 0, n;

    if (!x)
        return -1;
    if (x->rank < 3 || (!is_max && !dt_is_float(x->dt)) ||
        x->dt == DT_BOOL) {
        ox_unsupported(m, "needs a float N, C, spatial... input");
        return -1;
    }
    int want_ind = m->node->n_output > 1 && *m->node->output[1];
    if (want_ind && (!is_max || global)) {
        ox_unsupported(m, "a second output");
        return -1;
    }
    if (global) {
        for (int i = 0; i < x->rank - 2; i++)
            ks[i] = x->dims[i + 2];
        memset(&win, 0, sizeof win);
        win.ns = x->rank - 2;
        for (int i = 0; i < win.ns; i++) {
            win.k[i] = ks[i];
            win.s[i] = win.d[i] = win.out[i] = 1;
        }
    } else {
        n = ox_attr_ints(m, "kernel_shape", ks, TL_MAX_RANK);
        if (n != x->rank - 2) {
            ox_unsupported(m, "kernel_shape must have %d entries",
                           x->rank - 2);
            return -1;
        }
        if (window(m, x, ks, (int)ox_attr_i(m, "ceil_mode", 0), &win) < 0)
            return -1;
    }
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int i = 0; i < win.ns; i++) {
        dims[i + 2] = win.out[i];
        count *= win.k[i];
        pad |= win.pb[i] || win.pe[i] ||
               (win.out[i] - 1) * win.s[i] + win.d[i] * (win.k[i] - 1) >=
                   x->dims[i + 2];
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    strcpy(ix[0], "i0");
    strcpy(ix[1], "i1");
    for (int i = 0; i < win.ns; i++)
        pos(ix[i + 2], sizeof ix[0], i + 2, win.s[i], i, win.d[i],
            win.pb[i]);
    if (global)
        for (int i = 0; i < win.ns; i++)
            snprintf(ix[i + 2], sizeof ix[0], "r%d", i);
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    if (!is_max)
        buf_putc(b, '(');
    buf_puts(b, is_max ? "max(" : "sum(");
    for (int i = 0; i < win.ns; i++)
        buf_printf(b, "%sr%d in 0..%lld", i ? ", " : "", i,
                   (long long)win.k[i]);
    buf_puts(b, ") ");
    if (pad && is_max && count >= 4 * window_step(&win)) {
        /* positions outside count as the lowest value of the dtype */
        buf_printf(b, "%s[", lowest_padded(m, x));
        for (int i = 0; i < x->rank; i++)
            buf_printf(b, "%s%s", i ? ", " : "", ix[i]);
        buf_putc(b, ']');
    } else if (pad && is_max) {
        buf_puts(b, "select(");
        for (int i = 0; i < win.ns; i++)
            buf_printf(b, "%s%s >= 0 && %s < %lld", i ? " && " : "",
                       ix[i + 2], ix[i + 2], (long long)x->dims[i + 2]);
        buf_puts(b, ", ");
        ox_read_bounded(m, b, x, "clamp_edge", ix);
        buf_printf(b, ", %s(%s))", dt_name(x->dt), lowest(x->dt));
    } else if (pad) {
        ox_read_bounded(m, b, x, "zero_pad", ix);
    } else {
        ox_read(b, x, ix);
    }
    if (!is_max) {
        buf_printf(b, ") / %s(", dt_name(x->dt));
        if (!pad || ox_attr_i(m, "count_include_pad", 0)) {
            buf_printf(b, "%lld)", (long long)count);
        } else {
            /* the positions of the window inside the input */
            for (int i = 0; i < win.ns; i++) {
                char p0[96];
                pos(p0, sizeof p0, i + 2, win.s[i], -1, 1, win.pb[i]);
                buf_printf(b, "%s(min(%s + %lld, %lld) - max(%s, 0))",
                           i ? " * " : "", p0,
                           (long long)(win.d[i] * (win.k[i] - 1) + 1),
                           (long long)x->dims[i + 2], p0);
                if (win.d[i] != 1) {
                    ox_unsupported(m, "dilated average pooling with "
                                   "padding");
                    return -1;
                }
            }
            buf_putc(b, ')');
        }
    }
    buf_putc(b, '\n');
    if (want_ind)
        return pool_indices(m, x, &win, dims, pad);
    return 0;
}

static int op_batchnorm(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *sc = ox_need_in(m, 1);
    OxValue *bi = ox_need_in(m, 2);
    OxValue *mean = ox_need_in(m, 3), *var = ox_need_in(m, 4), *y;
    OxIdx ix[TL_MAX_RANK], ic[1] = {"i1"};
    TlBuf *b = &m->body;

    if (!x || !sc || !bi || !mean || !var)
        return -1;
    if (x->rank < 2 || !dt_is_float(x->dt) || sc->rank != 1 ||
        bi->rank != 1 || mean->rank != 1 || var->rank != 1) {
        ox_unsupported(m, "needs a float N, C, ... input and 1-D "
                       "parameters");
        return -1;
    }
    /* Before opset 7, spatial = 0 asked for per-element statistics;
     * is_test = 0 asked for training, which the outputs say anyway.
     * consumed_inputs (opset 1) only told old runtimes which inputs
     * were updated in place. */
    if (!ox_attr_i(m, "spatial", 1)) {
        ox_unsupported(m, "spatial = 0 is not supported");
        return -1;
    }
    ox_attr_ignore(m, "is_test");
    ox_attr_ignore(m, "consumed_inputs");
    if (ox_attr_i(m, "training_mode", 0) || m->node->n_output > 1)
        return ox_batchnorm_training(m);
    ox_attr_ignore(m, "momentum");    /* updates only in training */
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    for (int i = 0; i < x->rank; i++)
        snprintf(ix[i], sizeof ix[0], "i%d", i);
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    buf_putc(b, '(');
    ox_read(b, x, ix);
    buf_puts(b, " - ");
    ox_read(b, mean, ic);
    buf_puts(b, ") / sqrt(");
    ox_read(b, var, ic);
    buf_printf(b, " + %s(", dt_name(x->dt));
    ox_float_lit(b, ox_attr_f(m, "epsilon", 1e-5));
    buf_puts(b, ")) * ");
    ox_read(b, sc, ic);
    buf_puts(b, " + ");
    ox_read(b, bi, ic);
    buf_putc(b, '\n');
    return 0;
}

/* Shape and Size: constants at import. */

static const OxOp ops[] = {
    {"Conv", op_conv},
    {"ConvTranspose", op_conv_transpose},
    {"MaxPool", op_pool},
    {"AveragePool", op_pool},
    {"GlobalAveragePool", op_pool},
    {"GlobalMaxPool", op_pool},
    {"BatchNormalization", op_batchnorm},
};

OxOpFn ox_conv_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
