/*
 * npy.c - numpy's .npy files, and the reading and writing plumbing that
 * the tensor file formats share (sources, sinks, byte order).
 *
 * A .npy file is a 6-byte magic "\x93NUMPY", a version (1.0: 2-byte
 * header length; 2.0 and 3.0: 4-byte), a header that is a Python dict
 * literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (2,
 * 3), } padded with spaces and ended with a newline, then the raw data.
 * The header is parsed by a small recursive reader of exactly that
 * literal subset; everything else is refused with a message naming the
 * byte where it went wrong.  Fortran-order arrays are refused rather
 * than transposed.  Nothing is read past the header's end, and the shape
 * is checked (tl_shape_nbytes, then against the file's size) before
 * anything is allocated.
 */
#include "interp/interp_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Headers longer than this are refused (numpy's own default limit is
 * 10000 bytes; version 2.0 allows 4 GiB). */
enum { MAX_HEADER = 1 << 20 };

/* ====================================================================
 * Shared plumbing
 * ==================================================================== */

void itp_error(char *err, size_t errlen, const char *name,
               const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!err || !errlen)
        return;
    n = snprintf(err, errlen, "'%s': ", name);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

int itp_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

void itp_swap_bytes(void *data, int64_t n, int size)
{
    unsigned char *p = data;
    if (size == 1)
        return;
    for (int64_t i = 0; i < n; i++, p += size)
        for (int a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char c = p[a];
            p[a] = p[b];
            p[b] = c;
        }
}

