/*
 * layout.c - checking a layout against a machine and a tensor, and
 * printing it in canonical form (layout.h has the notation and its
 * meaning).
 *
 * Checking resolves the factors (levels by name, compact entries to
 * sizes, strides not written to their defaults), then checks what the
 * notation cannot say by itself: sizes, fan-outs, sub-words, address
 * ranges, and that no two elements share a place (layout_map.c builds
 * the decoding tables and finds collisions).  Each problem is reported
 * at the factor concerned.
 */
#include "codegen/acc/layout.h"

#include <stdlib.h>
#include <string.h>

typedef struct Ck {
    TlSession *s;
    const AccLayoutReq *req;
    AccLayout *L;
    const TlLayout *l;
    int errors;
    char dflt_names[ACC_LAYOUT_MAX_RANK][4];
    const char *names[ACC_LAYOUT_MAX_RANK];
} Ck;

static TlArena *ar(Ck *c)
{
    return &c->s->arena;
}

/* ====================================================================
 * Texts for messages
 * ==================================================================== */

static const char *level_list(TlSession *s, const AccMachine *m)
{
    TlBuf b;
    char *r;

    buf_init(&b);
    for (int i = 0; i < m->nlevels; i++)
        buf_printf(&b, "%s%s", i ? ", " : "", m->level[i].name);
    r = arena_strdup(&s->arena, b.s ? b.s : "");
    buf_free(&b);
    return r;
}

static void factor_text(TlBuf *b, const AccLayout *L, const AccFactor *f)
{
    buf_printf(b, "%lld", (long long)f->n);
    switch (f->kind) {
    case ACC_F_LEVEL:
        buf_printf(b, "_%s", L->m->level[f->level].name);
        break;
    case ACC_F_WORD:
        buf_puts(b, "_W");
        break;
    case ACC_F_LANE:
        buf_puts(b, "_S");
        break;
    case ACC_F_ADDR:
        break;
    }
    buf_printf(b, ":%lld", (long long)f->stride);
}

static const char *factor_str(Ck *c, const AccFactor *f)
{
    TlBuf b;
    char *r;
    buf_init(&b);
    factor_text(&b, c->L, f);
    r = arena_strdup(ar(c), b.s);
    buf_free(&b);
    return r;
}

static const char *shape_str(TlArena *a, int rank, const int64_t *shape)
{
    TlBuf b;
    char *r;
    buf_init(&b);
    buf_putc(&b, '(');
    for (int i = 0; i < rank; i++)
        buf_printf(&b, "%s%lld", i ? ", " : "", (long long)shape[i]);
    buf_putc(&b, ')');
    r = arena_strdup(a, b.s);
    buf_free(&b);
    return r;
}

static const char *tensor_str(Ck *c)
{
    return c->req->tensor ? arena_printf(ar(c), "'%s'", c->req->tensor)
                          : "the tensor";
}

/* ====================================================================
 * Resolving the factors
 * ==================================================================== */

static void push(Ck *c, AccFactor *f)
{
    AccLayout *L = c->L;
    if (L->nf % 16 == 0) {
        AccFactor *v = arena_alloc(ar(c), (size_t)(L->nf + 16) * sizeof *v);
        if (L->nf)
            memcpy(v, L->f, (size_t)L->nf * sizeof *v);
        L->f = v;
    }
    L->f[L->nf++] = *f;
}

/* The kind and level of a level name; 0 after an error. */
static int kind_of(Ck *c, const char *name, TlLoc loc, AccFactor *f)
{
    if (!name) {
        f->kind = ACC_F_ADDR;
        return 1;
    }
    if (!strcmp(name, "W")) {
        f->kind = ACC_F_WORD;
        return 1;
    }
    if (!strcmp(name, "S")) {
        f->kind = ACC_F_LANE;
        return 1;
    }
    f->kind = ACC_F_LEVEL;
    f->level = acc_level_index(c->L->m, name);
    if (f->level < 0) {
        diag_error(c->s, loc, DIAG_LAYOUT_LEVEL, c->L->m->name, name,
                   level_list(c->s, c->L->m));
        c->errors++;
        return 0;
    }
    return 1;
}

