/*
 * emit_vec.c - vector expressions and stores of the loop IR as GCC and
 * Clang vector extensions.  A W-lane value of dtype T is a
 * `tl_Tx<W>` (`typedef float tl_f32x16 __attribute__((vector_size(64)))`),
 * a bool vector is a mask of int32 lanes, 0 or -1 (`tl_mx16`).
 *
 * What maps onto one vector operation with the scalar result on every
 * lane is written as one: float + - * / (IEEE per lane, like the
 * scalar code; the kernel is built with -ffp-contract=off), integer
 * + - * computed unsigned (wrapping), comparisons, && || !, select,
 * min and max (the scalar NaN rules, with blends), casts between
 * numbers other than float to integer, contiguous loads and stores
 * (a ramp of stride 1), broadcasts and ramps.  Everything else (integer
 * division, float modulo, math calls, float to integer casts, gathers
 * and scatters) runs lane by lane through the scalar code of emit.c,
 * so it means exactly what the scalar code means.
 *
 * exp, erf, tanh, sigmoid, log, sqrt, rsqrt, sin and cos of f32 lanes
 * have vector helpers that give the scalar result bit for bit, and
 * fast_exp of f32 lanes one that does the f32 operations of
 * lang/fast_exp.h (emit_vmath.c).  The kernels are built with
 * -ffp-contract=off to round like the interpreter; TDSL_FMA=1 (SPEC
 * 10.8) is the opt-in to contraction.
 * TODO(issue 4): the other math calls of f32 lanes (tan, pow, the
 * inverse and hyperbolic functions) and all of f64 and f16 lanes run
 * lane by lane through libm (pow would need log x in more than double
 * precision for y log x to be within a few units of double); tanh's
 * double e^x - 1 (and without AVX-512 the e^x of exp, sigmoid and
 * erf) is one Horner chain of 14 steps; with AVX-512, exp and sigmoid
 * take 2^(j/16) from a table and a polynomial of degree 6, and erf
 * one polynomial of 10 terms per quarter of [0, 4).
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

#include <string.h>

/* The element types of the vectors: X(dtype, C type, unsigned twin). */
#define VEC_ELEMS(X)                                                     \
    X(DT_U8, "uint8_t", "uint8_t")                                       \
    X(DT_I8, "int8_t", "uint8_t")                                        \
    X(DT_I16, "int16_t", "uint16_t")                                     \
    X(DT_I32, "int32_t", "uint32_t")                                     \
    X(DT_I64, "int64_t", "uint64_t")                                     \
    X(DT_U16, "uint16_t", "uint16_t")                                    \
    X(DT_U32, "uint32_t", "uint32_t")                                    \
    X(DT_U64, "uint64_t", "uint64_t")                                    \
    X(DT_F32, "float", NULL)                                             \
    X(DT_F64, "double", NULL)

