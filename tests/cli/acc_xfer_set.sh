# acc_xfer_set.sh - node sets on the down transfers of the BM levels
# (`bcast.Lk@{i, j, ...}`, `dist`, `mbcast`; ACCELERATOR.md 4.5's child
# subset, MN-Core's l2bmb@): which children get the words, the words
# on each link, the exact cycles worked out by hand from ACCELERATOR.md
# 5.1 (`test`: 2 L2Bs of 2 L1Bs of 4 MABs of 4 PEs, one DRAM channel of
# 32 lw a cycle, a DMA lands 64 cycles after its last word, L2
# latency 3 steps), a dist's BM side that reads only the set's slices,
# a corrupt binary's set, and asm -> tam -> asm round trips.  The
# assembler's errors for a bad set are in acc_asm_errors.sh.
. "$(dirname "$0")/lib.sh"

printf 'save(arange(f32, 128), "a.npy")\n' >inputs.tdsl
"$TDSL" inputs.tdsl || fail "making the input"

# --- L1: PEs 0 and 5, MAB 3, PE 15 of every L1B ---------------------------
# A (64 lw) to every L2B and L1B, then each set's PEs take lb words
# into r (bcast: lb[c] in sub-cycle c; mbcast: lb[4c + p] in PE p of
# the MAB; dist: lb[4i + c] in PE i), the rest keep their zeros; the
# gathers bring all back.  Steps: dma.bcast at 0 lands at cycle 66
# (64 lw / 32 + 64), so `wait t0` (step 1) stalls 16 steps and the
# bundles run on from step 18; gather.L2 at step 30 (384 lw at the BM
# side 64/cycle, 192 at the child side 8/cycle: 24 cycles, 6 steps)
# is readable from step 38, where dma.gather starts (cycle 152: 768 lw,
# 24 cycles + 64, lands at 240), `wait t1` stalls steps 39..59: 61
# steps, 244 cycles.  L1 down: 4 L1Bs x (2 PEs + 4 PEs + 1 PE) x 4
# sub-cycles = 112 lw (448 without the sets).
cat >l1.s <<'S'
.machine test
.input A f32[128] d[0]
.output C f32[2, 2, 3, 16, 4, 2] d[4096]
dma.bcast.t0 d[0:64] -> lc[0]
wait t0
bcast.L2 lc[0:64] -> lb[0]
nop/2
bcast.L1@{5, 0} lb[0] -> r[0+]
mbcast.L1@{3} lb[0] -> r[8+]
dist.L1@{15} lb[0] -> r[16+]
nop
gather.L1 r[0+] -> lb[64]
gather.L1 r[8+] -> lb[128]
gather.L1 r[16+] -> lb[192]
nop/2
gather.L2 lb[64:256] -> lc[64]
nop/7
dma.gather.t1 lc[64:448] -> d[4096]
wait t1
S
[ "$(cycles l1.s --in A=a.npy --out C=c.npy)" = 244 ] ||
    fail "l1: $(cat stats)"
grep -q '^link L1  *112 lw down, 768 lw up$' stats ||
    fail "l1 traffic: $(cat stats)"
cat >check1.tdsl <<'TDSL'
kernel want(A: f32[128]) -> (C: f32[2, 2, 3, 16, 4, 2]) {
    C[n, l, r, i, c, e] = select(r == 0,
        select(i == 0 || i == 5, A[2 * c + e], 0.0),
        select(r == 1, select(i / 4 == 3, A[2 * (4 * c + i % 4) + e], 0.0),
            select(i == 15, A[2 * (60 + c) + e], 0.0)))
}
assert(allclose(load("c.npy"), want(load("a.npy")), rtol = 0.0, atol = 0.0))
TDSL
"$TDSL" check1.tdsl || fail "l1 values"