static void canonical(Ck *c)
{
    const TlLayout *l = c->l;
    AccLayout *L = c->L;

    for (int a = 0; a < l->axes.n && a < ACC_LAYOUT_MAX_RANK; a++) {
        L->first[a] = L->nf;
        for (int i = 0; i < l->axes.v[a].n; i++) {
            const TlLayoutFactor *t = &l->axes.v[a].v[i];
            AccFactor f;
            memset(&f, 0, sizeof f);
            f.axis = a;
            f.n = t->n;
            f.stride = t->stride;
            f.written = t->stride > 0;
            f.loc = t->loc;
            if (t->n < 1) {
                diag_error(c->s, t->loc, DIAG_LAYOUT_ZERO, "size");
                c->errors++;
                continue;
            }
            if (kind_of(c, t->level, t->loc, &f))
                push(c, &f);
        }
    }
    L->first[l->axes.n] = L->nf;
}

static const char *axis_list(Ck *c)
{
    TlBuf b;
    char *r;
    buf_init(&b);
    for (int a = 0; a < c->L->rank; a++)
        buf_printf(&b, "%s%s", a ? ", " : "", c->names[a]);
    r = arena_strdup(ar(c), b.s ? b.s : "none");
    buf_free(&b);
    return r;
}

/* Compact: `axis@LEVEL` entries take the level's whole fan-out (the
 * long word's elements for W, the step's sub-cycles for S); what is
 * left of each axis becomes its innermost address factor. */
static void compact(Ck *c)
{
    const TlLayout *l = c->l;
    AccLayout *L = c->L;
    AccFactor *per[ACC_LAYOUT_MAX_RANK];
    int nper[ACC_LAYOUT_MAX_RANK] = {0};
    int64_t prod[ACC_LAYOUT_MAX_RANK];

    for (int a = 0; a < L->rank; a++) {
        per[a] = arena_alloc(ar(c), (size_t)(l->compact.n + 1) *
                                        sizeof(AccFactor));
        prod[a] = 1;
    }
    for (int i = 0; i < l->compact.n; i++) {
        const TlLayoutFactor *t = &l->compact.v[i];
        AccFactor f;
        int a;
        memset(&f, 0, sizeof f);
        for (a = 0; a < L->rank; a++)
            if (t->axis && !strcmp(t->axis, c->names[a]))
                break;
        if (a == L->rank) {
            diag_error(c->s, t->loc, DIAG_LAYOUT_AXIS_NAME,
                       t->axis ? t->axis : "?", tensor_str(c),
                       axis_list(c));
            c->errors++;
            continue;
        }
        if (!kind_of(c, t->level, t->loc, &f))
            continue;
        f.axis = a;
        f.loc = t->loc;
        f.n = f.kind == ACC_F_WORD   ? L->epl
              : f.kind == ACC_F_LANE ? L->m->step_cycles
                                     : L->m->level[f.level].fanout;
        TL_ASSERT(L->shape[a] >= 0);
        if (prod[a] > INT64_MAX / f.n || L->shape[a] % (prod[a] * f.n)) {
            diag_error(c->s, t->loc, DIAG_LAYOUT_COMPACT_SPLIT,
                       c->names[a], (long long)L->shape[a],
                       arena_printf(ar(c), "%s@%s", t->axis, t->level),
                       (long long)(prod[a] * f.n));
            c->errors++;
            continue;
        }
        prod[a] *= f.n;
        per[a][nper[a]++] = f;
    }
    for (int a = 0; a < L->rank; a++) {
        L->first[a] = L->nf;
        for (int i = 0; i < nper[a]; i++)
            push(c, &per[a][i]);
        if (prod[a] && L->shape[a] / prod[a] > 1) {
            AccFactor f;
            memset(&f, 0, sizeof f);
            f.kind = ACC_F_ADDR;
            f.axis = a;
            f.n = L->shape[a] / prod[a];
            f.loc = c->req->where;
            push(c, &f);
        }
    }
    L->first[L->rank] = L->nf;
}

