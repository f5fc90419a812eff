/*
 * cmd_run.c - running programs.
 *
 *   tdsl FILE.tdsl [--machine M]
 *                      parse, check, then run the script's statements
 *   tdsl run FILE.tdsl [--kernel K] [--in [NAME=]FILE[:KEY]]...
 *        [--out [NAME=]FILE[:KEY]]... [--param NAME=VALUE]...
 *        [--target T] [--machine M]
 *                      run one kernel on tensors from .npy/.safetensors
 *                      (and ONNX .pb) files and write its outputs
 *                      (printed when no --out names them)
 *
 * Any problem in the program stops before anything runs.  Exit status:
 * 0, 1 for the program's errors, a failed assertion, run-time errors
 * and bad files or values, 2 for a command line that does not fit the
 * kernel (unknown names, wrong counts).  --machine (a built-in name
 * tiny, test, mn2, or a machine file) is the accelerator that `on
 * accel` and --target accel run on, and that the layouts of accel
 * schedules are checked against; TDSL_MACHINE gives the default.
 */
#include "cli/cli.h"
#include "codegen/codegen.h"
#include "interp/interp.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * Shared: load and check, run under the fatal boundary
 * ==================================================================== */

/* Parses and checks path in s; NULL when it has errors (reported). */
static TlProgram *load_checked(TlSession *s, const char *path)
{
    TlProgram *prog = cli_parse(s, path);

    if (!prog || s->nerrors > 0)
        return NULL;
    if (cli_check(s, prog) > 0)
        return NULL;
    return prog;
}

/* stdout failing (a full disk, a closed pipe) is an error too. */
static int flush_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tdsl: cannot write the output\n");
        return EXIT_DIAG;
    }
    return status;
}

/* --machine SPEC (or --machine=SPEC) for the accel target and the
 * layout checks (without one, the target reads TDSL_MACHINE when it
 * runs).  An exit status. */
static int use_machine(const char *spec)
{
    if (!spec)
        return EXIT_OK;
    if (cli_set_machine(spec) != EXIT_OK)
        return EXIT_USAGE;
    acc_cg_set_machine(spec);
    return EXIT_OK;
}

int cmd_script(int argc, char **argv)
{
    TlSession *s;
    TlProgram *prog;
    TlInterp *volatile ip = NULL;
    jmp_buf boundary;
    volatile int status = EXIT_DIAG;
    const char *mach = NULL;

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--machine=", 10)) {
            mach = argv[i] + 10;
        } else if (!strcmp(argv[i], "--machine")) {
            if (i + 1 == argc)
                return cli_usage("'--machine' needs a value (tiny, test, "
                                 "mn2 or a machine file)");
            mach = argv[++i];
        } else {
            return cli_usage("unexpected argument '%s' after the script "
                             "'%s'", argv[i], argv[0]);
        }
    }
    if (use_machine(mach) != EXIT_OK)
        return EXIT_USAGE;
    s = cli_session();
    prog = load_checked(s, argv[0]);
    if (prog) {
        ip = itp_new(s);
        s->fatal = &boundary;
        if (setjmp(boundary) == 0)
            status = itp_exec_program(ip, prog) < 0 ? EXIT_DIAG : EXIT_OK;
        s->fatal = NULL;
    }
    itp_free(ip);
    tl_session_free(s);
    return flush_stdout(status);
}

/* ====================================================================
 * tdsl run: the command line
 * ==================================================================== */


