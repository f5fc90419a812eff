# accel_pipe_pieces.sh - a pipeline of one block of one row pair a PE
# loads its input in pieces of columns and stores its output the same
# way (codegen/acc/cg_pipe.c, choose_pieces): softmax 512 x 256 on mn2
# (4 chunks a PE, 16 PEs a row pair) is 4 DMAs in and 4 out, stage 0
# folding each piece as it lands and each piece of Y going out as it is
# computed, for the same DRAM traffic as one load and one store (1816
# cycles then, 1500 now); the result against the interpreter.
# tests/accel/accel_pipeline_pieces.tdsl checks the pieces' arithmetic
# on every machine.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

cat >s.tdsl <<'TDSL'
kernel softmax(X: f32[N, D]) -> (Y: f32[N, D]) {
    m[n] = max(d) X[n, d]
    e[n, d] = exp(X[n, d] - m[n])
    s[n] = sum(d) e[n, d]
    Y[n, d] = e[n, d] / s[n]
}
let S = rand(f32, [512, 256], seed = 7)
assert allclose(softmax(S) on accel, softmax(S), rtol = 1e-5, atol = 1e-7)
time softmax(S) on accel
TDSL
TDSL_DEBUG=accel "$TDSL" s.tdsl --machine mn2 >out 2>prog ||
    fail "softmax on mn2: $(cat out prog)"
# The program twice: the assert's call and the time's.
[ "$(grep -c '^dma\.dist' prog)" = 8 ] ||
    fail "not 4 pieces in: $(grep '^dma' prog)"
[ "$(grep -c '^dma\.gather' prog)" = 8 ] ||
    fail "not 4 pieces out: $(grep '^dma' prog)"
grep -q '^    dram       65536 lw read, 65536 lw written$' out ||
    fail "the pieces move more than the tensors: $(cat out)"
c=$(sed -n 's/^    cycles  *\([0-9]*\) .*/\1/p' out)
[ -n "$c" ] && [ "$c" -le 1600 ] ||
    fail "pieces not overlapped: $c cycles (one load and one store: 1816)"
