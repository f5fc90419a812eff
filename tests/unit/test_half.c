/*
 * test_half.c - f16/bf16 conversions (lang/half.c) against independent
 * references: every 16-bit pattern through f32 and back; f32/f64/i64 ->
 * 16 bits compared with a nearest-neighbour search over a table of all
 * finite values of the format (distances computed exactly in double);
 * ties, overflow, subnormals and NaNs by hand; and, where the compiler
 * has _Float16, the compiler's own conversion.
 * `test_half --exhaustive` also checks all 2^32 f32 inputs (slow).
 */
#include "lang/lang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The checks run over every bit pattern: a bug fails thousands. */
#define CHECK_MAX_FAILURES 20
#include "check.h"

#define CHECK_BITS(got, want, what, x)                                   \
    do {                                                                 \
        unsigned g_ = (got), w_ = (want);                                \
        if (g_ != w_) {                                                  \
            fprintf(stderr, "%s:%d: %s(%a): got 0x%04x, want 0x%04x\n",  \
                    __FILE__, __LINE__, what, (double)(x), g_, w_);     \
            check_failed();                                              \
        }                                                                \
    } while (0)

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* Independent decoding of a 16-bit pattern by the format's definition:
 * (-1)^s * 2^(e - bias) * 1.m, or 2^(1 - bias) * 0.m. */
static double decode(unsigned h, int mant, int bias)
{
    int ebits = 15 - mant;
    unsigned e = (h >> mant) & ((1u << ebits) - 1);
    unsigned m = h & ((1u << mant) - 1);
    double v;
    if (e == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mant);
    else
        v = ldexp((double)(m | (1u << mant)), (int)e - bias - mant);
    return (h & 0x8000) ? -v : v;
}

/* Positive finite values of a format in bit order (which is value
 * order), plus the position of inf: 2^(bias+1), where rounding treats
 * it as the next step. */
typedef struct Table {
    int mant, bias;
    int n;              /* finite positive patterns: 0 .. n-1 */
    double v[0x8000];
} Table;

static Table f16t, bf16t;

static void table_init(Table *t, int mant, int bias)
{
    unsigned inf = (unsigned)(2 * bias + 1) << mant;
    t->mant = mant;
    t->bias = bias;
    t->n = (int)inf;
    for (unsigned h = 0; h < inf; h++)
        t->v[h] = decode(h, mant, bias);
    t->v[inf] = ldexp(1.0, bias + 1);
}

/* The reference rounding of x (finite or inf; not NaN): the nearest
 * table entry, ties to the even pattern. */
static unsigned ref_round(const Table *t, double x)
{
    unsigned sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    int lo = 0, hi = t->n; /* v[lo] <= a < v[hi] unless a >= v[n] */
    if (a >= t->v[t->n])
        return sign | (unsigned)t->n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->v[mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    /* Both differences are exact in double: the operands are within a
     * factor of two of each other (or the lower one is 0). */
    double dlo = a - t->v[lo], dhi = t->v[hi] - a;
    if (dlo < dhi || (dlo == dhi && (lo & 1) == 0))
        return sign | (unsigned)lo;
    return sign | (unsigned)hi;
}

static int is_nan16(unsigned h, int mant)
{
    unsigned inf = 0x7fffu >> mant << mant;
    return (h & 0x7fff) > inf;
}

/* A 16-bit NaN made from a wider NaN: quiet, same sign, top payload. */
static void check_nan(unsigned got, int mant, int neg, unsigned top)
{
    unsigned quiet = 1u << (mant - 1);
    CHECK(is_nan16(got, mant));
    CHECK(((got & 0x8000) != 0) == neg);
    CHECK((got & quiet) != 0);
    CHECK((got & (quiet - 1)) == (top & (quiet - 1)));
}

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
    /* xorshift32: a fixed, reproducible sequence */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void check_f32(float f)
{
    double d = f;
    if (isnan(f))
        return;
    CHECK_BITS(tl_f32_to_f16(f), ref_round(&f16t, d), "f32->f16", f);
    CHECK_BITS(tl_f32_to_bf16(f), ref_round(&bf16t, d), "f32->bf16", f);
#ifdef __FLT16_MANT_DIG__
    {
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        CHECK_BITS(tl_f32_to_f16(f), hb, "f32->f16 vs _Float16", f);
    }
#endif
}

/* Every 16-bit pattern widens to the value the definition gives and
 * narrows back to itself (NaNs: quieted, payload kept). */
static void test_roundtrip(void)
{
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = tl_f16_to_f32((uint16_t)h);
        float g = tl_bf16_to_f32((uint16_t)h);
        double want = decode(h, 10, 15), wantb = decode(h, 7, 127);
        unsigned back = tl_f32_to_f16(f), backb = tl_f32_to_bf16(g);
        if (is_nan16(h, 10)) {
            CHECK(isnan(f));
            CHECK(back == (h | 0x200));
            CHECK((f32_bits(f) & 0x400000) != 0);
        } else {
            CHECK((double)f == want);
            CHECK(!signbit(f) == !signbit(want));
            CHECK_BITS(back, h, "f16 round trip", f);
            CHECK_BITS(tl_f64_to_f16((double)f), h, "f16 via f64", f);
        }
        if (is_nan16(h, 7)) {
            CHECK(isnan(g));
            CHECK(backb == (h | 0x40));
        } else {
            CHECK((double)g == wantb);
            CHECK(!signbit(g) == !signbit(wantb));
            CHECK_BITS(backb, h, "bf16 round trip", g);
            CHECK_BITS(tl_f64_to_bf16((double)g), h, "bf16 via f64", g);
        }
    }
}