/* Which "dimension" a factor feeds: its level, the address, or the
 * sub-word.  Lanes are addresses. */
static int dim_of(const AccLayout *L, const AccFactor *f)
{
    switch (f->kind) {
    case ACC_F_LEVEL:
        return f->level;
    case ACC_F_ADDR:
    case ACC_F_LANE:
        return L->m->nlevels;
    case ACC_F_WORD:
        return L->m->nlevels + 1;
    }
    return 0;
}

/* A stride not written: the product of the sizes of the later factors
 * of the same dimension. */
static void default_strides(AccLayout *L)
{
    for (int i = 0; i < L->nf; i++) {
        AccFactor *f = &L->f[i];
        int64_t p = 1;
        if (f->written)
            continue;
        for (int j = i + 1; j < L->nf; j++)
            if (dim_of(L, &L->f[j]) == dim_of(L, f))
                p = p <= INT64_MAX / 4 / L->f[j].n ? p * L->f[j].n
                                                   : INT64_MAX / 4;
        f->stride = p;
    }
}

/* ====================================================================
 * Checks
 * ==================================================================== */

/* acc + (n - 1) * stride, saturating: a stride may be any number the
 * user wrote, and the sum only has to be seen to be too large. */
static int64_t reach_add(int64_t acc, const AccFactor *f)
{
    const int64_t big = INT64_MAX / 4;
    if (f->stride > 0 && f->n - 1 > (big - acc) / f->stride)
        return big;
    return acc + (f->n - 1) * f->stride;
}

/* The span of an axis's factors, for messages about the axis. */
static TlLoc axis_loc(Ck *c, int a)
{
    AccLayout *L = c->L;
    if (L->first[a] == L->first[a + 1] || c->l->form == LAYOUT_COMPACT)
        return c->req->where;
    return loc_span(L->f[L->first[a]].loc, L->f[L->first[a + 1] - 1].loc);
}

static void check_sizes(Ck *c)
{
    AccLayout *L = c->L;
    for (int a = 0; a < L->rank; a++) {
        int64_t p = 1;
        for (int i = L->first[a]; i < L->first[a + 1]; i++)
            p = L->f[i].n > 0 && p <= INT64_MAX / L->f[i].n
                    ? p * L->f[i].n : INT64_MAX;
        if (L->shape[a] < 0) {
            L->shape[a] = p;
        } else if (p != L->shape[a]) {
            diag_error(c->s, axis_loc(c, a), DIAG_LAYOUT_AXIS_SIZE,
                       c->names[a], (long long)p, (long long)L->shape[a]);
            c->errors++;
        }
    }
}

static void check_levels(Ck *c)
{
    AccLayout *L = c->L;
    const AccMachine *m = L->m;

    for (int lv = 0; lv < m->nlevels; lv++) {
        int64_t reach = 0;
        for (int i = 0; i < L->nf; i++) {
            AccFactor *f = &L->f[i];
            if (f->kind != ACC_F_LEVEL || f->level != lv)
                continue;
            if (lv > L->node_level) {
                diag_error(c->s, f->loc, DIAG_LAYOUT_BELOW_SPACE,
                           acc_layout_space_name(L->space), m->level[lv].name,
                           acc_layout_space_name(L->space));
                c->errors++;
                break;
            }
            reach = reach_add(reach, f);
            if (reach >= m->level[lv].fanout) {
                diag_error(c->s, f->loc, DIAG_LAYOUT_FANOUT,
                           factor_str(c, f), m->level[lv].name,
                           (long long)reach, m->name, m->level[lv].fanout,
                           m->level[lv].name);
                c->errors++;
                break;
            }
        }
    }
}

