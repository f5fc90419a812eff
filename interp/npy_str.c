/*
 * npy_str.c - numpy's unicode arrays ('<U7': each element 7 UTF-32
 * code units, padded with NULs) as str tensors.  Reading decodes each
 * element to UTF-8 up to its padding; writing encodes each string's
 * UTF-8 as code points, the width being the longest string's (at least
 * 1, as numpy's).  A str that is not valid UTF-8 (a TensorProto may
 * hold any bytes) has no 'U' form and is refused, as is an element
 * with a NUL before other code points or a code point that is none.
 */
#include "interp/interp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The widest element accepted, in code points (4 MiB per element). */
#define MAX_WIDTH (1 << 20)

int itp_npy_str_width(const char *d, int *swap)
{
    char order = d[0];
    long w;
    char *end;

    if (!(order == '<' || order == '>' || order == '|' || order == '=') ||
        d[1] != 'U' || d[2] < '0' || d[2] > '9')
        return 0;
    w = strtol(d + 2, &end, 10);
    if (*end || w < 1 || w > MAX_WIDTH)
        return -1;
    *swap = (order == '>') != itp_big_endian() && order != '|' &&
            order != '=';
    return (int)w;
}

/* UTF-8 of code point c into out (4 bytes at most); its length, 0 for
 * a value that is no code point. */
static int put_utf8(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xc0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
        return 0;
    if (c < 0x10000) {
        out[0] = (char)(0xe0 | c >> 12);
        out[1] = (char)(0x80 | (c >> 6 & 0x3f));
        out[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | c >> 18);
    out[1] = (char)(0x80 | (c >> 12 & 0x3f));
    out[2] = (char)(0x80 | (c >> 6 & 0x3f));
    out[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

TlTensor *itp_npy_read_str(ItpSrc *s, uint64_t off, int rank,
                           const int64_t *shape, int width, int swap,
                           char *err, size_t errlen)
{
    char msg[200];
    int64_t numel = tl_shape_nbytes(DT_U8, rank, shape, msg, sizeof msg);
    uint64_t esize = (uint64_t)width * 4;
    uint32_t *units;
    char *text;
    TlTensor *t;

    if (numel < 0) {
        itp_error(err, errlen, s->name, "%s", msg);
        return NULL;
    }
    if (numel && esize > (uint64_t)TL_TENSOR_MAX_BYTES / (uint64_t)numel) {
        itp_error(err, errlen, s->name, "%lld strings of %d characters "
                  "are too many", (long long)numel, width);
        return NULL;
    }
    if (itp_src_check(s, off, (uint64_t)numel * esize, "the data", err,
                      errlen) < 0)
        return NULL;
    if (!(t = tl_tensor_new(DT_STR, rank, shape, msg, sizeof msg))) {
        itp_error(err, errlen, s->name, "%s", msg);
        return NULL;
    }
    units = tl_xmalloc((size_t)esize);
    text = tl_xmalloc((size_t)width * 4 + 1);
    for (int64_t i = 0; i < numel; i++) {
        size_t n = 0;
        int end = 0;
        if (itp_src_read(s, off + (uint64_t)i * esize, units, (size_t)esize,
                         "the data", err, errlen) < 0)
            goto fail;
        for (int j = 0; j < width; j++) {
            uint32_t c = units[j];
            int len;
            if (swap)
                c = c >> 24 | (c >> 8 & 0xff00) | (c << 8 & 0xff0000) |
                    c << 24;
            if (c == 0) {
                end = 1;
                continue;
            }
            if (end || !(len = put_utf8(c, text + n))) {
                itp_error(err, errlen, s->name, "string %lld holds %s",
                          (long long)i, end ? "a NUL before its end"
                                            : "a value that is no Unicode "
                                              "code point");
                goto fail;
            }
            n += (size_t)len;
        }
        tl_str_put((char *)t->data + i * 8, tl_str_intern(text, n));
    }
    free(units);
    free(text);
    return t;
fail:
    free(units);
    free(text);
    tl_tensor_unref(t);
    return NULL;
}

/* The code points of UTF-8 string s into out (when not NULL); their
 * count, or -1 when s is not valid UTF-8. */
static int64_t code_points(const char *s, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    int64_t n = 0;

    while (*p) {
        uint32_t c = *p, min;
        int more = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1
                   : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3
                                                                  : -1;
        if (more < 0)
            return -1;
        min = more == 1 ? 0x80 : more == 2 ? 0x800 : 0x10000;
        c &= more ? 0x3fu >> more : 0x7f;
        for (int k = 1; k <= more; k++) {
            if ((p[k] & 0xc0) != 0x80)
                return -1;
            c = c << 6 | (p[k] & 0x3f);
        }
        if ((more && c < min) || (c >= 0xd800 && c < 0xe000) ||
            c > 0x10ffff)
            return -1;
        if (out)
            out[n] = c;
        n++;
        p += more + 1;
    }
    return n;
}

int itp_npy_str_prepare(const TlTensor *t, const char *name, char *err,
                        size_t errlen)
{
    TlTensor *c = tl_tensor_contiguous((TlTensor *)t);
    int64_t n = tl_tensor_numel(c), w = 1;

    for (int64_t i = 0; i < n; i++) {
        int64_t k = code_points(tl_str_at((char *)c->data + i * 8), NULL);
        if (k < 0 || k > MAX_WIDTH) {
            itp_error(err, errlen, name, "string %lld %s", (long long)i,
                      k < 0 ? "is not valid UTF-8, which numpy's unicode "
                              "arrays need"
                            : "is too long for a .npy file");
            w = -1;
            break;
        }
        if (k > w)
            w = k;
    }
    tl_tensor_unref(c);
    return (int)w;
}

void itp_npy_put_str(ItpSink *k, const TlTensor *t, int width)
{
    TlTensor *c = tl_tensor_contiguous((TlTensor *)t);
    int64_t n = tl_tensor_numel(c);
    uint32_t *units = tl_xcalloc((size_t)width + 1, sizeof *units);

    for (int64_t i = 0; i < n; i++) {
        memset(units, 0, (size_t)width * sizeof *units);
        code_points(tl_str_at((char *)c->data + i * 8), units);
        /* Little-endian, as the '<U' descr says, on the hosts tdsl runs
         * on; big-endian hosts swap here. */
        if (itp_big_endian())
            itp_swap_bytes(units, width, 4);
        itp_sink_put(k, units, (size_t)width * sizeof *units);
    }
    free(units);
    tl_tensor_unref(c);
}
