// blur.cpp - the Halide 14 peer for the 3x3 separable box blur of a
// 4096x4096 f32 image (output 4094x4094, like tdsl's blur3): the
// classic schedule from the Halide paper, 256x32 output tiles in
// parallel rows of tiles, the horizontal pass computed per tile
// (compute_at), both vectorized 16 wide.  GB/s counts the input read
// and the output written once.  Checked against plain C.
#include "common.h"

#include <vector>

using namespace Halide;

int main()
{
    const int W = 4096, H = 4096, OW = W - 2, OH = H - 2;
    int threads = hb_threads();
    Buffer<float> in(W, H);
    bu_fill(in.data(), (long)W * H, 7);

    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func bx("bx"), out("out");
    bx(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3.0f;
    out(x, y) = (bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3.0f;

    out.bound(x, 0, OW).bound(y, 0, OH);
    out.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y);
    bx.compute_at(out, x).vectorize(x, 16);

    double jit = hb_compile(out);
    Buffer<float> res(OW, OH);
    double s = hb_time([&] { out.realize(res); });

    std::vector<float> ref((size_t)OW * OH), bxr((size_t)W * H);
    const float *p = in.data();
    for (int j = 0; j < H; j++)
        for (int i = 0; i < OW; i++)
            bxr[(size_t)j * W + i] = (p[(size_t)j * W + i]
                + p[(size_t)j * W + i + 1] + p[(size_t)j * W + i + 2])
                / 3.0f;
    for (int j = 0; j < OH; j++)
        for (int i = 0; i < OW; i++)
            ref[(size_t)j * OW + i] = (bxr[(size_t)j * W + i]
                + bxr[(size_t)(j + 1) * W + i]
                + bxr[(size_t)(j + 2) * W + i]) / 3.0f;
    double err = hb_maxerr(res.data(), ref.data(), (long)OW * OH);

    char extra[96];
    snprintf(extra, sizeof extra, "jit_s=%.3f maxerr=%.1e ok=%d", jit,
             err, err < 1e-5);
    double bytes = 4.0 * ((double)W * H + (double)OW * OH);
    bu_report("halide", "blur3", "4096x4096", threads, s,
              8.0 * OW * OH / s * 1e-9, bytes / s * 1e-9, extra);
    return 0;
}