static const char vec_macros[] =
    "/* Vector types: N is W lanes of E; N_u the same for unaligned\n"
    " * memory; _ld and _st move W contiguous elements,\n"
    " * _sel(m, a, b) takes a where the comparison mask m is set. */\n"
    "#define TL_VEC(N, E, W) \\\n"
    "typedef E N __attribute__((vector_size(sizeof(E) * (W)))); \\\n"
    "typedef E N##_u __attribute__((vector_size(sizeof(E) * (W)), \\\n"
    "                               aligned(sizeof(E)), may_alias)); \\\n"
    "TL_HELPER N N##_ld(const E *p) \\\n"
    "{ return *(const N##_u *)(const void *)p; } \\\n"
    "TL_HELPER void N##_st(E *p, N v) { *(N##_u *)(void *)p = v; } \\\n"
    "TL_HELPER N N##_sel(__typeof__((N){0} < (N){0}) m, N a, N b) \\\n"
    "{ return (N)(((__typeof__(m))a & m) | ((__typeof__(m))b & ~m)); }\n"
    "/* Integers: ramps, and min/max. */\n"
    "#define TL_VECI(N, E, W) \\\n"
    "TL_VEC(N, E, W) \\\n"
    "TL_HELPER N N##_ramp(E b, E s) \\\n"
    "{ N r = {0}; for (int l = 0; l < (W); l++) { \\\n"
    "  r[l] = (E)((uint64_t)(int64_t)b + (uint64_t)l * (uint64_t)(int64_t)s);"
    " \\\n"
    "  } return r; } \\\n"
    "TL_HELPER N N##_min(N a, N b) { return N##_sel(b < a, b, a); } \\\n"
    "TL_HELPER N N##_max(N a, N b) { return N##_sel(b > a, b, a); }\n"
    "/* Floats: min/max that return a NaN where an operand is NaN (which\n"
    " * NaN is free, SPEC 7.5), else the left one on a tie (the scalar\n"
    " * tl_fmin/tl_fmax).  TL_HWMAX_N(b, a) is b > a ? b : a, a where\n"
    " * either is NaN: x86's maxps, so only b NaN needs a select, and\n"
    " * TL_NMAX_N(b, a) takes b there.  Its mask asks nothing of a: in\n"
    " * a reduction acc = max(acc, x) the accumulator's chain is the\n"
    " * maxps alone (testing a == a too put two compares on the chain:\n"
    " * softmax's row max ran at a third of maxps's speed).  A max of a\n"
    " * constant, ReLU's, costs no select at all. */\n"
    "#define TL_VECF(N, E, W) \\\n"
    "TL_VEC(N, E, W) \\\n"
    "TL_HELPER N N##_min(N a, N b) { return TL_NMIN_##N(b, a); } \\\n"
    "TL_HELPER N N##_max(N a, N b) { return TL_NMAX_##N(b, a); }\n"
    "/* gcc does not find maxps in the select; clang does. */\n"
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__SSE2__)\n"
    "#define TL_HW2(N, I, S) ((N)__builtin_ia32_##I S)\n"
    "#define TL_HWMAX_tl_f32x4(b, a) TL_HW2(tl_f32x4, maxps, ((b), (a)))\n"
    "#define TL_HWMIN_tl_f32x4(b, a) TL_HW2(tl_f32x4, minps, ((b), (a)))\n"
    "#define TL_HWMAX_tl_f64x2(b, a) TL_HW2(tl_f64x2, maxpd, ((b), (a)))\n"
    "#define TL_HWMIN_tl_f64x2(b, a) TL_HW2(tl_f64x2, minpd, ((b), (a)))\n"
    "#endif\n"
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX__)\n"
    "#define TL_HWMAX_tl_f32x8(b, a) TL_HW2(tl_f32x8, maxps256, ((b), (a)))\n"
    "#define TL_HWMIN_tl_f32x8(b, a) TL_HW2(tl_f32x8, minps256, ((b), (a)))\n"
    "#define TL_HWMAX_tl_f64x4(b, a) TL_HW2(tl_f64x4, maxpd256, ((b), (a)))\n"
    "#define TL_HWMIN_tl_f64x4(b, a) TL_HW2(tl_f64x4, minpd256, ((b), (a)))\n"
    "#endif\n"
    "#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)\n"
    "#define TL_HWMAX_tl_f32x16(b, a) TL_HW2(tl_f32x16, maxps512_mask, \\\n"
    "    ((b), (a), (b), (unsigned short)-1, 4))\n"
    "#define TL_HWMIN_tl_f32x16(b, a) TL_HW2(tl_f32x16, minps512_mask, \\\n"
    "    ((b), (a), (b), (unsigned short)-1, 4))\n"
    "#define TL_HWMAX_tl_f64x8(b, a) TL_HW2(tl_f64x8, maxpd512_mask, \\\n"
    "    ((b), (a), (b), (unsigned char)-1, 4))\n"
    "#define TL_HWMIN_tl_f64x8(b, a) TL_HW2(tl_f64x8, minpd512_mask, \\\n"
    "    ((b), (a), (b), (unsigned char)-1, 4))\n"
    "/* AVX-512: the select is the max's own merge mask (lanes where b\n"
    " * is ordered take the max, the others keep b). */\n"
    "#define TL_ORD16(b) __builtin_ia32_cmpps512_mask((b), (b), 7, \\\n"
    "    (unsigned short)-1, 4)\n"
    "#define TL_ORD8(b) __builtin_ia32_cmppd512_mask((b), (b), 7, \\\n"
    "    (unsigned char)-1, 4)\n"
    "#define TL_NMAX_tl_f32x16(b, a) TL_HW2(tl_f32x16, maxps512_mask, \\\n"
    "    ((b), (a), (b), TL_ORD16(b), 4))\n"
    "#define TL_NMIN_tl_f32x16(b, a) TL_HW2(tl_f32x16, minps512_mask, \\\n"
    "    ((b), (a), (b), TL_ORD16(b), 4))\n"
    "#define TL_NMAX_tl_f64x8(b, a) TL_HW2(tl_f64x8, maxpd512_mask, \\\n"
    "    ((b), (a), (b), TL_ORD8(b), 4))\n"
    "#define TL_NMIN_tl_f64x8(b, a) TL_HW2(tl_f64x8, minpd512_mask, \\\n"
    "    ((b), (a), (b), TL_ORD8(b), 4))\n"
    "#endif\n\n";

static const char *elem_ctype(TlDType dt)
{
#define X(d, c, u) if (dt == d) return c;
    VEC_ELEMS(X)
#undef X
    return "int32_t";       /* bool: a mask */
}

static void vtype(TlBuf *b, LType t)
{
    if (t.dt == DT_BOOL)
        buf_printf(b, "tl_mx%d", t.lanes);
    else
        buf_printf(b, "tl_%sx%d", dt_name(t.dt), t.lanes);
}

/* The unsigned twin of an integer vector type (u16 is its own). */
static void utype(TlBuf *b, LType t)
{
    buf_printf(b, "tl_u%dx%d", 8 * dt_size(t.dt), t.lanes);
}

void cgc_type_name(TlBuf *b, LType t)
{
    if (t.lanes > 1)
        vtype(b, t);
    else
        buf_puts(b, cgc_ctype(t.dt));
}

/* --- the prelude --------------------------------------------------- */

static int lanes_seen(const int *ws, int n, int w)
{
    for (int i = 0; i < n; i++)
        if (ws[i] == w)
            return 1;
    return 0;
}

typedef struct Seen {
    int ws[16];
    int n;
    unsigned math;      /* math calls with helpers (emit_vmath.c) */
    int stream;         /* a streamed copy (tl_stream_f32) */
} Seen;

static void see(Seen *s, int lanes)
{
    if (lanes > 1 && !lanes_seen(s->ws, s->n, lanes) && s->n < 16)
        s->ws[s->n++] = lanes;
}

