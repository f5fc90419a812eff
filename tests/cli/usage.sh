# usage.sh - the command line itself: --version, --help, exit code 2
# with a hint for bad usage, and the commands that are still to come.
fail() { echo "FAIL: $*"; exit 1; }

out=$("$TDSL" --version) || fail "--version exited with $?"
echo "$out" | grep -Eqx 'tdsl [0-9]+\.[0-9]+\.[0-9]+' ||
    fail "--version printed '$out'"

"$TDSL" --help >"$TMP/help" || fail "--help exited with $?"
grep -q '^usage: tdsl' "$TMP/help" || fail "--help shows no usage line"
for c in check fmt dump; do
    grep -q "^  $c " "$TMP/help" || fail "--help does not list '$c'"
done

# usage_error STATUS TEXT ARGS...: tdsl ARGS exits with STATUS and says
# TEXT on stderr.
usage_error() {
    want=$1 text=$2
    shift 2
    "$TDSL" "$@" >"$TMP/out" 2>"$TMP/err"
    st=$?
    [ "$st" = "$want" ] || fail "tdsl $*: exit $st, expected $want"
    grep -qF -- "$text" "$TMP/err" ||
        fail "tdsl $*: stderr lacks '$text': $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "tdsl $*: printed on stdout"
    return 0
}

usage_error 2 "unknown command 'frobnicate'" frobnicate
usage_error 2 "try 'tdsl --help'" frobnicate
usage_error 2 "unknown option '--frobnicate'" --frobnicate
usage_error 2 "check: no file given" check
usage_error 2 "check: unknown option '--x'" check --x a.tdsl
usage_error 2 "fmt: --check and -w do not go together" fmt --check -w a
usage_error 2 "fmt: -w cannot rewrite standard input" fmt -w -
usage_error 2 "dump: say what to dump" dump a.tdsl
usage_error 1 "cannot read '$TMP/none.tdsl'" check "$TMP/none.tdsl"

for c in bench; do
    usage_error 2 "'$c' is not implemented yet (see issue" "$c"
done
usage_error 2 "import: which model?" import
usage_error 2 "sim: which program?" sim
usage_error 2 "sim: unknown option '--x'" sim --x k.tam
usage_error 2 "sim: --in wants NAME=FILE.npy" sim k.tam --in a.npy
usage_error 2 "asm: which file?" asm
usage_error 2 "asm: one file at a time" asm a.s b.s
usage_error 2 "disasm: 'a.s' is not a .tam file" disasm a.s
usage_error 1 "cannot read '$TMP/script.tdsl'" "$TMP/script.tdsl"
exit 0
