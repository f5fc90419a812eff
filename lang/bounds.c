/*
 * bounds.c - reduction ranges, stage domains and out-of-bounds reads,
 * by interval arithmetic over symbolic bounds (Halide's bounds
 * inference, Tensor Comprehensions' range inference).
 *
 * Forward, producers first (bnd_forward): a reduction variable without
 * an explicit range takes it from the tensor axes it indexes as
 * `a*k + b` (b free of loop variables); they must agree.  The same rule
 * gives every stage a "natural" domain from its own reads, used when a
 * stage is read through a reduction, passed whole to a call, or read
 * through zero_pad/clamp_edge.
 *
 * Backward, consumers first (bnd_backward): an output's domain is its
 * declared shape; an intermediate stage's domain is the hull of the
 * index ranges its consumers read.  Then every read of a tensor with a
 * fixed extent is checked: provably outside is an error, unproven is
 * a run-time check (TlRead.check).
 */
#include "lang/lang_int.h"

#include <string.h>

typedef struct Ival {
    TlSymExpr *lo, *hi;     /* inclusive; both NULL when unknown */
} Ival;

static const Ival unknown = {NULL, NULL};

static int is_loop_var(void *ctx, const TlVar *v)
{
    (void)ctx;
    return v->kind == VAR_INDEX || v->kind == VAR_RVAR;
}

static int has_loop_vars(const TlSymExpr *e)
{
    return sym_mentions(e, is_loop_var, NULL);
}

/* ====================================================================
 * Interval arithmetic
 * ==================================================================== */

static Ival ival_of(Chk *c, const TlSymExpr *s);

static TlSymExpr *atom_sym(Chk *c, const TlSymAtom *at)
{
    /* A one-term expression with the same atom; built through
     * scale so the representation is canonical. */
    TlSymExpr *e = arena_alloc(c->a, sizeof *e + sizeof e->t[0]);
    e->n = 1;
    e->t[0].coef = 1;
    e->t[0].atom = at;
    return e;
}

static Ival mk(TlSymExpr *lo, TlSymExpr *hi)
{
    Ival r = {lo, hi};
    if (!lo || !hi)
        return unknown;
    return r;
}

static Ival ival_mul(Chk *c, Ival x, Ival y)
{
    TlArena *a = c->a;
    TlSymExpr *p1, *p2, *p3, *p4;

    if (!x.lo || !y.lo)
        return unknown;
    if (sym_equal(y.lo, y.hi)) {
        Ival t = x;
        x = y;
        y = t;
    }
    if (sym_equal(x.lo, x.hi)) {
        /* A point times an interval: its sign decides the order. */
        if (sym_prove_nonneg(x.lo))
            return mk(sym_mul(a, x.lo, y.lo), sym_mul(a, x.lo, y.hi));
        if (sym_prove_nonneg(sym_scale(a, x.lo, -1)))
            return mk(sym_mul(a, x.lo, y.hi), sym_mul(a, x.lo, y.lo));
    }
    p1 = sym_mul(a, x.lo, y.lo);
    p2 = sym_mul(a, x.lo, y.hi);
    p3 = sym_mul(a, x.hi, y.lo);
    p4 = sym_mul(a, x.hi, y.hi);
    return mk(sym_min(a, sym_min(a, p1, p2), sym_min(a, p3, p4)),
              sym_max(a, sym_max(a, p1, p2), sym_max(a, p3, p4)));
}