static int see_expr(LVisitor *v, const LExpr *e)
{
    Seen *s = v->ctx;

    see(s, e->type.lanes);
    s->math |= cgc_vmath_bit(e);
    return 1;
}

static int see_stmt(LVisitor *v, const LStmt *st)
{
    if (st->kind == LS_LET)
        see(v->ctx, st->var->type.lanes);
    /* A streamed copy is a call of tl_stream_f32: no vector type of
     * its length. */
    if (cgc_stream_copy(st)) {
        ((Seen *)v->ctx)->stream = 1;
        return 0;
    }
    return 1;
}



/* A broadcast written as an initializer of W copies, which compilers
 * turn into one broadcast instruction. */
static void broadcast_fn(TlBuf *b, LType t, const char *elem)
{
    buf_puts(b, "TL_HELPER ");
    vtype(b, t);
    buf_putc(b, ' ');
    vtype(b, t);
    buf_printf(b, "_bc(%s s)\n{\n    return (", elem);
    vtype(b, t);
    buf_puts(b, "){");
    for (int l = 0; l < t.lanes; l++)
        buf_puts(b, l ? (l % 16 ? ", s" : ",\n        s") : "s");
    buf_puts(b, "};\n}\n");
}


/* The select form of TL_HWMAX_N/TL_HWMIN_N where vec_macros gave no
 * instruction for N. */
static void hw_minmax(TlBuf *b, const char *dt, int w)
{
    for (int i = 0; i < 2; i++) {
        const char *m = i ? "MIN" : "MAX", *op = i ? "<" : ">";

        buf_printf(b, "#ifndef TL_HW%s_tl_%sx%d\n"
                      "#define TL_HW%s_tl_%sx%d(b, a) tl_%sx%d_sel("
                      "(b) %s (a), (b), (a))\n#endif\n",
                   m, dt, w, m, dt, w, dt, w, op);
        buf_printf(b, "#ifndef TL_N%s_tl_%sx%d\n"
                      "#define TL_N%s_tl_%sx%d(b, a) tl_%sx%d_sel("
                      "(b) != (b), (b), TL_HW%s_tl_%sx%d(b, a))\n#endif\n",
                   m, dt, w, m, dt, w, dt, w, m, dt, w);
    }
}

/* A masked load (and store, tl_mst16, whose mask is a bitmask) of 16
 * lanes of 4 bytes in one instruction where the target has AVX-512
 * (lanes outside the mask are not read or written, so a move that
 * straddles a buffer's edge is safe; loaded ones are 0).  The builtins
 * are the ones both GCC's and Clang's immintrin.h wrap: including the
 * header would cost cc 0.25 s per kernel. */
static const char mld16[] =
    "#if defined(__AVX512F__)\n"
    "#define TL_MLD16 1\n"
    "TL_HELPER void tl_mld16(void *r, const void *p, tl_mx16 m)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    unsigned short k = __builtin_ia32_cmpd512_mask(m, (tl_mx16){0},"
    " 4,\n"
    "                                                   (unsigned short)-1);"
    "\n"
    "    tl_v16sf v = __builtin_ia32_loadups512_mask((const float *)p,\n"
    "                                                (tl_v16sf){0}, k);\n"
    "    __builtin_memcpy(r, &v, 64);\n"
    "}\n"
    "#define TL_MST16 1\n"
    "TL_HELPER void tl_mst16(void *p, const void *v, unsigned short k)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    tl_v16sf x;\n"
    "    __builtin_memcpy(&x, v, 64);\n"
    "    __builtin_ia32_storeups512_mask((float *)p, x, k);\n"
    "}\n"
    "TL_HELPER void tl_mldk16(void *r, const void *p, unsigned short k)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    tl_v16sf v = __builtin_ia32_loadups512_mask((const float *)p,\n"
    "                                                (tl_v16sf){0}, k);\n"
    "    __builtin_memcpy(r, &v, 64);\n"
    "}\n"
    "TL_HELPER void tl_mldkf16(void *r, const void *p, unsigned short k,\n"
    "                          const void *f)\n"
    "{\n"
    "    typedef float tl_v16sf __attribute__((vector_size(64)));\n"
    "    tl_v16sf v;\n"
    "    __builtin_memcpy(&v, f, 64);\n"
    "    v = __builtin_ia32_loadups512_mask((const float *)p, v, k);\n"
    "    __builtin_memcpy(r, &v, 64);\n"
    "}\n"
    "#else\n"
    "#define TL_MST16 0\n"
    "TL_HELPER void tl_mst16(void *p, const void *v, unsigned short k)\n"
    "{\n"
    "    (void)p;\n"
    "    (void)v;\n"
    "    (void)k;\n"
    "}\n"
    "TL_HELPER void tl_mldk16(void *r, const void *p, unsigned short k)\n"
    "{\n"
    "    (void)p;\n"
    "    (void)k;\n"
    "    __builtin_memset(r, 0, 64);\n"
    "}\n"
    "TL_HELPER void tl_mldkf16(void *r, const void *p, unsigned short k,\n"
    "                          const void *f)\n"
    "{\n"
    "    (void)p;\n"
    "    (void)k;\n"
    "    __builtin_memcpy(r, f, 64);\n"
    "}\n"
    "#define TL_MLD16 0\n"
    "TL_HELPER void tl_mld16(void *r, const void *p, tl_mx16 m)\n"
    "{\n"
    "    (void)r;\n"
    "    (void)p;\n"
    "    (void)m;\n"
    "}\n"
    "#endif\n";

