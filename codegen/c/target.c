/*
 * target.c - the `cpu` target: a runner with itp_call_kernel's
 * contract that lowers the kernel, compiles it (jit.c) and calls it.
 * It binds sizes from the input shapes and converts scalars as the
 * interpreter does.  When the arguments are wrong (a dtype, a shape, a
 * missing scalar) or a checked read falls outside its tensor, it has
 * the interpreter run the call instead, only to report the very error
 * the interpreter reports; the interpreter succeeding there is a bug.
 */
#include "codegen/c/cgc.h"
#include "interp/interp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Bind {
    TlKernelInfo *k;
    int64_t *sizes;         /* [k->nsizes] */
    int64_t *scal;          /* [k->nscalars] integer scalars */
} Bind;

static int lookup(void *ctx, const TlVar *v, int64_t *out)
{
    Bind *b = ctx;

    for (int i = 0; i < b->k->nsizes; i++)
        if (b->k->sizes[i] == v) {
            *out = b->sizes[i];
            return 0;
        }
    for (int i = 0; i < b->k->nscalars; i++)
        if (b->k->scalars[i] == v && !dt_is_float(v->dtype)) {
            *out = b->scal[i];
            return 0;
        }
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The `bound` directives of k's cpu schedule against the domains these
 * arguments give (the compiled kernel checks them too, and skips a
 * stage whose bound fails; here the error names the directive).
 * Returns -1 after reporting the first that fails. */
static int check_bounds(TlSession *s, TlKernelInfo *k, Bind *b)
{
    for (int i = 0; i < k->nschedules; i++) {
        const TlSchedInfo *si = k->schedules[i];
        if (!si->target || strcmp(si->target, "cpu") || si->variant)
            continue;
        for (int c = 0; c < si->nchains; c++) {
            const TlSchedChain *ch = si->chains[c];
            for (int d = 0; d < ch->ndirs && !ch->npath; d++) {
                const TlSchedDir *dir = &ch->dirs[d];
                const TlFunc *f = ch->func;
                int64_t v[4];
                int j = 0;
                if (dir->kind != SD_BOUND || dir->nargs != 3)
                    continue;
                while (j < f->rank && f->axes[j].var != dir->args[0].var)
                    j++;
                if (j == f->rank ||
                    tl_sym_eval(f->axes[j].lo, lookup, b, &v[0]) ||
                    tl_sym_eval(f->axes[j].extent, lookup, b, &v[1]))
                    continue;
                for (int g = 1; g < 3; g++)
                    if (dir->args[g].kind == SARG_INT)
                        v[g + 1] = dir->args[g].ival;
                    else if (tl_sym_eval(dir->args[g].sym, lookup, b,
                                         &v[g + 1]))
                        v[g + 1] = v[g - 1];
                if (v[0] == v[2] && v[1] == v[3])
                    continue;
                diag_error(s, dir->loc, DIAG_CG_BOUND,
                           dir->args[0].var->name, f->name, (long long)v[2],
                           (long long)v[3], (long long)v[0],
                           (long long)v[1]);
                return -1;
            }
        }
    }
    return 0;
}

static CgcStats last_stats;

void cgc_last_stats(CgcStats *st)
{
    *st = last_stats;
}

/* A kernel lowered, generated and loaded once, kept on its
 * TlKernelInfo (whose arena the lowered kernel lives in): later calls
 * only bind their arguments.  The lowering does not depend on the
 * shapes (they are parameters of the generated code), only on the
 * schedules of k and of the kernels it calls, which the REPL may add
 * or drop (a new array, or a shorter count), and on the compiler and
 * its flags from the environment. */
typedef struct Loaded {
    CgKernel *ck;
    CgEntry fn;
    uint64_t key;
} Loaded;

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

static uint64_t mix_str(uint64_t h, const char *str)
{
    h = mix(h, 0xff);
    for (; str && *str; str++)
        h = mix(h, (unsigned char)*str);
    return h;
}

static uint64_t loaded_key(const TlKernelInfo *k)
{
    uint64_t h = 0xcbf29ce484222325ull;

    h = mix(h, (uint64_t)(uintptr_t)k->schedules);
    h = mix(h, (uint64_t)k->nschedules);
    for (int i = 0; i < k->ncalls; i++) {
        const TlKernelInfo *c = k->calls[i]->callee;
        h = mix(h, (uint64_t)(uintptr_t)c);
        if (c) {
            h = mix(h, (uint64_t)(uintptr_t)c->schedules);
            h = mix(h, (uint64_t)c->nschedules);
        }
    }
    h = mix_str(h, getenv("TDSL_CC"));
    h = mix_str(h, cgc_flags());
    return mix_str(h, getenv("TDSL_CFLAGS_EXTRA"));
}

/* The kernel's allocator of the strings it makes (tdsl_str_alloc in
 * the generated C, docs/c-abi.md): the runner's arena, freed after
 * the call once the outputs' strings are interned. */
typedef struct StrAlloc {
    void *(*alloc)(void *ctx, size_t size);
    void *ctx;
} StrAlloc;

static void *str_alloc(void *ctx, size_t size)
{
    return arena_alloc(ctx, size);
}

static void intern_all(TlTensor *t)
{
    int64_t n = tl_tensor_numel(t);

    for (int64_t i = 0; i < n; i++) {
        char *p = (char *)t->data + i * (int64_t)sizeof(char *);
        const char *s;
        memcpy(&s, p, sizeof s);
        if (s)
            tl_str_put(p, tl_str_intern(s, strlen(s)));
    }
}

/* The runner; the compiled kernel is called reps times, secs[r] (when
 * not NULL) receiving the time of call r. */
static int run_cpu_n(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                     const TlScalarArg *sc, TlTensor **out, TlLoc call_loc,
                     int reps, double *secs)
{
    TlSession *s = rt->s;
    TlTensor *consts[64];
    CgKernel *ck;
    Bind b;
    TlBuf src;
    CgEntry fn;
    void **args;
    int64_t *ivals;
    double *fvals;
    uint8_t *flags;
    TlCFunc *cfns;
    TlTensor **packed;
    const TlScalarArg *sc0 = sc;
    TlScalarArg *all;
    int32_t err = 0;
    int rc = -1, bad = 0, interp = 0;
    Loaded *cached;
    uint64_t key;
    double t_start, t_kernel = 0;
    const char **lits = NULL;
    TlArena strmem;
    StrAlloc stralloc = {NULL, NULL};

    TL_ASSERT(k->ok);
    for (int i = 0; i < k->noutputs; i++)
        out[i] = NULL;
    for (int i = 0; i < k->ninputs; i++)
        if (in[i]->dtype != k->inputs[i]->dtype ||
            in[i]->rank != k->inputs[i]->rank)
            return itp_call_refused("cpu", rt, k, in, sc, out, call_loc);
    if (k->nconsts > 64) {
        diag_error(s, call_loc, DIAG_CG_UNSUPPORTED,
                   "a kernel that reads more than 64 top-level tensors");
        return -1;
    }
    t_start = now_s();
    key = loaded_key(k);
    cached = k->cg_loaded;
    memset(&last_stats, 0, sizeof last_stats);
    if (cached && cached->key == key) {
        ck = cached->ck;
        fn = cached->fn;
        last_stats.reused = 1;
    } else {
        ck = cg_lower_kernel(s, k);
        fn = NULL;
    }
    if (!ck) {
        if (call_loc.file >= 0)
            diag_note(s, call_loc, "in this call of '%s'", k->name);
        return -1;
    }

    /* Scalars as the interpreter binds them, defaults evaluated (a
     * default may use sizes and other scalars); sizes, shapes: like
     * interp/eval.c. */
    all = tl_xcalloc((size_t)k->nscalars + 1, sizeof *all);
    if (itp_call_scalars(rt, k, in, sc, all, call_loc)) {
        free(all);
        return -1;
    }
    sc = all;
    memset(&b, 0, sizeof b);
    b.k = k;
    b.sizes = tl_xcalloc((size_t)k->nsizes + 1, sizeof *b.sizes);
    b.scal = tl_xcalloc((size_t)k->nscalars + 1, sizeof *b.scal);
    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        int p = tl_func_index(k->inputs, k->ninputs, v->bound_by);
        TL_ASSERT(p >= 0 && v->bound_axis < in[p]->rank);
        b.sizes[i] = in[p]->shape[v->bound_axis];
    }
    for (int i = 0; i < k->nscalars; i++) {
        TlVar *v = k->scalars[i];
        char tmp[8];
        if (dt_is_float(v->dtype))
            continue;
        tl_dt_store_i64(v->dtype, tmp, sc[i].i);
        b.scal[i] = tl_dt_load_i64(v->dtype, tmp);
    }
    for (int i = 0; i < k->ninputs && !bad; i++) {
        TlFunc *f = k->inputs[i];
        for (int j = 0; j < f->rank && !bad; j++) {
            int64_t want;
            if (f->axes[j].extent &&
                (tl_sym_eval(f->axes[j].extent, lookup, &b, &want) ||
                 want != in[i]->shape[j]))
                bad = 1;
        }
    }
    for (int i = 0; i < k->nconsts && !bad; i++) {
        TlFunc *f = k->consts[i];
        TlTensor *t;
        TL_ASSERT(rt->const_value && f->let);
        t = rt->const_value(rt->ctx, f->let);
        consts[i] = t;
        if (!t)
            goto done;
        bad = t->dtype != f->dtype || t->rank != f->rank;
        for (int j = 0; j < f->rank && !bad; j++) {
            int64_t c;
            bad = f->axes[j].extent &&
                  !(tl_sym_const(f->axes[j].extent, &c) && c == t->shape[j]);
        }
    }
    for (int i = 0; i < k->noutputs && !bad; i++) {
        TlFunc *f = k->outputs[i];
        int64_t shape[TL_MAX_RANK];
        char why[200];
        for (int j = 0; j < f->rank && !bad; j++)
            bad = tl_sym_eval(f->axes[j].extent, lookup, &b, &shape[j]) ||
                  shape[j] < 0;
        if (!bad && !(out[i] = tl_tensor_new(f->dtype, f->rank, shape, why,
                                             sizeof why)))
            bad = 1;
    }
    if (bad)
        goto refuse;
    if (check_bounds(s, k, &b))
        goto done;
    /* An extern that cannot be called is an error only where the
     * kernel calls it (SPEC 5.3): the interpreter runs such a call,
     * and reports it if it does call it. */
    for (int p = 0; p < ck->nparams; p++)
        if (ck->params[p].kind == CGP_EXTERN &&
            !itp_extern_cfunc(rt, ck->params[p].ext)) {
            interp = 1;
            goto refuse;
        }

    if (!fn) {
        double t0 = now_s();
        buf_init(&src);
        cgc_emit(s, &src, ck->fn);
        fn = cgc_jit(s, src.s, call_loc);
        buf_free(&src);
        if (!fn)
            goto done;
        cached = arena_alloc(&s->arena, sizeof *cached);
        cached->ck = ck;
        cached->fn = fn;
        cached->key = key;
        k->cg_loaded = cached;
        last_stats.prep_s = now_s() - t0;
        /* The lowering is part of preparing the kernel. */
        last_stats.prep_s += t0 - t_start;
    }

    args = tl_xcalloc((size_t)ck->nparams + 1, sizeof *args);
    ivals = tl_xcalloc((size_t)ck->nparams + 1, sizeof *ivals);
    fvals = tl_xcalloc((size_t)ck->nparams + 1, sizeof *fvals);
    flags = tl_xcalloc((size_t)ck->nparams + 1, sizeof *flags);
    cfns = tl_xcalloc((size_t)ck->nparams + 1, sizeof *cfns);
    /* The kernel assumes packed tensors (its last stride is 1). */
    packed = tl_xcalloc((size_t)(k->ninputs + k->nconsts) + 1,
                        sizeof *packed);
    for (int i = 0; i < k->ninputs; i++)
        packed[i] = tl_tensor_contiguous(in[i]);
    for (int i = 0; i < k->nconsts; i++)
        packed[k->ninputs + i] = tl_tensor_contiguous(consts[i]);
    for (int p = 0; p < ck->nparams; p++) {
        const CgParam *cp = &ck->params[p];
        TlTensor *t = NULL;
        int ix;
        if (cp->f) {
            if ((ix = tl_func_index(k->inputs, k->ninputs, cp->f)) >= 0)
                t = packed[ix];
            else if ((ix = tl_func_index(k->outputs, k->noutputs, cp->f)) >= 0)
                t = out[ix];
            else
                t = packed[k->ninputs + tl_func_index(k->consts, k->nconsts,
                                                    cp->f)];
        }
        switch (cp->kind) {
        case CGP_BUF: args[p] = t->data; break;
        case CGP_EXTENT:
            ivals[p] = t->shape[cp->axis];
            args[p] = &ivals[p];
            break;
        case CGP_STRIDE:
            ivals[p] = t->strides[cp->axis];
            args[p] = &ivals[p];
            break;
        case CGP_SIZE: {
            int32_t *q = (int32_t *)(void *)&ivals[p];
            ix = 0;
            while (k->sizes[ix] != cp->var)
                ix++;
            *q = (int32_t)b.sizes[ix];
            args[p] = q;
            break;
        }
        case CGP_SCALAR:
        case CGP_GIVEN:
            ix = 0;
            while (k->scalars[ix] != cp->var)
                ix++;
            if (cp->kind == CGP_GIVEN) {
                flags[p] = sc && sc[ix].given;
                args[p] = &flags[p];
            } else if (dt_is_float(cp->var->dtype)) {
                char tmp[8];
                fvals[p] = 0;
                if (sc && sc[ix].given) {
                    if (sc[ix].is_float)
                        tl_dt_store_f64(cp->var->dtype, tmp, sc[ix].f);
                    else
                        tl_dt_store_i64(cp->var->dtype, tmp, sc[ix].i);
                    fvals[p] = tl_dt_load_f64(cp->var->dtype, tmp);
                }
                args[p] = &fvals[p];
            } else {
                ivals[p] = b.scal[ix];
                args[p] = &ivals[p];
            }
            break;
        case CGP_ERR: args[p] = &err; break;
        case CGP_HASH:
            ivals[p] = (int64_t)tl_tensor_hash(t);
            args[p] = &ivals[p];
            break;
        case CGP_EXTERN:
            cfns[p] = itp_extern_cfunc(rt, cp->ext);
            args[p] = &cfns[p];
            break;
        case CGP_STRS:
            lits = tl_xcalloc((size_t)ck->nlits + 1, sizeof *lits);
            for (int i = 0; i < ck->nlits; i++)
                lits[i] = tl_str_intern(ck->lits[i], strlen(ck->lits[i]));
            args[p] = lits;
            break;
        case CGP_STRMEM:
            arena_init(&strmem);
            stralloc.alloc = str_alloc;
            stralloc.ctx = &strmem;
            args[p] = &stralloc;
            break;
        }
    }
    for (int r = 0; r < reps && !err; r++) {
        double t0 = now_s(), t1;
        fn(args);
        t1 = now_s() - t0;
        t_kernel += t1;
        if (secs)
            secs[r] = t1;
    }
    /* The strings the kernel made are interned (the interpreter's
     * strings live as long as the process), then their memory goes. */
    for (int i = 0; i < k->noutputs && !err; i++)
        if (out[i]->dtype == DT_STR)
            intern_all(out[i]);
    if (stralloc.alloc)
        arena_free(&strmem);
    free(lits);
    for (int i = 0; i < k->ninputs + k->nconsts; i++)
        tl_tensor_unref(packed[i]);
    free(packed);
    free(args);
    free(ivals);
    free(fvals);
    free(flags);
    free(cfns);
    last_stats.overhead_s = now_s() - t_start - t_kernel;
    if (err & CG_ERR_NOMEM) {   /* a stage's buffer could not be had */
        diag_error(s, call_loc, DIAG_RT_TOO_LARGE, "a stage", k->name,
                   "out of memory");
        goto done;
    }
    if (err & CG_ERR_BOUND)
        tl_internal_error(__FILE__, __LINE__, "a 'bound' of '%s' failed in "
                          "the compiled kernel but not in its runner",
                          k->name);
    if (err)
        goto refuse;
    rc = 0;
    goto done;

refuse:
    for (int i = 0; i < k->noutputs; i++) {
        tl_tensor_unref(out[i]);
        out[i] = NULL;
    }
    free(b.sizes);
    free(b.scal);
    free(all);
    if (interp)
        return itp_call_kernel(rt, k, in, sc0, out, call_loc);
    return itp_call_refused("cpu", rt, k, in, sc0, out, call_loc);

done:
    if (rc) {
        for (int i = 0; i < k->noutputs; i++) {
            tl_tensor_unref(out[i]);
            out[i] = NULL;
        }
        if (call_loc.file >= 0)
            diag_note(s, call_loc, "in this call of '%s'", k->name);
    }
    free(b.sizes);
    free(b.scal);
    free(all);
    return rc;
}

static int run_cpu(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                   const TlScalarArg *sc, TlTensor **out, TlLoc call_loc)
{
    return run_cpu_n(rt, k, in, sc, out, call_loc, 1, NULL);
}

int cgc_run_timed(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                  const TlScalarArg *sc, TlTensor **out, int reps,
                  double *secs)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};

    return run_cpu_n(rt, k, in, sc, out, nowhere, reps < 1 ? 1 : reps,
                     secs);
}

void cgc_register_targets(void)
{
    itp_register_target("cpu", run_cpu);
}
