/*
 * checkinst.c - instances of generic kernels (SPEC 6.7): made at each
 * call, inside kernels (once the arguments are typed, in dependency
 * order) and at the top level, and by tl_instantiate for `tdsl run`.
 *
 * An instance is an ordinary kernel whose text is the generic kernel's
 * under a binding (checkexpand.c), checked in full in the scope of the
 * generic kernel's program.  Instances are kept per binding on the
 * generic kernel; one with errors is not kept, so every call that
 * needs it reports them, each followed by a note at that call.  The
 * generic kernel's schedules are checked again for every instance.
 */
#include "lang/lang_int.h"

#include <string.h>

/* ====================================================================
 * Making instances
 * ==================================================================== */

/* "relu<f32, ..3>": the dtypes, then the length of each pack. */
static const char *instance_name(Chk *c, const TlKernelInfo *g,
                                 const TlDType *tb, const int *pb)
{
    TlBuf b;
    const char *r;

    buf_init(&b);
    buf_printf(&b, "%s<", g->name);
    for (int t = 0; t < g->ntvars; t++)
        buf_printf(&b, "%s%s", t ? ", " : "", dt_name(tb[t]));
    for (int q = 0; q < g->npacks; q++)
        buf_printf(&b, "%s..%d", g->ntvars + q ? ", " : "", pb[q]);
    buf_putc(&b, '>');
    r = arena_strdup(c->a, b.s);
    buf_free(&b);
    return r;
}

static int same_binding(const TlKernelInfo *g, const TlKernelInfo *inst,
                        const TlDType *tb, const int *pb)
{
    for (int t = 0; t < g->ntvars; t++)
        if (inst->tbind[t] != tb[t])
            return 0;
    for (int q = 0; q < g->npacks; q++)
        if (inst->pbind[q] != pb[q])
            return 0;
    return 1;
}

static int in_vec(const TlVec *v, const void *p)
{
    for (int i = 0; i < v->n; i++)
        if (v->v[i] == p)
            return 1;
    return 0;
}

TlKernelInfo *gen_instance(Chk *c, TlKernelInfo *g, const TlDType *tb,
                           const int *pb, TlLoc where)
{
    Kern *gk = g->priv, *ik;
    TlKernelInfo *inst = NULL;
    const char *name;
    TlItem *it;
    int nerr = c->s->nerrors;

    for (int i = 0; i < g->ninstances; i++)
        if (same_binding(g, g->instances[i], tb, pb))
            return g->instances[i];
    name = instance_name(c, g, tb, pb);
    it = gen_expand(c, g, tb, pb, name);
    if (it) {
        Chk sub = *c;
        inst = arena_alloc(c->a, sizeof *inst);
        inst->ref = REF_KERNEL;
        inst->name = name;
        inst->item = it;
        inst->module = g->module;
        inst->origin = g;
        inst->tbind = arena_alloc(c->a, (size_t)(g->ntvars + 1) *
                                            sizeof *inst->tbind);
        inst->pbind = arena_alloc(c->a, (size_t)(g->npacks + 1) *
                                            sizeof *inst->pbind);
        if (g->ntvars)
            memcpy(inst->tbind, tb, (size_t)g->ntvars * sizeof *tb);
        if (g->npacks)
            memcpy(inst->pbind, pb, (size_t)g->npacks * sizeof *pb);
        it->sym = inst;
        /* Its names are those of the generic kernel's program. */
        sub.top = gk->def_top;
        sub.module = g->module;
        sub.local = NULL;
        ik = arena_alloc(c->a, sizeof *ik);
        ik->c = &sub;
        ik->k = inst;
        ik->instance = 1;
        ik->made_at = where;
        inst->priv = ik;
        chk_kernel(&sub, inst);
        for (int i = 0; i < g->nschedules; i++)
            if (!in_vec(&gk->bad_scheds, g->schedules[i]))
                sck_instance(&sub, g->schedules[i], inst);
        ik->c = c;
    }
    if (c->s->nerrors != nerr) {
        diag_note(c->s, where, "in '%s' instantiated here", name);
        return NULL;
    }
    if (!inst)
        return NULL;
    {
        TlKernelInfo **v = arena_alloc(c->a, (size_t)(g->ninstances + 1) *
                                                 sizeof *v);
        if (g->ninstances)
            memcpy(v, g->instances, (size_t)g->ninstances * sizeof *v);
        v[g->ninstances++] = inst;
        g->instances = v;
    }
    return inst;
}

