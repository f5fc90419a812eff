#!/bin/sh
# onnx_run_names.sh - an imported model runs with `tdsl run` on ONNX
# .pb files, positionally and under its ONNX input and output names
# (here '0' and '2', which are not tdsl identifiers: the import records
# them in "# onnx-input:" comments).  Skipped (77) without
# libonnx-testdata.
. "$(dirname "$0")/lib.sh"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || exit 77
d=$data/pytorch-converted/test_PReLU_2d
set0=$d/test_data_set_0

"$TDSL" import "$d/model.onnx" -o prelu.tdsl 2>err || fail "import: $(cat err)"
grep -q "^# onnx-input: '0' = " prelu.tdsl || fail "no mapping: $(cat prelu.tdsl)"
[ -f prelu.safetensors ] || fail "no weights file"
"$TDSL" run prelu.tdsl --in "0=$set0/input_0.pb" --out 2=named.npy 2>err ||
    fail "run by ONNX names: $(cat err)"
"$TDSL" import --compare named.npy "$set0/output_0.pb" 2>err ||
    fail "named run differs: $(cat err)"
"$TDSL" run prelu.tdsl --in "$set0/input_0.pb" --out pos.npy 2>err ||
    fail "positional run: $(cat err)"
"$TDSL" import --compare pos.npy "$set0/output_0.pb" 2>err ||
    fail "positional run differs: $(cat err)"
exit 0
