/*
 * onnx_emit.c - the import as a whole: the graph's inputs, initializers
 * and nodes become a kernel (one stage per node, in graph order), the
 * initializers typed top-level lets loaded from a .safetensors file.
 * The text is parsed, checked and printed canonically before it is
 * written (to a temporary file, then renamed).
 */
#include "parser/onnx/onnx_int.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static OxValue *add_const(OxModel *m, const char *name, TlTensor *t)
{
    OxValue *v;

    if (ox_find(m, name)) {
        ox_fail(m, "'%s' is defined twice", name);
        tl_tensor_unref(t);
        return NULL;
    }
    v = ox_add(m, name, OX_INIT, t->dtype, t->rank, t->shape);
    v->cval = t;
    return v;
}

/* Constant: its value attribute (tensor, or value_float(s)/int(s)). */
static int op_constant(OxModel *m)
{
    const Onnx__AttributeProto *a;
    TlTensor *t = NULL;
    char err[200];
    int64_t n;

    if ((a = ox_attr(m, "value")) && a->t) {
        if (!(t = ox_tensor_from_proto(m, a->t)))
            return -1;
    } else if ((a = ox_attr(m, "value_float")) && a->has_f) {
        t = tl_tensor_new(DT_F32, 0, NULL, err, sizeof err);
        *(float *)t->data = a->f;
    } else if ((a = ox_attr(m, "value_int")) && a->has_i) {
        t = tl_tensor_new(DT_I64, 0, NULL, err, sizeof err);
        *(int64_t *)t->data = a->i;
    } else if ((a = ox_attr(m, "value_floats"))) {
        n = (int64_t)a->n_floats;
        t = tl_tensor_new(DT_F32, 1, &n, err, sizeof err);
        if (n)
            memcpy(t->data, a->floats, (size_t)n * sizeof(float));
    } else if ((a = ox_attr(m, "value_ints"))) {
        n = (int64_t)a->n_ints;
        t = tl_tensor_new(DT_I64, 1, &n, err, sizeof err);
        if (n)
            memcpy(t->data, a->ints, (size_t)n * sizeof(int64_t));
    } else {
        ox_unsupported(m, "this form of Constant is not supported");
        return -1;
    }
    if (!t) {
        ox_unsupported(m, "%s", err);
        return -1;
    }
    if (!m->node->n_output || !*m->node->output[0]) {
        tl_tensor_unref(t);
        ox_unsupported(m, "no output");
        return -1;
    }
    return add_const(m, m->node->output[0], t) ? 0 : -1;
}

static void put_type(TlBuf *b, const OxValue *v)
{
    buf_printf(b, "%s[", dt_name(v->dt));
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%lld", i ? ", " : "", (long long)v->dims[i]);
    buf_putc(b, ']');
}

/* A string constant (an initializer, a Constant) is written in the
 * source as a tensor literal (SPEC 11.1), since the weights file
 * (.safetensors) holds no strings: `let stop: str[3] = ["a", "the",
 * "of"]`.  Only small ones, which read as a list: a larger one is
 * refused (-1 after the message). */
#define OX_STR_LIT_MAX 256
#define OX_STR_LIT_BYTES 4096

/* The elements of c from *k on, nested from axis d: "[...]" per axis,
 * a string literal per element; -1 at a string none can write. */
static int put_strs(TlBuf *b, const TlTensor *c, int d, int64_t *k)
{
    if (d == c->rank) {
        const char *s = tl_str_at((const char *)c->data + (*k)++ * 8);
        return ox_str_lit(b, (const uint8_t *)s, strlen(s));
    }
    buf_putc(b, '[');
    for (int64_t i = 0; i < c->shape[d]; i++) {
        buf_puts(b, i ? ", " : "");
        if (put_strs(b, c, d + 1, k) < 0)
            return -1;
    }
    buf_putc(b, ']');
    return 0;
}

