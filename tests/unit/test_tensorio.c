/*
 * test_tensorio.c - .npy and .safetensors reading and writing
 * (interp/npy.c, interp/safetensors.c) and ONNX TensorProto reading
 * (interp/onnxpb.c): round trips of every dtype, the exact bytes
 * written, hand-made files in every supported variant, one hand-made
 * broken file per error with its exact message, and every truncation
 * and many one-byte corruptions of valid files (which must give an
 * error or a tensor, never a crash - run under ASan).
 *
 * With arguments it is the helper of tests/cli/tensorio_numpy.sh:
 *   test_tensorio write DIR      writes sample files for numpy to check
 *   test_tensorio dump FILE      prints a file's tensors as text (.npy,
 *                                .pb, else .safetensors)
 */
#include "interp/interp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static const TlDType all_dtypes[] = {
    DT_BOOL, DT_U8, DT_I8, DT_I16, DT_I32, DT_I64,
    DT_F16, DT_BF16, DT_F32, DT_F64, DT_U16, DT_U32, DT_U64,
};
enum { NDTYPES = sizeof all_dtypes / sizeof *all_dtypes };

/* The sample value of element i: exact in every dtype, so numpy can
 * compute the same numbers (tests/cli/tensorio_numpy.sh). */
static double sample(TlDType dt, int64_t i)
{
    if (dt == DT_BOOL)
        return i % 3 == 0;
    if (dt_is_unsigned(dt))
        return (double)(i * 37 % 256);
    if (dt_is_float(dt))
        return (double)(i * 7 % 23 - 11) * 0.5;
    return (double)(i * 7 % 23 - 11);
}

static TlTensor *make(TlDType dt, int rank, const int64_t *shape)
{
    TlTensor *t = tl_tensor_new(dt, rank, shape, NULL, 0);
    int64_t n = tl_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        tl_dt_store_f64(dt, (char *)t->data + i * dt_size(dt),
                        sample(dt, i));
    return t;
}

/* Same dtype, shape and elements (compared through packed copies). */
static int same_tensor(const TlTensor *a, const TlTensor *b)
{
    TlTensor *x, *y;
    int ok;
    if (!a || !b || a->dtype != b->dtype || !tl_tensor_equal_shape(a, b))
        return 0;
    x = tl_tensor_copy(a);
    y = tl_tensor_copy(b);
    ok = !memcmp(x->data, y->data,
                 (size_t)(tl_tensor_numel(x) * dt_size(x->dtype)));
    tl_tensor_unref(x);
    tl_tensor_unref(y);
    return ok;
}

/* ====================================================================
 * .npy
 * ==================================================================== */

/* A .npy image: magic, version, header text padded as given, data. */
static size_t mknpy(unsigned char *out, int major, const char *header,
                    const void *data, size_t n)
{
    size_t hl = strlen(header), off = major == 1 ? 10 : 12;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    for (size_t i = 0; i < off - 8; i++)
        out[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(out + off, header, hl);
    if (n)
        memcpy(out + off + hl, data, n);
    return off + hl + n;
}

static void test_npy_roundtrip(void)
{
    int64_t shapes[][3] = {{0}, {5}, {2, 3, 4}, {3, 0, 2}};
    int ranks[] = {0, 1, 3, 3};
    char err[300];

    for (int d = 0; d < NDTYPES; d++) {
        TlDType dt = all_dtypes[d];
        for (int s = 0; s < 4; s++) {
            TlTensor *t = make(dt, ranks[s], shapes[s]), *u;
            TlBuf b;
            buf_init(&b);
            if (dt == DT_BF16) {
                CHECK(tl_npy_write_buf(&b, t, "x.npy", err, sizeof err)
                      == -1);
                CHECK_STR(err, "'x.npy': bf16 has no .npy dtype; save it "
                               "as .safetensors, or cast it to f32 first");
                CHECK(b.len == 0);
                tl_tensor_unref(t);
                continue;
            }
            CHECK(tl_npy_write_buf(&b, t, "x.npy", err, sizeof err) == 0);
            CHECK(b.len % 64 == (size_t)(tl_tensor_numel(t) *
                                         dt_size(dt)) % 64);
            u = tl_npy_read_mem(b.s, b.len, "x.npy", err, sizeof err);
            if (!u)
                fprintf(stderr, "%s\n", err);
            CHECK(same_tensor(t, u));
            tl_tensor_unref(u);
            tl_tensor_unref(t);
            buf_free(&b);
        }
    }
    /* a strided view (every other column, reversed) writes its own
     * elements in row-major order */
    {
        int64_t shape[] = {3, 4};
        TlTensor *t = make(DT_I16, 2, shape), *v, *u, *c;
        TlSlice s[2] = {{0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, -2}};
        TlBuf b;
        buf_init(&b);
        v = tl_tensor_slice(t, 2, s, NULL, 0);
        CHECK(tl_npy_write_buf(&b, v, "v.npy", err, sizeof err) == 0);
        u = tl_npy_read_mem(b.s, b.len, "v.npy", err, sizeof err);
        c = tl_tensor_copy(v);
        CHECK(same_tensor(c, u) && u->shape[1] == 2);
        CHECK(((int16_t *)u->data)[0] == sample(DT_I16, 3));
        tl_tensor_unref(c);
        tl_tensor_unref(u);
        tl_tensor_unref(v);
        tl_tensor_unref(t);
        buf_free(&b);
    }
}

static void test_npy_bytes(void)
{
    int64_t shape[] = {2, 3}, one[] = {5};
    TlTensor *t = make(DT_F32, 2, shape);
    TlBuf b;
    const char *h = "{'descr': '<f4', 'fortran_order': False, "
                    "'shape': (2, 3), }";

    buf_init(&b);
    CHECK(tl_npy_write_buf(&b, t, "x.npy", NULL, 0) == 0);
    /* numpy's layout: the data starts at a multiple of 64 */
    CHECK(b.len == 128 + 24);
    CHECK(!memcmp(b.s, "\x93NUMPY\x01\x00\x76\x00", 10));
    CHECK(!memcmp(b.s + 10, h, strlen(h)));
    for (size_t i = 10 + strlen(h); i < 127; i++)
        CHECK(b.s[i] == ' ');
    CHECK(b.s[127] == '\n');
    CHECK(!memcmp(b.s + 128, t->data, 24));
    buf_free(&b);
    tl_tensor_unref(t);

    t = make(DT_BOOL, 1, one);
    CHECK(tl_npy_write_buf(&b, t, "x.npy", NULL, 0) == 0);
    CHECK(strstr(b.s + 10, "{'descr': '|b1', 'fortran_order': False, "
                           "'shape': (5,), }") == b.s + 10);
    buf_free(&b);
    tl_tensor_unref(t);
    t = make(DT_I64, 0, NULL);
    CHECK(tl_npy_write_buf(&b, t, "x.npy", NULL, 0) == 0);
    CHECK(strstr(b.s + 10, "'shape': (), }") != NULL);
    CHECK(b.len == 128 + 8);
    buf_free(&b);
    tl_tensor_unref(t);
}

/* Files numpy or other writers may produce. */
static void test_npy_variants(void)
{
    unsigned char f[512];
    char err[300];
    size_t n;
    TlTensor *t;

    /* big-endian i4 and f8 */
    {
        const unsigned char be[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfe};
        n = mknpy(f, 1, "{'descr': '>i4', 'fortran_order': False, "
                        "'shape': (2,), }\n", be, sizeof be);
        t = tl_npy_read_mem(f, n, "be.npy", err, sizeof err);
        CHECK(t && t->dtype == DT_I32 && t->shape[0] == 2);
        CHECK(t && ((int32_t *)t->data)[0] == 258);
        CHECK(t && ((int32_t *)t->data)[1] == -2);
        tl_tensor_unref(t);
    }
    {
        const unsigned char be[] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0};
        n = mknpy(f, 1, "{\"descr\":\">f8\",\"fortran_order\":False,"
                        "\"shape\":()}", be, sizeof be);
        t = tl_npy_read_mem(f, n, "be.npy", err, sizeof err);
        CHECK(t && t->rank == 0 && ((double *)t->data)[0] == 1.5);
        tl_tensor_unref(t);
    }
    /* '=' is the host order; u1 and b1 with any order character; bool
     * bytes other than 0/1 read as true */
    {
        int16_t v[] = {-3, 7};
        unsigned char bb[] = {0, 1, 2, 255};
        n = mknpy(f, 1, "{'descr': '=i2', 'fortran_order': False, "
                        "'shape': (2,)}", v, sizeof v);
        t = tl_npy_read_mem(f, n, "x.npy", err, sizeof err);
        CHECK(t && ((int16_t *)t->data)[0] == -3);
        tl_tensor_unref(t);
        n = mknpy(f, 1, "{'descr': '<b1', 'fortran_order': False, "
                        "'shape': (4,)}", bb, sizeof bb);
        t = tl_npy_read_mem(f, n, "x.npy", err, sizeof err);
        CHECK(t && t->dtype == DT_BOOL);
        CHECK(t && !memcmp(t->data, "\0\1\1\1", 4));
        tl_tensor_unref(t);
        n = mknpy(f, 1, "{'descr': '|u1', 'fortran_order': False, "
                        "'shape': (2, 2)}", bb, sizeof bb);
        t = tl_npy_read_mem(f, n, "x.npy", err, sizeof err);
        CHECK(t && t->dtype == DT_U8 && ((uint8_t *)t->data)[3] == 255);
        tl_tensor_unref(t);
    }
    /* versions 2.0 and 3.0, Python 2 longs, blanks, data after the
     * array (ignored, as numpy does) */
    {
        uint16_t h[] = {0x3c00, 0xc000, 0x7c00};
        n = mknpy(f, 2, "{ 'descr' : '<f2' , 'fortran_order' : False , "
                        "'shape' : ( 3L , ) }   \n", h, sizeof h);
        t = tl_npy_read_mem(f, n, "x.npy", err, sizeof err);
        CHECK(t && t->dtype == DT_F16);
        CHECK(t && tl_tensor_get_f64(t, (int64_t[]){2}) == INFINITY);
        tl_tensor_unref(t);
        n = mknpy(f, 3, "{'descr': '<f2', 'fortran_order': False, "
                        "'shape': (1,), }\n", h, sizeof h);
        t = tl_npy_read_mem(f, n, "x.npy", err, sizeof err);
        CHECK(t && t->shape[0] == 1 && ((uint16_t *)t->data)[0] == 0x3c00);
        tl_tensor_unref(t);
    }
}

