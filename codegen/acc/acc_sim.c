/*
 * acc_sim.c - the simulator's state and its issue loop: when each
 * bundle issues (busy slots, the DMA issue rule, `wait`), the hazard
 * checks on every read, committing results with the step they become
 * readable, and I/O through DRAM.
 *
 * Cycles follow ACCELERATOR.md 5.1 exactly: a bundle costs one step
 * (nop/N costs N), an op whose slot is still busy, a DMA op before the
 * issue interval is over, or a `wait` for a tag not yet done stall the
 * whole stream; the program ends when its last bundle has issued and
 * its last DMA has landed.
 *
 * Within a bundle every op reads its sources before any op writes, so
 * slots see the state from before the step.  Writes are uniform over
 * PEs (the same addresses on every PE; only reads may go through T),
 * which is why readiness is tracked per address and not per PE.
 *
 * TODO(issue 6): lenient mode reads the new value where the hardware
 * would read the old one, and a write to a DMA's source before the DMA
 * has moved it is not caught (the DMA reads its source at issue).
 */
#include "codegen/acc/acc_int.h"

#include <stdlib.h>
#include <string.h>

enum { PAGE_LW = 8192 };

static AccReady *ready_new(int64_t n)
{
    AccReady *r = tl_xcalloc((size_t)(n ? n : 1), sizeof *r);
    for (int64_t i = 0; i < n; i++)
        r[i].bundle = -1;
    return r;
}

AccSim *acc_sim_new(TlSession *s, const AccProgram *p, int strict)
{
    const AccMachine *m = p->m;
    AccSim *sim = tl_xcalloc(1, sizeof *sim);
    sim->s = s;
    sim->m = m;
    sim->p = p;
    sim->strict = strict;
    sim->npe = acc_machine_pes(m);
    sim->gsize = m->level[m->nlevels - 1].fanout;
    sim->ngroup = sim->npe / sim->gsize;
    sim->nbm = acc_bm_levels(m);
    sim->lmlw = m->lm_words;
    sim->grflw = m->grf_words;
    for (int b = 0; b < 2; b++) {
        sim->lm[b] = tl_xcalloc((size_t)(sim->npe * sim->lmlw), 8);
        sim->grf[b] = tl_xcalloc((size_t)(sim->npe * sim->grflw), 8);
        sim->rd_lm[b] = ready_new(sim->lmlw);
        sim->rd_grf[b] = ready_new(sim->grflw);
    }
    sim->t = tl_xcalloc((size_t)(sim->npe * m->t_words), 8);
    sim->rd_t = ready_new(m->t_words);
    sim->mask = tl_xcalloc((size_t)(sim->npe * m->mask_entries), 2);
    for (int64_t pe = 0; pe < sim->npe; pe++)
        sim->mask[pe * m->mask_entries] = 0xffff;
    sim->rd_mask = ready_new(m->mask_entries);
    sim->mreg = tl_xcalloc((size_t)(sim->ngroup * 2 * 64 * 64),
                           sizeof(double));
    sim->rd_mreg = ready_new(2);
    for (int u = 0; u < 3; u++) {
        sim->fwd[u] = tl_xcalloc((size_t)(sim->npe * 8), 8);
        sim->fwd_step[u] = -9;
    }
    for (int k = 1; k <= sim->nbm; k++) {
        int li = acc_bm_level(m, k);
        sim->bm_nodes[k] = acc_level_nodes(m, li);
        sim->bm[k] = tl_xcalloc((size_t)(sim->bm_nodes[k] *
                                         m->level[li].bm_words), 8);
        sim->rd_bm[k] = ready_new(m->level[li].bm_words);
    }
    sim->dram_pages = (m->dram_words + PAGE_LW - 1) / PAGE_LW;
    sim->dram = tl_xcalloc((size_t)sim->dram_pages, sizeof *sim->dram);
    for (int i = 0; i < ACC_MAX_SRC; i++)
        sim->opv[i] = tl_xcalloc((size_t)(sim->npe * 8), 8);
    for (int i = 0; i < ACC_SLOT__MAX; i++) {
        sim->stage[i].v = tl_xcalloc((size_t)(sim->npe * 8), 8);
        sim->stage[i].on = tl_xcalloc((size_t)(sim->npe * 4), 1);
    }
    return sim;
}

