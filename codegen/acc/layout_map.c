/*
 * layout_map.c - what a checked layout means: where an element (and
 * each of its copies) lives, and which element lives at a place.
 *
 * Every factor feeds one "dimension" of a place: a level's child
 * index, the address, or the sub-word.  Going from an element to its
 * place is a sum of digit x stride per dimension.  Going back needs,
 * per dimension, the digits that produced a value: strides may be any
 * positive numbers (MN-Core layouts use `4:2` beside `2:1`), so there
 * is no closed form in general, and each dimension keeps a table of
 * its values sorted, built once when the layout is checked.  A table
 * has as many entries as the product of its dimension's factor sizes,
 * at most the number of elements.  Two equal values in one table are
 * two elements on one place: that is how the check finds collisions.
 */
#include "codegen/acc/layout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct DecEnt {
    int64_t value, code;
} DecEnt;

typedef struct DecDim {
    int nf;
    int *fi;            /* its factors, in layout order */
    int64_t n;          /* product of their sizes */
    DecEnt *ent;        /* [n], sorted by value */
} DecDim;

typedef struct Dec {
    int ndim;           /* nlevels + 2: levels, address, word */
    DecDim *dim;
    int64_t *weight;    /* per factor: its digit's weight in its axis */
    TlArena *arena;     /* where the table of places goes */
    int32_t *place;     /* acc_layout_at's table, once built:
                         * [address][PE], the emitter's scans going
                         * over the PEs of one address */
    int64_t npe;        /* the machine's PEs, the table's row */
    int place_tried;
} Dec;

static int dim_of(const AccLayout *L, const AccFactor *f)
{
    switch (f->kind) {
    case ACC_F_LEVEL:
        return f->level;
    case ACC_F_ADDR:
    case ACC_F_LANE:
        return L->m->nlevels;
    case ACC_F_WORD:
        break;
    }
    return L->m->nlevels + 1;
}

static int cmp_ent(const void *a, const void *b)
{
    const DecEnt *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->code < y->code ? -1 : x->code > y->code;
}

/* The flat index of the element whose digits on dimension d's factors
 * come from code and are 0 on every other factor. */
static int64_t code_element(const AccLayout *L, const Dec *D, int d,
                            int64_t code)
{
    int64_t idx[ACC_LAYOUT_MAX_RANK] = {0};
    const DecDim *dd = &D->dim[d];
    for (int k = dd->nf - 1; k >= 0; k--) {
        const AccFactor *f = &L->f[dd->fi[k]];
        idx[f->axis] += (code % f->n) * D->weight[dd->fi[k]];
        code /= f->n;
    }
    return acc_layout_flatten(L, idx);
}

int acc_layout_build_dec(TlArena *a, AccLayout *L, int64_t dup[2])
{
    Dec *D = arena_alloc(a, sizeof *D);

    memset(D, 0, sizeof *D);
    D->arena = a;
    D->ndim = L->m->nlevels + 2;
    D->dim = arena_alloc(a, (size_t)D->ndim * sizeof *D->dim);
    D->weight = arena_alloc(a, (size_t)(L->nf + 1) * sizeof *D->weight);
    for (int ax = 0; ax < L->rank; ax++) {
        int64_t w = 1;
        for (int i = L->first[ax + 1] - 1; i >= L->first[ax]; i--) {
            D->weight[i] = w;
            w *= L->f[i].n;
        }
    }
    for (int d = 0; d < D->ndim; d++) {
        DecDim *dd = &D->dim[d];
        dd->fi = arena_alloc(a, (size_t)(L->nf + 1) * sizeof *dd->fi);
        dd->n = 1;
        for (int i = 0; i < L->nf; i++)
            if (dim_of(L, &L->f[i]) == d) {
                dd->fi[dd->nf++] = i;
                dd->n *= L->f[i].n;
            }
        TL_ASSERT(dd->n <= L->nelems || dd->nf == 0);
        dd->ent = arena_alloc(a, (size_t)dd->n * sizeof *dd->ent);
        for (int64_t code = 0; code < dd->n; code++) {
            int64_t c = code, v = 0;
            for (int k = dd->nf - 1; k >= 0; k--) {
                const AccFactor *f = &L->f[dd->fi[k]];
                v += (c % f->n) * f->stride;
                c /= f->n;
            }
            dd->ent[code].value = v;
            dd->ent[code].code = code;
        }
        qsort(dd->ent, (size_t)dd->n, sizeof *dd->ent, cmp_ent);
        for (int64_t i = 1; i < dd->n; i++)
            if (dd->ent[i].value == dd->ent[i - 1].value) {
                dup[0] = code_element(L, D, d, dd->ent[i - 1].code);
                dup[1] = code_element(L, D, d, dd->ent[i].code);
                L->dec = D;
                return -1;
            }
    }
    L->dec = D;
    return 0;
}

