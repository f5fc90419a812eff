/*
 * lower.c - a checked kernel and its cpu schedule to a loop-IR
 * function, then the pass pipeline (pipeline.c).  lower_int.h lists
 * the other files of the lowering.
 *
 * Default schedule (SPEC 10.4): every stage is computed at root over
 * its whole domain into a heap buffer of its own, in dependency order;
 * loops run row-major (axis 0 outermost) and a reduction's variables
 * run innermost in the order written; stages without directives are
 * also vectorized and parallelized (sched_apply.c), or computed inline
 * or register-tiled (sched_auto.c).  Outputs are
 * written directly.  Tensors passed in (inputs, outputs, top-level
 * constants) are flat buffers with an extent and a stride parameter
 * per axis, so any strides work.  Reads the checker could not prove
 * in range are checked per element: an out-of-range read sets the
 * error flag and reads nothing, and the runner has the interpreter
 * report it.
 *
 * A kernel call inside the kernel is lowered inline (lower_call.c): the
 * callee's stages join the caller's, in a context of their own, and
 * are scheduled through the call's binding name.  compute_at places a
 * producer's nest inside a loop of its consumer over the region one
 * iteration needs (lower_bounds.c).
 *
 * A stage whose schedule names a reduction variable is lowered as an
 * update (like Halide's update definitions): its buffer is set to the
 * reduction's identity, then one loop nest, pure and reduction loops
 * as scheduled, accumulates `buf = buf op body`, then what surrounds
 * the reduction in the stage's value is applied per element.  The
 * reduction loops stay serial and in the written order
 * (sched_apply.c), so every element accumulates in the interpreter's
 * order and the result is the same bits; only rfactor reassociates
 * (partial results, lower_stage.c).
 */
#include "codegen/lower_int.h"

#include <stdlib.h>
#include <string.h>

void cg_sl_add(SList *l, LStmt *st)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = tl_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = st;
}

/* The list as one statement; frees the list. */
LStmt *cg_sl_done(Lw *L, SList *l)
{
    LStmt *st = lir_block(L->s, l->v, l->n);
    free(l->v);
    memset(l, 0, sizeof *l);
    return st;
}

void cg_unsupported(Lw *L, TlLoc loc, const char *what)
{
    diag_error(L->s, loc, DIAG_CG_UNSUPPORTED, what);
    L->failed = 1;
}

/* A fresh name "base.__N" (dotted names never collide with C words,
 * and index variables are not written with two leading underscores). */
const char *cg_fresh(Lw *L, const char *base)
{
    return arena_printf(&L->s->arena, "%s.__%d", base, ++L->uniq);
}

static LVar *add_param(Lw *L, LVar *v, CgParamKind kind, TlFunc *f,
                       int axis, TlVar *var)
{
    if (L->np == L->capp) {
        L->capp = L->capp ? 2 * L->capp : 16;
        L->params = tl_xrealloc(L->params,
                                (size_t)L->capp * sizeof *L->params);
        L->cps = tl_xrealloc(L->cps, (size_t)L->capp * sizeof *L->cps);
    }
    memset(&L->params[L->np], 0, sizeof L->params[L->np]);
    L->params[L->np].var = v;
    L->cps[L->np].kind = kind;
    L->cps[L->np].f = f;
    L->cps[L->np].axis = axis;
    L->cps[L->np].var = var;
    L->cps[L->np].ext = NULL;
    L->np++;
    return v;
}

LVar *cg_extern_fn(Lw *L, TlExternInfo *x)
{
    for (int i = 0; i < L->np; i++)
        if (L->cps[i].kind == CGP_EXTERN && L->cps[i].ext == x)
            return L->params[i].var;
    add_param(L, lir_func_var(L->s, arena_printf(&L->s->arena, "ext.%s",
                                                 x->name),
                              x->ret, x->params, x->nparams),
              CGP_EXTERN, NULL, 0, NULL);
    L->cps[L->np - 1].ext = x;
    return L->params[L->np - 1].var;
}

