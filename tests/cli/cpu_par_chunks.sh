# cpu_par_chunks.sh - how the cpu backend's parallel loops share their
# iterations (codegen/c/emit_pool.c, lower_stage.c fill_parallel):
# every parallel loop is a tl_par_for, which hands out chunks as threads
# come free (chunk 0: 8 chunks a thread, where the schedule gives no
# chunk: cpu_par_chunk_n.sh), and a
# reduction whose update runs in parallel also sets its stage to the
# identity in parallel (the bench's matmul: Bp, C's identity, C's
# update per k block; before, the identity was a serial pass between
# them).  A stage whose update is serial keeps a serial
# initialization.  The bench tiles give the interpreter's bits on 1, 2
# and 3 threads (3: chunks that do not divide the loops), and the C
# builds warning-free with gcc and, where it is installed, clang.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" compile "$src/tests/cpu/cpu_bench_tiles.tdsl" --kernel matmul \
    --target cpu -o m.c 2>err || fail "compile: $(cat err)"
all=$(grep -c 'tl_par_for(tl_par' m.c)
dyn=$(grep -c 'tl_par_for(tl_par[0-9]*, .*, 0);$' m.c)
[ "$all" -gt 0 ] && [ "$all" = "$dyn" ] ||
    fail "$dyn of $all parallel loops hand out chunks"
# The first nest of stage C is its identity: a parallel loop over i.
grep -m1 'The parallel loop over .* (stage C)' m.c | grep -q 'over C__i__l0 ' ||
    fail "C's identity is not set in parallel"
# A reduction with no parallel loop keeps a serial identity.
cat >s.tdsl <<'EOT'
kernel rs(X: f32[M, K]) -> (S: f32[M]) {
    S[i] = sum(k) X[i, k]
}
schedule rs for cpu {
    S.split(k, ko, ki, 4).reorder(ko, i, ki)
}
EOT
"$TDSL" compile s.tdsl --kernel rs --target cpu -o s.c 2>err ||
    fail "compile rs: $(cat err)"
grep -q 'tl_par_for(tl_par' s.c && fail "a serial reduction got a parallel loop"
for c in cc clang; do
    command -v $c >/dev/null 2>&1 || continue
    $c -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -shared \
        -fPIC m.c -o m.so -lm 2>err || fail "$c: $(cat err)"
done
for t in 1 2 3; do
    OMP_NUM_THREADS=$t "$TDSL" --no-cache "$src/tests/cpu/cpu_bench_tiles.tdsl" \
        >out 2>err || fail "$t threads: $(cat out err)"
done
exit 0
