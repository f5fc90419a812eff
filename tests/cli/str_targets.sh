#!/bin/sh
# str_targets.sh - kernels with strings on the targets (SPEC 8.6): tdsl
# run --target cpu runs them on the interpreter (the same results as
# without a target); tdsl compile and the accel target refuse them,
# naming the str tensor or the stage computed with strings.
. "$(dirname "$0")/lib.sh"
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
cmp -s y_interp.npy y_cpu.npy || fail "cpu numbers differ"
/usr/bin/python3 -c '
import numpy as np
s = np.load("s_cpu.npy")
want = [str(v) for v in np.array([0.1, -2.5, 1e-7, 3e9], np.float32) * np.float32(3)]
assert s.tolist() == want, (s.tolist(), want)' 2>err ||
    fail "not numpy's text: $(cat err)"
expect 1 "s.tdsl:1:25: error: the str tensor 's' is not supported by the \
cpu backend yet" compile s.tdsl --kernel k --target cpu
grep -q "hint: kernels with strings run on the interpreter; 'tdsl run \
--target cpu' does that for them" err || fail "no hint: $(cat err)"
expect 1 "s.tdsl:5:25: error: 'y', computed with strings, is not \
supported by the cpu backend yet" compile s.tdsl --kernel n --target cpu
expect 1 "s.tdsl:5:25: error: accel target cannot compile 'y', computed \
with strings, yet" run s.tdsl --kernel n --in x=x.npy --target accel
exit 0
