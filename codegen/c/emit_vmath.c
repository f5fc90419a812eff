/*
 * emit_vmath.c - vector helpers of math calls on f32 lanes, for
 * emit_vec.c.  Each gives the scalar code's result bit for bit (the
 * interpreter's, interp/eval_scalar.c itp_unary), which is libm's
 * double function of the lane rounded to float, also when the kernel
 * is built with TDSL_FMA=1 (SPEC 10.8) and by clang.
 *
 * exp, erf, tanh, sigmoid and log compute each lane in double, to
 * within 2^-44 of the true value, relative (the polynomials are cut
 * where their truncation falls below that, not at double's own
 * precision: fewer terms; erf with AVX-512 within 2^-38.9); sin and
 * cos within a few units of double.  Rounding that to float gives
 * libm's float unless the value lies within 1024 units of double
 * (2^-42 relative; the AVX-512 erf: 32768) of a float rounding
 * boundary (the low 29 bits of the double near a half unit of float:
 * about one lane in 260000; 8200) or outside the range where the
 * result is a normal float; such lanes, and NaNs, are computed again
 * by libm.  Contraction into fused multiply-adds
 * (TDSL_FMA=1) only changes the double value by a few units, well
 * inside the 1024.  sqrt is one vector instruction, rsqrt the scalar
 * code's double operations on vectors, both correctly rounded like
 * the scalar code.
 *
 * Checked against the scalar formula on all 2^32 f32 bit patterns
 * (a throwaway program on the emitted text; gcc 12 -O3 -march=native
 * with -ffp-contract=off and =fast, clang 14 with =fast; the changes
 * since, erf's chains and the out-of-line fallback, then the shorter
 * polynomials and the 1024-unit margin, again with gcc off for exp,
 * erf, tanh and sigmoid and =fast and clang for erf; the AVX-512 erf
 * and e^x, on an AVX-512 host, with gcc off and =fast and clang =fast
 * for erf, gcc off and clang =fast for exp, gcc off for sigmoid): no
 * lane differs.
 * Lanes left to libm near a boundary: erf 722, tanh 66, sigmoid 835,
 * log 486 of 2^32; in none would the double value, rounded, have been
 * wrong.  sin and cos: all 2^32 with gcc off, and the positive floats
 * below 2^21 (the rest is their mirror image, or libm) with gcc and
 * clang =fast.  Largest error of the double values against long
 * double libm on a 1/331 sample: erf 3.1, tanh 3.2, sigmoid 2.2, log
 * 1.4 units of double.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

/* The 8-lane types, and the W-lane helper of an 8-lane one: lanes go
 * 8 at a time, as 512-bit vectors of double (compilers split wider
 * generic vectors badly, comparisons lane by lane). */
static const char vm_base[] =
    "typedef float tl_ex_f8 __attribute__((vector_size(32)));\n"
    "typedef double tl_ex_d8 __attribute__((vector_size(64)));\n"
    "typedef int64_t tl_ex_i8 __attribute__((vector_size(64)));\n"
    "/* f32 lanes widened to double: gcc 12 (tuned for Zen 3 by\n"
    " * -march=native on Zen 4) splits the conversion into four\n"
    " * instructions; with AVX-512 it is one. */\n"
    "#if defined(__AVX512F__) && !defined(__clang__)\n"
    "#define TL_VM_WIDEN(x) ((tl_ex_d8)__builtin_ia32_cvtps2pd512_mask( \\\n"
    "    (x), (tl_ex_d8){0}, (unsigned char)-1, 4))\n"
    "#else\n"
    "#define TL_VM_WIDEN(x) __builtin_convertvector((x), tl_ex_d8)\n"
    "#endif\n"
    "/* W lanes of fn, 8 at a time (a 512-bit vector of double):\n"
    " * compilers split wider generic vectors badly. */\n"
    "#define TL_VMATH(W, fn) \\\n"
    "TL_HELPER tl_f32x##W tl_f32x##W##_##fn(tl_f32x##W x) \\\n"
    "{ \\\n"
    "    tl_f32x##W y = x; \\\n"
    "    for (int c = 0; c < (W); c += 8) { \\\n"
    "        tl_ex_f8 v = {0}, r; \\\n"
    "        int k = (W) - c < 8 ? (W) - c : 8; \\\n"
    "        __builtin_memcpy(&v, (float *)&x + c, sizeof(float) * k); \\\n"
    "        r = tl_##fn##8(v); \\\n"
    "        __builtin_memcpy((float *)&y + c, &r, sizeof(float) * k); \\\n"
    "    } \\\n"
    "    return y; \\\n"
    "}\n";

/* What the double helpers share: blends, the boundary test and the
 * libm fallback, and e^x - 1 and e^x in double.  e^x: n = x / ln 2
 * rounded, r = x - n ln 2 (ln 2 in two parts, so r is exact but for a
 * last rounding), e^r - 1 by its Taylor polynomial to degree 11
 * (|r| <= ln 2 / 2: the truncation is below 2^-45 relative), times
 * 2^n.  e^x - 1 is 2^n (e^r - 1) + (2^n - 1), without cancellation
 * for n = 0, where it matters.  With AVX-512 e^x (not e^x - 1) takes
 * n = 16 x / ln 2 rounded instead, 2^((n mod 16) / 16) from a table
 * (TL_VM_PERM; the index is the low bits of the rounding sum), so that
 * |r| <= ln 2 / 32 and degree 6 suffices (truncation below 2^-50):
 * 26% faster on softmax's exp; |x| <= 700, n * the first part of
 * ln 2 / 16 (32 bits) exact. */
