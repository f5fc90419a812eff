/*
 * gen_accel.c - random kernels for the accel target (gen.h): what its
 * code generation takes today.  One stage storing a pointwise f32
 * expression (+, -, *, min, max, negation, constants) of up to three
 * inputs, each read at the output's index or broadcast along the axes
 * it lacks (its axes a subset of the output's, in the same order); or
 * a max or min reduction over one or two axes of such an expression
 * (the inputs' axes then an ordered subset of the output's and the
 * reduction's, interleaved at random).  Extents leave padding in the
 * last group or not.  Constants are exact in f32, so the only rounding
 * is the operations', and max and min do not round: everything must
 * agree bit for bit.
 *
 * Or a pipeline of three stages over rows (a max or min along the
 * row, an elementwise stage reading it, the output reading both), in
 * the same exact arithmetic.
 *
 * Or a sum over one or two axes of a read, a constant, or a sum or
 * product of two of them; or a matmul (out[i, j] = sum(r) of a product
 * of two inputs, each read either way round, in either order: the
 * matrix unit's route).  The tree and the unit reassociate sums, so
 * these programs ask for inputs of small integers (RgProgram
 * small_ints): every partial sum is then exact in f32 and any order
 * agrees bit for bit but for the sign of a zero, which SPEC 10.5
 * leaves open on accel (a reduction route may start a sum of -0
 * products at +0; diffcase.c compares zeros of either sign as equal
 * there).
 *
 * Elementwise kernels and reductions (but sums of products, which may
 * be the matrix unit's) may get a random accel schedule
 * (rg_accel_schedule): distributes of the output's axes (and the
 * reduced ones) over levels of the machine, sub-words (elementwise
 * only) and lanes, or the same as a compact `layout` of the output
 * (or of in0, the whole iteration space), and now and then a `layout`
 * of in0 of its own that the program converts, which the elementwise
 * route (cg_elem_lay.c) and the layout route (cg_red_lay.c) follow.
 *
 * Expressions may hold exp, log and rsqrt (the interpreter's bits on
 * accel) and divisions by powers of two (exact); an elementwise
 * output may be a division, a sqrt, or a division by a sqrt of the
 * rest, two roundings on accel, compared within 2 ulp (RgProgram
 * ulps).  A matmul may read f16 or bf16 inputs converted to f32 (of
 * small integers: exact).  Now and then a kernel holds a construct
 * the target refuses (another math function, a cast, a select, an
 * integer or f16 dtype, a stage read shifted): it must give a clean
 * ACC_CG_UNSUPPORTED error or the interpreter's result, never crash
 * (RgProgram may_refuse).
 *
 * TODO(issue 6): random distributes and layouts of pipelines.
 */
#include "gen.h"

#include <stdio.h>
#include <string.h>

enum { MAXIN = 3 };

typedef struct AGen {
    RgRng *r;
    int rank;                   /* of the output */
    int ndims;                  /* the output's axes, then reduced ones */
    int nin;
    int inrank[MAXIN];
    int indim[MAXIN][3];        /* the axes each input has */
    const char *extra[2];       /* stages a leaf may read (pipelines) */
    int nextra, nextra_max;     /* nextra_max: a pipeline (axes i j l) */
    int math;                   /* exp, log, rsqrt, / 2^k in expr */
    TlBuf *out;
} AGen;

/* Output axes i, j, l; reduced ones r, q after them. */
static const char *const axis[] = {"i", "j", "l"};
static const char *const size[] = {"N", "M", "P"};
static const char *const raxis[] = {"r", "q"};

static const char *axis_name(const AGen *g, int d)
{
    return d < g->rank || g->nextra_max ? axis[d] : raxis[d - g->rank];
}

static void read_input(AGen *g, int x)
{
    buf_printf(g->out, "in%d[", x);
    for (int d = 0; d < g->inrank[x]; d++)
        buf_printf(g->out, "%s%s", d ? ", " : "",
                   axis_name(g, g->indim[x][d]));
    buf_putc(g->out, ']');
}

static void constant(AGen *g)
{
    static const char *const c[] = {"0.5", "1.0", "2.0", "3.0", "0.25",
                                    "1.5", "-2.0", "-0.75", "8.0",
                                    "0.125"};
    buf_puts(g->out, c[rg_below(g->r, 10)]);
}

