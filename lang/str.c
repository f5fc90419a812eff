/*
 * str.c - the elements of str tensors: interned strings, their
 * conversion to and from numbers, and case mapping.
 *
 * An element is a pointer, so that a str tensor is fixed-width like
 * every other (views, copies, slices and permutes work unchanged); the
 * strings it points to are interned for the life of the process, so no
 * tensor owns them and equal strings are one pointer.  Interning keeps
 * memory bounded by the distinct strings a run makes, which is what a
 * model with string inputs and a few case mappings needs.  The table is
 * the one piece of global state here; str kernels run single-threaded.
 */
#include "lang/lang.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Block {
    struct Block *next;
    size_t used, size;
    char data[];
} Block;

static struct {
    const char **slot;      /* open addressing, NULL: empty */
    size_t cap, count;
    Block *blocks;
} tab;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static char *block_alloc(size_t n)
{
    Block *b = tab.blocks;
    char *p;

    if (!b || b->size - b->used < n) {
        size_t size = n > 65536 ? n : 65536;
        b = tl_xmalloc(sizeof *b + size);
        b->next = tab.blocks;
        b->used = 0;
        b->size = size;
        tab.blocks = b;
    }
    p = b->data + b->used;
    b->used += n;
    return p;
}

static void grow(void)
{
    size_t cap = tab.cap ? tab.cap * 2 : 1024;
    const char **slot = tl_xcalloc(cap, sizeof *slot);

    for (size_t i = 0; i < tab.cap; i++) {
        const char *s = tab.slot[i];
        size_t j;
        if (!s)
            continue;
        j = (size_t)hash(s, strlen(s)) & (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = s;
    }
    free(tab.slot);
    tab.slot = slot;
    tab.cap = cap;
}

const char *tl_str_intern(const char *s, size_t n)
{
    size_t j;
    char *p;

    if (n == 0)
        s = "";         /* protobuf-c gives NULL for an empty string */
    if ((tab.count + 1) * 2 > tab.cap)
        grow();
    j = (size_t)hash(s, n) & (tab.cap - 1);
    for (; tab.slot[j]; j = (j + 1) & (tab.cap - 1))
        if (!strncmp(tab.slot[j], s, n) && tab.slot[j][n] == 0)
            return tab.slot[j];
    p = block_alloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    tab.slot[j] = p;
    tab.count++;
    return p;
}

const char *tl_str_at(const void *p)
{
    const char *s;
    memcpy(&s, p, sizeof s);
    return s ? s : "";
}

void tl_str_put(void *p, const char *s)
{
    memcpy(p, &s, sizeof s);
}

/* ====================================================================
 * Numbers to text (numpy's str() of a scalar)
 * ==================================================================== */

static int reads_back(TlDType dt, double r, double v)
{
    switch (dt) {
    case DT_F64: return r == v;
    case DT_F32: return (float)r == (float)v;
    case DT_F16: return tl_f64_to_f16(r) == tl_f64_to_f16(v);
    default: return tl_f64_to_bf16(r) == tl_f64_to_bf16(v);
    }
}

/* The shortest "%.*e" text of v that reads back at dt's precision: the
 * nearest decimal of that many digits, as Dragon4 (numpy) picks. */
static void shortest(TlDType dt, double v, char *s, size_t size)
{
    int maxd = dt == DT_F64 ? 17 : dt == DT_F32 ? 9 : 5;
    int n;

    for (n = 1; n < maxd; n++) {
        snprintf(s, size, "%.*e", n - 1, v);
        if (reads_back(dt, strtod(s, NULL), v))
            return;
    }
    snprintf(s, size, "%.*e", maxd - 1, v);
}

static void float_text(TlDType dt, double v, char *out, size_t size)
{
    char e[48], digits[24];
    int nd = 0, dexp, neg = v < 0;
    char *p = out, *end = out + size - 1;

    if (isnan(v)) {
        snprintf(out, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, size, neg ? "-inf" : "inf");
        return;
    }
    if (v == 0) {
        snprintf(out, size, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    shortest(dt, fabs(v), e, sizeof e);
    for (const char *q = e; *q && *q != 'e'; q++)
        if (isdigit((unsigned char)*q))
            digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    dexp = atoi(strchr(e, 'e') + 1);
    if (neg)
        *p++ = '-';
    if (fabs(v) >= 1e16 || fabs(v) < 1e-4) {
        *p++ = digits[0];
        if (nd > 1) {
            *p++ = '.';
            for (int i = 1; i < nd && p < end; i++)
                *p++ = digits[i];
        }
        snprintf(p, (size_t)(end - p) + 1, "e%c%02d", dexp < 0 ? '-' : '+',
                 abs(dexp));
        return;
    }
    if (dexp < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > dexp && p < end; i--)
            *p++ = '0';
        for (int i = 0; i < nd && p < end; i++)
            *p++ = digits[i];
    } else {
        for (int i = 0; i <= dexp && p < end; i++)
            *p++ = i < nd ? digits[i] : '0';
        *p++ = '.';
        if (nd <= dexp + 1)
            *p++ = '0';
        for (int i = dexp + 1; i < nd && p < end; i++)
            *p++ = digits[i];
    }
    *p = 0;
}

const char *tl_str_from(TlDType dt, const void *p)
{
    char s[64];

    if (dt == DT_STR)
        return tl_str_at(p);
    if (dt == DT_BOOL)
        snprintf(s, sizeof s, "%s", tl_dt_load_i64(dt, p) ? "True" : "False");
    else if (dt == DT_U64)
        snprintf(s, sizeof s, "%llu",
                 (unsigned long long)tl_dt_load_i64(dt, p));
    else if (dt_is_int(dt))
        snprintf(s, sizeof s, "%lld", (long long)tl_dt_load_i64(dt, p));
    else
        float_text(dt, tl_dt_load_f64(dt, p), s, sizeof s);
    return tl_str_intern(s, strlen(s));
}

/* ====================================================================
 * Text to numbers (numpy's astype from a str array)
 * ==================================================================== */

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Python's float(): decimal numbers, "nan" and "inf"/"infinity" with an
 * optional sign in any case, spaces around; not C's hex floats. */
static int parse_float(const char *s, double *v)
{
    const char *q = skip_space(s);
    char *end;

    if (*q == '+' || *q == '-')
        q++;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        return -1;
    q = skip_space(s);
    errno = 0;
    *v = strtod(q, &end);
    if (end == q)
        return -1;
    /* strtod takes "nan(chars)"; Python does not. */
    if (strchr(q, '(') && strchr(q, '(') < end)
        return -1;
    return *skip_space(end) ? -1 : 0;
}

static int parse_int(const char *s, int64_t *v)
{
    const char *q = skip_space(s);
    char *end;
    long long x;

    if (!isdigit((unsigned char)q[*q == '+' || *q == '-']))
        return -1;
    errno = 0;
    x = strtoll(q, &end, 10);
    if (errno == ERANGE || *skip_space(end))
        return -1;
    *v = x;
    return 0;
}

int tl_str_to(TlDType dt, const char *s, void *p)
{
    if (dt == DT_STR) {
        tl_str_put(p, s);
        return 0;
    }
    if (dt == DT_BOOL) {
        tl_dt_store_i64(dt, p, *s != 0);
        return 0;
    }
    if (dt_is_float(dt)) {
        double v;
        if (parse_float(s, &v))
            return -1;
        tl_dt_store_f64(dt, p, v);
        return 0;
    }
    if (dt == DT_U64) {
        const char *q = skip_space(s);
        char *end;
        unsigned long long x;
        if (!isdigit((unsigned char)q[*q == '+']))
            return -1;
        errno = 0;
        x = strtoull(q, &end, 10);
        if (errno == ERANGE || *skip_space(end))
            return -1;
        tl_dt_store_u64(dt, p, x);
        return 0;
    }
    {
        int64_t v;
        if (parse_int(s, &v))
            return -1;
        tl_dt_store_i64(dt, p, v);
        return 0;
    }
}

/* ====================================================================
 * Case
 * ==================================================================== */

static const char *map_case(const char *s, int up)
{
    size_t n = strlen(s);
    char *t = tl_xmalloc(n + 1);
    const char *r;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (up && c >= 'a' && c <= 'z')
            c = (unsigned char)(c - 'a' + 'A');
        else if (!up && c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        t[i] = (char)c;
    }
    r = tl_str_intern(t, n);
    free(t);
    return r;
}

const char *tl_str_lower(const char *s)
{
    return map_case(s, 0);
}

const char *tl_str_upper(const char *s)
{
    return map_case(s, 1);
}
