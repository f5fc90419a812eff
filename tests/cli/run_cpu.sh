# run_cpu.sh - `tdsl run --target cpu` runs the kernel compiled by the C
# backend: the same output file as the interpreter's, bit for bit; a
# second run finds the compiled kernel in the cache (TDSL_CC names a
# wrapper that counts the compiler's runs).
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME

cat >k.tdsl <<'TDSL'
kernel scale(X: f32[N]; k: i32 = 3) -> (Y: f32[N]) {
    Y[i] = X[i] * f32(k) + sqrt(X[i])
}
TDSL
cat >mk.tdsl <<'TDSL'
save(rand(f32, [100], seed = 4), "v.npy")
TDSL
cat >cmp.tdsl <<'TDSL'
assert allclose(load("y1.npy"), load("y2.npy"), rtol = 0, atol = 0)
assert allclose(load("y1.npy"), load("y3.npy"), rtol = 0, atol = 0)
TDSL
printf '#!/bin/sh\necho run >>"%s/cc.log"\nexec cc "$@"\n' "$TMP" >cc.sh
chmod +x cc.sh
TDSL_CC=$TMP/cc.sh
export TDSL_CC
"$TDSL" mk.tdsl || fail "making the input"
"$TDSL" run k.tdsl --kernel scale --in v.npy --param k=2 --out y1.npy \
    || fail "interpreter run"
"$TDSL" run k.tdsl --kernel scale --in v.npy --param k=2 --out y2.npy \
    --target cpu || fail "cpu run"
ls cache/tdsl/*.so >/dev/null 2>&1 || fail "no compiled kernel in the cache"
"$TDSL" run k.tdsl --kernel scale --in v.npy --param k=2 --out y3.npy \
    --target cpu || fail "cached cpu run"
[ "$(wc -l <cc.log)" -eq 1 ] || fail "the compiler ran $(wc -l <cc.log) times"
"$TDSL" cmp.tdsl || fail "cpu and interpreter differ"
exit 0
