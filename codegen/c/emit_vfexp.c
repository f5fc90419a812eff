/*
 * emit_vfexp.c - the vector helper of fast_exp on f32 lanes, for
 * emit_vmath.c: the operations of lang/fast_exp.h (its comment says
 * why they are what they are) on whole vectors, in the same order, so
 * every lane is the scalar result bit for bit.  Its fmaf are
 * TL_FMA<W>: one vfmadd instruction where the target has it (rounded
 * once, like libm's fmaf in the interpreter), else fmaf lane by lane;
 * never a * b + c, which a kernel built without contraction (SPEC
 * 10.8) rounds twice.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

const char cgc_vfexp_macro[] =
    "#define TL_VFEXPF32(W) \\\n"
    "TL_HELPER tl_f32x##W tl_f32x##W##_fexp(tl_f32x##W x) \\\n"
    "{ \\\n"
    "    tl_f32x##W c, kk, k, r, p; \\\n"
    "    c = TL_FEXP_CL##W(x); \\\n"
    "    kk = TL_FMA##W(c, tl_f32x##W##_bc(1.44269504f), \\\n"
    "                   tl_f32x##W##_bc(12583038.0f)); \\\n"
    "    k = kk - tl_f32x##W##_bc(12583038.0f); \\\n"
    "    r = TL_FMA##W(k, tl_f32x##W##_bc(-0.693147182f), c); \\\n"
    "    r = TL_FMA##W(k, tl_f32x##W##_bc(1.90465421e-9f), r); \\\n"
    "    p = TL_FMA##W(tl_f32x##W##_bc(0.0027673631f), r, \\\n"
    "                  tl_f32x##W##_bc(0.01674968f)); \\\n"
    "    p = TL_FMA##W(p, r, tl_f32x##W##_bc(0.0833364576f)); \\\n"
    "    p = TL_FMA##W(p, r, tl_f32x##W##_bc(0.333328396f)); \\\n"
    "    p = TL_FMA##W(p, r, tl_f32x##W##_bc(0.999999821f)); \\\n"
    "    p = TL_FMA##W(p, r, tl_f32x##W##_bc(2.0f)); \\\n"
    "    p = TL_FMA##W(p, r, tl_f32x##W##_bc(2.0f)); \\\n"
    "    return p * (tl_f32x##W)((tl_u32x##W)kk << 23); \\\n"
    "}\n";

/* fast_exp's fused multiply-add of W lanes.  The builtins are the
 * ones GCC's and Clang's immintrin.h wrap (including the header costs
 * cc 0.25 s per kernel); clang 14 has them, later clangs wrap
 * __builtin_elementwise_fma instead, which is tried first. */
static void fexp_fma(TlBuf *b, int w)
{
    const char *isa = w == 4 ? "__FMA__" : w == 8 ? "__FMA__"
                    : w == 16 ? "__AVX512F__" : NULL;
    const char *call = w == 4 ? "vfmaddps((a), (b), (c))"
                     : w == 8 ? "vfmaddps256((a), (b), (c))"
                     : "vfmaddps512_mask((a), (b), (c), "
                       "(unsigned short)-1, 4)";

    buf_printf(b, "#if defined(__clang__) && defined(__has_builtin)\n"
                  "#if __has_builtin(__builtin_elementwise_fma)\n"
                  "#define TL_FMA%d(a, b, c) "
                  "__builtin_elementwise_fma((a), (b), (c))\n"
                  "#endif\n#endif\n", w);
    if (isa)
        buf_printf(b, "#if defined(%s) && !defined(TL_FMA%d)\n"
                      "#define TL_FMA%d(a, b, c) ((tl_f32x%d)"
                      "__builtin_ia32_%s)\n#endif\n",
                   isa, w, w, w, call);
    buf_printf(b, "#ifndef TL_FMA%d\n"
                  "#define TL_FMA%d(a, b, c) tl_f32x%d_fma((a), (b), (c))\n"
                  "TL_HELPER tl_f32x%d tl_f32x%d_fma(tl_f32x%d a, "
                  "tl_f32x%d b, tl_f32x%d c)\n"
                  "{\n"
                  "    for (int l = 0; l < %d; l++)\n"
                  "        a[l] = fmaf(a[l], b[l], c[l]);\n"
                  "    return a;\n"
                  "}\n"
                  "#endif\n",
               w, w, w, w, w, w, w, w, w);
}

/* fast_exp's clamp of W lanes to [-87.5, 89], a NaN passing through:
 * the selects of the scalar definition.  gcc does not see them as
 * vmaxps/vminps (whose NaN rule, the second operand, is theirs), so on
 * x86 it is given the instructions; clang finds them itself. */
static void fexp_clamp(TlBuf *b, int w)
{
    const char *isa = w == 4 ? "__SSE__" : w == 8 ? "__AVX__"
                    : w == 16 ? "__AVX512F__" : NULL;
    const char *sfx = w == 4 ? "ps" : w == 8 ? "ps256" : "ps512_mask";
    const char *mask = w == 16 ? ", tl_f32x16_bc(0.0f), "
                                 "(unsigned short)-1, 4" : "";

    if (isa)
        buf_printf(b, "#if defined(%s) && !defined(__clang__)\n"
                      "#define TL_FEXP_CL%d(x) ((tl_f32x%d)"
                      "__builtin_ia32_min%s(tl_f32x%d_bc(89.0f), "
                      "(tl_f32x%d)__builtin_ia32_max%s("
                      "tl_f32x%d_bc(-87.5f), (x)%s)%s))\n#endif\n",
                   isa, w, w, sfx, w, w, sfx, w, mask, mask);
    buf_printf(b, "#ifndef TL_FEXP_CL%d\n"
                  "#define TL_FEXP_CL%d(x) tl_f32x%d_fexp_hi("
                  "tl_f32x%d_fexp_lo(x))\n#endif\n",
               w, w, w, w);
    buf_printf(b, "TL_HELPER tl_f32x%d tl_f32x%d_fexp_lo(tl_f32x%d x)\n"
                  "{ return tl_f32x%d_sel(x < tl_f32x%d_bc(-87.5f), "
                  "tl_f32x%d_bc(-87.5f), x); }\n",
               w, w, w, w, w, w);
    buf_printf(b, "TL_HELPER tl_f32x%d tl_f32x%d_fexp_hi(tl_f32x%d x)\n"
                  "{ return tl_f32x%d_sel(x > tl_f32x%d_bc(89.0f), "
                  "tl_f32x%d_bc(89.0f), x); }\n",
               w, w, w, w, w, w);
}

void cgc_vfexp_width(TlBuf *b, int w)
{
    fexp_clamp(b, w);
    fexp_fma(b, w);
    buf_printf(b, "TL_VFEXPF32(%d)\n", w);
}
