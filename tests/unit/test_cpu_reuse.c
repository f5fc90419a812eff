/*
 * test_cpu_reuse.c - the cpu runner (codegen/c/target.c) lowers,
 * generates and loads a kernel once and reuses it on later calls, with
 * any shapes; a change of the kernel's schedules (what the REPL does
 * when a schedule is added or dropped) makes it lower again.  The
 * statistics of cgc_last_stats say which happened; the results are
 * compared with the interpreter's.
 */
#include "codegen/c/cgc.h"
#include "interp/interp.h"
#include "parser/parser.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char text[] =
    "kernel scale(X: f32[N]) -> (Y: f32[N]) { Y[i] = X[i] * 3.0 + 1.0 }\n"
    "schedule scale for cpu { Y.vectorize(i, 8) }\n";

/* Runs k on cpu over n elements; checks the result against the
 * interpreter and returns the runner's statistics. */
static CgcStats run_n(TlInterp *ip, TlKernelInfo *k, int64_t n)
{
    static const TlLoc nowhere = {-1, 0, 0, 0, 0};
    TlTensor *in[1], *out[1] = {NULL}, *ref[1] = {NULL};
    CgcStats st;
    float *x;

    in[0] = tl_tensor_new(DT_F32, 1, &n, NULL, 0);
    x = in[0]->data;
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)i * 0.25f - 3.0f;
    CHECK(itp_run_kernel(ip, "cpu", k, in, NULL, out, nowhere) == 0);
    cgc_last_stats(&st);
    CHECK(itp_run_kernel(ip, NULL, k, in, NULL, ref, nowhere) == 0);
    if (out[0] && ref[0])
        CHECK(memcmp(out[0]->data, ref[0]->data,
                     (size_t)n * sizeof(float)) == 0);
    tl_tensor_unref(in[0]);
    tl_tensor_unref(out[0]);
    tl_tensor_unref(ref[0]);
    return st;
}

int main(void)
{
    TlSession *s = tl_session_new();
    TlProgram *prog = tl_parse_string(s, "t.tdsl", text, strlen(text));
    TlKernelInfo *k = NULL;
    TlInterp *ip;
    CgcStats st;

    CHECK(prog && tl_check(s, prog) == 0);
    for (int i = 0; prog && i < prog->items.n && !k; i++)
        k = tl_kernel_info(prog->items.v[i]);
    CHECK(k != NULL);
    if (!k)
        return check_done();
    cgc_cache_enable(0);    /* no files left behind */
    cgc_register_targets();
    ip = itp_new(s);

    st = run_n(ip, k, 37);
    CHECK(!st.reused);
    CHECK(st.prep_s > 0);
    /* Other shapes: the same loaded code. */
    st = run_n(ip, k, 37);
    CHECK(st.reused);
    CHECK(st.prep_s == 0);
    CHECK(st.overhead_s >= 0);
    st = run_n(ip, k, 1000);
    CHECK(st.reused);
    /* The REPL dropping the schedule: lowered again (the default
     * schedule), then reused. */
    CHECK(k->nschedules == 1);
    k->nschedules = 0;
    st = run_n(ip, k, 5);
    CHECK(!st.reused);
    st = run_n(ip, k, 64);
    CHECK(st.reused);

    itp_free(ip);
    tl_session_free(s);
    return check_done();
}
