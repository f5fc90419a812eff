# accel_mm_a_double.sh - the matmul route loads each chunk of A rows as
# one run (two buffers in every BM: a piece's DMA and broadcast under
# the last piece's dist.L1s) and, when two chunks fit, keeps them in
# both LMs: chunk 0 computes from lm0 while chunk 1's run rides in its
# mfma bundles (the DMA, the BM transfers, and the dist.L1s into lm1
# below its B sets, which start at word 2 Mc KU = 2048), then chunk 1
# computes from lm1.  On machine `test` a 256 x 256 x 256 matmul takes
# fewer than 9700 steps (11718 when each A chunk loaded by itself; 9489
# with both) and still matches the interpreter.  Simulated steps are
# counts of the program, not host time.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/mm.tdsl" <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [256, 256], seed = 1)
let B = rand(f32, [256, 256], seed = 2)
assert allclose(matmul(A, B) on accel, matmul(A, B), rtol = 1e-5)
time matmul(A, B) on accel
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/mm.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "matmul: $(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: .*chunks of 128, double-buffered; A loads in runs$' \
    "$TMP/out" || fail "plan: $(grep -m1 '^# accel' "$TMP/out")"
grep -q '^mfma\.f32 [xy], lm0\[.* ; dma\.bcast\.t0 ' "$TMP/out" ||
    fail "no DMA of A rides in an mfma bundle reading lm0"
# A's words of lm1 are 0 .. 2047, the B sets' from 2048 on.
grep -q '^mfma\.f32 [xy], lm0\[.* ; dist\.L1 lb\[[0-9]*\] -> lm1\[1[0-9]*+\]$' \
    "$TMP/out" || fail "no dist.L1 of chunk 1 rides in an mfma bundle"
grep -q '^mfma\.f32 [xy], lm1\[[0-9]*+\], [rs]\[' "$TMP/out" ||
    fail "no mfma reads chunk 1 from lm1"
line=$(grep '^    steps ' "$TMP/out") || fail "no steps"
steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
[ "$steps" -lt 9700 ] || fail "$steps steps: $line"
exit 0
