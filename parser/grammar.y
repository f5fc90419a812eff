/*
 * grammar.y - the tdsl grammar (Lemon).  Tokens come from the driver
 * (parse.c), which has already decided which newlines end statements;
 * every action is one call to an ast_ constructor (lang/ast.c) or to a
 * helper of the %include block below.
 *
 * Error recovery: `error` is accepted where a top-level item, a kernel
 * body statement or a schedule directive starts.  After a syntax error
 * the engine pops back to the nearest such point, skips tokens up to
 * the next NEWLINE (or the `}` that closes the body), and reports no
 * new syntax error until three tokens have been shifted again, so one
 * run lists several independent mistakes without a cascade.  An item
 * whose header is broken still has its `{ ... }` body parsed (and
 * thrown away), so the body's lines do not turn into errors of their
 * own.
 */

// ====================================================================
// Lemon settings
// ====================================================================

%name prs_engine
%token_prefix TK_
%token_type {PrsTok}
%extra_context {PrsCtx *c}
%stack_size 4000
%start_symbol program

// A parse stack this deep means absurd nesting: stop, do not crash.
%stack_overflow { prs_too_deep(c, prs_here(c)); }
// One helper (at the end of this file) reports the error and what the
// parser would have accepted instead.
%syntax_error { syntax_error(c, yypParser, yymajor, &yyminor); }

// Token codes, fixed here so that grammar.h lists them in this order.
%token
    COMMENT ILLEGAL NEWLINE
    IDENT INT FLOAT STRING FACTOR DTYPE
    KERNEL SCHEDULE EXTERN IMPORT LET PRINT ASSERT TIME TARGET LAYOUT
    ON FOR IN AS FN TRUE FALSE SUM PROD MAX MIN ARGMAX ARGMIN
    LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA SEMI COLON DOT
    DOTDOT ARROW ASSIGN EQ NE LT LE GT GE PLUS MINUS STAR SLASH PERCENT
    AND OR NOT AT PIPE TARGS.

// Precedence, lowest first (docs/frontend-decisions.md, "Expressions").
%right REDUCE ON.              // sum(k) body, e on T: reach far right
%left OR.                      // ||
%left AND.                     // &&
%nonassoc EQ NE LT LE GT GE.   // a < b < c is an error
%left PLUS MINUS.              // binary + -
%left STAR SLASH PERCENT.      // * / %
%right NOT.                    // unary - and !
%nonassoc MAXCALL.             // max(a, b), a dtype name: end before -
%nonassoc LPAREN LBRACKET.     // but not before ( [: a max body, a cast