static void expr(AGen *g, int depth)
{
    int pick = depth >= 4   ? rg_below(g->r, 4)
               : depth == 0 ? 5 + rg_below(g->r, 5)
                            : rg_below(g->r, 10);

    if (g->math && depth < 4 && rg_chance(g->r, 12)) {
        /* exact on accel: the sim's exp, log and rsqrt are the
         * interpreter's; a power of two's reciprocal is exact */
        static const char *const fn[] = {"exp", "log", "rsqrt"};
        static const char *const p2[] = {"2.0", "0.5", "4.0", "-0.25",
                                         "8.0"};
        int k = rg_below(g->r, 4);
        if (k < 3) {
            buf_printf(g->out, "%s(", fn[k]);
            expr(g, depth + 1);
            buf_putc(g->out, ')');
        } else {
            buf_putc(g->out, '(');
            expr(g, depth + 1);
            buf_printf(g->out, " / %s)", p2[rg_below(g->r, 5)]);
        }
    } else if (pick < 3 && g->nextra && rg_chance(g->r, 40)) {
        buf_puts(g->out, g->extra[rg_below(g->r, g->nextra)]);
    } else if (pick < 3) {
        read_input(g, rg_below(g->r, g->nin));
    } else if (pick == 3) {
        constant(g);
    } else if (pick == 4) {
        buf_puts(g->out, "-(");
        expr(g, depth + 1);
        buf_putc(g->out, ')');
    } else if (pick <= 7) {
        static const char *const op[] = {" + ", " - ", " * "};
        buf_putc(g->out, '(');
        expr(g, depth + 1);
        buf_puts(g->out, op[pick - 5]);
        expr(g, depth + 1);
        buf_putc(g->out, ')');
    } else {
        buf_puts(g->out, pick == 8 ? "min(" : "max(");
        expr(g, depth + 1);
        buf_puts(g->out, ", ");
        expr(g, depth + 1);
        buf_putc(g->out, ')');
    }
}

/* A read or a constant, alone or two of them added or multiplied:
 * with inputs of small integers a term of a sum stays a multiple of
 * 2^-6 under 2^6, so sums of up to 2^12 terms are exact in f32. */
static void sum_body(AGen *g)
{
    int n = 1 + rg_below(g->r, 2);

    for (int t = 0; t < n; t++) {
        if (t)
            buf_puts(g->out, rg_chance(g->r, 50) ? " * " : " + ");
        if (rg_chance(g->r, 80))
            read_input(g, rg_below(g->r, g->nin));
        else
            constant(g);
    }
}

/* out[i, j] = sum(r) A * B for the matrix unit, extents up to 2^15
 * multiply-adds (rows, columns and depth from `pick`). */
static void matmul(RgRng *rng, RgProgram *p, const int64_t *pick, int n)
{
    TlBuf *o = &p->text;
    int64_t e[3];           /* N (i), M (j), R (r) */
    int ta = rg_chance(rng, 50), tb = rg_chance(rng, 50);
    int swap = rg_chance(rng, 50);
    /* f16 or bf16 inputs, converted to f32 in the product (exact for
     * small integers) */
    int h = rg_below(rng, 10);
    const char *dt = h < 2 ? "f16" : h < 3 ? "bf16" : "f32";
    const char *cv = h < 3 ? "f32(" : "", *cc = h < 3 ? ")" : "";

    do {
        for (int d = 0; d < 3; d++)
            e[d] = pick[rg_below(rng, n)];
    } while (e[0] * e[1] * e[2] > 32768);
    p->small_ints = 1;
    p->ninputs = 2;
    for (int x = 0; x < 2; x++) {
        int t = x ? tb : ta;
        /* in0 is (i, r) or (r, i); in1 (r, j) or (j, r). */
        int64_t a = x ? e[2] : e[0], b = x ? e[1] : e[2];
        p->dtype[x] = h < 2 ? DT_F16 : h < 3 ? DT_BF16 : DT_F32;
        p->rank[x] = 2;
        p->shape[x][0] = t ? b : a;
        p->shape[x][1] = t ? a : b;
    }
    buf_printf(o, "kernel k(in0: %s[%s], in1: %s[%s]) -> "
               "(out: f32[N, M]) {\n    out[i, j] = sum(r) ", dt,
               ta ? "R, N" : "N, R", dt, tb ? "M, R" : "R, M");
    if (swap)
        buf_printf(o, "%sin1[%s]%s * %sin0[%s]%s\n}\n", cv,
                   tb ? "j, r" : "r, j", cc, cv, ta ? "r, i" : "i, r", cc);
    else
        buf_printf(o, "%sin0[%s]%s * %sin1[%s]%s\n}\n", cv,
                   ta ? "r, i" : "i, r", cc, cv, tb ? "j, r" : "r, j", cc);
}

