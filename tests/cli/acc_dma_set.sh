# acc_dma_set.sh - `dma.bcast@{i,j,...}`, the DMA broadcast to a subset
# of the top BM nodes (MN-Core's mvb to several L2BMs, mvb2 to both of a
# group; ACCELERATOR.md 4.5): which nodes get the words, what the DRAM
# channels carry and the exact cycles, worked out by hand from
# ACCELERATOR.md 5.1 (mn2: 8 L2Bs, 4 channels, L2B i on channel i / 2,
# 32 lw a cycle per channel, a DMA lands 64 cycles after its last
# word); a strict hazard only the per-address readiness of a set
# catches; asm -> tam -> asm round trips.  The assembler's errors for a
# bad set are in acc_asm_errors.sh.
. "$(dirname "$0")/lib.sh"

printf 'save(arange(f32, 512), "a.npy")\n' >inputs.tdsl
"$TDSL" inputs.tdsl || fail "making the input"

# --- which nodes: 0, 1 and 5 of mn2's 8 L2Bs ---------------------------
# step 0 dma.bcast at cycle 0: nodes 0 and 1 share channel 0, node 5 is
#   on channel 2: 256 lw on each of the two, 8 cycles + 64: lands at 72
#   (512 lw read; a broadcast to all 8 reads 1024);  1 wait to step 18;
# 19 dma.gather at cycle 76: 2 nodes' 256 lw on every channel, 16
#   cycles + 64: lands at 156;  20 wait to step 39: 40 steps, 160 cycles.
cat >set.s <<'S'
.machine mn2
.input A f32[512] d[0]
.output C f32[8, 512] d[4096]
dma.bcast.t0@{5, 0, 1} d[0:256] -> lc[0]
wait t0
dma.gather.t1 lc[0:256] -> d[4096]
wait t1
S
[ "$(cycles set.s --in A=a.npy --out C=c.npy)" = 160 ] ||
    fail "set: $(cat stats)"
grep -q '^dram  *512 lw read, 2048 lw written' stats ||
    fail "set traffic: $(cat stats)"
cat >check.tdsl <<'TDSL'
kernel want(A: f32[512]) -> (C: f32[8, 512]) {
    C[i, j] = select(i == 0 || i == 1 || i == 5, A[j], 0.0)
}
assert(allclose(load("c.npy"), want(load("a.npy")), rtol = 0.0, atol = 0.0))
TDSL
"$TDSL" check.tdsl || fail "set values"

# --- a channel moves the words once for both of its nodes ---------------
# one.s: 256 lw on channel 0, lands at 72, wait to step 18: 76 cycles.
# two.s, the same words to nodes 0 and 1 by dma.ld: the second waits
#   for the DMA issue interval (step 4, cycle 16) and channel 0 moves
#   256 lw twice: lands at 16 + 8 + 64 = 88, wait to step 22: 92.
printf '.machine mn2\ndma.bcast.t0@{0,1} d[0:256] -> lc[0]\nwait t0\n' >one.s
printf '.machine mn2\ndma.ld.t0@0 d[0:256] -> lc[0]\n%s\nwait t0\n' \
    'dma.ld.t0@1 d[0:256] -> lc[0]' >two.s
[ "$(cycles one.s)" = 76 ] || fail "one: $(cat stats)"
grep -q '^dram  *256 lw read' stats || fail "one traffic: $(cat stats)"
[ "$(cycles two.s)" = 92 ] || fail "two: $(cat stats)"
grep -q '^dram  *512 lw read' stats || fail "two traffic: $(cat stats)"

# --- readiness: node 0's words land at 128, node 2's at 81 ---------------
# The L2 broadcast at step 22 (after `wait t1` only) reads lc[0:32] of
# every node, node 0's before they land (step 32): an error naming
# line 2, though line 4 wrote the same addresses (to node 2) since.
cat >haz.s <<'S'
.machine mn2
dma.bcast.t0@{0} d[0:2048] -> lc[0]
nop/3
dma.bcast.t1@{2} d[0:32] -> lc[0]
wait t1
bcast.L2 lc[0:32] -> lb[0]
S
"$TDSL" sim haz.s 2>err && fail "early read ran"
grep -q "'lc\[0:32\]' is read at step 22, but line 2 writes it and it is readable only from step 32" err ||
    fail "hazard: $(cat err)"
sed 's/^wait t1$/wait t0/' haz.s >nohaz.s
"$TDSL" sim nohaz.s 2>err || fail "after wait t0: $(cat err)"

# --- round trips: the set prints sorted, the binary keeps it ------------
asm_round_trip set one
grep -q '^dma.bcast.t0@{0,1,5} d\[0:256\] -> lc\[0\]$' set.dis.s ||
    fail "disasm: $(cat set.dis.s)"
# A .rep may name its nodes by its variable (each copy its own set).
printf '.machine mn2\n.rep 2\n%s\nnop/3\n.endrep\nwait t0\n' \
    'dma.bcast.t0@{%i * 4, %i * 4 + 2} d[0:64] -> lc[0]' >rep.s
"$TDSL" asm rep.s -o rep.tam || fail "asm rep"
"$TDSL" disasm rep.tam | grep -c '@{0,2}\|@{4,6}' | grep -q '^2$' ||
    fail "rep: $("$TDSL" disasm rep.tam)"
[ "$(cycles rep.s)" = "$(cycles rep.tam)" ] || fail "rep: compressed and not"
exit 0
