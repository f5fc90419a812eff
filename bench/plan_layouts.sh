#!/bin/sh
# plan_layouts.sh - figures of the accel layout planner (not a timed
# test): total conversion traffic of the planner's layouts against a
# naive fixed layout (every tensor in blocks of its row-major order
# over all PEs, each stage still choosing its best distribution) on a
# ResNet-style block and a transformer encoder block
# (bench/plan_blocks.tdsl), from `tdsl lower --target accel --explain
# --simulate`.
#
# The estimate columns are the cost model's (codegen/acc/plan*.c): for
# each conversion layout_emit.c can emit, what its instructions take as
# the simulator times them (acc_layout_emit_estimate), else the LCA
# model of layout_conv.c.  The simulated columns run every conversion of the
# plan by itself on the simulator, emitted by layout_emit.c
# (codegen/acc/plan_sim.c): 'sim' of 'n' conversions could be emitted,
# 'est' is the estimate of those same conversions, sim_lw the long
# words they move over BM links and to and from DRAM.  The stages
# themselves (convolutions, matmuls) do not run here.
#
# A second table measures conversions inside a program: the pipelines
# of bench/plan_pipes.tdsl, whose schedules lay out some tensors, run
# on the simulator with the plan's conversions in them; 'prog_lw' and
# 'prog_cycles' are what the conversions add to the program (against
# the same program without them), beside the plan's estimate.
#
# A third table runs the two blocks whole on the simulator, with random
# inputs: no one route takes either, so the runner splits each into
# segments (codegen/acc/cg_seg.c) and runs them as one program
# (codegen/acc/target_seg.c) with the conversions between them as
# instructions; 'cycles' and 'util' are the whole program's,
# 'conv_cycles' and 'conv_lw' what its conversions take (the program
# against the same without them: cycles, DRAM long words), 'in_cycles'
# and 'in_lw' the part of that which converts a kernel input from its
# first consumer's image into a later consumer's (0 since session 12:
# the host lays each input out in every consumer's image when it loads
# it, not counted; the rest: the intermediates), 'dma' the DMA
# gathers of the conversions, 'plan_est' the planner's estimate of the
# whole kernel in its own layouts (the first table's 'estimated' total,
# compute + conversions + DRAM in/out), 'prog_est' its estimate of the
# program that runs (`time`'s planner line: the segments' route models
# and the conversions between them, codegen/acc/target_seg_est.c and
# cg_seg_cost.c) and 'sim/est' the simulated cycles over it.
#
# A fourth table compares whole programs: the third table's run with
# the layouts the program of segments chooses ('chosen': each route's
# own DRAM image, an elementwise stage computing in its producer's,
# inputs laid out by the host in their first consumer's image, the
# output read back from its producer's) against one naive fixed layout
# for every tensor ('naive', TDSL_ACC_LAYOUTS=naive: inputs,
# intermediates and output row-major, the elementwise route's blocks
# of the row-major order over all PEs, every other route converting
# into and out of it), both simulated (codegen/acc/target_seg_lay.c).
# 'conv_lw' is the DRAM long words the program's conversions move (the
# program against the same without them), 'mid_lw' the part of it that
# is not a kernel input's, 'x' naive over chosen.
#
# usage: bench/plan_layouts.sh [MACHINE]   (default test)
set -e
here=$(cd "$(dirname "$0")" && pwd)
tdsl=${TDSL:-$here/../tdsl}
m=${1:-test}
printf '%-9s %-7s %9s %10s %9s %8s %6s %9s %10s %10s\n' block plan \
    compute est_cycles est_lw 'lw x' 'sim/n' est sim_cycles sim_lw
