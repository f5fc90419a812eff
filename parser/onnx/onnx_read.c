/*
 * onnx_read.c - reading an .onnx file (a ModelProto) with the protobuf-c
 * code generated from the system onnx.proto, and turning TensorProto
 * initializers into tensors (through interp/onnxpb.c, so both paths
 * share one set of checks).  Errors are messages, never crashes.
 */
#include "parser/onnx/onnx_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Models above this size are refused (protobuf's own limit is 2 GiB). */
#define OX_MAX_FILE ((long)1 << 30)

Onnx__ModelProto *ox_read_model(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    Onnx__ModelProto *mp;
    unsigned char *data;
    long n;

    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot read", path);
        return NULL;
    }
    if (n > OX_MAX_FILE) {
        fclose(f);
        snprintf(err, errlen, "%s: larger than 1 GiB (external data is "
                 "not supported yet)", path);
        return NULL;
    }
    data = tl_xmalloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        snprintf(err, errlen, "%s: cannot read", path);
        return NULL;
    }
    fclose(f);
    mp = onnx__model_proto__unpack(NULL, (size_t)n, data);
    free(data);
    if (!mp) {
        snprintf(err, errlen, "%s: not a valid ONNX model (the protobuf "
                 "is malformed or truncated)", path);
        return NULL;
    }
    if (!mp->graph) {
        onnx__model_proto__free_unpacked(mp, NULL);
        snprintf(err, errlen, "%s: the model has no graph", path);
        return NULL;
    }
    return mp;
}

/* Writes s to stderr with control bytes and bytes that are not
 * printable ASCII as \xNN: names in a hostile file can hold anything. */
static void put_clean(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 32 && c < 127)
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
}

static void vreport(OxModel *m, int with_node, const char *fmt, va_list ap)
{
    const Onnx__NodeProto *n = m->node;
    TlBuf b;

    if (m->error)
        return;
    buf_init(&b);
    buf_printf(&b, "%s: ", m->path);
    if (with_node && n)
        buf_printf(&b, "node '%s' (%s, opset %d): ",
                   n->name && *n->name ? n->name
                                       : n->n_output ? n->output[0] : "?",
                   n->op_type ? n->op_type : "?", m->opset);
    buf_vprintf(&b, fmt, ap);
    put_clean(b.s);
    fputc('\n', stderr);
    buf_free(&b);
    m->error = 1;
}

void ox_fail(OxModel *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(m, 0, fmt, ap);
    va_end(ap);
}

/* "model.onnx: node 'x' (Conv, opset 11): MESSAGE" */
void ox_unsupported(OxModel *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(m, 1, fmt, ap);
    va_end(ap);
}

/* The tensor of an initializer or a Constant's value.  External data
 * is refused for now; the rest is checked by interp/onnxpb.c. */
TlTensor *ox_tensor_from_proto(OxModel *m, const Onnx__TensorProto *p)
{
    char err[400];
    size_t n;
    uint8_t *buf;
    TlTensor *t;
    const char *name = p->name && *p->name ? p->name : "constant";

    if (p->n_external_data ||
        (p->has_data_location &&
         p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
        ox_fail(m, "tensor '%s': external data is not supported yet", name);
        return NULL;
    }
    for (size_t i = 0; i < p->n_dims; i++)
        if (p->dims[i] < 0 || p->dims[i] > OX_MAX_DIM) {
            ox_fail(m, "tensor '%s': dimension %lld is out of range (0 .. "
                    "2^31 - 1)", name, (long long)p->dims[i]);
            return NULL;
        }
    n = onnx__tensor_proto__get_packed_size(p);
    buf = tl_xmalloc(n + 1);
    onnx__tensor_proto__pack(p, buf);
    t = tl_onnx_tensor_read_mem(buf, n, name, err, sizeof err);
    free(buf);
    if (!t)
        ox_fail(m, "%s", err);
    return t;
}
