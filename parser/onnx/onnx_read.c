/*
 * onnx_read.c - reading an .onnx file (a ModelProto) with the protobuf-c
 * code generated from the system onnx.proto, and turning TensorProto
 * initializers into tensors (through interp/onnxpb.c, so both paths
 * share one set of checks), external data included: read only from a
 * regular file inside the model's folder, reached without links or
 * "..".  Errors are messages, never crashes.
 */
#include "parser/onnx/onnx_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Models above this size are refused (protobuf's own limit is 2 GiB). */
#define OX_MAX_FILE ((long)1 << 30)

/* Unpacks a model held in memory; path names it in messages. */
Onnx__ModelProto *ox_parse_model(const void *data, size_t n,
                                 const char *path, char *err, size_t errlen)
{
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, n, data);

    if (!mp) {
        snprintf(err, errlen, "%s: not a valid ONNX model (the protobuf "
                 "is malformed or truncated)", path);
        return NULL;
    }
    if (!mp->graph) {
        onnx__model_proto__free_unpacked(mp, NULL);
        snprintf(err, errlen, "%s: the model has no graph", path);
        return NULL;
    }
    return mp;
}

/* Reads a whole file of at most max bytes; NULL with *why set. */
static unsigned char *slurp(const char *path, long max, long *len,
                            const char **why)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;

    *why = "cannot open";
    if (!f)
        return NULL;
    *why = "cannot read";
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    if (n > max) {
        fclose(f);
        *why = "larger than 1 GiB";
        return NULL;
    }
    data = tl_xmalloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    *len = n;
    return data;
}

Onnx__ModelProto *ox_read_model(const char *path, char *err, size_t errlen)
{
    Onnx__ModelProto *mp;
    const char *why;
    unsigned char *data;
    long n = 0;

    if (!(data = slurp(path, OX_MAX_FILE, &n, &why))) {
        snprintf(err, errlen, "%s: %s", path, why);
        return NULL;
    }
    mp = ox_parse_model(data, (size_t)n, path, err, errlen);
    free(data);
    return mp;
}

/* Writes s to stderr with control bytes and bytes that are not
 * printable ASCII as \xNN: names in a hostile file can hold anything. */
/* The message on one line of reasonable length: names and attribute
 * strings come from the file, and a hostile one may be megabytes. */
