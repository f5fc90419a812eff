/*
 * lower_stage.c - one stage's loop nests: its default nest, the nest
 * the schedule gives (sched_apply.c) turned into loops, and updates
 * (initialization, accumulation, what surrounds the reduction).
 */
#include "codegen/lower_int.h"

#include <stdlib.h>
#include <string.h>

/* What a stage's loop nest stores per element. */
typedef enum {
    SM_VALUE,       /* the stage's value */
    SM_INIT,        /* red's identity */
    SM_UPDATE,      /* buf op red's body (the nest has red's loops) */
    SM_FINAL,       /* the value, red reading as buf */
    SM_MERGE        /* rfactor: buf op the partial result */
} StageMode;

/* rfactor's partial results: the stage's region with one more axis,
 * innermost (stride 1, so that a vectorized factored loop reads and
 * writes them contiguously).  For argmax/argmin, fi holds the
 * partial indices and best, laid out alike, their best values. */
typedef struct Part {
    FInfo fi;
    LVar *best;
    LExpr *idx;     /* the last index (i64) in the nest being lowered */
} Part;

/* A stage lowered as an update of its reduction red.  The reduction
 * accumulates in acc: the stage's own buffer when its dtype is the
 * stage's, else a buffer beside it over the region computed (one
 * more axis of extent 1, as part_buffer makes them), which what
 * surrounds the reduction (SM_FINAL) reads.  best and part: below. */
typedef struct Upd {
    TlReduce *red;
    FInfo *acc;
    FInfo *best;    /* argmax/argmin: the best values, else NULL */
    Part *part;     /* rfactor's partial results, else NULL */
} Upd;

/* argmax/argmin lowered as an update: the stage's buffer holds the
 * index of the best value so far, and a buffer b beside it (over the
 * region computed, with one more axis of extent 1 to share
 * part_buffer) the value itself, as lower_arg_reduce keeps them in
 * two scalars.  Each element's variable still runs upward in its
 * nest (split and reorder keep the reduction loops' order), so a
 * strictly better value replacing the best keeps the first index of
 * equal ones, the interpreter's rule; rfactor's partial results are
 * combined in the order of the factored loop, where an equal value
 * with a smaller index wins too (its indices are not in order).
 *
 * What such an update stores per element (mode SM_INIT, SM_UPDATE or
 * SM_MERGE) into body: the index into acc at aoff (or the partial
 * results' at poff), the best value into best at boff (or the
 * partials' at poff). */
static void arg_stores(Lw *L, TlFunc *f, StageMode mode, const Upd *u,
                       LExpr *aoff, LExpr *boff, LExpr *poff, SList *body)
{
    TlReduce *red = u->red;
    Part *part = u->part;
    TlVar *rv = red->rvars[0];
    int to_part = part && mode != SM_MERGE;
    LVar *ibuf = to_part ? part->fi.buf : u->acc->buf;
    LVar *bbuf = to_part ? part->best : u->best->buf;
    LExpr *io = to_part ? poff : aoff, *bo = to_part ? poff : boff;
    TlDType bdt = red->expr->a->dtype;
    LVar *vv, *av;
    LExpr *v, *a, *cur, *c;
    SList then = {0};

    if (mode == SM_INIT) {
        cg_sl_add(body, lir_store(L->s, bbuf, &bo, 1,
                                  cg_arg_start(L, red, bdt)));
        cg_sl_add(body, lir_store(L->s, ibuf, &io, 1, to_dt(L, DT_I64,
                  cg_sym_lower(L, rv->lo, DT_I32, f->loc))));
        return;
    }
    vv = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.v",
                 f->name)), lir_type(bdt, 1));
    av = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.a",
                 f->name)), lir_type(DT_I64, 1));
    v = lir_ref(L->s, vv);
    a = lir_ref(L->s, av);
    cur = lir_load(L->s, bbuf, &bo, 1);
    if (mode == SM_UPDATE) {
        cg_sl_add(body, lir_let(L->s, vv, cg_lower_expr(L, red->expr->a,
                                                        body)));
        cg_sl_add(body, lir_let(L->s, av, to_dt(L, DT_I64,
                                lir_ref(L->s, cg_find_var(L, rv)))));
        c = cg_arg_better(L, red, v, cur);
    } else {
        TL_ASSERT(mode == SM_MERGE && part);
        cg_sl_add(body, lir_let(L->s, vv, lir_load(L->s, part->best,
                                                   &poff, 1)));
        cg_sl_add(body, lir_let(L->s, av, lir_load(L->s, part->fi.buf,
                                                   &poff, 1)));
        c = bin(L, LO_OR, cg_arg_better(L, red, v, cur),
                bin(L, LO_AND, cg_arg_tie(L, v, cur),
                    bin(L, LO_LT, a, lir_load(L->s, ibuf, &io, 1))));
    }
    cg_sl_add(&then, lir_store(L->s, bbuf, &bo, 1, v));
    cg_sl_add(&then, lir_store(L->s, ibuf, &io, 1, a));
    cg_sl_add(body, lir_if(L->s, c, cg_sl_done(L, &then), NULL));
}