/* Set by the prelude of the function being emitted. */
static int has16;
static const char *store_mask;

int cgc_vec_has16(void)
{
    return has16;
}

void cgc_vstore_mask(const char *k)
{
    store_mask = k;
}

void cgc_vec_prelude(TlBuf *b, const LFunc *f)
{
    Seen s;
    LVisitor v = {0};

    memset(&s, 0, sizeof s);
    v.ctx = &s;
    v.expr = see_expr;
    v.stmt = see_stmt;
    lir_visit_stmt(&v, f->body);
    has16 = 0;
    store_mask = NULL;
    if (s.stream)
        cgc_stream_prelude(b);
    if (!s.n)
        return;
    buf_puts(b, vec_macros);
    for (int i = 0; i < s.n; i++) {
        int w = s.ws[i];
#define X(d, c, u)                                                       \
        if (dt_is_float(d))                                              \
            hw_minmax(b, dt_name(d), w);                                 \
        buf_printf(b, "%s(tl_%sx%d, %s, %d)\n",                          \
                   dt_is_float(d) ? "TL_VECF" : "TL_VECI", dt_name(d), w,  \
                   c, w);                                                \
        broadcast_fn(b, lir_type(d, w), c);
        VEC_ELEMS(X)
#undef X
        buf_printf(b, "TL_VECI(tl_mx%d, int32_t, %d)\n", w, w);
        broadcast_fn(b, lir_type(DT_BOOL, w), "int32_t");
    }
    for (int i = 0; i < s.n; i++)
        if (s.ws[i] == 16) {
            has16 = 1;
            buf_puts(b, mld16);
            buf_puts(b, cgc_kmask_helper);
            buf_puts(b, cgc_gather_helper);
            buf_puts(b, cgc_bcmul_helper);
        }
    cgc_vmath_prelude(b, s.math, s.ws, s.n);
    buf_putc(b, '\n');
}

/* --- expressions --------------------------------------------------- */

/* The scalar lane of an operand held in tl_v<i> (bool masks read as
 * the scalar code's 0/1). */
static void lane_var(LVar *v, LExpr *e, const LExpr *of, int i, char *nm,
                     size_t nmlen)
{
    if (of->type.dt == DT_BOOL)
        snprintf(nm, nmlen, "(tl_v%d[tl_l] != 0)", i);
    else
        snprintf(nm, nmlen, "tl_v%d[tl_l]", i);
    memset(v, 0, sizeof *v);
    v->name = nm;
    v->kind = LV_VALUE;
    v->type = lir_type(of->type.dt, 1);
    memset(e, 0, sizeof *e);
    e->kind = LE_VAR;
    e->type = v->type;
    e->var = v;
}

/* Loads under a vector select read only the lanes the select takes:
 * the scalar code's select is lazy, and the lanes it does not take
 * may lie outside the buffer (a zero_pad border, a row past the last).
 * While a branch of a select is emitted, mask names the variable that
 * holds its lanes (a bool mask of mask_lanes lanes), else it is NULL;
 * a load reads a lane only where it is set.  depth numbers the
 * variables of nested selects. */
static const char *mask;
static int mask_lanes, mask_depth;

static int is_load(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD)
        *(int *)v->ctx = 1;
    return 1;
}

/* Does e read memory? */
static int has_load(const LExpr *e)
{
    int found = 0;
    LVisitor v = {&found, is_load, NULL};

    lir_visit_expr(&v, e);
    return found;
}

/* The mask in force for a value of lanes lanes, or NULL. */
static const char *mask_for_lanes(int lanes)
{
    return mask && mask_lanes == lanes ? mask : NULL;
}

enum { MAXOPS = 4 };

/* e computed lane by lane by the scalar code: its vector operands are
 * evaluated once into tl_v0, tl_v1, ..., scalar ones are used as they
 * are. */
static void lanewise(TlBuf *b, const LExpr *e)
{
    LExpr *ops[MAXOPS], lanes[MAXOPS], *largs[MAXOPS], copy;
    LVar vars[MAXOPS];
    char names[MAXOPS][32];
    int n = 0;

    if (e->kind == LE_LOAD || e->kind == LE_CALL) {
        TL_ASSERT(e->nargs <= MAXOPS);
        for (int i = 0; i < e->nargs; i++)
            ops[n++] = e->args[i];
    } else {
        ops[n++] = e->a;
        if (e->b)
            ops[n++] = e->b;
        if (e->c)
            ops[n++] = e->c;
    }
    copy = *e;
    copy.type.lanes = 1;
    buf_puts(b, "({ ");
    vtype(b, e->type);
    buf_puts(b, " tl_r = {0}; ");
    for (int i = 0; i < n; i++) {
        if (ops[i]->type.lanes == 1) {
            largs[i] = ops[i];
            continue;
        }
        cgc_type_name(b, ops[i]->type);
        buf_printf(b, " tl_v%d = ", i);
        cgc_expr(b, ops[i]);
        buf_puts(b, "; ");
        lane_var(&vars[i], &lanes[i], ops[i], i, names[i], sizeof names[i]);
        largs[i] = &lanes[i];
    }
    if (e->kind == LE_LOAD || e->kind == LE_CALL) {
        copy.args = largs;
    } else {
        copy.a = largs[0];
        copy.b = e->b ? largs[1] : NULL;
        copy.c = e->c ? largs[2] : NULL;
    }
    buf_printf(b, "for (int tl_l = 0; tl_l < %d; tl_l++) ",
               e->type.lanes);
    if (mask_for_lanes(e->type.lanes))
        buf_printf(b, "if (%s[tl_l]) ", mask);
    buf_puts(b, "tl_r[tl_l] = ");
    if (e->type.dt == DT_BOOL) {
        buf_puts(b, "-(int32_t)");
        cgc_expr(b, &copy);
    } else {
        cgc_expr(b, &copy);
    }
    buf_puts(b, "; tl_r; })");
}

