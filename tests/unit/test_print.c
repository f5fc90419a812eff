/*
 * test_print.c - the canonical printer and the AST dump (lang/print.c,
 * lang/dump.c).  On ASTs built by hand with the ast_ constructors:
 * parentheses at every precedence corner, literals, statements,
 * directive chains, layouts, blank lines, comment placement and the
 * dump's format.  Then on every file of examples/ and tests/ that
 * parses (run from the top folder, as tests/run.sh does): print, parse
 * again, and require the same AST dump, the same comments in the same
 * order (none lost, none duplicated) and a fixed point.
 */
#include "lang/lang.h"
#include "parser/parser.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* A broken printer fails most checks: stop early. */
#define CHECK_MAX_FAILURES 20
#include "check.h"

static TlSession *S;

/* ====================================================================
 * Building ASTs
 * ==================================================================== */

static TlLoc at(int line)
{
    TlLoc l = {0, line, 1, 0, 0};
    return l;
}

static TlExpr *N(const char *name)
{
    return ast_name(S, at(1), name);
}

static TlExpr *I(int64_t v)
{
    return ast_int(S, at(1), v);
}

static TlExpr *F(double v, const char *text)
{
    return ast_float(S, at(1), v, text);
}

static TlExpr *B(TlOp op, TlExpr *a, TlExpr *b)
{
    return ast_binary(S, at(1), op, a, b);
}

static TlExpr *U(TlOp op, TlExpr *a)
{
    return ast_unary(S, at(1), op, a);
}

static TlExpr *E(TlExprKind k)
{
    return ast_expr(S, k, at(1));
}

/* Node with up to 4 list arguments (NULL-terminated). */
static TlExpr *with_args(TlExpr *e, TlExpr *a0, TlExpr *a1, TlExpr *a2,
                         TlExpr *a3)
{
    TlExpr *a[4] = {a0, a1, a2, a3};
    for (int i = 0; i < 4 && a[i]; i++)
        ast_push_expr(S, &e->args, a[i]);
    return e;
}

static TlExpr *IDX(TlExpr *base, TlExpr *i0, TlExpr *i1)
{
    TlExpr *e = E(EX_INDEX);
    e->a = base;
    return with_args(e, i0, i1, NULL, NULL);
}

static TlExpr *CALL(const char *f, TlExpr *a0, TlExpr *a1, TlExpr *a2)
{
    TlExpr *e = E(EX_CALL);
    e->a = N(f);
    return with_args(e, a0, a1, a2, NULL);
}

static TlExpr *RED(TlOp op, TlExpr *rv, TlExpr *body)
{
    TlExpr *e = E(EX_REDUCE);
    e->op = op;
    e->a = body;
    return with_args(e, rv, NULL, NULL, NULL);
}

static TlExpr *RANGE(const char *v, TlExpr *lo, TlExpr *hi)
{
    TlExpr *e = N(v);
    e->a = lo;
    e->b = hi;
    return e;
}

static TlExpr *SLICE(TlExpr *a, TlExpr *b, TlExpr *c, int two)
{
    TlExpr *e = E(EX_SLICE);
    e->a = a;
    e->b = b;
    e->c = c;
    e->ival = two;
    return e;
}

static TlExpr *ON(TlExpr *a, const char *t)
{
    TlExpr *e = E(EX_ON);
    e->a = a;
    e->str = t;
    return e;
}

static TlExpr *MEMBER(TlExpr *a, const char *m)
{
    TlExpr *e = E(EX_MEMBER);
    e->a = a;
    e->str = m;
    return e;
}

static TlExpr *NAMED(const char *n, TlExpr *v)
{
    TlExpr *e = E(EX_NAMED);
    e->str = n;
    e->a = v;
    return e;
}

static TlExpr *CAST(TlDType t, TlExpr *a)
{
    TlExpr *e = E(EX_CAST);
    e->dtype = t;
    e->a = a;
    return e;
}

static TlExpr *STR(const char *s)
{
    TlExpr *e = E(EX_STR);
    e->str = s;
    return e;
}

/* x[k] */
static TlExpr *xk(void)
{
    return IDX(N("x"), N("k"), NULL);
}

static void expect_expr(const TlExpr *e, const char *want, int line)
{
    TlBuf b;
    buf_init(&b);
    ast_print_expr(&b, e);
    check_str_at(__FILE__, line, b.s ? b.s : "", want);
    buf_free(&b);
}

#define EXPECT_EXPR(e, want) expect_expr(e, want, __LINE__)

/* ====================================================================
 * Expressions
 * ==================================================================== */

