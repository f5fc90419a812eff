# axes_errors.sh - std.axes refuses what does not fit at run time with
# an error at the kernel's read and a note at the call: a squeezed axis
# whose extent is not 1, split sizes past the end; and std.math's
# reshapes, sizes that do not hold the elements.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >sq.tdsl <<'TDSL'
import std.axes
let x = rand(f32, [2, 5])
print squeeze2to1(x, k0 = 1)
TDSL
"$TDSL" sq.tdsl >out 2>err
[ "$?" = 1 ] || fail "squeeze of an axis of extent 2: exit $?"
grep -q "error: index 2 out of range 0..1 on axis 0 of 'X'" err ||
    fail "squeeze: $(cat err)"
grep -q "sq.tdsl:3:7: note: in this call of 'squeeze2to1<f32>'" err ||
    fail "squeeze note: $(cat err)"

cat >sp.tdsl <<'TDSL'
import std.axes
let x = rand(f32, [2, 5])
let a, b = split2d_2(x, axis = 1, s0 = 2, s1 = 4)
TDSL
"$TDSL" sp.tdsl >out 2>err
[ "$?" = 1 ] || fail "split past the end: exit $?"
grep -q "error: index 5 out of range 0..4 on axis 1 of 'X'" err ||
    fail "split: $(cat err)"

cat >sp2.tdsl <<'TDSL'
import std.axes
let x = rand(f32, [2, 5])
let a, b = split2d_2(x, axis = 1, s0 = 6)
TDSL
"$TDSL" sp2.tdsl >out 2>err
[ "$?" = 1 ] || fail "a first part larger than the axis: exit $?"
grep -q "output 'Y1' of 'split2d_2<f32>' would have the negative size -1" \
    err || fail "split sizes: $(cat err)"

cat >rs.tdsl <<'TDSL'
import std.math
let x = rand(f32, [2, 5])
print reshape2to2(x, s0 = 3, s1 = 3)
TDSL
"$TDSL" rs.tdsl >out 2>err
[ "$?" = 1 ] || fail "a reshape to 9 elements of 10: exit $?"
grep -q "output 'Y' of 'reshape2to2<f32>' would have the negative size -1" \
    err || fail "reshape: $(cat err)"
grep -q "rs.tdsl:3:7: note: in this call of 'reshape2to2<f32>'" err ||
    fail "reshape note: $(cat err)"
exit 0
