/*
 * exec.c - running top-level statements: the interpreter object that
 * holds the values of top-level names, the statements (let, print,
 * assert, time, target, expression statements), and the evaluation of
 * top-level expressions: kernel calls (through itp_call_kernel, or a
 * registered back end for `on TARGET`), indexing and slicing, scalar
 * arithmetic, reductions over top-level tensors, casts and builtins.
 *
 * Expressions arrive checked (lang/checktop.c), so what is left to
 * check here is what only the values show: shapes and dtypes of loaded
 * tensors, indices computed at run time, files.  Each such error is
 * reported at the expression and makes the evaluation return -1, which
 * stops the program.
 */
#include "interp/script_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ====================================================================
 * Targets
 * ==================================================================== */

/* Back ends register once at start-up, so a small process-wide table
 * is enough; it is the one piece of global state here. */
enum { MAX_TARGETS = 8 };
static struct {
    const char *name;
    TlTargetRunner fn;
    TlTargetReport report;
} targets[MAX_TARGETS];

int itp_call_refused(const char *target, TlRuntime *rt, TlKernelInfo *k,
                     TlTensor *const *inputs, const TlScalarArg *scalars,
                     TlTensor **outputs, TlLoc call_loc)
{
    int rc = itp_call_kernel(rt, k, inputs, scalars, outputs, call_loc);

    if (rc == 0)
        tl_internal_error(__FILE__, __LINE__,
                          "%s backend refused a call of '%s' that the "
                          "interpreter runs", target, k->name);
    return rc;
}

void itp_register_target(const char *target, TlTargetRunner fn)
{
    int free_slot = -1;

    for (int i = 0; i < MAX_TARGETS; i++) {
        if (targets[i].name && !strcmp(targets[i].name, target)) {
            targets[i].fn = fn;
            if (!fn) {
                targets[i].name = NULL;
                targets[i].report = NULL;
            }
            return;
        }
        if (!targets[i].name && free_slot < 0)
            free_slot = i;
    }
    TL_ASSERT(free_slot >= 0);
    if (fn) {
        targets[free_slot].name = target;
        targets[free_slot].fn = fn;
    }
}

void itp_register_target_report(const char *target, TlTargetReport fn)
{
    for (int i = 0; i < MAX_TARGETS; i++)
        if (targets[i].name && !strcmp(targets[i].name, target)) {
            targets[i].report = fn;
            return;
        }
    TL_ASSERT(!"itp_register_target_report: target not registered");
}

static TlTargetReport target_report(const char *target)
{
    for (int i = 0; target && i < MAX_TARGETS; i++)
        if (targets[i].name && !strcmp(targets[i].name, target))
            return targets[i].report;
    return NULL;
}

TlTargetRunner itp_target_runner(const char *target)
{
    for (int i = 0; i < MAX_TARGETS; i++)
        if (targets[i].name && !strcmp(targets[i].name, target))
            return targets[i].fn;
    return NULL;
}

/* What is missing for a target, for the "not available yet" error. */
static const char *missing_backend(const char *target)
{
    if (!strcmp(target, "cpu"))
        return "the C backend is not built (issue 4)";
    if (!strcmp(target, "accel"))
        return "the accelerator simulator is not built (issue 6)";
    return "no back end is registered for it";
}

int itp_run_kernel(TlInterp *ip, const char *target, TlKernelInfo *k,
                   TlTensor *const *inputs, const TlScalarArg *scalars,
                   TlTensor **outputs, TlLoc call_loc)
{
    TlTargetRunner fn;

    if (!target)
        return itp_call_kernel(&ip->rt, k, inputs, scalars, outputs,
                               call_loc);
    fn = itp_target_runner(target);
    if (!fn) {
        diag_error(ip->s, call_loc, DIAG_TARGET_UNAVAILABLE, target,
                   missing_backend(target));
        if (ip->target && !strcmp(ip->target, target) &&
            ip->target_loc.file >= 0)
            diag_note(ip->s, ip->target_loc,
                      "later calls run on '%s' since this statement",
                      target);
        return -1;
    }
    return fn(&ip->rt, k, inputs, scalars, outputs, call_loc);
}

/* ====================================================================
 * The interpreter object
 * ==================================================================== */

static TlTensor *const_value(void *ctx, const TlLet *let)
{
    TlInterp *ip = ctx;
    const TlValue *v = itp_let_value(ip, let);
    ItpBinding *b;

    if (!v)
        return NULL;
    b = itp_find_let(ip, let);
    TL_ASSERT(b && (v->kind == VAL_TENSOR || v->kind == VAL_NUM));
    if (v->kind == VAL_TENSOR)
        return v->t;
    if (!b->t0)
        b->t0 = itp_value_tensor(v);
    return b->t0;
}

TlInterp *itp_new(TlSession *s)
{
    TlInterp *ip = tl_xcalloc(1, sizeof *ip);

    ip->s = s;
    ip->out = stdout;
    ip->rt.s = s;
    ip->rt.const_value = const_value;
    ip->rt.ctx = ip;
    ip->target_loc.file = -1;
    return ip;
}

void itp_free(TlInterp *ip)
{
    if (!ip)
        return;
    itp_bindings_free(ip);
    free(ip->rvars);
    free(ip->busy);
    free(ip);
}

