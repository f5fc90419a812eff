/*
 * test_layout.c - unit tests of accelerator layouts
 * (codegen/acc/layout*.c): the text forms and their canonical print,
 * the checks with their messages, element <-> place both ways for
 * every element and copy, and the conversion cost of the worked
 * example of ACCELERATOR.md 6.2 on mn2 (printed, and checked against
 * the document's figures within a margin).
 */
#include "codegen/acc/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static TlSession *S;
static char *diag_text;
static size_t diag_len;

static void new_session(void)
{
    if (S) {
        fclose(S->diag_out);
        free(diag_text);
        tl_session_free(S);
    }
    S = tl_session_new();
    diag_text = NULL;
    S->diag_out = open_memstream(&diag_text, &diag_len);
    S->color = 0;
}

static const char *diags(void)
{
    fflush(S->diag_out);
    return diag_text ? diag_text : "";
}

static AccLayout *lay(const char *mach, TlDType dt, const char *text)
{
    AccLayoutReq r;
    memset(&r, 0, sizeof r);
    r.m = acc_machine_builtin(mach);
    r.dtype = dt;
    r.where.file = -1;
    return acc_layout_from_text(S, "--layout", text, &r);
}

static const char *canon(const AccLayout *L)
{
    static char out[512];
    TlBuf b;
    buf_init(&b);
    acc_layout_print(&b, L);
    snprintf(out, sizeof out, "%s", b.s);
    buf_free(&b);
    return out;
}

/* Prints and reparses: the canonical text means the same layout. */
static void round_trip(const char *mach, const char *text, const char *want)
{
    AccLayout *L, *L2;
    char first[512];

    new_session();
    L = lay(mach, DT_F32, text);
    CHECK(L != NULL);
    if (!L) {
        fprintf(stderr, "%s", diags());
        return;
    }
    snprintf(first, sizeof first, "%s", canon(L));
    CHECK_STR(first, want);
    L2 = lay(mach, DT_F32, first);
    CHECK(L2 != NULL);
    if (L2)
        CHECK_STR(canon(L2), first);
}

/* Every copy of every element is found again at its place, and the
 * places are all different. */
static void both_ways(const char *mach, TlDType dt, const char *text)
{
    AccLayout *L;
    int bad = 0;

    new_session();
    L = lay(mach, dt, text);
    CHECK(L != NULL);
    if (!L)
        return;
    for (int64_t e = 0; e < L->nelems && bad < 5; e++)
        for (int64_t k = 0; k < L->ncopies; k++) {
            AccLoc loc;
            int64_t cp = -1, back;
            acc_layout_locate(L, e, k, &loc);
            back = acc_layout_element(L, &loc, &cp);
            if (back != e || cp != k) {
                fprintf(stderr, "%s: element %lld copy %lld came back as "
                        "%lld copy %lld\n", text, (long long)e,
                        (long long)k, (long long)back, (long long)cp);
                bad++;
                check_failed();
            }
        }
}

static void refused(const char *mach, TlDType dt, const char *text,
                    const char *msg)
{
    new_session();
    CHECK(lay(mach, dt, text) == NULL);
    if (!strstr(diags(), msg)) {
        fprintf(stderr, "for %s\nwanted: %s\ngot: %s\n", text, msg, diags());
        check_failed();
    }
}

static void test_forms(void)
{
    /* ACCELERATOR.md 6.1's example on test (whose columns are 32: the
     * document's 64 does not match its factors). */
    round_trip("test",
               "lm0[0:32], (128,32)/((2_L2B, 2_L1B, 32:1), "
               "(4_MAB, 4_PE, 2_W))",
               "lm0[0:32], (128,32)/((2_L2B:1, 2_L1B:1, 32:1), "
               "(4_MAB:1, 4_PE:1, 2_W:1))");
    /* MN-Core's mat_sub layout, with its stride-2 addresses. */
    round_trip("mn2",
               "$lm[0:16], (256,16)/((8_L2B:1, 4:2, 8_L1B:1), "
               "(2:1, 4_PE:1, 2_W:1)); B@[MAB]",
               "lm0[0:16], (256,16)/((8_L2B:1, 4:2, 8_L1B:1), "
               "(2:1, 4_PE:1, 2_W:1)); B@[MAB]");
    /* Compact: the levels' fan-outs, the rest innermost addresses. */
    round_trip("test", "(128,64)/[i@L2B, j@L1B, i@PE, j@W]",
               "lm0[0:256], (128,64)/((2_L2B:1, 4_PE:1, 16:16), "
               "(2_L1B:1, 2_W:1, 16:1))");
    /* A level split over two axes, the shape taken from the factors. */
    round_trip("mn2", "((8_MAB:2, 4:1), (2_MAB:1, 4_PE, 2_W))",
               "lm0[0:4], (32,16)/((8_MAB:2, 4:1), (2_MAB:1, 4_PE:1, "
               "2_W:1))");
    round_trip("test", "lb[16:48], (64)/((2_L2B, 32))",
               "lb[16:48], (64)/((2_L2B:1, 32:1))");
}