typedef struct RunOpts {
    const char *file, *kernel, *target, *machine;
    Bind *in, *out, *par;
    int nin, nout, npar;
} RunOpts;

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
                    (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

/* NAME=REST when what precedes the first '=' is an identifier (a file
 * name may hold '=' too, so only that form counts as named). */
static void add_bind(Bind **v, int *n, const char *arg)
{
    const char *eq = strchr(arg, '=');
    Bind *b;

    *v = tl_xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    b = &(*v)[(*n)++];
    b->elem = -1;
    b->opt = -1;
    b->value = NULL;
    if (eq && is_ident(arg, (size_t)(eq - arg))) {
        char *name = tl_xstrdup(arg);
        name[eq - arg] = '\0';
        b->name = name;
        b->spec = tl_xstrdup(eq + 1);
    } else {
        b->name = NULL;
        b->spec = tl_xstrdup(arg);
    }
}

static void free_binds(Bind *v, int n)
{
    for (int i = 0; i < n; i++) {
        free((char *)v[i].name);
        free(v[i].spec);
        tl_tensor_unref(v[i].value);
    }
    free(v);
}

static void free_opts(RunOpts *o)
{
    free_binds(o->in, o->nin);
    free_binds(o->out, o->nout);
    free_binds(o->par, o->npar);
}

static int parse_opts(int argc, char **argv, RunOpts *o)
{
    static const char *const names[] = {"--kernel", "--in", "--out",
                                        "--param", "--target", "--machine"};
    int opts = 1;

    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int which = -1;
        if (opts && !strcmp(a, "--")) {
            opts = 0;
            continue;
        }
        if (!opts || !cli_is_option(a)) {
            if (o->file)
                return cli_usage("run: more than one program file ('%s' "
                                 "and '%s')", o->file, a);
            o->file = a;
            continue;
        }
        for (int j = 0; j < 6; j++)
            if (cli_opt_is(a, names[j]))
                which = j;
        if (which < 0)
            return cli_usage("run: unknown option '%s'", a);
        if (!(v = cli_opt_value(argc, argv, &i, names[which])))
            return cli_usage("run: '%s' needs a value", names[which]);
        switch (which) {
        case 0: o->kernel = v; break;
        case 1: add_bind(&o->in, &o->nin, v); break;
        case 2: add_bind(&o->out, &o->nout, v); break;
        case 3:
            add_bind(&o->par, &o->npar, v);
            if (!o->par[o->npar - 1].name)
                return cli_usage("run: '--param %s' must be NAME=VALUE", v);
            break;
        case 4: o->target = v; break;
        default: o->machine = v; break;
        }
    }
    if (!o->file)
        return cli_usage("run: no program file given (usage: tdsl run "
                         "FILE.tdsl --kernel K --in NAME=FILE ...)");
    if (o->target && strcmp(o->target, "interp") &&
        !tl_target_known(o->target))
        return cli_usage("run: unknown target '%s' (the targets are "
                         "'interp', 'cpu' and 'accel')", o->target);
    return EXIT_OK;
}

/* ====================================================================
 * tdsl run: the kernel and its parameters
 * ==================================================================== */

