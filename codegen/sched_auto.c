/*
 * sched_auto.c - the automatic part of the cpu default schedule
 * (SPEC 10.4): what a stage without directives gets beyond
 * sched_apply.c's plain default, chosen from the stage's own shape
 * and reads.  Imported models (tdsl import) have no schedules, so
 * this is what makes their convolutions, matrix products and
 * element-wise chains fast.  Nothing here changes a result: no
 * reduction is reassociated, every element is computed with the same
 * operations in the same order as the interpreter does.
 *
 * The rules, in the order they are tried:
 *
 * 1. Inline.  A stage is computed inline (compute_inline) into its
 *    reader when it has no reduction, is an intermediate (not an
 *    output), has exactly one read in the whole kernel, a plain read
 *    (not zero_pad or clamp_edge), and that reader is a stage with no
 *    reduction whose domain has, as far as constants say, no more
 *    elements than this stage's.  So an element-wise chain (bias,
 *    batch norm, relu, residual add, gelu's pieces, a transpose or
 *    reshape) is one loop nest without buffers in between, and no
 *    element is computed more often than at root: a reduction reader
 *    would recompute it per term, a broadcasting reader per copy.
 *    Several plain reads in that one reader are allowed when they
 *    index the same way (the same index expressions) and the stage's
 *    value is arithmetic on reads and constants, without calls: the C
 *    compiler computes the repeated expression once (its loads are the
 *    same), so no work is repeated either.  GELU as exported, x *
 *    (erf(x / sqrt 2) + 1) / 2 with x = a matrix product + a bias, no
 *    longer keeps x in a buffer of its own (the ONNX encoder's bias
 *    stage, 3.6 us of 377 on 1 thread).
 *
 * 2. Register tile.  A stage whose value holds one reduction (sum,
 *    prod, max or min of the stage's dtype) and whose last index
 *    variable x indexes only the last axis of the tensors the
 *    reduction's body reads, and at least one of them (so lanes of x
 *    read neighbouring elements: a matrix product's B[k, j], a
 *    convolution's X[n, c, y + r, x + s]), is lowered as an update
 *    (lower.c) with its reduction loops moved inside a tile of the
 *    output:
 *
 *      x split by W (a vector: 64 bytes on AVX-512 hosts when that
 *        divides x's extent, else 32; vectorized), its outer part
 *        by V (1 or 2 vectors, unrolled), when W * V divides x's
 *        constant extent; V is 1 with 64-byte vectors;
 *      y, an index variable before x whose extent is a constant
 *        above 1, split by R (4, 3, 2 or 1, the largest that divides
 *        it; with 64-byte vectors 16 or 8 first; unrolled): the
 *        nearest that no read along x mentions (a matrix product's i,
 *        a convolution's output channel: each vector loaded then
 *        serves all R rows), else the nearest;
 *      order: the other index loops as written, y's and x's outer
 *        loops, the reduction loops as written, then R, V, W.
 *
 *    The R x V vectors of the tile stay in registers across the
 *    reduction loops (codegen/pass_accum.c); each element still
 *    accumulates its terms in the written order.  With AVX-512's 32
 *    registers a tile of 16 rows by 1 vector beat 4 by 2: the
 *    encoder's 64 x 128 x 512 product 198 -> 84 us, 64 x 128 x 128
 *    39 -> 20 us, resnet's 16-channel 3 x 3 convolution 84 -> 51 us
 *    (1 thread; bench/README, 2026-11-28).  Per B vector loaded 16
 *    rows of work instead of 4; B's rows 2 KB apart fall on few L1
 *    sets and come from L2, which bounds the smaller tiles.  8 x 2
 *    ran 112 us, between the two.  The outermost index
 *    loop with more than one iteration runs in parallel when the
 *    stage has CG_PAR_MIN elements or more.
 *
 * 2b. Outputs as lanes.  A stage with one such reduction that rule 2
 *    does not tile is lowered as an update with x split by W (a
 *    32-byte vector of the dtype, at most ROW_LANES lanes, halved
 *    while above x's constant extent; at least 2) and that inner loop
 *    vectorized inside the reduction loops:
 *
 *      ..., xo, the reduction loops as written, xw (W lanes)
 *
 *    so W outputs accumulate side by side in one register
 *    (pass_accum.c), each lane its own chain in the written order.
 *    A row reduction (softmax's max(d) X[n, d], layer norm's sums over
 *    X[b, n, r]) reads its rows strided (lane l loads row xo * W + l);
 *    a window along x (a pool's X[.., x * 10 + r * 10 - 20], a
 *    convolution whose width the tile's vector does not divide) reads
 *    its lanes a stride apart or as neighbours; but not a body that
 *    divides an integer mentioning x (a transposed convolution's
 *    (x + 1 - r) / 2: a vector division is done one lane at a time,
 *    6x the scalar code's time), nor a window of fewer than
 *    WINDOW_TERMS terms.  Where W does not
 *    divide x's extent the guarded tail runs the rest (pass_partition).
 *    Parallel as rule 2.  A sum over 128 went from one dependent add
 *    per term to W in flight: 4.5x on softmax's max and sum rows, 2.2x
 *    on layer norm's (bench/README, 2026-11-28); unrolling R rows as
 *    scalar chains (the hand schedule of softmax_exact) gave 1.7-2.2x.
 *    The suite's dilated max pools, whose windows ran one scalar chain
 *    per output, 10.6 -> 0.71 ms (bench/README, 2026-11-29).

 * 3. Otherwise the plain default (sched_apply.c): the last index loop
 *    vectorized, the first in parallel when big enough; but not
 *    vectorized when a read takes x other than shifted by a constant
 *    in its last index (an imported padded copy's clamp(x, 0, 31)):
 *    such lanes are loaded one at a time, slower than scalar code.
 *
 * TODO(issue 4): rule 2b's lanes load their rows one element each
 * (strided: a vector literal of W scalar loads, emit_vec.c's
 * strided_load); loading W contiguous elements of each of W rows and
 * transposing them in registers would load W times fewer vectors.
 * Alone that gains little: the encoder's row reductions (4 x 64 rows
 * of 64, max and sum; 64 rows of 128, mean and variance) take about
 * 4.4 cycles per 8-lane term, both the 8 scalar loads' bound (2 a
 * cycle) and the add's latency (one chain per lane, in order), and two
 * vectors of rows side by side (xo split by 2, unrolled: two chains)
 * ran no faster, 9.0 -> 9.2 us (bench/README, 2026-11-29, 09:04).  So
 * the transpose (16 shuffles a block with 128-bit loads) and two row
 * vectors together, at best about 2x on 9 us of the encoder's 360.
 * It needs a shuffle in the LIR (there is none: LE_RAMP and
 * LE_BROADCAST only).
 * Rule 2's B rows a power of two apart (2 KB in the encoder) share a
 * few L1 sets, so a tile's B vectors come from L2 each time; a packed
 * copy of B's panel (bench/tdsl_kernels.tdsl's matmul packs by hand)
 * would keep them in L1.
 */
