/*
 * onnx_dot.c - `tdsl import --dot`: the ONNX graph in Graphviz form.
 * Ops are boxes ("Conv\nconv_17"), graph inputs and outputs ellipses
 * with their declared shapes; an edge per tensor from its producer to
 * each consumer, labelled with the tensor's name.  Initializers are not
 * drawn (they would crowd out the graph).  Works for any model that
 * reads, whatever ops it uses.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

/* s as the inside of a DOT string. */
static void q(TlBuf *b, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_putc(b, '\\');
        buf_putc(b, c >= 32 && c < 127 ? (char)c : '?');
    }
}

static void shape_of(TlBuf *b, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TensorShapeProto *sh;

    if (!vi->type || vi->type->value_case !=
                         ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type || !(sh = vi->type->tensor_type->shape))
        return;
    buf_puts(b, "\\n[");
    for (size_t i = 0; i < sh->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
        buf_puts(b, i ? ", " : "");
        if (d->value_case ==
            ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            buf_printf(b, "%lld", (long long)d->dim_value);
        else if (d->value_case ==
                 ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            q(b, d->dim_param);
        else
            buf_putc(b, '?');
    }
    buf_putc(b, ']');
}

static int is_init(const Onnx__GraphProto *g, const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && !strcmp(g->initializer[i]->name,
                                               name))
            return 1;
    return 0;
}

/* The node that outputs `name` ("n<k>"), or the graph input ("in<k>");
 * 0 when neither (an initializer or a dangling name). */
static int source(const Onnx__GraphProto *g, const char *name, char *id,
                  size_t n)
{
    for (size_t k = 0; k < g->n_node; k++)
        for (size_t j = 0; j < g->node[k]->n_output; j++)
            if (!strcmp(g->node[k]->output[j], name)) {
                snprintf(id, n, "n%zu", k);
                return 1;
            }
    for (size_t k = 0; k < g->n_input; k++)
        if (g->input[k]->name && !strcmp(g->input[k]->name, name) &&
            !is_init(g, name)) {
            snprintf(id, n, "in%zu", k);
            return 1;
        }
    return 0;
}

int tl_onnx_dot(const char *model, const char *out)
{
    char err[400], id[32];
    Onnx__ModelProto *mp = ox_read_model(model, err, sizeof err);
    Onnx__GraphProto *g;
    TlBuf b;
    FILE *f;
    int rc = 0;

    if (!mp) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    g = mp->graph;
    buf_init(&b);
    buf_puts(&b, "digraph \"");
    q(&b, g->name && *g->name ? g->name : "model");
    buf_puts(&b, "\" {\n    rankdir=TB;\n    node [fontname=\"Helvetica\"];"
                 "\n");
    for (size_t k = 0; k < g->n_input; k++) {
        if (!g->input[k]->name || is_init(g, g->input[k]->name))
            continue;
        buf_printf(&b, "    in%zu [shape=ellipse, label=\"", k);
        q(&b, g->input[k]->name);
        shape_of(&b, g->input[k]);
        buf_puts(&b, "\"];\n");
    }
    for (size_t k = 0; k < g->n_node; k++) {
        const Onnx__NodeProto *n = g->node[k];
        buf_printf(&b, "    n%zu [shape=box, label=\"", k);
        if (n->domain && *n->domain) {
            q(&b, n->domain);
            buf_putc(&b, ':');
        }
        q(&b, n->op_type);
        if (n->name && *n->name) {
            buf_puts(&b, "\\n");
            q(&b, n->name);
        }
        buf_puts(&b, "\"];\n");
        for (size_t j = 0; j < n->n_input; j++)
            if (*n->input[j] && source(g, n->input[j], id, sizeof id)) {
                buf_printf(&b, "    %s -> n%zu [label=\"", id, k);
                q(&b, n->input[j]);
                buf_puts(&b, "\"];\n");
            }
    }
    for (size_t k = 0; k < g->n_output; k++) {
        const char *name = g->output[k]->name;
        buf_printf(&b, "    out%zu [shape=ellipse, label=\"", k);
        q(&b, name);
        shape_of(&b, g->output[k]);
        buf_puts(&b, "\"];\n");
        if (name && source(g, name, id, sizeof id))
            buf_printf(&b, "    %s -> out%zu;\n", id, k);
    }
    buf_puts(&b, "}\n");
    onnx__model_proto__free_unpacked(mp, NULL);
    f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "tdsl: cannot write '%s'\n", out);
        rc = -1;
    } else {
        if (fwrite(b.s, 1, b.len, f) != b.len)
            rc = -1;
        if (out && fclose(f) != 0)
            rc = -1;
        if (rc < 0)
            fprintf(stderr, "tdsl: cannot write '%s'\n",
                    out ? out : "stdout");
    }
    buf_free(&b);
    return rc;
}
