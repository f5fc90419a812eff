/*
 * pass_stream.c - an output marked `stream` (the schedule's `stream()`,
 * SPEC 10.8) has its rows stored past the caches: a loop that writes
 * one contiguous run of the output exactly once, in whole vectors,
 * writes it to a buffer on the stack instead, then copies the run out
 * with one store of the run's length, which the C backend emits as
 * streaming (non-temporal) stores of its whole 64-byte lines:
 *
 *   for xi in 0 .. 2 {                    alloc out.__s1: f32[32] on stack
 *     out[ramp(r + xi * 16, 1, 16)] = v   for xi in 0 .. 2 {
 *   }                              ==>      out.__s1[ramp(xi * 16, 1, 16)] = v
 *                                         }
 *                                         out[ramp(r, 1, 32)] =
 *                                             out.__s1[ramp(0, 1, 32)]
 *
 * Why the copy: a streaming store needs a 64-byte aligned address,
 * and a row of the output seldom starts on a line (blur3's rows are
 * 4094 floats); the copy shifts the run onto the lines (the partial
 * lines at its ends are ordinary masked stores), where the loop's own
 * vectors could not move.  The stack buffer stays in L1.
 *
 * A loop qualifies when its bounds and those of the loops inside are
 * constants (at most MAX_STORES vector stores in all), it has no `if`,
 * it reads nothing of the output, and its stores to the output are
 * 16-lane contiguous f32 vectors whose start, with the loop variables
 * set in turn to each of their values, is the first one's plus 0, 16,
 * 32, ... (each once): a run written once in whole vectors.  The
 * outermost such loop is taken; where none qualifies the stores stay
 * ordinary.  Runs shorter than MIN_RUN are left alone (the partial
 * lines at the ends would be most of them).
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_STORES = 256, MAX_STEPS = 4096, MIN_RUN = 64, LANES = 16 };

typedef struct St {
    TlSession *s;
    const LFunc *f;
    int uniq;
    /* while checking one loop */
    LVar *buf;                  /* the streamed output it stores to */
    LExpr *first;               /* the first store's start */
    int64_t off[MAX_STORES];
    int n, bad, steps;
    /* the loop variables and lets inside it, and their values now */
    const LVar *var[64];
    LExpr *val[64];
    int nvar;
} St;

static int reads(const LExpr *e, const LVar *buf)
{
    if (!e)
        return 0;
    if (e->kind == LE_LOAD && e->var == buf)
        return 1;
    if (reads(e->a, buf) || reads(e->b, buf) || reads(e->c, buf))
        return 1;
    for (int i = 0; i < e->nargs; i++)
        if (reads(e->args[i], buf))
            return 1;
    return 0;
}

/* e with the variables of the walk replaced by their values now. */
static LExpr *now(St *t, LExpr *e)
{
    for (int i = t->nvar - 1; i >= 0; i--)
        e = lir_substitute_expr(t->s, e, t->var[i], t->val[i]);
    return lir_simplify_expr(t->s, e);
}

static void push_var(St *t, const LVar *v, LExpr *e)
{
    if (t->nvar == 64) {
        t->bad = 1;
        return;
    }
    t->var[t->nvar] = v;
    t->val[t->nvar++] = e;
}

/* Records the starts of st's stores to a streamed output, every
 * iteration of its loops in turn; sets t->bad where st does not
 * qualify. */
static void walk(St *t, const LStmt *st)
{
    if (t->bad || !st)
        return;
    /* The statements visited, iterations counted: a large loop with
     * no streamed store costs no more than this to turn down. */
    if (++t->steps > MAX_STEPS) {
        t->bad = 1;
        return;
    }
    switch (st->kind) {
    case LS_FOR: {
        if (st->a->kind != LE_INT || st->b->kind != LE_INT ||
            st->loop == LP_PARALLEL || st->loop == LP_DISTRIBUTED) {
            t->bad = 1;
            return;
        }
        for (int64_t v = st->a->ival; v < st->b->ival && !t->bad; v++) {
            int mark = t->nvar;
            push_var(t, st->var, lir_int(t->s, st->var->type.dt, v));
            walk(t, st->body);
            t->nvar = mark;
        }
        return;
    }
    case LS_LET:
        if (reads(st->a, t->buf))
            t->bad = 1;
        else
            push_var(t, st->var, st->a);
        return;
    case LS_BLOCK: {
        int mark = t->nvar;
        for (int i = 0; i < st->nitems && !t->bad; i++)
            walk(t, st->items[i]);
        t->nvar = mark;
        return;
    }
    case LS_ALLOC:
        return;
    case LS_IF:
        t->bad = 1;
        return;
    case LS_STORE: {
        LExpr *idx, *d;
        for (int i = 0; i < st->nargs; i++)
            if (reads(st->args[i], t->buf))
                t->bad = 1;
        if (t->bad || reads(st->a, t->buf))
            goto bad;
        if (!st->var->stream)
            return;
        if (t->buf && st->var != t->buf)
            goto bad;
        t->buf = st->var;
        idx = st->nargs == 1 ? st->args[0] : NULL;
        if (!idx || st->var->type.dt != DT_F32 ||
            st->a->type.lanes != LANES || idx->kind != LE_RAMP ||
            idx->b->kind != LE_INT || idx->b->ival != 1 ||
            t->n == MAX_STORES)
            goto bad;
        if (!t->first) {
            t->first = now(t, idx->a);
            t->off[t->n++] = 0;
            return;
        }
        d = now(t, lir_binary(t->s, LO_SUB, idx->a, t->first));
        if (d->kind != LE_INT)
            goto bad;
        t->off[t->n++] = d->ival;
        return;
    }
    default:
        goto bad;
    }
bad:
    t->bad = 1;
}