static const char vm_dbl[] =
    "#if defined(__AVX512F__)\n"
    "/* Lane l of TL_VM_PERM(t, k): entry k[l] (0..15) of the 16 doubles\n"
    " * of t[0] and t[1] (vpermt2pd). */\n"
    "typedef long long tl_ex_q8 __attribute__((vector_size(64)));\n"
    "#if defined(__clang__)\n"
    "#define TL_VM_PERM(t, k) ((tl_ex_d8)__builtin_ia32_vpermi2varpd512( \\\n"
    "    (t)[0], (tl_ex_q8)(k), (t)[1]))\n"
    "#else\n"
    "#define TL_VM_PERM(t, k) ((tl_ex_d8) \\\n"
    "    __builtin_ia32_vpermt2varpd512_mask((tl_ex_q8)(k), (t)[0], \\\n"
    "                                        (t)[1], (unsigned char)-1))\n"
    "#endif\n"
    "#endif\n"
    "TL_HELPER tl_ex_d8 tl_vm_sel(tl_ex_i8 m, tl_ex_d8 a, tl_ex_d8 b)\n"
    "{\n"
    "    return (tl_ex_d8)(((tl_ex_i8)a & m) | ((tl_ex_i8)b & ~m));\n"
    "}\n"
    "/* Are all lanes of m set?  (Narrowed to a byte a lane and read as\n"
    " * one integer: through memory the halves of m waited for a store to\n"
    " * be forwarded.) */\n"
    "TL_HELPER int tl_vm_all(tl_ex_i8 m)\n"
    "{\n"
    "    typedef signed char tl_b8 __attribute__((vector_size(8)));\n"
    "    tl_b8 b = __builtin_convertvector(m, tl_b8);\n"
    "    uint64_t u;\n"
    "    __builtin_memcpy(&u, &b, 8);\n"
    "    return u == UINT64_MAX;\n"
    "}\n"
    "/* Lanes where p is more than m units of double from a rounding\n"
    " * boundary of float (p in the normal range of float; m < 2^28). */\n"
    "TL_HELPER tl_ex_i8 tl_vm_far(tl_ex_d8 p, int64_t m)\n"
    "{\n"
    "    /* the low 29 bits outside 2^28 - m .. 2^28 + m (in unsigned\n"
    "     * lanes: the bits of a negative p plus the offset would\n"
    "     * overflow a signed one) */\n"
    "    typedef uint64_t tl_vm_u8 __attribute__((vector_size(64)));\n"
    "    tl_vm_u8 low = ((tl_vm_u8)p + (uint64_t)(m - (1 << 28))) &\n"
    "                   (uint64_t)((1 << 29) - 1);\n"
    "    return (tl_ex_i8)low > 2 * m;\n"
    "}\n"
    "/* y: p rounded to float where ok and more than m units of double\n"
    " * from a boundary (m above p's error), else libm's fn of x (out of\n"
    " * line: rare, and the loop would keep y in memory).  TL_VM_END: m\n"
    " * = 1024. */\n"
    "#define TL_VM_END(fn, x, y, p, ok) TL_VM_END_M(fn, x, y, p, ok, 1024)\n"
    "#define TL_VM_END_M(fn, x, y, p, ok, m) \\\n"
    "    ok &= tl_vm_far(p, m); \\\n"
    "    y = __builtin_convertvector(p, tl_ex_f8); \\\n"
    "    if (__builtin_expect(!tl_vm_all(ok), 0)) \\\n"
    "        y = tl_vm_fix(fn, x, y, ok);\n"
    "__attribute__((noinline, cold, unused)) static tl_ex_f8\n"
    "tl_vm_fix(double (*fn)(double), tl_ex_f8 x, tl_ex_f8 y, tl_ex_i8 ok)\n"
    "{\n"
    "    for (int l = 0; l < 8; l++)\n"
    "        if (!ok[l])\n"
    "            y[l] = (float)fn((double)x[l]);\n"
    "    return y;\n"
    "}\n"
    "/* e^r - 1 for |r| <= ln 2 / 2, by Taylor to degree 11. */\n"
    "TL_HELPER tl_ex_d8 tl_vm_em1(tl_ex_d8 r)\n"
    "{\n"
    "    tl_ex_d8 p = r * (1.0 / 39916800.0) + 1.0 / 3628800.0;\n"
    "    p = p * r + 1.0 / 362880.0;\n"
    "    p = p * r + 1.0 / 40320.0;\n"
    "    p = p * r + 1.0 / 5040.0;\n"
    "    p = p * r + 1.0 / 720.0;\n"
    "    p = p * r + 1.0 / 120.0;\n"
    "    p = p * r + 1.0 / 24.0;\n"
    "    p = p * r + 1.0 / 6.0;\n"
    "    p = p * r + 0.5;\n"
    "    p = p * r + 1.0;\n"
    "    return p * r;\n"
    "}\n"
    "/* d - n ln 2 for n = d / ln 2 rounded, and 2^n, for |d| <= 700\n"
    " * (ln 2 in two parts: n times the first is exact). */\n"
    "TL_HELPER tl_ex_d8 tl_vm_red(tl_ex_d8 d, tl_ex_d8 *s)\n"
    "{\n"
    "    tl_ex_d8 n = d * 0x1.71547652b82fep0 + 0x1.8p52;\n"
    "    n = n - 0x1.8p52;\n"
    "    tl_ex_i8 e = __builtin_convertvector(n, tl_ex_i8) + 1023;\n"
    "    *s = (tl_ex_d8)(e << 52);\n"
    "    return (d - n * 0x1.62e42fee00000p-1) - n * 0x1.a39ef35793c76p-33;\n"
    "}\n"
    "#if defined(__AVX512F__)\n"
    "/* 2^(j/16), j = 0..15. */\n"
    "static const tl_ex_d8 tl_exp_t[2] = {\n"
    "    {0x1p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0,\n"
    "     0x1.2387a6e756238p+0, 0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0,\n"
    "     0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0},\n"
    "    {0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0,\n"
    "     0x1.9c49182a3f09p+0, 0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0,\n"
    "     0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0},\n"
    "};\n"
    "TL_HELPER tl_ex_d8 tl_vm_exp(tl_ex_d8 d)\n"
    "{\n"
    "    tl_ex_d8 u = d * 0x1.71547652b82fep4 + 0x1.8p52, n, r, q, t, s;\n"
    "    tl_ex_i8 m = (tl_ex_i8)u - 0x4338000000000000LL;\n"
    "    n = u - 0x1.8p52;\n"
    "    s = (tl_ex_d8)(((m >> 4) + 1023) << 52);\n"
    "    r = (d - n * 0x1.62e42fee00000p-5) - n * 0x1.a39ef35793c76p-37;\n"
    "    q = r * (1.0 / 720.0) + 1.0 / 120.0;\n"
    "    q = q * r + 1.0 / 24.0;\n"
    "    q = q * r + 1.0 / 6.0;\n"
    "    q = q * r + 0.5;\n"
    "    q = q * r * r + r;\n"
    "    t = TL_VM_PERM(tl_exp_t, (tl_ex_i8)u);\n"
    "    return (t + t * q) * s;\n"
    "}\n"
    "#else\n"
    "TL_HELPER tl_ex_d8 tl_vm_exp(tl_ex_d8 d)\n"
    "{\n"
    "    tl_ex_d8 s, r = tl_vm_red(d, &s);\n"
    "    return (tl_vm_em1(r) + 1.0) * s;\n"
    "}\n"
    "#endif\n"
    "TL_HELPER tl_ex_d8 tl_vm_expm1(tl_ex_d8 d)\n"
    "{\n"
    "    tl_ex_d8 s, r = tl_vm_red(d, &s);\n"
    "    return s * tl_vm_em1(r) + (s - 1.0);\n"
    "}\n"
    "/* c[0] + c[1] u + ... + c[n-1] u^(n-1) as four Horner chains in u^4,\n"
    " * interleaved: a quarter of one chain's latency. */\n"
    "TL_HELPER tl_ex_d8 tl_vm_poly(const double *c, int n, tl_ex_d8 u)\n"
    "{\n"
    "    tl_ex_d8 u2 = u * u, u4 = u2 * u2, q[4];\n"
    "    for (int j = 0; j < 4; j++) {\n"
    "        int k = j + (n - 1 - j) / 4 * 4;\n"
    "        q[j] = (tl_ex_d8){0} + c[k];\n"
    "        for (k -= 4; k >= 0; k -= 4)\n"
    "            q[j] = q[j] * u4 + c[k];\n"
    "    }\n"
    "    return (q[0] + u * q[1]) + u2 * (q[2] + u * q[3]);\n"
    "}\n";


