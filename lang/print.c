/*
 * print.c - the canonical printer behind `tdsl fmt`: an AST back to text
 * in one canonical style, with the program's comments put back.  The
 * invariants the tests check: parse(print(ast)) == ast (compared with
 * ast_dump_program), print is idempotent, and every comment comes out
 * exactly once, in source order.
 *
 * Canonical style (copied into lang/SPEC.md):
 *  - 4-space indentation; `{` on the item's line; `}` alone on its line.
 *  - Exactly one blank line between kernel/schedule/extern items and
 *    before/after them.  Elsewhere (other top-level statements, body
 *    statements) a blank line is kept where the source had one, at most
 *    one; never after `{`, before `}`, or at the start of the file.
 *  - No trailing whitespace; the file ends with exactly one newline; an
 *    empty program prints nothing (or just its comments).
 *  - Spaces around binary operators, `=` and `->`; none around `..`,
 *    `:` of slices, `.` and `@`; `, ` after commas; none inside
 *    brackets or parentheses; named arguments `name = value`;
 *    parameters `name: f32[M, K]`, rank 0 `f32[]`, scalars after `; `;
 *    typed lets `let W: f32[64, 3] = ...`; generic kernels
 *    `kernel relu<T: float, U: f32 | f64>(X: T[..S])`, index packs
 *    `Y[..i, j]`, dtype arguments `cast_to<f16>(x)`; externs
 *    `extern "libm.so.6" fn erff(x: f32) -> f32` (no library: `extern fn`);
 *    outputs always in parentheses; reductions `sum(k) body`,
 *    `sum(k in 0..K, r) body`; slices `T[0:2, :, ::2]`; casts `f16(x)`.
 *  - Literals: strings re-escaped; floats as spelled in the source; ints
 *    in decimal unless the parser kept a spelling (hex).
 *  - Minimal parentheses by the precedence table of
 *    docs/frontend-decisions.md.  A reduction's body extends as far
 *    right as possible, so a reduction is parenthesised when anything
 *    follows it (`(sum(k) x[k]) + 1`, but `1 + sum(k) x[k]`); `e on T`
 *    is parenthesised everywhere but at the top of an expression or an
 *    argument; comparisons are non-associative (`(a < b) == c`); a
 *    max/min reduction body starting with `-` or `!` is parenthesised
 *    (`max(k) (-x[k])`), and so is a max/min call before `[` or `(`
 *    (`(max(a, b))[i]`).  One exception to minimality: `-(-x)`, not
 *    `--x`.
 *  - A kernel header longer than 80 columns is wrapped: parameters
 *    packed onto lines aligned after `(`, then `-> (OUTPUTS) {` on a
 *    line of its own, indented 4 (outputs packed likewise).
 *  - A directive chain stays on one line if it fits in 80 columns (and
 *    holds no comments); otherwise the first directive stays on the
 *    stage's line and each following `.directive(...)` goes on its own
 *    line, indented 4 more spaces than the statement.
 *  - Layouts: `layout A: [i@L2B, k@L1B]` (compact) or
 *    `layout A: ((2_L2B, 2_L1B, 32:1), (4_MAB, 4_PE, 2_W)); B@[MAB]`.
 *  - Comments: one on its own line(s) is printed before the construct
 *    that follows it, at that construct's indentation; one at the end
 *    of a statement's last line stays there, after two spaces; comments
 *    after the last statement of a body go before its `}`.  Comments
 *    inside a multi-line statement move before it, except in directive
 *    chains, where they stay between the links.  The first comment on
 *    a kernel/schedule header's lines goes after `{`; other comments
 *    inside a header go to the top of the body.  Blank lines around
 *    comments follow the source, at most one.
 */
#include "lang/lang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * Expressions
 * ==================================================================== */

/* Precedence levels, lowest first (docs/frontend-decisions.md). */
enum {
    P_LOW = 1,   /* reductions, `on` */
    P_OR,
    P_AND,
    P_CMP,
    P_ADD,
    P_MUL,
    P_UNARY,
    P_POSTFIX,
    P_PRIMARY
};

