# seq_cases.py OUTDIR - writes models with sequences known at import
# (m<k>.onnx with inputs m<k>_in<j>.pb and expected outputs
# m<k>_out<j>.pb, from numpy) and models the importer must refuse
# (r_<name>.onnx; tests/cli/onnx_seq.sh lists their messages).  Prints
# the number of m<k> cases.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write as pb

F, I64 = TP.FLOAT, TP.INT64


def seqvi(name):
    return H.make_tensor_sequence_value_info(name, F, None)


def init(name, a):
    return numpy_helper.from_array(np.array(a), name)


N = H.make_node


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(5)
    cases = []

    # 0: parts of 2 rows (the last of 1), y inserted before the last,
    # the first erased, concatenated again.
    x = rng.standard_normal((5, 3)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    m = model([N('SplitToSequence', ['x', 'two'], ['s']),
               N('SequenceInsert', ['s', 'y', 'm1'], ['s2']),
               N('SequenceErase', ['s2', 'zero'], ['s3']),
               N('ConcatFromSequence', ['s3'], ['out'], axis=0)],
              [vi('x', F, [5, 3]), vi('y', F, [4, 3])],
              [vi('out', F, [7, 3])],
              inits=[init('two', np.int64(2)), init('m1', np.int64(-1)),
                     init('zero', np.int64(0))])
    cases.append((m, [x, y], [np.concatenate([x[2:4], y, x[4:5]])]))

    # 1: columns without their axis; the last; how many; stacked on a
    # new last axis.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    m = model([N('SplitToSequence', ['x'], ['s'], axis=1, keepdims=0),
               N('SequenceAt', ['s', 'm1'], ['last']),
               N('SequenceLength', ['s'], ['n']),
               N('ConcatFromSequence', ['s'], ['st'], axis=-1,
                 new_axis=1)],
              [vi('x', F, [2, 3])],
              [vi('last', F, [2]), vi('n', I64, []), vi('st', F, [2, 3])],
              inits=[init('m1', np.int64(-1))])
    cases.append((m, [x], [x[:, 2], np.array(3, np.int64), x]))

    # 2: a Loop whose body reads the outer sequence at its iteration.
    x = rng.standard_normal((3, 2)).astype(np.float32)
    v0 = rng.standard_normal(2).astype(np.float32)
    body = H.make_graph(
        [N('Identity', ['c'], ['c_out']),
         N('SequenceAt', ['rows', 'i'], ['row']),
         N('Add', ['v', 'row'], ['v2'])], 'body',
        [vi('i', I64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v2', F, [2])])
    m = model([N('SplitToSequence', ['x'], ['rows'], keepdims=0),
               N('Loop', ['three', '', 'v0'], ['vf'], body=body)],
              [vi('x', F, [3, 2]), vi('v0', F, [2])], [vi('vf', F, [2])],
              inits=[init('three', np.int64(3))])
    cases.append((m, [x, v0], [v0 + x.sum(0)]))

    for k, (m, ins, outs) in enumerate(cases):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        for j, a in enumerate(ins):
            pb(np.asarray(a), 'm%d_in%d.pb' % (k, j))
        for j, a in enumerate(outs):
            pb(np.asarray(a), 'm%d_out%d.pb' % (k, j))

    def refuse(name, nodes, ins=(), outs=None, inits=()):
        ins = list(ins) or [vi('x', F, [3, 2])]
        onnx.save(model(nodes, ins, outs or [vi('y', F, None)],
                        inits=inits), 'r_%s.onnx' % name)
    split = N('SplitToSequence', ['x'], ['s'], keepdims=0)
    refuse('pos', [split, N('SequenceAt', ['s', 'p'], ['y'])],
           ins=[vi('x', F, [3, 2]), vi('p', I64, [])])
    refuse('range', [split, N('SequenceAt', ['s', 'five'], ['y'])],
           inits=[init('five', np.int64(5))])
    refuse('posint', [split, N('SequenceAt', ['s', 'p'], ['y'])],
           inits=[init('p', np.array([], np.int64))])
    refuse('atnopos', [split, N('SequenceAt', ['s'], ['y'])])
    refuse('seqop', [split, N('Neg', ['s'], ['y'])])
    refuse('notseq', [N('SequenceAt', ['x', 'p'], ['y'])],
           inits=[init('p', np.int64(0))])
    refuse('nested', [split, N('SequenceConstruct', ['s'], ['y'])])
    refuse('insdt', [split, N('SequenceInsert', ['s', 'k'], ['y'])],
           inits=[init('k', np.array([1, 2], np.int64))])
    refuse('insseq', [split, N('SequenceInsert', ['s', 's'], ['y'])])
    refuse('emptycat', [N('SequenceEmpty', [], ['e']),
                        N('ConcatFromSequence', ['e'], ['y'], axis=0)])
    refuse('cataxis', [split, N('ConcatFromSequence', ['s'], ['y'],
                                axis=5)])
    refuse('splitaxis', [N('SplitToSequence', ['x'], ['y'], axis=3)])
    refuse('splitsum', [N('SplitToSequence', ['x', 'sp'], ['y'])],
           inits=[init('sp', np.array([1, 1], np.int64))])
    refuse('split0', [N('SplitToSequence', ['x', 'sp'], ['y'])],
           inits=[init('sp', np.int64(0))])
    refuse('parts', [N('SplitToSequence', ['x'], ['y'])],
           ins=[vi('x', F, [2000])])
    refuse('emptydt', [N('SequenceEmpty', [], ['y'], dtype=14)])
    refuse('construct0', [N('SequenceConstruct', [], ['y'])])
    refuse('constructdt', [N('SequenceConstruct', ['x', 'k'], ['y'])],
           inits=[init('k', np.array([1, 2], np.int64))])
    refuse('lentwice', [split, N('SequenceLength', ['s'], ['x'])])
    refuse('emptytwice', [N('SequenceEmpty', [], ['x'])])
    refuse('emptynoout', [N('SequenceEmpty', [], [])])
    body = H.make_graph(
        [N('Identity', ['c'], ['c_out']),
         N('SequenceConstruct', ['v'], ['sq'])], 'body',
        [vi('i', I64, []), vi('c', TP.BOOL, []), vi('v', F, [3, 2])],
        [vi('c_out', TP.BOOL, []), vi('v', F, [3, 2]), seqvi('sq')])
    body.node.append(N('Identity', ['v'], ['v_out']))
    body.output[1].name = 'v_out'
    refuse('stackseq', [N('Loop', ['two', '', 'x'], ['vf', 'y'],
                          body=body)],
           outs=[vi('vf', F, None), vi('y', F, None)],
           inits=[init('two', np.int64(2))])
    print(len(cases))


main()
