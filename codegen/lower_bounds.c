/*
 * lower_bounds.c - compute_at: the region of a producer that one
 * iteration of a consumer loop needs, by interval arithmetic, and the
 * producer nests placed there.
 */
#include "codegen/lower_int.h"

#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * compute_at: bounds per loop level by interval arithmetic.  A
 * producer computed inside loop `v` of its consumer covers what one
 * iteration of `v` reads of it: the consumer's index ranges over the
 * loops inside `v` give each read's index range; the hull of those,
 * cut to the producer's domain, is the region it computes and stores
 * (indexed from the region's start).  Producers computed at the same
 * loop that read each other are done consumers first.  Where an index
 * is not affine enough to bound, the whole domain on that axis is
 * used, which is always correct.
 * ==================================================================== */

typedef struct Ival2 {
    LExpr *lo, *hi;         /* inclusive, i64 */
} Ival2;

/* Index variables bound to ranges while bounding reads. */
typedef struct Env {
    const TlVar *v[4 * TL_MAX_RANK + 8];
    Ival2 iv[4 * TL_MAX_RANK + 8];
    int n;
} Env;

static Ival2 pt(LExpr *e)
{
    Ival2 r;
    r.lo = r.hi = e;
    return r;
}

static Ival2 iv_mk(LExpr *lo, LExpr *hi)
{
    Ival2 r;
    r.lo = lo;
    r.hi = hi;
    return r;
}

static int iv_point(Ival2 a)
{
    return a.lo == a.hi;
}

/* a op b over intervals; -1 when op is not bounded here. */
static int iv_bin(Lw *L, LOp op, Ival2 a, Ival2 b, Ival2 *r)
{
    if (iv_point(a) && iv_point(b)) {
        *r = pt(bin(L, op, a.lo, b.lo));
        return 0;
    }
    switch (op) {
    case LO_ADD:
        *r = iv_mk(bin(L, LO_ADD, a.lo, b.lo), bin(L, LO_ADD, a.hi, b.hi));
        return 0;
    case LO_SUB:
        *r = iv_mk(bin(L, LO_SUB, a.lo, b.hi), bin(L, LO_SUB, a.hi, b.lo));
        return 0;
    case LO_MIN:
    case LO_MAX:
        *r = iv_mk(bin(L, op, a.lo, b.lo), bin(L, op, a.hi, b.hi));
        return 0;
    case LO_MUL: {
        LExpr *p1 = bin(L, LO_MUL, a.lo, b.lo);
        LExpr *p2 = bin(L, LO_MUL, a.lo, b.hi);
        LExpr *p3 = bin(L, LO_MUL, a.hi, b.lo);
        LExpr *p4 = bin(L, LO_MUL, a.hi, b.hi);
        *r = iv_mk(bin(L, LO_MIN, bin(L, LO_MIN, p1, p2),
                       bin(L, LO_MIN, p3, p4)),
                   bin(L, LO_MAX, bin(L, LO_MAX, p1, p2),
                       bin(L, LO_MAX, p3, p4)));
        return 0;
    }
    case LO_DIV:    /* monotone in a for a positive constant divisor */
        if (!iv_point(b) || b.lo->kind != LE_INT || b.lo->ival <= 0)
            return -1;
        *r = iv_mk(bin(L, LO_DIV, a.lo, b.lo), bin(L, LO_DIV, a.hi, b.lo));
        return 0;
    case LO_MOD:
        if (!iv_point(b) || b.lo->kind != LE_INT || b.lo->ival <= 0)
            return -1;
        *r = iv_mk(i64c(L, 0), i64c(L, b.lo->ival - 1));
        return 0;
    default:
        return -1;
    }
}

/* The range of an i32/i64 loop-IR expression over nest n's loops
 * inside level `at` (those at or outside it are fixed). */
static int lexpr_ival(Lw *L, const CgNest *n, int at, LExpr *e, Ival2 *r)
{
    Ival2 a, b;

    switch (e->kind) {
    case LE_INT:
        *r = pt(i64c(L, e->ival));
        return 0;
    case LE_CAST:
        if (!dt_is_int(e->type.dt))
            return -1;
        return lexpr_ival(L, n, at, e->a, r);
    case LE_VAR:
        for (int i = 0; i < n->nloops; i++)
            if (n->loops[i].lv == e->var) {
                if (i <= at) {
                    *r = pt(to_dt(L, DT_I64, e));
                    return 0;
                }
                *r = iv_mk(i64c(L, 0), bin(L, LO_SUB, to_dt(L, DT_I64,
                           n->loops[i].extent), i64c(L, 1)));
                return 0;
            }
        for (int d = n->ndefs - 1; d >= 0; d--)
            if (n->defvar[d] == e->var && n->defval[d])
                return lexpr_ival(L, n, at, n->defval[d], r);
        *r = pt(to_dt(L, DT_I64, e));
        return 0;
    case LE_BINARY:
        if (lexpr_ival(L, n, at, e->a, &a) || lexpr_ival(L, n, at, e->b, &b))
            return -1;
        return iv_bin(L, e->op, a, b, r);
    default:
        return -1;
    }
}

static int rvar_ival(Lw *L, const TlVar *v, Ival2 *r)
{
    LExpr *lo, *ext;

    if (!v->lo || !v->extent)
        return -1;
    lo = to_dt(L, DT_I64, cg_sym_lower(L, v->lo, DT_I32, v->loc));
    ext = to_dt(L, DT_I64, cg_sym_lower(L, v->extent, DT_I32, v->loc));
    *r = iv_mk(lo, bin(L, LO_SUB, bin(L, LO_ADD, lo, ext), i64c(L, 1)));
    return 0;
}

/* The range of an index expression of the language. */
static int texpr_ival(Lw *L, Env *env, TlExpr *e, Ival2 *r)
{
    Ival2 a, b;
    TlVar *v;

    switch (e->kind) {
    case EX_INT:
        *r = pt(i64c(L, e->ival));
        return 0;
    case EX_NAME:
        if (tl_ref_kind(e->sym) != REF_VAR)
            return -1;
        v = e->sym;
        for (int i = env->n - 1; i >= 0; i--)
            if (env->v[i] == v) {
                *r = env->iv[i];
                return 0;
            }
        if (v->kind == VAR_RVAR)
            return rvar_ival(L, v, r);
        if (v->kind == VAR_INDEX || !cg_find_var(L, v))
            return -1;
        *r = pt(to_dt(L, DT_I64, lir_ref(L->s, cg_find_var(L, v))));
        return 0;
    case EX_CAST:
        if (!dt_is_int(e->dtype))
            return -1;
        return texpr_ival(L, env, e->a, r);
    case EX_UNARY:
        if (e->op != OP_NEG || texpr_ival(L, env, e->a, &a))
            return -1;
        *r = iv_mk(lir_unary(L->s, LO_NEG, a.hi), lir_unary(L->s, LO_NEG,
                                                             a.lo));
        return 0;
    case EX_BINARY:
        if (!dt_is_int(e->dtype) || cg_map_op(e->op) == LO__COUNT ||
            texpr_ival(L, env, e->a, &a) || texpr_ival(L, env, e->b, &b))
            return -1;
        return iv_bin(L, cg_map_op(e->op), a, b, r);
    case EX_CALL:
        if (tl_ref_kind(e->sym) == REF_BUILTIN && e->args.n == 2 &&
            (((TlBuiltin *)e->sym)->id == BI_MIN ||
             ((TlBuiltin *)e->sym)->id == BI_MAX)) {
            if (texpr_ival(L, env, e->args.v[0], &a) ||
                texpr_ival(L, env, e->args.v[1], &b))
                return -1;
            return iv_bin(L, ((TlBuiltin *)e->sym)->id == BI_MIN ? LO_MIN :
                          LO_MAX, a, b, r);
        }
        return -1;
    default:
        return -1;
    }
}

/* Widens hull[] by the reads of p in e (and in the compute_inline
 * stages e reads), e's index variables ranging as env says. */
static void hull_reads(Lw *L, Env *env, TlExpr *e, const TlFunc *p,
                       Ival2 *hull, int *any)
{
    if (!e)
        return;
    if (e->kind == EX_INDEX && tl_ref_kind(e->sym) == REF_READ) {
        TlRead *rd = e->sym;
        FInfo *q = cg_find_finfo(L, rd->func);
        if (rd->func == p) {
            for (int j = 0; j < p->rank && j < e->args.n; j++) {
                Ival2 r;
                FInfo *fi = cg_find_finfo(L, p);
                if (texpr_ival(L, env, e->args.v[j], &r))
                    r = iv_mk(fi->lo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              fi->lo[j], fi->ext[j]), i64c(L, 1)));
                if (!*any) {
                    hull[j] = r;
                } else {
                    hull[j].lo = bin(L, LO_MIN, hull[j].lo, r.lo);
                    hull[j].hi = bin(L, LO_MAX, hull[j].hi, r.hi);
                }
            }
            *any = 1;
        } else if (q && q->inl && env->n + rd->func->rank <=
                   (int)(sizeof env->v / sizeof env->v[0])) {
            int saved = env->n;
            for (int j = 0; j < rd->func->rank && j < e->args.n; j++) {
                Ival2 r;
                if (texpr_ival(L, env, e->args.v[j], &r))
                    r = iv_mk(q->lo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              q->lo[j], q->ext[j]), i64c(L, 1)));
                env->v[env->n] = rd->func->axes[j].var;
                env->iv[env->n++] = r;
            }
            hull_reads(L, env, rd->func->value, p, hull, any);
            env->n = saved;
        }
    }
    hull_reads(L, env, e->a, p, hull, any);
    hull_reads(L, env, e->b, p, hull, any);
    hull_reads(L, env, e->c, p, hull, any);
    for (int i = 0; i < e->args.n; i++)
        hull_reads(L, env, e->args.v[i], p, hull, any);
}

