# accel_mm_overlap.sh - the matmul route overlaps its transfers with
# the mfma steps, on machine `test`, for matmuls that still match the
# interpreter (simulated steps are counts of the program, not host
# time).  512 x 512 x 512:
# - the next B set loads under the mfma steps of the current one (DMA,
#   BM links and dist.L1 in the free slots of the same bundles, lm1
#   double-buffered): DMA waits stall under 8% of the steps (10.9%
#   before: 10515 of 95761);
# - each (rows, j set) pair's sums go to the GRF the last pair did not
#   use (r, then s), and that pair's reduction (redadd.L1, the tree
#   above, the DMA store) rides in the next pair's mfma bundles: fewer
#   than 78000 steps (82439 when each reduction ran by itself).
# 256 x 256 x 256: each chunk of A rows loads as one run (two buffers
# in every BM: a piece's DMA and broadcast under the last piece's
# dist.L1s) and, when two chunks fit, they are kept in both LMs: chunk 0
# computes from lm0 while chunk 1's run rides in its mfma bundles (the
# DMA, the BM transfers, and the dist.L1s into lm1 below its B sets,
# which start at word 2 Mc KU = 2048), then chunk 1 computes from lm1:
# fewer than 9700 steps (11718 when each A chunk loaded by itself; 9489
# with both in one queue, 9515 in queues of their own).
# The overlap engine's queues (cg_overlap.c): the next B set (tag t0),
# the last pair's reduction and the next A chunk's run (tags t2 and t3,
# in BM words of its own) ride side by side, and A's run no longer
# waits behind each B set and reduction (mn2 matmul 2048: 56.4% ->
# 85.6%).  The rows split over the top nodes (the 2 L2Bs: 128 rows
# each, in chunks of 64): A's pieces are distributed to them from DRAM
# (dma.dist), B's sets broadcast; a run's pieces alternate the tags t2
# and t3, so that the next piece's DMA goes out while the last one's
# tree transfers run: 8955 steps (9515 with all rows in every node,
# chunks of 128).
fail() { echo "FAIL: $*"; exit 1; }

# mm N: an N x N x N matmul on accel; its assembly and statistics in
# $TMP/mmN, its simulated steps in $steps and their line in $line.
mm() {
    cat >"$TMP/mm$1.tdsl" <<TDSL
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
let A = rand(f32, [$1, $1], seed = 1)
let B = rand(f32, [$1, $1], seed = 2)
assert allclose(matmul(A, B) on accel, matmul(A, B), rtol = 1e-5)
time matmul(A, B) on accel
TDSL
    TDSL_DEBUG=accel "$TDSL" "$TMP/mm$1.tdsl" --machine test \
        >"$TMP/mm$1" 2>&1 ||
        fail "matmul $1: $(grep -v '^[a-z.#]' "$TMP/mm$1" | head -5)"
    line=$(grep '^    steps ' "$TMP/mm$1") || fail "matmul $1: no steps"
    steps=$(echo "$line" | sed 's/^ *steps *\([0-9]*\):.*/\1/')
}

mm 512
wait=$(echo "$line" | sed 's/.*(wait \([0-9]*\),.*/\1/')
[ $((wait * 100)) -lt $((steps * 8)) ] ||
    fail "wait stalls $wait of $steps steps: $line"
grep -q 'mfma\.f32 [xy], lm0\[[0-9]*+\], s\[' "$TMP/mm512" ||
    fail "no pair sums into s"
grep -q '^m[mf][um][la]\.f32 .* ; redadd\.L1\.f32 r\[' "$TMP/mm512" ||
    fail "no reduction of r rides in an mmul or mfma bundle"
[ "$steps" -lt 78000 ] || fail "512: $steps steps: $line"

mm 256
grep -q '^# accel: .*rows over the top nodes in chunks of 64, double-buffered; A loads in runs$' \
    "$TMP/mm256" || fail "plan: $(grep -m1 '^# accel' "$TMP/mm256")"
grep -q '^mfma\.f32 [xy], lm0\[.* ; dma\.dist\.t[23] ' "$TMP/mm256" ||
    fail "no DMA of A rides in an mfma bundle reading lm0"
# A's words of lm1 are 0 .. 2047, the B sets' from 2048 on.
grep -q '^mfma\.f32 [xy], lm0\[.* ; dist\.L1 lb\[[0-9]*\] -> lm1\[1[0-9]*+\]$' \
    "$TMP/mm256" || fail "no dist.L1 of chunk 1 rides in an mfma bundle"
grep -q '^mfma\.f32 [xy], lm1\[[0-9]*+\], [rs]\[' "$TMP/mm256" ||
    fail "no mfma reads chunk 1 from lm1"
grep -q 'dma\.dist\.t2 ' "$TMP/mm256" && grep -q 'dma\.dist\.t3 ' "$TMP/mm256" &&
    grep -q 'wait t3$' "$TMP/mm256" || fail "A's pieces do not alternate t2, t3"
grep -q '^m[mf][um][la]\.f32 .* ; dma\.bcast\.t0 d' "$TMP/mm256" ||
    fail "no broadcast of a B set rides in an mfma bundle"
[ "$steps" -lt 9100 ] || fail "256: $steps steps: $line"
exit 0
