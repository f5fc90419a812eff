/*
 * acc_disasm.c - programs back to assembly text.  The output is what
 * acc_assemble reads back to the same program: one bundle per line,
 * the I/O directives first, `.rep` blocks for compressed repetitions
 * (with `%i` in the addresses that step).
 */
#include "codegen/acc/acc_int.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

static void put_const(TlBuf *out, const AccConst *c)
{
    if (isnan(c->f))
        buf_puts(out, signbit(c->f) ? "-nan" : "nan");
    else if (isinf(c->f))
        buf_puts(out, c->f < 0 ? "-inf" : "inf");
    else if (c->f == (double)c->i && fabs(c->f) < 9007199254740992.0 &&
             !(c->f == 0 && signbit(c->f)))
        buf_printf(out, "%lld", (long long)c->i);
    else
        buf_printf(out, "%.17g", c->f);
}

/* An address with an optional "+%i*inc" (inc from a rep). */
static void put_addr(TlBuf *out, int64_t a, int32_t inc)
{
    buf_printf(out, "%lld", (long long)a);
    if (inc)
        buf_printf(out, "%+d*%%i", inc);
}

static void put_opnd(TlBuf *out, const AccProgram *p, const AccOpnd *o,
                     int32_t inc)
{
    const AccMachine *m = p->m;
    switch (o->space) {
    case ACC_SP_IMM:
        buf_putc(out, '#');
        put_const(out, &p->consts[o->addr]);
        return;
    case ACC_SP_ID:
        if (o->k == ACC_ID_SUB)
            buf_puts(out, "$sub");
        else if (o->k == ACC_ID_GPE)
            buf_puts(out, "$gpe");
        else {
            buf_putc(out, '$');
            for (const char *c = m->level[o->k].name; *c; c++)
                buf_putc(out, (char)tolower((unsigned char)*c));
        }
        return;
    case ACC_SP_MASK:
        buf_printf(out, "m%d", o->addr);
        return;
    case ACC_SP_MREG:
        buf_puts(out, o->k ? "y" : "x");
        if (o->addr || inc) {
            buf_putc(out, '[');
            put_addr(out, o->addr, inc);
            buf_putc(out, ']');
        }
        return;
    case ACC_SP_BM:
    case ACC_SP_DRAM:
        if (o->space == ACC_SP_DRAM)
            buf_puts(out, "d[");
        else if (o->k <= 2)
            buf_puts(out, o->k == 1 ? "lb[" : "lc[");
        else
            buf_printf(out, "b%d[", o->k);
        put_addr(out, o->addr, inc);
        if (o->stride) {
            buf_putc(out, ':');
            put_addr(out, (int64_t)o->addr + o->stride, inc);
        }
        buf_putc(out, ']');
        return;
    case ACC_SP_ALUF:
    case ACC_SP_MAUF:
    case ACC_SP_LBF:
        buf_puts(out, acc_space_name(o->space));
        break;
    default:
        buf_printf(out, "%s[", acc_space_name(o->space));
        if (o->mode == ACC_MODE_INDIRECT) {
            buf_putc(out, 't');
        } else if (o->mode == ACC_MODE_FLAT) {
            for (int c = 0; c < 4; c++)
                buf_printf(out, "%s%lld", c ? "," : "",
                           (long long)p->consts[o->addr + c].i);
        } else {
            put_addr(out, o->addr, inc);
            if (o->stride == 2 * o->width)
                buf_putc(out, '+');
            else if (o->stride)
                buf_printf(out, " by %d", o->stride);
        }
        buf_putc(out, ']');
        break;
    }
    if (o->width == 2)
        buf_puts(out, ".dd");
    if (o->mask)
        buf_printf(out, "/m%d", o->mask);
}

void acc_print_opnd(TlBuf *out, const AccProgram *p, const AccOpnd *o)
{
    put_opnd(out, p, o, 0);
}

