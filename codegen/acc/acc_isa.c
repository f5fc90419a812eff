/*
 * acc_isa.c - the instruction set as tables and rules: opcode names
 * and kinds, which slot an op takes, and the checks every op and every
 * bundle must pass.  The assembler reports a failed check at the op;
 * the binary reader refuses the file; so the simulator never sees an
 * operand out of range (except through T, checked when it runs).
 */
#include "codegen/acc/acc_int.h"

#include <string.h>

static const struct {
    const char *name;
    AccOpKind kind;
} optab[] = {
#define X(id, sp, k) {sp, k},
    ACC_OPS(X)
#undef X
};

const char *acc_op_name(AccOpcode op)
{
    return op < ACC_OP__COUNT ? optab[op].name : "?";
}

int acc_op_find(const char *name)
{
    for (int i = 0; i < ACC_OP__COUNT; i++)
        if (!strcmp(optab[i].name, name))
            return i;
    return -1;
}

AccOpKind acc_op_kind(AccOpcode op)
{
    return optab[op].kind;
}

const char *acc_space_name(int sp)
{
    static const char *const n[ACC_SP__COUNT] = {
        "?", "lm0", "lm1", "r", "s", "t", "aluf", "mauf", "lbf", "#",
        "$", "m", "x", "b", "d"};
    return sp >= 0 && sp < ACC_SP__COUNT ? n[sp] : "?";
}

const char *acc_slot_name(const AccMachine *m, int slot, char *buf,
                          size_t n)
{
    static const char *const fixed[] = {"ALU", "MAU", "MW", "DMA", "CTL"};
    (void)m;
    if (slot < ACC_SLOT_L)
        return fixed[slot];
    snprintf(buf, n, "L%d", slot - ACC_SLOT_L + 1);
    return buf;
}

int acc_dt_bits(TlDType dt)
{
    switch (dt) {
    case DT_F64: case DT_I64: return 64;
    case DT_F32: case DT_I32: return 32;
    case DT_F16: case DT_BF16: case DT_I16: return 16;
    default: return 0;
    }
}

int acc_dt_ok(TlDType dt)
{
    return dt == DT_F64 || dt == DT_F32 || dt == DT_F16 || dt == DT_BF16 ||
           dt == DT_I32 || dt == DT_I16;
}

static int is_float(TlDType dt)
{
    return dt == DT_F64 || dt == DT_F32 || dt == DT_F16 || dt == DT_BF16;
}

int acc_lanes(TlDType dt, int w)
{
    int b = acc_dt_bits(dt);
    return b ? 64 * w / b : 0;
}

int acc_op_slot(const AccOp *op)
{
    switch (acc_op_kind(op->opc)) {
    case ACC_K_BIN:
        if (op->opc == ACC_OP_ADD || op->opc == ACC_OP_SUB ||
            op->opc == ACC_OP_MUL)
            return is_float(op->dt) ? ACC_SLOT_MAU : ACC_SLOT_ALU;
        return ACC_SLOT_ALU;
    case ACC_K_FMA: case ACC_K_MFMA: case ACC_K_MREAD:
        return ACC_SLOT_MAU;
    case ACC_K_MWRITE: return ACC_SLOT_MW;
    case ACC_K_XDOWN: case ACC_K_XUP: return ACC_SLOT_L + op->level - 1;
    case ACC_K_DMA: return ACC_SLOT_DMA;
    case ACC_K_CTL: return ACC_SLOT_CTL;
    default: return ACC_SLOT_ALU;
    }
}

int64_t acc_children(const AccMachine *m, int k)
{
    int li = acc_bm_level(m, k);
    if (k == 1)
        return acc_level_span(m, li);
    int lo = acc_bm_level(m, k - 1);
    return acc_level_nodes(m, lo) / acc_level_nodes(m, li);
}