static void check_words(Ck *c)
{
    AccLayout *L = c->L;
    int64_t reach = 0;
    for (int i = 0; i < L->nf; i++) {
        AccFactor *f = &L->f[i];
        if (f->kind != ACC_F_WORD)
            continue;
        reach = reach_add(reach, f);
        if (reach >= L->epl) {
            diag_error(c->s, f->loc, DIAG_LAYOUT_WORD, (long long)reach,
                       L->epl, dt_name(L->dtype));
            c->errors++;
            return;
        }
    }
}

static int64_t space_words(const AccLayout *L)
{
    const AccMachine *m = L->m;
    switch (L->space) {
    case ACC_LSP_LM0:
    case ACC_LSP_LM1:
        return m->lm_words;
    case ACC_LSP_R:
    case ACC_LSP_S:
        return m->grf_words;
    case ACC_LSP_LB:
    case ACC_LSP_LC:
        return m->level[L->node_level].bm_words;
    case ACC_LSP_D:
    case ACC_LSP__COUNT:
        break;
    }
    return m->dram_words;
}

static void check_addresses(Ck *c)
{
    AccLayout *L = c->L;
    int64_t reach = 0, cap = space_words(L);
    for (int i = 0; i < L->nf; i++) {
        AccFactor *f = &L->f[i];
        if (f->kind == ACC_F_ADDR || f->kind == ACC_F_LANE)
            reach = reach_add(reach, f);
    }
    L->addr_span = reach + 1;
    if (reach >= cap - L->base) {
        diag_error(c->s, L->placed ? c->req->place_loc : c->req->where,
                   DIAG_LAYOUT_CAPACITY, (long long)(L->base + reach),
                   acc_layout_space_name(L->space), (long long)cap, L->m->name);
        c->errors++;
    } else if (L->placed && L->base + reach >= L->end) {
        diag_error(c->s, c->req->place_loc, DIAG_LAYOUT_PLACE_SIZE,
                   (long long)(L->base + reach),
                   acc_layout_space_name(L->space), (long long)L->base,
                   (long long)L->end);
        c->errors++;
    }
    if (!L->placed)
        L->end = L->base + L->addr_span;
}

static void check_bcast(Ck *c)
{
    AccLayout *L = c->L;
    const TlIdentList *b = &c->l->bcast;

    L->ncopies = 1;
    for (int i = 0; i < b->n; i++) {
        int lv = acc_level_index(L->m, b->v[i].name);
        if (lv < 0) {
            diag_error(c->s, b->v[i].loc, DIAG_LAYOUT_LEVEL, L->m->name,
                       b->v[i].name, level_list(c->s, L->m));
            c->errors++;
            continue;
        }
        if (L->bcast & (1u << lv)) {
            diag_error(c->s, b->v[i].loc, DIAG_LAYOUT_BCAST_TWICE,
                       b->v[i].name);
            c->errors++;
            continue;
        }
        if (lv > L->node_level) {
            diag_error(c->s, b->v[i].loc, DIAG_LAYOUT_BELOW_SPACE,
                       acc_layout_space_name(L->space), b->v[i].name,
                       acc_layout_space_name(L->space));
            c->errors++;
            continue;
        }
        for (int j = 0; j < L->nf; j++)
            if (L->f[j].kind == ACC_F_LEVEL && L->f[j].level == lv) {
                diag_error(c->s, b->v[i].loc, DIAG_LAYOUT_BCAST_SPLIT,
                           b->v[i].name);
                c->errors++;
                lv = -1;
                break;
            }
        if (lv < 0)
            continue;
        L->bcast |= 1u << lv;
        L->ncopies *= L->m->level[lv].fanout;
    }
}

