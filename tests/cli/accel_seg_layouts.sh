# accel_seg_layouts.sh - which DRAM image each tensor of a program of
# segments is kept in (codegen/acc/target_seg_lay.c), on a ResNet-style
# block (two convolutions on the matrix unit, an elementwise stage
# after each).  By default an elementwise segment computes in the image
# its producer (the matmul route) wrote its input in, so that input is
# read where it lies (and X, read by all three, is laid out by the host
# in each one's image): the only conversion left is a1 into the second
# convolution's window.  With
# TDSL_ACC_LAYOUTS=naive every tensor is row-major (inputs,
# intermediates, output), and the routes convert into and out of it:
# more conversions and more DRAM traffic.  Both agree with the
# interpreter.
. "$(dirname "$0")/lib.sh"

cat >blk.tdsl <<'TDSL'
kernel resblock(X: f32[1, C, H, W], W1: f32[C, C, 3, 3], s1: f32[C],
                b1: f32[C], W2: f32[C, C, 3, 3], s2: f32[C], b2: f32[C])
    -> (Y: f32[1, C, H, W]) {
    c1[n, f, y, x] = sum(c, r in 0..3, s in 0..3) X.zero_pad[n, c, y + r - 1, x + s - 1] * W1[f, c, r, s]
    a1[n, f, y, x] = max(c1[n, f, y, x] * s1[f] + b1[f] + 0.0 * X[n, f, y, x], 0.0)
    c2[n, f, y, x] = sum(c, r in 0..3, s in 0..3) a1.zero_pad[n, c, y + r - 1, x + s - 1] * W2[f, c, r, s]
    Y[n, f, y, x] = max(c2[n, f, y, x] * s2[f] + b2[f] + X[n, f, y, x], 0.0)
}
let X = rand(f32, [1, 8, 6, 6], seed = 1)
let W1 = rand(f32, [8, 8, 3, 3], seed = 2)
let s1 = rand(f32, [8], seed = 3)
let b1 = rand(f32, [8], seed = 4)
let W2 = rand(f32, [8, 8, 3, 3], seed = 5)
let s2 = rand(f32, [8], seed = 6)
let b2 = rand(f32, [8], seed = 7)
TDSL
{ cat blk.tdsl; cat <<'TDSL'; } >k.tdsl
assert allclose(resblock(X, W1, s1, b1, W2, s2, b2) on accel,
                resblock(X, W1, s1, b1, W2, s2, b2), rtol = 1e-5,
                atol = 1e-5)
time resblock(X, W1, s1, b1, W2, s2, b2) on accel
TDSL

# lw LINE: the DRAM long words of a `conversion` line.
lw() { sed -n 's/^    conversion [0-9]* in the program: [0-9]* cycles, \([0-9]*\) lw.*/\1/p' "$1"; }

"$TDSL" --no-cache k.tdsl >out 2>err || fail "exit $?: $(cat err)"
[ -s err ] && fail "stderr: $(cat err)"
grep -q '^    segment    a1: the elementwise route$' out ||
    fail "no elementwise a1: $(cat out)"
grep -q '^    host       7 of 7 inputs laid out in their first route.s image by the host at load, 2 copies in other routes. images, the output read back from its route.s image by the host (not counted)$' out ||
    fail "no host line: $(cat out)"
grep -q '^    conversion 1 in the program: ' out ||
    fail "not 1 conversion: $(grep conversion out)"

TDSL_ACC_LAYOUTS=naive "$TDSL" --no-cache k.tdsl >naive 2>err ||
    fail "naive: exit $?: $(cat err)"
[ -s err ] && fail "naive: stderr: $(cat err)"
grep -q '^    layouts    naive: every tensor row-major in DRAM (TDSL_ACC_LAYOUTS=naive)$' naive ||
    fail "naive: no layouts line: $(cat naive)"
grep -q '^    layouts ' out && fail "a layouts line: $(cat out)"
grep -q '^    host       0 of 7 inputs laid out in their first route.s image by the host at load, 0 copies in other routes. images, the output read back row-major (not counted)$' naive ||
    fail "naive: no host line: $(cat naive)"
n=$(sed -n 's/^    conversion \([0-9]*\) in the program: .*/\1/p' naive)
[ "$n" -gt 1 ] || fail "naive: $n conversions"
a=$(lw out) b=$(lw naive)
[ -n "$a" ] && [ "$b" -gt "$a" ] || fail "naive $b lw, chosen $a"

# The naive layouts also hold the encoder's pipelines and reductions
# (their outputs to row-major, their images from it): the blocks of
# tests/accel/accel_segments.tdsl against the interpreter.
TDSL_ACC_LAYOUTS=naive "$TDSL" --no-cache \
    "$OLDPWD/tests/accel/accel_segments.tdsl" >/dev/null 2>err ||
    fail "naive accel_segments.tdsl: $(cat err)"

# The chosen program compiled alone runs under `tdsl sim` on row-major
# inputs and gives the interpreter's result.
{ cat blk.tdsl; cat <<'TDSL'; } >save.tdsl
save(X, "X.npy")
save(W1, "W1.npy")
save(s1, "s1.npy")
save(b1, "b1.npy")
save(W2, "W2.npy")
save(s2, "s2.npy")
save(b2, "b2.npy")
save(resblock(X, W1, s1, b1, W2, s2, b2), "Y_want.npy")
TDSL
"$TDSL" save.tdsl >/dev/null 2>err || fail "save: $(cat err)"
ins=
for t in X W1 s1 b1 W2 s2 b2; do ins="$ins --in $t=$t.npy"; done
"$TDSL" compile blk.tdsl --kernel resblock --target accel $ins -o k.s 2>err ||
    fail "compile: $(cat err)"
grep -q '^\.output Y f32\[1,8,6,6\] d\[[0-9]*\] image ' k.s ||
    fail "Y not read back from its image: $(grep '^\.output' k.s)"
"$TDSL" sim k.s $ins --out Y=Y.npy 2>err || fail "sim: $(cat err)"
/usr/bin/python3 - <<'PY' || fail "sim's Y differs from the interpreter's"
import numpy as np
a, b = np.load("Y.npy"), np.load("Y_want.npy")
assert a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-5)
PY
exit 0
