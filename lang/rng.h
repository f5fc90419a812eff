/*
 * rng.h - the definition of the kernel builtins uniform(seed, k) and
 * normal(seed, k) (SPEC 7.5): random values as a pure function of a
 * seed and a counter, so that every element may be computed on its own,
 * in any order, on any thread or vector lane, and the interpreter and
 * compiled code give the same bits.
 *
 * The bits are those of the top-level rand (interp.h, itp_rand_fill):
 * its k-th element is splitmix64's k-th output, which is a function of
 * seed + (k + 1) * 0x9e3779b97f4a7c15 alone, so rand(f32, [n], seed = s)
 * holds uniform(s, 0), ..., uniform(s, n - 1).  normal takes the
 * counters 2k and 2k + 1 for the two uniforms of Box-Muller, computed
 * in f64 and rounded once to f32 (only multiplications: contraction
 * cannot change it; log and cos are the C library's on f64, so the f32
 * result is the same wherever those are within half an f32 ulp).
 *
 * Like fast_exp.h, each definition is written once, in a macro: the
 * interpreter compiles it, the C backend pastes its text into every
 * kernel.  Q(...) receives the text.
 */
#ifndef TL_RNG_H
#define TL_RNG_H

#define TL_RNG_BITS_DEF(Q) Q(                                            \
uint64_t tl_rng_bits(int64_t seed, int64_t k)                            \
{                                                                        \
    uint64_t z = (uint64_t)seed +                                        \
                 ((uint64_t)k + 1u) * 0x9e3779b97f4a7c15u;               \
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;                           \
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;                           \
    return z ^ (z >> 31);                                                \
})

#define TL_UNIFORM_DEF(Q) Q(                                             \
float tl_uniformf(int64_t seed, int64_t k)                               \
{                                                                        \
    return (float)((double)(tl_rng_bits(seed, k) >> 40) * 0x1p-24);      \
})

#define TL_NORMAL_DEF(Q) Q(                                              \
float tl_normalf(int64_t seed, int64_t k)                                \
{                                                                        \
    uint64_t a = tl_rng_bits(seed, (int64_t)((uint64_t)k * 2u));         \
    uint64_t b = tl_rng_bits(seed, (int64_t)((uint64_t)k * 2u + 1u));    \
    double u1 = (double)((a >> 11) + 1u) * 0x1p-53;                      \
    double u2 = (double)(b >> 11) * 0x1p-53;                             \
    double r = sqrt(-2.0 * log(u1));                                     \
    return (float)(r * cos(6.283185307179586 * u2));                     \
})

#endif
