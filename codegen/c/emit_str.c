/*
 * emit_str.c - strings in the generated C (SPEC 8.6, docs/c-abi.md).
 *
 * A str element is a `const char *` to a NUL-terminated string; NULL
 * is the empty string (a zeroed tensor holds it).  The kernel reads
 * the strings it is given in place and never frees or changes one;
 * the strings it makes (lower, upper, a number's text) it copies into
 * memory from the caller's allocator (tdsl_str_alloc, the CGP_STRMEM
 * parameter), so the caller owns every string of the outputs and the
 * kernel leaks nothing.  Equality is strcmp (an interned string equal
 * to another is the same pointer, which is tested first).  The text
 * of numbers and the numbers of text are lang/strconv.h, the
 * interpreter's own code as text, so both give the same bytes and
 * bits.  A string that is no number sets CG_ERR_STR, after which the
 * runner has the interpreter report it (the C entry returns
 * TDSL_ERR_STR).
 *
 * Calls of the caller's allocator take turns (a spin lock of the
 * kernel's), so it need not be thread-safe when a schedule
 * parallelizes a stage that makes strings.
 */
#include "codegen/c/cgc.h"
#include "lang/strconv.h"

#include <string.h>

#define TL_SC_AS_TEXT(...) #__VA_ARGS__

static const char prelude[] =
    "\n/* ---- strings (docs/c-abi.md, SPEC 8.6) ---- */\n"
    "#include <ctype.h>\n"
    "#include <errno.h>\n"
    "#include <stdio.h>\n"
    "#ifndef TDSL_STR_ALLOC_DEFINED\n"
    "#define TDSL_STR_ALLOC_DEFINED\n"
    "/* Where a kernel puts the strings it makes: alloc(ctx, size)\n"
    " * returns size bytes (NULL: out of memory) that the caller owns. */\n"
    "typedef struct tdsl_str_alloc {\n"
    "    void *(*alloc)(void *ctx, size_t size);\n"
    "    void *ctx;\n"
    "} tdsl_str_alloc;\n"
    "#endif\n"
    "/* A str element (a `const tl_str` is a constant pointer). */\n"
    "typedef const char *tl_str;\n"
    "#define TL_SC TL_HELPER\n";

static const char helpers[] =
    "TL_HELPER int tl_s_same64(double r, double v)\n"
    "{\n"
    "    return r == v;\n"
    "}\n"
    "TL_HELPER int tl_s_same32(double r, double v)\n"
    "{\n"
    "    return (float)r == (float)v;\n"
    "}\n"
    "TL_HELPER int tl_s_same16(double r, double v)\n"
    "{\n"
    "    return tl_rh16(r) == tl_rh16(v);\n"
    "}\n"
    "TL_HELPER int tl_s_samebf16(double r, double v)\n"
    "{\n"
    "    return tl_rbf16(r) == tl_rbf16(v);\n"
    "}\n"
    "TL_HELPER _Bool tl_s_nonempty(const char *s)\n"
    "{\n"
    "    return s && *s;\n"
    "}\n"
    "TL_HELPER _Bool tl_s_eq(const char *a, const char *b)\n"
    "{\n"
    "    return a == b || !strcmp(a ? a : \"\", b ? b : \"\");\n"
    "}\n"
    "/* n + 1 bytes from the caller's allocator, one call at a time (a\n"
    " * spin lock: the pool's threads are no OpenMP threads). */\n"
    "static int tl_s_lock;\n"
    "TL_HELPER char *tl_s_alloc(uint8_t *mem, int32_t *err, size_t n)\n"
    "{\n"
    "    tdsl_str_alloc *a = (tdsl_str_alloc *)(void *)mem;\n"
    "    char *p;\n"
    "    while (__atomic_exchange_n(&tl_s_lock, 1, __ATOMIC_ACQUIRE))\n"
    "        while (__atomic_load_n(&tl_s_lock, __ATOMIC_RELAXED))\n"
    "            ;\n"
    "    p = (char *)a->alloc(a->ctx, n + 1);\n"
    "    __atomic_store_n(&tl_s_lock, 0, __ATOMIC_RELEASE);\n"
    "    if (!p)\n"
    "        __atomic_fetch_or(err, 2, __ATOMIC_RELAXED);\n"
    "    return p;\n"
    "}\n"
    "TL_HELPER const char *tl_s_copy(uint8_t *mem, int32_t *err,\n"
    "                                const char *s)\n"
    "{\n"
    "    size_t n = strlen(s);\n"
    "    char *p = tl_s_alloc(mem, err, n);\n"
    "    if (!p)\n"
    "        return 0;\n"
    "    memcpy(p, s, n + 1);\n"
    "    return p;\n"
    "}\n"
    "TL_HELPER const char *tl_s_case(uint8_t *mem, int32_t *err,\n"
    "                                const char *s, int up)\n"
    "{\n"
    "    size_t n;\n"
    "    char *p;\n"
    "    if (!s || !*s)\n"
    "        return s;\n"
    "    n = strlen(s);\n"
    "    if (!(p = tl_s_alloc(mem, err, n)))\n"
    "        return 0;\n"
    "    tl_sc_case(s, p, n, up);\n"
    "    p[n] = 0;\n"
    "    return p;\n"
    "}\n"
    "TL_HELPER const char *tl_s_text_i(uint8_t *mem, int32_t *err,\n"
    "                                  int64_t v)\n"
    "{\n"
    "    char t[32];\n"
    "    snprintf(t, sizeof t, \"%lld\", (long long)v);\n"
    "    return tl_s_copy(mem, err, t);\n"
    "}\n"
    "TL_HELPER const char *tl_s_text_u(uint8_t *mem, int32_t *err,\n"
    "                                  uint64_t v)\n"
    "{\n"
    "    char t[32];\n"
    "    snprintf(t, sizeof t, \"%llu\", (unsigned long long)v);\n"
    "    return tl_s_copy(mem, err, t);\n"
    "}\n"
    "TL_HELPER const char *tl_s_text_f(uint8_t *mem, int32_t *err,\n"
    "                                  double v, int maxd,\n"
    "                                  int (*same)(double, double))\n"
    "{\n"
    "    char t[64];\n"
    "    tl_sc_float(v, maxd, same, t, sizeof t);\n"
    "    return tl_s_copy(mem, err, t);\n"
    "}\n"
    "TL_HELPER double tl_s_num_f(const char *s, int32_t *err)\n"
    "{\n"
    "    double v;\n"
    "    if (tl_sc_parse_f(s ? s : \"\", &v)) {\n"
    "        __atomic_fetch_or(err, 16, __ATOMIC_RELAXED);\n"
    "        return 0;\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "TL_HELPER int64_t tl_s_num_i(const char *s, int32_t *err)\n"
    "{\n"
    "    int64_t v;\n"
    "    if (tl_sc_parse_i(s ? s : \"\", &v)) {\n"
    "        __atomic_fetch_or(err, 16, __ATOMIC_RELAXED);\n"
    "        return 0;\n"
    "    }\n"
    "    return v;\n"
    "}\n"
    "TL_HELPER uint64_t tl_s_num_u(const char *s, int32_t *err)\n"
    "{\n"
    "    uint64_t v;\n"
    "    if (tl_sc_parse_u(s ? s : \"\", &v)) {\n"
    "        __atomic_fetch_or(err, 16, __ATOMIC_RELAXED);\n"
    "        return 0;\n"
    "    }\n"
    "    return v;\n"
    "}\n\n";

