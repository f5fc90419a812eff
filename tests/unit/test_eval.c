/*
 * test_eval.c - unit tests of the reference interpreter (interp/eval*.c,
 * interp/ffi.c): programs are parsed and checked from source text,
 * their kernels called through itp_call_kernel, and the results
 * compared with values computed here in plain C.  Every call runs in
 * both modes (rows and the per-element reference walk), which must give
 * the same bits and the same error messages.  Exit status 0 on success;
 * each failed check prints its line and what it saw.
 */
#include "interp/interp.h"
#include "parser/parser.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ====================================================================
 * Harness: one program at a time
 * ==================================================================== */

static TlSession *S;
static TlProgram *P;
static FILE *diag;
static char *diag_text;
static size_t diag_len;
static char last_err[4096];     /* what the last failed call reported */

/* Top-level tensors for kernels that read them (name -> tensor). */
static struct {
    const char *name;
    TlTensor *t;
} consts[4];
static int nconsts;

static TlTensor *const_value(void *ctx, const TlLet *let)
{
    (void)ctx;
    for (int i = 0; i < nconsts; i++)
        if (!strcmp(consts[i].name, let->name))
            return consts[i].t;
    return NULL;
}

static void unload(void)
{
    if (!S)
        return;
    tl_session_free(S);
    fclose(diag);
    free(diag_text);
    S = NULL;
    for (int i = 0; i < nconsts; i++)
        tl_tensor_unref(consts[i].t);
    nconsts = 0;
}

/* Parses and checks src as t.tdsl; 0 when it has no errors. */
static int load(int line, const char *src)
{
    unload();
    S = tl_session_new();
    diag = open_memstream(&diag_text, &diag_len);
    S->diag_out = diag;
    P = tl_parse_string(S, "t.tdsl", src, strlen(src));
    if (P->nerrors || tl_check(S, P)) {
        fflush(diag);
        printf("%s:%d: program has errors:\n%s", __FILE__, line, diag_text);
        check_failed();
        return -1;
    }
    return 0;
}

static TlKernelInfo *kernel(const char *name)
{
    for (int i = 0; i < P->items.n; i++) {
        TlKernelInfo *k = tl_kernel_info(P->items.v[i]);
        if (k && !strcmp(k->name, name))
            return k;
    }
    printf("no kernel '%s'\n", name);
    abort();
}

static TlExternInfo *extern_fn(const char *name)
{
    for (int i = 0; i < P->items.n; i++) {
        TlItem *it = P->items.v[i];
        if (it->kind == IT_EXTERN && !strcmp(it->name, name))
            return it->sym;
    }
    printf("no extern '%s'\n", name);
    abort();
}

/* The diagnostics printed since offset `from`. */
static const char *diag_since(size_t from)
{
    fflush(diag);
    return diag_text ? diag_text + from : "";
}

static int same_tensor(const TlTensor *a, const TlTensor *b)
{
    return a->dtype == b->dtype && tl_tensor_equal_shape(a, b) &&
           !memcmp(a->data, b->data,
                   (size_t)(tl_tensor_numel(a) * dt_size(a->dtype)));
}

/* Calls kernel name in both modes; they must agree.  0 with out[] set
 * (rows mode's tensors), or -1 when both failed with the same message
 * (kept in last_err). */
static int call_at(int line, const char *name, TlTensor **in,
                   const TlScalarArg *sc, TlTensor **out)
{
    TlKernelInfo *k = kernel(name);
    TlTensor *o[2][24];
    char msg[2][4096];
    int rc[2];
    TlRuntime rt;
    TlLoc none = {-1, 0, 0, 0, 0};

    if (k->noutputs > 24)
        abort();
    memset(&rt, 0, sizeof rt);
    rt.s = S;
    rt.const_value = const_value;
    for (int m = 0; m < 2; m++) {
        size_t from;
        fflush(diag);
        from = diag_len;
        rt.mode = m ? ITP_SCALAR : ITP_ROWS;
        rc[m] = itp_call_kernel(&rt, k, in, sc, o[m], none);
        snprintf(msg[m], sizeof msg[m], "%s", diag_since(from));
    }
    if (rc[0] != rc[1] || strcmp(msg[0], msg[1])) {
        printf("%s:%d: the modes disagree on '%s':\nrows (%d):\n%s"
               "scalar (%d):\n%s", __FILE__, line, name, rc[0], msg[0],
               rc[1], msg[1]);
        check_failed();
    }
    snprintf(last_err, sizeof last_err, "%s", msg[0]);
    if (rc[0] == 0 && rc[1] == 0) {
        for (int i = 0; i < k->noutputs; i++) {
            if (!same_tensor(o[0][i], o[1][i])) {
                printf("%s:%d: the modes give different values for output "
                       "%d of '%s'\n", __FILE__, line, i, name);
                check_failed();
            }
            tl_tensor_unref(o[1][i]);
            out[i] = o[0][i];
        }
        return 0;
    }
    for (int m = 0; m < 2; m++)
        if (rc[m] == 0)
            for (int i = 0; i < k->noutputs; i++)
                tl_tensor_unref(o[m][i]);
    if (rc[0] == 0 || rc[1] == 0)
        check_failed();
    return -1;
}

#define CALL(name, in, sc, out) call_at(__LINE__, name, in, sc, out)
#define LOAD(src) load(__LINE__, src)

/* Expects the last call's message to contain want. */
static void expect_err(int line, const char *want)
{
    if (!strstr(last_err, want)) {
        printf("%s:%d: expected a message with\n  %s\ngot:\n%s", __FILE__,
               line, want, last_err);
        check_failed();
    }
}
#define EXPECT_ERR(want) expect_err(__LINE__, want)

/* ====================================================================
 * Tensors
 * ==================================================================== */

static unsigned rng = 12345;

