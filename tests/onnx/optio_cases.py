# optio_cases.py OUTDIR - writes models whose graph inputs or outputs
# are optionals (tests/cli/onnx_opt_io.sh): m<k>.onnx with inputs
# m<k>_in<j>.pb (an OptionalProto for an optional input) and expected
# outputs m<k>_out<j>.pb, from numpy; models the importer refuses
# (r_<name>.onnx), and malformed OptionalProto files (bad_<name>.pb).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

import caselib
from caselib import vi

F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL
N = H.make_node
OPT = onnx.OptionalProto


def write(msg, path):
    with open(path, 'wb') as f:
        f.write(msg.SerializeToString())


def tensor(a):
    return numpy_helper.from_array(np.asarray(a))


def seq(arrays):
    return numpy_helper.from_list([np.asarray(a) for a in arrays])


def opt_tensor(a):
    return OPT(elem_type=OPT.TENSOR, tensor_value=tensor(a))


def opt_seq(arrays):
    return OPT(elem_type=OPT.SEQUENCE, sequence_value=seq(arrays))


def optvi(name, dt=F, shape=None):
    return H.make_value_info(name, H.make_optional_type_proto(
        H.make_tensor_type_proto(dt, shape)))


def optseqvi(name, dt=F):
    return H.make_value_info(name, H.make_optional_type_proto(
        H.make_sequence_type_proto(H.make_tensor_type_proto(dt, None))))


def seqvi(name, dt=F):
    return H.make_tensor_sequence_value_info(name, dt, None)


