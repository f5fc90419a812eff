/*
 * emit.c - a loop-IR function as a C99 translation unit.  The C has
 * the language's semantics exactly (the interpreter's): integers wrap
 * (computed unsigned), `/` and `%` floor and give 0 by zero, float `%`
 * is Python's, min/max propagate NaN, float-to-int casts saturate,
 * f32 math functions are the f64 ones rounded once, as the interpreter
 * computes them.  Small static inline helpers at the top do the
 * non-obvious parts.  Identifiers are the IR's names with `.` written
 * `__`; each stage's loop nest starts with a comment naming it.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"
#include "lang/fast_exp.h"
#include "lang/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TL_FEXP_AS_TEXT(...) #__VA_ARGS__
/* Bytes of the stack buffer a heap allocation inside a loop uses when
 * it fits. */
#define CG_STACK_BYTES 16384

static const char helpers[] =
    "#include <math.h>\n"
    "#include <float.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "\n"
    "/* `omp simd` is a request: clang warns where it cannot vectorize\n"
    " * (a guarded tail, a call), which is no error in the kernel. */\n"
    "#ifdef __clang__\n"
    "#pragma clang diagnostic ignored \"-Wpass-failed\"\n"
    "#endif\n"
    "/* gcc's -Warray-bounds judges an index by the values it could take\n"
    " * on paths that wrap an i32 index sum or see a negative extent;\n"
    " * bounds inference keeps every index in its buffer on the paths\n"
    " * that run (ASan checks it in the sanitizer build). */\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC diagnostic ignored \"-Warray-bounds\"\n"
    "#endif\n"
    "/* A comparison of a bool widened to a number with a constant it\n"
    " * cannot reach (`u64(b) > 9`) means what the program wrote; gcc's\n"
    " * -Wbool-compare sees through the conversion and calls it a\n"
    " * mistake. */\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC diagnostic ignored \"-Wbool-compare\"\n"
    "#endif\n"
    "/* A buffer on the stack when it fits, else malloc'd, is freed only\n"
    " * when it is not the stack one (`if (t != t__sb) free(t)`); gcc\n"
    " * without optimization does not follow the test and calls the\n"
    " * free one of a stack object. */\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC diagnostic ignored \"-Wfree-nonheap-object\"\n"
    "#endif\n"
    "/* A stage computed at a loop of its consumer writes every element\n"
    " * of the region the consumer then reads (bounds inference), over\n"
    " * loops whose counts gcc cannot prove positive: it calls the read\n"
    " * of a stack buffer maybe uninitialized. */\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#pragma GCC diagnostic ignored \"-Wmaybe-uninitialized\"\n"
    "#endif\n"
    "\n"
    "/* Helpers for the language's arithmetic; clang warns about unused\n"
    " * static inline functions, so they are marked. */\n"
    "#if defined(__GNUC__)\n"
    "#define TL_HELPER static inline __attribute__((unused))\n"
    "#else\n"
    "#define TL_HELPER static inline\n"
    "#endif\n"
    "/* Stack buffers start on a cache line: a row's vectors of 64 bytes\n"
    " * then never straddle two. */\n"
    "#if defined(__GNUC__)\n"
    "#define TL_LINE __attribute__((aligned(64)))\n"
    "#else\n"
    "#define TL_LINE\n"
    "#endif\n"
    "TL_HELPER int64_t tl_div(int64_t a, int64_t b)\n"
    "{\n"
    "    int64_t q;\n"
    "    if (b == 0) return 0;\n"
    "    if (b == -1) return (int64_t)(0 - (uint64_t)a);\n"
    "    q = a / b;\n"
    "    if (a % b != 0 && ((a < 0) != (b < 0))) q--;\n"
    "    return q;\n"
    "}\n"
    "TL_HELPER int64_t tl_mod(int64_t a, int64_t b)\n"
    "{\n"
    "    int64_t r;\n"
    "    if (b == 0 || b == -1) return 0;\n"
    "    r = a % b;\n"
    "    if (r != 0 && ((r < 0) != (b < 0))) r += b;\n"
    "    return r;\n"
    "}\n"
    "TL_HELPER double tl_fmod(double a, double b)\n"
    "{\n"
    "    double m = fmod(a, b);\n"
    "    if (m != 0) { if ((b < 0) != (m < 0)) m += b; }\n"
    "    else m = copysign(0.0, b);\n"
    "    return m;\n"
    "}\n"
    "TL_HELPER double tl_fmin(double a, double b)\n"
    "{\n"
    "    if (isnan(a)) return a;\n"
    "    if (isnan(b)) return b;\n"
    "    return b < a ? b : a;\n"
    "}\n"
    "TL_HELPER double tl_fmax(double a, double b)\n"
    "{\n"
    "    if (isnan(a)) return a;\n"
    "    if (isnan(b)) return b;\n"
    "    return b > a ? b : a;\n"
    "}\n"
    "/* The same in float, without branches: f32 reductions chain them,\n"
    " * and in double the conversions and the tests were the chain's\n"
    " * length.  A NaN comes back quiet, as through double. */\n"
    "TL_HELPER float tl_fminf(float a, float b)\n"
    "{\n"
    "    return a != a ? a + a : b != b ? b + b : b < a ? b : a;\n"
    "}\n"
    "TL_HELPER float tl_fmaxf(float a, float b)\n"
    "{\n"
    "    return a != a ? a + a : b != b ? b + b : b > a ? b : a;\n"
    "}\n"
    "TL_HELPER int64_t tl_imin(int64_t a, int64_t b)\n"
    "{\n"
    "    return b < a ? b : a;\n"
    "}\n"
    "TL_HELPER int64_t tl_imax(int64_t a, int64_t b)\n"
    "{\n"
    "    return b > a ? b : a;\n"
    "}\n"
    "TL_HELPER int64_t tl_iabs(int64_t a)\n"
    "{\n"
    "    return a < 0 ? (int64_t)(0 - (uint64_t)a) : a;\n"
    "}\n"
    "/* Saturating float to integer; NaN gives 0. */\n"
    "TL_HELPER int64_t tl_f2i(double v, int64_t lo, int64_t hi)\n"
    "{\n"
    "    if (isnan(v)) return 0;\n"
    "    if (v >= (double)hi) return hi;\n"
    "    if (v <= (double)lo) return lo;\n"
    "    return (int64_t)v;\n"
    "}\n"
    "/* u64: unsigned division, modulo (0 by zero) and order. */\n"
    "TL_HELPER uint64_t tl_udiv(uint64_t a, uint64_t b)\n"
    "{\n"
    "    return b ? a / b : 0;\n"
    "}\n"
    "TL_HELPER uint64_t tl_umod(uint64_t a, uint64_t b)\n"
    "{\n"
    "    return b ? a % b : 0;\n"
    "}\n"
    "TL_HELPER uint64_t tl_umin(uint64_t a, uint64_t b)\n"
    "{\n"
    "    return b < a ? b : a;\n"
    "}\n"
    "TL_HELPER uint64_t tl_umax(uint64_t a, uint64_t b)\n"
    "{\n"
    "    return b > a ? b : a;\n"
    "}\n"
    "TL_HELPER uint64_t tl_f2u(double v)\n"
    "{\n"
    "    if (isnan(v) || v <= 0) return 0;\n"
    "    if (v >= 0x1p64) return UINT64_MAX;\n"
    "    return (uint64_t)v;\n"
    "}\n"
    "/* hash(x) of a tensor the kernel computes (SPEC 6.8): FNV-1a over\n"
    " * the bytes of one element as a buffer stores it, continuing h;\n"
    " * tl_tensor_hash's step (lang/tensor.c). */\n"
    "TL_HELPER int64_t tl_fnv(int64_t h, const void *p, int n)\n"
    "{\n"
    "    const unsigned char *q = (const unsigned char *)p;\n"
    "    uint64_t u = (uint64_t)h;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        u = (u ^ q[i]) * 0x100000001b3ull;\n"
    "    return (int64_t)u;\n"
    "}\n"
    "TL_HELPER double tl_sigmoid(double x)\n"
    "{\n"
    "    return 1.0 / (1.0 + exp(-x));\n"
    "}\n"
    "/* f16 and bf16 values are held in float (exactly) and stored as their\n"
    " * 16 bits.  An operation is done in double, as the interpreter does,\n"
    " * and rounded once to nearest even: p bits, emin the smallest normal\n"
    " * exponent, top the largest finite value. */\n"
    "TL_HELPER double tl_rhalf(double x, int p, int emin, double top)\n"
    "{\n"
    "    double a = fabs(x);\n"
    "    int e;\n"
    "    if (a == 0 || !(a <= DBL_MAX)) return x;\n"
    "    (void)frexp(a, &e);\n"
    "    if (e - 1 < emin) e = emin + 1;\n"
    "    a = ldexp(nearbyint(ldexp(x, p - e)), e - p);\n"
    "    return fabs(a) > top ? copysign(INFINITY, x) : a;\n"
    "}\n"
    "TL_HELPER float tl_rh16(double x)\n"
    "{\n"
    "    return (float)tl_rhalf(x, 11, -14, 65504.0);\n"
    "}\n"
    "TL_HELPER float tl_rbf16(double x)\n"
    "{\n"
    "    return (float)tl_rhalf(x, 8, -126, 0x1.fep127);\n"
    "}\n"
    "TL_HELPER float tl_h16f(uint16_t h)\n"
    "{\n"
    "    int e = (h >> 10) & 31, m = h & 1023;\n"
    "    double v = e == 31 ? (m ? NAN : INFINITY)\n"
    "             : e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);\n"
    "    return (float)(h >> 15 ? -v : v);\n"
    "}\n"
    "TL_HELPER uint16_t tl_fh16(float f)\n"
    "{\n"
    "    double a = fabs((double)f);\n"
    "    uint16_t s = signbit(f) ? 0x8000 : 0;\n"
    "    int e;\n"
    "    if (isnan(f)) return (uint16_t)(s | 0x7e00);\n"
    "    if (isinf(f)) return (uint16_t)(s | 0x7c00);\n"
    "    if (a == 0) return s;\n"
    "    (void)frexp(a, &e);\n"
    "    if (e - 1 < -14) return (uint16_t)(s | (uint16_t)ldexp(a, 24));\n"
    "    return (uint16_t)(s | ((e + 14) << 10) |\n"
    "                      ((int)ldexp(a, 11 - e) - 1024));\n"
    "}\n"
    "TL_HELPER float tl_bf16f(uint16_t h)\n"
    "{\n"
    "    uint32_t u = (uint32_t)h << 16;\n"
    "    float f;\n"
    "    memcpy(&f, &u, 4);\n"
    "    return f;\n"
    "}\n"
    "TL_HELPER uint16_t tl_fbf16(float f)\n"
    "{\n"
    "    uint32_t u;\n"
    "    if (isnan(f)) return (uint16_t)(signbit(f) ? 0xffc0 : 0x7fc0);\n"
    "    memcpy(&u, &f, 4);\n"
    "    return (uint16_t)(u >> 16);\n"
    "}\n"
    "\n";

