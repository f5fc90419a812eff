/*
 * cg_int.h - code generation for the accelerator (the `accel` target):
 * a kernel lowered to loop IR, with the shapes of one call, becomes a
 * TAM assembly program (docs/accel-asm.md) that the runner
 * (codegen/acc/target.c) assembles and runs on the simulator.
 * Prefix acc_cg_.  Only codegen/acc/ uses it.
 */
#ifndef TL_ACC_CG_INT_H
#define TL_ACC_CG_INT_H

#include "codegen/acc/acc.h"
#include "codegen/c/cgc.h"

/* The values of a lowered kernel's integer parameters for one call
 * (extents, strides of the packed tensors, sizes), indexed like
 * ck->params; buffers and the error flag have none. */
typedef struct AccCgCall {
    const CgKernel *ck;
    const int64_t *pval;
    int *pknown;
    /* Every known parameter's value as a double (scalars included). */
    const double *pf;
    /* The shapes of the call: in[k->ninputs] (packed), the output's. */
    TlKernelInfo *k;
    TlTensor *const *in;
    int out_rank;
    const int64_t *out_shape;
    const int64_t *sizes;   /* the values of k->sizes */
    /* The DRAM image the caller asks the output in (a program of
     * segments, target_seg.c: the image its producer wrote an input
     * in), else NULL: image element q holds output element order[q],
     * or nothing when it is -1; norder elements.  The elementwise
     * route computes in that image when the schedule lays out nothing
     * (cg_elem_lay.c); the other routes keep their own. */
    const int64_t *order;
    int64_t norder;
} AccCgCall;

/* What the program reads, in `.input` order: one per way the kernel
 * reads an input.  The element of the operand at flat position e of
 * the output is input element k + sum coef[l] * v[l], with v the loop
 * indices of e (row-major over ext[]).  `direct`: that is e itself, so
 * the input goes in as it is; otherwise (a broadcast) the runner
 * gathers it to the output's shape first (TODO(issue 6): broadcast in
 * the tree with bcast and B@ layouts instead). */
typedef struct AccCgIn {
    const char *name;       /* its `.input` name */
    int input;              /* index in k->inputs; -1: a pad flag image */
    int direct;
    int64_t coef[TL_MAX_RANK], k;
    /* When set, the runner builds the DRAM image itself: nmap f32
     * elements, element e being input element map[e], or `pad` where
     * map[e] < 0 (a pad flag image: 1 there, else 0).  This is how the
     * reduction and matmul routes lay tensors out in DRAM, in the
     * order their loads consume (malloc'd; the runner frees it). */
    int64_t *map, nmap;
    float pad;
    /* A read through bounds tests (zero_pad, lang/SPEC.md 9.3: the
     * load is select(in bounds, X[...], bpad)): element (loop values
     * v) is bpad where one of the nbt tests fails, test t being
     * btest[t](v) < 0 when blt[t], else btest[t](v) >= 0.  The matmul
     * route's images put bpad there (map[e] == ACC_CG_OUTSIDE). */
    int nbt;
    struct AccCgLin *btest;
    unsigned char *blt;
    float bpad;
} AccCgIn;

/* AccCgIn.map: an element outside the input (its bpad). */
enum { ACC_CG_OUTSIDE = -2 };

typedef struct AccCgProgram {
    TlBuf text;             /* the assembly; buf_free it */
    AccCgIn *ins;           /* in s's arena */
    int nins;
    int nloops;
    int64_t ext[TL_MAX_RANK];   /* the loop nest's extents */
    int64_t nelems;         /* of the output */
    /* When set, the `.output` is an image of oimage f32 elements and
     * output element e is its element omap[e] (malloc'd). */
    int64_t *omap, oimage;
    /* The layout plan the program follows (cg_pipe.c's layout mode),
     * else NULL; when its conversions are in the program (nconv of
     * them), `bare` is the same program without them, so the runner
     * can tell their traffic (buf_free it). */
    struct AccPlan *plan;
    int nconv;
    TlBuf bare;
    const char *conv_what;  /* what they are, for --explain (arena; NULL:
                             * not said) */
    /* The route's own model of the program in cycles, when it chose
     * its shape by one (the matmul route, cg_mm_plan.c), else 0: what
     * the planner sets beside the program for the stage it does not
     * plan itself. */
    double est_cycles;
} AccCgProgram;

