/*
 * interp.h - the public interface of the interpreter module: the
 * reference interpreter that gives every tdsl program its meaning (to
 * come, issue 3), and the tensor files it reads and writes.
 *
 * Tensor files are read and written outside any session: the functions
 * below do not print and do not use TlSession.  Each returns NULL or -1
 * on failure after writing one message into err[0..errlen) (when err is
 * not NULL), in the form "'x.npy': shape product overflows" - the file
 * name in quotes, then what is wrong, lower-case, no final period.
 */
#ifndef TL_INTERP_H
#define TL_INTERP_H

#include "lang/lang.h"

/* ====================================================================
 * Tensor I/O (interp/npy.c, interp/safetensors.c)
 * ==================================================================== */

/* --- .npy (numpy's format, versions 1.0, 2.0 and 3.0) ------------- */

/* Reads the array of a .npy file into a new packed tensor.  Dtypes
 * f2 f4 f8 i1 i2 i4 i8 u1 b1 in either byte order.  Fortran-order
 * arrays ("'x.npy': Fortran-order arrays are not supported; save with
 * np.ascontiguousarray(a)"), object, structured and other dtypes,
 * malformed headers, absurd shapes and short files are errors; the
 * size is checked against the file before anything is allocated.  Data
 * after the array is ignored (numpy does the same). */
TlTensor *tl_npy_read(const char *path, char *err, size_t errlen);
/* The same from len bytes in memory; name stands for the path in
 * messages. */
TlTensor *tl_npy_read_mem(const void *data, size_t len, const char *name,
                          char *err, size_t errlen);

/* Writes t (any strides) as a little-endian, row-major .npy file,
 * format 1.0 (a header of at most TL_MAX_RANK dimensions never needs
 * 2.0).  bf16 has no numpy dtype and is refused with a hint to use
 * .safetensors; nothing is created then. */
int tl_npy_write(const char *path, const TlTensor *t, char *err,
                 size_t errlen);
/* The same, appending the file's bytes to out. */
int tl_npy_write_buf(TlBuf *out, const TlTensor *t, const char *name,
                     char *err, size_t errlen);

/* --- .safetensors ---------------------------------------------------- */

/* An opened .safetensors file whose header has been read (by json-c,
 * as strict JSON: repeated keys, single quotes, raw control characters
 * and lone surrogates are errors) and checked: every entry has a
 * supported dtype, a shape within the limits, and data offsets inside
 * the file that match the shape and overlap no other entry.  Tensor
 * data is read only when asked for. */
typedef struct TlSafetensors TlSafetensors;

/* One entry of the header. */
typedef struct TlSafetensorsEntry {
    const char *name;
    TlDType dtype;
    int rank;
    int64_t shape[TL_MAX_RANK];
    uint64_t begin, end;        /* data_offsets: bytes after the header */
} TlSafetensorsEntry;

/* Opens and validates path; the file stays open until _close. */
TlSafetensors *tl_safetensors_open(const char *path, char *err,
                                   size_t errlen);
/* The same over len bytes in memory, which must outlive the handle. */
TlSafetensors *tl_safetensors_open_mem(const void *data, size_t len,
                                       const char *name, char *err,
                                       size_t errlen);
void tl_safetensors_close(TlSafetensors *f);

/* Entries in key order (byte-wise), i in 0..count-1. */
int tl_safetensors_count(const TlSafetensors *f);
const TlSafetensorsEntry *tl_safetensors_entry(const TlSafetensors *f,
                                               int i);
/* The index of key, or -1. */
int tl_safetensors_find(const TlSafetensors *f, const char *key);
/* A new packed tensor with the data of entry key; an unknown key is an
 * error that lists some of the keys the file holds. */
TlTensor *tl_safetensors_get(TlSafetensors *f, const char *key, char *err,
                             size_t errlen);

/* The "__metadata__" strings, in the file's order; get returns NULL for
 * a missing key. */
int tl_safetensors_meta_count(const TlSafetensors *f);
const char *tl_safetensors_meta_key(const TlSafetensors *f, int i);
const char *tl_safetensors_meta_value(const TlSafetensors *f, int i);
const char *tl_safetensors_meta_get(const TlSafetensors *f,
                                    const char *key);