#include "codegen/c/cgc.h"

#include <stdlib.h>
#include <string.h>

/* Rule 2b's widest vector across rows: 16 lanes of f32 gathered from
 * 16 rows ran 1.5x the time of 8 (bench/README, 2026-11-28). */
enum { ROW_LANES = 8 };

/* Rule 2b takes a window along x (not rows) from this many terms on:
 * a shorter chain, computed one output after another, overlaps the
 * next outputs' chains in the core's out-of-order window, and the
 * lanes' strided loads and the tail cost more than they save (the
 * suite's small convolutions and pools, 9 to 36 terms, 1.0-1.2x the
 * time; 72 terms 0.7x, 200 terms 0.07x; bench/README, 2026-11-29). */
enum { WINDOW_TERMS = 64 };

static int is_var(const TlExpr *e, const TlVar *v)
{
    return e->kind == EX_NAME && e->sym == v;
}

/* Whether e mentions variable v. */
static int mentions(const TlExpr *e, const TlVar *v)
{
    if (!e)
        return 0;
    if (is_var(e, v))
        return 1;
    if (mentions(e->a, v) || mentions(e->b, v) || mentions(e->c, v))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (mentions(e->args.v[i], v))
            return 1;
    return 0;
}

/* What a read of e is asked by some_read: x, and y or red. */
typedef struct ReadQ {
    const TlVar *x, *y;
    const TlReduce *red;
} ReadQ;