static void expr(TlBuf *o, const TlExpr *e, int minprec, int tail);

static int binary_prec(TlOp op)
{
    switch (op) {
    case OP_OR:
        return P_OR;
    case OP_AND:
        return P_AND;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        return P_CMP;
    case OP_ADD: case OP_SUB:
        return P_ADD;
    default:
        return P_MUL;
    }
}

/* A literal that prints with a leading '-' (the parser may fold `-3`). */
static int negative_literal(const TlExpr *e)
{
    if (e->kind == EX_INT)
        return e->str ? e->str[0] == '-' : e->ival < 0;
    if (e->kind == EX_FLOAT)
        return e->str ? e->str[0] == '-' : signbit(e->fval) != 0;
    return 0;
}

static int prec(const TlExpr *e)
{
    switch (e->kind) {
    case EX_REDUCE:
    case EX_ON:
        return P_LOW;
    case EX_BINARY:
        return binary_prec(e->op);
    case EX_UNARY:
        return P_UNARY;
    case EX_INT:
    case EX_FLOAT:
        return negative_literal(e) ? P_UNARY : P_PRIMARY;
    case EX_MEMBER:
    case EX_INDEX:
    case EX_CALL:
        return P_POSTFIX;
    default:
        return P_PRIMARY;
    }
}

/* `max(a, b)` or `min(a, b)`: followed by `(` or `[` it would read as
 * the header of a reduction. */
static int is_minmax_call(const TlExpr *e)
{
    return e->kind == EX_CALL && e->a && e->a->kind == EX_NAME &&
           e->a->str &&
           (!strcmp(e->a->str, "max") || !strcmp(e->a->str, "min"));
}

static void put_escaped(TlBuf *o, const char *s)
{
    buf_putc(o, '"');
    for (; s && *s; s++) {
        switch (*s) {
        case '\\': buf_puts(o, "\\\\"); break;
        case '"': buf_puts(o, "\\\""); break;
        case '\n': buf_puts(o, "\\n"); break;
        case '\t': buf_puts(o, "\\t"); break;
        default: buf_putc(o, *s); break;
        }
    }
    buf_putc(o, '"');
}

/* A float with no source spelling: the shortest text that reads back
 * as the same value, with a '.' or exponent so it lexes as a float. */
static void put_float(TlBuf *o, double v)
{
    char t[64];

    if (isnan(v) || isinf(v)) {
        buf_puts(o, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(t, sizeof t, "%.*g", digits, v);
        if (strtod(t, NULL) == v)
            break;
    }
    buf_puts(o, t);
    if (!strpbrk(t, ".e"))
        buf_puts(o, ".0");
}

static void expr_list(TlBuf *o, const TlExprList *l)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(o, ", ");
        expr(o, l->v[i], P_LOW, 0);
    }
}

/* The operand of a postfix operator: `X.m`, `T[i]`, `f(x)`. */
static void postfix_operand(TlBuf *o, const TlExpr *e)
{
    if (e && is_minmax_call(e)) {
        buf_putc(o, '(');
        expr(o, e, P_LOW, 0);
        buf_putc(o, ')');
    } else {
        expr(o, e, P_POSTFIX, 1);
    }
}

static void reduce_header(TlBuf *o, const TlExpr *e)
{
    buf_puts(o, op_spelling(e->op));
    buf_putc(o, '(');
    for (int i = 0; i < e->args.n; i++) {
        const TlExpr *v = e->args.v[i];
        if (i)
            buf_puts(o, ", ");
        if (v->kind == EX_NAME && (v->a || v->b)) {
            buf_puts(o, v->str);
            buf_puts(o, " in ");
            if (v->a)
                expr(o, v->a, P_OR, 1);
            buf_puts(o, "..");
            if (v->b)
                expr(o, v->b, P_OR, 0);
        } else {
            expr(o, v, P_LOW, 0);
        }
    }
    buf_puts(o, ") ");
}

static int needs_parens(const TlExpr *e, int minprec, int tail)
{
    return e->kind == EX_REDUCE ? tail : prec(e) < minprec;
}

