# fallback_cases.py OUTDIR - models whose import must end in one line:
# a graph without outputs (r_noout.onnx), and a model the importer
# writes source for that does not check (r_neg_u8.onnx: Neg of uint8,
# which ONNX's type constraints leave out and the language refuses), so
# that the importer's last-resort message is seen to work.  Used by
# tests/cli/onnx_fallback.sh.
import os
import sys

import onnx
from onnx import TensorProto as TP, helper as H


def save(name, nodes, ins, outs):
    g = H.make_graph(nodes, 'g', ins, outs)
    onnx.save(H.make_model(g, opset_imports=[H.make_opsetid('', 13)]),
              name)


os.chdir(sys.argv[1])
save('r_noout.onnx', [H.make_node('Relu', ['x'], ['y'])],
     [H.make_tensor_value_info('x', TP.FLOAT, [2])], [])
save('r_neg_u8.onnx', [H.make_node('Neg', ['x'], ['y'])],
     [H.make_tensor_value_info('x', TP.UINT8, [2])],
     [H.make_tensor_value_info('y', TP.UINT8, [2])])
