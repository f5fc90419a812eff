/*
 * eval.c - kernel calls (itp_call_kernel): the arguments bind the size
 * variables and scalars, the output shapes are computed, and then every
 * stage, output and call of the kernel runs in the checker's dependency
 * order (TlKernelInfo.funcs), each stage over its domain, into a packed
 * buffer indexed from the domain's start.  A kernel call inside a
 * kernel runs the callee the same way, in a frame of its own.
 *
 * A stage is computed one row at a time (eval_row.c) unless the
 * per-element reference mode is on (TlRuntime.mode, TDSL_INTERP=scalar).
 * A row that fails is walked again element by element, which reports
 * the error the reference mode would report; so the two modes give the
 * same values and the same messages.
 */
#include "interp/eval_int.h"

#include <stdlib.h>
#include <string.h>

static int run(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
               const TlScalarArg *sc, TlTensor **out, TlLoc call_loc,
               jmp_buf *fatal, TlTensor *const *given);

/* ====================================================================
 * Frames: variables, tensors, sizes, messages
 * ==================================================================== */

int itp_var_index(ItpFrame *F, TlVar *v)
{
    TL_ASSERT(v);
    for (int i = 0; i < F->nvars; i++)
        if (F->vars[i] == v)
            return i;
    if (F->nvars == F->capvars) {
        F->capvars = F->capvars ? 2 * F->capvars : 16;
        F->vars = tl_xrealloc(F->vars, (size_t)F->capvars * sizeof *F->vars);
        F->env = tl_xrealloc(F->env, (size_t)F->capvars * sizeof *F->env);
    }
    F->vars[F->nvars] = v;
    F->env[F->nvars].i = 0;
    return F->nvars++;
}

/* The slot of f, or -1 when the kernel has none (an unused result). */
static int find_slot(const ItpFrame *F, const TlFunc *f)
{
    for (int i = 0; i < F->nslots; i++)
        if (F->slots[i].f == f)
            return i;
    return -1;
}

int itp_slot_of(ItpFrame *F, const TlFunc *f)
{
    int i = find_slot(F, f);

    if (i >= 0)
        return i;
    tl_internal_error(__FILE__, __LINE__, "tensor '%s' is not in kernel '%s'",
                      f->name, F->k->name);
}

const char *itp_loc_text(ItpFrame *F, TlLoc loc)
{
    if (loc.file < 0 || loc.file >= F->s->nsrc)
        return "?";
    return arena_printf(&F->arena, "%s:%d:%d", F->s->src[loc.file].path,
                        loc.line, loc.col);
}

/* Sizes and scalar parameters of F's kernel, for tl_sym_eval. */
static int lookup(void *ctx, const TlVar *v, int64_t *out)
{
    ItpFrame *F = ctx;

    if ((v->kind != VAR_SIZE && v->kind != VAR_SCALAR) || v->kernel != F->k ||
        dt_is_float(v->dtype))
        return -1;
    for (int i = 0; i < F->nvars; i++)
        if (F->vars[i] == v) {
            *out = F->env[i].i;
            return 0;
        }
    return -1;
}

static char *sym_text(ItpFrame *F, const TlSymExpr *e)
{
    TlBuf b;
    char *s;

    buf_init(&b);
    tl_sym_print(&b, e);
    s = arena_strdup(&F->arena, b.s ? b.s : "?");
    buf_free(&b);
    return s;
}

int itp_sym(ItpFrame *F, const TlSymExpr *e, TlLoc loc, const char *what,
            int64_t *out)
{
    if (e && tl_sym_eval(e, lookup, F, out) == 0)
        return 0;
    diag_error(F->s, loc, DIAG_RT_SIZE_UNDEFINED, what, sym_text(F, e));
    return -1;
}

void itp_note_point(ItpFrame *F)
{
    TlFunc *f = F->cur ? F->cur->f : NULL;
    TlBuf b;

    if (!f)
        return;
    buf_init(&b);
    buf_printf(&b, "%s[", f->name);
    for (int j = 0; j < f->rank; j++) {
        TlVar *v = f->axes[j].var;
        buf_printf(&b, "%s%s=%lld", j ? ", " : "", v ? v->name : "?",
                   v ? (long long)F->env[itp_var_index(F, v)].i : 0LL);
    }
    buf_putc(&b, ']');
    for (int r = 0; r < F->nred; r++) {
        ItpRed *red = F->redstack[r];
        for (int i = 0; i < red->nv; i++)
            buf_printf(&b, "%s%s=%lld", r || i ? ", " : " with ",
                       red->r->rvars[i]->name,
                       (long long)F->env[red->vars[i]].i);
    }
    diag_note(F->s, f->stmt ? f->stmt->loc : f->loc, "while computing %s",
              b.s);
    buf_free(&b);
}

