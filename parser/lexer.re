/*
 * lexer.re - the tdsl lexer (re2c): source bytes to tokens.
 *
 * Each lexing task is its own function with its own re2c block: the
 * token scan, the body of a string, the body of a comment.  The lexer
 * knows nothing of the grammar; it returns TK_ codes with their offset,
 * length, line and column, and the parse driver (parse.c) decides which
 * newlines matter.  Bad input is reported here, at the offending byte,
 * and lexing goes on after it: invalid UTF-8, NUL bytes, non-ASCII
 * identifiers, numbers out of range, bad escapes, unterminated strings.
 *
 * Columns count display characters as diag.c draws them: a valid UTF-8
 * sequence is one column, and so is each byte that is not part of one.
 */
#include "parser/parser_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "lx->cur";
    re2c:define:YYMARKER = "lx->mar";
    re2c:define:YYLIMIT = "lx->lim";
    re2c:yyfill:enable = 0;
    re2c:eof = 0;

    cont   = [\x80-\xbf];
    utf8mb = [\xc2-\xdf] cont
           | "\xe0" [\xa0-\xbf] cont
           | [\xe1-\xec\xee\xef] cont cont
           | "\xed" [\x80-\x9f] cont
           | "\xf0" [\x90-\xbf] cont cont
           | [\xf1-\xf3] cont cont cont
           | "\xf4" [\x80-\x8f] cont cont;
    digit  = [0-9];
    hexd   = [0-9a-fA-F];
    letter = [A-Za-z_];
    idc    = [A-Za-z0-9_];
*/

/* ====================================================================
 * Positions
 * ==================================================================== */

/* Length of the character at p as the lexer splits text: a valid UTF-8
 * sequence, or one byte.  Matches the utf8mb definition above. */
static int char_len(const unsigned char *p, const unsigned char *lim)
{
    int n;
    unsigned lo = 0x80, hi = 0xbf;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4;
    else
        return 1;
    /* Overlong forms, surrogates and values past U+10FFFF narrow the
     * range of the second byte. */
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (lim - p < n || p[1] < lo || p[1] > hi)
        return 1;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 1;
    return n;
}

/* Column of p, a point on the current line at or after lx->col_at.
 * Moves forward only, so a whole file costs one pass. */
static int column(PrsLexer *lx, const unsigned char *p)
{
    while (lx->col_at < p) {
        lx->col_at += char_len(lx->col_at, lx->lim);
        lx->col++;
    }
    return lx->col;
}

/* Location of n bytes at p, on the current line at or after the start
 * of the current token. */
static TlLoc loc_at(PrsLexer *lx, const unsigned char *p, size_t len)
{
    TlLoc l;

    l.file = lx->file;
    l.line = lx->line;
    if (p >= lx->col_at) {
        l.col = column(lx, p);
    } else {
        /* Behind the scan (the start of a string after errors inside
         * it): count on from the token's start. */
        const unsigned char *q = lx->tok;
        l.col = lx->tok_col;
        while (q < p) {
            q += char_len(q, lx->lim);
            l.col++;
        }
    }
    l.off = (int)(p - lx->base);
    l.len = (int)len;
    return l;
}

/* Records that a new line starts at p (just after a '\n'). */
static void new_line(PrsLexer *lx, const unsigned char *p)
{
    if (lx->nlines == lx->lines_cap) {
        lx->lines_cap *= 2;
        lx->lines = tl_xrealloc(lx->lines,
                                (size_t)lx->lines_cap * sizeof *lx->lines);
    }
    lx->lines[lx->nlines++] = (int)(p - lx->base);
    lx->line++;
    lx->col_at = p;
    lx->col = 1;
}

/* ====================================================================
 * Reporting
 * ==================================================================== */

/* Text of n source bytes for a message, cut to a readable length. */
static const char *quote(PrsLexer *lx, const unsigned char *p, size_t n)
{
    enum { MAX = 40 };

    if (n > MAX) {
        size_t k = MAX;
        while (k > 0 && (p[k] & 0xc0) == 0x80)
            k--;
        return arena_printf(&lx->s->arena, "%.*s...", (int)k,
                            (const char *)p);
    }
    return arena_strndup(&lx->s->arena, (const char *)p, n);
}

static void error_str(PrsLexer *lx, const unsigned char *p, size_t n,
                      TlDiagId id, const char *arg)
{
    lx->nerrors++;
    diag_error(lx->s, loc_at(lx, p, n), id, arg);
}

