/*
 * eval_int.h - declarations shared by the files of the interpreter
 * (eval*.c, ffi.c, and value.c, which does the top level's scalar
 * arithmetic with the operations of eval_scalar.c) and nowhere else,
 * grouped by the defining file.
 *
 * How a kernel call runs (eval.c): the size variables are bound from
 * the inputs, the scalars evaluated, and every stage's checked
 * expression compiled (eval_compile.c) into a tree of ItpNode.  The
 * tree is then evaluated one row at a time: a row is up to ITP_ROW
 * consecutive points of the innermost axis of the stage's domain, and
 * each node that depends on that axis (a "varying" node) computes all
 * the row's lanes in one tight loop (eval_row.c, eval_read.c,
 * eval_reduce.c).  Nodes that do not depend on it ("uniform" nodes)
 * are computed once per row by the per-element walk (eval_scalar.c),
 * which is also the reference mode (TDSL_INTERP=scalar) and the only
 * place that reports run-time errors: a row that fails is evaluated
 * again element by element, so the error reported is the one the
 * per-element walk meets first.
 */
#ifndef TL_EVAL_INT_H
#define TL_EVAL_INT_H

#include "interp/interp.h"

/* The most lanes of a row. */
enum { ITP_ROW = 256 };

/* One value: `f` for float dtypes (held as a double that is exactly a
 * value of the dtype), `i` for integers and bool (the dtype's value,
 * sign-extended; bool 0 or 1). */
typedef union ItpVal {
    double f;
    int64_t i;
    const char *s;      /* str: interned (lang/str.c); NULL is "" */
} ItpVal;

/* Node operations.  Unary and math ops compute in the node's dtype;
 * binary ops and comparisons in their operands' dtype (a->dt). */
typedef enum {
    I_CONST,    /* k */
    I_VAR,      /* env[var] */
    I_ROWVAR,   /* the row variable (row0 + lane) */
    I_READ,     /* rd */
    I_NEG, I_NOT, I_CAST, I_ABS,
    I_EXP, I_FEXP, I_LOG, I_SQRT, I_RSQRT, I_TANH, I_SIGMOID, I_ERF, I_SIN,
    I_COS, I_TAN, I_ASIN, I_ACOS, I_ATAN, I_SINH, I_COSH, I_ASINH, I_ACOSH,
    I_ATANH, I_FLOOR, I_CEIL, I_ROUND,
    I_ADD, I_SUB, I_MUL, I_DIV, I_MOD,
    I_EQ, I_NE, I_LT, I_LE, I_GT, I_GE, I_AND, I_OR,
    I_MIN, I_MAX, I_POW,
    I_UNIFORM, I_NORMAL,    /* a = seed, b = counter (i64); f32 out */
    I_LOWER, I_UPPER,   /* str case mapping */
    I_CLAMP,    /* a, b = lo, c = hi */
    I_SELECT,   /* c ? a : b, only the chosen side evaluated */
    I_REDUCE,   /* red */
    I_EXTERN,   /* ext */
    I__COUNT
} ItpOp;

typedef struct ItpNode ItpNode;
typedef struct ItpFrame ItpFrame;

/* A read of a tensor (T[e0, ...], T.zero_pad[...], or a rank-0 tensor
 * by its bare name). */
typedef struct ItpRead {
    int slot;                   /* the tensor read: F->slots[slot] */
    TlFunc *func;
    TlRead *r;                  /* NULL for a bare rank-0 name */
    TlReadMode mode;
    int rank;
    ItpNode **idx;              /* [rank] index expressions */
} ItpRead;

/* A reduction: its variables (env indices) with their ranges, which
 * depend on sizes and scalars only and are evaluated when compiled. */
typedef struct ItpRed {
    TlReduce *r;
    TlOp op;                    /* RD_* */
    int nv;
    int *vars;                  /* [nv] env indices */
    int64_t *lo, *ext;          /* [nv] */
    int64_t total;              /* iterations (product of ext) */
    ItpNode *body;
    ItpVal *acc;                /* rows: accumulator (the best value for
                                 * argmax/argmin) */
    ItpVal *arg;                /* rows: argmax/argmin index */
} ItpRed;

/* A call of a scalar extern function. */
typedef struct ItpExt {
    TlExternInfo *x;
    int nargs;
    ItpNode **args;
    TlLoc loc;                  /* the call expression */
    ItpVal *vals;               /* [nargs] scratch: one call's arguments */
    const ItpVal **rows;        /* [nargs] scratch: rows of arguments */
    int *strides;               /* [nargs] */
} ItpExt;

