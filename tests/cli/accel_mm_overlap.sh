# accel_mm_overlap.sh - the matmul route loads the next B set under the
# mfma steps of the current one (DMA, BM links and dist.L1 in the free
# slots of the same bundles, lm1 double-buffered): on machine `test` a
# 512 x 512 x 512 matmul stalls on its DMA waits for under 8% of its
# steps (10.9% before the overlap: 10515 of 95761) and still matches
# the interpreter.  Simulated steps are counts of the program, not
# host time.
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
"$TDSL" "$TMP/mm.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "matmul: $(cat "$TMP/out")"
line=$(grep '^    steps ' "$TMP/out") || fail "no steps: $(cat "$TMP/out")"
steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
wait=$(echo "$line" | sed 's/.*(wait \([0-9]*\),.*/\1/')
[ $((wait * 100)) -lt $((steps * 8)) ] ||
    fail "wait stalls $wait of $steps steps: $line"
exit 0
