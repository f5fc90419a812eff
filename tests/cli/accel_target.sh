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
grep -q '^    planner    [1-9][0-9]* cycles estimated .*simulated/estimated' \
    out || fail "no planner estimate: $(cat out)"
grep -q '^    conversion 0 lw in the program .*the plan converts nothing$' \
    out || fail "no conversion line: $(cat out)"

for m in tiny mn2; do
    TDSL_MACHINE=$m "$TDSL" k.tdsl >out 2>err || fail "$m: $(cat err)"
    grep -q "^    machine    $m " out || fail "$m not used: $(cat out)"
done

for m in tiny mn2; do
    TDSL_MACHINE=test "$TDSL" k.tdsl --machine $m >out 2>err ||
        fail "--machine $m: $(cat err)"
    [ "$(grep -c "^    machine    $m " out)" = 2 ] ||
        fail "--machine $m not used: $(cat out)"
done
# A machine file, and `tdsl run`: with BMs too small for the elementwise
# route the run fails, which shows the machine is the one given.
printf 'base = tiny\nname = small\nlevel = L1B 2 16\nlevel = MAB 2\nlevel = PE 4\n' \
    >small.mach
"$TDSL" k.tdsl --machine=small.mach >out 2>err && fail "small machine ran"
grep -q "BMs hold less than 4 long words per PE" err ||
    fail "small machine: $(cat err)"
cat >one.tdsl <<'TDSL'
kernel axpy(x: f32[N], y: f32[N]) -> (z: f32[N]) {
    z[i] = x[i] * 3.0 + y[i]
}
save(arange(f32, 10), "x.npy")
TDSL
"$TDSL" one.tdsl || fail "one.tdsl"
"$TDSL" run one.tdsl --in x=x.npy --in y=x.npy --target accel \
    --machine tiny >out 2>err || fail "run --machine tiny: $(cat err)"
grep -q "32\. 36\.\]" out || fail "run --machine tiny: $(cat out)"
"$TDSL" run one.tdsl --in x=x.npy --in y=x.npy --target accel \
    --machine small.mach >out 2>err && fail "run on the small machine"
grep -q "BMs hold less than 4 long words per PE" err ||
    fail "run, small machine: $(cat err)"
"$TDSL" run one.tdsl --in x=x.npy --in y=x.npy --machine nosuch 2>err
[ $? = 2 ] || fail "run --machine nosuch: not exit 2"
grep -q "unknown machine 'nosuch'" err || fail "run nosuch: $(cat err)"
"$TDSL" k.tdsl --machine 2>err
[ $? = 2 ] || fail "--machine without a value: not exit 2"

TDSL_MACHINE=nosuch "$TDSL" k.tdsl >out 2>err
[ $? = 1 ] || fail "a bad TDSL_MACHINE did not exit 1"
grep -q "nosuch" err || fail "bad machine: $(cat err)"
exit 0
