#!/bin/sh
# accel.sh - figures of the accel target on the simulator (not a test,
# not part of `make bench`): f32 matmul 1024 and 2048, f16 matmul 1024
# and 2048 (f16 inputs, f32 sums, on the 16 x 16 unit), conv2d
# 1x64x56x56 with 64 3x3 filters (valid: 54x54 out, no bias, as
# implicit GEMM), softmax and layernorm over 512 rows of 512 (vector
# bound: read the `vector` line, utilization against the vector peak).
# Each line is one `time ... on accel` run: simulated cycles, the
# utilization the simulator reports (useful FLOPs over the peak of the
# dominant type's matrix unit, and over the vector peak), the busy
# fractions, and the layout planner's estimate for the same kernel
# beside the simulated count (`planner`: the program code generation
# emits, every instruction timed as the simulator times it, acc_time.c;
# the cost model of plan*.c in parentheses).
#
#   sh bench/accel.sh [MACHINE...]      default: test mn2
#
# Nothing is checked here: tests/accel/ checks every route against the
# interpreter.  The simulator runs on one core; mn2 2048 takes minutes.
set -u
cd "$(dirname "$0")/.." || exit 1
TDSL=${TDSL:-./tdsl}
OUT=build/bench
mkdir -p "$OUT"
MACHINES=${*:-test mn2}

{
    cat bench/accel_kernels.tdsl
    cat <<'TDSL'
let A1 = rand(f32, [1024, 1024], seed = 1)
let B1 = rand(f32, [1024, 1024], seed = 2)
time matmul(A1, B1) on accel
let A2 = rand(f32, [2048, 2048], seed = 3)
let B2 = rand(f32, [2048, 2048], seed = 4)
time matmul(A2, B2) on accel
let H1 = rand(f16, [1024, 1024], seed = 1)
let G1 = rand(f16, [1024, 1024], seed = 2)
time mm16(H1, G1) on accel
let H2 = rand(f16, [2048, 2048], seed = 3)
let G2 = rand(f16, [2048, 2048], seed = 4)
time mm16(H2, G2) on accel
let X = rand(f32, [1, 64, 56, 56], seed = 5)
let Wt = rand(f32, [64, 64, 3, 3], seed = 6)
time conv(X, Wt) on accel
let S = rand(f32, [512, 512], seed = 7)
time softmax(S) on accel
let g = rand(f32, [512], seed = 8)
let b = rand(f32, [512], seed = 9)
time layernorm(S, g, b) on accel
TDSL
} >"$OUT/accel.tdsl"

for m in $MACHINES; do
    echo "== machine $m"
    start=$(date +%s)
    "$TDSL" "$OUT/accel.tdsl" --machine "$m" 2>&1 |
        grep -E '^time|cycles|util|vector|busy|planner|error'
    echo "   ($(($(date +%s) - start)) s of host time)"
done
