/*
 * onnx_ops_quant.c - the quantized ops of the default domain:
 * QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (uint8 and
 * int8, per tensor and, from opset 13, per axis), MatMulInteger and
 * ConvInteger (zero points subtracted and products summed in i32),
 * QLinearMatMul and QLinearConv (the same i32 sum, then requantized).
 *
 * Each is written with the language's own conversions: `round` ties
 * to even, and a cast of a float to an integer dtype saturates to its
 * range (SPEC 8.4), so ONNX's saturate(round(v) + zero_point) is
 * `u8(round(v) + f32(zero_point))` with nothing added.  A requantized
 * sum is multiplied by the combined scale a_scale * b_scale / y_scale
 * in the scales' dtype, as ONNX Runtime does.  The geometry of the
 * products is MatMul's (ox_matmul_geometry) and Conv's
 * (ox_conv_geometry).
 */
#include "parser/onnx/onnx_int.h"

#include <stdio.h>
#include <string.h>

static char *fresh(OxModel *m, const char *base, const char *suffix)
{
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%.100s_%s", base, suffix);
    return ox_ident(m, tmp);
}

/* The index of quantization parameter p (a scale or a zero point) in a
 * stage over an output of extents dims: none for a scalar, 0 for one
 * element, output axis `axis` for a 1-D p with one entry along it (a
 * per-axis, per-row or per-channel parameter); -1 after a message for
 * any other shape.  `what` names the axis for the message. */
static int param_index(OxModel *m, OxValue *p, int axis, const int64_t *dims,
                       const char *what, OxIdx *idx)
{
    if (p->rank == 0)
        return 0;
    if (p->rank == 1 && p->dims[0] == 1) {
        strcpy(idx[0], "0");
        return 0;
    }
    if (p->rank == 1 && axis >= 0 && p->dims[0] == dims[axis]) {
        snprintf(idx[0], sizeof idx[0], "i%d", axis);
        return 0;
    }
    ox_unsupported(m, "'%s' must be a scalar%s%s", p->name,
                   what ? " or have one entry per " : "", what ? what : "");
    return -1;
}

/* A scale is a float. */
static int scale_ok(OxModel *m, OxValue *s)
{
    if (dt_is_float(s->dt))
        return 0;
    ox_unsupported(m, "scale '%s' must be a float", s->name);
    return -1;
}

/* A quantized tensor or zero point is 8-bit (DequantizeLinear also
 * takes int32, checked there). */
static int int8_ok(OxModel *m, OxValue *v)
{
    if (v->dt == DT_U8 || v->dt == DT_I8)
        return 0;
    ox_unsupported(m, "'%s' must be uint8 or int8, not %s", v->name,
                   dt_name(v->dt));
    return -1;
}

/* Appends "i32(v[idx]) - i32(zp[zidx])", in parentheses when `paren`,
 * or "i32(v[idx])" without a zero point. */
static void put_centered(TlBuf *b, OxValue *v, OxIdx *idx, OxValue *zp,
                         OxIdx *zidx, int paren)
{
    paren = paren && zp;
    buf_puts(b, paren ? "(i32(" : "i32(");
    ox_read(b, v, idx);
    buf_putc(b, ')');
    if (zp) {
        buf_puts(b, " - i32(");
        ox_read(b, zp, zidx);
        buf_putc(b, ')');
    }
    if (paren)
        buf_putc(b, ')');
}

/* The axis of per-axis parameters: attribute `axis` from opset 13
 * (default 1), none before. */
static int quant_axis(OxModel *m, const OxValue *x, const OxValue *s)
{
    int64_t a;

    if (m->opset < 13)
        return -1;
    a = ox_attr_i(m, "axis", 1);
    if (s->rank == 0 || (s->rank == 1 && s->dims[0] == 1))
        return -1;
    if (a < -x->rank || a >= x->rank) {
        ox_unsupported(m, "axis %lld is out of range for rank %d",
                       (long long)a, x->rank);
        return -2;
    }
    return (int)(a < 0 ? a + x->rank : a);
}

/* What a per-axis parameter has one entry per (none before opset
 * 13). */