static const char *ctype(TlDType dt)
{
    switch (dt) {
    case DT_BOOL: return "_Bool";
    case DT_U8: return "uint8_t";
    case DT_I8: return "int8_t";
    case DT_I16: return "int16_t";
    case DT_I32: return "int32_t";
    case DT_I64: return "int64_t";
    case DT_U16: return "uint16_t";
    case DT_U32: return "uint32_t";
    case DT_U64: return "uint64_t";
    case DT_F32: return "float";
    case DT_F64: return "double";
    case DT_F16: case DT_BF16: return "float";
    case DT_STR: return "tl_str";   /* const char *, emit_str.c */
    default: tl_unreachable();
    }
}

static int is_half(TlDType dt)
{
    return dt == DT_F16 || dt == DT_BF16;
}

/* The element type of a buffer (bool is stored as a byte, f16 and
 * bf16 as their bits). */
static const char *btype(TlDType dt)
{
    return dt == DT_BOOL ? "uint8_t" : is_half(dt) ? "uint16_t" : ctype(dt);
}

/* Opens "(T)round(" around a float result of dt computed in double;
 * for f32 and f64 a cast is the rounding.  Closed by "))". */
static void round_open(TlBuf *b, TlDType dt)
{
    if (is_half(dt))
        buf_printf(b, "(%s((double)", dt == DT_F16 ? "tl_rh16" : "tl_rbf16");
    else
        buf_printf(b, "((%s)(", ctype(dt));
}

