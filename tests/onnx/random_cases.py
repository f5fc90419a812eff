# random_cases.py make OUTDIR | check OUTDIR K - the ONNX random ops
# (tests/cli/onnx_random.sh).  `make` writes models m<k>.onnx with
# inputs m<k>_in<j>.pb and prints how many; `check` checks the outputs
# m<k>_out<j>.npy of model k as run by tdsl: shapes, dtypes, the
# domain of the draws and their statistics, within bounds of 6 or more
# standard deviations of the estimate (the seeds are fixed, so the
# figures are too; a wrong generator or a wrong mapping cannot meet
# them).  It prints one line saying what is wrong and exits 1.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as H, numpy_helper

import caselib
from caselib import vi, write

F, D, F16, I32, I64, B = (TP.FLOAT, TP.DOUBLE, TP.FLOAT16, TP.INT32,
                          TP.INT64, TP.BOOL)
N = H.make_node


def model(nodes, ins, outs, inits=(), opset=15):
    return caselib.model(nodes, ins, outs, inits, opset)


def make():
    ms = []
    n = 100000
    # 0: RandomUniform on [-2, 3) and RandomNormal (mean 5, scale 2),
    # seeded, rank 2 (the counter a flat index).
    ms.append(model([N('RandomUniform', [], ['u'], shape=[250, 400],
                       low=-2.0, high=3.0, seed=11.0),
                     N('RandomNormal', [], ['g'], shape=[250, 400],
                       mean=5.0, scale=2.0, seed=12.0)],
                    [], [vi('u', F, [250, 400]), vi('g', F, [250, 400])]))
    # 1: the Like forms, f64 and f16 outputs from an f32 input's shape,
    # and two RandomUniformLike without seeds (they must differ).
    ms.append(model([N('RandomUniformLike', ['x'], ['a'], dtype=D),
                     N('RandomNormalLike', ['x'], ['b'], dtype=F16,
                       scale=0.5),
                     N('RandomUniformLike', ['x'], ['c']),
                     N('RandomUniformLike', ['x'], ['d'])],
                    [vi('x', F, [n])],
                    [vi('a', D, [n]), vi('b', F16, [n]), vi('c', F, [n]),
                     vi('d', F, [n])]))
    write(np.zeros(n, np.float32), 'm1_in0.pb')
    # 2: Bernoulli of p = 0.3 everywhere (f32 out), of p from 0 to 1
    # (bool out; 0 never, 1 always), and with a seed twice: equal.
    p = np.linspace(0, 1, n).astype(np.float32)
    ms.append(model([N('Bernoulli', ['q'], ['y'], seed=3.0),
                     N('Bernoulli', ['p'], ['z'], dtype=B),
                     N('Bernoulli', ['q'], ['w'], seed=3.0)],
                    [vi('q', F, [n]), vi('p', F, [n])],
                    [vi('y', F, [n]), vi('z', B, [n]), vi('w', F, [n])]))
    write(np.full(n, 0.3, np.float32), 'm2_in0.pb')
    write(p, 'm2_in1.pb')
    # 3: Multinomial: rows of probabilities (0.2, 0.8), (0.5, 0.25, 0.25
    # written as 3 classes), and one with a class of probability 0.
    with np.errstate(divide='ignore'):
        lg = np.log(np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25],
                              [0.0, 1.0, 0.0]])).astype(np.float32)
    ms.append(model([N('Multinomial', ['l'], ['s'], sample_size=20000,
                       seed=4.0, dtype=I64)],
                    [vi('l', F, [3, 3])], [vi('s', I64, [3, 20000])]))
    write(lg, 'm3_in0.pb')
    # 4: Dropout in training mode: ratio 0.3 a constant, training_mode
    # an input (true here), the mask asked for; opset 13.
    r = numpy_helper.from_array(np.float32(0.3), 'r')
    ms.append(model([N('Dropout', ['x', 'r', 't'], ['y', 'm'], seed=7)],
                    [vi('x', F, [200, 500]), vi('t', B, [])],
                    [vi('y', F, [200, 500]), vi('m', B, [200, 500])], [r],
                    opset=13))
    write(np.linspace(1, 2, n).astype(np.float32).reshape(200, 500),
          'm4_in0.pb')
    write(np.bool_(True), 'm4_in1.pb')
    # 5: the same model with training_mode false: the identity.
    ms.append(ms[-1])
    write(np.linspace(1, 2, n).astype(np.float32).reshape(200, 500),
          'm5_in0.pb')
    write(np.bool_(False), 'm5_in1.pb')
    # 6: Dropout of opset 6, is_test 0 (training), ratio 0.5.
    ms.append(model([N('Dropout', ['x'], ['y'], ratio=0.5, is_test=0)],
                    [vi('x', F, [n])], [vi('y', F, [n])], opset=6))
    write(np.ones(n, np.float32), 'm6_in0.pb')
    # 7: f16 data, an f64 ratio input of 0.25, training_mode a constant.
    t = numpy_helper.from_array(np.bool_(True), 't')
    ms.append(model([N('Dropout', ['x', 'r', 't'], ['y', 'm'])],
                    [vi('x', F16, [n]), vi('r', D, [])],
                    [vi('y', F16, [n]), vi('m', B, [n])], [t], opset=13))
    write(np.linspace(-3, 3, n).astype(np.float16), 'm7_in0.pb')
    write(np.float64(0.25), 'm7_in1.pb')
    for k, m in enumerate(ms):
        onnx.save(m, 'm%d.onnx' % k)
    # Models the importer refuses, each with its one line.
    refused = {
        'uniform_int': model([N('RandomUniform', [], ['y'], shape=[2],
                                dtype=I32)], [], [vi('y', I32, [2])]),
        'normal_noshape': model([N('RandomNormal', [], ['y'])], [],
                                [vi('y', F, [2])]),
        'bernoulli_int': model([N('Bernoulli', ['x'], ['y'])],
                               [vi('x', I32, [2])], [vi('y', I32, [2])]),
        'multinomial_rank1': model([N('Multinomial', ['x'], ['y'])],
                                   [vi('x', F, [4])], [vi('y', I32, [1])]),
        'dropout_ratio_vec': model([N('Dropout', ['x', 'r', 't'], ['y'])],
                                   [vi('x', F, [4]), vi('r', F, [1]),
                                    vi('t', B, [])], [vi('y', F, [4])],
                                   opset=13),
    }
    for name, m in refused.items():
        onnx.save(m, 'r_%s.onnx' % name)
    print(len(ms))


