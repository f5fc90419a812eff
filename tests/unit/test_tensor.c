/*
 * test_tensor.c - tensor values (lang/tensor.c): size checks, lifetime
 * of views, slicing against Python's semantics (the table below was
 * made with Python lists), element access and the cast rules, copies and
 * casts of strided views, and the printer against numpy's output.
 */
#include "lang/lang.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A tensor with elements v[0..] in row-major order (or 0, 1, 2, ...). */
static TlTensor *make(TlDType dt, int rank, const int64_t *shape,
                      const double *v)
{
    TlTensor *t = tl_tensor_new(dt, rank, shape, NULL, 0);
    int64_t n;
    if (!t) {
        fprintf(stderr, "tl_tensor_new failed\n");
        exit(1);
    }
    n = tl_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        tl_dt_store_f64(dt, (char *)t->data + i * dt_size(dt),
                        v ? v[i] : (double)i);
    return t;
}

/* ---- sizes ------------------------------------------------------- */

static void test_sizes(void)
{
    char err[200];
    int64_t s1[] = {2, 3}, s0[] = {4, 0, 5}, neg[] = {2, -1};
    int64_t ovf[] = {(int64_t)1 << 32, (int64_t)1 << 32};
    int64_t big[] = {(int64_t)1 << 20, (int64_t)1 << 20};
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    TlTensor *t;

    CHECK(tl_shape_nbytes(DT_F32, 2, s1, err, sizeof err) == 24);
    CHECK(tl_shape_nbytes(DT_F16, 0, NULL, err, sizeof err) == 2);
    CHECK(tl_shape_nbytes(DT_F64, 3, s0, err, sizeof err) == 0);
    CHECK(tl_shape_nbytes(DT_F32, 2, neg, err, sizeof err) == -1);
    CHECK_STR(err, "negative size -1 on axis 1");
    CHECK(tl_shape_nbytes(DT_I64, 2, ovf, err, sizeof err) == -1);
    CHECK_STR(err, "shape product overflows");
    CHECK(tl_shape_nbytes(DT_F32, 2, big, err, sizeof err) == -1);
    CHECK_STR(err, "4398046511104 bytes exceed the tensor size limit of "
                   "64 GiB");
    /* Empty, but the other axes would overflow the strides. */
    {
        int64_t empty_ovf[] = {0, (int64_t)1 << 62, 4};
        CHECK(tl_shape_nbytes(DT_F32, 3, empty_ovf, err, sizeof err) == -1);
        CHECK_STR(err, "the axes of this empty tensor are too large: "
                       "shape product overflows");
    }
    CHECK(tl_shape_nbytes(DT_U8, 9, nine, err, sizeof err) == -1);
    CHECK_STR(err, "rank 9 exceeds the maximum of 8");
    CHECK(!tl_tensor_new(DT_F32, 2, big, err, sizeof err));
    CHECK(!tl_tensor_new(DT_F32, 2, ovf, NULL, 0));
    /* a short error buffer is truncated, not overrun */
    CHECK(!tl_tensor_new(DT_F32, 2, neg, err, 5));
    CHECK_STR(err, "nega");

    t = tl_tensor_new(DT_F64, 2, s1, err, sizeof err);
    CHECK(t && t->rank == 2 && t->strides[0] == 3 && t->strides[1] == 1);
    CHECK(tl_tensor_numel(t) == 6 && tl_tensor_is_contiguous(t));
    for (int i = 0; i < 6; i++)
        CHECK(((double *)t->data)[i] == 0);
    tl_tensor_unref(t);
    t = tl_tensor_new(DT_I8, 3, s0, err, sizeof err);
    CHECK(t && tl_tensor_numel(t) == 0 && tl_tensor_is_contiguous(t));
    tl_tensor_unref(t);
    t = tl_tensor_new(DT_BOOL, 0, NULL, err, sizeof err);
    CHECK(t && tl_tensor_numel(t) == 1);
    tl_tensor_unref(t);
    tl_tensor_unref(NULL);
    /* Data on a 64-byte line, small or large (a large calloc is an mmap
     * with malloc's 16-byte header in front), and zeroed. */
    for (int64_t n = 1; n <= ((int64_t)1 << 24); n *= 64) {
        int64_t sh[1] = {n};
        t = tl_tensor_new(DT_F32, 1, sh, err, sizeof err);
        CHECK(t && ((uintptr_t)t->data & 63) == 0);
        CHECK(t && ((float *)t->data)[n - 1] == 0);
        tl_tensor_unref(t);
    }
}

/* ---- lifetime ------------------------------------------------------ */

static int released;

static void release(void *ctx)
{
    released += *(int *)ctx;
}

