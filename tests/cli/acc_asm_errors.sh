# acc_asm_errors.sh - every error of the accelerator's assembler
# (codegen/acc/acc_asm*.c, acc_isa.c, acc_check.c): each line below is
# MACHINE|PROGRAM|FIRST LINE OF THE DIAGNOSTIC, the program's lines
# separated by \n.  The file is assembled with `tdsl asm --machine
# MACHINE`, which must exit 1 with exactly that first line (the caret
# lines are checked in acc_sim.sh for one case).
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
# 128 PEs under an L1B: more than a node set names.
printf '%s\n' 'base = test' 'level = L2B 2 2048' 'level = L1B 2 2048' \
    'level = MAB 32' 'level = PE 4' >wide.mach
n=0
while IFS='|' read -r mach prog want; do
    n=$((n + 1))
    printf '%b\n' "$prog" >e.s
    "$TDSL" asm --machine "$mach" e.s -o e.tam 2>err
    st=$?
    [ "$st" = 1 ] || fail "case $n ($prog): exit $st, expected 1"
    got=$(head -n 1 err | sed 's/^e\.s://')
    [ "$got" = "$want" ] ||
        fail "case $n ($prog):
  got  $got
  want $want"
    [ -e e.tam ] && fail "case $n: e.tam written despite the error"
