# acc_sim.sh - `tdsl asm`, `tdsl disasm` and `tdsl sim` on hand-checked
# programs, the examples of examples/accel/: a broadcast (tiny), a
# reduction up two levels (test) and a layout conversion through DRAM
# (tiny), with .npy inputs and outputs
# and the exact cycle counts worked out by hand from ACCELERATOR.md 5.1
# (the derivations are in the comments); round trips asm -> tam ->
# asm; a hazard in strict and lenient mode; corrupt binaries.
# The three hand-checked programs are the examples in examples/accel/.
ex="$(pwd)/examples/accel"
[ -d "$ex" ] || ex="$(cd "$(dirname "$0")/../../examples/accel" && pwd)"
. "$(dirname "$0")/lib.sh"

cat >inputs.tdsl <<'TDSL'
kernel rows() -> (X: f32[16, 8]) {
    X[i, j] = f32(i * 10 + j)
}
save(rows(), "x.npy")
save(arange(f32, 8), "a.npy")
TDSL
"$TDSL" inputs.tdsl || fail "making the inputs"

# --- broadcast (tiny) ------------------------------------------------
# step 0 dma.bcast: 4 lw at 32 lw/cycle = 1 cycle + 64 latency: lands at
#   cycle 65, readable from step 17;  1 wait: stalls to step 17;
# 18 bcast.L1 (lm0 readable at 20);  19 mov;  20 add (LM at 22);  21 nop;
# 22 gather.L1 (lb at 24);  23 nop;  24 dma.gather at cycle 96: 64 lw =
#   2 cycles + 64: lands at 162;  25 wait: to step 41 (162/4 = 40.5);
# the program ends after step 41: 42 steps = 168 cycles.
cp "$ex/broadcast.s" bcast.s || fail "no example broadcast.s"
[ "$(cycles bcast.s --in A=a.npy --out C=c.npy)" = 168 ] ||
    fail "broadcast: $(cat stats)"
grep -q '^flops  *128 useful, 128 executed' stats || fail "flops: $(cat stats)"
grep -q '^link L1  *64 lw down, 64 lw up' stats || fail "links: $(cat stats)"
cat >check_bcast.tdsl <<'TDSL'
kernel want(A: f32[8]) -> (C: f32[16, 8]) {
    C[i, j] = A[j] + f32(i)
}
assert(allclose(load("c.npy"), want(load("a.npy"))))
TDSL
"$TDSL" check_bcast.tdsl || fail "broadcast values"

# --- reduction up two levels (test) ----------------------------------
# 0 mov (LM at 2);  1 nop;  2 redadd.L1: 16 lw at the BM at 4 lw/cycle
# = 4 cycles, 1 step (lb at 4);  3 nop;  4 redadd.L2: 16 lw at 16/cycle
# (lc at 7);  5-6 nop/2;  7 dma.gather at cycle 28: 32 lw, 1 cycle + 64
# = 93;  8 wait: to step 24; 25 steps = 100 cycles.  Each L2B's sum for
# PE position p: 256*l2b + 112 + 8p.
cp "$ex/reduce2.s" red2.s || fail "no example reduce2.s"
[ "$(cycles red2.s --out S=s.npy)" = 100 ] || fail "reduction: $(cat stats)"
cat >check_red.tdsl <<'TDSL'
kernel want() -> (S: f32[2, 4, 4, 2]) {
    S[b, c, p, l] = f32(256 * b + 112 + 8 * p)
}
assert(allclose(load("s.npy"), want()))
TDSL
"$TDSL" check_red.tdsl || fail "reduction values"

# --- a layout conversion through DRAM (tiny) ---------------------------
# Rows over PEs; every row moves to the PE 8 places on, in the other L1B.
# 0 dma.dist lands at 66;  1 wait to 17;  18 dist.L1 (LM at 20); 19 nop;
# 20 gather.L1 (lb at 22);  21 nop;  22 dma.st at cycle 88 (lands 153);
# 23 dma.st waits for the DMA issue interval to step 26 (cycle 104,
# lands 169);  27 wait to 43;  44 dma.ld (cycle 176, lands 241);  45
# dma.ld to step 48 (cycle 192, lands 257);  49 wait to 65;  66 dist.L1
# (LM at 68);  67-68 nop/2;  69 gather.L1 (lb at 71);  70 nop;  71
# dma.gather at cycle 284, 64 lw: lands 350;  72 wait to 88: 89 steps.
cp "$ex/convert_dram.s" conv.s || fail "no example convert_dram.s"
[ "$(cycles conv.s --in X=x.npy --out Y=y.npy)" = 356 ] ||
    fail "conversion: $(cat stats)"
grep -q 'stalled (wait 64, busy slot 0, dma issue 6)' stats ||
    fail "conversion stalls: $(cat stats)"
cat >check_conv.tdsl <<'TDSL'
kernel shift(X: f32[16, 8]) -> (Y: f32[16, 8]) {
    Y[i, j] = X[(i + 8) % 16, j]
}
assert(allclose(load("y.npy"), shift(load("x.npy"))))
TDSL
"$TDSL" check_conv.tdsl || fail "conversion values"

