/*
 * lir_print.c - writes the loop IR in its text form (the grammar is in
 * codegen.h), the form lir_parse reads back.  Parentheses are the
 * fewest that keep the tree: an operand is parenthesized when it binds
 * more loosely than its place needs, and comparisons never chain.
 */
#include "codegen/codegen_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Binding strength of a primary expression (literal, name, call). */
enum { PREC_PRIMARY = 10, PREC_UNARY = 7, PREC_COMPARE = 4 };

void lir_print_name(TlBuf *out, const char *name)
{
    if (!name) {
        buf_puts(out, "<null>");
        return;
    }
    if (!lir_name_is_plain(name))
        buf_putc(out, '$');
    buf_puts(out, name);
}

/* The shortest decimal that reads back (rounded to dt) as v. */
static void print_float(TlBuf *out, TlDType dt, double v)
{
    char tmp[40];

    if (isnan(v)) {
        buf_puts(out, "nan");
    } else if (isinf(v)) {
        buf_puts(out, v < 0 ? "-inf" : "inf");
    } else {
        for (int p = 1; p <= 17; p++) {
            double back;
            snprintf(tmp, sizeof tmp, "%.*g", p, v);
            back = lir_round_float(dt_is_float(dt) ? dt : DT_F64,
                                   strtod(tmp, NULL));
            if (!memcmp(&back, &v, sizeof v))
                break;
        }
        buf_puts(out, tmp);
        /* A float literal needs a point or an exponent. */
        if (!strpbrk(tmp, ".e"))
            buf_puts(out, ".0");
    }
    if (dt != DT_F32) {
        buf_putc(out, '_');
        buf_puts(out, dt_name(dt));
    }
}

static void print_int(TlBuf *out, TlDType dt, int64_t v)
{
    if (dt == DT_BOOL && (v == 0 || v == 1)) {
        buf_puts(out, v ? "true" : "false");
        return;
    }
    buf_printf(out, "%lld", (long long)v);
    if (dt != DT_I32) {
        buf_putc(out, '_');
        buf_puts(out, dt_name(dt));
    }
}

static int prec(const LExpr *e)
{
    if (!e)
        return PREC_PRIMARY;
    if (e->kind == LE_BINARY)
        return lir_op_prec(e->op);
    if (e->kind == LE_UNARY)
        return PREC_UNARY;
    return PREC_PRIMARY;
}

static void expr(TlBuf *out, const LExpr *e);

/* e, in parentheses when it binds more loosely than need. */
static void operand(TlBuf *out, const LExpr *e, int need)
{
    if (prec(e) < need) {
        buf_putc(out, '(');
        expr(out, e);
        buf_putc(out, ')');
    } else {
        expr(out, e);
    }
}

static void args(TlBuf *out, LExpr *const *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            buf_puts(out, ", ");
        expr(out, v[i]);
    }
}

static void binary(TlBuf *out, const LExpr *e)
{
    int p = lir_op_prec(e->op);

    if (p == PREC_PRIMARY - 1) {            /* min, max */
        buf_printf(out, "%s(", lir_op_name(e->op));
        expr(out, e->a);
        buf_puts(out, ", ");
        expr(out, e->b);
        buf_putc(out, ')');
        return;
    }
    /* Left-associative; comparisons do not chain at all. */
    operand(out, e->a, p == PREC_COMPARE ? p + 1 : p);
    buf_printf(out, " %s ", lir_op_name(e->op));
    operand(out, e->b, p + 1);
}

static void unary(TlBuf *out, const LExpr *e)
{
    const LExpr *a = e->a;

    buf_puts(out, lir_op_name(e->op));
    /* `-3` is a literal and `--x` reads badly: parenthesize both. */
    if (a && (a->kind == LE_UNARY || a->kind == LE_INT ||
              a->kind == LE_FLOAT)) {
        buf_putc(out, '(');
        expr(out, a);
        buf_putc(out, ')');
    } else {
        operand(out, a, PREC_UNARY);
    }
}

static void expr(TlBuf *out, const LExpr *e)
{
    if (!e) {
        buf_puts(out, "<null>");
        return;
    }
    switch (e->kind) {
    case LE_INT: print_int(out, e->type.dt, e->ival); break;
    case LE_FLOAT: print_float(out, e->type.dt, e->fval); break;
    case LE_VAR: lir_print_name(out, e->var ? e->var->name : NULL); break;
    case LE_LOAD:
        lir_print_name(out, e->var ? e->var->name : NULL);
        buf_putc(out, '[');
        args(out, e->args, e->nargs);
        buf_putc(out, ']');
        break;
    case LE_BINARY: binary(out, e); break;
    case LE_UNARY: unary(out, e); break;
    case LE_SELECT:
        buf_puts(out, "select(");
        expr(out, e->a);
        buf_puts(out, ", ");
        expr(out, e->b);
        buf_puts(out, ", ");
        expr(out, e->c);
        buf_putc(out, ')');
        break;
    case LE_CAST:
        buf_printf(out, "%s(", dt_name(e->type.dt));
        expr(out, e->a);
        buf_putc(out, ')');
        break;
    case LE_CALL:
        if (e->var)
            lir_print_name(out, e->var->name);
        else
            buf_puts(out, lir_call_name(e->fn));
        buf_putc(out, '(');
        args(out, e->args, e->nargs);
        buf_putc(out, ')');
        break;
    case LE_RAMP:
        buf_puts(out, "ramp(");
        expr(out, e->a);
        buf_puts(out, ", ");
        expr(out, e->b);
        buf_printf(out, ", %d)", e->type.lanes);
        break;
    case LE_BROADCAST:
        buf_puts(out, "broadcast(");
        expr(out, e->a);
        buf_printf(out, ", %d)", e->type.lanes);
        break;
    default:
        buf_puts(out, "<bad expression>");
        break;
    }
}