void acc_sim_free(AccSim *sim)
{
    if (!sim)
        return;
    for (int b = 0; b < 2; b++) {
        free(sim->lm[b]);
        free(sim->grf[b]);
        free(sim->rd_lm[b]);
        free(sim->rd_grf[b]);
    }
    free(sim->t);
    free(sim->rd_t);
    free(sim->mask);
    free(sim->rd_mask);
    free(sim->mreg);
    free(sim->rd_mreg);
    for (int u = 0; u < 3; u++)
        free(sim->fwd[u]);
    for (int k = 1; k <= sim->nbm; k++) {
        free(sim->bm[k]);
        free(sim->rd_bm[k]);
    }
    for (int64_t i = 0; i < sim->dram_pages; i++)
        free(sim->dram[i]);
    free(sim->dram);
    free(sim->pending);
    acc_trace_free(sim->trace);
    for (int i = 0; i < ACC_MAX_SRC; i++)
        free(sim->opv[i]);
    for (int i = 0; i < ACC_SLOT__MAX; i++) {
        free(sim->stage[i].v);
        free(sim->stage[i].on);
        free(sim->stage[i].bmv);
        free(sim->stage[i].mv);
    }
    free(sim);
}

uint8_t *acc_dram_at(AccSim *sim, int64_t lw, int write)
{
    static uint8_t zero[PAGE_LW * 8];
    int64_t pg = lw / PAGE_LW;
    if (!sim->dram[pg]) {
        if (!write)
            return zero + (lw % PAGE_LW) * 8;
        sim->dram[pg] = tl_xcalloc(PAGE_LW, 8);
    }
    return sim->dram[pg] + (lw % PAGE_LW) * 8;
}

/* Copies n bytes between DRAM (from long word lw) and buf. */
static void dram_copy(AccSim *sim, int64_t lw, void *buf, int64_t n,
                      int write)
{
    uint8_t *b = buf;
    while (n > 0) {
        int64_t in_page = (PAGE_LW - lw % PAGE_LW) * 8;
        int64_t k = n < in_page ? n : in_page;
        uint8_t *d = acc_dram_at(sim, lw, write);
        if (write)
            memcpy(d, b, (size_t)k);
        else
            memcpy(b, d, (size_t)k);
        b += k;
        n -= k;
        lw += k / 8;
    }
}

static const AccIO *find_io(const AccSim *sim, const char *name)
{
    for (int i = 0; i < sim->p->nio; i++)
        if (!strcmp(sim->p->io[i].name, name))
            return &sim->p->io[i];
    return NULL;
}

static void type_text(TlBuf *b, TlDType dt, int rank, const int64_t *shape)
{
    buf_printf(b, "%s[", dt_name(dt));
    for (int d = 0; d < rank; d++)
        buf_printf(b, "%s%lld", d ? ", " : "", (long long)shape[d]);
    buf_putc(b, ']');
}