static void test_precedence(void)
{
    TlExpr *a = N("a"), *b = N("b"), *c = N("c");

    EXPECT_EXPR(B(OP_SUB, a, B(OP_SUB, b, c)), "a - (b - c)");
    EXPECT_EXPR(B(OP_SUB, B(OP_SUB, a, b), c), "a - b - c");
    EXPECT_EXPR(B(OP_ADD, a, B(OP_ADD, b, c)), "a + (b + c)");
    EXPECT_EXPR(B(OP_MUL, B(OP_ADD, a, b), c), "(a + b) * c");
    EXPECT_EXPR(B(OP_ADD, a, B(OP_MUL, b, c)), "a + b * c");
    EXPECT_EXPR(B(OP_DIV, a, B(OP_MUL, b, c)), "a / (b * c)");
    EXPECT_EXPR(B(OP_MOD, B(OP_DIV, a, b), c), "a / b % c");
    EXPECT_EXPR(U(OP_NEG, B(OP_ADD, a, b)), "-(a + b)");
    EXPECT_EXPR(U(OP_NEG, U(OP_NEG, a)), "-(-a)");
    EXPECT_EXPR(U(OP_NEG, I(-3)), "-(-3)");
    EXPECT_EXPR(U(OP_NOT, U(OP_NOT, a)), "!!a");
    EXPECT_EXPR(U(OP_NOT, B(OP_AND, a, b)), "!(a && b)");
    EXPECT_EXPR(B(OP_MUL, U(OP_NEG, a), b), "-a * b");
    EXPECT_EXPR(B(OP_MUL, I(-2), b), "-2 * b");
    EXPECT_EXPR(B(OP_SUB, a, I(-2)), "a - -2");
    EXPECT_EXPR(B(OP_EQ, B(OP_LT, a, b), c), "(a < b) == c");
    EXPECT_EXPR(B(OP_LT, a, B(OP_LT, b, c)), "a < (b < c)");
    EXPECT_EXPR(B(OP_LT, B(OP_ADD, a, b), c), "a + b < c");
    EXPECT_EXPR(B(OP_OR, a, B(OP_AND, b, c)), "a || b && c");
    EXPECT_EXPR(B(OP_AND, B(OP_OR, a, b), c), "(a || b) && c");
    EXPECT_EXPR(B(OP_OR, B(OP_OR, a, b), c), "a || b || c");
    EXPECT_EXPR(B(OP_AND, B(OP_EQ, a, b), B(OP_NE, b, c)),
                "a == b && b != c");
    EXPECT_EXPR(IDX(B(OP_ADD, a, b), N("i"), NULL), "(a + b)[i]");
    EXPECT_EXPR(IDX(U(OP_NEG, a), N("i"), NULL), "(-a)[i]");
    EXPECT_EXPR(U(OP_NEG, IDX(a, N("i"), NULL)), "-a[i]");
}

static void test_reductions(void)
{
    TlExpr *one = I(1);

    EXPECT_EXPR(RED(RD_SUM, N("k"), xk()), "sum(k) x[k]");
    EXPECT_EXPR(RED(RD_SUM, N("k"), B(OP_ADD, xk(), one)),
                "sum(k) x[k] + 1");
    EXPECT_EXPR(B(OP_ADD, RED(RD_SUM, N("k"), xk()), one),
                "(sum(k) x[k]) + 1");
    EXPECT_EXPR(B(OP_ADD, one, RED(RD_SUM, N("k"), xk())),
                "1 + sum(k) x[k]");
    EXPECT_EXPR(B(OP_MUL, one, RED(RD_SUM, N("k"), xk())),
                "1 * sum(k) x[k]");
    /* Not last: (1 * sum) + 2 */
    EXPECT_EXPR(B(OP_ADD, B(OP_MUL, one, RED(RD_SUM, N("k"), xk())), I(2)),
                "1 * (sum(k) x[k]) + 2");
    EXPECT_EXPR(U(OP_NEG, RED(RD_SUM, N("k"), xk())), "-sum(k) x[k]");
    EXPECT_EXPR(B(OP_ADD, U(OP_NEG, RED(RD_SUM, N("k"), xk())), one),
                "-(sum(k) x[k]) + 1");
    EXPECT_EXPR(RED(RD_SUM, N("i"), RED(RD_PROD, N("j"), xk())),
                "sum(i) prod(j) x[k]");
    EXPECT_EXPR(RED(RD_SUM, N("i"),
                    B(OP_ADD, RED(RD_PROD, N("j"), xk()), one)),
                "sum(i) (prod(j) x[k]) + 1");
    EXPECT_EXPR(IDX(RED(RD_SUM, N("k"), xk()), N("i"), NULL),
                "(sum(k) x[k])[i]");
    /* max/min bodies that start with '-' or '!' */
    EXPECT_EXPR(RED(RD_MAX, N("k"), U(OP_NEG, xk())), "max(k) (-x[k])");
    EXPECT_EXPR(RED(RD_MIN, N("k"), B(OP_ADD, U(OP_NEG, xk()), one)),
                "min(k) (-x[k] + 1)");
    EXPECT_EXPR(RED(RD_MAX, N("k"), I(-1)), "max(k) (-1)");
    EXPECT_EXPR(RED(RD_MAX, N("k"), U(OP_NOT, xk())), "max(k) (!x[k])");
    EXPECT_EXPR(RED(RD_SUM, N("k"), U(OP_NEG, xk())), "sum(k) -x[k]");
    EXPECT_EXPR(RED(RD_ARGMAX, N("k"), U(OP_NEG, xk())),
                "argmax(k) -x[k]");
    EXPECT_EXPR(RED(RD_MAX, N("k"), B(OP_MUL, B(OP_SUB, xk(), one), one)),
                "max(k) (x[k] - 1) * 1");
    /* ranges */
    {
        TlExpr *r = RED(RD_SUM, RANGE("k", I(0), N("K")), xk());
        ast_push_expr(S, &r->args, N("r"));
        EXPECT_EXPR(r, "sum(k in 0..K, r) x[k]");
        EXPECT_EXPR(RED(RD_SUM,
                        RANGE("k", B(OP_ADD, N("a"), one),
                              B(OP_SUB, N("K"), one)),
                        xk()),
                    "sum(k in a + 1..K - 1) x[k]");
    }
    /* the max/min binary function before a postfix operator */
    EXPECT_EXPR(IDX(CALL("max", N("a"), N("b"), NULL), N("i"), NULL),
                "(max(a, b))[i]");
    EXPECT_EXPR(B(OP_SUB, CALL("min", N("a"), N("b"), NULL), one),
                "min(a, b) - 1");
}