/* exp of f32 lanes, the interpreter's (float)exp((double)x) bit for
 * bit: tl_vm_exp in double (within about 2 units of double of the
 * true value, like libm's exp), rounded to float unless the value lies
 * near a rounding boundary of float or the input outside [-87, 88]
 * (where the result is not a normal float); those lanes, and NaNs,
 * are computed again by libm.  (Checked against libm on every f32.) */
static const char vexp_macro[] =
    "TL_HELPER tl_ex_f8 tl_exp8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), p;\n"
    "    tl_ex_i8 ok = (d >= -87.0) & (d <= 88.0);\n"
    "    tl_ex_f8 y;\n"
    "    p = tl_vm_exp(tl_vm_sel(ok, d, (tl_ex_d8){0}));\n"
    "    TL_VM_END(exp, x, y, p, ok)\n"
    "    return y;\n"
    "}\n";

/* erf with AVX-512: |x| < 4 in 16 pieces a quarter wide, k = 4|x|
 * truncated; on each, erf(x) / x (smooth, even, 2 / sqrt(pi) at 0) is
 * a polynomial of 8 terms in w = 4|x| - k - 1/2 (|w| <= 1/2)
 * and erf |x| is |x| times it (tiny |x| keep their relative precision,
 * and no piece needs a form of its own).  The k-th coefficient of each
 * term comes from a 16-entry table by one two-register permute
 * (vpermt2pd, TL_VM_PERM): no exp and no second polynomial; from 4 on
 * the value at 3.99, which rounds to 1.
 * Coefficients: Chebyshev interpolation of long double erfl(x) / x at
 * 8 nodes of each piece, rewritten as powers of w and rounded to
 * double (scripts/erf_table.c); within 2^-38.9 of erf, relative, so
 * within 2^14.1 units of double: lanes within 32768 units of a float
 * rounding boundary go to libm (2^-13 of them, 4 of the encoder's
 * 32768 a call), cheaper than the 10 terms that 1024 units would need
 * (the evaluation, two Estrin chains in w^2, adds a few units).  2.6x
 * the speed of the general helper below on the ONNX encoder's GELU
 * (inputs about N(0, 0.8): most vectors held a lane beyond 1 and took
 * both of its branches).
 * Without AVX-512: erf as x P(x^2) for |x| < 1 (Taylor to degree 29:
 * the terms alternate and shrink, truncation below 2^-44), 1 - e^(-x^2)
 * G(x) for 1 <= |x| < 4 (x^2 is exact for an f32 x; G = e^(x^2)
 * erfc(x) is smooth: its Chebyshev series of 27 terms on [1, 4], from
 * mpmath, rewritten as a polynomial in t = (2x - 5) / 3, whose
 * coefficients alternate and shrink, their magnitudes summing to 3
 * times G's least value), 1 beyond (erfc(4) < 2^-25: erf rounds to 1).
 * The polynomials run as four Horner chains (tl_vm_poly): one chain's
 * latency, not the work, bounded the speed.  Within 3.1 units of
 * double of erf; sign restored by its bit. */
