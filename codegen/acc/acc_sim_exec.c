/*
 * acc_sim_exec.c - what the ALU and the MAU compute, on real data, and
 * committing any slot's staged results to the destinations.
 *
 * Arithmetic is IEEE in the op's type: f64 in double, f32 in float
 * (fmaf for fma), f16 and bf16 computed in double and rounded once to
 * the type (exact for f16 add, sub and mul).  The matrix unit sums its
 * products in double and rounds once to the result type (f32 for f16
 * and bf16 inputs); block floating point is not modelled.
 */
#include "codegen/acc/acc_int.h"

#include <math.h>
#include <string.h>

static inline double ld_f(TlDType dt, const uint64_t *v, int l)
{
    const uint8_t *p = (const uint8_t *)v;
    switch (dt) {
    case DT_F64: { double d; memcpy(&d, p + 8 * l, 8); return d; }
    case DT_F32: { float f; memcpy(&f, p + 4 * l, 4); return f; }
    case DT_F16: { uint16_t h; memcpy(&h, p + 2 * l, 2);
                   return tl_f16_to_f32(h); }
    case DT_BF16: { uint16_t h; memcpy(&h, p + 2 * l, 2);
                    return tl_bf16_to_f32(h); }
    case DT_I32: { int32_t i; memcpy(&i, p + 4 * l, 4); return i; }
    default: { int16_t i; memcpy(&i, p + 2 * l, 2); return i; }
    }
}

static inline void st_f(TlDType dt, uint64_t *v, int l, double x)
{
    uint8_t *p = (uint8_t *)v;
    switch (dt) {
    case DT_F64: memcpy(p + 8 * l, &x, 8); break;
    case DT_F32: { float f = (float)x; memcpy(p + 4 * l, &f, 4); break; }
    case DT_F16: { uint16_t h = tl_f64_to_f16(x); memcpy(p + 2 * l, &h, 2);
                   break; }
    case DT_BF16: { uint16_t h = tl_f64_to_bf16(x);
                    memcpy(p + 2 * l, &h, 2); break; }
    case DT_I32: { int32_t i = (int32_t)tl_f64_to_int(DT_I32, x);
                   memcpy(p + 4 * l, &i, 4); break; }
    default: { int16_t i = (int16_t)tl_f64_to_int(DT_I16, x);
               memcpy(p + 2 * l, &i, 2); break; }
    }
}

static inline int64_t ld_i(TlDType dt, const uint64_t *v, int l)
{
    const uint8_t *p = (const uint8_t *)v;
    if (dt == DT_I32) {
        int32_t i;
        memcpy(&i, p + 4 * l, 4);
        return i;
    }
    if (dt == DT_I16) {
        int16_t i;
        memcpy(&i, p + 2 * l, 2);
        return i;
    }
    return (int64_t)ld_f(dt, v, l);
}

static inline void st_i(TlDType dt, uint64_t *v, int l, int64_t x)
{
    uint8_t *p = (uint8_t *)v;
    if (dt == DT_I32) {
        uint32_t u = (uint32_t)(uint64_t)x;
        memcpy(p + 4 * l, &u, 4);
    } else if (dt == DT_I16) {
        uint16_t u = (uint16_t)(uint64_t)x;
        memcpy(p + 2 * l, &u, 2);
    } else {
        st_f(dt, v, l, (double)x);
    }
}

static int is_int(TlDType dt)
{
    return dt == DT_I32 || dt == DT_I16;
}

static int64_t id_value(const AccSim *sim, int k, int64_t pe, int c)
{
    if (k == ACC_ID_SUB)
        return c;
    if (k == ACC_ID_GPE)
        return pe;
    return (pe / acc_level_span(sim->m, k)) % sim->m->level[k].fanout;
}

