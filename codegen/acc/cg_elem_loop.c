/*
 * cg_elem_loop.c - the elementwise route's group loop (cg_elem.c):
 * the groups software-pipelined, each group's compute with the tree
 * transfers of the groups beside it and the DMAs of a later one in its
 * bundles' free slots, and the route's model of the program.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef AccCg Cg;

/* The stores' DMA tag (7 when NB > 3, Bufs.stag); the loads' are their
 * top sets, 0 .. NB - 1. */
enum { STORE_TAG = 3 };

/* Steps after a whole-group transfer of BM level k (down: dist, else
 * gather) before its result may be read: its occupancy as the
 * simulator counts it (docs/accel-asm.md, "Timing"), and the latency. */
static int64_t settle(const AccMachine *m, int k, int down)
{
    int lv = acc_bm_level(m, k);
    const AccLevel *l = &m->level[lv];
    int xk = down ? ACC_XK_DIST : ACC_XK_GATHER;
    double n = (double)acc_level_span(m, lv) * 4, child = 4;

    if (k > 1)
        child = (double)acc_level_span(m, acc_bm_level(m, k - 1)) * 4;
    return (int64_t)ceil(fmax(n / l->bw_bm[xk], child / l->bw_child[xk]) /
                         m->step_cycles) + l->lat_steps + 1;
}

static void put_shape(TlBuf *b, int rank, const int64_t *shape)
{
    buf_puts(b, "f32[");
    for (int i = 0; i < rank; i++)
        buf_printf(b, "%s%lld", i ? "," : "", (long long)shape[i]);
    buf_puts(b, "]");
}

/* Where the buffers of the group loop lie: in the top BM, NB sets of
 * the operands' shares (set b holds the groups g with g % NB == b) and
 * the result's; in each lower BM one share per operand and the
 * result's. */
typedef struct Bufs {
    int nb;                 /* top BM sets of operands: 5 .. 1 */
    int sets;               /* lm0 sets of operands: 2, or 1 */
    int64_t topw;           /* long words a top node holds of a group */
    /* Early: each group's way down begins two groups ahead, its levels
     * above L1 in the bundles of group g - 2 into one of two sets of
     * the lower BMs' operand words (group h's: set h % 2), its dist.L1s
     * in group g - 1's; ns: the lower BMs' operand shares (2n, or n),
     * the result's after them; stag: the stores' DMA tag. */
    int early, ns, stag;
} Bufs;

/* DRAM long word base + g * gw, g an address expression: a number
 * when g is one. */
static const char *dram_at(char *buf, size_t n, int64_t base,
                           const char *gx, int64_t gw)
{
    char *end;
    long long v = strtoll(gx, &end, 10);

    if (*gx && !*end)
        snprintf(buf, n, "%lld", (long long)(base + v * gw));
    else
        snprintf(buf, n, "%lld + (%s) * %lld", (long long)base, gx,
                 (long long)gw);
    return buf;
}

/* Group g's DMAs of every operand into top set b, under tag b (g: an
 * address expression). */
static void group_dma(Cg *g, TlBuf *o, const Bufs *u, const char *gx,
                      int b, int64_t groups, int64_t gw)
{
    char t[16];

    acc_cg_bm_name(t, sizeof t, acc_bm_levels(g->m));
    for (int i = 0; i < g->p->nins; i++) {
        int64_t base = i * groups * gw;
        char x0[96], x1[96];
        buf_printf(o, "dma.dist.t%d d[%s : %s] -> %s[%lld]\n", b,
                   dram_at(x0, sizeof x0, base, gx, gw),
                   dram_at(x1, sizeof x1, base + gw, gx, gw), t,
                   (long long)((b * g->p->nins + i) * u->topw));
    }
}

