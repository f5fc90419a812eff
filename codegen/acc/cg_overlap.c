/*
 * cg_overlap.c - transfers issued in the bundles of compute: the ops of
 * loads (acc_cg_emit_load_in), runs of them and reductions ride in the
 * free slots (DMA, the BM levels' links, CTL) of a run of compute
 * bundles that use only the MAU and MW slots, so the next block's data
 * moves while the matrix unit works on this one.
 *
 * Several in-order queues share the bundles (ACC_CG_OV_QUEUES): a
 * bundle takes at most one op per slot, the first queue first, so a
 * long run of one queue (the next A chunk of the matmul route) does
 * not hold back the ops of another (the next B set, the last
 * reduction) on links it does not use.  Each queue's text is written
 * as usual, then taken apart: an op keeps the steps its `nop/N` lines
 * asked for before it (a latency the simulator would report as a
 * hazard).  Across queues the engine keeps the machine's own rules as
 * the simulator times them (ACCELERATOR.md 5.1), so that nothing it
 * places stalls: a link slot is busy for its transfer's steps, a DMA
 * issues at most once per dma_issue_steps, DRAM channels move one
 * transfer at a time, and a `wait` goes in only once its queue's DMAs
 * of its tag should have landed.  The queues must use their own DMA
 * tags and BM words.  A bundle that reads an LM takes no op that names
 * it (one port per LM bank).  An op put in with acc_cg_ov_after also
 * waits for another queue to empty and for a third one's last DMA
 * (a store behind a load).  acc_cg_ov_flush writes the ops still queued
 * after the compute, as bundles of their own.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void acc_cg_ov_init(AccCgOverlap *v, const AccMachine *m)
{
    memset(v, 0, sizeof *v);
    v->m = m;
    buf_init(&v->line);
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++)
        buf_init(&v->q[i].text);
    /* A DMA may have issued just before the first bundle. */
    v->dma_last = 0;
    v->now = 0;
}

void acc_cg_ov_free(AccCgOverlap *v)
{
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++) {
        buf_free(&v->q[i].text);
        free(v->q[i].e);
    }
    buf_free(&v->line);
    memset(v, 0, sizeof *v);
}

/* The LMs (bit i: lm<i>) an op reads or writes. */
static int lms_of(const char *op)
{
    return (strstr(op, "lm0") ? 1 : 0) | (strstr(op, "lm1") ? 2 : 0);
}

/* Steps a transfer of BM level k holds its link. */
static int64_t occupancy(const AccMachine *m, int k, int kind, double bm,
                         double child)
{
    const AccLevel *l = &m->level[acc_bm_level(m, k)];
    double cyc = fmax(bm / l->bw_bm[kind], child / l->bw_child[kind]);
    int64_t steps = (int64_t)ceil(cyc / m->step_cycles - 1e-9);

    return steps < 1 ? 1 : steps;
}

/* The length of the first range [a:e] in op, or 0. */
static int64_t range_len(const char *op)
{
    long long a, e;

    for (const char *r = strchr(op, '['); r; r = strchr(r + 1, '['))
        if (sscanf(r, "[%lld:%lld]", &a, &e) == 2)
            return (int64_t)(e - a);
    return 0;
}