static Ival ival_atom(Chk *c, const TlSymAtom *at)
{
    TlArena *a = c->a;
    int64_t k;

    if (at->kind != SYM_VAR && !has_loop_vars(at->a) &&
        !has_loop_vars(at->b)) {
        TlSymExpr *p = atom_sym(c, at);
        return mk(p, p);
    }
    switch (at->kind) {
    case SYM_VAR: {
        TlVar *v = at->var;
        if (v->kind != VAR_INDEX && v->kind != VAR_RVAR) {
            TlSymExpr *p = atom_sym(c, at);
            return mk(p, p);
        }
        return mk(v->lo, sym_addc(a, sym_add(a, v->lo, v->extent), -1));
    }
    case SYM_DIV: {
        Ival x = ival_of(c, at->a);
        if (!x.lo)
            return unknown;
        if (tl_sym_const(at->b, &k) && k != 0)
            return k > 0 ? mk(sym_div(a, x.lo, at->b), sym_div(a, x.hi, at->b))
                         : mk(sym_div(a, x.hi, at->b),
                              sym_div(a, x.lo, at->b));
        if (!has_loop_vars(at->b) && sym_prove_lt(sym_const(a, 0), at->b))
            return mk(sym_div(a, x.lo, at->b), sym_div(a, x.hi, at->b));
        return unknown;
    }
    case SYM_MOD: {
        Ival x = ival_of(c, at->a);
        TlSymExpr *top;
        if (has_loop_vars(at->b) ||
            !sym_prove_lt(sym_const(a, 0), at->b))
            return unknown;
        top = sym_addc(a, at->b, -1);
        if (x.lo && sym_prove_nonneg(x.lo) && sym_prove_le(x.hi, top))
            return x;
        return mk(sym_const(a, 0), top);
    }
    case SYM_MIN:
    case SYM_MAX: {
        Ival x = ival_of(c, at->a), y = ival_of(c, at->b);
        if (!x.lo || !y.lo)
            return unknown;
        if (at->kind == SYM_MIN)
            return mk(sym_min(a, x.lo, y.lo), sym_min(a, x.hi, y.hi));
        return mk(sym_max(a, x.lo, y.lo), sym_max(a, x.hi, y.hi));
    }
    case SYM_MUL:
        return ival_mul(c, ival_of(c, at->a), ival_of(c, at->b));
    case SYM_LT:
    case SYM_EQ:
        return mk(sym_const(a, 0), sym_const(a, 1));
    case SYM_SEL: {
        /* Either side may be taken: the hull of both. */
        Ival x = ival_of(c, at->a), y = ival_of(c, at->b);
        if (!x.lo || !y.lo)
            return unknown;
        return mk(sym_min(a, x.lo, y.lo), sym_max(a, x.hi, y.hi));
    }
    }
    return unknown;
}

static Ival ival_of(Chk *c, const TlSymExpr *s)
{
    TlArena *a = c->a;
    Ival r;

    if (!s)
        return unknown;
    r.lo = r.hi = sym_const(a, s->c);
    for (int i = 0; i < s->n && r.lo; i++) {
        int64_t k = s->t[i].coef;
        Ival x = ival_atom(c, s->t[i].atom);
        if (!x.lo)
            return unknown;
        if (k > 0) {
            r.lo = sym_add(a, r.lo, sym_scale(a, x.lo, k));
            r.hi = sym_add(a, r.hi, sym_scale(a, x.hi, k));
        } else {
            r.lo = sym_add(a, r.lo, sym_scale(a, x.hi, k));
            r.hi = sym_add(a, r.hi, sym_scale(a, x.lo, k));
        }
        r = mk(r.lo, r.hi);
    }
    return r;
}

/* ====================================================================
 * Domains of what a read reads
 * ==================================================================== */

/* The domain (lo, extent) of axis j of g as seen by readers during the
 * forward pass: natural for ordinary stages, else the axis. */
static int forward_domain(Chk *c, TlFunc *g, int j, TlSymExpr **lo,
                          TlSymExpr **ext)
{
    if (j >= g->rank)
        return 0;
    if (g->kind == FN_STAGE) {
        FuncX *gx = chk_fx(c, g);
        if (!gx->nat_lo)
            return 0;
        *lo = gx->nat_lo[j];
        *ext = gx->nat_ext[j];
    } else {
        *lo = g->axes[j].lo;
        *ext = g->axes[j].extent;
    }
    return *lo && *ext;
}

/* One candidate range of variable v. */
typedef struct Cand {
    TlSymExpr *lo, *ext;
    TlRead *rd;
    int axis;
} Cand;

/* The range a*v + b in [L, L + E) gives v, or 0 if this read does not
 * say (v absent, b not free of loop variables, |a| != 1 going down). */