/* Whether expr(e, minprec, tail) would start with '-' or '!'.  Follows
 * the left edge of the printed text without printing it (printing
 * twice per level would be exponential in nested max reductions). */
static int starts_with_sign(const TlExpr *e, int minprec, int tail)
{
    while (e && !needs_parens(e, minprec, tail)) {
        switch (e->kind) {
        case EX_UNARY:
            return 1;
        case EX_INT:
        case EX_FLOAT:
            return negative_literal(e);
        case EX_BINARY:
            minprec = binary_prec(e->op);
            if (minprec == P_CMP)
                minprec++;
            tail = 1;
            break;
        case EX_MEMBER:
        case EX_INDEX:
        case EX_CALL:
            if (e->a && is_minmax_call(e->a))
                return 0;
            minprec = P_POSTFIX;
            tail = 1;
            break;
        case EX_SLICE:
            minprec = P_OR;
            tail = 1;
            break;
        case EX_ON:
            minprec = P_OR;
            tail = 1;
            break;
        default:
            return 0;
        }
        e = e->a;
    }
    return 0;
}

/* A reduction body.  After `max(...)`/`min(...)` a `-` would be read
 * as binary minus and `!` cannot start a body, so such bodies get
 * parentheses. */
static void reduce_body(TlBuf *o, const TlExpr *e, int tail)
{
    /* A parenthesised sum of terms stays so: without the parentheses
     * a term that reads no reduction variable draws the warning
     * SUM_TERM_INVARIANT (resolve.c), which they answer. */
    if (((e->op == RD_MAX || e->op == RD_MIN) && e->a &&
         starts_with_sign(e->a, P_OR, tail)) ||
        (e->op == RD_SUM && e->a && e->a->parens &&
         e->a->kind == EX_BINARY &&
         (e->a->op == OP_ADD || e->a->op == OP_SUB))) {
        buf_putc(o, '(');
        expr(o, e->a, P_LOW, 0);
        buf_putc(o, ')');
    } else {
        expr(o, e->a, P_OR, tail);
    }
}

/* Prints e without parentheses around it.  tail: something follows e
 * that a reduction body would swallow. */
static void expr_bare(TlBuf *o, const TlExpr *e, int tail)
{
    switch (e->kind) {
    case EX_INT:
        if (e->str)
            buf_puts(o, e->str);
        else
            buf_printf(o, "%lld", (long long)e->ival);
        break;
    case EX_FLOAT:
        if (e->str)
            buf_puts(o, e->str);
        else
            put_float(o, e->fval);
        break;
    case EX_BOOL:
        buf_puts(o, e->ival ? "true" : "false");
        break;
    case EX_STR:
        put_escaped(o, e->str);
        break;
    case EX_NAME:
        if (e->ival)
            buf_puts(o, "..");
        buf_puts(o, e->str ? e->str : "?");
        break;
    case EX_MEMBER:
        postfix_operand(o, e->a);
        buf_putc(o, '.');
        buf_puts(o, e->str ? e->str : "?");
        break;
    case EX_INDEX:
        postfix_operand(o, e->a);
        buf_putc(o, '[');
        expr_list(o, &e->args);
        buf_putc(o, ']');
        break;
    case EX_CALL:
        postfix_operand(o, e->a);
        if (e->b) {
            buf_putc(o, '<');
            expr_list(o, &e->b->args);
            buf_putc(o, '>');
        }
        buf_putc(o, '(');
        expr_list(o, &e->args);
        buf_putc(o, ')');
        break;
    case EX_SLICE: {
        int step = e->ival || e->c;
        if (e->a)
            expr(o, e->a, P_OR, 1);
        buf_putc(o, ':');
        if (e->b)
            expr(o, e->b, P_OR, step);
        if (step)
            buf_putc(o, ':');
        if (e->c)
            expr(o, e->c, P_OR, 0);
        break;
    }
    case EX_NAMED:
        buf_puts(o, e->str ? e->str : "?");
        buf_puts(o, " = ");
        expr(o, e->a, P_LOW, 0);
        break;
    case EX_REDUCE:
        reduce_header(o, e);
        reduce_body(o, e, tail);
        break;
    case EX_UNARY:
        buf_puts(o, op_spelling(e->op));
        if (e->a && e->op == OP_NEG &&
            ((e->a->kind == EX_UNARY && e->a->op == OP_NEG) ||
             negative_literal(e->a))) {
            buf_putc(o, '(');
            expr(o, e->a, P_LOW, 0);
            buf_putc(o, ')');
        } else {
            expr(o, e->a, P_UNARY, tail);
        }
        break;
    case EX_BINARY: {
        int p = binary_prec(e->op);
        /* Left-associative: the right operand binds tighter.
         * Comparisons chain neither way. */
        expr(o, e->a, p == P_CMP ? p + 1 : p, 1);
        buf_putc(o, ' ');
        buf_puts(o, op_spelling(e->op));
        buf_putc(o, ' ');
        expr(o, e->b, p + 1, tail);
        break;
    }
    case EX_CAST:
        buf_puts(o, dt_name(e->dtype));
        buf_putc(o, '(');
        expr(o, e->a, P_LOW, 0);
        buf_putc(o, ')');
        break;
    case EX_LIST:
        buf_putc(o, '[');
        expr_list(o, &e->args);
        buf_putc(o, ']');
        break;
    case EX_ON:
        expr(o, e->a, P_OR, 1);
        buf_puts(o, " on ");
        buf_puts(o, e->str ? e->str : "?");
        break;
    default:
        tl_unreachable();
    }
}