int itp_src_open(ItpSrc *s, const char *path, char *err, size_t errlen)
{
    struct stat st;

    memset(s, 0, sizeof *s);
    s->name = path;
    s->fp = fopen(path, "rb");
    if (!s->fp) {
        itp_error(err, errlen, path, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fileno(s->fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        itp_error(err, errlen, path, "cannot read: not a regular file");
        fclose(s->fp);
        s->fp = NULL;
        return -1;
    }
    s->size = (uint64_t)st.st_size;
    return 0;
}

void itp_src_mem(ItpSrc *s, const void *data, size_t len, const char *name)
{
    memset(s, 0, sizeof *s);
    s->mem = data;
    s->size = len;
    s->name = name;
}

void itp_src_close(ItpSrc *s)
{
    if (s->fp)
        fclose(s->fp);
    s->fp = NULL;
}

int itp_src_check(const ItpSrc *s, uint64_t off, uint64_t n,
                  const char *what, char *err, size_t errlen)
{
    if (off > s->size || n > s->size - off) {
        itp_error(err, errlen, s->name,
                  "file too short: %s needs %llu bytes at offset %llu, "
                  "the file has %llu", what, (unsigned long long)n,
                  (unsigned long long)off, (unsigned long long)s->size);
        return -1;
    }
    return 0;
}

int itp_src_read(ItpSrc *s, uint64_t off, void *dst, size_t n,
                 const char *what, char *err, size_t errlen)
{
    if (itp_src_check(s, off, n, what, err, errlen) < 0)
        return -1;
    if (n == 0)
        return 0;
    if (s->mem) {
        memcpy(dst, s->mem + off, n);
        return 0;
    }
    if (fseeko(s->fp, (off_t)off, SEEK_SET) != 0 ||
        fread(dst, 1, n, s->fp) != n) {
        itp_error(err, errlen, s->name, "cannot read: %s",
                  ferror(s->fp) ? strerror(errno) : "file changed size");
        return -1;
    }
    return 0;
}

int itp_read_tensor(ItpSrc *s, uint64_t off, TlTensor *t, int swap,
                    char *err, size_t errlen)
{
    int64_t n = tl_tensor_numel(t);
    int es = dt_size(t->dtype);

    TL_ASSERT(tl_tensor_is_contiguous(t));
    if (itp_src_read(s, off, t->data, (size_t)(n * es), "the data", err,
                     errlen) < 0)
        return -1;
    if (swap)
        itp_swap_bytes(t->data, n, es);
    if (t->dtype == DT_BOOL) {
        unsigned char *b = t->data;
        for (int64_t i = 0; i < n; i++)
            b[i] = b[i] != 0;
    }
    return 0;
}

int itp_sink_open(ItpSink *k, const char *path, char *err, size_t errlen)
{
    struct stat st;

    memset(k, 0, sizeof *k);
    k->name = path;
    k->fp = fopen(path, "wb");
    if (!k->fp) {
        itp_error(err, errlen, path, "cannot create: %s", strerror(errno));
        return -1;
    }
    /* Only a regular file is removed after a failed write: the path may
     * name a device or a pipe (/dev/stdout) that must stay. */
    k->regular = fstat(fileno(k->fp), &st) == 0 && S_ISREG(st.st_mode);
    return 0;
}

void itp_sink_buf(ItpSink *k, TlBuf *buf, const char *name)
{
    memset(k, 0, sizeof *k);
    k->buf = buf;
    k->name = name;
}

void itp_sink_put(ItpSink *k, const void *data, size_t n)
{
    if (k->err_no || n == 0)
        return;
    if (k->buf) {
        buf_putn(k->buf, data, n);
        return;
    }
    if (fwrite(data, 1, n, k->fp) != n)
        k->err_no = errno ? errno : EIO;
}

void itp_sink_tensor(ItpSink *k, const TlTensor *t)
{
    /* Copy through a chunk so that byte swapping (big-endian hosts) and
     * bool normalising never touch the tensor itself. */
    enum { CHUNK = 1 << 16 };
    TlTensor *c = tl_tensor_is_contiguous(t) ? NULL : tl_tensor_copy(t);
    const unsigned char *p = c ? c->data : t->data;
    int es = dt_size(t->dtype);
    int64_t left = tl_tensor_numel(t) * es;
    unsigned char *chunk;
    int swap = itp_big_endian() && es > 1;

    if (!swap && t->dtype != DT_BOOL) {
        itp_sink_put(k, p, (size_t)left);
        tl_tensor_unref(c);
        return;
    }
    chunk = tl_xmalloc(CHUNK);
    while (left > 0) {
        size_t n = left < CHUNK ? (size_t)left : CHUNK;
        memcpy(chunk, p, n);
        if (swap)
            itp_swap_bytes(chunk, (int64_t)n / es, es);
        if (t->dtype == DT_BOOL)
            for (size_t i = 0; i < n; i++)
                chunk[i] = chunk[i] != 0;
        itp_sink_put(k, chunk, n);
        p += n;
        left -= (int64_t)n;
    }
    free(chunk);
    tl_tensor_unref(c);
}

int itp_sink_close(ItpSink *k, const char *path, char *err, size_t errlen)
{
    if (k->fp) {
        if (fclose(k->fp) != 0 && !k->err_no)
            k->err_no = errno ? errno : EIO;
        k->fp = NULL;
        if (k->err_no && k->regular)
            remove(path);
    }
    if (k->err_no) {
        itp_error(err, errlen, k->name, "cannot write: %s",
                  strerror(k->err_no));
        return -1;
    }
    return 0;
}

/* ====================================================================
 * The header: a Python dict literal
 * ==================================================================== */

typedef struct Header {
    const char *s;
    size_t n, pos;
    const char *name;
    char *err;
    size_t errlen;
    int failed;
    /* what was found */
    char descr[32];
    int has_descr, has_order, has_shape;
    int fortran;
    int rank;
    int64_t shape[TL_MAX_RANK];
} Header;

static void herror(Header *h, const char *what)
{
    if (!h->failed)
        itp_error(h->err, h->errlen, h->name,
                  "malformed header: %s at byte %zu of the header", what,
                  h->pos);
    h->failed = 1;
}

static void skip_ws(Header *h)
{
    while (h->pos < h->n && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' ||
                             h->s[h->pos] == '\n' || h->s[h->pos] == '\r'))
        h->pos++;
}

/* The next non-blank character, or 0 at the end. */
static char peek(Header *h)
{
    skip_ws(h);
    return h->pos < h->n ? h->s[h->pos] : 0;
}

static int accept(Header *h, char c)
{
    if (peek(h) != c)
        return 0;
    h->pos++;
    return 1;
}

/* A quoted string without escapes into out[0..size). */
static int parse_string(Header *h, char *out, size_t size)
{
    char q = peek(h);
    size_t len = 0;

    if (q != '\'' && q != '"') {
        herror(h, "expected a quoted string");
        return -1;
    }
    h->pos++;
    while (h->pos < h->n && h->s[h->pos] != q) {
        char c = h->s[h->pos];
        if (c == '\\' || (unsigned char)c < 0x20) {
            herror(h, "unexpected character in a string");
            return -1;
        }
        if (len + 1 >= size) {
            herror(h, "string too long");
            return -1;
        }
        out[len++] = c;
        h->pos++;
    }
    if (h->pos >= h->n) {
        herror(h, "unterminated string");
        return -1;
    }
    h->pos++;
    out[len] = 0;
    return 0;
}

/* A word such as True or False. */
static int parse_word(Header *h, const char *w)
{
    size_t n = strlen(w);
    peek(h);
    if (h->n - h->pos < n || memcmp(h->s + h->pos, w, n))
        return 0;
    h->pos += n;
    return 1;
}

/* A non-negative decimal integer (Python 2 headers may add 'L'). */
static int parse_dim(Header *h, int64_t *out)
{
    int64_t v = 0;
    char c = peek(h);

    if (c == '-') {
        herror(h, "negative dimension");
        return -1;
    }
    if (c < '0' || c > '9') {
        herror(h, "expected a dimension");
        return -1;
    }
    while (h->pos < h->n && h->s[h->pos] >= '0' && h->s[h->pos] <= '9') {
        int d = h->s[h->pos] - '0';
        if (v > (INT64_MAX - d) / 10) {
            herror(h, "dimension too large");
            return -1;
        }
        v = v * 10 + d;
        h->pos++;
    }
    if (h->pos < h->n && h->s[h->pos] == 'L')
        h->pos++;
    *out = v;
    return 0;
}

/* (d0, d1, ...) with an optional trailing comma. */
static int parse_shape(Header *h)
{
    if (!accept(h, '(')) {
        herror(h, "expected '(' to start the shape");
        return -1;
    }
    h->rank = 0;
    while (!accept(h, ')')) {
        int64_t d;
        if (h->rank == TL_MAX_RANK) {
            if (!h->failed)
                itp_error(h->err, h->errlen, h->name,
                          "rank exceeds the maximum of %d", TL_MAX_RANK);
            h->failed = 1;
            return -1;
        }
        if (parse_dim(h, &d) < 0)
            return -1;
        h->shape[h->rank++] = d;
        if (!accept(h, ',') && peek(h) != ')') {
            herror(h, "expected ',' or ')' in the shape");
            return -1;
        }
    }
    return 0;
}

static int parse_entry(Header *h)
{
    char key[32];

    if (parse_string(h, key, sizeof key) < 0)
        return -1;
    if (!accept(h, ':')) {
        herror(h, "expected ':' after a key");
        return -1;
    }
    if (!strcmp(key, "descr")) {
        if (h->has_descr++)
            goto twice;
        if (peek(h) == '[') {
            itp_error(h->err, h->errlen, h->name,
                      "structured dtypes are not supported");
            h->failed = 1;
            return -1;
        }
        return parse_string(h, h->descr, sizeof h->descr);
    }
    if (!strcmp(key, "fortran_order")) {
        if (h->has_order++)
            goto twice;
        if (parse_word(h, "True"))
            h->fortran = 1;
        else if (!parse_word(h, "False")) {
            herror(h, "expected True or False");
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "shape")) {
        if (h->has_shape++)
            goto twice;
        return parse_shape(h);
    }
    itp_error(h->err, h->errlen, h->name,
              "unexpected key '%s' in the header", key);
    h->failed = 1;
    return -1;
twice:
    itp_error(h->err, h->errlen, h->name,
              "key '%s' appears twice in the header", key);
    h->failed = 1;
    return -1;
}

static int parse_header(Header *h)
{
    if (!accept(h, '{')) {
        herror(h, "expected '{'");
        return -1;
    }
    while (!accept(h, '}')) {
        if (parse_entry(h) < 0)
            return -1;
        if (!accept(h, ',') && peek(h) != '}') {
            herror(h, "expected ',' or '}'");
            return -1;
        }
    }
    if (peek(h) != 0) {
        herror(h, "unexpected text after the dict");
        return -1;
    }
    if (!h->has_descr || !h->has_order || !h->has_shape) {
        itp_error(h->err, h->errlen, h->name, "header lacks '%s'",
                  !h->has_descr ? "descr"
                  : !h->has_order ? "fortran_order" : "shape");
        return -1;
    }
    return 0;
}

/* The dtype of a descr such as '<f4', and whether its bytes are in the
 * other order than the host's. */
static TlDType parse_descr(const Header *h, int *swap, char *err,
                           size_t errlen)
{
    const char *d = h->descr;
    char order = d[0], kind = d[0] ? d[1] : 0;
    int size = 0;
    TlDType dt = DT_NONE;

    if (kind && d[2] >= '1' && d[2] <= '9' && !d[3])
        size = d[2] - '0';
    if (kind == 'O') {
        itp_error(err, errlen, h->name,
                  "object arrays are not supported");
        return DT_NONE;
    }
    if (size && (order == '<' || order == '>' || order == '|' ||
                 order == '=')) {
        if (kind == 'f')
            dt = size == 2 ? DT_F16 : size == 4 ? DT_F32
                 : size == 8 ? DT_F64 : DT_NONE;
        else if (kind == 'i')
            dt = size == 1 ? DT_I8 : size == 2 ? DT_I16
                 : size == 4 ? DT_I32 : size == 8 ? DT_I64 : DT_NONE;
        else if (kind == 'u')
            dt = size == 1 ? DT_U8 : size == 2 ? DT_U16
                 : size == 4 ? DT_U32 : size == 8 ? DT_U64 : DT_NONE;
        else if ((kind == 'b' || kind == '?') && size == 1)
            dt = DT_BOOL;
    }
    if (dt == DT_NONE) {
        itp_error(err, errlen, h->name,
                  "unsupported dtype '%s' (tdsl reads f2 f4 f8 i1 i2 i4 "
                  "i8 u1 u2 u4 u8 b1)", d);
        return DT_NONE;
    }
    if (order == '|' && size > 1) {
        itp_error(err, errlen, h->name,
                  "dtype '%s' has no byte order", d);
        return DT_NONE;
    }
    *swap = size > 1 && (order == '<' || order == '>') &&
            (order == '>') != itp_big_endian();
    return dt;
}

/* ====================================================================
 * Reading
 * ==================================================================== */

static TlTensor *read_npy(ItpSrc *s, char *err, size_t errlen)
{
    unsigned char pre[12];
    uint64_t hlen, hoff;
    char *text;
    Header h;
    TlDType dt;
    int swap = 0, width;
    int64_t nbytes;
    TlTensor *t;
    char msg[200];

    if (s->size < 10 || itp_src_read(s, 0, pre, 10, "", NULL, 0) < 0 ||
        memcmp(pre, "\x93NUMPY", 6)) {
        itp_error(err, errlen, s->name, "not a .npy file (no \\x93NUMPY "
                  "magic at its start)");
        return NULL;
    }
    if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0) {
        itp_error(err, errlen, s->name, "unsupported .npy version %d.%d",
                  pre[6], pre[7]);
        return NULL;
    }
    if (pre[6] == 1) {
        hlen = pre[8] | (uint64_t)pre[9] << 8;
        hoff = 10;
    } else {
        if (itp_src_read(s, 0, pre, 12, "the header length", err,
                         errlen) < 0)
            return NULL;
        hlen = pre[8] | (uint64_t)pre[9] << 8 | (uint64_t)pre[10] << 16 |
               (uint64_t)pre[11] << 24;
        hoff = 12;
    }
    if (hlen > MAX_HEADER) {
        itp_error(err, errlen, s->name,
                  "header of %llu bytes is too long (limit %d)",
                  (unsigned long long)hlen, MAX_HEADER);
        return NULL;
    }
    text = tl_xmalloc((size_t)hlen + 1);
    if (itp_src_read(s, hoff, text, (size_t)hlen, "the header", err,
                     errlen) < 0) {
        free(text);
        return NULL;
    }
    memset(&h, 0, sizeof h);
    h.s = text;
    h.n = (size_t)hlen;
    h.name = s->name;
    h.err = err;
    h.errlen = errlen;
    if (parse_header(&h) < 0) {
        free(text);
        return NULL;
    }
    free(text);
    /* numpy's unicode arrays ('<U7') become str tensors (npy_str.c). */
    width = itp_npy_str_width(h.descr, &swap);
    if (width < 0) {
        itp_error(err, errlen, s->name, "bad string width in dtype '%s'",
                  h.descr);
        return NULL;
    }
    if (!width && (dt = parse_descr(&h, &swap, err, errlen)) == DT_NONE)
        return NULL;
    /* numpy writes fortran_order True only when the layout differs
     * from row-major order; rather than transpose, ask for a C array. */
    if (h.fortran) {
        itp_error(err, errlen, s->name,
                  "Fortran-order arrays are not supported; save with "
                  "np.ascontiguousarray(a)");
        return NULL;
    }
    if (width)
        return itp_npy_read_str(s, hoff + hlen, h.rank, h.shape, width,
                                swap, err, errlen);
    /* Check the size against the file before allocating, so that a
     * corrupt shape cannot ask for gigabytes. */
    nbytes = tl_shape_nbytes(dt, h.rank, h.shape, msg, sizeof msg);
    if (nbytes < 0) {
        itp_error(err, errlen, s->name, "%s", msg);
        return NULL;
    }
    if (itp_src_check(s, hoff + hlen, (uint64_t)nbytes, "the data", err,
                      errlen) < 0)
        return NULL;
    t = tl_tensor_new(dt, h.rank, h.shape, msg, sizeof msg);
    if (!t) {
        itp_error(err, errlen, s->name, "%s", msg);
        return NULL;
    }
    if (itp_read_tensor(s, hoff + hlen, t, swap, err, errlen) < 0) {
        tl_tensor_unref(t);
        return NULL;
    }
    return t;
}

