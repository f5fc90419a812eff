/*
 * onnx_ops_misc.c - Compress (by a condition known at import),
 * HannWindow, HammingWindow, BlackmanWindow, OneHot,
 * DFT, BatchNormalization in training mode,
 * TopK and Det.  TopK ranks every element among its axis (how many come
 * before it), then picks the element of each rank with a sum over the
 * axis; Det writes out the Leibniz formula (matrices up to 4 x 4).
 */
#include "parser/onnx/onnx_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static OxValue *need(OxModel *m, int i)
{
    OxValue *v = ox_in(m, i);
    if (!v)
        ox_unsupported(m, "input %d is missing", i);
    return v;
}

/* A scalar (or one-element) input known at import; -1 after a
 * message. */
static int scalar_of(OxModel *m, OxValue *v, double *out)
{
    int64_t zero = 0;

    if (!v->cval || ox_numel(v) != 1 || v->rank > 1) {
        ox_unsupported(m, "input '%s' must be a scalar known at import (a "
                       "constant, an initializer, or bound with --bind)",
                       v->name);
        return -1;
    }
    *out = tl_tensor_get_f64(v->cval, v->rank ? &zero : NULL);
    return 0;
}

/* The window functions: y[n] = sum of c_k cos(2 pi k n / N') with N'
 * the size (periodic) or the size - 1 (symmetric). */