void acc_read_pe(AccSim *sim, const AccOp *op, const AccOpnd *o,
                 int64_t pe, int c, uint64_t v[2])
{
    v[0] = v[1] = 0;
    const uint64_t *src;
    switch (o->space) {
    case ACC_SP_IMM: case ACC_SP_ID: {
        TlDType dt = (TlDType)op->dt;
        int lanes = acc_lanes(dt, 2);
        if (o->space == ACC_SP_IMM) {
            const AccConst *k = &sim->p->consts[o->addr];
            for (int l = 0; l < lanes; l++) {
                if (is_int(dt))
                    st_i(dt, v, l, k->i);
                else
                    st_f(dt, v, l, k->f);
            }
        } else {
            int64_t x = id_value(sim, o->k, pe, c);
            for (int l = 0; l < lanes; l++)
                st_i(dt, v, l, x);
        }
        return;
    }
    case ACC_SP_ALUF: case ACC_SP_MAUF: case ACC_SP_LBF:
        src = sim->fwd[o->space - ACC_SP_ALUF] + (pe * 4 + c) * 2;
        break;
    case ACC_SP_T:
        src = sim->t + pe * sim->m->t_words + acc_opnd_addr(sim, o, c) / 2;
        break;
    default: {
        int lm = o->space <= ACC_SP_LM1;
        int bank = o->space == ACC_SP_LM1 || o->space == ACC_SP_S;
        int64_t n = lm ? sim->lmlw : sim->grflw;
        int64_t a = o->mode == ACC_MODE_INDIRECT
                        ? (int32_t)(uint32_t)sim->t[pe * sim->m->t_words + c]
                        : acc_opnd_addr(sim, o, c);
        src = (lm ? sim->lm[bank] : sim->grf[bank]) + pe * n + a / 2;
        break;
    }
    }
    v[0] = src[0];
    if (o->width == 2)
        v[1] = src[1];
}

void acc_load_opnd(AccSim *sim, const AccOp *op, const AccOpnd *o,
                   uint64_t *buf)
{
    int64_t npe = sim->npe;
    int w2 = o->width == 2;
    if (o->space == ACC_SP_ID || o->mode == ACC_MODE_INDIRECT) {
        for (int64_t pe = 0; pe < npe; pe++)
            for (int c = 0; c < 4; c++)
                acc_read_pe(sim, op, o, pe, c, buf + (pe * 4 + c) * 2);
        return;
    }
    if (o->space == ACC_SP_IMM) {
        uint64_t v[2];
        acc_read_pe(sim, op, o, 0, 0, v);
        for (int64_t i = 0; i < npe * 4; i++) {
            buf[2 * i] = v[0];
            buf[2 * i + 1] = v[1];
        }
        return;
    }
    if (o->space >= ACC_SP_ALUF && o->space <= ACC_SP_LBF) {
        const uint64_t *f = sim->fwd[o->space - ACC_SP_ALUF];
        for (int64_t i = 0; i < npe * 4; i++) {
            buf[2 * i] = f[2 * i];
            buf[2 * i + 1] = w2 ? f[2 * i + 1] : 0;
        }
        return;
    }
    int lm = o->space <= ACC_SP_LM1;
    int bank = o->space == ACC_SP_LM1 || o->space == ACC_SP_S;
    int64_t n = o->space == ACC_SP_T ? sim->m->t_words
                : lm ? sim->lmlw : sim->grflw;
    const uint64_t *base = o->space == ACC_SP_T ? sim->t
                           : lm ? sim->lm[bank] : sim->grf[bank];
    int64_t off[4];
    for (int c = 0; c < 4; c++)
        off[c] = acc_opnd_addr(sim, o, c) / 2;
    for (int64_t pe = 0; pe < npe; pe++) {
        const uint64_t *row = base + pe * n;
        uint64_t *d = buf + pe * 8;
        for (int c = 0; c < 4; c++) {
            d[2 * c] = row[off[c]];
            d[2 * c + 1] = w2 ? row[off[c] + 1] : 0;
        }
    }
}

void acc_count_flops(AccSim *sim, const AccOp *op, double flops,
                     TlDType dt)
{
    if (flops <= 0)
        return;
    sim->st.flops_exec[dt] += flops;
    int k = op->ndst ? op->dst[0].mask : 0;
    if (!k) {
        sim->st.flops_useful[dt] += flops;
        return;
    }
    int64_t on = 0;
    for (int64_t pe = 0; pe < sim->npe; pe++)
        on += __builtin_popcount(sim->mask[pe * sim->m->mask_entries + k]);
    sim->st.flops_useful[dt] += flops * (double)on / (16.0 * sim->npe);
}

