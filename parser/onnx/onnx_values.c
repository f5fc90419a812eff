/*
 * onnx_values.c - values the importer makes itself rather than a node
 * of the model: fresh names, constants, one position of a tensor along
 * an axis, tensors stacked along a new axis, a node output that is
 * another value.  Control flow (onnx_ops_control.c) and sequences
 * (onnx_ops_seq.c) build on them.  Each works on constants at import
 * (moving bytes, no arithmetic) and otherwise writes a stage.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name for a value made from `base` in iteration `suffix` ("@0"),
 * free in the value table: base@0, base@0@2, ... (the identifier drops
 * the '@': sum_out_0). */
char *ox_fresh(OxModel *m, const char *base, const char *suffix)
{
    size_t n = strlen(base) + strlen(suffix) + 24;
    char *s = tl_xmalloc(n);

    snprintf(s, n, "%s%s", base, suffix);
    for (int k = 2; ox_find(m, s); k++)
        snprintf(s, n, "%s%s@%d", base, suffix, k);
    return s;
}

/* A constant made here (an iteration count, a condition, a slice of a
 * constant): a new value owning t. */
OxValue *ox_const(OxModel *m, const char *name, TlTensor *t)
{
    OxValue *v = ox_add(m, name, OX_INIT, t->dtype, t->rank, t->shape);
    v->cval = t;
    return v;
}

/* Copies element block `inner` (bytes) of each of the `outer` rows. */
static void copy_rows(char *dst, int64_t dstride, const char *src,
                      int64_t sstride, int64_t outer, int64_t inner)
{
    for (int64_t o = 0; o < outer; o++)
        memcpy(dst + o * dstride, src + o * sstride, (size_t)inner);
}

/* Value v at position pos of axis `axis` (that axis dropped): computed
 * at import when v is a constant, else a stage named base+suffix. */
OxValue *ox_take(OxModel *m, OxValue *v, int axis, int64_t pos,
                     const char *base, const char *suffix)
{
    int64_t dims[TL_MAX_RANK], outer = 1, inner = dt_size(v->dt);
    char *name = ox_fresh(m, base, suffix);
    OxValue *y;
    int r = 0;

    for (int i = 0; i < v->rank; i++) {
        if (i != axis)
            dims[r++] = v->dims[i];
        if (i < axis)
            outer *= v->dims[i];
        if (i > axis)
            inner *= v->dims[i];
    }
    if (v->cval) {
        TlTensor *src = tl_tensor_contiguous(v->cval);
        TlTensor *t = tl_tensor_new(v->dt, r, dims, NULL, 0);
        copy_rows(t->data, inner, (const char *)src->data + pos * inner,
                  v->dims[axis] * inner, outer, inner);
        tl_tensor_unref(src);
        y = ox_const(m, name, t);
    } else {
        OxIdx idx[TL_MAX_RANK];
        y = ox_add(m, name, OX_NODE, v->dt, r, dims);
        for (int i = 0, k = 0; i < v->rank; i++) {
            if (i == axis)
                snprintf(idx[i], sizeof idx[i], "%lld", (long long)pos);
            else
                snprintf(idx[i], sizeof idx[i], "i%d", k++);
        }
        ox_lhs(&m->body, y->id, r);
        ox_read(&m->body, v, idx);
        buf_putc(&m->body, '\n');
    }
    free(name);
    return y;
}

/* The read of the stacked vals[lo .. hi) at position i<axis>: a chain
 * of selects (`select(i0 == 0, a[i1], select(i0 == 1, b[i1], c[i1]))`)
 * for a few, else halves chosen by a select, so that the nesting grows
 * with the logarithm of the count (the language allows 256 levels). */
static void pick(TlBuf *b, OxValue **vals, int64_t n, int64_t lo,
                 int64_t hi, int axis, int rank, int rev)
{
    if (hi - lo > 8) {
        int64_t mid = lo + (hi - lo) / 2;
        buf_printf(b, "select(i%d < %lld, ", axis, (long long)mid);
        pick(b, vals, n, lo, mid, axis, rank, rev);
        buf_puts(b, ", ");
        pick(b, vals, n, mid, hi, axis, rank, rev);
        buf_putc(b, ')');
        return;
    }
    for (int64_t k = lo; k < hi; k++) {
        OxIdx idx[TL_MAX_RANK];
        for (int i = 0, j = 0; i < rank; i++)
            if (i != axis)
                snprintf(idx[j++], sizeof idx[0], "i%d", i);
        if (k < hi - 1)
            buf_printf(b, "select(i%d == %lld, ", axis, (long long)k);
        ox_read(b, vals[rev ? n - 1 - k : k], idx);
        buf_puts(b, k < hi - 1 ? ", " : "");
    }
    for (int64_t k = lo; k < hi - 1; k++)
        buf_putc(b, ')');
}

