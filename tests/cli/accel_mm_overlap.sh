# accel_mm_overlap.sh - the matmul route overlaps its transfers with
# the mfma steps, on machine `test`, for a 512 x 512 x 512 matmul that
# still matches the interpreter:
# - the next B set loads under the mfma steps of the current one (DMA,
#   BM links and dist.L1 in the free slots of the same bundles, lm1
#   double-buffered): DMA waits stall under 8% of the steps (10.9%
#   before: 10515 of 95761);
# - each (rows, j set) pair's sums go to the GRF the last pair did not
#   use (r, then s), and that pair's reduction (redadd.L1, the tree
#   above, the DMA store) rides in the next pair's mfma bundles: fewer
#   than 78000 steps (82439 when each reduction ran by itself, 76710
#   with it riding).
# Simulated steps are counts of the program, not host time.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/mm.tdsl" <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [512, 512], seed = 1)
let B = rand(f32, [512, 512], seed = 2)
assert allclose(matmul(A, B) on accel, matmul(A, B), rtol = 1e-5)
time matmul(A, B) on accel
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/mm.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "matmul: $(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
line=$(grep '^    steps ' "$TMP/out") || fail "no steps"
steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
wait=$(echo "$line" | sed 's/.*(wait \([0-9]*\),.*/\1/')
[ $((wait * 100)) -lt $((steps * 8)) ] ||
    fail "wait stalls $wait of $steps steps: $line"
grep -q 'mfma\.f32 [xy], lm0\[[0-9]*+\], s\[' "$TMP/out" ||
    fail "no pair sums into s"
grep -q '^m[mf][um][la]\.f32 .* ; redadd\.L1\.f32 r\[' "$TMP/out" ||
    fail "no reduction of r rides in an mmul or mfma bundle"
[ "$steps" -lt 78000 ] || fail "$steps steps: $line"
exit 0