/* A string literal (SPEC 8.6) is element n of the table tl.strs the
 * runner passes (interned strings; the C entry's are C literals), so
 * the loop IR needs no string constants: a literal is a load that
 * every pass already knows. */
LExpr *cg_str_lit(Lw *L, const char *s)
{
    int n = 0;

    while (n < L->nlits && strcmp(L->lits[n], s))
        n++;
    if (n == L->nlits) {
        if (L->nlits == L->caplits) {
            L->caplits = L->caplits ? 2 * L->caplits : 8;
            L->lits = tl_xrealloc(L->lits, (size_t)L->caplits *
                                           sizeof *L->lits);
        }
        L->lits[L->nlits++] = arena_strdup(&L->s->arena, s);
    }
    if (!L->strs)
        L->strs = add_param(L, lir_buffer(L->s, "tl.strs", DT_STR),
                            CGP_STRS, NULL, 0, NULL);
    return lir_load(L->s, L->strs, (LExpr *[]){i64c(L, n)}, 1);
}

/* hash(x) of a tensor the kernel computes: in an inlined call, x
 * stands for a stage of the caller (or its result of another call).
 * The hash is tl_tensor_hash's, in the kernel: FNV-1a over the dtype's
 * number, the rank and the extents (each an i64), then over the
 * elements in row-major order, each read as the callee reads x (from
 * the buffer, or computed where the stage is inline), through a serial
 * loop nest whose every step continues the one before (LC_FNV, the
 * generated C's tl_fnv). */
static LExpr *hash_computed(Lw *L, TlExpr *e, const TlFunc *x, SList *pre)
{
    FInfo *fi = cg_find_finfo(L, x);
    LVar *h = lir_buffer(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                         "hash.%s", x->name)), DT_I64);
    LVar *iv[TL_MAX_RANK];
    LExpr *z = i64c(L, 0), *idx[TL_MAX_RANK], *head[TL_MAX_RANK + 2];
    LExpr *cur;
    SList body = {0};
    LStmt *loop;
    int nh = 0;

    if (x->dtype == DT_STR) {
        cg_unsupported(L, e->loc, arena_printf(&L->s->arena, "'hash' of "
                       "the str tensor '%s', which the kernel computes,",
                       x->name));
        return i64c(L, 0);
    }
    TL_ASSERT(fi);
    cg_sl_add(pre, lir_alloc(L->s, h, LM_STACK, &(LExpr *){i64c(L, 1)}, 1));
    cur = i64c(L, (int64_t)0xcbf29ce484222325ull);
    head[nh++] = i64c(L, (int64_t)x->dtype);
    head[nh++] = i64c(L, x->rank);
    for (int j = 0; j < x->rank; j++)
        head[nh++] = to_dt(L, DT_I64, fi->ext[j]);
    for (int i = 0; i < nh; i++)
        cur = lir_call(L->s, LC_FNV, (LExpr *[]){cur, head[i]}, 2);
    cg_sl_add(pre, lir_store(L->s, h, &z, 1, cur));
    for (int j = 0; j < x->rank; j++) {
        iv[j] = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                        "hash.%s.i%d", x->name, j)), lir_type(DT_I64, 1));
        idx[j] = lir_ref(L->s, iv[j]);
    }
    cur = cg_read_at(L, x, idx, e->loc, &body);
    cg_sl_add(&body, lir_store(L->s, h, &z, 1, lir_call(L->s, LC_FNV,
              (LExpr *[]){lir_load(L->s, h, &z, 1), cur}, 2)));
    loop = cg_sl_done(L, &body);
    for (int j = x->rank - 1; j >= 0; j--) {
        LExpr *lo = to_dt(L, DT_I64, fi->lo[j]);
        loop = lir_for(L->s, LP_SERIAL, 0, NULL, iv[j], lo,
                       bin(L, LO_ADD, lo, to_dt(L, DT_I64, fi->ext[j])),
                       loop);
    }
    cg_sl_add(pre, loop);
    return lir_load(L->s, h, &z, 1);
}