static int candidate(Chk *c, TlRead *rd, int j, TlVar *v, Cand *out)
{
    TlArena *a = c->a;
    TlSymExpr *s, *b, *L, *E, *lo, *hi;
    int64_t k;

    if (!rd->expr || j >= rd->expr->args.n)
        return 0;
    s = shp_sym(c, rd->expr->args.v[j], 1);
    k = sym_coef(s, v);
    if (!k)
        return 0;
    b = sym_drop(a, s, v);
    /* Through a boundary helper only `X.zero_pad[k]` says something:
     * anything else is there to read outside. */
    if (rd->mode != READ_PLAIN && (k != 1 || !tl_sym_const(b, NULL) ||
                                   b->c != 0))
        return 0;
    if (has_loop_vars(b) || !forward_domain(c, rd->func, j, &L, &E))
        return 0;
    if (k == 1) {
        lo = sym_sub(a, L, b);
        out->ext = E;
    } else if (k == -1) {
        lo = sym_addc(a, sym_sub(a, sym_sub(a, b, L), E), 1);
        out->ext = E;
    } else if (k > 1) {
        /* ceil((L - b) / k) .. ceil((L + E - b) / k) */
        TlSymExpr *kk = sym_const(a, k);
        lo = sym_div(a, sym_addc(a, sym_sub(a, L, b), k - 1), kk);
        hi = sym_div(a, sym_addc(a, sym_sub(a, sym_add(a, L, E), b), k - 1),
                     kk);
        out->ext = sym_sub(a, hi, lo);
    } else {
        return 0;
    }
    out->lo = lo;
    out->rd = rd;
    out->axis = j;
    return lo && out->ext;
}

static int same_range(const Cand *x, const Cand *y)
{
    return sym_prove_eq(x->lo, y->lo) && sym_prove_eq(x->ext, y->ext);
}

/* "'K'" for 0..K, else "'1..K + 1'" */
static const char *range_text(Chk *c, const Cand *x)
{
    if (tl_sym_const(x->lo, NULL) && x->lo->c == 0)
        return arena_printf(c->a, "'%s'", sym_str(c->a, x->ext));
    return arena_printf(c->a, "'%s..%s'", sym_str(c->a, x->lo),
                        sym_str(c->a, sym_add(c->a, x->lo, x->ext)));
}

/* Infers v's range from f's reads.  Returns 1 and sets *out when all
 * candidates agree; 0 when there is none; -1 on disagreement (both in
 * *out and *other). */
static int infer_range(Chk *c, TlFunc *f, TlVar *v, Cand *out, Cand *other)
{
    FuncX *fx = chk_fx(c, f);
    int found = 0;

    for (int i = 0; i < fx->reads_in.n; i++) {
        TlRead *rd = fx->reads_in.v[i];
        for (int j = 0; rd->expr && j < rd->expr->args.n; j++) {
            Cand cd;
            if (!candidate(c, rd, j, v, &cd))
                continue;
            if (!found) {
                *out = cd;
                found = 1;
            } else if (!same_range(out, &cd)) {
                *other = cd;
                return -1;
            }
        }
    }
    return found;
}

/* The range `name in a..b` as (lo, extent); 0 after a message when its
 * ends are not sizes. */
static int written_range(Kern *kc, const char *name, const TlExpr *a,
                         const TlExpr *b, TlSymExpr **lo, TlSymExpr **ext)
{
    Chk *c = kc->c;
    TlSymExpr *l = shp_sym(c, a, 0), *h = shp_sym(c, b, 0);

    if (!a || !b || a->dtype == DT_NONE || b->dtype == DT_NONE)
        return 0;
    if (!l || !h) {
        const TlExpr *bad = !l ? a : b;
        diag_error(c->s, bad->loc, DIAG_RANGE_NOT_SIZE, name);
        diag_hint(c->s, "use sizes, integer scalar parameters and "
                        "literals");
        return 0;
    }
    *lo = l;
    *ext = sym_sub(c->a, h, l);
    return 1;
}

static void explicit_range(Kern *kc, TlVar *v, TlExpr *x)
{
    written_range(kc, v->name, x->a, x->b, &v->lo, &v->extent);
}

