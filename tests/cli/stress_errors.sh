# stress_errors.sh - a file with thousands of mistakes: the first 50 are
# reported, then "too many errors; stopping", exit 1, quickly.
. "$(dirname "$0")/lib.sh"

awk 'BEGIN { for (i = 0; i < 100000; i++) printf "let v%d = %d $ (\n) ) ]\n", i, i }' >many.tdsl
refused many.tdsl 'error: too many errors; stopping'
n=$(grep -c 'error:' err)
[ "$n" = 51 ] || fail "$n errors reported, expected 50 and the cap"
# Every kind of token in a random-looking order: errors, no crash.
awk 'BEGIN {
    split("kernel schedule extern import let print assert time target on for in as from true false sum prod max min argmax argmin layout f32 i8 ( ) [ ] { } , ; : . .. -> = == != < <= > >= + - * / % && || ! @ x 1 2.5 \"s\" 2_L2B #c", t, " ")
    n = length(t); s = 7
    for (i = 0; i < 200000; i++) {
        s = (s * 1103515245 + 12345) % 2147483648
        printf "%s%s", t[s % n + 1], (s % 7 == 0) ? "\n" : " "
    }
}' >soup.tdsl
refused soup.tdsl
exit 0