static int str_literal(OxModel *m, TlBuf *b, const OxValue *v)
{
    TlTensor *c = tl_tensor_contiguous(v->cval);
    int64_t n = tl_tensor_numel(c), bytes = 0, k = 0;
    TlBuf lit;
    int rc = -1;

    for (int64_t i = 0; i < n; i++)
        bytes += (int64_t)strlen(tl_str_at((const char *)c->data + i * 8));
    buf_init(&lit);
    if (n > OX_STR_LIT_MAX || bytes > OX_STR_LIT_BYTES)
        ox_fail(m, "string constant '%s' has %lld strings of %lld bytes in "
                "all (at most %d strings and %d bytes are written in the "
                "source; the weights file holds no strings)", v->name,
                (long long)n, (long long)bytes, OX_STR_LIT_MAX,
                OX_STR_LIT_BYTES);
    else if (put_strs(&lit, c, 0, &k) < 0)
        ox_fail(m, "string constant '%s' holds a string with a control "
                "byte, which a tdsl string cannot write", v->name);
    else
        rc = 0;
    if (!rc) {
        buf_printf(b, "let %s: ", v->id);
        put_type(b, v);
        buf_printf(b, " = %s\n", lit.s);
    }
    buf_free(&lit);
    tl_tensor_unref(c);
    return rc;
}

/* Whether no node reads input v's values or shape: no node takes it,
 * or only CastLike as its second input, which gives the dtype alone.
 * Such an input takes a shape pack (any shape; the kernel is generic):
 * ONNX's CastLike tests give 'like' a shape other than the model's. */
static int type_only(const OxModel *m, const OxValue *v)
{
    for (size_t i = 0; i < m->g->n_node; i++) {
        const Onnx__NodeProto *n = m->g->node[i];
        for (size_t j = 0; j < n->n_input; j++)
            if (!strcmp(n->input[j], v->name) &&
                (j != 1 || strcmp(n->op_type, "CastLike")))
                return 0;
    }
    for (size_t i = 0; i < m->g->n_output; i++)
        if (!strcmp(m->g->output[i]->name, v->name))
            return 0;
    return !v->used;
}

/* A progress line on stderr for long imports, only on a terminal:
 * "model.onnx: node 1200 of 5000", rewritten in place, then erased. */
static void progress(OxModel *m, size_t i, size_t n)
{
    if (n < 500 || i % 100 || !isatty(2))
        return;
    fprintf(stderr, "\r%s: node %zu of %zu\033[K", m->path, i, n);
    m->progress = 1;
}

/* The op of node type `op`, or NULL. */
static OxOpFn find_op(const char *op)
{
    static OxOpFn (*const families[])(const char *) = {
        ox_elementwise_op, ox_nn_op, ox_conv_op, ox_tensor_op, ox_loss_op,
        ox_scatter_op, ox_einsum_op, ox_rnn_op, ox_resize_op, ox_misc_op,
        ox_grid_op, ox_text_op, ox_quant_op, ox_control_op, ox_scan_op,
        ox_seq_op, ox_opt_op, ox_dd_op, ox_nms_op, ox_random_op,
        ox_str_op,
    };
    OxOpFn fn = NULL;

    for (size_t i = 0; !fn && i < sizeof families / sizeof *families; i++)
        fn = families[i](op);
    return fn;
}

/* One node: its op's stages (or its outputs folded to constants).  A
 * control-flow op imports the nodes of its subgraphs through this
 * too, so the node being emitted, its attribute marks and the pending
 * stages are the caller's again afterwards. */