/* Each of these reports a problem at p and returns `ret`, so that a
 * rule's action stays one statement. */
static int nul_byte(PrsLexer *lx, const unsigned char *p, int ret)
{
    lx->nerrors++;
    diag_error(lx->s, loc_at(lx, p, 1), DIAG_NUL_BYTE);
    return ret;
}

static int bad_byte(PrsLexer *lx, const unsigned char *p, int ret)
{
    lx->nerrors++;
    diag_error(lx->s, loc_at(lx, p, 1), DIAG_INVALID_UTF8, (unsigned)*p);
    return ret;
}

/* "unexpected character" for the token [tok, cur), shown printably. */
static int unexpected(PrsLexer *lx)
{
    const unsigned char *p = lx->tok;
    size_t n = (size_t)(lx->cur - lx->tok);
    char hex[8];

    if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
        snprintf(hex, sizeof hex, "\\x%02x", *p);
        error_str(lx, p, 1, DIAG_UNEXPECTED_CHAR, hex);
    } else {
        error_str(lx, p, n, DIAG_UNEXPECTED_CHAR, quote(lx, p, n));
        if (*p == '\'')
            diag_hint(lx->s, "strings are written in double quotes");
    }
    return TK_ILLEGAL;
}

/* ====================================================================
 * Numbers
 * ==================================================================== */

/* Value of the digits [p, e) in base 10 or 16; *ok = 0 past i64. */
static int64_t digits_value(const unsigned char *p, const unsigned char *e,
                            int base, int *ok)
{
    uint64_t v = 0;

    *ok = 1;
    for (; p < e; p++) {
        unsigned d = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
        if (v > ((uint64_t)INT64_MAX - d) / (uint64_t)base) {
            *ok = 0;
            return 0;
        }
        v = v * (uint64_t)base + d;
    }
    return (int64_t)v;
}

static int int_token(PrsLexer *lx, PrsTok *t, int base)
{
    const unsigned char *p = lx->tok + (base == 16 ? 2 : 0);
    int ok;

    t->v.i = digits_value(p, lx->cur, base, &ok);
    if (!ok)
        error_str(lx, lx->tok, (size_t)(lx->cur - lx->tok),
                  DIAG_INT_TOO_LARGE,
                  quote(lx, lx->tok, (size_t)(lx->cur - lx->tok)));
    return TK_INT;
}

/* A layout factor `2_L2B`: the count is the value, the level follows
 * the '_' in the text. */
static int factor_token(PrsLexer *lx, PrsTok *t)
{
    const unsigned char *us = memchr(lx->tok, '_',
                                     (size_t)(lx->cur - lx->tok));
    int ok;

    t->v.i = digits_value(lx->tok, us, 10, &ok);
    if (!ok)
        error_str(lx, lx->tok, (size_t)(us - lx->tok), DIAG_INT_TOO_LARGE,
                  quote(lx, lx->tok, (size_t)(us - lx->tok)));
    return TK_FACTOR;
}

static int float_token(PrsLexer *lx, PrsTok *t)
{
    size_t n = (size_t)(lx->cur - lx->tok);
    char small[64], *buf = n < sizeof small ? small : tl_xmalloc(n + 1);

    memcpy(buf, lx->tok, n);
    buf[n] = 0;
    t->v.f = strtod(buf, NULL);
    /* Freed before reporting, which may longjmp (the error cap). */
    if (buf != small)
        free(buf);
    if (isinf(t->v.f)) {
        t->v.f = 0;
        error_str(lx, lx->tok, n, DIAG_FLOAT_OUT_OF_RANGE,
                  quote(lx, lx->tok, n));
    }
    return TK_FLOAT;
}

static int bad_number(PrsLexer *lx, PrsTok *t)
{
    size_t n = (size_t)(lx->cur - lx->tok);

    t->v.i = 0;
    error_str(lx, lx->tok, n, DIAG_BAD_NUMBER, quote(lx, lx->tok, n));
    return TK_INT;
}

static int non_ascii_ident(PrsLexer *lx)
{
    size_t n = (size_t)(lx->cur - lx->tok);

    error_str(lx, lx->tok, n, DIAG_NON_ASCII_IDENT, quote(lx, lx->tok, n));
    return TK_IDENT;
}

/* ====================================================================
 * Strings and comments
 * ==================================================================== */

