/*
 * onnx_ops_elementwise.c - element-wise ONNX ops: unary math and
 * activations, binary arithmetic and comparisons with numpy
 * broadcasting, logic, Where, Cast, Clip, Identity.  Each becomes one
 * stage over the output's shape, written from a template in which $0,
 * $1, $2 stand for the inputs read at the output index (broadcast), $T
 * for the dtype of input 0 and $a, $b for attribute literals.
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

/* Writes the stage `out[i..] = TEMPLATE` for inputs in[0..n). */
static int emit_tpl(OxModel *m, const char *tpl, OxValue **in, int n,
                    TlDType odt, const char *a, const char *b)
{
    int rank = in[0]->rank;
    int64_t dims[TL_MAX_RANK];
    OxValue *out;
    TlBuf *s = &m->body;

    memcpy(dims, in[0]->dims, sizeof dims);
    for (int i = 1; i < n; i++) {
        OxValue acc = *in[0];
        acc.rank = rank;
        memcpy(acc.dims, dims, sizeof dims);
        if (ox_broadcast(m, &acc, in[i], &rank, dims) < 0)
            return -1;
    }
    if (!(out = ox_out(m, 0, odt, rank, dims)))
        return -1;
    ox_comment(m);
    ox_lhs(s, out->id, rank);
    for (const char *c = tpl; *c; c++) {
        if (*c != '$') {
            buf_putc(s, *c);
            continue;
        }
        c++;
        if (*c >= '0' && *c <= '9') {
            TL_ASSERT(*c - '0' < n);
            ox_read_bcast(s, in[*c - '0'], rank, dims);
        } else if (*c == 'T') {
            buf_puts(s, dt_name(in[0]->dt));
        } else if (*c == 'O') {
            buf_puts(s, dt_name(odt));
        } else if (*c == 'a') {
            buf_puts(s, a);
        } else {
            TL_ASSERT(*c == 'b');
            buf_puts(s, b);
        }
    }
    buf_putc(s, '\n');
    return 0;
}

static void lit(char *out, size_t n, double x)
{
    TlBuf b;
    buf_init(&b);
    ox_float_lit(&b, x);
    snprintf(out, n, "%s", b.s);
    buf_free(&b);
}

static const struct Unary {
    const char *op;
    const char *tpl;
    int float_only;
} unary[] = {
    {"Identity", "$0", 0},
    {"Neg", "-$0", 0},
    {"Abs", "abs($0)", 0},
    {"Exp", "exp($0)", 1},
    {"Log", "log($0)", 1},
    {"Sqrt", "sqrt($0)", 1},
    {"Floor", "floor($0)", 1},
    {"Ceil", "ceil($0)", 1},
    {"Round", "round($0)", 1},
    {"Sin", "sin($0)", 1},
    {"Cos", "cos($0)", 1},
    {"Tan", "tan($0)", 1},
    {"Tanh", "tanh($0)", 1},
    {"Sigmoid", "sigmoid($0)", 1},
    {"Erf", "erf($0)", 1},
    {"Sinh", "sinh($0)", 1},
    {"Cosh", "cosh($0)", 1},
    {"Asinh", "asinh($0)", 1},
    {"Asin", "asin($0)", 1},
    {"Acos", "acos($0)", 1},
    {"Atan", "atan($0)", 1},
    {"Acosh", "acosh($0)", 1},
    {"Atanh", "atanh($0)", 1},
    {"Reciprocal", "$T(1) / $0", 1},
    {"Sign", "select($0 > $T(0), $T(1), select($0 < $T(0), $T(-1), $T(0)))",
     0},
    {"Relu", "max($0, $T(0))", 0},
    {"Softplus", "log(exp($0) + $T(1))", 1},
    {"Softsign", "$0 / ($T(1) + abs($0))", 1},
    {"HardSwish",
     "$0 * max($T(0), min($T(1), $0 / $T(6) + $T(0.5)))", 1},
    {"Not", "!$0", 0},
    {"IsNaN", "$0 != $0", 1},
};

