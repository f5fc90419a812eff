# accel_plan_model.sh - the layout planner's own cost model (plan*.c:
# what it ranks distributions and layouts with) against the program
# code generation emits, timed as the simulator times it: `tdsl lower
# --target accel --explain` prints both, the model's figure for the
# plan the program follows ("model: N cycles ... Rx of the program"),
# which must stay within 20% on these kernels (bench/README.md, "The
# planner's own model against the program"): softmax and layernorm on
# test and mn2 (512 and 64: rows over the MABs, or over the L2Bs and
# L1Bs with every PE of a MAB loaded), a conv on test (the matmul
# route's model of its shape), a pipeline whose schedule lays tensors
# out (the route's own plan: its conversions in the model and in the
# program), and a matmul the planner cannot place.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

{
    cat "$OLDPWD/bench/accel_kernels.tdsl"
    cat <<'TDSL'
kernel axpb(X: f32[N, D], b: f32[D]) -> (Y: f32[N, D]) {
    Y[n, d] = X[n, d] * 2.0 + b[d]
}
kernel rowsum(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
kernel laid(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    e[n, d] = exp(X[n, d] - m[n])
    s[n] = sum(d) e[n, d]
    Y[n, d] = e[n, d] / s[n]
}
schedule laid for accel {
    layout X: [n@PE, d@MAB]
    layout e: [d@L2B, n@PE]
    layout Y: [d@L1B, n@MAB, n@PE]
}
TDSL
} >k.tdsl

# machine kernel sizes...: the model against the program, within 20%.
check() {
    m=$1 k=$2
    shift 2
    args=
    for z in "$@"; do args="$args --size $z"; done
    # shellcheck disable=SC2086
    "$TDSL" lower k.tdsl --kernel "$k" --target accel --explain \
        --machine "$m" $args >ex 2>err || fail "$m $k: exit $?: $(cat err)"
    prog=$(sed -n 's/^program: .* them: \([0-9]*\) cycles (.*/\1/p' ex)
    model=$(sed -n 's/^model: \([0-9]*\) cycles.*/\1/p' ex)
    [ -n "$prog" ] && [ -n "$model" ] ||
        fail "$m $k: no program or no model: $(cat ex)"
    awk -v a="$model" -v b="$prog" 'BEGIN { r = a / b
            exit !(r >= 0.8 && r <= 1.2) }' ||
        fail "$m $k: model $model cycles, program $prog (beyond 20%)"
    echo "$m $k $*: model $model, program $prog"
}
check test softmax N=512 D=512
check test layernorm N=512 D=512
check test softmax N=64 D=64
check test layernorm N=64 D=64
check mn2 softmax N=512 D=512
check mn2 layernorm N=512 D=512
# Rows over the L2Bs and L1Bs, the PEs of a MAB loaded all the same
# (plan_move.c, layout_pes).
check mn2 softmax N=64 D=64
check mn2 layernorm N=64 D=64
check test conv N=1 C=16 H=20 W=20 F=16 R=3 S=3
# The elementwise and reduction routes' own models (their DMAs ahead
# of the groups and chunks they compute).
check test axpb N=64 D=64
check mn2 axpb N=512 D=512
check tiny rowsum N=64 D=64
check test rowsum N=512 D=512
check mn2 rowsum N=64 D=64
grep -q "the reduction route's model of its shape" ex ||
    fail "rowsum: not the route's model: $(cat ex)"
check test laid N=64 D=128
grep -q "for the route's own plan (its layouts and distributions)" ex ||
    fail "laid: not the route's plan: $(cat ex)"
# A matmul the planner cannot place (no layout of its operands fits
# the PEs; the matmul route streams them): --explain reports why, and
# still prints the program and the route's own model of it.
"$TDSL" lower k.tdsl --kernel matmul --target accel --explain --machine test \
    --size M=256 --size K=256 --size N=256 >ex 2>err &&
    fail "mm 256: the planner placed it: $(cat ex)"
grep -q "error: accel target cannot compile a distribution of stage 'C'" \
    err || fail "mm 256: no reason: $(cat err)"
grep -q "^layout plan of kernel matmul on machine test: none (the error it reports)$" ex ||
    fail "mm 256: $(cat ex)"
prog=$(sed -n 's/^program: the matmul route.* them: \([0-9]*\) cycles (.*/\1/p' ex)
model=$(sed -n "s/^model: \([0-9]*\) cycles for the matmul route's model of its shape, .*/\1/p" ex)
[ -n "$prog" ] && [ -n "$model" ] || fail "mm 256: $(cat ex)"
awk -v a="$model" -v b="$prog" 'BEGIN { r = a / b
        exit !(r >= 0.8 && r <= 1.2) }' ||
    fail "mm 256: model $model cycles, program $prog (beyond 20%)"
# The figure read above is the model's, not the program's timing: on
# a kernel the model is known to miss (mn2's conv: the matmul route's
# k split and runs, TODO(issue 6) in plan_cost.c) the two differ.
"$TDSL" lower k.tdsl --kernel conv --target accel --explain --machine mn2 \
    --size N=1 --size C=16 --size H=20 --size W=20 --size F=16 --size R=3 \
    --size S=3 >ex 2>err || fail "mn2 conv: $(cat err)"
grep -q "^model: [0-9]* cycles .*, [0-9.]*x of the program$" ex ||
    fail "mn2 conv: no model line: $(cat ex)"
grep -q "^model: .*, 1.00x of the program$" ex &&
    fail "mn2 conv: the model equals the program: $(cat ex)"
exit 0
