/*
 * onnx_ops_tensor.c - ONNX ops that select and arrange elements: Slice,
 * Gather, GatherElements, Split, Expand, Tile, Pad, Trilu, CumSum,
 * Range.  Shape-carrying inputs (starts, repeats, pads, ...) must be
 * known at import: constants, initializers or bound inputs.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef OxIdx Idx;

static void rd(OxModel *m, TlBuf *b, OxValue *v, Idx *idx,
               const char *helper)
{
    v->used = 1;
    /* A gathered stage keeps its natural domain (clamp_edge); reads
     * outside a stage's extent go through a padded stage. */
    if (helper && !strcmp(helper, "zero_pad")) {
        ox_read_bounded(m, b, v, helper, idx);
        return;
    }
    if (helper)
        buf_printf(b, "%s.%s", v->id, helper);
    else
        buf_puts(b, v->id);
    buf_putc(b, '[');
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s", i ? ", " : "", idx[i]);
    buf_putc(b, ']');
}

static void plain(Idx *idx, int rank)
{
    for (int i = 0; i < rank; i++)
        snprintf(idx[i], sizeof idx[0], "i%d", i);
}

static int axis_of(OxModel *m, int64_t a, int rank)
{
    if (a < -rank || a >= rank) {
        ox_unsupported(m, "axis %lld is out of range for rank %d",
                       (long long)a, rank);
        return -1;
    }
    return (int)(a < 0 ? a + rank : a);
}

static void idx_affine(char *out, size_t n, int i, int64_t start,
                       int64_t step)
{
    int k = snprintf(out, n, "i%d", i);
    if (step != 1)
        k += snprintf(out + k, n - (size_t)k, " * %lld", (long long)step);
    if (start > 0)
        snprintf(out + k, n - (size_t)k, " + %lld", (long long)start);
    else if (start < 0)
        snprintf(out + k, n - (size_t)k, " - %lld", (long long)-start);
    if (step == -1 && start > 0)
        snprintf(out, n, "%lld - i%d", (long long)start, i);
}

/* A stage `<y>_index[...] = select(ind < 0, ind + D, ind)` over ind's
 * shape (ONNX indices may count from the end); its identifier. */
static char *index_stage(OxModel *m, OxValue *ind, const char *yname,
                         int64_t d)
{
    char tmp[200];
    char *id;
    Idx ii[TL_MAX_RANK];
    TlBuf *b = &m->body;

    snprintf(tmp, sizeof tmp, "%.100s_index", yname);
    id = ox_ident(m, tmp);
    plain(ii, ind->rank);
    ox_lhs(b, id, ind->rank);
    buf_puts(b, "select(");
    rd(m, b, ind, ii, NULL);
    buf_puts(b, " < 0, ");
    rd(m, b, ind, ii, NULL);
    buf_printf(b, " + %lld, ", (long long)d);
    rd(m, b, ind, ii, NULL);
    buf_puts(b, ")\n");
    return id;
}