# --- occupancy: a busy slot stalls the next op of that slot ------------
# exp takes 4 steps: the add waits 3 (5 steps); f64 mul takes 2: the
# next MAU op waits 1 (3 steps); bcast.L2 of 256 lw at 16 lw/cycle is
# 16 cycles = 4 steps: the next L2 op waits 3, and the L2 links carry
# 2 L2Bs x 2 children x (256 + 16) = 1088 lw.
printf 'exp.f32 r[0] -> r[2]\nadd.i32 r[4], r[6] -> r[8]\n' >occ1.s
[ "$(cycles occ1.s --machine tiny)" = 20 ] || fail "exp: $(cat stats)"
grep -q 'busy slot 3' stats || fail "exp stall: $(cat stats)"
printf 'mul.f64 r[0], r[0] -> r[2]\nadd.f64 r[4], r[4] -> r[6]\n' >occ2.s
[ "$(cycles occ2.s --machine tiny)" = 12 ] || fail "f64: $(cat stats)"
printf 'bcast.L2 lc[0:256] -> lb[0]\nbcast.L2 lc[0:16] -> lb[512]\n' >occ3.s
[ "$(cycles occ3.s --machine test)" = 20 ] || fail "L2: $(cat stats)"
grep -q '^link L2  *1088 lw down, 0 lw up' stats || fail "L2: $(cat stats)"

# --- round trips -----------------------------------------------------
asm_round_trip bcast red2 conv
# The default output name, and a machine that does not match.
"$TDSL" asm bcast.s && [ -s bcast.tam ] || fail "asm without -o"
"$TDSL" sim bcast.tam --machine test 2>err && fail "wrong machine ran"
grep -q "assembled for machine 'tiny', which differs from 'test'" err ||
    fail "wrong machine: $(cat err)"

# An error inside a .rep names the iteration.
printf '.rep 4\nadd.i32 r[%%i*4+3*(%%i/3)], r[2] -> r[4]\n.endrep\n' >rep.s
"$TDSL" asm --machine tiny rep.s 2>err && fail "bad .rep assembled"
cat >want <<'TXT'
rep.s:2:1: error: address 15 of 'r' is not a multiple of 2 words (the operand is a long word)
    2 | add.i32 r[%i*4+3*(%i/3)], r[2] -> r[4]
      | ^~~
rep.s:1:1: note: in iteration 3 of this .rep (%i = 3)
    1 | .rep 4
      | ^
TXT
diff want err || fail ".rep note"

# --- hazards -----------------------------------------------------------
grep -v '^nop\|^#' bcast.s >early.s
"$TDSL" sim early.s --in A=a.npy 2>err && fail "early read ran"
cat >want <<'TXT'
early.s:9:1: error: 'lm0[0]' is read at step 21, but line 8 writes it and it is readable only from step 22: 1 more step between them
    9 | gather.L1 lm0[0+] -> lb[16]
      | ^~~~~~~~~~~~~~~~~~~~~~~~~~~
TXT
diff want err || fail "hazard message"
"$TDSL" sim early.s --in A=a.npy --lenient --stats >stats ||
    fail "lenient run"
grep -q '^hazards  *2 early reads' stats || fail "lenient: $(cat stats)"
printf 'mov.i32 #1 -> r[0]\nnop\nadd.i32 aluf, r[0] -> r[2]\n' >fwd.s
"$TDSL" sim fwd.s 2>err && fail "stale forwarding ran"
grep -q "'aluf' is read at step 2, but the ALU made no result in the step before" err ||
    fail "forwarding: $(cat err)"

# Through T, out of range; DRAM read before a DMA has written it.
printf 'mov.i32 #9999 -> t[0+]\nnop\nmov lm0[t] -> r[0]\n' >tind.s
"$TDSL" sim tind.s --machine tiny 2>err && fail "bad T address ran"
grep -q "tind.s:3:1: error: PE 0 reads lm0 through t at address 9999, out of range or not aligned" err ||
    fail "T: $(cat err)"
printf 'dma.st.t0@0 lb[0:4] -> d[0]\nnop/3\ndma.ld.t1@0 d[0:4] -> lb[8]\n' >dh.s
"$TDSL" sim dh.s --machine tiny 2>err && fail "DRAM hazard ran"
grep -q "dh.s:3:1: error: DRAM 0..4 is read at cycle 16, but the DMA of line 1 lands there only at cycle 65: wait for its tag first" err ||
    fail "DRAM hazard: $(cat err)"

# --- a machine file --------------------------------------------------
# tiny with DRAM at 1 lw/cycle: the first DMA lands at 4 + 64 = 68
# (step 17 as before); the gather of 64 lw at cycle 96 lands at
# 96 + 64 + 64 = 224, so the wait ends at step 56: 57 steps.
grep -v '^.machine' bcast.s >nomach.s
printf 'base = tiny\nname = slow\ndram_bw = 1\n' >slow.mach
[ "$(cycles nomach.s --machine slow.mach --in A=a.npy)" = 228 ] ||
    fail "machine file: $(cat stats)"
grep -q '^machine  *slow (16 PEs)' stats || fail "machine name: $(cat stats)"
printf 'base = tiny\nlm_words = 1\n' >bad.mach
"$TDSL" sim nomach.s --machine bad.mach 2>err && fail "bad machine ran"
grep -q "bad.mach:2: 'lm_words' must be an integer in 16..1048576, not '1'" err ||
    fail "bad machine: $(cat err)"

# --- corrupt binaries ---------------------------------------------------
head -c 50 conv.tam >short.tam
"$TDSL" sim short.tam 2>err && fail "truncated file ran"
grep -q "the file ends early\|larger than the file" err ||
    fail "truncated: $(cat err)"
printf 'XYZW' >magic.tam
"$TDSL" disasm magic.tam 2>err && fail "bad magic accepted"
grep -q "not a .tam file" err || fail "magic: $(cat err)"
exit 0
