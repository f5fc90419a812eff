/*
 * jit.c - generated C to a shared object, through the kernel cache.
 *
 * The cache is a folder ($XDG_CACHE_HOME/tdsl, else ~/.cache/tdsl)
 * of pairs kHASH.c / kHASH.so, where HASH (64 bits, FNV-1a) covers the
 * source, the compiler (its name and the size, time and inode of the
 * program it resolves to, so an upgraded compiler misses) and the
 * flags.  A hit is an existing .so whose .c beside it holds exactly
 * this source, so a hash collision compiles afresh instead of loading
 * the wrong kernel; a second run with the same source does not run
 * the compiler.  Several processes may compile at once: every file
 * is written under a name of its own (with the process id) and
 * renamed into place, so a reader sees a whole file or none.  Objects
 * stay loaded for the life of the process.
 *
 * With the cache off (cgc_cache_enable(0), `--no-cache`) nothing is
 * read from or written to the cache: the files go to a private
 * temporary folder, removed once the object is loaded.
 *
 * TDSL_CC overrides the compiler; TDSL_CFLAGS_EXTRA adds flags (the
 * tests add -Wall -Werror); TDSL_FMA=1 lets the compiler contract
 * a * b + c into fused multiply-adds.
 */
#include "codegen/c/cgc.h"
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Contraction to FMA would change results: the interpreter rounds
 * every operation.  TDSL_FMA=1 asks for it (a * b + c rounded once:
 * faster, within a tolerance of the interpreter; SPEC 10.8).
 * TL_CONTRACT tells the generated code so: its tl_mulbc16 is then the
 * C product that the compiler can fuse (emit_bcmul.c). */
#ifndef TDSL_CC_SANITIZE
#define TDSL_CC_SANITIZE ""
#endif
#if TDSL_CC_OPENMP
#define CG_OMP " -fopenmp"
#else
#define CG_OMP ""
#endif
#define CG_FLAGS_EXACT "-O3 -march=native -ffp-contract=off" CG_OMP \
    " -shared -fPIC"
#define CG_FLAGS_FMA "-O3 -march=native -ffp-contract=fast -DTL_CONTRACT" \
    CG_OMP \
    " -shared -fPIC"

static int fma_asked(void)
{
    const char *f = getenv("TDSL_FMA");

    return f && !strcmp(f, "1");
}

const char *cgc_flags(void)
{
    return fma_asked() ? CG_FLAGS_FMA : CG_FLAGS_EXACT;
}

/* A sanitizer build instruments the kernels it loads itself (the
 * process has the sanitizers' run-time), not the ahead-of-time objects
 * that a user's program links. */
static const char *flags_for(int aot)
{
    if (aot || !*TDSL_CC_SANITIZE)
        return cgc_flags();
    return fma_asked() ? CG_FLAGS_FMA " " TDSL_CC_SANITIZE
                       : CG_FLAGS_EXACT " " TDSL_CC_SANITIZE;
}

/* Objects loaded so far, by hash. */
typedef struct Loaded {
    uint64_t hash;
    CgEntry fn;
    struct Loaded *next;
} Loaded;
static Loaded *loaded;

/* A process-wide switch: the command line sets it once, before any
 * compilation. */
static int cache_off;

void cgc_cache_enable(int on)
{
    cache_off = !on;
}

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

const char *cgc_cache_dir(TlSession *s)
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

/* Writes text to path through a temporary file renamed into place. */
static int write_atomic(TlSession *s, const char *path, const char *text,
                        size_t len)
{
    char *tmp = arena_printf(&s->arena, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int ok;

    if (!f)
        return -1;
    ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Does the file at path hold exactly text? */
static int holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "rb");
    size_t n = strlen(text), i = 0;
    int c, same = 1;

    if (!f)
        return 0;
    while (same && (c = getc(f)) != EOF)
        same = i < n && (unsigned char)text[i++] == c;
    fclose(f);
    return same && i == n;
}

/* The compiler's program: the first word of cc, looked up in PATH
 * when it has no '/'.  Its size, time and inode go into the hash. */
