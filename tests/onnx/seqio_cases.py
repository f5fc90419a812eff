# seqio_cases.py OUTDIR - writes models whose graph inputs or outputs
# are sequences (tests/cli/onnx_seq_io.sh): m<k>.onnx with inputs
# m<k>_in<j>.pb (a SequenceProto for a sequence input) and expected
# outputs m<k>_out<j>.pb, from numpy; models the importer refuses
# (r_<name>.onnx), and malformed SequenceProto files (bad_<name>.pb).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

import caselib
from caselib import vi

F, I64 = TP.FLOAT, TP.INT64
N = H.make_node


def write(msg, path):
    with open(path, 'wb') as f:
        f.write(msg.SerializeToString())


def seq(arrays):
    return numpy_helper.from_list([np.asarray(a) for a in arrays])


def seqvi(name, dt=F):
    return H.make_tensor_sequence_value_info(name, dt, None)


def init(name, a):
    return numpy_helper.from_array(np.array(a), name)


def model(nodes, ins, outs, inits=(), opset=17):
    return caselib.model(nodes, ins, outs, inits, opset)


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(8)

    # 0: a sequence of three shapes and a tensor: SequenceMap adds the
    # tensor to each element; the sequence's length; the input passed
    # through as a second sequence output.
    xs = [rng.standard_normal(s).astype(np.float32)
          for s in [(2, 3), (1, 3), (4, 3)]]
    t = rng.standard_normal(3).astype(np.float32)
    body = H.make_graph([N('Add', ['e', 'b'], ['r'])], 'body',
                        [vi('e', F, None), vi('b', F, [3])],
                        [vi('r', F, None)])
    m0 = model([N('SequenceMap', ['x.s', 't'], ['ys'], body=body),
                N('SequenceLength', ['x.s'], ['n']),
                N('Identity', ['x.s'], ['same'])],
               [seqvi('x.s'), vi('t', F, [3])],
               [seqvi('ys'), vi('n', I64, []), seqvi('same')])
    write(seq(xs), 'm0_in0.pb')
    write(numpy_helper.from_array(t), 'm0_in1.pb')
    write(seq([x + t for x in xs]), 'm0_out0.pb')
    write(numpy_helper.from_array(np.array(3, np.int64)), 'm0_out1.pb')
    write(seq(xs), 'm0_out2.pb')

    # 1: an empty sequence input first (no kernel parameter), a tensor
    # inserted into it at the front, then a second sequence appended
    # element by element by a Loop that carries the sequence.  (Floats:
    # bound integer inputs are folded at import.)
    a = rng.standard_normal((2, 2)).astype(np.float32)
    bs = [rng.standard_normal((2, 2)).astype(np.float32) for _ in range(2)]
    lbody = H.make_graph(
        [N('Identity', ['c'], ['c_out']),
         N('SequenceAt', ['bs', 'i'], ['b']),
         N('SequenceInsert', ['acc', 'b'], ['acc2'])], 'body',
        [vi('i', I64, []), vi('c', TP.BOOL, []), seqvi('acc')],
        [vi('c_out', TP.BOOL, []), seqvi('acc2')])
    m1 = model([N('SequenceInsert', ['e', 'a', 'zero'], ['s1']),
                N('Loop', ['two', '', 's1'], ['s2'], body=lbody),
                N('ConcatFromSequence', ['s2'], ['cat'], axis=0)],
               [seqvi('e'), vi('a', F, [2, 2]), seqvi('bs')],
               [seqvi('s2'), vi('cat', F, [6, 2])],
               inits=[init('zero', np.int64(0)), init('two', np.int64(2))])
    write(seq([]), 'm1_in0.pb')
    # (an empty list has no dtype: the importer takes the model's)
    write(numpy_helper.from_array(a), 'm1_in1.pb')
    write(seq(bs), 'm1_in2.pb')
    write(seq([a] + bs), 'm1_out0.pb')
    write(numpy_helper.from_array(np.concatenate([a] + bs)), 'm1_out1.pb')

    for k, m in enumerate([m0, m1]):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)

    # Refused.
    def refuse(name, nodes, ins, outs, inits=()):
        onnx.save(model(nodes, ins, outs, inits=inits), 'r_%s.onnx' % name)
    refuse('emptyout', [N('SequenceEmpty', [], ['y'])], [vi('x', F, [1])],
           [seqvi('y')])
    nested = H.make_value_info('xs', H.make_sequence_type_proto(
        H.make_sequence_type_proto(H.make_tensor_type_proto(F, None))))
    refuse('nested', [N('SequenceLength', ['xs'], ['y'])], [nested],
           [vi('y', I64, [])])
    opt = H.make_value_info('o', H.make_optional_type_proto(
        H.make_tensor_type_proto(F, [1])))
    refuse('optional', [N('Identity', ['x'], ['y'])], [opt, vi('x', F, [1])],
           [vi('y', F, [1])])
    refuse('mapnotseq', [N('SequenceMap', ['x'], ['y'], body=body)],
           [vi('x', F, [3])], [seqvi('y')])
    body1 = H.make_graph([N('Neg', ['e'], ['r'])], 'body1',
                         [vi('e', F, None)], [vi('r', F, None)])
    refuse('maplen', [N('SequenceMap', ['xs', 'ys'], ['y'], body=body)],
           [seqvi('xs'), seqvi('ys')], [seqvi('y')])
    refuse('mapins', [N('SequenceMap', ['xs', 'ys'], ['y'], body=body1)],
           [seqvi('xs'), seqvi('ys')], [seqvi('y')])
    sbody = H.make_graph([N('SequenceConstruct', ['e'], ['r'])], 'sbody',
                         [vi('e', F, None)], [seqvi('r')])
    refuse('mapseq', [N('SequenceMap', ['xs'], ['y'], body=sbody)],
           [seqvi('xs')], [seqvi('y')])
    write(seq([np.zeros(3, np.float32)] * 2), 'two.pb')
    write(seq([np.zeros(3, np.float32)] * 3), 'three.pb')
    write(seq([np.zeros(3, np.int64)]), 'ints.pb')

    # Malformed SequenceProto files.
    with open('bad_garbage.pb', 'wb') as f:
        f.write(b'\x0a\xff\xff\xff')
    s = onnx.SequenceProto()
    s.tensor_values.append(numpy_helper.from_array(np.zeros(2, np.float32)))
    write(s, 'bad_notype.pb')
    s = onnx.SequenceProto(elem_type=onnx.SequenceProto.MAP)
    write(s, 'bad_map.pb')
    s = onnx.SequenceProto(elem_type=onnx.SequenceProto.TENSOR)
    s.tensor_values.append(onnx.TensorProto(dims=[2]))
    write(s, 'bad_elem.pb')


main()
