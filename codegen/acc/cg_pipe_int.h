/*
 * cg_pipe_int.h - the pipeline route's data (cg_pipe.c), shared with
 * its layout mode (cg_pipe_lay.c) and its images (cg_pipe_map.c).
 * Only those files use it.
 */
#ifndef TL_ACC_CG_PIPE_INT_H
#define TL_ACC_CG_PIPE_INT_H

#include "codegen/acc/cg_int.h"
#include "codegen/acc/plan.h"

enum { MAX_STAGES = 32, MAX_LETS = 64, STREAMS = 4 };

/* Layout mode: a tensor held in layout L (placed at bank, at) on every
 * PE, in a region of `words` words (a multiple of 8). */
typedef struct Region {
    const AccLayout *L;     /* NULL: none */
    int bank;
    int64_t at, words;
} Region;

typedef struct Tensor {
    const LVar *buf;        /* an allocation, or the output's param */
    int64_t D, C;           /* columns (1: one value per row), chunks */
    int bank;               /* lm0 or lm1 */
    int64_t at;             /* word address of the region */
    int done;               /* a stage has written it */
    /* Layout mode: the tensor, its layout as the stages compute on it
     * (at bank, at) and, when the plan keeps it in another (the
     * user's), that one; the stages reading it (bit i: stage i). */
    const TlFunc *f;
    const char *text;
    Region R, U;
    unsigned readers;
} Tensor;

typedef struct Stage {
    LVar *loops[TL_MAX_RANK];
    int64_t ext[TL_MAX_RANK];
    int nout, nloops;
    int nrow;               /* its first nrow loops run over the rows */
    int64_t D;              /* columns: the product of the other loops */
    AccCgLin store;         /* where it stores */
    const LExpr *f;         /* the value, or the reduction's operand */
    const LExpr *post;      /* reduction: the final store's value */
    const LVar *acc;
    const char *opname, *ident;
    int tensor;
} Stage;

/* An input image: its AccCgIn is p->ins[i] for imgs[i]. */
typedef struct Img {
    int stage, splat;
    int64_t C, D;
    int bank;
    int64_t at;             /* word address in the PE */
    int64_t dram;           /* long word address of its DRAM image */
    /* Layout mode: `own` when the image is the input itself (read at
     * each element's own position), then R its layout at (bank, at)
     * and, when the plan keeps the input in another, U: the runner
     * lays the input out in U and the reading stages convert. */
    int own;
    Region R, U;
    unsigned readers;
    /* Its elements do not depend on the row (gamma[d] of a layernorm):
     * the DRAM image holds one L1B's PEs (L1 x W long words), loaded
     * once, in the first block, and broadcast to every L1B by the tree
     * instead of a copy per row from DRAM. */
    int inv;
} Img;

typedef struct Pipe {
    AccCg g;
    Stage st[MAX_STAGES];
    int nst;
    Tensor ts[MAX_STAGES];
    int nts;
    Img imgs[ACC_CG_MAX_OPERANDS];
    const LVar *letv[MAX_LETS];
    double letval[MAX_LETS];
    int64_t N, P, RB, NB, Wmax;
    /* Rows spread over the MABs of an L1B (split, cg_pipe.c): K PEs,
     * one in each MAB at the same position, hold a row pair, PE j of
     * them its columns j * D / K ..; K = 1: a PE holds whole rows.
     * G: PEs per MAB, L1: PEs under an L1B. */
    int64_t K, G, L1;
    int64_t out_dram;
    /* What is being emitted. */
    int cur, splat, dry;
    int64_t rp, c;
    int64_t A, F1, F2, ID;  /* GRF words: accumulator, folds, identity */
    int64_t accw;           /* where the reduction's result is */
    /* Layout mode (cg_pipe_lay.c): a `layout` in the kernel's accel
     * schedule.  Each long word holds one row (lane 0), rows spread
     * over the levels as rowf says, RB a PE; the program converts
     * where the plan's layouts differ from the stages' (noconv: leaves
     * the conversions out, to measure them). */
    int lay, noconv, nconv;
    const TlSchedInfo *si;
    AccPlan *plan;
    int64_t rowf[ACC_MAX_LEVELS];
    /* The levels in the order the rows are dealt over them, outermost
     * first (a distribute's order); dist: the stages distribute. */
    int roword[ACC_MAX_LEVELS];
    int dist;
    int64_t *rowmap;        /* [P * RB]: the row at (PE, slot), or -1 */
    int64_t scratch, scratch_words; /* DRAM area of the conversions */
    /* Pieces of columns (choose_pieces, cg_pipe.c): pw_in long words a
     * PE a load of image pimg, stage 0 folding each piece as it lands;
     * pw_out a store, the last stage's pieces stored as they are
     * computed (0: whole).  What is being emitted: chunks clo .. chi -
     * 1 of a stage (the folds of a reduction finish with its last). */
    int64_t pw_in, pw_out, clo, chi;
    int pimg;
    /* In pieces of columns, the row-invariant images whose DMAs go out
     * before the pieces' (tag 4), each at its own BM words (ioff), and
     * whose tree transfers ride between the pieces' folds: ninv of
     * them, inv_next the next to move down, npieces the run's. */
    int ninv, inv_next, inv_img[ACC_CG_MAX_OPERANDS];
    int64_t ioff[ACC_CG_MAX_OPERANDS][ACC_MAX_LEVELS + 1], npieces;
} Pipe;