/* lhs combined with a random expression by +, -, *, min or max. */
static void combine(AGen *g, const char *lhs)
{
    int k = rg_below(g->r, 5);

    if (k < 3)
        buf_printf(g->out, "(%s %c ", lhs, "+-*"[k]);
    else
        buf_printf(g->out, "%s(%s, ", k == 3 ? "min" : "max", lhs);
    expr(g, 1);
    buf_putc(g->out, ')');
}

/* The stages of a pipeline over rows i (the accel target's pipeline
 * route): a max or min along the row, an elementwise stage reading it,
 * and the output, elementwise or another max or min along the row. */
static void pipeline(AGen *g, int cols, int red_out)
{
    TlBuf *o = g->out;
    static const char *const rng2[] = {"j in 0..M", "j in 0..M, l in 0..P"};
    static const char *const idx[] = {"i, j", "i, j, l"};

    buf_printf(o, "    a[i] = %s(%s) ", rg_chance(g->r, 50) ? "max" : "min",
               rng2[cols - 1]);
    expr(g, 0);
    g->extra[0] = "a[i]";
    g->nextra = 1;
    /* Each stage reads the one before, so that none is unused. */
    buf_printf(o, "\n    b[%s] = ", idx[cols - 1]);
    combine(g, "a[i]");
    g->extra[1] = cols == 1 ? "b[i, j]" : "b[i, j, l]";
    g->nextra = 2;
    if (red_out)
        buf_printf(o, "\n    out[i] = %s(%s) ",
                   rg_chance(g->r, 50) ? "max" : "min", rng2[cols - 1]);
    else
        buf_printf(o, "\n    out[%s] = ", idx[cols - 1]);
    combine(g, g->extra[1]);
    buf_puts(o, "\n}\n");
}

/* An elementwise output of a division, a sqrt or a division by a
 * sqrt: two roundings on accel (p->ulps).  The divisor is a read or a
 * read plus a constant, so that its reciprocal stays normal. */
static void quotient(AGen *g, RgProgram *p)
{
    int k = rg_below(g->r, 3), x = rg_below(g->r, g->nin);

    p->ulps = 2;
    if (k == 1) {
        buf_puts(g->out, "sqrt(");
        expr(g, 1);
        buf_putc(g->out, ')');
        return;
    }
    buf_putc(g->out, '(');
    expr(g, 1);
    buf_puts(g->out, k ? ") / sqrt(" : ") / (");
    read_input(g, x);
    if (rg_chance(g->r, 50)) {
        buf_puts(g->out, " + ");
        constant(g);
    }
    buf_putc(g->out, ')');
}

/* A kernel with something the accel target may not compile (SPEC 7:
 * other math functions, casts, select, other dtypes, a stage read
 * shifted), over one axis of extent n. */
static void refused(RgRng *rng, RgProgram *p, int64_t n)
{
    static const char *const fn[] = {"tanh", "sin", "sigmoid", "erf",
                                     "abs", "floor", "atan"};
    static const struct {
        const char *dt;
        TlDType t;
    } it[] = {{"i32", DT_I32}, {"u32", DT_U32}, {"f16", DT_F16},
              {"f64", DT_F64}, {"i8", DT_I8}};
    TlBuf *o = &p->text;
    int k = rg_below(rng, 5);
    const char *dt = "f32";

    p->may_refuse = 1;
    p->ninputs = 1;
    p->dtype[0] = DT_F32;
    p->rank[0] = 1;
    p->shape[0][0] = n;
    if (k == 3) {
        int d = rg_below(rng, 5);
        dt = it[d].dt;
        p->dtype[0] = it[d].t;
    }
    buf_printf(o, "kernel k(in0: %s[N]) -> (out: %s[N]) {\n", dt, dt);
    switch (k) {
    case 0:
        buf_printf(o, "    out[i] = %s(in0[i]) + in0[i]\n",
                   fn[rg_below(rng, 7)]);
        break;
    case 1:
        buf_puts(o, rg_chance(rng, 50) ? "    out[i] = f32(i32(in0[i]))\n"
                                       : "    out[i] = f32(f16(in0[i]))\n");
        break;
    case 2:
        buf_puts(o, "    out[i] = select(in0[i] > 0.0, in0[i], 2.0)\n");
        break;
    case 3:
        buf_puts(o, "    out[i] = in0[i] + in0[i] * in0[i]\n");
        break;
    default:
        buf_puts(o, "    a[i] = in0[i] * 2.0\n"
                    "    out[i] = a[clamp(i + 1, 0, N - 1)] + in0[i]\n");
        break;
    }
    buf_puts(o, "}\n");
}