/* Where a parameter is declared: the shape entry of axis j if any. */
static TlLoc param_loc(const TlFunc *f, int j)
{
    if (f->param && j >= 0 && j < f->param->shape.n && f->param->shape.v[j])
        return f->param->shape.v[j]->loc;
    return f->param ? f->param->loc : f->loc;
}

/* "f32[8, 3]" for a tensor value or a tensor of the kernel. */
static const char *type_text(ItpFrame *F, const TlTensor *t,
                             const TlFunc *f)
{
    TlBuf b;
    const char *s;

    buf_init(&b);
    if (t) {
        tl_tensor_print_type(&b, t);
    } else {
        buf_printf(&b, "%s[", dt_name(f->dtype));
        for (int j = 0; j < f->rank; j++) {
            buf_puts(&b, j ? ", " : "");
            tl_sym_print(&b, f->axes[j].extent);
        }
        buf_putc(&b, ']');
    }
    s = arena_strdup(&F->arena, b.s);
    buf_free(&b);
    return s;
}

/* ====================================================================
 * Arguments: dtypes, ranks, sizes, scalars, shapes
 * ==================================================================== */

static int check_inputs(ItpFrame *F, TlTensor *const *in)
{
    TlKernelInfo *k = F->k;

    for (int i = 0; i < k->ninputs; i++) {
        TlFunc *f = k->inputs[i];
        TL_ASSERT(in[i]);
        if (in[i]->dtype != f->dtype) {
            diag_error(F->s, param_loc(f, -1), DIAG_RT_ARG_DTYPE, f->name,
                       k->name, dt_name(in[i]->dtype), dt_name(f->dtype));
            return -1;
        }
        if (in[i]->rank != f->rank) {
            diag_error(F->s, param_loc(f, -1), DIAG_RT_ARG_RANK, f->name,
                       k->name, in[i]->rank, f->rank);
            return -1;
        }
    }
    return 0;
}

static void bind_sizes(ItpFrame *F, TlTensor *const *in)
{
    TlKernelInfo *k = F->k;

    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        int p = -1;
        for (int j = 0; j < k->ninputs; j++)
            if (k->inputs[j] == v->bound_by)
                p = j;
        TL_ASSERT(p >= 0 && v->bound_axis < in[p]->rank);
        F->env[itp_var_index(F, v)].i = in[p]->shape[v->bound_axis];
    }
}

static int bind_scalars(ItpFrame *F, const TlScalarArg *sc)
{
    TlKernelInfo *k = F->k;

    for (int j = 0; j < k->nscalars; j++) {
        TlVar *v = k->scalars[j];
        int ix = itp_var_index(F, v);
        if (sc && sc[j].given) {
            F->env[ix] = itp_scalar_arg(v->dtype, &sc[j]);
        } else if (v->param && v->param->init) {
            ItpNode *n = itp_compile(F, v->param->init, -1, v->dtype);
            if (!n || itp_eval1(F, n, &F->env[ix]))
                return -1;
        } else {
            diag_error(F->s, v->loc, DIAG_RT_MISSING_SCALAR, v->name,
                       k->name);
            return -1;
        }
    }
    return 0;
}

/* The size variable e is made of, alone, or NULL. */
static TlVar *lone_size(const TlSymExpr *e)
{
    if (!e || e->c != 0 || e->n != 1 || e->t[0].coef != 1 ||
        e->t[0].atom->kind != SYM_VAR ||
        e->t[0].atom->var->kind != VAR_SIZE)
        return NULL;
    return e->t[0].atom->var;
}