/* Opens path, reads one tensor and closes it.  key may be NULL when the
 * file holds exactly one tensor. */
TlTensor *tl_safetensors_read(const char *path, const char *key,
                              char *err, size_t errlen);

/* A tensor to write under a name. */
typedef struct TlNamedTensor {
    const char *name;
    const TlTensor *t;
} TlNamedTensor;

/* Writes n tensors (any strides, all dtypes) under their names, sorted
 * by name, with nmeta "__metadata__" pairs meta[2i] -> meta[2i+1] (meta
 * may be NULL when nmeta is 0).  Names must be distinct, valid UTF-8 and
 * not "__metadata__".  The header is padded with spaces to a multiple of
 * 8 bytes, so that the data is aligned. */
int tl_safetensors_write(const char *path, const TlNamedTensor *ts, int n,
                         const char *const *meta, int nmeta, char *err,
                         size_t errlen);
/* The same, appending the file's bytes to out. */
int tl_safetensors_write_buf(TlBuf *out, const TlNamedTensor *ts, int n,
                             const char *const *meta, int nmeta,
                             const char *name, char *err, size_t errlen);

/* --- ONNX TensorProto (.pb; interp/onnxpb.c) ------------------------ */

/* Reads a serialized onnx.TensorProto (ONNX test data, initializers)
 * into a new packed tensor: data types float, double, float16, bfloat16,
 * int8 .. int64, uint8 and bool, the values in raw_data or in the typed
 * field of the data type (int32_data for 8- and 16-bit types and bool,
 * holding the 16 bits of float16 and bfloat16).  Counts, sizes and
 * value ranges are checked; strings (string_data) give str tensors;
 * external data, segments, complex
 * and uint16/32/64 tensors are refused with a message.  The tensor's
 * name is not kept. */
TlTensor *tl_onnx_tensor_read(const char *path, char *err, size_t errlen);
/* The same from len bytes in memory; name stands for the path in
 * messages. */
TlTensor *tl_onnx_tensor_read_mem(const void *data, size_t len,
                                  const char *name, char *err,
                                  size_t errlen);
/* t, a tensor read from a TensorProto, where a bfloat16 one is
 * expected: ONNX's own test data (1.12) writes bfloat16 tensors as
 * uint16 ones holding the 16 bits (numpy has no bfloat16), so a uint16
 * t becomes bf16 with the same bits; any other t is returned as is. */
TlTensor *tl_onnx_bf16_bits(TlTensor *t);
/* Reads a serialized onnx.SequenceProto of tensors (ONNX's sequence
 * test data): its elements, *n of them, in an array the caller frees
 * (and unrefs each); NULL after a message.  Another elem_type (maps,
 * sequences, sparse tensors) is refused. */
TlTensor **tl_onnx_sequence_read(const char *path, int *n, char *err,
                                 size_t errlen);
/* The same from len bytes in memory; name stands for the path in
 * messages. */
TlTensor **tl_onnx_sequence_read_mem(const void *data, size_t len,
                                     const char *name, int *n, char *err,
                                     size_t errlen);
/* Writes t as a TensorProto (raw_data; string_data for str); 0, or -1
 * after a message. */
int tl_onnx_tensor_write(const char *path, TlTensor *t, char *err,
                         size_t errlen);
/* Writes ts[n] as a SequenceProto of tensors (raw_data); 0, or -1
 * after a message. */
int tl_onnx_sequence_write(const char *path, TlTensor *const *ts, int n,
                           char *err, size_t errlen);
/* Reads a serialized onnx.OptionalProto (ONNX's optional test data):
 * *kind is its elem_type, 0 (no element: *n is 0), 1 (a tensor: *n is
 * 1) or 3 (a sequence of *n tensors); the tensors in an array the
 * caller frees (and unrefs each); NULL after a message.  Another
 * elem_type (a map, a sparse tensor, an optional) is refused. */
TlTensor **tl_onnx_optional_read(const char *path, int *kind, int *n,
                                 char *err, size_t errlen);
TlTensor **tl_onnx_optional_read_mem(const void *data, size_t len,
                                     const char *name, int *kind, int *n,
                                     char *err, size_t errlen);
