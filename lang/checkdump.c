/*
 * checkdump.c - the checked pipeline as text (`tdsl dump --pipeline`):
 * per kernel its sizes, scalars, inputs, then every stage, output and
 * call in dependency order with domains, dtypes and checked
 * expressions, then its schedules with resolved references.
 *
 * In expressions, an implicit conversion shows as `<f32>(x)`, a read
 * that needs a run-time bounds check as `A[i, k]!`, and a reduction
 * with its variables' ranges: `sum(k in 0..K)`.
 *
 * A generic kernel shows its dtype variables, packs and parameters as
 * written and the names of its instances; each instance made while
 * checking the program follows it as an ordinary kernel.
 */
#include "lang/lang_int.h"

#include <string.h>

static void expr(TlBuf *b, const TlExpr *e, int prec);

static void range(TlBuf *b, const TlSymExpr *lo, const TlSymExpr *ext)
{
    TlArena a;

    if (!lo || !ext) {
        buf_puts(b, "?");
        return;
    }
    arena_init(&a);
    tl_sym_print(b, lo);
    buf_puts(b, "..");
    tl_sym_print(b, sym_add(&a, lo, ext));
    arena_free(&a);
}

/* Precedence levels as in SPEC 7.1 (higher binds tighter). */
static int op_prec(TlOp op)
{
    switch (op) {
    case OP_OR: return 2;
    case OP_AND: return 3;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        return 4;
    case OP_ADD: case OP_SUB: return 5;
    default: return 6;
    }
}

static void args(TlBuf *b, const TlExprList *l)
{
    for (int i = 0; i < l->n; i++) {
        if (i)
            buf_puts(b, ", ");
        expr(b, l->v[i], 0);
    }
}

static void reduce(TlBuf *b, const TlExpr *e)
{
    buf_printf(b, "%s(", op_spelling(e->op));
    for (int i = 0; i < e->args.n; i++) {
        const TlExpr *x = e->args.v[i];
        const TlVar *v = x ? x->sym : NULL;
        if (i)
            buf_puts(b, ", ");
        buf_puts(b, x && x->str ? x->str : "?");
        if (tl_ref_kind(v) == REF_VAR) {
            buf_puts(b, " in ");
            range(b, v->lo, v->extent);
        }
    }
    buf_puts(b, ") ");
    expr(b, e->a, 1);
}

static void expr(TlBuf *b, const TlExpr *e, int prec)
{
    int p;

    if (!e) {
        buf_puts(b, "?");
        return;
    }
    switch (e->kind) {
    case EX_INT:
        buf_printf(b, "%lld", (long long)e->ival);
        break;
    case EX_FLOAT:
        buf_puts(b, e->str ? e->str : "?");
        break;
    case EX_BOOL:
        buf_puts(b, e->ival ? "true" : "false");
        break;
    case EX_STR:
        buf_printf(b, "\"%s\"", e->str ? e->str : "");
        break;
    case EX_NAME:
        buf_puts(b, e->str ? e->str : "?");
        break;
    case EX_MEMBER:
        expr(b, e->a, 9);
        buf_printf(b, ".%s", e->str ? e->str : "?");
        break;
    case EX_INDEX:
        expr(b, e->a, 9);
        buf_putc(b, '[');
        args(b, &e->args);
        buf_putc(b, ']');
        if (tl_ref_kind(e->sym) == REF_READ && ((TlRead *)e->sym)->check)
            buf_putc(b, '!');
        break;
    case EX_SLICE:
        expr(b, e->a, 0);
        buf_putc(b, ':');
        expr(b, e->b, 0);
        break;
    case EX_CALL:
        expr(b, e->a, 9);
        buf_putc(b, '(');
        args(b, &e->args);
        buf_putc(b, ')');
        break;
    case EX_NAMED:
        buf_printf(b, "%s = ", e->str ? e->str : "?");
        expr(b, e->a, 0);
        break;
    case EX_REDUCE:
        if (prec > 1)
            buf_putc(b, '(');
        reduce(b, e);
        if (prec > 1)
            buf_putc(b, ')');
        break;
    case EX_UNARY:
        buf_puts(b, op_spelling(e->op));
        expr(b, e->a, 7);
        break;
    case EX_BINARY:
        p = op_prec(e->op);
        if (p < prec)
            buf_putc(b, '(');
        expr(b, e->a, p == 4 ? 5 : p);
        buf_printf(b, " %s ", op_spelling(e->op));
        expr(b, e->b, p + 1);
        if (p < prec)
            buf_putc(b, ')');
        break;
    case EX_CAST:
        buf_printf(b, e->ival == 1 ? "<%s>(" : "%s(", dt_name(e->dtype));
        expr(b, e->a, 0);
        buf_putc(b, ')');
        break;
    case EX_LIST:
        buf_putc(b, '[');
        args(b, &e->args);
        buf_putc(b, ']');
        break;
    case EX_ON:
        expr(b, e->a, 2);
        buf_printf(b, " on %s", e->str ? e->str : "?");
        break;
    default:
        buf_puts(b, "?");
        break;
    }
}

