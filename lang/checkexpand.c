/*
 * checkexpand.c - the text of an instance (SPEC 6.7): a generic
 * kernel's AST copied under a binding.  A dtype variable becomes its
 * dtype (and `T(x)` a cast), a shape pack `..S` of n axes the size
 * variables `S[0], ..., S[n-1]`, and an index pack `..i` the index
 * variables `i[0], ...` on its stage's left side and in the index lists
 * of the stage's right side.
 *
 * How many variables an index pack stands for is found here, from
 * ranks alone: the rank of the output the stage defines, or of the
 * first tensor read with the pack whose rank is known - parameters,
 * outputs, top-level tensors, stages and bindings, found in any order
 * by going over the body until nothing changes.  Reads with the pack
 * must then give their tensors exactly their rank.
 *
 * The copy carries none of the checker's annotations, so an instance
 * is checked like any kernel.  gen_copy_item copies a schedule the
 * same way, with nothing to bind.
 */
#include "lang/lang_int.h"

#include <string.h>

typedef struct Exp {
    Chk *c;
    TlKernelInfo *g;        /* NULL: a plain copy */
    const TlItem *it;       /* the generic kernel's text */
    const TlDType *tb;      /* the binding */
    const int *pb;
    Scope *top;             /* names outside the kernel */
    int *rank;              /* per body statement: the rank of what a
                             * stage or whole binding defines, -1 not
                             * known (yet); for a call binding, 1 once
                             * brank is filled */
    int **brank;            /* per call binding: the rank of each name */
    int *plen;              /* per stage with an index pack: its length */
    int *failed;            /* per stage: its pack length was an error */
    const char *ipack;      /* the index pack of the stage being copied */
    int ilen;
} Exp;

static int is_pack(const TlExpr *e)
{
    return e && e->kind == EX_NAME && e->ival && e->str;
}

static int tvar_index(const Exp *x, const char *name)
{
    for (int i = 0; x->g && name && i < x->g->ntvars; i++)
        if (!strcmp(x->g->tvars[i]->name, name))
            return i;
    return -1;
}

static int pack_index(const Exp *x, const char *name)
{
    for (int i = 0; x->g && name && i < x->g->npacks; i++)
        if (!strcmp(x->g->packs[i]->name, name))
            return i;
    return -1;
}

/* The index pack of a stage's left side, or NULL. */
static const TlIdent *pack_ident(const TlIdentList *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i].pack && l->v[i].name)
            return &l->v[i];
    return NULL;
}

static const TlParam *find_param(const TlParamList *l, const char *name)
{
    for (int i = 0; name && i < l->n; i++)
        if (l->v[i].name && !strcmp(l->v[i].name, name))
            return &l->v[i];
    return NULL;
}

/* ====================================================================
 * Ranks
 * ==================================================================== */

/* A parameter's or output's rank under the binding. */
static int param_rank(const Exp *x, const TlParam *p)
{
    int r = p->shape.n;

    for (int j = 0; j < p->shape.n; j++)
        if (is_pack(p->shape.v[j])) {
            int q = pack_index(x, p->shape.v[j]->str);
            r += (q >= 0 ? x->pb[q] : 0) - 1;
        }
    return r;
}

/* Is name defined by the kernel itself (so not a top-level name)? */
static int is_local(const Exp *x, const char *name)
{
    const TlItem *it = x->it;

    if (find_param(&it->params, name) || find_param(&it->outputs, name) ||
        find_param(&it->scalars, name) || tvar_index(x, name) >= 0)
        return 1;
    for (int i = 0; i < it->body.n; i++) {
        const TlStmt *st = it->body.v[i];
        if (st && st->kind == ST_STAGE && st->name && !strcmp(st->name, name))
            return 1;
        for (int j = 0; st && st->kind == ST_BIND && j < st->names.n; j++)
            if (st->names.v[j].name && !strcmp(st->names.v[j].name, name))
                return 1;
    }
    return 0;
}

/* The rank of what name reads (-1: not known yet); *tensor is set when
 * it is a tensor. */
