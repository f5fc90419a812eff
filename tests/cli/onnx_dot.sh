#!/bin/sh
# onnx_dot.sh - `tdsl import --dot`: the graph in Graphviz form, for
# any model that reads (also one whose ops cannot be imported), to
# stdout or to -o FILE; a bad model is one line on stderr and exit 1.
# Skipped (77) without libonnx-testdata.
. "$(dirname "$0")/lib.sh"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
[ -d "$data/node" ] || exit 77
m=$data/node/test_layer_normalization_2d_axis0_expanded/model.onnx
"$TDSL" import --dot "$m" >g.dot 2>err || fail "dot: $(cat err)"
head -n 1 g.dot | grep -q '^digraph "' || fail "not a digraph: $(head g.dot)"
tail -n 1 g.dot | grep -q '^}$' || fail "unterminated: $(tail g.dot)"
grep -q 'in0 \[shape=ellipse, label="X\\n\[3, 4\]"\];' g.dot ||
    fail "no input X: $(cat g.dot)"
grep -q '\[shape=box, label="Shape"\]' g.dot || fail "no Shape: $(cat g.dot)"
grep -q ' -> out0;' g.dot || fail "no output edge: $(cat g.dot)"
"$TDSL" import --dot "$data/node/test_nonzero_example/model.onnx" \
    -o nz.dot 2>err || fail "dot of NonZero: $(cat err)"
grep -q 'label="NonZero' nz.dot || fail "no NonZero box: $(cat nz.dot)"
printf 'junk' >junk.onnx
"$TDSL" import --dot junk.onnx >/dev/null 2>err
[ $? = 1 ] || fail "junk: wrong exit status"
[ "$(wc -l <err)" = 1 ] || fail "junk: not one line: $(cat err)"
exit 0