static int check_shapes(ItpFrame *F, TlTensor *const *in)
{
    TlKernelInfo *k = F->k;

    for (int i = 0; i < k->ninputs; i++) {
        TlFunc *f = k->inputs[i];
        for (int j = 0; j < f->rank; j++) {
            const TlSymExpr *e = f->axes[j].extent;
            TlVar *v;
            int64_t want;
            if (!e)
                continue;
            if (itp_sym(F, e, param_loc(f, j),
                        arena_printf(&F->arena, "axis %d of '%s'", j,
                                     f->name), &want))
                return -1;
            if (want == in[i]->shape[j])
                continue;
            v = lone_size(e);
            if (v && v->bound_by)
                diag_error(F->s, param_loc(f, j), DIAG_RT_SIZE_MISMATCH,
                           v->name, k->name, (long long)want,
                           v->bound_by->name, v->bound_axis,
                           (long long)in[i]->shape[j], f->name, j);
            else
                diag_error(F->s, param_loc(f, j), DIAG_RT_SHAPE_MISMATCH, j,
                           f->name, k->name, (long long)in[i]->shape[j],
                           sym_text(F, e), (long long)want);
            return -1;
        }
    }
    return 0;
}

static int bind_consts(ItpFrame *F)
{
    TlKernelInfo *k = F->k;

    for (int i = 0; i < k->nconsts; i++) {
        TlFunc *f = k->consts[i];
        ItpSlot *sl = &F->slots[itp_slot_of(F, f)];
        TlTensor *t;
        int ok;
        TL_ASSERT(F->rt->const_value && f->let);
        F->s->fatal = F->fatal;         /* the caller's code runs */
        t = F->rt->const_value(F->rt->ctx, f->let);
        F->s->fatal = NULL;
        if (!t)
            return -1;
        ok = t->dtype == f->dtype && t->rank == f->rank;
        for (int j = 0; ok && j < f->rank; j++) {
            int64_t c;
            ok = !f->axes[j].extent ||
                 (tl_sym_const(f->axes[j].extent, &c) && c == t->shape[j]);
        }
        if (!ok) {
            diag_error(F->s, f->loc, DIAG_RT_CONST_CHANGED, f->name,
                       type_text(F, t, NULL), type_text(F, NULL, f));
            return -1;
        }
        sl->t = tl_tensor_ref(t);
        for (int j = 0; j < t->rank; j++)
            sl->ext[j] = t->shape[j];
        sl->done = 1;
    }
    return 0;
}

static int output_shapes(ItpFrame *F)
{
    TlKernelInfo *k = F->k;

    for (int i = 0; i < k->noutputs; i++) {
        TlFunc *f = k->outputs[i];
        ItpSlot *sl = &F->slots[itp_slot_of(F, f)];
        for (int j = 0; j < f->rank; j++) {
            if (itp_sym(F, f->axes[j].extent, param_loc(f, j),
                        arena_printf(&F->arena, "axis %d of output '%s'", j,
                                     f->name), &sl->ext[j]))
                return -1;
            if (sl->ext[j] < 0) {
                diag_error(F->s, param_loc(f, j), DIAG_RT_NEGATIVE_EXTENT,
                           f->name, k->name, (long long)sl->ext[j], j,
                           sym_text(F, f->axes[j].extent));
                return -1;
            }
        }
    }
    return 0;
}

/* ====================================================================
 * Stages
 * ==================================================================== */

/* n values (stride apart) into a packed row of dtype dt at dst. */
static void store_row(TlDType dt, char *dst, const ItpVal *v, int stride,
                      int n)
{
    switch (dt) {
    case DT_F32: {
        float *q = (float *)(void *)dst;
        for (int l = 0; l < n; l++)
            q[l] = (float)v[l * stride].f;
        return;
    }
    case DT_F64: {
        double *q = (double *)(void *)dst;
        for (int l = 0; l < n; l++)
            q[l] = v[l * stride].f;
        return;
    }
    case DT_I32: {
        int32_t *q = (int32_t *)(void *)dst;
        for (int l = 0; l < n; l++)
            q[l] = (int32_t)v[l * stride].i;
        return;
    }
    case DT_I64: {
        int64_t *q = (int64_t *)(void *)dst;
        for (int l = 0; l < n; l++)
            q[l] = v[l * stride].i;
        return;
    }
    default:
        for (int l = 0; l < n; l++)
            itp_store(dt, dst + (int64_t)l * dt_size(dt), v[l * stride]);
        return;
    }
}

