# accel_plan_estimate.sh - the layout planner's estimate of a whole
# kernel, beside the simulated cycles in `time ... on accel` and in
# `tdsl lower --target accel --explain`: the program code generation
# emits for the kernel, every instruction timed as the simulator times
# it (codegen/acc/acc_time.c), must be within 20% of the simulated count
# (it is the count, exactly, while the two agree) for matmul, conv,
# softmax, layernorm, an elementwise and a reduction kernel on tiny,
# test and mn2, and for a pipeline whose schedule lays tensors out
# (conversions in the program).
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
let A = rand(f32, [128, 128], seed = 1)
let B = rand(f32, [128, 128], seed = 2)
time matmul(A, B) on accel
let X = rand(f32, [1, 16, 20, 20], seed = 5)
let Wt = rand(f32, [16, 16, 3, 3], seed = 6)
time conv(X, Wt) on accel
let S = rand(f32, [64, 64], seed = 7)
time softmax(S) on accel
let g = rand(f32, [64], seed = 8)
let b = rand(f32, [64], seed = 9)
time layernorm(S, g, b) on accel
time axpb(S, g) on accel
time rowsum(S) on accel
TDSL
} >k.tdsl

# Each `time` block: its simulated cycles, then the planner's line.
check() {
    awk -v m="$1" '
        /^time / { k = $2; sub(/\(.*/, "", k); cyc = ""; n++ }
        /^    cycles / { cyc = $2 }
        /^    planner / {
            est = $2; r = cyc / est; p++
            if ($0 !~ /route.s program as emitted, timed/) {
                print m " " k ": not the emitted program: " $0; bad = 1
            }
            if (r < 0.8 || r > 1.25) {
                print m " " k ": simulated " cyc ", estimated " est; bad = 1
            }
            printf "%s %s: simulated %s, estimated %s\n", m, k, cyc, est
        }
        END { if (n != 6 || p != 6) { print m ": " n " runs, " p \
                  " estimates"; bad = 1 }; exit bad }' "$2"
}
for m in tiny test mn2; do
    "$TDSL" --no-cache k.tdsl --machine $m >out.$m 2>err ||
        fail "$m: exit $?: $(cat err)"
    check $m out.$m || fail "$m: $(cat out.$m)"
done

# --explain: the same program timed, beside the model's estimate.
"$TDSL" lower k.tdsl --kernel softmax --target accel --explain \
    --size N=64 --size D=64 >ex 2>err || fail "explain: $(cat err)"
sim=$(awk '/^time softmax/ { f = 1 } f && /^    cycles / { print $2; exit }' \
    out.test)
grep -q "^program: the pipeline route's instructions, timed as the simulator times them: $sim cycles (" ex ||
    fail "explain does not give the program's $sim cycles: $(cat ex)"
grep -q "^model: [0-9]* cycles (compute [0-9]*, conversions [0-9]*, DRAM in/out [0-9]*) for the plan above, [0-9.]*x of the program$" ex ||
    fail "no model ratio: $(cat ex)"
# A kernel no route compiles says so.
cat >n.tdsl <<'TDSL'
kernel two(X: f32[N]) -> (Y: f32[N], Z: f32[N]) {
    Y[i] = X[i] + 1.0
    Z[i] = X[i] * 2.0
}
TDSL
"$TDSL" lower n.tdsl --kernel two --target accel --explain --size N=64 \
    >ex2 2>err
grep -q '^program: none (no route of code generation compiles this kernel for these sizes)$' ex2 ||
    fail "two outputs: $(cat ex2 err)"

# Layouts written in the schedule: the plan's conversions are in the
# program, and the estimate still times all of it.
cat >l.tdsl <<'TDSL'
kernel softmax(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    e[n, d] = exp(X[n, d] - m[n])
    s[n] = sum(d) e[n, d]
    Y[n, d] = e[n, d] / s[n]
}
schedule softmax for accel {
    layout X: [n@PE, d@MAB]
    layout e: [d@L2B, n@PE]
}
let x = rand(f32, [64, 16], seed = 3)
time softmax(x) on accel
TDSL
"$TDSL" --no-cache l.tdsl >out.l 2>err || fail "layouts: $(cat err)"
awk '/^    cycles / { c = $2 }
     /^    planner / { r = c / $2; ok = $0 ~ /program as emitted/ }
     END { exit !(ok && r >= 0.8 && r <= 1.25) }' out.l ||
    fail "layouts: $(cat out.l)"
"$TDSL" lower l.tdsl --kernel softmax --target accel --explain \
    --size N=64 --size D=16 >ex3 2>err || fail "explain layouts: $(cat err)"
grep -q "^program: .*; its conversions [1-9][0-9]*)$" ex3 ||
    fail "no conversions in the explained program: $(cat ex3)"
exit 0
