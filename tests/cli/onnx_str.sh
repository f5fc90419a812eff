#!/bin/sh
# onnx_str.sh - models on string tensors (SPEC 8.6): Cast to and from
# STRING (numpy's text of each dtype, numpy's parsing) and
# StringNormalizer, run on the interpreter and on cpu (which compiles
# str kernels: the kernel cache holds them) and compared with numpy; StringNormalizer
# with stopwords imported with its input bound (the kept words counted
# at import, the kernel computing them from its input); then the
# refusals, each with its one line.  Models from tests/onnx/str_cases.py;
# skipped (77) without python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
onnx_cases str_cases.py
k=0
while [ "$k" -lt "$(cat s_count)" ]; do
    "$TDSL" import s$k.onnx -o b$k.tdsl --bind "#0=s${k}_in0.pb" 2>err ||
        fail "import s$k: $(cat err)"
    "$TDSL" fmt --check b$k.tdsl 2>err || fail "b$k.tdsl: $(cat err)"
    for target in interp cpu; do
        "$TDSL" run b$k.tdsl --in s${k}_in0.pb --out o$k.pb \
            --target $target 2>err || fail "run s$k on $target: $(cat err)"
        "$TDSL" import --compare o$k.pb s${k}_out0.pb 2>err ||
            fail "s$k on $target: $(cat err)"
    done
    k=$((k + 1))
done
# Compiled on cpu, not interpreted: every case left its C in the cache.
[ "$(grep -l 'tl__strmem' "$TMP"/cache/tdsl/*.c 2>/dev/null | wc -l)" -ge \
    "$(cat s_count)" ] || fail "str kernels not compiled: $(ls "$TMP"/cache/tdsl)"
# The kernel computes the words from its input: case-insensitive
# stopwords compare in lower case, the kept ones are counted by stages.
grep -q 'select(lower(x\[0, r0\]) != lower("the") && lower(x\[0, r0\]) != lower("a\\"b") && r0 < i0, 1, 0)' b0.tdsl ||
    fail "the stopwords are not compared in the kernel: $(cat b0.tdsl)"
grep -q '^    y\[i0, i1\] = x\[0, strnorm_src\[i1\]\]$' b0.tdsl ||
    fail "the words are not read from the input: $(cat b0.tdsl)"
grep -q '^    y\[i0\] = ""$' b2.tdsl ||
    fail "no empty string when every word goes: $(cat b2.tdsl)"
# Other words of the same count are refused (the bound data's hash).
grep -q '^    assert hash(x) == -\{0,1\}[0-9]\{1,20\}, "input .x. is not the data bound at import' b0.tdsl ||
    fail "no assert of the bound data: $(cat b0.tdsl)"
"$TDSL" run b0.tdsl --in s0_other.pb --out o.pb 2>err &&
    fail "other words than the bound ones were run"
grep -q "not the data bound at import" err || fail "$(cat err)"
# A str output cannot go to .safetensors; .npy and .pb hold it.
run_says "tdsl: output 'y': 'o.safetensors': 'y' is a str tensor, which \
safetensors cannot hold (write it to .pb or .npy)" e0.tdsl --in m0_in0.pb \
    --out o.safetensors
# tdsl compile writes a str kernel's C entry (docs/c-abi.md).
"$TDSL" compile e0.tdsl --target cpu -o e0.h 2>err || fail "compile: $(cat err)"
grep -q 'tdsl_str_alloc \*tdsl_strs' e0.h || fail "e0.h: $(cat e0.h)"
# Refusals.
import_refused r_locale "node 'y' (StringNormalizer, opset 10): locale \
'tr_TR' is not supported (tdsl's lower and upper map ASCII letters, as \
en_US does)"
import_refused r_action "node 'y' (StringNormalizer, opset 10): \
case_change_action 'TITLE' is not NONE, LOWER or UPPER"
import_refused r_unbound "node 'y' (StringNormalizer, opset 10): the \
output's size depends on the values of 'x', which are not known at import \
(bind it with --bind)"
import_refused r_matrix "node 'y' (StringNormalizer, opset 10): input \
'x' must have shape [C] or [1, C]"
import_says "r_control.onnx: node 'y' (StringNormalizer, opset 10): \
stopword 0 holds a control byte, which a tdsl string cannot" \
    r_control.onnx --bind "#0=r_control_in0.pb"
exit 0