/* --- shared by the routes (cg_elem.c, cg_load.c) --------------------- */

enum { ACC_CG_MAX_TEMPS = 32, ACC_CG_MAX_OPERANDS = 32 };

/* k + sum coef[l] * loop variable l. */
typedef struct AccCgLin {
    int64_t coef[TL_MAX_RANK];
    int64_t k;
} AccCgLin;

typedef struct AccCg AccCg;
struct AccCg {
    TlSession *s;
    const AccMachine *m;
    const AccCgCall *c;
    TlLoc loc;
    LVar *loops[TL_MAX_RANK];
    int nloops;
    AccCgLin store;
    AccCgProgram *p;
    TlBuf *t;               /* the compute code being written */
    int failed;
    /* Operand o of a load is read at lm0 word op_at + o * op_step;
     * temporaries are r words 8t for t < max_temps.  `mapped`: the
     * route builds every operand's image itself (no direct/broadcast
     * reads), and any loop may appear in an index. */
    int64_t op_at, op_step;
    int max_temps, mapped;
    /* When set, reads (LE_LOAD) go through it (cg_pipe.c). */
    int (*load)(struct AccCg *g, const LExpr *e, int t);
    /* When set: 0 after writing into buf an operand that reads e where
     * it is (an LM word), 1 when e is no such read, -1 after
     * reporting. */
    int (*operand)(struct AccCg *g, const LExpr *e, char *buf, size_t n);
    void *ctx;
    /* Lets of constant value (cg_pipe.c). */
    const LVar **letv;
    double *letval;
    int nlets;
};

int acc_cg_fail(AccCg *g, const char *what);
int acc_cg_param_of(const AccCg *g, const LVar *v);
/* e as a linear form over g's loops, or -1 when it is not one. */
int acc_cg_lin(AccCg *g, const LExpr *e, AccCgLin *out);
/* e's value when it is a constant of the call (literals, sizes,
 * scalars, constant lets): 0, else -1. */
int acc_cg_const(AccCg *g, const LExpr *e, double *v);
/* Evaluates the f32 expression e into temporary t (r words 8t..). */
int acc_cg_eval(AccCg *g, const LExpr *e, int t);

/* A load's scope k may carry ACC_CG_PARTS: its data then also differs
 * between the nodes of the top BM level (k at most that level), each
 * taking its own share of the image, which the DMA distributes instead
 * of broadcasting one (the matmul route's A when rows split over the
 * top nodes); below the top the load is scope k's. */
enum { ACC_CG_PARTS = 1 << 8 };
/* A load's scope k may also carry a number of column parts Cq >= 2
 * (k | Cq << ACC_CG_COLS_SHIFT, at the top level only): the top nodes
 * then form Cq blocks of consecutive nodes, block c taking part c of
 * the image (Cq scope images, one after the other), which one
 * `dma.bcast@{...}` per block sends to that block's nodes alone (the
 * matmul route's B when its columns split over the top nodes).  k &
 * ACC_CG_LEVEL is the level. */
enum { ACC_CG_COLS_SHIFT = 10, ACC_CG_LEVEL = 0xff };
/* The column parts of scope k (1: none). */
int64_t acc_cg_cols(int k);
/* The most column parts whose blocks have a node on one DRAM channel
 * (a channel moves each such part's words once). */
int64_t acc_cg_cols_per_chan(const AccMachine *m, int64_t cq);

/* Long-word position, in an image loaded by acc_cg_emit_load with W
 * long words per PE, of word w of the scope's PE pe (PE index inside
 * the scope's subtree). */
int64_t acc_cg_img_pos(const AccMachine *m, int64_t pe, int64_t w,
                       int64_t W);
/* PEs under one node of BM level k (k = acc_bm_levels + 1: all). */
int64_t acc_cg_scope_pes(const AccMachine *m, int k);
/* The most long words per PE one load of scope k can move. */
int64_t acc_cg_max_load(const AccMachine *m, int k);
/* Emits a load of W long words per PE (a multiple of 4) from the
 * image at DRAM long word `at` into PE storage `space` from word `dst`
 * on (contiguous, 2W words): DMA to the top BMs, bcast down the BM
 * levels above k, dist from k down, dist.L1 four long words at a time.
 * Scope k: the data differs between the PEs of one node of BM level k
 * and is the same in every such node (k = acc_bm_levels + 1: all PEs
 * differ).  Ends once the data is readable. */
