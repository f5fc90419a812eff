/*
 * onnx_ops_control.c - If, Loop and SequenceMap, whose subgraphs
 * are imported in line (ox_body_import, which Scan uses too:
 * onnx_ops_scan.c): the nodes of a body become stages of the
 * kernel like any other node's, once per iteration (per element for
 * SequenceMap), named by iteration (`sum_out_0`, `sum_out_1`, ...), the
 * way RNN/GRU/LSTM are unrolled over their steps.  A kernel has no loop
 * whose count comes from data, so what decides the number of
 * iterations must be known at import: Scan's is
 * the length of its scan inputs; Loop's trip count and condition must
 * be constants (or bound inputs, folded), and the condition each
 * iteration computes must fold too.  If takes its branch at import
 * when its condition is known, else computes both and selects, when
 * they yield the same shapes.
 *
 * A subgraph's names live in a scope (OxScope): its inputs and the
 * outputs of its nodes are mapped to fresh names of the model's value
 * table ("sum_out@0", written `sum_out_0`); other names are the outer
 * graphs' (ONNX lets a body read them).  The nodes are imported through
 * ox_import_node as copies that carry the mapped names, so folding,
 * shape inference and the messages work as for the main graph.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How deep subgraphs may nest (the most iterations a body is unrolled
 * to is OX_MAX_UNROLL, onnx_int.h). */
#define OX_MAX_DEPTH 16

struct OxScope {
    char **from, **to;
    int n, cap;
    struct OxScope *up;
};

/* The model's name of subgraph name `name`: the innermost scope's
 * mapping, else the name itself (an outer graph's value). */
static const char *mapped(const OxModel *m, const char *name)
{
    for (const OxScope *s = m->scope; s; s = s->up)
        for (int i = s->n; i-- > 0;)
            if (!strcmp(s->from[i], name))
                return s->to[i];
    return name;
}

static void scope_add(OxScope *s, const char *from, const char *to)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->from = tl_xrealloc(s->from, (size_t)s->cap * sizeof *s->from);
        s->to = tl_xrealloc(s->to, (size_t)s->cap * sizeof *s->to);
    }
    s->from[s->n] = tl_xstrdup(from);
    s->to[s->n++] = tl_xstrdup(to);
}

static void scope_free(OxScope *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->from[i]);
        free(s->to[i]);
    }
    free(s->from);
    free(s->to);
}

static OxValue *scalar_const(OxModel *m, const char *name, TlDType dt,
                             int64_t x)
{
    TlTensor *t = tl_tensor_new(dt, 0, NULL, NULL, 0);

    if (dt == DT_BOOL)
        *(unsigned char *)t->data = x != 0;
    else
        *(int64_t *)t->data = x;
    return ox_const(m, name, t);
}

/* Imports subgraph g once, its inputs being ins[nin]; the values of its
 * outputs in outs[g->n_output].  The names it defines get `suffix`;
 * its nodes' comments and messages say `where` ("iteration 2 of Loop
 * 'y'"). */
