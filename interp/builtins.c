/*
 * builtins.c - the top-level builtins of SPEC 11.2: rand, zeros, ones,
 * full, arange (tensors from nothing), load and save (tensor files),
 * allclose (with the report an assertion prints) and shape.
 *
 * The checker has seen the arguments' kinds (a dtype, a list of sizes,
 * numbers, strings); what is checked here depends on values: negative
 * or huge sizes, a zero step, files and their contents.  File names are
 * relative to the current directory, as in Python and numpy.
 */
#include "interp/script_int.h"
#include "lang/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * Arguments
 * ==================================================================== */

/* A call's arguments: positional ones in order, and the named ones the
 * checker let through (seed, rtol, atol). */
typedef struct Args {
    TlExpr *pos[4];
    int npos;
    TlExpr *seed, *rtol, *atol;
} Args;

static void split_args(TlExpr *e, Args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        if (x->kind != EX_NAMED) {
            if (a->npos < 4)
                a->pos[a->npos++] = x;
        } else if (!strcmp(x->str, "seed")) {
            a->seed = x->a;
        } else if (!strcmp(x->str, "rtol")) {
            a->rtol = x->a;
        } else if (!strcmp(x->str, "atol")) {
            a->atol = x->a;
        }
    }
}

static int eval_dtype(TlInterp *ip, TlExpr *e, TlDType *dt)
{
    TlValue v;

    if (itp_eval(ip, e, &v) < 0)
        return -1;
    TL_ASSERT(v.kind == VAL_DTYPE);
    *dt = v.dtype;
    return 0;
}

/* A number argument.  A literal is taken at its own value rather than
 * the f32 a lone float literal has: full(f64, [2], 0.1) holds the f64
 * nearest 0.1, and arange's length agrees with the checker's, which
 * computed it from the literals. */
static int number_arg(TlInterp *ip, TlExpr *e, TlValue *v)
{
    const TlExpr *lit = e;
    int neg = 0;

    if (lit->kind == EX_CAST && lit->ival == 1)
        lit = lit->a;
    if (lit->kind == EX_UNARY && lit->op == OP_NEG) {
        neg = 1;
        lit = lit->a;
    }
    if (lit->kind == EX_FLOAT) {
        *v = itp_num_f64(DT_F64, neg ? -lit->fval : lit->fval);
        return 0;
    }
    if (lit->kind == EX_INT) {
        *v = itp_num_i64(DT_I64, neg ? (int64_t)(0 - (uint64_t)lit->ival)
                                     : lit->ival);
        return 0;
    }
    if (itp_eval(ip, e, v) < 0)
        return -1;
    TL_ASSERT(v->kind == VAL_NUM);
    return 0;
}

static void shape_text(TlBuf *b, int rank, const int64_t *shape)
{
    buf_putc(b, '[');
    for (int i = 0; i < rank; i++)
        buf_printf(b, "%s%lld", i ? ", " : "", (long long)shape[i]);
    buf_putc(b, ']');
}

/* A new zero-filled tensor of dtype dt and the shape the list
 * expression `dims` gives; NULL after reporting at e. */
static TlTensor *new_tensor(TlInterp *ip, TlExpr *e, TlDType dt,
                            TlExpr *dims)
{
    int64_t shape[TL_MAX_RANK + 1];
    int rank = dims->args.n;
    TlTensor *t;
    char err[200];
    TlBuf b;

    TL_ASSERT(dims->kind == EX_LIST);
    for (int i = 0; i < rank; i++) {
        int64_t n;
        if (itp_eval_int(ip, dims->args.v[i], &n) < 0)
            return NULL;
        if (n < 0) {
            diag_error(ip->s, dims->args.v[i]->loc, DIAG_NEGATIVE_SIZE,
                       (long long)n);
            return NULL;
        }
        if (i < TL_MAX_RANK)
            shape[i] = n;
    }
    buf_init(&b);
    if (rank > TL_MAX_RANK) {
        buf_printf(&b, "[%d axes]", rank);
        diag_error(ip->s, e->loc, DIAG_TENSOR_SIZE, b.s,
                   "tensors have at most 8 axes");
        buf_free(&b);
        return NULL;
    }
    t = tl_tensor_new(dt, rank, shape, err, sizeof err);
    if (!t) {
        shape_text(&b, rank, shape);
        diag_error(ip->s, e->loc, DIAG_TENSOR_SIZE, b.s, err);
    }
    buf_free(&b);
    return t;
}

static TlValue tensor_value(TlTensor *t)
{
    TlValue v;

    memset(&v, 0, sizeof v);
    v.kind = VAL_TENSOR;
    v.t = t;
    return v;
}

