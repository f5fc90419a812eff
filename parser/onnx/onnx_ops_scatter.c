/*
 * onnx_ops_scatter.c - Scatter, ScatterElements, ScatterND and
 * GatherND.  A stage computes each output element from its own index,
 * so a scatter is written the other way round: an output element looks
 * for the updates aimed at it with a reduction over the indices
 * (`sum` for reduction='add', `prod` for 'mul', and for 'none' the
 * last matching position, found with `max`, then read).  Negative
 * indices count from the end: index k aims at position p of an axis of
 * size D when k == p or k == p - D.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

enum { RED_NONE, RED_ADD, RED_MUL };

static OxValue *need(OxModel *m, int i)
{
    OxValue *v = ox_in(m, i);
    if (!v)
        ox_unsupported(m, "input %d is missing", i);
    return v;
}

static int reduction_of(OxModel *m)
{
    const Onnx__AttributeProto *a = ox_attr(m, "reduction");

    if (!a || !a->has_s || (a->s.len == 4 && !memcmp(a->s.data, "none", 4)))
        return RED_NONE;
    if (a->s.len == 3 && !memcmp(a->s.data, "add", 3))
        return RED_ADD;
    if (a->s.len == 3 && !memcmp(a->s.data, "mul", 3))
        return RED_MUL;
    ox_unsupported(m, "unsupported attribute value reduction='%.*s'",
                   (int)a->s.len, (const char *)a->s.data);
    return -1;
}

/* Index texts: identifiers are at most ~40 characters (ox_ident), so
 * the longest index written here (a select over three reads) fits. */
typedef char Ix[512];

/* Appends v[idx...] (through clamp_edge when v is a stage: its reads
 * at computed positions keep its natural domain). */
static void read_at(TlBuf *b, OxValue *v, Ix *idx)
{
    v->used = 1;
    buf_printf(b, "%s%s[", v->id, v->kind == OX_NODE ? ".clamp_edge" : "");
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s", i ? ", " : "", idx[i]);
    buf_putc(b, ']');
}

/* v at idx, where idx is computed from data but within v's shape. */
static void read_fixed(OxModel *m, TlBuf *b, OxValue *v, Ix *idx)
{
    buf_printf(b, "%s[", ox_fixed(m, v));
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s", i ? ", " : "", idx[i]);
    buf_putc(b, ']');
}

/* "(K == P || K == P - D)": index expression K aims at position P of an
 * axis of size D. */
static void aims(TlBuf *b, const char *k, const char *p, int64_t d)
{
    buf_printf(b, "(%s == %s || %s == %s - %lld)", k, p, k, p,
               (long long)d);
}

