/*
 * layout_conv.c - converting a tensor from one layout to another
 * (ACCELERATOR.md 6.2): which elements meet where, the per-level
 * transfer steps, and their estimated cost.
 *
 * Every element copy the destination needs is routed from the nearest
 * copy of the source through the lowest common ancestor (LCA) of the
 * two nodes: inside a PE an ALU move (nothing when only the name
 * changes), inside the PEs' parent (the MAB) neighbour rotations, and
 * otherwise up through the BMs to the lowest BM that covers both nodes
 * (DRAM when none does) and down again.  An element crossing one link
 * for several destination copies crosses it once: replication is paid
 * as a broadcast, once per level.
 *
 * Costs follow 6.2 step 4: per step, the busiest node (BM side) or the
 * busiest child limits the time; nodes of one level work in parallel;
 * a BM too small for its step's volume makes the step run in chunks,
 * each paying the link latency again.  The estimate is for the
 * planner; the simulator's count is authoritative.
 */
#include "codegen/acc/layout.h"

#include <stdlib.h>
#include <string.h>

static const char *const step_names[ACC_STEP__COUNT] = {
    "local", "rotate", "up", "store", "load", "down",
};

const char *acc_step_name(AccStepKind k)
{
    return (unsigned)k < ACC_STEP__COUNT ? step_names[k] : "?";
}

/* Element counts per node of every level (and per DRAM channel).  An
 * element crossing a link for several of its copies counts once: the
 * stamps hold the number of the last element counted at each node and
 * child (elements are numbered from 1), and nchild how many children
 * of a node this element goes to. */
typedef struct Count {
    int64_t *node[ACC_MAX_LEVELS];      /* elements at the BM side */
    int64_t *bcast[ACC_MAX_LEVELS];     /* of which broadcast (down) */
    int64_t *child[ACC_MAX_LEVELS];     /* per node of the child level */
    int child_level[ACC_MAX_LEVELS];
    int64_t *node_stamp[ACC_MAX_LEVELS];
    int64_t *child_stamp[ACC_MAX_LEVELS];
    int64_t *nchild[ACC_MAX_LEVELS];
} Count;

typedef struct Cv {
    TlArena *a;
    const AccLayout *S, *D;
    const AccMachine *m;
    int nbm;                        /* BM levels, bottom up */
    int bm[ACC_MAX_LEVELS];         /* their level indices */
    int64_t nchan;                  /* DRAM channels in use */
    Count up, down;
    int64_t *store, *load;          /* per channel */
    int64_t *local;                 /* per PE: elements moved */
    int64_t *rotate;                /* per parent of PEs: elements x
                                     * distance */
    double dram_cycles;             /* stores and loads together */
    int64_t *store_stamp, *load_stamp;
    int64_t elem;                   /* the element being routed, from 1 */
    AccConvPlan *p;
} Cv;

static int64_t *counts(Cv *c, int level)
{
    return arena_alloc(c->a, (size_t)acc_level_nodes(c->m, level) *
                                 sizeof(int64_t));
}

/* Per-node bookkeeping of the routing alone: not kept in the arena,
 * which holds the plan (freed when the plan is done). */
static int64_t *scratch(Cv *c, int level)
{
    return tl_xcalloc((size_t)acc_level_nodes(c->m, level),
                      sizeof(int64_t));
}

/* The level of the children of BM level bm[i] on a path ending at node
 * level `end`: the next BM level down, or the end node itself. */
static int child_level(const Cv *c, int i, int end)
{
    for (int j = i - 1; j >= 0; j--)
        if (c->bm[j] <= end)
            return c->bm[j];
    return end;
}

/* Counts the current element crossing one link: kind (UP, STORE,
 * LOAD, DOWN), the BM level, the node at that level (a DRAM channel
 * for STORE/LOAD) and the child on the other side; each link once per
 * element whatever the number of its copies (a copy per child of a
 * node going down is a broadcast). */