/* Whether some read (a tensor indexed) in e satisfies pred. */
static int some_read(const TlExpr *e,
                     int (*pred)(const TlExpr *read, const ReadQ *q),
                     const ReadQ *q)
{
    if (!e)
        return 0;
    if (e->kind == EX_INDEX && e->sym && tl_ref_kind(e->sym) == REF_READ &&
        pred(e, q))
        return 1;
    if (some_read(e->a, pred, q) || some_read(e->b, pred, q) ||
        some_read(e->c, pred, q))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (some_read(e->args.v[i], pred, q))
            return 1;
    return 0;
}

/* Whether read r's last index mentions q->x. */
static int x_last(const TlExpr *r, const ReadQ *q)
{
    return r->args.n && mentions(r->args.v[r->args.n - 1], q->x);
}

/* Over the reads in e: *last counts those whose last index mentions
 * x; returns 0 when an earlier index of some read mentions x. */
static int x_last_only(const TlExpr *e, const TlVar *x, int *last)
{
    if (!e)
        return 1;
    if (e->kind == EX_INDEX && e->sym &&
        tl_ref_kind(e->sym) == REF_READ) {
        for (int j = 0; j < e->args.n; j++) {
            if (!mentions(e->args.v[j], x))
                continue;
            if (j != e->args.n - 1)
                return 0;
            ++*last;
        }
    }
    if (!x_last_only(e->a, x, last) || !x_last_only(e->b, x, last) ||
        !x_last_only(e->c, x, last))
        return 0;
    for (int i = 0; i < e->args.n; i++)
        if (!x_last_only(e->args.v[i], x, last))
            return 0;
    return 1;
}

static int64_t const_extent(const TlFunc *f, int j)
{
    int64_t v;

    if (!f->axes[j].extent || !tl_sym_const(f->axes[j].extent, &v))
        return -1;
    return v;
}

static int64_t elements(const TlFunc *f)
{
    int64_t n = 1;

    for (int j = 0; j < f->rank; j++) {
        int64_t e = const_extent(f, j);
        if (e < 0)
            return -1;
        n *= e;
    }
    return n;
}

/* The widest vector registers of the host, in bytes: 64 with AVX-512
 * (kernels are compiled for the host, -march=native), else 32.
 * TDSL_VECTOR_BYTES=32 or 64 says it instead (the golden IR tests fix
 * 32, so that they print the same on every host). */
static int host_vector_bytes(void)
{
    const char *e = getenv("TDSL_VECTOR_BYTES");

    if (e && (!strcmp(e, "32") || !strcmp(e, "64")))
        return atoi(e);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 64;
#endif
    return 32;
}

/* The vector width of rule 2 for f's dtype, 0 when none: the host's
 * widest when it divides x's extent, else a 32-byte vector's. */
static int vec_width(const TlFunc *f)
{
    int b = dt_size(f->dtype), w;
    int64_t ex = f->rank ? const_extent(f, f->rank - 1) : -1;

    if (f->dtype == DT_BOOL || f->dtype == DT_F16 || f->dtype == DT_BF16 ||
        b < 1)
        return 0;
    w = host_vector_bytes() / b;
    if (w > 32 / b && (ex < w || ex % w))
        w = 32 / b;
    return w;
}