/* Prints e, in parentheses when the context needs them: its level is
 * below minprec, or it is a reduction and tail says something follows.
 * A reduction needs none where it is last, even as an operand
 * (`a + sum(k) x[k]`). */
static void expr(TlBuf *o, const TlExpr *e, int minprec, int tail)
{
    int paren;

    /* The checker's implicit conversions (ival == 1) are not part of
     * the program text: print only what was written. */
    while (e && e->kind == EX_CAST && e->ival == 1)
        e = e->a;
    if (!e)
        return;
    paren = needs_parens(e, minprec, tail);
    if (paren) {
        buf_putc(o, '(');
        expr_bare(o, e, 0);
        buf_putc(o, ')');
    } else {
        expr_bare(o, e, tail);
    }
}

void ast_print_expr(TlBuf *out, const TlExpr *e)
{
    expr(out, e, P_LOW, 0);
}

/* ====================================================================
 * Statements and item headers (one line of text each)
 * ==================================================================== */

static void ident_list(TlBuf *o, const TlIdentList *l, const char *sep)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(o, sep);
        if (l->v[i].pack)
            buf_puts(o, "..");
        buf_puts(o, l->v[i].name);
        if (l->v[i].lo && l->v[i].hi) {
            buf_puts(o, " in ");
            expr(o, l->v[i].lo, P_OR, 1);
            buf_puts(o, "..");
            expr(o, l->v[i].hi, P_OR, 0);
        }
    }
}

static void directive(TlBuf *o, const TlDirective *d)
{
    buf_putc(o, '.');
    buf_puts(o, d->name);
    buf_putc(o, '(');
    expr_list(o, &d->args);
    buf_putc(o, ')');
}

static void factor(TlBuf *o, const TlLayoutFactor *f)
{
    if (f->axis) {
        buf_printf(o, "%s@%s", f->axis, f->level ? f->level : "?");
        return;
    }
    buf_printf(o, "%lld", (long long)f->n);
    if (f->level)
        buf_printf(o, "_%s", f->level);
    if (f->stride)
        buf_printf(o, ":%lld", (long long)f->stride);
}

static void factor_list(TlBuf *o, const TlFactorList *l)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(o, ", ");
        factor(o, &l->v[i]);
    }
}