/* ====================================================================
 * store_at: the buffer lives at an outer loop (or the root), over the
 * region all the iterations inside it need, indexed from that region's
 * start, and each computation slides: of the region one iteration
 * needs, the part the buffer already holds (`done`) is not computed
 * again.
 * ==================================================================== */

/* Where p (computed at loop `at` of nest n) is stored: the loop level,
 * -1 for the root; -2 after reporting a schedule it cannot follow. */
static int store_level(Lw *L, FInfo *p, CgNest *n, int at)
{
    const CgNest *pn = p->nest;
    int s = -1;

    if (!pn->store_dir)
        return at;
    if (pn->store_var) {
        for (s = 0; s < n->nloops && n->loops[s].tv != pn->store_var; s++)
            ;
        if (s > at) {
            diag_error(L->s, pn->store_dir->loc, DIAG_CG_STORE_AT,
                       pn->store_dir->name, p->f->name, arena_printf(
                       &L->s->arena, "loop '%s' is not around loop '%s' "
                       "of '%s'", pn->store_var->name, pn->at_var->name,
                       pn->at_func->name));
            L->failed = 1;
            return -2;
        }
    }
    for (int i = s + 1; i <= at; i++)
        if (n->loops[i].kind == LP_PARALLEL) {
            diag_error(L->s, pn->store_dir->loc, DIAG_CG_STORE_PARALLEL,
                       pn->store_dir->name, p->f->name,
                       n->loops[i].tv ? n->loops[i].tv->name
                                      : n->loops[i].lv->name);
            L->failed = 1;
            return -2;
        }
    return s;
}

