/*
 * pass_unroll.c - an `unrolled` loop whose bounds are constants (after
 * simplification) becomes that many copies of its body, the variable
 * replaced by each value in turn:
 *
 *   unrolled for i in 0 .. 3 {          A[0] = B[0]
 *     A[i] = B[i]                ==>    A[1] = B[1]
 *   }                                   A[2] = B[2]
 *
 * A body that defines names (lets, allocations) is kept as a block of
 * its own per copy, so that each copy's names have their own scope.
 * Loops of more than LIR_UNROLL_MAX iterations, and loops whose
 * bounds are not constants (the tail of a split after pass_bounds),
 * stay loops; the C backend asks the C compiler to unroll them.
 * Inner loops are unrolled first.
 *
 * Only loops the schedule marks are unrolled.  TODO(issue 4): gcc
 * leaves a constant loop of 16 vectors rolled where it reads rows of
 * an input (blur3's horizontal pass, 40% slower so; bench/README.md),
 * but unrolling the output's row as well lost part of the gain, so no
 * rule unrolls such loops by default yet.
 */
#include "codegen/codegen_int.h"

#include <string.h>

enum { LIR_UNROLL_MAX = 64 };

static int declares(const LStmt *st)
{
    if (st->kind == LS_LET || st->kind == LS_ALLOC)
        return 1;
    for (int i = 0; st->kind == LS_BLOCK && i < st->nitems; i++)
        if (st->items[i]->kind == LS_LET || st->items[i]->kind == LS_ALLOC)
            return 1;
    return 0;
}

static LStmt *unroll_for(LMutator *m, LStmt *st)
{
    TlSession *s = m->s;
    LStmt *body = lir_mutate_stmt(m, st->body), **items;
    int64_t lo, hi;
    int n = 0, nest, per;

    if (st->loop != LP_UNROLLED || st->a->kind != LE_INT ||
        st->b->kind != LE_INT || st->b->ival - st->a->ival > LIR_UNROLL_MAX)
        return body == st->body ? st
               : lir_for(s, st->loop, st->width, st->level, st->var, st->a,
                         st->b, body);
    lo = st->a->ival;
    hi = st->b->ival;
    /* A let or allocation alone is seen by nobody. */
    if (hi <= lo || body->kind == LS_LET || body->kind == LS_ALLOC)
        return lir_nop(s);
    nest = declares(body);
    per = !nest && body->kind == LS_BLOCK ? body->nitems : 1;
    items = arena_alloc(&s->arena, (size_t)((hi - lo) * per) *
                        sizeof *items);
    for (int64_t v = lo; v < hi; v++) {
        LStmt *c = lir_substitute(s, body, st->var,
                                  lir_int(s, st->var->type.dt, v));
        if (!nest && c->kind == LS_BLOCK) {
            /* A block that declares nothing joins the list. */
            TL_ASSERT(c->nitems <= per);
            memcpy(items + n, c->items, (size_t)c->nitems * sizeof *items);
            n += c->nitems;
        } else {
            items[n++] = c;
        }
    }
    return lir_block(s, items, n);
}

LFunc *lir_unroll(TlSession *s, LFunc *f)
{
    LMutator m;

    memset(&m, 0, sizeof m);
    m.s = s;
    m.stmt[LS_FOR] = unroll_for;
    return lir_mutate_func(&m, f);
}
