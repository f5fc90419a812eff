// matmul.cpp - the Halide 14 peer for f32 matmul C = A B at n = 256,
// 512, 1024, 2048 (square), with the schedule Halide users write for it
// (matmul_sched.h).  Checked against a plain C product on sampled rows.
// Usage: matmul [n ...]
#include "common.h"
#include "matmul_sched.h"

#include <vector>

using namespace Halide;

static void one(int n, int threads)
{
    Buffer<float> A(n, n), B(n, n);    // A(k, i), B(j, k): x innermost
    bu_fill(A.data(), (long)n * n, 1);
    bu_fill(B.data(), (long)n * n, 2);

    Func C = mm_pipeline(A, B, n);

    double jit = hb_compile(C);
    Buffer<float> out(n, n);
    double s = hb_time([&] { C.realize(out); });

    // Reference on 16 sampled rows.
    std::vector<float> ref(n), got(n);
    double err = 0;
    for (int i = 0; i < n; i += n / 16) {
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int kk = 0; kk < n; kk++)
                acc += (double)A(kk, i) * B(j, kk);
            ref[j] = (float)acc;
            got[j] = out(j, i);
        }
        double e = hb_maxerr(got.data(), ref.data(), n);
        err = e > err ? e : err;
    }
    char size[32], extra[96];
    snprintf(size, sizeof size, "%d", n);
    snprintf(extra, sizeof extra, "jit_s=%.3f maxerr=%.1e ok=%d", jit,
             err, err < 1e-3);
    bu_report("halide", "matmul", size, threads, s,
              2.0 * n * n * n / s * 1e-9, -1, extra);
}

int main(int argc, char **argv)
{
    int threads = hb_threads();
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            one(atoi(argv[i]), threads);
    } else {
        for (int n : {256, 512, 1024, 2048})
            one(n, threads);
    }
    return 0;
}
