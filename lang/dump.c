/*
 * dump.c - the AST as an indented tree (`tdsl dump --ast`), one node per
 * line with its kind and meaningful fields.  Locations and facts that
 * only concern formatting (parentheses, blank lines, comments, end
 * lines, a literal's spelling) are left out, so two parses of
 * equivalent text dump the same: the fmt round-trip tests compare these.
 *
 * The tree is built first (labels in a scratch arena), then drawn with
 * guides, because a node's connector depends on whether it is the last
 * child.
 */
#include "lang/lang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct DNode DNode;
struct DNode {
    const char *label;
    DNode *kids, *tail, *next;
};

typedef struct Dumper {
    TlArena arena;
} Dumper;

static DNode *vnode(Dumper *D, DNode *parent, const char *fmt, va_list ap)
{
    DNode *n = arena_alloc(&D->arena, sizeof *n);
    TlBuf b;

    buf_init(&b);
    buf_vprintf(&b, fmt, ap);
    n->label = arena_strndup(&D->arena, b.s ? b.s : "", b.len);
    buf_free(&b);
    if (parent) {
        if (parent->tail)
            parent->tail->next = n;
        else
            parent->kids = n;
        parent->tail = n;
    }
    return n;
}

static DNode *node(Dumper *D, DNode *parent, const char *fmt, ...)
    TL_PRINTF(3, 4);

static DNode *node(Dumper *D, DNode *parent, const char *fmt, ...)
{
    va_list ap;
    DNode *n;

    va_start(ap, fmt);
    n = vnode(D, parent, fmt, ap);
    va_end(ap);
    return n;
}

static void draw(TlBuf *o, const DNode *n, TlBuf *prefix)
{
    size_t keep = prefix->len;

    for (const DNode *k = n->kids; k; k = k->next) {
        int last = k->next == NULL;
        buf_putn(o, prefix->s ? prefix->s : "", prefix->len);
        buf_puts(o, last ? "`- " : "|- ");
        buf_puts(o, k->label);
        buf_putc(o, '\n');
        buf_puts(prefix, last ? "   " : "|  ");
        draw(o, k, prefix);
        prefix->len = keep;
        if (prefix->s)
            prefix->s[keep] = 0;
    }
}

/* ====================================================================
 * Text of leaf values
 * ==================================================================== */

/* A string in double quotes with the language's escapes (in the
 * dumper's arena). */
static char *quoted(Dumper *D, const char *s)
{
    TlBuf b;
    char *r;

    buf_init(&b);
    buf_putc(&b, '"');
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '"')
            buf_putc(&b, '\\');
        if (*s == '\n')
            buf_puts(&b, "\\n");
        else if (*s == '\t')
            buf_puts(&b, "\\t");
        else
            buf_putc(&b, *s);
    }
    buf_putc(&b, '"');
    r = arena_strndup(&D->arena, b.s, b.len);
    buf_free(&b);
    return r;
}

