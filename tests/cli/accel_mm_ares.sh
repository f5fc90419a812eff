# accel_mm_ares.sh - the matmul route may keep every A chunk in lm0 at
# once (cg_mm.c, ares) when a node's rows take two or more chunks (the
# GRF holds the sums of 128 rows of f16) and they fit the LM: the pairs
# then go j set by j set, the chunks' pairs of one set sharing its B
# tiles in lm1, so that each B set crosses the DRAM channels once, not
# once per chunk, and the next set loads across all of them.  f16 2048 x
# 512 x 128 on machine `mn2` (256 rows per L2B, two chunks of 128):
# 1351 steps and 327680 lw read from DRAM (1677 and 393216 with the
# chunks one after the other, each loading every B set; 1436 with a run
# of loads for each chunk's A instead of one for all); the result
# matches the interpreter.  Simulated counts, not host time.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/ares.tdsl" <<'TDSL'
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let H = rand(f16, [2048, 512], seed = 1)
let G = rand(f16, [512, 128], seed = 2)
assert allclose(mm16(H, G) on accel, mm16(H, G), rtol = 1e-5)
time mm16(H, G) on accel
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/ares.tdsl" --machine mn2 >"$TMP/out" 2>&1 ||
    fail "$(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: kernel mm16, .* in chunks of 128, all in lm0, by j set; A loads in runs$' \
    "$TMP/out" || fail "plan: $(grep -m1 '^# accel' "$TMP/out")"
# Chunk 1's A from lm0 word 2 Mc KU = 512 on.
grep -q '^mmul\.f16 x, lm0\[512+\] -> s\[0+\]\.dd' "$TMP/out" ||
    fail "no pair of chunk 1 reads its A from lm0[512]"
read=$(sed -n 's/^    dram *\([0-9]*\) lw read.*/\1/p' "$TMP/out")
steps=$(sed -n 's/^    steps *\([0-9]*\):.*/\1/p' "$TMP/out")
[ -n "$read" ] && [ "$read" -le 327680 ] || fail "DRAM: $read lw read"
[ -n "$steps" ] && [ "$steps" -le 1351 ] || fail "$steps steps"
exit 0