/* Fills in e's slot and how long it holds it, from its text. */
static void classify(const AccMachine *m, AccCgOvOp *e, const char *op)
{
    int nbm = acc_bm_levels(m);
    const char *dot = strchr(op, '.');
    int k;

    e->slot = ACC_SLOT_CTL;
    e->occ = 1;
    e->tag = -1;
    e->vol = 0;
    if (!strncmp(op, "wait t", 6)) {
        e->tag = atoi(op + 6);
        e->wait = 1;
        return;
    }
    if (!strncmp(op, "dma.", 4)) {
        /* Words per channel: a broadcast sends all of them on each, a
         * distribution or a combination the share of the top nodes
         * each channel serves. */
        int64_t NT = acc_level_nodes(m, acc_bm_level(m, nbm));
        int64_t per = NT / m->dram_channels > 0 ? NT / m->dram_channels : 1;
        int64_t n = range_len(op);
        const char *t = strstr(op, ".t");
        e->slot = ACC_SLOT_DMA;
        e->tag = t ? atoi(t + 2) : 0;
        e->dma = 1;
        e->vol = !strncmp(op, "dma.bcast", 9) ? n
                 : !strncmp(op, "dma.dist", 8) ? n * per / NT
                                               : n * per;
        /* A broadcast to a node set (`@{i,j}`) uses its nodes'
         * channels alone. */
        e->chans = 0;
        for (const char *c = strstr(op, "@{"); c && *c && *c != '}';) {
            char *end;
            int64_t nd = strtoll(c + (*c == '@' ? 2 : 1), &end, 10);
            int64_t ch = nd / per < m->dram_channels ? nd / per
                                                     : m->dram_channels - 1;
            if (ch < ACC_CG_OV_CHANNELS)
                e->chans |= (uint64_t)1 << ch;
            c = end;
        }
        return;
    }
    if (!dot || sscanf(dot, ".L%d", &k) != 1 || k < 1 || k > nbm)
        return;
    e->slot = ACC_SLOT_L + k - 1;
    int kind = !strncmp(op, "dist", 4) ? ACC_XK_DIST
               : !strncmp(op, "gather", 6) ? ACC_XK_GATHER
               : !strncmp(op, "bcast", 5) || !strncmp(op, "mbcast", 6)
                   ? ACC_XK_BCAST
                   : ACC_XK_RED;
    if (k == 1) {
        int64_t w = strstr(op, ".dd") ? 2 : 1;
        int64_t G = m->level[m->nlevels - 1].fanout;
        int64_t len = !strncmp(op, "bcast", 5) ? 4 * w
                      : kind == ACC_XK_DIST || kind == ACC_XK_GATHER
                          ? acc_cg_scope_pes(m, 1) * 4 * w
                          : G * 4 * w;
        e->occ = occupancy(m, 1, kind, (double)len, (double)(4 * w));
        return;
    }
    double n = (double)range_len(op);
    double F = (double)(acc_cg_scope_pes(m, k) / acc_cg_scope_pes(m, k - 1));
    e->occ = occupancy(m, k, kind, kind == ACC_XK_GATHER ? n * F : n,
                       kind == ACC_XK_DIST ? n / F : n);
}

static AccCgOvOp *push(AccCgOvQueue *q)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 32;
        q->e = tl_xrealloc(q->e, (size_t)q->cap * sizeof *q->e);
    }
    memset(&q->e[q->n], 0, sizeof q->e[q->n]);
    return &q->e[q->n++];
}

/* Appends to queue qi the ops of text (lines, `nop/N` lines between
 * them). */
static void queue(AccCgOverlap *v, int qi, const char *text, size_t tlen)
{
    AccCgOvQueue *q = &v->q[qi];
    int64_t pending = 0;
    size_t i = 0;

    while (i < tlen) {
        const char *line = text + i;
        size_t len = strcspn(line, "\n");
        if (!strncmp(line, "nop/", 4)) {
            pending += atoll(line + 4);
        } else if (len) {
            AccCgOvOp *e = push(q);
            e->at = (int64_t)q->text.len;
            e->hard = pending;
            buf_putn(&q->text, line, len);
            buf_putc(&q->text, '\0');
            classify(v->m, e, q->text.s + e->at);
            e->lms = lms_of(q->text.s + e->at);
            pending = 0;
        }
        i += len + 1;
    }
    /* What the text wrote is readable after the last nop: a last entry
     * with no op keeps it. */
    AccCgOvOp *e = push(q);
    e->at = -1;
    e->hard = pending;
}

void acc_cg_ov_load(AccCgOverlap *v, int qi, int64_t at, int64_t W,
                    const char *space, int64_t dst, int k, int tag,
                    const int64_t *off)
{
    TlBuf t;

    buf_init(&t);
    acc_cg_emit_load_in(&t, v->m, at, W, space, dst, k, tag, off);
    queue(v, qi, t.s, t.len);
    buf_free(&t);
}

void acc_cg_ov_run(AccCgOverlap *v, int qi, int64_t n, const int64_t *at,
                   const int64_t *W, int64_t Wmax, const char *space,
                   const int64_t *dst, int k, int tag, const int64_t *off)
{
    TlBuf t;

    buf_init(&t);
    acc_cg_emit_load_run(&t, v->m, n, at, W, Wmax, space, dst, k, tag, off);
    queue(v, qi, t.s, t.len);
    buf_free(&t);
}

void acc_cg_ov_text(AccCgOverlap *v, int qi, const char *text)
{
    queue(v, qi, text, strlen(text));
}

void acc_cg_ov_after(AccCgOverlap *v, int qi, const char *op, int dep,
                     int behind)
{
    const AccCgOvQueue *b = &v->q[behind];
    int64_t last = -1;

    for (int i = b->n - 1; i >= b->next && last < 0; i--)
        if (b->e[i].dma)
            last = i;
    queue(v, qi, op, strlen(op));
    /* The op, then the queue's end mark. */
    AccCgOvOp *e = &v->q[qi].e[v->q[qi].n - 2];
    e->after = dep + 1;
    e->behind = last >= 0 ? behind + 1 : 0;
    e->behind_i = last;
}

