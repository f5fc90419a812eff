/*
 * main.c - calls kernels on strings compiled ahead of time by
 *
 *     tdsl compile kernels.tdsl --kernel words -o words.so -o words.h
 *     (and the same for texts and numbers)
 *
 * and checks their results.  A str tensor is an array of `const char *`
 * (NULL is the empty string); the strings a kernel makes come from the
 * allocator passed last (docs/c-abi.md): here a bump arena the program
 * frees when it is done with the outputs.  Prints one "ok: ..." line
 * per check; exits 1 on the first failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbers.h"
#include "texts.h"
#include "words.h"

/* A bump arena of malloc'd blocks, freed at once. */
typedef struct Block {
    struct Block *next;
    size_t used, size;
    char data[];
} Block;

static void *arena_alloc(void *ctx, size_t n)
{
    Block **head = ctx, *b = *head;

    if (!b || b->size - b->used < n) {
        size_t size = n > 4096 ? n : 4096;
        if (!(b = malloc(sizeof *b + size)))
            return NULL;
        b->next = *head;
        b->used = 0;
        b->size = size;
        *head = b;
    }
    b->used += n;
    return b->data + b->used - n;
}

static void arena_free(Block **head)
{
    while (*head) {
        Block *b = *head;
        *head = b->next;
        free(b);
    }
}

static int failed;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (!ok)
        failed = 1;
}

static int same(const char *const *got, const char *const *want, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(got[i] ? got[i] : "", want[i]))
            return 0;
    return 1;
}

int main(void)
{
    Block *mem = NULL;
    tdsl_str_alloc strs = {arena_alloc, &mem};
    int64_t n4[1] = {4}, n3[1] = {3}, every2[1] = {2};

    {
        /* Every other element of a longer array: strides work. */
        const char *w[8] = {"The", "x", "quick", "x", NULL, "x", "Émile", "x"};
        const char *lo[4], *up[4];
        const char *want_lo[4] = {"the", "quick", "", "Émile"};
        const char *want_up[4] = {"THE", "QUICK", "", "ÉMILE"};
        uint8_t is_the[4];
        int rc = tdsl_words(w, n4, every2, lo, n4, NULL, up, n4, NULL,
                            is_the, n4, NULL, &strs);
        check(rc == TDSL_OK, "words returns TDSL_OK");
        check(same(lo, want_lo, 4) && same(up, want_up, 4),
              "lower and upper map ASCII letters only");
        check(is_the[0] == 1 && is_the[1] == 0 && is_the[2] == 0 &&
              is_the[3] == 0, "lower(w) == \"the\"");
    }
    {
        float x[4] = {0.1f, 1e20f, -0.0f, 100.0f};
        int64_t k[4] = {-5, 0, 42, -9223372036854775807 - 1};
        const char *s[4], *t[4];
        const char *want_s[4] = {"0.1", "1e+20", "-0.0", "100.0"};
        const char *want_t[4] = {"negative", "0", "42", "negative"};
        float back[4];
        int rc = tdsl_texts(x, n4, NULL, k, n4, NULL, s, n4, NULL, t, n4,
                            NULL, back, n4, NULL, &strs);
        check(rc == TDSL_OK, "texts returns TDSL_OK");
        check(same(s, want_s, 4), "str(x) writes numpy's shortest text");
        check(same(t, want_t, 4), "a literal or the text of an i64");
        check(memcmp(back, x, sizeof x) == 0, "f32(str(x)) is x");
    }
    {
        const char *s[3] = {" 1.5 ", "-inf", "1e3"};
        double f[3];
        int8_t n[3];
        int rc = tdsl_numbers(s, n3, NULL, f, n3, NULL, n, n3, NULL, &strs);
        check(rc == TDSL_OK && f[0] == 1.5 && f[1] < -1e308 &&
              f[2] == 1000.0, "f64(s) reads as Python's float()");
        check(n[0] == 7 && n[1] == 7 && n[2] == 44,
              "i8(\"300\") wraps to 44");
        s[1] = "one";
        rc = tdsl_numbers(s, n3, NULL, f, n3, NULL, n, n3, NULL, &strs);
        check(rc == TDSL_ERR_STR, "\"one\" is no number: TDSL_ERR_STR");
    }
    /* The outputs' strings are the arena's: freed with it. */
    arena_free(&mem);
    return failed;
}
