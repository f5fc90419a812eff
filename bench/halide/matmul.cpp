// matmul.cpp - the Halide 14 peer for f32 matmul C = A B at n = 256,
// 512, 1024, 2048 (square), with the schedule Halide users write for it:
// B packed once into 64-column panels (Bp), a 64x6 register tile of C
// (4 x 16-wide vectors x 6 rows = 24 accumulators) with the whole
// reduction inside it, row blocks in parallel, panels outer within a
// block so a panel stays in L2.  Checked against a plain C product on
// sampled rows.  Usage: matmul [n ...]
#include "common.h"

#include <vector>

using namespace Halide;

static void one(int n, int threads)
{
    const int T = 64, R = 6, G = 48;   // panel width, tile rows, block
    Buffer<float> A(n, n), B(n, n);    // A(k, i), B(j, k): x innermost
    bu_fill(A.data(), (long)n * n, 1);
    bu_fill(B.data(), (long)n * n, 2);

    Var x("x"), y("y"), xi("xi"), xo("xo"), k("k");
    Var yi("yi"), yo("yo"), yg("yg");
    RDom r(0, n, "r");

    Func Bp("Bp");                     // Bp(xi, k, xo) = B(xo*64 + xi, k)
    Bp(xi, k, xo) = B(xo * T + xi, k);
    Func prod("prod");                 // prod(xi, y, xo): C(xo*64+xi, y)
    prod(xi, y, xo) = 0.0f;
    prod(xi, y, xo) += A(r, y) * Bp(xi, r, xo);
    Func C("C");
    C(x, y) = prod(x % T, y, x / T);

    C.bound(x, 0, n).bound(y, 0, n);
    C.split(y, yg, y, G).split(x, xo, xi, T).split(y, yo, yi, R)
        .reorder(xi, yi, yo, xo, yg)
        .vectorize(xi, 16).unroll(yi).parallel(yg);
    prod.compute_at(C, yo).vectorize(xi, 16).unroll(y);
    prod.update().reorder(xi, y, xo, r)
        .vectorize(xi, 16).unroll(xi).unroll(y);
    Bp.compute_root().parallel(xo).vectorize(xi, 16);

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