/* "(3, 5)" */
static const char *index_str(Ck *c, int64_t e)
{
    int64_t idx[ACC_LAYOUT_MAX_RANK];
    acc_layout_unflatten(c->L, e, idx);
    return shape_str(ar(c), c->L->rank, idx);
}

static const char *place_str(Ck *c, const AccLoc *loc)
{
    const AccLayout *L = c->L;
    TlBuf b;
    char *r;

    buf_init(&b);
    for (int lv = 0; lv <= loc->node_level; lv++)
        buf_printf(&b, "%s %lld, ", L->m->level[lv].name,
                   (long long)loc->path[lv]);
    buf_printf(&b, "%s address %lld, word %d",
               acc_layout_space_name(loc->space), (long long)loc->addr,
               loc->word);
    r = arena_strdup(ar(c), b.s);
    buf_free(&b);
    return r;
}

static void check_overlap(Ck *c)
{
    AccLayout *L = c->L;
    int64_t dup[2];
    AccLoc loc;

    if (acc_layout_build_dec(ar(c), L, dup) == 0)
        return;
    acc_layout_locate(L, dup[0], 0, &loc);
    {
        TlLoc where = c->req->where;
        if (L->nf && c->l->form == LAYOUT_CANONICAL)
            where = loc_span(L->f[0].loc, L->f[L->nf - 1].loc);
        diag_error(c->s, where, DIAG_LAYOUT_OVERLAP, index_str(c, dup[0]),
                   index_str(c, dup[1]), place_str(c, &loc));
    }
    c->errors++;
}

static int node_level_of(Ck *c, AccLaySpace sp)
{
    const AccMachine *m = c->L->m;
    int k;
    switch (sp) {
    case ACC_LSP_LB:
    case ACC_LSP_LC:
        k = acc_bm_level(m, sp == ACC_LSP_LB ? 1 : 2);
        if (k < 0) {
            diag_error(c->s, c->req->place_loc, DIAG_LAYOUT_LEVEL, m->name,
                       sp == ACC_LSP_LB ? "L1" : "L2", level_list(c->s, m));
            c->errors++;
        }
        return k;
    case ACC_LSP_D:
        return -1;
    default:
        return m->nlevels - 1;
    }
}

AccLayout *acc_layout_check(TlSession *s, const TlLayout *l,
                            const AccLayoutReq *req)
{
    Ck c;
    AccLayout *L = arena_alloc(&s->arena, sizeof *L);

    memset(&c, 0, sizeof c);
    c.s = s;
    c.req = req;
    c.L = L;
    c.l = l;
    L->m = req->m;
    L->dtype = req->dtype;
    L->epl = dt_size(req->dtype) > 0 && dt_size(req->dtype) <= 8
                 ? 8 / dt_size(req->dtype) : 1;
    L->rank = req->rank;
    if (l->form == LAYOUT_CANONICAL && L->rank == 0)
        L->rank = l->axes.n;
    TL_ASSERT(L->rank >= 0 && L->rank <= ACC_LAYOUT_MAX_RANK);
    for (int a = 0; a < L->rank; a++) {
        L->shape[a] = req->rank ? req->shape[a] : -1;
        snprintf(c.dflt_names[a], sizeof c.dflt_names[a], "%c",
                 a < 6 ? "ijklmn"[a] : 'p' + a - 6);
        c.names[a] = req->axis_names ? req->axis_names[a] : c.dflt_names[a];
    }
    L->space = req->has_place ? req->space : ACC_LSP_LM0;
    L->base = req->has_place ? req->base : 0;
    L->end = req->has_place ? req->end : -1;
    L->placed = req->has_place;
    L->node_level = node_level_of(&c, L->space);
    if (c.errors)
        return NULL;

    if (l->form == LAYOUT_CANONICAL) {
        if (l->axes.n != L->rank) {
            diag_error(s, l->axes.n ? l->axes.v[0].v[0].loc : req->where,
                       DIAG_LAYOUT_RANK, l->axes.n, tensor_str(&c),
                       L->rank);
            return NULL;
        }
        canonical(&c);
    } else {
        compact(&c);
    }
    if (c.errors)
        return NULL;
    default_strides(L);
    check_sizes(&c);
    if (c.errors)
        return NULL;
    /* The check lists every element's place per dimension: keep that
     * to what a test or a real tensor on mn2 needs. */
    L->nelems = 1;
    for (int a = 0; a < L->rank; a++) {
        if (L->shape[a] > ACC_LAYOUT_MAX_ELEMS / L->nelems) {
            diag_error(s, c.l->form == LAYOUT_CANONICAL ? axis_loc(&c, a)
                                                        : req->where,
                       DIAG_LAYOUT_TOO_LARGE, tensor_str(&c),
                       (long long)ACC_LAYOUT_MAX_ELEMS);
            return NULL;
        }
        L->nelems *= L->shape[a];
    }
    check_bcast(&c);
    check_levels(&c);
    check_words(&c);
    check_addresses(&c);
    if (c.errors)
        return NULL;
    check_overlap(&c);
    return c.errors ? NULL : L;
}

