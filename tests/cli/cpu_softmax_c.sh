# cpu_softmax_c.sh - the C of the bench's softmax (bench/tdsl_kernels.tdsl,
# rows bound to 4096 x 1024, max, fast_exp, sum and the division
# computed per row): inside the bound's guard N and D are constants
# (lower.c, pass_simplify.c), so each row's buffers are stack arrays of
# their size on a cache line (codegen/c/emit.c), with no loop over a
# region of one row and no tail; the vector max is the one with the
# select on the new element's NaN only (codegen/c/emit_vec.c); and the
# C builds warning-free with gcc and clang, exact and FMA.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" compile "$src/bench/tdsl_kernels.tdsl" --kernel softmax \
    --target cpu -o s.c 2>err || fail "compile: $(cat err)"
grep -q '(sz__N == 4096)) && (sz__D == 1024)' s.c ||
    fail "the guard does not say the sizes"
grep -q 'float e____8__sb\[1025\] TL_LINE;' s.c ||
    fail "the row of e is not a stack array of its size"
grep -q '16384 / sizeof' s.c && fail "a stack buffer of unknown size"
sed -n '/^static void k__softmax/,/^}/p' s.c >k.c
grep -q 'tl_imin\|tl_imax\|tl_div' k.c && fail "symbolic regions left"
grep -q 'TL_HELPER N N##_max(N a, N b) { return TL_NMAX_##N(b, a); }' s.c ||
    fail "not the max with the select on b alone"
for c in "-ffp-contract=off" "-ffp-contract=fast"; do
    cc -std=c11 -O2 -march=native $c -fopenmp -Wall -Wextra -Werror \
        -shared -fPIC s.c -o s.so -lm 2>err || fail "cc $c: $(cat err)"
    if command -v clang >/dev/null 2>&1; then
        clang -std=c11 -O2 -march=native $c -Wall -Wextra -Werror \
            -shared -fPIC s.c -o s.so -lm 2>err ||
            fail "clang $c: $(cat err)"
    fi
done
exit 0
