/*
 * cmd_fmt.c - `tdsl fmt [--check | -w] FILE...`: the canonical form of
 * a file (lang's ast_print_program, comments kept).
 *
 *   tdsl fmt FILE          print it to stdout ("-" reads stdin)
 *   tdsl fmt --check F...  exit 1 naming each file that is not canonical
 *   tdsl fmt -w F...       rewrite files in place (a temporary file
 *                          renamed over the original, so an interrupted
 *                          run never leaves half a file)
 *
 * A file with syntax errors is reported and left alone (exit 1).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FMT_PRINT, FMT_CHECK, FMT_WRITE };

/* Replaces PATH by the bytes of B: write a temporary file beside it
 * (same file system, so rename is atomic) with the original's mode. */
static int rewrite(const char *path, const TlBuf *b)
{
    size_t n = strlen(path) + sizeof ".fmt-XXXXXX";
    char *tmp = tl_xmalloc(n);
    struct stat st;
    FILE *f = NULL;
    int fd, err;

    snprintf(tmp, n, "%s.fmt-XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        err = errno;
        goto fail;
    }
    if (stat(path, &st) == 0 && fchmod(fd, st.st_mode & 07777) != 0)
        goto fail_errno;
    f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        goto fail_errno;
    }
    if ((b->len > 0 && fwrite(b->s, 1, b->len, f) != b->len) ||
        fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        goto fail_errno;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        goto fail_errno;
    free(tmp);
    return EXIT_OK;

fail_errno:
    err = errno;
    unlink(tmp);
fail:
    fprintf(stderr, "tdsl: cannot write '%s': %s\n", path, strerror(err));
    free(tmp);
    return EXIT_DIAG;
}

static int fmt_file(const char *path, int mode)
{
    TlSession *s = cli_session();
    TlProgram *prog = cli_parse(s, path);
    const TlSource *src;
    TlBuf out;
    int status = EXIT_OK, same;

    if (!prog || s->nerrors > 0) {
        tl_session_free(s);
        return EXIT_DIAG;
    }
    buf_init(&out);
    ast_print_program(&out, prog);
    src = &s->src[prog->file];
    same = out.len == src->len &&
           (out.len == 0 || memcmp(out.s, src->text, out.len) == 0);

    switch (mode) {
    case FMT_PRINT:
        status = cli_put(&out);
        break;
    case FMT_CHECK:
        if (!same) {
            fprintf(stderr, "%s: not canonically formatted\n",
                    strcmp(path, "-") ? path : "<stdin>");
            status = EXIT_DIAG;
        }
        break;
    case FMT_WRITE:
        /* Leave canonical files untouched (their mtime too). */
        if (!same)
            status = rewrite(path, &out);
        break;
    }
    buf_free(&out);
    tl_session_free(s);
    return status;
}

int cmd_fmt(int argc, char **argv)
{
    int mode = FMT_PRINT, nfiles = 0, opts = 1, status = EXIT_OK;
    int has_stdin = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int m = -1;
        if (opts && strcmp(a, "--") == 0) {
            opts = 0;
            continue;
        }
        if (opts && strcmp(a, "--check") == 0)
            m = FMT_CHECK;
        else if (opts && (strcmp(a, "-w") == 0 ||
                          strcmp(a, "--write") == 0))
            m = FMT_WRITE;
        else if (opts && cli_is_option(a))
            return cli_usage("fmt: unknown option '%s'", a);
        if (m < 0) {
            nfiles++;
            has_stdin |= strcmp(a, "-") == 0;
        } else if (mode != FMT_PRINT && mode != m) {
            return cli_usage("fmt: --check and -w do not go together");
        } else {
            mode = m;
        }
    }
    if (nfiles == 0)
        return cli_usage("fmt: no file given (usage: tdsl fmt [--check "
                         "| -w] FILE...)");
    if (mode == FMT_PRINT && nfiles > 1)
        return cli_usage("fmt: prints one file; use -w or --check for "
                         "several");
    if (mode == FMT_WRITE && has_stdin)
        return cli_usage("fmt: -w cannot rewrite standard input");

    opts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = 0;
            continue;
        }
        if (opts && cli_is_option(a))
            continue;
        if (fmt_file(a, mode) != EXIT_OK)
            status = EXIT_DIAG;
    }
    return status;
}
