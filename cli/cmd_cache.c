/*
 * cmd_cache.c - the cache of compiled kernels (codegen/c/jit.c):
 *
 *   tdsl cache          where it is, how many kernels, how many bytes
 *   tdsl cache clear    remove the compiled kernels (only the cache's
 *                       own files: anything else there is left alone)
 */
#include "cli/cli.h"
#include "codegen/codegen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "12.3 MiB" */
static void human(char *out, size_t n, long long bytes)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB"};
    double v = (double)bytes;
    int u = 0;

    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%lld bytes", bytes);
    else
        snprintf(out, n, "%.1f %s", v, units[u]);
}

int cmd_cache(int argc, char **argv)
{
    TlSession *s;
    int clear = 0, status = EXIT_OK;
    long nk;
    long long bytes;
    char size[64];
    const char *dir;

    if (argc > 1 && !strcmp(argv[1], "clear"))
        clear = 1;
    else if (argc > 1)
        return cli_usage("cache: unknown argument '%s' (tdsl cache, or "
                         "tdsl cache clear)", argv[1]);
    if (argc > 2)
        return cli_usage("cache: unexpected argument '%s'", argv[2]);
    s = cli_session();
    dir = cgc_cache_dir(s);
    if (cgc_cache_scan(s, clear, &nk, &bytes)) {
        fprintf(stderr, "tdsl: cache '%s': %s\n", dir, strerror(errno));
        status = EXIT_DIAG;
    } else {
        human(size, sizeof size, bytes);
        if (clear)
            printf("removed %ld compiled kernel%s (%s) from %s\n", nk,
                   nk == 1 ? "" : "s", size, dir);
        else
            printf("%s\n%ld compiled kernel%s, %s\n", dir, nk,
                   nk == 1 ? "" : "s", size);
    }
    tl_session_free(s);
    if (fflush(stdout) != 0)
        status = EXIT_DIAG;
    return status;
}