/* hash(x) (SPEC 6.8): of the kernel's input x, an i64 parameter that
 * the runner computes (tl_tensor_hash; the C entry the same, aot.c).
 * In an inlined call x is the caller's tensor it stands for: an input
 * of the kernel lowered, or a tensor it computes (hash_computed). */
LExpr *cg_hash_param(Lw *L, TlExpr *e, SList *pre)
{
    const TlFunc *f = e->args.v[0]->sym;
    FInfo *fi = cg_find_finfo(L, f);

    while (fi && fi->alias >= 0) {
        fi = &L->fs[fi->alias];
        f = fi->f;
    }
    if (f->kind != FN_INPUT || f->kernel != L->k)
        return hash_computed(L, e, e->args.v[0]->sym, pre);
    for (int i = 0; i < L->np; i++)
        if (L->cps[i].kind == CGP_HASH && L->cps[i].f == f)
            return lir_ref(L->s, L->params[i].var);
    return lir_ref(L->s, add_param(L, lir_var(L->s, arena_printf(
                       &L->s->arena, "hash.%s", f->name),
                       lir_type(DT_I64, 1)), CGP_HASH, (TlFunc *)f, 0, NULL));
}

void cg_map_var(Lw *L, const TlVar *tv, LVar *lv)
{
    if (L->nvars == L->capvars) {
        L->capvars = L->capvars ? 2 * L->capvars : 16;
        L->vars = tl_xrealloc(L->vars, (size_t)L->capvars * sizeof *L->vars);
    }
    L->vars[L->nvars].tv = tv;
    L->vars[L->nvars].lv = lv;
    L->vars[L->nvars].ctx = L->ctx;
    L->nvars++;
}

LVar *cg_find_var(Lw *L, const TlVar *tv)
{
    for (int i = L->nvars - 1; i >= 0; i--)
        if (L->vars[i].tv == tv && L->vars[i].ctx == L->ctx)
            return L->vars[i].lv;
    return NULL;
}

FInfo *cg_new_finfo(Lw *L, const TlFunc *f)
{
    if (L->nfs == L->capfs) {
        L->capfs = L->capfs ? 2 * L->capfs : 16;
        L->fs = tl_xrealloc(L->fs, (size_t)L->capfs * sizeof *L->fs);
    }
    memset(&L->fs[L->nfs], 0, sizeof L->fs[L->nfs]);
    L->fs[L->nfs].f = f;
    L->fs[L->nfs].ctx = L->ctx;
    L->fs[L->nfs].alias = -1;
    for (int j = 0; j < TL_MAX_RANK; j++)
        L->fs[L->nfs].sorder[j] = j;
    return &L->fs[L->nfs++];
}

FInfo *cg_find_finfo(Lw *L, const TlFunc *f)
{
    for (int i = 0; i < L->nfs; i++)
        if (L->fs[i].f == f && (L->fs[i].ctx == L->ctx ||
                                f->kind == FN_CONST))
            return &L->fs[i];
    return NULL;
}
/* ====================================================================
 * The kernel
 * ==================================================================== */

/* A tensor passed in: data pointer, then extent and stride per axis. */
static void extern_tensor(Lw *L, TlFunc *f, const char *what)
{
    FInfo *fi = cg_new_finfo(L, f);
    const char *base = arena_printf(&L->s->arena, "%s.%s", what, f->name);

    fi->buf = add_param(L, lir_buffer(L->s, base, f->dtype), CGP_BUF, f, 0,
                        NULL);
    fi->buf->stream = !strcmp(what, "out") && !L->plain &&
                      cg_sched_streamed(L->k, f);
    for (int j = 0; j < f->rank; j++) {
        LType t = lir_type(DT_I64, 1);
        LVar *e = lir_var(L->s, arena_printf(&L->s->arena, "%s.n%d", base, j),
                          t);
        LVar *st = lir_var(L->s, arena_printf(&L->s->arena, "%s.s%d", base,
                                              j), t);
        int64_t c;
        add_param(L, e, CGP_EXTENT, f, j, NULL);
        add_param(L, st, CGP_STRIDE, f, j, NULL);
        fi->lo[j] = fi->rlo[j] = i64c(L, 0);
        /* An extent written as a number is that number (the runner
         * checks the tensors), so that the C compiler sees the bounds
         * the buffers were sized with (else -Warray-bounds can fire
         * on a guarded tail). */
        fi->ext[j] = fi->rext[j] =
            f->axes[j].extent && tl_sym_const(f->axes[j].extent, &c)
                ? i64c(L, c) : lir_ref(L->s, e);
        /* The runner passes packed tensors (target.c): the last
         * stride is 1, which makes vector accesses contiguous. */
        fi->stride[j] = j == f->rank - 1 ? i64c(L, 1) : lir_ref(L->s, st);
    }
}

