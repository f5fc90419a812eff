/*
 * onnx_ops_loss.c - ONNX's normalizations and losses written as
 * stages: LayerNormalization, InstanceNormalization, Hardmax,
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (a log-softmax
 * over the class axis, then the NLL of it).
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

/* "name[i0, ..., i{n-1}]" or with the variables from `from`. */
static void at(TlBuf *b, const char *id, int from, int n)
{
    buf_printf(b, "%s[", id);
    for (int i = 0; i < n; i++)
        buf_printf(b, "%si%d", i ? ", " : "", from + i);
    buf_putc(b, ']');
}

static void read_all(TlBuf *b, OxValue *v)
{
    v->used = 1;
    at(b, v->id, 0, v->rank);
}

static char *fresh(OxModel *m, const char *base, const char *suffix)
{
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%.100s_%s", base, suffix);
    return ox_ident(m, tmp);
}

/* "sum(r0 in 0..D, ...) " over axes [a, rank) of v. */
static void red_over(TlBuf *b, const char *op, const OxValue *v, int a)
{
    buf_printf(b, "%s(", op);
    for (int i = a; i < v->rank; i++)
        buf_printf(b, "%sr%d in 0..%lld", i > a ? ", " : "", i - a,
                   (long long)v->dims[i]);
    buf_puts(b, ") ");
}

/* v[i0, .., i{a-1}, r0, ..] */
static void read_red(TlBuf *b, OxValue *v, int a)
{
    v->used = 1;
    buf_printf(b, "%s[", v->id);
    for (int i = 0; i < v->rank; i++)
        buf_printf(b, i < a ? "%si%d" : "%sr%d", i ? ", " : "",
                   i < a ? i : i - a);
    buf_putc(b, ']');
}

/* Mean and 1 / sqrt(var + eps) of x over axes [a, rank): stages over
 * the axes before a; their identifiers in *mu and *inv. */
static void moments(OxModel *m, OxValue *x, int a, double eps,
                    const char *base, char **mu, char **inv)
{
    TlBuf *b = &m->body;
    const char *T = dt_name(x->dt);
    char *var;
    int64_t n = 1;

    for (int i = a; i < x->rank; i++)
        n *= x->dims[i];
    *mu = fresh(m, base, "mean");
    var = fresh(m, base, "var");
    *inv = fresh(m, base, "inv_std");
    buf_puts(b, "    ");
    at(b, *mu, 0, a);
    buf_puts(b, " = (");
    red_over(b, "sum", x, a);
    read_red(b, x, a);
    buf_printf(b, ") / %s(%lld)\n    ", T, (long long)n);
    at(b, var, 0, a);
    buf_puts(b, " = (");
    red_over(b, "sum", x, a);
    buf_putc(b, '(');
    read_red(b, x, a);
    buf_puts(b, " - ");
    at(b, *mu, 0, a);
    buf_puts(b, ") * (");
    read_red(b, x, a);
    buf_puts(b, " - ");
    at(b, *mu, 0, a);
    buf_printf(b, ")) / %s(%lld)\n    ", T, (long long)n);
    at(b, *inv, 0, a);
    buf_printf(b, " = %s(1) / sqrt(", T);
    at(b, var, 0, a);
    buf_printf(b, " + %s(", T);
    ox_float_lit(b, eps);
    buf_puts(b, "))\n");
}

static int op_layernorm(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *sc = ox_in(m, 1), *bi = ox_in(m, 2), *y;
    int64_t ax = ox_attr_i(m, "axis", -1), kd[TL_MAX_RANK];
    int a;
    char *mu, *inv;
    TlBuf *b = &m->body;

    if (!x || !sc || !dt_is_float(x->dt) || x->rank == 0) {
        ox_unsupported(m, "needs a float input and a scale");
        return -1;
    }
    if (ax < -x->rank || ax >= x->rank) {
        ox_unsupported(m, "axis out of range");
        return -1;
    }
    a = (int)(ax < 0 ? ax + x->rank : ax);
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    ox_comment(m);
    moments(m, x, a, ox_attr_f(m, "epsilon", 1e-5), y->name, &mu, &inv);
    ox_lhs(b, y->id, x->rank);
    buf_putc(b, '(');
    read_all(b, x);
    buf_puts(b, " - ");
    at(b, mu, 0, a);
    buf_puts(b, ") * ");
    at(b, inv, 0, a);
    buf_puts(b, " * ");
    ox_read_bcast(b, sc, x->rank, x->dims);
    if (bi) {
        buf_puts(b, " + ");
        ox_read_bcast(b, bi, x->rank, x->dims);
    }
    buf_putc(b, '\n');
    memcpy(kd, x->dims, sizeof kd);
    for (int i = a; i < x->rank; i++)
        kd[i] = 1;
    for (int o = 1; o <= 2; o++) {
        OxValue *v;
        if ((size_t)o >= m->node->n_output || !*m->node->output[o])
            continue;
        if (!(v = ox_out(m, o, x->dt, x->rank, kd)))
            return -1;
        ox_lhs(b, v->id, x->rank);
        at(b, o == 1 ? mu : inv, 0, a);
        buf_putc(b, '\n');
    }
    return 0;
}

