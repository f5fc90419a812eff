#!/bin/sh
# onnx_opt_io.sh - optionals: an optional graph input is bound at import
# to an OptionalProto .pb file, which fixes whether it holds an element
# (a tensor or a sequence: kernel parameters as for a tensor or sequence
# input) or none (no parameter); an optional output is written back as
# one.  Optional, OptionalHasElement (known at import), OptionalGetElement,
# Identity, an If on whether there is an element.  `tdsl run` reads and
# writes the files, positionally and by ONNX name, on the interpreter and
# on cpu; `tdsl import --compare --optional` compares them.  Then the
# refusals, each with its one line, and malformed OptionalProto files.
# Models and data from tests/onnx/optio_cases.py; skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
py=/usr/bin/python3
$py -c 'import onnx, numpy' 2>/dev/null || exit 77
$py "$OLDPWD/tests/onnx/optio_cases.py" "$TMP" 2>err ||
    fail "optio_cases.py: $(cat err)"

# compare KIND GOT WANT WHAT: the files agree (KIND: "", --optional).
compare() {
    "$TDSL" import --compare $1 "$2" "$3" 2>err || fail "$4: $(cat err)"
}

# 0: an optional tensor with an element.
"$TDSL" import m0.onnx -o e0.tdsl --bind o.x=m0_in0.pb 2>err ||
    fail "import m0: $(cat err)"
"$TDSL" fmt --check e0.tdsl || fail "e0.tdsl is not canonical"
grep -q "^# onnx-optional-input #0: 'o.x' = tensor o_x$" e0.tdsl ||
    fail "no optional input line: $(cat e0.tdsl)"
grep -q "^# onnx-optional-output #2: 'osum' = tensor osum$" e0.tdsl ||
    fail "no optional output line: $(cat e0.tdsl)"
grep -q "^kernel g(o_x: f32\[2, 3\], t: f32\[3\])" e0.tdsl ||
    fail "not a parameter for the element: $(cat e0.tdsl)"
for target in interp cpu; do
    rm -f o*.pb o*.npy
    "$TDSL" run e0.tdsl --in m0_in0.pb --in m0_in1.pb --out o0.npy \
        --out o1.npy --out o2.pb --out o3.pb --target $target 2>err ||
        fail "run m0 on $target: $(cat err)"
    compare "" o0.npy m0_out0.pb "m0 on $target, has"
    compare "" o1.npy m0_out1.pb "m0 on $target, sum"
    compare --optional o2.pb m0_out2.pb "m0 on $target, osum"
    compare --optional o3.pb m0_out3.pb "m0 on $target, same"
done
# By ONNX names ('o.x' is no identifier), in another order.
rm -f o*.pb
"$TDSL" run e0.tdsl --in t=m0_in1.pb --in o.x=m0_in0.pb --out same=s.pb \
    --out osum=y.pb --out has=h.npy --out sum=u.npy 2>err ||
    fail "named run: $(cat err)"
compare --optional y.pb m0_out2.pb "named run, osum"
compare --optional s.pb m0_out3.pb "named run, same"

# 1: an optional sequence with two elements.
"$TDSL" import m1.onnx -o e1.tdsl --bind os=m1_in0.pb 2>err ||
    fail "import m1: $(cat err)"
grep -q "^# onnx-optional-input #0: 'os' = sequence os_0, os_1$" e1.tdsl ||
    fail "no optional sequence line: $(cat e1.tdsl)"
for target in interp cpu; do
    rm -f o*.pb
    "$TDSL" run e1.tdsl --in m1_in0.pb --out o0.npy --out o1.pb \
        --target $target 2>err || fail "run m1 on $target: $(cat err)"
    compare "" o0.npy m1_out0.pb "m1 on $target, cat"
    compare --optional o1.pb m1_out1.pb "m1 on $target, same"
done

# 2: an optional without an element: no parameter, the If's branch
# known, outputs without an element written from the line alone.
"$TDSL" import m2.onnx -o e2.tdsl --bind o=m2_in0.pb 2>err ||
    fail "import m2: $(cat err)"
grep -q "^# onnx-optional-input #0: 'o' = none$" e2.tdsl ||
    fail "no empty optional line: $(cat e2.tdsl)"
grep -q "^kernel g(x: f32\[4\])" e2.tdsl ||
    fail "a parameter for no element: $(cat e2.tdsl)"
for target in interp cpu; do
    rm -f o*.pb
    "$TDSL" run e2.tdsl --in m2_in0.pb --in m2_in1.pb --out o0.npy \
        --out o1.npy --out o2.pb --out o3.pb --target $target 2>err ||
        fail "run m2 on $target: $(cat err)"
    compare "" o0.npy m2_out0.pb "m2 on $target, has"
    compare "" o1.npy m2_out1.pb "m2 on $target, y"
    compare --optional o2.pb m2_out2.pb "m2 on $target, same"
    compare --optional o3.pb m2_out3.pb "m2 on $target, empty"
done

# The comparison itself: none against a tensor, other values.
"$TDSL" import --compare --optional none.pb m0_out2.pb 2>err &&
    fail "none and a tensor compare equal"
