/*
 * emit_bcmul.c - a product of 16 f32 lanes by one f32 read from memory
 * and broadcast (`A[i, k] * B[k, j..j+16]`, the multiply of every
 * register-blocked matmul and convolution), as one vmulps with an
 * embedded broadcast ({1to16}) on AVX-512.
 *
 * Why: a vbroadcastss of its own into a zmm register runs on one of the
 * FP pipes.  With the mul and the add separate (the default,
 * -ffp-contract=off: the interpreter's rounding) the multiply pipes and
 * the add pipes are both full in a matmul micro-kernel, and the
 * broadcasts then take their cycles: on AMD Zen 4 an L1-resident 6x64
 * tile ran at 94 GFLOP/s with them and 118 (the FMA peak) with the
 * broadcast folded into the multiply, which the load unit does.  GCC
 * folds a broadcast into its use only when it has one use, and the
 * tile's rows use theirs 4 times, so the helper says it in asm.  The
 * product is the same IEEE product: results do not change.
 *
 * With contraction (TDSL_FMA=1 compiles with -DTL_CONTRACT) the helper
 * is the plain C product, which the compiler fuses with the add (there
 * the broadcast runs beside the FMAs, on an add pipe).  So it is under
 * the sanitizers (ASan checks the C load), without AVX-512, and where
 * the compiler is neither GCC nor Clang.
 *
 * In tiles of few rows of many vectors (2x64, 3x128, 4x64) gcc
 * reloads B's vectors for every row around the asm, and the loop is
 * then bound by zmm loads: 83 -> 57 GFLOP/s for 2x64, while 6x64,
 * 8x32, 6x32, 12x32 and conv2d's tile gain 20-45%.  So a loop's
 * products take the asm only when they broadcast more distinct
 * elements than they multiply distinct vectors (rows > vectors: every
 * measured shape on the right side of that line).  Vectors of 8 (ymm,
 * {1to8}) were slower with it: not done.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

const char cgc_bcmul_helper[] =
    "#if defined(__AVX512F__) && defined(__GNUC__) && "
    "!defined(TL_CONTRACT) && \\\n"
    "    !defined(__SANITIZE_ADDRESS__)\n"
    "TL_HELPER tl_f32x16 tl_mulbc16(const float *p, tl_f32x16 v)\n"
    "{\n"
    "    tl_f32x16 r;\n"
    "    __asm__(\"vmulps %1%{1to16%}, %2, %0\" : \"=v\"(r) : \"m\"(*p), "
    "\"v\"(v));\n"
    "    return r;\n"
    "}\n"
    "#else\n"
    "TL_HELPER tl_f32x16 tl_mulbc16(const float *p, tl_f32x16 v)\n"
    "{\n"
    "    return tl_f32x16_bc(*p) * v;\n"
    "}\n"
    "#endif\n";

/* The f32 load that broadcast e reads from, when e is a broadcast of
 * one plain f32 element of a buffer in memory (not one held in
 * registers by emit_reg.c), else NULL. */
static const LExpr *bcast_load(const LExpr *e)
{
    const LExpr *l;

    if (e->kind != LE_BROADCAST || e->type.lanes != 16)
        return NULL;
    l = e->a;
    if (l->kind != LE_LOAD || l->nargs != 1 || l->type.dt != DT_F32 ||
        l->type.lanes != 1 || l->var->type.dt != DT_F32 ||
        cgc_reg_var(l->var))
        return NULL;
    return l;
}

/* Whether the loop being emitted takes the asm product (cgc_bcmul_loop). */
static int enabled = 1;

/* The distinct broadcast loads and the distinct vectors they multiply
 * in one loop's products (at most 64 of each are told apart). */
typedef struct Count {
    const LExpr *bc[64], *vec[64];
    int nbc, nvec;
} Count;

static void count_one(const LExpr **set, int *n, const LExpr *e)
{
    for (int i = 0; i < *n; i++)
        if (lir_expr_equal(set[i], e))
            return;
    if (*n < 64)
        set[(*n)++] = e;
}

static void count_expr(Count *c, const LExpr *e)
{
    const LExpr *l;

    if (!e)
        return;
    if (e->kind == LE_BINARY && e->op == LO_MUL && e->type.dt == DT_F32 &&
        e->type.lanes == 16) {
        if ((l = bcast_load(e->a)) && !bcast_load(e->b)) {
            count_one(c->bc, &c->nbc, l);
            count_one(c->vec, &c->nvec, e->b);
        } else if ((l = bcast_load(e->b)) && !bcast_load(e->a)) {
            count_one(c->bc, &c->nbc, l);
            count_one(c->vec, &c->nvec, e->a);
        }
    }
    count_expr(c, e->a);
    count_expr(c, e->b);
    count_expr(c, e->c);
    for (int i = 0; i < e->nargs; i++)
        count_expr(c, e->args[i]);
}

/* The products of st, not looking into loops inside it (each decides
 * for itself when it is emitted). */
static void count_stmt(Count *c, const LStmt *st)
{
    if (!st)
        return;
    count_expr(c, st->a);
    count_expr(c, st->b);
    for (int i = 0; i < st->nargs; i++)
        count_expr(c, st->args[i]);
    if (st->kind == LS_FOR)
        return;
    count_stmt(c, st->body);
    count_stmt(c, st->orelse);
    for (int i = 0; i < st->nitems; i++)
        if (st->items[i]->kind != LS_FOR)
            count_stmt(c, st->items[i]);
}

int cgc_bcmul_loop(const LStmt *body)
{
    int was = enabled;
    Count c;

    c.nbc = c.nvec = 0;
    count_stmt(&c, body);
    if (c.nbc)
        enabled = c.nbc > c.nvec;
    return was;
}

void cgc_bcmul_restore(int was)
{
    enabled = was;
}

int cgc_bcmul(TlBuf *b, const LExpr *e)
{
    const LExpr *l, *v;

    if (!enabled || e->kind != LE_BINARY || e->op != LO_MUL ||
        e->type.dt != DT_F32 || e->type.lanes != 16)
        return 0;
    if ((l = bcast_load(e->a)))
        v = e->b;
    else if ((l = bcast_load(e->b)))
        v = e->a;
    else
        return 0;
    if (bcast_load(v))
        return 0;       /* two broadcasts: a scalar product, let cc see it */
    buf_puts(b, "tl_mulbc16(&");
    cgc_name(b, l->var->name);
    buf_putc(b, '[');
    cgc_expr(b, l->args[0]);
    buf_puts(b, "], ");
    cgc_expr(b, v);
    buf_putc(b, ')');
    return 1;
}
