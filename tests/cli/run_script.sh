# run_script.sh - `tdsl FILE.tdsl`: a program with errors does not run
# at all; `time` prints the median and the count; usage errors.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >bad.tdsl <<'TDSL'
print "never printed"
let x = y
TDSL
"$TDSL" bad.tdsl >out 2>err
st=$?
[ "$st" = 1 ] || fail "bad.tdsl: exit $st, expected 1"
[ -s out ] && fail "a program with errors ran: $(cat out)"
grep -q "bad.tdsl:2:9: error: " err || fail "bad.tdsl: $(cat err)"

cat >t.tdsl <<'TDSL'
kernel twice(X: f32[N]) -> (Y: f32[N]) {
    Y[i] = X[i] * 2.0
}
let x = rand(f32, [1000], seed = 1)
time twice(x)
time x[0]+1.0
TDSL
"$TDSL" t.tdsl >out 2>err || fail "t.tdsl: exit $?: $(cat err)"
[ "$(wc -l <out)" = 2 ] || fail "time printed: $(cat out)"
grep -Eqx 'time twice\(x\): median [0-9.]+ (ns|us|ms|s) of [0-9]+ runs?' out ||
    fail "time printed: $(cat out)"
grep -Eqx 'time x\[0\] \+ 1\.0: median [0-9.]+ (ns|us|ms|s) of 1000 runs' out ||
    fail "time of a fast expression: $(cat out)"

"$TDSL" t.tdsl extra >out 2>err
[ "$?" = 2 ] || fail "an argument after the script: exit $?"
grep -q "unexpected argument 'extra'" err || fail "extra: $(cat err)"
"$TDSL" none.tdsl >out 2>err
[ "$?" = 1 ] || fail "a missing script: exit $?"
grep -q "cannot read 'none.tdsl'" err || fail "none.tdsl: $(cat err)"
exit 0