/* gx + d as an address expression (a number when gx is one). */
static const char *g_plus(char *buf, size_t n, const char *gx, int d)
{
    char *end;
    long long v = strtoll(gx, &end, 10);

    if (*gx && !*end)
        snprintf(buf, n, "%lld", v + d);
    else
        snprintf(buf, n, "%s + %d", gx, d);
    return buf;
}

/* Group gx's way down from its top set b into lm0 from word lm,
 * without the wait for its DMAs: every operand down the tree level by
 * level (the operands' transfers of a level back to back, one settling
 * after them), through the lower BMs' set ls.  part: bit 0 the levels
 * above L1, bit 1 the dist.L1s. */
static void emit_down(Cg *g, TlBuf *o, const Bufs *u, int b, int64_t lm,
                      int ls, int part)
{
    const AccMachine *m = g->m;
    int nbm = acc_bm_levels(m), n = g->p->nins;
    char bn[16], cn[16];

    for (int k = nbm; k >= 2 && (part & 1); k--) {
        int64_t sz = acc_level_span(m, acc_bm_level(m, k)) * 4;
        int64_t csz = acc_level_span(m, acc_bm_level(m, k - 1)) * 4;
        acc_cg_bm_name(bn, sizeof bn, k);
        acc_cg_bm_name(cn, sizeof cn, k - 1);
        for (int i = 0; i < n; i++) {
            int64_t from = k == nbm ? (b * n + i) * u->topw
                                    : (ls * n + i) * sz;
            buf_printf(o, "dist.L%d %s[%lld:%lld] -> %s[%lld]\n", k, bn,
                       (long long)from, (long long)(from + sz), cn,
                       (long long)((ls * n + i) * csz));
        }
        acc_cg_nop(o, settle(m, k, 1));
    }
    if (!(part & 2))
        return;
    for (int i = 0; i < n; i++)
        buf_printf(o, "dist.L1 lb[%lld] -> lm0[%lld+]\n",
                   (long long)(nbm == 1 ? (b * n + i) * u->topw
                                        : (ls * n + i) * acc_level_span(
                                              m, acc_bm_level(m, 1)) * 4),
                   (long long)(lm + 8 * i));
    acc_cg_nop(o, settle(m, 1, 1));
}

/* Group gx's way up: the result in lm1 gathered level by level, then
 * its DMA, which is not waited for: a DMA reads its source when it
 * issues, so the next group may write the same BM words at once. */
static void emit_up(Cg *g, TlBuf *o, const Bufs *u, const char *gx,
                    int64_t groups, int64_t gw, int set)
{
    const AccMachine *m = g->m;
    int nbm = acc_bm_levels(m), n = g->p->nins;
    int64_t out = (int64_t)n * groups * gw;
    int64_t at = nbm == 1 ? u->nb * n * u->topw
                          : u->ns * acc_level_span(m, acc_bm_level(m, 1)) * 4;
    char bn[16], cn[16], nx[96];

    buf_printf(o, "gather.L1 lm1[%d+] -> lb[%lld]\nnop/%lld\n",
               u->early ? 8 * set : 0, (long long)at,
               (long long)settle(m, 1, 0));
    for (int k = 2; k <= nbm; k++) {
        int64_t csz = acc_level_span(m, acc_bm_level(m, k - 1)) * 4;
        int64_t to = k == nbm ? u->nb * n * u->topw
                              : u->ns * acc_level_span(m, acc_bm_level(m, k)) *
                                    4;
        acc_cg_bm_name(bn, sizeof bn, k);
        acc_cg_bm_name(cn, sizeof cn, k - 1);
        buf_printf(o, "gather.L%d %s[%lld:%lld] -> %s[%lld]\nnop/%lld\n", k,
                   cn, (long long)at, (long long)(at + csz), bn,
                   (long long)to, (long long)settle(m, k, 0));
        at = to;
    }
    acc_cg_bm_name(bn, sizeof bn, nbm);
    buf_printf(o, "dma.gather.t%d %s[%lld:%lld] -> d[%s]\n", u->stag, bn,
               (long long)(u->nb * n * u->topw),
               (long long)(u->nb * n * u->topw + u->topw),
               dram_at(nx, sizeof nx, out, gx, gw));
}

