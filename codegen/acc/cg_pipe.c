/*
 * cg_pipe.c - kernels of several stages to TAM assembly: the pipeline
 * route of the accel target (softmax, layernorm and their kind).
 *
 * Every stage of the plain loop IR is one nest whose first loop runs
 * over the same N rows: an elementwise stage stores a pointwise f32
 * expression at [row, columns...]; a reduction stage reduces one over
 * its inner loops with sum, max or min into [row] (then maps it by a
 * pointwise expression of the result).  The rows are cut into blocks
 * of 2 * P * RB rows (P PEs, RB row pairs per PE); inside a block every
 * tensor is in the PEs' local memories in one layout: PE p holds row
 * pairs p * RB .. p * RB + RB - 1, a long word holds the two rows of a
 * pair (lane = row % 2) and the 4 sub-cycles of a step hold 4
 * consecutive columns, so one auto-stride op computes 8 elements and a
 * reduction along a row never crosses a PE: a sum folds its chunks,
 * then its 4 sub-cycles (two ops on flat operands); a max or min takes
 * one column at a time in order, as the interpreter does, so that it
 * stays bit for bit (ties of -0 and +0).  A tensor with one
 * value per row holds it in all 4 sub-cycles, ready to be read along
 * its row.  In the notation of docs/accel-layouts.md, a block of
 * f32[N, D] is ((levels..., RB, 2_W), (C, 4_S)) with C = ceil(D/4).
 *
 * When the machine has PEs to spare (fewer row pairs than PEs: 512
 * rows on mn2's 4096), a row pair is spread over K PEs instead, the
 * PE at one position in each of the K MABs of an L1B, PE j holding
 * columns j * D / K ..: a reduction folds its part in the PE, then
 * red.L1 combines the MABs (in column order) and mbcast.L1 gives each
 * PE its position's result (cg_pipe_map.c).  A block of f32[N, D] is
 * then ((levels above L1, PE position, RB, 2_W), (MAB, C, 4_S)).
 *
 * Intermediates never leave the PEs: a stage reads the tensors of
 * earlier stages where they are.  Inputs come from DRAM images the
 * runner lays out in that order (AccCgIn.map; a read of an input at
 * another index, a broadcast of gamma[d] say, gets its own image), and
 * the output goes back through gather into an image the runner reads
 * (AccCgProgram.omap).  Columns past a row's end are padding: a
 * reduction puts its identity there with `sel` under a mask of the
 * sub-cycle number.
 *
 * When the kernel's accel schedule writes a `layout`, the route runs
 * in layout mode (cg_pipe_lay.c): one row a long word, one block, every
 * tensor in the layout planner's layout and conversions in the program
 * where that is not the stages'.  Without one, the plan and the
 * program agree only in that neither converts.
 *
 * An input read alike in every row (gamma[d]) is not expanded per row
 * in DRAM: one L1B's share is loaded once and the tree broadcasts it.
 * An input larger than one load (what every BM holds) comes as a run
 * of pieces of half that (acc_cg_emit_load_run): piece q + 1's DMA and
 * tree transfers go on while piece q's dist.L1s write the PEs (test
 * softmax 512 x 512: 52684 -> 46644 cycles).
 *
 * One block of one row pair a PE (mn2's softmax 512 x 512: 4096 PEs,
 * 16 a row pair) comes in pieces of columns (choose_pieces): when one
 * image feeds stage 0, a reduction, and every other image is
 * row-invariant, it loads as a run of 8 pieces of whole chunks, stage
 * 0 folding each piece as soon as its dist.L1s settle while the next
 * pieces' DMAs are in flight (acc_cg_emit_load_run_then); the
 * row-invariant images' DMAs go out before the pieces' into BM words
 * of their own, and their tree transfers ride between the folds (those
 * stage 0 reads before its first).  A last elementwise stage computes
 * its output in the same pieces, each stored (gather, dma.gather) as
 * soon as it is computed, so that the store's DMAs follow one another
 * on the channels while the rest is computed.  mn2 softmax 512 x 512:
 * 3384 -> 2652 cycles against a DRAM bound of 2048 (131072 long words
 * in and as many out over 4 channels of 32 a cycle), layernorm 4016 ->
 * 2976; what is left there is the stages between the first fold and
 * the last stage, which need the whole row.
 *
 * TODO(issue 6): the planner's layouts without a `layout` (the plan
 * proposes pairs of columns in a long word, the stages pair rows);
 * block b + 1's loads under block b's stages (test softmax 512 x 512,
 * 16 blocks); pieces when stage 0 reads two images or RB > 1; a split
 * where the columns do not divide into chunks of 4 on every PE (mask
 * them).
 */
#include "codegen/acc/cg_pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(Pipe *x, const char *what)
{
    return acc_cg_fail(&x->g, what);
}

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int tensor_of(const Pipe *x, const LVar *v)
{
    for (int i = 0; i < x->nts; i++)
        if (x->ts[i].buf == v)
            return i;
    return -1;
}

/* The output's buffer param, when v is it. */
static int is_output(const Pipe *x, const LVar *v)
{
    int p = acc_cg_param_of(&x->g, v);
    const CgParam *cp = p >= 0 ? &x->g.c->ck->params[p] : NULL;

    return cp && cp->kind == CGP_BUF && cp->f == x->g.c->k->outputs[0];
}

