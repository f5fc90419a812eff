/*
 * acc_int.h - what the files of the accelerator backend share and
 * nobody else sees.
 */
#ifndef TL_ACC_INT_H
#define TL_ACC_INT_H

#include "codegen/acc/acc.h"

/* --- acc_isa.c --------------------------------------------------------- */

/* The opcode spelled NAME ("dma.ld"), or -1. */
TL_INTERNAL int acc_op_find(const char *name);

/* The slot an op goes to (float add/sub/mul to the MAU, integer ones
 * to the ALU, transfers of Lk to ACC_SLOT_L + k - 1). */
TL_INTERNAL int acc_op_slot(const AccOp *op);
/* Bits of an element of dt (0 for DT_NONE). */
TL_INTERNAL int acc_dt_bits(TlDType dt);
/* Is dt one of the types the machine has (f64 f32 f16 bf16 i32 i16)? */
TL_INTERNAL int acc_dt_ok(TlDType dt);
/* Lanes of dt in one sub-cycle of an operand of width w. */
TL_INTERNAL int acc_lanes(TlDType dt, int w);
/* The children of one node of BM level k: PEs for k 1, BM nodes of
 * L(k-1) otherwise; and how many nodes the top BM level has. */
TL_INTERNAL int64_t acc_children(const AccMachine *m, int k);
/* The children a node set @{...} of op names (ACCELERATOR.md 4.5):
 * *n of them, each a node of level *what, under one node of level
 * *under (NULL for dma.bcast, whose set names top nodes); -1 when op
 * takes no set. */
TL_INTERNAL int acc_set_children(const AccMachine *m, const AccOp *op,
                                 int64_t *n, const char **what,
                                 const char **under);
/* The BM-side length in long words of a transfer's BM operand (for L1
 * ops, which take no written length) or the written length. */
TL_INTERNAL int64_t acc_xfer_len(const AccMachine *m, const AccOp *op);
/* Words (32-bit) in PE space sp; 0 for other spaces. */
TL_INTERNAL int64_t acc_space_words(const AccMachine *m, int sp);
/* Checks one op against the machine and the program's constants:
 * operand kinds, types, widths, alignment and bounds.  0, or -1 with
 * the reason in why (and *bad the 0-based operand, -1 for the op). */
TL_INTERNAL int acc_check_op(const AccMachine *m, const AccProgram *p,
                             const AccOp *op, TlBuf *why);
/* Checks the ops of one bundle together: one op per slot, nothing
 * written twice, LM single port, one GRF read address, one matrix-unit
 * precision.  0, or which rule failed (1 slot, 2 written twice, 3
 * port, 4 precision) with the reason in why and the offending op
 * (index into ops) in *which. */
TL_INTERNAL int acc_check_bundle(const AccMachine *m, const AccOp *ops,
                                 int n, TlBuf *why, int *which);
/* Writes an operand / an op in assembly syntax. */
TL_INTERNAL void acc_print_opnd(TlBuf *out, const AccProgram *p,
                                const AccOpnd *o);
TL_INTERNAL void acc_print_op(TlBuf *out, const AccProgram *p,
                              const AccOp *op);
/* Names of spaces as written ("lm0", "r", ...). */
TL_INTERNAL const char *acc_space_name(int sp);

/* --- acc_asm.c, acc_asm_block.c (the assembler) ---------------------- */

typedef struct Line {
    const char *text;
    int len;
    TlLoc loc;          /* of the line's first byte */
    int macro;          /* from a macro body: report at loc only */
} Line;

typedef struct Macro {
    char *name;
    int nparams;
    char **params;
    Line *body;
    int nbody;
} Macro;

typedef struct Var {
    const char *name;
    int64_t v;
} Var;

#define MAX_VARS 16
#define MAX_MACRO_DEPTH 16

typedef struct Asm {
    TlSession *s;
    const AccMachine *m;
    int compress;
    AccOp *ops;
    int nops, capops;
    AccBundle *b;
    int nb, capb;
    AccConst *consts;
    int nconsts, capc;
    AccIO *io;
    int nio, capio;
    AccRep *reps;
    int nreps, capreps;
    Macro *macros;
    int nmacros, capmacros;
    Var vars[MAX_VARS];
    int nvars;
    int depth;
    int bundles_seen;
    /* The line being parsed. */
    const Line *ln;
    const char *p;
} Asm;

#define GROW(arr, n, cap)                                                \
    do {                                                                 \
        if ((n) == (cap)) {                                              \
            (cap) = (cap) ? 2 * (cap) : 64;                              \
            (arr) = tl_xrealloc((arr), (size_t)(cap) * sizeof *(arr));   \
        }                                                                \
    } while (0)

TL_INTERNAL int acc_asm_err(Asm *A, const char *at, int len, TlDiagId id,
                            const char *fmt, ...) TL_PRINTF(5, 6);
