/*
 * onnx_fold.c - constant folding at import.  A node whose inputs are
 * all known at import (initializers, Constant nodes, Shape/Size and
 * nodes folded before it) is computed then and there: the stages its
 * op emitted become a small kernel that the interpreter runs on the
 * constant inputs, and the outputs become constants.  This is how
 * shape-computing subgraphs (Shape -> Gather -> Concat -> Reshape)
 * reach the ops that need their values at import, with the language's
 * own meaning of every op: there is no second evaluator here.
 *
 * Of the graph inputs bound to values (--bind NAME=FILE), only integer
 * ones are folded through (they carry shapes, sizes and indices); float
 * data stays the kernel's input.  What small nodes compute from it is
 * still worked out at import (ox_shadow) as the value's bval, beside
 * the stage that computes it: a Loop's trip count computed from float
 * inputs (Range written as a Loop) is taken from there, so the kernel
 * is specialised to the bound data, as it is to a bound shape.
 */
#include "parser/onnx/onnx_int.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs and outputs larger than this are left to the kernel: folding
 * is for shape arithmetic and small tables, not for whole layers. */
#define FOLD_MAX_ELEMS ((int64_t)1 << 20)
/* ox_shadow computes a node again on the interpreter; only for what
 * sizes and counts come from. */
#define SHADOW_MAX_ELEMS 4096

static void put_param(TlBuf *b, const OxValue *v)
{
    buf_printf(b, "%s: %s[", v->id, dt_name(v->dt));
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%lld", i ? ", " : "", (long long)v->dims[i]);
    buf_putc(b, ']');
}

/* The elements of the node's inputs when `known` accepts each given
 * one, else -1 (and for random ops, whose values are draws). */
static int64_t known_inputs(OxModel *m, int (*known)(const OxValue *))
{
    const Onnx__NodeProto *n = m->node;
    int64_t total = 0;

    if (!strncmp(n->op_type, "Random", 6) ||
        !strcmp(n->op_type, "Bernoulli") || !strcmp(n->op_type, "Multinomial"))
        return -1;
    for (size_t i = 0; i < n->n_input; i++) {
        OxValue *v;
        if (!*n->input[i])
            continue;
        v = ox_find(m, n->input[i]);
        if (!v || !known(v))
            return -1;
        total += ox_numel(v);
    }
    return total;
}

/* A constant, or an integer input bound with its data. */
static int folds(const OxValue *v)
{
    return v->cval && (v->kind == OX_INIT ||
                       (v->kind == OX_INPUT && !dt_is_float(v->dt)));
}

int ox_foldable(OxModel *m)
{
    int64_t total = known_inputs(m, folds);

    return total >= 0 && total <= FOLD_MAX_ELEMS;
}

TlTensor *ox_bound(const OxValue *v)
{
    return v->cval ? v->cval : v->bval;
}

/* A tensor whose values are known or bound. */
static int shadows(const OxValue *v)
{
    return ox_bound(v) && v->kind != OX_SEQ && v->kind != OX_NONE;
}

int ox_shadowable(OxModel *m)
{
    int64_t total = known_inputs(m, shadows);

    return m->node->n_input && total >= 0 && total <= SHADOW_MAX_ELEMS;
}

/* Parses and checks text (one kernel), runs it on the interpreter with
 * the known values of ins[nin] (by name) and fills outs[nout]; 0, or
 * -1 when anything fails (the node is then left to the kernel, and a
 * real problem is reported when the whole program is checked). */
static int run_fold(const char *text, OxValue **ins, int nin, int nout,
                    TlTensor **outs)
{
    TlSession *s = tl_session_new();
    FILE *quiet = fopen("/dev/null", "w");
    jmp_buf boundary;
    TlProgram *volatile prog = NULL;
    TlKernelInfo *k = NULL;
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    int rc = -1;

    if (quiet)
        s->diag_out = quiet;
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        prog = tl_parse_string(s, "<fold>", text, strlen(text));
        if (prog && !s->nerrors)
            tl_check(s, prog);
    }
    s->fatal = NULL;
    if (prog && !s->nerrors)
        for (int i = 0; i < prog->items.n && !k; i++)
            if (prog->items.v[i] && prog->items.v[i]->kind == IT_KERNEL)
                k = tl_kernel_info(prog->items.v[i]);
    if (k && k->noutputs == nout && k->ninputs == nin && !k->nscalars &&
        !k->generic) {
        TlTensor **in = tl_xcalloc((size_t)nin + 1, sizeof *in);
        int ok = 1;
        for (int i = 0; i < nin; i++) {
            for (int j = 0; j < nin; j++)
                if (!strcmp(k->inputs[i]->name, ins[j]->id))
                    in[i] = ox_bound(ins[j]);
            ok = ok && in[i];
        }
        if (ok) {
            TlInterp *ip = itp_new(s);
            rc = itp_run_kernel(ip, NULL, k, in, NULL, outs, nowhere);
            itp_free(ip);
        }
        free(in);
    }
    tl_session_free(s);
    if (quiet)
        fclose(quiet);
    return rc;
}