/* p's buffer over region lo[j] .. lo[j] + ext[j] - 1 (i64), and its
 * `done` region, empty. */
static void store_site(Lw *L, FInfo *p, LExpr **lo, LExpr **ext,
                       SList *out)
{
    const TlFunc *pf = p->f;
    LExpr *size = i64c(L, 1);
    LExpr *dsize = i64c(L, 2 * pf->rank);

    for (int q = pf->rank - 1; q >= 0; q--) {
        int j = p->sorder[q];
        cg_sl_add(out, lir_let(L->s, p->slov[j], lo[j]));
        cg_sl_add(out, lir_let(L->s, p->stv[j], size));
        size = bin(L, LO_MUL, lir_ref(L->s, p->stv[j]), ext[j]);
    }
    p->size = size;
    cg_sl_add(out, lir_alloc(L->s, p->buf, LM_HEAP, &p->size, 1));
    cg_sl_add(out, lir_alloc(L->s, p->done, LM_STACK, &dsize, 1));
    for (int j = 0; j < pf->rank; j++) {
        LExpr *k0 = i64c(L, 2 * j), *k1 = i64c(L, 2 * j + 1);
        cg_sl_add(out, lir_store(L->s, p->done, &k0, 1,
                                 lir_int(L->s, DT_I64, INT64_MAX)));
        cg_sl_add(out, lir_store(L->s, p->done, &k1, 1,
                                 lir_int(L->s, DT_I64, INT64_MIN)));
    }
}

