/*
 * emit_vmask.c - the lanes of a split's tail as one masked vector.
 * Loop partitioning leaves the lanes past a tail's last whole vector
 * as a `vectorized(16)` loop with a computed trip count n (at most
 * 16), which ran lane by lane: matmul 252 x 252 spent 1.6 of its
 * 2.0 ms there against 0.37 for 256 (bench/README.md 2026-11-29).
 * Where the target has AVX-512 and n is 1 to 16, the body runs once
 * as vector code (pass_vectorize.c's lir_vectorize_masked) whose loads
 * and stores move only the lanes below n, under one bitmask (tl_mldk16,
 * tl_mst16: nothing past them is read or written); else the loop runs
 * as it was.  Each lane below n computes what the loop computed, by the
 * same operations, and the others store nothing.  n of 0 takes the
 * loop (which then does nothing): the vector code would still read
 * the scalars its body reads.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

/* Set while the loop is written as it was (its own else branch). */
static int plain;

/* Every buffer the body moves is an array in C (a register
 * allocation of emit_reg.c is variables, with no masked move). */
static int reg_expr(LVisitor *v, const LExpr *e)
{
    *(int *)v->ctx |= e->kind == LE_LOAD && cgc_reg_var(e->var);
    return 1;
}

static int reg_stmt(LVisitor *v, const LStmt *st)
{
    *(int *)v->ctx |= st->kind == LS_STORE && cgc_reg_var(st->var);
    return 1;
}

static void indent(TlBuf *b, int ind)
{
    for (int i = 0; i < ind; i++)
        buf_puts(b, "    ");
}

int cgc_vmask_loop(TlSession *s, TlBuf *b, const LStmt *st, int ind,
                   const char *outer, const LVar *const *lvar,
                   LExpr *const *lval, int nlet)
{
    LStmt *body;
    LVisitor v = {0};
    int reg = 0, bc;

    if (plain || !s || !cgc_vec_has16())
        return 0;
    body = lir_vectorize_masked(s, st, lvar, lval, nlet);
    if (!body)
        return 0;
    v.ctx = &reg;
    v.expr = reg_expr;
    v.stmt = reg_stmt;
    lir_visit_stmt(&v, body);
    if (reg)
        return 0;
    indent(b, ind);
    buf_puts(b, "{\n");
    indent(b, ind + 1);
    buf_puts(b, "const int64_t tl_mn = (int64_t)(");
    cgc_expr(b, st->b);
    buf_puts(b, ") - (int64_t)(");
    cgc_expr(b, st->a);
    buf_puts(b, ");\n");
    /* Unlikely, for the block layout only: a partial panel's tail runs
     * once per row and k step, and laid out in line it changed the
     * full panels' loops (matmul 512 with TDSL_FMA=1: 2.80-2.84 ms
     * against main's 2.70-2.78; 2.65-2.75 so; bench/README.md
     * 2026-11-29). */
    indent(b, ind + 1);
    buf_puts(b, "if (__builtin_expect(TL_MST16 && tl_mn > 0 && "
                "tl_mn <= 16, 0)) {\n");
    indent(b, ind + 2);
    buf_puts(b, "const unsigned short tl_sk = "
                "(unsigned short)((1u << tl_mn) - 1u);\n");
    cgc_vstore_mask("tl_sk");
    bc = cgc_bcmul_loop(body);     /* as for the body of a loop */
    cgc_stmt(b, body, ind + 2, st->var->name);
    cgc_bcmul_restore(bc);
    cgc_vstore_mask(NULL);
    indent(b, ind + 1);
    buf_puts(b, "} else {\n");
    plain = 1;
    cgc_stmt(b, st, ind + 2, outer);
    plain = 0;
    indent(b, ind + 1);
    buf_puts(b, "}\n");
    indent(b, ind);
    buf_puts(b, "}\n");
    return 1;
}