/* Writes an OptionalProto of elem_type kind (0, 1 or 3) holding ts[n]
 * (n is 0 for 0, 1 for 1); 0, or -1 after a message. */
int tl_onnx_optional_write(const char *path, int kind, TlTensor *const *ts,
                           int n, char *err, size_t errlen);

/* ====================================================================
 * The interpreter (interp/eval*.c): the meaning of every kernel
 *
 * It starts from the checked pipeline (lang.h, "Checked pipeline") and
 * never looks at schedules.  Run-time errors are reported through the
 * session's diagnostics (the "runtime" section of lang/diag_msgs.h) at
 * the source location where they happen, with the values involved.
 * ==================================================================== */

/* A scalar argument of a kernel call.  given == 0 means "use the
 * default".  The value is `f` when is_float is set, else `i`; it is
 * converted to the parameter's dtype by the language's cast rules
 * (lang.h, tl_dt_store_f64), so 2.5 given to an i32 parameter is 2. */
typedef struct TlScalarArg {
    int given;
    int is_float;
    double f;
    int64_t i;
} TlScalarArg;

/* How kernels are evaluated (TlRuntime.mode). */
typedef enum {
    ITP_ROWS = 0,   /* whole rows of the innermost axis at once */
    ITP_SCALAR      /* one tree walk per element: the reference mode */
} TlEvalMode;

/* The externs resolved so far (interp/ffi.c). */
typedef struct ItpFfiCache ItpFfiCache;

/* What a kernel needs from its surroundings at run time.  Zero-fill
 * it, then set s (and const_value/ctx when kernels read top-level
 * tensors); keep one for the whole session, since it caches the
 * extern functions it has resolved. */
typedef struct TlRuntime {
    TlSession *s;
    /* The value of a top-level `let` tensor that a kernel reads
     * (FN_CONST); a borrowed reference, or NULL after reporting. */
    TlTensor *(*const_value)(void *ctx, const TlLet *let);
    void *ctx;
    /* ITP_ROWS or ITP_SCALAR; the environment variable
     * TDSL_INTERP=scalar forces ITP_SCALAR (TDSL_INTERP=rows: ITP_ROWS).
     * Both give the same results and the same errors. */
    TlEvalMode mode;
    /* Externs resolved so far: made on first use, in s's arena (so it
     * lives as long as the checked program); libraries stay loaded. */
    ItpFfiCache *ffi;
} TlRuntime;

/* Runs kernel k (checked without errors: k->ok).  inputs[k->ninputs]
 * may have any strides; their dtypes and ranks must match the
 * parameters and their shapes bind the size variables (a mismatch is a
 * run-time error naming the parameter and both sizes).
 * scalars[k->nscalars] may be NULL (all defaults).  On success fills
 * outputs[k->noutputs] with new packed tensors of the declared dtypes
 * (the caller unrefs them) and returns 0; on failure reports one error
 * (with a note at call_loc when call_loc.file >= 0), leaves outputs
 * NULL and returns -1.
 *
 * Meaning (lang/SPEC.md): stages are computed in k->funcs order over
 * their domains; integer `/` and `%` round toward negative infinity
 * (by zero: 0); f16/bf16 arithmetic rounds after every operation;
 * reductions accumulate in the order written, the last variable
 * innermost, in the body's dtype; `select` evaluates only the chosen
 * side; reads are bounds-checked (zero_pad: 0 outside, clamp_edge: the
 * nearest element).  Run-time errors are those of the "runtime"
 * section of lang/diag_msgs.h. */
int itp_call_kernel(TlRuntime *rt, TlKernelInfo *k,
                    TlTensor *const *inputs, const TlScalarArg *scalars,
                    TlTensor **outputs, TlLoc call_loc);

/* For a compiled target that checks a kernel's asserts (SPEC 6.8) on
 * the host before it runs the rest: itp_assert_reads gives the first
 * tensor assert f reads that the kernel computes (a stage, a call's
 * result), NULL when it reads only parameters, sizes, scalars and
 * top-level tensors.  itp_check_asserts evaluates the asserts of a
 * call of k as itp_call_kernel does, computing nothing else (none may
 * read a computed tensor): 0 when all hold, else -1 after the
 * interpreter's own error (RT_KERNEL_ASSERT at the assert, a note at
 * call_loc when call_loc.file >= 0). */
