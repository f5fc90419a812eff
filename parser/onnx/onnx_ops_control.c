/*
 * onnx_ops_control.c - If, Loop, Scan and SequenceMap, whose subgraphs
 * are imported in line: the nodes of a body become stages of the
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

/* The most iterations a Loop or Scan is unrolled to, and how deep
 * subgraphs may nest. */
#define OX_MAX_UNROLL 1024
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
static int import_body(OxModel *m, const Onnx__GraphProto *g,
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
static int too_many(OxModel *m, const Onnx__GraphProto *g, int64_t iters)
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
static const Onnx__GraphProto *graph_attr(OxModel *m, const char *name)
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
static const char *node_label(const OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    if (m->label)
        return m->label;
    return n->name && *n->name ? n->name
           : n->n_output && n->output[0] ? n->output[0]
                                         : "?";
}

/* If: the branch its condition takes when that is known at import;
 * else both, and a select per output. */
static int op_if(OxModel *m)
{
    const Onnx__GraphProto *gt = graph_attr(m, "then_branch");
    const Onnx__GraphProto *ge = gt ? graph_attr(m, "else_branch") : NULL;
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
                 taken ? "then" : "else", node_label(m));
        buf_printf(&m->body, "    # the condition is known: the %s "
                   "branch\n", taken ? "then" : "else");
        if (import_body(m, taken ? gt : ge, NULL, 0, "", where,
                        taken ? ot : oe) < 0)
            goto done;
        for (size_t i = 0; i < m->node->n_output; i++)
            if (ox_give(m, (int)i, taken ? ot[i] : oe[i]) < 0)
                goto done;
        rc = 0;
        goto done;
    }
    snprintf(where, sizeof where, "then branch of If '%s'", node_label(m));
    if (import_body(m, gt, NULL, 0, "", where, ot) < 0)
        goto done;
    snprintf(where, sizeof where, "else branch of If '%s'", node_label(m));
    if (import_body(m, ge, NULL, 0, "", where, oe) < 0)
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
    const Onnx__GraphProto *g = graph_attr(m, "body");
    OxValue *tc = ox_in(m, 0), *cond = ox_in(m, 1);
    OxValue **vals, **ins, **outs, ***scans = NULL;
    int64_t trip = -1, go = 1, it;
    size_t N, K;
    char where[300], suffix[32];
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
    if (!cond && too_many(m, g, trip) < 0)
        goto done;
    ox_comment(m);
    if ((tc && !tc->cval) || (cond && !cond->cval))
        buf_printf(&m->body, "    # the %s is computed from the data "
                   "bound at import: the kernel is made for it\n",
                   tc && !tc->cval ? "trip count" : "condition");
    for (it = 0; go && (trip < 0 || it < trip); it++) {
        char *nm;
        if (it == OX_MAX_UNROLL && too_many(m, g, it + 1) < 0)
            goto done;
        snprintf(suffix, sizeof suffix, "@%lld", (long long)it);
        snprintf(where, sizeof where, "iteration %lld of Loop '%s'",
                 (long long)it, node_label(m));
        buf_printf(&m->body, "    # iteration %lld\n", (long long)it);
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
        if (import_body(m, g, ins, N + 2, suffix, where, outs) < 0)
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
    buf_printf(&m->body, "    # the results of Loop '%s'\n", node_label(m));
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

/* Scan's attribute `name`: n entries, each 0 when absent. */
static int scan_ints(OxModel *m, const char *name, int64_t *out, size_t n)
{
    int k;

    memset(out, 0, n * sizeof *out);
    if (!ox_attr(m, name))
        return 0;
    if ((k = ox_attr_ints(m, name, out, (int)n)) != (int)n) {
        ox_unsupported(m, "'%s' must have %zu entries", name, n);
        return -1;
    }
    return 0;
}

/* The iterations of one Scan (for opset 8: of one batch entry): the
 * states st[N] and scan inputs xs[M] in; the final states in st, the
 * stacked scan outputs in ys[K] (as node outputs when out0 >= 0: N +
 * k). */
typedef struct ScanSpec {
    const Onnx__GraphProto *g;
    size_t N, M, K;
    int64_t in_axis[TL_MAX_RANK * 4], in_rev[TL_MAX_RANK * 4];
    int64_t out_axis[TL_MAX_RANK * 4], out_rev[TL_MAX_RANK * 4];
} ScanSpec;

static int scan_run(OxModel *m, const ScanSpec *sp, OxValue **st,
                    OxValue **xs, const char *tag, int as_outputs,
                    OxValue **ys)
{
    size_t N = sp->N, M = sp->M, K = sp->K;
    int64_t T = -1;
    OxValue **ins = tl_xcalloc(N + M + 1, sizeof *ins);
    OxValue **outs = tl_xcalloc(N + K + 1, sizeof *outs);
    OxValue ***per = tl_xcalloc(K + 1, sizeof *per);
    char suffix[64], where[300];
    int rc = -1;

    for (size_t j = 0; j < M; j++) {
        int64_t a = sp->in_axis[j];
        if (a < 0)
            a += xs[j]->rank;
        if (a < 0 || a >= xs[j]->rank) {
            ox_unsupported(m, "scan input axis %lld is out of range",
                           (long long)sp->in_axis[j]);
            goto done;
        }
        if (T >= 0 && xs[j]->dims[a] != T) {
            ox_unsupported(m, "the scan inputs have different lengths");
            goto done;
        }
        T = xs[j]->dims[a];
    }
    if (too_many(m, sp->g, T) < 0)
        goto done;
    if (T == 0 && K) {
        ox_unsupported(m, "the scan inputs are empty, so the scan outputs' "
                       "shapes are not known");
        goto done;
    }
    for (size_t k = 0; k < K; k++)
        per[k] = tl_xcalloc((size_t)T + 1, sizeof **per);
    for (int64_t t = 0; t < T; t++) {
        snprintf(suffix, sizeof suffix, "%s@%lld", tag, (long long)t);
        snprintf(where, sizeof where, "iteration %lld of Scan '%s'",
                 (long long)t, node_label(m));
        buf_printf(&m->body, "    # iteration %lld\n", (long long)t);
        for (size_t j = 0; j < N; j++)
            ins[j] = st[j];
        for (size_t j = 0; j < M; j++) {
            int64_t a = sp->in_axis[j] < 0 ? sp->in_axis[j] + xs[j]->rank
                                           : sp->in_axis[j];
            ins[N + j] = ox_take(m, xs[j], (int)a,
                              sp->in_rev[j] ? T - 1 - t : t,
                              sp->g->input[N + j]->name, suffix);
        }
        if (import_body(m, sp->g, ins, N + M, suffix, where, outs) < 0)
            goto done;
        for (size_t j = 0; j < N; j++)
            st[j] = outs[j];
        for (size_t k = 0; k < K; k++)
            per[k][t] = outs[N + k];
    }
    for (size_t k = 0; k < K; k++) {
        int64_t a = sp->out_axis[k];
        int oi = as_outputs ? (int)(N + k) : -1;
        char *nm = NULL;
        if (a < 0)
            a += per[k][0]->rank + 1;
        if (a < 0 || a > per[k][0]->rank) {
            ox_unsupported(m, "scan output axis %lld is out of range",
                           (long long)sp->out_axis[k]);
            goto done;
        }
        if (oi >= 0 && ((size_t)oi >= m->node->n_output ||
                        !*m->node->output[oi]))
            continue;
        if (oi < 0)
            nm = ox_fresh(m, sp->g->output[N + k]->name, tag);
        ys[k] = ox_stack(m, per[k], T, (int)a, (int)sp->out_rev[k], oi, nm);
        free(nm);
        if (!ys[k])
            goto done;
    }
    rc = 0;
done:
    for (size_t k = 0; k < K; k++)
        free(per[k]);
    free(per);
    free(ins);
    free(outs);
    return rc;
}

/* Scan, unrolled over the length of its scan inputs.  Opset 8's has a
 * batch axis first on every input and output (and an optional
 * sequence_lens, not supported): each batch entry is scanned on its
 * own and the results stacked. */
static int op_scan(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    ScanSpec sp;
    int64_t M = ox_attr_i(m, "num_scan_inputs", -1);
    size_t first = m->opset < 9 ? 1 : 0, N;
    OxValue **st = NULL, **xs = NULL, **ys = NULL;
    int rc = -1;

    memset(&sp, 0, sizeof sp);
    if (!(sp.g = graph_attr(m, "body")))
        return -1;
    if (M < 1 || n->n_input < first + (size_t)M ||
        (size_t)M > sizeof sp.in_axis / sizeof *sp.in_axis) {
        ox_unsupported(m, "num_scan_inputs must be in 1 .. the number of "
                       "inputs");
        return -1;
    }
    N = n->n_input - first - (size_t)M;
    if (sp.g->n_output < N ||
        sp.g->n_output - N > sizeof sp.out_axis / sizeof *sp.out_axis ||
        n->n_output != sp.g->n_output) {
        ox_unsupported(m, "the body must yield the %zu states and the "
                       "node's scan outputs", N);
        return -1;
    }
    sp.N = N;
    sp.M = (size_t)M;
    sp.K = sp.g->n_output - N;
    if (sp.g->n_input != N + sp.M) {
        ox_unsupported(m, "the subgraph '%s' has %zu inputs; %zu expected",
                       sp.g->name ? sp.g->name : "", sp.g->n_input,
                       N + sp.M);
        return -1;
    }
    for (size_t j = 0; j < sp.g->n_input; j++)
        if (!sp.g->input[j]->name || !*sp.g->input[j]->name) {
            ox_unsupported(m, "a subgraph input has no name");
            return -1;
        }
    if (first) {
        if (ox_in(m, 0)) {
            ox_unsupported(m, "sequence_lens is not supported");
            return -1;
        }
        if (scan_ints(m, "directions", sp.in_rev, sp.M) < 0)
            return -1;
    } else if (scan_ints(m, "scan_input_axes", sp.in_axis, sp.M) < 0 ||
               scan_ints(m, "scan_input_directions", sp.in_rev, sp.M) < 0 ||
               scan_ints(m, "scan_output_axes", sp.out_axis, sp.K) < 0 ||
               scan_ints(m, "scan_output_directions", sp.out_rev, sp.K) < 0)
        return -1;
    st = tl_xcalloc(N + 1, sizeof *st);
    xs = tl_xcalloc(sp.M + 1, sizeof *xs);
    ys = tl_xcalloc(sp.K + 1, sizeof *ys);
    for (size_t j = 0; j < N + sp.M; j++) {
        OxValue *v = ox_need_in(m, (int)(first + j));
        if (!v)
            goto done;
        if (j < N)
            st[j] = v;
        else
            xs[j - N] = v;
    }
    ox_comment(m);
    if (!first) {
        if (scan_run(m, &sp, st, xs, "", 1, ys) < 0)
            goto done;
        buf_printf(&m->body, "    # the final states of Scan '%s'\n",
                   node_label(m));
        for (size_t j = 0; j < N; j++)
            if (ox_give(m, (int)j, st[j]) < 0)
                goto done;
        rc = 0;
        goto done;
    }
    {
        /* opset 8: batch entry b of every input, scanned, stacked */
        int64_t B = N ? st[0]->dims[0] : xs[0]->dims[0];
        OxValue ***fin = tl_xcalloc(N + 1, sizeof *fin);
        OxValue ***sc = tl_xcalloc(sp.K + 1, sizeof *sc);
        OxValue **bst = tl_xcalloc(N + 1, sizeof *bst);
        OxValue **bxs = tl_xcalloc(sp.M + 1, sizeof *bxs);
        char tag[40];
        int ok = 1;

        for (size_t j = 0; j < N + sp.M && ok; j++) {
            OxValue *v = j < N ? st[j] : xs[j - N];
            if (v->rank < (j < N ? 1 : 2) || v->dims[0] != B) {
                ox_unsupported(m, "input '%s' has no batch axis of %lld",
                               v->name, (long long)B);
                ok = 0;
            }
        }
        if (B < 1 || B > OX_MAX_UNROLL) {
            if (ok)
                ox_unsupported(m, "a batch of %lld is not supported",
                               (long long)B);
            ok = 0;
        }
        for (size_t j = 0; ok && j < N; j++)
            fin[j] = tl_xcalloc((size_t)B, sizeof **fin);
        for (size_t k = 0; ok && k < sp.K; k++)
            sc[k] = tl_xcalloc((size_t)B, sizeof **sc);
        for (int64_t b = 0; ok && b < B; b++) {
            snprintf(tag, sizeof tag, "@b%lld", (long long)b);
            buf_printf(&m->body, "    # batch entry %lld\n", (long long)b);
            for (size_t j = 0; j < N; j++)
                bst[j] = ox_take(m, st[j], 0, b, st[j]->name, tag);
            for (size_t j = 0; j < sp.M; j++)
                bxs[j] = ox_take(m, xs[j], 0, b, xs[j]->name, tag);
            ok = scan_run(m, &sp, bst, bxs, B > 1 ? tag : "", 0, ys) == 0;
            for (size_t j = 0; ok && j < N; j++)
                fin[j][b] = bst[j];
            for (size_t k = 0; ok && k < sp.K; k++)
                sc[k][b] = ys[k];
        }
        if (ok)
            buf_printf(&m->body, "    # the results of Scan '%s', by "
                       "batch entry\n", node_label(m));
        for (size_t j = 0; ok && j < N; j++)
            if (*n->output[j])
                ok = ox_stack(m, fin[j], B, 0, 0, (int)j, NULL) != NULL;
        for (size_t k = 0; ok && k < sp.K; k++)
            if (*n->output[N + k])
                ok = ox_stack(m, sc[k], B, 0, 0, (int)(N + k), NULL) != NULL;
        for (size_t j = 0; j < N; j++)
            free(fin[j]);
        for (size_t k = 0; k < sp.K; k++)
            free(sc[k]);
        free(fin);
        free(sc);
        free(bst);
        free(bxs);
        rc = ok ? 0 : -1;
    }
done:
    free(st);
    free(xs);
    free(ys);
    return rc;
}

/* SequenceMap: the body once per element of the sequence inputs (a
 * tensor input is the same at each), each body output collected into
 * a sequence output. */
static int op_sequence_map(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    const Onnx__GraphProto *g = graph_attr(m, "body");
    OxValue *s0 = ox_need_in(m, 0), **ins, **outs, ***res;
    char where[300], suffix[32];
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
    if (too_many(m, g, len) < 0)
        return -1;
    ins = tl_xcalloc(n->n_input + 1, sizeof *ins);
    outs = tl_xcalloc(g->n_output + 1, sizeof *outs);
    res = tl_xcalloc(g->n_output + 1, sizeof *res);
    for (size_t k = 0; k < g->n_output; k++)
        res[k] = tl_xcalloc((size_t)len + 1, sizeof **res);
    ox_comment(m);
    for (int64_t it = 0; it < len; it++) {
        snprintf(suffix, sizeof suffix, "@%lld", (long long)it);
        snprintf(where, sizeof where, "element %lld of SequenceMap '%s'",
                 (long long)it, node_label(m));
        buf_printf(&m->body, "    # element %lld\n", (long long)it);
        for (size_t j = 0; j < n->n_input; j++) {
            OxValue *v = ox_in(m, (int)j);
            ins[j] = v->kind == OX_SEQ ? v->seq[it] : v;
        }
        if (import_body(m, g, ins, n->n_input, suffix, where, outs) < 0)
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
    {"Scan", op_scan},
    {"SequenceMap", op_sequence_map},
};

OxOpFn ox_control_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