%include {
#include "parser/parser_int.h"

#include <assert.h>
#include <string.h>

/* --- tokens -------------------------------------------------------- */

/* The token's text as a string in the arena. */
static const char *tok_str(PrsCtx *c, const PrsTok *t)
{
    return arena_strndup(&c->s->arena, t->text, (size_t)t->len);
}

/* A dotted name `a.b.c`, kept as one token whose text is the joined
 * name (in the arena) and whose location spans it. */
static PrsTok tok_join(PrsCtx *c, const PrsTok *a, const PrsTok *b)
{
    PrsTok r = *a;
    char *s = arena_printf(&c->s->arena, "%.*s.%.*s", a->len, a->text,
                           b->len, b->text);

    r.text = s;
    r.len = (int)strlen(s);
    r.loc = loc_span(a->loc, b->loc);
    return r;
}

/* The value of a string literal token: escapes decoded, quotes gone.
 * The lexer has reported bad escapes; they decode to the character
 * itself.  NUL bytes (reported too) are dropped. */
static const char *tok_string(PrsCtx *c, const PrsTok *t)
{
    const char *p = t->text + 1, *end = t->text + t->len;
    char *out, *o;

    if (end > p && end[-1] == '"' && t->len >= 2)
        end--;
    out = o = arena_alloc(&c->s->arena, (size_t)(end - p) + 1);
    for (; p < end; p++) {
        if (*p == '\\' && p + 1 < end) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else if (*p) {
            *o++ = *p;
        }
    }
    *o = 0;
    return out;
}

static int loc_end(TlLoc l)
{
    return l.off + l.len;
}

/* The line on which the text ending at `loc` ends. */
static int end_line(PrsCtx *c, TlLoc loc)
{
    return lex_line_of(&c->lx, loc_end(loc) > loc.off ? loc_end(loc) - 1
                                                      : loc.off);
}

/* Whether a blank line lies strictly between lines a and b. */
static int blank_between(PrsCtx *c, int a, int b)
{
    for (int l = a + 1; l < b; l++)
        if (lex_line_blank(&c->lx, l))
            return 1;
    return 0;
}

/* --- the depth guard ----------------------------------------------- */

/* Refuses (fatally) an expression tree deeper than PRS_MAX_EXPR_DEPTH,
 * which left-recursive chains such as a+b+c+... build without deep
 * brackets.  Walks with an explicit stack: no recursion here either. */
static void check_depth(PrsCtx *c, const TlExpr *root)
{
    int n = 0;

    if (!root)
        return;
    if (!c->dstack) {
        c->dcap = 256;
        c->dstack = tl_xmalloc((size_t)c->dcap * sizeof *c->dstack);
    }
    c->dstack[n++] = (struct PrsDepth){root, 1};
    while (n > 0) {
        struct PrsDepth top = c->dstack[--n];
        const TlExpr *e = top.e;
        const TlExpr *kids[3] = {e->a, e->b, e->c};
        if (top.depth > PRS_MAX_EXPR_DEPTH)
            diag_fatal(c->s, root->loc, DIAG_TOO_DEEP, PRS_MAX_EXPR_DEPTH);
        if (n + 3 + e->args.n > c->dcap) {
            while (n + 3 + e->args.n > c->dcap)
                c->dcap *= 2;
            c->dstack = tl_xrealloc(c->dstack,
                                    (size_t)c->dcap * sizeof *c->dstack);
        }
        for (int i = 0; i < 3; i++)
            if (kids[i])
                c->dstack[n++] = (struct PrsDepth){kids[i], top.depth + 1};
        for (int i = 0; i < e->args.n; i++)
            if (e->args.v[i])
                c->dstack[n++] =
                    (struct PrsDepth){e->args.v[i], top.depth + 1};
    }
}

static void check_list_depth(PrsCtx *c, const TlExprList *l)
{
    for (int i = 0; i < l->n; i++)
        check_depth(c, l->v[i]);
}

static void check_params_depth(PrsCtx *c, const TlParamList *l)
{
    for (int i = 0; i < l->n; i++) {
        check_list_depth(c, &l->v[i].shape);
        check_depth(c, l->v[i].init);
    }
}

static void check_stmt_depth(PrsCtx *c, const TlStmt *st)
{
    check_depth(c, st->value);
    if (st->decl)
        check_list_depth(c, &st->decl->shape);
    for (int i = 0; i < st->dirs.n; i++)
        check_list_depth(c, &st->dirs.v[i].args);
}

/* --- lists ---------------------------------------------------------- */

static TlExprList elist0(void)
{
    return (TlExprList){0};
}

static TlExprList elist1(PrsCtx *c, TlExpr *e)
{
    TlExprList l = {0};
    ast_push_expr(c->s, &l, e);
    return l;
}

static TlIdentList ilist0(void)
{
    return (TlIdentList){0};
}

static TlIdentList ilist1(PrsCtx *c, const PrsTok *t)
{
    TlIdentList l = {0};
    ast_push_ident(c->s, &l, tok_str(c, t), t->loc);
    return l;
}

static void ilist_add(PrsCtx *c, TlIdentList *l, const PrsTok *t)
{
    ast_push_ident(c->s, l, tok_str(c, t), t->loc);
}

static TlParamList plist0(void)
{
    return (TlParamList){0};
}

static TlParamList plist1(PrsCtx *c, const TlParam *p)
{
    TlParamList l = {0};
    ast_push_param(c->s, &l, p);
    return l;
}

/* Tensor and scalar parameters of a kernel, as written. */
typedef struct PrsParams {
    TlParamList t, s;
} PrsParams;

static PrsParams params2(TlParamList t, TlParamList s)
{
    return (PrsParams){t, s};
}

/* A kernel's outputs and whether they were in parentheses. */
typedef struct PrsOuts {
    TlParamList l;
    int parens;
} PrsOuts;

static PrsOuts outs(TlParamList l, int parens)
{
    return (PrsOuts){l, parens};
}

/* `..i` on a stage's left side: the last name added is a pack. */
static void ilist_pack(TlIdentList *l)
{
    l->v[l->n - 1].pack = 1;
}

/* `i in lo..hi` on a stage's left side: the last name's range. */
static void ilist_range(TlIdentList *l, TlExpr *lo, TlExpr *hi)
{
    l->v[l->n - 1].lo = lo;
    l->v[l->n - 1].hi = hi;
}

/* A dtype variable `T: float | i32` (kinds as written). */
static TlTypeParam tvar(PrsCtx *c, const PrsTok *n, const TlIdentList *k)
{
    TlTypeParam t = {tok_str(c, n), n->loc, *k};
    return t;
}

/* Appends a dtype variable to a kernel's list (l->n == 0: a new one). */
static void tvar_add(PrsCtx *c, TlTypeParamList *l, const TlTypeParam *t)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        TlTypeParam *v = arena_alloc(&c->s->arena, (size_t)cap * sizeof *v);
        if (l->n)
            memcpy(v, l->v, (size_t)l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *t;
}

static TlFactorList flist1(PrsCtx *c, const TlLayoutFactor *f)
{
    TlFactorList l = {0};
    ast_push_factor(c->s, &l, f);
    return l;
}

/* --- expressions ---------------------------------------------------- */

static TlExpr *mk_name(PrsCtx *c, const PrsTok *t)
{
    return ast_name(c->s, t->loc, tok_str(c, t));
}

static TlExpr *un(PrsCtx *c, const PrsTok *o, TlOp op, TlExpr *a)
{
    return ast_unary(c->s, o->loc, op, a);
}

static TlExpr *bin(PrsCtx *c, const PrsTok *o, TlOp op, TlExpr *a,
                   TlExpr *b)
{
    return ast_binary(c->s, o->loc, op, a, b);
}

static TlExpr *mk_int(PrsCtx *c, const PrsTok *t)
{
    TlExpr *e = ast_int(c->s, t->loc, t->v.i);
    /* Hex keeps its spelling for the printer. */
    if (t->len > 2 && (t->text[1] == 'x' || t->text[1] == 'X'))
        e->str = tok_str(c, t);
    return e;
}

static TlExpr *mk_float(PrsCtx *c, const PrsTok *t)
{
    return ast_float(c->s, t->loc, t->v.f, tok_str(c, t));
}

static TlExpr *mk_string(PrsCtx *c, const PrsTok *t)
{
    TlExpr *e = ast_expr(c->s, EX_STR, t->loc);
    e->str = tok_string(c, t);
    return e;
}

static TlExpr *mk_bool(PrsCtx *c, const PrsTok *t, int v)
{
    TlExpr *e = ast_expr(c->s, EX_BOOL, t->loc);
    e->ival = v;
    return e;
}

static TlExpr *mk_paren(PrsCtx *c, const PrsTok *l, TlExpr *e,
                        const PrsTok *r)
{
    (void)c;
    e->parens = 1;
    e->loc = loc_span(l->loc, r->loc);
    return e;
}

static TlExpr *mk_list(PrsCtx *c, const PrsTok *l, const TlExprList *v,
                       const PrsTok *r)
{
    TlExpr *e = ast_expr(c->s, EX_LIST, loc_span(l->loc, r->loc));
    e->args = *v;
    return e;
}

static TlExpr *mk_cast(PrsCtx *c, const PrsTok *t, TlExpr *a,
                       const PrsTok *r)
{
    TlExpr *e = ast_expr(c->s, EX_CAST, loc_span(t->loc, r->loc));
    e->dtype = dt_from_name(t->text, (size_t)t->len);
    e->a = a;
    return e;
}

/* `..name`: a pack (a shape entry or an index list entry). */
static TlExpr *mk_pack(PrsCtx *c, const PrsTok *dots, const PrsTok *n)
{
    TlExpr *e = ast_name(c->s, loc_span(dots->loc, n->loc), tok_str(c, n));

    e->ival = 1;
    return e;
}

static TlExpr *mk_member(PrsCtx *c, TlExpr *a, const PrsTok *n)
{
    TlExpr *e = ast_expr(c->s, EX_MEMBER, loc_span(a->loc, n->loc));
    e->a = a;
    e->str = tok_str(c, n);
    e->oploc = n->loc;
    return e;
}

static TlExpr *mk_index(PrsCtx *c, TlExpr *a, const TlExprList *v,
                        const PrsTok *r)
{
    TlExpr *e = ast_expr(c->s, EX_INDEX, loc_span(a->loc, r->loc));
    e->a = a;
    e->args = *v;
    return e;
}

/* A range `k in a..b` belongs only in a reduction header.  (The order
 * of positional and named arguments is the checker's business: it
 * knows the callee.) */
static void check_args(PrsCtx *c, const TlExprList *v)
{
    for (int i = 0; i < v->n; i++) {
        const TlExpr *a = v->v[i];
        if (a->kind == EX_NAME && a->b)
            diag_error(c->s, a->loc, DIAG_RANGE_OUTSIDE_REDUCTION, a->str);
    }
}

static TlExpr *mk_call(PrsCtx *c, TlExpr *f, const TlExprList *v,
                       const PrsTok *r)
{
    TlExpr *e = ast_expr(c->s, EX_CALL, loc_span(f->loc, r->loc));

    if (f->kind != EX_NAME && f->kind != EX_MEMBER)
        diag_error(c->s, f->loc, DIAG_BAD_CALLEE);
    check_args(c, v);
    e->a = f;
    e->args = *v;
    return e;
}

/* `f<f16, T>(args)`: a call with explicit dtype arguments (the `<` is
 * the driver's TARGS token, o; the types end at the `>`, g). */
static TlExpr *mk_tcall(PrsCtx *c, TlExpr *f, const PrsTok *o,
                        const TlExprList *t, const PrsTok *g,
                        const TlExprList *v, const PrsTok *r)
{
    TlExpr *e = mk_call(c, f, v, r);

    e->b = mk_list(c, o, t, g);
    return e;
}

/* `max(a, b)` / `min(a, b)`: a call of the binary builtin. */
static TlExpr *mk_minmax(PrsCtx *c, const PrsTok *k, const TlExprList *v,
                         const PrsTok *r)
{
    return mk_call(c, ast_name(c->s, k->loc, tok_str(c, k)), v, r);
}

static TlExpr *mk_named(PrsCtx *c, const PrsTok *n, TlExpr *a)
{
    TlExpr *e = ast_expr(c->s, EX_NAMED, loc_span(n->loc, a->loc));
    e->str = tok_str(c, n);
    e->a = a;
    return e;
}

/* `k in lo..hi`: a name with its range (reduction headers only). */
static TlExpr *mk_range(PrsCtx *c, const PrsTok *n, TlExpr *lo,
                        TlExpr *hi)
{
    TlExpr *e = ast_name(c->s, loc_span(n->loc, hi->loc), tok_str(c, n));
    e->a = lo;
    e->b = hi;
    return e;
}

/* A reduction, its kind from keyword k; the header's arguments must
 * be reduction variables. */
static TlExpr *mk_reduce(PrsCtx *c, const PrsTok *k, const TlExprList *v,
                         TlExpr *body)
{
    TlExpr *e = ast_expr(c->s, EX_REDUCE, loc_span(k->loc, body->loc));
    TlOp op = k->kind == TK_SUM      ? RD_SUM
              : k->kind == TK_PROD   ? RD_PROD
              : k->kind == TK_MAX    ? RD_MAX
              : k->kind == TK_MIN    ? RD_MIN
              : k->kind == TK_ARGMAX ? RD_ARGMAX
                                     : RD_ARGMIN;

    if (v->n == 0)
        diag_error(c->s, k->loc, DIAG_NO_RVARS, op_spelling(op));
    for (int i = 0; i < v->n; i++)
        if (v->v[i]->kind != EX_NAME)
            diag_error(c->s, v->v[i]->loc, DIAG_BAD_RVAR);
    e->op = op;
    e->oploc = k->loc;
    e->args = *v;
    e->a = body;
    return e;
}

static TlExpr *mk_on(PrsCtx *c, TlExpr *a, const PrsTok *t)
{
    TlExpr *e = ast_expr(c->s, EX_ON, loc_span(a->loc, t->loc));
    e->a = a;
    e->str = tok_str(c, t);
    return e;
}

/* A slice lo:hi or lo:hi:step; any part may be missing. */
static TlExpr *slice(PrsCtx *c, TlExpr *lo, const PrsTok *colon,
                        TlExpr *hi, const PrsTok *colon2, TlExpr *step)
{
    TlLoc from = lo ? lo->loc : colon->loc;
    TlLoc to = step ? step->loc : colon2 ? colon2->loc
                      : hi ? hi->loc : colon->loc;
    TlExpr *e = ast_expr(c->s, EX_SLICE, loc_span(from, to));

    e->a = lo;
    e->b = hi;
    e->c = step;
    e->ival = colon2 != NULL;
    e->oploc = colon->loc;
    return e;
}

/* --- parameters ----------------------------------------------------- */

/* A tensor parameter (with its shape) or a scalar one (shape NULL,
 * perhaps with a default).  A type written as a name is a dtype
 * variable (generic kernels). */
static TlParam *mk_param(PrsCtx *c, const PrsTok *n, const PrsTok *t,
                         const TlExprList *shape, TlExpr *init)
{
    TlParam *p = arena_alloc(&c->s->arena, sizeof *p);

    p->name = tok_str(c, n);
    p->loc = n->loc;
    if (t->kind == TK_IDENT)
        p->dtype_var = tok_str(c, t);
    else
        p->dtype = dt_from_name(t->text, (size_t)t->len);
    p->type_loc = t->loc;
    p->is_scalar = shape == NULL;
    if (shape)
        p->shape = *shape;
    p->init = init;
    return p;
}

/* --- statements ----------------------------------------------------- */

/* Fills in where a statement ends (the text ending at `last`). */
static TlStmt *stmt_end(PrsCtx *c, TlStmt *st, TlLoc last)
{
    st->end_line = end_line(c, last);
    return st;
}

static TlStmt *mk_stage(PrsCtx *c, const PrsTok *n, const TlIdentList *v,
                        TlExpr *e)
{
    TlStmt *st = ast_stmt(c->s, ST_STAGE, n->loc);

    st->name = tok_str(c, n);
    st->name_loc = n->loc;
    st->names = *v;
    st->value = e;
    return stmt_end(c, st, e->loc);
}

/* `a, b = e` in a kernel (ST_BIND, k NULL) or `let a, b = e` (ST_LET,
 * k the `let` keyword). */
static TlStmt *mk_bind(PrsCtx *c, const PrsTok *k, const TlIdentList *v,
                       TlExpr *e)
{
    TlStmt *st = ast_stmt(c->s, k ? ST_LET : ST_BIND,
                          k ? k->loc : v->v[0].loc);

    st->names = *v;
    st->value = e;
    return stmt_end(c, st, e->loc);
}

/* `let NAME: f32[64, 3] = e`: a let with its type (one name). */
static TlStmt *mk_let_decl(PrsCtx *c, const PrsTok *k, TlParam *p,
                           TlExpr *e)
{
    TlStmt *st = ast_stmt(c->s, ST_LET, k->loc);

    ast_push_ident(c->s, &st->names, p->name, p->loc);
    st->decl = p;
    st->value = e;
    return stmt_end(c, st, e->loc);
}

/* print / assert / time e, or a bare expression (k NULL). */
static TlStmt *mk_kw(PrsCtx *c, TlStmtKind kind, const PrsTok *k,
                          TlExpr *e)
{
    TlStmt *st = ast_stmt(c->s, kind, k ? k->loc : e->loc);

    st->value = e;
    return stmt_end(c, st, e->loc);
}

/* `assert e, "message"` in a kernel: the message is kept as the
 * string expression, so the printer writes it back as written. */
static TlStmt *mk_kassert(PrsCtx *c, const PrsTok *k, TlExpr *e,
                          const PrsTok *m)
{
    TlStmt *st = ast_stmt(c->s, ST_ASSERT, k->loc);

    st->value = e;
    st->msg = mk_string(c, m);
    return stmt_end(c, st, m->loc);
}

static TlStmt *mk_target(PrsCtx *c, const PrsTok *k, const PrsTok *n)
{
    TlStmt *st = ast_stmt(c->s, ST_TARGET, k->loc);

    st->name = tok_str(c, n);
    st->name_loc = n->loc;
    return stmt_end(c, st, n->loc);
}

/* One `.name(args)` link of a directive chain, and where it ends. */
typedef struct PrsLink {
    TlDirective *d;
    TlLoc end;
} PrsLink;

/* The links of a chain so far, and where the last one ends. */
typedef struct PrsLinks {
    TlDirectiveList l;
    TlLoc end;
} PrsLinks;

static PrsLink mk_link(PrsCtx *c, const PrsTok *n, const TlExprList *v,
                       const PrsTok *r)
{
    TlDirective *d = arena_alloc(&c->s->arena, sizeof *d);

    check_args(c, v);
    d->name = tok_str(c, n);
    d->loc = n->loc;
    d->args = *v;
    return (PrsLink){d, r->loc};
}

/* Appends a link to the chain so far (l NULL: a new chain). */
static PrsLinks links_add(PrsCtx *c, const PrsLinks *l, const PrsLink *d)
{
    PrsLinks r = {{0}, d->end};

    if (l)
        r.l = l->l;
    ast_push_directive(c->s, &r.l, d->d);
    return r;
}

/* `a.b.c.dir(...).dir(...)`. */
static TlStmt *mk_directive(PrsCtx *c, const TlIdentList *path,
                            const PrsLinks *l)
{
    TlStmt *st = ast_stmt(c->s, ST_DIRECTIVE, path->v[0].loc);

    st->name = path->v[path->n - 1].name;
    st->name_loc = path->v[path->n - 1].loc;
    st->names = *path;
    st->dirs = l->l;
    return stmt_end(c, st, l->end);
}

/* --- layouts -------------------------------------------------------- */

static TlLayoutFactor *mk_factor(PrsCtx *c, const PrsTok *t,
                                 const PrsTok *stride)
{
    TlLayoutFactor *f = arena_alloc(&c->s->arena, sizeof *f);

    f->n = t->v.i;
    f->loc = t->loc;
    if (t->kind == TK_FACTOR) {
        const char *us = memchr(t->text, '_', (size_t)t->len);
        f->level = arena_strndup(&c->s->arena, us + 1,
                                 (size_t)(t->text + t->len - us - 1));
    }
    if (stride) {
        f->stride = stride->v.i;
        f->loc = loc_span(t->loc, stride->loc);
    }
    return f;
}

/* `axis@LEVEL` of the compact form. */
static TlLayoutFactor *mk_axis_factor(PrsCtx *c, const PrsTok *a,
                                      const PrsTok *l)
{
    TlLayoutFactor *f = arena_alloc(&c->s->arena, sizeof *f);

    f->axis = tok_str(c, a);
    f->level = tok_str(c, l);
    f->loc = loc_span(a->loc, l->loc);
    return f;
}

/* A layout and where its text ends. */
typedef struct PrsLayout {
    TlLayout *lay;
    TlLoc end;
} PrsLayout;

static PrsLayout lay_end(TlLayout *lay, const PrsTok *last)
{
    return (PrsLayout){lay, last->loc};
}

static PrsLayout compact(PrsCtx *c, const TlFactorList *l,
                         const PrsTok *last)
{
    TlLayout *lay = ast_layout(c->s, LAYOUT_COMPACT);
    lay->compact = *l;
    return lay_end(lay, last);
}

/* Adds one parenthesised axis to a canonical layout (made when lay is
 * NULL). */
static TlLayout *add_axis(PrsCtx *c, TlLayout *lay, const TlFactorList *l)
{
    if (!lay)
        lay = ast_layout(c->s, LAYOUT_CANONICAL);
    if (lay->axes.n == lay->axes.cap) {
        int cap = lay->axes.cap ? lay->axes.cap * 2 : 4;
        TlFactorList *v = arena_alloc(&c->s->arena, (size_t)cap * sizeof *v);
        if (lay->axes.n)
            memcpy(v, lay->axes.v, (size_t)lay->axes.n * sizeof *v);
        lay->axes.v = v;
        lay->axes.cap = cap;
    }
    lay->axes.v[lay->axes.n++] = *l;
    return lay;
}

/* `; B@[levels]`: the levels that hold a replica. */
static PrsLayout bcast(PrsCtx *c, const PrsLayout *l, const PrsTok *b,
                       const TlIdentList *levels, const PrsTok *last)
{
    if (b->len != 1 || b->text[0] != 'B')
        diag_error(c->s, b->loc, DIAG_BAD_BROADCAST, tok_str(c, b));
    l->lay->bcast = *levels;
    return lay_end(l->lay, last);
}

static TlStmt *mk_layout(PrsCtx *c, const PrsTok *k, const PrsTok *n,
                         const PrsLayout *l)
{
    TlStmt *st = ast_stmt(c->s, ST_LAYOUT, k->loc);

    st->name = tok_str(c, n);
    st->name_loc = n->loc;
    st->layout = l->lay;
    return stmt_end(c, st, l->end);
}

/* --- items ---------------------------------------------------------- */

static TlItem *mk_kernel(PrsCtx *c, const PrsTok *k, const PrsTok *n,
                         const TlTypeParamList *tv, const PrsParams *p,
                         const PrsOuts *o)
{
    TlItem *it = ast_item(c->s, IT_KERNEL, k->loc);

    it->name = tok_str(c, n);
    it->name_loc = n->loc;
    if (tv)
        it->tparams = *tv;
    it->params = p->t;
    it->scalars = p->s;
    it->outputs = o->l;
    it->out_parens = o->parens;
    return it;
}

static TlItem *mk_schedule(PrsCtx *c, const PrsTok *k, const PrsTok *n,
                           const PrsTok *target, const PrsTok *variant)
{
    TlItem *it = ast_item(c->s, IT_SCHEDULE, k->loc);

    it->name = tok_str(c, n);
    it->name_loc = n->loc;
    it->target = tok_str(c, target);
    it->target_loc = target->loc;
    if (variant) {
        it->variant = tok_str(c, variant);
        it->variant_loc = variant->loc;
    }
    return it;
}

/* `extern ["lib"] fn NAME(params) -> T` (lib NULL when not written). */
static TlItem *mk_extern(PrsCtx *c, const PrsTok *k, const PrsTok *lib,
                         const PrsTok *n, const TlParamList *p,
                         const PrsTok *ret)
{
    TlItem *it = ast_item(c->s, IT_EXTERN, k->loc);

    it->name = tok_str(c, n);
    it->name_loc = n->loc;
    if (lib) {
        it->lib = tok_string(c, lib);
        it->lib_loc = lib->loc;
    }
    it->params = *p;
    it->ret = dt_from_name(ret->text, (size_t)ret->len);
    it->ret_loc = ret->loc;
    it->end_line = end_line(c, ret->loc);
    return it;
}

/* `import std.nn [as nn]` (p a joined name) or `import "f" [as k]`. */
static TlItem *mk_import(PrsCtx *c, const PrsTok *k, const PrsTok *p,
                         const PrsTok *alias)
{
    TlItem *it = ast_item(c->s, IT_IMPORT, k->loc);

    it->is_file = p->kind == TK_STRING;
    it->path = it->is_file ? tok_string(c, p) : tok_str(c, p);
    it->name_loc = p->loc;
    if (alias) {
        it->alias = tok_str(c, alias);
        it->alias_loc = alias->loc;
    }
    it->end_line = end_line(c, alias ? alias->loc : p->loc);
    return it;
}

static TlItem *mk_stmt_item(PrsCtx *c, TlStmt *st)
{
    TlItem *it = ast_item(c->s, IT_STMT, st->loc);

    it->stmt = st;
    it->end_line = st->end_line;
    return it;
}

/* A kernel or schedule body is open: remember the line of its `{` in
 * end_line until the `}` sets it, for the first statement's blank
 * line. */
static TlItem *block_open(PrsCtx *c, TlItem *it, const PrsTok *brace)
{
    (void)c;
    it->end_line = brace->loc.line;
    return it;
}

/* Appends a body statement (st NULL after a syntax error). */
static TlItem *body_add(PrsCtx *c, TlItem *it, TlStmt *st)
{
    int prev;

    if (!st)
        return it;
    prev = it->body.n ? it->body.v[it->body.n - 1]->end_line
                      : it->end_line;
    st->blank_before = blank_between(c, prev, st->loc.line);
    check_stmt_depth(c, st);
    ast_push_stmt(c->s, &it->body, st);
    return it;
}

static TlItem *block_close(PrsCtx *c, TlItem *it, TlStmt *last,
                           const PrsTok *brace)
{
    body_add(c, it, last);
    it->end_line = brace->loc.line;
    return it;
}

/* Appends a finished top-level item to the program. */
static void add_item(PrsCtx *c, TlItem *it)
{
    TlItemList *l = &c->prog->items;
    int prev = l->n ? l->v[l->n - 1]->end_line : 0;

    it->blank_before = blank_between(c, prev, it->loc.line);
    check_params_depth(c, &it->params);
    check_params_depth(c, &it->scalars);
    check_params_depth(c, &it->outputs);
    if (it->stmt) {
        it->stmt->blank_before = it->blank_before;
        check_stmt_depth(c, it->stmt);
    }
    ast_push_item(c->s, l, it);
}

static void syntax_error(PrsCtx *c, void *engine, int kind,
                         const PrsTok *tok);
}

