/*
 * cmd_lower.c - `tdsl lower FILE [--kernel K] [--target cpu]
 * [--in [NAME=]TYPE]...`: the loop IR of a kernel after its schedule
 * and the pass pipeline, in the text form of codegen.h.
 *
 * Also what `tdsl lower` and `tdsl compile` (cmd_compile.c) share:
 * their command line, and the kernel they work on.  A generic kernel
 * needs the dtype and rank of each input, as a type (`--in
 * X=f32[N, M]`: the sizes are only counted, any names or numbers do)
 * or a .npy file holding such a tensor; its instance for those is
 * lowered.
 */
#include "cli/cli.h"
#include "codegen/codegen.h"
#include "interp/interp.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_kernel_args_free(CliKernelArgs *a)
{
    free(a->in);
    free(a->outs);
    free(a->sizes);
    memset(a, 0, sizeof *a);
}

int cli_kernel_args(int argc, char **argv, int compile, CliKernelArgs *a)
{
    static const char *const names[] = {"--kernel", "--target", "--in",
                                        "-o", "--symbol", "--machine"};
    const char *cmd = argv[0];
    int opts = 1;

    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v, *opt = NULL;
        if (opts && !strcmp(arg, "--")) {
            opts = 0;
            continue;
        }
        if (opts && !compile && !strcmp(arg, "--explain")) {
            a->explain = 1;
            continue;
        }
        if (opts && !compile && !strcmp(arg, "--simulate")) {
            a->simulate = 1;
            continue;
        }
        if (opts && !compile && (cli_opt_is(arg, "--size") ||
                                 cli_opt_is(arg, "--machine"))) {
            int size = cli_opt_is(arg, "--size");
            if (!(v = cli_opt_value(argc, argv, &i,
                                    size ? "--size" : "--machine")))
                return cli_usage("%s: '%s' needs a value", cmd,
                                 size ? "--size" : "--machine");
            if (!size) {
                a->machine = v;
                continue;
            }
            a->sizes = tl_xrealloc(a->sizes, (size_t)(a->nsizes + 1) *
                                                 sizeof *a->sizes);
            a->sizes[a->nsizes++] = v;
            continue;
        }
        if (!opts || !cli_is_option(arg)) {
            if (a->file)
                return cli_usage("%s: more than one program file ('%s' and "
                                 "'%s')", cmd, a->file, arg);
            a->file = arg;
            continue;
        }
        for (int j = 0; j < (compile ? 6 : 3) && !opt; j++)
            if (cli_opt_is(arg, names[j]))
                opt = names[j];
        if (!opt)
            return cli_usage("%s: unknown option '%s'", cmd, arg);
        if (!(v = cli_opt_value(argc, argv, &i, opt)))
            return cli_usage("%s: '%s' needs a value", cmd, opt);
        if (opt == names[0]) {
            a->kernel = v;
        } else if (opt == names[1]) {
            a->target = v;
        } else if (opt == names[2]) {
            a->in = tl_xrealloc(a->in, (size_t)(a->nin + 1) * sizeof *a->in);
            a->in[a->nin++] = v;
        } else if (opt == names[3]) {
            a->outs = tl_xrealloc(a->outs, (size_t)(a->nout + 1) *
                                               sizeof *a->outs);
            a->outs[a->nout++] = v;
        } else if (opt == names[4]) {
            a->symbol = v;
        } else {
            a->machine = v;
        }
    }
    if (!a->file)
        return cli_usage("%s: no program file given (usage: tdsl %s "
                         "FILE.tdsl [--kernel K]%s)", cmd, cmd,
                         compile ? " [-o OUT.c|.so|.h]..." : "");
    if (!a->target)
        a->target = "cpu";
    if (!strcmp(a->target, "accel") && !compile) {
        if (!a->explain)
            return cli_usage("%s: with --target accel, give --explain (the "
                             "layout plan); the accel loop IR is not "
                             "printed yet", cmd);
        if (a->machine && cli_set_machine(a->machine) != EXIT_OK)
            return EXIT_USAGE;
        return EXIT_OK;
    }
    if (a->explain || a->nsizes || a->simulate)
        return cli_usage("%s: --explain, --simulate and --size go with "
                         "--target accel", cmd);
    if (compile && !strcmp(a->target, "accel")) {
        if (a->symbol)
            return cli_usage("%s: --symbol names a C entry; target 'accel' "
                             "writes no C", cmd);
        if (a->machine && cli_set_machine(a->machine) != EXIT_OK)
            return EXIT_USAGE;
        return EXIT_OK;
    }
    if (a->machine)
        return cli_usage("%s: --machine is for --target accel", cmd);
    if (!strcmp(a->target, "accel")) {
        fprintf(stderr, "tdsl: %s: target 'accel' is not available for "
                "'%s' yet: the accelerator backend comes with issue 6; "
                "use --target cpu\n", cmd, cmd);
        return EXIT_USAGE;
    }
    if (strcmp(a->target, "cpu"))
        return cli_usage("%s: unknown target '%s' (the targets are 'cpu' "
                         "and 'accel')", cmd, a->target);
    if (a->symbol) {
        int ok = isalpha((unsigned char)a->symbol[0]) || a->symbol[0] == '_';
        for (const char *p = a->symbol; *p && ok; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        if (!ok)
            return cli_usage("%s: '--symbol %s' is not a C identifier", cmd,
                             a->symbol);
    }
    return EXIT_OK;
}

