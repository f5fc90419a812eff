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
