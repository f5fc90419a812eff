/*
 * cmd_compile_accel.c - `tdsl compile FILE [--kernel K] --target accel
 * [--machine M] [--in [NAME=]f32[1024, 3]|FILE.npy]... [-o OUT]...`:
 * the accelerator program of one call of a kernel.  What each -o
 * writes follows from its name:
 *
 *   OUT.s     TAM assembly (docs/accel-asm.md)
 *   OUT.tam   the same, assembled (what `tdsl asm OUT.s` writes)
 *
 * Without -o the assembly goes to standard output.  The program is
 * made for concrete shapes, so an input whose shape the kernel leaves
 * open takes it from --in: a type with numbers, or a .npy file (only
 * its dtype and shape are used).  The program runs on its own with
 * `tdsl sim OUT.tam --in X=x.npy ... --out Y=y.npy`; its `.machine`
 * line (a built-in machine) or --machine of `tdsl sim` (a machine
 * file) names the machine.
 */
#include "cli/cli.h"
#include "codegen/acc/acc.h"
#include "codegen/codegen.h"
#include "interp/interp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int input_of(const TlKernelInfo *k, const char *name, size_t n)
{
    for (int j = 0; j < k->ninputs; j++)
        if (strlen(k->inputs[j]->name) == n &&
            !strncmp(k->inputs[j]->name, name, n))
            return j;
    return -1;
}

/* The sizes of "f32[1024, 3]" into shape (-1 for a name); the number
 * of sizes, or -1 when spec is no such type. */
static int type_sizes(const char *spec, int64_t *shape)
{
    const char *p = strchr(spec, '[');
    int n = 0;

    if (!p)
        return -1;
    p++;
    while (*p && *p != ']') {
        const char *q = p;
        while (*q && *q != ',' && *q != ']')
            q++;
        if (n == TL_MAX_RANK)
            return -1;
        while (p < q && *p == ' ')
            p++;
        if (p < q && isdigit((unsigned char)*p)) {
            char *end;
            long long v = strtoll(p, &end, 10);
            while (end < q && *end == ' ')
                end++;
            shape[n] = end == q ? v : -1;
        } else {
            shape[n] = -1;
        }
        n++;
        p = *q == ',' ? q + 1 : q;
    }
    return *p == ']' ? n : -1;
}

/* The input tensors of the call (zeros; only their shapes are used):
 * shapes from --in, else from the kernel's constant extents.  NULL
 * after a message, *status set. */
static TlTensor **inputs(const char *cmd, const char *const *specs,
                         int nspecs, const TlKernelInfo *k, int *status)
{
    TlTensor **in = tl_xcalloc((size_t)k->ninputs + 1, sizeof *in);
    int64_t (*shape)[TL_MAX_RANK] =
        tl_xcalloc((size_t)k->ninputs + 1, sizeof *shape);
    const char *how = strcmp(cmd, "compile") ? "" : "--in ";
    int next = 0;

    *status = EXIT_OK;
    for (int j = 0; j < k->ninputs; j++)
        for (int d = 0; d < TL_MAX_RANK; d++)
            shape[j][d] = -1;
    for (int i = 0; i < nspecs && *status == EXIT_OK; i++) {
        const char *spec = specs[i], *eq = strchr(spec, '=');
        const char *br = strchr(spec, '[');
        int j;
        size_t n;
        if (eq && (!br || eq < br)) {
            j = input_of(k, spec, (size_t)(eq - spec));
            if (j < 0) {
                *status = cli_usage("%s: '%.*s' is not an input of "
                                    "'%s'", cmd, (int)(eq - spec), spec,
                                    k->name);
                break;
            }
            spec = eq + 1;
        } else {
            j = next++;
            if (j >= k->ninputs) {
                *status = cli_usage("%s: '%s' has %d inputs, but "
                                    "more types were given", cmd, k->name,
                                    k->ninputs);
                break;
            }
        }
        n = strlen(spec);
        if (n > 4 && !strcmp(spec + n - 4, ".npy")) {
            char err[400];
            TlTensor *t = tl_npy_read(spec, err, sizeof err);
            if (!t) {
                fprintf(stderr, "tdsl: %s: %s\n", cmd, err);
                *status = EXIT_DIAG;
                break;
            }
            for (int d = 0; d < t->rank && d < TL_MAX_RANK; d++)
                shape[j][d] = t->shape[d];
            tl_tensor_unref(t);
        } else if (type_sizes(spec, shape[j]) < 0) {
            *status = cli_usage("%s: input '%s': '%s' is neither a "
                                "type like f32[1024, 3] nor a .npy file",
                                cmd, k->inputs[j]->name, spec);
        }
    }
    for (int j = 0; j < k->ninputs && *status == EXIT_OK; j++) {
        const TlFunc *f = k->inputs[j];
        char err[200];
        for (int d = 0; d < f->rank && *status == EXIT_OK; d++) {
            int64_t c;
            if (shape[j][d] < 0 && f->axes[d].extent &&
                tl_sym_const(f->axes[d].extent, &c))
                shape[j][d] = c;
            if (shape[j][d] < 0)
                *status = cli_usage("%s: an accel program is made "
                                    "for one shape: give the shape of "
                                    "input '%s' (%s%s=%s[...] with "
                                    "numbers, or %s=FILE.npy)", cmd,
                                    f->name, how, f->name,
                                    dt_name(f->dtype), f->name);
        }
        if (*status == EXIT_OK &&
            !(in[j] = tl_tensor_new(f->dtype, f->rank, shape[j], err,
                                    sizeof err))) {
            fprintf(stderr, "tdsl: %s: input '%s': %s\n", cmd, f->name,
                    err);
            *status = EXIT_DIAG;
        }
    }
    free(shape);
    if (*status == EXIT_OK)
        return in;
    for (int j = 0; j < k->ninputs; j++)
        tl_tensor_unref(in[j]);
    free(in);
    return NULL;
}

