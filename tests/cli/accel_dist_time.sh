# accel_dist_time.sh - `distribute` changes where an elementwise stage
# computes (codegen/acc/cg_elem_lay.c): over L2B x PE only, 8 of the
# test machine's 64 PEs hold the rows, one element a long word, so
# `time ... on accel` shows more cycles and more long words moved than
# the route's own layout, the plan the program follows (its conversion
# line: nothing converted), and `lower --explain` the schedule's
# distribution.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel add(A: f32[N, M], B: f32[N, M]) -> (C: f32[N, M]) {
    C[i, j] = A[i, j] + B[i, j]
}
schedule add for accel {
    C.distribute(i, [L2B, PE])
}
kernel plain(A: f32[N, M], B: f32[N, M]) -> (C: f32[N, M]) {
    C[i, j] = A[i, j] + B[i, j]
}
let a = rand(f32, [64, 48], seed = 1)
let b = rand(f32, [64, 48], seed = 2)
time add(a, b) on accel
time plain(a, b) on accel
TDSL

"$TDSL" --no-cache k.tdsl >out 2>err || fail "exit $?: $(cat err)"
[ -s err ] && fail "stderr: $(cat err)"
set -- $(grep '^    cycles ' out | awk '{ print $2 }')
[ $# = 2 ] || fail "no cycles lines: $(cat out)"
[ "$1" -gt "$2" ] || fail "distributed $1 cycles, plain $2: $(cat out)"
set -- $(grep '^    dram ' out | awk '{ print $2 }')
[ "$1" -gt "$2" ] || fail "distributed reads $1 lw, plain $2: $(cat out)"
grep -q '^    conversion 0 lw in the program (0 conversions, 0 cycles); the plan.s 0: 0 lw, 0 cycles estimated$' out ||
    fail "no plan line for the distributed kernel: $(cat out)"
"$TDSL" lower k.tdsl --kernel add --target accel --explain --size N=64 \
    --size M=48 >out 2>err || fail "explain: $(cat err)"
grep -q '^stage C: distribute L2B:i PE:i$' out ||
    fail "explain: $(cat out)"
grep -q "the schedule's distributes" out || fail "explain: $(cat out)"
exit 0