void acc_layout_unflatten(const AccLayout *L, int64_t e, int64_t *idx)
{
    for (int a = L->rank - 1; a >= 0; a--) {
        idx[a] = L->shape[a] ? e % L->shape[a] : 0;
        e = L->shape[a] ? e / L->shape[a] : 0;
    }
}

int64_t acc_layout_flatten(const AccLayout *L, const int64_t *idx)
{
    int64_t e = 0;
    for (int a = 0; a < L->rank; a++)
        e = e * L->shape[a] + idx[a];
    return e;
}

void acc_layout_locate_idx(const AccLayout *L, const int64_t *idx,
                           int64_t copy, AccLoc *out)
{
    const Dec *D = L->dec;

    memset(out, 0, sizeof *out);
    out->node_level = L->node_level;
    out->space = L->space;
    out->addr = L->base;
    for (int lv = L->node_level + 1; lv < ACC_MAX_LEVELS; lv++)
        out->path[lv] = -1;
    for (int i = 0; i < L->nf; i++) {
        const AccFactor *f = &L->f[i];
        int64_t d = idx[f->axis] / D->weight[i] % f->n;
        switch (f->kind) {
        case ACC_F_LEVEL:
            out->path[f->level] += d * f->stride;
            break;
        case ACC_F_ADDR:
        case ACC_F_LANE:
            out->addr += d * f->stride;
            break;
        case ACC_F_WORD:
            out->word += (int)(d * f->stride);
            break;
        }
    }
    acc_layout_set_copy(L, copy, out);
}

void acc_layout_set_copy(const AccLayout *L, int64_t copy, AccLoc *out)
{
    const AccMachine *m = L->m;

    /* The copy number is mixed radix over the B@ levels, the outermost
     * level most significant; out holds copy 0 (child 0 of each). */
    for (int lv = m->nlevels - 1; lv >= 0 && copy > 0; lv--)
        if (L->bcast & (1u << lv)) {
            out->path[lv] = copy % m->level[lv].fanout;
            copy /= m->level[lv].fanout;
        }
}

void acc_layout_locate(const AccLayout *L, int64_t e, int64_t copy,
                       AccLoc *out)
{
    int64_t idx[ACC_LAYOUT_MAX_RANK];
    acc_layout_unflatten(L, e, idx);
    acc_layout_locate_idx(L, idx, copy, out);
}

