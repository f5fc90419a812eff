/*
 * fuzz_tensorio.c - libFuzzer target over the tensor file readers: each
 * input is read as a .npy file (tl_npy_read_mem), as a .safetensors
 * file (tl_safetensors_open_mem, then tl_safetensors_get of every
 * entry), as an ONNX TensorProto (tl_onnx_tensor_read_mem), as an
 * ONNX SequenceProto of tensors (tl_onnx_sequence_read_mem) and as an
 * ONNX OptionalProto (tl_onnx_optional_read_mem).  Built
 * and run by `make fuzz` with ASan and UBSan, so a crash, leak, hang or
 * undefined behaviour is a failure.  Beyond "no crash" it checks that
 * an entry of a file that opened can always be read (opening validated
 * it), that what was read writes back and reads again to the same
 * tensors, and that every error has the "'NAME': ..." form.
 */
#include "interp/interp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_tensorio: %s: %s\n", what, detail);
    abort();
}

/* An error message must name the file first and say something. */
static void check_message(const char *err, const char *name)
{
    size_t n = strlen(name);
    if (err[0] != '\'' || strncmp(err + 1, name, n) ||
        strncmp(err + 1 + n, "': ", 3) || !err[n + 4])
        fail("badly formed message", err);
}

/* Same dtype, shape and bytes (both packed). */
static int same_tensor(const TlTensor *a, const TlTensor *b)
{
    return a->dtype == b->dtype && tl_tensor_equal_shape(a, b) &&
           !memcmp(a->data, b->data,
                   (size_t)(tl_tensor_numel(a) * dt_size(a->dtype)));
}

static void fuzz_npy(const uint8_t *data, size_t size)
{
    char err[400] = "";
    TlTensor *t = tl_npy_read_mem(data, size, "f.npy", err, sizeof err);
    TlTensor *u;
    TlBuf b;

    if (!t) {
        check_message(err, "f.npy");
        return;
    }
    buf_init(&b);
    if (tl_npy_write_buf(&b, t, "g.npy", err, sizeof err) < 0)
        fail("writing back what was read", err);
    u = tl_npy_read_mem(b.s, b.len, "g.npy", err, sizeof err);
    if (!u)
        fail("reading back what was written", err);
    if (!same_tensor(t, u))
        fail("round trip", "the tensor read back differs");
    tl_tensor_unref(u);
    tl_tensor_unref(t);
    buf_free(&b);
}

/* The tensors of a .safetensors file written from g, read back, must be
 * those of g, with the same metadata. */
static void check_rewrite(TlSafetensors *g, TlTensor **ts, int n)
{
    TlNamedTensor *named = calloc((size_t)n + 1, sizeof *named);
    int nmeta = tl_safetensors_meta_count(g);
    const char **meta = calloc(2 * (size_t)nmeta + 1, sizeof *meta);
    char err[400] = "";
    TlSafetensors *h;
    TlBuf b;

    if (!named || !meta)
        abort();
    for (int i = 0; i < n; i++) {
        named[i].name = tl_safetensors_entry(g, i)->name;
        named[i].t = ts[i];
    }
    for (int i = 0; i < nmeta; i++) {
        meta[2 * i] = tl_safetensors_meta_key(g, i);
        meta[2 * i + 1] = tl_safetensors_meta_value(g, i);
    }
    buf_init(&b);
    if (tl_safetensors_write_buf(&b, named, n, meta, nmeta, "g.st", err,
                                 sizeof err) < 0)
        fail("writing back what was read", err);
    h = tl_safetensors_open_mem(b.s, b.len, "g.st", err, sizeof err);
    if (!h)
        fail("reading back what was written", err);
    if (tl_safetensors_count(h) != n ||
        tl_safetensors_meta_count(h) != nmeta)
        fail("round trip", "different counts");
    for (int i = 0; i < n; i++) {
        TlTensor *u = tl_safetensors_get(h, named[i].name, err, sizeof err);
        if (!u || !same_tensor(ts[i], u))
            fail("round trip", named[i].name);
        tl_tensor_unref(u);
    }
    for (int i = 0; i < nmeta; i++)
        if (strcmp(tl_safetensors_meta_key(h, i), meta[2 * i]) ||
            strcmp(tl_safetensors_meta_value(h, i), meta[2 * i + 1]))
            fail("round trip", "different metadata");
    tl_safetensors_close(h);
    buf_free(&b);
    free(meta);
    free(named);
}

