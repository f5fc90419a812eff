/*
 * parse.c - the parse driver (push parsing, STYLE rule 18): a loop that
 * takes tokens from the lexer, keeps comments for the printer, decides
 * which newlines end statements, and feeds the rest to the Lemon engine
 * (grammar.y), ending with the end-of-input token.
 *
 * A newline is passed on only where docs/frontend-decisions.md says it
 * ends a statement: no ( or [ is open, the token before it can end a
 * statement, the token after it does not continue one (`.` of a
 * directive chain, `->` of a kernel header, `{`, `}`), and the token
 * before it is not the `)` of a sum/prod/argmax/argmin header, whose
 * body may start on the next line.  Runs of newlines count once.
 *
 * Guards: sources over PRS_MAX_SOURCE bytes are refused, and more than
 * PRS_MAX_BRACKETS open brackets stop the parse with a fatal TOO_DEEP
 * (through the session boundary that prs_parse sets).  Nothing here
 * recurses, whatever the input.
 */
#include "parser/parser_int.h"

#include <stdlib.h>
#include <string.h>

/* What an open bracket is, for the newline rules. */
enum {
    OPEN_PAREN,     /* ( */
    OPEN_HEADER,    /* ( right after sum, prod, argmax or argmin */
    OPEN_BRACKET    /* [ */
};

/* The driver: the grammar's context plus the newline bookkeeping. */
typedef struct Driver {
    PrsCtx c;
    unsigned char open[PRS_MAX_BRACKETS];
    int depth;               /* brackets open */
    int prev;                /* kind of the last token fed, 0 if none */
    int prev_ends_header;    /* it was the ) of a reduction header */
    int nl_pending;          /* newlines seen since then */
    PrsTok nl;               /* the first of them */
} Driver;

TlLoc prs_here(const PrsCtx *c)
{
    return c->here;
}

void prs_too_deep(PrsCtx *c, TlLoc loc)
{
    diag_fatal(c->s, loc, DIAG_TOO_DEEP, (int)PRS_MAX_BRACKETS);
}

/* ====================================================================
 * Newlines
 * ==================================================================== */

/* Tokens after which a statement may end. */
static int can_end(int k)
{
    switch (k) {
    case TK_IDENT: case TK_INT: case TK_FLOAT: case TK_STRING:
    case TK_RPAREN: case TK_RBRACKET: case TK_RBRACE: case TK_DTYPE:
    case TK_TRUE: case TK_FALSE:
        return 1;
    }
    return 0;
}

/* Tokens that continue the statement of the line before. */
static int continues(int k)
{
    return k == TK_DOT || k == TK_ARROW || k == TK_LBRACE ||
           k == TK_RBRACE;
}

/* Whether the newlines before token kind `next` end a statement. */
static int newline_counts(const Driver *d, int next)
{
    return d->depth == 0 && can_end(d->prev) && !d->prev_ends_header &&
           !continues(next);
}

/* ====================================================================
 * Feeding the engine
 * ==================================================================== */

static void feed(Driver *d, int kind, const PrsTok *t)
{
    PrsCtx *c = &d->c;

    c->here = t->loc;
    prs_engine_mark(c->engine, c);
    prs_engine(c->engine, kind, *t);
    if (kind == TK_NEWLINE)
        c->lex_error_in_stmt = 0;
    if (c->reset_brackets) {
        /* Recovery resumes at a statement boundary: nothing is open
         * there, whatever the broken statement left open. */
        c->reset_brackets = 0;
        d->depth = 0;
        d->prev_ends_header = 0;
    }
}

static int header_keyword(int k)
{
    return k == TK_SUM || k == TK_PROD || k == TK_ARGMAX ||
           k == TK_ARGMIN;
}

