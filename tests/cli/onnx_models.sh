#!/bin/sh
# onnx_models.sh - models made at test time by tests/onnx/make_models.py:
# a symbolic batch dimension becomes a size variable (the imported
# kernel runs with two batch sizes, on the interpreter and on cpu,
# against numpy's outputs) unless bound with --bind; a model that
# computes with its batch size is refused with a hint to bind it, and
# imports once bound; an attribute no importer knows is one line,
# exit 1, no file left; BitShift of u8 past its width, on the
# interpreter and on cpu; GridSample, RoiAlign and MaxUnpool cases the
# importer refuses, one line each.  Skipped (77) without python3-onnx
# and numpy.
. "$(dirname "$0")/lib.sh"
top=$OLDPWD
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
$py "$top/tests/onnx/make_models.py" . 2>err ||
    fail "make_models.py: $(cat err)"

"$TDSL" import batch.onnx -o b.tdsl 2>err || fail "import: $(cat err)"
want='kernel mlp(x: f32\[batch, 4\]) -> (y: f32\[batch\], z: f32\[batch, 4\])'
grep -q "$want" b.tdsl || fail "no size variable: $(cat b.tdsl)"
"$TDSL" fmt --check b.tdsl || fail "b.tdsl is not canonical"
for n in 2 5; do
    for target in interp cpu; do
        "$TDSL" run b.tdsl --target $target --in batch${n}_x.pb \
            --out y.npy --out z.npy 2>err || fail "run $n $target: $(cat err)"
        for o in y z; do
            "$TDSL" import --compare $o.npy batch${n}_$o.pb 2>err ||
                fail "batch $n on $target, $o: $(cat err)"
        done
    done
done
# Bound, the batch is a number.
"$TDSL" import batch.onnx -o b3.tdsl --bind x=3x4 2>err ||
    fail "import --bind: $(cat err)"
grep -q 'kernel mlp(x: f32\[3, 4\])' b3.tdsl || fail "not bound: $(cat b3.tdsl)"

# Reshape to [-1, 2] computes 2 * batch: refused, then bound.
"$TDSL" import reshape.onnx -o r.tdsl 2>err && fail "reshape imported"
want="input 'x' has a symbolic dimension 'batch' .*--bind x=SHAPE\$"
grep -q "^reshape.onnx: $want" err ||
    fail "message: $(cat err)"
[ "$(wc -l <err)" = 1 ] || fail "more than one line: $(cat err)"
[ -e r.tdsl ] && fail "r.tdsl left behind"
"$TDSL" import reshape.onnx -o r.tdsl --bind x=3x4 2>err ||
    fail "reshape --bind: $(cat err)"

# An unknown attribute.
"$TDSL" import attr.onnx -o a.tdsl 2>err
st=$?
[ $st = 1 ] || fail "attr.onnx: exit $st"
want="node 'conv_17' (Conv, opset 11): unsupported attribute 'foo'"
[ "$(cat err)" = "attr.onnx: $want" ] ||
    fail "attr.onnx: $(cat err)"
[ -e a.tdsl ] || [ -e a.safetensors ] && fail "attr.onnx: a file left behind"
ls | grep -q '\.tmp' && fail "temporary file left behind"

for d in LEFT RIGHT; do
    "$TDSL" import shift_$d.onnx -o s.tdsl 2>err || fail "shift: $(cat err)"
    for target in interp cpu; do
        "$TDSL" run s.tdsl --target $target --in shift_x.pb --in shift_y.pb \
            --out z.npy 2>err || fail "shift $d on $target: $(cat err)"
        "$TDSL" import --compare z.npy shift_${d}_z.pb 2>err ||
            fail "shift $d on $target: $(cat err)"
    done
done
# Refusals: one line naming the node and why, exit 1, no file left.
refused() {
    "$TDSL" import "$1.onnx" -o ref.tdsl 2>err
    st=$?
    [ $st = 1 ] || fail "$1.onnx: exit $st: $(cat err)"
    [ "$(cat err)" = "$1.onnx: $2" ] || fail "$1.onnx: $(cat err)"
    [ -e ref.tdsl ] || [ -e ref.safetensors ] &&
        fail "$1.onnx: a file left behind"
    return 0
}
refused grid_computed \
    "node 'gs' (GridSample, opset 16): X must be a graph input or a constant"
refused roi_computed \
    "node 'ra' (RoiAlign, opset 16): X must be a graph input or a constant"
refused roi_max "node 'ra' (RoiAlign, opset 16): mode 'max' is not supported"
refused roi_adaptive "node 'ra' (RoiAlign, opset 16): sampling_ratio 0 \
(adaptive) is not supported"
refused unpool_computed "node 'mu' (MaxUnpool, opset 11): X and I must be \
graph inputs or constants"
exit 0
