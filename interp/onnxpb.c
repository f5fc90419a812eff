/*
 * onnxpb.c - ONNX TensorProto files (.pb), the form of ONNX's test data
 * and initializers: decoded by protobuf-c with the code generated from
 * the system onnx.proto, then turned into a packed tensor.  The values
 * may be in raw_data (fixed width, little-endian) or in the repeated
 * field the data type uses (float_data, int32_data, int64_data,
 * double_data; int32_data carries 8- and 16-bit integers, bools, and
 * the bits of f16 and bf16).  Counts, sizes and value ranges are checked
 * before anything is copied.  External data, segments, strings, complex
 * numbers and unsigned types above 8 bits are refused with a message.
 * Strings (string_data) become str tensors, each string interned; a
 * string with a NUL byte is refused (tdsl strings end at NUL).  Plain
 * tensors are also written (tl_onnx_tensor_write): raw_data, or
 * string_data for str.
 * Also SequenceProto files (ONNX's sequence test data, tensors only)
 * and OptionalProto files (of a tensor, a sequence or nothing), read
 * and written (interp/onnx_seq.proto says where that schema comes
 * from).
 */
#include "interp/interp_int.h"

#include "onnx/onnx.pb-c.h"
#include "onnx/onnx_seq.pb-c.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* protobuf's own limit on a message (2 GiB). */
#define MAX_FILE 0x7fffffffu
/* SequenceProto's elem_type for tensors, and the most elements read
 * (each becomes a kernel parameter). */
#define TDSL_SEQ_TENSOR 1
#define TDSL_SEQ_MAX 4096
/* OptionalProto's elem_type for no element, a tensor and a sequence. */
#define TDSL_OPT_NONE 0
#define TDSL_OPT_TENSOR 1
#define TDSL_OPT_SEQUENCE 3

/* ONNX's data types and the dtypes they are in tdsl. */
static const struct {
    int32_t onnx;
    TlDType dt;
    const char *name;
} types[] = {
    {ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, DT_F32, "float"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, DT_U8, "uint8"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__INT8, DT_I8, "int8"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT16, DT_U16, "uint16"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__INT16, DT_I16, "int16"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__INT32, DT_I32, "int32"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__INT64, DT_I64, "int64"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__STRING, DT_STR, "string"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, DT_BOOL, "bool"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, DT_F16, "float16"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, DT_F64, "double"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT32, DT_U32, "uint32"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__UINT64, DT_U64, "uint64"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64, DT_NONE, "complex64"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128, DT_NONE, "complex128"},
    {ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16, DT_BF16, "bfloat16"},
};

/* The tdsl dtype of ONNX data type t, or DT_NONE after a message. */
static TlDType onnx_dtype(const Onnx__TensorProto *p, const char *name,
                          char *err, size_t errlen)
{
    if (!p->has_data_type ||
        p->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED) {
        itp_error(err, errlen, name, "not an ONNX tensor: it has no "
                  "data_type");
        return DT_NONE;
    }
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        if (types[i].onnx != p->data_type)
            continue;
        if (types[i].dt != DT_NONE)
            return types[i].dt;
        if (p->data_type >= ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64)
            itp_error(err, errlen, name, "complex tensors (%s) are not "
                      "supported", types[i].name);
        return DT_NONE;
    }
    itp_error(err, errlen, name, "unknown ONNX data type %d",
              (int)p->data_type);
    return DT_NONE;
}

/* The repeated field that holds values of dt, and its count. */
static const char *typed_field(const Onnx__TensorProto *p, TlDType dt,
                               size_t *n)
{
    switch (dt) {
    case DT_F32:
        *n = p->n_float_data;
        return "float_data";
    case DT_F64:
        *n = p->n_double_data;
        return "double_data";
    case DT_I64:
        *n = p->n_int64_data;
        return "int64_data";
    case DT_U32:
    case DT_U64:
        *n = p->n_uint64_data;
        return "uint64_data";
    case DT_STR:
        *n = p->n_string_data;
        return "string_data";
    default:
        *n = p->n_int32_data;
        return "int32_data";
    }
}