/* ====================================================================
 * rand, zeros, ones, full, arange
 * ==================================================================== */

/* rand's bits are those of the kernel builtins uniform and normal
 * (lang/rng.h): element k takes tl_rng_bits(seed, k). */
#define TL_RNG_AS_C(...) __VA_ARGS__
static TL_RNG_BITS_DEF(TL_RNG_AS_C)

/* Significant bits of a float dtype, so that rand's values are exact. */
static int float_bits(TlDType dt)
{
    switch (dt) {
    case DT_F16: return 11;
    case DT_BF16: return 8;
    case DT_F32: return 24;
    default: return 53;
    }
}

void itp_rand_fill(TlTensor *t, int64_t seed)
{
    int64_t n = tl_tensor_numel(t);
    int size = dt_size(t->dtype), p = float_bits(t->dtype);
    unsigned char *d = t->data;

    TL_ASSERT(tl_tensor_is_contiguous(t));
    for (int64_t k = 0; k < n; k++) {
        uint64_t z = tl_rng_bits(seed, k);
        void *at = d + k * size;
        if (dt_is_float(t->dtype))
            tl_dt_store_f64(t->dtype, at, ldexp((double)(z >> (64 - p)), -p));
        else if (t->dtype == DT_BOOL)
            tl_dt_store_i64(t->dtype, at, (int64_t)(z >> 63));
        else
            tl_dt_store_i64(t->dtype, at, (int64_t)(z % 100));
    }
}

/* Every element of t (packed) set to v converted to t's dtype. */
static void fill(TlTensor *t, const TlValue *v)
{
    TlValue x = itp_num_cast(v, t->dtype);
    unsigned char one[8];
    int64_t n = tl_tensor_numel(t);
    int size = dt_size(t->dtype);

    if (dt_is_float(t->dtype))
        tl_dt_store_f64(t->dtype, one, x.f);
    else
        tl_dt_store_i64(t->dtype, one, x.i);
    for (int64_t k = 0; k < n; k++)
        memcpy((unsigned char *)t->data + k * size, one, (size_t)size);
}

static int bi_make(TlInterp *ip, TlExpr *e, const TlBuiltin *b,
                   const Args *a, TlValue *out)
{
    TlDType dt;
    TlTensor *t;
    TlValue v;

    if (eval_dtype(ip, a->pos[0], &dt) < 0)
        return -1;
    if (!(t = new_tensor(ip, e, dt, a->pos[1])))
        return -1;
    switch (b->id) {
    case BI_RAND: {
        int64_t seed = 0;
        TlExpr *s = a->seed ? a->seed : a->npos > 2 ? a->pos[2] : NULL;
        if (s && itp_eval_int(ip, s, &seed) < 0) {
            tl_tensor_unref(t);
            return -1;
        }
        itp_rand_fill(t, seed);
        break;
    }
    case BI_ZEROS:
        break;
    case BI_ONES:
        v = itp_num_i64(DT_I64, 1);
        fill(t, &v);
        break;
    default:
        if (number_arg(ip, a->pos[2], &v) < 0) {
            tl_tensor_unref(t);
            return -1;
        }
        fill(t, &v);
        break;
    }
    *out = itp_value_of_tensor(t);
    return 0;
}

static int bi_arange(TlInterp *ip, TlExpr *e, const Args *a, TlValue *out)
{
    TlDType dt;
    double v[3] = {0, 0, 1};
    int64_t iv[3] = {0, 0, 1};
    int all_int = 1, k0 = a->npos == 2 ? 1 : 0;
    double n;
    int64_t shape[1];
    TlTensor *t;
    char err[200];
    TlBuf b;

    if (eval_dtype(ip, a->pos[0], &dt) < 0)
        return -1;
    for (int i = 1; i < a->npos; i++) {
        TlValue x;
        if (number_arg(ip, a->pos[i], &x) < 0)
            return -1;
        v[k0 + i - 1] = itp_num_get_f64(&x);
        iv[k0 + i - 1] = dt_is_float(x.dtype) ? 0 : x.i;
        all_int &= !dt_is_float(x.dtype);
    }
    if (v[2] == 0) {
        diag_error(ip->s, a->pos[3]->loc, DIAG_BUILTIN_ARG, 4, "arange",
                   "a step other than 0");
        return -1;
    }
    n = ceil((v[1] - v[0]) / v[2]);
    if (all_int) {
        /* Exactly, where a double would round a long range. */
        int64_t d = iv[1] - iv[0], s = iv[2];
        if ((d > 0) == (s > 0) && d != 0)   /* ceil(d / s), no overflow */
            n = (double)((d + (s > 0 ? -1 : 1)) / s + 1);
        else
            n = 0;
    }
    if (!(n > 0))
        n = 0;
    if (n > 9e18) {
        buf_init(&b);
        buf_printf(&b, "[%.0f]", n);
        diag_error(ip->s, e->loc, DIAG_TENSOR_SIZE, b.s,
                   "the size is too large");
        buf_free(&b);
        return -1;
    }
    shape[0] = (int64_t)n;
    t = tl_tensor_new(dt, 1, shape, err, sizeof err);
    if (!t) {
        buf_init(&b);
        shape_text(&b, 1, shape);
        diag_error(ip->s, e->loc, DIAG_TENSOR_SIZE, b.s, err);
        buf_free(&b);
        return -1;
    }
    for (int64_t k = 0; k < shape[0]; k++) {
        void *at = (unsigned char *)t->data + k * dt_size(dt);
        if (all_int)
            tl_dt_store_i64(dt, at, (int64_t)((uint64_t)iv[0] +
                                              (uint64_t)k * (uint64_t)iv[2]));
        else
            tl_dt_store_f64(dt, at, v[0] + (double)k * v[2]);
    }
    *out = itp_value_of_tensor(t);
    return 0;
}

