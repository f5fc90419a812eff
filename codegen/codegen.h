/*
 * codegen.h - the public interface of the code generator: the loop IR
 * that schedules lower into, its text form, and the passes over it.
 *
 * Where it sits (ARCHITECTURE.md): checked pipeline -> schedule
 * application -> loop IR -> passes (this header) -> C backend or
 * accelerator backend.  Every node lives in the session's arena and
 * dies with it; nodes are never changed after construction (STYLE.md
 * rule 9), so a pass that changes nothing returns the pointer it was
 * given.
 */
#ifndef TL_CODEGEN_H
#define TL_CODEGEN_H

#include "lang/lang.h"

/* ====================================================================
 * Loop IR
 *
 * A function is a list of parameters and a body statement.  Statements
 * are for-loops (with a kind), lets, stores, allocations, if/else and
 * blocks; expressions are constants, variables, loads, operators,
 * select, casts, math calls, and the vector forms ramp and broadcast.
 * Every expression has a type: a dtype and a lane count (1: scalar).
 *
 * Scoping.  A `let` or an `alloc` defines its name from the next
 * statement to the end of the enclosing block (a let that is the whole
 * body of a loop defines nothing anyone sees).  A loop variable is
 * defined in the loop's body.  Names never shadow a name in scope
 * (lir_verify checks this), so substituting an expression for a
 * variable never captures anything.  Variables are LVar objects and
 * compared by pointer inside the compiler; the text form names them,
 * so two LVars with one name may only appear in disjoint scopes.
 *
 * Semantics are the language's (lang/SPEC.md 8.4, 8.5): integers wrap,
 * `/` and `%` on integers round toward negative infinity and give 0
 * when dividing by zero, floats are IEEE with the operation's dtype,
 * min/max return NaN if either side is NaN and the left side on a tie.
 * A loop runs its variable (of its bounds' integer type) from the
 * lower bound while it is below the upper one.  A store writes one
 * element (one per lane, in lane order); nothing else has an effect,
 * so every expression is pure.  Indices must lie inside the buffer:
 * lowering guarantees that, nothing checks it here.
 *
 * The text form (lir_print writes it, lir_parse reads it back to an
 * equal tree; `#` starts a comment to the end of the line; newlines
 * are not significant):
 *
 *   func     = "func" NAME "(" [ param { "," param } ] ")" block
 *   param    = NAME ":" TYPE                        (a scalar)
 *            | NAME ":" DTYPE "*"                   (a flat buffer)
 *            | NAME ":" DTYPE "[" expr { "," expr } "]"  (with dims,
 *                                        over the scalars before it)
 *   block    = "{" { stmt } "}"
 *   stmt     = [ kind ] "for" NAME "in" expr ".." expr block
 *            | "let" NAME "=" expr
 *            | NAME "[" expr { "," expr } "]" "=" expr     (store)
 *            | "alloc" NAME ":" DTYPE "[" expr { "," expr } "]"
 *              "on" ( "heap" | "stack" | "register" )
 *            | "if" expr block [ "else" ( block | if-stmt ) ]
 *            | block
 *   kind     = "parallel" | "unrolled" | "vectorized" "(" INT ")"
 *            | "distributed" "(" NAME ")"
 *   expr     = binary operators, loosest first: || && (== != < <= >
 *              >=, which do not chain) (+ -) (* / %), then unary - !,
 *              then primary
 *   primary  = INT [ "_" DTYPE ]     (default i32; "true", "false")
 *            | FLOAT [ "_" DTYPE ]   (default f32; "inf", "nan")
 *            | NAME | NAME "[" expr { "," expr } "]"     (load)
 *            | "(" expr ")" | DTYPE "(" expr ")"          (cast)
 *            | ( "min" | "max" ) "(" expr "," expr ")"
 *            | "select" "(" expr "," expr "," expr ")"
 *            | "ramp" "(" expr "," expr "," INT ")"
 *            | "broadcast" "(" expr "," INT ")"
 *            | CALL "(" expr { "," expr } ")"     (exp, sqrt, ...)
 *   TYPE     = DTYPE | DTYPE "x" LANES         (f32x16)
 *
 * NAME is a letter or `_`, then letters, digits and `_`, with `.`
 * allowed between such parts (`C.s0.x`); a name that is a keyword is
 * written with a `$` in front (`$min`).  A `-` right before a number
 * belongs to the literal (`-3`; the negation of 3 prints as `-(3)`).
 * Types of everything else follow from the operands, so the text
 * carries no other annotations:
 *
 *   func scale(A: f32*, B: f32*, n: i32) {
 *     parallel for i in 0 .. n / 16 {
 *       vectorized(16) for j in 0 .. 16 {
 *         let k = i * 16 + j
 *         B[k] = A[k] * 2.0
 *       }
 *     }
 *   }
 * ==================================================================== */

