/*
 * pass_hoist.c - loop-invariant code motion for index arithmetic.  In
 * each loop (inner loops first), an arithmetic expression that uses
 * variables but nothing the loop defines (its variable, lets, inner
 * loops, allocations) is computed once before the loop, in a let of a
 * fresh name:
 *
 *   for j in 0 .. n {                 let inv.__p1 = i64(i) * s0
 *     A[i64(i) * s0 + i64(j)] = 0.0   for j in 0 .. n {
 *   }                          ==>      A[inv.__p1 + i64(j)] = 0.0
 *                                     }
 *
 * What an inner loop hoisted is an expression in the outer loop's
 * body, so it moves on outward as far as it can.  Only expressions
 * without loads move: the language's arithmetic is total (division by
 * zero gives 0), so computing it before a loop that might not run, or
 * outside an `if` or a select, changes nothing, while a load could be
 * out of range there.  Vector expressions stay where they are.
 *
 * A scalar load moves too when its address is free of the loop, its
 * buffer is not stored to in the loop, and the body reads it every
 * time it runs (not in a branch of an `if` or a select, nor on the
 * right of && or ||, nor in an inner loop's body, any of which might
 * not run).  Its let goes in an `if lo < hi` around the loop, so
 * nothing is read when the loop does not run:
 *
 *   for j in 0 .. m {                 if 0 < m {
 *     A[i64(j)] = B[i64(k)]             let inv.__p1 = B[i64(k)]
 *   }                          ==>      for j in 0 .. m {
 *                                         A[i64(j)] = inv.__p1
 *                                       }
 *                                     }
 *
 * That `if` is a branch for the loops around it, so such a load moves
 * out of one loop per pass.
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

enum { HO_MAX = 64 };

typedef struct Ho {
    const LFunc *f;
    int uniq;
    /* While rewriting one loop: what it defines, and the lets made. */
    const LVar **def;
    int ndef, capdef;
    LStmt *lets[HO_MAX];
    int nlets;
    /* Buffers stored to in the loop; the loads made lets (they go
     * under the `if`); how many branches that might not run enclose
     * the node being rewritten. */
    const LVar **stored;
    int nstored, capstored;
    LStmt *loads[HO_MAX];
    int nloads, cond;
} Ho;

static void add_def(Ho *h, const LVar *v)
{
    if (h->ndef == h->capdef) {
        h->capdef = h->capdef ? 2 * h->capdef : 32;
        h->def = tl_xrealloc(h->def, (size_t)h->capdef * sizeof *h->def);
    }
    h->def[h->ndef++] = v;
}

static int defines_stmt(LVisitor *v, const LStmt *st)
{
    Ho *h = v->ctx;

    if ((st->kind == LS_FOR || st->kind == LS_LET || st->kind == LS_ALLOC)
        && st->var)
        add_def(h, st->var);
    if (st->kind == LS_STORE) {
        if (h->nstored == h->capstored) {
            h->capstored = h->capstored ? 2 * h->capstored : 16;
            h->stored = tl_xrealloc(h->stored, (size_t)h->capstored *
                                                   sizeof *h->stored);
        }
        h->stored[h->nstored++] = st->var;
    }
    return 1;
}

static int in_list(const LVar *const *vs, int n, const LVar *v)
{
    for (int i = 0; i < n; i++)
        if (vs[i] == v)
            return 1;
    return 0;
}

typedef struct Inv {
    Ho *h;
    int ok, vars;
} Inv;

static int inv_expr(LVisitor *v, const LExpr *e)
{
    Inv *x = v->ctx;
    if (e->kind == LE_LOAD || e->type.lanes != 1)
        x->ok = 0;
    if (e->kind == LE_VAR) {
        x->vars = 1;
        if (in_list(x->h->def, x->h->ndef, e->var))
            x->ok = 0;
    }
    return x->ok;
}

static int invariant(Ho *h, const LExpr *e)
{
    Inv x = {h, 1, 0};
    LVisitor v = {&x, inv_expr, NULL};
    lir_visit_expr(&v, e);
    return x.ok && x.vars;
}

static LExpr *ho_cond(LMutator *m, LExpr *e);

/* Binary operators are what is worth a let; the largest invariant one
 * moves whole. */
static LExpr *ho_binary(LMutator *m, LExpr *e)
{
    Ho *h = m->ctx;
    LVar *v;

    if (!invariant(h, e)) {
        if ((e->op == LO_AND || e->op == LO_OR) && e->type.lanes == 1) {
            LExpr *a = lir_mutate_expr(m, e->a), *b = ho_cond(m, e->b);

            if (a == e->a && b == e->b)
                return e;
            return lir_binary(m->s, e->op, a, b);
        }
        return lir_mutate_expr_children(m, e);
    }
    for (int i = 0; i < h->nlets; i++)
        if (lir_expr_equal(h->lets[i]->a, e))
            return lir_ref(m->s, h->lets[i]->var);
    if (h->nlets == HO_MAX)
        return e;
    v = lir_var(m->s, lir_fresh_name(m->s, h->f, "inv", &h->uniq), e->type);
    h->lets[h->nlets++] = lir_let(m->s, v, e);
    return lir_ref(m->s, v);
}