static void rvar_ranges(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;

    for (int r = 0; r < f->nreds; r++) {
        TlReduce *red = f->reds[r];
        TlExpr *e = red->expr;
        for (int i = 0, n = 0; i < e->args.n; i++) {
            TlExpr *x = e->args.v[i];
            TlVar *v;
            Cand one, two;
            int got;
            if (!x || tl_ref_kind(x->sym) != REF_VAR)
                continue;
            v = x->sym;
            n++;
            if (x->a || x->b) {
                explicit_range(kc, v, x);
                continue;
            }
            got = infer_range(c, f, v, &one, &two);
            if (got == 1) {
                v->lo = one.lo;
                v->extent = one.ext;
            } else if (got == 0) {
                diag_error(c->s, x->loc, DIAG_RVAR_NO_RANGE, v->name);
                diag_hint(c->s, "give it a range: %s(%s in 0..N)",
                          op_spelling(red->op), v->name);
            } else {
                diag_error(c->s, x->loc, DIAG_RVAR_AMBIGUOUS, v->name,
                           range_text(c, &one), one.rd->func->name,
                           one.axis, range_text(c, &two),
                           two.rd->func->name, two.axis,
                           op_spelling(red->op), v->name,
                           sym_str(c->a, one.ext));
                diag_note(c->s, one.rd->expr->args.v[one.axis]->loc,
                          "'%s' indexes axis %d of '%s' here", v->name,
                          one.axis, one.rd->func->name);
                diag_note(c->s, two.rd->expr->args.v[two.axis]->loc,
                          "and axis %d of '%s' here", two.axis,
                          two.rd->func->name);
            }
        }
    }
}

void bnd_forward(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);

    if (!f->stmt || f->call)
        return;
    rvar_ranges(kc, f);
    if (f->kind != FN_STAGE || fx->nat_lo)
        return;
    fx->nat_lo = arena_alloc(c->a, (size_t)(f->rank + 1) *
                                       sizeof *fx->nat_lo);
    fx->nat_ext = arena_alloc(c->a, (size_t)(f->rank + 1) *
                                        sizeof *fx->nat_ext);
    for (int j = 0; j < f->rank; j++) {
        Cand one, two;
        TlVar *v = f->axes[j].var;
        const TlIdent *id = j < f->stmt->names.n ? &f->stmt->names.v[j]
                                                 : NULL;
        if (id && id->lo && !id->pack) {
            /* A bad range was reported: the stage is not computed. */
            if (!written_range(kc, id->name, id->lo, id->hi,
                               &fx->nat_lo[j], &fx->nat_ext[j]))
                f->dtype = DT_NONE;
            continue;
        }
        if (v && infer_range(c, f, v, &one, &two) == 1) {
            fx->nat_lo[j] = one.lo;
            fx->nat_ext[j] = one.ext;
        }
    }
}

/* ====================================================================
 * Backward: domains, then read ranges
 * ==================================================================== */

static void set_axis(TlFunc *f, int j, TlSymExpr *lo, TlSymExpr *ext)
{
    f->axes[j].lo = lo;
    f->axes[j].extent = ext;
    if (f->axes[j].var) {
        f->axes[j].var->lo = lo;
        f->axes[j].var->extent = ext;
    }
}

/* The domain of reachable tensor f from its readers (already done). */
static void domain(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);
    TlArena *a = c->a;

    if (f->kind != FN_STAGE) {
        for (int j = 0; j < f->rank; j++)
            set_axis(f, j, f->axes[j].lo, f->axes[j].extent);
        return;
    }
    fx->lo_by = arena_alloc(a, (size_t)(f->rank + 1) * sizeof *fx->lo_by);
    fx->hi_by = arena_alloc(a, (size_t)(f->rank + 1) * sizeof *fx->hi_by);
    for (int j = 0; j < f->rank; j++) {
        TlSymExpr *lo = NULL, *hi = NULL;
        int was_fixed = f->fixed, known = !f->fixed, any = 0;
        for (int i = 0; i < fx->reads_of.n && known; i++) {
            TlRead *rd = fx->reads_of.v[i];
            if (!rd->in || !chk_fx(c, rd->in)->reachable)
                continue;
            if (!rd->lo[j]) {
                known = 0;
                break;
            }
            if (!any) {
                lo = rd->lo[j];
                hi = rd->hi[j];
                fx->lo_by[j] = fx->hi_by[j] = rd;
                any = 1;
                continue;
            }
            if (!sym_prove_le(lo, rd->lo[j])) {
                if (sym_prove_le(rd->lo[j], lo))
                    fx->lo_by[j] = rd;
                lo = sym_min(a, lo, rd->lo[j]);
            }
            if (!sym_prove_le(rd->hi[j], hi)) {
                if (sym_prove_le(hi, rd->hi[j]))
                    fx->hi_by[j] = rd;
                hi = sym_max(a, hi, rd->hi[j]);
            }
        }
        if (known && any && lo && hi) {
            set_axis(f, j, lo, sym_addc(a, sym_sub(a, hi, lo), 1));
            continue;
        }
        /* Data-dependent reads, or a fixed stage: its own definition
         * says, and the other reads are checked against it. */
        fx->lo_by[j] = fx->hi_by[j] = NULL;
        f->fixed = 1;
        if (fx->nat_lo && fx->nat_lo[j] && fx->nat_ext[j]) {
            set_axis(f, j, fx->nat_lo[j], fx->nat_ext[j]);
            continue;
        }
        if (f->axes[j].extent == NULL && f->dtype != DT_NONE) {
            TlVar *v = f->axes[j].var;
            diag_error(c->s, v ? v->loc : f->loc, DIAG_DOMAIN_UNKNOWN,
                       j, f->name);
            diag_hint(c->s, was_fixed
                ? "the stage is passed whole or read through zero_pad/"
                  "clamp_edge, so its definition must fix its size: "
                  "declare it, %s[.., %s in 0..N, ..], or index an input "
                  "with it there"
                : "it is only read at data-dependent indices; declare its "
                  "range, %s[.., %s in 0..N, ..], or index an input with "
                  "it in its definition", f->name, v ? v->name : "?");
            f->dtype = DT_NONE;
        }
    }
}