/* The unsigned type integer arithmetic of dt is done in. */
static const char *utype(TlDType dt)
{
    return dt_size(dt) == 8 ? "uint64_t" : "uint32_t";
}

static void name(TlBuf *b, const char *n)
{
    for (; *n; n++) {
        if (*n == '.')
            buf_puts(b, "__");
        else
            buf_putc(b, *n);
    }
}

static void expr(TlBuf *b, const LExpr *e);

static void int_lit(TlBuf *b, TlDType dt, int64_t v)
{
    if (dt == DT_BOOL)
        buf_puts(b, v ? "((_Bool)1)" : "((_Bool)0)");
    else if (dt == DT_STR)      /* 0 only: the empty string */
        buf_puts(b, "((const char *)0)");
    else if (v == INT64_MIN && dt != DT_U64)
        buf_puts(b, "(-INT64_C(9223372036854775807) - 1)");
    else if (v == INT32_MIN && dt == DT_I32)
        buf_puts(b, "(-2147483647 - 1)");
    else if (dt == DT_I64)
        buf_printf(b, "INT64_C(%lld)", (long long)v);
    else if (dt == DT_U64)
        buf_printf(b, "UINT64_C(%llu)", (unsigned long long)v);
    else if (dt == DT_I32)
        buf_printf(b, v < 0 ? "(%lld)" : "%lld", (long long)v);
    else
        buf_printf(b, "((%s)%lld)", ctype(dt), (long long)v);
}

static void float_lit(TlBuf *b, TlDType dt, double v)
{
    const char *t = ctype(dt);

    if (dt == DT_F16)
        v = tl_f16_to_f32(tl_f64_to_f16(v));
    else if (dt == DT_BF16)
        v = tl_bf16_to_f32(tl_f64_to_bf16(v));
    if (is_half(dt))
        dt = DT_F32;

    if (isnan(v))
        buf_printf(b, "((%s)NAN)", t);
    else if (isinf(v))
        buf_printf(b, "((%s)%sINFINITY)", t, v < 0 ? "-" : "");
    else
        buf_printf(b, v < 0 ? "(%a%s)" : "%a%s", v,
                   dt == DT_F32 ? "f" : "");
}

/* "(T)helper((double)a, (double)b)" style calls; a float result of
 * an f16 or bf16 dt is rounded to it. */
static void call2r(TlBuf *b, TlDType dt, const char *cast, const char *fn,
                   const char *arg_cast, const LExpr *x, const LExpr *y)
{
    if (is_half(dt))
        round_open(b, dt);
    else
        buf_printf(b, "((%s)", cast);
    buf_printf(b, "%s((%s)", fn, arg_cast);
    expr(b, x);
    if (y) {
        buf_printf(b, ", (%s)", arg_cast);
        expr(b, y);
    }
    buf_puts(b, "))");
    if (is_half(dt))
        buf_putc(b, ')');
}

static void call2(TlBuf *b, const char *cast, const char *fn,
                  const char *arg_cast, const LExpr *x, const LExpr *y)
{
    call2r(b, DT_I64, cast, fn, arg_cast, x, y);
}

