/*
 * acc.h - the public interface of the accelerator backend (TAM, the
 * tdsl accelerator model of ACCELERATOR.md): machine configurations,
 * the instruction set, the assembler and disassembler, the binary
 * .tam format and the simulator.
 *
 * Prefix acc_, types Acc....  Everything a compilation builds lives in
 * the session's arena; the simulator's state (memories sized by the
 * machine) is heap memory with its own acc_sim_free.
 */
#ifndef TL_ACC_H
#define TL_ACC_H

#include "lang/lang.h"

/* ====================================================================
 * Machine configurations (codegen/acc/acc_machine.c)
 *
 * A machine is a tree.  The root is implicit and owns DRAM; below it
 * come nlevels levels, outermost first, the last always "PE".  Level i
 * has `fanout` nodes under each node of level i-1 (the root for i 0).
 * A level with bm_words > 0 has a software-managed broadcast memory
 * (BM) per node.  The BM levels are numbered from the bottom up: "L1"
 * is the lowest level with a BM, "L2" the next one, and so on; the
 * transfers of an Lk slot move data between the BM of level Lk and
 * its children, which are the BMs of L(k-1), or the PEs for L1.  The
 * level just above the PE ("MAB" in the built-in machines) groups PEs
 * that share one matrix unit and may rotate data among themselves.
 *
 * Nothing here, nor in the code that uses it, assumes four levels.
 *
 * Rates are per node and per cycle, in long words (lw, 64 bits); a
 * BM-side rate limits what one BM reads or writes per cycle, a
 * child-side rate what each child receives or sends.  Latencies are in
 * steps (one step = step_cycles cycles, one bundle).
 * ==================================================================== */

#define ACC_MAX_LEVELS 8

/* Transfer kinds, used to index the rates of a level. */
typedef enum {
    ACC_XK_BCAST,    /* down: the same data to every child */
    ACC_XK_DIST,     /* down: a slice to each child */
    ACC_XK_RED,      /* up: children combined elementwise (and ucast) */
    ACC_XK_GATHER,   /* up: children concatenated */
    ACC_XK__COUNT
} AccXferKind;

typedef struct AccLevel {
    const char *name;       /* "L2B", "L1B", "MAB", "PE", ... */
    int fanout;             /* nodes under one node of the level above */
    int64_t bm_words;       /* per node, long words; 0 = no BM */
    /* Only meaningful when bm_words > 0: */
    double bw_bm[ACC_XK__COUNT];    /* lw/cycle at the BM */
    double bw_child[ACC_XK__COUNT]; /* lw/cycle at each child */
    int lat_steps;          /* write to readable at the destination */
} AccLevel;

typedef struct AccMachine {
    const char *name;
    int nlevels;
    AccLevel level[ACC_MAX_LEVELS];  /* outermost first, last is "PE" */
    int64_t dram_words;     /* long words of DRAM */
    int64_t lm_words;       /* per LM bank (lm0, lm1), long words */
    int64_t grf_words;      /* per GRF bank (r, s), long words */
    int t_words;            /* T register, long words */
    int mask_entries;       /* m0..m(n-1); m0 is all ones */
    int step_cycles;        /* sub-cycles per step (4) */
    int dram_channels;      /* top-level nodes share them in blocks */
    double dram_bw;         /* lw/cycle per channel */
    int dma_latency;        /* cycles before the first word lands */
    int dma_issue_steps;    /* a DMA op at most once per this many steps */
    double clock_hz;        /* only for printing seconds */
    /* Write-to-read latencies in steps (ACCELERATOR.md 4.1, 5.1). */
    int lat_grf, lat_lm, lat_mreg, lat_mau_lm, lat_long;
    int long_op_steps;      /* exp/log occupancy (extension) */
    /* Matrix unit: matvec shape per sub-cycle (rows m x columns n). */
    int mau_m_f64, mau_n_f64, mau_m_f32, mau_n_f32, mau_m_f16, mau_n_f16;
} AccMachine;

/* The built-in machines "tiny" (16 PEs), "test" (64) and "mn2" (4096);
 * NULL for any other name. */
const AccMachine *acc_machine_builtin(const char *name);

/* Reads a machine file (format in docs/accel-asm.md, "Machine files"):
 * lines `key = value`, `#` comments, `base = NAME` first to start from a
 * built-in, `level = NAME FANOUT [BM_WORDS]` once per level outermost
 * first (replacing the base's levels), `NAME.key = value` for a level's
 * rates.  The result lives in s's arena.  Returns NULL with
 * "path:line: message" in err (no newline) when the file cannot be
 * read or is wrong. */