static const char verf_macro[] =
    "#if defined(__AVX512F__)\n"
    "static const tl_ex_d8 tl_erf_r[8][2] = {\n"
    "    {{0x1.1f5e1a35c15bcp+0, 0x1.13e08c7a162f5p+0,\n"
    "      0x1.fe8f1614e7e7dp-1, 0x1.cacbc181fbb33p-1,\n"
    "      0x1.9450bb1ec7b17p-1, 0x1.611065fc927e6p-1,\n"
    "      0x1.3448f8704acc5p-1, 0x1.0ee12190b09a4p-1},\n"
    "     {0x1.e09a79ee7d2f9p-2, 0x1.aed200cd6800bp-2,\n"
    "      0x1.8603df09099c5p-2, 0x1.64282886ff376p-2,\n"
    "      0x1.47ad3ff301a4ep-2, 0x1.2f6827c1b0936p-2,\n"
    "      0x1.1a7b909ae7a49p-2, 0x1.08420fc7a48fap-2}},\n"
    "    {{-0x1.7d900b9e864edp-6, -0x1.09ac3c1b26fap-4,\n"
    "      -0x1.7edef5d897f03p-4, -0x1.b29323959aa34p-4,\n"
    "      -0x1.ad1533f369d6ep-4, -0x1.82ad1810b841ap-4,\n"
    "      -0x1.48b7c44d5260dp-4, -0x1.0e9e17d612868p-4},\n"
    "     {-0x1.b87061646ea6fp-5, -0x1.675759c9faee1p-5,\n"
    "      -0x1.284241dbd5e2fp-5, -0x1.ef1beecc9c43cp-6,\n"
    "      -0x1.a35763ed2f25p-6, -0x1.6793ed0a04212p-6,\n"
    "      -0x1.37b3d829952bfp-6, -0x1.10c83ad00a3f7p-6}},\n"
    "    {{-0x1.766bd0f16153ep-6, -0x1.276ba5b2000a5p-6,\n"
    "      -0x1.5275c5e26ce4ap-7, -0x1.4574db8c3b4ep-9,\n"
    "      0x1.bbf49239d21c3p-9, 0x1.ab151a9f97f54p-8,\n"
    "      0x1.df898851d795dp-8, 0x1.b7e9ea696ccdfp-8},\n"
    "     {0x1.6bfb99736d1eap-8, 0x1.1e314dd0addb7p-8,\n"
    "      0x1.ba09e28a423dap-9, 0x1.560bd269f1ffdp-9,\n"
    "      0x1.0bd914b6a3d2cp-9, 0x1.a9f5181a8269dp-10,\n"
    "      0x1.57e94aec0bcabp-10, 0x1.199374fe1532ap-10}},\n"
    "    {{0x1.c5a8df89ce898p-11, 0x1.24d6bb72d4342p-9,\n"
    "      0x1.671c4f05ea4cap-9, 0x1.367b5cc6963a3p-9,\n"
    "      0x1.8a284b721ebc7p-10, 0x1.3fc0da61b4594p-11,\n"
    "      -0x1.685f0e131c5p-16, -0x1.5d2c61e29e81ep-12},\n"
    "     {-0x1.ae6bfd5c71034p-12, -0x1.8349c32a094b4p-12,\n"
    "      -0x1.32448245793a4p-12, -0x1.cac3dc961c758p-13,\n"
    "      -0x1.52a6a0ea3d904p-13, -0x1.f70a65cd133e8p-14,\n"
    "      -0x1.7b2696369c76cp-14, -0x1.229a7def8a4dp-14}},\n"
    "    {{0x1.b4bfec590e8p-12, 0x1.01ba0dedf9eep-12,\n"
    "      0x1.d303514307p-18, -0x1.6f0c46294dfcp-13,\n"
    "      -0x1.f1065c4e5968p-13, -0x1.9e443463e0acp-13,\n"
    "      -0x1.e76f5b6dfac4p-14, -0x1.6e1a59122928p-15},\n"
    "     {-0x1.63d05387bp-23, 0x1.21e0c446119p-16,\n"
    "      0x1.4b860810795p-16, 0x1.143f97ffd3ep-16,\n"
    "      0x1.9a16be6aeb3p-17, 0x1.249699ff025p-17,\n"
    "      0x1.a01e8605bd4p-18, 0x1.2b9383cb1d4p-18}},\n"
    "    {{-0x1.40df3df7838p-16, -0x1.7d1e957ed63p-15,\n"
    "      -0x1.7ea635623bcp-15, -0x1.a39a6c63c6cp-16,\n"
    "      -0x1.2faa2e4c0cp-21, 0x1.dbbf775d75p-17,\n"
    "      0x1.166e2c750bcp-16, 0x1.8b937c14b12p-17},\n"
    "     {0x1.82ad6a61cdp-18, 0x1.b2413fc5cp-20,\n"
    "      -0x1.4fd50ecab8p-22, -0x1.c8420182c4p-21,\n"
    "      -0x1.ac1def7e06p-21, -0x1.4154b6c78ep-21,\n"
    "      -0x1.bfb6e0c996p-22, -0x1.3304da047cp-22}},\n"
    "    {{-0x1.911323265cp-18, -0x1.3828e2ef58p-19,\n"
    "      0x1.16526b119p-19, 0x1.1b8d0be988p-18,\n"
    "      0x1.d3bb3f0c5p-19, 0x1.6d73c4bf5p-20,\n"
    "      -0x1.94c549418p-22, -0x1.148050794p-20},\n"
    "     {-0x1.db339fddep-21, -0x1.07cc9bf97p-21,\n"
    "      -0x1.83ee16e6p-23, -0x1.99ba179ep-26,\n"
    "      0x1.e22f4a78p-26, 0x1.20fed9dep-25,\n"
    "      0x1.c04fd92fp-26, 0x1.33873b97p-26}},\n"
    "    {{0x1.475750cep-22, 0x1.63c417a24p-21,\n"
    "      0x1.160a756bp-21, 0x1.63ce9764p-24,\n"
    "      -0x1.108b013f8p-22, -0x1.4b148534p-22,\n"
    "      -0x1.72ba11a2p-23, -0x1.865272fcp-26},\n"
    "     {0x1.af16a7cp-25, 0x1.d52e8dbp-25,\n"
    "      0x1.1ad166fcp-25, 0x1.c871ad3p-27,\n"
    "      0x1.98dad6ap-29, -0x1.5b82818p-31,\n"
    "      -0x1.5b60f16p-30, -0x1.1a32444p-30}},\n"
    "};\n"
    "TL_HELPER tl_ex_f8 tl_erf8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), a, a4, w, w2, e, o;\n"
    "    tl_ex_i8 sign = (tl_ex_i8)d & INT64_MIN, ok, k;\n"
    "    tl_ex_f8 y;\n"
    "    a = (tl_ex_d8)((tl_ex_i8)d & INT64_MAX);\n"
    "    ok = (a >= 0x1p-126) | (a == 0.0);\n"
    "    /* from 4 on (and NaN, left to libm) erf(3.99), 1 - 1.7e-8,\n"
    "     * which rounds to 1 */\n"
    "    a = tl_vm_sel(ok & (a < 4.0), a, (tl_ex_d8){0} + 3.99);\n"
    "    a4 = a * 4.0;\n"
    "    k = __builtin_convertvector(a4, tl_ex_i8);\n"
    "    w = (a4 - __builtin_convertvector(k, tl_ex_d8)) - 0.5;\n"
    "    w2 = w * w;\n"
    "    e = TL_VM_PERM(tl_erf_r[6], k);\n"
    "    o = TL_VM_PERM(tl_erf_r[7], k);\n"
    "    for (int j = 4; j >= 0; j -= 2) {\n"
    "        e = e * w2 + TL_VM_PERM(tl_erf_r[j], k);\n"
    "        o = o * w2 + TL_VM_PERM(tl_erf_r[j + 1], k);\n"
    "    }\n"
    "    e = (e + w * o) * a;\n"
    "    e = (tl_ex_d8)((tl_ex_i8)e | sign);\n"
    "    TL_VM_END_M(erf, x, y, e, ok, 32768)\n"
    "    return y;\n"
    "}\n"
    "#else\n"
    "static const double tl_erf_p[15] = {\n"
    "    0x1.20dd750429b6dp+0, -0x1.812746b0379e7p-2,\n"
    "    0x1.ce2f21a042be2p-4, -0x1.b82ce31288b51p-6,\n"
    "    0x1.565bcd0e6a53fp-8, -0x1.c02db40040b86p-11,\n"
    "    0x1.f9a326f9b89b7p-14, -0x1.f4d25c3e0c2ebp-17,\n"
    "    0x1.b9e6c9dc651a3p-20, -0x1.5f742ec43e71ap-23,\n"
    "    0x1.fcc5720624c1cp-27, -0x1.51d7181c5d36dp-30,\n"
    "    0x1.9e6ad5e55a730p-34, -0x1.d8453cb0c46eap-38,\n"
    "    0x1.f683ae4a97007p-42,\n"
    "};\n"
    "static const double tl_erf_g[27] = {\n"
    "    0x1.afbb3f3b7343bp-3, -0x1.c8ca43e8282c8p-4,\n"
    "    0x1.cba83bc9e0137p-5, -0x1.ba746c7f90a91p-6,\n"
    "    0x1.9940762e11db7p-7, -0x1.6d14f0daa04ddp-8,\n"
    "    0x1.3b0d0867a5b7bp-9, -0x1.07ac34c1b74bcp-10,\n"
    "    0x1.acf4dffb99802p-12, -0x1.53c35dbed1585p-13,\n"
    "    0x1.067a2032c54acp-14, -0x1.8c1b086f67381p-16,\n"
    "    0x1.244c9416380c7p-17, -0x1.a65f32c9431c7p-19,\n"
    "    0x1.2b15fdb2ffb4bp-20, -0x1.9f826b6ccc316p-22,\n"
    "    0x1.1b62f89587da1p-23, -0x1.7bf9a871b7aaep-25,\n"
    "    0x1.f4b654e6e0587p-27, -0x1.42eeb718296fbp-28,\n"
    "    0x1.9c719d00445d2p-30, -0x1.0f167d60f3fc1p-31,\n"
    "    0x1.4ecca3e86d206p-33, -0x1.2d98972ca3bc3p-35,\n"
    "    0x1.72126bd7dcd08p-37, -0x1.faff6d03e255bp-38,\n"
    "    0x1.257d01ccb997fp-39,\n"
    "};\n"
    "TL_HELPER tl_ex_f8 tl_erf8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), a, p, q;\n"
    "    tl_ex_i8 sign = (tl_ex_i8)d & INT64_MIN, ok, big;\n"
    "    tl_ex_f8 y;\n"
    "    a = (tl_ex_d8)((tl_ex_i8)d & INT64_MAX);\n"
    "    ok = (a >= 0x1p-126) | (a == 0.0);\n"
    "    big = a >= 1.0;\n"
    "    a = tl_vm_sel(ok, a, (tl_ex_d8){0});\n"
    "    p = tl_vm_poly(tl_erf_p, 15, a * a) * a;\n"
    "    if (!tl_vm_all(~big)) {\n"
    "        tl_ex_d8 c = tl_vm_sel(a < 4.0, a, (tl_ex_d8){0} + 4.0);\n"
    "        q = tl_vm_poly(tl_erf_g, 27, (c + c - 5.0) * (1.0 / 3.0));\n"
    "        q = 1.0 - tl_vm_exp(-(c * c)) * q;\n"
    "        p = tl_vm_sel(big, q, p);\n"
    "        p = tl_vm_sel(a >= 4.0, (tl_ex_d8){0} + 1.0, p);\n"
    "    }\n"
    "    p = (tl_ex_d8)((tl_ex_i8)p | sign);\n"
    "    TL_VM_END(erf, x, y, p, ok)\n"
    "    return y;\n"
    "}\n"
    "#endif\n";

