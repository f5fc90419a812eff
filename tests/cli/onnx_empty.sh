#!/bin/sh
# onnx_empty.sh - models whose tensors have a zero axis: NonZero of
# zeros, Compress that keeps nothing, Unique of an empty vector,
# NonMaxSuppression above every score, TopK with k = 0, an empty Slice
# and Range, and nodes that read an empty tensor (elementwise,
# Transpose, GatherND, Concat, ReduceSum and MatMul over the empty
# axis).  Each is imported with its inputs bound, run on the
# interpreter and on cpu, written to .npy (onnx_cases) and .pb, and
# compared with numpy's results (ReduceMax/ReduceMin of nothing: the
# identity, as ONNX says); then ArgMax over an empty axis, which has no
# value, is refused in one line.  Models from
# tests/onnx/empty_cases.py; skipped (77) without python3-onnx and
# python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases empty_cases.py bind
# The imported kernel's output has the zero axis.
grep -q '^kernel g(x: f32\[3, 4\]) -> (y: i64\[2, 0\])' e0.tdsl ||
    fail "NonZero of zeros: $(cat e0.tdsl)"
grep -q '^    nz\[i0 in 0..2, i1 in 0..0\] = sum(' e0.tdsl ||
    fail "NonZero's output does not declare its ranges: $(cat e0.tdsl)"
grep -q -- '-> (sel: i64\[0, 3\])' e5.tdsl ||
    fail "NonMaxSuppression that keeps nothing: $(cat e5.tdsl)"
# Empty .pb files as outputs on both targets, read back by numpy, and
# as inputs (Unique of an empty vector reads m4_in0.pb).
for target in interp cpu; do
    "$TDSL" run e0.tdsl --in m0_in0.pb --out y.pb --target $target 2>err ||
        fail "run e0 to .pb on $target: $(cat err)"
    "$TDSL" import --compare y.pb m0_out0.pb 2>err ||
        fail "e0's .pb on $target: $(cat err)"
    $py - <<'PY' || fail "numpy reads the empty outputs ($target)"
import numpy as np, onnx
from onnx import numpy_helper
a = numpy_helper.to_array(onnx.load_tensor('y.pb'))
b = np.load('m0_out0.npy')
assert a.shape == (2, 0) and a.dtype == np.int64, (a.shape, a.dtype)
assert b.shape == (2, 0) and b.dtype == np.int64, (b.shape, b.dtype)
PY
done
# ArgMax over an empty axis has no value: refused at import.
import_says "r_argmax.onnx: node 'y' (ArgMax, opset 12): axis 1 of 'nz' is \
empty, so ArgMax has no value there" r_argmax.onnx --bind '#0=r_argmax_in0.pb'
exit 0
