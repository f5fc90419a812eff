# make_models.py OUTDIR - small models for the importer's own tests
# (tests/cli/onnx_models.sh): a node with an attribute no importer
# knows, a model with a symbolic batch dimension (with inputs and
# expected outputs for two batch sizes, from numpy), one that computes
# with its batch size (a Reshape to [-1, 2]), BitShift of u8,
# GridSample, RoiAlign and MaxUnpool of computed data, and models the
# importer refuses (RoiAlign's max and adaptive modes).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, path, check=True):
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, path)


def pb(arr, name, path):
    with open(path, 'wb') as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())


out = sys.argv[1]
rng = np.random.default_rng(5)
f32 = TensorProto.FLOAT

# A Conv with an attribute 'foo' (no opset has one).
w = rng.standard_normal((2, 1, 3, 3)).astype(np.float32)
conv = helper.make_node('Conv', ['x', 'w'], ['y'], name='conv_17', foo=1)
g = helper.make_graph(
    [conv], 'attr',
    [helper.make_tensor_value_info('x', f32, [1, 1, 5, 5])],
    [helper.make_tensor_value_info('y', f32, [1, 2, 3, 3])],
    [numpy_helper.from_array(w, 'w')])
save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 11)]),
     os.path.join(out, 'attr.onnx'), check=False)

# y = reducesum(relu(x @ W + b), axis 1), z = softmax(x) with x: [batch, 4]
W = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)
nodes = [
    helper.make_node('MatMul', ['x', 'W'], ['xw']),
    helper.make_node('Add', ['xw', 'b'], ['h']),
    helper.make_node('Relu', ['h'], ['r']),
    helper.make_node('ReduceSum', ['r', 'axes'], ['y'], keepdims=0),
    helper.make_node('Softmax', ['x'], ['z'], axis=-1),
]
g = helper.make_graph(
    nodes, 'mlp',
    [helper.make_tensor_value_info('x', f32, ['batch', 4])],
    [helper.make_tensor_value_info('y', f32, ['batch']),
     helper.make_tensor_value_info('z', f32, ['batch', 4])],
    [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(b, 'b'),
     numpy_helper.from_array(np.array([1], np.int64), 'axes')])
save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),
     os.path.join(out, 'batch.onnx'))
for n in (2, 5):
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = np.maximum(x @ W + b, 0).sum(axis=1).astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    z = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    pb(x, 'x', os.path.join(out, 'batch%d_x.pb' % n))
    pb(y, 'y', os.path.join(out, 'batch%d_y.pb' % n))
    pb(z, 'z', os.path.join(out, 'batch%d_z.pb' % n))

# Reshape [batch, 4] -> [-1, 2]: the output's extent is 2 * batch.
g = helper.make_graph(
    [helper.make_node('Reshape', ['x', 's'], ['y'])], 'reshape',
    [helper.make_tensor_value_info('x', f32, ['batch', 4])],
    [helper.make_tensor_value_info('y', f32, ['m', 2])],
    [numpy_helper.from_array(np.array([-1, 2], np.int64), 's')])
save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),
     os.path.join(out, 'reshape.onnx'))

# BitShift of u8 by 0 .. 9, both directions (past 7 nothing is left).
x = np.arange(0, 250, 7, dtype=np.uint8)
y = (np.arange(x.size) % 10).astype(np.uint8)
for d in ('LEFT', 'RIGHT'):
    g = helper.make_graph(
        [helper.make_node('BitShift', ['x', 'y'], ['z'], direction=d)],
        'shift', [helper.make_tensor_value_info('x', TensorProto.UINT8,
                                                [x.size]),
                  helper.make_tensor_value_info('y', TensorProto.UINT8,
                                                [x.size])],
        [helper.make_tensor_value_info('z', TensorProto.UINT8, [x.size])])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 11)]),
         os.path.join(out, 'shift_%s.onnx' % d))
    wide = x.astype(np.uint64)
    z = (wide << y) if d == 'LEFT' else (wide >> y)
    pb(z.astype(np.uint8), 'z', os.path.join(out, 'shift_%s_z.pb' % d))
pb(x, 'x', os.path.join(out, 'shift_x.pb'))
pb(y, 'y', os.path.join(out, 'shift_y.pb'))