int ox_import_node(OxModel *m, const Onnx__NodeProto *n)
{
    const Onnx__NodeProto *outer = m->node;
    unsigned char *outer_read = m->attr_read;
    size_t outer_nread = m->nattr_read;
    TlBuf outer_pending = m->pending;
    OxOpFn fn;
    int foldable, *used, rc = -1;
    size_t start;

    m->node = n;
    m->attr_read = NULL;
    m->nattr_read = 0;
    buf_init(&m->pending);
    if (!n->op_type) {
        ox_fail(m, "a node has no op_type");
        goto done;
    }
    /* Every ONNX op has an output; the comment and the stage names
     * start from the first. */
    if (!n->n_output) {
        ox_unsupported(m, "the node has no outputs");
        goto done;
    }
    for (size_t j = 0; j < n->n_input; j++)
        if (*n->input[j] && !ox_find(m, n->input[j])) {
            ox_unsupported(m, "input '%s' is not defined before the "
                           "node (a dangling name or a cycle)",
                           n->input[j]);
            goto done;
        }
    if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx")) {
        ox_unsupported(m, "unsupported op '%s:%s'", n->domain, n->op_type);
        goto done;
    }
    if (!strcmp(n->op_type, "Constant")) {
        if (op_constant(m) == 0 && ox_check_attrs(m) == 0)
            rc = 0;
        goto done;
    }
    if (!(fn = find_op(n->op_type))) {
        ox_unsupported(m, "unsupported op '%s'", n->op_type);
        goto done;
    }
    /* A sequence is the importer's list of values, which only the
     * sequence ops take apart; SequenceMap, Loop (as a carried value),
     * the Optional ops and Identity pass it on, as they do an optional
     * without an element (and keep an optional's element one). */
    if (!strcmp(n->op_type, "Identity") && n->n_input == 1 &&
        *n->input[0]) {
        OxValue *x = ox_find(m, n->input[0]);
        if (x->kind == OX_SEQ || x->kind == OX_NONE || x->opt)
            fn = ox_seq_identity;
    }
    for (size_t j = 0; j < n->n_input && !ox_opt_op(n->op_type) &&
                       fn != ox_seq_identity &&
                       strcmp(n->op_type, "SequenceMap") &&
                       strcmp(n->op_type, "Loop"); j++) {
        int kind = *n->input[j] ? ox_find(m, n->input[j])->kind : OX_INPUT;
        if (kind == OX_NONE) {
            ox_unsupported(m, "input '%s' is an optional without an "
                           "element, which only the Optional ops take",
                           n->input[j]);
            goto done;
        }
        if (kind == OX_SEQ && !ox_seq_op(n->op_type)) {
            ox_unsupported(m, "input '%s' is a sequence, which only the "
                           "Sequence ops take", n->input[j]);
            goto done;
        }
    }
    foldable = ox_foldable(m);
    start = m->body.len;
    used = tl_xcalloc(n->n_input + 1, sizeof *used);
    for (size_t j = 0; j < n->n_input; j++)
        used[j] = *n->input[j] && ox_find(m, n->input[j])->used;
    if (fn(m) < 0 || ox_check_attrs(m) < 0) {
        free(used);
        if (!m->error)
            ox_unsupported(m, "cannot be imported");
        goto done;
    }
    if (m->pending.len)
        buf_putn(&m->body, m->pending.s, m->pending.len);
    if (foldable)
        ox_fold(m, start, used);
    else if (ox_shadowable(m))
        ox_shadow(m, start);
    free(used);
    rc = 0;
done:
    free(m->attr_read);
    buf_free(&m->pending);
    m->node = outer;
    m->attr_read = outer_read;
    m->nattr_read = outer_nread;
    m->pending = outer_pending;
    return rc;
}

static int import_nodes(OxModel *m)
{
    Onnx__GraphProto *g = m->g;
    unsigned char *live = ox_live_nodes(g);

    for (size_t i = 0; i < g->n_node && !m->error; i++) {
        progress(m, i, g->n_node);
        if (!live[i]) {
            m->node = g->node[i];
            ox_comment(m);
            m->body.len--;
            buf_puts(&m->body, " (nothing reads its outputs: left out)\n");
            continue;
        }
        if (ox_import_node(m, g->node[i]) < 0) {
            free(live);
            return -1;
        }
    }
    free(live);
    m->node = NULL;
    return m->error ? -1 : 0;
}