/* The type of an expression: a dtype and a lane count (1: scalar). */
typedef struct LType {
    TlDType dt;
    int lanes;
} LType;

/* The most lanes a vector may have. */
enum { LIR_MAX_LANES = 1024 };

/* The width of a serial loop that the C compiler must not unroll: the
 * copies of a schedule's `unrolled` loops in head, tail and fallback
 * code, which are kept loops to keep the code small (gcc -O3 unrolled
 * them all the same: a fifth of matmul's cc time). */
enum { LIR_ROLLED = 1 };

/* Binary and unary operators.
 * X(NAME, spelling, precedence, class)
 *   precedence  binding strength in the text form (SPEC 7.1): 2 ||,
 *               3 &&, 4 comparisons, 5 + -, 6 * / %, 7 unary; 9 for
 *               min/max, which are written as calls
 *   class       A arithmetic (numbers, same type out), C comparison
 *               (bool out), L logic (bool in and out) */
#define LIR_OPS(X)                                                       \
    X(ADD, "+", 5, 'A')                                                  \
    X(SUB, "-", 5, 'A')                                                  \
    X(MUL, "*", 6, 'A')                                                  \
    X(DIV, "/", 6, 'A')                                                  \
    X(MOD, "%", 6, 'A')                                                  \
    X(MIN, "min", 9, 'A')                                                \
    X(MAX, "max", 9, 'A')                                                \
    X(EQ, "==", 4, 'C')                                                  \
    X(NE, "!=", 4, 'C')                                                  \
    X(LT, "<", 4, 'C')                                                   \
    X(LE, "<=", 4, 'C')                                                  \
    X(GT, ">", 4, 'C')                                                   \
    X(GE, ">=", 4, 'C')                                                  \
    X(AND, "&&", 3, 'L')                                                 \
    X(OR, "||", 2, 'L')                                                  \
    X(NEG, "-", 7, 'A')                                                  \
    X(NOT, "!", 7, 'L')

typedef enum {
#define X(n, sp, prec, cls) LO_##n,
    LIR_OPS(X)
#undef X
    LO__COUNT
} LOp;

/* Math functions, called by name.
 * X(NAME, spelling, arguments, on integers too)
 * All take and return one type; only abs also works on integers;
 * except uniform and normal (ints 2), which take two i64 (a seed and a
 * counter) and give f32 (lang/rng.h); and fnv (ints 3): fnv(h, v) is
 * the i64 FNV-1a hash h continued over the bytes of the scalar v of any
 * dtype as a buffer stores it (bool one byte, f16/bf16 their 16 bits),
 * in memory order: tl_tensor_hash's step (hash(x) of a tensor the
 * kernel computes, SPEC 6.8); lower and upper (ints 4) take and give
 * a str (SPEC 8.6: ASCII letters mapped). */