/* ====================================================================
 * The kernel, and the instance of a generic one
 * ==================================================================== */

/* "f32[N, 3]" (any names or numbers; only their count matters) or
 * "f32[]": 0 and the dtype and rank, else -1. */
static int parse_type(const char *t, TlDType *dt, int *rank)
{
    const char *br = strchr(t, '[');
    size_t n = strlen(t);
    int items = 0, empty = 1;

    if (!br || n < 2 || t[n - 1] != ']')
        return -1;
    *dt = dt_from_name(t, (size_t)(br - t));
    if (*dt == DT_NONE)
        return -1;
    for (const char *p = br + 1; p < t + n - 1; p++) {
        if (*p == ',') {
            if (empty)
                return -1;
            items++;
            empty = 1;
        } else if (isalnum((unsigned char)*p) || *p == '_') {
            empty = 0;
        } else if (*p != ' ') {
            return -1;
        }
    }
    if (empty && items > 0)
        return -1;
    *rank = items + !empty;
    return *rank <= TL_MAX_RANK ? 0 : -1;
}

static int bad(const char *cmd, const char *fmt, ...) TL_PRINTF(2, 3);

static int input_index(const TlKernelInfo *k, const char *name, size_t n)
{
    for (int j = 0; j < k->ninputs; j++)
        if (strlen(k->inputs[j]->name) == n &&
            !strncmp(k->inputs[j]->name, name, n))
            return j;
    return -1;
}

/* Dtype and rank of input j from spec (a type or a .npy file). */
static int input_type(const char *cmd, const TlKernelInfo *k, int j,
                      const char *spec, TlDType *dt, int *rank)
{
    size_t n = strlen(spec);
    char err[400];
    TlTensor *t;

    if (parse_type(spec, dt, rank) == 0)
        return EXIT_OK;
    if (n < 4 || strcmp(spec + n - 4, ".npy"))
        return bad(cmd, "input '%s' of '%s': '%s' is neither a type like "
                   "f32[N, M] nor a .npy file", k->inputs[j]->name, k->name,
                   spec);
    if (!(t = tl_npy_read(spec, err, sizeof err))) {
        fprintf(stderr, "tdsl: input '%s' of '%s': %s\n",
                k->inputs[j]->name, k->name, err);
        return EXIT_DIAG;
    }
    *dt = t->dtype;
    *rank = t->rank;
    tl_tensor_unref(t);
    return EXIT_OK;
}

/* A problem with the command line: "tdsl: CMD: MESSAGE", and the hint
 * to --help unless it is a REPL command (":lower"). */
static int bad(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, cmd[0] == ':' ? "'%s': " : "tdsl: %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(cmd[0] == ':' ? "\n" : "\ntry 'tdsl --help'\n", stderr);
    return EXIT_USAGE;
}

