/*
 * emit_pool.c - parallel loops on a thread pool of the kernel's own:
 * the prelude's tl_par_for, and the outlining of a parallel loop's
 * body into a function of a range of its iterations.
 *
 * Why not OpenMP's `parallel for` (which kernels used until
 * 2026-11-29): libgomp's workers spin briefly (GOMP_SPINCOUNT), then
 * sleep on a futex, so a call's several parallel loops each waited for
 * the OS to wake them (16 futex calls a call of the bench's conv2d on
 * 2 threads, Halide's pool none), and a loop's end waited for a worker
 * that the OS had not run at all.  Here the calling thread takes chunks
 * like any worker (chunks are taken by an atomic ticket), so a loop
 * waits only for chunks being run; workers stay awake (spinning, then
 * yielding their core) for TL_POOL_AWAKE_NS after their last chunk,
 * which spans the loops of a call and the calls of a loop over it,
 * and sleep after that.  A loop inside a chunk, or one of a call from
 * a second thread while another call's loop holds the pool, runs on
 * its own thread: kernels may be called from several threads at once
 * (docs/c-abi.md).  Each kernel (each shared object) has its own pool.
 * TODO(issue 4): one pool for the process (a script's or a model's
 * kernels each start n - 1 workers, and a kernel's stay awake 2 ms
 * while the next kernel runs), which needs a home that every kernel
 * finds (RTLD_LOCAL objects share no symbol); and -fopenmp-simd in
 * place of -fopenmp, now that only `omp simd` is OpenMP's.
 *
 * The body becomes `static void tl_parN(void *, int64_t, int64_t)`,
 * emitted before the kernel's function; what it uses of the enclosing
 * scopes (parameters, lets, buffers, loop variables: all constant
 * within the loop, or pointers the threads share) is copied into a
 * struct tl_parN the call site fills.  Which names it uses is read off
 * the body's text: the scopes record each name with its declaration
 * (cgc_scope_add); a name in the body that a scope holds is captured,
 * one that none holds is the prelude's or the body's own.
 */