int acc_set_children(const AccMachine *m, const AccOp *op, int64_t *n,
                     const char **what, const char **under)
{
    int nbm = acc_bm_levels(m), k = op->level;

    if (op->opc == ACC_OP_DBCAST) {
        int top = acc_bm_level(m, nbm);
        *n = acc_level_nodes(m, top);
        *what = m->level[top].name;
        *under = NULL;
        return 0;
    }
    if ((op->opc != ACC_OP_BCAST && op->opc != ACC_OP_DIST &&
         op->opc != ACC_OP_MBCAST) || k < 1 || k > nbm)
        return -1;
    *under = m->level[acc_bm_level(m, k)].name;
    if (k > 1) {
        *n = acc_children(m, k);
        *what = m->level[acc_bm_level(m, k - 1)].name;
    } else if (op->opc == ACC_OP_MBCAST) {
        /* mbcast's children are the groups (MABs), each one lane. */
        *n = acc_children(m, 1) / m->level[m->nlevels - 1].fanout;
        *what = m->level[m->nlevels - 2].name;
    } else {
        *n = acc_children(m, 1);
        *what = m->level[m->nlevels - 1].name;
    }
    return 0;
}

int64_t acc_space_words(const AccMachine *m, int sp)
{
    switch (sp) {
    case ACC_SP_LM0: case ACC_SP_LM1: return 2 * m->lm_words;
    case ACC_SP_R: case ACC_SP_S: return 2 * m->grf_words;
    case ACC_SP_T: return 2 * (int64_t)m->t_words;
    case ACC_SP_ALUF: case ACC_SP_MAUF: case ACC_SP_LBF: return 16;
    default: return 0;
    }
}

int64_t acc_xfer_len(const AccMachine *m, const AccOp *op)
{
    const AccOpnd *pe = acc_op_kind(op->opc) == ACC_K_XDOWN ? &op->dst[0]
                                                           : &op->src[0];
    if (acc_op_kind(op->opc) == ACC_K_DMA || op->level > 1)
        return op->src[0].stride;
    int64_t w4 = 4 * (int64_t)pe->width;
    int64_t g = m->level[m->nlevels - 1].fanout;
    switch (op->opc) {
    case ACC_OP_BCAST: return w4;
    case ACC_OP_DIST: case ACC_OP_GATHER: return acc_children(m, 1) * w4;
    default: return g * w4;    /* mbcast, ucast, red */
    }
}

/* --- one op ----------------------------------------------------------- */

/* How an operand's storage is written in assembly, for messages. */
static const char *opnd_name(const AccOpnd *o)
{
    if (o->space == ACC_SP_BM)
        return o->k == 1 ? "lb" : o->k == 2 ? "lc" : "bK";
    if (o->space == ACC_SP_MASK)
        return "mK";
    if (o->space == ACC_SP_MREG)
        return o->k ? "y" : "x";
    return acc_space_name(o->space);
}

static int pe_readable(int sp)
{
    return sp >= ACC_SP_LM0 && sp <= ACC_SP_LBF;
}

static int pe_writable(int sp)
{
    return sp >= ACC_SP_LM0 && sp <= ACC_SP_T;
}

static int bad(TlBuf *why, const char *msg)
{
    buf_puts(why, msg);
    return -1;
}

