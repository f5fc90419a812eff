# accel_segments.sh - the ResNet-style block of bench/plan_blocks.tdsl
# at the bench's sizes runs on accel as segments (codegen/acc/cg_seg.c)
# in one program (codegen/acc/target_seg.c): the result agrees with the
# interpreter, and `time` reports the whole program as the simulator
# counts it, a line for each segment with its route, and what the
# conversions between them take (cycles and DRAM traffic: the program
# against the same without them), which is most of it.
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
grep -q '^    segments   4 in one program, the conversions between them on the device$' out ||
    fail "no segments line: $(cat out)"
for l in 'c1: the matmul' 'a1: the elementwise' 'c2: the matmul' \
    'Y: the elementwise'; do
    grep -q "^    segment    $l route$" out ||
        fail "no segment line '$l': $(cat out)"
done
# The inputs are declared in their first consumer's image, which the
# host lays out when it loads them, and X again in each of the two
# later consumers' that read it in other orders; the elementwise stages
# compute in their convolution's image and read it where it lies
# (codegen/acc/target_seg_lay.c): what is left on the device is a1 into
# the second convolution's window; the output is read back from the
# image Y was computed in.
grep -q '^    host       7 of 7 inputs laid out in their first route.s image by the host at load, 2 copies in other routes. images, the output read back from its route.s image by the host (not counted)$' out ||
    fail "no host line: $(cat out)"
grep -q '^    conversion 1 in the program: [1-9][0-9]* cycles, [1-9][0-9]* lw DRAM ([1-9][0-9]* DMA gathers); of the kernel.s inputs into other routes. images 0 cycles, 0 lw$' out ||
    fail "no conversion line: $(cat out)"
# The conversions are part of the program's cycles, and the two
# convolutions (37.9 MFLOP) are in it.
total=$(grep '^    cycles ' out | awk '{ print $2 }')
conv=$(sed -n 's/^    conversion [0-9]* in the program: \([0-9]*\) cycles.*/\1/p' out)
[ "$conv" -lt "$total" ] || fail "conversions $conv of $total cycles"
grep -q '^    flops      37896192 useful' out || fail "flops: $(cat out)"
# The planner's estimate of the whole program (target_seg_est.c)
# within 20% of the simulated count (tests/cli/accel_seg_model.sh
# checks both blocks by --explain).
est=$(sed -n 's/^    planner    \([0-9]*\) cycles estimated for the program (the segments. route models [0-9]*, conversions [0-9]*, of which .*); simulated\/estimated [0-9.]*, conversions simulated\/estimated [0-9.]*$/\1/p' out)
[ -n "$est" ] || fail "no planner line: $(cat out)"
awk -v a="$est" -v b="$total" 'BEGIN { r = a / b
        exit !(r >= 0.8 && r <= 1.2) }' ||
    fail "planner: estimated $est, simulated $total (beyond 20%)"
# A second call of the same shapes takes the kept program (the same
# figures, no new plan).
cat >>k.tdsl <<'TDSL'
time pb.resblock(X, W1, s1, b1, W2, s2, b2) on accel
TDSL
TDSL_DEBUG=accel-seg "$TDSL" --no-cache k.tdsl >out2 2>err ||
    fail "exit $?: $(cat err)"
[ "$(grep -c "^accel: planning the segments of 'resblock'$" err)" = 1 ] ||
    fail "planned more than once: $(cat err)"
[ "$(grep -c "^    cycles     $total " out2)" = 2 ] ||
    fail "second call: $(grep cycles out2)"
exit 0