/* A comparison mask of a and b's element size, as a bool mask. */
static void mask_of(TlBuf *b, const LExpr *a, const char *op,
                    const LExpr *x, const LExpr *y)
{
    LType m = lir_type(DT_BOOL, a->type.lanes);

    if (dt_size(a->type.dt) == 4 || a->type.dt == DT_BOOL) {
        buf_puts(b, "((");
        vtype(b, m);
        buf_puts(b, ")(");
    } else {
        buf_puts(b, "__builtin_convertvector((");
    }
    cgc_expr(b, x);
    buf_printf(b, " %s ", op);
    if (y) {
        cgc_expr(b, y);
    } else {
        buf_puts(b, "(");
        vtype(b, a->type);
        buf_puts(b, "){0}");
    }
    if (dt_size(a->type.dt) == 4 || a->type.dt == DT_BOOL) {
        buf_puts(b, "))");
    } else {
        buf_puts(b, "), ");
        vtype(b, m);
        buf_putc(b, ')');
    }
}

/* A bool mask converted to the comparison mask of vectors of dt. */
static void mask_for(TlBuf *b, const LExpr *m, TlDType dt)
{
    if (dt == DT_BOOL || dt_size(dt) == 4) {
        cgc_expr(b, m);
        return;
    }
    buf_puts(b, "__builtin_convertvector(");
    cgc_expr(b, m);
    buf_printf(b, ", __typeof__((");
    vtype(b, lir_type(dt, m->type.lanes));
    buf_puts(b, "){0} < (");
    vtype(b, lir_type(dt, m->type.lanes));
    buf_puts(b, "){0}))");
}

static void helper_call(TlBuf *b, LType t, const char *fn, const LExpr *x,
                        const LExpr *y)
{
    buf_putc(b, '(');
    vtype(b, t);
    buf_printf(b, "_%s(", fn);
    cgc_expr(b, x);
    if (y) {
        buf_puts(b, ", ");
        cgc_expr(b, y);
    }
    buf_puts(b, "))");
}

static void vbinary(TlBuf *b, const LExpr *e)
{
    TlDType dt = e->a->type.dt;
    int fl = dt_is_float(dt);
    const char *op = lir_op_name(e->op);

    switch (e->op) {
    case LO_ADD:
    case LO_SUB:
    case LO_MUL:
    case LO_DIV:
        if (fl && !mask_for_lanes(e->type.lanes) && cgc_bcmul(b, e))
            return;
        if (fl) {
            buf_putc(b, '(');
            cgc_expr(b, e->a);
            buf_printf(b, " %s ", op);
            cgc_expr(b, e->b);
            buf_putc(b, ')');
            return;
        }
        if (e->op == LO_DIV)
            break;
        buf_puts(b, "((");
        vtype(b, e->type);
        buf_puts(b, ")((");
        utype(b, e->type);
        buf_putc(b, ')');
        cgc_expr(b, e->a);
        buf_printf(b, " %s (", op);
        utype(b, e->type);
        buf_putc(b, ')');
        cgc_expr(b, e->b);
        buf_puts(b, "))");
        return;
    case LO_MIN:
    case LO_MAX:
        helper_call(b, e->type, e->op == LO_MIN ? "min" : "max", e->a, e->b);
        return;
    case LO_EQ:
    case LO_NE:
        mask_of(b, e->a, op, e->a, e->b);
        return;
    case LO_LT:
    case LO_LE:
    case LO_GT:
    case LO_GE:
        if (dt == DT_BOOL)
            break;          /* masks order true below false */
        mask_of(b, e->a, op, e->a, e->b);
        return;
    case LO_AND:
    case LO_OR:
        buf_putc(b, '(');
        cgc_expr(b, e->a);
        buf_puts(b, e->op == LO_AND ? " & " : " | ");
        cgc_expr(b, e->b);
        buf_putc(b, ')');
        return;
    default:
        break;
    }
    lanewise(b, e);
}

static void vcast(TlBuf *b, const LExpr *e)
{
    TlDType to = e->type.dt, from = e->a->type.dt;

    if (to == DT_BOOL && from == DT_BOOL) {
        cgc_expr(b, e->a);
    } else if (to == DT_BOOL) {
        mask_of(b, e->a, "!=", e->a, NULL);
    } else if (from == DT_BOOL) {
        buf_puts(b, "__builtin_convertvector(-");
        cgc_expr(b, e->a);
        buf_puts(b, ", ");
        vtype(b, e->type);
        buf_putc(b, ')');
    } else if (dt_is_float(from) && !dt_is_float(to)) {
        lanewise(b, e);     /* saturating */
    } else {
        buf_puts(b, "__builtin_convertvector(");
        cgc_expr(b, e->a);
        buf_puts(b, ", ");
        vtype(b, e->type);
        buf_putc(b, ')');
    }
}

