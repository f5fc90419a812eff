/*
 * checkgeneric.c - what a generic kernel is without a binding (SPEC
 * 6.7): its dtype variables and their kinds, its shape packs, the
 * misuses of packs, and the binding of dtype variables and packs at a
 * call from the arguments' dtypes and ranks and the call's explicit
 * dtype arguments.  Instances are made in checkinst.c.
 */
#include "lang/lang_int.h"

#include <string.h>

/* ====================================================================
 * Dtype variables
 * ==================================================================== */

/* The dtypes of one kind alternative as a mask of (1u << dtype); 0 for
 * a name that is no kind. */
static unsigned kind_mask(const char *name)
{
    unsigned m = 0;
    TlDType d;

    if (!name)
        return 0;
    if ((d = dt_from_name(name, strlen(name))) != DT_NONE)
        return 1u << d;
    for (int t = DT_NONE + 1; t < DT__COUNT; t++) {
        int fl = dt_is_float((TlDType)t), in = dt_is_int((TlDType)t);
        if (!strcmp(name, "any") || (!strcmp(name, "float") && fl) ||
            (!strcmp(name, "int") && in) ||
            (!strcmp(name, "num") && (fl || in)))
            m |= 1u << t;
    }
    return m;
}

/* "f16, bf16, f32 and f64": the dtypes of mask m, in the arena. */
static const char *mask_text(Chk *c, unsigned m)
{
    TlBuf b;
    const char *r;
    int n = 0, total = 0;

    for (int t = DT_NONE + 1; t < DT__COUNT; t++)
        total += (m >> t) & 1;
    buf_init(&b);
    for (int t = DT_NONE + 1; t < DT__COUNT; t++) {
        if (!((m >> t) & 1))
            continue;
        n++;
        buf_printf(&b, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
                   dt_name((TlDType)t));
    }
    r = arena_strdup(c->a, b.s ? b.s : "nothing");
    buf_free(&b);
    return r;
}

int gen_is_generic(const TlItem *it)
{
    const TlParamList *l[2] = {&it->params, &it->outputs};

    if (it->tparams.n)
        return 1;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < l[k]->n; i++)
            for (int j = 0; j < l[k]->v[i].shape.n; j++) {
                const TlExpr *e = l[k]->v[i].shape.v[j];
                if (e && e->kind == EX_NAME && e->ival)
                    return 1;
            }
    return 0;
}

void gen_header(Kern *kc)
{
    Chk *c = kc->c;
    TlKernelInfo *k = kc->k;
    TlItem *it = k->item;
    int nent = 0;

    kc->generic = 1;
    k->generic = 1;
    for (int i = 0; i < it->params.n; i++)
        nent += it->params.v[i].shape.n;
    k->packs = arena_alloc(c->a, (size_t)(nent + 1) * sizeof *k->packs);
    k->tvars = arena_alloc(c->a, (size_t)(it->tparams.n + 1) *
                                     sizeof *k->tvars);
    for (int i = 0; i < it->tparams.n; i++) {
        TlTypeParam *t = &it->tparams.v[i];
        ScopeEnt *prev;
        TlTypeVar *v;
        TlBuf b;
        if (!t->name)
            continue;
        if ((prev = rsv_here(kc->scope, t->name))) {
            diag_error(c->s, t->loc, DIAG_DUPLICATE_PARAM, t->name, k->name);
            diag_note(c->s, prev->loc, "'%s' is first declared here",
                      t->name);
            continue;
        }
        v = arena_alloc(c->a, sizeof *v);
        v->ref = REF_TYPEVAR;
        v->name = t->name;
        v->loc = t->loc;
        v->num = k->ntvars;
        buf_init(&b);
        for (int j = 0; j < t->kinds.n; j++) {
            TlIdent *id = &t->kinds.v[j];
            unsigned m = kind_mask(id->name);
            if (!m) {
                diag_error(c->s, id->loc, DIAG_UNKNOWN_KIND,
                           id->name ? id->name : "?");
                diag_hint(c->s, "the kinds are any, float, int and num; a "
                                "dtype is a kind of its own, and '|' joins "
                                "kinds: %s: f32 | f64", t->name);
            }
            v->kinds |= m;
            buf_printf(&b, "%s%s", j ? " | " : "", id->name ? id->name : "?");
        }
        if (!v->kinds)
            v->kinds = kind_mask("any");    /* reported; no cascade */
        v->kind_text = arena_strdup(c->a, b.s ? b.s : "");
        buf_free(&b);
        k->tvars[k->ntvars++] = v;
        rsv_add(c, kc->scope, t->name, v, t->loc);
    }
}

