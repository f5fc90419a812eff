/*
 * target_seg_cache.c - the programs of segmented kernels kept between
 * calls (target_int.h: acc_seg_cached, acc_seg_cache_put), so that a
 * call of the same kernel text, machine and input shapes plans and
 * compiles once.
 */
#include "codegen/acc/target_int.h"

#include <stdio.h>
#include <string.h>

/* The kept programs (target_int.h): the last SEG_CACHE, replaced in
 * turn. */
enum { SEG_CACHE = 16 };
static AccSegCached seg_cache[SEG_CACHE];
static int seg_cache_next;

/* What the kept program depends on besides the shapes: the machine
 * and the kernel's text (its name, inputs and stages as printed), so
 * that a kernel of another session or redefined is never taken for
 * one kept (FNV-1a). */
static uint64_t key_of(const TlKernelInfo *k, const AccMachine *m)
{
    uint64_t h = 1469598103934665603ull ^ acc_machine_hash(m);
    TlBuf b;

    buf_init(&b);
    buf_printf(&b, "%s(", k->name);
    for (int x = 0; x < k->ninputs; x++)
        buf_printf(&b, "%s,", k->inputs[x]->name);
    for (int i = 0; i < k->nfuncs; i++) {
        const TlStmt *st = k->funcs[i]->stmt;
        buf_printf(&b, ";%s:%s=", k->funcs[i]->name,
                   dt_name(k->funcs[i]->dtype));
        if (st && st->value)
            ast_print_expr(&b, st->value);
    }
    for (size_t i = 0; i < b.len; i++)
        h = (h ^ (unsigned char)b.s[i]) * 1099511628211ull;
    buf_free(&b);
    return h;
}

static int same_key(const AccSegCached *c, uint64_t key,
                    const TlKernelInfo *k, TlTensor *const *in)
{
    int same = c->used && c->key == key && c->nin == k->ninputs;

    for (int x = 0; same && x < k->ninputs; x++)
        same = c->dt[x] == in[x]->dtype && c->rank[x] == in[x]->rank &&
               !memcmp(c->shape[x], in[x]->shape,
                       sizeof(int64_t) * (size_t)in[x]->rank);
    return same;
}

AccSegCached *acc_seg_cached(TlKernelInfo *k, const AccMachine *m,
                             TlTensor *const *in)
{
    uint64_t key;

    if (k->ninputs > ACC_SEG_MAX_IN)
        return NULL;
    key = key_of(k, m);
    for (int i = 0; i < SEG_CACHE; i++)
        if (same_key(&seg_cache[i], key, k, in))
            return &seg_cache[i];
    return NULL;
}

AccSegCached *acc_seg_cache_put(TlKernelInfo *k, const AccMachine *m,
                                TlTensor *const *in, const AccSegPlan *sp,
                                AccSegProg *prog)
{
    AccSegCached *c = &seg_cache[seg_cache_next];
    size_t at = 0;

    seg_cache_next = (seg_cache_next + 1) % SEG_CACHE;
    if (c->used)
        acc_seg_program_free(&c->prog);
    memset(c, 0, sizeof *c);
    c->prog = *prog;
    c->nseg = sp->n;
    for (int i = 0; i < sp->n && at < sizeof c->lines; i++)
        at += (size_t)snprintf(c->lines + at, sizeof c->lines - at,
                               "segment    %s: the %s route\n",
                               sp->seg[i].out, prog->route[i]);
    c->used = 1;
    if (k->ninputs > ACC_SEG_MAX_IN) {
        c->key = 0;
        c->nin = -1;    /* run once, never found */
        return c;
    }
    c->key = key_of(k, m);
    c->nin = k->ninputs;
    for (int x = 0; x < k->ninputs; x++) {
        c->dt[x] = in[x]->dtype;
        c->rank[x] = in[x]->rank;
        memcpy(c->shape[x], in[x]->shape,
               sizeof(int64_t) * (size_t)in[x]->rank);
    }
    return c;
}
