/*
 * cgc.h - the C backend's internal interface: lowering a checked
 * kernel to a loop-IR function (codegen/lower.c) with a description of
 * each of its parameters, C emission (emit.c), compiling and loading
 * (jit.c), and the `cpu` runner (target.c).  Only codegen/ uses it.
 */
#ifndef TL_CGC_H
#define TL_CGC_H

#include "codegen/codegen.h"

/* What the runner passes for each parameter of a lowered kernel. */
typedef enum {
    CGP_BUF,        /* data pointer of tensor `f` */
    CGP_EXTENT,     /* i64: extent of `f` on `axis` */
    CGP_STRIDE,     /* i64: stride (in elements) of `f` on `axis` */
    CGP_SIZE,       /* i32: the size variable `var` */
    CGP_SCALAR,     /* i64 or f64: scalar `var`, already converted */
    CGP_GIVEN,      /* bool: scalar `var` was passed */
    CGP_ERR,        /* i32 *: CG_ERR_RANGE when a checked read is out
                     * of range (the runner then has the interpreter
                     * report it), CG_ERR_NOMEM when a stage's buffer
                     * could not be allocated; or-ed in atomically */
    CGP_EXTERN,     /* the C function of the scalar extern `ext` */
    CGP_HASH,       /* i64: tl_tensor_hash of the input `f` */
    CGP_STRS,       /* const char *[]: the kernel's string literals,
                     * CgKernel.lits (SPEC 8.6) */
    CGP_STRMEM      /* tdsl_str_alloc *: where the kernel puts the
                     * strings it makes (docs/c-abi.md) */
} CgParamKind;

/* The error flag parameter's name in the loop IR and its bits.  Stores
 * to it are emitted as an atomic OR: threads of a parallel loop may
 * fail at once, and a plain store would be a data race. */
#define CG_ERR_NAME "tl.err"
enum { CG_ERR_RANGE = 1, CG_ERR_NOMEM = 2, CG_ERR_BOUND = 4,
       CG_ERR_ASSERT = 8,      /* a kernel's assert does not hold */
       CG_ERR_STR = 16 };      /* a cast met a string that is not a
                                * number (RT_STR_NUMBER) */
/* The parameter the strings a kernel makes are allocated through (a
 * tdsl_str_alloc *, emit.c's string prelude). */
#define CG_STRMEM_NAME "tl.strmem"

typedef struct CgParam {
    CgParamKind kind;
    TlFunc *f;
    int axis;
    TlVar *var;
    TlExternInfo *ext;
} CgParam;

/* A kernel lowered for the cpu: fn's parameters correspond one to one
 * to params. */
typedef struct CgKernel {
    LFunc *fn;
    CgParam *params;
    int nparams;
    const char **lits;  /* the string literals CGP_STRS passes */
    int nlits;
} CgKernel;

/* lower.c: the first tensor of kernel k (an input, output, top-level
 * tensor or stage) that is a str or computes with one, or NULL: such
 * a kernel takes the CGP_STRMEM parameter (the cpu target compiles
 * strings, the accel target refuses them). */
TL_INTERNAL TlFunc *cg_kernel_str(const TlKernelInfo *k);
/* lower.c: the kernel with its cpu schedule (default when none), or
 * NULL after reporting why it cannot be compiled yet. */
TL_INTERNAL CgKernel *cg_lower_kernel(TlSession *s, TlKernelInfo *k);
/* The same without any cpu schedule, not even the default one: every
 * stage computed at root in row-major loops (what the accel target
 * starts from). */
TL_INTERNAL CgKernel *cg_lower_kernel_plain(TlSession *s, TlKernelInfo *k);

/* sched_apply.c: reports what of k's cpu schedule the backend does not
 * apply at all yet (layouts, stages inside calls); returns the number
 * reported. */
TL_INTERNAL int cg_sched_check(TlSession *s, TlKernelInfo *k);

/* The loop nest of one stage.  Loops run from 0 below `extent` (i32),
 * outermost first; tv is the schedule's loop variable (NULL for a
 * loop no directive can name).  The body starts with the lets
 * defs[ndefs - 1], ..., defs[0] (each defines a variable the loops
 * replaced, from the ones inside it), then runs only where every guard
 * holds (tails of splits). */