/* A stage's loop nest: axis variables (env indices), domain. */
typedef struct Nest {
    int rank;
    int var[TL_MAX_RANK];
    int64_t lo[TL_MAX_RANK], ext[TL_MAX_RANK];
} Nest;

/* The reference mode: one walk per element, in row-major order. */
static int stage_elements(ItpFrame *F, ItpNode *root, TlTensor *t,
                          const Nest *L)
{
    int64_t idx[TL_MAX_RANK] = {0}, total = tl_tensor_numel(t);
    int es = dt_size(t->dtype);
    char *p = t->data;

    for (int64_t flat = 0; flat < total; flat++) {
        ItpVal v;
        for (int j = 0; j < L->rank; j++)
            F->env[L->var[j]].i = L->lo[j] + idx[j];
        if (itp_eval1(F, root, &v))
            return -1;
        itp_store(t->dtype, p + flat * es, v);
        for (int j = L->rank - 1; j >= 0; j--) {
            if (++idx[j] < L->ext[j])
                break;
            idx[j] = 0;
        }
    }
    return 0;
}

/* The row that failed, again element by element: reports the error. */
static int row_again(ItpFrame *F, ItpNode *root, int row_var)
{
    F->quiet = 0;
    F->nred = 0;
    for (int l = 0; l < F->n; l++) {
        ItpVal v;
        F->env[row_var].i = F->row0 + l;
        if (itp_eval1(F, root, &v))
            return -1;
    }
    tl_internal_error(__FILE__, __LINE__,
                      "a row of '%s' failed but none of its elements did",
                      F->cur->f->name);
}

static int stage_rows(ItpFrame *F, ItpNode *root, TlTensor *t, const Nest *L)
{
    int64_t idx[TL_MAX_RANK] = {0}, inner, rows, total = tl_tensor_numel(t);
    int es = dt_size(t->dtype), last = L->rank - 1, rc;
    char *p = t->data;

    if (total == 0)
        return 0;
    if (L->rank == 0) {
        F->n = 1;
        F->row0 = 0;
        if (itp_eval1(F, root, &root->k))
            return -1;
        store_row(t->dtype, p, &root->k, 0, 1);
        return 0;
    }
    inner = L->ext[last];
    rows = total / inner;
    for (int64_t r = 0; r < rows; r++) {
        for (int j = 0; j < last; j++)
            F->env[L->var[j]].i = L->lo[j] + idx[j];
        for (int64_t s = 0; s < inner; s += ITP_ROW) {
            F->n = (int)(inner - s < ITP_ROW ? inner - s : ITP_ROW);
            F->row0 = L->lo[last] + s;
            F->env[L->var[last]].i = F->row0;
            F->quiet = 1;
            if (root->vary)
                rc = itp_eval_row(F, root, NULL);
            else
                rc = itp_eval1(F, root, &root->k);
            F->quiet = 0;
            if (rc)
                return row_again(F, root, L->var[last]);
            store_row(t->dtype, p + (r * inner + s) * es,
                      root->vary ? root->buf : &root->k, root->vary, F->n);
        }
        for (int j = last - 1; j >= 0; j--) {
            if (++idx[j] < L->ext[j])
                break;
            idx[j] = 0;
        }
    }
    return 0;
}

static int compute_stage(ItpFrame *F, ItpSlot *sl)
{
    TlFunc *f = sl->f;
    Nest L;
    TlTensor *t;
    ItpNode *root;
    char err[160];
    int rc, row_var, elems;

    L.rank = f->rank;
    for (int j = 0; j < f->rank; j++) {
        const char *what = arena_printf(&F->arena, "axis %d of the domain "
                                        "of '%s'", j, f->name);
        TL_ASSERT(f->axes[j].var);
        L.var[j] = itp_var_index(F, f->axes[j].var);
        if (itp_sym(F, f->axes[j].lo, f->loc, what, &L.lo[j]) ||
            itp_sym(F, f->axes[j].extent, f->loc, what, &L.ext[j]))
            return -1;
        if (L.ext[j] < 0)       /* nothing to compute (outputs: checked) */
            L.ext[j] = 0;
        sl->lo[j] = L.lo[j];
        sl->ext[j] = L.ext[j];
    }
    t = tl_tensor_new(f->dtype, f->rank, L.ext, err, sizeof err);
    if (!t) {
        diag_error(F->s, f->loc, DIAG_RT_TOO_LARGE, f->name, F->k->name, err);
        return -1;
    }
    sl->t = t;
    /* Strings are computed by the per-element walk only: rows buy
     * nothing for pointer chasing and text (SPEC 8.6). */
    elems = F->scalar || ast_has_str(f->value);
    row_var = !elems && f->rank ? L.var[f->rank - 1] : -1;
    root = itp_compile(F, f->value, row_var, f->dtype);
    if (!root)
        return -1;
    F->cur = sl;
    rc = elems ? stage_elements(F, root, t, &L)
               : stage_rows(F, root, t, &L);
    F->cur = NULL;
    sl->done = rc == 0;
    return rc;
}

