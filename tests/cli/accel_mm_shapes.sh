# accel_mm_shapes.sh - the matmul route needs the matrix unit's shapes
# it is written for (f32: 2G x G, f16: 4G x 4G with G PEs a group); a
# machine file with other shapes is refused with a clear error at the
# call, for f32 and for f16 inputs.
fail() { echo "FAIL: $*"; exit 1; }

printf 'base = test\nname = odd\nmau_f32 = 4 4\nmau_f16 = 8 8\n' \
    >"$TMP/odd.mach"
for call in 'mm(A, B)' 'mm16(f16(A), f16(B))'; do
    cat >"$TMP/mm.tdsl" <<TDSL
kernel mm(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
kernel mm16(A: f16[M, K], B: f16[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) f32(A[i, k]) * f32(B[k, j])
}
let A = rand(f32, [8, 8], seed = 1)
let B = rand(f32, [8, 8], seed = 2)
let C = $call on accel
TDSL
    "$TDSL" "$TMP/mm.tdsl" --machine "$TMP/odd.mach" >"$TMP/out" 2>&1 &&
        fail "$call ran: $(cat "$TMP/out")"
    case $call in
    mm16*) want='whose f16 shape is not (4 x PEs per group) x (4 x PEs' ;;
    *) want='whose f32 shape is not (2 x PEs per group) x (PEs per' ;;
    esac
    msg="accel target cannot compile matmul on a matrix unit $want"
    grep -qF "mm.tdsl:9:9: error: $msg" "$TMP/out" ||
        fail "$call: $(cat "$TMP/out")"
done
exit 0
