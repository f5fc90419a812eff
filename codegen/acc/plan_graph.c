/*
 * plan_graph.c - the pipeline the layout planner works on, read from a
 * checked kernel: its tensors with concrete shapes, and per stage its
 * loop variables, what it computes per iteration, and which variable
 * indexes each axis of each tensor it reads.
 *
 * Index expressions are read as affine forms over the stage's
 * variables.  An axis indexed by one variable is "that variable's"; by
 * several (a convolution's `y + r`) it belongs to the index variable,
 * and the others' extents, with any constant offset, are its halo: the
 * rows a block of it needs from its neighbours.  An axis indexed by
 * something else (a gather, a constant) belongs to no variable and is
 * kept whole on every node that reads it.
 */
#include "codegen/acc/plan_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct Sizes {
    const TlKernelInfo *k;
    const int64_t *v;
} Sizes;

static int lookup(void *ctx, const TlVar *var, int64_t *out)
{
    const Sizes *z = ctx;

    for (int i = 0; z->v && i < z->k->nsizes; i++)
        if (z->k->sizes[i] == var) {
            *out = z->v[i];
            return 0;
        }
    return -1;
}

static int unsupported(AccPlan *p, TlLoc loc, const char *what)
{
    diag_error(p->s, loc, DIAG_ACC_CG_UNSUPPORTED, what);
    return -1;
}

/* The tensor of f, added when new. */
static int tensor_of(AccPlan *p, const TlFunc *f)
{
    for (int i = 0; i < p->nt; i++)
        if (p->t[i].f == f)
            return i;
    return -1;
}

static int add_tensor(AccPlan *p, const TlFunc *f, PlRole role,
                      const Sizes *z, TlLoc loc)
{
    PlTensor *t = &p->t[p->nt];

    if (f->rank < 1 || f->rank > ACC_LAYOUT_MAX_RANK ||
        f->dtype == DT_NONE)
        return unsupported(p, loc, "tensors of this rank (1 to 8 axes)");
    memset(t, 0, sizeof *t);
    t->f = f;
    t->name = f->name;
    t->role = role;
    t->dt = f->dtype;
    t->rank = f->rank;
    t->nelems = 1;
    for (int a = 0; a < f->rank; a++) {
        if (tl_sym_eval(f->axes[a].extent, lookup, (void *)z,
                        &t->shape[a]) || t->shape[a] < 1) {
            char *w = arena_printf(&p->s->arena, "'%s', whose size is not "
                                   "known (give the sizes)", f->name);
            return unsupported(p, loc, w);
        }
        t->nelems *= t->shape[a];
    }
    if (t->nelems > ACC_LAYOUT_MAX_ELEMS)
        return unsupported(p, loc, "tensors this large");
    return p->nt++;
}

/* ====================================================================
 * Stages
 * ==================================================================== */

typedef struct Aff {
    int64_t c;
    int64_t coef[PL_MAX_VARS];
    int ok;
} Aff;

static int var_of(const PlOp *o, const TlVar *v)
{
    for (int i = 0; i < o->nvars; i++)
        if (o->vars[i] == v)
            return i;
    return -1;
}

static void affine(const PlOp *o, const TlExpr *e, Aff *out)
{
    Aff a, b;

    memset(out, 0, sizeof *out);
    if (!e)
        return;
    switch (e->kind) {
    case EX_INT:
        out->c = e->ival;
        out->ok = 1;
        return;
    case EX_NAME:
        if (tl_ref_kind(e->sym) == REF_VAR) {
            const TlVar *v = e->sym;
            int i = var_of(o, v);
            if (i >= 0)
                out->coef[i] = 1;
            /* Sizes and scalars are constants here: offsets only. */
            out->ok = 1;
        }
        return;
    case EX_CAST:
        affine(o, e->a, out);
        return;
    case EX_UNARY:
        if (e->op == OP_NEG) {
            affine(o, e->a, out);
            out->c = -out->c;
            for (int i = 0; i < PL_MAX_VARS; i++)
                out->coef[i] = -out->coef[i];
        }
        return;
    case EX_BINARY:
        affine(o, e->a, &a);
        affine(o, e->b, &b);
        if (!a.ok || !b.ok)
            return;
        if (e->op == OP_ADD || e->op == OP_SUB) {
            int64_t sg = e->op == OP_ADD ? 1 : -1;
            out->c = a.c + sg * b.c;
            for (int i = 0; i < PL_MAX_VARS; i++)
                out->coef[i] = a.coef[i] + sg * b.coef[i];
            out->ok = 1;
        } else if (e->op == OP_MUL) {
            int ac = 1;
            for (int i = 0; i < PL_MAX_VARS; i++)
                ac &= a.coef[i] == 0;
            const Aff *x = ac ? &b : &a, *f = ac ? &a : &b;
            for (int i = 0; i < PL_MAX_VARS; i++)
                if (f->coef[i])
                    return;
            out->c = x->c * f->c;
            for (int i = 0; i < PL_MAX_VARS; i++)
                out->coef[i] = x->coef[i] * f->c;
            out->ok = 1;
        }
        return;
    default:
        return;
    }
}

