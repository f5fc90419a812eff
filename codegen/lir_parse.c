/*
 * lir_parse.c - reads the text form of the loop IR (grammar in
 * codegen.h) back into a tree, so that passes can be tested from text
 * and any bug report is a text file (STYLE.md rule 25).
 *
 * A hand-written lexer feeds a recursive-descent parser that builds
 * nodes with the lir.c constructors and resolves names through a
 * stack of scopes.  The first error stops the parse: the message goes
 * to the caller's buffer and a longjmp unwinds to lir_parse, which is
 * safe because every node lives in the session arena.
 */
#include "codegen/codegen_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than this is refused rather than risk the C stack. */
enum { MAX_DEPTH = 200 };

typedef enum {
    T_EOF, T_NAME, T_INT, T_FLOAT,
    T_LP, T_RP, T_LB, T_RB, T_LC, T_RC, T_COMMA, T_COLON, T_ASSIGN,
    T_DOTDOT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT, T_EQ, T_NE,
    T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT
} TokKind;

typedef struct Tok {
    TokKind kind;
    const char *p;      /* the token's text */
    size_t n;
    int line, col;
    int escaped;        /* T_NAME written with `$` (never a keyword) */
    uint64_t ival;      /* T_INT: the magnitude */
    double fval;        /* T_FLOAT */
    TlDType dt;         /* T_INT, T_FLOAT: the suffix, or DT_NONE */
} Tok;

typedef struct Scope {
    const char *name;
    LVar *var;
} Scope;

typedef struct P {
    TlSession *s;
    const char *name;
    const char *cur, *end;
    int line;
    const char *line_start;
    Tok t;
    TlBuf *err;
    jmp_buf fail;
    int depth;
    Scope *scope;       /* heap array, freed by lir_parse */
    int nscope, cap;
    LFunc *func;        /* the result */
} P;

static TL_NORETURN void error_at(P *p, const Tok *t, const char *fmt, ...)
    TL_PRINTF(3, 4);

static TL_NORETURN void error_at(P *p, const Tok *t, const char *fmt, ...)
{
    va_list ap;

    if (p->err) {
        buf_printf(p->err, "%s:%d:%d: ", p->name, t->line, t->col);
        va_start(ap, fmt);
        buf_vprintf(p->err, fmt, ap);
        va_end(ap);
        buf_putc(p->err, '\n');
    }
    longjmp(p->fail, 1);
}

/* ====================================================================
 * Lexer
 * ==================================================================== */

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int at(P *p, size_t k)
{
    return p->cur + k < p->end ? (unsigned char)p->cur[k] : 0;
}

static void skip_space(P *p)
{
    while (p->cur < p->end) {
        int c = at(p, 0);
        if (c == '\n') {
            p->line++;
            p->line_start = ++p->cur;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->cur++;
        } else if (c == '#') {
            while (p->cur < p->end && *p->cur != '\n')
                p->cur++;
        } else {
            break;
        }
    }
}

/* name ( '.' name )*, where a '.' must be followed by a letter (so
 * that `a..b` is a range). */
static void lex_name(P *p)
{
    for (;;) {
        while (is_alpha(at(p, 0)) || is_digit(at(p, 0)))
            p->cur++;
        if (at(p, 0) == '.' && is_alpha(at(p, 1)))
            p->cur++;
        else
            break;
    }
}

static void lex_suffix(P *p, Tok *t)
{
    const char *s;

    if (at(p, 0) != '_')
        return;
    s = ++p->cur;
    while (is_alpha(at(p, 0)) || is_digit(at(p, 0)))
        p->cur++;
    t->dt = dt_from_name(s, (size_t)(p->cur - s));
    if (t->dt == DT_NONE) {
        t->n = (size_t)(p->cur - t->p);
        error_at(p, t, "unknown dtype suffix in '%.*s'", (int)t->n, t->p);
    }
}