/* The loop bounds of one for: from 0 to a constant. */
static int bounds(Pipe *x, const LStmt *st, Stage *s)
{
    AccCgLin l;
    AccCg *g = &x->g;

    if (st->loop != LP_SERIAL && st->loop != LP_PARALLEL)
        return fail(x, "vectorized or unrolled loops");
    if (s->nloops == TL_MAX_RANK)
        return fail(x, "loop nests this deep");
    g->nloops = s->nloops;
    memcpy(g->loops, s->loops, sizeof s->loops);
    if (acc_cg_lin(g, st->a, &l) || l.k != 0 || acc_cg_lin(g, st->b, &l))
        return fail(x, "loops with computed bounds");
    for (int i = 0; i < g->nloops; i++)
        if (l.coef[i])
            return fail(x, "loops with computed bounds");
    s->ext[s->nloops] = l.k;
    s->loops[s->nloops++] = st->var;
    return 0;
}

/* Does l index [rows, columns] row-major in the first n loops of s,
 * with D columns (D = 0: the rows only)? */
static int is_pos(const Stage *s, int n, const AccCgLin *l, int64_t D)
{
    int64_t run = 1;

    if (l->k != 0)
        return 0;
    for (int i = n - 1; i >= s->nrow; i--) {
        if (s->ext[i] > 1 && l->coef[i] != (D ? run : 0))
            return 0;
        run *= s->ext[i];
    }
    run = D ? D : 1;
    for (int i = s->nrow - 1; i >= 0; i--) {
        if (s->ext[i] > 1 && l->coef[i] != run)
            return 0;
        run *= s->ext[i];
    }
    return 1;
}

/* The store st of stage s's result: into an allocation or the output
 * (checked once the rows are known). */
static int target(Pipe *x, Stage *s, const LStmt *st, int width)
{
    AccCg *g = &x->g;
    int t;

    g->nloops = s->nout;
    memcpy(g->loops, s->loops, sizeof s->loops);
    if (st->nargs != 1 || acc_cg_lin(g, st->args[0], &s->store))
        return fail(x, "this store");
    t = tensor_of(x, st->var);
    if (t < 0 && is_output(x, st->var)) {
        if (x->nts == MAX_STAGES)
            return fail(x, "this many stages");
        t = x->nts++;
        x->ts[t].buf = st->var;
    }
    if (t < 0)
        return fail(x, "this store");
    if (x->ts[t].done)
        return fail(x, "a tensor stored by two stages");
    x->ts[t].done = 1;
    s->tensor = t;
    s->D = width;
    return 0;
}

/* acc = acc op f (or f op acc). */
static int update(Pipe *x, Stage *s, const LStmt *st)
{
    const LExpr *e = st->a;

    if (st->kind != LS_STORE || st->var != s->acc || e->kind != LE_BINARY)
        return fail(x, "a reduction of this form");
    if (e->a->kind == LE_LOAD && e->a->var == s->acc)
        s->f = e->b;
    else if (e->b->kind == LE_LOAD && e->b->var == s->acc)
        s->f = e->a;
    else
        return fail(x, "a reduction of this form");
    switch (e->op) {
    case LO_ADD: s->opname = "add"; s->ident = "-0"; return 0;
    case LO_MAX: s->opname = "max"; s->ident = "-inf"; return 0;
    case LO_MIN: s->opname = "min"; s->ident = "inf"; return 0;
    default:
        return fail(x, "product reductions (the tree reduces with add, "
                       "max and min only)");
    }
}

static int stage(Pipe *x, const LStmt *st)
{
    Stage *s;
    const LStmt *in;

    if (x->nst == MAX_STAGES)
        return fail(x, "this many stages");
    s = &x->st[x->nst++];
    memset(s, 0, sizeof *s);
    for (; st->kind == LS_FOR; st = st->body)
        if (bounds(x, st, s))
            return -1;
    s->nout = s->nloops;
    if (s->nout == 0)
        return fail(x, "stages without axes");
    if (st->kind == LS_STORE) {
        s->f = st->a;
        return target(x, s, st, 1);
    }
    if (st->kind != LS_BLOCK || st->nitems != 4 ||
        st->items[0]->kind != LS_ALLOC || st->items[1]->kind != LS_STORE ||
        st->items[1]->var != st->items[0]->var ||
        st->items[2]->kind != LS_FOR || st->items[3]->kind != LS_STORE)
        return fail(x, "a stage of this form");
    s->acc = st->items[0]->var;
    for (in = st->items[2]; in->kind == LS_FOR; in = in->body)
        if (bounds(x, in, s))
            return -1;
    if (update(x, s, in))
        return -1;
    s->post = st->items[3]->a;
    return target(x, s, st->items[3], 0);
}

/* The rows: the result axes of the first reduction (else the first
 * stage's first axis), leading axes of every stage. */
static int rows(Pipe *x)
{
    const Stage *r = NULL;

    for (int i = 0; i < x->nst && !r; i++)
        if (x->st[i].acc)
            r = &x->st[i];
    x->N = 1;
    if (r) {
        for (int i = 0; i < r->nout; i++)
            x->N *= r->ext[i];
    } else {
        x->N = x->st[0].ext[0];
    }
    for (int i = 0; i < x->nst; i++) {
        Stage *s = &x->st[i];
        Tensor *t = &x->ts[s->tensor];
        int64_t run = 1;
        for (s->nrow = 0; s->nrow < s->nout && (run < x->N ||
                                                 s->nrow == 0);)
            run *= s->ext[s->nrow++];
        if (run != x->N || (s->acc && s->nrow != s->nout))
            return fail(x, "stages that do not share their leading axes "
                           "(the rows)");
        s->D = 1;
        for (int j = s->nrow; j < s->nloops; j++)
            s->D *= s->ext[j];
        t->D = s->acc ? 1 : s->D;
        t->C = cdiv(t->D, 4);
        if (!is_pos(s, s->nout, &s->store, s->acc ? 0 : s->D))
            return fail(x, "a loop order other than the stored tensor's");
    }
    return 0;
}