static void fuzz_safetensors(const uint8_t *data, size_t size)
{
    char err[400] = "";
    TlSafetensors *f = tl_safetensors_open_mem(data, size, "f.st", err,
                                               sizeof err);
    TlTensor **ts;
    int n;

    if (!f) {
        check_message(err, "f.st");
        return;
    }
    n = tl_safetensors_count(f);
    ts = calloc((size_t)n + 1, sizeof *ts);
    if (!ts)
        abort();
    for (int i = 0; i < n; i++) {
        const TlSafetensorsEntry *e = tl_safetensors_entry(f, i);
        if (tl_safetensors_find(f, e->name) != i)
            fail("find", e->name);
        ts[i] = tl_safetensors_get(f, e->name, err, sizeof err);
        if (!ts[i])
            fail("an entry of a valid file cannot be read", err);
        if (ts[i]->dtype != e->dtype || ts[i]->rank != e->rank ||
            memcmp(ts[i]->shape, e->shape, sizeof e->shape))
            fail("entry and tensor differ", e->name);
    }
    /* an unknown key is an error listing some of the others */
    if (tl_safetensors_find(f, "?") < 0) {
        if (tl_safetensors_get(f, "?", err, sizeof err))
            fail("get", "an unknown key was found");
        check_message(err, "f.st");
    }
    check_rewrite(f, ts, n);
    for (int i = 0; i < n; i++)
        tl_tensor_unref(ts[i]);
    free(ts);
    tl_safetensors_close(f);
}

static void fuzz_onnx(const uint8_t *data, size_t size)
{
    char err[400] = "";
    TlTensor *t = tl_onnx_tensor_read_mem(data, size, "f.pb", err,
                                          sizeof err);
    if (!t)
        check_message(err, "f.pb");
    tl_tensor_unref(t);
}

/* The message of a sequence read of file `file`: an element's error
 * names it ('s.pb (element 3)': ...). */
static void check_seq_message(const char *err, const char *file)
{
    const char *el = strstr(err, " (element ");
    char name[64];

    if (el && el - err > 1 && strspn(el + 10, "0123456789") > 0 &&
        el[10 + strspn(el + 10, "0123456789")] == ')') {
        size_t k = strcspn(el, ")") + 1;
        snprintf(name, sizeof name, "%s%.*s", file, (int)k, el);
        check_message(err, name);
    } else {
        check_message(err, file);
    }
}

/* ts[n] as a reader gives them: each present, then freed. */
static void check_elems(TlTensor **ts, int n, const char *what)
{
    if (n < 0)
        fail(what, "read without a count");
    for (int i = 0; i < n; i++)
        if (!ts[i])
            fail(what, "an element is missing");
        else
            tl_tensor_unref(ts[i]);
    free(ts);
}

static void fuzz_onnx_seq(const uint8_t *data, size_t size)
{
    char err[400] = "";
    int n = -1;
    TlTensor **ts = tl_onnx_sequence_read_mem(data, size, "s.pb", &n, err,
                                              sizeof err);
    if (!ts) {
        check_seq_message(err, "s.pb");
        return;
    }
    check_elems(ts, n, "sequence");
}

static void fuzz_onnx_opt(const uint8_t *data, size_t size)
{
    char err[400] = "";
    int n = -1, kind = -1;
    TlTensor **ts = tl_onnx_optional_read_mem(data, size, "o.pb", &kind, &n,
                                              err, sizeof err);
    if (!ts) {
        check_seq_message(err, "o.pb");
        return;
    }
    /* What it holds and how many agree. */
    if (!(kind == 0 && n == 0) && !(kind == 1 && n == 1) && kind != 3)
        fail("optional", "the kind and the count disagree");
    check_elems(ts, n, "optional");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_npy(data, size);
    fuzz_safetensors(data, size);
    fuzz_onnx(data, size);
    fuzz_onnx_seq(data, size);
    fuzz_onnx_opt(data, size);
    return 0;
}
