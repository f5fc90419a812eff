/*
 * emit_gather.c - a load of 16 lanes of 4 bytes a stride apart (a
 * transposition: conv2d's Y reading S with its filters innermost, the
 * packing of its weights) as one gather instruction where the target
 * has AVX-512, through the prelude's tl_gld16.
 *
 * Why: emit_vec.c's strided_load lists the 16 lanes as a vector
 * literal of scalar loads, each with its index; gcc -O3 spent 0.06 s
 * of conv2d's 0.41 on the two such loads in its C (bench/README.md
 * 2026-11-29 12:20), where vgatherdps is one instruction to compile
 * and no slower to run than 16 loads and inserts.  The lanes' offsets
 * l * s are the gather's 32-bit indices; a stride too large for them
 * takes an out-of-line loop, as does a build without AVX-512 or under
 * AddressSanitizer (which does not see a gather's reads).  The lanes
 * read the addresses the literal read (base + l * s, wrapping as the
 * scalar index arithmetic does).
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

const char cgc_gather_helper[] =
    "/* 16 lanes of 4 bytes at p[l * s] (codegen/c/emit_gather.c). */\n"
    "#if defined(__GNUC__)\n"
    "__attribute__((unused, noinline, cold))\n"
    "#endif\n"
    "static void tl_gld16s(void *r, const void *p, int64_t s)\n"
    "{\n"
    "    uint32_t v[16];\n"
    "    for (int l = 0; l < 16; l++)\n"
    "        __builtin_memcpy(&v[l], (const char *)p +\n"
    "                         (int64_t)((uint64_t)l * (uint64_t)s * 4u), 4);\n"
    "    __builtin_memcpy(r, v, 64);\n"
    "}\n"
    "#if defined(__has_feature)\n"
    "#if __has_feature(address_sanitizer)\n"
    "#define TL_GLD_OFF 1\n"
    "#endif\n"
    "#endif\n"
    "#if defined(__SANITIZE_ADDRESS__) && !defined(TL_GLD_OFF)\n"
    "#define TL_GLD_OFF 1\n"
    "#endif\n"
    "#if defined(__AVX512F__) && !defined(TL_GLD_OFF)\n"
    "TL_HELPER void tl_gld16(void *r, const void *p, int64_t s)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    typedef int tl_v16si __attribute__((vector_size(64)));\n"
    "    tl_v16sf v;\n"
    "    if (s < -0x8000000 || s > 0x8000000) {\n"
    "        tl_gld16s(r, p, s);\n"
    "        return;\n"
    "    }\n"
    "    v = __builtin_ia32_gathersiv16sf((tl_v16sf){0}, p,\n"
    "            (tl_v16si){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,\n"
    "                       14, 15} * (int)s, (unsigned short)0xffff, 4);\n"
    "    __builtin_memcpy(r, &v, 64);\n"
    "}\n"
    "#else\n"
    "TL_HELPER void tl_gld16(void *r, const void *p, int64_t s)\n"
    "{\n"
    "    tl_gld16s(r, p, s);\n"
    "}\n"
    "#endif\n";

int cgc_gather(TlBuf *b, const LExpr *e)
{
    const LExpr *idx = e->args[0];

    if (e->type.lanes != 16 || dt_size(e->type.dt) != 4 ||
        e->var->type.dt != e->type.dt)
        return 0;
    buf_puts(b, "({ ");
    cgc_type_name(b, e->type);
    buf_puts(b, " tl_r; tl_gld16(&tl_r, &");
    cgc_name(b, e->var->name);
    buf_putc(b, '[');
    cgc_expr(b, idx->a);
    buf_puts(b, "], (int64_t)(");
    cgc_expr(b, idx->b);
    buf_puts(b, ")); tl_r; })");
    return 1;
}