int ox_body_import(OxModel *m, const Onnx__GraphProto *g,
                       OxValue **ins, size_t nin, const char *suffix,
                       const char *where, OxValue **outs)
{
    OxScope s = {0};
    const char *outer_label = m->label;
    int rc = -1;

    if (g->n_input != nin) {
        ox_unsupported(m, "the subgraph '%s' has %zu inputs; %zu expected",
                       g->name ? g->name : "", g->n_input, nin);
        return -1;
    }
    if (m->depth >= OX_MAX_DEPTH) {
        ox_unsupported(m, "subgraphs nest more than %d deep", OX_MAX_DEPTH);
        return -1;
    }
    m->unrolled += (int64_t)g->n_node;
    if (m->unrolled > OX_MAX_NODES) {
        ox_unsupported(m, "unrolled, the graph would have more than %d "
                       "nodes", OX_MAX_NODES);
        return -1;
    }
    s.up = m->scope;
    m->scope = &s;
    m->depth++;
    for (size_t i = 0; i < nin; i++) {
        if (!g->input[i]->name || !*g->input[i]->name) {
            ox_unsupported(m, "a subgraph input has no name");
            goto done;
        }
        scope_add(&s, g->input[i]->name, ins[i]->name);
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *p = g->initializer[i];
        TlTensor *t;
        char *name;
        if (!p->name || !*p->name) {
            ox_unsupported(m, "a subgraph initializer has no name");
            goto done;
        }
        if (!(t = ox_tensor_from_proto(m, p)))
            goto done;
        name = ox_fresh(m, p->name, suffix);
        ox_const(m, name, t);
        scope_add(&s, p->name, name);
        free(name);
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        Onnx__NodeProto c = *n;
        char **in = tl_xcalloc(n->n_input + 1, sizeof *in);
        char **out = tl_xcalloc(n->n_output + 1, sizeof *out);
        const char *label = n->name && *n->name ? n->name
                            : n->n_output && n->output[0] ? n->output[0]
                                                          : "?";
        size_t ln = strlen(label) + strlen(where) + 8;
        char *name = tl_xmalloc(ln);
        int ok;

        snprintf(name, ln, "%s (%s)", label, where);
        for (size_t j = 0; j < n->n_input; j++)
            in[j] = tl_xstrdup(*n->input[j] ? mapped(m, n->input[j]) : "");
        for (size_t j = 0; j < n->n_output; j++)
            out[j] = *n->output[j] ? ox_fresh(m, n->output[j], suffix)
                                   : tl_xstrdup("");
        c.input = in;
        c.output = out;
        c.name = name;
        m->label = label;
        ok = ox_import_node(m, &c) == 0;
        m->label = outer_label;
        for (size_t j = 0; ok && j < n->n_output; j++)
            if (*n->output[j])
                scope_add(&s, n->output[j], out[j]);
        for (size_t j = 0; j < n->n_input; j++)
            free(in[j]);
        for (size_t j = 0; j < n->n_output; j++)
            free(out[j]);
        free(in);
        free(out);
        free(name);
        if (!ok)
            goto done;
    }
    for (size_t i = 0; i < g->n_output; i++) {
        const char *o = g->output[i]->name;
        if (!o || !(outs[i] = ox_find(m, mapped(m, o)))) {
            ox_unsupported(m, "subgraph output '%s' is not computed",
                           o ? o : "");
            goto done;
        }
    }
    rc = 0;
done:
    m->scope = s.up;
    m->depth--;
    scope_free(&s);
    return rc;
}

/* Refuses (-1, after a message) to unroll body g `iters` times when
 * that is more than OX_MAX_UNROLL iterations or would make the graph
 * larger than OX_MAX_NODES nodes, before any is imported. */
int ox_unroll_check(OxModel *m, const Onnx__GraphProto *g, int64_t iters)
{
    if (iters > OX_MAX_UNROLL) {
        ox_unsupported(m, "more than %d iterations (the most a loop is "
                       "unrolled to)", OX_MAX_UNROLL);
        return -1;
    }
    if (m->unrolled + iters * (int64_t)g->n_node > OX_MAX_NODES) {
        ox_unsupported(m, "unrolled, the graph would have more than %d "
                       "nodes", OX_MAX_NODES);
        return -1;
    }
    return 0;
}

/* The node's graph attribute `name`; NULL after a message. */
const Onnx__GraphProto *ox_graph_attr(OxModel *m, const char *name)
{
    const Onnx__AttributeProto *a = ox_attr(m, name);

    if (!a || !a->g) {
        ox_unsupported(m, "no '%s' graph", name);
        return NULL;
    }
    return a->g;
}

/* The node's name for messages and comments (a subgraph's node's own,
 * without the iteration import_body adds). */
const char *ox_node_label(const OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    if (m->label)
        return m->label;
    return n->name && *n->name ? n->name
           : n->n_output && n->output[0] ? n->output[0]
                                         : "?";
}

void ox_body_iter(OxModel *m, const char *what, const char *tag,
                  int64_t it, char *suffix, char *where)
{
    snprintf(suffix, OX_SUFFIX_LEN, "%s@%lld", tag, (long long)it);
    snprintf(where, OX_WHERE_LEN, "%s %lld of %s '%s'", what, (long long)it,
             m->node->op_type, ox_node_label(m));
    buf_printf(&m->body, "    # %s %lld\n", what, (long long)it);
}

/* If: the branch its condition takes when that is known at import;
 * else both, and a select per output. */
