#!/bin/sh
# onnx_str_init.sh - string constants of a model (initializers, a
# Constant node), which the weights file cannot hold: tdsl import
# writes the small ones in the source as tensor literals (SPEC 11.1),
# readably (escapes, nested lists, a str scalar, an empty one); the
# models run on the interpreter and on cpu and match numpy; a larger
# one, or one with a control byte, is refused in one line.  Models
# from tests/onnx/strinit_cases.py; skipped (77) without python3-onnx
# and python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases strinit_cases.py
grep -qx 'let c: str\[4\] = \["monday", "Tuesday", "x", ""\]' e0.tdsl &&
    grep -qx 'let dash: str\[\] = "-"' e0.tdsl ||
    fail "the initializers are not literals: $(cat e0.tdsl)"
grep -qxF 'let w: str[2, 3] = [["a\"b", "back\\slash", "tab\there"], ["new\nline", "été", ""]]' \
    e1.tdsl || fail "the 2-D initializer: $(cat e1.tdsl)"
grep -qx 'let k: str\[2\] = \["a", "b"\]' e2.tdsl ||
    fail "the Constant node: $(cat e2.tdsl)"
grep -qx 'let e: str\[2, 0\] = \[\[\], \[\]\]' e3.tdsl ||
    fail "the empty initializer: $(cat e3.tdsl)"
for k in 0 1 2 3; do
    [ -e "e$k.safetensors" ] && fail "e$k: a weights file for strings"
done
import_refused r_big "string constant 'w' has 300 strings of 1090 bytes in \
all (at most 256 strings and 4096 bytes are written in the source; the \
weights file holds no strings)"
import_refused r_control "string constant 'w' holds a string with a \
control byte, which a tdsl string cannot write"
exit 0