/* ====================================================================
 * load and save
 * ==================================================================== */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int eval_string(TlInterp *ip, TlExpr *e, char **s)
{
    TlValue v;

    if (itp_eval(ip, e, &v) < 0)
        return -1;
    TL_ASSERT(v.kind == VAL_STR);
    *s = v.s;               /* taken over from v */
    return 0;
}

/* A relative path of load or save is taken from the folder of the file
 * the call is written in (SPEC 11.2), so `tdsl dir/script.tdsl` finds
 * dir/x.npy from anywhere; REPL inputs have no folder and use the
 * current one.  Replaces *path (malloc'd) when it changes. */
static int script_relative(TlInterp *ip, TlLoc loc, char **path)
{
    const char *src, *slash;
    size_t nd, np;
    char *p;

    if ((*path)[0] == '/' || (*path)[0] == '\0' || loc.file < 0 ||
        loc.file >= ip->s->nsrc)
        return 0;
    src = ip->s->src[loc.file].path;
    slash = src ? strrchr(src, '/') : NULL;
    if (!slash)
        return 0;
    nd = (size_t)(slash - src);
    np = strlen(*path);
    p = malloc(nd + 1 + np + 1);
    if (!p)
        return -1;
    memcpy(p, src, nd);
    p[nd] = '/';
    memcpy(p + nd + 1, *path, np + 1);
    free(*path);
    *path = p;
    return 0;
}

static int bi_load(TlInterp *ip, TlExpr *e, const Args *a, TlValue *out)
{
    char *path = NULL, *key = NULL;
    char err[400];
    TlTensor *t = NULL;
    int r = -1;

    if (eval_string(ip, a->pos[0], &path) < 0 ||
        (a->npos > 1 && eval_string(ip, a->pos[1], &key) < 0) ||
        script_relative(ip, e->loc, &path) < 0)
        goto done;
    if (ends_with(path, ".npy") || ends_with(path, ".pb")) {
        if (key) {
            diag_error(ip->s, a->pos[1]->loc, DIAG_NPY_KEY, path, key);
            goto done;
        }
        t = ends_with(path, ".pb") ? tl_onnx_tensor_read(path, err, sizeof err)
                                   : tl_npy_read(path, err, sizeof err);
    } else if (ends_with(path, ".safetensors")) {
        t = tl_safetensors_read(path, key, err, sizeof err);
    } else {
        diag_error(ip->s, a->pos[0]->loc, DIAG_TENSOR_FILE_KIND, path);
        goto done;
    }
    if (!t) {
        diag_error(ip->s, e->loc, DIAG_LOAD_FAILED, err);
        goto done;
    }
    *out = itp_value_of_tensor(t);
    r = 0;
done:
    free(path);
    free(key);
    return r;
}