static int op_if(OxModel *m)
{
    const Onnx__GraphProto *gt = ox_graph_attr(m, "then_branch");
    const Onnx__GraphProto *ge = gt ? ox_graph_attr(m, "else_branch") : NULL;
    OxValue *c = ox_need_in(m, 0);
    OxValue **ot, **oe;
    char where[300];
    int rc = -1;

    if (!gt || !ge || !c)
        return -1;
    if (ox_numel(c) != 1) {
        ox_unsupported(m, "the condition must hold one element");
        return -1;
    }
    if (gt->n_output != m->node->n_output ||
        ge->n_output != m->node->n_output) {
        ox_unsupported(m, "the branches must yield the node's %zu outputs",
                       m->node->n_output);
        return -1;
    }
    ot = tl_xcalloc(gt->n_output + 1, sizeof *ot);
    oe = tl_xcalloc(ge->n_output + 1, sizeof *oe);
    ox_comment(m);
    if (c->cval) {
        int64_t zero[TL_MAX_RANK] = {0};
        int taken = tl_tensor_get_f64(c->cval, c->rank ? zero : NULL) != 0;
        snprintf(where, sizeof where, "%s branch of If '%s'",
                 taken ? "then" : "else", ox_node_label(m));
        buf_printf(&m->body, "    # the condition is known: the %s "
                   "branch\n", taken ? "then" : "else");
        if (ox_body_import(m, taken ? gt : ge, NULL, 0, "", where,
                        taken ? ot : oe) < 0)
            goto done;
        for (size_t i = 0; i < m->node->n_output; i++)
            if (ox_give(m, (int)i, taken ? ot[i] : oe[i]) < 0)
                goto done;
        rc = 0;
        goto done;
    }
    snprintf(where, sizeof where, "then branch of If '%s'", ox_node_label(m));
    if (ox_body_import(m, gt, NULL, 0, "", where, ot) < 0)
        goto done;
    snprintf(where, sizeof where, "else branch of If '%s'", ox_node_label(m));
    if (ox_body_import(m, ge, NULL, 0, "", where, oe) < 0)
        goto done;
    for (size_t i = 0; i < m->node->n_output; i++) {
        OxValue *a = ot[i], *b = oe[i], *y;
        OxIdx idx[TL_MAX_RANK], cidx[TL_MAX_RANK];
        if (a->kind == OX_SEQ || b->kind == OX_SEQ || a->kind == OX_NONE ||
            b->kind == OX_NONE) {
            ox_unsupported(m, "the condition '%s' is not known at import "
                           "and output %zu is a sequence or an optional "
                           "(bind it with --bind)", c->name, i);
            goto done;
        }
        if (a->dt != b->dt || a->rank != b->rank ||
            memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank)) {
            ox_unsupported(m, "the condition '%s' is not known at import "
                           "and the branches yield different types or "
                           "shapes for output %zu (bind it with --bind)",
                           c->name, i);
            goto done;
        }
        if (!*m->node->output[i])
            continue;
        if (!(y = ox_out(m, (int)i, a->dt, a->rank, a->dims)))
            goto done;
        for (int k = 0; k < a->rank; k++)
            snprintf(idx[k], sizeof idx[k], "i%d", k);
        for (int k = 0; k < c->rank; k++)
            strcpy(cidx[k], "0");
        ox_lhs(&m->body, y->id, y->rank);
        buf_puts(&m->body, "select(");
        ox_read(&m->body, c, cidx);
        if (c->dt != DT_BOOL)
            buf_puts(&m->body, " != 0");
        buf_puts(&m->body, ", ");
        ox_read(&m->body, a, idx);
        buf_puts(&m->body, ", ");
        ox_read(&m->body, b, idx);
        buf_puts(&m->body, ")\n");
    }
    rc = 0;
done:
    free(ot);
    free(oe);
    return rc;
}

/* A known scalar's value: 0 and *x, or -1 when v is not known.  A
 * value computed from bound data counts (its bval, onnx_fold.c): a
 * trip count the kernel is then specialised to. */