void acc_cg_emit_load(TlBuf *o, const AccMachine *m, int64_t at,
                      int64_t W, const char *space, int64_t dst, int k);
/* The same with DMA tag `tag` and the load's words of BM level j from
 * off[j] on (NULL: 0), so that loads in flight together (cg_overlap.c)
 * keep apart. */
void acc_cg_emit_load_in(TlBuf *o, const AccMachine *m, int64_t at,
                         int64_t W, const char *space, int64_t dst, int k,
                         int tag, const int64_t *off);
/* Steps of a run of emitted text: a bundle a line, `nop/N` N (no
 * stalls); the routes' models count their compute with it. */
int64_t acc_cg_text_steps(const char *t);
/* Its two halves, for a caller that issues the DMA early and waits
 * for its tag late (the reduction route's next chunk): the DMA alone,
 * and the transfers from the top BMs to the PEs once it has landed. */
void acc_cg_emit_load_dma(TlBuf *o, const AccMachine *m, int64_t at,
                          int64_t W, int k, int tag, const int64_t *off);
void acc_cg_emit_load_tree(TlBuf *o, const AccMachine *m, int64_t W,
                           const char *space, int64_t dst, int k,
                           const int64_t *off);
/* Steps of a load's tree transfers (BM levels above L1), each issued
 * when the last is readable. */
int64_t acc_cg_tree_steps(const AccMachine *m, int64_t W, int k);
/* Emits n such loads, piece q W[q] long words per PE (at most Wmax,
 * two of which fit every BM on the way) from at[q] to dst[q], each
 * piece's DMA and tree transfers under the last one's dist.L1s (off: as
 * acc_cg_emit_load_in's; the pieces' DMAs alternate tags tag and tag +
 * 1). */
void acc_cg_emit_load_run(TlBuf *o, const AccMachine *m, int64_t n,
                          const int64_t *at, const int64_t *W,
                          int64_t Wmax, const char *space,
                          const int64_t *dst, int k, int tag,
                          const int64_t *off);
/* The same, calling then(ctx, q, o) once piece q is readable in the
 * PEs (its dist.L1s settled): code that works on piece q goes out
 * while the DMAs of the pieces after it are in flight (the pipeline
 * route's first fold, cg_pipe.c).  acc_cg_nop(o, tw) with tw < 1 is
 * nothing, so the code's steps shorten the next piece's wait. */
typedef void (*AccCgPieceFn)(void *ctx, int64_t q, TlBuf *o);
void acc_cg_emit_load_run_then(TlBuf *o, const AccMachine *m, int64_t n,
                               const int64_t *at, const int64_t *W,
                               int64_t Wmax, const char *space,
                               const int64_t *dst, int k, int tag,
                               const int64_t *off, AccCgPieceFn then,
                               void *ctx);
/* The model of moving W long words a PE of `pes` PEs between DRAM and
 * the PEs in pieces of at most wmax (run: each piece after the first
 * under the one before; else each waited for), in steps: each piece's
 * DMA (latency, the busiest channel's words), tree transfers and W/4
 * dist.L1 or gather.L1 steps (the planner's, plan_move.c).  A one-load
 * tensor in ACC_CG_PIECES pieces of columns (acc_cg_piece_words long
 * words a PE) when that models faster than one load
 * (acc_cg_pieces_pay): the pipeline route's choice (cg_pipe_piece.c)
 * and the planner's. */
enum { ACC_CG_PIECES = 8 };
double acc_cg_io_steps(const AccMachine *m, int64_t W, int64_t pes,
                       int64_t wmax, int run);
int64_t acc_cg_piece_words(int64_t W);
int acc_cg_pieces_pay(const AccMachine *m, int64_t W, int64_t pes);
/* Steps to wait after a transfer of BM level k of `kind` moving bm
 * long words at the BM and child at each child before the next bundle
 * may read the result (a `nop/N`, N may be 0). */
int64_t acc_cg_wait(const AccMachine *m, int k, int kind, double bm,
                    double child);
