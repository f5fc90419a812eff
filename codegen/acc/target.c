/*
 * target.c - the `accel` target: a runner with itp_call_kernel's
 * contract that lowers the kernel to loop IR without the cpu schedule
 * (codegen/lower.c; of accel schedules, `distribute` and `layout` are
 * followed by the pipeline, elementwise and reduction routes,
 * cg_pipe_lay.c, cg_elem_lay.c and cg_red_lay.c, and by the matmul
 * route, cg_mm_dist.c), compiles it to
 * TAM assembly (cg_*.c), assembles it and runs it on the simulator
 * with the call's inputs.  The machine is the one of --machine
 * (acc_cg_set_machine), else TDSL_MACHINE (a built-in name or a
 * machine file), else `test`.  acc_cg_assembly gives the same program
 * as text, for `tdsl compile --target accel` and the REPL's :asm.
 *
 * A kernel's asserts are checked on the host before the run, and the
 * routes compile the rest (target_assert.c).
 *
 * Like the cpu runner, when the arguments are wrong (a dtype, a rank, a
 * shape) it has the interpreter run the call, only to report the error
 * the interpreter reports.  With TDSL_DEBUG containing "accel" the
 * program is printed to stderr ("accel-ir": the plain loop IR too).
 */
#include "codegen/acc/target_int.h"
#include "interp/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The simulator's statistics of the last run, for `time`. */
static TlBuf last_stats;
static int have_last;

/* While a kernel runs as segments (cg_seg.c): their statistics summed,
 * a line for each, and the words the runner lays out again between
 * them (an intermediate gathered from its producer's DRAM image and
 * laid out in its consumer's; inter[i]: input i of the segment running
 * is an intermediate, out_inter: so is its output). */
static struct {
    int on;
    AccStats sum;
    TlBuf lines;
    int64_t relaid;
    int inter[64], out_inter;
} seg;

static int report_last(TlBuf *out)
{
    const char *p = last_stats.s;

    if (!out) {
        have_last = 0;
        return 0;
    }
    if (!have_last)
        return 0;
    buf_puts(out, "simulated\n");
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        buf_puts(out, "    ");
        buf_putn(out, p, n);
        p += n;
    }
    return 1;
}

typedef struct Sizes {
    TlKernelInfo *k;
    int64_t *v;
} Sizes;

static int lookup(void *ctx, const TlVar *var, int64_t *out)
{
    Sizes *z = ctx;

    for (int i = 0; i < z->k->nsizes; i++)
        if (z->k->sizes[i] == var) {
            *out = z->v[i];
            return 0;
        }
    return -1;
}

/* What this first route cannot take, before lowering: NULL if none;
 * *at is moved to the construct when it has a place.  Asserts of the
 * parameters are checked on the host (target_assert.c); those of
 * computed stages only by a call (run_checked), when `call`. */
static const char *unsupported_kernel(TlSession *s, const TlKernelInfo *k,
                                      TlLoc *at, int call)
{
    const char *why = call ? NULL : acc_tg_assert_refusal(s, k, at);

    if (why)
        return why;
    if (k->ncalls)
        return "calls of other kernels";
    if (k->nconsts)
        return "kernels that read top-level tensors";
    if (k->noutputs != 1)
        return "kernels with several outputs";
    return NULL;
}

/* The machine of --machine (acc_cg_set_machine), else TDSL_MACHINE. */
static char *machine_spec;

void acc_cg_set_machine(const char *spec)
{
    free(machine_spec);
    machine_spec = spec ? tl_xstrdup(spec) : NULL;
}

static const AccMachine *machine(TlSession *s, TlLoc loc)
{
    const char *spec = machine_spec ? machine_spec : getenv("TDSL_MACHINE");
    const AccMachine *m;
    TlBuf err;

    if (!spec || !*spec)
        spec = "test";
    buf_init(&err);
    m = acc_machine_get(s, spec, &err);
    if (!m)
        diag_error(s, loc, DIAG_ACC_MACHINE, err.s);
    buf_free(&err);
    return m;
}