static void binary(TlBuf *b, const LExpr *e)
{
    TlDType dt = e->a->type.dt;
    int fl = dt_is_float(dt);
    const char *t = ctype(dt);

    if (cgc_str_expr(b, e))
        return;
    switch (e->op) {
    case LO_ADD:
    case LO_SUB:
    case LO_MUL:
        if (fl) {
            round_open(b, dt);
            expr(b, e->a);
            buf_printf(b, " %s ", lir_op_name(e->op));
            if (is_half(dt))
                buf_puts(b, "(double)");
            expr(b, e->b);
            buf_puts(b, "))");
        } else {
            buf_printf(b, "((%s)((%s)", t, utype(dt));
            expr(b, e->a);
            buf_printf(b, " %s (%s)", lir_op_name(e->op), utype(dt));
            expr(b, e->b);
            buf_puts(b, "))");
        }
        return;
    case LO_DIV:
        if (fl) {
            round_open(b, dt);
            expr(b, e->a);
            buf_puts(b, is_half(dt) ? " / (double)" : " / ");
            expr(b, e->b);
            buf_puts(b, "))");
        } else if (dt == DT_U64) {
            call2(b, t, "tl_udiv", "uint64_t", e->a, e->b);
        } else {
            call2(b, t, "tl_div", "int64_t", e->a, e->b);
        }
        return;
    case LO_MOD:
        if (dt == DT_U64) {
            call2(b, t, "tl_umod", "uint64_t", e->a, e->b);
            return;
        }
        call2r(b, dt, t, fl ? "tl_fmod" : "tl_mod",
               fl ? "double" : "int64_t", e->a, e->b);
        return;
    case LO_MIN:
    case LO_MAX:
        if (dt == DT_F32)
            call2(b, t, e->op == LO_MIN ? "tl_fminf" : "tl_fmaxf", "float",
                  e->a, e->b);
        else if (fl)
            call2(b, t, e->op == LO_MIN ? "tl_fmin" : "tl_fmax", "double",
                  e->a, e->b);
        else if (dt == DT_U64)
            call2(b, t, e->op == LO_MIN ? "tl_umin" : "tl_umax",
                  "uint64_t", e->a, e->b);
        else        /* every integer dtype fits in int64_t */
            call2(b, t, e->op == LO_MIN ? "tl_imin" : "tl_imax", "int64_t",
                  e->a, e->b);
        return;
    default:
        buf_putc(b, '(');
        expr(b, e->a);
        buf_printf(b, " %s ", lir_op_name(e->op));
        expr(b, e->b);
        buf_putc(b, ')');
        return;
    }
}

static void cast(TlBuf *b, const LExpr *e)
{
    TlDType to = e->type.dt, from = e->a->type.dt;
    const char *t = ctype(to);

    if (cgc_str_expr(b, e))
        return;
    if (to == DT_BOOL) {
        buf_puts(b, "(");
        expr(b, e->a);
        buf_puts(b, " != 0)");
    } else if (dt_is_float(from) && to == DT_U64) {
        buf_puts(b, "tl_f2u((double)");
        expr(b, e->a);
        buf_putc(b, ')');
    } else if (dt_is_float(from) && !dt_is_float(to)) {
        buf_printf(b, "((%s)tl_f2i((double)", t);
        expr(b, e->a);
        buf_puts(b, ", ");
        int_lit(b, DT_I64, lir_int_min(to));
        buf_puts(b, ", ");
        int_lit(b, DT_I64, lir_int_max(to));
        buf_puts(b, "))");
    } else if (is_half(to) && to != from) {
        round_open(b, to);
        expr(b, e->a);
        buf_puts(b, "))");
    } else {
        buf_printf(b, "((%s)", t);
        expr(b, e->a);
        buf_putc(b, ')');
    }
}

/* A C function's type, "float (*)(float, int32_t)" with the name in
 * the middle when name is set (bool as uint8_t, as interp/ffi.c passes
 * it). */
static void func_type(TlBuf *b, const LVar *f, const char *name)
{
    buf_printf(b, "%s (*", f->type.dt == DT_BOOL ? "uint8_t"
                                                : ctype(f->type.dt));
    if (name)
        buf_puts(b, name);
    buf_puts(b, ")(");
    for (int i = 0; i < f->nsig; i++)
        buf_printf(b, "%s%s", i ? ", " : "",
                   f->sig[i] == DT_BOOL ? "uint8_t" : ctype(f->sig[i]));
    buf_puts(b, f->nsig ? ")" : "void)");
}

/* An extern's call; its result converted as the interpreter does
 * (a bool result is its byte's truth). */
static void call_func(TlBuf *b, const LExpr *e)
{
    buf_printf(b, "((%s)", ctype(e->type.dt));
    name(b, e->var->name);
    buf_putc(b, '(');
    for (int i = 0; i < e->nargs; i++) {
        buf_puts(b, i ? ", " : "");
        expr(b, e->args[i]);
    }
    buf_puts(b, "))");
}

static void call(TlBuf *b, const LExpr *e)
{
    static const char *const fns[] = {
        [LC_EXP] = "exp", [LC_FAST_EXP] = "exp", [LC_LOG] = "log",
        [LC_SQRT] = "sqrt",
        [LC_TANH] = "tanh", [LC_SIGMOID] = "tl_sigmoid", [LC_ERF] = "erf",
        [LC_SIN] = "sin", [LC_COS] = "cos", [LC_ABS] = "fabs",
        [LC_TAN] = "tan", [LC_ASIN] = "asin", [LC_ACOS] = "acos",
        [LC_ATAN] = "atan", [LC_SINH] = "sinh", [LC_COSH] = "cosh",
        [LC_ASINH] = "asinh", [LC_ACOSH] = "acosh", [LC_ATANH] = "atanh",
        [LC_FLOOR] = "floor", [LC_CEIL] = "ceil", [LC_ROUND] = "nearbyint",
        [LC_POW] = "pow",
    };
    TlDType dt = e->type.dt;
    const char *t = ctype(dt);

    if (e->var) {
        call_func(b, e);
        return;
    }
    if (cgc_str_expr(b, e))
        return;
    if (e->fn == LC_UNIFORM || e->fn == LC_NORMAL) {
        call2(b, t, e->fn == LC_UNIFORM ? "tl_uniformf" : "tl_normalf",
              "int64_t", e->args[0], e->args[1]);
        return;
    }
    if (e->fn == LC_FNV) {
        /* the element's bytes as its buffer holds them (btype) */
        TlDType vt = e->args[1]->type.dt;
        buf_puts(b, "tl_fnv(");
        expr(b, e->args[0]);
        buf_printf(b, ", &(%s){", btype(vt));
        if (is_half(vt))
            buf_puts(b, vt == DT_F16 ? "tl_fh16(" : "tl_fbf16(");
        expr(b, e->args[1]);
        buf_printf(b, "%s}, (int)sizeof(%s))", is_half(vt) ? ")" : "",
                   btype(vt));
        return;
    }
    if (!dt_is_float(dt)) {
        TL_ASSERT(e->fn == LC_ABS);
        if (dt_is_unsigned(dt))         /* its own absolute value */
            expr(b, e->args[0]);
        else
            call2(b, t, "tl_iabs", "int64_t", e->args[0], NULL);
        return;
    }
    if (e->fn == LC_RSQRT) {
        round_open(b, dt);
        buf_puts(b, "1.0 / sqrt((double)");
        expr(b, e->args[0]);
        buf_puts(b, ")))");
        return;
    }
    if (e->fn == LC_FAST_EXP && dt != DT_F64) {
        call2r(b, dt, t, "tl_fexpf", "float", e->args[0], NULL);
        return;
    }
    call2r(b, dt, t, fns[e->fn], "double", e->args[0],
           e->nargs > 1 ? e->args[1] : NULL);
}

