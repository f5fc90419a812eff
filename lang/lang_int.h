/*
 * lang_int.h - declarations shared between the files of lang/ and
 * nowhere else, grouped by the file that defines them.  Everything
 * here is hidden from the shared library (TL_INTERNAL).
 *
 * The checker's files and their order of work, per kernel:
 *   shape.c     parameter shapes, size variables, kernel calls
 *   resolve.c   scopes and name resolution of the bodies
 *   check.c     stages, dependency order, cycles, unused stages
 *   typecheck.c dtypes, promotion, implicit casts
 *   bounds.c    reduction ranges, domains, out-of-bounds reads
 * and then schedcheck.c for schedules; checktop.c does imports and
 * top-level statements; checkdump.c prints the result.  A generic
 * kernel (checkinst.c) goes through steps up to the dependency order
 * only; each call makes an instance, an ordinary kernel checked in
 * full.
 */
#ifndef TL_LANG_INT_H
#define TL_LANG_INT_H

#include "lang/lang.h"

/* ====================================================================
 * symexpr.c - symbolic integer expressions (the normal form is in
 * lang.h).  All constructors allocate in arena a, return NULL for
 * "unknown" (an operand was NULL, or int64 overflow) and never modify
 * their operands.
 * ==================================================================== */

TL_INTERNAL TlSymExpr *sym_const(TlArena *a, int64_t c);
TL_INTERNAL TlSymExpr *sym_var(TlArena *a, TlVar *v);
TL_INTERNAL TlSymExpr *sym_add(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
TL_INTERNAL TlSymExpr *sym_sub(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
TL_INTERNAL TlSymExpr *sym_scale(TlArena *a, const TlSymExpr *x,
                                 int64_t k);
TL_INTERNAL TlSymExpr *sym_addc(TlArena *a, const TlSymExpr *x,
                                int64_t c);
/* x*y: exact when either is constant, else an opaque product. */
TL_INTERNAL TlSymExpr *sym_mul(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
/* Floor division and modulo (sign of the divisor), folded when the
 * divisor is a constant that allows it; NULL for a zero divisor. */
TL_INTERNAL TlSymExpr *sym_div(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
TL_INTERNAL TlSymExpr *sym_mod(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
/* Exact when the order of x and y can be proven, else opaque. */
TL_INTERNAL TlSymExpr *sym_min(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
TL_INTERNAL TlSymExpr *sym_max(TlArena *a, const TlSymExpr *x,
                               const TlSymExpr *y);
/* The 0/1 values of x < y and x == y: constants when provable, else
 * opaque. */
TL_INTERNAL TlSymExpr *sym_lt(TlArena *a, const TlSymExpr *x,
                              const TlSymExpr *y);
TL_INTERNAL TlSymExpr *sym_eq(TlArena *a, const TlSymExpr *x,
                              const TlSymExpr *y);
/* x where the 0/1 condition c is 1, else y; folded when c is known or
 * x and y are equal. */
TL_INTERNAL TlSymExpr *sym_sel(TlArena *a, const TlSymExpr *c,
                               const TlSymExpr *x, const TlSymExpr *y);

/* Total order (0: structurally equal); NULL sorts first. */
TL_INTERNAL int sym_cmp(const TlSymExpr *x, const TlSymExpr *y);
/* Both known and structurally equal. */
TL_INTERNAL int sym_equal(const TlSymExpr *x, const TlSymExpr *y);
/* Sound proofs (0 = not proven, or unknown operands).  They use that
 * size variables are >= 0 and split min/max terms. */
TL_INTERNAL int sym_prove_nonneg(const TlSymExpr *d);
TL_INTERNAL int sym_prove_le(const TlSymExpr *x, const TlSymExpr *y);
TL_INTERNAL int sym_prove_lt(const TlSymExpr *x, const TlSymExpr *y);
TL_INTERNAL int sym_prove_eq(const TlSymExpr *x, const TlSymExpr *y);
TL_INTERNAL int sym_prove_ne(const TlSymExpr *x, const TlSymExpr *y);

/* Coefficient of the plain variable v in e (0 if absent). */
TL_INTERNAL int64_t sym_coef(const TlSymExpr *e, const TlVar *v);
/* e without its plain v term. */
TL_INTERNAL TlSymExpr *sym_drop(TlArena *a, const TlSymExpr *e,
                                const TlVar *v);
typedef int (*SymVarPred)(void *ctx, const TlVar *v);
/* Does any variable of e (also inside opaque atoms) satisfy pred? */
TL_INTERNAL int sym_mentions(const TlSymExpr *e, SymVarPred pred,
                             void *ctx);
typedef TlSymExpr *(*SymVarMap)(void *ctx, TlVar *v);
/* e with every variable v replaced by map(ctx, v) (which may return
 * sym_var(v) to keep it, or NULL for unknown). */
TL_INTERNAL TlSymExpr *sym_subst(TlArena *a, const TlSymExpr *e,
                                 SymVarMap map, void *ctx);
/* tl_sym_print into an arena string. */
TL_INTERNAL char *sym_str(TlArena *a, const TlSymExpr *e);

/* ====================================================================
 * Checker state (check.c owns it)
 * ==================================================================== */

/* One name in a scope. */
typedef struct ScopeEnt {
    const char *name;
    void *sym;              /* a TlRefKind-headed structure */
    TlLoc loc;              /* definition, for "defined here" notes */
    const char *module;     /* imported from (NULL: local) */
    const char *other;      /* a second module defining it: ambiguous */
    int pos;                /* top-level lets: item index of the let */
} ScopeEnt;

/* A hash table of names with a parent. */
typedef struct Scope {
    struct Scope *up;
    ScopeEnt **slot;
    int cap, n;
    const char *what;       /* "kernel 'f'", for messages */
} Scope;

/* The checker's data about one tensor of a kernel, beside TlFunc. */
typedef struct FuncX {
    TlVec reads_in;         /* TlRead* made by its definition */
    TlVec reads_of;         /* TlRead* reading it */
    TlVec call_uses;        /* TlCall* taking it whole */
    TlVec deps;             /* TlFunc* it needs (reads, call inputs) */
    TlVec dep_locs;         /* TlLoc* of each dependency */
    int mark;               /* dependency sort: 0 new, 1 open, 2 done */
    int reachable;          /* needed by an output */
    Scope *sc;              /* its index variables (stages) */
    int whole;              /* a whole-tensor binding: 1 pending,
                             * 2 ranked */
    TlVec leaves;           /* whole: the TlRead-to-be EX_INDEX nodes */
    int gpending;           /* a result of a generic call whose rank
                             * waits for its arguments' ranks */
    int typed;              /* its definition has been type-checked */
    /* Natural domain (what its own definition's reads imply), per axis,
     * NULL when unknown; computed producers-first. */
    TlSymExpr **nat_lo, **nat_ext;
    /* The reads that set the inferred domain's ends (for notes). */
    TlRead **lo_by, **hi_by;
} FuncX;

/* A kernel being checked. */
typedef struct Kern {
    struct Chk *c;
    TlKernelInfo *k;
    Scope *scope;           /* params, sizes, scalars, outputs, stages */
    TlVec funcs;            /* stages, outputs and call results, in
                             * source order */
    TlVec calls;            /* TlCall*, source order */
    TlVec consts;           /* FN_CONST funcs read */
    TlVec order;            /* dependency order (check.c) */
    int state;              /* 0 new, 1 checking, 2 done */
    int nerr0;              /* session errors when it started */
    /* Generic kernels (checkinst.c). */
    int generic;            /* checked as a generic kernel */
    int instance;           /* an instance (its warnings are the
                             * generic kernel's) */
    Scope *def_top;         /* generic: the scope of its program, where
                             * its instances resolve names */
    TlLoc made_at;          /* instance: the call that first made it */
    TlVec bad_calls;        /* TlCall* whose binding failed (reported) */
    TlVec bad_scheds;       /* generic: TlSchedInfo* with errors */
} Kern;

/* One tl_check call, shared with the checks of imported modules. */
typedef struct Chk {
    TlSession *s;
    TlArena *a;
    TlProgram *prog;
    Scope *top;             /* the program's items and imports */
    const char *module;     /* import path of prog, NULL for the main */
    int *next_id;           /* TlVar ids (shared with imports) */
    TlVec *stack;           /* TlProgram* being checked (import cycles) */
    int item_pos;           /* index of the top-level item being checked */
    int allow_redefine;     /* REPL: a let may be defined again */
    TlLet *cur_let;         /* the let whose value is being checked */
    Scope *local;           /* top-level reduction variables, or NULL */
    Scope *prior;           /* TlCheckOpts.prior's names (checkprior.c),
                             * the parent of the main program's scope */
} Chk;

/* ====================================================================
 * check.c - the entry point and the per-kernel driver
 * ==================================================================== */

/* The Kern of a kernel info (created on first use); checks the kernel
 * if it has not been checked yet.  NULL when it is being checked
 * (recursion), which the caller reports. */
TL_INTERNAL Kern *chk_kernel(Chk *c, TlKernelInfo *k);
/* Private data of a kernel tensor (created on first use). */
TL_INTERNAL FuncX *chk_fx(Chk *c, TlFunc *f);
/* A new variable with a fresh id. */
TL_INTERNAL TlVar *chk_var(Chk *c, TlVarKind kind, const char *name,
                           TlLoc loc);
/* A new tensor of rank `rank` with axes allocated. */
TL_INTERNAL TlFunc *chk_func(Chk *c, TlFuncKind kind, const char *name,
                             TlLoc loc, int rank);
/* Checks a program with c's session (used for imports too). */
TL_INTERNAL int chk_program(Chk *c, TlProgram *prog);
/* What chk_existing returns after reporting a name that cannot be
 * defined (again). */
TL_INTERNAL extern TlFunc chk_failed_def;
/* The output that a definition of name in kc's body defines, NULL for
 * a new name, or &chk_failed_def after an error. */
TL_INTERNAL TlFunc *chk_existing(Kern *kc, const char *name, TlLoc loc);
/* The kernel that call expression e calls, or NULL (reported when
 * report is set; bindtext names the binding in messages). */
TL_INTERNAL TlKernelInfo *chk_callee(Kern *kc, TlExpr *e,
                                     const char *bindtext, int report);
/* A new call record of kernel k at e inside kc, named name. */
TL_INTERNAL TlCall *chk_new_call(Kern *kc, TlKernelInfo *k, TlExpr *e,
                                 const char *name);
/* A name for an anonymous call, unique in kc ("conv2d", "conv2d_2"). */
TL_INTERNAL const char *chk_nested_name(Kern *kc, const char *base);
/* Resolves the arguments of call (nested calls included). */
TL_INTERNAL void chk_resolve_call(Kern *kc, TlCall *call);

/* ====================================================================
 * checkwhole.c - whole-tensor bindings (`t = A * 2.0 + relu(B)`)
 * ==================================================================== */

/* Is binding st a whole-tensor expression rather than a call? */
TL_INTERNAL int chk_whole_is(Kern *kc, TlStmt *st);
/* Defines its name (rank still unknown). */
TL_INTERNAL void chk_whole_define(Kern *kc, TlStmt *st);
/* Gives every whole-tensor binding its rank, index variables and an
 * element-wise value (after all definitions are collected). */
TL_INTERNAL void chk_whole_ranks(Kern *kc);
/* After typing: the operands' shapes must agree; sets the domain. */
TL_INTERNAL void chk_whole_shapes(Kern *kc, TlFunc *f);

/* ====================================================================
 * checktop.c - imports and top-level statements
 * ==================================================================== */

/* Loads and checks `import` item it, adding its items to c->top. */
TL_INTERNAL void chk_import(Chk *c, TlItem *it);
/* Checks top-level statement item it (index pos in the program). */
TL_INTERNAL void chk_top_stmt(Chk *c, TlItem *it);
/* Makes sure the let l has been checked (it may be used by a kernel
 * before its statement is reached in order). */
TL_INTERNAL void chk_let(Chk *c, TlLet *l);

/* ====================================================================
 * checklit.c - tensor literals of a top-level `let` (SPEC 11.1)
 * ==================================================================== */

/* Is *slot (of `let name: dt[shape] = ...`, its type written `decl`)
 * a tensor literal: a list, or a string for a str scalar?  0 when it
 * is not (the caller checks it as any value), 1 when it is one that
 * fits the type (its numbers retyped to dt), -1 after reporting why it
 * does not (LET_LITERAL). */
TL_INTERNAL int chk_let_literal(Chk *c, const char *name, TlExpr **slot,
                                TlDType dt, int rank, TlSymExpr **shape,
                                const char *decl);

/* ====================================================================
 * checkprior.c - names of earlier programs (TlCheckOpts.prior)
 * ==================================================================== */

/* The scopes of opts->prior's names, oldest outermost; NULL if none. */
TL_INTERNAL Scope *chk_prior_scope(Chk *c, const TlCheckOpts *opts);
/* For a let l used before its definition in the program: the earlier
 * program's let of that name (`let a = a + 1`), else l. */
TL_INTERNAL TlLet *chk_prior_let(Chk *c, TlLet *l);

/* ====================================================================
 * resolve.c - scopes and name resolution
 * ==================================================================== */

TL_INTERNAL Scope *rsv_scope(Chk *c, Scope *up, const char *what);
/* Adds name; returns the existing entry of this very scope instead
 * (adding nothing) when the name is taken there. */
TL_INTERNAL ScopeEnt *rsv_add(Chk *c, Scope *sc, const char *name,
                              void *sym, TlLoc loc);
/* Entry of name in sc only / in sc or its parents. */
TL_INTERNAL ScopeEnt *rsv_here(Scope *sc, const char *name);
TL_INTERNAL ScopeEnt *rsv_find(Scope *sc, const char *name);
/* The builtin called name, or NULL. */
TL_INTERNAL const TlBuiltin *rsv_builtin(const char *name);
/* Adds "hint: did you mean 'X'?" for the visible name closest to
 * name, if one is close enough.  filter (may be NULL) picks candidate
 * kinds. */
TL_INTERNAL void rsv_suggest(Chk *c, Scope *sc, const char *name,
                             int (*filter)(const void *sym));
/* The name a dotted EX_NAME/EX_MEMBER chain spells ("std.nn.relu"),
 * in the arena, or NULL if e is something else. */
TL_INTERNAL const char *rsv_dotted(Chk *c, const TlExpr *e);
/* "size variable", "stage", "kernel", ... for messages. */
TL_INTERNAL const char *rsv_what(const void *sym);

/* Resolves the names of a stage's right side (in kernel kc, for
 * stage f, whose index variables are in sc).  Sets expr->sym, makes
 * TlRead/TlReduce records and the dependency edges of f. */
TL_INTERNAL void rsv_stage(Kern *kc, TlFunc *f, Scope *sc, TlExpr *e);
/* Resolves an expression over scalar parameters, sizes and literals
 * (scalar arguments of calls, defaults); what names the context for
 * messages. */
TL_INTERNAL void rsv_scalar_expr(Kern *kc, TlExpr *e, const char *what);
/* Records that f needs tensor g (a read or a call input). */
TL_INTERNAL void rsv_dep(Kern *kc, TlFunc *f, TlFunc *g, TlLoc loc);

/* ====================================================================
 * typecheck.c - dtypes
 * ==================================================================== */

/* The promoted type of two non-weak operand types. */
TL_INTERNAL TlDType ty_promote(TlDType a, TlDType b);
/* Is e a weak (literal-only) expression? */
TL_INTERNAL int ty_weak(const TlExpr *e);
TL_INTERNAL TlDType ty_int_literal(const TlExpr *e);
/* Types a resolved kernel expression in place; returns its dtype or
 * DT_NONE after an error (reported once, at its cause). */
TL_INTERNAL TlDType ty_expr(Kern *kc, TlExpr **slot);
TL_INTERNAL void ty_stage_ranges(Kern *kc, TlStmt *st);
/* Converts *slot to dtype t: retypes a weak subtree, or inserts an
 * implicit cast.  Reports a literal that does not fit. */
TL_INTERNAL void ty_coerce(Chk *c, TlExpr **slot, TlDType t);
/* Checks that *slot (typed) can be given to something of type want:
 * equal, or weak (then retyped).  Returns 0 after reporting nothing;
 * the caller reports with its own message. */
TL_INTERNAL int ty_fits(Chk *c, TlExpr **slot, TlDType want);
/* The common type of n typed operands (weak ones follow the others);
 * converts each to it.  DT_NONE if one of them failed. */
TL_INTERNAL TlDType ty_unify(Chk *c, TlExpr **slots[], int n);
/* The type of a call of builtin b whose arguments are typed already
 * (select ... round); reports misuse. */
TL_INTERNAL TlDType ty_builtin(Chk *c, TlExpr *e, const TlBuiltin *b);
/* Checks the scalar-parameter defaults of a kernel. */
TL_INTERNAL void ty_defaults(Kern *kc);

/* ====================================================================
 * shape.c - shapes, size variables, kernel calls
 * ==================================================================== */

/* Parameters, sizes, scalars and outputs of kernel kc. */
TL_INTERNAL void shp_header(Kern *kc);
/* An integer expression over sizes, scalar parameters and literals
 * (already resolved) as a symbol; NULL if it is not one.  With
 * loopvars, index and reduction variables may appear too. */
TL_INTERNAL TlSymExpr *shp_sym(Chk *c, const TlExpr *e, int loopvars);

/* What a call argument is, as far as shapes go. */
typedef struct ShpArg {
    TlExpr *expr;           /* as written (after named-arg matching) */
    TlDType dtype;          /* DT_NONE: unknown or erroneous */
    int rank;               /* -1 unknown */
    TlSymExpr **shape;      /* [rank] or NULL; entries may be NULL */
    const char *name;       /* for messages: "'A'" or "argument 1" */
    TlFunc *func;           /* inside kernels */
} ShpArg;

/* Matches the arguments of call expression call (EX_CALL) to the
 * parameters of callee: positional, then named.  Fills ordered[]
 * (ninputs + nscalars; NULL = default) and returns 0, or reports and
 * returns -1. */
TL_INTERNAL int shp_match_args(Chk *c, TlKernelInfo *callee, TlExpr *call,
                               TlExpr **ordered);
/* Checks tensor args against callee's parameters (dtype, rank, sizes),
 * binds callee sizes into call->sizes and computes the results'
 * shapes into call->results (which must exist, with rank set).
 * scal[i] are the scalar arguments' symbols (NULL unknown). */
TL_INTERNAL void shp_call(Chk *c, TlCall *call, ShpArg *targs);

/* ====================================================================
 * bounds.c - ranges, domains, out-of-bounds reads
 * ==================================================================== */

/* Reduction ranges of f's reductions and f's natural domain; call in
 * dependency order (producers first). */
TL_INTERNAL void bnd_forward(Kern *kc, TlFunc *f);
/* Domains of all reachable tensors (consumers first) and the index
 * ranges of every read, then the out-of-bounds checks. */
TL_INTERNAL void bnd_backward(Kern *kc);

/* ====================================================================
 * checkinst.c - generic kernels: dtype variables, packs, bindings and
 * instances (SPEC 6.7)
 * ==================================================================== */

/* What a call's tensor argument is, for binding a generic kernel. */
typedef struct GenArg {
    TlDType dtype;          /* DT_NONE: unknown */
    int rank;               /* -1: unknown */
    TlLoc loc;
} GenArg;

/* Has the kernel item dtype variables or a shape pack? */
TL_INTERNAL int gen_is_generic(const TlItem *it);
/* Starts checking generic kernel kc: its dtype variables (before
 * shp_header, which adds its packs). */
TL_INTERNAL void gen_header(Kern *kc);
/* The dtype of a parameter's type: the dtype written, or DT_NONE for a
 * dtype variable of kc (which f, a tensor parameter or NULL, binds);
 * reports a name that is neither. */
TL_INTERNAL TlDType gen_param_dtype(Kern *kc, TlParam *p, TlFunc *f);
/* Registers shape pack `..name` (e) of input f (NULL: an output). */
TL_INTERNAL void gen_shape_pack(Kern *kc, TlExpr *e, TlFunc *f);
/* The number of index packs on stage st's left side (f: the output it
 * defines, or NULL): 0 or 1, or -1 after reporting two, or one outside
 * a generic kernel (the stage is then defined but not checked). */
TL_INTERNAL int gen_stage_packs(Kern *kc, TlStmt *st, TlFunc *f);
/* Reports `..x` of an index list or a left side that is no index pack
 * (sym: what x names, NULL unknown). */
TL_INTERNAL void gen_not_index_pack(Chk *c, TlExpr *e, void *sym);
/* Reports a pack used by its bare name (e names v). */
TL_INTERNAL void gen_pack_bare(Chk *c, TlLoc loc, const TlVar *v);
/* A generic kernel's header and body are checked: publishes what a
 * generic kernel shows (TlKernelInfo.generic). */
TL_INTERNAL void gen_finish(Kern *kc);

/* Binds g's dtype variables (tb[g->ntvars]) and packs (pb[g->npacks])
 * for tensor arguments a[g->ninputs] and explicit dtypes ex (NULL, or
 * [g->ntvars] with DT_NONE where not given).  Returns 0, or -1 after
 * reporting at the arguments (at `where` what no argument gives); an
 * unknown dtype or rank that matters is GENERIC_ARG_UNKNOWN, or quiet
 * when unknown_ok (it follows an error). */
TL_INTERNAL int gen_bind(Chk *c, TlKernelInfo *g, const GenArg *a,
                         const TlDType *ex, TlLoc where, int unknown_ok,
                         TlDType *tb, int *pb);
/* The explicit dtype arguments b (EX_LIST or NULL) of a call of g as
 * ex[g->ntvars] (DT_NONE: not given, or a dtype variable of the
 * calling generic kernel, found in sc).  Returns 0, or -1 after
 * reporting (NOT_GENERIC, DTYPE_ARG_COUNT, UNKNOWN_DTYPE). */
TL_INTERNAL int gen_explicit(Chk *c, TlKernelInfo *g, const TlExpr *b,
                             Scope *sc, TlDType *ex);
/* The instance of g for a binding, made and checked on first use (its
 * errors are followed by a note at `where`); NULL after errors. */
TL_INTERNAL TlKernelInfo *gen_instance(Chk *c, TlKernelInfo *g,
                                       const TlDType *tb, const int *pb,
                                       TlLoc where);
/* checkexpand.c: the text of g's instance called name for a binding
 * (index packs expanded); NULL after reporting pack errors. */
TL_INTERNAL TlItem *gen_expand(Chk *c, TlKernelInfo *g, const TlDType *tb,
                               const int *pb, const char *name);

/* The tensor arguments of call expression e in g's input order, as
 * far as they can be told without reporting (NULL: not given). */
TL_INTERNAL void gen_tensor_args(TlKernelInfo *g, TlExpr *e, TlExpr **out);
/* The ranks of generic g's outputs for inputs of ranks in[] (all
 * known), into out[]; -1 after reporting (when report is set, at the
 * arguments x[]) a rank too small or packs of different lengths. */
TL_INTERNAL int gen_out_ranks(Chk *c, TlKernelInfo *g, const int *in,
                              TlExpr *const *x, int report, int *out);
/* Gives f (made with rank -1) its rank. */
TL_INTERNAL void gen_set_rank(Chk *c, TlFunc *f, int rank);
/* A nested generic call's result rank, from its resolved inputs. */
TL_INTERNAL void gen_nested_rank(Kern *kc, TlCall *call);
/* Checks the dtype arguments `f<f16>(...)` of call (in kernel kc);
 * marks the call bad after reporting. */
TL_INTERNAL void gen_check_targs(Kern *kc, TlCall *call);
/* Step 5 of a call of a generic kernel inside kc: binds, instantiates,
 * types the scalar arguments; the instance or NULL (reported, or an
 * error upstream). */
TL_INTERNAL TlKernelInfo *gen_call_instance(Kern *kc, TlCall *call,
                                            const ShpArg *args);
/* A top-level call e of kernel k with tensor arguments args: k, or
 * the instance for a generic k; NULL after an error. */
TL_INTERNAL TlKernelInfo *gen_top_instance(Chk *c, TlKernelInfo *k,
                                           TlExpr *e, const ShpArg *args);
/* A deep copy of a schedule item (each instance checks its own). */
TL_INTERNAL TlItem *gen_copy_item(Chk *c, const TlItem *it);
/* A schedule of generic kernel g was checked (bad: with errors, so it
 * is not applied): applies it to the instances made so far. */
TL_INTERNAL void gen_schedule_added(Chk *c, TlKernelInfo *g,
                                    TlSchedInfo *si, int bad);

/* ====================================================================
 * schedcheck.c - schedules
 * ==================================================================== */

TL_INTERNAL void sck_schedule(Chk *c, TlItem *it);
/* Checks a copy of generic schedule gsi against instance inst and adds
 * the result to inst's schedules. */
TL_INTERNAL void sck_instance(Chk *c, const TlSchedInfo *gsi,
                              TlKernelInfo *inst);

#endif
