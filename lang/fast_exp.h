/*
 * fast_exp.h - the definition of the builtin fast_exp on f32 (SPEC
 * 7.5), written once for the interpreter (as C) and for the compiled
 * kernels (the same text, stringified into their prelude by
 * codegen/c/emit.c), so that both round every operation the same way
 * and the differential tests compare them bit for bit.  The vector
 * form in codegen/c/emit_vfexp.c does the same operations lane by lane.
 *
 * The sequence is short because a vector lane pays for every operation
 * (softmax spends half its time here): 14 operations, no branch, no
 * conversion, 9 of them fused multiply-adds.  An fmaf rounds once, in
 * libm (the interpreter) as in a vfmadd instruction (compiled code,
 * TL_FMA<W> in codegen/c/emit_vfexp.c), so the kernels built without
 * contraction (SPEC 10.8) still give these bits: the same sequence
 * without fused operations was 26 (softmax, exact, 1 thread, at
 * 1.24-1.30x Halide's time, whose fast_exp fuses them; 0.87-0.89x with
 * these).  x is clamped to [-87.5, 89] (a NaN passes through both
 * comparisons and makes every later value NaN); x = k ln 2 + r with k
 * = x / ln 2 rounded to nearest by adding 1.5 * 2^23 + 126, which also
 * leaves k + 126 in the low 9 bits of kk (no float to int conversion,
 * no integer arithmetic: the clamp keeps k + 126 in [0, 254]); ln 2 in
 * two parts (the product by the first is exact inside the fma); 2
 * exp(r) for |r| <= 0.347 by a degree-6 polynomial fitted to it
 * (near-minimax relative error, coefficients rounded to f32; Horner's
 * scheme, one fma a degree); times 2^(k - 1), the bits of kk shifted
 * into the exponent field.  The doubled polynomial lets the scale stay
 * a normal power of two up to k = 128 (x < 89.07: inf past 88.73 by
 * rounding, as exp); for k = -126 (x < -86.98; the clamp) the exponent
 * field is 0, and the result is 0 there.
 *
 * Q(...) receives the text: an identity macro gives the function, a
 * stringifying one gives its source.
 */
#ifndef TL_FAST_EXP_H
#define TL_FAST_EXP_H

#define TL_FAST_EXP_DEF(Q) Q(                                            \
float tl_fexpf(float x)                                                  \
{                                                                        \
    float c, kk, k, r, p, s;                                             \
    uint32_t u;                                                          \
    c = x < -87.5f ? -87.5f : x;                                         \
    c = c > 89.0f ? 89.0f : c;                                           \
    kk = fmaf(c, 1.44269504f, 12583038.0f);                              \
    k = kk - 12583038.0f;                                                \
    r = fmaf(k, -0.693147182f, c);                                       \
    r = fmaf(k, 1.90465421e-9f, r);                                      \
    p = fmaf(0.0027673631f, r, 0.01674968f);                             \
    p = fmaf(p, r, 0.0833364576f);                                       \
    p = fmaf(p, r, 0.333328396f);                                        \
    p = fmaf(p, r, 0.999999821f);                                        \
    p = fmaf(p, r, 2.0f);                                                \
    p = fmaf(p, r, 2.0f);                                                \
    memcpy(&u, &kk, 4);                                                  \
    u = u << 23;                                                         \
    memcpy(&s, &u, 4);                                                   \
    return p * s;                                                        \
})

#endif
