/*
 * test_acc_sim.c - the accelerator's assembler, binary and simulator
 * through the C API (codegen/acc/acc.h):
 *   - a `.rep` stream kept compressed gives the same machine state and
 *     the same cycle count as its expansion (on tiny);
 *   - a program using every op kind goes text -> binary -> text -> binary
 *     unchanged;
 *   - the matrix unit: mwrite + mfma against a product computed here,
 *     and mread as a transpose;
 *   - ALU/MAU arithmetic, masks and select, against values computed here;
 *   - a corrupt binary (every truncation, every single-byte change of
 *     the header and first op, random changes) is refused or runs, but
 *     never reads out of bounds (the sanitizer build checks that).
 */
#include "codegen/acc/acc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static AccProgram *assemble(TlSession *s, const char *text, int compress)
{
    int f = tl_add_source(s, "t.s", text, strlen(text));
    AccProgram *p = acc_assemble(s, f, NULL, compress);
    CHECK(p != NULL);
    return p;
}

/* Runs p; the state hash and the cycles. */
static void run(TlSession *s, const AccProgram *p, uint64_t *hash,
                int64_t *cycles)
{
    AccSim *sim = acc_sim_new(s, p, 1);
    CHECK(acc_sim_run(sim) == 0);
    *hash = acc_sim_state_hash(sim);
    *cycles = acc_sim_stats(sim)->cycles;
    acc_sim_free(sim);
}

static const char rep_prog[] =
    ".machine tiny\n"
    "mov.i32 $gpe -> r[0+]\n"
    "mov.f32 #0.5 -> r[8+]\n"
    "nop\n"
    ".rep 6\n"
    "  add.i32 r[0+], #3 -> lm0[8*%i+]\n"
    "  fma.f32 r[8+], r[8+], r[8+] -> lm1[8*%i+] ; nop/2\n"
    "  gather.L1 lm0[8*%i+] -> lb[32*%i]\n"
    ".endrep\n"
    ".rep 3 j\n"
    "  .rep 2\n"
    "    add.i32 r[0+], #1 -> r[16+]\n"
    "    mov r[16+] -> lm0[100+8*%j]\n"
    "  .endrep\n"
    ".endrep\n"
    "nop/3\n";

static void compressed_vs_expanded(void)
{
    TlSession *s = tl_session_new();
    AccProgram *c = assemble(s, rep_prog, 1);
    AccProgram *e = assemble(s, rep_prog, 0);
    if (!c || !e) {
        tl_session_free(s);
        return;
    }
    CHECK(c->nreps == 4);   /* the first .rep and the three inner ones */
    CHECK(e->nreps == 0);
    CHECK(e->nb == 3 + 6 * 3 + 3 * 2 * 2 + 1);
    uint64_t hc, he, hx;
    int64_t cc, ce, cx;
    run(s, c, &hc, &cc);
    run(s, e, &he, &ce);
    run(s, acc_expand(s, c), &hx, &cx);
    CHECK(hc == he && hc == hx);
    CHECK(cc == ce && cc == cx);
    /* 3 + 6 x (1 + 2 + 1) + 12 + 3 steps, then the last LM write is
     * readable two steps on but nothing waits for it. */
    CHECK(ce == 4 * (3 + 24 + 12 + 3));
    /* Same text back after an expansion. */
    TlBuf a, b;
    buf_init(&a);
    buf_init(&b);
    acc_disasm(&a, acc_expand(s, c));
    acc_disasm(&b, e);
    CHECK_STR(a.s, b.s);
    buf_free(&a);
    buf_free(&b);
    tl_session_free(s);
}