// ====================================================================
// Programs and items
// ====================================================================

// A program is a sequence of items, each ending with a newline (the
// driver supplies one at the end of the input).  A broken item is
// skipped to its newline; one whose header is broken before its `{`
// has its body parsed and dropped.
program ::= items.

items ::= .
items ::= items item(I) NEWLINE.            { add_item(c, I); }
items ::= items error NEWLINE.
items ::= items skipped_block NEWLINE.

%type item {TlItem *}
item(A) ::= kernel(A).
item(A) ::= schedule(A).
item(A) ::= extern(A).
item(A) ::= import(A).
item(A) ::= tstmt(S).                       { A = mk_stmt_item(c, S); }

// The body of an item whose header had a syntax error: statements of
// either kind are accepted, so that its lines are not misread.
skipped_block ::= skipped_open RBRACE.
skipped_block ::= skipped_open any_stmt RBRACE.
skipped_block ::= skipped_open error RBRACE.
skipped_open ::= error LBRACE.
skipped_open ::= skipped_open any_stmt NEWLINE.
skipped_open ::= skipped_open error NEWLINE.
any_stmt ::= kstmt.
any_stmt ::= sstmt.

// ====================================================================
// Imports and externs
// ====================================================================

// import std.nn [as nn]   |   import "path/file.tdsl" [as k]
%type import {TlItem *}
import(A) ::= IMPORT(K) qname(P).           { A = mk_import(c, &K, &P, 0); }
import(A) ::= IMPORT(K) qname(P) AS IDENT(N).
                                            { A = mk_import(c, &K, &P, &N); }