int cgc_has_str(const LFunc *f)
{
    for (int i = 0; i < f->nparams; i++)
        if (!strcmp(f->params[i].var->name, CG_STRMEM_NAME))
            return 1;
    return 0;
}

void cgc_str_prelude(TlBuf *out, const LFunc *f)
{
    if (!cgc_has_str(f))
        return;
    buf_puts(out, prelude);
    buf_puts(out, TL_STRCONV_DEF(TL_SC_AS_TEXT));
    buf_puts(out, "\n");
    buf_puts(out, helpers);
}

/* The two arguments every maker of strings takes. */
#define MEM "tl__strmem, tl__err"

int cgc_str_expr(TlBuf *b, const LExpr *e)
{
    TlDType to = e->type.dt, from;

    switch (e->kind) {
    case LE_BINARY:
        if (e->a->type.dt != DT_STR)
            return 0;
        buf_puts(b, e->op == LO_EQ ? "tl_s_eq(" : "(!tl_s_eq(");
        cgc_expr(b, e->a);
        buf_puts(b, ", ");
        cgc_expr(b, e->b);
        buf_puts(b, e->op == LO_EQ ? ")" : "))");
        return 1;
    case LE_CALL:
        if (e->var || (e->fn != LC_LOWER && e->fn != LC_UPPER))
            return 0;
        buf_puts(b, "tl_s_case(" MEM ", ");
        cgc_expr(b, e->args[0]);
        buf_puts(b, e->fn == LC_UPPER ? ", 1)" : ", 0)");
        return 1;
    case LE_CAST:
        from = e->a->type.dt;
        if (to == DT_STR && from != DT_STR) {
            if (from == DT_BOOL) {
                buf_puts(b, "(");
                cgc_expr(b, e->a);
                buf_puts(b, " ? \"True\" : \"False\")");
            } else if (dt_is_float(from)) {
                /* The digits that read back at from's precision: f16
                 * and bf16 values are floats rounded by tl_rh16 and
                 * tl_rbf16 (emit.c), as the interpreter rounds them. */
                buf_puts(b, "tl_s_text_f(" MEM ", (double)");
                cgc_expr(b, e->a);
                buf_puts(b, from == DT_F32 ? ", 9, tl_s_same32)"
                            : from == DT_F64 ? ", 17, tl_s_same64)"
                            : from == DT_F16 ? ", 5, tl_s_same16)"
                                             : ", 5, tl_s_samebf16)");
            } else {
                TL_ASSERT(dt_is_int(from));
                buf_puts(b, from == DT_U64 ? "tl_s_text_u(" MEM ", "
                                           : "tl_s_text_i(" MEM ", "
                                             "(int64_t)");
                cgc_expr(b, e->a);
                buf_puts(b, ")");
            }
            return 1;
        }
        if (from != DT_STR || to == DT_STR)
            return 0;
        if (to == DT_BOOL) {        /* true when not empty */
            buf_puts(b, "tl_s_nonempty(");
            cgc_expr(b, e->a);
            buf_puts(b, ")");
        } else {
            /* A float reads as an f64 rounded to the dtype (numpy), an
             * integer as an i64 (u64 its own) wrapped to it. */
            const char *fn = dt_is_float(to) ? "tl_s_num_f"
                             : to == DT_U64 ? "tl_s_num_u" : "tl_s_num_i";
            if (to == DT_F16 || to == DT_BF16)
                buf_printf(b, "(%s(%s(", to == DT_F16 ? "tl_rh16"
                                                      : "tl_rbf16", fn);
            else
                buf_printf(b, "((%s)%s(", cgc_ctype(to), fn);
            cgc_expr(b, e->a);
            buf_puts(b, to == DT_F16 || to == DT_BF16 ? ", tl__err)))"
                                                      : ", tl__err))");
        }
        return 1;
    default:
        return 0;
    }
}