/* Scalars: `let x = select(given, arg, default)`. */
static void scalars(Lw *L, SList *out)
{
    TlKernelInfo *k = L->k;

    for (int i = 0; i < k->nscalars; i++) {
        TlVar *v = k->scalars[i];
        const char *base = arena_printf(&L->s->arena, "sc.%s", v->name);
        TlDType pdt = dt_is_float(v->dtype) ? DT_F64 : DT_I64;
        LVar *arg = add_param(L, lir_var(L->s, arena_printf(&L->s->arena,
                              "%s.arg", base), lir_type(pdt, 1)),
                              CGP_SCALAR, NULL, 0, v);
        LVar *given = add_param(L, lir_var(L->s, arena_printf(&L->s->arena,
                                "%s.given", base), lir_type(DT_BOOL, 1)),
                                CGP_GIVEN, NULL, 0, v);
        LVar *x = lir_var(L->s, base, lir_type(v->dtype, 1));
        LExpr *val = to_dt(L, v->dtype, lir_ref(L->s, arg));
        if (v->param && v->param->init) {
            SList p = {0};
            LExpr *d = to_dt(L, v->dtype,
                             cg_lower_expr(L, v->param->init, &p));
            if (p.n)
                cg_unsupported(L, v->param->init->loc,
                            "this scalar default");
            free(p.v);
            val = lir_select(L->s, lir_ref(L->s, given), val, d);
        }
        cg_sl_add(out, lir_let(L->s, x, val));
        cg_map_var(L, v, x);
    }
}
/* An intermediate stage: a heap buffer over its domain. */
void cg_stage_buffer(Lw *L, TlFunc *f, SList *out)
{
    FInfo *fi = cg_new_finfo(L, f);
    LExpr *size = i64c(L, 1);
    int64_t pad;

    fi->buf = lir_buffer(L->s, cg_fresh(L, f->name), f->dtype);
    if (L->plain)
        for (int j = 0; j < f->rank; j++)
            fi->sorder[j] = j;
    else
        cg_sched_storage(L->k, L->path, L->npath, f, fi->sorder);
    for (int p = f->rank - 1; p >= 0; p--) {
        int j = fi->sorder[p];
        LVar *lo = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                           "%s.lo%d", f->name, j)), lir_type(DT_I64, 1));
        LVar *ext = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                            "%s.n%d", f->name, j)), lir_type(DT_I64, 1));
        LVar *st = lir_var(L->s, cg_fresh(L, arena_printf(&L->s->arena,
                           "%s.s%d", f->name, j)), lir_type(DT_I64, 1));
        cg_sl_add(out, lir_let(L->s, lo, to_dt(L, DT_I64,
                   cg_sym_lower(L, f->axes[j].lo, DT_I32, f->loc))));
        cg_sl_add(out, lir_let(L->s, ext, bin(L, LO_MAX, i64c(L, 0),
                   to_dt(L, DT_I64, cg_sym_lower(L, f->axes[j].extent, DT_I32,
                                              f->loc)))));
        cg_sl_add(out, lir_let(L->s, st, size));
        fi->lo[j] = fi->rlo[j] = lir_ref(L->s, lo);
        fi->ext[j] = fi->rext[j] = lir_ref(L->s, ext);
        fi->stride[j] = lir_ref(L->s, st);
        pad = L->plain ? 1 : cg_sched_pad(L->k, L->path, L->npath, f, j);
        /* round_up computes up to a multiple of pad past the end */
        size = bin(L, LO_MUL, lir_ref(L->s, st), pad == 1 ?
                   lir_ref(L->s, ext) : bin(L, LO_MUL, bin(L, LO_DIV,
                   bin(L, LO_ADD, lir_ref(L->s, ext), i64c(L, pad - 1)),
                   i64c(L, pad)), i64c(L, pad)));
    }
    fi->size = size;
}
/* ok && what it implies that the C compiler could not know: where
 * stage f's extent on a bound axis is c + k * v for a size (or integer
 * scalar) v, v equals (extent - c) / k too (blur3's out[H - 2, W - 2]:
 * H == 4096).  The simplifier writes
 * a variable that an `if` tests equal to a constant as that constant
 * inside it (pass_simplify.c), so the regions of the stages computed
 * inside fold to constants: softmax's rows had their buffers sized,
 * filled and reduced by loops with symbolic bounds and empty tails. */
