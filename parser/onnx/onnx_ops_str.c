/*
 * onnx_ops_str.c - StringNormalizer, on str tensors (SPEC 8.6).  The
 * case change is lower() or upper() of each element; removing the
 * stopwords makes the output's size depend on the input's values, so
 * with stopwords the input must be known at import (a constant, or
 * data bound with --bind), as for NonZero (onnx_ops_dd.c): the kept
 * elements are counted then, and the stages compute the output from
 * the input by counting too:
 *     y_pos[i0] = sum(r0 in 0..4) select(x[r0] != "monday" && r0 < i0,
 *                                        1, 0)
 * is how many kept elements come before each one, y_src[i0] the place
 * of the i0-th kept one, and y[i0] = upper(x[y_src[i0]]).  The model's
 * header records the bound data's hash, so tdsl run refuses other
 * data.  Comparisons that ignore case compare lower(x) with the
 * stopword in lower case.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_MAX 4096

int ox_str_lit(TlBuf *b, const uint8_t *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c == '\n')
            buf_puts(b, "\\n");
        else if (c == '\t')
            buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            return -1;
        else
            buf_putc(b, (char)c);
    }
    buf_putc(b, '"');
    return 0;
}

/* Is the attribute's string s (or "" when absent) equal to want? */
static int attr_is(const Onnx__AttributeProto *a, const char *want)
{
    size_t n = a && a->has_s ? a->s.len : 0;
    return n == strlen(want) && (!n || !memcmp(a->s.data, want, n));
}

/* "x[r0]" or "x[0, r0]": x (of shape [C] or [1, C]) at element var. */
static void read_elem(TlBuf *b, OxValue *x, const char *var)
{
    OxIdx idx[2];

    snprintf(idx[0], sizeof idx[0], "0");
    snprintf(idx[x->rank - 1], sizeof idx[0], "%s", var);
    ox_read(b, x, idx);
}

/* "x[r0] != "a" && ...": element var of x is no stopword. */
static int kept(TlBuf *b, OxValue *x, const char *var,
                const Onnx__AttributeProto *sw, int sens)
{
    for (size_t i = 0; i < sw->n_strings; i++) {
        buf_puts(b, i ? " && " : "");
        buf_puts(b, sens ? "" : "lower(");
        read_elem(b, x, var);
        buf_puts(b, sens ? " != " : ") != lower(");
        if (ox_str_lit(b, sw->strings[i].data, sw->strings[i].len) < 0)
            return -1;
        buf_puts(b, sens ? "" : ")");
    }
    return 0;
}

/* The kept elements, counted at import; -1 after a message. */
static int64_t count_kept(OxModel *m, OxValue *x,
                          const Onnx__AttributeProto *sw, int sens)
{
    TlBuf b;
    TlTensor *t;
    int64_t k = -1;

    buf_init(&b);
    buf_printf(&b, "    count[] = sum(r0 in 0..%lld) select(",
               (long long)x->dims[x->rank - 1]);
    kept(&b, x, "r0", sw, sens);
    buf_puts(&b, ", 1, 0)\n");
    t = ox_eval(b.s, &x, 1, "count", DT_I64);
    buf_free(&b);
    if (!t) {
        ox_unsupported(m, "the size of the output could not be computed "
                       "at import");
        return -1;
    }
    k = tl_tensor_get_i64(t, NULL);
    tl_tensor_unref(t);
    return k;
}

