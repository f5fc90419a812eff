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
# The model is made for the bound data: the kernel asserts it (SPEC
# 6.8), by the data's hash, so other data is refused wherever the
# kernel runs: tdsl run ...
grep -q "^    assert hash(x) == -\{0,1\}[0-9]*, \"input 'x' is not the data \
bound at import (import the model again with --bind for this data)\"$" \
    e0.tdsl || fail "no assert of the bound data: $(cat e0.tdsl)"
for target in interp cpu; do
    "$TDSL" run e0.tdsl --in other.pb --out o.npy --target $target 2>err &&
        fail "other data than the bound data was run on $target"
    [ "$(head -1 err)" = "e0.tdsl:7:5: error: 'g' refuses these \
arguments: input 'x' is not the data bound at import (import the model \
again with --bind for this data)" ] || fail "other data: $(cat err)"
done
# ... a script that imports the model, on the interpreter and on cpu
# (the same data runs) ...
$py - <<'PY' || fail "npy files"
import numpy as np, onnx
from onnx import numpy_helper
for m, n in (('m0_in0', 'x'), ('other', 'x3'), ('m1_in0', 'u')):
    np.save(n + '.npy', numpy_helper.to_array(onnx.load_tensor(m + '.pb')))
u = numpy_helper.to_array(onnx.load_tensor('m1_in0.pb'))
y = numpy_helper.to_array(onnx.load_tensor('m1_out0.pb'))
u.astype(np.float32).tofile('u.bin')
(u * 3).astype(np.float32).tofile('u3.bin')
y.astype(np.float32).tofile('y.bin')
PY
for target in '#' target; do
    printf 'import "e0.tdsl" as m\nlet x: f32[3, 4] = load("x.npy")\n'`
          `'let x3: f32[3, 4] = load("x3.npy")\n%s cpu\n'`
          `'print m.g(x)\nprint m.g(x3)\n' "$target" >s.tdsl
    "$TDSL" s.tdsl >out 2>err && fail "script: other data ran on $target"
    [ "$(sed -n 1p err)" = "e0.tdsl:7:5: error: 'g' refuses these \
arguments: input 'x' is not the data bound at import (import the model \
again with --bind for this data)" ] &&
        [ "$(grep -c 'note: in this call of' err)" = 1 ] &&
        grep -q "^s.tdsl:6:7: note: in this call of 'g'$" err ||
        fail "script on $target: $(cat err)"
    grep -q '^\[\[1 1 1 2 3 3\]$' out || fail "script on $target: $(cat out)"
done
# ... and a C program calling the kernel compiled ahead of time (Unique:
# no weights file), which returns TDSL_ERR_ASSERT for other data.
if command -v cc >/dev/null 2>&1; then
    "$TDSL" compile e1.tdsl --target cpu -o e1.so -o e1.h 2>err ||
        fail "compile e1: $(cat err)"
    cat >main.c <<'C'
#include "e1.h"
#include <stdio.h>
static void load(const char *path, float *v, int n)
{
    FILE *f = fopen(path, "rb");
    if (!f || fread(v, sizeof *v, (size_t)n, f) != (size_t)n)
        printf("cannot read %s\n", path);
    if (f)
        fclose(f);
}
int main(void)
{
    float u[8], u3[8], us[16], want[5], y[5];
    int64_t idx[5], inv[8], cnt[5], n8[1] = {8}, n5[1] = {5}, st[1] = {2};
    int rc, same = 1;
    load("u.bin", u, 8);
    load("u3.bin", u3, 8);
    load("y.bin", want, 5);
    for (int i = 0; i < 8; i++)
        us[2 * i] = u[i], us[2 * i + 1] = -7.0f;
    rc = tdsl_g(u, n8, NULL, y, n5, NULL, idx, n5, NULL, inv, n8, NULL,
                cnt, n5, NULL);
    for (int i = 0; i < 5; i++)
        same &= y[i] == want[i];
    printf("bound data: %d %d\n", rc == TDSL_OK, same);
    rc = tdsl_g(us, n8, st, y, n5, NULL, idx, n5, NULL, inv, n8, NULL,
                cnt, n5, NULL);
    printf("bound data by strides: %d\n", rc == TDSL_OK);
    rc = tdsl_g(u3, n8, NULL, y, n5, NULL, idx, n5, NULL, inv, n8, NULL,
                cnt, n5, NULL);
    printf("other data: %d\n", rc == TDSL_ERR_ASSERT);
    return 0;
}
C
    cc -std=c11 -Wall -Wextra -Werror -I. main.c -L. -l:e1.so \
        -Wl,-rpath,"$TMP" -o main 2>err || fail "main.c: $(cat err)"
    ./main >out 2>&1 || fail "main: $(cat out)"
    [ "$(cat out)" = "bound data: 1 1
bound data by strides: 1
other data: 1" ] || fail "main: $(cat out)"
fi
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
import_refused_bound big "node 'y' (NonZero, opset 13): 'x' has 5000 \
elements (at most 4096 are supported: each output counts over all of them)"
import_refused_bound axis "node 'y' (Unique, opset 11): axis 2 is out of \
range"
import_refused_bound bool "node 'y' (Unique, opset 11): Unique of bool \
values is not supported"
exit 0