static int op_unary(OxModel *m)
{
    OxValue *x = ox_in(m, 0);
    const char *op = m->node->op_type;
    char a[64], b[64];
    TlDType odt;

    if (!x) {
        ox_unsupported(m, "input 0 is missing");
        return -1;
    }
    odt = x->dt;
    if (!strcmp(op, "IsNaN"))
        odt = DT_BOOL;
    if (!strcmp(op, "IsInf")) {
        int pos = (int)ox_attr_i(m, "detect_positive", 1);
        int neg = (int)ox_attr_i(m, "detect_negative", 1);
        if (!dt_is_float(x->dt)) {
            ox_unsupported(m, "needs a float input");
            return -1;
        }
        lit(a, sizeof a, x->dt == DT_F64 ? 1.7976931348623157e308
                         : x->dt == DT_F32 ? 3.4028234663852886e38
                         : x->dt == DT_F16 ? 65504.0 : 3.3895313892515355e38);
        return emit_tpl(m, pos && neg ? "abs($0) > $T($a)"
                        : pos ? "$0 > $T($a)"
                        : neg ? "$0 < -$T($a)" : "$0 != $0 && $0 == $0",
                        &x, 1, DT_BOOL, a, "");
    }
    if (!strcmp(op, "LeakyRelu")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 0.01));
        return emit_tpl(m, "select($0 < $T(0), $0 * $T($a), $0)", &x, 1,
                        odt, a, "");
    }
    if (!strcmp(op, "Elu")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 1.0));
        return emit_tpl(m, "select($0 < $T(0), $T($a) * (exp($0) - $T(1)), "
                        "$0)", &x, 1, odt, a, "");
    }
    if (!strcmp(op, "Celu")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 1.0));
        return emit_tpl(m, "max($T(0), $0) + min($T(0), $T($a) * "
                        "(exp($0 / $T($a)) - $T(1)))", &x, 1, odt, a, "");
    }
    if (!strcmp(op, "Selu")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 1.67326319217681884765625));
        lit(b, sizeof b, ox_attr_f(m, "gamma", 1.05070102214813232421875));
        return emit_tpl(m, "select($0 <= $T(0), $T($b) * ($T($a) * exp($0) "
                        "- $T($a)), $T($b) * $0)", &x, 1, odt, a, b);
    }
    if (!strcmp(op, "HardSigmoid")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 0.2));
        lit(b, sizeof b, ox_attr_f(m, "beta", 0.5));
        return emit_tpl(m, "max($T(0), min($T(1), $T($a) * $0 + $T($b)))",
                        &x, 1, odt, a, b);
    }
    if (!strcmp(op, "ThresholdedRelu")) {
        lit(a, sizeof a, ox_attr_f(m, "alpha", 1.0));
        return emit_tpl(m, "select($0 > $T($a), $0, $T(0))", &x, 1, odt, a,
                        "");
    }
    if (!strcmp(op, "Shrink")) {
        lit(a, sizeof a, ox_attr_f(m, "lambd", 0.5));
        lit(b, sizeof b, ox_attr_f(m, "bias", 0.0));
        return emit_tpl(m, "select($0 < -$T($a), $0 + $T($b), select($0 > "
                        "$T($a), $0 - $T($b), $T(0)))", &x, 1, odt, a, b);
    }
    for (size_t i = 0; i < sizeof unary / sizeof *unary; i++) {
        if (strcmp(unary[i].op, op))
            continue;
        if (unary[i].float_only && !dt_is_float(x->dt)) {
            ox_unsupported(m, "%s inputs are not supported",
                           dt_name(x->dt));
            return -1;
        }
        return emit_tpl(m, unary[i].tpl, &x, 1, odt, "", "");
    }
    TL_ASSERT(0);
    return -1;
}

static const struct Binary {
    const char *op;
    const char *tpl;
    int to_bool;
} binary[] = {
    {"Add", "$0 + $1", 0},
    {"Sub", "$0 - $1", 0},
    {"Mul", "$0 * $1", 0},
    {"Equal", "$0 == $1", 1},
    {"Less", "$0 < $1", 1},
    {"Greater", "$0 > $1", 1},
    {"LessOrEqual", "$0 <= $1", 1},
    {"GreaterOrEqual", "$0 >= $1", 1},
    {"And", "$0 && $1", 1},
    {"Or", "$0 || $1", 1},
    {"Xor", "$0 != $1", 1},
    {"PRelu", "select($0 < $T(0), $0 * $1, $0)", 0},
};