/* ====================================================================
 * Calls inside a kernel
 * ==================================================================== */

static int run_call(ItpFrame *F, TlCall *call)
{
    TlKernelInfo *g = call->callee;
    TlTensor **in = tl_xcalloc((size_t)g->ninputs + 1, sizeof *in);
    TlTensor **out = tl_xcalloc((size_t)g->noutputs + 1, sizeof *out);
    TlScalarArg *sc = tl_xcalloc((size_t)g->nscalars + 1, sizeof *sc);
    int rc = -1;

    for (int i = 0; i < g->ninputs; i++) {
        ItpSlot *sl = &F->slots[itp_slot_of(F, call->inputs[i])];
        TL_ASSERT(sl->done);
        in[i] = sl->t;
    }
    for (int j = 0; j < g->nscalars; j++) {
        const TlExpr *e = call->args[g->ninputs + j];
        ItpNode *n;
        ItpVal v;
        if (!e)
            continue;
        n = itp_compile(F, e, -1, g->scalars[j]->dtype);
        if (!n || itp_eval1(F, n, &v))
            goto done;
        sc[j].given = 1;
        sc[j].is_float = dt_is_float(n->dt);
        if (sc[j].is_float)
            sc[j].f = v.f;
        else
            sc[j].i = v.i;
    }
    if (run(F->rt, g, in, sc, out, call->loc, F->fatal, NULL))
        goto done;
    for (int j = 0; j < g->noutputs; j++) {
        TlFunc *f = call->results[j];
        ItpSlot *sl;
        /* `_`, or a result nothing reads (the checker leaves unused
         * stages out of the kernel): dropped below. */
        if (!f || find_slot(F, f) < 0)
            continue;
        sl = &F->slots[itp_slot_of(F, f)];
        TL_ASSERT(out[j]->dtype == f->dtype && out[j]->rank == f->rank);
        sl->t = out[j];
        out[j] = NULL;
        for (int a = 0; a < f->rank; a++) {
            if (f->kind == FN_OUTPUT && sl->ext[a] != sl->t->shape[a]) {
                diag_error(F->s, call->loc, DIAG_RT_OUTPUT_SHAPE, f->name,
                           F->k->name, (long long)sl->t->shape[a], a,
                           (long long)sl->ext[a]);
                goto done;
            }
            sl->ext[a] = sl->t->shape[a];
        }
        sl->done = 1;
    }
    rc = 0;
done:
    for (int j = 0; j < g->noutputs; j++)
        tl_tensor_unref(out[j]);
    free(in);
    free(out);
    free(sc);
    return rc;
}

/* ====================================================================
 * A kernel call
 * ==================================================================== */

static int scalar_mode(const TlRuntime *rt)
{
    const char *m = getenv("TDSL_INTERP");

    if (m && !strcmp(m, "scalar"))
        return 1;
    if (m && !strcmp(m, "rows"))
        return 0;
    return rt->mode == ITP_SCALAR;
}

static void add_slot(ItpFrame *F, TlFunc *f)
{
    F->slots[F->nslots++].f = f;
}

/* The frame's variables and slots; the inputs' dtypes and ranks
 * checked, sizes and scalars bound. */