static void shape(TlBuf *b, const TlFunc *f)
{
    buf_printf(b, "%s[", dt_name(f->dtype));
    for (int j = 0; j < f->rank; j++) {
        if (j)
            buf_puts(b, ", ");
        tl_sym_print(b, f->axes[j].extent);
    }
    buf_putc(b, ']');
}

static const char *kind_name(TlFuncKind k)
{
    switch (k) {
    case FN_INPUT: return "input";
    case FN_STAGE: return "stage";
    case FN_OUTPUT: return "output";
    case FN_CALL: return "result";
    case FN_CONST: return "const";
    }
    return "?";
}

static void call_line(TlBuf *b, const TlCall *call)
{
    const TlKernelInfo *k = call->callee;

    buf_printf(b, "  call %s = %s(", call->name ? call->name : "?", k->name);
    for (int i = 0; i < k->ninputs; i++) {
        buf_puts(b, i ? ", " : "");
        buf_puts(b, call->inputs && call->inputs[i] ? call->inputs[i]->name
                                                      : "?");
    }
    for (int j = 0; j < k->nscalars; j++) {
        buf_printf(b, "%s%s = ", k->ninputs + j ? ", " : "",
                   k->scalars[j]->name);
        if (call->args[k->ninputs + j])
            expr(b, call->args[k->ninputs + j], 0);
        else
            buf_puts(b, "default");
    }
    buf_puts(b, ")\n");
    if (k->nsizes) {
        buf_puts(b, "    sizes");
        for (int i = 0; i < k->nsizes; i++) {
            buf_printf(b, "%s %s = ", i ? "," : "", k->sizes[i]->name);
            tl_sym_print(b, call->sizes[i]);
        }
        buf_putc(b, '\n');
    }
}

static void func_line(TlBuf *b, const TlFunc *f)
{
    buf_printf(b, "  %s %s", kind_name(f->kind), f->name);
    if (f->value) {
        buf_putc(b, '[');
        for (int j = 0; j < f->rank; j++) {
            const TlVar *v = f->axes[j].var;
            if (j)
                buf_puts(b, ", ");
            buf_printf(b, "%s in ", v ? v->name : "?");
            range(b, f->axes[j].lo, f->axes[j].extent);
        }
        buf_printf(b, "]: %s = ", dt_name(f->dtype));
        expr(b, f->value, 0);
    } else if (f->call) {
        buf_puts(b, ": ");
        shape(b, f);
        buf_printf(b, " = %s.%s", f->call->name ? f->call->name : "?",
                   f->call->callee->outputs[f->call_out]->name);
    } else {
        buf_puts(b, ": ");
        shape(b, f);
    }
    if (f->fixed && f->kind == FN_STAGE)
        buf_puts(b, "  (fixed)");
    if (f->kind == FN_CONST && f->let && f->let->verify)
        buf_puts(b, "  (declared; checked at run time)");
    buf_putc(b, '\n');
}

static void sched_arg(TlBuf *b, const TlSchedArg *a)
{
    switch (a->kind) {
    case SARG_VAR:
        buf_puts(b, a->var ? a->var->name : "?");
        break;
    case SARG_INT:
        buf_printf(b, "%lld", (long long)a->ival);
        break;
    case SARG_EXPR:
        tl_sym_print(b, a->sym);
        break;
    case SARG_FUNC:
        buf_puts(b, a->func ? a->func->name : "?");
        break;
    case SARG_NAME:
        buf_puts(b, a->name ? a->name : "?");
        break;
    case SARG_LIST:
        buf_putc(b, '[');
        for (int i = 0; i < a->nitems; i++) {
            buf_puts(b, i ? ", " : "");
            sched_arg(b, &a->items[i]);
        }
        buf_putc(b, ']');
        break;
    }
}

static void schedule(TlBuf *b, const TlSchedInfo *si)
{
    buf_printf(b, "  schedule for %s", si->target ? si->target : "?");
    if (si->variant)
        buf_printf(b, " as %s", si->variant);
    buf_putc(b, '\n');
    for (int i = 0; i < si->nchains; i++) {
        const TlSchedChain *ch = si->chains[i];
        buf_puts(b, "    ");
        for (int j = 0; j < ch->npath; j++)
            buf_printf(b, "%s.", ch->path[j]->name);
        buf_puts(b, ch->func ? ch->func->name : "?");
        for (int j = 0; j < ch->ndirs; j++) {
            const TlSchedDir *d = &ch->dirs[j];
            buf_printf(b, " %s(", d->name);
            for (int m = 0; m < d->nargs; m++) {
                buf_puts(b, m ? ", " : "");
                sched_arg(b, &d->args[m]);
            }
            buf_putc(b, ')');
        }
        buf_putc(b, '\n');
    }
    for (int i = 0; i < si->nlayouts; i++)
        buf_printf(b, "    layout %s\n", si->layouts[i]->func
                                               ? si->layouts[i]->func->name
                                               : "?");
}