static void layout(TlBuf *o, const TlLayout *l)
{
    if (l->form == LAYOUT_COMPACT) {
        buf_putc(o, '[');
        factor_list(o, &l->compact);
        buf_putc(o, ']');
    } else {
        buf_putc(o, '(');
        for (int i = 0; i < l->axes.n; i++) {
            if (i)
                buf_puts(o, ", ");
            buf_putc(o, '(');
            factor_list(o, &l->axes.v[i]);
            buf_putc(o, ')');
        }
        buf_putc(o, ')');
    }
    if (l->bcast.n) {
        buf_puts(o, "; B@[");
        ident_list(o, &l->bcast, ", ");
        buf_putc(o, ']');
    }
}

static void param(TlBuf *o, const TlParam *p, int scalar)
{
    buf_printf(o, "%s: %s", p->name,
               p->dtype_var ? p->dtype_var : dt_name(p->dtype));
    if (!scalar) {
        buf_putc(o, '[');
        expr_list(o, &p->shape);
        buf_putc(o, ']');
    }
    if (p->init) {
        buf_puts(o, " = ");
        expr(o, p->init, P_LOW, 0);
    }
}

/* Everything of a statement but a directive chain's links. */
static void stmt_head(TlBuf *o, const TlStmt *st)
{
    switch (st->kind) {
    case ST_STAGE:
        buf_puts(o, st->name);
        buf_putc(o, '[');
        ident_list(o, &st->names, ", ");
        buf_puts(o, "] = ");
        break;
    case ST_BIND:
        ident_list(o, &st->names, ", ");
        buf_puts(o, " = ");
        break;
    case ST_LET:
        buf_puts(o, "let ");
        if (st->decl)
            param(o, st->decl, 0);
        else
            ident_list(o, &st->names, ", ");
        buf_puts(o, " = ");
        break;
    case ST_PRINT:
        buf_puts(o, "print ");
        break;
    case ST_ASSERT:
        buf_puts(o, "assert ");
        break;
    case ST_TIME:
        buf_puts(o, "time ");
        break;
    case ST_TARGET:
        buf_puts(o, "target ");
        buf_puts(o, st->name);
        return;
    case ST_EXPR:
        break;
    case ST_DIRECTIVE:
        ident_list(o, &st->names, ".");
        return;
    case ST_LAYOUT:
        buf_printf(o, "layout %s: ", st->name);
        if (st->layout)
            layout(o, st->layout);
        return;
    default:
        tl_unreachable();
    }
    expr(o, st->value, P_LOW, 0);
    if (st->msg) {
        buf_puts(o, ", ");
        expr(o, st->msg, P_LOW, 0);
    }
}

static void param_list(TlBuf *o, const TlParamList *l, int scalar)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(o, ", ");
        param(o, &l->v[i], scalar < 0 ? l->v[i].is_scalar : scalar);
    }
}

/* `kernel NAME<T: float, U: f32 | f64>(`. */
static void kernel_name(TlBuf *o, const TlItem *it)
{
    buf_printf(o, "kernel %s", it->name);
    for (int i = 0; i < it->tparams.n; i++) {
        const TlTypeParam *t = &it->tparams.v[i];
        buf_puts(o, i ? ", " : "<");
        buf_printf(o, "%s: ", t->name);
        ident_list(o, &t->kinds, " | ");
    }
    buf_puts(o, it->tparams.n ? ">(" : "(");
}

/* An item's first line, without `{`. */
static void item_head(TlBuf *o, const TlItem *it)
{
    switch (it->kind) {
    case IT_KERNEL:
        kernel_name(o, it);
        param_list(o, &it->params, 0);
        if (it->scalars.n) {
            buf_puts(o, "; ");
            param_list(o, &it->scalars, 1);
        }
        buf_putc(o, ')');
        if (it->outputs.n) {
            buf_puts(o, " -> (");
            param_list(o, &it->outputs, 0);
            buf_putc(o, ')');
        }
        break;
    case IT_SCHEDULE:
        buf_printf(o, "schedule %s for %s", it->name,
                   it->target ? it->target : "?");
        if (it->variant)
            buf_printf(o, " as %s", it->variant);
        break;
    case IT_EXTERN:
        buf_puts(o, "extern ");
        if (it->lib) {
            put_escaped(o, it->lib);
            buf_putc(o, ' ');
        }
        buf_printf(o, "fn %s(", it->name);
        param_list(o, &it->params, -1);
        buf_putc(o, ')');
        if (it->ret != DT_NONE)
            buf_printf(o, " -> %s", dt_name(it->ret));
        break;
    case IT_IMPORT:
        buf_puts(o, "import ");
        if (it->is_file)
            put_escaped(o, it->path);
        else
            buf_puts(o, it->path);
        if (it->alias)
            buf_printf(o, " as %s", it->alias);
        break;
    default:
        tl_unreachable();
    }
}

