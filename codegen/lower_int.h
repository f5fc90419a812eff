/*
 * lower_int.h - what the files of the lowering (codegen/lower*.c)
 * share: the lowering state and the functions one file calls in
 * another.  Nothing outside those files includes it.
 *
 *   lower.c          the kernel: parameters, stage buffers, the stages
 *                    in dependency order, then the pass pipeline
 *   lower_expr.c     symbolic sizes and expressions of the language
 *   lower_stage.c    one stage's loop nest (default, then scheduled)
 *   lower_bounds.c   compute_at: the region one loop iteration needs
 *   lower_call.c     kernel calls inside a kernel, lowered inline
 */
#ifndef TL_LOWER_INT_H
#define TL_LOWER_INT_H

#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

/* Per tensor: its buffer, and per axis the domain start, extent and
 * stride (i64 expressions). */
typedef struct FInfo {
    const TlFunc *f;
    LVar *buf;
    int inl;                /* compute_inline: substituted, no buffer */
    LExpr *size;            /* stages: elements of the buffer */
    LExpr *lo[TL_MAX_RANK], *ext[TL_MAX_RANK], *stride[TL_MAX_RANK];
    /* The region computed and stored: the domain, or for compute_at
     * the part one iteration of the consumer's loop needs (variables
     * bound where the region is computed; see `cg_site`). */
    LExpr *rlo[TL_MAX_RANK], *rext[TL_MAX_RANK];
    LVar *rlov[TL_MAX_RANK], *rextv[TL_MAX_RANK], *stv[TL_MAX_RANK];
    /* store_at outside where it is computed: the buffer's origin
     * (NULL: rlo), the loop level where it is stored (-1: root), and
     * the region already computed there (i64[2 * rank]: lo, hi). */
    LExpr *slo[TL_MAX_RANK];
    LVar *slov[TL_MAX_RANK];
    int slevel;
    LVar *done;
    int sorder[TL_MAX_RANK];    /* stages: axes in storage order,
                                 * outermost first (reorder_storage) */
    CgNest *nest;           /* compute_at: its nest, placed by `cg_site` */
    TlReduce *red;          /* ... lowered as an update when set */
    int live;               /* compute_at: readable where lowering is */
    int placed, level;      /* ... placed at loop `level` of its nest */
    int ctx;                /* the inlined kernel call it belongs to */
    int alias;              /* a callee's input or output: the caller's
                             * tensor it stands for (index), else -1 */
    int need_alloc;         /* a call's result: not allocated yet */
    const TlFunc *vf;       /* inline: whose value (default f) ... */
    int vctx;               /* ... in which call */
} FInfo;

typedef struct VMap {
    const TlVar *tv;
    LVar *lv;
    int ctx;
} VMap;

/* A growing list of statements. */
typedef struct SList {
    LStmt **v;
    int n, cap;
} SList;

typedef struct Lw {
    TlSession *s;
    TlKernelInfo *k;
    CgParam *cps;
    LParam *params;
    int np, capp;
    VMap *vars;
    int nvars, capvars;
    FInfo *fs;
    int nfs, capfs;
    LVar *err;
    /* Kernel calls are lowered inline: each expansion is a context
     * (0: the kernel itself) reached through path[0 .. npath - 1]. */
    int ctx, nctx;
    TlCall *path[16];
    int npath;
    TlCall **done;          /* calls expanded, with their context */
    int *done_ctx, ndone, capdone;
    TlReduce *red_sub;      /* while applying what surrounds an update */
    LExpr *red_val;         /* ... red_sub reads as this */
    int uniq;
    int failed;
    int plain;              /* no cpu schedule, not even the default */
    /* The kernel's asserts (SPEC 6.8), in the order lowered: what
     * follows each in the top-level list runs only if it holds
     * (lower.c, guard_asserts). */
    int *asrt_at;           /* its position in that list */
    LVar **asrt_buf;        /* its rank-0 bool buffer */
    int nasrt;
    /* Strings (SPEC 8.6): the literals, read from the table the runner
     * passes (tl.strs, CGP_STRS), and the caller's allocator of the
     * strings the kernel makes (tl.strmem, CGP_STRMEM). */
    LVar *strs;
    const char **lits;
    int nlits, caplits;
} Lw;

LExpr *cg_hash_param(Lw *L, TlExpr *e, SList *pre);
/* The element of f (of this context) at absolute indices idx[] (i64,
 * in its domain): loaded from its buffer, or computed where f is
 * inline; for hash(x) of a tensor the kernel computes (lower.c). */
LExpr *cg_read_at(Lw *L, const TlFunc *f, LExpr **idx, TlLoc loc,
                  SList *pre);
/* The string literal s: a load from the literal table. */
LExpr *cg_str_lit(Lw *L, const char *s);

static inline LExpr *i64c(Lw *L, int64_t v)
{
    return lir_int(L->s, DT_I64, v);
}

static inline LExpr *to_dt(Lw *L, TlDType dt, LExpr *e)
{
    return e->type.dt == dt ? e : lir_cast(L->s, dt, e);
}