/* What a piece of a string or comment body was. */
enum { MORE, DONE };

/* An unknown escape [p, cur) in a string. */
static int bad_escape(PrsLexer *lx, const unsigned char *p)
{
    error_str(lx, p, (size_t)(lx->cur - p), DIAG_BAD_ESCAPE,
              quote(lx, p + 1, (size_t)(lx->cur - p - 1)));
    return MORE;
}

/* The string that started at tok ends, unclosed, at `end` (the end of
 * its line, which is left for the token scan). */
static int unterminated(PrsLexer *lx, const unsigned char *end)
{
    lx->cur = end;
    lx->nerrors++;
    diag_error(lx->s, loc_at(lx, lx->tok, (size_t)(end - lx->tok)),
               DIAG_UNTERMINATED_STRING);
    return DONE;
}

/* One piece of a string body: a run of plain characters, an escape, a
 * bad byte, or the end. */
static int string_piece(PrsLexer *lx)
{
    const unsigned char *p = lx->cur;
    /*!re2c
        "\""                        { return DONE; }
        "\\" [\\"nt]                { return MORE; }
        "\\" ([\x20-\x7e] | utf8mb) { return bad_escape(lx, p); }
        "\n"                        { return unterminated(lx, p); }
        $                           { return unterminated(lx, lx->cur); }
        [^"\\\n\x00\x80-\xff]+      { return MORE; }
        utf8mb                      { return MORE; }
        "\x00"                      { return nul_byte(lx, p, MORE); }
        "\\"                        { return MORE; }
        *                           { return bad_byte(lx, p, MORE); }
    */
}

/* A string, after its opening quote (at lx->tok).  The escapes are
 * checked here and decoded by the grammar.  An unclosed string ends
 * before the newline, so the line structure survives. */
static int scan_string(PrsLexer *lx)
{
    while (string_piece(lx) == MORE)
        continue;
    return TK_STRING;
}

/* Ends a comment before its newline, which is a token of its own. */
static int stop_at(PrsLexer *lx, const unsigned char *newline)
{
    lx->cur = newline;
    return DONE;
}

/* One piece of a comment body. */
static int comment_piece(PrsLexer *lx)
{
    const unsigned char *p = lx->cur;
    /*!re2c
        "\n"                        { return stop_at(lx, p); }
        $                           { return DONE; }
        [^\n\x00\x80-\xff]+         { return MORE; }
        utf8mb                      { return MORE; }
        "\x00"                      { return nul_byte(lx, p, MORE); }
        *                           { return bad_byte(lx, p, MORE); }
    */
}

/* A comment, after its '#', up to the end of the line. */
static int scan_comment(PrsLexer *lx)
{
    while (comment_piece(lx) == MORE)
        continue;
    return TK_COMMENT;
}

/* ====================================================================
 * Tokens
 * ==================================================================== */

/* Scans one token (skipping blanks) starting at lx->cur; lx->tok is
 * left at its first byte. */