/* ====================================================================
 * Layout of lines, blank lines and comments
 * ==================================================================== */

enum { WIDTH = 80, INDENT = 4 };

/* What was printed last at the current nesting level. */
enum { LAST_NONE, LAST_COMMENT, LAST_PLAIN, LAST_BIG };

typedef struct Printer {
    TlBuf *o;
    const TlComment *cm;
    int ncm, ci;       /* comments; the next one not yet printed */
    int last;          /* LAST_* */
    int last_line;     /* source line where the last thing printed ended */
} Printer;

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void indent(Printer *P, int depth)
{
    for (int i = 0; i < depth * INDENT; i++)
        buf_putc(P->o, ' ');
}

/* Comment text without trailing blanks (or a '\r'). */
static void put_comment(Printer *P, const TlComment *c)
{
    size_t n = strlen(c->text);
    while (n && (c->text[n - 1] == ' ' || c->text[n - 1] == '\t' ||
                 c->text[n - 1] == '\r'))
        n--;
    buf_putn(P->o, c->text, n);
}

static int pending_before(const Printer *P, int line)
{
    return P->ci < P->ncm && P->cm[P->ci].loc.line < line;
}

/* Prints, each on its own line, the comments that start before `line`.
 * A blank line goes before the first one if `force` (the block belongs
 * to a kernel, schedule or extern), and before any one that the source
 * separated from what precedes it. */
static void comments_before(Printer *P, int line, int depth, int force)
{
    while (pending_before(P, line)) {
        const TlComment *c = &P->cm[P->ci++];
        if (P->last != LAST_NONE &&
            (force || P->last == LAST_BIG ||
             c->loc.line > P->last_line + 1))
            buf_putc(P->o, '\n');
        force = 0;
        indent(P, depth);
        put_comment(P, c);
        buf_putc(P->o, '\n');
        P->last = LAST_COMMENT;
        /* A comment moved out of a multi-line header stays "inside" it
         * for the blank-line rule. */
        P->last_line = max_int(P->last_line, c->loc.line);
    }
}

/* A comment on source line `line` goes at the end of the current line. */
static void comment_after(Printer *P, int line)
{
    if (P->ci < P->ncm && P->cm[P->ci].loc.line == line) {
        buf_puts(P->o, "  ");
        put_comment(P, &P->cm[P->ci++]);
    }
}

/* Whether a blank line goes before a construct starting at `line`;
 * `blank`: the parser saw a blank line between it and the construct
 * before it.  After comments, the blank line must also be below the
 * last comment. */
static int blank_before(const Printer *P, int blank, int line, int big)
{
    if (P->last == LAST_NONE)
        return 0;
    if (P->last == LAST_COMMENT)
        return blank && line > P->last_line + 1;
    return big || P->last == LAST_BIG || blank;
}

/* A directive chain broken over lines: the first link on the stage's
 * line, each following one on its own line one level deeper, with the
 * comments of the source placed between them. */
static void chain_broken(Printer *P, const TlStmt *st, int depth,
                         int end)
{
    const TlDirectiveList *d = &st->dirs;
    int seg_line = st->loc.line;   /* source line of the current link */

    directive(P->o, &d->v[0]);
    for (int k = 1; k < d->n; k++) {
        /* The last link takes the comments inside its own arguments
         * too: after it, only the statement's trailing one may come. */
        int bound = k == d->n - 1 ? end : d->v[k].loc.line;
        if (pending_before(P, bound))
            comment_after(P, seg_line);
        buf_putc(P->o, '\n');
        while (pending_before(P, bound)) {
            indent(P, depth + 1);
            put_comment(P, &P->cm[P->ci++]);
            buf_putc(P->o, '\n');
        }
        indent(P, depth + 1);
        directive(P->o, &d->v[k]);
        seg_line = d->v[k].loc.line;
    }
}