/* Each broken header or file with its exact message. */
static void test_npy_errors(void)
{
    static const struct {
        int major;
        const char *header;
        int data;          /* bytes of data after the header */
        const char *msg;
    } cases[] = {
        {4, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4,
         "'b.npy': unsupported .npy version 4.0"},
        {1, "", 4, "'b.npy': malformed header: expected '{' at byte 0 of "
                   "the header"},
        {1, "{'descr': '<f4', 'fortran_order': False}", 4,
         "'b.npy': header lacks 'shape'"},
        {1, "{'fortran_order': False, 'shape': ()}", 4,
         "'b.npy': header lacks 'descr'"},
        {1, "{'descr': '<f4', 'shape': ()}", 4,
         "'b.npy': header lacks 'fortran_order'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), "
            "'x': 1}", 4, "'b.npy': unexpected key 'x' in the header"},
        {1, "{'descr': '<f4', 'descr': '<f4'}", 4,
         "'b.npy': key 'descr' appears twice in the header"},
        {1, "{'descr': '|O', 'fortran_order': False, 'shape': ()}", 8,
         "'b.npy': object arrays are not supported"},
        {1, "{'descr': '<c8', 'fortran_order': False, 'shape': ()}", 8,
         "'b.npy': unsupported dtype '<c8' (tdsl reads f2 f4 f8 i1 i2 i4 "
         "i8 u1 u2 u4 u8 b1)"},
        {1, "{'descr': '<u16', 'fortran_order': False, 'shape': ()}", 16,
         "'b.npy': unsupported dtype '<u16' (tdsl reads f2 f4 f8 i1 i2 i4 "
         "i8 u1 u2 u4 u8 b1)"},
        {1, "{'descr': '<f16', 'fortran_order': False, 'shape': ()}", 16,
         "'b.npy': unsupported dtype '<f16' (tdsl reads f2 f4 f8 i1 i2 i4 "
         "i8 u1 u2 u4 u8 b1)"},
        {1, "{'descr': '|f4', 'fortran_order': False, 'shape': ()}", 4,
         "'b.npy': dtype '|f4' has no byte order"},
        {1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
            "'shape': ()}", 4, "'b.npy': structured dtypes are not "
                               "supported"},
        {1, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", 4,
         "'b.npy': malformed header: expected True or False at byte 34 "
         "of the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 4,
         "'b.npy': malformed header: negative dimension at byte 51 of the "
         "header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}", 4,
         "'b.npy': malformed header: expected a dimension at byte 53 of "
         "the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': 2}", 4,
         "'b.npy': malformed header: expected '(' to start the shape at "
         "byte 50 of the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", 4,
         "'b.npy': malformed header: expected ',' or ')' in the shape at "
         "byte 53 of the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (99999999999999999999,)}", 4,
         "'b.npy': malformed header: dimension too large at byte 69 of "
         "the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (4294967296, 4294967296)}", 4,
         "'b.npy': shape product overflows"},
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (1048576, 1048576)}", 4,
         "'b.npy': 4398046511104 bytes exceed the tensor size limit of "
         "64 GiB"},
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1)}", 4,
         "'b.npy': rank exceeds the maximum of 8"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 7,
         "'b.npy': file too short: the data needs 8 bytes at offset 65, "
         "the file has 72"},
        /* an empty array whose other axes overflow the strides */
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (0, 4611686018427387904, 4)}", 4,
         "'b.npy': the axes of this empty tensor are too large: shape "
         "product overflows"},
        /* the size is checked before allocating: 2^34 bytes */
        {1, "{'descr': '<f4', 'fortran_order': False, "
            "'shape': (65536, 65536)}", 4,
         "'b.npy': file too short: the data needs 17179869184 bytes at "
         "offset 75, the file has 79"},
        /* Fortran order is refused, whatever the rank (numpy writes True
         * only when the layout differs from C order) */
        {1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
         24, "'b.npy': Fortran-order arrays are not supported; save with "
             "np.ascontiguousarray(a)"},
        {1, "{'descr': '|i1', 'fortran_order': True, 'shape': (3,), }",
         3, "'b.npy': Fortran-order arrays are not supported; save with "
            "np.ascontiguousarray(a)"},
        /* ... after the dtype and the header's syntax */
        {1, "{'descr': '<c8', 'fortran_order': True, 'shape': (2, 3), }",
         48, "'b.npy': unsupported dtype '<c8' (tdsl reads f2 f4 f8 i1 i2 "
             "i4 i8 u1 u2 u4 u8 b1)"},
        {1, "{'descr': '<f4, 'fortran_order': False, 'shape': ()}", 4,
         "'b.npy': malformed header: expected ',' or '}' at byte 17 of "
         "the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x", 4,
         "'b.npy': malformed header: unexpected text after the dict at "
         "byte 54 of the header"},
        {1, "{'descr': '<f4\\n', 'fortran_order': False, 'shape': ()}", 4,
         "'b.npy': malformed header: unexpected character in a string at "
         "byte 14 of the header"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (", 4,
         "'b.npy': malformed header: expected a dimension at byte 51 of "
         "the header"},
        {1, "{'descr': '<f4", 4, "'b.npy': malformed header: unterminated "
                                 "string at byte 14 of the header"},
        {1, "{descr: '<f4'}", 4, "'b.npy': malformed header: expected a "
                                 "quoted string at byte 1 of the header"},
        {1, "{'descr' '<f4'}", 4, "'b.npy': malformed header: expected "
                                  "':' after a key at byte 9 of the "
                                  "header"},
    };
    unsigned char f[512], zero[64] = {0};
    char err[300];

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = mknpy(f, cases[i].major, cases[i].header, zero,
                         (size_t)cases[i].data);
        TlTensor *t = tl_npy_read_mem(f, n, "b.npy", err, sizeof err);
        CHECK(t == NULL);
        if (!t)
            CHECK_STR(err, cases[i].msg);
        tl_tensor_unref(t);
    }
    /* not .npy at all; a header length beyond the file */
    CHECK(!tl_npy_read_mem("hello", 5, "b.npy", err, sizeof err));
    CHECK_STR(err, "'b.npy': not a .npy file (no \\x93NUMPY magic at its "
                   "start)");
    CHECK(!tl_npy_read_mem("\x93NUMPY\x01\x00\xff\x00{", 11, "b.npy", err,
                           sizeof err));
    CHECK_STR(err, "'b.npy': file too short: the header needs 255 bytes at "
                   "offset 10, the file has 11");
    CHECK(!tl_npy_read_mem("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12,
                           "b.npy", err, sizeof err));
    CHECK_STR(err, "'b.npy': header of 2147483647 bytes is too long "
                   "(limit 1048576)");
    CHECK(!tl_npy_read_mem("\x93NUMPY\x02\x00\x01", 11, "b.npy", err,
                           sizeof err));
    CHECK_STR(err, "'b.npy': file too short: the header length needs 12 "
                   "bytes at offset 0, the file has 11");
}

