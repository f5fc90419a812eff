# auto_tile_wide.sh - rule 2 of the automatic schedule
# (codegen/sched_auto.c) with 64-byte vectors: one vector of x (not
# two) by 16, 8 or else 4, 3, 2 rows, the largest that divides them
# (a matmul 64 x 128 x 512: 198 -> 84 us); with 32-byte vectors, 2
# vectors by 4 rows as before.  The tile's size is that of its
# register allocation: rows x vectors x lanes.
. "$(dirname "$0")/lib.sh"

cat >t.tdsl <<'K'
kernel mm64(A: f32[64, 128], B: f32[128, 512]) -> (C: f32[64, 512]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}

kernel mm24(A: f32[24, 16], B: f32[16, 64]) -> (C: f32[24, 64]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}

kernel mm12(A: f32[12, 16], B: f32[16, 64]) -> (C: f32[12, 64]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}

kernel conv(X: f32[1, 16, 10, 34], W: f32[16, 16, 3, 3])
    -> (Y: f32[1, 16, 8, 32]) {
    Y[n, c, y, x] = sum(r in 0..16, p in 0..3, q in 0..3)
        X[n, r, y + p, x + q] * W[c, r, p, q]
}
K
# tile KERNEL BYTES SIZE: the kernel's tile at that vector size holds
# SIZE elements
tile() {
    TDSL_VECTOR_BYTES=$2 "$TDSL" lower t.tdsl --kernel "$1" >out 2>err ||
        fail "lower $1: $(cat err)"
    grep -q "acc: f32\[$3\] on register" out ||
        fail "$1 at $2 bytes: no tile of $3: $(grep 'on register' out)"
}
tile mm64 64 256
tile mm24 64 128
tile mm12 64 64
tile conv 64 256
tile mm64 32 64
tile mm24 32 64
tile conv 32 64
exit 0