static int bi_save(TlInterp *ip, TlExpr *e, const Args *a, TlValue *out)
{
    TlValue v;
    char *path = NULL;
    char err[400];
    TlTensor *t = NULL;
    int r = -1, ok;

    if (itp_eval(ip, a->pos[0], &v) < 0)
        return -1;
    t = itp_value_tensor(&v);
    itp_value_free(&v);
    TL_ASSERT(t);
    if (eval_string(ip, a->pos[1], &path) < 0 ||
        script_relative(ip, e->loc, &path) < 0)
        goto done;
    if (ends_with(path, ".npy")) {
        ok = tl_npy_write(path, t, err, sizeof err) == 0;
    } else if (ends_with(path, ".pb")) {
        ok = tl_onnx_tensor_write(path, t, err, sizeof err) == 0;
    } else if (ends_with(path, ".safetensors")) {
        /* The entry is named after the variable saved, so that
         * load(path, "W") finds what save(W, path) wrote. */
        const TlExpr *x = a->pos[0];
        TlNamedTensor nt;
        nt.name = x->kind == EX_NAME && x->str ? x->str : "tensor";
        nt.t = t;
        ok = tl_safetensors_write(path, &nt, 1, NULL, 0, err,
                                  sizeof err) == 0;
    } else {
        diag_error(ip->s, a->pos[1]->loc, DIAG_TENSOR_FILE_KIND, path);
        goto done;
    }
    if (!ok) {
        diag_error(ip->s, e->loc, DIAG_SAVE_FAILED, err);
        goto done;
    }
    memset(out, 0, sizeof *out);
    out->kind = VAL_NONE;
    r = 0;
done:
    tl_tensor_unref(t);
    free(path);
    return r;
}

/* ====================================================================
 * allclose
 * ==================================================================== */

int itp_allclose(const TlTensor *a, const TlTensor *b, double rtol,
                 double atol, TlCloseReport *r)
{
    TlTensor *ca, *cb;
    int64_t n;
    int sa, sb, found_nan = 0, bad = 0;
    double worst = -1;

    memset(r, 0, sizeof *r);
    r->worst = -1;
    if (!tl_tensor_equal_shape(a, b)) {
        r->shape_differs = 1;
        return 0;
    }
    ca = tl_tensor_contiguous((TlTensor *)a);
    cb = tl_tensor_contiguous((TlTensor *)b);
    n = tl_tensor_numel(ca);
    sa = dt_size(ca->dtype);
    sb = dt_size(cb->dtype);
    for (int64_t k = 0; k < n && !found_nan; k++) {
        double x = tl_dt_load_f64(ca->dtype, (char *)ca->data + k * sa);
        double y = tl_dt_load_f64(cb->dtype, (char *)cb->data + k * sb);
        double diff = fabs(x - y), tol = atol + rtol * fabs(y), score;
        int ok, take;
        if (isnan(x) || isnan(y)) {
            found_nan = 1;      /* the first NaN is the worst */
            ok = 0;
            score = INFINITY;
        } else if (x == y) {
            ok = 1;             /* equal infinities too */
            score = diff = 0;
        } else {
            ok = diff <= tol;
            score = ok ? diff : diff - tol;
        }
        /* Failing elements compete by how far they exceed their
         * tolerance; while none fails, the largest difference is kept
         * (for a report all the same). */
        if (!ok)
            take = found_nan || !bad || score > worst;
        else
            take = !bad && score > worst;
        if (!take)
            continue;
        bad |= !ok;
        worst = score;
        r->worst = k;
        r->a = x;
        r->b = y;
        r->diff = diff;
        r->tol = tol;
    }
    if (r->worst >= 0) {
        int64_t k = r->worst;
        for (int i = ca->rank - 1; i >= 0; i--) {
            r->index[i] = ca->shape[i] ? k % ca->shape[i] : 0;
            k = ca->shape[i] ? k / ca->shape[i] : 0;
        }
    }
    tl_tensor_unref(ca);
    tl_tensor_unref(cb);
    r->close = !bad;
    return r->close;
}

/* A tolerance or a difference, short: "1.2e-4", "0.25", "3". */
static void short_num(TlBuf *b, double x)
{
    char tmp[40], *e;

    if (x == 0 || isnan(x) || isinf(x) || (fabs(x) >= 1e-2 && fabs(x) < 1e4)) {
        buf_printf(b, "%.3g", x);
        return;
    }
    snprintf(tmp, sizeof tmp, "%.1e", x);
    e = strchr(tmp, 'e');
    buf_putn(b, tmp, (size_t)(e - tmp + 1));
    e++;
    if (*e == '-')
        buf_putc(b, *e);
    if (*e == '-' || *e == '+')
        e++;
    while (*e == '0' && e[1])
        e++;
    buf_puts(b, e);
}

typedef struct Close {
    TlTensor *a, *b;
    double rtol, atol;
} Close;

