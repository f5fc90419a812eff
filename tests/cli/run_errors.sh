# run_errors.sh - `tdsl run` refuses what does not fit the kernel with a
# message naming the parameter: exit 2 for the command line (unknown
# names, wrong counts), 1 for files and values (unreadable, wrong dtype
# or rank or shape, a bad --param value, a target not available).
. "$(dirname "$0")/lib.sh"

cat >k.tdsl <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}

kernel scale(X: f32[N]; k: i32) -> (Y: f32[N]) {
    Y[i] = X[i] * f32(k)
}
TDSL
cat >mk.tdsl <<'TDSL'
save(ones(f32, [2, 3]), "a.npy")
save(ones(f32, [2, 2]), "b.npy")
save(ones(f64, [3, 2]), "d.npy")
save(ones(f32, [3]), "v.npy")
save(ones(f32, [3]), "two.safetensors")
TDSL
"$TDSL" mk.tdsl || fail "making the inputs"
cat >bad.tdsl <<'TDSL'
kernel f(A: f32[N]) -> (B: f32[N]) {
    B[i] = A[i] + x
}
TDSL


expect 2 "run: no program file given" run
expect 2 "run: unknown option '--bogus'" run k.tdsl --bogus
expect 2 "run: '--in' needs a value" run k.tdsl --in
expect 2 "run: more than one program file" run k.tdsl k.tdsl
expect 2 "'--param k' must be NAME=VALUE" run k.tdsl --param k
expect 2 "run: unknown target 'gpu'" run k.tdsl --target gpu
expect 2 "has 2 kernels ('matmul', 'scale'); choose one with --kernel" \
    run k.tdsl --in a.npy
expect 2 "run: 'k.tdsl' has no kernel 'mm'; its kernels: 'matmul'" \
    run k.tdsl --kernel mm
expect 2 "run: input 'B' of 'matmul' is not given (--in B=FILE)" \
    run k.tdsl --kernel matmul --in a.npy
expect 2 "run: 'matmul' has 2 inputs but 3 were given" \
    run k.tdsl --kernel matmul --in a.npy --in b.npy --in b.npy
expect 2 "run: 'X' is not an input of 'matmul' (its inputs: A, B)" \
    run k.tdsl --kernel matmul --in X=a.npy
expect 2 "run: input 'A' is given twice" \
    run k.tdsl --kernel matmul --in A=a.npy --in A=b.npy
expect 2 "run: 'D' is not an output of 'matmul' (its outputs: C)" \
    run k.tdsl --kernel matmul --in a.npy --in b.npy --out D=d.npy
expect 2 "run: 'k' is a scalar parameter of 'scale'; give it with --param" \
    run k.tdsl --kernel scale --in k=v.npy
expect 2 "run: 'X' is a tensor input of 'scale'; give it with --in X=FILE" \
    run k.tdsl --kernel scale --in v.npy --param X=1
expect 2 "run: scalar parameter 'k' of 'scale' has no default" \
    run k.tdsl --kernel scale --in v.npy
expect 2 "run: 'q' is not a scalar parameter of 'scale'" \
    run k.tdsl --kernel scale --in v.npy --param q=1

expect 1 "tdsl: input 'B' of 'matmul': 'none.npy': cannot open" \
    run k.tdsl --kernel matmul --in a.npy --in none.npy
expect 1 "input 'B' of 'matmul': 'd.npy' holds f64 values but the parameter is f32" \
    run k.tdsl --kernel matmul --in a.npy --in d.npy
expect 1 "input 'A' of 'matmul': 'v.npy' holds a tensor of rank 1 but the parameter has rank 2" \
    run k.tdsl --kernel matmul --in v.npy --in b.npy
expect 1 "size 'K' of 'matmul' is 3 from 'A' (axis 1) but 2 from 'B' (axis 0)" \
    run k.tdsl --kernel matmul --in a.npy --in b.npy
expect 1 "input 'B' of 'matmul': 'two.safetensors': no tensor named 'x'" \
    run k.tdsl --kernel matmul --in a.npy --in B=two.safetensors:x
expect 1 "'a.txt' is not a tensor file" \
    run k.tdsl --kernel matmul --in a.txt --in b.npy
expect 1 "--param k=1.5: '1.5' is not a value of type 'i32'" \
    run k.tdsl --kernel scale --in v.npy --param k=1.5
expect 1 "--param k=99999999999: '99999999999' is not a value of type 'i32'" \
    run k.tdsl --kernel scale --in v.npy --param k=99999999999
# A scalar parameter reaches the accel target's code (a constant).
"$TDSL" run k.tdsl --kernel scale --in v.npy --param k=3 --target accel \
    >acc.out 2>&1 || fail "scale on accel: $(cat acc.out)"
"$TDSL" run k.tdsl --kernel scale --in v.npy --param k=3 >itp.out 2>&1 &&
    cmp -s acc.out itp.out || fail "scale on accel: $(cat acc.out)"
expect 1 "output 'Y': 'y.txt' is not a tensor file" \
    run k.tdsl --kernel scale --in v.npy --param k=2 --out y.txt
expect 1 "bad.tdsl:2:19: error: unknown name 'x'" run bad.tdsl
[ -s out ] && fail "a program with errors ran"
expect 1 "cannot read 'none.tdsl'" run none.tdsl
exit 0
