# unused_call_result.sh - a kernel that binds a call result and never
# reads it: the interpreter drops the result (the checker warns), it
# does not look for a slot the kernel never made.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
cat >u.tdsl <<'TDSL'
kernel stats(X: f32[N]) -> (m: f32[], q: f32[N]) {
    m[] = sum(i) X[i]
    q[i] = X[i] * 2.0
}

kernel useone(X: f32[N]) -> (Y: f32[N]) {
    m, q = stats(X)
    Y[i] = X[i] + m[]
}

print useone(arange(f32, 3))
TDSL
out=$("$TDSL" u.tdsl 2>err.txt) || fail "exit status $?: $(cat err.txt)"
[ "$out" = "f32[3]
[3. 4. 5.]" ] || fail "got '$out'"
grep -q "warning: call result 'q' is never used" err.txt ||
    fail "no warning: $(cat err.txt)"
exit 0
