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
 * f2 f4 f8 i1 i2 i4 i8 u1 b1 in either byte order; a Fortran-order
 * array is transposed into row-major order.  Object, structured and
 * other dtypes, malformed headers, absurd shapes and short files are
 * errors.  Data after the array is ignored (numpy does the same). */
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

/* An opened .safetensors file whose header has been read and checked:
 * every entry has a supported dtype, a shape within the limits, and
 * data offsets inside the file that match the shape and overlap no
 * other entry.  Tensor data is read only when asked for. */
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

/* ====================================================================
 * The interpreter (interp/eval*.c): the meaning of every kernel
 *
 * It starts from the checked pipeline (lang.h, "Checked pipeline") and
 * never looks at schedules.  Run-time errors are reported through the
 * session's diagnostics (the "runtime" section of lang/diag_msgs.h) at
 * the source location where they happen, with the values involved.
 * ==================================================================== */

/* A scalar argument of a kernel call; the parameter's dtype decides
 * which field is read.  given == 0 means "use the default". */
typedef struct TlScalarArg {
    int given;
    int is_float;
    double f;
    int64_t i;
} TlScalarArg;

/* What a kernel needs from its surroundings at run time. */
typedef struct TlRuntime {
    TlSession *s;
    /* The value of a top-level `let` tensor that a kernel reads
     * (FN_CONST); a borrowed reference, or NULL after reporting. */
    TlTensor *(*const_value)(void *ctx, const TlLet *let);
    void *ctx;
} TlRuntime;

/* Runs kernel k.  inputs[k->ninputs] may have any strides; their
 * dtypes and ranks must match the parameters and their shapes bind the
 * size variables (a mismatch is a run-time error naming the parameter
 * and both sizes).  scalars[k->nscalars] may be NULL (all defaults).
 * On success fills outputs[k->noutputs] with new packed tensors (the
 * caller unrefs them) and returns 0; on failure reports one error
 * (with a note at call_loc when call_loc.file >= 0), leaves outputs
 * NULL and returns -1. */
int itp_call_kernel(TlRuntime *rt, TlKernelInfo *k,
                    TlTensor *const *inputs, const TlScalarArg *scalars,
                    TlTensor **outputs, TlLoc call_loc);

/* end of interpreter section */

#endif
