# compile_accel.sh - `tdsl compile --target accel`: a kernel's
# accelerator program as assembly (-o k.s) and binary (-o k.tam), for
# the shapes --in gives (a type with numbers or a .npy file); both run
# under `tdsl sim` and give the interpreter's results bit for bit, on
# a built-in machine (named by the program's .machine line) and a
# machine file (given to sim); and the mistakes.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1

cat >k.tdsl <<'TDSL'
kernel axpy(x: f32[N], y: f32[N]) -> (z: f32[N]) {
    z[i] = x[i] * 3.0 + y[i]
}
kernel mix(A: f32[M, 6], B: f32[M, 6]) -> (C: f32[M, 6]) {
    C[i, j] = max(A[i, j] - B[i, j], A[i, j] * 0.5)
}
kernel addrow(A: f32[M, N], b: f32[N]) -> (C: f32[M, N]) {
    C[i, j] = A[i, j] + b[j]
}
kernel total(x: f32[N]) -> (s: f32[]) {
    s[] = sum(i) x[i]
}
let x = rand(f32, [1000], seed = 1)
let y = rand(f32, [1000], seed = 2)
save(x, "x.npy")
save(y, "y.npy")
save(axpy(x, y), "z_want.npy")
let a = rand(f32, [7, 6], seed = 3)
let b = rand(f32, [7, 6], seed = 4)
save(a, "a.npy")
save(b, "b.npy")
save(mix(a, b), "c_want.npy")
TDSL
"$TDSL" k.tdsl 2>err || fail "data: $(cat err)"
# same GOT WANT: the .npy files hold the same values, bit for bit.
same() {
    printf 'assert allclose(load("%s"), load("%s"), rtol = 0, atol = 0)\n' \
        "$1" "$2" >same.tdsl
    "$TDSL" same.tdsl 2>err || fail "$1 differs from $2: $(cat err)"
}

# Assembly and binary at once; x's shape from its file, y's as a type.
"$TDSL" compile k.tdsl --kernel axpy --target accel --in x=x.npy \
    --in y=f32[1000] -o k.s -o k.tam 2>err || fail "compile: $(cat err)"
grep -q '^\.machine test$' k.s || fail "no .machine line: $(head k.s)"
grep -q '^\.input x f32\[1000\]' k.s || fail "no x: $(head k.s)"
grep -q '^\.output z f32\[1000\]' k.s || fail "no z: $(head k.s)"
"$TDSL" asm k.s -o again.tam || fail "asm k.s"
cmp -s k.tam again.tam || fail "-o k.tam is not the assembled -o k.s"
"$TDSL" sim k.tam --in x=x.npy --in y=y.npy --out z=z.npy --stats \
    >stats 2>err || fail "sim: $(cat err)"
grep -q '^machine  *test (64 PEs)' stats || fail "machine: $(cat stats)"
grep -q '^cycles  *[1-9]' stats || fail "cycles: $(cat stats)"
same z.npy z_want.npy
# Without -o: the assembly on stdout, the same as -o k.s.
"$TDSL" compile k.tdsl --kernel axpy --target accel --in f32[1000] \
    --in f32[1000] | cmp -s - k.s || fail "stdout differs from -o k.s"

# Rank 2, one size fixed by the kernel, on tiny; a machine file.
"$TDSL" compile k.tdsl --kernel mix --target accel --machine tiny \
    --in A=f32[7,6] --in B=b.npy -o mix.tam 2>err || fail "mix: $(cat err)"
"$TDSL" sim mix.tam --in A=a.npy --in B=b.npy --out C=c.npy 2>err ||
    fail "sim mix: $(cat err)"
same c.npy c_want.npy
printf 'base = tiny\nname = slowdram\ndram_bw = 1\n' >slow.mach
"$TDSL" compile k.tdsl --kernel mix --target accel --machine slow.mach \
    --in A=a.npy --in B=b.npy -o slow.s 2>err || fail "slow: $(cat err)"
grep -q '^\.machine' slow.s && fail "a machine file is no .machine line"
"$TDSL" sim slow.s --machine slow.mach --in A=a.npy --in B=b.npy \
    --out C=c2.npy 2>err || fail "sim slow: $(cat err)"
same c2.npy c_want.npy
# TDSL_MACHINE is the default, as for `on accel`.
TDSL_MACHINE=tiny "$TDSL" compile k.tdsl --kernel mix --target accel \
    --in A=a.npy --in B=b.npy | grep -q '^\.machine tiny$' ||
    fail "TDSL_MACHINE not used"

# The REPL's :asm prints what compile writes; `tdsl repl --machine`.
printf ':load k.tdsl\n:asm mix A=f32[7,6] B=f32[7,6]\n' |
    "$TDSL" repl --machine tiny >repl.s 2>err || fail "repl: $(cat err)"
"$TDSL" compile k.tdsl --kernel mix --target accel --machine tiny \
    --in A=a.npy --in B=b.npy | cmp -s - repl.s ||
    fail ":asm differs from compile: $(head repl.s)"