int cli_accel_program(TlSession *s, const char *cmd, TlKernelInfo *k,
                      TlTensor *const *given, const char *const *specs,
                      int nspecs, const AccMachine *m, TlBuf *text)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    const AccMachine *bi = acc_machine_builtin(m->name);
    int status = EXIT_OK, rc;
    TlTensor **in = given ? (TlTensor **)given
                          : inputs(cmd, specs, nspecs, k, &status);

    if (!in)
        return status;
    buf_printf(text, "# tdsl compile --target accel: kernel %s, machine "
               "%s\n", k->name, m->name);
    if (bi && acc_machine_hash(bi) == acc_machine_hash(m))
        buf_printf(text, ".machine %s\n", m->name);
    rc = acc_cg_assembly(s, k, m, in, text, nowhere);
    if (!given) {
        for (int j = 0; j < k->ninputs; j++)
            tl_tensor_unref(in[j]);
        free(in);
    }
    if (rc == -2)
        return cli_usage("%s: the input shapes given do not fit "
                         "kernel '%s'", cmd, k->name);
    return rc ? EXIT_DIAG : EXIT_OK;
}

static int compile(TlSession *s, TlKernelInfo *k, const CliKernelArgs *a)
{
    const AccMachine *m = cli_check_machine(s);
    TlBuf text, bin;
    int status;

    buf_init(&text);
    buf_init(&bin);
    status = cli_accel_program(s, "compile", k, NULL, a->in, a->nin, m,
                               &text);
    if (status == EXIT_OK && a->nout == 0)
        status = cli_put(&text);
    for (int i = 0; i < a->nout && status == EXIT_OK; i++) {
        const char *path = a->outs[i];
        if (cli_ends_with(path, ".s")) {
            status = cli_write_file(path, &text);
            continue;
        }
        if (!bin.len) {
            char *name = arena_printf(&s->arena, "<accel %s>", k->name);
            int file = tl_add_source(s, name, text.s, text.len);
            AccProgram *p = acc_assemble(s, file, m, 1);
            if (!p)
                tl_internal_error(__FILE__, __LINE__, "the accel program "
                                  "of '%s' does not assemble", k->name);
            acc_write_tam(&bin, s, p);
        }
        status = cli_write_file(path, &bin);
    }
    buf_free(&text);
    buf_free(&bin);
    return status;
}

int cli_compile_accel(const CliKernelArgs *a)
{
    if (!a->machine) {
        const char *env = getenv("TDSL_MACHINE");
        if (env && *env && cli_set_machine(env) != EXIT_OK)
            return EXIT_USAGE;
    }
    return cli_with_kernel(a, compile);
}