static void test_lifetime(void)
{
    int64_t shape[] = {3, 4}, idx[] = {1};
    float buf[12] = {0};
    int one = 1;
    TlSlice row = {1, 2, 0, 0, 0, 0, 1};
    TlTensor *t = make(DT_F32, 2, shape, NULL), *v, *w;

    /* a view keeps the storage after the base is dropped (ASan would
     * report a use after free otherwise) */
    v = tl_tensor_slice(t, 1, &row, NULL, 0);
    CHECK(tl_tensor_ref(t) == t && t->refs == 2);
    tl_tensor_unref(t);
    tl_tensor_unref(t);
    CHECK(v && v->rank == 1 && v->shape[0] == 4);
    CHECK(tl_tensor_get_f64(v, idx) == 9);
    tl_tensor_unref(v);

    /* wrapped memory is released once, by the last view */
    buf[5] = 42;
    t = tl_tensor_wrap(DT_F32, 2, shape, NULL, buf, release, &one);
    v = tl_tensor_slice(t, 1, &row, NULL, 0);
    w = tl_tensor_contiguous(v);       /* packed already: same tensor */
    CHECK(w == v && v->refs == 2);
    tl_tensor_unref(w);
    tl_tensor_unref(t);
    CHECK(released == 0);
    tl_tensor_unref(v);
    CHECK(released == 1);
    /* release NULL: the memory is the caller's */
    t = tl_tensor_wrap(DT_F32, 2, shape, NULL, buf, NULL, NULL);
    {
        int64_t ij[] = {1, 1};
        CHECK(tl_tensor_get_f64(t, ij) == 42);
    }
    tl_tensor_unref(t);
}

/* ---- slicing ------------------------------------------------------- */

/* "N LO HI STEP:expected indices" from Python: list(range(N))[LO:HI:STEP]
 * with N standing for a missing bound. */