TlTensor *ox_eval(const char *stages, OxValue **ins, int nin,
                  const char *out, TlDType dt)
{
    TlBuf text;
    TlTensor *res = NULL;

    buf_init(&text);
    buf_puts(&text, "kernel fold(");
    for (int i = 0; i < nin; i++) {
        buf_puts(&text, i ? ", " : "");
        put_param(&text, ins[i]);
    }
    buf_printf(&text, ") -> (%s: %s[]) {\n%s}\n", out, dt_name(dt), stages);
    if (run_fold(text.s, ins, nin, 1, &res) < 0) {
        tl_tensor_unref(res);
        res = NULL;
    }
    buf_free(&text);
    return res;
}

/* ox_fold, or with `shadow` ox_shadow. */
static int fold(OxModel *m, size_t body_start, const int *used_before,
                int shadow)
{
    const Onnx__NodeProto *n = m->node;
    OxValue **ins = tl_xcalloc(n->n_input + 1, sizeof *ins);
    OxValue **outs = tl_xcalloc(n->n_output + 1, sizeof *outs);
    TlTensor **res = tl_xcalloc(n->n_output + 1, sizeof *res);
    int nin = 0, nout = 0, rc = -1;
    TlBuf text;

    buf_init(&text);
    for (size_t i = 0; i < n->n_input; i++) {
        OxValue *v = *n->input[i] ? ox_find(m, n->input[i]) : NULL;
        int dup = 0;
        for (int j = 0; j < nin; j++)
            dup |= ins[j] == v;
        if (v && !dup)
            ins[nin++] = v;
    }
    for (size_t i = 0; i < n->n_output; i++) {
        OxValue *v = *n->output[i] ? ox_find(m, n->output[i]) : NULL;
        if (!v)
            continue;
        /* A str constant would go to the weights file, which holds no
         * strings: str outputs stay stages (shadowed, though). */
        if (v->kind != OX_NODE || v->cval || v->bval ||
            (!shadow && v->dt == DT_STR) ||
            ox_numel(v) > (shadow ? SHADOW_MAX_ELEMS : FOLD_MAX_ELEMS))
            goto done;
        outs[nout++] = v;
    }
    if (!nout)
        goto done;
    buf_puts(&text, "kernel fold(");
    for (int i = 0; i < nin; i++) {
        buf_puts(&text, i ? ", " : "");
        put_param(&text, ins[i]);
    }
    buf_puts(&text, ") -> (");
    for (int i = 0; i < nout; i++) {
        buf_puts(&text, i ? ", " : "");
        put_param(&text, outs[i]);
    }
    buf_puts(&text, ") {\n");
    buf_puts(&text, m->body.s ? m->body.s + body_start : "");
    buf_puts(&text, "}\n");
    if (run_fold(text.s, ins, nin, nout, res) < 0)
        goto done;
    if (shadow) {
        for (int i = 0; i < nout; i++) {
            outs[i]->bval = res[i];
            res[i] = NULL;
        }
        rc = 0;
        goto done;
    }
    for (int i = 0; i < nout; i++) {
        outs[i]->kind = OX_INIT;
        outs[i]->cval = res[i];
        res[i] = NULL;
    }
    /* Restored in reverse so that a name given twice gets its first
     * (oldest) flag. */
    for (size_t i = n->n_input; i-- > 0;)
        if (*n->input[i])
            ox_find(m, n->input[i])->used = used_before[i];
    m->body.len = body_start;
    if (m->body.s)
        m->body.s[body_start] = 0;
    rc = 0;
done:
    for (size_t i = 0; i < n->n_output; i++)
        tl_tensor_unref(res[i]);
    buf_free(&text);
    free(ins);
    free(outs);
    free(res);
    return rc;
}

int ox_fold(OxModel *m, size_t body_start, const int *used_before)
{
    return fold(m, body_start, used_before, 0);
}

void ox_shadow(OxModel *m, size_t body_start)
{
    fold(m, body_start, NULL, 1);
}