static int bind_args(ItpFrame *F, TlTensor *const *in, const TlScalarArg *sc)
{
    TlKernelInfo *k = F->k;

    /* Sizes and scalars take the first variable indices. */
    for (int i = 0; i < k->nsizes; i++)
        itp_var_index(F, k->sizes[i]);
    for (int i = 0; i < k->nscalars; i++)
        itp_var_index(F, k->scalars[i]);
    F->slots = tl_xcalloc((size_t)(k->ninputs + k->nconsts + k->nfuncs) + 1,
                          sizeof *F->slots);
    for (int i = 0; i < k->ninputs; i++)
        add_slot(F, k->inputs[i]);
    for (int i = 0; i < k->nconsts; i++)
        add_slot(F, k->consts[i]);
    for (int i = 0; i < k->nfuncs; i++)
        add_slot(F, k->funcs[i]);

    if (check_inputs(F, in))
        return -1;
    bind_sizes(F, in);
    return bind_scalars(F, sc);
}

/* A kernel's `assert` found false (SPEC 6.8): the call stops before
 * what comes after it, at the assert (run() adds the call). */
static int assert_failed(ItpFrame *F, const TlFunc *f)
{
    TlBuf b;

    buf_init(&b);
    if (f->stmt->msg)
        buf_puts(&b, f->stmt->msg->str);
    else
        ast_print_expr(&b, f->stmt->value);
    diag_error(F->s, f->stmt->loc, DIAG_RT_KERNEL_ASSERT, F->k->name, b.s);
    buf_free(&b);
    return -1;
}

/* The call's body; with only_asserts (itp_check_asserts), its asserts
 * alone, which then read nothing the body computes but the stages
 * given (given[i]: stage k->funcs[i]'s value, else NULL). */
static int run_body(ItpFrame *F, TlTensor *const *in, const TlScalarArg *sc,
                    TlTensor **out, int only_asserts, TlTensor *const *given)
{
    TlKernelInfo *k = F->k;

    if (bind_args(F, in, sc) || check_shapes(F, in))
        return -1;
    for (int i = 0; i < k->ninputs; i++) {
        ItpSlot *sl = &F->slots[i];
        sl->t = tl_tensor_ref(in[i]);
        for (int j = 0; j < in[i]->rank; j++)
            sl->ext[j] = in[i]->shape[j];
        sl->done = 1;
    }
    if (bind_consts(F) || output_shapes(F))
        return -1;
    for (int i = 0; given && i < k->nfuncs; i++) {
        ItpSlot *sl = &F->slots[itp_slot_of(F, k->funcs[i])];
        /* One of another dtype or rank is not the stage's value: the
         * stage is computed here then. */
        if (!given[i] || given[i]->dtype != k->funcs[i]->dtype ||
            given[i]->rank != k->funcs[i]->rank)
            continue;
        sl->t = tl_tensor_ref(given[i]);
        for (int j = 0; j < given[i]->rank; j++)
            sl->ext[j] = given[i]->shape[j];
        sl->done = 1;
    }

    for (int i = 0; i < k->nfuncs; i++) {
        TlFunc *f = k->funcs[i];
        ItpSlot *sl = &F->slots[itp_slot_of(F, f)];
        if (sl->done || (only_asserts && !tl_func_is_assert(f)))
            continue;
        if (f->call) {
            if (run_call(F, f->call))
                return -1;
            TL_ASSERT(sl->done);
        } else {
            TL_ASSERT(f->value);
            if (compute_stage(F, sl))
                return -1;
            if (tl_func_is_assert(f) && !*(uint8_t *)sl->t->data)
                return assert_failed(F, f);
        }
    }
    if (only_asserts)
        return 0;
    for (int i = 0; i < k->noutputs; i++) {
        ItpSlot *sl = &F->slots[itp_slot_of(F, k->outputs[i])];
        TL_ASSERT(sl->done && sl->t->dtype == k->outputs[i]->dtype);
        out[i] = tl_tensor_ref(sl->t);
    }
    return 0;
}

static void frame_init(ItpFrame *F, TlRuntime *rt, TlKernelInfo *k,
                       jmp_buf *fatal)
{
    TL_ASSERT(rt && rt->s && k && k->ok);
    memset(F, 0, sizeof *F);
    F->rt = rt;
    F->s = rt->s;
    F->k = k;
    F->scalar = scalar_mode(rt);
    F->fatal = fatal;
    arena_init(&F->arena);
}

static void frame_free(ItpFrame *F)
{
    for (int i = 0; i < F->nslots; i++)
        tl_tensor_unref(F->slots[i].t);
    free(F->slots);
    free(F->vars);
    free(F->env);
    arena_free(&F->arena);
}