static void lex_number(P *p, Tok *t)
{
    int is_float = 0;
    const char *s = p->cur;

    while (is_digit(at(p, 0)))
        p->cur++;
    if (at(p, 0) == '.' && is_digit(at(p, 1))) {
        is_float = 1;
        p->cur++;
        while (is_digit(at(p, 0)))
            p->cur++;
    }
    if ((at(p, 0) == 'e' || at(p, 0) == 'E') &&
        (is_digit(at(p, 1)) ||
         ((at(p, 1) == '+' || at(p, 1) == '-') && is_digit(at(p, 2))))) {
        is_float = 1;
        p->cur += 2;
        while (is_digit(at(p, 0)))
            p->cur++;
    }
    t->n = (size_t)(p->cur - s);
    if (is_float) {
        char tmp[64];
        if (t->n >= sizeof tmp)
            error_at(p, t, "number '%.*s' is too long", (int)t->n, s);
        memcpy(tmp, s, t->n);
        tmp[t->n] = 0;
        t->kind = T_FLOAT;
        errno = 0;
        t->fval = strtod(tmp, NULL);
    } else {
        t->kind = T_INT;
        t->ival = 0;
        for (const char *q = s; q < p->cur; q++) {
            unsigned d = (unsigned)(*q - '0');
            if (t->ival > (UINT64_MAX - d) / 10)
                error_at(p, t, "integer literal '%.*s' is too large",
                         (int)t->n, s);
            t->ival = t->ival * 10 + d;
        }
    }
    lex_suffix(p, t);
    t->n = (size_t)(p->cur - s);
}

static void next(P *p)
{
    Tok *t = &p->t;
    int c, c1;

    skip_space(p);
    memset(t, 0, sizeof *t);
    t->p = p->cur;
    t->line = p->line;
    t->col = (int)(p->cur - p->line_start) + 1;
    if (p->cur >= p->end) {
        t->kind = T_EOF;
        return;
    }
    c = at(p, 0);
    c1 = at(p, 1);
    if (c == '$' && is_alpha(c1)) {
        p->cur++;
        t->p = p->cur;
        t->escaped = 1;
        c = c1;
    }
    if (is_alpha(c)) {
        lex_name(p);
        t->kind = T_NAME;
        t->n = (size_t)(p->cur - t->p);
        return;
    }
    if (is_digit(c)) {
        lex_number(p, t);
        return;
    }
    p->cur++;
    t->n = 1;
    switch (c) {
    case '(': t->kind = T_LP; return;
    case ')': t->kind = T_RP; return;
    case '[': t->kind = T_LB; return;
    case ']': t->kind = T_RB; return;
    case '{': t->kind = T_LC; return;
    case '}': t->kind = T_RC; return;
    case ',': t->kind = T_COMMA; return;
    case ':': t->kind = T_COLON; return;
    case '+': t->kind = T_PLUS; return;
    case '-': t->kind = T_MINUS; return;
    case '*': t->kind = T_STAR; return;
    case '/': t->kind = T_SLASH; return;
    case '%': t->kind = T_PCT; return;
    default: break;
    }
    t->n = 2;
    if (c == '.' && c1 == '.') { p->cur++; t->kind = T_DOTDOT; return; }
    if (c == '=' && c1 == '=') { p->cur++; t->kind = T_EQ; return; }
    if (c == '!' && c1 == '=') { p->cur++; t->kind = T_NE; return; }
    if (c == '<' && c1 == '=') { p->cur++; t->kind = T_LE; return; }
    if (c == '>' && c1 == '=') { p->cur++; t->kind = T_GE; return; }
    if (c == '&' && c1 == '&') { p->cur++; t->kind = T_AND; return; }
    if (c == '|' && c1 == '|') { p->cur++; t->kind = T_OR; return; }
    t->n = 1;
    if (c == '=') { t->kind = T_ASSIGN; return; }
    if (c == '<') { t->kind = T_LT; return; }
    if (c == '>') { t->kind = T_GT; return; }
    if (c == '!') { t->kind = T_NOT; return; }
    if (c > ' ' && c < 127)
        error_at(p, t, "unexpected character '%c'", c);
    error_at(p, t, "unexpected byte 0x%02x", (unsigned)c);
}

/* ====================================================================
 * Tokens for the parser
 * ==================================================================== */