static double fop(AccOpcode opc, TlDType dt, double x, double y, double z)
{
    double r;
    switch (opc) {
    case ACC_OP_ADD: r = dt == DT_F32 ? (double)((float)x + (float)y)
                                      : x + y; break;
    case ACC_OP_SUB: r = dt == DT_F32 ? (double)((float)x - (float)y)
                                      : x - y; break;
    case ACC_OP_MUL: r = dt == DT_F32 ? (double)((float)x * (float)y)
                                      : x * y; break;
    case ACC_OP_FMA: r = dt == DT_F32 ? (double)fmaf((float)x, (float)y,
                                                      (float)z)
                                      : fma(x, y, z); break;
    case ACC_OP_MAX: r = isnan(x) || isnan(y) ? NAN : x >= y ? x : y; break;
    case ACC_OP_MIN: r = isnan(x) || isnan(y) ? NAN : x <= y ? x : y; break;
    case ACC_OP_RELU: r = isnan(x) ? x : x > 0 ? x : 0.0; break;
    case ACC_OP_NEG: r = -x; break;
    case ACC_OP_RSQRT: r = 1.0 / sqrt(x); break;
    case ACC_OP_RECIP: r = 1.0 / x; break;
    case ACC_OP_EXP: r = exp(x); break;
    case ACC_OP_LOG: r = log(x); break;
    default: r = 0; break;
    }
    return r;
}

static int64_t iop(AccOpcode opc, TlDType dt, int64_t x, int64_t y)
{
    int bits = acc_dt_bits(dt);
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (opc) {
    case ACC_OP_ADD: return (int64_t)(ux + uy);
    case ACC_OP_SUB: return (int64_t)(ux - uy);
    case ACC_OP_MUL: return (int64_t)(ux * uy);
    case ACC_OP_MAX: return x >= y ? x : y;
    case ACC_OP_MIN: return x <= y ? x : y;
    case ACC_OP_AND: return x & y;
    case ACC_OP_OR: return x | y;
    case ACC_OP_XOR: return x ^ y;
    case ACC_OP_SHL: return (int64_t)(ux << (uy & (uint64_t)(bits - 1)));
    case ACC_OP_SHR: return x >> (uy & (uint64_t)(bits - 1));
    case ACC_OP_RELU: return x > 0 ? x : 0;
    case ACC_OP_NEG: return (int64_t)(0 - ux);
    default: return 0;
    }
}

/* Mask quarter of lane l out of `lanes` lanes of a sub-cycle. */
static int quarter(int l, int lanes)
{
    return l * 4 / lanes;
}

