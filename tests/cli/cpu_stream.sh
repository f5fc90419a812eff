# cpu_stream.sh - the `stream()` directive in the generated C (SPEC
# 10.8, codegen/pass_stream.c): blur's rows of tests/cpu/cpu_stream.tdsl
# are written to a line-aligned stack buffer and copied out by
# tl_stream_f32 (streaming stores), and TL_SFENCE() orders them at the
# end of each iteration of the parallel loop (before the threads join)
# and of the kernel; a kernel without the directive has neither.  The
# kernels give the interpreter's bits when built by clang and without
# AVX-512 (an ordinary copy), and the C builds warning-free with both
# compilers.  bench/tdsl_kernels.tdsl's blur3 streams its output.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
command -v cc >/dev/null 2>&1 || exit 77
f=$src/tests/cpu/cpu_stream.tdsl

"$TDSL" compile "$f" --kernel blur --target cpu -o b.c 2>err ||
    fail "compile: $(cat err)"
[ "$(grep -c 'tl_stream_f32(&' b.c)" = 1 ] || fail "no streamed copy in blur"
grep -q 'TL_LINE;' b.c || fail "the row's stack buffer is not line-aligned"
# The fences: the last statement of the parallel loop's body and of
# the kernel function.
awk '/tl_par_for\(tl_par/ { par = 1 }
     /TL_SFENCE\(\);/ { n++ }
     END { exit !(par && n == 2) }' b.c || fail "blur: not 2 fences"
grep -A1 'TL_SFENCE();' b.c | grep -v 'TL_SFENCE\|^--$' | grep -qv '^ *}$' &&
    fail "a fence is not the last statement of its block"
"$TDSL" compile "$f" --kernel flat --target cpu -o f.c 2>err ||
    fail "compile flat: $(cat err)"
grep -q 'tl_stream_f32(&\|TL_SFENCE();' f.c && fail "flat has no rows to stream"
"$TDSL" compile "$src/bench/tdsl_kernels.tdsl" --kernel blur3 \
    --target cpu -o b3.c 2>err || fail "compile blur3: $(cat err)"
grep -q 'tl_stream_f32(&' b3.c || fail "the bench's blur3 does not stream"
"$TDSL" compile "$src/bench/tdsl_kernels.tdsl" --kernel conv2d \
    --target cpu -o c.c 2>err || fail "compile conv2d: $(cat err)"
grep -q 'tl_stream_f32\|TL_SFENCE' c.c && fail "conv2d streams"

"$TDSL" "$f" >want 2>err || fail "run: $(head -c 600 err)"
TDSL_CFLAGS_EXTRA=-mno-avx512f "$TDSL" "$f" >out 2>err ||
    fail "-mno-avx512f: $(head -c 600 err)"
cmp -s out want || fail "-mno-avx512f: output differs"
for c in cc clang; do
    command -v $c >/dev/null 2>&1 || continue
    if [ $c = clang ]; then
        # clang's -fopenmp brings libomp, whose worker threads
        # LeakSanitizer's tracer cannot stop at exit in the sanitizer
        # build (it crashes: "Tracer caught signal 11"); leaks are
        # checked by every other test, the bits here.
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
        TDSL_CC=clang "$TDSL" "$f" >out 2>err ||
            fail "clang: $(head -c 600 err)"
        cmp -s out want || fail "clang: output differs"
    fi
    $c -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -shared \
        -fPIC b.c -o b.so -lm 2>err || fail "$c: $(cat err)"
done
exit 0