/* ====================================================================
 * Calls inside kernels
 * ==================================================================== */

static void bad_call(Kern *kc, TlCall *call)
{
    vec_push(kc->c->a, &kc->bad_calls, call);
}

void gen_nested_rank(Kern *kc, TlCall *call)
{
    Chk *c = kc->c;
    TlKernelInfo *g = call->callee;
    TlFunc *r = call->results[0];
    int *in = arena_alloc(c->a, (size_t)(g->ninputs + 1) * sizeof *in);
    int *out = arena_alloc(c->a, (size_t)(g->noutputs + 1) * sizeof *out);
    int st;

    if (!g->generic || !r || r->rank >= 0)
        return;
    for (int i = 0; i < g->ninputs; i++) {
        in[i] = call->inputs[i] ? call->inputs[i]->rank : -1;
        if (in[i] < 0)
            return;     /* an error upstream, or a generic caller */
    }
    st = gen_out_ranks(c, g, in, call->args, !kc->generic, out);
    if (st == -2)
        bad_call(kc, call);
    if (st == 0)
        gen_set_rank(c, r, out[0]);
}

void gen_check_targs(Kern *kc, TlCall *call)
{
    TlDType *ex = arena_alloc(kc->c->a, (size_t)(call->callee->ntvars + 1) *
                                            sizeof *ex);

    if (gen_explicit(kc->c, call->callee, call->expr->b, kc->scope, ex) < 0)
        bad_call(kc, call);
}

TlKernelInfo *gen_call_instance(Kern *kc, TlCall *call, const ShpArg *args)
{
    Chk *c = kc->c;
    TlKernelInfo *g = call->callee, *inst;
    GenArg *a = arena_alloc(c->a, (size_t)(g->ninputs + 1) * sizeof *a);
    TlDType *ex = arena_alloc(c->a, (size_t)(g->ntvars + 1) * sizeof *ex);
    TlDType *tb = arena_alloc(c->a, (size_t)(g->ntvars + 1) * sizeof *tb);
    int *pb = arena_alloc(c->a, (size_t)(g->npacks + 1) * sizeof *pb);

    if (in_vec(&kc->bad_calls, call) || !g->ok)
        return NULL;
    for (int i = 0; i < g->ninputs; i++) {
        a[i].dtype = args[i].dtype;
        a[i].rank = args[i].rank;
        a[i].loc = args[i].expr ? args[i].expr->loc : call->loc;
    }
    /* Checked when the call was resolved (gen_check_targs). */
    if (gen_explicit(c, g, call->expr->b, kc->scope, ex) < 0 ||
        gen_bind(c, g, a, ex, call->loc, 1, tb, pb) < 0 ||
        !(inst = gen_instance(c, g, tb, pb, call->loc)))
        return NULL;
    /* What waited for the instance: scalar arguments of dtype
     * variables' types, and outputs of the caller bound to the call. */
    for (int j = 0; j < inst->nscalars; j++) {
        TlExpr **slot = &call->args[inst->ninputs + j];
        TlVar *p = inst->scalars[j];
        if (!*slot || ty_expr(kc, slot) == DT_NONE)
            continue;
        if (!ty_fits(c, slot, p->dtype)) {
            diag_error(c->s, (*slot)->loc, DIAG_KERNEL_ARG_DTYPE, p->name,
                       inst->name, dt_name((*slot)->dtype),
                       dt_name(p->dtype));
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
        }
    }
    for (int i = 0; i < inst->noutputs; i++) {
        TlFunc *r = call->results[i], *o = inst->outputs[i];
        if (r && r->kind == FN_OUTPUT && r->dtype != DT_NONE &&
            o->dtype != DT_NONE && r->dtype != o->dtype) {
            diag_error(c->s, r->stmt ? r->stmt->loc : r->loc,
                       DIAG_BIND_DTYPE, r->name, dt_name(r->dtype),
                       inst->name, dt_name(o->dtype));
            diag_note(c->s, r->loc, "'%s' is declared here", r->name);
        }
    }
    return inst;
}