/* tanh |x| = m / (m + 2), m = e^(2|x|) - 1 (no cancellation near 0),
 * |x| capped at 20 (tanh is then 1 in double); within 3.2 units. */
static const char vtanh_macro[] =
    "TL_HELPER tl_ex_f8 tl_tanh8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), a, p;\n"
    "    tl_ex_i8 sign = (tl_ex_i8)d & INT64_MIN, ok;\n"
    "    tl_ex_f8 y;\n"
    "    a = (tl_ex_d8)((tl_ex_i8)d & INT64_MAX);\n"
    "    ok = (a >= 0x1p-126) | (a == 0.0);\n"
    "    a = tl_vm_sel(ok & (a < 20.0), a, (tl_ex_d8){0} + 20.0);\n"
    "    p = tl_vm_expm1(a + a);\n"
    "    p = p / (p + 2.0);\n"
    "    p = (tl_ex_d8)((tl_ex_i8)p | sign);\n"
    "    TL_VM_END(tanh, x, y, p, ok)\n"
    "    return y;\n"
    "}\n";

/* sigmoid, the scalar 1 / (1 + e^-x), x capped at 40 (then 1 in
 * double); below -87 the result is not a normal float.  Within 2.2
 * units. */
static const char vsigmoid_macro[] =
    "TL_HELPER tl_ex_f8 tl_sigmoid8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), p;\n"
    "    tl_ex_i8 ok = d >= -87.0;\n"
    "    tl_ex_f8 y;\n"
    "    d = tl_vm_sel(ok & (d < 40.0), d, (tl_ex_d8){0} + 40.0);\n"
    "    p = 1.0 / (1.0 + tl_vm_exp(-d));\n"
    "    TL_VM_END(tl_sigmoid, x, y, p, ok)\n"
    "    return y;\n"
    "}\n";

