# extern_user_lib.sh - externs from a user's shared object (SPEC 5.3),
# built here with cc: tensor arguments passed as a pointer and one
# int64_t per axis, scalar externs inside a kernel, the library found
# beside the script from another folder; a missing library or symbol
# is an error at the extern line.  Skipped (77) without a C compiler.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || exit 77
mkdir -p proj/lib elsewhere || exit 1

cat >proj/lib/norm.c <<'C'
#include <math.h>
#include <stdint.h>
double norm(const float *v, int64_t n, double eps)
{
    double s = eps;
    for (int64_t i = 0; i < n; i++)
        s += (double)v[i] * v[i];
    return sqrt(s);
}
float trace(const float *m, int64_t rows, int64_t cols)
{
    float t = 0;
    for (int64_t i = 0; i < rows && i < cols; i++)
        t += m[i * cols + i];
    return t;
}
float twice(float x) { return 2 * x; }
C
"$CC" -shared -fPIC -o proj/lib/libnorm.so proj/lib/norm.c -lm 2>err ||
    exit 77

cat >proj/s.tdsl <<'TDSL'
extern "./lib/libnorm.so" fn norm(v: f32[N], eps: f64) -> f64
extern "./lib/libnorm.so" fn trace(m: f32[R, C]) -> f32
extern "./lib/libnorm.so" fn twice(x: f32) -> f32
kernel dbl(X: f32[N]) -> (Y: f32[N]) {
    Y[i] = twice(X[i])
}
assert allclose(norm(arange(f32, 4), 1.0), sqrt(f64(15)), 1e-12, 0)
print trace(full(f32, [3, 4], 2.0))
print dbl(arange(f32, 3))
TDSL
(cd elsewhere && "$TDSL" ../proj/s.tdsl) >out 2>err ||
    fail "s.tdsl: $(cat err)"
[ "$(cat out)" = "6.0
f32[3]
[0. 2. 4.]" ] || fail "s.tdsl printed: $(cat out)"

cat >proj/missing.tdsl <<'TDSL'
extern "./lib/libnone.so" fn norm(v: f32[N], eps: f64) -> f64
print norm(arange(f32, 4), 0.0)
TDSL
(cd elsewhere && "$TDSL" ../proj/missing.tdsl) >out 2>err
[ "$?" = 1 ] || fail "a missing library: exit $?"
grep -q "missing.tdsl:1:8: error: cannot load './lib/libnone.so' for extern 'norm'" \
    err || fail "missing library: $(cat err)"

cat >proj/nosym.tdsl <<'TDSL'
extern "./lib/libnorm.so" fn norm2(v: f32[N]) -> f64
print norm2(arange(f32, 4))
TDSL
(cd elsewhere && "$TDSL" ../proj/nosym.tdsl) >out 2>err
[ "$?" = 1 ] || fail "a missing symbol: exit $?"
grep -q "nosym.tdsl:1:30: error: extern 'norm2' is not in './lib/libnorm.so'" \
    err || fail "missing symbol: $(cat err)"
exit 0