static const char *const slice_cases[] = {
    "0 N N -2:", "0 N N -1:", "0 N N 1:", "0 N N 3:", "0 N -7 -2:",
    "0 N -7 -1:", "0 N -7 1:", "0 N -7 3:", "0 N -2 -2:", "0 N -2 -1:",
    "0 N -2 1:", "0 N -2 3:", "0 N 0 -2:", "0 N 0 -1:", "0 N 0 1:", "0 N 0 3:",
    "0 N 2 -2:", "0 N 2 -1:", "0 N 2 1:", "0 N 2 3:", "0 N 7 -2:", "0 N 7 -1:",
    "0 N 7 1:", "0 N 7 3:", "0 -7 N -2:", "0 -7 N -1:", "0 -7 N 1:",
    "0 -7 N 3:", "0 -7 -7 -2:", "0 -7 -7 -1:", "0 -7 -7 1:", "0 -7 -7 3:",
    "0 -7 -2 -2:", "0 -7 -2 -1:", "0 -7 -2 1:", "0 -7 -2 3:", "0 -7 0 -2:",
    "0 -7 0 -1:", "0 -7 0 1:", "0 -7 0 3:", "0 -7 2 -2:", "0 -7 2 -1:",
    "0 -7 2 1:", "0 -7 2 3:", "0 -7 7 -2:", "0 -7 7 -1:", "0 -7 7 1:",
    "0 -7 7 3:", "0 -2 N -2:", "0 -2 N -1:", "0 -2 N 1:", "0 -2 N 3:",
    "0 -2 -7 -2:", "0 -2 -7 -1:", "0 -2 -7 1:", "0 -2 -7 3:", "0 -2 -2 -2:",
    "0 -2 -2 -1:", "0 -2 -2 1:", "0 -2 -2 3:", "0 -2 0 -2:", "0 -2 0 -1:",
    "0 -2 0 1:", "0 -2 0 3:", "0 -2 2 -2:", "0 -2 2 -1:", "0 -2 2 1:",
    "0 -2 2 3:", "0 -2 7 -2:", "0 -2 7 -1:", "0 -2 7 1:", "0 -2 7 3:",
    "0 0 N -2:", "0 0 N -1:", "0 0 N 1:", "0 0 N 3:", "0 0 -7 -2:",
    "0 0 -7 -1:", "0 0 -7 1:", "0 0 -7 3:", "0 0 -2 -2:", "0 0 -2 -1:",
    "0 0 -2 1:", "0 0 -2 3:", "0 0 0 -2:", "0 0 0 -1:", "0 0 0 1:", "0 0 0 3:",
    "0 0 2 -2:", "0 0 2 -1:", "0 0 2 1:", "0 0 2 3:", "0 0 7 -2:", "0 0 7 -1:",
    "0 0 7 1:", "0 0 7 3:", "0 2 N -2:", "0 2 N -1:", "0 2 N 1:", "0 2 N 3:",
    "0 2 -7 -2:", "0 2 -7 -1:", "0 2 -7 1:", "0 2 -7 3:", "0 2 -2 -2:",
    "0 2 -2 -1:", "0 2 -2 1:", "0 2 -2 3:", "0 2 0 -2:", "0 2 0 -1:",
    "0 2 0 1:", "0 2 0 3:", "0 2 2 -2:", "0 2 2 -1:", "0 2 2 1:", "0 2 2 3:",
    "0 2 7 -2:", "0 2 7 -1:", "0 2 7 1:", "0 2 7 3:", "0 7 N -2:", "0 7 N -1:",
    "0 7 N 1:", "0 7 N 3:", "0 7 -7 -2:", "0 7 -7 -1:", "0 7 -7 1:",
    "0 7 -7 3:", "0 7 -2 -2:", "0 7 -2 -1:", "0 7 -2 1:", "0 7 -2 3:",
    "0 7 0 -2:", "0 7 0 -1:", "0 7 0 1:", "0 7 0 3:", "0 7 2 -2:", "0 7 2 -1:",
    "0 7 2 1:", "0 7 2 3:", "0 7 7 -2:", "0 7 7 -1:", "0 7 7 1:", "0 7 7 3:",
    "4 N N -2:3 1", "4 N N -1:3 2 1 0", "4 N N 1:0 1 2 3", "4 N N 3:0 3",
    "4 N -7 -2:3 1", "4 N -7 -1:3 2 1 0", "4 N -7 1:", "4 N -7 3:",
    "4 N -2 -2:3", "4 N -2 -1:3", "4 N -2 1:0 1", "4 N -2 3:0", "4 N 0 -2:3 1",
    "4 N 0 -1:3 2 1", "4 N 0 1:", "4 N 0 3:", "4 N 2 -2:3", "4 N 2 -1:3",
    "4 N 2 1:0 1", "4 N 2 3:0", "4 N 7 -2:", "4 N 7 -1:", "4 N 7 1:0 1 2 3",
    "4 N 7 3:0 3", "4 -7 N -2:", "4 -7 N -1:", "4 -7 N 1:0 1 2 3",
    "4 -7 N 3:0 3", "4 -7 -7 -2:", "4 -7 -7 -1:", "4 -7 -7 1:", "4 -7 -7 3:",
    "4 -7 -2 -2:", "4 -7 -2 -1:", "4 -7 -2 1:0 1", "4 -7 -2 3:0", "4 -7 0 -2:",
    "4 -7 0 -1:", "4 -7 0 1:", "4 -7 0 3:", "4 -7 2 -2:", "4 -7 2 -1:",
    "4 -7 2 1:0 1", "4 -7 2 3:0", "4 -7 7 -2:", "4 -7 7 -1:",
    "4 -7 7 1:0 1 2 3", "4 -7 7 3:0 3", "4 -2 N -2:2 0", "4 -2 N -1:2 1 0",
    "4 -2 N 1:2 3", "4 -2 N 3:2", "4 -2 -7 -2:2 0", "4 -2 -7 -1:2 1 0",
    "4 -2 -7 1:", "4 -2 -7 3:", "4 -2 -2 -2:", "4 -2 -2 -1:", "4 -2 -2 1:",
    "4 -2 -2 3:", "4 -2 0 -2:2", "4 -2 0 -1:2 1", "4 -2 0 1:", "4 -2 0 3:",
    "4 -2 2 -2:", "4 -2 2 -1:", "4 -2 2 1:", "4 -2 2 3:", "4 -2 7 -2:",
    "4 -2 7 -1:", "4 -2 7 1:2 3", "4 -2 7 3:2", "4 0 N -2:0", "4 0 N -1:0",
    "4 0 N 1:0 1 2 3", "4 0 N 3:0 3", "4 0 -7 -2:0", "4 0 -7 -1:0",
    "4 0 -7 1:", "4 0 -7 3:", "4 0 -2 -2:", "4 0 -2 -1:", "4 0 -2 1:0 1",
    "4 0 -2 3:0", "4 0 0 -2:", "4 0 0 -1:", "4 0 0 1:", "4 0 0 3:",
    "4 0 2 -2:", "4 0 2 -1:", "4 0 2 1:0 1", "4 0 2 3:0", "4 0 7 -2:",
    "4 0 7 -1:", "4 0 7 1:0 1 2 3", "4 0 7 3:0 3", "4 2 N -2:2 0",
    "4 2 N -1:2 1 0", "4 2 N 1:2 3", "4 2 N 3:2", "4 2 -7 -2:2 0",
    "4 2 -7 -1:2 1 0", "4 2 -7 1:", "4 2 -7 3:", "4 2 -2 -2:", "4 2 -2 -1:",
    "4 2 -2 1:", "4 2 -2 3:", "4 2 0 -2:2", "4 2 0 -1:2 1", "4 2 0 1:",
    "4 2 0 3:", "4 2 2 -2:", "4 2 2 -1:", "4 2 2 1:", "4 2 2 3:", "4 2 7 -2:",
    "4 2 7 -1:", "4 2 7 1:2 3", "4 2 7 3:2", "4 7 N -2:3 1",
    "4 7 N -1:3 2 1 0", "4 7 N 1:", "4 7 N 3:", "4 7 -7 -2:3 1",
    "4 7 -7 -1:3 2 1 0", "4 7 -7 1:", "4 7 -7 3:", "4 7 -2 -2:3",
    "4 7 -2 -1:3", "4 7 -2 1:", "4 7 -2 3:", "4 7 0 -2:3 1", "4 7 0 -1:3 2 1",
    "4 7 0 1:", "4 7 0 3:", "4 7 2 -2:3", "4 7 2 -1:3", "4 7 2 1:", "4 7 2 3:",
    "4 7 7 -2:", "4 7 7 -1:", "4 7 7 1:", "4 7 7 3:",
};