/* f's one reduction when rules 2 and 2b may apply to it: a sum,
 * prod, max or min of f's dtype, with few enough loops; else NULL. */
static const TlReduce *one_reduction(const TlFunc *f)
{
    const TlReduce *red;

    if (f->rank < 1 || f->nreds != 1 || !f->value ||
        !f->axes[f->rank - 1].var)
        return NULL;
    red = f->reds[0];
    if ((red->op != RD_SUM && red->op != RD_PROD && red->op != RD_MAX &&
         red->op != RD_MIN) || red->expr->dtype != f->dtype ||
        red->nrvars > 26 || f->rank + red->nrvars + 3 > CG_MAX_LOOPS)
        return NULL;
    return red;
}

/* Rule 2's test. */
static int tiles(const TlFunc *f)
{
    const TlReduce *red = one_reduction(f);
    const TlVar *x;
    int w = vec_width(f), last = 0;
    int64_t ex;

    if (!red || !w)
        return 0;
    x = f->axes[f->rank - 1].var;
    ex = const_extent(f, f->rank - 1);
    if (ex < w || ex % w)
        return 0;
    return x_last_only(red->expr->a, x, &last) && last > 0;
}

/* Whether e mentions one of red's variables. */
static int mentions_rvar(const TlExpr *e, const TlReduce *red)
{
    for (int v = 0; v < red->nrvars; v++)
        if (mentions(e, red->rvars[v]))
            return 1;
    return 0;
}

/* Whether read r moves with the reduction (an index mentions one of
 * q->red's variables) and takes q->x into its last index: a window
 * along x (a pool's, a convolution's), not a row. */
static int x_along_reduction(const TlExpr *r, const ReadQ *q)
{
    if (!x_last(r, q))
        return 0;
    for (int j = 0; j < r->args.n; j++)
        if (mentions_rvar(r->args.v[j], q->red))
            return 1;
    return 0;
}

/* How many terms red sums (or takes the max of, ...), INT64_MAX when
 * a range is not a constant. */
static int64_t terms(const TlReduce *red)
{
    int64_t n = 1, v;

    for (int i = 0; i < red->nrvars; i++) {
        if (!red->rvars[i]->extent ||
            !tl_sym_const(red->rvars[i]->extent, &v))
            return INT64_MAX;
        if (v > 0 && n > INT64_MAX / v)
            return INT64_MAX;
        n *= v;
    }
    return n;
}

/* Whether e divides an integer that mentions x (/ or %): across
 * lanes of x a vector division, one lane at a time (a transposed
 * convolution's (x + 1 - r) / 2 ran 6x slower so). */
static int divides_x(const TlExpr *e, const TlVar *x)
{
    if (!e)
        return 0;
    if (e->kind == EX_BINARY && (e->op == OP_DIV || e->op == OP_MOD) &&
        dt_is_int(e->dtype) && mentions(e, x))
        return 1;
    if (divides_x(e->a, x) || divides_x(e->b, x) || divides_x(e->c, x))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (divides_x(e->args.v[i], x))
            return 1;
    return 0;
}

/* Rule 2b's lanes for f: a 32-byte vector of f's dtype, at most
 * ROW_LANES, halved while above x's constant extent; 0: the rule does
 * not apply. */
static int row_width(const TlFunc *f)
{
    const TlReduce *red = one_reduction(f);
    int b = dt_size(f->dtype), w;
    int64_t ex;
    ReadQ q = {f->rank ? f->axes[f->rank - 1].var : NULL, NULL, red};

    if (!red || f->dtype == DT_BOOL || f->dtype == DT_F16 ||
        f->dtype == DT_BF16 || b < 1 || divides_x(red->expr->a, q.x) ||
        (some_read(red->expr->a, x_along_reduction, &q) &&
         terms(red) < WINDOW_TERMS))
        return 0;
    w = 32 / b < ROW_LANES ? 32 / b : ROW_LANES;
    ex = const_extent(f, f->rank - 1);
    while (ex >= 0 && w > ex)
        w /= 2;
    return w >= 2 ? w : 0;
}