/* ====================================================================
 * .safetensors
 * ==================================================================== */

/* A .safetensors image: length, the header's hl bytes, ndata zero
 * bytes. */
static size_t mkst_n(unsigned char *out, const char *header, size_t hl,
                     size_t ndata)
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(out + 8, header, hl);
    memset(out + 8 + hl, 0, ndata);
    return 8 + hl + ndata;
}

static size_t mkst(unsigned char *out, const char *header, size_t ndata)
{
    return mkst_n(out, header, strlen(header), ndata);
}

static void test_st_roundtrip(void)
{
    int64_t shape[] = {2, 3, 2};
    TlNamedTensor ts[NDTYPES + 1];
    TlTensor *t[NDTYPES + 1];
    const char *meta[] = {"format", "pt", "note", "caf\xc3\xa9 \"q\"\n"};
    char name[NDTYPES + 1][32], err[300];
    TlSafetensors *f;
    TlBuf b;
    uint64_t hl = 0;

    /* names deliberately out of order; the empty tensor is written too */
    for (int d = 0; d < NDTYPES; d++) {
        t[d] = make(all_dtypes[d], 3 - d % 3, shape);
        snprintf(name[d], sizeof name[d], "w.%02d.%s", NDTYPES - 1 - d,
                 dt_name(all_dtypes[d]));
        ts[d].name = name[d];
        ts[d].t = t[d];
    }
    {
        int64_t empty[] = {4, 0};
        t[NDTYPES] = make(DT_F32, 2, empty);
        ts[NDTYPES].name = "empty";
        ts[NDTYPES].t = t[NDTYPES];
    }
    buf_init(&b);
    CHECK(tl_safetensors_write_buf(&b, ts, NDTYPES + 1, meta, 2, "m.st",
                                   err, sizeof err) == 0);
    for (int i = 7; i >= 0; i--)
        hl = hl << 8 | (unsigned char)b.s[i];
    CHECK((8 + hl) % 8 == 0 && b.s[8] == '{' && b.s[8 + hl - 1] != '\n');
    f = tl_safetensors_open_mem(b.s, b.len, "m.st", err, sizeof err);
    if (!f)
        fprintf(stderr, "%s\n", err);
    CHECK(f && tl_safetensors_count(f) == NDTYPES + 1);
    CHECK(f && tl_safetensors_meta_count(f) == 2);
    if (!f)
        return;
    CHECK_STR(tl_safetensors_meta_key(f, 1), "note");
    CHECK_STR(tl_safetensors_meta_value(f, 1), meta[3]);
    CHECK_STR(tl_safetensors_meta_get(f, "format"), "pt");
    CHECK(tl_safetensors_meta_get(f, "nope") == NULL);
    CHECK_STR(tl_safetensors_entry(f, 0)->name, "empty");
    for (int i = 1; i < tl_safetensors_count(f); i++)
        CHECK(strcmp(tl_safetensors_entry(f, i - 1)->name,
                     tl_safetensors_entry(f, i)->name) < 0);
    for (int d = 0; d < NDTYPES + 1; d++) {
        int i = tl_safetensors_find(f, name[d < NDTYPES ? d : 0]);
        TlTensor *u = tl_safetensors_get(f, ts[d].name, err, sizeof err);
        CHECK(i >= 0 && tl_safetensors_entry(f, i)->dtype ==
                            t[d < NDTYPES ? d : 0]->dtype);
        CHECK(same_tensor(t[d], u));
        tl_tensor_unref(u);
    }
    CHECK(tl_safetensors_find(f, "w") == -1);
    CHECK(!tl_safetensors_get(f, "w", err, sizeof err));
    CHECK_STR(err, "'m.st': no tensor named 'w' (the file holds 'empty', "
                   "'w.00.u64', 'w.01.u32', 'w.02.u16', 'w.03.f64' and 9 "
                   "more)");
    tl_safetensors_close(f);
    buf_free(&b);

    /* the exact header of a small file */
    {
        int64_t two = 2;
        TlTensor *x = make(DT_F32, 1, &two), *y = make(DT_BOOL, 0, NULL);
        TlNamedTensor n2[] = {{"b", x}, {"a\"\\", y}};
        const char *h = "{\"a\\\"\\\\\":{\"dtype\":\"BOOL\",\"shape\":[],"
                        "\"data_offsets\":[0,1]},\"b\":{\"dtype\":\"F32\","
                        "\"shape\":[2],\"data_offsets\":[1,9]}}";
        buf_init(&b);
        CHECK(tl_safetensors_write_buf(&b, n2, 2, NULL, 0, "s", err,
                                       sizeof err) == 0);
        /* 111 bytes of JSON padded to 112 */
        CHECK(strlen(h) == 111 && b.len == 8 + 112 + 9);
        CHECK((unsigned char)b.s[0] == 112 && !memcmp(b.s + 1, "\0\0\0\0"
                                                      "\0\0\0", 7));
        CHECK(!memcmp(b.s + 8, h, 111) && b.s[8 + 111] == ' ');
        CHECK(b.s[120] == 1 && !memcmp(b.s + 121, x->data, 8));
        f = tl_safetensors_open_mem(b.s, b.len, "s", err, sizeof err);
        CHECK(f && tl_safetensors_find(f, "a\"\\") == 0);
        tl_safetensors_close(f);
        buf_free(&b);
        /* no tensors at all */
        CHECK(tl_safetensors_write_buf(&b, NULL, 0, NULL, 0, "s", err,
                                       sizeof err) == 0);
        CHECK(b.len == 16 && !memcmp(b.s + 8, "{}      ", 8));
        f = tl_safetensors_open_mem(b.s, b.len, "s", err, sizeof err);
        CHECK(f && tl_safetensors_count(f) == 0);
        CHECK(f && !tl_safetensors_get(f, "x", err, sizeof err));
        CHECK_STR(err, "'s': no tensor named 'x' (the file holds none)");
        tl_safetensors_close(f);
        buf_free(&b);
        tl_tensor_unref(x);
        tl_tensor_unref(y);
    }
    for (int d = 0; d < NDTYPES + 1; d++)
        tl_tensor_unref(t[d]);
}

static void test_st_write_errors(void)
{
    int64_t two = 2;
    TlTensor *x = make(DT_F32, 1, &two);
    TlNamedTensor dup[] = {{"a", x}, {"b", x}, {"a", x}};
    TlNamedTensor meta_name[] = {{"__metadata__", x}};
    TlNamedTensor bad_utf8[] = {{"\xff", x}};
    const char *meta[] = {"k", "v", "k", "w"};
    char err[300];
    TlBuf b;

    buf_init(&b);
    CHECK(tl_safetensors_write_buf(&b, dup, 3, NULL, 0, "o", err,
                                   sizeof err) == -1);
    CHECK_STR(err, "'o': tensor name 'a' given twice");
    CHECK(tl_safetensors_write_buf(&b, meta_name, 1, NULL, 0, "o", err,
                                   sizeof err) == -1);
    CHECK_STR(err, "'o': cannot name a tensor '__metadata__'");
    CHECK(tl_safetensors_write_buf(&b, bad_utf8, 1, NULL, 0, "o", err,
                                   sizeof err) == -1);
    CHECK(tl_safetensors_write_buf(&b, dup, 1, meta, 2, "o", err,
                                   sizeof err) == -1);
    CHECK_STR(err, "'o': bad or repeated metadata string 'k'");
    CHECK(b.len == 0);
    tl_tensor_unref(x);
}

