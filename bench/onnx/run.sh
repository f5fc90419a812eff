#!/bin/sh
# run.sh [MODEL...] - tdsl beside onnxruntime on ONNX models: the
# suite's pytorch-converted models and the larger ones make_models.py
# builds (a ResNet-style stack, a transformer encoder block).  For each
# model, tdsl's import, its compile + first run (`tdsl run --no-cache
# --target cpu`, one process), the median of repeated runs in one
# process (a script's `time K(..) on cpu`) and the peak resident
# memory of a `tdsl run` of the compiled model (from the cache: the C
# compiler is not counted; results.txt also has the peak of the
# compiling run), and onnxruntime's session creation + first run and the
# median of repeated runs (bench/onnx/ort_run.js, in node, with the
# node process's peak memory); the ratio tdsl / onnxruntime of the
# medians and of the peak memories.  MODEL is a folder holding
# model.onnx and test_data_set_0/input_*.pb (default: all of them).
#
# Needs node and the npm package onnxruntime-node, installed where node
# finds it (BENCH_ORT_NODE_PATH, default bench/onnx/node_modules:
#   cd bench/onnx && ONNXRUNTIME_NODE_INSTALL=skip npm install
#       onnxruntime-node
# ), python3-onnx and numpy; without them it says so and exits 77
# (`make bench` then goes on).  BENCH_RUNS (default 7) runs per
# median; one thread on both sides (OMP_NUM_THREADS,
# intraOpNumThreads).  BENCH_TDSL_FMA=1: tdsl's kernels built with
# TDSL_FMA=1 (SPEC 10.8; default off: bit for bit with the
# interpreter, no FMA contraction, which onnxruntime does use).
# Raw lines go to build/bench/onnx/results.txt.  Not a test.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
TDSL=$top/tdsl
BENCH_DIR=$top/build/bench/onnx
RUNS=${BENCH_RUNS:-7}
PY=/usr/bin/python3
DATA=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
export NODE_PATH=${BENCH_ORT_NODE_PATH:-$top/bench/onnx/node_modules}
export OMP_NUM_THREADS=1 BENCH_THREADS_N=1

say() { echo "bench/onnx: $*" >&2; }
[ -x "$TDSL" ] || { say "build tdsl first (make)"; exit 1; }
[ "${BENCH_TDSL_FMA:-0}" = 1 ] && export TDSL_FMA=1
$PY -c 'import onnx, numpy' 2>/dev/null ||
    { say "skipped: needs python3-onnx and python3-numpy"; exit 77; }
command -v node >/dev/null 2>&1 ||
    { say "skipped: needs node (apt-get install nodejs)"; exit 77; }
node -e "require('onnxruntime-node')" 2>/dev/null ||
    { say "skipped: needs onnxruntime-node under $NODE_PATH (see the" \
          "top of bench/onnx/run.sh)"; exit 77; }
mkdir -p "$BENCH_DIR/made"
$PY bench/onnx/make_models.py "$BENCH_DIR/made" || exit 1
for m in resnet encoder; do
    mkdir -p "$BENCH_DIR/made/$m/test_data_set_0"
    mv "$BENCH_DIR/made/$m.onnx" "$BENCH_DIR/made/$m/model.onnx"
    mv "$BENCH_DIR/made/${m}_in.pb" "$BENCH_DIR/made/$m/test_data_set_0/input_0.pb"
done
models=$*
[ -n "$models" ] || models="$(ls -d "$DATA"/pytorch-converted/*/) \
$BENCH_DIR/made/resnet $BENCH_DIR/made/encoder"

now() { date +%s.%N; }
# secs VALUE UNIT: VALUE (s, ms, us or ns) in seconds
secs() {
    awk -v v="$1" -v u="$2" 'BEGIN {
        f = 1e-9
        if (u == "s") f = 1
        if (u == "ms") f = 1e-3
        if (u == "us") f = 1e-6
        printf "%.3e", v * f }'
}

RES=$BENCH_DIR/results.txt
: >"$RES"
printf '%-28s %8s %9s %10s %10s %10s %6s %8s %8s %5s\n' model import_s \
    compile_s tdsl_run ort_first ort_run ratio tdsl_MB ort_MB mem