/* A repeated field other than `want` that holds values, or NULL. */
static const char *other_field(const Onnx__TensorProto *p,
                               const char *want)
{
    const struct {
        const char *name;
        size_t n;
    } fields[] = {
        {"float_data", p->n_float_data}, {"int32_data", p->n_int32_data},
        {"int64_data", p->n_int64_data}, {"double_data", p->n_double_data},
        {"uint64_data", p->n_uint64_data},
        {"string_data", p->n_string_data},
    };

    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].n && (!want || strcmp(fields[i].name, want)))
            return fields[i].name;
    return NULL;
}

/* Fills packed t from int32_data, each value checked against the
 * range of t's dtype (the 16 bits of f16 and bf16 are 0 .. 65535). */
static int from_int32(TlTensor *t, const int32_t *v, const char *name,
                      char *err, size_t errlen)
{
    int64_t n = tl_tensor_numel(t), lo, hi;

    switch (t->dtype) {
    case DT_I8: lo = INT8_MIN, hi = INT8_MAX; break;
    case DT_U8: lo = 0, hi = UINT8_MAX; break;
    case DT_I16: lo = INT16_MIN, hi = INT16_MAX; break;
    case DT_U16:
    case DT_F16:
    case DT_BF16: lo = 0, hi = UINT16_MAX; break;
    case DT_BOOL: lo = 0, hi = 1; break;
    default: lo = INT32_MIN, hi = INT32_MAX; break;
    }
    for (int64_t i = 0; i < n; i++) {
        if (v[i] < lo || v[i] > hi) {
            itp_error(err, errlen, name, "int32_data holds %ld at %lld, "
                      "out of range for %s", (long)v[i], (long long)i,
                      dt_name(t->dtype));
            return -1;
        }
        switch (t->dtype) {
        case DT_I8: ((int8_t *)t->data)[i] = (int8_t)v[i]; break;
        case DT_U8:
        case DT_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)v[i]; break;
        case DT_I16: ((int16_t *)t->data)[i] = (int16_t)v[i]; break;
        case DT_U16:
        case DT_F16:
        case DT_BF16: ((uint16_t *)t->data)[i] = (uint16_t)v[i]; break;
        default: ((int32_t *)t->data)[i] = v[i]; break;
        }
    }
    return 0;
}

/* Fills packed u32 t from uint64_data, each value checked. */
static int from_uint64(TlTensor *t, const uint64_t *v, const char *name,
                       char *err, size_t errlen)
{
    int64_t n = tl_tensor_numel(t);

    for (int64_t i = 0; i < n; i++) {
        if (v[i] > UINT32_MAX) {
            itp_error(err, errlen, name, "uint64_data holds %llu at %lld, "
                      "out of range for u32", (unsigned long long)v[i],
                      (long long)i);
            return -1;
        }
        ((uint32_t *)t->data)[i] = (uint32_t)v[i];
    }
    return 0;
}

