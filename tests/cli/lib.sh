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

# onnx_cases SCRIPT [bind]: SCRIPT (under tests/onnx) writes models
# m<k>.onnx with inputs m<k>_in*.pb and expected outputs m<k>_out*.pb
# into $TMP and prints how many; each is imported (with `bind`, every
# input bound to its data: --bind #j=FILE), checked canonical (tdsl fmt
# --check), run on the interpreter and on cpu, and compared with its
# expected outputs.  Exits 77 (skipped) without python3-onnx and
# python3-numpy.
onnx_cases() {
    py=/usr/bin/python3
    $py -c 'import onnx, numpy' 2>/dev/null || exit 77
    n=$($py "$OLDPWD/tests/onnx/$1" "$TMP" 2>err) || fail "$1: $(cat err)"
    k=0
    while [ "$k" -lt "$n" ]; do
        ins= outs= binds= j=0
        for f in m${k}_in*.pb; do
            [ -e "$f" ] || continue
            ins="$ins --in $f"
            binds="$binds --bind #$j=$f"
            j=$((j + 1))
        done
        [ "${2-}" = bind ] || binds=
        for f in m${k}_out*.pb; do outs="$outs --out ${f%.pb}.npy"; done
        # shellcheck disable=SC2086
        "$TDSL" import "m$k.onnx" -o "e$k.tdsl" $binds 2>err ||
            fail "import case $k: $(cat err)"
        "$TDSL" fmt --check "e$k.tdsl" 2>err ||
            fail "e$k.tdsl is not canonical: $(cat err)"
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

# import_says MESSAGE ARGS...: `tdsl import ARGS` says exactly MESSAGE
# on one line, exits 1 and leaves no file.
import_says() {
    msg=$1
    shift
    "$TDSL" import "$@" -o ref.tdsl 2>err
    st=$?
    [ $st = 1 ] || fail "import $*: exit $st: $(cat err)"
    [ "$(cat err)" = "$msg" ] || fail "import $*: $(cat err)"
    [ -e ref.tdsl ] || [ -e ref.safetensors ] &&
        fail "import $*: a file left behind"
    return 0
}

# run_says MESSAGE ARGS...: `tdsl run ARGS` exits 1 saying exactly
# MESSAGE; usage_says: exits 2, MESSAGE then the hint to --help.
run_says() {
    msg=$1
    shift
    "$TDSL" run "$@" >out 2>err
    st=$?
    [ $st = 1 ] || fail "run $*: exit $st: $(cat err)"
    [ "$(cat err)" = "$msg" ] || fail "run $*: $(cat err)"
    return 0
}
usage_says() {
    msg=$1
    shift
    "$TDSL" run "$@" >out 2>err
    st=$?
    [ $st = 2 ] || fail "run $*: exit $st: $(cat err)"
    [ "$(cat err)" = "$msg
try 'tdsl --help'" ] || fail "run $*: $(cat err)"
    return 0
}

# import_refused MODEL MESSAGE: `tdsl import MODEL.onnx` says exactly
# "MODEL.onnx: MESSAGE" on one line, exits 1 and leaves no file.
import_refused() {
    import_says "$1.onnx: $2" "$1.onnx"
}

# asm_round_trip PROGRAM...: each accel program P.s assembles to P.tam,
# disassembles, and assembles again to the same bytes and prints the
# same text; the binary runs on the simulator as the source does.
asm_round_trip() {
    for p in "$@"; do
        "$TDSL" asm $p.s -o $p.tam || fail "asm $p"
        "$TDSL" disasm $p.tam >$p.dis.s || fail "disasm $p"
        "$TDSL" asm $p.dis.s -o $p.again.tam || fail "asm $p.dis.s"
        cmp -s $p.tam $p.again.tam || fail "$p: the binary changed"
        "$TDSL" disasm $p.again.tam | cmp -s - $p.dis.s ||
            fail "$p: the text changed"
        "$TDSL" sim $p.tam --stats >tam.stats 2>err || fail "sim $p.tam"
        "$TDSL" sim $p.s --stats >s.stats 2>err || fail "sim $p.s"
        cmp -s tam.stats s.stats || fail "$p: .tam and .s runs differ"
    done
}

# cycles PROGRAM ARGS...: the simulated cycle count of a run of an
# accel program (tdsl sim --stats; the stats are left in ./stats).
cycles() {
    "$TDSL" sim "$@" --stats >stats 2>err || fail "sim $*: $(cat err)"
    sed -n 's/^cycles  *\([0-9]*\) .*/\1/p' stats
}