static int scan_token(PrsLexer *lx, PrsTok *t)
{
    for (;;) {
        lx->tok = lx->cur;
        lx->tok_col = column(lx, lx->tok);
    /*!re2c
        dec      = digit+;
        hex      = "0" [xX] hexd+;
        factor   = digit+ "_" [A-Za-z] [A-Za-z0-9]*;
        expo     = [eE] [+-]? digit+;
        float    = digit+ "." digit+ expo? | digit+ expo;
        badnum   = digit idc* | digit+ "." digit+ idc+;
        nonascii = letter idc* (utf8mb idc*)+ | utf8mb+ letter (idc | utf8mb)*;
        dtype    = "f32" | "f64" | "f16" | "bf16" | "i8" | "i16" | "i32"
                 | "i64" | "u8" | "u16" | "u32" | "u64" | "bool" | "str";

        $                { return 0; }
        [ \t\r\f\v]+     { continue; }
        "\n"             { return TK_NEWLINE; }
        "#"              { return scan_comment(lx); }
        "\""             { return scan_string(lx); }

        "kernel"         { return TK_KERNEL; }
        "schedule"       { return TK_SCHEDULE; }
        "extern"         { return TK_EXTERN; }
        "fn"             { return TK_FN; }
        "import"         { return TK_IMPORT; }
        "let"            { return TK_LET; }
        "print"          { return TK_PRINT; }
        "assert"         { return TK_ASSERT; }
        "time"           { return TK_TIME; }
        "target"         { return TK_TARGET; }
        "layout"         { return TK_LAYOUT; }
        "on"             { return TK_ON; }
        "for"            { return TK_FOR; }
        "in"             { return TK_IN; }
        "as"             { return TK_AS; }
        "true"           { return TK_TRUE; }
        "false"          { return TK_FALSE; }
        "sum"            { return TK_SUM; }
        "prod"           { return TK_PROD; }
        "max"            { return TK_MAX; }
        "min"            { return TK_MIN; }
        "argmax"         { return TK_ARGMAX; }
        "argmin"         { return TK_ARGMIN; }
        dtype            { return TK_DTYPE; }
        letter idc*      { return TK_IDENT; }
        nonascii         { return non_ascii_ident(lx); }

        hex              { return int_token(lx, t, 16); }
        dec              { return int_token(lx, t, 10); }
        factor           { return factor_token(lx, t); }
        float            { return float_token(lx, t); }
        badnum           { return bad_number(lx, t); }

        "("              { return TK_LPAREN; }
        ")"              { return TK_RPAREN; }
        "["              { return TK_LBRACKET; }
        "]"              { return TK_RBRACKET; }
        "{"              { return TK_LBRACE; }
        "}"              { return TK_RBRACE; }
        ","              { return TK_COMMA; }
        ";"              { return TK_SEMI; }
        ":"              { return TK_COLON; }
        "."              { return TK_DOT; }
        ".."             { return TK_DOTDOT; }
        "->"             { return TK_ARROW; }
        "="              { return TK_ASSIGN; }
        "=="             { return TK_EQ; }
        "!="             { return TK_NE; }
        "<"              { return TK_LT; }
        "<="             { return TK_LE; }
        ">"              { return TK_GT; }
        ">="             { return TK_GE; }
        "+"              { return TK_PLUS; }
        "-"              { return TK_MINUS; }
        "*"              { return TK_STAR; }
        "/"              { return TK_SLASH; }
        "%"              { return TK_PERCENT; }
        "&&"             { return TK_AND; }
        "||"             { return TK_OR; }
        "!"              { return TK_NOT; }
        "@"              { return TK_AT; }
        "|"              { return TK_PIPE; }

        "\x00"           { return nul_byte(lx, lx->tok, TK_ILLEGAL); }
        utf8mb           { return unexpected(lx); }
        [\x80-\xff]      { return bad_byte(lx, lx->tok, TK_ILLEGAL); }
        *                { return unexpected(lx); }
    */
    }
}

/* ====================================================================
 * Interface
 * ==================================================================== */

void lex_init(PrsLexer *lx, TlSession *s, int file)
{
    TL_ASSERT(file >= 0 && file < s->nsrc);
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->file = file;
    lx->base = (const unsigned char *)s->src[file].text;
    lx->cur = lx->base;
    lx->lim = lx->base + s->src[file].len;
    lx->line = 1;
    lx->col_at = lx->base;
    lx->col = 1;
    lx->lines_cap = 64;
    lx->lines = tl_xmalloc((size_t)lx->lines_cap * sizeof *lx->lines);
    lx->lines[lx->nlines++] = 0;
}

void lex_free(PrsLexer *lx)
{
    free(lx->lines);
    lx->lines = NULL;
}

int lex_next(PrsLexer *lx, PrsTok *t)
{
    int kind;

    t->v.i = 0;
    kind = scan_token(lx, t);
    t->kind = kind;
    t->text = (const char *)lx->tok;
    t->len = (int)(lx->cur - lx->tok);
    t->loc = loc_at(lx, lx->tok, (size_t)t->len);
    if (kind == TK_NEWLINE)
        new_line(lx, lx->cur);
    return kind;
}

int lex_line_of(const PrsLexer *lx, int off)
{
    int lo = 0, hi = lx->nlines - 1;

    /* The last line start at or before off. */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (lx->lines[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo + 1;
}

int lex_line_blank(const PrsLexer *lx, int line)
{
    const unsigned char *p, *end;

    if (line < 1 || line > lx->nlines)
        return 0;
    p = lx->base + lx->lines[line - 1];
    end = line < lx->nlines ? lx->base + lx->lines[line] : lx->lim;
    for (; p < end; p++)
        if (!strchr(" \t\r\f\v\n", *p) || *p == 0)
            return 0;
    return 1;
}