void acc_cg_nop(TlBuf *o, int64_t n);
void acc_cg_bm_name(char *buf, size_t n, int k);

/* Transfers issued in the free slots of compute bundles
 * (cg_overlap.c), from ACC_CG_OV_QUEUES in-order queues: queue qi
 * takes a load (acc_cg_emit_load_in's arguments), a run of loads
 * (acc_cg_emit_load_run's) or ops written as text (lines of ops and
 * `nop/N`; no DMA waits).  For each compute bundle, acc_cg_ov_next
 * gives the ops to add to it (" ; " then the ops) or NULL (reads: the
 * LMs the bundle reads, bit i for lm<i>; an op naming one waits);
 * acc_cg_ov_flush writes, after the compute, what is left of the
 * queues in mask (bit qi) with their nops (other queues' ops ride in
 * those bundles too), ending once their data is readable. */
enum { ACC_CG_OV_QUEUES = 4, ACC_CG_OV_CHANNELS = 64, ACC_CG_OV_TAGS = 8 };
typedef struct AccCgOvOp {
    int64_t at;             /* offset in the queue's text; -1: a mark */
    int64_t hard;           /* steps since the queue's last op */
    int64_t occ;            /* steps it holds its slot */
    int64_t vol;            /* a DMA's long words per DRAM channel */
    uint64_t chans;         /* the channels it uses, a bit each (a
                             * node set's); 0: all */
    int slot, lms, tag, dma, wait;
    /* 1 + a queue that must be empty first (0: none); 1 + a queue
     * whose entry behind_i must have issued first. */
    int after, behind;
    int64_t behind_i;
} AccCgOvOp;
typedef struct AccCgOvQueue {
    TlBuf text;             /* the ops, each ending in a NUL */
    AccCgOvOp *e;
    int n, cap, next;
    int64_t last;           /* step its last op issued */
    /* Step its DMAs of each tag (modulo ACC_CG_OV_TAGS) have landed:
     * a run's pieces alternate two tags, so that a wait for one piece
     * does not wait for the next, already in flight. */
    int64_t land[ACC_CG_OV_TAGS];
} AccCgOvQueue;
typedef struct AccCgOverlap {
    const AccMachine *m;
    AccCgOvQueue q[ACC_CG_OV_QUEUES];
    int64_t now;            /* the step of the next bundle */
    int64_t busy[ACC_SLOT__MAX];    /* first step each slot is free */
    int64_t dma_last;       /* step of the last DMA */
    int64_t chan[ACC_CG_OV_CHANNELS];   /* cycle each channel is free */
    TlBuf line;
} AccCgOverlap;
void acc_cg_ov_init(AccCgOverlap *v, const AccMachine *m);
void acc_cg_ov_load(AccCgOverlap *v, int qi, int64_t at, int64_t W,
                    const char *space, int64_t dst, int k, int tag,
                    const int64_t *off);
void acc_cg_ov_run(AccCgOverlap *v, int qi, int64_t n, const int64_t *at,
                   const int64_t *W, int64_t Wmax, const char *space,
                   const int64_t *dst, int k, int tag, const int64_t *off);
void acc_cg_ov_text(AccCgOverlap *v, int qi, const char *text);
/* Appends the op `op` to queue qi, to issue only once queue dep is
 * empty (its ops issued and their results readable) and the last DMA
 * now in queue behind has issued: a store whose data queue dep
 * computes goes on the DRAM channels behind a load's last piece rather
 * than between its pieces, so that the channels move the store while
 * the load's last piece goes down the tree. */
void acc_cg_ov_after(AccCgOverlap *v, int qi, const char *op, int dep,
                     int behind);
const char *acc_cg_ov_next(AccCgOverlap *v, int reads);
void acc_cg_ov_flush(AccCgOverlap *v, TlBuf *o, unsigned mask);
void acc_cg_ov_free(AccCgOverlap *v);

/* Sets g up for a route that lays out its operands (mapped). */
void acc_cg_init(AccCg *g, TlSession *s, const AccMachine *m,
                 const AccCgCall *c, AccCgProgram *p, TlLoc loc);
/* Matches { alloc acc; acc[0] = init; for r.. { upd }; out[..] =
 * acc[0] } inside output loops (cg_red.c): g's loops become the nout
 * output loops then the reduction's, *upd the innermost statement.
 * 0; 1 when the kernel is not of that form; -1 after reporting. */