static int name_rank(Exp *x, const char *name, int *tensor)
{
    const TlItem *it = x->it;
    const TlParam *p;
    ScopeEnt *ent;

    *tensor = 0;
    if (!name)
        return -1;
    if ((p = find_param(&it->params, name)) ||
        (p = find_param(&it->outputs, name))) {
        *tensor = 1;
        return param_rank(x, p);
    }
    for (int i = 0; i < it->body.n; i++) {
        const TlStmt *st = it->body.v[i];
        if (!st)
            continue;
        if (st->kind == ST_STAGE && st->name && !strcmp(st->name, name)) {
            *tensor = 1;
            return x->rank[i];
        }
        for (int j = 0; st->kind == ST_BIND && j < st->names.n; j++)
            if (st->names.v[j].name && !strcmp(st->names.v[j].name, name)) {
                *tensor = 1;
                return x->brank[i] ? x->brank[i][j] : x->rank[i];
            }
    }
    if (is_local(x, name))
        return 0;               /* a scalar parameter */
    ent = rsv_find(x->top, name);
    if (ent && tl_ref_kind(ent->sym) == REF_LET) {
        TlLet *l = ent->sym;
        chk_let(x->c, l);
        *tensor = l->rank != 0;
        return l->rank;
    }
    return 0;                   /* sizes, and what the check reported */
}

/* The kernel that call e calls, or NULL (a builtin, an extern). */
static TlKernelInfo *callee_of(Exp *x, const TlExpr *e)
{
    const char *name = e && e->kind == EX_CALL ? rsv_dotted(x->c, e->a)
                                               : NULL;
    ScopeEnt *ent;

    if (!name || is_local(x, name))
        return NULL;
    ent = rsv_find(x->top, name);
    return ent && tl_ref_kind(ent->sym) == REF_KERNEL ? ent->sym : NULL;
}

static int expr_rank(Exp *x, const TlExpr *e);

/* The ranks of the outputs of kernel k called by e, into out; -1 while
 * they cannot be told. */
static int call_ranks(Exp *x, TlKernelInfo *k, const TlExpr *e, int *out)
{
    TlArena *a = x->c->a;
    TlExpr **xs;
    int *in;

    if (!k->generic) {
        for (int i = 0; i < k->noutputs; i++)
            out[i] = k->outputs[i]->rank;
        return 0;
    }
    xs = arena_alloc(a, (size_t)(k->ninputs + 1) * sizeof *xs);
    in = arena_alloc(a, (size_t)(k->ninputs + 1) * sizeof *in);
    gen_tensor_args(k, (TlExpr *)e, xs);
    for (int i = 0; i < k->ninputs; i++)
        if ((in[i] = xs[i] ? expr_rank(x, xs[i]) : -1) < 0)
            return -1;
    return gen_out_ranks(x->c, k, in, xs, 0, out) == 0 ? 0 : -1;
}

/* The rank of a whole-tensor expression or a call argument; -1 while
 * it cannot be told. */
static int expr_rank(Exp *x, const TlExpr *e)
{
    TlKernelInfo *k;
    int t, r = 0, a, b;

    if (!e)
        return -1;
    switch (e->kind) {
    case EX_NAME:
        return name_rank(x, e->str, &t);
    case EX_NAMED:
        return expr_rank(x, e->a);
    case EX_CALL:
        if ((k = callee_of(x, e))) {
            int *out = arena_alloc(x->c->a, (size_t)(k->noutputs + 1) *
                                                sizeof *out);
            return k->noutputs && call_ranks(x, k, e, out) == 0 ? out[0]
                                                                : -1;
        }
        for (int i = 0; i < e->args.n; i++) {
            if ((a = expr_rank(x, e->args.v[i])) < 0)
                return -1;
            r = a > r ? a : r;
        }
        return r;
    case EX_UNARY:
    case EX_CAST:
        return expr_rank(x, e->a);
    case EX_BINARY:
        a = expr_rank(x, e->a);
        b = expr_rank(x, e->b);
        return a < 0 || b < 0 ? -1 : a > b ? a : b;
    default:
        return 0;
    }
}

/* Does index list e hold `..pack`? */
static int reads_pack(const TlExpr *e, const char *pack)
{
    for (int i = 0; i < e->args.n; i++)
        if (is_pack(e->args.v[i]) && !strcmp(e->args.v[i]->str, pack))
            return 1;
    return 0;
}

