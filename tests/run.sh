#!/bin/sh
# tests/run.sh - run the tdsl test suite: one line per test, then a count.
#
# Usage: sh tests/run.sh [PATTERN]   (from anywhere; `make check` runs it)
# Only tests whose name contains PATTERN run.  Each prints
# "name... [ok]", "name... [skip]" or "name... [FAIL] reason" with the
# difference below it; the last line is "N passed, N failed" (and ",
# N skipped").  Exit status 0 when nothing failed.  Exit code 77 from a
# unit test or a CLI script means "skipped" (a tool is not available).
#
# The kinds of tests, and what each file must hold, are described above
# each section below.  Set TDSL to test another binary than ./tdsl.

cd "$(dirname "$0")/.." || exit 2
pattern=${1:-}
TDSL=${TDSL:-./tdsl}
if [ ! -x "$TDSL" ]; then
    echo "tests/run.sh: $TDSL not found; run 'make' first" >&2
    exit 2
fi
TDSL_ABS=$(cd "$(dirname "$TDSL")" && pwd)/$(basename "$TDSL")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdsl-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Under ASan/UBSan a report would otherwise exit with 1, which looks
# like an ordinary "diagnostic in the program" exit.
case ${ASAN_OPTIONS:-} in
*exitcode=*) ;;
*) ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99" ;;
esac
case ${UBSAN_OPTIONS:-} in
*exitcode=*) ;;
*) UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99" ;;
esac
export ASAN_OPTIONS UBSAN_OPTIONS
# The C backend's generated code must compile warning-free.
TDSL_CFLAGS_EXTRA=${TDSL_CFLAGS_EXTRA--Wall -Werror}
export TDSL_CFLAGS_EXTRA

npass=0
nfail=0
nskip=0

# --------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------

# selected NAME: is NAME picked by the pattern?
selected() {
    case $1 in *"$pattern"*) return 0 ;; esac
    return 1
}

ok() {
    npass=$((npass + 1))
    printf '%s... [ok]\n' "$1"
}

skip() {
    nskip=$((nskip + 1))
    printf '%s... [skip]\n' "$1"
}

# fail NAME REASON [FILE]: FILE holds the details (a diff, stderr).
fail() {
    nfail=$((nfail + 1))
    printf '%s... [FAIL] %s\n' "$1" "$2"
    if [ -n "${3:-}" ] && [ -s "$3" ]; then
        sed -n '1,40s/^/    /p' "$3"
        n=$(wc -l <"$3")
        [ "$n" -gt 40 ] && echo "    ... ($n lines in all)"
    fi
    return 0
}

# same EXPECTED ACTUAL: compare two files, leaving a diff in $tmp/diff.
same() {
    diff -u --label expected --label actual "$1" "$2" >"$tmp/diff"
}

# --------------------------------------------------------------------
# Running tdsl
# --------------------------------------------------------------------

# run_tdsl OUT ERR ARGS...: run tdsl, keep stdout and stderr, set $rc.
# Sets $why (and returns 1) when stderr shows something that fails any
# test: an internal error or a sanitizer report.
run_tdsl() {
    _out=$1 _err=$2
    shift 2
    "$TDSL" "$@" >"$_out" 2>"$_err"
    rc=$?
    why=
    if grep -q 'internal error' "$_err"; then
        why="internal error (tdsl $*)"
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$_err"; then
        why="sanitizer report (tdsl $*)"
    elif [ "$rc" -gt 3 ]; then
        why="tdsl $* exited with status $rc"
    fi
    [ -z "$why" ]
}

# tdsl_ok NAME OUT ARGS...: run tdsl expecting exit 0; on failure report
# it for test NAME and return 1.
tdsl_ok() {
    _name=$1 _o=$2
    shift 2
    if ! run_tdsl "$_o" "$tmp/err" "$@"; then
        fail "$_name" "$why" "$tmp/err"
        return 1
    fi
    if [ "$rc" != 0 ]; then
        fail "$_name" "tdsl $* exited with status $rc" "$tmp/err"
        return 1
    fi
}

# --------------------------------------------------------------------
# Unit tests: tests/unit/NAME.c, built by make into build/tests/NAME.
# --------------------------------------------------------------------

