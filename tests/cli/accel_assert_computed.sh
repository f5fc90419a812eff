# accel_assert_computed.sh - an assert of a computed stage on machine
# `test` (target_assert.c): `time` counts both parts, the stage the
# assert reads (a kernel of its own) and the rest, whose cycles add up
# to the call's, each the same as that part run as a kernel by itself;
# a kernel the parts cannot be cut from (a scalar parameter) is refused
# naming the tensor, and so is a stand-alone program of one
# (`tdsl compile`: a program has no way to stop between the stages).
. "$(dirname "$0")/lib.sh"

cat >k.tdsl <<'TDSL'
kernel normalize(X: f32[M, N]) -> (Y: f32[M, N]) {
    s[i] = sum(j) X[i, j]
    assert min(i) s[i] > 0.0, "rows must sum positive"
    Y[i, j] = X[i, j] / s[i]
}
kernel rows(X: f32[M, N]) -> (s: f32[M]) {
    s[i] = sum(j) X[i, j]
}
kernel divide(X: f32[M, N], s: f32[M]) -> (Y: f32[M, N]) {
    Y[i, j] = X[i, j] / s[i]
}
let X = rand(f32, [16, 8], seed = 1)
time normalize(X) on accel
time rows(X) on accel
time divide(X, rows(X)) on accel
TDSL
"$TDSL" k.tdsl >out 2>err || fail "run: $(cat err)"
field() {
    awk -v k="time $2(" -v p="$3" -v n="$1" '
        index($0, k) == 1 { on = 1; next } /^time / { on = 0 }
        on && $1 == p { print $n; exit }' out
}
c=$(field 2 normalize cycles) a=$(field 2 rows cycles)
b=$(field 2 divide cycles)
[ -n "$a" ] && [ -n "$b" ] && [ "$c" = $((a + b)) ] ||
    fail "cycles $c, parts $a + $b: $(cat out)"
grep -q "^    parts      2, the stages the asserts read first" out ||
    fail "no parts line: $(cat out)"
grep -q "^    part       s: $a cycles, then the asserts that read it" out &&
    grep -q "^    part       Y: $b cycles, the rest$" out ||
    fail "part lines: $(cat out)"

cat >sc.tdsl <<'TDSL'
kernel shift(X: f32[N]; c: f32 = 1.0) -> (Y: f32[N]) {
    s[i] = X[i] + c
    assert min(i) s[i] > 0.0
    Y[i] = s[i] * 2.0
}
let X = rand(f32, [8], seed = 1)
print shift(X) on accel
TDSL
"$TDSL" sc.tdsl >out 2>err && fail "a scalar parameter ran: $(cat out)"
grep -q "error: accel target cannot compile 'shift' with an 'assert' of 's', which it computes" err ||
    fail "scalar: $(cat err)"

"$TDSL" compile k.tdsl --kernel normalize --target accel --in 'f32[16,8]' \
    -o k.s >out 2>err && fail "compiled: $(cat out)"
grep -q "an 'assert' of 's', which the kernel computes" err ||
    fail "compile: $(cat err)"
exit 0