/* The entry of dimension dd with this value, or NULL. */
static const DecEnt *lookup(const DecDim *dd, int64_t v)
{
    int64_t lo = 0, hi = dd->n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (dd->ent[mid].value == v)
            return &dd->ent[mid];
        if (dd->ent[mid].value < v)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

int64_t acc_layout_element(const AccLayout *L, const AccLoc *loc,
                           int64_t *copy)
{
    const Dec *D = L->dec;
    const AccMachine *m = L->m;
    int64_t idx[ACC_LAYOUT_MAX_RANK] = {0};
    int64_t cp = 0;

    if (loc->space != L->space || loc->node_level < L->node_level)
        return -1;
    for (int d = 0; d < D->ndim; d++) {
        const DecDim *dd = &D->dim[d];
        const DecEnt *ent;
        int64_t v;
        if (d < m->nlevels) {
            if (d > L->node_level)
                continue;
            v = loc->path[d];
            if (L->bcast & (1u << d)) {
                if (v < 0 || v >= m->level[d].fanout)
                    return -1;
                cp = cp * m->level[d].fanout + v;
                continue;
            }
        } else if (d == m->nlevels) {
            v = loc->addr - L->base;
        } else {
            v = loc->word;
        }
        ent = lookup(dd, v);
        if (!ent)
            return -1;
        for (int64_t code = ent->code, k = dd->nf - 1; k >= 0; k--) {
            const AccFactor *f = &L->f[dd->fi[k]];
            idx[f->axis] += (code % f->n) * D->weight[dd->fi[k]];
            code /= f->n;
        }
    }
    if (copy)
        *copy = cp;
    return acc_layout_flatten(L, idx);
}

int64_t acc_loc_node(const AccMachine *m, const AccLoc *loc, int lvl)
{
    int64_t id = 0;
    for (int j = 0; j <= lvl && j <= loc->node_level; j++)
        id = id * m->level[j].fanout + loc->path[j];
    return id;
}

void acc_loc_of_pe(const AccMachine *m, int64_t pe, AccLaySpace space,
                   int64_t addr, AccLoc *loc)
{
    memset(loc, 0, sizeof *loc);
    loc->node_level = m->nlevels - 1;
    loc->space = space;
    loc->addr = addr;
    for (int lv = m->nlevels - 1; lv >= 0; lv--) {
        loc->path[lv] = pe % m->level[lv].fanout;
        pe /= m->level[lv].fanout;
    }
}

/* ====================================================================
 * Places of a PE layout, as a table
 * ==================================================================== */

/* Tables larger than this many places (32 MB) are not built:
 * acc_layout_at decodes each place instead, several times slower (a
 * binary search per level); every address of mn2's 4096 PEs (2048
 * long words each) still fits. */
#define PLACE_TABLE_MAX ((int64_t)1 << 23)

/* Fills D->place when L is in a PE space and small enough: for each
 * address and PE, the element at sub-word 0 times ncopies plus its
 * copy, or -1. */
static void build_places(const AccLayout *L, Dec *D)
{
    const AccMachine *m = L->m;
    int64_t npe = acc_machine_pes(m), span = L->addr_span;

    D->place_tried = 1;
    D->npe = npe;
    if (L->node_level != m->nlevels - 1 || npe * span > PLACE_TABLE_MAX ||
        L->nelems * L->ncopies > PLACE_TABLE_MAX * L->epl ||
        L->nelems * L->ncopies >= INT32_MAX)
        return;
    D->place = arena_alloc(D->arena, (size_t)(npe * span) *
                                         sizeof *D->place);
    for (int64_t i = 0; i < npe * span; i++)
        D->place[i] = -1;
    for (int64_t e = 0; e < L->nelems; e++)
        for (int64_t k = 0; k < L->ncopies; k++) {
            AccLoc loc;
            acc_layout_locate(L, e, k, &loc);
            if (loc.word)
                continue;
            D->place[(loc.addr - L->base) * npe +
                     acc_loc_node(m, &loc, m->nlevels - 1)] =
                (int32_t)(e * L->ncopies + k);
        }
}

int64_t acc_layout_at(const AccLayout *L, int64_t pe, int64_t addr,
                      int64_t *copy)
{
    const AccMachine *m = L->m;
    Dec *D = L->dec;
    AccLoc loc;

    if (addr < L->base || addr >= L->base + L->addr_span)
        return -1;
    if (!D->place_tried)
        build_places(L, D);
    if (D->place) {
        int64_t v = D->place[(addr - L->base) * D->npe + pe];
        if (v < 0)
            return -1;
        if (copy)
            *copy = v % L->ncopies;
        return v / L->ncopies;
    }
    acc_loc_of_pe(m, pe, L->space, addr, &loc);
    return acc_layout_element(L, &loc, copy);
}

int acc_layout_same_places(const AccLayout *A, const AccLayout *B)
{
    if (A->nelems != B->nelems || A->ncopies != B->ncopies ||
        A->space != B->space)
        return 0;
    for (int64_t e = 0; e < A->nelems; e++)
        for (int64_t c = 0; c < A->ncopies; c++) {
            AccLoc a, b;
            acc_layout_locate(A, e, c, &a);
            acc_layout_locate(B, e, c, &b);
            if (a.addr != b.addr || a.word != b.word ||
                memcmp(a.path, b.path, sizeof a.path))
                return 0;
        }
    return 1;
}