static int op_window(OxModel *m)
{
    const char *op = m->node->op_type;
    OxValue *sz = need(m, 0), *y;
    double size, a0, a1, a2 = 0;
    int64_t n, denom;
    TlDType dt = ox_dtype((int32_t)ox_attr_i(m, "output_datatype", 1));

    if (!sz || scalar_of(m, sz, &size) < 0)
        return -1;
    n = (int64_t)size;
    if (n < 1 || n > OX_MAX_DIM || dt == DT_NONE) {
        ox_unsupported(m, "the size must be positive");
        return -1;
    }
    denom = ox_attr_i(m, "periodic", 1) ? n : n - 1;
    if (!strcmp(op, "HannWindow")) {
        a0 = 0.5, a1 = 0.5;
    } else if (!strcmp(op, "HammingWindow")) {
        a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;
    } else {
        a0 = 0.42, a1 = 0.5, a2 = 0.08;
    }
    if (!(y = ox_out(m, 0, dt, 1, &n)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, 1);
    buf_printf(&m->body, "%s(", dt_name(dt));
    ox_float_lit(&m->body, a0);
    buf_puts(&m->body, " - ");
    ox_float_lit(&m->body, a1);
    buf_printf(&m->body, " * cos(6.283185307179586 * f64(i0) / %lld.0)",
               (long long)(denom ? denom : 1));
    if (a2 != 0) {
        buf_puts(&m->body, " + ");
        ox_float_lit(&m->body, a2);
        buf_printf(&m->body, " * cos(12.566370614359172 * f64(i0) / "
                   "%lld.0)", (long long)(denom ? denom : 1));
    }
    buf_puts(&m->body, ")\n");
    return 0;
}

/* OneHot: y has the indices' axes with a new one of size depth at
 * `axis`; values[1] where the index points, values[0] elsewhere. */
static int op_onehot(OxModel *m)
{
    OxValue *ind = need(m, 0), *dep = need(m, 1), *val = need(m, 2), *y;
    double depth;
    int64_t dims[TL_MAX_RANK], d, ax;
    TlBuf *b = &m->body;
    TlBuf k;

    if (!ind || !dep || !val || scalar_of(m, dep, &depth) < 0)
        return -1;
    d = (int64_t)depth;
    ax = ox_attr_i(m, "axis", -1);
    if (ax < 0)
        ax += ind->rank + 1;
    if (d < 1 || d > OX_MAX_DIM || ax < 0 || ax > ind->rank ||
        ind->rank + 1 > TL_MAX_RANK || val->rank != 1 || val->dims[0] != 2) {
        ox_unsupported(m, "depth, axis or values are out of range");
        return -1;
    }
    for (int i = 0, j = 0; i <= ind->rank; i++)
        dims[i] = i == ax ? d : ind->dims[j++];
    if (!(y = ox_out(m, 0, val->dt, ind->rank + 1, dims)))
        return -1;
    ox_comment(m);
    buf_init(&k);
    ind->used = val->used = 1;
    buf_printf(&k, "i64(%s[", ind->id);
    for (int i = 0, j = 0; i <= ind->rank; i++)
        if (i != ax)
            buf_printf(&k, "%si%d", j++ ? ", " : "", i);
    buf_puts(&k, "])");
    ox_lhs(b, y->id, y->rank);
    buf_printf(b, "select(%s == i%d || %s == i%d - %lld, %s[1], %s[0])\n",
               k.s, (int)ax, k.s, (int)ax, (long long)d, val->id, val->id);
    buf_free(&k);
    return 0;
}

/* x read with the variable of axis a replaced by `at`. */
static void read_with(TlBuf *b, OxValue *x, int a, const char *at)
{
    x->used = 1;
    buf_printf(b, "%s[", x->id);
    for (int i = 0; i < x->rank; i++)
        if (i == a)
            buf_printf(b, "%s%s", i ? ", " : "", at);
        else
            buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_putc(b, ']');
}

static int op_topk(OxModel *m)
{
    OxValue *x = need(m, 0), *kv, *vals, *inds;
    int64_t dims[TL_MAX_RANK], a, n, kk;
    double kd;
    int largest = (int)ox_attr_i(m, "largest", 1);
    char tmp[200], *rank, vi[16];
    TlBuf *b = &m->body;

    if (!x)
        return -1;
    /* sorted = 0 leaves the order to the runtime: sorted is one. */
    ox_attr_ignore(m, "sorted");
    if (m->opset < 10) {
        kk = ox_attr_i(m, "k", -1);
    } else {
        if (!(kv = need(m, 1)) || scalar_of(m, kv, &kd) < 0)
            return -1;
        kk = (int64_t)kd;
    }
    a = ox_attr_i(m, "axis", -1);
    if (a < 0)
        a += x->rank;
    if (a < 0 || a >= x->rank || kk < 0 || kk > x->dims[a]) {
        ox_unsupported(m, "axis or k out of range");
        return -1;
    }
    n = x->dims[a];
    memcpy(dims, x->dims, sizeof dims);
    dims[a] = kk;
    if (!(vals = ox_out(m, 0, x->dt, x->rank, dims)) ||
        !(inds = ox_out(m, 1, DT_I64, x->rank, dims)))
        return -1;
    ox_comment(m);
    /* rank[.., j, ..]: how many elements come before element j (larger
     * first, or smaller with largest=0; ties by position) */
    snprintf(tmp, sizeof tmp, "%.100s_rank", inds->name);
    rank = ox_ident(m, tmp);
    snprintf(vi, sizeof vi, "i%d", (int)a);
    ox_lhs(b, rank, x->rank);
    buf_printf(b, "sum(r0 in 0..%lld) select(", (long long)n);
    read_with(b, x, (int)a, "r0");
    buf_puts(b, largest ? " > " : " < ");
    read_with(b, x, (int)a, vi);
    buf_puts(b, " || ");
    read_with(b, x, (int)a, "r0");
    buf_puts(b, " == ");
    read_with(b, x, (int)a, vi);
    buf_printf(b, " && r0 < i%d, 1, 0)\n", (int)a);
    ox_lhs(b, inds->id, x->rank);
    buf_printf(b, "sum(r0 in 0..%lld) select(%s[", (long long)n, rank);
    for (int i = 0; i < x->rank; i++)
        buf_printf(b, i == a ? "%sr0" : "%si%d", i ? ", " : "", i);
    buf_printf(b, "] == i%d, i64(r0), 0)\n", (int)a);
    ox_lhs(b, vals->id, x->rank);
    buf_printf(b, "sum(r0 in 0..%lld) select(%s[", (long long)n, rank);
    for (int i = 0; i < x->rank; i++)
        buf_printf(b, i == a ? "%sr0" : "%si%d", i ? ", " : "", i);
    buf_printf(b, "] == i%d, ", (int)a);
    read_with(b, x, (int)a, "r0");
    buf_printf(b, ", %s(0))\n", dt_name(x->dt));
    return 0;
}

/* Det: the sum over permutations p of sign(p) * prod x[i, p(i)]. */
static void perms(TlBuf *b, OxValue *x, int n, int *p, int k, int *used,
                  int *first)
{
    if (k == n) {
        int inv = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                inv += p[i] > p[j];
        buf_puts(b, *first ? (inv % 2 ? "-" : "") : inv % 2 ? " - " : " + ");
        *first = 0;
        for (int i = 0; i < n; i++) {
            buf_printf(b, "%s%s[", i ? " * " : "", x->id);
            for (int j = 0; j < x->rank - 2; j++)
                buf_printf(b, "i%d, ", j);
            buf_printf(b, "%d, %d]", i, p[i]);
        }
        return;
    }
    for (int v = 0; v < n; v++)
        if (!used[v]) {
            used[v] = 1;
            p[k] = v;
            perms(b, x, n, p, k + 1, used, first);
            used[v] = 0;
        }
}

static int op_det(OxModel *m)
{
    OxValue *x = need(m, 0), *y;
    int n, p[4], used[4] = {0}, first = 1;

    if (!x)
        return -1;
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2] ||
        x->dims[x->rank - 1] < 1 || x->dims[x->rank - 1] > 4 ||
        !dt_is_float(x->dt)) {
        ox_unsupported(m, "only float square matrices up to 4 x 4");
        return -1;
    }
    n = (int)x->dims[x->rank - 1];
    if (!(y = ox_out(m, 0, x->dt, x->rank - 2, x->dims)))
        return -1;
    ox_comment(m);
    x->used = 1;
    ox_lhs(&m->body, y->id, y->rank);
    perms(&m->body, x, n, p, 0, used, &first);
    buf_putc(&m->body, '\n');
    return 0;
}

