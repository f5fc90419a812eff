/*
 * layout.h - tensor layouts on the accelerator (ACCELERATOR.md section
 * 6): the notation, its meaning, and the cost of converting between
 * two layouts.  Prefix acc_layout_, types AccLayout....
 *
 * A layout says where each element of a tensor lives: on which node of
 * the machine tree (a child index per level), in which memory space,
 * at which long-word address and in which sub-word.  The text forms:
 *
 *   [placement ","] [shape "/"] layout
 *   placement = space "[" base ":" end "]"     lm0[0:32]   (long words)
 *   shape     = "(" n {"," n} ")"              (128,64)
 *   layout    = "(" axis {"," axis} ")" [";" "B@[" levels "]"]
 *             | "[" name "@" LEVEL {"," ...} "]" [";" "B@[...]"]
 *   axis      = "(" factor {"," factor} ")"    major to minor
 *   factor    = n "_" LEVEL [":" s] | n [":" s] | n "_W" [":" s]
 *             | n "_S" [":" s]
 *
 * The canonical form is the parenthesised one; the compact one
 * (`[i@L2B, j@PE]`) names each axis and the levels it is split over,
 * outermost first, and takes the factor sizes from the machine and
 * the shape.  The language's `layout` statements (lang/SPEC.md 10.7)
 * use the same two forms without placement and shape; layout_sched.c
 * checks them against a machine.
 *
 * Meaning (one element index (i_0, ..., i_{r-1})): each i_a is split
 * into mixed-radix digits by its axis's factors (last factor least
 * significant).  Level L's child index is the sum of digit x stride
 * over L's factors; levels without factors are 0, or, when listed in
 * B@[...], every child index holds a copy.  The address is base plus
 * the sum over address (and _S) factors, the sub-word the sum over _W
 * factors.  A stride not written is the product of the sizes of the
 * later factors of the same kind (the same level, addresses, or
 * words), so an unstrided layout is row-major within each kind.
 *
 * Everything lives in the session's arena.
 */
#ifndef TL_ACC_LAYOUT_H
#define TL_ACC_LAYOUT_H

#include "codegen/acc/acc.h"
#include "lang/lang.h"

#define ACC_LAYOUT_MAX_RANK 8
/* Layouts of larger tensors are refused (LAYOUT_TOO_LARGE). */
#define ACC_LAYOUT_MAX_ELEMS ((int64_t)1 << 28)

/* Memory spaces a layout may place a tensor in (ACCELERATOR.md 3.3). */
typedef enum {
    ACC_LSP_LM0, ACC_LSP_LM1,     /* PE local memories */
    ACC_LSP_R, ACC_LSP_S,         /* PE register files GRF0, GRF1 */
    ACC_LSP_LB,                  /* BM of the lowest BM level ("L1") */
    ACC_LSP_LC,                  /* BM of the next one ("L2") */
    ACC_LSP_D,                   /* DRAM, at the root */
    ACC_LSP__COUNT
} AccLaySpace;

typedef enum {
    ACC_F_LEVEL,    /* n_LEVEL: positions of a level */
    ACC_F_ADDR,     /* n: address positions (long words) */
    ACC_F_WORD,     /* n_W: sub-words of a long word */
    ACC_F_LANE      /* n_S: sub-cycle lanes, addresses of an
                     * auto-stride operand */
} AccFactorKind;

typedef struct AccFactor {
    AccFactorKind kind;
    int level;          /* ACC_F_LEVEL: index in the machine's levels */
    int axis;
    int64_t n;
    int64_t stride;     /* resolved (written or default) */
    int written;        /* the stride was written */
    TlLoc loc;          /* of the factor in its text */
} AccFactor;