static void put_clean(const char *s)
{
    for (int n = 0; *s; s++, n++) {
        unsigned char c = (unsigned char)*s;
        if (n == 400) {
            fputs("...", stderr);
            return;
        }
        if (c >= 32 && c < 127)
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
}

void ox_clear_progress(OxModel *m)
{
    if (m->progress)
        fputs("\r\033[K", stderr);
    m->progress = 0;
}

static void vreport(OxModel *m, int with_node, const char *fmt, va_list ap)
{
    const Onnx__NodeProto *n = m->node;
    TlBuf b;

    if (m->error)
        return;
    if (m->quiet) {
        m->error = 1;
        return;
    }
    ox_clear_progress(m);
    buf_init(&b);
    buf_printf(&b, "%s: ", m->path);
    if (with_node && n) {
        /* unnamed: its first output that is there (optional ones may be
         * left empty, LSTM's Y say) */
        const char *name = n->name && *n->name ? n->name : "?";
        for (size_t i = 0; name[0] == '?' && i < n->n_output; i++)
            if (n->output[i] && *n->output[i])
                name = n->output[i];
        buf_printf(&b, "node '%s' (%s, opset %d): ", name,
                   n->op_type ? n->op_type : "?", m->opset);
    }
    buf_vprintf(&b, fmt, ap);
    put_clean(b.s);
    fputc('\n', stderr);
    buf_free(&b);
    m->error = 1;
}

void ox_fail(OxModel *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(m, 0, fmt, ap);
    va_end(ap);
}

/* "model.onnx: node 'x' (Conv, opset 11): MESSAGE" */
void ox_unsupported(OxModel *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(m, 1, fmt, ap);
    va_end(ap);
}

/* A decimal count for an external_data offset or length; -1 if bad. */
static long long ext_count(const char *v)
{
    char *end;
    long long x;

    if (!v || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    x = strtoll(v, &end, 10);
    return errno || *end ? -1 : x;
}

/* Why the relative path loc may not be read below dir, or NULL.  Each
 * component must be a plain name (no "..", no "/" at the start), none
 * may be a symbolic link, the file must be a regular file, and its
 * real path must lie inside dir's real path. */
static const char *ext_unsafe(const char *dir, const char *loc)
{
    char *path, *real, *rdir;
    const char *c = loc;
    struct stat st;
    size_t dl = strlen(dir), n;
    int ok;

    if (!*loc)
        return "the location is empty";
    if (*loc == '/')
        return "the location is an absolute path";
    for (; *c; c += *c == '/') {
        n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return "the location has a '..' component";
        c += n;
    }
    path = tl_xmalloc(dl + strlen(loc) + 2);
    sprintf(path, "%s/%s", dir, loc);
    /* lstat every prefix below dir: a link anywhere is refused. */
    for (char *q = path + dl + 1;; q++) {
        if (*q != '/' && *q)
            continue;
        char keep = *q;
        *q = 0;
        ok = lstat(path, &st) == 0;
        *q = keep;
        if (!ok || S_ISLNK(st.st_mode)) {
            free(path);
            return ok ? "the location is or goes through a symbolic link"
                      : "no such file";
        }
        if (!keep)
            break;
    }
    if (!S_ISREG(st.st_mode)) {
        free(path);
        return "the location is not a regular file";
    }
    real = realpath(path, NULL);
    rdir = realpath(dir, NULL);
    ok = real && rdir && !strncmp(real, rdir, strlen(rdir)) &&
         real[strlen(rdir)] == '/';
    free(real);
    free(rdir);
    free(path);
    return ok ? NULL : "the location is outside the model's folder";
}

/* Reads the external data of p into a copy of p with raw_data set,
 * packed into *out; -1 after a message. */
static int ext_load(OxModel *m, const Onnx__TensorProto *p,
                    const char *name, uint8_t **out, size_t *outlen)
{
    const char *loc = NULL, *why;
    long long off = 0, len = -1;
    Onnx__TensorProto q;
    unsigned char *data;
    char *path;
    long n = 0;

    if (!m->dir) {
        ox_fail(m, "tensor '%s': external data is not supported for a "
                "model read from memory", name);
        return -1;
    }
    for (size_t i = 0; i < p->n_external_data; i++) {
        const char *k = p->external_data[i]->key;
        const char *v = p->external_data[i]->value;
        if (!k || !v)
            continue;
        if (!strcmp(k, "location"))
            loc = v;
        else if (!strcmp(k, "offset") && (off = ext_count(v)) < 0) {
            ox_fail(m, "tensor '%s': bad external data offset", name);
            return -1;
        } else if (!strcmp(k, "length") && (len = ext_count(v)) < 0) {
            ox_fail(m, "tensor '%s': bad external data length", name);
            return -1;
        }
    }
    if (!loc) {
        ox_fail(m, "tensor '%s': external data without a location", name);
        return -1;
    }
    if ((why = ext_unsafe(m->dir, loc))) {
        ox_fail(m, "tensor '%s': external data '%s': %s", name, loc, why);
        return -1;
    }
    path = tl_xmalloc(strlen(m->dir) + strlen(loc) + 2);
    sprintf(path, "%s/%s", m->dir, loc);
    data = slurp(path, OX_MAX_FILE, &n, &why);
    free(path);
    if (!data) {
        ox_fail(m, "tensor '%s': external data '%s': %s", name, loc, why);
        return -1;
    }
    if (off > n || (len >= 0 && len > n - off)) {
        free(data);
        if (len < 0)
            ox_fail(m, "tensor '%s': external data '%s' holds %ld bytes, "
                    "fewer than offset %lld", name, loc, n, off);
        else
            ox_fail(m, "tensor '%s': external data '%s' holds %ld bytes, "
                    "fewer than offset %lld + length %lld", name, loc, n,
                    off, len);
        return -1;
    }
    if (len < 0)
        len = n - off;
    q = *p;
    q.n_external_data = 0;
    q.external_data = NULL;
    q.has_data_location = 0;
    q.has_raw_data = 1;
    q.raw_data.len = (size_t)len;
    q.raw_data.data = data + off;
    *outlen = onnx__tensor_proto__get_packed_size(&q);
    *out = tl_xmalloc(*outlen + 1);
    onnx__tensor_proto__pack(&q, *out);
    free(data);
    return 0;
}

/* The tensor of an initializer or a Constant's value (external data
 * is read by ext_load); the rest is checked by interp/onnxpb.c, which
 * also refuses data shorter than the tensor. */
TlTensor *ox_tensor_from_proto(OxModel *m, const Onnx__TensorProto *p)
{
    char err[400];
    size_t n;
    uint8_t *buf;
    TlTensor *t;
    const char *name = p->name && *p->name ? p->name : "constant";

    for (size_t i = 0; i < p->n_dims; i++)
        if (p->dims[i] < 0 || p->dims[i] > OX_MAX_DIM) {
            ox_fail(m, "tensor '%s': dimension %lld is out of range (0 .. "
                    "2^31 - 1)", name, (long long)p->dims[i]);
            return NULL;
        }
    if (p->has_data_location &&
        p->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        if (ext_load(m, p, name, &buf, &n) < 0)
            return NULL;
    } else if (p->n_external_data) {
        ox_fail(m, "tensor '%s': external_data without data_location "
                "EXTERNAL", name);
        return NULL;
    } else {
        n = onnx__tensor_proto__get_packed_size(p);
        buf = tl_xmalloc(n + 1);
        onnx__tensor_proto__pack(p, buf);
    }
    t = tl_onnx_tensor_read_mem(buf, n, name, err, sizeof err);
    free(buf);
    if (!t)
        ox_fail(m, "%s", err);
    return t;
}