/* Input i gathered to the output's shape (a broadcast operand). */
static TlTensor *expand(const AccCgProgram *p, const AccCgIn *ci,
                        const TlTensor *x, int rank, const int64_t *shape)
{
    TlTensor *t = tl_tensor_new(DT_F32, rank, shape, NULL, 0);
    const char *src = x->data;
    char *dst = t->data;
    int64_t v[TL_MAX_RANK];

    memset(v, 0, sizeof v);
    for (int64_t e = 0; e < p->nelems; e++) {
        int64_t at = ci->k;
        for (int l = 0; l < p->nloops; l++)
            at += ci->coef[l] * v[l];
        memcpy(dst + 4 * e, src + 4 * at, 4);
        for (int l = p->nloops - 1; l >= 0; l--) {
            if (++v[l] < p->ext[l])
                break;
            v[l] = 0;
        }
    }
    return t;
}

/* The DRAM image a route laid out (AccCgIn.map). */
static TlTensor *image(const AccCgIn *ci, TlTensor *const *packed)
{
    /* f32, or the f16/bf16 inputs of the matrix unit, bits as they
     * are. */
    TlDType dt = ci->input >= 0 ? packed[ci->input]->dtype : DT_F32;
    TlTensor *t = tl_tensor_new(dt, 1, &ci->nmap, NULL, 0);
    const char *src = ci->input >= 0 ? packed[ci->input]->data : NULL;
    char *dst = t->data;
    size_t es = dt_size(dt);

    for (int64_t e = 0; e < ci->nmap; e++) {
        if (ci->map[e] < 0 || !src)
            tl_dt_store_f64(dt, dst + es * (size_t)e,
                            ci->map[e] == ACC_CG_OUTSIDE ? ci->bpad
                            : ci->map[e] < 0             ? ci->pad
                                                         : 0.0);
        else
            memcpy(dst + es * (size_t)e, src + es * (size_t)ci->map[e], es);
    }
    return t;
}

/* The output read back from its image (AccCgProgram.omap). */
static TlTensor *unimage(const AccCgProgram *p, TlTensor *img, int rank,
                         const int64_t *shape)
{
    TlTensor *t = tl_tensor_new(DT_F32, rank, shape, NULL, 0);
    const float *src = img->data;
    float *dst = t->data;

    for (int64_t e = 0; e < p->nelems; e++)
        dst[e] = src[p->omap[e]];
    tl_tensor_unref(img);
    return t;
}

static void free_program(AccCgProgram *p)
{
    buf_free(&p->text);
    buf_free(&p->bare);
    for (int i = 0; i < p->nins; i++)
        free(p->ins[i].map);
    free(p->omap);
    memset(p, 0, sizeof *p);
}

/* target_int.h */
AccSim *acc_tg_start(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                     const AccCgProgram *p, const TlBuf *text,
                     TlTensor *const *packed, int rank,
                     const int64_t *shape)
{
    char *name = arena_printf(&s->arena, "<accel %s>", k->name);
    int file = tl_add_source(s, name, text->s, text->len);
    AccProgram *prog;
    AccSim *sim;
    TlBuf err;

    prog = acc_assemble(s, file, m, 1);
    if (!prog)
        tl_internal_error(__FILE__, __LINE__, "the accel program of '%s' "
                          "does not assemble", k->name);
    buf_init(&err);
    sim = acc_sim_new(s, prog, 1);
    for (int i = 0; i < p->nins; i++) {
        const AccCgIn *ci = &p->ins[i];
        TlTensor *t = ci->map ? image(ci, packed)
                      : ci->direct
                          ? tl_tensor_ref(packed[ci->input])
                          : expand(p, ci, packed[ci->input], rank, shape);
        int bad = acc_sim_set_input(sim, ci->name, t, &err);
        tl_tensor_unref(t);
        if (bad)
            tl_internal_error(__FILE__, __LINE__, "accel input: %s", err.s);
    }
    buf_free(&err);
    return sim;
}

