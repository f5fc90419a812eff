/*
 * onnx_ops_opt.c - optionals, whose presence is known at import.  An
 * optional with an element is that element (a tensor or a sequence
 * value, marked `opt` so that a graph output of it is written as an
 * OptionalProto); one without is an OX_NONE value, which only the
 * Optional ops, Identity, If and Loop pass on.  An optional graph input
 * is bound to an OptionalProto file (--bind NAME=FILE.pb): its element,
 * if any, becomes kernel parameters as a tensor or sequence input
 * would; whether there is one is fixed by the file, as a sequence's
 * length is.  Reading the element of an optional known to be empty is
 * refused in one line at import.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The node's output 0 as an optional without an element of dtype dt. */
static int none_out(OxModel *m, TlDType dt)
{
    const Onnx__NodeProto *n = m->node;

    if (n->n_output < 1 || !*n->output[0] || ox_find(m, n->output[0])) {
        ox_unsupported(m, "output 0 is missing or defined twice");
        return -1;
    }
    ox_add(m, n->output[0], OX_NONE, dt, 0, NULL);
    return 0;
}

/* The tensor dtype of type tp (a tensor, or a sequence of tensors: *seq
 * says which); DT_NONE when it is neither or its dtype is not one of
 * tdsl's. */
static TlDType elem_dtype(const Onnx__TypeProto *tp, int *seq)
{
    *seq = 0;
    if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE &&
        tp->sequence_type) {
        *seq = 1;
        tp = tp->sequence_type->elem_type;
    }
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !tp->tensor_type || !tp->tensor_type->has_elem_type)
        return DT_NONE;
    return ox_dtype(tp->tensor_type->elem_type);
}

/* Optional(x): x as an optional; Optional() with its `type`: one
 * without an element. */
static int op_optional(OxModel *m)
{
    OxValue *x = ox_in(m, 0);
    const Onnx__AttributeProto *a = ox_attr(m, "type");
    OxValue *y;
    int seq;

    if (!x) {
        TlDType dt = a && a->tp ? elem_dtype(a->tp, &seq) : DT_NONE;
        if (dt == DT_NONE) {
            ox_unsupported(m, "an empty optional needs a 'type' of a "
                           "tensor or a sequence of tensors");
            return -1;
        }
        return none_out(m, dt);
    }
    if (x->kind == OX_NONE || x->opt) {
        ox_unsupported(m, "optionals of optionals are not supported");
        return -1;
    }
    ox_comment(m);
    if (ox_give(m, 0, x) < 0)
        return -1;
    if ((y = ox_find(m, m->node->output[0])))
        y->opt = 1;
    return 0;
}

/* OptionalHasElement: known at import.  Opset 18 also takes a tensor
 * or sequence (an element) and no input at all (none). */
static int op_has_element(OxModel *m)
{
    OxValue *x = ox_in(m, 0);
    const Onnx__NodeProto *n = m->node;
    TlTensor *t;

    if (n->n_output < 1 || !*n->output[0] || ox_find(m, n->output[0])) {
        ox_unsupported(m, "output 0 is missing or defined twice");
        return -1;
    }
    t = tl_tensor_new(DT_BOOL, 0, NULL, NULL, 0);
    *(uint8_t *)t->data = x && x->kind != OX_NONE;
    ox_const(m, n->output[0], t);
    return 0;
}

static int op_get_element(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;

    if (!x)
        return -1;
    if (x->kind == OX_NONE) {
        ox_unsupported(m, "the optional '%s' has no element", x->name);
        return -1;
    }
    ox_comment(m);
    if (ox_give(m, 0, x) < 0)
        return -1;
    if ((y = ox_find(m, m->node->output[0])))
        y->opt = 0;
    return 0;
}

static const OxOp ops[] = {
    {"Optional", op_optional},
    {"OptionalHasElement", op_has_element},
    {"OptionalGetElement", op_get_element},
};

OxOpFn ox_opt_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}

int ox_graph_input(const OxValue *v)
{
    return (v->kind == OX_INPUT && !v->seqelem) ||
           ((v->kind == OX_SEQ || v->kind == OX_NONE) && v->seqin);
}

int ox_opt_input(OxModel *m, const Onnx__ValueInfoProto *vi, const char *spec)
{
    const Onnx__TypeProto__Optional *ot = vi->type->optional_type;
    TlTensor **ts;
    TlDType dt;
    OxValue *v;
    char err[400];
    int seq, kind, n;

    dt = elem_dtype(ot ? ot->elem_type : NULL, &seq);
    if (dt == DT_NONE) {
        ox_fail(m, "input '%s': only optional tensors and sequences of "
                "tensors of tdsl's dtypes are supported", vi->name);
        return -1;
    }
    if (!spec || strlen(spec) < 3 || strcmp(spec + strlen(spec) - 3, ".pb")) {
        ox_fail(m, "input '%s' is optional; give it with --bind %s=FILE.pb "
                "(an ONNX OptionalProto)", vi->name, vi->name);
        return -1;
    }
    if (!(ts = tl_onnx_optional_read(spec, &kind, &n, err, sizeof err))) {
        ox_fail(m, "--bind %s: %s", vi->name, err);
        return -1;
    }
    if (kind && (kind == 3) != seq) {
        ox_fail(m, "--bind %s: the file holds an optional %s but the input "
                "is an optional %s", vi->name, kind == 3 ? "sequence" :
                "tensor", seq ? "sequence" : "tensor");
    } else if (!kind) {
        v = ox_add(m, vi->name, OX_NONE, dt, 0, NULL);
        v->seqin = 1;
    } else if (seq) {
        if ((v = ox_seq_bound(m, vi->name, dt, ts, n)))
            v->opt = 1;
        n = 0;              /* taken */
    } else if (ts[0]->dtype != dt) {
        ox_fail(m, "--bind %s: the file holds %s values but the input is "
                "%s", vi->name, dt_name(ts[0]->dtype), dt_name(dt));
    } else if (!ox_dims_ok(ts[0]->rank, ts[0]->shape)) {
        ox_fail(m, "--bind %s: the element is too large (the limit is "
                "2^40 elements)", vi->name);
    } else {
        /* As a sequence's element: integers kept for folding, floats
         * data that the kernel reads (their bound value its bval). */
        v = ox_add(m, vi->name, OX_INPUT, dt, ts[0]->rank, ts[0]->shape);
        v->opt = 1;
        if (!dt_is_float(dt))
            v->cval = ts[0];
        else
            v->bval = ts[0];
        n = 0;
    }
    for (int i = 0; i < n; i++)
        tl_tensor_unref(ts[i]);
    free(ts);
    return m->error ? -1 : 0;
}