int acc_sim_set_input(AccSim *sim, const char *name, const TlTensor *t,
                      TlBuf *err)
{
    const AccIO *io = find_io(sim, name);
    if (!io || io->is_output) {
        buf_printf(err, "the program has no input '%s'", name);
        return -1;
    }
    int same = io->dt == t->dtype && io->rank == t->rank;
    for (int d = 0; same && d < io->rank; d++)
        same = io->shape[d] == t->shape[d];
    if (!same) {
        buf_printf(err, "input '%s' is ", name);
        type_text(err, io->dt, io->rank, io->shape);
        buf_puts(err, ", not ");
        type_text(err, t->dtype, t->rank, t->shape);
        return -1;
    }
    if (io->has_hash && (int64_t)tl_tensor_hash(t) != io->hash) {
        /* The program's `.assert` (SPEC 6.8): it was made for other
         * data. */
        buf_printf(err, "input '%s' fails the program's assert hash(%s) "
                   "== %lld: %s", name, name, (long long)io->hash,
                   io->msg ? io->msg : "other data than the program was "
                   "made for");
        return -1;
    }
    TlTensor *c = tl_tensor_contiguous((TlTensor *)t);
    /* Every copy the program declares (an image each after the first). */
    for (; io < sim->p->io + sim->p->nio; io++) {
        if (io->is_output || strcmp(io->name, name))
            continue;
        if (io->nimg) {
            /* The host lays it out in the order the program reads. */
            char *img = tl_xcalloc((size_t)io->nimg, dt_size(io->dt));
            acc_img_lay(io, c->data, img);
            dram_copy(sim, io->addr, img,
                      io->nimg * (int64_t)dt_size(io->dt), 1);
            free(img);
        } else {
            dram_copy(sim, io->addr, c->data,
                      tl_tensor_numel(c) * (int64_t)dt_size(c->dtype), 1);
        }
    }
    tl_tensor_unref(c);
    return 0;
}

TlTensor *acc_sim_get_output(AccSim *sim, const char *name, TlBuf *err)
{
    const AccIO *io = find_io(sim, name);
    if (!io) {
        buf_printf(err, "the program has no tensor '%s'", name);
        return NULL;
    }
    char e[200];
    TlTensor *t = tl_tensor_new(io->dt, io->rank, io->shape, e, sizeof e);
    if (!t) {
        buf_printf(err, "'%s': %s", name, e);
        return NULL;
    }
    if (io->nimg) {
        char *img = tl_xcalloc((size_t)io->nimg, dt_size(io->dt));
        dram_copy(sim, io->addr, img, io->nimg * (int64_t)dt_size(io->dt),
                  0);
        acc_img_unlay(io, img, t->data);
        free(img);
    } else {
        dram_copy(sim, io->addr, t->data,
                  tl_tensor_numel(t) * (int64_t)dt_size(t->dtype), 0);
    }
    return t;
}

const AccStats *acc_sim_stats(const AccSim *sim)
{
    return &sim->st;
}

uint64_t *acc_sim_word(AccSim *sim, AccSpace sp, int k, int64_t node,
                       int64_t addr)
{
    const AccMachine *m = sim->m;
    switch (sp) {
    case ACC_SP_LM0: case ACC_SP_LM1: case ACC_SP_R: case ACC_SP_S: {
        int64_t n = sp <= ACC_SP_LM1 ? sim->lmlw : sim->grflw;
        uint64_t *base = sp == ACC_SP_LM0 ? sim->lm[0]
                         : sp == ACC_SP_LM1 ? sim->lm[1]
                         : sp == ACC_SP_R ? sim->grf[0] : sim->grf[1];
        if (node < 0 || node >= sim->npe || addr < 0 || addr / 2 >= n)
            return NULL;
        return base + node * n + addr / 2;
    }
    case ACC_SP_BM: {
        if (k < 1 || k > sim->nbm || node < 0 || node >= sim->bm_nodes[k])
            return NULL;
        int64_t n = m->level[acc_bm_level(m, k)].bm_words;
        if (addr < 0 || addr >= n)
            return NULL;
        return sim->bm[k] + node * n + addr;
    }
    case ACC_SP_DRAM:
        if (addr < 0 || addr >= m->dram_words)
            return NULL;
        return (uint64_t *)(void *)acc_dram_at(sim, addr, 1);
    default:
        return NULL;
    }
}