/* ====================================================================
 * Top-level calls and tl_instantiate
 * ==================================================================== */

TlKernelInfo *gen_top_instance(Chk *c, TlKernelInfo *k, TlExpr *e,
                               const ShpArg *args)
{
    GenArg *a = arena_alloc(c->a, (size_t)(k->ninputs + 1) * sizeof *a);
    TlDType *ex = arena_alloc(c->a, (size_t)(k->ntvars + 1) * sizeof *ex);
    TlDType *tb = arena_alloc(c->a, (size_t)(k->ntvars + 1) * sizeof *tb);
    int *pb = arena_alloc(c->a, (size_t)(k->npacks + 1) * sizeof *pb);

    if (gen_explicit(c, k, e->b, NULL, ex) < 0)
        return NULL;
    if (!k->generic)
        return k;
    if (!k->ok)
        return NULL;    /* its errors are reported at the kernel */
    for (int i = 0; i < k->ninputs; i++) {
        a[i].dtype = args[i].dtype;
        a[i].rank = args[i].rank;
        a[i].loc = args[i].expr ? args[i].expr->loc : e->loc;
    }
    if (gen_bind(c, k, a, ex, e->loc, 0, tb, pb) < 0)
        return NULL;
    return gen_instance(c, k, tb, pb, e->loc);
}

TlKernelInfo *tl_instantiate_with(TlSession *s, TlKernelInfo *g,
                                  const TlDType *dtypes, const int *ranks,
                                  const TlDType *tvars, TlLoc where)
{
    Kern *gk = g ? g->priv : NULL;
    TlKernelInfo *volatile r = NULL;
    jmp_buf boundary;
    jmp_buf *outer = s->fatal;
    TlVec stack = {0};
    int next_id = 1 << 20;
    Chk c;

    if (!g || !g->generic)
        return g;
    if (!gk || !g->ok || !gk->def_top)
        return NULL;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.a = &s->arena;
    c.next_id = &next_id;
    c.stack = &stack;
    c.top = gk->def_top;
    c.module = g->module;
    /* The error cap ends the instance's check, not the caller. */
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        GenArg *a = arena_alloc(c.a, (size_t)(g->ninputs + 1) * sizeof *a);
        TlDType *tb = arena_alloc(c.a, (size_t)(g->ntvars + 1) *
                                           sizeof *tb);
        int *pb = arena_alloc(c.a, (size_t)(g->npacks + 1) * sizeof *pb);
        for (int i = 0; i < g->ninputs; i++) {
            a[i].dtype = dtypes[i];
            a[i].rank = ranks[i];
            a[i].loc = where;
        }
        if (gen_bind(&c, g, a, tvars, where, 0, tb, pb) == 0)
            r = gen_instance(&c, g, tb, pb, where);
    }
    s->fatal = outer;
    return r;
}

TlKernelInfo *tl_instantiate(TlSession *s, TlKernelInfo *g,
                             const TlDType *dtypes, const int *ranks,
                             TlLoc where)
{
    return tl_instantiate_with(s, g, dtypes, ranks, NULL, where);
}

/* ====================================================================
 * Schedules
 * ==================================================================== */

void gen_schedule_added(Chk *c, TlKernelInfo *g, TlSchedInfo *si, int bad)
{
    Kern *gk = g->priv;

    if (bad) {
        vec_push(c->a, &gk->bad_scheds, si);
        return;
    }
    for (int i = 0; i < g->ninstances; i++) {
        TlKernelInfo *inst = g->instances[i];
        Kern *ik = inst->priv;
        int nerr = c->s->nerrors;
        sck_instance(c, si, inst);
        if (c->s->nerrors != nerr)
            diag_note(c->s, ik->made_at, "in '%s' instantiated here",
                      inst->name);
    }
}
