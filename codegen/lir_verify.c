/*
 * lir_verify.c - checks that a loop IR function is well formed: names
 * defined before use and never shadowed, types that agree, vector
 * widths that match.  Passes are expected to keep these invariants;
 * the lowering pipeline runs this after each pass in debug builds and
 * the IR tests after every pass they run (STYLE.md rule 27).
 *
 * The walk keeps a stack of the declarations in scope; each problem
 * becomes one line naming the node it was found in.
 */
#include "codegen/codegen_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Decl {
    const LVar *var;
    int ndims;          /* buffers: dimensions (0: flat pointer) */
} Decl;

typedef struct V {
    TlBuf *err;
    int nerr;
    Decl *scope;        /* heap array */
    int n, cap;
} V;

/* Appends "MESSAGE in 'NODE'" (the node's text cut to one line). */
static void problem(V *v, const LExpr *e, const LStmt *st,
                    const char *fmt, ...) TL_PRINTF(4, 5);

static void problem(V *v, const LExpr *e, const LStmt *st,
                    const char *fmt, ...)
{
    TlBuf node;
    va_list ap;

    v->nerr++;
    if (!v->err)
        return;
    va_start(ap, fmt);
    buf_vprintf(v->err, fmt, ap);
    va_end(ap);
    buf_init(&node);
    if (e)
        lir_print_expr(&node, e);
    else if (st)
        lir_print_head(&node, st);
    if (node.len > 72) {
        node.len = 69;
        buf_puts(&node, "...");
    }
    if (node.len)
        buf_printf(v->err, " in '%s'", node.s);
    buf_putc(v->err, '\n');
    buf_free(&node);
}

static void type_str(char *out, size_t n, LType t)
{
    if (t.lanes == 1)
        snprintf(out, n, "%s", dt_name(t.dt));
    else
        snprintf(out, n, "%sx%d", dt_name(t.dt), t.lanes);
}

/* ====================================================================
 * Scope
 * ==================================================================== */

static const Decl *find(V *v, const LVar *var)
{
    for (int i = v->n - 1; i >= 0; i--)
        if (v->scope[i].var == var)
            return &v->scope[i];
    return NULL;
}

static const Decl *find_name(V *v, const char *name)
{
    for (int i = v->n - 1; i >= 0; i--)
        if (!strcmp(v->scope[i].var->name, name))
            return &v->scope[i];
    return NULL;
}

static void define(V *v, const LVar *var, int ndims, const LStmt *st)
{
    if (!lir_name_is_valid(var->name)) {
        problem(v, NULL, st, "name '%s' cannot be written as text",
                var->name ? var->name : "");
        return;
    }
    if (find_name(v, var->name)) {
        problem(v, NULL, st, "'%s' is already defined", var->name);
        return;
    }
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 32;
        v->scope = tl_xrealloc(v->scope, (size_t)v->cap * sizeof *v->scope);
    }
    v->scope[v->n].var = var;
    v->scope[v->n].ndims = ndims;
    v->n++;
}

