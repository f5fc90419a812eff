# accel_machines.sh - the accel routes on the machines other than
# `test`: tiny (one BM level, 16 PEs) and mn2 (4096 PEs), so that no
# route assumes the depth or the fan-outs of `test`.  The scripts of
# tests/accel/ that this runs assert their results against the
# interpreter themselves.
fail() { echo "FAIL: $*"; exit 1; }

for m in tiny mn2; do
    for f in tests/accel/accel_reduce.tdsl \
        tests/accel/accel_matmul.tdsl \
        tests/accel/accel_matmul_f16.tdsl \
        tests/accel/accel_pipeline_split.tdsl \
        tests/accel/accel_pipeline_pieces.tdsl; do
        TDSL_MACHINE=$m "$TDSL" "$f" >"$TMP/out" 2>&1 ||
            fail "$f on $m: $(cat "$TMP/out")"
    done
done

# 512 rows of 64 on mn2's 4096 PEs: each row pair over 16 PEs (one in
# each MAB of an L1B), so DRAM moves the tensors and nothing else (one
# row pair a PE moved 16 times that: padding rows on 15 PEs of 16).
cat >"$TMP/s.tdsl" <<'TDSL'
kernel softmax(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    e[n, d] = exp(X[n, d] - m[n])
    s[n] = sum(d) e[n, d]
    Y[n, d] = e[n, d] / s[n]
}
let S = rand(f32, [512, 64], seed = 7)
assert allclose(softmax(S) on accel, softmax(S), rtol = 1e-5, atol = 1e-7)
time softmax(S) on accel
TDSL
"$TDSL" "$TMP/s.tdsl" --machine mn2 >"$TMP/out" 2>&1 ||
    fail "softmax on mn2: $(cat "$TMP/out")"
grep -q '^    dram       16384 lw read, 16384 lw written$' "$TMP/out" ||
    fail "softmax on mn2 moves padding: $(cat "$TMP/out")"

# gamma[d] and beta[d] do not depend on the row: each comes from DRAM
# once, one L1B's share (64 PEs x 4 lw, on each of the 4 DRAM channels),
# and the tree broadcasts it to the other L1Bs, not an image of N x D.
cat >"$TMP/l.tdsl" <<'TDSL'
kernel layernorm(X: f32[N, D], gamma: f32[D], beta: f32[D]; eps: f32 = 1e-5)
    -> (Y: f32[N, D]) {
    mu[n] = (sum(d) X[n, d]) / f32(D)
    var[n] = (sum(d) (X[n, d] - mu[n]) * (X[n, d] - mu[n])) / f32(D)
    Y[n, d] = (X[n, d] - mu[n]) * rsqrt(var[n] + eps) * gamma[d] + beta[d]
}
let S = rand(f32, [512, 64], seed = 7)
let g = rand(f32, [64], seed = 8)
let b = rand(f32, [64], seed = 9)
assert allclose(layernorm(S, g, b) on accel, layernorm(S, g, b),
                rtol = 1e-5, atol = 1e-6)
time layernorm(S, g, b) on accel
TDSL
"$TDSL" "$TMP/l.tdsl" --machine mn2 >"$TMP/out" 2>&1 ||
    fail "layernorm on mn2: $(cat "$TMP/out")"
grep -q '^    dram       18432 lw read, 16384 lw written$' "$TMP/out" ||
    fail "layernorm on mn2 reads gamma per row: $(cat "$TMP/out")"

# `time` reports utilization against the vector peak too (rowsum is
# vector-bound): 64 PEs x 2 f32 lanes x 2 FLOP (fma) per cycle on test.
cat >"$TMP/v.tdsl" <<'TDSL'
kernel rowsum(A: f32[N, M]) -> (S: f32[N]) {
    S[i] = sum(j) A[i, j]
}
let A = rand(f32, [32, 64], seed = 1)
time rowsum(A) on accel
TDSL
"$TDSL" "$TMP/v.tdsl" >"$TMP/out" 2>&1 || fail "rowsum: $(cat "$TMP/out")"
grep -q '^    vector     [0-9.]*% of the f32 vector peak (256 FLOP/cycle)$' \
    "$TMP/out" || fail "no vector utilization: $(cat "$TMP/out")"
exit 0
