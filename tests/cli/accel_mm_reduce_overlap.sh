# accel_mm_reduce_overlap.sh - the matmul route keeps each (rows, j
# set) pair's sums in the GRF the last pair did not use (r, then s),
# and that pair's reduction (redadd.L1 into the L1 BMs, the tree above,
# the DMA store) rides in the free L1, L2 and DMA slots of the next
# pair's mfma bundles instead of running after them: on machine `test`
# a 512 x 512 x 512 matmul takes fewer than 78000 steps (82439 when
# each reduction ran by itself; 76710 with the overlap) and still
# matches the interpreter.  Simulated steps are counts of the program,
# not host time.
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
grep -q 'mfma\.f32 [xy], lm0\[[0-9]*+\], s\[' "$TMP/out" ||
    fail "no pair sums into s"
grep -q '^m[mf][um][la]\.f32 .* ; redadd\.L1\.f32 r\[' "$TMP/out" ||
    fail "no reduction of r rides in an mmul or mfma bundle"
line=$(grep '^    steps ' "$TMP/out") || fail "no steps"
steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
[ "$steps" -lt 78000 ] || fail "$steps steps: $line"
exit 0
