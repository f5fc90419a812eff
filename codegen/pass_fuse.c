/*
 * pass_fuse.c - producer-consumer loop fusion.  A serial loop that
 * stores into a buffer, followed in its block by a serial loop over
 * the same range that reads it (a stage computed at a loop and the
 * reduction over it computed at the same loop: softmax's exp and sum
 * rows), becomes one loop running both bodies in turn:
 *
 *   for i in 0 .. 64 {                 alloc s: f32[1] on heap
 *     e[i] = exp(X[i])                 s[0] = 0.0
 *   }                                  for i in 0 .. 64 {
 *   alloc s: f32[1] on heap    ==>       e[i] = exp(X[i])
 *   s[0] = 0.0                           s[0] = s[0] + e[i]
 *   for j in 0 .. 64 {                 }
 *     s[0] = s[0] + e[j]
 *   }
 *
 * Why: the sum's chain of dependent additions then runs under the
 * producer's arithmetic instead of after it, and e's row is read while
 * it is still in L1 (softmax 4096x1024: 1.625 -> 1.50 ms by hand,
 * bench/README.md 2026-11-28).
 *
 * The statements between the two loops (the consumer's allocation and
 * zeroing), and those before the consumer's loop in a block around it
 * (a register accumulator's allocation and load, pass_accum.c) move
 * before the producer's loop; what follows the consumer's loop in that
 * block stays after the fused loop.  The producer's loop may sit in
 * blocks of lets (pass_hoist.c's).  Every statement keeps its order
 * relative to the others that touch the same memory, so the result is
 * the same bit for bit:
 * - what moves does not write anything the producer reads or writes,
 *   nor read anything it writes;
 * - the consumer writes nothing the producer reads or writes;
 * - iteration j of the consumer reads nothing that an iteration i > j
 *   of the producer writes (else fusing would read it too early): for
 *   each store of the producer and load of the consumer of one buffer,
 *   both indices affine in the loop variables, ramp lanes and common
 *   loop-invariant terms, the equation "store index at i = load index
 *   at j" must have no integer solution with i > j (lir_access.c).
 * Buffer parameters may alias one another, so they count as one
 * buffer.  Anything this cannot prove leaves the loops as they are.
 *
 * A loop that pass_hoist.c put under an `if lo < hi` (the loads it
 * hoisted out of the loop, read only when the loop runs) fuses like
 * one without, the guard kept around the fused loop: the guard's
 * condition must be the loop's own range (lo < hi, or hi > lo, maybe
 * through a let, as the second hoist leaves it), so the loop runs no
 * iteration exactly when the guard fails, and a neighbour over the
 * same range, guarded or not, runs none either.  The fused form is
 *
 *   <what moves: as above>
 *   if lo < hi {
 *     <the producer's guarded lets> <the consumer's guarded lets>
 *     for v in lo .. hi { <producer's body> <consumer's body> }
 *   }
 *
 * What moves stays outside the guard (it ran whether or not the loops
 * ran); the consumer's guarded lets (loads) now run before the
 * producer's loop, so they are checked like what moves.  A guard with
 * an else, or with another condition, leaves the loops as they are.
 *
 * TODO(issue 4): there is no cost model.  A softmax with a row scale,
 * e and its sum split alike into chunks of C, fused under the guard:
 * C = 32 (2 vectors each per iteration) 2-7% faster, C = 256 (16 each)
 * 5-15% slower (bench/README.md 2026-11-29).  And loops over ranges
 * that are equal but written differently (a stage's region against
 * its consumer's extent: cpu_fuse.tdsl's sm) are not fused at all.
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

enum { FU_MAX_DECL = 256, FU_MAX_ITEMS = 64 };

/* ---- names ----------------------------------------------------------- */

typedef struct Names {
    const char *name[FU_MAX_DECL];
    int n, over;
} Names;