void itp_set_output(TlInterp *ip, FILE *out)
{
    ip->out = out;
}

TlRuntime *itp_runtime(TlInterp *ip)
{
    return &ip->rt;
}

const TlValue *itp_lookup(TlInterp *ip, const char *name)
{
    ItpBinding *b = itp_find_name(ip, name);
    return b ? &b->v : NULL;
}

static int exec_let(TlInterp *ip, TlStmt *st);

const TlValue *itp_let_value(TlInterp *ip, const TlLet *let)
{
    ItpBinding *b = itp_find_let(ip, let);
    int r;

    if (b)
        return &b->v;
    /* Not run yet (a kernel run on its own reads it): run its
     * statement now.  The checker rules out cycles; the guard keeps a
     * broken invariant from recursing forever. */
    for (int i = 0; i < ip->nbusy; i++)
        TL_ASSERT(ip->busy[i] != let);
    if (ip->nbusy == ip->busy_cap) {
        ip->busy_cap = ip->busy_cap ? 2 * ip->busy_cap : 8;
        ip->busy = tl_xrealloc(ip->busy,
                               (size_t)ip->busy_cap * sizeof *ip->busy);
    }
    ip->busy[ip->nbusy++] = let;
    r = exec_let(ip, let->stmt);
    ip->nbusy--;
    if (r < 0)
        return NULL;
    b = itp_find_let(ip, let);
    TL_ASSERT(b);
    return &b->v;
}

/* ====================================================================
 * Helpers
 * ==================================================================== */

static const char *expr_name(const TlExpr *e)
{
    return e && e->kind == EX_NAME && e->str ? e->str : "value";
}

/* Evaluates e, which must give a scalar. */
static int eval_num(TlInterp *ip, TlExpr *e, TlValue *v)
{
    if (itp_eval(ip, e, v) < 0)
        return -1;
    TL_ASSERT(v->kind == VAL_NUM);
    return 0;
}

int itp_eval_int(TlInterp *ip, TlExpr *e, int64_t *v)
{
    TlValue x;

    if (eval_num(ip, e, &x) < 0)
        return -1;
    /* The checker wants integers here, also of loaded tensors. */
    TL_ASSERT(!dt_is_float(x.dtype) && x.dtype != DT_BOOL);
    *v = x.i;
    return 0;
}

/* Made only of literals (SPEC 8.3): takes the type of its context. */
static int is_weak(const TlExpr *e)
{
    switch (e->kind) {
    case EX_INT: case EX_FLOAT: case EX_BOOL:
        return 1;
    case EX_UNARY:
        return is_weak(e->a);
    case EX_BINARY:
        return is_weak(e->a) && is_weak(e->b);
    case EX_CAST:
        return e->ival == 1 && e->a && is_weak(e->a);
    default:
        return 0;
    }
}

static int has_float_literal(const TlExpr *e)
{
    if (!e)
        return 0;
    if (e->kind == EX_FLOAT)
        return 1;
    return has_float_literal(e->a) || has_float_literal(e->b);
}

/* The dtype of one operand next to another, by the rules of weak
 * literals: for operands whose type the checker could not know. */
static TlDType rt_promote(const TlExpr *ea, TlDType a, const TlExpr *eb,
                          TlDType b)
{
    int wa = is_weak(ea), wb = eb && is_weak(eb);

    if (!eb)
        return a;
    if (wa && !wb)
        return has_float_literal(ea) && !dt_is_float(b) ? DT_F32 : b;
    if (wb && !wa)
        return has_float_literal(eb) && !dt_is_float(a) ? DT_F32 : a;
    return itp_promote(a, b);
}

/* ====================================================================
 * Operators
 * ==================================================================== */

static int is_compare(TlOp op)
{
    return op >= OP_EQ && op <= OP_GE;
}

static int eval_operator(TlInterp *ip, TlExpr *e, TlValue *out)
{
    TlValue a, b;
    TlDType dt;
    int binary = e->kind == EX_BINARY;

    if (eval_num(ip, e->a, &a) < 0)
        return -1;
    b = a;
    if (binary && eval_num(ip, e->b, &b) < 0)
        return -1;
    if (e->op == OP_AND || e->op == OP_OR || e->op == OP_NOT) {
        const TlExpr *bad = a.dtype != DT_BOOL ? e->a
                            : b.dtype != DT_BOOL ? e->b : NULL;
        if (bad) {
            diag_error(ip->s, bad->loc, DIAG_LOGIC_NOT_BOOL,
                       op_spelling(e->op),
                       dt_name(bad == e->a ? a.dtype : b.dtype));
            return -1;
        }
        *out = binary ? itp_num_binary(e->op, DT_BOOL, &a, &b)
                      : itp_num_unary(e->op, DT_BOOL, &a);
        return 0;
    }
    /* The checker typed the operation unless an operand came from a
     * loaded tensor; then the values' own dtypes decide. */
    if (is_compare(e->op))
        dt = e->a->dtype != DT_NONE && (!binary || e->b->dtype != DT_NONE)
                 ? e->a->dtype : DT_NONE;
    else
        dt = e->dtype;
    if (dt == DT_NONE) {
        dt = rt_promote(e->a, a.dtype, binary ? e->b : NULL, b.dtype);
        if (dt == DT_BOOL && e->op != OP_EQ && e->op != OP_NE) {
            diag_error(ip->s, binary ? e->oploc : e->loc, DIAG_BOOL_OPERAND,
                       op_spelling(e->op));
            return -1;
        }
        if (!binary && dt_is_unsigned(dt) && !is_weak(e->a)) {
            diag_error(ip->s, e->loc, DIAG_NEG_UNSIGNED, dt_name(dt));
            return -1;
        }
    }
    *out = binary ? itp_num_binary(e->op, dt, &a, &b)
                  : itp_num_unary(e->op, dt, &a);
    return 0;
}

