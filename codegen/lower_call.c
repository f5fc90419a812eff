/*
 * lower_call.c - a kernel call inside a kernel, lowered inline: the
 * callee's stages join the caller's in a context of their own.
 */
#include "codegen/lower_int.h"

#include <stdlib.h>
#include <string.h>

/* A stand-in in the current context for the caller's tensor at index
 * i (of context parent). */
static void alias_to(Lw *L, const TlFunc *f, int i)
{
    FInfo *a = cg_new_finfo(L, f), *p = &L->fs[i];

    *a = *p;
    a->f = f;
    a->ctx = L->ctx;
    a->alias = i;
    a->need_alloc = 0;
    if (p->inl && !p->vf) {
        a->vf = p->f;
        a->vctx = p->ctx;
    }
}

static int finfo_index(Lw *L, const TlFunc *f)
{
    FInfo *fi = cg_find_finfo(L, f);
    return fi ? (int)(fi - L->fs) : -1;
}

/* A kernel call inside the kernel, lowered inline: its results are
 * buffers of the caller (allocated when the callee's output is
 * computed), the callee's inputs and outputs stand for the caller's
 * tensors, its sizes and scalars are lets, and its stages are lowered
 * like the caller's under the path of calls (so `c1.Y.parallel(n)`
 * schedules them). */
void cg_expand_call(Lw *L, TlCall *call, SList *top)
{
    TlKernelInfo *ce = call->callee;
    int parent = L->ctx, in[64], out[64];
    LExpr *sz[64], *sc[64];

    if (!ce || ce->ninputs > 64 || ce->noutputs > 64 || ce->nsizes > 64 ||
        ce->nscalars > 64 || L->npath >= 16) {
        cg_unsupported(L, call->loc, "this kernel call inside a kernel");
        return;
    }
    for (int o = 0; o < ce->noutputs; o++) {
        TlFunc *r = call->results ? call->results[o] : NULL;
        out[o] = -1;
        if (!r)
            continue;
        if (!cg_find_finfo(L, r)) {
            cg_stage_buffer(L, r, top);
            cg_find_finfo(L, r)->need_alloc = 1;
        }
        out[o] = finfo_index(L, r);
    }
    for (int i = 0; i < ce->ninputs; i++)
        if ((in[i] = call->inputs ? finfo_index(L, call->inputs[i]) : -1) < 0
            || L->fs[in[i]].nest) {
            cg_unsupported(L, call->loc, "this argument of a kernel call "
                        "inside a kernel");
            return;
        }
    for (int i = 0; i < ce->nsizes; i++) {
        if (!call->sizes || !call->sizes[i]) {
            cg_unsupported(L, call->loc, "a kernel call whose sizes are "
                        "known only while running");
            return;
        }
        sz[i] = cg_sym_lower(L, call->sizes[i], DT_I32, call->loc);
    }
    for (int i = 0; i < ce->nscalars; i++) {
        TlExpr *a = call->args ? call->args[ce->ninputs + i] : NULL;
        SList p = {0};
        sc[i] = a ? to_dt(L, ce->scalars[i]->dtype, cg_lower_expr(L, a, &p))
                  : NULL;
        if (p.n)
            cg_unsupported(L, a->loc, "this scalar argument");
        free(p.v);
    }
    if (L->failed)
        return;
    L->ctx = ++L->nctx;
    L->path[L->npath++] = call;
    for (int i = 0; i < ce->nsizes; i++) {
        LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          call->name ? call->name : ce->name,
                          ce->sizes[i]->name)), lir_type(DT_I32, 1));
        cg_sl_add(top, lir_let(L->s, v, sz[i]));
        cg_map_var(L, ce->sizes[i], v);
    }
    for (int i = 0; i < ce->nscalars; i++) {
        TlVar *sv = ce->scalars[i];
        LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.%s",
                          call->name ? call->name : ce->name, sv->name)),
                          lir_type(sv->dtype, 1));
        if (!sc[i]) {
            SList p = {0};
            if (sv->param && sv->param->init)
                sc[i] = to_dt(L, sv->dtype, cg_lower_expr(L, sv->param->init,
                                                       &p));
            if (!sc[i] || p.n)
                cg_unsupported(L, call->loc, "this scalar default");
            free(p.v);
            if (!sc[i])
                break;
        }
        cg_sl_add(top, lir_let(L->s, v, sc[i]));
        cg_map_var(L, sv, v);
    }
    for (int i = 0; i < ce->ninputs; i++)
        alias_to(L, ce->inputs[i], in[i]);
    for (int o = 0; o < ce->noutputs; o++)
        if (out[o] >= 0)
            alias_to(L, ce->outputs[o], out[o]);
    if (!L->failed)
        cg_lower_funcs(L, ce, top);
    L->npath--;
    L->ctx = parent;
}