static void expr(TlBuf *b, const LExpr *e)
{
    if (e->type.lanes > 1) {
        cgc_vexpr(b, e);        /* emit_vec.c */
        return;
    }
    switch (e->kind) {
    case LE_INT: int_lit(b, e->type.dt, e->ival); return;
    case LE_FLOAT: float_lit(b, e->type.dt, e->fval); return;
    case LE_VAR: name(b, e->var->name); return;
    case LE_LOAD:
        TL_ASSERT(e->nargs == 1);
        if (cgc_reg_load(b, e))
            return;
        if (is_half(e->type.dt))
            buf_printf(b, "%s(", e->type.dt == DT_F16 ? "tl_h16f"
                                                      : "tl_bf16f");
        else
            buf_printf(b, "((%s)", ctype(e->type.dt));
        name(b, e->var->name);
        buf_putc(b, '[');
        expr(b, e->args[0]);
        buf_puts(b, "])");
        return;
    case LE_BINARY: binary(b, e); return;
    case LE_UNARY:
        if (e->op == LO_NOT) {
            buf_puts(b, "(!");
            expr(b, e->a);
            buf_putc(b, ')');
        } else if (dt_is_float(e->type.dt)) {
            buf_puts(b, "(-");
            expr(b, e->a);
            buf_putc(b, ')');
        } else {
            buf_printf(b, "((%s)(0u - (%s)", ctype(e->type.dt),
                       utype(e->type.dt));
            expr(b, e->a);
            buf_puts(b, "))");
        }
        return;
    case LE_SELECT:
        buf_putc(b, '(');
        expr(b, e->a);
        buf_puts(b, " ? ");
        expr(b, e->b);
        buf_puts(b, " : ");
        expr(b, e->c);
        buf_putc(b, ')');
        return;
    case LE_CAST: cast(b, e); return;
    case LE_CALL: call(b, e); return;
    default: tl_unreachable();      /* ramp, broadcast: vectors */
    }
}

void cgc_expr(TlBuf *b, const LExpr *e)
{
    expr(b, e);
}

const char *cgc_ctype(TlDType dt)
{
    return ctype(dt);
}

const char *cgc_btype(TlDType dt)
{
    return btype(dt);
}

void cgc_name(TlBuf *b, const char *n)
{
    name(b, n);
}

static void indent(TlBuf *b, int n)
{
    for (int i = 0; i < n; i++)
        buf_puts(b, "    ");
}

/* The stage a loop variable "C.x" belongs to: the part before '.'. */
static size_t stage_len(const char *n)
{
    const char *d = strchr(n, '.');
    return d ? (size_t)(d - n) : 0;
}

static void stmt(TlBuf *b, const LStmt *st, int ind, const char *outer);

/* Records the declaration `prefix ID` of ID, the C name of n followed
 * by suffix, in the current scope, for a parallel loop inside it to
 * copy (emit_pool.c). */
static void scoped(const char *prefix, const char *n, const char *suffix)
{
    TlBuf id, d;

    buf_init(&id);
    buf_init(&d);
    name(&id, n);
    buf_puts(&id, suffix);
    buf_printf(&d, "%s%s", prefix, id.s);
    cgc_scope_add(id.s, d.s);
    buf_free(&id);
    buf_free(&d);
}

/* The outlined functions of the kernel's parallel loops. */
static TlBuf *par_fns;
/* For emit_vmask.c, which builds vector code as it writes: the
 * session, and the scalar lets in scope (a block's end drops its
 * own; past LET_MAX a let is only not known there). */
static TlSession *session;
enum { LET_MAX = 4096 };
static const LVar *let_var[LET_MAX];
static LExpr *let_val[LET_MAX];
static int nlet;

/* The index of the last item of block st that uses the variable of
 * item a (a itself when no later one does). */
static int last_use(const LStmt *st, int a)
{
    int last = a;

    for (int j = a + 1; j < st->nitems; j++)
        if (lir_count_uses(st->items[j], st->items[a]->var))
            last = j;
    return last;
}

/* A heap buffer is freed right after the last item of its block that
 * uses it, so that a stage's buffer is gone once its readers have run
 * and the peak memory of a long pipeline (an imported model) is what
 * is live at once, not every intermediate (at the top level: given
 * back to the kernel's kept blocks, which the stages after it take). */