/* ScatterElements (and Scatter, its name before opset 11). */
static int op_scatter_elements(OxModel *m)
{
    OxValue *x = need(m, 0), *ind = need(m, 1), *upd = need(m, 2), *y;
    Ix ii[TL_MAX_RANK];
    char ik[16], hit[200];
    int64_t a;
    int red;
    TlBuf *b = &m->body;

    if (!x || !ind || !upd || (red = reduction_of(m)) < 0)
        return -1;
    a = ox_attr_i(m, "axis", 0);
    if (a < -x->rank || a >= x->rank) {
        ox_unsupported(m, "axis %lld is out of range for rank %d",
                       (long long)a, x->rank);
        return -1;
    }
    a = a < 0 ? a + x->rank : a;
    if (ind->rank != x->rank || upd->rank != x->rank ||
        dt_is_float(ind->dt) || upd->dt != x->dt ||
        memcmp(ind->dims, upd->dims, sizeof(int64_t) * (size_t)x->rank)) {
        ox_unsupported(m, "indices and updates must have one shape, of "
                       "the data's rank");
        return -1;
    }
    for (int i = 0; i < x->rank; i++)
        if (i != a && ind->dims[i] > x->dims[i]) {
            ox_unsupported(m, "indices are larger than the data on axis %d",
                           i);
            return -1;
        }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    ox_comment(m);
    for (int i = 0; i < x->rank; i++)
        snprintf(ii[i], sizeof ii[i], i == a ? "r0" : "i%d", i);
    /* The condition: inside the indices' shape, and aimed here.  The
     * indices are read only inside the shape: in a branch of select (a
     * read after && would be an out-of-bounds read to the checker). */
    TlBuf cond, guard;
    buf_init(&cond);
    buf_init(&guard);
    for (int i = 0; i < x->rank; i++)
        if (i != a && ind->dims[i] < x->dims[i])
            buf_printf(&guard, "%si%d < %lld", guard.len ? " && " : "", i,
                       (long long)ind->dims[i]);
    if (guard.len)
        buf_printf(&cond, "select(%s, ", guard.s);
    {
        TlBuf k;
        buf_init(&k);
        read_at(&k, ind, ii);
        snprintf(ik, sizeof ik, "i%d", (int)a);
        aims(&cond, k.s, ik, x->dims[a]);
        buf_free(&k);
    }
    if (guard.len)
        buf_puts(&cond, ", false)");
    buf_free(&guard);
    if (red == RED_NONE) {
        /* The last update aimed here wins: its position + 1, or 0. */
        snprintf(hit, sizeof hit, "%.64s_hit", y->name);
        char *hid = ox_ident(m, hit);
        ox_lhs(b, hid, x->rank);
        buf_printf(b, "max(r0 in 0..%lld) select(%s, r0 + 1, 0)\n",
                   (long long)ind->dims[a], cond.s);
        ox_lhs(b, y->id, y->rank);
        buf_puts(b, "select(");
        {
            TlBuf h;
            buf_init(&h);
            buf_printf(&h, "%s[", hid);
            for (int i = 0; i < x->rank; i++)
                buf_printf(&h, "%si%d", i ? ", " : "", i);
            buf_putc(&h, ']');
            buf_printf(b, "%s > 0, ", h.s);
            snprintf(ii[a], sizeof ii[a], "%s - 1", h.s);
            buf_free(&h);
            read_at(b, upd, ii);
        }
        buf_puts(b, ", ");
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_puts(b, ")\n");
    } else {
        ox_lhs(b, y->id, y->rank);
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_printf(b, " %s (%s(r0 in 0..%lld) select(%s, ",
                   red == RED_ADD ? "+" : "*", red == RED_ADD ? "sum" : "prod",
                   (long long)ind->dims[a], cond.s);
        read_at(b, upd, ii);
        buf_printf(b, ", %s(%d)))\n", dt_name(x->dt), red == RED_ADD ? 0 : 1);
    }
    buf_free(&cond);
    return 0;
}