#define LIR_CALLS(X)                                                     \
    X(EXP, "exp", 1, 0)                                                  \
    X(FAST_EXP, "fast_exp", 1, 0)                                        \
    X(LOG, "log", 1, 0)                                                  \
    X(SQRT, "sqrt", 1, 0)                                                \
    X(RSQRT, "rsqrt", 1, 0)                                              \
    X(TANH, "tanh", 1, 0)                                                \
    X(SIGMOID, "sigmoid", 1, 0)                                          \
    X(ERF, "erf", 1, 0)                                                  \
    X(SIN, "sin", 1, 0)                                                  \
    X(COS, "cos", 1, 0)                                                  \
    X(TAN, "tan", 1, 0)                                              \
    X(ASIN, "asin", 1, 0)                                            \
    X(ACOS, "acos", 1, 0)                                            \
    X(ATAN, "atan", 1, 0)                                            \
    X(SINH, "sinh", 1, 0)                                            \
    X(COSH, "cosh", 1, 0)                                            \
    X(ASINH, "asinh", 1, 0)                                          \
    X(ACOSH, "acosh", 1, 0)                                          \
    X(ATANH, "atanh", 1, 0)                                          \
    X(ABS, "abs", 1, 1)                                                  \
    X(FLOOR, "floor", 1, 0)                                              \
    X(CEIL, "ceil", 1, 0)                                                \
    X(ROUND, "round", 1, 0)                                              \
    X(POW, "pow", 2, 0)                                                  \
    X(UNIFORM, "uniform", 2, 2)                                          \
    X(NORMAL, "normal", 2, 2)                                            \
    X(FNV, "fnv", 2, 3)                                                  \
    X(LOWER, "lower", 1, 4)                                              \
    X(UPPER, "upper", 1, 4)

typedef enum {
#define X(n, sp, nargs, ints) LC_##n,
    LIR_CALLS(X)
#undef X
    LC__COUNT
} LCall;

/* The spelling of an operator or a function ("+", "min", "exp"). */
const char *lir_op_name(LOp op);
const char *lir_call_name(LCall fn);
/* The number of arguments of fn. */
int lir_call_nargs(LCall fn);

typedef enum {
    LV_VALUE,       /* a scalar or vector value: params, lets, loops */
    LV_BUFFER,      /* memory: buffer params and allocations */
    LV_FUNC         /* a C function (an `extern`), a parameter only */
} LVarKind;

/* A variable or a buffer.  For a buffer, type.dt is the element type
 * and type.lanes is 1.  Made once where it is defined and shared by
 * every use. */
typedef struct LVar {
    const char *name;
    LVarKind kind;
    LType type;             /* LV_FUNC: the result's */
    const TlDType *sig;     /* LV_FUNC: the parameters' dtypes */
    int nsig;
    int stream;             /* LV_BUFFER: an output whose whole rows
                             * may be stored past the caches (the
                             * `stream` directive; pass_stream.c);
                             * printed `f32* stream` */
    int red;                /* LV_VALUE: the variable of a loop of a
                             * reduction's update nest over its
                             * reduction variables (from 0 up) */
    struct LExpr *red_init; /* LV_BUFFER: set by lowering when the
                             * buffer is written only by a reduction's
                             * initialization (this value, of
                             * parameters alone, everywhere) and then
                             * its update nest: an element holds it
                             * until that nest's first step for it,
                             * where every `red` loop is at 0
                             * (pass_accum.c).  Not printed */
    int red_ninit;          /* LV_BUFFER: initializations lowered into
                             * it (red_init holds for exactly one) */
} LVar;

/* Expression kinds; the fields each uses are listed, the rest are 0. */
typedef enum {
    LE_INT,         /* ival, in an integer dtype or bool (0/1) */
    LE_FLOAT,       /* fval, exactly a value of its float dtype */
    LE_VAR,         /* var (an LV_VALUE) */
    LE_LOAD,        /* var[args]: var is an LV_BUFFER; one index per
                     * dimension, each scalar or of the load's lanes */
    LE_BINARY,      /* a op b */
    LE_UNARY,       /* op a (LO_NEG, LO_NOT) */
    LE_SELECT,      /* a ? b : c, lane by lane */
    LE_CAST,        /* a converted to type.dt (SPEC 8.4) */
    LE_CALL,        /* fn(args); or, when var is set, a call of that
                     * LV_FUNC (fn is then LC__COUNT), lane by lane */
    LE_RAMP,        /* a + i * b for lanes i = 0 .. type.lanes - 1 */
    LE_BROADCAST,   /* a repeated type.lanes times */
    LE__COUNT
} LExprKind;

