# empty_cases.py OUTDIR - writes models whose outputs have a zero axis
# (tests/cli/onnx_empty.sh): ops whose output size depends on data that
# keep nothing (NonZero of zeros, Compress with an all-false condition,
# Unique of an empty input, NonMaxSuppression above every score), ops
# with an empty result by their attributes or shape inputs (TopK with
# k = 0, Slice and Range that take nothing), and nodes that consume an
# empty tensor (elementwise, Transpose, GatherND, Concat, a reduction
# over the empty axis, MatMul over an empty inner axis).  m<k>.onnx
# with inputs m<k>_in<j>.pb (bound at import) and expected outputs
# m<k>_out<j>.pb from numpy; models the importer refuses (r_<name>.onnx
# with inputs r_<name>_in0.pb).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL
N = H.make_node


def const(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(7)
    cases = []      # (model, inputs, outputs)
    z = np.zeros((3, 4), np.float32)
    nz = np.array(np.nonzero(z), np.int64)

    # NonZero of zeros: [2, 0], and one more to it.
    cases.append((model([N('NonZero', ['x'], ['nz']),
                         N('Add', ['nz', 'one'], ['y'])],
                        [vi('x', F, [3, 4])], [vi('y', I64, ['a', 'b'])],
                        [const('one', np.int64(1))]), [z], [nz + 1]))
    # x[x != 0] written as ONNX exporters write it: NonZero, Transpose,
    # GatherND; and the count of the kept elements, a reduction over
    # the empty axis.
    cases.append((model([N('NonZero', ['x'], ['nz']),
                         N('Transpose', ['nz'], ['t']),
                         N('GatherND', ['x', 't'], ['y']),
                         N('ReduceSum', ['nz'], ['s'], axes=[1],
                           keepdims=1)],
                        [vi('x', F, [3, 4])],
                        [vi('y', F, ['n']), vi('s', I64, [2, 1])], opset=12),
                  [z], [z[z != 0], nz.sum(axis=1, keepdims=True)]))
    # Concat of an empty and a non-empty tensor; MatMul over an empty
    # inner axis (zeros).
    c = np.array([[5], [6]], np.int64)
    nzf = nz.astype(np.float32)
    cases.append((model([N('NonZero', ['x'], ['nz']),
                         N('Concat', ['nz', 'c'], ['y'], axis=1),
                         N('Cast', ['nz'], ['f'], to=F),
                         N('Transpose', ['f'], ['ft']),
                         N('MatMul', ['f', 'ft'], ['mm'])],
                        [vi('x', F, [3, 4])],
                        [vi('y', I64, [2, 'n']), vi('mm', F, [2, 2])],
                        [const('c', c)]),
                  [z], [np.concatenate([nz, c], 1), nzf @ nzf.T]))
    # Compress with a condition that keeps nothing: along an axis, and
    # flattened.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    cond = np.zeros(3, bool)
    cases.append((model([N('Compress', ['x', 'c'], ['y'], axis=1),
                         N('Compress', ['x', 'c'], ['yf'])],
                        [vi('x', F, [2, 3])],
                        [vi('y', F, [2, 'n']), vi('yf', F, ['n'])],
                        [const('c', cond)], opset=11),
                  [x], [np.compress(cond, x, axis=1), np.compress(cond, x)]))
    # Unique of an empty vector: every output empty.
    e = np.zeros(0, np.float32)
    cases.append((model([N('Unique', ['u'], ['y', 'idx', 'inv', 'cnt'])],
                        [vi('u', F, [0])],
                        [vi('y', F, ['n']), vi('idx', I64, ['n']),
                         vi('inv', I64, [0]), vi('cnt', I64, ['n'])],
                        opset=11),
                  [e], [e, np.zeros(0, np.int64), np.zeros(0, np.int64),
                        np.zeros(0, np.int64)]))
    # NonMaxSuppression whose score threshold is above every score.
    boxes = rng.random((1, 4, 4)).astype(np.float32)
    scores = rng.random((1, 2, 4)).astype(np.float32) * 0.5
    cases.append((model([N('NonMaxSuppression',
                           ['boxes', 'scores', 'maxo', 'iou', 'sthr'],
                           ['sel'])],
                        [vi('boxes', F, [1, 4, 4]),
                         vi('scores', F, [1, 2, 4])],
                        [vi('sel', I64, ['n', 3])],
                        [const('maxo', np.array([3], np.int64)),
                         const('iou', np.array([0.5], np.float32)),
                         const('sthr', np.array([0.9], np.float32))],
                        opset=11),
                  [boxes, scores], [np.zeros((0, 3), np.int64)]))
    # TopK with k = 0; Slice that takes nothing, concatenated with x;
    # Range that makes nothing, cast and added to itself.
    cases.append((model([N('TopK', ['x', 'k'], ['v', 'i'], axis=1),
                         N('Slice', ['x', 's', 's', 'ax'], ['sl']),
                         N('Concat', ['sl', 'x'], ['cat'], axis=0),
                         N('Range', ['r0', 'r0', 'r1'], ['r']),
                         N('Add', ['r', 'r'], ['rr'])],
                        [vi('x', F, [2, 3])],
                        [vi('v', F, [2, 0]), vi('i', I64, [2, 0]),
                         vi('cat', F, [2, 3]), vi('rr', F, [0])],
                        [const('k', np.array([0], np.int64)),
                         const('s', np.array([1], np.int64)),
                         const('ax', np.array([0], np.int64)),
                         const('r0', np.float32(2)),
                         const('r1', np.float32(1))]),
                  [x], [np.zeros((2, 0), np.float32),
                        np.zeros((2, 0), np.int64), x,
                        np.zeros(0, np.float32)]))
    # ReduceMax and ReduceMin over the empty axis: the identity, as
    # ONNX says since opset 18 (the smallest / largest value of the
    # dtype, -inf / inf for floats), where numpy has no value.
    i64 = np.iinfo(np.int64)
    cases.append((model([N('NonZero', ['x'], ['nz']),
                         N('ReduceMax', ['nz'], ['mx'], axes=[1]),
                         N('ReduceMin', ['nz'], ['mn'], axes=[1],
                           keepdims=0),
                         N('Cast', ['nz'], ['f'], to=F),
                         N('ReduceMax', ['f'], ['fmx'], axes=[1])],
                        [vi('x', F, [3, 4])],
                        [vi('mx', I64, [2, 1]), vi('mn', I64, [2]),
                         vi('fmx', F, [2, 1])], opset=12),
                  [z], [np.full((2, 1), i64.min), np.full(2, i64.max),
                        np.full((2, 1), -np.inf, np.float32)]))

    for k, (m, ins, outs) in enumerate(cases):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        for j, a in enumerate(ins):
            write(a, 'm%d_in%d.pb' % (k, j))
        for j, a in enumerate(outs):
            write(a, 'm%d_out%d.pb' % (k, j))

    # Refused: the position of the largest of nothing has no value.
    onnx.save(model([N('NonZero', ['x'], ['nz']),
                     N('ArgMax', ['nz'], ['y'], axis=1)],
                    [vi('x', F, [3])], [vi('y', I64, [1, 1])], opset=12),
              'r_argmax.onnx')
    write(np.zeros(3, np.float32), 'r_argmax_in0.pb')
    print(len(cases))


main()
