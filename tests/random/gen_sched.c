/*
 * gen_sched.c - random valid schedules for a checked kernel (gen.h).
 *
 * Stages are visited consumers first, so that where a producer goes
 * (compute_at a loop of its consumer) is chosen among the loops the
 * consumer's own directives made.  Each stage's loop nest is
 * simulated as codegen/sched_apply.c builds it: index variables in
 * order, then, when a directive names a reduction variable, the
 * variables of the stage's reduction, each with a key that orders
 * them; split makes keys "a" (outer) and "b" (inner).  A directive is
 * written only when it is valid on the simulated nest: reduction
 * loops stay serial and in their written order, unroll and vectorize
 * without a factor need a constant extent, compute_at never goes
 * inside a vectorized loop, compute_inline only takes stages without
 * reductions.  The stages of kernel calls are scheduled too, through
 * the binding's path (`c1.Y`, `c1.inner.Y`), each within its call
 * instance: computed at a loop of a consumer of the same instance,
 * and the callee's output, which lands in the caller's binding,
 * inlined into the caller's readers.  A call's result itself (`c1`)
 * takes no directive (the backend refuses all but compute_root).
 *
 * Every directive of SPEC 10.3 that the cpu applies is written: split
 * (each tail strategy where it applies, guard_with_if now and then
 * written out), fuse, reorder, tile (with a tail too), vectorize
 * (widths 2 .. 64, or a whole loop of a constant extent up to 64, a
 * power of two or not), unroll, parallel (in chunks or not),
 * compute_at, compute_root, compute_inline, store_at, store_root,
 * reorder_storage (of an intermediate, also after its loops were
 * split), rfactor (where the result does not depend on the order:
 * max, min, argmax, argmin, integer sums and products; a float sum is
 * only within SPEC 10.5's tolerance, tests/cpu/cpu_rfactor) and
 * bound (of a stage computed at root, first in its chain, with the
 * domain of the call's shapes as constants, which make the loop's
 * extent one the later directives see, or as the domain's size
 * expression).
 */
#include "gen.h"

#include <stdio.h>
#include <string.h>

enum { MAXL = 16, MAXF = 64 };

typedef enum { LK_SERIAL, LK_PARALLEL, LK_VECTOR, LK_UNROLL } LKind;

typedef struct Loop {
    char name[40];
    int anon;           /* made by vectorize/unroll with a factor */
    int rv;             /* a reduction loop; key orders them */
    char key[40];
    int64_t ext;        /* constant extent, or -1 */
    LKind kind;
    int own;            /* an index variable's own loop, not split */
} Loop;

typedef struct Nest {
    Loop l[MAXL];
    int n;
} Nest;

typedef struct Sched {
    RgRng *r;
    const RgTarget *t;
    TlKernelInfo *k;
    TlFunc *f[MAXF];
    int nf;
    /* Per stage: the kernel that defines it (k or a callee), the path
     * of calls to it ("" or "c1.inner."), and for a callee's output
     * the caller's tensor it lands in (else NULL). */
    TlKernelInfo *kin[MAXF];
    char pre[MAXF][64];
    TlFunc *res[MAXF];
    TlKernelInfo *rkin[MAXF];   /* ... and the kernel that holds it */
    Nest nest[MAXF];        /* final nests */
    int inl[MAXF];          /* compute_inline */
    int upd[MAXF];          /* lowered as an update: reduction loops */
    int can_rf;             /* the stage being scheduled may rfactor:
                             * max/min of any dtype or an integer
                             * sum/prod, whose result does not depend
                             * on the order (a float sum's does: SPEC
                             * 10.5's tolerance, tests/cpu/cpu_rfactor) */
    int shift_ok;           /* split tails: shift_inwards (no reduction
                             * loops in the nest), round_up (also an
                             * intermediate computed at root) */
    int round_ok;
    int uniq;
} Sched;

/* ====================================================================
 * Readers
 * ==================================================================== */