uint64_t acc_sim_state_hash(const AccSim *sim)
{
    uint64_t h = 1469598103934665603ull;
#define MIX(ptr, nbytes)                                                 \
    do {                                                                 \
        const uint8_t *q_ = (const uint8_t *)(ptr);                      \
        for (int64_t i_ = 0; i_ < (int64_t)(nbytes); i_++) {             \
            h ^= q_[i_];                                                 \
            h *= 1099511628211ull;                                       \
        }                                                                \
    } while (0)
    const AccMachine *m = sim->m;
    for (int b = 0; b < 2; b++) {
        MIX(sim->lm[b], sim->npe * sim->lmlw * 8);
        MIX(sim->grf[b], sim->npe * sim->grflw * 8);
    }
    MIX(sim->t, sim->npe * m->t_words * 8);
    MIX(sim->mask, sim->npe * m->mask_entries * 2);
    MIX(sim->mreg, sim->ngroup * 2 * 64 * 64 * (int64_t)sizeof(double));
    for (int k = 1; k <= sim->nbm; k++)
        MIX(sim->bm[k], sim->bm_nodes[k] *
                            m->level[acc_bm_level(m, k)].bm_words * 8);
    for (int64_t i = 0; i < sim->dram_pages; i++)
        if (sim->dram[i]) {
            MIX(&i, sizeof i);
            MIX(sim->dram[i], PAGE_LW * 8);
        }
#undef MIX
    return h;
}

/* --- hazards ------------------------------------------------------------ */

static void report(AccSim *sim, TlDiagId id, const char *msg)
{
    const AccBundle *b = &sim->p->b[sim->cur_b];
    if (b->loc.file >= 0) {
        diag_error(sim->s, b->loc, id, msg);
    } else {
        char buf[600];
        snprintf(buf, sizeof buf, "bundle %d: %s", b->loc.line, msg);
        diag_error(sim->s, b->loc, id, buf);
    }
    sim->failed = 1;
}

int acc_check_ready(AccSim *sim, AccReady *r, int64_t lo, int64_t hi,
                    const char *what)
{
    for (int64_t i = lo; i < hi; i++) {
        if (r[i].step <= sim->step)
            continue;
        if (!sim->strict) {
            sim->st.hazards++;
            return 1;
        }
        char msg[400];
        const AccBundle *w = r[i].bundle >= 0 ? &sim->p->b[r[i].bundle]
                                              : NULL;
        snprintf(msg, sizeof msg, "%s is read at step %lld, but %s %d "
                 "writes it and it is readable only from step %lld: "
                 "%lld more step%s between them",
                 what, (long long)sim->step,
                 w && w->loc.file >= 0 ? "line" : "bundle",
                 w ? w->loc.line : 0, (long long)r[i].step,
                 (long long)(r[i].step - sim->step),
                 r[i].step - sim->step == 1 ? "" : "s");
        report(sim, DIAG_ACC_HAZARD, msg);
        return -1;
    }
    return 0;
}

void acc_mark_ready(AccSim *sim, AccReady *r, int64_t lo, int64_t hi,
                    int64_t step)
{
    for (int64_t i = lo; i < hi; i++) {
        r[i].step = step;
        r[i].bundle = sim->cur_b;
    }
}

int64_t acc_opnd_addr(const AccSim *sim, const AccOpnd *o, int c)
{
    if (o->mode == ACC_MODE_FLAT)
        return sim->p->consts[o->addr + c].i;
    return o->addr + (int64_t)c * o->stride;
}

AccReady *acc_ready_of(AccSim *sim, int sp, int k)
{
    switch (sp) {
    case ACC_SP_LM0: return sim->rd_lm[0];
    case ACC_SP_LM1: return sim->rd_lm[1];
    case ACC_SP_R: return sim->rd_grf[0];
    case ACC_SP_S: return sim->rd_grf[1];
    case ACC_SP_T: return sim->rd_t;
    case ACC_SP_MASK: return sim->rd_mask;
    case ACC_SP_MREG: return sim->rd_mreg;
    case ACC_SP_BM: return sim->rd_bm[k];
    default: return NULL;
    }
}