static int op_strnorm(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    const Onnx__AttributeProto *ac = ox_attr(m, "case_change_action");
    const Onnx__AttributeProto *sw = ox_attr(m, "stopwords");
    const Onnx__AttributeProto *loc = ox_attr(m, "locale");
    int sens = ox_attr_i(m, "is_case_sensitive", 0) != 0;
    const char *fn = "";
    int64_t dims[2], k, C;
    int last;
    char var[16];
    TlBuf *b = &m->body;

    if (!x)
        return -1;
    if (x->dt != DT_STR) {
        ox_unsupported(m, "input '%s' is %s, not a string tensor", x->name,
                       dt_name(x->dt));
        return -1;
    }
    if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1))) {
        ox_unsupported(m, "input '%s' must have shape [C] or [1, C]",
                       x->name);
        return -1;
    }
    if (attr_is(ac, "LOWER")) {
        fn = "lower";
    } else if (attr_is(ac, "UPPER")) {
        fn = "upper";
    } else if (!attr_is(ac, "") && !attr_is(ac, "NONE")) {
        ox_unsupported(m, "case_change_action '%.*s' is not NONE, LOWER "
                       "or UPPER", (int)ac->s.len, (const char *)ac->s.data);
        return -1;
    }
    /* lower() and upper() map ASCII letters, as every English locale
     * does; others (tr_TR's dotted i) map letters differently. */
    if (loc && loc->has_s && loc->s.len && !(loc->s.len >= 2 &&
        !memcmp(loc->s.data, "en", 2) && (loc->s.len == 2 ||
        loc->s.data[2] == '_' || loc->s.data[2] == '.')) &&
        !attr_is(loc, "C")) {
        ox_unsupported(m, "locale '%.*s' is not supported (tdsl's lower "
                       "and upper map ASCII letters, as en_US does)",
                       (int)loc->s.len, (const char *)loc->s.data);
        return -1;
    }
    last = x->rank - 1;
    C = x->dims[last];
    snprintf(var, sizeof var, "i%d", last & 1);
    if (!sw || !sw->n_strings) {
        /* Nothing removed: the case change alone. */
        if (!(y = ox_out(m, 0, DT_STR, x->rank, x->dims)))
            return -1;
        ox_comment(m);
        ox_lhs(b, y->id, y->rank);
        buf_printf(b, "%s%s", fn, *fn ? "(" : "");
        ox_read_bcast(b, x, y->rank, y->dims);
        buf_puts(b, *fn ? ")\n" : "\n");
        return 0;
    }
    for (size_t i = 0; i < sw->n_strings; i++) {
        TlBuf t;
        int bad;
        buf_init(&t);
        bad = ox_str_lit(&t, sw->strings[i].data, sw->strings[i].len);
        buf_free(&t);
        if (bad) {
            ox_unsupported(m, "stopword %zu holds a control byte, which a "
                           "tdsl string cannot", i);
            return -1;
        }
    }
    if (!ox_bound(x)) {
        ox_unsupported(m, "the output's size depends on the values of "
                       "'%s', which are not known at import (bind it with "
                       "--bind)", x->name);
        return -1;
    }
    if (C > STR_MAX) {
        ox_unsupported(m, "'%s' has %lld elements (at most %d are "
                       "supported: each output counts over all of them)",
                       x->name, (long long)C, STR_MAX);
        return -1;
    }
    if ((k = count_kept(m, x, sw, sens)) < 0)
        return -1;
    dims[0] = 1;
    dims[last] = k ? k : 1;
    if (!(y = ox_out(m, 0, DT_STR, x->rank, dims)))
        return -1;
    ox_comment(m);
    if (k == 0) {
        /* ONNX gives one empty string when every word is a stopword. */
        ox_lhs(b, y->id, y->rank);
        buf_puts(b, "\"\"\n");
        return 0;
    }
    {
        char *pos = ox_ident(m, "strnorm_pos");
        char *src = ox_ident(m, "strnorm_src");
        /* pos: how many kept elements come before each one */
        ox_lhs(b, pos, 1);
        buf_printf(b, "sum(r0 in 0..%lld) select(", (long long)C);
        kept(b, x, "r0", sw, sens);
        buf_puts(b, " && r0 < i0, 1, 0)\n");
        /* src: where the i0-th kept element is */
        ox_lhs(b, src, 1);
        buf_printf(b, "sum(r0 in 0..%lld) select(", (long long)C);
        kept(b, x, "r0", sw, sens);
        buf_printf(b, " && %s[r0] == i0, r0, 0)\n", pos);
        ox_lhs(b, y->id, y->rank);
        buf_printf(b, "%s%s", fn, *fn ? "(" : "");
        {
            char at[400];
            snprintf(at, sizeof at, "%.300s[%s]", src, var);
            read_elem(b, x, at);
        }
        buf_puts(b, *fn ? ")\n" : "\n");
    }
    return 0;
}

OxOpFn ox_str_op(const char *name)
{
    if (!strcmp(name, "StringNormalizer"))
        return op_strnorm;
    return NULL;
}