def fail(msg):
    print(msg)
    sys.exit(1)


def near(what, got, want, tol):
    if not abs(got - want) <= tol:
        fail('%s is %.6g, expected %.6g +- %.3g' % (what, got, want, tol))


def check(k):
    outs = []
    j = 0
    while os.path.exists('m%d_out%d.npy' % (k, j)):
        outs.append(np.load('m%d_out%d.npy' % (k, j)))
        j += 1
    if k == 0:
        u, g = outs
        if u.shape != (250, 400) or u.dtype != np.float32:
            fail('u is %s%s' % (u.dtype, u.shape))
        if not (u.min() >= -2 and u.max() < 3):
            fail('u outside [-2, 3)')
        # mean 0.5 (sd 0.0046), variance 25/12 (sd 0.0043)
        near('mean of u', u.mean(dtype=np.float64), 0.5, 0.03)
        near('variance of u', u.var(dtype=np.float64), 25 / 12, 0.03)
        near('mean of g', g.mean(dtype=np.float64), 5, 0.04)
        near('sd of g', g.std(dtype=np.float64), 2, 0.04)
    elif k == 1:
        a, b, c, d = outs
        if a.dtype != np.float64 or b.dtype != np.float16:
            fail('dtypes %s %s' % (a.dtype, b.dtype))
        if not (a.min() >= 0 and a.max() < 1 and c.min() >= 0 and
                c.max() < 1):
            fail('a uniform outside [0, 1)')
        near('mean of a', a.mean(), 0.5, 0.006)
        near('sd of b', b.astype(np.float64).std(), 0.5, 0.01)
        if np.sum(c == d) > 5:
            fail('two nodes without seeds drew the same values')
        if np.sum(a == c) > 5:
            fail('two Like nodes without seeds drew the same values')
    elif k == 2:
        y, z, w = outs
        if y.dtype != np.float32 or z.dtype != np.bool_:
            fail('dtypes %s %s' % (y.dtype, z.dtype))
        if not np.all((y == 0) | (y == 1)):
            fail('a Bernoulli value other than 0 and 1')
        # 0.3 (sd 0.00145)
        near('frequency of 1 at p = 0.3', y.mean(), 0.3, 0.01)
        if z[0] or not z[-1]:
            fail('p = 0 gave 1 or p = 1 gave 0')
        # mean of p: 0.5 (sd 0.0013)
        near('frequency of true at p 0 .. 1', z.mean(), 0.5, 0.01)
        # the chance of a 1 grows with p: the first tenth against the last
        near('frequency of true at p < 0.1', z[:n10()].mean(), 0.05, 0.015)
        near('frequency of true at p > 0.9', z[-n10():].mean(), 0.95, 0.015)
        if not np.array_equal(y, w):
            fail('the same seed drew other values')
    elif k == 3:
        s, = outs
        if s.shape != (3, 20000) or s.dtype != np.int64:
            fail('s is %s%s' % (s.dtype, s.shape))
        if s.min() < 0 or s.max() > 2:
            fail('a class outside 0 .. 2')
        f = [np.bincount(s[i], minlength=3) / 20000 for i in range(3)]
        # sd 0.003 at most
        for i, want in enumerate([[0.2, 0.8, 0], [0.5, 0.25, 0.25],
                                  [0, 1, 0]]):
            for c in range(3):
                near('frequency of class %d in row %d' % (c, i), f[i][c],
                     want[c], 0.02)
    elif k in (4, 5):
        y, m = outs
        x = np.linspace(1, 2, 100000).astype(np.float32).reshape(200, 500)
        if k == 5:
            if not (np.array_equal(y, x) and m.all()):
                fail('training_mode false is not the identity')
            return
        kept = y == (x * np.float32(1 / 0.7))
        if not np.all(np.where(m, kept, y == 0)):
            fail('the output disagrees with the mask')
        # kept with chance 0.7 (sd 0.00145)
        near('share kept', m.mean(), 0.7, 0.01)
    elif k == 7:
        y, m = outs
        x = np.linspace(-3, 3, 100000).astype(np.float16)
        if y.dtype != np.float16:
            fail('y is %s' % y.dtype)
        kept = np.isclose(y, x * np.float16(4 / 3), rtol=1e-3, atol=0)
        if not np.all(np.where(m, kept, y == 0)):
            fail('the output disagrees with the mask')
        near('share kept', m.mean(), 0.75, 0.01)
    elif k == 6:
        y, = outs
        if not np.all((y == 0) | (y == 2)):
            fail('a value other than 0 and 2')
        near('share kept', (y == 2).mean(), 0.5, 0.01)


def n10():
    return 10000


if __name__ == '__main__':
    os.chdir(sys.argv[2])
    if sys.argv[1] == 'make':
        make()
    else:
        check(int(sys.argv[3]))
