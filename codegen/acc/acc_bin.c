/*
 * acc_bin.c - the .tam binary: a header naming the machine (name and
 * hash), the constant table, the I/O tensors and the bundles, all
 * little-endian (layout in docs/accel-asm.md).  The reader checks
 * every length against what is left of the file and every op with the
 * assembler's own rules, so a corrupt file is an error, never a read
 * out of bounds later.
 */
#include "codegen/acc/acc_int.h"

#include <string.h>

/* Version 2 added an op's node set (dma.bcast@{...}, 8 bytes after the
 * nop steps); version 3 an input's `.assert hash(x) == N` (a byte after
 * each tensor's address, then when it is 1 the hash and its message);
 * version 4 a tensor's image (.image runs) between its address and
 * that byte. */
#define TAM_VERSION 4
enum { RUN_BYTES = 48 };
enum { OPND_BYTES = 16, OP_BYTES = 20 + 5 * OPND_BYTES };

static void put_u8(TlBuf *b, unsigned v)
{
    buf_putc(b, (char)(v & 0xff));
}

static void put_le(TlBuf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        put_u8(b, (unsigned)(v >> (8 * i)));
}

static void put_opnd(TlBuf *b, const AccOpnd *o)
{
    put_u8(b, o->space);
    put_u8(b, o->width);
    put_u8(b, o->mode);
    put_u8(b, o->mask);
    put_u8(b, o->k);
    put_le(b, 0, 3);
    put_le(b, (uint32_t)o->addr, 4);
    put_le(b, (uint32_t)o->stride, 4);
}

void acc_write_tam(TlBuf *out, TlSession *s, const AccProgram *p)
{
    p = acc_expand(s, p);
    buf_putn(out, "TAM\0", 4);
    put_le(out, TAM_VERSION, 4);
    put_le(out, acc_machine_hash(p->m), 8);
    size_t nl = strlen(p->m->name);
    put_u8(out, (unsigned)nl);
    buf_putn(out, p->m->name, nl);
    put_le(out, (uint32_t)p->nconsts, 4);
    put_le(out, (uint32_t)p->nio, 4);
    put_le(out, (uint32_t)p->nb, 4);
    put_le(out, (uint32_t)p->nops, 4);
    for (int i = 0; i < p->nconsts; i++) {
        uint64_t f;
        memcpy(&f, &p->consts[i].f, 8);
        put_le(out, f, 8);
        put_le(out, (uint64_t)p->consts[i].i, 8);
    }
    for (int i = 0; i < p->nio; i++) {
        const AccIO *io = &p->io[i];
        size_t n = strlen(io->name);
        put_u8(out, (unsigned)io->is_output);
        put_u8(out, io->dt);
        put_u8(out, (unsigned)io->rank);
        put_u8(out, (unsigned)n);
        buf_putn(out, io->name, n);
        for (int d = 0; d < io->rank; d++)
            put_le(out, (uint64_t)io->shape[d], 8);
        put_le(out, (uint64_t)io->addr, 8);
        put_le(out, (uint64_t)io->nimg, 8);
        put_le(out, (uint32_t)io->nimgruns, 4);
        for (int j = 0; j < io->nimgruns; j++) {
            const AccImgRun *r = &io->img[j];
            uint64_t v;
            memcpy(&v, &r->v, 8);
            put_le(out, (uint64_t)r->from, 8);
            put_le(out, (uint64_t)r->step, 8);
            put_le(out, (uint64_t)r->count, 8);
            put_le(out, (uint64_t)r->reps, 8);
            put_le(out, (uint64_t)r->rstep, 8);
            put_le(out, v, 8);
        }
        put_u8(out, (unsigned)io->has_hash);
        if (io->has_hash) {
            size_t ml = io->msg ? strlen(io->msg) : 0;
            if (ml > 0xfffe)
                ml = 0xfffe;
            put_le(out, (uint64_t)io->hash, 8);
            put_le(out, io->msg ? ml + 1 : 0, 2);
            buf_putn(out, io->msg ? io->msg : "", ml);
        }
    }
    for (int b = 0; b < p->nb; b++) {
        const AccBundle *bd = &p->b[b];
        put_le(out, (uint32_t)bd->nops, 2);
        for (int o = 0; o < bd->nops; o++) {
            const AccOp *op = &p->ops[bd->first + o];
            put_u8(out, op->opc);
            put_u8(out, op->slot);
            put_u8(out, op->dt);
            put_u8(out, op->dt2);
            put_u8(out, op->level);
            put_u8(out, op->nsrc);
            put_u8(out, op->ndst);
            put_u8(out, op->tag);
            put_le(out, (uint16_t)op->child, 2);
            put_le(out, op->nsteps, 2);
            put_le(out, op->set, 8);
            for (int i = 0; i < ACC_MAX_SRC; i++)
                put_opnd(out, &op->src[i]);
            for (int i = 0; i < ACC_MAX_DST; i++)
                put_opnd(out, &op->dst[i]);
        }
    }
}

