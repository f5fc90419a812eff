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
# The summary has a line per op type and per tier of the scope.
grep -q '^onnx op Conv: [1-9][0-9]* passed, 0 failed, 0 unsupported$' \
    "$TMP/log" || { echo "no line for Conv"; tail -n 20 "$TMP/log"; exit 1; }
grep -q '^onnx tier 1: [1-9][0-9]* passed, 0 failed, 0 unsupported$' \
    "$TMP/log" || { echo "no line for tier 1"; tail -n 20 "$TMP/log"; exit 1; }
exit 0
