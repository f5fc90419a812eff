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
 * the one piece of global state here; the interpreter's str kernels run
 * single-threaded, and compiled ones make their strings in the cpu
 * runner's arena, which it interns after the call (codegen/c/target.c).
 */
#include "lang/lang.h"
#include "lang/strconv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
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
 * Numbers to text (numpy's str() of a scalar) and back: lang/strconv.h,
 * the text the compiled kernels use too
 * ==================================================================== */

#define TL_SC static
#define TL_SC_AS_C(...) __VA_ARGS__
TL_STRCONV_DEF(TL_SC_AS_C)

static int same_f64(double r, double v) { return r == v; }
static int same_f32(double r, double v) { return (float)r == (float)v; }
static int same_f16(double r, double v)
{
    return tl_f64_to_f16(r) == tl_f64_to_f16(v);
}
static int same_bf16(double r, double v)
{
    return tl_f64_to_bf16(r) == tl_f64_to_bf16(v);
}

static void float_text(TlDType dt, double v, char *out, size_t size)
{
    switch (dt) {
    case DT_F64: tl_sc_float(v, 17, same_f64, out, size); break;
    case DT_F32: tl_sc_float(v, 9, same_f32, out, size); break;
    case DT_F16: tl_sc_float(v, 5, same_f16, out, size); break;
    default: tl_sc_float(v, 5, same_bf16, out, size); break;
    }
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
        if (tl_sc_parse_f(s, &v))
            return -1;
        tl_dt_store_f64(dt, p, v);
        return 0;
    }
    if (dt == DT_U64) {
        uint64_t x;
        if (tl_sc_parse_u(s, &x))
            return -1;
        tl_dt_store_u64(dt, p, x);
        return 0;
    }
    {
        int64_t v;
        if (tl_sc_parse_i(s, &v))
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

    tl_sc_case(s, t, n, up);
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
