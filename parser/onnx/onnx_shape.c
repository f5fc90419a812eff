/*
 * onnx_shape.c - the graph model of the importer: values by name with
 * their dtypes and concrete shapes, tdsl identifiers made from ONNX
 * names, numpy broadcasting, the attributes of the node being
 * imported, and the helpers that write indexed reads.
 */
#include "parser/onnx/onnx_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

OxValue *ox_find(OxModel *m, const char *name)
{
    for (int i = m->nv - 1; i >= 0; i--)
        if (!strcmp(m->v[i]->name, name))
            return m->v[i];
    return NULL;
}

/* Words an identifier may not be: keywords, dtypes, builtins, and the
 * index and reduction variables the importer writes. */
static int reserved(const char *s)
{
    static const char *const words[] = {
        "kernel", "schedule", "extern", "fn", "import", "let", "print",
        "assert", "time", "target", "on", "for", "in", "as", "true",
        "false", "sum", "prod", "max", "min", "argmax", "argmin",
        "layout", "f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64",
        "u8", "u16", "u32", "u64", "bool", "str", "select", "clamp", "abs",
        "exp", "fast_exp", "log", "sqrt",
        "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "floor",
        "ceil", "lower", "upper",
        "round", "pow", "load", "rand", "zeros", "ones", "zero_pad",
        "clamp_edge", "cpu", "accel", "std", "_",
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(s, words[i]))
            return 1;
    if ((s[0] == 'i' || s[0] == 'r') && isdigit((unsigned char)s[1]) &&
        !s[2])
        return 1;
    return 0;
}

static int taken(OxModel *m, const char *s)
{
    for (int i = 0; i < m->nnames; i++)
        if (!strcmp(m->names[i], s))
            return 1;
    return reserved(s);
}

/* A fresh identifier made from an ONNX name: other characters become
 * '_', a leading digit gets 'v', a clash gets _2, _3, ... */
char *ox_ident(OxModel *m, const char *name)
{
    TlBuf b;
    char *base, *s;
    size_t n = strlen(name);

    buf_init(&b);
    /* Long generated names ("Foo_test_bar_expanded_function_X_NCD")
     * keep their last part, from a word boundary. */
    if (n > 32) {
        const char *t = name + n - 32, *f = name, *g;
        /* ONNX's expanded functions: "..._function_NAME" */
        while ((g = strstr(f, "_function_")))
            f = g + strlen("_function_");
        if (f != name && *f)
            t = f + (strlen(f) > 32 ? strlen(f) - 32 : 0);
        const char *u = strpbrk(t, "_./:");
        if (u && u[1])
            t = u + 1;
        n = strlen(t);
        name = t;
    }
    if (!n || isdigit((unsigned char)name[0]))
        buf_putc(&b, 'v');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        buf_putc(&b, isalnum(c) || c == '_' ? (char)c : '_');
    }
    base = b.s;
    s = tl_xmalloc(strlen(base) + 24);
    strcpy(s, base);
    for (int k = 2; taken(m, s); k++)
        sprintf(s, "%s_%d", base, k);
    buf_free(&b);
    if (m->nnames == m->capnames) {
        m->capnames = m->capnames ? 2 * m->capnames : 64;
        m->names = tl_xrealloc(m->names,
                               (size_t)m->capnames * sizeof *m->names);
    }
    m->names[m->nnames++] = s;
    return s;
}

OxValue *ox_add(OxModel *m, const char *name, int kind, TlDType dt, int rank,
                const int64_t *dims)
{
    OxValue *v;

    if (m->nv == m->capv) {
        m->capv = m->capv ? 2 * m->capv : 64;
        m->v = tl_xrealloc(m->v, (size_t)m->capv * sizeof *m->v);
    }
    v = m->v[m->nv++] = tl_xmalloc(sizeof *v);
    memset(v, 0, sizeof *v);
    v->name = tl_xstrdup(name);     /* callers may pass a temporary */
    v->id = ox_ident(m, name);
    v->kind = kind;
    v->dt = dt;
    v->rank = rank;
    for (int i = 0; i < rank; i++)
        v->dims[i] = dims[i];
    return v;
}

/* Are dims sizes the importer can work with: each in 0 .. 2^31 - 1, the
 * product at most 2^40 elements (so that no index arithmetic
 * overflows)? */