static const char *const tok_text[] = {
    [T_LP] = "(", [T_RP] = ")", [T_LB] = "[", [T_RB] = "]",
    [T_LC] = "{", [T_RC] = "}", [T_COMMA] = ",", [T_COLON] = ":",
    [T_ASSIGN] = "=", [T_DOTDOT] = "..", [T_PLUS] = "+", [T_MINUS] = "-",
    [T_STAR] = "*", [T_SLASH] = "/", [T_PCT] = "%", [T_EQ] = "==",
    [T_NE] = "!=", [T_LT] = "<", [T_LE] = "<=", [T_GT] = ">",
    [T_GE] = ">=", [T_AND] = "&&", [T_OR] = "||", [T_NOT] = "!",
};

/* "found 'x'" or "found end of input", for messages. */
static const char *found(P *p)
{
    if (p->t.kind == T_EOF)
        return "end of input";
    return arena_printf(&p->s->arena, "'%.*s'", (int)p->t.n, p->t.p);
}

static TL_NORETURN void expected(P *p, const char *what)
{
    error_at(p, &p->t, "expected %s, found %s", what, found(p));
}

static void expect(P *p, TokKind k)
{
    if (p->t.kind != k)
        expected(p, arena_printf(&p->s->arena, "'%s'", tok_text[k]));
    next(p);
}

/* Is the current token the keyword kw (a name not written with $)? */
static int is_kw(P *p, const char *kw)
{
    return p->t.kind == T_NAME && !p->t.escaped &&
           strlen(kw) == p->t.n && !memcmp(p->t.p, kw, p->t.n);
}

static void expect_kw(P *p, const char *kw)
{
    if (!is_kw(p, kw))
        expected(p, arena_printf(&p->s->arena, "'%s'", kw));
    next(p);
}

/* A name being defined or referred to: not a keyword unless escaped. */
static const char *name(P *p, const char *what)
{
    const char *n;

    if (p->t.kind != T_NAME ||
        (!p->t.escaped && lir_is_keyword(p->t.p, p->t.n)))
        expected(p, what);
    n = arena_strndup(&p->s->arena, p->t.p, p->t.n);
    next(p);
    return n;
}

/* A positive int literal without suffix (lanes, widths). */
static int small_int(P *p, const char *what, int max)
{
    Tok t = p->t;

    if (t.kind != T_INT || t.dt != DT_NONE)
        expected(p, what);
    if (t.ival < 1 || t.ival > (uint64_t)max)
        error_at(p, &t, "%s must be between 1 and %d", what, max);
    next(p);
    return (int)t.ival;
}

static void enter(P *p)
{
    if (++p->depth > MAX_DEPTH)
        error_at(p, &p->t, "nested too deeply (more than %d levels)",
                 MAX_DEPTH);
}

/* ====================================================================
 * Scopes
 * ==================================================================== */

static void define(P *p, LVar *v)
{
    if (p->nscope == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        p->scope = tl_xrealloc(p->scope, (size_t)p->cap * sizeof *p->scope);
    }
    p->scope[p->nscope].name = v->name;
    p->scope[p->nscope].var = v;
    p->nscope++;
}