static int ready_ok(const AccSim *sim, const AccReady *r, int64_t lo,
                    int64_t hi)
{
    for (int64_t i = lo; i < hi; i++)
        if (r[i].step > sim->step)
            return 0;
    return 1;
}

/* The hazard checks of one source operand (len: BM/DRAM long words). */
static int check_src(AccSim *sim, const AccOp *op, const AccOpnd *o,
                     int64_t len)
{
    char what[96];
    static const char *const unit[] = {"ALU", "MAU", "L1"};
    switch (o->space) {
    case ACC_SP_ALUF: case ACC_SP_MAUF: case ACC_SP_LBF: {
        int u = o->space - ACC_SP_ALUF;
        if (sim->fwd_step[u] == sim->step - 1)
            return 0;
        snprintf(what, sizeof what, "'%s' is read at step %lld, but the %s "
                 "made no result in the step before",
                 acc_space_name(o->space), (long long)sim->step, unit[u]);
        if (!sim->strict) {
            sim->st.hazards++;
            return 0;
        }
        report(sim, DIAG_ACC_HAZARD, what);
        return -1;
    }
    case ACC_SP_IMM: case ACC_SP_ID: case ACC_SP_DRAM:
        return 0;
    case ACC_SP_MASK:
        if (ready_ok(sim, sim->rd_mask, o->addr, o->addr + 1))
            return 0;
        snprintf(what, sizeof what, "mask 'm%d'", o->addr);
        return acc_check_ready(sim, sim->rd_mask, o->addr, o->addr + 1,
                               what);
    case ACC_SP_MREG:
        if (ready_ok(sim, sim->rd_mreg, o->k, o->k + 1))
            return 0;
        snprintf(what, sizeof what, "matrix register '%s'",
                 o->k ? "y" : "x");
        return acc_check_ready(sim, sim->rd_mreg, o->k, o->k + 1, what);
    case ACC_SP_BM:
        if (ready_ok(sim, sim->rd_bm[o->k], o->addr, o->addr + len))
            return 0;
        snprintf(what, sizeof what, "'%s[%d:%lld]'",
                 o->k == 1 ? "lb" : o->k == 2 ? "lc" : "b", o->addr,
                 (long long)(o->addr + len));
        return acc_check_ready(sim, sim->rd_bm[o->k], o->addr,
                               o->addr + len, what);
    default:
        break;
    }
    AccReady *r = acc_ready_of(sim, o->space, 0);
    if (o->mode == ACC_MODE_INDIRECT) {
        int rt = acc_check_ready(sim, sim->rd_t, 0, 4, "'t'");
        if (rt)
            return rt < 0 ? -1 : 0;
        int64_t words = 2 * sim->lmlw;
        for (int64_t pe = 0; pe < sim->npe; pe++)
            for (int c = 0; c < 4; c++) {
                int64_t a = (int32_t)(uint32_t)sim->t[pe * sim->m->t_words +
                                                      c];
                if (a < 0 || a % (2 * o->width) ||
                    a + 2 * o->width > words) {
                    snprintf(what, sizeof what, "PE %lld reads lm0 through "
                             "t at address %lld, out of range or not "
                             "aligned", (long long)pe, (long long)a);
                    report(sim, DIAG_ACC_SIM, what);
                    return -1;
                }
                if (ready_ok(sim, r, a / 2, a / 2 + o->width))
                    continue;
                snprintf(what, sizeof what, "'lm0[%lld]' (through t)",
                         (long long)a);
                int rc = acc_check_ready(sim, r, a / 2, a / 2 + o->width,
                                         what);
                if (rc)
                    return rc < 0 ? -1 : 0;
            }
        return 0;
    }
    (void)op;
    for (int c = 0; c < 4; c++) {
        int64_t a = acc_opnd_addr(sim, o, c);
        if (ready_ok(sim, r, a / 2, a / 2 + o->width))
            continue;
        snprintf(what, sizeof what, "'%s[%lld]'", acc_space_name(o->space),
                 (long long)a);
        int rc = acc_check_ready(sim, r, a / 2, a / 2 + o->width, what);
        if (rc)
            return rc < 0 ? -1 : 0;
    }
    return 0;
}