static void hop(Cv *c, int kind, int level, int64_t node, int64_t child)
{
    Count *ct = kind == ACC_STEP_UP ? &c->up : &c->down;

    switch (kind) {
    case ACC_STEP_STORE:
        if (c->store_stamp[node] != c->elem) {
            c->store_stamp[node] = c->elem;
            c->store[node]++;
        }
        return;
    case ACC_STEP_LOAD:
        if (c->load_stamp[node] != c->elem) {
            c->load_stamp[node] = c->elem;
            c->load[node]++;
        }
        return;
    default:
        break;
    }
    if (ct->node_stamp[level][node] != c->elem) {
        ct->node_stamp[level][node] = c->elem;
        ct->node[level][node]++;
        ct->nchild[level][node] = 0;
    }
    if (ct->child_stamp[level][child] != c->elem) {
        ct->child_stamp[level][child] = c->elem;
        ct->child[level][child]++;
        if (kind == ACC_STEP_DOWN && ++ct->nchild[level][node] == 2)
            ct->bcast[level][node]++;
    }
}

static int64_t channel(const Cv *c, const AccLoc *l)
{
    int64_t per = c->m->level[0].fanout / c->nchan;
    return l->node_level < 0 ? 0 : l->path[0] / (per ? per : 1);
}

/* The hops of one element copy from s to d meeting at BM index top
 * (c->nbm: the root). */
static void route(Cv *c, const AccLoc *s, const AccLoc *d, int top)
{
    /* Up from the source to bm[top] (or to the top BM, then DRAM). */
    for (int i = 0; i < c->nbm && i <= top; i++) {
        int b = c->bm[i], cl;
        if (b >= s->node_level)
            continue;
        cl = child_level(c, i, s->node_level);
        hop(c, ACC_STEP_UP, b, acc_loc_node(c->m, s, b),
            acc_loc_node(c->m, s, cl));
    }
    if (top == c->nbm) {
        if (s->node_level >= 0)
            hop(c, ACC_STEP_STORE, -1, channel(c, s), 0);
        if (d->node_level >= 0)
            hop(c, ACC_STEP_LOAD, -1, channel(c, d), 0);
    }
    for (int i = 0; i < c->nbm && i <= top; i++) {
        int b = c->bm[i], cl;
        if (b >= d->node_level)
            continue;
        cl = child_level(c, i, d->node_level);
        hop(c, ACC_STEP_DOWN, b, acc_loc_node(c->m, d, b),
            acc_loc_node(c->m, d, cl));
    }
}

/* The BM index where s and d meet: the lowest BM level at or above
 * the deepest level they share; c->nbm (the root) when none. */
static int meet(const Cv *c, int common)
{
    for (int i = 0; i < c->nbm; i++)
        if (c->bm[i] <= common - 1)
            return i;
    return c->nbm;
}

/* One destination copy d of an element whose copy 0 in the source is
 * at s0. */
static void one_copy(Cv *c, const AccLoc *s0, const AccLoc *d)
{
    const AccMachine *m = c->m;
    AccLoc s = *s0;
    int low, common = 0, pe = m->nlevels - 1;

    /* The nearest source copy: on each B@ level of the source, the
     * destination's own child index. */
    for (int lv = 0; lv < m->nlevels; lv++)
        if (c->S->bcast & (1u << lv))
            s.path[lv] = lv <= d->node_level ? d->path[lv] : 0;
    low = s.node_level < d->node_level ? s.node_level : d->node_level;
    while (common <= low && s.path[common] == d->path[common])
        common++;
    c->p->by[common]++;
    if (s.node_level == d->node_level && common == s.node_level + 1) {
        if (s.space == d->space && s.addr == d->addr && s.word == d->word)
            c->p->renames++;
        else if (s.node_level == pe)
            c->local[acc_loc_node(m, &s, pe)]++;
        else
            route(c, &s, d, meet(c, common));
        return;
    }
    if (pe >= 1 && s.node_level == pe && d->node_level == pe &&
        common == pe && m->level[pe - 1].bm_words == 0) {
        int64_t f = m->level[pe].fanout;
        int64_t dist = ((d->path[pe] - s.path[pe]) % f + f) % f;
        c->rotate[acc_loc_node(m, &s, pe - 1)] += dist;
        return;
    }
    route(c, &s, d, meet(c, common));
}