static void test_misc_exprs(void)
{
    TlExpr *t = N("T");

    {
        TlExpr *e = IDX(t, SLICE(I(0), I(2), NULL, 0),
                        SLICE(NULL, NULL, NULL, 0));
        ast_push_expr(S, &e->args, SLICE(NULL, NULL, I(2), 1));
        ast_push_expr(S, &e->args, SLICE(I(1), NULL, NULL, 0));
        ast_push_expr(S, &e->args, SLICE(NULL, NULL, NULL, 1));
        ast_push_expr(S, &e->args, SLICE(N("a"), N("b"), N("c"), 1));
        EXPECT_EXPR(e, "T[0:2, :, ::2, 1:, ::, a:b:c]");
    }
    EXPECT_EXPR(IDX(MEMBER(N("X"), "zero_pad"), N("n"), B(OP_SUB, N("y"),
                                                          I(1))),
                "X.zero_pad[n, y - 1]");
    EXPECT_EXPR(CALL("allclose", N("C"), N("D"), NAMED("rtol", F(1e-5,
                                                                 "1e-5"))),
                "allclose(C, D, rtol = 1e-5)");
    EXPECT_EXPR(CALL("f", ON(CALL("g", N("a"), NULL, NULL), "cpu"), NULL,
                     NULL),
                "f(g(a) on cpu)");
    EXPECT_EXPR(ON(B(OP_ADD, N("a"), N("b")), "accel"), "a + b on accel");
    EXPECT_EXPR(B(OP_ADD, ON(N("a"), "cpu"), I(1)), "(a on cpu) + 1");
    EXPECT_EXPR(B(OP_ADD, I(1), ON(N("a"), "cpu")), "1 + (a on cpu)");
    EXPECT_EXPR(RED(RD_SUM, N("k"), ON(xk(), "cpu")), "sum(k) (x[k] on cpu)");
    EXPECT_EXPR(ON(RED(RD_SUM, N("k"), xk()), "cpu"), "(sum(k) x[k]) on cpu");
    EXPECT_EXPR(CAST(DT_F16, B(OP_ADD, N("x"), I(1))), "f16(x + 1)");
    EXPECT_EXPR(B(OP_MUL, CAST(DT_BF16, N("x")), I(2)), "bf16(x) * 2");
    EXPECT_EXPR(STR("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
    EXPECT_EXPR(F(1.5, "1.50"), "1.50");
    EXPECT_EXPR(F(2.0, NULL), "2.0");
    EXPECT_EXPR(F(0.1, NULL), "0.1");
    EXPECT_EXPR(F(1e300, NULL), "1e+300");
    {
        TlExpr *hex = I(31);
        TlExpr *l = E(EX_LIST);
        TlExpr *bt = E(EX_BOOL), *bf = E(EX_BOOL);
        hex->str = "0x1F";
        bt->ival = 1;
        with_args(l, hex, bt, bf, I(-7));
        EXPECT_EXPR(l, "[0x1F, true, false, -7]");
        EXPECT_EXPR(E(EX_LIST), "[]");
    }
    {
        TlExpr *m = MEMBER(MEMBER(N("std"), "nn"), "relu");
        TlExpr *c = E(EX_CALL);
        c->a = m;
        with_args(c, N("x"), NULL, NULL, NULL);
        EXPECT_EXPR(c, "std.nn.relu(x)");
    }
}

/* ====================================================================
 * Programs
 * ==================================================================== */

static TlProgram *P;

static void comment(int line, const char *text)
{
    TlLoc l = at(line);
    l.col = 5;
    ast_push_comment(S, &P->comments, l, text);
}

static TlItem *item(TlItemKind k, int line, int end)
{
    TlItem *it = ast_item(S, k, at(line));
    it->end_line = end;
    ast_push_item(S, &P->items, it);
    return it;
}

static TlStmt *stmt(TlStmtKind k, int line, TlExpr *value)
{
    TlStmt *st = ast_stmt(S, k, at(line));
    st->value = value;
    return st;
}

static TlItem *top(TlStmtKind k, int line, TlExpr *value)
{
    TlItem *it = item(IT_STMT, line, line);
    it->stmt = stmt(k, line, value);
    return it;
}

static TlParam tparam(const char *name, TlDType t, TlExpr *d0, TlExpr *d1)
{
    TlParam p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.dtype = t;
    if (d0)
        ast_push_expr(S, &p.shape, d0);
    if (d1)
        ast_push_expr(S, &p.shape, d1);
    return p;
}

static TlStmt *stage(int line, const char *name, const char *i0,
                     const char *i1, TlExpr *v)
{
    TlStmt *st = stmt(ST_STAGE, line, v);
    st->name = name;
    if (i0)
        ast_push_ident(S, &st->names, i0, at(line));
    if (i1)
        ast_push_ident(S, &st->names, i1, at(line));
    return st;
}

static void dir(TlStmt *st, int line, const char *name, TlExpr *a0,
                TlExpr *a1, TlExpr *a2, TlExpr *a3)
{
    TlDirective d;
    TlExpr *a[4] = {a0, a1, a2, a3};
    memset(&d, 0, sizeof d);
    d.name = name;
    d.loc = at(line);
    for (int i = 0; i < 4 && a[i]; i++)
        ast_push_expr(S, &d.args, a[i]);
    ast_push_directive(S, &st->dirs, &d);
}

static void new_program(void)
{
    P = ast_program(S, 0);
}

static char *print_program(void)
{
    TlBuf b;
    char *r;
    buf_init(&b);
    ast_print_program(&b, P);
    r = arena_strdup(&S->arena, b.s ? b.s : "");
    buf_free(&b);
    return r;
}

/* Every comment text (without trailing blanks) occurs exactly once in
 * the output. */
static void check_comments_once(const char *out)
{
    for (int i = 0; i < P->comments.n; i++) {
        const char *c = P->comments.v[i].text;
        char *t = arena_strdup(&S->arena, c);
        size_t n = strlen(t);
        const char *p;
        while (n && t[n - 1] == ' ')
            t[--n] = 0;
        p = strstr(out, t);
        CHECK(p != NULL);
        if (p)
            CHECK(strstr(p + 1, t) == NULL);
    }
}

#define EXPECT_PROGRAM(want)                                             \
    do {                                                                 \
        char *out_ = print_program();                                    \
        CHECK_STR(out_, want);                                           \
        check_comments_once(out_);                                       \
    } while (0)

static void test_empty(void)
{
    new_program();
    EXPECT_PROGRAM("");
    comment(1, "# only a comment");
    comment(3, "# and another");
    EXPECT_PROGRAM("# only a comment\n\n# and another\n");
}

/* kernel matmul with comments in every place a comment can be. */
static void test_kernel(void)
{
    TlItem *k;
    TlParam p;

    new_program();
    comment(1, "# header");
    comment(2, "# of the file");
    k = item(IT_KERNEL, 4, 9);
    k->name = "matmul";
    k->blank_before = 1;
    p = tparam("A", DT_F32, N("M"), N("K"));
    ast_push_param(S, &k->params, &p);
    p = tparam("B", DT_F32, N("K"), N("N"));
    ast_push_param(S, &k->params, &p);
    p = tparam("alpha", DT_F32, NULL, NULL);
    p.is_scalar = 1;
    p.init = F(1.0, "1.0");
    ast_push_param(S, &k->scalars, &p);
    p = tparam("C", DT_F32, N("M"), N("N"));
    ast_push_param(S, &k->outputs, &p);
    p = tparam("s", DT_F64, NULL, NULL);
    ast_push_param(S, &k->outputs, &p);
    comment(4, "# on the header line");
    comment(5, "# before the stage");
    ast_push_stmt(S, &k->body,
                  stage(6, "C", "i", "j",
                        RED(RD_SUM, N("k"),
                            B(OP_MUL, IDX(N("A"), N("i"), N("k")),
                              IDX(N("B"), N("k"), N("j"))))));
    comment(6, "#   trailing   ");
    ast_push_stmt(S, &k->body, stage(8, "s", NULL, NULL, I(0)));
    k->body.v[1]->blank_before = 1;
    comment(8, "# end of body");
    comment(9, "# after the brace");
    top(ST_PRINT, 10, N("C"));
    EXPECT_PROGRAM(
        "# header\n"
        "# of the file\n"
        "\n"
        "kernel matmul(A: f32[M, K], B: f32[K, N]; alpha: f32 = 1.0)\n"
        "    -> (C: f32[M, N], s: f64[]) {  # on the header line\n"
        "    # before the stage\n"
        "    C[i, j] = sum(k) A[i, k] * B[k, j]  #   trailing\n"
        "\n"
        "    s[] = 0  # end of body\n"
        "}  # after the brace\n"
        "\n"
        "print C\n");
}

static void test_blank_lines(void)
{
    TlItem *e, *k;
    TlParam p;

    new_program();
    top(ST_LET, 1, I(1));
    ast_push_ident(S, &P->items.v[0]->stmt->names, "a", at(1));
    top(ST_LET, 5, I(2));
    ast_push_ident(S, &P->items.v[1]->stmt->names, "b", at(5));
    P->items.v[1]->blank_before = 1;
    top(ST_TARGET, 6, NULL)->stmt->name = "cpu";
    e = item(IT_EXTERN, 7, 7);
    e->name = "erff";
    p = tparam("x", DT_F32, NULL, NULL);
    p.is_scalar = 1;
    ast_push_param(S, &e->params, &p);
    p = tparam("t", DT_F32, N("N"), NULL);
    ast_push_param(S, &e->params, &p);
    e->ret = DT_F32;
    e->lib = "lib\"m\".so";
    e = item(IT_EXTERN, 8, 8);
    e->name = "g";
    e->ret = DT_NONE;
    comment(10, "# the kernel");
    k = item(IT_KERNEL, 11, 11);
    k->name = "empty";
    p = tparam("n", DT_I32, NULL, NULL);
    ast_push_param(S, &k->scalars, &p);
    e = item(IT_IMPORT, 12, 12);
    e->path = "std.nn";
    e->alias = "nn";
    e = item(IT_IMPORT, 13, 13);
    e->path = "my/k.tdsl";
    e->is_file = 1;
    top(ST_EXPR, 14, CALL("save", N("C"), STR("c.npy"), NULL));
    comment(16, "# end");
    EXPECT_PROGRAM(
        "let a = 1\n"
        "\n"
        "let b = 2\n"
        "target cpu\n"
        "\n"
        "extern \"lib\\\"m\\\".so\" fn erff(x: f32, t: f32[N]) -> f32\n"
        "\n"
        "extern fn g()\n"
        "\n"
        "# the kernel\n"
        "kernel empty(; n: i32) {\n"
        "}\n"
        "\n"
        "import std.nn as nn\n"
        "import \"my/k.tdsl\"\n"
        "save(C, \"c.npy\")\n"
        "\n"
        "# end\n");
}

static void test_schedule(void)
{
    TlItem *sc;
    TlStmt *st;
    TlLayout *l;
    TlLayoutFactor f;
    TlFactorList ax;

    new_program();
    sc = item(IT_SCHEDULE, 1, 20);
    sc->name = "matmul";
    sc->target = "cpu";
    sc->variant = "fast";

    /* fits on one line */
    st = stmt(ST_DIRECTIVE, 2, NULL);
    ast_push_ident(S, &st->names, "conv1", at(2));
    ast_push_ident(S, &st->names, "Y", at(2));
    dir(st, 2, "parallel", N("n"), NULL, NULL, NULL);
    dir(st, 3, "vectorize", N("x"), I(16), NULL, NULL);
    st->end_line = 3;
    ast_push_stmt(S, &sc->body, st);

    /* too long: broken */
    st = stmt(ST_DIRECTIVE, 4, NULL);
    ast_push_ident(S, &st->names, "C", at(4));
    dir(st, 4, "tile", N("i"), N("j"), N("io"), N("jo"));
    ast_push_expr(S, &st->dirs.v[0].args, N("ii"));
    ast_push_expr(S, &st->dirs.v[0].args, N("ji"));
    ast_push_expr(S, &st->dirs.v[0].args, I(64));
    ast_push_expr(S, &st->dirs.v[0].args, I(64));
    dir(st, 4, "split", N("k"), N("ko"), N("ki"), I(16));
    dir(st, 4, "reorder", N("io"), N("jo"), N("ko"), N("ii"));
    st->end_line = 4;
    st->blank_before = 1;
    ast_push_stmt(S, &sc->body, st);
    comment(4, "# one line in the source");

    /* comments inside: broken */
    st = stmt(ST_DIRECTIVE, 5, NULL);
    ast_push_ident(S, &st->names, "bx", at(5));
    dir(st, 5, "compute_at", N("out"), N("xo"), NULL, NULL);
    comment(5, "# at xo");
    comment(6, "# now vectorize");
    dir(st, 7, "vectorize", N("x"), I(16), NULL, NULL);
    comment(8, "# inside the args");
    dir(st, 8, "unroll", N("y"), NULL, NULL, NULL);
    st->end_line = 9;
    comment(9, "# last");
    ast_push_stmt(S, &sc->body, st);

    /* layouts */
    st = stmt(ST_LAYOUT, 10, NULL);
    st->name = "A";
    l = st->layout = ast_layout(S, LAYOUT_COMPACT);
    memset(&f, 0, sizeof f);
    f.axis = "i";
    f.level = "L2B";
    ast_push_factor(S, &l->compact, &f);
    f.axis = "k";
    f.level = "W";
    ast_push_factor(S, &l->compact, &f);
    ast_push_stmt(S, &sc->body, st);

    st = stmt(ST_LAYOUT, 11, NULL);
    st->name = "B";
    l = st->layout = ast_layout(S, LAYOUT_CANONICAL);
    memset(&ax, 0, sizeof ax);
    memset(&f, 0, sizeof f);
    f.n = 2;
    f.level = "L2B";
    ast_push_factor(S, &ax, &f);
    f.n = 32;
    f.level = NULL;
    f.stride = 1;
    ast_push_factor(S, &ax, &f);
    {
        /* the axes list is an anonymous struct: grow it by hand */
        TlFactorList *v = arena_alloc(&S->arena, 2 * sizeof *v);
        v[0] = ax;
        memset(&ax, 0, sizeof ax);
        memset(&f, 0, sizeof f);
        f.n = 2;
        f.level = "W";
        ast_push_factor(S, &ax, &f);
        v[1] = ax;
        l->axes.v = v;
        l->axes.n = l->axes.cap = 2;
    }
    ast_push_ident(S, &l->bcast, "MAB", at(11));
    ast_push_ident(S, &l->bcast, "L1B", at(11));
    ast_push_stmt(S, &sc->body, st);

    st = stmt(ST_LAYOUT, 12, NULL);
    st->name = "D";
    l = st->layout = ast_layout(S, LAYOUT_CANONICAL);
    memset(&ax, 0, sizeof ax);
    memset(&f, 0, sizeof f);
    f.n = 4;
    f.level = "PE";
    ast_push_factor(S, &ax, &f);
    l->axes.v = arena_alloc(&S->arena, sizeof ax);
    l->axes.v[0] = ax;
    l->axes.n = l->axes.cap = 1;
    ast_push_stmt(S, &sc->body, st);

    comment(19, "# before the brace");

    EXPECT_PROGRAM(
        "schedule matmul for cpu as fast {\n"
        "    conv1.Y.parallel(n).vectorize(x, 16)\n"
        "\n"
        "    C.tile(i, j, io, jo, ii, ji, 64, 64)\n"
        "        .split(k, ko, ki, 16)\n"
        "        .reorder(io, jo, ko, ii)  # one line in the source\n"
        "    bx.compute_at(out, xo)  # at xo\n"
        "        # now vectorize\n"
        "        .vectorize(x, 16)\n"
        "        # inside the args\n"
        "        .unroll(y)  # last\n"
        "    layout A: [i@L2B, k@W]\n"
        "    layout B: ((2_L2B, 32:1), (2_W)); B@[MAB, L1B]\n"
        "    layout D: ((4_PE))\n"
        "\n"
        "    # before the brace\n"
        "}\n");
}

/* ====================================================================
 * The dump
 * ==================================================================== */

static void test_dump(void)
{
    TlItem *k, *sc;
    TlStmt *st;
    TlParam p;
    TlBuf b;
    TlExpr *e;

    new_program();
    k = item(IT_KERNEL, 1, 3);
    k->name = "f";
    p = tparam("X", DT_F32, N("N"), NULL);
    ast_push_param(S, &k->params, &p);
    p = tparam("n", DT_I32, NULL, NULL);
    p.init = I(1);
    ast_push_param(S, &k->scalars, &p);
    p = tparam("Y", DT_F32, NULL, NULL);
    ast_push_param(S, &k->outputs, &p);
    e = RED(RD_MAX, RANGE("k", I(0), N("N")), U(OP_NEG, IDX(N("X"),
                                                            N("k"), NULL)));
    e->parens = 1;
    ast_push_stmt(S, &k->body, stage(2, "Y", NULL, NULL, e));
    sc = item(IT_SCHEDULE, 4, 6);
    sc->name = "f";
    sc->target = "cpu";
    st = stmt(ST_DIRECTIVE, 5, NULL);
    ast_push_ident(S, &st->names, "Y", at(5));
    dir(st, 5, "compute_root", NULL, NULL, NULL, NULL);
    ast_push_stmt(S, &sc->body, st);
    top(ST_PRINT, 7,
        IDX(N("T"), SLICE(NULL, I(2), NULL, 1), SLICE(NULL, NULL, NULL, 0)));

    buf_init(&b);
    ast_dump_program(&b, P);
    CHECK_STR(b.s, "program\n"
                   "|- kernel f\n"
                   "|  |- param X: f32 rank 1\n"
                   "|  |  `- dim: name N\n"
                   "|  |- scalar n: i32 scalar\n"
                   "|  |  `- default: int 1\n"
                   "|  |- output Y: f32 rank 0\n"
                   "|  `- stage Y[]\n"
                   "|     `- reduce max\n"
                   "|        |- rvar: name k in range\n"
                   "|        |  |- lo: int 0\n"
                   "|        |  `- hi: name N\n"
                   "|        `- body: unary -\n"
                   "|           `- index\n"
                   "|              |- base: name X\n"
                   "|              `- name k\n"
                   "|- schedule f for cpu\n"
                   "|  `- directive Y\n"
                   "|     `- .compute_root\n"
                   "`- print\n"
                   "   `- index\n"
                   "      |- base: name T\n"
                   "      |- slice :hi:\n"
                   "      |  `- hi: int 2\n"
                   "      `- slice :\n");
    /* No trailing whitespace anywhere. */
    CHECK(strstr(b.s, " \n") == NULL);
    buf_free(&b);
}

/* ====================================================================
 * Round trips through the parser
 * ==================================================================== */

/* The program's comments, trimmed, one per line. */
static void comment_texts(TlBuf *b, const TlProgram *p)
{
    for (int i = 0; i < p->comments.n; i++) {
        const char *t = p->comments.v[i].text;
        size_t n = strlen(t);
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' ||
                     t[n - 1] == '\r'))
            n--;
        buf_putn(b, t, n);
        buf_putc(b, '\n');
    }
}

