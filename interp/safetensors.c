/*
 * safetensors.c - .safetensors files: an 8-byte little-endian header
 * length N, N bytes of JSON, then the tensors' bytes.  The JSON is one
 * object mapping each tensor name to {"dtype": "F32", "shape": [2, 3],
 * "data_offsets": [begin, end]} (offsets relative to the end of the
 * header), plus an optional "__metadata__" object of strings.
 *
 * The header is read by a strict JSON reader that knows exactly this
 * schema (no general JSON values are needed, so no JSON library is
 * linked): strings are checked to be UTF-8, numbers to be integers in
 * range, every field to be present once.  Then every entry is validated
 * against the file (dtype, shape limits, offsets inside the data, size =
 * shape x dtype, no overlaps) before any tensor is read, so a corrupt
 * file is an error and never an out-of-bounds read.  Gaps between
 * tensors are tolerated on reading and never written.
 */
#include "interp/interp_int.h"

#include <stdlib.h>
#include <string.h>

/* A header longer than this is not a real one (the format's own
 * reference implementation uses the same limit). */
#define MAX_HEADER 100000000u

struct TlSafetensors {
    ItpSrc src;
    uint64_t data_off;          /* 8 + header length */
    TlSafetensorsEntry *ent;    /* sorted by name */
    int n, cap;
    char **meta;                /* key, value, key, value, ... */
    int nmeta, meta_cap;
};

static const struct {
    const char *name;
    TlDType dt;
} st_dtypes[] = {
    {"BOOL", DT_BOOL}, {"U8", DT_U8}, {"I8", DT_I8}, {"I16", DT_I16},
    {"I32", DT_I32}, {"I64", DT_I64}, {"F16", DT_F16}, {"BF16", DT_BF16},
    {"F32", DT_F32}, {"F64", DT_F64},
};

static const char *st_dtype_name(TlDType dt)
{
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes; i++)
        if (st_dtypes[i].dt == dt)
            return st_dtypes[i].name;
    tl_unreachable();
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], min, cp;
    int len;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000, cp = c & 0x07;
    else
        return 0;
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static int valid_utf8(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int l = utf8_len((const unsigned char *)s + i, n - i);
        if (!l)
            return 0;
        i += (size_t)l;
    }
    return 1;
}

/* ====================================================================
 * The JSON reader
 * ==================================================================== */

typedef struct Json {
    const unsigned char *s;
    size_t n, pos;
    const char *name;
    char *err;
    size_t errlen;
    int failed;
} Json;

/* A syntax error at the current position. */
static void jerror(Json *j, const char *what)
{
    if (!j->failed)
        itp_error(j->err, j->errlen, j->name,
                  "malformed header: %s at byte %zu of the header", what,
                  j->pos);
    j->failed = 1;
}

static void jskip(Json *j)
{
    while (j->pos < j->n && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' ||
                             j->s[j->pos] == '\n' || j->s[j->pos] == '\r'))
        j->pos++;
}

static int jpeek(Json *j)
{
    jskip(j);
    return j->pos < j->n ? j->s[j->pos] : -1;
}

static int jaccept(Json *j, int c)
{
    if (jpeek(j) != c)
        return 0;
    j->pos++;
    return 1;
}