/* vals[n] (n >= 1, one dtype and shape) stacked along a new axis
 * `axis`, the last first when rev: node output oi, or (oi < 0) a value
 * named base.  A constant when every one is. */
OxValue *ox_stack(OxModel *m, OxValue **vals, int64_t n, int axis,
                      int rev, int oi, const char *base)
{
    const OxValue *v0 = vals[0];
    int64_t dims[TL_MAX_RANK], outer = 1, inner = dt_size(v0->dt);
    int allconst = 1, rank = v0->rank + 1;
    const char *name = oi >= 0 ? m->node->output[oi] : base;
    OxValue *y;

    if (rank > TL_MAX_RANK) {
        ox_unsupported(m, "a stacked output would have rank %d (the limit "
                       "is %d)", rank, TL_MAX_RANK);
        return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
        if (vals[k]->kind == OX_SEQ || vals[k]->kind == OX_NONE) {
            ox_unsupported(m, "'%s' would stack sequences or optionals "
                           "(not supported)", name);
            return NULL;
        }
        if (vals[k]->dt != v0->dt || vals[k]->rank != v0->rank ||
            memcmp(vals[k]->dims, v0->dims,
                   sizeof(int64_t) * (size_t)v0->rank)) {
            ox_unsupported(m, "the values stacked into '%s' change shape "
                           "from one iteration to the next", name);
            return NULL;
        }
        allconst &= vals[k]->cval != NULL;
    }
    for (int i = 0, j = 0; i < rank; i++) {
        dims[i] = i == axis ? n : v0->dims[j++];
        if (i < axis)
            outer *= dims[i];
        if (i > axis)
            inner *= dims[i];
    }
    if (oi >= 0 && ox_find(m, name)) {
        ox_unsupported(m, "'%s' is defined twice", name);
        return NULL;
    }
    if (!ox_dims_ok(rank, dims)) {
        ox_unsupported(m, "'%s' would be too large", name);
        return NULL;
    }
    if (allconst) {
        TlTensor *t = tl_tensor_new(v0->dt, rank, dims, NULL, 0);
        if (!t) {
            ox_unsupported(m, "'%s' would be too large", name);
            return NULL;
        }
        for (int64_t k = 0; k < n; k++) {
            TlTensor *src = tl_tensor_contiguous(vals[rev ? n - 1 - k : k]
                                                     ->cval);
            copy_rows((char *)t->data + k * inner, n * inner, src->data,
                      inner, outer, inner);
            tl_tensor_unref(src);
        }
        return ox_const(m, name, t);
    }
    y = ox_add(m, name, OX_NODE, v0->dt, rank, dims);
    ox_lhs(&m->body, y->id, rank);
    pick(&m->body, vals, n, 0, n, axis, rank, rev);
    buf_putc(&m->body, '\n');
    return y;
}

/* Node output i is value v: a constant too when v is one, else a copy
 * stage; a sequence or an optional without an element the same under
 * the output's name; an optional's element stays one.  Nothing for an
 * output left out (""). */
int ox_give(OxModel *m, int i, OxValue *v)
{
    const Onnx__NodeProto *n = m->node;
    OxValue *y;
    OxIdx idx[TL_MAX_RANK];

    if ((size_t)i >= n->n_output || !*n->output[i])
        return 0;
    if (v->kind == OX_SEQ || v->kind == OX_NONE || v->cval) {
        if (ox_find(m, n->output[i])) {
            ox_unsupported(m, "'%s' is defined twice", n->output[i]);
            return -1;
        }
    }
    if (v->kind == OX_NONE) {
        ox_add(m, n->output[i], OX_NONE, v->dt, 0, NULL);
        return 0;
    }
    if (v->kind == OX_SEQ) {
        /* the same list under the output's name */
        y = ox_add(m, n->output[i], OX_SEQ, v->dt, 0, NULL);
        y->seq = tl_xcalloc((size_t)v->nseq + 1, sizeof *y->seq);
        memcpy(y->seq, v->seq, (size_t)v->nseq * sizeof *y->seq);
        y->nseq = v->nseq;
        y->opt = v->opt;
        return 0;
    }
    if (v->cval) {
        ox_const(m, n->output[i], tl_tensor_ref(v->cval))->opt = v->opt;
        return 0;
    }
    if (!(y = ox_out(m, i, v->dt, v->rank, v->dims)))
        return -1;
    y->opt = v->opt;
    if (v->bval)
        y->bval = tl_tensor_ref(v->bval);
    for (int k = 0; k < v->rank; k++)
        snprintf(idx[k], sizeof idx[k], "i%d", k);
    ox_lhs(&m->body, y->id, y->rank);
    ox_read(&m->body, v, idx);
    buf_putc(&m->body, '\n');
    return 0;
}