int acc_cg_match_reduce(AccCg *g, int *nout, const LVar **accv,
                        const LStmt **upd);

/* The reduction route (cg_red.c): one loop nest whose body reduces a
 * pointwise f32 expression over inner loops with sum, max or min, the
 * reduction kept per PE then combined up every level of the tree.
 * Returns 1 when the kernel is not of that form (nothing reported). */
int acc_cg_reduce(TlSession *s, const AccMachine *m, const AccCgCall *c,
                  AccCgProgram *p, TlLoc loc);
/* The pipeline route (cg_pipe.c): several stages (elementwise, or
 * reductions over every axis but the first) sharing their first axis,
 * kept in the PEs' memories between stages.  Returns 1 when the kernel
 * has a single stage (nothing reported). */
int acc_cg_pipeline(TlSession *s, const AccMachine *m, const AccCgCall *c,
                    AccCgProgram *p, TlLoc loc);
/* Stores W long words per PE (a multiple of 4) from PE storage
 * `space` word `src` on into DRAM at `at`, in acc_cg_emit_load's image
 * order over all PEs: gather.L1, gather up the BM levels, dma.gather
 * with tag t1 (not waited for: a DMA reads its source when it
 * issues). */
void acc_cg_emit_store(TlBuf *o, const AccMachine *m, const char *space,
                       int64_t src, int64_t W, int64_t at);
/* The last part of a store: len long words in every L1 BM's buffer
 * (lb) go up the BM levels by `gather` and to DRAM at `at` by one
 * dma.gather (acc_cg_emit_store's, and cg_seg_conv.c's of double
 * long words). */
void acc_cg_gather_up(TlBuf *o, const AccMachine *m, int64_t len,
                      int64_t at);
/* The matmul route (cg_mm.c): C[i, j] = sum(k) A[i, k] * B[k, j] (any
 * index order) on the matrix unit.  Returns 1 when the kernel is not
 * of that form (nothing reported). */
int acc_cg_matmul(TlSession *s, const AccMachine *m, const AccCgCall *c,
                  AccCgProgram *p, TlLoc loc);

/* A matmul whose B reads its input through a sliding window
 * (cg_win.c), as a convolution's does: B[k, j] = X[.., y + r, x + s]
 * with (y, x) output loops of B's side (j) and (r, s) reduction loops
 * of the same coefficients in B's index.  The j tiles of one node of
 * the k split's level cover a block of BH output rows by BX tiles of
 * Mr positions along x, and each PE keeps, for its kspan-th share of
 * the channels (the other reduction loops), the block's input rows
 * and columns once in its LM (its "window image", rows x rowlen long
 * words, two neighbouring x in the lanes of a long word, one copy per
 * parity of x): the mwrite of tile (pair v, window offset r, s) reads
 * it with stride 2 long words, so the nine shifted copies of the
 * im2col image are never loaded. */
typedef struct AccCgWin {
    int jx, jy, rx, ry;     /* loops; jy, ry: -1 when absent */
    int ol[TL_MAX_RANK], nol;   /* other j loops (a batch), outer first */
    int cl[TL_MAX_RANK], ncl;   /* other reduction loops (channels) */
    int64_t ext[TL_MAX_RANK];
    int64_t X, Y, S, R, O, C;
    /* The shape at one k split: kspan groups of G PEs share the
     * channels, Nc of them per k tile; tiles of Mr positions, tw
     * sub-cycles. */
    int64_t kspan, Nc, Mr, tw;
    int64_t BX, BH, XB, YB;     /* a block; blocks along x and y */
    int64_t CU, cols, rowlen, rows, words;
} AccCgWin;
/* 0 when B (coefficients coef over the loops, j loops jl in output
 * order) reads through a window; 1 otherwise. */
int acc_cg_win_match(AccCgWin *w, const int64_t *ext, const int64_t *coef,
                     const int *jl, int nj, int nout, int nloops);
/* Blocks for NH nodes and the window image: the pairs per node (JV),
 * or -1 when the blocks do not fit the nodes or the image lm_words. */
int64_t acc_cg_win_shape(AccCgWin *w, int64_t NH, int64_t kspan,
                         int64_t Nc, int64_t Mr, int64_t tw,
                         int64_t lm_words);