/* import_nodes, then the progress line erased (a message erases it
 * first: ox_clear_progress). */
static int import_all(OxModel *m)
{
    int rc = import_nodes(m);
    ox_clear_progress(m);
    return rc;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "# onnx-input: 'x.1' = x_1": an ONNX name that is not the tdsl one,
 * for `tdsl run` (cli/cmd_run.c reads these lines); the caller ends
 * the line.  Characters that
 * cannot stand in a comment become '?'. */
static void map_line(TlBuf *t, const char *kind, const OxValue *v)
{
    buf_printf(t, "# onnx-%s: '", kind);
    for (const char *c = v->name; *c; c++)
        buf_putc(t, *c >= 32 && *c < 127 ? *c : '?');
    buf_printf(t, "' = %s", v->id);
}

/* "# onnx-sequence-input #0: 'xs' = xs_0, xs_1": the kernel
 * parameters (or outputs) that hold the elements of a sequence, for
 * `tdsl run` (cli/run_seq.c), which reads and writes the sequence as
 * one SequenceProto file; #N is its place among the graph's inputs
 * (those that are not initializers) or outputs.  An optional's line
 * says what it holds, read and written as one OptionalProto file:
 *     # onnx-optional-input #0: 'x' = tensor x
 *     # onnx-optional-input #0: 'xs' = sequence xs_0, xs_1
 *     # onnx-optional-output #1: 'y' = none
 * (what: "tensor", "sequence" or "none"; NULL for a sequence's line). */
static void seq_line(TlBuf *t, const char *kind, int pos, const char *name,
                     OxValue **elems, int n, const char *what)
{
    buf_printf(t, "# onnx-%s-%s #%d: '", what ? "optional" : "sequence",
               kind, pos);
    for (const char *c = name; *c; c++)
        buf_putc(t, *c >= 32 && *c < 127 && *c != '\'' ? *c : '?');
    buf_puts(t, "' =");
    if (what)
        buf_printf(t, " %s", what);
    for (int i = 0; i < n; i++)
        buf_printf(t, "%s %s", i ? "," : "", elems[i]->id);
    buf_putc(t, '\n');
}

/* What an optional graph input or output v holds (seq_line), or NULL
 * when v is no optional; declared: its type in the graph says it is
 * one. */
static const char *opt_what(const OxValue *v, int declared)
{
    if (v->kind == OX_NONE)
        return "none";
    if (!v->opt && !declared)
        return NULL;
    return v->kind == OX_SEQ ? "sequence" : "tensor";
}

/* Graph output `name`, value v (or one element of a sequence): the
 * kernel output that gives it, a copy stage when v is not a node's
 * value of its own (an input, a constant, a value already given). */
static OxValue *output_of(OxModel *m, const char *name, OxValue *v,
                          OxValue **outs, int nouts, TlBuf *copies)
{
    for (int j = 0; j < nouts; j++)
        if (outs[j] == v)
            v = NULL;
    if (!v || v->kind != OX_NODE) {
        OxValue *src = v ? v : ox_find(m, name);
        OxValue *c = ox_add(m, name, OX_NODE, src->dt, src->rank,
                            src->dims);
        buf_printf(copies, "    # output '%s'\n", name);
        ox_lhs(copies, c->id, c->rank);
        ox_read_bcast(copies, src, c->rank, c->dims);
        buf_putc(copies, '\n');
        v = c;
    }
    return v;
}

/* An input whose data --bind gave: the model is made for that data
 * (whatever reads it is folded, sizes are counted from it), so the
 * kernel refuses other data, on every path (SPEC 6.8), by its hash.
 * The message names the ONNX input, or its tdsl name where the ONNX
 * one would need escapes in a string. */
static void bound_assert(TlBuf *t, const OxValue *v, int first)
{
    int64_t h = (int64_t)tl_tensor_hash(v->cval);
    const char *name = v->name;

    if (first)
        buf_puts(t, "    # the model was made for the data of tdsl "
                    "import --bind\n");
    for (const char *p = name; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < ' ' ||
            (unsigned char)*p >= 0x7f)
            name = v->id;
    if (h == INT64_MIN)     /* the one value no literal is */
        buf_printf(t, "    assert hash(%s) == -9223372036854775807 - 1",
                   v->id);
    else
        buf_printf(t, "    assert hash(%s) == %lld", v->id, (long long)h);
    buf_printf(t, ", \"input '%s' is not the data bound at import (import "
                  "the model again with --bind for this data)\"\n", name);
}

/* The text of the program, and the tensors for the weights file. */
static int build_text(OxModel *m, TlBuf *t, TlNamedTensor **wts, int *nw)
{
    Onnx__GraphProto *g = m->g;
    OxValue **outs = NULL;
    int nouts = 0, cap = 0;
    TlBuf copies, seqs;
    char *kname;
    int first = 1;

    buf_init(&copies);
    buf_init(&seqs);
    if (!g->n_output) {
        ox_fail(m, "the graph has no outputs (a kernel computes at least "
                "one)");
        return -1;
    }
    /* Outputs that are not computed by a node get a copy stage; a
     * sequence gives one output per element. */
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = g->output[i]->name;
        const Onnx__TypeProto *tp = g->output[i]->type;
        OxValue *v = name ? ox_find(m, name) : NULL;
        int n, at = nouts;
        const char *what;
        if (!v) {
            ox_fail(m, "graph output '%s' is not computed by any node",
                    name ? name : "");
            goto fail;
        }
        what = opt_what(v, tp && tp->value_case ==
                               ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE);
        n = v->kind == OX_SEQ ? v->nseq : v->kind == OX_NONE ? 0 : 1;
        if (v->kind == OX_SEQ && !n) {
            ox_fail(m, "graph output '%s' is an empty sequence (a kernel "
                    "output per element: there is none)", name);
            goto fail;
        }
        if (nouts + n + 1 > cap) {
            cap = 2 * (nouts + n + 1);
            outs = tl_xrealloc(outs, (size_t)cap * sizeof *outs);
        }
        for (int e = 0; e < n; e++) {
            char *ename = NULL;
            OxValue *ev = v->kind == OX_SEQ ? v->seq[e] : v;
            if (v->kind == OX_SEQ) {
                char suffix[24];
                snprintf(suffix, sizeof suffix, "@%d", e);
                ename = ox_fresh(m, name, suffix);
            }
            outs[nouts] = output_of(m, ename ? ename : name, ev, outs,
                                    nouts, &copies);
            if (ename || what)
                outs[nouts]->seqelem = 1;
            nouts++;
            free(ename);
        }
        if (v->kind == OX_SEQ || what)
            seq_line(&seqs, "output", (int)i, name, outs + at, n, what);
    }
    if (!nouts) {
        ox_fail(m, "the graph's outputs are optionals without an element "
                "(a kernel computes at least one tensor)");
        goto fail;
    }
    buf_printf(t, "# Imported from %s by tdsl import (ONNX opset %d).\n",
               base_name(m->path), m->opset);
    for (int i = 0; i < m->nv; i++)
        if (m->v[i]->kind == OX_INPUT && !m->v[i]->seqelem &&
            !m->v[i]->opt && strcmp(m->v[i]->id, m->v[i]->name)) {
            map_line(t, "input", m->v[i]);
            buf_putc(t, '\n');
        }
    for (int i = 0, pos = 0; i < m->nv; i++) {
        OxValue *v = m->v[i];
        const char *what = opt_what(v, 0);
        if (!ox_graph_input(v))
            continue;
        if (v->kind == OX_SEQ || what)
            seq_line(t, "input", pos, v->name,
                     v->kind == OX_SEQ ? v->seq : &v,
                     v->kind == OX_SEQ ? v->nseq : v->kind != OX_NONE,
                     what);
        pos++;
    }
    for (int i = 0; i < nouts; i++)
        if (!outs[i]->seqelem && strcmp(outs[i]->id, outs[i]->name)) {
            map_line(t, "output", outs[i]);
            buf_putc(t, '\n');
        }
    buf_puts(t, seqs.s ? seqs.s : "");
    buf_putc(t, '\n');
    *wts = tl_xcalloc((size_t)m->nv + 1, sizeof **wts);
    *nw = 0;
    for (int i = 0; i < m->nv; i++) {
        OxValue *v = m->v[i];
        if (v->kind != OX_INIT || !v->used)
            continue;
        if (v->dt == DT_STR) {
            if (str_literal(m, t, v) < 0)
                goto fail;
            continue;
        }
        buf_printf(t, "let %s: ", v->id);
        put_type(t, v);
        buf_printf(t, " = load(\"%s\", \"%s\")\n", "WEIGHTS", v->id);
        (*wts)[*nw].name = v->id;
        (*wts)[(*nw)++].t = v->cval;
    }
    if (*nw)
        buf_putc(t, '\n');
    kname = ox_ident(m, g->name && *g->name ? g->name : "model");
    buf_printf(t, "kernel %s(", kname);
    for (int i = 0; i < m->nv; i++) {
        OxValue *v = m->v[i];
        if (v->kind != OX_INPUT)
            continue;
        buf_printf(t, "%s%s: ", first ? "" : ", ", v->id);
        if (type_only(m, v)) {
            TlBuf pk;
            buf_init(&pk);
            buf_printf(&pk, "%s_shape", v->id);
            buf_printf(t, "%s[..%s]", dt_name(v->dt), ox_ident(m, pk.s));
            buf_free(&pk);
        } else {
            put_type(t, v);
        }
        first = 0;
    }
    buf_puts(t, ") -> (");
    for (int i = 0; i < nouts; i++) {
        buf_printf(t, "%s%s: ", i ? ", " : "", outs[i]->id);
        put_type(t, outs[i]);
    }
    buf_puts(t, ") {\n");
    for (int i = 0, n = 0; i < m->nv; i++)
        if (m->v[i]->kind == OX_INPUT && m->v[i]->cval)
            bound_assert(t, m->v[i], n++ == 0);
    buf_puts(t, m->body.s ? m->body.s : "");
    buf_puts(t, copies.s ? copies.s : "");
    buf_puts(t, "}\n");
    buf_free(&copies);
    buf_free(&seqs);
    free(outs);
    return 0;
fail:
    buf_free(&copies);
    buf_free(&seqs);
    free(outs);
    return -1;
}