typedef struct LExpr LExpr;
struct LExpr {
    LExprKind kind;
    LType type;
    LOp op;
    LCall fn;
    int64_t ival;
    double fval;
    LVar *var;
    LExpr *a, *b, *c;
    LExpr **args;
    int nargs;
};

typedef enum {
    LP_SERIAL,
    LP_PARALLEL,    /* iterations may run on different threads */
    LP_VECTORIZED,  /* to become vector code of `width` lanes */
    LP_UNROLLED,    /* to be unrolled completely */
    LP_DISTRIBUTED, /* spread over a level of the accelerator */
    LP__COUNT
} LLoopKind;

typedef enum {
    LM_HEAP,
    LM_STACK,
    LM_REGISTER,    /* small and of constant size: kept in registers */
    LM__COUNT
} LMemKind;

/* Statement kinds; the fields each uses are listed, the rest are 0. */
typedef enum {
    LS_FOR,     /* for var in a .. b (half-open) { body }; loop, width
                 * (LP_VECTORIZED: the lanes; LP_PARALLEL: the chunk
                 * of iterations a thread takes at a time, 0 for the
                 * backend's default; LP_SERIAL: 1 for a loop the C
                 * compiler must keep rolled, printed `rolled for`:
                 * LIR_ROLLED), level (LP_DISTRIBUTED) */
    LS_LET,     /* let var = a */
    LS_STORE,   /* var[args] = a */
    LS_ALLOC,   /* alloc var: var->type.dt[args] on mem */
    LS_IF,      /* if a { body } else { orelse }; orelse may be NULL */
    LS_BLOCK,   /* items[nitems], never exactly one */
    LS__COUNT
} LStmtKind;

typedef struct LStmt LStmt;
struct LStmt {
    LStmtKind kind;
    LVar *var;
    LLoopKind loop;
    int width;
    const char *level;
    LMemKind mem;
    LExpr *a, *b;
    LExpr **args;
    int nargs;
    LStmt *body, *orelse;
    LStmt **items;
    int nitems;
};

/* A parameter: a scalar, or a buffer with ndims dimensions (0: a flat
 * pointer, indexed by one expression), row-major.  Dimensions may use
 * the scalar parameters before them. */
typedef struct LParam {
    LVar *var;
    LExpr **dims;
    int ndims;
} LParam;

typedef struct LFunc {
    const char *name;
    LParam *params;
    int nparams;
    LStmt *body;
} LFunc;

const char *lir_loop_name(LLoopKind k);    /* "serial", "parallel", ... */
const char *lir_mem_name(LMemKind m);      /* "heap", "stack", ... */

/* --- constructors (codegen/lir.c) ---------------------------------- */

/* All allocate in s->arena; arrays passed in are copied, names too.
 * Expression constructors compute the node's type from the operands
 * (an arithmetic node takes a's type, a comparison bool with a's lanes,
 * a load the element type with the widest index's lanes) and accept
 * anything: mismatched operands are lir_verify's to report. */

LType lir_type(TlDType dt, int lanes);
int lir_type_eq(LType a, LType b);
/* Appends "f32" or "f32x16". */
void lir_print_type(TlBuf *out, LType t);

LVar *lir_var(TlSession *s, const char *name, LType type);
LVar *lir_buffer(TlSession *s, const char *name, TlDType elem);
/* A C function returning ret from parameters of the dtypes sig[n]. */
LVar *lir_func_var(TlSession *s, const char *name, TlDType ret,
                   const TlDType *sig, int n);

/* An integer or bool constant; v is kept as given (lir_verify checks
 * that it fits dt). */
LExpr *lir_int(TlSession *s, TlDType dt, int64_t v);
LExpr *lir_bool(TlSession *s, int v);
/* A float constant; v is rounded to dt. */
LExpr *lir_float(TlSession *s, TlDType dt, double v);
/* The small integer v in type t (any dtype; converted by the
 * language's casts), as a broadcast when t is a vector. */
