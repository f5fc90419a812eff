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
import_refused r_axis_opset10 "node 'q' (QuantizeLinear, opset 10): \
's' must be a scalar"
import_refused r_axis_length "node 'q' (QuantizeLinear, opset 13): \
's' must be a scalar or have one entry per element along 'axis'"
import_refused r_zero_point_2d "node 'q' (MatMulInteger, opset 10): \
'a_zero_point' must be a scalar or have one entry per row of A"
import_refused r_float_input "node 'q' (ConvInteger, opset 10): \
'x' must be uint8 or int8, not f32"
exit 0