static float frand(void)
{
    rng = rng * 1103515245u + 12345u;
    return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static TlTensor *tensor(TlDType dt, int rank, int64_t d0, int64_t d1,
                        int64_t d2, int64_t d3)
{
    int64_t shape[4] = {d0, d1, d2, d3};
    TlTensor *t = tl_tensor_new(dt, rank, shape, NULL, 0);
    if (!t)
        abort();
    return t;
}

static TlTensor *random_f32(int rank, int64_t d0, int64_t d1, int64_t d2,
                            int64_t d3)
{
    TlTensor *t = tensor(DT_F32, rank, d0, d1, d2, d3);
    float *p = t->data;
    for (int64_t i = 0; i < tl_tensor_numel(t); i++)
        p[i] = frand();
    return t;
}

static TlTensor *from_f32(int64_t n, const float *v)
{
    TlTensor *t = tensor(DT_F32, 1, n, 0, 0, 0);
    memcpy(t->data, v, (size_t)n * sizeof *v);
    return t;
}

static TlTensor *from_i32(int64_t n, const int32_t *v)
{
    TlTensor *t = tensor(DT_I32, 1, n, 0, 0, 0);
    memcpy(t->data, v, (size_t)n * sizeof *v);
    return t;
}

static float F32(const TlTensor *t, int64_t i)
{
    return ((const float *)t->data)[i];
}

static int32_t I32(const TlTensor *t, int64_t i)
{
    return ((const int32_t *)t->data)[i];
}

static int64_t I64(const TlTensor *t, int64_t i)
{
    return ((const int64_t *)t->data)[i];
}

static uint16_t U16(const TlTensor *t, int64_t i)
{
    return ((const uint16_t *)t->data)[i];
}

/* Bitwise float equality (NaN equals NaN). */
static int same_f(float a, float b)
{
    return !memcmp(&a, &b, sizeof a) || (isnan(a) && isnan(b));
}

static void unref_all(TlTensor **t, int n)
{
    for (int i = 0; i < n; i++)
        tl_tensor_unref(t[i]);
}

/* ====================================================================
 * Tests
 * ==================================================================== */

static void test_matmul(void)
{
    TlTensor *in[2], *out[1];
    int bad = 0;

    if (LOAD("kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) "
             "{\n    C[i, j] = sum(k) A[i, k] * B[k, j]\n}\n"))
        return;
    /* 300 columns: more than one row of lanes. */
    in[0] = random_f32(2, 5, 7, 0, 0);
    in[1] = random_f32(2, 7, 300, 0, 0);
    if (CALL("matmul", in, NULL, out) == 0) {
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 300; j++) {
                float acc = 0;
                for (int k = 0; k < 7; k++) {
                    float p = F32(in[0], i * 7 + k) * F32(in[1], k * 300 + j);
                    acc = k ? acc + p : p;
                }
                bad += !same_f(acc, F32(out[0], i * 300 + j));
            }
        CHECK(bad == 0);
        CHECK(out[0]->rank == 2 && out[0]->shape[0] == 5 &&
              out[0]->shape[1] == 300);
        tl_tensor_unref(out[0]);
    }
    /* A transposed view as B: strided reads. */
    {
        TlTensor *bt = random_f32(2, 300, 7, 0, 0);
        int perm[2] = {1, 0};
        TlTensor *view = tl_tensor_permute(bt, perm);
        TlTensor *in2[2] = {in[0], view};
        bad = 0;
        if (CALL("matmul", in2, NULL, out) == 0) {
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 300; j++) {
                    float acc = 0;
                    for (int k = 0; k < 7; k++) {
                        float p = F32(in[0], i * 7 + k) * F32(bt, j * 7 + k);
                        acc = k ? acc + p : p;
                    }
                    bad += !same_f(acc, F32(out[0], i * 300 + j));
                }
            CHECK(bad == 0);
            tl_tensor_unref(out[0]);
        }
        tl_tensor_unref(view);
        tl_tensor_unref(bt);
    }
    unref_all(in, 2);
}

static void test_blur(void)
{
    TlTensor *in[1], *out[1];
    int bad = 0;

    if (LOAD("kernel blur3(img: f32[H, W]) -> (out: f32[H - 2, W - 2]) {\n"
             "    bx[y, x] = (img[y, x] + img[y, x + 1] + img[y, x + 2]) / "
             "3.0\n"
             "    out[y, x] = (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / "
             "3.0\n}\n"))
        return;
    in[0] = random_f32(2, 9, 11, 0, 0);
    if (CALL("blur3", in, NULL, out) == 0) {
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 9; x++) {
                float b[3];
                for (int d = 0; d < 3; d++) {
                    const float *r = (const float *)in[0]->data + (y + d) * 11;
                    float s = r[x] + r[x + 1];
                    s = s + r[x + 2];
                    b[d] = s / 3.0f;
                }
                float s = b[0] + b[1];
                s = s + b[2];
                bad += !same_f(s / 3.0f, F32(out[0], y * 9 + x));
            }
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    /* A 1x1 image has no 3x3 window. */
    tl_tensor_unref(in[0]);
    in[0] = random_f32(2, 1, 1, 0, 0);
    CHECK(CALL("blur3", in, NULL, out) == -1);
    EXPECT_ERR("error: output 'out' of 'blur3' would have the negative "
               "size -1 on axis 0 (H - 2)");
    tl_tensor_unref(in[0]);
}

static void test_integers(void)
{
    static const int32_t a[] = {-7, 7, -7, 5, INT32_MIN, 0, 9, -9};
    static const int32_t b[] = {2, -2, -2, 0, -1, 3, 3, 0};
    static const int32_t q[] = {-4, -4, 3, 0, INT32_MIN, 0, 3, 0};
    static const int32_t r[] = {1, -1, -1, 0, 0, 0, 0, 0};
    TlTensor *in[2], *out[4];

    if (LOAD("kernel ints(a: i32[N], b: i32[N]) -> (q: i32[N], r: i32[N], "
             "w: i8[N], u: u8[N]) {\n"
             "    q[i] = a[i] / b[i]\n"
             "    r[i] = a[i] % b[i]\n"
             "    w[i] = i8(a[i]) * 100\n"
             "    u[i] = u8(a[i]) + 200\n}\n"))
        return;
    in[0] = from_i32(8, a);
    in[1] = from_i32(8, b);
    if (CALL("ints", in, NULL, out) == 0) {
        for (int i = 0; i < 8; i++) {
            CHECK(I32(out[0], i) == q[i]);
            CHECK(I32(out[1], i) == r[i]);
            CHECK(((int8_t *)out[2]->data)[i] ==
                  (int8_t)(uint8_t)((uint8_t)a[i] * 100));
            CHECK(((uint8_t *)out[3]->data)[i] == (uint8_t)(a[i] + 200));
        }
        unref_all(out, 4);
    }
    unref_all(in, 2);
}

static void test_casts(void)
{
    static const float x[] = {2.7f, -2.7f, 1e10f, -1e10f, NAN, 300.0f,
                              -0.0f, 65519.0f};
    TlTensor *in[2], *out[7];
    int64_t big[8] = {(1LL << 53) + 1, -((1LL << 53) + 1), 3, INT64_MAX,
                      INT64_MIN, 16777217, 0, -1};

    if (LOAD("kernel casts(x: f32[N], y: i64[N]) -> (a: i32[N], b: u8[N], "
             "c: bool[N], d: f32[N], e: f16[N], g: bf16[N], h: i8[N]) {\n"
             "    a[i] = i32(x[i])\n"
             "    b[i] = u8(x[i])\n"
             "    c[i] = bool(x[i])\n"
             "    d[i] = f32(y[i])\n"
             "    e[i] = f16(x[i])\n"
             "    g[i] = bf16(x[i])\n"
             "    h[i] = i8(y[i])\n}\n"))
        return;
    in[0] = from_f32(8, x);
    in[1] = tensor(DT_I64, 1, 8, 0, 0, 0);
    memcpy(in[1]->data, big, sizeof big);
    if (CALL("casts", in, NULL, out) == 0) {
        for (int i = 0; i < 8; i++) {
            CHECK(I32(out[0], i) == (int32_t)tl_f64_to_int(DT_I32, x[i]));
            CHECK(((uint8_t *)out[1]->data)[i] ==
                  (uint8_t)tl_f64_to_int(DT_U8, x[i]));
            CHECK(((uint8_t *)out[2]->data)[i] == (x[i] != 0));
            CHECK(same_f(F32(out[3], i), (float)big[i]));
            CHECK(U16(out[4], i) == tl_f32_to_f16(x[i]));
            CHECK(U16(out[5], i) == tl_f32_to_bf16(x[i]));
            CHECK(((int8_t *)out[6]->data)[i] == (int8_t)(uint8_t)big[i]);
        }
        /* The spot checks of SPEC 8.4. */
        CHECK(I32(out[0], 0) == 2 && I32(out[0], 1) == -2);
        CHECK(I32(out[0], 2) == INT32_MAX && I32(out[0], 4) == 0);
        CHECK(((uint8_t *)out[1]->data)[5] == 255);
        CHECK(((uint8_t *)out[2]->data)[4] == 1);     /* NaN is true */
        CHECK(F32(out[3], 0) == 9007199254740992.0f);
        unref_all(out, 7);
    }
    unref_all(in, 2);
}