/* The body: lets of constant value, allocations, stage nests. */
static int match(Pipe *x, const LStmt *body)
{
    AccCg *g = &x->g;
    int nfor = 0;

    if (body->kind != LS_BLOCK)
        return 1;
    for (int i = 0; i < body->nitems; i++)
        nfor += body->items[i]->kind == LS_FOR;
    if (nfor < 2 && !g->c->k->nscalars)
        return 1;
    for (int i = 0; i < body->nitems; i++) {
        const LStmt *st = body->items[i];
        double v;
        switch (st->kind) {
        case LS_LET:
            if (acc_cg_const(g, st->a, &v))
                return fail(x, "a stage whose extent or constant depends on "
                               "data");
            if (g->nlets == MAX_LETS)
                return fail(x, "this many constants");
            x->letv[g->nlets] = st->var;
            x->letval[g->nlets++] = v;
            break;
        case LS_ALLOC:
            if (st->var->type.dt != DT_F32)
                return fail(x, "stages of a type other than f32");
            if (x->nts == MAX_STAGES)
                return fail(x, "this many stages");
            memset(&x->ts[x->nts], 0, sizeof x->ts[0]);
            x->ts[x->nts++].buf = st->var;
            break;
        case LS_FOR:
            if (stage(x, st))
                return -1;
            break;
        default:
            return fail(x, "a statement of this kind between stages");
        }
    }
    if (x->nst == 0)
        return fail(x, "a kernel without stages");
    return rows(x);
    if (!is_output(x, x->ts[x->st[x->nst - 1].tensor].buf))
        return fail(x, "an output that is not the last stage");
    return 0;
}

/* The columns of stage s read at context (splat: one per row). */
static int64_t ctx_D(const Pipe *x)
{
    return x->splat ? 1 : x->st[x->cur].D;
}

/* Does l read [row, columns] of a tensor of D columns in stage s? */
static int own_position(const Stage *s, const AccCgLin *l, int64_t D)
{
    return s->D == D && is_pos(s, s->nloops, l, D);
}

static int is_row(const Stage *s, const AccCgLin *l)
{
    return is_pos(s, s->nloops, l, 0);
}

/* The image of input `input` read at l in the current context. */
static int image(Pipe *x, int input, const AccCgLin *l)
{
    AccCg *g = &x->g;
    AccCgProgram *p = g->p;
    const Stage *s = &x->st[x->cur];
    int n = 0;

    for (int i = 0; i < p->nins; i++) {
        const Stage *o = &x->st[x->imgs[i].stage];
        if (p->ins[i].input != input)
            continue;
        n++;
        if (!memcmp(p->ins[i].coef, l->coef, sizeof l->coef) &&
            p->ins[i].k == l->k && x->imgs[i].splat == x->splat &&
            o->nloops == s->nloops &&
            !memcmp(o->ext, s->ext, sizeof s->ext))
            return i;
    }
    if (!x->dry)
        tl_internal_error(__FILE__, __LINE__, "accel pipeline: an image "
                          "not seen before");
    if (p->nins >= ACC_CG_MAX_OPERANDS)
        return fail(x, "more than 32 operands");
    AccCgIn *in = &p->ins[p->nins];
    memset(in, 0, sizeof *in);
    in->name = n ? arena_printf(&g->s->arena, "%s_%d",
                                g->c->k->inputs[input]->name, n)
                 : g->c->k->inputs[input]->name;
    in->input = input;
    memcpy(in->coef, l->coef, sizeof l->coef);
    in->k = l->k;
    x->imgs[p->nins].stage = x->cur;
    x->imgs[p->nins].splat = x->splat;
    x->imgs[p->nins].D = ctx_D(x);
    x->imgs[p->nins].C = cdiv(pipe_local_D(x, ctx_D(x)), 4);
    return p->nins++;
}

/* Where the read e is in the current context: *bank (2: r) and the
 * word *at.  -1 after reporting. */
