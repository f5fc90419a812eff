/*
 * lir_mutate.c - the shared machinery of passes: a rewriter that
 * rebuilds a node only when one of its children changed (so "did the
 * pass change anything" is a pointer compare, STYLE.md rules 9 and
 * 26), a read-only visitor, and the two rewrites every pass needs:
 * counting and substituting the uses of a variable.
 */
#include "codegen/codegen_int.h"

#include <string.h>

/* ====================================================================
 * Rewriting
 * ==================================================================== */

LExpr *lir_mutate_expr(LMutator *m, LExpr *e)
{
    if (!e)
        return NULL;
    if ((unsigned)e->kind < LE__COUNT && m->expr[e->kind])
        return m->expr[e->kind](m, e);
    return lir_mutate_expr_children(m, e);
}

LStmt *lir_mutate_stmt(LMutator *m, LStmt *st)
{
    if (!st)
        return NULL;
    if ((unsigned)st->kind < LS__COUNT && m->stmt[st->kind])
        return m->stmt[st->kind](m, st);
    return lir_mutate_stmt_children(m, st);
}

LFunc *lir_mutate_func(LMutator *m, LFunc *f)
{
    return lir_func_with_body(m->s, f, lir_mutate_stmt(m, f->body));
}

/* The rewritten list v[n]: v itself when nothing changed, else a new
 * array in the arena. */
static LExpr **mutate_list(LMutator *m, LExpr **v, int n)
{
    LExpr **out = v;

    for (int i = 0; i < n; i++) {
        LExpr *e = lir_mutate_expr(m, v[i]);
        if (e != v[i] && out == v) {
            out = arena_alloc(&m->s->arena, (size_t)n * sizeof *out);
            memcpy(out, v, (size_t)n * sizeof *out);
        }
        out[i] = e;
    }
    return out;
}

LExpr *lir_mutate_expr_children(LMutator *m, LExpr *e)
{
    TlSession *s = m->s;
    LExpr *a, *b, *c, **args;

    switch (e->kind) {
    case LE_LOAD:
    case LE_CALL:
        args = mutate_list(m, e->args, e->nargs);
        if (args == e->args)
            return e;
        return e->kind == LE_LOAD ? lir_load(s, e->var, args, e->nargs)
                                  : lir_call_like(s, e, args);
    case LE_INT:
    case LE_FLOAT:
    case LE_VAR:
        return e;
    default:
        break;
    }
    a = lir_mutate_expr(m, e->a);
    b = lir_mutate_expr(m, e->b);
    c = lir_mutate_expr(m, e->c);
    if (a == e->a && b == e->b && c == e->c)
        return e;
    switch (e->kind) {
    case LE_BINARY: return lir_binary(s, e->op, a, b);
    case LE_UNARY: return lir_unary(s, e->op, a);
    case LE_SELECT: return lir_select(s, a, b, c);
    case LE_CAST: return lir_cast(s, e->type.dt, a);
    case LE_RAMP: return lir_ramp(s, a, b, e->type.lanes);
    case LE_BROADCAST: return lir_broadcast(s, a, e->type.lanes);
    default: tl_unreachable();
    }
}

/* A block's items rewritten; items that became no-ops, or dead lets
 * and allocs, are dropped. */
static LStmt *mutate_block(LMutator *m, LStmt *st)
{
    LStmt **items = NULL;
    int n = 0, changed = 0;

    for (int i = 0; i < st->nitems; i++) {
        LStmt *x = lir_mutate_stmt(m, st->items[i]);
        if (x != st->items[i] && !changed) {
            changed = 1;
            items = arena_alloc(&m->s->arena,
                                (size_t)st->nitems * sizeof *items);
            memcpy(items, st->items, (size_t)i * sizeof *items);
            n = i;
        }
        if (!changed)
            continue;
        if (x != st->items[i] && lir_is_nop(x))
            continue;
        /* A let or alloc that replaced another kind of statement came
         * from a scope that ended there: keeping it would widen its
         * scope, and nothing can use it. */
        if ((x->kind == LS_LET || x->kind == LS_ALLOC) &&
            x->kind != st->items[i]->kind)
            continue;
        items[n++] = x;
    }
    return changed ? lir_block(m->s, items, n) : st;
}