/* Whether queue q's next op may issue at step now (reads: the LMs the
 * bundle reads; used: the slots this bundle already fills). */
static int ready(const AccCgOverlap *v, const AccCgOvQueue *q, int reads,
                 unsigned used)
{
    const AccCgOvOp *e = &q->e[q->next];

    if (v->now < q->last + 1 + e->hard || e->at < 0)
        return 0;
    if (used >> e->slot & 1 || v->busy[e->slot] > v->now ||
        (reads & e->lms))
        return 0;
    if (e->dma && v->now < v->dma_last + v->m->dma_issue_steps)
        return 0;
    if (e->wait && v->now < q->land[e->tag % ACC_CG_OV_TAGS])
        return 0;
    if (e->after && v->q[e->after - 1].next < v->q[e->after - 1].n)
        return 0;
    if (e->behind && v->q[e->behind - 1].next <= e->behind_i)
        return 0;
    return 1;
}

/* Issues queue q's next op at step now. */
static void issue(AccCgOverlap *v, AccCgOvQueue *q)
{
    const AccMachine *m = v->m;
    AccCgOvOp *e = &q->e[q->next];

    v->busy[e->slot] = v->now + e->occ;
    if (e->dma) {
        /* Modelled as the simulator does: each channel moves its words
         * after the transfers before it, then the latency. */
        int64_t cyc = v->now * m->step_cycles, done = cyc;
        int nch = m->dram_channels < ACC_CG_OV_CHANNELS
                      ? m->dram_channels : ACC_CG_OV_CHANNELS;
        for (int ch = 0; ch < nch; ch++) {
            if (e->chans && !(e->chans >> ch & 1))
                continue;
            int64_t start = cyc > v->chan[ch] ? cyc : v->chan[ch];
            v->chan[ch] = start + (int64_t)ceil((double)e->vol / m->dram_bw -
                                                1e-9);
            if (v->chan[ch] + m->dma_latency > done)
                done = v->chan[ch] + m->dma_latency;
        }
        int64_t land = (done + m->step_cycles - 1) / m->step_cycles;
        if (land > q->land[e->tag % ACC_CG_OV_TAGS])
            q->land[e->tag % ACC_CG_OV_TAGS] = land;
        v->dma_last = v->now;
    }
    q->last = v->now;
    q->next++;
}

/* Passes the marks at the queues' heads whose wait is over. */
static void pass_marks(AccCgOverlap *v)
{
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++) {
        AccCgOvQueue *q = &v->q[i];
        while (q->next < q->n && q->e[q->next].at < 0 &&
               v->now >= q->last + 1 + q->e[q->next].hard) {
            q->last = v->now - 1;
            q->next++;
        }
    }
}

/* The ops of every queue that go in the bundle of step now. */
static const char *step(AccCgOverlap *v, int reads)
{
    unsigned used = 0;

    v->line.len = 0;
    if (v->line.s)
        v->line.s[0] = '\0';
    pass_marks(v);
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++) {
        AccCgOvQueue *q = &v->q[i];
        if (q->next >= q->n || !ready(v, q, reads, used))
            continue;
        const AccCgOvOp *e = &q->e[q->next];
        used |= 1u << e->slot;
        if (v->line.len)
            buf_puts(&v->line, " ; ");
        buf_puts(&v->line, q->text.s + e->at);
        issue(v, q);
    }
    v->now++;
    return v->line.len ? v->line.s : NULL;
}

const char *acc_cg_ov_next(AccCgOverlap *v, int reads)
{
    return step(v, reads);
}

static int pending(const AccCgOverlap *v, unsigned mask)
{
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++)
        if (mask >> i & 1 && v->q[i].next < v->q[i].n)
            return 1;
    return 0;
}

void acc_cg_ov_flush(AccCgOverlap *v, TlBuf *o, unsigned mask)
{
    int64_t idle = 0;

    for (;;) {
        pass_marks(v);
        if (!pending(v, mask))
            break;
        const char *ops = step(v, 0);
        if (!ops) {
            idle++;
            continue;
        }
        acc_cg_nop(o, idle);
        idle = 0;
        buf_puts(o, ops);
        buf_putc(o, '\n');
    }
    acc_cg_nop(o, idle);
    for (int i = 0; i < ACC_CG_OV_QUEUES; i++)
        if (mask >> i & 1) {
            v->q[i].n = v->q[i].next = 0;
            v->q[i].text.len = 0;
        }
}