static int op_instnorm(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *sc = ox_in(m, 1), *bi = ox_in(m, 2), *y;
    char *mu, *inv;
    TlBuf *b = &m->body;

    if (!x || !sc || !bi || !dt_is_float(x->dt) || x->rank < 3 ||
        sc->rank != 1 || bi->rank != 1) {
        ox_unsupported(m, "needs a float N, C, ... input, scale and bias");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    ox_comment(m);
    moments(m, x, 2, ox_attr_f(m, "epsilon", 1e-5), y->name, &mu, &inv);
    ox_lhs(b, y->id, x->rank);
    buf_putc(b, '(');
    read_all(b, x);
    buf_puts(b, " - ");
    at(b, mu, 0, 2);
    buf_puts(b, ") * ");
    at(b, inv, 0, 2);
    sc->used = bi->used = 1;
    buf_printf(b, " * %s[i1] + %s[i1]\n", sc->id, bi->id);
    return 0;
}

static int op_hardmax(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *y;
    int64_t ax = ox_attr_i(m, "axis", m->opset >= 13 ? -1 : 1);
    int a;
    char *am;
    TlBuf *b = &m->body;

    if (!x || !dt_is_float(x->dt) || x->rank == 0) {
        ox_unsupported(m, "needs a float input");
        return -1;
    }
    if (ax < -x->rank || ax >= x->rank) {
        ox_unsupported(m, "axis out of range");
        return -1;
    }
    a = (int)(ax < 0 ? ax + x->rank : ax);
    if (m->opset < 13 && a != x->rank - 1) {
        ox_unsupported(m, "before opset 13, only the last axis");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    am = fresh(m, y->name, "argmax");
    ox_comment(m);
    /* am over all axes but a, its variables named as in y */
    buf_printf(b, "    %s[", am);
    for (int i = 0, k = 0; i < x->rank; i++)
        if (i != a)
            buf_printf(b, "%si%d", k++ ? ", " : "", i);
    buf_printf(b, "] = argmax(r0 in 0..%lld) %s[", (long long)x->dims[a],
               x->id);
    for (int i = 0; i < x->rank; i++)
        buf_printf(b, i == a ? "%sr0" : "%si%d", i ? ", " : "", i);
    buf_puts(b, "]\n");
    x->used = 1;
    ox_lhs(b, y->id, x->rank);
    buf_printf(b, "select(i%d == %s[", a, am);
    for (int i = 0, k = 0; i < x->rank; i++)
        if (i != a)
            buf_printf(b, "%si%d", k++ ? ", " : "", i);
    buf_printf(b, "], %s(1), %s(0))\n", dt_name(x->dt), dt_name(x->dt));
    return 0;
}

/* "target == ignore_index": through i64 when the index does not fit the
 * target's dtype (an i32 target never equals it; the literal would not
 * check). */
static void ignored(TlBuf *b, const OxValue *t, const char *tr, int64_t ig)
{
    if (t->dt != DT_I64 && (ig < INT32_MIN || ig > INT32_MAX))
        buf_printf(b, "i64(%s) == ", tr);
    else
        buf_printf(b, "%s == ", tr);
    ox_int_lit(b, ig);
}

/* The NLL of lp ([N, C, d..]) at target t ([N, d..]) with optional
 * weights w, as node output `out`. */
static int emit_nll(OxModel *m, OxValue *lp, OxValue *t, OxValue *w,
                    int out)
{
    const Onnx__AttributeProto *ra = ox_attr(m, "reduction");
    const Onnx__AttributeProto *ig = ox_attr(m, "ignore_index");
    int red = 2;        /* none, sum, mean */
    const char *T = dt_name(lp->dt);
    char *l, *ws = NULL;
    TlBuf *b = &m->body;
    TlBuf tr;
    OxValue *y;

    if (ra && ra->has_s)
        red = ra->s.len == 4 && !memcmp(ra->s.data, "none", 4) ? 0
              : ra->s.len == 3 && !memcmp(ra->s.data, "sum", 3) ? 1
              : ra->s.len == 4 && !memcmp(ra->s.data, "mean", 4) ? 2 : -1;
    if (red < 0 || lp->rank < 2 || t->rank != lp->rank - 1 ||
        dt_is_float(t->dt) || t->dims[0] != lp->dims[0] ||
        (w && w->rank != 1)) {
        ox_unsupported(m, "unsupported reduction or shapes");
        return -1;
    }
    for (int i = 1; i < t->rank; i++)
        if (t->dims[i] != lp->dims[i + 1]) {
            ox_unsupported(m, "target and input shapes differ");
            return -1;
        }
    buf_init(&tr);
    t->used = 1;
    buf_printf(&tr, "%s[", t->id);
    for (int i = 0; i < t->rank; i++)
        buf_printf(&tr, "%si%d", i ? ", " : "", i);
    buf_putc(&tr, ']');
    if (red == 0) {
        if (!(y = ox_out(m, out, lp->dt, t->rank, t->dims))) {
            buf_free(&tr);
            return -1;
        }
        l = y->id;
    } else {
        l = fresh(m, m->node->output[out], "loss");
    }
    ox_lhs(b, l, t->rank);
    if (ig && ig->has_i) {
        buf_puts(b, "select(");
        ignored(b, t, tr.s, ig->i);
        buf_printf(b, ", %s(0), ", T);
    }
    lp->used = 1;
    if (lp->kind == OX_NODE) {
        /* A stage is read at the target through a sum over the
         * classes, so that its domain follows from its readers (a
         * data-dependent read would need its natural domain, which a
         * Reshape before it does not give). */
        buf_printf(b, "-(sum(r0 in 0..%lld) select(r0 == %s, %s[i0, r0",
                   (long long)lp->dims[1], tr.s, lp->id);
        for (int i = 1; i < t->rank; i++)
            buf_printf(b, ", i%d", i);
        buf_printf(b, "], %s(0)))", T);
    } else {
        buf_printf(b, "-%s[i0, %s", lp->id, tr.s);
        for (int i = 1; i < t->rank; i++)
            buf_printf(b, ", i%d", i);
        buf_putc(b, ']');
    }
    if (w) {
        w->used = 1;
        buf_printf(b, " * %s[%s]", w->id, tr.s);
    }
    if (ig && ig->has_i)
        buf_putc(b, ')');
    buf_putc(b, '\n');
    if (red == 2 && (w || (ig && ig->has_i))) {
        ws = fresh(m, m->node->output[out], "weight");
        ox_lhs(b, ws, t->rank);
        if (ig && ig->has_i) {
            buf_puts(b, "select(");
            ignored(b, t, tr.s, ig->i);
            buf_printf(b, ", %s(0), ", T);
        }
        if (w)
            buf_printf(b, "%s[%s]", w->id, tr.s);
        else
            buf_printf(b, "%s(1)", T);
        if (ig && ig->has_i)
            buf_putc(b, ')');
        buf_putc(b, '\n');
    }
    buf_free(&tr);
    if (red == 0)
        return 0;
    if (!(y = ox_out(m, out, lp->dt, 0, NULL)))
        return -1;
    ox_lhs(b, y->id, 0);
    buf_putc(b, '(');
    OxValue lv = *t;
    lv.id = l;
    red_over(b, "sum", &lv, 0);
    buf_printf(b, "%s[", l);
    for (int i = 0; i < t->rank; i++)
        buf_printf(b, "%sr%d", i ? ", " : "", i);
    buf_puts(b, "])");
    if (red == 2 && ws) {
        buf_puts(b, " / (");
        red_over(b, "sum", &lv, 0);
        buf_printf(b, "%s[", ws);
        for (int i = 0; i < t->rank; i++)
            buf_printf(b, "%sr%d", i ? ", " : "", i);
        buf_puts(b, "])");
    } else if (red == 2) {
        int64_t n = 1;
        for (int i = 0; i < t->rank; i++)
            n *= t->dims[i];
        buf_printf(b, " / %s(%lld)", T, (long long)n);
    }
    buf_putc(b, '\n');
    return 0;
}

static int op_nll(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *t = ox_in(m, 1), *w = ox_in(m, 2);

    if (!x || !t || !dt_is_float(x->dt)) {
        ox_unsupported(m, "needs a float input and a target");
        return -1;
    }
    ox_comment(m);
    return emit_nll(m, x, t, w, 0);
}

static int op_sce(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *t = ox_in(m, 1), *w = ox_in(m, 2), *lp;
    TlBuf *b = &m->body;
    char *mx, *sm;
    int r;

    if (!x || !t || !dt_is_float(x->dt) || x->rank < 2) {
        ox_unsupported(m, "needs float scores [N, C, ...] and labels");
        return -1;
    }
    r = x->rank;
    if (m->node->n_output > 1 && *m->node->output[1]) {
        if (!(lp = ox_out(m, 1, x->dt, r, x->dims)))
            return -1;
    } else {
        char tmp[200];
        snprintf(tmp, sizeof tmp, "%.100s_log_prob", m->node->output[0]);
        lp = ox_add(m, tmp, OX_NODE, x->dt, r, x->dims);
    }
    mx = fresh(m, lp->name, "max");
    sm = fresh(m, lp->name, "sum");
    ox_comment(m);
    /* max and sum of exp over the class axis (1) */
    buf_printf(b, "    %s[i0", mx);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_printf(b, "] = max(r0 in 0..%lld) %s[i0, r0", (long long)x->dims[1],
               x->id);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_printf(b, "]\n    %s[i0", sm);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_printf(b, "] = sum(r0 in 0..%lld) exp(%s[i0, r0", (long long)x->dims[1],
               x->id);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_printf(b, "] - %s[i0", mx);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_puts(b, "])\n");
    x->used = 1;
    ox_lhs(b, lp->id, r);
    read_all(b, x);
    buf_printf(b, " - %s[i0", mx);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_printf(b, "] - log(%s[i0", sm);
    for (int i = 2; i < r; i++)
        buf_printf(b, ", i%d", i);
    buf_puts(b, "])\n");
    return emit_nll(m, lp, t, w, 0);
}

/* MeanVarianceNormalization: (x - mean) / (sqrt(E[x^2] - mean^2) +
 * 1e-9) over `axes` (default N, H, W), as ONNX's function defines it. */
static int op_mvn(OxModel *m)
{
    OxValue *x = ox_in(m, 0), *y;
    int64_t axes[TL_MAX_RANK] = {0, 2, 3}, count = 1;
    int n = 3, red[TL_MAX_RANK] = {0};
    char *mu, *sq;
    const char *T;
    TlBuf kept, rv, rd, *b = &m->body;

    if (!x || !dt_is_float(x->dt)) {
        ox_unsupported(m, "needs a float input");
        return -1;
    }
    if (ox_attr(m, "axes") &&
        (n = ox_attr_ints(m, "axes", axes, TL_MAX_RANK)) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + x->rank : axes[i];
        if (a < 0 || a >= x->rank || red[a]) {
            ox_unsupported(m, "axes are out of range or repeated");
            return -1;
        }
        red[a] = 1;
        count *= x->dims[a];
    }
    if (n == 0) {
        ox_unsupported(m, "no axes");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    T = dt_name(x->dt);
    mu = fresh(m, y->name, "mean");
    sq = fresh(m, y->name, "meansq");
    buf_init(&kept);
    buf_init(&rv);
    buf_init(&rd);
    buf_putc(&kept, '[');
    buf_putc(&rd, '[');
    for (int i = 0, k = 0, r = 0; i < x->rank; i++) {
        if (red[i]) {
            buf_printf(&rv, "%sr%d in 0..%lld", r ? ", " : "", r,
                       (long long)x->dims[i]);
            buf_printf(&rd, "%sr%d", i ? ", " : "", r++);
        } else {
            buf_printf(&kept, "%si%d", k++ ? ", " : "", i);
            buf_printf(&rd, "%si%d", i ? ", " : "", i);
        }
    }
    buf_putc(&kept, ']');
    buf_putc(&rd, ']');
    x->used = 1;
    ox_comment(m);
    buf_printf(b, "    %s%s = (sum(%s) %s%s) / %s(%lld)\n", mu, kept.s,
               rv.s ? rv.s : "", x->id, rd.s, T, (long long)count);
    buf_printf(b, "    %s%s = (sum(%s) %s%s * %s%s) / %s(%lld)\n", sq,
               kept.s, rv.s ? rv.s : "", x->id, rd.s, x->id, rd.s, T,
               (long long)count);
    ox_lhs(b, y->id, x->rank);
    buf_putc(b, '(');
    read_all(b, x);
    buf_printf(b, " - %s%s) / (sqrt(%s%s - %s%s * %s%s) + %s(1e-9))\n", mu,
               kept.s, sq, kept.s, mu, kept.s, mu, kept.s, T);
    buf_free(&kept);
    buf_free(&rv);
    buf_free(&rd);
    return 0;
}

static const OxOp ops[] = {
    {"MeanVarianceNormalization", op_mvn},
    {"LayerNormalization", op_layernorm},
    {"InstanceNormalization", op_instnorm},
    {"Hardmax", op_hardmax},
    {"NegativeLogLikelihoodLoss", op_nll},
    {"SoftmaxCrossEntropyLoss", op_sce},
};

OxOpFn ox_loss_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
