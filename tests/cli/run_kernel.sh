# run_kernel.sh - `tdsl run`: one kernel on tensors from .npy and
# .safetensors files, inputs bound by name or in parameter order,
# scalar parameters, outputs written (several into one .safetensors
# file) or printed, top-level tensors the kernel reads.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}

kernel stats(X: f32[N]; scale: f32 = 1.0) -> (lo: f32[], hi: f32[N]) {
    lo[] = min(i) X[i] * scale
    hi[i] = X[i] * scale
}

let W = arange(f32, 3)
kernel addw(X: f32[3]) -> (Y: f32[3]) {
    Y[i] = X[i] + W[i]
}

print "top-level statements do not run"
TDSL

cat >mk.tdsl <<'TDSL'
kernel reshape(X: f32[S]; rows: i32, cols: i32) -> (Y: f32[rows, cols]) {
    Y[i, j] = X[i * cols + j]
}
let A = reshape(arange(f32, 6), 2, 3)
let B = reshape(arange(f32, 1, 7), 3, 2)
save(A, "a.npy")
save(B, "b.npy")
save(B, "b.safetensors")
save(arange(f32, 3), "x.npy")
TDSL
"$TDSL" mk.tdsl || fail "making the inputs"

# Bare --in in parameter order; the output printed.
"$TDSL" run k.tdsl --kernel matmul --in a.npy --in b.npy >out ||
    fail "run matmul: exit $?"
printf 'C = f32[2, 2]\n[[13. 16.]\n [40. 52.]]\n' >want
diff -u want out || fail "matmul printed the wrong result"

# By name, in any order, from a .safetensors entry; written to a file.
"$TDSL" run k.tdsl --kernel=matmul --in B=b.safetensors:B --in A=a.npy \
    --out C=c.npy >out || fail "run matmul to c.npy: exit $?"
[ -s out ] && fail "printed although the output went to a file"
cat >check.tdsl <<'TDSL'
print load("c.npy")
TDSL
"$TDSL" check.tdsl >out || fail "reading c.npy"
printf 'f32[2, 2]\n[[13. 16.]\n [40. 52.]]\n' | diff -u - out ||
    fail "c.npy holds the wrong result"

# A .safetensors file with one entry needs no key.
"$TDSL" run k.tdsl --kernel matmul --in a.npy --in b.safetensors >out ||
    fail "run with b.safetensors: exit $?"

# Two outputs into one .safetensors file, one of them under a KEY; a
# scalar parameter; the file has several kernels, so --kernel is needed.
"$TDSL" run k.tdsl --kernel stats --in x.npy --param scale=2 \
    --out s.safetensors:low --out s.safetensors >out ||
    fail "run stats: exit $?"
cat >check.tdsl <<'TDSL'
print load("s.safetensors", "low")
print load("s.safetensors", "hi")
TDSL
"$TDSL" check.tdsl >out || fail "reading s.safetensors"
printf '0.0\nf32[3]\n[0. 2. 4.]\n' | diff -u - out ||
    fail "s.safetensors holds the wrong results"

# The default of scale, and a rank-0 output printed.
"$TDSL" run k.tdsl --kernel stats --in x.npy --out hi=hi.npy >out ||
    fail "run stats with defaults: exit $?"
printf 'lo = f32[] 0.0\n' | diff -u - out || fail "lo printed wrongly"

# A top-level tensor read by the kernel is computed for it.
"$TDSL" run k.tdsl --kernel addw --in x.npy >out || fail "run addw: $?"
printf 'Y = f32[3]\n[0. 2. 4.]\n' | diff -u - out || fail "addw: wrong result"

# --kernel may be left out when the file has one kernel.
sed -n '1,3p' k.tdsl >one.tdsl
"$TDSL" run one.tdsl --in a.npy --in b.npy --target interp >out ||
    fail "run one.tdsl: exit $?"
exit 0