/* A checked layout of one tensor on one machine. */
typedef struct AccLayout {
    const AccMachine *m;
    TlDType dtype;
    int epl;                /* elements per long word of dtype */
    int rank;
    int64_t shape[ACC_LAYOUT_MAX_RANK];
    int64_t nelems;
    AccLaySpace space;
    int node_level;         /* level whose nodes own the space: the PE
                             * level, a BM level, or -1 for DRAM */
    int64_t base, end;      /* addresses base .. end-1 (long words) */
    int placed;             /* the placement was written */
    AccFactor *f;           /* all factors, axis by axis, major first */
    int nf;
    int first[ACC_LAYOUT_MAX_RANK + 1]; /* axis a: f[first[a]..first[a+1]) */
    unsigned bcast;         /* bit i: copies over level i (B@[...]) */
    int64_t ncopies;        /* product of the fan-outs of bcast levels */
    int64_t addr_span;      /* highest address used - base + 1 */
    void *dec;              /* decoding tables (layout_map.c) */
} AccLayout;

/* ---- text (layout_parse.c) ---------------------------------------- */

/* What the text of a layout holds, before it is checked. */
typedef struct AccLayoutText {
    TlLayout *layout;       /* the factors, as the language's AST */
    int has_place;
    AccLaySpace space;
    int64_t base, end;
    TlLoc place_loc;
    int rank;               /* 0 when no shape was written */
    int64_t shape[ACC_LAYOUT_MAX_RANK];
    TlLoc shape_loc;
} AccLayoutText;

/* Parses TEXT, added to s's sources under the name NAME (so that
 * diagnostics point into it, e.g. "--layout:1:17").  Returns 0, or -1
 * after reporting a diagnostic. */
int acc_layout_parse(TlSession *s, const char *name, const char *text,
                     AccLayoutText *out);

/* The space named by NAME[len] ("lm0", "lb", ...); -1 if none. */
int acc_layout_space_from_name(const char *name, size_t len);
const char *acc_layout_space_name(AccLaySpace sp);

/* ---- checking (layout.c) ------------------------------------------ */

/* What a layout is checked against. */
typedef struct AccLayoutReq {
    const AccMachine *m;
    TlDType dtype;
    int rank;
    int64_t shape[ACC_LAYOUT_MAX_RANK]; /* -1: unknown (take it from a
                                         * canonical layout) */
    const char *const *axis_names;  /* [rank], for compact layouts and
                                     * messages; NULL: i, j, k, ... */
    const char *tensor;     /* its name in messages ("A"), or NULL */
    TlLoc where;            /* for problems with no better place */
    /* placement; has_place 0: lm0 from address 0 */
    int has_place;
    AccLaySpace space;
    int64_t base, end;
    TlLoc place_loc;
} AccLayoutReq;

/* Checks layout l against req and builds its meaning: the levels
 * exist, no level's fan-out is exceeded, the factors of each axis
 * multiply to its size, sub-words fit a long word of the dtype, the
 * addresses fit the space (and the placement), the tensor is not split
 * over levels below its space, and no two elements share a (node,
 * space, address, word).  Returns NULL after reporting each problem at
 * the factor concerned (or req->where). */
AccLayout *acc_layout_check(TlSession *s, const TlLayout *l,
                            const AccLayoutReq *req);

/* Parses and checks the text of a layout in one go: the shape and
 * placement written in the text win over those of req (and must agree
 * with its known sizes).  NULL after reporting. */
AccLayout *acc_layout_from_text(TlSession *s, const char *name,
                                const char *text, const AccLayoutReq *req);

/* Writes the canonical text of L: placement, shape and layout with
 * every stride written, e.g. "lm0[0:32], (128,64)/((2_L2B:1, ...))". */
void acc_layout_print(TlBuf *out, const AccLayout *L);
/* Only the layout part: "((2_L2B:1, 2_L1B:1, 32:1), (...)); B@[MAB]". */
void acc_layout_print_factors(TlBuf *out, const AccLayout *L);

/* ---- meaning (layout_map.c) --------------------------------------- */

/* Where one copy of an element lives. */
typedef struct AccLoc {
    int64_t path[ACC_MAX_LEVELS];   /* child index per level, levels
                                     * 0..node_level; -1 below */
    int node_level;
    AccLaySpace space;
    int64_t addr;                   /* long words */
    int word;                       /* sub-word */
} AccLoc;