static int64_t parse_bound(const char **p, int *has)
{
    char *end;
    long long v;
    while (**p == ' ')
        (*p)++;
    if (**p == 'N') {
        (*p)++;
        *has = 0;
        return 0;
    }
    v = strtoll(*p, &end, 10);
    *p = end;
    *has = 1;
    return v;
}

static void test_slice_table(void)
{
    int n = (int)(sizeof slice_cases / sizeof *slice_cases);
    for (int c = 0; c < n; c++) {
        const char *p = slice_cases[c];
        int has;
        int64_t size = parse_bound(&p, &has);
        TlSlice s = {0, 0, 0, 0, 0, 0, 0};
        TlTensor *t, *v;
        char got[100] = "";
        size_t len = 0;

        s.lo = parse_bound(&p, &s.has_lo);
        s.hi = parse_bound(&p, &s.has_hi);
        s.step = parse_bound(&p, &has);
        p = strchr(p, ':') + 1;
        t = make(DT_I32, 1, &size, NULL);
        v = tl_tensor_slice(t, 1, &s, NULL, 0);
        CHECK(v != NULL);
        for (int64_t i = 0; v && i < v->shape[0]; i++)
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%lld",
                                    i ? " " : "",
                                    (long long)tl_tensor_get_i64(v, &i));
        if (strcmp(got, p)) {
            fprintf(stderr, "slice case '%s': got '%s'\n", slice_cases[c],
                    got);
            check_failed();
        }
        tl_tensor_unref(v);
        tl_tensor_unref(t);
    }
}

static void test_slice(void)
{
    char err[200];
    int64_t shape[] = {3, 4, 5};
    TlTensor *t = make(DT_I64, 3, shape, NULL), *v, *w, *c;
    /* t[0:2, 1] (the axis 2 kept whole) */
    TlSlice a[] = {{0, 0, 1, 1, 0, 2, 1}, {1, 1, 0, 0, 0, 0, 1}};
    /* then [::-1, -1] of that */
    TlSlice b[] = {{0, 0, 0, 0, 0, 0, -1}, {1, -1, 0, 0, 0, 0, 1}};
    TlSlice bad[] = {{1, 3, 0, 0, 0, 0, 1}};
    TlSlice badneg[] = {{1, -4, 0, 0, 0, 0, 1}};
    TlSlice zero[] = {{0, 0, 0, 0, 0, 0, 0}};
    TlSlice four[4] = {{0, 0, 0, 0, 0, 0, 1}};

    v = tl_tensor_slice(t, 2, a, err, sizeof err);
    CHECK(v && v->rank == 2 && v->shape[0] == 2 && v->shape[1] == 5);
    CHECK(v->strides[0] == 20 && v->strides[1] == 1);
    CHECK(v->storage == t->storage);
    {
        int64_t ij[] = {1, 3};
        CHECK(tl_tensor_get_i64(v, ij) == 20 + 5 + 3);
    }
    w = tl_tensor_slice(v, 2, b, err, sizeof err);
    CHECK(w && w->rank == 1 && w->shape[0] == 2 && w->strides[0] == -20);
    {
        int64_t i0 = 0, i1 = 1;
        CHECK(tl_tensor_get_i64(w, &i0) == 29);
        CHECK(tl_tensor_get_i64(w, &i1) == 9);
    }
    CHECK(!tl_tensor_is_contiguous(w));
    c = tl_tensor_contiguous(w);
    CHECK(c != w && tl_tensor_is_contiguous(c) && c->strides[0] == 1);
    CHECK(((int64_t *)c->data)[0] == 29 && ((int64_t *)c->data)[1] == 9);
    tl_tensor_unref(c);
    tl_tensor_unref(w);
    tl_tensor_unref(v);

    CHECK(!tl_tensor_slice(t, 1, bad, err, sizeof err));
    CHECK_STR(err, "index 3 out of range for axis 0 of size 3");
    CHECK(!tl_tensor_slice(t, 1, badneg, err, sizeof err));
    CHECK_STR(err, "index -4 out of range for axis 0 of size 3");
    CHECK(!tl_tensor_slice(t, 1, zero, err, sizeof err));
    CHECK_STR(err, "slice step cannot be zero");
    CHECK(!tl_tensor_slice(t, 4, four, err, sizeof err));
    CHECK_STR(err, "4 indices for a tensor of rank 3");
    /* indices only: a rank-0 view */
    {
        TlSlice s[] = {{1, -1, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0, 1},
                       {1, 2, 0, 0, 0, 0, 1}};
        v = tl_tensor_slice(t, 3, s, err, sizeof err);
        CHECK(v && v->rank == 0 && tl_tensor_get_i64(v, NULL) == 42);
        tl_tensor_unref(v);
    }
    /* a huge step leaves one element and no overflowing stride */
    {
        TlSlice s[] = {{0, 0, 0, 0, 0, 0, INT64_MAX},
                       {0, 0, 0, 0, 0, 0, INT64_MIN}};
        v = tl_tensor_slice(t, 2, s, err, sizeof err);
        CHECK(v && v->shape[0] == 1 && v->shape[1] == 1);
        CHECK(v && tl_tensor_get_i64(v, (int64_t[]){0, 0, 0}) == 15);
        tl_tensor_unref(v);
    }
    tl_tensor_unref(t);
}

