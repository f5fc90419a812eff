/*
 * safetensors.c - .safetensors files: an 8-byte little-endian header
 * length N, N bytes of JSON, then the tensors' bytes.  The JSON is one
 * object mapping each tensor name to {"dtype": "F32", "shape": [2, 3],
 * "data_offsets": [begin, end]} (offsets relative to the end of the
 * header), plus an optional "__metadata__" object of strings.
 *
 * The header is parsed by json-c in strict mode.  json-c still lets a
 * few non-JSON things through (single quotes, raw control characters,
 * lone surrogates, overlong UTF-8) and keeps only the last of repeated
 * keys, so a light scan of the text it accepted refuses the former and
 * counts each object's members to find the latter.  The tree is then
 * held to the schema (fields present once, non-negative 64-bit
 * integers), and every entry to the file (dtype, shape limits, offsets
 * inside the data, size = shape x dtype, no overlaps) before any tensor
 * is read: a corrupt file is an error, never an out-of-bounds read.
 * Gaps between tensors are tolerated on reading and never written; the
 * header is written by hand in one fixed layout.
 */
#include "interp/interp_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* A header longer than this is not a real one (the format's own
 * reference implementation uses the same limit). */
#define MAX_HEADER 100000000u

struct TlSafetensors {
    ItpSrc src;
    uint64_t data_off;          /* 8 + header length */
    TlSafetensorsEntry *ent;    /* sorted by name */
    int n;
    char **meta;                /* key, value, key, value, ... */
    int nmeta;
};