/* Copy `copy` (0 .. ncopies-1; 0 is the one with child index 0 on
 * every B@ level) of the element with row-major flat index e. */
void acc_layout_locate(const AccLayout *L, int64_t e, int64_t copy,
                       AccLoc *out);
/* The same for an index vector idx[rank]. */
void acc_layout_locate_idx(const AccLayout *L, const int64_t *idx,
                           int64_t copy, AccLoc *out);
/* Whether A and B put every copy of every element at the same place
 * (then converting moves nothing: one layout written two ways). */
int acc_layout_same_places(const AccLayout *A, const AccLayout *B);
/* Turns out, the place of copy 0 of an element, into copy `copy`'s
 * (what acc_layout_locate gives, without computing the place again). */
void acc_layout_set_copy(const AccLayout *L, int64_t copy, AccLoc *out);
/* The inverse: the flat index of the element at loc (any copy), or -1
 * when nothing of the tensor lives there.  *copy (may be NULL) gets
 * which copy it is. */
int64_t acc_layout_element(const AccLayout *L, const AccLoc *loc,
                           int64_t *copy);
/* The element (and copy, may be NULL) at sub-word 0 of address addr of
 * PE number pe (counting all PEs from 0) of a layout in a PE space, or
 * -1: acc_layout_element through a table of every place, built on the
 * first call when it is small enough (the conversion emitter and its
 * estimate ask for every place of a layout many times). */
int64_t acc_layout_at(const AccLayout *L, int64_t pe, int64_t addr,
                      int64_t *copy);
/* Flat index <-> index vector, row-major over L's shape. */
void acc_layout_unflatten(const AccLayout *L, int64_t e, int64_t *idx);
int64_t acc_layout_flatten(const AccLayout *L, const int64_t *idx);
/* The number of the node of level lvl (0..loc->node_level) that holds
 * loc, counting all nodes of that level of the machine from 0. */
int64_t acc_loc_node(const AccMachine *m, const AccLoc *loc, int lvl);
/* The inverse for a PE: the place of word addr of space at PE pe
 * (its path down every level; word 0). */
void acc_loc_of_pe(const AccMachine *m, int64_t pe, AccLaySpace space,
                   int64_t addr, AccLoc *loc);

/* Internal to the layout files: builds L->dec, the tables that invert
 * each level's, the address's and the sub-word's mixed-radix sum.
 * Returns 0, or -1 with two elements that would share a place in
 * dup[0], dup[1] (flat indices). */
int acc_layout_build_dec(TlArena *a, AccLayout *L, int64_t dup[2])
    TL_INTERNAL;

/* ---- conversions (layout_conv.c) ---------------------------------- */

/* One step of a conversion plan, in the order they run: local moves,
 * MAB rotations, then up the tree level by level to the highest
 * meeting point (DRAM last), then down again. */
typedef enum {
    ACC_STEP_LOCAL,     /* inside a PE (ALU mov), or a pure rename */
    ACC_STEP_ROTATE,    /* among the PEs of the PE level's parent */
    ACC_STEP_UP,        /* children -> BM of `level` (gather/ucast) */
    ACC_STEP_STORE,     /* top BMs -> DRAM (DMA) */
    ACC_STEP_LOAD,      /* DRAM -> top BMs (DMA) */
    ACC_STEP_DOWN,      /* BM of `level` -> children (dist/bcast) */
    ACC_STEP__COUNT
} AccStepKind;

typedef struct AccConvStep {
    AccStepKind kind;
    int level;              /* the BM level (UP, DOWN); the level just
                             * below the root (STORE, LOAD); the PE
                             * level (LOCAL); its parent (ROTATE) */
    int64_t words;          /* long words moved, all nodes together */
    int64_t words_bcast;    /* DOWN: of which sent as broadcasts */
    int64_t max_node;       /* the most long words at one node (BM
                             * side, or DRAM channel) */
    int64_t max_child;      /* the most at one child */
    int64_t nodes;          /* nodes that take part */
    int64_t chunks;         /* BM capacity: times the step restarts */
    double cycles;          /* estimated time of the step */
} AccConvStep;

