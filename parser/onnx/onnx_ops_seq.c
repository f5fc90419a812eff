/*
 * onnx_ops_seq.c - sequences whose length and positions are known at
 * import.  A sequence is a list of tensors the importer holds (an
 * OX_SEQ value: its elements are ordinary values), not a value of the
 * language: the Sequence ops only rearrange that list, and what reads
 * a tensor out of it (SequenceAt, ConcatFromSequence) reads the
 * element's stage.  SplitToSequence makes one stage per part.  A
 * sequence graph input is bound to a SequenceProto file, its elements
 * kernel parameters; a sequence graph output is one kernel output per
 * element (onnx_emit.c).  A position computed from data and a sequence
 * given to another op are refused with one line.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ox_seq_out(OxModel *m, int i, TlDType dt, OxValue **elems, int n)
{
    const Onnx__NodeProto *nd = m->node;
    OxValue *s;

    if (nd->n_output <= (size_t)i || !*nd->output[i]) {
        ox_unsupported(m, "output %d is missing", i);
        return -1;
    }
    if (ox_find(m, nd->output[i])) {
        ox_unsupported(m, "'%s' is defined twice", nd->output[i]);
        return -1;
    }
    s = ox_add(m, nd->output[i], OX_SEQ, dt, 0, NULL);
    s->seq = tl_xcalloc((size_t)n + 1, sizeof *s->seq);
    if (n)
        memcpy(s->seq, elems, (size_t)n * sizeof *elems);
    s->nseq = n;
    return 0;
}

/* The node's output 0 as a sequence of elems[n] (copied). */
static int seq_out(OxModel *m, TlDType dt, OxValue **elems, int n)
{
    return ox_seq_out(m, 0, dt, elems, n);
}

int ox_seq_identity(OxModel *m)
{
    OxValue *s = ox_need_in(m, 0);

    if (!s)
        return -1;
    if (s->kind != OX_SEQ && s->kind != OX_NONE && !s->cval)
        ox_comment(m);      /* an optional's element: a copy stage */
    return ox_give(m, 0, s);
}

/* Input i, which must be a sequence; NULL after a message. */
static OxValue *seq_in(OxModel *m, int i)
{
    OxValue *s = ox_need_in(m, i);

    if (s && s->kind != OX_SEQ) {
        ox_unsupported(m, "input '%s' is not a sequence", s->name);
        return NULL;
    }
    return s;
}

/* The position input i (default dflt when absent) in 0 .. n - 1 (0 ..
 * n with `end`); -1 after a message. */
static int64_t position(OxModel *m, int i, int64_t dflt, int64_t n, int end)
{
    OxValue *p = ox_in(m, i);
    int64_t x, given;

    if (!p)
        return dflt;
    /* ONNX says a scalar; its SequenceInsert tests give shape [1]. */
    if (ox_const_ints(m, p, &x, 1) != 1) {
        if (!m->error)
            ox_unsupported(m, "the position must be one integer");
        return -1;
    }
    given = x;
    if (x < 0)
        x += n;
    if (x < 0 || x > n - (end ? 0 : 1)) {
        ox_unsupported(m, "position %lld is outside the sequence of %lld",
                       (long long)given, (long long)n);
        return -1;
    }
    return x;
}

static int op_empty(OxModel *m)
{
    int64_t dt = ox_attr_i(m, "dtype", 1);
    TlDType t = ox_dtype((int32_t)dt);

    if (t == DT_NONE) {
        ox_unsupported(m, "ONNX data type %lld is not supported",
                       (long long)dt);
        return -1;
    }
    return seq_out(m, t, NULL, 0);
}

static int op_construct(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    OxValue **e = tl_xcalloc(n->n_input + 1, sizeof *e);
    int rc = -1;

    for (size_t i = 0; i < n->n_input; i++)
        if (!(e[i] = ox_need_in(m, (int)i)))
            goto done;
    if (!n->n_input) {
        ox_unsupported(m, "no inputs");
        goto done;
    }
    for (size_t i = 0; i < n->n_input; i++)
        if (e[i]->kind == OX_SEQ) {
            ox_unsupported(m, "sequences of sequences are not supported");
            goto done;
        }
    for (size_t i = 1; i < n->n_input; i++)
        if (e[i]->dt != e[0]->dt) {
            ox_unsupported(m, "the inputs have different types");
            goto done;
        }
    rc = seq_out(m, e[0]->dt, e, (int)n->n_input);
done:
    free(e);
    return rc;
}