/* ====================================================================
 * Indexing and slicing
 * ==================================================================== */

static int eval_index(TlInterp *ip, TlExpr *e, TlValue *out)
{
    TlValue base;
    TlTensor *t;
    TlSlice sl[TL_MAX_RANK];
    int64_t idx[TL_MAX_RANK];
    int nslices = 0;
    const char *name = expr_name(e->a);
    char err[200];

    if (itp_eval(ip, e->a, &base) < 0)
        return -1;
    if (base.kind != VAL_TENSOR) {
        /* A loaded tensor of rank 0. */
        diag_error(ip->s, e->a->loc, DIAG_NOT_INDEXABLE, name, "scalar");
        itp_value_free(&base);
        return -1;
    }
    t = base.t;
    if (t->rank != e->args.n) {
        diag_error(ip->s, e->loc, DIAG_INDEX_COUNT, name, t->rank, e->args.n,
                   e->args.n == 1 ? "index is" : "indices are");
        goto fail;
    }
    memset(sl, 0, sizeof sl);
    for (int i = 0; i < e->args.n; i++) {
        TlExpr *x = e->args.v[i];
        int64_t n = t->shape[i], v;
        if (x->kind != EX_SLICE) {
            if (itp_eval_int(ip, x, &v) < 0)
                goto fail;
            if (v >= n || v < -n) {
                diag_error(ip->s, x->loc, DIAG_TOP_INDEX_OOB, (long long)v, i,
                           name, (long long)n);
                goto fail;
            }
            sl[i].is_index = 1;
            sl[i].index = v;
            idx[i] = v < 0 ? v + n : v;
            continue;
        }
        nslices++;
        sl[i].step = 1;
        if (x->a && itp_eval_int(ip, x->a, &sl[i].lo) < 0)
            goto fail;
        if (x->b && itp_eval_int(ip, x->b, &sl[i].hi) < 0)
            goto fail;
        if (x->c && itp_eval_int(ip, x->c, &sl[i].step) < 0)
            goto fail;
        if (sl[i].step <= 0) {
            diag_error(ip->s, x->c->loc, DIAG_SLICE_STEP,
                       (long long)sl[i].step);
            goto fail;
        }
        sl[i].has_lo = x->a != NULL;
        sl[i].has_hi = x->b != NULL;
    }
    if (nslices == 0) {
        /* One element: read it without making a view (reductions do
         * this once per element). */
        unsigned char *p = tl_tensor_at(t, idx);
        TlValue r;
        memset(&r, 0, sizeof r);
        r.kind = VAL_NUM;
        r.dtype = t->dtype;
        if (dt_is_float(t->dtype))
            r.f = tl_dt_load_f64(t->dtype, p);
        else
            r.i = tl_dt_load_i64(t->dtype, p);
        *out = r;
        itp_value_free(&base);
        return 0;
    }
    t = tl_tensor_slice(base.t, e->args.n, sl, err, sizeof err);
    TL_ASSERT(t);               /* every entry was checked above */
    itp_value_free(&base);
    *out = itp_value_of_tensor(t);
    return 0;
fail:
    itp_value_free(&base);
    return -1;
}

/* ====================================================================
 * Kernel calls
 * ==================================================================== */

/* The tensor arguments' dtypes and ranks, where the checker could not
 * see them (loaded tensors). */
static int check_input(TlInterp *ip, TlKernelInfo *k, int i, TlExpr *arg,
                       const TlTensor *t)
{
    TlFunc *p = k->inputs[i];

    if (t->rank != p->rank) {
        diag_error(ip->s, arg->loc, DIAG_KERNEL_ARG_RANK, p->name, k->name,
                   t->rank, p->rank);
        return -1;
    }
    if (t->dtype != p->dtype) {
        diag_error(ip->s, arg->loc, DIAG_KERNEL_ARG_DTYPE, p->name, k->name,
                   dt_name(t->dtype), dt_name(p->dtype));
        return -1;
    }
    return 0;
}

