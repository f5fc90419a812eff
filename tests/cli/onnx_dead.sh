#!/bin/sh
# onnx_dead.sh - nodes whose outputs nothing reads (directly or through
# other such nodes) are left out of the import with a comment, so the
# source runs without "stage is never used"; a node read only inside a
# Loop's body stays.  An unsupported op in a dead node does not stop the
# import.
. "$(dirname "$0")/lib.sh"
PY=${PYTHON:-/usr/bin/python3}
"$PY" -c 'import onnx' 2>/dev/null || exit 77
"$PY" - <<'PYEOF' || fail "could not write the models"
import numpy as np, onnx
from onnx import TensorProto as TP, helper as H, numpy_helper
N = H.make_node
vi = H.make_tensor_value_info
x = vi('x', TP.FLOAT, [2, 3])
# dead chain: Relu -> Exp, and a dead op no importer knows
nodes = [N('Relu', ['x'], ['r']), N('Exp', ['r'], ['e']),
         N('NoSuchOp', ['x'], ['z'], domain='example.com'),
         N('Neg', ['x'], ['y'])]
g = H.make_graph(nodes, 'g', [x], [vi('y', TP.FLOAT, [2, 3])])
m = H.make_model(g, opset_imports=[H.make_opsetid('', 13),
                                   H.make_opsetid('example.com', 1)])
onnx.save(m, 'dead.onnx')
# 'a' is read only inside the Loop's body
body = H.make_graph(
    [N('Add', ['c_in', 'a'], ['c_out']), N('Identity', ['cond'], ['cond_out'])],
    'body', [vi('i', TP.INT64, []), vi('cond', TP.BOOL, []),
             vi('c_in', TP.FLOAT, [2, 3])],
    [vi('cond_out', TP.BOOL, []), vi('c_out', TP.FLOAT, [2, 3])])
trip = numpy_helper.from_array(np.array(3, np.int64), 'trip')
cond = numpy_helper.from_array(np.array(True), 'c0')
nodes = [N('Abs', ['x'], ['a']), N('Loop', ['trip', 'c0', 'x'], ['y'], body=body)]
g = H.make_graph(nodes, 'g', [x], [vi('y', TP.FLOAT, [2, 3])],
                 initializer=[trip, cond])
onnx.save(H.make_model(g, opset_imports=[H.make_opsetid('', 13)]), 'loop.onnx')
np.save('x.npy', np.array([[1, -2, 3], [-4, 5, -6]], np.float32))
PYEOF
"$TDSL" import dead.onnx -o dead.tdsl 2>err || fail "import: $(cat err)"
for n in Relu Exp NoSuchOp; do
    grep -q "# $n '.*' (nothing reads its outputs: left out)" dead.tdsl ||
        fail "no comment for $n: $(cat dead.tdsl)"
done
grep -q '^ *r\[' dead.tdsl && fail "dead stage imported: $(cat dead.tdsl)"
"$TDSL" fmt --check dead.tdsl || fail "fmt --check"
"$TDSL" run dead.tdsl --in x.npy --out y.npy 2>err || fail "run: $(cat err)"
[ -s err ] && fail "run says: $(cat err)"
"$PY" -c 'import numpy as np; y = np.load("y.npy"); x = np.load("x.npy")
assert (y == -x).all(), y' || fail "wrong values"
"$TDSL" import loop.onnx -o loop.tdsl 2>err || fail "loop import: $(cat err)"
grep -q 'left out' loop.tdsl && fail "Abs left out: $(cat loop.tdsl)"
"$TDSL" run loop.tdsl --in x.npy --out y.npy 2>err || fail "loop run: $(cat err)"
"$PY" -c 'import numpy as np; y = np.load("y.npy"); x = np.load("x.npy")
assert np.allclose(y, x + 3 * abs(x)), y' || fail "loop: wrong values"
exit 0
