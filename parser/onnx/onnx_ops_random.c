/*
 * onnx_ops_random.c - the ONNX ops that draw random values: Bernoulli,
 * RandomUniform(Like), RandomNormal(Like), Multinomial and Dropout in
 * training mode.  Each element's value is the kernel builtin
 * uniform(seed, k) or normal(seed, k) (SPEC 7.5) of the node's seed and
 * the element's row-major position k, so a model gives the same values
 * on every run, target and schedule.  ONNX leaves the generator to the
 * runtime: these values are not those of the suite's expected outputs
 * (numpy's global generator), which no runtime reproduces; the
 * conformance runner checks them for shape, dtype and value domain.
 *
 * The seed: the node's `seed` attribute (a float for all but Dropout:
 * an integral one is that integer, another its f32 bits), else one
 * derived from the node's first output name (FNV-1a, 32 bits), so that
 * two nodes without seeds draw different values, and editing other
 * nodes changes none of a node's values.  The importer writes it into
 * the source with a comment saying which.
 */
#include "parser/onnx/onnx_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The node's seed, and whether the model gave it. */
static int64_t node_seed(OxModel *m, int *given)
{
    const Onnx__AttributeProto *a = ox_attr(m, "seed");
    const char *s = m->node->output[0];
    uint32_t h = 2166136261u;

    *given = 1;
    if (a && a->has_i)
        return a->i;
    if (a && a->has_f) {
        float f = a->f;
        uint32_t bits;
        if (f == floorf(f) && fabsf(f) < 9.2e18f)
            return (int64_t)f;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    *given = 0;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The comment line of a random node: its op and name, and its seed. */
static int64_t random_comment(OxModel *m)
{
    int given;
    int64_t seed = node_seed(m, &given);

    ox_comment(m);
    buf_printf(&m->body, "    # seed %lld: %s\n", (long long)seed,
               given ? "the node's" : "none given, one from its name");
    return seed;
}

/* "uniform(SEED, K)" or normal, K the row-major position of index
 * (i0, ..., i{rank-1}) in dims, in Horner form so that every size
 * appears alone (symbolic sizes stay variables, onnx_sym.c); i64 where
 * the positions pass i32. */
static void draw(TlBuf *b, const char *fn, int64_t seed, int rank,
                 const int64_t *dims)
{
    int64_t n = 1;

    for (int i = 0; i < rank; i++)
        n *= dims[i];
    buf_printf(b, "%s(", fn);
    ox_int_lit(b, seed);
    buf_puts(b, ", ");
    if (rank == 0)
        buf_puts(b, "0");
    for (int i = 2; i < rank; i++)
        buf_putc(b, '(');
    for (int i = 0; i < rank; i++) {
        if (i == 0)
            buf_printf(b, n > INT32_MAX ? "i64(i0)" : "i0");
        else
            buf_printf(b, " * %lld + i%d", (long long)dims[i], i);
        if (i > 0 && i < rank - 1)
            buf_putc(b, ')');
    }
    buf_putc(b, ')');
}

/* An attribute's f32 value as the shortest literal that is that f32
 * (0.2, not the f64 0.20000000298023224). */
static void f32_lit(TlBuf *b, float x)
{
    char s[64];

    if (!isfinite(x)) {
        ox_float_lit(b, x);
        return;
    }
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, (double)x);
        if (strtof(s, NULL) == x)
            break;
    }
    if (!strpbrk(s, ".eE"))
        strcat(s, ".0");
    buf_printf(b, s[0] == '-' ? "(%s)" : "%s", s);
}

/* The output dtype: the `dtype` attribute, else dflt; it must be a
 * float dtype (f16, f32, f64; bf16 too).  DT_NONE after a message. */
static TlDType float_dtype(OxModel *m, TlDType dflt)
{
    const Onnx__AttributeProto *a = ox_attr(m, "dtype");
    TlDType dt = a && a->has_i ? ox_dtype((int32_t)a->i) : dflt;

    if (dt == DT_NONE || !dt_is_float(dt)) {
        ox_unsupported(m, "the output must be of a float dtype");
        return DT_NONE;
    }
    return dt;
}

/* The shape of RandomUniform/RandomNormal (the `shape` attribute) or
 * of the Like ops' input; its rank, or -1 after a message. */
static int out_shape(OxModel *m, int like, int64_t *dims, TlDType *dt)
{
    int rank;

    if (like) {
        OxValue *x = ox_need_in(m, 0);
        if (!x)
            return -1;
        memcpy(dims, x->dims, sizeof *dims * (size_t)x->rank);
        *dt = x->dt;
        return x->rank;
    }
    *dt = DT_F32;
    rank = ox_attr_ints(m, "shape", dims, TL_MAX_RANK);
    if (rank == -2)
        return -1;
    if (rank < 0 || !ox_dims_ok(rank, dims)) {
        ox_unsupported(m, "needs a 'shape' of non-negative sizes");
        return -1;
    }
    return rank;
}

/* RandomUniform(Like): low + (high - low) * uniform; RandomNormal(Like):
 * mean + scale * normal.  Computed in f32 (f64 for an f64 output), then
 * rounded to the output's dtype: an f16 value close to `high` may round
 * to it. */