static const struct {
    const char *name;
    TlDType dt;
} st_dtypes[] = {
    {"BOOL", DT_BOOL}, {"U8", DT_U8}, {"I8", DT_I8}, {"I16", DT_I16},
    {"U16", DT_U16}, {"U32", DT_U32}, {"U64", DT_U64},
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
 * The scan of the text json-c accepted
 * ==================================================================== */

/* json-c's nesting limit; the schema needs 3 levels. */
enum { MAX_DEPTH = 16 };

/* What the scan finds: the number of members of each object, in the
 * order the objects open, and where each opens; or the first thing
 * json-c let through that JSON does not allow. */
typedef struct Scan {
    const char *s;
    size_t n;
    size_t *members, *start;
    size_t nobj, cap;
    size_t bad;                 /* the byte of the first problem */
    const char *what;           /* and what it is */
} Scan;

static int scan_fail(Scan *sc, size_t at, const char *what)
{
    sc->bad = at;
    sc->what = what;
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

/* The 4 hex digits at s[i], or -1. */
static long hex4(const Scan *sc, size_t i)
{
    long v = 0;

    if (i > sc->n || sc->n - i < 4)
        return -1;
    for (int k = 0; k < 4; k++) {
        int d = hexval((unsigned char)sc->s[i + k]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The string whose opening quote is s[i]: refuses raw control
 * characters, invalid UTF-8 (json-c's check lets overlong forms and
 * surrogates through), NUL and lone surrogates in \u escapes.  Returns
 * the index of the closing quote, or 0 after an error. */
static size_t scan_string(Scan *sc, size_t i)
{
    const unsigned char *s = (const unsigned char *)sc->s;
    size_t j = i + 1;

    while (j < sc->n && s[j] != '"') {
        long cp, lo = -1;
        int l;

        if (s[j] < 0x20) {
            scan_fail(sc, j, "control character in a string");
            return 0;
        }
        if (s[j] >= 0x80) {
            if (!(l = utf8_len(s + j, sc->n - j))) {
                scan_fail(sc, j, "invalid UTF-8");
                return 0;
            }
            j += (size_t)l;
            continue;
        }
        if (s[j] != '\\') {
            j++;
            continue;
        }
        if (j + 1 < sc->n && s[j + 1] != 'u') {
            j += 2;
            continue;
        }
        cp = hex4(sc, j + 2);
        if (cp >= 0xd800 && cp <= 0xdbff && j + 8 < sc->n &&
            s[j + 6] == '\\' && s[j + 7] == 'u')
            lo = hex4(sc, j + 8);
        if (cp < 0) {
            scan_fail(sc, j, "bad \\u escape");
            return 0;
        }
        if (cp == 0) {
            scan_fail(sc, j, "NUL character in a string");
            return 0;
        }
        if ((cp >= 0xd800 && cp <= 0xdbff && (lo < 0xdc00 || lo > 0xdfff))
            || (cp >= 0xdc00 && cp <= 0xdfff)) {
            scan_fail(sc, j, "unpaired surrogate in a \\u escape");
            return 0;
        }
        j += cp >= 0xd800 && cp <= 0xdbff ? 12 : 6;
    }
    if (j >= sc->n) {
        scan_fail(sc, i, "unterminated string");
        return 0;
    }
    return j;
}

/* Scans s[0..n), which json-c accepted. */
static int scan_text(Scan *sc)
{
    size_t stack[MAX_DEPTH];    /* object index; SIZE_MAX for a list */
    int depth = 0;

    for (size_t i = 0; i < sc->n; i++) {
        switch (sc->s[i]) {
        case '\'':
            return scan_fail(sc, i, "single-quoted string");
        case '"':
            if (!(i = scan_string(sc, i)))
                return -1;
            break;
        case '[':
            if (depth == MAX_DEPTH)
                return scan_fail(sc, i, "nesting too deep");
            stack[depth++] = SIZE_MAX;
            break;
        case '{':
            if (depth == MAX_DEPTH)
                return scan_fail(sc, i, "nesting too deep");
            if (sc->nobj == sc->cap) {
                sc->cap = sc->cap ? 2 * sc->cap : 16;
                sc->members = tl_xrealloc(sc->members,
                                          sc->cap * sizeof *sc->members);
                sc->start = tl_xrealloc(sc->start,
                                        sc->cap * sizeof *sc->start);
            }
            sc->members[sc->nobj] = 0;
            sc->start[sc->nobj] = i;
            stack[depth++] = sc->nobj++;
            break;
        case '}':
        case ']':
            if (depth > 0)
                depth--;
            break;
        case ':':
            if (depth == 0 || stack[depth - 1] == SIZE_MAX)
                return scan_fail(sc, i, "unexpected ':'");
            sc->members[stack[depth - 1]]++;
            break;
        }
    }
    return 0;
}

/* A JSON string token decoded by json-c, malloc'd. */
static char *decode_string(const char *tok, size_t len)
{
    json_tokener *t = json_tokener_new_ex(MAX_DEPTH);
    json_object *o;
    char *s;

    TL_ASSERT(t && len < INT32_MAX);
    json_tokener_set_flags(t, JSON_TOKENER_STRICT);
    o = json_tokener_parse_ex(t, tok, (int)len);
    TL_ASSERT(json_object_is_type(o, json_type_string));
    s = tl_xstrdup(json_object_get_string(o));
    json_object_put(o);
    json_tokener_free(t);
    return s;
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A key that appears more than once in object k of the scan (the least
 * in byte order), malloc'd. */
static char *repeated_key(Scan *sc, size_t k)
{
    size_t i = sc->start[k] + 1, nkeys = 0, max = sc->members[k];
    char **keys = tl_xmalloc((max + 1) * sizeof *keys), *dup = NULL;
    int depth = 1, want_key = 1;

    while (depth > 0 && i < sc->n) {
        char c = sc->s[i];
        size_t end;
        if (c == '"') {
            end = scan_string(sc, i);
            TL_ASSERT(end > i);
            if (depth == 1 && want_key && nkeys < max)
                keys[nkeys++] = decode_string(sc->s + i, end + 1 - i);
            want_key = 0;
            i = end + 1;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        else if (c == ',' && depth == 1)
            want_key = 1;
        i++;
    }
    qsort(keys, nkeys, sizeof *keys, by_str);
    for (size_t a = 1; a < nkeys && !dup; a++)
        if (!strcmp(keys[a - 1], keys[a]))
            dup = tl_xstrdup(keys[a]);
    for (size_t a = 0; a < nkeys; a++)
        free(keys[a]);
    free(keys);
    TL_ASSERT(dup);
    return dup;
}

/* ====================================================================
 * The header schema, over json-c's tree
 * ==================================================================== */

typedef struct Walk {
    TlSafetensors *f;
    Scan *sc;
    size_t next;                /* the next object of the scan */
    char *err;
    size_t errlen;
} Walk;

static int werror(Walk *w, const char *fmt, ...) TL_PRINTF(2, 3);

/* A schema error (valid JSON, wrong content); returns -1. */
static int werror(Walk *w, const char *fmt, ...)
{
    char msg[300];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    itp_error(w->err, w->errlen, w->f->src.name, "%s", msg);
    return -1;
}

/* Object o, which must be the next one of the text: NULL when its keys
 * are distinct, else one that appears twice (malloc'd).  json-c keeps
 * the last value of a repeated key in the place of the first, so the
 * objects of the tree come in the text's order as long as each is
 * checked before those inside it. */
static char *object_repeats(Walk *w, json_object *o)
{
    size_t k = w->next++;

    TL_ASSERT(k < w->sc->nobj);
    if (w->sc->members[k] == (size_t)json_object_object_length(o))
        return NULL;
    return repeated_key(w->sc, k);
}

/* v as the user wrote it, shortened, for a message. */
static void describe(json_object *v, char *out, size_t size)
{
    const char *s = json_object_to_json_string_ext(
        v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (strlen(s) > 40)
        snprintf(out, size, "%.37s...", s);
    else
        snprintf(out, size, "%s", s);
}

/* List `field` of tensor e, of at most max non-negative integers, into
 * v; returns how many it holds (up to max + 1), or -1 after an error. */
static int walk_ints(Walk *w, json_object *o, const TlSafetensorsEntry *e,
                     const char *field, int64_t *v, int max)
{
    size_t n;
    char d[48];

    if (!json_object_is_type(o, json_type_array))
        return werror(w, "%s of tensor '%s' is not a list", field,
                      e->name);
    n = json_object_array_length(o);
    if (n > (size_t)max)
        return max + 1;
    for (size_t i = 0; i < n; i++) {
        json_object *x = json_object_array_get_idx(o, i);
        if (!json_object_is_type(x, json_type_int) ||
            json_object_get_int64(x) < 0) {
            describe(x, d, sizeof d);
            return werror(w, "%s of tensor '%s' holds %s, not a "
                          "non-negative integer", field, e->name, d);
        }
        if (json_object_get_uint64(x) > INT64_MAX)
            return werror(w, "%s of tensor '%s' holds a number above "
                          "2^63 - 1", field, e->name);
        v[i] = json_object_get_int64(x);
    }
    return (int)n;
}

/* {"dtype": ..., "shape": [...], "data_offsets": [b, e]} */
static int walk_tensor(Walk *w, json_object *o, TlSafetensorsEntry *e)
{
    static const char *const fields[3] = {"dtype", "shape",
                                          "data_offsets"};
    json_object *val[3] = {NULL, NULL, NULL};
    int seen[3] = {0, 0, 0}, n;
    struct json_object_iterator it, end;
    const char *d;
    char *dup;
    int64_t off[2];

    if (!json_object_is_type(o, json_type_object))
        return werror(w, "tensor '%s' is not an object", e->name);
    it = json_object_iter_begin(o);
    end = json_object_iter_end(o);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *k = json_object_iter_peek_name(&it);
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(k, fields[i]))
                which = i;
        if (which < 0)
            return werror(w, "tensor '%s' has an unexpected field '%s'",
                          e->name, k);
        val[which] = json_object_iter_peek_value(&it);
        seen[which] = 1;
    }
    if ((dup = object_repeats(w, o))) {
        werror(w, "tensor '%s' has field '%s' twice", e->name, dup);
        free(dup);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (!seen[i])
            return werror(w, "tensor '%s' lacks '%s'", e->name, fields[i]);

    if (!json_object_is_type(val[0], json_type_string))
        return werror(w, "dtype of tensor '%s' is not a string", e->name);
    d = json_object_get_string(val[0]);
    e->dtype = DT_NONE;
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes; i++)
        if (!strcmp(d, st_dtypes[i].name))
            e->dtype = st_dtypes[i].dt;
    if (e->dtype == DT_NONE)
        return werror(w, "tensor '%s' has dtype '%s', which tdsl does not "
                      "support", e->name, d);

    if ((n = walk_ints(w, val[1], e, "shape", e->shape, TL_MAX_RANK)) < 0)
        return -1;
    if (n > TL_MAX_RANK)
        return werror(w, "tensor '%s' has rank above the maximum of %d",
                      e->name, TL_MAX_RANK);
    e->rank = n;

    if ((n = walk_ints(w, val[2], e, "data_offsets", off, 2)) < 0)
        return -1;
    if (n != 2)
        return werror(w, n > 2 ? "data_offsets of tensor '%s' has more "
                      "than 2 numbers" : "data_offsets of tensor '%s' "
                      "needs 2 numbers", e->name);
    e->begin = (uint64_t)off[0];
    e->end = (uint64_t)off[1];
    return 0;
}

/* "__metadata__": {"key": "value", ...} */
static int walk_meta(Walk *w, json_object *o)
{
    TlSafetensors *f = w->f;
    struct json_object_iterator it, end;
    char *dup;

    if (!json_object_is_type(o, json_type_object))
        return werror(w, "\"__metadata__\" is not an object");
    if ((dup = object_repeats(w, o))) {
        werror(w, "metadata key '%s' appears twice", dup);
        free(dup);
        return -1;
    }
    f->meta = tl_xmalloc((2 * (size_t)json_object_object_length(o) + 1) *
                         sizeof *f->meta);
    it = json_object_iter_begin(o);
    end = json_object_iter_end(o);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *k = json_object_iter_peek_name(&it);
        json_object *v = json_object_iter_peek_value(&it);
        if (!json_object_is_type(v, json_type_string))
            return werror(w, "metadata value of '%s' is not a string", k);
        f->meta[2 * f->nmeta] = tl_xstrdup(k);
        f->meta[2 * f->nmeta + 1] = tl_xstrdup(json_object_get_string(v));
        f->nmeta++;
    }
    return 0;
}

/* The whole header: tensors by name, and "__metadata__". */
static int walk_top(Walk *w, json_object *root)
{
    TlSafetensors *f = w->f;
    struct json_object_iterator it, end;
    char *dup;

    if ((dup = object_repeats(w, root))) {
        if (!strcmp(dup, "__metadata__"))
            werror(w, "\"__metadata__\" appears twice");
        else
            werror(w, "tensor '%s' appears twice", dup);
        free(dup);
        return -1;
    }
    f->ent = tl_xmalloc(((size_t)json_object_object_length(root) + 1) *
                        sizeof *f->ent);
    it = json_object_iter_begin(root);
    end = json_object_iter_end(root);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *k = json_object_iter_peek_name(&it);
        json_object *v = json_object_iter_peek_value(&it);
        TlSafetensorsEntry *e;
        if (!strcmp(k, "__metadata__")) {
            if (walk_meta(w, v) < 0)
                return -1;
            continue;
        }
        e = &f->ent[f->n++];
        memset(e, 0, sizeof *e);
        e->name = tl_xstrdup(k);
        if (walk_tensor(w, v, e) < 0)
            return -1;
    }
    return 0;
}

/* What json-c's error means, in the words of the other messages. */
static const char *json_error_text(enum json_tokener_error e)
{
    switch (e) {
    case json_tokener_continue:
    case json_tokener_error_parse_eof:
        return "unexpected end";
    case json_tokener_error_depth:
        return "nesting too deep";
    case json_tokener_error_parse_null:
    case json_tokener_error_parse_boolean:
    case json_tokener_error_parse_unexpected:
        return "unexpected character";
    case json_tokener_error_parse_number:
        return "malformed number";
    case json_tokener_error_parse_array:
        return "expected ',' or ']'";
    case json_tokener_error_parse_object_key_name:
        return "expected a string";
    case json_tokener_error_parse_object_key_sep:
        return "expected ':'";
    case json_tokener_error_parse_object_value_sep:
        return "expected ',' or '}'";
    case json_tokener_error_parse_string:
        return "bad escape in a string";
    case json_tokener_error_parse_utf8_string:
        return "invalid UTF-8";
    default:
        return json_tokener_error_desc(e);
    }
}

/* Parses and checks text[0..n) (text[n] is free for a NUL) into f. */
static int parse_header(TlSafetensors *f, char *text, size_t n, char *err,
                        size_t errlen)
{
    json_tokener *tok;
    json_object *root = NULL;
    enum json_tokener_error je;
    size_t end, first;
    Scan sc;
    Walk w;
    int rc = -1;

    /* The NUL tells json-c that the text ends there. */
    text[n] = 0;
    /* Only an object will do; json-c would call "" an unexpected end. */
    first = strspn(text, " \t\r\n");
    if (text[first] != '{') {
        itp_error(err, errlen, f->src.name, "malformed header: expected "
                  "'{' at byte %zu of the header", first);
        return -1;
    }
    tok = json_tokener_new_ex(MAX_DEPTH);
    TL_ASSERT(tok && n < INT32_MAX);
    memset(&sc, 0, sizeof sc);
    /* Trailing characters are allowed so that the loop below can say
     * where the object ended (the header is padded with blanks). */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
                                JSON_TOKENER_ALLOW_TRAILING_CHARS |
                                JSON_TOKENER_VALIDATE_UTF8);
    root = json_tokener_parse_ex(tok, text, (int)n + 1);
    je = json_tokener_get_error(tok);
    end = json_tokener_get_parse_end(tok);
    if (end > n)
        end = n;
    if (je != json_tokener_success) {
        /* json-c takes a NUL for the end of the text */
        size_t nul = strlen(text);
        itp_error(err, errlen, f->src.name,
                  "malformed header: %s at byte %zu of the header",
                  nul < n ? "unexpected NUL byte" : json_error_text(je),
                  nul < n ? nul : end);
        goto out;
    }
    TL_ASSERT(json_object_is_type(root, json_type_object));
    for (size_t i = end; i < n; i++)
        if (!text[i] || !strchr(" \t\r\n", text[i])) {
            itp_error(err, errlen, f->src.name, "malformed header: "
                      "unexpected text after the header object at byte "
                      "%zu of the header", i);
            goto out;
        }
    sc.s = text;
    sc.n = end;
    if (scan_text(&sc) < 0) {
        itp_error(err, errlen, f->src.name,
                  "malformed header: %s at byte %zu of the header",
                  sc.what, sc.bad);
        goto out;
    }
    memset(&w, 0, sizeof w);
    w.f = f;
    w.sc = &sc;
    w.err = err;
    w.errlen = errlen;
    rc = walk_top(&w, root);
out:
    free(sc.members);
    free(sc.start);
    json_object_put(root);
    json_tokener_free(tok);
    return rc;
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
    if (parse_header(f, text, (size_t)hlen, err, errlen) < 0) {
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
        if (ts[i].t->dtype == DT_STR) {
            itp_error(err, errlen, name, "'%s' is a str tensor, which "
                      "safetensors cannot hold (write it to .pb or .npy)",
                      k ? k : "(null)");
            return -1;
        }
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