static LExpr *bound_implies(Lw *L, TlFunc *f, CgNest *n, LExpr *ok)
{
    for (int j = 0; j < f->rank; j++) {
        const TlSymExpr *x = f->axes[j].extent;
        LExpr *e = n->bext[j];
        LVar *v;
        int64_t lo, k, d;
        /* A stage's buffer extent is max(0, extent): a positive one
         * is the extent's value.  A v that (extent - c) / k would not
         * give exactly, or that its type cannot hold, makes the guard
         * false anyway: nothing is said then. */
        if (!e || e->kind != LE_INT || e->ival <= 0 || !x || x->n != 1 ||
            x->t[0].atom->kind != SYM_VAR ||
            !tl_sym_const(f->axes[j].lo, &lo) || lo != 0 ||
            !(v = cg_find_var(L, x->t[0].atom->var)) ||
            !dt_is_int(v->type.dt) || v->type.lanes != 1)
            continue;
        k = x->t[0].coef;
        if (__builtin_sub_overflow(e->ival, x->c, &d) || d == INT64_MIN ||
            d % k != 0 ||
            (d /= k) < lir_int_min(v->type.dt) ||
            d > lir_int_max(v->type.dt))
            continue;
        ok = bin(L, LO_AND, ok, bin(L, LO_EQ, lir_ref(L->s, v),
                                    lir_const(L->s, v->type, d)));
    }
    return ok;
}

/* The stage's nests, run only where its domain is what its `bound`
 * directives say (else the error flag says so and it is skipped). */
static void emit_checked(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                         TlReduce *red, SList *out)
{
    SList body = {0};
    LExpr *ok = NULL, *z = i64c(L, 0);

    for (int j = 0; j < f->rank; j++) {
        LExpr *c;
        if (!n->bmin[j])
            continue;
        c = bin(L, LO_AND, bin(L, LO_EQ, fi->lo[j], to_dt(L, DT_I64,
                                                          n->bmin[j])),
                bin(L, LO_EQ, fi->ext[j], to_dt(L, DT_I64, n->bext[j])));
        ok = ok ? bin(L, LO_AND, ok, c) : c;
    }
    if (!ok) {
        cg_emit_stage(L, f, fi, n, red, out);
        return;
    }
    cg_emit_stage(L, f, fi, n, red, &body);
    cg_sl_add(out, lir_if(L->s, bound_implies(L, f, n, ok),
                          cg_sl_done(L, &body),
                          lir_store(L->s, L->err, &z, 1,
                                    lir_int(L->s, DT_I32, CG_ERR_BOUND))));
}

/* The stages of kernel kk (the kernel itself or an inlined callee, in
 * the current context) in dependency order. */
