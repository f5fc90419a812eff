/*
 * tensor.c - tensor values: refcounted storage shared by views, shape
 * checks that refuse absurd sizes with an error, slicing, element access
 * and the language's scalar casts, whole-tensor copies and casts, and the
 * numpy-style printer.
 *
 * Tensors live outside any arena (STYLE.md rule 7): the interpreter, the
 * REPL and embedding programs hold them across compilations.  Storage
 * for a user-sized tensor is the one allocation that does not go
 * through tl_xmalloc: a shape from a program or a file must give an
 * error, not an abort, when memory cannot be had.
 */
#include "lang/lang.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { TL_TENSOR_ALIGN = 64 };

struct TlStorage {
    int refs;
    void *mem;
    int owned;                    /* mem came from calloc: free() it */
    void (*release)(void *ctx);   /* tl_tensor_wrap's, may be NULL */
    void *ctx;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    TL_PRINTF(3, 4);

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ====================================================================
 * Making and dropping tensors
 * ==================================================================== */

int64_t tl_shape_nbytes(TlDType dt, int rank, const int64_t *shape,
                        char *err, size_t errlen)
{
    int64_t n = dt_size(dt);
    int zero = 0;

    TL_ASSERT(n > 0);
    if (rank < 0 || rank > TL_MAX_RANK) {
        seterr(err, errlen, "rank %d exceeds the maximum of %d", rank,
               TL_MAX_RANK);
        return -1;
    }
    for (int i = 0; i < rank; i++) {
        if (shape[i] < 0) {
            seterr(err, errlen, "negative size %lld on axis %d",
                   (long long)shape[i], i);
            return -1;
        }
        if (shape[i] == 0)
            zero = 1;
    }
    /* Multiply with an overflow check; the limit keeps every later
     * offset computation (index * stride * size) far from overflow.
     * An empty tensor still gets strides from its other axes, so they
     * must pass the same check: [0, 2^62, 4] is refused, not 0 bytes. */
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 0)
            continue;
        if (n > INT64_MAX / shape[i]) {
            seterr(err, errlen, "%sshape product overflows",
                   zero ? "the axes of this empty tensor are too large: "
                        : "");
            return -1;
        }
        n *= shape[i];
    }
    if (n > TL_TENSOR_MAX_BYTES) {
        seterr(err, errlen,
               "%s%lld bytes exceed the tensor size limit of %lld GiB",
               zero ? "the axes of this empty tensor are too large: " : "",
               (long long)n, (long long)(TL_TENSOR_MAX_BYTES >> 30));
        return -1;
    }
    if (zero)
        return 0;
    return n;
}

static void set_packed_strides(TlTensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        t->strides[i] = s;
        s *= t->shape[i];
    }
}

static TlTensor *tensor_shell(TlDType dt, int rank, const int64_t *shape)
{
    TlTensor *t = tl_xcalloc(1, sizeof *t);
    TL_ASSERT(rank >= 0 && rank <= TL_MAX_RANK);
    t->refs = 1;
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    return t;
}

TlTensor *tl_tensor_new(TlDType dt, int rank, const int64_t *shape,
                        char *err, size_t errlen)
{
    int64_t nbytes = tl_shape_nbytes(dt, rank, shape, err, errlen);
    void *mem;
    TlTensor *t;

    if (nbytes < 0)
        return NULL;
    /* The data start on a cache line (TL_TENSOR_ALIGN bytes): a large
     * calloc is an mmap whose first 16 bytes are malloc's header, and a
     * 64-byte vector load or store of every row then straddled two
     * lines (softmax 4096x1024 in `make bench`: 10-15% slower than the
     * same kernel on aligned rows; Halide's buffers are aligned).
     * calloc, not aligned_alloc and memset, keeps the pages untouched
     * until they are written. */
    mem = calloc((size_t)nbytes + TL_TENSOR_ALIGN, 1);
    if (!mem) {
        seterr(err, errlen, "out of memory for a tensor of %lld bytes",
               (long long)nbytes);
        return NULL;
    }
    t = tensor_shell(dt, rank, shape);
    set_packed_strides(t);
    t->storage = tl_xcalloc(1, sizeof *t->storage);
    t->storage->refs = 1;
    t->storage->mem = mem;
    t->storage->owned = 1;
    t->data = (char *)mem + (-(uintptr_t)mem & (TL_TENSOR_ALIGN - 1));
    return t;
}