struct ItpNode {
    ItpOp op;
    TlDType dt;                 /* the dtype of its value */
    int vary;                   /* depends on the row variable */
    int affine;                 /* integer, affine in the row variable
                                 * (eval_read.c takes its fast path) */
    ItpNode *a, *b, *c;
    const TlExpr *e;            /* for messages (NULL for a row var) */
    ItpVal k;                   /* I_CONST; elsewhere the value of a
                                 * uniform node in rows */
    int var;                    /* I_VAR: env index */
    ItpRead *rd;
    ItpRed *red;
    ItpExt *ext;
    ItpVal *buf;                /* varying: the row's values [ITP_ROW] */
    uint8_t *mask_a, *mask_b;   /* varying I_SELECT: lanes of each side */
};

/* A tensor of the running kernel: an input, a top-level constant, a
 * stage, an output or a call result. */
typedef struct ItpSlot {
    TlFunc *f;
    TlTensor *t;                /* one reference, NULL until computed */
    int64_t lo[TL_MAX_RANK];    /* index of element 0, per axis */
    int64_t ext[TL_MAX_RANK];   /* the domain's extent per axis */
    int done;                   /* computed (or given) */
} ItpSlot;

/* One running kernel call. */
struct ItpFrame {
    TlRuntime *rt;
    TlSession *s;
    TlKernelInfo *k;
    jmp_buf *fatal;             /* the session's fatal boundary, which
                                 * is cleared while kernels run */
    TlArena arena;              /* compiled nodes and row buffers */
    int scalar;                 /* per-element mode */
    int quiet;                  /* rows: report nothing, just fail */
    /* Variables: sizes, scalars, then index and reduction variables as
     * the compiler meets them. */
    TlVar **vars;
    ItpVal *env;
    int nvars, capvars;
    ItpSlot *slots;
    int nslots;
    /* The stage being computed and its row. */
    ItpSlot *cur;
    int64_t row0;               /* its value at lane 0 */
    int n;                      /* lanes in the row */
    /* Reductions being iterated by the per-element walk, innermost
     * last (for messages). */
    ItpRed *redstack[64];
    int nred;
};

/* ====================================================================
 * eval.c - frames and the stage driver
 * ==================================================================== */

/* The env index of v, adding it when new. */
TL_INTERNAL int itp_var_index(ItpFrame *F, TlVar *v);
/* The slot of tensor f (which must have one). */
TL_INTERNAL int itp_slot_of(ItpFrame *F, const TlFunc *f);
/* "path:line:col" of loc, in F's arena. */
TL_INTERNAL const char *itp_loc_text(ItpFrame *F, TlLoc loc);
/* Evaluates a size expression of F's sizes and scalars; reports
 * (what names it) and returns -1 when it cannot be computed. */
TL_INTERNAL int itp_sym(ItpFrame *F, const TlSymExpr *e, TlLoc loc,
                        const char *what, int64_t *out);
/* Adds a note naming the point being computed (the stage's index
 * variables and the reduction variables being iterated). */
TL_INTERNAL void itp_note_point(ItpFrame *F);

/* ====================================================================
 * eval_compile.c - checked expressions to node trees
 * ==================================================================== */

/* Compiles checked expression e of F's kernel.  row_var is the env
 * index of the variable that varies along a row (-1: none); want, when
 * not DT_NONE, is the dtype the value must have (converted if needed).
 * Returns NULL after reporting (a reduction range that cannot be
 * computed). */
TL_INTERNAL ItpNode *itp_compile(ItpFrame *F, const TlExpr *e, int row_var,
                                 TlDType want);

/* ====================================================================
 * eval_scalar.c - the per-element walk and the scalar operations
 * ==================================================================== */

/* Rounds x to float dtype dt (ties to even). */
TL_INTERNAL double itp_round(TlDType dt, double x);
/* Keeps the low bits of v for integer dtype dt (bool: v != 0). */
TL_INTERNAL int64_t itp_wrap(TlDType dt, int64_t v);
/* a < b for integer values of dtype dt (u64 values are held as their
 * bits, so they compare unsigned). */