static int names_stmt(LVisitor *vis, const LStmt *st)
{
    Names *nm = vis->ctx;
    if (st->kind == LS_FOR || st->kind == LS_LET || st->kind == LS_ALLOC) {
        if (nm->n == FU_MAX_DECL)
            nm->over = 1;
        else
            nm->name[nm->n++] = st->var->name;
    }
    return 1;
}

static void declared(Names *nm, const LStmt *st)
{
    LVisitor vis = {nm, NULL, names_stmt};
    lir_visit_stmt(&vis, st);
}

typedef struct Uses {
    const Names *nm;
    int hit;
} Uses;

static int uses_expr(LVisitor *vis, const LExpr *e)
{
    Uses *u = vis->ctx;
    if (e->var)
        for (int i = 0; i < u->nm->n; i++)
            if (!strcmp(u->nm->name[i], e->var->name))
                u->hit = 1;
    return !u->hit;
}

static int uses_stmt(LVisitor *vis, const LStmt *st)
{
    Uses *u = vis->ctx;
    if (st->var)
        for (int i = 0; i < u->nm->n; i++)
            if (!strcmp(u->nm->name[i], st->var->name))
                u->hit = 1;
    return !u->hit;
}

/* Whether st names (uses or defines) any of nm's names. */
static int mentions(const Names *nm, const LStmt *st)
{
    Uses u = {nm, 0};
    LVisitor vis = {&u, uses_expr, uses_stmt};
    lir_visit_stmt(&vis, st);
    return u.hit;
}

/* ---- the rewrite ------------------------------------------------------ */

/* The pass's context: the access analysis, and every let of the
 * function (a guard's condition may be a let's, hoisted out of it).
 * pa, xa and ca are try_fuse's scratch access lists, one set for the
 * whole pass: an LAccs is 330 KB, and taking three from the session's
 * arena (which zeroes them) at every try made the ONNX encoder's
 * lowering hold 95 MB, 10x its run's peak. */
typedef struct Fu {
    LAccCtx acc;
    const LStmt **lets;
    int nlets, cap;
    LAccs *pa, *xa, *ca;
} Fu;

static int collect_let(LVisitor *vis, const LStmt *st)
{
    Fu *fu = vis->ctx;

    if (st->kind != LS_LET)
        return 1;
    if (fu->nlets == fu->cap) {
        int cap = fu->cap ? fu->cap * 2 : 64;
        const LStmt **n = arena_alloc(&fu->acc.s->arena,
                                      (size_t)cap * sizeof *n);
        if (fu->nlets)
            memcpy(n, fu->lets, (size_t)fu->nlets * sizeof *n);
        fu->lets = n;
        fu->cap = cap;
    }
    fu->lets[fu->nlets++] = st;
    return 1;
}

/* The value of the let of v, or NULL (none, or more than one: then
 * the name does not say which). */
static const LExpr *let_value(const Fu *fu, const LVar *v)
{
    const LExpr *val = NULL;

    for (int i = 0; i < fu->nlets; i++)
        if (fu->lets[i]->var == v || !strcmp(fu->lets[i]->var->name,
                                             v->name)) {
            if (val)
                return NULL;
            val = fu->lets[i]->a;
        }
    return val;
}

/* Whether c holds exactly when loop runs an iteration: lo < hi or
 * hi > lo, or a let of that.  Lets and loop variables are bound once,
 * so the same expression means the same value where both are. */
static int is_range_guard(const Fu *fu, const LExpr *c, const LStmt *loop)
{
    for (int depth = 0; c && c->kind == LE_VAR && depth < 4; depth++)
        c = let_value(fu, c->var);
    if (!c || c->kind != LE_BINARY)
        return 0;
    if (c->op == LO_LT)
        return lir_expr_equal(c->a, loop->a) && lir_expr_equal(c->b, loop->b);
    if (c->op == LO_GT)
        return lir_expr_equal(c->a, loop->b) && lir_expr_equal(c->b, loop->a);
    return 0;
}