int cg_auto_tiled(const TlFunc *f)
{
    return tiles(f) || row_width(f);
}

/* Whether index e is x, x + c, c + x or x - c (c free of x). */
static int shifted(const TlExpr *e, const TlVar *x)
{
    if (is_var(e, x))
        return 1;
    if (e->kind != EX_BINARY || (e->op != OP_ADD && e->op != OP_SUB))
        return 0;
    if (is_var(e->a, x) && !mentions(e->b, x))
        return 1;
    return e->op == OP_ADD && is_var(e->b, x) && !mentions(e->a, x);
}

/* Whether read r takes q->x into its last index other than shifted
 * (clamp(x, 0, 31), x / 2, ...) or into an earlier index. */
static int gathers(const TlExpr *r, const ReadQ *q)
{
    for (int j = 0; j < r->args.n; j++)
        if (mentions(r->args.v[j], q->x) &&
            (j != r->args.n - 1 || !shifted(r->args.v[j], q->x)))
            return 1;
    return 0;
}

int cg_auto_scalar(const TlFunc *f)
{
    return f->rank > 0 && !f->nreds && f->value &&
           some_read(f->value, gathers,
                     &(ReadQ){f->axes[f->rank - 1].var, NULL, NULL});
}

/* The reads of f in reader g's value: how many; bad when one is not
 * plain; nonid when one is not at g's own indices (f[i, j] in g[i, j]
 * over the same extents): repeated identity reads, inlined, are one
 * expression that the C compiler computes once. */
typedef struct Reads {
    const TlFunc *f, *g;
    int n, bad, nonid;
} Reads;

static int identity_read(const TlExpr *e, const TlFunc *f, const TlFunc *g)
{
    if (g->rank != f->rank || e->args.n != f->rank)
        return 0;
    for (int j = 0; j < f->rank; j++) {
        const TlExpr *a = e->args.v[j];
        if (a->kind != EX_NAME || !g->axes[j].var ||
            a->sym != g->axes[j].var || const_extent(f, j) < 0 ||
            const_extent(g, j) != const_extent(f, j))
            return 0;
    }
    return 1;
}

static void count_reads(const TlExpr *e, Reads *r)
{
    if (!e)
        return;
    if (e->kind == EX_INDEX && e->sym && tl_ref_kind(e->sym) == REF_READ &&
        ((const TlRead *)e->sym)->func == r->f) {
        r->n++;
        r->bad |= ((const TlRead *)e->sym)->mode != READ_PLAIN;
        r->nonid |= !identity_read(e, r->f, r->g);
    }
    if (e->kind == EX_NAME && e->sym == r->f) {
        r->n++;
        r->bad = 1;
    }
    if (e->kind != EX_INDEX)    /* its a: the tensor's name */
        count_reads(e->a, r);
    count_reads(e->b, r);
    count_reads(e->c, r);
    for (int i = 0; i < e->args.n; i++)
        count_reads(e->args.v[i], r);
}

/* Whether e calls nothing (math functions, kernels): repeated, the C
 * compiler folds it into one computation. */
static int no_calls(const TlExpr *e)
{
    if (!e)
        return 1;
    if (e->kind == EX_CALL || e->kind == EX_REDUCE)
        return 0;
    if (!no_calls(e->a) || !no_calls(e->b) || !no_calls(e->c))
        return 0;
    for (int i = 0; i < e->args.n; i++)
        if (!no_calls(e->args.v[i]))
            return 0;
    return 1;
}

/* How far sink follows a chain of inlined stages. */
enum { SINK_DEPTH = 16 };

static int auto_inline(const TlKernelInfo *k, const TlFunc *f, int depth);

/* The stage whose loop nest computes g's elements by rule 1: g itself
 * when it is not inlined, else the sink of its one reader when g is
 * read there at its own indices; NULL when g is inlined through
 * another read or the chain is longer than SINK_DEPTH. */
