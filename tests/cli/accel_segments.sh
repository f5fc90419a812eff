# accel_segments.sh - the ResNet-style block of bench/plan_blocks.tdsl
# at the bench's sizes runs on accel as segments (codegen/acc/cg_seg.c):
# the result agrees with the interpreter, and `time` reports the whole
# program (the segments' cycles summed, the utilization of the sum),
# a line for each segment with its route, and the words the runner
# lays out again between segments.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

{
    echo "import \"$OLDPWD/bench/plan_blocks.tdsl\" as pb"
    cat <<'TDSL'
let X = rand(f32, [1, 64, 16, 16], seed = 1)
let W1 = rand(f32, [64, 64, 3, 3], seed = 2)
let s1 = rand(f32, [64], seed = 3)
let b1 = rand(f32, [64], seed = 4)
let W2 = rand(f32, [64, 64, 3, 3], seed = 5)
let s2 = rand(f32, [64], seed = 6)
let b2 = rand(f32, [64], seed = 7)
assert allclose(pb.resblock(X, W1, s1, b1, W2, s2, b2) on accel,
                pb.resblock(X, W1, s1, b1, W2, s2, b2), rtol = 1e-4,
                atol = 1e-4)
time pb.resblock(X, W1, s1, b1, W2, s2, b2) on accel
TDSL
} >k.tdsl

"$TDSL" --no-cache k.tdsl >out 2>err || fail "exit $?: $(cat err)"
[ -s err ] && fail "stderr: $(cat err)"
grep -q '^    segments   4, run one after another, intermediates through DRAM$' out ||
    fail "no segments line: $(cat out)"
for l in 'c1: the matmul' 'a1: the elementwise' 'c2: the matmul' \
    'Y: the elementwise'; do
    grep -q "^    segment    $l route, [0-9]* cycles, [0-9]* lw relaid" out ||
        fail "no segment line '$l': $(cat out)"
done
# The whole program's cycles are the segments' sum.
total=$(grep '^    cycles ' out | awk '{ print $2 }')
sum=$(grep '^    segment ' out | awk '{ s += $6 } END { print s }')
[ "$total" = "$sum" ] || fail "cycles $total, segments' sum $sum"
# Two convolutions on the matrix unit dominate: well over half its peak.
grep '^    util ' out | awk '{ sub(/%/, "", $2); exit !($2 > 50) }' ||
    fail "util: $(grep util out)"
grep -q '^    conversion [1-9][0-9]* lw relaid by the runner between segments (not simulated)$' out ||
    fail "no conversion line: $(cat out)"