# --- L2: L1B 1 takes the bcast, L1B 0 the first half of the dist ---------
# In every L2B: L1B 0 gets A's first 32 lw at lb[64], L1B 1 all of A
# at lb[0]; the gather brings both L1Bs' lb[0:96] up.  Steps: the bcast
# and the dist at 18 and 19 (64 lw at 16/cycle: 1 step; 32 lw to one
# child at 8/cycle: 1 step), readable from 22 and 23; gather.L2 at 23
# (384 lw at 64, 192 at 8: 6 steps), readable from 31, dma.gather at 31
# (cycle 124: 384 lw, 12 cycles + 64: lands at 200), wait stalls 32..49:
# 51 steps, 204 cycles.  L2 down: 2 L2Bs x (64 + 32) = 192 lw (384
# without the sets).
cat >l2.s <<'S'
.machine test
.input A f32[128] d[0]
.output C f32[2, 2, 96, 2] d[4096]
dma.bcast.t0 d[0:64] -> lc[0]
wait t0
bcast.L2@{1} lc[0:64] -> lb[0]
dist.L2@{0} lc[0:64] -> lb[64]
nop/3
gather.L2 lb[0:96] -> lc[64]
nop/7
dma.gather.t1 lc[64:256] -> d[4096]
wait t1
S
[ "$(cycles l2.s --in A=a.npy --out C=c.npy)" = 204 ] ||
    fail "l2: $(cat stats)"
grep -q '^link L2  *192 lw down, 384 lw up$' stats ||
    fail "l2 traffic: $(cat stats)"
cat >check2.tdsl <<'TDSL'
kernel want(A: f32[128]) -> (C: f32[2, 2, 96, 2]) {
    C[n, l, w, e] = select(l == 1 && w < 64, A[2 * w + e],
        select(l == 0 && w >= 64, A[2 * (w - 64) + e], 0.0))
}
assert(allclose(load("c.npy"), want(load("a.npy")), rtol = 0.0, atol = 0.0))
TDSL
"$TDSL" check2.tdsl || fail "l2 values"

# --- a dist to a set reads only the set's slices -------------------------
# With the L2 dist's BM side at 4 lw a cycle, dist.L2 of 64 lw takes 16
# cycles (4 steps) to both L1Bs, 8 (2 steps) to one: the second dist
# waits 3 steps for the slot, or 1.  dma.bcast lands at cycle 66, the
# wait stalls 16 steps; 1 + 17 + 1 + 3 + 1 + 2 = 25 steps (100 cycles),
# or 23 (92).
printf 'base = test\nL2B.dist = 4 64\n' >slow.mach
for s in '' '@{0}'; do
    printf '%s\n' 'dma.bcast.t0 d[0:64] -> lc[0]' 'wait t0' \
        "dist.L2$s lc[0:64] -> lb[0]" "dist.L2$s lc[0:64] -> lb[32]" \
        'nop/2' >"d$s.s"
done
[ "$(cycles d.s --machine slow.mach)" = 100 ] || fail "dist: $(cat stats)"
[ "$(cycles 'd@{0}.s' --machine slow.mach)" = 92 ] ||
    fail "dist to a set: $(cat stats)"

# --- round trips: the sets print sorted, the binary keeps them -----------
asm_round_trip l1 l2
grep -q '^bcast.L1@{0,5} lb\[0\] -> r\[0+\]$' l1.dis.s ||
    fail "disasm: $(cat l1.dis.s)"
grep -q '^bcast.L2@{1} lc\[0:64\] -> lb\[0\]$' l2.dis.s ||
    fail "disasm: $(cat l2.dis.s)"

# --- a corrupt binary: a set past the children ----------------------------
# bcast.L2@{1} on `test` (2 L1Bs under an L2B), its set's byte made 4:
# the reader checks it as the assembler does.
printf '.machine test\nbcast.L2@{1} lc[0:8] -> lb[0]\n' >one.s
"$TDSL" asm one.s -o one.tam || fail "asm one"
command -v python3 >/dev/null 2>&1 || exit 0
python3 - <<'PY' || fail "patching one.tam"
b = bytearray(open("one.tam", "rb").read())
# level 2, 1 source, 1 destination, tag 0, child -1, 1 step, set 2
at = b.find(bytes([2, 1, 1, 0, 0xff, 0xff, 1, 0, 2]))
assert at >= 0 and b.find(bytes([2, 1, 1, 0, 0xff, 0xff, 1, 0, 2]), at + 1) < 0
b[at + 8] = 4
open("bad.tam", "wb").write(bytes(b))
PY
"$TDSL" disasm bad.tam 2>err && fail "a set past the children read"
grep -q 'a node set past the 2 L1Bs under one L2B (corrupt)' err ||
    fail "corrupt set: $(cat err)"
exit 0