/* How a conversion from src to dst runs, and what it costs. */
typedef struct AccConvPlan {
    const AccLayout *src, *dst;
    /* Element copies by where source and destination meet: by[d] for
     * d = 0 .. nlevels-1 counts those whose paths agree on exactly the
     * levels above level d (d 0: they meet only at the root); by[nlevels]
     * those on the same node; renames of those the ones at the same
     * address and word. */
    int64_t by[ACC_MAX_LEVELS + 1];
    int64_t renames;
    int64_t copies;         /* destination copies in all */
    AccConvStep *steps;
    int nsteps;
    double cycles;          /* steps one after the other */
    double cycles_overlap;  /* the slowest step, DRAM stores and loads
                             * together (perfect pipelining) */
} AccConvPlan;

/* The plan for converting a tensor from layout src to dst (same
 * machine, shape and dtype; TL_ASSERTed).  Each element moves from one
 * copy of src (the one nearest its destination) to every copy of dst,
 * through the lowest common ancestor of the two nodes.  A step's time
 * is the most any one node (or DRAM channel) moves divided by its
 * rate, plus a latency per chunk; nodes of a level work in parallel. */
AccConvPlan *acc_layout_convert_plan(TlArena *a, const AccLayout *src,
                                     const AccLayout *dst);
/* The estimated cycles of that plan, steps one after the other. */
double acc_layout_convert_cost(TlArena *a, const AccLayout *src,
                               const AccLayout *dst);
/* A table of the plan: the elements by meeting level, then one line
 * per step with its words and cycles, then the totals. */
void acc_conv_plan_print(TlBuf *out, const AccConvPlan *p);
const char *acc_step_name(AccStepKind k);

/* ---- pictures (layout_draw.c) ------------------------------------- */

typedef struct AccDrawOpts {
    int max_rows;           /* addresses per block shown; 0: all */
    int max_blocks;         /* blocks (groups of nodes) shown; 0: all */
} AccDrawOpts;

/* A text grid: one block per node of the level above the nodes that
 * own the space (a MAB for LM tensors), a column per node, a row per
 * long word, each sub-word holding the index of its element ("." when
 * empty). */
void acc_layout_draw_text(TlBuf *out, const AccLayout *L,
                          const AccDrawOpts *o);
/* The same picture as an SVG document. */
void acc_layout_draw_svg(TlBuf *out, const AccLayout *L);

/* ---- instructions (layout_emit.c) -------------------------------- */

/* Whether L can be emitted yet (1), else 0 with the reason in why:
 * it must be in lm0/lm1, hold row-major neighbours in each long word
 * (one W factor, innermost on the last axis, a long word wide), and
 * each BM must hold 4 long words of every PE below it. */
int acc_layout_emit_ok(const AccLayout *L, TlBuf *why);
/* Assembly (docs/accel-asm.md) that loads the tensor, row-major in
 * DRAM from long word dram, into layout L (every copy), and that stores
 * it from L back to DRAM.  L must pass acc_layout_emit_ok.  Both go
 * through every BM level and use DMA tag t0. */
void acc_layout_emit_load(TlBuf *out, const AccLayout *L, int64_t dram);
void acc_layout_emit_store(TlBuf *out, const AccLayout *L, int64_t dram);
/* The load of acc_layout_emit_load for group g only (addresses
 * base+4g .. base+4g+3 of every PE); 0 when the layout has nothing
 * there (nothing is written). */
int acc_layout_emit_load_group(TlBuf *out, const AccLayout *L,
                               int64_t dram, int64_t g);
/* The long words of DRAM scratch area a conversion from src needs: the
 * tensor row-major, or every top BM's image of each of its groups,
 * whichever is larger (the conversion stores what takes fewer DMA
 * ops). */
int64_t acc_layout_emit_scratch(const AccLayout *src);
/* Assembly converting the tensor from src to dst through a DRAM
 * scratch area (acc_layout_emit_scratch) at `scratch`, every element.
 * -1 with the reason in why when a layout cannot be emitted yet. */