import(A) ::= IMPORT(K) STRING(P).          { A = mk_import(c, &K, &P, 0); }
import(A) ::= IMPORT(K) STRING(P) AS IDENT(N).
                                            { A = mk_import(c, &K, &P, &N); }

// A dotted name a.b.c, joined into one token.
%type qname {PrsTok}
qname(A) ::= IDENT(A).
qname(A) ::= qname(B) DOT IDENT(C).         { A = tok_join(c, &B, &C); }

// extern ["libm.so.6"] fn erff(x: f32) -> f32
%type extern {TlItem *}
extern(A) ::= EXTERN(K) FN IDENT(N) LPAREN xparams(P) RPAREN ARROW DTYPE(T).
                                { A = mk_extern(c, &K, 0, &N, &P, &T); }
extern(A) ::= EXTERN(K) STRING(L) FN IDENT(N) LPAREN xparams(P) RPAREN
              ARROW DTYPE(T).
                                { A = mk_extern(c, &K, &L, &N, &P, &T); }

// Extern parameters: scalars `x: f32` or tensors `x: f32[N]`.
%type xparams {TlParamList}
xparams(A) ::= .                            { A = plist0(); }
xparams(A) ::= xplist(A).
%type xplist {TlParamList}
xplist(A) ::= xparam(P).                    { A = plist1(c, P); }
xplist(A) ::= xplist(A) COMMA xparam(P).    { ast_push_param(c->s, &A, P); }
%type xparam {TlParam *}
xparam(A) ::= tparam(A).
xparam(A) ::= IDENT(N) COLON DTYPE(T).      { A = mk_param(c, &N, &T, 0, 0); }