/* f16 and bf16: every operation computed in f32 and rounded. */
static void test_half(void)
{
    TlTensor *in[2], *out[4];
    int bad = 0;

    if (LOAD("kernel half(h: f16[N], b: bf16[N]) -> (y: f16[N], s: f16[], "
             "z: bf16[N], t: bf16[]) {\n"
             "    y[i] = h[i] * h[i] + h[i] / 3.0\n"
             "    s[] = sum(k) h[k]\n"
             "    z[i] = b[i] * b[i] - 1.5\n"
             "    t[] = sum(k) b[k]\n}\n"))
        return;
    in[0] = tensor(DT_F16, 1, 100, 0, 0, 0);
    in[1] = tensor(DT_BF16, 1, 100, 0, 0, 0);
    for (int i = 0; i < 100; i++) {
        ((uint16_t *)in[0]->data)[i] = tl_f32_to_f16(frand() * 30);
        ((uint16_t *)in[1]->data)[i] = tl_f32_to_bf16(frand() * 30);
    }
    if (CALL("half", in, NULL, out) == 0) {
        uint16_t s = 0, t = 0;
        for (int i = 0; i < 100; i++) {
            float h = tl_f16_to_f32(U16(in[0], i));
            float b = tl_bf16_to_f32(U16(in[1], i));
            uint16_t sq = tl_f32_to_f16(h * h);
            uint16_t dv = tl_f32_to_f16(h / tl_f16_to_f32(tl_f32_to_f16(3)));
            uint16_t y = tl_f32_to_f16(tl_f16_to_f32(sq) + tl_f16_to_f32(dv));
            uint16_t bs = tl_f32_to_bf16(b * b);
            uint16_t z = tl_f32_to_bf16(tl_bf16_to_f32(bs) - 1.5f);
            bad += y != U16(out[0], i);
            bad += z != U16(out[2], i);
            s = i ? tl_f32_to_f16(tl_f16_to_f32(s) + h) : U16(in[0], i);
            t = i ? tl_f32_to_bf16(tl_bf16_to_f32(t) + b) : U16(in[1], i);
        }
        CHECK(bad == 0);
        CHECK(U16(out[1], 0) == s);
        CHECK(U16(out[3], 0) == t);
        unref_all(out, 4);
    }
    unref_all(in, 2);
}

static void test_reductions(void)
{
    float x[4][6] = {
        {1, 5, 3, 5, -2, 0},
        {2, NAN, 7, NAN, 1, 9},
        {-1, -1, -1, -1, -1, -1},
        {1e8f, 1, -1e8f, 1, 3, 4},
    };
    TlTensor *in[1], *out[9];

    if (LOAD("kernel red(X: f32[N, D]) -> (s: f32[N], p: f32[N], mx: f32[N], "
             "mn: f32[N], am: i64[N], an: i64[N], part: f32[N], "
             "none: f32[N], two: f32[]) {\n"
             "    s[n] = sum(d) X[n, d]\n"
             "    p[n] = prod(d) X[n, d]\n"
             "    mx[n] = max(d) X[n, d]\n"
             "    mn[n] = min(d) X[n, d]\n"
             "    am[n] = argmax(d) X[n, d]\n"
             "    an[n] = argmin(d) X[n, d]\n"
             "    part[n] = sum(d in 2..5) X[n, d]\n"
             "    none[n] = max(d in 3..3) X[n, d]\n"
             "    two[] = sum(a, b) X[a, b]\n}\n"))
        return;
    in[0] = tensor(DT_F32, 2, 4, 6, 0, 0);
    memcpy(in[0]->data, x, sizeof x);
    if (CALL("red", in, NULL, out) == 0) {
        float total = 0;
        for (int n = 0; n < 4; n++) {
            float s = x[n][0], p = x[n][0], mx = x[n][0], mn = x[n][0];
            float part = x[n][2];
            int64_t am = 0, an = 0;
            for (int d = 1; d < 6; d++) {
                float v = x[n][d];
                s = s + v;
                p = p * v;
                if (!isnan(mx) && (isnan(v) || v > mx))
                    mx = v;
                if (!isnan(mn) && (isnan(v) || v < mn))
                    mn = v;
                if (!isnan(x[n][am]) && (isnan(v) || v > x[n][am]))
                    am = d;
                if (!isnan(x[n][an]) && (isnan(v) || v < x[n][an]))
                    an = d;
            }
            for (int d = 3; d < 5; d++)
                part = part + x[n][d];
            for (int d = 0; d < 6; d++)
                total = n || d ? total + x[n][d] : x[n][d];
            CHECK(same_f(F32(out[0], n), s));
            CHECK(same_f(F32(out[1], n), p));
            CHECK(same_f(F32(out[2], n), mx));
            CHECK(same_f(F32(out[3], n), mn));
            CHECK(I64(out[4], n) == am);
            CHECK(I64(out[5], n) == an);
            CHECK(same_f(F32(out[6], n), part));
            CHECK(F32(out[7], n) == -INFINITY);
        }
        CHECK(same_f(F32(out[8], 0), total));
        /* Ties go to the first index, NaN wins. */
        CHECK(I64(out[4], 0) == 1 && I64(out[4], 1) == 1);
        CHECK(I64(out[4], 2) == 0 && I64(out[5], 2) == 0);
        CHECK(isnan(F32(out[2], 1)));
        unref_all(out, 9);
    }

    /* Integer identities, argmax of nothing. */
    if (LOAD("kernel ired(X: i32[N]; lo: i32 = 0, hi: i32 = 0) "
             "-> (a: i32[], b: i32[], c: u8[], d: i32[], e: i64[]) {\n"
             "    a[] = max(k in lo..hi) X[k]\n"
             "    b[] = min(k in lo..hi) X[k]\n"
             "    c[] = max(k in lo..hi) u8(X[k])\n"
             "    d[] = prod(k in lo..hi) X[k]\n"
             "    e[] = argmax(k in lo..hi) X[k]\n}\n"))
        goto done;
    {
        static const int32_t v[] = {4, -3, 8, 8};
        TlTensor *iin[1] = {from_i32(4, v)};
        TlScalarArg sc[2] = {{1, 0, 0, 1}, {1, 0, 0, 4}};
        CHECK(CALL("ired", iin, NULL, out) == -1);
        EXPECT_ERR("error: 'argmax' of an empty range has no value: 'k' "
                   "runs over 0..0");
        EXPECT_ERR("note: while computing e[]");
        if (CALL("ired", iin, sc, out) == 0) {
            CHECK(I32(out[0], 0) == 8 && I32(out[1], 0) == -3);
            CHECK(((uint8_t *)out[2]->data)[0] == 253);
            CHECK(I32(out[3], 0) == -192 && I64(out[4], 0) == 2);
            unref_all(out, 5);
        }
        sc[1].i = 1;
        sc[0].given = 0;
        if (CALL("ired", iin, sc, out) == 0) {
            /* k in 0..1: one element */
            CHECK(I32(out[0], 0) == 4 && I64(out[4], 0) == 0);
            unref_all(out, 5);
        }
        sc[0].given = 1;
        sc[0].i = 2;
        sc[1].i = 2;
        if (CALL("ired", iin, sc, out) == 0) {
            CHECK(I32(out[0], 0) == INT32_MIN);
            CHECK(I32(out[1], 0) == INT32_MAX);
            CHECK(((uint8_t *)out[2]->data)[0] == 0);
            CHECK(I32(out[3], 0) == 1);
            unref_all(out, 4);
            tl_tensor_unref(out[4]);
        }
        tl_tensor_unref(iin[0]);
    }
done:
    tl_tensor_unref(in[0]);
}