/* Around every step between neighbours: the midpoint (a tie) and the
 * f32 values just beside it. */
static void test_midpoints(const Table *t)
{
    for (int h = 0; h < t->n; h++) {
        double mid = (t->v[h] + t->v[h + 1]) / 2;
        float m = (float)mid;
        CHECK((double)m == mid); /* exact: 12 (9) significant bits */
        check_f32(m);
        check_f32(nextafterf(m, 0));
        check_f32(nextafterf(m, INFINITY));
        check_f32(-m);
        check_f32(-nextafterf(m, INFINITY));
        check_f32((float)t->v[h]);
    }
}

static void test_cases(void)
{
    /* ties to even */
    CHECK(tl_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);
    CHECK(tl_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);
    CHECK(tl_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
    CHECK(tl_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
    /* overflow: 65504 is the largest f16; 65520 is the tie to inf */
    CHECK(tl_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(tl_f32_to_f16(65519.996f) == 0x7bff);
    CHECK(tl_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(tl_f32_to_f16(-1e6f) == 0xfc00);
    CHECK(tl_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(tl_f32_to_bf16(3.4028235e38f) == 0x7f80); /* rounds up */
    CHECK(tl_f32_to_bf16(-INFINITY) == 0xff80);
    /* subnormals and underflow */
    CHECK(tl_f32_to_f16(0x1p-24f) == 0x0001);
    CHECK(tl_f32_to_f16(0x1p-25f) == 0x0000);            /* tie, even */
    CHECK(tl_f32_to_f16(0x1.000002p-25f) == 0x0001);
    CHECK(tl_f32_to_f16(3 * 0x1p-25f) == 0x0002);        /* tie, even */
    CHECK(tl_f32_to_f16(0x1.ff8p-15f) == 0x03ff);   /* top subnormal */
    CHECK(tl_f32_to_f16(0x1.ffcp-15f) == 0x0400);   /* carries to normal */
    CHECK(tl_f32_to_f16(-0x1p-30f) == 0x8000);
    CHECK(tl_f32_to_f16(-0.0f) == 0x8000);
    CHECK(tl_f32_to_bf16(0x1p-149f) == 0x0000);
    CHECK(tl_f32_to_bf16(0x1p-133f) == 0x0001);     /* bf16 subnormal */
    CHECK(tl_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(tl_f16_to_f32(0x8000) == 0.0f && signbit(tl_f16_to_f32(0x8000)));
    CHECK(tl_f16_to_f32(0x7c00) == INFINITY);
    CHECK(tl_bf16_to_f32(0xff80) == -INFINITY);
    /* NaNs keep sign and payload and come out quiet */
    check_nan(tl_f32_to_f16(bits_f32(0x7fc00000)), 10, 0, 0);
    check_nan(tl_f32_to_f16(bits_f32(0xff800001)), 10, 1, 0);
    check_nan(tl_f32_to_f16(bits_f32(0x7f8fe000)), 10, 0, 0x7f);
    check_nan(tl_f32_to_bf16(bits_f32(0x7f810000)), 7, 0, 1);
    check_nan(tl_f32_to_bf16(bits_f32(0xff800001)), 7, 1, 0);
    check_nan(tl_f64_to_f16(-NAN), 10, 1, 0);
    check_nan(tl_f64_to_bf16(NAN), 7, 0, 0);
    CHECK(f32_bits(tl_f16_to_f32(0x7c01)) == 0x7fc02000);
    CHECK(f32_bits(tl_bf16_to_f32(0x7f81)) == 0x7fc10000);
    /* f64 rounds once: just above the f16 tie 1 + 2^-11, an f32 detour
     * would land on the tie and round down to 1 */
    CHECK(tl_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01);
    CHECK(tl_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-40) == 0x3f81);
    CHECK(tl_f64_to_f16(1e300) == 0x7c00);
    CHECK(tl_f64_to_f16(1e-300) == 0x0000);
    CHECK(tl_f64_to_f16(-0x1p-1074) == 0x8000);
    CHECK(tl_f64_to_bf16(0x1p-1074) == 0x0000);
    CHECK(tl_f64_to_bf16(1e300) == 0x7f80);
    /* integers */
    CHECK(tl_i64_to_f16(0) == 0x0000);
    CHECK(tl_i64_to_f16(1) == 0x3c00);
    CHECK(tl_i64_to_f16(-2) == 0xc000);
    CHECK(tl_i64_to_f16(2049) == 0x6800);   /* tie to even: 2048 */
    CHECK(tl_i64_to_f16(2051) == 0x6802);   /* tie to even: 2052 */
    CHECK(tl_i64_to_f16(65520) == 0x7c00);
    CHECK(tl_i64_to_f16(INT64_MIN) == 0xfc00);
    CHECK(tl_i64_to_bf16(257) == 0x4380);   /* tie to even: 256 */
    CHECK(tl_i64_to_bf16(INT64_MIN) == 0xdf00);
    CHECK(tl_i64_to_bf16(INT64_MAX) == 0x5f00);
    /* 2^62 + 2^54 + 1 is above the bf16 tie 2^62 + 2^54; via double it
     * would round to the tie and then to even */
    CHECK(tl_i64_to_bf16(((int64_t)1 << 62) + ((int64_t)1 << 54) + 1) ==
          0x5e81);
}

/* i64 and f64 against the reference on random inputs. */
static void test_random(void)
{
    for (int i = 0; i < 1000000; i++) {
        uint32_t r = rng();
        check_f32(bits_f32(r));
        /* f32 values in and around the f16 range */
        check_f32(bits_f32((r & 0x87ffffffu) | 0x30000000u));
    }
    for (int i = 0; i < 200000; i++) {
        uint64_t b = (uint64_t)rng() << 32 | rng();
        double d;
        int sh = (int)(rng() % 64);
        int64_t v = (int64_t)(b >> sh);
        /* exponents near the f16 range for some, any for others */
        if (i & 1)
            b = (b & 0x800fffffffffffffu) |
                ((uint64_t)(1023 - 30 + rng() % 50) << 52);
        memcpy(&d, &b, 8);
        if (!isnan(d)) {
            CHECK_BITS(tl_f64_to_f16(d), ref_round(&f16t, d), "f64->f16",
                       d);
            CHECK_BITS(tl_f64_to_bf16(d), ref_round(&bf16t, d),
                       "f64->bf16", d);
        }
        if (v > -((int64_t)1 << 53) && v < ((int64_t)1 << 53)) {
            CHECK_BITS(tl_i64_to_f16(v), ref_round(&f16t, (double)v),
                       "i64->f16", v);
            CHECK_BITS(tl_i64_to_bf16(v), ref_round(&bf16t, (double)v),
                       "i64->bf16", v);
        }
    }
}

static void test_exhaustive(void)
{
    uint32_t b = 0;
    do {
        check_f32(bits_f32(b));
    } while (++b != 0);
}

int main(int argc, char **argv)
{
    table_init(&f16t, 10, 15);
    table_init(&bf16t, 7, 127);
    test_roundtrip();
    test_midpoints(&f16t);
    test_midpoints(&bf16t);
    test_cases();
    test_random();
    if (argc > 1 && !strcmp(argv[1], "--exhaustive"))
        test_exhaustive();
    if (check_done())
        return 1;
    printf("test_half: ok\n");
    return 0;
}
