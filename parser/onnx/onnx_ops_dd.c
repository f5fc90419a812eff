/*
 * onnx_ops_dd.c - NonZero and Unique, whose output's size depends on
 * the values of their input.  The language fixes every size when a
 * kernel is checked, so these import only when the input's values are
 * known at import: a constant, or computed from data bound with --bind
 * (its bval, onnx_fold.c).  The size is counted then, by the
 * interpreter running a counting stage (ox_eval), and the outputs are
 * stages that compute the rest from the input, by counting too:
 *     nz_pos[i0, i1] = sum(r0 in 0..2, r1 in 0..2)
 *         select(x[r0, r1] && r0 * 2 + r1 < i0 * 2 + i1, 1, 0)
 * is how many nonzeros come before each element, and the output reads
 * the one whose place is its column.  The kernel is then made for the
 * bound data's size, as it is for a bound shape; for a constant input
 * the stages are folded (ox_fold) like any other.  Each such stage
 * counts over the whole input per element: inputs of at most DD_MAX
 * elements.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DD_MAX 4096

/* Input 0, known at import and small; NULL after a message. */
static OxValue *dd_input(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0);

    if (!x)
        return NULL;
    if (!ox_bound(x)) {
        ox_unsupported(m, "the output's size depends on the values of "
                       "'%s', which are not known at import (bind it with "
                       "--bind)", x->name);
        return NULL;
    }
    if (ox_numel(x) > DD_MAX) {
        ox_unsupported(m, "'%s' has %lld elements (at most %d are "
                       "supported: each output counts over all of them)",
                       x->name, (long long)ox_numel(x), DD_MAX);
        return NULL;
    }
    return x;
}

/* "r0 in 0..d0, r1 in 0..d1": a reduction over every element of v. */
static void over_all(TlBuf *b, const OxValue *v, const char *var)
{
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s%d in 0..%lld", i ? ", " : "", var, i,
                   (long long)v->dims[i]);
}

/* v read at var0, var1, ... */
static void read_at(TlBuf *b, OxValue *v, const char *var)
{
    OxIdx idx[TL_MAX_RANK];

    for (int i = 0; i < v->rank; i++)
        snprintf(idx[i], sizeof idx[i], "%s%d", var, i);
    ox_read(b, v, idx);
}

/* The row-major position of element var0, var1, ... of v. */
static void flat(TlBuf *b, const OxValue *v, const char *var)
{
    int64_t stride = 1;

    for (int i = v->rank - 1; i >= 0; i--) {
        buf_printf(b, "%si64(%s%d)", i < v->rank - 1 ? " + " : "", var, i);
        if (stride > 1)
            buf_printf(b, " * %lld", (long long)stride);
        stride *= v->dims[i];
    }
}

/* "x[r0, r1] != f32(0)" (a bool alone). */
static void nonzero(TlBuf *b, OxValue *x, const char *var)
{
    if (x->dt == DT_BOOL) {
        read_at(b, x, var);
        return;
    }
    buf_putc(b, '(');
    read_at(b, x, var);
    buf_printf(b, " != %s(0))", dt_name(x->dt));
}

/* The count the statements in b give as `count` (an i64 scalar), run
 * on x's value at import; -1 after a message. */
static int64_t count(OxModel *m, TlBuf *b, OxValue *x)
{
    TlTensor *t = ox_eval(b->s, &x, 1, "count", DT_I64);
    int64_t k;

    if (!t) {
        ox_unsupported(m, "the size of the output could not be computed "
                       "at import");
        return -1;
    }
    k = tl_tensor_get_i64(t, NULL);
    tl_tensor_unref(t);
    if (k < 1) {
        ox_unsupported(m, "the output would be empty (not supported)");
        return -1;
    }
    return k;
}

/* NonZero: y[d, k] is coordinate d of the k-th nonzero element. */
static int op_nonzero(OxModel *m)
{
    OxValue *x = dd_input(m), *y;
    TlBuf cnt, *b = &m->body;
    int64_t k, dims[2];
    char *pos;

    if (!x)
        return -1;
    if (!x->rank) {
        ox_unsupported(m, "a scalar input is not supported");
        return -1;
    }
    buf_init(&cnt);
    buf_puts(&cnt, "    count[] = sum(");
    over_all(&cnt, x, "r");
    buf_puts(&cnt, ") select(");
    nonzero(&cnt, x, "r");
    buf_puts(&cnt, ", 1, 0)\n");
    k = count(m, &cnt, x);
    buf_free(&cnt);
    if (k < 0)
        return -1;
    dims[0] = x->rank;
    dims[1] = k;
    ox_comment(m);
    /* pos: how many nonzero elements come before each one */
    pos = ox_ident(m, "nonzero_pos");
    ox_lhs(b, pos, x->rank);
    buf_puts(b, "sum(");
    over_all(b, x, "r");
    buf_puts(b, ") select(");
    nonzero(b, x, "r");
    buf_puts(b, " && ");
    flat(b, x, "r");
    buf_puts(b, " < ");
    flat(b, x, "i");
    buf_puts(b, ", 1, 0)\n");
    if (!(y = ox_out(m, 0, DT_I64, 2, dims)))
        return -1;
    ox_lhs(b, y->id, 2);
    buf_puts(b, "sum(");
    over_all(b, x, "r");
    buf_puts(b, ") select(");
    nonzero(b, x, "r");
    buf_printf(b, " && %s[", pos);
    for (int i = 0; i < x->rank; i++)
        buf_printf(b, "%sr%d", i ? ", " : "", i);
    buf_puts(b, "] == i1, ");
    for (int i = 0; i < x->rank - 1; i++)
        buf_printf(b, "select(i0 == %d, i64(r%d), ", i, i);
    buf_printf(b, "i64(r%d)", x->rank - 1);
    for (int i = 0; i < x->rank - 1; i++)
        buf_putc(b, ')');
    buf_puts(b, ", 0)\n");
    return 0;
}