/* ScatterND: indices [q..., K] aim at data[k0, ..., kK-1, :...]. */
static int op_scatter_nd(OxModel *m)
{
    OxValue *x = need(m, 0), *ind = need(m, 1), *upd = need(m, 2), *y;
    Ix iu[TL_MAX_RANK], ik[TL_MAX_RANK];
    char p[16];
    int red, q, kk;
    TlBuf cond, *b = &m->body;

    if (!x || !ind || !upd || (red = reduction_of(m)) < 0)
        return -1;
    if (ind->rank < 1 || dt_is_float(ind->dt) || upd->dt != x->dt)
        goto bad;
    q = ind->rank - 1;
    kk = (int)ind->dims[q];
    if (kk < 1 || kk > x->rank || upd->rank != q + x->rank - kk)
        goto bad;
    for (int i = 0; i < q; i++)
        if (upd->dims[i] != ind->dims[i])
            goto bad;
    for (int i = kk; i < x->rank; i++)
        if (upd->dims[q + i - kk] != x->dims[i])
            goto bad;
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    ox_comment(m);
    /* The updates are read at r0.. (the index tuple) then i<K>.. */
    for (int i = 0; i < q; i++)
        snprintf(iu[i], sizeof iu[i], "r%d", i);
    for (int i = kk; i < x->rank; i++)
        snprintf(iu[q + i - kk], sizeof iu[0], "i%d", i);
    buf_init(&cond);
    for (int c = 0; c < kk; c++) {
        TlBuf k;
        buf_init(&k);
        for (int i = 0; i < q; i++)
            snprintf(ik[i], sizeof ik[i], "r%d", i);
        snprintf(ik[q], sizeof ik[q], "%d", c);
        read_at(&k, ind, ik);
        snprintf(p, sizeof p, "i%d", c);
        buf_puts(&cond, c ? " && " : "");
        aims(&cond, k.s, p, x->dims[c]);
        buf_free(&k);
    }
    TlBuf rv;
    buf_init(&rv);
    for (int i = 0; i < q; i++)
        buf_printf(&rv, "%sr%d in 0..%lld", i ? ", " : "", i,
                   (long long)ind->dims[i]);
    if (!rv.s)
        buf_puts(&rv, "");
    if (red == RED_NONE) {
        char hit[200];
        TlBuf lin, h;
        buf_init(&lin);
        buf_init(&h);
        /* The last tuple aimed here (row-major position + 1), or 0. */
        for (int i = 0; i < q; i++) {
            int64_t stride = 1;
            for (int j = i + 1; j < q; j++)
                stride *= ind->dims[j];
            if (stride == 1)
                buf_printf(&lin, "r%d + ", i);
            else
                buf_printf(&lin, "r%d * %lld + ", i, (long long)stride);
        }
        snprintf(hit, sizeof hit, "%.64s_hit", y->name);
        char *hid = ox_ident(m, hit);
        ox_lhs(b, hid, kk);
        if (q)
            buf_printf(b, "max(%s) select(%s, %s1, 0)\n", rv.s, cond.s,
                       lin.s);
        else
            buf_printf(b, "select(%s, 1, 0)\n", cond.s);
        buf_printf(&h, "%s[", hid);
        for (int i = 0; i < kk; i++)
            buf_printf(&h, "%si%d", i ? ", " : "", i);
        buf_putc(&h, ']');
        for (int i = 0; i < q; i++) {
            int64_t stride = 1;
            for (int j = i + 1; j < q; j++)
                stride *= ind->dims[j];
            if (q == 1)
                snprintf(iu[i], sizeof iu[i], "%s - 1", h.s);
            else if (i == 0)
                snprintf(iu[i], sizeof iu[i], "(%s - 1) / %lld", h.s,
                         (long long)stride);
            else if (stride == 1)
                snprintf(iu[i], sizeof iu[i], "(%s - 1) %% %lld", h.s,
                         (long long)ind->dims[i]);
            else
                snprintf(iu[i], sizeof iu[i], "(%s - 1) / %lld %% %lld",
                         h.s, (long long)stride, (long long)ind->dims[i]);
        }
        ox_lhs(b, y->id, y->rank);
        buf_printf(b, "select(%s > 0, ", h.s);
        read_at(b, upd, iu);
        buf_puts(b, ", ");
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_puts(b, ")\n");
        buf_free(&lin);
        buf_free(&h);
    } else {
        ox_lhs(b, y->id, y->rank);
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_printf(b, " %s (%s(%s) select(%s, ", red == RED_ADD ? "+" : "*",
                   red == RED_ADD ? "sum" : "prod", rv.s, cond.s);
        read_at(b, upd, iu);
        buf_printf(b, ", %s(%d)))\n", dt_name(x->dt), red == RED_ADD ? 0 : 1);
    }
    buf_free(&rv);
    buf_free(&cond);
    return 0;
bad:
    ox_unsupported(m, "the shapes of data, indices and updates do not fit");
    return -1;
}

/* GatherND: output [q..., data.dims[b + K:]...] reads data at the index
 * tuple indices[q..., :], after batch_dims b leading axes shared. */
