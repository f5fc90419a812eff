/*
 * test_layout_emit.c - layout conversions as instructions
 * (codegen/acc/layout_emit.c), run on the simulator: a program loads a
 * row-major tensor from DRAM into the source layout, converts it to the
 * destination layout, and stores it back.  The output must equal the
 * input, and after the run every local memory must hold each element
 * where the destination layout says (acc_layout_locate), copies
 * included: the simulator, not the emitter, judges the layout's
 * meaning.  Prints the simulated cycles beside the plan's estimate.
 */
#include "codegen/acc/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static TlSession *S;

static AccLayout *lay(const AccMachine *m, TlDType dt, const char *text)
{
    AccLayoutReq r;
    memset(&r, 0, sizeof r);
    r.m = m;
    r.dtype = dt;
    r.where.file = -1;
    return acc_layout_from_text(S, "--layout", text, &r);
}

/* Every copy of every element of L is in the simulator's LM. */
static int placed(AccSim *sim, const AccLayout *L, const float *want)
{
    int bad = 0;
    for (int64_t e = 0; e < L->nelems && bad < 5; e++)
        for (int64_t k = 0; k < L->ncopies; k++) {
            AccLoc loc;
            uint64_t *w;
            float got;
            acc_layout_locate(L, e, k, &loc);
            w = acc_sim_word(sim, loc.space == ACC_LSP_LM0 ? ACC_SP_LM0
                                                          : ACC_SP_LM1,
                             0, acc_loc_node(L->m, &loc, L->m->nlevels - 1),
                             2 * loc.addr);
            if (!w) {
                bad++;
                continue;
            }
            memcpy(&got, (const char *)w + 4 * loc.word, 4);
            if (got != want[e]) {
                fprintf(stderr, "element %lld copy %lld: %g, want %g\n",
                        (long long)e, (long long)k, got, want[e]);
                bad++;
            }
        }
    return bad == 0;
}

static void convert(const char *mach, int rows, int cols, const char *from,
                    const char *to)
{
    const AccMachine *m = acc_machine_builtin(mach);
    AccLayout *A, *B;
    TlBuf prog, why;
    int64_t shape[2] = {rows, cols}, n = (int64_t)rows * cols;
    int64_t lws = n / 2;
    AccProgram *p;
    AccSim *sim;
    TlTensor *in, *out;
    char err[128];
    TlBuf e2;

    S = tl_session_new();
    A = lay(m, DT_F32, from);
    B = lay(m, DT_F32, to);
    CHECK(A && B);
    if (!A || !B)
        goto done;
    buf_init(&prog);
    buf_init(&why);
    buf_printf(&prog, ".input A f32[%d,%d] d[0]\n.output B f32[%d,%d] "
               "d[%lld]\n", rows, cols, rows, cols, (long long)(2 * lws));
    acc_layout_emit_load(&prog, A, 0);
    CHECK(acc_layout_emit_convert(&prog, A, B, lws, &why) == 0);
    acc_layout_emit_store(&prog, B, 2 * lws);
    buf_puts(&prog, "halt\n");
    p = acc_assemble(S, tl_add_source(S, "conv.s", prog.s, prog.len), m, 0);
    CHECK(p != NULL);
    if (!p) {
        fputs(prog.s, stderr);
        goto free_bufs;
    }
    sim = acc_sim_new(S, p, 1);
    in = tl_tensor_new(DT_F32, 2, shape, err, sizeof err);
    for (int64_t i = 0; i < n; i++)
        ((float *)in->data)[i] = (float)(i * 3 + 1);
    buf_init(&e2);
    CHECK(acc_sim_set_input(sim, "A", in, &e2) == 0);
    CHECK(acc_sim_run(sim) == 0);
    out = acc_sim_get_output(sim, "B", &e2);
    CHECK(out && !memcmp(out->data, in->data, (size_t)n * 4));
    CHECK(placed(sim, B, in->data));
    printf("%s %dx%d f32: %s -> %s: %lld simulated cycles in all "
           "(load, convert, store); plan estimate for the conversion %.0f\n",
           mach, rows, cols, from, to,
           (long long)acc_sim_stats(sim)->cycles,
           acc_layout_convert_cost(&S->arena, A, B));
    tl_tensor_unref(out);
    tl_tensor_unref(in);
    buf_free(&e2);
    acc_sim_free(sim);
free_bufs:
    buf_free(&prog);
    buf_free(&why);
done:
    tl_session_free(S);
}

int main(void)
{
    /* tiny: one BM level. */
    convert("tiny", 4, 8, "((2_L1B, 2:1), (2_PE, 2:2, 2_W))",
            "((2_MAB, 2), (4_PE, 2_W))");
    /* test: two BM levels, strided addresses, a placement, copies. */
    convert("test", 8, 16, "((2_L2B, 4:1), (2_L1B, 4_PE, 2_W))",
            "lm1[8:24], (8,16)/((4_PE, 2), (4:2, 2, 2_W)); B@[L2B, MAB]");
    convert("test", 16, 16, "((2_L2B, 2_L1B, 4_MAB), (4_PE, 2, 2_W))",
            "((4, 4_PE), (2_L1B, 2_L2B, 2, 2_W))");
    return check_done();
}
