// matmul_sched.h - the Halide peer's matmul pipeline and schedule, one
// definition for the JIT peer (matmul.cpp, A and B Buffers) and the
// ahead-of-time one (matmul_aot.cpp, ImageParams), so the two cannot
// drift apart.  The schedule is the one Halide users write for it: B
// packed once into 64-column panels (Bp), a 64x6 register tile of C
// (4 x 16-wide vectors x 6 rows = 24 accumulators) with the whole
// reduction inside it, row blocks of 48 in parallel, panels outer
// within a block so a panel stays in L2.  A(k, i) and B(j, k): x is
// innermost, as in tdsl's row-major A[i, k] and B[k, j].
#ifndef MATMUL_SCHED_H
#define MATMUL_SCHED_H

#include <Halide.h>

template <typename In>
static Halide::Func mm_pipeline(const In &A, const In &B, int n)
{
    using namespace Halide;
    const int T = 64, R = 6, G = 48;   // panel width, tile rows, block
    Var x("x"), y("y"), xi("xi"), xo("xo"), k("k");
    Var yi("yi"), yo("yo"), yg("yg");
    RDom r(0, n, "r");
    Func Bp("Bp"), prod("prod"), C("C");

    Bp(xi, k, xo) = B(xo * T + xi, k);        // panel xo of B
    prod(xi, y, xo) = 0.0f;                   // C(xo*64 + xi, y)
    prod(xi, y, xo) += A(r, y) * Bp(xi, r, xo);
    C(x, y) = prod(x % T, y, x / T);

    C.bound(x, 0, n).bound(y, 0, n);
    C.split(y, yg, y, G).split(x, xo, xi, T).split(y, yo, yi, R)
        .reorder(xi, yi, yo, xo, yg)
        .vectorize(xi, 16).unroll(yi).parallel(yg);
    prod.compute_at(C, yo).vectorize(xi, 16).unroll(y);
    prod.update().reorder(xi, y, xo, r)
        .vectorize(xi, 16).unroll(xi).unroll(y);
    Bp.compute_root().parallel(xo).vectorize(xi, 16);
    return C;
}

#endif
