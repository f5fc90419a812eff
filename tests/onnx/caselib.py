# caselib.py - what the tests/onnx/*_cases.py model writers share: a
# numpy array written as a TensorProto .pb file, a graph input or output
# declaration, a one-graph model of the default domain.
import numpy as np
from onnx import TensorProto as TP, helper as H, numpy_helper


def write(a, path):
    with open(path, 'wb') as f:
        f.write(numpy_helper.from_array(np.asarray(a)).SerializeToString())


def vi(name, dt=TP.FLOAT, shape=None):
    return H.make_tensor_value_info(name, dt, shape)


def model(nodes, ins, outs, inits=(), opset=13):
    g = H.make_graph(nodes, 'g', ins, outs, initializer=list(inits))
    return H.make_model(g, opset_imports=[H.make_opsetid('', opset)])