/* A load read every time the body runs, from a buffer the loop does
 * not store to, at an address free of the loop (loads in the address
 * stay: they may guard each other). */
static LExpr *ho_load(LMutator *m, LExpr *e)
{
    Ho *h = m->ctx;
    Inv x = {h, 1, 0};
    LVisitor v = {&x, inv_expr, NULL};
    LVar *var;

    /* One the body reads anyway holds the value in a branch too. */
    for (int i = 0; i < h->nloads; i++)
        if (lir_expr_equal(h->loads[i]->a, e))
            return lir_ref(m->s, h->loads[i]->var);
    if (h->cond || e->type.lanes != 1 ||
        in_list(h->def, h->ndef, e->var) ||
        in_list(h->stored, h->nstored, e->var))
        return lir_mutate_expr_children(m, e);
    for (int i = 0; i < e->nargs && x.ok; i++)
        lir_visit_expr(&v, e->args[i]);
    if (!x.ok)
        return lir_mutate_expr_children(m, e);
    if (h->nloads == HO_MAX)
        return e;
    var = lir_var(m->s, lir_fresh_name(m->s, h->f, "inv", &h->uniq),
                  e->type);
    h->loads[h->nloads++] = lir_let(m->s, var, e);
    return lir_ref(m->s, var);
}

/* e under a branch that might not run. */
static LExpr *ho_cond(LMutator *m, LExpr *e)
{
    Ho *h = m->ctx;

    h->cond++;
    e = lir_mutate_expr(m, e);
    h->cond--;
    return e;
}

static LExpr *ho_select(LMutator *m, LExpr *e)
{
    LExpr *a = lir_mutate_expr(m, e->a), *b = ho_cond(m, e->b),
          *c = ho_cond(m, e->c);

    if (a == e->a && b == e->b && c == e->c)
        return e;
    return lir_select(m->s, a, b, c);
}

static LStmt *ho_if(LMutator *m, LStmt *st)
{
    Ho *h = m->ctx;
    LExpr *a = lir_mutate_expr(m, st->a);
    LStmt *t, *o;

    h->cond++;
    t = lir_mutate_stmt(m, st->body);
    o = st->orelse ? lir_mutate_stmt(m, st->orelse) : NULL;
    h->cond--;
    if (a == st->a && t == st->body && o == st->orelse)
        return st;
    return lir_if(m->s, a, t, o);
}

/* Inner loops are done: only their bounds belong to this loop. */
static LStmt *ho_inner_for(LMutator *m, LStmt *st)
{
    LExpr *a = lir_mutate_expr(m, st->a), *b = lir_mutate_expr(m, st->b);

    if (a == st->a && b == st->b)
        return st;
    return lir_for(m->s, st->loop, st->width, st->level, st->var, a, b,
                   st->body);
}

static LStmt *ho_for(LMutator *outer, LStmt *st)
{
    Ho *h = outer->ctx;
    TlSession *s = outer->s;
    LStmt *body = lir_mutate_stmt(outer, st->body), *items[HO_MAX + 1];
    LStmt *loop;
    LVisitor v = {h, NULL, defines_stmt};
    LMutator m;
    int n;

    h->ndef = 0;
    h->nlets = 0;
    h->nstored = 0;
    h->nloads = 0;
    h->cond = 0;
    add_def(h, st->var);
    lir_visit_stmt(&v, body);
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = h;
    m.expr[LE_BINARY] = ho_binary;
    m.expr[LE_LOAD] = ho_load;
    m.expr[LE_SELECT] = ho_select;
    m.stmt[LS_FOR] = ho_inner_for;
    m.stmt[LS_IF] = ho_if;
    body = lir_mutate_stmt(&m, body);
    if (body == st->body && !h->nlets && !h->nloads)
        return st;
    loop = lir_for(s, st->loop, st->width, st->level, st->var, st->a,
                   st->b, body);
    if (h->nloads) {
        /* The arithmetic lets have no loads: none uses these. */
        n = h->nloads;
        memcpy(items, h->loads, (size_t)n * sizeof *items);
        items[n++] = loop;
        loop = lir_if(s, lir_binary(s, LO_LT, st->a, st->b),
                      lir_block(s, items, n), NULL);
    }
    n = h->nlets;
    memcpy(items, h->lets, (size_t)n * sizeof *items);
    items[n++] = loop;
    return lir_block(s, items, n);
}

LFunc *lir_hoist(TlSession *s, LFunc *f)
{
    Ho h;
    LMutator m;
    LStmt *body;

    memset(&h, 0, sizeof h);
    h.f = f;
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = &h;
    m.stmt[LS_FOR] = ho_for;
    body = lir_mutate_stmt(&m, f->body);
    free(h.def);
    free(h.stored);
    return lir_func_with_body(s, f, body);
}