/* Assembles and runs p; the output in *out. */
static int simulate(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                    const AccCgProgram *p, const char *route,
                    TlTensor *const *packed,
                    int rank, const int64_t *shape, const int64_t *sizes,
                    TlTensor **out, TlLoc loc)
{
    const char *dbg = getenv("TDSL_DEBUG");
    AccSim *sim;
    TlBuf err;
    int rc = -1;

    if (dbg && strstr(dbg, "accel"))
        fputs(p->text.s, stderr);
    sim = acc_tg_start(s, k, m, p, &p->text, packed, rank, shape);
    buf_init(&err);
    if (acc_sim_run(sim) == 0) {
        *out = acc_sim_get_output(sim, k->outputs[0]->name, &err);
        if (!*out)
            tl_internal_error(__FILE__, __LINE__, "accel output: %s", err.s);
        if (p->omap)
            *out = unimage(p, *out, rank, shape);
        acc_tg_count_run(acc_sim_stats(sim));
        buf_free(&last_stats);
        buf_init(&last_stats);
        if (seg.on) {
            const AccStats *st = acc_sim_stats(sim);
            int64_t relaid = 0;
            for (int i = 0; i < p->nins; i++) {
                const AccCgIn *ci = &p->ins[i];
                if (ci->input < 0 || ci->input >= 64 || !seg.inter[ci->input])
                    continue;
                relaid += ci->map ? ci->nmap : ci->direct ? 0 : p->nelems;
            }
            if (seg.out_inter && p->omap)
                relaid += p->nelems;
            acc_stats_add(&seg.sum, st);
            seg.relaid += relaid;
            buf_printf(&seg.lines, "segment    %s: the %s route, %lld "
                       "cycles, %lld lw relaid before/after it\n",
                       k->outputs[0]->name, route, (long long)st->cycles,
                       (long long)(relaid + 1) / 2);
        } else {
            acc_sim_print_stats(&last_stats, sim);
            acc_tg_plan_line(&last_stats, s, m, k, sizes, p, route, packed,
                         rank, shape, acc_sim_stats(sim), loc);
        }
        have_last = last_stats.len > 0;
        rc = 0;
    } else {
        diag_note(s, loc, "while the simulator ran '%s'", k->name);
    }
    acc_sim_free(sim);
    buf_free(&err);
    return rc;
}

/* The sizes of a call (z->v, indexed like k->sizes) and its output's
 * shape from the inputs' shapes; -1 when they do not fit the kernel. */
static int call_shapes(TlKernelInfo *k, TlTensor *const *in, Sizes *z,
                       int64_t *oshape)
{
    TlFunc *of = k->outputs[0];
    int bad = 0;

    for (int i = 0; i < k->nsizes; i++) {
        TlVar *v = k->sizes[i];
        int x = tl_func_index(k->inputs, k->ninputs, v->bound_by);
        TL_ASSERT(x >= 0 && v->bound_axis < in[x]->rank);
        z->v[i] = in[x]->shape[v->bound_axis];
    }
    for (int i = 0; i < k->ninputs && !bad; i++)
        for (int j = 0; j < in[i]->rank && !bad; j++) {
            int64_t want;
            const TlSymExpr *e = k->inputs[i]->axes[j].extent;
            bad = e && (tl_sym_eval(e, lookup, z, &want) ||
                        want != in[i]->shape[j]);
        }
    for (int j = 0; j < of->rank && !bad; j++)
        bad = tl_sym_eval(of->axes[j].extent, lookup, z, &oshape[j]) ||
              oshape[j] < 0;
    return bad ? -1 : 0;
}

/* Lowers k and compiles it for the packed inputs into *p (buf_free
 * p->text).  0, or -1 after reporting. */
