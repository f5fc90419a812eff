/*
 * cmd_import.c - `tdsl import MODEL.onnx [-o OUT.tdsl] [--bind
 * NAME=SHAPE|FILE]...`: an ONNX model to tdsl source plus a weights
 * file (parser/onnx/).  Also `tdsl import --compare GOT EXPECTED` (each
 * a .npy, .pb or one-tensor .safetensors file), the tolerance check the
 * conformance runner uses (rtol 1e-3, atol 1e-5 for floats, rtol 2^-7
 * for bf16, exact otherwise; with --sequence two SequenceProto files,
 * element by element, with --optional two OptionalProto files), and
 * `tdsl import --dot MODEL.onnx [-o OUT.dot]`, the graph in Graphviz
 * form (stdout without -o).
 */
#include "cli/cli.h"
#include "interp/interp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A .pb, a .npy, or the only tensor of a .safetensors file. */
static TlTensor *read_any(const char *path)
{
    char err[400];
    TlTensor *t = NULL;

    if (ends_with(path, ".pb")) {
        t = tl_onnx_tensor_read(path, err, sizeof err);
    } else if (ends_with(path, ".safetensors")) {
        TlSafetensors *f = tl_safetensors_open(path, err, sizeof err);
        if (f && tl_safetensors_count(f) != 1)
            snprintf(err, sizeof err, "'%s' holds %d tensors, not one",
                     path, tl_safetensors_count(f));
        else if (f)
            t = tl_safetensors_get(f, tl_safetensors_entry(f, 0)->name,
                                   err, sizeof err);
        if (f)
            tl_safetensors_close(f);
    } else {
        t = tl_npy_read(path, err, sizeof err);
    }
    if (!t)
        fprintf(stderr, "tdsl: %s\n", err);
    return t;
}