enum { CG_MAX_LOOPS = 32 };
typedef struct CgLoop {
    const TlVar *tv;
    LVar *lv;
    LExpr *extent;
    LLoopKind kind;
    int width;          /* LP_VECTORIZED: lanes; LP_PARALLEL: the chunk
                         * of parallel(v, n), 0 without n */
    const char *rkey;   /* loops over a reduction variable: ordered
                         * like the variables were written (a split's
                         * outer part appends 'a', its inner part 'b') */
} CgLoop;
typedef struct CgNest {
    CgLoop loops[CG_MAX_LOOPS];
    int nloops;
    LVar *defvar[3 * CG_MAX_LOOPS];
    LExpr *defval[3 * CG_MAX_LOOPS];
    int ndefs;
    int nrv;            /* defs[rank .. rank + nrv - 1]: the default
                         * loops of the reduction variables of red */
    TlReduce *red;
    LExpr *guards[CG_MAX_LOOPS];
    int nguards;
    int inline_;        /* compute_inline: no loops, no buffer */
    int call_out;       /* an output of an inlined kernel call that
                         * the caller reads (so it may be inlined) */
    const TlFunc *at_func;  /* compute_at(at_func, at_var); NULL: root */
    const TlVar *at_var;
    TlLoc at_loc;           /* the compute_at directive */
    /* store_at(store_func, store_var) or store_root() (store_dir set):
     * the buffer lives at that loop of the consumer (lower_bounds.c). */
    const TlSchedDir *store_dir;
    const TlFunc *store_func;
    const TlVar *store_var;     /* NULL: store_root */
    int par_if;             /* the default schedule: parallel loops run
                             * in parallel only for CG_PAR_MIN elements
                             * or more (serially otherwise) */
    /* bound(x, min, extent) on axis j: bmin[j] (i32; NULL: none) and
     * the directive; the axis's loop runs over bext[j]. */
    LExpr *bmin[TL_MAX_RANK], *bext[TL_MAX_RANK];
    const TlSchedDir *bdir[TL_MAX_RANK];
    /* split(..., round_up) of axis j's loop by rup[j] (0: none): the
     * buffer is padded (cg_sched_pad) and reads are clamped. */
    int64_t rup[TL_MAX_RANK];
    /* rfactor(r, v): the loop of r became the pure loop rf_lv (0 ..
     * rf_ext) of v; the update accumulates into partial results
     * indexed by it, which are then combined in order (lower_stage.c).
     * NULL: no rfactor. */
    LVar *rf_lv;
    LExpr *rf_ext;
    const TlSchedDir *rf_dir;
    /* Lowers a size expression of a directive (set by lower_stage.c). */
    LExpr *(*sym_lower)(void *ctx, const TlSymExpr *e, TlLoc loc);
    void *sym_ctx;
    int uniq;
} CgNest;

/* The default schedule's size threshold for running in parallel. */
enum { CG_PAR_MIN = 16384 };

/* Whether k's cpu schedule names one of f's reduction variables (then
 * f's reduction is lowered as an update with the variables' loops in
 * its nest). */
TL_INTERNAL int cg_sched_names_rvar(TlKernelInfo *k, TlCall *const *path,
                                    int np, const TlFunc *f);

/* The factor that round_up pads axis j of f's buffer to a multiple
 * of (1: none). */
TL_INTERNAL int64_t cg_sched_pad(TlKernelInfo *k, TlCall *const *path,
                                 int np, const TlFunc *f, int j);

/* The order in which f's axes are stored, outermost first, from
 * reorder_storage in k's cpu schedule (else 0, 1, ..., rank - 1). */
TL_INTERNAL void cg_sched_storage(TlKernelInfo *k, TlCall *const *path,
                                  int np, const TlFunc *f, int *order);

/* Whether k's cpu schedule streams output f (`stream()`). */
TL_INTERNAL int cg_sched_streamed(TlKernelInfo *k, const TlFunc *f);

/* The compute_at directive in effect for f in k's cpu schedule, or
 * NULL (computed at root). */