static LVar *lookup(P *p, const Tok *at_tok, const char *n)
{
    for (int i = p->nscope - 1; i >= 0; i--)
        if (!strcmp(p->scope[i].name, n))
            return p->scope[i].var;
    error_at(p, at_tok, "unknown name '%s'", n);
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static LExpr *expr(P *p);

/* expr { "," expr } up to the closing token; at least one. */
static int expr_list(P *p, TokKind close, LExpr ***out)
{
    TlVec v = {0};

    vec_push(&p->s->arena, &v, expr(p));
    while (p->t.kind == T_COMMA) {
        next(p);
        vec_push(&p->s->arena, &v, expr(p));
    }
    expect(p, close);
    *out = arena_alloc(&p->s->arena, (size_t)v.n * sizeof **out);
    for (int i = 0; i < v.n; i++)
        (*out)[i] = v.v[i];
    return v.n;
}

static LExpr *int_literal(P *p, int neg)
{
    Tok t = p->t;
    TlDType dt = t.dt == DT_NONE ? DT_I32 : t.dt;
    int64_t v;

    next(p);
    if (dt_is_float(dt))
        return lir_float(p->s, dt, neg ? -(double)t.ival : (double)t.ival);
    if (neg && t.ival > (uint64_t)INT64_MAX + 1)
        error_at(p, &t, "integer literal out of range for %s", dt_name(dt));
    if (!neg && t.ival > (uint64_t)INT64_MAX)
        error_at(p, &t, "integer literal out of range for %s", dt_name(dt));
    v = neg ? (int64_t)(0 - t.ival) : (int64_t)t.ival;
    if (!lir_int_fits(dt, v))
        error_at(p, &t, "integer literal out of range for %s", dt_name(dt));
    return lir_int(p->s, dt, v);
}

static LExpr *float_value(P *p, const Tok *t, TlDType dt, double v)
{
    if (!dt_is_float(dt))
        error_at(p, t, "a float literal needs a float dtype, not %s",
                 dt_name(dt));
    if (isfinite(v) && !isfinite(lir_round_float(dt, v)))
        error_at(p, t, "float literal out of range for %s", dt_name(dt));
    return lir_float(p->s, dt, v);
}

/* inf, nan, inf_f64, nan_f16: the dtype, or DT_NONE if t is not one. */
static TlDType special_float(const Tok *t, double *v)
{
    TlDType dt = DT_F32;

    if (t->kind != T_NAME || t->escaped || t->n < 3)
        return DT_NONE;
    if (memcmp(t->p, "inf", 3) && memcmp(t->p, "nan", 3))
        return DT_NONE;
    if (t->n > 3) {
        if (t->p[3] != '_')
            return DT_NONE;
        dt = dt_from_name(t->p + 4, t->n - 4);
        if (!dt_is_float(dt))
            return DT_NONE;
    }
    *v = t->p[0] == 'i' ? INFINITY : NAN;
    return dt;
}

static LExpr *literal(P *p, int neg)
{
    Tok t = p->t;
    double v;
    TlDType dt;

    if (t.kind == T_INT)
        return int_literal(p, neg);
    if (t.kind == T_FLOAT) {
        next(p);
        dt = t.dt == DT_NONE ? DT_F32 : t.dt;
        return float_value(p, &t, dt, neg ? -t.fval : t.fval);
    }
    dt = special_float(&t, &v);
    TL_ASSERT(dt != DT_NONE);
    next(p);
    return float_value(p, &t, dt, neg ? -v : v);
}

/* The arguments of a function-like form after its name: "(" ... ")";
 * exactly n of them. */
static LExpr **call_args(P *p, const Tok *at_tok, const char *fname,
                         int n)
{
    LExpr **args;
    int got;

    expect(p, T_LP);
    got = expr_list(p, T_RP, &args);
    if (got != n)
        error_at(p, at_tok, "'%s' takes %d argument%s, not %d", fname, n,
                 n == 1 ? "" : "s", got);
    return args;
}

/* ramp(base, stride, LANES) and broadcast(x, LANES). */
static LExpr *vector_form(P *p, int ramp)
{
    LExpr *a, *b = NULL;
    int lanes;

    next(p);
    expect(p, T_LP);
    a = expr(p);
    expect(p, T_COMMA);
    if (ramp) {
        b = expr(p);
        expect(p, T_COMMA);
    }
    lanes = small_int(p, "a lane count", LIR_MAX_LANES);
    expect(p, T_RP);
    return ramp ? lir_ramp(p->s, a, b, lanes)
                : lir_broadcast(p->s, a, lanes);
}

/* A keyword at the start of a primary expression, or NULL. */
static LExpr *keyword_primary(P *p)
{
    Tok t = p->t;
    double v;
    LExpr **args;
    TlDType dt;

    if (t.kind != T_NAME || t.escaped)
        return NULL;
    if (is_kw(p, "true") || is_kw(p, "false")) {
        next(p);
        return lir_bool(p->s, t.p[0] == 't');
    }
    if (special_float(&t, &v) != DT_NONE)
        return literal(p, 0);
    if (is_kw(p, "ramp") || is_kw(p, "broadcast"))
        return vector_form(p, t.p[0] == 'r');
    if (is_kw(p, "select")) {
        next(p);
        args = call_args(p, &t, "select", 3);
        return lir_select(p->s, args[0], args[1], args[2]);
    }
    if (is_kw(p, "min") || is_kw(p, "max")) {
        LOp op = t.p[1] == 'i' ? LO_MIN : LO_MAX;
        next(p);
        args = call_args(p, &t, lir_op_name(op), 2);
        return lir_binary(p->s, op, args[0], args[1]);
    }
    for (int fn = 0; fn < LC__COUNT; fn++) {
        const char *fname = lir_call_name((LCall)fn);
        if (is_kw(p, fname)) {
            next(p);
            args = call_args(p, &t, fname, lir_call_nargs((LCall)fn));
            return lir_call(p->s, (LCall)fn, args,
                            lir_call_nargs((LCall)fn));
        }
    }
    dt = dt_from_name(t.p, t.n);
    if (dt != DT_NONE) {
        next(p);
        args = call_args(p, &t, dt_name(dt), 1);
        return lir_cast(p->s, dt, args[0]);
    }
    return NULL;
}

static LExpr *primary(P *p)
{
    Tok t = p->t;
    LExpr *e;
    LVar *v;
    LExpr **idx;
    int n;
    const char *n_name;

    switch (t.kind) {
    case T_INT:
    case T_FLOAT:
        return literal(p, 0);
    case T_LP:
        next(p);
        e = expr(p);
        expect(p, T_RP);
        return e;
    case T_NAME:
        e = keyword_primary(p);
        if (e)
            return e;
        n_name = name(p, "an expression");
        v = lookup(p, &t, n_name);
        if (p->t.kind != T_LB)
            return lir_ref(p->s, v);
        next(p);
        n = expr_list(p, T_RB, &idx);
        return lir_load(p->s, v, idx, n);
    default:
        expected(p, "an expression");
    }
}

static LExpr *unary(P *p)
{
    LExpr *e;
    double v;

    enter(p);
    if (p->t.kind == T_MINUS) {
        next(p);
        /* A minus sign right before a number belongs to it. */
        if (p->t.kind == T_INT || p->t.kind == T_FLOAT ||
            special_float(&p->t, &v) != DT_NONE)
            e = literal(p, 1);
        else
            e = lir_unary(p->s, LO_NEG, unary(p));
    } else if (p->t.kind == T_NOT) {
        next(p);
        e = lir_unary(p->s, LO_NOT, unary(p));
    } else {
        e = primary(p);
    }
    p->depth--;
    return e;
}

/* The binary operator of the current token at precedence level prec,
 * or -1. */
static int binop(P *p, int prec)
{
    static const struct { TokKind tok; LOp op; } map[] = {
        {T_PLUS, LO_ADD}, {T_MINUS, LO_SUB}, {T_STAR, LO_MUL},
        {T_SLASH, LO_DIV}, {T_PCT, LO_MOD}, {T_EQ, LO_EQ}, {T_NE, LO_NE},
        {T_LT, LO_LT}, {T_LE, LO_LE}, {T_GT, LO_GT}, {T_GE, LO_GE},
        {T_AND, LO_AND}, {T_OR, LO_OR},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].tok == p->t.kind && lir_op_prec(map[i].op) == prec)
            return (int)map[i].op;
    return -1;
}

