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

#endif