#include "codegen/c/cgc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char pool[] =
    "/* ---- thread pool (codegen/c/emit_pool.c) ---- */\n"
    "/* A parallel loop's body is a function of a range of its iterations\n"
    " * (tl_task); tl_par_for runs it in chunks.  Where C11 atomics and\n"
    " * POSIX threads are missing (or with -DTL_NO_POOL) the loop runs on\n"
    " * the calling thread. */\n"
    "typedef void (*tl_task)(void *ctx, int64_t lo, int64_t hi);\n"
    "/* ticket: the job's generation (24 bits), its count of chunks (20)\n"
    " * and the next chunk to take (20); a chunk is taken by moving the\n"
    " * ticket on with a compare-and-swap, so a chunk of an old job can\n"
    " * never be taken for a new one. */\n"
    "#define TL_POOL_CBITS 20\n"
    "#define TL_POOL_CMASK ((UINT64_C(1) << TL_POOL_CBITS) - 1)\n"
    "#if !defined(TL_NO_POOL) && defined(__STDC_VERSION__) && \\\n"
    "    __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__) && \\\n"
    "    (defined(__unix__) || defined(__APPLE__))\n"
    "#define TL_POOL 1\n"
    "#include <pthread.h>\n"
    "#include <sched.h>\n"
    "#include <stdatomic.h>\n"
    "#include <time.h>\n"
    "#include <unistd.h>\n"
    "#define TL_POOL_MAX 64\n"
    "/* An idle worker spins this long after its last chunk (yielding its\n"
    " * core to any other thread that wants it), then sleeps. */\n"
    "#define TL_POOL_AWAKE_NS 2000000\n"
    "static struct {\n"
    "    _Atomic uint64_t ticket;\n"
    "    _Atomic uint32_t done;      /* chunks of the job finished */\n"
    "    atomic_int busy;            /* a call owns the pool */\n"
    "    atomic_int sleepers;\n"
    "    atomic_int stop;\n"
    "    int nthreads, nworkers;\n"
    "    /* The job: written by its owner while no chunk of it can be\n"
    "     * taken (before the ticket is published, after done counts them\n"
    "     * all). */\n"
    "    tl_task fn;\n"
    "    void *ctx;\n"
    "    int64_t a, b, chunk;\n"
    "    pthread_mutex_t mu;\n"
    "    pthread_cond_t cv;\n"
    "    pthread_once_t once;\n"
    "    pthread_t workers[TL_POOL_MAX];\n"
    "} tl_pool = {.nthreads = 1, .mu = PTHREAD_MUTEX_INITIALIZER,\n"
    "             .cv = PTHREAD_COND_INITIALIZER, .once = PTHREAD_ONCE_INIT};\n"
    "/* Inside a chunk: a parallel loop there runs on its thread alone. */\n"
    "static _Thread_local int tl_pool_inside;\n"
    "TL_HELPER void tl_pool_relax(void)\n"
    "{\n"
    "#if defined(__x86_64__) || defined(__i386__)\n"
    "    __builtin_ia32_pause();\n"
    "#endif\n"
    "}\n"
    "TL_HELPER int64_t tl_pool_now(void)\n"
    "{\n"
    "    struct timespec t;\n"
    "    /* C11's clock: clock_gettime needs POSIX's feature macros. */\n"
    "    timespec_get(&t, TIME_UTC);\n"
    "    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;\n"
    "}\n"
    "TL_HELPER int tl_pool_has_work(uint64_t t)\n"
    "{\n"
    "    return (t & TL_POOL_CMASK) < ((t >> TL_POOL_CBITS) & TL_POOL_CMASK);\n"
    "}\n"
    "/* Takes the next chunk of the job and runs it: 0 when none is left. */\n"
    "TL_HELPER int tl_pool_run_one(void)\n"
    "{\n"
    "    uint64_t t = atomic_load_explicit(&tl_pool.ticket,\n"
    "                                      memory_order_acquire);\n"
    "    int64_t lo, hi;\n"
    "    int inside;\n"
    "    do {\n"
    "        if (!tl_pool_has_work(t))\n"
    "            return 0;\n"
    "    } while (!atomic_compare_exchange_weak_explicit(&tl_pool.ticket, &t,\n"
    "                 t + 1, memory_order_acq_rel, memory_order_acquire));\n"
    "    lo = tl_pool.a + (int64_t)(t & TL_POOL_CMASK) * tl_pool.chunk;\n"
    "    hi = tl_pool.b - lo < tl_pool.chunk ? tl_pool.b\n"
    "                                         : lo + tl_pool.chunk;\n"
    "    inside = tl_pool_inside;\n"
    "    tl_pool_inside = 1;\n"
    "    tl_pool.fn(tl_pool.ctx, lo, hi);\n"
    "    tl_pool_inside = inside;\n"
    "    atomic_fetch_add_explicit(&tl_pool.done, 1, memory_order_release);\n"
    "    return 1;\n"
    "}\n"
    "static void *tl_pool_worker(void *arg)\n"
    "{\n"
    "    int64_t idle = 0;\n"
    "    unsigned spins = 0;\n"
    "    (void)arg;\n"
    "    while (!atomic_load_explicit(&tl_pool.stop, memory_order_relaxed)) {\n"
    "        if (tl_pool_run_one()) {\n"
    "            idle = 0;\n"
    "            spins = 0;\n"
    "            continue;\n"
    "        }\n"
    "        if (++spins < 256) {\n"
    "            tl_pool_relax();\n"
    "            continue;\n"
    "        }\n"
    "        if (!idle)\n"
    "            idle = tl_pool_now();\n"
    "        if (tl_pool_now() - idle < TL_POOL_AWAKE_NS) {\n"
    "            sched_yield();\n"
    "            continue;\n"
    "        }\n"
    "        /* Asleep until a job comes: the owner reads sleepers after it\n"
    "         * publishes the ticket, this reads the ticket after it counts\n"
    "         * itself in (both sequentially consistent), so one of the two\n"
    "         * sees the other. */\n"
    "        pthread_mutex_lock(&tl_pool.mu);\n"
    "        atomic_fetch_add(&tl_pool.sleepers, 1);\n"
    "        while (!tl_pool_has_work(atomic_load(&tl_pool.ticket)) &&\n"
    "               !atomic_load(&tl_pool.stop))\n"
    "            pthread_cond_wait(&tl_pool.cv, &tl_pool.mu);\n"
    "        atomic_fetch_sub(&tl_pool.sleepers, 1);\n"
    "        pthread_mutex_unlock(&tl_pool.mu);\n"
    "        idle = 0;\n"
    "        spins = 0;\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "/* TDSL_NUM_THREADS, else OMP_NUM_THREADS (its first number), else\n"
    " * the processors online: the calling thread and n - 1 workers. */\n"
    "TL_HELPER int tl_pool_env(const char *name)\n"
    "{\n"
    "    const char *s = getenv(name);\n"
    "    long n;\n"
    "    if (!s)\n"
    "        return 0;\n"
    "    n = strtol(s, 0, 10);\n"
    "    return n < 1 ? 0 : n > TL_POOL_MAX ? TL_POOL_MAX : (int)n;\n"
    "}\n"
    "/* A child of fork has none of the workers: its loops run on its one\n"
    " * thread. */\n"
    "static void tl_pool_forked(void)\n"
    "{\n"
    "    tl_pool.nworkers = 0;\n"
    "    tl_pool.nthreads = 1;\n"
    "    atomic_store(&tl_pool.busy, 0);\n"
    "    atomic_store(&tl_pool.sleepers, 0);\n"
    "    pthread_mutex_init(&tl_pool.mu, 0);\n"
    "    pthread_cond_init(&tl_pool.cv, 0);\n"
    "}\n"
    "static void tl_pool_start(void)\n"
    "{\n"
    "    int n = tl_pool_env(\"TDSL_NUM_THREADS\");\n"
    "    if (!n)\n"
    "        n = tl_pool_env(\"OMP_NUM_THREADS\");\n"
    "    if (!n) {\n"
    "        long c = sysconf(_SC_NPROCESSORS_ONLN);\n"
    "        n = c < 1 ? 1 : c > TL_POOL_MAX ? TL_POOL_MAX : (int)c;\n"
    "    }\n"
    "    pthread_atfork(0, 0, tl_pool_forked);\n"
    "    for (int i = 0; i < n - 1; i++) {\n"
    "        if (pthread_create(&tl_pool.workers[i], 0, tl_pool_worker, 0))\n"
    "            break;\n"
    "        tl_pool.nworkers++;\n"
    "        tl_pool.nthreads++;\n"
    "    }\n"
    "}\n"
    "/* Unloading the library (dlclose, or the program's exit) stops the\n"
    " * workers first: their code goes with it. */\n"
    "__attribute__((destructor)) static void tl_pool_drop(void)\n"
    "{\n"
    "    if (!tl_pool.nworkers)\n"
    "        return;\n"
    "    pthread_mutex_lock(&tl_pool.mu);\n"
    "    atomic_store(&tl_pool.stop, 1);\n"
    "    pthread_cond_broadcast(&tl_pool.cv);\n"
    "    pthread_mutex_unlock(&tl_pool.mu);\n"
    "    for (int i = 0; i < tl_pool.nworkers; i++)\n"
    "        pthread_join(tl_pool.workers[i], 0);\n"
    "    tl_pool.nworkers = 0;\n"
    "}\n"
    "TL_HELPER int tl_pool_threads(void)\n"
    "{\n"
    "    pthread_once(&tl_pool.once, tl_pool_start);\n"
    "    return tl_pool.nthreads;\n"
    "}\n"
    "#else\n"
    "TL_HELPER int tl_pool_threads(void)\n"
    "{\n"
    "    return 1;\n"
    "}\n"
    "#endif\n"
    "/* Runs fn over [a, b) in chunks of `chunk` iterations (0: 8 chunks a\n"
    " * thread, from 1 to 65536 iterations), each taken by whichever thread\n"
    " * is free: the calling thread takes chunks too, so none waits for a\n"
    " * worker that has not started, only for chunks being run.  A loop\n"
    " * inside a chunk, or a call while another call's loop holds the pool,\n"
    " * runs on its own thread. */\n"
    "TL_HELPER void tl_par_for(tl_task fn, void *ctx, int64_t a, int64_t b,\n"
    "                          int64_t chunk)\n"
    "{\n"
    "    int64_t n;\n"
    "    if (b <= a)\n"
    "        return;\n"
    "    if (chunk <= 0) {\n"
    "        chunk = (b - a) / (8 * (int64_t)tl_pool_threads());\n"
    "        chunk = chunk < 1 ? 1 : chunk > 65536 ? 65536 : chunk;\n"
    "    }\n"
    "    if (b - a <= chunk)\n"
    "        n = 1;\n"
    "    else if ((n = (b - a - 1) / chunk + 1) > (int64_t)TL_POOL_CMASK) {\n"
    "        chunk = (b - a - 1) / (int64_t)TL_POOL_CMASK + 1;\n"
    "        n = (b - a - 1) / chunk + 1;\n"
    "    }\n"
    "#ifdef TL_POOL\n"
    "    if (n > 1 && !tl_pool_inside && tl_pool_threads() > 1 &&\n"
    "        !atomic_exchange_explicit(&tl_pool.busy, 1,\n"
    "                                  memory_order_acquire)) {\n"
    "        uint64_t gen = atomic_load_explicit(&tl_pool.ticket,\n"
    "                                            memory_order_relaxed);\n"
    "        gen = (gen >> (2 * TL_POOL_CBITS)) + 1;\n"
    "        tl_pool.fn = fn;\n"
    "        tl_pool.ctx = ctx;\n"
    "        tl_pool.a = a;\n"
    "        tl_pool.b = b;\n"
    "        tl_pool.chunk = chunk;\n"
    "        atomic_store_explicit(&tl_pool.done, 0, memory_order_relaxed);\n"
    "        atomic_store(&tl_pool.ticket, (gen << (2 * TL_POOL_CBITS)) |\n"
    "                                      ((uint64_t)n << TL_POOL_CBITS));\n"
    "        if (atomic_load(&tl_pool.sleepers)) {\n"
    "            pthread_mutex_lock(&tl_pool.mu);\n"
    "            pthread_cond_broadcast(&tl_pool.cv);\n"
    "            pthread_mutex_unlock(&tl_pool.mu);\n"
    "        }\n"
    "        while (tl_pool_run_one())\n"
    "            ;\n"
    "        /* Only chunks that a worker is running are left. */\n"
    "        for (unsigned s = 0; atomic_load_explicit(&tl_pool.done,\n"
    "                 memory_order_acquire) != (uint32_t)n; s++) {\n"
    "            if (s < 1024)\n"
    "                tl_pool_relax();\n"
    "            else\n"
    "                sched_yield();\n"
    "        }\n"
    "        atomic_store_explicit(&tl_pool.busy, 0, memory_order_release);\n"
    "        return;\n"
    "    }\n"
    "#endif\n"
    "    (void)n;\n"
    "    fn(ctx, a, b);\n"
    "}\n";