/* Operators of precedence prec (2 to 6) and tighter. */
static LExpr *binary(P *p, int prec)
{
    LExpr *e;
    int op;

    if (prec > 6)
        return unary(p);
    e = binary(p, prec + 1);
    while ((op = binop(p, prec)) >= 0) {
        next(p);
        e = lir_binary(p->s, (LOp)op, e, binary(p, prec + 1));
        if (prec == 4 && binop(p, prec) >= 0)
            error_at(p, &p->t, "comparisons do not chain; add parentheses");
    }
    return e;
}

static LExpr *expr(P *p)
{
    return binary(p, 2);
}

/* ====================================================================
 * Statements
 * ==================================================================== */

static LStmt *stmt(P *p);

static LStmt *block(P *p)
{
    int mark = p->nscope;
    TlVec items = {0};
    LStmt **v;

    expect(p, T_LC);
    while (p->t.kind != T_RC) {
        if (p->t.kind == T_EOF)
            expected(p, "'}'");
        vec_push(&p->s->arena, &items, stmt(p));
    }
    next(p);
    p->nscope = mark;
    v = arena_alloc(&p->s->arena, (size_t)items.n * sizeof *v);
    for (int i = 0; i < items.n; i++)
        v[i] = items.v[i];
    return lir_block(p->s, v, items.n);
}