/* Stage f over its domain, storing into its buffer, in the loop nest
 * its schedule gives (sched_apply.c). */
static LStmt *stage_loops(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                          StageMode mode, const Upd *u)
{
    SList body = {0}, top = {0};
    TlReduce *red = u ? u->red : NULL;
    Part *part = u ? u->part : NULL;
    LExpr *idx[TL_MAX_RANK + 1], *val = NULL, *off, *poff = NULL;
    LExpr *aoff = NULL, *boff = NULL, *guard = NULL;
    FInfo *dst = fi;
    LStmt *st, *inner;
    int sites = mode == SM_VALUE || mode == SM_UPDATE;

    /* The producers computed inside this nest can be read here. */
    for (int i = 0; sites && i < L->nfs; i++)
        if (L->fs[i].nest && L->fs[i].nest->at_func == f &&
            L->fs[i].ctx == L->ctx)
            L->fs[i].live = 1;

    for (int j = 0; j < f->rank; j++) {
        TlVar *av = f->axes[j].var;
        LVar *v;
        if (!av) {
            cg_unsupported(L, f->loc, "a stage without index variables");
            return lir_nop(L->s);
        }
        v = lir_var(L->s, arena_printf(&L->s->arena, "%s.%s", f->name,
                                       av->name), lir_type(DT_I32, 1));
        cg_map_var(L, av, v);
        idx[j] = to_dt(L, DT_I64, lir_ref(L->s, v));
        /* round_up: stored where computed, past the end; read as the
         * last element there (x is clamped below) */
        if (n->rup[j])
            idx[j] = bin(L, LO_ADD, to_dt(L, DT_I64, fi->rlo[j]),
                         to_dt(L, DT_I64, lir_ref(L->s, n->defvar[j])));
    }
    off = cg_offset(L, fi, f->rank, idx, 0);
    idx[f->rank] = i64c(L, 0);
    if (u)
        aoff = u->acc == fi ? off : cg_offset(L, u->acc, f->rank + 1, idx,
                                              0);
    if (u && u->best)
        boff = cg_offset(L, u->best, f->rank + 1, idx, 0);
    if (part) {
        idx[f->rank] = part->idx;
        poff = cg_offset(L, &part->fi, f->rank + 1, idx, 0);
    }
    /* Where this nest stores: the reduction's value (or its partial
     * results) while it accumulates, the stage's value otherwise. */
    if (mode == SM_INIT || mode == SM_UPDATE || mode == SM_MERGE) {
        int to_part = part && mode != SM_MERGE;
        dst = to_part ? &part->fi : u->acc;
        off = to_part ? poff : aoff;
    }
    if (mode == SM_UPDATE)
        for (int r = 0; r < red->nrvars; r++)
            cg_map_var(L, red->rvars[r], lir_var(L->s,
                    arena_printf(&L->s->arena, "%s.%s", f->name,
                                 red->rvars[r]->name),
                    lir_type(DT_I32, 1)));
    if (u && u->best && mode != SM_FINAL)
        arg_stores(L, f, mode, u, aoff, boff, poff, &body);
    else switch (mode) {
    case SM_INIT:
        val = cg_red_identity(L, red->expr, red, red->expr->dtype);
        if (!val)
            return lir_nop(L->s);
        break;
    case SM_MERGE:
        val = cg_red_combine(L, red, lir_load(L->s, dst->buf, &off, 1),
                             lir_load(L->s, part->fi.buf, &poff, 1));
        break;
    case SM_UPDATE:
        val = cg_red_combine(L, red, lir_load(L->s, dst->buf, &off, 1),
                          to_dt(L, red->expr->dtype,
                                cg_lower_expr(L, red->expr->a, &body)));
        break;
    case SM_FINAL:
        L->red_sub = red;
        L->red_val = lir_load(L->s, u->acc->buf, &aoff, 1);
        val = to_dt(L, f->dtype, cg_lower_expr(L, f->value, &body));
        L->red_sub = NULL;
        break;
    default:
        val = to_dt(L, f->dtype, cg_lower_expr(L, f->value, &body));
        break;
    }
    if (val)
        cg_sl_add(&body, lir_store(L->s, dst->buf, &off, 1, val));
    /* What pass_accum.c needs to start a register tile at the
     * identity instead of loading it: the value the initialization
     * stores, and the update's loops over the reduction variables.
     * Not for argmax/argmin (two buffers) or rfactor (its partial
     * results are merged into the stage's buffer after the update). */
    if (mode == SM_INIT && val && u && !u->best && !u->part) {
        dst->buf->red_init = val;
        dst->buf->red_ninit++;
    }
    if (mode == SM_INIT && u && (u->best || u->part))
        dst->buf->red_ninit += 2;
    if (mode == SM_UPDATE)
        for (int i = 0; i < n->nloops; i++)
            if (n->loops[i].rkey)
                n->loops[i].lv->red = 1;
    st = cg_sl_done(L, &body);
    for (int g = 0; g < n->nguards; g++)
        guard = guard ? bin(L, LO_AND, guard, n->guards[g]) : n->guards[g];
    if (guard)
        st = lir_if(L->s, guard, st, NULL);
    /* The variables the directives replaced, the latest first (it may
     * define one an earlier definition uses), then the axis variables:
     * lo + the default loop's variable. */
    for (int d = n->ndefs - 1; d >= f->rank + n->nrv; d--)
        cg_sl_add(&top, lir_let(L->s, n->defvar[d], n->defval[d]));
    for (int j = 0; j < f->rank; j++) {
        LExpr *l0 = lir_ref(L->s, n->defvar[j]);
        if (n->rup[j])
            l0 = bin(L, LO_MIN, l0, bin(L, LO_SUB, to_dt(L, DT_I32,
                     fi->rext[j]), lir_int(L->s, DT_I32, 1)));
        cg_sl_add(&top, lir_let(L->s, cg_find_var(L, f->axes[j].var),
                             bin(L, LO_ADD, n->bmin[j] ? n->bmin[j] :
                                 to_dt(L, DT_I32, fi->rlo[j]), l0)));
    }
    for (int r = 0; r < n->nrv; r++) {
        TlVar *rv = red->rvars[r];
        cg_sl_add(&top, lir_let(L->s, cg_find_var(L, rv), bin(L, LO_ADD,
                             cg_sym_lower(L, rv->lo, DT_I32, f->loc),
                             lir_ref(L->s, n->defvar[f->rank + r]))));
    }
    cg_sl_add(&top, st);
    st = inner = cg_sl_done(L, &top);
    for (int i = n->nloops - 1; i >= 0; i--) {
        CgLoop *l = &n->loops[i];
        if (sites)
            st = cg_site(L, f, fi, n, i, st);
        st = lir_for(L->s, l->kind, l->width, NULL, l->lv, lir_int(L->s,
                     DT_I32, 0), l->extent, st);
    }
    if (sites) {
        SList root = {0};
        cg_store_root(L, f, &root);
        cg_sl_add(&root, st);
        st = cg_sl_done(L, &root);
    }
    if (n->par_if) {
        /* The default schedule: in parallel only when big enough (no
         * stage is computed inside such a nest, see sched_apply.c). */
        LStmt *ser = inner;
        LExpr *total = i64c(L, 1);
        for (int i = n->nloops - 1; i >= 0; i--) {
            CgLoop *l = &n->loops[i];
            ser = lir_for(L->s, l->kind == LP_PARALLEL ? LP_SERIAL : l->kind,
                          l->width, NULL, l->lv, lir_int(L->s, DT_I32, 0),
                          l->extent, ser);
        }
        for (int j = 0; j < f->rank; j++)
            total = bin(L, LO_MUL, total, to_dt(L, DT_I64, fi->rext[j]));
        st = lir_if(L->s, bin(L, LO_GE, total, i64c(L, CG_PAR_MIN)), st,
                    ser);
    }
    for (int i = 0; sites && i < L->nfs; i++)
        if (L->fs[i].nest && L->fs[i].nest->at_func == f &&
            L->fs[i].ctx == L->ctx)
            L->fs[i].live = 0;
    return st;
}