printf ':quit\n' | "$TDSL" repl --machine nosuch 2>err
[ $? = 2 ] || fail "repl --machine nosuch: not exit 2"
grep -q "unknown machine 'nosuch'" err || fail "repl nosuch: $(cat err)"

# Mistakes.
"$TDSL" compile k.tdsl --kernel axpy --target accel 2>err
[ $? = 2 ] || fail "no shape: exit $?"
grep -q "give the shape of input 'x' (--in x=f32\[...\] with numbers" err ||
    fail "no shape: $(cat err)"
"$TDSL" compile k.tdsl --kernel axpy --target accel --in f32[10] \
    --in f32[11] 2>err
[ $? = 2 ] || fail "shapes that do not fit: exit $?"
grep -q "the input shapes given do not fit kernel 'axpy'" err ||
    fail "misfit: $(cat err)"
"$TDSL" compile k.tdsl --kernel axpy --target accel --in f32[4] \
    --in f32[4] -o k.c 2>err
[ $? = 2 ] || fail "-o k.c: exit $?"
grep -q "with --target accel, use .s (assembly) or .tam (binary)" err ||
    fail "-o k.c: $(cat err)"
"$TDSL" compile k.tdsl --kernel axpy --target accel --machine nosuch \
    2>err
[ $? = 2 ] || fail "bad machine: exit $?"
grep -q "nosuch" err || fail "bad machine: $(cat err)"
"$TDSL" compile k.tdsl --kernel axpy --machine tiny 2>err
[ $? = 2 ] || fail "--machine on cpu: exit $?"
grep -q "machine is for --target accel" err || fail "cpu: $(cat err)"
"$TDSL" compile k.tdsl --kernel addrow --target accel --in f32[3,4] \
    --in f32[4] 2>err
[ $? = 1 ] || fail "broadcast: exit $?"
grep -q "error: accel target cannot compile a stand-alone program of 'addrow', which reads 'b' broadcast" err ||
    fail "broadcast: $(cat err)"
"$TDSL" compile k.tdsl --kernel total --target accel --in f32[8] 2>err
[ $? = 1 ] || fail "reduction: exit $?"
grep -q "accel target cannot compile" err || fail "reduction: $(cat err)"
# A kernel that runs as segments (codegen/acc/cg_seg.c) is one program
# (codegen/acc/target_seg.c): the segments in order, the conversions
# between them as instructions (a computes in c's image, which it
# reads where it lies; the second convolution's window of a is a
# conversion).  It runs by itself on the simulator,
# from the kernel's inputs to its output as the interpreter computes
# it, the same from .s and .tam, and round-trips through asm/disasm.
cat >seg.tdsl <<'TDSL'
kernel block(X: f32[N, C, H, W], Wt: f32[C, C, 3, 3], b: f32[C]) -> (Y: f32[N, C, H, W]) {
    c[n, f, y, x] = sum(ci, r in 0..3, s in 0..3) X.zero_pad[n, ci, y + r - 1, x + s - 1] * Wt[f, ci, r, s]
    a[n, f, y, x] = max(c[n, f, y, x] + b[f] + 0.0 * X[n, f, y, x], 0.0)
    Y[n, f, y, x] = sum(ci, r in 0..3, s in 0..3) a.zero_pad[n, ci, y + r - 1, x + s - 1] * Wt[f, ci, r, s]
}
TDSL
/usr/bin/python3 - <<'PY' || fail "inputs"
import numpy as np
r = np.random.default_rng(3)
np.save('sx.npy', r.standard_normal((1, 4, 5, 5)).astype(np.float32))
np.save('sw.npy', r.standard_normal((4, 4, 3, 3)).astype(np.float32))
np.save('sb.npy', r.standard_normal(4).astype(np.float32))
PY
"$TDSL" compile seg.tdsl --kernel block --target accel --in sx.npy \
    --in sw.npy --in sb.npy -o seg.s -o seg.tam 2>err ||
    fail "segments: exit $?: $(cat err)"
grep -q "^# accel: kernel block, 3 segments in one program" seg.s ||
    fail "segments: $(head -5 seg.s)"
grep -q '^\.input X f32\[1,4,5,5\] d\[' seg.s || fail "segments: no .input X"
grep -q '^\.output Y f32\[1,4,5,5\] d\[' seg.s || fail "segments: no .output Y"
[ "$(grep -c '^# segment [123] of 3' seg.s)" = 3 ] || fail "segments: not 3"
grep -q '^cvt.f64.f32 ' seg.s && grep -q '^dma.ld.t0@' seg.s ||
    fail "segments: no conversion instructions"
"$TDSL" run seg.tdsl --kernel block --in X=sx.npy --in Wt=sw.npy \
    --in b=sb.npy --out Y=sref.npy 2>err || fail "interp: $(cat err)"
for p in seg.s seg.tam; do
    "$TDSL" sim $p --in X=sx.npy --in Wt=sw.npy --in b=sb.npy \
        --out Y=sy.npy 2>err || fail "sim $p: $(cat err)"
    /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('sy.npy'), np.load('sref.npy')
sys.exit(0 if np.allclose(a, b, rtol=1e-5, atol=1e-5) else 1)" ||
        fail "sim $p differs from the interpreter"
