#!/bin/sh
# onnx_seq_io.sh - sequences as graph inputs and outputs: a sequence
# input is bound at import to a SequenceProto .pb file (which fixes its
# length and shapes) and becomes a kernel parameter per element; a
# sequence output is a kernel output per element.  `tdsl run` reads and
# writes those files, positionally and by ONNX name, on the
# interpreter and on cpu, and `tdsl import --compare --sequence`
# compares them element by element.  SequenceMap, an empty sequence
# input, a Loop carrying a sequence, Identity of a sequence.  Then the
# refusals, each with its one line, and malformed SequenceProto files.
# Models and data from tests/onnx/seqio_cases.py; skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
$py "$OLDPWD/tests/onnx/seqio_cases.py" "$TMP" 2>err ||
    fail "seqio_cases.py: $(cat err)"

# 0: SequenceMap over a sequence and a tensor, SequenceLength, Identity.
"$TDSL" import m0.onnx -o e0.tdsl --bind x.s=m0_in0.pb 2>err ||
    fail "import m0: $(cat err)"
"$TDSL" fmt --check e0.tdsl || fail "e0.tdsl is not canonical"
grep -q "^# onnx-sequence-input #0: 'x.s' = x_s_0, x_s_1, x_s_2$" e0.tdsl ||
    fail "no sequence input line: $(cat e0.tdsl)"
grep -q "^kernel g(x_s_0: f32\[2, 3\], x_s_1: f32\[1, 3\], x_s_2: f32\[4, 3\]" \
    e0.tdsl || fail "not a parameter per element: $(cat e0.tdsl)"
for target in interp cpu; do
    rm -f o*.pb o*.npy
    "$TDSL" run e0.tdsl --in m0_in0.pb --in m0_in1.pb --out o0.pb \
        --out o1.npy --out o2.pb --target $target 2>err ||
        fail "run m0 on $target: $(cat err)"
    "$TDSL" import --compare --sequence o0.pb m0_out0.pb 2>err ||
        fail "m0 on $target, ys: $(cat err)"
    "$TDSL" import --compare o1.npy m0_out1.pb 2>err ||
        fail "m0 on $target, n: $(cat err)"
    "$TDSL" import --compare --sequence o2.pb m0_out2.pb 2>err ||
        fail "m0 on $target, same: $(cat err)"
done
# By ONNX names ('x.s' is no identifier), in another order.
rm -f o*.pb
"$TDSL" run e0.tdsl --in t=m0_in1.pb --in x.s=m0_in0.pb --out same=s.pb \
    --out ys=y.pb --out n=n.npy 2>err || fail "named run: $(cat err)"
"$TDSL" import --compare --sequence y.pb m0_out0.pb 2>err ||
    fail "named run, ys: $(cat err)"
"$TDSL" import --compare --sequence s.pb m0_out2.pb 2>err ||
    fail "named run, same: $(cat err)"

# 1: an empty sequence input (no parameter), SequenceInsert, a Loop that
# carries the sequence and reads another, ConcatFromSequence.
"$TDSL" import m1.onnx -o e1.tdsl --bind e=m1_in0.pb --bind '#2=m1_in2.pb' \
    2>err || fail "import m1: $(cat err)"
grep -q "^# onnx-sequence-input #0: 'e' =$" e1.tdsl ||
    fail "no empty sequence line: $(cat e1.tdsl)"
for target in interp cpu; do
    "$TDSL" run e1.tdsl --in m1_in0.pb --in m1_in1.pb --in m1_in2.pb \
        --out o0.pb --out o1.npy --target $target 2>err ||
        fail "run m1 on $target: $(cat err)"
    "$TDSL" import --compare --sequence o0.pb m1_out0.pb 2>err ||
        fail "m1 on $target, s2: $(cat err)"
    "$TDSL" import --compare o1.npy m1_out1.pb 2>err ||
        fail "m1 on $target, cat: $(cat err)"
done

# The comparison itself: other lengths, other values.
"$TDSL" import --compare --sequence two.pb three.pb 2>err &&
    fail "2 and 3 elements compare equal"