/* Each broken file (header text, bytes of data) with its message. */
static void test_st_errors(void)
{
    /* F32 "a" of shape [1], or A(S) with the shape S in its place */
#define A "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}"
#define AS(S) "{\"a\":{\"dtype\":\"F32\",\"shape\":" S ","           \
              "\"data_offsets\":[0,4]}}"
    static const struct {
        const char *header;
        int data;
        const char *msg;
    } cases[] = {
        /* JSON syntax, as json-c finds it */
        {"", 0, "'b.st': malformed header: expected '{' at byte 0 of the "
                "header"},
        {"  []", 0, "'b.st': malformed header: expected '{' at byte 2 of "
                    "the header"},
        {"{} x", 0, "'b.st': malformed header: unexpected text after the "
                    "header object at byte 3 of the header"},
        {"{\"a\"", 0, "'b.st': malformed header: unexpected end at byte 4 "
                      "of the header"},
        {"{\"a", 0, "'b.st': malformed header: unexpected end at byte 3 of "
                    "the header"},
        {A " \"b\":1}", 4, "'b.st': malformed header: expected ',' or '}' "
                           "at byte 54 of the header"},
        {A ",}", 4, "'b.st': malformed header: unexpected character at "
                    "byte 54 of the header"},
        {"{\"a\" 1}", 0, "'b.st': malformed header: expected ':' at byte 5 "
                         "of the header"},
        {"{1:2}", 0, "'b.st': malformed header: expected a string at byte 1 "
                     "of the header"},
        {"{\"a\":{\"shape\":[1,}}", 4, "'b.st': malformed header: "
                                       "unexpected character at byte 17 of "
                                       "the header"},
        {"{\"a\":{\"shape\":[1 2]}}", 4, "'b.st': malformed header: "
                                         "expected ',' or ']' at byte 17 "
                                         "of the header"},
        {"{\"a\":{\"shape\":[02]}}", 4, "'b.st': malformed header: "
                                        "malformed number at byte 17 of "
                                        "the header"},
        {"{\"a\":tru}", 0, "'b.st': malformed header: unexpected character "
                           "at byte 8 of the header"},
        {"{\"a\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}", 0,
         "'b.st': malformed header: nesting too deep at byte 20 of the "
         "header"},
        {"{\"a\\qb\":{}}", 0, "'b.st': malformed header: bad escape in a "
                              "string at byte 4 of the header"},
        {"{\"\\u00\":{}}", 0, "'b.st': malformed header: bad escape in a "
                              "string at byte 6 of the header"},
        {"{\"\xff\":{}}", 0, "'b.st': malformed header: invalid UTF-8 at "
                             "byte 2 of the header"},
        /* ... and what json-c lets through, found by the scan */
        {"{\"\xc0\x80\":{}}", 0, "'b.st': malformed header: invalid UTF-8 "
                                 "at byte 2 of the header"},
        {"{\"\xed\xa0\x80\":{}}", 0, "'b.st': malformed header: invalid "
                                     "UTF-8 at byte 2 of the header"},
        {"{\"\xf4\x90\x80\x80\":{}}", 0, "'b.st': malformed header: "
                                         "invalid UTF-8 at byte 2 of the "
                                         "header"},
        {"{\"a\tb\":{}}", 0, "'b.st': malformed header: control character "
                             "in a string at byte 3 of the header"},
        {"{'a':{}}", 0, "'b.st': malformed header: single-quoted string at "
                        "byte 1 of the header"},
        {"{\"k\":{}, \"\\ud800x\":{}}", 0, "'b.st': malformed header: "
                                           "unpaired surrogate in a \\u "
                                           "escape at byte 10 of the "
                                           "header"},
        {"{\"\\ud800\\u0041\":{}}", 0, "'b.st': malformed header: unpaired "
                                       "surrogate in a \\u escape at byte 2 "
                                       "of the header"},
        {"{\"\\udc00\":{}}", 0, "'b.st': malformed header: unpaired "
                                "surrogate in a \\u escape at byte 2 of the "
                                "header"},
        {"{\"a\\u0000\":{}}", 0, "'b.st': malformed header: NUL character "
                                 "in a string at byte 3 of the header"},
        /* repeated keys, which json-c would drop silently */
        {"{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\"}}", 4,
         "'b.st': tensor 'a' has field 'dtype' twice"},
        {"{\"a\":{\"dtype\":{\"x\":{}},\"dtype\":\"F32\",\"shape\":[1],"
         "\"data_offsets\":[0,4]}}", 4,
         "'b.st': tensor 'a' has field 'dtype' twice"},
        {"{\"a\":{\"x\":1,\"x\":1}}", 4,
         "'b.st': tensor 'a' has an unexpected field 'x'"},
        {A ",\"b\":{\"shape\":[],\"dtype\":\"U8\",\"shape\":[1]}}", 4,
         "'b.st': tensor 'b' has field 'shape' twice"},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
         8, "'b.st': tensor 'a' appears twice"},
        {A ",\"b\":{},\"\\u0061\":{}}", 4,
         "'b.st': tensor 'a' appears twice"},
        /* escapes above the surrogates are 6 bytes long */
        {"{\"\\ue000\":{},\"b\":{},\"\\uE000\":{}}", 0,
         "'b.st': tensor '\xee\x80\x80' appears twice"},
        {"{\"\\ufc00\\\"\":{},\"b\":{},\"b\":{}}", 0,
         "'b.st': tensor 'b' appears twice"},
        {"{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"shape\":[],"
         "\"shape\":[]}}", 0, "'b.st': tensor 'a' has field 'shape' twice"},
        {"{\"__metadata__\":{},\"__metadata__\":{}}", 0,
         "'b.st': \"__metadata__\" appears twice"},
        {"{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", 0,
         "'b.st': metadata key 'k' appears twice"},
        {A ",\"__metadata__\":{\"k\\u00e9\":\"v\",\"k\xc3\xa9\":\"v\"}}", 4,
         "'b.st': metadata key 'k\xc3\xa9' appears twice"},
        /* the schema */
        {"{\"a\":5}", 0, "'b.st': tensor 'a' is not an object"},
        {"{\"a\":null}", 0, "'b.st': tensor 'a' is not an object"},
        {"{\"__metadata__\":[]}", 0, "'b.st': \"__metadata__\" is not an "
                                     "object"},
        {"{\"__metadata__\":{\"k\":1}}", 0,
         "'b.st': metadata value of 'k' is not a string"},
        {"{\"__metadata__\":{\"k\":null}}", 0,
         "'b.st': metadata value of 'k' is not a string"},
        {"{\"a\":{}}", 0, "'b.st': tensor 'a' lacks 'dtype'"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4,
         "'b.st': tensor 'a' lacks 'data_offsets'"},
        {"{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4,
         "'b.st': tensor 'a' lacks 'shape'"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],"
         "\"x\":1}}", 4, "'b.st': tensor 'a' has an unexpected field 'x'"},
        {"{\"a\":{\"dtype\":7,\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
         "'b.st': dtype of tensor 'a' is not a string"},
        {"{\"a\":{\"dtype\":\"C64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
         8, "'b.st': tensor 'a' has dtype 'C64', which tdsl does not "
            "support"},
        {"{\"a\":{\"dtype\":\"F8_E4M3\",\"shape\":[],\"data_offsets\":"
         "[0,1]}}", 1, "'b.st': tensor 'a' has dtype 'F8_E4M3', which tdsl "
                       "does not support"},
        {AS("{}"), 4, "'b.st': shape of tensor 'a' is not a list"},
        {AS("[-1]"), 4, "'b.st': shape of tensor 'a' holds -1, not a "
                        "non-negative integer"},
        {AS("[2.0]"), 4, "'b.st': shape of tensor 'a' holds 2.0, not a "
                         "non-negative integer"},
        {AS("[1e3]"), 4, "'b.st': shape of tensor 'a' holds 1e3, not a "
                         "non-negative integer"},
        {AS("[NaN]"), 4, "'b.st': shape of tensor 'a' holds NaN, not a "
                         "non-negative integer"},
        {AS("[true]"), 4, "'b.st': shape of tensor 'a' holds true, not a "
                          "non-negative integer"},
        {AS("[null]"), 4, "'b.st': shape of tensor 'a' holds null, not a "
                          "non-negative integer"},
        {AS("[[1]]"), 4, "'b.st': shape of tensor 'a' holds [1], not a "
                         "non-negative integer"},
        {AS("[\"a/b/cdefghijklmnopqrstuvwxyz0123456789ABC\"]"), 4,
         "'b.st': shape of tensor 'a' holds \"a/b/cdefghijklmnopqrstuvwxyz"
         "01234567..., not a non-negative integer"},
        {AS("[9223372036854775808]"), 4,
         "'b.st': shape of tensor 'a' holds a number above 2^63 - 1"},
        {AS("[99999999999999999999]"), 4,
         "'b.st': shape of tensor 'a' holds a number above 2^63 - 1"},
        {AS("[1,2,3,4,5,6,7,8,9]"), 4,
         "'b.st': tensor 'a' has rank above the maximum of 8"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":0}}", 4,
         "'b.st': data_offsets of tensor 'a' is not a list"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,-4]}}",
         4, "'b.st': data_offsets of tensor 'a' holds -4, not a "
            "non-negative integer"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4,8]}}",
         8, "'b.st': data_offsets of tensor 'a' has more than 2 numbers"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0]}}", 8,
         "'b.st': data_offsets of tensor 'a' needs 2 numbers"},
        /* the entries against the file */
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}",
         8, "'b.st': data_offsets [4, 0] of tensor 'a' are outside the "
            "data (8 bytes)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
         8, "'b.st': data_offsets [8, 12] of tensor 'a' are outside the "
            "data (8 bytes)"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":"
         "[0,18446744073709551615]}}", 8,
         "'b.st': data_offsets of tensor 'a' holds a number above 2^63 - 1"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}",
         8, "'b.st': tensor 'a' has 4 bytes of data, but its shape and "
            "dtype F32 need 8"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
         "\"data_offsets\":[0,4]}}", 8,
         "'b.st': tensor 'a': shape product overflows"},
        {"{\"a\":{\"dtype\":\"U8\",\"shape\":[68719476737,0],"
         "\"data_offsets\":[0,0]}}", 8,
         "'b.st': tensor 'a': the axes of this empty tensor are too large: "
         "68719476737 bytes exceed the tensor size limit of 64 GiB"},
        {"{\"a\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[2,6]}}",
         8, "'b.st': tensors 'a' and 'b' overlap in the file"},
        {"{\"z\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
         "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[3,5]}}",
         8, "'b.st': tensors 'z' and 'a' overlap in the file"},
    };
