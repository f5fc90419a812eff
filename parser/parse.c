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
 * A `<` after a name becomes TARGS, the opening of explicit dtype
 * arguments (`cast_to<f16>(x)`, SPEC 6.7), when the tokens after it are
 * dtype names or dtype variables of the kernel being defined, separated
 * by commas, then `>` and `(`.  The driver looks ahead for that (the
 * tokens it reads go to a small queue) and remembers the dtype
 * variables of a kernel header from `kernel NAME<` to the `}` that
 * closes its body.
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

/* The longest lookahead for dtype arguments, in tokens. */
enum { LOOKAHEAD = 64 };

/* A token read ahead, and whether lexing it reported an error. */
typedef struct Ahead {
    PrsTok t;
    int lexerr;
} Ahead;

/* The driver: the grammar's context plus the newline bookkeeping. */
typedef struct Driver {
    PrsCtx c;
    unsigned char open[PRS_MAX_BRACKETS];
    int depth;               /* brackets open */
    int prev;                /* kind of the last token fed, 0 if none */
    int prev2;               /* the one before it */
    int prev_ends_header;    /* it was the ) of a reduction header */
    int nl_pending;          /* newlines seen since then */
    PrsTok nl;               /* the first of them */
    Ahead ahead[LOOKAHEAD];  /* tokens read ahead, in order */
    int nahead;
    int header;              /* `kernel NAME <...>`: 1 after `kernel`,
                              * 2 after its name, 3 inside the `<>` */
    PrsTok *tvars;           /* dtype variables of the kernel (heap) */
    int ntvars, tvcap;
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

/* ====================================================================
 * Explicit dtype arguments
 * ==================================================================== */

/* The next token: one read ahead, else a new one from the lexer. */
static int next_token(Driver *d, PrsTok *t, int *lexerr)
{
    PrsCtx *c = &d->c;
    int before = c->lx.nerrors;

    if (d->nahead > 0) {
        *t = d->ahead[0].t;
        *lexerr = d->ahead[0].lexerr;
        d->nahead--;
        memmove(d->ahead, d->ahead + 1, (size_t)d->nahead * sizeof *d->ahead);
        return t->kind;
    }
    lex_next(&c->lx, t);
    *lexerr = c->lx.nerrors != before;
    return t->kind;
}

/* The i-th token after the current one (0 is the next). */
static const PrsTok *peek(Driver *d, int i)
{
    while (d->nahead <= i) {
        Ahead *a = &d->ahead[d->nahead];
        int before = d->c.lx.nerrors;
        lex_next(&d->c.lx, &a->t);
        a->lexerr = d->c.lx.nerrors != before;
        d->nahead++;
        if (a->t.kind == 0)
            break;
    }
    return &d->ahead[i < d->nahead ? i : d->nahead - 1].t;
}

static int is_tvar(const Driver *d, const PrsTok *t)
{
    for (int i = 0; i < d->ntvars; i++)
        if (d->tvars[i].len == t->len &&
            !memcmp(d->tvars[i].text, t->text, (size_t)t->len))
            return 1;
    return 0;
}

/* Is the `<` being fed the opening of dtype arguments?  It follows a
 * name (not a kernel's own name), and after it come types separated
 * by commas, then `>` and `(`. */
static int opens_targs(Driver *d)
{
    if (d->prev != TK_IDENT || d->prev2 == TK_KERNEL)
        return 0;
    for (int i = 0; i + 2 < LOOKAHEAD; i += 2) {
        const PrsTok *t = peek(d, i), *sep;
        if (t->kind != TK_DTYPE && !(t->kind == TK_IDENT && is_tvar(d, t)))
            return 0;
        sep = peek(d, i + 1);
        if (sep->kind == TK_GT)
            return peek(d, i + 2)->kind == TK_LPAREN;
        if (sep->kind != TK_COMMA)
            return 0;
    }
    return 0;
}

/* Follows a kernel header's `<T: ..., U: ...>` for the names of its
 * dtype variables (before t, of kind k, is fed). */
static void note_header(Driver *d, int k, const PrsTok *t)
{
    if (k == TK_KERNEL) {
        d->ntvars = 0;
        d->header = 1;
        return;
    }
    switch (d->header) {
    case 1:
        d->header = k == TK_IDENT ? 2 : 0;
        break;
    case 2:
        d->header = k == TK_LT ? 3 : 0;
        break;
    case 3:
        if (k == TK_IDENT && (d->prev == TK_LT || d->prev == TK_COMMA)) {
            if (d->ntvars == d->tvcap) {
                d->tvcap = d->tvcap ? 2 * d->tvcap : 8;
                d->tvars = tl_xrealloc(d->tvars, (size_t)d->tvcap *
                                                     sizeof *d->tvars);
            }
            d->tvars[d->ntvars++] = *t;
        } else if (k != TK_IDENT && k != TK_DTYPE && k != TK_COMMA &&
                   k != TK_COLON && k != TK_PIPE) {
            d->header = 0;
        }
        break;
    default:
        break;
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
    else if (k == TK_RBRACE && d->c.braces > 0 && --d->c.braces == 0)
        d->ntvars = 0;      /* a kernel's dtype variables end with it */
    d->prev2 = d->prev;
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
        int lexerr;
        int k = next_token(d, &t, &lexerr);

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
        if (lexerr)
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
        if (k == TK_LT && opens_targs(d))
            k = t.kind = TK_TARGS;
        note_header(d, k, &t);
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
    free(d->tvars);
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
