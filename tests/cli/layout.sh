# layout.sh - `tdsl layout`: the text grid of a layout (golden), a
# conversion's plan and cost (golden), the SVG picture, the layout
# statements of a file, and one refusal per layout diagnostic, each at
# its place in the --layout text.
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1

# golden NAME ARGS...: tdsl layout ARGS prints exactly NAME.want.
golden() {
    n=$1
    shift
    "$TDSL" layout "$@" >"$n.out" 2>"$n.err" ||
        fail "$n: exit $?: $(cat "$n.err")"
    diff -u "$n.want" "$n.out" || fail "$n: output differs"
}

cat >grid.want <<'OUT'
f32 tensor on machine 'tiny': lm0[2:6], (4,8)/((2_L1B:1, 2:1), (2_PE:1, 2:2, 2_W:1)); B@[MAB]
32 elements, 2 copies each; 8 of 16 PE nodes hold some, 4 long words each (lm0 2..5)

L1B 0, MAB 0
 lm0 | PE 0    | PE 1    | PE 2    | PE 3
   2 | 0,0 0,1 | 0,4 0,5 |   .   . |   .   .
   3 | 1,0 1,1 | 1,4 1,5 |   .   . |   .   .
   4 | 0,2 0,3 | 0,6 0,7 |   .   . |   .   .
   5 | 1,2 1,3 | 1,6 1,7 |   .   . |   .   .

L1B 0, MAB 1
 lm0 | PE 0    | PE 1    | PE 2    | PE 3
   2 | 0,0 0,1 | 0,4 0,5 |   .   . |   .   .
   3 | 1,0 1,1 | 1,4 1,5 |   .   . |   .   .
   4 | 0,2 0,3 | 0,6 0,7 |   .   . |   .   .
   5 | 1,2 1,3 | 1,6 1,7 |   .   . |   .   .

(2 more blocks hold elements)
OUT
golden grid --shape 'f32[4,8]' --machine tiny --blocks 2 \
    --layout 'lm0[2:6], (4,8)/((2_L1B, 2:1), (2_PE, 2:2, 2_W)); B@[MAB]'

cat >conv.want <<'OUT'
f32 tensor on machine 'tiny': lm0[0:4], (4,8)/((2_L1B:1, 2:1), (2_PE:1, 2:2, 2_W:1)); B@[MAB]
32 elements, 2 copies each; 8 of 16 PE nodes hold some, 4 long words each (lm0 0..3)

L1B 0, MAB 0
 lm0 | PE 0    | PE 1    | PE 2    | PE 3
   0 | 0,0 0,1 | 0,4 0,5 |   .   . |   .   .
 ... (3 more long words)

(3 more blocks hold elements)
conversion to lm0[0:2], (4,8)/((2_L1B:1, 2_PE:1), (2_MAB:1, 2:1, 2_W:1))
32 element copies; where source and destination meet:
  same PE            16  (4 in place)
  same MAB           16
step    link                      words   max/node    nodes chunks     cycles
local   inside each PE                6          2        4      1          2
rotate  inside each MAB              16          6        4      1          2
total: 4 cycles one step after the other, 2 if the steps overlapped perfectly
OUT
golden conv --shape 'f32[4,8]' --machine tiny --blocks 1 --rows 1 \
    --layout '((2_L1B, 2:1), (2_PE, 2:2, 2_W)); B@[MAB]' \
    --to '((2_L1B, 2_PE), (2_MAB, 2, 2_W))'

# Through DRAM on test: rows over L2B -> columns over L2B.
"$TDSL" layout --shape 'f32[64,64]' --rows 1 --blocks 1 \
    --layout '((2_L2B, 2_L1B, 16), (4_MAB, 4_PE, 2, 2_W))' \
    --to '((2_L1B, 4_MAB, 8), (2_L2B, 4_PE, 4, 2_W))' >dram.out ||
    fail "dram: exit $?"
for t in '^store   top BMs -> DRAM' '^load    DRAM -> top BMs' \
         '^  root  *2048$'; do
    grep -q "$t" dram.out || fail "dram: no '$t' in: $(cat dram.out)"
done

# SVG: a document with one cell per sub-word.
"$TDSL" layout --shape 'f16[4,8]' --machine tiny --svg p.svg \
    --layout '((4_PE), (2, 4_W))' >/dev/null || fail "svg: exit $?"
grep -q '^<svg ' p.svg && grep -q '^</svg>$' p.svg || fail "svg: not svg"
n=$(grep -c '<rect x=' p.svg)
[ "$n" = 32 ] || fail "svg: $n cells, expected 32 (4 PEs x 2 lw x 4)"

# A file: the layout statement of the tensor, sizes from the others.
cat >mm.tdsl <<'TDSL'
kernel mm(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
    C[i, j] = sum(k) A[i, k] * B[k, j]
}
schedule mm for accel {
    layout A: [i@L2B, k@L1B, i@PE, k@W]
    layout B: ((2_L2B, 4), (4_PE, 4, 2_W)); B@[MAB]
    layout C: ((2_L2B, 2_L1B, 4), (4_MAB, 4_PE, 2_W))
}
TDSL
"$TDSL" layout mm.tdsl --kernel mm --tensor A --rows 0 --blocks 1 >a.out ||
    fail "file: exit $?"
grep -q "lm0\[0:4\], (16,8)/((2_L2B:1, 4_PE:1, 2:2), (2_L1B:1, 2_W:1, 2:1))" \
    a.out || fail "file: $(cat a.out)"
