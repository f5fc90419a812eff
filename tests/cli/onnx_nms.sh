#!/bin/sh
# onnx_nms.sh - NonMaxSuppression, whose number of rows depends on the
# boxes and scores: imported with its inputs bound (the rows counted at
# import), the kernel choosing the boxes from its inputs.  Each model of
# tests/onnx/nms_cases.py (corners and centres, batches and classes, a
# chain of overlaps that the greedy choice takes every other box of,
# equal scores, identical boxes, a score threshold or none, a limit) is
# run on the interpreter and on cpu and compared with the greedy choice
# in Python; then other data is refused, and the imports refused, each
# with its one line.  Skipped (77) without python3-onnx and
# python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases nms_cases.py bind
# The kernel computes the choice: a round per box after the first, and
# the rows from the boxes kept.
[ "$(grep -c '^    nms_keep_[0-9]*\[i0, i1, i2\] = nms_keep\[' e0.tdsl)" = 6 ] ||
    fail "not 6 rounds for 7 boxes: $(cat e0.tdsl)"
grep -q '^    sel\[i0, i1\] = sum(r0 in 0..2, r1 in 0..2, r2 in 0..7) select(nms_sel' \
    e0.tdsl || fail "the rows are not computed by the kernel: $(cat e0.tdsl)"
grep -q '^    nms_lo\[i0, i1, i2\] = boxes\[i0, i1, i2\] - boxes\[i0, i1, i2 + 2\] / 2.0$' \
    e1.tdsl || fail "centres: $(cat e1.tdsl)"

# The model is made for the bound data: other scores are refused ...
$py - <<'PY' || fail "other scores"
import numpy as np
import onnx
from onnx import numpy_helper
s = numpy_helper.to_array(onnx.load_tensor('m0_in1.pb'))
open('other.pb', 'wb').write(numpy_helper.from_array(
    s[..., ::-1].copy()).SerializeToString())
PY
# (the kernel asserts the bound data's hash, SPEC 6.8)
grep -q "^    assert hash(scores) == -\{0,1\}[0-9]*, \"input 'scores' is \
not the data bound at import (import the model again with --bind for \
this data)\"$" e0.tdsl || fail "no assert of the bound data: $(cat e0.tdsl)"
"$TDSL" run e0.tdsl --in m0_in0.pb --in other.pb --in m0_in2.pb \
    --in m0_in3.pb --in m0_in4.pb --out o.npy 2>err &&
    fail "other scores than the bound ones were run"
[ "$(head -1 err)" = "e0.tdsl:8:5: error: 'g' refuses these arguments: \
input 'scores' is not the data bound at import (import the model again \
with --bind for this data)" ] || fail "other scores: $(cat err)"
# ... and not bound, the import is.
import_says "m0.onnx: node 'sel' (NonMaxSuppression, opset 11): the \
output's size depends on the values of 'boxes', which are not known at \
import (bind it with --bind)" m0.onnx

# Refused with the data bound.
refused_bound() {
    binds= j=0
    for f in r_$1_in*.pb; do
        binds="$binds --bind #$j=$f"
        j=$((j + 1))
    done
    # shellcheck disable=SC2086
    import_says "r_$1.onnx: node 'sel' (NonMaxSuppression, opset 11): $2" \
        "r_$1.onnx" $binds
}
refused_bound center "center_point_box 2 is not 0 or 1"
refused_bound shape "the boxes must be [batches, N, 4] and the scores \
[batches, classes, N]"
refused_bound big "1 batches x 1 classes x 300 boxes (at most 256 boxes \
and 4096 in all are supported: the choice takes a stage per box)"
refused_bound thr "'iou' has 2 elements (a scalar is expected)"
exit 0