AccMachine *acc_machine_load(TlSession *s, const char *path, TlBuf *err);

/* A built-in name or a file path ("tiny", "./my.mach"): what a --machine
 * option takes.  NULL with the reason in err. */
const AccMachine *acc_machine_get(TlSession *s, const char *spec,
                                  TlBuf *err);

/* Number of PEs: the product of all fan-outs. */
int64_t acc_machine_pes(const AccMachine *m);
/* Number of nodes of level i in the whole machine. */
int64_t acc_level_nodes(const AccMachine *m, int i);
/* Index of the level named NAME ("L1B"), or of "Lk" (the k-th BM level
 * from the bottom); -1 if none. */
int acc_level_index(const AccMachine *m, const char *name);
/* Number of BM levels, and the level index of BM level k (1-based:
 * k 1 is "L1"); -1 when k is out of range. */
int acc_bm_levels(const AccMachine *m);
int acc_bm_level(const AccMachine *m, int k);
/* PEs under one node of level i (1 for the PE level). */
int64_t acc_level_span(const AccMachine *m, int i);
/* Peak FLOPs per cycle of the whole machine's matrix units for dt
 * (f16/bf16, f32, f64); 0 for other types. */
double acc_peak_flops(const AccMachine *m, TlDType dt);
/* Writes the machine in the file format (a file that reloads to an
 * equal machine). */
void acc_machine_print(TlBuf *out, const AccMachine *m);
/* A 64-bit hash of everything but the name: binaries record it and
 * refuse to run on another machine. */
uint64_t acc_machine_hash(const AccMachine *m);

/* end of machine section */

/* ====================================================================
 * Instruction set (codegen/acc/acc_isa.c; the assembly language is
 * documented in docs/accel-asm.md)
 *
 * A program is a list of bundles; a bundle is one step and holds at
 * most one op per slot.  The L slots are one per BM level: slot
 * ACC_SLOT_L + k - 1 holds the transfers of level Lk.
 *
 * TODO(issue 6): the bundle-wide default mask (`mask mK`, ACCELERATOR.md
 * 4.6) and the dbg.get/dbg.set pseudo-ops (4.7) are not here yet.
 * ==================================================================== */

typedef enum {
    ACC_SLOT_ALU, ACC_SLOT_MAU, ACC_SLOT_MW, ACC_SLOT_DMA, ACC_SLOT_CTL,
    ACC_SLOT_L,
    ACC_SLOT__MAX = ACC_SLOT_L + ACC_MAX_LEVELS
} AccSlot;

/* X(ID, spelling, kind): every opcode.  Kinds (AccOpKind) say which
 * operands an op has and which slot it goes to. */
#define ACC_OPS(X)                                                       \
    X(ADD, "add", ACC_K_BIN) X(SUB, "sub", ACC_K_BIN)                    \
    X(MUL, "mul", ACC_K_BIN) X(MAX, "max", ACC_K_BIN)                    \
    X(MIN, "min", ACC_K_BIN) X(AND, "and", ACC_K_BIN)                    \
    X(OR, "or", ACC_K_BIN) X(XOR, "xor", ACC_K_BIN)                      \
    X(SHL, "shl", ACC_K_BIN) X(SHR, "shr", ACC_K_BIN)                    \
    X(FMA, "fma", ACC_K_FMA)                                             \
    X(RELU, "relu", ACC_K_UN) X(NEG, "neg", ACC_K_UN)                    \
    X(RSQRT, "rsqrt", ACC_K_UN) X(RECIP, "recip", ACC_K_UN)              \
    X(EXP, "exp", ACC_K_UN) X(LOG, "log", ACC_K_UN)                      \
    X(CMPLT, "cmplt", ACC_K_CMP) X(CMPLE, "cmple", ACC_K_CMP)            \
    X(CMPEQ, "cmpeq", ACC_K_CMP)                                         \
    X(SEL, "sel", ACC_K_SEL) X(CVT, "cvt", ACC_K_CVT)                    \
    X(MOV, "mov", ACC_K_MOV) X(ZERO, "zero", ACC_K_ZERO)                 \
    X(MSL, "msl", ACC_K_ROT) X(MSR, "msr", ACC_K_ROT)                    \
    X(MFMA, "mfma", ACC_K_MFMA) X(MMUL, "mmul", ACC_K_MFMA)              \
    X(MWRITE, "mwrite", ACC_K_MWRITE) X(MREAD, "mread", ACC_K_MREAD)     \
    X(BCAST, "bcast", ACC_K_XDOWN) X(DIST, "dist", ACC_K_XDOWN)          \
    X(MBCAST, "mbcast", ACC_K_XDOWN) X(GATHER, "gather", ACC_K_XUP)      \
    X(UCAST, "ucast", ACC_K_XUP) X(REDADD, "redadd", ACC_K_XUP)          \
    X(REDMAX, "redmax", ACC_K_XUP) X(REDMIN, "redmin", ACC_K_XUP)        \
    X(DLD, "dma.ld", ACC_K_DMA) X(DST, "dma.st", ACC_K_DMA)              \
    X(DBCAST, "dma.bcast", ACC_K_DMA) X(DDIST, "dma.dist", ACC_K_DMA)    \
    X(DGATHER, "dma.gather", ACC_K_DMA)                                  \
    X(DREDADD, "dma.redadd", ACC_K_DMA)                                  \
    X(DREDMAX, "dma.redmax", ACC_K_DMA)                                  \
    X(DREDMIN, "dma.redmin", ACC_K_DMA)                                  \
    X(NOP, "nop", ACC_K_CTL) X(WAIT, "wait", ACC_K_CTL)                  \
    X(NOFORWARD, "noforward", ACC_K_CTL) X(HALT, "halt", ACC_K_CTL)