#undef A
#undef AS
    unsigned char f[512];
    char err[300];

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = mkst(f, cases[i].header, (size_t)cases[i].data);
        TlSafetensors *s = tl_safetensors_open_mem(f, n, "b.st", err,
                                                   sizeof err);
        CHECK(s == NULL);
        if (!s)
            CHECK_STR(err, cases[i].msg);
        tl_safetensors_close(s);
    }
    /* NUL bytes in the header, and after the object */
    {
        static const char in[] = "{\"a\0\":{}}", after[] = "{}\0     ";
        size_t n = mkst_n(f, in, sizeof in - 1, 0);
        CHECK(!tl_safetensors_open_mem(f, n, "b.st", err, sizeof err));
        CHECK_STR(err, "'b.st': malformed header: unexpected NUL byte at "
                       "byte 3 of the header");
        n = mkst_n(f, after, sizeof after - 1, 0);
        CHECK(!tl_safetensors_open_mem(f, n, "b.st", err, sizeof err));
        CHECK_STR(err, "'b.st': malformed header: unexpected text after "
                       "the header object at byte 2 of the header");
    }
    CHECK(!tl_safetensors_open_mem("1234567", 7, "b.st", err, sizeof err));
    CHECK_STR(err, "'b.st': not a .safetensors file (shorter than 8 "
                   "bytes)");
    CHECK(!tl_safetensors_open_mem("\0\0\0\0\0\0\0\x80", 8, "b.st", err,
                                   sizeof err));
    CHECK_STR(err, "'b.st': header length 9223372036854775808 is not sane "
                   "(limit 100000000); not a .safetensors file?");
    CHECK(!tl_safetensors_open_mem("\x10\0\0\0\0\0\0\0{}", 10, "b.st", err,
                                   sizeof err));
    CHECK_STR(err, "'b.st': header of 16 bytes runs past the end of the "
                   "file (10 bytes)");
}

/* Valid files that are less usual: escapes in names, gaps, an empty
 * tensor at the very end, a header padded with other blanks. */
static void test_st_variants(void)
{
    unsigned char f[512];
    char err[300];
    TlSafetensors *s;
    TlTensor *t;
    size_t n = mkst(f, "{\"\\u00e9\\ud83d\\ude00\\uffff\\/\\n\":{\"dtype\":"
                       "\"I8\",\"shape\":[2],\"data_offsets\":[4,6]},\r\n"
                       "\"e\":{\"data_offsets\":[8,8],\"shape\":[0,3],"
                       "\"dtype\":\"BF16\"},\"__metadata__\":{}}\t",
                    8);
    f[n - 4] = 0xfe;
    f[n - 3] = 3;
    s = tl_safetensors_open_mem(f, n, "v.st", err, sizeof err);
    if (!s)
        fprintf(stderr, "%s\n", err);
    CHECK(s && tl_safetensors_count(s) == 2);
    if (!s)
        return;
    CHECK_STR(tl_safetensors_entry(s, 1)->name,
              "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbf/\n");
    t = tl_safetensors_get(s, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbf/\n",
                           err, sizeof err);
    CHECK(t && t->dtype == DT_I8 && ((int8_t *)t->data)[0] == -2 &&
          ((int8_t *)t->data)[1] == 3);
    tl_tensor_unref(t);
    t = tl_safetensors_get(s, "e", err, sizeof err);
    CHECK(t && t->dtype == DT_BF16 && t->rank == 2 &&
          tl_tensor_numel(t) == 0);
    tl_tensor_unref(t);
    tl_safetensors_close(s);
}

/* ====================================================================
 * ONNX TensorProto, encoded by hand
 * ==================================================================== */

/* A protobuf message under construction. */
typedef struct Pb {
    unsigned char b[1024];
    size_t n;
} Pb;

static void pb_varint(Pb *p, uint64_t v)
{
    for (; v >= 0x80; v >>= 7)
        p->b[p->n++] = (unsigned char)(v | 0x80);
    p->b[p->n++] = (unsigned char)v;
}

/* Field numbers of onnx.TensorProto. */
enum {
    TP_DIMS = 1, TP_DATA_TYPE = 2, TP_SEGMENT = 3, TP_FLOAT = 4,
    TP_INT32 = 5, TP_STRING = 6, TP_INT64 = 7, TP_NAME = 8, TP_RAW = 9,
    TP_DOUBLE = 10, TP_UINT64 = 11, TP_EXTERNAL = 13, TP_LOCATION = 14
};

/* A varint field (int32 and int64 values, enums, sign-extended). */
static void pb_int(Pb *p, int field, int64_t v)
{
    pb_varint(p, (uint64_t)field << 3);
    pb_varint(p, (uint64_t)v);
}