static void test_select(void)
{
    TlTensor *in[2], *out[3];
    int bad = 0;

    /* x[i - d] is out of bounds for i < d, where select does not take
     * it; the gather x[idx[i]] is guarded the same way, and x[i + big]
     * by a condition that does not vary along the row. */
    if (LOAD("kernel shift(x: f32[N], idx: i32[N]; d: i32 = 1, "
             "big: i32 = 5000) -> (y: f32[N], g: f32[N], z: f32[N]) {\n"
             "    y[i] = select(i >= d, x[i - d], -1.0)\n"
             "    g[i] = select(idx[i] >= 0 && idx[i] < N, x[idx[i]], 0.0)\n"
             "    z[i] = select(N > big, x[i + big], x[i] * 2.0)\n}\n"))
        return;
    in[0] = random_f32(1, 300, 0, 0, 0);
    in[1] = tensor(DT_I32, 1, 300, 0, 0, 0);
    for (int i = 0; i < 300; i++)
        ((int32_t *)in[1]->data)[i] = i % 3 == 0 ? -i : (i * 7) % 400;
    if (CALL("shift", in, NULL, out) == 0) {
        for (int i = 0; i < 300; i++) {
            int j = I32(in[1], i);
            bad += !same_f(F32(out[0], i), i ? F32(in[0], i - 1) : -1.0f);
            bad += !same_f(F32(out[1], i), j >= 0 && j < 300 ? F32(in[0], j)
                                                             : 0.0f);
            bad += !same_f(F32(out[2], i), F32(in[0], i) * 2.0f);
        }
        CHECK(bad == 0);
        unref_all(out, 3);
    }
    unref_all(in, 2);
}