for src in tests/unit/*.c; do
    [ -e "$src" ] || continue
    base=${src##*/}
    base=${base%.c}
    name=unit/$base
    selected "$name" || continue
    bin=build/tests/$base
    if [ ! -x "$bin" ]; then
        fail "$name" "$bin not built (run 'make check')"
        continue
    fi
    "$bin" >"$tmp/out" 2>&1
    rc=$?
    case $rc in
    0) ok "$name" ;;
    77) skip "$name" ;;
    *) fail "$name" "exit status $rc" "$tmp/out" ;;
    esac
done

# --------------------------------------------------------------------
# Golden files.  tests/parse/NAME.tdsl with NAME.ast: `tdsl dump --ast`
# must print NAME.ast.  tests/fmt/NAME.tdsl with NAME.expected: `tdsl
# fmt` must print NAME.expected.
# --------------------------------------------------------------------

# golden KIND SUFFIX ARGS...: the golden test of every tests/KIND file.
golden() {
    _kind=$1 _suffix=$2
    shift 2
    for f in tests/"$_kind"/*.tdsl; do
        g=${f%.tdsl}.$_suffix
        [ -e "$g" ] || continue
        base=${f##*/}
        name=$_kind/${base%.tdsl}
        selected "$name" || continue
        tdsl_ok "$name" "$tmp/out" "$@" "$f" || continue
        if same "$g" "$tmp/out"; then
            ok "$name"
        else
            fail "$name" "output differs from $g" "$tmp/diff"
        fi
    done
}

golden parse ast dump --ast
golden fmt expected fmt
golden pipeline pipeline dump --pipeline

# --------------------------------------------------------------------
# Round trips, for every example, std module and parse/fmt test:
# parse -> print -> parse gives the same AST, and fmt is idempotent.
# --------------------------------------------------------------------

roundtrip() {
    f=$1
    name=roundtrip/${f%.tdsl}
    selected "$name" || return 0
    tdsl_ok "$name" "$tmp/ast1" dump --ast "$f" || return 0
    tdsl_ok "$name" "$tmp/fmt1.tdsl" fmt "$f" || return 0
    tdsl_ok "$name" "$tmp/ast2" dump --ast "$tmp/fmt1.tdsl" || return 0
    if ! same "$tmp/ast1" "$tmp/ast2"; then
        fail "$name" "the AST changes when printed by fmt" "$tmp/diff"
        return 0
    fi
    tdsl_ok "$name" "$tmp/fmt2.tdsl" fmt "$tmp/fmt1.tdsl" || return 0
    if ! same "$tmp/fmt1.tdsl" "$tmp/fmt2.tdsl"; then
        fail "$name" "fmt is not idempotent" "$tmp/diff"
        return 0
    fi
    ok "$name"
}

for f in examples/*.tdsl $(find stdlib -name '*.tdsl' 2>/dev/null | sort) \
         tests/parse/*.tdsl tests/fmt/*.tdsl tests/script/*.tdsl tests/interp/*.tdsl \
         tests/stdlib/*.tdsl tests/stdlib/numpy/*.tdsl tests/cpu/*.tdsl \
         tests/accel/*.tdsl; do
    [ -e "$f" ] && roundtrip "$f"
done

# --------------------------------------------------------------------
# Examples: every examples/*.tdsl passes `tdsl check` silently.
# --------------------------------------------------------------------

for f in examples/*.tdsl; do
    [ -e "$f" ] || continue
    base=${f##*/}
    name=example/${base%.tdsl}
    selected "$name" || continue
    tdsl_ok "$name" "$tmp/out" check "$f" || continue
    cat "$tmp/out" "$tmp/err" >"$tmp/all"
    if [ -s "$tmp/all" ]; then
        fail "$name" "tdsl check printed something" "$tmp/all"
    else
        ok "$name"
    fi
done

# --------------------------------------------------------------------
# Error and warning tests: tests/error/NAME.tdsl holds one or more lines
#     # expect: LINE:COL: error: MESSAGE
# (warnings likewise).  `tdsl check` must report exactly those
# diagnostics, in that order, and exit 1 (tests/warning: exit 0).
# Notes and the source/caret lines are not compared here; tests/diag
# checks the full rendering.
# --------------------------------------------------------------------