static int eval_kernel_call(TlInterp *ip, TlCall *call, const char *target,
                            TlLoc loc, TlValue *out)
{
    TlKernelInfo *k = call->callee;
    TlTensor **in = tl_xcalloc((size_t)k->ninputs + 1, sizeof *in);
    TlTensor **res = tl_xcalloc((size_t)k->noutputs + 1, sizeof *res);
    TlScalarArg *sc = tl_xcalloc((size_t)k->nscalars + 1, sizeof *sc);
    int r = -1;

    for (int i = 0; i < k->ninputs; i++) {
        TlValue v;
        TlExpr *arg = call->args[i];
        if (itp_eval(ip, arg, &v) < 0)
            goto done;
        in[i] = itp_value_tensor(&v);
        itp_value_free(&v);
        TL_ASSERT(in[i]);
        if (check_input(ip, k, i, arg, in[i]) < 0)
            goto done;
    }
    for (int j = 0; j < k->nscalars; j++) {
        TlExpr *arg = call->args[k->ninputs + j];
        TlDType dt = k->scalars[j]->dtype;
        TlValue v;
        if (!arg)
            continue;           /* the default */
        if (eval_num(ip, arg, &v) < 0)
            goto done;
        v = itp_num_cast(&v, dt);
        sc[j].given = 1;
        sc[j].is_float = dt_is_float(dt);
        sc[j].f = itp_num_get_f64(&v);
        sc[j].i = itp_num_get_i64(&v);
    }
    if (itp_run_kernel(ip, target, k, in, sc, res, loc) < 0)
        goto done;
    if (k->noutputs == 1) {
        *out = itp_value_of_tensor(res[0]);
    } else {
        memset(out, 0, sizeof *out);
        out->kind = VAL_MULTI;
        out->n = k->noutputs;
        out->items = tl_xcalloc((size_t)k->noutputs, sizeof *out->items);
        for (int i = 0; i < k->noutputs; i++)
            out->items[i] = itp_value_of_tensor(res[i]);
    }
    r = 0;
done:
    for (int i = 0; i < k->ninputs; i++)
        tl_tensor_unref(in[i]);
    free(in);
    free(res);
    free(sc);
    return r;
}

/* ====================================================================
 * Reductions over top-level tensors: `sum(k) A[k] * B[k]`
 * ==================================================================== */

/* The extent of the axis that rvar v indexes alone in some read of a
 * top-level tensor in e (how the checker inferred its range), or -1. */
static int64_t rvar_extent(TlInterp *ip, const TlExpr *e, const TlVar *v)
{
    int64_t n;

    if (!e)
        return -1;
    if (e->kind == EX_INDEX && e->a && tl_ref_kind(e->a->sym) == REF_LET) {
        for (int j = 0; j < e->args.n; j++) {
            const TlExpr *x = e->args.v[j];
            const TlValue *t;
            if (x->kind != EX_NAME || x->sym != v)
                continue;
            t = itp_let_value(ip, e->a->sym);
            if (t && t->kind == VAL_TENSOR && j < t->t->rank)
                return t->t->shape[j];
        }
    }
    if ((n = rvar_extent(ip, e->a, v)) >= 0 ||
        (n = rvar_extent(ip, e->b, v)) >= 0 ||
        (n = rvar_extent(ip, e->c, v)) >= 0)
        return n;
    for (int i = 0; i < e->args.n; i++)
        if ((n = rvar_extent(ip, e->args.v[i], v)) >= 0)
            return n;
    return -1;
}

typedef struct Red {
    TlReduce *red;
    TlExpr *body;
    TlDType dt;             /* the body's dtype, DT_NONE until known */
    int64_t *lo, *ext;
    TlValue acc;
    int have;               /* acc holds a value */
    int64_t arg;            /* argmax/argmin: the index so far */
} Red;

static TlValue identity(TlOp op, TlDType dt)
{
    int64_t bits = 8 * (int64_t)dt_size(dt);
    int want_low = op == RD_MAX;

    if (op == RD_SUM)
        return itp_num_i64(dt, 0);
    if (op == RD_PROD)
        return itp_num_i64(dt, 1);
    if (dt_is_float(dt))
        return itp_num_f64(dt, want_low ? -INFINITY : INFINITY);
    if (dt == DT_BOOL)
        return itp_num_i64(dt, !want_low);
    if (!dt_is_signed(dt))      /* -1 wraps to the largest value */
        return itp_num_i64(dt, want_low ? 0 : -1);
    if (bits == 64)
        return itp_num_i64(dt, want_low ? INT64_MIN : INT64_MAX);
    return itp_num_i64(dt, want_low ? -((int64_t)1 << (bits - 1))
                                    : ((int64_t)1 << (bits - 1)) - 1);
}

/* Folds one value of the body into the accumulator. */
static void accumulate(Red *r, TlValue *x, int64_t at)
{
    TlOp op = r->red->op;
    double a, b;

    if (r->dt == DT_NONE)
        r->dt = x->dtype;
    if (!r->have) {
        r->acc = op == RD_ARGMAX || op == RD_ARGMIN ? *x
                                                      : identity(op, r->dt);
        r->arg = at;
        r->have = 1;
        if (op == RD_ARGMAX || op == RD_ARGMIN)
            return;
    }
    switch (op) {
    case RD_SUM:
        r->acc = itp_num_binary(OP_ADD, r->dt, &r->acc, x);
        return;
    case RD_PROD:
        r->acc = itp_num_binary(OP_MUL, r->dt, &r->acc, x);
        return;
    case RD_MAX:
    case RD_MIN: {
        TlValue two[2] = {r->acc, *x};
        r->acc = itp_num_builtin(op == RD_MAX ? BI_MAX : BI_MIN, r->dt,
                                 two, 2);
        return;
    }
    default:
        /* argmax/argmin: the first NaN wins, else the first extreme. */
        if (!dt_is_float(r->dt)) {
            /* Exactly, not through f64 (i64 and u64 hold more). */
            TlValue gt = itp_num_binary(op == RD_ARGMAX ? OP_GT : OP_LT,
                                        r->dt, x, &r->acc);
            if (gt.i) {
                r->acc = *x;
                r->arg = at;
            }
            return;
        }
        a = itp_num_get_f64(&r->acc);
        b = itp_num_get_f64(x);
        if (isnan(a))
            return;
        if (isnan(b) || (op == RD_ARGMAX ? b > a : b < a)) {
            r->acc = *x;
            r->arg = at;
        }
        return;
    }
}