typedef enum {
    ACC_K_BIN, ACC_K_FMA, ACC_K_UN, ACC_K_CMP, ACC_K_SEL, ACC_K_CVT,
    ACC_K_MOV, ACC_K_ZERO, ACC_K_ROT, ACC_K_MFMA, ACC_K_MWRITE,
    ACC_K_MREAD, ACC_K_XDOWN, ACC_K_XUP, ACC_K_DMA, ACC_K_CTL
} AccOpKind;

typedef enum {
#define X(id, sp, k) ACC_OP_##id,
    ACC_OPS(X)
#undef X
    ACC_OP__COUNT
} AccOpcode;

/* Where an operand lives. */
typedef enum {
    ACC_SP_NONE,
    ACC_SP_LM0, ACC_SP_LM1, ACC_SP_R, ACC_SP_S, ACC_SP_T,  /* per PE */
    ACC_SP_ALUF, ACC_SP_MAUF, ACC_SP_LBF,   /* forwarding, read only */
    ACC_SP_IMM,     /* #value: addr indexes the constant table */
    ACC_SP_ID,      /* $name: k is the level index, ACC_ID_SUB or
                     * ACC_ID_GPE */
    ACC_SP_MASK,    /* mK: addr is K */
    ACC_SP_MREG,    /* x or y (k 0 or 1), addr the first row */
    ACC_SP_BM,      /* BM of level Lk (k), addr in long words */
    ACC_SP_DRAM,    /* addr in long words */
    ACC_SP__COUNT
} AccSpace;

enum { ACC_ID_SUB = 100, ACC_ID_GPE = 101 };

/* Addressing of PE storage (LM, GRF, T). */
typedef enum {
    ACC_MODE_STRIDE,    /* sub-cycle c: addr + c * stride (words) */
    ACC_MODE_FLAT,      /* sub-cycle c: const[addr + c] */
    ACC_MODE_INDIRECT   /* sub-cycle c: T[c] of the PE (lm0 only) */
} AccMode;

typedef struct AccOpnd {
    uint8_t space;      /* AccSpace */
    uint8_t width;      /* long words per sub-cycle: 1 (lw) or 2 (dlw) */
    uint8_t mode;       /* AccMode */
    uint8_t mask;       /* write mask of a destination (0: all) */
    uint8_t k;          /* BM level, id kind, matrix register */
    int32_t addr;       /* words (PE storage), long words (BM, DRAM) */
    int32_t stride;     /* ACC_MODE_STRIDE: words per sub-cycle;
                         * BM/DRAM: length in long words (0: implied) */
} AccOpnd;

#define ACC_MAX_SRC 3
#define ACC_MAX_DST 2

typedef struct AccOp {
    uint8_t opc;        /* AccOpcode */
    uint8_t slot;       /* AccSlot */
    uint8_t dt, dt2;    /* TlDType; dt2: cvt's source type */
    uint8_t level;      /* transfers: k of Lk */
    uint8_t nsrc, ndst;
    uint8_t tag;        /* DMA op and wait: the tag */
    int16_t child;      /* ucast@i, dma.ld@i ...: the child; -1 none */
    uint16_t nsteps;    /* nop/n */
    uint64_t set;       /* dma.bcast@{i,j,...}: bit i for top node i;
                         * a down transfer's: bit i for child i of
                         * each node (acc_set_children); 0: all */
    AccOpnd src[ACC_MAX_SRC];
    AccOpnd dst[ACC_MAX_DST];
    int col;            /* source column of the op (0 if none) */
} AccOp;