static int known(const OxValue *v, int64_t *x)
{
    int64_t zero[TL_MAX_RANK] = {0};
    TlTensor *t = ox_bound(v);

    if (!t || ox_numel(v) != 1)
        return -1;
    *x = dt_is_float(v->dt) ? (int64_t)tl_tensor_get_f64(t, v->rank ? zero
                                                                   : NULL)
                            : tl_tensor_get_i64(t, v->rank ? zero : NULL);
    return 0;
}

/* Loop, unrolled: the trip count and the condition known at import,
 * and the condition each iteration computes known as well. */
static int op_loop(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    const Onnx__GraphProto *g = ox_graph_attr(m, "body");
    OxValue *tc = ox_in(m, 0), *cond = ox_in(m, 1);
    OxValue **vals, **ins, **outs, ***scans = NULL;
    int64_t trip = -1, go = 1, it;
    size_t N, K;
    char where[OX_WHERE_LEN], suffix[OX_SUFFIX_LEN];
    int rc = -1;

    if (!g)
        return -1;
    if (n->n_input < 2 || g->n_output < n->n_input - 1) {
        ox_unsupported(m, "the body must yield a condition and the %zu "
                       "loop-carried values", n->n_input < 2 ? 0
                                                             : n->n_input - 2);
        return -1;
    }
    N = n->n_input - 2;
    K = g->n_output - 1 - N;
    if (!tc && !cond) {
        ox_unsupported(m, "neither a trip count nor a condition: the loop "
                       "never ends");
        return -1;
    }
    if (tc && known(tc, &trip) < 0) {
        ox_unsupported(m, "the trip count '%s' is not known at import (the "
                       "loop is unrolled; bind it with --bind)", tc->name);
        return -1;
    }
    if (cond && known(cond, &go) < 0) {
        ox_unsupported(m, "the condition '%s' is not known at import (the "
                       "loop is unrolled; bind it with --bind)", cond->name);
        return -1;
    }
    vals = tl_xcalloc(N + 1, sizeof *vals);
    ins = tl_xcalloc(N + 3, sizeof *ins);
    outs = tl_xcalloc(g->n_output + 1, sizeof *outs);
    scans = tl_xcalloc(K + 1, sizeof *scans);
    for (size_t k = 0; k < K; k++)
        scans[k] = tl_xcalloc(OX_MAX_UNROLL, sizeof **scans);
    for (size_t j = 0; j < N; j++)
        if (!(vals[j] = ox_need_in(m, (int)(2 + j))))
            goto done;
    if (g->n_input != N + 2) {
        ox_unsupported(m, "the subgraph '%s' has %zu inputs; %zu expected",
                       g->name ? g->name : "", g->n_input, N + 2);
        goto done;
    }
    /* (with a condition, the count may be a bound it never reaches:
     * INT64_MAX for a while loop) */
    if (!cond && ox_unroll_check(m, g, trip) < 0)
        goto done;
    ox_comment(m);
    if ((tc && !tc->cval) || (cond && !cond->cval))
        buf_printf(&m->body, "    # the %s is computed from the data "
                   "bound at import: the kernel is made for it\n",
                   tc && !tc->cval ? "trip count" : "condition");
    for (it = 0; go && (trip < 0 || it < trip); it++) {
        char *nm;
        if (it == OX_MAX_UNROLL && ox_unroll_check(m, g, it + 1) < 0)
            goto done;
        ox_body_iter(m, "iteration", "", it, suffix, where);
        nm = ox_fresh(m, g->input[0]->name ? g->input[0]->name : "iter",
                   suffix);
        ins[0] = scalar_const(m, nm, DT_I64, it);
        free(nm);
        nm = ox_fresh(m, g->input[1]->name ? g->input[1]->name : "cond",
                   suffix);
        ins[1] = scalar_const(m, nm, DT_BOOL, 1);
        free(nm);
        for (size_t j = 0; j < N; j++)
            ins[2 + j] = vals[j];
        if (ox_body_import(m, g, ins, N + 2, suffix, where, outs) < 0)
            goto done;
        if (known(outs[0], &go) < 0) {
            ox_unsupported(m, "the condition the body computes ('%s') is "
                           "not known at import: the number of iterations "
                           "depends on data", g->output[0]->name);
            goto done;
        }
        for (size_t j = 0; j < N; j++)
            vals[j] = outs[1 + j];
        for (size_t k = 0; k < K; k++)
            scans[k][it] = outs[1 + N + k];
    }
    if (K && !it) {
        ox_unsupported(m, "the loop runs no iteration, so its scan outputs' "
                       "shapes are not known");
        goto done;
    }
    buf_printf(&m->body, "    # the results of Loop '%s'\n", ox_node_label(m));
    for (size_t j = 0; j < N; j++)
        if (ox_give(m, (int)j, vals[j]) < 0)
            goto done;
    for (size_t k = 0; k < K; k++)
        if (N + k < n->n_output && *n->output[N + k] &&
            !ox_stack(m, scans[k], it, 0, 0, (int)(N + k), NULL))
            goto done;
    rc = 0;
done:
    for (size_t k = 0; k < K; k++)
        free(scans[k]);
    free(scans);
    free(vals);
    free(ins);
    free(outs);
    return rc;
}

