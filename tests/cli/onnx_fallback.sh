#!/bin/sh
# onnx_fallback.sh - the import's last-resort messages: a graph without
# outputs, and generated source that does not check (the importer's
# limit, said in one line naming the model; TDSL_ONNX_RAW=1 shows the
# source and the checker's reason).  Models from
# tests/onnx/fallback_cases.py.  Skipped (77) without python3-onnx.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import onnx' 2>/dev/null || exit 77
/usr/bin/python3 "$OLDPWD/tests/onnx/fallback_cases.py" "$TMP" 2>err ||
    fail "fallback_cases.py: $(cat err)"
import_refused r_noout "the graph has no outputs (a kernel computes at \
least one)"
import_refused r_neg_u8 "the importer cannot express this model yet (its \
tdsl source does not check; TDSL_ONNX_RAW=1 shows it and why)"
TDSL_ONNX_RAW=1 "$TDSL" import r_neg_u8.onnx -o ref.tdsl 2>err &&
    fail "r_neg_u8.onnx imported with TDSL_ONNX_RAW"
grep -q "unary '-' cannot be applied to 'u8' values" err ||
    fail "TDSL_ONNX_RAW does not show why: $(cat err)"
grep -q '    y\[i0\] = -x\[i0\]' err ||
    fail "TDSL_ONNX_RAW does not show the source: $(cat err)"
[ -e ref.tdsl ] && fail "a file left behind"
exit 0
