/*
 * cg_seg.c - kernels that no one route takes whole (a ResNet block: two
 * convolutions and the elementwise stages between them; an encoder:
 * matmuls, row reductions, softmax): the runner (target.c) splits them
 * into segments each route can take and runs the segments in order,
 * each on the simulator, their intermediates through DRAM.
 *
 * A segment is a run of the kernel's stages (in dependency order)
 * whose stages but the last are read only inside it: the segment is a
 * kernel of one output, written as tdsl source and checked like any
 * other (its inputs: the kernel's inputs and earlier segments' outputs
 * it reads, at their call shapes), so every route sees an ordinary
 * kernel.  A stage that holds a reduction inside other arithmetic
 * (`S = (sum(d) Q * K) * c`, `F = max(sum(k) N * W, 0)`: a matmul with
 * an epilogue) is split in two, the reduction a stage of its own
 * (NAME__r) and the rest elementwise, unless then no segment takes its
 * halves (NAME__r has no domain of its own when the reduction does not
 * read every index of the stage).  The segments are the partition
 * of the stages into runs (of at most MAX_RUN stages) that compile
 * with the fewest cycles in all, each run's program timed as the
 * simulator counts it (dynamic programming over where runs end).
 * TODO(issue 6): the cost of the conversions between runs is not in
 * that sum: cg_seg_conv.c emits them once the runs are chosen, and the
 * program's estimate (target_seg_est.c) counts them then, at the model
 * of cg_seg_cost.c; the choice of runs would need it before.
 *
 * The program is the segments' programs in order, with the
 * conversions between their DRAM images as instructions (target_seg.c,
 * cg_seg_conv.c); the runner keeps it per kernel and shapes
 * (target.c), so a call plans once.
 */
#include "codegen/acc/cg_int.h"
#include "codegen/acc/plan.h"
#include "interp/interp.h"
#include "parser/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUN = 6, MAX_STAGES = 256 };

/* One stage of the split kernel: a stage of k, or a half of one. */
typedef struct SegStage {
    TlFunc *f;
    const char *name;
    TlBuf text;             /* its definition, one line */
    const char *reads[64];  /* names of the tensors it reads */
    int nreads;
    int64_t shape[TL_MAX_RANK];
    int rank;
} SegStage;

typedef struct Seg {
    TlSession *s;
    TlKernelInfo *k;
    const int64_t *sizes;
    SegStage st[MAX_STAGES];
    int n;
    int serial;
} Seg;

static int lookup(void *ctx, const TlVar *var, int64_t *out)
{
    Seg *g = ctx;

    for (int i = 0; i < g->k->nsizes; i++)
        if (g->k->sizes[i] == var) {
            *out = g->sizes[i];
            return 0;
        }
    return -1;
}

static void add_read(SegStage *x, const char *name)
{
    for (int i = 0; i < x->nreads; i++)
        if (!strcmp(x->reads[i], name))
            return;
    if (x->nreads < (int)(sizeof x->reads / sizeof x->reads[0]))
        x->reads[x->nreads++] = name;
}

/* The tensors e reads, by the names the checker resolved. */
static void reads_of(SegStage *x, const TlExpr *e)
{
    if (!e)
        return;
    if ((e->kind == EX_INDEX || e->kind == EX_NAME) && e->sym &&
        tl_ref_kind(e->sym) == REF_READ)
        add_read(x, ((TlRead *)e->sym)->func->name);
    else if (e->kind == EX_NAME && e->sym && tl_ref_kind(e->sym) == REF_FUNC)
        add_read(x, ((TlFunc *)e->sym)->name);
    reads_of(x, e->a);
    reads_of(x, e->b);
    reads_of(x, e->c);
    for (int i = 0; i < e->args.n; i++)
        reads_of(x, e->args.v[i]);
}

/* `name[i, j] = `, with the declared ranges of the left side. */
static void head(TlBuf *o, const char *name, const TlStmt *st)
{
    buf_printf(o, "    %s[", name);
    for (int i = 0; i < st->names.n; i++) {
        const TlIdent *id = &st->names.v[i];
        buf_printf(o, "%s%s", i ? ", " : "", id->name);
        if (id->lo && id->hi) {
            buf_puts(o, " in ");
            ast_print_expr(o, id->lo);
            buf_puts(o, "..");
            ast_print_expr(o, id->hi);
        }
    }
    buf_puts(o, "] = ");
}

