/*
 * cmd_asm.c - `tdsl asm FILE.s [-o FILE.tam] [--machine M]` and
 * `tdsl disasm FILE.tam [--machine M] [-o FILE.s]`: the accelerator's
 * assembly to its binary and back (docs/accel-asm.md).  Also what
 * cmd_sim.c uses to load either form.
 */
#include "cli/cli.h"
#include "codegen/acc/acc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Reads a whole file into b; 0, or -1 after a message. */
static int slurp(const char *path, TlBuf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tdsl: cannot read '%s': %s\n", path,
                strerror(errno));
        return -1;
    }
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_putn(b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "tdsl: cannot read '%s'\n", path);
        return -1;
    }
    return 0;
}

const AccMachine *cli_machine(TlSession *s, const char *spec)
{
    if (!spec)
        return NULL;
    TlBuf err;
    buf_init(&err);
    const AccMachine *m = acc_machine_get(s, spec, &err);
    if (!m)
        fprintf(stderr, "tdsl: %s\n", err.s);
    buf_free(&err);
    return m;
}

AccProgram *cli_load_program(TlSession *s, const char *path,
                             const AccMachine *m, int compress)
{
    if (cli_ends_with(path, ".tam")) {
        TlBuf b;
        buf_init(&b);
        if (slurp(path, &b)) {
            buf_free(&b);
            return NULL;
        }
        TlBuf err;
        buf_init(&err);
        AccProgram *p = acc_read_tam(s, b.s ? b.s : "", b.len, m, &err);
        if (!p)
            fprintf(stderr, "tdsl: '%s': %s\n", path, err.s);
        buf_free(&err);
        buf_free(&b);
        return p;
    }
    int file = tl_add_file(s, path);
    if (file < 0)
        return NULL;
    return acc_assemble(s, file, m, compress);
}

static int run(int argc, char **argv, int dis)
{
    const char *in = NULL, *out = NULL, *mach = NULL;
    const char *cmd = dis ? "disasm" : "asm";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--machine")) && i + 1 < argc) {
            if (a[1] == 'o')
                out = argv[++i];
            else
                mach = argv[++i];
        } else if (cli_is_option(a)) {
            return cli_usage("%s: unknown option '%s'", cmd, a);
        } else if (in) {
            return cli_usage("%s: one file at a time", cmd);
        } else {
            in = a;
        }
    }
    if (!in)
        return cli_usage(dis ? "disasm: which program? (tdsl disasm K.tam)"
                             : "asm: which file? (tdsl asm K.s -o K.tam)");
    if (dis && !cli_ends_with(in, ".tam"))
        return cli_usage("disasm: '%s' is not a .tam file", in);
    TlSession *s = cli_session();
    int rc = EXIT_DIAG;
    const AccMachine *m = cli_machine(s, mach);
    if (mach && !m)
        goto done;
    AccProgram *p = cli_load_program(s, in, m, 1);
    if (!p)
        goto done;
    TlBuf b;
    buf_init(&b);
    if (dis) {
        acc_disasm(&b, p);
        rc = out ? cli_write_file(out, &b) : cli_put(&b);
    } else {
        char *def = NULL;
        if (!out) {
            size_t n = strlen(in);
            def = tl_xmalloc(n + 5);
            memcpy(def, in, n + 1);
            if (cli_ends_with(def, ".s"))
                def[n - 2] = 0;
            strcat(def, ".tam");
        }
        acc_write_tam(&b, s, p);
        rc = cli_write_file(out ? out : def, &b);
        free(def);
    }
    buf_free(&b);
done:
    tl_session_free(s);
    return rc;
}

int cmd_asm(int argc, char **argv)
{
    return run(argc, argv, 0);
}

int cmd_disasm(int argc, char **argv)
{
    return run(argc, argv, 1);
}