static int same_buf(const TlBuf *a, const TlBuf *b)
{
    return a->len == b->len && (a->len == 0 || !memcmp(a->s, b->s, a->len));
}

/* Parses text as `name` in a fresh session with diagnostics thrown
 * away; NULL if it has errors. */
static TlProgram *parse_quiet(TlSession *s, const char *name,
                              const char *text, size_t len, FILE *null)
{
    TlProgram *p;
    s->diag_out = null;
    p = tl_parse_string(s, name, text, len);
    return p && s->nerrors == 0 ? p : NULL;
}

/* One file: 1 if checked, 0 if it does not parse. */
static int roundtrip_file(const char *path, FILE *null)
{
    TlSession *s1 = tl_session_new(), *s2 = tl_session_new();
    TlSession *s3 = tl_session_new();
    TlProgram *p1, *p2, *p3;
    TlBuf src, out1, out2, out3, dump1, dump2, com1, com2;
    FILE *f = fopen(path, "rb");
    char chunk[4096];
    size_t n;
    int ok = 0;

    buf_init(&src);
    buf_init(&out1);
    buf_init(&out2);
    buf_init(&out3);
    buf_init(&dump1);
    buf_init(&dump2);
    buf_init(&com1);
    buf_init(&com2);
    if (!f)
        goto done;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_putn(&src, chunk, n);
    fclose(f);
    p1 = parse_quiet(s1, path, src.s ? src.s : "", src.len, null);
    if (!p1)
        goto done;
    ok = 1;
    ast_print_program(&out1, p1);
    ast_dump_program(&dump1, p1);
    comment_texts(&com1, p1);
    p2 = parse_quiet(s2, path, out1.s ? out1.s : "", out1.len, null);
    if (!p2) {
        fprintf(stderr, "%s: fmt output does not parse:\n%s\n", path,
                out1.s);
        check_failed();
        goto done;
    }
    ast_dump_program(&dump2, p2);
    comment_texts(&com2, p2);
    ast_print_program(&out2, p2);
    if (!same_buf(&dump1, &dump2)) {
        fprintf(stderr, "%s: the AST changes through fmt\n", path);
        check_failed();
    }
    if (!same_buf(&com1, &com2)) {
        fprintf(stderr, "%s: comments differ through fmt:\n%s---\n%s\n",
                path, com1.s ? com1.s : "", com2.s ? com2.s : "");
        check_failed();
    }
    if (!same_buf(&out1, &out2)) {
        fprintf(stderr, "%s: fmt is not idempotent\n", path);
        check_failed();
    }
    /* The canonical text has no trailing blanks and ends in exactly one
     * newline (or is empty). */
    if (out1.len && (out1.s[out1.len - 1] != '\n' ||
                     (out1.len > 1 && out1.s[out1.len - 2] == '\n') ||
                     strstr(out1.s, " \n") || out1.s[0] == '\n')) {
        fprintf(stderr, "%s: bad line structure in fmt output\n", path);
        check_failed();
    }
    /* The AST of the canonical text prints the same without comments
     * too (comments never change what is printed around them). */
    p3 = parse_quiet(s3, path, out1.s ? out1.s : "", out1.len, null);
    if (p3) {
        p3->comments.n = 0;
        ast_print_program(&out3, p3);
        for (const char *l = out3.s; l && *l;) {
            const char *e = strchr(l, '\n');
            CHECK(e && (e == l || e[-1] != ' '));
            l = e ? e + 1 : l + strlen(l);
        }
    }
done:
    buf_free(&src);
    buf_free(&out1);
    buf_free(&out2);
    buf_free(&out3);
    buf_free(&dump1);
    buf_free(&dump2);
    buf_free(&com1);
    buf_free(&com2);
    tl_session_free(s1);
    tl_session_free(s2);
    tl_session_free(s3);
    return ok;
}

