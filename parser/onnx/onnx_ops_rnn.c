/*
 * onnx_ops_rnn.c - RNN, GRU and LSTM, unrolled over the (static)
 * sequence: per direction, one stage projects every step's input at
 * once (`fw_xw[t, b, g]`: X times W, plus the biases), then each step
 * has a few stages of its own, named by step (`fw_h1`, `fw_c1`, ...),
 * that read the previous step's.  Y, Y_h and Y_c gather the steps.
 *
 * Supported: directions forward, reverse and bidirectional; layout 0
 * and 1; initial_h/initial_c; LSTM peepholes; GRU's
 * linear_before_reset; clip; sequence_lens on forward runs (a batch
 * entry keeps its state after its end and its Y rows are 0); the
 * activations Sigmoid, Tanh and Relu.  clip bounds the input of every
 * activation, LSTM's h(C) included, as the operator's text says.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

enum { K_RNN, K_GRU, K_LSTM };

typedef struct Rnn {
    OxModel *m;
    int kind;
    int layout;
    int64_t T, B, I, H;
    int ndir;
    OxValue *x, *w, *r, *bias, *sl, *h0, *c0, *p;
    const char *T_;         /* dtype name */
    const char *act[2][3];  /* per direction: f, g, h */
    double clip;            /* 0: none */
    int lbr;                /* GRU linear_before_reset */
} Rnn;

static const char *act_name(const char *onnx)
{
    if (!strcmp(onnx, "Sigmoid"))
        return "sigmoid";
    if (!strcmp(onnx, "Tanh"))
        return "tanh";
    if (!strcmp(onnx, "Relu"))
        return "relu";
    return NULL;
}

/* Opens an activation of a pre-activation written next (closed by
 * act_close): "sigmoid(", "max(", with clamp for clip. */
static void act_open(TlBuf *b, const Rnn *q, const char *f)
{
    buf_puts(b, !strcmp(f, "relu") ? "max(" : f);
    if (strcmp(f, "relu"))
        buf_putc(b, '(');
    if (q->clip > 0)
        buf_puts(b, "clamp(");
}

static void act_close(TlBuf *b, const Rnn *q, const char *f)
{
    if (q->clip > 0) {
        buf_printf(b, ", %s(", q->T_);
        ox_float_lit(b, -q->clip);
        buf_printf(b, "), %s(", q->T_);
        ox_float_lit(b, q->clip);
        buf_puts(b, "))");
    }
    if (!strcmp(f, "relu"))
        buf_printf(b, ", %s(0))", q->T_);
    else
        buf_putc(b, ')');
}

/* " + (sum(r0 in 0..H) prev[i0, r0] * R[d, g0 + i1, r0])" (nothing for
 * the zero state). */
static void recur(TlBuf *b, const Rnn *q, const char *prev, int d,
                  int64_t g0)
{
    if (!prev)
        return;
    q->r->used = 1;
    buf_printf(b, " + (sum(r0 in 0..%lld) %s[i0, r0] * %s[%d, ",
               (long long)q->H, prev, q->r->id, d);
    if (g0)
        buf_printf(b, "%lld + ", (long long)g0);
    buf_printf(b, "i1, r0])");
}

/* The state before the first step: initial_h (or _c) for direction d,
 * as a stage; NULL (zeros) without it. */
static char *initial(Rnn *q, OxValue *v, const char *base, int d,
                     const char *what)
{
    char tmp[200];
    char *id;

    if (!v)
        return NULL;
    snprintf(tmp, sizeof tmp, "%.100s_%s0", base, what);
    id = ox_ident(q->m, tmp);
    v->used = 1;
    if (q->layout)
        buf_printf(&q->m->body, "    %s[i0, i1] = %s[i0, %d, i1]\n", id,
                   v->id, d);
    else
        buf_printf(&q->m->body, "    %s[i0, i1] = %s[%d, i0, i1]\n", id,
                   v->id, d);
    return id;
}

/* Wraps the new state in a select keeping the old one after a batch
 * entry's sequence ends (sequence_lens). */
static void keep_open(TlBuf *b, const Rnn *q, int64_t t)
{
    if (q->sl) {
        q->sl->used = 1;
        buf_printf(b, "select(%lld < %s[i0], ", (long long)t, q->sl->id);
    }
}

