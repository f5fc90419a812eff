/*
 * fast_exp.h - the definition of the builtin fast_exp on f32 (SPEC
 * 7.5), written once for the interpreter (as C) and for the compiled
 * kernels (the same text, stringified into their prelude by
 * codegen/c/emit.c), so that both round every operation the same way
 * and the differential tests compare them bit for bit.  The vector
 * form in codegen/c/emit_vmath.c does the same operations lane by lane.
 *
 * The sequence is short because a vector lane pays for every operation
 * (softmax spends half its time here): about 26 operations, no branch,
 * no conversion.  x is clamped to [-88, 89] (a NaN passes through both
 * comparisons and makes every later value NaN); x = k ln 2 + r with k
 * = x / ln 2 rounded to nearest by the 1.5 * 2^23 trick, which also
 * leaves k + 127 - 1 in the low bits of kk (no float to int
 * conversion); ln 2 in two parts (k times the 9-bit first part is
 * exact); 2 exp(r) for |r| <= 0.347 by a degree-6 polynomial fitted to
 * it (near-minimax relative error, coefficients rounded to f32; Estrin's
 * scheme, so the dependency chain is 7 operations, not 12); times
 * 2^(k - 1), built from the bits of kk.  The doubled polynomial lets
 * the scale stay a normal power of two up to k = 128 (x < 89.07: inf
 * past 88.73 by rounding, as exp); below k = -125 (x < -86.99) the
 * exponent field would leave the normal range, and the scale is
 * clamped to 0, so the result is 0 there.
 *
 * Q(...) receives the text: an identity macro gives the function, a
 * stringifying one gives its source.
 */
#ifndef TL_FAST_EXP_H
#define TL_FAST_EXP_H

#define TL_FAST_EXP_DEF(Q) Q(                                            \
float tl_fexpf(float x)                                                  \
{                                                                        \
    float c, kk, k, t, r, r2, a, b, q, p, s;                             \
    int32_t e;                                                           \
    uint32_t u;                                                          \
    c = x < -88.0f ? -88.0f : x;                                         \
    c = c > 89.0f ? 89.0f : c;                                           \
    kk = c * 1.44269504f;                                                \
    kk = kk + 12582912.0f;                                               \
    k = kk - 12582912.0f;                                                \
    t = k * 0.693359375f;                                                \
    r = c - t;                                                           \
    t = k * 2.12194440e-4f;                                              \
    r = r + t;                                                           \
    r2 = r * r;                                                          \
    a = r + r;                                                           \
    a = a + 2.0f;                                                        \
    b = r * 0.333328396f;                                                \
    b = b + 0.999999821f;                                                \
    q = r * 0.01674968f;                                                 \
    q = q + 0.0833364576f;                                               \
    t = r2 * 0.0027673631f;                                              \
    q = q + t;                                                           \
    t = r2 * q;                                                          \
    b = b + t;                                                           \
    t = r2 * b;                                                          \
    p = a + t;                                                           \
    memcpy(&e, &kk, 4);                                                  \
    e = e - (0x4B400000 - 126);                                          \
    e = e < 0 ? 0 : e;                                                   \
    u = (uint32_t)e << 23;                                               \
    memcpy(&s, &u, 4);                                                   \
    return p * s;                                                        \
})

#endif
