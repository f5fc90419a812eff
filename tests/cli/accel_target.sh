# accel_target.sh - the accel target beyond tests/accel/: `time ... on
# accel` reports the simulator's statistics of the timed run (not wall
# time), TDSL_MACHINE picks the machine (the results stay those of the
# interpreter), and a bad TDSL_MACHINE is an error.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel axpy(x: f32[N], y: f32[N]) -> (z: f32[N]) {
    z[i] = x[i] * 3.0 + y[i]
}
let x = rand(f32, [1024], seed = 1)
let y = rand(f32, [1024], seed = 2)
assert allclose(axpy(x, y) on accel, axpy(x, y), rtol = 0, atol = 0)
time axpy(x, y) on accel
time axpy(x, y)
target accel
time axpy(x, y)
time arange(f32, 3)
TDSL

"$TDSL" k.tdsl >out 2>err || fail "exit $?: $(cat err)"
[ -s err ] && fail "stderr: $(cat err)"
[ "$(grep -c '^time axpy(x, y) on accel: simulated$' out)" = 1 ] ||
    fail "no simulated report for 'on accel': $(cat out)"
[ "$(grep -c '^time axpy(x, y): simulated$' out)" = 1 ] ||
    fail "no simulated report under 'target accel': $(cat out)"
[ "$(grep -c '^time axpy(x, y): median' out)" = 1 ] ||
    fail "the interpreter's run was not timed: $(cat out)"
grep -q '^time arange(f32, 3): median' out ||
    fail "a builtin under 'target accel' reported a stale simulation"
[ "$(grep -c '^    machine    test (64 PEs)$' out)" = 2 ] ||
    fail "not on machine test: $(cat out)"
# 1024 elements (two groups of 512, no padding): a mul and an add each.
grep -q '^    flops      2048 useful' out || fail "flops: $(cat out)"
grep -q '^    cycles     [1-9][0-9]* ' out || fail "cycles: $(cat out)"
grep -q '^    util ' out || fail "no utilization: $(cat out)"

for m in tiny mn2; do
    TDSL_MACHINE=$m "$TDSL" k.tdsl >out 2>err || fail "$m: $(cat err)"
    grep -q "^    machine    $m " out || fail "$m not used: $(cat out)"
done

TDSL_MACHINE=nosuch "$TDSL" k.tdsl >out 2>err
[ $? = 1 ] || fail "a bad TDSL_MACHINE did not exit 1"
grep -q "nosuch" err || fail "bad machine: $(cat err)"
exit 0
