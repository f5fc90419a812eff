# accel_pipe_layout.sh - a pipeline whose accel schedule writes layouts
# follows the layout plan in its program (codegen/acc/cg_pipe_lay.c):
# `time ... on accel` gives the traffic and cycles the program's
# conversions add, measured on the simulator (the program against the
# same program without them), beside the plan's estimate of the same
# conversions: the same number, the same long words, cycles within 20%.
# Without a layout the program converts nothing and says so.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel softmax(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    e[n, d] = exp(X[n, d] - m[n])
    s[n] = sum(d) e[n, d]
    Y[n, d] = e[n, d] / s[n]
}
schedule softmax for accel {
    layout X: [n@PE, d@MAB]
    layout e: [d@L2B, n@PE]
    layout Y: ((4_PE, 16), (2_L2B, 8))
}
kernel plain(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    Y[n, d] = exp(X[n, d] - m[n])
}
let x = rand(f32, [64, 16], seed = 3)
time softmax(x) on accel
time plain(x) on accel
TDSL

"$TDSL" --no-cache k.tdsl >out 2>err || fail "exit $?: $(cat err)"
[ -s err ] && fail "stderr: $(cat err)"
line=$(grep '^    conversion [0-9]* lw in the program (' out | head -1)
[ -n "$line" ] || fail "no conversion line: $(cat out)"
# conversion W lw in the program (N conversions, C cycles); the plan's
# N2: W2 lw, C2 cycles estimated
set -- $(echo "$line" | sed 's/[^0-9 ]/ /g')
w=$1 n=$2 c=$3 n2=$4 w2=$5 c2=$6
# X read by m and e, e written then read by s and Y, Y written: 6.
[ "$n" = 6 ] || fail "$n conversions in the program, not 6: $line"
[ "$n" = "$n2" ] || fail "the plan has $n2 conversions: $line"
[ "$w" -gt 0 ] && [ "$w" = "$w2" ] ||
    fail "in-program traffic $w lw, the plan's $w2: $line"
awk -v a="$c" -v b="$c2" 'BEGIN { exit !(a > 0 && b > 0.8 * a && b < 1.2 * a) }' ||
    fail "in-program conversion cycles $c, estimated $c2: $line"
grep -q '^    conversion 0 lw in the program (one layout for every tensor); the plan converts nothing$' out ||
    fail "plain kernel: $(cat out)"
exit 0