static int op_insert(OxModel *m)
{
    OxValue *s = seq_in(m, 0), *t = s ? ox_need_in(m, 1) : NULL, **e;
    int64_t pos;
    int rc;

    if (!t)
        return -1;
    if (t->kind == OX_SEQ) {
        ox_unsupported(m, "sequences of sequences are not supported");
        return -1;
    }
    if (s->nseq && t->dt != s->dt) {
        ox_unsupported(m, "'%s' is %s, the sequence's elements %s",
                       t->name, dt_name(t->dt), dt_name(s->dt));
        return -1;
    }
    if ((pos = position(m, 2, s->nseq, s->nseq, 1)) < 0)
        return -1;
    e = tl_xcalloc((size_t)s->nseq + 2, sizeof *e);
    memcpy(e, s->seq, (size_t)pos * sizeof *e);
    e[pos] = t;
    memcpy(e + pos + 1, s->seq + pos,
           (size_t)(s->nseq - pos) * sizeof *e);
    rc = seq_out(m, t->dt, e, s->nseq + 1);
    free(e);
    return rc;
}

static int op_erase(OxModel *m)
{
    OxValue *s = seq_in(m, 0), **e;
    int64_t pos;
    int rc;

    if (!s || (pos = position(m, 1, s->nseq - 1, s->nseq, 0)) < 0)
        return -1;
    e = tl_xcalloc((size_t)s->nseq + 1, sizeof *e);
    memcpy(e, s->seq, (size_t)pos * sizeof *e);
    memcpy(e + pos, s->seq + pos + 1,
           (size_t)(s->nseq - pos - 1) * sizeof *e);
    rc = seq_out(m, s->dt, e, s->nseq - 1);
    free(e);
    return rc;
}

static int op_at(OxModel *m)
{
    OxValue *s = seq_in(m, 0);
    int64_t pos;

    if (!s || (pos = position(m, 1, -1, s->nseq, 0)) < 0) {
        if (!m->error)
            ox_unsupported(m, "input 1 is missing");
        return -1;
    }
    ox_comment(m);
    return ox_give(m, 0, s->seq[pos]);
}

static int op_length(OxModel *m)
{
    OxValue *s = seq_in(m, 0);
    TlTensor *t;

    if (!s)
        return -1;
    if (m->node->n_output < 1 || !*m->node->output[0] ||
        ox_find(m, m->node->output[0])) {
        ox_unsupported(m, "output 0 is missing or defined twice");
        return -1;
    }
    t = tl_tensor_new(DT_I64, 0, NULL, NULL, 0);
    *(int64_t *)t->data = s->nseq;
    ox_const(m, m->node->output[0], t);
    return 0;
}

/* ConcatFromSequence: the elements stacked (new_axis) or concatenated,
 * the latter as the Concat node it is. */
static int op_concat_seq(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    OxValue *s = seq_in(m, 0);
    int64_t axis = ox_attr_i(m, "axis", 0), nx = ox_attr_i(m, "new_axis", 0);
    Onnx__NodeProto c = ONNX__NODE_PROTO__INIT;
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *ap = &a;
    char **ins;
    int rank, rc;

    if (!s)
        return -1;
    if (!s->nseq) {
        ox_unsupported(m, "the sequence is empty");
        return -1;
    }
    rank = s->seq[0]->rank + (nx ? 1 : 0);
    if (axis < -rank || axis >= rank) {
        ox_unsupported(m, "axis %lld is out of range", (long long)axis);
        return -1;
    }
    if (axis < 0)
        axis += rank;
    if (nx) {
        ox_comment(m);
        return ox_stack(m, s->seq, s->nseq, (int)axis, 0, 0, NULL) ? 0 : -1;
    }
    ins = tl_xcalloc((size_t)s->nseq + 1, sizeof *ins);
    for (int i = 0; i < s->nseq; i++)
        ins[i] = s->seq[i]->name;
    a.name = "axis";
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a.has_i = 1;
    a.i = axis;
    c.op_type = "Concat";
    c.name = n->name;
    c.n_input = (size_t)s->nseq;
    c.input = ins;
    c.n_output = 1;
    c.output = n->output;
    c.n_attribute = 1;
    c.attribute = &ap;
    rc = ox_import_node(m, &c);
    free(ins);
    return rc;
}