static const char all_ops[] =
    ".machine test\n"
    ".input A f32[4,4] d[0]\n"
    ".output B bf16[3] d[64]\n"
    "add.i32 $pe, #-7 -> r[0] ; add.f64 lm0[0+], lm0[0+] -> s[0+]\n"
    "sub.i16 r[0], r[2] -> r[4]/m3 ; mul.bf16 s[0].dd, s[4].dd -> lm1[0+]."
    "dd\n"
    "max.f32 lm0[0,2,4,6], #1.5 -> r[8] ; fma.f16 r[8], r[8], aluf -> s[8]\n"
    "min.i32 lm1[8 by 4], #0x10 -> r[10]\n"
    "and.i32 r[0], r[2] -> r[4] ; mfma.f32 x, lm0[8+], mauf -> lm1[16+]\n"
    "or.i32 r[0], r[2] -> r[4] ; mmul.f16 y[0], lm0[0+] -> s[16+].dd\n"
    "xor.i16 r[0], r[2] -> r[4] ; mwrite.f16 lm0[0+] -> y[4]\n"
    "shl.i32 r[0], #3 -> r[4] ; mread.f32 x[2] -> lm1[0+]\n"
    "shr.i32 r[0], #3 -> r[4], lm0[40]\n"
    "relu.f32 lbf -> r[4]\n"
    "neg.f64 r[0] -> r[4]\n"
    "rsqrt.f32 r[0] -> r[4]\nrecip.f32 r[0] -> r[6]\n"
    "exp.f32 r[0] -> r[4]\n"
    "log.bf16 r[0] -> r[4]\n"
    "cmplt.f32 $sub, r[2] -> m1\n"
    "cmple.i32 r[0], #-inf -> m2\ncmpeq.f32 r[0], #nan -> m3\n"
    "sel.f32 m1, r[0], r[2] -> r[4]\n"
    "cvt.f32.f16 r[0] -> r[4].dd\ncvt.i16.i32 r[8].dd -> lm0[0]\n"
    "mov lm0[t] -> r[4]\nmov.f64 #-0.25 -> r[6]\n"
    "zero -> r[4], t[0]\n"
    "msl r[0] -> r[4]\nmsr lm0[0] -> r[6]\n"
    "bcast.L1 lb[0] -> r[0+] ; bcast.L2 lc[0:64] -> lb[0]\n"
    "dist.L1 lb[0] -> r[0+].dd ; dist.L2 lc[0:64] -> lb[0]\n"
    "mbcast.L1 lb[0] -> r[0+]\n"
    "gather.L1 r[0+] -> lb[0] ; gather.L2 lb[0:16] -> lc[0]\n"
    "ucast.L1@3 r[0+] -> lb[0] ; ucast.L2@1 lb[0:16] -> lc[0]\n"
    "redadd.L1.f32 r[0+] -> lb[0] ; redmax.L2.i32 lb[0:16] -> lc[0]\n"
    "redmin.L1.bf16 r[0+] -> lb[0]\n"
    "dma.ld.t1@1 d[0:16] -> lc[0]\n"
    "dma.st.t2@0 lc[0:16] -> d[0]\n"
    "dma.bcast.t3 d[0:16] -> lc[0]\n"
    "dma.bcast.t9@{1} d[0:16] -> lc[0]\n"
    "dma.dist.t4 d[0:16] -> lc[0]\n"
    "dma.gather.t5 lc[0:16] -> d[0]\n"
    "dma.redadd.f32.t6 lc[0:16] -> d[0]\n"
    "dma.redmax.f64.t7 lc[0:16] -> d[0]\n"
    "dma.redmin.i32.t8 lc[0:16] -> d[0]\n"
    "nop/7 ; mov r[0] -> r[2]\n"
    "wait t8\n"
    "noforward ; add.i32 r[0], r[2] -> r[4]\n"
    "halt\n";