done <<'CASES'
tiny|, foo|1:1: error: expected an instruction, found ','
tiny|frob r[0] -> r[2]|1:1: error: unknown instruction 'frob'
tiny|add.q.i32 r[0], r[2] -> r[4]|1:1: error: unexpected suffix '.q' on 'add'
tiny|bcast lb[0] -> lm0[0]|1:1: error: 'bcast' needs a level suffix: .L1 up to .L1
tiny|add/2.i32 r[0], r[2] -> r[4]|1:4: error: only nop takes a step count '/N'
tiny|nop/0|1:5: error: nop/N needs N in 1..65535
tiny|wait 3|1:6: error: expected a DMA tag t0..t255 after 'wait', found '3'
tiny|fma.f32 r[0], r[0], r[0], r[0] -> r[4]|1:26: error: too many sources (at most 3)
tiny|add.i32 r[0], r[2] -> r[4], r[6], r[8]|1:34: error: too many destinations (at most 2)
tiny|add.i32 r[0], -> r[4]|1:15: error: expected an operand, found '-'
tiny|add.i32 foo[0], r[2] -> r[4]|1:9: error: unknown operand 'foo'
tiny|add.i32 r, r[2] -> r[4]|1:10: error: expected '[' and an address, found ','
tiny|add.i32 r[0 r[2] -> r[4]|1:13: error: expected ']', found 'r'
tiny|add.i32 r[x], r[2] -> r[4]|1:11: error: expected a number, found 'x'
tiny|add.i32 r[%j], r[2] -> r[4]|1:11: error: '%j' is not a .rep variable here
tiny|add.i32 r[99999999999999], r[2] -> r[4]|1:11: error: number out of range
tiny|add.i32 r[4/0], r[2] -> r[4]|1:12: error: division by zero
tiny|add.i32 r[0], #abc -> r[4]|1:15: error: '#abc' is not a number
tiny|mov.i32 $foo -> r[4]|1:9: error: unknown id '$foo': $sub, $gpe or a level's name in lower case ($pe, $mab, ...)
tiny|mov r[0,2] -> r[4]|1:10: error: expected ',' (a flat list has 4 addresses), found ']'
tiny|dma.ld.t0@0 d[8:4] -> lb[0]|1:17: error: the end of a range must be above its start
tiny|cmplt.i32 r[0], r[2] -> m99999|1:25: error: bad mask name 'm99999'
tiny|add.i32 r[0], r[2] -> r[4]/x|1:27: error: expected a write mask '/mK' after '/'
tiny|add.i32 r[0], r[2] -> r[4]/m0|1:27: error: '/m0' is no mask: m0 is all ones, leave it out
tiny|add.i32 r[0]/m1, r[2] -> r[4]|1:1: error: a write mask belongs on a destination
tiny|add.i32 r[0], r[2] -> r[4] add.i32 r[0], r[2] -> r[6]|1:28: error: expected ';' between ops or the end of the line, found 'add.i32'
tiny|add.i32 r[1], r[2] -> r[4]|1:1: error: address 1 of 'r' is not a multiple of 2 words (the operand is a long word)
tiny|add.i32 lm0[600], r[2] -> r[4]|1:1: error: address 600 of 'lm0' is out of range: it holds 512 words
tiny|add.i32 lb[0], r[2] -> r[4]|1:1: error: 'lb' cannot be read here: a PE operand (lm0, lm1, r, s, t, aluf, mauf, lbf) is wanted
tiny|add.i32 r[0], r[2] -> aluf|1:1: error: 'aluf' cannot be written: a destination is lm0, lm1, r, s or t
tiny|mov lm0[0] -> lm0[t]|1:1: error: writing through t is not possible (a gather reads through t)
tiny|add.i32 r[0], r[2] -> r[4]/m16|1:1: error: mask m16 does not exist: the machine has m0..m15
tiny|bcast.L1 r[0] -> lm0[0]|1:1: error: a BM operand of level L1 is wanted here (lb[...])
tiny|bcast.L1 lb[254] -> lm0[0+]|1:1: error: BM range 254..258 is out of L1's 256 long words
tiny|dma.ld.t0@0 lb[0:4] -> lb[0]|1:1: error: a DRAM operand d[...] is wanted here
tiny|dma.ld.t0@0 d[65534:65538] -> lb[0]|1:1: error: DRAM range 65534..65538 is out of the machine's 65536 long words
tiny|add.i32 r[0] -> r[4]|1:1: error: 'add' takes 2 sources, not 1
tiny|add r[0], r[2] -> r[4]|1:1: error: 'add' needs an element type suffix (.f64 .f32 .f16 .bf16 .i32 .i16)
tiny|and.f32 r[0], r[2] -> r[4]|1:1: error: 'and' works on integer types, not f32
tiny|add.i32 r[0], r[2].dd -> r[4]|1:1: error: address 2 of 'r' is not a multiple of 4 words (the operand is a double long word)
tiny|add.i32 r[0], $pe -> r[4]|1:1: error: an id operand ($...) is only the first source of an ALU op
tiny|add.i32 #1, r[0] -> r[4]|1:1: error: an immediate is only the second source of an ALU op (or the source of mov)
tiny|cmplt.i32 r[0], r[2] -> r[4]|1:1: error: a compare writes a mask m1..m15
tiny|sel.i32 r[0], r[2], r[4] -> r[6]|1:1: error: the first source of sel is a mask mK
tiny|cvt.f32.f16 r[0] -> r[4]|1:1: error: cvt's source and destination must hold the same number of elements (use .dd on the wider side)
tiny|mwrite.i32 r[0] -> x|1:1: error: the matrix unit works on f64, f32, f16 or bf16
tiny|mfma.f32 r[0], r[0], r[0] -> r[4]|1:1: error: a matrix register (x or y) is wanted here
tiny|mwrite.f32 r[0] -> x[9]|1:1: error: row 9 is out of the 8 rows of the f32 matrix
tiny|mmul.f16 x, r[0] -> r[4]|1:1: error: f16 and bf16 matrix products give f32 results: the destination must be .dd
tiny|bcast.L3 lb[0] -> lm0[0]|1:1: error: this machine has no level L3 (it has L1..L1)
tiny|ucast.L1 r[0] -> lb[0]|1:1: error: ucast needs @CHILD, 0..1
tiny|bcast.L1@1 lb[0] -> r[0]|1:1: error: only ucast takes @CHILD
test|mbcast.L2 lc[0:8] -> lb[0]|1:1: error: mbcast exists only at L1
tiny|bcast.L1 lb[0:4] -> r[0]|1:1: error: an L1 transfer takes no length: the PE operand's width gives it
test|bcast.L2 lc[0] -> lb[0]|1:1: error: a transfer between BMs needs a length on its source, as in lc[0:64]
test|bcast.L2 lc[0:4] -> lb[0:4]|1:1: error: the destination takes a start only
test|dist.L2 lc[0:3] -> lb[0]|1:1: error: dist splits 3 long words over 2 children: not a multiple
tiny|dma.ld.t0 d[0:4] -> lb[0]|1:1: error: 'dma.ld' needs @NODE, the L1 node, 0..1
tiny|dma.bcast.t0@1 d[0:4] -> lb[0]|1:1: error: only dma.ld and dma.st take @NODE
tiny|dma.bcast.t0 d[0] -> lb[0]|1:1: error: a DMA needs a length on its source, as in d[0:64]
tiny|dma.bcast.t0@{0,2} d[0:4] -> lb[0]|1:17: error: no node 2 at level L1B: this machine has nodes 0..1 there
mn2|dma.bcast.t0@{7, 1, 7} d[0:4] -> lc[0]|1:21: error: node 7 twice in the set
tiny|dma.bcast.t0@{} d[0:4] -> lb[0]|1:14: error: an empty node set: name at least one node
tiny|dma.bcast.t0@{0 d[0:4] -> lb[0]|1:17: error: expected ',' or '}' in the node set, found 'd'
tiny|dma.dist.t0@{0} d[0:4] -> lb[0]|1:13: error: only the down transfers (bcast, dist, mbcast) and dma.bcast take a node set @{...}
tiny|gather.L1@{1} r[0] -> lb[0]|1:11: error: only the down transfers (bcast, dist, mbcast) and dma.bcast take a node set @{...}
test|bcast.L1@{16} lb[0] -> r[0]|1:11: error: no PE 16 under an L1B: it has PEs 0..15
test|mbcast.L1@{1, 4} lb[0] -> r[0]|1:15: error: no MAB 4 under an L1B: it has MABs 0..3
test|dist.L2@{2} lc[0:8] -> lb[0]|1:10: error: no L1B 2 under an L2B: it has L1Bs 0..1
wide.mach|bcast.L1@{0} lb[0] -> r[0]|1:10: error: a node set takes at most 64 nodes; an L1B has 128 PEs
test|bcast.L3@{0} lc[0:8] -> lb[0]|1:1: error: this machine has no level L3 (it has L1..L2)
tiny|nop r[0]|1:1: error: control ops take no operands
tiny|add.i32 r[0], r[2] -> r[4] ; sub.i32 r[0], r[2] -> r[6]|1:30: error: two ALU ops in one bundle: a slot takes one op per step
tiny|add.i32 r[0], r[2] -> r[4] ; add.f32 r[6], r[8] -> r[10]|1:30: error: 'r' is read at three address patterns in one bundle: a GRF bank has two read ports
tiny|add.f32 r[0], r[2] -> r[4] ; mwrite.f16 r[0] -> x|1:30: error: the matrix unit runs one precision per step: 'f32' and 'f16' in one bundle
tiny|mov.i32 #1.5e400 -> r[0]|1:9: error: '#1.5e400' is not a number
tiny|mov #3 -> r[0]|1:1: error: 'mov' needs an element type suffix (.f64 .f32 .f16 .bf16 .i32 .i16)
tiny|add.i32 lb[0], r[2] -> r[4]|1:1: error: 'lb' cannot be read here: a PE operand (lm0, lm1, r, s, t, aluf, mauf, lbf) is wanted
tiny|bcast.L1@1 lb[0] -> r[0]|1:1: error: only ucast takes @CHILD
tiny|dma.bcast.t0@1 d[0:4] -> lb[0]|1:1: error: only dma.ld and dma.st take @NODE
tiny|add.i32 r[0], r[2] -> r[4] ; add.f32 r[0], r[2] -> r[4]|1:30: error: 'r' is written twice in one bundle
tiny|add.i32 lm0[0], r[2] -> r[4] ; add.f32 lm0[4], s[2] -> r[8]|1:32: error: 'lm0' is accessed at two address patterns in one bundle: an LM bank has one port per step
tiny|add.i32 r[0], r[2] -> r[4] ; add.f32 r[6], s[8] -> r[10]|1:30: error: 'r' is read at three address patterns in one bundle: a GRF bank has two read ports
tiny|add.f32 r[0], r[2] -> r[4] ; mwrite.f16 lm1[0] -> x|1:30: error: the matrix unit runs one precision per step: 'f32' and 'f16' in one bundle
tiny|fma.f32 lm0[0], lm0[8], r[0] -> r[4]|1:1: error: 'lm0' is accessed at two address patterns in one bundle: an LM bank has one port per step
tiny|.rep 2\nnop|1:1: error: '.rep' without '.endrep'
tiny|nop\n.endrep|2:1: error: '.endrep' without '.rep'
tiny|.rep -1\nnop\n.endrep|1:8: error: .rep count -1 is out of 0..100000000
tiny|.frob|1:1: error: unknown directive '.frob' (.machine, .input, .output, .image, .assert, .rep, .endrep, .macro, .endm)
tiny|nop\n.machine tiny|2:1: error: '.machine' must come before the first bundle
tiny|.machine test\nnop|1:10: error: the program is written for machine 'test' but runs on 'tiny'
tiny|.input A f32[4] d[0]\n.input A f32[4] d[8]|2:8: error: 'A' is declared twice (a copy of an input needs an image of its own: 'image N')
tiny|.input A f32[4] d[0]\n.input A f32[2] d[8] image 2|2:8: error: 'A' is declared before with another type (a copy of an input has its type)
tiny|.output A f32[4] d[0]\n.input A f32[4] d[8] image 4|2:8: error: 'A' is declared twice
tiny|.input A q32[4] d[0]|1:9: error: unknown element type 'q32'
tiny|.input A f32 d[0]|1:14: error: expected '[' and the shape, found 'd'
tiny|.input A f32[4] e[0]|1:17: error: expected where it lives in DRAM, d[ADDR], found 'e'
tiny|.input A f32[4] d[65535]|1:16: error: 'A' needs DRAM long words 65535..65537, out of the machine's 65536
tiny|.input A f32[4] d[0] foo 3|1:22: error: expected the end of the line or 'image N', found 'foo'
tiny|.input A f32[4] d[0] image 0|1:21: error: bad image size 0
tiny|.image A from 0 step 1 count 4|1:7: error: 'A' is not declared before with an image (.input/.output A TYPE d[ADDR] image N)
tiny|.input A f32[4] d[0] image 4\n.image A from 0 step 1 count 3|1:1: error: the image of 'A': its runs hold 3 positions, not the image's 4
tiny|.input A f32[4] d[0] image 4\n.image A from 2 step 1 count 4|1:1: error: the image of 'A': a run names elements 2..5 of 4
tiny|.output C f32[4] d[0] image 4\n.image C pad 0 count 4|1:1: error: the image of 'C': element 0 of the output is in no run
tiny|.output C f32[4] d[0] image 2\n.image C from 0 step 1 count 2|1:1: error: the image of 'C': an output of 4 elements in an image of 2
tiny|.input A f32[4] d[0] image 4\n.image A pad x count 4|2:14: error: expected the pad's value, found 'x'
tiny|.input A f32[4] d[0] image 4\n.image A from 0 step 1 count 0|2:7: error: a run of 1 x 0 positions
tiny|.input A f32[4] d[0] image 4\n.image A from 0 count 4|2:17: error: expected 'step' and a number, found 'count'
tiny|.input A f32[4] d[0] image 4\n.image A from -1 step 1 count 4|2:7: error: a run from element -1
tiny|.input A f32[4] d[0] image 4\n.image A from 0 step 1099511627776 count 4|1:1: error: the image of 'A': a run's elements out of range
tiny|.input A f32[4] d[0] image 4\n.image A from 0 step 1 count 4 reps 2|2:38: error: expected 'rstep' and a number, found the end of the line
tiny|.macro add x\nnop\n.endm|1:8: error: 'add' is already an instruction
tiny|.macro m x\nnop\n.endm\nm|4:1: error: macro 'm' takes 1 argument, not 0
tiny|.macro m\nm\n.endm\nm|4:1: error: macros nested too deeply (at most 16): is 'm' calling itself?
tiny|.macro m x\nadd.i32 %x, r[2] -> r[4]\n.endm\nm r[1]|4:1: error: address 1 of 'r' is not a multiple of 2 words (the operand is a long word)
tiny|.rep 2\nadd.i32 r[%i], r[2] -> r[4]\n.endrep|2:1: error: address 1 of 'r' is not a multiple of 2 words (the operand is a long word)
CASES
[ "$n" -gt 80 ] || fail "only $n cases ran"
exit 0