static void test_meaning(void)
{
    AccLoc loc;
    AccLayout *L;
    int64_t idx[2] = {37, 9}, cp;

    new_session();
    L = lay("test", DT_F32, "lm0[4:36], (128,32)/((2_L2B, 2_L1B, 32:1), "
                            "(4_MAB, 4_PE, 2_W))");
    CHECK(L != NULL);
    if (!L)
        return;
    /* (37, 9): row 37 = L2B 0, L1B 1, address 5; column 9 = MAB 1,
     * PE 0, word 1. */
    acc_layout_locate_idx(L, idx, 0, &loc);
    CHECK(loc.path[0] == 0 && loc.path[1] == 1 && loc.path[2] == 1 &&
          loc.path[3] == 0);
    CHECK(loc.addr == 4 + 5 && loc.word == 1 && loc.space == ACC_LSP_LM0);
    CHECK(acc_loc_node(L->m, &loc, 3) == 1 * 16 + 1 * 4 + 0);
    CHECK(acc_layout_element(L, &loc, &cp) == 37 * 32 + 9 && cp == 0);
    loc.addr = 40;
    CHECK(acc_layout_element(L, &loc, NULL) == -1);

    /* Copies over B@ levels: 4 MABs x 2 L1Bs. */
    L = lay("test", DT_F16, "((2_L2B, 8), (4_PE, 4_W)); B@[L1B, MAB]");
    CHECK(L && L->ncopies == 8);
    if (L) {
        acc_layout_locate(L, 0, 7, &loc);
        CHECK(loc.path[1] == 1 && loc.path[2] == 3);
    }

    both_ways("test", DT_F32, "lm0[0:32], (128,32)/((2_L2B, 2_L1B, 32:1), "
                              "(4_MAB, 4_PE, 2_W))");
    both_ways("mn2", DT_F32, "(256,16)/((8_L2B:1, 4:2, 8_L1B:1), "
                             "(2:1, 4_PE:1, 2_W:1)); B@[MAB]");
    both_ways("test", DT_F16, "((2_L2B, 8), (4_PE, 4_W)); B@[L1B, MAB]");
    both_ways("tiny", DT_F64, "((3:2, 2_PE:2), (2:1, 2_PE:1, 2_MAB))");
    both_ways("test", DT_F32, "lc[0:8], (2,8)/((2_L2B), (4, 2_W))");
}