int ox_dims_ok(int rank, const int64_t *dims)
{
    int64_t n = 1;

    if (rank < 0 || rank > TL_MAX_RANK)
        return 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0 || dims[i] > OX_MAX_DIM)
            return 0;
        if (dims[i] && n > ((int64_t)1 << 40) / dims[i])
            return 0;
        n *= dims[i];
    }
    return 1;
}

int64_t ox_numel(const OxValue *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++)
        n *= v->dims[i];
    return n;
}

TlDType ox_dtype(int32_t t)
{
    switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return DT_F32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return DT_F64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return DT_F16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return DT_BF16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: return DT_I8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: return DT_I16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: return DT_I32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return DT_I64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return DT_U8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: return DT_U16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: return DT_U32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return DT_U64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return DT_BOOL;
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING: return DT_STR;
    default: return DT_NONE;
    }
}

int ox_broadcast(OxModel *m, const OxValue *a, const OxValue *b, int *rank,
                 int64_t *dims)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    int64_t out[TL_MAX_RANK];

    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1;
        int64_t db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            ox_unsupported(m, "shapes of '%s' and '%s' do not broadcast "
                           "(%lld and %lld)", a->name, b->name,
                           (long long)da, (long long)db);
            return -1;
        }
        out[i] = da == 1 ? db : da;
    }
    *rank = r;
    memcpy(dims, out, sizeof out);
    return 0;
}

void ox_read_bcast(TlBuf *b, OxValue *v, int orank, const int64_t *odims)
{
    v->used = 1;
    buf_puts(b, v->id);
    buf_putc(b, '[');
    for (int j = 0; j < v->rank; j++) {
        int oi = j + orank - v->rank;
        if (j)
            buf_puts(b, ", ");
        if (v->dims[j] == 1 && odims[oi] != 1)
            buf_putc(b, '0');
        else
            buf_printf(b, "i%d", oi);
    }
    buf_putc(b, ']');
}

void ox_lhs(TlBuf *b, const char *id, int rank)
{
    buf_printf(b, "    %s[", id);
    for (int j = 0; j < rank; j++)
        buf_printf(b, "%si%d", j ? ", " : "", j);
    buf_puts(b, "] = ");
}

void ox_lhs_fixed(OxModel *m, TlBuf *b, const OxValue *v)
{
    /* A graph output's ranges are its declared shape (an output may
     * not declare them again). */
    if (!m->scope)
        for (size_t i = 0; i < m->g->n_output; i++)
            if (m->g->output[i]->name &&
                !strcmp(m->g->output[i]->name, v->name)) {
                ox_lhs(b, v->id, v->rank);
                return;
            }
    buf_printf(b, "    %s[", v->id);
    for (int j = 0; j < v->rank; j++)
        buf_printf(b, "%si%d in 0..%lld", j ? ", " : "", j,
                   (long long)v->dims[j]);
    buf_puts(b, "] = ");
}

void ox_int_lit(TlBuf *b, int64_t x)
{
    if (x == INT64_MIN)     /* 9223372036854775808 is no literal */
        buf_puts(b, "(i64(-9223372036854775807) - 1)");
    else
        buf_printf(b, "%lld", (long long)x);
}

void ox_float_lit(TlBuf *b, double x)
{
    char s[64];

    if (isinf(x)) {
        buf_puts(b, x > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)");
        return;
    }
    if (isnan(x)) {         /* (an attribute may be one: LeakyRelu's alpha) */
        buf_puts(b, "(0.0 / 0.0)");
        return;
    }
    /* the shortest form that reads back as x */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, x);
        if (strtod(s, NULL) == x)
            break;
    }
    if (!strpbrk(s, ".eE"))
        strcat(s, ".0");
    if (s[0] == '-')
        buf_printf(b, "(%s)", s);
    else
        buf_puts(b, s);
}

const Onnx__AttributeProto *ox_attr(OxModel *m, const char *name)
{
    const Onnx__NodeProto *n = m->node;

    if (m->nattr_read < n->n_attribute) {
        free(m->attr_read);
        m->attr_read = tl_xcalloc(n->n_attribute, 1);
        m->nattr_read = n->n_attribute;
    }
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) {
            m->attr_read[i] = 1;
            return n->attribute[i];
        }
    return NULL;
}

void ox_attr_ignore(OxModel *m, const char *name)
{
    (void)ox_attr(m, name);
}

/* After the op ran: 0, or -1 after naming the first attribute it did
 * not read.  Clears the marks for the next node. */