static int reads(const TlExpr *e, const TlFunc *f)
{
    if (!e)
        return 0;
    if (e->kind == EX_INDEX && e->sym && tl_ref_kind(e->sym) == REF_READ &&
        ((const TlRead *)e->sym)->func == f)
        return 1;
    if (reads(e->a, f) || reads(e->b, f) || reads(e->c, f))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (reads(e->args.v[i], f))
            return 1;
    return 0;
}

/* Stage f of the call instance of stage `like` (the same kernel
 * called twice shares its TlFuncs: the path tells them apart). */
static int find(const Sched *s, const TlFunc *f, int like)
{
    for (int i = 0; i < s->nf; i++)
        if (s->f[i] == f && !strcmp(s->pre[i], s->pre[like]))
            return i;
    return -1;
}

/* Is f passed whole to a call of kernel k? */
static int passed_whole(const TlKernelInfo *k, const TlFunc *f)
{
    for (int c = 0; c < k->ncalls; c++) {
        TlCall *call = k->calls[c];
        for (int i = 0; call->inputs && i < call->callee->ninputs; i++)
            if (call->inputs[i] == f)
                return 1;
    }
    return 0;
}

/* Is f an output of kernel k? */
static int is_output(const TlKernelInfo *k, const TlFunc *f)
{
    for (int o = 0; o < k->noutputs; o++)
        if (k->outputs[o] == f)
            return 1;
    return 0;
}

/* Does e read f outside the reduction `red`? */
static int reads_outside(const TlExpr *e, const TlExpr *red, const TlFunc *f)
{
    if (!e || e == red)
        return 0;
    if (e->kind == EX_INDEX && e->sym && tl_ref_kind(e->sym) == REF_READ &&
        ((const TlRead *)e->sym)->func == f)
        return 1;
    if (reads_outside(e->a, red, f) || reads_outside(e->b, red, f) ||
        reads_outside(e->c, red, f))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (reads_outside(e->args.v[i], red, f))
            return 1;
    return 0;
}

/* The one stage that reads stage fi (of its own kernel), or -1
 * (none, several, or it is passed whole to a call). */
static int sole_reader(const Sched *s, int fi)
{
    const TlKernelInfo *k = s->kin[fi];
    const TlFunc *f = s->f[fi];
    int who = -1;

    if (passed_whole(k, f))
        return -1;
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *g = k->funcs[i];
        if (g == f || !reads(g->value, f))
            continue;
        if (who >= 0 || find(s, g, fi) < 0)
            return -1;
        who = find(s, g, fi);
    }
    return who;
}

/* ====================================================================
 * The nest
 * ==================================================================== */

static int pos(const Nest *n, const char *name)
{
    for (int i = 0; i < n->n; i++)
        if (!n->l[i].anon && !strcmp(n->l[i].name, name))
            return i;
    return -1;
}

static int rv_order_ok(const Nest *n)
{
    const char *last = NULL;

    for (int i = 0; i < n->n; i++) {
        if (!n->l[i].rv)
            continue;
        if (last && strcmp(last, n->l[i].key) >= 0)
            return 0;
        last = n->l[i].key;
    }
    return 1;
}

/* No parallel loop inside a vectorized one (OpenMP cannot). */
static int par_vec_ok(const Nest *n)
{
    int vec = 0;

    for (int i = 0; i < n->n; i++) {
        if (n->l[i].kind == LK_PARALLEL && vec)
            return 0;
        vec |= n->l[i].kind == LK_VECTOR;
    }
    return 1;
}

static void fresh(Sched *s, char *out, size_t len)
{
    snprintf(out, len, "q%d", ++s->uniq);
}

/* Splits loop i by f into outer (name o, or i's own name) and inner
 * (name in, or anonymous). */
