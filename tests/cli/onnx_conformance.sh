#!/bin/sh
# onnx_conformance.sh - the ONNX backend tests listed in
# tests/onnx/passing.txt (those that passed when it was last
# regenerated) must all still pass: import, run on the interpreter,
# compare with the expected outputs.  Skipped (77) without
# libonnx-testdata.
[ -d "${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}/node" ] || exit 77
TDSL=$TDSL TMPDIR=$TMP sh tests/onnx/conformance.sh -v \
    --list tests/onnx/passing.txt >"$TMP/log" 2>&1
rc=$?
tail -n 1 "$TMP/log"
if [ $rc != 0 ]; then
    grep -v '^PASS' "$TMP/log"
    exit 1
fi
