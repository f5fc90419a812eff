/*
 * matmul_aot.cpp - the Halide peer's matmul (the pipeline and schedule
 * of matmul.cpp: keep the two in step) compiled ahead of time, so that
 * bench/matmul_sizes.c can time it beside tdsl's kernels in one process
 * (thread CPU time, the calls alternated sample by sample, which the
 * JIT peer in its own process cannot be), and so that its assembly can
 * be read beside tdsl's (hl_mm_N.s).  Not built by `make bench`:
 *
 *   H="-isystem /usr/include/halide14"; mkdir -p /tmp/hl
 *   g++ -std=c++17 -O2 $H bench/halide/matmul_aot.cpp -o /tmp/hl/gen \
 *       -lHalide14 -lpthread -ldl
 *   (cd /tmp/hl && ./gen)    # hl_mm_{256,512,1024,2048}.{o,s}, rt.o
 *   g++ -std=c++17 -O2 -fPIC -shared -DMM_WRAP $H \
 *       bench/halide/matmul_aot.cpp /tmp/hl/hl_mm_*.o /tmp/hl/rt.o \
 *       -o /tmp/hl/hl.so
 *   LOOSE=1 OMP_NUM_THREADS=1 HL_NUM_THREADS=1 \
 *       build/bench/matmul_sizes ./k.so /tmp/hl/hl.so -- 1024
 *
 * With -DMM_WRAP this file is instead the .so's entry point:
 * tdsl_matmul with the ABI of tdsl's ahead-of-time kernels (square
 * sizes above only; other sizes return -1).
 */
#include <cstdint>
#include <cstdlib>

#ifdef MM_WRAP

#include <HalideBuffer.h>

extern "C" {
int hl_mm_256(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int hl_mm_512(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int hl_mm_1024(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
int hl_mm_2048(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
}

// A(k, i) and B(j, k) in Halide's order are tdsl's row-major A[i, k]
// and B[k, j].
extern "C" int tdsl_matmul(const float *a, const int64_t *ash,
                           const int64_t *, const float *b,
                           const int64_t *, const int64_t *, float *c,
                           const int64_t *, const int64_t *)
{
    int n = (int)ash[0];
    Halide::Runtime::Buffer<float> A((float *)a, n, n);
    Halide::Runtime::Buffer<float> B((float *)b, n, n), C(c, n, n);

    switch (n) {
    case 256: return hl_mm_256(A, B, C);
    case 512: return hl_mm_512(A, B, C);
    case 1024: return hl_mm_1024(A, B, C);
    case 2048: return hl_mm_2048(A, B, C);
    }
    return -1;
}

#else

#include <Halide.h>
#include <string>

using namespace Halide;

int main()
{
    Target t = get_host_target();

    compile_standalone_runtime("rt.o", t);
    for (int n : {256, 512, 1024, 2048}) {
        const int T = 64, R = 6, G = 48;    // as in matmul.cpp
        ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
        Var x("x"), y("y"), xi("xi"), xo("xo"), k("k");
        Var yi("yi"), yo("yo"), yg("yg");
        RDom r(0, n, "r");
        Func Bp("Bp"), prod("prod"), C("C");
        Bp(xi, k, xo) = B(xo * T + xi, k);
        prod(xi, y, xo) = 0.0f;
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
        std::string nm = "hl_mm_" + std::to_string(n);
        C.compile_to({{OutputFileType::object, nm + ".o"},
                      {OutputFileType::assembly, nm + ".s"}},
                     {A, B}, nm, t.with_feature(Target::NoRuntime));
    }
    return 0;
}

#endif