int ox_check_attrs(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    int rc = 0;

    for (size_t i = 0; i < n->n_attribute && !rc; i++)
        if (i >= m->nattr_read || !m->attr_read[i]) {
            const char *a = n->attribute[i]->name;
            ox_unsupported(m, "unsupported attribute '%s'", a ? a : "");
            rc = -1;
        }
    if (m->attr_read)
        memset(m->attr_read, 0, m->nattr_read);
    return rc;
}

int64_t ox_attr_i(OxModel *m, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = ox_attr(m, name);
    return a && a->has_i ? a->i : dflt;
}

double ox_attr_f(OxModel *m, const char *name, double dflt)
{
    const Onnx__AttributeProto *a = ox_attr(m, name);
    return a && a->has_f ? a->f : dflt;
}

/* The ints of an attribute (at most max); -1 when absent. */
int ox_attr_ints(OxModel *m, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = ox_attr(m, name);
    if (!a)
        return -1;
    if ((int64_t)a->n_ints > max) {
        ox_unsupported(m, "attribute '%s' has too many values", name);
        return -2;
    }
    for (size_t i = 0; i < a->n_ints; i++)
        out[i] = a->ints[i];
    return (int)a->n_ints;
}

OxValue *ox_in(OxModel *m, int i)
{
    const Onnx__NodeProto *n = m->node;
    OxValue *v;

    if ((size_t)i >= n->n_input || !n->input[i] || !*n->input[i])
        return NULL;
    v = ox_find(m, n->input[i]);
    TL_ASSERT(v);       /* ox_check_graph saw every input defined */
    return v;
}

OxValue *ox_need_in(OxModel *m, int i)
{
    OxValue *v = ox_in(m, i);
    if (!v)
        ox_unsupported(m, "input %d is missing", i);
    return v;
}

int ox_const_ints(OxModel *m, OxValue *v, int64_t *out, int max)
{
    int64_t n, idx[1] = {0};

    if (!v->cval) {
        ox_unsupported(m, "input '%s' must be known at import (a constant, "
                       "an initializer, or bound with --bind)", v->name);
        return -1;
    }
    if (v->rank > 1 || dt_is_float(v->dt) ||
        (n = ox_numel(v)) > max) {
        ox_unsupported(m, "input '%s' is not a list of at most %d "
                       "integers", v->name, max);
        return -1;
    }
    for (idx[0] = 0; idx[0] < n; idx[0]++)
        out[idx[0]] = tl_tensor_get_i64(v->cval, v->rank ? idx : NULL);
    return (int)n;
}

OxValue *ox_out(OxModel *m, int i, TlDType dt, int rank,
                const int64_t *dims)
{
    const Onnx__NodeProto *n = m->node;

    if ((size_t)i >= n->n_output || !*n->output[i]) {
        ox_unsupported(m, "output %d is missing", i);
        return NULL;
    }
    if (!ox_dims_ok(rank, dims)) {
        ox_unsupported(m, "output '%s' would be too large (or have a "
                       "negative size)", n->output[i]);
        return NULL;
    }
    if (dt == DT_NONE) {
        ox_unsupported(m, "unsupported dtype");
        return NULL;
    }
    if (ox_find(m, n->output[i])) {
        ox_unsupported(m, "'%s' is defined twice", n->output[i]);
        return NULL;
    }
    return ox_add(m, n->output[i], OX_NODE, dt, rank, dims);
}

void ox_comment(OxModel *m)
{
    const Onnx__NodeProto *n = m->node;
    const char *label = n->name && *n->name ? n->name
                        : n->n_output ? n->output[0] : "";

    buf_printf(&m->body, "    # %s '", n->op_type);
    for (const char *c = label; *c; c++)
        buf_putc(&m->body, *c >= 32 && *c < 127 ? *c : '?');
    buf_puts(&m->body, "'\n");
}

/* Limits and basic form of the graph.  (That every node input is
 * defined before the node - so the graph is acyclic and in order - and
 * that nothing is defined twice is checked as nodes are imported.) */
int ox_check_graph(OxModel *m)
{
    Onnx__GraphProto *g = m->g;

    if (g->n_node > OX_MAX_NODES) {
        ox_fail(m, "the graph has %zu nodes (the limit is %d)", g->n_node,
                OX_MAX_NODES);
        return -1;
    }
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        if (!n->op_type) {
            ox_fail(m, "node %zu has no op_type", i);
            return -1;
        }
    }
    return 0;
}

