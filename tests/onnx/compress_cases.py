# compress_cases.py OUTDIR - Compress with its condition known at import
# (an initializer): along an axis of a 3-D input, and without an axis
# (the input flattened, a condition shorter than it) - m<k>.onnx with
# inputs m<k>_in<j>.pb and expected outputs m<k>_out<j>.pb, from numpy;
# and the models the importer refuses (r_<name>.onnx, listed with their
# messages in tests/cli/onnx_compress.sh).  Prints the number of cases.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

import caselib
from caselib import vi, write as pb

F = TP.FLOAT


def model(node, ins, outs, inits=()):
    return caselib.model([node], ins, outs, inits, opset=11)


os.chdir(sys.argv[1])
rng = np.random.default_rng(7)
x = rng.standard_normal((2, 4, 3)).astype(np.float32)
c1 = np.array([True, False, True, True])
c2 = np.array([False, True, False, False, True, True, False])
cases = [
    (model(H.make_node('Compress', ['x', 'c'], ['y'], axis=-2),
           [vi('x', F, [2, 4, 3])], [vi('y', F, [2, 3, 3])],
           [numpy_helper.from_array(c1, 'c')]),
     [x], [np.compress(c1, x, axis=1)]),
    (model(H.make_node('Compress', ['x', 'c'], ['y']),
           [vi('x', F, [2, 4, 3])], [vi('y', F, [3])],
           [numpy_helper.from_array(c2, 'c')]),
     [x], [np.compress(c2, x)]),
]
for k, (m, ins, outs) in enumerate(cases):
    onnx.checker.check_model(m)
    onnx.save(m, 'm%d.onnx' % k)
    for j, a in enumerate(ins):
        pb(a, 'm%d_in%d.pb' % (k, j))
    for j, a in enumerate(outs):
        pb(a, 'm%d_out%d.pb' % (k, j))
onnx.save(model(H.make_node('Compress', ['x', 'c'], ['y'], axis=0),
                [vi('x', F, [2, 4, 3]), vi('c', TP.BOOL, [2])],
                [vi('y', F, None)]), 'r_data.onnx')
onnx.save(model(H.make_node('Compress', ['x', 'c'], ['y'], axis=3),
                [vi('x', F, [2, 4, 3])], [vi('y', F, None)],
                [numpy_helper.from_array(c1, 'c')]), 'r_axis.onnx')
print(len(cases))