/* Tiles per group along k: channel slots x window offsets. */
int64_t acc_cg_win_ku(const AccCgWin *w);
/* Sets the reduction loops' values in v for k tile u of group km, PE
 * p: 0, or -1 when that is padding (no channel). */
int acc_cg_win_k(const AccCgWin *w, int64_t u, int64_t km, int64_t p,
                 int64_t *v);
/* Sets the j and reduction loops' values in v for lane l of long word
 * U of the window image of node g's group km, PE p: 0, or -1 when no
 * output of the node reads it. */
int acc_cg_win_img(const AccCgWin *w, int64_t g, int64_t km, int64_t p,
                   int64_t U, int l, int64_t *v);
/* Long word of the window image that tile u of pair v starts at. */
int64_t acc_cg_win_tile(const AccCgWin *w, int64_t v, int64_t u);
/* Long words of the image that pairs 0 .. v read (a multiple of 4,
 * so that each pair's new words load as whole dist.L1s). */
int64_t acc_cg_win_end(const AccCgWin *w, int64_t v);
/* The node, pair and position in the tile of the output whose loop
 * values are v. */
void acc_cg_win_out(const AccCgWin *w, const int64_t *v, int64_t *g,
                    int64_t *pair, int64_t *jj);

/* The elementwise route's layout mode (cg_elem_lay.c), once g's
 * operands are known: when the kernel's accel schedule distributes its
 * stage or lays out a tensor, the layout the stage computes in becomes
 * the route's groups (*groups of them), every operand's DRAM image and
 * the output's (AccCgIn.map, omap).  1 when set up (also when it
 * follows the image the caller asks, AccCgCall.order), 0 when neither
 * says anything, 2 when a `layout` puts a tensor elsewhere
 * (the layout route converts it: acc_cg_lay_route), -1 after
 * reporting. */
int acc_cg_elem_layout(AccCg *g, int64_t *groups);
/* Writes the elementwise route's program of e (g's compute text its
 * text with operands at lm0 word 0) in `groups` groups of gw long
 * words, and its model (cg_elem_loop.c).  -1 after reporting. */
int acc_cg_elem_program(AccCg *g, const LExpr *e, int64_t groups,
                        int64_t gw);
/* The user's `layout` of f in si, checked with this shape (rank,
 * shape), at *at; *L NULL when there is none.  -1 after reporting. */
struct AccLayout;
int acc_cg_user_layout(AccCg *g, const TlSchedInfo *si, const TlFunc *f,
                       int rank, const int64_t *shape,
                       const struct AccLayout **L, TlLoc *at);

/* The layout route (cg_red_lay.c): g matched (its loops: nout output
 * loops, then the reduction's; its operands counted), the stage
 * `out = op(r..) f` (opname add, max or min; nout == g->nloops and
 * opname NULL for an elementwise `out = f`) computed in the layout the
 * kernel's accel schedule gives, with the conversions its `layout`s
 * need.  0, or -1 after reporting. */
int acc_cg_lay_route(AccCg *g, int nout, const LExpr *f,
                     const char *opname);
/* Whether k's accel schedule has a `distribute` or a `layout`. */
int acc_cg_lay_wanted(const TlKernelInfo *k);

/* Compiles an elementwise kernel (one loop nest storing a pointwise f32
 * expression of its inputs, read at the output's index or broadcast)
 * for machine m.  Returns 0, or -1 after reporting at loc what it
 * cannot compile yet ("accel target cannot compile ... yet"). */
int acc_cg_elementwise(TlSession *s, const AccMachine *m,
                       const AccCgCall *c, AccCgProgram *out, TlLoc loc);

/* --- kernels split into segments (cg_seg.c) ------------------------- */

enum { ACC_SEG_MAX = 48 };

/* Segment i is the checked kernel seg[i].k, of stages first..last of
 * the split kernel (its stages, with reductions split off those that
 * hold one inside other arithmetic), writing the tensor named out. */
typedef struct AccSegPlan {
    int n;
    int64_t cycles;         /* the segments' programs' timed sum */
    struct {
        TlKernelInfo *k;
        int first, last;
        char out[64];
    } seg[ACC_SEG_MAX];
} AccSegPlan;