for k in resblock encoder; do
    out=$("$tdsl" lower "$here/plan_blocks.tdsl" --kernel $k \
        --target accel --explain --simulate --machine "$m")
    for which in estimated naive; do
        line=$(printf '%s\n' "$out" | grep "^$which")
        c=$(printf '%s\n' "$line" | sed 's/.*compute \([0-9]*\),.*/\1/')
        cv=$(printf '%s\n' "$line" |
            sed 's/.*conversions \([0-9]*\) .*/\1/')
        lw=$(printf '%s\n' "$line" |
            sed 's/.*conversions [0-9]* ([0-9]*, \([0-9]*\) lw).*/\1/')
        if [ $which = estimated ]; then
            s=$(printf '%s\n' "$out" | grep '^simulated plan:')
            plw=$lw
            x=
        else
            s=$(printf '%s\n' "$out" | grep '^simulated naive:')
            x=$(awk -v a="$lw" -v b="$plw" \
                'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
        fi
        sn=$(printf '%s\n' "$s" |
            sed 's/.*: \([0-9]*\) of \([0-9]*\) conv.*/\1\/\2/')
        sc=$(printf '%s\n' "$s" | sed 's/.*simulated: \([0-9]*\) cyc.*/\1/')
        se=$(printf '%s\n' "$s" | sed 's/.*(estimate \([0-9]*\)), .*/\1/')
        sl=$(printf '%s\n' "$s" |
            sed 's/.*, \([0-9]*\) lw over BM links and \([0-9]*\) to.*/\1 \2/' |
            awk '{ print $1 + $2 }')
        printf '%-9s %-7s %9s %10s %9s %8s %6s %9s %10s %10s\n' $k \
            "$([ $which = estimated ] && echo planner || echo naive)" \
            "$c" "$cv" "$lw" "$x" "$sn" "$se" "$sc" "$sl"
    done
done
echo
printf '%-10s %5s %10s %11s %10s %11s\n' pipeline n prog_lw prog_cycles \
    est_lw est_cycles
"$tdsl" --no-cache "$here/plan_pipes.tdsl" --machine "$m" |
    awk '/^time / { k = $2; sub(/\(.*/, "", k) }
         /^    conversion [0-9]* lw in the program \(/ {
             gsub(/[^0-9 ]/, " ")
             printf "%-10s %5s %10s %11s %10s %11s\n", k, $2, $1, $3, $5, $6
         }'
echo
printf '%-9s %4s %9s %7s %11s %9s %9s %8s %7s %9s %9s %7s\n' block segs \
    cycles util conv_cycles conv_lw in_cycles in_lw dma plan_est prog_est \
    sim/est
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plan_layouts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/blocks.tdsl" <<TDSL
import "$here/plan_blocks.tdsl" as pb
let X = rand(f32, [1, 64, 16, 16], seed = 1)
let W1 = rand(f32, [64, 64, 3, 3], seed = 2)
let s1 = rand(f32, [64], seed = 3)
let b1 = rand(f32, [64], seed = 4)
let W2 = rand(f32, [64, 64, 3, 3], seed = 5)
let s2 = rand(f32, [64], seed = 6)
let b2 = rand(f32, [64], seed = 7)
time pb.resblock(X, W1, s1, b1, W2, s2, b2) on accel
let E = rand(f32, [64, 128], seed = 1)
let Wq = rand(f32, [128, 128], seed = 2)
let Wk = rand(f32, [128, 128], seed = 3)
let Wv = rand(f32, [128, 128], seed = 4)
let Wo = rand(f32, [128, 128], seed = 5)
let g1 = rand(f32, [128], seed = 6)
let e1 = rand(f32, [128], seed = 7)
let M1 = rand(f32, [128, 256], seed = 8)
let M2 = rand(f32, [256, 128], seed = 9)
let g2 = rand(f32, [128], seed = 10)
let e2 = rand(f32, [128], seed = 11)
time pb.encoder(E, Wq, Wk, Wv, Wo, g1, e1, M1, M2, g2, e2) on accel
TDSL
for k in resblock encoder; do
    "$tdsl" lower "$here/plan_blocks.tdsl" --kernel $k --target accel \
        --explain --machine "$m" | sed -n 's/^estimated: .*: \([0-9]*\) cycles$/\1/p' \
        >"$tmp/est.$k"
done
"$tdsl" --no-cache "$tmp/blocks.tdsl" --machine "$m" >"$tmp/chosen"
awk -v dir="$tmp" '/^time / { k = $2; sub(/\(.*/, "", k); sub(/.*\./, "", k) }
     /^    segments / { n = $2 }
     /^    cycles / { c = $2 }
     /^    util / { u = $2 }
     /^    conversion / {
         gsub(/[();,]/, " ")
         getline e < (dir "/est." k)
         cv = sprintf("%11s %9s %9s %8s %7s %9s", $6, $8, $22, $24, $11, e)
     }
     /^    planner .* estimated for the program / {
         r = $2 > 0 ? c / $2 : 0
         printf "%-9s %4s %9s %7s %s %9s %7.2f\n", k, n, c, u, cv, $2, r
     }' "$tmp/chosen"
echo
TDSL_ACC_LAYOUTS=naive "$tdsl" --no-cache "$tmp/blocks.tdsl" --machine "$m" \
    >"$tmp/naive"
printf '%-9s %-7s %5s %9s %11s %9s %9s %6s %6s\n' block layouts conv cycles \
    conv_cycles conv_lw mid_lw 'x lw' 'x mid'
for f in chosen naive; do
    awk -v f=$f '/^time / { k = $2; sub(/\(.*/, "", k); sub(/.*\./, "", k) }
         /^    cycles / { c = $2 }
         /^    conversion / {
             gsub(/[();,]/, " ")
             print k, f, $2, c, $6, $8, $8 - $24
         }' "$tmp/$f"
done | awk '{ lw[$1, $2] = $6; mid[$1, $2] = $7; line[NR] = $0 }
    END {
        for (i = 1; i <= NR; i++) {
            split(line[i], a, " ")
            x = y = ""
            if (a[2] == "naive" && lw[a[1], "chosen"] > 0)
                x = sprintf("%.2f", a[6] / lw[a[1], "chosen"])
            if (a[2] == "naive" && mid[a[1], "chosen"] > 0)
                y = sprintf("%.2f", a[7] / mid[a[1], "chosen"])
            printf "%-9s %-7s %5s %9s %11s %9s %9s %6s %6s\n", a[1], a[2],
                a[3], a[4], a[5], a[6], a[7], x, y
        }
    }' | sort -s -k1,1r