/* "expected WHAT, found 'X'" at the cursor. */
TL_INTERNAL int acc_asm_expected(Asm *A, const char *what);
TL_INTERNAL void acc_asm_skip_ws(Asm *A);
TL_INTERNAL int acc_asm_at_end(Asm *A);
TL_INTERNAL int acc_asm_accept(Asm *A, char c);
TL_INTERNAL int acc_asm_ident(Asm *A, char *buf, size_t n);
TL_INTERNAL int acc_asm_expr(Asm *A, int64_t *v);
/* A string in acc_asm_quote's form at *p (before end), decoded into
 * out; *p moved past it.  -1 when it is not one. */
TL_INTERNAL int acc_asm_unquote(const char **p, const char *end,
                                TlBuf *out);
TL_INTERNAL int acc_asm_add_const(Asm *A, double f, int64_t i);
/* The `.image` directive after its name (acc_image.c): a run of a
 * tensor declared with an image; 0, or -1 after reporting. */
TL_INTERNAL int acc_asm_image(Asm *A);
/* Parses the line A->ln as a bundle and appends it (0), or reports. */
TL_INTERNAL int acc_asm_bundle(Asm *A);

/* --- acc_sim_exec.c, acc_sim_xfer.c (the simulator's parts) ---------- */

typedef struct AccReady {
    int64_t step;       /* readable from this step on */
    int32_t bundle;     /* the writer */
} AccReady;

/* One slot's results of a step for every PE: 4 sub-cycles x 2 lw. */
typedef struct AccStage {
    uint64_t *v;        /* [npe][4][2] */
    uint8_t *on;        /* [npe][4]: the PE writes in this sub-cycle */
    uint64_t *bmv;      /* BM results: [nodes][bmlen] */
    int64_t bmcap, bmlen;
    /* A down transfer to a node set: node nd is written only when bit
     * nd % bmfan of bmset is (0: every node). */
    uint64_t bmset;
    int64_t bmfan;
    double *mv;         /* mwrite: [ngroup][64][64] */
    int row0, nrows;
} AccStage;

/* A DMA write to DRAM not landed yet. */
typedef struct AccPending {
    int64_t lo, hi, done;   /* long words; cycle */
    int32_t bundle;
} AccPending;

/* The timeline of a run (acc_sim_trace.c): per track, spans of one
 * state in cycles, adjacent equal ones merged.  Totals are kept even
 * past the cap on spans, so they always agree with AccStats. */
enum {
    ACC_TS_BUSY,        /* a unit or link occupied by an op, a channel
                         * moving DMA words, the stream issuing */
    ACC_TS_STALL,       /* waiting to issue: the stream stalled */
    ACC_TS__COUNT
};

typedef struct AccSpan {
    int64_t lo, hi;     /* cycles */
    int state;
} AccSpan;

typedef struct AccTrack {
    AccSpan *v;
    int n, cap;
    int64_t total[ACC_TS__COUNT];   /* cycles */
    int64_t dropped;                /* spans past the cap */
} AccTrack;

typedef struct AccTrace {
    AccTrack stream;                /* the instruction stream */
    AccTrack slot[ACC_SLOT__MAX];
    AccTrack *chan;                 /* [dram_channels] */
    int nchan;
} AccTrace;

/* Adds [lo, hi) cycles in state to t (nothing when empty). */
TL_INTERNAL void acc_trace_add(AccTrack *t, int64_t lo, int64_t hi,
                               int state);
TL_INTERNAL void acc_trace_free(AccTrace *tr);

/* The issue state the simulator and the timer share (acc_issue.c):
 * the rules by which a bundle issues and DMA occupies the channels. */
typedef struct AccIssue {
    int64_t slot_free[ACC_SLOT__MAX];   /* first step a slot is free */
    int64_t next_dma_step;
    int64_t chan_free[1024];            /* by DRAM channel, cycles */
    int64_t tag_done[256];              /* cycle a tag's DMAs are all done */
} AccIssue;

/* The step a bundle of ops[0..n) issues at, reached at step s: the
 * latest of s, its slots free (*busy), the DMA issue interval (*dma)
 * and its waits' tags landed (*wait). */
TL_INTERNAL int64_t acc_issue_step(const AccIssue *q, const AccMachine *m,
                                   int64_t s, const AccOp *ops, int n,
                                   int64_t *busy, int64_t *dma,
                                   int64_t *wait);
/* Op issued at step s holds its slot occ steps (and a DMA op the DMA
 * issue interval). */
TL_INTERNAL void acc_issue_op(AccIssue *q, const AccMachine *m,
                              const AccOp *op, int64_t s, int64_t occ);
/* DMA op's long words vol[ch] (acc_dma_volumes) on the channels from
 * cycle cyc: the cycle its last word lands (its tag's done cycle
 * raised to it); each channel's busy span in start[ch], len[ch] when
 * start is not NULL; the words added to *words. */
