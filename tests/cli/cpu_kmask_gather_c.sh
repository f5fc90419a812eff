# cpu_kmask_gather_c.sh - the C of tests/cpu/cpu_kmask_gather.tdsl: a
# zero_pad border's masked load takes a bitmask computed from scalars
# (tl_kcmp16, tl_mldkf16; codegen/c/emit_mask.c), not a vector of
# 64-bit lane indices compared and narrowed (half of gcc's time on
# matmul's packing of B), and a load of 16 lanes a stride apart is one
# gather (tl_gld16, codegen/c/emit_gather.c).  The C builds
# warning-free with AVX-512 and without it.  The helpers, included by a
# driver: tl_kcmp16 gives each lane's comparison for ramps near either
# end of i8, i16, i32 and i64 (where a ramp wraps within its 16 lanes)
# and every op, and tl_gld16 reads what the lane-by-lane tl_gld16s
# reads for strides of either sign.
. "$(dirname "$0")/lib.sh"
src=$OLDPWD
command -v cc >/dev/null 2>&1 || exit 77

for k in pad2 tr; do
    "$TDSL" compile "$src/tests/cpu/cpu_kmask_gather.tdsl" --kernel $k \
        --target cpu -o $k.c 2>err || fail "compile $k: $(cat err)"
    for c in "-march=native" "-march=native -mno-avx512f -Wno-psabi"; do
        cc -std=c11 -O2 $c -ffp-contract=off -Wall -Wextra -Werror \
            -shared -fPIC $k.c -o $k.so -lm 2>err ||
            fail "cc $k $c: $(cat err)"
    done
done
grep -q 'tl_mldkf16(&tl_r, &in__X\[' pad2.c || fail "pad2: X not under a bitmask"
grep -q 'tl_mldkf16(&tl_r, &in__Q\[' pad2.c || fail "pad2: Q not under a bitmask"
# The vector mask's code stays only for a target without AVX-512.
[ "$(grep -o 'TL_MLD16 ? ({' pad2.c | wc -l)" -ge 4 ] ||
    fail "pad2: a masked load not behind TL_MLD16"
grep -q 'tl_gld16(&tl_r, &in__X\[' tr.c || fail "tr: X not gathered"
grep -q 'tl_gld16(&tl_r, &in__Q\[' tr.c || fail "tr: Q not gathered"
grep -q 'tl_i15' tr.c && fail "tr: lanes listed one by one"

cat >drv.c <<'D'
#include "pad2.c"
#include <stdio.h>

static int ref(int64_t b, int64_t n, int64_t top, int op, int l)
{
    int64_t v;
    if (top == INT64_MAX)
        v = (int64_t)((uint64_t)b + (uint64_t)l);
    else
        v = b + l > top ? b + l - 2 * (top + 1) : b + l;
    return op == 0 ? v < n : op == 1 ? v <= n : op == 2 ? v > n : v >= n;
}

int main(void)
{
    const int64_t tops[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
    const int64_t ds[] = {-17, -16, -15, -1, 0, 1, 2, 7, 14, 15, 16, 17, 40};
    int bad = 0;
    float buf[2200];
    for (int i = 0; i < 2200; i++)
        buf[i] = (float)i * 0.5f - 3.0f;
    for (int t = 0; t < 4; t++) {
        int64_t top = tops[t], lo = -top - 1;
        const int64_t bs[] = {lo, lo + 1, lo + 20, -40, -16, -1, 0, 1, 5,
                              top - 20, top - 16, top - 15, top - 14,
                              top - 3, top};
        for (int i = 0; i < (int)(sizeof bs / sizeof bs[0]); i++)
            for (int j = 0; j < (int)(sizeof ds / sizeof ds[0]); j++) {
                int64_t b = bs[i], n;
                /* n = b + d in the type, saturated */
                if (ds[j] > 0 && b > top - ds[j]) n = top;
                else if (ds[j] < 0 && b < lo - ds[j]) n = lo;
                else n = b + ds[j];
                for (int op = 0; op < 4; op++) {
                    unsigned k = tl_kcmp16(b, n, top, op);
                    for (int l = 0; l < 16; l++)
                        if ((int)((k >> l) & 1) != ref(b, n, top, op, l)) {
                            printf("kcmp16 b=%lld n=%lld top=%lld op=%d "
                                   "lane %d\n", (long long)b, (long long)n,
                                   (long long)top, op, l);
                            bad = 1;
                        }
                }
            }
    }
    for (int64_t s = -70; s <= 70; s += 3) {
        float g[16], h[16];
        const float *p = buf + 1100;
        tl_gld16(g, p, s);
        tl_gld16s(h, p, s);
        for (int l = 0; l < 16; l++)
            if (g[l] != p[l * s] || h[l] != p[l * s]) {
                printf("gld16 s=%lld lane %d\n", (long long)s, l);
                bad = 1;
            }
    }
    return bad;
}
D
cc -std=c11 -O2 -march=native -ffp-contract=off -fopenmp -w drv.c \
    -o drv -lm 2>err || fail "cc drv: $(cat err)"
./drv >out || fail "helpers: $(head -5 out)"
exit 0
