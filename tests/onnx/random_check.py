"""random_check.py - checks the outputs of an ONNX test whose expected
outputs are random draws (tests/onnx/random.tsv): each output has the
expected one's shape and dtype, and its values lie in the draw's domain.

usage: random_check.py CHECK [ARG...] TESTDIR GOT0.npy [GOT1.npy ...]
  CHECK  bernoulli            every value 0 or 1 (bool: any)
         dropout              output 0: every value 0 or x * 1 / (1 -
                              ratio) (x input 0, ratio input 1, 0.5 when
                              absent; outside training, input 2 false,
                              x itself); output 1, if any: true exactly
                              where output 0 is the scaled x
         uniform LOW HIGH     LOW <= value < HIGH
Prints one line saying what is wrong and exits 1, or exits 0.
"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def fail(msg):
    print(msg)
    sys.exit(1)


def main(argv):
    check = argv[1]
    nargs = 2 if check == "uniform" else 0
    args = argv[2:2 + nargs]
    test = argv[2 + nargs]
    got = [np.load(p) for p in argv[3 + nargs:]]
    set0 = os.path.join(test, "test_data_set_0")
    want = [pb(p) for p in sorted(glob.glob(os.path.join(set0, "output_*.pb")))]
    ins = [pb(p) for p in sorted(glob.glob(os.path.join(set0, "input_*.pb")))]
    if len(got) != len(want):
        fail("%d outputs, expected %d" % (len(got), len(want)))
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            fail("output %d is %s%s, expected %s%s"
                 % (k, g.dtype, list(g.shape), w.dtype, list(w.shape)))
    y = got[0]
    if check == "bernoulli":
        if y.dtype != np.bool_ and not np.all((y == 0) | (y == 1)):
            fail("a value other than 0 and 1")
    elif check == "uniform":
        lo, hi = float(args[0]), float(args[1])
        if not np.all((y >= lo) & (y < hi)):
            fail("a value outside [%g, %g)" % (lo, hi))
    elif check == "dropout":
        x = ins[0]
        ratio = float(ins[1]) if len(ins) > 1 else 0.5
        training = bool(ins[2]) if len(ins) > 2 else False
        scaled = x * (1.0 / (1.0 - ratio)) if training else x
        kept = np.isclose(y, scaled, rtol=1e-6, atol=0)
        dropped = y == 0
        if not np.all(kept | dropped):
            fail("a value that is neither 0 nor x / (1 - ratio)")
        inner = (x != 0) & np.isfinite(x)
        if training and 0 < ratio < 1 and x.size >= 50 and not (
                np.any(kept & ~dropped & inner) and np.any(dropped & inner)):
            fail("%d elements and not some of each kept and dropped"
                 % x.size)
        if len(got) > 1:
            mask = got[1]
            # where x is 0 both readings hold
            if not np.all(np.where(mask, kept, dropped)):
                fail("the mask disagrees with the output")
            if not training and not np.all(mask):
                fail("an element dropped outside training")
    else:
        fail("unknown check '%s'" % check)


if __name__ == "__main__":
    main(sys.argv)