static int where(AccCg *g, const LExpr *e, int *bank, int64_t *at)
{
    Pipe *x = g->ctx;
    const Stage *s = &x->st[x->cur];
    AccCgLin l;
    int par;
    char what[160];

    if (s->acc && e->var == s->acc) {
        *bank = 2;
        *at = x->accw;
        return 0;
    }
    if (e->nargs != 1 || acc_cg_lin(g, e->args[0], &l))
        return fail(x, "reads at computed indices");
    par = acc_cg_param_of(g, e->var);
    if (par >= 0 && g->c->ck->params[par].kind == CGP_BUF) {
        int in = tl_func_index(g->c->k->inputs, g->c->k->ninputs,
                               g->c->ck->params[par].f);
        int i;
        if (in < 0)
            return fail(x, "this read");
        if ((i = image(x, in, &l)) < 0)
            return -1;
        x->imgs[i].readers |= 1u << x->cur;
        *bank = x->imgs[i].bank;
        *at = x->imgs[i].at + (x->rp * x->imgs[i].C + x->c) * 8;
    } else {
        int ti = tensor_of(x, e->var);
        const Tensor *tt = ti >= 0 ? &x->ts[ti] : NULL;
        if (!tt)
            return fail(x, "this read");
        if (x->dry)
            x->ts[ti].readers |= 1u << x->cur;
        if (!tt->done) {
            snprintf(what, sizeof what, "a read of '%.*s' before the "
                     "stage that computes it",
                     (int)strcspn(e->var->name, "."), e->var->name);
            return fail(x, what);
        }
        if (tt->D == 1 && is_row(s, &l)) {
            *at = tt->at + x->rp * 8;
        } else if (!x->splat && own_position(s, &l, tt->D)) {
            *at = tt->at + (x->rp * tt->C + x->c) * 8;
        } else {
            snprintf(what, sizeof what, "a stage reading the stage '%.*s' "
                     "elsewhere than at its own position or along its row",
                     (int)strcspn(e->var->name, "."), e->var->name);
            return fail(x, what);
        }
        *bank = tt->bank;
    }
    return 0;
}

static void put_where(char *buf, size_t n, int bank, int64_t at)
{
    if (bank == 2)
        snprintf(buf, n, "r[%lld+]", (long long)at);
    else
        snprintf(buf, n, "lm%d[%lld+]", bank, (long long)at);
}

static int load(AccCg *g, const LExpr *e, int t)
{
    int bank;
    int64_t at;
    char w[48];

    if (where(g, e, &bank, &at))
        return -1;
    put_where(w, sizeof w, bank, at);
    buf_printf(g->t, "mov.f32 %s -> r[%d+]\n", w, 8 * t);
    return 0;
}

static int operand(AccCg *g, const LExpr *e, char *buf, size_t n)
{
    int bank;
    int64_t at;

    if (e->kind != LE_LOAD || e->type.lanes != 1 || e->type.dt != DT_F32)
        return 1;
    if (where(g, e, &bank, &at))
        return -1;
    put_where(buf, n, bank, at);
    return 0;
}

/* Writes the code of an expression evaluated into r[8t+] (text) with
 * its result at lm`bank`[at+]: its last op writes there directly when
 * it is an op that reads no LM word of that bank, else a mov. */
static void put_result(TlBuf *o, const char *text, int t, int bank,
                       int64_t at)
{
    const char *last = text, *p;
    size_t len, n;
    char mine[8], res[24];

    if (!text)
        return;
    len = strlen(text);
    snprintf(mine, sizeof mine, "lm%d[", bank);
    n = (size_t)snprintf(res, sizeof res, "-> r[%d+]\n", 8 * t);
    for (p = text; *p; p++)
        if (p[0] == '\n' && p[1])
            last = p + 1;
    if (len > n && !strcmp(text + len - n, res) &&
        strncmp(last, "nop", 3) && !strstr(last, mine)) {
        buf_putn(o, text, len - n);
        buf_printf(o, "-> lm%d[%lld+]\n", bank, (long long)at);
        return;
    }
    buf_puts(o, text);
    buf_printf(o, "mov.f32 r[%d+] -> lm%d[%lld+]\n", 8 * t, bank,
               (long long)at);
}

/* Temporaries e needs at most (reads not folded). */
static int temps(const LExpr *e)
{
    int a, b;

    switch (e->kind) {
    case LE_BINARY:
        a = temps(e->a);
        b = temps(e->b) + 1;
        return a > b ? a : b;
    case LE_UNARY:
    case LE_CAST:
        return temps(e->a);
    case LE_CALL:
        return e->nargs ? temps(e->args[0]) : 1;
    default:
        return 1;
    }
}

/* Writes the n streams' code (the same ops on other addresses, so the
 * same lines) one line of each in turn: the ops of one stream are n
 * bundles apart, which hides latencies (a nop line is kept once, n - 1
 * shorter).  Streams of different lines are written one after the
 * other. */
static void interleave(TlBuf *o, TlBuf *st, int n)
{
    const char *p[STREAMS] = {""};
    int same = 1;

    for (int i = 0; i < n; i++)
        p[i] = st[i].s ? st[i].s : "";
    for (int i = 1; i < n && same; i++) {
        const char *a = p[0], *b = p[i];
        int la = 0, lb = 0;
        for (; *a; a++)
            la += *a == '\n';
        for (; *b; b++)
            lb += *b == '\n';
        same = la == lb;
    }
    if (!same) {
        for (int i = 0; i < n; i++)
            buf_puts(o, p[i]);
        return;
    }
    while (*p[0]) {
        if (!strncmp(p[0], "nop/", 4)) {
            long k = strtol(p[0] + 4, NULL, 10) - (n - 1);
            if (k > 0)
                buf_printf(o, "nop/%ld\n", k);
            for (int i = 0; i < n; i++)
                p[i] = strchr(p[i], '\n') + 1;
            continue;
        }
        for (int i = 0; i < n; i++) {
            const char *nl = strchr(p[i], '\n');
            buf_putn(o, p[i], (size_t)(nl - p[i] + 1));
            p[i] = nl + 1;
        }
    }
}

/* A max or min along the row in column order, one column at a time
 * into every sub-cycle of the accumulator: the interpreter's order, so
 * that a tie of -0 and +0 (or two NaNs) resolves alike, bit for bit.
 * Sums fold 4 columns at once instead (reassociated). */