int acc_layout_emit_convert_dram(TlBuf *out, const AccLayout *src,
                                 const AccLayout *dst, int64_t scratch,
                                 TlBuf *why);

/* How acc_layout_emit_convert moved the destination's groups (4
 * addresses on every PE each). */
typedef struct AccEmitCounts {
    int64_t groups;
    int64_t in_place;       /* nothing to move */
    int64_t local;          /* ALU mov inside each PE, the same
                             * addresses on every PE */
    int64_t indirect;       /* ALU mov inside each PE from addresses
                             * computed from its ids (T operand) */
    int64_t bcast;          /* gathered up to the lowest BM where
                             * they meet, then one PE's long words
                             * broadcast down, or each child's image
                             * rebuilt there 4 long words at a time */
    int64_t root;           /* the same through the top BMs and DRAM:
                             * each top node's image out, the one it
                             * takes from in */
    int64_t dram;           /* through the DRAM scratch area */
} AccEmitCounts;

/* Assembly converting the tensor from src to dst along the plan's
 * routes where the instruction stream allows (layout_emit.c says
 * which), the rest through DRAM as acc_layout_emit_convert_dram (the
 * scratch area is used only then).  Besides layouts that pass
 * acc_layout_emit_ok, src and dst may both keep one element a long
 * word (no W factor); this and acc_layout_emit_convert_dram accept
 * that pair.  src and dst must be resident
 * (written and settled) before it runs; it ends with dst settled.
 * cnt (may be NULL) gets the routes taken.  -1 with the reason in why
 * when a layout cannot be emitted yet. */
int acc_layout_emit_convert(TlBuf *out, const AccLayout *src,
                            const AccLayout *dst, int64_t scratch,
                            AccEmitCounts *cnt, TlBuf *why);

/* What acc_layout_emit_estimate predicts the simulator will count for
 * the instructions acc_layout_emit_convert writes (the same routes). */
typedef struct AccEmitEst {
    int64_t cycles;         /* as plan_sim.c counts them (no halt) */
    int64_t link_words;     /* over BM links, both ways */
    int64_t dram_words;     /* to and from DRAM */
    int64_t dma_ops;
    AccEmitCounts cnt;      /* the routes of the groups */
} AccEmitEst;

/* The cost of acc_layout_emit_convert(src, dst) without its text: the
 * routes are decided by the same code, and each instruction is timed
 * as the simulator times it (layout_time.c).  -1 with the reason in why
 * when a layout cannot be emitted yet. */
int acc_layout_emit_estimate(const AccLayout *src, const AccLayout *dst,
                             AccEmitEst *est, TlBuf *why);

/* ---- instruction timing (layout_time.c), for layout_emit.c -------- */

#define ACC_SINK_CHANNELS 64

/* Where emitted instructions go: text (out, may be NULL), and the
 * steps and traffic the simulator will count for them. */
typedef struct AccSink {
    TlBuf *out;
    const AccMachine *m;
    int64_t step;                   /* next bundle's earliest step */
    int64_t slot_free[ACC_SLOT__MAX];
    int64_t next_dma;               /* first step a DMA op may issue */
    int64_t tag_done;               /* cycle the DMAs so far land */
    int64_t chan_free[ACC_SINK_CHANNELS];   /* cycles */
    int64_t link_words, dram_words, dma_ops;
} AccSink;

void acc_sink_init(AccSink *e, const AccMachine *m, TlBuf *out)
    TL_INTERNAL;
/* Text only (comments); no bundle. */
void acc_sink_text(AccSink *e, const char *fmt, ...) TL_INTERNAL
    TL_PRINTF(2, 3);
/* One bundle each: an ALU op; nop/n; a transfer of BM level k of kind
 * xk whose written BM length is n (k >= 2); a DMA op of n long words
 * at top node `node`; `wait t0`.  fmt is the op's line. */
void acc_sink_alu(AccSink *e, const char *fmt, ...) TL_INTERNAL
    TL_PRINTF(2, 3);