AccLayout *acc_layout_from_text(TlSession *s, const char *name,
                                const char *text, const AccLayoutReq *req)
{
    AccLayoutText t;
    AccLayoutReq r = *req;

    if (acc_layout_parse(s, name, text, &t) < 0)
        return NULL;
    if (t.rank) {
        int differ = req->rank && req->rank != t.rank;
        for (int a = 0; !differ && a < req->rank; a++)
            differ = req->shape[a] >= 0 && req->shape[a] != t.shape[a];
        if (differ) {
            diag_error(s, t.shape_loc, DIAG_LAYOUT_SHAPE,
                       shape_str(&s->arena, t.rank, t.shape),
                       shape_str(&s->arena, req->rank, req->shape));
            return NULL;
        }
        r.rank = t.rank;
        memcpy(r.shape, t.shape, sizeof r.shape);
    }
    if (t.has_place) {
        r.has_place = 1;
        r.space = t.space;
        r.base = t.base;
        r.end = t.end;
        r.place_loc = t.place_loc;
    }
    if (r.where.file < 0 || r.where.line == 0) {
        r.where.file = s->nsrc - 1;
        r.where.line = 1;
        r.where.col = 1;
        r.where.off = 0;
        r.where.len = (int)strlen(text);
    }
    if (!r.has_place)
        r.place_loc = r.where;
    return acc_layout_check(s, t.layout, &r);
}

/* ====================================================================
 * Printing
 * ==================================================================== */

void acc_layout_print_factors(TlBuf *out, const AccLayout *L)
{
    buf_putc(out, '(');
    for (int a = 0; a < L->rank; a++) {
        buf_puts(out, a ? ", (" : "(");
        for (int i = L->first[a]; i < L->first[a + 1]; i++) {
            if (i > L->first[a])
                buf_puts(out, ", ");
            factor_text(out, L, &L->f[i]);
        }
        buf_putc(out, ')');
    }
    buf_putc(out, ')');
    if (L->bcast) {
        int n = 0;
        buf_puts(out, "; B@[");
        for (int lv = 0; lv < L->m->nlevels; lv++)
            if (L->bcast & (1u << lv))
                buf_printf(out, "%s%s", n++ ? ", " : "", L->m->level[lv].name);
        buf_putc(out, ']');
    }
}

void acc_layout_print(TlBuf *out, const AccLayout *L)
{
    buf_printf(out, "%s[%lld:%lld], (", acc_layout_space_name(L->space),
               (long long)L->base, (long long)L->end);
    for (int a = 0; a < L->rank; a++)
        buf_printf(out, "%s%lld", a ? "," : "", (long long)L->shape[a]);
    buf_puts(out, ")/");
    acc_layout_print_factors(out, L);
}