TlTensor *tl_tensor_wrap(TlDType dt, int rank, const int64_t *shape,
                         const int64_t *strides, void *data,
                         void (*release)(void *ctx), void *ctx)
{
    TlTensor *t = tensor_shell(dt, rank, shape);
    if (strides)
        for (int i = 0; i < rank; i++)
            t->strides[i] = strides[i];
    else
        set_packed_strides(t);
    t->storage = tl_xcalloc(1, sizeof *t->storage);
    t->storage->refs = 1;
    t->storage->mem = data;
    t->storage->release = release;
    t->storage->ctx = ctx;
    t->data = data;
    return t;
}

TlTensor *tl_tensor_ref(TlTensor *t)
{
    TL_ASSERT(t->refs > 0);
    t->refs++;
    return t;
}

static void storage_unref(TlStorage *s)
{
    if (--s->refs > 0)
        return;
    if (s->owned)
        free(s->mem);
    else if (s->release)
        s->release(s->ctx);
    free(s);
}

void tl_tensor_unref(TlTensor *t)
{
    if (!t)
        return;
    TL_ASSERT(t->refs > 0);
    if (--t->refs > 0)
        return;
    storage_unref(t->storage);
    free(t);
}

/* ====================================================================
 * Shape queries
 * ==================================================================== */

