# quant_cases.py OUTDIR - writes models of the quantized ops (m<k>.onnx)
# with inputs and expected outputs (m<k>_in<j>.pb, m<k>_out<j>.pb) for
# what the ONNX suite does not cover: int8, per-axis parameters on
# other axes, ties of the rounding and saturation at both ends, int32
# DequantizeLinear, per-row and per-column zero points and scales, a
# batched MatMulInteger, grouped, strided and padded ConvInteger,
# QLinearConv with a bias.  The expected outputs come from a plain
# numpy reading of the operators' definitions (round half to even,
# saturate; requantization by the f32 scale a_scale * b_scale / y_scale
# as ONNX Runtime does it).  Prints the number of cases.  Used by
# tests/cli/onnx_quant.sh.
import os
import sys

import numpy as np
import onnx
from onnx import helper, mapping, numpy_helper

f32 = np.float32
TT = mapping.NP_TYPE_TO_TENSOR_TYPE


def sat(v, dt):
    info = np.iinfo(dt)
    return np.clip(v, info.min, info.max).astype(dt)


def quantize(x, s, z, dt):
    v = np.rint(x / s)
    if z is not None:
        v = v + z.astype(f32)
    return sat(v, dt)


def along(p, axis, rank):
    """A 1-D parameter shaped to broadcast along `axis`."""
    if p is None or p.ndim == 0:
        return p
    shape = [1] * rank
    shape[axis] = p.size
    return p.reshape(shape)


def centered(v, z):
    v = v.astype(np.int32)
    return v - z.astype(np.int32) if z is not None else v


def conv_i32(x, w, group, strides, pads):
    """The i32 convolution of (already centered) x and w, 2-D."""
    N, C, H, W = x.shape
    F, CG, KH, KW = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    OH = (x.shape[2] - KH) // strides[0] + 1
    OW = (x.shape[3] - KW) // strides[1] + 1
    y = np.zeros((N, F, OH, OW), np.int32)
    FG = F // group
    for f in range(F):
        c0 = f // FG * CG
        for i in range(OH):
            for j in range(OW):
                win = x[:, c0:c0 + CG, i * strides[0]:i * strides[0] + KH,
                        j * strides[1]:j * strides[1] + KW]
                y[:, f, i, j] = (win * w[f]).sum(axis=(1, 2, 3))
    return y


def requantize(acc, mult, z, dt):
    v = np.rint(acc.astype(f32) * mult)
    if z is not None:
        v = v + z.astype(f32)
    return sat(v, dt)


def cases(rng):
    def ints(dt, *shape):
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max + 1, shape).astype(dt)

    out = []
    # QuantizeLinear, opset 13, int8, per axis on the last axis: exact
    # ties (k + 0.5) and values past both ends of the range.
    x = (rng.integers(-400, 400, (2, 3, 4)) / 2).astype(f32)
    x[0, 0, :] = [0.5 * 2, -0.5 * 4, 2.5 * 8, -1000]
    x[1, 2, :] = [1000, 127.5 * 4, -128.5 * 8, 1.5]
    s = np.array([2, 4, 8, 1], f32)
    z = np.array([0, -3, 5, 127], np.int8)
    out.append(('QuantizeLinear', 13, dict(axis=-1),
                [('x', x), ('s', s), ('z', z)],
                [quantize(x, s, z, np.int8)]))
    # QuantizeLinear, opset 10, no zero point (uint8), ties.
    x = np.array([[0.5, 1.5, 2.5, -0.5], [254.5, 255.5, 300, 3.25]], f32)
    s = np.array(1, f32)
    out.append(('QuantizeLinear', 10, {}, [('x', x), ('s', s)],
                [quantize(x, s, None, np.uint8)]))
    # DequantizeLinear, opset 13, int8, per axis 0.
    x = ints(np.int8, 3, 5)
    s = np.array([0.5, 0.25, 3], f32)
    z = np.array([-128, 0, 127], np.int8)
    out.append(('DequantizeLinear', 13, dict(axis=0),
                [('x', x), ('s', s), ('z', z)],
                [((x.astype(f32) - along(z, 0, 2).astype(f32)) *
                  along(s, 0, 2)).astype(f32)]))
    # DequantizeLinear, opset 10, int32 without a zero point.
    x = np.array([-70000, -1, 0, 3, 1 << 20], np.int32)
    s = np.array(0.125, f32)
    out.append(('DequantizeLinear', 10, {}, [('x', x), ('s', s)],
                [(x.astype(f32) * s).astype(f32)]))
    # DynamicQuantizeLinear over a rank-3 input, all positive.
    x = (rng.random((2, 3, 4)) * 7 + 0.25).astype(f32)
    lo, hi = min(f32(0), x.min()), max(f32(0), x.max())
    ys = f32((hi - lo) / f32(255))
    yz = sat(np.rint(-lo / ys), np.uint8)
    out.append(('DynamicQuantizeLinear', 11, {}, [('x', x)],
                [quantize(x, ys, yz, np.uint8), np.array(ys, f32),
                 np.array(yz, np.uint8)]))
    # MatMulInteger: int8 A batched [2, 3, 4] by uint8 B [4, 5], a zero
    # point per row, b's per column.
    a = ints(np.int8, 2, 3, 4)
    b = ints(np.uint8, 4, 5)
    za = ints(np.int8, 3)
    zb = ints(np.uint8, 5)
    out.append(('MatMulInteger', 10, {},
                [('A', a), ('B', b), ('a_zero_point', za),
                 ('b_zero_point', zb)],
                [np.matmul(centered(a, za[:, None]), centered(b, zb))]))
    # ConvInteger: int8, 2 groups, stride 2, asymmetric pads, w's zero
    # point per output channel.
    x = ints(np.int8, 1, 4, 6, 5)
    w = ints(np.int8, 4, 2, 3, 2)
    zx = np.array(-7, np.int8)
    zw = ints(np.int8, 4)
    pads, strides = [1, 0, 2, 1], [2, 2]
    out.append(('ConvInteger', 10, dict(group=2, strides=strides, pads=pads),
                [('x', x), ('w', w), ('x_zero_point', zx),
                 ('w_zero_point', zw)],
                [conv_i32(centered(x, zx), centered(w, zw[:, None, None,
                                                          None]),
                          2, strides, pads)]))
    # QLinearConv: uint8 in, int8 out, padded, a bias, w's scale and
    # zero point per output channel.
    x = ints(np.uint8, 2, 3, 5, 5)
    w = ints(np.uint8, 4, 3, 3, 3)
    sx, zx = np.array(0.02, f32), np.array(131, np.uint8)
    sw = np.array([0.003, 0.01, 0.0007, 0.02], f32)
    zw = np.array([0, 128, 255, 17], np.uint8)
    sy, zy = np.array(0.15, f32), np.array(-5, np.int8)
    bias = rng.integers(-5000, 5000, 4).astype(np.int32)
    acc = conv_i32(centered(x, zx), centered(w, zw[:, None, None, None]),
                   1, [1, 1], [1, 1, 1, 1]) + bias[None, :, None, None]
    mult = (sx * sw / sy).astype(f32)[None, :, None, None]
    out.append(('QLinearConv', 10, dict(pads=[1, 1, 1, 1]),
                [('x', x), ('x_scale', sx), ('x_zero_point', zx), ('w', w),
                 ('w_scale', sw), ('w_zero_point', zw), ('y_scale', sy),
                 ('y_zero_point', zy), ('B', bias)],
                [requantize(acc, mult, zy, np.int8)]))
    # QLinearMatMul: int8, a's scale and zero point per row, b's per
    # column.
    a = ints(np.int8, 3, 6)
    b = ints(np.int8, 6, 4)
    sa = np.array([0.01, 0.02, 0.005], f32)
    za = np.array([1, -2, 3], np.int8)
    sb = np.array([0.03, 0.001, 0.02, 0.04], f32)
    zb = np.array([0, 5, -5, 100], np.int8)
    sy, zy = np.array(0.05, f32), np.array(10, np.int8)
    acc = np.matmul(centered(a, za[:, None]), centered(b, zb))
    mult = (sa[:, None] * sb[None, :] / sy).astype(f32)
    out.append(('QLinearMatMul', 10, {},
                [('a', a), ('a_scale', sa), ('a_zero_point', za), ('b', b),
                 ('b_scale', sb), ('b_zero_point', zb), ('y_scale', sy),
                 ('y_zero_point', zy)],
                [requantize(acc, mult, zy, np.int8)]))
    return out