/* The declaration of a reference, or NULL after a problem. */
static const Decl *use(V *v, const LVar *var, LVarKind kind,
                       const LExpr *e, const LStmt *st)
{
    const Decl *d;

    if (!var) {
        problem(v, e, st, "missing variable");
        return NULL;
    }
    d = find(v, var);
    if (!d) {
        if (find_name(v, var->name))
            problem(v, e, st, "'%s' is a different variable than the "
                    "'%s' in scope", var->name, var->name);
        else
            problem(v, e, st, "'%s' is used outside its scope", var->name);
        return NULL;
    }
    if (var->kind != kind) {
        problem(v, e, st, kind == LV_BUFFER ? "'%s' is not a buffer" :
                          kind == LV_FUNC ? "'%s' is not a function" :
                          var->kind == LV_FUNC ? "function '%s' used as a "
                                                 "value"
                                               : "buffer '%s' used as a value",
                var->name);
        return NULL;
    }
    return d;
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static void expr(V *v, const LExpr *e, const LStmt *st);

static int is_num(TlDType dt)
{
    return dt_is_int(dt) || dt_is_float(dt);
}

static int lanes_ok(int lanes)
{
    return lanes >= 1 && lanes <= LIR_MAX_LANES;
}

/* Checks the indices of a load or store of buf; returns their common
 * lane count (1 when all are scalar), or 0 after a problem. */
static int indices(V *v, const LVar *buf, LExpr *const *idx, int n,
                   const LExpr *e, const LStmt *st)
{
    const Decl *d = use(v, buf, LV_BUFFER, e, st);
    int lanes = 1, ok = 1;

    for (int i = 0; i < n; i++) {
        expr(v, idx[i], st);
        if (idx[i] && idx[i]->type.lanes > lanes)
            lanes = idx[i]->type.lanes;
    }
    if (!d)
        return 0;
    if (n != (d->ndims ? d->ndims : 1)) {
        problem(v, e, st, "'%s' takes %d index%s, not %d", buf->name,
                d->ndims ? d->ndims : 1, d->ndims > 1 ? "es" : "", n);
        ok = 0;
    }
    for (int i = 0; i < n; i++) {
        if (!idx[i])
            continue;
        if (!dt_is_int(idx[i]->type.dt)) {
            problem(v, e, st, "index %d of '%s' is %s, not an integer",
                    i + 1, buf->name, dt_name(idx[i]->type.dt));
            ok = 0;
        } else if (idx[i]->type.lanes != 1 &&
                   idx[i]->type.lanes != lanes) {
            problem(v, e, st, "indices of '%s' have %d and %d lanes",
                    buf->name, idx[i]->type.lanes, lanes);
            ok = 0;
        }
    }
    return ok ? lanes : 0;
}

static void binary(V *v, const LExpr *e, const LStmt *st)
{
    const LExpr *a = e->a, *b = e->b;
    const char *name = lir_op_name(e->op);
    char ta[32], tb[32];
    LType want;

    if (lir_op_unary(e->op) || (unsigned)e->op >= LO__COUNT) {
        problem(v, e, st, "binary node with operator '%s'", name);
        return;
    }
    if (!a || !b)
        return;
    type_str(ta, sizeof ta, a->type);
    type_str(tb, sizeof tb, b->type);
    if (!lir_type_eq(a->type, b->type)) {
        problem(v, e, st, "operands of '%s' have types %s and %s", name,
                ta, tb);
        return;
    }
    switch (lir_op_class(e->op)) {
    case 'L':
        if (a->type.dt != DT_BOOL)
            problem(v, e, st, "'%s' needs bool operands, not %s", name, ta);
        break;
    case 'C':
        if ((a->type.dt == DT_BOOL || a->type.dt == DT_STR) &&
            e->op != LO_EQ && e->op != LO_NE)
            problem(v, e, st, "'%s' does not apply to %s", name,
                    dt_name(a->type.dt));
        break;
    default:
        if (!is_num(a->type.dt))
            problem(v, e, st, "'%s' needs numbers, not %s", name, ta);
        break;
    }
    want = a->type;
    if (lir_op_class(e->op) != 'A')
        want.dt = DT_BOOL;
    if (!lir_type_eq(e->type, want)) {
        type_str(ta, sizeof ta, e->type);
        type_str(tb, sizeof tb, want);
        problem(v, e, st, "node has type %s, its operands give %s", ta, tb);
    }
}

static void unary(V *v, const LExpr *e, const LStmt *st)
{
    const LExpr *a = e->a;
    char ta[32];

    if (!lir_op_unary(e->op)) {
        problem(v, e, st, "unary node with operator '%s'",
                lir_op_name(e->op));
        return;
    }
    if (!a)
        return;
    type_str(ta, sizeof ta, a->type);
    if (e->op == LO_NOT && a->type.dt != DT_BOOL)
        problem(v, e, st, "'!' needs a bool operand, not %s", ta);
    if (e->op == LO_NEG && !is_num(a->type.dt))
        problem(v, e, st, "'-' needs a number, not %s", ta);
    if (!lir_type_eq(e->type, a->type))
        problem(v, e, st, "node has a type its operand does not give");
}

/* A call of an LV_FUNC: its signature's dtypes, the call's lanes. */
static void call_func(V *v, const LExpr *e, const LStmt *st)
{
    const LVar *f = e->var;

    if (!use(v, f, LV_FUNC, e, st))
        return;
    if (e->nargs != f->nsig) {
        problem(v, e, st, "'%s' takes %d arguments, not %d", f->name,
                f->nsig, e->nargs);
        return;
    }
    for (int i = 0; i < e->nargs; i++)
        if (e->args[i] && (e->args[i]->type.dt != f->sig[i] ||
                           e->args[i]->type.lanes != e->type.lanes)) {
            problem(v, e, st, "argument %d of '%s' has another type than "
                    "its parameter", i + 1, f->name);
            return;
        }
    if (e->type.dt != f->type.dt)
        problem(v, e, st, "node has another type than '%s' returns",
                f->name);
}

static void call(V *v, const LExpr *e, const LStmt *st)
{
    const char *name = lir_call_name(e->fn);
    char ta[32];

    if (e->var) {
        call_func(v, e, st);
        return;
    }
    if ((unsigned)e->fn >= LC__COUNT) {
        problem(v, e, st, "unknown function");
        return;
    }
    if (e->nargs != lir_call_nargs(e->fn)) {
        problem(v, e, st, "'%s' takes %d arguments, not %d", name,
                lir_call_nargs(e->fn), e->nargs);
        return;
    }
    if (lir_call_ints(e->fn) == 3) {        /* fnv(i64 h, any v): i64 */
        if (e->args[0] && e->args[1] &&
            (!lir_type_eq(e->args[0]->type, lir_type(DT_I64, 1)) ||
             e->args[1]->type.lanes != 1 ||
             !lir_type_eq(e->type, lir_type(DT_I64, 1))))
            problem(v, e, st, "'%s' takes an i64 and a scalar, and gives "
                    "an i64", name);
        return;
    }
    for (int i = 0; i < e->nargs; i++) {
        const LExpr *a = e->args[i];
        if (!a)
            return;
        type_str(ta, sizeof ta, a->type);
        if (!lir_type_eq(a->type, e->args[0]->type)) {
            problem(v, e, st, "arguments of '%s' have different types",
                    name);
            return;
        }
        if (lir_call_ints(e->fn) == 4 ? a->type.dt != DT_STR
            : lir_call_ints(e->fn) == 2 ? a->type.dt != DT_I64
                                        : !dt_is_float(a->type.dt) &&
            !(lir_call_ints(e->fn) && dt_is_int(a->type.dt))) {
            problem(v, e, st, "'%s' does not apply to %s", name, ta);
            return;
        }
    }
    if (lir_call_ints(e->fn) == 2
            ? !lir_type_eq(e->type, lir_type(DT_F32, e->args[0]->type.lanes))
            : !lir_type_eq(e->type, e->args[0]->type))
        problem(v, e, st, "node has a type its arguments do not give");
}

static void constant(V *v, const LExpr *e, const LStmt *st)
{
    if (e->type.lanes != 1) {
        problem(v, e, st, "a constant must be scalar (use broadcast)");
        return;
    }
    if (e->kind == LE_INT) {
        if (!lir_int_fits(e->type.dt, e->ival))
            problem(v, e, st, "%lld is not a value of %s",
                    (long long)e->ival, dt_name(e->type.dt));
    } else if (!dt_is_float(e->type.dt)) {
        problem(v, e, st, "a float constant of dtype %s",
                dt_name(e->type.dt));
    } else if (!isnan(e->fval) &&
               lir_round_float(e->type.dt, e->fval) != e->fval) {
        problem(v, e, st, "%.17g is not a value of %s", e->fval,
                dt_name(e->type.dt));
    }
}

static void vector(V *v, const LExpr *e, const LStmt *st)
{
    const LExpr *a = e->a, *b = e->b;

    if (e->type.lanes < 2)
        problem(v, e, st, "a vector needs at least 2 lanes");
    if (!a || (e->kind == LE_RAMP && !b))
        return;
    if (a->type.lanes != 1) {
        problem(v, e, st, "the operand of a %s must be scalar",
                e->kind == LE_RAMP ? "ramp" : "broadcast");
        return;
    }
    if (e->kind == LE_RAMP) {
        if (!dt_is_int(a->type.dt))
            problem(v, e, st, "a ramp's base must be an integer, not %s",
                    dt_name(a->type.dt));
        else if (!lir_type_eq(a->type, b->type))
            problem(v, e, st, "a ramp's base and stride differ in type");
    }
    if (e->type.dt != a->type.dt)
        problem(v, e, st, "node has a type its operand does not give");
}

static void expr(V *v, const LExpr *e, const LStmt *st)
{
    int lanes;

    if (!e) {
        problem(v, NULL, st, "missing expression");
        return;
    }
    if (!lanes_ok(e->type.lanes) || e->type.dt <= DT_NONE ||
        e->type.dt >= DT__COUNT) {
        problem(v, e, st, "node has an invalid type");
        return;
    }
    /* Operands first, so that the innermost problem is reported. */
    if (e->kind != LE_LOAD) {
        if (e->a)
            expr(v, e->a, st);
        if (e->b)
            expr(v, e->b, st);
        if (e->c)
            expr(v, e->c, st);
        if (e->kind == LE_CALL)
            for (int i = 0; i < e->nargs; i++)
                expr(v, e->args[i], st);
    }
    switch (e->kind) {
    case LE_INT:
    case LE_FLOAT:
        constant(v, e, st);
        break;
    case LE_VAR:
        if (use(v, e->var, LV_VALUE, e, st) &&
            !lir_type_eq(e->type, e->var->type))
            problem(v, e, st, "reference to '%s' has another type than "
                    "'%s'", e->var->name, e->var->name);
        break;
    case LE_LOAD:
        lanes = indices(v, e->var, e->args, e->nargs, e, st);
        if (lanes && !lir_type_eq(e->type,
                                  lir_type(e->var->type.dt, lanes)))
            problem(v, e, st, "a load of '%s' has the wrong type",
                    e->var->name);
        break;
    case LE_BINARY:
        if (!e->a || !e->b)
            problem(v, e, st, "missing operand");
        else
            binary(v, e, st);
        break;
    case LE_UNARY:
        if (!e->a)
            problem(v, e, st, "missing operand");
        else
            unary(v, e, st);
        break;
    case LE_SELECT:
        if (!e->a || !e->b || !e->c) {
            problem(v, e, st, "missing operand");
        } else if (e->a->type.dt != DT_BOOL ||
                   (e->a->type.lanes != 1 &&
                    e->a->type.lanes != e->b->type.lanes)) {
            problem(v, e, st, "the condition of select must be bool, "
                    "scalar or with the value's lanes");
        } else if (!lir_type_eq(e->b->type, e->c->type) ||
                   !lir_type_eq(e->type, e->b->type)) {
            problem(v, e, st, "the values of select differ in type");
        }
        break;
    case LE_CAST:
        if (!e->a)
            problem(v, e, st, "missing operand");
        else if (e->type.lanes != e->a->type.lanes)
            problem(v, e, st, "a cast changes the number of lanes");
        break;
    case LE_CALL:
        call(v, e, st);
        break;
    case LE_RAMP:
    case LE_BROADCAST:
        vector(v, e, st);
        break;
    default:
        problem(v, NULL, st, "unknown expression kind %d", (int)e->kind);
        break;
    }
}

/* An expression that must be a scalar of an integer dtype. */
static void scalar_int(V *v, const LExpr *e, const LStmt *st,
                       const char *what)
{
    expr(v, e, st);
    if (e && (e->type.lanes != 1 || !dt_is_int(e->type.dt)))
        problem(v, e, st, "%s must be a scalar integer", what);
}

/* ====================================================================
 * Statements
 * ==================================================================== */

static void stmt(V *v, const LStmt *st);

/* A statement in a scope of its own (loop and branch bodies). */
static void scoped(V *v, const LStmt *st)
{
    int mark = v->n;
    stmt(v, st);
    v->n = mark;
}

static void for_stmt(V *v, const LStmt *st)
{
    int mark = v->n;

    scalar_int(v, st->a, st, "a loop bound");
    scalar_int(v, st->b, st, "a loop bound");
    if (st->a && st->b && !lir_type_eq(st->a->type, st->b->type))
        problem(v, NULL, st, "the loop bounds differ in type");
    if ((unsigned)st->loop >= LP__COUNT)
        problem(v, NULL, st, "unknown loop kind");
    if (st->loop == LP_VECTORIZED && !lanes_ok(st->width))
        problem(v, NULL, st, "vector width %d is not between 1 and %d",
                st->width, LIR_MAX_LANES);
    if (st->loop == LP_DISTRIBUTED && !lir_name_is_valid(st->level))
        problem(v, NULL, st, "a distributed loop needs a level name");
    if (!st->var || st->var->kind != LV_VALUE) {
        problem(v, NULL, st, "a loop needs a value variable");
    } else {
        if (st->a && !lir_type_eq(st->var->type, st->a->type))
            problem(v, NULL, st, "loop variable '%s' has another type "
                    "than its bounds", st->var->name);
        define(v, st->var, 0, st);
    }
    if (!st->body)
        problem(v, NULL, st, "missing loop body");
    else
        stmt(v, st->body);
    v->n = mark;
}

static void stmt(V *v, const LStmt *st)
{
    int mark, lanes;

    if (!st) {
        problem(v, NULL, NULL, "missing statement");
        return;
    }
    switch (st->kind) {
    case LS_FOR:
        for_stmt(v, st);
        break;
    case LS_LET:
        expr(v, st->a, st);
        if (!st->var || st->var->kind != LV_VALUE)
            problem(v, NULL, st, "a let needs a value variable");
        else if (st->a && !lir_type_eq(st->var->type, st->a->type))
            problem(v, NULL, st, "'%s' has another type than its value",
                    st->var->name);
        else
            define(v, st->var, 0, st);
        break;
    case LS_STORE:
        expr(v, st->a, st);
        lanes = indices(v, st->var, st->args, st->nargs, NULL, st);
        if (lanes && st->a &&
            !lir_type_eq(st->a->type, lir_type(st->var->type.dt, lanes)))
            problem(v, NULL, st, "the value stored into '%s' has the "
                    "wrong type", st->var->name);
        break;
    case LS_ALLOC:
        if (st->nargs < 1)
            problem(v, NULL, st, "an allocation needs a size");
        if ((unsigned)st->mem >= LM__COUNT)
            problem(v, NULL, st, "unknown memory kind");
        for (int i = 0; i < st->nargs; i++) {
            scalar_int(v, st->args[i], st, "a size");
            if (st->mem == LM_REGISTER && st->args[i] &&
                st->args[i]->kind != LE_INT)
                problem(v, NULL, st, "a register allocation needs "
                        "constant sizes");
            else if (st->args[i] && st->args[i]->kind == LE_INT &&
                     st->args[i]->ival < 0)
                problem(v, NULL, st, "a size is negative");
        }
        if (!st->var || st->var->kind != LV_BUFFER)
            problem(v, NULL, st, "an allocation needs a buffer");
        else
            define(v, st->var, st->nargs, st);
        break;
    case LS_IF:
        expr(v, st->a, st);
        if (st->a && !lir_type_eq(st->a->type, lir_type(DT_BOOL, 1)))
            problem(v, NULL, st, "the condition must be a scalar bool");
        if (!st->body)
            problem(v, NULL, st, "missing then-branch");
        else
            scoped(v, st->body);
        if (st->orelse)
            scoped(v, st->orelse);
        break;
    case LS_BLOCK:
        if (st->nitems == 1)
            problem(v, NULL, st, "a block of one statement (use "
                    "lir_block)");
        mark = v->n;
        for (int i = 0; i < st->nitems; i++)
            stmt(v, st->items[i]);
        v->n = mark;
        break;
    default:
        problem(v, NULL, NULL, "unknown statement kind %d", (int)st->kind);
        break;
    }
}

int lir_verify(const LFunc *f, TlBuf *err)
{
    V v;

    memset(&v, 0, sizeof v);
    v.err = err;
    if (!lir_name_is_valid(f->name))
        problem(&v, NULL, NULL, "function name '%s' cannot be written",
                f->name ? f->name : "");
    for (int i = 0; i < f->nparams; i++) {
        const LParam *p = &f->params[i];
        if (!p->var) {
            problem(&v, NULL, NULL, "parameter %d has no variable", i + 1);
            continue;
        }
        if (p->var->kind == LV_VALUE && p->ndims)
            problem(&v, NULL, NULL, "scalar parameter '%s' has dims",
                    p->var->name);
        if (!lanes_ok(p->var->type.lanes) ||
            p->var->type.dt <= DT_NONE || p->var->type.dt >= DT__COUNT ||
            (p->var->kind == LV_BUFFER && p->var->type.lanes != 1))
            problem(&v, NULL, NULL, "parameter '%s' has an invalid type",
                    p->var->name);
        for (int k = 0; k < p->ndims; k++)
            scalar_int(&v, p->dims[k], NULL, "a dimension");
        define(&v, p->var, p->ndims, NULL);
    }
    stmt(&v, f->body);
    free(v.scope);
    return v.nerr;
}
