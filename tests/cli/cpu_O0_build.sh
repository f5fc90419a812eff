# cpu_O0_build.sh - the generated C builds warning-free without
# optimization too (TDSL_CFLAGS_EXTRA="-O0 -Wall -Werror" is how one
# debugs a kernel).  A stage computed at a loop of its consumer, of
# constant size, keeps its buffer on the stack and frees it only when
# it came from malloc (`if (S != S__sb) free(S)`); gcc -O0 folds the
# size test and took the free for one of the stack array
# (-Wfree-nonheap-object: the random test's seed 10048 at -O0, 20 of
# its first 430 cases).  The result is the interpreter's.
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

let x = bf16(rand(f32, [4, 7], seed = 1))
assert allclose(k(x) on cpu, k(x), rtol = 0, atol = 0)
print "ok"
END
"$TDSL" compile k.tdsl --kernel k --target cpu -o k.c 2>err ||
    fail "compile: $(cat err)"
grep -q '__sb) free(' k.c || fail "no stack buffer freed in a test"
for o in -O0 -O2; do
    cc -std=c11 $o -Wall -Wextra -Werror -shared -fPIC k.c -o k.so -lm \
        2>err || fail "cc $o: $(head -c 600 err)"
done
TDSL_CFLAGS_EXTRA="-O0 -Wall -Werror" XDG_CACHE_HOME=$TMP/cache \
    "$TDSL" k.tdsl >out 2>err || fail "run -O0: $(head -c 600 err)"
grep -q '^ok$' out || fail "run -O0: $(cat out err)"