static void round_trip(void)
{
    TlSession *s = tl_session_new();
    AccProgram *p = assemble(s, all_ops, 1);
    if (!p) {
        tl_session_free(s);
        return;
    }
    TlBuf bin, text, bin2, text2, err;
    buf_init(&bin);
    buf_init(&text);
    buf_init(&bin2);
    buf_init(&text2);
    buf_init(&err);
    acc_write_tam(&bin, s, p);
    AccProgram *q = acc_read_tam(s, bin.s, bin.len, NULL, &err);
    CHECK(q != NULL);
    if (q) {
        acc_disasm(&text, q);
        int f = tl_add_source(s, "again.s", text.s, text.len);
        AccProgram *r = acc_assemble(s, f, NULL, 1);
        CHECK(r != NULL);
        if (r) {
            acc_write_tam(&bin2, s, r);
            CHECK(bin.len == bin2.len &&
                  memcmp(bin.s, bin2.s, bin.len) == 0);
            acc_disasm(&text2, r);
            CHECK_STR(text2.s, text.s);
        }
    }
    /* Every opcode appears. */
    int seen[ACC_OP__COUNT] = {0};
    for (int i = 0; i < p->nops; i++)
        seen[p->ops[i].opc] = 1;
    for (int i = 0; i < ACC_OP__COUNT; i++)
        if (!seen[i])
            printf("opcode %s missing from the round trip\n",
                   acc_op_name((AccOpcode)i));
    for (int i = 0; i < ACC_OP__COUNT; i++)
        CHECK(seen[i]);
    /* Corrupt copies: refused or valid, never a crash. */
    char *c = malloc(bin.len);
    for (size_t n = 0; n < bin.len; n++) {
        err.len = 0;
        CHECK(acc_read_tam(s, bin.s, n, NULL, &err) == NULL);
    }
    size_t head = bin.len < 400 ? bin.len : 400;
    for (size_t i = 0; i < head; i++)
        for (int v = 0; v < 256; v += 17) {
            memcpy(c, bin.s, bin.len);
            c[i] = (char)v;
            err.len = 0;
            AccProgram *x = acc_read_tam(s, c, bin.len, NULL, &err);
            if (x) {   /* still valid: it must print and run */
                TlBuf t;
                buf_init(&t);
                acc_disasm(&t, x);
                buf_free(&t);
            }
        }
    srand(7);
    for (int k = 0; k < 3000; k++) {
        memcpy(c, bin.s, bin.len);
        for (int j = 0; j < 4; j++)
            c[rand() % bin.len] = (char)rand();
        err.len = 0;
        acc_read_tam(s, c, bin.len, NULL, &err);
    }
    free(c);
    buf_free(&bin);
    buf_free(&text);
    buf_free(&bin2);
    buf_free(&text2);
    buf_free(&err);
    tl_session_free(s);
}

/* Reads f32 lane l of long word lw of PE pe's space sp. */
static float f32_at(AccSim *sim, AccSpace sp, int64_t pe, int64_t word,
                    int l)
{
    uint64_t *w = acc_sim_word(sim, sp, 0, pe, word);
    float f = 0;
    if (w)
        memcpy(&f, (char *)w + 4 * l, 4);
    return f;
}

static void set_f32(AccSim *sim, AccSpace sp, int64_t pe, int64_t word,
                    int l, float v)
{
    uint64_t *w = acc_sim_word(sim, sp, 0, pe, word);
    CHECK(w != NULL);
    if (w)
        memcpy((char *)w + 4 * l, &v, 4);
}

/* f32 matrix unit on tiny: an 8 x 4 matrix, 4 columns over the 4 PEs of
 * a group (one f32 each), 8 results over the PEs (two each). */