TL_INTERNAL int64_t acc_issue_dma(AccIssue *q, const AccMachine *m,
                                  const AccOp *op, const int64_t *vol,
                                  int64_t cyc, int64_t *start,
                                  int64_t *len, int64_t *words);

struct AccSim {
    TlSession *s;
    const AccMachine *m;
    const AccProgram *p;
    int strict;
    int64_t npe, ngroup, gsize;     /* PEs, matrix groups, PEs per group */
    int nbm;                         /* BM levels */
    uint64_t *lm[2], *grf[2], *t;    /* [npe][words/2] */
    int64_t lmlw, grflw;             /* long words per bank */
    uint16_t *mask;                  /* [npe][mask_entries] */
    double *mreg;                    /* [ngroup][2][64][64] */
    uint64_t *fwd[3];                /* [npe][4][2]: aluf, mauf, lbf */
    int64_t fwd_step[3];             /* step the value was made (-9: none) */
    uint8_t fwd_dt[3];
    uint64_t *bm[ACC_MAX_LEVELS + 1];   /* by k: [nodes][bm_words] */
    int64_t bm_nodes[ACC_MAX_LEVELS + 1];
    uint8_t **dram;                  /* pages, allocated on first write */
    int64_t dram_pages;
    /* Hazards: per address, uniform over PEs (writes are). */
    AccReady *rd_lm[2], *rd_grf[2], *rd_t, *rd_mask, *rd_mreg;
    AccReady *rd_bm[ACC_MAX_LEVELS + 1];
    /* Timing. */
    int64_t step;                    /* the step being issued */
    AccIssue q;                      /* slots, DMA issue, channels, tags */
    int32_t cur_b;                   /* bundle index being run */
    AccPending *pending;
    int npending, cappending;
    AccStats st;
    AccStage stage[ACC_SLOT__MAX];
    uint64_t *opv[ACC_MAX_SRC];      /* sources loaded: [npe][4][2] */
    int failed;
    AccTrace *trace;                 /* NULL unless acc_sim_trace */
};

TL_INTERNAL void acc_exec_pe(AccSim *sim, const AccOp *op, AccStage *st);
TL_INTERNAL void acc_exec_mau(AccSim *sim, const AccOp *op, AccStage *st);
TL_INTERNAL void acc_exec_xfer(AccSim *sim, const AccOp *op, AccStage *st);
TL_INTERNAL void acc_exec_dma(AccSim *sim, const AccOp *op);
/* Occupancy in steps of a transfer op. */
TL_INTERNAL int64_t acc_xfer_steps(const AccMachine *m, const AccOp *op);
/* Occupancy in steps of any op (its slot is busy that long). */
TL_INTERNAL int64_t acc_op_steps(const AccMachine *m, const AccOp *op);
/* The long words DMA op moves on each DRAM channel (vol[1024], by
 * channel); 1 when it writes DRAM, 0 when it reads. */
TL_INTERNAL int acc_dma_volumes(const AccMachine *m, const AccOp *op,
                                int64_t *vol);
/* Reads PE operand o of op for PE pe, sub-cycle c, into v[2]
 * (immediates and ids replicated in op's type); hazards are checked
 * before. */
TL_INTERNAL void acc_read_pe(AccSim *sim, const AccOp *op,
                             const AccOpnd *o, int64_t pe, int c,
                             uint64_t v[2]);
/* Loads PE operand o of op for every PE and sub-cycle into buf
 * ([npe][4][2]; the second long word 0 for a long word operand). */
TL_INTERNAL void acc_load_opnd(AccSim *sim, const AccOp *op,
                               const AccOpnd *o, uint64_t *buf);
/* Adds executed and useful FLOPs of op (useful: lanes its first
 * destination's mask lets through). */
TL_INTERNAL void acc_count_flops(AccSim *sim, const AccOp *op,
                                 double flops, TlDType dt);
/* Word address of a stride/flat operand at sub-cycle c. */
TL_INTERNAL int64_t acc_opnd_addr(const AccSim *sim, const AccOpnd *o,
                                  int c);
/* Commits the staged results of op to its destinations. */
TL_INTERNAL void acc_commit(AccSim *sim, const AccOp *op, AccStage *st,
                            int64_t lat);
/* Checks reading [lo, hi) of a ready table: 0 when ready; an early
 * read is -1 after a diagnostic (strict) or 1 after counting it. */
TL_INTERNAL int acc_check_ready(AccSim *sim, AccReady *r, int64_t lo,
                                int64_t hi, const char *what);
TL_INTERNAL void acc_mark_ready(AccSim *sim, AccReady *r, int64_t lo,
                                int64_t hi, int64_t step);
TL_INTERNAL uint8_t *acc_dram_at(AccSim *sim, int64_t lw, int write);
TL_INTERNAL AccReady *acc_ready_of(AccSim *sim, int sp, int k);
/* Latency of writing space sp (steps). */
TL_INTERNAL int64_t acc_lat(const AccSim *sim, int sp);

#endif