// ====================================================================
// Kernels
// ====================================================================

// kernel NAME(TENSORS [; SCALARS]) -> OUTPUTS { STATEMENTS }
// Statements are attached to the item as they are parsed, so a syntax
// error in one loses only that statement.
%type kernel {TlItem *}
%type kernel_open {TlItem *}
%type kernel_head {TlItem *}
kernel_head(A) ::= KERNEL(K) IDENT(N) LPAREN kparams(P) RPAREN ARROW
                   outputs(O).
                                    { A = mk_kernel(c, &K, &N, 0, &P, &O); }
kernel_head(A) ::= KERNEL(K) IDENT(N) LT tvars(V) GT LPAREN kparams(P)
                   RPAREN ARROW outputs(O).
                                    { A = mk_kernel(c, &K, &N, &V, &P, &O); }

// Dtype variables of a generic kernel: `<T: float, U: f32 | f64>`.
%type tvars {TlTypeParamList}
tvars(A) ::= tvar(T).                   { A = (TlTypeParamList){0};
                                          tvar_add(c, &A, &T); }
tvars(A) ::= tvars(A) COMMA tvar(T).    { tvar_add(c, &A, &T); }
%type tvar {TlTypeParam}
tvar(A) ::= IDENT(N) COLON kinds(K).    { A = tvar(c, &N, &K); }
%type kinds {TlIdentList}
kinds(A) ::= kind(K).                   { A = ilist1(c, &K); }
kinds(A) ::= kinds(A) PIPE kind(K).     { ilist_add(c, &A, &K); }
// A kind name (checked by the checker) or a dtype.
%type kind {PrsTok}
kind(A) ::= IDENT(A).
kind(A) ::= DTYPE(A).
kernel_open(A) ::= kernel_head(H) LBRACE(B).
                                            { A = block_open(c, H, &B); }
kernel_open(A) ::= kernel_open(B) kstmt(S) NEWLINE.
                                            { A = body_add(c, B, S); }
kernel_open(A) ::= kernel_open(A) error NEWLINE.
kernel(A) ::= kernel_open(B) RBRACE(R).     { A = block_close(c, B, 0, &R); }
kernel(A) ::= kernel_open(B) kstmt(S) RBRACE(R).
                                            { A = block_close(c, B, S, &R); }
kernel(A) ::= kernel_open(B) error RBRACE(R).
                                            { A = block_close(c, B, 0, &R); }

// Parameters: tensors, then optionally `;` and scalars.
%type kparams {PrsParams}
kparams(A) ::= tparams(T).                  { A = params2(T, plist0()); }
kparams(A) ::= tparams(T) SEMI sparams(S).  { A = params2(T, S); }
%type tparams {TlParamList}
tparams(A) ::= .                            { A = plist0(); }
tparams(A) ::= tplist(A).
%type tplist {TlParamList}
tplist(A) ::= kparam(P).                    { A = plist1(c, P); }
tplist(A) ::= tplist(A) COMMA kparam(P).    { ast_push_param(c->s, &A, P); }
%type sparams {TlParamList}
sparams(A) ::= sparam(P).                   { A = plist1(c, P); }
sparams(A) ::= sparams(A) COMMA sparam(P).  { ast_push_param(c->s, &A, P); }

// A tensor `A: f32[M, K]` (rank 0: `x: f32[]`).  In a kernel's header
// the type may be a dtype variable, `X: T[..S]`; typed lets and
// externs take a dtype.
%type tparam {TlParam *}
tparam(A) ::= IDENT(N) COLON DTYPE(T) LBRACKET shape(S) RBRACKET.
                                            { A = mk_param(c, &N, &T, &S, 0); }
%type kparam {TlParam *}
kparam(A) ::= IDENT(N) COLON ty(T) LBRACKET shape(S) RBRACKET.
                                            { A = mk_param(c, &N, &T, &S, 0); }
%type ty {PrsTok}
ty(A) ::= DTYPE(A).
ty(A) ::= IDENT(A).
// Shape entries: expressions, and packs `..S` (generic kernels).
%type shape {TlExprList}
shape(A) ::= .                              { A = elist0(); }
shape(A) ::= sentries(A).
%type sentries {TlExprList}
sentries(A) ::= sentry(E).                  { A = elist1(c, E); }
sentries(A) ::= sentries(A) COMMA sentry(E).
                                            { ast_push_expr(c->s, &A, E); }
%type sentry {TlExpr *}
sentry(A) ::= expr(A).
sentry(A) ::= DOTDOT(D) IDENT(N).           { A = mk_pack(c, &D, &N); }

// A scalar `stride: i32 [= 1]`.
%type sparam {TlParam *}
sparam(A) ::= IDENT(N) COLON ty(T).         { A = mk_param(c, &N, &T, 0, 0); }
sparam(A) ::= IDENT(N) COLON ty(T) ASSIGN expr(E).
                                            { A = mk_param(c, &N, &T, 0, E); }

// Outputs: `-> (C: f32[M, N], ...)` or one without parentheses.
%type outputs {PrsOuts}
outputs(A) ::= LPAREN tplist(L) RPAREN.     { A = outs(L, 1); }
outputs(A) ::= kparam(P).                   { A = outs(plist1(c, P), 0); }

// Body statements: a stage `name[i, j] = e` (`name[] = e` for rank 0),
// or a whole binding `t = e`, `a, b = f(x)`.
%type kstmt {TlStmt *}
kstmt(A) ::= IDENT(N) LBRACKET ivars(V) RBRACKET ASSIGN expr(E).
                                            { A = mk_stage(c, &N, &V, E); }
kstmt(A) ::= names(V) ASSIGN expr(E).       { A = mk_bind(c, 0, &V, E); }
// A precondition `assert COND, "message"` (SPEC 6.8).
kstmt(A) ::= ASSERT(K) expr(E).             { A = mk_kw(c, ST_ASSERT, &K, E); }
kstmt(A) ::= ASSERT(K) expr(E) COMMA STRING(T).
                                            { A = mk_kassert(c, &K, E, &T); }
// Index variables of a stage, and an index pack `..i` (generic kernels).
%type ivars {TlIdentList}
ivars(A) ::= .                              { A = ilist0(); }
ivars(A) ::= ivlist(A).
%type ivlist {TlIdentList}
ivlist(A) ::= IDENT(N).                     { A = ilist1(c, &N); }
ivlist(A) ::= DOTDOT IDENT(N).              { A = ilist1(c, &N);
                                              ilist_pack(&A); }
ivlist(A) ::= ivlist(A) COMMA IDENT(N).     { ilist_add(c, &A, &N); }
ivlist(A) ::= IDENT(N) IN expr(L) DOTDOT expr(H).
                                            { A = ilist1(c, &N);
                                              ilist_range(&A, L, H); }
ivlist(A) ::= ivlist(A) COMMA IDENT(N) IN expr(L) DOTDOT expr(H).
                                            { ilist_add(c, &A, &N);
                                              ilist_range(&A, L, H); }
ivlist(A) ::= ivlist(A) COMMA DOTDOT IDENT(N).
                                            { ilist_add(c, &A, &N);
                                              ilist_pack(&A); }
%type names {TlIdentList}
names(A) ::= IDENT(N).                      { A = ilist1(c, &N); }
names(A) ::= names(A) COMMA IDENT(N).       { ilist_add(c, &A, &N); }

// ====================================================================
// Schedules
// ====================================================================

// schedule KERNEL for TARGET [as VARIANT] { DIRECTIVES }
%type schedule {TlItem *}
%type schedule_open {TlItem *}
%type schedule_head {TlItem *}
schedule_head(A) ::= SCHEDULE(K) qname(N) FOR IDENT(T).
                                    { A = mk_schedule(c, &K, &N, &T, 0); }
schedule_head(A) ::= SCHEDULE(K) qname(N) FOR IDENT(T) AS IDENT(V).
                                    { A = mk_schedule(c, &K, &N, &T, &V); }
schedule_open(A) ::= schedule_head(H) LBRACE(B).
                                            { A = block_open(c, H, &B); }
schedule_open(A) ::= schedule_open(B) sstmt(S) NEWLINE.
                                            { A = body_add(c, B, S); }