static void test_gather_error(void)
{
    static const int32_t idx[] = {0, 4, 2, 9, 1};
    TlTensor *in[2], *out[1];

    if (LOAD("kernel gather(a: f32[N], idx: i32[M]) -> (g: f32[M]) {\n"
             "    g[i] = a[idx[i]] + 1.0\n}\n"))
        return;
    in[0] = random_f32(1, 5, 0, 0, 0);
    in[1] = from_i32(5, idx);
    CHECK(CALL("gather", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:2:12: error: index 9 out of range 0..4 on axis 0 of "
               "'a' at a[idx[i]=9] (declared at t.tdsl:1:15)");
    EXPECT_ERR("t.tdsl:2:5: note: while computing g[i=3]");
    CHECK(strstr(last_err, "note") == strstr(last_err, "note: while"));
    unref_all(in, 2);

    /* The same in a reduction, with the reduction variable's value. */
    if (LOAD("kernel mm(A: f32[M, K], B: f32[L, N]) -> (C: f32[M, N]) {\n"
             "    C[i, j] = sum(k in 0..L) A[i, k] * B[k, j]\n}\n"))
        return;
    in[0] = random_f32(2, 3, 4, 0, 0);
    in[1] = random_f32(2, 5, 2, 0, 0);
    CHECK(CALL("mm", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:2:30: error: index 4 out of range 0..3 on axis 1 of "
               "'A' at A[i=0, k=4] (declared at t.tdsl:1:11)");
    EXPECT_ERR("note: while computing C[i=0, j=0] with k=4");
    unref_all(in, 2);
}

static void test_boundary(void)
{
    TlTensor *in[2], *out[3];
    int bad = 0;

    if (LOAD("kernel pad(x: f32[N], w: f32[3]) -> (y: f32[N], z: f32[N], "
             "c: f32[N]) {\n"
             "    y[i] = sum(k) x.zero_pad[i + k - 1] * w[k]\n"
             "    z[i] = x.clamp_edge[i - 2] + x.clamp_edge[2 * i]\n"
             "    c[i] = x.zero_pad[N - 1 - i]\n}\n"))
        return;
    in[0] = random_f32(1, 270, 0, 0, 0);
    in[1] = random_f32(1, 3, 0, 0, 0);
    if (CALL("pad", in, NULL, out) == 0) {
        for (int i = 0; i < 270; i++) {
            float acc = 0;
            int a = i - 2 < 0 ? 0 : i - 2, b = 2 * i > 269 ? 269 : 2 * i;
            for (int k = 0; k < 3; k++) {
                int j = i + k - 1;
                float v = j >= 0 && j < 270 ? F32(in[0], j) : 0.0f;
                float p = v * F32(in[1], k);
                acc = k ? acc + p : p;
            }
            bad += !same_f(F32(out[0], i), acc);
            bad += !same_f(F32(out[1], i), F32(in[0], a) + F32(in[0], b));
            bad += !same_f(F32(out[2], i), F32(in[0], 269 - i));
        }
        CHECK(bad == 0);
        unref_all(out, 3);
    }
    unref_all(in, 2);
}

/* Boundary helpers in two dimensions: an index that is the same for the
 * whole row (y - 1, y + 1) and one that moves along it (x + 1, x - 1). */
static void test_boundary_2d(void)
{
    TlTensor *in[1], *out[1];
    int bad = 0;

    if (LOAD("kernel c2(X: f32[H, W]) -> (Y: f32[H, W]) {\n"
             "    Y[y, x] = X.clamp_edge[y - 1, x + 1] + "
             "X.zero_pad[y + 1, x - 1]\n}\n"))
        return;
    in[0] = random_f32(2, 5, 270, 0, 0);
    if (CALL("c2", in, NULL, out) == 0) {
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 270; x++) {
                int cy = y - 1 < 0 ? 0 : y - 1, cx = x + 1 > 269 ? 269 : x + 1;
                float z = y + 1 < 5 && x - 1 >= 0
                              ? F32(in[0], (y + 1) * 270 + x - 1) : 0.0f;
                bad += !same_f(F32(out[0], y * 270 + x),
                               F32(in[0], cy * 270 + cx) + z);
            }
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    tl_tensor_unref(in[0]);
}

/* Index arithmetic that wraps in its dtype (u8) is not affine. */
static void test_wrapping_index(void)
{
    TlTensor *in[1], *out[1];
    int bad = 0;

    if (LOAD("kernel wrap(A: f32[N]) -> (y: f32[N]) {\n"
             "    y[i] = A[u8(i)] + A[(3 * i + 7) % N]\n}\n"))
        return;
    in[0] = random_f32(1, 600, 0, 0, 0);
    if (CALL("wrap", in, NULL, out) == 0) {
        for (int i = 0; i < 600; i++)
            bad += !same_f(F32(out[0], i), F32(in[0], i & 255) +
                                               F32(in[0], (3 * i + 7) % 600));
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    tl_tensor_unref(in[0]);
}

static void test_math(void)
{
    static const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 3.7f, -3.2f,
                              0.0f, NAN, INFINITY, 1e-3f, 100.0f};
    TlTensor *in[2], *out[17];
    const int n = 12;

    if (LOAD("kernel m(x: f32[N], y: f32[N]) -> (e: f32[N], l: f32[N], "
             "s: f32[N], rs: f32[N], th: f32[N], sg: f32[N], er: f32[N], "
             "sn: f32[N], cs: f32[N], ab: f32[N], fl: f32[N], ce: f32[N], "
             "rd: f32[N], pw: f32[N], mn: f32[N], cl: f32[N], md: f32[N]) {\n"
             "    e[i] = exp(x[i])\n    l[i] = log(x[i])\n"
             "    s[i] = sqrt(x[i])\n    rs[i] = rsqrt(x[i])\n"
             "    th[i] = tanh(x[i])\n    sg[i] = sigmoid(x[i])\n"
             "    er[i] = erf(x[i])\n    sn[i] = sin(x[i])\n"
             "    cs[i] = cos(x[i])\n    ab[i] = abs(x[i])\n"
             "    fl[i] = floor(x[i])\n    ce[i] = ceil(x[i])\n"
             "    rd[i] = round(x[i])\n    pw[i] = pow(x[i], y[i])\n"
             "    mn[i] = min(x[i], y[i])\n"
             "    cl[i] = clamp(x[i], -1.0, y[i])\n"
             "    md[i] = x[i] % y[i]\n}\n"))
        return;
    in[0] = from_f32(n, x);
    in[1] = tensor(DT_F32, 1, n, 0, 0, 0);
    for (int i = 0; i < n; i++)
        ((float *)in[1]->data)[i] = i % 4 == 3 ? NAN : (float)(i % 5) - 1.5f;
    if (CALL("m", in, NULL, out) == 0) {
        for (int i = 0; i < n; i++) {
            double v = x[i], w = F32(in[1], i);
            float m = isnan(x[i]) ? x[i] : isnan(w) ? (float)w
                                            : w < v ? (float)w : x[i];
            float c = x[i] < -1.0f ? -1.0f : x[i];
            double md = fmod(v, w);
            if (md != 0 && (w < 0) != (md < 0))
                md += w;
            else if (md == 0)
                md = copysign(0.0, w);
            c = isnan(x[i]) ? x[i] : isnan(w) ? (float)w : (float)w < c
                                                               ? (float)w : c;
            CHECK(same_f(F32(out[0], i), (float)exp(v)));
            CHECK(same_f(F32(out[1], i), (float)log(v)));
            CHECK(same_f(F32(out[2], i), (float)sqrt(v)));
            CHECK(same_f(F32(out[3], i), (float)(1.0 / sqrt(v))));
            CHECK(same_f(F32(out[4], i), (float)tanh(v)));
            CHECK(same_f(F32(out[5], i), (float)(1.0 / (1.0 + exp(-v)))));
            CHECK(same_f(F32(out[6], i), (float)erf(v)));
            CHECK(same_f(F32(out[7], i), (float)sin(v)));
            CHECK(same_f(F32(out[8], i), (float)cos(v)));
            CHECK(same_f(F32(out[9], i), fabsf(x[i])));
            CHECK(same_f(F32(out[10], i), floorf(x[i])));
            CHECK(same_f(F32(out[11], i), ceilf(x[i])));
            CHECK(same_f(F32(out[12], i), (float)nearbyint(v)));
            CHECK(same_f(F32(out[13], i), (float)pow(v, w)));
            CHECK(same_f(F32(out[14], i), m));
            CHECK(same_f(F32(out[15], i), c));
            CHECK(same_f(F32(out[16], i), (float)md));
        }
        /* round: ties to even */
        CHECK(F32(out[12], 0) == 0.0f && F32(out[12], 1) == 2.0f);
        CHECK(F32(out[12], 2) == 2.0f && F32(out[12], 4) == -2.0f);
        CHECK(signbit(F32(out[12], 3)));
        unref_all(out, 17);
    }
    unref_all(in, 2);

    /* Integer abs, min, max, clamp keep the dtype; abs wraps. */
    if (LOAD("kernel im(a: i32[N], b: i32[N]) -> (ab: i32[N], mx: i32[N], "
             "cl: i32[N], neg: i32[N]) {\n"
             "    ab[i] = abs(a[i])\n    mx[i] = max(a[i], b[i])\n"
             "    cl[i] = clamp(a[i], -5, b[i])\n    neg[i] = -a[i]\n}\n"))
        return;
    {
        static const int32_t a[] = {INT32_MIN, -3, 7, 0};
        static const int32_t b[] = {1, -4, 3, 10};
        TlTensor *iin[2] = {from_i32(4, a), from_i32(4, b)};
        if (CALL("im", iin, NULL, out) == 0) {
            CHECK(I32(out[0], 0) == INT32_MIN && I32(out[0], 1) == 3);
            CHECK(I32(out[1], 1) == -3 && I32(out[1], 2) == 7);
            CHECK(I32(out[2], 0) == -5 && I32(out[2], 1) == -4 &&
                  I32(out[2], 2) == 3 && I32(out[2], 3) == 0);
            CHECK(I32(out[3], 0) == INT32_MIN && I32(out[3], 1) == 3);
            unref_all(out, 4);
        }
        unref_all(iin, 2);
    }
}

static void test_bool(void)
{
    static const float x[] = {-1, 2, 6, 0, 3, 5};
    TlTensor *in[1], *out[3];

    if (LOAD("kernel b(x: f32[N]) -> (m: bool[N], c: i32[], any: bool[]) {\n"
             "    m[i] = x[i] > 0.0 && !(x[i] > 5.0) || x[i] == -1.0\n"
             "    c[] = sum(i) i32(m[i])\n"
             "    any[] = max(i) x[i] > 5.5\n}\n"))
        return;
    in[0] = from_f32(6, x);
    if (CALL("b", in, NULL, out) == 0) {
        static const uint8_t want[] = {1, 1, 0, 0, 1, 1};
        CHECK(!memcmp(out[0]->data, want, 6));
        CHECK(I32(out[1], 0) == 4);
        CHECK(((uint8_t *)out[2]->data)[0] == 1);
        unref_all(out, 3);
    }
    tl_tensor_unref(in[0]);
}

static void test_compose(void)
{
    TlTensor *in[1], *out[3];
    int bad = 0;

    if (LOAD("kernel relu(X: f32[N, D]) -> (Y: f32[N, D]) {\n"
             "    Y[n, d] = max(X[n, d], 0.0)\n}\n"
             "kernel moments(X: f32[N, D]) -> (mu: f32[N], var: f32[N]) {\n"
             "    mu[n] = (sum(d) X[n, d]) / f32(D)\n"
             "    var[n] = (sum(d) (X[n, d] - mu[n]) * (X[n, d] - mu[n])) "
             "/ f32(D)\n}\n"
             "kernel block(X: f32[N, D]) -> (Y: f32[N, D], Z: f32[N, D], "
             "V: f32[N]) {\n"
             "    r1 = relu(X)\n"
             "    m, v = moments(r1)\n"
             "    _, V = moments(X)\n"
             "    Y[n, d] = (r1[n, d] - m[n]) * rsqrt(v[n] + 1e-5)\n"
             "    Z = relu(relu(Y))\n}\n"))
        return;
    in[0] = random_f32(2, 3, 40, 0, 0);
    if (CALL("block", in, NULL, out) == 0) {
        for (int n = 0; n < 3; n++) {
            const float *x = (const float *)in[0]->data + n * 40;
            float r[40], mu = 0, var = 0, xm = 0, xv = 0;
            for (int d = 0; d < 40; d++) {
                r[d] = x[d] > 0.0f ? x[d] : 0.0f;
                mu = d ? mu + r[d] : r[d];
                xm = d ? xm + x[d] : x[d];
            }
            mu = mu / 40.0f;
            xm = xm / 40.0f;
            for (int d = 0; d < 40; d++) {
                float t = r[d] - mu, u = x[d] - xm;
                float sq = t * t, su = u * u;
                var = d ? var + sq : sq;
                xv = d ? xv + su : su;
            }
            var = var / 40.0f;
            xv = xv / 40.0f;
            for (int d = 0; d < 40; d++) {
                float e = (float)(1e-5);
                float rs = (float)(1.0 / sqrt((double)(var + e)));
                float y = (r[d] - mu) * rs;
                bad += !same_f(F32(out[0], n * 40 + d), y);
                bad += !same_f(F32(out[1], n * 40 + d), y > 0 ? y : 0.0f);
            }
            bad += !same_f(F32(out[2], n), xv);
        }
        CHECK(bad == 0);
        unref_all(out, 3);
    }
    tl_tensor_unref(in[0]);
}

static void test_scalars(void)
{
    TlTensor *in[3], *out[2];
    TlScalarArg sc[3];
    int bad = 0;

    if (LOAD("kernel conv(X: f32[H, W], K: f32[R, S]; stride: i32 = 1, "
             "pad: i32 = R / 2, gain: f32 = 1.0)\n"
             "    -> (Y: f32[(H + 2 * pad - R) / stride + 1, "
             "(W + 2 * pad - S) / stride + 1]) {\n"
             "    Y[y, x] = gain * sum(r, s) X.zero_pad[y * stride + r - pad, "
             "x * stride + s - pad] * K[r, s]\n}\n"))
        return;
    in[0] = random_f32(2, 13, 17, 0, 0);
    in[1] = random_f32(2, 3, 3, 0, 0);
    memset(sc, 0, sizeof sc);
    sc[0].given = 1;
    sc[0].i = 2;
    sc[2].given = 1;
    sc[2].is_float = 1;
    sc[2].f = 0.5;
    if (CALL("conv", in, sc, out) == 0) {
        /* pad = R / 2 = 1: 7 x 9 */
        CHECK(out[0]->shape[0] == 7 && out[0]->shape[1] == 9);
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 9; x++) {
                float acc = 0;
                int first = 1;
                for (int r = 0; r < 3; r++)
                    for (int s = 0; s < 3; s++) {
                        int iy = y * 2 + r - 1, ix = x * 2 + s - 1;
                        float v = iy >= 0 && iy < 13 && ix >= 0 && ix < 17
                                      ? F32(in[0], iy * 17 + ix) : 0.0f;
                        float p = v * F32(in[1], r * 3 + s);
                        acc = first ? p : acc + p;
                        first = 0;
                    }
                bad += !same_f(F32(out[0], y * 9 + x), 0.5f * acc);
            }
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    /* stride 0 divides by zero in the output shape. */
    sc[0].i = 0;
    CHECK(CALL("conv", in, sc, out) == -1);
    EXPECT_ERR("error: axis 0 of output 'Y' cannot be computed: (H + 2*pad "
               "- R) / stride + 1 divides by zero or overflows");
    unref_all(in, 2);

    if (LOAD("kernel f(x: f32[N]; n: i32) -> (y: f32[N]) {\n"
             "    y[i] = x[i] + f32(n)\n}\n"))
        return;
    in[0] = random_f32(1, 4, 0, 0, 0);
    CHECK(CALL("f", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:1:21: error: scalar parameter 'n' of 'f' has no "
               "default and was not given");
    tl_tensor_unref(in[0]);
}

static void test_arg_errors(void)
{
    TlTensor *in[2], *out[1];

    if (LOAD("kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) "
             "{\n    C[i, j] = sum(k) A[i, k] * B[k, j]\n}\n"
             "kernel sq(A: f32[N, N * 2]) -> (B: f32[N]) {\n"
             "    B[i] = A[i, 2 * i]\n}\n"))
        return;
    in[0] = random_f32(2, 3, 4, 0, 0);
    in[1] = random_f32(2, 5, 2, 0, 0);
    CHECK(CALL("matmul", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:1:36: error: size 'K' of 'matmul' is 4 from 'A' "
               "(axis 1) but 5 from 'B' (axis 0)");
    tl_tensor_unref(in[1]);
    in[1] = random_f32(1, 4, 0, 0, 0);
    CHECK(CALL("matmul", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:1:29: error: argument 'B' of 'matmul' has rank 1 but "
               "the parameter has rank 2");
    tl_tensor_unref(in[1]);
    in[1] = tensor(DT_F64, 2, 4, 2, 0, 0);
    CHECK(CALL("matmul", in, NULL, out) == -1);
    EXPECT_ERR("argument 'B' of 'matmul' has dtype 'f64' but the parameter "
               "is 'f32'");
    CHECK(CALL("sq", in, NULL, out) == -1);
    EXPECT_ERR("error: axis 1 of 'A' (a parameter of 'sq') has size 4 but "
               "must be 2*N = 6");
    unref_all(in, 2);
}

static void test_consts(void)
{
    TlTensor *in[1], *out[1];
    int bad = 0;

    if (LOAD("let W = rand(f32, [8], seed = 1)\n"
             "kernel k(A: f32[N]) -> (B: f32[N]) {\n"
             "    B[i] = A[i] * W[i % 8]\n}\n"))
        return;
    consts[0].name = "W";
    consts[0].t = random_f32(1, 8, 0, 0, 0);
    nconsts = 1;
    in[0] = random_f32(1, 20, 0, 0, 0);
    if (CALL("k", in, NULL, out) == 0) {
        for (int i = 0; i < 20; i++)
            bad += !same_f(F32(out[0], i), F32(in[0], i) *
                                               F32(consts[0].t, i % 8));
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    tl_tensor_unref(consts[0].t);
    consts[0].t = random_f32(1, 9, 0, 0, 0);
    CHECK(CALL("k", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:1:5: error: top-level tensor 'W' is f32[9] but the "
               "kernel was checked with f32[8]");
    tl_tensor_unref(in[0]);
}

static void test_rank0(void)
{
    TlTensor *in[2], *out[2];

    if (LOAD("kernel r(s: f32[], x: f32[N]) -> (y: f32[N], t: f32[]) {\n"
             "    y[i] = x[i] * s + s[]\n"
             "    t[] = s * 2.0\n}\n"))
        return;
    in[0] = tensor(DT_F32, 0, 0, 0, 0, 0);
    ((float *)in[0]->data)[0] = 3.0f;
    in[1] = random_f32(1, 5, 0, 0, 0);
    if (CALL("r", in, NULL, out) == 0) {
        for (int i = 0; i < 5; i++) {
            float v = F32(in[1], i) * 3.0f;
            CHECK(same_f(F32(out[0], i), v + 3.0f));
        }
        CHECK(out[1]->rank == 0 && F32(out[1], 0) == 6.0f);
        unref_all(out, 2);
    }
    unref_all(in, 2);
}

static void test_externs(void)
{
    TlTensor *in[1], *out[2];
    TlRuntime rt;
    TlExternArg args[2];
    TlScalarArg res;
    TlLoc none = {-1, 0, 0, 0, 0};
    int bad = 0;

    if (LOAD("extern fn erff(x: f32) -> f32\n"
             "extern \"libc.so.6\" fn labs(x: i64) -> i64\n"
             "extern fn strnlen(s: u8[N]) -> i64\n"
             "extern \"libm.so.6\" fn pow(x: f64, y: f64) -> f64\n"
             "kernel g(X: f32[N]) -> (Y: f32[N], A: i64[N]) {\n"
             "    Y[i] = 0.5 * X[i] * (1.0 + erff(X[i] * 0.70710677))\n"
             "    A[i] = select(X[i] > 0.0, labs(i64(X[i] * -100.0)), 0)\n"
             "}\n"))
        return;
    in[0] = random_f32(1, 50, 0, 0, 0);
    if (CALL("g", in, NULL, out) == 0) {
        for (int i = 0; i < 50; i++) {
            float x = F32(in[0], i), h = 0.5f * x;
            float e = erff(x * 0.70710677f) + 1.0f;
            bad += !same_f(F32(out[0], i), h * e);
            bad += I64(out[1], i) != (x > 0 ? (int64_t)(x * 100.0f) : 0);
        }
        CHECK(bad == 0);
        unref_all(out, 2);
    }
    tl_tensor_unref(in[0]);

    /* Top level: a tensor parameter is a pointer and its extents. */
    memset(&rt, 0, sizeof rt);
    rt.s = S;
    memset(args, 0, sizeof args);
    args[0].t = tensor(DT_U8, 1, 6, 0, 0, 0);
    memcpy(args[0].t->data, "abc\0ef", 6);
    CHECK(itp_call_extern(&rt, extern_fn("strnlen"), args, &res, none) == 0);
    CHECK(res.given && !res.is_float && res.i == 3);
    memcpy(args[0].t->data, "abcdef", 6);
    CHECK(itp_call_extern(&rt, extern_fn("strnlen"), args, &res, none) == 0);
    CHECK(res.i == 6);
    tl_tensor_unref(args[0].t);
    args[0].t = NULL;
    args[0].s.is_float = 1;
    args[0].s.f = 2.0;
    args[1].s.i = 10;
    CHECK(itp_call_extern(&rt, extern_fn("pow"), args, &res, none) == 0);
    CHECK(res.is_float && res.f == 1024.0);

    /* What cannot be called, at the extern's line. */
    if (LOAD("extern fn nosuch_fn(x: f32) -> f32\n"
             "extern \"libnosuch_tdsl.so\" fn lib_fn(x: f32) -> f32\n"
             "extern \"libm.so.6\" fn half_fn(x: f16) -> f32\n"
             "kernel a(X: f32[N]) -> (Y: f32[N]) {\n"
             "    Y[i] = nosuch_fn(X[i])\n}\n"
             "kernel b(X: f32[N]) -> (Y: f32[N]) {\n"
             "    Y[i] = lib_fn(X[i])\n}\n"
             "kernel c(X: f32[N]) -> (Y: f32[N]) {\n"
             "    Y[i] = half_fn(f16(X[i]))\n}\n"
             "kernel d(X: f32[N]) -> (Y: f32[N]) {\n"
             "    Y[i] = select(X[i] > 10.0, lib_fn(X[i]), X[i])\n}\n"))
        return;
    in[0] = random_f32(1, 3, 0, 0, 0);
    CHECK(CALL("a", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:1:11: error: extern 'nosuch_fn' is not in the running "
               "program or libm.so.6");
    EXPECT_ERR("t.tdsl:5:12: note: 'nosuch_fn' is called here");
    CHECK(CALL("b", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:2:8: error: cannot load 'libnosuch_tdsl.so' for extern "
               "'lib_fn': ");
    CHECK(CALL("c", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:3:34: error: extern 'half_fn' cannot be called from "
               "tdsl: parameter 'x' has type 'f16', which has no C type");
    /* Never called: no error. */
    if (CALL("d", in, NULL, out) == 0)
        tl_tensor_unref(out[0]);
    tl_tensor_unref(in[0]);
}

/* A run-time error inside a callee names the call chain. */
static void test_nested_error(void)
{
    static const int32_t idx[] = {0, 7};
    TlTensor *in[2], *out[1];
    TlRuntime rt;
    TlLoc at = {0, 6, 1, 0, 1};

    if (LOAD("kernel g(a: f32[N], idx: i32[M]) -> (y: f32[M]) {\n"
             "    y[i] = a[idx[i]]\n}\n"
             "kernel outer(a: f32[N], idx: i32[M]) -> (z: f32[M]) {\n"
             "    t = g(a, idx)\n"
             "    z[i] = t[i] * 2.0\n}\n"))
        return;
    in[0] = random_f32(1, 4, 0, 0, 0);
    in[1] = from_i32(2, idx);
    CHECK(CALL("outer", in, NULL, out) == -1);
    EXPECT_ERR("t.tdsl:2:12: error: index 7 out of range 0..3 on axis 0 of "
               "'a' at a[idx[i]=7] (declared at t.tdsl:1:10)");
    EXPECT_ERR("t.tdsl:5:9: note: in this call of 'g'");
    /* The caller's location comes last. */
    memset(&rt, 0, sizeof rt);
    rt.s = S;
    fflush(diag);
    {
        size_t from = diag_len;
        CHECK(itp_call_kernel(&rt, kernel("outer"), in, NULL, out, at) == -1);
        CHECK(strstr(diag_since(from), "t.tdsl:6:1: note: in this call of "
                                       "'outer'") != NULL);
        CHECK(out[0] == NULL);
    }
    unref_all(in, 2);
}

/* A whole-tensor binding, and a stage whose domain starts below 0. */
static void test_domains(void)
{
    TlTensor *in[2], *out[1];
    int bad = 0;

    if (LOAD("kernel d(A: f32[N], B: f32[N]) -> (Y: f32[N]) {\n"
             "    t = A * 2.0 + B\n"
             "    s[i] = t.zero_pad[i] * 0.5\n"
             "    Y[i] = s[i - 1] + s[i]\n}\n"))
        return;
    in[0] = random_f32(1, 30, 0, 0, 0);
    in[1] = random_f32(1, 30, 0, 0, 0);
    if (CALL("d", in, NULL, out) == 0) {
        for (int i = 0; i < 30; i++) {
            float t0 = F32(in[0], i) * 2.0f, s0;
            t0 = t0 + F32(in[1], i);
            s0 = t0 * 0.5f;
            float sp = 0.0f;
            if (i > 0) {
                float tp = F32(in[0], i - 1) * 2.0f;
                tp = tp + F32(in[1], i - 1);
                sp = tp * 0.5f;
            }
            bad += !same_f(F32(out[0], i), sp + s0);
        }
        CHECK(bad == 0);
        tl_tensor_unref(out[0]);
    }
    unref_all(in, 2);
}

/* f64 and i64 rows (their own fast loops), a reversed view (negative
 * strides), and a stage whose domain starts above 0 read through
 * clamp_edge. */
static void test_wide(void)
{
    TlTensor *in[3], *out[4], *base;
    TlSlice rev = {0, 0, 0, 0, 0, 0, -1};
    int bad = 0;

    if (LOAD("kernel w(a: f64[N], b: i64[N], c: f32[N]) -> (x: f64[N], "
             "y: i64[N], z: f32[N], d: f64[N]) {\n"
             "    x[i] = (a[i] * a[i] - 0.25) / (a[i] + 3.0)\n"
             "    d[i] = sum(k in 0..5) a[(i + k) % N] * a[k]\n"
             "    y[i] = b[i] * 3 + b[N - 1 - i] - 7\n"
             "    t[i] = c[i - 2] * 2.0\n"
             "    z[i] = t.clamp_edge[i]\n}\n"))
        return;
    in[0] = tensor(DT_F64, 1, 700, 0, 0, 0);
    in[1] = tensor(DT_I64, 1, 700, 0, 0, 0);
    for (int i = 0; i < 700; i++) {
        ((double *)in[0]->data)[i] = frand() * 1e3;
        ((int64_t *)in[1]->data)[i] = (int64_t)(frand() * 1e6) * (1LL << 40);
    }
    base = random_f32(1, 700, 0, 0, 0);
    in[2] = tl_tensor_slice(base, 1, &rev, NULL, 0);
    CHECK(in[2] && in[2]->strides[0] == -1);
    if (CALL("w", in, NULL, out) == 0) {
        const double *a = in[0]->data;
        const int64_t *b = in[1]->data;
        for (int i = 0; i < 700; i++) {
            double num = a[i] * a[i];
            int j = i < 2 ? 2 : i;      /* t's domain is 2..N+1 */
            num = num - 0.25;
            bad += ((double *)out[0]->data)[i] != num / (a[i] + 3.0);
            bad += I64(out[1], i) !=
                   (int64_t)((uint64_t)b[i] * 3 + (uint64_t)b[699 - i] - 7);
            bad += !same_f(F32(out[2], i), F32(base, 699 - (j - 2)) * 2.0f);
            double d = 0;
            for (int k = 0; k < 5; k++) {
                double p = a[(i + k) % 700] * a[k];
                d = k ? d + p : p;
            }
            bad += ((double *)out[3]->data)[i] != d;
        }
        CHECK(bad == 0);
        unref_all(out, 4);
    }
    unref_all(in, 3);
    tl_tensor_unref(base);
}

/* argmax of nothing in a branch that is never taken is no error. */
static void test_lazy_reduce(void)
{
    TlTensor *in[1], *out[1];

    if (LOAD("kernel lz(X: f32[N]; n: i32 = 0) -> (y: i64[N]) {\n"
             "    y[i] = select(X[i] > 5.0, argmax(k in 0..n) X[k], i64(i))"
             "\n}\n"))
        return;
    in[0] = random_f32(1, 300, 0, 0, 0);
    if (CALL("lz", in, NULL, out) == 0) {
        for (int i = 0; i < 300; i++)
            CHECK(I64(out[0], i) == i);
        tl_tensor_unref(out[0]);
    }
    ((float *)in[0]->data)[280] = 6.0f;
    CHECK(CALL("lz", in, NULL, out) == -1);
    EXPECT_ERR("note: while computing y[i=280]");
    tl_tensor_unref(in[0]);
}

/* Past the session's error cap, a run-time error must not longjmp out
 * of the interpreter. */
static jmp_buf cap_jump;

static void test_error_cap(void)
{
    static const int32_t idx[] = {5};
    TlTensor *in[2], *out[1];
    volatile int jumped = 0;

    if (LOAD("kernel g(a: f32[N], idx: i32[M]) -> (y: f32[M]) {\n"
             "    y[i] = a[idx[i]]\n}\n"))
        return;
    in[0] = random_f32(1, 4, 0, 0, 0);
    in[1] = from_i32(1, idx);
    S->max_errors = S->nerrors;
    if (setjmp(cap_jump)) {
        jumped = 1;
    } else {
        TlRuntime rt;
        TlLoc none = {-1, 0, 0, 0, 0};
        memset(&rt, 0, sizeof rt);
        rt.s = S;
        S->fatal = &cap_jump;
        CHECK(itp_call_kernel(&rt, kernel("g"), in, NULL, out, none) == -1);
        CHECK(S->fatal == &cap_jump);
    }
    S->fatal = NULL;
    CHECK(!jumped);
    unref_all(in, 2);
}

/* Tensor arguments of a top-level extern are checked before the call:
 * dtype, rank, and shape names that must agree. */
static void test_extern_args(void)
{
    TlRuntime rt;
    TlExternArg args[2];
    TlScalarArg res;
    TlLoc none = {-1, 0, 0, 0, 0};
    size_t from;

    if (LOAD("extern fn memcmp(a: u8[N], b: u8[N]) -> i32\n"))
        return;
    memset(&rt, 0, sizeof rt);
    rt.s = S;
    memset(args, 0, sizeof args);
    args[0].t = tensor(DT_U8, 1, 3, 0, 0, 0);
    args[1].t = tensor(DT_U8, 1, 4, 0, 0, 0);
    memcpy(args[0].t->data, "abc", 3);
    fflush(diag);
    from = diag_len;
    CHECK(itp_call_extern(&rt, extern_fn("memcmp"), args, &res, none) == -1);
    CHECK(strstr(diag_since(from), "t.tdsl:1:34: error: axis 0 of argument "
                                   "'b' of 'memcmp' has size 4 but must be "
                                   "N = 3 (from 'a' axis 0)") != NULL);
    tl_tensor_unref(args[1].t);
    args[1].t = tensor(DT_I8, 1, 3, 0, 0, 0);
    from = diag_len;
    CHECK(itp_call_extern(&rt, extern_fn("memcmp"), args, &res, none) == -1);
    CHECK(strstr(diag_since(from), "argument 'b' of 'memcmp' has dtype 'i8' "
                                   "but the parameter is 'u8'") != NULL);
    /* (Only refused calls: memcmp itself does not take extents.) */
    tl_tensor_unref(args[0].t);
    tl_tensor_unref(args[1].t);
}

int main(void)
{
    test_matmul();
    test_blur();
    test_integers();
    test_casts();
    test_half();
    test_reductions();
    test_select();
    test_gather_error();
    test_boundary();
    test_boundary_2d();
    test_wrapping_index();
    test_math();
    test_bool();
    test_compose();
    test_scalars();
    test_arg_errors();
    test_consts();
    test_rank0();
    test_externs();
    test_nested_error();
    test_domains();
    test_wide();
    test_lazy_reduce();
    test_error_cap();
    test_extern_args();
    unload();
    return check_done();
}