/* A loop's guard: the `if` and the lets under it before the loop. */
typedef struct Guard {
    const LStmt *ifst;      /* NULL: no guard */
    LStmt *lets[FU_MAX_ITEMS];
    int nlets;
} Guard;

/* Appends the lets of blocks of lets around st to pre; returns what
 * they end with. */
static LStmt *skip_lets(LStmt *st, LStmt **pre, int *npre)
{
    while (st->kind == LS_BLOCK && st->nitems > 0) {
        for (int i = 0; i + 1 < st->nitems; i++) {
            if (st->items[i]->kind != LS_LET || *npre == FU_MAX_ITEMS)
                return NULL;
            pre[(*npre)++] = st->items[i];
        }
        st = st->items[st->nitems - 1];
    }
    return st;
}

/* A serial loop, alone or as the last item of blocks of lets, maybe
 * under its range guard (g, when not NULL: then the guard's lets go
 * to g, the lets outside it to pre). */
static LStmt *lets_loop(const Fu *fu, LStmt *st, LStmt **pre, int *npre,
                        Guard *g)
{
    st = skip_lets(st, pre, npre);
    if (g)
        g->ifst = NULL;
    if (st && st->kind == LS_IF && !st->orelse && g) {
        LStmt *in;
        g->nlets = 0;
        in = skip_lets(st->body, g->lets, &g->nlets);
        if (!in || in->kind != LS_FOR || in->loop != LP_SERIAL ||
            !is_range_guard(fu, st->a, in))
            return NULL;
        g->ifst = st;
        return in;
    }
    return st && st->kind == LS_FOR && st->loop == LP_SERIAL ? st : NULL;
}

static int same_range(const LStmt *a, const LStmt *b)
{
    return lir_expr_equal(a->a, b->a) && lir_expr_equal(a->b, b->b) &&
           lir_type_eq(a->var->type, b->var->type);
}

static int has_load(LVisitor *vis, const LExpr *e)
{
    int *hit = vis->ctx;
    if (e->kind == LE_LOAD)
        *hit = 1;
    return !*hit;
}

/* Whether the producer's accesses p and the consumer's c allow running
 * them in one loop. */
static int fusable(LAccCtx *fu, const LAccs *p, const LAccs *c)
{
    int feeds = 0;

    if (p->over || c->over)
        return 0;
    for (int j = 0; j < c->n; j++) {
        const LAcc *r = &c->a[j];
        for (int i = 0; i < p->n; i++) {
            const LAcc *w = &p->a[i];
            if (!lir_access_same_mem(fu, w->buf, r->buf) ||
                (!w->write && !r->write))
                continue;
            if (r->write)
                return 0;   /* the consumer overwrites the producer's */
            if (!w->ok || !r->ok || lir_access_may_meet(fu, &w->idx, &r->idx))
                return 0;
            /* Parameters that may alias are no reason to fuse. */
            if (w->buf == r->buf || !strcmp(w->buf->name, r->buf->name))
                feeds = 1;
        }
    }
    return feeds;
}

/* The fused loop, under the guard of either loop when one has one
 * (both guards, if two, say the same: the ranges are equal). */
static LStmt *fused_loop(TlSession *s, const LStmt *pl, LStmt *body2,
                         const Guard *pg, const Guard *cg)
{
    LStmt *both[2] = {pl->body, body2}, *loop, **items;
    const Guard *g = pg->ifst ? pg : cg;
    int n = 0;

    loop = lir_for(s, LP_SERIAL, 0, NULL, pl->var, pl->a, pl->b,
                   lir_block(s, both, 2));
    if (!g->ifst)
        return loop;
    items = arena_alloc(&s->arena, (size_t)(pg->nlets + cg->nlets + 1) *
                        sizeof *items);
    for (int q = 0; q < pg->nlets; q++)
        items[n++] = pg->lets[q];
    for (int q = 0; q < cg->nlets; q++)
        items[n++] = cg->lets[q];
    items[n++] = loop;
    return lir_if(s, g->ifst->a, lir_block(s, items, n), NULL);
}