static void add_read(AccPlan *p, PlOp *o, const TlRead *r,
                     const TlExpr *e)
{
    int t = tensor_of(p, r->func);
    PlRead *rd;

    if (t < 0 || o->nreads == PL_MAX_READS)
        return;
    for (int i = 0; i < o->nreads; i++)
        if (o->reads[i].t == t) {
            rd = &o->reads[i];
            goto merge;
        }
    rd = &o->reads[o->nreads++];
    memset(rd, 0, sizeof *rd);
    rd->t = t;
    for (int a = 0; a < ACC_LAYOUT_MAX_RANK; a++)
        rd->var[a] = -2;        /* not seen yet */
merge:
    for (int a = 0; a < e->args.n && a < ACC_LAYOUT_MAX_RANK; a++) {
        Aff f;
        int v = -1;
        int64_t halo = 0;
        affine(o, e->args.v[a], &f);
        if (f.ok) {
            /* The axis belongs to its index variable, else to a
             * reduction variable; the other variables are halo. */
            for (int i = 0; i < o->nvars && v < 0; i++)
                if (f.coef[i] == 1 || f.coef[i] == -1)
                    v = i;
            for (int i = 0; i < o->nvars; i++)
                if (f.coef[i] && i != v)
                    halo += (o->ext[i] - 1) * llabs(f.coef[i]);
            halo += llabs(f.c);
        }
        if (rd->var[a] == -2 || rd->var[a] == v) {
            rd->var[a] = v;
            if (halo > rd->halo[a])
                rd->halo[a] = halo;
        } else {
            rd->var[a] = -1;    /* read by two variables: keep whole */
        }
    }
}

static int is_long(const char *fn)
{
    static const char *const names[] = {
        "exp", "fast_exp", "log", "tanh", "sigmoid", "erf", "sin", "cos", "tan",
        "pow", "sqrt", "rsqrt",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(fn, names[i]))
            return 1;
    return 0;
}

/* Counts the vector ops per iteration of e and notes its reads. */
static void walk(AccPlan *p, PlOp *o, const TlExpr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case EX_INDEX:
        if (tl_ref_kind(e->sym) == REF_READ) {
            add_read(p, o, e->sym, e);
            return;
        }
        break;
    case EX_BINARY:
    case EX_UNARY:
        o->ops += 1;
        break;
    case EX_REDUCE:
        o->ops += 1;
        if (e->op == RD_SUM && e->a && e->a->kind == EX_BINARY &&
            e->a->op == OP_MUL && e->a->a && e->a->b &&
            e->a->a->kind == EX_INDEX && e->a->b->kind == EX_INDEX)
            o->matmul = 1;
        walk(p, o, e->a);
        return;
    case EX_CALL:
        o->ops += 1;
        if (e->a && e->a->kind == EX_NAME && e->a->str &&
            is_long(e->a->str))
            o->long_ops++;
        for (int i = 0; i < e->args.n; i++)
            walk(p, o, e->args.v[i]);
        return;
    default:
        break;
    }
    walk(p, o, e->a);
    walk(p, o, e->b);
    walk(p, o, e->c);
    if (e->kind != EX_INDEX)
        for (int i = 0; i < e->args.n; i++)
            walk(p, o, e->args.v[i]);
}

/* Whether e is a read the vector routes name as an operand of an op
 * (a tensor read or a constant: no mov of its own). */
static int operand(const TlExpr *e)
{
    return e && (e->kind == EX_INDEX || e->kind == EX_FLOAT ||
                 e->kind == EX_INT);
}

static const char *call_name(const TlExpr *e)
{
    return e->a && e->a->kind == EX_NAME && e->a->str ? e->a->str : "";
}

/* Steps of e for one chunk of 4 sub-cycles (one long word a
 * sub-cycle) into a register, as the vector routes emit it (cg_elem.c,
 * cg_pipe.c): a read or a constant is a mov, an op one step and its
 * second operand read in place, a division recip then mul, a long op
 * (exp, log) its occupancy, a sqrt rsqrt then recip.  The latencies
 * (one step of a GRF write, a long op's) are the routes' to hide in
 * the next chunk's ops: they interleave 4 chunks. */
