/*
 * lang.h - the public interface of the language core: sessions, arenas,
 * diagnostics, dtypes, the AST, the printer and the checker.
 *
 * Everything a compilation builds lives in the session's arena and dies
 * with tl_session_reset()/tl_session_free(). The parser (parser/) fills
 * the AST through the ast_ constructors; the checker (check*.c) resolves
 * names, types and shapes and produces the checked pipeline that the
 * interpreter and the compilers share.
 */
#ifndef TL_LANG_H
#define TL_LANG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define TL_INTERNAL __attribute__((visibility("hidden")))
#define TL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TL_NORETURN __attribute__((noreturn))
#else
#define TL_INTERNAL
#define TL_PRINTF(f, a)
#define TL_NORETURN
#endif

/* ====================================================================
 * Memory: one allocation wrapper, and arenas
 * ==================================================================== */

/* malloc/realloc that print "out of memory" and abort instead of
 * returning NULL.  All heap allocation in tdsl goes through these. */
void *tl_xmalloc(size_t n);
void *tl_xrealloc(void *p, size_t n);
void *tl_xcalloc(size_t n, size_t size);
char *tl_xstrdup(const char *s);

/* A bump allocator: memory is freed all at once by arena_free. */
typedef struct TlArenaBlock TlArenaBlock;
typedef struct TlArena {
    TlArenaBlock *head;
    size_t used_total;
} TlArena;

void arena_init(TlArena *a);
void arena_free(TlArena *a);
/* Zeroed, 16-byte aligned memory that lives until arena_free. */
void *arena_alloc(TlArena *a, size_t n);
char *arena_strndup(TlArena *a, const char *s, size_t n);
char *arena_strdup(TlArena *a, const char *s);
char *arena_printf(TlArena *a, const char *fmt, ...) TL_PRINTF(2, 3);

/* Growable array of pointers in an arena.  Growing copies into a new
 * arena block; the old one is left to the arena. */
typedef struct TlVec {
    void **v;
    int n, cap;
} TlVec;
void vec_push(TlArena *a, TlVec *vec, void *item);

/* A growable heap string used by printers (owns its memory). */
typedef struct TlBuf {
    char *s;
    size_t len, cap;
} TlBuf;
void buf_init(TlBuf *b);
void buf_free(TlBuf *b);
void buf_putc(TlBuf *b, char c);
void buf_puts(TlBuf *b, const char *s);
void buf_putn(TlBuf *b, const char *s, size_t n);
void buf_printf(TlBuf *b, const char *fmt, ...) TL_PRINTF(2, 3);
void buf_vprintf(TlBuf *b, const char *fmt, va_list ap);

/* ====================================================================
 * Sources and locations
 * ==================================================================== */

/* A place in a source file.  line and col are 1-based; col counts
 * display columns (bytes for ASCII, one per UTF-8 character).  len is
 * the byte length of the range (0 when unknown). */
typedef struct TlLoc {
    int file;   /* index into the session's sources, -1 if none */
    int line, col;
    int off, len;
} TlLoc;

typedef struct TlSource {
    char *path;       /* as given by the user */
    char *text;       /* owned, NUL-terminated copy */
    size_t len;
} TlSource;

/* ====================================================================
 * Diagnostics
 * ==================================================================== */

typedef enum {
#define X(id, sev, fmt) DIAG_##id,
#include "lang/diag_msgs.h"
#undef X
    DIAG__COUNT
} TlDiagId;

typedef enum { SEV_ERROR, SEV_WARNING, SEV_NOTE } TlSeverity;

/* ====================================================================
 * Session
 * ==================================================================== */

typedef struct TlProgram TlProgram;
typedef struct TlSession TlSession;

/* Loads a module for `import`: returns the parsed program or NULL after
 * reporting a diagnostic at loc.  Set by the parser module so that the
 * checker (which knows nothing of parsing) can follow imports. */
typedef TlProgram *(*TlLoadFn)(TlSession *s, const char *path, TlLoc loc);

struct TlSession {
    TlArena arena;          /* AST, types, shapes, checked pipeline */
    TlSource *src;          /* sources[0..nsrc) */
    int nsrc, src_cap;
    int nerrors, nwarnings;
    int max_errors;         /* after this many, stop reporting (cap) */
    int suppressed;         /* diagnostics dropped by the cap */
    FILE *diag_out;         /* where diagnostics go (stderr) */
    int color;              /* colored output (only on a terminal) */
    jmp_buf *fatal;         /* set by the session boundary */
    TlLoadFn load_module;   /* import hook (parser module) */
    const char *std_path;   /* folder holding std modules */
    TlVec modules;          /* TlProgram* loaded by import, by path */
};

TlSession *tl_session_new(void);
void tl_session_free(TlSession *s);

/* Adds a source to the session; the text is copied.  Returns its id. */
int tl_add_source(TlSession *s, const char *path, const char *text,
                  size_t len);
/* Reads a file into the session.  Returns the id, or -1 after printing
 * "tdsl: cannot read 'path': reason" (not a located diagnostic). */
int tl_add_file(TlSession *s, const char *path);

/* Reports a located diagnostic with message id (printf args follow the
 * message's format in diag_msgs.h). */
void diag_error(TlSession *s, TlLoc loc, TlDiagId id, ...);
void diag_warning(TlSession *s, TlLoc loc, TlDiagId id, ...);
/* Adds a "note:" with its own location to the last diagnostic. */
void diag_note(TlSession *s, TlLoc loc, const char *fmt, ...)
    TL_PRINTF(3, 4);
/* Adds a "hint:" line to the last diagnostic. */
void diag_hint(TlSession *s, const char *fmt, ...) TL_PRINTF(2, 3);
/* Reports an error and longjmps to the session boundary (s->fatal),
 * for cases where going on is pointless (nesting too deep, ...). */
TL_NORETURN void diag_fatal(TlSession *s, TlLoc loc, TlDiagId id, ...);
/* The message format and short name of an id (for tests and docs). */
const char *diag_format(TlDiagId id);
const char *diag_name(TlDiagId id);
/* Finds a line of a source: pointer to its first byte and its length. */
const char *diag_line_text(TlSession *s, int file, int line, int *len);

/* Broken invariant: prints "internal error" with file:line and aborts. */
TL_NORETURN void tl_internal_error(const char *file, int line,
                                   const char *fmt, ...) TL_PRINTF(3, 4);
