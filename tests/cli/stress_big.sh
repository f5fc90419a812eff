# stress_big.sh - a 10 MB program parses in a few seconds and its error
# on the last line is found at the right line; a single 10 MB line too;
# a source over 16 MiB is refused with a clear error.  Exit 1 each time,
# never a crash or a hang.
. "$(dirname "$0")/lib.sh"

# About 10 MB of kernels, schedules, statements and comments (8 lines
# per round), then one broken statement.
awk 'BEGIN {
    for (i = 0; i < 37000; i++) {
        printf "# kernel %d: a comment to make the file look like code\n", i
        printf "kernel k%d(A: f32[M, K], B: f32[K, N]; a: f32 = 1.0) -> (C: f32[M, N]) {\n", i
        printf "    t[i, j] = sum(k) A[i, k] * B[k, j]\n"
        printf "    C[i, j] = a * t[i, j] + 0.5\n}\n"
        printf "schedule k%d for cpu {\n    C.split(i, io, ii, 8).parallel(io)\n}\n", i
    }
    print "let broken = (1 +"
}' >big.tdsl
size=$(wc -c <big.tdsl)
[ "$size" -gt 10000000 ] || fail "big.tdsl is only $size bytes"
refused big.tdsl 'big.tdsl:296002:1: error: unexpected end of input'

# One line of 10 MB: a list literal with a million elements, unclosed.
awk 'BEGIN { printf "let v = ["; for (i = 0; i < 1250000; i++) printf "%d, ", i % 1000; printf "\n" }' >line.tdsl
refused line.tdsl 'line.tdsl:2:1: error: unexpected end of input'

# Over the 16 MiB limit.
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "# %s\n", "a comment line of about sixty bytes, repeated many times" }' >huge.tdsl
refused huge.tdsl 'huge.tdsl:1:1: error: source file is too large'
exit 0