static int op_gather_nd(OxModel *m)
{
    OxValue *x = need(m, 0), *ind = need(m, 1), *y;
    int64_t dims[TL_MAX_RANK], bd;
    Ix ix[TL_MAX_RANK], ik[TL_MAX_RANK];
    int q, kk, rank = 0;
    TlBuf *b = &m->body;

    if (!x || !ind)
        return -1;
    bd = ox_attr_i(m, "batch_dims", 0);
    if (ind->rank < 1 || dt_is_float(ind->dt))
        goto bad;
    q = ind->rank - 1;
    kk = (int)ind->dims[q];
    if (bd < 0 || bd > q || kk < 0 || bd + kk > x->rank ||
        q + x->rank - kk - bd > TL_MAX_RANK)
        goto bad;
    for (int i = 0; i < bd; i++)
        if (ind->dims[i] != x->dims[i])
            goto bad;
    for (int i = 0; i < q; i++)
        dims[rank++] = ind->dims[i];
    for (int i = (int)bd + kk; i < x->rank; i++)
        dims[rank++] = x->dims[i];
    if (!(y = ox_out(m, 0, x->dt, rank, dims)))
        return -1;
    ox_comment(m);
    for (int i = 0; i < bd; i++)
        snprintf(ix[i], sizeof ix[i], "i%d", i);
    for (int c = 0; c < kk; c++) {
        TlBuf k;
        int64_t d = x->dims[bd + c];
        buf_init(&k);
        for (int i = 0; i < q; i++)
            snprintf(ik[i], sizeof ik[i], "i%d", i);
        snprintf(ik[q], sizeof ik[q], "%d", c);
        read_at(&k, ind, ik);
        snprintf(ix[bd + c], sizeof ix[0], "select(%s < 0, %s + %lld, %s)",
                 k.s, k.s, (long long)d, k.s);
        buf_free(&k);
    }
    for (int i = (int)bd + kk; i < x->rank; i++)
        snprintf(ix[i], sizeof ix[i], "i%d", q + i - (int)bd - kk);
    ox_lhs(b, y->id, y->rank);
    read_at(b, x, ix);
    buf_putc(b, '\n');
    return 0;
bad:
    ox_unsupported(m, "the shapes of data and indices do not fit");
    return -1;
}

/* "r / 12 % 3": axis k of the flat position r of a tensor of shape
 * dims (row-major). */
static void axis_of_flat(char *out, size_t n, const char *r, int k,
                         int rank, const int64_t *dims)
{
    int64_t after = 1;

    for (int i = k + 1; i < rank; i++)
        after *= dims[i];
    if (k == 0)
        snprintf(out, n, "%s / %lld", r, (long long)after);
    else if (after == 1)
        snprintf(out, n, "%s %% %lld", r, (long long)dims[k]);
    else
        snprintf(out, n, "%s / %lld %% %lld", r, (long long)after,
                 (long long)dims[k]);
}

/* MaxUnpool: Y is zero but where an index of I (a flat index of the
 * pooling's input, as MaxPool's Indices gives) puts the element of X
 * beside it.  Each element of Y looks for the last position of I aimed
 * at it.  An output_shape larger than the default one (that of the
 * pooling's input) adds zeros at the end of each axis. */