/* The slot of the first reduction inside e that is not e itself. */
static TlExpr **inner_reduce(TlExpr **slot, int top)
{
    TlExpr *e = *slot, **r = NULL;

    if (!e)
        return NULL;
    if (e->kind == EX_REDUCE)
        return top ? NULL : slot;
    if (!r)
        r = inner_reduce(&e->a, 0);
    if (!r)
        r = inner_reduce(&e->b, 0);
    if (!r)
        r = inner_reduce(&e->c, 0);
    for (int i = 0; !r && i < e->args.n; i++)
        r = inner_reduce(&e->args.v[i], 0);
    return r;
}

static int stage_shape(Seg *g, SegStage *x, const TlFunc *f)
{
    x->rank = f->rank;
    for (int j = 0; j < f->rank; j++)
        if (!f->axes[j].extent ||
            tl_sym_eval(f->axes[j].extent, lookup, g, &x->shape[j]))
            return -1;
    return 0;
}

/* Appends stage `name[...] = value` (st's left side, f's domain) to g:
 * its text, what it reads, its shape.  NULL when its shape is not
 * known. */
static SegStage *add_stage(Seg *g, TlFunc *f, const char *name,
                           const TlStmt *st, const TlExpr *value)
{
    SegStage *x = &g->st[g->n++];

    memset(x, 0, sizeof *x);
    x->f = f;
    x->name = name;
    buf_init(&x->text);
    head(&x->text, name, st);
    ast_print_expr(&x->text, value);
    reads_of(x, value);
    return stage_shape(g, x, f) ? NULL : x;
}

/* The stages of k; split[i]: stage i's reduction becomes a stage of
 * its own.  -1 when a stage is not a plain
 * `name[...] = value` definition. */
static int stages(Seg *g, const unsigned char *split)
{
    TlKernelInfo *k = g->k;

    g->n = 0;
    for (int i = 0; i < k->nfuncs; i++) {
        TlFunc *f = k->funcs[i];
        TlStmt *st = f->stmt;
        TlExpr **slot;
        SegStage *x;

        if (!st || st->kind != ST_STAGE || !st->value ||
            g->n + 2 > MAX_STAGES)
            return -1;
        slot = split[i] ? inner_reduce(&st->value, 1) : NULL;
        if (slot) {
            /* NAME__r: the reduction, over the stage's own domain. */
            TlExpr *red = *slot, stand;
            char *rn = arena_printf(&g->s->arena, "%s__r", f->name);
            TlBuf ix;

            if (!add_stage(g, f, rn, st, red))
                return -1;
            /* The rest reads it where the reduction stood. */
            buf_init(&ix);
            buf_printf(&ix, "%s[", rn);
            for (int j = 0; j < st->names.n; j++)
                buf_printf(&ix, "%s%s", j ? ", " : "", st->names.v[j].name);
            buf_puts(&ix, "]");
            memset(&stand, 0, sizeof stand);
            stand.kind = EX_INT;
            stand.str = arena_printf(&g->s->arena, "%s", ix.s);
            buf_free(&ix);
            *slot = &stand;
            x = add_stage(g, f, f->name, st, st->value);
            *slot = red;
            if (!x)
                return -1;
            add_read(x, rn);
            continue;
        }
        if (!add_stage(g, f, f->name, st, st->value))
            return -1;
    }
    return g->n ? 0 : -1;
}

static void free_stages(Seg *g)
{
    for (int i = 0; i < g->n; i++)
        buf_free(&g->st[i].text);
    g->n = 0;
}

static const SegStage *stage_named(const Seg *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->st[i].name, name))
            return &g->st[i];
    return NULL;
}

static TlFunc *input_named(const TlKernelInfo *k, const char *name)
{
    for (int i = 0; i < k->ninputs; i++)
        if (!strcmp(k->inputs[i]->name, name))
            return k->inputs[i];
    return NULL;
}

/* Stages a..b make a segment: each but b is read only inside it. */
static int closed(const Seg *g, int a, int b)
{
    for (int i = a; i < b; i++)
        for (int j = b + 1; j < g->n; j++)
            for (int r = 0; r < g->st[j].nreads; r++)
                if (!strcmp(g->st[j].reads[r], g->st[i].name))
                    return 0;
    return 1;
}

static int in_set(const Seg *g, const unsigned char *in, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (in[i] && !strcmp(g->st[i].name, name))
            return 1;
    return 0;
}

