/*
 * pass_flatten.c - storage flattening: buffers with dimensions (a
 * parameter `A: f32[n, m]`, an allocation `alloc T: f32[a, b]`) become
 * flat, and every access becomes one row-major index:
 *
 *   A[i, j]   ==>   A[i * m + j]
 *
 * (Horner's form, the last dimension contiguous; one dimension keeps
 * its index).  Indices and
 * extents of different integer types are widened to i64 first; a
 * vector index makes the others broadcasts of its lanes.  The C
 * backend takes flat buffers only, so this runs before it.
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct Dims {
    const LVar *buf;
    LExpr **dims;
    int ndims;
} Dims;

typedef struct Fl {
    Dims *v;
    int n, cap;
} Fl;

static void add_dims(Fl *fl, const LVar *buf, LExpr **dims, int n)
{
    if (fl->n == fl->cap) {
        fl->cap = fl->cap ? 2 * fl->cap : 16;
        fl->v = tl_xrealloc(fl->v, (size_t)fl->cap * sizeof *fl->v);
    }
    fl->v[fl->n].buf = buf;
    fl->v[fl->n].dims = dims;
    fl->v[fl->n].ndims = n;
    fl->n++;
}

static const Dims *find_dims(Fl *fl, const LVar *buf)
{
    for (int i = fl->n - 1; i >= 0; i--)
        if (fl->v[i].buf == buf)
            return &fl->v[i];
    return NULL;
}

/* The flat index of idx[0..n-1] in a buffer of extents dims. */
static LExpr *flat_index(TlSession *s, LExpr *const *idx, LExpr *const *dims,
                         int n)
{
    TlDType dt = idx[0]->type.dt;
    int lanes = 1;
    LExpr *r = NULL;

    for (int k = 0; k < n; k++) {
        if (idx[k]->type.dt != dt || dims[k]->type.dt != dt)
            dt = DT_I64;
        if (idx[k]->type.lanes > lanes)
            lanes = idx[k]->type.lanes;
    }
    for (int k = 0; k < n; k++) {
        LExpr *x = idx[k], *d = dims[k];
        if (x->type.dt != dt)
            x = lir_cast(s, dt, x);
        if (x->type.lanes != lanes)
            x = lir_broadcast(s, x, lanes);
        if (k == 0) {
            r = x;
            continue;
        }
        if (d->type.dt != dt)
            d = lir_cast(s, dt, d);
        if (lanes > 1)
            d = lir_broadcast(s, d, lanes);
        r = lir_binary(s, LO_ADD, lir_binary(s, LO_MUL, r, d), x);
    }
    return r;
}

static LExpr *fl_load(LMutator *m, LExpr *e)
{
    const Dims *d = find_dims(m->ctx, e->var);
    LExpr *x = lir_mutate_expr_children(m, e);

    if (!d || x->nargs != d->ndims || d->ndims < 2)
        return x;
    x = flat_index(m->s, x->args, d->dims, d->ndims);
    return lir_load(m->s, e->var, &x, 1);
}

static LStmt *fl_store(LMutator *m, LStmt *st)
{
    const Dims *d = find_dims(m->ctx, st->var);
    LStmt *y = lir_mutate_stmt_children(m, st);
    LExpr *x;

    if (!d || y->nargs != d->ndims || d->ndims < 2)
        return y;
    x = flat_index(m->s, y->args, d->dims, d->ndims);
    return lir_store(m->s, st->var, &x, 1, y->a);
}

static LStmt *fl_alloc(LMutator *m, LStmt *st)
{
    TlSession *s = m->s;
    LStmt *y = lir_mutate_stmt_children(m, st);
    LExpr *size;
    TlDType dt;

    if (y->nargs < 2)
        return y;
    add_dims(m->ctx, st->var, y->args, y->nargs);
    dt = y->args[0]->type.dt;
    for (int k = 1; k < y->nargs; k++)
        if (y->args[k]->type.dt != dt)
            dt = DT_I64;
    size = NULL;
    for (int k = 0; k < y->nargs; k++) {
        LExpr *e = y->args[k]->type.dt == dt ? y->args[k]
                   : lir_cast(s, dt, y->args[k]);
        size = size ? lir_binary(s, LO_MUL, size, e) : e;
    }
    return lir_alloc(s, st->var, st->mem, &size, 1);
}

LFunc *lir_flatten(TlSession *s, LFunc *f)
{
    Fl fl = {0};
    LMutator m;
    LStmt *body;
    LParam *params;
    int any = 0;

    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].ndims >= 1) {
            add_dims(&fl, f->params[i].var, f->params[i].dims,
                     f->params[i].ndims);
            any = 1;
        }
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = &fl;
    m.expr[LE_LOAD] = fl_load;
    m.stmt[LS_STORE] = fl_store;
    m.stmt[LS_ALLOC] = fl_alloc;
    body = lir_mutate_stmt(&m, f->body);
    free(fl.v);
    if (body == f->body && !any)
        return f;
    params = arena_alloc(&s->arena, (size_t)(f->nparams ? f->nparams : 1) *
                         sizeof *params);
    memcpy(params, f->params, (size_t)f->nparams * sizeof *params);
    for (int i = 0; i < f->nparams; i++)
        if (params[i].ndims >= 1) {
            params[i].dims = NULL;
            params[i].ndims = 0;
        }
    return lir_func(s, f->name, params, f->nparams, body);
}