# expect_test KIND STATUS
expect_test() {
    _kind=$1 _status=$2
    for f in tests/"$_kind"/*.tdsl; do
        [ -e "$f" ] || continue
        base=${f##*/}
        name=$_kind/${base%.tdsl}
        selected "$name" || continue
        sed -n 's/^.*# expect: //p' "$f" | sed 's/[[:space:]]*$//' \
            >"$tmp/expected"
        if [ ! -s "$tmp/expected" ]; then
            fail "$name" "no '# expect: LINE:COL: error: MESSAGE' line"
            continue
        fi
        if ! run_tdsl "$tmp/out" "$tmp/err" check "$f"; then
            fail "$name" "$why" "$tmp/err"
            continue
        fi
        awk -v p="$f:" 'index($0, p) == 1 {
                r = substr($0, length(p) + 1)
                if (r ~ /^[0-9]+:[0-9]+: (error|warning): /) print r
            }' "$tmp/err" | sed 's/[[:space:]]*$//' >"$tmp/actual"
        if ! same "$tmp/expected" "$tmp/actual"; then
            fail "$name" "diagnostics differ" "$tmp/diff"
        elif [ "$rc" != "$_status" ]; then
            fail "$name" "exit status $rc, expected $_status" "$tmp/err"
        else
            ok "$name"
        fi
    done
}

expect_test error 1
expect_test warning 0

# --------------------------------------------------------------------
# Diagnostic rendering: tests/diag/NAME.tdsl holds a block
#     # >>> stderr
#     # FILE:3:5: error: ...
#     #     3 | ...
#     # <<<
# equal to the whole stderr of `tdsl check`, with the path written FILE.
# --------------------------------------------------------------------

