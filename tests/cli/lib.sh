# lib.sh - what the command-line tests (tests/cli/*.sh) share.  A test
# sources it first, as `. "$(dirname "$0")/lib.sh"` (tests/run.sh runs
# it from the top folder with TDSL and TMP set); it then works in its
# fresh folder $TMP.  Not a test itself: tests/run.sh skips it.
cd "$TMP" || exit 1

# fail MESSAGE: the test fails, saying why.
fail() { echo "FAIL: $*"; exit 1; }

# repeat N TEXT: TEXT N times, no newline.
repeat() {
    awk -v n="$1" -v t="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'
}

# refused FILE [PATTERN]...: `tdsl check FILE` exits 1 within 20 seconds,
# without a crash or an internal error, and its stderr (left in `err`)
# matches each grep PATTERN.
refused() {
    f=$1
    shift
    timeout 20 "$TDSL" check "$f" >/dev/null 2>err
    st=$?
    [ "$st" = 124 ] && fail "$f: timed out"
    [ "$st" -ge 128 ] && fail "$f: killed by signal $((st - 128))"
    [ "$st" = 1 ] || fail "$f: exit $st, expected 1: $(head -c 400 err)"
    for t in "$@"; do
        grep -q "$t" err || fail "$f: no '$t' in: $(head -c 600 err)"
    done
    grep -q 'internal error' err && fail "$f: internal error"
    return 0
}

# expect STATUS TEXT ARGS...: `tdsl ARGS` exits with STATUS, says TEXT on
# stderr, prints nothing on stdout and no internal error.  The outputs
# are left in `out` and `err`.
expect() {
    want=$1 text=$2
    shift 2
    "$TDSL" "$@" >out 2>err
    st=$?
    [ "$st" = "$want" ] || fail "tdsl $*: exit $st, expected $want: $(cat err)"
    grep -qF -- "$text" err || fail "tdsl $*: no '$text' in: $(cat err)"
    [ -s out ] && fail "tdsl $*: printed on stdout: $(cat out)"
    grep -q 'internal error' err && fail "tdsl $*: internal error"
    return 0
}

# onnx_cases SCRIPT: SCRIPT (under tests/onnx) writes models m<k>.onnx
# with inputs m<k>_in*.pb and expected outputs m<k>_out*.pb into $TMP
# and prints how many; each is imported, run on the interpreter and on
# cpu, and compared with its expected outputs.  Exits 77 (skipped)
# without python3-onnx and python3-numpy.
onnx_cases() {
    py=/usr/bin/python3
    $py -c 'import onnx, numpy' 2>/dev/null || exit 77
    n=$($py "$OLDPWD/tests/onnx/$1" "$TMP" 2>err) || fail "$1: $(cat err)"
    k=0
    while [ "$k" -lt "$n" ]; do
        "$TDSL" import "m$k.onnx" -o "e$k.tdsl" 2>err ||
            fail "import case $k: $(cat err)"
        ins= outs=
        for f in m${k}_in*.pb; do ins="$ins --in $f"; done
        for f in m${k}_out*.pb; do outs="$outs --out ${f%.pb}.npy"; done
        for target in interp cpu; do
            "$TDSL" run "e$k.tdsl" $ins $outs --target $target 2>err ||
                fail "run case $k on $target: $(cat err)"
            for f in m${k}_out*.pb; do
                "$TDSL" import --compare "${f%.pb}.npy" "$f" 2>err ||
                    fail "case $k on $target, $f: $(cat err)"
            done
        done
        k=$((k + 1))
    done
}

# import_refused MODEL MESSAGE: `tdsl import MODEL.onnx` says exactly
# "MODEL.onnx: MESSAGE" on one line, exits 1 and leaves no file.
import_refused() {
    "$TDSL" import "$1.onnx" -o ref.tdsl 2>err
    st=$?
    [ $st = 1 ] || fail "$1.onnx: exit $st: $(cat err)"
    [ "$(cat err)" = "$1.onnx: $2" ] || fail "$1.onnx: $(cat err)"
    [ -e ref.tdsl ] || [ -e ref.safetensors ] &&
        fail "$1.onnx: a file left behind"
    return 0
}