static int reduce_loop(TlInterp *ip, Red *r, int level)
{
    ItpRvar *rv = &ip->rvars[ip->nrvars - r->red->nrvars + level];

    for (int64_t i = 0; i < r->ext[level]; i++) {
        rv->val = r->lo[level] + i;
        if (level + 1 < r->red->nrvars) {
            if (reduce_loop(ip, r, level + 1) < 0)
                return -1;
        } else {
            TlValue x;
            if (eval_num(ip, r->body, &x) < 0)
                return -1;
            accumulate(r, &x, ip->rvars[ip->nrvars - r->red->nrvars].val);
        }
    }
    return 0;
}

static int eval_reduce(TlInterp *ip, TlExpr *e, TlValue *out)
{
    TlReduce *red = e->sym;
    Red r;
    int n = red->nrvars, base = ip->nrvars, res = -1;

    memset(&r, 0, sizeof r);
    r.red = red;
    r.body = e->a;
    r.dt = e->a->dtype;
    r.lo = tl_xcalloc((size_t)n + 1, sizeof *r.lo);
    r.ext = tl_xcalloc((size_t)n + 1, sizeof *r.ext);
    if (ip->nrvars + n > ip->rvar_cap) {
        ip->rvar_cap = 2 * (ip->nrvars + n) + 8;
        ip->rvars = tl_xrealloc(ip->rvars,
                                (size_t)ip->rvar_cap * sizeof *ip->rvars);
    }
    /* The ranges, evaluated outside the reduction's own variables. */
    for (int i = 0; i < n; i++) {
        TlVar *v = red->rvars[i];
        TlExpr *x = NULL;
        int64_t hi;
        for (int j = 0; j < e->args.n && !x; j++)
            if (e->args.v[j]->sym == v)
                x = e->args.v[j];
        TL_ASSERT(x);
        if (x->a && x->b) {
            if (itp_eval_int(ip, x->a, &r.lo[i]) < 0 ||
                itp_eval_int(ip, x->b, &hi) < 0)
                goto done;
            r.ext[i] = hi > r.lo[i] ? hi - r.lo[i] : 0;
        } else if (!v->extent || !tl_sym_const(v->extent, &r.ext[i])) {
            r.ext[i] = rvar_extent(ip, e->a, v);
            TL_ASSERT(r.ext[i] >= 0);
        }
    }
    for (int i = 0; i < n; i++) {
        ip->rvars[base + i].var = red->rvars[i];
        ip->rvars[base + i].val = r.lo[i];
    }
    ip->nrvars += n;
    res = n ? reduce_loop(ip, &r, 0) : 0;
    ip->nrvars = base;
    if (res < 0)
        goto done;
    if (red->op == RD_ARGMAX || red->op == RD_ARGMIN) {
        if (!r.have) {
            diag_error(ip->s, e->loc, DIAG_EMPTY_REDUCTION,
                       op_spelling(red->op));
            res = -1;
            goto done;
        }
        *out = itp_num_i64(DT_I64, r.arg);
    } else {
        *out = r.have ? r.acc
                      : identity(red->op, r.dt != DT_NONE ? r.dt : DT_F32);
    }
done:
    free(r.lo);
    free(r.ext);
    return res;
}

/* ====================================================================
 * Expressions
 * ==================================================================== */

static int eval_name(TlInterp *ip, TlExpr *e, TlValue *out)
{
    const TlValue *v;
    TlDType dt;

    switch (tl_ref_kind(e->sym)) {
    case REF_LET:
        if (!(v = itp_let_value(ip, e->sym)))
            return -1;
        *out = itp_value_copy(v);
        return 0;
    case REF_VAR:
        for (int i = ip->nrvars - 1; i >= 0; i--)
            if (ip->rvars[i].var == e->sym) {
                *out = itp_num_i64(DT_I32, ip->rvars[i].val);
                return 0;
            }
        tl_unreachable();
    default:
        break;
    }
    /* A dtype name as an argument: rand(f32, ...). */
    dt = e->str ? dt_from_name(e->str, strlen(e->str)) : DT_NONE;
    TL_ASSERT(dt != DT_NONE);
    memset(out, 0, sizeof *out);
    out->kind = VAL_DTYPE;
    out->dtype = dt;
    return 0;
}

/* A cast of str value v to a number: each string must be one (the
 * kernels' rule, SPEC 8.6); 0, or -1 after the error. */
