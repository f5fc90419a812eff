# accel_mm_bres.sh - with the columns split over blocks of the top nodes
# (cg_mm.c, Cq), a node whose rows take several chunks whose A does not
# fit lm0 at once (no ares) may keep every B set in lm1 instead (bres):
# the sets load once, in chunk 0's pairs, and the A chunks stream
# through the LMs as double-buffered chunks do, an odd chunk's A in lm1
# beside the B sets, its mwrites in bundles of their own.  A machine
# file shaped like mn2 where it matters (8 L2Bs on 4 DRAM channels, 8
# L1Bs a node, little LM), small enough to run in a second: f16 512 x
# 256 x 512 has 128 rows a node, 4 chunks of 32 (A: 512 long words a
# PE, lm_words 256); it takes 17224 cycles and reads 131072 lw from
# DRAM (before bres: 20744 cycles, 163840 lw, with the rows over the
# top nodes alone), and matches the interpreter.
# Simulated counts, not host time.
fail() { echo "FAIL: $*"; exit 1; }

cat >"$TMP/m.mach" <<'M'
base = test
level = L2B 8 4096
level = L1B 8 2048
level = MAB 4
level = PE 4
lm_words = 256
dram_channels = 4
dram_bw = 4
M
cat >"$TMP/bres.tdsl" <<'TDSL'
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let H = rand(f16, [512, 256], seed = 1)
let G = rand(f16, [256, 512], seed = 2)
assert allclose(mm16(H, G) on accel, mm16(H, G), rtol = 1e-5)
time mm16(H, G) on accel
TDSL

TDSL_DEBUG=accel "$TDSL" "$TMP/bres.tdsl" --machine "$TMP/m.mach" \
    >"$TMP/out" 2>&1 || fail "$(grep -v '^[a-z.#]' "$TMP/out" | head -5)"
grep -q '^# accel: kernel mm16, .*, rows and columns over the top nodes in chunks of 32, double-buffered, every B set in lm1; A loads in runs$' \
    "$TMP/out" || fail "plan: $(grep -m1 '^# accel' "$TMP/out")"
grep -q '^dma\.bcast\.t[45]@{0,1,2,3} d\[' "$TMP/out" ||
    fail "no B run to nodes 0..3"
# An odd chunk computes from lm1, where its mwrites read the B sets in
# bundles of their own: the bundle before its first mmul is one.
grep -B1 '^mmul\.f16 x, lm1\[0+\]' "$TMP/out" | head -1 |
    grep -q '^mwrite\.f16 lm1\[[0-9]*+\]\.dd -> y\[8\]' ||
    fail "odd chunk: $(grep -m1 -B1 '^mmul\.f16 x, lm1\[0+\]' "$TMP/out")"
read=$(sed -n 's/^    dram *\([0-9]*\) lw read.*/\1/p' "$TMP/out")
cycles=$(sed -n 's/^    cycles *\([0-9]*\) .*/\1/p' "$TMP/out")
[ -n "$read" ] && [ "$read" -le 131072 ] || fail "DRAM: $read lw read"
[ -n "$cycles" ] && [ "$cycles" -le 17224 ] || fail "$cycles cycles"
exit 0