TlDType gen_param_dtype(Kern *kc, TlParam *p, TlFunc *f)
{
    Chk *c = kc->c;
    ScopeEnt *e;
    TlTypeVar *v;

    if (!p->dtype_var)
        return p->dtype;
    e = rsv_here(kc->scope, p->dtype_var);
    if (!e || tl_ref_kind(e->sym) != REF_TYPEVAR) {
        diag_error(c->s, p->type_loc, DIAG_UNKNOWN_DTYPE, p->dtype_var);
        if (kc->k->ntvars) {
            TlBuf b;
            buf_init(&b);
            for (int i = 0; i < kc->k->ntvars; i++)
                buf_printf(&b, "%s'%s'", i ? ", " : "",
                           kc->k->tvars[i]->name);
            diag_hint(c->s, "the dtype variables of '%s' are %s",
                      kc->k->name, b.s);
            buf_free(&b);
        } else {
            diag_hint(c->s, "declare dtype variables after the kernel's "
                            "name: kernel %s<%s: float>(...)",
                      kc->k->name, p->dtype_var);
        }
        return DT_NONE;
    }
    v = e->sym;
    if (f && !v->bound_by)
        v->bound_by = f;
    return DT_NONE;
}

/* ====================================================================
 * Packs
 * ==================================================================== */

void gen_shape_pack(Kern *kc, TlExpr *e, TlFunc *f)
{
    Chk *c = kc->c;
    TlKernelInfo *k = kc->k;
    ScopeEnt *ent;
    TlVar *v;

    if (!e->str)
        return;
    ent = rsv_here(kc->scope, e->str);
    if (!ent) {
        if (!f) {
            diag_error(c->s, e->loc, DIAG_PACK_NOT_BOUND, e->str, k->name);
            diag_hint(c->s, "a pack takes its length from an argument: "
                            "write ..%s in the shape of a tensor "
                            "parameter", e->str);
            return;
        }
        v = chk_var(c, VAR_SIZE, e->str, e->loc);
        v->pack = 1;
        v->kernel = k;
        v->bound_by = f;
        v->bound_axis = -1;
        v->num = k->npacks;
        k->packs[k->npacks++] = v;
        rsv_add(c, kc->scope, e->str, v, e->loc);
        e->sym = v;
        return;
    }
    v = ent->sym;
    if (tl_ref_kind(v) == REF_VAR && v->kind == VAR_SIZE && v->pack) {
        e->sym = v;
        return;
    }
    diag_error(c->s, e->loc, DIAG_NOT_A_PACK, e->str, "a shape pack", e->str,
               rsv_what(ent->sym));
    diag_note(c->s, ent->loc, "'%s' is declared here", e->str);
}

void gen_not_index_pack(Chk *c, TlExpr *e, void *sym)
{
    if (!sym) {
        diag_error(c->s, e->loc, DIAG_UNKNOWN_NAME, e->str ? e->str : "?");
        return;
    }
    diag_error(c->s, e->loc, DIAG_NOT_A_PACK, e->str, "an index pack",
               e->str, rsv_what(sym));
    diag_hint(c->s, "an index pack is introduced on the stage's left "
                    "side: Y[..i] = X[..i]");
}

void gen_pack_bare(Chk *c, TlLoc loc, const TlVar *v)
{
    if (v->kind == VAR_SIZE)
        diag_error(c->s, loc, DIAG_PACK_NOT_EXPANDED, v->name, "sizes",
                   v->name, "a shape");
    else
        diag_error(c->s, loc, DIAG_PACK_NOT_EXPANDED, v->name,
                   "index variables", v->name, "an index list");
    diag_note(c->s, v->loc, "'%s' is introduced here", v->name);
}