static uint64_t hash_compiler(TlSession *s, uint64_t h, const char *cc)
{
    size_t n = strcspn(cc, " \t");
    char *prog = arena_printf(&s->arena, "%.*s", (int)n, cc);
    const char *path = getenv("PATH");
    struct stat st;
    int found = 0;

    if (strchr(prog, '/')) {
        found = stat(prog, &st) == 0;
    } else {
        while (path && *path && !found) {
            size_t m = strcspn(path, ":");
            char *p = arena_printf(&s->arena, "%.*s/%s", (int)m, path, prog);
            found = stat(p, &st) == 0 && S_ISREG(st.st_mode);
            path += m + (path[m] == ':');
        }
    }
    h = fnv(h, cc);
    if (found) {
        char id[96];
        snprintf(id, sizeof id, "%lld:%lld:%lld", (long long)st.st_size,
                 (long long)st.st_mtime, (long long)st.st_ino);
        h = fnv(h, id);
    }
    return h;
}

/* The compiler, its flags and the hash of src under them. */
typedef struct Job {
    const char *cc, *flags, *extra;
    uint64_t hash;
} Job;

static Job job_for(TlSession *s, const char *src, int aot)
{
    Job j;

    j.cc = getenv("TDSL_CC");
    j.extra = getenv("TDSL_CFLAGS_EXTRA");
    if (!j.cc || !*j.cc)
        j.cc = TDSL_CC;
    if (!j.extra)
        j.extra = "";
    j.hash = hash_compiler(s, 0xcbf29ce484222325ull, j.cc);
    j.flags = flags_for(aot);
    j.hash = fnv(fnv(fnv(j.hash, j.flags), j.extra), src);
    return j;
}

/* Runs the compiler on cpath, writing the object to out (its output
 * goes to log).  0, or -1 after reporting at loc. */
static int run_cc(TlSession *s, const Job *j, const char *cpath,
                  const char *out, const char *log, TlLoc loc)
{
    TlBuf cmd;
    int rc;

    buf_init(&cmd);
    buf_printf(&cmd, "%s %s %s -o ", j->cc, j->flags, j->extra);
    shell_quote(&cmd, out);
    buf_putc(&cmd, ' ');
    shell_quote(&cmd, cpath);
    buf_puts(&cmd, " -lm >");
    shell_quote(&cmd, log);
    buf_puts(&cmd, " 2>&1");
    rc = system(cmd.s);
    buf_free(&cmd);
    if (rc != 0) {
        remove(out);
        diag_error(s, loc, DIAG_CG_CC_FAILED, cpath, log);
        return -1;
    }
    remove(log);
    return 0;
}

/* Builds src into a shared object and returns its path, or NULL after
 * reporting at loc.  *tmpdir is set to the private folder to remove
 * once the object is no longer needed (NULL for a cached object). */
static const char *build(TlSession *s, const char *src, TlLoc loc,
                         int aot, uint64_t *hash, char **tmpdir)
{
    Job j = job_for(s, src, aot);
    char *dir, *base, *cpath, *sopath, *tmp;
    unsigned long long h = (unsigned long long)j.hash;
    struct stat st;

    *hash = j.hash;
    *tmpdir = NULL;
    if (cache_off) {
        const char *t = getenv("TMPDIR");
        dir = arena_printf(&s->arena, "%s/tdsl-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) {
            diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                       "cannot make a temporary folder '%s': %s", dir,
                       strerror(errno)));
            return NULL;
        }
        *tmpdir = dir;
    } else {
        dir = arena_strdup(&s->arena, cgc_cache_dir(s));
        if (make_dirs(dir)) {
            diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                       "cannot make '%s': %s", dir, strerror(errno)));
            return NULL;
        }
    }
    base = arena_printf(&s->arena, "%s/k%016llx", dir, h);
    cpath = arena_printf(&s->arena, "%s.c", base);
    sopath = arena_printf(&s->arena, "%s.so", base);
    if (!cache_off && stat(sopath, &st) == 0 && holds(cpath, src))
        return sopath;
    if (!cache_off && stat(sopath, &st) == 0) {
        /* Another source with this hash: build it privately. */
        int was = cache_off;
        const char *r;
        cache_off = 1;
        r = build(s, src, loc, aot, hash, tmpdir);
        cache_off = was;
        return r;
    }
    if (write_atomic(s, cpath, src, strlen(src))) {
        diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                   "cannot write '%s': %s", cpath, strerror(errno)));
        return NULL;
    }
    tmp = arena_printf(&s->arena, "%s.%ld.so.tmp", base, (long)getpid());
    if (run_cc(s, &j, cpath, tmp, arena_printf(&s->arena, "%s.%ld.log",
                                               base, (long)getpid()),
               loc))
        return NULL;
    if (rename(tmp, sopath) != 0) {
        diag_error(s, loc, DIAG_CG_CACHE, arena_printf(&s->arena,
                   "cannot rename '%s': %s", tmp, strerror(errno)));
        remove(tmp);
        return NULL;
    }
    return sopath;
}


