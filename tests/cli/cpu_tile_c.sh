# cpu_tile_c.sh - the C of the bench's matmul register tile
# (tests/cpu/cpu_bench_tiles.tdsl): its 24 accumulators are C variables
# of their own (codegen/c/emit_reg.c), not an array, which gcc kept in
# registers only with extra moves and a spill; B's packing reads whole
# vectors inside the zero_pad border (codegen/c/emit_mask.c); and the
# C builds warning-free, with the flags of the FMA opt-in too.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" compile "$src/tests/cpu/cpu_bench_tiles.tdsl" --kernel matmul \
    --target cpu -o m.c 2>err || fail "compile: $(cat err)"
for r in 0 23; do
    grep -q "tl_f32x16 out__C__acc__r$r = {0};" m.c ||
        fail "no accumulator variable $r"
done
grep -q 'out__C__acc\[' m.c && fail "the tile is still an array"
grep -q '__builtin_add_overflow' m.c || fail "no all-lanes test in packing"
for c in "-ffp-contract=off" "-ffp-contract=fast"; do
    cc -std=c11 -O2 -march=native $c -Wall -Wextra -Werror -shared \
        -fPIC m.c -o m.so -lm 2>err || fail "cc $c: $(cat err)"
done
exit 0
