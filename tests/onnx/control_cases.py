# control_cases.py OUTDIR - writes models with If, Loop and Scan beyond
# the ONNX suite's (m<k>.onnx, inputs m<k>_in<j>.pb, expected outputs
# m<k>_out<j>.pb; the expected values from numpy), and models the
# importer must refuse (r_<name>.onnx; tests/cli/onnx_control.sh lists
# their messages).  Prints the number of m<k> cases.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write as pb

F = TP.FLOAT


def const(name, a):
    return H.make_node('Constant', [], [name],
                       value=numpy_helper.from_array(np.array(a)))


cases = []


def case(m, ins, outs):
    cases.append((m, ins, outs))


def refuse(name, m):
    onnx.save(m, 'r_%s.onnx' % name)


def add_body(name, extra_nodes=(), ins=None, outs=None):
    return H.make_graph(list(extra_nodes), name, ins, outs)


def main():
    os.chdir(sys.argv[1])
    rng = np.random.default_rng(3)

    # 0: Scan (opset 11), two states, two scan inputs: the second read
    # backwards along axis 1; outputs stacked along axis 1, the second
    # reversed.
    # x is scanned along axis 0 and w along axis 1: T = 2.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    s0 = rng.standard_normal(3).astype(np.float32)
    p0 = np.float32(1.5)
    body = H.make_graph(
        [H.make_node('Add', ['s', 'xt'], ['s2']),
         H.make_node('ReduceSum', ['wt'], ['wsum'], keepdims=0),
         H.make_node('Mul', ['p', 'wsum'], ['p2']),
         H.make_node('Mul', ['s2', 'p2'], ['o1'])],
        'scan_body', [vi('s', F, [3]), vi('p', F, []), vi('xt', F, [3]),
                      vi('wt', F, [3])],
        [vi('s2', F, [3]), vi('p2', F, []), vi('o1', F, [3]),
         vi('p2_copy', F, [])])
    body.node.append(H.make_node('Identity', ['p2'], ['p2_copy']))
    node = H.make_node('Scan', ['s0', 'p0', 'x', 'w'],
                       ['sf', 'pf', 'ys', 'ps'], body=body,
                       num_scan_inputs=2, scan_input_axes=[0, 1],
                       scan_input_directions=[0, 1],
                       scan_output_axes=[1, -1],
                       scan_output_directions=[0, 1])
    s, p, o1s, ps = s0.copy(), p0, [], []
    for t in range(2):
        s = s + x[t]
        p = np.float32(p * w[:, 1 - t].sum())
        o1s.append(s * p)
        ps.append(p)
    m = model([node], [vi('s0', F, [3]), vi('p0', F, []), vi('x', F, [2, 3]),
                       vi('w', F, [3, 2])],
              [vi('sf', F, [3]), vi('pf', F, []), vi('ys', F, [3, 2]),
               vi('ps', F, [2])], opset=11)
    case(m, [s0, np.array(p0, np.float32), x, w],
         [s, np.array(p, np.float32), np.stack(o1s, 1),
          np.array(ps[::-1], np.float32)])

    # 1: Scan (opset 8), a batch of 2.
    x = rng.standard_normal((2, 3, 2)).astype(np.float32)
    i0 = rng.standard_normal((2, 2)).astype(np.float32)
    body = H.make_graph(
        [H.make_node('Mul', ['a', 'b'], ['a2']),
         H.make_node('Identity', ['a2'], ['o'])], 'b8',
        [vi('a', F, [2]), vi('b', F, [2])], [vi('a2', F, [2]), vi('o', F, [2])])
    node = H.make_node('Scan', ['', 'i0', 'x'], ['f', 'y'], body=body,
                       num_scan_inputs=1)
    f = i0.copy()
    y = np.zeros((2, 3, 2), np.float32)
    for b in range(2):
        for t in range(3):
            f[b] = f[b] * x[b, t]
            y[b, t] = f[b]
    m = model([node], [vi('i0', F, [2, 2]), vi('x', F, [2, 3, 2])],
              [vi('f', F, [2, 2]), vi('y', F, [2, 3, 2])], opset=8)
    case(m, [i0, x], [f, y])

    # 2: Loop: a trip count of 5 (an initializer) and a condition the
    # body computes from the iteration number (i < 2: three
    # iterations); the body reads the outer 'scale'; an If inside it
    # whose condition also folds (the iteration is 1) takes a branch.
    v0 = rng.standard_normal(2).astype(np.float32)
    scale = rng.standard_normal(2).astype(np.float32)
    thenb = H.make_graph([H.make_node('Mul', ['v', 'scale'], ['tv'])],
                         'then', [], [vi('tv', F, [2])])
    elseb = H.make_graph([H.make_node('Add', ['v', 'scale'], ['ev'])],
                         'else', [], [vi('ev', F, [2])])
    body = H.make_graph(
        [const('one', np.int64(1)),
         H.make_node('Less', ['i', 'two'], ['c_out']),
         H.make_node('Equal', ['i', 'one'], ['is1']),
         H.make_node('If', ['is1'], ['v2'], then_branch=thenb,
                     else_branch=elseb),
         H.make_node('Neg', ['v2'], ['sc'])], 'loop_body',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v2', F, [2]), vi('sc', F, [2])],
        initializer=[numpy_helper.from_array(np.array(2, np.int64), 'two')])
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'scans'], body=body)
    v, scans = v0.copy(), []
    for i in range(3):
        v = v * scale if i == 1 else v + scale
        scans.append(-v)
    m = model([node], [vi('v0', F, [2]), vi('scale', F, [2])],
              [vi('vf', F, [2]), vi('scans', F, [3, 2])],
              inits=[numpy_helper.from_array(np.array(5, np.int64), 'n')])
    case(m, [v0, scale], [v, np.stack(scans)])

    # 3: If whose condition is data: both branches, then a select.
    x = rng.standard_normal((2, 3)).astype(np.float32)
    thenb = H.make_graph([H.make_node('Relu', ['x'], ['t'])], 'then', [],
                         [vi('t', F, [2, 3])])
    elseb = H.make_graph([H.make_node('Abs', ['x'], ['e'])], 'else', [],
                         [vi('e', F, [2, 3])])
    node = H.make_node('If', ['c'], ['y'], then_branch=thenb,
                       else_branch=elseb)
    m = model([node], [vi('c', TP.BOOL, []), vi('x', F, [2, 3])],
              [vi('y', F, [2, 3])])
    case(m, [np.array(False), x], [np.abs(x)])

    # Refused.
    def loop_model(trip, cond, body, ins, extra=(), inits=()):
        node = H.make_node('Loop', [trip, cond, 'v0'], ['vf'], body=body)
        return model(list(extra) + [node], ins + [vi('v0', F, [2])],
                     [vi('vf', F, [2])], inits=inits)
    plain = H.make_graph(
        [H.make_node('Identity', ['c'], ['c_out']),
         H.make_node('Neg', ['v'], ['v2'])], 'plain',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v2', F, [2])])
    refuse('trip', loop_model('n', '', plain, [vi('n', TP.INT64, [])]))
    refuse('cond', loop_model('', 'c0', plain, [vi('c0', TP.BOOL, [])]))
    refuse('forever', loop_model('', '', plain, []))
    big = numpy_helper.from_array(np.array(5000, np.int64), 'n')
    refuse('unroll', loop_model('n', '', plain, [], inits=[big]))
    wide = H.make_graph(
        [H.make_node('Identity', ['c'], ['c_out'])] +
        [H.make_node('Neg', ['v' if k == 0 else 'v%d' % k],
                     ['v%d' % (k + 1)]) for k in range(200)], 'wide',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v200', F, [2])])
    n1000 = numpy_helper.from_array(np.array(1000, np.int64), 'n')
    refuse('nodes', loop_model('n', '', wide, [], inits=[n1000]))
    datacond = H.make_graph(
        [H.make_node('ReduceSum', ['v'], ['s'], keepdims=0),
         H.make_node('Greater', ['s', 'zero'], ['c_out']),
         H.make_node('Neg', ['v'], ['v2'])], 'datacond',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v2', F, [2])])
    n3 = numpy_helper.from_array(np.array(3, np.int64), 'n')
    zero = numpy_helper.from_array(np.array(0, np.float32), 'zero')
    refuse('datacond', loop_model('n', '', datacond, [], inits=[n3, zero]))
    grow = H.make_graph(
        [H.make_node('Identity', ['c'], ['c_out']),
         H.make_node('Concat', ['v', 'v'], ['v2'], axis=0)], 'grow',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, None)],
        [vi('c_out', TP.BOOL, []), vi('v2', F, None), vi('v2s', F, None)])
    grow.node.append(H.make_node('Identity', ['v2'], ['v2s']))
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'ys'], body=grow)
    refuse('grow', model([node], [vi('v0', F, [2])],
                         [vi('vf', F, None), vi('ys', F, None)],
                         inits=[n3]))
    n0 = numpy_helper.from_array(np.array(0, np.int64), 'n')
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'ys'], body=grow)
    refuse('empty', model([node], [vi('v0', F, [2])],
                          [vi('vf', F, None), vi('ys', F, None)],
                          inits=[n0]))
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf'])
    refuse('nobody', model([node], [vi('v0', F, [2])], [vi('vf', F, [2])],
                           inits=[n3]))
    refuse('inputs', loop_model('n', '', H.make_graph(
        plain.node, 'plain', list(plain.input)[:2], plain.output),
        [], inits=[n3]))
    refuse('unknown', loop_model('n', '', H.make_graph(
        plain.node, 'plain', plain.input,
        [plain.output[0], vi('nope', F, [2])]), [], inits=[n3]))
    thenb = H.make_graph([H.make_node('Relu', ['x'], ['t'])], 'then', [],
                         [vi('t', F, [2, 3])])
    elseb = H.make_graph([const('e', np.zeros(3, np.float32))], 'else', [],
                         [vi('e', F, [3])])
    node = H.make_node('If', ['c'], ['y'], then_branch=thenb,
                       else_branch=elseb)
    refuse('ifshape', model([node], [vi('c', TP.BOOL, []),
                                     vi('x', F, [2, 3])], [vi('y', F, None)]))
    node = H.make_node('If', ['c'], ['y', 'z'], then_branch=thenb,
                       else_branch=elseb)
    refuse('ifouts', model([node], [vi('c', TP.BOOL, []),
                                    vi('x', F, [2, 3])],
                           [vi('y', F, None), vi('z', F, None)]))
    empty = H.make_graph([], 'none', [], [])
    node = H.make_node('If', ['c'], [], then_branch=empty,
                       else_branch=empty)
    refuse('ifnone', model([node], [vi('c', TP.BOOL, [])],
                           [vi('c', TP.BOOL, [])]))
    node = H.make_node('If', ['c'], ['y'], then_branch=thenb,
                       else_branch=elseb)
    refuse('ifcond', model([node], [vi('c', TP.BOOL, [2]),
                                    vi('x', F, [2, 3])], [vi('y', F, None)]))
    # If nested 20 deep
    # (the else branches are leaves: the model stays small)
    leaf = H.make_graph([const('leaf', np.float32(1))], 'leaf', [],
                        [vi('leaf', F, [])])
    g = leaf
    for k in range(20):
        g = H.make_graph([H.make_node('If', ['c'], ['o%d' % k],
                                      then_branch=g, else_branch=leaf)],
                         'n%d' % k, [], [vi('o%d' % k, F, [])])
    node = H.make_node('If', ['c'], ['y'], then_branch=g, else_branch=leaf)
    refuse('deep', model([node], [vi('c', TP.BOOL, [])], [vi('y', F, [])]))
    # Scan refusals
    sbody = H.make_graph(
        [H.make_node('Add', ['a', 'b'], ['a2']),
         H.make_node('Identity', ['a2'], ['o'])], 'sb',
        [vi('a', F, [2]), vi('b', F, [2])],
        [vi('a2', F, [2]), vi('o', F, [2])])

    def scan(ins, outs, opset=11, inputs=('a0', 'x'), **attrs):
        node = H.make_node('Scan', list(inputs), ['f', 'y'], body=sbody,
                           **attrs)
        return model([node], ins, outs, opset=opset)
    a0, x32 = vi('a0', F, [2]), vi('x', F, [3, 2])
    refuse('seqlens', scan([vi('sl', TP.INT32, [1]), vi('a0', F, [1, 2]),
                            vi('x', F, [1, 3, 2])],
                           [vi('f', F, None), vi('y', F, None)], opset=8,
                           inputs=('sl', 'a0', 'x'), num_scan_inputs=1))
    refuse('nscan', scan([a0, x32], [vi('f', F, None), vi('y', F, None)],
                         num_scan_inputs=3))
    refuse('inaxis', scan([a0, x32], [vi('f', F, None), vi('y', F, None)],
                          num_scan_inputs=1, scan_input_axes=[2]))
    refuse('outaxis', scan([a0, x32], [vi('f', F, None), vi('y', F, None)],
                           num_scan_inputs=1, scan_output_axes=[3]))
    refuse('emptyscan', scan([a0, vi('x', F, [0, 2])],
                             [vi('f', F, None), vi('y', F, None)],
                             num_scan_inputs=1))
    refuse('longscan', scan([a0, vi('x', F, [2000, 2])],
                            [vi('f', F, None), vi('y', F, None)],
                            num_scan_inputs=1))
    two = H.make_graph(
        [H.make_node('Add', ['a', 'b'], ['a2']),
         H.make_node('Add', ['a2', 'd'], ['o'])], 'two',
        [vi('a', F, [2]), vi('b', F, [2]), vi('d', F, [2])],
        [vi('a2', F, [2]), vi('o', F, [2])])
    node = H.make_node('Scan', ['a0', 'x', 'x2'], ['f', 'y'], body=two,
                       num_scan_inputs=2)
    refuse('lengths', model([node], [a0, x32, vi('x2', F, [4, 2])],
                            [vi('f', F, None), vi('y', F, None)], opset=11))
    node = H.make_node('Scan', ['a0', 'x', 'x'], ['f', 'y'], body=two,
                       num_scan_inputs=2, scan_input_axes=[0])
    refuse('axes', model([node], [a0, x32],
                         [vi('f', F, None), vi('y', F, None)], opset=11))
    node = H.make_node('Scan', ['a0', 'x'], ['f'], body=sbody,
                       num_scan_inputs=1)
    refuse('scanouts', model([node], [a0, x32], [vi('f', F, None)],
                             opset=11))
    refuse('batch', scan([vi('a0', F, [2, 2]), vi('x', F, [3, 3, 2])],
                         [vi('f', F, None), vi('y', F, None)], opset=8,
                         inputs=('', 'a0', 'x'), num_scan_inputs=1))
    refuse('batch0', scan([vi('a0', F, [0, 2]), vi('x', F, [0, 3, 2])],
                          [vi('f', F, None), vi('y', F, None)], opset=8,
                          inputs=('', 'a0', 'x'), num_scan_inputs=1))
    # a body input without a name; an unnamed body initializer
    refuse('noname', loop_model('n', '', H.make_graph(
        plain.node, 'plain', list(plain.input)[:2] + [vi('', F, [2])],
        plain.output), [], inits=[n3]))
    noinit = H.make_graph(plain.node, 'plain', plain.input, plain.output,
                          initializer=[numpy_helper.from_array(
                              np.zeros(2, np.float32), '')])
    refuse('initname', loop_model('n', '', noinit, [], inits=[n3]))
    # stacking rank-8 values; stacking past the size limit; an output
    # named like the graph's input
    r8 = [1] * 8
    stk = H.make_graph(
        [H.make_node('Identity', ['c'], ['c_out']),
         H.make_node('Identity', ['v'], ['v2']),
         H.make_node('Identity', ['v'], ['vs'])], 'stk',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, None)],
        [vi('c_out', TP.BOOL, []), vi('v2', F, None), vi('vs', F, None)])
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'ys'], body=stk)
    refuse('rank', model([node], [vi('v0', F, r8)],
                         [vi('vf', F, None), vi('ys', F, None)],
                         inits=[n3]))
    refuse('huge', model([node], [vi('v0', F, [1 << 20, 1 << 20])],
                         [vi('vf', F, None), vi('ys', F, None)],
                         inits=[n3]))
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'v0'], body=stk)
    refuse('twice', model([node], [vi('v0', F, [2])],
                          [vi('vf', F, None)], inits=[n3]))

    # 1024 iterations with a scan output (run on the interpreter only):
    # the stacking select must not nest 1024 deep.
    body = H.make_graph(
        [H.make_node('Identity', ['c'], ['c_out']),
         H.make_node('Neg', ['v'], ['v2']),
         H.make_node('Identity', ['v2'], ['vs'])], 'b',
        [vi('i', TP.INT64, []), vi('c', TP.BOOL, []), vi('v', F, [2])],
        [vi('c_out', TP.BOOL, []), vi('v2', F, [2]), vi('vs', F, [2])])
    node = H.make_node('Loop', ['n', '', 'v0'], ['vf', 'ys'], body=body)
    onnx.save(model([node], [vi('v0', F, [2])],
                    [vi('vf', F, [2]), vi('ys', F, [1024, 2])],
                    inits=[numpy_helper.from_array(np.array(1024, np.int64),
                                                   'n')]), 'big.onnx')
    v0 = np.array([1.5, -2], np.float32)
    pb(v0, 'big_in0.pb')
    pb(v0, 'big_out0.pb')
    pb(np.stack([-v0, v0] * 512), 'big_out1.pb')

    for k, (m, ins, outs) in enumerate(cases):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % k)
        for j, a in enumerate(ins):
            pb(np.asarray(a), 'm%d_in%d.pb' % (k, j))
        for j, a in enumerate(outs):
            pb(np.asarray(a), 'm%d_out%d.pb' % (k, j))
    print(len(cases))


main()