static TlTensor *convert(const Onnx__TensorProto *p, const char *name,
                         char *err, size_t errlen)
{
    int64_t shape[TL_MAX_RANK], nbytes, numel;
    const char *field, *other;
    size_t count;
    TlDType dt;
    TlTensor *t;
    char msg[200];

    if ((p->has_data_location &&
         p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
        p->n_external_data) {
        itp_error(err, errlen, name, "the tensor's data is in an external "
                  "file, which tdsl does not read; save it with the data "
                  "inside");
        return NULL;
    }
    if (p->segment) {
        itp_error(err, errlen, name, "segmented tensors are not "
                  "supported");
        return NULL;
    }
    if ((dt = onnx_dtype(p, name, err, errlen)) == DT_NONE)
        return NULL;
    if (p->n_dims > TL_MAX_RANK) {
        itp_error(err, errlen, name, "rank %zu exceeds the maximum of %d",
                  p->n_dims, TL_MAX_RANK);
        return NULL;
    }
    for (size_t i = 0; i < p->n_dims; i++)
        shape[i] = p->dims[i];
    nbytes = tl_shape_nbytes(dt, (int)p->n_dims, shape, msg, sizeof msg);
    if (nbytes < 0) {
        itp_error(err, errlen, name, "%s", msg);
        return NULL;
    }
    numel = nbytes / dt_size(dt);
    field = typed_field(p, dt, &count);
    if (dt == DT_STR && p->has_raw_data) {
        itp_error(err, errlen, name, "a string tensor keeps its values in "
                  "string_data, not raw_data");
        return NULL;
    }
    if (p->has_raw_data) {
        if ((other = other_field(p, NULL))) {
            itp_error(err, errlen, name, "the values are in both raw_data "
                      "and %s", other);
            return NULL;
        }
        if (p->raw_data.len != (uint64_t)nbytes) {
            itp_error(err, errlen, name, "raw_data holds %zu bytes, but "
                      "the shape and dtype %s need %lld", p->raw_data.len,
                      dt_name(dt), (long long)nbytes);
            return NULL;
        }
    } else {
        if ((other = other_field(p, field))) {
            itp_error(err, errlen, name, "the values are in %s, but a "
                      "%s tensor keeps them in %s or raw_data", other,
                      dt_name(dt), field);
            return NULL;
        }
        if (count != (uint64_t)numel) {
            itp_error(err, errlen, name, "%s holds %zu values, but the "
                      "shape needs %lld", field, count, (long long)numel);
            return NULL;
        }
    }

    t = tl_tensor_new(dt, (int)p->n_dims, shape, msg, sizeof msg);
    if (!t) {
        itp_error(err, errlen, name, "%s", msg);
        return NULL;
    }
    if (dt == DT_STR) {
        for (int64_t i = 0; i < numel; i++) {
            const ProtobufCBinaryData *b = &p->string_data[i];
            if (b->len && memchr(b->data, 0, b->len)) {
                itp_error(err, errlen, name, "string %lld holds a NUL "
                          "byte, which tdsl strings cannot", (long long)i);
                tl_tensor_unref(t);
                return NULL;
            }
            tl_str_put((char *)t->data + i * 8,
                       tl_str_intern((const char *)b->data, b->len));
        }
    } else if (p->has_raw_data) {
        if (nbytes)
            memcpy(t->data, p->raw_data.data, (size_t)nbytes);
        if (itp_big_endian())
            itp_swap_bytes(t->data, numel, dt_size(dt));
        if (dt == DT_BOOL)
            for (int64_t i = 0; i < numel; i++)
                ((uint8_t *)t->data)[i] = ((uint8_t *)t->data)[i] != 0;
    } else if (numel == 0) {
        /* nothing to copy; the field may be absent (a NULL array) */
    } else if (dt == DT_F32) {
        memcpy(t->data, p->float_data, (size_t)nbytes);
    } else if (dt == DT_F64) {
        memcpy(t->data, p->double_data, (size_t)nbytes);
    } else if (dt == DT_I64) {
        memcpy(t->data, p->int64_data, (size_t)nbytes);
    } else if (dt == DT_U64) {
        memcpy(t->data, p->uint64_data, (size_t)nbytes);
    } else if (dt == DT_U32) {
        if (from_uint64(t, p->uint64_data, name, err, errlen) < 0) {
            tl_tensor_unref(t);
            return NULL;
        }
    } else if (from_int32(t, p->int32_data, name, err, errlen) < 0) {
        tl_tensor_unref(t);
        return NULL;
    }
    return t;
}

TlTensor *tl_onnx_tensor_read_mem(const void *data, size_t len,
                                  const char *name, char *err,
                                  size_t errlen)
{
    Onnx__TensorProto *p;
    TlTensor *t;

    if (len > MAX_FILE) {
        itp_error(err, errlen, name, "%zu bytes are too many for a "
                  "protobuf message (limit 2 GiB)", len);
        return NULL;
    }
    p = onnx__tensor_proto__unpack(NULL, len, data);
    if (!p) {
        itp_error(err, errlen, name, "not an ONNX TensorProto (the "
                  "protobuf does not decode)");
        return NULL;
    }
    t = convert(p, name, err, errlen);
    onnx__tensor_proto__free_unpacked(p, NULL);
    return t;
}

/* The bytes of file path (at most MAX_FILE), `what` it holds named in
 * messages; NULL after a message. */
static void *read_whole(const char *path, const char *what,
                        size_t *len, char *err, size_t errlen)
{
    ItpSrc s;
    void *buf;

    if (itp_src_open(&s, path, err, errlen) < 0)
        return NULL;
    if (s.size > MAX_FILE) {
        itp_error(err, errlen, path, "%llu bytes are too many for a "
                  "protobuf message (limit 2 GiB)",
                  (unsigned long long)s.size);
        itp_src_close(&s);
        return NULL;
    }
    buf = tl_xmalloc(s.size ? (size_t)s.size : 1);
    if (itp_src_read(&s, 0, buf, (size_t)s.size, what, err,
                     errlen) < 0) {
        free(buf);
        buf = NULL;
    }
    *len = (size_t)s.size;
    itp_src_close(&s);
    return buf;
}

TlTensor *tl_onnx_tensor_read(const char *path, char *err, size_t errlen)
{
    TlTensor *t;
    size_t len;
    void *buf = read_whole(path, "the tensor", &len, err, errlen);

    if (!buf)
        return NULL;
    t = tl_onnx_tensor_read_mem(buf, len, path, err, errlen);
    free(buf);
    return t;
}

TlTensor *tl_onnx_bf16_bits(TlTensor *t)
{
    /* Both are two-byte elements: only the dtype changes. */
    if (t && t->dtype == DT_U16)
        t->dtype = DT_BF16;
    return t;
}

TlTensor **tl_onnx_sequence_read(const char *path, int *n, char *err,
                                 size_t errlen)
{
    TlTensor **ts;
    size_t len;
    void *buf = read_whole(path, "the sequence", &len, err, errlen);

    if (!buf)
        return NULL;
    ts = tl_onnx_sequence_read_mem(buf, len, path, n, err, errlen);
    free(buf);
    return ts;
}

/* The tensors of sequence p (*n of them); NULL after a message. */
static TlTensor **seq_convert(const TdslOnnx__SequenceProto *p,
                              const char *path, int *n, char *err,
                              size_t errlen)
{
    TlTensor **ts;

    /* A sequence of maps, sequences or sparse tensors keeps its values
     * in fields this schema leaves out: its elem_type says so. */
    if (!p->has_elem_type ||
        (p->elem_type != TDSL_SEQ_TENSOR && p->n_tensor_values) ||
        (p->elem_type != TDSL_SEQ_TENSOR && p->elem_type != 0)) {
        if (!p->has_elem_type)
            itp_error(err, errlen, path, "not an ONNX SequenceProto: it "
                      "has no elem_type");
        else
            itp_error(err, errlen, path, "a sequence of elem_type %d: "
                      "only sequences of tensors (1) are supported",
                      (int)p->elem_type);
        return NULL;
    }
    if (p->n_tensor_values > TDSL_SEQ_MAX) {
        itp_error(err, errlen, path, "%zu elements are too many (the "
                  "limit is %d)", p->n_tensor_values, TDSL_SEQ_MAX);
        return NULL;
    }
    ts = tl_xcalloc(p->n_tensor_values + 1, sizeof *ts);
    for (size_t i = 0; i < p->n_tensor_values; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s (element %zu)", path, i);
        if (!(ts[i] = convert(p->tensor_values[i], name, err, errlen))) {
            for (size_t j = 0; j < i; j++)
                tl_tensor_unref(ts[j]);
            free(ts);
            return NULL;
        }
    }
    *n = (int)p->n_tensor_values;
    return ts;
}

TlTensor **tl_onnx_sequence_read_mem(const void *data, size_t len,
                                     const char *path, int *n, char *err,
                                     size_t errlen)
{
    TdslOnnx__SequenceProto *p;
    TlTensor **ts;

    p = tdsl_onnx__sequence_proto__unpack(NULL, len, data);
    if (!p) {
        itp_error(err, errlen, path, "not an ONNX SequenceProto (the "
                  "protobuf does not decode)");
        return NULL;
    }
    ts = seq_convert(p, path, n, err, errlen);
    tdsl_onnx__sequence_proto__free_unpacked(p, NULL);
    return ts;
}

TlTensor **tl_onnx_optional_read(const char *path, int *kind, int *n,
                                 char *err, size_t errlen)
{
    TlTensor **ts;
    size_t len;
    void *buf = read_whole(path, "the optional", &len, err, errlen);

    if (!buf)
        return NULL;
    ts = tl_onnx_optional_read_mem(buf, len, path, kind, n, err, errlen);
    free(buf);
    return ts;
}

TlTensor **tl_onnx_optional_read_mem(const void *data, size_t len,
                                     const char *path, int *kind, int *n,
                                     char *err, size_t errlen)
{
    TdslOnnx__OptionalProto *p;
    TlTensor **ts = NULL;

    p = tdsl_onnx__optional_proto__unpack(NULL, len, data);
    if (!p) {
        itp_error(err, errlen, path, "not an ONNX OptionalProto (the "
                  "protobuf does not decode)");
        return NULL;
    }
    /* elem_type says which field holds the element; a map, a sparse
     * tensor or an optional keeps it in a field left out here. */
    if (!p->has_elem_type) {
        itp_error(err, errlen, path, "not an ONNX OptionalProto: it has "
                  "no elem_type");
    } else if (p->elem_type == TDSL_OPT_NONE) {
        if (p->tensor_value || p->sequence_value)
            itp_error(err, errlen, path, "an optional without an element "
                      "(elem_type 0) holds one");
        else
            ts = tl_xcalloc(1, sizeof *ts);
        *n = 0;
    } else if (p->elem_type == TDSL_OPT_TENSOR) {
        if (!p->tensor_value || p->sequence_value) {
            itp_error(err, errlen, path, "an optional tensor (elem_type "
                      "1) must hold a tensor_value and nothing else");
        } else {
            ts = tl_xcalloc(2, sizeof *ts);
            if (!(ts[0] = convert(p->tensor_value, path, err, errlen))) {
                free(ts);
                ts = NULL;
            }
            *n = 1;
        }
    } else if (p->elem_type == TDSL_OPT_SEQUENCE) {
        if (!p->sequence_value || p->tensor_value)
            itp_error(err, errlen, path, "an optional sequence (elem_type "
                      "3) must hold a sequence_value and nothing else");
        else
            ts = seq_convert(p->sequence_value, path, n, err, errlen);
    } else {
        itp_error(err, errlen, path, "an optional of elem_type %d: only "
                  "tensors (1), sequences (3) or none (0) are supported",
                  (int)p->elem_type);
    }
    if (ts)
        *kind = p->elem_type;
    tdsl_onnx__optional_proto__free_unpacked(p, NULL);
    return ts;
}

/* tp describes t (its packed copy kept in *packed for the bytes); 0,
 * or -1 after a message naming what (an element). */
static int fill_tensor(Onnx__TensorProto *tp, TlTensor *t, TlTensor **packed,
                       const char *path, const char *what, char *err,
                       size_t errlen)
{
    size_t k;

    onnx__tensor_proto__init(tp);
    for (k = 0; k < sizeof types / sizeof *types; k++)
        if (types[k].dt == t->dtype)
            break;
    if (k == sizeof types / sizeof *types) {
        itp_error(err, errlen, path, "%s: ONNX has no data type for %s",
                  what, dt_name(t->dtype));
        return -1;
    }
    *packed = tl_tensor_contiguous(t);
    tp->has_data_type = 1;
    tp->data_type = types[k].onnx;
    tp->n_dims = (size_t)t->rank;
    tp->dims = (*packed)->shape;
    if (t->dtype == DT_STR) {
        /* Points into the interned strings; the caller frees the array
         * (free_strings). */
        size_t n = (size_t)tl_tensor_numel(*packed);
        tp->n_string_data = n;
        tp->string_data = tl_xcalloc(n + 1, sizeof *tp->string_data);
        for (size_t i = 0; i < n; i++) {
            const char *s = tl_str_at((char *)(*packed)->data + i * 8);
            tp->string_data[i].data = (uint8_t *)(uintptr_t)s;
            tp->string_data[i].len = strlen(s);
        }
        return 0;
    }
    tp->has_raw_data = 1;
    /* Little-endian, as raw_data is, on the hosts tdsl runs on. */
    tp->raw_data.len = (size_t)tl_tensor_numel(*packed) *
                       (size_t)dt_size((*packed)->dtype);
    tp->raw_data.data = (*packed)->data;
    return 0;
}

/* Writes len bytes to path; 0, or -1 after a message. */
static int write_file(const char *path, const uint8_t *out, size_t len,
                      char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");

    if (!f || fwrite(out, 1, len, f) != len) {
        itp_error(err, errlen, path, "cannot be written: %s",
                  strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    if (fclose(f) != 0) {
        itp_error(err, errlen, path, "cannot be written: %s",
                  strerror(errno));
        return -1;
    }
    return 0;
}

/* Sequence p of ts[n], its TensorProtos in tp[n] and pointers in
 * tpp[n], the packed tensors in packed[n]; 0, or -1 after a message. */
static int fill_seq(TdslOnnx__SequenceProto *p, Onnx__TensorProto *tp,
                    Onnx__TensorProto **tpp, TlTensor **packed,
                    TlTensor *const *ts, int n, const char *path, char *err,
                    size_t errlen)
{
    p->has_elem_type = 1;
    p->elem_type = TDSL_SEQ_TENSOR;
    p->n_tensor_values = (size_t)n;
    p->tensor_values = tpp;
    for (int i = 0; i < n; i++) {
        char what[40];
        snprintf(what, sizeof what, "element %d", i);
        tpp[i] = &tp[i];
        if (fill_tensor(&tp[i], ts[i], &packed[i], path, what, err,
                        errlen) < 0)
            return -1;
    }
    return 0;
}

int tl_onnx_tensor_write(const char *path, TlTensor *t, char *err,
                         size_t errlen)
{
    Onnx__TensorProto tp;
    TlTensor *packed = NULL;
    uint8_t *out;
    size_t len;
    int rc;

    if (fill_tensor(&tp, t, &packed, path, "the tensor", err, errlen) < 0)
        return -1;
    len = onnx__tensor_proto__get_packed_size(&tp);
    out = tl_xmalloc(len ? len : 1);
    onnx__tensor_proto__pack(&tp, out);
    rc = write_file(path, out, len, err, errlen);
    free(out);
    free(tp.string_data);
    tl_tensor_unref(packed);
    return rc;
}

int tl_onnx_sequence_write(const char *path, TlTensor *const *ts, int n,
                           char *err, size_t errlen)
{
    return tl_onnx_optional_write(path, -1, ts, n, err, errlen);
}

int tl_onnx_optional_write(const char *path, int kind, TlTensor *const *ts,
                           int n, char *err, size_t errlen)
{
    TdslOnnx__SequenceProto sp = TDSL_ONNX__SEQUENCE_PROTO__INIT;
    TdslOnnx__OptionalProto op = TDSL_ONNX__OPTIONAL_PROTO__INIT;
    Onnx__TensorProto *tp = tl_xcalloc((size_t)n + 1, sizeof *tp);
    Onnx__TensorProto **tpp = tl_xcalloc((size_t)n + 1, sizeof *tpp);
    TlTensor **packed = tl_xcalloc((size_t)n + 1, sizeof *packed);
    uint8_t *out = NULL;
    size_t len;
    int rc = -1;

    /* kind -1: the sequence alone, as a SequenceProto file. */
    op.has_elem_type = 1;
    op.elem_type = kind < 0 ? TDSL_OPT_SEQUENCE : kind;
    if (op.elem_type == TDSL_OPT_TENSOR) {
        if (fill_tensor(&tp[0], ts[0], &packed[0], path, "the element",
                        err, errlen) < 0)
            goto done;
        op.tensor_value = &tp[0];
    } else if (op.elem_type == TDSL_OPT_SEQUENCE) {
        if (fill_seq(&sp, tp, tpp, packed, ts, n, path, err, errlen) < 0)
            goto done;
        op.sequence_value = &sp;
    }
    if (kind < 0) {
        len = tdsl_onnx__sequence_proto__get_packed_size(&sp);
        out = tl_xmalloc(len ? len : 1);
        tdsl_onnx__sequence_proto__pack(&sp, out);
    } else {
        len = tdsl_onnx__optional_proto__get_packed_size(&op);
        out = tl_xmalloc(len ? len : 1);
        tdsl_onnx__optional_proto__pack(&op, out);
    }
    rc = write_file(path, out, len, err, errlen);
done:
    for (int i = 0; i < n; i++) {
        tl_tensor_unref(packed[i]);
        free(tp[i].string_data);
    }
    free(packed);
    free(tp);
    free(tpp);
    free(out);
    return rc;
}