# LeakyRelu with a NaN and an infinite alpha: attributes written as
# literals (NaN had none, and the source did not check).
xl = np.array([-1.5, -0.0, 0.0, 2.0, -3.0], np.float32)
pb(xl, 'x', os.path.join(out, 'leaky_x.pb'))
for name, alpha in (('leaky_nan', float('nan')), ('leaky_inf', float('inf'))):
    g = helper.make_graph(
        [helper.make_node('LeakyRelu', ['x'], ['y'], alpha=alpha)], name,
        [helper.make_tensor_value_info('x', f32, [5])],
        [helper.make_tensor_value_info('y', f32, [5])])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),
         os.path.join(out, name + '.onnx'))
    with np.errstate(invalid='ignore'):
        y = np.where(xl < 0, xl * np.float32(alpha), xl).astype(np.float32)
    pb(y, 'y', os.path.join(out, name + '_y.pb'))

# Integer attributes at the ends of their range (found by importing the
# suite's node tests with each int attribute set to 0, -1, 2^31, 2^62
# and -2^63): each imports and runs, against numpy, or is refused.
xe = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
pb(xe, 'x', os.path.join(out, 'ext_x.pb'))
x4e = helper.make_tensor_value_info('x', f32, [2, 3, 2, 2])


def single(name, node, ins, outs, opset=13):
    g = helper.make_graph([node], name, ins, outs)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]),
         os.path.join(out, name + '.onnx'))


# DepthToSpace with a blocksize whose square overflows: refused.
single('ext_d2s', helper.make_node('DepthToSpace', ['x'], ['y'],
                                   blocksize=2**62),
       [x4e], [helper.make_tensor_value_info('y', f32, [2, 3, 2, 2])], 11)
# Strides and output padding past 2^31 - 1: refused.
single('ext_pool', helper.make_node('MaxPool', ['x'], ['y'],
                                    kernel_shape=[1, 1], strides=[2**31, 1]),
       [x4e], [helper.make_tensor_value_info('y', f32, [2, 3, 1, 2])])
wct = helper.make_tensor_value_info('w', f32, [3, 1, 1, 1])
single('ext_convt', helper.make_node('ConvTranspose', ['x', 'w'], ['y'],
                                     output_padding=[2**62, 0]),
       [x4e, wct], [helper.make_tensor_value_info('y', f32, [2, 1, 2, 2])])
# An auto_pad the spec does not name (it was taken as NOTSET), and one
# of 5000 characters (the message keeps its first 400).
for name, ap in (('ext_autopad', 'XYZ'), ('ext_longattr', 'x' * 5000)):
    single(name, helper.make_node('Conv', ['x', 'w'], ['y'], auto_pad=ap),
           [x4e, helper.make_tensor_value_info('w', f32, [1, 3, 1, 1])],
           [helper.make_tensor_value_info('y', f32, [2, 1, 2, 2])], 11)
single('ext_d2s_mode', helper.make_node('DepthToSpace', ['x'], ['y'],
                                        blocksize=1, mode='XYZ'),
       [x4e], [helper.make_tensor_value_info('y', f32, [2, 3, 2, 2])], 11)
# Inputs of the wrong shape in an op's other slots (found by importing
# each single-node test with one input given in another's place): a
# Conv bias of rank 4 was read past its index list; an LSTM's
# initial_h of the bias's shape gave source that did not check.
single('ext_convb', helper.make_node('Conv', ['x', 'w', 'x'], ['y']),
       [x4e, helper.make_tensor_value_info('w', f32, [1, 3, 1, 1])],
       [helper.make_tensor_value_info('y', f32, [2, 1, 2, 2])], 11)
xs = helper.make_tensor_value_info('x', f32, [2, 1, 4])
single('ext_lstm', helper.make_node('LSTM', ['x', 'w', 'r', 'b', '', 'b'],
                                    ['', 'h'], hidden_size=3),
       [xs, helper.make_tensor_value_info('w', f32, [1, 12, 4]),
        helper.make_tensor_value_info('r', f32, [1, 12, 3]),
        helper.make_tensor_value_info('b', f32, [1, 24])],
       [helper.make_tensor_value_info('h', f32, [1, 1, 3])], 14)
