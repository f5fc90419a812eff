# accel_mm_dist.sh - the matmul route follows a schedule's `distribute`
# (cg_mm_dist.c): each one fixes its part of the split that the
# program's first line (TDSL_DEBUG=accel) states, the plan choosing the
# rest, and the results match the interpreter (the script asserts
# them).  On `test` (2 L2Bs of 2 L1Bs of 4 MABs), 128 x 256 x 128:
# without a schedule the plan splits k over all 16 groups (level 3).
# A `layout` of C is the program's one conversion, which `time` counts.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/mm.tdsl" <<'TDSL'
kernel free(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
kernel rows(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule rows for accel {
    C.distribute(i, [L2B])
}
kernel all3(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule all3 for accel {
    C.distribute(i, [L2B]).distribute(j, [L1B]).distribute(k, [MAB])
}
kernel cols(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule cols for accel {
    C.distribute(j, [L2B, L1B])
}
kernel red(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule red for accel {
    C.distribute(k, [L1B, MAB])
}
let A = rand(f32, [128, 256], seed = 1)
let B = rand(f32, [256, 128], seed = 2)
let want = free(A, B)
assert allclose(free(A, B) on accel, want, rtol = 1e-5)
assert allclose(rows(A, B) on accel, want, rtol = 1e-5)
assert allclose(all3(A, B) on accel, want, rtol = 1e-5)
assert allclose(cols(A, B) on accel, want, rtol = 1e-5)
assert allclose(red(A, B) on accel, want, rtol = 1e-5)
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/mm.tdsl" >"$TMP/out" 2>"$TMP/err" ||
    fail "run: $(cat "$TMP/err")"
split() {   # split KERNEL TEXT: kernel's program says TEXT
    grep "^# accel: kernel $1, " "$TMP/err" | grep -q "$2" ||
        fail "$1: $(grep "^# accel: kernel $1, " "$TMP/err")"
}
split free 'k split over 16 groups (level 3), j over 1;'
split free 'rows in chunks'
# rows over the L2Bs: R = 2 parts; the plan takes k over an L2B's 8.
split rows 'k split over 8 groups (level 2), j over 1;'
split rows 'rows over the top nodes'
split all3 'k split over 4 groups (level 1), j over 2;'
split all3 'rows over the top nodes'
# columns over both BM levels: 4 nodes, k over the 4 MABs of an L1B.
split cols 'k split over 4 groups (level 1), j over 4;'
split cols 'rows in chunks'
# k over the 8 groups of an L2B; the plan splits the rows over the two.
split red 'k split over 8 groups (level 2), j over 1;'
split red 'rows over the top nodes'

cat >"$TMP/lay.tdsl" <<'TDSL'
kernel mm(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule mm for accel {
    layout C: ((2_L2B, 8), (4_PE, 2, 2_W))
}
let A = rand(f32, [16, 24], seed = 1)
let B = rand(f32, [24, 16], seed = 2)
time mm(A, B) on accel
TDSL
"$TDSL" "$TMP/lay.tdsl" >"$TMP/out" 2>&1 || fail "layout: $(cat "$TMP/out")"
grep -q "^    conversion [1-9][0-9]* lw in the program (1 conversions, [1-9][0-9]* cycles); not planned (the matmul route's own conversions)$" \
    "$TMP/out" || fail "layout's conversion: $(cat "$TMP/out")"
exit 0