TL_INTERNAL int itp_ilt(TlDType dt, int64_t a, int64_t b);
/* Casts v of dtype from to dtype to (lang.h's tl_dt_store rules). */
TL_INTERNAL ItpVal itp_cast(TlDType to, TlDType from, ItpVal v);
/* A scalar argument converted to dtype dt (interp.h, TlScalarArg). */
TL_INTERNAL ItpVal itp_scalar_arg(TlDType dt, const TlScalarArg *a);
/* Unary op of dtype dt (I_NEG ... I_ROUND, not I_CAST). */
TL_INTERNAL ItpVal itp_unary(ItpOp op, TlDType dt, ItpVal a);
/* Binary op (I_ADD ... I_POW) on operands of dtype dt; comparisons
 * and && || give 0/1. */
TL_INTERNAL ItpVal itp_binary(ItpOp op, TlDType dt, ItpVal a, ItpVal b);
/* uniform(seed, k) or normal(seed, k) (I_UNIFORM, I_NORMAL), as f32
 * (lang/rng.h). */
TL_INTERNAL ItpVal itp_random(ItpOp op, int64_t seed, int64_t k);
/* min/max of the language (NaN wins, a tie gives a), dtype dt. */
TL_INTERNAL ItpVal itp_min(TlDType dt, ItpVal a, ItpVal b);
TL_INTERNAL ItpVal itp_max(TlDType dt, ItpVal a, ItpVal b);
/* clamp(x, lo, hi) of the language: min(max(x, lo), hi) in dtype dt. */
TL_INTERNAL ItpVal itp_clamp(TlDType dt, ItpVal x, ItpVal lo, ItpVal hi);
/* The operation of an operator (OP_ADD ... OP_OR, OP_NEG, OP_NOT) and
 * of an element-wise builtin (BI_SELECT ... BI_ROUND). */
TL_INTERNAL ItpOp itp_op_of(TlOp op);
TL_INTERNAL ItpOp itp_builtin_op(TlBuiltinId id);
/* The value of node n at the current point: 0, or -1 after reporting
 * (nothing is reported when F->quiet). */
TL_INTERNAL int itp_eval1(ItpFrame *F, ItpNode *n, ItpVal *out);
/* Loads the element at p of dtype dt. */
TL_INTERNAL ItpVal itp_load(TlDType dt, const void *p);
/* Stores v (a value of dt) at p. */
TL_INTERNAL void itp_store(TlDType dt, void *p, ItpVal v);

/* ====================================================================
 * eval_read.c - reads
 * ==================================================================== */

/* Per element: the value of read n at the current point. */
TL_INTERNAL int itp_read1(ItpFrame *F, ItpNode *n, ItpVal *out);
/* Rows: fills n->buf for the active lanes (mask NULL: all); -1 when a
 * lane reads out of bounds (not reported). */
TL_INTERNAL int itp_read_row(ItpFrame *F, ItpNode *n, const uint8_t *mask);
/* The affine form b + c * lane of affine node n; 0, 1 when it cannot
 * be used for this row (it would wrap), -1 on an error. */
TL_INTERNAL int itp_affine(ItpFrame *F, ItpNode *n, int64_t *b, int64_t *c);

/* ====================================================================
 * eval_row.c - rows
 * ==================================================================== */

/* Fills n->buf (n varying) for the active lanes of the row; -1 on a
 * run-time error (not reported: the caller walks the row again per
 * element). */
TL_INTERNAL int itp_eval_row(ItpFrame *F, ItpNode *n, const uint8_t *mask);
/* The values of n over the row: n->buf (*stride 1) when it varies,
 * else its value computed once (&n->k, *stride 0).  NULL on error. */
TL_INTERNAL const ItpVal *itp_operand(ItpFrame *F, ItpNode *n,
                                      const uint8_t *mask, int *stride);

/* ====================================================================
 * eval_reduce.c - reductions
 * ==================================================================== */

TL_INTERNAL int itp_reduce1(ItpFrame *F, ItpNode *n, ItpVal *out);
TL_INTERNAL int itp_reduce_row(ItpFrame *F, ItpNode *n,
                               const uint8_t *mask);

/* ====================================================================
 * ffi.c - extern functions through libffi
 * ==================================================================== */

typedef struct ItpFfiFn ItpFfiFn;

/* The callable form of scalar extern x, resolved once per runtime
 * (cached in rt->ffi).  NULL when it cannot be called: reported at the
 * extern's declaration unless quiet, with a note at use when
 * use.file >= 0. */
TL_INTERNAL ItpFfiFn *itp_ffi_get(TlRuntime *rt, TlExternInfo *x, int quiet,
                                  TlLoc use);
/* Calls fn with args[x->nparams] (values of the parameters' dtypes);
 * the result is a value of x->ret. */
TL_INTERNAL ItpVal itp_ffi_call(ItpFfiFn *fn, const ItpVal *args);

#endif
