/*
 * onnx_ops_dd.c - NonZero and Unique, whose output's size depends on
 * the values of their input.  The language fixes every size when a
 * kernel is checked, so these import only when the input's values are
 * known at import: a constant, or computed from data bound with --bind
 * (its bval, onnx_fold.c).  The size is counted then, by the
 * interpreter running a counting stage (ox_eval), and the outputs are
 * stages that compute the rest from the input, by counting too:
 *     nonzero_pos[i0, i1] = sum(r0 in 0..2, r1 in 0..2)
 *         select(x[r0, r1] && r0 * 2 + r1 < i0 * 2 + i1, 1, 0)
 * is how many nonzeros come before each element, and the output reads
 * the one whose place is its column.  The kernel is then made for the
 * bound data's size, as it is for a bound shape; for a constant input
 * the stages are folded (ox_fold) like any other.  Other data would
 * give a wrong result, so the kernel asserts the bound data's hash
 * (`assert hash(x) == ...`, onnx_emit.c, SPEC 6.8) and refuses other
 * data wherever it runs.  Each such stage counts over the whole input
 * per element: inputs of at most DD_MAX elements.  NonMaxSuppression
 * (onnx_ops_nms.c) is imported the same way.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DD_MAX 4096

int ox_dd_known(OxModel *m, const OxValue *v)
{
    if (ox_bound(v))
        return 0;
    ox_unsupported(m, "the output's size depends on the values of '%s', "
                   "which are not known at import (bind it with --bind)",
                   v->name);
    return -1;
}

/* Input 0, known at import and small; NULL after a message. */
static OxValue *dd_input(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0);

    if (!x || ox_dd_known(m, x) < 0)
        return NULL;
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

