/*
 * interp_bench.c - how fast the reference interpreter is (a benchmark,
 * not a test): a 256x256x256 f32 matmul and a 1x64x56x56 3x3
 * convolution (64 filters, pad 1) run through itp_call_kernel, the
 * median of 5 runs each, printed as multiply-adds and output elements
 * per second.  The goal (issue 3) is at least 100 million multiply-adds
 * per second on one core.
 *
 * Usage: build/bench/interp_bench [runs]   (`make bench` builds and
 * runs it).  TDSL_INTERP=scalar measures the per-element mode.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#include "interp/interp.h"
#include "parser/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "kernel matmul(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {\n"
    "    C[i, j] = sum(k) A[i, k] * B[k, j]\n"
    "}\n"
    "kernel conv(X: f32[N, C, H, W], Wt: f32[F, C, 3, 3], b: f32[F])\n"
    "    -> (Y: f32[N, F, H, W]) {\n"
    "    Y[n, f, y, x] = b[f] + sum(c, r, s)\n"
    "        X.zero_pad[n, c, y + r - 1, x + s - 1] * Wt[f, c, r, s]\n"
    "}\n";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static TlTensor *filled(int rank, const int64_t *shape, unsigned seed)
{
    TlTensor *t = tl_tensor_new(DT_F32, rank, shape, NULL, 0);
    float *p = t->data;
    int64_t n = tl_tensor_numel(t);

    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs k `runs` times; returns the median time, or -1. */
static double bench(TlRuntime *rt, TlKernelInfo *k, TlTensor **in, int runs)
{
    double t[64];
    TlLoc none = {-1, 0, 0, 0, 0};

    for (int r = 0; r < runs; r++) {
        TlTensor *out[1];
        double t0 = now();
        if (itp_call_kernel(rt, k, in, NULL, out, none))
            return -1;
        t[r] = now() - t0;
        tl_tensor_unref(out[0]);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    return t[runs / 2];
}

static TlKernelInfo *find(TlProgram *p, const char *name)
{
    for (int i = 0; i < p->items.n; i++) {
        TlKernelInfo *k = tl_kernel_info(p->items.v[i]);
        if (k && !strcmp(k->name, name))
            return k;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    TlSession *s = tl_session_new();
    TlProgram *p = tl_parse_string(s, "bench.tdsl", src, strlen(src));
    TlRuntime rt;
    int64_t sa[2] = {256, 256}, sx[4] = {1, 64, 56, 56};
    int64_t sw[4] = {64, 64, 3, 3}, sbias[1] = {64};
    TlTensor *mm[2], *cv[3];
    double t, macs;

    if (runs < 1 || runs > 64)
        runs = 5;
    if (!p || tl_check(s, p))
        return 1;
    memset(&rt, 0, sizeof rt);
    rt.s = s;
    mm[0] = filled(2, sa, 1);
    mm[1] = filled(2, sa, 2);
    cv[0] = filled(4, sx, 3);
    cv[1] = filled(4, sw, 4);
    cv[2] = filled(1, sbias, 5);

    t = bench(&rt, find(p, "matmul"), mm, runs);
    macs = 256.0 * 256 * 256;
    if (t < 0)
        return 1;
    printf("matmul 256x256x256 f32: %.3f s (median of %d), "
           "%.1f million MAC/s, %.2f million outputs/s\n", t, runs,
           macs / t / 1e6, 256.0 * 256 / t / 1e6);
    t = bench(&rt, find(p, "conv"), cv, runs);
    macs = 1.0 * 64 * 56 * 56 * 64 * 9;
    if (t < 0)
        return 1;
    printf("conv 1x64x56x56 3x3, 64 filters, pad 1: %.3f s (median of %d), "
           "%.1f million MAC/s, %.2f million outputs/s\n", t, runs,
           macs / t / 1e6, 64.0 * 56 * 56 / t / 1e6);
    for (int i = 0; i < 2; i++)
        tl_tensor_unref(mm[i]);
    for (int i = 0; i < 3; i++)
        tl_tensor_unref(cv[i]);
    tl_session_free(s);
    return 0;
}