static int op_binary(OxModel *m)
{
    OxValue *in[2] = {ox_in(m, 0), ox_in(m, 1)};
    const char *op = m->node->op_type;

    if (!in[0] || !in[1]) {
        ox_unsupported(m, "an input is missing");
        return -1;
    }
    /* Before opset 7, broadcast = 1 let B match a run of A's axes
     * starting at `axis`; numpy broadcasting is the same when that run
     * ends at A's last axis (the default). */
    if (ox_attr_i(m, "broadcast", 0) &&
        ox_attr_i(m, "axis", in[0]->rank - in[1]->rank) !=
            in[0]->rank - in[1]->rank) {
        ox_unsupported(m, "legacy broadcast along 'axis' is not "
                       "supported");
        return -1;
    }
    /* Before opset 7, a 1-D slope applies along the channel axis. */
    if (!strcmp(op, "PRelu") && m->opset < 7 && in[1]->rank == 1 &&
        in[0]->rank >= 2 && in[1]->dims[0] == in[0]->dims[1] &&
        in[0]->dims[1] != in[0]->dims[in[0]->rank - 1]) {
        OxValue *x = in[0], *y;
        TlBuf *b = &m->body;
        if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
            return -1;
        ox_comment(m);
        ox_lhs(b, y->id, x->rank);
        buf_puts(b, "select(");
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_printf(b, " < %s(0), ", dt_name(x->dt));
        ox_read_bcast(b, x, x->rank, x->dims);
        in[1]->used = 1;
        buf_printf(b, " * %s[i1], ", in[1]->id);
        ox_read_bcast(b, x, x->rank, x->dims);
        buf_puts(b, ")\n");
        return 0;
    }
    if (!strcmp(op, "Div"))
        return emit_tpl(m, dt_is_float(in[0]->dt) ? "$0 / $1"
                        : "select($0 % $1 != $T(0) && (($0 < $T(0)) != "
                          "($1 < $T(0))), $0 / $1 + $T(1), $0 / $1)",
                        in, 2, in[0]->dt, "", "");
    if (!strcmp(op, "Pow"))
        return emit_tpl(m, dt_is_float(in[0]->dt) && in[0]->dt == in[1]->dt
                        ? "pow($0, $1)" : "$T(pow(f64($0), f64($1)))",
                        in, 2, in[0]->dt, "", "");
    /* A shift of an unsigned integer is a product with (or a quotient
     * by) a power of two, wrapping in its dtype (2^s is exact in f64
     * and fits the dtype for s below its width); shifted by the width
     * or more, nothing is left. */
    if (!strcmp(op, "BitShift")) {
        const Onnx__AttributeProto *d = ox_attr(m, "direction");
        int left = d && d->has_s && d->s.len == 4 &&
                   !memcmp(d->s.data, "LEFT", 4);
        char tpl[160];
        if (!d || !d->has_s || (!left && (d->s.len != 5 ||
                                          memcmp(d->s.data, "RIGHT", 5)))) {
            ox_unsupported(m, "direction must be \"LEFT\" or \"RIGHT\"");
            return -1;
        }
        if (!dt_is_unsigned(in[0]->dt) || in[1]->dt != in[0]->dt) {
            ox_unsupported(m, "BitShift of %s values is not supported",
                           dt_name(in[0]->dt));
            return -1;
        }
        snprintf(tpl, sizeof tpl, "select($1 >= $T(%d), $T(0), $0 %c "
                 "$T(pow(f64(2), f64($1))))", 8 * dt_size(in[0]->dt),
                 left ? '*' : '/');
        return emit_tpl(m, tpl, in, 2, in[0]->dt, "", "");
    }
    if (!strcmp(op, "Mod"))
        return emit_tpl(m, ox_attr_i(m, "fmod", 0)
                        ? "select($0 % $1 != $T(0) && (($0 < $T(0)) != "
                          "($1 < $T(0))), $0 % $1 - $1, $0 % $1)"
                        : "$0 % $1", in, 2, in[0]->dt, "", "");
    for (size_t i = 0; i < sizeof binary / sizeof *binary; i++)
        if (!strcmp(binary[i].op, op))
            return emit_tpl(m, binary[i].tpl, in, 2,
                            binary[i].to_bool ? DT_BOOL : in[0]->dt, "",
                            "");
    TL_ASSERT(0);
    return -1;
}