/* base when idx is ramp(base, 1) over a buffer of non-bool elements
 * (a contiguous access), else NULL. */
static const LExpr *dense(const LExpr *idx, TlDType elem)
{
    if (idx->kind == LE_RAMP && idx->b->kind == LE_INT &&
        idx->b->ival == 1 && elem != DT_BOOL)
        return idx->a;
    return NULL;
}

/* A contiguous load from base under the mask m: one masked load
 * (mld16) for 16 lanes of 4 bytes on AVX-512; else one vector load
 * when every lane is set, else lane by lane where it is set (0
 * elsewhere). */
static void masked_load(TlBuf *b, const LExpr *e, const LExpr *base,
                        const char *m)
{
    int w = e->type.lanes;

    buf_puts(b, "({ ");
    vtype(b, e->type);
    buf_puts(b, " tl_r = {0}; ");
    cgc_type_name(b, base->type);
    buf_puts(b, " tl_b = ");
    cgc_expr(b, base);
    buf_puts(b, "; ");
    if (w == 16 && dt_size(e->type.dt) == 4) {
        buf_printf(b, "if (TL_MLD16) tl_mld16(&tl_r, &");
        cgc_name(b, e->var->name);
        buf_printf(b, "[tl_b], %s); else ", m);
    }
    buf_printf(b, "{ int tl_a = 1; for (int tl_l = 0; tl_l < %d; "
               "tl_l++) tl_a &= %s[tl_l] != 0; if (tl_a) tl_r = ", w, m);
    vtype(b, e->type);
    buf_puts(b, "_ld(&");
    cgc_name(b, e->var->name);
    buf_printf(b, "[tl_b]); else for (int tl_l = 0; tl_l < %d; tl_l++) "
               "if (%s[tl_l]) tl_r[tl_l] = ", w, m);
    cgc_name(b, e->var->name);
    buf_puts(b, "[tl_b + tl_l]; } tl_r; })");
}

/* The most lanes a strided load lists one by one. */
enum { STRIDED_LANES = 16 };

/* Whether load e reads a ramp of i64 indices a constant or scalar
 * stride apart, outside any mask, so that strided_load applies. */
static int strided(const LExpr *e)
{
    const LExpr *idx = e->args[0];

    return e->nargs == 1 && idx->kind == LE_RAMP &&
           idx->a->type.dt == DT_I64 && idx->a->type.lanes == 1 &&
           idx->b->type.lanes == 1 && e->var->type.dt != DT_BOOL &&
           e->type.lanes <= STRIDED_LANES && !mask_for_lanes(e->type.lanes);
}

/* A load of lanes a stride apart (rule 2b's rows: softmax's X[n, d]
 * across n) as a vector literal of scalar loads at tl_b + l * tl_s:
 * the C compiler then loads and inserts each lane, where lanewise's
 * vector of indices was built and taken apart again lane by lane
 * (the encoder's softmax and layer norm rows).  The index arithmetic
 * wraps as the scalar code's does. */
static void strided_load(TlBuf *b, const LExpr *e)
{
    const LExpr *idx = e->args[0];
    LExpr copy = *e, lane, *arg = &lane;
    LVar v;
    char nm[16];

    if (cgc_gather(b, e))
        return;
    buf_puts(b, "({ const int64_t tl_b = ");
    cgc_expr(b, idx->a);
    buf_puts(b, ", tl_s = ");
    cgc_expr(b, idx->b);
    buf_puts(b, "; const int64_t tl_i0 = tl_b");
    for (int l = 1; l < e->type.lanes; l++)
        buf_printf(b, ", tl_i%d = (int64_t)((uint64_t)tl_i%d + "
                   "(uint64_t)tl_s)", l, l - 1);
    buf_puts(b, "; (void)tl_s; (");
    vtype(b, e->type);
    buf_puts(b, "){");
    copy.type.lanes = 1;
    copy.args = &arg;
    memset(&v, 0, sizeof v);
    v.name = nm;
    v.kind = LV_VALUE;
    v.type = lir_type(DT_I64, 1);
    memset(&lane, 0, sizeof lane);
    lane.kind = LE_VAR;
    lane.type = v.type;
    lane.var = &v;
    for (int l = 0; l < e->type.lanes; l++) {
        snprintf(nm, sizeof nm, "tl_i%d", l);
        buf_puts(b, l ? ", " : "");
        cgc_expr(b, &copy);
    }
    buf_puts(b, "}; })");
}

/* A branch of a select under the mask named m (NULL: none). */
static void under_mask(TlBuf *b, const LExpr *e, const char *m, int lanes)
{
    const char *saved = mask;
    int saved_lanes = mask_lanes;

    mask = m;
    mask_lanes = lanes;
    cgc_expr(b, e);
    mask = saved;
    mask_lanes = saved_lanes;
}

/* A select whose branches read memory, each branch under its lanes,
 * and the mask in force, as masks tl_t<d>, tl_f<d>. */