static int jexpect(Json *j, int c, const char *what)
{
    if (jaccept(j, c))
        return 0;
    jerror(j, what);
    return -1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The 4 hex digits of a \u escape; -1 after an error. */
static long jhex4(Json *j)
{
    long v = 0;
    if (j->n - j->pos < 4) {
        jerror(j, "short \\u escape");
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        int d = hexval(j->s[j->pos + i]);
        if (d < 0) {
            jerror(j, "bad \\u escape");
            return -1;
        }
        v = v * 16 + d;
    }
    j->pos += 4;
    return v;
}

static void put_utf8(TlBuf *b, unsigned long cp)
{
    if (cp < 0x80) {
        buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        buf_putc(b, (char)(0xc0 | cp >> 6));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        buf_putc(b, (char)(0xe0 | cp >> 12));
        buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        buf_putc(b, (char)(0xf0 | cp >> 18));
        buf_putc(b, (char)(0x80 | (cp >> 12 & 0x3f)));
        buf_putc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* A JSON string, decoded; a malloc'd C string or NULL after an error
 * (a NUL character is refused, since names are C strings). */
static char *jstring(Json *j)
{
    TlBuf b;

    if (jpeek(j) != '"') {
        jerror(j, "expected a string");
        return NULL;
    }
    j->pos++;
    buf_init(&b);
    buf_putn(&b, "", 0);
    for (;;) {
        int c, l;
        if (j->pos >= j->n) {
            jerror(j, "unterminated string");
            goto fail;
        }
        c = j->s[j->pos];
        if (c == '"') {
            j->pos++;
            return b.s;
        }
        if (c < 0x20) {
            jerror(j, "control character in a string");
            goto fail;
        }
        if (c != '\\') {
            l = utf8_len(j->s + j->pos, j->n - j->pos);
            if (!l) {
                jerror(j, "invalid UTF-8");
                goto fail;
            }
            buf_putn(&b, (const char *)j->s + j->pos, (size_t)l);
            j->pos += (size_t)l;
            continue;
        }
        if (++j->pos >= j->n) {
            jerror(j, "unterminated string");
            goto fail;
        }
        c = j->s[j->pos++];
        switch (c) {
        case '"': case '\\': case '/': buf_putc(&b, (char)c); break;
        case 'b': buf_putc(&b, '\b'); break;
        case 'f': buf_putc(&b, '\f'); break;
        case 'n': buf_putc(&b, '\n'); break;
        case 'r': buf_putc(&b, '\r'); break;
        case 't': buf_putc(&b, '\t'); break;
        case 'u': {
            long cp = jhex4(j), lo;
            if (cp < 0)
                goto fail;
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                jerror(j, "unpaired surrogate in a \\u escape");
                goto fail;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (j->n - j->pos < 2 || j->s[j->pos] != '\\' ||
                    j->s[j->pos + 1] != 'u') {
                    jerror(j, "unpaired surrogate in a \\u escape");
                    goto fail;
                }
                j->pos += 2;
                lo = jhex4(j);
                if (lo < 0)
                    goto fail;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    jerror(j, "unpaired surrogate in a \\u escape");
                    goto fail;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) {
                jerror(j, "NUL character in a string");
                goto fail;
            }
            put_utf8(&b, (unsigned long)cp);
            break;
        }
        default:
            j->pos--;
            jerror(j, "bad escape in a string");
            goto fail;
        }
    }
fail:
    buf_free(&b);
    return NULL;
}

/* A non-negative JSON integer that fits in int64; -1 after an error. */
static int64_t juint(Json *j)
{
    int64_t v = 0;
    size_t start;
    int c = jpeek(j);

    if (c == '-') {
        jerror(j, "negative number");
        return -1;
    }
    if (c < '0' || c > '9') {
        jerror(j, "expected a number");
        return -1;
    }
    start = j->pos;
    while (j->pos < j->n && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
        int d = j->s[j->pos] - '0';
        if (v > (INT64_MAX - d) / 10) {
            jerror(j, "number too large");
            return -1;
        }
        v = v * 10 + d;
        j->pos++;
    }
    if (j->s[start] == '0' && j->pos - start > 1) {
        j->pos = start;
        jerror(j, "number with a leading zero");
        return -1;
    }
    if (j->pos < j->n && (j->s[j->pos] == '.' || j->s[j->pos] == 'e' ||
                          j->s[j->pos] == 'E')) {
        jerror(j, "expected an integer");
        return -1;
    }
    return v;
}

/* ====================================================================
 * The header schema
 * ==================================================================== */

static void serror(TlSafetensors *f, Json *j, const char *fmt, ...)
    TL_PRINTF(3, 4);

/* A schema error (valid JSON, wrong content). */
static void serror(TlSafetensors *f, Json *j, const char *fmt, ...)
{
    char msg[300];
    va_list ap;

    if (j->failed)
        return;
    j->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    itp_error(j->err, j->errlen, f->src.name, "%s", msg);
}

/* "__metadata__": {"key": "value", ...} */
static int parse_meta(TlSafetensors *f, Json *j)
{
    if (jexpect(j, '{', "expected '{' after \"__metadata__\"") < 0)
        return -1;
    if (jaccept(j, '}'))
        return 0;
    do {
        char *k = jstring(j), *v = NULL;
        if (!k || jexpect(j, ':', "expected ':'") < 0) {
            free(k);
            return -1;
        }
        if (jpeek(j) != '"')
            serror(f, j, "metadata value of '%s' is not a string", k);
        else
            v = jstring(j);
        for (int i = 0; v && i < f->nmeta; i++)
            if (!strcmp(f->meta[2 * i], k)) {
                serror(f, j, "metadata key '%s' appears twice", k);
                free(v);
                v = NULL;
            }
        if (!v) {
            free(k);
            return -1;
        }
        if (2 * f->nmeta + 2 > f->meta_cap) {
            f->meta_cap = f->meta_cap ? 2 * f->meta_cap : 8;
            f->meta = tl_xrealloc(f->meta,
                                  (size_t)f->meta_cap * sizeof *f->meta);
        }
        f->meta[2 * f->nmeta] = k;
        f->meta[2 * f->nmeta + 1] = v;
        f->nmeta++;
    } while (jaccept(j, ','));
    return jexpect(j, '}', "expected ',' or '}'");
}

/* [d0, d1, ...] into e->shape, or [begin, end] (offsets). */
static int parse_ints(TlSafetensors *f, Json *j, TlSafetensorsEntry *e,
                      int offsets)
{
    int64_t v[TL_MAX_RANK];
    int n = 0, max = offsets ? 2 : TL_MAX_RANK;

    if (jexpect(j, '[', "expected '['") < 0)
        return -1;
    if (!jaccept(j, ']')) {
        do {
            if (n == max) {
                if (offsets)
                    serror(f, j, "data_offsets of tensor '%s' has more "
                            "than 2 numbers", e->name);
                else
                    serror(f, j, "tensor '%s' has rank above the "
                            "maximum of %d", e->name, TL_MAX_RANK);
                return -1;
            }
            if ((v[n++] = juint(j)) < 0)
                return -1;
        } while (jaccept(j, ','));
        if (jexpect(j, ']', "expected ',' or ']'") < 0)
            return -1;
    }
    if (offsets) {
        if (n != 2) {
            serror(f, j, "data_offsets of tensor '%s' needs 2 numbers",
                    e->name);
            return -1;
        }
        e->begin = (uint64_t)v[0];
        e->end = (uint64_t)v[1];
    } else {
        e->rank = n;
        for (int i = 0; i < n; i++)
            e->shape[i] = v[i];
    }
    return 0;
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]} */
static int parse_tensor(TlSafetensors *f, Json *j, TlSafetensorsEntry *e)
{
    int seen[3] = {0, 0, 0};
    static const char *const fields[3] = {"dtype", "shape",
                                          "data_offsets"};

    if (jexpect(j, '{', "expected '{' after a tensor name") < 0)
        return -1;
    if (!jaccept(j, '}')) {
        do {
            char *k = jstring(j);
            int which = -1;
            if (!k)
                return -1;
            for (int i = 0; i < 3; i++)
                if (!strcmp(k, fields[i]))
                    which = i;
            if (which < 0 || seen[which]++) {
                serror(f, j, which < 0
                        ? "tensor '%s' has an unexpected field '%s'"
                        : "tensor '%s' has field '%s' twice", e->name, k);
                free(k);
                return -1;
            }
            free(k);
            if (jexpect(j, ':', "expected ':'") < 0)
                return -1;
            if (which == 0) {
                char *d;
                if (jpeek(j) != '"') {
                    serror(f, j, "dtype of tensor '%s' is not a string",
                            e->name);
                    return -1;
                }
                if (!(d = jstring(j)))
                    return -1;
                e->dtype = DT_NONE;
                for (size_t i = 0; i < sizeof st_dtypes / sizeof
                     *st_dtypes; i++)
                    if (!strcmp(d, st_dtypes[i].name))
                        e->dtype = st_dtypes[i].dt;
                if (e->dtype == DT_NONE)
                    serror(f, j, "tensor '%s' has dtype '%s', which tdsl "
                            "does not support", e->name, d);
                free(d);
                if (e->dtype == DT_NONE)
                    return -1;
            } else if (parse_ints(f, j, e, which == 2) < 0) {
                return -1;
            }
        } while (jaccept(j, ','));
        if (jexpect(j, '}', "expected ',' or '}'") < 0)
            return -1;
    }
    for (int i = 0; i < 3; i++)
        if (!seen[i]) {
            serror(f, j, "tensor '%s' lacks '%s'", e->name, fields[i]);
            return -1;
        }
    return 0;
}

static int parse_top(TlSafetensors *f, Json *j)
{
    int had_meta = 0;

    if (jexpect(j, '{', "expected '{'") < 0)
        return -1;
    if (!jaccept(j, '}')) {
        do {
            char *k = jstring(j);
            TlSafetensorsEntry *e;
            if (!k)
                return -1;
            if (jexpect(j, ':', "expected ':'") < 0) {
                free(k);
                return -1;
            }
            if (!strcmp(k, "__metadata__")) {
                free(k);
                if (had_meta++) {
                    serror(f, j, "\"__metadata__\" appears twice");
                    return -1;
                }
                if (parse_meta(f, j) < 0)
                    return -1;
                continue;
            }
            if (f->n == f->cap) {
                f->cap = f->cap ? 2 * f->cap : 16;
                f->ent = tl_xrealloc(f->ent,
                                     (size_t)f->cap * sizeof *f->ent);
            }
            e = &f->ent[f->n++];
            memset(e, 0, sizeof *e);
            e->name = k;
            if (parse_tensor(f, j, e) < 0)
                return -1;
        } while (jaccept(j, ','));
        if (jexpect(j, '}', "expected ',' or '}'") < 0)
            return -1;
    }
    if (jpeek(j) != -1) {
        jerror(j, "unexpected text after the header object");
        return -1;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const TlSafetensorsEntry *)a)->name,
                  ((const TlSafetensorsEntry *)b)->name);
}