void acc_exec_pe(AccSim *sim, const AccOp *op, AccStage *st)
{
    TlDType dt = (TlDType)op->dt;
    AccOpKind kind = acc_op_kind(op->opc);
    const AccOpnd *wop = op->ndst ? &op->dst[0] : &op->src[0];
    if (kind == ACC_K_CMP)
        wop = op->src[0].space == ACC_SP_ID ? &op->src[1] : &op->src[0];
    int w = wop->width, lanes = acc_lanes(dt, w);
    int64_t g = sim->gsize;
    int me = sim->m->mask_entries;
    for (int j = 0; j < op->nsrc; j++)
        if (op->src[j].space != ACC_SP_MASK)
            acc_load_opnd(sim, op, &op->src[j], sim->opv[j]);
    for (int64_t pe = 0; pe < sim->npe; pe++) {
        uint16_t cmpmask = 0;
        int64_t from = pe;
        if (op->opc == ACC_OP_MSL)
            from = pe - pe % g + (pe % g + g - 1) % g;
        else if (op->opc == ACC_OP_MSR)
            from = pe - pe % g + (pe % g + 1) % g;
        for (int c = 0; c < 4; c++) {
            const uint64_t *a[ACC_MAX_SRC];
            uint64_t out[2] = {0, 0};
            for (int j = 0; j < op->nsrc; j++)
                a[j] = sim->opv[j] + (from * 4 + c) * 2;
            switch (kind) {
            case ACC_K_BIN: case ACC_K_FMA: case ACC_K_UN:
                for (int l = 0; l < lanes; l++) {
                    if (is_int(dt))
                        st_i(dt, out, l, iop((AccOpcode)op->opc, dt,
                                             ld_i(dt, a[0], l),
                                             op->nsrc > 1
                                                 ? ld_i(dt, a[1], l) : 0));
                    else
                        st_f(dt, out, l,
                             fop((AccOpcode)op->opc, dt, ld_f(dt, a[0], l),
                                 op->nsrc > 1 ? ld_f(dt, a[1], l) : 0,
                                 op->nsrc > 2 ? ld_f(dt, a[2], l) : 0));
                }
                break;
            case ACC_K_CMP: {
                int bits[4] = {1, 1, 1, 1};
                for (int l = 0; l < lanes; l++) {
                    double x = ld_f(dt, a[0], l), y = ld_f(dt, a[1], l);
                    if (is_int(dt))
                        x = (double)ld_i(dt, a[0], l),
                        y = (double)ld_i(dt, a[1], l);
                    int r = op->opc == ACC_OP_CMPLT ? x < y
                            : op->opc == ACC_OP_CMPLE ? x <= y : x == y;
                    int q0 = quarter(l, lanes);
                    int q1 = lanes < 4 ? quarter(l + 1, lanes) : q0 + 1;
                    for (int q = q0; q < q1 && q < 4; q++)
                        bits[q] &= r;
                }
                for (int q = 0; q < 4; q++)
                    cmpmask |= (uint16_t)(bits[q] << (c * 4 + q));
                break;
            }
            case ACC_K_SEL: {
                uint16_t mk = sim->mask[pe * me + op->src[0].addr];
                int bytes = acc_dt_bits(dt) / 8;
                for (int l = 0; l < lanes; l++) {
                    int on = (mk >> (c * 4 + quarter(l, lanes))) & 1;
                    memcpy((uint8_t *)out + l * bytes,
                           (const uint8_t *)(on ? a[1] : a[2]) + l * bytes,
                           (size_t)bytes);
                }
                break;
            }
            case ACC_K_CVT: {
                TlDType from_t = (TlDType)op->dt2;
                int n = acc_lanes(from_t, op->src[0].width);
                for (int l = 0; l < n; l++) {
                    if (is_int(from_t) && is_int(dt))
                        st_i(dt, out, l, ld_i(from_t, a[0], l));
                    else if (is_int(dt))
                        st_i(dt, out, l, tl_f64_to_int(dt,
                                                       ld_f(from_t, a[0], l)));
                    else
                        st_f(dt, out, l, is_int(from_t)
                                             ? (double)ld_i(from_t, a[0], l)
                                             : ld_f(from_t, a[0], l));
                }
                break;
            }
            case ACC_K_MOV: case ACC_K_ROT:
                out[0] = a[0][0];
                out[1] = a[0][1];
                break;
            default:
                break;
            }
            uint64_t *d = st->v + (pe * 4 + c) * 2;
            d[0] = out[0];
            d[1] = out[1];
            st->on[pe * 4 + c] = 1;
        }
        if (kind == ACC_K_CMP)
            st->v[pe * 8] = cmpmask;
    }
    int fl = 0;
    if (!is_int(dt) && dt) {
        if (kind == ACC_K_FMA)
            fl = 2;
        else if (kind == ACC_K_BIN || (kind == ACC_K_UN &&
                                       op->opc != ACC_OP_NEG))
            fl = 1;
    }
    acc_count_flops(sim, op, (double)fl * lanes * 4 * (double)sim->npe, dt);
}

/* --- the matrix unit --------------------------------------------------- */

static void shape(const AccMachine *m, TlDType dt, int *rows, int *cols)
{
    *rows = dt == DT_F64 ? m->mau_m_f64 : dt == DT_F32 ? m->mau_m_f32
                                                       : m->mau_m_f16;
    *cols = dt == DT_F64 ? m->mau_n_f64 : dt == DT_F32 ? m->mau_n_f32
                                                       : m->mau_n_f16;
}

static double *mat(AccSim *sim, int64_t g, int reg)
{
    return sim->mreg + (g * 2 + reg) * 64 * 64;
}