static void split(Nest *n, int i, const char *oname, const char *in,
                  int64_t f)
{
    Loop old = n->l[i];
    char o[40];

    snprintf(o, sizeof o, "%s", oname);
    memmove(&n->l[i + 2], &n->l[i + 1],
            (size_t)(n->n - i - 1) * sizeof n->l[0]);
    n->n++;
    n->l[i] = old;
    n->l[i + 1] = old;
    snprintf(n->l[i].name, sizeof n->l[i].name, "%s", o);
    n->l[i].ext = old.ext >= 0 ? (old.ext + f - 1) / f : -1;
    n->l[i].kind = LK_SERIAL;
    n->l[i + 1].anon = !in;
    snprintf(n->l[i + 1].name, sizeof n->l[i + 1].name, "%s",
             in ? in : "");
    n->l[i + 1].ext = f;
    n->l[i + 1].kind = LK_SERIAL;
    n->l[i].own = n->l[i + 1].own = 0;
    if (old.rv) {
        size_t kl = strlen(old.key);
        if (kl + 2 <= sizeof old.key) {
            n->l[i].key[kl] = 'a';
            n->l[i + 1].key[kl] = 'b';
            n->l[i].key[kl + 1] = n->l[i + 1].key[kl + 1] = 0;
        }
    }
}

/* A named serial loop, pure (want_rv 0), reduction (1) or any (2). */
static int pick_loop(Sched *s, const Nest *n, int want_rv)
{
    int c[MAXL], m = 0;

    for (int i = 0; i < n->n; i++)
        if (!n->l[i].anon && n->l[i].kind == LK_SERIAL &&
            (want_rv == 2 || n->l[i].rv == want_rv))
            c[m++] = i;
    return m ? c[rg_below(s->r, m)] : -1;
}