void rg_program_accel(RgRng *rng, RgProgram *p)
{
    AGen g;
    int64_t ext[3];
    int pipe = rg_chance(rng, 30), red = !pipe && rg_chance(rng, 40);
    int order[3], red_out = pipe && rg_chance(rng, 30);
    int sum = red && rg_chance(rng, 40), mm = !pipe && !red &&
                                                rg_chance(rng, 20);
    /* Extents: small ones, and ones around a group of the machines'
     * (64 PEs x 8 f32) so that groups fill exactly or leave padding. */
    static const int64_t pick[] = {1, 2, 3, 5, 7, 8, 16, 31, 32, 33, 64,
                                   100, 128, 257, 512, 513};

    memset(&g, 0, sizeof g);
    memset(p, 0, sizeof *p);
    buf_init(&p->text);
    g.r = rng;
    g.out = &p->text;
    if (mm) {
        matmul(rng, p, pick, (int)(sizeof pick / sizeof pick[0]));
        return;
    }
    if (rg_chance(rng, 6)) {
        refused(rng, p, pick[rg_below(rng, 16)]);
        return;
    }
    p->small_ints = sum;
    g.rank = 1 + rg_below(rng, red ? 2 : 3);
    g.ndims = g.rank + (red ? 1 + rg_below(rng, 3 - g.rank) : 0);
    g.nextra_max = pipe;
    g.math = !sum && rg_chance(rng, 40);
    if (pipe) {
        /* Rows i, then one or two column axes j, l. */
        g.ndims = 2 + rg_below(rng, 2);
        g.rank = red_out ? 1 : g.ndims;
    }
    for (int d = 0; d < g.ndims; d++) {
        int n = (int)(sizeof pick / sizeof pick[0]);
        /* Keep the whole output under 2^14 elements. */
        do
            ext[d] = pick[rg_below(rng, n)];
        while (d > 0 && (ext[d] * ext[0] * (d > 1 ? ext[1] : 1) >
                             (red || pipe ? 4096 : 16384) ||
                         /* a row's stages fit in the memories of a
                          * PE of tiny (2 x 256 long words) */
                         (pipe && ext[d] * (d > 1 ? ext[1] : 1) > 64)));
    }
    /* The order of the axes in the inputs: the output's as they are,
     * a reduction's anywhere among them. */
    for (int d = 0; d < g.ndims; d++)
        order[d] = d;
    for (int d = g.rank; d < g.ndims && !pipe; d++) {
        int at = rg_below(rng, d + 1);
        memmove(order + at + 1, order + at, (size_t)(d - at) * sizeof *order);
        order[at] = d;
    }
    g.nin = 1 + rg_below(rng, MAXIN);
    for (int x = 0; x < g.nin; x++) {
        /* The first input has every axis (so it binds every size);
         * the others a random ordered subset, at least one axis. */
        int n = 0;
        for (int d = 0; d < g.ndims; d++)
            if (x == 0 || rg_chance(rng, 60))
                g.indim[x][n++] = order[d];
        if (n == 0)
            g.indim[x][n++] = rg_below(rng, g.ndims);
        g.inrank[x] = n;
    }
    buf_puts(&p->text, "kernel k(");
    for (int x = 0; x < g.nin; x++) {
        buf_printf(&p->text, "%sin%d: f32[", x ? ", " : "", x);
        for (int d = 0; d < g.inrank[x]; d++)
            buf_printf(&p->text, "%s%s", d ? ", " : "",
                       size[g.indim[x][d]]);
        buf_putc(&p->text, ']');
        p->dtype[x] = DT_F32;
        p->rank[x] = g.inrank[x];
        for (int d = 0; d < g.inrank[x]; d++)
            p->shape[x][d] = ext[g.indim[x][d]];
    }
    p->ninputs = g.nin;
    buf_puts(&p->text, ") -> (out: f32[");
    for (int d = 0; d < g.rank; d++)
        buf_printf(&p->text, "%s%s", d ? ", " : "", size[d]);
    if (pipe) {
        buf_puts(&p->text, "]) {\n");
        pipeline(&g, g.ndims - 1, red_out);
        return;
    }
    p->accel_ew = !red;
    p->out_rank = g.rank;
    for (int d = 0; d < g.rank; d++)
        p->out_ext[d] = ext[d];
    buf_puts(&p->text, "]) {\n    out[");
    for (int d = 0; d < g.rank; d++)
        buf_printf(&p->text, "%s%s", d ? ", " : "", axis[d]);
    buf_puts(&p->text, "] = ");
    if (red) {
        buf_puts(&p->text, sum                  ? "sum("
                           : rg_chance(rng, 50) ? "max("
                                                : "min(");
        /* With ranges: the expression may leave an axis out. */
        for (int d = g.rank; d < g.ndims; d++)
            buf_printf(&p->text, "%s%s in 0..%s", d > g.rank ? ", " : "",
                       raxis[d - g.rank], size[d]);
        buf_puts(&p->text, ") ");
    }
    {
        size_t body = p->text.len;
        if (sum)
            sum_body(&g);
        else if (!red && rg_chance(rng, 15))
            quotient(&g, p);
        else
            expr(&g, 0);
        p->accel_red = red && (!sum || !strstr(p->text.s + body, " * "));
    }
    p->red_rank = g.ndims - g.rank;
    for (int d = g.rank; d < g.ndims && red; d++)
        p->red_ext[d - g.rank] = ext[d];
    buf_puts(&p->text, "\n}\n");
}