/* A kernel allocates its larger intermediate buffers at each call and
 * frees them at the end.  glibc returns such memory to the system (an
 * mmap of its own, or a trim of the heap's top) unless its dynamic
 * thresholds have happened to rise, and the next call then faults
 * every page in again: the ResNet-style block of bench/onnx ran at 337
 * or 418 us by the process's history alone (51000 page faults in 1000
 * calls against 1300).  Kept in the heap below 64 MB, the memory is
 * reused; the peak is the same (the buffers are live during a call).
 * The user's MALLOC_ settings win. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    static int done;

    if (done)
        return;
    done = 1;
    if (!getenv("MALLOC_MMAP_THRESHOLD_"))
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
    if (!getenv("MALLOC_TRIM_THRESHOLD_"))
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* Removes the files of a private build folder and the folder. */
static void remove_tmpdir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d))) {
        char path[4096];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
    rmdir(dir);
}

CgEntry cgc_jit(TlSession *s, const char *src, TlLoc loc)
{
    Job j;
    const char *sopath;
    char *tmpdir;
    uint64_t h;
    void *lib;
    CgEntry fn;
    Loaded *l;

    j = job_for(s, src, 0);
    for (l = loaded; l; l = l->next)
        if (l->hash == j.hash)
            return l->fn;
    if (!(sopath = build(s, src, loc, 0, &h, &tmpdir)))
        return NULL;
    keep_freed_memory();
    lib = dlopen(sopath, RTLD_NOW | RTLD_LOCAL);
    if (tmpdir)
        remove_tmpdir(tmpdir);
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
    l->hash = j.hash;
    l->fn = fn;
    l->next = loaded;
    loaded = l;
    return fn;
}

/* Copies the file at from to path, atomically. */
static int copy_file(TlSession *s, const char *from, const char *path)
{
    FILE *f = fopen(from, "rb");
    TlBuf b;
    char chunk[65536];
    size_t n;
    int rc;

    if (!f)
        return -1;
    buf_init(&b);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_putn(&b, chunk, n);
    rc = ferror(f) ? -1 : 0;
    fclose(f);
    if (rc == 0)
        rc = write_atomic(s, path, b.s ? b.s : "", b.len);
    buf_free(&b);
    return rc;
}

int cgc_build_shared(TlSession *s, const char *src, const char *path)
{
    TlLoc nowhere = {-1, 0, 0, 0, 0};
    const char *so;
    char *tmpdir;
    uint64_t h;
    int rc = 0;

    if (!(so = build(s, src, nowhere, 1, &h, &tmpdir)))
        return -1;
    if (copy_file(s, so, path)) {
        fprintf(stderr, "tdsl: cannot write '%s': %s\n", path,
                strerror(errno));
        rc = -1;
    } else {
        chmod(path, 0755);
    }
    if (tmpdir)
        remove_tmpdir(tmpdir);
    return rc;
}

/* ====================================================================
 * The cache as a whole: `tdsl cache`, `tdsl cache clear`
 * ==================================================================== */

/* Is name one of the cache's files: k, 16 hex digits, '.', more? */
static int cache_file(const char *name)
{
    if (name[0] != 'k')
        return 0;
    for (int i = 1; i <= 16; i++)
        if (!strchr("0123456789abcdef", name[i]) || !name[i])
            return 0;
    return name[17] == '.';
}

int cgc_cache_scan(TlSession *s, int clear, long *nkernels,
                   long long *bytes)
{
    const char *dir = cgc_cache_dir(s);
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;

    *nkernels = 0;
    *bytes = 0;
    if (!d)
        return errno == ENOENT ? 0 : -1;
    while ((e = readdir(d))) {
        char *path;
        struct stat st;
        size_t n = strlen(e->d_name);
        if (!cache_file(e->d_name))
            continue;
        path = arena_printf(&s->arena, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        *bytes += (long long)st.st_size;
        if (n == 20 && !strcmp(e->d_name + 17, ".so"))
            (*nkernels)++;
        if (clear && remove(path) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}