/* A PE storage operand: alignment and bounds of every sub-cycle. */
static int check_pe_addr(const AccMachine *m, const AccProgram *p,
                         const AccOpnd *o, TlBuf *why)
{
    int64_t words = acc_space_words(m, o->space);
    int64_t al = 2 * o->width;
    if (o->width != 1 && o->width != 2)
        return bad(why, "an operand is a long word or a double one (.dd)");
    if (o->mode > ACC_MODE_INDIRECT)
        return bad(why, "unknown addressing mode");
    if (o->mode == ACC_MODE_INDIRECT) {
        if (o->space != ACC_SP_LM0)
            return bad(why, "only lm0 is addressed through t");
        return 0;
    }
    if (o->space >= ACC_SP_ALUF && o->space <= ACC_SP_LBF) {
        if (o->mode != ACC_MODE_STRIDE || o->addr || o->stride)
            return bad(why, "a forwarding operand takes no address");
        return 0;
    }
    for (int c = 0; c < 4; c++) {
        int64_t a;
        if (o->mode == ACC_MODE_FLAT) {
            if (o->addr < 0 || o->addr + 4 > p->nconsts)
                return bad(why, "flat address list out of the constants");
            a = p->consts[o->addr + c].i;
        } else {
            a = o->addr + (int64_t)c * o->stride;
        }
        if (a % al) {
            buf_printf(why, "address %lld of '%s' is not a multiple of %lld "
                       "words (the operand is %s)", (long long)a,
                       acc_space_name(o->space), (long long)al,
                       o->width == 2 ? "a double long word" : "a long word");
            return -1;
        }
        if (a < 0 || a + al > words) {
            buf_printf(why, "address %lld of '%s' is out of range: it holds "
                       "%lld words", (long long)a, acc_space_name(o->space),
                       (long long)words);
            return -1;
        }
    }
    return 0;
}

static int check_pe_src(const AccMachine *m, const AccProgram *p,
                        const AccOpnd *o, TlBuf *why)
{
    if (!pe_readable(o->space)) {
        buf_printf(why, "'%s' cannot be read here: a PE operand (lm0, lm1, "
                   "r, s, t, aluf, mauf, lbf) is wanted", opnd_name(o));
        return -1;
    }
    return check_pe_addr(m, p, o, why);
}

static int check_pe_dst(const AccMachine *m, const AccProgram *p,
                        const AccOpnd *o, TlBuf *why)
{
    if (!pe_writable(o->space)) {
        buf_printf(why, "'%s' cannot be written: a destination is lm0, lm1, "
                   "r, s or t", opnd_name(o));
        return -1;
    }
    if (o->mode == ACC_MODE_INDIRECT)
        return bad(why, "writing through t is not possible (a gather "
                   "reads through t)");
    if (o->mask >= m->mask_entries) {
        buf_printf(why, "mask m%d does not exist: the machine has m0..m%d",
                   o->mask, m->mask_entries - 1);
        return -1;
    }
    return check_pe_addr(m, p, o, why);
}

static int check_bm(const AccMachine *m, const AccOpnd *o, int k,
                    int64_t len, TlBuf *why)
{
    if (o->space != ACC_SP_BM || o->k != k) {
        buf_printf(why, "a BM operand of level L%d is wanted here (%s[...])",
                   k, k == 1 ? "lb" : k == 2 ? "lc" : "bK");
        return -1;
    }
    int64_t size = m->level[acc_bm_level(m, k)].bm_words;
    if (o->addr < 0 || len <= 0 || o->addr + len > size) {
        buf_printf(why, "BM range %lld..%lld is out of L%d's %lld long "
                   "words", (long long)o->addr, (long long)(o->addr + len),
                   k, (long long)size);
        return -1;
    }
    return 0;
}

static int check_dram(const AccMachine *m, const AccOpnd *o, int64_t len,
                      TlBuf *why)
{
    if (o->space != ACC_SP_DRAM)
        return bad(why, "a DRAM operand d[...] is wanted here");
    if (o->addr < 0 || len <= 0 || o->addr + len > m->dram_words) {
        buf_printf(why, "DRAM range %lld..%lld is out of the machine's "
                   "%lld long words", (long long)o->addr,
                   (long long)(o->addr + len), (long long)m->dram_words);
        return -1;
    }
    return 0;
}

