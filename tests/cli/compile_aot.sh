# compile_aot.sh - `tdsl compile`: the C of a kernel with its C entry,
# a shared object and a header (several -o in one call), which the
# example C program examples/aot/main.c links and calls, checking the
# results against plain C loops; and the mistakes, with their messages.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
ex=$src/examples/aot
command -v cc >/dev/null 2>&1 || exit 77

# The example: its script agrees with the interpreter, and is canonical.
"$TDSL" "$ex/kernels.tdsl" || fail "examples/aot/kernels.tdsl failed"
"$TDSL" fmt --check "$ex/kernels.tdsl" || fail "kernels.tdsl not canonical"

"$TDSL" compile "$ex/kernels.tdsl" --kernel matmul --target cpu \
    -o matmul.so -o matmul.h -o matmul.c 2>err || fail "compile: $(cat err)"
"$TDSL" compile "$ex/kernels.tdsl" --kernel bias_leaky -o bias_leaky.h \
    -o bias_leaky.so 2>err || fail "compile: $(cat err)"
"$TDSL" compile "$ex/kernels.tdsl" --kernel normalize -o normalize.h \
    -o normalize.so 2>err || fail "compile: $(cat err)"
grep -q 'normalize, line [0-9]*: X must be positive' normalize.h ||
    fail "normalize.h does not list its assert: $(cat normalize.h)"
for f in matmul.so matmul.h matmul.c bias_leaky.so bias_leaky.h; do
    [ -s "$f" ] || fail "no $f"
done
ls ./*.tmp >/dev/null 2>&1 && fail "temporary files left: $(ls ./*.tmp)"
grep -q '^int tdsl_matmul(const float \*A, const int64_t \*A_shape' \
    matmul.h || fail "matmul.h: $(cat matmul.h)"
grep -q 'float alpha,' bias_leaky.h || fail "bias_leaky.h: no scalar alpha"
# Only the C entries are exported: two kernels link into one program.
nm -D --defined-only matmul.so 2>/dev/null | grep -q ' tdsl_matmul$' ||
    fail "tdsl_matmul is not exported"
nm -D --defined-only matmul.so 2>/dev/null | grep -q 'entry' &&
    fail "the generated entry is exported"
cc -std=c11 -Wall -Wextra -Werror -I. "$ex/main.c" -L. -l:matmul.so \
    -l:bias_leaky.so -l:normalize.so -Wl,-rpath,"$TMP" -lm -o main 2>err ||
    fail "building main.c: $(cat err)"
./main >out 2>&1 || fail "main: $(cat out)"
[ "$(grep -c '^ok: ' out)" = 9 ] || fail "main: $(cat out)"
# The .c written builds into the same thing, with the flags documented.
cc -std=c11 -O2 -ffp-contract=off -Wall -Werror -shared -fPIC matmul.c \
    -o matmul2.so -lm 2>err || fail "matmul.c does not build: $(cat err)"
# The header is valid C++ as well.
if command -v c++ >/dev/null 2>&1; then
    printf '#include "matmul.h"\n#include "bias_leaky.h"\n'`
          `'int (*f)(const float *, const int64_t *, const int64_t *, '`
          `'const float *, const int64_t *, const int64_t *, float *, '`
          `'const int64_t *, const int64_t *) = tdsl_matmul;\n' >h.cc
    c++ -fsyntax-only -Wall -Werror -I. h.cc 2>err ||
        fail "the headers are no C++: $(cat err)"
fi

# No -o: the C on stdout; --symbol names the entry.
"$TDSL" compile "$ex/kernels.tdsl" --kernel matmul --symbol mm >out ||
    fail "compile to stdout"
grep -q '^TDSL_EXPORT int mm(' out || fail "--symbol: $(grep EXPORT out)"
cmp -s out matmul.c && fail "--symbol changed nothing"
# A generic kernel: its instance, named after the binding.
printf 'kernel relu<T: float>(X: T[..S]) -> (Y: T[..S]) {\n'`
      `'    Y[..i] = max(X[..i], T(0))\n}\n' >g.tdsl
"$TDSL" compile g.tdsl --in "X=f64[N, M]" -o g.h 2>err ||
    fail "generic: $(cat err)"
grep -q 'int tdsl_relu_f64_2(const double \*X' g.h || fail "g.h: $(cat g.h)"

# :c in the REPL prints what `tdsl compile` writes.
printf ':load %s\n:c matmul\n' "$ex/kernels.tdsl" | "$TDSL" repl >out 2>err ||
    fail ":c: $(cat err)"
grep -q '^TDSL_EXPORT int tdsl_matmul(' out || fail ":c printed no C entry"

k=$ex/kernels.tdsl
expect 2 "compile: cannot tell what to write to 'k.o' from its name" \
    compile "$k" --kernel matmul -o k.o
expect 2 "compile: '-o k.c' is given twice" \
    compile "$k" --kernel matmul -o k.c -o k.c
expect 2 "compile: '--symbol 1x' is not a C identifier" \
    compile "$k" --kernel matmul --symbol 1x
expect 2 "compile: --symbol names a C entry; target 'accel' writes no C" \
    compile "$k" --kernel matmul --target accel --symbol mm
expect 2 "compile: '-o' needs a value" compile "$k" --kernel matmul -o
expect 1 "tdsl: cannot write 'nodir/k.c'" \
    compile "$k" --kernel matmul -o nodir/k.c
cat >c.tdsl <<'TDSL'
let W = rand(f32, [4], seed = 1)

kernel addw(X: f32[4]) -> (Y: f32[4]) {
    Y[i] = X[i] + W[i]
}
TDSL
expect 1 "c.tdsl:1:5: error: kernel 'addw' reads the top-level tensor 'W', which a compiled C entry cannot take; make it a parameter" \
    compile c.tdsl -o c.h
exit 0
