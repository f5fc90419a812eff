/*
 * cmd_compile.c - `tdsl compile FILE [--kernel K] [--target cpu]
 * [--in [NAME=]TYPE]... [--symbol NAME] [-o OUT]...`: an
 * ahead-of-time kernel.  What each -o writes follows from its name:
 *
 *   OUT.c    the generated C, with the C entry (docs/c-abi.md)
 *   OUT.so   that C built into a shared object (through the cache)
 *   OUT.h    the header declaring the C entry
 *
 * Without -o the C goes to standard output.  Every file is written
 * whole or not at all (a temporary file renamed into place).  With
 * --target accel, cmd_compile_accel.c writes the accelerator program
 * (OUT.s, OUT.tam) instead.
 */
#include "cli/cli.h"
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_of(const char *path)
{
    static const char *const exts[] = {".c", ".so", ".h", NULL};
    size_t n = strlen(path);

    for (int i = 0; exts[i]; i++) {
        size_t m = strlen(exts[i]);
        if (n > m && !strcmp(path + n - m, exts[i]) && path[n - m - 1] != '/')
            return exts[i];
    }
    return NULL;
}

static int compile(TlSession *s, TlKernelInfo *k, const CliKernelArgs *a)
{
    const char *sym = a->symbol ? a->symbol : cgc_aot_symbol(s, k);
    TlBuf src, hdr;
    int status = EXIT_OK;

    buf_init(&src);
    buf_init(&hdr);
    if (cgc_aot_source(s, k, sym, &src)) {
        status = EXIT_DIAG;
        goto done;
    }
    if (a->nout == 0) {
        status = cli_put(&src);
        goto done;
    }
    for (int i = 0; i < a->nout && status == EXIT_OK; i++) {
        const char *path = a->outs[i], *kind = kind_of(path);
        if (!strcmp(kind, ".c")) {
            status = cli_write_file(path, &src);
        } else if (!strcmp(kind, ".h")) {
            if (!hdr.len && cgc_aot_header(s, k, sym, &hdr))
                status = EXIT_DIAG;
            else
                status = cli_write_file(path, &hdr);
        } else if (cgc_build_shared(s, src.s, path)) {
            status = EXIT_DIAG;
        }
    }
done:
    buf_free(&src);
    buf_free(&hdr);
    return status;
}

int cmd_compile(int argc, char **argv)
{
    CliKernelArgs a;
    int status = cli_kernel_args(argc, argv, 1, &a);
    int accel = status == EXIT_OK && !strcmp(a.target, "accel");

    for (int i = 0; accel && status == EXIT_OK && i < a.nout; i++) {
        if (!cli_ends_with(a.outs[i], ".s") &&
            !cli_ends_with(a.outs[i], ".tam"))
            status = cli_usage("compile: cannot tell what to write to '%s' "
                               "from its name: with --target accel, use .s "
                               "(assembly) or .tam (binary)", a.outs[i]);
        for (int j = 0; j < i && status == EXIT_OK; j++)
            if (!strcmp(a.outs[i], a.outs[j]))
                status = cli_usage("compile: '-o %s' is given twice",
                                   a.outs[i]);
    }
    if (accel) {
        if (status == EXIT_OK)
            status = cli_compile_accel(&a);
        cli_kernel_args_free(&a);
        return status;
    }
    for (int i = 0; status == EXIT_OK && i < a.nout; i++) {
        if (!kind_of(a.outs[i]))
            status = cli_usage("compile: cannot tell what to write to '%s' "
                               "from its name: use .c (C source), .so "
                               "(shared object) or .h (header)", a.outs[i]);
        for (int j = 0; j < i && status == EXIT_OK; j++)
            if (!strcmp(a.outs[i], a.outs[j]))
                status = cli_usage("compile: '-o %s' is given twice",
                                   a.outs[i]);
    }
    if (status == EXIT_OK)
        status = cli_with_kernel(&a, compile);
    cli_kernel_args_free(&a);
    return status;
}
