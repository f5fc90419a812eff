# strinit_cases.py OUTDIR - writes models with string constants
# (tests/cli/onnx_str_init.sh), which tdsl import writes in the source
# as tensor literals (SPEC 11.1; the weights file holds no strings):
# Equal against a string initializer and Where with a str scalar one,
# a 2-D initializer whose strings need escapes, a Constant node of
# strings, an empty one.  m<k>.onnx with inputs m<k>_in<j>.pb and
# expected outputs m<k>_out<j>.pb from numpy; models the importer
# refuses as r_<name>.onnx (a constant too large to write in the
# source, one with a control byte).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write

B, S = TP.BOOL, TP.STRING
N = H.make_node


def strs(xs):
    return np.array(xs, dtype=object)


def init(name, a):
    return numpy_helper.from_array(a, name)


def main():
    os.chdir(sys.argv[1])
    cases = []
    x = strs(['monday', 'tuesday', 'x', 'sunday'])
    c = strs(['monday', 'Tuesday', 'x', ''])
    dash = np.array('-', dtype=object)
    eq = x == c
    cases.append((model([N('Equal', ['x', 'c'], ['eq']),
                         N('Where', ['eq', 'x', 'dash'], ['y'])],
                        [vi('x', S, [4])],
                        [vi('eq', B, [4]), vi('y', S, [4])],
                        [init('c', c), init('dash', dash)]),
                  [x], [eq, np.where(eq, x, dash)]))
    odd = strs([['a"b', 'back\\slash', 'tab\there'],
                ['new\nline', '\u00e9t\u00e9', '']])
    cases.append((model([N('Identity', ['w'], ['y'])], [],
                        [vi('y', S, [2, 3])], [init('w', odd)]),
                  [], [odd]))
    k = strs(['a', 'b'])
    cases.append((model([N('Constant', [], ['k'], value=init('kv', k)),
                         N('Equal', ['x', 'k'], ['y'])],
                        [vi('x', S, [2])], [vi('y', B, [2])]),
                  [strs(['a', 'c'])], [strs(['a', 'c']) == k]))
    e = np.zeros((2, 0), dtype=object)
    cases.append((model([N('Identity', ['e'], ['y'])], [],
                        [vi('y', S, [2, 0])], [init('e', e)]),
                  [], [e]))

    for n, (m, ins, outs) in enumerate(cases):
        onnx.checker.check_model(m)
        onnx.save(m, 'm%d.onnx' % n)
        for j, a in enumerate(ins):
            write(a, 'm%d_in%d.pb' % (n, j))
        for j, a in enumerate(outs):
            write(a, 'm%d_out%d.pb' % (n, j))

    # Refused: too large to write in the source; a control byte.
    big = strs(['w%d' % i for i in range(300)])
    onnx.save(model([N('Identity', ['w'], ['y'])], [], [vi('y', S, [300])],
                    [init('w', big)]), 'r_big.onnx')
    onnx.save(model([N('Identity', ['w'], ['y'])], [], [vi('y', S, [1])],
                    [init('w', strs(['a\x01b']))]), 'r_control.onnx')
    print(len(cases))


main()
