#!/bin/sh
# accel_assert.sh - a kernel's asserts (SPEC 6.8) on the accel target.
# A model imported with --bind (its kernel asserts the bound data's
# hash) runs with `--target accel`: the bound data gives numpy's
# result, other data the interpreter's error, and nothing is simulated.
# `tdsl compile --target accel` (a kernel in segments too) carries the
# assert as an `.assert` directive, which `tdsl sim` checks when it
# loads the input (other data, a missing input: refused, naming the
# input), through the .s and the .tam alike (asm/disasm round trip
# exact); a kernel with another assert has no stand-alone program.
# Then the assembler's errors of `.assert`.  Skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
$py - "$OLDPWD/tests/onnx" <<'PY' || fail "models"
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np, onnx
from onnx import helper as H
from caselib import write, vi, model
r = np.random.default_rng(1)
a = r.standard_normal((8, 16)).astype(np.float32)
b = r.standard_normal((16, 4)).astype(np.float32)
c = r.standard_normal((8, 16)).astype(np.float32)
onnx.save(model([H.make_node('MatMul', ['a', 'b'], ['y'])],
                [vi('a', shape=[8, 16]), vi('b', shape=[16, 4])],
                [vi('y', shape=[8, 4])]), 'mm.onnx')
onnx.save(model([H.make_node('Add', ['a', 'c'], ['y'])],
                [vi('a', shape=[8, 16]), vi('c', shape=[8, 16])],
                [vi('y', shape=[8, 16])]), 'add.onnx')
write(a, 'a.pb')
write(b, 'b.pb')
write(a * 2, 'a2.pb')
write(a @ b, 'mm_out.pb')
for n, v in (('a', a), ('a2', a * 2), ('c', c), ('add_want', a + c)):
    np.save(n + '.npy', v)
PY
# round_trip P: P.s assembles to P.tam, disassembles and assembles
# again to the same bytes and text (asm_round_trip without its runs,
# which give no inputs).
round_trip() {
    "$TDSL" asm $1.s -o $1.tam 2>err || fail "asm $1: $(cat err)"
    "$TDSL" disasm $1.tam >$1.dis.s || fail "disasm $1"
    "$TDSL" asm $1.dis.s -o $1.again.tam || fail "asm $1.dis.s"
    cmp -s $1.tam $1.again.tam || fail "$1: the binary changed"
    "$TDSL" disasm $1.again.tam | cmp -s - $1.dis.s ||
        fail "$1: the text changed"
}
msg="input 'a' is not the data bound at import (import the model again \
with --bind for this data)"

# The matmul model on accel: the bound data runs, other data is refused.
"$TDSL" import mm.onnx -o mm.tdsl --bind a=a.pb 2>err ||
    fail "import mm: $(cat err)"
grep -q '^    assert hash(a) == ' mm.tdsl || fail "no assert: $(cat mm.tdsl)"
"$TDSL" run mm.tdsl --in a.pb --in b.pb --out y.npy --target accel 2>err ||
    fail "mm on accel: $(cat err)"
"$TDSL" import --compare y.npy mm_out.pb 2>err || fail "mm: $(cat err)"
"$TDSL" run mm.tdsl --in a2.pb --in b.pb --out y2.npy --target accel \
    2>err && fail "other data ran on accel"
[ "$(head -1 err)" = "mm.tdsl:5:5: error: 'g' refuses these arguments: \
$msg" ] || fail "other data on accel: $(cat err)"
[ -e y2.npy ] && fail "an output of refused data"
# The planner lays out the matmul alone (the assert is the host's).
"$TDSL" lower mm.tdsl --target accel --explain >out 2>err ||
    fail "lower --explain: $(cat err)"
grep -q '^layout plan of kernel g on machine test (64 PEs): 3 tensors, 1 '`
    `'stages$' out || fail "lower --explain: $(cat out)"