/* Sum, Mean, Max, Min over any number of inputs. */
static int op_variadic(OxModel *m)
{
    const char *op = m->node->op_type;
    OxValue *in[10];
    int n = (int)m->node->n_input;
    TlBuf t;
    char cnt[32];
    int rc;

    if (n < 1 || n > 10) {
        ox_unsupported(m, "%d inputs (1 to 10 are supported)", n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!(in[i] = ox_in(m, i))) {
            ox_unsupported(m, "input %d is missing", i);
            return -1;
        }
    buf_init(&t);
    if (!strcmp(op, "Max") || !strcmp(op, "Min")) {
        for (int i = 1; i < n; i++)
            buf_puts(&t, !strcmp(op, "Max") ? "max(" : "min(");
        buf_puts(&t, "$0");
        for (int i = 1; i < n; i++)
            buf_printf(&t, ", $%d)", i);
    } else {
        if (!strcmp(op, "Mean") && n > 1)
            buf_putc(&t, '(');
        for (int i = 0; i < n; i++)
            buf_printf(&t, "%s$%d", i ? " + " : "", i);
        if (!strcmp(op, "Mean") && n > 1)
            buf_printf(&t, ") / $T(%d)", n);
    }
    snprintf(cnt, sizeof cnt, "%d", n);
    rc = emit_tpl(m, t.s, in, n, in[0]->dt, cnt, "");
    buf_free(&t);
    return rc;
}

static int op_where(OxModel *m)
{
    OxValue *in[3] = {ox_in(m, 0), ox_in(m, 1), ox_in(m, 2)};
    if (!in[0] || !in[1] || !in[2]) {
        ox_unsupported(m, "an input is missing");
        return -1;
    }
    return emit_tpl(m, "select($0, $1, $2)", in, 3, in[1]->dt, "", "");
}

static int op_cast(OxModel *m)
{
    OxValue *x = ox_in(m, 0);
    TlDType to;
    const Onnx__AttributeProto *a = ox_attr(m, "to");

    if (!strcmp(m->node->op_type, "CastLike")) {
        OxValue *like = ox_in(m, 1);
        if (!x || !like) {
            ox_unsupported(m, "needs two inputs");
            return -1;
        }
        if (like->dt == DT_BOOL && x->dt != DT_STR)
            return emit_tpl(m, x->dt == DT_BOOL ? "$0" : "$0 != $T(0)", &x,
                            1, DT_BOOL, "", "");
        return emit_tpl(m, "$O($0)", &x, 1, like->dt, "", "");
    }
    if (!x || !a || !a->has_i) {
        ox_unsupported(m, "needs an input and attribute 'to'");
        return -1;
    }
    if ((to = ox_dtype((int32_t)a->i)) == DT_NONE) {
        ox_unsupported(m, "cast to ONNX data type %lld is not supported",
                       (long long)a->i);
        return -1;
    }
    /* str -> bool is bool(s), true when not empty (SPEC 8.6). */
    if (to == DT_BOOL && x->dt != DT_STR)
        return emit_tpl(m, x->dt == DT_BOOL ? "$0" : "$0 != $T(0)", &x, 1,
                        to, "", "");
    return emit_tpl(m, "$O($0)", &x, 1, to, "", "");
}

/* Clip: bounds as attributes before opset 11, as optional inputs
 * after. */
static int op_clip(OxModel *m)
{
    OxValue *in[3] = {ox_in(m, 0), NULL, NULL};
    char a[64], b[64];
    int n = 1;

    if (!in[0]) {
        ox_unsupported(m, "input 0 is missing");
        return -1;
    }
    if (m->opset < 11) {
        lit(a, sizeof a, ox_attr_f(m, "min", -3.4028234663852886e38));
        lit(b, sizeof b, ox_attr_f(m, "max", 3.4028234663852886e38));
        return emit_tpl(m, "min(max($0, $T($a)), $T($b))", in, 1,
                        in[0]->dt, a, b);
    }
    OxValue *lo = ox_in(m, 1), *hi = ox_in(m, 2);
    const char *tpl = "$0";
    if (lo && hi) {
        in[n++] = lo;
        in[n++] = hi;
        tpl = "min(max($0, $1), $2)";
    } else if (lo) {
        in[n++] = lo;
        tpl = "max($0, $1)";
    } else if (hi) {
        in[n++] = hi;
        tpl = "min($0, $1)";
    }
    for (int i = 1; i < n; i++)
        if (in[i]->rank != 0) {
            ox_unsupported(m, "clip bounds must be scalars");
            return -1;
        }
    return emit_tpl(m, tpl, in, n, in[0]->dt, "", "");
}

OxOpFn ox_elementwise_op(const char *name)
{
    static const char *const unary_attr[] = {
        "IsInf", "LeakyRelu", "Elu", "Celu", "Selu", "HardSigmoid",
        "ThresholdedRelu", "Shrink"};
    for (size_t i = 0; i < sizeof unary / sizeof *unary; i++)
        if (!strcmp(unary[i].op, name))
            return op_unary;
    for (size_t i = 0; i < sizeof unary_attr / sizeof *unary_attr; i++)
        if (!strcmp(unary_attr[i], name))
            return op_unary;
    for (size_t i = 0; i < sizeof binary / sizeof *binary; i++)
        if (!strcmp(binary[i].op, name))
            return op_binary;
    if (!strcmp(name, "Div") || !strcmp(name, "Pow") ||
        !strcmp(name, "Mod") || !strcmp(name, "BitShift"))
        return op_binary;
    if (!strcmp(name, "Sum") || !strcmp(name, "Mean") ||
        !strcmp(name, "Max") || !strcmp(name, "Min"))
        return op_variadic;
    if (!strcmp(name, "Where"))
        return op_where;
    if (!strcmp(name, "Cast") || !strcmp(name, "CastLike"))
        return op_cast;
    if (!strcmp(name, "Clip"))
        return op_clip;
    return NULL;
}