# Refused with one line each (tests/cli/onnx_quant.sh): parameters
# whose shape places them nowhere, an input of a dtype the op does not
# take.  name: (op, opset, attributes, inputs as (name, dtype, shape)).
REFUSALS = {
    'r_axis_opset10': ('QuantizeLinear', 10, {},
                       [('x', np.float32, [2, 3]), ('s', np.float32, [3])]),
    'r_axis_length': ('QuantizeLinear', 13, dict(axis=1),
                      [('x', np.float32, [2, 3]), ('s', np.float32, [2])]),
    'r_zero_point_2d': ('MatMulInteger', 10, {},
                        [('A', np.uint8, [3, 4]), ('B', np.uint8, [4, 2]),
                         ('a_zero_point', np.uint8, [3, 1])]),
    'r_float_input': ('ConvInteger', 10, {},
                      [('x', np.float32, [1, 1, 3, 3]),
                       ('w', np.uint8, [1, 1, 2, 2])]),
}


def save(path, a):
    with open(path, 'wb') as f:
        f.write(numpy_helper.from_array(np.asarray(a)).SerializeToString())


def main():
    os.chdir(sys.argv[1])
    all_cases = cases(np.random.default_rng(3))
    for k, (op, opset, attrs, ins, outs) in enumerate(all_cases):
        onames = ['y', 'y_scale', 'y_zero_point'][:len(outs)]
        node = helper.make_node(op, [n for n, _ in ins], onames, **attrs)
        vi = [helper.make_tensor_value_info(
            n, TT[a.dtype], a.shape)
            for n, a in ins]
        ov = [helper.make_tensor_value_info(
            n, TT[a.dtype], a.shape)
            for n, a in zip(onames, outs)]
        m = helper.make_model(helper.make_graph([node], 'g', vi, ov),
                              opset_imports=[helper.make_opsetid('', opset)])
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        for j, (_, a) in enumerate(ins):
            save('m%d_in%d.pb' % (k, j), a)
        for j, a in enumerate(outs):
            save('m%d_out%d.pb' % (k, j), a)
    for name, (op, opset, attrs, ins) in REFUSALS.items():
        node = helper.make_node(op, [n for n, _, _ in ins], ['y'], name='q',
                                **attrs)
        vi = [helper.make_tensor_value_info(n, TT[np.dtype(t)], shape)
              for n, t, shape in ins]
        ov = [helper.make_tensor_value_info('y', TT[np.dtype(np.uint8)],
                                            None)]
        m = helper.make_model(helper.make_graph([node], 'g', vi, ov),
                              opset_imports=[helper.make_opsetid('', opset)])
        onnx.save(m, name + '.onnx')
    print(len(all_cases))


main()