static LExpr *sym_lower(void *ctx, const TlSymExpr *e, TlLoc loc)
{
    return cg_sym_lower(ctx, e, DT_I32, loc);
}

/* The default nest of f: one loop per axis over its extent; defs[j]
 * holds axis j's default loop variable (so that directives that
 * replace it define it again). */
void cg_default_nest(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                     TlReduce *red)
{
    int nl;

    memset(n, 0, sizeof *n);
    n->sym_lower = sym_lower;
    n->sym_ctx = L;
    for (int j = 0; j < f->rank && j < CG_MAX_LOOPS; j++) {
        TlVar *av = f->axes[j].var;
        LVar *v = lir_var(L->s, arena_printf(&L->s->arena,
                          "%s.%s.l0", f->name, av ? av->name : "_"),
                          lir_type(DT_I32, 1));
        n->loops[j].tv = av;
        n->loops[j].lv = v;
        n->loops[j].extent = to_dt(L, DT_I32, fi->rext[j]);
        n->loops[j].kind = LP_SERIAL;
        n->defvar[j] = v;
        n->defval[j] = NULL;
    }
    nl = f->rank;
    /* With an update: red's loops innermost, in the order written. */
    for (int r = 0; red && r < red->nrvars && nl < CG_MAX_LOOPS && r < 26;
         r++, nl++) {
        TlVar *rv = red->rvars[r];
        LVar *v = lir_var(L->s, arena_printf(&L->s->arena,
                          "%s.%s.l0", f->name, rv->name),
                          lir_type(DT_I32, 1));
        n->loops[nl].tv = rv;
        n->loops[nl].lv = v;
        n->loops[nl].extent = cg_sym_lower(L, rv->extent, DT_I32, f->loc);
        n->loops[nl].kind = LP_SERIAL;
        n->loops[nl].rkey = arena_printf(&L->s->arena, "%c", 'a' + r);
        n->defvar[nl] = v;
        n->defval[nl] = NULL;
        n->nrv++;
        n->red = red;
    }
    n->nloops = n->ndefs = nl;
}
/* A buffer of dtype dt over f's region and ext more (an axis
 * innermost), allocated into out: rfactor's partial results (ext its
 * extent), argmax's best values (ext 1).  Returns its size. */