static int build_in(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                    TlTensor *const *packed, Sizes *z, const int64_t *oshape,
                    const TlScalarArg *sc, AccCgProgram *p,
                    const char **route, TlLoc call_loc,
                    const int64_t *order, int64_t norder)
{
    double *pf;
    TlFunc *of = k->outputs[0];
    CgKernel *ck;
    int64_t *pval;
    int *pknown, rc;
    AccCgCall c;

    memset(p, 0, sizeof *p);
    buf_init(&p->text);
    if (!(ck = cg_lower_kernel_plain(s, k))) {
        diag_note(s, call_loc, "in this call of '%s'", k->name);
        return -1;
    }
    {
        const char *dbg = getenv("TDSL_DEBUG");
        if (dbg && strstr(dbg, "accel-ir")) {
            TlBuf b;
            buf_init(&b);
            lir_print_func(&b, ck->fn);
            fputs(b.s, stderr);
            buf_free(&b);
        }
    }
    pval = tl_xcalloc((size_t)ck->nparams + 1, sizeof *pval);
    pknown = tl_xcalloc((size_t)ck->nparams + 1, sizeof *pknown);
    pf = tl_xcalloc((size_t)ck->nparams + 1, sizeof *pf);
    for (int i = 0; i < ck->nparams; i++) {
        const CgParam *cp = &ck->params[i];
        if (cp->kind == CGP_SCALAR || cp->kind == CGP_GIVEN) {
            int ix = 0;
            while (k->scalars[ix] != cp->var)
                ix++;
            if (cp->kind == CGP_GIVEN) {
                pf[i] = sc && sc[ix].given;
                pknown[i] = 1;
            } else if (sc && sc[ix].given) {
                char tmp[8];
                if (sc[ix].is_float)
                    tl_dt_store_f64(cp->var->dtype, tmp, sc[ix].f);
                else
                    tl_dt_store_i64(cp->var->dtype, tmp, sc[ix].i);
                pf[i] = tl_dt_load_f64(cp->var->dtype, tmp);
                pknown[i] = 1;
            }
            pval[i] = (int64_t)pf[i];
            continue;
        }
        int x = cp->f ? tl_func_index(k->inputs, k->ninputs, cp->f) : -1;
        int rank = x >= 0 ? packed[x]->rank : of->rank;
        const int64_t *shape = x >= 0 ? packed[x]->shape : oshape;
        if (cp->f && x < 0 && cp->f != of)
            continue;
        if (cp->kind == CGP_EXTENT) {
            pval[i] = shape[cp->axis];
        } else if (cp->kind == CGP_STRIDE) {
            pval[i] = 1;
            for (int j = cp->axis + 1; j < rank; j++)
                pval[i] *= shape[j];
        } else if (cp->kind == CGP_SIZE) {
            lookup(z, cp->var, &pval[i]);
        } else {
            continue;
        }
        pknown[i] = 1;
        pf[i] = (double)pval[i];
    }
    c.ck = ck;
    c.pf = pf;
    c.pval = pval;
    c.pknown = pknown;
    c.k = k;
    c.in = packed;
    c.out_rank = of->rank;
    c.out_shape = oshape;
    c.sizes = z->v;
    c.order = order;
    c.norder = norder;
    /* Its errors are at the call itself: no note. */
    *route = "pipeline";
    rc = acc_cg_pipeline(s, m, &c, p, call_loc);
    /* The matmul route reads the schedule's distributes and layouts
     * itself (cg_mm_dist.c); the reduction route follows
     * both (cg_red_lay.c). */
    if (rc == 1) {
        free_program(p);
        *route = "matmul";
        rc = acc_cg_matmul(s, m, &c, p, call_loc);
    }
    if (rc == 1) {
        free_program(p);
        *route = "reduction";
        rc = acc_cg_reduce(s, m, &c, p, call_loc);
    }
    if (rc == 1) {
        free_program(p);
        *route = "elementwise";
        rc = acc_cg_elementwise(s, m, &c, p, call_loc);
    }
    free(pval);
    free(pknown);
    free(pf);
    return rc;
}

static int build(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                 TlTensor *const *packed, Sizes *z, const int64_t *oshape,
                 const TlScalarArg *sc, AccCgProgram *p, const char **route,
                 TlLoc call_loc)
{
    return build_in(s, k, m, packed, z, oshape, sc, p, route, call_loc,
                    NULL, 0);
}

static int run_accel(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                     const TlScalarArg *sc, TlTensor **out, TlLoc call_loc);

/* target_int.h */
int acc_tg_build_call(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                      TlTensor *const *in, AccCgProgram *p,
                      const char **route, int64_t *oshape, TlLoc loc,
                      const int64_t *order, int64_t norder)
{
    Sizes z;
    int rc = -1;

    memset(p, 0, sizeof *p);
    z.k = k;
    z.v = tl_xcalloc((size_t)k->nsizes + 1, sizeof *z.v);
    if (call_shapes(k, in, &z, oshape) == 0)
        rc = build_in(s, k, m, in, &z, oshape, NULL, p, route, loc, order,
                      norder);
    free(z.v);
    return rc;
}

void acc_tg_free_program(AccCgProgram *p)
{
    free_program(p);
}

