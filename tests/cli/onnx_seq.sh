#!/bin/sh
# onnx_seq.sh - sequences known at import (SplitToSequence with and
# without split and keepdims, SequenceInsert/Erase/At/Length,
# ConcatFromSequence with and without new_axis, a Loop reading an outer
# sequence): models and expected outputs made by tests/onnx/seq_cases.py,
# imported, run on the interpreter and on cpu, compared; then the models
# the importer refuses, each with its one line.  Skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases seq_cases.py
for k in 0 1 2; do
    "$TDSL" fmt --check "e$k.tdsl" || fail "e$k.tdsl is not canonical"
done
grep -q '# SplitToSequence' e1.tdsl || fail "no split stages: $(cat e1.tdsl)"

import_refused r_pos "node 'y' (SequenceAt, opset 13): input 'p' must be \
known at import (a constant, an initializer, or bound with --bind)"
import_refused r_range "node 'y' (SequenceAt, opset 13): position 5 is \
outside the sequence of 3"
import_refused r_posint "node 'y' (SequenceAt, opset 13): the position \
must be one integer"
import_refused r_atnopos "node 'y' (SequenceAt, opset 13): input 1 is \
missing"
import_refused r_seqop "node 'y' (Neg, opset 13): input 's' is a \
sequence, which only the Sequence ops take"
import_refused r_notseq "node 'y' (SequenceAt, opset 13): input 'x' is \
not a sequence"
import_refused r_nested "node 'y' (SequenceConstruct, opset 13): \
sequences of sequences are not supported"
import_refused r_insseq "node 'y' (SequenceInsert, opset 13): sequences \
of sequences are not supported"
import_refused r_insdt "node 'y' (SequenceInsert, opset 13): 'k' is i64, \
the sequence's elements f32"
import_refused r_emptycat "node 'y' (ConcatFromSequence, opset 13): the \
sequence is empty"
import_refused r_cataxis "node 'y' (ConcatFromSequence, opset 13): axis 5 \
is out of range"
import_refused r_splitaxis "node 'y' (SplitToSequence, opset 13): axis 3 \
is out of range"
import_refused r_splitsum "node 'y' (SplitToSequence, opset 13): the split \
sizes do not add up to 3"
import_refused r_split0 "node 'y' (SplitToSequence, opset 13): a split of \
0 is not supported"
import_refused r_parts "node 'y' (SplitToSequence, opset 13): more than \
1024 parts are not supported"
import_refused r_emptydt "node 'y' (SequenceEmpty, opset 13): ONNX data \
type 14 is not supported"
import_refused r_construct0 "node 'y' (SequenceConstruct, opset 13): no \
inputs"
import_refused r_constructdt "node 'y' (SequenceConstruct, opset 13): the \
inputs have different types"
import_refused r_lentwice "node 'x' (SequenceLength, opset 13): output 0 \
is missing or defined twice"
import_refused r_emptytwice "node 'x' (SequenceEmpty, opset 13): 'x' is \
defined twice"
import_refused r_emptynoout "node '?' (SequenceEmpty, opset 13): the node \
has no outputs"
import_refused r_stackseq "node 'vf' (Loop, opset 13): 'y' would stack \
sequences or optionals (not supported)"

# An If on data whose output is a sequence (ONNX's test_if_seq).
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
if [ -d "$data/node/test_if_seq" ]; then
    cp "$data/node/test_if_seq/model.onnx" if_seq.onnx
    import_refused if_seq "node 'res' (If, opset 13): the condition 'cond' \
is not known at import and output 0 is a sequence or an optional (bind \
it with --bind)"
fi
exit 0
