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
 * TODO(issue 4): loops that pass_hoist.c put under an `if lo < hi`
 * (a load hoisted out of a loop whose extent is not a constant) are
 * not fused: the statements moved before the first would then run
 * only when it runs.
 */
#include "codegen/codegen_int.h"

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

/* A serial loop, alone or as the last item of blocks of lets; the lets
 * are appended to pre. */
static LStmt *lets_loop(LStmt *st, LStmt **pre, int *npre)
{
    while (st->kind == LS_BLOCK && st->nitems > 0) {
        for (int i = 0; i + 1 < st->nitems; i++) {
            if (st->items[i]->kind != LS_LET || *npre == FU_MAX_ITEMS)
                return NULL;
            pre[(*npre)++] = st->items[i];
        }
        st = st->items[st->nitems - 1];
    }
    return st->kind == LS_FOR && st->loop == LP_SERIAL ? st : NULL;
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

/* Tries to fuse items[i] (the producer) with a later item; returns the
 * new block's item count, or -1. */
static int try_fuse(LAccCtx *fu, LStmt **items, int n, int i, LStmt **out)
{
    TlSession *s = fu->s;
    LStmt *pre[FU_MAX_ITEMS], *pl, *cl = NULL, *cw;
    LStmt *mid[FU_MAX_ITEMS], *in[FU_MAX_ITEMS * 2], *post[FU_MAX_ITEMS];
    int npre = 0, nmid = 0, nin = 0, npost = 0, j, k = -1, hit = 0;
    LAccs *pa, *xa;
    Names nm;

    pl = lets_loop(items[i], pre, &npre);
    if (!pl)
        return -1;
    pa = arena_alloc(&s->arena, sizeof *pa);
    xa = arena_alloc(&s->arena, sizeof *xa);
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
        /* The consumer: a loop, or a block with one among its items. */
        if (c->kind == LS_FOR && c->loop == LP_SERIAL && same_range(c, pl)) {
            cl = c;
            k = 0;
        } else if (c->kind == LS_BLOCK) {
            for (k = 0; k < c->nitems; k++) {
                npre1 = 0;
                cl = lets_loop(c->items[k], pre1, &npre1);
                if (cl && same_range(cl, pl))
                    break;
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
     * around the loop, go before the fused loop in the new block (in
     * the scope they had); the items after it follow the loop. */
    cw = items[j];
    if (cw != cl) {
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
        cl = lets_loop(cw, in + nin, &nl);
        nin += nl;
    }
    for (int q = 0; q < nin; q++) {
        lir_accesses(fu, xa, in[q]);
        if (!lir_access_commute(fu, xa, pa))
            return -1;
    }
    /* What moves must not meet the producer's names (a name it
     * defines would then be in scope of the producer). */
    for (int q = 0; q < nmid; q++)
        declared(&nm, mid[q]);
    for (int q = 0; q < nin; q++)
        declared(&nm, in[q]);
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
        LAccs *ca = arena_alloc(&s->arena, sizeof *ca);
        LStmt *body2 = lir_substitute(s, cl->body, cl->var,
                                      lir_ref(s, pl->var));
        lir_accesses(fu, pa, pl->body);
        lir_accesses(fu, ca, body2);
        if (!fusable(fu, pa, ca))
            return -1;
        {
            LStmt *both[2] = {pl->body, body2}, *loop, **blk;
            int nb = 0, no = 0;
            loop = lir_for(s, LP_SERIAL, 0, NULL, pl->var, pl->a, pl->b,
                           lir_block(s, both, 2));
            blk = arena_alloc(&s->arena, (size_t)(npre + nin + 1 + npost) *
                              sizeof *blk);
            for (int q = 0; q < npre; q++)
                blk[nb++] = pre[q];
            for (int q = 0; q < nin; q++)
                blk[nb++] = in[q];
            blk[nb++] = loop;
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
}

static LStmt *fuse_block(LMutator *m, LStmt *st)
{
    LAccCtx *fu = m->ctx;
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
    LAccCtx *fu = arena_alloc(&s->arena, sizeof *fu);
    LStmt *body;

    lir_access_init(s, fu, f);
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = fu;
    m.stmt[LS_BLOCK] = fuse_block;
    body = lir_mutate_stmt(&m, f->body);
    return body == f->body ? f : lir_func(s, f->name, f->params,
                                          f->nparams, body);
}