static void print_stmt(Printer *P, const TlStmt *st, int blank,
                       int depth)
{
    int end = max_int(st->end_line, st->loc.line);
    int chain = st->kind == ST_DIRECTIVE && st->dirs.n >= 2;
    TlBuf line;

    /* Comments inside a multi-line statement move before it; those
     * inside a chain stay between its links. */
    comments_before(P, chain ? st->loc.line : end, depth, 0);
    if (blank_before(P, blank, st->loc.line, 0))
        buf_putc(P->o, '\n');
    indent(P, depth);

    buf_init(&line);
    stmt_head(&line, st);
    if (st->kind == ST_DIRECTIVE) {
        size_t head = line.len;
        for (int k = 0; k < st->dirs.n; k++)
            directive(&line, &st->dirs.v[k]);
        if (chain && ((size_t)(depth * INDENT) + line.len > WIDTH ||
                      pending_before(P, end))) {
            buf_putn(P->o, line.s, head);
            chain_broken(P, st, depth, end);
            buf_free(&line);
            line.len = 0;
        }
    }
    if (line.len)
        buf_putn(P->o, line.s, line.len);
    buf_free(&line);

    comment_after(P, end);
    buf_putc(P->o, '\n');
    P->last = LAST_PLAIN;
    P->last_line = end;
}

/* The last source line of a parameter list, as far as the AST knows
 * (where each name, type and shape entry starts). */
static int params_line(const TlParamList *l, int line)
{
    for (int i = 0; i < l->n; i++) {
        const TlParam *p = &l->v[i];
        line = max_int(line, max_int(p->loc.line, p->type_loc.line));
        for (int j = 0; j < p->shape.n; j++)
            line = max_int(line, p->shape.v[j]->loc.line);
        if (p->init)
            line = max_int(line, p->init->loc.line);
    }
    return line;
}

/* One parameter of a wrapped header: its text and what follows it. */
typedef struct Piece {
    char *text;        /* heap */
    const char *sep;   /* "," or ";" (the last one's is ignored) */
} Piece;

static Piece piece(const TlParam *p, int scalar, const char *pre,
                   const char *sep)
{
    TlBuf t;

    buf_init(&t);
    buf_puts(&t, pre);
    param(&t, p, scalar);
    return (Piece){t.s, sep};
}

/* Appends pieces, each on the current line if it fits, else on a new
 * line starting at column `col`; `cur` is the current column.  The
 * last piece is followed by `last` and then `extra` more columns that
 * must fit too (" {"). */
static void wrap_pieces(TlBuf *o, const Piece *pc, int n, int col,
                        int cur, const char *last, int extra)
{
    for (int i = 0; i < n; i++) {
        const char *sep = i == n - 1 ? last : pc[i].sep;
        int len = (int)(strlen(pc[i].text) + strlen(sep));
        if (i > 0 && cur + 1 + len + (i == n - 1 ? extra : 0) > WIDTH) {
            buf_putc(o, '\n');
            for (int k = 0; k < col; k++)
                buf_putc(o, ' ');
            cur = col;
        } else if (i > 0) {
            buf_putc(o, ' ');
            cur++;
        }
        buf_puts(o, pc[i].text);
        buf_puts(o, sep);
        cur += len;
    }
}

/* A kernel header too long for one line: the parameters packed onto
 * lines aligned after `(`, then `-> (OUTPUTS)` on a line of its own,
 * one level in, packed likewise.  Without the ` {`. */