def model(nodes, ins, outs, opset=16):
    return caselib.model(nodes, ins, outs, opset=opset)


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(9)

    # 0: an optional tensor 'o.x' with an element and a tensor t: has
    # it an element, its element plus t, that sum as an optional, the
    # optional passed through.
    o = rng.standard_normal((2, 3)).astype(np.float32)
    t = rng.standard_normal(3).astype(np.float32)
    m0 = model([N('OptionalHasElement', ['o.x'], ['has']),
                N('OptionalGetElement', ['o.x'], ['e']),
                N('Add', ['e', 't'], ['sum']),
                N('Optional', ['sum'], ['osum']),
                N('Identity', ['o.x'], ['same'])],
               [optvi('o.x', F, [2, 3]), vi('t', F, [3])],
               [vi('has', B, []), vi('sum', F, [2, 3]),
                optvi('osum', F, [2, 3]), optvi('same', F, [2, 3])])
    write(opt_tensor(o), 'm0_in0.pb')
    write(tensor(t), 'm0_in1.pb')
    write(tensor(np.array(True)), 'm0_out0.pb')
    write(tensor(o + t), 'm0_out1.pb')
    write(opt_tensor(o + t), 'm0_out2.pb')
    write(opt_tensor(o), 'm0_out3.pb')

    # 1: an optional sequence: its elements concatenated, and the
    # optional passed through.
    xs = [rng.standard_normal((k, 2)).astype(np.float32) for k in (1, 3)]
    m1 = model([N('OptionalGetElement', ['os'], ['s']),
                N('ConcatFromSequence', ['s'], ['cat'], axis=0),
                N('Identity', ['os'], ['same'])],
               [optseqvi('os')], [vi('cat', F, [4, 2]), optseqvi('same')])
    write(opt_seq(xs), 'm1_in0.pb')
    write(tensor(np.concatenate(xs)), 'm1_out0.pb')
    write(opt_seq(xs), 'm1_out1.pb')

    # 2: an optional without an element (no kernel parameter): has it
    # one, an If on that which reads the element only in the branch not
    # taken, the optional passed through, and an empty Optional made in
    # the graph.
    x = rng.standard_normal(4).astype(np.float32)
    then = H.make_graph([N('OptionalGetElement', ['o'], ['r'])], 'then', [],
                        [vi('r', F, [4])])
    other = H.make_graph([N('Neg', ['x'], ['r2'])], 'else', [],
                         [vi('r2', F, [4])])
    ty = H.make_tensor_type_proto(I64, [2])
    m2 = model([N('OptionalHasElement', ['o'], ['has']),
                N('If', ['has'], ['y'], then_branch=then,
                  else_branch=other),
                N('Identity', ['o'], ['same']),
                N('Optional', [], ['empty'], type=ty)],
               [optvi('o', F, [4]), vi('x', F, [4])],
               [vi('has', B, []), vi('y', F, [4]), optvi('same', F, [4]),
                H.make_value_info('empty', H.make_optional_type_proto(ty))])
    write(OPT(elem_type=OPT.UNDEFINED), 'm2_in0.pb')
    write(tensor(x), 'm2_in1.pb')
    write(tensor(np.array(False)), 'm2_out0.pb')
    write(tensor(-x), 'm2_out1.pb')
    write(OPT(elem_type=OPT.UNDEFINED), 'm2_out2.pb')
    write(OPT(elem_type=OPT.UNDEFINED), 'm2_out3.pb')

    for k, m in enumerate([m0, m1, m2]):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)

    # Refused.
    def refuse(name, nodes, ins, outs):
        onnx.save(model(nodes, ins, outs), 'r_%s.onnx' % name)
    refuse('getnone', [N('Optional', [], ['e'], type=ty),
                       N('OptionalGetElement', ['e'], ['y'])],
           [vi('x', F, [1])], [vi('y', I64, [2])])
    refuse('notype', [N('Optional', [], ['e']),
                      N('OptionalHasElement', ['e'], ['y'])],
           [vi('x', F, [1])], [vi('y', B, [])])
    refuse('optopt', [N('Optional', ['x'], ['e']),
                      N('Optional', ['e'], ['y'])],
           [vi('x', F, [1])], [vi('y', F, [1])])
    refuse('noneop', [N('Optional', [], ['e'], type=ty),
                      N('Neg', ['e'], ['y'])],
           [vi('x', F, [1])], [vi('y', I64, [2])])
    refuse('allnone', [N('Optional', [], ['y'], type=ty)],
           [vi('x', F, [1])],
           [H.make_value_info('y', H.make_optional_type_proto(ty))])
    onetwo = H.make_graph([N('Optional', ['x'], ['r'])], 'then', [],
                          [optvi('r', F, [1])])
    none = H.make_graph([N('Optional', [], ['r2'],
                           type=H.make_tensor_type_proto(F, [1]))],
                        'else', [], [optvi('r2', F, [1])])
    refuse('ifopt', [N('If', ['c'], ['y'], then_branch=onetwo,
                       else_branch=none)],
           [vi('c', B, []), vi('x', F, [1])], [optvi('y', F, [1])])
    oot = H.make_value_info('o', H.make_optional_type_proto(
        H.make_optional_type_proto(H.make_tensor_type_proto(F, [1]))))
    refuse('optopt_in', [N('OptionalHasElement', ['o'], ['y'])], [oot],
           [vi('y', B, [])])
    sparse = H.make_value_info('s', H.make_sparse_tensor_type_proto(F, [2]))
    refuse('sparse', [N('Identity', ['s'], ['y'])], [sparse],
           [vi('y', F, [2])])
    write(opt_seq([np.zeros(3, np.float32)]), 'seq.pb')
    write(opt_tensor(np.zeros((2, 3), np.int64)), 'ints.pb')
    write(OPT(elem_type=OPT.UNDEFINED), 'none.pb')

    # Malformed OptionalProto files.
    with open('bad_garbage.pb', 'wb') as f:
        f.write(b'\x0a\xff\xff\xff')
    write(OPT(tensor_value=tensor(np.zeros(2, np.float32))), 'bad_notype.pb')
    write(OPT(elem_type=OPT.MAP), 'bad_map.pb')
    write(OPT(elem_type=OPT.UNDEFINED,
              tensor_value=tensor(np.zeros(2, np.float32))), 'bad_nonewith.pb')
    write(OPT(elem_type=OPT.TENSOR), 'bad_notensor.pb')
    write(OPT(elem_type=OPT.SEQUENCE,
              tensor_value=tensor(np.zeros(2, np.float32))), 'bad_noseq.pb')
    write(OPT(elem_type=OPT.TENSOR, tensor_value=onnx.TensorProto(dims=[2])),
          'bad_elem.pb')
    write(OPT(elem_type=OPT.SEQUENCE,
              sequence_value=onnx.SequenceProto(
                  elem_type=onnx.SequenceProto.MAP)), 'bad_seqmap.pb')


main()