# A script's `time ... on accel` of the bound data: the simulated run
# is the one of the kernel without its assert, to the cycle (the check
# is the host's).
grep -v '^    assert hash' mm.tdsl >mm0.tdsl
for k in mm mm0; do
    printf 'import "%s.tdsl" as m\nlet a: f32[8, 16] = load("a.npy")\n'`
          `'let b = rand(f32, [16, 4], seed = 1)\ntime m.g(a, b) on accel\n' \
        $k >t.tdsl
    "$TDSL" t.tdsl >t_$k.out 2>err || fail "time $k: $(cat err)"
    grep '^ *cycles  *[1-9]' t_$k.out >c_$k || fail "time $k: $(cat t_$k.out)"
done
cmp -s c_mm c_mm0 || fail "the assert changed the run: $(cat c_mm c_mm0)"

# A stand-alone program of the Add model carries the assert.
"$TDSL" import add.onnx -o add.tdsl --bind a=a.pb 2>err ||
    fail "import add: $(cat err)"
h=$(sed -n 's/^    assert hash(a) == \(-\{0,1\}[0-9]*\),.*/\1/p' add.tdsl)
[ -n "$h" ] || fail "no hash: $(cat add.tdsl)"
"$TDSL" compile add.tdsl --target accel --in a=a.npy --in c=c.npy -o k.s \
    -o k.tam 2>err || fail "compile: $(cat err)"
cp k.tam k0.tam
grep -qxF ".assert hash(a) == $h, \"$msg\"" k.s ||
    fail "no .assert: $(head k.s)"
round_trip k
cmp -s k.tam k0.tam || fail "compile's k.tam is not the assembled k.s"
"$TDSL" disasm k.tam | grep -qxF ".assert hash(a) == $h, \"$msg\"" ||
    fail "disasm lost the .assert"
for p in k.s k.tam; do
    "$TDSL" sim $p --in a=a.npy --in c=c.npy --out y=y.npy 2>err ||
        fail "sim $p: $(cat err)"
    printf 'assert allclose(load("y.npy"), load("add_want.npy"), rtol = 0, '`
          `'atol = 0)\n' >same.tdsl
    "$TDSL" same.tdsl 2>err || fail "sim $p: $(cat err)"
    rm -f y.npy
    "$TDSL" sim $p --in a=a2.npy --in c=c.npy --out y=y.npy 2>err &&
        fail "sim $p ran other data"
    [ "$(cat err)" = "tdsl: input 'a' fails the program's assert hash(a) \
== $h: $msg" ] || fail "sim $p, other data: $(cat err)"
    [ -e y.npy ] && fail "sim $p wrote an output of refused data"
    "$TDSL" sim $p --in c=c.npy --out y=y.npy 2>err &&
        fail "sim $p ran without a"
    [ "$(cat err)" = "tdsl: the program asserts the data of input 'a' \
(.assert hash(a) == $h): give it with --in a=FILE.npy" ] ||
        fail "sim $p without a: $(cat err)"
done

# A kernel that runs as segments is one program (target_seg.c): the
# .assert of its input goes with it.
/usr/bin/python3 - <<'PY' || fail "segment inputs"
import numpy as np
r = np.random.default_rng(3)
for n, s in (('sx', (1, 4, 5, 5)), ('sw', (4, 4, 3, 3)), ('sb', (4,)),
             ('sb2', (4,))):
    np.save(n + '.npy', r.standard_normal(s).astype(np.float32))
PY
printf 'let b: f32[4] = load("sb.npy")\nprint hash(b)\n' >h.tdsl
hb=$("$TDSL" h.tdsl 2>err) || fail "hash: $(cat err)"
cat >seg.tdsl <<TDSL
kernel block(X: f32[N, C, H, W], Wt: f32[F, C, 3, 3], b: f32[F]) -> (Y: f32[N, F, H, W]) {
    assert hash(b) == $hb, "b is not the bias"
    c[n, f, y, x] = sum(ci, r in 0..3, s in 0..3) X.zero_pad[n, ci, y + r - 1, x + s - 1] * Wt[f, ci, r, s]
    Y[n, f, y, x] = max(c[n, f, y, x] + b[f], 0.0)
}
TDSL
"$TDSL" compile seg.tdsl --kernel block --target accel --in sx.npy \
    --in sw.npy --in sb.npy -o seg.s 2>err || fail "segments: $(cat err)"