/* log x = e ln 2 + log m, x = 2^e m with m in [sqrt 1/2, sqrt 2):
 * log m = 2 atanh s, s = (m - 1) / (m + 1), by its series in s^2 (s^2
 * < 0.03: 11 terms); ln 2 in two parts.  Within 1.4 units of log. */
static const char vlog_macro[] =
    "TL_HELPER tl_ex_f8 tl_log8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), m, f, s, z, q, e;\n"
    "    tl_ex_i8 ok = (d >= 0x1p-126) & (d <= 0x1.fffffep127), big, bits;\n"
    "    tl_ex_f8 y;\n"
    "    bits = (tl_ex_i8)tl_vm_sel(ok, d, (tl_ex_d8){0} + 1.0);\n"
    "    m = (tl_ex_d8)((bits & 0xfffffffffffffLL) | 0x3ff0000000000000LL);\n"
    "    big = m > 0x1.6a09e667f3bcdp0;\n"
    "    m = tl_vm_sel(big, m * 0.5, m);\n"
    "    e = __builtin_convertvector((bits >> 52) - 1023 - big, tl_ex_d8);\n"
    "    f = m - 1.0;\n"
    "    s = f / (f + 2.0);\n"
    "    z = s * s;\n"
    "    q = z * (1.0 / 23) + 1.0 / 21;\n"
    "    q = q * z + 1.0 / 19;\n"
    "    q = q * z + 1.0 / 17;\n"
    "    q = q * z + 1.0 / 15;\n"
    "    q = q * z + 1.0 / 13;\n"
    "    q = q * z + 1.0 / 11;\n"
    "    q = q * z + 1.0 / 9;\n"
    "    q = q * z + 1.0 / 7;\n"
    "    q = q * z + 1.0 / 5;\n"
    "    q = q * z + 1.0 / 3;\n"
    "    s = s + s;\n"
    "    q = s * z * q + s;\n"
    "    q = e * 0x1.62e42fee00000p-1 + (e * 0x1.a39ef35793c76p-33 + q);\n"
    "    TL_VM_END(log, x, y, q, ok)\n"
    "    return y;\n"
    "}\n";

