# dd_cases.py OUTDIR - writes models whose output sizes depend on the
# values of an input (tests/cli/onnx_dd.sh): NonZero, Unique (of a
# vector, along an axis, flattened) and a Loop
# whose trip count is computed from float inputs (Range written as a
# Loop), m<k>.onnx with inputs m<k>_in<j>.pb (bound at import) and
# expected outputs m<k>_out<j>.pb from numpy; models the importer
# refuses (r_<name>.onnx with the inputs r_<name>_in0.pb).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL
N = H.make_node


def unique(x, sorted_, axis=None):
    vals, idx, inv, cnt = np.unique(x, return_index=True,
                                    return_inverse=True, return_counts=True,
                                    axis=axis)
    inv = inv.reshape(-1)
    if sorted_:
        return vals, idx, inv, cnt
    order = np.argsort(idx)
    rank = np.argsort(order)
    vals = np.take(vals, order, axis=0 if axis is None else axis)
    return vals, idx[order], rank[inv], cnt[order]


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(5)
    ms = []

    # 0: NonZero of a float input bound at import (the kernel computes
    # the positions from it), then the positions plus one.
    x = rng.standard_normal((3, 4)).astype(np.float32)
    x[rng.random((3, 4)) < 0.5] = 0
    one = numpy_helper.from_array(np.int64(1), 'one')
    ms.append(model([N('NonZero', ['x'], ['nz']),
                     N('Add', ['nz', 'one'], ['y'])],
                    [vi('x', F, [3, 4])], [vi('y', I64, ['a', 'b'])], [one]))
    write(x, 'm0_in0.pb')
    write(np.array(np.nonzero(x)) + 1, 'm0_out0.pb')

    # 1, 2: Unique of a float vector, sorted and not, all four outputs.
    u = np.array([2, 1, 1, 3, 4, 3, -1, 2], np.float32)
    for k, s in ((1, 1), (2, 0)):
        ms.append(model([N('Unique', ['u'], ['y', 'idx', 'inv', 'cnt'],
                           sorted=s)], [vi('u', F, [8])],
                        [vi('y', F, ['u']), vi('idx', I64, ['u']),
                         vi('inv', I64, [8]), vi('cnt', I64, ['u'])],
                        opset=11))
        write(u, 'm%d_in0.pb' % k)
        for j, a in enumerate(unique(u, s)):
            write(a.astype(u.dtype if j == 0 else np.int64),
                  'm%d_out%d.pb' % (k, j))

    later = []
    # 4, 5: Unique along an axis (slices compared whole): of a matrix's
    # columns, not sorted; of a 3-D tensor along axis 0, sorted.
    for k, s, a, shape in ((4, 0, 1, (2, 5)), (5, 1, -3, (4, 2, 2))):
        v = rng.integers(0, 2, shape).astype(np.float32)
        if k == 4:
            v[:, 3] = v[:, 0]
        else:
            v[2] = v[0]
        later.append(model([N('Unique', ['u'], ['y', 'idx', 'inv', 'cnt'],
                              sorted=s, axis=a)], [vi('u', F, list(shape))],
                           [vi('y', F, ['a'] * len(shape)),
                            vi('idx', I64, ['u']),
                            vi('inv', I64, [shape[a]]),
                            vi('cnt', I64, ['u'])],
                           opset=11))
        write(v, 'm%d_in0.pb' % k)
        for j, r in enumerate(unique(v, s, a % len(shape))):
            write(r.astype(v.dtype if j == 0 else np.int64),
                  'm%d_out%d.pb' % (k, j))

    # 6, 7, 8: Unique without 'axis' of a matrix (flattened), sorted;
    # of a tensor with axes of 1, not sorted; of a scalar.
    for k, s, v in ((6, 1, rng.integers(0, 5, (3, 4))),
                    (7, 0, rng.integers(-2, 2, (2, 1, 3))),
                    (8, 1, np.array(2.5))):
        v = v.astype(np.float32)
        later.append(model([N('Unique', ['u'], ['y', 'idx', 'inv', 'cnt'],
                              sorted=s)], [vi('u', F, list(v.shape))],
                           [vi('y', F, ['u']), vi('idx', I64, ['u']),
                            vi('inv', I64, [v.size]), vi('cnt', I64, ['u'])],
                           opset=11))
        write(v, 'm%d_in0.pb' % k)
        for j, r in enumerate(unique(v, s)):
            write(r.astype(v.dtype if j == 0 else np.int64),
                  'm%d_out%d.pb' % (k, j))

    # 3: Range as a Loop: the trip count ceil((limit - start) / delta)
    # computed from float inputs; the values from start and delta.
    body = H.make_graph(
        [N('Identity', ['c'], ['c_out']),
         N('Add', ['prev', 'delta'], ['cur']),
         N('Identity', ['prev'], ['val'])], 'body',
        [vi('i', I64, []), vi('c', B, []), vi('prev', F, [])],
        [vi('c_out', B, []), vi('cur', F, []), vi('val', F, [])])
    ms.append(model([N('Sub', ['limit', 'start'], ['d']),
                     N('Div', ['d', 'delta'], ['q']),
                     N('Ceil', ['q'], ['qc']),
                     N('Cast', ['qc'], ['n'], to=I64),
                     N('Loop', ['n', '', 'start'], ['last', 'r'],
                       body=body)],
                    [vi('start', F, []), vi('limit', F, []),
                     vi('delta', F, [])], [vi('r', F, ['n'])]))
    write(np.float32(1.5), 'm3_in0.pb')
    write(np.float32(6), 'm3_in1.pb')
    write(np.float32(1.25), 'm3_in2.pb')
    write(np.arange(1.5, 6, 1.25, dtype=np.float32), 'm3_out0.pb')
    ms.extend(later)

    for k, m in enumerate(ms):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)

    # Refused.
    def refuse(name, nodes, ins, outs, data, opset=13):
        onnx.save(model(nodes, ins, outs, opset=opset), 'r_%s.onnx' % name)
        write(data, 'r_%s_in0.pb' % name)
    refuse('scalar', [N('NonZero', ['x'], ['y'])], [vi('x', F, [])],
           [vi('y', I64, ['a', 'b'])], np.float32(1))
    refuse('big', [N('NonZero', ['x'], ['y'])], [vi('x', F, [5000])],
           [vi('y', I64, ['a', 'b'])], np.ones(5000, np.float32))
    refuse('axis', [N('Unique', ['x'], ['y'], axis=2)], [vi('x', F, [2, 2])],
           [vi('y', F, None)], np.ones((2, 2), np.float32), opset=11)
    refuse('bool', [N('Unique', ['x'], ['y'])], [vi('x', B, [2])],
           [vi('y', B, None)], np.ones(2, bool), opset=11)
    print(len(ms))


main()