static LStmt *for_stmt(P *p)
{
    LLoopKind kind = LP_SERIAL;
    int width = 0;
    const char *level = NULL, *vname;
    int mark = p->nscope;
    LExpr *lo, *hi;
    LVar *v;
    LStmt *b;

    if (is_kw(p, "parallel")) {
        kind = LP_PARALLEL;
        next(p);
        if (p->t.kind == T_LP) {
            next(p);
            width = small_int(p, "a chunk size", INT32_MAX);
            expect(p, T_RP);
        }
    } else if (is_kw(p, "rolled")) {
        width = LIR_ROLLED;
        next(p);
    } else if (is_kw(p, "unrolled")) {
        kind = LP_UNROLLED;
        next(p);
    } else if (is_kw(p, "vectorized")) {
        kind = LP_VECTORIZED;
        next(p);
        expect(p, T_LP);
        width = small_int(p, "a vector width", LIR_MAX_LANES);
        expect(p, T_RP);
    } else if (is_kw(p, "distributed")) {
        kind = LP_DISTRIBUTED;
        next(p);
        expect(p, T_LP);
        level = name(p, "a level name");
        expect(p, T_RP);
    }
    expect_kw(p, "for");
    vname = name(p, "a loop variable");
    expect_kw(p, "in");
    lo = expr(p);
    expect(p, T_DOTDOT);
    hi = expr(p);
    v = lir_var(p->s, vname, lo->type);
    define(p, v);
    b = block(p);
    p->nscope = mark;
    return lir_for(p->s, kind, width, level, v, lo, hi, b);
}

static LStmt *if_stmt(P *p)
{
    LExpr *c;
    LStmt *then, *orelse = NULL;

    expect_kw(p, "if");
    c = expr(p);
    then = block(p);
    if (is_kw(p, "else")) {
        next(p);
        orelse = is_kw(p, "if") ? if_stmt(p) : block(p);
    }
    return lir_if(p->s, c, then, orelse);
}

static LMemKind mem_kind(P *p)
{
    for (int m = 0; m < LM__COUNT; m++)
        if (is_kw(p, lir_mem_name((LMemKind)m))) {
            next(p);
            return (LMemKind)m;
        }
    expected(p, "'heap', 'stack' or 'register'");
}

static TlDType dtype(P *p)
{
    TlDType dt = DT_NONE;

    if (p->t.kind == T_NAME && !p->t.escaped)
        dt = dt_from_name(p->t.p, p->t.n);
    if (dt == DT_NONE)
        expected(p, "a dtype");
    next(p);
    return dt;
}

static LStmt *alloc_stmt(P *p)
{
    const char *bname;
    TlDType dt;
    LExpr **ext;
    LMemKind mem;
    LVar *v;
    int n;

    expect_kw(p, "alloc");
    bname = name(p, "a buffer name");
    expect(p, T_COLON);
    dt = dtype(p);
    expect(p, T_LB);
    n = expr_list(p, T_RB, &ext);
    expect_kw(p, "on");
    mem = mem_kind(p);
    v = lir_buffer(p->s, bname, dt);
    define(p, v);
    return lir_alloc(p->s, v, mem, ext, n);
}

