#!/bin/sh
# conformance.sh - runs ONNX backend tests (libonnx-testdata) through
# `tdsl import` and `tdsl run`, comparing each output with the test's
# output_*.pb (rtol 1e-3, atol 1e-5 for floats, rtol 2^-7 for bf16;
# exact otherwise).
#
# usage: tests/onnx/conformance.sh [-v] [--list FILE] [--update FILE]
#                                  [--target T] [TEST...]
#   TEST       node/test_abs, pytorch-converted/test_AvgPool1d, ...
#              (default: every test of node, pytorch-converted,
#              pytorch-operator and simple)
#   --list F   the tests named in F (one per line, '#' comments)
#   --update F write the tests that pass to F
#   --target T run on target T (cpu) instead of the interpreter
#   -v         one line per test: PASS, FAIL or UNSUPPORTED and why
#              (without it, on a terminal, a progress line on stderr)
# A test whose import fails as it is is tried again with every graph
# input bound to its test_data_set_0 value (the "folded" form), which
# folds shape-carrying inputs.  Reproduce one by hand with the commands
# -v prints.  At the end, a line per op type and per tier of the
# conformance scope (tests/onnx/tiers.tsv: the suite's tests with
# their op types and tiers, strict and folded), then the total.  Exit
# status: 1 when a test fails, else 0.
# The tests of tests/onnx/random.tsv expect random draws, which no
# runtime reproduces: they run, their outputs are checked for shape,
# dtype and the draw's domain (tests/onnx/random_check.py, which needs
# python3-numpy and python3-onnx), and they count as "random", on lines
# of their own ("onnx tier 2 random: 10 ran ..."), never as passed.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
tdsl=${TDSL:-$root/tdsl}
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
verbose=0
list=
update=
target=
tests=

while [ $# -gt 0 ]; do
    case $1 in
    -v) verbose=1 ;;
    --list) list=$2; shift ;;
    --update) update=$2; shift ;;
    --target) target="--target $2"; shift ;;
    -*) echo "conformance.sh: unknown option '$1'" >&2; exit 2 ;;
    *) tests="$tests $1" ;;
    esac
    shift
done

if [ ! -d "$data/node" ]; then
    echo "conformance.sh: no ONNX test data in $data (install" \
         "libonnx-testdata)" >&2
    exit 77
fi
if [ -n "$list" ]; then
    tests="$tests $(sed -e 's/#.*//' "$list")"
fi
if [ -z "$(echo $tests)" ]; then
    tests=$(cd "$data" && ls -d node/*/ pytorch-converted/*/ \
            pytorch-operator/*/ simple/*/ 2>/dev/null | sed 's,/$,,')
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdsl-onnx.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0 failed=0 unsupported=0 random=0
py=/usr/bin/python3
pyok=0
$py -c 'import onnx, numpy' 2>/dev/null && pyok=1
: >"$tmp/passing"

say() {
    [ $verbose = 1 ] && printf '%s\n' "$*"
    return 0
}

# The file output n of the imported model goes to: a sequence or an
# optional output (the importer's "# onnx-sequence-output #N:" or
# "# onnx-optional-output #N:" line) to a .pb file.
out_kind() {
    if grep -q "^# onnx-sequence-output #$1:" "$tmp/m.tdsl"; then
        echo sequence
    elif grep -q "^# onnx-optional-output #$1:" "$tmp/m.tdsl"; then
        echo optional
    else
        echo tensor
    fi
}
out_file() {
    # .pb holds every kind (strings too); a random test's tensors go to
    # .npy for random_check.py
    if [ -n "$rcheck" ] && [ "$(out_kind "$1")" = tensor ]; then
        echo "out_$1.npy"
    else
        echo "out_$1.pb"
    fi
}

# A progress line on a terminal (not with -v): "412/1081 node/test_x".
total=$(echo $tests | wc -w)
count=0
bar=0
[ $verbose = 0 ] && [ -t 2 ] && bar=1