/* b emptied, its text "" (a route with no operand writes none). */
static const char *clear(TlBuf *b)
{
    b->len = 0;
    buf_putc(b, '\0');
    b->len = 0;
    return b->s;
}

/* The LMs a bundle names, bit i for lm<i>. */
static int lms_named(const char *line, size_t len)
{
    int r = 0;

    for (size_t i = 0; i + 3 <= len; i++)
        if (!strncmp(line + i, "lm0", 3) || !strncmp(line + i, "lm1", 3))
            r |= 1 << (line[i + 2] - '0');
    return r;
}

/* Writes the bundles of text (lines of ops, `nop/N`) to o, the ops
 * the engine has ready riding in their free slots and in the steps
 * of their nops. */
static void ride(TlBuf *o, AccCgOverlap *v, const char *text)
{
    int64_t idle = 0;

    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n");
        long long k;
        const char *op;
        if (sscanf(l, "nop/%lld", &k) == 1) {
            for (; k > 0; k--) {
                if (!(op = acc_cg_ov_next(v, 0))) {
                    idle++;
                    continue;
                }
                acc_cg_nop(o, idle);
                idle = 0;
                buf_printf(o, "%s\n", op);
            }
        } else if (len) {
            acc_cg_nop(o, idle);
            idle = 0;
            buf_putn(o, l, len);
            if ((op = acc_cg_ov_next(v, lms_named(l, len))))
                buf_printf(o, " ; %s", op);
            buf_putc(o, '\n');
        }
        l += len + (l[len] == '\n');
    }
    acc_cg_nop(o, idle);
}

/* One group's bundles: its compute, with the transfers around it
 * scheduled by the overlap engine (cg_overlap.c) in its free slots,
 * in three queues: the way down of the group after (queue 0; nx: its
 * index, NULL for none), after the wait for its DMAs, into the other
 * LM set (with one set, once the compute is done); the way up of the
 * group before (queue 1; px), done before the result is written to
 * the lm1 it reads; the DMAs of group gx + NB (queue 2; dma: that
 * group exists) into the top set this group's way down, before, has
 * read.  With one top set, the next group waits for DMAs that go out
 * in these bundles: its wait goes in behind them.  The way down is
 * done by the end, so the next group's compute may read it.  A DMA
 * reads its source when it issues, so the stores are not waited for.
 * Returns the steps. */
typedef struct GroupAt {
    const char *gx, *nx, *px;
    int dma;
    int tag, ntag;          /* its top set and tag, the next group's */
    int set;                /* the LM set of operands it reads */
    /* Early (Bufs.early): the group two on (NULL: none) and its tag,
     * whose levels above L1 go in queue 3 of these bundles; whether the
     * next group's are still to do (group 0's bundles). */
    const char *nnx;
    int nntag, nup;
} GroupAt;