typedef struct AccBundle {
    int first, nops;    /* ops[first .. first+nops) */
    TlLoc loc;          /* the source line (file -1 from a binary) */
} AccBundle;

/* A constant: an immediate (double and its integer reading) or a flat
 * address. */
typedef struct AccConst {
    double f;
    int64_t i;
} AccConst;

/* A run of a tensor's DRAM image (`.image`, codegen/acc/acc_image.c):
 * reps * count positions, the next ones of the image; position
 * r * count + i of the run holds element from + r*rstep + i*step of
 * the tensor (row-major index), or, when from < 0, the constant v (on
 * an output: a position that holds no element). */
typedef struct AccImgRun {
    int64_t from, step, count, reps, rstep;
    double v;
} AccImgRun;

/* A tensor the program reads or writes in DRAM from long word `addr`
 * (`.input A f32[64,64] d[0]`): packed row-major, or, with an image
 * (`.input A f32[64,64] d[0] image 8192` and its `.image` runs), as
 * nimg elements in the image's order, which whoever loads the input
 * lays out (acc_sim_set_input) and whoever reads the output takes
 * apart (acc_sim_get_output): the layout the consuming code reads, or
 * the producing code writes, done by the host, outside the count. */
typedef struct AccIO {
    const char *name;
    int is_output;
    TlDType dt;
    int rank;
    int64_t shape[TL_MAX_RANK];
    int64_t addr;
    TlLoc loc;
    /* `.assert hash(NAME) == hash` (an input): the program is for that
     * data only; msg (or NULL) is what `tdsl sim` says of other data. */
    int has_hash;
    int64_t hash;
    const char *msg;
    int64_t nimg;       /* elements of its image; 0: row-major */
    AccImgRun *img;
    int nimgruns;
} AccIO;

/* Element index or constant of each image position (elem[d] >= 0, or
 * < 0 with the constant in val[d]) as runs: *runs malloc'd, their
 * count returned. */
int acc_img_runs(const int64_t *elem, const double *val, int64_t n,
                 AccImgRun **runs);
/* The `.image NAME ...` lines of runs. */
void acc_img_print(TlBuf *out, const char *name, const AccImgRun *r,
                   int n);
/* Whether io's runs fill its image and name its elements only (an
 * output's: every element at least once): 0, else -1 with why. */
int acc_img_check(const AccIO *io, TlBuf *why);
/* Element e of a row-major tensor at src (io's dtype) to its image
 * at dst (io->nimg elements), constants stored in the dtype. */
void acc_img_lay(const AccIO *io, const void *src, void *dst);
/* The image at src back to the row-major tensor at dst (an element
 * at its first position). */
void acc_img_unlay(const AccIO *io, const void *src, void *dst);

/* A compressed repetition: bundles [first, first+n) run count times;
 * at iteration j every operand address is its assembled value plus
 * j * inc[...] (one int32 per operand of each op of the range, in the
 * order src[0..ACC_MAX_SRC), dst[0..ACC_MAX_DST)). */
typedef struct AccRep {
    int first, n;
    int64_t count;
    int32_t *inc;
} AccRep;

typedef struct AccProgram {
    const AccMachine *m;
    AccOp *ops;
    int nops;
    AccBundle *b;
    int nb;
    AccConst *consts;
    int nconsts;
    AccIO *io;
    int nio;
    AccRep *reps;       /* sorted, disjoint; none in an expanded one */
    int nreps;
} AccProgram;

const char *acc_op_name(AccOpcode op);
AccOpKind acc_op_kind(AccOpcode op);
const char *acc_slot_name(const AccMachine *m, int slot, char *buf,
                          size_t n);

/* Assembles the source file `file` of session s (tl_add_file) for
 * machine m (NULL: the file's `.machine` line, else "test").  Errors
 * go through diag_error; returns NULL when there were any.  With
 * `compress`, innermost `.rep` blocks whose addresses step linearly are
 * kept as AccRep records; otherwise everything is expanded. */
AccProgram *acc_assemble(TlSession *s, int file, const AccMachine *m,
                         int compress);
/* The fully expanded program (p itself when it has no AccRep). */
AccProgram *acc_expand(TlSession *s, const AccProgram *p);
/* Writes assembly that acc_assemble reads back to the same program
 * (expanded programs print one line per bundle). */
