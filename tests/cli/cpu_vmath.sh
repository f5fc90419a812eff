# cpu_vmath.sh - the vector math helpers (codegen/c/emit_vmath.c) stay
# the interpreter's bit for bit when the kernels are built with
# TDSL_FMA=1 (SPEC 10.8: their double polynomials may then be
# contracted), when they are built by clang, and without AVX-512 (erf
# and exp have helpers of their own for it: -mno-avx512f builds the
# others on a host that has it): tests/cpu/cpu_vmath.tdsl,
# cpu_vexp.tdsl and cpu_vtrig.tdsl pass and print the same as in the
# default build.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
command -v cc >/dev/null 2>&1 || exit 77

for t in cpu_vmath cpu_vexp cpu_vtrig; do
    f=$src/tests/cpu/$t.tdsl
    "$TDSL" "$f" >want 2>err || fail "$t, default build: $(cat err)"
    TDSL_FMA=1 "$TDSL" "$f" >out 2>err ||
        fail "$t, TDSL_FMA=1: $(head -c 600 err)"
    cmp -s out want || fail "$t, TDSL_FMA=1: output differs"
    TDSL_CFLAGS_EXTRA=-mno-avx512f "$TDSL" "$f" >out 2>err ||
        fail "$t, -mno-avx512f: $(head -c 600 err)"
    cmp -s out want || fail "$t, -mno-avx512f: output differs"
    if command -v clang >/dev/null 2>&1; then
        for fma in 0 1; do
            TDSL_CC=clang TDSL_FMA=$fma "$TDSL" "$f" >out 2>err ||
                fail "$t, clang, TDSL_FMA=$fma: $(head -c 600 err)"
            cmp -s out want || fail "$t, clang, TDSL_FMA=$fma: differs"
        done
    fi
done
exit 0