done
c1=$(cycles seg.s --in X=sx.npy --in Wt=sw.npy --in b=sb.npy)
c2=$(cycles seg.tam --in X=sx.npy --in Wt=sw.npy --in b=sb.npy)
[ -n "$c1" ] && [ "$c1" = "$c2" ] || fail "cycles $c1 / $c2"
# `time ... on accel` runs the same program: the same cycles.
cat >segt.tdsl <<'TDSL'
import "seg.tdsl" as s
let X = load("sx.npy")
let Wt = load("sw.npy")
let b = load("sb.npy")
time s.block(X, Wt, b) on accel
TDSL
"$TDSL" --no-cache segt.tdsl >out 2>err || fail "time: $(cat err)"
grep -q "^    cycles     $c1 " out || fail "time: not $c1 cycles: $(cat out)"
asm_round_trip seg
# The program declares each input in the image its first consumer
# reads (`.input X ... image N` and its `.image` runs), which the host
# lays out when it loads a row-major tensor: above, `tdsl sim` took
# plain .npy files.
grep -q '^\.input X f32\[1,4,5,5\] d\[[0-9]*\] image [0-9]*$' seg.s ||
    fail "segments: X not in its image: $(grep '^\.input' seg.s)"
grep -q '^\.image X from [0-9]* step -\{0,1\}[0-9]* count [0-9]*' seg.s ||
    fail "segments: no runs of X's image"
# So a segment that reads an f16 image (the matmul route's f16 inputs)
# takes it from the host, with no conversion of f16 on the device: one
# program, run by itself on f16 .npy inputs as the interpreter runs it.
cat >segh.tdsl <<'TDSL'
kernel blockh(A: f16[M, K], B: f16[K, N], b: f32[N]) -> (Y: f32[M, N]) {
    c[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
    Y[i, j] = max(c[i, j] + b[j], 0.0)
}
let A = f16(rand(f32, [16, 32], seed = 1))
let B = f16(rand(f32, [32, 16], seed = 2))
let b = rand(f32, [16], seed = 3)
assert allclose(blockh(A, B, b) on accel, blockh(A, B, b), rtol = 1e-5)
save(A, "ha.npy")
save(B, "hb.npy")
save(b, "hbias.npy")
TDSL
"$TDSL" --no-cache segh.tdsl 2>err || fail "f16 segments run: $(cat err)"
"$TDSL" compile segh.tdsl --kernel blockh --target accel --in ha.npy \
    --in hb.npy --in hbias.npy -o segh.s 2>err ||
    fail "f16 segments: exit $?: $(cat err)"
grep -q '^\.input A f16\[16,32\] d\[[0-9]*\] image [0-9]*$' segh.s ||
    fail "f16 segments: $(grep '^\.input' segh.s)"
"$TDSL" run segh.tdsl --kernel blockh --in A=ha.npy --in B=hb.npy \
    --in b=hbias.npy --out Y=href.npy 2>err || fail "interp: $(cat err)"
"$TDSL" sim segh.s --in A=ha.npy --in B=hb.npy --in b=hbias.npy \
    --out Y=hy.npy 2>err || fail "sim segh.s: $(cat err)"
/usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('hy.npy'), np.load('href.npy')
sys.exit(0 if np.allclose(a, b, rtol=1e-5, atol=1e-5) else 1)" ||
    fail "f16 segments: sim differs from the interpreter"
asm_round_trip segh
# An output that its route writes in an image (the matmul route's C) is
# declared in it, and the host reads it back: no conversion at the end.
cat >segm.tdsl <<'TDSL'
kernel relumm(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    a[i, k] = max(A[i, k] - 0.5, 0.0)
    C[i, j] = sum(k) a[i, k] * B[k, j]
}
let A = rand(f32, [16, 32], seed = 1)
let B = rand(f32, [32, 24], seed = 2)
assert allclose(relumm(A, B) on accel, relumm(A, B), rtol = 1e-5)
save(A, "ma.npy")
save(B, "mb.npy")
TDSL
"$TDSL" --no-cache segm.tdsl 2>err || fail "image output run: $(cat err)"
"$TDSL" compile segm.tdsl --kernel relumm --target accel --in ma.npy \
    --in mb.npy -o segm.s 2>err || fail "image output: $(cat err)"
grep -q '^\.input A f32\[16,32\] d\[0\]$' segm.s &&
    grep -q '^\.output C f32\[16,24\] d\[[0-9]*\] image [0-9]*$' segm.s ||
    fail "image output: $(grep '^\.input\|^\.output' segm.s)"
"$TDSL" run segm.tdsl --kernel relumm --in A=ma.npy --in B=mb.npy \
    --out C=mref.npy 2>err || fail "interp: $(cat err)"
"$TDSL" sim segm.s --in A=ma.npy --in B=mb.npy --out C=my.npy 2>err ||
    fail "sim segm.s: $(cat err)"
/usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('my.npy'), np.load('mref.npy')
sys.exit(0 if np.allclose(a, b, rtol=1e-5, atol=1e-5) else 1)" ||
    fail "image output: sim differs from the interpreter"
asm_round_trip segm
exit 0
