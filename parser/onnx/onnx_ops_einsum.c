/*
 * onnx_ops_einsum.c - Einsum: the equation becomes one stage, the
 * output's letters its index variables, every other letter a reduction
 * variable, and the operands multiplied:
 *     "bij,bjk->bik"  ->  y[i0, i1, i2] = sum(r0 in 0..J) x[i0, i1, r0]
 *                                          * w[i0, r0, i2]
 * A letter repeated in one operand reads its diagonal; "..." stands for
 * the leading axes, broadcast across operands as numpy does.  Without
 * "->" the output is the letters used once, in alphabetical order,
 * after the "..." axes.
 */
#include "parser/onnx/onnx_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { NLETTER = 52, MAXOPS = 8 };

/* Labels: 0..51 for letters, NLETTER + j for the j-th "..." axis
 * (counted over the widest "..."), -1 where nothing is known. */
typedef struct Term {
    int lab[TL_MAX_RANK];
    int n;
    int ell;                /* position of "..." in the term, or -1 */
    int nell;               /* axes "..." stands for */
} Term;

static int letter(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a'
           : c >= 'A' && c <= 'Z' ? 26 + c - 'A' : -1;
}

/* Parses one term of s[0..len) (spaces skipped) into t, its letters
 * and the place of "..."; -1 when malformed. */
static int parse_term(const char *s, size_t len, Term *t)
{
    t->n = 0;
    t->ell = -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ')
            continue;
        if (s[i] == '.' && i + 2 < len && s[i + 1] == '.' &&
            s[i + 2] == '.' && t->ell < 0) {
            t->ell = t->n;
            i += 2;
            continue;
        }
        if (letter((unsigned char)s[i]) < 0 || t->n == TL_MAX_RANK)
            return -1;
        t->lab[t->n++] = letter((unsigned char)s[i]);
    }
    return 0;
}