static int str_cast_check(TlInterp *ip, TlExpr *e, const TlValue *v)
{
    TlTensor *t = itp_value_tensor(v);
    int64_t n = tl_tensor_numel(t);
    int rc = 0;
    TlTensor *c = tl_tensor_contiguous(t);

    for (int64_t i = 0; i < n && !rc; i++) {
        const char *s = tl_str_at((char *)c->data + i * 8);
        char tmp[8], shown[64];
        if (!tl_str_to(e->dtype, s, tmp))
            continue;
        snprintf(shown, sizeof shown, "%.40s%s", s,
                 strlen(s) > 40 ? "..." : "");
        diag_error(ip->s, e->loc, DIAG_RT_STR_NUMBER, shown,
                   dt_is_float(e->dtype) ? "a number" : "an integer",
                   dt_name(e->dtype));
        rc = -1;
    }
    tl_tensor_unref(c);
    tl_tensor_unref(t);
    return rc;
}

static int eval_cast(TlInterp *ip, TlExpr *e, TlValue *out)
{
    TlValue v;

    memset(out, 0, sizeof *out);
    if (!e->a) {
        out->kind = VAL_DTYPE;
        out->dtype = e->dtype;
        return 0;
    }
    if (itp_eval(ip, e->a, &v) < 0)
        return -1;
    if ((v.kind == VAL_NUM || v.kind == VAL_TENSOR) &&
        (v.kind == VAL_NUM ? v.dtype : v.t->dtype) == DT_STR &&
        e->dtype != DT_STR && str_cast_check(ip, e, &v) < 0) {
        itp_value_free(&v);
        return -1;
    }
    if (v.kind == VAL_NUM) {
        *out = itp_num_cast(&v, e->dtype);
        return 0;
    }
    TL_ASSERT(v.kind == VAL_TENSOR);
    out->kind = VAL_TENSOR;
    out->t = tl_tensor_cast(v.t, e->dtype);
    itp_value_free(&v);
    return 0;
}

static int eval_list(TlInterp *ip, TlExpr *e, TlValue *out)
{
    memset(out, 0, sizeof *out);
    out->kind = VAL_LIST;
    out->items = tl_xcalloc((size_t)e->args.n + 1, sizeof *out->items);
    for (int i = 0; i < e->args.n; i++) {
        if (itp_eval(ip, e->args.v[i], &out->items[i]) < 0) {
            itp_value_free(out);
            return -1;
        }
        out->n = i + 1;
    }
    return 0;
}

/* select, min, max, ... on scalars (checked: operands of the node's
 * dtype, or of loaded tensors' dtypes, which promote here). */
static int eval_scalar_builtin(TlInterp *ip, TlExpr *e, const TlBuiltin *b,
                               TlValue *out)
{
    TlValue args[3];
    TlDType dt = e->dtype;
    int n = e->args.n;

    if (b->id == BI_SELECT) {
        TlValue c;
        if (eval_num(ip, e->args.v[0], &c) < 0)
            return -1;
        if (eval_num(ip, e->args.v[c.i ? 1 : 2], out) < 0)
            return -1;
        if (dt != DT_NONE)
            *out = itp_num_cast(out, dt);
        return 0;
    }
    TL_ASSERT(n >= 1 && n <= 3);
    for (int i = 0; i < n; i++)
        if (eval_num(ip, e->args.v[i], &args[i]) < 0)
            return -1;
    if (dt == DT_NONE) {
        dt = args[0].dtype;
        for (int i = 1; i < n; i++)
            dt = rt_promote(e->args.v[0], dt, e->args.v[i], args[i].dtype);
        if (dt == DT_BOOL) {
            diag_error(ip->s, e->loc, DIAG_BOOL_OPERAND, b->name);
            return -1;
        }
        if (!dt_is_float(dt) && b->id != BI_MIN && b->id != BI_MAX &&
            b->id != BI_CLAMP && b->id != BI_ABS)
            dt = DT_F32;
    }
    *out = itp_num_builtin(b->id, dt, args, n);
    return 0;
}

/* An extern called at the top level, with scalars or whole tensors. */
static int eval_extern(TlInterp *ip, TlExpr *e, TlExternInfo *x,
                       TlValue *out)
{
    TlExternArg *args = tl_xcalloc((size_t)x->nparams + 1, sizeof *args);
    TlScalarArg res;
    int r = -1;

    for (int i = 0; i < x->nparams; i++) {
        TlValue v;
        if (itp_eval(ip, e->args.v[i], &v) < 0)
            goto done;
        if (x->item->params.v[i].is_scalar) {
            TL_ASSERT(v.kind == VAL_NUM);
            args[i].s.given = 1;
            args[i].s.is_float = dt_is_float(v.dtype);
            args[i].s.f = v.f;
            args[i].s.i = v.i;
        } else {
            args[i].t = itp_value_tensor(&v);
            TL_ASSERT(args[i].t);
        }
        itp_value_free(&v);
    }
    if (itp_call_extern(&ip->rt, x, args, &res, e->loc) < 0)
        goto done;
    *out = res.is_float ? itp_num_f64(x->ret, res.f)
                        : itp_num_i64(x->ret, res.i);
    r = 0;
done:
    for (int i = 0; i < x->nparams; i++)
        tl_tensor_unref(args[i].t);
    free(args);
    return r;
}