static LStmt *stmt(P *p)
{
    LStmt *st;
    Tok t = p->t;

    enter(p);
    if (p->t.kind == T_LC) {
        st = block(p);
    } else if (is_kw(p, "for") || is_kw(p, "parallel") ||
               is_kw(p, "vectorized") || is_kw(p, "unrolled") ||
               is_kw(p, "rolled") || is_kw(p, "distributed")) {
        st = for_stmt(p);
    } else if (is_kw(p, "if")) {
        st = if_stmt(p);
    } else if (is_kw(p, "alloc")) {
        st = alloc_stmt(p);
    } else if (is_kw(p, "let")) {
        const char *vname;
        LExpr *value;
        next(p);
        vname = name(p, "a name");
        expect(p, T_ASSIGN);
        value = expr(p);
        st = lir_let(p->s, lir_var(p->s, vname, value->type), value);
        define(p, st->var);
    } else {
        const char *bname = name(p, "a statement");
        LVar *v = lookup(p, &t, bname);
        LExpr **idx;
        int n;
        expect(p, T_LB);
        n = expr_list(p, T_RB, &idx);
        expect(p, T_ASSIGN);
        st = lir_store(p->s, v, idx, n, expr(p));
    }
    p->depth--;
    return st;
}

/* ====================================================================
 * Functions
 * ==================================================================== */

/* DTYPE or DTYPE "x" LANES, as one name token. */
static LType scalar_type(P *p, TlDType *elem)
{
    Tok t = p->t;
    size_t k;

    *elem = DT_NONE;
    if (t.kind != T_NAME || t.escaped)
        expected(p, "a type");
    for (k = t.n; k > 0; k--) {
        TlDType dt = dt_from_name(t.p, k);
        char *end;
        long lanes;
        if (dt == DT_NONE)
            continue;
        if (k == t.n) {
            next(p);
            *elem = dt;
            return lir_type(dt, 1);
        }
        if (t.p[k] != 'x' || k + 1 == t.n || !is_digit(t.p[k + 1]))
            break;
        lanes = strtol(arena_strndup(&p->s->arena, t.p + k + 1,
                                     t.n - k - 1), &end, 10);
        if (*end || lanes < 1 || lanes > LIR_MAX_LANES)
            break;
        next(p);
        return lir_type(dt, (int)lanes);
    }
    expected(p, "a type");
}

static LParam param(P *p)
{
    LParam prm = {0};
    const char *pname = name(p, "a parameter name");
    TlDType elem;
    LType t;

    expect(p, T_COLON);
    t = scalar_type(p, &elem);
    if (elem != DT_NONE && p->t.kind == T_STAR) {
        next(p);
        prm.var = lir_buffer(p->s, pname, elem);
    } else if (elem != DT_NONE && p->t.kind == T_LB) {
        next(p);
        prm.ndims = expr_list(p, T_RB, &prm.dims);
        prm.var = lir_buffer(p->s, pname, elem);
    } else {
        prm.var = lir_var(p->s, pname, t);
    }
    if (prm.var->kind == LV_BUFFER && is_kw(p, "stream")) {
        next(p);
        prm.var->stream = 1;
    }
    define(p, prm.var);
    return prm;
}

static LFunc *func(P *p)
{
    const char *fname;
    LParam *params = NULL;
    int n = 0, cap = 0;
    LFunc *f;

    expect_kw(p, "func");
    fname = name(p, "a function name");
    expect(p, T_LP);
    if (p->t.kind != T_RP) {
        for (;;) {
            if (n == cap) {
                LParam *q;
                cap = cap ? 2 * cap : 8;
                q = arena_alloc(&p->s->arena, (size_t)cap * sizeof *q);
                if (n)
                    memcpy(q, params, (size_t)n * sizeof *q);
                params = q;
            }
            params[n++] = param(p);
            if (p->t.kind != T_COMMA)
                break;
            next(p);
        }
    }
    expect(p, T_RP);
    f = lir_func(p->s, fname, params, n, block(p));
    if (p->t.kind != T_EOF)
        expected(p, "end of input");
    return f;
}

/* The parser's state is on the heap: longjmp leaves the values of
 * changed local variables of lir_parse indeterminate, not those of
 * objects they point to. */
LFunc *lir_parse(TlSession *s, const char *name, const char *text,
                 size_t len, TlBuf *err)
{
    P *p = tl_xcalloc(1, sizeof *p);
    LFunc *f = NULL;

    p->s = s;
    p->name = name;
    p->cur = text;
    p->end = text + len;
    p->line = 1;
    p->line_start = text;
    p->err = err;
    if (!setjmp(p->fail)) {
        next(p);
        p->func = func(p);
    }
    f = p->func;
    free(p->scope);
    free(p);
    return f;
}