static inline LExpr *bin(Lw *L, LOp op, LExpr *a, LExpr *b)
{
    return lir_binary(L->s, op, a, b);
}

/* ====================================================================
 * lower.c
 * ==================================================================== */

TL_INTERNAL void cg_sl_add(SList *l, LStmt *st);
/* The list as one statement; frees the list. */
TL_INTERNAL LStmt *cg_sl_done(Lw *L, SList *l);
/* Reports what cannot be compiled yet and marks the lowering failed. */
TL_INTERNAL void cg_unsupported(Lw *L, TlLoc loc, const char *what);
/* A fresh name "base.__N". */
TL_INTERNAL const char *cg_fresh(Lw *L, const char *base);
/* tv stands for lv in the current context (the latest mapping wins). */
TL_INTERNAL void cg_map_var(Lw *L, const TlVar *tv, LVar *lv);
/* The parameter holding the C function of scalar extern x (added the
 * first time; the runner passes what the interpreter would call). */
TL_INTERNAL LVar *cg_extern_fn(Lw *L, TlExternInfo *x);
TL_INTERNAL LVar *cg_find_var(Lw *L, const TlVar *tv);
TL_INTERNAL FInfo *cg_new_finfo(Lw *L, const TlFunc *f);
TL_INTERNAL FInfo *cg_find_finfo(Lw *L, const TlFunc *f);
/* An intermediate stage: a heap buffer over its domain. */
TL_INTERNAL void cg_stage_buffer(Lw *L, TlFunc *f, SList *out);
/* The stages of kk (the kernel or an inlined callee, in the current
 * context) in dependency order. */
TL_INTERNAL void cg_lower_funcs(Lw *L, TlKernelInfo *kk, SList *top);

/* ====================================================================
 * lower_expr.c.  Statements an expression needs first (reductions,
 * range checks) go to `pre`, which runs right before its user.
 * ==================================================================== */

TL_INTERNAL LExpr *cg_sym_lower(Lw *L, const TlSymExpr *e, TlDType dt,
                                TlLoc loc);
TL_INTERNAL LExpr *cg_lower_expr(Lw *L, TlExpr *e, SList *pre);
/* The flat offset (i64) of element idx[] of fi from its region start;
 * clamped into the domain when clamp is set. */
TL_INTERNAL LExpr *cg_offset(Lw *L, FInfo *fi, int rank, LExpr **idx,
                             int clamp);
/* The identity of red's operation in dt, or NULL after reporting. */
TL_INTERNAL LExpr *cg_red_identity(Lw *L, TlExpr *e, TlReduce *red,
                                   TlDType dt);
TL_INTERNAL LExpr *cg_red_combine(Lw *L, TlReduce *red, LExpr *cur,
                                  LExpr *val);
/* argmax/argmin (SPEC 7.6), shared by the reduction inside an
 * expression and the update of a stage (lower_stage.c): the best
 * value's start (the opposite extreme, so that the first element
 * wins when nothing beats it), whether v beats the best so far cur
 * (greater for argmax, a NaN beating everything but an earlier NaN),
 * and whether v and cur tie (equal, or both NaN), when partial
 * results are combined and the earlier index must win. */
TL_INTERNAL LExpr *cg_arg_start(Lw *L, TlReduce *red, TlDType bdt);
TL_INTERNAL LExpr *cg_arg_better(Lw *L, TlReduce *red, LExpr *v,
                                 LExpr *cur);
TL_INTERNAL LExpr *cg_arg_tie(Lw *L, LExpr *v, LExpr *cur);
/* The loop-IR operator of a language operator; LO__COUNT if none. */
TL_INTERNAL LOp cg_map_op(TlOp op);

/* ====================================================================
 * lower_stage.c
 * ==================================================================== */

/* The default nest of f: one loop per axis (and with red, red's loops
 * innermost in the order written). */
TL_INTERNAL void cg_default_nest(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                                 TlReduce *red);
/* Stage f's loop nests into out. */
TL_INTERNAL void cg_emit_stage(Lw *L, TlFunc *f, FInfo *fi, CgNest *n,
                               TlReduce *red, SList *out);
/* A stage computed at a loop of its consumer: region variables. */
TL_INTERNAL void cg_at_region(Lw *L, TlFunc *f, FInfo *fi);
/* ... and stored at another (store_at): its buffer's origin and the
 * record of what it holds. */
TL_INTERNAL void cg_store_vars(Lw *L, TlFunc *f, FInfo *fi);

/* ====================================================================
 * lower_bounds.c
 * ==================================================================== */

/* The producers computed at loop `at` of consumer f (nest n), placed
 * before body. */
TL_INTERNAL LStmt *cg_site(Lw *L, TlFunc *f, FInfo *cfi, CgNest *n, int at,
                           LStmt *body);
/* The buffers of the producers of f that store_root() keeps outside
 * all of f's loops, into out. */
TL_INTERNAL void cg_store_root(Lw *L, TlFunc *f, SList *out);

/* ====================================================================
 * lower_call.c
 * ==================================================================== */

/* A kernel call inside the kernel, lowered inline into top. */
TL_INTERNAL void cg_expand_call(Lw *L, TlCall *call, SList *top);

#endif