/* Tries to fuse items[i] (the producer) with a later item; returns the
 * new block's item count, or -1. */
static int try_fuse(Fu *f, LStmt **items, int n, int i, LStmt **out)
{
    LAccCtx *fu = &f->acc;
    TlSession *s = fu->s;
    LStmt *pre[FU_MAX_ITEMS], *pl, *cl = NULL, *cw, *cblock = NULL;
    LStmt *mid[FU_MAX_ITEMS], *in[FU_MAX_ITEMS * 2], *post[FU_MAX_ITEMS];
    int npre = 0, nmid = 0, nin = 0, npost = 0, j, k = -1, hit = 0;
    LAccs *pa = f->pa, *xa = f->xa;
    Names nm;
    Guard *pg = arena_alloc(&s->arena, sizeof *pg);
    Guard *cg = arena_alloc(&s->arena, sizeof *cg);

    pl = lets_loop(f, items[i], pre, &npre, pg);
    if (!pl)
        return -1;
    lir_access_loop(fu, pl);
    {
        LVisitor vis = {&hit, has_load, NULL};
        lir_visit_expr(&vis, pl->a);
        lir_visit_expr(&vis, pl->b);
    }
    if (hit)
        return -1;
    lir_accesses(fu, pa, items[i]);
    memset(&nm, 0, sizeof nm);
    for (j = i + 1; j < n; j++) {
        LStmt *c = items[j];
        int npre1 = 0;
        LStmt *pre1[FU_MAX_ITEMS];
        /* The consumer: a loop (maybe guarded), or a block with one
         * among its items. */
        if (c->kind == LS_FOR || c->kind == LS_IF) {
            cl = lets_loop(f, c, pre1, &npre1, cg);
            if (cl && !same_range(cl, pl))
                cl = NULL;
        } else if (c->kind == LS_BLOCK) {
            for (k = 0; k < c->nitems; k++) {
                npre1 = 0;
                cl = lets_loop(f, c->items[k], pre1, &npre1, cg);
                if (cl && same_range(cl, pl)) {
                    cblock = c;
                    break;
                }
                cl = NULL;
            }
        }
        if (cl)
            break;
        lir_accesses(fu, xa, c);
        if (!lir_access_commute(fu, xa, pa) || nmid == FU_MAX_ITEMS)
            return -1;
        mid[nmid++] = c;
    }
    if (!cl)
        return -1;
    /* The consumer's block: the items before its loop, and the lets
     * around the loop (outside its guard), go before the fused loop in
     * the new block (in the scope they had); the items after it follow
     * the loop. */
    cw = items[j];
    if (cblock) {
        if (k > FU_MAX_ITEMS || cw->nitems - k - 1 > FU_MAX_ITEMS)
            return -1;
        for (int q = 0; q < k; q++)
            in[nin++] = cw->items[q];
        for (int q = k + 1; q < cw->nitems; q++)
            post[npost++] = cw->items[q];
        cw = cw->items[k];
    }
    {
        int nl = 0;
        cl = lets_loop(f, cw, in + nin, &nl, cg);
        nin += nl;
    }
    for (int q = 0; q < nin; q++) {
        lir_accesses(fu, xa, in[q]);
        if (!lir_access_commute(fu, xa, pa))
            return -1;
    }
    /* The consumer's guarded lets now run before the producer's loop
     * too. */
    for (int q = 0; q < cg->nlets; q++) {
        lir_accesses(fu, xa, cg->lets[q]);
        if (!lir_access_commute(fu, xa, pa))
            return -1;
    }
    /* What moves must not meet the producer's names (a name it
     * defines would then be in scope of the producer). */
    for (int q = 0; q < nmid; q++)
        declared(&nm, mid[q]);
    for (int q = 0; q < nin; q++)
        declared(&nm, in[q]);
    for (int q = 0; q < cg->nlets; q++)
        declared(&nm, cg->lets[q]);
    for (int q = 0; q < npost; q++)
        declared(&nm, post[q]);
    if (nm.over || mentions(&nm, items[i]))
        return -1;
    /* The producer's names end up in scope of the consumer's (the
     * lets around its loop, its body beside the consumer's): the
     * consumer must not define or use any of them. */
    {
        Names *dn = arena_alloc(&s->arena, sizeof *dn);
        memset(dn, 0, sizeof *dn);
        for (int q = 0; q < npre; q++)
            declared(dn, pre[q]);
        for (int q = 0; q < pg->nlets; q++)
            declared(dn, pg->lets[q]);
        declared(dn, pl->body);
        if (dn->over || mentions(dn, items[j]))
            return -1;
    }
    /* The consumer's body with the producer's variable: the body must
     * not know that name already. */
    {
        Names v1 = {{pl->var->name}, 1, 0};
        if (strcmp(pl->var->name, cl->var->name) && mentions(&v1, cl->body))
            return -1;
    }
    {
        LAccs *ca = f->ca;
        LStmt *body2 = lir_substitute(s, cl->body, cl->var,
                                      lir_ref(s, pl->var));
        LStmt **blk;
        int nb = 0, no = 0;
        lir_accesses(fu, pa, pl->body);
        lir_accesses(fu, ca, body2);
        if (!fusable(fu, pa, ca))
            return -1;
        blk = arena_alloc(&s->arena, (size_t)(npre + nin + 1 + npost) *
                          sizeof *blk);
        for (int q = 0; q < npre; q++)
            blk[nb++] = pre[q];
        for (int q = 0; q < nin; q++)
            blk[nb++] = in[q];
        blk[nb++] = fused_loop(s, pl, body2, pg, cg);
        for (int q = 0; q < npost; q++)
            blk[nb++] = post[q];
        for (int q = 0; q < i; q++)
            out[no++] = items[q];
        for (int q = 0; q < nmid; q++)
            out[no++] = mid[q];
        out[no++] = lir_block(s, blk, nb);
        for (int q = j + 1; q < n; q++)
            out[no++] = items[q];
        return no;
    }
}