static int eval_call(TlInterp *ip, TlExpr *e, const char *target,
                     TlLoc loc, TlValue *out)
{
    const TlBuiltin *b;

    switch (tl_ref_kind(e->sym)) {
    case REF_CALL:
        return eval_kernel_call(ip, e->sym, target ? target : ip->target,
                                loc, out);
    case REF_BUILTIN:
        b = e->sym;
        if (b->top_level || b->id == BI_HASH)
            return itp_builtin_call(ip, e, b, out);
        return eval_scalar_builtin(ip, e, b, out);
    case REF_EXTERN:
        return eval_extern(ip, e, e->sym, out);
    default:
        tl_unreachable();
    }
}

int itp_eval(TlInterp *ip, TlExpr *e, TlValue *out)
{
    int r = 0;

    memset(out, 0, sizeof *out);
    switch (e->kind) {
    case EX_INT:
        *out = itp_num_i64(e->dtype != DT_NONE ? e->dtype : DT_I32, e->ival);
        break;
    case EX_FLOAT:
        *out = itp_num_f64(e->dtype != DT_NONE ? e->dtype : DT_F32, e->fval);
        break;
    case EX_BOOL:
        *out = itp_num_i64(DT_BOOL, e->ival);
        break;
    case EX_STR:
        out->kind = VAL_STR;
        out->s = tl_xstrdup(e->str ? e->str : "");
        break;
    case EX_NAME:
        r = eval_name(ip, e, out);
        break;
    case EX_INDEX:
        r = eval_index(ip, e, out);
        break;
    case EX_CALL:
        r = eval_call(ip, e, NULL, e->loc, out);
        break;
    case EX_ON:
        r = eval_call(ip, e->a, e->str, e->loc, out);
        break;
    case EX_UNARY:
    case EX_BINARY:
        r = eval_operator(ip, e, out);
        break;
    case EX_CAST:
        r = eval_cast(ip, e, out);
        break;
    case EX_LIST:
        r = eval_list(ip, e, out);
        break;
    case EX_REDUCE:
        r = eval_reduce(ip, e, out);
        break;
    default:
        /* Members, slices and named arguments appear only inside the
         * forms above. */
        tl_unreachable();
    }
    if (r < 0)
        memset(out, 0, sizeof *out);
    return r;
}

/* ====================================================================
 * Statements
 * ==================================================================== */

/* "'f32[64, 3]'" for messages. */
static void type_text(TlBuf *b, TlDType dt, int rank, const int64_t *shape)
{
    buf_printf(b, "'%s[", dt_name(dt));
    for (int i = 0; i < rank; i++)
        buf_printf(b, "%s%lld", i ? ", " : "", (long long)shape[i]);
    buf_puts(b, "]'");
}

/* `let W: f32[64, 3] = load(...)`: the value the checker could not see
 * must have the declared type exactly (it is never converted). */
static int check_decl(TlInterp *ip, const TlLet *l, const TlValue *v)
{
    int64_t want[TL_MAX_RANK], have[TL_MAX_RANK];
    TlDType dt = v->kind == VAL_TENSOR ? v->t->dtype : v->dtype;
    int rank = v->kind == VAL_TENSOR ? v->t->rank : 0, bad;
    TlBuf a, b;

    TL_ASSERT(v->kind == VAL_TENSOR || v->kind == VAL_NUM);
    TL_ASSERT(l->rank >= 0 && l->rank <= TL_MAX_RANK);
    bad = dt != l->dtype || rank != l->rank;
    for (int i = 0; i < l->rank; i++) {
        TL_ASSERT(l->shape && tl_sym_const(l->shape[i], &want[i]));
        if (!bad && v->t->shape[i] != want[i])
            bad = 1;
    }
    if (!bad)
        return 0;
    for (int i = 0; i < rank; i++)
        have[i] = v->t->shape[i];
    buf_init(&a);
    buf_init(&b);
    type_text(&a, l->dtype, l->rank, want);
    type_text(&b, dt, rank, have);
    diag_error(ip->s, l->stmt->decl->type_loc, DIAG_LET_DECL_MISMATCH,
               l->name, a.s, b.s);
    buf_free(&a);
    buf_free(&b);
    return -1;
}

static int exec_let(TlInterp *ip, TlStmt *st)
{
    TlValue v;
    TlLet *l = st->sym;

    if (itp_eval(ip, st->value, &v) < 0)
        return -1;
    if (l->declared && itp_literal_tensor(&v, l) < 0) {
        itp_value_free(&v);
        return -1;
    }
    if (l->declared && l->verify && check_decl(ip, l, &v) < 0) {
        itp_value_free(&v);
        return -1;
    }
    if (st->names.n == 1) {
        if (strcmp(l->name, "_"))
            itp_bind(ip, l->name, l, v);
        else
            itp_value_free(&v);
        return 0;
    }
    TL_ASSERT(v.kind == VAL_MULTI && v.n == st->names.n);
    for (int i = 0; l; l = l->next, i++) {
        if (strcmp(l->name, "_")) {
            itp_bind(ip, l->name, l, v.items[i]);
            memset(&v.items[i], 0, sizeof v.items[i]);
        }
    }
    itp_value_free(&v);
    return 0;
}