static LExpr *part_buffer(Lw *L, TlFunc *f, FInfo *fi, LExpr *ext32,
                          const char *what, TlDType dt, FInfo *p,
                          SList *out)
{
    LType t = lir_type(DT_I64, 1);
    LExpr *size = i64c(L, 1), *ext = to_dt(L, DT_I64, ext32);

    memset(p, 0, sizeof *p);
    p->f = f;
    p->buf = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                        "%s.%s", f->name, what)), dt);
    p->rlo[f->rank] = i64c(L, 0);
    p->stride[f->rank] = size;
    for (int j = f->rank - 1; j >= -1; j--) {
        LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                          "%s.%s.s%d", f->name, what, j + 1)), t);
        cg_sl_add(out, lir_let(L->s, v, bin(L, LO_MUL, size, ext)));
        size = lir_ref(L->s, v);
        if (j < 0)
            break;
        p->rlo[j] = fi->rlo[j];
        p->stride[j] = size;
        ext = to_dt(L, DT_I64, fi->rext[j]);
    }
    cg_sl_add(out, lir_alloc(L->s, p->buf, LM_HEAP, &size, 1));
    return size;
}

/* The default nest of f with one more loop, innermost, over the
 * partial results of rfactor. */
static void part_nest(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                      CgNest *plain, Part *p)
{
    LVar *v = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                      "%s.rf", f->name)), lir_type(DT_I32, 1));
    int nl;

    cg_default_nest(L, f, fi, plain, NULL);
    nl = plain->nloops;
    TL_ASSERT(nl < CG_MAX_LOOPS);
    plain->loops[nl].lv = v;
    plain->loops[nl].extent = n->rf_ext;
    plain->loops[nl].kind = LP_SERIAL;
    plain->nloops++;
    p->idx = to_dt(L, DT_I64, lir_ref(L->s, v));
}

