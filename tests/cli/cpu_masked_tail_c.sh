# cpu_masked_tail_c.sh - the C of a split's masked tail (the matmul of
# tests/cpu/cpu_vec_masked_tail.tdsl; codegen/c/emit_vmask.c): its
# loads take the stores' bitmask (tl_mldk16), not a select of a vector
# mask with an all-lanes test around each (that code made gcc spill the
# partial panel's pointers: matmul 240 0.40 -> 0.54 ms, bench/README.md
# 2026-11-29), and the branch into it is marked unlikely.  The C builds
# warning-free with AVX-512 and without it (where the masked helpers
# are stubs that never run), and with AVX-512 the tail's moves are
# masked instructions.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" compile "$src/tests/cpu/cpu_vec_masked_tail.tdsl" --kernel matmul \
    --target cpu -o m.c 2>err || fail "compile: $(cat err)"
grep -q '__builtin_expect(TL_MST16 && tl_mn > 0' m.c ||
    fail "no masked tail, or its branch not marked unlikely"
grep -q 'tl_mldk16(&tl_r, &out__C\[' m.c || fail "C's load is not tl_mldk16"
grep -q 'tl_mst16(&out__C\[' m.c || fail "C's store is not tl_mst16"
# Inside the masked branches (the line after each unlikely test and the
# statement after it) no load goes through a vector mask.
awk '/__builtin_expect\(TL_MST16/ { n = 3 } n > 0 { print; n-- }' m.c \
    >tail.c
[ -s tail.c ] || fail "no masked branch found"
grep -q 'tl_mld16(' tail.c && fail "a masked tail's load under a vector mask"
grep -q 'tl_mldk16(' tail.c || fail "no tl_mldk16 in the masked branch"
# Without AVX-512 (-Wno-psabi: gcc's note on 64-byte vectors passed
# by value without AVX-512, which every 16-lane kernel's C gets there).
for c in "-march=native" "-march=native -mno-avx512f -Wno-psabi"; do
    cc -std=c11 -O2 $c -ffp-contract=off -Wall -Wextra -Werror -shared \
        -fPIC m.c -o m.so -lm 2>err || fail "cc $c: $(cat err)"
done
if cc -march=native -dM -E - </dev/null | grep -q '__AVX512F__ 1'; then
    cc -std=c11 -O2 -march=native -ffp-contract=off -S m.c -o m.s ||
        fail "cc -S"
    grep -q 'vmovups.*{%k[1-7]}{z}' m.s || fail "no masked load in the asm"
    grep -Eq 'vmovups[[:space:]]+%zmm[0-9]+, .*{%k[1-7]}' m.s ||
        fail "no masked store in the asm"
fi
exit 0
