#!/bin/sh
# onnx_models.sh - models made at test time by tests/onnx/make_models.py:
# a symbolic batch dimension becomes a size variable (the imported
# kernel runs with two batch sizes, on the interpreter and on cpu,
# against numpy's outputs) unless bound with --bind; a model that
# computes with its batch size is refused with a hint to bind it, and
# imports once bound; an attribute no importer knows is one line,
# exit 1, no file left; BitShift of u8 past its width, on the
# interpreter and on cpu; LeakyRelu with a NaN and an infinite alpha;
# RoiAlign cases the importer refuses, one line
# each; GridSample, RoiAlign and MaxUnpool of computed data against
# the same ops on graph inputs.  Skipped (77) without python3-onnx
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
# NaN and infinite attributes.
for m in leaky_nan leaky_inf; do
    "$TDSL" import $m.onnx -o $m.tdsl 2>err || fail "import $m: $(cat err)"
    for target in interp cpu; do
        "$TDSL" run $m.tdsl --target $target --in leaky_x.pb --out y.npy \
            2>err || fail "$m on $target: $(cat err)"
        "$TDSL" import --compare y.npy ${m}_y.pb 2>err ||
            fail "$m on $target: $(cat err)"
    done
done
# Attributes at the ends of their range.
for t in "ext_eye_1 ext_eye_x.pb:ext_eye_y.pb" "ext_eye_0 ext_eye_x.pb:ext_eye_y.pb" \
         "ext_lrn ext_x.pb:ext_lrn_y.pb" \
         "ext_nll ext_nll_in.pb,ext_nll_t.pb:ext_nll_loss.pb" \
         "ext_scatter ext_sc_data.pb,ext_sc_ind.pb,ext_sc_upd.pb:ext_sc_y.pb"; do
    m=${t%% *} io=${t#* }
    ins=$(echo "${io%%:*}" | sed 's/,/ --in /g') want=${io#*:}
    "$TDSL" import $m.onnx -o $m.tdsl 2>err || fail "import $m: $(cat err)"
    for target in interp cpu; do
        # shellcheck disable=SC2086
        "$TDSL" run $m.tdsl --target $target --in $ins --out o.npy 2>err ||
            fail "$m on $target: $(cat err)"
        "$TDSL" import --compare o.npy $want 2>err ||
            fail "$m on $target: $(cat err)"
    done
done
# Refusals: one line naming the node and why, exit 1, no file left.
import_refused roi_max "node 'ra' (RoiAlign, opset 16): mode 'max' is not supported"
import_refused ext_d2s "node 'y' (DepthToSpace, opset 11): blocksize \
4611686018427387904 is larger than the channels"
import_refused ext_pool "node 'y' (MaxPool, opset 13): a kernel, stride, dilation \
or pad above 2147483647"
import_refused ext_convt "node 'y' (ConvTranspose, opset 13): a stride, dilation, \
pad or output size above 2147483647"
import_refused ext_autopad "node 'y' (Conv, opset 11): auto_pad 'XYZ' is none of \
NOTSET, SAME_UPPER, SAME_LOWER and VALID"
import_refused ext_d2s_mode "node 'y' (DepthToSpace, opset 11): mode 'XYZ' is \
neither DCR nor CRD"
import_refused ext_convb "node 'y' (Conv, opset 11): B must be a 1-D f32 tensor of \
1 values"
import_refused ext_lstm "node 'h' (LSTM, opset 14): initial_h must have the shape \
1, 1, 3"
"$TDSL" import ext_longattr.onnx -o ref.tdsl 2>err && fail "long auto_pad"
[ "$(wc -l <err)" = 1 ] && [ "$(wc -c <err)" -le 405 ] &&
    grep -q "auto_pad 'xxxx*\.\.\.\$" err || fail "long message: $(head -c 600 err)"
import_refused roi_adaptive "node 'ra' (RoiAlign, opset 16): sampling_ratio 0 \
(adaptive) is not supported"

# GridSample, RoiAlign and MaxUnpool of computed data: the same result
# as the op on a graph input holding that data, bit for bit, on the
# interpreter and on cpu; the copy stage declares its extent.
imp() {
    "$TDSL" import "$1.onnx" -o "$1.tdsl" 2>err || fail "import $1: $(cat err)"
    "$TDSL" fmt --check "$1.tdsl" || fail "$1.tdsl is not canonical"
}
for m in grid_computed grid_direct roi_computed roi_direct unpool_computed \
         unpool_direct unpool_pool roi_third; do
    imp $m
done
grep -q 'r_all\[i0 in 0\.\.1, i1 in 0\.\.1, i2 in 0\.\.4, i3 in 0\.\.4\] = r\[' \
    grid_computed.tdsl || fail "no copy stage: $(cat grid_computed.tdsl)"
# A float attribute reads back as itself (%g wrote 0.333333).
grep -q 'f32(0\.3333333432674408)' roi_third.tdsl ||
    fail "spatial_scale 1/3: $(grep '_y\[' roi_third.tdsl)"
for target in interp cpu; do
    run() {
        m=$1 o=$2
        shift 2
        "$TDSL" run $m.tdsl --target $target "$@" --out $o 2>err ||
            fail "$m on $target: $(cat err)"
    }
    run grid_computed gc.npy --in c_x.pb --in c_grid.pb
    run grid_direct gd.npy --in c_relu_x.pb --in c_grid.pb
    run roi_computed rc.npy --in c_x.pb --in c_rois.pb --in c_bidx.pb
    run roi_direct rd.npy --in c_relu_x.pb --in c_rois.pb --in c_bidx.pb
    run unpool_computed uc.npy --in c_x.pb
    "$TDSL" run unpool_pool.tdsl --target $target --in c_x.pb --out q.npy \
        --out i.npy 2>err || fail "unpool_pool on $target: $(cat err)"
    run unpool_direct ud.npy --in q.npy --in i.npy
    for p in g r u; do
        cmp -s ${p}c.npy ${p}d.npy ||
            fail "$p computed differs from direct on $target"
    done
done
exit 0