/* ---- casts --------------------------------------------------------- */

static int64_t via_f64(TlDType dt, double v)
{
    unsigned char b[8];
    tl_dt_store_f64(dt, b, v);
    return tl_dt_load_i64(dt, b);
}

static int64_t via_i64(TlDType dt, int64_t v)
{
    unsigned char b[8];
    tl_dt_store_i64(dt, b, v);
    return tl_dt_load_i64(dt, b);
}

static double f_via_f64(TlDType dt, double v)
{
    unsigned char b[8];
    tl_dt_store_f64(dt, b, v);
    return tl_dt_load_f64(dt, b);
}

static void test_casts(void)
{
    int64_t shape[] = {2, 3};
    TlTensor *t, *v, *c;
    TlSlice col = {0, 0, 0, 0, 0, 0, -2};
    TlSlice all = {0, 0, 0, 0, 0, 0, 1};
    TlSlice sl[2];

    /* float -> int: truncate, saturate, NaN -> 0 */
    CHECK(via_f64(DT_I32, 3.7) == 3);
    CHECK(via_f64(DT_I32, -3.7) == -3);
    CHECK(via_f64(DT_I32, 3e9) == INT32_MAX);
    CHECK(via_f64(DT_I32, -3e9) == INT32_MIN);
    CHECK(via_f64(DT_I32, 2147483647.9) == INT32_MAX);
    CHECK(via_f64(DT_I32, -2147483648.9) == INT32_MIN);
    CHECK(via_f64(DT_U8, 300.0) == 255);
    CHECK(via_f64(DT_U8, -1.0) == 0);
    CHECK(via_f64(DT_U8, -0.9) == 0);
    CHECK(via_f64(DT_I8, -128.5) == -128);
    CHECK(via_f64(DT_I16, NAN) == 0);
    CHECK(via_f64(DT_I64, NAN) == 0);
    CHECK(via_f64(DT_I64, 1e20) == INT64_MAX);
    CHECK(via_f64(DT_I64, 0x1p63) == INT64_MAX);
    CHECK(via_f64(DT_I64, -0x1p63) == INT64_MIN);
    CHECK(via_f64(DT_I64, -INFINITY) == INT64_MIN);
    CHECK(via_f64(DT_I64, 0x1.fffffffffffffp62) ==
          (int64_t)0x1.fffffffffffffp62);
    CHECK(tl_f64_to_int(DT_U8, INFINITY) == 255);
    /* int -> int wraps */
    CHECK(via_i64(DT_U8, 300) == 44);
    CHECK(via_i64(DT_U8, -1) == 255);
    CHECK(via_i64(DT_I8, 128) == -128);
    CHECK(via_i64(DT_I16, 70000) == 4464);
    CHECK(via_i64(DT_I32, (int64_t)1 << 32 | 5) == 5);
    /* -> bool: nonzero, NaN included */
    CHECK(via_f64(DT_BOOL, 0.5) == 1);
    CHECK(via_f64(DT_BOOL, -0.0) == 0);
    CHECK(via_f64(DT_BOOL, NAN) == 1);
    CHECK(via_i64(DT_BOOL, 256) == 1);
    /* -> floats: rounding, overflow to inf */
    CHECK(f_via_f64(DT_F16, 65520) == INFINITY);
    CHECK(f_via_f64(DT_F16, 0.1) == (double)tl_f16_to_f32(0x2e66));
    CHECK(f_via_f64(DT_BF16, 1.0 / 3) == (double)tl_bf16_to_f32(0x3eab));
    CHECK(f_via_f64(DT_F32, 1e300) == INFINITY);
    CHECK(isnan(f_via_f64(DT_F32, NAN)));
    {
        unsigned char b[8];
        int64_t big = ((int64_t)1 << 53) + 1;
        tl_dt_store_i64(DT_F64, b, big);
        CHECK(tl_dt_load_f64(DT_F64, b) == 0x1p53);
        tl_dt_store_i64(DT_F32, b, ((int64_t)1 << 24) + 1);
        CHECK(tl_dt_load_f64(DT_F32, b) == 0x1p24);
        CHECK(tl_dt_load_i64(DT_F32, b) == (int64_t)1 << 24);
        tl_dt_store_f64(DT_F16, b, 2.5);
        CHECK(tl_dt_load_i64(DT_F16, b) == 2);
        b[0] = 7;       /* bool storage other than 0/1 still reads 1 */
        CHECK(tl_dt_load_i64(DT_BOOL, b) == 1);
        CHECK(tl_dt_load_f64(DT_BOOL, b) == 1.0);
    }

    /* whole tensors: cast a strided view (columns reversed by 2) */
    t = make(DT_F32, 2, shape, (double[]){1.5, -2.5, 300, NAN, -1e10, 7});
    sl[0] = all;
    sl[1] = col;
    v = tl_tensor_slice(t, 2, sl, NULL, 0);
    CHECK(v && v->shape[1] == 2);
    c = tl_tensor_cast(v, DT_I8);
    CHECK(c->dtype == DT_I8 && tl_tensor_equal_shape(c, v));
    CHECK(tl_tensor_is_contiguous(c));
    {
        int8_t *d = c->data;
        CHECK(d[0] == 127 && d[1] == 1 && d[2] == 7 && d[3] == 0);
    }
    tl_tensor_unref(c);
    c = tl_tensor_cast(v, DT_F32);
    CHECK(c != v && ((float *)c->data)[2] == 7);
    tl_tensor_unref(c);
    c = tl_tensor_copy(t);
    tl_tensor_set_f64(c, (int64_t[]){1, 2}, 8);
    CHECK(tl_tensor_get_f64(c, (int64_t[]){1, 2}) == 8);
    CHECK(tl_tensor_get_f64(t, (int64_t[]){1, 2}) == 7);
    tl_tensor_set_i64(c, (int64_t[]){0, 0}, -3);
    CHECK(tl_tensor_get_i64(c, (int64_t[]){0, 0}) == -3);
    CHECK(tl_tensor_get_i64(c, (int64_t[]){1, 0}) == 0);   /* NaN */
    tl_tensor_unref(c);
    c = tl_tensor_cast(v, DT_BOOL);
    CHECK(((uint8_t *)c->data)[1] == 1);
    tl_tensor_unref(c);
    tl_tensor_unref(v);
    /* ints cast exactly through i64 */
    {
        int64_t n = 2;
        TlTensor *i = tl_tensor_new(DT_I64, 1, &n, NULL, 0);
        ((int64_t *)i->data)[0] = INT64_MAX;
        ((int64_t *)i->data)[1] = -5;
        c = tl_tensor_cast(i, DT_F64);
        CHECK(((double *)c->data)[0] == 0x1p63);
        CHECK(((double *)c->data)[1] == -5);
        tl_tensor_unref(c);
        c = tl_tensor_cast(i, DT_U8);
        CHECK(((uint8_t *)c->data)[0] == 255 && ((uint8_t *)c->data)[1]
              == 251);
        tl_tensor_unref(c);
        tl_tensor_unref(i);
    }
    tl_tensor_unref(t);
    {
        int64_t a[] = {2, 3}, b2[] = {3, 2};
        TlTensor *x = make(DT_F32, 2, a, NULL);
        TlTensor *y = make(DT_I8, 2, a, NULL);
        TlTensor *z = make(DT_F32, 2, b2, NULL);
        CHECK(tl_tensor_equal_shape(x, y));
        CHECK(!tl_tensor_equal_shape(x, z));
        tl_tensor_unref(x);
        tl_tensor_unref(y);
        tl_tensor_unref(z);
    }
}