/* Replaces the WEIGHTS placeholder with the weights file's name. */
static char *fill_weights(const char *text, const char *wname)
{
    TlBuf b;
    const char *p = text, *q;

    buf_init(&b);
    while ((q = strstr(p, "\"WEIGHTS\""))) {
        buf_putn(&b, p, (size_t)(q - p));
        buf_printf(&b, "\"%s\"", wname);
        p = q + strlen("\"WEIGHTS\"");
    }
    buf_puts(&b, p);
    return b.s;
}

static int write_file(const char *path, const char *data, size_t n)
{
    char *tmp = tl_xmalloc(strlen(path) + 16);
    FILE *f;
    int ok;

    sprintf(tmp, "%s.tmp%d", path, (int)getpid() % 100000);
    if (!(f = fopen(tmp, "wb"))) {
        fprintf(stderr, "tdsl: cannot write '%s': %s\n", tmp,
                strerror(errno));
        free(tmp);
        return -1;
    }
    ok = fwrite(data, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "tdsl: cannot write '%s'\n", path);
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Parses, checks and prints the text; NULL after a message.  A text
 * that does not check is the importer's limit, not the user's error:
 * one line names the model, and the checker's messages (about the
 * generated source) only show with TDSL_ONNX_RAW set. */
static char *canonical(TlSession *s, const char *model, const char *out,
                       const char *text)
{
    jmp_buf boundary;
    jmp_buf *outer = s->fatal;
    TlProgram *volatile prog = NULL;
    TlBuf b;
    int nerr = s->nerrors, raw = getenv("TDSL_ONNX_RAW") != NULL;
    FILE *saved = s->diag_out, *null = raw ? NULL : fopen("/dev/null", "w");

    if (null)
        s->diag_out = null;
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        prog = tl_parse_string(s, out, text, strlen(text));
        if (prog && s->nerrors == nerr)
            tl_check(s, prog);
    }
    s->fatal = outer;
    s->diag_out = saved;
    if (null)
        fclose(null);
    if (!prog || s->nerrors != nerr) {
        fprintf(stderr, "%s: the importer cannot express this model yet "
                "(its tdsl source does not check%s)\n", model,
                raw ? "" : "; TDSL_ONNX_RAW=1 shows it and why");
        return NULL;
    }
    buf_init(&b);
    ast_print_program(&b, prog);
    return b.s;
}

