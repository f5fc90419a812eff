/*
 * diag.c - diagnostics: the message table, and rendering as
 *
 *     file:line:col: error: message
 *         3 |     C[i, j] = sum(k) A[i, q]
 *           |                          ^
 *     hint: ...
 *
 * Diagnostics are printed as they are reported (so a REPL user sees them
 * at once) and counted in the session; after max_errors the rest are
 * dropped and the session's fatal boundary is taken.
 */
#include "lang/lang.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    TlSeverity sev;
    const char *fmt;
} msgs[DIAG__COUNT] = {
#define X(id, sev, fmt) [DIAG_##id] = {#id, SEV_##sev, fmt},
#include "lang/diag_msgs.h"
#undef X
};

const char *diag_format(TlDiagId id)
{
    return msgs[id].fmt;
}

const char *diag_name(TlDiagId id)
{
    return msgs[id].name;
}

const char *diag_line_text(TlSession *s, int file, int line, int *len)
{
    const char *p, *end;
    int l = 1;

    if (file < 0 || file >= s->nsrc || line < 1)
        return NULL;
    p = s->src[file].text;
    end = p + s->src[file].len;
    while (l < line && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
        l++;
    }
    if (l != line)
        return NULL;
    {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (e > p && e[-1] == '\r')
            e--;
        *len = (int)(e - p);
    }
    return p;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if the
 * bytes there are not valid UTF-8. */
static int utf8_len(const unsigned char *p, int n)
{
    int len;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF)
        len = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF)
        len = 3;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4)
        len = 4;
    else
        return 0;
    if (len > n)
        return 0;
    for (int i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* Prints the source line with a gutter, then the caret line.  Control
 * bytes and invalid UTF-8 show as '?', one column each, which is how
 * the lexer counts columns too. */
static void render_line(TlSession *s, FILE *f, TlLoc loc)
{
    int len, width, caret_from, caret_to, col = 1;
    const unsigned char *p;
    char gutter[32];

    p = (const unsigned char *)diag_line_text(s, loc.file, loc.line, &len);
    if (!p)
        return;
    width = snprintf(gutter, sizeof gutter, "%5d", loc.line);
    fprintf(f, "%s | ", gutter);
    /* Very long lines (minified or generated input) are cut. */
    if (len > 500)
        len = 500;
    TlBuf caret;
    buf_init(&caret);
    caret_from = loc.col;
    caret_to = loc.col + 1;
    for (int i = 0; i < len;) {
        int n = utf8_len(p + i, len - i);
        if (col == loc.col) {
            /* ~ under the rest of the range, within this line */
            int j = i, c = col;
            while (j < len && j < i + (loc.len > 0 ? loc.len : 1)) {
                int m = utf8_len(p + j, len - j);
                j += m ? m : 1;
                c++;
            }
            caret_to = c;
        }
        if (p[i] == '\t') {
            fputc('\t', f);
        } else if (n == 0 || p[i] < 0x20 || p[i] == 0x7f) {
            fputc('?', f);
        } else {
            fwrite(p + i, 1, (size_t)n, f);
        }
        i += n ? n : 1;
        col++;
    }
    fputc('\n', f);
    /* Caret line: keep tabs so the caret lines up under them. */
    for (int i = 0; i < width; i++)
        buf_putc(&caret, ' ');
    buf_puts(&caret, " | ");
    col = 1;
    for (int i = 0; i < len && col < caret_from;) {
        int n = utf8_len(p + i, len - i);
        buf_putc(&caret, p[i] == '\t' ? '\t' : ' ');
        i += n ? n : 1;
        col++;
    }
    for (; col < caret_from; col++)
        buf_putc(&caret, ' ');
    buf_putc(&caret, '^');
    for (int c = caret_from + 1; c < caret_to; c++)
        buf_putc(&caret, '~');
    fprintf(f, "%s\n", caret.s);
    buf_free(&caret);
}

static void print_head(TlSession *s, FILE *f, TlLoc loc, const char *what)
{
    if (loc.file >= 0 && loc.file < s->nsrc)
        fprintf(f, "%s:%d:%d: %s: ", s->src[loc.file].path, loc.line,
                loc.col, what);
    else
        fprintf(f, "tdsl: %s: ", what);
}

static int over_cap(TlSession *s)
{
    if (s->nerrors < s->max_errors)
        return 0;
    s->suppressed++;
    return 1;
}

static void report(TlSession *s, TlLoc loc, TlSeverity sev, TlDiagId id,
                   va_list ap)
{
    FILE *f = s->diag_out ? s->diag_out : stderr;

    if (sev == SEV_ERROR) {
        if (over_cap(s)) {
            if (s->suppressed == 1) {
                print_head(s, f, loc, "error");
                fprintf(f, "%s\n", msgs[DIAG_TOO_MANY_ERRORS].fmt);
            }
            s->nerrors++;
            if (s->fatal)
                longjmp(*s->fatal, 1);
            return;
        }
        s->nerrors++;
    } else {
        s->nwarnings++;
    }
    print_head(s, f, loc, sev == SEV_ERROR ? "error" : "warning");
    vfprintf(f, msgs[id].fmt, ap);
    fputc('\n', f);
    render_line(s, f, loc);
    fflush(f);
}

void diag_error(TlSession *s, TlLoc loc, TlDiagId id, ...)
{
    va_list ap;
    va_start(ap, id);
    report(s, loc, SEV_ERROR, id, ap);
    va_end(ap);
}

void diag_warning(TlSession *s, TlLoc loc, TlDiagId id, ...)
{
    va_list ap;
    va_start(ap, id);
    report(s, loc, SEV_WARNING, id, ap);
    va_end(ap);
}

void diag_fatal(TlSession *s, TlLoc loc, TlDiagId id, ...)
{
    va_list ap;
    va_start(ap, id);
    report(s, loc, SEV_ERROR, id, ap);
    va_end(ap);
    TL_ASSERT(s->fatal != NULL);
    longjmp(*s->fatal, 1);
}

void diag_note(TlSession *s, TlLoc loc, const char *fmt, ...)
{
    FILE *f = s->diag_out ? s->diag_out : stderr;
    va_list ap;

    if (s->suppressed)
        return;
    print_head(s, f, loc, "note");
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    render_line(s, f, loc);
}

void diag_hint(TlSession *s, const char *fmt, ...)
{
    FILE *f = s->diag_out ? s->diag_out : stderr;
    va_list ap;

    if (s->suppressed)
        return;
    fputs("hint: ", f);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

void tl_internal_error(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "tdsl: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nthis is a bug in tdsl; please report it with the "
                    "input that triggered it\n");
    abort();
}