/* The tensor an index expression reads (through `.zero_pad`). */
static const char *read_base(const TlExpr *e)
{
    const TlExpr *b = e->a && e->a->kind == EX_MEMBER ? e->a->a : e->a;
    return b && b->kind == EX_NAME ? b->str : NULL;
}

/* The first read (left to right) of e with `..pack` whose tensor's rank
 * is known: *len is what that leaves the pack, *at the read. */
static int find_read(Exp *x, const TlExpr *e, const char *pack, int *len,
                     const TlExpr **at)
{
    const TlExpr *kids[3];

    if (!e)
        return 0;
    if (e->kind == EX_INDEX && reads_pack(e, pack)) {
        int t, r = name_rank(x, read_base(e), &t);
        if (r >= 0 && t) {
            *len = r - (e->args.n - 1);
            *at = e;
            return 1;
        }
    }
    kids[0] = e->a;
    kids[1] = e->b;
    kids[2] = e->c;
    for (int i = 0; i < 3; i++)
        if (find_read(x, kids[i], pack, len, at))
            return 1;
    for (int i = 0; i < e->args.n; i++)
        if (find_read(x, e->args.v[i], pack, len, at))
            return 1;
    return 0;
}

/* Every read of e with `..pack` (len axes) must give its tensor its
 * rank; returns 0 after reporting one that does not. */
static int check_reads(Exp *x, const TlExpr *e, const char *pack, int len)
{
    const TlExpr *kids[3];
    int ok = 1;

    if (!e)
        return 1;
    if (e->kind == EX_INDEX && reads_pack(e, pack)) {
        int t, r = name_rank(x, read_base(e), &t);
        int n = len + e->args.n - 1;
        if (r >= 0 && t && r != n) {
            diag_error(x->c->s, e->loc, DIAG_PACK_INDEX_COUNT, read_base(e),
                       r, n, n == 1 ? "index is" : "indices are", pack, len,
                       len == 1 ? "axis" : "axes");
            ok = 0;
        }
    }
    kids[0] = e->a;
    kids[1] = e->b;
    kids[2] = e->c;
    for (int i = 0; i < 3; i++)
        ok &= check_reads(x, kids[i], pack, len);
    for (int i = 0; i < e->args.n; i++)
        ok &= check_reads(x, e->args.v[i], pack, len);
    return ok;
}

/* The length of stage i's index pack, if it can be told now: 1 and
 * plen set, 0 not yet, -1 after an error. */
static int pack_length(Exp *x, int i)
{
    const TlStmt *st = x->it->body.v[i];
    const TlIdent *id = pack_ident(&st->names);
    const TlParam *o = find_param(&x->it->outputs, st->name);
    const TlExpr *at = NULL;
    const char *what = st->name;
    int other = st->names.n - 1, len, r;

    if (o) {
        r = param_rank(x, o);
        len = r - other;
    } else if (find_read(x, st->value, id->name, &len, &at)) {
        what = read_base(at);
        other = at->args.n - 1;
        r = len + other;
    } else {
        return 0;
    }
    if (len < 0) {
        diag_error(x->c->s, at ? at->loc : id->loc, DIAG_PACK_INDEX_RANK,
                   what, r, other, other == 1 ? "index" : "indices",
                   id->name);
        return -1;
    }
    x->plen[i] = len;
    x->rank[i] = st->names.n - 1 + len;
    return 1;
}