static int want_counts(const AccOp *op, int nsrc, int mindst, int maxdst,
                       TlBuf *why)
{
    if (op->nsrc != nsrc) {
        buf_printf(why, "'%s' takes %d source%s, not %d",
                   acc_op_name(op->opc), nsrc, nsrc == 1 ? "" : "s",
                   op->nsrc);
        return -1;
    }
    if (op->ndst < mindst || op->ndst > maxdst) {
        if (mindst == maxdst)
            buf_printf(why, "'%s' takes %d destination%s, not %d",
                       acc_op_name(op->opc), mindst,
                       mindst == 1 ? "" : "s", op->ndst);
        else
            buf_printf(why, "'%s' takes %d to %d destinations, not %d",
                       acc_op_name(op->opc), mindst, maxdst, op->ndst);
        return -1;
    }
    return 0;
}

static int want_type(const AccOp *op, int need_float, int need_int,
                     TlBuf *why)
{
    TlDType dt = (TlDType)op->dt;
    if (!acc_dt_ok(dt)) {
        buf_printf(why, "'%s' needs an element type suffix (.f64 .f32 .f16 "
                   ".bf16 .i32 .i16)", acc_op_name(op->opc));
        return -1;
    }
    if ((need_float && !is_float(dt)) || (need_int && is_float(dt))) {
        buf_printf(why, "'%s' works on %s types, not %s",
                   acc_op_name(op->opc), need_float ? "float" : "integer",
                   dt_name(dt));
        return -1;
    }
    return 0;
}

/* Every PE operand of an elementwise op has the same number of lanes. */
static int same_width(const AccOp *op, TlBuf *why)
{
    int w = 0;
    for (int i = 0; i < op->nsrc + op->ndst; i++) {
        const AccOpnd *o = i < op->nsrc ? &op->src[i]
                                        : &op->dst[i - op->nsrc];
        if (!pe_readable(o->space))
            continue;
        if (w && o->width != w)
            return bad(why, "operands of one op must all be long words or "
                       "all double long words (.dd)");
        w = o->width;
    }
    return 0;
}

static int check_srcs(const AccMachine *m, const AccProgram *p,
                      const AccOp *op, int first, TlBuf *why)
{
    for (int i = first; i < op->nsrc; i++) {
        const AccOpnd *o = &op->src[i];
        if (o->space == ACC_SP_ID && (o->k >= m->nlevels &&
                                      o->k != ACC_ID_SUB &&
                                      o->k != ACC_ID_GPE))
            return bad(why, "unknown id operand");
        if (o->space == ACC_SP_IMM && (o->addr < 0 ||
                                       o->addr >= p->nconsts))
            return bad(why, "immediate out of the constants");
        if (o->space == ACC_SP_ID && i == 0 && op->slot == ACC_SLOT_ALU)
            continue;
        if (o->space == ACC_SP_IMM && op->slot == ACC_SLOT_ALU &&
            (i == 1 || op->opc == ACC_OP_MOV))
            continue;
        if (o->space == ACC_SP_ID)
            return bad(why, "an id operand ($...) is only the first source "
                       "of an ALU op");
        if (o->space == ACC_SP_IMM)
            return bad(why, "an immediate is only the second source of an "
                       "ALU op (or the source of mov)");
        if (check_pe_src(m, p, o, why))
            return -1;
    }
    return 0;
}

static int check_dsts(const AccMachine *m, const AccProgram *p,
                      const AccOp *op, TlBuf *why)
{
    for (int i = 0; i < op->ndst; i++)
        if (check_pe_dst(m, p, &op->dst[i], why))
            return -1;
    return 0;
}

static int check_mat(const AccMachine *m, const AccOp *op, TlBuf *why)
{
    TlDType dt = (TlDType)op->dt;
    if (!is_float(dt))
        return bad(why, "the matrix unit works on f64, f32, f16 or bf16");
    const AccOpnd *x = op->opc == ACC_OP_MWRITE ? &op->dst[0] : &op->src[0];
    if (x->space != ACC_SP_MREG || x->k > 1)
        return bad(why, "a matrix register (x or y) is wanted here");
    int rows = dt == DT_F64 ? m->mau_m_f64 : dt == DT_F32 ? m->mau_m_f32
                                                          : m->mau_m_f16;
    int cols = dt == DT_F64 ? m->mau_n_f64 : dt == DT_F32 ? m->mau_n_f32
                                                          : m->mau_n_f16;
    if (op->opc == ACC_OP_MREAD)
        rows = cols;    /* rows of the transpose */
    if (x->addr < 0 || x->addr >= rows) {
        buf_printf(why, "row %d is out of the %d rows of the %s matrix",
                   x->addr, rows, dt_name(dt));
        return -1;
    }
    return 0;
}