static int64_t emit_group(Cg *g, const Bufs *u, const TlBuf *ct,
                          const GroupAt *a, int64_t groups, int64_t gw)
{
    const AccMachine *m = g->m;
    TlBuf *o = &g->p->text, t, down, sec;
    AccCgOverlap ov;
    char x[96], w[32];
    int64_t steps;

    buf_init(&t);
    buf_init(&down);
    buf_init(&sec);
    clear(&t);
    clear(&down);
    clear(&sec);
    acc_cg_ov_init(&ov, m);
    for (int i = 0; i < 4; i++)
        ov.q[i].last = -1;
    if (a->dma) {
        group_dma(g, &t, u, g_plus(x, sizeof x, a->gx, u->nb), a->tag,
                  groups, gw);
        acc_cg_ov_text(&ov, 2, t.s);
    }
    if (a->nx) {
        snprintf(w, sizeof w, "wait t%d", a->ntag);
        /* Early, its wait went with its upper levels, a group ago. */
        if (u->early && !a->nup)
            ;
        else if (u->nb == 1)
            acc_cg_ov_after(&ov, 0, w, 3, 2);
        else
            acc_cg_ov_text(&ov, 0, w);
        emit_down(g, &down, u, a->ntag, u->sets == 2 ? 8 * g->p->nins *
                                                          (1 - a->set) : 0,
                  u->early ? 1 - a->set : 0,
                  u->early && !a->nup ? 2 : 3);
        if (u->sets == 2)
            acc_cg_ov_text(&ov, 0, down.s);
    }
    if (u->early && a->nnx) {
        clear(&t);
        buf_printf(&t, "wait t%d\n", a->nntag);
        emit_down(g, &t, u, a->nntag, 0, a->set, 1);
        acc_cg_ov_text(&ov, 3, t.s);
    }
    if (a->px) {
        clear(&t);
        emit_up(g, &t, u, a->px, groups, gw, 1 - a->set);
        acc_cg_ov_text(&ov, 1, t.s);
    }
    ride(&sec, &ov, ct[a->set].s ? ct[a->set].s : "");
    /* Early, the results alternate between two lm1 sets as the
     * operands do: the way up of the group before need not have read
     * its set first. */
    if (!u->early)
        acc_cg_ov_flush(&ov, &sec, 2u);
    clear(&t);
    buf_printf(&t, "mov.f32 r[0+] -> lm1[%d+]\nnop/%d\n",
               u->early ? 8 * a->set : 0, m->lat_lm);
    ride(&sec, &ov, t.s);
    if (a->nx && u->sets == 1)
        acc_cg_ov_text(&ov, 0, down.s);
    acc_cg_ov_flush(&ov, &sec, ~0u);
    acc_cg_ov_free(&ov);
    buf_puts(o, sec.s);
    steps = acc_cg_text_steps(sec.s);
    buf_free(&t);
    buf_free(&down);
    buf_free(&sec);
    return steps;
}

/* Steps of a run of compute text: a bundle a line, `nop/N` N. */
int64_t acc_cg_text_steps(const char *t)
{
    int64_t n = 0;
    long long k;

    for (const char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
                                                        : NULL) {
        if (*l == '\n' || *l == '#')
            continue;
        n += sscanf(l, "nop/%lld", &k) == 1 ? k : 1;
    }
    return n;
}

/* The route's model of the program emit_program writes, in cycles,
 * from the steps of its parts (t): a group's bundles (its compute, the
 * next group's wait and way down, the way up of the group before and
 * DMAs in their free slots),
 * or its DRAM traffic when the channels are slower, or its DMA's
 * latency when NB groups do not cover it; the first group's DMAs (if
 * it loads any), wait and way down alone before, the last group's way
 * up and store after. */
typedef struct Steps {
    int64_t first, body, last;
    int64_t g0;             /* group 0's bundles (early: with group 1's
                             * upper levels), body the longest other's */
} Steps;

static double elem_estimate(const Cg *g, const Bufs *u, const Steps *t,
                            int64_t groups, int64_t gw)
{
    const AccMachine *m = g->m;
    int nbm = acc_bm_levels(m), n = g->p->nins;
    int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
    int64_t ch = NT < m->dram_channels ? NT : m->dram_channels;
    double body = (double)(groups > 1 ? t->body : t->g0), dma, lat, per;

    /* Steps of one group's words on the busiest channel, loads and
     * store. */
    dma = (double)(n + 1) * gw / ch / m->dram_bw / m->step_cycles;
    lat = (double)m->dma_latency / m->step_cycles;
    per = fmax(body, dma);
    /* A group's loads go out, after the compute has begun, NB - 1
     * groups before the one whose bundles hold its way down; with one
     * top set, in those bundles, whose end (the way down) waits for
     * them. */
    per = fmax(per, ((double)n * m->dma_issue_steps + lat + dma +
                     (u->nb > 1 ? 0 : (double)t->first)) /
                        (u->nb > 1 ? u->nb - 1 - u->early : 1));
    /* The first group's loads come before any bundle of it, the last
     * store after all of them. */
    return ((n ? lat : 0) + dma * n / (n + 1) + (double)t->first +
            (double)t->g0 + (double)(groups - 1) * per + (double)t->last +
            1 + lat + dma / (n + 1)) * m->step_cycles;
}