/* --- random expressions ------------------------------------------- */

static unsigned rng_state = 12345;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % n;
}

static TlExpr *gen(int depth);

static TlExpr *gen_leaf(void)
{
    static const char *const names[] = {"a", "b", "x", "y"};
    switch (rnd(6)) {
    case 0:
        return I(rnd(100));
    case 1:
        return F(1.5, "1.5");
    case 2: {
        TlExpr *e = E(EX_BOOL);
        e->ival = rnd(2);
        return e;
    }
    case 3:
        return STR("s");
    default:
        return N(names[rnd(4)]);
    }
}

/* A callee: a name, a member path, or the max/min builtins. */
static TlExpr *gen_call(int depth)
{
    static const char *const fns[] = {"f", "g", "max", "min"};
    TlExpr *e = E(EX_CALL);
    int n = (int)rnd(3), named = (int)rnd(2);
    e->a = rnd(4) ? N(fns[rnd(4)]) : MEMBER(N("m"), "f");
    for (int i = 0; i < n; i++)
        ast_push_expr(S, &e->args, gen(depth - 1));
    if (named)
        ast_push_expr(S, &e->args, NAMED("k", gen(depth - 1)));
    return e;
}

static TlExpr *gen_postfix_base(int depth)
{
    TlExpr *b = gen(depth - 1);
    /* A literal base would be odd but is still syntax; keep names
     * mostly, to exercise the postfix chain. */
    return rnd(2) ? b : N("t");
}