/* Walks every index of t's shape; fills idx. */
static int next_index(const TlTensor *t, int64_t *idx)
{
    for (int d = t->rank - 1; d >= 0; d--) {
        if (++idx[d] < t->shape[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

/* Compares got with want (both consumed); the paths for messages. */
static int compare_tensors(TlTensor *got, TlTensor *want,
                           const char *got_path, const char *want_path)
{
    int64_t idx[TL_MAX_RANK] = {0}, bad = 0;
    int rc = EXIT_DIAG;
    double rtol = 1e-3;

    if (!got || !want)
        goto done;
    if (got->dtype == DT_BF16 && ends_with(want_path, ".pb"))
        want = tl_onnx_bf16_bits(want);
    /* bf16 values: within one bf16 step (2^-7 relative).  ONNX 1.12's
     * expected values for Cast to bfloat16 drop the low 16 bits, where
     * the cast rounds to nearest even (as tdsl and later ONNX do). */
    if (got->dtype == DT_BF16)
        rtol = 1.0 / 128;
    if (got->rank != want->rank || !tl_tensor_equal_shape(got, want)) {
        fprintf(stderr, "tdsl: '%s' and '%s' differ in shape\n", got_path,
                want_path);
        goto done;
    }
    if ((got->dtype == DT_STR) != (want->dtype == DT_STR)) {
        fprintf(stderr, "tdsl: '%s' holds %s, '%s' holds %s\n", got_path,
                dt_name(got->dtype), want_path, dt_name(want->dtype));
        goto done;
    }
    if (tl_tensor_numel(got) > 0) {
        do {
            int isf = dt_is_float(want->dtype) || dt_is_float(got->dtype);
            if (got->dtype == DT_STR) {
                /* Strings: exactly equal. */
                const char *g = tl_str_at(tl_tensor_at(got, idx));
                const char *w = tl_str_at(tl_tensor_at(want, idx));
                if (strcmp(g, w) && !bad++)
                    fprintf(stderr, "tdsl: first difference: \"%s\", "
                            "expected \"%s\"\n", g, w);
            } else if (isf) {
                double g = tl_tensor_get_f64(got, idx);
                double w = tl_tensor_get_f64(want, idx);
                if (isnan(g) && isnan(w))
                    continue;
                if (isinf(w) && g == w)
                    continue;
                if (!(fabs(g - w) <= 1e-5 + rtol * fabs(w)) && !bad++)
                    fprintf(stderr, "tdsl: first difference: %.9g, "
                            "expected %.9g\n", g, w);
            } else if (tl_tensor_get_i64(got, idx) !=
                       tl_tensor_get_i64(want, idx) && !bad++) {
                fprintf(stderr, "tdsl: first difference: %lld, expected "
                        "%lld\n", (long long)tl_tensor_get_i64(got, idx),
                        (long long)tl_tensor_get_i64(want, idx));
            }
        } while (next_index(got, idx));
    }
    if (bad)
        fprintf(stderr, "tdsl: %lld of %lld values differ\n",
                (long long)bad, (long long)tl_tensor_numel(got));
    else
        rc = EXIT_OK;
done:
    tl_tensor_unref(got);
    tl_tensor_unref(want);
    return rc;
}

static int compare(const char *got_path, const char *want_path)
{
    return compare_tensors(read_any(got_path), read_any(want_path),
                           got_path, want_path);
}

/* --compare --sequence (opt 0): two SequenceProto files, element by
 * element with the same tolerances; --compare --optional (opt 1): two
 * OptionalProto files, which must both hold nothing, a tensor or a
 * sequence. */
static int compare_seq(const char *got_path, const char *want_path, int opt)
{
    char err[400];
    int ng = 0, nw = 0, kg = -1, kw = -1, rc = EXIT_OK;
    TlTensor **got = opt ? tl_onnx_optional_read(got_path, &kg, &ng, err,
                                                 sizeof err)
                         : tl_onnx_sequence_read(got_path, &ng, err,
                                                 sizeof err);
    TlTensor **want = !got ? NULL
                      : opt ? tl_onnx_optional_read(want_path, &kw, &nw, err,
                                                    sizeof err)
                            : tl_onnx_sequence_read(want_path, &nw, err,
                                                    sizeof err);

    if (!got || !want) {
        fprintf(stderr, "tdsl: %s\n", err);
        rc = EXIT_DIAG;
    } else if (kg != kw) {
        fprintf(stderr, "tdsl: '%s' holds an optional of elem_type %d, "
                "'%s' one of %d\n", got_path, kg, want_path, kw);
        rc = EXIT_DIAG;
    } else if (ng != nw) {
        fprintf(stderr, "tdsl: '%s' holds %d tensors, '%s' %d\n",
                got_path, ng, want_path, nw);
        rc = EXIT_DIAG;
    }
    for (int i = 0; got && i < ng; i++) {
        if (rc == EXIT_OK && want) {
            if (compare_tensors(got[i], want[i], got_path, want_path) !=
                EXIT_OK) {
                fprintf(stderr, "tdsl: (element %d)\n", i);
                rc = EXIT_DIAG;
            }
            want[i] = NULL;
        } else {
            tl_tensor_unref(got[i]);
        }
    }
    for (int i = 0; want && i < nw; i++)
        tl_tensor_unref(want[i]);
    free(got);
    free(want);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    const char *model = NULL, *out = NULL;
    TlOnnxBind *binds = tl_xcalloc((size_t)argc + 1, sizeof *binds);
    int nb = 0, rc, dot = 0;
    char *def = NULL;
    TlSession *s;

    if (argc == 4 && !strcmp(argv[1], "--compare")) {
        free(binds);
        return compare(argv[2], argv[3]);
    }
    if (argc == 5 && !strcmp(argv[1], "--compare") &&
        (!strcmp(argv[2], "--sequence") || !strcmp(argv[2], "--optional"))) {
        free(binds);
        return compare_seq(argv[3], argv[4], argv[2][2] == 'o');
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--bind")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (a[1] == 'o') {
                out = v;
                continue;
            }
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                free(binds);
                return cli_usage("import: --bind NAME=SHAPE or NAME=FILE");
            }
            binds[nb].name = strndup(v, (size_t)(eq - v));
            binds[nb++].spec = eq + 1;
        } else if (!strcmp(a, "--dot")) {
            dot = 1;
        } else if (cli_is_option(a)) {
            free(binds);
            return cli_usage("import: unknown option '%s'", a);
        } else if (!model) {
            model = a;
        } else {
            free(binds);
            return cli_usage("import: one model at a time");
        }
    }
    if (!model) {
        free(binds);
        return cli_usage("import: which model? (tdsl import MODEL.onnx -o "
                         "OUT.tdsl)");
    }
    if (dot) {
        for (int i = 0; i < nb; i++)
            free((char *)binds[i].name);
        free(binds);
        return tl_onnx_dot(model, out) < 0 ? EXIT_DIAG : EXIT_OK;
    }
    if (!out) {
        size_t n = strlen(model);
        def = tl_xmalloc(n + 8);
        strcpy(def, model);
        if (ends_with(def, ".onnx"))
            def[n - 5] = 0;
        strcat(def, ".tdsl");
        out = def;
    }
    s = cli_session();
    rc = tl_onnx_import(s, model, out, binds, nb) < 0 ? EXIT_DIAG : EXIT_OK;
    tl_session_free(s);
    for (int i = 0; i < nb; i++)
        free((char *)binds[i].name);
    free(binds);
    free(def);
    return rc;
}
