#!/bin/sh
# onnx_quant.sh - the quantized ops on cases beyond the ONNX suite
# (int8, per-axis and per-row/column/channel parameters, ties and
# saturation, batched MatMulInteger, grouped and padded ConvInteger,
# QLinearConv with a bias): models and expected outputs made by
# tests/onnx/quant_cases.py, imported, run on the interpreter and on
# cpu, compared (exactly, for the integer outputs).  Then the
# importer's messages for parameters it cannot place.  Skipped (77)
# without python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
top=$OLDPWD
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
n=$($py "$top/tests/onnx/quant_cases.py" "$TMP" 2>err) ||
    fail "quant_cases.py: $(cat err)"
k=0
while [ "$k" -lt "$n" ]; do
    "$TDSL" import "m$k.onnx" -o "e$k.tdsl" 2>err ||
        fail "import case $k: $(cat err)"
    ins= outs=
    for f in m${k}_in*.pb; do ins="$ins --in $f"; done
    for f in m${k}_out*.pb; do outs="$outs --out ${f%.pb}.npy"; done
    for target in interp cpu; do
        "$TDSL" run "e$k.tdsl" $ins $outs --target $target 2>err ||
            fail "run case $k on $target: $(cat err)"
        for f in m${k}_out*.pb; do
            "$TDSL" import --compare "${f%.pb}.npy" "$f" 2>err ||
                fail "case $k on $target, $f: $(cat err)"
        done
    done
    k=$((k + 1))
done
# Refusals: one line naming the node and why, exit 1, no file left.
refused() {
    "$TDSL" import "$1.onnx" -o ref.tdsl 2>err
    st=$?
    [ $st = 1 ] || fail "$1.onnx: exit $st: $(cat err)"
    [ "$(cat err)" = "$1.onnx: node 'q' ($2" ] || fail "$1.onnx: $(cat err)"
    [ -e ref.tdsl ] || [ -e ref.safetensors ] &&
        fail "$1.onnx: a file left behind"
    return 0
}
refused r_axis_opset10 "QuantizeLinear, opset 10): 's' must be a scalar"
refused r_axis_length "QuantizeLinear, opset 13): 's' must be a scalar or \
have one entry per element along 'axis'"
refused r_zero_point_2d "MatMulInteger, opset 10): 'a_zero_point' must be \
a scalar or have one entry per row of A"
refused r_float_input "ConvInteger, opset 10): 'x' must be uint8 or int8, \
not f32"
exit 0
