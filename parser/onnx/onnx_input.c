/*
 * onnx_input.c - the graph's inputs: a tensor's dtype and shape from
 * its type (symbolic dimensions become size variables, onnx_sym.c) or
 * from a --bind (a shape, or a .pb/.npy file whose value is kept for
 * folding); a sequence's from the SequenceProto file of its --bind
 * (onnx_ops_seq.c), an optional's from its OptionalProto file
 * (onnx_ops_opt.c).
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* The shape or value of a --bind. */
static int parse_bind(OxModel *m, const TlOnnxBind *b, int *rank,
                      int64_t *dims, TlTensor **value)
{
    char err[400];
    const char *p = b->spec;

    *value = NULL;
    if (ends_with(p, ".pb") || ends_with(p, ".npy")) {
        TlTensor *t = ends_with(p, ".pb")
                          ? tl_onnx_tensor_read(p, err, sizeof err)
                          : tl_npy_read(p, err, sizeof err);
        if (!t) {
            ox_fail(m, "--bind %s: %s", b->name, err);
            return -1;
        }
        *rank = t->rank;
        memcpy(dims, t->shape, sizeof t->shape);
        *value = t;
        return 0;
    }
    *rank = 0;
    while (*p) {
        char *end;
        long long d = strtoll(p, &end, 10);
        if (end == p || d < 0 || d > OX_MAX_DIM || *rank == TL_MAX_RANK ||
            (*end && *end != 'x')) {
            ox_fail(m, "--bind %s=%s: expected a shape like 1x3x224x224 "
                    "or a .pb/.npy file", b->name, b->spec);
            return -1;
        }
        dims[(*rank)++] = d;
        p = *end ? end + 1 : end;
    }
    return 0;
}

int ox_bind_names(const char *b, const char *name, int pos)
{
    char num[16];
    snprintf(num, sizeof num, "#%d", pos);
    return !strcmp(b, name) || !strcmp(b, num);
}

int ox_add_input(OxModel *m, const Onnx__ValueInfoProto *vi, int pos,
                 const TlOnnxBind *binds, int nbinds)
{
    const Onnx__TypeProto *tp = vi->type;
    const Onnx__TensorShapeProto *sh;
    int64_t dims[TL_MAX_RANK];
    int rank = 0;
    TlDType dt;
    TlTensor *value = NULL;

    if (!vi->name || !*vi->name) {
        ox_fail(m, "a graph input has no name");
        return -1;
    }
    if (ox_find(m, vi->name)) {
        ox_fail(m, "input '%s' is declared twice", vi->name);
        return -1;
    }
    if (tp && (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
               tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)) {
        const char *spec = NULL;
        for (int i = 0; i < nbinds && !spec; i++)
            if (ox_bind_names(binds[i].name, vi->name, pos))
                spec = binds[i].spec;
        return tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE
                   ? ox_seq_input(m, vi, spec)
                   : ox_opt_input(m, vi, spec);
    }
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !tp->tensor_type || !tp->tensor_type->has_elem_type) {
        ox_fail(m, "input '%s': only tensor, sequence and optional inputs "
                "are supported", vi->name);
        return -1;
    }
    dt = ox_dtype(tp->tensor_type->elem_type);
    if (dt == DT_NONE) {
        ox_fail(m, "input '%s': ONNX data type %d is not supported",
                vi->name, (int)tp->tensor_type->elem_type);
        return -1;
    }
    for (int i = 0; i < nbinds; i++)
        if (ox_bind_names(binds[i].name, vi->name, pos)) {
            if (parse_bind(m, &binds[i], &rank, dims, &value) < 0)
                return -1;
            if (value && value->dtype != dt) {
                ox_fail(m, "--bind %s: the file holds %s values but the "
                        "input is %s", vi->name, dt_name(value->dtype),
                        dt_name(dt));
                tl_tensor_unref(value);
                return -1;
            }
            if (!ox_dims_ok(rank, dims)) {
                ox_fail(m, "--bind %s: the shape is too large (the limit "
                        "is 2^40 elements)", vi->name);
                tl_tensor_unref(value);
                return -1;
            }
            OxValue *v = ox_add(m, vi->name, OX_INPUT, dt, rank, dims);
            v->cval = value;
            return 0;
        }
    sh = tp->tensor_type->shape;
    if (!sh) {
        ox_fail(m, "input '%s' has no shape; give one with --bind %s=SHAPE",
                vi->name, vi->name);
        return -1;
    }
    if (sh->n_dim > TL_MAX_RANK) {
        ox_fail(m, "input '%s' has rank %zu (the limit is %d)", vi->name,
                sh->n_dim, TL_MAX_RANK);
        return -1;
    }
    for (size_t i = 0; i < sh->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        if (d->value_case !=
            ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            int named = d->value_case ==
                        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            int64_t s = ox_sym_dim(m, named && d->dim_param ? d->dim_param
                                                            : "", vi->name);
            if (s < 0)
                return -1;
            dims[rank++] = s;
            continue;
        }
        if (d->dim_value < 0 || d->dim_value > OX_MAX_DIM) {
            ox_fail(m, "input '%s': dimension %lld is out of range (0 .. "
                    "2^31 - 1)", vi->name, (long long)d->dim_value);
            return -1;
        }
        dims[rank++] = d->dim_value;
    }
    if (!ox_dims_ok(rank, dims)) {
        ox_fail(m, "input '%s' is too large (the limit is 2^40 elements)",
                vi->name);
        return -1;
    }
    ox_add(m, vi->name, OX_INPUT, dt, rank, dims);
    return 0;
}
