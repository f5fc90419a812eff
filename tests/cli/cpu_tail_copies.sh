# cpu_tail_copies.sh - what the tails of the bench's matmul register
# tile (tests/cpu/cpu_bench_tiles.tdsl) cost the C compiler
# (bench/README.md, "Compile time: scalar lane tails"): the rows past
# the last block of 6 are the else branch of the parallel loop's body
# (pass_partition.c), not a serial loop after it, per k block; the
# lanes past the last whole vector of a tail run as a scalar loop that
# gcc does not vectorize (`omp simd if(simd: 0)`, codegen/c/emit.c),
# while a vector loop with a constant count (conv2d's padded rows of
# 58: 3 vectors and 10 lanes) keeps the plain hint.  The tails' copies
# of the tile's unrolled loops (ii < 6, jv < 4) stay loops for gcc too
# (`rolled` in the loop IR, `#pragma GCC unroll 1`), while the main
# tile has no loop over ii or jv left.  The C builds warning-free with
# gcc and, where it is installed, clang.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" compile "$src/tests/cpu/cpu_bench_tiles.tdsl" --kernel matmul \
    --target cpu -o m.c 2>err || fail "compile: $(cat err)"
n=$(grep -c 'for (int32_t C__ko__l[0-9]* = ' m.c)
m=$(grep -c 'for (int32_t C__io__l[0-9]* = ' m.c)
[ "$m" = "$n" ] || fail "$m io loops in $n ko loops (a serial tail loop)"
grep -q '#pragma omp simd if(simd: 0)' m.c || fail "no scalar lane tail"
grep -q '#pragma omp simd$' m.c && fail "a lane tail gcc would vectorize"
r=$(grep -A1 '#pragma GCC unroll 1$' m.c | grep -c 'for (int32_t C__\(ii\|jv\)__')
l=$(grep -c 'for (int32_t C__\(ii\|jv\)__' m.c)
[ "$r" -gt 0 ] && [ "$r" = "$l" ] ||
    fail "$r of $l loops over ii or jv kept rolled for gcc"
"$TDSL" lower "$src/tests/cpu/cpu_bench_tiles.tdsl" --kernel matmul \
    --target cpu >m.lir 2>err || fail "lower: $(cat err)"
grep -q 'rolled for C\.ii\.' m.lir || fail "no rolled loop in the IR"
"$TDSL" compile "$src/bench/tdsl_kernels.tdsl" --kernel conv2d \
    --target cpu -o c.c 2>err || fail "compile conv2d: $(cat err)"
grep -A2 '#pragma omp simd$' c.c | grep -q '< 10; ' ||
    fail "conv2d's constant lane loop lost its omp simd"
for c in cc clang; do
    command -v $c >/dev/null 2>&1 || continue
    $c -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -shared \
        -fPIC m.c -o m.so -lm 2>err || fail "$c: $(cat err)"
done
exit 0