# EyeLike beyond the matrix: all zeros.
x2e = helper.make_tensor_value_info('x', f32, [3, 4])
pb(np.zeros((3, 4), np.float32), 'x', os.path.join(out, 'ext_eye_x.pb'))
for k in (2**31, -2**63):
    single('ext_eye_%d' % (k > 0), helper.make_node('EyeLike', ['x'], ['y'],
                                                   k=k),
           [x2e], [helper.make_tensor_value_info('y', f32, [3, 4])], 9)
pb(np.zeros((3, 4), np.float32), 'y', os.path.join(out, 'ext_eye_y.pb'))
# LRN with a window wider than the channels: every channel, alpha / size.
size = 2**31
single('ext_lrn', helper.make_node('LRN', ['x'], ['y'], size=size,
                                   alpha=1e3, beta=0.75, bias=1.0),
       [x4e], [helper.make_tensor_value_info('y', f32, [2, 3, 2, 2])])
sq = (xe.astype(np.float64) ** 2).sum(axis=1, keepdims=True)
pb((xe / (1.0 + np.float32(1e3) / size * sq) ** 0.75).astype(np.float32),
   'y', os.path.join(out, 'ext_lrn_y.pb'))
# NegativeLogLikelihoodLoss whose ignore_index is -2^63: never equal.
lp = rng.standard_normal((3, 5)).astype(np.float32)
tg = np.array([0, 4, 2], np.int64)
pb(lp, 'input', os.path.join(out, 'ext_nll_in.pb'))
pb(tg, 'target', os.path.join(out, 'ext_nll_t.pb'))
single('ext_nll', helper.make_node('NegativeLogLikelihoodLoss',
                                   ['input', 'target'], ['loss'],
                                   ignore_index=-2**63),
       [helper.make_tensor_value_info('input', f32, [3, 5]),
        helper.make_tensor_value_info('target', TensorProto.INT64, [3])],
       [helper.make_tensor_value_info('loss', f32, [])])
pb(np.array(-lp[np.arange(3), tg].mean(), np.float32), 'loss',
   os.path.join(out, 'ext_nll_loss.pb'))
# ScatterElements whose indices are narrower than the data on another
# axis than the scatter's: the rest keeps the data.
pb(np.arange(10, dtype=np.float32).reshape(2, 5), 'data',
   os.path.join(out, 'ext_sc_data.pb'))
pb(np.array([[1, 0]], np.int64), 'indices',
   os.path.join(out, 'ext_sc_ind.pb'))
pb(np.array([[-1, -2]], np.float32), 'updates',
   os.path.join(out, 'ext_sc_upd.pb'))
single('ext_scatter', helper.make_node('ScatterElements',
                                       ['data', 'indices', 'updates'], ['y'],
                                       axis=0),
       [helper.make_tensor_value_info('data', f32, [2, 5]),
        helper.make_tensor_value_info('indices', TensorProto.INT64, [1, 2]),
        helper.make_tensor_value_info('updates', f32, [1, 2])],
       [helper.make_tensor_value_info('y', f32, [2, 5])], 11)
ys = np.arange(10, dtype=np.float32).reshape(2, 5)
ys[1, 0], ys[0, 1] = -1, -2
pb(ys, 'y', os.path.join(out, 'ext_sc_y.pb'))

# GridSample, RoiAlign and MaxUnpool whose data is computed by another
# node: they read it at places computed from other tensors, so the
# importer gives it a copy stage that declares its extent.  Each is
# checked against the same op on a graph input that holds the same
# values (the suite checks that form): grid_computed (Relu then
# GridSample) against grid_direct on relu(x); roi_computed against
# roi_direct; unpool_computed (MaxPool, Relu of its values, MaxUnpool)
# against unpool_direct on the outputs of unpool_pool (MaxPool and
# Relu alone).
x4 = helper.make_tensor_value_info('x', f32, [1, 1, 4, 4])
grid = helper.make_tensor_value_info('grid', f32, [1, 2, 2, 2])
rois = helper.make_tensor_value_info('rois', f32, [1, 4])
bidx = helper.make_tensor_value_info('bidx', TensorProto.INT64, [1])
xv = rng.standard_normal((1, 1, 4, 4)).astype(np.float32)
pb(xv, 'x', os.path.join(out, 'c_x.pb'))
pb(np.maximum(xv, 0), 'x', os.path.join(out, 'c_relu_x.pb'))
pb(rng.uniform(-1, 1, (1, 2, 2, 2)).astype(np.float32), 'grid',
   os.path.join(out, 'c_grid.pb'))