/* A length-delimited field: bytes, strings, packed lists, messages. */
static void pb_bytes(Pb *p, int field, const void *d, size_t n)
{
    pb_varint(p, (uint64_t)field << 3 | 2);
    pb_varint(p, n);
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

/* A packed list of varints. */
static void pb_packed(Pb *p, int field, const int64_t *v, int n)
{
    Pb list = {{0}, 0};
    for (int i = 0; i < n; i++)
        pb_varint(&list, (uint64_t)v[i]);
    pb_bytes(p, field, list.b, list.n);
}

/* data_type and the dims (not packed, as protobuf writes them). */
static void pb_head(Pb *p, int data_type, int rank, const int64_t *dims)
{
    p->n = 0;
    for (int i = 0; i < rank; i++)
        pb_int(p, TP_DIMS, dims[i]);
    pb_int(p, TP_DATA_TYPE, data_type);
}

static TlTensor *pb_read(const Pb *p, char *err, size_t errlen)
{
    return tl_onnx_tensor_read_mem(p->b, p->n, "t.pb", err, errlen);
}

static void test_onnx(void)
{
    int64_t d23[] = {2, 3}, d3[] = {3}, d03[] = {0, 3};
    char err[300];
    Pb p;
    TlTensor *t;

    /* float in raw_data, with a name */
    {
        float v[] = {0, 1.5f, -2, 3, 4, 5};
        pb_head(&p, 1, 2, d23);
        pb_bytes(&p, TP_NAME, "x", 1);
        pb_bytes(&p, TP_RAW, v, sizeof v);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_F32 && t->rank == 2 &&
              t->shape[0] == 2 && t->shape[1] == 3);
        CHECK(t && !memcmp(t->data, v, sizeof v));
        tl_tensor_unref(t);
        /* float_data, packed, and one float at a time (fixed32) */
        pb_head(&p, 1, 2, d23);
        pb_bytes(&p, TP_FLOAT, v, sizeof v);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && !memcmp(t->data, v, sizeof v));
        tl_tensor_unref(t);
        pb_head(&p, 1, 2, d23);
        for (int i = 0; i < 6; i++) {
            pb_varint(&p, TP_FLOAT << 3 | 5);
            memcpy(p.b + p.n, &v[i], 4);
            p.n += 4;
        }
        t = pb_read(&p, err, sizeof err);
        CHECK(t && !memcmp(t->data, v, sizeof v));
        tl_tensor_unref(t);
    }
    /* double_data, int64_data */
    {
        double v[] = {0.25, -1e300, 7};
        int64_t w[] = {-1, INT64_MAX, INT64_MIN};
        pb_head(&p, 11, 1, d3);
        pb_bytes(&p, TP_DOUBLE, v, sizeof v);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_F64 && !memcmp(t->data, v, sizeof v));
        tl_tensor_unref(t);
        pb_head(&p, 7, 1, d3);
        pb_packed(&p, TP_INT64, w, 3);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_I64 && !memcmp(t->data, w, sizeof w));
        tl_tensor_unref(t);
    }
    /* int32_data carries the small types: i8, u8, i16, i32, bool, and
     * the bits of f16 and bf16 */
    {
        static const struct {
            int onnx;
            TlDType dt;
            int64_t v[3];
            double want[3];
        } cases[] = {
            {3, DT_I8, {-128, 0, 127}, {-128, 0, 127}},
            {2, DT_U8, {0, 7, 255}, {0, 7, 255}},
            {4, DT_U16, {0, 7, 65535}, {0, 7, 65535}},
            {5, DT_I16, {-32768, 1, 32767}, {-32768, 1, 32767}},
            {6, DT_I32, {INT32_MIN, -1, INT32_MAX},
             {INT32_MIN, -1, INT32_MAX}},
            {9, DT_BOOL, {1, 0, 1}, {1, 0, 1}},
            {10, DT_F16, {0x3c00, 0xc000, 0x7c00}, {1, -2, INFINITY}},
            {16, DT_BF16, {0x3f80, 0xc040, 0}, {1, -3, 0}},
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            pb_head(&p, cases[c].onnx, 1, d3);
            pb_packed(&p, TP_INT32, cases[c].v, 3);
            t = pb_read(&p, err, sizeof err);
            if (!t)
                fprintf(stderr, "%s\n", err);
            CHECK(t && t->dtype == cases[c].dt);
            for (int64_t i = 0; t && i < 3; i++)
                CHECK(tl_tensor_get_f64(t, &i) == cases[c].want[i]);
            tl_tensor_unref(t);
        }
    }
    /* uint64_data carries u32 and u64 (u64 read unsigned) */
    {
        int64_t w[] = {0, 4294967295, -1};
        int64_t i = 2;
        pb_head(&p, 12, 1, d3);
        pb_packed(&p, TP_UINT64, w, 2);
        pb_packed(&p, TP_UINT64, w + 1, 1);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_U32 &&
              tl_tensor_get_f64(t, &i) == 4294967295.0);
        tl_tensor_unref(t);
        pb_head(&p, 13, 1, d3);
        pb_packed(&p, TP_UINT64, w, 3);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_U64 && tl_tensor_get_f64(t, &i) == 0x1p64);
        tl_tensor_unref(t);
    }
    /* raw_data of the small types: i16 little-endian, bool bytes other
     * than 0/1 read as true; a scalar; an empty tensor with no data */
    {
        unsigned char raw[] = {0x01, 0x80, 0xff, 0x7f, 0, 0};
        unsigned char b[] = {0, 2, 1};
        int64_t i;
        pb_head(&p, 5, 1, d3);
        pb_bytes(&p, TP_RAW, raw, sizeof raw);
        t = pb_read(&p, err, sizeof err);
        i = 0;
        CHECK(t && tl_tensor_get_i64(t, &i) == -32767);
        i = 1;
        CHECK(t && tl_tensor_get_i64(t, &i) == 32767);
        tl_tensor_unref(t);
        pb_head(&p, 9, 1, d3);
        pb_bytes(&p, TP_RAW, b, sizeof b);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && !memcmp(t->data, "\0\1\1", 3));
        tl_tensor_unref(t);
        pb_head(&p, 7, 0, NULL);
        pb_packed(&p, TP_INT64, (int64_t[]){42}, 1);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->rank == 0 && tl_tensor_get_i64(t, NULL) == 42);
        tl_tensor_unref(t);
        pb_head(&p, 1, 2, d03);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->rank == 2 && tl_tensor_numel(t) == 0);
        tl_tensor_unref(t);
    }

    /* strings (string_data): interned, the empty one included */
    {
        int64_t i;
        pb_head(&p, 8, 1, d3);
        pb_bytes(&p, TP_STRING, "a", 1);
        pb_bytes(&p, TP_STRING, "", 0);
        pb_bytes(&p, TP_STRING, "h\xc3\xa9llo", 6);
        t = pb_read(&p, err, sizeof err);
        CHECK(t && t->dtype == DT_STR && tl_tensor_numel(t) == 3);
        i = 0;
        CHECK(t && !strcmp(tl_str_at(tl_tensor_at(t, &i)), "a"));
        i = 1;
        CHECK(t && !strcmp(tl_str_at(tl_tensor_at(t, &i)), ""));
        i = 2;
        CHECK(t && tl_str_at(tl_tensor_at(t, &i)) ==
                   tl_str_intern("h\xc3\xa9llo", 6));
        tl_tensor_unref(t);
    }

    /* errors, each with its message */
    {
        int64_t d9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, neg[] = {2, -1};
        int64_t big[] = {128, 0, 0}, bits[] = {65536, 0, 0};
        int64_t huge[] = {INT64_MAX, 0, INT64_MAX};
        float f[3] = {0};
        struct {
            Pb p;
            const char *msg;
        } cases[19];
        int n = 0;

        cases[n].p.n = 0;
        pb_bytes(&cases[n].p, TP_FLOAT, f, 4);
        cases[n++].msg = "'t.pb': not an ONNX tensor: it has no data_type";
        pb_head(&cases[n].p, 0, 1, d3);
        cases[n++].msg = "'t.pb': not an ONNX tensor: it has no data_type";
        pb_head(&cases[n].p, 8, 1, d3);
        pb_bytes(&cases[n].p, TP_STRING, "a", 1);
        cases[n++].msg = "'t.pb': string_data holds 1 values, but the "
                         "shape needs 3";
        pb_head(&cases[n].p, 8, 1, d3);
        pb_bytes(&cases[n].p, TP_STRING, "a", 1);
        pb_bytes(&cases[n].p, TP_STRING, "b\0c", 3);
        pb_bytes(&cases[n].p, TP_STRING, "d", 1);
        cases[n++].msg = "'t.pb': string 1 holds a NUL byte, which tdsl "
                         "strings cannot";
        pb_head(&cases[n].p, 8, 1, d3);
        pb_bytes(&cases[n].p, TP_RAW, "abc", 3);
        cases[n++].msg = "'t.pb': a string tensor keeps its values in "
                         "string_data, not raw_data";
        pb_head(&cases[n].p, 14, 1, d3);
        cases[n++].msg = "'t.pb': complex tensors (complex64) are not "
                         "supported";
        pb_head(&cases[n].p, 15, 1, d3);
        cases[n++].msg = "'t.pb': complex tensors (complex128) are not "
                         "supported";
        pb_head(&cases[n].p, 17, 1, d3);
        cases[n++].msg = "'t.pb': unknown ONNX data type 17";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_int(&cases[n].p, TP_LOCATION, 1);
        cases[n++].msg = "'t.pb': the tensor's data is in an external "
                         "file, which tdsl does not read; save it with the "
                         "data inside";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_bytes(&cases[n].p, TP_EXTERNAL, "\x0a\x01k\x12\x01v", 6);
        cases[n++].msg = "'t.pb': the tensor's data is in an external "
                         "file, which tdsl does not read; save it with the "
                         "data inside";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_bytes(&cases[n].p, TP_SEGMENT, "\x08\x00\x10\x03", 4);
        cases[n++].msg = "'t.pb': segmented tensors are not supported";
        pb_head(&cases[n].p, 1, 9, d9);
        cases[n++].msg = "'t.pb': rank 9 exceeds the maximum of 8";
        pb_head(&cases[n].p, 1, 2, neg);
        cases[n++].msg = "'t.pb': negative size -1 on axis 1";
        pb_head(&cases[n].p, 3, 3, huge);
        cases[n++].msg = "'t.pb': the axes of this empty tensor are too "
                         "large: shape product overflows";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_bytes(&cases[n].p, TP_RAW, f, 8);
        cases[n++].msg = "'t.pb': raw_data holds 8 bytes, but the shape "
                         "and dtype f32 need 12";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_bytes(&cases[n].p, TP_RAW, f, 12);
        pb_bytes(&cases[n].p, TP_FLOAT, f, 12);
        cases[n++].msg = "'t.pb': the values are in both raw_data and "
                         "float_data";
        pb_head(&cases[n].p, 1, 1, d3);
        pb_bytes(&cases[n].p, TP_FLOAT, f, 12);
        pb_packed(&cases[n].p, TP_INT64, big, 3);
        cases[n++].msg = "'t.pb': the values are in int64_data, but a f32 "
                         "tensor keeps them in float_data or raw_data";
        pb_head(&cases[n].p, 3, 1, d3);
        pb_packed(&cases[n].p, TP_INT32, big, 3);
        cases[n++].msg = "'t.pb': int32_data holds 128 at 0, out of range "
                         "for i8";
        pb_head(&cases[n].p, 10, 1, d3);
        pb_packed(&cases[n].p, TP_INT32, bits, 2);
        cases[n++].msg = "'t.pb': int32_data holds 2 values, but the shape "
                         "needs 3";
        TL_ASSERT(n == (int)(sizeof cases / sizeof *cases));
        for (int i = 0; i < n; i++) {
            t = pb_read(&cases[i].p, err, sizeof err);
            CHECK(t == NULL);
            if (!t)
                CHECK_STR(err, cases[i].msg);
            tl_tensor_unref(t);
        }
        /* u32 values above 32 bits in uint64_data */
        pb_head(&p, 12, 1, d3);
        pb_packed(&p, TP_UINT64, huge, 3);
        CHECK(!pb_read(&p, err, sizeof err));
        CHECK_STR(err, "'t.pb': uint64_data holds 9223372036854775807 at 0,"
                       " out of range for u32");
        /* f16 bits above 16 bits */
        pb_head(&p, 10, 1, d3);
        pb_packed(&p, TP_INT32, bits, 3);
        CHECK(!pb_read(&p, err, sizeof err));
        CHECK_STR(err, "'t.pb': int32_data holds 65536 at 0, out of range "
                       "for f16");
        /* not a protobuf at all: a field of wire type 7 */
        CHECK(!tl_onnx_tensor_read_mem("\x0f\x01", 2, "t.pb", err,
                                       sizeof err));
        CHECK_STR(err, "'t.pb': not an ONNX TensorProto (the protobuf does "
                       "not decode)");
        /* an empty file decodes to an empty message */
        CHECK(!tl_onnx_tensor_read_mem("", 0, "t.pb", err, sizeof err));
        CHECK_STR(err, "'t.pb': not an ONNX tensor: it has no data_type");
    }
    /* every truncation of a valid message gives a tensor or an error */
    {
        int64_t w[] = {-1, 300, 70000};
        pb_head(&p, 6, 1, d3);
        pb_bytes(&p, TP_NAME, "name", 4);
        pb_packed(&p, TP_INT32, w, 3);
        for (size_t len = 0; len <= p.n; len++)
            tl_tensor_unref(tl_onnx_tensor_read_mem(p.b, len, "t.pb", err,
                                                    sizeof err));
    }
}

