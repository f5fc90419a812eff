# cpu_strided_c.sh - a vector load of lanes a stride apart (rule 2b's
# rows and windows, codegen/sched_auto.c) is a vector literal of scalar
# loads at tl_b + l * tl_s (codegen/c/emit_vec.c, strided_load), not a
# vector of indices taken apart lane by lane (softmax and layer norm
# rows 9.2 -> 8.4 us); under a select's mask the lanes stay guarded one
# by one (a lane the select does not take may lie outside the buffer).
# The C builds warning-free.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

cat >t.tdsl <<'K'
kernel rows(X: f32[N, D]) -> (M: f32[N]) {
    M[i] = max(r) X[i, r]
}

kernel pool(X: f32[3, 220]) -> (M: f32[3, 21]) {
    M[c, x] = max(r in 0..80) X[c, x * 3 + r * 2]
}

kernel sel(X: f32[16, 20]) -> (M: f32[16]) {
    M[i] = max(r) select(X[i, 0] < 0.5, X[i, r], 0.0)
}
K
for k in rows pool sel; do
    "$TDSL" compile t.tdsl --kernel $k --target cpu -o $k.c 2>err ||
        fail "compile $k: $(cat err)"
    cc -std=c11 -O2 -march=native -Wall -Wextra -Werror -shared -fPIC \
        $k.c -o $k.so -lm 2>err || fail "cc $k: $(cat err)"
done
grep -q 'tl_s = in__X__s0; const int64_t tl_i0 = tl_b' rows.c ||
    fail "rows: no strided load with the row stride"
grep -q '((float)in__X\[tl_i7\])}' rows.c || fail "rows: not 8 lanes"
grep -q 'in__X\[tl_v0\[tl_l\]\]' rows.c && fail "rows: lanes taken apart"
grep -q 'tl_s = INT64_C(3);' pool.c || fail "pool: no stride of 3"
grep -q 'if (tl_t1\[tl_l\]) tl_r\[tl_l\] = ((float)in__X\[tl_v0\[tl_l\]\])' \
    sel.c || fail "sel: the masked load is not guarded lane by lane"
exit 0
