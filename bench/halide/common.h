// common.h - what the Halide peers share: bench_util.h, the thread
// count Halide uses (HL_NUM_THREADS, as Halide's runtime reads it), a
// host target with AVX-512 when the CPU has it, and a timing loop that
// JIT-compiles first (timed apart), warms up once and reports the
// median of bu_runs() runs.
#ifndef TL_BENCH_HALIDE_COMMON_H
#define TL_BENCH_HALIDE_COMMON_H

#include "../bench_util.h"

#include <Halide.h>
#include <cmath>
#include <functional>

static inline int hb_threads()
{
    return bu_env_int("HL_NUM_THREADS", 1);
}

// Compiles f for the host; returns the JIT compile time in seconds.
static inline double hb_compile(Halide::Func f)
{
    Halide::Target t = Halide::get_host_target();
    double t0 = bu_now();
    f.compile_jit(t);
    return bu_now() - t0;
}

// Median seconds of run() over bu_runs() runs after one warm-up.
static inline double hb_time(const std::function<void()> &run)
{
    double t[BU_MAX_RUNS];
    int runs = bu_runs();
    run();
    for (int r = 0; r < runs; r++) {
        double t0 = bu_now();
        run();
        t[r] = bu_now() - t0;
    }
    return bu_median(t, runs);
}

// Largest |a - b| / (1 + |b|) over n elements.
static inline double hb_maxerr(const float *a, const float *b, long n)
{
    double worst = 0;
    for (long i = 0; i < n; i++) {
        double d = std::fabs((double)a[i] - b[i]) / (1 + std::fabs(b[i]));
        if (d > worst || std::isnan(d))
            worst = std::isnan(d) ? INFINITY : d;
    }
    return worst;
}

#endif