static int op_einsum(OxModel *m)
{
    const Onnx__AttributeProto *eq = ox_attr(m, "equation");
    const Onnx__NodeProto *n = m->node;
    Term in[MAXOPS], out;
    OxValue *x[MAXOPS], *y;
    int nin = (int)n->n_input, nell = 0, has_arrow;
    int64_t size[NLETTER + TL_MAX_RANK];
    int count[NLETTER + TL_MAX_RANK] = {0}, outpos[NLETTER + TL_MAX_RANK];
    int redpos[NLETTER + TL_MAX_RANK], nred = 0;
    int64_t dims[TL_MAX_RANK];
    const char *s, *arrow, *p;
    size_t len;
    TlBuf *b = &m->body;

    if (!eq || !eq->has_s || nin < 1 || nin > MAXOPS) {
        ox_unsupported(m, "needs an equation and 1 to %d inputs", MAXOPS);
        return -1;
    }
    s = (const char *)eq->s.data;
    len = eq->s.len;
    arrow = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == '-' && s[i + 1] == '>')
            arrow = s + i;
    has_arrow = arrow != NULL;
    p = s;
    for (int k = 0; k < nin; k++) {
        const char *end = p;
        const char *lim = arrow ? arrow : s + len;
        while (end < lim && *end != ',')
            end++;
        if ((k < nin - 1) != (end < lim && *end == ',') ||
            parse_term(p, (size_t)(end - p), &in[k]) < 0)
            goto bad;
        if (!(x[k] = ox_in(m, k)) || x[k]->dt != ox_in(m, 0)->dt)
            goto bad;
        in[k].nell = x[k]->rank - in[k].n;
        if ((in[k].ell < 0 && in[k].nell != 0) || in[k].nell < 0)
            goto bad;
        if (in[k].nell > nell)
            nell = in[k].nell;
        p = end + 1;
    }
    for (int l = 0; l < NLETTER + TL_MAX_RANK; l++)
        size[l] = -1;
    /* Sizes of letters (equal wherever used) and of "..." axes
     * (broadcast: 1 or one size). */
    for (int k = 0; k < nin; k++) {
        int ax = 0;
        for (int j = 0; j <= in[k].n; j++) {
            if (j == in[k].ell)
                for (int e = 0; e < in[k].nell; e++, ax++) {
                    int l = NLETTER + nell - in[k].nell + e;
                    int64_t d = x[k]->dims[ax];
                    if (size[l] < 0 || size[l] == 1)
                        size[l] = d;
                    else if (d != 1 && d != size[l])
                        goto bad;
                }
            if (j == in[k].n)
                break;
            int l = in[k].lab[j];
            if (size[l] >= 0 && size[l] != x[k]->dims[ax])
                goto bad;
            size[l] = x[k]->dims[ax++];
            count[l]++;
        }
    }
    if (has_arrow) {
        if (parse_term(arrow + 2, len - (size_t)(arrow + 2 - s), &out) < 0 ||
            (out.ell < 0 && nell > 0))
            goto bad;
        out.nell = out.ell >= 0 ? nell : 0;
    } else {
        out.n = 0;
        out.ell = 0;
        out.nell = nell;
        for (int l = 0; l < NLETTER; l++)
            if (count[l] == 1)
                out.lab[out.n++] = l;
    }
    /* The output's axes: label -> variable i<k>. */
    int orank = 0, olab[TL_MAX_RANK];
    for (int l = 0; l < NLETTER + TL_MAX_RANK; l++)
        outpos[l] = redpos[l] = -1;
    for (int j = 0; j <= out.n; j++) {
        if (j == out.ell)
            for (int e = 0; e < out.nell; e++) {
                if (orank == TL_MAX_RANK)
                    goto bad;
                olab[orank++] = NLETTER + e;
            }
        if (j == out.n)
            break;
        if (!count[out.lab[j]] || orank == TL_MAX_RANK)
            goto bad;
        olab[orank++] = out.lab[j];
    }
    for (int k = 0; k < orank; k++) {
        if (outpos[olab[k]] >= 0)
            goto bad;
        outpos[olab[k]] = k;
        dims[k] = size[olab[k]];
    }
    for (int l = 0; l < NLETTER + TL_MAX_RANK; l++)
        if (size[l] >= 0 && outpos[l] < 0)
            redpos[l] = nred++;
    if (!(y = ox_out(m, 0, x[0]->dt, orank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(b, y->id, orank);
    if (nred) {
        buf_puts(b, "sum(");
        for (int l = 0, k = 0; l < NLETTER + TL_MAX_RANK; l++)
            if (redpos[l] >= 0)
                buf_printf(b, "%sr%d in 0..%lld", k++ ? ", " : "",
                           redpos[l], (long long)size[l]);
        buf_puts(b, ") ");
    }
    for (int k = 0; k < nin; k++) {
        int ax = 0;
        buf_printf(b, "%s%s[", k ? " * " : "", x[k]->id);
        x[k]->used = 1;
        for (int j = 0; j <= in[k].n; j++) {
            if (j == in[k].ell)
                for (int e = 0; e < in[k].nell; e++, ax++) {
                    int l = NLETTER + nell - in[k].nell + e;
                    if (x[k]->dims[ax] == 1 && size[l] != 1)
                        buf_printf(b, "%s0", ax ? ", " : "");
                    else if (outpos[l] >= 0)
                        buf_printf(b, "%si%d", ax ? ", " : "", outpos[l]);
                    else
                        buf_printf(b, "%sr%d", ax ? ", " : "", redpos[l]);
                }
            if (j == in[k].n)
                break;
            int l = in[k].lab[j];
            if (outpos[l] >= 0)
                buf_printf(b, "%si%d", ax++ ? ", " : "", outpos[l]);
            else
                buf_printf(b, "%sr%d", ax++ ? ", " : "", redpos[l]);
        }
        buf_putc(b, ']');
    }
    buf_putc(b, '\n');
    return 0;
bad:
    ox_unsupported(m, "cannot use equation '%.*s' with these inputs",
                   (int)len, (const char *)eq->s.data);
    return -1;
}

static const OxOp ops[] = {
    {"Einsum", op_einsum},
};

OxOpFn ox_einsum_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
