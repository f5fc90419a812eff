// conv.cpp - the Halide 14 peer for conv2d NCHW, 1x64x56x56 input, 64
// filters 3x3, pad 1 (output 1x64x56x56), plus a bias.  The input is
// zero-padded once (compute_root) so the hot loop has no boundary
// selects.  The register tile is 16 x-positions (one vector) x 4 rows x
// 6 filters = 24 accumulators with the whole c, r, s reduction inside
// it (the best of 8x2, 4x4, 8x4, 4x7 and 6x4 tried here); filter blocks
// run in parallel (64 = 10 x 6 + 4: the last block is shifted inwards,
// as is the last x vector, 56 = 3.5 x 16).  PERFORMANCE.md's figure
// (230 / 456 GFLOP/s) was measured on NHWC, where channels are the
// vector axis.  Checked against plain C.
#include "common.h"

#include <vector>

using namespace Halide;

int main()
{
    const int C = 64, F = 64, H = 56, W = 56, K = 3;
    int threads = hb_threads();
    Buffer<float> in(W, H, C, 1), wt(K, K, C, F), bias(F);
    bu_fill(in.data(), (long)W * H * C, 1);
    bu_fill(wt.data(), (long)K * K * C * F, 2);
    bu_fill(bias.data(), F, 3);

    Var x("x"), y("y"), c("c"), f("f"), n("n");
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi"), fo("fo"), fi("fi");
    Func pad("pad"), conv("conv"), out("out");
    pad = BoundaryConditions::constant_exterior(in, 0.0f);
    Func padded("padded");
    padded(x, y, c, n) = pad(x, y, c, n);
    RDom r(0, K, 0, K, 0, C, "r");
    conv(x, y, f, n) = bias(f);
    conv(x, y, f, n) += wt(r.x, r.y, r.z, f)
        * padded(x + r.x - 1, y + r.y - 1, r.z, n);
    out(x, y, f, n) = conv(x, y, f, n);

    out.bound(x, 0, W).bound(y, 0, H).bound(f, 0, F).bound(n, 0, 1);
    out.split(x, xo, xi, 16).split(y, yo, yi, 4).split(f, fo, fi, 6)
        .reorder(xi, fi, yi, xo, yo, fo, n)
        .vectorize(xi).unroll(fi).unroll(yi).parallel(fo);
    conv.compute_at(out, xo).vectorize(x, 16).unroll(f).unroll(y);
    conv.update().reorder(x, f, y, r.x, r.y, r.z)
        .vectorize(x, 16).unroll(f).unroll(y);
    padded.compute_root().parallel(c).vectorize(x, 16);

    double jit = hb_compile(out);
    Buffer<float> res(W, H, F, 1);
    double s = hb_time([&] { out.realize(res); });

    std::vector<float> ref((size_t)F * H * W);
    for (int ff = 0; ff < F; ff++)
        for (int yy = 0; yy < H; yy++)
            for (int xx = 0; xx < W; xx++) {
                double acc = bias(ff);
                for (int cc = 0; cc < C; cc++)
                    for (int ry = 0; ry < K; ry++)
                        for (int rx = 0; rx < K; rx++) {
                            int sy = yy + ry - 1, sx = xx + rx - 1;
                            if (sy < 0 || sy >= H || sx < 0 || sx >= W)
                                continue;
                            acc += (double)wt(rx, ry, cc, ff)
                                * in(sx, sy, cc, 0);
                        }
                ref[((size_t)ff * H + yy) * W + xx] = (float)acc;
            }
    double err = hb_maxerr(res.data(), ref.data(), (long)F * H * W);

    char extra[96];
    snprintf(extra, sizeof extra, "jit_s=%.3f maxerr=%.1e ok=%d", jit,
             err, err < 1e-4);
    double flops = 2.0 * F * H * W * C * K * K;
    bu_report("halide", "conv2d_nchw", "1x64x56x56", threads, s,
              flops / s * 1e-9, -1, extra);
    return 0;
}
