#!/bin/sh
# onnx_random.sh - the ONNX ops that draw (RandomUniform, RandomNormal,
# their Like forms, Bernoulli, Multinomial, Dropout in training mode):
# each model of tests/onnx/random_cases.py is imported (canonical
# text, drawing with uniform/normal), run on the interpreter and on
# cpu with the same bits, twice with the same bits, and its outputs'
# domain and statistics checked; then the suite's tests whose expected
# outputs are draws count as "random" (never "passed") in
# tests/onnx/conformance.sh, and its checker refuses wrong outputs.
# Models the importer refuses say why in one line.
# Skipped (77) without python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
cases=$OLDPWD/tests/onnx/random_cases.py
n=$($py "$cases" make . 2>err) || fail "random_cases.py: $(cat err)"
k=0
while [ "$k" -lt "$n" ]; do
    ins= outs=
    for f in m${k}_in*.pb; do
        [ -e "$f" ] && ins="$ins --in $f"
    done
    "$TDSL" import "m$k.onnx" -o "e$k.tdsl" 2>err ||
        fail "import case $k: $(cat err)"
    "$TDSL" fmt --check "e$k.tdsl" 2>err ||
        fail "e$k.tdsl is not canonical: $(cat err)"
    grep -q -e 'uniform(' -e 'normal(' "e$k.tdsl" ||
        fail "case $k draws nothing: $(cat "e$k.tdsl")"
    nout=$($py -c "import onnx; print(len(onnx.load('m$k.onnx').graph.output))")
    for target in interp cpu again; do
        outs= o=0
        while [ $o -lt "$nout" ]; do
            outs="$outs --out ${target}_${k}_$o.npy"
            o=$((o + 1))
        done
        t=$target
        [ $t = again ] && t=interp
        # shellcheck disable=SC2086
        "$TDSL" run "e$k.tdsl" $ins $outs --target $t 2>err ||
            fail "run case $k on $target: $(cat err)"
    done
    for f in interp_${k}_*.npy; do
        o=${f#interp_}
        cmp -s "$f" "cpu_$o" || fail "case $k: cpu differs from interp ($o)"
        cmp -s "$f" "again_$o" || fail "case $k: a second run differs ($o)"
        cp "$f" "m${k}_out${o#${k}_}"
    done
    $py "$cases" check . "$k" >err 2>&1 || fail "case $k: $(cat err)"
    k=$((k + 1))
done

# What the importer refuses, with one line each.
import_refused r_uniform_int \
    "node 'y' (RandomUniform, opset 15): the output must be of a float dtype"
import_refused r_normal_noshape \
    "node 'y' (RandomNormal, opset 15): needs a 'shape' of non-negative sizes"
import_refused r_bernoulli_int "node 'y' (Bernoulli, opset 15): needs float \
probabilities and a numeric or bool output"
import_refused r_multinomial_rank1 "node 'y' (Multinomial, opset 15): needs \
float log-probabilities [batch, classes], a positive sample_size and an i32 \
or i64 output"
import_refused r_dropout_ratio_vec "node 'y' (Dropout, opset 13): needs float \
data, a scalar float ratio and a scalar bool training_mode"

# The suite's tests whose expected outputs are draws: "random" on lines
# of their own, on the interpreter and on cpu, none passed or failed.
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || exit 0
tests=$(awk -F'\t' '!/^#/ { print $1 }' "$OLDPWD/tests/onnx/random.tsv")
for target in interp cpu; do
    # shellcheck disable=SC2086
    TDSL=$TDSL TMPDIR=$TMP sh "$OLDPWD/tests/onnx/conformance.sh" \
        --target $target $tests >log 2>&1 || fail "$target: $(cat log)"
    grep -q '^onnx random: 10 ran, outputs checked for shape, dtype and domain, not values$' \
        log || fail "$target: no random total: $(cat log)"
    grep -q '^onnx tier 2 random: 10 ran,' log ||
        fail "$target: no random line for tier 2: $(cat log)"
    grep -q '^onnx op Bernoulli random: 3 ran,' log ||
        fail "$target: no random line for Bernoulli: $(cat log)"
    [ "$(tail -n 1 log)" = "onnx: 0 passed, 0 failed, 0 unsupported" ] ||
        fail "$target: $(tail -n 1 log)"
done

# The checker refuses outputs outside the draw's domain: a Bernoulli
# value of 0.5, a dropped value that is not 0, a kept one not scaled, a
# mask that disagrees, a wrong dtype.
check=$OLDPWD/tests/onnx/random_check.py
b=$data/node/test_bernoulli
d=$data/node/test_training_dropout_default_mask
$py - "$b" "$d" <<'PY' || fail "making wrong outputs"
import sys
import numpy as np
import onnx
from onnx import numpy_helper
def pb(p):
    return numpy_helper.to_array(onnx.load_tensor(p))
b, d = sys.argv[1], sys.argv[2]
y = np.where(pb(b + '/test_data_set_0/input_0.pb') > 0.5, 1.0, 0.0)
np.save('b_ok.npy', y)
y[3] = 0.5
np.save('b_half.npy', y)
np.save('b_f32.npy', np.zeros(10, np.float32))
x = pb(d + '/test_data_set_0/input_0.pb')
keep = np.arange(x.size).reshape(x.shape) % 2 == 0
np.save('d_ok.npy', np.where(keep, x * np.float32(2), np.float32(0)))
np.save('d_mask.npy', keep)
np.save('d_nmask.npy', ~keep)
np.save('d_unscaled.npy', np.where(keep, x, np.float32(0)))
np.save('d_nonzero.npy', np.where(keep, x * np.float32(2), x))
PY
$py "$check" bernoulli "$b" b_ok.npy >err || fail "b_ok: $(cat err)"
$py "$check" dropout "$d" d_ok.npy d_mask.npy >err || fail "d_ok: $(cat err)"
for bad in "bernoulli $b b_half.npy" "bernoulli $b b_f32.npy" \
           "dropout $d d_unscaled.npy d_mask.npy" \
           "dropout $d d_nonzero.npy d_mask.npy" \
           "dropout $d d_ok.npy d_nmask.npy"; do
    # shellcheck disable=SC2086
    $py "$check" $bad >err && fail "random_check.py accepts $bad"
    [ -s err ] || fail "random_check.py $bad: no reason given"
done
exit 0
