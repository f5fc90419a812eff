/*
 * cg_overlap.c - transfers issued in the bundles of compute: the ops of
 * a load (acc_cg_emit_load) ride, one per bundle, in the free slots
 * (DMA, the BM levels' links, CTL) of a run of compute bundles that use
 * only the MAU and MW slots, so the next block's data moves while the
 * matrix unit works on this one.
 *
 * The load (or a run of them, acc_cg_ov_run) is written as usual, then
 * taken apart: each op keeps the steps its `nop/N` lines asked for
 * before it (hard: a latency the simulator would report as a hazard)
 * and a `wait` gets the steps its DMA should take to land on top, less
 * those the text asked for since the DMA (soft: waiting earlier only
 * stalls).
 * Compute bundles count as steps; a bundle that reads an LM takes no
 * op that names it (one port per LM bank), so a load into one LM rides
 * in bundles that read only the other.  What is left when the compute
 * ends is written after it with its nops.
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void acc_cg_ov_init(AccCgOverlap *v, const AccMachine *m)
{
    memset(v, 0, sizeof *v);
    buf_init(&v->text);
    v->m = m;
}

void acc_cg_ov_free(AccCgOverlap *v)
{
    buf_free(&v->text);
    free(v->op);
    free(v->hard);
    free(v->soft);
    free(v->lms);
    memset(v, 0, sizeof *v);
}

/* The LMs (bit i: lm<i>) an op reads or writes. */
static int lms_of(const char *op)
{
    return (strstr(op, "lm0") ? 1 : 0) | (strstr(op, "lm1") ? 2 : 0);
}

static void push(AccCgOverlap *v, int64_t at, int64_t hard, int64_t soft,
                 int lms)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 32;
        v->op = tl_xrealloc(v->op, (size_t)v->cap * sizeof *v->op);
        v->hard = tl_xrealloc(v->hard, (size_t)v->cap * sizeof *v->hard);
        v->soft = tl_xrealloc(v->soft, (size_t)v->cap * sizeof *v->soft);
        v->lms = tl_xrealloc(v->lms, (size_t)v->cap * sizeof *v->lms);
    }
    v->op[v->n] = at;
    v->hard[v->n] = hard;
    v->soft[v->n] = soft;
    v->lms[v->n] = lms;
    v->n++;
}

/* Appends the ops of text (lines, `nop/N` lines between them); dma:
 * the steps the text's DMA takes to land, for its `wait`. */
static void queue(AccCgOverlap *v, const char *text, size_t tlen,
                  int64_t first, int64_t dma_steps)
{
    int64_t pending = first, dma = 0, after = 0;
    size_t i = 0;

    while (i < tlen) {
        const char *line = text + i;
        size_t len = strcspn(line, "\n");
        if (!strncmp(line, "nop/", 4)) {
            pending += atoll(line + 4);
        } else {
            int64_t soft = 0;
            /* The DMA lands dma steps after it issues; the steps the
             * text asks for since then count towards them. */
            after += pending;
            if (!strncmp(line, "wait", 4) && dma > after)
                soft = dma - after;
            after++;
            if (!strncmp(line, "dma.", 4)) {
                dma = dma_steps;
                after = 0;
            }
            v->last_dma = !strncmp(line, "dma.", 4);
            push(v, (int64_t)v->text.len, pending, soft, 0);
            buf_putn(&v->text, line, len);
            buf_putc(&v->text, '\0');
            v->lms[v->n - 1] = lms_of(v->text.s + v->op[v->n - 1]);
            pending = 0;
        }
        i += len + 1;
    }
    /* What the text wrote is readable after the last nop: a last entry
     * with no op keeps it. */
    push(v, -1, pending, 0, 0);
}

void acc_cg_ov_load(AccCgOverlap *v, int64_t at, int64_t W,
                    const char *space, int64_t dst, int k)
{
    const AccMachine *m = v->m;
    TlBuf t;
    int64_t words = acc_cg_scope_pes(m, k) * W;

    buf_init(&t);
    acc_cg_emit_load(&t, m, at, W, space, dst, k);
    /* The first op waits out the DMA issue interval of one issued just
     * before: a store of the previous block, or the last op queued. */
    queue(v, t.s, t.len, v->n == 0 || v->last_dma ? m->dma_issue_steps : 0,
          (int64_t)ceil((m->dma_latency + (double)words / m->dram_bw) /
                        m->step_cycles));
    buf_free(&t);
}

void acc_cg_ov_run(AccCgOverlap *v, int64_t n, const int64_t *at,
                   const int64_t *W, int64_t Wmax, const char *space,
                   const int64_t *dst, int k)
{
    const AccMachine *m = v->m;
    TlBuf t;
    int64_t words = acc_cg_scope_pes(m, k) * Wmax;

    buf_init(&t);
    acc_cg_emit_load_run(&t, m, n, at, W, Wmax, space, dst, k);
    queue(v, t.s, t.len, v->n == 0 || v->last_dma ? m->dma_issue_steps : 0,
          (int64_t)ceil((m->dma_latency + (double)words / m->dram_bw) /
                        m->step_cycles));
    buf_free(&t);
}

void acc_cg_ov_text(AccCgOverlap *v, const char *text)
{
    queue(v, text, strlen(text), 0, 0);
}

const char *acc_cg_ov_next(AccCgOverlap *v, int reads)
{
    const char *op;

    v->since++;
    while (v->next < v->n) {
        if (v->since < v->hard[v->next] + 1 + v->soft[v->next])
            return NULL;
        if (v->op[v->next] >= 0)
            break;
        v->next++;          /* a readiness mark: passed */
        v->since = 0;
    }
    if (v->next >= v->n)
        return NULL;
    op = v->text.s + v->op[v->next];
    if (reads & v->lms[v->next])
        return NULL;
    v->next++;
    v->since = 0;
    return op;
}

void acc_cg_ov_flush(AccCgOverlap *v, TlBuf *o)
{
    for (; v->next < v->n; v->next++) {
        acc_cg_nop(o, v->hard[v->next] - v->since);
        v->since = 0;
        if (v->op[v->next] >= 0) {
            buf_puts(o, v->text.s + v->op[v->next]);
            buf_putc(o, '\n');
        }
    }
}