TlKernelInfo *cli_instance(TlSession *s, const char *cmd, TlKernelInfo *g,
                           const char *const *in, int nin, int *status)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    TlDType *dts = tl_xcalloc((size_t)g->ninputs + 1, sizeof *dts);
    int *ranks = tl_xcalloc((size_t)g->ninputs + 1, sizeof *ranks);
    const char **given = tl_xcalloc((size_t)g->ninputs + 1, sizeof *given);
    TlKernelInfo *k = NULL;
    int next = 0;

    *status = EXIT_OK;
    for (int i = 0; i < nin && *status == EXIT_OK; i++) {
        const char *spec = in[i], *eq = strchr(spec, '=');
        const char *br = strchr(spec, '[');
        int j;
        if (eq && (!br || eq < br)) {
            j = input_index(g, spec, (size_t)(eq - spec));
            if (j < 0) {
                TlBuf b;
                buf_init(&b);
                for (int q = 0; q < g->ninputs; q++)
                    buf_printf(&b, "%s%s", q ? ", " : "",
                               g->inputs[q]->name);
                *status = bad(cmd, "'%.*s' is not an input of '%s' (its "
                              "inputs: %s)", (int)(eq - spec), spec, g->name,
                              g->ninputs ? b.s : "none");
                buf_free(&b);
                break;
            }
            spec = eq + 1;
        } else {
            while (next < g->ninputs && given[next])
                next++;
            if (next == g->ninputs) {
                *status = bad(cmd, "'%s' has %d input%s but %d types were "
                              "given", g->name, g->ninputs,
                              g->ninputs == 1 ? "" : "s", nin);
                break;
            }
            j = next;
        }
        if (given[j]) {
            *status = bad(cmd, "input '%s' is given twice",
                          g->inputs[j]->name);
            break;
        }
        given[j] = spec;
        *status = input_type(cmd, g, j, spec, &dts[j], &ranks[j]);
    }
    for (int j = 0; j < g->ninputs && *status == EXIT_OK; j++)
        if (!given[j])
            *status = bad(cmd, "'%s' is generic: give the dtype and rank of "
                          "input '%s' (%s%s=f32[N, M], or a .npy file)",
                          g->name, g->inputs[j]->name,
                          cmd[0] == ':' ? "after the kernel's name: " : "--in ",
                          g->inputs[j]->name);
    if (*status == EXIT_OK) {
        k = tl_instantiate(s, g, dts, ranks, nowhere);
        if (!k)
            *status = EXIT_DIAG;
    }
    free(dts);
    free(ranks);
    free(given);
    return k;
}

TlKernelInfo *cli_kernel_of(TlSession *s, TlProgram *prog,
                            const CliKernelArgs *a, int *status)
{
    TlKernelInfo *k = cli_find_kernel(prog, a->cmd, a->file, a->kernel,
                                      status);

    if (!k)
        return NULL;
    if (k->generic)
        return cli_instance(s, a->cmd, k, a->in, a->nin, status);
    /* An accel program is made for concrete shapes: there --in gives
     * them (cmd_compile_accel.c). */
    if (a->nin && strcmp(a->target, "accel")) {
        *status = cli_usage("%s: '%s' is not generic: its input types are "
                            "fixed, so --in is not needed", a->cmd, k->name);
        return NULL;
    }
    if (!k->ok) {
        *status = EXIT_DIAG;
        return NULL;
    }
    return k;
}

/* Parses and checks the file, picks the kernel and calls fn on it under
 * the fatal boundary.  fn returns an exit status. */
int cli_with_kernel(const CliKernelArgs *a,
                    int (*fn)(TlSession *s, TlKernelInfo *k,
                              const CliKernelArgs *a))
{
    TlSession *s = cli_session();
    TlProgram *prog = cli_parse(s, a->file);
    jmp_buf boundary;
    volatile int status = EXIT_DIAG;

    if (prog && s->nerrors == 0 && cli_check(s, prog) == 0) {
        s->fatal = &boundary;
        if (setjmp(boundary) == 0) {
            int st = EXIT_OK;
            TlKernelInfo *k = cli_kernel_of(s, prog, a, &st);
            status = k ? fn(s, k, a) : st;
        }
        s->fatal = NULL;
    }
    tl_session_free(s);
    return status;
}

static int print_lowered(TlSession *s, TlKernelInfo *k,
                         const CliKernelArgs *a)
{
    LFunc *f = cgc_lower(s, k);
    TlBuf b;
    int status;

    (void)a;
    if (!f)
        return EXIT_DIAG;
    buf_init(&b);
    lir_print_func(&b, f);
    status = cli_put(&b);
    buf_free(&b);
    return status;
}

int cmd_lower(int argc, char **argv)
{
    CliKernelArgs a;
    int status = cli_kernel_args(argc, argv, 0, &a);

    if (status == EXIT_OK)
        status = cli_with_kernel(&a, strcmp(a.target, "accel")
                                         ? print_lowered
                                         : cli_lower_accel);
    cli_kernel_args_free(&a);
    return status;
}