int64_t tl_tensor_numel(const TlTensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

int tl_tensor_equal_shape(const TlTensor *a, const TlTensor *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

int tl_tensor_is_contiguous(const TlTensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        if (t->shape[i] == 0)
            return 1;
        if (t->shape[i] != 1 && t->strides[i] != s)
            return 0;
        s *= t->shape[i];
    }
    return 1;
}

/* ====================================================================
 * Scalar conversions: the language's casts
 * ==================================================================== */

int64_t tl_f64_to_int(TlDType dt, double v)
{
    int64_t lo, hi;

    switch (dt) {
    case DT_BOOL: return v != 0;
    case DT_U8: lo = 0; hi = UINT8_MAX; break;
    case DT_U16: lo = 0; hi = UINT16_MAX; break;
    case DT_U32: lo = 0; hi = UINT32_MAX; break;
    case DT_U64:
        /* Held as the bits of the unsigned value; 2^64 is the first
         * double above the range. */
        if (isnan(v) || v <= 0)
            return 0;
        if (v >= 0x1p64)
            return (int64_t)UINT64_MAX;
        return (int64_t)(uint64_t)v;
    case DT_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case DT_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case DT_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case DT_I64:
        /* 2^63 is the first double above the range; -2^63 is exact. */
        if (isnan(v))
            return 0;
        if (v >= 0x1p63)
            return INT64_MAX;
        if (v <= -0x1p63)
            return INT64_MIN;
        return (int64_t)v;
    default: tl_unreachable();
    }
    if (isnan(v))
        return 0;
    if (v >= (double)hi)
        return hi;
    if (v <= (double)lo)
        return lo;
    return (int64_t)v;
}

double tl_dt_load_f64(TlDType dt, const void *p)
{
    switch (dt) {
    case DT_BOOL: case DT_U8: { uint8_t v; memcpy(&v, p, 1);
        return dt == DT_BOOL ? v != 0 : v; }
    case DT_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case DT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case DT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case DT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case DT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case DT_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case DT_F16: { uint16_t v; memcpy(&v, p, 2); return tl_f16_to_f32(v); }
    case DT_BF16: { uint16_t v; memcpy(&v, p, 2);
        return tl_bf16_to_f32(v); }
    case DT_F32: { float v; memcpy(&v, p, 4); return v; }
    case DT_F64: { double v; memcpy(&v, p, 8); return v; }
    default: tl_unreachable();
    }
}

int64_t tl_dt_load_i64(TlDType dt, const void *p)
{
    switch (dt) {
    case DT_BOOL: case DT_U8: { uint8_t v; memcpy(&v, p, 1);
        return dt == DT_BOOL ? v != 0 : v; }
    case DT_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case DT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case DT_I64: case DT_U64: { int64_t v; memcpy(&v, p, 8); return v; }
    case DT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case DT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: return tl_f64_to_int(DT_I64, tl_dt_load_f64(dt, p));
    }
}

/* Integers keep their low bits: converting to the unsigned type of the
 * same width is defined modulo 2^N, and the stored bytes are those of
 * the signed value in two's complement. */
static void store_int_bits(TlDType dt, void *p, uint64_t u)
{
    switch (dt) {
    case DT_U8: case DT_I8: { uint8_t v = (uint8_t)u; memcpy(p, &v, 1);
        break; }
    case DT_I16: case DT_U16: { uint16_t v = (uint16_t)u; memcpy(p, &v, 2);
        break; }
    case DT_I32: case DT_U32: { uint32_t v = (uint32_t)u; memcpy(p, &v, 4);
        break; }
    case DT_I64: case DT_U64: memcpy(p, &u, 8); break;
    default: tl_unreachable();
    }
}

void tl_dt_store_f64(TlDType dt, void *p, double v)
{
    switch (dt) {
    case DT_BOOL: { uint8_t b = v != 0; memcpy(p, &b, 1); break; }
    case DT_F16: { uint16_t h = tl_f64_to_f16(v); memcpy(p, &h, 2);
        break; }
    case DT_BF16: { uint16_t h = tl_f64_to_bf16(v); memcpy(p, &h, 2);
        break; }
    case DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case DT_F64: memcpy(p, &v, 8); break;
    default: store_int_bits(dt, p, (uint64_t)tl_f64_to_int(dt, v));
    }
}

void tl_dt_store_i64(TlDType dt, void *p, int64_t v)
{
    switch (dt) {
    case DT_BOOL: { uint8_t b = v != 0; memcpy(p, &b, 1); break; }
    case DT_F16: { uint16_t h = tl_i64_to_f16(v); memcpy(p, &h, 2);
        break; }
    case DT_BF16: { uint16_t h = tl_i64_to_bf16(v); memcpy(p, &h, 2);
        break; }
    case DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case DT_F64: { double d = (double)v; memcpy(p, &d, 8); break; }
    default: store_int_bits(dt, p, (uint64_t)v);
    }
}

void tl_dt_store_u64(TlDType dt, void *p, uint64_t v)
{
    uint16_t h;

    if (v <= INT64_MAX || dt_is_int(dt) || dt == DT_BOOL) {
        tl_dt_store_i64(dt, p, (int64_t)v);
        return;
    }
    switch (dt) {
    case DT_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case DT_F64: { double d = (double)v; memcpy(p, &d, 8); break; }
    default:
        /* Half the value with the lost bit kept sticky rounds as the
         * whole would; doubling is then exact (or inf for f16, whose
         * range ends far below 2^63 anyway). */
        h = dt == DT_F16 ? tl_i64_to_f16((int64_t)((v >> 1) | (v & 1)))
                         : tl_i64_to_bf16((int64_t)((v >> 1) | (v & 1)));
        tl_dt_store_f64(dt, p, 2.0 * (dt == DT_F16 ? tl_f16_to_f32(h)
                                                   : tl_bf16_to_f32(h)));
    }
}

/* ====================================================================
 * Element access
 * ==================================================================== */

void *tl_tensor_at(const TlTensor *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < t->rank; i++) {
        TL_ASSERT(idx[i] >= 0 && idx[i] < t->shape[i]);
        off += idx[i] * t->strides[i];
    }
    return (char *)t->data + off * dt_size(t->dtype);
}

