/*
 * util.c - the allocation wrapper, arenas, pointer vectors and growable
 * strings that the rest of tdsl builds on.
 *
 * Arenas hand out zeroed memory from large blocks and free everything at
 * once (STYLE.md rule 6); nothing allocated in an arena is freed alone.
 */
#include "lang/lang.h"

#include <stdlib.h>
#include <string.h>

struct TlArenaBlock {
    TlArenaBlock *next;
    size_t size, used;
    /* Aligned storage follows. */
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

static TL_NORETURN void out_of_memory(size_t n)
{
    fprintf(stderr, "tdsl: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *tl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *tl_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

void *tl_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

char *tl_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = tl_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void arena_init(TlArena *a)
{
    a->head = NULL;
    a->used_total = 0;
}

void arena_free(TlArena *a)
{
    TlArenaBlock *b = a->head;
    while (b) {
        TlArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used_total = 0;
}

void *arena_alloc(TlArena *a, size_t n)
{
    TlArenaBlock *b = a->head;
    void *p;

    n = (n + 15) & ~(size_t)15;
    if (!b || b->size - b->used < n) {
        /* Large requests get a block of their own, placed second so
         * the current block keeps serving small ones. */
        size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        TlArenaBlock *nb = tl_xmalloc(sizeof *nb + size);
        nb->size = size;
        nb->used = 0;
        if (b && size != ARENA_BLOCK) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    p = b->data + b->used;
    b->used += n;
    a->used_total += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(TlArena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(TlArena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(TlArena *a, const char *fmt, ...)
{
    TlBuf b;
    va_list ap;
    char *p;

    buf_init(&b);
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    p = arena_strndup(a, b.s ? b.s : "", b.len);
    buf_free(&b);
    return p;
}

void vec_push(TlArena *a, TlVec *vec, void *item)
{
    if (vec->n == vec->cap) {
        int cap = vec->cap ? vec->cap * 2 : 8;
        void **v = arena_alloc(a, (size_t)cap * sizeof *v);
        if (vec->n)
            memcpy(v, vec->v, (size_t)vec->n * sizeof *v);
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = item;
}

void buf_init(TlBuf *b)
{
    b->s = NULL;
    b->len = b->cap = 0;
}

void buf_free(TlBuf *b)
{
    free(b->s);
    buf_init(b);
}

static void buf_reserve(TlBuf *b, size_t extra)
{
    if (b->len + extra + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + extra + 1)
            cap *= 2;
        b->s = tl_xrealloc(b->s, cap);
        b->cap = cap;
    }
}

void buf_putn(TlBuf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void buf_putc(TlBuf *b, char c)
{
    buf_putn(b, &c, 1);
}

void buf_puts(TlBuf *b, const char *s)
{
    buf_putn(b, s, strlen(s));
}

void buf_vprintf(TlBuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_printf(TlBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}