/* ---- printing ------------------------------------------------------ */

static void expect_print(TlTensor *t, const TlPrintOpts *o,
                         const char *want, int line)
{
    TlBuf b;
    buf_init(&b);
    tl_tensor_print(&b, t, o);
    check_str_at(__FILE__, line, b.s, want);
    buf_free(&b);
    tl_tensor_unref(t);
}

#define PRINTS(t, want) expect_print(t, NULL, want, __LINE__)

/* The expected texts are numpy 1.24's print() of the same arrays, with
 * our header line and true/false for booleans. */
/* The language's integer / and %: floor, the divisor's sign, never UB. */
static void test_floor_div(void)
{
    CHECK(tl_floor_div(7, 2) == 3 && tl_floor_mod(7, 2) == 1);
    CHECK(tl_floor_div(-7, 2) == -4 && tl_floor_mod(-7, 2) == 1);
    CHECK(tl_floor_div(7, -2) == -4 && tl_floor_mod(7, -2) == -1);
    CHECK(tl_floor_div(-7, -2) == 3 && tl_floor_mod(-7, -2) == -1);
    CHECK(tl_floor_div(-6, 3) == -2 && tl_floor_mod(-6, 3) == 0);
    CHECK(tl_floor_div(5, 0) == 0 && tl_floor_mod(5, 0) == 0);
    CHECK(tl_floor_div(INT64_MIN, -1) == INT64_MIN);
    CHECK(tl_floor_mod(INT64_MIN, -1) == 0);
    CHECK(tl_floor_div(INT64_MIN, 2) == INT64_MIN / 2);
}

