# plan.sh - `tdsl lower --target accel --explain`: the layout planner's
# choices with their reasons (golden, with a layout the schedule fixes,
# and the program the pipeline route emits for it, timed: its layout
# mode follows the route's plan, which converts e where the planner's
# own plan does not),
# a chain of elementwise stages that needs no conversion, a two-matmul
# pipeline where the plan beats the naive fixed layout (and its
# conversions simulated), and the refusals (no --explain, an unknown or
# missing size, kernel calls, --simulate on cpu).
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel rows(x: f32[16, 32]) -> (s: f32[16]) {
    e[i, j] = x[i, j] * x[i, j]
    s[i] = sum(j) e[i, j]
}
schedule rows for accel {
    layout e: [j@L1B, i@PE]
}
kernel ew(x: f32[N, M], y: f32[N, M]) -> (z: f32[N, M]) {
    t[i, j] = x[i, j] * 2.0 + y[i, j]
    z[i, j] = exp(t[i, j])
}
kernel mlp(X: f32[16, 32], W1: f32[32, 64], W2: f32[64, 32])
    -> (Y: f32[16, 32]) {
    H[i, j] = max(sum(k) X[i, k] * W1[k, j], 0.0)
    Y[i, c] = sum(j) H[i, j] * W2[j, c]
}
kernel twice(x: f32[8, 4]) -> (y: f32[8, 4]) {
    y = ew(x, x)
}
TDSL

cat >rows.want <<'OUT'
layout plan of kernel rows on machine tiny (16 PEs): 3 tensors, 2 stages
tensor x (input f32[16,32]): ((4_PE, 4), (2_L1B, 8, 2_W))
    proposed by e; 1 of the 1 stage touching it uses it as it is, loaded from DRAM; 5 candidates
tensor e (stage f32[16,32]): ((4_PE:1, 4:16), (2_L1B:1, 16:1))
    written in the schedule (kept); 7 candidates
tensor s (output f32[16]): ((4_PE, 2, 2_W))
    proposed by s; 1 of the 1 stage touching it uses it as it is, stored to DRAM; 4 candidates
stage e: distribute L1B:j PE:i
    compute 96 cycles (vector unit); 5 distributions considered
    reads x: in place
    writes e: in place
stage s: distribute L1B:j PE:i
    compute 32 cycles (vector unit, reduce partial results 64); 7 distributions considered
    reads e: in place
    writes s: in place
estimated: compute 192, conversions 0 (0, 0 lw), DRAM in/out 196 (528 lw): 389 cycles
naive fixed layout: compute 64, conversions 441 (3, 1484 lw), DRAM in/out 174 (320 lw): 679 cycles
program: the pipeline route's instructions, timed as the simulator times them: 6268 cycles (1567 steps, 131 waiting for DMA; DRAM 1536 lw read, 1600 written, 306 DMA ops; its conversions 5908)
model: 6170 cycles (compute 64, conversions 5908, DRAM in/out 198) for the route's own plan (its layouts and distributions), 0.98x of the program
search: 1 round of improvement
OUT
"$TDSL" lower k.tdsl --kernel rows --target accel --explain --machine tiny \
    >rows.out 2>err || fail "rows: exit $?: $(cat err)"
diff -u rows.want rows.out || fail "rows: output differs"

# Elementwise stages agree on one layout: nothing converts.
"$TDSL" lower k.tdsl --kernel ew --target accel --explain --size N=32 \
    --size M=64 >ew.out 2>err || fail "ew: exit $?: $(cat err)"
grep -q '^estimated: compute [0-9]*, conversions 0 (0, 0 lw)' ew.out ||
    fail "ew converts: $(cat ew.out)"
grep -q '^layout plan of kernel ew on machine test (64 PEs)' ew.out ||
    fail "ew: not on test: $(cat ew.out)"

# Two matmuls: the plan costs less than the naive layout, and converts
# fewer long words.
"$TDSL" lower k.tdsl --kernel mlp --target accel --explain --machine tiny \
    >mlp.out 2>err || fail "mlp: exit $?: $(cat err)"