/* build, its diagnostics dropped: 0 when k compiles whole. */
static int quiet_build(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                       TlTensor *const *packed, Sizes *z,
                       const int64_t *oshape, const TlScalarArg *sc,
                       AccCgProgram *p, const char **route, TlLoc loc)
{
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed, rc;

    if (!null)
        return -1;
    s->diag_out = null;
    rc = build(s, k, m, packed, z, oshape, sc, p, route, loc);
    s->diag_out = saved;
    s->nerrors = ne;
    s->nwarnings = nw;
    s->suppressed = sup;
    fclose(null);
    return rc;
}

/* A kernel segment by segment (cg_seg.c's plan sp): each segment's
 * inputs are k's inputs or earlier segments' outputs; the last
 * segment's output is k's.  The statistics of `time`: the segments'
 * summed, and a line for each. */
static int run_segments(TlRuntime *rt, TlKernelInfo *k, const AccMachine *m,
                        const AccSegPlan *sp, TlTensor *const *packed,
                        TlTensor **out, TlLoc loc)
{
    TlTensor *made[ACC_SEG_MAX];
    int rc = 0;

    memset(made, 0, sizeof made);
    memset(&seg.sum, 0, sizeof seg.sum);
    buf_init(&seg.lines);
    seg.relaid = 0;
    seg.on = 1;
    for (int i = 0; i < sp->n && rc == 0; i++) {
        TlKernelInfo *sk = sp->seg[i].k;
        TlTensor **sin = tl_xcalloc((size_t)sk->ninputs + 1, sizeof *sin);
        memset(seg.inter, 0, sizeof seg.inter);
        for (int j = 0; j < sk->ninputs; j++) {
            const char *nm = sk->inputs[j]->name;
            for (int x = 0; x < k->ninputs && !sin[j]; x++)
                if (!strcmp(k->inputs[x]->name, nm))
                    sin[j] = packed[x];
            for (int q = 0; q < i && !sin[j]; q++)
                if (!strcmp(sp->seg[q].out, nm)) {
                    sin[j] = made[q];
                    if (j < 64)
                        seg.inter[j] = 1;
                }
            TL_ASSERT(sin[j]);
        }
        seg.out_inter = i + 1 < sp->n;
        rc = run_accel(rt, sk, sin, NULL, &made[i], loc);
        free(sin);
    }
    seg.on = 0;
    if (rc == 0) {
        out[0] = made[sp->n - 1];
        made[sp->n - 1] = NULL;
        buf_free(&last_stats);
        buf_init(&last_stats);
        buf_printf(&last_stats, "segments   %d, run one after another, "
                   "intermediates through DRAM\n", sp->n);
        acc_stats_print(&last_stats, m, &seg.sum);
        buf_puts(&last_stats, seg.lines.s);
        buf_printf(&last_stats, "conversion %lld lw relaid by the runner "
                   "between segments (not simulated)\n",
                   (long long)(seg.relaid + 1) / 2);
        have_last = 1;
    }
    for (int i = 0; i < sp->n; i++)
        if (made[i])
            tl_tensor_unref(made[i]);
    buf_free(&seg.lines);
    return rc;
}

/* Runs the kept program c of a segmented kernel; `time`'s lines. */
static int run_seg_program(TlSession *s, TlKernelInfo *k,
                           const AccMachine *m, AccSegCached *c,
                           TlTensor *const *packed, TlTensor **out,
                           TlLoc loc)
{
    TlBuf st;
    int rc;

    buf_init(&st);
    rc = acc_seg_run(s, k, m, c, packed, out, &st, loc);
    if (rc == 0) {
        buf_free(&last_stats);
        last_stats = st;
        have_last = 1;
    } else {
        buf_free(&st);
    }
    return rc;
}

/* k compiled whole, else split into segments (cg_seg.c): a kernel of
 * several stages with no schedule that no one route takes.  When
 * neither compiles, the whole kernel's error, and why the segments do
 * not compile. */
