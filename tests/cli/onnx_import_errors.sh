#!/bin/sh
# onnx_import_errors.sh - `tdsl import` on bad models: a missing file,
# garbage, truncated protobuf, an unsupported op, bad --bind: one line
# on stderr, exit 1, no crash and no output file left behind.
# Skipped (77) without libonnx-testdata.
. "$(dirname "$0")/lib.sh"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || exit 77

# bad_import EXPECTED-PATTERN ARG...: exit 1, the pattern on stderr,
# no out.tdsl.
bad_import() {
    pat=$1
    shift
    rm -f out.tdsl out.safetensors
    timeout 20 "$TDSL" import "$@" -o out.tdsl >/dev/null 2>err
    st=$?
    [ "$st" = 1 ] || fail "import $*: exit $st: $(head -c 400 err)"
    grep -q -- "$pat" err || fail "import $*: no '$pat' in: $(cat err)"
    grep -q 'internal error' err && fail "import $*: internal error"
    [ -e out.tdsl ] && fail "import $*: out.tdsl left behind"
    ls | grep -q '\.tmp' && fail "import $*: temporary file left behind"
    return 0
}

bad_import "cannot open" missing.onnx
printf 'garbage that is not protobuf \377\377\377' >junk.onnx
bad_import "not a valid ONNX model" junk.onnx
: >empty.onnx
bad_import "has no graph" empty.onnx
m=$data/node/test_conv_with_strides_padding/model.onnx
size=$(wc -c <"$m")
for n in 7 20 50 100 $((size / 2)) $((size - 3)); do
    head -c "$n" "$m" >trunc.onnx
    rm -f out.tdsl
    timeout 20 "$TDSL" import trunc.onnx -o out.tdsl >/dev/null 2>err
    st=$?
    [ "$st" -le 1 ] || fail "truncated at $n: exit $st: $(cat err)"
    grep -q 'internal error' err && fail "truncated at $n: internal error"
done
op="node 'X_new' (Adagrad, opset [0-9]*): \
unsupported op 'ai.onnx.preview.training:Adagrad'"
bad_import "model.onnx: $op\$" "$data/node/test_adagrad/model.onnx"
bad_import "the graph has no input 'nope'" \
    "$data/node/test_abs/model.onnx" --bind nope=1x2
bad_import "expected a shape like" \
    "$data/node/test_abs/model.onnx" --bind x=3xq

# A good import is canonical and checks.
"$TDSL" import "$data/node/test_conv_with_strides_padding/model.onnx" \
    -o conv.tdsl 2>err || fail "import: $(cat err)"
"$TDSL" fmt --check conv.tdsl || fail "conv.tdsl is not canonical"
"$TDSL" check conv.tdsl || fail "conv.tdsl does not check"
grep -q '# Conv' conv.tdsl || fail "no node comment: $(cat conv.tdsl)"
exit 0