/* Fixes the length of every index pack of the body; 0 after errors. */
static int fix_packs(Exp *x)
{
    const TlItem *it = x->it;
    TlArena *a = x->c->a;
    int n = it->body.n, progress = 1, ok = 1;

    x->rank = arena_alloc(a, (size_t)(n + 1) * sizeof *x->rank);
    x->brank = arena_alloc(a, (size_t)(n + 1) * sizeof *x->brank);
    x->plen = arena_alloc(a, (size_t)(n + 1) * sizeof *x->plen);
    x->failed = arena_alloc(a, (size_t)(n + 1) * sizeof *x->failed);
    for (int i = 0; i < n; i++) {
        const TlStmt *st = it->body.v[i];
        x->rank[i] = x->plen[i] = -1;
        if (!st)
            continue;
        if (st->kind == ST_STAGE && !pack_ident(&st->names))
            x->rank[i] = st->names.n;
        if (st->kind == ST_BIND && callee_of(x, st->value)) {
            x->brank[i] = arena_alloc(a, (size_t)(st->names.n + 1) *
                                             sizeof **x->brank);
            for (int j = 0; j < st->names.n; j++)
                x->brank[i][j] = -1;
        }
    }
    while (progress) {
        progress = 0;
        for (int i = 0; i < n; i++) {
            const TlStmt *st = it->body.v[i];
            if (!st || x->rank[i] >= 0 || x->failed[i])
                continue;
            if (st->kind == ST_STAGE) {
                int r = pack_length(x, i);
                if (r < 0) {
                    x->failed[i] = 1;
                    ok = 0;
                }
                progress |= r != 0;
            } else if (st->kind == ST_BIND && x->brank[i]) {
                TlKernelInfo *k = callee_of(x, st->value);
                int *out = arena_alloc(a, (size_t)(k->noutputs + 1) *
                                              sizeof *out);
                if (call_ranks(x, k, st->value, out) < 0)
                    continue;
                for (int j = 0; j < st->names.n && j < k->noutputs; j++)
                    x->brank[i][j] = out[j];
                x->rank[i] = 1;
                progress = 1;
            } else if (st->kind == ST_BIND && st->names.n == 1) {
                x->rank[i] = expr_rank(x, st->value);
                progress |= x->rank[i] >= 0;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        const TlStmt *st = it->body.v[i];
        const TlIdent *id = st && st->kind == ST_STAGE
                                ? pack_ident(&st->names) : NULL;
        if (!id || x->failed[i])
            continue;
        if (x->plen[i] < 0) {
            diag_error(x->c->s, id->loc, DIAG_PACK_LENGTH_UNKNOWN, id->name,
                       st->name);
            diag_hint(x->c->s, "read a parameter with it, as in "
                               "X[..%s], or make '%s' an output",
                       id->name, st->name);
            ok = 0;
        } else if (!check_reads(x, st->value, id->name, x->plen[i])) {
            ok = 0;
        }
    }
    return ok;
}

/* ====================================================================
 * Copying
 * ==================================================================== */

static TlExpr *cp(Exp *x, const TlExpr *e);

/* Copies list in into out.  Packs are spliced: in a shape (shape set)
 * a shape pack, in an index list the stage's index pack. */
static void cp_list(Exp *x, TlExprList *out, const TlExprList *in, int shape)
{
    TlSession *s = x->c->s;

    for (int i = 0; i < in->n; i++) {
        const TlExpr *e = in->v[i];
        int n = -1;
        if (x->g && is_pack(e)) {
            if (shape) {
                int q = pack_index(x, e->str);
                n = q >= 0 ? x->pb[q] : -1;
            } else if (x->ipack && !strcmp(e->str, x->ipack)) {
                n = x->ilen;
            }
        }
        if (n < 0) {
            ast_push_expr(s, out, cp(x, e));
            continue;
        }
        for (int k = 0; k < n; k++)
            ast_push_expr(s, out, ast_name(s, e->loc,
                                           arena_printf(&s->arena, "%s[%d]",
                                                        e->str, k)));
    }
}

static TlExpr *cp(Exp *x, const TlExpr *e)
{
    TlExpr *n;
    int t;

    /* Conversions the checker inserted are not part of the text. */
    while (e && e->kind == EX_CAST && e->ival == 1)
        e = e->a;
    if (!e)
        return NULL;
    n = ast_expr(x->c->s, e->kind, e->loc);
    *n = *e;
    n->args.v = NULL;
    n->args.n = n->args.cap = 0;
    n->sym = NULL;
    n->rank = -1;
    if (e->kind != EX_CAST)
        n->dtype = DT_NONE;
    n->a = cp(x, e->a);
    n->b = cp(x, e->b);
    n->c = cp(x, e->c);
    if (e->kind == EX_CALL && !e->b && e->a && e->a->kind == EX_NAME &&
        (t = tvar_index(x, e->a->str)) >= 0) {
        /* `T(e)`: a cast to T's dtype. */
        n->kind = EX_CAST;
        n->dtype = x->tb[t];
        n->a = e->args.n ? cp(x, e->args.v[0]) : NULL;
        n->b = NULL;
        return n;
    }
    if (e->kind == EX_CALL && n->b)
        for (int i = 0; i < n->b->args.n; i++) {
            TlExpr *d = n->b->args.v[i];
            if (d && (t = tvar_index(x, d->str)) >= 0)
                d->str = dt_name(x->tb[t]);
        }
    cp_list(x, &n->args, &e->args, 0);
    return n;
}

static TlParamList cp_params(Exp *x, const TlParamList *l)
{
    TlParamList out = {0};

    for (int i = 0; i < l->n; i++) {
        TlParam p = l->v[i];
        int t = tvar_index(x, p.dtype_var);
        if (t >= 0) {
            p.dtype = x->tb[t];
            p.dtype_var = NULL;
        }
        p.shape = (TlExprList){0};
        cp_list(x, &p.shape, &l->v[i].shape, 1);
        p.init = cp(x, p.init);
        ast_push_param(x->c->s, &out, &p);
    }
    return out;
}

/* Statement i of the body (i < 0: of a schedule). */
static TlStmt *cp_stmt(Exp *x, const TlStmt *st, int i)
{
    TlSession *s = x->c->s;
    TlStmt *n = ast_stmt(s, st->kind, st->loc);

    *n = *st;
    n->sym = NULL;
    n->names = (TlIdentList){0};
    n->dirs = (TlDirectiveList){0};
    x->ipack = NULL;
    for (int j = 0; j < st->names.n; j++) {
        const TlIdent *id = &st->names.v[j];
        if (id->pack && x->g && i >= 0 && x->plen[i] >= 0) {
            x->ipack = id->name;
            x->ilen = x->plen[i];
            for (int k = 0; k < x->ilen; k++)
                ast_push_ident(s, &n->names,
                               arena_printf(&s->arena, "%s[%d]", id->name, k),
                               id->loc);
            continue;
        }
        ast_push_ident(s, &n->names, id->name, id->loc);
        n->names.v[n->names.n - 1].lo = cp(x, id->lo);
        n->names.v[n->names.n - 1].hi = cp(x, id->hi);
    }
    n->value = cp(x, st->value);
    for (int j = 0; j < st->dirs.n; j++) {
        TlDirective d = st->dirs.v[j];
        d.args = (TlExprList){0};
        cp_list(x, &d.args, &st->dirs.v[j].args, 0);
        ast_push_directive(s, &n->dirs, &d);
    }
    x->ipack = NULL;
    return n;
}

TlItem *gen_expand(Chk *c, TlKernelInfo *g, const TlDType *tb, const int *pb,
                   const char *name)
{
    Kern *gk = g->priv;
    const TlItem *from = g->item;
    TlItem *it;
    Exp x;

    memset(&x, 0, sizeof x);
    x.c = c;
    x.g = g;
    x.it = from;
    x.tb = tb;
    x.pb = pb;
    x.top = gk->def_top;
    if (!fix_packs(&x))
        return NULL;
    it = ast_item(c->s, IT_KERNEL, from->loc);
    *it = *from;
    it->name = name;
    it->sym = NULL;
    it->tparams = (TlTypeParamList){0};
    it->params = cp_params(&x, &from->params);
    it->scalars = cp_params(&x, &from->scalars);
    it->outputs = cp_params(&x, &from->outputs);
    it->body = (TlStmtList){0};
    for (int i = 0; i < from->body.n; i++)
        if (from->body.v[i])
            ast_push_stmt(c->s, &it->body, cp_stmt(&x, from->body.v[i], i));
    return it;
}

TlItem *gen_copy_item(Chk *c, const TlItem *from)
{
    TlItem *it = ast_item(c->s, from->kind, from->loc);
    Exp x;

    memset(&x, 0, sizeof x);
    x.c = c;
    *it = *from;
    it->sym = NULL;
    it->body = (TlStmtList){0};
    for (int i = 0; i < from->body.n; i++)
        if (from->body.v[i])
            ast_push_stmt(c->s, &it->body, cp_stmt(&x, from->body.v[i], -1));
    return it;
}