static LStmt *fuse_block(LMutator *m, LStmt *st)
{
    Fu *fu = m->ctx;
    LStmt *b = lir_mutate_stmt_children(m, st), **items, **out;
    int n;

    if (b->kind != LS_BLOCK)
        return b;
    n = b->nitems;
    items = b->items;
    out = arena_alloc(&m->s->arena, (size_t)(n + FU_MAX_ITEMS * 2) *
                      sizeof *out);
    for (int i = 0; i < n; i++) {
        int no = try_fuse(fu, items, n, i, out);
        if (no >= 0) {
            /* Fusing only shortens the list: try the rest again. */
            items = out;
            n = no;
            out = arena_alloc(&m->s->arena,
                              (size_t)(n + FU_MAX_ITEMS * 2) * sizeof *out);
        }
    }
    return items == b->items ? b : lir_block(m->s, items, n);
}

LFunc *lir_fuse_loops(TlSession *s, LFunc *f)
{
    LMutator m;
    Fu *fu = arena_alloc(&s->arena, sizeof *fu);
    LVisitor vis;

    memset(fu, 0, sizeof *fu);
    lir_access_init(s, &fu->acc, f);
    /* Not zeroed: lir_accesses sets a list's count before it fills
     * entries, so only the pages used are touched. */
    fu->pa = tl_xmalloc(3 * sizeof *fu->pa);
    fu->xa = fu->pa + 1;
    fu->ca = fu->pa + 2;
    memset(&vis, 0, sizeof vis);
    vis.ctx = fu;
    vis.stmt = collect_let;
    lir_visit_stmt(&vis, f->body);
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = fu;
    m.stmt[LS_BLOCK] = fuse_block;
    f = lir_mutate_func(&m, f);
    free(fu->pa);
    return f;
}
