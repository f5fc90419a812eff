/*
 * cg_seg_cost.c - the model of what a conversion between the segments
 * of one program takes (target_seg.c, cg_seg_conv.c), for the layout
 * planner's estimate of the whole program.
 *
 * The model reads the conversion's instructions as the emitter wrote
 * them, not a formula of its own for their number: what a conversion
 * takes is set by how many DMA ops it issues and how long their runs
 * are, and the emitter (whose plan is changing: fewer, longer runs)
 * is the one that knows.  So the model follows the emitter by
 * construction.  On those counts it applies the machine's rules of
 * ACCELERATOR.md 5 in their simplest form: a bundle a line and `nop/N`
 * N steps (the tree transfers' latencies are the emitter's nops); a
 * DMA op at most once per dma_issue_steps steps; its long words on the
 * DRAM channels of its top nodes, each channel at dram_bw long words a
 * cycle, readable dma_latency cycles after its last word; a `wait`
 * until its tag's words are readable.  It leaves out what the timer
 * (acc_time.c) adds beyond that: slot occupancies, which the emitter
 * covers with its nops, and `.rep` compression.
 */
#include "codegen/acc/cg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CH = 64 };

typedef struct Model {
    const AccMachine *m;
    int64_t step;               /* the next bundle's */
    int64_t next_dma;           /* the first step a DMA op may issue */
    double chan[MAX_CH];        /* cycle each channel is free */
    double done[256];           /* cycle each tag's words are readable */
    int64_t nt;                 /* top nodes */
} Model;

/* The long words of the first `[a:b]` range of a DMA op's line (the
 * DRAM range of a load, the BM range of a store or gather). */
static int64_t range_len(const char *l, const char *end)
{
    for (const char *q = l; q < end; q++) {
        long long a, b;
        if (*q == '[' && sscanf(q, "[%lld:%lld]", &a, &b) == 2)
            return b > a ? b - a : 0;
    }
    return 0;
}

static int chan_of(const Model *x, int64_t node)
{
    int nch = x->m->dram_channels < MAX_CH ? x->m->dram_channels : MAX_CH;
    int64_t per = x->nt / nch > 0 ? x->nt / nch : 1;
    int64_t ch = node / per;

    return ch < nch ? (int)ch : nch - 1;
}

/* A DMA op at dma (its line up to end) issued at step s: its words
 * on the channels of the nodes it reaches. */
static void dma_op(Model *x, const char *dma, const char *end, int64_t s)
{
    const AccMachine *m = x->m;
    const char *t = strstr(dma, ".t"), *at = strchr(dma, '@');
    int64_t n = range_len(dma, end), vol[MAX_CH];
    int nch = m->dram_channels < MAX_CH ? m->dram_channels : MAX_CH;
    int tag = t && t < end ? atoi(t + 2) & 255 : 0;
    double start = (double)(s * m->step_cycles), fin = start;

    memset(vol, 0, sizeof vol);
    if (at && at < end && at[1] != '{') /* one top node's (ld/st@i) */
        vol[chan_of(x, atoll(at + 1))] = n;
    else
        for (int64_t nd = 0; nd < x->nt; nd++) {
            int ch = chan_of(x, nd);
            if (!strncmp(dma, "dma.bcast", 9))
                vol[ch] = n;        /* once for the channel's nodes (a
                                     * node set: as if all of them) */
            else if (!strncmp(dma, "dma.dist", 8))
                vol[ch] += n / x->nt;
            else                    /* gathers, reductions: n a node */
                vol[ch] += n;
        }
    for (int ch = 0; ch < nch; ch++) {
        double a;
        if (!vol[ch])
            continue;
        a = start > x->chan[ch] ? start : x->chan[ch];
        x->chan[ch] = a + (double)vol[ch] / m->dram_bw;
        if (x->chan[ch] + m->dma_latency > fin)
            fin = x->chan[ch] + m->dma_latency;
    }
    if (fin > x->done[tag])
        x->done[tag] = fin;
}

/* The bundles of text from p to end (a `.rep` body count times). */
static void run(Model *x, const char *p, const char *end)
{
    const AccMachine *m = x->m;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *d;
        long long k;
        if (*p == '#' || p == le) {
            p = le + (nl != NULL);
            continue;
        }
        if (!strncmp(p, ".rep ", 5)) {
            /* The body up to its `.endrep`, nested ones inside. */
            const char *q = le + (nl != NULL), *body = q;
            int depth = 1;
            long long cnt = atoll(p + 5);
            while (q < end && depth) {
                const char *qn = memchr(q, '\n', (size_t)(end - q));
                if (!strncmp(q, ".rep ", 5))
                    depth++;
                else if (!strncmp(q, ".endrep", 7) && !--depth)
                    break;
                q = qn ? qn + 1 : end;
            }
            for (long long j = 0; j < cnt; j++)
                run(x, body, q);
            nl = q < end ? memchr(q, '\n', (size_t)(end - q)) : NULL;
            p = nl ? nl + 1 : end;
            continue;
        }
        if (*p == '.') {            /* other directives: no bundle */
            p = le + (nl != NULL);
            continue;
        }
        if (sscanf(p, "nop/%lld", &k) == 1) {
            x->step += k;
        } else if (!strncmp(p, "wait t", 6)) {
            double w = x->done[atoi(p + 6) & 255] / m->step_cycles;
            int64_t ws = (int64_t)(w + 0.999999);
            if (ws > x->step)
                x->step = ws;
            x->step++;
        } else if ((d = strstr(p, "dma.")) && d < le) {
            int64_t s = x->step > x->next_dma ? x->step : x->next_dma;
            dma_op(x, d, le, s);
            x->next_dma = s + m->dma_issue_steps;
            x->step = s + 1;
        } else {
            x->step++;
        }
        p = le + (nl != NULL);
    }
}

double acc_seg_text_model(const AccMachine *m, const char *text)
{
    Model *x = tl_xcalloc(1, sizeof *x);
    double c;

    x->m = m;
    x->nt = acc_level_nodes(m, acc_bm_level(m, acc_bm_levels(m)));
    if (x->nt < 1)
        x->nt = 1;
    run(x, text, text + strlen(text));
    c = (double)(x->step * m->step_cycles);
    for (int t = 0; t < 256; t++)
        if (x->done[t] > c)
            c = x->done[t];
    free(x);
    return c;
}