/* The source length in long words of BM/DRAM operands. */
static int64_t src_len(const AccSim *sim, const AccOp *op)
{
    return acc_xfer_len(sim->m, op);
}

int64_t acc_lat(const AccSim *sim, int sp)
{
    const AccMachine *m = sim->m;
    switch (sp) {
    case ACC_SP_LM0: case ACC_SP_LM1: return m->lat_lm;
    case ACC_SP_MREG: return m->lat_mreg;
    default: return m->lat_grf;
    }
}

/* --- the issue loop ---------------------------------------------------- */

int64_t acc_op_steps(const AccMachine *m, const AccOp *op)
{
    switch (acc_op_kind(op->opc)) {
    case ACC_K_XDOWN: case ACC_K_XUP: return acc_xfer_steps(m, op);
    case ACC_K_UN:
        if (op->opc == ACC_OP_EXP || op->opc == ACC_OP_LOG)
            return m->long_op_steps;
        return 1;
    case ACC_K_FMA: case ACC_K_BIN:
        /* f64 multiplies run at half rate (ACCELERATOR.md 3.2). */
        if (op->dt == DT_F64 && (op->opc == ACC_OP_FMA ||
                                 op->opc == ACC_OP_MUL))
            return 2;
        return 1;
    default:
        return 1;
    }
}

/* Runs one bundle (ops may be a copy with rep offsets applied).
 * Returns 1 at halt, -1 after an error, else 0. */
static int run_bundle(AccSim *sim, const AccOp *ops, int n)
{
    const AccMachine *m = sim->m;
    int64_t s = sim->step;
    int64_t busy, dma, wait;
    int64_t issue = acc_issue_step(&sim->q, m, s, ops, n, &busy, &dma,
                                   &wait);
    if (issue > s) {
        /* Attribute the stall to its largest cause. */
        if (wait == issue)
            sim->st.wait_stalls += issue - s;
        else if (busy == issue)
            sim->st.busy_stalls += issue - s;
        else
            sim->st.dma_stalls += issue - s;
        sim->st.stall_steps += issue - s;
        if (sim->trace) {
            int64_t c = m->step_cycles;
            acc_trace_add(&sim->trace->stream, s * c, issue * c,
                          ACC_TS_STALL);
            for (int i = 0; i < n; i++) {
                int sl = ops[i].slot;
                int64_t lo = sim->q.slot_free[sl] > s ? sim->q.slot_free[sl]
                                                      : s;
                if (sl != ACC_SLOT_CTL)
                    acc_trace_add(&sim->trace->slot[sl], lo * c, issue * c,
                                  ACC_TS_STALL);
            }
        }
        sim->step = s = issue;
    }
    /* Reads. */
    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        AccOpKind k = acc_op_kind(op->opc);
        for (int j = 0; j < op->nsrc; j++)
            if (check_src(sim, op, &op->src[j], src_len(sim, op)) < 0)
                return -1;
        for (int j = 0; j < op->ndst; j++)
            if (op->dst[j].mask &&
                acc_check_ready(sim, sim->rd_mask, op->dst[j].mask,
                                op->dst[j].mask + 1, "a write mask") < 0)
                return -1;
        AccStage *st = &sim->stage[op->slot];
        switch (k) {
        case ACC_K_MFMA: case ACC_K_MWRITE: case ACC_K_MREAD:
            acc_exec_mau(sim, op, st);
            break;
        case ACC_K_XDOWN: case ACC_K_XUP:
            acc_exec_xfer(sim, op, st);
            break;
        case ACC_K_DMA:
            acc_exec_dma(sim, op);
            break;
        case ACC_K_CTL:
            break;
        default:
            acc_exec_pe(sim, op, st);
            break;
        }
        if (sim->failed)
            return -1;
    }
    /* Writes, occupancy, forwarding. */
    int noforward = 0, halt = 0;
    int64_t nsteps = 1;
    for (int i = 0; i < n; i++) {
        const AccOp *op = &ops[i];
        int64_t occ = acc_op_steps(m, op);
        if (op->slot != ACC_SLOT_DMA && op->slot != ACC_SLOT_CTL)
            acc_commit(sim, op, &sim->stage[op->slot], occ);
        if (op->opc == ACC_OP_NOP)
            nsteps = op->nsteps;
        noforward |= op->opc == ACC_OP_NOFORWARD;
        halt |= op->opc == ACC_OP_HALT;
        acc_issue_op(&sim->q, m, op, s, occ);
        if (op->slot != ACC_SLOT_CTL)
            sim->st.busy[op->slot] += occ;
        if (op->slot != ACC_SLOT_CTL && sim->trace)
            acc_trace_add(&sim->trace->slot[op->slot], s * m->step_cycles,
                          (s + occ) * m->step_cycles, ACC_TS_BUSY);
    }
    if (sim->trace)
        acc_trace_add(&sim->trace->stream, s * m->step_cycles,
                      (s + nsteps) * m->step_cycles, ACC_TS_BUSY);
    if (!noforward)
        for (int i = 0; i < n; i++) {
            const AccOp *op = &ops[i];
            int u = op->slot == ACC_SLOT_ALU ? 0
                    : op->slot == ACC_SLOT_MAU ? 1
                    : op->slot == ACC_SLOT_L && op->level == 1 &&
                      acc_op_kind(op->opc) == ACC_K_XDOWN ? 2 : -1;
            if (u < 0 || op->ndst == 0 || op->dst[0].space == ACC_SP_MASK)
                continue;
            memcpy(sim->fwd[u], sim->stage[op->slot].v,
                   (size_t)(sim->npe * 8 * 8));
            sim->fwd_step[u] = s + acc_op_steps(m, op) - 1;
        }
    sim->st.bundles++;
    sim->step = s + nsteps;
    return halt;
}