static int plain_name(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static int pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

static int directive1(Sched *s, Nest *n, TlBuf *out, int *unroll_budget);

/* The tail argument of a split (or a tile) of loops that are index
 * variables' own loops (own): round_up only there and where the stage
 * may pad, shift_inwards where no reduction accumulates, now and then
 * the default written out. */
static const char *tail_arg(Sched *s, int own)
{
    if (s->round_ok && own && rg_chance(s->r, 30))
        return ", round_up";
    if (s->shift_ok && rg_chance(s->r, 30))
        return ", shift_inwards";
    if (rg_chance(s->r, 10))
        return ", guard_with_if";
    return "";
}

/* One random directive on nest n, appended to out; 0 if none fit (n
 * and out unchanged then). */
static int directive(Sched *s, Nest *n, TlBuf *out, int *unroll_budget)
{
    Nest keep = *n;
    int budget = *unroll_budget;
    TlBuf d;

    buf_init(&d);
    if (directive1(s, n, &d, unroll_budget) && rv_order_ok(n) &&
        par_vec_ok(n) && d.len) {
        buf_puts(out, d.s);
        buf_free(&d);
        return 1;
    }
    *n = keep;
    *unroll_budget = budget;
    buf_free(&d);
    return 0;
}

static int directive1(Sched *s, Nest *n, TlBuf *out, int *unroll_budget)
{
    static const int fac[] = {2, 3, 4, 5, 7, 8, 16};
    int w = rg_below(s->r, 100), i, j;
    char a[40], b[40];

    if (n->n + 2 > MAXL)
        return 0;
    if (s->can_rf && rg_chance(s->r, 15)) {     /* rfactor */
        if ((i = pick_loop(s, n, 1)) < 0)
            return 0;
        fresh(s, a, sizeof a);
        buf_printf(out, ".rfactor(%s, %s)", n->l[i].name, a);
        snprintf(n->l[i].name, sizeof n->l[i].name, "%s", a);
        n->l[i].rv = 0;
        s->can_rf = 0;
        return 1;
    }
    if (w < 25) {                               /* split */
        int64_t f = fac[rg_below(s->r, 7)];
        const char *tail = "";
        if ((i = pick_loop(s, n, 2)) < 0)
            return 0;
        fresh(s, a, sizeof a);
        fresh(s, b, sizeof b);
        tail = tail_arg(s, n->l[i].own);
        buf_printf(out, ".split(%s, %s, %s, %lld%s)", n->l[i].name, a, b,
                   (long long)f, tail);
        split(n, i, a, b, f);
        return 1;
    }
    if (w < 35) {                               /* fuse */
        int c[MAXL], m = 0;
        for (i = 0; i + 1 < n->n; i++)
            if (!n->l[i].anon && !n->l[i + 1].anon && !n->l[i].rv &&
                !n->l[i + 1].rv && n->l[i].kind == LK_SERIAL &&
                n->l[i + 1].kind == LK_SERIAL)
                c[m++] = i;
        if (!m)
            return 0;
        i = c[rg_below(s->r, m)];
        fresh(s, a, sizeof a);
        buf_printf(out, ".fuse(%s, %s, %s)", n->l[i].name, n->l[i + 1].name,
                   a);
        n->l[i].ext = n->l[i].ext >= 0 && n->l[i + 1].ext >= 0
                          ? n->l[i].ext * n->l[i + 1].ext : -1;
        snprintf(n->l[i].name, sizeof n->l[i].name, "%s", a);
        n->l[i].own = 0;
        memmove(&n->l[i + 1], &n->l[i + 2],
                (size_t)(n->n - i - 2) * sizeof n->l[0]);
        n->n--;
        return 1;
    }
    if (w < 50) {                               /* reorder */
        int sel[MAXL], m = 0, ps[MAXL], rvs[MAXL], nr = 0;
        Loop l[MAXL];
        for (i = 0; i < n->n; i++)
            if (!n->l[i].anon)
                sel[m++] = i;
        if (m < 2)
            return 0;
        for (i = m - 1; i > 0; i--) {           /* shuffle */
            int t = sel[i];
            j = rg_below(s->r, i + 1);
            sel[i] = sel[j];
            sel[j] = t;
        }
        m = 2 + rg_below(s->r, m - 1);
        /* reduction loops keep their order: sort them among their
         * places in the list */
        for (i = 0; i < m; i++)
            if (n->l[sel[i]].rv)
                rvs[nr++] = i;
        for (i = 1; i < nr; i++)
            for (j = i; j > 0 && strcmp(n->l[sel[rvs[j - 1]]].key,
                                        n->l[sel[rvs[j]]].key) > 0; j--) {
                int t = sel[rvs[j]];
                sel[rvs[j]] = sel[rvs[j - 1]];
                sel[rvs[j - 1]] = t;
            }
        buf_puts(out, ".reorder(");
        for (i = 0; i < m; i++) {
            buf_printf(out, "%s%s", i ? ", " : "", n->l[sel[i]].name);
            ps[i] = sel[i];
            l[i] = n->l[sel[i]];
        }
        buf_putc(out, ')');
        for (i = 1; i < m; i++)
            for (j = i; j > 0 && ps[j - 1] > ps[j]; j--) {
                int t = ps[j];
                ps[j] = ps[j - 1];
                ps[j - 1] = t;
            }
        for (i = 0; i < m; i++)
            n->l[ps[i]] = l[i];
        return 1;
    }
    if (w < 58) {                               /* tile */
        int64_t fa = fac[rg_below(s->r, 7)], fb = fac[rg_below(s->r, 7)];
        char ao[40], bo[40], ai[40], bi[40];
        const char *tail;
        if ((i = pick_loop(s, n, 2)) < 0 || (j = pick_loop(s, n, 2)) < 0 ||
            i >= j || n->n + 2 > MAXL)
            return 0;
        tail = tail_arg(s, n->l[i].own && n->l[j].own);
        fresh(s, ao, sizeof ao);
        fresh(s, bo, sizeof bo);
        fresh(s, ai, sizeof ai);
        fresh(s, bi, sizeof bi);
        snprintf(a, sizeof a, "%s", n->l[i].name);
        snprintf(b, sizeof b, "%s", n->l[j].name);
        split(n, i, ao, ai, fa);
        split(n, j + 1, bo, bi, fb);
        {
            const char *ord[4] = {ao, bo, ai, bi};
            int ps[4];
            Loop l[4];
            for (int q = 0; q < 4; q++) {
                ps[q] = pos(n, ord[q]);
                l[q] = n->l[ps[q]];
            }
            for (int q = 1; q < 4; q++)
                for (int t = q; t > 0 && ps[t - 1] > ps[t]; t--) {
                    int x = ps[t];
                    ps[t] = ps[t - 1];
                    ps[t - 1] = x;
                }
            for (int q = 0; q < 4; q++)
                n->l[ps[q]] = l[q];
        }
        buf_printf(out, ".tile(%s, %s, %s, %s, %s, %s, %lld, %lld%s)", a,
                   b, ao, bo, ai, bi, (long long)fa, (long long)fb, tail);
        return 1;
    }
    if (w < 72) {                               /* vectorize */
        if ((i = pick_loop(s, n, 0)) < 0)
            return 0;
        /* whole: any constant extent up to 64 (a power of two gives
         * vector code, another stays a loop: SPEC 10.4) */
        if (n->l[i].ext >= 1 && n->l[i].ext <= 64 &&
            (pow2(n->l[i].ext) || rg_chance(s->r, 30)) &&
            rg_chance(s->r, 40)) {
            buf_printf(out, ".vectorize(%s)", n->l[i].name);
            n->l[i].kind = LK_VECTOR;
            return 1;
        }
        {
            /* every width the cpu takes, 2 .. 64 */
            int64_t v = (int64_t)2 << rg_below(s->r, 6);
            buf_printf(out, ".vectorize(%s, %lld)", n->l[i].name,
                       (long long)v);
            split(n, i, n->l[i].name, NULL, v);
            n->l[i + 1].kind = LK_VECTOR;
        }
        return 1;
    }
    if (w < 86) {                               /* unroll */
        if ((i = pick_loop(s, n, 2)) < 0)
            return 0;
        if (n->l[i].ext >= 1 && n->l[i].ext <= 8 &&
            n->l[i].ext <= *unroll_budget && rg_chance(s->r, 50)) {
            buf_printf(out, ".unroll(%s)", n->l[i].name);
            *unroll_budget /= (int)n->l[i].ext;
            n->l[i].kind = LK_UNROLL;
            return 1;
        }
        {
            int64_t u = 2 + rg_below(s->r, 3);
            if (u > *unroll_budget)
                return 0;
            *unroll_budget /= (int)u;
            buf_printf(out, ".unroll(%s, %lld)", n->l[i].name,
                       (long long)u);
            split(n, i, n->l[i].name, NULL, u);
            n->l[i + 1].kind = LK_UNROLL;
        }
        return 1;
    }
    for (i = 0; i < n->n; i++)                  /* parallel */
        if (n->l[i].kind == LK_PARALLEL)
            return 0;
    if ((i = pick_loop(s, n, 0)) < 0)
        return 0;
    if (rg_chance(s->r, 30))                    /* in chunks */
        buf_printf(out, ".parallel(%s, %d)", n->l[i].name,
                   1 + rg_below(s->r, 8));
    else
        buf_printf(out, ".parallel(%s)", n->l[i].name);
    n->l[i].kind = LK_PARALLEL;
    return 1;
}

/* ====================================================================
 * Stages
 * ==================================================================== */

/* A size variable's value in the call: its input's extent. */
static int size_of(void *ctx, const TlVar *v, int64_t *out)
{
    const Sched *s = ctx;
    int i;

    if (v->kind != VAR_SIZE || !v->bound_by || v->pack)
        return -1;
    i = tl_func_index(s->k->inputs, s->k->ninputs, v->bound_by);
    if (i < 0 || i >= s->t->nin || !s->t->shape[i] ||
        v->bound_axis >= v->bound_by->rank)
        return -1;
    *out = s->t->shape[i][v->bound_axis];
    return 0;
}

/* Can e be written as a directive's `e` argument: sizes only, in sums
 * (what tl_sym_print writes then parses back)? */
static int sizes_only(const TlSymExpr *e)
{
    if (!e)
        return 0;
    for (int i = 0; i < e->n; i++)
        if (e->t[i].atom->kind != SYM_VAR ||
            e->t[i].atom->var->kind != VAR_SIZE || e->t[i].atom->var->pack)
            return 0;
    return 1;
}

/* `bound(x, min, extent)` of some of f's index variables (its own
 * loops, nothing split yet), with the stage's domain in the call:
 * written as constants, which make the loop's extent one (so that a
 * whole vectorize or unroll applies later), or as the domain's size
 * expression.  Returns the number written. */
static int bounds(Sched *s, const TlFunc *f, Nest *n, TlBuf *chain)
{
    int nd = 0;

    for (int j = 0; j < f->rank && j < n->n; j++) {
        const TlAxis *ax = &f->axes[j];
        int64_t lo = 0, ext;
        if (n->l[j].anon || !rg_chance(s->r, 25) || !ax->extent ||
            (ax->lo && tl_sym_eval(ax->lo, size_of, s, &lo)) ||
            tl_sym_eval(ax->extent, size_of, s, &ext))
            continue;
        if (rg_chance(s->r, 30) && sizes_only(ax->extent) &&
            (!ax->lo || sizes_only(ax->lo))) {
            buf_printf(chain, ".bound(%s, ", n->l[j].name);
            if (ax->lo)
                tl_sym_print(chain, ax->lo);
            else
                buf_putc(chain, '0');
            buf_puts(chain, ", ");
            tl_sym_print(chain, ax->extent);
            buf_putc(chain, ')');
        } else {
            buf_printf(chain, ".bound(%s, %lld, %lld)", n->l[j].name,
                       (long long)lo, (long long)ext);
            n->l[j].ext = ext;
        }
        nd++;
    }
    return nd;
}

/* reorder_storage of an intermediate: two or more of its axes in a
 * random order. */
static int reorder_storage(Sched *s, const TlFunc *f, TlBuf *chain)
{
    int ax[TL_MAX_RANK], m = 0;

    for (int j = 0; j < f->rank; j++) {
        if (!plain_name(f->axes[j].var->name))
            return 0;
        ax[m++] = j;
    }
    if (m < 2)
        return 0;
    for (int i = m - 1; i > 0; i--) {
        int j = rg_below(s->r, i + 1), t = ax[i];
        ax[i] = ax[j];
        ax[j] = t;
    }
    m = 2 + rg_below(s->r, m - 1);
    buf_puts(chain, ".reorder_storage(");
    for (int i = 0; i < m; i++)
        buf_printf(chain, "%s%s", i ? ", " : "", f->axes[ax[i]].var->name);
    buf_putc(chain, ')');
    return 1;
}

/* The loops a producer may be computed in: named, not vectorized,
 * not inside a vectorized loop. */
static int at_loops(const Nest *n, int *out)
{
    int m = 0;

    for (int i = 0; i < n->n; i++) {
        if (n->l[i].kind == LK_VECTOR)
            break;
        if (!n->l[i].anon)
            out[m++] = i;
    }
    return m;
}

static int stage(Sched *s, int fi, TlBuf *out)
{
    TlFunc *f = s->f[fi];
    Nest *n = &s->nest[fi];
    TlBuf chain;
    int ndir = 0, at = -1, atloop = -1, unroll_budget = 16;
    int use_rv = 0, nd;

    buf_init(&chain);
    /* where it is computed: a callee's output landing in a stage of
     * the caller may be inlined into the caller's readers */
    if (s->res[fi] && !f->nreds && !passed_whole(s->rkin[fi], s->res[fi]) &&
        !is_output(s->rkin[fi], s->res[fi]) && rg_chance(s->r, 25)) {
        s->inl[fi] = 1;
        buf_printf(out, "    %s%s.compute_inline()\n", s->pre[fi], f->name);
        buf_free(&chain);
        return 1;
    }
    if (f->kind == FN_STAGE) {
        int reader = sole_reader(s, fi), w = rg_below(s->r, 100);
        int lp[MAXL], m;
        if (w < 25 && !f->nreds && !passed_whole(s->kin[fi], f)) {
            s->inl[fi] = 1;
            buf_printf(out, "    %s%s.compute_inline()\n", s->pre[fi],
                       f->name);
            buf_free(&chain);
            return 1;
        }
        /* Not supported by the cpu backend (yet): a producer read
         * through zero_pad/clamp_edge, or read outside the reduction
         * of a consumer lowered as an update (whose value outside the
         * reduction is computed in a nest of its own). */
        if (w < 70 && reader >= 0 && !s->inl[reader] && !f->fixed &&
            !(s->upd[reader] &&
              reads_outside(s->f[reader]->value,
                            s->f[reader]->reds[0]->expr, f)) &&
            (m = at_loops(&s->nest[reader], lp))) {
            at = reader;
            atloop = lp[rg_below(s->r, m)];
        }
    }
    /* its loops */
    n->n = 0;
    for (int j = 0; j < f->rank && n->n < MAXL; j++) {
        Loop *l = &n->l[n->n++];
        int64_t c;
        memset(l, 0, sizeof *l);
        snprintf(l->name, sizeof l->name, "%s", f->axes[j].var ?
                 f->axes[j].var->name : "?");
        /* the variables of an index pack (`..i`) cannot be named */
        l->anon = !plain_name(l->name);
        l->own = 1;
        /* the backend takes extents from the call's shapes and the
         * readers' regions: only split factors and reduction ranges
         * are constants to it */
        (void)c;
        l->ext = -1;
    }
    for (int j = 0; j < f->rank; j++)
        if (!f->axes[j].var)
            return 0;
    /* bound: a stage of this kernel computed at root (not at a loop of
     * another, not of a kernel call), before any split of the axis */
    if (!s->pre[fi][0] && at < 0 && !s->res[fi])
        ndir += bounds(s, f, n, &chain);
    if (f->nreds == 1 && f->rank + f->reds[0]->nrvars < 12 &&
        rg_chance(s->r, 50)) {
        TlReduce *red = f->reds[0];
        use_rv = 1;
        s->upd[fi] = 1;
        s->can_rf = red->op == RD_MAX || red->op == RD_MIN ||
                    red->op == RD_ARGMAX || red->op == RD_ARGMIN ||
                    (dt_is_int(red->expr->dtype) &&
                     (red->op == RD_SUM || red->op == RD_PROD));
        for (int v = 0; v < red->nrvars; v++) {
            Loop *l = &n->l[n->n++];
            int64_t c;
            memset(l, 0, sizeof *l);
            snprintf(l->name, sizeof l->name, "%s", red->rvars[v]->name);
            l->anon = !plain_name(l->name);
            l->rv = 1;
            snprintf(l->key, sizeof l->key, "%c", 'A' + v);
            l->ext = red->rvars[v]->extent &&
                     tl_sym_const(red->rvars[v]->extent, &c) ? c : -1;
        }
    }
    nd = rg_below(s->r, 5);
    s->shift_ok = !use_rv;
    s->round_ok = !use_rv && f->kind == FN_STAGE && at < 0;
    for (int d = 0; d < nd; d++)
        ndir += directive(s, n, &chain, &unroll_budget);
    s->can_rf = s->shift_ok = s->round_ok = 0;
    if (use_rv) {
        /* the nest has its reduction loops only when a directive names
         * one: make sure one does */
        int named = 0;
        for (int i = 0; i < n->n; i++)
            if (n->l[i].rv && !n->l[i].anon && strstr(chain.s ? chain.s :
                                                      "", n->l[i].name))
                named = 1;
        if (!named) {
            int i = pick_loop(s, n, 1);
            if (i < 0) {
                for (i = 0; i < n->n && !(n->l[i].rv && !n->l[i].anon); i++)
                    ;
            }
            if (i < n->n) {
                int64_t u = 2;
                buf_printf(&chain, ".unroll(%s, %lld)", n->l[i].name,
                           (long long)u);
                if (n->l[i].kind == LK_SERIAL) {
                    split(n, i, n->l[i].name, NULL, u);
                    n->l[i + 1].kind = LK_UNROLL;
                }
                ndir++;
            }
        }
    }
    if (at >= 0) {
        const Nest *cn = &s->nest[at];
        buf_printf(&chain, ".compute_at(%s, %s)", s->f[at]->name,
                   cn->l[atloop].name);
        ndir++;
        if (rg_chance(s->r, 30)) {
            /* stored at an outer loop (or the root) that no parallel
             * loop separates from the compute loop: a sliding window */
            int u = rg_below(s->r, atloop + 2) - 1, par = 0;
            while (u > 0 && cn->l[u].anon)
                u--;
            for (int i = u + 1; i <= atloop; i++)
                par |= cn->l[i].kind == LK_PARALLEL;
            if (!par && u < 0) {
                buf_puts(&chain, ".store_root()");
                ndir++;
            } else if (!par && !cn->l[u].anon) {
                buf_printf(&chain, ".store_at(%s, %s)", s->f[at]->name,
                           cn->l[u].name);
                ndir++;
            }
        }
    } else if (f->kind == FN_STAGE && rg_chance(s->r, 20)) {
        buf_puts(&chain, rg_chance(s->r, 70) ? ".compute_root()"
                                             : ".store_root()");
        ndir++;
    }
    if (f->kind == FN_STAGE && rg_chance(s->r, 20))
        ndir += reorder_storage(s, f, &chain);
    if (chain.len)
        buf_printf(out, "    %s%s%s\n", s->pre[fi], f->name, chain.s);
    buf_free(&chain);
    return ndir;
}

/* The stages of kernel k (reached through path pre, by call; NULL at
 * the top) and of the calls inside it, each kernel's in dependency
 * order. */
static void collect(Sched *s, TlKernelInfo *k, const char *pre,
                    const TlCall *call)
{
    for (int i = 0; i < k->nfuncs && s->nf < MAXF; i++) {
        TlFunc *f = k->funcs[i];
        if ((f->kind != FN_STAGE && f->kind != FN_OUTPUT) || !f->value ||
            f->rank <= 0)
            continue;
        s->f[s->nf] = f;
        s->kin[s->nf] = k;
        snprintf(s->pre[s->nf], sizeof s->pre[0], "%s", pre);
        s->res[s->nf] = NULL;
        for (int o = 0; call && call->results && f->kind == FN_OUTPUT &&
                        o < k->noutputs; o++)
            if (k->outputs[o] == f) {
                s->res[s->nf] = call->results[o];
                s->rkin[s->nf] = call->kernel;
            }
        s->nf++;
    }
    for (int c = 0; c < k->ncalls; c++) {
        TlCall *cl = k->calls[c];
        char p[64];
        if (!cl->name || !cl->callee ||
            (size_t)snprintf(p, sizeof p, "%s%s.", pre, cl->name) >=
                sizeof p)
            continue;
        collect(s, cl->callee, p, cl);
    }
}

int rg_schedule(RgRng *rng, const RgTarget *t, TlKernelInfo *k,
                const char *name, TlBuf *out)
{
    static Sched ss;
    Sched *s = &ss;
    int n = 0;

    memset(s, 0, sizeof *s);
    s->r = rng;
    s->t = t;
    s->k = k;
    collect(s, k, "", NULL);
    buf_printf(out, "schedule %s for %s {\n", name, t->name);
    for (int i = s->nf - 1; i >= 0; i--)
        n += stage(s, i, out);
    buf_puts(out, "}\n");
    return n;
}