/* The group loop: the first NB groups' DMAs and group 0's way down,
 * then every group's bundles (emit_group), a loop body of L of them
 * where the middle groups repeat, the last group's way up, and the
 * wait for the stores. */
int acc_cg_elem_program(Cg *g, const LExpr *e, int64_t groups, int64_t gw)
{
    const AccMachine *m = g->m;
    AccCgProgram *p = g->p;
    TlBuf *o = &p->text;
    int nbm = acc_bm_levels(m), n = p->nins, L;
    int64_t out = (int64_t)n * groups * gw, rep, first, steps;
    Bufs u;
    Steps t;
    char gx[64], px[64], nx[64], nnx[64];
    TlBuf tx, ct[2], *keep = g->t;

    /* The compute text reading each lm0 set of operands: two when
     * they fit, so that the next group's way down may write one while
     * this group's compute reads the other. */
    u.sets = 2 * 8 * n <= 2 * m->lm_words ? 2 : 1;
    ct[0] = *g->t;
    buf_init(&ct[1]);
    if (u.sets == 2) {
        g->t = &ct[1];
        g->op_at = 8 * n;
        if (acc_cg_eval(g, e, 0)) {
            g->t = keep;
            buf_free(&ct[1]);
            return -1;
        }
        g->t = keep;
        g->op_at = 0;
    }
    buf_init(&tx);
    u.topw = acc_level_span(m, acc_bm_level(m, nbm)) * 4;
    /* Early when the lower BMs hold two sets of operands and the top
     * one five sets or four: a group's loads go out NB - 2 groups
     * before the bundles of its way down's upper levels.  Else a
     * group's loads go out NB - 1 groups before its way down. */
    u.early = u.sets == 2 && nbm >= 2 && n > 0;
    for (int k = 1; k < nbm && u.early; k++)
        if ((2 * n + 1) * acc_level_span(m, acc_bm_level(m, k)) * 4 >
            m->level[acc_bm_level(m, k)].bm_words)
            u.early = 0;
    for (u.nb = u.early ? 5 : 3; u.nb > 1; u.nb--)
        if ((u.nb * n + 1) * u.topw <=
            m->level[acc_bm_level(m, nbm)].bm_words)
            break;
    if (u.nb < 4 && u.early) {
        u.early = 0;
        if (u.nb > 3)
            u.nb = 3;
    }
    u.ns = u.early ? 2 * n : n;
    u.stag = u.early ? 7 : STORE_TAG;
    L = u.nb % 2 ? 2 * u.nb : u.nb;
    buf_printf(o, "# accel: kernel %s, %lld elements in %lld groups of "
               "%lld long words\n", g->c->k->name, (long long)p->nelems,
               (long long)groups, (long long)gw);
    for (int i = 0; i < n; i++) {
        const TlTensor *x = g->c->in[p->ins[i].input];
        buf_printf(o, ".input %s ", p->ins[i].name);
        if (p->ins[i].map)
            buf_printf(o, "f32[%lld]", (long long)p->ins[i].nmap);
        else if (p->ins[i].direct)
            put_shape(o, x->rank, x->shape);
        else
            put_shape(o, g->c->out_rank, g->c->out_shape);
        buf_printf(o, " d[%lld]\n", (long long)(i * groups * gw));
    }
    buf_printf(o, ".output %s ", g->c->k->outputs[0]->name);
    if (p->omap)
        buf_printf(o, "f32[%lld]", (long long)p->oimage);
    else
        put_shape(o, g->c->out_rank, g->c->out_shape);
    buf_printf(o, " d[%lld]\n", (long long)out);
    for (int b = 0; b < u.nb && b < groups; b++) {
        snprintf(gx, sizeof gx, "%d", b);
        group_dma(g, o, &u, gx, b, groups, gw);
    }
    /* Group 0's way down alone; then group 0, the groups from 1 on
     * L a loop body (the LM sets and tags cycle) as long as the
     * group after each exists and so does the group NB on to load;
     * the rest unrolled; the last group's way up. */
    memset(&t, 0, sizeof t);
    clear(&tx);
    buf_puts(o, "wait t0\n");
    emit_down(g, &tx, &u, 0, 0, 0, 3);
    buf_puts(o, tx.s);
    t.first = 1 + acc_cg_text_steps(tx.s);
    rep = groups > u.nb + 1 ? (groups - u.nb - 1) / L : 0;
    for (first = 0; first < groups; first++) {
        GroupAt a;
        if (first == 1 && rep > 0) {
            buf_printf(o, ".rep %lld\n", (long long)rep);
            for (int64_t j = 1; j <= L; j++) {
                snprintf(gx, sizeof gx, "%%i * %d + %lld", L, (long long)j);
                snprintf(nx, sizeof nx, "%%i * %d + %lld", L,
                         (long long)j + 1);
                snprintf(px, sizeof px, "%%i * %d + %lld", L,
                         (long long)j - 1);
                a.gx = gx;
                a.nx = nx;
                a.px = px;
                a.dma = 1;
                a.tag = (int)(j % u.nb);
                a.ntag = (int)((j + 1) % u.nb);
                a.set = u.sets == 2 ? (int)(j % 2) : 0;
                snprintf(nnx, sizeof nnx, "%%i * %d + %lld", L,
                         (long long)j + 2);
                a.nnx = nnx;
                a.nntag = (int)((j + 2) % u.nb);
                a.nup = 0;
                steps = emit_group(g, &u, ct, &a, groups, gw);
                t.body = steps > t.body ? steps : t.body;
            }
            buf_puts(o, ".endrep\n");
            first += L * rep - 1;
            continue;
        }
        snprintf(gx, sizeof gx, "%lld", (long long)first);
        snprintf(nx, sizeof nx, "%lld", (long long)first + 1);
        snprintf(px, sizeof px, "%lld", (long long)first - 1);
        a.gx = gx;
        a.nx = first + 1 < groups ? nx : NULL;
        a.px = first > 0 ? px : NULL;
        a.dma = first + u.nb < groups;
        a.tag = (int)(first % u.nb);
        a.ntag = (int)((first + 1) % u.nb);
        a.set = u.sets == 2 ? (int)(first % 2) : 0;
        snprintf(nnx, sizeof nnx, "%lld", (long long)first + 2);
        a.nnx = first + 2 < groups ? nnx : NULL;
        a.nntag = (int)((first + 2) % u.nb);
        a.nup = first == 0;
        steps = emit_group(g, &u, ct, &a, groups, gw);
        if (first == 0)
            t.g0 = steps;
        else
            t.body = steps > t.body ? steps : t.body;
    }
    clear(&tx);
    snprintf(px, sizeof px, "%lld", (long long)groups - 1);
    emit_up(g, &tx, &u, px, groups, gw, (int)((groups - 1) % 2));
    buf_puts(o, tx.s);
    t.last = acc_cg_text_steps(tx.s);
    buf_free(&tx);
    buf_printf(o, "wait t%d\n", u.stag);
    p->est_cycles = elem_estimate(g, &u, &t, groups, gw);
    buf_free(&ct[1]);
    return 0;
}
