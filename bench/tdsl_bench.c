/*
 * tdsl_bench.c - the tdsl side of `make bench`: the kernels of
 * bench/tdsl_kernels.tdsl run on target cpu with their schedules and
 * printed in bench_util.h's format with peer=tdsl, so that bench/run.sh
 * puts each figure beside Halide's and OpenBLAS's.  The kernel alone is
 * timed (cgc_run_timed: median of bu_runs() calls on loaded code); the
 * first call's preparation is compile_s (lowering, generating C and cc,
 * or loading from the disk cache when the .so is there), a second
 * call's time besides the kernel call_s (binding the arguments of the
 * kernel loaded by the first; cgc_last_stats measures both).  Every
 * result is checked: against the interpreter, or for matmul above 512
 * against 2000 sampled entries computed in double.  Threads:
 * OMP_NUM_THREADS, which the generated code uses.
 * softmax is the fast_exp + rfactor kernel (like Halide's peer),
 * softmax_exact the bit-exact one (reported as sm_exact).
 * Usage: tdsl_bench [matmul|blur3|conv2d|softmax|softmax_exact ...]
 * (default: all).  BENCH_MATMUL_SIZES (default "256 512 1024 2048"):
 * matmul's sizes.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#include "bench_util.h"
#include "codegen/c/cgc.h"
#include "codegen/codegen.h"
#include "interp/interp.h"
#include "parser/parser.h"

#include <math.h>

#define KERNELS "bench/tdsl_kernels.tdsl"

static TlInterp *ip;
static int argc_;
static char **argv_;
static TlProgram *prog;
static const TlLoc nowhere = {-1, 0, 0, 0, 0};

static TlKernelInfo *find(const char *name)
{
    for (int i = 0; i < prog->items.n; i++) {
        TlKernelInfo *k = tl_kernel_info(prog->items.v[i]);
        if (k && !strcmp(k->name, name))
            return k;
    }
    fprintf(stderr, "tdsl_bench: no kernel '%s' in %s\n", name, KERNELS);
    exit(1);
}

static TlTensor *filled(int rank, const int64_t *shape, unsigned seed)
{
    TlTensor *t = tl_tensor_new(DT_F32, rank, shape, NULL, 0);
    bu_fill(t->data, (long)tl_tensor_numel(t), seed);
    return t;
}

/* Whether kernel name was asked for (no arguments: every kernel). */
static int wanted(const char *name)
{
    for (int i = 1; i < argc_; i++)
        if (!strcmp(argv_[i], name))
            return 1;
    return argc_ < 2;
}

/* Max |a - b| over a sample of C = A B's entries, computed in double
 * (for sizes where the interpreter would take minutes); *rel gets the
 * largest error relative to sum |A[i,k] B[k,j]| (the scale of the
 * rounding errors of a float sum). */
static double mm_sample_err(const TlTensor *a, const TlTensor *b,
                            const TlTensor *c, double *rel)
{
    const float *A = a->data, *B = b->data, *C = c->data;
    int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    unsigned seed = 12345;
    double worst = 0, wrel = 0;

    for (int s = 0; s < 2000; s++) {
        int64_t i, j;
        double acc = 0, mag = 1e-30, d;
        seed = seed * 1103515245u + 12345u;
        i = (int64_t)(seed >> 8) % M;
        seed = seed * 1103515245u + 12345u;
        j = (int64_t)(seed >> 8) % N;
        for (int64_t k = 0; k < K; k++) {
            acc += (double)A[i * K + k] * (double)B[k * N + j];
            mag += fabs((double)A[i * K + k] * (double)B[k * N + j]);
        }
        d = fabs(acc - (double)C[i * N + j]);
        if (d > worst)
            worst = d;
        if (d / mag > wrel)
            wrel = d / mag;
    }
    *rel = wrel;
    return worst;
}

/* Times kernel `name` on cpu over `in`: the first call's preparation
 * (lowering, generating C, cc or the disk cache) gives compile_s, a
 * second call's time besides the kernel the cost of a call whose
 * kernel is already loaded (call_s), then the kernel alone
 * (cgc_run_timed) bu_runs() times.  The output is checked against the
 * interpreter when `check` is 1, against a sampled double-precision
 * product when 2 (matmul sizes the interpreter is too slow for). */
