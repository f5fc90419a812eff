# accel_mm_parts.sh - the matmul route may split the rows over the
# nodes of the top BM level (cg_mm.c, R parts): each node computes its
# own rows for every j tile, so A's pieces are distributed to the nodes
# from DRAM (`dma.dist` of one scope image per node, ACC_CG_PARTS in
# cg_load.c) and B's sets broadcast (`dma.bcast`), where every node
# needed all of A before.  On machine `test` (2 L2Bs) the plan takes it
# for these shapes: rows that do not divide (203 = 2 x 102 - 1, the
# last part padded), a chunk per part, f16 inputs; each result matches
# the interpreter.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/parts.tdsl" <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let A = rand(f32, [203, 77], seed = 1)
let B = rand(f32, [77, 150], seed = 2)
assert allclose(matmul(A, B) on accel, matmul(A, B), rtol = 1e-5)
let H = rand(f16, [150, 64], seed = 3)
let G = rand(f16, [64, 90], seed = 4)
assert allclose(mm16(H, G) on accel, mm16(H, G), rtol = 1e-5)
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/parts.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "$(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: kernel matmul, matmul 203x77x150 .*, rows over the top nodes in chunks of 104' \
    "$TMP/out" || fail "f32 plan: $(grep -m1 '^# accel: kernel matmul' "$TMP/out")"
grep -q '^# accel: kernel mm16, matmul 150x64x90 .*, rows over the top nodes in chunks of 76' \
    "$TMP/out" || fail "f16 plan: $(grep -m1 '^# accel: kernel mm16' "$TMP/out")"
grep -q '^dma\.dist\.t[23] d\[' "$TMP/out" || fail "A's pieces not distributed"
grep -q 'dma\.bcast\.t[04] d\[' "$TMP/out" || fail "B's sets not broadcast"
exit 0