static void block_items(TlBuf *b, const LStmt *st, int ind,
                        const char *outer)
{
    int *last, lets = nlet, mark = cgc_scope_mark();

    if (st->kind != LS_BLOCK) {
        stmt(b, st, ind, outer);
        cgc_scope_restore(mark);
        return;
    }
    last = tl_xcalloc((size_t)st->nitems + 1, sizeof *last);
    for (int i = 0; i < st->nitems; i++) {
        const LStmt *it = st->items[i];
        last[i] = it->kind == LS_ALLOC && it->mem == LM_HEAP ?
                  last_use(st, i) : -1;
    }
    for (int i = 0; i < st->nitems; i++) {
        const LStmt *it = st->items[i];
        if (!(it->kind == LS_ALLOC && cgc_reg_alloc(b, st, i, ind)))
            stmt(b, it, ind, outer);
        for (int a = i; a >= 0; a--)
            if (last[a] == i) {
                indent(b, ind);
                if (outer) {
                    buf_puts(b, "if (");
                    name(b, st->items[a]->var->name);
                    buf_puts(b, " != ");
                    name(b, st->items[a]->var->name);
                    buf_puts(b, "__sb) ");
                }
                buf_puts(b, outer ? "free(" : "tl_give(");
                name(b, st->items[a]->var->name);
                buf_puts(b, ");\n");
            }
    }
    free(last);
    nlet = lets;
    cgc_scope_restore(mark);
}

static int stream_seen(LVisitor *v, const LStmt *st)
{
    if (cgc_stream_copy(st))
        v->ctx = (void *)st;
    return !v->ctx;
}

/* Whether st holds a streamed copy (pass_stream.c). */
static int streams(const LStmt *st)
{
    LVisitor v = {NULL, NULL, stream_seen};

    lir_visit_stmt(&v, st);
    return v.ctx != NULL;
}

/* A parallel loop: its body outlined into par_fns, and its call. */
/* A loop's body, with the loop variable in scope for it: a parallel
 * loop nested in it (its own tl_parN) captures it like any other. */
static void loop_body(TlBuf *b, const LStmt *st, int ind, const char *vn)
{
    int mark = cgc_scope_mark(), bc;
    TlBuf d;

    buf_init(&d);
    buf_printf(&d, "%s ", ctype(st->var->type.dt));
    scoped(d.s, vn, "");
    buf_free(&d);
    bc = cgc_bcmul_loop(st->body);
    block_items(b, st->body, ind, vn);
    cgc_bcmul_restore(bc);
    cgc_scope_restore(mark);
}

static void par_loop(TlBuf *b, const LStmt *st, int ind, const char *vn)
{
    TlBuf body, id, lo, hi, stage;
    CgParLoop l;

    buf_init(&body);
    buf_init(&id);
    buf_init(&lo);
    buf_init(&hi);
    buf_init(&stage);
    name(&id, vn);
    expr(&lo, st->a);
    expr(&hi, st->b);
    buf_printf(&stage, "%.*s", (int)stage_len(vn), vn);
    loop_body(&body, st, 2, vn);
    if (streams(st->body))
        /* The thread's streaming stores visible before the join. */
        buf_puts(&body, "        TL_SFENCE();\n");
    l.var = id.s;
    l.type = ctype(st->var->type.dt);
    l.stage = stage.s;
    l.lo = lo.s;
    l.hi = hi.s;
    l.width = st->width > 0 ? st->width : 0;
    l.body = body.s;
    cgc_par_emit(par_fns, b, ind, &l);
    buf_free(&body);
    buf_free(&id);
    buf_free(&lo);
    buf_free(&hi);
    buf_free(&stage);
}

