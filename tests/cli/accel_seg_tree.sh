# accel_seg_tree.sh - the conversions between the segments of one
# program (codegen/acc/cg_seg_conv.c, cg_seg_tree.c) are exact: two
# convolutions with a relu between them (the second reads the first's
# output, converted from the matmul route's tiles, through an
# elementwise stage, into its window image) and two matmuls with a
# relu between them (the first's tiles read row-major, then into the
# second's operand image), on integer-valued inputs, so that every
# product and sum is exact in f32 whatever their order: `tdsl sim` of
# the compiled program gives exactly what the interpreter gives, on
# test and mn2 (top nodes of 32 and 512 PEs), on a machine of three BM
# levels, and (the matmuls) on tiny, whose one BM level keeps the DMA
# path.  The window image's conversion goes through the tree (few large
# DMA loads into a top BM, the permutation by broadcasts of the top
# level to one child each; chunks alike built on several top nodes).
. "$(dirname "$0")/lib.sh"

cat >k.tdsl <<'TDSL'
kernel two(X: f32[1, 32, 16, 16], W1: f32[32, 32, 3, 3],
           W2: f32[32, 32, 3, 3]) -> (Y: f32[1, 32, 16, 16]) {
    c1[n, f, y, x] = sum(c, r in 0..3, s in 0..3) X.zero_pad[n, c, y + r - 1, x + s - 1] * W1[f, c, r, s]
    a1[n, f, y, x] = max(c1[n, f, y, x] + 0.0 * X[n, f, y, x], 0.0)
    c2[n, f, y, x] = sum(c, r in 0..3, s in 0..3) a1.zero_pad[n, c, y + r - 1, x + s - 1] * W2[f, c, r, s]
    Y[n, f, y, x] = max(c2[n, f, y, x] + X[n, f, y, x], 0.0)
}
kernel mm(A: f32[M, K], B: f32[K, N], D: f32[N, K]) -> (Y: f32[M, K]) {
    c[i, j] = sum(k) A[i, k] * B[k, j]
    r[i, j] = max(c[i, j], 0.0)
    Y[i, j] = sum(t) r[i, t] * D[t, j]
}
TDSL
/usr/bin/python3 - <<'PY' || fail "inputs"
import numpy as np
r = np.random.default_rng(5)
def ints(*s):
    return r.integers(-2, 3, size=s).astype(np.float32)
np.save('x.npy', ints(1, 32, 16, 16))
np.save('w1.npy', ints(32, 32, 3, 3))
np.save('w2.npy', ints(32, 32, 3, 3))
np.save('a.npy', ints(64, 48))
np.save('b.npy', ints(48, 96))
np.save('d.npy', ints(96, 48))
PY
"$TDSL" run k.tdsl --kernel two --in X=x.npy --in W1=w1.npy \
    --in W2=w2.npy --out Y=ref2.npy 2>err || fail "interp two: $(cat err)"
"$TDSL" run k.tdsl --kernel mm --in A=a.npy --in B=b.npy --in D=d.npy \
    --out Y=refm.npy 2>err || fail "interp mm: $(cat err)"
same() {
    /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('$1'), np.load('$2')
sys.exit(0 if a.shape == b.shape and np.array_equal(a, b) else 1)"
}
# Three BM levels: the broadcasts of the top level (L3) to one L2B.
cat >deep.mach <<'M'
base = test
level = L3B 2 4096
level = L2B 2 2048
level = L1B 2 2048
level = MAB 4
level = PE 4
M
for m in test mn2 tiny deep.mach; do
    "$TDSL" compile k.tdsl --kernel mm --target accel --machine $m \
        --in a.npy --in b.npy --in d.npy -o mm.s 2>err ||
        fail "$m mm: exit $?: $(cat err)"
    "$TDSL" sim mm.s --machine $m --in A=a.npy --in B=b.npy --in D=d.npy \
        --out Y=ym.npy 2>err ||
        fail "$m sim mm: $(cat err)"
    same ym.npy refm.npy || fail "$m: mm differs from the interpreter"
    if [ $m = tiny ]; then
        # One BM level: no level below a top BM to permute into.
        grep -q 'through the tree' mm.s && fail "tiny: a tree gather"
        grep -q '^# gather ' mm.s || fail "tiny: no gather"
        continue
    fi
    "$TDSL" compile k.tdsl --kernel two --target accel --machine $m \
        --in x.npy --in w1.npy --in w2.npy -o two.s 2>err ||
        fail "$m two: exit $?: $(cat err)"
    grep -q '^# accel: kernel two, 4 segments in one program' two.s ||
        fail "$m two: $(head -3 two.s)"
    "$TDSL" sim two.s --machine $m --in X=x.npy --in W1=w1.npy --in W2=w2.npy \
        --out Y=y2.npy 2>err || fail "$m sim two: $(cat err)"
    same y2.npy ref2.npy || fail "$m: two differs from the interpreter"
    grep -q '^# gather [0-9]* f32 into d\[[0-9]*\] through the tree$' two.s ||
        fail "$m: no gather through the tree"
    if [ $m = deep.mach ]; then
        grep -q '^bcast\.L3@{1} b3\[[0-9]*:[0-9]*\] -> lc\[[0-9]*\]$' two.s
    else
        grep -q '^bcast\.L2@{1} lc\[[0-9]*:[0-9]*\] -> lb\[[0-9]*\]$' two.s
    fi || fail "$m: no broadcast to one child"
    # Chunks alike but not next to each other (the window's rows of
    # another pixel tile), built on other top nodes and stored from
    # each; and those next to each other, stored together.
    if [ $m != deep.mach ]; then
        grep -q '^dma\.st\.t1@1 lc\[0:[0-9]*\] -> d\[[0-9]*\]$' two.s ||
            fail "$m: no chunk stored from top node 1"
    fi
    grep -q '^dma\.gather\.t1 ' two.s || fail "$m: no chunks stored together"
done
exit 0