static void reduce_in_order(Pipe *x, const Stage *s, TlBuf *o)
{
    AccCg *g = &x->g;
    long long a = (long long)x->A;
    int64_t D = pipe_local_D(x, s->D);

    for (x->c = x->clo; x->c < cdiv(D, 4) && x->c < x->chi && !g->failed;
         x->c++) {
        int64_t n = D - 4 * x->c, at = 0;
        int bank = 2;
        if (n > 4)
            n = 4;
        if (s->f->kind != LE_LOAD || s->f->type.lanes != 1 ||
            where(g, s->f, &bank, &at)) {
            if (g->failed)
                return;
            acc_cg_eval(g, s->f, 0);
            bank = 2;
            at = 0;
        }
        for (int64_t k = 0; k < n; k++) {
            long long w = (long long)(at + 2 * k);
            char src[80];
            if (bank == 2)
                snprintf(src, sizeof src, "r[%lld,%lld,%lld,%lld]", w, w,
                         w, w);
            else
                snprintf(src, sizeof src, "lm%d[%lld,%lld,%lld,%lld]", bank,
                         w, w, w, w);
            if (x->c == 0 && k == 0)
                buf_printf(o, "mov.f32 %s -> r[%lld+]\n", src, a);
            else
                buf_printf(o, "%s.f32 r[%lld,%lld,%lld,%lld], %s -> "
                           "r[%lld+]\n", s->opname, a, a, a, a, src, a);
        }
    }
    if (x->chi < cdiv(D, 4))
        return;         /* a piece: the fold goes on with the next */
    if (s->D == 0)
        buf_printf(o, "mov.f32 r[%lld+] -> r[%lld+]\n", (long long)x->ID,
                   a);
    x->accw = x->A;
}

/* The code of stage i for row pair rp. */
static void emit_stage(Pipe *x, int i, TlBuf *o)
{
    AccCg *g = &x->g;
    Stage *s = &x->st[i];
    const Tensor *tt = &x->ts[s->tensor];
    int64_t a = x->A, f1 = x->F1, f2 = x->F2;
    int64_t Dl = pipe_local_D(x, s->D);

    x->cur = i;
    g->nloops = s->nloops;
    memcpy(g->loops, s->loops, sizeof s->loops);
    g->t = o;
    if (!s->acc) {
        int per = temps(s->f), K = g->max_temps / per;
        if (K > STREAMS)
            K = STREAMS;
        if (K < 1)
            K = 1;
        x->splat = s->D == 1;
        int64_t ce = tt->C < x->chi ? tt->C : x->chi;
        for (int64_t c0 = x->clo; c0 < ce && !g->failed; c0 += K) {
            TlBuf e[STREAMS], r[STREAMS];
            int n = ce - c0 < K ? (int)(ce - c0) : K;
            for (int i = 0; i < n; i++) {
                buf_init(&e[i]);
                buf_init(&r[i]);
                g->t = &e[i];
                x->c = c0 + i;
                acc_cg_eval(g, s->f, i * per);
                put_result(&r[i], e[i].s, i * per, tt->bank,
                           tt->at + (x->rp * tt->C + x->c) * 8);
            }
            interleave(o, r, n);
            for (int i = 0; i < n; i++) {
                buf_free(&e[i]);
                buf_free(&r[i]);
            }
        }
        g->t = o;
        return;
    }
    x->splat = 0;
    if (strcmp(s->opname, "add")) {
        reduce_in_order(x, s, o);
        if (x->chi < cdiv(Dl, 4))
            return;
        goto tree;
    }
    for (x->c = x->clo; x->c < cdiv(Dl, 4) && x->c < x->chi && !g->failed;
         x->c++) {
        int masked = Dl % 4 && x->c == cdiv(Dl, 4) - 1;
        char w[48];
        if (!masked && operand(g, s->f, w, sizeof w) == 0) {
            /* A plain read folds straight into the accumulator. */
            if (x->c == 0)
                buf_printf(o, "mov.f32 %s -> r[%lld+]\n", w, (long long)a);
            else
                buf_printf(o, "%s.f32 r[%lld+], %s -> r[%lld+]\n",
                           s->opname, (long long)a, w, (long long)a);
            continue;
        }
        acc_cg_eval(g, s->f, 0);
        if (masked)
            buf_printf(o, "sel.f32 m1, r[0+], r[%lld+] -> r[0+]\n",
                       (long long)x->ID);
        if (x->c == 0)
            buf_printf(o, "mov.f32 r[0+] -> r[%lld+]\n", (long long)a);
        else
            buf_printf(o, "%s.f32 r[%lld+], r[0+] -> r[%lld+]\n",
                       s->opname, (long long)a, (long long)a);
    }
    if (x->chi < cdiv(Dl, 4))
        return;         /* a piece: the fold goes on with the next */
    if (s->D == 0)
        buf_printf(o, "mov.f32 r[%lld+] -> r[%lld+]\n", (long long)x->ID,
                   (long long)a);
    /* Sub-cycles c and c + 2, then c and c ^ 1: every sub-cycle ends
     * with all four combined. */
    buf_printf(o, "%s.f32 r[%lld+], r[%lld,%lld,%lld,%lld] -> r[%lld+]\n",
               s->opname, (long long)a, (long long)(a + 4),
               (long long)(a + 6), (long long)a, (long long)(a + 2),
               (long long)f1);
    buf_printf(o, "%s.f32 r[%lld+], r[%lld,%lld,%lld,%lld] -> r[%lld+]\n",
               s->opname, (long long)f1, (long long)(f1 + 2), (long long)f1,
               (long long)(f1 + 6), (long long)(f1 + 4), (long long)f2);
    x->accw = f2;
tree:
    if (x->K > 1) {
        /* The K partial results of the row pair, one in each MAB of the
         * L1B at this PE's position: the L1 reduction combines the MABs
         * in order (their columns' order, so a max or min stays the
         * interpreter's), each position apart, and mbcast hands every
         * PE its position's result. */
        buf_printf(o, "red%s.L1.f32 r[%lld+] -> lb[0]\n", s->opname,
                   (long long)x->accw);
        acc_cg_nop(o, acc_cg_wait(g->m, 1, ACC_XK_RED, (double)(4 * x->G),
                                  4));
        buf_printf(o, "mbcast.L1 lb[0] -> r[%lld+]\n", (long long)x->accw);
        acc_cg_nop(o, acc_cg_wait(g->m, 1, ACC_XK_BCAST,
                                  (double)(4 * x->G), 4));
    }
    x->splat = 1;
    x->c = 0;
    g->nloops = s->nout;
    {
        TlBuf e;
        buf_init(&e);
        g->t = &e;
        acc_cg_eval(g, s->post, 0);
        put_result(o, e.s, 0, tt->bank, tt->at + x->rp * 8);
        buf_free(&e);
        g->t = o;
    }
}