LStmt *lir_mutate_stmt_children(LMutator *m, LStmt *st)
{
    TlSession *s = m->s;
    LExpr *a, *b, **args;
    LStmt *body, *orelse;

    switch (st->kind) {
    case LS_FOR:
        a = lir_mutate_expr(m, st->a);
        b = lir_mutate_expr(m, st->b);
        body = lir_mutate_stmt(m, st->body);
        if (a == st->a && b == st->b && body == st->body)
            return st;
        return lir_for(s, st->loop, st->width, st->level, st->var, a, b,
                       body);
    case LS_LET:
        a = lir_mutate_expr(m, st->a);
        return a == st->a ? st : lir_let(s, st->var, a);
    case LS_STORE:
        args = mutate_list(m, st->args, st->nargs);
        a = lir_mutate_expr(m, st->a);
        if (args == st->args && a == st->a)
            return st;
        return lir_store(s, st->var, args, st->nargs, a);
    case LS_ALLOC:
        args = mutate_list(m, st->args, st->nargs);
        if (args == st->args)
            return st;
        return lir_alloc(s, st->var, st->mem, args, st->nargs);
    case LS_IF:
        a = lir_mutate_expr(m, st->a);
        body = lir_mutate_stmt(m, st->body);
        orelse = lir_mutate_stmt(m, st->orelse);
        if (a == st->a && body == st->body && orelse == st->orelse)
            return st;
        return lir_if(s, a, body, orelse);
    case LS_BLOCK:
        return mutate_block(m, st);
    default:
        tl_unreachable();
    }
}

/* ====================================================================
 * Visiting
 * ==================================================================== */

void lir_visit_expr(LVisitor *v, const LExpr *e)
{
    if (!e || (v->expr && !v->expr(v, e)))
        return;
    lir_visit_expr(v, e->a);
    lir_visit_expr(v, e->b);
    lir_visit_expr(v, e->c);
    for (int i = 0; i < e->nargs; i++)
        lir_visit_expr(v, e->args[i]);
}

void lir_visit_stmt(LVisitor *v, const LStmt *st)
{
    if (!st || (v->stmt && !v->stmt(v, st)))
        return;
    lir_visit_expr(v, st->a);
    lir_visit_expr(v, st->b);
    for (int i = 0; i < st->nargs; i++)
        lir_visit_expr(v, st->args[i]);
    lir_visit_stmt(v, st->body);
    lir_visit_stmt(v, st->orelse);
    for (int i = 0; i < st->nitems; i++)
        lir_visit_stmt(v, st->items[i]);
}

/* ====================================================================
 * Uses and substitution
 * ==================================================================== */

typedef struct Uses {
    const LVar *var;
    int n;
} Uses;

static int count_expr(LVisitor *v, const LExpr *e)
{
    Uses *u = v->ctx;
    if ((e->kind == LE_VAR || e->kind == LE_LOAD) && e->var == u->var)
        u->n++;
    return 1;
}

static int count_stmt(LVisitor *v, const LStmt *st)
{
    Uses *u = v->ctx;
    if (st->kind == LS_STORE && st->var == u->var)
        u->n++;
    return 1;
}

int lir_count_uses(const LStmt *st, const LVar *var)
{
    Uses u = {var, 0};
    LVisitor v = {&u, count_expr, count_stmt};
    lir_visit_stmt(&v, st);
    return u.n;
}

int lir_count_uses_expr(const LExpr *e, const LVar *var)
{
    Uses u = {var, 0};
    LVisitor v = {&u, count_expr, count_stmt};
    lir_visit_expr(&v, e);
    return u.n;
}

typedef struct Subst {
    const LVar *var;
    LExpr *with;
} Subst;

static LExpr *subst_var(LMutator *m, LExpr *e)
{
    Subst *x = m->ctx;
    return e->var == x->var ? x->with : e;
}

static void subst_init(LMutator *m, TlSession *s, Subst *x)
{
    memset(m, 0, sizeof *m);
    m->s = s;
    m->ctx = x;
    m->expr[LE_VAR] = subst_var;
}

LExpr *lir_substitute_expr(TlSession *s, LExpr *in, const LVar *var,
                           LExpr *e)
{
    Subst x = {var, e};
    LMutator m;
    subst_init(&m, s, &x);
    return lir_mutate_expr(&m, in);
}

LStmt *lir_substitute(TlSession *s, LStmt *in, const LVar *var, LExpr *e)
{
    Subst x = {var, e};
    LMutator m;
    subst_init(&m, s, &x);
    return lir_mutate_stmt(&m, in);
}
