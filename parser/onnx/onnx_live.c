/*
 * onnx_live.c - which nodes of the top graph reach a graph output.
 *
 * Exporters leave nodes whose outputs nothing reads (a branch cut off
 * by hand, a shape computation the optimiser folded elsewhere).  They
 * have no effect on the outputs, and imported as stages they would
 * draw "stage is never used" on every run of the source, so the
 * importer leaves them out and says so in a comment.  A node is live
 * when one of its outputs is a graph output or an input of a live
 * node; a live node's subgraphs (If, Loop, Scan bodies) may read any
 * outer name, so every name their nodes take counts as read.  A node
 * whose form the import refuses is kept (see ox_live_nodes).
 */
#include "parser/onnx/onnx_int.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressed set of names (the protobuf's strings, not
 * copied), grown at half full. */
typedef struct Names {
    const char **slot;
    size_t cap, n;
} Names;

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* (protobuf-c leaves an empty string NULL: neither is a name) */
static int names_has(const Names *t, const char *s)
{
    if (!s || !*s || !t->cap)
        return 0;
    for (size_t i = name_hash(s) & (t->cap - 1); t->slot[i];
         i = (i + 1) & (t->cap - 1))
        if (!strcmp(t->slot[i], s))
            return 1;
    return 0;
}

static void names_add(Names *t, const char *s)
{
    if (!s || !*s || names_has(t, s))
        return;
    if (2 * (t->n + 1) > t->cap) {
        Names g = {NULL, t->cap ? 2 * t->cap : 64, 0};
        g.slot = tl_xcalloc(g.cap, sizeof *g.slot);
        for (size_t i = 0; i < t->cap; i++)
            if (t->slot[i])
                names_add(&g, t->slot[i]);
        free(t->slot);
        *t = g;
    }
    size_t i = name_hash(s) & (t->cap - 1);
    while (t->slot[i])
        i = (i + 1) & (t->cap - 1);
    t->slot[i] = s;
    t->n++;
}

/* Every name the nodes of g (and of their subgraphs) take. */
static void add_graph_reads(Names *t, const Onnx__GraphProto *g, int depth)
{
    if (depth > 64)
        return;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        for (size_t j = 0; j < n->n_input; j++)
            names_add(t, n->input[j]);
        for (size_t a = 0; a < n->n_attribute; a++) {
            const Onnx__AttributeProto *at = n->attribute[a];
            if (at->g)
                add_graph_reads(t, at->g, depth + 1);
            for (size_t k = 0; k < at->n_graphs; k++)
                add_graph_reads(t, at->graphs[k], depth + 1);
        }
    }
}

unsigned char *ox_live_nodes(const Onnx__GraphProto *g)
{
    unsigned char *live = tl_xcalloc(g->n_node + 1, 1);
    Names t = {NULL, 0, 0};

    Names made = {NULL, 0, 0};

    for (size_t i = 0; i < g->n_output; i++)
        names_add(&t, g->output[i]->name);
    /* A node the import would refuse for its form alone (no outputs,
     * a name made twice) stays, with what it reads, so that the model
     * is refused as before rather than run without it. */
    for (size_t i = 0; i < g->n_input; i++)
        names_add(&made, g->input[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++)
        names_add(&made, g->initializer[i]->name);
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        live[i] = !n->n_output;
        for (size_t j = 0; j < n->n_output; j++) {
            live[i] |= names_has(&made, n->output[j]);
            names_add(&made, n->output[j]);
        }
    }
    free(made.slot);
    /* Nodes come in order (ox_check_graph and the import refuse a
     * name read before it is made), so one pass from the end sees
     * every reader of a node before the node. */
    for (size_t i = g->n_node; i-- > 0;) {
        const Onnx__NodeProto *n = g->node[i];
        for (size_t j = 0; j < n->n_output && !live[i]; j++)
            live[i] = names_has(&t, n->output[j]);
        if (!live[i])
            continue;
        for (size_t j = 0; j < n->n_input; j++)
            names_add(&t, n->input[j]);
        for (size_t a = 0; a < n->n_attribute; a++) {
            const Onnx__AttributeProto *at = n->attribute[a];
            if (at->g)
                add_graph_reads(&t, at->g, 1);
            for (size_t k = 0; k < at->n_graphs; k++)
                add_graph_reads(&t, at->graphs[k], 1);
        }
    }
    free(t.slot);
    return live;
}
