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
print dbl(arange(f32, 3)) on cpu
TDSL
(cd elsewhere && "$TDSL" ../proj/s.tdsl) >out 2>err ||
    fail "s.tdsl: $(cat err)"
[ "$(cat out)" = "6.0
f32[3]
[0. 2. 4.]
f32[3]
[0. 2. 4.]" ] || fail "s.tdsl printed: $(cat out)"

# Ahead of time: the kernel's shared object calls the extern by its
# symbol, which the program that links it provides (docs/c-abi.md).
"$TDSL" compile proj/s.tdsl --kernel dbl -o dbl.so -o dbl.h 2>err ||
    fail "compile dbl: $(cat err)"
cat >main.c <<'C'
#include <stdio.h>
#include "dbl.h"
int main(void)
{
    float x[3] = {1, 2, 3}, y[3];
    int64_t n[1] = {3};
    if (tdsl_dbl(x, n, NULL, y, n, NULL) != TDSL_OK)
        return 1;
    printf("%g %g %g\n", y[0], y[1], y[2]);
    return 0;
}
C
"$CC" -I. main.c -L. -l:dbl.so -Lproj/lib -l:libnorm.so \
    -Wl,-rpath,"$TMP" -Wl,-rpath,"$TMP/proj/lib" -o main 2>err ||
    fail "building main.c: $(cat err)"
[ "$(./main)" = "2 4 6" ] || fail "main printed: $(./main)"
cat >proj/half.tdsl <<'TDSL'
extern "./lib/libnorm.so" fn twice(x: f16) -> f16
kernel dblh(X: f16[N]) -> (Y: f16[N]) {
    Y[i] = twice(X[i])
}
TDSL
"$TDSL" compile proj/half.tdsl --kernel dblh -o h.so >out 2>err
[ "$?" = 1 ] || fail "an f16 extern compiled: exit $?"
grep -q "half.tdsl:1:39: error: extern 'twice' cannot be called from tdsl: parameter 'x' has type 'f16', which has no C type" \
    err || fail "f16 extern: $(cat err)"

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