static void kernel_head_wrapped(TlBuf *o, const TlItem *it)
{
    int np = it->params.n, ns = it->scalars.n, no = it->outputs.n;
    Piece *pc = tl_xcalloc((size_t)(np + ns + no) + 1, sizeof *pc);
    int n = 0, col;

    for (int i = 0; i < np; i++)
        pc[n++] = piece(&it->params.v[i], 0, "", i < np - 1 ? "," : ";");
    for (int i = 0; i < ns; i++)
        pc[n++] = piece(&it->scalars.v[i], 1, i == 0 && !np ? "; " : "",
                        ",");
    for (int i = 0; i < no; i++)
        pc[n + i] = piece(&it->outputs.v[i], 0, "", ",");
    {
        TlBuf name;
        buf_init(&name);
        kernel_name(&name, it);
        buf_puts(o, name.s);
        col = (int)name.len;
        buf_free(&name);
    }
    if (n == 0)
        buf_putc(o, ')');
    wrap_pieces(o, pc, n, col, col, ")", 0);
    if (no) {
        buf_puts(o, "\n    -> (");
        wrap_pieces(o, pc + n, no, 8, 8, ")", 2);
    }
    for (int i = 0; i < n + no; i++)
        free(pc[i].text);
    free(pc);
}

/* A kernel or schedule: header, body, closing brace. */
static void print_block(Printer *P, const TlItem *it, int end)
{
    const TlStmtList *body = &it->body;
    int first = body->n ? body->v[0]->loc.line : end;
    int head = max_int(it->loc.line, max_int(it->target_loc.line,
                                             it->variant_loc.line));
    TlBuf line;

    for (int i = 0; i < it->tparams.n; i++) {
        const TlIdentList *k = &it->tparams.v[i].kinds;
        if (k->n)
            head = max_int(head, k->v[k->n - 1].loc.line);
    }
    head = params_line(&it->params, head);
    head = params_line(&it->scalars, head);
    head = params_line(&it->outputs, head);

    buf_init(&line);
    item_head(&line, it);
    if (it->kind == IT_KERNEL && line.len + 2 > WIDTH)
        kernel_head_wrapped(P->o, it);
    else
        buf_putn(P->o, line.s, line.len);
    buf_free(&line);
    buf_puts(P->o, " {");
    /* The first comment within the header's lines stays on it. */
    if (P->ci < P->ncm && P->cm[P->ci].loc.line >= it->loc.line &&
        P->cm[P->ci].loc.line <= head && P->cm[P->ci].loc.line < first)
        comment_after(P, P->cm[P->ci].loc.line);
    buf_putc(P->o, '\n');

    P->last = LAST_NONE;
    P->last_line = head;
    for (int i = 0; i < body->n; i++)
        print_stmt(P, body->v[i], body->v[i]->blank_before, 1);
    comments_before(P, end, 1, 0);
    buf_putc(P->o, '}');
    comment_after(P, end);
    buf_putc(P->o, '\n');
}

static void print_item(Printer *P, const TlItem *it)
{
    int big = it->kind == IT_KERNEL || it->kind == IT_SCHEDULE ||
              it->kind == IT_EXTERN;
    int block = it->kind == IT_KERNEL || it->kind == IT_SCHEDULE;
    int end = max_int(it->end_line, it->loc.line);

    if (it->kind == IT_STMT) {
        const TlStmt *st = it->stmt;
        print_stmt(P, st, it->blank_before || st->blank_before, 0);
        return;
    }
    comments_before(P, block ? it->loc.line : end, 0, big);
    if (blank_before(P, it->blank_before, it->loc.line, big))
        buf_putc(P->o, '\n');
    if (block) {
        print_block(P, it, end);
    } else {
        item_head(P->o, it);
        comment_after(P, end);
        buf_putc(P->o, '\n');
    }
    P->last = big ? LAST_BIG : LAST_PLAIN;
    P->last_line = end;
}

void ast_print_program(TlBuf *out, const TlProgram *prog)
{
    Printer P = {
        .o = out,
        .cm = prog->comments.v,
        .ncm = prog->comments.n,
        .ci = 0,
        .last = LAST_NONE,
        .last_line = 0,
    };

    for (int i = 0; i < prog->items.n; i++)
        print_item(&P, prog->items.v[i]);
    /* Comments at the end of the file (all that are left). */
    comments_before(&P, INT32_MAX, 0, 0);
}