static void masked_select(TlBuf *b, const LExpr *e, const char *outer,
                          int d)
{
    LType mt = lir_type(DT_BOOL, e->type.lanes);
    char t[24], f[24], c[24];
    LVar mv;
    LExpr me;

    snprintf(t, sizeof t, "tl_t%d", d);
    snprintf(f, sizeof f, "tl_f%d", d);
    buf_puts(b, "({ ");
    vtype(b, mt);
    buf_printf(b, " tl_c%d = ", d);
    cgc_expr(b, e->a);
    buf_puts(b, "; ");
    vtype(b, mt);
    buf_printf(b, " %s = tl_c%d%s%s; ", t, d, outer ? " & " : "",
               outer ? outer : "");
    vtype(b, mt);
    buf_printf(b, " %s = ~tl_c%d%s%s; ", f, d, outer ? " & " : "",
               outer ? outer : "");
    buf_printf(b, "(void)%s; (void)%s; ", t, f);
    /* The condition as a value the blend takes: tl_c<d>. */
    memset(&mv, 0, sizeof mv);
    snprintf(c, sizeof c, "tl_c%d", d);
    mv.name = c;
    mv.kind = LV_VALUE;
    mv.type = mt;
    memset(&me, 0, sizeof me);
    me.kind = LE_VAR;
    me.type = mt;
    me.var = &mv;
    buf_putc(b, '(');
    vtype(b, e->type);
    buf_puts(b, "_sel(");
    mask_for(b, &me, e->type.dt);
    buf_puts(b, ", ");
    under_mask(b, e->b, t, e->type.lanes);
    buf_puts(b, ", ");
    under_mask(b, e->c, f, e->type.lanes);
    buf_puts(b, ")); })");
}

/* select(m, a dense load of 16 lanes of 4 bytes, a value that reads
 * no memory) where m has a bitmask (emit_mask.c's cgc_kmask), outside
 * any other mask, as one masked load that fills the other lanes: where
 * the target has AVX-512 (TL_MLD16), else masked_select's code. */
static int kmask_select(TlBuf *b, const LExpr *e, int d)
{
    const LExpr *ld = e->b, *base;

    if (e->type.lanes != 16 || dt_size(e->type.dt) != 4 ||
        e->type.dt == DT_BOOL || mask_for_lanes(16) || store_mask ||
        ld->kind != LE_LOAD || ld->nargs != 1 || cgc_reg_var(ld->var) ||
        !(base = dense(ld->args[0], ld->var->type.dt)) || has_load(e->c) ||
        !cgc_kmask_ok(e->a))
        return 0;
    buf_puts(b, "(TL_MLD16 ? ({ ");
    vtype(b, e->type);
    buf_printf(b, " tl_r, tl_z%d = ", d);
    cgc_expr(b, e->c);
    buf_puts(b, "; tl_mldkf16(&tl_r, &");
    cgc_name(b, ld->var->name);
    buf_putc(b, '[');
    cgc_expr(b, base);
    buf_puts(b, "], (unsigned short)");
    cgc_kmask(b, e->a);
    buf_printf(b, ", &tl_z%d); tl_r; }) : ", d);
    masked_select(b, e, NULL, d);
    buf_putc(b, ')');
    return 1;
}

/* A select whose branches read memory: a uniform condition is a C
 * conditional (only the branch taken runs); otherwise the branches run
 * under masks (masked_select), except where a scalar test shows that
 * every lane takes the first branch (emit_mask.c: the inside of a
 * zero_pad border or of a guarded tail), which then runs as it is. */
static void lazy_select(TlBuf *b, const LExpr *e)
{
    const char *outer = mask_for_lanes(e->type.lanes);
    int d = ++mask_depth;

    if (e->a->kind == LE_BROADCAST) {
        buf_puts(b, "(");
        cgc_expr(b, e->a->a);
        buf_puts(b, " ? ");
        cgc_expr(b, e->b);
        buf_puts(b, " : ");
        cgc_expr(b, e->c);
        buf_puts(b, ")");
    } else if (!has_load(e->a) && cgc_all_lanes_ok(e->a)) {
        buf_puts(b, "(");
        cgc_all_lanes(b, e->a);
        buf_puts(b, " ? ");
        under_mask(b, e->b, outer, e->type.lanes);
        buf_puts(b, " : ");
        if (!kmask_select(b, e, d))
            masked_select(b, e, outer, d);
        buf_puts(b, ")");
    } else {
        masked_select(b, e, outer, d);
    }
    mask_depth--;
}

