/*
 * session.c - the per-compilation context: arena, sources, diagnostic
 * counts.  A session is reentrant (no globals), so the REPL and tests
 * can hold several at once.
 */
#include "lang/lang.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Refuse sources beyond this size (a clear error, not an OOM). */
enum { MAX_SOURCE = 64 * 1024 * 1024 };

TlSession *tl_session_new(void)
{
    TlSession *s = tl_xcalloc(1, sizeof *s);
    arena_init(&s->arena);
    s->max_errors = 50;
    s->diag_out = stderr;
    return s;
}

void tl_session_free(TlSession *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nsrc; i++) {
        free(s->src[i].path);
        free(s->src[i].text);
    }
    free(s->src);
    arena_free(&s->arena);
    free(s);
}

int tl_add_source(TlSession *s, const char *path, const char *text,
                  size_t len)
{
    TlSource *src;

    if (s->nsrc == s->src_cap) {
        s->src_cap = s->src_cap ? s->src_cap * 2 : 4;
        s->src = tl_xrealloc(s->src, (size_t)s->src_cap * sizeof *s->src);
    }
    src = &s->src[s->nsrc];
    src->path = tl_xstrdup(path);
    src->text = tl_xmalloc(len + 1);
    memcpy(src->text, text, len);
    src->text[len] = 0;
    src->len = len;
    return s->nsrc++;
}

int tl_add_file(TlSession *s, const char *path)
{
    FILE *f;
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    int id;

    f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "tdsl: cannot read '%s': %s\n", path,
                strerror(errno));
        return -1;
    }
    do {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            text = tl_xrealloc(text, cap);
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
        if (len > MAX_SOURCE)
            break;
    } while (n > 0);
    if (ferror(f) || len > MAX_SOURCE) {
        fprintf(stderr, "tdsl: cannot read '%s': %s\n", path,
                len > MAX_SOURCE ? "file larger than 64 MiB"
                                 : strerror(errno));
        if (f != stdin)
            fclose(f);
        free(text);
        return -1;
    }
    if (f != stdin)
        fclose(f);
    id = tl_add_source(s, path, text ? text : "", len);
    free(text);
    return id;
}
