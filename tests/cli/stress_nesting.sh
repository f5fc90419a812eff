# stress_nesting.sh - absurdly deep input: 100k open brackets, long
# unary, binary, member, index and reduction chains.  Each is refused
# with "nested too deeply" (exit 1) quickly, never a crash or a hang.
. "$(dirname "$0")/lib.sh"

deep='nested too deeply'
{ printf 'let x = '; repeat 100000 '('; echo 1; } >parens.tdsl
refused parens.tdsl "$deep (more than 256 levels)"
{ printf 'let x = '; repeat 100000 '['; echo 1; } >brackets.tdsl
refused brackets.tdsl "$deep (more than 256 levels)"
{ printf 'let x = f('; repeat 100000 'g(1, ['; echo; } >calls.tdsl
refused calls.tdsl "$deep (more than 256 levels)"
{ printf 'let x = '; repeat 100000 '-'; echo 1; } >minus.tdsl
refused minus.tdsl "$deep"
{ printf 'let x = '; repeat 100000 '!'; echo 1; } >not.tdsl
refused not.tdsl "$deep"
{ printf 'let x = 1'; repeat 100000 ' + 1'; echo; } >sum.tdsl
refused sum.tdsl "$deep (more than 1000 levels)"
{ printf 'let x = a'; repeat 100000 '.b'; echo; } >members.tdsl
refused members.tdsl "$deep (more than 1000 levels)"
{ printf 'let x = a'; repeat 100000 '[0]'; echo; } >index.tdsl
refused index.tdsl "$deep (more than 1000 levels)"
{ printf 'let x = f(1)'; repeat 100000 '.g(1)'; echo; } >callchain.tdsl
refused callchain.tdsl "$deep (more than 1000 levels)"
{ printf 'kernel k(A: f32[N]) -> (B: f32[N]) {\n    B[i] = '
  repeat 50000 'sum(k) '; echo 'A[k]'; echo '}'; } >reductions.tdsl
refused reductions.tdsl "$deep"
# Just under the limits: 256 brackets and 1000 levels parse.
{ printf 'let x = '; repeat 255 '('; printf 1; repeat 255 ')'; echo; } >ok1.tdsl
timeout 20 "$TDSL" dump --ast ok1.tdsl >/dev/null 2>err ||
    fail "255 parentheses: $(head -c 400 err)"
{ printf 'let x = 1'; repeat 990 ' + 1'; echo; } >ok2.tdsl
timeout 20 "$TDSL" dump --ast ok2.tdsl >/dev/null 2>err ||
    fail "990 additions: $(head -c 400 err)"
# Braces do not nest in the grammar: a wall of them is a syntax error.
{ repeat 100000 '{'; echo; } >braces.tdsl
refused braces.tdsl "unexpected '{'"
exit 0