TL_INTERNAL const TlSchedDir *cg_sched_at(TlKernelInfo *k,
                                          TlCall *const *path, int np,
                                          const TlFunc *f);

/* Reports a directive other than compute_root on f, the result of a
 * kernel call (its stage is the callee's output); -1 then. */
TL_INTERNAL int cg_sched_call_result(TlSession *s, TlKernelInfo *k,
                                     TlCall *const *path, int np,
                                     const TlFunc *f);

/* Stages of inlined kernel calls are reached through path[0..np-1],
 * the calls from k inwards; a caller's directives for a stage replace
 * the callee's own.
 * Applies the directives of k's cpu schedule for stage f to n (which
 * holds f's default loops, one per axis).  Returns 0, or -1 after
 * reporting a directive it cannot apply yet. */
TL_INTERNAL int cg_sched_nest(TlSession *s, TlKernelInfo *k,
                              TlCall *const *path, int np, TlFunc *f,
                              CgNest *n);

/* Whether stage f (reached through path[0..np-1]) has the default
 * schedule: no directive names it or computes anything at it. */
TL_INTERNAL int cg_sched_default(TlKernelInfo *k, TlCall *const *path,
                                 int np, const TlFunc *f, int call_out);

/* split(loop i, oname, iname, fac) of n with a guarded tail, for the
 * automatic schedule; -1 when the nest has no room. */
TL_INTERNAL int cg_sched_split(TlSession *s, TlFunc *f, CgNest *n, int i,
                               const char *oname, const char *iname,
                               int64_t fac);

/* sched_auto.c (its rules are in its header comment): whether the
 * default schedule computes f inline into its one reader; whether it
 * gives f a register tile (then f is lowered as an update); the tile
 * applied to n, f's nest with its reduction loops (-1: not applied,
 * n unchanged only when nothing was split). */
TL_INTERNAL int cg_auto_inline(const TlKernelInfo *k, const TlFunc *f);
TL_INTERNAL int cg_auto_tiled(const TlFunc *f);
TL_INTERNAL int cg_auto_scalar(const TlFunc *f);
TL_INTERNAL int cg_auto_tile(TlSession *s, TlFunc *f, CgNest *n);

/* Orders as stored (sorder) and vectorizes n, the default nest of
 * f's initialization or final pass around a reduction. */
TL_INTERNAL void cg_sched_fill(TlSession *s, TlFunc *f, const int *sorder,
                               CgNest *n);

/* emit_mask.c: whether bool mask m has a scalar condition under which
 * all of its lanes are set, and that condition as a C expression. */
TL_INTERNAL int cgc_all_lanes_ok(const LExpr *m);
TL_INTERNAL void cgc_all_lanes(TlBuf *b, const LExpr *m);
/* The same for a mask of 16 lanes as a bitmask (an unsigned int below
 * 1 << 16) computed from scalars: whether m has one (its comparisons
 * are of ramps of stride 1, no loads), and that bitmask as C; its
 * helper tl_kcmp16 is cgc_kmask_helper, in the prelude. */
TL_INTERNAL int cgc_kmask_ok(const LExpr *m);
TL_INTERNAL void cgc_kmask(TlBuf *b, const LExpr *m);
TL_INTERNAL extern const char cgc_kmask_helper[];

/* emit_gather.c: the prelude's tl_gld16, and strided load e (a ramp
 * of i64 indices with a scalar stride) of 16 lanes of 4 bytes written
 * as its call (returns 1), else 0. */
TL_INTERNAL extern const char cgc_gather_helper[];
TL_INTERNAL int cgc_gather(TlBuf *b, const LExpr *e);

/* emit_reg.c: register allocations as one C variable per slot.
 * reset starts a function; alloc declares the variables of allocation
 * blk->items[i] (indented ind levels) and returns 1 when every access
 * allows it, else 0 (an array then); load and store emit an access of
 * such an allocation and return 1, else 0. */
TL_INTERNAL void cgc_reg_reset(void);
TL_INTERNAL int cgc_reg_alloc(TlBuf *b, const LStmt *blk, int i, int ind);
TL_INTERNAL int cgc_reg_load(TlBuf *b, const LExpr *e);
TL_INTERNAL int cgc_reg_store(TlBuf *b, const LStmt *st);
/* Is v an allocation held as one C variable per slot? */
TL_INTERNAL int cgc_reg_var(const LVar *v);