static void kernel(TlBuf *b, const TlKernelInfo *k)
{
    buf_printf(b, "kernel %s%s\n", k->name, k->ok ? "" : " (errors)");
    for (int i = 0; i < k->nsizes; i++) {
        const TlVar *v = k->sizes[i];
        buf_printf(b, "  size %s = %s axis %d\n", v->name,
                   v->bound_by ? v->bound_by->name : "?", v->bound_axis);
    }
    for (int i = 0; i < k->nscalars; i++) {
        const TlVar *v = k->scalars[i];
        buf_printf(b, "  scalar %s: %s", v->name, dt_name(v->dtype));
        if (v->param && v->param->init) {
            buf_puts(b, " = ");
            expr(b, v->param->init, 0);
        }
        buf_putc(b, '\n');
    }
    for (int i = 0; i < k->ninputs; i++)
        func_line(b, k->inputs[i]);
    for (int i = 0; i < k->nconsts; i++)
        func_line(b, k->consts[i]);
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *f = k->funcs[i];
        if (f->call && f->call->results[0] == f)
            call_line(b, f->call);
        else if (f->call) {
            int first = 1;
            for (int j = 0; j < f->call_out; j++)
                first &= f->call->results[j] == NULL;
            if (first)
                call_line(b, f->call);
        }
        func_line(b, f);
    }
    for (int i = 0; i < k->nschedules; i++)
        schedule(b, k->schedules[i]);
}

/* A parameter of a generic kernel as written: `X: T[..S, N]`. */
static void generic_param(TlBuf *b, const char *what, const TlFunc *f)
{
    const TlParam *p = f->param;

    buf_printf(b, "  %s %s: %s", what, f->name,
               p->dtype_var ? p->dtype_var : dt_name(p->dtype));
    if (f->kind != FN_INPUT && f->kind != FN_OUTPUT) {
        if (p->init) {
            buf_puts(b, " = ");
            ast_print_expr(b, p->init);
        }
        buf_putc(b, '\n');
        return;
    }
    buf_putc(b, '[');
    for (int j = 0; j < p->shape.n; j++) {
        if (j)
            buf_puts(b, ", ");
        ast_print_expr(b, p->shape.v[j]);
    }
    buf_puts(b, "]\n");
}

static void generic_kernel(TlBuf *b, const TlKernelInfo *k)
{
    buf_printf(b, "generic kernel %s%s\n", k->name, k->ok ? "" : " (errors)");
    for (int i = 0; i < k->ntvars; i++)
        buf_printf(b, "  dtype %s: %s\n", k->tvars[i]->name,
                   k->tvars[i]->kind_text);
    for (int i = 0; i < k->npacks; i++)
        buf_printf(b, "  pack %s = %s\n", k->packs[i]->name,
                   k->packs[i]->bound_by ? k->packs[i]->bound_by->name
                                         : "?");
    for (int i = 0; i < k->nscalars; i++) {
        TlFunc f = {0};
        f.name = k->scalars[i]->name;
        f.param = k->scalars[i]->param;
        f.kind = FN_STAGE;
        generic_param(b, "scalar", &f);
    }
    for (int i = 0; i < k->ninputs; i++)
        generic_param(b, "input", k->inputs[i]);
    for (int i = 0; i < k->noutputs; i++)
        generic_param(b, "output", k->outputs[i]);
    for (int i = 0; i < k->ninstances; i++)
        buf_printf(b, "  instance %s\n", k->instances[i]->name);
    for (int i = 0; i < k->nschedules; i++) {
        const TlSchedInfo *si = k->schedules[i];
        buf_printf(b, "  schedule for %s", si->target ? si->target : "?");
        if (si->variant)
            buf_printf(b, " as %s", si->variant);
        buf_puts(b, " (checked in each instance)\n");
    }
    for (int i = 0; i < k->ninstances; i++)
        kernel(b, k->instances[i]);
}

void tl_dump_pipeline(TlBuf *out, TlSession *s, const TlProgram *prog)
{
    (void)s;
    if (!prog)
        return;
    for (int i = 0; i < prog->items.n; i++) {
        const TlKernelInfo *k = tl_kernel_info(prog->items.v[i]);
        if (k && k->generic)
            generic_kernel(out, k);
        else if (k)
            kernel(out, k);
    }
}
