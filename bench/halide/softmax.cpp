// softmax.cpp - the Halide 14 peer for softmax over the rows of a
// 4096x1024 f32 matrix: max, fast_exp, sum and the division fused per
// row (compute_at the row), the two reductions vectorized 16 wide by
// rfactor, rows in parallel.  GB/s counts one read and one write of the
// matrix.  Checked against plain C with expf (fast_exp is accurate to
// about 1e-6 relative, far inside the 1e-4 allowed).
#include "common.h"

#include <vector>

using namespace Halide;

int main()
{
    const int N = 4096, D = 1024;
    int threads = hb_threads();
    Buffer<float> X(D, N);                 // X(d, n): d innermost
    bu_fill(X.data(), (long)N * D, 3);

    Var d("d"), n("n"), u("u"), no("no"), ni("ni");
    RDom r(0, D, "r");
    Func m("m"), e("e"), s("s"), Y("Y");
    m(n) = X(0, n);
    m(n) = max(m(n), X(r, n));
    e(d, n) = fast_exp(X(d, n) - m(n));
    s(n) = 0.0f;
    s(n) += e(r, n);
    Y(d, n) = e(d, n) / s(n);

    Y.bound(d, 0, D).bound(n, 0, N);
    Y.split(n, no, ni, 16).parallel(no).vectorize(d, 16);
    e.compute_at(Y, ni).vectorize(d, 16);
    m.compute_at(Y, ni);
    s.compute_at(Y, ni);
    RVar ro("ro"), ri("ri");
    Func mi = m.update().split(r, ro, ri, 16).rfactor(ri, u);
    mi.compute_at(m, n).vectorize(u, 16);
    mi.update().vectorize(u, 16);
    Func si = s.update().split(r, ro, ri, 16).rfactor(ri, u);
    si.compute_at(s, n).vectorize(u, 16);
    si.update().vectorize(u, 16);

    double jit = hb_compile(Y);
    Buffer<float> res(D, N);
    double t = hb_time([&] { Y.realize(res); });

    std::vector<float> ref((size_t)N * D);
    for (int i = 0; i < N; i++) {
        const float *row = X.data() + (size_t)i * D;
        float mx = row[0], sum = 0;
        for (int j = 1; j < D; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j < D; j++)
            sum += ref[(size_t)i * D + j] = std::exp(row[j] - mx);
        for (int j = 0; j < D; j++)
            ref[(size_t)i * D + j] /= sum;
    }
    double err = hb_maxerr(res.data(), ref.data(), (long)N * D);
    // Relative to the row's scale (values are ~1/D).
    err *= D;

    char extra[96];
    snprintf(extra, sizeof extra, "jit_s=%.3f maxerr=%.1e ok=%d", jit,
             err, err < 1e-4);
    double bytes = 2.0 * 4.0 * N * D;
    bu_report("halide", "softmax", "4096x1024", threads, t, -1,
              bytes / t * 1e-9, extra);
    return 0;
}