int64_t ox_dd_count(OxModel *m, const char *stages, OxValue **ins, int nin)
{
    TlTensor *t = ox_eval(stages, ins, nin, "count", DT_I64);
    int64_t k;

    /* The stages are the importer's own, over values it has checked
     * (known at import, of the dtypes and shapes the op takes): when
     * they do not run, the importer wrote them wrong. */
    if (!t)
        tl_internal_error(__FILE__, __LINE__, "node '%s': the stages "
                          "that count its output do not run on the "
                          "interpreter:\n%s", ox_node_label(m), stages);
    k = tl_tensor_get_i64(t, NULL);
    tl_tensor_unref(t);
    /* 0 is a size like any other (SPEC 5: an extent may be 0): the
     * output has a zero axis, and its stages compute nothing. */
    if (k < 0)
        tl_internal_error(__FILE__, __LINE__, "node '%s': the stages "
                          "that count its output give %lld:\n%s",
                          ox_node_label(m), (long long)k, stages);
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
    k = ox_dd_count(m, cnt.s, &x, 1);
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
    ox_lhs_fixed(m, b, y);
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

/* x read with index `at` on axis a and, on the other axes, var0,
 * var1, ... (numbered from `from`, in order). */
static void read_slice(TlBuf *b, OxValue *x, int a, const char *at,
                       const char *var, int from)
{
    OxIdx idx[TL_MAX_RANK];

    for (int i = 0, j = from; i < x->rank; i++) {
        if (i == a)
            snprintf(idx[i], sizeof idx[i], "%s", at);
        else
            snprintf(idx[i], sizeof idx[i], "%s%d", var, j++);
    }
    ox_read(b, x, idx);
}

/* "r0 in 0..d0, ...": a reduction over the axes of x but a. */
static void over_slice(TlBuf *b, const OxValue *x, int a)
{
    for (int i = 0, j = 0; i < x->rank; i++)
        if (i != a) {
            buf_printf(b, "%sr%d in 0..%lld", j ? ", " : "", j,
                       (long long)x->dims[i]);
            j++;
        }
}

/* The row-major position within a slice (the axes of x but a) of
 * var0, var1, ... (numbered from `from`). */
static void flat_slice(TlBuf *b, const OxValue *x, int a, const char *var,
                       int from)
{
    int64_t stride = 1;
    int j = from + x->rank - 2, first = 1;

    for (int i = x->rank - 1; i >= 0; i--) {
        if (i == a)
            continue;
        buf_printf(b, "%si64(%s%d)", first ? "" : " + ", var, j--);
        if (stride > 1)
            buf_printf(b, " * %lld", (long long)stride);
        stride *= x->dims[i];
        first = 0;
    }
}

/* Along axis a, the stage that compares slices whole: neq[s, t]
 * counts where slices s and t differ.  The text that says s == t goes
 * to eq (a printf format of s, then t). */
static void neq_stage(OxModel *m, TlBuf *b, OxValue *x, int a, char *eq,
                      size_t len)
{
    char *neq = ox_ident(m, "unique_neq");

    buf_printf(b, "    %s[i0, i1] = sum(", neq);
    over_slice(b, x, a);
    buf_puts(b, ") select(");
    read_slice(b, x, a, "i0", "r", 0);
    buf_puts(b, " != ");
    read_slice(b, x, a, "i1", "r", 0);
    buf_puts(b, ", 1, 0)\n");
    snprintf(eq, len, "%s[%%s, %%s] == 0", neq);
}

/* The stages that order slices: before[s, t, p..] counts where slices
 * s and t differ ahead of position p, and lt[s, t] is 1 when s comes
 * first (lexicographically).  The text that says s < t goes to lt. */
static void order_stages(OxModel *m, TlBuf *b, OxValue *x, int a, char *lt,
                         size_t len)
{
    char *bef = ox_ident(m, "unique_before"), *less;
    int o = x->rank - 1;

    buf_printf(b, "    %s[i0, i1", bef);
    for (int j = 0; j < o; j++)
        buf_printf(b, ", i%d", 2 + j);
    buf_puts(b, "] = sum(");
    over_slice(b, x, a);
    buf_puts(b, ") select(");
    flat_slice(b, x, a, "r", 0);
    buf_puts(b, " < ");
    flat_slice(b, x, a, "i", 2);
    buf_puts(b, " && ");
    read_slice(b, x, a, "i0", "r", 0);
    buf_puts(b, " != ");
    read_slice(b, x, a, "i1", "r", 0);
    buf_puts(b, ", 1, 0)\n");
    less = ox_ident(m, "unique_lt");
    buf_printf(b, "    %s[i0, i1] = sum(", less);
    over_slice(b, x, a);
    buf_puts(b, ") select(");
    read_slice(b, x, a, "i0", "r", 0);
    buf_puts(b, " < ");
    read_slice(b, x, a, "i1", "r", 0);
    buf_printf(b, " && %s[i0, i1", bef);
    for (int j = 0; j < o; j++)
        buf_printf(b, ", r%d", j);
    buf_puts(b, "] == 0, 1, 0)\n");
    snprintf(lt, len, "%s[%%s, %%s] > 0", less);
}

/* Without 'axis', Unique takes x flattened: a stage (in b) that holds
 * it, as a value of rank 1 that the statements read as they read a
 * vector. */
static OxValue *flattened(OxModel *m, TlBuf *b, OxValue *x)
{
    int64_t n = ox_numel(x), st = 1;
    char *name = ox_fresh(m, x->name, "@flat");
    OxValue *v = ox_add(m, name, OX_NODE, x->dt, 1, &n);
    OxIdx idx[TL_MAX_RANK];

    free(name);
    for (int i = x->rank - 1; i >= 0; i--) {
        if (x->dims[i] == 1)
            snprintf(idx[i], sizeof idx[i], "0");
        else if (!i && st == 1)
            snprintf(idx[i], sizeof idx[i], "i0");
        else if (!i)
            snprintf(idx[i], sizeof idx[i], "i0 / %lld", (long long)st);
        else if (st == 1)
            snprintf(idx[i], sizeof idx[i], "i0 %% %lld",
                     (long long)x->dims[i]);
        else
            snprintf(idx[i], sizeof idx[i], "i0 / %lld %% %lld",
                     (long long)st, (long long)x->dims[i]);
        st *= x->dims[i];
    }
    buf_printf(b, "    %s[i0 in 0..%lld] = ", v->id, (long long)n);
    ox_read(b, x, idx);
    buf_putc(b, '\n');
    return v;
}

/* Unique of a vector (of x flattened, without 'axis'), or along an
 * axis (its slices compared whole): first[i] counts the equal elements
 * (slices) before element i (0: it is the first of its value), rank[i]
 * is the place of its value among the unique ones (by value when
 * sorted, else by first occurrence), and each output gathers by rank. */
static int op_unique(OxModel *m)
{
    OxValue *x = dd_input(m), *in, *y;
    int64_t sorted = ox_attr_i(m, "sorted", 1), n, k, dims[TL_MAX_RANK];
    const Onnx__AttributeProto *axis = ox_attr(m, "axis");
    int64_t a = axis ? ox_attr_i(m, "axis", 0) : 0;
    TlBuf cnt, *b = &m->body;
    char *first, *at, *rank, eq[200], lt[200], c[600];
    const char *xi;

    if (!x)
        return -1;
    in = x;
    if (axis && (a < -x->rank || a >= x->rank)) {
        ox_unsupported(m, "axis %lld is out of range", (long long)a);
        return -1;
    }
    if (a < 0)
        a += x->rank;
    if (x->dt == DT_BOOL) {
        ox_unsupported(m, "Unique of bool values is not supported");
        return -1;
    }
    buf_init(&cnt);
    if (!axis && x->rank != 1)
        x = flattened(m, &cnt, x);
    n = x->dims[a];
    xi = x->id;
    if (x->rank == 1) {
        snprintf(eq, sizeof eq, "%s[%%s] == %s[%%s]", xi, xi);
        snprintf(lt, sizeof lt, "%s[%%s] < %s[%%s]", xi, xi);
        x->used = 1;
    } else {
        neq_stage(m, &cnt, x, (int)a, eq, sizeof eq);
    }
    first = ox_ident(m, "unique_first");
    snprintf(c, sizeof c, eq, "r0", "i0");
    buf_printf(&cnt, "    %s[i0] = sum(r0 in 0..%lld) select(%s && r0 < "
               "i0, 1, 0)\n", first, (long long)n, c);
    buf_printf(&cnt, "    count[] = sum(r0 in 0..%lld) select(%s[r0] == 0, "
               "1, 0)\n", (long long)n, first);
    k = ox_dd_count(m, cnt.s, &in, 1);
    if (k < 0) {
        buf_free(&cnt);
        return -1;
    }
    ox_comment(m);
    /* the statements of neq (along an axis) and first: the text less
     * the count */
    buf_putn(b, cnt.s, strstr(cnt.s, "    count[]") - cnt.s);
    buf_free(&cnt);
    if (x->rank > 1 && sorted)
        order_stages(m, b, x, (int)a, lt, sizeof lt);
    rank = ox_ident(m, "unique_rank");
    if (sorted) {
        snprintf(c, sizeof c, lt, "r0", "i0");
        buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == 0 "
                   "&& %s, i64(1), 0)\n", rank, (long long)n, first, c);
    } else {
        /* at: where each element's value first occurs (unsorted, the
         * unique values are in that order) */
        at = ox_ident(m, "unique_at");
        snprintf(c, sizeof c, eq, "r0", "i0");
        buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s && %s[r0] "
                   "== 0, i64(r0), 0)\n", at, (long long)n, c, first);
        buf_printf(b, "    %s[i0] = sum(r0 in 0..%lld) select(%s[r0] == 0 "
                   "&& i64(r0) < %s[i0], i64(1), 0)\n", rank, (long long)n,
                   first, at);
    }
    memcpy(dims, x->dims, sizeof dims);
    dims[a] = k;
    if (!(y = ox_out(m, 0, x->dt, x->rank, dims)))
        return -1;
    ox_lhs(b, y->id, x->rank);
    buf_printf(b, "sum(r0 in 0..%lld) select(%s[r0] == 0 && %s[r0] == i%d, ",
               (long long)n, first, rank, (int)a);
    {
        OxIdx idx[TL_MAX_RANK];
        for (int i = 0; i < x->rank; i++)
            snprintf(idx[i], sizeof idx[i], i == a ? "r0" : "i%d", i);
        ox_read(b, x, idx);
    }
    buf_printf(b, ", %s(0))\n", dt_name(x->dt));
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
