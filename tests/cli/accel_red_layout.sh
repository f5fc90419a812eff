# accel_red_layout.sh - the layout route (codegen/acc/cg_red_lay.c) on
# the `tiny` machine against the interpreter (tests/accel runs on
# `test`), and what `time ... on accel` says of its conversions: a
# reduction whose reduced axis stays in each PE converts nothing, nor
# does one spread over the levels the tree's red* combine (MABs and
# L1Bs: an all-reduce); one spread over MABs and L2Bs gathers its
# partial results (one conversion, measured against the program
# without it); the planner
# (`lower --explain`) plans it with the reduced variable over those
# levels.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel sq(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d] * X[n, d]
}
schedule sq for accel {
    Y.distribute(d, [MAB, PE])
    layout Y: [n@L1B]
}
kernel cmax(X: f32[N, D]) -> (Y: f32[D]) {
    Y[d] = max(n) X[n, d]
}
schedule cmax for accel {
    layout X: ((2_L1B, 3), (2_PE, 4:1, 2_MAB))
}
kernel lanes(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
schedule lanes for accel {
    Y.distribute(d, [S])
}
kernel tmab(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
schedule tmab for accel {
    Y.distribute(d, [MAB]).distribute(n, [PE])
}
kernel ttop(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = max(d) X[n, d]
}
schedule ttop for accel {
    Y.distribute(d, [MAB, L1B])
}
kernel ew(A: f32[N, D]) -> (C: f32[N, D]) {
    C[i, j] = A[i, j] * 2.0 - 1.0
}
schedule ew for accel {
    layout A: [i@L1B, j@PE]
    layout C: [j@MAB]
}
let x = rand(f32, [6, 16], seed = 1)
assert allclose(sq(x) on accel, sq(x), rtol = 1e-5, atol = 1e-6)
assert allclose(cmax(x) on accel, cmax(x), rtol = 0, atol = 0)
assert allclose(lanes(x) on accel, lanes(x), rtol = 1e-5, atol = 1e-6)
assert allclose(ew(x) on accel, ew(x), rtol = 0, atol = 0)
let x2 = rand(f32, [8, 16], seed = 2)
assert allclose(tmab(x2) on accel, tmab(x2), rtol = 1e-5, atol = 1e-6)
assert allclose(ttop(x2) on accel, ttop(x2), rtol = 0, atol = 0)
TDSL
"$TDSL" --no-cache k.tdsl --machine tiny >out 2>err ||
    fail "tiny: exit $?: $(cat err)"
[ -s err ] && fail "tiny: stderr: $(cat err)"

cat >t.tdsl <<'TDSL'
kernel local(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
schedule local for accel {
    Y.distribute(n, [PE])
}
kernel tree(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
schedule tree for accel {
    Y.distribute(n, [PE]).distribute(d, [MAB, L1B])
}
kernel spread(X: f32[N, D]) -> (Y: f32[N]) {
    Y[n] = sum(d) X[n, d]
}
schedule spread for accel {
    Y.distribute(n, [PE]).distribute(d, [MAB, L2B])
}
let x = rand(f32, [16, 16], seed = 1)
time local(x) on accel
time tree(x) on accel
time spread(x) on accel
TDSL
"$TDSL" --no-cache t.tdsl >out 2>err || fail "time: exit $?: $(cat err)"
[ -s err ] && fail "time: stderr: $(cat err)"
set -- $(grep '^    conversion ' out | awk '{ print $2 }')
[ $# = 3 ] || fail "no conversion lines: $(cat out)"
[ "$1" = 0 ] || fail "local converts $1 lw: $(cat out)"
[ "$2" = 0 ] || fail "tree converts $2 lw: $(cat out)"
[ "$3" -gt 0 ] || fail "spread converts nothing: $(cat out)"
grep -q '^    conversion [0-9]* lw in the program (1 conversions, [0-9]* cycles); not planned' out ||
    fail "no conversion line for the spread sum: $(cat out)"
"$TDSL" lower t.tdsl --kernel tree --target accel --explain --size N=16 \
    --size D=16 >out 2>err || fail "explain: $(cat err)"
grep -q '^stage Y: distribute L1B:d MAB:d PE:n$' out ||
    fail "explain: $(cat out)"
exit 0
