/*
 * test_layout_emit.c - layout conversions as instructions
 * (codegen/acc/layout_emit.c), run on the simulator: a program loads a
 * row-major tensor from DRAM into the source layout, converts it to the
 * destination layout, and stores it back.  The output must equal the
 * input, and after the run every local memory must hold each element
 * where the destination layout says (acc_layout_locate), copies
 * included: the simulator, not the emitter, judges the layout's
 * meaning.  Prints the simulated cycles beside the plan's estimate,
 * and checks acc_layout_emit_estimate against the simulator: cycles,
 * long words over BM links and to and from DRAM within 20%.
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

/* Runs load, [convert,] store on the simulator and checks the result;
 * route 0: none (the source stored back), 1: through the lowest common
 * ancestor, 2: through DRAM.  Returns the simulated cycles, -1 on a
 * failure. */
static int64_t run(const AccMachine *m, AccLayout *A, AccLayout *B,
                   int rows, int cols, int route, AccEmitCounts *cnt)
{
    TlBuf prog, why, e2;
    int64_t shape[2] = {rows, cols}, n = (int64_t)rows * cols;
    int64_t lws = n / 2, cyc = -1, out_at;
    AccLayout *O = route ? B : A;
    AccProgram *p;
    AccSim *sim;
    TlTensor *in, *out;
    char err[128];

    buf_init(&prog);
    buf_init(&why);
    buf_init(&e2);
    out_at = lws + acc_layout_emit_scratch(A);
    buf_printf(&prog, ".input A f32[%d,%d] d[0]\n.output B f32[%d,%d] "
               "d[%lld]\n", rows, cols, rows, cols, (long long)out_at);
    acc_layout_emit_load(&prog, A, 0);
    if (route == 1)
        CHECK(acc_layout_emit_convert(&prog, A, B, lws, cnt, &why) == 0);
    else if (route == 2)
        CHECK(acc_layout_emit_convert_dram(&prog, A, B, lws, &why) == 0);
    acc_layout_emit_store(&prog, O, out_at);
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
    CHECK(acc_sim_set_input(sim, "A", in, &e2) == 0);
    CHECK(acc_sim_run(sim) == 0);
    out = acc_sim_get_output(sim, "B", &e2);
    CHECK(out && !memcmp(out->data, in->data, (size_t)n * 4));
    CHECK(placed(sim, O, in->data));
    cyc = acc_sim_stats(sim)->cycles;
    tl_tensor_unref(out);
    tl_tensor_unref(in);
    acc_sim_free(sim);
free_bufs:
    buf_free(&prog);
    buf_free(&why);
    buf_free(&e2);
    return cyc;
}

/* The simulated cycles of the conversion by itself (and a halt), on
 * whatever the memories hold: along the plan, or through DRAM.  words
 * (may be NULL) gets the long words over BM links and DRAM. */
static int64_t alone(const AccMachine *m, AccLayout *A, AccLayout *B,
                     int dram, int64_t words[2])
{
    TlBuf prog, why;
    int64_t cyc = -1;
    AccProgram *p;

    buf_init(&prog);
    buf_init(&why);
    if (dram)
        CHECK(acc_layout_emit_convert_dram(&prog, A, B, 0, &why) == 0);
    else
        CHECK(acc_layout_emit_convert(&prog, A, B, 0, NULL, &why) == 0);
    buf_puts(&prog, "halt\n");
    p = acc_assemble(S, tl_add_source(S, "alone.s", prog.s, prog.len), m,
                     0);
    CHECK(p != NULL);
    if (p) {
        AccSim *sim = acc_sim_new(S, p, 1);
        const AccStats *st = acc_sim_stats(sim);
        CHECK(acc_sim_run(sim) == 0);
        cyc = st->cycles;
        if (words) {
            words[0] = words[1] = 0;
            for (int k = 0; k < ACC_MAX_LEVELS; k++)
                words[0] += st->link_words[k][0] + st->link_words[k][1];
            words[1] = st->dram_words[0] + st->dram_words[1];
        }
        acc_sim_free(sim);
    }
    buf_free(&prog);
    buf_free(&why);
    return cyc;
}

/* Whether estimate est is within 20% of the simulated sim. */
static int near(int64_t est, int64_t sim)
{
    int64_t d = est > sim ? est - sim : sim - est;
    return 5 * d <= sim;
}

/* Converts a rows x cols f32 tensor from one layout to another both
 * ways and prints the conversion's simulated cycles (the program's
 * minus that of the same load and store without it) beside the plan's
 * estimate.  Returns the cycles of the route through the lowest common
 * ancestor, the conversion alone; *c gets its routes. */
