# cache.sh - the cache of compiled kernels: a second run of a script
# does not run the compiler (TDSL_CC names a wrapper that counts its
# runs), nor does `target cpu` for the whole script once compiled;
# --no-cache compiles afresh and leaves the cache alone; `tdsl cache`
# says where it is and how big, `tdsl cache clear` empties it and
# leaves other files be; a cached source that differs from the kernel's
# is never loaded; processes compiling at once all succeed.
. "$(dirname "$0")/lib.sh"
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
printf '#!/bin/sh\necho run >>"%s/cc.log"\nexec cc "$@"\n' "$TMP" >cc.sh
chmod +x cc.sh
TDSL_CC=$TMP/cc.sh
export TDSL_CC
runs() { if [ -f cc.log ]; then wc -l <cc.log | tr -d ' '; else echo 0; fi; }

cat >s.tdsl <<'TDSL'
kernel axpy(X: f32[N], Y: f32[N]; a: f32 = 2.0) -> (Z: f32[N]) {
    Z[i] = a * X[i] + Y[i]
}

let x = arange(f32, 8)
let y = ones(f32, [8])
assert allclose(axpy(x, y) on cpu, axpy(x, y), rtol = 0, atol = 0)
print axpy(x, y, a = 3.0) on cpu
TDSL
cat >t.tdsl <<'TDSL'
kernel sq(X: i32[N]) -> (Y: i32[N]) {
    Y[i] = X[i] * X[i] + 7
}

let x = arange(i32, 5)
let want = sq(x)
target cpu
print sq(x)
assert allclose(sq(x), want, rtol = 0, atol = 0)
TDSL

"$TDSL" s.tdsl >out1 2>err || fail "first run: $(cat err)"
[ "$(runs)" = 1 ] || fail "first run: the compiler ran $(runs) times"
"$TDSL" s.tdsl >out2 2>err || fail "second run: $(cat err)"
[ "$(runs)" = 1 ] || fail "second run ran the compiler ($(runs) runs)"
cmp -s out1 out2 || fail "the runs print different things"

# `target cpu` runs the later calls compiled: the compiler runs for sq.
"$TDSL" t.tdsl >out 2>err || fail "target cpu: $(cat err)"
[ "$(runs)" = 2 ] || fail "target cpu: the compiler ran $(runs) times"
grep -q '^\[ 7  8 11 16 23\]' out || fail "target cpu printed $(cat out)"
"$TDSL" t.tdsl >/dev/null 2>err || fail "target cpu again: $(cat err)"
[ "$(runs)" = 2 ] || fail "target cpu again ran the compiler"

# --no-cache: compiled afresh, and nothing added to the cache.
ls cache/tdsl >before
"$TDSL" --no-cache s.tdsl >out3 2>err || fail "--no-cache: $(cat err)"
[ "$(runs)" = 3 ] || fail "--no-cache did not compile ($(runs) runs)"
"$TDSL" s.tdsl --no-cache >/dev/null 2>err || fail "FILE --no-cache: $(cat err)"
[ "$(runs)" = 4 ] || fail "FILE --no-cache did not compile ($(runs) runs)"
ls cache/tdsl >after
cmp -s before after || fail "--no-cache changed the cache: $(diff before after)"
cmp -s out1 out3 || fail "--no-cache printed something else"

# tdsl cache, tdsl cache clear.
"$TDSL" cache >out || fail "tdsl cache"
[ "$(head -n 1 out)" = "$TMP/cache/tdsl" ] || fail "tdsl cache: $(cat out)"
grep -q '^2 compiled kernels, ' out || fail "tdsl cache: $(cat out)"
echo keep >cache/tdsl/notes.txt
"$TDSL" cache clear >out || fail "tdsl cache clear"
grep -q "^removed 2 compiled kernels (.*) from $TMP/cache/tdsl" out ||
    fail "tdsl cache clear: $(cat out)"
[ "$(ls cache/tdsl)" = notes.txt ] || fail "left after clear: $(ls cache/tdsl)"
"$TDSL" cache >out || fail "tdsl cache"
grep -q '^0 compiled kernels, 0 bytes' out || fail "empty cache: $(cat out)"
"$TDSL" s.tdsl >/dev/null 2>err || fail "after clear: $(cat err)"
[ "$(runs)" = 5 ] || fail "after clear the compiler did not run"

# A cached source that is not the kernel's (a hash collision, or a
# changed file) is not trusted: the kernel is compiled afresh.
for c in cache/tdsl/k*.c; do echo '/* changed */' >>"$c"; done
"$TDSL" s.tdsl >out4 2>err || fail "changed cache: $(cat err)"
[ "$(runs)" = 6 ] || fail "a changed cached source was trusted"
cmp -s out1 out4 || fail "changed cache: other output"

# Several processes compiling the same kernel at once.
"$TDSL" cache clear >/dev/null
for i in 1 2 3 4; do
    "$TDSL" s.tdsl >par$i 2>&1 &
done
wait
for i in 1 2 3 4; do
    cmp -s out1 par$i || fail "parallel run $i: $(cat par$i)"
done
ls cache/tdsl | grep -v '^notes.txt$' | grep -Ev '^k[0-9a-f]{16}\.(c|so)$' &&
    fail "stray files in the cache"

# Usage.
"$TDSL" cache frob >/dev/null 2>err
[ $? = 2 ] || fail "tdsl cache frob: not exit 2"
grep -q "cache: unknown argument 'frob'" err || fail "cache frob: $(cat err)"
"$TDSL" cache clear now >/dev/null 2>err
[ $? = 2 ] || fail "tdsl cache clear now: not exit 2"
XDG_CACHE_HOME=$TMP/cache/tdsl/notes.txt "$TDSL" s.tdsl >/dev/null 2>err &&
    fail "a cache folder that cannot be made"
grep -q "error: cannot use the kernel cache: cannot make '" err ||
    fail "unusable cache: $(cat err)"
TDSL_CC=false TMPDIR=$TMP "$TDSL" --no-cache s.tdsl >/dev/null 2>err &&
    fail "a compiler that fails"
grep -q "error: internal error: the C compiler failed on the generated '" err ||
    fail "failing compiler: $(cat err)"
exit 0