static int close_args(TlInterp *ip, const Args *g, Close *c)
{
    TlValue v;
    TlExpr *rt = g->rtol ? g->rtol : g->npos > 2 ? g->pos[2] : NULL;
    TlExpr *at = g->atol ? g->atol : g->npos > 3 ? g->pos[3] : NULL;

    memset(c, 0, sizeof *c);
    c->rtol = 1e-5;
    c->atol = 1e-8;
    for (int i = 0; i < 2; i++) {
        if (itp_eval(ip, g->pos[i], &v) < 0)
            return -1;
        (i ? &c->b : &c->a)[0] = itp_value_tensor(&v);
        itp_value_free(&v);
        TL_ASSERT(i ? c->b : c->a);
        /* A loaded str tensor (the checker knew no dtype). */
        if ((i ? c->b : c->a)->dtype == DT_STR) {
            diag_error(ip->s, g->pos[i]->loc, DIAG_STR_OPERAND, "allclose");
            diag_hint(ip->s, "compare strings in a kernel with ==");
            return -1;
        }
    }
    if (rt) {
        if (number_arg(ip, rt, &v) < 0)
            return -1;
        c->rtol = itp_num_get_f64(&v);
    }
    if (at) {
        if (number_arg(ip, at, &v) < 0)
            return -1;
        c->atol = itp_num_get_f64(&v);
    }
    return 0;
}

static void close_free(Close *c)
{
    tl_tensor_unref(c->a);
    tl_tensor_unref(c->b);
}

int itp_assert_allclose(TlInterp *ip, TlExpr *e, TlBuf *out)
{
    Args g;
    Close c;
    TlCloseReport r;

    split_args(e, &g);
    if (close_args(ip, &g, &c) < 0) {
        close_free(&c);
        return -1;
    }
    if (itp_allclose(c.a, c.b, c.rtol, c.atol, &r)) {
        close_free(&c);
        return 0;
    }
    ast_print_expr(out, e);
    buf_puts(out, ": ");
    if (r.shape_differs) {
        buf_puts(out, "the shapes differ: ");
        tl_tensor_print_type(out, c.a);
        buf_puts(out, " vs ");
        tl_tensor_print_type(out, c.b);
    } else {
        if (c.a->rank > 0) {
            buf_puts(out, "worst at ");
            shape_text(out, c.a->rank, r.index);
            buf_puts(out, ": ");
        }
        itp_num_text(out, c.a->dtype, r.a);
        buf_puts(out, " vs ");
        itp_num_text(out, c.b->dtype, r.b);
        if (isnan(r.a) || isnan(r.b)) {
            buf_puts(out, " (nan is close to nothing)");
        } else {
            buf_puts(out, " (|diff| ");
            short_num(out, r.diff);
            buf_puts(out, " > atol + rtol*|b| = ");
            short_num(out, r.tol);
            buf_putc(out, ')');
        }
    }
    close_free(&c);
    return 1;
}

/* ====================================================================
 * Dispatch
 * ==================================================================== */

int itp_builtin_call(TlInterp *ip, TlExpr *e, const TlBuiltin *b,
                     TlValue *out)
{
    Args a;

    split_args(e, &a);
    memset(out, 0, sizeof *out);
    switch (b->id) {
    case BI_RAND:
    case BI_ZEROS:
    case BI_ONES:
    case BI_FULL:
        return bi_make(ip, e, b, &a, out);
    case BI_ARANGE:
        return bi_arange(ip, e, &a, out);
    case BI_LOAD:
        return bi_load(ip, e, &a, out);
    case BI_SAVE:
        return bi_save(ip, e, &a, out);
    case BI_ALLCLOSE: {
        Close c;
        TlCloseReport r;
        int res = close_args(ip, &a, &c);
        if (res == 0)
            *out = itp_num_i64(DT_BOOL,
                               itp_allclose(c.a, c.b, c.rtol, c.atol, &r));
        close_free(&c);
        return res;
    }
    case BI_HASH: {
        TlValue v;
        if (itp_eval(ip, a.pos[0], &v) < 0)
            return -1;
        TL_ASSERT(v.kind == VAL_TENSOR);
        *out = itp_num_i64(DT_I64, (int64_t)tl_tensor_hash(v.t));
        itp_value_free(&v);
        return 0;
    }
    case BI_SHAPE: {
        TlValue v;
        TlTensor *t;
        int64_t rank;
        if (itp_eval(ip, a.pos[0], &v) < 0)
            return -1;
        rank = v.kind == VAL_TENSOR ? v.t->rank : 0;
        t = tl_tensor_new(DT_I64, 1, &rank, NULL, 0);
        TL_ASSERT(t);
        for (int64_t i = 0; i < rank; i++)
            tl_tensor_set_i64(t, &i, v.t->shape[i]);
        itp_value_free(&v);
        *out = tensor_value(t);
        out->is_shape = 1;
        return 0;
    }
    default:
        tl_unreachable();
    }
}
