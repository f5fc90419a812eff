# cpu_par_chunk_n.sh - parallel(v, n) reaches the generated C: the loop
# hands out n iterations at a time (tl_par_for's last argument), while
# a parallel loop without n keeps the default chunk (0: 8 chunks a
# thread; tests/cli/cpu_par_chunks.sh).  The C builds
# warning-free, and tests/cpu/cpu_par_chunk.tdsl's chunks (5 of 37
# rows, 1000, 1, a reduction's rows) give the interpreter's bits on 1,
# 2 and 3 threads.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

cat >p.tdsl <<'EOF'
kernel rs(X: f32[M, N]) -> (Y: f32[M, N], S: f32[M]) {
    Y[i, j] = X[i, j] * 2.0
    S[i] = sum(j) X[i, j]
}
schedule rs for cpu {
    Y.split(i, io, ii, 4).parallel(io, 7)
    S.parallel(i)
}
EOF
"$TDSL" compile p.tdsl --kernel rs --target cpu -o k.c 2>err ||
    fail "compile: $(cat err)"
[ "$(grep -c 'tl_par_for(tl_par[0-9]*, .*, 7);$' k.c)" = 1 ] ||
    fail "Y's loop does not take chunks of 7: $(grep 'tl_par_for(' k.c)"
[ "$(grep -c 'tl_par_for(tl_par[0-9]*, .*, 0);$' k.c)" = 1 ] ||
    fail "S's loop lost the default chunk: $(grep 'tl_par_for(' k.c)"
cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC k.c -o k.so \
    -lm 2>err || fail "cc: $(cat err)"
for t in 1 2 3; do
    OMP_NUM_THREADS=$t "$TDSL" --no-cache "$src/tests/cpu/cpu_par_chunk.tdsl" \
        >out 2>err || fail "$t threads: $(cat out err)"
done
exit 0