static void put_type(TlBuf *o, TlDType dt, int rank, const int64_t *shape)
{
    buf_printf(o, "%s[", dt_name(dt));
    for (int j = 0; j < rank; j++)
        buf_printf(o, "%s%lld", j ? ", " : "", (long long)shape[j]);
    buf_puts(o, "]");
}

/* The stages with in[i] set, stage b their output, as a checked
 * kernel, else NULL (its source's errors are the caller's to show or
 * drop). */
static TlKernelInfo *stages_kernel(Seg *g, const unsigned char *in, int b,
                                   TlTensor *const *kin)
{
    TlSession *s = g->s;
    TlBuf src;
    TlProgram *prog;
    TlKernelInfo *sk = NULL;
    int file, nin = 0, ne = s->nerrors;
    const char *seen[128];

    buf_init(&src);
    buf_printf(&src, "kernel %s__seg%d(", g->k->name, ++g->serial);
    for (int i = 0; i < g->n; i++)
        for (int r = 0; in[i] && r < g->st[i].nreads; r++) {
            const char *nm = g->st[i].reads[r];
            const SegStage *p;
            TlFunc *f;
            int dup = 0;
            for (int q = 0; q < nin; q++)
                dup |= !strcmp(seen[q], nm);
            if (dup || in_set(g, in, nm) || nin == 128)
                continue;
            seen[nin] = nm;
            buf_printf(&src, "%s%s: ", nin++ ? ", " : "", nm);
            if ((f = input_named(g->k, nm))) {
                int x = tl_func_index(g->k->inputs, g->k->ninputs, f);
                put_type(&src, f->dtype, kin[x]->rank, kin[x]->shape);
            } else if ((p = stage_named(g, nm))) {
                put_type(&src, p->f->dtype, p->rank, p->shape);
            } else {
                buf_free(&src);
                return NULL;
            }
        }
    buf_printf(&src, ") -> (%s: ", g->st[b].name);
    put_type(&src, g->st[b].f->dtype, g->st[b].rank, g->st[b].shape);
    buf_puts(&src, ") {\n");
    for (int i = 0; i < g->n; i++)
        if (in[i])
            buf_printf(&src, "%s\n", g->st[i].text.s);
    buf_puts(&src, "}\n");
    file = tl_add_source(s, arena_printf(&s->arena, "<segment %d of %s>",
                                         g->serial, g->k->name),
                         src.s, src.len);
    buf_free(&src);
    prog = prs_parse(s, file);
    if (prog && s->nerrors == ne && tl_check(s, prog) == 0 &&
        s->nerrors == ne)
        for (int i = 0; i < prog->items.n; i++)
            if (prog->items.v[i]->kind == IT_KERNEL)
                sk = tl_kernel_info(prog->items.v[i]);
    return sk && sk->ok ? sk : NULL;
}

/* Segment a..b as a checked kernel, else NULL. */
static TlKernelInfo *segment_kernel(Seg *g, int a, int b,
                                    TlTensor *const *kin)
{
    unsigned char in[MAX_STAGES];

    for (int i = 0; i < g->n; i++)
        in[i] = i >= a && i <= b;
    return stages_kernel(g, in, b, kin);
}

/* Segment sk's cycles for the accel target on m, timed as the
 * simulator counts them (silently); -1 when it does not compile. */
static int64_t cycles_of(TlSession *s, TlKernelInfo *sk, const AccMachine *m)
{
    int64_t none = 0;
    AccTiming t;

    if (acc_cg_time_program(s, sk, m, &none, &t, NULL, NULL))
        return -1;
    return t.cycles;
}