grep -q '^# accel: kernel block, 2 segments in one program' seg.s ||
    fail "not segments: $(head -3 seg.s)"
grep -qxF ".assert hash(b) == $hb, \"b is not the bias\"" seg.s ||
    fail "segments: no .assert: $(head -9 seg.s)"
"$TDSL" sim seg.s --in X=sx.npy --in Wt=sw.npy --in b=sb.npy \
    --out Y=sy.npy 2>err || fail "sim segments: $(cat err)"
"$TDSL" sim seg.s --in X=sx.npy --in Wt=sw.npy --in b=sb2.npy \
    --out Y=sy.npy 2>err && fail "sim segments ran other data"
[ "$(cat err)" = "tdsl: input 'b' fails the program's assert hash(b) == \
$hb: b is not the bias" ] || fail "sim segments, other data: $(cat err)"

# Another assert has no form a program carries.
cat >r.tdsl <<'TDSL'
kernel root(x: f32[N]) -> (y: f32[N]) {
    assert min(i) x[i] >= 0.0, "x must not be negative"
    y[i] = sqrt(x[i])
}
TDSL
expect 1 "r.tdsl:2:5: error: accel target cannot compile a stand-alone \
program of 'root' with the assert 'min(i) x[i] >= 0.0' (a program carries \
only 'hash(x) == N', which 'tdsl sim' checks; a call with \`on accel\` \
checks any assert of the parameters), yet" \
    compile r.tdsl --target accel --in f32[16] -o r.s
[ -e r.s ] && fail "a program of root was written"

# A message with a quote, a backslash and '#' (written \x23: '# '
# starts a comment), and the hash INT64_MIN: exact through asm and
# disasm.
cat >q.s <<'S'
.machine tiny
.input x f32[2] d[0]
.output y f32[2] d[8]
.assert hash(x) == -9223372036854775808, "say \"no\" \\ \x23 \x41"
nop
S
round_trip q
"$TDSL" disasm q.tam | grep -qxF '.assert hash(x) == -9223372036854775808, '`
    `'"say \"no\" \\ \x23 A"' || fail "quoted: $("$TDSL" disasm q.tam)"
printf 'save(arange(f32, 2), "x.npy")\n' >x.tdsl
"$TDSL" x.tdsl 2>err || fail "x.npy: $(cat err)"
"$TDSL" sim q.tam --in x=x.npy 2>err && fail "q ran other data"
[ "$(cat err)" = "tdsl: input 'x' fails the program's assert hash(x) == \
-9223372036854775808: say \"no\" \\ # A" ] || fail "q: $(cat err)"

# The assembler's errors, at the line.
bad() {
    printf '.machine tiny\n.input x f32[2] d[0]\n.output y f32[2] d[8]\n'`
          `'%s\nnop\n' "$1" >b.s
    expect 1 "$2" asm b.s -o b.tam
}
bad '.assert hash(z) == 1' "b.s:4:14: error: 'z' is not an .input declared above"
bad '.assert hash(y) == 1' "b.s:4:14: error: 'y' is not an .input declared above"
bad '.assert x == 1' "b.s:4:9: error: expected 'hash(' (a program checks only hash(x) == N), found 'x'"
bad '.assert hash(x) == 9223372036854775808' "b.s:4:20: error: the hash is out of the range of i64"
bad '.assert hash(x) == 1, nope' "b.s:4:23: error: expected the message, a \"string\""
bad '.assert hash(x) == 1, "a\q"' "b.s:4:23: error: expected the message, a \"string\""
bad '.assert hash(x) == 1 2' "b.s:4:22: error: expected the end of the line"
printf '.machine tiny\n.input x f32[2] d[0]\n.assert hash(x) == 1\n'`
      `'.assert hash(x) == 2\nnop\n' >b.s
expect 1 "b.s:4:14: error: 'x' has an .assert already" asm b.s -o b.tam
exit 0