/* Levels (and lanes) dealing the axes: ent[a] outermost first, the
 * positions they take out of each axis in per[a], those of the levels
 * alone in lv[a]; W along axis wlast when w. */
static int deal(RgRng *rng, int nd, const int64_t *ext, int nlevels,
                const char *const *name, const int *fan, int w, int wlast,
                const char *ent[][16], int *nent, int64_t *per,
                int64_t *lv)
{
    int any = 0;

    for (int a = 0; a < nd; a++) {
        nent[a] = 0;
        per[a] = 1;
        lv[a] = 1;
    }
    for (int l = 0; l < nlevels && l < 14; l++) {
        int a = rg_below(rng, nd);
        if (rg_chance(rng, 30) || (ext[a] / per[a]) % fan[l])
            continue;
        per[a] *= fan[l];
        lv[a] *= fan[l];
        ent[a][nent[a]++] = name[l];
        any = 1;
    }
    /* Pairs along the last axis in a long word; lanes along any. */
    if (w && rg_chance(rng, 40) && (ext[wlast] / per[wlast]) % 2 == 0) {
        per[wlast] *= 2;
        ent[wlast][nent[wlast]++] = "W";
    }
    if (rg_chance(rng, 20)) {
        int a = rg_below(rng, nd);
        if ((ext[a] / per[a]) % 4 == 0) {
            per[a] *= 4;
            ent[a][nent[a]++] = "S";
        }
    }
    return any;
}

static void compact(TlBuf *src, const char *tensor, int nd,
                    const char *const *names, const char *ent[][16],
                    const int *nent)
{
    int n = 0;

    buf_printf(src, "    layout %s: [", tensor);
    for (int a = 0; a < nd; a++)
        for (int e = 0; e < nent[a]; e++)
            buf_printf(src, "%s%s@%s", n++ ? ", " : "", names[a],
                       ent[a][e]);
    buf_puts(src, "]\n");
}

/* What one operand takes in the layout route (cg_red_lay.c), in long
 * words a PE, or more: the output positions a PE holds, padded to 4,
 * times the reduction positions it holds (lanes are addresses there);
 * the partial results gathered at the PEs that keep them, 4 long words
 * an output at most. */
