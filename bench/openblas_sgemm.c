/*
 * openblas_sgemm.c - the OpenBLAS peer: cblas_sgemm, row-major, square
 * n = 256, 512, 1024, 2048 (or the sizes given as arguments), the
 * median of bu_runs() runs after a warm-up, checked against plain C on
 * sampled rows.  Threads: OPENBLAS_NUM_THREADS (read by OpenBLAS at
 * load).  bench/run.sh sets OPENBLAS_CORETYPE=SkylakeX on AVX-512
 * machines (Debian's 0.3.21 does not recognise newer cores and falls
 * back to half-speed Haswell kernels); the core OpenBLAS reports is
 * printed as coretype=.
 *
 * Build: cc -O2 bench/openblas_sgemm.c -lopenblas
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#include "bench_util.h"

#include <cblas.h>
#include <math.h>

/* Not in every cblas.h, but exported by every OpenBLAS. */
char *openblas_get_corename(void);
int openblas_get_num_threads(void);

static void one(int n)
{
    size_t nn = (size_t)n * n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b);
    float *c = malloc(nn * sizeof *c);
    double t[BU_MAX_RUNS], err = 0;
    int runs = bu_runs();
    char size[32], extra[96];

    if (!a || !b || !c) {
        fprintf(stderr, "openblas_sgemm: out of memory\n");
        exit(1);
    }
    bu_fill(a, (long)nn, 1);
    bu_fill(b, (long)nn, 2);
    for (int r = -1; r < runs; r++) {   /* r = -1: warm-up */
        double t0 = bu_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
                    1.0f, a, n, b, n, 0.0f, c, n);
        if (r >= 0)
            t[r] = bu_now() - t0;
    }
    for (int i = 0; i < n; i += n / 16)
        for (int j = 0; j < n; j++) {
            double acc = 0, d;
            for (int k = 0; k < n; k++)
                acc += (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
            d = fabs(c[(size_t)i * n + j] - acc) / (1 + fabs(acc));
            err = d > err || isnan(d) ? d : err;
        }
    double s = bu_median(t, runs);
    snprintf(size, sizeof size, "%d", n);
    snprintf(extra, sizeof extra, "coretype=%s maxerr=%.1e ok=%d",
             openblas_get_corename(), err, err < 1e-3);
    bu_report("openblas", "matmul", size, openblas_get_num_threads(), s,
              2.0 * n * n * n / s * 1e-9, -1, extra);
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {256, 512, 1024, 2048};

    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            one(atoi(argv[i]));
    } else {
        for (int i = 0; i < 4; i++)
            one(sizes[i]);
    }
    return 0;
}