static int op_slice(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t st[TL_MAX_RANK], en[TL_MAX_RANK], ax[TL_MAX_RANK],
        sp[TL_MAX_RANK];
    int64_t start[TL_MAX_RANK], step[TL_MAX_RANK], dims[TL_MAX_RANK];
    int n, ne, na = -1, ns = -1;
    Idx idx[TL_MAX_RANK];

    if (!x)
        return -1;
    if (m->opset < 10) {
        n = ox_attr_ints(m, "starts", st, TL_MAX_RANK);
        ne = ox_attr_ints(m, "ends", en, TL_MAX_RANK);
        na = ox_attr_ints(m, "axes", ax, TL_MAX_RANK);
    } else {
        OxValue *s = ox_need_in(m, 1), *e = ox_need_in(m, 2);
        if (!s || !e)
            return -1;
        n = ox_const_ints(m, s, st, TL_MAX_RANK);
        ne = ox_const_ints(m, e, en, TL_MAX_RANK);
        if (ox_in(m, 3))
            na = ox_const_ints(m, ox_in(m, 3), ax, TL_MAX_RANK);
        if (ox_in(m, 4))
            ns = ox_const_ints(m, ox_in(m, 4), sp, TL_MAX_RANK);
    }
    if (m->error)
        return -1;
    if (n < 0 || n != ne || (na >= 0 && na != n) || (ns >= 0 && ns != n)) {
        ox_unsupported(m, "starts, ends, axes and steps do not agree");
        return -1;
    }
    for (int i = 0; i < x->rank; i++) {
        start[i] = 0;
        step[i] = 1;
        dims[i] = x->dims[i];
    }
    for (int i = 0; i < n; i++) {
        int a = axis_of(m, na >= 0 ? ax[i] : i, x->rank);
        int64_t d, s, e, k = ns >= 0 ? sp[i] : 1;
        if (a < 0)
            return -1;
        d = x->dims[a];
        if (k == 0) {
            ox_unsupported(m, "a step of 0");
            return -1;
        }
        s = st[i] < 0 ? st[i] + d : st[i];
        e = en[i] < 0 ? en[i] + d : en[i];
        if (k > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            e = e < 0 ? 0 : e > d ? d : e;
            dims[a] = e > s ? (e - s + k - 1) / k : 0;
        } else {
            s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
            dims[a] = s > e ? (s - e + (-k) - 1) / (-k) : 0;
        }
        start[a] = s;
        step[a] = k;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    for (int i = 0; i < x->rank; i++)
        idx_affine(idx[i], sizeof idx[0], i, start[i], step[i]);
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    rd(m, &m->body, x, idx, NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

/* Gather: y[a.., j.., b..] = x[a.., ind[j..], b..]. */
static int op_gather(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *ind = ox_need_in(m, 1), *y;
    int64_t dims[TL_MAX_RANK];
    int a, rank = 0;
    Idx ix[TL_MAX_RANK], ii[TL_MAX_RANK];

    if (!x || !ind || (a = axis_of(m, ox_attr_i(m, "axis", 0), x->rank)) < 0)
        return -1;
    if (x->rank + ind->rank - 1 > TL_MAX_RANK || dt_is_float(ind->dt)) {
        ox_unsupported(m, "the result would have rank above %d",
                       TL_MAX_RANK);
        return -1;
    }
    for (int i = 0; i < a; i++)
        dims[rank++] = x->dims[i];
    for (int i = 0; i < ind->rank; i++)
        dims[rank++] = ind->dims[i];
    for (int i = a + 1; i < x->rank; i++)
        dims[rank++] = x->dims[i];
    if (!(y = ox_out(m, 0, x->dt, rank, dims)))
        return -1;
    ox_comment(m);
    {
        char *id = index_stage(m, ind, y->name, x->dims[a]);
        int k = 0;
        k += snprintf(ii[0], sizeof ii[0], "%s[", id);
        for (int i = 0; i < ind->rank; i++)
            k += snprintf(ii[0] + k, sizeof ii[0] - (size_t)k, "%si%d",
                          i ? ", " : "", a + i);
        snprintf(ii[0] + k, sizeof ii[0] - (size_t)k, "]");
    }
    for (int i = 0; i < x->rank; i++) {
        if (i < a)
            snprintf(ix[i], sizeof ix[0], "i%d", i);
        else if (i > a)
            snprintf(ix[i], sizeof ix[0], "i%d", i - 1 + ind->rank);
        else
            memcpy(ix[i], ii[0], sizeof ix[0]);
    }
    ox_lhs(&m->body, y->id, rank);
    /* through clamp_edge: a gathered stage keeps its natural domain */
    rd(m, &m->body, x, ix, x->kind == OX_NODE ? "clamp_edge" : NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_gather_elements(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *ind = ox_need_in(m, 1), *y;
    int a;
    Idx ix[TL_MAX_RANK];

    if (!x || !ind || (a = axis_of(m, ox_attr_i(m, "axis", 0), x->rank)) < 0)
        return -1;
    if (ind->rank != x->rank || dt_is_float(ind->dt)) {
        ox_unsupported(m, "indices must have the input's rank");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, ind->rank, ind->dims)))
        return -1;
    plain(ix, x->rank);
    ox_comment(m);
    {
        char *id = index_stage(m, ind, y->name, x->dims[a]);
        int k = snprintf(ix[a], sizeof ix[0], "%s[", id);
        for (int i = 0; i < ind->rank; i++)
            k += snprintf(ix[a] + k, sizeof ix[0] - (size_t)k, "%si%d",
                          i ? ", " : "", i);
        snprintf(ix[a] + k, sizeof ix[0] - (size_t)k, "]");
    }
    ox_lhs(&m->body, y->id, y->rank);
    rd(m, &m->body, x, ix, x->kind == OX_NODE ? "clamp_edge" : NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_split(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    int64_t sizes[64], dims[TL_MAX_RANK], off = 0;
    int a, n = (int)m->node->n_output, ns = -1;
    Idx idx[TL_MAX_RANK];

    if (!x || (a = axis_of(m, ox_attr_i(m, "axis", 0), x->rank)) < 0)
        return -1;
    if (n < 1 || n > 64) {
        ox_unsupported(m, "%d outputs", n);
        return -1;
    }
    if (m->opset >= 13 && ox_in(m, 1))
        ns = ox_const_ints(m, ox_in(m, 1), sizes, 64);
    else if (m->opset < 13)
        ns = ox_attr_ints(m, "split", sizes, 64);
    if (m->error)
        return -1;
    if (ns < 0) {
        int64_t d = x->dims[a], each = (d + n - 1) / n;
        for (int i = 0; i < n; i++) {
            sizes[i] = d - i * each < each ? d - i * each : each;
            if (sizes[i] < 0)
                sizes[i] = 0;
        }
        ns = n;
    }
    if (ns != n) {
        ox_unsupported(m, "split has %d entries for %d outputs", ns, n);
        return -1;
    }
    ox_comment(m);
    for (int i = 0; i < n; i++) {
        memcpy(dims, x->dims, sizeof dims);
        dims[a] = sizes[i];
        if (!(y = ox_out(m, i, x->dt, x->rank, dims)))
            return -1;
        plain(idx, x->rank);
        idx_affine(idx[a], sizeof idx[0], a, off, 1);
        ox_lhs(&m->body, y->id, x->rank);
        rd(m, &m->body, x, idx, NULL);
        buf_putc(&m->body, '\n');
        off += sizes[i];
    }
    if (off != x->dims[a]) {
        ox_unsupported(m, "the parts do not add up to the axis");
        return -1;
    }
    return 0;
}

static int op_expand(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *s = ox_need_in(m, 1), *y, shape;
    int64_t dims[TL_MAX_RANK];
    int n, rank;

    if (!x || !s || (n = ox_const_ints(m, s, shape.dims, TL_MAX_RANK)) < 0)
        return -1;
    memset(&shape, 0, sizeof shape);
    n = ox_const_ints(m, s, shape.dims, TL_MAX_RANK);
    shape.name = s->name;
    shape.rank = n;
    if (ox_broadcast(m, x, &shape, &rank, dims) < 0 ||
        !(y = ox_out(m, 0, x->dt, rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, rank);
    ox_read_bcast(&m->body, x, rank, dims);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_tile(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *r = ox_need_in(m, 1), *y;
    int64_t rep[TL_MAX_RANK], dims[TL_MAX_RANK];
    Idx idx[TL_MAX_RANK];

    if (!x || !r || ox_const_ints(m, r, rep, TL_MAX_RANK) != x->rank) {
        if (!m->error)
            ox_unsupported(m, "repeats must have one entry per axis");
        return -1;
    }
    for (int i = 0; i < x->rank; i++) {
        if (rep[i] < 0) {
            ox_unsupported(m, "negative repeats");
            return -1;
        }
        dims[i] = x->dims[i] * rep[i];
        if (rep[i] == 1 || x->dims[i] == 1)
            snprintf(idx[i], sizeof idx[0], x->dims[i] == 1 ? "0" : "i%d",
                     i);
        else
            snprintf(idx[i], sizeof idx[0], "i%d %% %lld", i,
                     (long long)x->dims[i]);
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    rd(m, &m->body, x, idx, NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_pad(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y, *cv = NULL;
    int64_t pads[2 * TL_MAX_RANK], dims[TL_MAX_RANK];
    const Onnx__AttributeProto *ma = ox_attr(m, "mode");
    int n, mode = 0;    /* constant, reflect, edge */
    Idx idx[TL_MAX_RANK];
    TlBuf *b = &m->body;

    if (!x)
        return -1;
    if (ma && ma->has_s)
        mode = ma->s.len == 7 && !memcmp(ma->s.data, "reflect", 7) ? 1
               : ma->s.len == 4 && !memcmp(ma->s.data, "edge", 4) ? 2
               : ma->s.len == 8 && !memcmp(ma->s.data, "constant", 8) ? 0
                                                                    : -1;
    if (mode < 0) {
        ox_unsupported(m, "unsupported mode");
        return -1;
    }
    if (m->opset < 11) {
        n = ox_attr_ints(m, "pads", pads, 2 * TL_MAX_RANK);
    } else {
        OxValue *p = ox_need_in(m, 1);
        if (!p)
            return -1;
        n = ox_const_ints(m, p, pads, 2 * TL_MAX_RANK);
        cv = ox_in(m, 2);
    }
    if (m->error)
        return -1;
    if (n != 2 * x->rank || ox_in(m, 3)) {
        ox_unsupported(m, "pads must have two entries per axis (axes are "
                       "not supported)");
        return -1;
    }
    for (int i = 0; i < x->rank; i++) {
        int64_t pb = pads[i], pe = pads[i + x->rank];
        if (pb < 0 || pe < 0 || (mode == 1 && (pb >= x->dims[i] ||
                                               pe >= x->dims[i]))) {
            ox_unsupported(m, "negative or too large pads");
            return -1;
        }
        dims[i] = x->dims[i] + pb + pe;
        idx_affine(idx[i], sizeof idx[0], i, -pb, 1);
        if (mode == 1 && (pb || pe)) {
            TlBuf t;
            buf_init(&t);
            buf_printf(&t, "select(%s < 0, -(%s), select(%s >= %lld, "
                       "%lld - (%s), %s))", idx[i], idx[i], idx[i],
                       (long long)x->dims[i],
                       (long long)(2 * (x->dims[i] - 1)), idx[i], idx[i]);
            TL_ASSERT(t.len < sizeof idx[0]);
            memcpy(idx[i], t.s, t.len + 1);
            buf_free(&t);
        }
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(b, y->id, x->rank);
    if (x->rank == 0) {
        rd(m, b, x, idx, NULL);
    } else if (mode == 2) {
        rd(m, b, x, idx, "clamp_edge");
    } else if (mode == 1) {
        rd(m, b, x, idx, NULL);
    } else if (cv || (m->opset < 11 && ox_attr_f(m, "value", 0) != 0)) {
        Idx none[1];
        buf_puts(b, "select(");
        for (int i = 0; i < x->rank; i++)
            buf_printf(b, "%s%s >= 0 && %s < %lld", i ? " && " : "",
                       idx[i], idx[i], (long long)x->dims[i]);
        buf_puts(b, ", ");
        rd(m, b, x, idx, "clamp_edge");
        buf_puts(b, ", ");
        if (cv) {
            rd(m, b, cv, none, NULL);
        } else {
            buf_printf(b, "%s(", dt_name(x->dt));
            ox_float_lit(b, ox_attr_f(m, "value", 0));
            buf_putc(b, ')');
        }
        buf_putc(b, ')');
    } else {
        rd(m, b, x, idx, "zero_pad");
    }
    buf_putc(b, '\n');
    return 0;
}

static int op_trilu(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y, *kv = ox_in(m, 1);
    int64_t k = 0;
    int upper = (int)ox_attr_i(m, "upper", 1), r;
    Idx idx[TL_MAX_RANK];

    if (!x)
        return -1;
    if (kv && ox_const_ints(m, kv, &k, 1) != 1) {
        if (!m->error)
            ox_unsupported(m, "k must be one integer");
        return -1;
    }
    if ((r = x->rank) < 2) {
        ox_unsupported(m, "needs rank 2 or more");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, r, x->dims)))
        return -1;
    plain(idx, r);
    ox_comment(m);
    ox_lhs(&m->body, y->id, r);
    buf_printf(&m->body, "select(i%d - i%d %s %lld, ", r - 1, r - 2,
               upper ? ">=" : "<=", (long long)k);
    rd(m, &m->body, x, idx, NULL);
    buf_printf(&m->body, ", %s(0))\n", dt_name(x->dt));
    return 0;
}

static int op_cumsum(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *av = ox_need_in(m, 1), *y;
    int64_t a64;
    int a, ex = (int)ox_attr_i(m, "exclusive", 0);
    int rev = (int)ox_attr_i(m, "reverse", 0);
    Idx idx[TL_MAX_RANK];

    if (!x || !av || ox_const_ints(m, av, &a64, 1) != 1 ||
        (a = axis_of(m, a64, x->rank)) < 0) {
        if (!m->error)
            ox_unsupported(m, "axis must be one integer");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    plain(idx, x->rank);
    strcpy(idx[a], "r0");
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    buf_printf(&m->body, "sum(r0 in 0..%lld) select(r0 %s i%d, ",
               (long long)x->dims[a],
               rev ? (ex ? ">" : ">=") : (ex ? "<" : "<="), a);
    rd(m, &m->body, x, idx, NULL);
    buf_printf(&m->body, ", %s(0))\n", dt_name(x->dt));
    return 0;
}

static int op_range(OxModel *m)
{
    OxValue *s = ox_need_in(m, 0), *l = ox_need_in(m, 1);
    OxValue *d = ox_need_in(m, 2), *y;
    int64_t n;
    double fs, fl, fd;
    Idx none[1];

    if (!s || !l || !d)
        return -1;
    if (!s->cval || !l->cval || !d->cval || s->rank || l->rank || d->rank) {
        ox_unsupported(m, "start, limit and delta must be scalars known at "
                       "import");
        return -1;
    }
    fs = tl_tensor_get_f64(s->cval, NULL);
    fl = tl_tensor_get_f64(l->cval, NULL);
    fd = tl_tensor_get_f64(d->cval, NULL);
    if (fd == 0) {
        ox_unsupported(m, "delta is 0");
        return -1;
    }
    {
        double c = (fl - fs) / fd;
        n = c <= 0 ? 0 : (int64_t)c + ((double)(int64_t)c < c);
    }
    if (!(y = ox_out(m, 0, s->dt, 1, &n)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, 1);
    rd(m, &m->body, s, none, NULL);
    buf_printf(&m->body, " + %s(i0) * ", dt_name(s->dt));
    rd(m, &m->body, d, none, NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_constant_of_shape(OxModel *m)
{
    OxValue *s = ox_in(m, 0), *y;
    int64_t dims[TL_MAX_RANK];
    const Onnx__AttributeProto *va = ox_attr(m, "value");
    TlTensor *v = NULL;
    TlDType dt = DT_F32;
    double f = 0;
    int n;

    if (!s || (n = ox_const_ints(m, s, dims, TL_MAX_RANK)) < 0) {
        if (!m->error)
            ox_unsupported(m, "needs a shape input");
        return -1;
    }
    if (va && va->t) {
        if (!(v = ox_tensor_from_proto(m, va->t)))
            return -1;
        if (tl_tensor_numel(v) != 1) {
            tl_tensor_unref(v);
            ox_unsupported(m, "value must hold one element");
            return -1;
        }
        int64_t zero[TL_MAX_RANK] = {0};
        dt = v->dtype;
        f = dt_is_float(dt) ? tl_tensor_get_f64(v, zero)
                            : (double)tl_tensor_get_i64(v, zero);
        tl_tensor_unref(v);
    }
    for (int i = 0; i < n; i++)
        if (dims[i] < 0) {
            ox_unsupported(m, "negative dimension");
            return -1;
        }
    if (!(y = ox_out(m, 0, dt, n, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(&m->body, y->id, n);
    if (dt == DT_BOOL)
        buf_puts(&m->body, f != 0 ? "true" : "false");
    else if (dt_is_float(dt)) {
        buf_printf(&m->body, "%s(", dt_name(dt));
        ox_float_lit(&m->body, f);
        buf_putc(&m->body, ')');
    } else {
        buf_printf(&m->body, "%s(%lld)", dt_name(dt), (long long)f);
    }
    buf_putc(&m->body, '\n');
    return 0;
}

/* DepthToSpace (DCR or CRD) and SpaceToDepth over NCHW. */
static int op_depth_space(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *y;
    int64_t bs = ox_attr_i(m, "blocksize", 0), d[4];
    int to_space = !strcmp(m->node->op_type, "DepthToSpace");
    const Onnx__AttributeProto *ma = ox_attr(m, "mode");
    int crd = ma && ma->has_s && ma->s.len == 3 &&
              !memcmp(ma->s.data, "CRD", 3);
    Idx idx[4];

    if (!x || x->rank != 4 || bs < 1) {
        ox_unsupported(m, "needs an N, C, H, W input and a blocksize");
        return -1;
    }
    if (ma && ma->has_s && !crd &&
        !(ma->s.len == 3 && !memcmp(ma->s.data, "DCR", 3))) {
        ox_unsupported(m, "mode '%.*s' is neither DCR nor CRD",
                       (int)ma->s.len, (const char *)ma->s.data);
        return -1;
    }
    /* (bs * bs below must not overflow: a hostile blocksize crashed) */
    if (bs > (to_space ? x->dims[1] : x->dims[2]) || bs > OX_MAX_DIM) {
        ox_unsupported(m, "blocksize %lld is larger than the %s",
                       (long long)bs, to_space ? "channels" : "height");
        return -1;
    }
    if (to_space) {
        if (x->dims[1] % (bs * bs)) {
            ox_unsupported(m, "channels not divisible by blocksize^2");
            return -1;
        }
        d[0] = x->dims[0];
        d[1] = x->dims[1] / (bs * bs);
        d[2] = x->dims[2] * bs;
        d[3] = x->dims[3] * bs;
    } else {
        if (x->dims[2] % bs || x->dims[3] % bs) {
            ox_unsupported(m, "height or width not divisible by blocksize");
            return -1;
        }
        d[0] = x->dims[0];
        d[1] = x->dims[1] * bs * bs;
        d[2] = x->dims[2] / bs;
        d[3] = x->dims[3] / bs;
    }
    if (!(y = ox_out(m, 0, x->dt, 4, d)))
        return -1;
    long long b = (long long)bs, c = (long long)(to_space ? d[1]
                                                          : x->dims[1]);
    strcpy(idx[0], "i0");
    if (to_space) {
        if (crd)
            snprintf(idx[1], sizeof idx[0], "i1 * %lld + i2 %% %lld * %lld "
                     "+ i3 %% %lld", b * b, b, b, b);
        else
            snprintf(idx[1], sizeof idx[0], "i2 %% %lld * %lld + i3 %% %lld "
                     "* %lld + i1", b, b * c, b, c);
        snprintf(idx[2], sizeof idx[0], "i2 / %lld", b);
        snprintf(idx[3], sizeof idx[0], "i3 / %lld", b);
    } else {
        snprintf(idx[1], sizeof idx[0], "i1 %% %lld", c);
        snprintf(idx[2], sizeof idx[0], "i2 * %lld + i1 / %lld / %lld", b,
                 c, b);
        snprintf(idx[3], sizeof idx[0], "i3 * %lld + i1 / %lld %% %lld", b,
                 c, b);
    }
    ox_comment(m);
    ox_lhs(&m->body, y->id, 4);
    rd(m, &m->body, x, idx, NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

static int op_eye_like(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *y;
    const Onnx__AttributeProto *da = ox_attr(m, "dtype");
    TlDType dt;
    int64_t k;

    if (!x || x->rank != 2) {
        ox_unsupported(m, "needs a 2-D input");
        return -1;
    }
    dt = da && da->has_i ? ox_dtype((int32_t)da->i) : x->dt;
    if (!(y = ox_out(m, 0, dt, 2, x->dims)))
        return -1;
    /* i1 - i0 lies in -rows .. cols: a diagonal further out is empty,
     * and its k (up to +-2^63) is not an i32 literal */
    k = ox_attr_i(m, "k", 0);
    if (k > x->dims[1])
        k = x->dims[1];
    if (k < -x->dims[0])
        k = -x->dims[0];
    ox_comment(m);
    ox_lhs(&m->body, y->id, 2);
    if (dt == DT_BOOL)
        buf_printf(&m->body, "i1 - i0 == %lld\n", (long long)k);
    else
        buf_printf(&m->body, "select(i1 - i0 == %lld, %s(1), %s(0))\n",
                   (long long)k, dt_name(dt), dt_name(dt));
    return 0;
}

static int op_reverse_sequence(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *len = ox_in(m, 1), *y;
    int ba = (int)ox_attr_i(m, "batch_axis", 1);
    int ta = (int)ox_attr_i(m, "time_axis", 0);
    Idx idx[TL_MAX_RANK];

    if (!x || !len || x->rank < 2 || len->rank != 1 || ba == ta ||
        ba < 0 || ba > 1 || ta < 0 || ta > 1 || dt_is_float(len->dt)) {
        ox_unsupported(m, "needs an input of rank 2 or more, 1-D lengths "
                       "and batch and time axes 0 and 1");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    plain(idx, x->rank);
    len->used = 1;
    snprintf(idx[ta], sizeof idx[0], "select(i%d < %s[i%d], %s[i%d] - 1 - "
             "i%d, i%d)", ta, len->id, ba, len->id, ba, ta, ta);
    ox_comment(m);
    ox_lhs(&m->body, y->id, x->rank);
    rd(m, &m->body, x, idx, NULL);
    buf_putc(&m->body, '\n');
    return 0;
}

/* LRN over the channels of N, C, ...: x / (bias + alpha / size * the
 * sum of squares in the window) ^ beta. */
static int op_lrn(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *y;
    int64_t size = ox_attr_i(m, "size", 0), lo, win;
    const char *T;
    Idx idx[TL_MAX_RANK];
    TlBuf *b = &m->body;

    if (!x || x->rank < 3 || !dt_is_float(x->dt) || size < 1) {
        ox_unsupported(m, "needs a float N, C, ... input and a size");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    T = dt_name(x->dt);
    lo = (size - 1) / 2;
    plain(idx, x->rank);
    /* A window wider than 2C - 1 reaches past every channel on both
     * sides: only zeros beyond, and a sum of squares is the same
     * without them (a size of 2^31 made a reduction no i32 holds).
     * alpha / size keeps the size given. */
    win = size;
    if (size > 2 * x->dims[1] - 1) {
        win = 2 * x->dims[1] - 1;
        lo = x->dims[1] - 1;
    }
    ox_comment(m);
    ox_lhs(b, y->id, x->rank);
    rd(m, b, x, idx, NULL);
    buf_printf(b, " / pow(%s(", T);
    ox_float_lit(b, ox_attr_f(m, "bias", 1.0));
    buf_printf(b, ") + %s(", T);
    ox_float_lit(b, ox_attr_f(m, "alpha", 1e-4) / (double)size);
    buf_printf(b, ") * (sum(r0 in 0..%lld) ", (long long)win);
    snprintf(idx[1], sizeof idx[0], "i1 + r0 - %lld", (long long)lo);
    rd(m, b, x, idx, "zero_pad");
    buf_puts(b, " * ");
    rd(m, b, x, idx, "zero_pad");
    buf_printf(b, "), %s(", T);
    ox_float_lit(b, ox_attr_f(m, "beta", 0.75));
    buf_puts(b, "))\n");
    return 0;
}

static const OxOp ops[] = {
    {"ReverseSequence", op_reverse_sequence},
    {"LRN", op_lrn},
    {"EyeLike", op_eye_like},
    {"ConstantOfShape", op_constant_of_shape},
    {"DepthToSpace", op_depth_space},
    {"SpaceToDepth", op_depth_space},
    {"Slice", op_slice},
    {"Gather", op_gather},
    {"GatherElements", op_gather_elements},
    {"Split", op_split},
    {"Expand", op_expand},
    {"Tile", op_tile},
    {"Pad", op_pad},
    {"Trilu", op_trilu},
    {"CumSum", op_cumsum},
    {"Range", op_range},
};

OxOpFn ox_tensor_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
