/*
 * half.c - f16 (IEEE binary16) and bf16 (bfloat16) conversions.
 *
 * Both formats are held as their 16 bits.  Widening to f32 is exact.
 * Narrowing goes through one integer routine, round_bits(), that rounds
 * an exact value m * 2^e to nearest even in either format; f32, f64 and
 * i64 inputs are all decoded exactly into (m, e) first, so converting
 * from f64 or i64 rounds once (going through f32 would round twice and
 * be wrong for values just beside a halfway point).
 */
#include "lang/lang.h"

#include <string.h>

/* The two 16-bit formats: mantissa bits and exponent bias. */
typedef struct HalfFmt {
    int mant;       /* stored mantissa bits: 10 (f16), 7 (bf16) */
    int bias;       /* 15, 127; also the largest unbiased exponent */
} HalfFmt;

static const HalfFmt F16 = {10, 15};
static const HalfFmt BF16 = {7, 127};

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

static int bit_length(uint64_t m)
{
#if defined(__GNUC__)
    return m ? 64 - __builtin_clzll(m) : 0;
#else
    int n = 0;
    while (m) {
        n++;
        m >>= 1;
    }
    return n;
#endif
}

/* The bits (without sign) of the nonzero finite value m * 2^e rounded to
 * nearest even in format fmt; inf when it overflows. */
static uint16_t round_bits(uint64_t m, int e, HalfFmt fmt)
{
    uint32_t inf = (uint32_t)(2 * fmt.bias + 1) << fmt.mant;
    int emin = 1 - fmt.bias;          /* exponent of the smallest normal */
    int k = e + bit_length(m) - 1;    /* floor(log2(value)) */
    int q, sh;
    uint64_t n;
    uint32_t bits;

    if (k > fmt.bias)
        return (uint16_t)inf;
    /* The result is n units of 2^q: normals keep mant+1 bits, values
     * below the normal range share the subnormal quantum. */
    q = (k < emin ? emin : k) - fmt.mant;
    sh = q - e;
    if (sh <= 0) {
        n = m << -sh;                 /* exact: n < 2^(mant+1) */
    } else if (sh > 64) {
        n = 0;                        /* below half a quantum */
    } else {
        uint64_t rem, half;
        if (sh == 64) {
            n = 0;
            rem = m;
            half = (uint64_t)1 << 63;
        } else {
            n = m >> sh;
            rem = m & (((uint64_t)1 << sh) - 1);
            half = (uint64_t)1 << (sh - 1);
        }
        if (rem > half || (rem == half && (n & 1)))
            n++;
    }
    /* A carry out of the mantissa (n == 2^(mant+1), or a subnormal
     * reaching 2^mant) lands on the next exponent by the addition. */
    if (k < emin)
        bits = (uint32_t)n;
    else
        bits = ((uint32_t)(k + fmt.bias) << fmt.mant) +
               (uint32_t)(n - ((uint64_t)1 << fmt.mant));
    return (uint16_t)(bits < inf ? bits : inf);
}

/* The quiet NaN of format fmt with sign and the top payload bits of a
 * NaN whose payload is `payload` of `pbits` bits. */
static uint16_t nan_bits(uint32_t sign, uint64_t payload, int pbits,
                         HalfFmt fmt)
{
    uint32_t inf = (uint32_t)(2 * fmt.bias + 1) << fmt.mant;
    uint32_t quiet = (uint32_t)1 << (fmt.mant - 1);
    uint32_t top = (uint32_t)(payload >> (pbits - fmt.mant));
    return (uint16_t)(sign | inf | quiet | top);
}

static uint16_t from_f32(float f, HalfFmt fmt)
{
    uint32_t b = f32_bits(f);
    uint32_t sign = (b >> 31) << 15;
    uint32_t ex = (b >> 23) & 0xff, mant = b & 0x7fffff;
    uint32_t inf = (uint32_t)(2 * fmt.bias + 1) << fmt.mant;

    if (ex == 0xff)
        return mant ? nan_bits(sign, mant, 23, fmt)
                    : (uint16_t)(sign | inf);
    if (ex == 0 && mant == 0)
        return (uint16_t)sign;
    if (ex == 0)
        return (uint16_t)(sign | round_bits(mant, -149, fmt));
    return (uint16_t)(sign | round_bits(mant | 0x800000u, (int)ex - 150,
                                        fmt));
}

static uint16_t from_f64(double d, HalfFmt fmt)
{
    uint64_t b;
    uint32_t sign, ex;
    uint64_t mant;
    uint32_t inf = (uint32_t)(2 * fmt.bias + 1) << fmt.mant;

    memcpy(&b, &d, 8);
    sign = (uint32_t)(b >> 63) << 15;
    ex = (uint32_t)(b >> 52) & 0x7ff;
    mant = b & (((uint64_t)1 << 52) - 1);
    if (ex == 0x7ff)
        return mant ? nan_bits(sign, mant, 52, fmt)
                    : (uint16_t)(sign | inf);
    if (ex == 0 && mant == 0)
        return (uint16_t)sign;
    if (ex == 0)
        return (uint16_t)(sign | round_bits(mant, -1074, fmt));
    return (uint16_t)(sign | round_bits(mant | ((uint64_t)1 << 52),
                                        (int)ex - 1075, fmt));
}

static uint16_t from_i64(int64_t v, HalfFmt fmt)
{
    uint32_t sign = v < 0 ? 0x8000 : 0;
    /* The magnitude in unsigned arithmetic, so INT64_MIN is fine. */
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

    if (m == 0)
        return 0;
    return (uint16_t)(sign | round_bits(m, 0, fmt));
}

uint16_t tl_f32_to_f16(float f)
{
    return from_f32(f, F16);
}

uint16_t tl_f64_to_f16(double d)
{
    return from_f64(d, F16);
}

uint16_t tl_i64_to_f16(int64_t v)
{
    return from_i64(v, F16);
}

float tl_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t ex = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float f;

    if (ex == 0x1f) {
        if (mant)
            mant |= 0x200;            /* quiet a signalling NaN */
        return bits_f32(sign | 0x7f800000u | (mant << 13));
    }
    if (ex == 0) {
        /* Zero or subnormal: mant * 2^-24, exact in f32. */
        f = (float)mant * 0x1p-24f;
        return sign ? -f : f;
    }
    return bits_f32(sign | ((ex + 112) << 23) | (mant << 13));
}

uint16_t tl_f32_to_bf16(float f)
{
    return from_f32(f, BF16);
}

uint16_t tl_f64_to_bf16(double d)
{
    return from_f64(d, BF16);
}

uint16_t tl_i64_to_bf16(int64_t v)
{
    return from_i64(v, BF16);
}

float tl_bf16_to_f32(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;

    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffff))
        b |= 0x400000;                /* quiet a signalling NaN */
    return bits_f32(b);
}