/* Part [off, off + len) of x along axis, named base+suffix: computed at
 * import for a constant, else a stage. */
static OxValue *part(OxModel *m, OxValue *x, int axis, int64_t off,
                     int64_t len, const char *suffix)
{
    int64_t dims[TL_MAX_RANK], outer = 1, inner = dt_size(x->dt);
    char *name = ox_fresh(m, m->node->output[0], suffix);
    OxValue *y;

    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = len;
    for (int i = 0; i < x->rank; i++) {
        if (i < axis)
            outer *= x->dims[i];
        if (i > axis)
            inner *= x->dims[i];
    }
    if (x->cval) {
        TlTensor *src = tl_tensor_contiguous(x->cval);
        TlTensor *t = tl_tensor_new(x->dt, x->rank, dims, NULL, 0);
        for (int64_t o = 0; o < outer; o++)
            memcpy((char *)t->data + o * len * inner,
                   (const char *)src->data + (o * x->dims[axis] + off) *
                                                 inner,
                   (size_t)(len * inner));
        tl_tensor_unref(src);
        y = ox_const(m, name, t);
    } else {
        OxIdx idx[TL_MAX_RANK];
        y = ox_add(m, name, OX_NODE, x->dt, x->rank, dims);
        for (int i = 0; i < x->rank; i++) {
            if (i == axis && off)
                snprintf(idx[i], sizeof idx[i], "i%d + %lld", i,
                         (long long)off);
            else
                snprintf(idx[i], sizeof idx[i], "i%d", i);
        }
        ox_lhs(&m->body, y->id, x->rank);
        ox_read(&m->body, x, idx);
        buf_putc(&m->body, '\n');
    }
    free(name);
    return y;
}

/* SplitToSequence: parts of 1 (without split; keepdims 0 drops the
 * axis), of split's one size (the last part shorter), or of split's
 * sizes. */
static int op_split_seq(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *sp = ox_in(m, 1), **e;
    int64_t axis = ox_attr_i(m, "axis", 0);
    int64_t keep = ox_attr_i(m, "keepdims", 1), sizes[1024], d, off = 0;
    int n = 0, rc;
    char suffix[32];

    if (!x)
        return -1;
    if (axis < -x->rank || axis >= x->rank) {
        ox_unsupported(m, "axis %lld is out of range", (long long)axis);
        return -1;
    }
    if (axis < 0)
        axis += x->rank;
    d = x->dims[axis];
    if (sp) {
        int k = ox_const_ints(m, sp, sizes, 1024);
        if (k < 0)
            return -1;
        if (!sp->rank) {
            int64_t s = sizes[0];
            if (s < 1 || (s && (d + s - 1) / s > 1024)) {
                ox_unsupported(m, "a split of %lld is not supported",
                               (long long)s);
                return -1;
            }
            for (int64_t o = 0; o < d; o += s)
                sizes[n++] = o + s <= d ? s : d - o;
        } else {
            int64_t sum = 0;
            n = k;
            for (int i = 0; i < n && sum >= 0; i++)
                sum = sizes[i] < 0 ? -1 : sum + sizes[i];
            if (sum != d) {
                ox_unsupported(m, "the split sizes do not add up to %lld",
                               (long long)d);
                return -1;
            }
        }
    } else {
        if (d > 1024) {
            ox_unsupported(m, "more than 1024 parts are not supported");
            return -1;
        }
        for (int64_t i = 0; i < d; i++)
            sizes[n++] = 1;
    }
    e = tl_xcalloc((size_t)n + 1, sizeof *e);
    ox_comment(m);
    for (int i = 0; i < n; i++) {
        snprintf(suffix, sizeof suffix, "@%d", i);
        e[i] = !sp && !keep
                   ? ox_take(m, x, (int)axis, off, m->node->output[0], suffix)
                   : part(m, x, (int)axis, off, sizes[i], suffix);
        off += sizes[i];
    }
    rc = seq_out(m, x->dt, e, n);
    free(e);
    return rc;
}

