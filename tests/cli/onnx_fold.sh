#!/bin/sh
# onnx_fold.sh - nodes whose inputs are all known at import are folded
# to constants: the expanded LayerNormalization computes its Reshape
# shapes with Shape -> Slice -> Concat -> ConstantOfShape, none of which
# may be left as a stage.  Skipped (77) without libonnx-testdata.
. "$(dirname "$0")/lib.sh"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || exit 77
t=$data/node/test_layer_normalization_4d_axis1_expanded
"$TDSL" import "$t/model.onnx" -o ln.tdsl 2>err || fail "import: $(cat err)"
grep -q '# Reshape' ln.tdsl || fail "no Reshape stage: $(cat ln.tdsl)"
for op in Shape ConstantOfShape Concat Slice; do
    grep -q "# $op " ln.tdsl && fail "$op was not folded: $(cat ln.tdsl)"
done
"$TDSL" run ln.tdsl --in "$t/test_data_set_0/input_0.pb" \
    --in "$t/test_data_set_0/input_1.pb" \
    --in "$t/test_data_set_0/input_2.pb" --out y.npy --out m.npy \
    --out s.npy 2>err || fail "run: $(cat err)"
"$TDSL" import --compare y.npy "$t/test_data_set_0/output_0.pb" 2>err ||
    fail "compare: $(cat err)"
exit 0
