#!/bin/sh
# onnx_external_data.sh - `tdsl import` of initializers held as external
# data (location, offset, length, relative to the model's folder): a
# good one imports; an absolute path, a '..' component, a symbolic link
# (the file or a folder on the way), a missing file, a bad offset and
# data shorter than offset + length or than the tensor are each refused
# with one line, exit 1, no crash and no output.  The models are written
# with python3's onnx module; skipped (77) without it.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import onnx' 2>/dev/null || exit 77

# model FILE LOCATION [OFFSET [LENGTH]]: y = x + w, w a float[4]
# initializer stored externally at LOCATION.
cat >mk.py <<'PY'
import sys
from onnx import helper, TensorProto
out, loc = sys.argv[1], sys.argv[2]
w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4],
                data_location=TensorProto.EXTERNAL)
for k, v in zip(("location", "offset", "length"), sys.argv[2:]):
    e = w.external_data.add()
    e.key, e.value = k, v
g = helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
open(out, "wb").write(m.SerializeToString())
PY
model() { /usr/bin/python3 mk.py "$@" || fail "mk.py $*"; }

mkdir m outside
# 4 floats 1 2 3 4 after 8 bytes of padding.
printf '\0\0\0\0\0\0\0\0\0\0\200\77\0\0\0\100\0\0\100\100\0\0\200\100' \
    >m/w.bin
cp m/w.bin outside/w.bin

# bad EXPECTED-PATTERN LOCATION [OFFSET [LENGTH]]
bad() {
    pat=$1
    shift
    model m/model.onnx "$@"
    rm -f m/out.tdsl m/out.safetensors
    timeout 20 "$TDSL" import m/model.onnx -o m/out.tdsl >/dev/null 2>err
    st=$?
    [ "$st" = 1 ] || fail "$*: exit $st: $(head -c 400 err)"
    grep -q -- "$pat" err || fail "$*: no '$pat' in: $(cat err)"
    [ "$(wc -l <err)" = 1 ] || fail "$*: more than one line: $(cat err)"
    [ -e m/out.tdsl ] && fail "$*: out.tdsl left behind"
    return 0
}

model m/model.onnx w.bin 8 16
timeout 20 "$TDSL" import m/model.onnx -o m/out.tdsl 2>err ||
    fail "good model: $(cat err)"
[ -s m/out.safetensors ] || fail "good model: no weights"
# The weights hold 1 2 3 4 as little-endian floats.
od -An -tx1 m/out.safetensors | tr -d ' \n' |
    grep -q '0000803f000000400000404000008040' ||
    fail "good model: wrong weights"

bad "absolute path" "$PWD/m/w.bin" 8 16
bad "'\.\.' component" ../outside/w.bin 8 16
bad "'\.\.' component" sub/../w.bin 8 16
ln -s w.bin m/link.bin
bad "symbolic link" link.bin 8 16
ln -s ../outside m/out
bad "symbolic link" out/w.bin 8 16
bad "no such file" nope.bin
bad "no such file" w.bin/x
bad "not a regular file" .
bad "bad external data offset" w.bin -1
bad "bad external data length" w.bin 0 4x
bad "fewer than offset" w.bin 8 32
bad "fewer than offset" w.bin 100
bad "w" w.bin 8 8
bad "location is empty" ""
exit 0