static int64_t convert(const char *mach, int rows, int cols,
                       const char *from, const char *to, AccEmitCounts *c)
{
    const AccMachine *m = acc_machine_builtin(mach);
    AccLayout *A, *B;
    int64_t lca, words[2];
    AccEmitCounts local;
    AccEmitEst est;
    TlBuf why;

    if (!c)
        c = &local;
    memset(c, 0, sizeof *c);
    S = tl_session_new();
    A = lay(m, DT_F32, from);
    B = lay(m, DT_F32, to);
    CHECK(A && B);
    if (!A || !B) {
        tl_session_free(S);
        return -1;
    }
    run(m, A, B, rows, cols, 0, NULL);
    run(m, A, B, rows, cols, 1, c);
    run(m, A, B, rows, cols, 2, NULL);
    lca = alone(m, A, B, 0, words);
    /* The estimate has no halt. */
    buf_init(&why);
    CHECK(acc_layout_emit_estimate(A, B, &est, &why) == 0);
    buf_free(&why);
    CHECK(near(est.cycles, lca - m->step_cycles));
    CHECK(near(est.link_words, words[0]));
    CHECK(near(est.dram_words, words[1]));
    CHECK(est.cnt.groups == c->groups && est.cnt.dram == c->dram &&
          est.cnt.root == c->root && est.cnt.bcast == c->bcast);
    printf("  emitted estimate %lld cycles (simulated %lld without the "
           "halt), %lld lw over BM links (simulated %lld), %lld lw DRAM "
           "(simulated %lld), %lld DMA ops\n", (long long)est.cycles,
           (long long)(lca - m->step_cycles), (long long)est.link_words,
           (long long)words[0], (long long)est.dram_words,
           (long long)words[1], (long long)est.dma_ops);
    printf("%s %dx%d f32: %s -> %s\n  %lld groups: %lld in place, %lld "
           "mov, %lld mov from T, %lld through BMs, %lld BM images through "
           "DRAM, %lld through DRAM\n  "
           "conversion alone: %lld cycles along the plan, %lld through DRAM "
           "(simulated, with a halt); plan estimate %.0f\n",
           mach, rows, cols, from, to, (long long)c->groups,
           (long long)c->in_place, (long long)c->local,
           (long long)c->indirect, (long long)c->bcast,
           (long long)c->root,
           (long long)c->dram, (long long)lca,
           (long long)alone(m, A, B, 1, NULL),
           acc_layout_convert_cost(&S->arena, A, B));
    tl_session_free(S);
    return lca;
}

/* acc_layout_at (a table of places, or decoding when the table would
 * be too large) agrees with acc_layout_element on every place of every
 * step-th PE. */
static void at_agrees(const char *mach, const char *text, int64_t step)
{
    const AccMachine *m = acc_machine_builtin(mach);
    AccLayout *L;
    int64_t bad = 0, seen = 0;

    S = tl_session_new();
    L = lay(m, DT_F32, text);
    CHECK(L != NULL);
    for (int64_t pe = 0; L && pe < acc_machine_pes(m); pe += step)
        for (int64_t a = L->base - 1; a <= L->base + L->addr_span; a++) {
            AccLoc loc;
            int64_t c1 = -1, c2 = -1, e1, e2;
            acc_loc_of_pe(m, pe, L->space, a, &loc);
            e1 = acc_layout_element(L, &loc, &c1);
            e2 = acc_layout_at(L, pe, a, &c2);
            bad += e1 != e2 || (e1 >= 0 && c1 != c2);
            seen += e1 >= 0;
        }
    CHECK(bad == 0 && seen > 0);
    tl_session_free(S);
}

/* A conversion between layouts of one element a long word (which
 * row-major DRAM cannot load or store): the source written straight
 * into the simulator's LMs, converted, every copy checked where the
 * destination says; the estimate within 20% of the simulated cycles.
 * Returns the destination groups that went through DRAM. */