static void matrix_unit(void)     /* groups 0 and 1 of 4 checked */
{
    TlSession *s = tl_session_new();
    AccProgram *p = assemble(s,
        ".machine tiny\n"
        "mwrite.f32 lm0[0+] -> x\n"     /* rows 0..7: 2 per sub-cycle */
        "mfma.f32 x, lm1[0+], r[0+] -> s[0+]\n"
        "mread.f32 x -> r[16+]\n"       /* rows 0..3 of the transpose */
        "nop/2\n", 1);
    if (!p) {
        tl_session_free(s);
        return;
    }
    AccSim *sim = acc_sim_new(s, p, 1);
    float A[2][8][4], b[2][4][4], c[2][4][8];
    /* Group g, PE q: row r of A at sub-cycle r/2, lane r%2, column q. */
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < 8; r++)
            for (int q = 0; q < 4; q++) {
                A[g][r][q] = (float)(g * 100 + r * 4 + q) / 8;
                set_f32(sim, ACC_SP_LM0, g * 4 + q, 2 * (r / 2), r % 2,
                        A[g][r][q]);
            }
    for (int g = 0; g < 2; g++)
        for (int cy = 0; cy < 4; cy++) {
            for (int q = 0; q < 4; q++) {
                b[g][cy][q] = (float)(cy - q + g) * 0.75f;
                set_f32(sim, ACC_SP_LM1, g * 4 + q, 2 * cy, 0, b[g][cy][q]);
            }
            for (int i = 0; i < 8; i++) {
                c[g][cy][i] = (float)i * 0.5f - (float)cy;
                set_f32(sim, ACC_SP_R, g * 4 + i / 2, 2 * cy, i % 2,
                        c[g][cy][i]);
            }
        }
    CHECK(acc_sim_run(sim) == 0);
    for (int g = 0; g < 2; g++)
        for (int cy = 0; cy < 4; cy++)
            for (int i = 0; i < 8; i++) {
                double want = c[g][cy][i];
                for (int j = 0; j < 4; j++)
                    want += (double)A[g][i][j] * b[g][cy][j];
                float got = f32_at(sim, ACC_SP_S, g * 4 + i / 2, 2 * cy,
                                   i % 2);
                CHECK(got == (float)want);
            }
    /* mread: sub-cycle cy gives row cy... of A^T in 2-element pieces:
     * PE q holds A[2q][i], A[2q+1][i] for i = 2cy + r... with one row
     * per sub-cycle (2 lanes = 2 rows of A per PE). */
    for (int g = 0; g < 2; g++)
        for (int cy = 0; cy < 4; cy++)
            for (int q = 0; q < 4; q++)
                for (int e = 0; e < 2; e++)
                    CHECK(f32_at(sim, ACC_SP_R, g * 4 + q, 16 + 2 * cy, e) ==
                          A[g][2 * q + e][cy]);
    const AccStats *st = acc_sim_stats(sim);
    /* 2 x 8 x 4 per sub-cycle, 4 sub-cycles, tiny's 4 MABs. */
    CHECK(st->flops_exec[DT_F32] == 2.0 * 8 * 4 * 4 * 4);
    acc_sim_free(sim);
    tl_session_free(s);
}

static void arithmetic(void)
{
    TlSession *s = tl_session_new();
    AccProgram *p = assemble(s,
        ".machine tiny\n"
        "mov.f32 $gpe -> r[0+]\n"
        "mov.f32 #2.5 -> r[8+]\n"
        "cmplt.f32 r[0+], r[8+] -> m1 ; fma.f32 r[0+], r[0+], r[8+] -> "
        "r[16+]\n"
        "sel.f32 m1, r[0+], r[8+] -> r[24+]\n"
        "sub.f32 r[0+], r[8+] -> r[32+]/m1\n"
        "cvt.f16.f32 r[0].dd -> lm0[0]\n"
        "exp.f32 r[8+] -> r[40+]\n"
        "nop/3\n", 1);
    if (!p) {
        tl_session_free(s);
        return;
    }
    AccSim *sim = acc_sim_new(s, p, 1);
    CHECK(acc_sim_run(sim) == 0);
    for (int pe = 0; pe < 16; pe++) {
        float x = (float)pe;
        CHECK(f32_at(sim, ACC_SP_R, pe, 16, 1) == fmaf(x, x, 2.5f));
        CHECK(f32_at(sim, ACC_SP_R, pe, 24, 0) == (x < 2.5f ? x : 2.5f));
        /* Masked: only PEs below 2.5 wrote; the rest keep 0. */
        CHECK(f32_at(sim, ACC_SP_R, pe, 32, 0) ==
              (x < 2.5f ? x - 2.5f : 0.0f));
        uint64_t *h = acc_sim_word(sim, ACC_SP_LM0, 0, pe, 0);
        CHECK(h && (uint16_t)*h == tl_f32_to_f16(x));
        CHECK(f32_at(sim, ACC_SP_R, pe, 40, 0) == (float)exp(2.5));
    }
    CHECK(acc_sim_stats(sim)->cycles == 4 * 10);
    acc_sim_free(sim);
    tl_session_free(s);
}

int main(void)
{
    compressed_vs_expanded();
    round_trip();
    matrix_unit();
    arithmetic();
    return check_done();
}