const TlFunc *itp_assert_reads(const TlFunc *f);
int itp_check_asserts(TlRuntime *rt, TlKernelInfo *k,
                      TlTensor *const *inputs, const TlScalarArg *scalars,
                      TlLoc call_loc);
/* The same where asserts read stages the kernel computes: given[i]
 * (indexed like k->funcs, NULL where none) is stage i's value, which
 * a compiled target computed; every computed tensor an assert reads
 * must be given (else the interpreter computes it). */
int itp_check_asserts_given(TlRuntime *rt, TlKernelInfo *k,
                            TlTensor *const *inputs,
                            const TlScalarArg *scalars,
                            TlTensor *const *given, TlLoc call_loc);

/* Every scalar parameter of a call of k as the call binds it: given
 * (scalars[i].given, scalars may be NULL) or its default evaluated as
 * the interpreter does, into out[k->nscalars] (all given; is_float for
 * float dtypes).  For a compiled target whose sizes or code depend on
 * defaults.  0, or -1 after reporting (a note at call_loc when
 * call_loc.file >= 0). */
int itp_call_scalars(TlRuntime *rt, TlKernelInfo *k,
                     TlTensor *const *inputs, const TlScalarArg *scalars,
                     TlScalarArg *out, TlLoc call_loc);

/* One argument of a top-level extern call: t for a tensor parameter
 * (any strides; a borrowed reference), s for a scalar one. */
typedef struct TlExternArg {
    TlTensor *t;
    TlScalarArg s;
} TlExternArg;

/* Calls extern x (with scalar or tensor parameters) at the top level
 * with args[x->nparams].  The C function is called as declared, with
 * each tensor parameter `x: T[A, B, ...]` passed as
 *     const T *x_data, int64_t x_n0, int64_t x_n1, ...
 * (a pointer to a packed row-major copy when the tensor is not packed,
 * then its extent on every axis, in order), and each scalar as its C
 * type: bool -> uint8_t, u8 -> uint8_t, i8 .. i64 -> int8_t ..
 * int64_t, f32 -> float, f64 -> double (f16 and bf16 have no C type
 * and are refused).  The function must not write through the pointers.
 * Tensor arguments must have the parameter's dtype and rank; a shape
 * entry written as a literal must match, and one written as a name must
 * be the same wherever that name appears.  Scalars convert like
 * kernel scalars.  On success stores the result (a value of x->ret:
 * is_float set for float dtypes) in *result and returns 0; else
 * reports one error (a note at call_loc when call_loc.file >= 0) and
 * returns -1. */
int itp_call_extern(TlRuntime *rt, TlExternInfo *x, const TlExternArg *args,
                    TlScalarArg *result, TlLoc call_loc);

/* end of interpreter section */

/* ====================================================================
 * Scripts (interp/exec.c, interp/value.c, interp/builtins.c): the
 * top-level statements of a checked program
 *
 * A TlInterp holds the values of top-level names.  It lives as long as
 * its session and can run several programs of that session one after
 * the other (the REPL runs each input so), the names of one staying
 * visible to the next.  In a program, kernels, schedules, externs and
 * imports only define; its statements run in order.  A run-time error
 * is reported through the session's diagnostics at the expression where
 * it happened (the "script" section of lang/diag_msgs.h, and the
 * interpreter's own) and stops the program.
 * ==================================================================== */

/* The value of a top-level expression or name. */
typedef enum {
    VAL_NONE,       /* no value: save(...) */
    VAL_NUM,        /* a scalar of `dtype`: i (bool, integers) or f */
    VAL_TENSOR,     /* t, of rank >= 1 (a rank-0 result is a VAL_NUM) */
    VAL_STR,        /* s */
    VAL_DTYPE,      /* dtype: a dtype name as an argument, rand(f32, ..) */
    VAL_LIST,       /* items[n]: [2, 3] */
    VAL_MULTI       /* items[n]: the outputs of a multi-output call */
} TlValueKind;