static int64_t unpacked(const char *mach, int rows, int cols,
                        const char *from, const char *to)
{
    const AccMachine *m = acc_machine_builtin(mach);
    AccLayout *A, *B;
    AccEmitCounts c;
    AccEmitEst est;
    AccProgram *p;
    TlBuf prog, why;
    float *v;

    memset(&c, 0, sizeof c);
    S = tl_session_new();
    A = lay(m, DT_F32, from);
    B = lay(m, DT_F32, to);
    buf_init(&prog);
    buf_init(&why);
    CHECK(A && B && A->epl == 2);
    if (!A || !B)
        goto out;
    CHECK(acc_layout_emit_convert(&prog, A, B, 0, &c, &why) == 0);
    CHECK(acc_layout_emit_estimate(A, B, &est, &why) == 0);
    buf_puts(&prog, "halt\n");
    p = acc_assemble(S, tl_add_source(S, "unpacked.s", prog.s, prog.len),
                     m, 0);
    CHECK(p != NULL);
    if (!p)
        goto out;
    v = tl_xmalloc((size_t)A->nelems * sizeof *v);
    {
        AccSim *sim = acc_sim_new(S, p, 1);
        for (int64_t e = 0; e < A->nelems; e++) {
            v[e] = (float)(e * 7 + 2);
            for (int64_t k = 0; k < A->ncopies; k++) {
                AccLoc loc;
                uint64_t *w;
                acc_layout_locate(A, e, k, &loc);
                w = acc_sim_word(sim, loc.space == ACC_LSP_LM0
                                          ? ACC_SP_LM0 : ACC_SP_LM1, 0,
                                 acc_loc_node(m, &loc, m->nlevels - 1),
                                 2 * loc.addr);
                CHECK(w != NULL);
                if (w)
                    memcpy((char *)w + 4 * loc.word, &v[e], 4);
            }
        }
        CHECK(acc_sim_run(sim) == 0);
        CHECK(placed(sim, B, v));
        CHECK(near(est.cycles, acc_sim_stats(sim)->cycles -
                                   m->step_cycles));
        printf("%s %dx%d f32, one element a long word: %s -> %s\n  %lld "
               "groups, %lld through BMs, %lld through DRAM: %lld cycles "
               "simulated (without the halt), %lld estimated\n", mach,
               rows, cols, from, to, (long long)c.groups,
               (long long)c.bcast, (long long)c.dram,
               (long long)(acc_sim_stats(sim)->cycles - m->step_cycles),
               (long long)est.cycles);
        acc_sim_free(sim);
    }
    free(v);
out:
    buf_free(&prog);
    buf_free(&why);
    tl_session_free(S);
    return c.dram;
}