int acc_seg_plan(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                 const int64_t *sizes, TlTensor *const *in, AccSegPlan *out,
                 TlBuf *why)
{
    Seg *g = tl_xcalloc(1, sizeof *g);
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed;
    unsigned char *split = tl_xcalloc((size_t)k->nfuncs + 1, 1);
    /* best[b]: the fewest cycles of stages 0..b-1 as segments, from[b]
     * the first stage of the last one, kern[b] its kernel. */
    int64_t best[MAX_STAGES + 1];
    int from[MAX_STAGES + 1];
    TlKernelInfo *kern[MAX_STAGES + 1];
    int rc = -1, bad = -1;

    memset(out, 0, sizeof *out);
    if (!null) {
        free(split);
        free(g);
        return -1;
    }
    g->s = s;
    g->k = k;
    g->sizes = sizes;
    s->diag_out = null;
    /* Every reduction inside other arithmetic a stage of its own: a
     * segment of both halves is a candidate like any other, so the
     * stage stays whole where one route takes it cheaper. */
    for (int i = 0; i < k->nfuncs; i++) {
        TlExpr *v = k->funcs[i]->stmt ? k->funcs[i]->stmt->value : NULL;
        split[i] = v && inner_reduce(&v, 1) != NULL;
    }
again:
    bad = -1;
    if (stages(g, split)) {
        buf_printf(why, "a kernel whose stages are not all plain "
                        "definitions `name[...] = value`");
        goto done;
    }
    best[0] = 0;
    for (int b = 1; b <= g->n; b++) {
        best[b] = -1;
        for (int a = b - 1; a >= 0 && a >= b - MAX_RUN; a--) {
            TlKernelInfo *sk;
            int64_t c;
            if (best[a] < 0 || !closed(g, a, b - 1) ||
                !(sk = segment_kernel(g, a, b - 1, in)) ||
                (c = cycles_of(s, sk, m)) < 0)
                continue;
            if (best[b] < 0 || best[a] + c < best[b]) {
                best[b] = best[a] + c;
                from[b] = a;
                kern[b] = sk;
            }
        }
        if (best[b] < 0 && bad < 0)
            bad = b - 1;
    }
    if (best[g->n] < 0 && bad >= 0) {
        /* A split stage whose halves take no route (its reduction
         * does not read every index of the stage, so that NAME__r has
         * no domain of its own, say): whole again, and plan again. */
        int fi = tl_func_index(k->funcs, k->nfuncs, g->st[bad].f);
        if (fi >= 0 && split[fi]) {
            split[fi] = 0;
            free_stages(g);
            goto again;
        }
    }
    if (best[g->n] < 0) {
        buf_printf(why, "the stage '%s' (alone, or with the stages next "
                        "to it)", g->st[bad >= 0 ? bad : g->n - 1].name);
        goto done;
    }
    {
        int ends[MAX_STAGES], n = 0;
        for (int b = g->n; b > 0; b = from[b])
            ends[n++] = b;
        if (n > ACC_SEG_MAX) {
            buf_printf(why, "a kernel of more than %d segments",
                       ACC_SEG_MAX);
            goto done;
        }
        for (int i = 0; i < n; i++) {
            int b = ends[n - 1 - i];
            out->seg[i].k = kern[b];
            out->seg[i].first = from[b];
            out->seg[i].last = b - 1;
            snprintf(out->seg[i].out, sizeof out->seg[i].out, "%s",
                     g->st[b - 1].name);
        }
        out->n = n;
        out->cycles = best[g->n];
    }
    rc = 0;
done:
    free_stages(g);
    s->diag_out = saved;
    s->nerrors = ne;
    s->nwarnings = nw;
    s->suppressed = sup;
    fclose(null);
    free(split);
    free(g);
    return rc;
}

TlKernelInfo *acc_seg_sub_kernel(TlSession *s, TlKernelInfo *k,
                                 const int64_t *sizes, TlTensor *const *in,
                                 const char *out, const char *const *given,
                                 int ngiven)
{
    Seg *g = tl_xcalloc(1, sizeof *g);
    unsigned char *split = tl_xcalloc((size_t)k->nfuncs + 1, 1);
    unsigned char need[MAX_STAGES];
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed, b = -1;
    TlKernelInfo *sk = NULL;

    g->s = s;
    g->k = k;
    g->sizes = sizes;
    if (null && stages(g, split) == 0) {
        /* What `out` reads, back to the kernel's inputs and the given
         * stages (which are the sub-kernel's inputs). */
        memset(need, 0, sizeof need);
        for (int i = 0; i < g->n; i++)
            if (!strcmp(g->st[i].name, out))
                b = i;
        if (b >= 0)
            need[b] = 1;
        for (int i = b; i >= 0; i--) {
            if (!need[i])
                continue;
            for (int r = 0; r < g->st[i].nreads; r++) {
                const char *nm = g->st[i].reads[r];
                int skip = 0;
                for (int q = 0; q < ngiven; q++)
                    skip |= !strcmp(given[q], nm);
                for (int j = 0; j < i && !skip; j++)
                    if (!strcmp(g->st[j].name, nm))
                        need[j] = 1;
            }
        }
        s->diag_out = null;
        if (b >= 0)
            sk = stages_kernel(g, need, b, in);
        s->diag_out = saved;
        s->nerrors = ne;
        s->nwarnings = nw;
        s->suppressed = sup;
    }
    if (null)
        fclose(null);
    free_stages(g);
    free(split);
    free(g);
    return sk;
}