static const OxOp ops[] = {
    {"SequenceEmpty", op_empty},
    {"SequenceConstruct", op_construct},
    {"SequenceInsert", op_insert},
    {"SequenceErase", op_erase},
    {"SequenceAt", op_at},
    {"SequenceLength", op_length},
    {"ConcatFromSequence", op_concat_seq},
    {"SplitToSequence", op_split_seq},
};

OxOpFn ox_seq_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}

/* A sequence graph input: its elements, read from the SequenceProto
 * file of its --bind (spec; NULL when none), become graph inputs of
 * their own (kernel parameters "x_0", "x_1", ...), in order, and the
 * input the OX_SEQ value that lists them.  The file fixes the count
 * and the shapes; like a bound tensor, an integer element keeps its
 * value for folding (ox_foldable). */
int ox_seq_input(OxModel *m, const Onnx__ValueInfoProto *vi, const char *spec)
{
    const Onnx__TypeProto__Sequence *st = vi->type->sequence_type;
    const Onnx__TypeProto *et = st ? st->elem_type : NULL;
    TlTensor **ts;
    OxValue *s;
    TlDType dt;
    char err[400];
    int n;

    if (!et || et->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !et->tensor_type || !et->tensor_type->has_elem_type) {
        ox_fail(m, "input '%s': only sequences of tensors are supported",
                vi->name);
        return -1;
    }
    dt = ox_dtype(et->tensor_type->elem_type);
    if (dt == DT_NONE) {
        ox_fail(m, "input '%s': ONNX data type %d is not supported",
                vi->name, (int)et->tensor_type->elem_type);
        return -1;
    }
    if (!spec || strlen(spec) < 3 || strcmp(spec + strlen(spec) - 3, ".pb")) {
        ox_fail(m, "input '%s' is a sequence; give its elements with "
                "--bind %s=FILE.pb (an ONNX SequenceProto)", vi->name,
                vi->name);
        return -1;
    }
    if (!(ts = tl_onnx_sequence_read(spec, &n, err, sizeof err))) {
        ox_fail(m, "--bind %s: %s", vi->name, err);
        return -1;
    }
    s = ox_seq_bound(m, vi->name, dt, ts, n);
    free(ts);
    return s ? 0 : -1;
}

OxValue *ox_seq_bound(OxModel *m, const char *name, TlDType dt,
                      TlTensor **ts, int n)
{
    OxValue **elems = tl_xcalloc((size_t)n + 1, sizeof *elems), *s;

    for (int i = 0; i < n; i++) {
        char suffix[24], *ename;
        if (ts[i]->dtype != dt) {
            ox_fail(m, "--bind %s: element %d holds %s values but the "
                    "sequence is of %s", name, i,
                    dt_name(ts[i]->dtype), dt_name(dt));
            break;
        }
        if (!ox_dims_ok(ts[i]->rank, ts[i]->shape)) {
            ox_fail(m, "--bind %s: element %d is too large (the limit is "
                    "2^40 elements)", name, i);
            break;
        }
        snprintf(suffix, sizeof suffix, "@%d", i);
        ename = ox_fresh(m, name, suffix);
        elems[i] = ox_add(m, ename, OX_INPUT, dt, ts[i]->rank, ts[i]->shape);
        elems[i]->seqelem = 1;
        /* Integers are kept for folding (what a position or shape
         * reads); floats stay data, read by the kernel: a constant
         * would be passed on as one (ox_give).  Their value is the
         * bound one (bval) all the same. */
        if (!dt_is_float(dt))
            elems[i]->cval = ts[i];
        else
            elems[i]->bval = ts[i];
        ts[i] = NULL;
        free(ename);
    }
    for (int i = 0; i < n; i++)
        tl_tensor_unref(ts[i]);
    if (m->error) {
        free(elems);
        return NULL;
    }
    s = ox_add(m, name, OX_SEQ, dt, 0, NULL);
    s->seq = elems;
    s->nseq = n;
    s->seqin = 1;
    return s;
}
