/*
 * emit_reg.c - register allocations (`alloc X: T[n] on register`, the
 * tiles of pass_accum.c) as one C variable per slot.  When every
 * access to X is a whole slot at a constant index (X[ramp(c, 1, W)]
 * with c a multiple of W, or X[c] when W is 1), X is declared as n / W
 * variables of W lanes, X__r0, X__r1, ..., and an access is the
 * variable.  An array read and written through vector loads and stores
 * is promoted to registers by cc too, but worse: gcc then rotated a
 * matmul tile's 24 accumulators through extra register moves and a
 * spill in the loop of the reduction, where it gives separate variables
 * a register each.  Any other access leaves X an array.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

/* The allocations split so far in the function being emitted (a
 * variable is unique to its allocation; more than REG_MAX keep the
 * array, which is correct, only slower). */
enum { REG_MAX = 64 };
static const LVar *split[REG_MAX];
static int split_w[REG_MAX], nsplit;

typedef struct Check {
    const LVar *var;
    int64_t n;
    int w;          /* lanes of every access so far (0: none yet) */
    int ok, seen;
} Check;

/* The slot of an access of w lanes at index idx into a buffer of n
 * elements, or -1 when it is not one whole slot at a constant. */
static int64_t slot_of(const LExpr *idx, int w, int64_t n)
{
    int64_t c;

    if (w == 1 && idx->kind == LE_INT)
        c = idx->ival;
    else if (w > 1 && idx->kind == LE_RAMP && idx->a->kind == LE_INT &&
             idx->b->kind == LE_INT && idx->b->ival == 1 &&
             idx->type.lanes == w)
        c = idx->a->ival;
    else
        return -1;
    return c >= 0 && c % w == 0 && c + w <= n ? c / w : -1;
}

static void access(Check *c, const LExpr *idx, int w)
{
    if (c->w && c->w != w)
        c->ok = 0;
    c->w = w;
    if (slot_of(idx, w, c->n) < 0)
        c->ok = 0;
    c->seen++;
}

static int check_expr(LVisitor *v, const LExpr *e)
{
    Check *c = v->ctx;

    if (e->kind == LE_LOAD && e->var == c->var) {
        if (e->nargs != 1)
            c->ok = 0;
        else
            access(c, e->args[0], e->type.lanes);
    }
    return 1;
}

static int check_stmt(LVisitor *v, const LStmt *st)
{
    Check *c = v->ctx;

    if (st->kind == LS_STORE && st->var == c->var) {
        if (st->nargs != 1)
            c->ok = 0;
        else
            access(c, st->args[0], st->a->type.lanes);
    }
    return 1;
}

static int split_index(const LVar *v)
{
    for (int i = 0; i < nsplit; i++)
        if (split[i] == v)
            return i;
    return -1;
}

int cgc_reg_var(const LVar *v)
{
    return split_index(v) >= 0;
}

void cgc_reg_reset(void)
{
    nsplit = 0;
}

int cgc_reg_alloc(TlBuf *b, const LStmt *blk, int i, int ind)
{
    const LStmt *al = blk->items[i];
    TlDType dt = al->var->type.dt;
    Check c = {al->var, 0, 0, 1, 0};
    LVisitor v = {&c, check_expr, check_stmt};
    int uses = 0;

    if (al->mem != LM_REGISTER || al->nargs != 1 ||
        al->args[0]->kind != LE_INT || nsplit == REG_MAX ||
        dt == DT_BOOL || dt == DT_F16 || dt == DT_BF16)
        return 0;
    c.n = al->args[0]->ival;
    for (int j = i + 1; j < blk->nitems; j++) {
        lir_visit_stmt(&v, blk->items[j]);
        uses += lir_count_uses(blk->items[j], al->var);
    }
    if (!c.ok || !c.seen || uses != c.seen || c.n % c.w ||
        c.n / c.w > 256)
        return 0;
    split[nsplit] = al->var;
    split_w[nsplit++] = c.w;
    for (int64_t k = 0; k < c.n / c.w; k++) {
        for (int j = 0; j < ind; j++)
            buf_puts(b, "    ");
        cgc_type_name(b, lir_type(dt, c.w));
        buf_putc(b, ' ');
        cgc_name(b, al->var->name);
        /* Set before every read (pass_accum loads the tile first); the
         * 0 only spares cc's uninitialized-use analysis. */
        buf_printf(b, "__r%lld = %s;\n", (long long)k,
                   c.w > 1 ? "{0}" : "0");
    }
    return 1;
}

int cgc_reg_load(TlBuf *b, const LExpr *e)
{
    int i = e->kind == LE_LOAD ? split_index(e->var) : -1;

    if (i < 0)
        return 0;
    cgc_name(b, e->var->name);
    buf_printf(b, "__r%lld", (long long)slot_of(e->args[0], split_w[i],
                                                INT64_MAX));
    return 1;
}

int cgc_reg_store(TlBuf *b, const LStmt *st)
{
    int i = split_index(st->var);

    if (i < 0)
        return 0;
    cgc_name(b, st->var->name);
    buf_printf(b, "__r%lld = ", (long long)slot_of(st->args[0], split_w[i],
                                                   INT64_MAX));
    if (split_w[i] == 1)
        buf_printf(b, "(%s)", cgc_btype(st->var->type.dt));
    cgc_expr(b, st->a);
    buf_puts(b, ";\n");
    return 1;
}
