# cpu_tile_c.sh - the C of the bench's matmul register tile
# (tests/cpu/cpu_bench_tiles.tdsl): its 24 accumulators are C variables
# of their own (codegen/c/emit_reg.c), not an array, which gcc kept in
# registers only with extra moves and a spill; B's packing reads whole
# vectors inside the zero_pad border (codegen/c/emit_mask.c); and the
# C builds warning-free, with the flags of the FMA opt-in too.  The
# product of A's broadcast element and a vector of B is tl_mulbc16
# (codegen/c/emit_bcmul.c): with AVX-512 one vmulps with an embedded
# broadcast in the exact build, and the C product, fused, under
# TL_CONTRACT (TDSL_FMA=1's flags).  A tile of fewer rows than vectors
# (2x64) keeps the C product: there gcc reloaded B's vectors around
# the asm for every row (83 -> 57 GFLOP/s).
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
grep -q 'tl_mulbc16(&in__A\[' m.c || fail "the product is no tl_mulbc16"
for c in "-ffp-contract=off" "-ffp-contract=fast" \
         "-ffp-contract=fast -DTL_CONTRACT"; do
    cc -std=c11 -O2 -march=native $c -Wall -Wextra -Werror -shared \
        -fPIC m.c -o m.so -lm 2>err || fail "cc $c: $(cat err)"
done
if cc -march=native -dM -E - </dev/null | grep -q '__AVX512F__ 1'; then
    cc -std=c11 -O2 -march=native -ffp-contract=off -S m.c -o m.s ||
        fail "cc -S"
    grep -q 'vmulps.*{1to16}' m.s || fail "no vmulps with {1to16}"
    cc -std=c11 -O2 -march=native -ffp-contract=fast -DTL_CONTRACT -S \
        m.c -o f.s || fail "cc -S TL_CONTRACT"
    grep -q 'vmulps.*{1to16}' f.s && fail "asm product under TL_CONTRACT"
    grep -q 'vfmadd' f.s || fail "no FMA under TL_CONTRACT"
fi
sed -e 's/tile(i, j, io, jo, ii, ji, 6, 64)/tile(i, j, io, jo, ii, ji, 2, 64)/' \
    "$src/tests/cpu/cpu_bench_tiles.tdsl" >t2.tdsl
grep -q 'ii, ji, 2, 64' t2.tdsl || fail "no 2x64 tile made"
"$TDSL" compile t2.tdsl --kernel matmul --target cpu -o m2.c 2>err ||
    fail "compile 2x64: $(cat err)"
grep -q 'tl_f32x16 out__C__acc__r7 = {0};' m2.c || fail "2x64: no tile"
grep -q 'tl_mulbc16(&' m2.c && fail "2x64: the asm product"
exit 0