TlTensor *tl_npy_read(const char *path, char *err, size_t errlen)
{
    ItpSrc s;
    TlTensor *t;

    if (itp_src_open(&s, path, err, errlen) < 0)
        return NULL;
    t = read_npy(&s, err, errlen);
    itp_src_close(&s);
    return t;
}

TlTensor *tl_npy_read_mem(const void *data, size_t len, const char *name,
                          char *err, size_t errlen)
{
    ItpSrc s;
    itp_src_mem(&s, data, len, name);
    return read_npy(&s, err, errlen);
}

/* ====================================================================
 * Writing
 * ==================================================================== */

static const char *npy_descr(TlDType dt)
{
    switch (dt) {
    case DT_BOOL: return "|b1";
    case DT_U8: return "|u1";
    case DT_U16: return "<u2";
    case DT_U32: return "<u4";
    case DT_U64: return "<u8";
    case DT_I8: return "|i1";
    case DT_I16: return "<i2";
    case DT_I32: return "<i4";
    case DT_I64: return "<i8";
    case DT_F16: return "<f2";
    case DT_F32: return "<f4";
    case DT_F64: return "<f8";
    default: return NULL;
    }
}

static int write_npy(ItpSink *k, const TlTensor *t, char *err,
                     size_t errlen)
{
    const char *descr = npy_descr(t->dtype);
    TlBuf h;
    unsigned char pre[10];
    char ustr[24];
    int width = 0;

    if (t->dtype == DT_STR) {
        if ((width = itp_npy_str_prepare(t, k->name, err, errlen)) < 0)
            return -1;
        snprintf(ustr, sizeof ustr, "<U%d", width);
        descr = ustr;
    }
    if (!descr) {
        itp_error(err, errlen, k->name,
                  "%s has no .npy dtype; save it as .safetensors, or cast "
                  "it to f32 first", dt_name(t->dtype));
        return -1;
    }
    buf_init(&h);
    buf_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (",
               descr);
    for (int i = 0; i < t->rank; i++)
        buf_printf(&h, "%lld,%s", (long long)t->shape[i],
                   i + 1 < t->rank ? " " : "");
    if (t->rank > 1)
        h.s[--h.len] = 0;     /* numpy writes (2, 3) but (5,) */
    buf_puts(&h, "), }");
    /* Pad with spaces and a final newline so that the data starts at a
     * multiple of 64 bytes, as numpy does.  With at most TL_MAX_RANK
     * dimensions the header always fits format 1.0's 16-bit length. */
    while ((10 + h.len + 1) % 64)
        buf_putc(&h, ' ');
    buf_putc(&h, '\n');
    TL_ASSERT(h.len <= 65535);
    memcpy(pre, "\x93NUMPY\x01\x00", 8);
    pre[8] = (unsigned char)(h.len & 0xff);
    pre[9] = (unsigned char)(h.len >> 8);
    itp_sink_put(k, pre, 10);
    itp_sink_put(k, h.s, h.len);
    buf_free(&h);
    if (t->dtype == DT_STR)
        itp_npy_put_str(k, t, width);
    else
        itp_sink_tensor(k, t);
    return 0;
}

int tl_npy_write(const char *path, const TlTensor *t, char *err,
                 size_t errlen)
{
    ItpSink k;

    if (!npy_descr(t->dtype) &&
        (t->dtype != DT_STR ||
         itp_npy_str_prepare(t, path, err, errlen) < 0)) {
        /* Refuse before creating (and truncating) the file. */
        itp_sink_buf(&k, NULL, path);
        return write_npy(&k, t, err, errlen);
    }
    if (itp_sink_open(&k, path, err, errlen) < 0)
        return -1;
    write_npy(&k, t, err, errlen);
    return itp_sink_close(&k, path, err, errlen);
}

int tl_npy_write_buf(TlBuf *out, const TlTensor *t, const char *name,
                     char *err, size_t errlen)
{
    ItpSink k;
    itp_sink_buf(&k, out, name);
    return write_npy(&k, t, err, errlen);
}