void cg_lower_funcs(Lw *L, TlKernelInfo *kk, SList *top)
{
    TlSession *s = L->s;
    TlKernelInfo *k = L->k;
    CgNest nest;

    for (int i = 0; i < kk->nfuncs && !L->failed; i++) {
        TlFunc *fn = kk->funcs[i];
        TlReduce *red = NULL;
        FInfo *fi;
        int out_of_call;
        if (fn->call) {
            int seen = 0;
            if (cg_sched_call_result(s, k, L->path, L->npath, fn)) {
                L->failed = 1;
                break;
            }
            for (int d = 0; d < L->ndone; d++)
                seen |= L->done[d] == fn->call && L->done_ctx[d] == L->ctx;
            if (seen)
                continue;
            if (L->ndone == L->capdone) {
                L->capdone = L->capdone ? 2 * L->capdone : 8;
                L->done = tl_xrealloc(L->done, (size_t)L->capdone *
                                      sizeof *L->done);
                L->done_ctx = tl_xrealloc(L->done_ctx, (size_t)L->capdone *
                                          sizeof *L->done_ctx);
            }
            L->done[L->ndone] = fn->call;
            L->done_ctx[L->ndone++] = L->ctx;
            cg_expand_call(L, fn->call, top);
            continue;
        }
        if (!fn->value) {
            cg_unsupported(L, fn->loc, "this stage");
            break;
        }
        if (fn->kind != FN_OUTPUT)
            cg_stage_buffer(L, fn, top);
        fi = cg_find_finfo(L, fn);
        TL_ASSERT(fi);
        /* An output of an inlined call that lands in a caller's stage
         * (not the kernel's output) may be inlined into its readers. */
        out_of_call = fn->kind == FN_OUTPUT && fi->alias >= 0 &&
                      L->fs[fi->alias].need_alloc;
        if (fn->kind != FN_OUTPUT && !L->plain &&
            cg_sched_at(k, L->path, L->npath, fn))
            cg_at_region(L, fn, fi);
        if (!L->plain &&
            (cg_sched_names_rvar(k, L->path, L->npath, fn) ||
             (cg_auto_tiled(fn) && cg_sched_default(k, L->path, L->npath,
                                                    fn, out_of_call)))) {
            red = fn->nreds == 1 ? fn->reds[0] : NULL;
            /* The update needs one reduction, whose loops join the
             * stage's (lower_stage.c). */
            if (!red) {
                cg_unsupported(L, fn->loc, arena_printf(&s->arena,
                               "scheduling the reduction variables of "
                               "'%s', a stage of %d reductions,",
                               fn->name, fn->nreds));
                break;
            }
            if (red->nrvars > 26 || fn->rank + red->nrvars > CG_MAX_LOOPS) {
                cg_unsupported(L, fn->loc, arena_printf(&s->arena,
                               "scheduling the %d reduction variables "
                               "of '%s'", red->nrvars, fn->name));
                break;
            }
        }
        cg_default_nest(L, fn, fi, &nest, red);
        nest.call_out = out_of_call;
        if (fn->rank > CG_MAX_LOOPS ||
            (!L->plain &&
             cg_sched_nest(s, k, L->path, L->npath, fn, &nest))) {
            L->failed = 1;
            break;
        }
        if (tl_func_is_assert(fn)) {
            /* Its buffer is what guards the rest: never inlined (no
             * schedule can name it). */
            nest.inline_ = 0;
            cg_sl_add(top, lir_alloc(s, fi->buf, LM_HEAP, &fi->size, 1));
            emit_checked(L, fn, fi, &nest, red, top);
            L->asrt_at = tl_xrealloc(L->asrt_at, (size_t)(L->nasrt + 1) *
                                     sizeof *L->asrt_at);
            L->asrt_buf = tl_xrealloc(L->asrt_buf, (size_t)(L->nasrt + 1) *
                                      sizeof *L->asrt_buf);
            L->asrt_at[L->nasrt] = top->n;
            L->asrt_buf[L->nasrt++] = fi->buf;
            continue;
        }
        if (nest.inline_) {
            fi->inl = 1;
            if (out_of_call) {
                FInfo *p = &L->fs[fi->alias];
                p->inl = 1;
                p->vf = fn;
                p->vctx = L->ctx;
                p->need_alloc = 0;
            }
            continue;
        }
        if (nest.at_func) {
            fi->nest = arena_alloc(&s->arena, sizeof nest);
            *fi->nest = nest;
            fi->red = red;
            if (nest.store_dir)
                cg_store_vars(L, fn, fi);
            continue;
        }
        if (fn->kind != FN_OUTPUT)
            cg_sl_add(top, lir_alloc(s, fi->buf, LM_HEAP, &fi->size, 1));
        if (out_of_call) {
            FInfo *p = &L->fs[fi->alias];
            cg_sl_add(top, lir_alloc(s, p->buf, LM_HEAP, &p->size, 1));
            p->need_alloc = 0;
        }
        emit_checked(L, fn, fi, &nest, red, top);
    }
}