static int run(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
               const TlScalarArg *sc, TlTensor **out, TlLoc call_loc,
               jmp_buf *fatal, TlTensor *const *given)
{
    ItpFrame F;
    int rc;

    frame_init(&F, rt, k, fatal);
    for (int i = 0; out && i < k->noutputs; i++)
        out[i] = NULL;
    rc = run_body(&F, in, sc, out, out == NULL, given);
    if (rc) {
        for (int i = 0; out && i < k->noutputs; i++) {
            tl_tensor_unref(out[i]);
            out[i] = NULL;
        }
        if (call_loc.file >= 0)
            diag_note(F.s, call_loc, "in this call of '%s'", k->name);
    }
    frame_free(&F);
    return rc;
}

int itp_call_scalars(TlRuntime *rt, TlKernelInfo *k,
                     TlTensor *const *inputs, const TlScalarArg *scalars,
                     TlScalarArg *out, TlLoc call_loc)
{
    jmp_buf *fatal = rt->s->fatal;
    ItpFrame F;
    int rc;

    rt->s->fatal = NULL;
    frame_init(&F, rt, k, fatal);
    rc = bind_args(&F, inputs, scalars);
    for (int j = 0; j < k->nscalars && !rc; j++) {
        TlVar *v = k->scalars[j];
        ItpVal x = F.env[itp_var_index(&F, v)];
        memset(&out[j], 0, sizeof out[j]);
        out[j].given = 1;
        out[j].is_float = dt_is_float(v->dtype);
        if (out[j].is_float)
            out[j].f = x.f;
        else
            out[j].i = x.i;
    }
    if (rc && call_loc.file >= 0)
        diag_note(F.s, call_loc, "in this call of '%s'", k->name);
    frame_free(&F);
    rt->s->fatal = fatal;
    return rc;
}

/* The first tensor e reads that the kernel computes, or NULL. */
static const TlFunc *reads_computed(const TlExpr *e)
{
    const TlFunc *f = NULL, *r;

    if (!e)
        return NULL;
    if (tl_ref_kind(e->sym) == REF_READ)
        f = ((const TlRead *)e->sym)->func;
    else if (tl_ref_kind(e->sym) == REF_FUNC)
        f = e->sym;
    if (f && f->kind != FN_INPUT && f->kind != FN_CONST)
        return f;
    if ((r = reads_computed(e->a)) || (r = reads_computed(e->b)) ||
        (r = reads_computed(e->c)))
        return r;
    for (int i = 0; i < e->args.n; i++)
        if ((r = reads_computed(e->args.v[i])))
            return r;
    return NULL;
}

const TlFunc *itp_assert_reads(const TlFunc *f)
{
    return reads_computed(f->value);
}

int itp_check_asserts(TlRuntime *rt, TlKernelInfo *k,
                      TlTensor *const *inputs, const TlScalarArg *scalars,
                      TlLoc call_loc)
{
    for (int i = 0; i < k->nfuncs; i++)
        TL_ASSERT(!tl_func_is_assert(k->funcs[i]) ||
                  !itp_assert_reads(k->funcs[i]));
    return itp_check_asserts_given(rt, k, inputs, scalars, NULL, call_loc);
}

int itp_check_asserts_given(TlRuntime *rt, TlKernelInfo *k,
                            TlTensor *const *inputs,
                            const TlScalarArg *scalars,
                            TlTensor *const *given, TlLoc call_loc)
{
    jmp_buf *fatal = rt->s->fatal;
    int rc;

    rt->s->fatal = NULL;
    rc = run(rt, k, inputs, scalars, NULL, call_loc, fatal, given);
    rt->s->fatal = fatal;
    return rc;
}

/* The session's error cap must not longjmp out of a running kernel
 * (its buffers would leak): past the cap, errors are just counted while
 * the kernel unwinds normally. */
int itp_call_kernel(TlRuntime *rt, TlKernelInfo *k,
                    TlTensor *const *inputs, const TlScalarArg *scalars,
                    TlTensor **outputs, TlLoc call_loc)
{
    jmp_buf *fatal = rt->s->fatal;
    int rc;

    rt->s->fatal = NULL;
    rc = run(rt, k, inputs, scalars, outputs, call_loc, fatal, NULL);
    rt->s->fatal = fatal;
    return rc;
}