/* ---- cg_pipe.c ------------------------------------------------------ */

/* Places every region in lm0 or lm1 for RB row pairs per PE; -1 when
 * they do not fit. */
int pipe_place(Pipe *x, int64_t RB) TL_INTERNAL;

/* ---- cg_pipe_map.c -------------------------------------------------- */

/* Sets K (and the tensors' chunks) when rows should spread over the
 * MABs of an L1B; leaves K = 1 otherwise. */
void pipe_choose_split(Pipe *x) TL_INTERNAL;
/* Marks the images whose elements do not depend on the row (Img.inv). */
void pipe_find_invariant(Pipe *x) TL_INTERNAL;
/* The DRAM images of the inputs (AccCgIn.map) and the output's
 * (AccCgProgram.omap, oimage); -1 after reporting. */
int pipe_build_maps(Pipe *x) TL_INTERNAL;
int pipe_layout_output(Pipe *x) TL_INTERNAL;
/* The columns a PE holds of a tensor or image of D columns (1: one
 * value per row, replicated over the K PEs of its rows). */
int64_t pipe_local_D(const Pipe *x, int64_t D) TL_INTERNAL;
/* The row pair (in the whole tensor) and the first column that word
 * group v (long words 4v .. 4v + 3) of PE pe holds in block b, for a
 * tensor of C chunks a row pair on each PE and D columns. */
void pipe_pos(const Pipe *x, int64_t b, int64_t pe, int64_t v, int64_t C,
              int64_t D, int64_t *rp2, int64_t *col) TL_INTERNAL;
/* The long words a PE of each load of a block's W long words a PE: an
 * input larger than one load comes in pieces of half one, loaded as a
 * run (put_loads); else, and the output, pieces of one (Wmax); in
 * pieces of columns (pw_in, pw_out), those. */
int64_t pipe_piece(const Pipe *x, int64_t W, int input) TL_INTERNAL;
/* Long word position, in a DRAM image of W long words per PE per block
 * loaded in pieces of Wp, of word w of PE pe in block b. */
int64_t pipe_img_lw(const Pipe *x, int64_t b, int64_t pe, int64_t w,
                    int64_t W, int64_t Wp) TL_INTERNAL;
/* The input element image i reads for row `row`, column col. */
int64_t pipe_img_index(const Pipe *x, int i, int64_t row, int64_t col)
    TL_INTERNAL;

/* ---- cg_pipe_piece.c ------------------------------------------------ */

/* Sets pw_in, pw_out (and the row-invariant images' BM words) when one
 * block of one row pair a PE should come in pieces of columns. */
void pipe_choose_pieces(Pipe *x) TL_INTERNAL;
/* Emits the next row-invariant image's way down the tree (its DMA went
 * out before the pieces'; the first waits for tag 4). */
void pipe_inv_down(Pipe *x, TlBuf *o) TL_INTERNAL;

/* ---- cg_pipe_lay.c -------------------------------------------------- */

/* The kernel's accel schedule when it writes a layout (layout mode). */
const TlSchedInfo *pipe_lay_schedule(const TlKernelInfo *k) TL_INTERNAL;
/* Sets layout mode up once the images are known: the rows, every
 * tensor's layout, the plan, the regions (pipe_place), the size of
 * the conversions' DRAM scratch area.  -1 after reporting. */
int pipe_lay_setup(Pipe *x) TL_INTERNAL;
/* The DRAM images of the inputs (AccCgIn.map) and the output's
 * (omap) in layout mode. */
int pipe_lay_maps(Pipe *x) TL_INTERNAL;
/* The conversions before stage i (into the layouts it computes in)
 * and after it (its result into the plan's layout). */
void pipe_lay_before(Pipe *x, int i, TlBuf *o) TL_INTERNAL;
void pipe_lay_after(Pipe *x, int i, TlBuf *o) TL_INTERNAL;

#endif