/* Tracks brackets before token t is fed. */
static void track(Driver *d, int k, const PrsTok *t)
{
    int closes_header = 0;

    if (k == TK_LPAREN || k == TK_LBRACKET) {
        if (d->depth == PRS_MAX_BRACKETS)
            diag_fatal(d->c.s, t->loc, DIAG_TOO_DEEP,
                       (int)PRS_MAX_BRACKETS);
        d->open[d->depth++] = k == TK_LBRACKET     ? OPEN_BRACKET
                              : header_keyword(d->prev) ? OPEN_HEADER
                                                       : OPEN_PAREN;
    } else if ((k == TK_RPAREN || k == TK_RBRACKET) && d->depth > 0) {
        d->depth--;
        closes_header = k == TK_RPAREN && d->open[d->depth] == OPEN_HEADER;
    }
    if (k == TK_LBRACE)
        d->c.braces++;
    else if (k == TK_RBRACE && d->c.braces > 0)
        d->c.braces--;
    d->prev = k;
    d->prev_ends_header = closes_header;
}

static void add_comment(Driver *d, const PrsTok *t)
{
    TlSession *s = d->c.s;
    int n = t->len;

    while (n > 0 && t->text[n - 1] == '\r')
        n--;
    ast_push_comment(s, &d->c.prog->comments, t->loc,
                     arena_strndup(&s->arena, t->text, (size_t)n));
}

/* The token loop. */
static void run(Driver *d)
{
    PrsCtx *c = &d->c;
    PrsTok t;

    for (;;) {
        int before = c->lx.nerrors;
        int k = lex_next(&c->lx, &t);

        if (k == TK_NEWLINE) {
            if (!d->nl_pending)
                d->nl = t;
            d->nl_pending = 1;
            continue;
        }
        if (k == TK_COMMENT) {
            add_comment(d, &t);
            continue;
        }
        /* A token with a lexical error: what the parser says about its
         * statement would only repeat it. */
        if (c->lx.nerrors != before)
            c->lex_error_in_stmt = 1;
        if (k == TK_ILLEGAL)
            continue;
        if (newline_counts(d, k) && (d->nl_pending || k == 0))
            feed(d, TK_NEWLINE, d->nl_pending ? &d->nl : &t);
        d->nl_pending = 0;
        if (k == 0) {
            feed(d, 0, &t);
            return;
        }
        track(d, k, &t);
        feed(d, k, &t);
    }
}

/* ====================================================================
 * Interface
 * ==================================================================== */

TlProgram *prs_parse(TlSession *s, int file)
{
    TlProgram *prog = ast_program(s, file);
    int errors = s->nerrors;
    jmp_buf boundary;
    jmp_buf *outer = s->fatal;
    Driver *d;

    TL_ASSERT(file >= 0 && file < s->nsrc);
    if (s->src[file].len > PRS_MAX_SOURCE) {
        TlLoc loc = {file, 1, 1, 0, 0};
        diag_error(s, loc, DIAG_INPUT_TOO_LARGE, s->src[file].len,
                   PRS_MAX_SOURCE);
        prog->nerrors = s->nerrors - errors;
        return prog;
    }
    /* Everything the parse owns outside the arena hangs off d, which
     * is made before the boundary and freed after it on both paths. */
    d = tl_xcalloc(1, sizeof *d);
    d->c.s = s;
    d->c.prog = prog;
    lex_init(&d->c.lx, s, file);
    d->c.engine = prs_engineAlloc(tl_xmalloc, &d->c);
    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        run(d);
    s->fatal = outer;
    prs_engineFree(d->c.engine, free);
    lex_free(&d->c.lx);
    free(d->c.dstack);
    free(d);
    prog->nerrors = s->nerrors - errors;
    return prog;
}

TlProgram *tl_parse_file(TlSession *s, const char *path)
{
    int id = tl_add_file(s, path);

    return id < 0 ? NULL : prs_parse(s, id);
}

TlProgram *tl_parse_string(TlSession *s, const char *name,
                           const char *text, size_t len)
{
    return prs_parse(s, tl_add_source(s, name, text, len));
}
