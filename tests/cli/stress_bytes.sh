# stress_bytes.sh - invalid UTF-8 and NUL bytes in code, strings and
# comments, and every byte value at once: each bad byte is reported at
# its own column (exit 1), the rest of the line is still read, and
# nothing crashes.
. "$(dirname "$0")/lib.sh"

printf 'let s = "\377\376"\n# \300\257 overlong\nlet t = 1 \355\240\200\n' >utf8.tdsl
refused utf8.tdsl '1:10: error: invalid UTF-8 byte 0xff' \
    '1:11: error: invalid UTF-8 byte 0xfe' \
    '2:3: error: invalid UTF-8 byte 0xc0' '2:4: error: invalid UTF-8 byte 0xaf' \
    '3:11: error: invalid UTF-8 byte 0xed' '3:13: error: invalid UTF-8 byte 0x80'
# Columns count characters: the error after two 2-byte characters.
printf 'let s = "\303\251\303\251\377"\n' >cols.tdsl
refused cols.tdsl '1:12: error: invalid UTF-8 byte 0xff'
printf 'let x\000 = 1\n\000\000\nlet s = "a\000b"\n# \000\n' >nul.tdsl
refused nul.tdsl '1:6: error: NUL byte in source' '2:1: error: NUL byte' \
    '2:2: error: NUL byte' '3:11: error: NUL byte' '4:3: error: NUL byte'
# Every byte value, repeatedly, with and without newlines.
awk 'BEGIN { for (r = 0; r < 50; r++) for (i = 1; i < 256; i++) printf "%c", i }' >all.tdsl
printf '\000\000' >>all.tdsl
refused all.tdsl 'error:'
awk 'BEGIN { for (r = 0; r < 2000; r++) printf "let \"\\%c\343\201 = [\300\n", r % 200 + 40 }' >mixed.tdsl
refused mixed.tdsl 'error:'
exit 0