LExpr *lir_const(TlSession *s, LType t, int64_t v);
LExpr *lir_ref(TlSession *s, LVar *v);
LExpr *lir_load(TlSession *s, LVar *buf, LExpr *const *idx, int n);
LExpr *lir_binary(TlSession *s, LOp op, LExpr *a, LExpr *b);
LExpr *lir_unary(TlSession *s, LOp op, LExpr *a);
LExpr *lir_select(TlSession *s, LExpr *cond, LExpr *a, LExpr *b);
LExpr *lir_cast(TlSession *s, TlDType dt, LExpr *a);
LExpr *lir_call(TlSession *s, LCall fn, LExpr *const *args, int n);
/* A call of the C function f (an LV_FUNC) on scalars or, lane by lane,
 * on vectors of the same lanes; the result has f's dtype. */
LExpr *lir_call_func(TlSession *s, LVar *f, LExpr *const *args, int n);
/* A call like e (the same function or LV_FUNC) on other arguments. */
LExpr *lir_call_like(TlSession *s, const LExpr *e, LExpr *const *args);
LExpr *lir_ramp(TlSession *s, LExpr *base, LExpr *stride, int lanes);
LExpr *lir_broadcast(TlSession *s, LExpr *a, int lanes);

/* width is used by LP_VECTORIZED, level by LP_DISTRIBUTED. */
LStmt *lir_for(TlSession *s, LLoopKind kind, int width, const char *level,
               LVar *var, LExpr *lo, LExpr *hi, LStmt *body);
LStmt *lir_let(TlSession *s, LVar *var, LExpr *value);
LStmt *lir_store(TlSession *s, LVar *buf, LExpr *const *idx, int n,
                 LExpr *value);
LStmt *lir_alloc(TlSession *s, LVar *buf, LMemKind mem,
                 LExpr *const *extents, int n);
/* orelse may be NULL (no else). */
LStmt *lir_if(TlSession *s, LExpr *cond, LStmt *then, LStmt *orelse);
/* A block of n statements; a single statement is returned as it is,
 * so blocks never hold exactly one item. */
LStmt *lir_block(TlSession *s, LStmt *const *items, int n);
/* The empty block, the statement that does nothing. */
LStmt *lir_nop(TlSession *s);
int lir_is_nop(const LStmt *st);

LFunc *lir_func(TlSession *s, const char *name, const LParam *params,
                int n, LStmt *body);

/* Structural equality: same shape, kinds, types and constants (floats
 * by bits, any NaN equal to any NaN), variables matched by name, kind
 * and type. */
int lir_expr_equal(const LExpr *a, const LExpr *b);
int lir_stmt_equal(const LStmt *a, const LStmt *b);
/* f with the body b: f itself when b is f's body, so that a pass
 * that changed nothing hands the same function on. */
LFunc *lir_func_with_body(TlSession *s, LFunc *f, LStmt *b);
int lir_func_equal(const LFunc *a, const LFunc *b);

/* --- text form (codegen/lir_print.c, codegen/lir_parse.c) ---------- */

/* Append the text form, with minimal parentheses.  A statement is
 * printed at indent levels of two spaces, each line ending in '\n'. */
void lir_print_expr(TlBuf *out, const LExpr *e);
void lir_print_stmt(TlBuf *out, const LStmt *st, int indent);
void lir_print_func(TlBuf *out, const LFunc *f);

/* Reads one function in the text form.  On a syntax error, an unknown
 * name or a literal out of range, returns NULL after appending one
 * line "NAME:LINE:COL: message\n" to err (NAME is `name`, the source's
 * name for messages).  Types are not checked: run lir_verify.  Never
 * aborts on bad input. */
LFunc *lir_parse(TlSession *s, const char *name, const char *text,
                 size_t len, TlBuf *err);

/* --- checks (codegen/lir_verify.c) --------------------------------- */

/* Checks that f is well formed: every name defined before use and
 * never redefined while in scope, values and buffers used as such,
 * operand types that agree (same dtype and lanes; conditions bool;
 * indices and loop bounds integers), vector widths that match, index
 * counts that match the buffer's dimensions, constants that fit their
 * dtype, each node's type equal to what its operands give, names the
 * text form can write.  Appends one line per problem to err (when not
 * NULL), naming the node ("... in 'A[i] = x + 1.5'"), and returns the
 * number of problems (0: well formed). */
