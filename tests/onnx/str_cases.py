# str_cases.py OUTDIR - writes models on string tensors
# (tests/cli/onnx_str.sh): Cast to and from STRING with the values whose
# text is hardest to get right, and StringNormalizer.  m<k>.onnx run as
# they are; s<k>.onnx need their input bound at import (stopwords);
# inputs m<k>_in<j>.pb / s<k>_in<j>.pb, expected outputs
# m<k>_out<j>.pb / s<k>_out<j>.pb from numpy (Cast) or written out
# (StringNormalizer); models the importer refuses as r_<name>.onnx with
# their inputs r_<name>_in0.pb.  Prints how many m<k> there are (for
# onnx_cases, tests/cli/lib.sh); s_count holds how many s<k>.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

from caselib import model, vi, write

F, D, I64, I32, B, S = (TP.FLOAT, TP.DOUBLE, TP.INT64, TP.INT32, TP.BOOL,
                        TP.STRING)
N = H.make_node


def strs(xs):
    return np.array(xs, dtype=object)


def main():
    os.chdir(sys.argv[1])
    ms, ss = [], []

    # Numbers to text: numpy's shortest round-trip text of each dtype.
    f32 = np.array([0.1, 1e-5, 1e-4, 0.5e-4, 1e16, 1.5e20, -0.0, 0.0,
                    np.nan, np.inf, -np.inf, 1.0, 123456789.0,
                    3.4028235e38, 1e-45, -2.5, 100.0, 0.3],
                   dtype=np.float32)
    f64 = f32.astype(np.float64) / 3
    i32 = np.array([0, -1, 2147483647, -2147483648, 12], dtype=np.int32)
    bl = np.array([True, False])
    for dt, v in ((F, f32), (D, f64), (I32, i32), (B, bl)):
        ms.append(model([N('Cast', ['x'], ['y'], to=S)],
                        [vi('x', dt, [len(v)])], [vi('y', S, [len(v)])]))
        k = len(ms) - 1
        write(v, 'm%d_in0.pb' % k)
        write(strs([str(e) for e in v]), 'm%d_out0.pb' % k)

    # Text to numbers, as numpy's astype parses.
    t = [' 1.5 ', '+INF', '-inf', 'NaN', '1e-3', '-0', '7', 'infinity',
         '3.4028236e38', '1e-46']
    ms.append(model([N('Cast', ['x'], ['y'], to=F)], [vi('x', S, [len(t)])],
                    [vi('y', F, [len(t)])]))
    k = len(ms) - 1
    write(strs(t), 'm%d_in0.pb' % k)
    with np.errstate(over='ignore'):    # 3.4028236e38 rounds to inf
        write(np.array(t).astype(np.float64).astype(np.float32),
              'm%d_out0.pb' % k)
    t = ['12', '-7', ' 42 ', '+3', '9223372036854775807']
    ms.append(model([N('Cast', ['x'], ['y'], to=I64)],
                    [vi('x', S, [len(t)])], [vi('y', I64, [len(t)])]))
    k = len(ms) - 1
    write(strs(t), 'm%d_in0.pb' % k)
    write(np.array([int(e) for e in t], dtype=np.int64), 'm%d_out0.pb' % k)

    # StringNormalizer without stopwords: no data needed at import.
    w = ['Monday', 'dÍa', 'x"y\\z', '']
    ms.append(model([N('StringNormalizer', ['x'], ['y'],
                       case_change_action='UPPER')],
                    [vi('x', S, [len(w)])], [vi('y', S, [len(w)])],
                    opset=10))
    k = len(ms) - 1
    write(strs(w), 'm%d_in0.pb' % k)
    write(strs(['MONDAY', 'DÍA', 'X"Y\\Z', '']), 'm%d_out0.pb' % k)

    # StringNormalizer with stopwords, the input bound at import.
    def strnorm(x, y, **attrs):
        ss.append(model([N('StringNormalizer', ['x'], ['y'], **attrs)],
                        [vi('x', S, list(np.shape(x)))],
                        [vi('y', S, None)], opset=10))
        k = len(ss) - 1
        write(strs(x), 's%d_in0.pb' % k)
        write(strs(y), 's%d_out0.pb' % k)
    strnorm([['The', 'cat', 'THE', 'sat', 'a"b', 'the']],
            [['cat', 'sat']], stopwords=['the', 'a"b'],
            is_case_sensitive=0, locale='en_US')
    write(strs([['the', 'cat', 'sat', 'on', 'a', 'mat']]), 's0_other.pb')
    strnorm(['The', 'cat', 'THE', 'sat', 'a"b', 'the'],
            ['the', 'cat', 'the', 'sat', 'the'], stopwords=['a"b', 'x'],
            is_case_sensitive=1, case_change_action='LOWER')
    strnorm(['Monday', 'monday'], [''], stopwords=['MONDAY'],
            case_change_action='LOWER')

    for i, m in enumerate(ms):
        onnx.save(m, 'm%d.onnx' % i)
    for i, m in enumerate(ss):
        onnx.save(m, 's%d.onnx' % i)

    # Refused.
    def refuse(name, attrs, x, inits=()):
        onnx.save(model([N('StringNormalizer', ['x'], ['y'], **attrs)],
                        [vi('x', S, list(np.shape(x)))], [vi('y', S, None)],
                        inits, opset=10), 'r_%s.onnx' % name)
        write(strs(x), 'r_%s_in0.pb' % name)
    refuse('locale', {'locale': 'tr_TR', 'case_change_action': 'UPPER'},
           ['i'])
    refuse('action', {'case_change_action': 'TITLE'}, ['i'])
    refuse('unbound', {'stopwords': ['a']}, ['a', 'b'])
    refuse('matrix', {}, [['a'], ['b']])
    refuse('control', {'stopwords': ['a\x01']}, ['a'])
    with open('s_count', 'w') as f:
        f.write('%d\n' % len(ss))
    print(len(ms))


main()