/* ====================================================================
 * Steps and their cost
 * ==================================================================== */

static int64_t words(const Cv *c, int64_t elems)
{
    int epl = c->D->epl;
    return (elems + epl - 1) / epl;
}

static AccConvStep *new_step(Cv *c, AccStepKind k, int level)
{
    AccConvPlan *p = c->p;
    AccConvStep *st = &p->steps[p->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = k;
    st->level = level;
    st->chunks = 1;
    return st;
}

/* Fills words, nodes and max_node of st from per-node element counts
 * v[n]. */
static void sum_nodes(Cv *c, AccConvStep *st, const int64_t *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t w = words(c, v[i]);
        if (!w)
            continue;
        st->words += w;
        st->nodes++;
        if (w > st->max_node)
            st->max_node = w;
    }
}

static int64_t max_words(Cv *c, const int64_t *v, int64_t n)
{
    int64_t mx = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t w = words(c, v[i]);
        if (w > mx)
            mx = w;
    }
    return mx;
}

static void finish(Cv *c, AccConvStep *st)
{
    if (!st->words) {
        c->p->nsteps--;
        return;
    }
    c->p->cycles += st->cycles;
    /* DRAM stores and loads share the channels: they cannot overlap
     * each other, only the other steps. */
    if (st->kind == ACC_STEP_STORE || st->kind == ACC_STEP_LOAD) {
        c->dram_cycles += st->cycles;
        if (c->dram_cycles > c->p->cycles_overlap)
            c->p->cycles_overlap = c->dram_cycles;
    } else if (st->cycles > c->p->cycles_overlap) {
        c->p->cycles_overlap = st->cycles;
    }
}

/* Chunks a BM level's steps run in: its busiest node's volume over
 * its capacity. */
static int64_t chunks(Cv *c, int b)
{
    int64_t n = acc_level_nodes(c->m, b), need, cap;
    need = max_words(c, c->up.node[b], n);
    if (max_words(c, c->down.node[b], n) > need)
        need = max_words(c, c->down.node[b], n);
    cap = c->m->level[b].bm_words;
    return cap > 0 && need > cap ? (need + cap - 1) / cap : 1;
}

static void link_step(Cv *c, AccStepKind k, int b)
{
    const AccLevel *lv = &c->m->level[b];
    const Count *ct = k == ACC_STEP_UP ? &c->up : &c->down;
    int64_t n = acc_level_nodes(c->m, b);
    int cl = ct->child_level[b];
    AccConvStep *st = new_step(c, k, b);
    double t;

    sum_nodes(c, st, ct->node[b], n);
    st->max_child = max_words(c, ct->child[b], acc_level_nodes(c->m, cl));
    st->chunks = chunks(c, b);
    if (k == ACC_STEP_UP) {
        t = (double)st->max_node / lv->bw_bm[ACC_XK_GATHER];
    } else {
        /* The busiest node sends its single-child words by dist and
         * the rest by broadcast. */
        double worst = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t bw = words(c, ct->bcast[b][i]);
            int64_t dw = words(c, ct->node[b][i] - ct->bcast[b][i]);
            double ti = (double)dw / lv->bw_bm[ACC_XK_DIST] +
                        (double)bw / lv->bw_bm[ACC_XK_BCAST];
            st->words_bcast += bw;
            if (ti > worst)
                worst = ti;
        }
        t = worst;
    }
    {
        double tc = (double)st->max_child /
                    lv->bw_child[k == ACC_STEP_UP ? ACC_XK_GATHER
                                                  : ACC_XK_DIST];
        if (tc > t)
            t = tc;
    }
    st->cycles = t + (double)st->chunks * lv->lat_steps *
                         c->m->step_cycles;
    finish(c, st);
}