static int op_max_unpool(OxModel *m)
{
    OxValue *x = need(m, 0), *ind = need(m, 1), *osh = ox_in(m, 2), *y;
    int64_t ks[TL_MAX_RANK], st[TL_MAX_RANK], pads[2 * TL_MAX_RANK];
    int64_t dims[TL_MAX_RANK], dd[TL_MAX_RANK], nx;
    int ns, n;
    char tmp[200], flat[512];
    const char *src;
    TlBuf *b = &m->body;
    Ix ix[TL_MAX_RANK];

    if (!x || !ind)
        return -1;
    ns = x->rank - 2;
    if (x->rank < 3 || ind->rank != x->rank || ind->dt != DT_I64 ||
        memcmp(ind->dims, x->dims, sizeof(int64_t) * (size_t)x->rank)) {
        ox_unsupported(m, "needs N, C, spatial... values and i64 indices "
                       "of the same shape");
        return -1;
    }
    if (ox_attr_ints(m, "kernel_shape", ks, TL_MAX_RANK) != ns) {
        ox_unsupported(m, "kernel_shape must have %d entries", ns);
        return -1;
    }
    for (int i = 0; i < ns; i++)
        st[i] = 1, pads[i] = pads[i + ns] = 0;
    if ((n = ox_attr_ints(m, "strides", st, TL_MAX_RANK)) >= 0 && n != ns)
        goto bad_attr;
    if ((n = ox_attr_ints(m, "pads", pads, 2 * TL_MAX_RANK)) >= 0 &&
        n != 2 * ns)
        goto bad_attr;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int i = 0; i < ns; i++)
        dims[i + 2] = (x->dims[i + 2] - 1) * st[i] + ks[i] - pads[i] -
                      pads[i + ns];
    if (osh) {
        TlTensor *t = osh->cval;
        if (!t || t->rank != 1 || t->shape[0] != x->rank ||
            dt_is_float(t->dtype)) {
            ox_unsupported(m, "output_shape must be %d integers known at "
                           "import", x->rank);
            return -1;
        }
        memcpy(dd, dims, sizeof dd);
        for (int64_t i = 0; i < x->rank; i++)
            dims[i] = tl_tensor_get_i64(t, &i);
        for (int i = 0; i < x->rank; i++)
            if (dims[i] < dd[i] || (i < 2 && dims[i] != dd[i])) {
                ox_unsupported(m, "output_shape is smaller than the "
                               "pooling's input");
                return -1;
            }
    } else {
        memcpy(dd, dims, sizeof dd);
    }
    if (!ox_dims_ok(x->rank, dims) || !(y = ox_out(m, 0, x->dt, x->rank,
                                                   dims)))
        return -1;
    nx = ox_numel(x);
    snprintf(tmp, sizeof tmp, "%s_src", y->name);
    src = ox_ident(m, tmp);
    /* the flat index of the default shape at i0, i1, ..., and that the
     * index lies in it */
    {
        int k = snprintf(flat, sizeof flat, "i64(i0)");
        for (int i = 1; i < x->rank; i++)
            k += snprintf(flat + k, sizeof flat - (size_t)k,
                          i == 1 ? " * %lld + i64(i%d)" : " * %lld + i%d",
                          (long long)dd[i], i);
        for (int i = 2; i < x->rank; i++)
            if (dd[i] != dims[i])
                k += snprintf(flat + k, sizeof flat - (size_t)k,
                              " && i%d < %lld", i, (long long)dd[i]);
    }
    ox_comment(m);
    buf_printf(b, "    %s[", src);
    for (int i = 0; i < x->rank; i++)
        buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_printf(b, "] = max(r0 in 0..%lld) select(", (long long)nx);
    for (int i = 0; i < x->rank; i++)
        axis_of_flat(ix[i], sizeof ix[i], "r0", i, x->rank, x->dims);
    read_fixed(m, b, ind, ix);
    buf_printf(b, " == %s, i64(r0), i64(-1))\n", flat);
    ox_lhs(b, y->id, y->rank);
    snprintf(tmp, sizeof tmp, "%s[", src);
    for (int i = 0; i < x->rank; i++) {
        size_t k = strlen(tmp);
        snprintf(tmp + k, sizeof tmp - k, "%si%d", i ? ", " : "", i);
    }
    strncat(tmp, "]", sizeof tmp - strlen(tmp) - 1);
    buf_printf(b, "select(%s >= 0, ", tmp);
    for (int i = 0; i < x->rank; i++)
        axis_of_flat(ix[i], sizeof ix[i], tmp, i, x->rank, x->dims);
    read_fixed(m, b, x, ix);
    buf_printf(b, ", %s(0))\n", dt_name(x->dt));
    return 0;
bad_attr:
    ox_unsupported(m, "strides or pads do not fit the rank");
    return -1;
}

static const OxOp ops[] = {
    {"MaxUnpool", op_max_unpool},
    {"Scatter", op_scatter_elements},
    {"ScatterElements", op_scatter_elements},
    {"ScatterND", op_scatter_nd},
    {"GatherND", op_gather_nd},
};

OxOpFn ox_scatter_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