/* Splits k (sizes: its size variables' values; in: the call's inputs)
 * into segments that each compile for the accel target on m: 0, else
 * -1 with the construct that stops it in why (for "accel target
 * cannot compile %s yet").  Silent. */
int acc_seg_plan(TlSession *s, TlKernelInfo *k, const AccMachine *m,
                 const int64_t *sizes, TlTensor *const *in, AccSegPlan *out,
                 TlBuf *why);

/* --- conversions between segments (cg_seg_conv.c) ------------------- */

/* Whether m has what the conversions use (a BM level, room for a chunk
 * of 8 long words per PE). */
int acc_seg_conv_ok(const AccMachine *m);
/* The kernel of the stages of k (no asserts, plain definitions) that
 * stage `out` needs, its output, reading the kernel's inputs and the
 * stages named in given[] as inputs at their call shapes (sizes, in:
 * the call's); NULL when there is none.  For a kernel whose asserts
 * read computed stages (target_assert.c). */
TlKernelInfo *acc_seg_sub_kernel(TlSession *s, TlKernelInfo *k,
                                 const int64_t *sizes, TlTensor *const *in,
                                 const char *out, const char *const *given,
                                 int ngiven);
/* Long words a gather's last chunk may write past its destination. */
int64_t acc_seg_conv_slack(const AccMachine *m);
/* n f32 elements at DRAM long word src, unpacked to one f64 long word
 * each from dst on (`words` of them, in chunks of W long words per
 * PE). */
typedef struct AccSegUnpack {
    const AccMachine *m;
    int64_t src, n, dst, W, perpe, chunks, words;
} AccSegUnpack;
void acc_seg_unpack_init(AccSegUnpack *u, const AccMachine *m, int64_t src,
                         int64_t n, int64_t dst);
/* The long word that holds element e once unpacked. */
int64_t acc_seg_unpacked_at(const AccSegUnpack *u, int64_t e);
void acc_seg_emit_unpack(TlBuf *o, const AccSegUnpack *u);
/* Long words of a constant's area; emits the area of v at `at` (-1 when
 * v is not finite). */
int64_t acc_seg_const_words(const AccMachine *m);
int acc_seg_emit_const(TlBuf *o, const AccMachine *m, double v, int64_t at);
/* Emits the f32 image of nd elements at dst, element d the unpacked
 * long word from[d] (>= 0) or constant -1 - from[d] (its area at
 * cat[-1 - from[d]]).  Returns the DMA ops of its gathers. */
int64_t acc_seg_emit_gather(TlBuf *o, const AccMachine *m,
                            const int64_t *from, int64_t nd,
                            const int64_t *cat, int64_t dst);
/* The pieces the two ways of gathering share (cg_seg_conv.c): long
 * words per PE of a full chunk; W double long words per PE from the
 * BMs of level top down to `space`; the DRAM long word of destination
 * element d (prev: the one of d - 1, -1 none). */
int64_t acc_seg_chunk_w(const AccMachine *m);
void acc_seg_load_dd(TlBuf *o, const AccMachine *m, int64_t W,
                     const char *space, int top);
int64_t acc_seg_word_of(const int64_t *from, int64_t d, const int64_t *cat,
                        int64_t cwords, int64_t prev);
/* Estimated steps of a chunk of W long words per PE through the tree
 * and back, besides its DMA issue (cg_seg_tree.c). */
int64_t acc_seg_chunk_steps(const AccMachine *m, int64_t W);
/* The gather through the tree (cg_seg_tree.c): large DMA loads of the
 * source words a chunk needs into a top BM, the permutation by the
 * level's broadcasts into the BMs below.  Emits it and returns its DMA
 * ops when its estimated steps are under `than`, else -1 (nothing
 * emitted); *tops its tree ops. */
int64_t acc_seg_emit_tree(TlBuf *o, const AccMachine *m,
                          const int64_t *from, int64_t nd,
                          const int64_t *cat, int64_t dst, int64_t than,
                          int64_t *tops);

/* The model of emitted text (a conversion's: cg_seg_cost.c) in
 * cycles: its bundles, its DMA ops' issue, channels and latency, its
 * waits; for the planner's estimate of a program of segments. */
double acc_seg_text_model(const AccMachine *m, const char *text);

#endif
