# accel_mm_cols.sh - the matmul route may split the columns over the top
# BM nodes too (cg_mm.c, Cq column parts): the top nodes form 2 blocks,
# node c R + r computing rows part r for the j tiles of column part c,
# so that B's sets go by one `dma.bcast@{...}` per block (ACCELERATOR.md
# 4.5's node set) and a DRAM channel whose nodes are in one block moves
# half of B; A's image holds each rows part once per block.  A machine
# file like mn2 above (8 L2Bs on 4 DRAM channels) with little below it
# and little DRAM bandwidth, so that it runs in a second: f16 256^3
# takes 12788 cycles, 65536 lw read (rows over the nodes alone: 14796,
# 81920); f32 256^3, where the split's program is slower (34036 cycles
# against 29860), keeps the rows alone (the route times both programs).
# Both match the interpreter.  Simulated counts, not host time.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/m8.mach" <<'M'
base = test
level = L2B 8 1024
level = L1B 2 1024
level = MAB 2
level = PE 4
dram_channels = 4
dram_bw = 2
M
cat >"$TMP/cols.tdsl" <<'TDSL'
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let H = rand(f16, [256, 256], seed = 1)
let G = rand(f16, [256, 256], seed = 2)
assert allclose(mm16(H, G) on accel, mm16(H, G), rtol = 1e-5)
time mm16(H, G) on accel
TDSL
cat >"$TMP/rows.tdsl" <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [256, 256], seed = 1)
let B = rand(f32, [256, 256], seed = 2)
assert allclose(matmul(A, B) on accel, matmul(A, B), rtol = 1e-5)
time matmul(A, B) on accel
TDSL

TDSL_DEBUG=accel "$TDSL" "$TMP/cols.tdsl" --machine "$TMP/m8.mach" \
    >"$TMP/out" 2>&1 || fail "f16: $(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: kernel mm16, .*, rows and columns over the top nodes in chunks of 64' \
    "$TMP/out" || fail "plan: $(grep -m1 '^# accel' "$TMP/out")"
grep -q '^dma\.bcast\.t[0-9]*@{0,1,2,3} d\[' "$TMP/out" ||
    fail "no B set to nodes 0..3"
grep -q '^dma\.bcast\.t[0-9]*@{4,5,6,7} d\[' "$TMP/out" ||
    fail "no B set to nodes 4..7"
read=$(sed -n 's/^    dram *\([0-9]*\) lw read.*/\1/p' "$TMP/out")
cycles=$(sed -n 's/^    cycles *\([0-9]*\) .*/\1/p' "$TMP/out")
[ -n "$read" ] && [ "$read" -le 65536 ] || fail "DRAM: $read lw read"
[ -n "$cycles" ] && [ "$cycles" -lt 14000 ] || fail "$cycles cycles"

TDSL_DEBUG=accel "$TDSL" "$TMP/rows.tdsl" --machine "$TMP/m8.mach" \
    >"$TMP/out" 2>&1 || fail "f32: $(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: kernel matmul, .*, rows over the top nodes in chunks' \
    "$TMP/out" || fail "f32 plan: $(grep -m1 '^# accel' "$TMP/out")"
grep -q '@{' "$TMP/out" && fail "f32: a node set in the program"
cycles=$(sed -n 's/^    cycles *\([0-9]*\) .*/\1/p' "$TMP/out")
[ -n "$cycles" ] && [ "$cycles" -le 29860 ] || fail "f32: $cycles cycles"
exit 0
