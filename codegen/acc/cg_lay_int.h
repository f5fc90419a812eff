/*
 * cg_lay_int.h - the layout route (cg_red_lay.c: reductions, and
 * elementwise stages that convert, computed in the layout an accel
 * schedule gives), shared by its files: cg_lay_dom.c lays out the
 * iteration domain and builds the route's layouts, cg_lay_tree.c
 * combines partial results up the tree.  Prefix lay_.  Only those
 * files include it.
 */
#ifndef TL_CG_LAY_INT_H
#define TL_CG_LAY_INT_H

#include "codegen/acc/cg_int.h"
#include "codegen/acc/layout.h"

enum { MAX_FAC = 24 };

/* One factor of an axis of the domain: a level's positions, or
 * addresses. */
typedef struct Fac {
    int level;              /* -1: addresses */
    int64_t n, stride;
} Fac;

typedef struct Ax {
    Fac f[MAX_FAC];
    int nf;
} Ax;

typedef struct RL {
    AccCg *g;
    const TlSchedInfo *si;
    const LExpr *f;
    const char *opname, *ident;
    int nout, nd;
    const char *names[TL_MAX_RANK];
    Ax dom[TL_MAX_RANK];
    /* A PE's output and reduction positions; Opad: long words of one
     * reduction step (Orem rounded up to 4, or 4 Orem in lane mode),
     * steps of them; Q: the reduced axes' positions over levels. */
    int64_t Orem, Opad, Rrem, steps, span, Q, P, Wmax;
    int lane;
    /* Tree mode: the reduced levels are those that `red*` combines up
     * to BM level `tree` (nbm + 1: `dma.red` too), tree_nb groups of
     * outputs a batch; 0: the partial results are gathered by a
     * conversion. */
    int tree;
    int64_t tree_nb;
    /* Per operand: the input's own layout (NULL: loaded in Lc), and
     * the input's axis each domain axis reads (perm), -1: none. */
    const AccLayout *Li[ACC_CG_MAX_OPERANDS];
    int perm[ACC_CG_MAX_OPERANDS][TL_MAX_RANK];
    const AccLayout *Lo;    /* the output's `layout`, or NULL */
    TlLoc lo_at;
    int64_t dram, scratch, scratch_words;
    int nconv, noconv;
} RL;

/* Reports what the route cannot follow at `at` (a note at the call). */
int lay_refuse(RL *x, TlLoc at, const char *what);
int lay_fail(RL *x, const char *what);
/* A loop's variable name from its loop IR name ("Y.d.__3" -> "d"). */
const char *lay_loop_name(TlSession *s, const char *n);
/* The domain's factors from the schedule (x->dom, x->Li, x->Lo); -1
 * after reporting. */
int lay_domain(RL *x);
/* The address strides, Orem, Opad, Rrem, steps, span, Q, lane. */
void lay_strides(RL *x);
/* A layout from its text at lm<bank>[base ..]; NULL after reporting. */
const AccLayout *lay_make(RL *x, const char *text, int rank,
                          const int64_t *shape, int bank, int64_t base,
                          const char *name);
/* Lc as a layout of operand o's input (its axes in the input's
 * order), at lm0 from base. */
const AccLayout *lay_lc_of_input(RL *x, int o, int64_t base);
/* Layouts of the result: Lr (q 0), Lp (q 1), Lq (q 2). */
const AccLayout *lay_result(RL *x, int q, int bank, int64_t base);
/* L's factors, placed anew at lm<bank>[base ..]. */
const AccLayout *lay_replace(RL *x, const AccLayout *L, int bank,
                             int64_t base, const char *name);
/* The text of one axis's factors (levels only: levels_only). */
void lay_put_axis(TlBuf *b, const RL *x, const Ax *a, int levels_only);
/* Tree mode (x->tree, x->tree_nb) when the reduced levels allow it. */
void lay_tree_mode(RL *x);
/* The all-reduce of the partial results in lm1 from `at`. */
void lay_tree_reduce(RL *x, TlBuf *o, int64_t at);

#endif