/* Chunks clo .. chi - 1 of stage i (of every row pair): its set-up
 * with the first, its end with the last. */
static void emit_stage_part(Pipe *x, int i, TlBuf *o, int64_t clo,
                            int64_t chi)
{
    AccCg *g = &x->g;
    Stage *s = &x->st[i];

    x->clo = clo;
    x->chi = chi;
    if (x->lay && !x->dry && !x->noconv && clo == 0)
        pipe_lay_before(x, i, o);
    if (s->acc && clo == 0) {
        buf_printf(o, "mov.f32 #%s -> r[%lld+]\n", s->ident,
                   (long long)x->ID);
        if (pipe_local_D(x, s->D) % 4 && !strcmp(s->opname, "add"))
            buf_printf(o, "cmplt.i32 $sub, #%lld -> m1\nnop/%d\n",
                       (long long)(s->D % 4), g->m->lat_grf);
    }
    for (x->rp = 0; x->rp < (x->dry ? 1 : x->RB) && !g->failed; x->rp++)
        emit_stage(x, i, o);
    acc_cg_nop(o, g->m->lat_lm);
    if (x->lay && !x->dry && !x->noconv && chi == INT64_MAX)
        pipe_lay_after(x, i, o);
    x->clo = 0;
    x->chi = INT64_MAX;
}

/* Stage 0 on load piece q, which has just landed (put_loads); then,
 * while the pieces after it are in flight, a row-invariant image's
 * way down. */
static void fold_piece(void *ctx, int64_t q, TlBuf *o)
{
    Pipe *x = ctx;
    int64_t pc = x->pw_in / 4, C = x->imgs[x->pimg].C;

    /* Those stage 0 reads first (place_inv puts them first). */
    while (q == 0 && x->inv_next < x->ninv &&
           x->imgs[x->inv_img[x->inv_next]].stage == 0)
        pipe_inv_down(x, o);
    emit_stage_part(x, 0, o, q * pc, (q + 1) * pc >= C ? INT64_MAX
                                                      : (q + 1) * pc);
    if (q + 1 < x->npieces && x->inv_next < x->ninv)
        pipe_inv_down(x, o);
}

static void put_store(Pipe *x, TlBuf *o, int64_t b);

/* Every stage of one block (dry: only to find the images) from stage
 * `from` on (1: put_loads folded stage 0's pieces); with pw_out, the
 * last stage in pieces, each stored as soon as it is computed. */
static int emit_block_code(Pipe *x, TlBuf *o, int from, int64_t b)
{
    AccCg *g = &x->g;

    for (int i = from; i < x->nst && !g->failed; i++) {
        const Tensor *t = &x->ts[x->st[i].tensor];
        int64_t pc = x->pw_out / 4;
        if (i < x->nst - 1 || !x->pw_out || x->dry) {
            emit_stage_part(x, i, o, 0, INT64_MAX);
            continue;
        }
        for (int64_t c = 0; c < t->C && !g->failed; c += pc) {
            int64_t Wq = (t->C - c < pc ? t->C - c : pc) * 4;
            char sp[8];
            emit_stage_part(x, i, o, c, c + pc >= t->C ? INT64_MAX : c + pc);
            snprintf(sp, sizeof sp, "lm%d", t->bank);
            acc_cg_emit_store(o, g->m, sp, t->at + 2 * c * 4, Wq,
                              x->out_dram + b * x->P * t->C * 4 +
                                  c * 4 * x->P);
        }
    }
    return g->failed ? -1 : 0;
}

/* The first bank with sz words free from *used on: its address in
 * *at; -1 when none has. */
static int take(int64_t *used, int64_t cap, int64_t sz, int64_t *at)
{
    for (int b = 0; b < 2; b++)
        if (used[b] + sz <= cap) {
            *at = used[b];
            used[b] += sz;
            return b;
        }
    return -1;
}