/* What follows each assert in the top-level list, nested in an `if`
 * on its value: a false one sets CG_ERR_ASSERT and nothing after it
 * runs (the runner has the interpreter report which), as a call of
 * the interpreter stops there.  Innermost (last) first. */
static void guard_asserts(Lw *L, SList *top)
{
    LExpr *z = lir_int(L->s, DT_I64, 0), *z32 = lir_int(L->s, DT_I32, 0);

    for (int a = L->nasrt - 1; a >= 0; a--) {
        int at = L->asrt_at[a];
        LStmt *rest = lir_block(L->s, top->v + at, top->n - at);
        LStmt *fail = lir_store(L->s, L->err, &z32, 1,
                                lir_int(L->s, DT_I32, CG_ERR_ASSERT));
        top->n = at;
        cg_sl_add(top, lir_if(L->s, lir_load(L->s, L->asrt_buf[a], &z, 1),
                              rest, fail));
    }
    free(L->asrt_at);
    free(L->asrt_buf);
}

/* Names made from an instance's names (the pack size "S[0]", the
 * kernel "relu<f32, ..2>") hold characters the loop IR's text form
 * cannot write: each run of them becomes "._" (none at the end), which
 * no other name holds.  A variable is one object shared by its uses,
 * so renaming it where it is defined renames it everywhere. */