/* Unique of a vector (no axis): first[i] counts the equal elements
 * before element i (0: it is the first of its value), rank[i] is the
 * place of its value among the unique ones (by value when sorted, else
 * by first occurrence), and each output gathers by rank. */
static int op_unique(OxModel *m)
{
    OxValue *x = dd_input(m), *y;
    int64_t sorted = ox_attr_i(m, "sorted", 1), n, k;
    const Onnx__AttributeProto *axis = ox_attr(m, "axis");
    TlBuf cnt, *b = &m->body;
    char *first, *at, *rank;
    const char *xi;

    if (!x)
        return -1;
    if (axis || x->rank != 1) {
        /* TODO(issue 5): Unique along an axis (slices compared whole,
         * test_unique_sorted_with_axis*) and of a tensor flattened. */
        ox_unsupported(m, "only Unique of a vector without 'axis' is "
                       "supported");
        return -1;
    }
    if (x->dt == DT_BOOL) {
        ox_unsupported(m, "Unique of bool values is not supported");
        return -1;
    }
    n = x->dims[0];
    xi = x->id;
    first = ox_ident(m, "unique_first");
    buf_init(&cnt);
    buf_printf(&cnt, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == "
               "%s[i0] && r0 < i0, 1, 0)\n", first, (long long)n, xi, xi);
    buf_printf(&cnt, "    count[] = sum(r0 in 0..%lld) select(%s[r0] == 0, "
               "1, 0)\n", (long long)n, first);
    k = count(m, &cnt, x);
    if (k < 0) {
        buf_free(&cnt);
        return -1;
    }
    ox_comment(m);
    /* the statement of first (its text, less the count) */
    buf_putn(b, cnt.s, strstr(cnt.s, "    count[]") - cnt.s);
    buf_free(&cnt);
    x->used = 1;
    /* at: where each element's value first occurs */
    at = ox_ident(m, "unique_at");
    buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == %s[i0] "
               "&& %s[r0] == 0, i64(r0), 0)\n", at, (long long)n, xi, xi,
               first);
    rank = ox_ident(m, "unique_rank");
    if (sorted)
        buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == 0 "
                   "&& %s[r0] < %s[i0], i64(1), 0)\n", rank, (long long)n,
                   first, xi, xi);
    else
        buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == 0 "
                   "&& i64(r0) < %s[i0], i64(1), 0)\n", rank, (long long)n,
                   first, at);
    if ((y = ox_out(m, 0, x->dt, 1, &k))) {
        ox_lhs(b, y->id, 1);
        buf_printf(b, "sum(r0 in 0..%lld) select(%s[r0] == 0 && %s[r0] == "
                   "i0, %s[r0], %s(0))\n", (long long)n, first, rank, xi,
                   dt_name(x->dt));
    }
    if (!y)
        return -1;
    if (m->node->n_output > 1 && *m->node->output[1]) {
        if (!(y = ox_out(m, 1, DT_I64, 1, &k)))
            return -1;
        ox_lhs(b, y->id, 1);
        buf_printf(b, "sum(r0 in 0..%lld) select(%s[r0] == 0 && %s[r0] == "
                   "i0, i64(r0), 0)\n", (long long)n, first, rank);
    }
    if (m->node->n_output > 2 && *m->node->output[2]) {
        if (!(y = ox_out(m, 2, DT_I64, 1, &n)))
            return -1;
        ox_lhs(b, y->id, 1);
        buf_printf(b, "%s[i0]\n", rank);
    }
    if (m->node->n_output > 3 && *m->node->output[3]) {
        if (!(y = ox_out(m, 3, DT_I64, 1, &k)))
            return -1;
        ox_lhs(b, y->id, 1);
        buf_printf(b, "sum(r0 in 0..%lld) select(%s[r0] == i0, i64(1), 0)\n",
                   (long long)n, rank);
    }
    return 0;
}

static const OxOp ops[] = {
    {"NonZero", op_nonzero},
    {"Unique", op_unique},
};

OxOpFn ox_dd_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