int pipe_place(Pipe *x, int64_t RB)
{
    AccCgProgram *p = x->g.p;
    int64_t cap = 2 * x->g.m->lm_words, used[2] = {0, 0};
    int n = p->nins + x->nts;

    for (int i = 0; i < n; i++) {
        int64_t C = i < p->nins ? x->imgs[i].C : x->ts[i - p->nins].C;
        int *bank = i < p->nins ? &x->imgs[i].bank
                                : &x->ts[i - p->nins].bank;
        int64_t *at = i < p->nins ? &x->imgs[i].at : &x->ts[i - p->nins].at;
        Region *u = i < p->nins ? &x->imgs[i].U : &x->ts[i - p->nins].U;
        if ((*bank = take(used, cap, RB * C * 8, at)) < 0)
            return -1;
        /* Layout mode: the plan's layout where it is another. */
        if (u->L && (u->bank = take(used, cap, u->words, &u->at)) < 0)
            return -1;
    }
    return 0;
}

static void put_loads(Pipe *x, TlBuf *o, int64_t b)
{
    AccCgProgram *p = x->g.p;
    int nbm = acc_bm_levels(x->g.m);

    for (int j = 0; j < p->nins; j++) {
        /* In pieces of columns, the one image stage 0 folds goes last,
         * the fold of each piece under the DMAs of the next. */
        int i = !x->pw_in ? j : j < x->pimg ? j : j + 1 < p->nins ? j + 1
                                                                 : x->pimg;
        const Img *im = &x->imgs[i];
        /* Layout mode: an input the plan keeps in another layout is
         * laid out in that one (the stages convert it). */
        int64_t W = im->U.L ? im->U.words / 2 : x->RB * im->C * 4;
        int64_t at = im->U.L ? im->U.at : im->at;
        char sp[8];
        snprintf(sp, sizeof sp, "lm%d", im->U.L ? im->U.bank : im->bank);
        if (im->inv && x->ninv) {
            /* Its DMA now, its way down between the pieces' folds
             * (fold_piece), the rest after them. */
            for (int v = 0; v < x->ninv; v++)
                if (x->inv_img[v] == i)
                    acc_cg_emit_load_dma(o, x->g.m, im->dram, W, 1, 4,
                                         x->ioff[v]);
            continue;
        }
        if (im->inv) {
            /* Loaded once: the blocks' stages do not write it. */
            for (int64_t q = 0; q * x->Wmax < W && b == 0; q++) {
                int64_t Wq = W - q * x->Wmax < x->Wmax ? W - q * x->Wmax
                                                       : x->Wmax;
                acc_cg_emit_load(o, x->g.m, im->dram + q * x->L1 * x->Wmax,
                                 Wq, sp, at + 2 * q * x->Wmax, 1);
            }
            continue;
        }
        /* A run of pieces, half of what every BM holds, so that piece
         * q + 1's DMA and tree transfers go on while piece q's
         * dist.L1s write the PEs (acc_cg_emit_load_run); one piece
         * when it is the whole load. */
        {
            int64_t Wh = pipe_piece(x, W, 1), n = 0;
            int64_t *ats, *Ws, *dsts;
            if (Wh == x->Wmax && !x->pw_in) {
                for (int64_t q = 0; q * x->Wmax < W; q++) {
                    int64_t Wq = W - q * x->Wmax < x->Wmax
                                     ? W - q * x->Wmax : x->Wmax;
                    acc_cg_emit_load(o, x->g.m, im->dram + b * x->P * W +
                                     q * x->P * x->Wmax, Wq, sp,
                                     at + 2 * q * x->Wmax, nbm + 1);
                }
                continue;
            }
            n = (W + Wh - 1) / Wh;
            x->npieces = n;
            x->inv_next = 0;
            ats = tl_xmalloc((size_t)n * 3 * sizeof *ats);
            Ws = ats + n;
            dsts = Ws + n;
            for (int64_t q = 0; q < n; q++) {
                Ws[q] = W - q * Wh < Wh ? W - q * Wh : Wh;
                ats[q] = im->dram + b * x->P * W + q * x->P * Wh;
                dsts[q] = at + 2 * q * Wh;
            }
            acc_cg_emit_load_run_then(o, x->g.m, n, ats, Ws, Wh, sp, dsts,
                                      nbm + 1, 2, NULL,
                                      x->pw_in ? fold_piece : NULL, x);
            free(ats);
            while (x->pw_in && x->inv_next < x->ninv)
                pipe_inv_down(x, o);
        }
    }
}

static void put_store(Pipe *x, TlBuf *o, int64_t b)
{
    const Tensor *t = &x->ts[x->st[x->nst - 1].tensor];
    /* Layout mode: the output in the plan's layout. */
    int64_t W = t->U.L ? t->U.words / 2 : x->RB * t->C * 4;
    int64_t at = t->U.L ? t->U.at : t->at;
    char sp[8];

    snprintf(sp, sizeof sp, "lm%d", t->U.L ? t->U.bank : t->bank);
    for (int64_t q = 0; q * x->Wmax < W; q++) {
        int64_t Wq = W - q * x->Wmax < x->Wmax ? W - q * x->Wmax : x->Wmax;
        acc_cg_emit_store(o, x->g.m, sp, at + 2 * q * x->Wmax, Wq,
                          x->out_dram + b * x->P * W + q * x->P * x->Wmax);
    }
}