/* ====================================================================
 * Corruption: every truncation and one-byte changes of valid files
 * ==================================================================== */

static void corrupt(const TlBuf *b, int npy)
{
    static const unsigned char vals[] = {0, 1, '"', ',', '0', '9', '[',
                                         '{', 0x7f, 0x80, 0xff};
    unsigned char *f = tl_xmalloc(b->len);
    char err[300];

    for (size_t len = 0; len <= b->len; len++) {
        memcpy(f, b->s, len);
        if (npy) {
            tl_tensor_unref(tl_npy_read_mem(f, len, "c", err, sizeof err));
        } else {
            TlSafetensors *s = tl_safetensors_open_mem(f, len, "c", err,
                                                       sizeof err);
            for (int i = 0; s && i < tl_safetensors_count(s); i++)
                tl_tensor_unref(tl_safetensors_get(
                    s, tl_safetensors_entry(s, i)->name, err, sizeof err));
            tl_safetensors_close(s);
        }
    }
    for (size_t at = 0; at < b->len; at++) {
        for (size_t v = 0; v < sizeof vals; v++) {
            memcpy(f, b->s, b->len);
            f[at] = vals[v];
            if (npy) {
                tl_tensor_unref(tl_npy_read_mem(f, b->len, "c", err,
                                                sizeof err));
            } else {
                TlSafetensors *s = tl_safetensors_open_mem(f, b->len, "c",
                                                           err, sizeof err);
                for (int i = 0; s && i < tl_safetensors_count(s); i++)
                    tl_tensor_unref(tl_safetensors_get(
                        s, tl_safetensors_entry(s, i)->name, err,
                        sizeof err));
                tl_safetensors_close(s);
            }
        }
    }
    free(f);
}

static void test_corruption(void)
{
    int64_t shape[] = {2, 3};
    TlTensor *a = make(DT_F32, 2, shape), *b = make(DT_I16, 1, shape);
    TlNamedTensor ts[] = {{"a", a}, {"bb", b}};
    const char *meta[] = {"k", "v"};
    TlBuf buf;

    buf_init(&buf);
    tl_npy_write_buf(&buf, a, "c", NULL, 0);
    corrupt(&buf, 1);
    buf_free(&buf);
    tl_safetensors_write_buf(&buf, ts, 2, meta, 1, "c", NULL, 0);
    corrupt(&buf, 0);
    buf_free(&buf);
    tl_tensor_unref(a);
    tl_tensor_unref(b);
}

/* ====================================================================
 * Files
 * ==================================================================== */