/* BatchNormalization in training mode: normalized with the batch's own
 * mean and (biased) variance over every axis but 1, which also update
 * the running ones: running = input * momentum + batch * (1 - momentum).
 * Before opset 14 the extra outputs were saved statistics. */
int ox_batchnorm_training(OxModel *m)
{
    OxValue *x = need(m, 0), *sc = need(m, 1), *bi = need(m, 2);
    OxValue *mean = need(m, 3), *var = need(m, 4), *y, *o;
    const Onnx__NodeProto *n = m->node;
    double mom = ox_attr_f(m, "momentum", 0.9);
    const char *T;
    char tmp[200], *mu, *va;
    int64_t cnt = 1;
    TlBuf red, *b = &m->body;

    if (!x || !sc || !bi || !mean || !var)
        return -1;
    if (m->opset < 14 || x->rank < 2 || !dt_is_float(x->dt) ||
        sc->rank != 1 || bi->rank != 1 || mean->rank != 1 ||
        var->rank != 1 || n->n_output > 3) {
        ox_unsupported(m, "training mode needs opset 14 or later and a "
                       "float N, C, ... input");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    T = dt_name(x->dt);
    buf_init(&red);
    buf_puts(&red, "sum(");
    for (int i = 0, k = 0; i < x->rank; i++)
        if (i != 1) {
            buf_printf(&red, "%sr%d in 0..%lld", k ? ", " : "", k,
                       (long long)x->dims[i]);
            cnt *= x->dims[i];
            k++;
        }
    buf_puts(&red, ") ");
    /* x read at [r0, i0, r1, ...]: the channel is the stage's i0 */
    TlBuf xr;
    buf_init(&xr);
    buf_printf(&xr, "%s[r0, i0", x->id);
    for (int i = 2; i < x->rank; i++)
        buf_printf(&xr, ", r%d", i - 1);
    buf_putc(&xr, ']');
    x->used = sc->used = bi->used = mean->used = var->used = 1;
    snprintf(tmp, sizeof tmp, "%.100s_batch_mean", y->name);
    mu = ox_ident(m, tmp);
    snprintf(tmp, sizeof tmp, "%.100s_batch_var", y->name);
    va = ox_ident(m, tmp);
    ox_comment(m);
    buf_printf(b, "    %s[i0] = (%s%s) / %s(%lld)\n", mu, red.s, xr.s, T,
               (long long)cnt);
    buf_printf(b, "    %s[i0] = (%s(%s - %s[i0]) * (%s - %s[i0])) / "
               "%s(%lld)\n", va, red.s, xr.s, mu, xr.s, mu, T,
               (long long)cnt);
    ox_lhs(b, y->id, x->rank);
    buf_putc(b, '(');
    ox_read_bcast(b, x, x->rank, x->dims);
    buf_printf(b, " - %s[i1]) / sqrt(%s[i1] + %s(", mu, va, T);
    ox_float_lit(b, ox_attr_f(m, "epsilon", 1e-5));
    buf_printf(b, ")) * %s[i1] + %s[i1]\n", sc->id, bi->id);
    for (int k = 1; k < (int)n->n_output; k++) {
        const char *batch = k == 1 ? mu : va;
        OxValue *run = k == 1 ? mean : var;
        if (!*n->output[k])
            continue;
        if (!(o = ox_out(m, k, x->dt, 1, &x->dims[1])))
            break;
        ox_lhs(b, o->id, 1);
        buf_printf(b, "%s[i0] * %s(", run->id, T);
        ox_float_lit(b, mom);
        buf_printf(b, ") + %s[i0] * %s(", batch, T);
        ox_float_lit(b, 1 - mom);
        buf_puts(b, ")\n");
    }
    buf_free(&red);
    buf_free(&xr);
    return m->error ? -1 : 0;
}

/* x (of rank r, the last axis real/imaginary) read at the stage's
 * variables with axis a at r0 and the last index `part`. */
static void dft_read(TlBuf *b, OxValue *x, int a, int part)
{
    x->used = 1;
    buf_printf(b, "%s[", x->id);
    for (int i = 0; i < x->rank - 1; i++)
        buf_printf(b, i == a ? "%sr0" : "%si%d", i ? ", " : "", i);
    buf_printf(b, ", %d]", part);
}

/* DFT: y[.., k, .., c] = sum over n of x[.., n, ..] e^(-+2 pi i k n / N)
 * (divided by N when inverse), c 0 the real part, 1 the imaginary.  The
 * angle takes k n modulo N, so that it stays exact. */
static int op_dft(OxModel *m)
{
    OxValue *x = need(m, 0), *ln = ox_in(m, 1), *y;
    int64_t a, n, nk, len, dims[TL_MAX_RANK];
    int inv = (int)ox_attr_i(m, "inverse", 0), cplx;
    double dl;
    char tmp[200], *part[2];
    const char *T;
    TlBuf *b = &m->body;

    if (!x)
        return -1;
    a = ox_attr_i(m, "axis", 1);
    if (a < 0)
        a += x->rank;
    if (!dt_is_float(x->dt) || x->rank < 3 || a < 1 || a >= x->rank - 1 ||
        (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2)) {
        ox_unsupported(m, "needs a float [batch, signal.., 1 or 2] input "
                       "and an axis among the signal's");
        return -1;
    }
    cplx = x->dims[x->rank - 1] == 2;
    n = x->dims[a];
    if (ln) {
        if (scalar_of(m, ln, &dl) < 0)
            return -1;
        n = (int64_t)dl;
    }
    if (n < 1 || n > OX_MAX_DIM) {
        ox_unsupported(m, "dft_length out of range");
        return -1;
    }
    nk = ox_attr_i(m, "onesided", 0) ? n / 2 + 1 : n;
    len = n < x->dims[a] ? n : x->dims[a];      /* zero-padded past */
    memcpy(dims, x->dims, sizeof dims);
    dims[a] = nk;
    dims[x->rank - 1] = 2;
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    T = dt_name(x->dt);
    ox_comment(m);
    for (int c = 0; c < 2; c++) {
        snprintf(tmp, sizeof tmp, "%.100s_%s", y->name, c ? "imag" : "real");
        part[c] = ox_ident(m, tmp);
        buf_printf(b, "    %s[", part[c]);
        for (int i = 0; i < x->rank - 1; i++)
            buf_printf(b, "%si%d", i ? ", " : "", i);
        buf_printf(b, "] = ");
        if (inv)
            buf_puts(b, "(");
        buf_printf(b, "sum(r0 in 0..%lld) ", (long long)len);
        /* forward: re = xr cos + xi sin, im = xi cos - xr sin; inverse
         * flips the sines */
        buf_puts(b, "(");
        if (c == 0 || cplx) {
            dft_read(b, x, (int)a, c);
            buf_printf(b, " * %s(cos(6.283185307179586 * f64(i%d * r0 %% "
                       "%lld) / %lld.0))", T, (int)a, (long long)n,
                       (long long)n);
        }
        if (cplx || c == 1) {
            int minus = (c == 0) == !!inv;
            buf_puts(b, minus ? (cplx ? " - " : "-") : (cplx ? " + " : ""));
            dft_read(b, x, (int)a, c == 0 ? 1 : 0);
            buf_printf(b, " * %s(sin(6.283185307179586 * f64(i%d * r0 %% "
                       "%lld) / %lld.0))", T, (int)a, (long long)n,
                       (long long)n);
        }
        buf_puts(b, ")");
        if (inv)
            buf_printf(b, ") / %s(%lld)", T, (long long)n);
        buf_putc(b, '\n');
    }
    ox_lhs(b, y->id, y->rank);
    buf_printf(b, "select(i%d == 0, %s[", x->rank - 1, part[0]);
    for (int i = 0; i < x->rank - 1; i++)
        buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_printf(b, "], %s[", part[1]);
    for (int i = 0; i < x->rank - 1; i++)
        buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_puts(b, "])\n");
    return 0;
}

/* MelWeightMatrix: triangular filters between band edges equally
 * spaced on the mel scale (mel(f) = 2595 log10(1 + f / 700)), each
 * edge taken to the DFT bin below it; as the operator's definition
 * computes them (edge mels in f32, bins in f64).  The sizes must be
 * known at import; the stages then fold into a constant. */
static int op_mel_weight_matrix(OxModel *m)
{
    OxValue *v[5], *y;
    double a[5];
    int64_t dims[2], nm, dft, sr;
    TlDType dt = ox_dtype((int32_t)ox_attr_i(m, "output_datatype", 1));
    const char *fb;
    char tmp[200], mel[2][200];
    TlBuf *b = &m->body;

    for (int i = 0; i < 5; i++)
        if (!(v[i] = need(m, i)) || scalar_of(m, v[i], &a[i]) < 0)
            return -1;
    nm = (int64_t)a[0];
    dft = (int64_t)a[1];
    sr = (int64_t)a[2];
    if (nm < 1 || nm > OX_MAX_DIM || dft < 1 || dft > OX_MAX_DIM ||
        sr < 1 || dt == DT_NONE || dt == DT_BOOL) {
        ox_unsupported(m, "bad sizes or output_datatype");
        return -1;
    }
    dims[0] = dft / 2 + 1;
    dims[1] = nm;
    if (!(y = ox_out(m, 0, dt, 2, dims)))
        return -1;
    for (int k = 0; k < 2; k++) {
        TlBuf e;
        buf_init(&e);
        ox_float_lit(&e, a[3 + k]);
        snprintf(mel[k], sizeof mel[k], "f32(2595) * f32(log(f64(1) + "
                 "f64(f32(%s) / f32(700))) / log(f64(10)))", e.s);
        buf_free(&e);
    }
    snprintf(tmp, sizeof tmp, "%s_edge", y->name);
    fb = ox_ident(m, tmp);
    ox_comment(m);
    /* the band edges, in DFT bins */
    buf_printf(b, "    %s[i0] = i64(floor(f64(%lld) * (f64(700) * "
               "(pow(f64(10), (f64(i0) * f64((%s - %s) / f32(%lld)) + "
               "f64(%s)) / f64(2595)) - f64(1))) / f64(%lld)))\n", fb,
               (long long)(dft + 1), mel[1], mel[0], (long long)(nm + 2),
               mel[0], (long long)sr);
    /* column i1: rising from edge i1 to i1 + 1, falling to i1 + 2 */
    ox_lhs(b, y->id, 2);
    {
        char lo[120], ce[120], hi[120];
        snprintf(lo, sizeof lo, "%s[i1]", fb);
        snprintf(ce, sizeof ce, "%s[i1 + 1]", fb);
        snprintf(hi, sizeof hi, "%s[i1 + 2]", fb);
        buf_printf(b, "%s(select(%s > %s && i64(i0) >= %s && i64(i0) < %s, "
                   "f64(%s - i64(i0)) / f64(%s - %s), ", dt_name(dt), hi,
                   ce, ce, hi, hi, hi, ce);
        buf_printf(b, "select(%s == %s, select(i64(i0) == %s, f64(1), "
                   "f64(0)), ", ce, lo, ce);
        buf_printf(b, "select(i64(i0) >= %s && i64(i0) <= %s, f64(i64(i0) - "
                   "%s) / f64(%s - %s), f64(0)))))\n", lo, ce, lo, ce, lo);
    }
    return 0;
}

/* STFT: a DFT of each frame, frame f being the frame_length samples
 * from f * frame_step on, times the window (if given).  The output
 * is [batch, frames, bins, 2]; onesided keeps the first half of the
 * bins. */
static int op_stft(OxModel *m)
{
    OxValue *x = need(m, 0), *st = need(m, 1), *w = ox_in(m, 2);
    OxValue *fl = ox_in(m, 3), *y;
    int64_t step, n, frames, nk, dims[4];
    double d;
    int cplx;
    char tmp[200], *part[2], xr[2][200], win[200];
    const char *T;
    TlBuf *b = &m->body;

    if (!x || !st || scalar_of(m, st, &d) < 0)
        return -1;
    step = (int64_t)d;
    if (!dt_is_float(x->dt) || x->rank != 3 ||
        (x->dims[2] != 1 && x->dims[2] != 2)) {
        ox_unsupported(m, "needs a float [batch, length, 1 or 2] signal");
        return -1;
    }
    cplx = x->dims[2] == 2;
    if (fl) {
        if (scalar_of(m, fl, &d) < 0)
            return -1;
        n = (int64_t)d;
    } else if (w && w->rank == 1) {
        n = w->dims[0];
    } else {
        ox_unsupported(m, "needs a frame_length or a window");
        return -1;
    }
    if (w && (w->rank != 1 || w->dims[0] != n || w->dt != x->dt)) {
        ox_unsupported(m, "the window must have frame_length values of "
                       "the signal's dtype");
        return -1;
    }
    if (step < 1 || n < 1 || n > x->dims[1]) {
        ox_unsupported(m, "frame_step or frame_length out of range");
        return -1;
    }
    frames = (x->dims[1] - n) / step + 1;
    nk = ox_attr_i(m, "onesided", 1) ? n / 2 + 1 : n;
    if (cplx && nk != n) {
        ox_unsupported(m, "onesided with a complex signal");
        return -1;
    }
    dims[0] = x->dims[0];
    dims[1] = frames;
    dims[2] = nk;
    dims[3] = 2;
    if (!(y = ox_out(m, 0, x->dt, 4, dims)))
        return -1;
    T = dt_name(x->dt);
    x->used = 1;
    if (w)
        w->used = 1;
    snprintf(win, sizeof win, "%s%s", w ? " * " : "", w ? w->id : "");
    if (w)
        strncat(win, "[r0]", sizeof win - strlen(win) - 1);
    for (int c = 0; c < 2; c++)
        snprintf(xr[c], sizeof xr[c], "%s[i0, i1 * %lld + r0, %d]", x->id,
                 (long long)step, c);
    ox_comment(m);
    for (int c = 0; c < 2; c++) {
        snprintf(tmp, sizeof tmp, "%.100s_%s", y->name, c ? "imag" : "real");
        part[c] = ox_ident(m, tmp);
        /* re = xr cos + xi sin, im = xi cos - xr sin, at angle
         * 2 pi k n / N (k n taken mod N first, for accuracy) */
        buf_printf(b, "    %s[i0, i1, i2] = sum(r0 in 0..%lld) (", part[c],
                   (long long)n);
        if (c == 0 || cplx)
            buf_printf(b, "%s * %s(cos(6.283185307179586 * f64(i2 * r0 %% "
                       "%lld) / %lld.0))", xr[c], T, (long long)n,
                       (long long)n);
        if (cplx || c == 1)
            buf_printf(b, "%s%s * %s(sin(6.283185307179586 * f64(i2 * r0 %% "
                       "%lld) / %lld.0))", c == 0 ? " + " : cplx ? " - " : "-",
                       xr[c == 0 ? 1 : 0], T, (long long)n, (long long)n);
        buf_printf(b, ")%s\n", win);
    }
    ox_lhs(b, y->id, 4);
    buf_printf(b, "select(i3 == 0, %s[i0, i1, i2], %s[i0, i1, i2])\n",
               part[0], part[1]);
    return 0;
}

/* Compress: the condition must be known at import (it decides the
 * output's shape); the kept positions become a constant table that the
 * stage reads the input by: `y[i0, i1] = x[y_index[i0], i1]`, or,
 * without an axis (the input flattened), one row of coordinates per
 * kept element: `y[i0] = x[y_index[i0, 0], y_index[i0, 1]]`. */
static int op_compress(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *c = x ? ox_need_in(m, 1) : NULL, *y, *tv;
    const Onnx__AttributeProto *aa = ox_attr(m, "axis");
    int64_t axis = aa && aa->has_i ? aa->i : -1, n, len, k = 0, dims[1];
    int64_t tdims[2], idx[1];
    TlTensor *t;
    char *tname;

    if (!c)
        return -1;
    if (!c->cval || c->rank != 1) {
        ox_unsupported(m, "the condition '%s' must be a 1-D tensor known at "
                       "import (the output's shape depends on it; bind it "
                       "with --bind)", c->name);
        return -1;
    }
    if (aa && (axis < -x->rank || axis >= x->rank)) {
        ox_unsupported(m, "axis %lld is out of range", (long long)axis);
        return -1;
    }
    if (aa && axis < 0)
        axis += x->rank;
    n = aa ? x->dims[axis] : ox_numel(x);
    len = c->dims[0] < n ? c->dims[0] : n;
    for (idx[0] = 0; idx[0] < len; idx[0]++)
        k += tl_tensor_get_i64(c->cval, idx) != 0;
    tdims[0] = k;
    tdims[1] = x->rank;
    t = tl_tensor_new(DT_I64, aa ? 1 : 2, tdims, NULL, 0);
    for (idx[0] = 0, k = 0; idx[0] < len; idx[0]++) {
        int64_t *row, flat = idx[0];
        if (!tl_tensor_get_i64(c->cval, idx))
            continue;
        if (aa) {
            ((int64_t *)t->data)[k++] = idx[0];
            continue;
        }
        row = (int64_t *)t->data + k++ * x->rank;
        for (int j = x->rank; j-- > 0;) {
            row[j] = flat % x->dims[j];
            flat /= x->dims[j];
        }
    }
    if (aa) {
        int64_t od[TL_MAX_RANK];
        memcpy(od, x->dims, sizeof od);
        od[axis] = tdims[0];
        y = ox_out(m, 0, x->dt, x->rank, od);
    } else {
        dims[0] = tdims[0];
        y = ox_out(m, 0, x->dt, 1, dims);
    }
    if (!y) {
        tl_tensor_unref(t);
        return -1;
    }
    tname = ox_fresh(m, m->node->output[0], "@index");
    tv = ox_const(m, tname, t);
    free(tname);
    tv->used = 1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, y->rank);
    buf_printf(&m->body, "%s[", ox_fixed(m, x));
    for (int j = 0; j < x->rank; j++) {
        buf_puts(&m->body, j ? ", " : "");
        if (!aa)
            buf_printf(&m->body, "%s[i0, %d]", tv->id, j);
        else if (j == axis)
            buf_printf(&m->body, "%s[i%d]", tv->id, j);
        else
            buf_printf(&m->body, "i%d", j);
    }
    buf_puts(&m->body, "]\n");
    return 0;
}

static const OxOp ops[] = {
    {"Compress", op_compress},
    {"STFT", op_stft},
    {"MelWeightMatrix", op_mel_weight_matrix},
    {"DFT", op_dft},
    {"HannWindow", op_window},
    {"HammingWindow", op_window},
    {"BlackmanWindow", op_window},
    {"OneHot", op_onehot},
    {"TopK", op_topk},
    {"Det", op_det},
};

OxOpFn ox_misc_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