void cgc_pool_prelude(TlBuf *out)
{
    buf_puts(out, pool);
}

/* The declarations in scope where the code being emitted is. */
typedef struct {
    char *id, *decl;
} Scoped;

static Scoped *scope;
static int nscope, capscope;
static int npar;

void cgc_scope_reset(void)
{
    for (int i = 0; i < nscope; i++) {
        free(scope[i].id);
        free(scope[i].decl);
    }
    nscope = 0;
    npar = 0;
}

int cgc_scope_mark(void)
{
    return nscope;
}

void cgc_scope_restore(int mark)
{
    while (nscope > mark) {
        nscope--;
        free(scope[nscope].id);
        free(scope[nscope].decl);
    }
}

void cgc_scope_add(const char *id, const char *decl)
{
    if (nscope == capscope) {
        capscope = capscope ? 2 * capscope : 64;
        scope = tl_xrealloc(scope, (size_t)capscope * sizeof *scope);
    }
    scope[nscope].id = tl_xstrdup(id);
    scope[nscope].decl = tl_xstrdup(decl);
    nscope++;
}

/* The innermost declaration of the identifier s[0..n), or -1. */
static int find(const char *s, size_t n)
{
    for (int i = nscope - 1; i >= 0; i--)
        if (strlen(scope[i].id) == n && !memcmp(scope[i].id, s, n))
            return i;
    return -1;
}