static void keep_close(TlBuf *b, const Rnn *q, const char *prev)
{
    if (!q->sl)
        return;
    if (prev)
        buf_printf(b, ", %s[i0, i1])", prev);
    else
        buf_printf(b, ", %s(0))", q->T_);
}

/* One direction: the stages of every step; the names of the h (and c)
 * stages per step in hs[t], cs[t] (by time, whatever the direction). */
static int direction(Rnn *q, int d, const char *base, char **hs, char **cs)
{
    TlBuf *b = &q->m->body;
    int64_t ng = q->kind == K_LSTM ? 4 : q->kind == K_GRU ? 3 : 1;
    int64_t H = q->H;
    char tmp[200], *xw, *h, *c;
    int rev = q->ndir == 2 ? d == 1 : q->ndir == -1;

    snprintf(tmp, sizeof tmp, "%.100s_xw", base);
    xw = ox_ident(q->m, tmp);
    /* xw[t, b, g]: the input part of every gate, with the biases (GRU
     * keeps the recurrent bias of its h gate apart). */
    q->x->used = q->w->used = 1;
    buf_printf(b, "    %s[i0, i1, i2] = (sum(r0 in 0..%lld) %s[%s, r0] * "
               "%s[%d, i2, r0])", xw, (long long)q->I, q->x->id,
               q->layout ? "i1, i0" : "i0, i1", q->w->id, d);
    if (q->bias) {
        q->bias->used = 1;
        buf_printf(b, " + %s[%d, i2]", q->bias->id, d);
        if (q->kind == K_GRU)
            buf_printf(b, " + select(i2 < %lld, %s[%d, %lld + i2], %s(0))",
                       (long long)(2 * H), q->bias->id, d,
                       (long long)(ng * H), q->T_);
        else
            buf_printf(b, " + %s[%d, %lld + i2]", q->bias->id, d,
                       (long long)(ng * H));
    }
    buf_putc(b, '\n');
    h = initial(q, q->h0, base, d, "h");
    c = q->kind == K_LSTM ? initial(q, q->c0, base, d, "c") : NULL;
    for (int64_t s = 0; s < q->T; s++) {
        int64_t t = rev ? q->T - 1 - s : s;
        char *nh, *nc = NULL, *g = NULL;
        snprintf(tmp, sizeof tmp, "%.100s_h%lld", base, (long long)s + 1);
        nh = ox_ident(q->m, tmp);
        if (q->kind != K_RNN) {
            snprintf(tmp, sizeof tmp, "%.100s_g%lld", base,
                     (long long)s + 1);
            g = ox_ident(q->m, tmp);
        }
        if (q->kind == K_RNN) {
            buf_printf(b, "    %s[i0, i1] = ", nh);
            keep_open(b, q, t);
            act_open(b, q, q->act[d][0]);
            buf_printf(b, "%s[%lld, i0, i1]", xw, (long long)t);
            recur(b, q, h, d, 0);
            act_close(b, q, q->act[d][0]);
            keep_close(b, q, h);
            buf_putc(b, '\n');
        } else if (q->kind == K_GRU) {
            /* g: z and r (2H wide, activated) */
            buf_printf(b, "    %s[i0, i1] = ", g);
            act_open(b, q, q->act[d][0]);
            buf_printf(b, "%s[%lld, i0, i1]", xw, (long long)t);
            recur(b, q, h, d, 0);
            act_close(b, q, q->act[d][0]);
            buf_putc(b, '\n');
            snprintf(tmp, sizeof tmp, "%.100s_n%lld", base,
                     (long long)s + 1);
            char *n = ox_ident(q->m, tmp);
            buf_printf(b, "    %s[i0, i1] = ", n);
            act_open(b, q, q->act[d][1]);
            buf_printf(b, "%s[%lld, i0, %lld + i1]", xw, (long long)t,
                       (long long)(2 * H));
            if (!q->lbr) {
                /* (r * h) R_h + Rb_h */
                if (h) {
                    q->r->used = 1;
                    buf_printf(b, " + (sum(r0 in 0..%lld) %s[i0, %lld + "
                               "r0] * %s[i0, r0] * %s[%d, %lld + i1, r0])",
                               (long long)H, g, (long long)H, h, q->r->id,
                               d, (long long)(2 * H));
                }
                if (q->bias)
                    buf_printf(b, " + %s[%d, %lld + i1]", q->bias->id, d,
                               (long long)(5 * H));
            } else if (h || q->bias) {
                /* r * (h R_h + Rb_h) */
                buf_printf(b, " + %s[i0, %lld + i1] * (", g, (long long)H);
                if (q->bias)
                    buf_printf(b, "%s[%d, %lld + i1]", q->bias->id, d,
                               (long long)(5 * H));
                else
                    buf_printf(b, "%s(0)", q->T_);
                recur(b, q, h, d, 2 * H);
                buf_putc(b, ')');
            }
            act_close(b, q, q->act[d][1]);
            buf_putc(b, '\n');
            buf_printf(b, "    %s[i0, i1] = ", nh);
            keep_open(b, q, t);
            buf_printf(b, "(%s(1) - %s[i0, i1]) * %s[i0, i1]", q->T_, g, n);
            if (h)
                buf_printf(b, " + %s[i0, i1] * %s[i0, i1]", g, h);
            keep_close(b, q, h);
            buf_putc(b, '\n');
        } else {
            /* g: the four gates before activation (i, o, f, c) */
            buf_printf(b, "    %s[i0, i1] = %s[%lld, i0, i1]", g, xw,
                       (long long)t);
            recur(b, q, h, d, 0);
            buf_putc(b, '\n');
            snprintf(tmp, sizeof tmp, "%.100s_c%lld", base,
                     (long long)s + 1);
            nc = ox_ident(q->m, tmp);
            buf_printf(b, "    %s[i0, i1] = ", nc);
            keep_open(b, q, t);
            if (c) {
                act_open(b, q, q->act[d][0]);
                buf_printf(b, "%s[i0, %lld + i1]", g, (long long)(2 * H));
                if (q->p) {
                    q->p->used = 1;
                    buf_printf(b, " + %s[%d, %lld + i1] * %s[i0, i1]",
                               q->p->id, d, (long long)(2 * H), c);
                }
                act_close(b, q, q->act[d][0]);
                buf_printf(b, " * %s[i0, i1] + ", c);
            }
            act_open(b, q, q->act[d][0]);
            buf_printf(b, "%s[i0, i1]", g);
            if (q->p && c)
                buf_printf(b, " + %s[%d, i1] * %s[i0, i1]", q->p->id, d, c);
            act_close(b, q, q->act[d][0]);
            buf_puts(b, " * ");
            act_open(b, q, q->act[d][1]);
            buf_printf(b, "%s[i0, %lld + i1]", g, (long long)(3 * H));
            act_close(b, q, q->act[d][1]);
            keep_close(b, q, c);
            buf_putc(b, '\n');
            buf_printf(b, "    %s[i0, i1] = ", nh);
            keep_open(b, q, t);
            act_open(b, q, q->act[d][0]);
            buf_printf(b, "%s[i0, %lld + i1]", g, (long long)H);
            if (q->p)
                buf_printf(b, " + %s[%d, %lld + i1] * %s[i0, i1]", q->p->id,
                           d, (long long)H, nc);
            act_close(b, q, q->act[d][0]);
            buf_puts(b, " * ");
            act_open(b, q, q->act[d][2]);
            buf_printf(b, "%s[i0, i1]", nc);
            act_close(b, q, q->act[d][2]);
            keep_close(b, q, h);
            buf_putc(b, '\n');
        }
        hs[t] = nh;
        cs[t] = nc;
        h = nh;
        c = nc;
    }
    return 0;
}