/* The hash tdsl import records of bound data: equal for equal data
 * (a view and its packed copy too), different for another element, a
 * transposed shape or another dtype of the same bytes. */
static void test_hash(void)
{
    int64_t s23[] = {2, 3}, s32[] = {3, 2};
    TlTensor *a = tl_tensor_new(DT_F32, 2, s23, NULL, 0);
    TlTensor *b = tl_tensor_new(DT_F32, 2, s32, NULL, 0);
    TlTensor *c = tl_tensor_new(DT_I32, 2, s23, NULL, 0);
    TlTensor *v, *p;
    int perm[] = {1, 0};
    uint64_t h;

    for (int i = 0; i < 6; i++)
        ((float *)a->data)[i] = (float)i;
    h = tl_tensor_hash(a);
    CHECK(h != 0);
    p = tl_tensor_copy(a);
    CHECK(tl_tensor_hash(p) == h);
    ((float *)p->data)[5] = 6.0f;
    CHECK(tl_tensor_hash(p) != h);
    memcpy(b->data, a->data, 6 * sizeof(float));
    CHECK(tl_tensor_hash(b) != h);
    memcpy(c->data, a->data, 6 * sizeof(float));
    CHECK(tl_tensor_hash(c) != h);
    tl_tensor_unref(p);
    v = tl_tensor_permute(b, perm);
    p = tl_tensor_copy(v);
    CHECK(v && tl_tensor_hash(v) == tl_tensor_hash(p));
    tl_tensor_unref(v);
    tl_tensor_unref(p);
    tl_tensor_unref(a);
    tl_tensor_unref(b);
    tl_tensor_unref(c);
}