int acc_check_op(const AccMachine *m, const AccProgram *p, const AccOp *op,
                 TlBuf *why)
{
    if (op->opc >= ACC_OP__COUNT)
        return bad(why, "unknown opcode");
    if (op->nsrc > ACC_MAX_SRC || op->ndst > ACC_MAX_DST)
        return bad(why, "too many operands");
    if (op->slot != acc_op_slot(op))
        return bad(why, "op in the wrong slot");
    AccOpKind kind = acc_op_kind(op->opc);
    int xfer = kind == ACC_K_XDOWN || kind == ACC_K_XUP;
    if (op->set) {
        /* The set names children of each node of the op's level
         * (ACCELERATOR.md 4.5), top nodes for dma.bcast. */
        int64_t n;
        const char *what, *under;
        if (acc_set_children(m, op, &n, &what, &under) &&
            kind == ACC_K_XDOWN)
            n = 64;     /* the level check below names the level */
        else if (acc_set_children(m, op, &n, &what, &under))
            return bad(why, "only the down transfers (bcast, dist, "
                       "mbcast) and dma.bcast take a node set @{...}");
        if (n < 64 && op->set >> n) {
            buf_printf(why, "a node set past the %lld %ss %s%s",
                       (long long)n, what, under ? "under one " : "there",
                       under ? under : "");
            return -1;
        }
    }
    if ((op->dt && !acc_dt_ok((TlDType)op->dt)) ||
        (op->dt2 && op->opc != ACC_OP_CVT) || (op->level && !xfer) ||
        (op->tag && kind != ACC_K_DMA && op->opc != ACC_OP_WAIT) ||
        (op->nsteps != 1 && op->opc != ACC_OP_NOP) ||
        (op->child != -1 && !xfer && kind != ACC_K_DMA))
        return bad(why, "fields that do not belong to the op");
    int nbm = acc_bm_levels(m);
    switch (acc_op_kind(op->opc)) {
    case ACC_K_BIN: {
        int intop = op->opc >= ACC_OP_AND && op->opc <= ACC_OP_SHR;
        if (want_type(op, 0, intop, why) || want_counts(op, 2, 1, 2, why) ||
            check_srcs(m, p, op, 0, why) || check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    }
    case ACC_K_FMA:
        if (want_type(op, 1, 0, why) || want_counts(op, 3, 1, 2, why) ||
            check_srcs(m, p, op, 0, why) || check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    case ACC_K_UN: {
        int fl = op->opc != ACC_OP_RELU && op->opc != ACC_OP_NEG;
        if (want_type(op, fl, 0, why) || want_counts(op, 1, 1, 2, why) ||
            check_srcs(m, p, op, 0, why) || check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    }
    case ACC_K_CMP:
        if (want_type(op, 0, 0, why) || want_counts(op, 2, 1, 1, why) ||
            check_srcs(m, p, op, 0, why))
            return -1;
        if (op->dst[0].space != ACC_SP_MASK || op->dst[0].addr < 1 ||
            op->dst[0].addr >= m->mask_entries) {
            buf_printf(why, "a compare writes a mask m1..m%d",
                       m->mask_entries - 1);
            return -1;
        }
        return same_width(op, why);
    case ACC_K_SEL:
        if (want_type(op, 0, 0, why) || want_counts(op, 3, 1, 2, why))
            return -1;
        if (op->src[0].space != ACC_SP_MASK || op->src[0].addr < 0 ||
            op->src[0].addr >= m->mask_entries)
            return bad(why, "the first source of sel is a mask mK");
        if (check_srcs(m, p, op, 1, why) || check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    case ACC_K_CVT:
        if (want_type(op, 0, 0, why) || want_counts(op, 1, 1, 2, why) ||
            check_srcs(m, p, op, 0, why) || check_dsts(m, p, op, why))
            return -1;
        if (!acc_dt_ok((TlDType)op->dt2))
            return bad(why, "cvt names two types: cvt.TO.FROM");
        for (int i = 0; i < op->ndst; i++)
            if (acc_lanes((TlDType)op->dt, op->dst[i].width) !=
                acc_lanes((TlDType)op->dt2, op->src[0].width))
                return bad(why, "cvt's source and destination must hold "
                           "the same number of elements (use .dd on the "
                           "wider side)");
        return 0;
    case ACC_K_MOV:
        if (want_counts(op, 1, 1, 2, why) || check_srcs(m, p, op, 0, why) ||
            check_dsts(m, p, op, why))
            return -1;
        if ((op->src[0].space == ACC_SP_IMM ||
             op->src[0].space == ACC_SP_ID) && want_type(op, 0, 0, why))
            return -1;
        return same_width(op, why);
    case ACC_K_ZERO:
        if (want_counts(op, 0, 1, 2, why) || check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    case ACC_K_ROT:
        if (want_counts(op, 1, 1, 2, why) || check_srcs(m, p, op, 0, why) ||
            check_dsts(m, p, op, why))
            return -1;
        return same_width(op, why);
    case ACC_K_MFMA:
        if (want_counts(op, op->opc == ACC_OP_MFMA ? 3 : 2, 1, 2, why) ||
            check_mat(m, op, why) || check_srcs(m, p, op, 1, why) ||
            check_dsts(m, p, op, why))
            return -1;
        if (op->dt == DT_F16 || op->dt == DT_BF16) {
            /* f32 results: a double long word per sub-cycle. */
            for (int i = 0; i < op->ndst; i++)
                if (op->dst[i].width != 2)
                    return bad(why, "f16 and bf16 matrix products give f32 "
                               "results: the destination must be .dd");
            if (op->nsrc == 3 && op->src[2].width != 2)
                return bad(why, "the addend of an f16 or bf16 matrix "
                           "product is f32: it must be .dd");
        }
        return 0;
    case ACC_K_MWRITE:
        if (want_counts(op, 1, 1, 1, why) || check_mat(m, op, why) ||
            check_srcs(m, p, op, 0, why))
            return -1;
        return 0;
    case ACC_K_MREAD:
        if (want_counts(op, 1, 1, 2, why) || check_mat(m, op, why) ||
            check_dsts(m, p, op, why))
            return -1;
        return 0;
    case ACC_K_XDOWN:
    case ACC_K_XUP: {
        int k = op->level, up = acc_op_kind(op->opc) == ACC_K_XUP;
        if (k < 1 || k > nbm) {
            buf_printf(why, "this machine has no level L%d (it has L1..L%d)",
                       k, nbm);
            return -1;
        }
        if (want_counts(op, 1, 1, k == 1 && !up ? 2 : 1, why))
            return -1;
        if (op->opc >= ACC_OP_REDADD && op->opc <= ACC_OP_REDMIN &&
            want_type(op, 0, 0, why))
            return -1;
        int64_t nch = acc_children(m, k);
        if (op->opc == ACC_OP_UCAST) {
            int64_t nc = k == 1 ? nch / m->level[m->nlevels - 1].fanout
                                : nch;
            if (op->child < 0 || op->child >= nc) {
                buf_printf(why, "ucast needs @CHILD, 0..%lld",
                           (long long)nc - 1);
                return -1;
            }
        } else if (op->child != -1) {
            return bad(why, "only ucast takes @CHILD");
        }
        if (op->opc == ACC_OP_MBCAST && k != 1)
            return bad(why, "mbcast exists only at L1");
        int64_t len = acc_xfer_len(m, op);
        if (k == 1) {
            const AccOpnd *bm = up ? &op->dst[0] : &op->src[0];
            if (bm->stride)
                return bad(why, "an L1 transfer takes no length: the PE "
                           "operand's width gives it");
            if (check_bm(m, bm, 1, len, why))
                return -1;
            return up ? check_pe_src(m, p, &op->src[0], why)
                      : check_dsts(m, p, op, why);
        }
        if (op->src[0].stride <= 0)
            return bad(why, "a transfer between BMs needs a length on its "
                       "source, as in lc[0:64]");
        if (op->dst[0].stride)
            return bad(why, "the destination takes a start only");
        int64_t dlen = len;
        if (op->opc == ACC_OP_DIST) {
            if (len % nch) {
                buf_printf(why, "dist splits %lld long words over %lld "
                           "children: not a multiple", (long long)len,
                           (long long)nch);
                return -1;
            }
            dlen = len / nch;
        } else if (op->opc == ACC_OP_GATHER) {
            dlen = len * nch;
        }
        if (check_bm(m, &op->src[0], up ? k - 1 : k, len, why) ||
            check_bm(m, &op->dst[0], up ? k : k - 1, dlen, why))
            return -1;
        return 0;
    }
    case ACC_K_DMA: {
        int top = nbm;
        int64_t nodes = acc_level_nodes(m, acc_bm_level(m, top));
        int one = op->opc == ACC_OP_DLD || op->opc == ACC_OP_DST;
        int up = op->opc == ACC_OP_DST || op->opc == ACC_OP_DGATHER ||
                 op->opc >= ACC_OP_DREDADD;
        if (want_counts(op, 1, 1, 1, why))
            return -1;
        if (one && (op->child < 0 || op->child >= nodes)) {
            buf_printf(why, "'%s' needs @NODE, the L%d node, 0..%lld",
                       acc_op_name(op->opc), top, (long long)nodes - 1);
            return -1;
        }
        if (!one && op->child != -1)
            return bad(why, "only dma.ld and dma.st take @NODE");
        if (op->set && nodes > 64)
            return bad(why, "a node set needs a machine of at most 64 top "
                       "nodes");
        if (op->set && nodes < 64 && op->set >> nodes) {
            buf_printf(why, "the node set names a node above %lld, the "
                       "last L%d node", (long long)nodes - 1, top);
            return -1;
        }
        if (op->opc >= ACC_OP_DREDADD && want_type(op, 0, 0, why))
            return -1;
        int64_t len = op->src[0].stride;
        if (len <= 0)
            return bad(why, "a DMA needs a length on its source, as in "
                       "d[0:64]");
        if (op->dst[0].stride)
            return bad(why, "the destination takes a start only");
        int64_t dlen = len;
        if (op->opc == ACC_OP_DDIST) {
            if (len % nodes) {
                buf_printf(why, "dma.dist splits %lld long words over %lld "
                           "nodes: not a multiple", (long long)len,
                           (long long)nodes);
                return -1;
            }
            dlen = len / nodes;
        } else if (op->opc == ACC_OP_DGATHER) {
            dlen = len * nodes;
        }
        if (up)
            return check_bm(m, &op->src[0], top, len, why) ||
                   check_dram(m, &op->dst[0], dlen, why) ? -1 : 0;
        return check_dram(m, &op->src[0], len, why) ||
               check_bm(m, &op->dst[0], top, dlen, why) ? -1 : 0;
    }
    case ACC_K_CTL:
        if (op->nsrc || op->ndst)
            return bad(why, "control ops take no operands");
        if (op->opc == ACC_OP_NOP && op->nsteps < 1)
            return bad(why, "nop/N needs N >= 1");
        return 0;
    }
    return bad(why, "unknown opcode");
}