#define AXIS(m) ((m)->opset >= 13 ? "element along 'axis'" : NULL)

/* QuantizeLinear: y = saturate(round(x / y_scale) + y_zero_point), in
 * the zero point's dtype (uint8 without one). */
static int op_quantize(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *s = ox_need_in(m, 1), *z = ox_in(m, 2);
    OxValue *y;
    OxIdx ix[TL_MAX_RANK], is[1], iz[1];
    TlDType odt;
    TlBuf *b = &m->body;
    int axis;

    if (!x || !s || scale_ok(m, s) < 0 || (z && int8_ok(m, z) < 0))
        return -1;
    if ((axis = quant_axis(m, x, s)) < -1 ||
        param_index(m, s, axis, x->dims, AXIS(m), is) < 0 ||
        (z && param_index(m, z, axis, x->dims, AXIS(m), iz) < 0))
        return -1;
    odt = z ? z->dt : DT_U8;
    if (!(y = ox_out(m, 0, odt, x->rank, x->dims)))
        return -1;
    for (int i = 0; i < x->rank; i++)
        snprintf(ix[i], sizeof ix[0], "i%d", i);
    ox_comment(m);
    ox_lhs(b, y->id, x->rank);
    buf_printf(b, "%s(round(", dt_name(odt));
    if (x->dt != s->dt)
        buf_printf(b, "%s(", dt_name(s->dt));
    ox_read(b, x, ix);
    if (x->dt != s->dt)
        buf_putc(b, ')');
    buf_puts(b, " / ");
    ox_read(b, s, is);
    buf_putc(b, ')');
    if (z) {
        buf_printf(b, " + %s(", dt_name(s->dt));
        ox_read(b, z, iz);
        buf_putc(b, ')');
    }
    buf_puts(b, ")\n");
    return 0;
}

/* DequantizeLinear: y = (x - x_zero_point) * x_scale, in the scale's
 * dtype. */
static int op_dequantize(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *s = ox_need_in(m, 1), *z = ox_in(m, 2);
    OxValue *y;
    OxIdx ix[TL_MAX_RANK], is[1], iz[1];
    const char *S;
    TlBuf *b = &m->body;
    int axis;

    if (!x || !s || scale_ok(m, s) < 0)
        return -1;
    if (x->dt != DT_I32 && int8_ok(m, x) < 0)
        return -1;
    if (z && z->dt != x->dt) {
        ox_unsupported(m, "the zero point's dtype is not the input's");
        return -1;
    }
    if ((axis = quant_axis(m, x, s)) < -1 ||
        param_index(m, s, axis, x->dims, AXIS(m), is) < 0 ||
        (z && param_index(m, z, axis, x->dims, AXIS(m), iz) < 0))
        return -1;
    if (!(y = ox_out(m, 0, s->dt, x->rank, x->dims)))
        return -1;
    S = dt_name(s->dt);
    for (int i = 0; i < x->rank; i++)
        snprintf(ix[i], sizeof ix[0], "i%d", i);
    ox_comment(m);
    ox_lhs(b, y->id, x->rank);
    buf_printf(b, z ? "(%s(" : "%s(", S);
    ox_read(b, x, ix);
    if (z) {
        buf_printf(b, ") - %s(", S);
        ox_read(b, z, iz);
        buf_putc(b, ')');
    }
    buf_puts(b, ") * ");
    ox_read(b, s, is);
    buf_putc(b, '\n');
    return 0;
}

/* "OP(r0 in 0..D0, ...) x[r0, ...]" over every axis of x, or "x[]". */
static void put_reduce_all(TlBuf *b, const char *op, OxValue *x)
{
    OxIdx idx[TL_MAX_RANK];

    if (x->rank) {
        buf_printf(b, "%s(", op);
        for (int i = 0; i < x->rank; i++)
            buf_printf(b, "%sr%d in 0..%lld", i ? ", " : "", i,
                       (long long)x->dims[i]);
        buf_puts(b, ") ");
    }
    for (int i = 0; i < x->rank; i++)
        snprintf(idx[i], sizeof idx[0], "r%d", i);
    ox_read(b, x, idx);
}

