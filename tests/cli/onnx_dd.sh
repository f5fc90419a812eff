#!/bin/sh
# onnx_dd.sh - ops whose output size depends on data, imported when
# that data is bound at import: NonZero and Unique, of a vector, along
# an axis and flattened (their sizes counted at import, the outputs
# computed by the kernel from its input) and a Loop whose trip count is
# computed from float inputs (Range written as a Loop).  Each model is
# imported with its inputs bound, run on the interpreter and on cpu
# with them, and compared with numpy's results; then the refusals, each
# with its one line.  Models from tests/onnx/dd_cases.py; skipped (77)
# without python3-onnx and python3-numpy.  NonMaxSuppression is
# onnx_nms.sh.
. "$(dirname "$0")/lib.sh"
onnx_cases dd_cases.py bind
# The kernel computes from its input: NonZero's positions are a stage
# (not a constant), Unique's too, and the Loop's values.
grep -q '^    nonzero_pos\[i0, i1\] = sum(' e0.tdsl ||
    fail "NonZero is not computed by the kernel: $(cat e0.tdsl)"
grep -q '^    y\[i0\] = sum(r0 in 0..8) select(unique_first' e1.tdsl ||
    fail "Unique is not computed by the kernel: $(cat e1.tdsl)"
grep -q '^    u_flat\[i0 in 0..12\] = u\[i0 / 4, i0 % 4\]$' e6.tdsl ||
    fail "Unique does not flatten its input: $(cat e6.tdsl)"
grep -q '^    u_flat\[i0 in 0..6\] = u\[i0 / 3, 0, i0 % 3\]$' e7.tdsl ||
    fail "Unique does not flatten its input: $(cat e7.tdsl)"
grep -q '# the trip count is computed from the data bound at import' \
    e3.tdsl || fail "no note on the trip count: $(cat e3.tdsl)"
grep -q 'cur_0\[\] = start\[\] + delta\[\]' e3.tdsl ||
    fail "the Loop's values are not computed: $(cat e3.tdsl)"
# Other values of the same count.
$py - <<'PY' || fail "other values"
import numpy as np
from onnx import numpy_helper
x = numpy_helper.to_array(
    __import__('onnx').load_tensor('m0_in0.pb'))
open('other.pb', 'wb').write(numpy_helper.from_array(
    (x * 3).astype(np.float32)).SerializeToString())
PY
# The model is made for the bound data: tdsl run refuses other data
# (the header's "# onnx-bound:" line holds the bound data's hash) ...
grep -q "^# onnx-bound: 'x' = x [0-9a-f]\{16\}$" e0.tdsl ||
    fail "no onnx-bound line: $(cat e0.tdsl)"
"$TDSL" run e0.tdsl --in other.pb --out o.npy 2>err &&
    fail "other data than the bound data was run"
[ "$(cat err)" = "tdsl: input 'x' of 'g': not the data bound at import \
(the model was made for the data of tdsl import --bind x=FILE; import it \
again with --bind for this data)" ] || fail "other data: $(cat err)"
# ... and imported again with it, runs it.
"$TDSL" import m0.onnx -o e0b.tdsl --bind "#0=other.pb" 2>err ||
    fail "import with other values: $(cat err)"
"$TDSL" run e0b.tdsl --in other.pb --out o.npy 2>err ||
    fail "run with other values: $(cat err)"
"$TDSL" import --compare o.npy m0_out0.pb 2>err ||
    fail "other values of the same zeros: $(cat err)"

# Refused: not bound, and what is not supported.
import_refused_bound() {
    import_says "r_$1.onnx: $2" "r_$1.onnx" --bind "#0=r_$1_in0.pb"
}
"$TDSL" import m0.onnx -o ref.tdsl 2>err && fail "NonZero without a bind"
[ "$(cat err)" = "m0.onnx: node 'nz' (NonZero, opset 13): the output's \
size depends on the values of 'x', which are not known at import (bind it \
with --bind)" ] || fail "NonZero without a bind: $(cat err)"
"$TDSL" import m3.onnx -o ref.tdsl 2>err && fail "Loop without a bind"
[ "$(cat err)" = "m3.onnx: node 'last' (Loop, opset 13): the trip count \
'n' is not known at import (the loop is unrolled; bind it with --bind)" ] ||
    fail "Loop without a bind: $(cat err)"
import_refused_bound scalar "node 'y' (NonZero, opset 13): a scalar input \
is not supported"
import_refused_bound zeros "node 'y' (NonZero, opset 13): the output would \
be empty (not supported)"
import_refused_bound big "node 'y' (NonZero, opset 13): 'x' has 5000 \
elements (at most 4096 are supported: each output counts over all of them)"
import_refused_bound axis "node 'y' (Unique, opset 11): axis 2 is out of \
range"
import_refused_bound bool "node 'y' (Unique, opset 11): Unique of bool \
values is not supported"
exit 0