schedule_open(A) ::= schedule_open(A) error NEWLINE.
schedule(A) ::= schedule_open(B) RBRACE(R). { A = block_close(c, B, 0, &R); }
schedule(A) ::= schedule_open(B) sstmt(S) RBRACE(R).
                                            { A = block_close(c, B, S, &R); }
schedule(A) ::= schedule_open(B) error RBRACE(R).
                                            { A = block_close(c, B, 0, &R); }

// A directive chain on a stage path: `conv1.Y.split(...).parallel(n)`;
// lines starting with `.` continue it (the driver sees to that).
%type sstmt {TlStmt *}
sstmt(A) ::= dpath(P) dlinks(L).            { A = mk_directive(c, &P, &L); }
%type dpath {TlIdentList}
dpath(A) ::= IDENT(N).                      { A = ilist1(c, &N); }
dpath(A) ::= dpath(A) DOT IDENT(N).         { ilist_add(c, &A, &N); }
%type dlinks {PrsLinks}
dlinks(A) ::= dlink(D).                     { A = links_add(c, 0, &D); }
dlinks(A) ::= dlinks(L) dlink(D).           { A = links_add(c, &L, &D); }
// One link `.name(args)`.
%type dlink {PrsLink}
dlink(A) ::= DOT IDENT(N) LPAREN args(V) RPAREN(R).
                                            { A = mk_link(c, &N, &V, &R); }

// layout A: [i@L2B, k@L1B, i@PE, k@W]                         compact
// layout A: ((2_L2B, 2_L1B, 32:1), (4_MAB, 4_PE, 2_W)); B@[MAB]  canonical
sstmt(A) ::= LAYOUT(K) IDENT(N) COLON layout(L).
                                            { A = mk_layout(c, &K, &N, &L); }
%type layout {PrsLayout}
layout(A) ::= lbody(A).
layout(A) ::= lbody(L) SEMI IDENT(B) AT LBRACKET names(V) RBRACKET(R).
                                            { A = bcast(c, &L, &B, &V, &R); }
%type lbody {PrsLayout}
lbody(A) ::= LBRACKET cfactors(F) RBRACKET(R).
                                            { A = compact(c, &F, &R); }
lbody(A) ::= canonical(L) RPAREN(R).        { A = lay_end(L, &R); }
%type canonical {TlLayout *}
canonical(A) ::= LPAREN axis(F).            { A = add_axis(c, 0, &F); }
canonical(A) ::= canonical(L) COMMA axis(F).
                                            { A = add_axis(c, L, &F); }
%type axis {TlFactorList}
axis(A) ::= LPAREN factors(F) RPAREN.       { A = F; }
%type factors {TlFactorList}
factors(A) ::= factor(F).                   { A = flist1(c, F); }
factors(A) ::= factors(A) COMMA factor(F).  { ast_push_factor(c->s, &A, F); }
// `n_LEVEL`, `n_LEVEL:s`, `n` or `n:s`.
%type factor {TlLayoutFactor *}
factor(A) ::= FACTOR(T).                    { A = mk_factor(c, &T, 0); }
factor(A) ::= FACTOR(T) COLON INT(S).       { A = mk_factor(c, &T, &S); }
factor(A) ::= INT(T).                       { A = mk_factor(c, &T, 0); }
factor(A) ::= INT(T) COLON INT(S).          { A = mk_factor(c, &T, &S); }
// `axis@LEVEL` of the compact form.
%type cfactors {TlFactorList}
cfactors(A) ::= cfactor(F).                 { A = flist1(c, F); }
cfactors(A) ::= cfactors(A) COMMA cfactor(F).
                                            { ast_push_factor(c->s, &A, F); }
%type cfactor {TlLayoutFactor *}
cfactor(A) ::= IDENT(X) AT IDENT(L).        { A = mk_axis_factor(c, &X, &L); }

// ====================================================================
// Top-level statements
// ====================================================================

// let a [, b] = e   let W: f32[64, 3] = e   print e   assert e
// time e   target T   e
%type tstmt {TlStmt *}
tstmt(A) ::= LET(K) names(V) ASSIGN expr(E).
                                            { A = mk_bind(c, &K, &V, E); }
tstmt(A) ::= LET(K) tparam(P) ASSIGN expr(E).
                                            { A = mk_let_decl(c, &K, P, E); }
tstmt(A) ::= PRINT(K) expr(E).              { A = mk_kw(c, ST_PRINT, &K, E); }
tstmt(A) ::= ASSERT(K) expr(E).             { A = mk_kw(c, ST_ASSERT, &K, E); }
tstmt(A) ::= TIME(K) expr(E).               { A = mk_kw(c, ST_TIME, &K, E); }
tstmt(A) ::= TARGET(K) IDENT(N).            { A = mk_target(c, &K, &N); }
tstmt(A) ::= expr(E).                       { A = mk_kw(c, ST_EXPR, 0, E); }

// ====================================================================
// Expressions
// ====================================================================

%type expr {TlExpr *}
%type postfix {TlExpr *}
%type primary {TlExpr *}

// Operators, by the precedence table at the top.
expr(A) ::= postfix(A).
expr(A) ::= MINUS(O) expr(B). [NOT]         { A = un(c, &O, OP_NEG, B); }
expr(A) ::= NOT(O) expr(B).                 { A = un(c, &O, OP_NOT, B); }
expr(A) ::= expr(B) OR(O) expr(C).          { A = bin(c, &O, OP_OR, B, C); }
expr(A) ::= expr(B) AND(O) expr(C).         { A = bin(c, &O, OP_AND, B, C); }
expr(A) ::= expr(B) EQ(O) expr(C).          { A = bin(c, &O, OP_EQ, B, C); }
expr(A) ::= expr(B) NE(O) expr(C).          { A = bin(c, &O, OP_NE, B, C); }
expr(A) ::= expr(B) LT(O) expr(C).          { A = bin(c, &O, OP_LT, B, C); }
expr(A) ::= expr(B) LE(O) expr(C).          { A = bin(c, &O, OP_LE, B, C); }
expr(A) ::= expr(B) GT(O) expr(C).          { A = bin(c, &O, OP_GT, B, C); }
expr(A) ::= expr(B) GE(O) expr(C).          { A = bin(c, &O, OP_GE, B, C); }
expr(A) ::= expr(B) PLUS(O) expr(C).        { A = bin(c, &O, OP_ADD, B, C); }
expr(A) ::= expr(B) MINUS(O) expr(C).       { A = bin(c, &O, OP_SUB, B, C); }
expr(A) ::= expr(B) STAR(O) expr(C).        { A = bin(c, &O, OP_MUL, B, C); }
expr(A) ::= expr(B) SLASH(O) expr(C).       { A = bin(c, &O, OP_DIV, B, C); }
expr(A) ::= expr(B) PERCENT(O) expr(C).     { A = bin(c, &O, OP_MOD, B, C); }
// `e on cpu`: evaluate e on a target.
expr(A) ::= expr(B) ON IDENT(T).            { A = mk_on(c, B, &T); }

// Reductions `sum(k, r in 0..R) body`; the body reaches as far right
// as it can.  `max(a, b)` with no body is the binary builtin (below).
expr(A) ::= reduce_op(K) LPAREN args(V) RPAREN expr(B). [REDUCE]
                                            { A = mk_reduce(c, &K, &V, B); }
expr(A) ::= MAX(K) LPAREN args(V) RPAREN expr(B). [REDUCE]
                                            { A = mk_reduce(c, &K, &V, B); }
expr(A) ::= MIN(K) LPAREN args(V) RPAREN expr(B). [REDUCE]
                                            { A = mk_reduce(c, &K, &V, B); }
%type reduce_op {PrsTok}
reduce_op(A) ::= SUM(A).
reduce_op(A) ::= PROD(A).
reduce_op(A) ::= ARGMAX(A).
reduce_op(A) ::= ARGMIN(A).

// Calls `f(x)`, `std.nn.relu(x)`; indexing and slicing `T[i, 0:2]`;
// members `X.zero_pad`.
postfix(A) ::= primary(A).
postfix(A) ::= postfix(F) LPAREN args(V) RPAREN(R).
                                            { A = mk_call(c, F, &V, &R); }
// `cast_to<f16>(x)`: explicit dtype arguments (TARGS is a `<` that the
// driver has recognised as opening them; SPEC 6.7).
postfix(A) ::= postfix(F) TARGS(O) targs(T) GT(G) LPAREN args(V) RPAREN(R).
                                { A = mk_tcall(c, F, &O, &T, &G, &V, &R); }