/* DynamicQuantizeLinear (uint8), as ONNX's function body defines it:
 * the range of x widened to hold 0, scale = range / 255, zero point =
 * saturate(round(-min / scale)), then QuantizeLinear. */
static int op_dynamic_quantize(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y, *s, *z;
    OxIdx ix[TL_MAX_RANK];
    const char *T, *lo, *hi;
    TlBuf *b = &m->body;

    if (!x)
        return -1;
    if (x->dt != DT_F32) {
        ox_unsupported(m, "needs a float input");
        return -1;
    }
    if (!(y = ox_out(m, 0, DT_U8, x->rank, x->dims)) ||
        !(s = ox_out(m, 1, x->dt, 0, NULL)) ||
        !(z = ox_out(m, 2, DT_U8, 0, NULL)))
        return -1;
    T = dt_name(x->dt);
    lo = fresh(m, y->name, "min");
    hi = fresh(m, y->name, "max");
    for (int i = 0; i < x->rank; i++)
        snprintf(ix[i], sizeof ix[0], "i%d", i);
    ox_comment(m);
    buf_printf(b, "    %s[] = min(", lo);
    put_reduce_all(b, "min", x);
    buf_printf(b, ", %s(0))\n    %s[] = max(", T, hi);
    put_reduce_all(b, "max", x);
    buf_printf(b, ", %s(0))\n", T);
    ox_lhs(b, s->id, 0);
    buf_printf(b, "(%s[] - %s[]) / %s(255)\n", hi, lo, T);
    ox_lhs(b, z->id, 0);
    buf_printf(b, "u8(round(-%s[] / %s[]))\n", lo, s->id);
    ox_lhs(b, y->id, x->rank);
    buf_puts(b, "u8(round(");
    ox_read(b, x, ix);
    buf_printf(b, " / %s[]) + %s(%s[]))\n", s->id, T, z->id);
    s->used = z->used = 1;
    return 0;
}

/* The product of MatMulInteger or QLinearMatMul: the stage `id` over
 * g's output, the i32 sum of (a - a_zero_point) * (b - b_zero_point);
 * a's parameters per row, b's per column. */
static int emit_int_matmul(OxModel *m, const char *id, OxValue *a,
                           OxValue *za, OxValue *bv, OxValue *zb,
                           OxMatMul *g)
{
    OxIdx iza[1], izb[1];
    TlBuf *b = &m->body;

    if ((za && param_index(m, za, g->row, g->dims, "row of A", iza) < 0) ||
        (zb && param_index(m, zb, g->col, g->dims, "column of B", izb) < 0))
        return -1;
    ox_lhs(b, id, g->rank);
    buf_printf(b, "sum(r0 in 0..%lld) ", (long long)g->k);
    put_centered(b, a, g->ia, za, iza, 1);
    buf_puts(b, " * ");
    put_centered(b, bv, g->ib, zb, izb, 1);
    buf_putc(b, '\n');
    return 0;
}

/* MatMulInteger: the i32 product of a and b less their zero points. */
static int op_matmul_integer(OxModel *m)
{
    OxValue *a = ox_need_in(m, 0), *bv = ox_need_in(m, 1);
    OxValue *za = ox_in(m, 2), *zb = ox_in(m, 3), *y;
    OxMatMul g;

    if (!a || !bv || int8_ok(m, a) < 0 || int8_ok(m, bv) < 0 ||
        (za && int8_ok(m, za) < 0) || (zb && int8_ok(m, zb) < 0) ||
        ox_matmul_geometry(m, a, bv, &g) < 0)
        return -1;
    if (!(y = ox_out(m, 0, DT_I32, g.rank, g.dims)))
        return -1;
    ox_comment(m);
    return emit_int_matmul(m, y->id, a, za, bv, zb, &g);
}

/* The requantization of i32 sum `acc` into y (a stage over y's shape):
 * saturate(round(acc * (sa * sb / sy)) + zy), the scales read at
 * isa, isb (sy and zy per tensor). */