/* The scope entries that text names, each once, in *out (n of them). */
static int captures(const char *text, int *out)
{
    int n = 0;

    for (const char *p = text; *p;) {
        const char *q = p;
        int i;
        if (isdigit((unsigned char)*p)) {
            /* A number with its suffix (0x1p+0f, INT64_C(3)'s 3). */
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
                p++;
            continue;
        }
        if (!isalpha((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if ((i = find(q, (size_t)(p - q))) < 0)
            continue;
        for (int k = 0; k < n; k++)
            if (out[k] == i)
                i = -1;
        if (i >= 0)
            out[n++] = i;
    }
    return n;
}

void cgc_par_emit(TlBuf *fns, TlBuf *b, int ind, const CgParLoop *l)
{
    int *cap = tl_xcalloc((size_t)nscope + 1, sizeof *cap);
    int ncap = captures(l->body, cap), id = npar++;

    buf_printf(fns, "/* The parallel loop over %s (stage %s). */\n"
                    "struct tl_par%d {\n", l->var, l->stage, id);
    for (int k = 0; k < ncap; k++)
        buf_printf(fns, "    %s;\n", scope[cap[k]].decl);
    /* C has no empty struct. */
    buf_puts(fns, "    char tl_none;\n};\n");
    buf_printf(fns, "static void tl_par%d(void *tl_ctx, int64_t tl_lo, "
                    "int64_t tl_hi)\n{\n", id);
    buf_printf(fns, "    const struct tl_par%d *tl_c = "
                    "(const struct tl_par%d *)tl_ctx;\n", id, id);
    for (int k = 0; k < ncap; k++)
        buf_printf(fns, "    %s = tl_c->%s; (void)%s;\n",
                   scope[cap[k]].decl, scope[cap[k]].id, scope[cap[k]].id);
    buf_printf(fns, "    (void)tl_c;\n    for (%s %s = (%s)tl_lo; "
                    "%s < (%s)tl_hi; %s++) {\n", l->type, l->var, l->type,
               l->var, l->type, l->var);
    buf_puts(fns, l->body);
    buf_puts(fns, "    }\n}\n\n");

    for (int k = 0; k < ind; k++)
        buf_puts(b, "    ");
    buf_printf(b, "{\n");
    for (int k = 0; k <= ind; k++)
        buf_puts(b, "    ");
    buf_printf(b, "struct tl_par%d tl_c%d = {", id, id);
    for (int k = 0; k < ncap; k++)
        buf_printf(b, "%s, ", scope[cap[k]].id);
    buf_puts(b, "0};\n");
    for (int k = 0; k <= ind; k++)
        buf_puts(b, "    ");
    buf_printf(b, "tl_par_for(tl_par%d, &tl_c%d, (int64_t)(%s), "
                  "(int64_t)(%s), %lld);\n", id, id, l->lo, l->hi,
               (long long)l->width);
    for (int k = 0; k < ind; k++)
        buf_puts(b, "    ");
    buf_puts(b, "}\n");
    free(cap);
}