int main(void)
{
    AccEmitCounts c;
    int64_t cyc;

    /* tiny: one BM level. */
    convert("tiny", 4, 8, "((2_L1B, 2:1), (2_PE, 2:2, 2_W))",
            "((2_MAB, 2), (4_PE, 2_W))", NULL);
    /* test: two BM levels, strided addresses, a placement, copies. */
    convert("test", 8, 16, "((2_L2B, 4:1), (2_L1B, 4_PE, 2_W))",
            "lm1[8:24], (8,16)/((4_PE, 2), (4:2, 2, 2_W)); B@[L2B, MAB]",
            NULL);
    convert("test", 16, 16, "((2_L2B, 2_L1B, 4_MAB), (4_PE, 2, 2_W))",
            "((4, 4_PE), (2_L1B, 2_L2B, 2, 2_W))", NULL);
    at_agrees("test", "(8,16)/((2_L2B, 4:1), (2_L1B, 4_PE, 2_W))", 1);
    at_agrees("test", "lm1[8:24], (8,16)/((4_PE, 2), (4:2, 2, 2_W)); "
              "B@[L2B, MAB]", 1);
    at_agrees("tiny", "(4,8)/((4_PE), (8))", 1);
    /* 4096 PEs x 2048 addresses: the largest table. */
    at_agrees("mn2", "(64,64)/((64), (32, 2_W)); B@[L2B, L1B, MAB, PE]",
              511);
    /* Each route of the plan by itself.  In place: the same layout. */
    convert("tiny", 4, 8, "((2_L1B, 2_MAB, 1), (4_PE, 2_W))",
            "((2_L1B, 2_MAB, 1), (4_PE, 2_W))", &c);
    CHECK(c.in_place == 1 && c.groups == 1);
    /* Inside each PE: lm0 -> lm1 at other addresses.  By hand: the
     * mov (1 step), lat_lm (2 steps), the halt (1): 16 cycles. */
    cyc = convert("tiny", 16, 8, "((2_L1B, 2_MAB, 4), (4_PE, 2_W))",
            "lm1[4:8], (16,8)/((2_L1B, 2_MAB, 4:1), (4_PE, 2_W))", &c);
    CHECK(c.local == 1 && c.dram == 0 && cyc == 16);
    /* Inside each PE, each its own block of a replicated source
     * (addresses from the PE's ids).  By hand: 4 movs of the
     * constants, lat_grf, mul by $pe's coefficient, lat_grf, add,
     * lat_grf, mov to T, lat_grf, the mov, lat_lm, halt: 15 steps. */
    cyc = convert("tiny", 4, 8, "((2_L1B, 2_MAB), (4, 2_W)); B@[PE]",
            "lm1[0:1], (4,8)/((2_L1B, 2_MAB), (4_PE, 2_W))", &c);
    CHECK(c.indirect == 1 && c.dram == 0 && cyc == 60);
    convert("test", 64, 16, "((2_L2B, 4_MAB, 8), (8, 2_W)); B@[L1B, PE]",
            "lm1[0:8], (64,16)/((2_L2B, 4_MAB, 4, 2_L1B), (4_PE, 2, 2_W))",
            &c);
    CHECK(c.indirect == 2 && c.dram == 0);
    /* Copies of one PE's long words under each L1B (a broadcast from
     * the L1 BM), and under the L2B (gathered up to L2 first). */
    convert("tiny", 4, 8, "((2_L1B, 2), (4, 2_W))",
            "lm1[0:8], (4,8)/((2_L1B, 2), (4, 2_W)); B@[MAB, PE]", &c);
    CHECK(c.bcast == 2 && c.dram == 0);
    convert("test", 4, 8, "((4), (4, 2_W))",
            "lm1[0:16], (4,8)/((4), (4, 2_W)); B@[L1B, MAB, PE]", &c);
    CHECK(c.bcast == 4 && c.dram == 0);
    /* Each MAB's copy from its own PE 0 of L1B 0: each L1 image
     * rebuilt in the L2 BM, 4 long words at a time. */
    convert("test", 8, 8, "((2_L2B, 4_MAB), (4, 2_W))",
            "lm1[0:4], (8,8)/((2_L2B, 4_MAB), (4, 2_W)); B@[L1B, PE]", &c);
    CHECK(c.bcast == 1 && c.dram == 0);
    /* Rows of both L2Bs copied to every PE: each group's top images
     * through DRAM whole, then rebuilt in the L2 BM. */
    convert("test", 8, 8, "((2_L2B, 4), (4, 2_W))",
            "lm1[0:32], (8,8)/((8), (4, 2_W)); B@[L2B, L1B, MAB, PE]", &c);
    CHECK(c.root == 8 && c.dram == 0);
    /* Across PEs: through DRAM. */
    convert("tiny", 4, 8, "((2_L1B, 2_MAB), (4_PE, 2_W))",
            "lm1[0:1], (4,8)/((2_MAB, 2_L1B), (4_PE, 2_W))", &c);
    CHECK(c.dram == 1);
    /* A source under L2B 0 only goes out as that node's image alone:
     * 128 lw stored (not 256, both top nodes'), 32 loaded. */
    convert("test", 4, 16, "((4_MAB), (4_PE, 2, 2_W))",
            "lm1[0:2], (4,16)/((2_L2B, 2_L1B), (4_PE, 2, 2_W))", &c);
    CHECK(c.dram == 1);
    {
        const AccMachine *m = acc_machine_builtin("test");
        AccLayout *A, *B;
        AccEmitEst est;
        TlBuf why;
        S = tl_session_new();
        buf_init(&why);
        A = lay(m, DT_F32, "((4_MAB), (4_PE, 2, 2_W))");
        B = lay(m, DT_F32, "lm1[0:2], (4,16)/((2_L2B, 2_L1B), "
                           "(4_PE, 2, 2_W))");
        CHECK(A && B && acc_layout_emit_estimate(A, B, &est, &why) == 0);
        CHECK(est.dram_words == 160);
        buf_free(&why);
        tl_session_free(S);
    }
    /* One element a long word, both sides: across PEs through DRAM as
     * BM images, and a broadcast under each L1B. */
    CHECK(unpacked("tiny", 4, 8, "((4_PE), (8))",
                   "lm1[0:4], (4,8)/((2_L1B, 2), (4_PE, 2))") == 1);
    CHECK(unpacked("test", 4, 8, "((2_L2B, 2), (8))",
                   "lm1[0:8], (4,8)/((4), (2, 4_PE))") > 0);
    CHECK(unpacked("tiny", 4, 8, "((2_L1B, 2), (8))",
                   "lm1[0:16], (4,8)/((2_L1B, 2), (8)); B@[MAB, PE]")
          == 0);
    return check_done();
}