void acc_disasm(TlBuf *out, const AccProgram *p);
/* str as an assembler string: in double quotes, `"` and `\` escaped
 * with `\`, and bytes outside printable ASCII and `#` (which would
 * start a comment) as \xHH. */
void acc_asm_quote(TlBuf *out, const char *str);

/* The .tam binary (format in docs/accel-asm.md).  acc_write_tam
 * expands reps first.  acc_read_tam checks every byte and every op
 * against the machine named by spec... (m may be NULL: the machine the
 * file names must then be a built-in); NULL with the reason in err. */
void acc_write_tam(TlBuf *out, TlSession *s, const AccProgram *p);
AccProgram *acc_read_tam(TlSession *s, const void *data, size_t len,
                         const AccMachine *m, TlBuf *err);

/* end of instruction set section */

/* ====================================================================
 * Simulator (codegen/acc/acc_sim*.c)
 * ==================================================================== */

typedef struct AccSim AccSim;

typedef struct AccStats {
    int64_t cycles, steps, bundles, stall_steps;
    int64_t wait_stalls, busy_stalls, dma_stalls; /* steps, by cause */
    double flops_exec[DT__COUNT];    /* executed, by dtype */
    double flops_useful[DT__COUNT];  /* masked-off lanes excluded */
    int64_t busy[ACC_SLOT__MAX];     /* steps each slot was occupied */
    int64_t link_words[ACC_MAX_LEVELS][2]; /* per BM level k (index
                                     * k-1): lw moved down [0], up [1] */
    int64_t dram_words[2];           /* lw read [0], written [1] */
    int64_t hazards;                 /* lenient mode: early reads */
} AccStats;

/* What acc_sim_run would count for p, without its data (acc_time.c):
 * the stream's timing does not depend on the values, so cycles and
 * steps are the simulator's exactly. */
typedef struct AccTiming {
    int64_t cycles, steps, bundles, stall_steps, wait_stalls;
    int64_t busy[ACC_SLOT__MAX];    /* steps each slot was occupied */
    int64_t dram_words[2];          /* lw read [0], written [1] */
    int64_t dma_ops;
} AccTiming;
void acc_time_program(const AccProgram *p, AccTiming *out);

/* A simulator for p on p->m; strict: an early read is an error. */
AccSim *acc_sim_new(TlSession *s, const AccProgram *p, int strict);
void acc_sim_free(AccSim *sim);
/* Copies a tensor into DRAM at the place its `.input` names (dtype
 * and shape must match; message in err otherwise). */
int acc_sim_set_input(AccSim *sim, const char *name, const TlTensor *t,
                      TlBuf *err);
/* Runs to the end; 0, or -1 after a diagnostic (hazard in strict mode,
 * an address out of range through T). */
int acc_sim_run(AccSim *sim);
/* A new tensor holding an `.output` (or `.input`) read from DRAM. */
TlTensor *acc_sim_get_output(AccSim *sim, const char *name, TlBuf *err);
const AccStats *acc_sim_stats(const AccSim *sim);
/* Prints the statistics: cycles, time, FLOPs, utilization of the
 * dominant dtype, busy fraction per slot, words per link. */
void acc_sim_print_stats(TlBuf *out, const AccSim *sim);
/* The same of statistics st of a run on m (no hazard line); sum += st,
 * for programs run one after another (the segments of a kernel). */
void acc_stats_print(TlBuf *out, const AccMachine *m, const AccStats *st);
void acc_stats_add(AccStats *sum, const AccStats *st);
/* Records a timeline of the run for acc_sim_trace_svg (call before
 * acc_sim_run; costs a few spans per bundle). */
void acc_sim_trace(AccSim *sim);
/* The timeline as an SVG picture: a row for the instruction stream,
 * each unit and link (slot) and each DRAM channel, coloured busy,
 * stalled or idle over the run's cycles, with each row's totals (as
 * text and as data-busy / data-stalled attributes in cycles; they
 * agree with acc_sim_print_stats). */
void acc_sim_trace_svg(TlBuf *out, const AccSim *sim);
/* A hash of the whole machine state (memories, registers, masks), to
 * compare two runs. */
uint64_t acc_sim_state_hash(const AccSim *sim);
/* Raw access for tests: long word `addr` of PE pe's space sp (LM0,
 * LM1, R, S in words as in assembly; BM level k node in long words),
 * or DRAM.  NULL when out of range. */
uint64_t *acc_sim_word(AccSim *sim, AccSpace sp, int k, int64_t node,
                       int64_t addr);

/* end of simulator section */

#endif