void gen_finish(Kern *kc)
{
    TlKernelInfo *k = kc->k;

    /* Sizes, stages and calls of a generic kernel depend on the
     * binding: only its instances have them. */
    k->nsizes = 0;
    k->funcs = NULL;
    k->nfuncs = 0;
    k->calls = NULL;
    k->ncalls = 0;
    k->consts = NULL;
    k->nconsts = 0;
}

/* ====================================================================
 * Binding
 * ==================================================================== */

static int tvar_at(const TlKernelInfo *g, const char *name)
{
    for (int i = 0; name && i < g->ntvars; i++)
        if (!strcmp(g->tvars[i]->name, name))
            return i;
    return -1;
}

/* The pack in parameter p's shape: its index in g->packs, or -1. */
static int pack_of(const TlKernelInfo *g, const TlParam *p)
{
    for (int j = 0; j < p->shape.n; j++) {
        const TlExpr *e = p->shape.v[j];
        if (e && e->kind == EX_NAME && e->ival)
            for (int q = 0; q < g->npacks; q++)
                if (e->str && !strcmp(g->packs[q]->name, e->str))
                    return q;
    }
    return -1;
}

void gen_tensor_args(TlKernelInfo *g, TlExpr *e, TlExpr **out)
{
    int pos = 0;

    for (int i = 0; i < g->ninputs; i++)
        out[i] = NULL;
    for (int i = 0; e && i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (!x)
            continue;
        if (x->kind != EX_NAMED) {
            if (pos < g->ninputs)
                out[pos] = x;
            pos++;
            continue;
        }
        for (int j = 0; j < g->ninputs; j++)
            if (x->str && !strcmp(g->inputs[j]->name, x->str))
                out[j] = x->a;
    }
}

/* Binds the packs of g from the ranks of a[] (-1 unknown) into pb[]
 * (-1 unbound).  Returns 0, -1 when a rank that matters is unknown, or
 * -2 after reporting (when report is set; else quietly) a rank too
 * small or two lengths of one pack. */
static int bind_packs(Chk *c, TlKernelInfo *g, const GenArg *a, int report,
                      int *pb)
{
    const char **from = arena_alloc(c->a, (size_t)(g->npacks + 1) *
                                              sizeof *from);
    int r = 0;

    for (int q = 0; q < g->npacks; q++)
        pb[q] = -1;
    for (int i = 0; i < g->ninputs; i++) {
        TlParam *p = g->inputs[i]->param;
        int q = pack_of(g, p), len;
        if (q < 0)
            continue;
        if (a[i].rank < 0) {
            r = r ? r : -1;
            continue;
        }
        len = a[i].rank - (p->shape.n - 1);
        if (len < 0) {
            if (report) {
                diag_error(c->s, a[i].loc, DIAG_KERNEL_ARG_MIN_RANK, p->name,
                           g->name, a[i].rank, p->shape.n - 1);
                diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            }
            r = -2;
        } else if (pb[q] < 0) {
            pb[q] = len;
            from[q] = p->name;
        } else if (pb[q] != len) {
            if (report) {
                diag_error(c->s, a[i].loc, DIAG_PACK_LENGTH,
                           g->packs[q]->name, g->name, pb[q],
                           pb[q] == 1 ? "axis" : "axes", from[q], len,
                           p->name);
                diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            }
            r = -2;
        }
    }
    return r;
}

int gen_out_ranks(Chk *c, TlKernelInfo *g, const int *in,
                  TlExpr *const *x, int report, int *out)
{
    GenArg *a = arena_alloc(c->a, (size_t)(g->ninputs + 1) * sizeof *a);
    int *pb = arena_alloc(c->a, (size_t)(g->npacks + 1) * sizeof *pb);
    int r;

    for (int i = 0; i < g->ninputs; i++) {
        a[i].dtype = DT_NONE;
        a[i].rank = in[i];
        a[i].loc = x && x[i] ? x[i]->loc : g->item->name_loc;
    }
    r = bind_packs(c, g, a, report, pb);
    if (r < 0)
        return r;
    for (int i = 0; i < g->noutputs; i++) {
        TlParam *p = g->outputs[i]->param;
        int q = pack_of(g, p);
        out[i] = p->shape.n + (q >= 0 ? pb[q] - 1 : 0);
    }
    return 0;
}