/* The shortest decimal text that reads back as v. */
static void float_text(char *t, size_t n, double v)
{
    if (isnan(v) || isinf(v)) {
        snprintf(t, n, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(t, n, "%.*g", digits, v);
        if (strtod(t, NULL) == v)
            return;
    }
}

static const char *nz(const char *s)
{
    return s ? s : "(null)";
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static void dump_expr(Dumper *D, DNode *parent, const char *role,
                      const TlExpr *e);

static void dump_args(Dumper *D, DNode *n, const TlExprList *l)
{
    for (int i = 0; i < l->n; i++)
        dump_expr(D, n, NULL, l->v[i]);
}

static void dump_expr(Dumper *D, DNode *parent, const char *role,
                      const TlExpr *e)
{
    const char *r = role ? role : "";
    const char *sep = role ? ": " : "";
    DNode *n;
    char t[64];

    if (!e) {
        node(D, parent, "%s%s(none)", r, sep);
        return;
    }
    switch (e->kind) {
    case EX_INT:
        node(D, parent, "%s%sint %lld", r, sep, (long long)e->ival);
        break;
    case EX_FLOAT:
        float_text(t, sizeof t, e->fval);
        node(D, parent, "%s%sfloat %s", r, sep, t);
        break;
    case EX_BOOL:
        node(D, parent, "%s%sbool %s", r, sep, e->ival ? "true" : "false");
        break;
    case EX_STR:
        node(D, parent, "%s%sstring %s", r, sep, quoted(D, e->str));
        break;
    case EX_NAME:
        if (e->a || e->b) {
            n = node(D, parent, "%s%sname %s in range", r, sep, nz(e->str));
            dump_expr(D, n, "lo", e->a);
            dump_expr(D, n, "hi", e->b);
        } else {
            node(D, parent, "%s%sname %s%s", r, sep, e->ival ? ".." : "",
                 nz(e->str));
        }
        break;
    case EX_MEMBER:
        n = node(D, parent, "%s%smember .%s", r, sep, nz(e->str));
        dump_expr(D, n, NULL, e->a);
        break;
    case EX_INDEX:
        n = node(D, parent, "%s%sindex", r, sep);
        dump_expr(D, n, "base", e->a);
        dump_args(D, n, &e->args);
        break;
    case EX_SLICE:
        n = node(D, parent, "%s%sslice %s:%s%s%s", r, sep,
                 e->a ? "lo" : "", e->b ? "hi" : "",
                 e->ival || e->c ? ":" : "", e->c ? "step" : "");
        if (e->a)
            dump_expr(D, n, "lo", e->a);
        if (e->b)
            dump_expr(D, n, "hi", e->b);
        if (e->c)
            dump_expr(D, n, "step", e->c);
        break;
    case EX_CALL:
        n = node(D, parent, "%s%scall", r, sep);
        dump_expr(D, n, "callee", e->a);
        if (e->b)
            dump_expr(D, n, "dtypes", e->b);
        dump_args(D, n, &e->args);
        break;
    case EX_NAMED:
        n = node(D, parent, "%s%snamed %s", r, sep, nz(e->str));
        dump_expr(D, n, NULL, e->a);
        break;
    case EX_REDUCE:
        n = node(D, parent, "%s%sreduce %s", r, sep, op_spelling(e->op));
        for (int i = 0; i < e->args.n; i++)
            dump_expr(D, n, "rvar", e->args.v[i]);
        dump_expr(D, n, "body", e->a);
        break;
    case EX_UNARY:
        n = node(D, parent, "%s%sunary %s", r, sep, op_spelling(e->op));
        dump_expr(D, n, NULL, e->a);
        break;
    case EX_BINARY:
        n = node(D, parent, "%s%sbinary %s", r, sep, op_spelling(e->op));
        dump_expr(D, n, NULL, e->a);
        dump_expr(D, n, NULL, e->b);
        break;
    case EX_CAST:
        n = node(D, parent, "%s%scast %s", r, sep, dt_name(e->dtype));
        dump_expr(D, n, NULL, e->a);
        break;
    case EX_LIST:
        n = node(D, parent, "%s%slist", r, sep);
        dump_args(D, n, &e->args);
        break;
    case EX_ON:
        n = node(D, parent, "%s%son %s", r, sep, nz(e->str));
        dump_expr(D, n, NULL, e->a);
        break;
    default:
        tl_unreachable();
    }
}

/* ====================================================================
 * Statements and items
 * ==================================================================== */

static char *idents(Dumper *D, const TlIdentList *l, const char *sep)
{
    TlBuf b;
    char *r;

    buf_init(&b);
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(&b, sep);
        if (l->v[i].pack)
            buf_puts(&b, "..");
        buf_puts(&b, nz(l->v[i].name));
    }
    r = arena_strndup(&D->arena, b.s ? b.s : "", b.len);
    buf_free(&b);
    return r;
}

static void dump_factor(Dumper *D, DNode *parent, const TlLayoutFactor *f)
{
    TlBuf b;

    buf_init(&b);
    if (f->axis)
        buf_printf(&b, "%s@%s", f->axis, nz(f->level));
    if (!f->axis || f->n)
        buf_printf(&b, "%s%lld", f->axis ? " n=" : "", (long long)f->n);
    if (!f->axis && f->level)
        buf_printf(&b, "_%s", f->level);
    if (f->stride)
        buf_printf(&b, ":%lld", (long long)f->stride);
    node(D, parent, "factor %s", b.s);
    buf_free(&b);
}

static void dump_layout(Dumper *D, DNode *n, const TlLayout *l)
{
    if (l->form == LAYOUT_COMPACT) {
        for (int i = 0; i < l->compact.n; i++)
            dump_factor(D, n, &l->compact.v[i]);
    } else {
        for (int i = 0; i < l->axes.n; i++) {
            DNode *ax = node(D, n, "axis %d", i);
            for (int j = 0; j < l->axes.v[i].n; j++)
                dump_factor(D, ax, &l->axes.v[i].v[j]);
        }
    }
    if (l->bcast.n)
        node(D, n, "broadcast %s", idents(D, &l->bcast, ", "));
}

static void dump_param(Dumper *D, DNode *parent, const char *what,
                       const TlParam *p, int scalar)
{
    DNode *n;

    if (scalar < 0)
        scalar = p->is_scalar;
    const char *ty = p->dtype_var ? p->dtype_var : dt_name(p->dtype);

    if (scalar)
        n = node(D, parent, "%s %s: %s scalar", what, nz(p->name), ty);
    else
        n = node(D, parent, "%s %s: %s rank %d", what, nz(p->name), ty,
                 p->shape.n);
    for (int i = 0; i < p->shape.n; i++)
        dump_expr(D, n, "dim", p->shape.v[i]);
    if (p->init)
        dump_expr(D, n, "default", p->init);
}

static void dump_stmt(Dumper *D, DNode *parent, const TlStmt *st)
{
    static const char *const kw[ST__COUNT] = {
        [ST_PRINT] = "print", [ST_ASSERT] = "assert",
        [ST_TIME] = "time",   [ST_EXPR] = "expr",
    };
    DNode *n;

    switch (st->kind) {
    case ST_STAGE:
        n = node(D, parent, "stage %s[%s]", nz(st->name),
                 idents(D, &st->names, ", "));
        dump_expr(D, n, NULL, st->value);
        break;
    case ST_BIND:
        n = node(D, parent, "bind %s", idents(D, &st->names, ", "));
        dump_expr(D, n, NULL, st->value);
        break;
    case ST_LET:
        n = node(D, parent, "let %s", idents(D, &st->names, ", "));
        if (st->decl)
            dump_param(D, n, "type", st->decl, 0);
        dump_expr(D, n, NULL, st->value);
        break;
    case ST_PRINT:
    case ST_ASSERT:
    case ST_TIME:
    case ST_EXPR:
        n = node(D, parent, "%s", kw[st->kind]);
        dump_expr(D, n, NULL, st->value);
        if (st->msg)
            dump_expr(D, n, "message", st->msg);
        break;
    case ST_TARGET:
        node(D, parent, "target %s", nz(st->name));
        break;
    case ST_DIRECTIVE:
        n = node(D, parent, "directive %s", idents(D, &st->names, "."));
        for (int i = 0; i < st->dirs.n; i++) {
            DNode *d = node(D, n, ".%s", nz(st->dirs.v[i].name));
            dump_args(D, d, &st->dirs.v[i].args);
        }
        break;
    case ST_LAYOUT:
        if (!st->layout) {
            node(D, parent, "layout %s (none)", nz(st->name));
            break;
        }
        n = node(D, parent, "layout %s %s", nz(st->name),
                 st->layout->form == LAYOUT_COMPACT ? "compact"
                                                    : "canonical");
        dump_layout(D, n, st->layout);
        break;
    default:
        tl_unreachable();
    }
}

/* what: "param", "scalar" or "output"; scalar < 0: as p->is_scalar. */
static void dump_item(Dumper *D, DNode *parent, const TlItem *it)
{
    DNode *n;

    switch (it->kind) {
    case IT_KERNEL:
        n = node(D, parent, "kernel %s", nz(it->name));
        for (int i = 0; i < it->tparams.n; i++)
            node(D, n, "dtype variable %s: %s", nz(it->tparams.v[i].name),
                 idents(D, &it->tparams.v[i].kinds, " | "));
        for (int i = 0; i < it->params.n; i++)
            dump_param(D, n, "param", &it->params.v[i], 0);
        for (int i = 0; i < it->scalars.n; i++)
            dump_param(D, n, "scalar", &it->scalars.v[i], 1);
        for (int i = 0; i < it->outputs.n; i++)
            dump_param(D, n, "output", &it->outputs.v[i], 0);
        for (int i = 0; i < it->body.n; i++)
            dump_stmt(D, n, it->body.v[i]);
        break;
    case IT_SCHEDULE:
        n = node(D, parent, "schedule %s for %s%s%s", nz(it->name),
                 nz(it->target), it->variant ? " as " : "",
                 it->variant ? it->variant : "");
        for (int i = 0; i < it->body.n; i++)
            dump_stmt(D, n, it->body.v[i]);
        break;
    case IT_EXTERN:
        n = node(D, parent, "extern %s%sfn %s -> %s",
                 it->lib ? quoted(D, it->lib) : "", it->lib ? " " : "",
                 nz(it->name), it->ret ? dt_name(it->ret) : "(none)");
        for (int i = 0; i < it->params.n; i++)
            dump_param(D, n, "param", &it->params.v[i], -1);
        break;
    case IT_IMPORT:
        node(D, parent, "import %s%s%s%s",
             it->is_file ? "file " : "",
             it->is_file ? quoted(D, it->path) : nz(it->path),
             it->alias ? " as " : "", it->alias ? it->alias : "");
        break;
    case IT_STMT:
        if (it->stmt)
            dump_stmt(D, parent, it->stmt);
        else
            node(D, parent, "statement (none)");
        break;
    default:
        tl_unreachable();
    }
}

void ast_dump_program(TlBuf *out, const TlProgram *prog)
{
    Dumper D;
    DNode *root;
    TlBuf prefix;

    arena_init(&D.arena);
    root = node(&D, NULL, "program");
    for (int i = 0; i < prog->items.n; i++)
        dump_item(&D, root, prog->items.v[i]);
    buf_puts(out, root->label);
    buf_putc(out, '\n');
    buf_init(&prefix);
    draw(out, root, &prefix);
    buf_free(&prefix);
    arena_free(&D.arena);
}