int lir_verify(const LFunc *f, TlBuf *err);

/* --- rewriting (codegen/lir_mutate.c) ------------------------------ */

/* A rewriter: one optional callback per node kind.  lir_mutate_*
 * calls the node's callback, or the default when there is none; the
 * default (lir_mutate_*_children) rewrites the children and rebuilds
 * the node only when one of them changed, so an unchanged tree comes
 * back as the same pointer.  Callbacks call the defaults themselves
 * to recurse.  A statement callback may return lir_nop() to delete a
 * statement; in a block, an item that became a no-op is dropped, and
 * so is one that became a let or an alloc (it came from a scope that
 * ended there, so nothing can use it, and keeping it would widen its
 * scope over the items after it). */
typedef struct LMutator LMutator;
struct LMutator {
    TlSession *s;
    void *ctx;
    LExpr *(*expr[LE__COUNT])(LMutator *m, LExpr *e);
    LStmt *(*stmt[LS__COUNT])(LMutator *m, LStmt *st);
};

LExpr *lir_mutate_expr(LMutator *m, LExpr *e);
LStmt *lir_mutate_stmt(LMutator *m, LStmt *st);
LExpr *lir_mutate_expr_children(LMutator *m, LExpr *e);
LStmt *lir_mutate_stmt_children(LMutator *m, LStmt *st);
/* f with its body rewritten by m: f itself when nothing changed. */
LFunc *lir_mutate_func(LMutator *m, LFunc *f);

/* A read-only walk in pre-order: fn returns 1 to visit the node's
 * children, 0 to skip them.  Either callback may be NULL. */
typedef struct LVisitor LVisitor;
struct LVisitor {
    void *ctx;
    int (*expr)(LVisitor *v, const LExpr *e);
    int (*stmt)(LVisitor *v, const LStmt *st);
};
void lir_visit_expr(LVisitor *v, const LExpr *e);
void lir_visit_stmt(LVisitor *v, const LStmt *st);

/* The number of references to var (as a value or as a buffer). */
int lir_count_uses(const LStmt *st, const LVar *var);
int lir_count_uses_expr(const LExpr *e, const LVar *var);
/* Replaces every reference to the value var by e (same pointer when
 * var does not occur). */
LExpr *lir_substitute_expr(TlSession *s, LExpr *in, const LVar *var,
                           LExpr *e);
LStmt *lir_substitute(TlSession *s, LStmt *in, const LVar *var, LExpr *e);

/* ====================================================================
 * Passes over the loop IR, one file each (STYLE.md rule 26)
 * ==================================================================== */

/* pass_simplify.c.  Simplifies st without changing its meaning:
 * folds constants with the language's arithmetic (wraparound, floor
 * division and modulo, division by zero giving 0, float operations
 * rounded to their dtype; math functions other than abs, floor, ceil
 * and round are not folded), applies integer identities (x + 0, x * 1,
 * x * 0, x - x, reassociation of constants, (x * c + y) / c = x + y / c
 * and friends when the interval of values proves no wraparound) and
 * only the float identities that hold for every value (x * 1, x - 0,
 * x + -0.0, x / 1; never x * 0 or x + 0.0, never reassociation),
 * decides comparisons, min and max from the value ranges of loop
 * variables, removes loops with no iteration, replaces loops with one
 * iteration by their body, removes `if` on constant conditions, unused
 * lets and allocations (and allocations only stored into, with their
 * stores), substitutes lets of constants and variables
 * everywhere and lets used once (outside any loop, without loads) at
 * their use.  Requires st to pass lir_verify (within its function);
 * guarantees the result does too, and returns st itself when nothing
 * changed.  The result is a fixed point: simplifying it again returns
 * it unchanged. */
LStmt *lir_simplify(TlSession *s, LStmt *st);
/* The same rules on one expression, with no facts about variables
 * beyond their dtypes (for other passes and tests). */