int ox_plain_index(const char *s)
{
    if (*s != 'i' && *s != 'r')
        return 0;
    for (s++; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

const char *ox_derived(OxModel *m, OxValue *v, const char *helper,
                       unsigned mask, const char *suffix, int *made)
{
    TlBuf name;
    const char *id;

    v->used = 1;
    *made = 0;
    for (int k = 0; k < v->nbounded; k++)
        if (!strcmp(v->bounded[k].helper, helper) &&
            v->bounded[k].mask == mask)
            return v->bounded[k].id;
    buf_init(&name);
    buf_printf(&name, "%s_%s", v->id, suffix);
    id = ox_ident(m, name.s);
    buf_free(&name);
    if (v->nbounded < 4) {
        v->bounded[v->nbounded].helper = helper;
        v->bounded[v->nbounded].mask = mask;
        v->bounded[v->nbounded++].id = id;
    }
    *made = 1;
    return id;
}

void ox_put_bounded(OxModel *m, TlBuf *out, OxValue *v, const char *helper,
                    unsigned mask)
{
    TlBuf *b = &m->pending;
    int zero = !strcmp(helper, "zero_pad"), made;
    const char *id;

    v->used = 1;
    /* A graph input padded with zeros gets a padded copy too: a
     * convolution then reads it without a bounds test per term. */
    if (v->kind == OX_INIT || (v->kind == OX_INPUT && !zero)) {
        buf_printf(out, "%s.%s", v->id, helper);
        return;
    }
    id = ox_derived(m, v, helper, mask, zero ? "zp" : "ce", &made);
    if (!made) {
        buf_puts(out, id);
        return;
    }
    buf_printf(b, "    # '%s' %s, for the reads outside its extent\n",
               v->name, zero ? "padded with zeros" : "clamped to its edge");
    ox_lhs(b, id, v->rank);
    if (zero) {
        int first = 1;
        buf_puts(b, "select(");
        for (int i = 0; i < v->rank; i++)
            if (mask >> i & 1) {
                buf_printf(b, "%si%d >= 0 && i%d < %lld", first ? "" : " && ",
                           i, i, (long long)v->dims[i]);
                first = 0;
            }
        if (first)
            buf_puts(b, "true");
        buf_puts(b, ", ");
    }
    buf_printf(b, "%s[", v->id);
    for (int i = 0; i < v->rank; i++) {
        if (mask >> i & 1)
            buf_printf(b, "%sclamp(i%d, 0, %lld)", i ? ", " : "", i,
                       (long long)v->dims[i] - 1);
        else
            buf_printf(b, "%si%d", i ? ", " : "", i);
    }
    buf_putc(b, ']');
    if (zero) {
        if (v->dt == DT_BOOL)
            buf_puts(b, ", false)");
        else
            buf_printf(b, ", %s(0))", dt_name(v->dt));
    }
    buf_putc(b, '\n');
    buf_puts(out, id);
}

const char *ox_fixed(OxModel *m, OxValue *v)
{
    TlBuf *b = &m->pending;
    const char *id;
    int made;

    v->used = 1;
    if (v->kind != OX_NODE)
        return v->id;
    id = ox_derived(m, v, "fixed", 0, "all", &made);
    if (!made)
        return id;
    buf_printf(b, "    # '%s' over its whole extent, for the reads at "
               "computed positions\n    %s[", v->name, id);
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%si%d in 0..%lld", i ? ", " : "", i,
                   (long long)v->dims[i]);
    buf_printf(b, "] = %s[", v->id);
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_puts(b, "]\n");
    return id;
}

void ox_read(TlBuf *b, OxValue *v, OxIdx *idx)
{
    v->used = 1;
    buf_printf(b, "%s[", v->id);
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s", i ? ", " : "", idx[i]);
    buf_putc(b, ']');
}

void ox_read_bounded(OxModel *m, TlBuf *b, OxValue *v, const char *helper,
                     OxIdx *idx)
{
    unsigned mask = 0;

    for (int i = 0; i < v->rank; i++)
        if (!ox_plain_index(idx[i]))
            mask |= 1u << i;
    ox_put_bounded(m, b, v, helper, mask);
    buf_putc(b, '[');
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, "%s%s", i ? ", " : "", idx[i]);
    buf_putc(b, ']');
}