for f in tests/diag/*.tdsl; do
    [ -e "$f" ] || continue
    base=${f##*/}
    name=diag/${base%.tdsl}
    selected "$name" || continue
    awk '/^#[ ]?>>> stderr[ \t]*$/ { inb = 1; next }
         inb && /^#[ ]?<<<[ \t]*$/ { inb = 0; found = 1; next }
         inb { sub(/^# ?/, ""); print }
         END { exit !found }' "$f" >"$tmp/expected"
    if [ $? != 0 ]; then
        fail "$name" "no '# >>> stderr' ... '# <<<' block"
        continue
    fi
    if ! run_tdsl "$tmp/out" "$tmp/err" check "$f"; then
        fail "$name" "$why" "$tmp/err"
        continue
    fi
    # Replace the path by FILE, as plain text (it holds '.' and '/').
    awk -v p="$f" '{
            s = $0; o = ""
            while ((i = index(s, p)) > 0) {
                o = o substr(s, 1, i - 1) "FILE"
                s = substr(s, i + length(p))
            }
            print o s
        }' "$tmp/err" >"$tmp/actual"
    if ! same "$tmp/expected" "$tmp/actual"; then
        fail "$name" "stderr differs" "$tmp/diff"
    elif [ "$rc" -gt 1 ]; then
        fail "$name" "exit status $rc" "$tmp/err"
    else
        ok "$name"
    fi
done

# --------------------------------------------------------------------
# Scripts: tests/script/NAME.tdsl holds a block
#     # >>> stdout
#     # f32[2]
#     # <<<
# equal to the stdout of `tdsl NAME.tdsl`, run from a fresh copy of its
# folder (relative paths of save and load are the script's folder's, so
# each script works on files of its own; imports are found beside it).  The exit status must
# be 0, unless the file also holds a `# >>> stderr` block: then stderr
# must equal it (the script's path written FILE) and the status be 1.
# A script without a stdout block (every example; they assert their own
# results and time things) passes when it exits 0 with stderr empty; an
# example that needs a target not built yet is skipped.
# --------------------------------------------------------------------

# block KIND FILE: print the `# >>> KIND` block of FILE; fail if none.
block() {
    awk -v k="$1" '$0 ~ "^#[ ]?>>> " k "[ \t]*$" { inb = 1; next }
         inb && /^#[ ]?<<<[ \t]*$/ { inb = 0; found = 1; next }
         inb { sub(/^# ?/, ""); print }
         END { exit !found }' "$2"
}

for f in tests/script/*.tdsl tests/interp/*.tdsl tests/stdlib/*.tdsl \
         tests/cpu/*.tdsl tests/accel/*.tdsl examples/*.tdsl; do
    [ -e "$f" ] || continue
    base=${f##*/}
    name=script/${base%.tdsl}
    case $f in examples/*) name=example-run/${base%.tdsl} ;; esac
    selected "$name" || continue
    noblock=0
    block stdout "$f" >"$tmp/expected" || noblock=1
    want=0
    block stderr "$f" >"$tmp/expected_err" && want=1
    d=$(mktemp -d "$tmp/script.XXXXXX")
    cp -R "${f%/*}/." "$d/"
    abs=$d/$base
    (cd "$d" && exec "$TDSL_ABS" "$abs") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    rm -rf "$d"
    # The script is FILE; paths beside it are written relative.
    awk -v p="$abs" -v q="$d/" '{
            s = $0; o = ""
            while ((i = index(s, p)) > 0) {
                o = o substr(s, 1, i - 1) "FILE"
                s = substr(s, i + length(p))
            }
            s = o s; o = ""
            while ((i = index(s, q)) > 0) {
                o = o substr(s, 1, i - 1)
                s = substr(s, i + length(q))
            }
            print o s
        }' "$tmp/err" >"$tmp/actual_err"
    if grep -q -e 'internal error' -e 'Sanitizer' -e 'runtime error:' \
        "$tmp/err"; then
        fail "$name" "internal error or sanitizer report" "$tmp/err"
    elif [ "$noblock" = 1 ]; then
        if [ "$rc" = 0 ] && [ ! -s "$tmp/err" ]; then
            ok "$name"
        elif grep -q "error: target '.*' is not available yet" "$tmp/err"
        then
            skip "$name"
        else
            fail "$name" "exit status $rc or stderr not empty" "$tmp/err"
        fi
    elif ! same "$tmp/expected" "$tmp/out"; then
        fail "$name" "stdout differs" "$tmp/diff"
    elif [ "$want" = 1 ] && ! same "$tmp/expected_err" "$tmp/actual_err"
    then
        fail "$name" "stderr differs" "$tmp/diff"
    elif [ "$rc" != "$want" ]; then
        fail "$name" "exit status $rc, expected $want" "$tmp/err"
    else
        ok "$name"
    fi
done

# --------------------------------------------------------------------
# REPL: tests/repl/NAME.transcript is replayed in a pseudo-terminal and
# NAME.pipe through a pipe, by tests/repl/pty_driver.py (its header
# describes the formats; 77 or no /usr/bin/python3: skipped).
# --------------------------------------------------------------------

for t in tests/repl/*.transcript tests/repl/*.pipe; do
    [ -e "$t" ] || continue
    base=${t##*/}
    name=repl/${base%.*}
    selected "$name" || continue
    if [ ! -x /usr/bin/python3 ]; then
        skip "$name"
        continue
    fi
    /usr/bin/python3 tests/repl/pty_driver.py "$TDSL_ABS" "$t" \
        >"$tmp/out" 2>&1
    case $? in
    0) ok "$name" ;;
    77) skip "$name" ;;
    *) fail "$name" "the session differs" "$tmp/out" ;;
    esac
done

# --------------------------------------------------------------------
# Loop IR passes: tests/ir/PASS/NAME.lir holds a function in the loop
# IR's text form (codegen/codegen.h) and a block
#     # >>> expected
#     # func f(...) {
#     # <<<
# equal to the stdout of `build/tests/lir_tool --pass PASS NAME.lir`.
# --------------------------------------------------------------------

for f in tests/ir/*/*.lir; do
    [ -e "$f" ] || continue
    pass=${f#tests/ir/}
    pass=${pass%%/*}
    base=${f##*/}
    name=ir/$pass/${base%.lir}
    selected "$name" || continue
    if ! block expected "$f" >"$tmp/expected"; then
        fail "$name" "no '# >>> expected' ... '# <<<' block"
        continue
    fi
    build/tests/lir_tool --pass "$pass" "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" != 0 ]; then
        fail "$name" "lir_tool exited with status $rc" "$tmp/err"
    elif ! same "$tmp/expected" "$tmp/out"; then
        fail "$name" "output differs" "$tmp/diff"
    else
        ok "$name"
    fi
done