double tl_tensor_get_f64(const TlTensor *t, const int64_t *idx)
{
    return tl_dt_load_f64(t->dtype, tl_tensor_at(t, idx));
}

int64_t tl_tensor_get_i64(const TlTensor *t, const int64_t *idx)
{
    return tl_dt_load_i64(t->dtype, tl_tensor_at(t, idx));
}

void tl_tensor_set_f64(TlTensor *t, const int64_t *idx, double v)
{
    tl_dt_store_f64(t->dtype, tl_tensor_at(t, idx), v);
}

void tl_tensor_set_i64(TlTensor *t, const int64_t *idx, int64_t v)
{
    tl_dt_store_i64(t->dtype, tl_tensor_at(t, idx), v);
}

/* ====================================================================
 * Copies and casts: a walk over rows (the last axis) of a strided
 * tensor into a packed one
 * ==================================================================== */

typedef void RowFn(TlDType from, const char *src, int64_t stride,
                   TlDType to, char *dst, int64_t n);

static void copy_row(TlDType from, const char *src, int64_t stride,
                     TlDType to, char *dst, int64_t n)
{
    int es = dt_size(from);
    (void)to;
    if (stride == es) {
        memcpy(dst, src, (size_t)(n * es));
        return;
    }
    for (int64_t i = 0; i < n; i++, src += stride, dst += es)
        memcpy(dst, src, (size_t)es);
}

/* Integers go through i64 and floats through f64, both exact, so every
 * cast is one rounding step. */
static void cast_row(TlDType from, const char *src, int64_t stride,
                     TlDType to, char *dst, int64_t n)
{
    int es = dt_size(to);
    /* A str that is no number: the dtype's zero here (NaN for floats);
     * kernels report it (SPEC), this is for printing and the top level. */
    if (from == DT_STR || to == DT_STR)
        for (int64_t i = 0; i < n; i++, src += stride, dst += es) {
            if (to == DT_STR)
                tl_str_put(dst, tl_str_from(from, src));
            else if (tl_str_to(to, tl_str_at(src), dst))
                tl_dt_store_f64(to, dst, dt_is_float(to) ? NAN : 0);
        }
    else if (dt_is_float(from))
        for (int64_t i = 0; i < n; i++, src += stride, dst += es)
            tl_dt_store_f64(to, dst, tl_dt_load_f64(from, src));
    else if (from == DT_U64)
        for (int64_t i = 0; i < n; i++, src += stride, dst += es)
            tl_dt_store_u64(to, dst, (uint64_t)tl_dt_load_i64(from, src));
    else
        for (int64_t i = 0; i < n; i++, src += stride, dst += es)
            tl_dt_store_i64(to, dst, tl_dt_load_i64(from, src));
}

/* A packed tensor of dtype `to` filled from t row by row. */
static TlTensor *repack(const TlTensor *t, TlDType to, RowFn *row)
{
    char err[128];
    TlTensor *out = tl_tensor_new(to, t->rank, t->shape, err, sizeof err);
    int64_t idx[TL_MAX_RANK] = {0};
    int64_t n = tl_tensor_numel(t), inner, stride;
    int last = t->rank - 1, es = dt_size(t->dtype);
    char *dst;

    /* The shape was accepted when t was made, so only memory can fail;
     * a copy is not a user-sized request of its own. */
    if (!out) {
        fprintf(stderr, "tdsl: %s\n", err);
        abort();
    }
    if (n == 0)
        return out;
    inner = t->rank ? t->shape[last] : 1;
    stride = t->rank ? t->strides[last] * es : es;
    dst = out->data;
    for (int64_t done = 0; done < n; done += inner) {
        const char *src = t->data;
        for (int i = 0; i < last; i++)
            src += idx[i] * t->strides[i] * es;
        row(t->dtype, src, stride, to, dst, inner);
        dst += inner * dt_size(to);
        /* Advance the index of the outer axes like an odometer. */
        for (int i = last - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i])
                break;
            idx[i] = 0;
        }
    }
    return out;
}

