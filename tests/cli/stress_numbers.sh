# stress_numbers.sh - numbers too large for i64 or f64, in every
# spelling, and a megabyte of digits: each reported, exit 1, no crash.
cd "$TMP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

repeat() {
    awk -v n="$1" -v t="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", t }'
}

# refused FILE TEXT...: `tdsl check FILE` exits 1 and reports each TEXT.
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

printf 'let a = 9223372036854775808\n' >int.tdsl
refused int.tdsl "1:9: error: integer literal '9223372036854775808' is too large"
printf 'let a = 0x%s\n' "$(repeat 1000 F)" >hex.tdsl
refused hex.tdsl '1:9: error: integer literal .0xFFFF.*\.\.\.. is too large'
printf 'let a = %s\n' "$(repeat 1000000 9)" >digits.tdsl
refused digits.tdsl '1:9: error: integer literal .9999.*is too large'
printf 'let a = 1e99999\nlet b = 1.%se999\n' "$(repeat 100000 9)" >float.tdsl
refused float.tdsl "1:9: error: float literal '1e99999' is out of range" \
    '2:9: error: float literal .1\.999.* is out of range'
printf 'let a = 99999999999999999999_L2B\n' >factor.tdsl
refused factor.tdsl "1:9: error: integer literal '99999999999999999999' is too large"
printf 'let a = 0x\nlet b = 1e+\nlet c = 123abc\n' >bad.tdsl
refused bad.tdsl "1:9: error: malformed number '0x'" \
    "2:9: error: malformed number '1e'" "3:9: error: malformed number '123abc'"
# Tiny floats round to zero and are fine; so is the largest i64.
printf 'let a = 1e-99999\nlet b = 9223372036854775807\n' >fine.tdsl
timeout 20 "$TDSL" dump --ast fine.tdsl >/dev/null 2>err ||
    fail "fine.tdsl: $(head -c 400 err)"
exit 0