void acc_exec_mau(AccSim *sim, const AccOp *op, AccStage *st)
{
    TlDType dt = (TlDType)op->dt;
    TlDType at = dt == DT_F16 || dt == DT_BF16 ? DT_F32 : dt;
    int M, N;
    shape(sim->m, dt, &M, &N);
    int64_t G = sim->gsize;
    int cm = (int)((M + G - 1) / G), cn = (int)((N + G - 1) / G);
    if (op->opc == ACC_OP_MWRITE) {
        if (!st->mv)
            st->mv = tl_xcalloc((size_t)(sim->ngroup * 64 * 64),
                                sizeof(double));
        int lanes = acc_lanes(dt, op->src[0].width);
        int rps = lanes / cn > 0 ? lanes / cn : 1;
        int row0 = op->dst[0].addr;
        st->row0 = row0;
        st->nrows = (row0 + 4 * rps < M ? row0 + 4 * rps : M) - row0;
        acc_load_opnd(sim, op, &op->src[0], sim->opv[0]);
        for (int64_t g = 0; g < sim->ngroup; g++)
            for (int c = 0; c < 4; c++)
                for (int64_t p = 0; p < G; p++) {
                    const uint64_t *v = sim->opv[0] +
                                        ((g * G + p) * 4 + c) * 2;
                    for (int r = 0; r < rps; r++) {
                        int row = row0 + c * rps + r;
                        if (row >= M)
                            continue;
                        for (int e = 0; e < cn; e++) {
                            int j = (int)p * cn + e;
                            if (j < N && r * cn + e < lanes)
                                st->mv[(g * 64 + row) * 64 + j] =
                                    ld_f(dt, v, r * cn + e);
                        }
                    }
                }
        return;
    }
    int reg = op->src[0].k;
    if (op->opc == ACC_OP_MREAD) {
        int lanes = acc_lanes(dt, op->dst[0].width);
        int rps = lanes / cm > 0 ? lanes / cm : 1;
        int row0 = op->src[0].addr;
        for (int64_t g = 0; g < sim->ngroup; g++) {
            const double *A = mat(sim, g, reg);
            for (int c = 0; c < 4; c++)
                for (int64_t p = 0; p < G; p++) {
                    uint64_t *d = st->v + ((g * G + p) * 4 + c) * 2;
                    d[0] = d[1] = 0;
                    for (int r = 0; r < rps; r++) {
                        int i = row0 + c * rps + r;
                        for (int e = 0; e < cm && i < N; e++) {
                            int j = (int)p * cm + e;
                            if (j < M && r * cm + e < lanes)
                                st_f(dt, d, r * cm + e, A[j * 64 + i]);
                        }
                    }
                    st->on[(g * G + p) * 4 + c] = 1;
                }
        }
        return;
    }
    double b[64];
    acc_load_opnd(sim, op, &op->src[1], sim->opv[1]);
    if (op->opc == ACC_OP_MFMA)
        acc_load_opnd(sim, op, &op->src[2], sim->opv[2]);
    for (int64_t g = 0; g < sim->ngroup; g++) {
        const double *A = mat(sim, g, reg);
        for (int c = 0; c < 4; c++) {
            for (int64_t p = 0; p < G; p++) {
                const uint64_t *bv = sim->opv[1] + ((g * G + p) * 4 + c) * 2;
                for (int e = 0; e < cn; e++)
                    if (p * cn + e < N)
                        b[p * cn + e] = ld_f(dt, bv, e);
            }
            for (int64_t p = 0; p < G; p++) {
                int64_t pe = g * G + p;
                uint64_t *d = st->v + (pe * 4 + c) * 2;
                const uint64_t *acc = sim->opv[2] + (pe * 4 + c) * 2;
                d[0] = d[1] = 0;
                st->on[pe * 4 + c] = p * cm < M;
                for (int e = 0; e < cm; e++) {
                    int i = (int)p * cm + e;
                    if (i >= M)
                        break;
                    double sum = op->opc == ACC_OP_MFMA ? ld_f(at, acc, e)
                                                        : -0.0;
                    /* Products of f32, f16 or bf16 values are exact in
                     * double (48 significant bits at most), so a plain
                     * add rounds once, as fma does, without a call to
                     * libm's fma (the simulator's matmuls: 1.6x). */
                    if (at == DT_F64)
                        for (int j = 0; j < N; j++)
                            sum = fma(A[i * 64 + j], b[j], sum);
                    else
                        for (int j = 0; j < N; j++)
                            sum += A[i * 64 + j] * b[j];
                    st_f(at, d, e, sum);
                }
            }
        }
    }
    acc_count_flops(sim, op, 2.0 * M * N * 4 * (double)sim->ngroup, dt);
}