pb(np.array([[0.3, 0.6, 2.7, 3.1]], np.float32), 'rois',
   os.path.join(out, 'c_rois.pb'))
pb(np.array([0], np.int64), 'bidx', os.path.join(out, 'c_bidx.pb'))
relu = helper.make_node('Relu', ['x'], ['r'])
gs = dict(name='gs')
ra = dict(name='ra', output_height=2, output_width=2, sampling_ratio=2)
mp = helper.make_node('MaxPool', ['x'], ['p', 'i'], kernel_shape=[2, 2],
                      strides=[2, 2])
mu = dict(name='mu', kernel_shape=[2, 2], strides=[2, 2])
q = helper.make_tensor_value_info('q', f32, [1, 1, 2, 2])
qi = helper.make_tensor_value_info('i', TensorProto.INT64, [1, 1, 2, 2])
computed = {
    'grid_computed': (
        [relu, helper.make_node('GridSample', ['r', 'grid'], ['y'], **gs)],
        [x4, grid], [1, 1, 2, 2], 16),
    'grid_direct': (
        [helper.make_node('GridSample', ['x', 'grid'], ['y'], **gs)],
        [x4, grid], [1, 1, 2, 2], 16),
    'roi_computed': (
        [relu, helper.make_node('RoiAlign', ['r', 'rois', 'bidx'], ['y'],
                                **ra)],
        [x4, rois, bidx], [1, 1, 2, 2], 16),
    'roi_direct': (
        [helper.make_node('RoiAlign', ['x', 'rois', 'bidx'], ['y'], **ra)],
        [x4, rois, bidx], [1, 1, 2, 2], 16),
    'unpool_computed': (
        [mp, helper.make_node('Relu', ['p'], ['q']),
         helper.make_node('MaxUnpool', ['q', 'i'], ['y'], **mu)],
        [x4], [1, 1, 4, 4], 11),
    'unpool_direct': (
        [helper.make_node('MaxUnpool', ['q', 'i'], ['y'], **mu)],
        [q, qi], [1, 1, 4, 4], 11),
}
# RoiAlign's spatial_scale 1/3: a float that is not a short decimal.
computed['roi_third'] = (
    [helper.make_node('RoiAlign', ['x', 'rois', 'bidx'], ['y'],
                      **dict(ra, spatial_scale=float(np.float32(1 / 3))))],
    [x4, rois, bidx], [1, 1, 2, 2], 16)
for name, (nodes, ins, oshape, opset) in computed.items():
    g = helper.make_graph(nodes, name, ins,
                          [helper.make_tensor_value_info('y', f32, oshape)])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]),
         os.path.join(out, name + '.onnx'))
g = helper.make_graph([mp, helper.make_node('Relu', ['p'], ['q'])],
                      'unpool_pool', [x4], [q, qi])
save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 11)]),
     os.path.join(out, 'unpool_pool.onnx'))

# Refused with one line each (tests/cli/onnx_models.sh): RoiAlign's max
# mode and its adaptive sampling_ratio 0.
refusals = {
    'roi_max': (
        [helper.make_node('RoiAlign', ['x', 'rois', 'bidx'], ['y'],
                          name='ra', mode='max', output_height=2,
                          output_width=2, sampling_ratio=2)],
        [x4, rois, bidx], [1, 1, 2, 2], 16),
    'roi_adaptive': (
        [helper.make_node('RoiAlign', ['x', 'rois', 'bidx'], ['y'],
                          name='ra', output_height=2, output_width=2,
                          sampling_ratio=0)],
        [x4, rois, bidx], [1, 1, 2, 2], 16),
}
for name, (nodes, ins, oshape, opset) in refusals.items():
    g = helper.make_graph(nodes, name, ins,
                          [helper.make_tensor_value_info('y', f32, oshape)])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)]),
         os.path.join(out, name + '.onnx'))