/* emit_bcmul.c: the prelude's tl_mulbc16 (16 f32 lanes times one f32
 * read from memory: vmulps with an embedded broadcast), and the
 * product e written as its call when e is one (returns 1), else 0. */
TL_INTERNAL extern const char cgc_bcmul_helper[];
TL_INTERNAL int cgc_bcmul(TlBuf *b, const LExpr *e);
/* Around a loop's body: whether its products take the asm broadcast
 * multiply (the previous setting returned, given back to restore). */
TL_INTERNAL int cgc_bcmul_loop(const LStmt *body);
TL_INTERNAL void cgc_bcmul_restore(int was);

/* emit.c: appends a C99 translation unit for f, with an entry point
 * `void tdsl_entry(void *const *args)` taking a pointer per parameter
 * (to the value for scalars, the data pointer itself for buffers). */
TL_INTERNAL void cgc_emit(TlSession *s, TlBuf *out, const LFunc *f);
/* emit.c, for emit_vmask.c: a statement (a block's items in turn). */
TL_INTERNAL void cgc_stmt(TlBuf *b, const LStmt *st, int ind,
                          const char *outer);

/* emit.c, for emit_vec.c: a scalar or vector expression, the C type
 * of a scalar dtype, a name with `.` written `__`. */
TL_INTERNAL void cgc_expr(TlBuf *b, const LExpr *e);
TL_INTERNAL const char *cgc_ctype(TlDType dt);
/* The C type of a buffer's elements, also in the C ABI of aot.c (bool
 * a byte, f16 and bf16 their bits). */
TL_INTERNAL const char *cgc_btype(TlDType dt);
TL_INTERNAL void cgc_name(TlBuf *b, const char *n);

/* emit_vec.c: the vector typedefs and helpers f needs (nothing when it
 * has no vectors), a vector expression (lanes > 1), a store of a
 * vector, and the C name of a scalar or vector type. */
TL_INTERNAL void cgc_vec_prelude(TlBuf *b, const LFunc *f);
TL_INTERNAL void cgc_vexpr(TlBuf *b, const LExpr *e);
TL_INTERNAL void cgc_vstore(TlBuf *b, const LStmt *st);
/* Whether st is a streamed copy of pass_stream.c (a store of more than
 * 16 contiguous floats to a `stream` output from a buffer): emitted as
 * tl_stream_f32, non-temporal stores that TL_SFENCE() orders. */
TL_INTERNAL int cgc_stream_copy(const LStmt *st);
/* The helpers of streamed copies (once per kernel that has one), and
 * one streamed copy (emit_stream.c). */
TL_INTERNAL void cgc_stream_prelude(TlBuf *b);
TL_INTERNAL void cgc_stream_store(TlBuf *b, const LStmt *st);
/* emit_keep.c: the prelude's tl_take and tl_give, the blocks a kernel
 * keeps between calls for the stages of its top level. */
TL_INTERNAL void cgc_keep_prelude(TlBuf *b);
/* emit_pool.c: the prelude's thread pool (tl_par_for), the scopes'
 * declarations (the C name and its declaration, `const int64_t x`)
 * that an outlined parallel loop copies, and a parallel loop emitted as
 * a function of a range of its iterations (into fns, before the
 * kernel's function) and its call (into b). */
typedef struct {
    const char *var, *type;     /* the loop variable, its C type */
    const char *stage;          /* for the comment */
    const char *lo, *hi;        /* the bounds, as C expressions */
    int64_t width;              /* parallel(v, n)'s n, else 0 */
    const char *body;           /* the loop's body, at indent 2 */
} CgParLoop;
TL_INTERNAL void cgc_pool_prelude(TlBuf *out);
TL_INTERNAL void cgc_scope_reset(void);
TL_INTERNAL int cgc_scope_mark(void);
TL_INTERNAL void cgc_scope_restore(int mark);
TL_INTERNAL void cgc_scope_add(const char *id, const char *decl);
TL_INTERNAL void cgc_par_emit(TlBuf *fns, TlBuf *b, int ind,
                              const CgParLoop *l);