static int64_t route_span(int nout, int nd, const int64_t *ext,
                          const int64_t *lv)
{
    int64_t o = 1, r = 1, q = 1;

    for (int a = 0; a < nd; a++) {
        if (a < nout) {
            o *= ext[a] / lv[a];
        } else {
            r *= ext[a] / lv[a];
            q *= lv[a];
        }
    }
    return (o + 3) / 4 * 4 * r > 4 * o * q ? (o + 3) / 4 * 4 * r
                                             : 4 * o * q;
}

void rg_accel_schedule(RgRng *rng, const RgProgram *p, int nlevels,
                       const char *const *name, const int *fan,
                       int64_t lm, TlBuf *src)
{
    static const char *const dnames[] = {"i", "j", "l", "r", "q"};
    const char *ent[TL_MAX_RANK][16], *ient[TL_MAX_RANK][16];
    const char *names[TL_MAX_RANK];
    int nent[TL_MAX_RANK], inent[TL_MAX_RANK];
    int64_t ext[TL_MAX_RANK], per[TL_MAX_RANK], lv[TL_MAX_RANK];
    int64_t iper[TL_MAX_RANK], ilv[TL_MAX_RANK], span = 1;
    int nout = p->out_rank, nd = nout, red = p->accel_red, kind;
    int in_layout;

    if ((!p->accel_ew && !red) || !rg_chance(rng, 50))
        return;
    for (int a = 0; a < nout; a++) {
        ext[a] = p->out_ext[a];
        names[a] = dnames[a];
    }
    for (int a = 0; red && a < p->red_rank; a++) {
        ext[nd] = p->red_ext[a];
        names[nd++] = dnames[3 + a];
    }
    /* A `layout in0` of its own (converted into the computing layout)
     * now and then: in0 reads every axis at each iteration's index in
     * the elementwise kernels; the layout route computes one element a
     * long word, so nothing then has a W. */
    in_layout = rg_chance(rng, 25);
    if (!deal(rng, nd, ext, nlevels, name, fan, !red && !in_layout,
              nout - 1, ent, nent, per, lv))
        return;
    /* 0: distributes; 1: a layout of out; 2: (reductions) of in0. */
    kind = rg_chance(rng, 60) ? 0 : red && rg_chance(rng, 50) ? 2 : 1;
    if (kind == 2 && !strstr(p->text.s, "in0["))
        kind = 1;
    if (red && kind == 1)
        for (int a = nout; a < nd; a++) {
            nent[a] = 0;
            lv[a] = 1;
        }
    {
        int n = 0;
        for (int a = 0; a < (kind == 1 ? nout : nd); a++)
            n += nent[a];
        if (!n)
            return;
    }
    if (kind == 2 || (red && kind == 1) || !strstr(p->text.s, "in0["))
        in_layout = 0;
    if (red || in_layout) {
        span = route_span(nout, red ? nd : nout, ext, lv);
        if (3 * span > lm)
            return;
    } else {
        /* Lanes are addresses too (4 apart). */
        for (int a = 0; a < nout; a++)
            span *= ext[a] / per[a] *
                    (nent[a] && !strcmp(ent[a][nent[a] - 1], "S") ? 4 : 1);
        if (span > lm)
            return;
    }
    if (in_layout) {
        /* in0's own layout: any levels, no W. */
        deal(rng, nout, ext, nlevels, name, fan, 0, 0, ient, inent, iper,
             ilv);
        int n = 0;
        for (int a = 0; a < nout; a++)
            n += inent[a];
        if (!n || route_span(nout, nout, ext, ilv) > lm / 2)
            in_layout = 0;
    }
    buf_puts(src, "schedule k for accel {\n");
    if (kind == 0) {
        buf_puts(src, "    out");
        for (int a = 0; a < nd; a++) {
            if (!nent[a])
                continue;
            buf_printf(src, ".distribute(%s, [", names[a]);
            for (int e = 0; e < nent[a]; e++)
                buf_printf(src, "%s%s", e ? ", " : "", ent[a][e]);
            buf_puts(src, "])");
        }
        buf_putc(src, '\n');
    } else {
        compact(src, kind == 2 ? "in0" : "out", kind == 2 ? nd : nout,
                names, ent, nent);
    }
    if (in_layout)
        compact(src, "in0", nout, names, ient, inent);
    buf_puts(src, "}\n");
}