static int by_begin(const void *a, const void *b)
{
    const TlSafetensorsEntry *x = *(const TlSafetensorsEntry *const *)a;
    const TlSafetensorsEntry *y = *(const TlSafetensorsEntry *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Every entry against the file: sizes, bounds, overlaps, names. */
static int validate(TlSafetensors *f, char *err, size_t errlen)
{
    uint64_t data_size = f->src.size - f->data_off;
    const TlSafetensorsEntry **order, *prev = NULL;
    char msg[200];

    if (f->n == 0)
        return 0;
    qsort(f->ent, (size_t)f->n, sizeof *f->ent, by_name);
    for (int i = 0; i < f->n; i++) {
        TlSafetensorsEntry *e = &f->ent[i];
        int64_t nbytes;
        if (i > 0 && !strcmp(e->name, f->ent[i - 1].name)) {
            itp_error(err, errlen, f->src.name,
                      "tensor '%s' appears twice", e->name);
            return -1;
        }
        nbytes = tl_shape_nbytes(e->dtype, e->rank, e->shape, msg,
                                 sizeof msg);
        if (nbytes < 0) {
            itp_error(err, errlen, f->src.name, "tensor '%s': %s",
                      e->name, msg);
            return -1;
        }
        if (e->begin > e->end || e->end > data_size) {
            itp_error(err, errlen, f->src.name,
                      "data_offsets [%llu, %llu] of tensor '%s' are "
                      "outside the data (%llu bytes)",
                      (unsigned long long)e->begin,
                      (unsigned long long)e->end, e->name,
                      (unsigned long long)data_size);
            return -1;
        }
        if (e->end - e->begin != (uint64_t)nbytes) {
            itp_error(err, errlen, f->src.name,
                      "tensor '%s' has %llu bytes of data, but its shape "
                      "and dtype %s need %lld", e->name,
                      (unsigned long long)(e->end - e->begin),
                      st_dtype_name(e->dtype), (long long)nbytes);
            return -1;
        }
    }
    /* In order of begin, each non-empty entry must start at or after
     * the end of the one before; then no two overlap. */
    order = tl_xmalloc((size_t)f->n * sizeof *order);
    for (int i = 0; i < f->n; i++)
        order[i] = &f->ent[i];
    qsort(order, (size_t)f->n, sizeof *order, by_begin);
    for (int i = 0; i < f->n; i++) {
        if (order[i]->begin == order[i]->end)
            continue;
        if (prev && order[i]->begin < prev->end) {
            itp_error(err, errlen, f->src.name,
                      "tensors '%s' and '%s' overlap in the file",
                      prev->name, order[i]->name);
            free(order);
            return -1;
        }
        prev = order[i];
    }
    free(order);
    return 0;
}

/* ====================================================================
 * Opening and reading
 * ==================================================================== */

static TlSafetensors *open_src(TlSafetensors *f, char *err, size_t errlen)
{
    unsigned char len8[8];
    uint64_t hlen = 0;
    char *text;
    Json j;

    if (f->src.size < 8) {
        itp_error(err, errlen, f->src.name,
                  "not a .safetensors file (shorter than 8 bytes)");
        goto fail;
    }
    if (itp_src_read(&f->src, 0, len8, 8, "the header length", err,
                     errlen) < 0)
        goto fail;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | len8[i];
    if (hlen > MAX_HEADER) {
        itp_error(err, errlen, f->src.name,
                  "header length %llu is not sane (limit %u); not a "
                  ".safetensors file?", (unsigned long long)hlen,
                  MAX_HEADER);
        goto fail;
    }
    if (hlen > f->src.size - 8) {
        itp_error(err, errlen, f->src.name,
                  "header of %llu bytes runs past the end of the file "
                  "(%llu bytes)", (unsigned long long)hlen,
                  (unsigned long long)f->src.size);
        goto fail;
    }
    text = tl_xmalloc((size_t)hlen + 1);
    if (itp_src_read(&f->src, 8, text, (size_t)hlen, "the header", err,
                     errlen) < 0) {
        free(text);
        goto fail;
    }
    f->data_off = 8 + hlen;
    memset(&j, 0, sizeof j);
    j.s = (const unsigned char *)text;
    j.n = (size_t)hlen;
    j.name = f->src.name;
    j.err = err;
    j.errlen = errlen;
    if (parse_top(f, &j) < 0) {
        free(text);
        goto fail;
    }
    free(text);
    if (validate(f, err, errlen) < 0)
        goto fail;
    return f;
fail:
    tl_safetensors_close(f);
    return NULL;
}

TlSafetensors *tl_safetensors_open(const char *path, char *err,
                                   size_t errlen)
{
    TlSafetensors *f = tl_xcalloc(1, sizeof *f);
    if (itp_src_open(&f->src, path, err, errlen) < 0) {
        free(f);
        return NULL;
    }
    return open_src(f, err, errlen);
}

TlSafetensors *tl_safetensors_open_mem(const void *data, size_t len,
                                       const char *name, char *err,
                                       size_t errlen)
{
    TlSafetensors *f = tl_xcalloc(1, sizeof *f);
    itp_src_mem(&f->src, data, len, name);
    return open_src(f, err, errlen);
}

void tl_safetensors_close(TlSafetensors *f)
{
    if (!f)
        return;
    itp_src_close(&f->src);
    for (int i = 0; i < f->n; i++)
        free((char *)f->ent[i].name);
    free(f->ent);
    for (int i = 0; i < 2 * f->nmeta; i++)
        free(f->meta[i]);
    free(f->meta);
    free(f);
}

int tl_safetensors_count(const TlSafetensors *f)
{
    return f->n;
}

const TlSafetensorsEntry *tl_safetensors_entry(const TlSafetensors *f,
                                               int i)
{
    TL_ASSERT(i >= 0 && i < f->n);
    return &f->ent[i];
}

int tl_safetensors_find(const TlSafetensors *f, const char *key)
{
    int lo = 0, hi = f->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(key, f->ent[mid].name);
        if (c == 0)
            return mid;
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

/* "'a', 'b', 'c' and 4 more" for a message about a missing key. */
static void list_keys(const TlSafetensors *f, char *out, size_t size)
{
    size_t len = 0;
    int shown = f->n < 5 ? f->n : 5;

    out[0] = 0;
    for (int i = 0; i < shown && len < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s'%s'",
                                i == 0 ? ""
                                : i + 1 == shown && f->n == shown ? " and "
                                                                  : ", ",
                                f->ent[i].name);
    if (f->n > shown && len < size)
        snprintf(out + len, size - len, " and %d more", f->n - shown);
}

TlTensor *tl_safetensors_get(TlSafetensors *f, const char *key, char *err,
                             size_t errlen)
{
    int i = tl_safetensors_find(f, key);
    const TlSafetensorsEntry *e;
    TlTensor *t;
    char msg[200];

    if (i < 0) {
        char keys[300];
        list_keys(f, keys, sizeof keys);
        if (f->n)
            itp_error(err, errlen, f->src.name,
                      "no tensor named '%s' (the file holds %s)", key,
                      keys);
        else
            itp_error(err, errlen, f->src.name,
                      "no tensor named '%s' (the file holds none)", key);
        return NULL;
    }
    e = &f->ent[i];
    t = tl_tensor_new(e->dtype, e->rank, e->shape, msg, sizeof msg);
    if (!t) {
        itp_error(err, errlen, f->src.name, "tensor '%s': %s", key, msg);
        return NULL;
    }
    if (itp_read_tensor(&f->src, f->data_off + e->begin, t,
                        itp_big_endian(), err, errlen) < 0) {
        tl_tensor_unref(t);
        return NULL;
    }
    return t;
}

int tl_safetensors_meta_count(const TlSafetensors *f)
{
    return f->nmeta;
}

const char *tl_safetensors_meta_key(const TlSafetensors *f, int i)
{
    TL_ASSERT(i >= 0 && i < f->nmeta);
    return f->meta[2 * i];
}

const char *tl_safetensors_meta_value(const TlSafetensors *f, int i)
{
    TL_ASSERT(i >= 0 && i < f->nmeta);
    return f->meta[2 * i + 1];
}

const char *tl_safetensors_meta_get(const TlSafetensors *f,
                                    const char *key)
{
    for (int i = 0; i < f->nmeta; i++)
        if (!strcmp(f->meta[2 * i], key))
            return f->meta[2 * i + 1];
    return NULL;
}

TlTensor *tl_safetensors_read(const char *path, const char *key,
                              char *err, size_t errlen)
{
    TlSafetensors *f = tl_safetensors_open(path, err, errlen);
    TlTensor *t = NULL;

    if (!f)
        return NULL;
    if (key)
        t = tl_safetensors_get(f, key, err, errlen);
    else if (f->n == 1)
        t = tl_safetensors_get(f, f->ent[0].name, err, errlen);
    else
        itp_error(err, errlen, path,
                  "the file holds %d tensors; say which one to read",
                  f->n);
    tl_safetensors_close(f);
    return t;
}

/* ====================================================================
 * Writing
 * ==================================================================== */

static void json_string(TlBuf *b, const char *s)
{
    buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            buf_printf(b, "\\u%04x", c);
        else
            buf_putc(b, (char)c);
    }
    buf_putc(b, '"');
}

static int by_tensor_name(const void *a, const void *b)
{
    return strcmp((*(const TlNamedTensor *const *)a)->name,
                  (*(const TlNamedTensor *const *)b)->name);
}

/* The padded JSON header into h, and the write order into order[n];
 * -1 with a message for bad names. */
static int build_header(TlBuf *h, const TlNamedTensor **order,
                        const TlNamedTensor *ts, int n,
                        const char *const *meta, int nmeta,
                        const char *name, char *err, size_t errlen)
{
    uint64_t off = 0;

    for (int i = 0; i < n; i++) {
        const char *k = ts[i].name;
        if (!k || !valid_utf8(k) || !strcmp(k, "__metadata__")) {
            itp_error(err, errlen, name, "cannot name a tensor '%s'",
                      k ? k : "(null)");
            return -1;
        }
        order[i] = &ts[i];
    }
    if (n > 0)
        qsort(order, (size_t)n, sizeof *order, by_tensor_name);
    for (int i = 1; i < n; i++)
        if (!strcmp(order[i]->name, order[i - 1]->name)) {
            itp_error(err, errlen, name, "tensor name '%s' given twice",
                      order[i]->name);
            return -1;
        }
    for (int i = 0; i < 2 * nmeta; i++) {
        int bad = !meta[i] || !valid_utf8(meta[i]);
        for (int k = 0; !bad && i % 2 == 0 && k < i; k += 2)
            bad = !strcmp(meta[k], meta[i]);
        if (bad) {
            itp_error(err, errlen, name,
                      "bad or repeated metadata string '%s'",
                      meta[i] ? meta[i] : "(null)");
            return -1;
        }
    }

    buf_putc(h, '{');
    if (nmeta) {
        buf_puts(h, "\"__metadata__\":{");
        for (int i = 0; i < nmeta; i++) {
            if (i)
                buf_putc(h, ',');
            json_string(h, meta[2 * i]);
            buf_putc(h, ':');
            json_string(h, meta[2 * i + 1]);
        }
        buf_puts(h, n ? "}," : "}");
    }
    for (int i = 0; i < n; i++) {
        const TlTensor *t = order[i]->t;
        uint64_t size = (uint64_t)(tl_tensor_numel(t) * dt_size(t->dtype));
        if (i)
            buf_putc(h, ',');
        json_string(h, order[i]->name);
        buf_printf(h, ":{\"dtype\":\"%s\",\"shape\":[",
                   st_dtype_name(t->dtype));
        for (int a = 0; a < t->rank; a++)
            buf_printf(h, "%s%lld", a ? "," : "", (long long)t->shape[a]);
        buf_printf(h, "],\"data_offsets\":[%llu,%llu]}",
                   (unsigned long long)off,
                   (unsigned long long)(off + size));
        off += size;
    }
    buf_putc(h, '}');
    /* The data then starts at 8 + h->len, a multiple of 8. */
    while (h->len % 8)
        buf_putc(h, ' ');
    return 0;
}

static void write_body(ItpSink *k, const TlBuf *h,
                       const TlNamedTensor **order, int n)
{
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)((uint64_t)h->len >> (8 * i));
    itp_sink_put(k, len8, 8);
    itp_sink_put(k, h->s, h->len);
    for (int i = 0; i < n; i++)
        itp_sink_tensor(k, order[i]->t);
}

int tl_safetensors_write(const char *path, const TlNamedTensor *ts, int n,
                         const char *const *meta, int nmeta, char *err,
                         size_t errlen)
{
    TlBuf h;
    const TlNamedTensor **order =
        tl_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    ItpSink k;
    int rc = -1;

    buf_init(&h);
    if (build_header(&h, order, ts, n, meta, nmeta, path, err,
                     errlen) == 0 &&
        itp_sink_open(&k, path, err, errlen) == 0) {
        write_body(&k, &h, order, n);
        rc = itp_sink_close(&k, path, err, errlen);
    }
    buf_free(&h);
    free(order);
    return rc;
}

int tl_safetensors_write_buf(TlBuf *out, const TlNamedTensor *ts, int n,
                             const char *const *meta, int nmeta,
                             const char *name, char *err, size_t errlen)
{
    TlBuf h;
    const TlNamedTensor **order =
        tl_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    ItpSink k;
    int rc = -1;

    buf_init(&h);
    if (build_header(&h, order, ts, n, meta, nmeta, name, err,
                     errlen) == 0) {
        itp_sink_buf(&k, out, name);
        write_body(&k, &h, order, n);
        rc = 0;
    }
    buf_free(&h);
    free(order);
    return rc;
}