static void run(const char *name, const char *report_as, const char *size,
                TlTensor **in, int check, double flops, double bytes)
{
    TlKernelInfo *k;
    TlTensor *out[1] = {NULL}, *ref[1] = {NULL};
    double t[BU_MAX_RUNS], first, second, s, err = 0, rel = 0;
    CgcStats st;
    int runs = bu_runs(), ok = 1, exact = 0;
    char extra[200];

    if (!wanted(name))
        return;
    k = find(name);
    if (itp_run_kernel(ip, "cpu", k, in, NULL, out, nowhere) < 0)
        exit(1);
    cgc_last_stats(&st);
    first = st.prep_s;
    if (check == 1) {
        TlCloseReport r;
        if (itp_run_kernel(ip, NULL, k, in, NULL, ref, nowhere) < 0)
            exit(1);
        ok = itp_allclose(out[0], ref[0], 1e-4, 1e-5, &r) == 1 && r.close;
        exact = itp_allclose(out[0], ref[0], 0, 0, &r) == 1 && r.close;
        err = r.diff;
        tl_tensor_unref(ref[0]);
    } else if (check == 2) {
        err = mm_sample_err(in[0], in[1], out[0], &rel);
        ok = rel < (double)in[0]->shape[1] * 1.2e-7;   /* K eps */
    }
    tl_tensor_unref(out[0]);
    if (itp_run_kernel(ip, "cpu", k, in, NULL, out, nowhere) < 0)
        exit(1);
    cgc_last_stats(&st);
    second = st.overhead_s;
    tl_tensor_unref(out[0]);
    if (cgc_run_timed(itp_runtime(ip), k, in, NULL, out, runs, t) < 0)
        exit(1);
    tl_tensor_unref(out[0]);
    s = bu_median(t, runs);
    snprintf(extra, sizeof extra, "compile_s=%.3f call_s=%.6f maxerr=%.1e "
             "ok=%d check=%s", first, second, err, ok,
             check == 1 ? (exact ? "interp-exact" : "interp") :
             check == 2 ? "sampled" : "none");
    bu_report("tdsl", report_as, size, bu_env_int("OMP_NUM_THREADS", 1),
              s, flops > 0 ? flops / s * 1e-9 : -1,
              bytes > 0 ? bytes / s * 1e-9 : -1, extra);
    if (!ok)
        fprintf(stderr, "tdsl_bench: %s %s differs from the reference\n",
                name, size);
}

/* Whether matmul runs at size n: BENCH_MATMUL_SIZES (a list such as
 * "1024 2048") picks sizes, so that a paired A/B run of the large ones
 * does not pay for the interpreter's check of the small ones. */
static int matmul_size_wanted(int n)
{
    const char *e = getenv("BENCH_MATMUL_SIZES");
    char *end;

    if (!e || !*e)
        return 1;
    while (*e) {
        long v = strtol(e, &end, 10);
        if (end == e)
            return 0;
        if (v == n)
            return 1;
        e = end;
    }
    return 0;
}

int main(int argc, char **argv)
{
    TlSession *s = tl_session_new();
    static const int sizes[] = {256, 512, 1024, 2048};
    char size[32];

    argc_ = argc;
    argv_ = argv;
    prog = tl_parse_file(s, KERNELS);
    if (!prog || tl_check(s, prog))
        return 1;
    cgc_register_targets();
    ip = itp_new(s);

    for (int i = 0; i < 4; i++) {
        int64_t sh[2] = {sizes[i], sizes[i]};
        if (!matmul_size_wanted(sizes[i]))
            continue;
        TlTensor *in[2] = {filled(2, sh, 1), filled(2, sh, 2)};
        double n = sizes[i];
        snprintf(size, sizeof size, "%d", sizes[i]);
        run("matmul", "matmul", size, in, sizes[i] <= 512 ? 1 : 2,
            2 * n * n * n, -1);
        tl_tensor_unref(in[0]);
        tl_tensor_unref(in[1]);
    }
    {
        int64_t sh[2] = {4096, 4096};
        TlTensor *in[1] = {filled(2, sh, 7)};
        run("blur3", "blur3", "4096x4096", in, 1, 8.0 * 4094 * 4094,
            4.0 * (4096.0 * 4096 + 4094.0 * 4094));
        tl_tensor_unref(in[0]);
    }
    {
        int64_t sx[4] = {1, 64, 56, 56}, sw[4] = {64, 64, 3, 3};
        int64_t sb[1] = {64};
        TlTensor *in[3] = {filled(4, sx, 1), filled(4, sw, 2),
                           filled(1, sb, 3)};
        run("conv2d", "conv2d_nchw", "1x64x56x56", in, 1,
            2.0 * 64 * 56 * 56 * 64 * 9, -1);
        for (int i = 0; i < 3; i++)
            tl_tensor_unref(in[i]);
    }
    {
        int64_t sh[2] = {4096, 1024};
        TlTensor *in[1] = {filled(2, sh, 3)};
        run("softmax", "softmax", "4096x1024", in, 1, -1,
            2.0 * 4 * 4096 * 1024);
        run("softmax_exact", "sm_exact", "4096x1024", in, 1, -1,
            2.0 * 4 * 4096 * 1024);
        tl_tensor_unref(in[0]);
    }
    itp_free(ip);
    tl_session_free(s);
    return 0;
}