static const TlFunc *sink(const TlKernelInfo *k, const TlFunc *g,
                          int depth)
{
    if (depth > SINK_DEPTH)
        return NULL;
    if (!auto_inline(k, g, depth + 1))
        return g;
    for (int i = 0; i < k->nfuncs; i++) {
        Reads r = {g, k->funcs[i], 0, 0, 0};
        if (k->funcs[i]->call)
            continue;
        count_reads(k->funcs[i]->value, &r);
        if (r.n)
            return r.nonid ? NULL : sink(k, k->funcs[i], depth + 1);
    }
    return NULL;
}

/* Rule 1 for f; depth: how deep in sink's chains. */
static int auto_inline(const TlKernelInfo *k, const TlFunc *f, int depth)
{
    const TlFunc *reader = NULL;
    int64_t mine = elements(f), theirs;
    int total = 0, nonid = 0;

    if (f->kind != FN_STAGE || f->nreds || !f->value || f->rank < 1)
        return 0;
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *g = k->funcs[i];
        Reads r = {f, g, 0, 0, 0};
        if (g->call) {
            for (int a = 0; a < g->call->callee->ninputs; a++)
                if (g->call->inputs && g->call->inputs[a] == f)
                    return 0;
            continue;
        }
        count_reads(g->value, &r);
        if (r.bad)
            return 0;
        if (r.n) {
            reader = g;
            total += r.n;
            nonid |= r.nonid;
        }
    }
    if (total > 1) {
        /* every read at the reader's own indices, every reader ending
         * in one loop nest: its own, or one it is inlined into */
        const TlFunc *s = NULL;
        if (nonid || !no_calls(f->value) || depth > SINK_DEPTH)
            return 0;
        for (int i = 0; i < k->nfuncs; i++) {
            Reads r = {f, k->funcs[i], 0, 0, 0};
            const TlFunc *t;
            if (k->funcs[i]->call)
                continue;
            count_reads(k->funcs[i]->value, &r);
            if (!r.n)
                continue;
            t = sink(k, k->funcs[i], depth + 1);
            if (!t || (s && t != s))
                return 0;
            s = t;
        }
        reader = s;
    }
    if (total < 1 || reader->nreds ||
        (reader->kind != FN_STAGE && reader->kind != FN_OUTPUT))
        return 0;
    theirs = elements(reader);
    return mine > 0 && theirs > 0 && theirs <= mine;
}

int cg_auto_inline(const TlKernelInfo *k, const TlFunc *f)
{
    return auto_inline(k, f, 0);
}

/* Loop i of n moved to position p (the loops between shift up). */
static void move(CgNest *n, int i, int p)
{
    CgLoop l = n->loops[i];

    memmove(&n->loops[i], &n->loops[i + 1],
            (size_t)(n->nloops - i - 1) * sizeof l);
    memmove(&n->loops[p + 1], &n->loops[p],
            (size_t)(n->nloops - 1 - p) * sizeof l);
    n->loops[p] = l;
}

static int find_lv(const CgNest *n, const LVar *v)
{
    for (int i = 0; i < n->nloops; i++)
        if (n->loops[i].lv == v)
            return i;
    return -1;
}

/* Whether read r, whose last index mentions q->x, mentions q->y in
 * any index: then the rows of a tile over y read different vectors. */
static int vector_reads_y(const TlExpr *r, const ReadQ *q)
{
    if (!x_last(r, q))
        return 0;
    for (int j = 0; j < r->args.n; j++)
        if (mentions(r->args.v[j], q->y))
            return 1;
    return 0;
}

/* The index the tile's rows run over: the nearest one before x with a
 * constant extent above 1 that the vector reads (those along x) do not
 * mention, so that each vector loaded serves every row of the tile (a
 * matrix product's i: B[k, j]; a convolution's output channel, not
 * its image row); else the nearest with such an extent; -1: none. */
