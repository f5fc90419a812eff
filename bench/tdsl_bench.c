/*
 * tdsl_bench.c - the tdsl side of `make bench`: the kernels of
 * bench/tdsl_kernels.tdsl run on target cpu with their schedules,
 * timed like the peers (median of bu_runs() runs after the first call,
 * whose extra time is the compile time, reported as compile_s) and
 * printed in bench_util.h's format with peer=tdsl, so that bench/run.sh
 * puts each figure beside Halide's and OpenBLAS's.  Results are checked
 * against the interpreter where it is fast enough (not for matmul above
 * 512).  Threads: OMP_NUM_THREADS, which the generated code uses.
 * Usage: tdsl_bench [matmul|blur3|conv2d|softmax ...] (default: all).
 *
 * TODO(issue 4): not built yet.  Once `e on cpu` runs compiled code,
 * add bench/tdsl_bench.c to BENCH_SRC in the Makefile; run.sh then runs
 * build/bench/tdsl_bench.  It calls, through the public API only:
 * tl_session_new, tl_parse_file + tl_check on bench/tdsl_kernels.tdsl,
 * cgc_register_targets (codegen/codegen.h), itp_new, and for each
 * kernel itp_run_kernel(ip, "cpu", k, inputs, NULL, outputs, nowhere)
 * for the timing and itp_run_kernel(ip, NULL, ...) for the reference.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#endif
#include "bench_util.h"
#include "codegen/codegen.h"
#include "interp/interp.h"
#include "parser/parser.h"

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

/* Times kernel `name` on cpu over `in`; checks one output against the
 * interpreter when `check` is set; prints the result line. */
static void run(const char *name, const char *report_as, const char *size,
                TlTensor **in, int check, double flops, double bytes)
{
    TlKernelInfo *k;
    TlTensor *out[1] = {NULL}, *ref[1] = {NULL};
    double t[BU_MAX_RUNS], first, s, err = 0;
    int runs = bu_runs(), ok = 1;
    char extra[128];

    if (!wanted(name))
        return;
    k = find(name);
    first = bu_now();
    if (itp_run_kernel(ip, "cpu", k, in, NULL, out, nowhere) < 0)
        exit(1);
    first = bu_now() - first;
    if (check) {
        TlCloseReport r;
        if (itp_run_kernel(ip, NULL, k, in, NULL, ref, nowhere) < 0)
            exit(1);
        ok = itp_allclose(out[0], ref[0], 1e-4, 1e-5, &r) == 1
            && r.close;
        err = r.diff;
        tl_tensor_unref(ref[0]);
    }
    tl_tensor_unref(out[0]);
    for (int r = 0; r < runs; r++) {
        double t0 = bu_now();
        if (itp_run_kernel(ip, "cpu", k, in, NULL, out, nowhere) < 0)
            exit(1);
        t[r] = bu_now() - t0;
        tl_tensor_unref(out[0]);
    }
    s = bu_median(t, runs);
    snprintf(extra, sizeof extra, "compile_s=%.3f maxerr=%.1e ok=%d%s",
             first - s, err, ok, check ? "" : " unchecked");
    bu_report("tdsl", report_as, size, bu_env_int("OMP_NUM_THREADS", 1),
              s, flops > 0 ? flops / s * 1e-9 : -1,
              bytes > 0 ? bytes / s * 1e-9 : -1, extra);
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
        TlTensor *in[2] = {filled(2, sh, 1), filled(2, sh, 2)};
        double n = sizes[i];
        snprintf(size, sizeof size, "%d", sizes[i]);
        run("matmul", "matmul", size, in, sizes[i] <= 512, 2 * n * n * n,
            -1);
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
        tl_tensor_unref(in[0]);
    }
    itp_free(ip);
    tl_session_free(s);
    return 0;
}