/* argmax/argmin over an empty range has no result (SPEC 7.6): when
 * f's region holds an element, the error flag is raised (the
 * interpreter then reports it) and nothing is computed. */
static void arg_empty(Lw *L, TlFunc *f, FInfo *fi, TlReduce *red,
                      SList *out)
{
    LExpr *z = i64c(L, 0), *total = i64c(L, 1);

    for (int j = 0; j < f->rank; j++)
        total = bin(L, LO_MUL, total, to_dt(L, DT_I64, fi->rext[j]));
    cg_sl_add(out, lir_if(L->s, bin(L, LO_AND,
        bin(L, LO_LE, cg_sym_lower(L, red->rvars[0]->extent, DT_I32,
                                   f->loc), lir_int(L->s, DT_I32, 0)),
        bin(L, LO_GT, total, z)), lir_store(L->s, L->err, &z, 1,
                                   lir_int(L->s, DT_I32, CG_ERR_RANGE)),
        NULL));
}

/* The initialization and final pass of a reduction whose update the
 * schedule runs in parallel (not the default's par_if, whose serial
 * copy would double them) run in parallel too, over their first loop
 * of more than one iteration: as serial passes they were the part of
 * the call that one thread did while the others waited (matmul's C
 * set to the identity before its k blocks: 4 MB at 1024, 16 MB at
 * 2048), and the worker went to sleep before the update's loop. */
static void fill_parallel(Lw *L, const TlFunc *f, const CgNest *n,
                          CgNest *plain)
{
    int par = 0;

    for (int i = 0; i < n->nloops; i++)
        par |= n->loops[i].kind == LP_PARALLEL;
    if (!par || n->par_if)
        return;
    for (int i = 0; i < plain->nloops; i++) {
        LExpr *e = plain->loops[i].extent;
        if (plain->loops[i].kind != LP_SERIAL)
            return;
        /* An axis bound to one element (conv2d's n) has a loop that
         * the bound's version of the kernel drops. */
        for (int j = 0; j < f->rank && j < TL_MAX_RANK; j++)
            if (f->axes[j].var && f->axes[j].var == plain->loops[i].tv &&
                n->bext[j])
                e = n->bext[j];
        e = lir_simplify_expr(L->s, e);
        if (e->kind == LE_INT && e->ival <= 1)
            continue;
        plain->loops[i].kind = LP_PARALLEL;
        plain->loops[i].width = 0;
        return;
    }
}

/* Stage f's loop nests into out: one, or for an update the
 * initialization, the update and what surrounds the reduction.  With
 * rfactor, the update accumulates into partial results, which are
 * set to the identity before and combined into the stage after, in
 * the order of the factored loop. */