static void test_errors(void)
{
    refused("test", DT_F32, "((2_L3B, 4))", "machine 'test' has no level "
            "'L3B' (its levels: L2B, L1B, MAB, PE)");
    refused("test", DT_F32, "((8_MAB, 4))",
            "'8_MAB:1' reaches MAB index 7, but machine 'test' has 4 MAB");
    refused("test", DT_F32, "((4_PE:2))", "reaches PE index 6");
    refused("test", DT_F64, "((2_W, 4))",
            "sub-words reach index 1, but a long word holds 1 f64 elements");
    refused("test", DT_F32, "((2_PE:1, 2_PE:1))",
            "elements (1) and (2) both land on L2B 0, L1B 0, MAB 0, PE 1, "
            "lm0 address 0, word 0");
    refused("test", DT_F32, "((4:2, 3:1))", "elements (2) and (3) both "
            "land on L2B 0, L1B 0, MAB 0, PE 0, lm0 address 2");
    refused("test", DT_F32, "(8,8)/((2_L2B, 8), (8))",
            "the factors of axis 'i' multiply to 16, but the axis has 8 "
            "elements");
    refused("test", DT_F32, "lm0[0:8], (4096)/((4096))",
            "the layout reaches address 4095 of 'lm0', which holds 2048");
    refused("test", DT_F32, "lm0[0:8], (16)/((16))",
            "the layout reaches address 15, past the end of its placement "
            "'lm0[0:8]'");
    refused("test", DT_F32, "lb[0:8], (8)/((2_PE, 4))",
            "a tensor in 'lb' cannot be split over 'PE'");
    refused("test", DT_F32, "((2_MAB, 4)); B@[MAB]",
            "'MAB' is both split over and copied over");
    refused("test", DT_F32, "((4)); B@[PE, PE]", "'PE' appears twice");
    refused("test", DT_F32, "(8,8)/[i@L2B, x@PE]", "'x' is not an axis of "
            "the tensor (its axes: i, j)");
    refused("test", DT_F32, "(6,8)/[i@PE]", "axis 'i' has 6 elements, "
            "which 'i@PE' (4 positions) cannot split evenly");
    refused("test", DT_F32, "((2_L2B, 4), (0))", "a layout factor's size "
            "must be at least 1");
    refused("test", DT_F32, "((2_L2B 4))", "expected ',' or ')' after a "
            "factor in a layout; found '4'");
    refused("test", DT_F32, "q0[0:4], ((4))", "unknown memory space 'q0'");
    refused("test", DT_F32, "lm0[4:4], ((4))", "the placement [4:4] holds "
            "no address");
    refused("tiny", DT_F32, "lc[0:4], ((4))", "machine 'tiny' has no level "
            "'L2'");
    /* Where the message points: the factor, as file:line:col. */
    refused("test", DT_F32, "((2_L2B, 4), (8_PE))", "--layout:1:15: error:");
}

/* ACCELERATOR.md 6.2: f32 1024x1024 on mn2, rows over L2B -> columns
 * over L2B (through DRAM), against a permutation among the PEs of each
 * L1B.  The document estimates ~9 k cycles unoverlapped (~7.2 k
 * pipelined) for the first and ~0.25 k for the second. */
static void test_worked_example(void)
{
    const char *rows = "(1024,1024)/((8_L2B, 8_L1B, 16), "
                       "(16_MAB, 4_PE, 8, 2_W))";
    const char *cols = "(1024,1024)/((8_L1B, 16_MAB, 8), "
                       "(8_L2B, 4_PE, 16, 2_W))";
    const char *perm = "(1024,1024)/((8_L2B, 8_L1B, 16_MAB), "
                       "(4_PE, 16, 8, 2_W))";
    AccLayout *R, *C, *P;
    AccConvPlan *root, *l1;
    TlBuf b;

    new_session();
    R = lay("mn2", DT_F32, rows);
    C = lay("mn2", DT_F32, cols);
    P = lay("mn2", DT_F32, perm);
    CHECK(R && C && P);
    if (!R || !C || !P)
        return;
    root = acc_layout_convert_plan(&S->arena, R, C);
    l1 = acc_layout_convert_plan(&S->arena, R, P);
    buf_init(&b);
    buf_puts(&b, "rows over L2B -> columns over L2B (mn2):\n");
    acc_conv_plan_print(&b, root);
    buf_puts(&b, "rows over L2B -> permuted inside each L1B (mn2):\n");
    acc_conv_plan_print(&b, l1);
    fputs(b.s, stdout);
    buf_free(&b);
    /* 7/8 of the elements change L2B: they meet at the root. */
    CHECK(root->by[0] == 1024 * 1024 / 8 * 7);
    CHECK(root->cycles > 8000 && root->cycles < 11000);
    CHECK(root->cycles_overlap > 6500 && root->cycles_overlap < 8500);
    /* No element leaves its L1B. */
    CHECK(l1->by[0] == 0 && l1->by[1] == 0);
    CHECK(l1->cycles > 200 && l1->cycles < 350);
    CHECK(acc_layout_convert_cost(&S->arena, R, R) == 0);
}

int main(void)
{
    test_forms();
    test_meaning();
    test_errors();
    test_worked_example();
    new_session();
    fclose(S->diag_out);
    free(diag_text);
    tl_session_free(S);
    return check_done();
}
