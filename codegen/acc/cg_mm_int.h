/*
 * cg_mm_int.h - the matmul route's shape (cg_mm.c writes the program,
 * cg_mm_plan.c chooses the shape: the level of the k split, the row
 * chunks, the loads' sizes and where they keep their words).  Only
 * those two files use it.
 */
#ifndef TL_ACC_CG_MM_INT_H
#define TL_ACC_CG_MM_INT_H

#include "codegen/acc/cg_int.h"

typedef struct AccCgMm {
    AccCg g;
    int a, b;               /* operand indices of A and B */
    /* The output loops that make i (A's side) and j (B's), in order;
     * the reduction loops, flattened, make k. */
    int il[TL_MAX_RANK], jl[TL_MAX_RANK], ni, nj, nout;
    int64_t M, N, K;
    int64_t G, Mr, Nc, NM, JT, KT;
    int h;                  /* level of the k split (nbm + 1: all) */
    int64_t kspan, NH, KU, JV, Mc, NMC;
    /* Rows split over R parts, one a node of the top BM level (R = 1:
     * every node computes all rows): part r takes rows r Mp ..
     * (r + 1) Mp - 1 in its chunks, its NHj nodes of level h the j
     * tiles.  A's loads then distribute the parts from DRAM (scope ak,
     * ACC_CG_PARTS) and B's broadcast them (scope bk: the top level),
     * instead of the other way round. */
    int64_t R, Mp, NHj;
    /* Columns split too (Cq = 2, mode bit 7 of plan()): the top nodes
     * form Cq blocks of R consecutive nodes; node c R + r takes rows
     * part r and the JTc j tiles of column part c, so that a DRAM
     * channel whose nodes are in one block moves half of B (one
     * `dma.bcast@{...}` per block, scope bk with column parts) and
     * A's image holds each rows part once per block (cg_mm_img.c). */
    int64_t Cq, JTc;
    int nocols;             /* plan() leaves Cq at 1 */
    /* What the schedule's distributes fix (cg_mm_dist.c): the rows
     * over the top nodes (1) or not (0), -1 free; the level of the k
     * split, 0 free; the first distribute, NULL when none. */
    int fix_parts, fix_h;
    const TlSchedDir *sched_at;
    /* A `layout` of C (cg_mm_dist.c), else NULL: the program then
     * converts the gathered C into it and stores it from there,
     * row-major at o_at (the `.output`); img_omap is C's image as the
     * route gathers it (the omap without the layout). */
    const struct AccLayout *clay;
    TlLoc clay_at;
    int64_t o_at, rm_at, *img_omap;
    /* `layout`s of the operands (by operand index, NULL: none; nolay
     * of them): the operand comes row-major at in_at (its `.input`),
     * is loaded into the layout, stored from it row-major at mid_at
     * and moved from there into the route's image by long words (the
     * image's map kept in lmap); body_at: where the program's text
     * after its declarations begins, where that conversion goes. */
    const struct AccLayout *olay[2];
    TlLoc olay_at[2];
    int64_t in_at[2], mid_at[2], *lmap[2], nlmap[2];
    /* Operand i's image is not made of its row-major long words: its
     * elements move inside long words (cg_mm_lane.c), with scratch
     * from lane_at[i] on. */
    int lane[2];
    int64_t lane_at[2];
    int nolay;
    size_t body_at;
    int ak, bk;
    int64_t Wa, Wb;         /* long words per PE per load */
    int64_t Wb0;            /* the same for B set 0 (b_w) */
    int64_t Wa0;            /* the same for A chunks that load by
                             * themselves (filling the BMs) */
    int64_t nb;             /* loads per B set */
    int64_t a_at, b_at, c_at;   /* DRAM long words */
    /* The inputs' type: f32, or f16/bf16 on the 16 x 16 unit with f32
     * sums.  ew: elements per long word of the images; cn: k values
     * per PE per sub-cycle, cm: sums per PE; tw: long words per PE of
     * one B tile; rw: long words of sums per PE per row. */
    TlDType dt;
    int ew, cn, cm, tw, rw;
    /* B sets double-buffered in lm1: the next one loads under the
     * tiles of this one. */
    int db;
    /* A chunks double-buffered (adb): chunk mc's A in lm<mc % 2>, its
     * B sets from word boff of the other LM; the next chunk's A loads
     * under this chunk's tiles. */
    int adb;
    int64_t boff;
    /* A's loads as runs with two buffers in every BM (acc_cg_emit_load
     * _run), in pieces of half the most a BM takes. */
    int arun;
    /* B sets load as runs too (brun), two buffers in every BM's B
     * region and DMA tags t4, t5: when no A chunk rides in the pairs,
     * the region A's buffers would take is B's second buffer, so that
     * a set's pieces follow each other on the DRAM channels instead of
     * each waiting for the last one's tree transfers. */
    int brun;
    /* All A chunks resident in lm0 (ares: NMC >= 2, each chunk from
     * word 2 mc Mc KU), loaded first; the pairs go j set by j set, the
     * chunks' pairs of one set sharing its B tiles in lm1, so that each
     * B set crosses the DRAM channels once instead of once per chunk.
     * a0: the LM word of the A chunk being computed; keepb: the next B
 * set's load goes on in the next pair's bundles. */
    int ares, keepb;
    int64_t a0;
    /* Every B set resident in lm1 (bres, with adb and the columns
     * split): set v from word boff + 2 v KU tw, loaded once in chunk
     * 0's pairs, the A chunks streaming through the LMs as with adb.
     * An odd chunk's A is in lm1 beside the B sets, so its mwrites take
     * bundles of their own (one port per LM).  A node whose rows take
     * several chunks then moves each B set once, where ares cannot
     * hold all of its A in lm0 (mn2 f16 2048 with the columns split:
     * 512 rows, 4096 long words of A per PE). */
    int bres;
    /* Where each kind of transfer keeps its words in the BM of level
     * j (offa[j], offb[j]; the reductions' from 0), apart so that they
     * can be in flight together (cg_overlap.c's queues). */
    int64_t offa[ACC_MAX_LEVELS + 1], offb[ACC_MAX_LEVELS + 1];
    /* The BMs hold no such regions (small machines): one queue keeps
     * them in order, each load filling the BMs, the next A chunk in
     * shares behind each pair's reduction and B set. */
    int oneq;
    /* B reads through a window (cg_win.c; win: its image is used):
     * each PE's window image stays in lm1 from word 0, pair v's new
     * rows loading in the bundles of pair v - 1 of the first chunk. */
    AccCgWin w;
    int canwin, win;
} AccCgMm;