for dir in $models; do
    dir=${dir%/}
    name=$(basename "$dir")
    w=$BENCH_DIR/models/$name
    rm -rf "$w"
    mkdir -p "$w"
    cp "$dir/model.onnx" "$w/model.onnx"
    ins=
    for f in "$dir"/test_data_set_0/input_*.pb; do
        [ -f "$f" ] || continue
        cp "$f" "$w/"
        ins="$ins $(basename "$f")"
    done
    cd "$w" || exit 1
    # shellcheck disable=SC2086
    $PY "$top/bench/onnx/pb2raw.py" inputs.json model.onnx $ins ||
        { say "$name: cannot read its inputs"; cd "$top"; continue; }
    t0=$(now)
    if ! "$TDSL" import model.onnx -o m.tdsl 2>err; then
        say "$name: import: $(head -n 1 err)"
        cd "$top"
        continue
    fi
    t1=$(now)
    inargs=
    for f in $ins; do inargs="$inargs --in $f"; done
    # shellcheck disable=SC2086
    if ! /usr/bin/time -f %M -o crss "$TDSL" --no-cache run m.tdsl \
            --target cpu $inargs >/dev/null 2>err; then
        say "$name: run: $(grep -m 1 . err)"
        cd "$top"
        continue
    fi
    t2=$(now)
    # the model's kernel called from a script, timed in one process
    k=$(sed -n 's/^kernel \([A-Za-z0-9_]*\)(.*/\1/p' m.tdsl | head -n 1)
    cp m.tdsl t.tdsl
    args=
    n=0
    for f in $ins; do
        echo "let in_$n = load(\"$f.npy\")" >>t.tdsl
        args="$args${args:+, }in_$n"
        n=$((n + 1))
    done
    # a first call compiles (cached in the process), so that `time`
    # measures runs only
    echo "let warm_ = $k($args) on cpu" >>t.tdsl
    echo "time $k($args) on cpu" >>t.tdsl
    tl=$("$TDSL" t.tdsl 2>err |
         sed -n 's/.*median \([0-9.e+-]*\) \([a-z]*\) of.*/\1 \2/p')
    # peak memory running the compiled model (t.tdsl left it in the
    # cache): the C compiler, a child of the first run, counts there
    # shellcheck disable=SC2086
    /usr/bin/time -f %M -o rss "$TDSL" run m.tdsl --target cpu $inargs \
        >/dev/null 2>>err
    ol=$(node "$top/bench/onnx/ort_run.js" model.onnx inputs.json "$RUNS" \
         2>ort_err)
    cd "$top"
    # The reason is the last line: onnxruntime warns first (opset 6
    # models: "only guarantees support for opset 7"), then fails.
    if [ -z "$tl" ]; then
        say "$name: tdsl failed: $(tail -n 1 "$w/err")"
        continue
    fi
    if [ -z "$ol" ]; then
        say "$name: onnxruntime cannot run it:" \
            "$(tail -n 1 "$w/ort_err" | sed 's/^ort_run.js: //')"
        continue
    fi
    # shellcheck disable=SC2086
    trun=$(secs $tl)
    orun=$(echo "$ol" | sed 's/.*median_s=\([^ ]*\).*/\1/')
    ofirst=$(echo "$ol" | awk '{ split($2, a, "="); split($3, b, "=");
        printf "%.3f", a[2] + b[2] }')
    orss=$(echo "$ol" | sed 's/.*maxrss_kb=\([0-9]*\).*/\1/')
    trss=$(cat "$w/rss")
    crss=$(cat "$w/crss")
    echo "model=$name import_s=$(echo "$t0 $t1" | awk '{ printf "%.3f",
        $2 - $1 }') compile_run_s=$(echo "$t1 $t2" | awk '{ printf "%.3f",
        $2 - $1 }') tdsl_run_s=$trun tdsl_rss_kb=$trss tdsl_compile_rss_kb=$crss $ol" >>"$RES"
    awk -v n="$name" -v i="$t0 $t1" -v c="$t1 $t2" -v tr="$trun" \
        -v of="$ofirst" -v orr="$orun" -v tm="$trss" -v om="$orss" 'BEGIN {
        split(i, a, " "); split(c, b, " ");
        printf "%-28s %8.3f %9.3f %10.3e %10.3f %10.3e %6.2f %8.1f %8.1f %5.2f\n",
            substr(n, 1, 28), a[2] - a[1], b[2] - b[1], tr, of, orr,
            tr / orr, tm / 1024, om / 1024, tm / om }'
done
# The summary: how many models ran on both sides, the geometric mean of
# the time ratios, and those where tdsl is slower.
awk '/^model=/ {
    for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == "model") m = kv[2]
        if (kv[1] == "tdsl_run_s") t = kv[2]
        if (kv[1] == "median_s") o = kv[2]
    }
    n++; lg += log(t / o)
    if (t > o) slow = slow sprintf(" %s %.2f", m, t / o)
} END {
    if (n == 0) exit
    printf "%d models on both sides; tdsl/onnxruntime time, " \
        "geometric mean %.2f\n", n, exp(lg / n)
    printf "slower than onnxruntime:%s\n", slow == "" ? " none" : slow
}' "$RES"