LExpr *lir_simplify_expr(TlSession *s, LExpr *e);

/* pass_partition.c.  Splits loops whose guard (an `if` around all of
 * the body, through inner loops and lets) holds for every inner
 * iteration over a middle range of the variable into head, main and
 * tail loops; the main loop runs without those guard terms. */
LFunc *lir_partition_loops(TlSession *s, LFunc *f);

/* pass_bounds.c.  Shrinks each loop to the range its guard allows
 * where the guard's terms bound its variable independently of inner
 * loops, and drops those terms. */
LFunc *lir_infer_bounds(TlSession *s, LFunc *f);
/* The same before partitioning, for serial loops around unrolled or
 * vectorized loops only (a register tile's reduction loop). */
LFunc *lir_bound_tile_loops(TlSession *s, LFunc *f);

/* pass_unroll.c.  Replaces each `unrolled` loop with constant bounds
 * (at most 64 iterations) by copies of its body, one per value. */
LFunc *lir_unroll(TlSession *s, LFunc *f);

/* pass_stream.c.  In a function with an output marked `stream`, a loop
 * that writes one contiguous run of it exactly once in whole 16-lane
 * f32 vectors (constant loops, no `if`, no read of the output) writes
 * the run to a stack buffer instead, then stores it with one store of
 * the run's length, which the C backend emits as streaming stores. */
LFunc *lir_stream_rows(TlSession *s, LFunc *f);

/* pass_flatten.c.  Makes buffers with dimensions (parameters and
 * allocations) flat, each access one row-major index. */
LFunc *lir_flatten(TlSession *s, LFunc *f);

/* pass_fuse.c.  Fuses a serial loop that stores into a buffer with a
 * later serial loop over the same range in its block that reads it,
 * where no iteration then reads what a later one of the first stores
 * (moving what stands between them before the first). */
LFunc *lir_fuse_loops(TlSession *s, LFunc *f);

/* pass_hoist.c.  Computes loop-invariant arithmetic (without loads)
 * once before its loop, in lets of fresh names. */
LFunc *lir_hoist(TlSession *s, LFunc *f);

/* pipeline.c.  A pass by name: run takes a well-formed function and
 * returns one (f itself when nothing changed); in_pipeline marks the
 * passes lir_pipeline runs. */
typedef struct LPass {
    const char *name;
    LFunc *(*run)(TlSession *s, LFunc *f);
    int in_pipeline;
} LPass;
/* The pass called name, or NULL. */
const LPass *lir_pass_find(const char *name);
/* The passes of the pipeline in order, each on the last one's result
 * (printing the IR after each to stderr when TDSL_DEBUG contains
 * "lower"). */
LFunc *lir_pipeline(TlSession *s, LFunc *f);
/* The pipeline up to (not including) the first pass named STOP: the
 * accelerator matches the loop nests itself, before hoisting turns
 * them into lets around loops. */
LFunc *lir_pipeline_before(TlSession *s, LFunc *f, const char *stop);
/* pass_vectorize.c.  Replaces each `vectorized(W)` loop of W
 * iterations (W a power of two, 2 to 64) by vector code: its variable
 * becomes ramp(lo, 1, W), what depends on it W-lane expressions,
 * stores vector stores in lane order.  A guard on the variable (a
 * split's tail) becomes one check before the vector code that it holds
 * on every lane, with the loop run serially when it does not.  Loops
 * it cannot vectorize without changing a result (a dependence between
 * lanes, an allocation, bounds that depend on the variable) stay as
 * they are.  Requires st to pass lir_verify; the result does too. */
LStmt *lir_vectorize(TlSession *s, LStmt *st);
/* The body of a `vectorized(16)` loop whose trip count is computed (the
 * lanes of a split's tail, at most 16) as one vector for the C
 * backend's masked form (codegen/c/emit_vmask.c): the loop's variable
 * is ramp(lo, 1, 16), and its vector loads and stores are plain: the
 * caller runs every one under the mask of the lanes below hi - lo (one
 * bitmask, one instruction each), so it moves only the lanes the loop
 * runs.  Every vector access is contiguous in 4-byte elements, and the
 * lanes past the count can neither trap nor call out.  NULL when that
 * cannot be said (the loop is then left as it is).  lvar and lval are
 * the scalar lets in scope (nlet, the innermost last): what they say of
 * an index's alignment keeps an access contiguous. */
