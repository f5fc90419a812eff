# accel_seg_model.sh - the layout planner's estimate of a kernel that
# runs as segments in one program (codegen/acc/target_seg.c): each
# segment's route model and each conversion between the segments at
# the model of codegen/acc/cg_seg_cost.c (on the instructions the
# emitter wrote for it), against the program timed as the simulator
# times it (`tdsl lower --target accel --explain`; against the
# simulated count of `time ... on accel`: tests/cli/accel_segments.sh),
# which must stay within 20%:
# the ResNet-style and encoder blocks of bench/plan_blocks.tdsl at the
# bench's sizes on test (bench/README.md, "The planner's estimate of
# the plan_blocks programs").
fail() { echo "FAIL: $*"; exit 1; }
cd "$TMP" || exit 1
blocks=$OLDPWD/bench/plan_blocks.tdsl

# within A B: A within 20% of B.
within() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) exit 1; r = a / b
            exit !(r >= 0.8 && r <= 1.2) }'
}

for k in resblock encoder; do
    "$TDSL" lower "$blocks" --kernel $k --target accel --explain \
        --machine test >ex 2>err || fail "$k: exit $?: $(cat err)"
    prog=$(sed -n 's/^program: [0-9]* segments in one program .* them: \([0-9]*\) cycles (the segments alone [0-9]*, its [0-9]* conversions [0-9]*;.*/\1/p' ex)
    conv=$(sed -n 's/^program: .*, its [0-9]* conversions \([0-9]*\);.*/\1/p' ex)
    model=$(sed -n "s/^model: \([0-9]*\) cycles (the segments' route models [0-9]*.*, conversions [0-9]*, of which .*x of the program$/\1/p" ex)
    mconv=$(sed -n 's/^model: .*, conversions \([0-9]*\), of which .*/\1/p' ex)
    [ -n "$prog" ] && [ -n "$model" ] && [ -n "$conv" ] && [ -n "$mconv" ] ||
        fail "$k: no program or no model: $(cat ex)"
    within "$model" "$prog" ||
        fail "$k: model $model cycles, program $prog (beyond 20%)"
    # The conversions are most of it: their model by itself too.
    within "$mconv" "$conv" ||
        fail "$k: conversions' model $mconv, program's $conv (beyond 20%)"
    # A model, not the timer's count again.
    [ "$model" != "$prog" ] || fail "$k: the model is the program's count"
    echo "test $k: model $model, program $prog (conversions $mconv, $conv)"
done

exit 0