static int build_or_split(TlRuntime *rt, TlKernelInfo *k, const AccMachine *m,
                          TlTensor *const *packed, Sizes *z,
                          const int64_t *oshape, const TlScalarArg *sc,
                          TlTensor **out, TlLoc loc)
{
    TlSession *s = rt->s;
    AccCgProgram p;
    const char *route = NULL;
    AccSegPlan sp;
    TlBuf why;
    int rc;

    if (seg.on || k->nfuncs < 2 || k->nschedules || k->nscalars) {
        if (build(s, k, m, packed, z, oshape, sc, &p, &route, loc) != 0) {
            free_program(&p);
            return -1;
        }
    } else if (quiet_build(s, k, m, packed, z, oshape, sc, &p, &route,
                           loc) != 0) {
        free_program(&p);
        buf_init(&why);
        AccSegCached *c = acc_seg_cached(k, m, packed);
        const char *dbg = getenv("TDSL_DEBUG");
        if (c)
            return run_seg_program(s, k, m, c, packed, out, loc);
        if (dbg && strstr(dbg, "accel-seg"))
            fprintf(stderr, "accel: planning the segments of '%s'\n",
                    k->name);
        if (acc_seg_plan(s, k, m, z->v, packed, &sp, &why) == 0) {
            AccSegProg sg;
            buf_free(&why);
            buf_init(&why);
            if (acc_seg_program(s, k, m, &sp, packed, &sg, &why) == 0) {
                buf_free(&why);
                c = acc_seg_cache_put(k, m, packed, &sp, &sg);
                return run_seg_program(s, k, m, c, packed, out, loc);
            }
            /* TODO(issue 6): a program of segments for every kernel
             * (f16/bf16 images, machines with no room for the
             * conversions): these still run one by one. */
            buf_free(&why);
            return run_segments(rt, k, m, &sp, packed, out, loc);
        }
        rc = build(s, k, m, packed, z, oshape, sc, &p, &route, loc);
        free_program(&p);
        if (rc == 0)
            tl_internal_error(__FILE__, __LINE__, "'%s' compiles only once",
                              k->name);
        diag_note(s, loc, "split into segments, it does not compile "
                  "either: no route takes %s", why.s);
        buf_free(&why);
        return -1;
    }
    rc = simulate(s, k, m, &p, route, packed, k->outputs[0]->rank, oshape,
                  z->v, &out[0], loc);
    free_program(&p);
    return rc;
}

static int run_accel(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
                     const TlScalarArg *sc, TlTensor **out, TlLoc call_loc)
{
    TlSession *s = rt->s;
    const char *why;
    const AccMachine *m;
    TlLoc at;
    TlTensor **packed;
    TlScalarArg *all = NULL;
    int64_t oshape[TL_MAX_RANK];
    int rc = -1;
    Sizes z;

    TL_ASSERT(k->ok);
    for (int i = 0; i < k->noutputs; i++)
        out[i] = NULL;
    for (int i = 0; i < k->ninputs; i++)
        if (in[i]->dtype != k->inputs[i]->dtype ||
            in[i]->rank != k->inputs[i]->rank)
            return itp_call_refused("accel", rt, k, in, sc, out, call_loc);
    at = call_loc;
    if ((why = unsupported_kernel(s, k, &at, 1))) {
        diag_error(s, at, DIAG_ACC_CG_UNSUPPORTED, why);
        if (at.file != call_loc.file || at.line != call_loc.line ||
            at.col != call_loc.col)
            diag_note(s, call_loc, "in this call of '%s'", k->name);
        return -1;
    }
    z.k = k;
    z.v = tl_xcalloc((size_t)k->nsizes + 1, sizeof *z.v);
    if (call_shapes(k, in, &z, oshape)) {
        free(z.v);
        return itp_call_refused("accel", rt, k, in, sc, out, call_loc);
    }
    if (!(m = machine(s, call_loc))) {
        free(z.v);
        return -1;
    }
    packed = tl_xcalloc((size_t)k->ninputs + 1, sizeof *packed);
    for (int i = 0; i < k->ninputs; i++)
        packed[i] = tl_tensor_contiguous(in[i]);
    if (k->nscalars) {
        all = tl_xcalloc((size_t)k->nscalars, sizeof *all);
        if (itp_call_scalars(rt, k, in, sc, all, call_loc)) {
            free(all);
            free(z.v);
            return -1;
        }
    }
    /* The asserts first, as the interpreter and the cpu kernel check
     * them before the stages; the routes compile the rest.  Those of
     * computed stages after the stages they read (run_checked). */
    if (acc_tg_has_asserts(k) && acc_tg_assert_refusal(s, k, &at)) {
        rc = acc_tg_run_checked(rt, k, m, packed, in, all ? all : sc, z.v, out,
                         call_loc);
    } else if (acc_tg_has_asserts(k)) {
        if (itp_check_asserts(rt, k, in, all ? all : sc, call_loc) == 0)
            rc = build_or_split(rt, acc_tg_without_asserts(s, k), m, packed,
                                &z, oshape, all, out, call_loc);
    } else {
        rc = build_or_split(rt, k, m, packed, &z, oshape, all, out,
                            call_loc);
    }
    free(all);
    for (int i = 0; i < k->ninputs; i++)
        tl_tensor_unref(packed[i]);
    free(packed);
    free(z.v);
    return rc;
}