void cgc_vexpr(TlBuf *b, const LExpr *e)
{
    const LExpr *base;
    const char *fn;

    switch (e->kind) {
    case LE_VAR:
        cgc_name(b, e->var->name);
        return;
    case LE_BROADCAST:
        if (mask_for_lanes(e->type.lanes) && has_load(e->a)) {
            /* A scalar load that some lane takes is in range. */
            buf_printf(b, "({ int tl_a = 0; for (int tl_l = 0; tl_l < %d; "
                       "tl_l++) tl_a |= %s[tl_l] != 0; tl_a ? ",
                       e->type.lanes, mask);
            under_mask(b, e, NULL, 0);
            buf_puts(b, " : (");
            vtype(b, e->type);
            buf_puts(b, "){0}; })");
            return;
        }
        buf_putc(b, '(');
        vtype(b, e->type);
        buf_puts(b, "_bc(");
        if (e->type.dt == DT_BOOL)
            buf_puts(b, "-(int32_t)");
        cgc_expr(b, e->a);
        buf_puts(b, "))");
        return;
    case LE_RAMP:
        helper_call(b, e->type, "ramp", e->a, e->b);
        return;
    case LE_LOAD:
        if (cgc_reg_load(b, e))
            return;
        if (store_mask) {
            /* A masked tail's body (emit_vmask.c): its loads are under
             * the same lanes' bitmask as its stores, one instruction
             * each (a vector mask and the all-lanes test of a select
             * made gcc spill the partial panel's pointers, 240 x 240
             * 0.43 -> 0.53 ms, bench/README.md 2026-11-29). */
            base = dense(e->args[0], e->var->type.dt);
            TL_ASSERT(e->nargs == 1 && base && e->type.lanes == 16 &&
                      dt_size(e->type.dt) == 4);
            buf_puts(b, "({ ");
            vtype(b, e->type);
            buf_puts(b, " tl_r; tl_mldk16(&tl_r, &");
            cgc_name(b, e->var->name);
            buf_putc(b, '[');
            cgc_expr(b, base);
            buf_printf(b, "], %s); tl_r; })", store_mask);
            return;
        }
        if (e->nargs == 1 && (base = dense(e->args[0], e->var->type.dt)) &&
            mask_for_lanes(e->type.lanes)) {
            masked_load(b, e, base, mask);
            return;
        }
        if (e->nargs == 1 && (base = dense(e->args[0], e->var->type.dt))) {
            buf_putc(b, '(');
            vtype(b, e->type);
            buf_puts(b, "_ld(&");
            cgc_name(b, e->var->name);
            buf_putc(b, '[');
            cgc_expr(b, base);
            buf_puts(b, "]))");
            return;
        }
        if (strided(e)) {
            strided_load(b, e);
            return;
        }
        lanewise(b, e);
        return;
    case LE_BINARY:
        vbinary(b, e);
        return;
    case LE_UNARY:
        if (e->op == LO_NOT) {
            buf_puts(b, "(~");
            cgc_expr(b, e->a);
            buf_putc(b, ')');
        } else if (dt_is_float(e->type.dt)) {
            buf_puts(b, "(-");
            cgc_expr(b, e->a);
            buf_putc(b, ')');
        } else {
            buf_puts(b, "((");
            vtype(b, e->type);
            buf_puts(b, ")(-(");
            utype(b, e->type);
            buf_putc(b, ')');
            cgc_expr(b, e->a);
            buf_puts(b, "))");
        }
        return;
    case LE_SELECT:
        if (has_load(e->b) || has_load(e->c)) {
            lazy_select(b, e);
            return;
        }
        buf_putc(b, '(');
        vtype(b, e->type);
        buf_puts(b, "_sel(");
        mask_for(b, e->a, e->type.dt);
        buf_puts(b, ", ");
        cgc_expr(b, e->b);
        buf_puts(b, ", ");
        cgc_expr(b, e->c);
        buf_puts(b, "))");
        return;
    case LE_CAST:
        vcast(b, e);
        return;
    case LE_CALL:
        if ((fn = cgc_vmath_name(e))) {
            buf_putc(b, '(');
            vtype(b, e->type);
            buf_printf(b, "_%s(", fn);
            cgc_expr(b, e->args[0]);
            buf_puts(b, "))");
            return;
        }
        lanewise(b, e);
        return;
    default:
        tl_unreachable();
    }
}

/* --- stores -------------------------------------------------------- */

void cgc_vstore(TlBuf *b, const LStmt *st)
{
    const LExpr *idx = st->args[0], *base = dense(idx, st->var->type.dt);
    LType t = st->a->type;

    if (cgc_stream_copy(st)) {
        cgc_stream_store(b, st);
        return;
    }
    if (store_mask) {
        TL_ASSERT(base && t.lanes == 16 && dt_size(t.dt) == 4);
        buf_puts(b, "{ ");
        vtype(b, t);
        buf_puts(b, " tl_v1 = ");
        cgc_expr(b, st->a);
        buf_puts(b, "; tl_mst16(&");
        cgc_name(b, st->var->name);
        buf_putc(b, '[');
        cgc_expr(b, base);
        buf_printf(b, "], &tl_v1, %s); }\n", store_mask);
        return;
    }
    if (base) {
        vtype(b, t);
        buf_puts(b, "_st(&");
        cgc_name(b, st->var->name);
        buf_putc(b, '[');
        cgc_expr(b, base);
        buf_puts(b, "], ");
        cgc_expr(b, st->a);
        buf_puts(b, ");\n");
        return;
    }
    /* A scatter, in lane order. */
    buf_puts(b, "{ ");
    cgc_type_name(b, idx->type);
    buf_puts(b, " tl_v0 = ");
    cgc_expr(b, idx);
    buf_puts(b, "; ");
    vtype(b, t);
    buf_puts(b, " tl_v1 = ");
    cgc_expr(b, st->a);
    buf_printf(b, "; for (int tl_l = 0; tl_l < %d; tl_l++) ", t.lanes);
    cgc_name(b, st->var->name);
    buf_printf(b, "[tl_v0[tl_l]] = (%s)", t.dt == DT_BOOL ? "uint8_t" :
               elem_ctype(t.dt));
    buf_puts(b, t.dt == DT_BOOL ? "(tl_v1[tl_l] != 0); }\n" :
             "tl_v1[tl_l]; }\n");
}