static void read_ranges(Kern *kc, TlFunc *f)
{
    Chk *c = kc->c;
    FuncX *fx = chk_fx(c, f);

    for (int i = 0; i < fx->reads_in.n; i++) {
        TlRead *rd = fx->reads_in.v[i];
        for (int j = 0; rd->expr && j < rd->expr->args.n; j++) {
            Ival iv = ival_of(c, shp_sym(c, rd->expr->args.v[j], 1));
            rd->lo[j] = iv.lo;
            rd->hi[j] = iv.hi;
        }
    }
}

/* Adds a note when the reading stage's domain was widened by one of
 * its own consumers, which is often the real cause. */
static void note_widened(Chk *c, TlRead *rd, int j, int high)
{
    TlFunc *f = rd->in;
    FuncX *fx = chk_fx(c, f);
    TlSymExpr *s;

    if (!f || f->kind != FN_STAGE || !fx->lo_by)
        return;
    s = shp_sym(c, rd->expr->args.v[j], 1);
    for (int k = 0; k < f->rank; k++) {
        TlVar *v = f->axes[k].var;
        TlRead *by = high ? fx->hi_by[k] : fx->lo_by[k];
        TlSymExpr *end;
        if (!v || !by || !sym_coef(s, v))
            continue;
        end = high ? sym_addc(c->a, sym_add(c->a, v->lo, v->extent), -1)
                   : v->lo;
        diag_note(c->s, by->expr->loc,
                  "'%s' reaches %s because '%s' reads '%s' here",
                  v->name, sym_str(c->a, end), by->in->name, f->name);
        return;
    }
}

/* A read happens only when the reader's loops are not empty, so every
 * extent of the reader's variables is >= 1 there.  For an extent
 * `V + c` (V a size) that is V >= 1 - c, applied by substituting
 * V := V' + (1 - c) with a fresh size V' >= 0 before proving. */
typedef struct Assume {
    Chk *c;
    TlVar *var[16], *fresh[16];
    int64_t min[16];
    int n;
} Assume;

static void assume_extent(Chk *c, Assume *as, const TlSymExpr *e)
{
    TlVar *v;
    int64_t need;
    int i;

    if (!e || e->n != 1 || e->t[0].coef != 1 ||
        e->t[0].atom->kind != SYM_VAR || e->c > 0)
        return;
    v = e->t[0].atom->var;
    if (v->kind != VAR_SIZE)
        return;
    need = 1 - e->c;
    for (i = 0; i < as->n && as->var[i] != v; i++)
        ;
    if (i == as->n) {
        if (as->n == 16)
            return;
        as->var[i] = v;
        as->fresh[i] = chk_var(c, VAR_SIZE, v->name, v->loc);
        as->fresh[i]->id = v->id;
        as->min[i] = need;
        as->n++;
    } else if (need > as->min[i]) {
        as->min[i] = need;
    }
}