static void test_files(void)
{
    char dir[] = "/tmp/tdsl-tensorio.XXXXXX", path[300], err[400];
    int64_t shape[] = {3, 2};
    TlTensor *a = make(DT_F64, 2, shape), *h = make(DT_BF16, 2, shape), *u;
    TlNamedTensor ts[] = {{"h", h}, {"a", a}};
    struct stat st;

    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        check_failed();
        return;
    }
    snprintf(path, sizeof path, "%s/a.npy", dir);
    CHECK(tl_npy_write(path, a, err, sizeof err) == 0);
    u = tl_npy_read(path, err, sizeof err);
    CHECK(same_tensor(a, u));
    tl_tensor_unref(u);
    remove(path);
    /* bf16 refused before the file is made */
    snprintf(path, sizeof path, "%s/h.npy", dir);
    CHECK(tl_npy_write(path, h, err, sizeof err) == -1);
    CHECK(stat(path, &st) != 0);

    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    CHECK(tl_safetensors_write(path, ts, 2, NULL, 0, err, sizeof err) == 0);
    u = tl_safetensors_read(path, "h", err, sizeof err);
    CHECK(same_tensor(h, u));
    tl_tensor_unref(u);
    CHECK(!tl_safetensors_read(path, NULL, err, sizeof err));
    {
        char want[400];
        snprintf(want, sizeof want, "'%s': the file holds 2 tensors; say "
                 "which one to read", path);
        CHECK_STR(err, want);
    }
    CHECK(tl_safetensors_write(path, ts, 1, NULL, 0, err, sizeof err) == 0);
    u = tl_safetensors_read(path, NULL, err, sizeof err);
    CHECK(same_tensor(h, u));
    tl_tensor_unref(u);
    remove(path);

    /* missing files, folders, unwritable places */
    snprintf(path, sizeof path, "%s/none.npy", dir);
    CHECK(!tl_npy_read(path, err, sizeof err));
    CHECK(strstr(err, "': cannot open: No such file or directory") != NULL);
    CHECK(!tl_safetensors_open(dir, err, sizeof err));
    CHECK(strstr(err, "': cannot read: not a regular file") != NULL);
    snprintf(path, sizeof path, "%s/no/such/dir/x.npy", dir);
    CHECK(tl_npy_write(path, a, err, sizeof err) == -1);
    CHECK(strstr(err, "': cannot create: No such file or directory"));
    CHECK(tl_safetensors_write(path, ts, 2, NULL, 0, err, sizeof err) ==
          -1);
    CHECK(strstr(err, "': cannot create: No such file or directory"));
    /* a full disk is reported (and /dev/full, not a regular file, is
     * not removed as a half-written file would be) */
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        CHECK(tl_npy_write("/dev/full", a, err, sizeof err) == -1);
        CHECK_STR(err, "'/dev/full': cannot write: No space left on "
                       "device");
        CHECK(stat("/dev/full", &st) == 0);
    }
    /* an ONNX TensorProto file: f64 3x2 in raw_data */
    {
        Pb p;
        FILE *fp;
        pb_head(&p, 11, 2, shape);
        pb_bytes(&p, TP_RAW, a->data, 48);
        snprintf(path, sizeof path, "%s/a.pb", dir);
        fp = fopen(path, "wb");
        CHECK(fp && fwrite(p.b, 1, p.n, fp) == p.n && fclose(fp) == 0);
        u = tl_onnx_tensor_read(path, err, sizeof err);
        CHECK(same_tensor(a, u));
        tl_tensor_unref(u);
        remove(path);
        CHECK(!tl_onnx_tensor_read(path, err, sizeof err));
        CHECK(strstr(err, "': cannot open: No such file or directory"));
    }
    rmdir(dir);
    tl_tensor_unref(a);
    tl_tensor_unref(h);
}

/* ====================================================================
 * The helper commands of tests/cli/tensorio_numpy.sh
 * ==================================================================== */

static void dump_tensor(const char *name, const TlTensor *t)
{
    int64_t n = tl_tensor_numel(t);
    printf("%s %s", name, dt_name(t->dtype));
    for (int i = 0; i < t->rank; i++)
        printf(" %lld", (long long)t->shape[i]);
    printf("\n");
    for (int64_t i = 0; i < n; i++) {
        const char *p = (const char *)t->data + i * dt_size(t->dtype);
        if (dt_is_float(t->dtype))
            printf("%.17g\n", tl_dt_load_f64(t->dtype, p));
        else if (t->dtype == DT_U64)
            printf("%llu\n",
                   (unsigned long long)tl_dt_load_i64(t->dtype, p));
        else
            printf("%lld\n", (long long)tl_dt_load_i64(t->dtype, p));
    }
}

static int cmd_dump(const char *path)
{
    char err[400];
    size_t len = strlen(path);

    if ((len > 4 && !strcmp(path + len - 4, ".npy")) ||
        (len > 3 && !strcmp(path + len - 3, ".pb"))) {
        TlTensor *t = path[len - 1] == 'y'
                          ? tl_npy_read(path, err, sizeof err)
                          : tl_onnx_tensor_read(path, err, sizeof err);
        if (!t) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        dump_tensor("-", t);
        tl_tensor_unref(t);
    } else {
        TlSafetensors *f = tl_safetensors_open(path, err, sizeof err);
        if (!f) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        for (int i = 0; i < tl_safetensors_meta_count(f); i++)
            printf("meta %s=%s\n", tl_safetensors_meta_key(f, i),
                   tl_safetensors_meta_value(f, i));
        for (int i = 0; i < tl_safetensors_count(f); i++) {
            const char *k = tl_safetensors_entry(f, i)->name;
            TlTensor *t = tl_safetensors_get(f, k, err, sizeof err);
            if (!t) {
                fprintf(stderr, "%s\n", err);
                tl_safetensors_close(f);
                return 1;
            }
            dump_tensor(k, t);
            tl_tensor_unref(t);
        }
        tl_safetensors_close(f);
    }
    return 0;
}

/* One file per dtype and shape (name: DTYPE_DIMS.npy, dims joined by
 * 'x', "s" for rank 0), a transposed view, and one .safetensors file
 * holding every dtype. */
static int cmd_write(const char *dir)
{
    int64_t shapes[][3] = {{0}, {7}, {2, 3, 4}, {2, 0}};
    int ranks[] = {0, 1, 3, 2};
    const char *dims[] = {"s", "7", "2x3x4", "2x0"};
    const char *meta[] = {"made_by", "tdsl"};
    TlNamedTensor ts[NDTYPES];
    TlTensor *all[NDTYPES];
    char path[600], err[700];
    int rc = 0;

    for (int d = 0; d < NDTYPES; d++) {
        TlDType dt = all_dtypes[d];
        for (int s = 0; s < 4 && dt != DT_BF16; s++) {
            TlTensor *t = make(dt, ranks[s], shapes[s]);
            snprintf(path, sizeof path, "%s/%s_%s.npy", dir, dt_name(dt),
                     dims[s]);
            if (tl_npy_write(path, t, err, sizeof err) < 0) {
                fprintf(stderr, "%s\n", err);
                rc = 1;
            }
            tl_tensor_unref(t);
        }
        all[d] = make(dt, 2, (int64_t[]){3, 4});
        ts[d].name = dt_name(dt);
        ts[d].t = all[d];
    }
    {
        /* 3x4 i32 transposed: a view whose strides are not packed */
        TlTensor *v = tl_tensor_permute(all[4], (int[]){1, 0});
        snprintf(path, sizeof path, "%s/i32_T.npy", dir);
        if (tl_npy_write(path, v, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            rc = 1;
        }
        tl_tensor_unref(v);
    }
    snprintf(path, sizeof path, "%s/all.safetensors", dir);
    if (tl_safetensors_write(path, ts, NDTYPES, meta, 1, err, sizeof err)
        < 0) {
        fprintf(stderr, "%s\n", err);
        rc = 1;
    }
    for (int d = 0; d < NDTYPES; d++)
        tl_tensor_unref(all[d]);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "dump"))
        return cmd_dump(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "write"))
        return cmd_write(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: test_tensorio [dump FILE | write DIR]\n");
        return 2;
    }
    test_npy_roundtrip();
    test_npy_bytes();
    test_npy_variants();
    test_npy_errors();
    test_st_roundtrip();
    test_st_write_errors();
    test_st_errors();
    test_st_variants();
    test_onnx();
    test_corruption();
    test_files();
    if (check_done())
        return 1;
    printf("test_tensorio: ok\n");
    return 0;
}