static TlExpr *gen(int depth)
{
    static const TlOp bins[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
                                OP_EQ,  OP_NE,  OP_LT,  OP_LE,  OP_GT,
                                OP_GE,  OP_AND, OP_OR};
    static const TlOp reds[] = {RD_SUM, RD_PROD, RD_MAX, RD_MIN,
                                RD_ARGMAX, RD_ARGMIN};
    TlExpr *e;

    if (depth <= 0)
        return gen_leaf();
    switch (rnd(12)) {
    case 0:
    case 1:
    case 2:
        return B(bins[rnd(13)], gen(depth - 1), gen(depth - 1));
    case 3:
        return U(rnd(2) ? OP_NEG : OP_NOT, gen(depth - 1));
    case 4: {
        TlExpr *rv = rnd(2) ? N("k") : RANGE("k", gen(depth - 2),
                                             gen(depth - 2));
        e = RED(reds[rnd(6)], rv, gen(depth - 1));
        if (rnd(2))
            ast_push_expr(S, &e->args, N("r"));
        return e;
    }
    case 5:
        return gen_call(depth);
    case 6: {
        int n = (int)rnd(3);
        e = E(EX_INDEX);
        e->a = gen_postfix_base(depth);
        for (int i = 0; i < n; i++) {
            if (rnd(3) == 0) {
                TlExpr *c = rnd(2) ? gen(depth - 2) : NULL;
                int two = c || rnd(2);
                ast_push_expr(S, &e->args,
                              SLICE(rnd(2) ? gen(depth - 2) : NULL,
                                    rnd(2) ? gen(depth - 2) : NULL, c,
                                    two));
            } else {
                ast_push_expr(S, &e->args, gen(depth - 1));
            }
        }
        return e;
    }
    case 7:
        return MEMBER(gen_postfix_base(depth), "zero_pad");
    case 8:
        return CAST(rnd(2) ? DT_F16 : DT_I32, gen(depth - 1));
    case 9: {
        int n = (int)rnd(3);
        e = E(EX_LIST);
        for (int i = 0; i < n; i++)
            ast_push_expr(S, &e->args, gen(depth - 1));
        return e;
    }
    case 10:
        return ON(gen(depth - 1), rnd(2) ? "cpu" : "accel");
    default:
        return gen_leaf();
    }
}

