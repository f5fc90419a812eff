# accel_conv_window.sh - a convolution run as a matmul keeps its input
# in the PEs as a window image (cg_win.c): each PE loads its block's
# input rows once, with a halo, and each tile's mwrite reads the
# shifted columns where they are (`lm1[a by 4]`), instead of loading
# the im2col image (R S shifted copies of the input) from DRAM.  Each
# result matches the interpreter; on machine `test`, conv 1x16x20x20
# with 16 3x3 filters reads 29440 long words of DRAM and takes 1092
# steps from the im2col image, under 16000 and 950 from the window.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/conv.tdsl" <<'TDSL'
kernel conv(X: f32[N, C, H, W], Wt: f32[F, C, R, S]) -> (Y: f32[N, F, H - R + 1, W - S + 1]) {
    Y[n, f, y, x] = sum(c, r, s) X[n, c, y + r, x + s] * Wt[f, c, r, s]
}
kernel conv1(X: f32[C, W], Wt: f32[F, C, S]) -> (Y: f32[F, W - S + 1]) {
    Y[f, x] = sum(c, s) X[c, x + s] * Wt[f, c, s]
}
let X = rand(f32, [1, 16, 20, 20], seed = 10)
let Wt = rand(f32, [16, 16, 3, 3], seed = 11)
assert allclose(conv(X, Wt) on accel, conv(X, Wt), rtol = 1e-5)
time conv(X, Wt) on accel
# Three channel slots per PE (40 channels, 16 per k tile of a node).
let X2 = rand(f32, [1, 40, 10, 12], seed = 12)
let W2 = rand(f32, [8, 40, 3, 3], seed = 13)
assert allclose(conv(X2, W2) on accel, conv(X2, W2), rtol = 1e-5)
let X3 = rand(f32, [24, 70], seed = 14)
let W3 = rand(f32, [12, 24, 5], seed = 15)
assert allclose(conv1(X3, W3) on accel, conv1(X3, W3), rtol = 1e-5)
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/conv.tdsl" --machine test >"$TMP/out" 2>&1 ||
    fail "$(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
[ "$(grep -c '^# accel: .*; B from a window image$' "$TMP/out")" -eq 4 ] ||
    fail "plans: $(grep '^# accel' "$TMP/out")"
grep -q '^mfma\.f32 [xy], lm0\[[0-9]*+\], [rs]\[[0-9]*+\] -> [rs]\[[0-9]*+\] ; mwrite\.f32 lm1\[[0-9]* by 4\] -> [xy]\[0\]' \
    "$TMP/out" || fail "no mwrite reads the window image"
read=$(sed -n 's/^    dram *\([0-9]*\) lw read.*/\1/p' "$TMP/out")
steps=$(sed -n 's/^    steps *\([0-9]*\):.*/\1/p' "$TMP/out")
[ -n "$read" ] && [ "$read" -lt 16000 ] || fail "DRAM: $read lw read"
[ -n "$steps" ] && [ "$steps" -lt 950 ] || fail "$steps steps"

# A batch and a 3 x 2 window on the 16-PE machine (8 channels: with 3,
# im2col with B's sets loaded as runs is cheaper there, and the plan
# takes it).
cat >"$TMP/tiny.tdsl" <<'TDSL'
kernel conv(X: f32[N, C, H, W], Wt: f32[F, C, R, S]) -> (Y: f32[N, F, H - R + 1, W - S + 1]) {
    Y[n, f, y, x] = sum(c, r, s) X[n, c, y + r, x + s] * Wt[f, c, r, s]
}
let X = rand(f32, [2, 8, 12, 12], seed = 8)
let Wt = rand(f32, [8, 8, 3, 2], seed = 9)
assert allclose(conv(X, Wt) on accel, conv(X, Wt), rtol = 1e-5)
TDSL
TDSL_DEBUG=accel "$TDSL" "$TMP/tiny.tdsl" --machine tiny >"$TMP/out" 2>&1 ||
    fail "tiny: $(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: .*; B from a window image$' "$TMP/out" ||
    fail "tiny plan: $(grep '^# accel' "$TMP/out")"
exit 0