/* sin and cos: n = x 2/pi rounded, r = x - n pi/2 with pi/2 in three
 * parts, the first two of 32 bits, so that for |x| < 2^21 (n < 2^21)
 * n times each is exact and the first two subtractions are exact
 * (Sterbenz): r is within 2^-53 relative of x - n pi/2, the third
 * part's error below 2^-101 (f32 inputs come no nearer a multiple of
 * pi/2 than about 2^-30).  sin r and cos r by Taylor (|r| <= 0.8,
 * n's rounding included: truncation below 2^-70), as four Horner
 * chains each; the quadrant n mod 4 picks one and its sign.  Within
 * 2.5 units of double.  Larger |x|, where n and its products would
 * not be exact, and subnormal x (sin x is then subnormal too) go to
 * libm. */
static const char vsincos_base[] =
    "static const double tl_sin_c[9] = {\n"
    "    -0x1.5555555555555p-3, 0x1.1111111111111p-7,\n"
    "    -0x1.a01a01a01a01ap-13, 0x1.71de3a556c734p-19,\n"
    "    -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,\n"
    "    -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49,\n"
    "    -0x1.2f49b46814157p-57,\n"
    "};\n"
    "static const double tl_cos_c[10] = {\n"
    "    -0x1p-1, 0x1.5555555555555p-5,\n"
    "    -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16,\n"
    "    -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29,\n"
    "    -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45,\n"
    "    -0x1.6827863b97d97p-53, 0x1.e542ba4020225p-62,\n"
    "};\n"
    "/* sin r and cos r of r = d - n pi/2, and n mod 4 (0 <= d < 2^21). */\n"
    "TL_HELPER void tl_vm_sincos(tl_ex_d8 d, tl_ex_d8 *s, tl_ex_d8 *c,\n"
    "                            tl_ex_i8 *q)\n"
    "{\n"
    "    tl_ex_d8 n = d * 0x1.45f306dc9c883p-1 + 0x1.8p52, r, z;\n"
    "    n = n - 0x1.8p52;\n"
    "    *q = __builtin_convertvector(n, tl_ex_i8) & 3;\n"
    "    r = (d - n * 0x1.921fb544p0) - n * 0x1.0b4611a6p-34;\n"
    "    r = r - n * 0x1.3198a2e037073p-69;\n"
    "    z = r * r;\n"
    "    *s = r + r * z * tl_vm_poly(tl_sin_c, 9, z);\n"
    "    *c = 1.0 + z * tl_vm_poly(tl_cos_c, 10, z);\n"
    "}\n";

/* sin x: sin r, cos r, -sin r, -cos r by quadrant, computed for |x|
 * and given x's sign (sin is odd; sin -0 is -0, which r + r z P(z)
 * would not keep); cos x: cos r, -sin r, -cos r, sin r. */
static const char vsin_macro[] =
    "TL_HELPER tl_ex_f8 tl_sin8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), a, s, c, p;\n"
    "    tl_ex_i8 sign = (tl_ex_i8)d & INT64_MIN, ok, q;\n"
    "    tl_ex_f8 y;\n"
    "    a = (tl_ex_d8)((tl_ex_i8)d & INT64_MAX);\n"
    "    ok = (a < 0x1p21) & ((a >= 0x1p-126) | (a == 0.0));\n"
    "    tl_vm_sincos(tl_vm_sel(ok, a, (tl_ex_d8){0}), &s, &c, &q);\n"
    "    p = tl_vm_sel((q & 1) != 0, c, s);\n"
    "    p = (tl_ex_d8)((tl_ex_i8)p ^ ((q & 2) << 62) ^ sign);\n"
    "    TL_VM_END(sin, x, y, p, ok)\n"
    "    return y;\n"
    "}\n";

static const char vcos_macro[] =
    "TL_HELPER tl_ex_f8 tl_cos8(tl_ex_f8 x)\n"
    "{\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x), a, s, c, p;\n"
    "    tl_ex_i8 ok, q;\n"
    "    tl_ex_f8 y;\n"
    "    a = (tl_ex_d8)((tl_ex_i8)d & INT64_MAX);\n"
    "    ok = a < 0x1p21;\n"
    "    tl_vm_sincos(tl_vm_sel(ok, a, (tl_ex_d8){0}), &s, &c, &q);\n"
    "    p = tl_vm_sel((q & 1) != 0, s, c);\n"
    "    p = (tl_ex_d8)((tl_ex_i8)p ^ (((q + 1) & 2) << 62));\n"
    "    TL_VM_END(cos, x, y, p, ok)\n"
    "    return y;\n"
    "}\n";

