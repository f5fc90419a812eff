#!/bin/sh
# onnx_rnn.sh - RNN, GRU and LSTM cases beyond the ONNX suite (reverse,
# bidirectional, linear_before_reset, clip, sequence_lens, initial
# states, Relu): models and expected outputs made by
# tests/onnx/rnn_cases.py, imported, run on the interpreter and on cpu,
# compared.  Skipped (77) without python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
top=$OLDPWD
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
n=$($py "$top/tests/onnx/rnn_cases.py" "$TMP" 2>err) ||
    fail "rnn_cases.py: $(cat err)"
k=0
while [ "$k" -lt "$n" ]; do
    "$TDSL" import "m$k.onnx" -o "e$k.tdsl" 2>err ||
        fail "import case $k: $(cat err)"
    ins= outs=
    for f in m${k}_in*.pb; do ins="$ins --in $f"; done
    for f in m${k}_out*.pb; do outs="$outs --out ${f%.pb}.npy"; done
    for target in interp cpu; do
        "$TDSL" run "e$k.tdsl" $ins $outs --target $target 2>err ||
            fail "run case $k on $target: $(cat err)"
        for f in m${k}_out*.pb; do
            "$TDSL" import --compare "${f%.pb}.npy" "$f" 2>err ||
                fail "case $k on $target, $f: $(cat err)"
        done
    done
    k=$((k + 1))
done
exit 0
