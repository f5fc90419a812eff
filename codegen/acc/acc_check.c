/*
 * acc_check.c - the rules that hold between the ops of one bundle
 * (ACCELERATOR.md 4.1): one op per slot, nothing written twice, an LM
 * bank accessed at one address pattern per step (its single port), a
 * GRF bank read at one pattern, and one precision for the matrix unit.
 */
#include "codegen/acc/acc_int.h"

#include <string.h>

/* The address pattern of an operand, comparable with memcmp. */
typedef struct Pat {
    int32_t space, k, mode, addr, stride, width;
} Pat;

static Pat pat(const AccOpnd *o)
{
    Pat p;
    memset(&p, 0, sizeof p);
    p.space = o->space;
    p.k = o->k;
    p.mode = o->mode;
    p.addr = o->addr;
    p.stride = o->stride;
    p.width = o->width;
    return p;
}

/* Long words a BM-writing transfer writes at each destination. */
static int64_t dst_len(const AccMachine *m, const AccOp *op)
{
    int64_t len = acc_xfer_len(m, op);
    if (op->level > 1 && op->opc == ACC_OP_GATHER)
        return len * acc_children(m, op->level);
    if (op->level > 1 && op->opc == ACC_OP_DIST)
        return len / acc_children(m, op->level);
    return len;
}

/* Do two written operands of one space overlap?  Exact for stride
 * patterns and ranges; flat and other patterns compare equal only. */
static int overlap(const AccMachine *m, const AccOp *oa, const AccOpnd *a,
                   const AccOp *ob, const AccOpnd *b)
{
    if (a->space != b->space || a->k != b->k)
        return 0;
    switch (a->space) {
    case ACC_SP_MASK:
        return a->addr == b->addr;
    case ACC_SP_MREG:
        return 1;
    case ACC_SP_BM: {
        int64_t la = dst_len(m, oa), lb = dst_len(m, ob);
        return a->addr < b->addr + lb && b->addr < a->addr + la;
    }
    default:
        break;
    }
    if (a->mode != ACC_MODE_STRIDE || b->mode != ACC_MODE_STRIDE) {
        Pat pa = pat(a), pb = pat(b);
        return memcmp(&pa, &pb, sizeof pa) == 0;
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int64_t x = a->addr + (int64_t)i * a->stride;
            int64_t y = b->addr + (int64_t)j * b->stride;
            if (x < y + 2 * b->width && y < x + 2 * a->width)
                return 1;
        }
    return 0;
}

static const char *opnd_text(char *buf, size_t n, const AccOpnd *o)
{
    if (o->space == ACC_SP_BM)
        snprintf(buf, n, "%s", o->k == 1 ? "lb" : o->k == 2 ? "lc" : "bK");
    else if (o->space == ACC_SP_MASK)
        snprintf(buf, n, "m%d", o->addr);
    else
        snprintf(buf, n, "%s", acc_space_name(o->space));
    return buf;
}

int acc_check_bundle(const AccMachine *m, const AccOp *ops, int n,
                     TlBuf *why, int *which)
{
    char nb[16], tb[16];
    for (int i = 0; i < n; i++) {
        const AccOp *a = &ops[i];
        for (int j = 0; j <= i; j++) {
            const AccOp *b = &ops[j];
            *which = i;
            if (j < i && a->slot == b->slot) {
                const char *sn = acc_slot_name(m, a->slot, nb, sizeof nb);
                buf_printf(why, "two %s ops in one bundle: a slot takes "
                           "one op per step", sn);
                return 1;
            }
            /* Written twice (DMA writes land later, asynchronously). */
            if (a->slot == ACC_SLOT_DMA || b->slot == ACC_SLOT_DMA)
                continue;
            for (int x = 0; x < a->ndst; x++)
                for (int y = 0; y < b->ndst; y++) {
                    if (j == i && y >= x)
                        break;
                    if (overlap(m, a, &a->dst[x], b, &b->dst[y])) {
                        buf_printf(why, "'%s' is written twice in one "
                                   "bundle", opnd_text(tb, sizeof tb,
                                                       &a->dst[x]));
                        return 2;
                    }
                }
        }
    }
    /* Ports: every access to an LM bank has one pattern; a GRF bank is
     * read at two patterns at most (two read ports). */
    for (int sp = ACC_SP_LM0; sp <= ACC_SP_S; sp++) {
        int lm = sp <= ACC_SP_LM1, npat = 0;
        Pat seen[2];
        for (int i = 0; i < n; i++) {
            const AccOp *a = &ops[i];
            for (int x = 0; x < a->nsrc + (lm ? a->ndst : 0); x++) {
                const AccOpnd *o = x < a->nsrc ? &a->src[x]
                                               : &a->dst[x - a->nsrc];
                if (o->space != sp)
                    continue;
                Pat p = pat(o);
                int k = 0;
                while (k < npat && memcmp(&seen[k], &p, sizeof p))
                    k++;
                if (k < npat)
                    continue;
                if (npat < (lm ? 1 : 2)) {
                    seen[npat++] = p;
                    continue;
                }
                *which = i;
                buf_printf(why, lm ? "'%s' is accessed at two address "
                           "patterns in one bundle: an LM bank has one "
                           "port per step"
                           : "'%s' is read at three address patterns in one "
                           "bundle: a GRF bank has two read ports",
                           acc_space_name(sp));
                return 3;
            }
        }
    }
    int mt = -1;
    for (int i = 0; i < n; i++) {
        if (ops[i].slot != ACC_SLOT_MAU && ops[i].slot != ACC_SLOT_MW)
            continue;
        if (mt >= 0 && ops[i].dt != mt) {
            *which = i;
            buf_printf(why, "the matrix unit runs one precision per step: "
                       "'%s' and '%s' in one bundle", dt_name((TlDType)mt),
                       dt_name((TlDType)ops[i].dt));
            return 4;
        }
        mt = ops[i].dt;
    }
    return 0;
}