grep -q '^   2 |  1,0  1,2 |  3,0  3,2 |  5,0  5,2 |  7,0  7,2$' a.out ||
    fail "file grid: $(cat a.out)"

# --asm: the conversion as assembly the simulator runs.
"$TDSL" layout --shape 'f32[4,8]' --machine tiny \
    --layout '((2_L1B, 2:1), (2_PE, 2:2, 2_W))' \
    --to '((2_MAB, 2), (4_PE, 2_W))' --asm conv.s >/dev/null ||
    fail "asm: exit $?"
grep -q '^dist.L1 lb\[0\] -> lm0\[0+\]$' conv.s || fail "asm: $(cat conv.s)"
"$TDSL" sim conv.s --machine tiny >sim.out 2>&1 || fail "sim: $(cat sim.out)"

# refused STATUS MESSAGE ARGS...: tdsl layout ARGS exits STATUS and
# says MESSAGE.
refused() {
    want=$1 msg=$2
    shift 2
    "$TDSL" layout "$@" >out 2>err
    st=$?
    [ "$st" = "$want" ] || fail "$*: exit $st, expected $want: $(cat err)"
    grep -qF -- "$msg" err || fail "$*: no '$msg' in: $(cat err)"
    grep -q 'internal error' err && fail "$*: internal error"
    return 0
}
L=--layout
refused 1 "--layout:1:3: error: expected a factor ('4', '2_PE', '2_W') in a layout; found 'x'" $L '((x))'
refused 1 "--layout:1:8: error: a layout factor's size must be at least 1" $L '((4), (0))'
refused 1 "--layout:1:1: error: unknown memory space 'q0'; expected lm0, lm1, r, s, lb, lc or d" $L 'q0[0:4], ((4))'
refused 1 "--layout:1:1: error: the placement [4:4] holds no address" $L 'lm0[4:4], ((4))'
refused 1 "--layout:1:3: error: machine 'test' has no level 'L3B' (its levels: L2B, L1B, MAB, PE)" $L '((2_L3B, 4))'
refused 1 "--layout:1:3: error: the layout has 2 axes, but the tensor has 1" --shape 'f32[8]' $L '((8), (8))'
refused 1 "--layout:1:1: error: the layout is written for shape (8), but the tensor has shape (4)" --shape 'f32[4]' $L '(8)/((8))'
refused 1 "--layout:1:9: error: the factors of axis 'i' multiply to 16, but the axis has 8 elements" $L '(8,8)/((2_L2B, 8), (8))'
refused 1 "--layout:1:3: error: '8_MAB:1' reaches MAB index 7, but machine 'test' has 4 MAB nodes per parent" $L '((8_MAB, 4))'
refused 1 "--layout:1:3: error: sub-words reach index 1, but a long word holds 1 f64 elements" --shape 'f64[8]' $L '((2_W, 4))'
refused 1 "--layout:1:1: error: the layout reaches address 4095 of 'lm0', which holds 2048 long words on machine 'test'" $L 'lm0[0:8], (4096)/((4096))'
refused 1 "--layout:1:1: error: the layout reaches address 15, past the end of its placement 'lm0[0:8]'" $L 'lm0[0:8], (16)/((16))'
refused 1 "--layout:1:16: error: a tensor in 'lb' cannot be split over 'PE'" $L 'lb[0:8], (8)/((2_PE, 4))'
refused 1 "--layout:1:3: error: elements (1) and (2) both land on L2B 0, L1B 0, MAB 0, PE 1, lm0 address 0, word 0" $L '((2_PE:1, 2_PE:1))'
refused 1 "--layout:1:18: error: 'MAB' is both split over and copied over (B@[...])" $L '((2_MAB, 4)); B@[MAB]'
refused 1 "--layout:1:15: error: 'PE' appears twice in B@[...]" $L '((4)); B@[PE, PE]'
refused 1 "--layout:1:15: error: 'x' is not an axis of the tensor (its axes: i, j)" $L '(8,8)/[i@L2B, x@PE]'
refused 1 "--layout:1:8: error: axis 'i' has 6 elements, which 'i@PE' (4 positions) cannot split evenly" $L '(6,8)/[i@PE]'
refused 1 "--to:1:3: error: the factors of axis 'i' multiply to 8, but the axis has 4 elements" --shape 'f32[4,8]' $L '((4), (8))' --to '((4_PE, 2), (8))'
refused 1 "cannot write the conversion as instructions yet: the long words must hold row-major neighbours" --shape 'f32[4,8]' --machine tiny $L '((4_PE), (8))' --to '((4), (2_W, 4_PE))' --asm c.s
refused 2 "layout: --asm writes the conversion of --to" $L '((4))' --asm c.s
refused 1 "--layout:1:12: error: the tensor has more elements than the 268435456 a layout can have" $L '((65536), (65536, 2_W))'
refused 2 "layout: unknown option '--bogus'" --bogus
refused 2 "layout: --shape needs a dtype and sizes" --shape 128 $L '((4))'
printf "kernel k(X: f32[N]) -> (Y: f32[N]) {\n    Y[i] = X[i] * 2.0\n}\nschedule k for accel {\n    layout X: [i@PE]\n}\n" >k.tdsl
refused 2 "the size of axis 0 of 'X' is not known; give it with --size N=N" k.tdsl --kernel k --tensor X