static void assume_reader(Chk *c, Assume *as, TlFunc *f)
{
    as->c = c;
    as->n = 0;
    for (int j = 0; f && j < f->rank; j++)
        assume_extent(c, as, f->axes[j].extent);
    for (int r = 0; f && r < f->nreds; r++)
        for (int j = 0; j < f->reds[r]->nrvars; j++)
            assume_extent(c, as, f->reds[r]->rvars[j]->extent);
}

static TlSymExpr *assume_map(void *ctx, TlVar *v)
{
    Assume *as = ctx;
    TlArena *a = as->c->a;

    for (int i = 0; i < as->n; i++)
        if (as->var[i] == v)
            return sym_addc(a, sym_var(a, as->fresh[i]), as->min[i]);
    return sym_var(a, v);
}

static TlSymExpr *assumed(Chk *c, Assume *as, const TlSymExpr *e)
{
    if (!as->n || !e)
        return (TlSymExpr *)e;
    return sym_subst(c->a, e, assume_map, as);
}

static void check_read(Kern *kc, TlRead *rd)
{
    Chk *c = kc->c;
    TlFunc *g = rd->func;
    Assume as;

    if (!rd->expr || g->dtype == DT_NONE)
        return;
    for (int j = 0; j < rd->expr->args.n && j < g->rank; j++) {
        TlSymExpr *L = g->axes[j].lo, *E = g->axes[j].extent, *top;
        TlSymExpr *s;
        int proven_high, proven_low;
        if (!rd->lo[j]) {
            rd->check = 1;      /* data-dependent: checked at run time */
            continue;
        }
        if (g->kind == FN_STAGE && !g->fixed)
            continue;           /* its domain covers this read */
        if (rd->mode != READ_PLAIN)
            continue;           /* the helper defines the outside */
        if (!L || !E) {
            rd->check = 1;
            continue;
        }
        top = sym_addc(c->a, sym_add(c->a, L, E), -1);
        assume_reader(c, &as, rd->in);
        {
            TlSymExpr *aL = assumed(c, &as, L), *atop = assumed(c, &as, top);
            TlSymExpr *alo = assumed(c, &as, rd->lo[j]);
            TlSymExpr *ahi = assumed(c, &as, rd->hi[j]);
            if (sym_prove_le(aL, alo) && sym_prove_le(ahi, atop))
                continue;
            proven_high = sym_prove_lt(atop, ahi);
            proven_low = sym_prove_lt(alo, aL);
        }
        /* A read in a select branch may be guarded by the condition
         * (`select(x > 0, T[x - 1], 0.0)`): the ranges here ignore the
         * condition, so only the run-time check can tell. */
        if (rd->conditional && (proven_high || proven_low)) {
            rd->check = 1;
            continue;
        }
        s = shp_sym(c, rd->expr->args.v[j], 1);
        if (proven_high) {
            diag_error(c->s, rd->expr->args.v[j]->loc, DIAG_OOB_HIGH,
                       g->name, sym_str(c->a, s), sym_str(c->a, s),
                       sym_str(c->a, rd->hi[j]), j, g->name,
                       sym_str(c->a, E));
            note_widened(c, rd, j, 1);
        } else if (proven_low) {
            diag_error(c->s, rd->expr->args.v[j]->loc, DIAG_OOB_LOW,
                       g->name, sym_str(c->a, s), sym_str(c->a, s),
                       sym_str(c->a, rd->lo[j]), j, g->name,
                       sym_str(c->a, L));
            note_widened(c, rd, j, 0);
        } else {
            rd->check = 1;
            continue;
        }
        if (g->kind == FN_INPUT || g->kind == FN_CONST)
            diag_hint(c->s, "read it through %s.zero_pad[...] or "
                            "%s.clamp_edge[...] to define the values "
                            "outside", g->name, g->name);
        return;
    }
}

void bnd_backward(Kern *kc)
{
    Chk *c = kc->c;

    for (int i = kc->order.n - 1; i >= 0; i--) {
        TlFunc *f = kc->order.v[i];
        domain(kc, f);
        read_ranges(kc, f);
    }
    for (int i = 0; i < kc->order.n; i++) {
        FuncX *fx = chk_fx(c, kc->order.v[i]);
        for (int j = 0; j < fx->reads_in.n; j++)
            check_read(kc, fx->reads_in.v[j]);
    }
}