int acc_sim_run(AccSim *sim)
{
    const AccProgram *p = sim->p;
    AccOp buf[ACC_SLOT__MAX + 4];
    int r = 0, rc = 0;
    for (int b = 0; b < p->nb && rc == 0;) {
        const AccRep *rp = r < p->nreps && p->reps[r].first == b
                               ? &p->reps[r] : NULL;
        if (!rp) {
            sim->cur_b = b;
            rc = run_bundle(sim, p->ops + p->b[b].first, p->b[b].nops);
            b++;
            continue;
        }
        for (int64_t j = 0; j < rp->count && rc == 0; j++) {
            const int32_t *inc = rp->inc;
            for (int t = 0; t < rp->n && rc == 0; t++) {
                const AccBundle *bd = &p->b[b + t];
                for (int o = 0; o < bd->nops; o++) {
                    AccOp *op = &buf[o];
                    *op = p->ops[bd->first + o];
                    for (int i = 0; i < ACC_MAX_SRC; i++)
                        op->src[i].addr = (int32_t)(op->src[i].addr +
                                                    j * inc[i]);
                    for (int i = 0; i < ACC_MAX_DST; i++)
                        op->dst[i].addr = (int32_t)(
                            op->dst[i].addr + j * inc[ACC_MAX_SRC + i]);
                    inc += ACC_MAX_SRC + ACC_MAX_DST;
                }
                sim->cur_b = b + t;
                rc = run_bundle(sim, buf, bd->nops);
            }
        }
        b += rp->n;
        r++;
    }
    const AccMachine *m = sim->m;
    sim->st.steps = sim->step;
    sim->st.cycles = sim->step * m->step_cycles;
    for (int i = 0; i < 256; i++)
        if (sim->q.tag_done[i] > sim->st.cycles)
            sim->st.cycles = sim->q.tag_done[i];
    return rc < 0 ? -1 : 0;
}