static int op_random(OxModel *m)
{
    const char *op = m->node->op_type;
    int like = strstr(op, "Like") != NULL;
    int normal = !strncmp(op, "RandomNormal", 12);
    float lo = (float)ox_attr_f(m, normal ? "mean" : "low", 0.0);
    float hi = (float)ox_attr_f(m, normal ? "scale" : "high", 1.0);
    float span = normal ? hi : hi - lo;
    int64_t dims[TL_MAX_RANK], seed;
    TlDType dt;
    int rank = out_shape(m, like, dims, &dt);
    int half;
    OxValue *y;
    TlBuf *b = &m->body;

    if (rank < 0 || (dt = float_dtype(m, dt)) == DT_NONE)
        return -1;
    if (!(y = ox_out(m, 0, dt, rank, dims)))
        return -1;
    seed = random_comment(m);
    half = dt == DT_F16 || dt == DT_BF16;
    ox_lhs(b, y->id, rank);
    if (half)
        buf_printf(b, "%s(", dt_name(dt));
    if (lo != 0.0f) {
        f32_lit(b, lo);
        buf_puts(b, " + ");
    }
    if (span != 1.0f) {
        f32_lit(b, span);
        buf_puts(b, " * ");
    }
    if (dt == DT_F64)
        buf_puts(b, "f64(");
    draw(b, normal ? "normal" : "uniform", seed, rank, dims);
    buf_puts(b, dt == DT_F64 ? ")" : "");
    buf_puts(b, half ? ")\n" : "\n");
    return 0;
}

/* Bernoulli: 1 where uniform < p (numpy's reference: uniform(0, 1) <
 * x), in the `dtype` attribute's dtype or the input's. */
static int op_bernoulli(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    const Onnx__AttributeProto *a = ox_attr(m, "dtype");
    OxIdx idx[TL_MAX_RANK];
    TlBuf *b = &m->body;
    TlDType dt;
    int64_t seed;

    if (!x)
        return -1;
    dt = a && a->has_i ? ox_dtype((int32_t)a->i) : x->dt;
    if (!dt_is_float(x->dt) || dt == DT_NONE) {
        ox_unsupported(m, "needs float probabilities and a numeric or "
                       "bool output");
        return -1;
    }
    if (!(y = ox_out(m, 0, dt, x->rank, x->dims)))
        return -1;
    seed = random_comment(m);
    for (int i = 0; i < x->rank; i++)
        snprintf(idx[i], sizeof idx[0], "i%d", i);
    ox_lhs(b, y->id, x->rank);
    if (dt != DT_BOOL)
        buf_puts(b, "select(");
    draw(b, "uniform", seed, x->rank, x->dims);
    buf_puts(b, " < ");
    ox_read(b, x, idx);
    if (dt != DT_BOOL)
        buf_printf(b, ", %s(1), %s(0))", dt_name(dt), dt_name(dt));
    buf_putc(b, '\n');
    return 0;
}

/* Multinomial: sample_size draws per row of unnormalised
 * log-probabilities x [B, C]: the first class whose running sum of
 * exp(x - max) passes uniform * the whole sum (the count of classes at
 * or below it; a class of probability 0 is never drawn). */
static int op_multinomial(OxModel *m)
{
    OxValue *x = ox_need_in(m, 0), *y;
    const Onnx__AttributeProto *a = ox_attr(m, "dtype");
    int64_t s = ox_attr_i(m, "sample_size", 1), dims[2], seed, c;
    TlDType dt = a && a->has_i ? ox_dtype((int32_t)a->i) : DT_I32;
    TlBuf *b = &m->body;
    char *nmax, *nexp, *ncdf;
    OxValue *vmax, *vexp, *vcdf;

    if (!x || x->rank != 2 || !dt_is_float(x->dt) || x->dims[1] < 1 ||
        (dt != DT_I32 && dt != DT_I64) || s < 1 || s > OX_MAX_DIM) {
        ox_unsupported(m, "needs float log-probabilities [batch, classes], "
                       "a positive sample_size and an i32 or i64 output");
        return -1;
    }
    c = x->dims[1];
    dims[0] = x->dims[0];
    dims[1] = s;
    if (!ox_dims_ok(2, dims)) {
        ox_unsupported(m, "the output is too large");
        return -1;
    }
    if (!(y = ox_out(m, 0, dt, 2, dims)))
        return -1;
    nmax = ox_fresh(m, y->name, "@max");
    vmax = ox_add(m, nmax, OX_NODE, x->dt, 1, x->dims);
    nexp = ox_fresh(m, y->name, "@exp");
    vexp = ox_add(m, nexp, OX_NODE, x->dt, 2, x->dims);
    ncdf = ox_fresh(m, y->name, "@cdf");
    vcdf = ox_add(m, ncdf, OX_NODE, x->dt, 2, x->dims);
    free(nmax);
    free(nexp);
    free(ncdf);
    seed = random_comment(m);
    x->used = 1;
    buf_printf(b, "    %s[i0] = max(r0 in 0..%lld) %s[i0, r0]\n", vmax->id,
               (long long)c, x->id);
    buf_printf(b, "    %s[i0, i1] = exp(%s[i0, i1] - %s[i0])\n", vexp->id,
               x->id, vmax->id);
    buf_printf(b, "    %s[i0, i1] = sum(r0 in 0..%lld) select(r0 <= i1, "
               "%s[i0, r0], %s(0))\n", vcdf->id, (long long)c, vexp->id,
               dt_name(x->dt));
    ox_lhs(b, y->id, 2);
    buf_printf(b, "%s(min(sum(r0 in 0..%lld) select(%s[i0, r0] <= ",
               dt_name(dt), (long long)c, vcdf->id);
    draw(b, "uniform", seed, 2, dims);
    buf_printf(b, " * %s[i0, %lld], 1, 0), %lld))\n", vcdf->id,
               (long long)(c - 1), (long long)(c - 1));
    return 0;
}

