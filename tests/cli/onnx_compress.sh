#!/bin/sh
# onnx_compress.sh - Compress with a condition known at import, along
# an axis and flattened: models and expected outputs made by
# tests/onnx/compress_cases.py, imported, run on the interpreter and on
# cpu, compared; then the refusals (a condition from data, a bad axis),
# one line each (one that keeps nothing: onnx_empty.sh).  Skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases compress_cases.py
for k in 0 1; do
    "$TDSL" fmt --check "e$k.tdsl" || fail "e$k.tdsl is not canonical"
done
grep -q 'y\[i0, i1, i2\] = x\[i0, y_index\[i1\], i2\]' e0.tdsl ||
    fail "no read through the index table: $(cat e0.tdsl)"
import_refused r_data "node 'y' (Compress, opset 11): the condition 'c' \
must be a 1-D tensor known at import (the output's shape depends on it; \
bind it with --bind)"
import_refused r_axis "node 'y' (Compress, opset 11): axis 3 is out of \
range"
exit 0
