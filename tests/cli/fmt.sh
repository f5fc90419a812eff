# fmt.sh - tdsl fmt: printing, --check, -w (in place, keeping the file
# mode, leaving no temporary behind), stdin, and files with errors.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >messy.tdsl <<'TDSL'
# adds two vectors
kernel add(A:f32[N],B:   f32[N]) -> (C: f32[N]) {
    C[i]   =   A[i]+B[i]
}
TDSL

"$TDSL" fmt messy.tdsl >canon.tdsl || fail "fmt exited with $?"
cmp -s messy.tdsl canon.tdsl && fail "fmt left messy.tdsl as it was"
grep -q '^# adds two vectors' canon.tdsl || fail "fmt dropped a comment"
"$TDSL" fmt --check canon.tdsl || fail "--check rejects fmt's output"

"$TDSL" fmt --check messy.tdsl canon.tdsl 2>err
[ $? = 1 ] || fail "--check on a messy file did not exit 1"
[ "$(cat err)" = "messy.tdsl: not canonically formatted" ] ||
    fail "--check said: $(cat err)"

"$TDSL" fmt - <messy.tdsl >stdin.tdsl || fail "fmt - exited with $?"
cmp -s stdin.tdsl canon.tdsl || fail "fmt - differs from fmt FILE"

chmod 640 messy.tdsl
"$TDSL" fmt -w messy.tdsl || fail "fmt -w exited with $?"
cmp -s messy.tdsl canon.tdsl || fail "fmt -w wrote something else"
[ "$(stat -c %a messy.tdsl)" = 640 ] || fail "fmt -w changed the mode"
for f in *.fmt-*; do
    [ -e "$f" ] && fail "fmt -w left a temporary file: $f"
done

printf 'kernel (\n' >bad.tdsl
cp bad.tdsl bad.orig
"$TDSL" fmt -w bad.tdsl 2>err
[ $? = 1 ] || fail "fmt -w on a syntax error did not exit 1"
grep -q '^bad.tdsl:1:[0-9]*: error: ' err || fail "no error: $(cat err)"
cmp -s bad.tdsl bad.orig || fail "fmt -w changed a file with errors"
"$TDSL" fmt bad.tdsl >out 2>/dev/null
[ $? = 1 ] || fail "fmt on a syntax error did not exit 1"
[ -s out ] && fail "fmt printed a file with errors"
exit 0
