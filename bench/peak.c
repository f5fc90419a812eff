/*
 * peak.c - this machine's peak f32 FMA throughput: the denominator of
 * "fraction of peak" in bench/run.sh's table.  Each thread runs many
 * independent FMA chains (24 zmm accumulators with AVX-512, 12 ymm with
 * AVX2: enough to cover the FMA latency times the FMA ports), picked at
 * run time with __builtin_cpu_supports; the thread count is OpenMP's
 * (OMP_NUM_THREADS).  Prints one bench_util.h line per ISA it can run,
 * with the median and (best_gflops=) the fastest of the runs.
 *
 * Build: cc -O2 -fopenmp bench/peak.c -o build/bench/peak
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#include "bench_util.h"

#include <immintrin.h>
#include <omp.h>

#define ITERS 20000000L   /* per thread and run: ~0.1 s at peak */

/* 24 chains x 16 lanes x 2 flops per iteration. */
__attribute__((target("avx512f"), noinline))
static float chains512(long iters, float seed)
{
    __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    __m512 c[24];

    for (int i = 0; i < 24; i++)
        c[i] = _mm512_set1_ps(seed + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++)
            c[i] = _mm512_fmadd_ps(c[i], a, b);
    }
    for (int i = 1; i < 24; i++)
        c[0] = _mm512_add_ps(c[0], c[i]);
    return _mm512_reduce_add_ps(c[0]);
}

/* 12 chains x 8 lanes x 2 flops per iteration (14 of 16 ymm used). */
__attribute__((target("avx2,fma"), noinline))
static float chains256(long iters, float seed)
{
    __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    __m256 c[12];
    float out[8], s = 0;

    for (int i = 0; i < 12; i++)
        c[i] = _mm256_set1_ps(seed + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            c[i] = _mm256_fmadd_ps(c[i], a, b);
    }
    for (int i = 1; i < 12; i++)
        c[0] = _mm256_add_ps(c[0], c[i]);
    _mm256_storeu_ps(out, c[0]);
    for (int i = 0; i < 8; i++)
        s += out[i];
    return s;
}

/* Median GFLOP/s of `runs` parallel runs of one variant; *best gets
 * the fastest run's GFLOP/s, which bench/run.sh takes as the peak (other
 * processes on the machine can only slow a run down). */
static double measure(int avx512, int threads, int runs, double *med_s,
                      double *best)
{
    double t[BU_MAX_RUNS];
    double flops_per_iter = avx512 ? 24.0 * 16 * 2 : 12.0 * 8 * 2;
    volatile float sink = 0;

    for (int r = -1; r < runs; r++) {   /* r = -1: warm-up */
        double t0 = bu_now();
#pragma omp parallel num_threads(threads)
        {
            float seed = (float)omp_get_thread_num();
            float v = avx512 ? chains512(ITERS, seed)
                             : chains256(ITERS, seed);
#pragma omp atomic
            sink += v;
        }
        if (r >= 0)
            t[r] = bu_now() - t0;
    }
    (void)sink;
    *med_s = bu_median(t, runs);
    *best = flops_per_iter * (double)ITERS * threads / t[0] * 1e-9;
    return flops_per_iter * (double)ITERS * threads / *med_s * 1e-9;
}

int main(void)
{
    int threads = omp_get_max_threads(), runs = bu_runs();
    double s, g, best;
    char extra[48];

    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        g = measure(1, threads, runs, &s, &best);
        snprintf(extra, sizeof extra, "best_gflops=%.1f", best);
        bu_report("peak", "fma_avx512", "-", threads, s, g, -1, extra);
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        g = measure(0, threads, runs, &s, &best);
        snprintf(extra, sizeof extra, "best_gflops=%.1f", best);
        bu_report("peak", "fma_avx2", "-", threads, s, g, -1, extra);
    }
    return 0;
}
