/*
 * parser_int.h - what the files of the parser module share: the token
 * value, the lexer's state (lexer.re), the driver's context that the
 * grammar actions see (parse.c, grammar.y), and the Lemon engine's
 * entry points.
 *
 * Token kinds are the TK_ codes that Lemon writes into grammar.h; the
 * trivia kinds (TK_COMMENT, TK_ILLEGAL, and every TK_NEWLINE before the
 * driver has judged it) are declared in the grammar too but never fed
 * to the engine unjudged.
 */
#ifndef TL_PARSER_INT_H
#define TL_PARSER_INT_H

#include "parser/parser.h"

#include "grammar.h"

/* The most brackets ( [ that may be open at once; more is TOO_DEEP. */
enum { PRS_MAX_BRACKETS = 256 };
/* The deepest expression tree the parser hands on (the printer and the
 * checker recurse over it); more is TOO_DEEP. */
enum { PRS_MAX_EXPR_DEPTH = 1000 };
/* How many states of the parse stack the driver notes before each
 * token (see prs_engine_mark). */
enum { PRS_MARK = 16 };
/* Larger sources are refused with INPUT_TOO_LARGE. */
#define PRS_MAX_SOURCE ((size_t)16 * 1024 * 1024)

/* A token: its kind, where its text is, and for numbers the value the
 * lexer computed (0 after a reported error). */
typedef struct PrsTok {
    int kind;
    const char *text;     /* into the source text; len bytes */
    int len;
    TlLoc loc;
    union {
        int64_t i;        /* TK_INT, TK_FACTOR (the count) */
        double f;         /* TK_FLOAT */
    } v;
} PrsTok;

/* ====================================================================
 * lexer.re
 * ==================================================================== */

typedef struct PrsLexer {
    TlSession *s;
    int file;
    const unsigned char *base;   /* source text, NUL at lim */
    const unsigned char *cur, *lim, *mar, *tok;
    int tok_col;                 /* column of tok */
    int line;                    /* line of cur */
    const unsigned char *col_at; /* a point of this line whose column */
    int col;                     /*   is col (moves forward only) */
    int nerrors;                 /* lexical errors reported so far */
    int *lines;                  /* lines[k]: offset where line k+1 */
    int nlines, lines_cap;       /*   starts (heap, lex_free) */
} PrsLexer;

/* Starts lexing source `file` of the session. */
TL_INTERNAL void lex_init(PrsLexer *lx, TlSession *s, int file);
/* Frees the line table. */
TL_INTERNAL void lex_free(PrsLexer *lx);
/* Scans the next token into *t and returns its kind: a TK_ code, or 0
 * at the end of input.  Problems (bad characters, bad numbers, bad
 * strings) are reported here; a character that makes no token comes
 * back as TK_ILLEGAL, after its diagnostic. */
TL_INTERNAL int lex_next(PrsLexer *lx, PrsTok *t);
/* The line (1-based) of byte offset `off`, which must have been
 * scanned already. */
TL_INTERNAL int lex_line_of(const PrsLexer *lx, int off);
/* Whether line `line` (already scanned) holds only blanks. */
TL_INTERNAL int lex_line_blank(const PrsLexer *lx, int line);

/* ====================================================================
 * parse.c: the driver's context (Lemon's %extra_context)
 * ==================================================================== */

typedef struct PrsCtx {
    TlSession *s;
    TlProgram *prog;
    PrsLexer lx;
    void *engine;              /* the Lemon parser (heap) */
    int lex_error_in_stmt;     /* a lexical error since the last
                                * statement end: syntax errors there
                                * are follow-ons, not reported */
    int reset_brackets;        /* set by a syntax error */
    int nsyntax;               /* syntax errors reported */
    TlLoc here;                /* the token being fed */
    int braces;                /* { open (for hints) */
    /* The top of the engine's stack before the token being fed, for
     * the "expected ..." of a syntax error. */
    int mark[PRS_MARK];
    int mark_n, mark_top;
    /* Scratch stack of the expression depth check (heap). */
    struct PrsDepth {
        const TlExpr *e;
        int depth;
    } *dstack;
    int dcap;
} PrsCtx;

/* Reports the parser stack overflowing (nesting too deep); fatal. */
TL_INTERNAL TL_NORETURN void prs_too_deep(PrsCtx *c, TlLoc loc);
/* The location of the token being fed to the engine (for errors found
 * without a token at hand). */
TL_INTERNAL TlLoc prs_here(const PrsCtx *c);

/* ====================================================================
 * grammar.y: the engine (Lemon generates these; %name prs_engine)
 * ==================================================================== */

TL_INTERNAL void *prs_engineAlloc(void *(*alloc)(size_t), PrsCtx *c);
TL_INTERNAL void prs_engine(void *engine, int kind, PrsTok tok);
TL_INTERNAL void prs_engineFree(void *engine, void (*release)(void *));
/* Notes the top of the engine's stack before a token is fed, so that a
 * syntax error can tell what was expected before the engine's default
 * reductions narrowed it (grammar.y). */
TL_INTERNAL void prs_engine_mark(void *engine, PrsCtx *c);

/* ====================================================================
 * load.c
 * ==================================================================== */

/* The session's import hook (TlLoadFn); see prs_install_loader. */
TL_INTERNAL TlProgram *prs_load_module(TlSession *s, const char *path,
                                       TlLoc loc);

#endif