/* sqrt: the scalar (float)sqrt((double)x) is the float square root
 * (double has more than twice float's bits, so rounding twice is
 * rounding once), one AVX instruction.  rsqrt: the scalar's
 * operations, sqrt and division in double, on vectors. */
static const char vsqrt_macro[] =
    "#if defined(__AVX__)\n"
    "TL_HELPER tl_ex_f8 tl_sqrt8(tl_ex_f8 x)\n"
    "{\n"
    "    return __builtin_ia32_sqrtps256(x);\n"
    "}\n"
    "#else\n"
    "TL_HELPER tl_ex_f8 tl_sqrt8(tl_ex_f8 x)\n"
    "{\n"
    "    for (int l = 0; l < 8; l++)\n"
    "        x[l] = (float)sqrt((double)x[l]);\n"
    "    return x;\n"
    "}\n"
    "#endif\n";

static const char vrsqrt_macro[] =
    "#if defined(__AVX__)\n"
    "TL_HELPER tl_ex_f8 tl_rsqrt8(tl_ex_f8 x)\n"
    "{\n"
    "    typedef double tl_d4 __attribute__((vector_size(32)));\n"
    "    tl_ex_d8 d = TL_VM_WIDEN(x);\n"
    "    tl_d4 h[2];\n"
    "    __builtin_memcpy(h, &d, sizeof d);\n"
    "    h[0] = 1.0 / __builtin_ia32_sqrtpd256(h[0]);\n"
    "    h[1] = 1.0 / __builtin_ia32_sqrtpd256(h[1]);\n"
    "    __builtin_memcpy(&d, h, sizeof d);\n"
    "    return __builtin_convertvector(d, tl_ex_f8);\n"
    "}\n"
    "#else\n"
    "TL_HELPER tl_ex_f8 tl_rsqrt8(tl_ex_f8 x)\n"
    "{\n"
    "    for (int l = 0; l < 8; l++)\n"
    "        x[l] = (float)(1.0 / sqrt((double)x[l]));\n"
    "    return x;\n"
    "}\n"
    "#endif\n";

/* What a helper needs before its text: vm_dbl, vsincos_base. */
enum { VM_DBL = 1, VM_TRIG = 2 };

/* The calls with helpers: the call, the helper's name, its text, and
 * what it needs (fast_exp last: it alone needs no vm_base). */
static const struct {
    LCall fn;
    const char *name, *text;
    int needs;
} vmath[] = {
    {LC_EXP, "exp", vexp_macro, VM_DBL},
    {LC_ERF, "erf", verf_macro, VM_DBL},
    {LC_TANH, "tanh", vtanh_macro, VM_DBL},
    {LC_SIGMOID, "sigmoid", vsigmoid_macro, VM_DBL},
    {LC_LOG, "log", vlog_macro, VM_DBL},
    {LC_SQRT, "sqrt", vsqrt_macro, 0},
    {LC_RSQRT, "rsqrt", vrsqrt_macro, 0},
    {LC_SIN, "sin", vsin_macro, VM_DBL | VM_TRIG},
    {LC_COS, "cos", vcos_macro, VM_DBL | VM_TRIG},
    {LC_FAST_EXP, "fexp", cgc_vfexp_macro, 0},
};

enum { NVMATH = sizeof vmath / sizeof vmath[0] };

static int vmath_index(const LExpr *e)
{
    if (e->kind != LE_CALL || e->var || e->type.lanes < 2 ||
        e->type.dt != DT_F32 || e->nargs != 1 ||
        e->args[0]->type.dt != DT_F32 ||
        e->args[0]->type.lanes != e->type.lanes)
        return -1;
    for (int i = 0; i < NVMATH; i++)
        if (vmath[i].fn == e->fn)
            return i;
    return -1;
}

const char *cgc_vmath_name(const LExpr *e)
{
    int i = vmath_index(e);

    return i < 0 ? NULL : vmath[i].name;
}

unsigned cgc_vmath_bit(const LExpr *e)
{
    int i = vmath_index(e);

    return i < 0 ? 0 : 1u << i;
}

void cgc_vmath_prelude(TlBuf *b, unsigned set, const int *ws, int n)
{
    int needs = 0;

    if (!set)
        return;
    for (int i = 0; i < NVMATH; i++)
        if (set & (1u << i))
            needs |= vmath[i].needs;
    if (set & ~(1u << (NVMATH - 1)))
        buf_puts(b, vm_base);
    if (needs & VM_DBL)
        buf_puts(b, vm_dbl);
    if (needs & VM_TRIG)
        buf_puts(b, vsincos_base);
    for (int i = 0; i < NVMATH; i++) {
        if (!(set & (1u << i)))
            continue;
        buf_puts(b, vmath[i].text);
        for (int k = 0; k < n; k++)
            if (vmath[i].fn == LC_FAST_EXP)
                cgc_vfexp_width(b, ws[k]);
            else
                buf_printf(b, "TL_VMATH(%d, %s)\n", ws[k], vmath[i].name);
    }
}