typedef struct Rd {
    const unsigned char *p, *end;
    TlBuf *err;
    int bad;
} Rd;

static uint64_t get(Rd *r, int n)
{
    if (r->bad || r->end - r->p < n) {
        if (!r->bad)
            buf_puts(r->err, "the file ends early (truncated?)");
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static void get_opnd(Rd *r, AccOpnd *o)
{
    o->space = (uint8_t)get(r, 1);
    o->width = (uint8_t)get(r, 1);
    o->mode = (uint8_t)get(r, 1);
    o->mask = (uint8_t)get(r, 1);
    o->k = (uint8_t)get(r, 1);
    get(r, 3);
    o->addr = (int32_t)(uint32_t)get(r, 4);
    o->stride = (int32_t)(uint32_t)get(r, 4);
}

static AccProgram *fail(Rd *r, const char *msg)
{
    if (!r->bad)
        buf_puts(r->err, msg);
    return NULL;
}

AccProgram *acc_read_tam(TlSession *s, const void *data, size_t len,
                         const AccMachine *m, TlBuf *err)
{
    Rd r = {data, (const unsigned char *)data + len, err, 0};
    if (len < 4 || memcmp(data, "TAM\0", 4) != 0)
        return fail(&r, "not a .tam file (no TAM magic)");
    r.p += 4;
    uint64_t ver = get(&r, 4);
    if (!r.bad && ver != TAM_VERSION) {
        buf_printf(err, "a .tam file of version %llu; this tdsl reads "
                   "version %d", (unsigned long long)ver, TAM_VERSION);
        return NULL;
    }
    uint64_t hash = get(&r, 8);
    size_t nl = (size_t)get(&r, 1);
    if (r.bad || (size_t)(r.end - r.p) < nl)
        return fail(&r, "the file ends early (truncated?)");
    char *name = arena_strndup(&s->arena, (const char *)r.p, nl);
    r.p += nl;
    if (!m) {
        m = acc_machine_builtin(name);
        if (!m) {
            buf_printf(err, "the program is for machine '%s', which is not "
                       "built in: give it with --machine FILE", name);
            return NULL;
        }
    }
    if (acc_machine_hash(m) != hash) {
        buf_printf(err, "the program was assembled for machine '%s', which "
                   "differs from '%s'", name, m->name);
        return NULL;
    }
    AccProgram *p = arena_alloc(&s->arena, sizeof *p);
    p->m = m;
    uint64_t nc = get(&r, 4), nio = get(&r, 4), nb = get(&r, 4);
    uint64_t nops = get(&r, 4);
    size_t left = (size_t)(r.end - r.p);
    if (r.bad || nc > left / 16 || nio > left / 12 || nb > left / 2 ||
        nops > left / OP_BYTES)
        return fail(&r, "table sizes larger than the file (corrupt)");
    p->consts = arena_alloc(&s->arena, (nc + 1) * sizeof *p->consts);
    p->nconsts = (int)nc;
    for (uint64_t i = 0; i < nc; i++) {
        uint64_t f = get(&r, 8);
        memcpy(&p->consts[i].f, &f, 8);
        p->consts[i].i = (int64_t)get(&r, 8);
    }
    p->io = arena_alloc(&s->arena, (nio + 1) * sizeof *p->io);
    p->nio = (int)nio;
    for (uint64_t i = 0; i < nio && !r.bad; i++) {
        AccIO *io = &p->io[i];
        io->is_output = (int)get(&r, 1);
        io->dt = (TlDType)get(&r, 1);
        io->rank = (int)get(&r, 1);
        size_t n = (size_t)get(&r, 1);
        io->loc.file = -1;
        if (r.bad || io->is_output > 1 || io->dt <= DT_BOOL ||
            io->dt >= DT__COUNT || io->rank > TL_MAX_RANK || n == 0 ||
            (size_t)(r.end - r.p) < n)
            return fail(&r, "a bad tensor declaration (corrupt)");
        io->name = arena_strndup(&s->arena, (const char *)r.p, n);
        r.p += n;
        int64_t elems = 1;
        for (int d = 0; d < io->rank; d++) {
            io->shape[d] = (int64_t)get(&r, 8);
            if (io->shape[d] < 0 || io->shape[d] > (1LL << 40) ||
                (io->shape[d] && elems > (1LL << 40) / io->shape[d]))
                return fail(&r, "a bad tensor shape (corrupt)");
            elems *= io->shape[d];
        }
        io->addr = (int64_t)get(&r, 8);
        io->nimg = (int64_t)get(&r, 8);
        uint64_t nrun = get(&r, 4);
        if (r.bad || io->nimg < 0 || io->nimg > (1LL << 40) ||
            (!io->nimg && nrun) ||
            nrun > (size_t)(r.end - r.p) / RUN_BYTES)
            return fail(&r, "a bad tensor image (corrupt)");
        if (io->nimg)
            elems = io->nimg;
        int64_t lw = (elems * (int64_t)dt_size(io->dt) + 7) / 8;
        if (io->addr < 0 || io->addr > m->dram_words ||
            lw > m->dram_words - io->addr)
            return fail(&r, "a tensor outside DRAM (corrupt)");
        io->nimgruns = (int)nrun;
        io->img = arena_alloc(&s->arena, (nrun + 1) * sizeof *io->img);
        for (uint64_t j = 0; j < nrun; j++) {
            AccImgRun *x = &io->img[j];
            uint64_t v;
            x->from = (int64_t)get(&r, 8);
            x->step = (int64_t)get(&r, 8);
            x->count = (int64_t)get(&r, 8);
            x->reps = (int64_t)get(&r, 8);
            x->rstep = (int64_t)get(&r, 8);
            v = get(&r, 8);
            memcpy(&x->v, &v, 8);
        }
        if (io->nimg) {
            TlBuf why;
            int bad;
            buf_init(&why);
            bad = acc_img_check(io, &why);
            if (bad && !r.bad)
                buf_printf(err, "the image of '%s': %s (corrupt)",
                           io->name, why.s);
            buf_free(&why);
            if (bad)
                return NULL;
        }
        io->has_hash = (int)get(&r, 1);
        if (!r.bad && (io->has_hash > 1 || (io->has_hash && io->is_output)))
            return fail(&r, "a bad .assert (corrupt)");
        if (io->has_hash) {
            io->hash = (int64_t)get(&r, 8);
            size_t ml = (size_t)get(&r, 2);
            if (ml) {
                ml--;
                if (r.bad || (size_t)(r.end - r.p) < ml ||
                    memchr(r.p, 0, ml))
                    return fail(&r, "a bad .assert message (corrupt)");
                io->msg = arena_strndup(&s->arena, (const char *)r.p, ml);
                r.p += ml;
            }
        }
    }
    p->b = arena_alloc(&s->arena, (nb + 1) * sizeof *p->b);
    p->ops = arena_alloc(&s->arena, (nops + 1) * sizeof *p->ops);
    p->nb = (int)nb;
    uint64_t no = 0;
    TlBuf why;
    buf_init(&why);
    for (uint64_t b = 0; b < nb && !r.bad; b++) {
        AccBundle *bd = &p->b[b];
        uint64_t n = get(&r, 2);
        if (n > nops - no) {
            buf_free(&why);
            return fail(&r, "more ops than the header says (corrupt)");
        }
        bd->first = (int)no;
        bd->nops = (int)n;
        bd->loc.file = -1;
        bd->loc.line = (int)b + 1;
        for (uint64_t o = 0; o < n && !r.bad; o++) {
            AccOp *op = &p->ops[no++];
            op->opc = (uint8_t)get(&r, 1);
            op->slot = (uint8_t)get(&r, 1);
            op->dt = (uint8_t)get(&r, 1);
            op->dt2 = (uint8_t)get(&r, 1);
            op->level = (uint8_t)get(&r, 1);
            op->nsrc = (uint8_t)get(&r, 1);
            op->ndst = (uint8_t)get(&r, 1);
            op->tag = (uint8_t)get(&r, 1);
            op->child = (int16_t)(uint16_t)get(&r, 2);
            op->nsteps = (uint16_t)get(&r, 2);
            op->set = get(&r, 8);
            for (int i = 0; i < ACC_MAX_SRC; i++)
                get_opnd(&r, &op->src[i]);
            for (int i = 0; i < ACC_MAX_DST; i++)
                get_opnd(&r, &op->dst[i]);
            if (r.bad)
                break;
            why.len = 0;
            if (acc_check_op(m, p, op, &why)) {
                buf_printf(err, "bundle %llu: %s (corrupt)",
                           (unsigned long long)b + 1, why.s);
                buf_free(&why);
                return NULL;
            }
        }
        int which;
        why.len = 0;
        if (!r.bad && acc_check_bundle(m, p->ops + bd->first, bd->nops,
                                       &why, &which)) {
            buf_printf(err, "bundle %llu: %s (corrupt)",
                       (unsigned long long)b + 1, why.s);
            buf_free(&why);
            return NULL;
        }
    }
    buf_free(&why);
    if (r.bad)
        return NULL;
    if (no != nops || r.p != r.end)
        return fail(&r, "sizes in the header do not match the contents "
                    "(corrupt)");
    p->nops = (int)nops;
    return p;
}
