/*
 * matmul_sizes.c - paired A/B timing of ahead-of-time matmul kernels
 * (`tdsl compile ... --kernel matmul -o k.so`, built from two trees) on
 * square sizes, ragged ones included: the tdsl_bench binary runs one
 * tree's kernel per process, so a comparison of two builds there is two
 * runs under different load.  Here every .so given is loaded into one
 * process and, for each sample, each is called in turn (the first one
 * rotating), so load changes hit all of them alike; every one writes
 * the same output buffer then, at the same alignment.  A sample is the
 * thread CPU time (CLOCK_THREAD_CPUTIME_ID: time the machine's other
 * jobs take is not counted) of REPS calls; the median of SAMPLES
 * samples is printed in ms per call.  The results of every .so must be
 * equal bit for bit to the first one's (all are the exact kernel).
 * Run with OMP_NUM_THREADS=1 for the thread's time to be the kernel's.
 *
 *   cc -O2 bench/matmul_sizes.c -o build/bench/matmul_sizes -ldl
 *   OMP_NUM_THREADS=1 build/bench/matmul_sizes a.so b.so -- 240 252 256
 *
 * Environment: SAMPLES (default 15, at most 64), REPS (default 5),
 * LOOSE=1 (results within 1e-4 of the first's, relative, instead of
 * bit for bit: for a Halide kernel, which fuses multiply-adds, built
 * ahead of time by bench/halide/matmul_aot.cpp).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SO = 8, MAX_SAMPLES = 64 };

typedef int (*MmFn)(const float *, const int64_t *, const int64_t *,
                    const float *, const int64_t *, const int64_t *,
                    float *, const int64_t *, const int64_t *);

static double thread_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static int env_int(const char *name, int def, int max)
{
    const char *v = getenv(name);
    int n = v ? atoi(v) : def;

    return n < 1 ? 1 : n > max ? max : n;
}

/* n floats at a multiple of 64 bytes: where a row starts within a
 * cache line changes a kernel's time (240 x 240 by 10%). */
static float *alloc64(size_t n)
{
    void *p = NULL;

    return posix_memalign(&p, 64, n * sizeof(float)) ? NULL : p;
}

/* Whether c equals ref: bit for bit, or with LOOSE=1 within 1e-4 of
 * it, relative. */
static int same_result(const float *c, const float *ref, size_t n)
{
    const char *v = getenv("LOOSE");

    if (!v || strcmp(v, "1"))
        return !memcmp(c, ref, n * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        double d = (double)c[i] - ref[i], r = ref[i] < 0 ? -ref[i] : ref[i];
        if (!(d <= 1e-4 * (1 + r) && -d <= 1e-4 * (1 + r)))
            return 0;
    }
    return 1;
}

/* One size: every kernel once (a warm-up, and the results compared),
 * then the samples.  0 when the results differ or a call fails. */
static int run_size(MmFn *fn, const char *const *so, int nso, int n,
                    int samples, int reps)
{
    size_t nn = (size_t)n * (size_t)n;
    int64_t shape[2] = {n, n};
    float *a = alloc64(nn), *b = alloc64(nn);
    float *c[MAX_SO];
    static double t[MAX_SO][MAX_SAMPLES];
    int ok = a && b;

    for (size_t i = 0; ok && i < nn; i++) {
        a[i] = (float)((i * 7) % 13) - 6.0f;
        b[i] = (float)((i * 5) % 11) - 5.0f;
    }
    for (int s = 0; s < nso; s++) {
        c[s] = alloc64(nn);
        ok = ok && c[s] &&
             fn[s](a, shape, NULL, b, shape, NULL, c[s], shape, NULL) == 0;
        if (ok && s && !same_result(c[s], c[0], nn)) {
            fprintf(stderr, "matmul_sizes: %s differs from %s at %d\n",
                    so[s], so[0], n);
            ok = 0;
        }
    }
    for (int r = 0; ok && r < samples; r++)
        for (int i = 0; i < nso; i++) {
            int s = (i + r) % nso;
            double t0 = thread_s();

            for (int k = 0; k < reps; k++)
                fn[s](a, shape, NULL, b, shape, NULL, c[0], shape, NULL);
            t[s][r] = (thread_s() - t0) / reps * 1e3;
        }
    if (ok) {
        printf("n=%d", n);
        for (int s = 0; s < nso; s++) {
            qsort(t[s], (size_t)samples, sizeof t[s][0], cmp_double);
            printf(" %s=%.3f", so[s], t[s][samples / 2]);
        }
        printf("\n");
        fflush(stdout);
    }
    for (int s = 0; s < nso; s++)
        free(c[s]);
    free(a);
    free(b);
    return ok;
}

int main(int argc, char **argv)
{
    const char *so[MAX_SO];
    MmFn fn[MAX_SO];
    int nso = 0, i = 1, ok = 1;
    int samples = env_int("SAMPLES", 15, MAX_SAMPLES);
    int reps = env_int("REPS", 5, 1000);

    for (; i < argc && strcmp(argv[i], "--"); i++) {
        void *h;

        if (nso == MAX_SO) {
            fprintf(stderr, "matmul_sizes: at most %d kernels\n", MAX_SO);
            return 2;
        }
        h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "matmul_sizes: %s\n", dlerror());
            return 2;
        }
        /* POSIX's way from an object pointer to a function's. */
        *(void **)&fn[nso] = dlsym(h, "tdsl_matmul");
        if (!fn[nso]) {
            fprintf(stderr, "matmul_sizes: %s: no tdsl_matmul\n", argv[i]);
            return 2;
        }
        so[nso++] = argv[i];
    }
    if (!nso || i >= argc - 1) {
        fprintf(stderr, "usage: matmul_sizes K.so... -- N...\n");
        return 2;
    }
    for (i++; i < argc; i++)
        ok &= run_size(fn, so, nso, atoi(argv[i]), samples, reps);
    return ok ? 0 : 1;
}
