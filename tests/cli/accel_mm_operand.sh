# accel_mm_operand.sh - a `layout` of a matmul's operand (cg_mm_dist.c)
# on machine `test`: the program loads the operand from its row-major
# `.input` into the layout, stores it from there row-major and moves
# its long words into the route's image (layout_emit.c's load and
# store, DMA runs through the top BM of node 0), then runs the route's
# program unchanged.  So, counted by hand from the program without the
# layout (the same split): the conversion's cycles are exactly the
# difference of the two runs, `time` says so, and its DRAM traffic is
# the operand four times (in and out of its layout, in and out of the
# moves: 192 long words of f32 B[24, 16] each way twice); the planner's
# estimate (the program as emitted, timed) is the simulated count, and
# `tdsl lower --explain` names the conversion with its cycles.
. "$(dirname "$0")/lib.sh"

cat >mm.tdsl <<'TDSL'
kernel mmb(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule mmb for accel {
    layout B: ((2_L2B, 12), (4_PE, 2, 2_W))
}
kernel ref(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [16, 24], seed = 1)
let B = rand(f32, [24, 16], seed = 2)
assert allclose(mmb(A, B) on accel, ref(A, B), rtol = 1e-5)
time mmb(A, B) on accel
time ref(A, B) on accel
TDSL
"$TDSL" mm.tdsl >out 2>err || fail "run: $(cat err)"
# field N KERNEL PATTERN: field N of KERNEL's `time` line PATTERN.
field() {
    awk -v k="time $2(" -v p="$3" -v n="$1" '
        index($0, k) == 1 { on = 1; next } /^time / { on = 0 }
        on && $1 == p { print $n; exit }' out
}
c1=$(field 2 mmb cycles) c0=$(field 2 ref cycles)
[ "$c1" = 4980 ] && [ "$c0" = 368 ] || fail "cycles $c1, $c0: $(cat out)"
grep -q "^    conversion [0-9]* lw in the program (1 conversions, $((c1 - c0)) \
cycles); not planned (the matmul route's own conversions)$" out ||
    fail "conversion is not $((c1 - c0)) cycles: $(cat out)"
r1=$(field 2 mmb dram) r0=$(field 2 ref dram)
w1=$(field 5 mmb dram) w0=$(field 5 ref dram)
[ $((r1 - r0)) = 384 ] && [ $((w1 - w0)) = 384 ] ||
    fail "DRAM read $r1 - $r0, written $w1 - $w0: $(cat out)"
grep -q "^    planner    $c1 cycles estimated (the matmul route's program as \
emitted, timed;.*simulated/estimated 1.00," out ||
    fail "planner: $(cat out)"
"$TDSL" lower mm.tdsl --kernel mmb --target accel --explain --size M=16 \
    --size K=24 --size N=16 >ex 2>err || fail "explain: $(cat err)"
grep -q "^program: the matmul route's instructions, timed as the simulator \
times them: $c1 cycles (.*; its conversions $((c1 - c0)): 'B' from its \
layout through DRAM into the route's image of B)$" ex ||
    fail "explain: $(cat ex)"
# The program: the conversion before the route's first load.
TDSL_DEBUG=accel "$TDSL" mm.tdsl >/dev/null 2>prog || fail "debug run"
grep -q "^\.input B f32\[24,16\] d\[" prog || fail "B's .input: $(head prog)"
grep -q "^# 'B' into the schedule's layout, stored from it row-major" prog ||
    fail "no conversion: $(head -20 prog)"

# An f32 A in a layout: its image keeps one element a long word, so the
# elements move inside long words on the PEs (cg_mm_lane.c: unpacked to
# f64 long words, gathered, narrowed back), still the one conversion,
# exactly the difference, estimated as emitted.
cat >mma.tdsl <<'TDSL'
kernel mma(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule mma for accel {
    layout A: ((2_L2B, 8), (4_PE, 3, 2_W))
}
kernel ref(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [16, 24], seed = 1)
let B = rand(f32, [24, 16], seed = 2)
assert allclose(mma(A, B) on accel, ref(A, B) on accel, rtol = 0, atol = 0)
time mma(A, B) on accel
time ref(A, B) on accel
TDSL
"$TDSL" mma.tdsl >out 2>err || fail "run A: $(cat err)"
c1=$(field 2 mma cycles) c0=$(field 2 ref cycles)
[ "$c1" = 8184 ] && [ "$c0" = 368 ] || fail "A: cycles $c1, $c0: $(cat out)"
grep -q "^    conversion [0-9]* lw in the program (1 conversions, $((c1 - c0)) \
cycles); not planned (the matmul route's own conversions)$" out ||
    fail "A: conversion is not $((c1 - c0)) cycles: $(cat out)"
grep -q "^    planner    $c1 cycles estimated .*simulated/estimated 1.00," out ||
    fail "A: planner: $(cat out)"
TDSL_DEBUG=accel "$TDSL" mma.tdsl >/dev/null 2>prog || fail "debug run A"
grep -q "^# 'A' into the schedule's layout, .* element by element$" prog ||
    fail "A: no element moves: $(grep '^#' prog | head)"
grep -q "^cvt.f64.f32 " prog && grep -q "^cvt.f32.f64 " prog ||
    fail "A: no unpacking and narrowing: $(grep '^#' prog | head)"
exit 0