[ "$(cat err)" = "tdsl: 'two.pb' holds 2 tensors, 'three.pb' 3" ] ||
    fail "compare lengths: $(cat err)"
"$TDSL" import --compare --sequence m0_out0.pb m0_out2.pb 2>err &&
    fail "different sequences compare equal"
grep -q "^tdsl: (element 0)$" err || fail "compare values: $(cat err)"

# Refused at import.
import_says "m0.onnx: input 'x.s' is a sequence; give its elements with \
--bind x.s=FILE.pb (an ONNX SequenceProto)" m0.onnx
import_says "m0.onnx: --bind x.s: element 0 holds i64 values but the \
sequence is of f32" m0.onnx --bind x.s=ints.pb
import_says "r_emptyout.onnx: graph output 'y' is an empty sequence (a \
kernel output per element: there is none)" r_emptyout.onnx
import_says "r_nested.onnx: input 'xs': only sequences of tensors are \
supported" r_nested.onnx
import_says "r_optional.onnx: input 'o' is optional; give it with --bind \
o=FILE.pb (an ONNX OptionalProto)" r_optional.onnx
import_says "r_mapnotseq.onnx: node 'y' (SequenceMap, opset 17): input \
'x' is not a sequence" r_mapnotseq.onnx
import_says "r_maplen.onnx: node 'y' (SequenceMap, opset 17): the \
sequences have 3 and 2 elements" r_maplen.onnx --bind xs=three.pb \
    --bind ys=two.pb
import_says "r_mapins.onnx: node 'y' (SequenceMap, opset 17): the \
subgraph 'body1' has 1 inputs; 2 expected" r_mapins.onnx --bind xs=two.pb \
    --bind ys=two.pb
import_says "r_mapseq.onnx: node 'y' (SequenceMap, opset 17): the body's \
output 'r@0' is a sequence" r_mapseq.onnx --bind xs=two.pb

# Malformed SequenceProto files, at import and at run.
import_says "m0.onnx: --bind x.s: 'bad_garbage.pb': not an ONNX \
SequenceProto (the protobuf does not decode)" m0.onnx \
    --bind x.s=bad_garbage.pb
import_says "m0.onnx: --bind x.s: 'bad_notype.pb': not an ONNX \
SequenceProto: it has no elem_type" m0.onnx --bind x.s=bad_notype.pb
import_says "m0.onnx: --bind x.s: 'bad_map.pb': a sequence of elem_type \
4: only sequences of tensors (1) are supported" m0.onnx \
    --bind x.s=bad_map.pb
import_says "m0.onnx: --bind x.s: 'bad_elem.pb (element 0)': not an ONNX \
tensor: it has no data_type" m0.onnx --bind x.s=bad_elem.pb
run_says "tdsl: input 'x.s': 'bad_garbage.pb': not an ONNX SequenceProto \
(the protobuf does not decode)" e0.tdsl --in bad_garbage.pb --in m0_in1.pb
run_says "tdsl: input 'x.s': 'bad_map.pb': a sequence of elem_type 4: \
only sequences of tensors (1) are supported" e0.tdsl \
    --in x.s=bad_map.pb --in t=m0_in1.pb

# Refused at run.
run_says "tdsl: input 'x.s': 'two.pb' holds 2 tensors but the sequence \
has 3" e0.tdsl --in two.pb --in m0_in1.pb
usage_says "tdsl: run: input 'x.s' is a sequence: its file must be an ONNX \
SequenceProto (.pb), not 'x.npy'" e0.tdsl --in x.s=x.npy --in m0_in1.pb
usage_says "tdsl: run: input 'x.s' is given twice" e0.tdsl \
    --in x.s=m0_in0.pb --in x.s=m0_in0.pb --in m0_in1.pb
run_says "tdsl: output 'r_0': 'o.pb' is given for two sequences" \
    e0.tdsl --in m0_in0.pb --in m0_in1.pb --out ys=o.pb --out same=o.pb \
    --out n=n.npy
exit 0