static double route_steps(const AccMachine *m, const TlExpr *e)
{
    double s;

    if (!e)
        return 0;
    switch (e->kind) {
    case EX_INDEX:
    case EX_FLOAT:
    case EX_INT:
        return 1;
    case EX_UNARY:
    case EX_CAST:
        return route_steps(m, e->a) + (e->kind == EX_UNARY);
    case EX_BINARY:
        if (e->op == OP_DIV)
            return route_steps(m, e->a) + route_steps(m, e->b) + 2;
        return route_steps(m, e->a) +
               (operand(e->b) ? 0 : route_steps(m, e->b)) + 1;
    case EX_CALL:
        s = 0;
        for (int i = 0; i < e->args.n; i++)
            s += route_steps(m, e->args.v[i]);
        if (!strcmp(call_name(e), "sqrt"))
            return s + 2;
        if (!strcmp(call_name(e), "rsqrt"))
            return s + 1;
        return s + (is_long(call_name(e)) ? m->long_op_steps : 1);
    case EX_REDUCE:
        /* A sum folds each chunk of its body into a register (the
         * body's last op does, a read is its operand); a max or min
         * takes one column a step, the chunk's 4 in order (bit for
         * bit the interpreter's, ties of -0 and +0 included). */
        s = operand(e->a) ? 1 : route_steps(m, e->a) + 1;
        return e->op == RD_SUM ? s : (operand(e->a) ? 4 : s + 3);
    default:
        return route_steps(m, e->a) + route_steps(m, e->b);
    }
}

/* The steps of stage f's value per chunk of its iterations: the
 * value's (route_steps), a reduction's result mapped once a row, the
 * mov of the result to its LM. */
static double stage_steps(const AccMachine *m, const TlExpr *e)
{
    const TlExpr *r = e;

    /* (sum(d) X[n, d]) / D: per row, not per iteration. */
    while (r && r->kind == EX_BINARY && r->a && r->a->kind != EX_REDUCE &&
           r->b && r->b->kind == EX_REDUCE)
        r = r->b;
    while (r && r->kind == EX_BINARY && r->a && r->a->kind == EX_REDUCE)
        r = r->a;
    if (r && r->kind == EX_REDUCE)
        return route_steps(m, r);
    return route_steps(m, e) + 1;
}

static int add_op(AccPlan *p, const TlFunc *f, const Sizes *z)
{
    PlOp *o = &p->op[p->nop];

    memset(o, 0, sizeof *o);
    o->f = f;
    o->out = tensor_of(p, f);
    for (int a = 0; a < f->rank; a++) {
        if (!f->axes[a].var || o->nvars == PL_MAX_VARS)
            return unsupported(p, f->loc, "stages without index variables");
        o->vars[o->nvars] = f->axes[a].var;
        o->ext[o->nvars] = p->t[o->out].shape[a];
        o->out_var[a] = o->nvars++;
    }
    o->nindex = o->nvars;
    for (int r = 0; r < f->nreds; r++)
        for (int j = 0; j < f->reds[r]->nrvars; j++) {
            const TlVar *v = f->reds[r]->rvars[j];
            int64_t x;
            if (o->nvars == PL_MAX_VARS)
                return unsupported(p, f->loc, "stages with this many "
                                              "loop variables");
            if (tl_sym_eval(v->extent, lookup, (void *)z, &x) || x < 1)
                return unsupported(p, v->loc, "reductions whose extent is "
                                              "not known");
            o->vars[o->nvars] = v;
            o->ext[o->nvars++] = x;
        }
    walk(p, o, f->value);
    if (o->ops < 1)
        o->ops = 1;     /* a copy */
    o->steps = stage_steps(p->m, f->value);
    p->nop++;
    return 0;
}

int pl_build(AccPlan *p, TlKernelInfo *k, const int64_t *sizes, TlLoc loc)
{
    Sizes z = {k, sizes};

    p->t = arena_alloc(&p->s->arena, (size_t)(k->ninputs + k->nfuncs + 1) *
                                         sizeof *p->t);
    p->op = arena_alloc(&p->s->arena, (size_t)(k->nfuncs + 1) *
                                          sizeof *p->op);
    if (k->ncalls)
        return unsupported(p, k->calls[0]->loc, "calls of other kernels "
                                                "(the planner sees one "
                                                "kernel's stages)");
    if (k->nconsts)
        return unsupported(p, loc, "kernels that read top-level tensors");
    for (int i = 0; i < k->ninputs; i++)
        if (add_tensor(p, k->inputs[i], PT_INPUT, &z, loc) < 0)
            return -1;
    for (int i = 0; i < k->nfuncs; i++) {
        const TlFunc *f = k->funcs[i];
        /* Asserts are checked on the host before the run
         * (target_assert.c): nothing on the device to lay out. */
        if (tl_func_is_assert(f))
            continue;
        if (!f->value)
            return unsupported(p, f->loc, "stages not defined by an "
                                          "expression");
        if (add_tensor(p, f, f->kind == FN_OUTPUT ? PT_OUTPUT : PT_STAGE,
                       &z, f->loc) < 0)
            return -1;
    }
    for (int i = 0; i < k->nfuncs; i++)
        if (!tl_func_is_assert(k->funcs[i]) && add_op(p, k->funcs[i], &z))
            return -1;
    return 0;
}