/* --- committing ----------------------------------------------------------- */

static void write_pe(AccSim *sim, const AccOpnd *o, const AccStage *st,
                     int64_t ready)
{
    int me = sim->m->mask_entries;
    int lm = o->space <= ACC_SP_LM1;
    int bank = o->space == ACC_SP_LM1 || o->space == ACC_SP_S;
    int64_t n = o->space == ACC_SP_T ? sim->m->t_words
                : lm ? sim->lmlw : sim->grflw;
    uint64_t *base = o->space == ACC_SP_T ? sim->t
                     : lm ? sim->lm[bank] : sim->grf[bank];
    int qbytes = 2 * o->width;
    int64_t off[4];
    for (int c = 0; c < 4; c++)
        off[c] = acc_opnd_addr(sim, o, c) / 2;
    for (int64_t pe = 0; pe < sim->npe; pe++) {
        uint16_t mk = o->mask ? sim->mask[pe * me + o->mask] : 0xffff;
        for (int c = 0; c < 4; c++) {
            if (!st->on[pe * 4 + c])
                continue;
            uint64_t *d = base + pe * n + off[c];
            const uint64_t *v = st->v + (pe * 4 + c) * 2;
            int bits = (mk >> (c * 4)) & 15;
            if (bits == 15) {
                d[0] = v[0];
                if (o->width == 2)
                    d[1] = v[1];
                continue;
            }
            for (int q = 0; q < 4; q++)
                if (bits >> q & 1)
                    memcpy((uint8_t *)d + q * qbytes,
                           (const uint8_t *)v + q * qbytes, (size_t)qbytes);
        }
    }
    AccReady *r = acc_ready_of(sim, o->space, 0);
    for (int c = 0; c < 4; c++) {
        int64_t a = acc_opnd_addr(sim, o, c) / 2;
        acc_mark_ready(sim, r, a, a + o->width, ready);
    }
}

void acc_commit(AccSim *sim, const AccOp *op, AccStage *st, int64_t occ)
{
    const AccMachine *m = sim->m;
    int64_t done = sim->step + occ - 1;
    AccOpKind kind = acc_op_kind(op->opc);
    for (int i = 0; i < op->ndst; i++) {
        const AccOpnd *o = &op->dst[i];
        int64_t lat = acc_lat(sim, o->space);
        if (kind == ACC_K_XDOWN || kind == ACC_K_XUP)
            lat = m->level[acc_bm_level(m, op->level)].lat_steps;
        else if (op->opc == ACC_OP_EXP || op->opc == ACC_OP_LOG)
            lat = m->lat_long;
        else if (op->slot == ACC_SLOT_MAU && o->space <= ACC_SP_LM1)
            lat = m->lat_mau_lm;
        switch (o->space) {
        case ACC_SP_MASK:
            for (int64_t pe = 0; pe < sim->npe; pe++)
                sim->mask[pe * m->mask_entries + o->addr] =
                    (uint16_t)st->v[pe * 8];
            acc_mark_ready(sim, sim->rd_mask, o->addr, o->addr + 1,
                           done + lat);
            break;
        case ACC_SP_MREG:
            for (int64_t g = 0; g < sim->ngroup; g++)
                for (int r = st->row0; r < st->row0 + st->nrows; r++)
                    memcpy(sim->mreg + ((g * 2 + o->k) * 64 + r) * 64,
                           st->mv + (g * 64 + r) * 64, 64 * sizeof(double));
            acc_mark_ready(sim, sim->rd_mreg, o->k, o->k + 1, done + lat);
            break;
        case ACC_SP_BM: {
            int64_t len = st->bmlen;    /* set by acc_exec_xfer */
            int li = acc_bm_level(m, o->k);
            int64_t words = m->level[li].bm_words;
            for (int64_t nd = 0; nd < sim->bm_nodes[o->k]; nd++)
                if (!st->bmset || (st->bmset >> nd % st->bmfan & 1))
                    memcpy(sim->bm[o->k] + nd * words + o->addr,
                           st->bmv + nd * len, (size_t)len * 8);
            acc_mark_ready(sim, sim->rd_bm[o->k], o->addr, o->addr + len,
                           done + lat);
            break;
        }
        default:
            write_pe(sim, o, st, done + lat);
            break;
        }
    }
}