static void test_print(void)
{
    int64_t s23[] = {2, 3}, s4[] = {4}, s222[] = {2, 2, 2};
    int64_t s2000[] = {2000}, s4050[] = {40, 50}, s20[] = {2, 0};
    int64_t s30[] = {30}, s2[] = {2}, s9[] = {9}, s3152[] = {3, 1, 5, 2};

    PRINTS(make(DT_I32, 2, s23, NULL), "i32[2, 3]\n[[0 1 2]\n [3 4 5]]");
    PRINTS(make(DT_F32, 2, s23, (double[]){1, 2.5, -3, 0.25, 4, 1}),
           "f32[2, 3]\n[[ 1.    2.5  -3.  ]\n [ 0.25  4.    1.  ]]");
    PRINTS(make(DT_F32, 1, s4, (double[]){1.5e8, 2e-5, 0, -1}),
           "f32[4]\n[ 1.5e+08  2.0e-05  0.0e+00 -1.0e+00]");
    PRINTS(make(DT_F64, 1, s4, (double[]){NAN, INFINITY, -INFINITY, 0.1}),
           "f64[4]\n[ nan  inf -inf  0.1]");
    PRINTS(make(DT_F32, 1, s4, (double[]){1.0 / 3, 2, 0.1, -0.0}),
           "f32[4]\n[ 0.33333334  2.          0.1        -0.        ]");
    PRINTS(make(DT_F64, 1, s4, (double[]){1.0 / 3, 2, 0.1, -0.0}),
           "f64[4]\n[ 0.33333333  2.          0.1        -0.        ]");
    PRINTS(make(DT_F16, 1, s4, (double[]){1.0 / 3, 2, 0.1, 65504}),
           "f16[4]\n[3.333e-01 2.000e+00 9.998e-02 6.550e+04]");
    PRINTS(make(DT_F16, 1, s2, (double[]){0.1, 65504}),
           "f16[2]\n[1.00e-01 6.55e+04]");
    PRINTS(make(DT_BF16, 1, s2, (double[]){0.1, 1.0 / 3}),
           "bf16[2]\n[0.1   0.334]");
    PRINTS(make(DT_F64, 1, s2, (double[]){1e-5, 1}),
           "f64[2]\n[1.e-05 1.e+00]");
    PRINTS(make(DT_F64, 1, s2, (double[]){123456.7, 1}),
           "f64[2]\n[1.234567e+05 1.000000e+00]");
    PRINTS(make(DT_F64, 1, s2, (double[]){1.000000001, 2}),
           "f64[2]\n[1. 2.]");
    PRINTS(make(DT_BOOL, 1, s4, (double[]){1, 0, 1, 1}),
           "bool[4]\n[ true false  true  true]");
    PRINTS(make(DT_BOOL, 1, s2, (double[]){1, 1}), "bool[2]\n[true true]");
    PRINTS(make(DT_F32, 0, NULL, (double[]){3}), "f32[] 3.0");
    PRINTS(make(DT_F32, 0, NULL, (double[]){0.125}), "f32[] 0.125");
    PRINTS(make(DT_F64, 0, NULL, (double[]){1e-9}), "f64[] 1.e-09");
    PRINTS(make(DT_I64, 0, NULL, (double[]){-7}), "i64[] -7");
    PRINTS(make(DT_U8, 1, s4, (double[]){255, 0, 7, 10}),
           "u8[4]\n[255   0   7  10]");
    PRINTS(make(DT_I8, 3, s222, NULL),
           "i8[2, 2, 2]\n[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
    PRINTS(make(DT_I32, 1, s2000, NULL),
           "i32[2000]\n[   0    1    2 ... 1997 1998 1999]");
    PRINTS(make(DT_F32, 2, s4050, NULL),
           "f32[40, 50]\n"
           "[[0.000e+00 1.000e+00 2.000e+00 ... 4.700e+01 4.800e+01 "
           "4.900e+01]\n"
           " [5.000e+01 5.100e+01 5.200e+01 ... 9.700e+01 9.800e+01 "
           "9.900e+01]\n"
           " [1.000e+02 1.010e+02 1.020e+02 ... 1.470e+02 1.480e+02 "
           "1.490e+02]\n"
           " ...\n"
           " [1.850e+03 1.851e+03 1.852e+03 ... 1.897e+03 1.898e+03 "
           "1.899e+03]\n"
           " [1.900e+03 1.901e+03 1.902e+03 ... 1.947e+03 1.948e+03 "
           "1.949e+03]\n"
           " [1.950e+03 1.951e+03 1.952e+03 ... 1.997e+03 1.998e+03 "
           "1.999e+03]]");
    PRINTS(make(DT_F32, 2, s20, NULL), "f32[2, 0]\n[[]\n []]");
    PRINTS(make(DT_F64, 1, s30, NULL),
           "f64[30]\n"
           "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. "
           "15. 16. 17.\n"
           " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
    /* numpy with threshold=10, edgeitems=1 */
    {
        TlPrintOpts o = {1, 10, 1, 75};
        expect_print(make(DT_I16, 4, s3152, NULL), &o,
                     "i16[3, 1, 5, 2]\n"
                     "[[[[ 0  1]\n   ...\n   [ 8  9]]]\n\n\n"
                     " ...\n\n\n"
                     " [[[20 21]\n   ...\n   [28 29]]]]", __LINE__);
    }
    /* options: no header, a lower threshold, one edge item */
    {
        TlPrintOpts o = {0, 4, 1, 75};
        expect_print(make(DT_I32, 1, s9, NULL), &o, "[0 ... 8]",
                     __LINE__);
        expect_print(make(DT_F32, 0, NULL, (double[]){2.5}), &o, "2.5",
                     __LINE__);
    }
    /* a view prints its own elements */
    {
        TlTensor *t = make(DT_I32, 2, s23, NULL), *v;
        TlSlice s[] = {{0, 0, 0, 0, 0, 0, -1}, {1, 1, 0, 0, 0, 0, 1}};
        v = tl_tensor_slice(t, 2, s, NULL, 0);
        PRINTS(v, "i32[2]\n[4 1]");
        tl_tensor_unref(t);
    }
    /* printing appends to what the buffer holds; columns count from the
     * start of the current line */
    {
        TlBuf b;
        TlTensor *t = make(DT_I32, 1, s30, NULL);
        TlPrintOpts o = {0, 1000, 3, 20};
        buf_init(&b);
        buf_puts(&b, "x\ny = ");
        tl_tensor_print(&b, t, &o);
        CHECK_STR(b.s, "x\ny = [ 0  1  2  3  4\n  5  6  7  8  9 10\n"
                       " 11 12 13 14 15 16\n 17 18 19 20 21 22\n"
                       " 23 24 25 26 27 28\n 29]");
        buf_free(&b);
        tl_tensor_unref(t);
    }
}

int main(void)
{
    test_sizes();
    test_lifetime();
    test_slice_table();
    test_slice();
    test_casts();
    test_floor_div();
    test_hash();
    test_print();
    if (check_done())
        return 1;
    printf("test_tensor: ok\n");
    return 0;
}