/* The model's folder: what precedes the last '/', or ".". */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    char *d = tl_xmalloc(n + 1);

    memcpy(d, slash ? path : ".", n);
    d[n] = 0;
    if (slash && !n)
        strcpy(d, "/");
    return d;
}

/* Frees what one pass of the import made (not the model). */
static void free_pass(OxModel *m)
{
    for (int i = 0; i < m->nv; i++) {
        tl_tensor_unref(m->v[i]->cval);
        tl_tensor_unref(m->v[i]->bval);
        free(m->v[i]->seq);
        free(m->v[i]->name);
        free(m->v[i]);
    }
    free(m->v);
    for (int i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    free(m->attr_read);
    free(m->sym);
    buf_free(&m->body);
    buf_free(&m->pending);
}

/* One pass of the import: the program's text (with a WEIGHTS
 * placeholder) and its weights, which point into m's values.  With
 * symbolic input dimensions, the nodes are imported quietly (pass 0
 * and 1 differ only in their stand-in sizes). */
static int import_pass(OxModel *m, const TlOnnxBind *binds, int nbinds,
                       TlBuf *text, TlNamedTensor **wts, int *nw)
{
    buf_init(&m->body);
    buf_init(&m->pending);
    m->g = m->mp->graph;
    m->opset = 1;
    for (size_t i = 0; i < m->mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->mp->opset_import[i];
        if ((!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) &&
            o->has_version)
            m->opset = (int)o->version;
    }
    if (ox_check_graph(m) < 0)
        return -1;
    for (size_t i = 0; i < m->g->n_initializer; i++) {
        const Onnx__TensorProto *p = m->g->initializer[i];
        TlTensor *t;
        if (!p->name || !*p->name) {
            ox_fail(m, "initializer %zu has no name", i);
            return -1;
        }
        if (!(t = ox_tensor_from_proto(m, p)))
            return -1;
        if (!add_const(m, p->name, t))
            return -1;
    }
    for (size_t i = 0, pos = 0; i < m->g->n_input; i++) {
        int is_init = 0;
        for (size_t j = 0; j < m->g->n_initializer; j++)
            if (m->g->input[i]->name && m->g->initializer[j]->name &&
                !strcmp(m->g->input[i]->name, m->g->initializer[j]->name))
                is_init = 1;
        if (!is_init && ox_add_input(m, m->g->input[i], (int)pos++, binds,
                                     nbinds) < 0)
            return -1;
    }
    for (int i = 0; i < nbinds; i++) {
        int found = 0;
        for (int j = 0, pos = 0; j < m->nv; j++)
            if (ox_graph_input(m->v[j]) &&
                ox_bind_names(binds[i].name, m->v[j]->name, pos++))
                found = 1;
        if (!found) {
            ox_fail(m, "--bind %s: the graph has no input '%s'",
                    binds[i].name, binds[i].name);
            return -1;
        }
    }
    m->quiet = m->nsym > 0;
    if (import_all(m) < 0 || build_text(m, text, wts, nw) < 0)
        return -1;
    return 0;
}

/* Imports m.mp (owned, freed here).  With mem, the canonical text is
 * appended to it and no file is written (the weights file's name still
 * appears in the text); otherwise the text goes to out and the weights
 * beside it. */
static int import(TlSession *s, OxModel m, const char *out,
                  const TlOnnxBind *binds, int nbinds, TlBuf *mem)
{
    char err[400];
    TlBuf text, text1;
    TlNamedTensor *wts = NULL, *wts1 = NULL;
    int nw = 0, nw1 = 0, rc = -1;
    char *wpath = NULL, *filled = NULL, *canon = NULL, *general = NULL;
    OxModel m1 = m;

    buf_init(&text);
    buf_init(&text1);
    m1.pass = 1;
    if (import_pass(&m, binds, nbinds, &text, &wts, &nw) < 0) {
        /* (a failure before the nodes has been said already) */
        if (m.nsym && m.quiet)
            ox_sym_refuse(&m);
        goto done;
    }
    if (m.nsym) {
        if (import_pass(&m1, binds, nbinds, &text1, &wts1, &nw1) < 0 ||
            !(general = ox_sym_generalise(&m, text.s, text1.s, wts, nw,
                                          wts1, nw1))) {
            ox_sym_refuse(&m);
            goto done;
        }
        buf_free(&text);
        buf_init(&text);
        buf_puts(&text, general);
    }
    wpath = tl_xmalloc(strlen(out) + 16);
    strcpy(wpath, out);
    if (ends_with(wpath, ".tdsl"))
        wpath[strlen(wpath) - 5] = 0;
    strcat(wpath, ".safetensors");
    filled = fill_weights(text.s, base_name(wpath));
    /* For debugging the importer: the text before canonicalisation. */
    if (getenv("TDSL_ONNX_RAW"))
        fputs(filled, stderr);
    if (!(canon = canonical(s, m.path, out, filled)))
        goto done;
    if (mem) {
        buf_puts(mem, canon);
        rc = 0;
        goto done;
    }
    if (nw) {
        TlBuf w;
        buf_init(&w);
        if (tl_safetensors_write_buf(&w, wts, nw, NULL, 0, wpath, err,
                                     sizeof err) < 0) {
            fprintf(stderr, "tdsl: %s\n", err);
            buf_free(&w);
            goto done;
        }
        if (write_file(wpath, w.s, w.len) < 0) {
            buf_free(&w);
            goto done;
        }
        buf_free(&w);
    }
    if (write_file(out, canon, strlen(canon)) < 0)
        goto done;
    rc = 0;
done:
    free_pass(&m);
    if (m1.v || m1.names)
        free_pass(&m1);
    free(wts);
    free(wts1);
    free(wpath);
    free(filled);
    free(canon);
    free(general);
    buf_free(&text);
    buf_free(&text1);
    onnx__model_proto__free_unpacked(m.mp, NULL);
    free(m.dir);
    return rc;
}

int tl_onnx_import(TlSession *s, const char *model, const char *out,
                   const TlOnnxBind *binds, int nbinds)
{
    OxModel m;
    char err[400];

    memset(&m, 0, sizeof m);
    m.path = model;
    if (!(m.mp = ox_read_model(model, err, sizeof err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    m.dir = dir_of(model);
    return import(s, m, out, binds, nbinds, NULL);
}

int tl_onnx_import_mem(TlSession *s, const void *data, size_t n,
                       const char *name, const char *out, TlBuf *text)
{
    OxModel m;
    char err[400];

    memset(&m, 0, sizeof m);
    m.path = name;
    if (!(m.mp = ox_parse_model(data, n, name, err, sizeof err))) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return import(s, m, out, NULL, 0, text);
}