[ "$(cat err)" = "tdsl: 'none.pb' holds an optional of elem_type 0, \
'm0_out2.pb' one of 1" ] || fail "compare kinds: $(cat err)"
"$TDSL" import --compare --optional m0_out2.pb m0_out3.pb 2>err &&
    fail "different optionals compare equal"
grep -q "^tdsl: (element 0)$" err || fail "compare values: $(cat err)"

# Refused at import.
import_says "m0.onnx: input 'o.x' is optional; give it with --bind \
o.x=FILE.pb (an ONNX OptionalProto)" m0.onnx
import_says "m0.onnx: input 'o.x' is optional; give it with --bind \
o.x=FILE.pb (an ONNX OptionalProto)" m0.onnx --bind o.x=m0_in1.npy
import_says "m0.onnx: --bind o.x: the file holds an optional sequence but \
the input is an optional tensor" m0.onnx --bind o.x=seq.pb
import_says "m0.onnx: --bind o.x: the file holds i64 values but the input \
is f32" m0.onnx --bind o.x=ints.pb
import_says "r_getnone.onnx: node 'y' (OptionalGetElement, opset 16): the \
optional 'e' has no element" r_getnone.onnx
import_says "r_notype.onnx: node 'e' (Optional, opset 16): an empty \
optional needs a 'type' of a tensor or a sequence of tensors" r_notype.onnx
import_says "r_optopt.onnx: node 'y' (Optional, opset 16): optionals of \
optionals are not supported" r_optopt.onnx
import_says "r_noneop.onnx: node 'y' (Neg, opset 16): input 'e' is an \
optional without an element, which only the Optional ops take" r_noneop.onnx
import_says "r_allnone.onnx: the graph's outputs are optionals without an \
element (a kernel computes at least one tensor)" r_allnone.onnx
import_says "r_ifopt.onnx: node 'y' (If, opset 16): the condition 'c' is \
not known at import and output 0 is a sequence or an optional (bind it \
with --bind)" r_ifopt.onnx
import_says "r_optopt_in.onnx: input 'o': only optional tensors and \
sequences of tensors of tdsl's dtypes are supported" r_optopt_in.onnx
import_says "r_sparse.onnx: input 's': only tensor, sequence and optional \
inputs are supported" r_sparse.onnx

# Malformed OptionalProto files, at import and at run.
import_says "m0.onnx: --bind o.x: 'bad_garbage.pb': not an ONNX \
OptionalProto (the protobuf does not decode)" m0.onnx \
    --bind o.x=bad_garbage.pb
import_says "m0.onnx: --bind o.x: 'bad_notype.pb': not an ONNX \
OptionalProto: it has no elem_type" m0.onnx --bind o.x=bad_notype.pb
import_says "m0.onnx: --bind o.x: 'bad_map.pb': an optional of elem_type \
4: only tensors (1), sequences (3) or none (0) are supported" m0.onnx \
    --bind o.x=bad_map.pb
import_says "m0.onnx: --bind o.x: 'bad_nonewith.pb': an optional without \
an element (elem_type 0) holds one" m0.onnx --bind o.x=bad_nonewith.pb
import_says "m0.onnx: --bind o.x: 'bad_notensor.pb': an optional tensor \
(elem_type 1) must hold a tensor_value and nothing else" m0.onnx \
    --bind o.x=bad_notensor.pb
import_says "m1.onnx: --bind os: 'bad_noseq.pb': an optional sequence \
(elem_type 3) must hold a sequence_value and nothing else" m1.onnx \
    --bind os=bad_noseq.pb
import_says "m0.onnx: --bind o.x: 'bad_elem.pb': not an ONNX tensor: it \
has no data_type" m0.onnx --bind o.x=bad_elem.pb
import_says "m1.onnx: --bind os: 'bad_seqmap.pb': a sequence of elem_type \
4: only sequences of tensors (1) are supported" m1.onnx \
    --bind os=bad_seqmap.pb
run_says "tdsl: input 'o.x': 'bad_garbage.pb': not an ONNX OptionalProto \
(the protobuf does not decode)" e0.tdsl --in bad_garbage.pb --in m0_in1.pb
run_says "tdsl: input 'os': 'bad_noseq.pb': an optional sequence \
(elem_type 3) must hold a sequence_value and nothing else" e1.tdsl \
    --in os=bad_noseq.pb

# Refused at run: not what the model was imported with.
run_says "tdsl: input 'o.x': 'none.pb' holds no element but the model was \
imported with a tensor (import it again with --bind)" e0.tdsl \
    --in none.pb --in m0_in1.pb
run_says "tdsl: input 'o': 'm0_in0.pb' holds a tensor but the model was \
imported with no element (import it again with --bind)" e2.tdsl \
    --in m0_in0.pb --in m2_in1.pb
run_says "tdsl: input 'os': 'seq.pb' holds 1 tensor but the sequence has \
2" e1.tdsl --in seq.pb
usage_says "tdsl: run: input 'o.x' is optional: its file must be an ONNX \
OptionalProto (.pb), not 'x.npy'" e0.tdsl --in o.x=x.npy --in m0_in1.pb
usage_says "tdsl: run: output 'same' is given twice" e0.tdsl \
    --in m0_in0.pb --in m0_in1.pb --out same=a.pb --out same=b.pb
exit 0
