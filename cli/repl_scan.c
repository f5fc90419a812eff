/*
 * repl_scan.c - does what was typed so far make a whole input, or
 * should the REPL ask for another line ("  ...> ")?
 *
 * The REPL cannot see the next line, so it goes on while brackets are
 * open, while a kernel or schedule header has not reached its '{', and
 * while a line ends where a statement cannot: after an operator, a ','
 * or the header of a sum/prod/argmax/argmin reduction (whose body may
 * start on the next line, as in a file).  Brackets are counted outside
 * strings and comments; the parser judges everything else.
 */
#include "cli/repl.h"

#include <string.h>

void repl_scan_init(ReplScan *sc)
{
    memset(sc, 0, sizeof *sc);
}

static int is_word_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static int is_reduction(const char *w, size_t n)
{
    static const char *const kw[] = {"sum", "prod", "argmax", "argmin"};

    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], w, n) == 0)
            return 1;
    return 0;
}

static void push(ReplScan *sc, char c)
{
    if (sc->depth >= 0 && sc->depth < REPL_MAX_OPEN)
        sc->open[sc->depth] = c;
    sc->depth++;
}

/* Pops a closer; returns what it closed (0 when unknown). */
static char pop(ReplScan *sc)
{
    char c = 0;

    if (sc->depth > 0 && sc->depth <= REPL_MAX_OPEN)
        c = sc->open[sc->depth - 1];
    sc->depth--;
    return c;
}

void repl_scan_line(ReplScan *sc, const char *line)
{
    const char *p = line;
    char last = 0;          /* last significant character */
    int after_red = 0;      /* the last word was a reduction keyword */
    int closed_red = 0;     /* the last token closed a reduction header */

    while (*p) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
            continue;
        }
        if (c == '\n') {
            /* A pasted block comes as one line: only how its last line
             * ends matters. */
            last = 0;
            closed_red = after_red = 0;
            p++;
            continue;
        }
        if (c == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        sc->tokens++;
        closed_red = 0;
        if (c == '"') {
            /* A string ends on its line (no newline inside). */
            for (p++; *p && *p != '"' && *p != '\n'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p == '"')
                p++;
            last = '"';
            after_red = 0;
            continue;
        }
        if (is_word_char(c)) {
            const char *w = p;
            while (is_word_char(*p))
                p++;
            if (sc->words++ == 0 &&
                ((p - w == 6 && memcmp(w, "kernel", 6) == 0) ||
                 (p - w == 8 && memcmp(w, "schedule", 8) == 0)))
                sc->header = 1;
            after_red = is_reduction(w, (size_t)(p - w));
            last = 'a';
            continue;
        }
        p++;
        if (c == '(')
            push(sc, after_red ? 'r' : '(');
        else if (c == '[')
            push(sc, '[');
        else if (c == '{') {
            push(sc, '{');
            sc->header = 0;
        } else if (c == ')' || c == ']' || c == '}')
            closed_red = pop(sc) == 'r';
        after_red = 0;
        last = c;
    }
    /* An operator or ',' at the end (`->`, `..` end in one too). */
    sc->cont = (last && strchr("+-*/%=<>!&|,.;:@", last) != NULL) ||
               closed_red;
}

int repl_scan_done(const ReplScan *sc)
{
    return sc->depth <= 0 && !sc->header && !sc->cont;
}

int repl_scan_breaks(const ReplScan *sc, const char *line)
{
    static const char *const starts[] = {
        "let", "print", "assert", "time", "target", "kernel", "schedule",
        "extern", "import",
    };
    char inner = 0;
    size_t n = 0;

    if (sc->tokens == 0 || repl_scan_done(sc))
        return 0;
    if (sc->depth > 0 && sc->depth <= REPL_MAX_OPEN)
        inner = sc->open[sc->depth - 1];
    if (inner == '{')
        return 0;           /* a kernel or schedule body */
    while (*line == ' ' || *line == '\t')
        line++;
    if (line[0] == ':')
        return inner != '[' && is_word_char(line[1]);
    while (is_word_char(line[n]))
        n++;
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (strlen(starts[i]) == n && memcmp(starts[i], line, n) == 0)
            return 1;
    return 0;
}