void cg_emit_stage(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                   TlReduce *red, SList *out)
{
    CgNest *plain;
    Part part;
    FInfo acc, best;
    Upd u = {red, fi, NULL, NULL};
    TlDType rdt;

    if (!red) {
        cg_sl_add(out, stage_loops(L, f, fi, n, SM_VALUE, NULL));
        return;
    }
    rdt = red->expr->dtype;
    if (rdt != f->dtype) {
        part_buffer(L, f, fi, lir_int(L->s, DT_I32, 1), "acc", rdt, &acc,
                    out);
        u.acc = &acc;
    }
    if (red->op == RD_ARGMAX || red->op == RD_ARGMIN) {
        TL_ASSERT(red->nrvars == 1 && rdt == DT_I64);
        arg_empty(L, f, fi, red, out);
        part_buffer(L, f, fi, lir_int(L->s, DT_I32, 1), "best",
                    red->expr->a->dtype, &best, out);
        u.best = &best;
    }
    plain = tl_xmalloc(sizeof *plain);
    cg_default_nest(L, f, fi, plain, NULL);
    cg_sched_fill(L->s, f, fi->sorder, plain);
    fill_parallel(L, f, n, plain);
    cg_sl_add(out, stage_loops(L, f, fi, plain, SM_INIT, &u));
    if (n->rf_lv) {
        LExpr *size;
        u.acc->buf->red_ninit += 2;     /* merged into, not updated */
        size = part_buffer(L, f, fi, n->rf_ext, "part", rdt,
                                  &part.fi, out);
        part.best = NULL;
        if (u.best) {
            part.best = lir_buffer(L->s, cg_fresh(L, arena_printf(
                &L->s->arena, "%s.pbest", f->name)), red->expr->a->dtype);
            cg_sl_add(out, lir_alloc(L->s, part.best, LM_HEAP, &size, 1));
        }
        u.part = &part;
        part_nest(L, f, fi, n, plain, &part);
        cg_sl_add(out, stage_loops(L, f, fi, plain, SM_INIT, &u));
        part.idx = to_dt(L, DT_I64, lir_ref(L->s, n->rf_lv));
        cg_sl_add(out, stage_loops(L, f, fi, n, SM_UPDATE, &u));
        part_nest(L, f, fi, n, plain, &part);
        cg_sl_add(out, stage_loops(L, f, fi, plain, SM_MERGE, &u));
        u.part = NULL;
    } else {
        cg_sl_add(out, stage_loops(L, f, fi, n, SM_UPDATE, &u));
    }
    if (f->value != red->expr) {
        cg_default_nest(L, f, fi, plain, NULL);
        cg_sched_fill(L->s, f, fi->sorder, plain);
        fill_parallel(L, f, n, plain);
        cg_sl_add(out, stage_loops(L, f, fi, plain, SM_FINAL, &u));
    }
    free(plain);
}

/* A stage computed at a loop of its consumer: its region's variables
 * (bound by `cg_site`) replace its domain as what it computes and
 * stores. */
void cg_at_region(Lw *L, TlFunc *f, FInfo *fi)
{
    LType t = lir_type(DT_I64, 1);

    for (int j = 0; j < f->rank; j++) {
        fi->rlov[j] = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                              "%s.rlo%d", f->name, j)), t);
        fi->rextv[j] = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                               "%s.rn%d", f->name, j)), t);
        fi->stv[j] = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                             "%s.rs%d", f->name, j)), t);
        fi->rlo[j] = lir_ref(L->s, fi->rlov[j]);
        fi->rext[j] = lir_ref(L->s, fi->rextv[j]);
        fi->stride[j] = lir_ref(L->s, fi->stv[j]);
    }
}

void cg_store_vars(Lw *L, TlFunc *f, FInfo *fi)
{
    for (int j = 0; j < f->rank; j++) {
        fi->slov[j] = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                              "%s.slo%d", f->name, j)), lir_type(DT_I64, 1));
        fi->slo[j] = lir_ref(L->s, fi->slov[j]);
    }
    fi->done = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                          "%s.done", f->name)), DT_I64);
}
