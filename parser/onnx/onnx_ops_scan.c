/*
 * onnx_ops_scan.c - Scan, unrolled over the length of its scan inputs
 * like Loop (onnx_ops_control.c, whose subgraph import it uses): each
 * iteration imports the body in line on one slice of every scan input,
 * the states carried from one to the next, and the scan outputs are
 * stacked along their axes at the end.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char suffix[OX_SUFFIX_LEN], where[OX_WHERE_LEN];
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
    if (ox_unroll_check(m, sp->g, T) < 0)
        goto done;
    if (T == 0 && K) {
        ox_unsupported(m, "the scan inputs are empty, so the scan outputs' "
                       "shapes are not known");
        goto done;
    }
    for (size_t k = 0; k < K; k++)
        per[k] = tl_xcalloc((size_t)T + 1, sizeof **per);
    for (int64_t t = 0; t < T; t++) {
        ox_body_iter(m, "iteration", tag, t, suffix, where);
        for (size_t j = 0; j < N; j++)
            ins[j] = st[j];
        for (size_t j = 0; j < M; j++) {
            int64_t a = sp->in_axis[j] < 0 ? sp->in_axis[j] + xs[j]->rank
                                           : sp->in_axis[j];
            ins[N + j] = ox_take(m, xs[j], (int)a,
                              sp->in_rev[j] ? T - 1 - t : t,
                              sp->g->input[N + j]->name, suffix);
        }
        if (ox_body_import(m, sp->g, ins, N + M, suffix, where, outs) < 0)
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
    if (!(sp.g = ox_graph_attr(m, "body")))
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
                   ox_node_label(m));
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
                       "batch entry\n", ox_node_label(m));
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

static const OxOp ops[] = {
    {"Scan", op_scan},
};

OxOpFn ox_scan_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
