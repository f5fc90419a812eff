#!/bin/sh
# str_targets.sh - kernels with strings on the targets (SPEC 8.6): tdsl
# run --target cpu compiles them (the kernel cache holds their C, and
# the results are the interpreter's); tdsl compile writes them; the
# accel target refuses them, naming the stage computed with strings.
. "$(dirname "$0")/lib.sh"
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
cat >s.tdsl <<'TDSL'
kernel k(x: f32[N]) -> (s: str[N], y: f32[N]) {
    s[i] = str(x[i] * 3.0)
    y[i] = f32(lower(str(x[i] * 1e20)))
}
kernel n(x: f32[N]) -> (y: f32[N]) {
    y[i] = f32(lower(str(x[i] * 1e20)))
}
TDSL
/usr/bin/python3 -c 'import numpy' 2>/dev/null || exit 77
/usr/bin/python3 -c '
import numpy as np
np.save("x.npy", np.array([0.1, -2.5, 1e-7, 3e9], dtype=np.float32))'
for t in interp cpu; do
    "$TDSL" run s.tdsl --kernel k --in x=x.npy --out s=s_$t.npy \
        --out y=y_$t.npy --target $t 2>err || fail "run on $t: $(cat err)"
done
cmp -s s_interp.npy s_cpu.npy || fail "cpu strings differ"
# Compiled, not interpreted: the cache holds the kernel's C, which
# makes the text of f32 numbers with the interpreter's code.
grep -l 'tl_s_text_f(tl__strmem, tl__err, (double)' "$TMP"/cache/tdsl/*.c \
    >/dev/null 2>&1 || fail "no compiled str kernel in the cache: $(ls -R "$TMP"/cache)"
cmp -s y_interp.npy y_cpu.npy || fail "cpu numbers differ"
/usr/bin/python3 -c '
import numpy as np
s = np.load("s_cpu.npy")
want = [str(v) for v in np.array([0.1, -2.5, 1e-7, 3e9], np.float32) * np.float32(3)]
assert s.tolist() == want, (s.tolist(), want)' 2>err ||
    fail "not numpy's text: $(cat err)"
# vectorize of a stage on strings: its loop runs serially (no vector
# form; pass_vectorize.c), with the same results.
cat s.tdsl - >v.tdsl <<'TDSL'
schedule k for cpu {
    s.split(i, io, ii, 8).vectorize(ii, 4).parallel(io)
    y.vectorize(i, 8)
}
TDSL
"$TDSL" lower v.tdsl --kernel k >low 2>err || fail "lower: $(cat err)"
grep -q 'vectorized\|ramp(\|x4\|x8' low && fail "vector code on strings: $(cat low)"
grep -q '^ *for s\.in\.l[0-9]* in 0 \.\. 4 {$' low ||
    fail "no serial loop of 4: $(cat low)"
"$TDSL" run v.tdsl --kernel k --in x=x.npy --out s=s_v.npy --out y=y_v.npy \
    --target cpu 2>err || fail "run v: $(cat err)"
cmp -s s_interp.npy s_v.npy && cmp -s y_interp.npy y_v.npy ||
    fail "vectorized str stages differ"
"$TDSL" compile s.tdsl --kernel k --target cpu -o k.c -o k.h 2>err ||
    fail "compile k: $(cat err)"
grep -q 'const char \*\*s, ' k.h || fail "k.h: $(cat k.h)"
"$TDSL" compile s.tdsl --kernel n --target cpu -o n.h 2>err ||
    fail "compile n: $(cat err)"
grep -q 'tdsl_str_alloc \*tdsl_strs' n.h || fail "n.h: no allocator"
expect 1 "s.tdsl:5:25: error: accel target cannot compile 'y', computed \
with strings, yet" run s.tdsl --kernel n --in x=x.npy --target accel
grep -q "hint: kernels with strings run on the interpreter or the cpu \
target" err || fail "no hint: $(cat err)"
exit 0