void gen_set_rank(Chk *c, TlFunc *f, int rank)
{
    f->rank = rank;
    f->axes = arena_alloc(c->a, (size_t)(rank + 1) * sizeof *f->axes);
}

/* What gave a dtype variable its dtype, for messages. */
static const char *source(Chk *c, const char *param)
{
    return param ? arena_printf(c->a, "'%s'", param) : "the dtype arguments";
}

int gen_bind(Chk *c, TlKernelInfo *g, const GenArg *a, const TlDType *ex,
             TlLoc where, int unknown_ok, TlDType *tb, int *pb)
{
    const char **from = arena_alloc(c->a, (size_t)(g->ntvars + 1) *
                                              sizeof *from);
    TlLoc *at = arena_alloc(c->a, (size_t)(g->ntvars + 1) * sizeof *at);
    int r = 0, unknown = 0;

    /* What the checker does not know of an argument, where it matters:
     * inside kernels that follows an error; at the top level it is a
     * load without a declared type. */
    for (int i = 0; i < g->ninputs; i++) {
        TlParam *p = g->inputs[i]->param;
        if (!((tvar_at(g, p->dtype_var) >= 0 && a[i].dtype == DT_NONE) ||
              (pack_of(g, p) >= 0 && a[i].rank < 0)))
            continue;
        unknown = 1;
        if (!unknown_ok) {
            diag_error(c->s, a[i].loc, DIAG_GENERIC_ARG_UNKNOWN, g->name,
                       p->name);
            diag_hint(c->s, "bind the value with its type first: "
                            "let x: f32[4, 5] = load(...)");
        }
    }
    if (unknown)
        return -1;
    if (bind_packs(c, g, a, 1, pb) < 0)
        r = -1;
    for (int t = 0; t < g->ntvars; t++) {
        tb[t] = ex ? ex[t] : DT_NONE;
        from[t] = NULL;
        at[t] = where;
    }
    for (int i = 0; i < g->ninputs; i++) {
        TlParam *p = g->inputs[i]->param;
        int t = tvar_at(g, p->dtype_var);
        if (t < 0)
            continue;
        if (tb[t] == DT_NONE) {
            tb[t] = a[i].dtype;
            from[t] = p->name;
            at[t] = a[i].loc;
        } else if (tb[t] != a[i].dtype) {
            diag_error(c->s, a[i].loc, DIAG_DTYPE_CONFLICT, g->tvars[t]->name,
                       g->name, dt_name(tb[t]), source(c, from[t]),
                       dt_name(a[i].dtype), source(c, p->name));
            diag_note(c->s, p->loc, "'%s' is declared here", p->name);
            r = -1;
        }
    }
    for (int t = 0; t < g->ntvars; t++) {
        TlTypeVar *v = g->tvars[t];
        if (tb[t] == DT_NONE) {
            diag_error(c->s, where, DIAG_DTYPE_UNBOUND, v->name, g->name);
            diag_note(c->s, v->loc, "'%s' is declared here", v->name);
            diag_hint(c->s, "no tensor parameter has it as its dtype: give "
                            "it at the call, as in %s<f32>(...)", g->name);
            r = -1;
        } else if (!((v->kinds >> tb[t]) & 1)) {
            diag_error(c->s, at[t], DIAG_DTYPE_KIND,
                       from[t] ? arena_printf(c->a, "argument '%s'", from[t])
                               : "the dtype argument",
                       g->name, dt_name(tb[t]), v->name, v->kind_text);
            diag_hint(c->s, "'%s: %s' allows %s", v->name, v->kind_text,
                      mask_text(c, v->kinds));
            r = -1;
        }
    }
    return r < 0 ? -1 : 0;
}

/* ====================================================================
 * Explicit dtype arguments
 * ==================================================================== */