%type targs {TlExprList}
targs(A) ::= ty(T).                         { A = elist1(c, mk_name(c, &T)); }
targs(A) ::= targs(A) COMMA ty(T).
                                { ast_push_expr(c->s, &A, mk_name(c, &T)); }
postfix(A) ::= postfix(B) LBRACKET indices(V) RBRACKET(R).
                                            { A = mk_index(c, B, &V, &R); }
postfix(A) ::= postfix(B) DOT IDENT(N).     { A = mk_member(c, B, &N); }

// Literals, names, parentheses, lists `[256, 512]`, casts `f16(x)`,
// and the binary builtins max/min (keywords, because they also start
// reductions).
primary(A) ::= IDENT(T).                    { A = mk_name(c, &T); }
primary(A) ::= INT(T).                      { A = mk_int(c, &T); }
primary(A) ::= FLOAT(T).                    { A = mk_float(c, &T); }
primary(A) ::= STRING(T).                   { A = mk_string(c, &T); }
primary(A) ::= TRUE(T).                     { A = mk_bool(c, &T, 1); }
primary(A) ::= FALSE(T).                    { A = mk_bool(c, &T, 0); }
primary(A) ::= LPAREN(L) expr(E) RPAREN(R). { A = mk_paren(c, &L, E, &R); }
primary(A) ::= LBRACKET(L) list(V) RBRACKET(R).
                                            { A = mk_list(c, &L, &V, &R); }
primary(A) ::= DTYPE(T) LPAREN expr(E) RPAREN(R).
                                            { A = mk_cast(c, &T, E, &R); }
// A dtype alone names the type, as in `rand(f32, [4])`; `(` after it
// makes a cast instead.
primary(A) ::= DTYPE(T). [MAXCALL]          { A = mk_name(c, &T); }
primary(A) ::= MAX(K) LPAREN args(V) RPAREN(R). [MAXCALL]
                                            { A = mk_minmax(c, &K, &V, &R); }
primary(A) ::= MIN(K) LPAREN args(V) RPAREN(R). [MAXCALL]
                                            { A = mk_minmax(c, &K, &V, &R); }

// Comma-separated expressions (shapes, lists).
%type exprs {TlExprList}
exprs(A) ::= expr(E).                       { A = elist1(c, E); }
exprs(A) ::= exprs(A) COMMA expr(E).        { ast_push_expr(c->s, &A, E); }
%type list {TlExprList}
list(A) ::= .                               { A = elist0(); }
list(A) ::= exprs(A).

// Arguments of calls, directives and reduction headers: expressions,
// named `name = e`, and ranges `k in lo..hi` (the helpers check which
// belong where).
%type args {TlExprList}
args(A) ::= .                               { A = elist0(); }
args(A) ::= arglist(A).
%type arglist {TlExprList}
arglist(A) ::= arg(E).                      { A = elist1(c, E); }
arglist(A) ::= arglist(A) COMMA arg(E).     { ast_push_expr(c->s, &A, E); }
%type arg {TlExpr *}
arg(A) ::= expr(A).
arg(A) ::= IDENT(N) ASSIGN expr(E).         { A = mk_named(c, &N, E); }
arg(A) ::= IDENT(N) IN expr(L) DOTDOT expr(H).
                                            { A = mk_range(c, &N, L, H); }

// Index lists: expressions and slices `a:b`, `:`, `::2`, `a:b:c`.
%type indices {TlExprList}
indices(A) ::= .                            { A = elist0(); }
indices(A) ::= idxlist(A).
%type idxlist {TlExprList}
idxlist(A) ::= idx(E).                      { A = elist1(c, E); }
idxlist(A) ::= idxlist(A) COMMA idx(E).     { ast_push_expr(c->s, &A, E); }
%type idx {TlExpr *}
idx(A) ::= expr(A).
idx(A) ::= DOTDOT(D) IDENT(N).              { A = mk_pack(c, &D, &N); }
idx(A) ::= eopt(L) COLON(C) eopt(H).        { A = slice(c, L, &C, H, 0, 0); }
idx(A) ::= eopt(L) COLON(C) eopt(H) COLON(D) eopt(S).
                                            { A = slice(c, L, &C, H, &D, S); }
%type eopt {TlExpr *}
eopt(A) ::= .                               { A = NULL; }
eopt(A) ::= expr(A).

// ====================================================================
// Syntax error messages
// ====================================================================

