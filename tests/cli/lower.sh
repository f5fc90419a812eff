# lower.sh - `tdsl lower`: the loop IR of a kernel after its cpu
# schedule and the passes; a file's only kernel needs no --kernel; a
# generic kernel's instance from --in types or a .npy file; and every
# mistake with its message and exit status.
. "$(dirname "$0")/lib.sh"

cat >k.tdsl <<'TDSL'
kernel twice(X: f32[N]) -> (Y: f32[N]) {
    Y[i] = X[i] * 2.0
}

schedule twice for cpu {
    Y.split(i, io, ii, 8).parallel(io).vectorize(ii, 8)
}

kernel scale<T: float>(X: T[..S]; a: T = 3) -> (Y: T[..S]) {
    Y[..i] = X[..i] * a
}
TDSL
cat >one.tdsl <<'TDSL'
kernel neg(X: i32[N, M]) -> (Y: i32[N, M]) {
    Y[i, j] = -X[i, j]
}
TDSL
cat >none.tdsl <<'TDSL'
let x = 1
TDSL
cat >mk.tdsl <<'TDSL'
save(zeros(f64, [2, 3, 4]), "x.npy")
TDSL

"$TDSL" lower k.tdsl --kernel twice >out 2>err || fail "lower: $(cat err)"
grep -q '^func k.twice(' out || fail "no function: $(cat out)"
grep -q 'parallel for' out || fail "the schedule's parallel loop is missing"
grep -q 'ramp(' out || fail "the vectorized loop is missing: $(cat out)"
[ -s err ] && fail "lower printed on stderr: $(cat err)"
"$TDSL" lower k.tdsl --kernel=twice --target cpu >out2 || fail "--kernel="
cmp -s out out2 || fail "--target cpu changed the output"

"$TDSL" lower one.tdsl >out || fail "the only kernel without --kernel"
grep -q '^func k.neg(' out || fail "neg: $(cat out)"

"$TDSL" lower k.tdsl --kernel scale --in "X=f32[N, M]" >out 2>err ||
    fail "generic: $(cat err)"
grep -q 'in.X: f32\*' out || fail "the instance is not f32: $(cat out)"
grep -q 'out.Y.n1' out || fail "the instance is not of rank 2: $(cat out)"
"$TDSL" mk.tdsl || fail "making x.npy"
"$TDSL" lower k.tdsl --kernel scale --in x.npy >out 2>err ||
    fail "generic from .npy: $(cat err)"
grep -q 'in.X: f64\*' out || fail "the instance is not f64: $(cat out)"
grep -q 'out.Y.n2' out || fail "the instance is not of rank 3: $(cat out)"


expect 2 "lower: no program file given" lower
expect 2 "lower: unknown option '--frob'" lower k.tdsl --frob
expect 2 "lower: '--kernel' needs a value" lower k.tdsl --kernel
expect 2 "lower: more than one program file ('k.tdsl' and 'x.tdsl')" \
    lower k.tdsl x.tdsl
expect 2 "lower: 'k.tdsl' has 2 kernels ('twice', 'scale'); choose one" \
    lower k.tdsl
expect 2 "lower: 'k.tdsl' has no kernel 'nope'; its kernels: 'twice'" \
    lower k.tdsl --kernel nope
expect 1 "'none.tdsl' has no kernel to lower" lower none.tdsl
expect 2 "lower: with --target accel, give --explain (the layout plan)" \
    lower k.tdsl --kernel twice --target accel
expect 2 "lower: unknown target 'gpu' (the targets are 'cpu' and 'accel')" \
    lower k.tdsl --kernel twice --target gpu
expect 2 "lower: 'scale' is generic: give the dtype and rank of input 'X'" \
    lower k.tdsl --kernel scale
expect 2 "lower: 'twice' is not generic: its input types are fixed" \
    lower k.tdsl --kernel twice --in X=f32[N]
expect 2 "lower: 'Q' is not an input of 'scale' (its inputs: X)" \
    lower k.tdsl --kernel scale --in Q=f32[N]
expect 2 "lower: input 'X' is given twice" \
    lower k.tdsl --kernel scale --in X=f32[N] --in X=f32[N]
expect 2 "lower: 'scale' has 1 input but 2 types were given" \
    lower k.tdsl --kernel scale --in f32[N] --in f32[N]
expect 2 "lower: input 'X' of 'scale': 'f33[N]' is neither a type like" \
    lower k.tdsl --kernel scale --in X=f33[N]
expect 2 "'f32[N,,M]' is neither a type" \
    lower k.tdsl --kernel scale --in X=f32[N,,M]
expect 1 "input 'X' of 'scale': 'gone.npy': cannot open" \
    lower k.tdsl --kernel scale --in X=gone.npy
expect 1 "argument 'X' of 'scale' is 'i32', but dtype variable 'T' must be" \
    lower k.tdsl --kernel scale --in X=i32[N]
printf 'kernel f(X: f32[N]) -> (Y: f32[N]) {\n    Y[i] = X[i] + q\n}\n' \
    >bad.tdsl
expect 1 "bad.tdsl:2:19: error: unknown name 'q'" lower bad.tdsl
exit 0