static int emit_requantize(OxModel *m, OxValue *y, const char *acc,
                           OxValue *sa, OxIdx *isa, OxValue *sb, OxIdx *isb,
                           OxValue *sy, OxValue *zy)
{
    OxIdx isy[1], izy[1];
    TlBuf *b = &m->body;
    const char *S = dt_name(sa->dt);

    if (sb->dt != sa->dt || sy->dt != sa->dt) {
        ox_unsupported(m, "the scales' dtypes differ");
        return -1;
    }
    if (param_index(m, sy, -1, y->dims, NULL, isy) < 0 ||
        (zy && param_index(m, zy, -1, y->dims, NULL, izy) < 0))
        return -1;
    ox_lhs(b, y->id, y->rank);
    buf_printf(b, "%s(round(%s(%s[", dt_name(y->dt), S, acc);
    for (int i = 0; i < y->rank; i++)
        buf_printf(b, "%si%d", i ? ", " : "", i);
    buf_puts(b, "]) * (");
    ox_read(b, sa, isa);
    buf_puts(b, " * ");
    ox_read(b, sb, isb);
    buf_puts(b, " / ");
    ox_read(b, sy, isy);
    buf_puts(b, "))");
    if (zy) {
        buf_printf(b, " + %s(", S);
        ox_read(b, zy, izy);
        buf_putc(b, ')');
    }
    buf_puts(b, ")\n");
    return 0;
}

/* QLinearMatMul: MatMulInteger's sum, requantized into y's scale and
 * zero point (whose dtype y has). */
static int op_qlinear_matmul(OxModel *m)
{
    OxValue *a = ox_need_in(m, 0), *sa = ox_need_in(m, 1), *za = ox_in(m, 2);
    OxValue *bv = ox_need_in(m, 3), *sb = ox_need_in(m, 4), *zb = ox_in(m, 5);
    OxValue *sy = ox_need_in(m, 6), *zy = ox_in(m, 7), *y;
    OxIdx isa[1], isb[1];
    OxMatMul g;
    const char *acc;

    if (!a || !sa || !bv || !sb || !sy || int8_ok(m, a) < 0 ||
        int8_ok(m, bv) < 0 || (za && int8_ok(m, za) < 0) ||
        (zb && int8_ok(m, zb) < 0) || (zy && int8_ok(m, zy) < 0) ||
        scale_ok(m, sa) < 0 || scale_ok(m, sb) < 0 || scale_ok(m, sy) < 0 ||
        ox_matmul_geometry(m, a, bv, &g) < 0)
        return -1;
    if (param_index(m, sa, g.row, g.dims, "row of A", isa) < 0 ||
        param_index(m, sb, g.col, g.dims, "column of B", isb) < 0)
        return -1;
    if (!(y = ox_out(m, 0, zy ? zy->dt : DT_U8, g.rank, g.dims)))
        return -1;
    acc = fresh(m, y->name, "acc");
    ox_comment(m);
    if (emit_int_matmul(m, acc, a, za, bv, zb, &g) < 0)
        return -1;
    return emit_requantize(m, y, acc, sa, isa, sb, isb, sy, zy);
}

/* The sum of ConvInteger or QLinearConv: the stage `id` over g's
 * output, bias[i1] (when given) plus the i32 sum of (x - x_zero_point)
 * * (w - w_zero_point), w's zero point per output channel.  A padded
 * input has its zero point taken off first, in a stage named after
 * output y, so that the padding reads 0 from it as it does from the
 * input ONNX pads with the zero point. */