/* "select(iA == 0, s0[..], select(iA == 1, s1[..], s2[..]))" over the
 * names in ss[n], each read at [ib, ih]; or T(0) at the (step >= the
 * batch entry's length) rows when sl is set and step is the axis. */
static void pick(TlBuf *b, char **ss, int n, int axis, int ib, int ih,
                 const Rnn *q, int steps)
{
    for (int k = 0; k < n; k++) {
        if (k < n - 1)
            buf_printf(b, "select(i%d == %d, ", axis, k);
        if (steps && q->sl)
            buf_printf(b, "select(%d < %s[i%d], %s[i%d, i%d], %s(0))", k,
                       q->sl->id, ib, ss[k], ib, ih, q->T_);
        else
            buf_printf(b, "%s[i%d, i%d]", ss[k], ib, ih);
        buf_puts(b, k < n - 1 ? ", " : "");
    }
    for (int k = 0; k < n - 1; k++)
        buf_putc(b, ')');
}

static int op_rnn(OxModel *m)
{
    const char *op = m->node->op_type;
    Rnn q;
    const Onnx__AttributeProto *a;
    int64_t ng, dims[4];
    char *hs[2][64], *cs[2][64], *last[2][2];
    char base[2][200];
    OxValue *y;

    memset(&q, 0, sizeof q);
    q.m = m;
    q.kind = !strcmp(op, "LSTM") ? K_LSTM : !strcmp(op, "GRU") ? K_GRU
                                                               : K_RNN;
    ng = q.kind == K_LSTM ? 4 : q.kind == K_GRU ? 3 : 1;
    q.x = ox_in(m, 0);
    q.w = ox_in(m, 1);
    q.r = ox_in(m, 2);
    q.bias = ox_in(m, 3);
    q.sl = ox_in(m, 4);
    q.h0 = ox_in(m, 5);
    q.c0 = q.kind == K_LSTM ? ox_in(m, 6) : NULL;
    q.p = q.kind == K_LSTM ? ox_in(m, 7) : NULL;
    q.layout = (int)ox_attr_i(m, "layout", 0);
    q.H = ox_attr_i(m, "hidden_size", 0);
    q.lbr = (int)ox_attr_i(m, "linear_before_reset", 0);
    q.clip = ox_attr_f(m, "clip", 0);
    q.ndir = 1;
    if ((a = ox_attr(m, "direction")) && a->has_s) {
        if (a->s.len == 7 && !memcmp(a->s.data, "reverse", 7))
            q.ndir = -1;        /* one direction, backwards */
        else if (a->s.len == 13 && !memcmp(a->s.data, "bidirectional", 13))
            q.ndir = 2;
        else if (!(a->s.len == 7 && !memcmp(a->s.data, "forward", 7))) {
            ox_unsupported(m, "unsupported attribute value direction='%.*s'",
                           (int)a->s.len, (const char *)a->s.data);
            return -1;
        }
    }
    if (ox_attr_i(m, "input_forget", 0)) {
        ox_unsupported(m, "unsupported attribute 'input_forget'");
        return -1;
    }
    int nd = q.ndir == 2 ? 2 : 1;
    if (!q.x || !q.w || !q.r || !dt_is_float(q.x->dt) || q.x->rank != 3 ||
        q.w->rank != 3 || q.r->rank != 3 || (q.layout != 0 && q.layout != 1)) {
        ox_unsupported(m, "needs float X, W and R of rank 3");
        return -1;
    }
    q.T_ = dt_name(q.x->dt);
    q.T = q.x->dims[q.layout ? 1 : 0];
    q.B = q.x->dims[q.layout ? 0 : 1];
    q.I = q.x->dims[2];
    if (q.H <= 0)
        q.H = q.r->dims[2];
    if (q.T < 1 || q.T > 64 || q.w->dims[0] != nd ||
        q.w->dims[1] != ng * q.H || q.w->dims[2] != q.I ||
        q.r->dims[0] != nd || q.r->dims[1] != ng * q.H ||
        q.r->dims[2] != q.H ||
        (q.bias && (q.bias->rank != 2 || q.bias->dims[0] != nd ||
                    q.bias->dims[1] != 2 * ng * q.H)) ||
        (q.p && (q.p->rank != 2 || q.p->dims[0] != nd ||
                 q.p->dims[1] != 3 * q.H))) {
        ox_unsupported(m, "the shapes of X, W, R, B, P do not fit (or the "
                       "sequence is longer than 64)");
        return -1;
    }
    /* The states are read at [direction, batch, i] (or [batch,
     * direction, i] in layout 1): another shape was indexed as that. */
    for (int i = 0; i < 2; i++) {
        const OxValue *st = i ? q.c0 : q.h0;
        int64_t want[3] = {q.layout ? q.B : nd, q.layout ? nd : q.B, q.H};
        if (st && (st->rank != 3 || st->dt != q.x->dt ||
                   memcmp(st->dims, want, sizeof want))) {
            ox_unsupported(m, "%s must have the shape %lld, %lld, %lld",
                           i ? "initial_c" : "initial_h", (long long)want[0],
                           (long long)want[1], (long long)want[2]);
            return -1;
        }
    }
    if ((q.w->dt != q.x->dt || q.r->dt != q.x->dt ||
         (q.bias && q.bias->dt != q.x->dt) || (q.p && q.p->dt != q.x->dt))) {
        ox_unsupported(m, "X, W, R, B and P must have one dtype");
        return -1;
    }
    if (q.sl) {
        int all = q.sl->cval != NULL;
        for (int64_t i = 0; all && i < q.B; i++)
            all = tl_tensor_get_i64(q.sl->cval, &i) == q.T;
        if (all)
            q.sl = NULL;        /* every sequence is whole */
        else if (q.ndir != 1 || dt_is_float(q.sl->dt) || q.sl->rank != 1 ||
                 q.sl->dims[0] != q.B) {
            ox_unsupported(m, "sequence_lens only on forward runs");
            return -1;
        }
    }
    for (int d = 0; d < nd; d++) {
        static const char *const dflt[3] = {"sigmoid", "tanh", "tanh"};
        for (int k = 0; k < 3; k++)
            q.act[d][k] = q.kind == K_RNN ? "tanh" : dflt[k];
    }
    if ((a = ox_attr(m, "activations"))) {
        int per = q.kind == K_LSTM ? 3 : q.kind == K_GRU ? 2 : 1;
        if ((int)a->n_strings != per * nd) {
            ox_unsupported(m, "attribute 'activations' has %zu entries",
                           a->n_strings);
            return -1;
        }
        for (int i = 0; i < per * nd; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "%.*s",
                     (int)(a->strings[i].len < 31 ? a->strings[i].len : 31),
                     (const char *)a->strings[i].data);
            if (!(q.act[i / per][i % per] = act_name(nm))) {
                ox_unsupported(m, "unsupported activation '%s'", nm);
                return -1;
            }
        }
    }
    ox_comment(m);
    for (int d = 0; d < nd; d++) {
        const char *nm = m->node->name && *m->node->name
                             ? m->node->name
                         : *m->node->output[0] || m->node->n_output < 2
                             ? m->node->output[0]
                             : m->node->output[1];
        snprintf(base[d], sizeof base[d], "%.80s%s", nm,
                 nd == 1 ? "" : d ? "_bw" : "_fw");
        if (direction(&q, d, base[d], hs[d], cs[d]) < 0)
            return -1;
        /* the final state: the last step taken */
        int64_t lt = (q.ndir == -1 || d == 1) ? 0 : q.T - 1;
        last[d][0] = hs[d][lt];
        last[d][1] = cs[d][lt];
    }
    /* Y: [T, D, B, H] (layout 1: [B, T, D, H]) */
    if (m->node->n_output > 0 && *m->node->output[0]) {
        if (q.layout) {
            dims[0] = q.B, dims[1] = q.T, dims[2] = nd, dims[3] = q.H;
        } else {
            dims[0] = q.T, dims[1] = nd, dims[2] = q.B, dims[3] = q.H;
        }
        if (!(y = ox_out(m, 0, q.x->dt, 4, dims)))
            return -1;
        ox_lhs(&m->body, y->id, 4);
        int at = q.layout ? 1 : 0, ad = q.layout ? 2 : 1;
        int ib = q.layout ? 0 : 2;
        for (int d = 0; d < nd; d++) {
            if (d < nd - 1)
                buf_printf(&m->body, "select(i%d == %d, ", ad, d);
            pick(&m->body, hs[d], (int)q.T, at, ib, 3, &q, 1);
            buf_puts(&m->body, d < nd - 1 ? ", " : "");
        }
        for (int d = 0; d < nd - 1; d++)
            buf_putc(&m->body, ')');
        buf_putc(&m->body, '\n');
    }
    /* Y_h, Y_c: [D, B, H] (layout 1: [B, D, H]) */
    for (int k = 0; k < (q.kind == K_LSTM ? 2 : 1); k++) {
        int o = 1 + k;
        char *fin[2] = {last[0][k], nd > 1 ? last[1][k] : NULL};
        if ((size_t)o >= m->node->n_output || !*m->node->output[o])
            continue;
        if (q.layout) {
            dims[0] = q.B, dims[1] = nd, dims[2] = q.H;
        } else {
            dims[0] = nd, dims[1] = q.B, dims[2] = q.H;
        }
        if (!(y = ox_out(m, o, q.x->dt, 3, dims)))
            return -1;
        ox_lhs(&m->body, y->id, 3);
        pick(&m->body, fin, nd, q.layout ? 1 : 0, q.layout ? 0 : 1, 2, &q,
             0);
        buf_putc(&m->body, '\n');
    }
    return 0;
}

static const OxOp ops[] = {
    {"RNN", op_rnn},
    {"GRU", op_rnn},
    {"LSTM", op_rnn},
};

OxOpFn ox_rnn_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