void lir_print_expr(TlBuf *out, const LExpr *e)
{
    expr(out, e);
}

/* ====================================================================
 * Statements
 * ==================================================================== */

static void indent_to(TlBuf *out, int indent)
{
    for (int i = 0; i < indent; i++)
        buf_puts(out, "  ");
}

void lir_print_head(TlBuf *out, const LStmt *st)
{
    if (!st) {
        buf_puts(out, "<null>");
        return;
    }
    switch (st->kind) {
    case LS_FOR:
        switch (st->loop) {
        case LP_SERIAL:
            if (st->width == LIR_ROLLED)
                buf_puts(out, "rolled ");
            break;
        case LP_VECTORIZED:
            buf_printf(out, "vectorized(%d) ", st->width);
            break;
        case LP_PARALLEL:
            if (st->width > 0)
                buf_printf(out, "parallel(%d) ", st->width);
            else
                buf_puts(out, "parallel ");
            break;
        case LP_DISTRIBUTED:
            buf_puts(out, "distributed(");
            lir_print_name(out, st->level);
            buf_puts(out, ") ");
            break;
        default:
            buf_printf(out, "%s ", lir_loop_name(st->loop));
            break;
        }
        buf_puts(out, "for ");
        lir_print_name(out, st->var ? st->var->name : NULL);
        buf_puts(out, " in ");
        expr(out, st->a);
        buf_puts(out, " .. ");
        expr(out, st->b);
        break;
    case LS_LET:
        buf_puts(out, "let ");
        lir_print_name(out, st->var ? st->var->name : NULL);
        buf_puts(out, " = ");
        expr(out, st->a);
        break;
    case LS_STORE:
        lir_print_name(out, st->var ? st->var->name : NULL);
        buf_putc(out, '[');
        args(out, st->args, st->nargs);
        buf_puts(out, "] = ");
        expr(out, st->a);
        break;
    case LS_ALLOC:
        buf_puts(out, "alloc ");
        lir_print_name(out, st->var ? st->var->name : NULL);
        buf_printf(out, ": %s[",
                   dt_name(st->var ? st->var->type.dt : DT_NONE));
        args(out, st->args, st->nargs);
        buf_printf(out, "] on %s", lir_mem_name(st->mem));
        break;
    case LS_IF:
        buf_puts(out, "if ");
        expr(out, st->a);
        break;
    case LS_BLOCK:
        buf_puts(out, st->nitems ? "{ ... }" : "{}");
        break;
    default:
        buf_puts(out, "<bad statement>");
        break;
    }
}

static void stmt(TlBuf *out, const LStmt *st, int indent);

/* " {\n", the statements of body one level in, then "}" (no newline). */
static void body(TlBuf *out, const LStmt *b, int indent)
{
    buf_puts(out, " {\n");
    if (b && b->kind == LS_BLOCK) {
        for (int i = 0; i < b->nitems; i++)
            stmt(out, b->items[i], indent + 1);
    } else {
        stmt(out, b, indent + 1);
    }
    indent_to(out, indent);
    buf_putc(out, '}');
}

static void stmt(TlBuf *out, const LStmt *st, int indent)
{
    indent_to(out, indent);
    if (!st) {
        buf_puts(out, "<null>\n");
        return;
    }
    switch (st->kind) {
    case LS_FOR:
        lir_print_head(out, st);
        body(out, st->body, indent);
        break;
    case LS_IF:
        lir_print_head(out, st);
        body(out, st->body, indent);
        /* else-if chains stay flat */
        while (st->orelse && st->orelse->kind == LS_IF) {
            st = st->orelse;
            buf_puts(out, " else ");
            lir_print_head(out, st);
            body(out, st->body, indent);
        }
        if (st->orelse) {
            buf_puts(out, " else");
            body(out, st->orelse, indent);
        }
        break;
    case LS_BLOCK:
        buf_putc(out, '{');
        buf_putc(out, '\n');
        for (int i = 0; i < st->nitems; i++)
            stmt(out, st->items[i], indent + 1);
        indent_to(out, indent);
        buf_putc(out, '}');
        break;
    default:
        lir_print_head(out, st);
        break;
    }
    buf_putc(out, '\n');
}

void lir_print_stmt(TlBuf *out, const LStmt *st, int indent)
{
    stmt(out, st, indent);
}

void lir_print_func(TlBuf *out, const LFunc *f)
{
    buf_puts(out, "func ");
    lir_print_name(out, f->name);
    buf_putc(out, '(');
    for (int i = 0; i < f->nparams; i++) {
        const LParam *p = &f->params[i];
        const LVar *v = p->var;
        if (i)
            buf_puts(out, ", ");
        lir_print_name(out, v ? v->name : NULL);
        buf_puts(out, ": ");
        if (!v) {
            buf_puts(out, "<null>");
        } else if (v->kind == LV_VALUE) {
            lir_print_type(out, v->type);
        } else if (v->kind == LV_FUNC) {
            buf_printf(out, "fn %s(", dt_name(v->type.dt));
            for (int k = 0; k < v->nsig; k++)
                buf_printf(out, "%s%s", k ? ", " : "", dt_name(v->sig[k]));
            buf_putc(out, ')');
        } else if (p->ndims == 0) {
            buf_printf(out, "%s*", dt_name(v->type.dt));
        } else {
            buf_printf(out, "%s[", dt_name(v->type.dt));
            args(out, p->dims, p->ndims);
            buf_putc(out, ']');
        }
        if (v && v->kind == LV_BUFFER && v->stream)
            buf_puts(out, " stream");
    }
    buf_putc(out, ')');
    body(out, f->body, 0);
    buf_putc(out, '\n');
}