plan=$(sed -n 's/^estimated: .*: \([0-9]*\) cycles$/\1/p' mlp.out)
naive=$(sed -n 's/^naive fixed layout: .*: \([0-9]*\) cycles$/\1/p' mlp.out)
pw=$(sed -n 's/^estimated: .*conversions [0-9]* ([0-9]*, \([0-9]*\) lw).*/\1/p' mlp.out)
nw=$(sed -n 's/^naive fixed .*conversions [0-9]* ([0-9]*, \([0-9]*\) lw).*/\1/p' mlp.out)
[ -n "$plan" ] && [ -n "$naive" ] && [ "$plan" -lt "$naive" ] ||
    fail "mlp: plan $plan not below naive $naive: $(cat mlp.out)"
[ "$pw" -lt "$nw" ] || fail "mlp: $pw lw converted, naive $nw"
grep -q '^    compute [0-9]* cycles (matrix unit' mlp.out ||
    fail "mlp: not on the matrix unit: $(cat mlp.out)"

# --simulate: the naive plan's conversions run on the simulator, each
# emitted (all of them here), costing more than nothing, as estimated.
"$TDSL" lower k.tdsl --kernel mlp --target accel --explain --simulate \
    --machine tiny >sim.out 2>err || fail "simulate: exit $?: $(cat err)"
grep -q '^simulated plan: 0 of 0 conversions simulated: 0 cycles' sim.out ||
    fail "simulate, plan: $(cat sim.out)"
line=$(grep '^simulated naive: ' sim.out) ||
    fail "simulate, naive: $(cat sim.out)"
n=$(grep -c '^stage' mlp.out)
conv=$(sed -n 's/^naive fixed .*conversions [0-9]* (\([0-9]*\),.*/\1/p' \
    mlp.out)
case $line in
"simulated naive: $conv of $conv conversions simulated: "[1-9]*) ;;
*) fail "simulate: $line (naive converts $conv times, $n stages)" ;;
esac
# The estimate of each conversion is what layout_emit.c emits, timed as
# the simulator times it: within 20% of the simulated cycles, each one.
off=$(sed -n 's/^    estimate off by at most \([0-9.]*\)% .*/\1/p' sim.out)
[ -n "$off" ] || fail "simulate: no estimate error: $(cat sim.out)"
awk -v x="$off" 'BEGIN { exit !(x <= 20) }' ||
    fail "simulate: an estimate is off by $off%: $(cat sim.out)"
cyc=$(sed -n 's/^simulated naive: .*: \([0-9]*\) cycles (estimate \([0-9]*\)).*/\1 \2/p' \
    sim.out)
awk -v c="${cyc% *}" -v e="${cyc#* }" \
    'BEGIN { d = c - e; if (d < 0) d = -d; exit !(c > 0 && 5 * d <= c) }' ||
    fail "simulate: simulated and estimated cycles $cyc"

# Refusals.
"$TDSL" lower k.tdsl --kernel rows --target accel >out 2>err
[ $? = 2 ] || fail "accel without --explain did not exit 2"
grep -q 'give --explain' err || fail "no --explain: $(cat err)"
"$TDSL" lower k.tdsl --kernel ew --target accel --explain >out 2>err
[ $? = 2 ] || fail "a missing size did not exit 2"
grep -q "the size 'N' of 'ew' is not known: give it with --size N=N" err ||
    fail "missing size: $(cat err)"
"$TDSL" lower k.tdsl --kernel ew --target accel --explain --size Q=3 \
    >out 2>err
[ $? = 2 ] || fail "an unknown size did not exit 2"
grep -q "'Q' is not a size of 'ew'" err || fail "unknown size: $(cat err)"
"$TDSL" lower k.tdsl --kernel rows --explain >out 2>err
[ $? = 2 ] || fail "--explain on cpu did not exit 2"
"$TDSL" lower k.tdsl --kernel rows --simulate >out 2>err
[ $? = 2 ] || fail "--simulate on cpu did not exit 2"
grep -q -- '--explain, --simulate and --size go with --target accel' err ||
    fail "--simulate on cpu: $(cat err)"
"$TDSL" lower k.tdsl --kernel twice --target accel --explain >out 2>err
[ $? = 1 ] || fail "a kernel call did not exit 1"
grep -q 'error: accel target cannot compile calls of other kernels' err ||
    fail "kernel call: $(cat err)"
exit 0
