# cpu_c_warnings.sh - the generated C builds warning-free with -Wall
# -Wextra -Werror at -O0 (TDSL_CFLAGS_EXTRA="-O0 -Wall -Werror" is how
# one debugs a kernel) as at -O2 and -O3, where gcc's flow-sensitive
# warnings see only part of what the kernel knows:
#  - a stage computed at a loop of its consumer, of constant size,
#    keeps its buffer on the stack and frees it only when it came from
#    malloc (`if (S != S__sb) free(S)`); gcc -O0 folds the size test
#    and took the free for one of the stack array
#    (-Wfree-nonheap-object: the random test's seed 10048 at -O0);
#  - a stage of a kernel call computed at the call's output loop is
#    read after a loop whose count gcc cannot prove positive
#    (-Wmaybe-uninitialized at -O2: seed 123 of `make check-random`).
# The results are the interpreter's.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null 2>&1 || exit 77

cat >k.tdsl <<'END'
kernel k(X: bf16[4, 7]) -> (Y: f32[4, 7]) {
    S[i] = u32(select(X[0, i] == (max(r) X[0, r]), 8, 3))
    Y[i, j] = f32(S[j]) + 1.0
}

schedule k for cpu {
    Y.fuse(i, j, f).split(f, fo, fi, 16)
    S.split(i, a, b, 7).unroll(r, 2).compute_at(Y, fo)
}

kernel h0(X: i32[N]) -> (Y: f64[N]) {
    S[i] = i8(select(bool(X[i]), -4, i8(X[i])))
    Y[i] = f64(S[i])
}

kernel u(X: i32[N]) -> (Z: i8[N]) {
    c0 = h0(X)
    Z[i] = i8(min(r in 0..2) i8(c0[clamp(i + r, 0, N - 1)]))
}

schedule u for cpu {
    c0.Y.parallel(i)
    c0.S.compute_at(Y, i)
}

let x = bf16(rand(f32, [4, 7], seed = 1))
assert allclose(k(x) on cpu, k(x), rtol = 0, atol = 0)
let n = arange(i32, 37)
assert allclose(u(n) on cpu, u(n), rtol = 0, atol = 0)
print "ok"
END
for kn in k u; do
    "$TDSL" compile k.tdsl --kernel $kn --target cpu -o $kn.c 2>err ||
        fail "compile $kn: $(cat err)"
    for o in -O0 -O2 -O3; do
        cc -std=c11 $o -fopenmp -Wall -Wextra -Werror -shared -fPIC $kn.c \
            -o $kn.so -lm 2>err || fail "cc $kn $o: $(head -c 600 err)"
    done
done
grep -q '__sb) free(' k.c || fail "no stack buffer freed in a test"
for o in -O0 -O2; do
    TDSL_CFLAGS_EXTRA="$o -Wall -Werror" XDG_CACHE_HOME=$TMP/cache$o \
        "$TDSL" k.tdsl >out 2>err || fail "run $o: $(head -c 600 err)"
    grep -q '^ok$' out || fail "run $o: $(cat out err)"
done