static const char *legal_name(TlSession *s, const char *n)
{
    TlBuf b;
    const char *r;
    int bad = 0;

    if (!n[strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.")])
        return n;
    buf_init(&b);
    for (; *n; n++) {
        int ok = (*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
                 (*n >= '0' && *n <= '9') || *n == '_' ||
                 (*n == '.' && !bad);
        if (ok && bad)
            buf_puts(&b, "._");
        bad = !ok;
        if (ok)
            buf_putc(&b, *n);
    }
    r = arena_strdup(&s->arena, b.s);
    buf_free(&b);
    return r;
}

static int legal_stmt(LVisitor *v, const LStmt *st)
{
    if (st->var)
        st->var->name = legal_name(v->ctx, st->var->name);
    return 1;
}

static void legal_names(TlSession *s, LFunc *f)
{
    LVisitor v = {s, NULL, legal_stmt};

    f->name = legal_name(s, f->name);
    for (int i = 0; i < f->nparams; i++)
        f->params[i].var->name = legal_name(s, f->params[i].var->name);
    lir_visit_stmt(&v, f->body);
}

TlFunc *cg_kernel_str(const TlKernelInfo *k)
{
    TlFunc *const *lists[4] = {k->inputs, k->outputs, k->consts, k->funcs};
    int counts[4] = {k->ninputs, k->noutputs, k->nconsts, k->nfuncs};
    TlFunc *f;

    for (int l = 0; l < 4; l++)
        for (int i = 0; i < counts[l]; i++)
            if (lists[l][i]->dtype == DT_STR ||
                ast_has_str(lists[l][i]->value))
                return lists[l][i];
    /* A kernel called inside is lowered inline: its strings are this
     * kernel's. */
    for (int i = 0; i < k->ncalls; i++)
        if (k->calls[i]->callee && (f = cg_kernel_str(k->calls[i]->callee)))
            return f;
    return NULL;
}

static CgKernel *lower_kernel(TlSession *s, TlKernelInfo *k, int plain)
{
    Lw L;
    SList top = {0};
    CgKernel *ck;
    LFunc *f;
    TlFunc *sf;
    TlBuf err;

    memset(&L, 0, sizeof L);
    L.s = s;
    L.k = k;
    L.plain = plain;
    /* Plain lowering is the accel target's, which has no strings. */
    if ((sf = cg_kernel_str(k)) && plain) {
        diag_error(s, sf->loc, DIAG_ACC_CG_UNSUPPORTED,
                   arena_printf(&s->arena, sf->dtype == DT_STR
                                ? "the str tensor '%s'"
                                : "'%s', computed with strings,", sf->name));
        diag_hint(s, "kernels with strings run on the interpreter or the "
                     "cpu target");
        return NULL;
    }
    if (!plain && cg_sched_check(s, k))
        return NULL;
    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        cg_map_var(&L, v, add_param(&L, lir_var(s, arena_printf(&s->arena,
                                 "sz.%s", v->name), lir_type(DT_I32, 1)),
                                 CGP_SIZE, NULL, 0, v));
    }
    for (int i = 0; i < k->ninputs; i++)
        extern_tensor(&L, k->inputs[i], "in");
    for (int i = 0; i < k->noutputs; i++)
        extern_tensor(&L, k->outputs[i], "out");
    for (int i = 0; i < k->nconsts; i++)
        extern_tensor(&L, k->consts[i], "const");
    L.err = add_param(&L, lir_buffer(s, CG_ERR_NAME, DT_I32), CGP_ERR, NULL, 0,
                      NULL);
    if (sf)
        add_param(&L, lir_buffer(s, CG_STRMEM_NAME, DT_U8), CGP_STRMEM, NULL,
                  0, NULL);
    scalars(&L, &top);
    cg_lower_funcs(&L, k, &top);
    for (int i = 0; i < L.nfs && !L.failed; i++)
        if (L.fs[i].nest && !L.fs[i].placed)
            cg_unsupported(&L, L.fs[i].nest->at_loc, arena_printf(&s->arena,
                        "'compute_at' loop '%s' of '%s' here",
                        L.fs[i].nest->at_var->name,
                        L.fs[i].nest->at_func->name));
    if (L.failed) {
        free(L.lits);
        free(L.asrt_at);
        free(L.asrt_buf);
        free(top.v);
        free(L.cps);
        free(L.params);
        free(L.vars);
        free(L.fs);
        free(L.done);
        free(L.done_ctx);
        return NULL;
    }
    guard_asserts(&L, &top);
    f = lir_func(s, arena_printf(&s->arena, "k.%s", k->name), L.params,
                 L.np, cg_sl_done(&L, &top));
    legal_names(s, f);
    buf_init(&err);
    if (lir_verify(f, &err))
        tl_internal_error(__FILE__, __LINE__, "lowered IR is ill-formed:\n%s",
                          err.s);
    buf_free(&err);
    f = plain ? lir_pipeline_before(s, f, "hoist") : lir_pipeline(s, f);
    ck = arena_alloc(&s->arena, sizeof *ck);
    ck->fn = f;
    ck->nparams = L.np;
    ck->params = arena_alloc(&s->arena, (size_t)L.np * sizeof *ck->params);
    memcpy(ck->params, L.cps, (size_t)L.np * sizeof *ck->params);
    ck->nlits = L.nlits;
    ck->lits = arena_alloc(&s->arena, (size_t)(L.nlits + 1) *
                                      sizeof *ck->lits);
    if (L.nlits)
        memcpy(ck->lits, L.lits, (size_t)L.nlits * sizeof *ck->lits);
    free(L.lits);
    free(L.cps);
    free(L.params);
    free(L.vars);
    free(L.fs);
    free(L.done);
    free(L.done_ctx);
    return ck;
}

CgKernel *cg_lower_kernel(TlSession *s, TlKernelInfo *k)
{
    return lower_kernel(s, k, 0);
}

CgKernel *cg_lower_kernel_plain(TlSession *s, TlKernelInfo *k)
{
    return lower_kernel(s, k, 1);
}