/* "1 dtype argument (U) or 2 (T, U)": what g accepts. */
static const char *targs_text(Chk *c, const TlKernelInfo *g, int nfree)
{
    TlBuf all, fr;
    const char *r;

    buf_init(&all);
    buf_init(&fr);
    for (int t = 0; t < g->ntvars; t++) {
        buf_printf(&all, "%s%s", t ? ", " : "", g->tvars[t]->name);
        if (!g->tvars[t]->bound_by)
            buf_printf(&fr, "%s%s", fr.len ? ", " : "", g->tvars[t]->name);
    }
    if (nfree == g->ntvars)
        r = arena_printf(c->a, "%d dtype argument%s (%s)", g->ntvars,
                         g->ntvars == 1 ? "" : "s", all.s ? all.s : "");
    else if (nfree == 0)
        r = arena_printf(c->a, "no dtype arguments or %d (%s)", g->ntvars,
                         all.s ? all.s : "");
    else
        r = arena_printf(c->a, "%d dtype argument%s (%s) or %d (%s)", nfree,
                         nfree == 1 ? "" : "s", fr.s, g->ntvars, all.s);
    buf_free(&all);
    buf_free(&fr);
    return r;
}

int gen_explicit(Chk *c, TlKernelInfo *g, const TlExpr *b, Scope *sc,
                 TlDType *ex)
{
    int n = b ? b->args.n : 0, nfree = 0, all, j = 0, r = 0;

    for (int t = 0; t < g->ntvars; t++) {
        ex[t] = DT_NONE;
        nfree += !g->tvars[t]->bound_by;
    }
    if (!b)
        return 0;
    if (!g->generic) {
        diag_error(c->s, b->loc, DIAG_NOT_GENERIC, g->name);
        return -1;
    }
    if (n != g->ntvars && n != nfree) {
        diag_error(c->s, b->loc, DIAG_DTYPE_ARG_COUNT, g->name,
                   targs_text(c, g, nfree), n, n == 1 ? "was" : "were");
        return -1;
    }
    all = n == g->ntvars;
    for (int t = 0; t < g->ntvars; t++) {
        const TlExpr *x;
        ScopeEnt *e;
        if (!all && g->tvars[t]->bound_by)
            continue;
        x = b->args.v[j++];
        if (!x || !x->str)
            continue;
        ex[t] = dt_from_name(x->str, strlen(x->str));
        if (ex[t] != DT_NONE)
            continue;
        e = sc ? rsv_find(sc, x->str) : NULL;
        if (e && tl_ref_kind(e->sym) == REF_TYPEVAR)
            continue;       /* a generic caller's own dtype variable */
        diag_error(c->s, x->loc, DIAG_UNKNOWN_DTYPE, x->str);
        diag_hint(c->s, "the dtypes are %s", mask_text(c, kind_mask("any")));
        r = -1;
    }
    return r;
}

/* ====================================================================
 * Index packs on a left side
 * ==================================================================== */

int gen_stage_packs(Kern *kc, TlStmt *st, TlFunc *f)
{
    Chk *c = kc->c;
    const TlIdent *first = NULL;
    int n = 0;
    TlFunc *g;

    for (int j = 0; j < st->names.n; j++) {
        const TlIdent *id = &st->names.v[j];
        if (!id->pack || !id->name)
            continue;
        if (n++ == 0)
            first = id;
        else
            diag_error(c->s, id->loc, DIAG_TWO_PACKS, id->name, "left side");
    }
    if (n == 0 || (n == 1 && kc->generic))
        return n;
    if (!kc->generic) {
        diag_error(c->s, first->loc, DIAG_PACK_NOT_GENERIC, first->name);
        diag_hint(c->s, "a kernel is generic when it has dtype variables "
                        "or a shape pack: kernel %s<T: float>(X: T[..S])",
                  kc->k->name);
    }
    /* The stage is not checked further; its name stays defined. */
    if (f == &chk_failed_def)
        return -1;
    g = f ? f : chk_func(c, FN_STAGE, st->name, st->name_loc, -1);
    if (!f) {
        g->kernel = kc->k;
        rsv_add(c, kc->scope, st->name, g, st->name_loc);
    }
    g->stmt = st;
    g->dtype = DT_NONE;
    st->sym = g;
    return -1;
}
