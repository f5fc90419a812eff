/*
 * ast.c - AST constructors for the parser's grammar actions, and the
 * list helpers.  Every node lives in the session arena.
 */
#include "lang/lang.h"

#include <string.h>

/* Grows a typed list {T *v; int n, cap;} by one element of size sz and
 * returns a pointer to the new (zeroed) slot. */
static void *grow(TlSession *s, void **v, int *n, int *cap, size_t sz)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 4;
        void *nv = arena_alloc(&s->arena, (size_t)nc * sz);
        if (*n)
            memcpy(nv, *v, (size_t)*n * sz);
        *v = nv;
        *cap = nc;
    }
    return (char *)*v + (size_t)(*n)++ * sz;
}

#define PUSH(s, l, sz) grow(s, (void **)&(l)->v, &(l)->n, &(l)->cap, sz)

TlExpr *ast_expr(TlSession *s, TlExprKind k, TlLoc loc)
{
    TlExpr *e = arena_alloc(&s->arena, sizeof *e);
    e->kind = k;
    e->loc = loc;
    e->oploc = loc;
    e->rank = -1;
    return e;
}

TlExpr *ast_int(TlSession *s, TlLoc loc, int64_t v)
{
    TlExpr *e = ast_expr(s, EX_INT, loc);
    e->ival = v;
    return e;
}

TlExpr *ast_float(TlSession *s, TlLoc loc, double v, const char *text)
{
    TlExpr *e = ast_expr(s, EX_FLOAT, loc);
    e->fval = v;
    e->str = text;
    return e;
}

TlExpr *ast_name(TlSession *s, TlLoc loc, const char *name)
{
    TlExpr *e = ast_expr(s, EX_NAME, loc);
    e->str = name;
    return e;
}

TlExpr *ast_unary(TlSession *s, TlLoc loc, TlOp op, TlExpr *a)
{
    TlExpr *e = ast_expr(s, EX_UNARY, a ? loc_span(loc, a->loc) : loc);
    e->op = op;
    e->oploc = loc;
    e->a = a;
    return e;
}

TlExpr *ast_binary(TlSession *s, TlLoc oploc, TlOp op, TlExpr *a,
                   TlExpr *b)
{
    TlExpr *e = ast_expr(s, EX_BINARY, loc_span(a->loc, b->loc));
    e->op = op;
    e->oploc = oploc;
    e->a = a;
    e->b = b;
    return e;
}

TlStmt *ast_stmt(TlSession *s, TlStmtKind k, TlLoc loc)
{
    TlStmt *st = arena_alloc(&s->arena, sizeof *st);
    st->kind = k;
    st->loc = loc;
    st->end_line = loc.line;
    return st;
}

TlItem *ast_item(TlSession *s, TlItemKind k, TlLoc loc)
{
    TlItem *it = arena_alloc(&s->arena, sizeof *it);
    it->kind = k;
    it->loc = loc;
    it->end_line = loc.line;
    return it;
}

TlProgram *ast_program(TlSession *s, int file)
{
    TlProgram *p = arena_alloc(&s->arena, sizeof *p);
    p->file = file;
    return p;
}

TlLayout *ast_layout(TlSession *s, TlLayoutForm form)
{
    TlLayout *l = arena_alloc(&s->arena, sizeof *l);
    l->form = form;
    return l;
}

void ast_push_expr(TlSession *s, TlExprList *l, TlExpr *e)
{
    *(TlExpr **)PUSH(s, l, sizeof e) = e;
}

void ast_push_ident(TlSession *s, TlIdentList *l, const char *name,
                    TlLoc loc)
{
    TlIdent *id = PUSH(s, l, sizeof *id);
    id->name = name;
    id->loc = loc;
}

void ast_push_param(TlSession *s, TlParamList *l, const TlParam *p)
{
    *(TlParam *)PUSH(s, l, sizeof *p) = *p;
}

void ast_push_directive(TlSession *s, TlDirectiveList *l,
                        const TlDirective *d)
{
    *(TlDirective *)PUSH(s, l, sizeof *d) = *d;
}

void ast_push_factor(TlSession *s, TlFactorList *l,
                     const TlLayoutFactor *f)
{
    *(TlLayoutFactor *)PUSH(s, l, sizeof *f) = *f;
}

void ast_push_stmt(TlSession *s, TlStmtList *l, TlStmt *st)
{
    *(TlStmt **)PUSH(s, l, sizeof st) = st;
}

void ast_push_item(TlSession *s, TlItemList *l, TlItem *it)
{
    *(TlItem **)PUSH(s, l, sizeof it) = it;
}

void ast_push_comment(TlSession *s, TlCommentList *l, TlLoc loc,
                      const char *text)
{
    TlComment *c = PUSH(s, l, sizeof *c);
    c->loc = loc;
    c->text = text;
}

int ast_has_str(const TlExpr *e)
{
    if (!e)
        return 0;
    if (e->dtype == DT_STR || ast_has_str(e->a) || ast_has_str(e->b))
        return 1;
    for (int i = 0; i < e->args.n; i++)
        if (ast_has_str(e->args.v[i]))
            return 1;
    return 0;
}

TlLoc loc_span(TlLoc a, TlLoc b)
{
    TlLoc r = a;
    if (a.file == b.file && b.off + b.len > a.off)
        r.len = b.off + b.len - a.off;
    return r;
}

const char *op_spelling(TlOp op)
{
    static const char *const names[OP__COUNT] = {
        [OP_NONE] = "?",     [OP_ADD] = "+",       [OP_SUB] = "-",
        [OP_MUL] = "*",      [OP_DIV] = "/",       [OP_MOD] = "%",
        [OP_EQ] = "==",      [OP_NE] = "!=",       [OP_LT] = "<",
        [OP_LE] = "<=",      [OP_GT] = ">",        [OP_GE] = ">=",
        [OP_AND] = "&&",     [OP_OR] = "||",       [OP_NEG] = "-",
        [OP_NOT] = "!",      [RD_SUM] = "sum",     [RD_PROD] = "prod",
        [RD_MAX] = "max",    [RD_MIN] = "min",     [RD_ARGMAX] = "argmax",
        [RD_ARGMIN] = "argmin",
    };
    return op < OP__COUNT && names[op] ? names[op] : "?";
}
