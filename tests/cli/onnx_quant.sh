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
onnx_cases quant_cases.py
# Refusals: one line naming the node and why, exit 1, no file left.
import_refused() {
    "$TDSL" import "$1.onnx" -o ref.tdsl 2>err
    st=$?
    [ $st = 1 ] || fail "$1.onnx: exit $st: $(cat err)"
    [ "$(cat err)" = "$1.onnx: node 'q' ($2" ] || fail "$1.onnx: $(cat err)"
    [ -e ref.tdsl ] || [ -e ref.safetensors ] &&
        fail "$1.onnx: a file left behind"
    return 0
}
import_refused r_axis_opset10 "QuantizeLinear, opset 10): 's' must be a scalar"
import_refused r_axis_length "QuantizeLinear, opset 13): 's' must be a scalar or \
have one entry per element along 'axis'"
import_refused r_zero_point_2d "MatMulInteger, opset 10): 'a_zero_point' must be \
a scalar or have one entry per row of A"
import_refused r_float_input "ConvInteger, opset 10): 'x' must be uint8 or int8, \
not f32"
exit 0
