# stress_numbers.sh - numbers too large for i64 or f64, in every
# spelling, and a megabyte of digits: each reported, exit 1, no crash.
. "$(dirname "$0")/lib.sh"

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