static const char *param_names(TlArena *a, TlFunc **f, int n)
{
    TlBuf b;
    const char *r;

    buf_init(&b);
    for (int i = 0; i < n; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", f[i]->name);
    r = arena_strdup(a, n ? b.s : "none");
    buf_free(&b);
    return r;
}

static int scalar_index(const TlKernelInfo *k, const char *name)
{
    for (int j = 0; j < k->nscalars; j++)
        if (!strcmp(k->scalars[j]->name, name))
            return j;
    return -1;
}

static int func_index(TlFunc **f, int n, const char *name)
{
    for (int j = 0; j < n; j++)
        if (!strcmp(f[j]->name, name))
            return j;
    return -1;
}

/* Places binds on params f[0..n): named ones by name, bare ones on the
 * parameters left, in order.  slot[j] is the bind of param j or NULL.
 * what: "input" or "output". */
static int place(TlSession *s, const TlKernelInfo *k, TlFunc **f, int n,
                 Bind *b, int nb, Bind **slot, const char *what)
{
    int next = 0;

    for (int j = 0; j < n; j++)
        slot[j] = NULL;
    for (int i = 0; i < nb; i++) {
        int j;
        if (!b[i].name)
            continue;
        j = func_index(f, n, b[i].name);
        if (j < 0) {
            if (scalar_index(k, b[i].name) >= 0)
                return cli_usage("run: '%s' is a scalar parameter of '%s'; "
                                 "give it with --param %s=VALUE",
                                 b[i].name, k->name, b[i].name);
            return cli_usage("run: '%s' is not an %s of '%s' (its %ss: %s)",
                             b[i].name, what, k->name, what,
                             param_names(&s->arena, f, n));
        }
        if (slot[j])
            return cli_usage("run: %s '%s' is given twice", what, b[i].name);
        slot[j] = &b[i];
    }
    for (int i = 0; i < nb; i++) {
        if (b[i].name)
            continue;
        while (next < n && slot[next])
            next++;
        if (next == n)
            return cli_usage("run: '%s' has %d %s%s but %d %s given", k->name,
                             n, what, n == 1 ? "" : "s", nb,
                             nb == 1 ? "was" : "were");
        slot[next] = &b[i];
    }
    return EXIT_OK;
}

/* FILE[:KEY] for .safetensors files: the path and the key (or NULL),
 * both owned by the caller. */
static void split_spec(const char *spec, char **path, char **key)
{
    const char *ext = strstr(spec, ".safetensors:");
    const char *colon;

    /* The last ".safetensors:" decides, so a folder named x.safetensors:
     * is no trap. */
    while (ext && (colon = strstr(ext + 1, ".safetensors:")))
        ext = colon;
    if (!ext) {
        *path = tl_xstrdup(spec);
        *key = NULL;
        return;
    }
    colon = ext + strlen(".safetensors");
    *path = tl_xstrdup(spec);
    (*path)[colon - spec] = '\0';
    *key = tl_xstrdup(colon + 1);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Reads input p of k from its --in spec; NULL after a message. */
static TlTensor *read_input(const TlKernelInfo *k, const TlFunc *p,
                            const Bind *b)
{
    const char *spec = b->spec;
    char *path, *key, err[400];
    TlTensor *t = NULL;

    split_spec(spec, &path, &key);
    if (b->value) {
        /* A sequence's element, read with the whole file. */
        t = tl_tensor_ref(b->value);
        if (p->dtype == DT_BF16)
            t = tl_onnx_bf16_bits(t);
    } else if (ends_with(path, ".npy") && !key) {
        t = tl_npy_read(path, err, sizeof err);
    } else if (ends_with(path, ".pb") && !key) {
        t = tl_onnx_tensor_read(path, err, sizeof err);
        if (p->dtype == DT_BF16)
            t = tl_onnx_bf16_bits(t);
    } else if (ends_with(path, ".safetensors")) {
        TlSafetensors *f = tl_safetensors_open(path, err, sizeof err);
        if (f) {
            /* No key: the only entry, else the one named like the
             * parameter. */
            const char *want = key;
            if (!want && tl_safetensors_count(f) == 1)
                want = tl_safetensors_entry(f, 0)->name;
            if (!want)
                want = p->name;
            t = tl_safetensors_get(f, want, err, sizeof err);
            tl_safetensors_close(f);
        }
    } else {
        snprintf(err, sizeof err, "'%s' is not a tensor file: the name must "
                 "end in .npy, .pb or .safetensors[:KEY]", spec);
    }
    /* A generic kernel's parameters take their dtype and rank from the
     * files: its instance is made from them (run_kernel). */
    if (t && k->generic) {
        /* nothing to compare yet */
    } else if (t && t->rank != p->rank) {
        snprintf(err, sizeof err, "'%s' holds a tensor of rank %d but the "
                 "parameter has rank %d", spec, t->rank, p->rank);
        tl_tensor_unref(t);
        t = NULL;
    } else if (t && t->dtype != p->dtype) {
        snprintf(err, sizeof err, "'%s' holds %s values but the parameter "
                 "is %s", spec, dt_name(t->dtype), dt_name(p->dtype));
        tl_tensor_unref(t);
        t = NULL;
    }
    if (!t)
        fprintf(stderr, "tdsl: input '%s' of '%s': %s\n", p->name, k->name,
                err);
    free(path);
    free(key);
    return t;
}

/* --param NAME=VALUE for scalar j of k; EXIT_OK or a message. */
static int parse_scalar(const TlKernelInfo *k, int j, const char *text,
                        TlScalarArg *a)
{
    TlDType dt = k->scalars[j]->dtype;
    const char *name = k->scalars[j]->name;
    char *end;
    int bad = 0;

    a->given = 1;
    a->is_float = dt_is_float(dt);
    errno = 0;
    if (dt == DT_BOOL) {
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            a->i = 1;
        else if (!strcmp(text, "false") || !strcmp(text, "0"))
            a->i = 0;
        else
            bad = 1;
    } else if (a->is_float) {
        a->f = strtod(text, &end);
        bad = end == text || *end;
    } else {
        long long v = strtoll(text, &end, 0);
        unsigned char buf[8];
        bad = end == text || *end || errno == ERANGE;
        if (!bad) {
            /* It must survive the trip through the parameter's dtype. */
            tl_dt_store_i64(dt, buf, v);
            bad = tl_dt_load_i64(dt, buf) != v;
            a->i = v;
        }
    }
    if (bad) {
        fprintf(stderr, "tdsl: --param %s=%s: '%s' is not a value of "
                "type '%s'\n", name, text, text, dt_name(dt));
        return EXIT_DIAG;
    }
    return EXIT_OK;
}

/* Writes the outputs: grouped by file, so several outputs may go into
 * one .safetensors file (under their names or KEYs). */
static int write_outputs(const TlKernelInfo *k, TlTensor **res, Bind **slot)
{
    int status = EXIT_OK;
    char err[400];

    for (int i = 0; i < k->noutputs; i++) {
        char *path, *key;
        if (!slot[i]) {
            TlBuf b;
            buf_init(&b);
            buf_printf(&b, "%s = ", k->outputs[i]->name);
            tl_tensor_print(&b, res[i], NULL);
            buf_putc(&b, '\n');
            fwrite(b.s, 1, b.len, stdout);
            buf_free(&b);
            continue;
        }
        if (slot[i]->elem >= 0) {
            if (cli_seq_write(k->outputs, k->noutputs, res, slot, i) !=
                EXIT_OK)
                status = EXIT_DIAG;
            continue;
        }
        split_spec(slot[i]->spec, &path, &key);
        if (ends_with(path, ".npy") && !key) {
            if (tl_npy_write(path, res[i], err, sizeof err) < 0) {
                fprintf(stderr, "tdsl: output '%s': %s\n",
                        k->outputs[i]->name, err);
                status = EXIT_DIAG;
            }
        } else if (ends_with(path, ".pb") && !key) {
            if (tl_onnx_tensor_write(path, res[i], err, sizeof err) < 0) {
                fprintf(stderr, "tdsl: output '%s': %s\n",
                        k->outputs[i]->name, err);
                status = EXIT_DIAG;
            }
        } else if (ends_with(path, ".safetensors")) {
            /* Gather every output bound to this file, once. */
            TlNamedTensor *nt = tl_xcalloc((size_t)k->noutputs,
                                           sizeof *nt);
            int n = 0, first = 1;
            for (int j = 0; j < k->noutputs; j++) {
                char *p2, *k2;
                if (!slot[j])
                    continue;
                split_spec(slot[j]->spec, &p2, &k2);
                if (!strcmp(p2, path)) {
                    if (j < i)
                        first = 0;
                    nt[n].name = k2 ? k2 : tl_xstrdup(k->outputs[j]->name);
                    nt[n].t = res[j];
                    n++;
                } else {
                    free(k2);
                }
                free(p2);
            }
            if (first && tl_safetensors_write(path, nt, n, NULL, 0, err,
                                              sizeof err) < 0) {
                fprintf(stderr, "tdsl: output '%s': %s\n",
                        k->outputs[i]->name, err);
                status = EXIT_DIAG;
            }
            for (int j = 0; j < n; j++)
                free((char *)nt[j].name);
            free(nt);
        } else {
            fprintf(stderr, "tdsl: output '%s': '%s' is not a tensor file: "
                    "the name must end in .npy, .pb or "
                    ".safetensors[:KEY]\n",
                    k->outputs[i]->name, slot[i]->spec);
            status = EXIT_DIAG;
        }
        free(path);
        free(key);
    }
    return status;
}

/* The instance of generic kernel g for the tensors read for its
 * inputs; NULL after the checker has reported why there is none. */
static TlKernelInfo *instantiate(TlSession *s, TlKernelInfo *g,
                                 TlTensor **in)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    TlDType *dts = tl_xcalloc((size_t)g->ninputs + 1, sizeof *dts);
    int *ranks = tl_xcalloc((size_t)g->ninputs + 1, sizeof *ranks);
    TlKernelInfo *k;

    for (int j = 0; j < g->ninputs; j++) {
        dts[j] = in[j]->dtype;
        ranks[j] = in[j]->rank;
    }
    k = tl_instantiate(s, g, dts, ranks, nowhere);
    free(dts);
    free(ranks);
    return k;
}

/* An imported ONNX model (tdsl import) records the ONNX names that
 * differ from their tdsl identifiers in comments, "# onnx-input: 'x.1'
 * = x_1" (and onnx-output); --in and --out accept those names too. */
static void map_onnx_names(const TlProgram *prog, Bind *b, int nb,
                           const char *kind)
{
    char head[32];
    size_t hn = (size_t)snprintf(head, sizeof head, "# onnx-%s: '", kind);

    for (int c = 0; c < prog->comments.n; c++) {
        const char *t = prog->comments.v[c].text, *q, *id;
        size_t on;
        if (strncmp(t, head, hn) || !(q = strstr(t + hn, "' = ")))
            continue;
        on = (size_t)(q - (t + hn));
        id = q + 4;
        for (int i = 0; i < nb; i++) {
            if (b[i].name && strlen(b[i].name) == on &&
                !strncmp(b[i].name, t + hn, on)) {
                free((char *)b[i].name);
                b[i].name = tl_xstrdup(id);
            } else if (!b[i].name && !strncmp(b[i].spec, t + hn, on) &&
                       b[i].spec[on] == '=') {
                char *rest = tl_xstrdup(b[i].spec + on + 1);
                b[i].name = tl_xstrdup(id);
                free(b[i].spec);
                b[i].spec = rest;
            }
        }
    }
}

static int run_kernel(TlSession *s, TlProgram *prog, RunOpts *o)
{
    int status = EXIT_OK;
    TlKernelInfo *k = cli_find_kernel(prog, "run", o->file, o->kernel,
                                      &status);
    Bind **in_slot = NULL, **out_slot = NULL;
    TlTensor **in = NULL, **res = NULL;
    char **none = NULL;
    int nnone = 0;
    TlScalarArg *sc = NULL;
    TlInterp *ip = NULL;
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    const char *target = o->target && strcmp(o->target, "interp")
                             ? o->target : NULL;

    if (!k)
        return status;
    map_onnx_names(prog, o->in, o->nin, "input");
    map_onnx_names(prog, o->out, o->nout, "output");
    if ((status = cli_seq_expand(prog, k->inputs, k->ninputs, &o->in,
                                 &o->nin, "input", &none, &nnone)) !=
            EXIT_OK ||
        (status = cli_seq_expand(prog, k->outputs, k->noutputs, &o->out,
                                 &o->nout, "output", &none, &nnone)) !=
            EXIT_OK)
        goto done;
    in_slot = tl_xcalloc((size_t)k->ninputs + 1, sizeof *in_slot);
    out_slot = tl_xcalloc((size_t)k->noutputs + 1, sizeof *out_slot);
    if ((status = place(s, k, k->inputs, k->ninputs, o->in, o->nin, in_slot,
                        "input")) != EXIT_OK ||
        (status = place(s, k, k->outputs, k->noutputs, o->out, o->nout,
                        out_slot, "output")) != EXIT_OK)
        goto done;
    for (int j = 0; j < k->ninputs; j++)
        if (!in_slot[j]) {
            status = cli_usage("run: input '%s' of '%s' is not given "
                               "(--in %s=FILE)", k->inputs[j]->name,
                               k->name, k->inputs[j]->name);
            goto done;
        }
    in = tl_xcalloc((size_t)k->ninputs + 1, sizeof *in);
    for (int j = 0; j < k->ninputs; j++)
        if (!(in[j] = read_input(k, k->inputs[j], in_slot[j]))) {
            status = EXIT_DIAG;
            goto done;
        }
    if (k->generic) {
        TlKernelInfo *inst = instantiate(s, k, in);
        if (!inst) {
            status = EXIT_DIAG;
            goto done;
        }
        k = inst;       /* same counts of inputs, outputs, scalars */
    }
    sc = tl_xcalloc((size_t)k->nscalars + 1, sizeof *sc);
    for (int i = 0; i < o->npar; i++) {
        int j = scalar_index(k, o->par[i].name);
        if (j < 0) {
            if (func_index(k->inputs, k->ninputs, o->par[i].name) >= 0)
                status = cli_usage("run: '%s' is a tensor input of '%s'; "
                                   "give it with --in %s=FILE",
                                   o->par[i].name, k->name, o->par[i].name);
            else
                status = cli_usage("run: '%s' is not a scalar parameter of "
                                   "'%s'", o->par[i].name, k->name);
            goto done;
        }
        if (sc[j].given) {
            status = cli_usage("run: parameter '%s' is given twice",
                               o->par[i].name);
            goto done;
        }
        if ((status = parse_scalar(k, j, o->par[i].spec, &sc[j])) != EXIT_OK)
            goto done;
    }
    for (int j = 0; j < k->nscalars; j++)
        if (!sc[j].given && !k->scalars[j]->param->init) {
            status = cli_usage("run: scalar parameter '%s' of '%s' has no "
                               "default (--param %s=VALUE)",
                               k->scalars[j]->name, k->name,
                               k->scalars[j]->name);
            goto done;
        }
    res = tl_xcalloc((size_t)k->noutputs + 1, sizeof *res);
    ip = itp_new(s);
    if (itp_run_kernel(ip, target, k, in, sc, res, nowhere) < 0) {
        status = EXIT_DIAG;
        goto done;
    }
    status = write_outputs(k, res, out_slot);
    if (status == EXIT_OK)
        status = cli_opt_write_none(none, nnone);
done:
    for (int j = 0; j < nnone; j++)
        free(none[j]);
    free(none);
    for (int j = 0; in && j < k->ninputs; j++)
        tl_tensor_unref(in[j]);
    for (int j = 0; res && j < k->noutputs; j++)
        tl_tensor_unref(res[j]);
    free(in);
    free(res);
    free(sc);
    free(in_slot);
    free(out_slot);
    itp_free(ip);
    return status;
}

int cmd_run(int argc, char **argv)
{
    RunOpts o;
    TlSession *s;
    TlProgram *prog;
    jmp_buf boundary;
    volatile int status;

    if ((status = parse_opts(argc, argv, &o)) != EXIT_OK ||
        (status = use_machine(o.machine)) != EXIT_OK) {
        free_opts(&o);
        return status;
    }
    s = cli_session();
    prog = load_checked(s, o.file);
    status = EXIT_DIAG;
    if (prog) {
        s->fatal = &boundary;
        if (setjmp(boundary) == 0)
            status = run_kernel(s, prog, &o);
        s->fatal = NULL;
    }
    tl_session_free(s);
    free_opts(&o);
    return flush_stdout(status);
}