void acc_sink_nop(AccSink *e, int64_t n) TL_INTERNAL;
void acc_sink_xfer(AccSink *e, int k, AccXferKind xk, int64_t n,
                   const char *fmt, ...) TL_INTERNAL TL_PRINTF(5, 6);
void acc_sink_dma(AccSink *e, int64_t node, int64_t n, const char *fmt,
                  ...) TL_INTERNAL TL_PRINTF(4, 5);
void acc_sink_wait(AccSink *e) TL_INTERNAL;
/* The cycles of what was sunk, DMAs in flight included. */
int64_t acc_sink_cycles(const AccSink *e) TL_INTERNAL;

/* ---- schedules (layout_sched.c) ----------------------------------- */

/* Checks every `layout` statement of the accel schedules of prog
 * (checked without errors) against machine m: sizes come from the
 * kernel's constant shapes, or from canonical layouts (a size variable
 * must get one value from all of them); and the levels of every
 * `distribute` (acc_dist_check_schedule).  Reports at the statements.
 * Returns the number of errors. */
int acc_layout_check_program(TlSession *s, TlProgram *prog,
                             const AccMachine *m);

/* The sizes of tensor f's axes as schedule si knows them: constants,
 * and size variables that its canonical layouts fix; -1 for the
 * others.  shape[f->rank]. */
void acc_layout_known_shape(TlSession *s, const TlSchedInfo *si,
                            const TlFunc *f, int64_t *shape);

/* The names of the axes of tensor f of its kernel, as compact layouts
 * use them: the index variables of its definition, or for an input
 * those of a read of it by plain index variables ("?" when there is
 * none).  names[f->rank] in s's arena. */
const char **acc_layout_axis_names(TlSession *s, const TlFunc *f);

/* ---- distribute (dist.c) ------------------------------------------ */

/* The kernel's default accel schedule, or NULL. */
const TlSchedInfo *acc_sched_accel(const TlKernelInfo *k);

/* Checks the levels of every `distribute` of schedule si against m:
 * each is a level of m, `W` or `S` (LAYOUT_LEVEL), and a stage names
 * each once (DIST_LEVEL_TWICE).  The number of errors reported. */
int acc_dist_check_schedule(TlSession *s, const TlSchedInfo *si,
                            const AccMachine *m);

/* The distributes of one stage, in order, outermost first: entry i
 * deals axis[i] of the stage's result over level[i] (a level of the
 * machine, or ACC_DIST_W / ACC_DIST_S); text is the compact layout
 * they make ("[i@L2B, i@PE]"), first the first directive and what its
 * text for messages ("`distribute(i, [L2B, PE])`"). */
enum { ACC_DIST_MAX = 2 * ACC_MAX_LEVELS + 2, ACC_DIST_W = -1,
       ACC_DIST_S = -2 };
typedef struct AccDist {
    int n;
    /* Entry i: the result's axis (-1: a variable the stage reduces
     * over), the level (or ACC_DIST_W, _S) and the loop variable. */
    int axis[ACC_DIST_MAX], level[ACC_DIST_MAX];
    const TlVar *var[ACC_DIST_MAX];
    const char *text, *what;
    const TlSchedDir *first;
} AccDist;
/* Stage f's distributes in schedule si (NULL: none) on machine m,
 * with the result's sizes shape[f->rank] (NULL or -1: unknown): 1 when
 * it has some, 0 when none, -1 after reporting at the directive (a
 * loop that is neither an axis of the result nor a variable it
 * reduces over, a size the levels do not divide, a level
 * check_schedule refuses).  A reduced variable's entries have axis -1
 * and are not in `text` as a layout of the result (the sizes of such
 * a variable are the route's to check). */
int acc_dist_stage(TlSession *s, const AccMachine *m, const TlSchedInfo *si,
                   const TlFunc *f, const int64_t *shape, AccDist *out);
/* "`distribute(v, [L2B, PE])`" for directive d. */
const char *acc_dist_what(TlSession *s, const TlSchedDir *d);

#endif
