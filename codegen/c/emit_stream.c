/*
 * emit_stream.c - the streamed copies of pass_stream.c in C: a store of
 * a run of more than 16 floats to a `stream` output from a stack
 * buffer becomes tl_stream_f32, whose helper is written once per
 * kernel that has one.
 */
#include "codegen/c/cgc.h"

/* The start of a contiguous index ramp(a, 1, n), else NULL. */
static const LExpr *dense(const LExpr *idx)
{
    if (idx->kind == LE_RAMP && idx->b->kind == LE_INT && idx->b->ival == 1)
        return idx->a;
    return NULL;
}

int cgc_stream_copy(const LStmt *st)
{
    const LExpr *v = st->kind == LS_STORE ? st->a : NULL;

    return v && st->var->stream && st->var->type.dt == DT_F32 &&
           st->nargs == 1 && v->type.lanes > 16 && v->kind == LE_LOAD &&
           v->nargs == 1 && dense(st->args[0]) && dense(v->args[0]);
}

/* Streaming stores of a run of n floats (pass_stream.c; n a multiple
 * of 16, s a stack buffer on a 64-byte line): each whole 64-byte line
 * of d one non-temporal store (the line is written without being read
 * first); the partial lines at the ends masked ordinary stores.  The
 * lines of d are s's vectors shifted by h lanes: gcc takes each from
 * two aligned vectors of s with one two-source permute (an unaligned
 * load of s would span two of the stores just made to it, which the
 * store buffer cannot forward); elsewhere unaligned loads.
 * Non-temporal stores are weakly ordered: TL_SFENCE() after a thread's
 * last one (the end of each parallel iteration and of the kernel)
 * makes them visible before the threads join or the kernel returns.
 * Without AVX-512 an ordinary copy. */
static const char stream_helper[] =
    "#if defined(__AVX512F__)\n"
    "#if defined(__clang__)\n"
    "#define TL_NTSTORE(p, x) __builtin_nontemporal_store((tl_v16sf)(x),"
    " (tl_v16sf *)(void *)(p))\n"
    "#else\n"
    "#define TL_NTSTORE(p, x) __builtin_ia32_movntps512((p), (x))\n"
    "#endif\n"
    "TL_HELPER void tl_stream_f32(float *d, const float *s, int64_t n)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    const tl_v16sf *v = (const tl_v16sf *)(const void *)s;\n"
    "    int64_t h = (int64_t)((0u - (uintptr_t)d) % 64u / 4u), m = n / 16;\n"
    "    if ((uintptr_t)s % 64u || n % 16) {\n"
    "        __builtin_memcpy(d, s, (size_t)n * sizeof *d);\n"
    "        return;\n"
    "    }\n"
    "    if (!h) {\n"
    "        for (int64_t j = 0; j < m; j++)\n"
    "            TL_NTSTORE(d + 16 * j, v[j]);\n"
    "        return;\n"
    "    }\n"
    "    __builtin_ia32_storeups512_mask(d, v[0], (unsigned short)((1u << h)"
    " - 1u));\n"
    "    d += h;\n"
    "#if defined(__clang__)\n"
    "    typedef float tl_v16su __attribute__((vector_size(64),"
    " aligned(4)));\n"
    "    for (int64_t j = 0; j + 1 < m; j++)\n"
    "        TL_NTSTORE(d + 16 * j, *(const tl_v16su *)(s + h + 16 * j));\n"
    "    __builtin_ia32_storeups512_mask(d + 16 * (m - 1),\n"
    "        __builtin_ia32_loadups512_mask(s + h + 16 * (m - 1),"
    " (tl_v16sf){0},\n"
    "                                       (unsigned short)((1u << (16 - h))"
    " - 1u)),\n"
    "        (unsigned short)((1u << (16 - h)) - 1u));\n"
    "#else\n"
    "    typedef int32_t tl_v16si __attribute__((vector_size(64)));\n"
    "    tl_v16si ix = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,"
    " 15};\n"
    "    ix += (int32_t)h;\n"
    "    for (int64_t j = 0; j + 1 < m; j++)\n"
    "        TL_NTSTORE(d + 16 * j, __builtin_shuffle(v[j], v[j + 1], ix));\n"
    "    __builtin_ia32_storeups512_mask(d + 16 * (m - 1),\n"
    "        __builtin_shuffle(v[m - 1], v[m - 1], ix),\n"
    "        (unsigned short)((1u << (16 - h)) - 1u));\n"
    "#endif\n"
    "}\n"
    "#define TL_SFENCE() __builtin_ia32_sfence()\n"
    "#else\n"
    "TL_HELPER void tl_stream_f32(float *d, const float *s, int64_t n)\n"
    "{\n"
    "    __builtin_memcpy(d, s, (size_t)n * sizeof *d);\n"
    "}\n"
    "#define TL_SFENCE() ((void)0)\n"
    "#endif\n";

void cgc_stream_prelude(TlBuf *b)
{
    buf_puts(b, stream_helper);
}

void cgc_stream_store(TlBuf *b, const LStmt *st)
{
    buf_puts(b, "tl_stream_f32(&");
    cgc_name(b, st->var->name);
    buf_putc(b, '[');
    cgc_expr(b, dense(st->args[0]));
    buf_puts(b, "], &");
    cgc_name(b, st->a->var->name);
    buf_putc(b, '[');
    cgc_expr(b, dense(st->a->args[0]));
    buf_printf(b, "], %d);\n", st->a->type.lanes);
}