/* The region p computes at its loop, from the region lo[j] .. hi[j]
 * (inclusive) that one iteration needs: along its outermost stored
 * axis d, only past what `done` holds when the rest of the needed
 * region lies within it and the part needed starts inside or right
 * after it; otherwise all of it.  Updates `done`. */
static void slide(Lw *L, FInfo *p, LExpr **lo, LExpr **hi, SList *out)
{
    const TlFunc *pf = p->f;
    int d = p->sorder[0];
    LExpr *nl[TL_MAX_RANK], *nh[TL_MAX_RANK], *dl[TL_MAX_RANK],
          *dh[TL_MAX_RANK];
    LExpr *ok = NULL, *one = i64c(L, 1), *first;
    LVar *sv;

    for (int j = 0; j < pf->rank; j++) {
        LType t = lir_type(DT_I64, 1);
        LExpr *k0 = i64c(L, 2 * j), *k1 = i64c(L, 2 * j + 1);
        LVar *a = lir_var(L->s, cg_fresh(L, "need.lo"), t);
        LVar *b = lir_var(L->s, cg_fresh(L, "need.hi"), t);
        LVar *c = lir_var(L->s, cg_fresh(L, "done.lo"), t);
        LVar *e = lir_var(L->s, cg_fresh(L, "done.hi"), t);
        cg_sl_add(out, lir_let(L->s, a, lo[j]));
        cg_sl_add(out, lir_let(L->s, b, hi[j]));
        cg_sl_add(out, lir_let(L->s, c, lir_load(L->s, p->done, &k0, 1)));
        cg_sl_add(out, lir_let(L->s, e, lir_load(L->s, p->done, &k1, 1)));
        nl[j] = lir_ref(L->s, a);
        nh[j] = lir_ref(L->s, b);
        dl[j] = lir_ref(L->s, c);
        dh[j] = lir_ref(L->s, e);
    }
    /* done.hi + 1 cannot overflow: an empty `done` has INT64_MIN. */
    first = bin(L, LO_ADD, dh[d], one);
    for (int j = 0; j < pf->rank; j++) {
        LExpr *c;
        if (j == d)
            c = bin(L, LO_AND, bin(L, LO_LE, dl[j], nl[j]),
                    bin(L, LO_LE, nl[j], first));
        else
            c = bin(L, LO_AND, bin(L, LO_LE, dl[j], nl[j]),
                    bin(L, LO_LE, nh[j], dh[j]));
        ok = ok ? bin(L, LO_AND, ok, c) : c;
    }
    sv = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena, "%s.slide",
                                                pf->name)),
                 lir_type(DT_BOOL, 1));
    cg_sl_add(out, lir_let(L->s, sv, ok));
    for (int j = 0; j < pf->rank; j++) {
        LExpr *k0 = i64c(L, 2 * j), *k1 = i64c(L, 2 * j + 1);
        LExpr *rl = nl[j], *dlo = nl[j], *dhi = nh[j];
        if (j == d) {
            LExpr *s = lir_ref(L->s, sv);
            rl = lir_select(L->s, s, bin(L, LO_MAX, nl[j], first), nl[j]);
            dlo = lir_select(L->s, s, dl[j], nl[j]);
            dhi = lir_select(L->s, s, bin(L, LO_MAX, dh[j], nh[j]), nh[j]);
        }
        cg_sl_add(out, lir_let(L->s, p->rlov[j], rl));
        cg_sl_add(out, lir_let(L->s, p->rextv[j], bin(L, LO_MAX,
                  i64c(L, 0), bin(L, LO_ADD, bin(L, LO_SUB, nh[j],
                                                  lir_ref(L->s, p->rlov[j])),
                                  one))));
        cg_sl_add(out, lir_store(L->s, p->done, &k0, 1, dlo));
        cg_sl_add(out, lir_store(L->s, p->done, &k1, 1, dhi));
    }
}

