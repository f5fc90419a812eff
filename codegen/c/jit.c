/*
 * jit.c - generated C to a loaded function: the source goes to the
 * cache directory ($XDG_CACHE_HOME/tdsl, else ~/.cache/tdsl) under a
 * name made from a hash of the source, the compiler and its flags; the
 * system compiler builds a shared object beside it unless one is
 * already there, so a second run with the same source does not run
 * the compiler.  Objects stay loaded for the life of the process.
 * TDSL_CC overrides the compiler; TDSL_CFLAGS_EXTRA adds flags (the
 * tests add -Wall -Werror).
 */
#include "codegen/c/cgc.h"
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Contraction to FMA would change results: the interpreter rounds
 * every operation. */
#if TDSL_CC_OPENMP
#define CG_FLAGS "-O3 -march=native -ffp-contract=off -fopenmp -shared -fPIC"
#else
#define CG_FLAGS "-O3 -march=native -ffp-contract=off -shared -fPIC"
#endif

/* Objects loaded so far, by hash. */
typedef struct Loaded {
    uint64_t hash;
    CgEntry fn;
    struct Loaded *next;
} Loaded;
static Loaded *loaded;

/* FNV-1a over s and a separating zero byte. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h * 0x100000001b3ull;
}

/* mkdir -p; 0 or -1 with errno. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0755) && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    if (mkdir(path, 0755) && errno != EEXIST)
        return -1;
    return 0;
}

static char *cache_dir(TlSession *s)
{
    const char *x = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");

    if (x && *x)
        return arena_printf(&s->arena, "%s/tdsl", x);
    return arena_printf(&s->arena, "%s/.cache/tdsl", home && *home ? home
                                                                 : "/tmp");
}

/* Appends s quoted for the shell. */
static void shell_quote(TlBuf *b, const char *s)
{
    buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            buf_puts(b, "'\\''");
        else
            buf_putc(b, *s);
    }
    buf_putc(b, '\'');
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok;

    if (!f)
        return -1;
    ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}

CgEntry cgc_jit(TlSession *s, const char *src, TlLoc loc)
{
    const char *cc = getenv("TDSL_CC");
    const char *extra = getenv("TDSL_CFLAGS_EXTRA");
    char *dir = cache_dir(s);
    char *cpath, *sopath, *tmp, *log;
    uint64_t h = 0xcbf29ce484222325ull;
    struct stat st;
    void *lib;
    CgEntry fn;
    Loaded *l;

    if (!cc || !*cc)
        cc = TDSL_CC;
    if (!extra)
        extra = "";
    h = fnv(fnv(fnv(fnv(h, src), cc), CG_FLAGS), extra);
    for (l = loaded; l; l = l->next)
        if (l->hash == h)
            return l->fn;
    if (make_dirs(dir)) {
        diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                   "cannot make '%s': %s", dir, strerror(errno)));
        return NULL;
    }
    cpath = arena_printf(&s->arena, "%s/k%016llx.c", dir,
                         (unsigned long long)h);
    sopath = arena_printf(&s->arena, "%s/k%016llx.so", dir,
                          (unsigned long long)h);
    if (stat(sopath, &st) != 0) {
        TlBuf cmd;
        int rc;
        tmp = arena_printf(&s->arena, "%s/k%016llx.%ld.so", dir,
                           (unsigned long long)h, (long)getpid());
        log = arena_printf(&s->arena, "%s/k%016llx.log", dir,
                           (unsigned long long)h);
        if (write_file(cpath, src)) {
            diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                       "cannot write '%s': %s", cpath, strerror(errno)));
            return NULL;
        }
        buf_init(&cmd);
        buf_printf(&cmd, "%s %s %s -o ", cc, CG_FLAGS, extra);
        shell_quote(&cmd, tmp);
        buf_putc(&cmd, ' ');
        shell_quote(&cmd, cpath);
        buf_puts(&cmd, " -lm >");
        shell_quote(&cmd, log);
        buf_puts(&cmd, " 2>&1");
        rc = system(cmd.s);
        buf_free(&cmd);
        if (rc != 0 || rename(tmp, sopath) != 0) {
            remove(tmp);
            diag_error(s, loc, DIAG_CG_CC_FAILED, cpath, log);
            return NULL;
        }
        remove(log);
    }
    lib = dlopen(sopath, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        diag_error(s, loc, DIAG_CG_DLOPEN, sopath, dlerror());
        return NULL;
    }
    *(void **)(&fn) = dlsym(lib, "tdsl_entry");
    if (!fn) {
        diag_error(s, loc, DIAG_CG_DLOPEN, sopath, "no 'tdsl_entry' in it");
        dlclose(lib);
        return NULL;
    }
    l = tl_xmalloc(sizeof *l);
    l->hash = h;
    l->fn = fn;
    l->next = loaded;
    loaded = l;
    return fn;
}
