/*
 * fast_exp.h - the definition of the builtin fast_exp on f32 (SPEC
 * 7.5), written once for the interpreter (as C) and for the compiled
 * kernels (the same text, stringified into their prelude by
 * codegen/c/emit.c), so that both round every operation the same way
 * and the differential tests compare them bit for bit.  The vector
 * form in codegen/c/emit_vec.c does the same operations lane by lane.
 *
 * x = k ln 2 + r with k = x / ln 2 rounded to nearest (the 1.5 * 2^23
 * trick: exact for |x / ln 2| < 2^22), ln 2 in two parts (k times the
 * 9-bit first part is exact), exp(r) by its Taylor polynomial to
 * degree 6 (|r| <= 0.35: truncation below 2e-7), times 2^k as two
 * powers of two so that k down to -150 (subnormal results) and up to
 * 129 (overflow to inf) need no special case.  x is clamped to
 * [-104, 89] first, beyond which the result is 0 or inf anyway.
 *
 * Q(...) receives the text: an identity macro gives the function, a
 * stringifying one gives its source.
 */
#ifndef TL_FAST_EXP_H
#define TL_FAST_EXP_H

#define TL_FAST_EXP_DEF(Q) Q(                                            \
float tl_fexpf(float x)                                                  \
{                                                                        \
    float k, r, p, s1, s2;                                               \
    int32_t n, h;                                                        \
    uint32_t b1, b2;                                                     \
    if (x != x) return x;                                                \
    if (x < -104.0f) x = -104.0f;                                        \
    if (x > 89.0f) x = 89.0f;                                            \
    k = x * 1.44269504f;                                                 \
    k = k + 12582912.0f;                                                 \
    k = k - 12582912.0f;                                                 \
    r = k * 0.693359375f;                                                \
    r = x - r;                                                           \
    p = k * -2.12194440e-4f;                                             \
    r = r - p;                                                           \
    p = r * 1.38888889e-3f;                                              \
    p = p + 8.33333333e-3f;                                              \
    p = p * r;                                                           \
    p = p + 4.16666667e-2f;                                              \
    p = p * r;                                                           \
    p = p + 1.66666667e-1f;                                              \
    p = p * r;                                                           \
    p = p + 0.5f;                                                        \
    p = p * r;                                                           \
    p = p + 1.0f;                                                        \
    p = p * r;                                                           \
    p = p + 1.0f;                                                        \
    n = (int32_t)k;                                                      \
    h = n / 2;                                                           \
    b1 = (uint32_t)(h + 127) << 23;                                      \
    b2 = (uint32_t)(n - h + 127) << 23;                                  \
    memcpy(&s1, &b1, 4);                                                 \
    memcpy(&s2, &b2, 4);                                                 \
    return p * s1 * s2;                                                  \
})

#endif