# --------------------------------------------------------------------
# Lowered schedules: tests/ir/lower/NAME.tdsl holds one kernel with a
# cpu schedule and a block `# >>> expected` ... `# <<<` equal to the
# stdout of `tdsl lower NAME.tdsl` (the loop IR after the directives
# and the pass pipeline), with 32-byte automatic vectors on every host.
# --------------------------------------------------------------------

for f in tests/ir/lower/*.tdsl; do
    [ -e "$f" ] || continue
    base=${f##*/}
    name=ir/lower/${base%.tdsl}
    selected "$name" || continue
    if ! block expected "$f" >"$tmp/expected"; then
        fail "$name" "no '# >>> expected' ... '# <<<' block"
        continue
    fi
    TDSL_VECTOR_BYTES=32 "$TDSL" lower "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" != 0 ]; then
        fail "$name" "tdsl lower exited with status $rc" "$tmp/err"
    elif ! same "$tmp/expected" "$tmp/out"; then
        fail "$name" "output differs" "$tmp/diff"
    else
        ok "$name"
    fi
done

# --------------------------------------------------------------------
# CLI tests: tests/cli/NAME.sh, run from the top folder with TDSL (the
# binary, absolute) and TMP (a fresh empty folder) in the environment.
# Exit 0 passes, 77 skips, anything else fails showing the output.
# tests/cli/lib.sh is not a test: the tests source it.
# --------------------------------------------------------------------

for s in tests/cli/*.sh; do
    [ -e "$s" ] || continue
    base=${s##*/}
    [ "$base" = lib.sh ] && continue
    name=cli/${base%.sh}
    selected "$name" || continue
    d=$(mktemp -d "$tmp/cli.XXXXXX")
    TDSL=$TDSL_ABS TMP=$d sh "$s" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q -e 'internal error' -e 'Sanitizer' \
        -e 'runtime error:' "$tmp/out"; then
        rc=1
        echo "(internal error or sanitizer report in the output)" \
            >>"$tmp/out"
    fi
    case $rc in
    0) ok "$name" ;;
    77) skip "$name" ;;
    *) fail "$name" "exit status $rc" "$tmp/out" ;;
    esac
    rm -rf "$d"
done

# --------------------------------------------------------------------
# Differential tests against the interpreter (tests/random/random.c).
# random/cases: TDSL_RANDOM_CHECK (150) random kernels under random
# valid schedules, compiled for the cpu and compared bit for bit
# (`make check-random` runs 1000; a failure prints the seed that
# replays it).  random/accel: TDSL_RANDOM_ACCEL_CHECK (1000) random
# kernels of the kinds the accel target compiles, on the simulator
# (`make check-random TARGET=accel`).  diff/NAME: every kernel the
# script of an example, of a std test or of tests/diff (cases the
# random test found, and the cpu's dtypes and reductions) calls, with
# the arguments of its first call, under its own schedule and
# TDSL_DIFF_SCHEDULES (2) random ones.
# --------------------------------------------------------------------

random_test() {
    _name=$1
    shift
    selected "$_name" || return 0
    if [ ! -x build/tests/random ]; then
        fail "$_name" "build/tests/random not built (run 'make check')"
        return 0
    fi
    if build/tests/random "$@" >"$tmp/out" 2>&1; then
        ok "$_name"
    else
        fail "$_name" "$(tail -n 1 "$tmp/out")" "$tmp/out"
    fi
}

random_test random/cases -n "${TDSL_RANDOM_CHECK:-150}" -s 1 -j 2
random_test random/accel -t accel -n "${TDSL_RANDOM_ACCEL_CHECK:-1000}" \
    -s 1 -j 2
for f in examples/*.tdsl tests/stdlib/*.tdsl tests/diff/*.tdsl; do
    [ -e "$f" ] || continue
    random_test "diff/${f%.tdsl}" -f "$f" \
        -n "${TDSL_DIFF_SCHEDULES:-2}" -s 1 -j 2
done

# --------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------

if [ "$nskip" -gt 0 ]; then
    echo "$npass passed, $nfail failed, $nskip skipped"
else
    echo "$npass passed, $nfail failed"
fi
# The exit status is the number of failures, capped below 126.
[ "$nfail" -gt 125 ] && nfail=125
exit "$nfail"
