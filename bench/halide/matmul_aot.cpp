/*
 * matmul_aot.cpp - the Halide peer's matmul (matmul_sched.h, as
 * matmul.cpp uses it) compiled ahead of time, so that
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

#include "matmul_sched.h"
#include <string>

using namespace Halide;

int main()
{
    Target t = get_host_target();

    compile_standalone_runtime("rt.o", t);
    for (int n : {256, 512, 1024, 2048}) {
        ImageParam A(Float(32), 2, "A"), B(Float(32), 2, "B");
        Func C = mm_pipeline(A, B, n);
        std::string nm = "hl_mm_" + std::to_string(n);
        C.compile_to({{OutputFileType::object, nm + ".o"},
                      {OutputFileType::assembly, nm + ".s"}},
                     {A, B}, nm, t.with_feature(Target::NoRuntime));
    }
    return 0;
}

#endif