for t in $tests; do
    count=$((count + 1))
    [ $bar = 1 ] && printf '\r%d/%d %s\033[K' $count $total "$t" >&2
    dir=$data/$t
    set0=$dir/test_data_set_0
    out=$tmp/m.tdsl
    rm -f "$tmp"/m.* "$tmp"/out_*.safetensors "$tmp"/out_*.pb \
        "$tmp"/out_*.npy
    # the check of a test whose expected outputs are random draws
    rcheck=$(awk -F'\t' -v t="$t" '$1 == t { $1 = ""; sub(/^ +/, ""); print; exit }' \
             "$root/tests/onnx/random.tsv")
    if [ ! -f "$dir/model.onnx" ] || [ ! -d "$set0" ]; then
        unsupported=$((unsupported + 1))
        printf '%s\tunsupported\n' "$t" >>"$tmp/results"
        say "UNSUPPORTED $t: no model.onnx or test_data_set_0"
        continue
    fi
    if ! "$tdsl" import "$dir/model.onnx" -o "$out" 2>"$tmp/err"; then
        binds=
        i=0
        for f in "$set0"/input_*.pb; do
            [ -f "$f" ] || continue
            binds="$binds --bind #$i=$f"
            i=$((i + 1))
        done
        if [ -z "$binds" ] ||
           ! "$tdsl" import "$dir/model.onnx" -o "$out" $binds \
               2>"$tmp/err2"; then
            unsupported=$((unsupported + 1))
            printf '%s\tunsupported\n' "$t" >>"$tmp/results"
            say "UNSUPPORTED $t: $(head -n 1 "$tmp/err" | sed "s,$data/,,")"
            continue
        fi
    fi
    ins= outs=
    for f in "$set0"/input_*.pb; do
        [ -f "$f" ] && ins="$ins --in $f"
    done
    n=0
    for f in "$set0"/output_*.pb; do
        [ -f "$f" ] || continue
        outs="$outs --out $tmp/$(out_file $n)"
        n=$((n + 1))
    done
    # load() paths are relative to the working folder.  The outputs go
    # to .pb files: a tensor to a TensorProto, which holds every dtype
    # and strings (.npy has no bf16, .safetensors no strings), a
    # sequence to a SequenceProto, an optional to an OptionalProto.
    if ! (cd "$tmp" && "$tdsl" run m.tdsl $target $ins $outs) >/dev/null \
            2>"$tmp/err"; then
        failed=$((failed + 1))
        printf '%s\tfailed\n' "$t" >>"$tmp/results"
        say "FAIL $t: run: $(grep -m 1 . "$tmp/err")"
        continue
    fi
    if [ -n "$rcheck" ]; then
        if [ $pyok = 0 ]; then
            unsupported=$((unsupported + 1))
            printf '%s\tunsupported\n' "$t" >>"$tmp/results"
            say "UNSUPPORTED $t: random outputs, and no python3-onnx and" \
                "python3-numpy to check them"
            continue
        fi
        gots=
        n=0
        for f in "$set0"/output_*.pb; do
            [ -f "$f" ] || continue
            gots="$gots $tmp/out_$n.npy"
            n=$((n + 1))
        done
        # shellcheck disable=SC2086
        if $py "$root/tests/onnx/random_check.py" $rcheck "$dir" $gots \
                >"$tmp/err" 2>&1; then
            random=$((random + 1))
            printf '%s\trandom\n' "$t" >>"$tmp/results"
            say "RANDOM $t: ran; outputs checked for shape, dtype and" \
                "domain ($rcheck), not values"
        else
            failed=$((failed + 1))
            printf '%s\tfailed\n' "$t" >>"$tmp/results"
            say "FAIL $t: random outputs: $(tail -n 1 "$tmp/err")"
        fi
        continue
    fi
    ok=1
    n=0
    for f in "$set0"/output_*.pb; do
        [ -f "$f" ] || continue
        got=$tmp/$(out_file $n)
        seq=
        case $(out_kind $n) in
        sequence) seq=--sequence ;;
        optional) seq=--optional ;;
        esac
        if ! "$tdsl" import --compare $seq "$got" "$f" 2>"$tmp/err"; then
            ok=0
            say "FAIL $t: output $n: $(tr '\n' ' ' <"$tmp/err")"
            break
        fi
        n=$((n + 1))
    done
    if [ $ok = 1 ]; then
        passed=$((passed + 1))
        printf '%s\tpassed\n' "$t" >>"$tmp/results"
        echo "$t" >>"$tmp/passing"
        say "PASS $t"
    else
        failed=$((failed + 1))
        printf '%s\tfailed\n' "$t" >>"$tmp/results"
    fi
done

[ $bar = 1 ] && printf '\r\033[K' >&2
# One line per op type (a test counts for each op type of its model),
# then per tier of the conformance scope (tests/onnx/tiers.tsv), then
# the total.
if [ -s "$tmp/results" ]; then
    awk -F'\t' '
    function add(key, r) {
        if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
        n[key, r]++
    }
    function line(key, label) {
        printf "%s: %d passed, %d failed, %d unsupported\n", label,
            n[key, "passed"], n[key, "failed"], n[key, "unsupported"]
        randoms(n[key, "random"], label)
    }
    function randoms(k, label) {
        if (k)
            printf "%s random: %d ran, outputs checked for shape, dtype " \
                "and domain, not values\n", label, k
    }
    FNR == NR { if ($0 !~ /^#/) { ops[$1] = $2; tier[$1] = $3
                                  folded[$1] = $4 }
                next }
    {
        t = $1; r = $2
        m = split(t in ops ? ops[t] : "?", o, ",")
        for (i = 1; i <= m; i++)
            add("op " o[i], r)
        tr[t] = r
    }
    END {
        # op types in name order
        for (i = 1; i <= nk; i++)
            for (j = i + 1; j <= nk; j++)
                if (keys[j] < keys[i]) {
                    x = keys[i]; keys[i] = keys[j]; keys[j] = x
                }
        for (i = 1; i <= nk; i++)
            line(keys[i], "onnx " keys[i])
        for (t in tr) {
            if (!(t in tier)) { c["unlisted", tr[t]]++; continue }
            c["tier " tier[t], tr[t]]++
            c["tier " folded[t] " when folded", tr[t]]++
        }
        split("tier 1|tier 1 when folded|tier 2|tier 2 when folded|" \
              "tier 3|unlisted", lab, "|")
        for (i = 1; i <= 6; i++) {
            k = lab[i]
            all = c[k, "passed"] + c[k, "failed"] + c[k, "unsupported"]
            if (all + c[k, "random"]) {
                printf "onnx %s: %d passed, %d failed, %d unsupported\n",
                    k, c[k, "passed"], c[k, "failed"],
                    c[k, "unsupported"]
                randoms(c[k, "random"], "onnx " k)
            }
        }
    }' "$root/tests/onnx/tiers.tsv" "$tmp/results"
fi
# The random ones on a line of their own, before the total (the last
# line, which tests/cli/onnx_conformance.sh reads).
[ $random -gt 0 ] && echo "onnx random: $random ran, outputs checked for" \
    "shape, dtype and domain, not values"
echo "onnx: $passed passed, $failed failed, $unsupported unsupported"
if [ -n "$update" ]; then
    {
        echo "# ONNX backend tests that pass (tests/onnx/conformance.sh"
        echo "# --update tests/onnx/passing.txt regenerates this list)."
        cat "$tmp/passing"
    } >"$update"
fi
[ $failed = 0 ]
