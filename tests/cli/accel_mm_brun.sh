# accel_mm_brun.sh - the matmul route's B sets load as runs (cg_mm.c,
# brun) where no A chunk rides in the pairs: two buffers in every BM's
# B region (the words A's buffers would take), the pieces' DMAs under
# tags t4 and t5, piece 1's DMA right behind piece 0's and piece q + 2's
# as soon as piece q's tree transfers have read its buffer (cg_load.c);
# and the last pair's store (`dma.gather.t1`) waits for the B set's last
# DMA (the overlap engine's fourth queue, acc_cg_ov_after), so that the
# channels move it while that piece goes down the tree.  f16 256 x 256
# x 256 on machine `test` (simulated steps, not host time): 1834 steps
# (2560 with each piece of a B set waiting for the last one's tree
# transfers, its store between the pieces); the result matches the
# interpreter.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/brun.tdsl" <<'TDSL'
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let H = rand(f16, [256, 256], seed = 1)
let G = rand(f16, [256, 256], seed = 2)
assert allclose(mm16(H, G) on accel, mm16(H, G), rtol = 1e-5)
time mm16(H, G) on accel
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/brun.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "$(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^dma\.bcast\.t4 d\[[0-9:]*\] -> lc\[[0-9]*\]$' "$TMP/out" &&
    grep -q '^dma\.bcast\.t5 ' "$TMP/out" && grep -q '^wait t5$' "$TMP/out" ||
    fail "B's pieces do not alternate t4, t5"
# Piece 1's DMA right behind piece 0's, before its wait.
grep -A1 '^dma\.bcast\.t4 ' "$TMP/out" | grep -q '^dma\.bcast\.t5 ' ||
    fail "piece 1's DMA waits for piece 0"
grep -q '^m[mf][um][la]\.f16 .* ; dma\.bcast\.t[45] d' "$TMP/out" ||
    fail "no DMA of a B set rides in an mfma bundle"
# Each store after the B set's last DMA of its pair: no B DMA between a
# store and the next pair's first mwrite.
awk '/dma\.gather\.t1/ { st = 1 } st && /dma\.bcast\.t[45]/ && !/^mwrite/ { bad = 1 }
     /^mwrite/ || /^# accel/ { st = 0 } END { exit bad }' "$TMP/out" ||
    fail "a store goes out before the B set's last DMA"
line=$(grep '^    steps ' "$TMP/out") || fail "no steps"
steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
[ "$steps" -lt 1900 ] || fail "$steps steps: $line"
exit 0