static int tile_rows(const TlFunc *f)
{
    const TlVar *x = f->axes[f->rank - 1].var;
    const TlExpr *body = f->reds[0]->expr->a;
    int near = -1;

    for (int j = f->rank - 2; j >= 0; j--) {
        if (const_extent(f, j) <= 1)
            continue;
        if (near < 0)
            near = j;
        if (!some_read(body, vector_reads_y,
                       &(ReadQ){x, f->axes[j].var, NULL}))
            return j;
    }
    return near;
}

/* The first pure loop of n with more than one iteration runs in
 * parallel (from CG_PAR_MIN elements on). */
static void auto_parallel(TlSession *s, CgNest *n)
{
    int par;

    for (par = 0; par < n->nloops && !n->loops[par].rkey; par++) {
        LExpr *e = lir_simplify_expr(s, n->loops[par].extent);
        if (e->kind != LE_INT || e->ival > 1)
            break;
    }
    if (par < n->nloops && !n->loops[par].rkey &&
        n->loops[par].kind == LP_SERIAL) {
        n->loops[par].kind = LP_PARALLEL;
        n->loops[par].width = 0;
        n->par_if = 1;
    }
}

/* Rule 2b: x split by w, its inner loop innermost and vectorized. */
static int row_lanes(TlSession *s, TlFunc *f, CgNest *n, int w)
{
    int r = f->rank;
    LVar *xw;

    if (cg_sched_split(s, f, n, r - 1, "xo", "xw", w))
        return -1;
    xw = n->loops[r].lv;
    move(n, r, n->nloops - 1);
    n->loops[find_lv(n, xw)].kind = LP_VECTORIZED;
    n->loops[find_lv(n, xw)].width = w;
    auto_parallel(s, n);
    return 0;
}

int cg_auto_tile(TlSession *s, TlFunc *f, CgNest *n)
{
    int r = f->rank, w = vec_width(f), v, rr = 1, y = -1, xi, wide;
    int64_t ex = const_extent(f, r - 1), ey = 0;
    LVar *xv, *xw, *yi = NULL;

    if (n->nloops != r + n->nrv)
        return -1;
    if (!tiles(f))
        return row_width(f) ? row_lanes(s, f, n, row_width(f)) : -1;
    wide = w * dt_size(f->dtype) == 64;
    v = !wide && ex % (2 * w) == 0 ? 2 : 1;
    y = tile_rows(f);
    if (y >= 0)
        ey = const_extent(f, y);
    if (wide && y >= 0)
        for (int c = 16; c > 4 && rr == 1; c /= 2)
            if (ey % c == 0)
                rr = c;
    for (int c = 4; y >= 0 && c > 1 && rr == 1; c--)
        if (ey % c == 0)
            rr = c;
    /* x: W lanes inside V vectors inside the rest */
    if (cg_sched_split(s, f, n, r - 1, "xo", "xw", w))
        return -1;
    xw = n->loops[r].lv;
    if (cg_sched_split(s, f, n, r - 1, "xo", "xv", v))
        return -1;
    xv = n->loops[r].lv;
    if (rr > 1) {
        if (cg_sched_split(s, f, n, y, "yo", "yi", rr))
            return -1;
        yi = n->loops[y + 1].lv;
    }
    /* innermost: yi, xv, xw, after the reduction loops */
    if (yi)
        move(n, find_lv(n, yi), n->nloops - 1);
    move(n, find_lv(n, xv), n->nloops - 1);
    move(n, find_lv(n, xw), n->nloops - 1);
    xi = n->nloops - 1;
    n->loops[xi].kind = LP_VECTORIZED;
    n->loops[xi].width = w;
    if (v > 1)
        n->loops[xi - 1].kind = LP_UNROLLED;
    if (yi)
        n->loops[find_lv(n, yi)].kind = LP_UNROLLED;
    auto_parallel(s, n);
    return 0;
}