/* Random expressions printed as `print E`, parsed again: the parse must
 * give the tree that was printed. */
static void test_random_exprs(FILE *null)
{
    for (int round = 0; round < 3000; round++) {
        TlSession *s2 = tl_session_new();
        TlItem *it;
        TlProgram *p2;
        TlBuf text, d1, d2;

        new_program();
        it = top(ST_PRINT, 1, gen(1 + (int)rnd(6)));
        (void)it;
        buf_init(&text);
        buf_init(&d1);
        buf_init(&d2);
        ast_print_program(&text, P);
        ast_dump_program(&d1, P);
        p2 = parse_quiet(s2, "random", text.s, text.len, null);
        if (!p2) {
            fprintf(stderr, "random: does not parse: %s", text.s);
            check_failed();
        } else {
            ast_dump_program(&d2, p2);
            if (!same_buf(&d1, &d2)) {
                fprintf(stderr, "random: changes: %s%s---\n%s", text.s,
                        d1.s, d2.s);
                check_failed();
            }
        }
        buf_free(&text);
        buf_free(&d1);
        buf_free(&d2);
        tl_session_free(s2);
        if (check_failures > 10)
            exit(check_done());
    }
}

static int roundtrip_dir(const char *dir, FILE *null)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    int n = 0;

    if (!d)
        return 0;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        char path[1024];
        if (len < 5 || strcmp(ent->d_name + len - 5, ".tdsl") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        n += roundtrip_file(path, null);
    }
    closedir(d);
    return n;
}

static void test_files(void)
{
    static const char *const dirs[] = {
        "examples", "tests/fmt", "tests/parse", "tests/error",
        "tests/diag", "tests/warning", "tests/fuzz/corpus",
    };
    FILE *null = fopen("/dev/null", "w");
    int n = 0;

    if (!null)
        return;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        n += roundtrip_dir(dirs[i], null);
    test_random_exprs(null);
    fclose(null);
    printf("round trips: %d files\n", n);
}

int main(void)
{
    S = tl_session_new();
    test_precedence();
    test_reductions();
    test_misc_exprs();
    test_empty();
    test_kernel();
    test_blank_lines();
    test_schedule();
    test_dump();
    test_files();
    tl_session_free(S);
    return check_done();
}