static void put_op(TlBuf *out, const AccProgram *p, const AccOp *op,
                   const int32_t *inc)
{
    buf_puts(out, acc_op_name(op->opc));
    if (op->level)
        buf_printf(out, ".L%d", op->level);
    if (op->dt)
        buf_printf(out, ".%s", dt_name((TlDType)op->dt));
    if (op->dt2)
        buf_printf(out, ".%s", dt_name((TlDType)op->dt2));
    if (op->slot == ACC_SLOT_DMA)
        buf_printf(out, ".t%d", op->tag);
    if (op->child >= 0)
        buf_printf(out, "@%d", op->child);
    for (int i = 0, first = 1; op->set && i < 64; i++)
        if (op->set >> i & 1) {
            buf_printf(out, "%s%d", first ? "@{" : ",", i);
            first = 0;
        }
    if (op->set)
        buf_putc(out, '}');
    if (op->opc == ACC_OP_NOP && op->nsteps > 1)
        buf_printf(out, "/%d", op->nsteps);
    if (op->opc == ACC_OP_WAIT)
        buf_printf(out, " t%d", op->tag);
    for (int i = 0; i < op->nsrc; i++) {
        buf_puts(out, i ? ", " : " ");
        put_opnd(out, p, &op->src[i], inc ? inc[i] : 0);
    }
    for (int i = 0; i < op->ndst; i++) {
        buf_puts(out, i ? ", " : " -> ");
        put_opnd(out, p, &op->dst[i], inc ? inc[ACC_MAX_SRC + i] : 0);
    }
}

void acc_print_op(TlBuf *out, const AccProgram *p, const AccOp *op)
{
    put_op(out, p, op, NULL);
}

static void put_bundle(TlBuf *out, const AccProgram *p, int b,
                       const int32_t *inc, const char *indent)
{
    const AccBundle *bd = &p->b[b];
    buf_puts(out, indent);
    for (int i = 0; i < bd->nops; i++) {
        if (i)
            buf_puts(out, " ; ");
        put_op(out, p, &p->ops[bd->first + i],
               inc ? inc + (size_t)i * (ACC_MAX_SRC + ACC_MAX_DST) : NULL);
    }
    buf_putc(out, '\n');
}

void acc_asm_quote(TlBuf *out, const char *str)
{
    buf_putc(out, '"');
    for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
        if (*c == '"' || *c == '\\')
            buf_printf(out, "\\%c", *c);
        else if (*c < ' ' || *c >= 0x7f || *c == '#')
            buf_printf(out, "\\x%02x", *c);
        else
            buf_putc(out, (char)*c);
    }
    buf_putc(out, '"');
}

void acc_disasm(TlBuf *out, const AccProgram *p)
{
    buf_printf(out, ".machine %s\n", p->m->name);
    for (int i = 0; i < p->nio; i++) {
        const AccIO *io = &p->io[i];
        buf_printf(out, ".%s %s %s[", io->is_output ? "output" : "input",
                   io->name, dt_name(io->dt));
        for (int d = 0; d < io->rank; d++)
            buf_printf(out, "%s%lld", d ? "," : "", (long long)io->shape[d]);
        buf_printf(out, "] d[%lld]", (long long)io->addr);
        if (io->nimg)
            buf_printf(out, " image %lld", (long long)io->nimg);
        buf_puts(out, "\n");
        acc_img_print(out, io->name, io->img, io->nimgruns);
    }
    for (int i = 0; i < p->nio; i++) {
        const AccIO *io = &p->io[i];
        if (!io->has_hash)
            continue;
        buf_printf(out, ".assert hash(%s) == %lld", io->name,
                   (long long)io->hash);
        if (io->msg) {
            buf_puts(out, ", ");
            acc_asm_quote(out, io->msg);
        }
        buf_putc(out, '\n');
    }
    int r = 0;
    for (int b = 0; b < p->nb;) {
        if (r < p->nreps && p->reps[r].first == b) {
            const AccRep *rp = &p->reps[r];
            buf_printf(out, ".rep %lld\n", (long long)rp->count);
            const int32_t *inc = rp->inc;
            for (int j = 0; j < rp->n; j++) {
                put_bundle(out, p, b + j, inc, "    ");
                inc += (size_t)p->b[b + j].nops * (ACC_MAX_SRC + ACC_MAX_DST);
            }
            buf_puts(out, ".endrep\n");
            b += rp->n;
            r++;
            continue;
        }
        put_bundle(out, p, b, NULL, "");
        b++;
    }
}
