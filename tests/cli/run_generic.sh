# run_generic.sh - `tdsl run` on a generic kernel: the instance is made
# from the dtypes and ranks of the input files, and a kind the files
# violate is a clear error.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >g.tdsl <<'TDSL'
kernel relu<T: float>(X: T[..S]) -> (Y: T[..S]) {
    Y[..i] = max(X[..i], T(0))
}
TDSL

cat >mk.tdsl <<'TDSL'
let a = arange(f64, -3, 3)
save(a, "a.npy")
let b = arange(i32, -2, 2)
save(b, "b.npy")
TDSL
"$TDSL" mk.tdsl || fail "could not make inputs"

out=$("$TDSL" run g.tdsl --in a.npy 2>&1) || fail "run on f64 rank 1: $out"
want='Y = f64[6]
[0. 0. 0. 0. 1. 2.]'
[ "$out" = "$want" ] || fail "got '$out', want '$want'"

out=$("$TDSL" run g.tdsl --in X=b.npy 2>&1)
[ $? = 1 ] || fail "an i32 input for T: float should fail with exit 1"
case $out in
*"float"*) ;;
*) fail "no kind in the message: $out" ;;
esac
exit 0