/* The overlap engine's queues, first served first: the next B set
 * (the next pair waits for it), the last pair's reduction, the next A
 * chunk's run (it has the whole chunk), and the reduction's store when
 * it waits for the B set's last DMA (B's runs). */
enum { Q_B, Q_RED, Q_A, Q_ST };

/* Long words per PE of B set v: a window image's rows new to pair v,
 * or KU tiles. */
int64_t acc_cg_mm_bset(const AccCgMm *x, int64_t v);
/* Long words per PE of one load of B set v. */
int64_t acc_cg_mm_b_w(const AccCgMm *x, int64_t v);
/* Loads of B set v. */
int64_t acc_cg_mm_b_n(const AccCgMm *x, int64_t v);
/* Whether A chunk mc loads in the bundles of the chunk before (or
 * beside a window image's first rows), in BM words of its own. */
int acc_cg_mm_rides(const AccCgMm *x, int64_t mc);
/* Long words per PE of one load of A chunk mc, and its loads. */
int64_t acc_cg_mm_a_w(const AccCgMm *x, int64_t mc);
int64_t acc_cg_mm_a_n(const AccCgMm *x, int64_t mc);
/* PEs of one piece of A's image, of B's. */
int64_t acc_cg_mm_a_pes(const AccCgMm *x);
int64_t acc_cg_mm_b_pes(const AccCgMm *x);
/* Long words of B's image before set v's, of A's before chunk mc's. */
int64_t acc_cg_mm_b_off(const AccCgMm *x, int64_t v);
int64_t acc_cg_mm_a_off(const AccCgMm *x, int64_t mc);
/* The estimate of the chosen shape's program in cycles (its busiest
 * resource per pair: what chose the shape). */
double acc_cg_mm_estimate(const AccCgMm *x);
/* Long words per PE of piece q of a run of `total` in pieces of W. */
int64_t acc_cg_mm_piece(int64_t q, int64_t W, int64_t total);
/* Fills the images of A and B (their maps, cg_mm_img.c) and C's
 * omap. */
void acc_cg_mm_maps(AccCgMm *x);
void acc_cg_mm_omap(AccCgMm *x);
/* Reads the kernel's accel schedule into fix_parts, fix_h and nocols
 * (cg_mm_dist.c): 0, or -1 after reporting. */
int acc_cg_mm_schedule(AccCgMm *x);
/* With a layout of C: sets the output's image row-major at o_at (call
 * after acc_cg_mm_omap, before the program is written) and appends
 * the conversion after it (acc_cg_mm_layout_tail); 0, or -1 after
 * reporting. */
int acc_cg_mm_layout_prep(AccCgMm *x);
void acc_cg_mm_layout_tail(AccCgMm *x);
/* With layouts of the operands: tells whether each image is moved into
 * by long words or element by element (lane) and places the row-major
 * copies and the moves' scratch in DRAM
 * (call after acc_cg_mm_layout_prep; the operands become direct
 * inputs); 0, or -1 after reporting.  acc_cg_mm_input_line writes
 * operand i's `.input`; acc_cg_mm_operand_conv inserts the conversions
 * at body_at. */
int acc_cg_mm_operand_prep(AccCgMm *x);
void acc_cg_mm_input_line(AccCgMm *x, int i, TlBuf *o);
void acc_cg_mm_operand_conv(AccCgMm *x);
/* Element moves of operand i's row-major copy into its image
 * (cg_mm_lane.c): whether the machine and dtype allow them; the DRAM
 * long words of scratch they take from base on; the moves themselves,
 * returning where the finished image is (in the scratch), -1 when a
 * padding value cannot be written. */
int acc_cg_mm_lane_ok(const AccCgMm *x);
int64_t acc_cg_mm_lane_words(const AccCgMm *x, int i, int64_t base);
int64_t acc_cg_mm_lane_emit(AccCgMm *x, int i, TlBuf *o, int64_t base);
/* What the program's conversions are, for --explain. */
const char *acc_cg_mm_conv_what(AccCgMm *x);
/* Chooses the shape (the cheapest by the estimate of the program) and
 * places the images in DRAM: 0, or -1 after reporting. */
int acc_cg_mm_plan(AccCgMm *x);

#endif
