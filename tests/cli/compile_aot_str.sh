# compile_aot_str.sh - `tdsl compile` of kernels on strings (SPEC 8.6,
# docs/c-abi.md): str tensors as arrays of `const char *`, the
# allocator the entry takes last, TDSL_ERR_STR; examples/aot_str/main.c
# links three such kernels and checks them; the script of the example
# prints the same on cpu as on the interpreter.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
ex=$src/examples/aot_str
command -v cc >/dev/null 2>&1 || exit 77

"$TDSL" "$ex/kernels.tdsl" >cpu.out 2>err || fail "kernels.tdsl: $(cat err)"
"$TDSL" fmt --check "$ex/kernels.tdsl" || fail "kernels.tdsl not canonical"
sed 's/ on cpu$//' "$ex/kernels.tdsl" >interp.tdsl
"$TDSL" interp.tdsl >interp.out 2>err || fail "interp: $(cat err)"
cmp -s cpu.out interp.out || fail "cpu and interpreter differ: $(diff cpu.out interp.out)"

for k in words texts numbers; do
    "$TDSL" compile "$ex/kernels.tdsl" --kernel $k --target cpu \
        -o $k.so -o $k.h -o $k.c 2>err || fail "compile $k: $(cat err)"
done
grep -q '^int tdsl_words(const char \*const \*w, const int64_t \*w_shape' \
    words.h || fail "words.h: $(cat words.h)"
grep -q 'const char \*\*lo, const int64_t \*lo_shape' words.h ||
    fail "words.h: no str output: $(cat words.h)"
grep -q 'tdsl_str_alloc \*tdsl_strs);$' words.h ||
    fail "words.h: no allocator: $(cat words.h)"
grep -q '^#define TDSL_ERR_STR 6' words.h || fail "no TDSL_ERR_STR"
# The interpreter's code for the text of numbers, not a copy of it.
grep -q 'tl_sc_float' texts.c || fail "texts.c has no tl_sc_float"
cc -std=c11 -Wall -Wextra -Werror -I. "$ex/main.c" -L. -l:words.so \
    -l:texts.so -l:numbers.so -Wl,-rpath,"$TMP" -o main 2>err ||
    fail "building main.c: $(cat err)"
./main >out 2>&1 || fail "main: $(cat out)"
[ "$(grep -c '^ok: ' out)" = 10 ] || fail "main: $(cat out)"
# The .c builds alone, and the three headers go together (C++ too).
cc -std=c11 -O2 -ffp-contract=off -Wall -Werror -shared -fPIC texts.c \
    -o texts2.so -lm 2>err || fail "texts.c does not build: $(cat err)"
printf '#include "words.h"\n#include "texts.h"\n#include "numbers.h"\n' >h.c
cc -std=c11 -fsyntax-only -Wall -Werror -I. h.c 2>err ||
    fail "the headers: $(cat err)"
if command -v c++ >/dev/null 2>&1; then
    cp h.c h.cc
    c++ -fsyntax-only -Wall -Werror -I. h.cc 2>err ||
        fail "the headers are no C++: $(cat err)"
fi
# hash(w) of a str input in an assert: the entry hashes the text (with
# its NUL; NULL is ""), through the strides, as the interpreter does.
cat >h.tdsl <<'TDSL'
kernel mk(n: i32[N]) -> (w: str[N]) {
    w[i] = select(n[i] == 0, "a", select(n[i] == 1, "bc", ""))
}
print hash(mk(arange(i32, 0, 3)))
TDSL
hv=$("$TDSL" h.tdsl 2>err) || fail "hash: $(cat err)"
printf 'kernel pick(w: str[N]) -> (y: str[N]) {\n'`
      `'    assert hash(w) == %s, "not the words"\n'`
      `'    y[i] = upper(w[i])\n}\n' "$hv" >p.tdsl
"$TDSL" compile p.tdsl --kernel pick -o pick.so -o pick.h 2>err ||
    fail "compile pick: $(cat err)"
cat >p.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pick.h"
static void *grab(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}
int main(void)
{
    const char *w[6] = {"a", "-", "bc", "-", NULL, "-"}, *y[3];
    int64_t n[1] = {3}, st[1] = {2};
    tdsl_str_alloc a = {grab, NULL};
    int rc = tdsl_pick(w, n, st, y, n, NULL, &a), bad;
    if (rc != TDSL_OK || strcmp(y[0], "A") || strcmp(y[1], "BC") ||
        (y[2] && *y[2]))
        return printf("bound words: %d\n", rc), 1;
    free((void *)y[0]);
    free((void *)y[1]);
    w[2] = "bd";
    bad = tdsl_pick(w, n, st, y, n, NULL, &a);
    printf("%d\n", bad);
    return bad != TDSL_ERR_ASSERT;
}
C
cc -std=c11 -Wall -Wextra -Werror -I. p.c -L. -l:pick.so \
    -Wl,-rpath,"$TMP" -o p 2>err || fail "building p.c: $(cat err)"
./p >out 2>&1 || fail "hash of str through the C entry: $(cat out)"
exit 0