static void stmt(TlBuf *b, const LStmt *st, int ind, const char *outer)
{
    switch (st->kind) {
    case LS_FOR: {
        const char *vn = st->var->name;
        size_t n = stage_len(vn);
        if (n && (!outer || stage_len(outer) != n ||
                  strncmp(outer, vn, n))) {
            indent(b, ind);
            buf_printf(b, "/* stage %.*s */\n", (int)n, vn);
        }
        if (st->loop == LP_PARALLEL) {
            /* A function of a range of the iterations, run in chunks
             * by the kernel's thread pool (emit_pool.c). */
            par_loop(b, st, ind, vn);
            return;
        } else if (st->loop == LP_VECTORIZED &&
                   (st->a->kind != LE_INT || st->b->kind != LE_INT) &&
                   cgc_vmask_loop(session, b, st, ind, outer, let_var,
                                  let_val, nlet)) {
            return;
        } else if (st->loop == LP_VECTORIZED &&
                   (st->a->kind != LE_INT || st->b->kind != LE_INT)) {
            /* A computed trip count: the lanes left past the last whole
             * vector of a split's tail (fewer than its width).  gcc
             * vectorized them (a vector loop that never runs, vector
             * and scalar epilogues), which was a quarter of cc's time
             * for matmul and made tails of tails no faster; without
             * the pragma it versioned them for aliasing itself (conv2d
             * +25%).  `if(simd: 0)`: no vectorization, no versioning;
             * the few lanes run as a scalar loop. */
            buf_puts(b, "#ifdef _OPENMP\n#pragma omp simd if(simd: 0)\n"
                        "#endif\n");
        } else if (st->loop == LP_VECTORIZED) {
            /* A loop pass_vectorize left (a dependence between lanes,
             * a width it does not take): a hint to cc only. */
            buf_puts(b, "#ifdef _OPENMP\n#pragma omp simd\n#endif\n");
        } else if (st->loop == LP_UNROLLED && st->a->kind == LE_INT &&
                   st->b->kind == LE_INT) {
            /* Only constant trip counts: a tail loop of a partitioned
             * unrolled loop would otherwise become 64 copies and a
             * remainder, for nothing but compile time. */
            buf_puts(b, "#pragma GCC unroll 64\n");
        } else if (st->loop == LP_SERIAL && st->width == LIR_ROLLED) {
            /* A copy of an unrolled loop in a tail or a fallback
             * (pass_partition.c, pass_accum.c), rolled on purpose:
             * gcc -O3 unrolled a constant count all the same, and
             * matmul's tails so unrolled were a fifth of its cc time
             * (bench/README.md 2026-11-29 06:00). */
            buf_puts(b, "#pragma GCC unroll 1\n");
        }
        indent(b, ind);
        buf_printf(b, "for (%s ", ctype(st->var->type.dt));
        name(b, vn);
        buf_puts(b, " = ");
        expr(b, st->a);
        buf_puts(b, "; ");
        name(b, vn);
        buf_puts(b, " < ");
        expr(b, st->b);
        buf_puts(b, "; ");
        name(b, vn);
        buf_puts(b, "++) {\n");
        loop_body(b, st, ind + 1, vn);
        indent(b, ind);
        buf_puts(b, "}\n");
        return;
    }
    case LS_LET:
        if (st->a->type.lanes == 1 && nlet < LET_MAX) {
            let_var[nlet] = st->var;
            let_val[nlet++] = st->a;
        }
        indent(b, ind);
        buf_puts(b, "const ");
        cgc_type_name(b, st->var->type);
        buf_putc(b, ' ');
        name(b, st->var->name);
        buf_puts(b, " = ");
        expr(b, st->a);
        buf_puts(b, ";\n");
        {
            TlBuf d;
            buf_init(&d);
            buf_puts(&d, "const ");
            cgc_type_name(&d, st->var->type);
            buf_putc(&d, ' ');
            scoped(d.s, st->var->name, "");
            buf_free(&d);
        }
        return;
    case LS_STORE:
        indent(b, ind);
        if (cgc_reg_store(b, st))
            return;
        if (st->a->type.lanes > 1) {
            cgc_vstore(b, st);      /* emit_vec.c */
            return;
        }
        if (!strcmp(st->var->name, CG_ERR_NAME)) {
            buf_puts(b, "__atomic_fetch_or(&tl__err[0], ");
            expr(b, st->a);
            buf_puts(b, ", __ATOMIC_RELAXED);\n");
            return;
        }
        name(b, st->var->name);
        buf_putc(b, '[');
        expr(b, st->args[0]);
        if (is_half(st->var->type.dt)) {
            buf_printf(b, "] = %s(", st->var->type.dt == DT_F16 ?
                       "tl_fh16" : "tl_fbf16");
            expr(b, st->a);
            buf_puts(b, ");\n");
            return;
        }
        buf_printf(b, "] = (%s)", btype(st->var->type.dt));
        expr(b, st->a);
        buf_puts(b, ";\n");
        return;
    case LS_ALLOC:
        indent(b, ind);
        TL_ASSERT(st->nargs == 1);
        if (st->mem == LM_HEAP && outer) {
            /* Inside a loop (a stage computed per row or per tile): a
             * small buffer lives on the stack, so that the loop does
             * not call malloc and free every iteration (softmax's
             * rows: 5 buffers a row). */
            const char *t = btype(st->var->type.dt);
            int64_t n = st->args[0]->kind == LE_INT ? st->args[0]->ival : -1;
            buf_printf(b, "%s ", t);
            name(b, st->var->name);
            /* A size known here that fits: an array of that size (the
             * C compiler then drops the malloc beside it). */
            if (n >= 0 && (n + 1) * dt_size(st->var->type.dt) <=
                          CG_STACK_BYTES)
                buf_printf(b, "__sb[%lld] TL_LINE;\n", (long long)n + 1);
            else
                buf_printf(b, "__sb[%d / sizeof(%s)] TL_LINE;\n",
                           CG_STACK_BYTES, t);
            indent(b, ind);
            buf_printf(b, "%s *", t);
            name(b, st->var->name);
            buf_printf(b, " = ((size_t)");
            expr(b, st->args[0]);
            buf_printf(b, " + 1) * sizeof(%s) <= sizeof ", t);
            name(b, st->var->name);
            buf_puts(b, "__sb ? ");
            name(b, st->var->name);
            buf_puts(b, "__sb : malloc(((size_t)");
            expr(b, st->args[0]);
            buf_printf(b, " + 1) * sizeof(%s));\n", t);
        } else if (st->mem == LM_HEAP) {
            /* Once a call: a block the kernel keeps (emit_keep.c). */
            buf_printf(b, "%s *", btype(st->var->type.dt));
            name(b, st->var->name);
            buf_printf(b, " = tl_take(((size_t)");
            expr(b, st->args[0]);
            buf_printf(b, " + 1) * sizeof(%s));\n", btype(st->var->type.dt));
        }
        if (st->mem == LM_HEAP) {
            indent(b, ind);
            buf_puts(b, "if (!");
            name(b, st->var->name);
            /* Inside a loop (maybe a parallel one, a function of its
             * own): skip the iteration; the flag reports it. */
            buf_printf(b, ") { __atomic_fetch_or(&tl__err[0], %d, "
                       "__ATOMIC_RELAXED); %s; }\n", CG_ERR_NOMEM,
                       outer ? "continue" : "return");
        } else {
            buf_printf(b, "%s ", btype(st->var->type.dt));
            name(b, st->var->name);
            buf_puts(b, "[");
            expr(b, st->args[0]);
            buf_puts(b, "] TL_LINE;\n");
        }
        {
            TlBuf d;
            buf_init(&d);
            buf_printf(&d, "%s *", btype(st->var->type.dt));
            scoped(d.s, st->var->name, "");
            if (st->mem == LM_HEAP && outer)
                scoped(d.s, st->var->name, "__sb");
            buf_free(&d);
        }
        return;
    case LS_IF:
        indent(b, ind);
        buf_puts(b, "if (");
        expr(b, st->a);
        buf_puts(b, ") {\n");
        block_items(b, st->body, ind + 1, outer);
        indent(b, ind);
        buf_puts(b, "}");
        if (st->orelse) {
            buf_puts(b, " else {\n");
            block_items(b, st->orelse, ind + 1, outer);
            indent(b, ind);
            buf_puts(b, "}");
        }
        buf_putc(b, '\n');
        return;
    case LS_BLOCK:
        indent(b, ind);
        buf_puts(b, "{\n");
        block_items(b, st, ind + 1, outer);
        indent(b, ind);
        buf_puts(b, "}\n");
        return;
    default:
        tl_unreachable();
    }
}

