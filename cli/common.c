/*
 * common.c - helpers shared by the tdsl commands: usage errors, a
 * session set up for the command line, and parsing and checking under
 * the session's fatal-error boundary (STYLE rule 13: one setjmp where
 * the session is used, so diag_fatal has somewhere to land).
 */
#include "cli/cli.h"
#include "codegen/acc/layout.h"
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_repl;

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    TlBuf b;
    const char *colon, *msg;

    buf_init(&b);
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    msg = b.s ? b.s : "";
    /* In the REPL "layout: MESSAGE" reads "':layout': MESSAGE", as the
     * REPL's own messages do. */
    colon = cli_repl ? strstr(msg, ": ") : NULL;
    if (colon && !memchr(msg, ' ', (size_t)(colon - msg)))
        fprintf(stderr, "':%.*s': %s\n", (int)(colon - msg), msg,
                colon + 2);
    else
        fprintf(stderr, cli_repl ? "%s\n" : "tdsl: %s\ntry 'tdsl --help'\n",
                msg);
    buf_free(&b);
    return EXIT_USAGE;
}

int cli_is_option(const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0';
}

int cli_opt_is(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return !strncmp(arg, opt, n) && (arg[n] == '\0' || arg[n] == '=');
}

const char *cli_opt_value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);

    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

int cli_put(const TlBuf *b)
{
    if ((b->len > 0 && fwrite(b->s, 1, b->len, stdout) != b->len) ||
        fflush(stdout) != 0) {
        fprintf(stderr, "tdsl: cannot write the output\n");
        return EXIT_DIAG;
    }
    return EXIT_OK;
}

int cli_write_file(const char *path, const TlBuf *b)
{
    size_t n = strlen(path) + 32;
    char *tmp = tl_xmalloc(n);
    FILE *f;
    int ok = 0;

    snprintf(tmp, n, "%s.%ld.tmp", path, (long)getpid());
    if ((f = fopen(tmp, "wb"))) {
        ok = fwrite(b->s ? b->s : "", 1, b->len, f) == b->len;
        ok = (fclose(f) == 0) && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            remove(tmp);
    }
    if (!ok)
        fprintf(stderr, "tdsl: cannot write '%s': %s\n", path,
                strerror(errno));
    free(tmp);
    return ok ? EXIT_OK : EXIT_DIAG;
}

/* The folder of std modules.  The ./tdsl built in the source tree uses
 * the tree's stdlib/, so a developer never picks up an older installed
 * copy by accident; any other binary uses the installed one. */
static const char *std_path(void)
{
    static char exe[PATH_MAX];

    if (realpath("/proc/self/exe", exe) &&
        strcmp(exe, TDSL_SRCDIR "/tdsl") == 0)
        return TDSL_SRCDIR "/stdlib";
    return TDSL_STDLIB_DIR;
}

/* Colour only for a person at a terminal; NO_COLOR (no-color.org)
 * and TERM=dumb turn it off. */
static int want_color(void)
{
    const char *no = getenv("NO_COLOR");
    const char *term = getenv("TERM");

    if (no && *no)
        return 0;
    if (!term || strcmp(term, "dumb") == 0)
        return 0;
    return isatty(STDERR_FILENO);
}

TlSession *cli_session(void)
{
    TlSession *s = tl_session_new();

    s->diag_out = stderr;
    s->color = want_color();
    prs_install_loader(s, std_path());
    return s;
}

TlProgram *cli_parse(TlSession *s, const char *path)
{
    jmp_buf boundary;
    jmp_buf *outer = s->fatal;
    TlProgram *volatile prog = NULL;

    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        prog = tl_parse_file(s, path);
    s->fatal = outer;
    return prog;
}

static const char *machine_spec = "test";

int cli_set_machine(const char *spec)
{
    TlSession *s = tl_session_new();
    TlBuf err;
    int ok;

    buf_init(&err);
    ok = acc_machine_get(s, spec, &err) != NULL;
    if (!ok)
        fprintf(stderr, "tdsl: --machine: %s\n", err.s ? err.s : spec);
    else
        machine_spec = spec;
    buf_free(&err);
    tl_session_free(s);
    return ok ? EXIT_OK : EXIT_USAGE;
}

const AccMachine *cli_check_machine(TlSession *s)
{
    TlBuf err;
    const AccMachine *m;

    buf_init(&err);
    m = acc_machine_get(s, machine_spec, &err);
    buf_free(&err);
    TL_ASSERT(m != NULL);  /* cli_set_machine tried it */
    return m;
}

int cli_check(TlSession *s, TlProgram *prog)
{
    jmp_buf boundary;
    jmp_buf *outer = s->fatal;

    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        tl_check(s, prog);
        /* The accel schedules' layouts, against the machine. */
        if (s->nerrors == 0)
            acc_layout_check_program(s, prog, cli_check_machine(s));
    }
    s->fatal = outer;
    return s->nerrors;
}

/* ====================================================================
 * Choosing a kernel (tdsl run, lower, compile)
 * ==================================================================== */

static void list_kernels(TlBuf *b, const TlProgram *prog)
{
    int n = 0;

    for (int i = 0; i < prog->items.n; i++) {
        const TlItem *it = prog->items.v[i];
        if (it && it->kind == IT_KERNEL && tl_kernel_info(it))
            buf_printf(b, "%s'%s'", n++ ? ", " : "", it->name);
    }
}

TlKernelInfo *cli_find_kernel(const TlProgram *prog, const char *cmd,
                              const char *file, const char *name,
                              int *status)
{
    TlKernelInfo *only = NULL;
    int n = 0;
    TlBuf b;

    for (int i = 0; i < prog->items.n; i++) {
        const TlItem *it = prog->items.v[i];
        TlKernelInfo *k = it && it->kind == IT_KERNEL ? tl_kernel_info(it)
                                                      : NULL;
        if (!k)
            continue;
        if (name && !strcmp(k->name, name))
            return k;
        only = k;
        n++;
    }
    if (name) {
        for (int i = 0; i < prog->items.n; i++) {
            const TlItem *it = prog->items.v[i];
            const TlProgram *m;
            if (!it || it->kind != IT_IMPORT || !it->sym)
                continue;
            m = it->sym;
            for (int j = 0; j < m->items.n; j++) {
                TlKernelInfo *k = m->items.v[j] &&
                                          m->items.v[j]->kind == IT_KERNEL
                                      ? tl_kernel_info(m->items.v[j])
                                      : NULL;
                if (k && !strcmp(k->name, name))
                    return k;
            }
        }
        buf_init(&b);
        list_kernels(&b, prog);
        *status = cli_usage("%s: '%s' has no kernel '%s'%s%s", cmd, file,
                            name, n ? "; its kernels: " : "",
                            n ? b.s : "");
        buf_free(&b);
        return NULL;
    }
    if (n == 1)
        return only;
    if (n == 0) {
        fprintf(stderr, "tdsl: '%s' has no kernel to %s\n", file, cmd);
        *status = EXIT_DIAG;
        return NULL;
    }
    buf_init(&b);
    list_kernels(&b, prog);
    *status = cli_usage("%s: '%s' has %d kernels (%s); choose one with "
                        "--kernel NAME", cmd, file, n, b.s);
    buf_free(&b);
    return NULL;
}