/* Values own what they hold (itp_value_free releases it).  A VAL_NUM
 * holds exactly a value of its dtype: the float rounded to it, the
 * integer wrapped into its range, a bool 0 or 1. */
typedef struct TlValue {
    TlValueKind kind;
    TlDType dtype;          /* VAL_NUM, VAL_DTYPE */
    int64_t i;              /* VAL_NUM of bool or integer dtype */
    double f;               /* VAL_NUM of float dtype */
    TlTensor *t;            /* VAL_TENSOR: one reference */
    int is_shape;           /* VAL_TENSOR made by shape(): prints [2, 4] */
    char *s;                /* VAL_STR */
    struct TlValue *items;  /* VAL_LIST, VAL_MULTI */
    int n;
} TlValue;

/* Releases what v holds and makes it VAL_NONE (NULL is ignored). */
void itp_value_free(TlValue *v);
/* A copy of v sharing its tensors (one more reference each). */
TlValue itp_value_copy(const TlValue *v);
/* A scalar of dtype dt from an integer or a double, converted by the
 * language's casts (tl_dt_store_i64/_f64). */
TlValue itp_num_i64(TlDType dt, int64_t v);
TlValue itp_num_f64(TlDType dt, double v);
/* A VAL_NUM as a double or an integer (floats truncate, as casts do). */
double itp_num_get_f64(const TlValue *v);
int64_t itp_num_get_i64(const TlValue *v);
/* A tensor (one new reference) for a VAL_TENSOR, or a rank-0 tensor for
 * a VAL_NUM; NULL for other kinds. */
TlTensor *itp_value_tensor(const TlValue *v);
/* The value of tensor t, taking over its reference: a VAL_TENSOR, or a
 * VAL_NUM when t has rank 0. */
TlValue itp_value_of_tensor(TlTensor *t);

/* Appends what `print` shows for v, without a final newline: tensors
 * as tl_tensor_print (type line, then numpy-like elements), scalars as
 * their value alone ("2.5", "true"), strings as they are, dtypes by
 * name, lists and shapes as "[2, 4]", several values one per line. */
void itp_value_print(TlBuf *out, const TlValue *v);
/* Appends the type of v: "f32[2, 4]", "f32" (a scalar), "string",
 * "dtype", "list", "none", or the types of several in parentheses. */
void itp_value_type(TlBuf *out, const TlValue *v);

typedef struct TlInterp TlInterp;

/* A new interpreter for programs of session s, printing to stdout
 * (itp_set_output changes that).  Free it before the session. */
TlInterp *itp_new(TlSession *s);
void itp_free(TlInterp *ip);
void itp_set_output(TlInterp *ip, FILE *out);

/* Runs the statements of prog (checked without errors by tl_check)
 * in order, and returns 0, or -1 after reporting the first run-time
 * error (an assertion that fails is one).  The values bound before the
 * error stay bound. */
int itp_exec_program(TlInterp *ip, TlProgram *prog);
/* Runs one top-level statement; 0 or -1 after reporting. */
int itp_exec_stmt(TlInterp *ip, TlStmt *st);
/* Evaluates a checked top-level expression into *out (the caller frees
 * it); 0, or -1 after reporting (*out is VAL_NONE then). */
int itp_eval(TlInterp *ip, TlExpr *e, TlValue *out);

/* The value of top-level name `let` (borrowed), computing it first if
 * its statement has not run: a kernel run on its own (`tdsl run`) gets
 * the tensors it reads that way.  NULL after reporting an error. */
const TlValue *itp_let_value(TlInterp *ip, const TlLet *let);
/* The latest value bound to name, or NULL. */
const TlValue *itp_lookup(TlInterp *ip, const char *name);

/* The runtime for itp_call_kernel: its const_value gives the
 * interpreter's values of top-level tensors (itp_let_value). */
TlRuntime *itp_runtime(TlInterp *ip);

/* Runs a kernel like itp_call_kernel on `target`: NULL for the
 * interpreter, else through the runner registered for that target (a
 * run-time error at call_loc when there is none: "target 'cpu' is not
 * available yet: ..."). */