/* SequenceMap: the body once per element of the sequence inputs (a
 * tensor input is the same at each), each body output collected into
 * a sequence output. */
static int op_sequence_map(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    const Onnx__GraphProto *g = ox_graph_attr(m, "body");
    OxValue *s0 = ox_need_in(m, 0), **ins, **outs, ***res;
    char where[OX_WHERE_LEN], suffix[OX_SUFFIX_LEN];
    int64_t len;
    int rc = -1;

    if (!g || !s0)
        return -1;
    if (s0->kind != OX_SEQ) {
        ox_unsupported(m, "input '%s' is not a sequence", s0->name);
        return -1;
    }
    len = s0->nseq;
    for (size_t j = 0; j < n->n_input; j++) {
        OxValue *v = ox_need_in(m, (int)j);
        if (!v)
            return -1;
        if (v->kind == OX_SEQ && v->nseq != len) {
            ox_unsupported(m, "the sequences have %lld and %d elements",
                           (long long)len, v->nseq);
            return -1;
        }
    }
    if (g->n_input != n->n_input) {
        ox_unsupported(m, "the subgraph '%s' has %zu inputs; %zu expected",
                       g->name ? g->name : "", g->n_input, n->n_input);
        return -1;
    }
    if (ox_unroll_check(m, g, len) < 0)
        return -1;
    ins = tl_xcalloc(n->n_input + 1, sizeof *ins);
    outs = tl_xcalloc(g->n_output + 1, sizeof *outs);
    res = tl_xcalloc(g->n_output + 1, sizeof *res);
    for (size_t k = 0; k < g->n_output; k++)
        res[k] = tl_xcalloc((size_t)len + 1, sizeof **res);
    ox_comment(m);
    for (int64_t it = 0; it < len; it++) {
        ox_body_iter(m, "element", "", it, suffix, where);
        for (size_t j = 0; j < n->n_input; j++) {
            OxValue *v = ox_in(m, (int)j);
            ins[j] = v->kind == OX_SEQ ? v->seq[it] : v;
        }
        if (ox_body_import(m, g, ins, n->n_input, suffix, where, outs) < 0)
            goto done;
        for (size_t k = 0; k < g->n_output; k++) {
            if (outs[k]->kind == OX_SEQ) {
                ox_unsupported(m, "the body's output '%s' is a sequence",
                               outs[k]->name);
                goto done;
            }
            res[k][it] = outs[k];
        }
    }
    for (size_t k = 0; k < g->n_output && k < n->n_output; k++) {
        /* (an empty result takes its dtype from the body's type) */
        const Onnx__TypeProto *tp = g->output[k]->type;
        TlDType dt = len ? res[k][0]->dt
                     : tp && tp->tensor_type
                         ? ox_dtype(tp->tensor_type->elem_type) : DT_F32;
        if (*n->output[k] &&
            ox_seq_out(m, (int)k, dt == DT_NONE ? DT_F32 : dt, res[k],
                       (int)len) < 0)
            goto done;
    }
    rc = 0;
done:
    for (size_t k = 0; k < g->n_output; k++)
        free(res[k]);
    free(res);
    free(ins);
    free(outs);
    return rc;
}

static const OxOp ops[] = {
    {"If", op_if},
    {"Loop", op_loop},
    {"SequenceMap", op_sequence_map},
};

OxOpFn ox_control_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
