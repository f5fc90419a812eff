/*
 * conv_calls.c - the distribution of single calls of ahead-of-time
 * conv2d kernels (`tdsl compile bench/tdsl_kernels.tdsl --kernel conv2d
 * -o k.so`, from one tree or several), as a program that links such a
 * kernel sees it: no interpreter before, no mallopt (the JIT's runtime
 * sets glibc's thresholds; codegen/c/jit.c), OpenMP's default wait
 * policy unless the environment sets one.  tdsl_bench prints a median
 * of 7 calls per process; a 2-thread figure that moves between runs
 * needs the shape of many calls and the cost beside the time.  Every
 * .so given is loaded into one process and, for each call, called in
 * turn (the first one rotating), so that load changes hit all alike.
 * Printed per .so: percentiles of the wall time of one call, the page
 * faults a call (getrusage ru_minflt) and the CPU time a call of all
 * the process's threads (spinning OpenMP workers count).  The results
 * of every .so must equal the first one's bit for bit.
 *
 *   cc -O2 bench/conv_calls.c -o build/bench/conv_calls -ldl
 *   OMP_NUM_THREADS=2 CALLS=400 build/bench/conv_calls a.so b.so
 *
 * Environment: CALLS (default 400, at most 4000).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

enum { MAX_SO = 8, MAX_CALLS = 4000, C = 64, F = 64, H = 56, W = 56 };

typedef int (*ConvFn)(const float *, const int64_t *, const int64_t *,
                      const float *, const int64_t *, const int64_t *,
                      const float *, const int64_t *, const int64_t *,
                      float *, const int64_t *, const int64_t *);

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Deterministic fill in [-0.5, 0.5), as bench_util.h's. */
static void fill(float *p, long n, unsigned seed)
{
    for (long i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
}

static double t[MAX_SO][MAX_CALLS];

int main(int argc, char **argv)
{
    static const int64_t sx[4] = {1, C, H, W}, sw[4] = {F, C, 3, 3};
    static const int64_t sb[1] = {F}, sy[4] = {1, F, H, W};
    const char *e = getenv("CALLS");
    int n = e ? atoi(e) : 400, nso = argc - 1;
    ConvFn fn[MAX_SO];
    long flt[MAX_SO] = {0};
    double cpu[MAX_SO] = {0};
    size_t ny = (size_t)F * H * W;
    float *x = malloc(sizeof(float) * C * H * W);
    float *w = malloc(sizeof(float) * F * C * 9);
    float *b = malloc(sizeof(float) * F);
    float *y = malloc(sizeof(float) * ny), *y0 = malloc(sizeof(float) * ny);

    n = n < 1 ? 1 : n > MAX_CALLS ? MAX_CALLS : n;
    if (nso < 1 || nso > MAX_SO || !x || !w || !b || !y || !y0) {
        fprintf(stderr, "usage: conv_calls K.so... (at most %d)\n", MAX_SO);
        return 2;
    }
    fill(x, (long)C * H * W, 1);
    fill(w, (long)F * C * 9, 2);
    fill(b, F, 3);
    for (int i = 0; i < nso; i++) {
        void *h = dlopen(argv[i + 1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "conv_calls: %s\n", dlerror());
            return 2;
        }
        /* POSIX's way from an object pointer to a function's. */
        *(void **)&fn[i] = dlsym(h, "tdsl_conv2d");
        if (!fn[i]) {
            fprintf(stderr, "conv_calls: %s: no tdsl_conv2d\n", argv[i + 1]);
            return 2;
        }
        /* A first call each: the warm-up, and the results compared. */
        if (fn[i](x, sx, NULL, w, sw, NULL, b, sb, NULL, i ? y : y0, sy,
                  NULL)) {
            fprintf(stderr, "conv_calls: %s failed\n", argv[i + 1]);
            return 1;
        }
        if (i && memcmp(y, y0, ny * sizeof *y)) {
            fprintf(stderr, "conv_calls: %s differs from %s\n", argv[i + 1],
                    argv[1]);
            return 1;
        }
    }
    for (int r = 0; r < n; r++)
        for (int j = 0; j < nso; j++) {
            int i = (j + r) % nso;
            struct rusage u0, u1;
            double t0;

            getrusage(RUSAGE_SELF, &u0);
            t0 = now_s();
            fn[i](x, sx, NULL, w, sw, NULL, b, sb, NULL, y, sy, NULL);
            t[i][r] = now_s() - t0;
            getrusage(RUSAGE_SELF, &u1);
            flt[i] += u1.ru_minflt - u0.ru_minflt;
            cpu[i] += tv_s(u1.ru_utime) - tv_s(u0.ru_utime) +
                      tv_s(u1.ru_stime) - tv_s(u0.ru_stime);
        }
    for (int i = 0; i < nso; i++) {
        double *s = t[i];
        qsort(s, (size_t)n, sizeof *s, cmp_double);
        printf("%s calls=%d ms p10=%.3f p25=%.3f p50=%.3f p75=%.3f "
               "p90=%.3f faults/call=%.1f cpu_ms/call=%.3f\n", argv[i + 1], n,
               1e3 * s[n / 10], 1e3 * s[n / 4], 1e3 * s[n / 2],
               1e3 * s[3 * n / 4], 1e3 * s[9 * n / 10], (double)flt[i] / n,
               1e3 * cpu[i] / n);
    }
    return 0;
}