static void put(TlInterp *ip, const TlBuf *b)
{
    if (b->len)
        fwrite(b->s, 1, b->len, ip->out);
    fflush(ip->out);
}

static int exec_print(TlInterp *ip, TlStmt *st)
{
    TlValue v;
    TlBuf b;

    if (itp_eval(ip, st->value, &v) < 0)
        return -1;
    buf_init(&b);
    itp_value_print(&b, &v);
    buf_putc(&b, '\n');
    put(ip, &b);
    buf_free(&b);
    itp_value_free(&v);
    return 0;
}

static int exec_assert(TlInterp *ip, TlStmt *st)
{
    TlExpr *e = st->value;
    TlBuf msg;
    int r = 0;

    buf_init(&msg);
    if (e->kind == EX_CALL && tl_ref_kind(e->sym) == REF_BUILTIN &&
        ((TlBuiltin *)e->sym)->id == BI_ALLCLOSE) {
        /* allclose explains itself: the worst element and its values. */
        r = itp_assert_allclose(ip, e, &msg);
    } else {
        TlValue v;
        if (eval_num(ip, e, &v) < 0) {
            r = -1;
        } else if (!v.i) {
            ast_print_expr(&msg, e);
            r = 1;
        }
    }
    if (r > 0)
        diag_error(ip->s, e->loc, DIAG_ASSERT_FAILED, msg.s);
    buf_free(&msg);
    return r ? -1 : 0;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void put_duration(TlBuf *b, double t)
{
    if (t >= 1)
        buf_printf(b, "%.3g s", t);
    else if (t >= 1e-3)
        buf_printf(b, "%.3g ms", t * 1e3);
    else if (t >= 1e-6)
        buf_printf(b, "%.3g us", t * 1e6);
    else
        buf_printf(b, "%.3g ns", t * 1e9);
}

/* One evaluation, timed, its value dropped. */
static int timed(TlInterp *ip, TlExpr *e, double *secs)
{
    TlValue v;
    double t0 = now();

    if (itp_eval(ip, e, &v) < 0)
        return -1;
    itp_value_free(&v);
    *secs = now() - t0;
    return 0;
}

/* `time e`: a first run warms up (caches, compiled code) and sizes the
 * count so that the measured runs take about a second: 1 to 1000 of
 * them, none more when the first took a second or more (it is reported
 * then).  The median resists the odd run disturbed by the machine. */
static int exec_time(TlInterp *ip, TlStmt *st)
{
    double first, *runs;
    int n;
    TlBuf b;
    TlTargetReport rep;

    /* A simulated target's cost is the same every run: report it. */
    rep = target_report(st->value->kind == EX_ON ? st->value->str
                                                 : ip->target);
    if (rep)
        rep(NULL);
    if (timed(ip, st->value, &first) < 0)
        return -1;
    buf_init(&b);
    buf_puts(&b, "time ");
    ast_print_expr(&b, st->value);
    buf_puts(&b, ": ");
    if (rep && rep(&b)) {
        put(ip, &b);
        buf_free(&b);
        return 0;
    }
    buf_free(&b);
    n = first >= 1.0 ? 0 : first * 1000 <= 1.0 ? 1000 : (int)(1.0 / first);
    runs = tl_xcalloc((size_t)n + 1, sizeof *runs);
    runs[0] = first;
    for (int i = 0; i < n; i++)
        if (timed(ip, st->value, &runs[i]) < 0) {
            free(runs);
            return -1;
        }
    if (n == 0)
        n = 1;
    qsort(runs, (size_t)n, sizeof *runs, cmp_double);
    buf_init(&b);
    buf_puts(&b, "time ");
    ast_print_expr(&b, st->value);
    buf_puts(&b, ": median ");
    put_duration(&b, n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2);
    buf_printf(&b, " of %d run%s\n", n, n == 1 ? "" : "s");
    put(ip, &b);
    buf_free(&b);
    free(runs);
    return 0;
}

int itp_exec_stmt(TlInterp *ip, TlStmt *st)
{
    TlValue v;

    switch (st->kind) {
    case ST_LET:
        return exec_let(ip, st);
    case ST_PRINT:
        return exec_print(ip, st);
    case ST_ASSERT:
        return exec_assert(ip, st);
    case ST_TIME:
        return exec_time(ip, st);
    case ST_TARGET:
        ip->target = st->name;
        ip->target_loc = st->loc;
        return 0;
    case ST_EXPR:
        if (itp_eval(ip, st->value, &v) < 0)
            return -1;
        itp_value_free(&v);
        return 0;
    default:
        tl_unreachable();
    }
}

int itp_exec_program(TlInterp *ip, TlProgram *prog)
{
    for (int i = 0; i < prog->items.n; i++) {
        TlItem *it = prog->items.v[i];
        if (!it || it->kind != IT_STMT || !it->stmt)
            continue;
        if (itp_exec_stmt(ip, it->stmt) < 0)
            return -1;
    }
    return 0;
}