TL_INTERNAL void cgc_type_name(TlBuf *b, LType t);
/* Whether the prelude has the 16-lane types and masked moves. */
TL_INTERNAL int cgc_vec_has16(void);
/* While set (the C name of an unsigned short bitmask), cgc_vstore
 * writes its contiguous 16 lanes of 4 bytes under it (tl_mst16), and
 * cgc_vexpr reads every vector load's under it (tl_mldk16). */
TL_INTERNAL void cgc_vstore_mask(const char *k);

/* emit_vmask.c: the lanes of a split's tail (a `vectorized(16)` loop
 * with a computed trip count) as one masked vector where the target
 * has AVX-512, the loop as it is elsewhere; 0 when it does not apply
 * (the caller then writes the loop).  lvar/lval: the scalar lets in
 * scope (lir_vectorize_masked). */
TL_INTERNAL int cgc_vmask_loop(TlSession *s, TlBuf *b, const LStmt *st,
                               int ind, const char *outer,
                               const LVar *const *lvar, LExpr *const *lval,
                               int nlet);

/* emit_vmath.c: for a math call e on f32 lanes that has a vector
 * helper, the helper's name after `tl_f32x<W>_` and its bit in a set
 * of such calls, else NULL and 0; the helpers of a set for the vector
 * widths ws[0 .. n-1] (their types already defined). */
TL_INTERNAL const char *cgc_vmath_name(const LExpr *e);
TL_INTERNAL unsigned cgc_vmath_bit(const LExpr *e);
TL_INTERNAL void cgc_vmath_prelude(TlBuf *b, unsigned set, const int *ws,
                                   int n);
/* emit_vfexp.c: fast_exp's vector helper, TL_VFEXPF32(W), and what it
 * needs for width w (emitted once per width, after the macro). */
TL_INTERNAL extern const char cgc_vfexp_macro[];
TL_INTERNAL void cgc_vfexp_width(TlBuf *b, int w);

/* jit.c: compiles the C source (or finds it in the cache) and returns
 * its tdsl_entry, or NULL after reporting an error at loc. */
typedef void (*CgEntry)(void *const *args);
TL_INTERNAL CgEntry cgc_jit(TlSession *s, const char *src, TlLoc loc);
/* The compiler flags of generated kernels: -ffp-contract=off (the
 * interpreter's rounding), or with TDSL_FMA=1 in the environment
 * -ffp-contract=fast (fused multiply-adds). */
TL_INTERNAL const char *cgc_flags(void);

/* target.c, for bench/: the cpu runner with the compiled kernel called
 * reps times on the same arguments (outputs are written again each
 * time), secs[r] receiving the time of call r alone (no lowering, no
 * compiling, no allocation). */
struct TlRuntime;
struct TlScalarArg;
TL_INTERNAL int cgc_run_timed(struct TlRuntime *rt, TlKernelInfo *k,
                              TlTensor *const *in,
                              const struct TlScalarArg *sc, TlTensor **out,
                              int reps, double *secs);

/* target.c, for bench/: what the last call of the cpu runner spent
 * besides the kernel.  prep_s: lowering, generating C and compiling
 * it or finding it in the disk cache (0 when the kernel was already
 * loaded: reused); overhead_s: the whole call but the kernel's runs
 * (prep_s, binding arguments, allocating outputs). */
typedef struct CgcStats {
    double prep_s, overhead_s;
    int reused;
} CgcStats;
TL_INTERNAL void cgc_last_stats(CgcStats *st);

/* emit_str.c: strings in the generated C.  Whether f computes with
 * strings (it has the CG_STRMEM_NAME parameter); the prelude such a
 * function needs (nothing for others); and the C of e when it is an
 * operation on strings (==, !=, lower, upper, a cast to or from str),
 * returning 1, else 0 having written nothing. */
TL_INTERNAL int cgc_has_str(const LFunc *f);
TL_INTERNAL void cgc_str_prelude(TlBuf *out, const LFunc *f);
TL_INTERNAL int cgc_str_expr(TlBuf *b, const LExpr *e);

#endif