/* A ratio, or a scale from it: an f32 value (a ratio attribute, an f32
 * ratio input) as its shortest f32 literal. */
static void ratio_lit(TlBuf *b, double x)
{
    if ((double)(float)x == x)
        f32_lit(b, (float)x);
    else
        ox_float_lit(b, x);
}

/* 1 / (1 - r), rounded to f32 when r is an f32 value. */
static double scale_of(double r)
{
    double s = 1.0 / (1.0 - r);

    return (double)(float)r == r ? (double)(float)s : s;
}

int ox_dropout_training(OxModel *m, OxValue *x, OxValue *ratio, double r,
                        OxValue *train)
{
    OxIdx idx[TL_MAX_RANK];
    OxValue *y, *mask, *scale = NULL;
    TlBuf *b = &m->body;
    int64_t seed;
    int i;

    if (!dt_is_float(x->dt) || (ratio && (ratio->rank != 0 ||
                                          !dt_is_float(ratio->dt))) ||
        (train && (train->rank != 0 || train->dt != DT_BOOL))) {
        ox_unsupported(m, "needs float data, a scalar float ratio and a "
                       "scalar bool training_mode");
        return -1;
    }
    if (!(y = ox_out(m, 0, x->dt, x->rank, x->dims)))
        return -1;
    if (m->node->n_output > 1 && *m->node->output[1]) {
        if (!(mask = ox_out(m, 1, DT_BOOL, x->rank, x->dims)))
            return -1;
    } else {
        char *nm = ox_fresh(m, y->name, "@mask");
        mask = ox_add(m, nm, OX_NODE, DT_BOOL, x->rank, x->dims);
        free(nm);
    }
    seed = random_comment(m);
    for (i = 0; i < x->rank; i++)
        snprintf(idx[i], sizeof idx[0], "i%d", i);
    /* Kept where uniform >= ratio (numpy's reference), all of them
     * outside training. */
    ox_lhs(b, mask->id, x->rank);
    if (train) {
        buf_puts(b, "!");
        ox_read(b, train, idx);
        buf_puts(b, " || ");
    }
    draw(b, "uniform", seed, x->rank, x->dims);
    buf_puts(b, " >= ");
    if (ratio)
        ox_read(b, ratio, idx);
    else
        ratio_lit(b, r);
    buf_putc(b, '\n');
    /* The kept ones scaled by 1 / (1 - ratio) (by 1 outside training),
     * in the data's dtype: a rank-0 stage when it is known only when
     * the model runs. */
    if (ratio || train) {
        char *nm = ox_fresh(m, y->name, "@scale");
        scale = ox_add(m, nm, OX_NODE, ratio ? ratio->dt : DT_F32, 0, NULL);
        free(nm);
        ox_lhs(b, scale->id, 0);
        if (train) {
            buf_puts(b, "select(");
            ox_read(b, train, idx);
            buf_puts(b, ", ");
        }
        if (ratio) {
            buf_puts(b, "1.0 / (1.0 - ");
            ox_read(b, ratio, idx);
            buf_putc(b, ')');
        } else {
            ratio_lit(b, scale_of(r));
        }
        buf_puts(b, train ? ", 1.0)\n" : "\n");
    }
    ox_lhs(b, y->id, x->rank);
    buf_puts(b, "select(");
    ox_read(b, mask, idx);
    buf_puts(b, ", ");
    ox_read(b, x, idx);
    buf_puts(b, " * ");
    if (!scale) {
        ratio_lit(b, scale_of(r));
    } else if (scale->dt != x->dt) {
        buf_printf(b, "%s(", dt_name(x->dt));
        ox_read(b, scale, idx);
        buf_putc(b, ')');
    } else {
        ox_read(b, scale, idx);
    }
    buf_puts(b, ", 0.0)\n");
    return 0;
}

static const OxOp ops[] = {
    {"RandomUniform", op_random},
    {"RandomUniformLike", op_random},
    {"RandomNormal", op_random},
    {"RandomNormalLike", op_random},
    {"Bernoulli", op_bernoulli},
    {"Multinomial", op_multinomial},
};

OxOpFn ox_random_op(const char *name)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].name, name))
            return ops[i].fn;
    return NULL;
}