int itp_run_kernel(TlInterp *ip, const char *target, TlKernelInfo *k,
                   TlTensor *const *inputs, const TlScalarArg *scalars,
                   TlTensor **outputs, TlLoc call_loc);

/* A compiled back end, as a runner with itp_call_kernel's contract
 * (the runner finds the kernel's schedules in k->schedules). */
typedef int (*TlTargetRunner)(TlRuntime *rt, TlKernelInfo *k,
                              TlTensor *const *inputs,
                              const TlScalarArg *scalars,
                              TlTensor **outputs, TlLoc call_loc);
/* For a runner that met something it cannot compile after its own
 * checks passed the call: runs the call on the interpreter, which must
 * stop at the user's error there; if the interpreter runs it instead,
 * the back end refused a valid program, an internal error naming
 * target. */
int itp_call_refused(const char *target, TlRuntime *rt, TlKernelInfo *k,
                     TlTensor *const *inputs, const TlScalarArg *scalars,
                     TlTensor **outputs, TlLoc call_loc);

/* The C function of scalar extern x for a compiled kernel to call,
 * resolved as the interpreter resolves it (once per runtime); NULL,
 * reporting nothing, when it cannot be called (the interpreter reports
 * why where a kernel first calls it). */
typedef void (*TlCFunc)(void);
TlCFunc itp_extern_cfunc(TlRuntime *rt, TlExternInfo *x);
/* Makes `target` ("cpu", "accel"; the string is kept, not copied) run
 * through fn, for every interpreter of the process; fn NULL removes it.
 * Back ends register themselves once at start-up, before any script
 * runs (the table is process-wide and not locked). */
void itp_register_target(const char *target, TlTargetRunner fn);
/* The runner of target, or NULL. */
TlTargetRunner itp_target_runner(const char *target);
/* A target whose runs have a cost of their own, reproducible (the
 * accelerator simulator's cycles), reports it for `time`: fn appends
 * the report of its last kernel run to out and returns 1, or returns 0
 * when it has none (`time` then measures wall-clock time); fn(NULL)
 * forgets the last run, so that a report is of the timed one.  target
 * must be registered; removing the target removes its report. */
typedef int (*TlTargetReport)(TlBuf *out);
void itp_register_target_report(const char *target, TlTargetReport fn);

/* The generator of rand(dtype, shape, seed = s), the same on every
 * platform.  Element k of t in row-major order (k = 0, 1, ...) takes
 * z = tl_rng_bits(s, k) of lang/rng.h, the k-th output of splitmix64
 * started from state = s (as uint64), which the kernel builtins
 * uniform and normal also use:
 *     state += 0x9e3779b97f4a7c15
 *     z = state
 *     z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
 *     z = (z ^ (z >> 27)) * 0x94d049bb133111eb
 *     z = z ^ (z >> 31)
 * and becomes, for floats with p significant bits (f64 53, f32 24,
 * f16 11, bf16 8), (z >> (64 - p)) * 2^-p: uniform in [0, 1) and exact
 * in the dtype (for f32, uniform(s, k)); for integers z % 100
 * (0 .. 99); for bool z >> 63.
 * t must be packed (tl_tensor_new). */
void itp_rand_fill(TlTensor *t, int64_t seed);

/* The outcome of itp_allclose. */
typedef struct TlCloseReport {
    int close;              /* 1: every element is close */
    int shape_differs;      /* the shapes differ (close is 0) */
    int64_t worst;          /* row-major position of the worst element */
    int64_t index[TL_MAX_RANK]; /* and its index */
    double a, b;            /* its values */
    double diff, tol;       /* |a - b| and atol + rtol * |b| there */
} TlCloseReport;
/* allclose(a, b, rtol, atol): the same shapes (dtypes may differ) and
 * |a - b| <= atol + rtol * |b| for every element, compared in f64.  A
 * NaN is close to nothing; equal infinities are close.  The worst
 * element is the first NaN, else the one exceeding its tolerance the
 * most, else the one with the largest |a - b|.  Returns close. */
int itp_allclose(const TlTensor *a, const TlTensor *b, double rtol,
                 double atol, TlCloseReport *r);

/* end of script section */

#endif