static void dma_step(Cv *c, AccStepKind k)
{
    AccConvStep *st = new_step(c, k, 0);
    const int64_t *v = k == ACC_STEP_STORE ? c->store : c->load;
    int top = c->nbm ? c->bm[c->nbm - 1] : -1;

    sum_nodes(c, st, v, c->nchan);
    st->max_child = st->max_node;
    st->chunks = top >= 0 ? chunks(c, top) : 1;
    st->cycles = (double)st->max_node / c->m->dram_bw +
                 (double)st->chunks * c->m->dma_latency;
    finish(c, st);
}

static void local_steps(Cv *c)
{
    const AccMachine *m = c->m;
    int pe = m->nlevels - 1;
    AccConvStep *st = new_step(c, ACC_STEP_LOCAL, pe);

    /* ALU moves: one long word per PE per sub-cycle. */
    sum_nodes(c, st, c->local, acc_level_nodes(m, pe));
    st->max_child = st->max_node;
    st->cycles = (double)st->max_node;
    finish(c, st);
    if (pe < 1)
        return;
    /* Rotations: one long word per PE per sub-cycle and distance, the
     * parent's PEs all at once. */
    st = new_step(c, ACC_STEP_ROTATE, pe - 1);
    sum_nodes(c, st, c->rotate, acc_level_nodes(m, pe - 1));
    st->max_child = (st->max_node + m->level[pe].fanout - 1) /
                    m->level[pe].fanout;
    st->cycles = (double)st->max_child;
    finish(c, st);
}

AccConvPlan *acc_layout_convert_plan(TlArena *a, const AccLayout *src,
                                     const AccLayout *dst)
{
    Cv c;
    const AccMachine *m = src->m;
    AccConvPlan *p = arena_alloc(a, sizeof *p);

    TL_ASSERT(src->m == dst->m && src->rank == dst->rank &&
              src->nelems == dst->nelems && src->dtype == dst->dtype);
    memset(&c, 0, sizeof c);
    c.a = a;
    c.S = src;
    c.D = dst;
    c.m = m;
    c.p = p;
    p->src = src;
    p->dst = dst;
    for (int i = m->nlevels - 1; i >= 0; i--)
        if (m->level[i].bm_words > 0)
            c.bm[c.nbm++] = i;
    c.nchan = m->dram_channels < m->level[0].fanout ? m->dram_channels
                                                    : m->level[0].fanout;
    if (c.nchan < 1)
        c.nchan = 1;
    for (int i = 0; i < c.nbm; i++) {
        int b = c.bm[i];
        int cl = i ? c.bm[i - 1] : m->nlevels - 1;
        c.up.node[b] = counts(&c, b);
        c.down.node[b] = counts(&c, b);
        c.down.bcast[b] = counts(&c, b);
        c.up.child[b] = counts(&c, cl);
        c.down.child[b] = counts(&c, cl);
        c.up.child_level[b] = c.down.child_level[b] = cl;
        for (int u = 0; u < 2; u++) {
            Count *ct = u ? &c.down : &c.up;
            ct->node_stamp[b] = scratch(&c, b);
            ct->nchild[b] = scratch(&c, b);
            ct->child_stamp[b] = scratch(&c, cl);
        }
    }
    c.store = arena_alloc(a, (size_t)c.nchan * sizeof(int64_t));
    c.load = arena_alloc(a, (size_t)c.nchan * sizeof(int64_t));
    c.store_stamp = tl_xcalloc((size_t)c.nchan, sizeof(int64_t));
    c.load_stamp = tl_xcalloc((size_t)c.nchan, sizeof(int64_t));
    c.local = counts(&c, m->nlevels - 1);
    c.rotate = m->nlevels > 1 ? counts(&c, m->nlevels - 2) : c.local;

    for (int64_t e = 0; e < dst->nelems; e++) {
        AccLoc s0, d0;
        c.elem = e + 1;
        acc_layout_locate(src, e, 0, &s0);
        acc_layout_locate(dst, e, 0, &d0);
        for (int64_t k = 0; k < dst->ncopies; k++) {
            AccLoc d = d0;
            acc_layout_set_copy(dst, k, &d);
            one_copy(&c, &s0, &d);
            p->copies++;
        }
    }
    for (int i = 0; i < c.nbm; i++)
        for (int u = 0; u < 2; u++) {
            Count *ct = u ? &c.down : &c.up;
            free(ct->node_stamp[c.bm[i]]);
            free(ct->nchild[c.bm[i]]);
            free(ct->child_stamp[c.bm[i]]);
        }
    free(c.store_stamp);
    free(c.load_stamp);

    p->steps = arena_alloc(a, (size_t)(2 * c.nbm + 4) * sizeof *p->steps);
    local_steps(&c);
    for (int i = 0; i < c.nbm; i++)
        link_step(&c, ACC_STEP_UP, c.bm[i]);
    dma_step(&c, ACC_STEP_STORE);
    dma_step(&c, ACC_STEP_LOAD);
    for (int i = c.nbm - 1; i >= 0; i--)
        link_step(&c, ACC_STEP_DOWN, c.bm[i]);
    return p;
}