#define TL_ASSERT(c)                                                     \
    ((c) ? (void)0                                                      \
         : tl_internal_error(__FILE__, __LINE__, "assertion '%s'", #c))
#define tl_unreachable()                                                 \
    tl_internal_error(__FILE__, __LINE__, "unreachable code reached")

/* ====================================================================
 * Dtypes
 * X(NAME, spelling, size in bytes, is_float, is_signed, rank)
 * rank orders types for promotion inside their kind.
 * ==================================================================== */

#define TL_DTYPES(X)                                                     \
    X(BOOL, "bool", 1, 0, 0, 0)                                          \
    X(U8, "u8", 1, 0, 0, 1)                                              \
    X(U16, "u16", 2, 0, 0, 2)                                            \
    X(U32, "u32", 4, 0, 0, 3)                                            \
    X(U64, "u64", 8, 0, 0, 4)                                            \
    X(I8, "i8", 1, 0, 1, 1)                                              \
    X(I16, "i16", 2, 0, 1, 2)                                            \
    X(I32, "i32", 4, 0, 1, 3)                                            \
    X(I64, "i64", 8, 0, 1, 4)                                            \
    X(F16, "f16", 2, 1, 1, 1)                                            \
    X(BF16, "bf16", 2, 1, 1, 1)                                          \
    X(F32, "f32", 4, 1, 1, 2)                                            \
    X(F64, "f64", 8, 1, 1, 3)                                            \
    X(STR, "str", 8, 0, 0, 0)

typedef enum {
    DT_NONE = 0,
#define X(n, s, sz, fl, sg, rk) DT_##n,
    TL_DTYPES(X)
#undef X
    DT__COUNT
} TlDType;

const char *dt_name(TlDType t);          /* "f32"; "?" for DT_NONE */
TlDType dt_from_name(const char *s, size_t n); /* DT_NONE if unknown */
int dt_size(TlDType t);
int dt_is_float(TlDType t);
int dt_is_int(TlDType t);                /* integer, not bool */
int dt_is_signed(TlDType t);
int dt_is_unsigned(TlDType t);           /* u8 u16 u32 u64 */

/* ====================================================================
 * The AST
 * ==================================================================== */

typedef struct TlExpr TlExpr;
typedef struct TlStmt TlStmt;
typedef struct TlItem TlItem;

/* Operators: binary, unary, and reduction kinds share one space so an
 * expression node needs one `op` field. */
typedef enum {
    OP_NONE,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_AND, OP_OR,
    OP_NEG, OP_NOT,
    RD_SUM, RD_PROD, RD_MAX, RD_MIN, RD_ARGMAX, RD_ARGMIN,
    OP__COUNT
} TlOp;
const char *op_spelling(TlOp op);  /* "+", "&&", "sum", ... */

/* Expression kinds.  The fields an expression uses are listed beside
 * each kind; all others are zero. */
typedef enum {
    EX_INT,     /* ival */
    EX_FLOAT,   /* fval, str = spelling as written */
    EX_BOOL,    /* ival 0/1 */
    EX_STR,     /* str = decoded value */
    EX_NAME,    /* str; in reduction headers a/b = explicit range [a, b);
                 * ival = 1: written `..str`, a pack (generic kernels:
                 * a shape entry or an index list entry) */
    EX_MEMBER,  /* a.str */
    EX_INDEX,   /* a[args]  (args may hold EX_SLICE) */
    EX_SLICE,   /* a:b:c, each may be NULL; ival = 1 when the second ':'
                 * was written */
    EX_CALL,    /* a(args); a is EX_NAME or EX_MEMBER; args may hold
                 * EX_NAMED; b: explicit dtype arguments `f<f16, T>(x)`
                 * as an EX_LIST of EX_NAME (dtypes or dtype
                 * variables), or NULL */
    EX_NAMED,   /* str = a  (a named argument) */
    EX_REDUCE,  /* op = RD_*; args = EX_NAME rvars; a = body */
    EX_UNARY,   /* op a */
    EX_BINARY,  /* a op b */
    EX_CAST,    /* dtype(a); dtype field holds the target type */
    EX_LIST,    /* [args] */
    EX_ON,      /* a on str (str = target name) */
    EX__COUNT
} TlExprKind;

typedef struct TlExprList {
    TlExpr **v;
    int n, cap;
} TlExprList;

struct TlExpr {
    TlExprKind kind;
    TlOp op;
    TlLoc loc;          /* the whole expression; for EX_BINARY the
                         * operator's loc is oploc */
    TlLoc oploc;
    int64_t ival;
    double fval;
    const char *str;
    TlExpr *a, *b, *c;
    TlExprList args;
    int parens;         /* written inside parentheses (informational) */
    /* Filled by the checker. */
    TlDType dtype;      /* element type, DT_NONE before checking */
    int rank;           /* -1 unknown, 0 scalar, n tensor-valued */
    void *sym;          /* what a name or call resolved to */
};

/* An identifier with its location (stage index variables, let names). */
typedef struct TlIdent {
    const char *name;
    TlLoc loc;
    int pack;           /* written `..name`: an index pack on a stage's
                         * left side (generic kernels) */
    struct TlExpr *lo, *hi; /* `name in lo..hi` on a stage's left side:
                             * its declared range (SPEC 9.3), or NULL */
} TlIdent;

typedef struct TlIdentList {
    TlIdent *v;
    int n, cap;
} TlIdentList;

/* A kernel or extern parameter, or a kernel output. */
typedef struct TlParam {
    const char *name;
    TlLoc loc;          /* of the name */
    TlDType dtype;      /* DT_NONE when dtype_var is set */
    TlLoc type_loc;
    const char *dtype_var;  /* a name written as the type: a dtype
                             * variable (generic kernels), else NULL */
    int is_scalar;      /* scalar (after ';') or tensor */
    TlExprList shape;   /* tensors: one expression per axis */
    TlExpr *init;       /* scalars: default value or NULL */
} TlParam;

typedef struct TlParamList {
    TlParam *v;
    int n, cap;
} TlParamList;

/* A dtype variable of a generic kernel, `T: float` or `U: f32 | f64`:
 * its name and its kind's alternatives as written (kind names or
 * dtype names, checked by the checker). */
typedef struct TlTypeParam {
    const char *name;
    TlLoc loc;
    TlIdentList kinds;
} TlTypeParam;

typedef struct TlTypeParamList {
    TlTypeParam *v;
    int n, cap;
} TlTypeParamList;

/* One `.name(args)` link of a directive chain. */
typedef struct TlDirective {
    const char *name;
    TlLoc loc;          /* of the name */
    TlExprList args;
} TlDirective;

typedef struct TlDirectiveList {
    TlDirective *v;
    int n, cap;
} TlDirectiveList;

/* Layouts (ACCELERATOR.md section 6).  A factor is one of:
 *   n_LEVEL[:s]  (level set, n > 0)        canonical
 *   n[:s]        (level NULL: address)     canonical
 *   n_W, n_S     (level "W" or "S")        canonical
 *   axis@LEVEL   (axis set, n = 0)         compact */
typedef struct TlLayoutFactor {
    int64_t n;
    int64_t stride;      /* 0 = not written */
    const char *level;
    const char *axis;
    TlLoc loc;
} TlLayoutFactor;

typedef struct TlFactorList {
    TlLayoutFactor *v;
    int n, cap;
} TlFactorList;

typedef enum { LAYOUT_COMPACT, LAYOUT_CANONICAL } TlLayoutForm;

typedef struct TlLayout {
    TlLayoutForm form;
    TlFactorList compact;   /* compact: the factors in order */
    struct {                /* canonical: one factor list per axis */
        TlFactorList *v;
        int n, cap;
    } axes;
    TlIdentList bcast;      /* levels in `; B@[...]` */
} TlLayout;

typedef enum {
    /* kernel bodies */
    ST_STAGE,     /* name[idx] = value */
    ST_BIND,      /* names = value (one or several names) */
    /* ST_ASSERT also: a kernel's precondition, `assert e[, "msg"]` */
    /* top level */
    ST_LET,       /* let names = value */
    ST_PRINT,     /* print value */
    ST_ASSERT,    /* assert value */
    ST_TIME,      /* time value */
    ST_TARGET,    /* target name */
    ST_EXPR,      /* value */
    /* schedule bodies */
    ST_DIRECTIVE, /* path.dir(args).dir(args)... */
    ST_LAYOUT,    /* layout name: layout */
    ST__COUNT
} TlStmtKind;

struct TlStmt {
    TlStmtKind kind;
    TlLoc loc;          /* first token */
    int end_line;       /* line of the last token (for comments) */
    int blank_before;   /* a blank line preceded it in the source */
    const char *name;   /* stage/target/layout tensor name */
    TlLoc name_loc;
    TlIdentList names;  /* stage index vars; let/bind names; directive
                         * stage path (a.b.c) */
    TlExpr *value;
    TlExpr *msg;        /* kernel `assert e, "message"`: the string;
                         * NULL without one */
    TlParam *decl;      /* let with a type, `let W: f32[64, 3] = ...`:
                         * name, dtype and shape as written (one name
                         * only); NULL otherwise */
    TlDirectiveList dirs;
    TlLayout *layout;
    void *sym;          /* checker */
};

typedef struct TlStmtList {
    TlStmt **v;
    int n, cap;
} TlStmtList;

typedef enum {
    IT_KERNEL,
    IT_SCHEDULE,
    IT_EXTERN,
    IT_IMPORT,
    IT_STMT,
    IT__COUNT
} TlItemKind;

struct TlItem {
    TlItemKind kind;
    TlLoc loc;          /* first token */
    int end_line;
    int blank_before;
    const char *name;   /* kernel/extern name; schedule's kernel */
    TlLoc name_loc;
    /* kernel: params (tensors), scalars, outputs, body (stages)
     * extern: params (scalar or tensor, as written), ret
     * schedule: target, variant, body (directives, layouts) */
    TlParamList params, scalars, outputs;
    TlTypeParamList tparams;    /* kernel: its dtype variables `<T: ...>` */
    int out_parens;     /* outputs written inside ( ) */
    TlDType ret;
    TlLoc ret_loc;
    const char *lib;    /* extern "lib" fn ...: the library, or NULL */
    TlLoc lib_loc;      /* of the library string */
    TlStmtList body;
    const char *target;
    TlLoc target_loc;
    const char *variant;
    TlLoc variant_loc;
    /* import: path is "std.nn" or a file path; is_file when quoted */
    const char *path;
    int is_file;
    const char *alias;
    TlLoc alias_loc;
    TlStmt *stmt;       /* IT_STMT */
    void *sym;          /* checker */
};

typedef struct TlItemList {
    TlItem **v;
    int n, cap;
} TlItemList;

typedef struct TlComment {
    TlLoc loc;
    const char *text;   /* from '#' to end of line, without newline */
} TlComment;

typedef struct TlCommentList {
    TlComment *v;
    int n, cap;
} TlCommentList;

struct TlProgram {
    int file;
    TlItemList items;
    TlCommentList comments;  /* in source order */
    int nerrors;             /* syntax errors while parsing it */
};

/* --- constructors (lang/ast.c); all allocate in s->arena ---------- */

TlExpr *ast_expr(TlSession *s, TlExprKind k, TlLoc loc);
/* Does checked expression e compute or read a str anywhere (SPEC
 * 8.6)? */
int ast_has_str(const TlExpr *e);
TlExpr *ast_int(TlSession *s, TlLoc loc, int64_t v);
TlExpr *ast_float(TlSession *s, TlLoc loc, double v, const char *text);
TlExpr *ast_name(TlSession *s, TlLoc loc, const char *name);
TlExpr *ast_unary(TlSession *s, TlLoc loc, TlOp op, TlExpr *a);
TlExpr *ast_binary(TlSession *s, TlLoc oploc, TlOp op, TlExpr *a,
                   TlExpr *b);
TlStmt *ast_stmt(TlSession *s, TlStmtKind k, TlLoc loc);
TlItem *ast_item(TlSession *s, TlItemKind k, TlLoc loc);
TlProgram *ast_program(TlSession *s, int file);
TlLayout *ast_layout(TlSession *s, TlLayoutForm form);

void ast_push_expr(TlSession *s, TlExprList *l, TlExpr *e);
void ast_push_ident(TlSession *s, TlIdentList *l, const char *name,
                    TlLoc loc);
void ast_push_param(TlSession *s, TlParamList *l, const TlParam *p);
void ast_push_directive(TlSession *s, TlDirectiveList *l,
                        const TlDirective *d);
void ast_push_factor(TlSession *s, TlFactorList *l,
                     const TlLayoutFactor *f);
void ast_push_stmt(TlSession *s, TlStmtList *l, TlStmt *st);
void ast_push_item(TlSession *s, TlItemList *l, TlItem *it);
void ast_push_comment(TlSession *s, TlCommentList *l, TlLoc loc,
                      const char *text);

/* A location spanning from a to the end of b (same file). */
TlLoc loc_span(TlLoc a, TlLoc b);

/* --- printing (lang/print.c, lang/dump.c) ------------------------- */

/* The canonical text of a program (what `tdsl fmt` prints), with the
 * comments of prog->comments placed back. */
void ast_print_program(TlBuf *out, const TlProgram *prog);
/* Canonical text of one expression, minimal parentheses. */
void ast_print_expr(TlBuf *out, const TlExpr *e);
/* An indented tree dump without locations (`tdsl dump --ast`), used by
 * tests to compare two parses for equality. */
void ast_dump_program(TlBuf *out, const TlProgram *prog);

/* ====================================================================
 * Checking (lang/check*.c)
 * ==================================================================== */

/* Resolves names, checks types and shapes, infers index and reduction
 * ranges and bounds, and checks schedule directive names.  Reports
 * every problem through diag_error.  Returns the number of errors. */
int tl_check(TlSession *s, TlProgram *prog);

/* ====================================================================
 * Tensor values (lang/tensor.c): owned by whoever holds them, outside
 * any arena (STYLE.md rule 7).
 * ==================================================================== */

/* The most axes a tensor value may have. */
enum { TL_MAX_RANK = 8 };

/* The largest tensor tdsl allocates (64 GiB).  A bigger request (a user's
 * shape, a file header) is refused with an error instead of attempting
 * the allocation. */
#define TL_TENSOR_MAX_BYTES ((int64_t)1 << 36)

/* The storage block that a tensor and its views share (refcounted). */
typedef struct TlStorage TlStorage;

/* A tensor value: `rank` axes of `shape[i]` elements, element
 * (i0, ..., ik) at data + sum(i_j * strides[j]) elements.  Strides are in
 * elements and may be zero or negative (views); a tensor made by
 * tl_tensor_new is packed row-major.  Entries of shape/strides past rank
 * are 0.  Storage holds bool as one byte 0/1, f16/bf16 as their 16 bits,
 * everything in host byte order.
 *
 * Tensors are refcounted and not thread-safe.  A tensor that more than
 * one holder references must be treated as immutable; write only into
 * tensors you made yourself (tl_tensor_new, _copy, _cast). */
typedef struct TlTensor {
    int refs;
    TlDType dtype;
    int rank;
    int64_t shape[TL_MAX_RANK];
    int64_t strides[TL_MAX_RANK];
    void *data;                   /* element (0, ..., 0) */
    TlStorage *storage;
} TlTensor;

/* The byte size of a packed tensor of this dtype and shape, or -1 after
 * writing the reason into err (when err is not NULL): rank above
 * TL_MAX_RANK, a negative dimension, a product that overflows, or more
 * than TL_TENSOR_MAX_BYTES.  Messages start lower-case and name no file;
 * callers prefix their context ("'x.npy': ..."). */
int64_t tl_shape_nbytes(TlDType dt, int rank, const int64_t *shape,
                        char *err, size_t errlen);

/* A new zero-filled, packed tensor (one reference).  Returns NULL with
 * the reason in err when tl_shape_nbytes refuses the shape or the memory
 * cannot be had; never aborts on a user-controlled size. */
TlTensor *tl_tensor_new(TlDType dt, int rank, const int64_t *shape,
                        char *err, size_t errlen);
/* A tensor over memory tdsl does not own (an embedding program's buffer,
 * a mapped file): release(ctx) runs when the last view is dropped
 * (release may be NULL).  strides NULL means packed row-major. */
TlTensor *tl_tensor_wrap(TlDType dt, int rank, const int64_t *shape,
                         const int64_t *strides, void *data,
                         void (*release)(void *ctx), void *ctx);
/* Adds a reference and returns t; unref drops one (NULL is ignored) and
 * frees the tensor, and its storage once no view uses it. */
TlTensor *tl_tensor_ref(TlTensor *t);
void tl_tensor_unref(TlTensor *t);

int64_t tl_tensor_numel(const TlTensor *t);
/* Same rank and the same size on every axis (dtypes not compared). */
int tl_tensor_equal_shape(const TlTensor *a, const TlTensor *b);
/* Packed row-major (strides of axes of size 1 do not matter). */
int tl_tensor_is_contiguous(const TlTensor *t);
/* t itself (one more reference) when packed, else a packed copy. */
TlTensor *tl_tensor_contiguous(TlTensor *t);
/* Always a new packed copy (one reference), for writing into. */
TlTensor *tl_tensor_copy(const TlTensor *t);
/* A 64-bit FNV-1a hash of the dtype, the shape and the elements in
 * row-major order (views hash as their packed copy); 0 when the copy
 * cannot be had.  tdsl import records a bound input's, so that tdsl run
 * refuses other data for a model made for that data. */
uint64_t tl_tensor_hash(const TlTensor *t);

/* One entry of an index list for tl_tensor_slice, with Python/numpy
 * meaning.  An index (is_index) picks one element and drops the axis;
 * negative counts from the end; out of range is an error.  A range
 * lo:hi:step keeps the axis: missing bounds (has_lo/has_hi 0) mean the
 * whole axis in the step's direction, negative bounds count from the
 * end, bounds beyond the axis are clamped (so a range may be empty), and
 * step may be negative but not zero (callers pass 1 when none was
 * written). */
typedef struct TlSlice {
    int is_index;
    int64_t index;
    int has_lo, has_hi;
    int64_t lo, hi, step;
} TlSlice;

/* A view of t (sharing its storage, one new reference) through n index
 * entries; axes past n are kept whole.  NULL with the reason in err when
 * n exceeds the rank, an index is out of range or a step is zero. */
TlTensor *tl_tensor_slice(TlTensor *t, int n, const TlSlice *s,
                          char *err, size_t errlen);

/* A view of t with its axes reordered: axis i of the view is axis
 * perm[i] of t (one new reference).  perm must be a permutation of
 * 0..rank-1 (TL_ASSERT). */
TlTensor *tl_tensor_permute(TlTensor *t, const int *perm);

/* Element access with the language's cast rules (tl_dt_store_f64).
 * idx holds rank entries, each in range (checked with TL_ASSERT: callers
 * report bad user indices themselves). */
void *tl_tensor_at(const TlTensor *t, const int64_t *idx);
double tl_tensor_get_f64(const TlTensor *t, const int64_t *idx);
int64_t tl_tensor_get_i64(const TlTensor *t, const int64_t *idx);
void tl_tensor_set_f64(TlTensor *t, const int64_t *idx, double v);
void tl_tensor_set_i64(TlTensor *t, const int64_t *idx, int64_t v);

/* Scalar conversions, the single definition of the language's casts
 * (the C backend must generate the same):
 *   float -> int:   truncate toward zero, saturate at the type's range,
 *                   NaN gives 0 (what a few compares and a C cast cost,
 *                   and never undefined behaviour in generated C)
 *   int -> int:     keep the low bits (two's complement wrap, as C and
 *                   numpy do)
 *   any -> bool:    nonzero is true (NaN is true, as in C)
 *   bool -> any:    0 or 1
 *   -> f16/bf16/f32 round to nearest even, overflow gives inf; from i64
 *                   and f64 in one rounding step (no double rounding)
 * Loads read one element of dtype dt at p (any alignment). */
double tl_dt_load_f64(TlDType dt, const void *p);
int64_t tl_dt_load_i64(TlDType dt, const void *p);
void tl_dt_store_f64(TlDType dt, void *p, double v);
void tl_dt_store_i64(TlDType dt, void *p, int64_t v);
/* u64 values are held in int64_t as their bits (tl_dt_load_i64 gives
 * them so); this stores such a value read as unsigned, as a cast from
 * u64 does. */
void tl_dt_store_u64(TlDType dt, void *p, uint64_t v);
/* The float -> integer rule above, for integer dtype dt (bool: != 0). */
int64_t tl_f64_to_int(TlDType dt, double v);

/* Strings (str, SPEC 8.6): an element is a pointer to a NUL-terminated
 * string interned for the life of the process (lang/str.c), so copies,
 * views and casts of str tensors copy pointers; a NULL element (a
 * zero-filled tensor) is the empty string.  tl_str_intern returns the
 * one copy of s[0..n); tl_str_at reads an element ("" for NULL). */
const char *tl_str_intern(const char *s, size_t n);
const char *tl_str_at(const void *p);
void tl_str_put(void *p, const char *s);
/* The text of one element of numeric dtype dt at p, as numpy's str()
 * writes it: the shortest decimal that reads back as the value at the
 * dtype's precision, positional for 1e-4 <= |v| < 1e16 (with ".0" for
 * whole numbers), else "1.5e-05" / "1e+20"; "nan", "inf", "-inf";
 * integers in decimal; bool "True" / "False".  Interned. */
const char *tl_str_from(TlDType dt, const void *p);
/* Parses s into one element of numeric dtype dt at p as numpy's
 * astype does: floats like Python's float() (spaces around, "nan",
 * "inf", "+INF", "-Infinity" in any case; then rounded to dt), integers
 * like int() (an optional sign and decimal digits; out of the dtype's
 * range wraps as the int -> int rule), bool: true when s is not
 * empty.  -1 (and nothing stored) when s is no such number. */
int tl_str_to(TlDType dt, const char *s, void *p);
/* s with ASCII letters mapped to lower / upper case (other bytes kept:
 * SPEC says why), interned. */
const char *tl_str_lower(const char *s);
const char *tl_str_upper(const char *s);

/* Integer / and % of the language: floor division, the remainder with
 * the divisor's sign; by zero both give 0, and INT64_MIN / -1 wraps
 * (never undefined behaviour).  The interpreter, the simplifier and
 * the symbolic shapes all fold with these. */
int64_t tl_floor_div(int64_t a, int64_t b);
int64_t tl_floor_mod(int64_t a, int64_t b);

/* A new packed tensor holding t converted to dtype `to` by the rules
 * above (a copy even when the dtype is the same). */
TlTensor *tl_tensor_cast(const TlTensor *t, TlDType to);

/* Printing options; NULL means tl_print_defaults. */
typedef struct TlPrintOpts {
    int header;     /* start with the type, "f32[2, 4]" (1) */
    int threshold;  /* summarise tensors with more elements (1000) */
    int edgeitems;  /* elements kept at each end of an axis (3) */
    int linewidth;  /* wrap rows longer than this many columns (75) */
} TlPrintOpts;
extern const TlPrintOpts tl_print_defaults;

/* Appends the type of t: "f32[2, 4]", "i64[]". */
void tl_tensor_print_type(TlBuf *out, const TlTensor *t);
/* Appends t in numpy's str() style, without a final newline:
 *   f32[2, 3]
 *   [[ 1.    2.5  -3.  ]
 *    [ 0.25  4.    1.  ]]
 * The header line comes first (rank 0: "f32[] 2.5" on one line).  All
 * elements share one width; rows longer than linewidth wrap.  Floats
 * print the shortest digits that read back as the same value at the
 * tensor's precision, at most 8 after the point, padded so that points
 * line up ("1." for whole numbers, "3.0" for a lone one); when a shown
 * nonzero |x| is >= 1e8 or < 1e-4, or max/min > 1e3, every element
 * prints in scientific form with one mantissa width ("1.5e+08").  nan,
 * inf, -inf as such; bool as true/false.  Tensors of more than threshold
 * elements show edgeitems entries at each end of every longer axis with
 * "..." between.  Axes above the last are separated by newlines, one
 * blank line more per level.  (This is numpy's default output, checked
 * against numpy 1.24 in tests/unit/test_tensor.c.) */
void tl_tensor_print(TlBuf *out, const TlTensor *t, const TlPrintOpts *opts);

/* f16 and bf16 (lang/half.c), held as their 16 bits.  Every conversion
 * rounds to nearest even, turns overflow into inf, keeps inf, zero signs
 * and f16 subnormals, and returns NaN as a quiet NaN with the same sign
 * and the leading payload bits (signalling NaNs are quieted, as F16C and
 * C casts do; all other values survive f16 -> f32 -> f16 exactly). */
uint16_t tl_f32_to_f16(float f);
uint16_t tl_f64_to_f16(double d);
uint16_t tl_i64_to_f16(int64_t v);
float tl_f16_to_f32(uint16_t h);
uint16_t tl_f32_to_bf16(float f);
uint16_t tl_f64_to_bf16(double d);
uint16_t tl_i64_to_bf16(int64_t v);
float tl_bf16_to_f32(uint16_t h);

/* end of tensor values section */

/* ====================================================================
 * Checked pipeline (lang/check*.c, lang/symexpr.c)
 *
 * What tl_check leaves behind for the interpreter and the compilers,
 * so that none of them re-derives names, types, shapes or bounds.
 * Everything lives in the session arena.
 *
 * Where to find it:
 *   item->sym   IT_KERNEL: TlKernelInfo   IT_EXTERN: TlExternInfo
 *               IT_SCHEDULE: TlSchedInfo  IT_IMPORT: the TlProgram
 *               IT_STMT: its statement
 *   stmt->sym   ST_STAGE: TlFunc  ST_BIND: TlCall  ST_LET: the TlLet of
 *               its first name  ST_DIRECTIVE: TlSchedChain
 *               ST_LAYOUT: TlSchedLayout
 *   expr->sym   EX_NAME: TlVar, TlFunc (a tensor read by bare name,
 *               rank 0, or a whole tensor passed to a call), TlLet (top
 *               level), TlBuiltin, TlExternInfo or TlKernelInfo (callee
 *               names); EX_MEMBER: TlKernelInfo for `nn.relu`;
 *               EX_INDEX: TlRead (inside kernels); EX_CALL: TlCall,
 *               TlBuiltin or TlExternInfo; EX_REDUCE: TlReduce.
 * Each of these structures starts with a TlRefKind, so
 * `*(TlRefKind *)e->sym` says which it is (tl_ref_kind does that).
 * The text of a generic kernel (TlKernelInfo.generic) is annotated only
 * as far as its own check goes (names; TlTypeVar for its dtype
 * variables); what runs is its instances, whose items are copies of
 * that text with the binding applied, annotated as above.
 *
 * After a successful check, expression types are explicit: every
 * node's `dtype` is the type it is computed in.  Literals (possibly
 * negated) are retyped to their context: an EX_INT may carry f32,
 * convert the value.  Other literal-only expressions (`1 / 2`) are
 * computed in i32 or f32 and then converted (SPEC 8.3).  Where
 * an operand's type differs from what its parent computes in, the
 * checker inserts an EX_CAST with ival = 1 (implicit; printers show
 * only its operand).  So: arithmetic, min/max/clamp/pow and select
 * operands have the node's dtype; both sides of a comparison have the
 * same dtype; && || ! work on bool; math functions get floats.  Index
 * variables, reduction variables and size variables are i32 values.
 * ==================================================================== */

typedef enum {
    REF_VAR,        /* TlVar */
    REF_FUNC,       /* TlFunc */
    REF_LET,        /* TlLet */
    REF_BUILTIN,    /* TlBuiltin */
    REF_EXTERN,     /* TlExternInfo */
    REF_KERNEL,     /* TlKernelInfo */
    REF_CALL,       /* TlCall */
    REF_READ,       /* TlRead */
    REF_REDUCE,     /* TlReduce */
    REF_SCHEDULE,   /* TlSchedInfo */
    REF_CHAIN,      /* TlSchedChain */
    REF_LAYOUT,     /* TlSchedLayout */
    REF_TYPEVAR,    /* TlTypeVar (generic kernels) */
    REF__COUNT
} TlRefKind;

typedef struct TlVar TlVar;
typedef struct TlFunc TlFunc;
typedef struct TlLet TlLet;
typedef struct TlCall TlCall;
typedef struct TlRead TlRead;
typedef struct TlReduce TlReduce;
typedef struct TlKernelInfo TlKernelInfo;
typedef struct TlExternInfo TlExternInfo;
typedef struct TlSchedInfo TlSchedInfo;
typedef struct TlSymExpr TlSymExpr;
typedef struct TlTypeVar TlTypeVar;

/* The kind of what sym points at; REF__COUNT when sym is NULL. */
TlRefKind tl_ref_kind(const void *sym);

/* --- symbolic integer expressions (lang/symexpr.c) ----------------
 * A normal form for sizes, domains and affine indices:
 *     c + coef_1 * atom_1 + ... + coef_n * atom_n
 * with integer coefficients (never 0) and atoms sorted in a fixed
 * order.  An atom is a variable (size variable, scalar parameter,
 * index or reduction variable) or an opaque operation on two
 * expressions: floor division, modulo (sign of the divisor, as `%`),
 * min, max, the product of two non-constant expressions, the 0/1
 * value of a < b or a == b (conditions of shapes: `&&` is min, `||`
 * max, `!c` is 1 - c), or select(c, a, b): a where c != 0, else b.
 * Equal normal forms mean equal values; a NULL TlSymExpr means
 * "unknown" everywhere it is accepted. */

typedef enum {
    SYM_VAR, SYM_DIV, SYM_MOD, SYM_MIN, SYM_MAX, SYM_MUL,
    SYM_LT, SYM_EQ, SYM_SEL
} TlSymAtomKind;

typedef struct TlSymAtom {
    TlSymAtomKind kind;
    TlVar *var;                     /* SYM_VAR */
    const TlSymExpr *a, *b;         /* the others */
    const TlSymExpr *c;             /* SYM_SEL: the condition */
} TlSymAtom;

typedef struct TlSymTerm {
    int64_t coef;
    const TlSymAtom *atom;
} TlSymTerm;

struct TlSymExpr {
    int64_t c;
    int n;
    TlSymTerm t[];
};

/* Readable text: "H - 2", "(H + 2*pad - R) / stride + 1"; "?" for
 * NULL. */
void tl_sym_print(TlBuf *out, const TlSymExpr *e);
/* 1 and *c set when e is a known constant. */
int tl_sym_const(const TlSymExpr *e, int64_t *c);

/* Values of variables for tl_sym_eval: return 0 and set *v, or -1 if
 * the variable has no value. */
typedef int (*TlSymLookup)(void *ctx, const TlVar *var, int64_t *v);
/* Evaluates e.  Returns 0, or -1 when e is NULL, a variable has no
 * value, or the arithmetic overflows or divides by zero. */
int tl_sym_eval(const TlSymExpr *e, TlSymLookup lookup, void *ctx,
                int64_t *out);

/* --- variables ---------------------------------------------------- */

typedef enum {
    VAR_INDEX,      /* index variable of a stage's left side */
    VAR_RVAR,       /* reduction variable */
    VAR_SIZE,       /* size variable of a kernel's input shapes */
    VAR_SCALAR,     /* scalar parameter of a kernel */
    VAR_LOOP        /* loop variable made by a schedule directive */
} TlVarKind;

struct TlVar {
    TlRefKind ref;          /* REF_VAR */
    TlVarKind kind;
    const char *name;
    TlLoc loc;              /* where it is introduced */
    int id;                 /* unique in the session; orders symbolic
                             * terms */
    int num;                /* INDEX: axis; RVAR: position in its
                             * reduction; SIZE/SCALAR: position in the
                             * kernel's sizes/scalars */
    TlDType dtype;          /* i32, or the scalar parameter's type */
    TlFunc *func;           /* INDEX, LOOP: its stage; RVAR: the stage
                             * holding the reduction */
    TlReduce *red;          /* RVAR */
    /* INDEX: the stage's domain on this axis; RVAR: the range (explicit
     * or inferred).  The variable runs over lo .. lo + extent - 1. */
    TlSymExpr *lo, *extent;
    /* SIZE: bound from axis bound_axis of input bound_by (its value is
     * that argument's extent there). */
    TlFunc *bound_by;
    int bound_axis;
    TlParam *param;         /* SCALAR: the declaration (param->init is
                             * the checked default or NULL) */
    TlKernelInfo *kernel;   /* SIZE, SCALAR */
    int pack;               /* generic kernels only (never in what the
                             * interpreter sees): SIZE, a shape pack
                             * `..S`; INDEX, an index pack `..i` */
};

/* --- tensors: inputs, stages, outputs, call results, constants ---- */

typedef enum {
    FN_INPUT,       /* tensor parameter */
    FN_STAGE,       /* intermediate defined by `name[vars] = expr` */
    FN_OUTPUT,      /* kernel output (by a stage or by a call) */
    FN_CALL,        /* intermediate bound to a kernel call's output */
    FN_CONST        /* top-level `let` tensor used inside a kernel */
} TlFuncKind;

typedef struct TlAxis {
    TlVar *var;             /* index variable, for FN_STAGE/FN_OUTPUT
                             * defined by an expression; else NULL */
    TlSymExpr *lo;          /* domain start (0 except for stages) */
    TlSymExpr *extent;      /* points in the domain; NULL if unknown */
} TlAxis;

struct TlFunc {
    TlRefKind ref;          /* REF_FUNC */
    TlFuncKind kind;
    const char *name;
    TlLoc loc;              /* its declaration or first definition */
    TlDType dtype;          /* DT_NONE after an error in it */
    int rank;
    TlAxis *axes;           /* [rank] */
    TlKernelInfo *kernel;   /* owner; NULL for FN_CONST and top level */
    TlParam *param;         /* INPUT, OUTPUT: the declaration */
    TlStmt *stmt;           /* the defining statement */
    TlExpr *value;          /* defined by an expression: the checked
                             * right side (scalar-valued).  For a
                             * whole-tensor binding `t = A * 2.0` it is
                             * the element-wise rewrite over index
                             * variables _0, _1, ... (`A[_0] * 2.0`);
                             * stmt->value keeps the text */
    TlReduce **reds;        /* its reductions, inner before outer */
    int nreds;
    TlCall *call;           /* defined by a kernel call: the call and */
    int call_out;           /* which of the callee's outputs */
    TlLet *let;             /* FN_CONST */
    int used;               /* read by something */
    int fixed;              /* domain fixed by its own definition (a
                             * stage passed whole to a call, or read
                             * through zero_pad/clamp_edge) */
    void *priv;             /* the checker's private data */
};

/* A kernel's `assert` (SPEC 6.8): a rank-0 bool stage, "assert.lineN",
 * that the call must find true before anything after it runs. */
static inline int tl_func_is_assert(const TlFunc *f)
{
    return f && f->stmt && f->stmt->kind == ST_ASSERT;
}

typedef enum { READ_PLAIN, READ_ZERO_PAD, READ_CLAMP_EDGE } TlReadMode;

/* A read T[e0, e1, ...] inside a kernel. */
struct TlRead {
    TlRefKind ref;          /* REF_READ */
    TlFunc *func;           /* what is read */
    TlFunc *in;             /* the stage whose definition reads it */
    TlReadMode mode;        /* zero_pad/clamp_edge: outside is defined */
    TlExpr *expr;           /* the EX_INDEX */
    /* Per axis: the index range over the reader's domain (inclusive;
     * NULL unknown, e.g. data-dependent gathers). */
    TlSymExpr **lo, **hi;
    int check;              /* not proven in bounds: check at run time,
                             * once per call from lo/hi where they are
                             * known, else (gathers) element by element */
    int conditional;        /* inside a select branch (may not run) */
};

struct TlReduce {
    TlRefKind ref;          /* REF_REDUCE */
    TlOp op;                /* RD_* */
    TlExpr *expr;           /* the EX_REDUCE; expr->a is the body */
    TlVar **rvars;          /* each with lo/extent; at the top level an
                             * extent is NULL when it comes from a tensor
                             * whose shape is known only at run time
                             * (the axis the variable indexes alone) */
    int nrvars;
    TlFunc *func;           /* NULL at the top level */
};

/* A kernel call: a binding inside a kernel, or a top-level call. */
struct TlCall {
    TlRefKind ref;          /* REF_CALL */
    TlKernelInfo *callee;
    const char *name;       /* binding name (schedule paths `name.Y`);
                             * NULL at top level */
    TlLoc loc;
    TlExpr *expr;           /* the EX_CALL */
    const char *target;     /* `on TARGET`, or NULL */
    /* Arguments in parameter order: callee->ninputs tensors, then
     * callee->nscalars scalars (NULL: the parameter's default). */
    TlExpr **args;
    TlFunc **inputs;        /* inside kernels: the tensor each tensor
                             * argument is [ninputs] */
    TlSymExpr **sizes;      /* [callee->nsizes]: the callee's size
                             * variables in the caller's terms (NULL
                             * unknown) */
    TlSymExpr **scalars;    /* [callee->nscalars]: integer scalar
                             * arguments as symbols, NULL otherwise */
    TlFunc **results;       /* [callee->noutputs] with dtype and shape;
                             * inside kernels the bound TlFuncs */
    TlKernelInfo *kernel;   /* the caller, NULL at top level */
};

/* A top-level `let` name. */
struct TlLet {
    TlRefKind ref;          /* REF_LET */
    const char *name;
    TlLoc loc;
    TlStmt *stmt;
    int num;                /* position among its statement's names */
    TlLet *next;            /* the statement's next name */
    TlDType dtype;          /* DT_NONE if unknown */
    int rank;               /* -1 if unknown */
    TlSymExpr **shape;      /* [rank]: constants where known, else NULL */
    TlFunc *func;           /* how kernels read it (FN_CONST) */
    /* Written with a type, `let W: f32[64, 3] = load(...)`
     * (stmt->decl): dtype, rank and shape above are the declared ones,
     * every size a constant.  The checker compared them with what it
     * knows of the value, and a known disagreement is an error.  When
     * it could not know everything (verify: a load, or a value made
     * from one), the run time must check the value against dtype, rank
     * and shape before binding the name, and stop with an error at
     * stmt->decl->type_loc if they differ; the value is never
     * converted (an f64 file for an f32 declaration is an error). */
    int declared;
    int verify;
    /* Checker bookkeeping: index of its item, progress (0 new,
     * 1 checking, 2 done, 3 failed), kind of value (strings, lists). */
    int pos, checked, vkind;
};

/* Builtin functions.  X(ID, name, min args, max args, top level only) */
#define TL_BUILTINS(X)                                                   \
    X(SELECT, "select", 3, 3, 0)                                         \
    X(CLAMP, "clamp", 3, 3, 0)                                           \
    X(MIN, "min", 2, 2, 0)                                               \
    X(MAX, "max", 2, 2, 0)                                               \
    X(POW, "pow", 2, 2, 0)                                               \
    X(EXP, "exp", 1, 1, 0)                                               \
    X(FAST_EXP, "fast_exp", 1, 1, 0)                                     \
    X(LOG, "log", 1, 1, 0)                                               \
    X(SQRT, "sqrt", 1, 1, 0)                                             \
    X(RSQRT, "rsqrt", 1, 1, 0)                                           \
    X(TANH, "tanh", 1, 1, 0)                                             \
    X(SIGMOID, "sigmoid", 1, 1, 0)                                       \
    X(ERF, "erf", 1, 1, 0)                                               \
    X(SIN, "sin", 1, 1, 0)                                               \
    X(COS, "cos", 1, 1, 0)                                               \
    X(TAN, "tan", 1, 1, 0)                                       \
    X(ASIN, "asin", 1, 1, 0)                                     \
    X(ACOS, "acos", 1, 1, 0)                                     \
    X(ATAN, "atan", 1, 1, 0)                                     \
    X(SINH, "sinh", 1, 1, 0)                                     \
    X(COSH, "cosh", 1, 1, 0)                                     \
    X(ASINH, "asinh", 1, 1, 0)                                   \
    X(ACOSH, "acosh", 1, 1, 0)                                   \
    X(ATANH, "atanh", 1, 1, 0)                                   \
    X(ABS, "abs", 1, 1, 0)                                               \
    X(FLOOR, "floor", 1, 1, 0)                                           \
    X(CEIL, "ceil", 1, 1, 0)                                             \
    X(ROUND, "round", 1, 1, 0)                                           \
    X(UNIFORM, "uniform", 2, 2, 0)                                       \
    X(NORMAL, "normal", 2, 2, 0)                                         \
    X(LOWER, "lower", 1, 1, 0)                                           \
    X(UPPER, "upper", 1, 1, 0)                                           \
    X(RAND, "rand", 2, 3, 1)                                             \
    X(ZEROS, "zeros", 2, 2, 1)                                           \
    X(ONES, "ones", 2, 2, 1)                                             \
    X(FULL, "full", 3, 3, 1)                                             \
    X(ARANGE, "arange", 2, 4, 1)                                         \
    X(LOAD, "load", 1, 2, 1)                                             \
    X(SAVE, "save", 2, 2, 1)                                             \
    X(ALLCLOSE, "allclose", 2, 4, 1)                                     \
    X(SHAPE, "shape", 1, 1, 1)                                           \
    X(HASH, "hash", 1, 1, 0)

typedef enum {
#define X(id, name, lo, hi, top) BI_##id,
    TL_BUILTINS(X)
#undef X
    BI__COUNT
} TlBuiltinId;

typedef struct TlBuiltin {
    TlRefKind ref;          /* REF_BUILTIN */
    TlBuiltinId id;
    const char *name;
    int min_args, max_args;
    int top_level;          /* only in top-level statements */
} TlBuiltin;

struct TlExternInfo {
    TlRefKind ref;          /* REF_EXTERN */
    const char *name;
    TlItem *item;
    TlDType ret;
    TlDType *params;        /* [nparams] */
    int nparams;
    const char *lib;        /* `extern "lib" fn ...`, or NULL: the
                             * running process, then libm */
    int tensors;            /* has tensor parameters (item->params has
                             * their shapes): top level only */
};

/* A dtype variable of a generic kernel (SPEC 6.7). */
struct TlTypeVar {
    TlRefKind ref;          /* REF_TYPEVAR */
    const char *name;
    TlLoc loc;
    int num;                /* position in the kernel's tvars */
    unsigned kinds;         /* the dtypes allowed: bit (1u << dt) */
    const char *kind_text;  /* the kind as written, "float", "f32 | f64" */
    TlFunc *bound_by;       /* the first tensor parameter that binds it,
                             * NULL: given explicitly at each call */
};

struct TlKernelInfo {
    TlRefKind ref;          /* REF_KERNEL */
    const char *name;
    TlItem *item;
    const char *module;     /* import path of its module; NULL for the
                             * checked program itself */
    TlVar **sizes;          /* size variables, in binding order */
    int nsizes;
    TlVar **scalars;        /* scalar parameters, in order */
    int nscalars;
    TlFunc **inputs;        /* tensor parameters, in order */
    int ninputs;
    TlFunc **outputs;       /* in declaration order */
    int noutputs;
    /* Stages, outputs and call results in dependency order (producers
     * first); inputs and constants are not in it.  Unused stages are
     * left out. */
    TlFunc **funcs;
    int nfuncs;
    TlCall **calls;         /* kernel calls, in dependency order */
    int ncalls;
    TlFunc **consts;        /* top-level tensors it reads */
    int nconsts;
    TlSchedInfo **schedules;
    int nschedules;
    int ok;                 /* checked without errors */
    void *priv;             /* the checker's private data */
    /* Generic kernels (SPEC 6.7).  A generic kernel (generic set) is
     * checked for names and structure only and never runs: each call
     * runs an instance, an ordinary kernel made for the call's dtypes
     * and ranks, and TlCall.callee points at the instance.  Of a
     * generic kernel only these are filled: name, item, module,
     * inputs, scalars and outputs (names and param; dtype DT_NONE
     * where a dtype variable stands, rank -1 where a pack does;
     * nothing else of them is meaningful), schedules (what they
     * name, unchecked: each instance has its own checked copies),
     * ok, and the fields below.  An instance is an ordinary kernel
     * with origin set. */
    int generic;
    TlTypeVar **tvars;      /* generic: dtype variables, in order */
    int ntvars;
    TlVar **packs;          /* generic: shape packs (VAR_SIZE, pack),
                             * in order of first appearance */
    int npacks;
    TlKernelInfo **instances;   /* generic: those made so far */
    int ninstances;
    TlKernelInfo *origin;   /* instance: its generic kernel */
    TlDType *tbind;         /* instance: [origin->ntvars] dtypes */
    int *pbind;             /* instance: [origin->npacks] lengths */
    void *cg_loaded;        /* the C backend's lowered and loaded kernel
                             * (codegen/c/target.c); NULL until the
                             * first call on target cpu */
};

/* --- schedules ---------------------------------------------------- */

/* Directives: X(ID, name, argument signature).  Signature letters:
 * v loop variable of the stage, n new loop variable, r reduction
 * variable of the stage, x index variable of the stage, i integer,
 * e integer size expression, w integer or `lane`, t tail name,
 * s stage of the same kernel, u loop variable of the previous `s`,
 * L list of level names; `?` makes the rest optional, `+` repeats the
 * previous letter (one or more). */
#define TL_DIRECTIVES(X)                                                 \
    X(SPLIT, "split", "vnni?t")                                          \
    X(FUSE, "fuse", "vvn")                                               \
    X(REORDER, "reorder", "v+")                                          \
    X(TILE, "tile", "vvnnnnii?t")                                        \
    X(VECTORIZE, "vectorize", "v?w")                                     \
    X(UNROLL, "unroll", "v?i")                                           \
    X(PARALLEL, "parallel", "v?i")                                       \
    X(COMPUTE_AT, "compute_at", "su")                                    \
    X(COMPUTE_ROOT, "compute_root", "")                                  \
    X(COMPUTE_INLINE, "compute_inline", "")                              \
    X(STORE_AT, "store_at", "su")                                        \
    X(STORE_ROOT, "store_root", "")                                      \
    X(REORDER_STORAGE, "reorder_storage", "x+")                          \
    X(RFACTOR, "rfactor", "rn")                                          \
    X(BOUND, "bound", "xee")                                             \
    X(STREAM, "stream", "")                                              \
    X(DISTRIBUTE, "distribute", "vL")                                    \
    X(GPU_BLOCKS, "gpu_blocks", "v+")                                    \
    X(GPU_THREADS, "gpu_threads", "v+")

typedef enum {
#define X(id, name, sig) SD_##id,
    TL_DIRECTIVES(X)
#undef X
    SD__COUNT
} TlDirKind;

typedef enum {
    SARG_VAR,       /* var: a loop variable (existing or new) */
    SARG_INT,       /* ival */
    SARG_EXPR,      /* sym: an integer expression over sizes/scalars */
    SARG_FUNC,      /* func: a stage (compute_at, store_at) */
    SARG_NAME,      /* name: a level, `lane`, or a tail strategy */
    SARG_LIST       /* items[nitems] */
} TlSchedArgKind;

typedef struct TlSchedArg {
    TlSchedArgKind kind;
    TlVar *var;
    int64_t ival;
    TlSymExpr *sym;
    TlFunc *func;
    const char *name;
    struct TlSchedArg *items;
    int nitems;
    TlExpr *expr;           /* as written */
} TlSchedArg;

typedef struct TlSchedDir {
    TlDirKind kind;
    const char *name;
    TlLoc loc;
    TlSchedArg *args;
    int nargs;
} TlSchedDir;

/* One directive statement: the stage (reached through the calls of
 * `path`, outermost first: `c1.Y` is path [c1] and func Y of the
 * callee) and its directives in order. */
typedef struct TlSchedChain {
    TlRefKind ref;          /* REF_CHAIN */
    TlStmt *stmt;
    TlCall **path;
    int npath;
    TlFunc *func;
    TlSchedDir *dirs;
    int ndirs;
} TlSchedChain;

typedef struct TlSchedLayout {
    TlRefKind ref;          /* REF_LAYOUT */
    TlStmt *stmt;
    TlFunc *func;           /* the tensor of the kernel */
    TlLayout *layout;
} TlSchedLayout;

struct TlSchedInfo {
    TlRefKind ref;          /* REF_SCHEDULE */
    TlKernelInfo *kernel;
    TlItem *item;
    const char *target;     /* "cpu", "accel" */
    const char *variant;    /* NULL for the default */
    TlSchedChain **chains;  /* in source order */
    int nchains;
    TlSchedLayout **layouts;
    int nlayouts;
    const TlSchedInfo *origin;  /* in an instance of a generic kernel:
                                 * the generic kernel's schedule this is
                                 * a checked copy of (item is a copy) */
};

/* tl_check with options.  allow_redefine: a top-level `let` may
 * define a name again (the REPL); a file makes that an error.
 * prior[nprior]: programs of the same session checked before without
 * errors, oldest first (the REPL's earlier inputs).  Their kernels,
 * externs, imported names and top-level lets are visible to prog as if
 * defined before its first item; the newest definition of a name wins,
 * and prog may define any of them again, shadowing it (a let's right
 * side still sees the earlier value: `let a = a + 1`).  Checking
 * changes nothing of theirs that the interpreter reads. */
typedef struct TlCheckOpts {
    int allow_redefine;
    TlProgram *const *prior;
    int nprior;
} TlCheckOpts;
int tl_check_opts(TlSession *s, TlProgram *prog, const TlCheckOpts *opts);

/* Known targets ("cpu", "accel"): 1 if name is one. */
int tl_target_known(const char *name);

/* The kernel of a checked kernel item, or NULL. */
TlKernelInfo *tl_kernel_info(const TlItem *it);

/* The position of f in fs[n] (a kernel's inputs, outputs or consts),
 * or -1. */
int tl_func_index(TlFunc *const *fs, int n, const TlFunc *f);

/* The instance of generic kernel g (checked without errors) for tensor
 * arguments of dtypes[g->ninputs] and ranks[g->ninputs] - what
 * `tdsl run --kernel` needs once it has read its input files.  Made
 * and checked on first use, then shared (the same instance a call in
 * the program would use).  Returns g itself when g is not generic, and
 * NULL after reporting why not (a kind violated, conflicting dtypes, a
 * rank too small, a dtype variable that no argument binds, an error in
 * the instance) at `where` (which may be {-1, ...}: no location).  Use
 * it after tl_check of the program that holds g, in the same
 * session. */
TlKernelInfo *tl_instantiate(TlSession *s, TlKernelInfo *g,
                             const TlDType *dtypes, const int *ranks,
                             TlLoc where);
/* The same with explicit dtypes[g->ntvars] for the dtype variables
 * (DT_NONE: bound by the arguments), as `cast_to<f16>(x)` gives them;
 * tvars may be NULL. */
TlKernelInfo *tl_instantiate_with(TlSession *s, TlKernelInfo *g,
                                  const TlDType *dtypes, const int *ranks,
                                  const TlDType *tvars, TlLoc where);

/* Prints the checked pipeline of every kernel of prog (and its
 * schedules) as indented text: what `tdsl dump --pipeline` shows and
 * tests/pipeline compares.  Call after tl_check. */
void tl_dump_pipeline(TlBuf *out, TlSession *s, const TlProgram *prog);

/* end of checked pipeline section */

#endif