int acc_tg_run(TlRuntime *rt, TlKernelInfo *k, TlTensor *const *in,
               const TlScalarArg *sc, TlTensor **out, TlLoc call_loc)
{
    return run_accel(rt, k, in, sc, out, call_loc);
}

void acc_tg_set_stats(TlBuf *b)
{
    buf_free(&last_stats);
    last_stats = *b;
    buf_init(b);
    have_last = 1;
}

int acc_cg_assembly(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                    TlTensor *const *in, TlBuf *out, TlLoc loc)
{
    const char *why;
    TlLoc at = loc;
    int64_t oshape[TL_MAX_RANK];
    int rc = -1;
    Sizes z;
    AccCgProgram p;
    const char *route;
    int whole = -1;
    const char *asrt;

    TL_ASSERT(k->ok);
    for (int i = 0; i < k->ninputs; i++)
        if (in[i]->dtype != k->inputs[i]->dtype ||
            in[i]->rank != k->inputs[i]->rank)
            return -2;
    if ((why = unsupported_kernel(s, k, &at, 0))) {
        diag_error(s, at, DIAG_ACC_CG_UNSUPPORTED, why);
        return -1;
    }
    /* The asserts travel as `.assert` lines (target_assert.c). */
    if (!(asrt = acc_tg_assert_directives(s, k, &at)))
        return -1;
    k = acc_tg_without_asserts(s, k);
    z.k = k;
    z.v = tl_xcalloc((size_t)k->nsizes + 1, sizeof *z.v);
    if (call_shapes(k, in, &z, oshape)) {
        free(z.v);
        return -2;
    }
    if (!m && !(m = machine(s, loc))) {
        free(z.v);
        return -1;
    }
    if (k->nfuncs >= 2 && !k->nschedules &&
        (whole = quiet_build(s, k, m, in, &z, oshape, NULL, &p, &route,
                             loc)) != 0) {
        AccSegPlan sp;
        TlBuf why;
        free_program(&p);
        buf_init(&why);
        if (acc_seg_plan(s, k, m, z.v, in, &sp, &why) == 0) {
            AccSegProg sg;
            buf_free(&why);
            buf_init(&why);
            rc = acc_seg_program(s, k, m, &sp, in, &sg, &why);
            if (rc == 0)
                acc_tg_put_with_asserts(out, &sg.text, asrt);
            else
                diag_error(s, at, DIAG_ACC_CG_UNSUPPORTED,
                           arena_printf(&s->arena, "one program of '%s', "
                                        "which runs as %d segments, with "
                                        "%s,", k->name, sp.n, why.s));
            acc_seg_program_free(&sg);
            buf_free(&why);
            free(z.v);
            return rc;
        }
        buf_free(&why);
    }
    if (whole == 0 || build(s, k, m, in, &z, oshape, NULL, &p, &route,
                            loc) == 0) {
        rc = 0;
        for (int i = 0; i < p.nins && rc == 0; i++) {
            if (p.ins[i].map || p.omap) {
                /* TODO(issue 6): layouts in DRAM as .input/.output
                 * directives, so the program says what it expects. */
                diag_error(s, at, DIAG_ACC_CG_UNSUPPORTED,
                           arena_printf(&s->arena, "a stand-alone program "
                                        "of '%s', whose tensors the runner "
                                        "lays out in DRAM (a call does it "
                                        "before the run),", k->name));
                rc = -1;
                break;
            }
            if (p.ins[i].direct)
                continue;
            /* TODO(issue 6): broadcast in the tree (cg_int.h), so the
             * program takes the input as it is. */
            diag_error(s, at, DIAG_ACC_CG_UNSUPPORTED,
                       arena_printf(&s->arena, "a stand-alone program of "
                                    "'%s', which reads '%s' broadcast (a "
                                    "call expands it before the run),",
                                    k->name,
                                    k->inputs[p.ins[i].input]->name));
            rc = -1;
        }
        if (rc == 0)
            acc_tg_put_with_asserts(out, &p.text, asrt);
    }
    free_program(&p);
    free(z.v);
    return rc;
}