double acc_layout_convert_cost(TlArena *a, const AccLayout *src,
                               const AccLayout *dst)
{
    return acc_layout_convert_plan(a, src, dst)->cycles;
}

/* ====================================================================
 * Printing
 * ==================================================================== */

static const char *link_name(const AccMachine *m, const AccConvStep *st,
                             char *buf, size_t n)
{
    switch (st->kind) {
    case ACC_STEP_LOCAL:
        snprintf(buf, n, "inside each %s", m->level[st->level].name);
        break;
    case ACC_STEP_ROTATE:
        snprintf(buf, n, "inside each %s", m->level[st->level].name);
        break;
    case ACC_STEP_UP:
        snprintf(buf, n, "children -> %s BM", m->level[st->level].name);
        break;
    case ACC_STEP_DOWN:
        snprintf(buf, n, "%s BM -> children", m->level[st->level].name);
        break;
    case ACC_STEP_STORE:
        snprintf(buf, n, "top BMs -> DRAM");
        break;
    case ACC_STEP_LOAD:
        snprintf(buf, n, "DRAM -> top BMs");
        break;
    case ACC_STEP__COUNT:
        buf[0] = 0;
        break;
    }
    return buf;
}

void acc_conv_plan_print(TlBuf *out, const AccConvPlan *p)
{
    const AccMachine *m = p->src->m;
    char name[64];

    buf_printf(out, "%lld element copies; where source and destination "
                    "meet:\n", (long long)p->copies);
    for (int d = m->nlevels; d >= 0; d--) {
        if (!p->by[d])
            continue;
        if (d == m->nlevels)
            buf_printf(out, "  same %-5s %10lld  (%lld in place)\n",
                       m->level[d - 1].name, (long long)p->by[d],
                       (long long)p->renames);
        else if (d == 0)
            buf_printf(out, "  root       %10lld\n", (long long)p->by[d]);
        else
            buf_printf(out, "  same %-5s %10lld\n", m->level[d - 1].name,
                       (long long)p->by[d]);
    }
    if (!p->nsteps) {
        buf_puts(out, "no data moves: 0 cycles\n");
        return;
    }
    buf_printf(out, "%-7s %-20s %10s %10s %8s %6s %10s\n", "step", "link",
               "words", "max/node", "nodes", "chunks", "cycles");
    for (int i = 0; i < p->nsteps; i++) {
        const AccConvStep *st = &p->steps[i];
        buf_printf(out, "%-7s %-20s %10lld %10lld %8lld %6lld %10.0f\n",
                   acc_step_name(st->kind),
                   link_name(m, st, name, sizeof name),
                   (long long)st->words, (long long)st->max_node,
                   (long long)st->nodes, (long long)st->chunks,
                   st->cycles);
    }
    buf_printf(out, "total: %.0f cycles one step after the other, "
                    "%.0f if the steps overlapped perfectly\n",
               p->cycles, p->cycles_overlap);
}