LStmt *lir_vectorize_masked(TlSession *s, const LStmt *st,
                            const LVar *const *lvar, LExpr *const *lval,
                            int nlet);

/* pass_accum.c.  A serial loop around a nest of unrolled loops with
 * one vector store X[idx] = f(X[idx], ...), idx independent of the
 * loop (a register tile of a reduction), keeps the tile in a register
 * allocation: loaded before the loop, updated in it, stored after,
 * under a check that the tile's elements are distinct (the loop as it
 * was otherwise).  Same results bit for bit.  Requires st to pass
 * lir_verify; the result does too. */
LStmt *lir_promote_accumulators(TlSession *s, const LFunc *f);

/* end of passes section */

/* ====================================================================
 * Back ends (codegen/c/)
 * ==================================================================== */

/* Registers the compiled targets ("cpu") with the interpreter's target
 * registry (itp_register_target); call once at program start. */
void cgc_register_targets(void);
/* Registers the `accel` target (codegen/acc/target.c): kernels run on
 * the accelerator simulator, machine TDSL_MACHINE or `test`. */
void acc_cg_register_target(void);
/* The machine the accel target uses from now on: a built-in name or a
 * machine file (the command line's --machine); NULL: TDSL_MACHINE, else
 * `test`. */
void acc_cg_set_machine(const char *spec);
/* The accel program (TAM assembly, docs/accel-asm.md) that a call of k
 * with inputs of the dtypes and shapes of in[0 .. k->ninputs) runs
 * (their values are not read), for machine m (NULL: the target's
 * machine), appended to out.  0; -1 after reporting at loc why it
 * cannot be compiled; -2 when the inputs do not fit k's types. */
struct AccMachine;
int acc_cg_assembly(TlSession *s, TlKernelInfo *k,
                    const struct AccMachine *m, TlTensor *const *in,
                    TlBuf *out, TlLoc loc);

/* --- for tools: tdsl lower, tdsl compile, the REPL ------------------
 * k must be checked without errors and not generic (an instance is
 * fine).  Problems are reported through the session. */

/* aot.c: k lowered for the cpu with its cpu schedule, after the pass
 * pipeline; NULL after reporting why it cannot be compiled. */
LFunc *cgc_lower(TlSession *s, TlKernelInfo *k);
/* The C symbol of k's ahead-of-time entry: "tdsl_" and its name, with
 * what is not a C identifier character made '_' (in s->arena). */
const char *cgc_aot_symbol(TlSession *s, const TlKernelInfo *k);
/* Appends a C file defining `int SYM(...)`, the calling convention of
 * docs/c-abi.md, or the header declaring it.  0, or -1 after
 * reporting what an ahead-of-time kernel cannot do. */
int cgc_aot_source(TlSession *s, TlKernelInfo *k, const char *sym,
                   TlBuf *out);
int cgc_aot_header(TlSession *s, TlKernelInfo *k, const char *sym,
                   TlBuf *out);

/* jit.c: the kernel cache.  cgc_cache_enable(0) (`--no-cache`) keeps
 * every compilation out of it, for the whole process. */
void cgc_cache_enable(int on);
/* The cache folder: $XDG_CACHE_HOME/tdsl, else ~/.cache/tdsl. */
const char *cgc_cache_dir(TlSession *s);
/* Counts the compiled kernels in the cache and the bytes of its files,
 * removing those files when clear is set.  0, or -1 (errno) when the
 * folder cannot be read or a file cannot be removed; a missing folder
 * is an empty cache. */
int cgc_cache_scan(TlSession *s, int clear, long *nkernels,
                   long long *bytes);
/* Compiles C source src (through the cache) into a shared object at
 * path, written atomically.  0, or -1 after reporting. */
int cgc_build_shared(TlSession *s, const char *src, const char *path);

#endif
