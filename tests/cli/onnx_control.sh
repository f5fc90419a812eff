#!/bin/sh
# onnx_control.sh - If, Loop and Scan beyond the ONNX suite (Scan's
# axes and directions, opset 8's batch, a Loop that stops on a
# condition it computes, an If inside a Loop, an If on data): models
# and expected outputs made by tests/onnx/control_cases.py, imported,
# run on the interpreter and on cpu, compared; then the models the
# importer refuses, each with its one line.  Skipped (77) without
# python3-onnx and python3-numpy.
. "$(dirname "$0")/lib.sh"
onnx_cases control_cases.py
k=0
while [ -f "m$k.onnx" ]; do
    "$TDSL" fmt --check "e$k.tdsl" || fail "e$k.tdsl is not canonical"
    k=$((k + 1))
done
grep -q "select(i0 == 0" e2.tdsl || fail "no stacked scan output: $(cat e2.tdsl)"
grep -q '# iteration 2' e2.tdsl || fail "no third iteration: $(cat e2.tdsl)"
grep -q '# iteration 3' e2.tdsl && fail "a fourth iteration: $(cat e2.tdsl)"
grep -q "# Mul 'tv (then branch of If 'v2')'" e2.tdsl ||
    fail "the If in the Loop did not take its branch: $(cat e2.tdsl)"

# 1024 iterations: the stacked output selects by halves (the language
# nests expressions 256 deep at most).
"$TDSL" import big.onnx -o big.tdsl 2>err || fail "big: $(cat err)"
"$TDSL" run big.tdsl --in big_in0.pb --out big_out0.npy \
    --out big_out1.npy 2>err || fail "big: run: $(cat err)"
for k in 0 1; do
    "$TDSL" import --compare big_out$k.npy big_out$k.pb 2>err ||
        fail "big, output $k: $(cat err)"
done
grep -q 'select(i0 < 512, select(i0 < 256' big.tdsl ||
    fail "big: no halves: $(head -c 600 big.tdsl)"

L="node 'vf' (Loop, opset 13)"
S="node 'f' (Scan, opset 11)"
S8="node 'f' (Scan, opset 8)"
I="node 'y' (If, opset 13)"
import_refused r_trip "$L: the trip count 'n' is not known at import \
(the loop is unrolled; bind it with --bind)"
import_refused r_cond "$L: the condition 'c0' is not known at import \
(the loop is unrolled; bind it with --bind)"
import_refused r_forever "$L: neither a trip count nor a condition: the \
loop never ends"
import_refused r_unroll "$L: more than 1024 iterations (the most a loop \
is unrolled to)"
import_refused r_nodes "$L: unrolled, the graph would have more than \
100000 nodes"
import_refused r_datacond "$L: the condition the body computes ('c_out') \
is not known at import: the number of iterations depends on data"
import_refused r_grow "$L: the values stacked into 'ys' change shape from \
one iteration to the next"
import_refused r_empty "$L: the loop runs no iteration, so its scan \
outputs' shapes are not known"
import_refused r_nobody "$L: no 'body' graph"
import_refused r_inputs "$L: the subgraph 'plain' has 2 inputs; 3 expected"
import_refused r_unknown "$L: subgraph output 'nope' is not computed"
import_refused r_noname "$L: a subgraph input has no name"
import_refused r_initname "$L: a subgraph initializer has no name"
import_refused r_rank "$L: a stacked output would have rank 9 (the limit \
is 8)"
import_refused r_huge "$L: 'ys' would be too large"
import_refused r_twice "$L: 'v0' is defined twice"
import_refused r_ifshape "$I: the condition 'c' is not known at import \
and the branches yield different types or shapes for output 0 (bind it \
with --bind)"
import_refused r_ifouts "$I: the branches must yield the node's 2 outputs"
import_refused r_ifcond "$I: the condition must hold one element"
import_refused r_ifnone "node '?' (If, opset 13): the node has no outputs"
import_refused r_deep "node 'o4 (then branch of If 'o5')' (If, opset 13): \
subgraphs nest more than 16 deep"
import_refused r_seqlens "$S8: sequence_lens is not supported"
import_refused r_batch "$S8: input 'x' has no batch axis of 2"
import_refused r_batch0 "$S8: a batch of 0 is not supported"
import_refused r_nscan "$S: num_scan_inputs must be in 1 .. the number of \
inputs"
import_refused r_axes "$S: 'scan_input_axes' must have 2 entries"
import_refused r_inaxis "$S: scan input axis 2 is out of range"
import_refused r_outaxis "$S: scan output axis 3 is out of range"
import_refused r_emptyscan "$S: the scan inputs are empty, so the scan \
outputs' shapes are not known"
import_refused r_longscan "$S: more than 1024 iterations (the most a loop \
is unrolled to)"
import_refused r_lengths "$S: the scan inputs have different lengths"
import_refused r_scanouts "$S: the body must yield the 1 states and the \
node's scan outputs"
exit 0