/* The program's text into o (the DRAM images and regions set). */
static void emit_program(Pipe *x, TlBuf *o)
{
    AccCg *g = &x->g;
    AccCgProgram *p = g->p;
    const AccCgCall *c = g->c;

    buf_printf(o, "# accel: kernel %s, a pipeline of %d stages over %lld "
               "rows: %lld blocks of %lld row %s per PE\n",
               c->k->name, x->nst, (long long)x->N, (long long)x->NB,
               (long long)x->RB, x->lay ? "slots" : "pairs");
    if (x->K > 1)
        buf_printf(o, "# each row pair over %lld PEs, one in each MAB of an "
                   "L1B: reductions finish in the tree\n", (long long)x->K);
    for (int i = 0; i < p->nins; i++)
        buf_printf(o, ".input %s f32[%lld] d[%lld]\n", p->ins[i].name,
                   (long long)p->ins[i].nmap, (long long)x->imgs[i].dram);
    buf_printf(o, ".output %s f32[%lld] d[%lld]\n",
               c->k->outputs[0]->name, (long long)p->oimage,
               (long long)x->out_dram);
    for (int64_t b = 0; b < x->NB && !g->failed; b++) {
        put_loads(x, o, b);
        emit_block_code(x, o, x->pw_in ? 1 : 0, b);
        if (!x->pw_out)
            put_store(x, o, b);
    }
    buf_puts(o, "wait t1\n");
}

/* W long words per PE of input image i's DRAM image. */
static int64_t img_words(const Pipe *x, int i)
{
    const Img *im = &x->imgs[i];
    return im->U.L ? im->U.words / 2 : x->RB * im->C * 4;
}

int acc_cg_pipeline(TlSession *s, const AccMachine *m, const AccCgCall *c,
                    AccCgProgram *p, TlLoc loc)
{
    Pipe *x = tl_xcalloc(1, sizeof *x);
    AccCg *g = &x->g;
    TlBuf scratch;
    int64_t rows2, dram = 0;
    int rc;

    acc_cg_init(g, s, m, c, p, loc);
    g->load = load;
    g->operand = operand;
    g->ctx = x;
    g->letv = x->letv;
    g->letval = x->letval;
    x->K = 1;
    x->G = m->level[m->nlevels - 1].fanout;
    x->L1 = acc_cg_scope_pes(m, 1);
    if ((rc = match(x, c->ck->fn->body)) != 0)
        goto out;
    rc = -1;
    if (c->k->outputs[0]->dtype != DT_F32) {
        fail(x, "outputs of a type other than f32");
        goto out;
    }
    if (acc_bm_levels(m) < 1) {
        fail(x, "a machine without BM levels");
        goto out;
    }
    x->A = 2 * m->grf_words - 32;
    x->F1 = x->A + 8;
    x->F2 = x->A + 16;
    x->ID = x->A + 24;
    g->max_temps = (int)(x->A / 8);
    if (g->max_temps > ACC_CG_MAX_TEMPS)
        g->max_temps = ACC_CG_MAX_TEMPS;
    x->P = acc_machine_pes(m);
    x->Wmax = acc_cg_max_load(m, acc_bm_levels(m) + 1);
    x->si = pipe_lay_schedule(c->k);
    x->lay = x->si != NULL;
    if (!x->lay)
        pipe_choose_split(x);
    /* A dry run finds the images every stage reads. */
    buf_init(&scratch);
    x->dry = 1;
    x->chi = INT64_MAX;
    rc = emit_block_code(x, &scratch, 0, 0);
    buf_free(&scratch);
    x->dry = 0;
    if (rc)
        goto out;
    rc = -1;
    if (x->Wmax < 4) {
        fail(x, "rows this long on this machine (a block of rows does not "
                "fit in a PE's memories)");
        goto out;
    }
    if (x->lay) {
        /* One block: the rows as the layouts spread them. */
        if (pipe_lay_setup(x))
            goto out;
        x->NB = 1;
    } else {
        rows2 = cdiv(x->N, 2);
        for (x->RB = cdiv(rows2, x->P / x->K);
             x->RB > 0 && pipe_place(x, x->RB); x->RB--)
            ;
        if (x->RB == 0) {
            fail(x, "rows this long on this machine (a block of rows does "
                    "not fit in a PE's memories)");
            goto out;
        }
        x->NB = cdiv(rows2, x->P / x->K * x->RB);
        if (x->NB == 0)
            x->NB = 1;
    }
    pipe_find_invariant(x);
    pipe_choose_pieces(x);
    for (int i = 0; i < p->nins; i++) {
        x->imgs[i].dram = dram;
        dram += (x->imgs[i].inv ? x->L1 : x->NB * x->P) * img_words(x, i);
    }
    x->out_dram = dram;
    if (pipe_build_maps(x) || pipe_layout_output(x))
        goto out;
    x->scratch = dram + p->oimage / 2;
    if (x->scratch + x->scratch_words > m->dram_words) {
        fail(x, "tensors larger than the machine's DRAM");
        goto out;
    }
    emit_program(x, &p->text);
    if (x->nconv && !g->failed) {
        /* The same program without its conversions, for the runner to
         * tell their traffic from the rest. */
        p->nconv = x->nconv;
        x->noconv = 1;
        buf_init(&p->bare);
        emit_program(x, &p->bare);
    }
    p->plan = x->plan;
    rc = g->failed ? -1 : 0;
out:
    free(x->rowmap);
    free(x);
    return rc;
}
