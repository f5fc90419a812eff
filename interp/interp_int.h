/*
 * interp_int.h - declarations shared inside the interpreter module only
 * (hidden from the library's users with TL_INTERNAL).
 */
#ifndef TL_INTERP_INT_H
#define TL_INTERP_INT_H

#include "interp/interp.h"

/* ====================================================================
 * Tensor file plumbing (interp/npy.c), shared with safetensors.c
 * ==================================================================== */

/* Where a tensor file is read from: an open file or a memory buffer. */
typedef struct ItpSrc {
    FILE *fp;                   /* NULL for memory */
    const unsigned char *mem;
    uint64_t size;              /* bytes in the file or buffer */
    const char *name;           /* for messages */
} ItpSrc;

/* Opens path for reading and finds its size; -1 with a message. */
TL_INTERNAL int itp_src_open(ItpSrc *s, const char *path, char *err,
                             size_t errlen);
TL_INTERNAL void itp_src_mem(ItpSrc *s, const void *data, size_t len,
                             const char *name);
TL_INTERNAL void itp_src_close(ItpSrc *s);
/* 0 when the source holds n bytes at offset off; else -1 with the
 * message of itp_src_read. */
TL_INTERNAL int itp_src_check(const ItpSrc *s, uint64_t off, uint64_t n,
                              const char *what, char *err, size_t errlen);
/* Reads n bytes at offset off; -1 with a message ("... ends after N
 * bytes, WHAT needs M more") when the source is too short or fails. */
TL_INTERNAL int itp_src_read(ItpSrc *s, uint64_t off, void *dst, size_t n,
                             const char *what, char *err, size_t errlen);

/* Where a tensor file is written: a file or a TlBuf.  Errors stick:
 * once a write fails the rest are skipped and itp_sink_close reports. */
typedef struct ItpSink {
    FILE *fp;
    TlBuf *buf;
    const char *name;
    int regular;                /* fp is a regular file */
    int err_no;                 /* errno of the first failed write */
} ItpSink;

TL_INTERNAL int itp_sink_open(ItpSink *k, const char *path, char *err,
                              size_t errlen);
TL_INTERNAL void itp_sink_buf(ItpSink *k, TlBuf *buf, const char *name);
TL_INTERNAL void itp_sink_put(ItpSink *k, const void *data, size_t n);
/* Writes the elements of t in row-major order, little-endian, bool as
 * bytes 0/1. */
TL_INTERNAL void itp_sink_tensor(ItpSink *k, const TlTensor *t);
/* Flushes and closes; -1 with a message if any write failed.  A
 * regular file that failed is removed, so no half-written file is left
 * behind (devices and pipes are left alone). */
TL_INTERNAL int itp_sink_close(ItpSink *k, const char *path, char *err,
                               size_t errlen);

/* Writes "'name': " and the formatted message into err. */
TL_INTERNAL void itp_error(char *err, size_t errlen, const char *name,
                           const char *fmt, ...) TL_PRINTF(4, 5);
TL_INTERNAL int itp_big_endian(void);
/* Reverses the bytes of each of n elements of `size` bytes. */
TL_INTERNAL void itp_swap_bytes(void *data, int64_t n, int size);
/* Fills t (new, packed) from the source at off: size check, read, byte
 * swap when the file's order is not the host's, bool bytes made 0/1. */
/* npy_str.c: numpy unicode arrays.  The width of descr d ('<U7': 7)
 * and whether its code units need swapping; 0 for another descr, -1
 * for a bad width. */
TL_INTERNAL int itp_npy_str_width(const char *d, int *swap);
/* The str tensor of the 'U' data at off; NULL after a message. */
TL_INTERNAL TlTensor *itp_npy_read_str(ItpSrc *s, uint64_t off, int rank,
                                       const int64_t *shape, int width,
                                       int swap, char *err, size_t errlen);
/* The width str tensor t needs as a 'U' array, or -1 after a message
 * (a string that is not valid UTF-8). */
TL_INTERNAL int itp_npy_str_prepare(const TlTensor *t, const char *name,
                                    char *err, size_t errlen);
/* t's elements as code units of that width. */
TL_INTERNAL void itp_npy_put_str(ItpSink *k, const TlTensor *t, int width);
TL_INTERNAL int itp_read_tensor(ItpSrc *s, uint64_t off, TlTensor *t,
                                int swap, char *err, size_t errlen);

#endif