void acc_cg_register_target(void)
{
    itp_register_target("accel", run_accel);
    itp_register_target_report("accel", report_last);
}

/* acc_cg_time_kernel, the timing, route and route's model also given
 * back (tm, route and est may be NULL). */
static int time_kernel(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                       const int64_t *sizes, AccPlan *plan, AccTiming *out,
                       const char **route_out, double *est);

int acc_cg_time_kernel(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                       const int64_t *sizes, AccPlan *plan)
{
    return time_kernel(s, k, m, sizes, plan, NULL, NULL, NULL);
}

int acc_cg_time_program(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                        const int64_t *sizes, AccTiming *t,
                        const char **route, double *est)
{
    return time_kernel(s, k, m, sizes, NULL, t, route, est);
}

static int time_kernel(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                       const int64_t *sizes, AccPlan *plan, AccTiming *out,
                       const char **route_out, double *est)
{
    TlLoc at = k->outputs && k->noutputs ? k->outputs[0]->loc
                                         : (TlLoc){-1, 0, 0, 0, 0};
    FILE *saved = s->diag_out, *null = fopen("/dev/null", "w");
    int ne = s->nerrors, nw = s->nwarnings, sup = s->suppressed;
    TlTensor **in = tl_xcalloc((size_t)k->ninputs + 1, sizeof *in);
    int64_t oshape[TL_MAX_RANK];
    const char *route = NULL, *why;
    int rc = -1, bad;
    AccCgProgram p;
    Sizes z;

    if (!null) {
        free(in);
        return -1;
    }
    z.k = k;
    z.v = tl_xcalloc((size_t)k->nsizes + 1, sizeof *z.v);
    for (int i = 0; i < k->nsizes; i++)
        z.v[i] = sizes ? sizes[i] : 0;
    /* Inputs of the sizes' shapes, zero: code generation reads only
     * their dtypes and shapes. */
    bad = (why = unsupported_kernel(s, k, &at, 0)) != NULL;
    k = acc_tg_without_asserts(s, k);
    for (int i = 0; i < k->ninputs && !bad; i++) {
        int64_t sh[TL_MAX_RANK];
        for (int j = 0; j < k->inputs[i]->rank && !bad; j++)
            bad = tl_sym_eval(k->inputs[i]->axes[j].extent, lookup, &z,
                              &sh[j]) || sh[j] < 1;
        if (!bad)
            in[i] = tl_tensor_new(k->inputs[i]->dtype, k->inputs[i]->rank,
                                  sh, NULL, 0);
    }
    for (int j = 0; !bad && j < k->outputs[0]->rank; j++)
        bad = tl_sym_eval(k->outputs[0]->axes[j].extent, lookup, &z,
                          &oshape[j]) || oshape[j] < 0;
    s->diag_out = null;
    if (!bad && build(s, k, m, in, &z, oshape, NULL, &p, &route, at) == 0) {
        AccTiming tm;
        rc = acc_tg_attach(s, k, m, plan, &p, route, &tm);
        if (rc == 0 && out)
            *out = tm;
        if (rc == 0 && route_out)
            *route_out = route;
        if (rc == 0 && est)
            *est = p.est_cycles;
    }
    else if (!bad && plan && k->nfuncs >= 2 && !k->nschedules)
        /* No one route: the program of segments a call would run. */
        acc_seg_attach(s, k, m, z.v, in, plan);
    if (!bad)
        free_program(&p);
    s->diag_out = saved;
    s->nerrors = ne;
    s->nwarnings = nw;
    s->suppressed = sup;
    fclose(null);
    for (int i = 0; i < k->ninputs; i++)
        if (in[i])
            tl_tensor_unref(in[i]);
    free(in);
    free(z.v);
    return rc;
}