void cg_store_root(Lw *L, TlFunc *f, SList *out)
{
    for (int i = 0; i < L->nfs; i++) {
        FInfo *p = &L->fs[i];
        LExpr *lo[TL_MAX_RANK], *ext[TL_MAX_RANK];
        if (!p->nest || p->nest->at_func != f || p->ctx != L->ctx ||
            !p->placed || p->slevel != -1)
            continue;
        for (int j = 0; j < p->f->rank; j++) {
            lo[j] = p->lo[j];
            ext[j] = p->ext[j];
        }
        store_site(L, p, lo, ext, out);
    }
}

/* The producers computed at loop `at` of consumer f (nest n): their
 * regions, buffers and nests, before `body`.  Sites are placed inner
 * loops first; a producer placed deeper that reads one placed here
 * counts as a reader over what the whole iteration of `at` needs of it
 * (its region bounded at this level, in variables of its own). */
LStmt *cg_site(Lw *L, TlFunc *f, FInfo *cfi, CgNest *n, int at,
                LStmt *body)
{
    enum { MAXP = 64 };
    FInfo *ps[MAXP];
    int real[MAXP], np = 0, nreal = 0, nstore = 0;
    Ival2 reg[MAXP][TL_MAX_RANK];
    Env cenv;
    SList out = {0};

    for (int i = 0; i < L->nfs && np < MAXP; i++) {
        FInfo *p = &L->fs[i];
        if (!p->nest || p->nest->at_func != f || p->ctx != L->ctx)
            continue;
        if (!p->placed && p->nest->at_var == n->loops[at].tv) {
            if ((p->slevel = store_level(L, p, n, at)) < -1)
                return body;
            real[np] = 1;
            ps[np++] = p;
            nreal++;
        } else if (p->placed && p->level > at) {
            nstore += p->nest->store_dir && p->slevel == at;
            real[np] = 0;
            ps[np++] = p;
        }
    }
    if (!nreal && !nstore)
        return body;
    for (int i = 0; i < np; i++)
        if (real[i] && n->loops[at].kind == LP_VECTORIZED) {
            cg_unsupported(L, ps[i]->nest->at_loc,
                        "'compute_at' inside a vectorized loop");
            return body;
        }
    /* The consumer's index ranges over one iteration of the loop. */
    memset(&cenv, 0, sizeof cenv);
    for (int j = 0; j < f->rank; j++) {
        Ival2 r;
        LExpr *lo = to_dt(L, DT_I64, cfi->rlo[j]);
        if (lexpr_ival(L, n, at, lir_ref(L->s, n->defvar[j]), &r))
            r = iv_mk(i64c(L, 0), bin(L, LO_SUB, to_dt(L, DT_I64,
                      cfi->rext[j]), i64c(L, 1)));
        cenv.v[cenv.n] = f->axes[j].var;
        cenv.iv[cenv.n++] = iv_mk(bin(L, LO_ADD, lo, r.lo),
                                  bin(L, LO_ADD, lo, r.hi));
    }
    /* An update's reduction variables, as far as its loops say. */
    for (int q = 0; q < n->nrv && cenv.n < (int)(sizeof cenv.v /
                                                 sizeof cenv.v[0]); q++) {
        const TlVar *rv = n->red->rvars[q];
        Ival2 r;
        LExpr *lo;
        if (!rv->lo ||
            lexpr_ival(L, n, at, lir_ref(L->s, n->defvar[f->rank + q]), &r))
            continue;
        lo = to_dt(L, DT_I64, cg_sym_lower(L, rv->lo, DT_I32, rv->loc));
        cenv.v[cenv.n] = rv;
        cenv.iv[cenv.n++] = iv_mk(bin(L, LO_ADD, lo, r.lo),
                                  bin(L, LO_ADD, lo, r.hi));
    }
    for (int i = np - 1; i >= 0; i--) {
        FInfo *p = ps[i];
        const TlFunc *pf = p->f;
        Ival2 hull[TL_MAX_RANK];
        int any = 0;
        LExpr *size = i64c(L, 1);
        LExpr *nlo[TL_MAX_RANK], *nhi[TL_MAX_RANK];
        int outside = real[i] && p->slevel < at;

        hull_reads(L, &cenv, f->value, pf, hull, &any);
        for (int q = i + 1; q < np; q++) {
            Env e;
            memset(&e, 0, sizeof e);
            for (int j = 0; j < ps[q]->f->rank; j++) {
                e.v[e.n] = ps[q]->f->axes[j].var;
                e.iv[e.n++] = reg[q][j];
            }
            hull_reads(L, &e, ps[q]->f->value, pf, hull, &any);
        }
        for (int q = pf->rank - 1; q >= 0; q--) {
            int j = p->sorder[q];
            LExpr *lo = p->lo[j], *hi = bin(L, LO_SUB, bin(L, LO_ADD,
                        p->lo[j], p->ext[j]), i64c(L, 1));
            if (any) {
                lo = bin(L, LO_MAX, hull[j].lo, lo);
                hi = bin(L, LO_MIN, hull[j].hi, hi);
            }
            if (!real[i]) {
                LType t = lir_type(DT_I64, 1);
                LVar *vl = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                                   "%s.vlo%d", pf->name, j)), t);
                LVar *vh = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                                   "%s.vhi%d", pf->name, j)), t);
                cg_sl_add(&out, lir_let(L->s, vl, lo));
                cg_sl_add(&out, lir_let(L->s, vh, hi));
                reg[i][j] = iv_mk(lir_ref(L->s, vl), lir_ref(L->s, vh));
                continue;
            }
            if (outside) {
                nlo[j] = lo;
                nhi[j] = hi;
                continue;
            }
            cg_sl_add(&out, lir_let(L->s, p->rlov[j], lo));
            cg_sl_add(&out, lir_let(L->s, p->rextv[j], bin(L, LO_MAX,
                   i64c(L, 0), bin(L, LO_ADD, bin(L, LO_SUB, hi, lo),
                                   i64c(L, 1)))));
            cg_sl_add(&out, lir_let(L->s, p->stv[j], size));
            size = bin(L, LO_MUL, lir_ref(L->s, p->stv[j]),
                       lir_ref(L->s, p->rextv[j]));
            reg[i][j] = iv_mk(p->rlo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              p->rlo[j], p->rext[j]), i64c(L, 1)));
        }
        if (outside)
            slide(L, p, nlo, nhi, &out);
        for (int j = 0; outside && j < pf->rank; j++)
            reg[i][j] = iv_mk(p->rlo[j], bin(L, LO_SUB, bin(L, LO_ADD,
                              p->rlo[j], p->rext[j]), i64c(L, 1)));
        if (real[i] && !outside) {
            p->size = size;
            for (int j = 0; p->slov[0] && j < pf->rank; j++)
                cg_sl_add(&out, lir_let(L->s, p->slov[j], p->rlo[j]));
        }
        if (!real[i] && p->nest->store_dir && p->slevel == at) {
            LExpr *slo[TL_MAX_RANK], *sext[TL_MAX_RANK];
            for (int j = 0; j < pf->rank; j++) {
                slo[j] = reg[i][j].lo;
                sext[j] = bin(L, LO_MAX, i64c(L, 0), bin(L, LO_ADD,
                              bin(L, LO_SUB, reg[i][j].hi, reg[i][j].lo),
                              i64c(L, 1)));
            }
            store_site(L, p, slo, sext, &out);
        }
    }
    /* Deeper producers are not computed yet where these run. */
    for (int i = 0; i < np; i++)
        if (!real[i])
            ps[i]->live = 0;
    for (int i = 0; i < np; i++) {
        FInfo *p = ps[i];
        if (!real[i])
            continue;
        p->placed = 1;
        p->level = at;
        if (p->slevel == at)
            cg_sl_add(&out, lir_alloc(L->s, p->buf, LM_HEAP, &p->size, 1));
        cg_emit_stage(L, (TlFunc *)p->f, p, p->nest, p->red, &out);
    }
    for (int i = 0; i < np; i++)
        ps[i]->live = 1;
    cg_sl_add(&out, body);
    return cg_sl_done(L, &out);
}