TlTensor *tl_tensor_copy(const TlTensor *t)
{
    return repack(t, t->dtype, copy_row);
}

uint64_t tl_tensor_hash(const TlTensor *t)
{
    TlTensor *c = tl_tensor_copy(t);
    uint64_t h = 0xcbf29ce484222325ull;
    int64_t head[TL_MAX_RANK + 2];
    const unsigned char *p;
    size_t n;

    if (!c)
        return 0;
    head[0] = c->dtype;
    head[1] = c->rank;
    for (int i = 0; i < c->rank; i++)
        head[2 + i] = c->shape[i];
    p = (const unsigned char *)head;
    for (size_t i = 0; i < (size_t)(c->rank + 2) * sizeof *head; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    p = c->data;
    n = (size_t)tl_tensor_numel(c) * (size_t)dt_size(c->dtype);
    /* Strings by their text (with its NUL), not their addresses. */
    if (c->dtype == DT_STR)
        for (size_t i = 0; i < n; i += sizeof(char *)) {
            const unsigned char *q =
                (const unsigned char *)tl_str_at(p + i);
            do
                h = (h ^ *q) * 0x100000001b3ull;
            while (*q++);
        }
    else
        for (size_t i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ull;
    tl_tensor_unref(c);
    return h;
}

TlTensor *tl_tensor_contiguous(TlTensor *t)
{
    if (tl_tensor_is_contiguous(t))
        return tl_tensor_ref(t);
    return tl_tensor_copy(t);
}

TlTensor *tl_tensor_cast(const TlTensor *t, TlDType to)
{
    if (to == t->dtype)
        return tl_tensor_copy(t);
    return repack(t, to, cast_row);
}

/* ====================================================================
 * Views: slicing and permuting
 * ==================================================================== */

/* The first position and the count of lo:hi:step over an axis of size
 * n, as Python's slice.indices() computes them. */
static void range_of(const TlSlice *s, int64_t n, int64_t *first,
                     int64_t *count)
{
    int64_t lo, hi;

    if (s->step > 0) {
        lo = s->has_lo ? s->lo : 0;
        hi = s->has_hi ? s->hi : n;
        if (lo < 0)
            lo = lo + n < 0 ? 0 : lo + n;
        if (hi < 0)
            hi = hi + n < 0 ? 0 : hi + n;
        if (lo > n)
            lo = n;
        if (hi > n)
            hi = n;
        *count = hi > lo ? (hi - lo - 1) / s->step + 1 : 0;
    } else {
        /* Going down, -1 stands for "before the first element". */
        uint64_t down = (uint64_t)0 - (uint64_t)s->step;
        lo = s->has_lo ? s->lo : n - 1;
        hi = s->has_hi ? s->hi : -1;
        if (s->has_lo && lo < 0)
            lo = lo + n < 0 ? -1 : lo + n;
        if (s->has_hi && hi < 0)
            hi = hi + n < 0 ? -1 : hi + n;
        if (lo > n - 1)
            lo = n - 1;
        if (hi > n - 1)
            hi = n - 1;
        *count = lo > hi ? (int64_t)((uint64_t)(lo - hi - 1) / down) + 1
                         : 0;
    }
    *first = lo;
}

TlTensor *tl_tensor_slice(TlTensor *t, int n, const TlSlice *s,
                          char *err, size_t errlen)
{
    int64_t shape[TL_MAX_RANK] = {0}, strides[TL_MAX_RANK] = {0}, off = 0;
    int rank = 0;
    TlTensor *v;

    if (n > t->rank) {
        seterr(err, errlen, "%d indices for a tensor of rank %d", n,
               t->rank);
        return NULL;
    }
    for (int i = 0; i < t->rank; i++) {
        int64_t size = t->shape[i], first, count;
        if (i >= n) {
            shape[rank] = size;
            strides[rank++] = t->strides[i];
        } else if (s[i].is_index) {
            int64_t k = s[i].index < 0 ? s[i].index + size : s[i].index;
            if (k < 0 || k >= size) {
                seterr(err, errlen,
                       "index %lld out of range for axis %d of size %lld",
                       (long long)s[i].index, i, (long long)size);
                return NULL;
            }
            off += k * t->strides[i];
        } else {
            if (s[i].step == 0) {
                seterr(err, errlen, "slice step cannot be zero");
                return NULL;
            }
            range_of(&s[i], size, &first, &count);
            if (count > 0)
                off += first * t->strides[i];
            shape[rank] = count;
            /* One element or none: the stride is never used, and
             * stride * step could overflow for a huge step. */
            strides[rank++] = count > 1 ? t->strides[i] * s[i].step
                                        : t->strides[i];
        }
    }
    v = tensor_shell(t->dtype, rank, shape);
    for (int i = 0; i < rank; i++)
        v->strides[i] = strides[i];
    v->storage = t->storage;
    v->storage->refs++;
    v->data = (char *)t->data + off * dt_size(t->dtype);
    return v;
}

TlTensor *tl_tensor_permute(TlTensor *t, const int *perm)
{
    TlTensor *v = tensor_shell(t->dtype, t->rank, t->shape);
    unsigned seen = 0;

    for (int i = 0; i < t->rank; i++) {
        TL_ASSERT(perm[i] >= 0 && perm[i] < t->rank);
        TL_ASSERT(!(seen & 1u << perm[i]));
        seen |= 1u << perm[i];
        v->shape[i] = t->shape[perm[i]];
        v->strides[i] = t->strides[perm[i]];
    }
    v->storage = t->storage;
    v->storage->refs++;
    v->data = t->data;
    return v;
}

/* ====================================================================
 * Printing
 * ==================================================================== */

const TlPrintOpts tl_print_defaults = {1, 1000, 3, 75};

enum { MAX_FRAC = 8 };  /* digits after the point, as numpy's default */

typedef struct Printer {
    TlBuf *out;
    const TlTensor *t;
    TlPrintOpts o;
    int summarise;
    size_t line_start;  /* offset in out of the current line */
    /* float layout, from a first pass over the shown elements */
    int is_float;
    int sci;            /* scientific notation */
    int frac;           /* fixed: common fraction digits; sci: mantissa */
    double minabs, maxabs;  /* over finite nonzero shown elements */
    int width;          /* every element is right-aligned to this */
} Printer;

typedef void ElemFn(Printer *p, const char *elem);

/* Calls fn on every element that will be shown, in print order. */
static void walk_shown(Printer *p, int axis, const char *base, ElemFn *fn)
{
    const TlTensor *t = p->t;
    int64_t n, step, e = p->o.edgeitems;

    if (axis == t->rank) {
        fn(p, base);
        return;
    }
    n = t->shape[axis];
    step = t->strides[axis] * dt_size(t->dtype);
    for (int64_t i = 0; i < n; i++) {
        if (p->summarise && n > 2 * e && i == e)
            i = n - e;
        walk_shown(p, axis + 1, base + i * step, fn);
    }
}

/* Significant digits of the shortest decimal that reads back as v at
 * the tensor's precision, and its decimal exponent. */
static int shortest_digits(TlDType dt, double v, int *dexp)
{
    int maxd = dt == DT_F64 ? 17 : dt == DT_F32 ? 9 : dt == DT_F16 ? 5 : 4;
    char s[40];
    int n;

    for (n = 1; n < maxd; n++) {
        double r;
        snprintf(s, sizeof s, "%.*e", n - 1, v);
        r = strtod(s, NULL);
        if (dt == DT_F64 ? r == v
            : dt == DT_F32 ? (float)r == (float)v
            : dt == DT_F16 ? tl_f64_to_f16(r) == tl_f64_to_f16(v)
                           : tl_f64_to_bf16(r) == tl_f64_to_bf16(v))
            break;
    }
    snprintf(s, sizeof s, "%.*e", n - 1, v);
    *dexp = atoi(strchr(s, 'e') + 1);
    return n;
}

/* "%#.*f" of v with trailing zeros removed (the point stays). */
static int fixed_text(char *s, size_t size, double v, int frac)
{
    int n = snprintf(s, size, "%#.*f", frac, v);
    while (n > 0 && s[n - 1] == '0')
        s[--n] = 0;
    return n;
}

/* Digits after the point a fixed-notation v needs (at most MAX_FRAC). */
static int fixed_frac(TlDType dt, double v)
{
    int dexp, nd = shortest_digits(dt, v, &dexp);
    char s[400];
    int n;

    if (nd - 1 - dexp <= MAX_FRAC)
        return nd - 1 - dexp > 0 ? nd - 1 - dexp : 0;
    n = fixed_text(s, sizeof s, v, MAX_FRAC);
    return n - (int)(strchr(s, '.') - s) - 1;
}

static void float_stats(Printer *p, const char *elem)
{
    double v = tl_dt_load_f64(p->t->dtype, elem), a = fabs(v);
    if (!isfinite(v) || v == 0)
        return;
    if (p->maxabs == 0 || a < p->minabs)
        p->minabs = a;
    if (a > p->maxabs)
        p->maxabs = a;
}

static void float_digits(Printer *p, const char *elem)
{
    TlDType dt = p->t->dtype;
    double v = tl_dt_load_f64(dt, elem);
    int f, dexp;

    if (!isfinite(v))
        return;
    if (p->sci) {
        f = shortest_digits(dt, v, &dexp) - 1;
        f = f > MAX_FRAC ? MAX_FRAC : f;
    } else {
        f = fixed_frac(dt, v);
    }
    if (f > p->frac)
        p->frac = f;
}

/* A string as a tdsl literal: double quotes, \" \\ \n \t and \xHH
 * for other control bytes; cut short with "..." past size. */
static int str_text(const char *v, char *s, size_t size)
{
    size_t n = 0;

    s[n++] = '"';
    for (; *v && n + 8 < size; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(s + n, size - n, "\\%c", c);
        else if (c == '\n')
            n += (size_t)snprintf(s + n, size - n, "\\n");
        else if (c == '\t')
            n += (size_t)snprintf(s + n, size - n, "\\t");
        else if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(s + n, size - n, "\\x%02x", c);
        else
            s[n++] = (char)c;
    }
    if (*v)
        n += (size_t)snprintf(s + n, size - n, "...");
    s[n++] = '"';
    s[n] = 0;
    return (int)n;
}

/* The text of one element without its left padding. */
static int elem_text(Printer *p, const char *elem, char *s, size_t size)
{
    TlDType dt = p->t->dtype;
    double v;
    int n, have;

    if (dt == DT_BOOL)
        return snprintf(s, size, "%s",
                        tl_dt_load_i64(dt, elem) ? "true" : "false");
    if (dt == DT_STR)
        return str_text(tl_str_at(elem), s, size);
    if (dt == DT_U64)
        return snprintf(s, size, "%llu",
                        (unsigned long long)tl_dt_load_i64(dt, elem));
    if (!p->is_float)
        return snprintf(s, size, "%lld",
                        (long long)tl_dt_load_i64(dt, elem));
    v = tl_dt_load_f64(dt, elem);
    if (isnan(v))
        return snprintf(s, size, "nan");
    if (isinf(v))
        return snprintf(s, size, v < 0 ? "-inf" : "inf");
    if (p->sci)
        return snprintf(s, size, "%#.*e", p->frac, v);
    /* Fixed: the element's own digits, then spaces up to the common
     * fraction width so that the points line up. */
    n = fixed_text(s, size, v, p->frac);
    /* A lone number reads better as "3.0" than as "3." (numpy too). */
    if (p->t->rank == 0 && s[n - 1] == '.')
        return n + snprintf(s + n, size - (size_t)n, "0");
    have = n - (int)(strchr(s, '.') - s) - 1;
    while (have++ < p->frac && (size_t)n + 1 < size)
        s[n++] = ' ';
    s[n] = 0;
    return n;
}

static void elem_width(Printer *p, const char *elem)
{
    char s[400];
    int n = elem_text(p, elem, s, sizeof s);
    if (n > p->width)
        p->width = n;
}

static int column(const Printer *p)
{
    return (int)(p->out->len - p->line_start);
}

static void newline(Printer *p, int indent)
{
    buf_putc(p->out, '\n');
    p->line_start = p->out->len;
    for (int i = 0; i < indent; i++)
        buf_putc(p->out, ' ');
}

/* Between two entries of `axis`: a space (or a wrap) inside a row,
 * newlines between rows, one blank line more per level above. */
static void separator(Printer *p, int axis, int next_len)
{
    if (axis == p->t->rank - 1) {
        if (column(p) + 1 + next_len > p->o.linewidth)
            newline(p, axis + 1);
        else
            buf_putc(p->out, ' ');
        return;
    }
    for (int i = axis + 1; i < p->t->rank - 1; i++)
        buf_putc(p->out, '\n');
    newline(p, axis + 1);
}

static void put_elem(Printer *p, const char *elem)
{
    char s[400];
    int n = elem_text(p, elem, s, sizeof s);
    for (int i = n; i < p->width; i++)
        buf_putc(p->out, ' ');
    buf_puts(p->out, s);
}

static void print_axis(Printer *p, int axis, const char *base)
{
    const TlTensor *t = p->t;
    int64_t n = t->shape[axis], e = p->o.edgeitems;
    int64_t step = t->strides[axis] * dt_size(t->dtype);
    int inner = axis == t->rank - 1;

    buf_putc(p->out, '[');
    for (int64_t i = 0; i < n; i++) {
        if (i > 0)
            separator(p, axis, p->width);
        if (p->summarise && n > 2 * e && i == e) {
            buf_puts(p->out, "...");
            separator(p, axis, p->width);
            i = n - e;
        }
        if (inner)
            put_elem(p, base + i * step);
        else
            print_axis(p, axis + 1, base + i * step);
    }
    buf_putc(p->out, ']');
}

void tl_tensor_print_type(TlBuf *out, const TlTensor *t)
{
    buf_printf(out, "%s[", dt_name(t->dtype));
    for (int i = 0; i < t->rank; i++)
        buf_printf(out, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
    buf_putc(out, ']');
}

void tl_tensor_print(TlBuf *out, const TlTensor *t, const TlPrintOpts *o)
{
    Printer p;
    size_t i;

    memset(&p, 0, sizeof p);
    p.out = out;
    p.t = t;
    p.o = o ? *o : tl_print_defaults;
    if (p.o.edgeitems < 1)
        p.o.edgeitems = 1;
    p.summarise = tl_tensor_numel(t) > p.o.threshold;
    p.is_float = dt_is_float(t->dtype);
    if (p.is_float) {
        walk_shown(&p, 0, t->data, float_stats);
        p.sci = p.maxabs >= 1e8 || (p.maxabs > 0 && (p.minabs < 1e-4 ||
                                    p.maxabs / p.minabs > 1e3));
        walk_shown(&p, 0, t->data, float_digits);
    }
    walk_shown(&p, 0, t->data, elem_width);

    if (p.o.header) {
        tl_tensor_print_type(out, t);
        buf_putc(out, t->rank ? '\n' : ' ');
    }
    for (i = out->len; i > 0 && out->s[i - 1] != '\n'; i--)
        ;
    p.line_start = i;
    if (t->rank == 0)
        put_elem(&p, t->data);
    else
        print_axis(&p, 0, t->data);
}