static int load_of(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD && e->var == v->ctx)
        v->ctx = NULL;
    return v->ctx != NULL;
}

/* Whether st loads from buf anywhere. */
static int loads(const LStmt *st, const LVar *buf)
{
    LVisitor v = {(void *)buf, load_of, NULL};

    lir_visit_stmt(&v, st);
    return v.ctx == NULL;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether loop qualifies (t->buf, t->first, t->n set when it does). */
static int qualifies(St *t, const LStmt *loop)
{
    t->buf = NULL;
    t->first = NULL;
    t->n = t->bad = t->nvar = t->steps = 0;
    walk(t, loop);
    if (t->bad || !t->buf || t->n * LANES < MIN_RUN || loads(loop, t->buf))
        return 0;
    qsort(t->off, (size_t)t->n, sizeof t->off[0], cmp64);
    for (int i = 0; i < t->n; i++)
        if (t->off[i] != (int64_t)i * LANES)
            return 0;
    return 1;
}

/* The loop's stores to t->buf moved to stage, at their start less
 * first. */
static LStmt *to_stage(St *t, LStmt *st, LVar *stage)
{
    switch (st->kind) {
    case LS_FOR: {
        LStmt *b = to_stage(t, st->body, stage);
        return lir_for(t->s, st->loop, st->width, st->level, st->var, st->a,
                       st->b, b);
    }
    case LS_BLOCK: {
        LStmt **items = arena_alloc(&t->s->arena,
                                    (size_t)st->nitems * sizeof *items);
        for (int i = 0; i < st->nitems; i++)
            items[i] = to_stage(t, st->items[i], stage);
        return lir_block(t->s, items, st->nitems);
    }
    case LS_STORE: {
        LExpr *idx, *off;
        if (st->var != t->buf)
            return st;
        idx = st->args[0];
        off = lir_simplify_expr(t->s, lir_binary(t->s, LO_SUB, idx->a,
                                                 t->first));
        idx = lir_ramp(t->s, off, idx->b, LANES);
        return lir_store(t->s, stage, &idx, 1, st->a);
    }
    default:
        return st;
    }
}

static LStmt *stream_for(LMutator *m, LStmt *st)
{
    St *t = m->ctx;
    TlSession *s = m->s;
    LStmt *items[3];
    LExpr *ext, *zero, *src, *dst;
    LVar *stage;
    int64_t run;

    if (!qualifies(t, st))
        return lir_mutate_stmt_children(m, st);
    run = (int64_t)t->n * LANES;
    stage = lir_buffer(s, lir_fresh_name(s, t->f, t->buf->name, &t->uniq),
                       DT_F32);
    ext = lir_int(s, DT_I64, run);
    items[0] = lir_alloc(s, stage, LM_STACK, &ext, 1);
    items[1] = to_stage(t, st, stage);
    zero = lir_int(s, t->first->type.dt, 0);
    src = lir_load(s, stage, (LExpr *[]){lir_ramp(s, zero,
                   lir_int(s, zero->type.dt, 1), (int)run)}, 1);
    dst = lir_ramp(s, t->first, lir_int(s, t->first->type.dt, 1), (int)run);
    items[2] = lir_store(s, t->buf, &dst, 1, src);
    return lir_block(s, items, 3);
}

LFunc *lir_stream_rows(TlSession *s, LFunc *f)
{
    St t;
    LMutator m;
    int any = 0;

    for (int i = 0; i < f->nparams; i++)
        any |= f->params[i].var && f->params[i].var->stream;
    if (!any)
        return f;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.f = f;
    memset(&m, 0, sizeof m);
    m.s = s;
    m.ctx = &t;
    m.stmt[LS_FOR] = stream_for;
    return lir_mutate_func(&m, f);
}