static int emit_int_conv(OxModel *m, const OxValue *y, const char *id,
                         OxValue *x,
                         OxValue *zx, OxValue *w, OxValue *zw,
                         OxValue *bias, OxConv *g)
{
    OxIdx izx[1], izw[1], ib[1] = {"i1"};
    TlBuf *b = &m->body;

    if ((zx && param_index(m, zx, -1, g->dims, NULL, izx) < 0) ||
        (zw && param_index(m, zw, 1, g->dims, "output channel", izw) < 0))
        return -1;
    if (bias && (bias->dt != DT_I32 || bias->rank != 1 ||
                 bias->dims[0] != g->dims[1])) {
        ox_unsupported(m, "the bias must be i32 with one entry per output "
                       "channel");
        return -1;
    }
    if (g->pad) {
        OxIdx ix[TL_MAX_RANK];
        char tmp[200];
        OxValue *xc;
        snprintf(tmp, sizeof tmp, "%.100s_input", y->name);
        xc = ox_add(m, tmp, OX_NODE, DT_I32, x->rank, x->dims);
        for (int i = 0; i < x->rank; i++)
            snprintf(ix[i], sizeof ix[0], "i%d", i);
        ox_lhs(b, xc->id, x->rank);
        put_centered(b, x, ix, zx, izx, 0);
        buf_putc(b, '\n');
        x = xc;
        zx = NULL;
    }
    ox_lhs(b, id, g->rank);
    if (bias) {
        ox_read(b, bias, ib);
        buf_puts(b, " + ");
    }
    buf_printf(b, "sum(%s) ", g->range);
    if (g->pad)
        ox_read_bounded(m, b, x, "zero_pad", g->ix);
    else
        put_centered(b, x, g->ix, zx, izx, 1);
    buf_puts(b, " * ");
    put_centered(b, w, g->iw, zw, izw, 1);
    buf_putc(b, '\n');
    return 0;
}

/* ConvInteger: the i32 convolution of x and w less their zero
 * points. */
static int op_conv_integer(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *w = ox_need_in(m, 1);
    OxValue *zx = ox_in(m, 2), *zw = ox_in(m, 3), *y;
    OxConv g;

    if (!x || !w || int8_ok(m, x) < 0 || int8_ok(m, w) < 0 ||
        (zx && int8_ok(m, zx) < 0) || (zw && int8_ok(m, zw) < 0) ||
        ox_conv_geometry(m, x, w, &g) < 0)
        return -1;
    if (!(y = ox_out(m, 0, DT_I32, g.rank, g.dims)))
        return -1;
    ox_comment(m);
    return emit_int_conv(m, y, y->id, x, zx, w, zw, NULL, &g);
}

/* QLinearConv: ConvInteger's sum plus the i32 bias, requantized into
 * y's scale and zero point; w's scale per output channel. */
static int op_qlinear_conv(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *sx = ox_need_in(m, 1), *zx = ox_in(m, 2);
    OxValue *w = ox_need_in(m, 3), *sw = ox_need_in(m, 4), *zw = ox_in(m, 5);
    OxValue *sy = ox_need_in(m, 6), *zy = ox_in(m, 7), *bias = ox_in(m, 8);
    OxValue *y;
    OxIdx isx[1], isw[1];
    OxConv g;
    const char *acc;

    if (!x || !sx || !w || !sw || !sy || int8_ok(m, x) < 0 ||
        int8_ok(m, w) < 0 || (zx && int8_ok(m, zx) < 0) ||
        (zw && int8_ok(m, zw) < 0) || (zy && int8_ok(m, zy) < 0) ||
        scale_ok(m, sx) < 0 || scale_ok(m, sw) < 0 || scale_ok(m, sy) < 0 ||
        ox_conv_geometry(m, x, w, &g) < 0)
        return -1;
    if (param_index(m, sx, -1, g.dims, NULL, isx) < 0 ||
        param_index(m, sw, 1, g.dims, "output channel", isw) < 0)
        return -1;
    if (!(y = ox_out(m, 0, zy ? zy->dt : DT_U8, g.rank, g.dims)))
        return -1;
    acc = fresh(m, y->name, "acc");
    ox_comment(m);
    if (emit_int_conv(m, y, acc, x, zx, w, zw, bias, &g) < 0)
        return -1;
    return emit_requantize(m, y, acc, sx, isx, sw, isw, sy, zy);
}

static const OxOp ops[] = {
    {"QuantizeLinear", op_quantize},
    {"DequantizeLinear", op_dequantize},
    {"DynamicQuantizeLinear", op_dynamic_quantize},
    {"MatMulInteger", op_matmul_integer},
    {"QLinearMatMul", op_qlinear_matmul},
    {"ConvInteger", op_conv_integer},
    {"QLinearConv", op_qlinear_conv},
};

OxOpFn ox_quant_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