%code {
/* ---- what the parser would have accepted -------------------------- */

/* The engine's stack as state numbers: st[0..top]. */
typedef struct Stack {
    YYACTIONTYPE *st;
    int top;
} Stack;

/* Plays terminal `tok` on stack k as the engine would, the reductions
 * on a small overlay, leaving k untouched.  Returns whether tok would
 * be shifted (or accepted); *where gets the depth and state at which
 * it stops. */
static int play(const Stack *k, int tok, int *depth, YYACTIONTYPE *state)
{
    enum { OVERLAY = 64 };
    YYACTIONTYPE over[OVERLAY];
    int n = 0, base = k->top;
    YYACTIONTYPE at = k->st[base];

    for (int guard = 0; guard < 1000; guard++) {
        YYACTIONTYPE act = yy_find_shift_action((YYCODETYPE)tok, at);
        *depth = base + n;
        *state = at;
        if (act >= YY_MIN_REDUCE) {
            int rule = act - YY_MIN_REDUCE;
            int pop = -yyRuleInfoNRhs[rule];
            for (; pop > 0 && n > 0; pop--)
                n--;
            base -= pop;
            if (base < 0 || n == OVERLAY)
                return 0;
            at = n ? over[n - 1] : k->st[base];
            at = yy_find_reduce_action(at, yyRuleInfoLhs[rule]);
            over[n++] = at;
        } else {
            return act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION;
        }
    }
    return 0;
}

static int accepts(const Stack *k, int tok)
{
    int depth;
    YYACTIONTYPE state;

    return play(k, tok, &depth, &state);
}

void prs_engine_mark(void *engine, PrsCtx *c)
{
    yyParser *p = engine;
    int top = (int)(p->yytos - p->yystack);

    c->mark_top = top;
    c->mark_n = top + 1 < PRS_MARK ? top + 1 : PRS_MARK;
    for (int i = 0; i < c->mark_n; i++)
        c->mark[i] = p->yystack[top - i].stateno;
}

/* The stack as it was before the failing token arrived, when it can be
 * rebuilt: Lemon reduces by default rules before it notices an error,
 * and the states it left are fewer than the ones that were possible.
 * The rebuilt stack is trusted only if replaying the token on it ends
 * where the engine is now; if not, the current stack is copied.  The
 * copy is in the arena: reporting may longjmp (the error cap). */
static Stack before_token(PrsCtx *c, yyParser *p, int tok)
{
    int now = (int)(p->yytos - p->yystack);
    int top = c->mark_top > now ? c->mark_top : now;
    Stack k = {arena_alloc(&c->s->arena, ((size_t)top + 1) * sizeof *k.st),
               c->mark_top};
    int depth;
    YYACTIONTYPE state;

    for (int i = 0; i <= c->mark_top - c->mark_n; i++)
        k.st[i] = p->yystack[i].stateno;
    for (int i = 0; i < c->mark_n; i++)
        k.st[c->mark_top - i] = (YYACTIONTYPE)c->mark[i];
    if (c->mark_top - c->mark_n >= now || play(&k, tok, &depth, &state) ||
        depth != now || state != p->yytos->stateno) {
        for (int i = 0; i <= now; i++)
            k.st[i] = p->yystack[i].stateno;
        k.top = now;
    }
    return k;
}

/* Token classes, for grouping what was expected into words. */
static int starts_expr(int k)
{
    switch (k) {
    case TK_IDENT: case TK_INT: case TK_FLOAT: case TK_STRING:
    case TK_DTYPE: case TK_TRUE: case TK_FALSE: case TK_SUM:
    case TK_PROD: case TK_MAX: case TK_MIN: case TK_ARGMAX:
    case TK_ARGMIN: case TK_LPAREN: case TK_LBRACKET: case TK_MINUS:
    case TK_NOT:
        return 1;
    }
    return 0;
}

static int starts_item(int k)
{
    switch (k) {
    case TK_KERNEL: case TK_SCHEDULE: case TK_EXTERN: case TK_IMPORT:
    case TK_LET: case TK_PRINT: case TK_ASSERT: case TK_TIME:
    case TK_TARGET:
        return 1;
    }
    return 0;
}

/* Binary operators, and what may follow an operand without one. */
static int is_operator(int k)
{
    switch (k) {
    case TK_OR: case TK_AND: case TK_EQ: case TK_NE: case TK_LT:
    case TK_LE: case TK_GT: case TK_GE: case TK_PLUS: case TK_MINUS:
    case TK_STAR: case TK_SLASH: case TK_PERCENT: case TK_ON:
    case TK_LPAREN: case TK_LBRACKET: case TK_DOT:
        return 1;
    }
    return 0;
}

/* The spelling of a keyword or punctuation token, NULL for others. */
static const char *spelling(int k)
{
    static const char *const s[] = {
        [TK_KERNEL] = "kernel", [TK_SCHEDULE] = "schedule",
        [TK_EXTERN] = "extern", [TK_IMPORT] = "import", [TK_LET] = "let",
        [TK_PRINT] = "print", [TK_ASSERT] = "assert", [TK_TIME] = "time",
        [TK_TARGET] = "target", [TK_LAYOUT] = "layout", [TK_ON] = "on",
        [TK_FOR] = "for", [TK_IN] = "in", [TK_AS] = "as",
        [TK_FN] = "fn", [TK_TRUE] = "true", [TK_FALSE] = "false",
        [TK_SUM] = "sum", [TK_PROD] = "prod", [TK_MAX] = "max",
        [TK_MIN] = "min", [TK_ARGMAX] = "argmax", [TK_ARGMIN] = "argmin",
        [TK_LPAREN] = "(", [TK_RPAREN] = ")", [TK_LBRACKET] = "[",
        [TK_RBRACKET] = "]", [TK_LBRACE] = "{", [TK_RBRACE] = "}",
        [TK_COMMA] = ",", [TK_SEMI] = ";", [TK_COLON] = ":",
        [TK_DOT] = ".", [TK_DOTDOT] = "..", [TK_ARROW] = "->",
        [TK_ASSIGN] = "=", [TK_EQ] = "==", [TK_NE] = "!=", [TK_LT] = "<",
        [TK_LE] = "<=", [TK_GT] = ">", [TK_GE] = ">=", [TK_PLUS] = "+",
        [TK_MINUS] = "-", [TK_STAR] = "*", [TK_SLASH] = "/",
        [TK_PERCENT] = "%", [TK_AND] = "&&", [TK_OR] = "||",
        [TK_NOT] = "!", [TK_AT] = "@", [TK_PIPE] = "|", [TK_TARGS] = "<",
    };
    return k > 0 && k < (int)(sizeof s / sizeof s[0]) ? s[k] : NULL;
}

/* What an expected token is called in "expected ...". */
static const char *expected_name(int k)
{
    switch (k) {
    case TK_NEWLINE: return "end of line";
    case TK_IDENT: return "a name";
    case TK_INT: return "an integer";
    case TK_FLOAT: return "a number";
    case TK_STRING: return "a string";
    case TK_FACTOR: return "a layout factor";
    case TK_DTYPE: return "a type";
    }
    return NULL;
}

/* The unexpected token, as "identifier 'x'", "')'", "end of line". */
static const char *describe(PrsCtx *c, int k, const PrsTok *t)
{
    TlArena *a = &c->s->arena;
    int n = t->len > 40 ? 40 : t->len;
    const char *more = t->len > 40 ? "..." : "";

    switch (k) {
    case TK_NEWLINE:
        return "end of line";
    case TK_IDENT:
        return arena_printf(a, "name '%.*s%s'", n, t->text, more);
    case TK_INT:
        return arena_printf(a, "integer '%.*s%s'", n, t->text, more);
    case TK_FLOAT:
        return arena_printf(a, "number '%.*s%s'", n, t->text, more);
    case TK_STRING:
        return "string";
    case TK_FACTOR:
        return arena_printf(a, "layout factor '%.*s%s'", n, t->text, more);
    case TK_DTYPE:
        return arena_printf(a, "type '%.*s'", n, t->text);
    }
    if (spelling(k))
        return arena_printf(a, "'%s'", spelling(k));
    return "token";
}

/* Where a token goes in "expected ...": commas and closing brackets
 * first (the usual slips), then other punctuation, then keywords, then
 * classes such as "a name". */
static int word_rank(int k)
{
    if (k == TK_COMMA)
        return 0;
    if (k == TK_RPAREN || k == TK_RBRACKET || k == TK_RBRACE)
        return 1;
    if (expected_name(k))
        return 4;
    return k >= TK_LPAREN ? 2 : 3;
}

/* "an expression", "',' or ')'", ...: what the parser could take
 * instead of token kind `got`. */
static const char *expected_list(PrsCtx *c, const Stack *p, int got)
{
    enum { MAXWORDS = 6 };
    const char *words[YYNTOKEN + 4];
    int ok[YYNTOKEN] = {0};
    int n = 0, expr = 1, item = 1, ops = 0, newline;
    TlBuf b;
    const char *r;

    for (int k = 1; k < YYNTOKEN; k++) {
        if (k == TK_COMMENT || k == TK_ILLEGAL || k == TK_TARGS ||
            k == YYERRORSYMBOL)
            continue;
        ok[k] = accepts(p, k);
        if (starts_expr(k) && !ok[k])
            expr = 0;
        if (starts_item(k) && !ok[k])
            item = 0;
        if (ok[k] && (k == TK_PLUS || k == TK_STAR || k == TK_OR))
            ops = 1;
    }
    newline = ok[TK_NEWLINE];
    for (int rank = 0; rank < 5; rank++)
        for (int k = 1; k < YYNTOKEN; k++) {
            if (!ok[k] || k == TK_NEWLINE || word_rank(k) != rank ||
                (expr && starts_expr(k)) ||
                (expr && item && starts_item(k)) || (ops && is_operator(k)))
                continue;
            words[n++] = expected_name(k) ? expected_name(k)
                                          : arena_printf(&c->s->arena,
                                                         "'%s'",
                                                         spelling(k));
        }
    if (expr)
        words[n++] = item ? "an item or statement" : "an expression";
    if (ops)
        words[n++] = is_operator(got) ? "another operator" : "an operator";
    if (newline)
        words[n++] = "end of line";
    if (n == 0)
        return "something else";
    buf_init(&b);
    for (int i = 0; i < n && i < MAXWORDS; i++) {
        if (i > 0)
            buf_puts(&b, i == n - 1 ? " or " : ", ");
        buf_puts(&b, words[i]);
    }
    if (n > MAXWORDS)
        buf_puts(&b, ", ...");
    r = arena_strdup(&c->s->arena, b.s);
    buf_free(&b);
    return r;
}

/* %syntax_error: reports the token the parser could not take, unless a
 * lexical error on the same statement already explains it.  Either
 * way the driver forgets its open brackets: recovery resumes at a
 * statement boundary, where none are open. */
static void syntax_error(PrsCtx *c, void *engine, int kind,
                         const PrsTok *tok)
{
    Stack k;
    const char *expected;

    c->reset_brackets = 1;
    if (c->lex_error_in_stmt)
        return;
    c->nsyntax++;
    k = before_token(c, engine, kind);
    expected = expected_list(c, &k, kind);
    if (kind == 0) {
        diag_error(c->s, tok->loc, DIAG_SYNTAX_EOF, expected);
    } else {
        diag_error(c->s, tok->loc, DIAG_SYNTAX, describe(c, kind, tok),
                   expected);
        /* Two slips common enough to deserve a word. */
        if (kind >= TK_EQ && kind <= TK_GE && accepts(&k, TK_PLUS))
            diag_hint(c->s, "comparisons do not chain; combine them "
                            "with '&&'");
        else if (kind == TK_ASSIGN && c->braces == 0 &&
                 accepts(&k, TK_NEWLINE))
            diag_hint(c->s, "a top-level binding needs 'let': "
                            "let NAME = ...");
        else if (kind == TK_IDENT && accepts(&k, TK_FN))
            diag_hint(c->s, "an extern is declared as "
                            "'extern \"libm.so.6\" fn NAME(x: f32) -> "
                            "f32' (the library may be left out)");
    }
}
}