static void param_decl(TlBuf *b, const LParam *p)
{
    if (p->var->kind == LV_FUNC) {
        TlBuf n;
        buf_init(&n);
        name(&n, p->var->name);
        func_type(b, p->var, n.s);
        buf_free(&n);
        return;
    }
    if (p->var->kind == LV_BUFFER)
        buf_printf(b, "%s *restrict ", btype(p->var->type.dt));
    else
        buf_printf(b, "%s ", ctype(p->var->type.dt));
    name(b, p->var->name);
}

void cgc_stmt(TlBuf *b, const LStmt *st, int ind, const char *outer)
{
    block_items(b, st, ind, outer);
}

void cgc_emit(TlSession *s, TlBuf *out, const LFunc *f)
{
    TlBuf fns, kf;

    session = s;
    nlet = 0;
    buf_puts(out, "/* Generated by tdsl from kernel '");
    buf_puts(out, f->name);
    buf_puts(out, "'. */\n");
    buf_puts(out, helpers);
    /* fast_exp on f32: the interpreter's definition, as text. */
    buf_puts(out, "TL_HELPER " TL_FAST_EXP_DEF(TL_FEXP_AS_TEXT) "\n");
    /* uniform and normal: the interpreter's definitions, as text. */
    buf_puts(out, "TL_HELPER " TL_RNG_BITS_DEF(TL_FEXP_AS_TEXT) "\n"
             "TL_HELPER " TL_UNIFORM_DEF(TL_FEXP_AS_TEXT) "\n"
             "TL_HELPER " TL_NORMAL_DEF(TL_FEXP_AS_TEXT) "\n");
    cgc_str_prelude(out, f);
    cgc_keep_prelude(out);
    cgc_pool_prelude(out);
    cgc_vec_prelude(out, f);
    /* The kernel's function goes to kf, the functions of its parallel
     * loops, which it calls, to fns before it. */
    buf_init(&fns);
    buf_init(&kf);
    par_fns = &fns;
    cgc_scope_reset();
    buf_puts(&kf, "static void ");
    name(&kf, f->name);
    buf_puts(&kf, "(");
    for (int i = 0; i < f->nparams; i++) {
        TlBuf d;
        buf_puts(&kf, i ? ",\n        " : "");
        param_decl(&kf, &f->params[i]);
        buf_init(&d);
        param_decl(&d, &f->params[i]);
        if (f->params[i].var->kind != LV_FUNC) {
            /* The declaration without the name: its type. */
            TlBuf n;
            buf_init(&n);
            name(&n, f->params[i].var->name);
            d.s[d.len - n.len] = 0;
            scoped(d.s, f->params[i].var->name, "");
            buf_free(&n);
        } else {
            TlBuf n;
            buf_init(&n);
            name(&n, f->params[i].var->name);
            cgc_scope_add(n.s, d.s);
            buf_free(&n);
        }
        buf_free(&d);
    }
    buf_puts(&kf, ")\n{\n");
    cgc_reg_reset();
    /* Not every parameter is used (sizes the loops do not need). */
    for (int i = 0; i < f->nparams; i++) {
        buf_puts(&kf, i % 4 ? " (void)" : i ? "\n    (void)" : "    (void)");
        name(&kf, f->params[i].var->name);
        buf_putc(&kf, ';');
    }
    buf_puts(&kf, "\n");
    block_items(&kf, f->body, 1, NULL);
    if (streams(f->body))
        buf_puts(&kf, "    TL_SFENCE();\n");
    cgc_scope_reset();
    par_fns = NULL;
    buf_puts(out, fns.s ? fns.s : "");
    buf_puts(out, kf.s);
    buf_free(&fns);
    buf_free(&kf);
    buf_puts(out, "}\n\nvoid tdsl_entry(void *const *args);\n");
    buf_puts(out, "void tdsl_entry(void *const *args)\n{\n    ");
    name(out, f->name);
    buf_puts(out, "(");
    for (int i = 0; i < f->nparams; i++) {
        const LVar *v = f->params[i].var;
        buf_puts(out, i ? ",\n        " : "");
        if (v->kind == LV_BUFFER) {
            buf_printf(out, "(%s *)args[%d]", btype(v->type.dt), i);
        } else if (v->kind == LV_FUNC) {
            /* args[i] points at a void (*)(void) holding it. */
            buf_putc(out, '(');
            func_type(out, v, NULL);
            buf_printf(out, ")*(void (*const *)(void))args[%d]", i);
        } else
            buf_printf(out, "*(const %s *)args[%d]", ctype(v->type.dt), i);
    }
    buf_puts(out, ");\n}\n");
}
