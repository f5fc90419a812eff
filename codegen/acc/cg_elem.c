/*
 * cg_elem.c - elementwise kernels to TAM assembly: the first route of
 * the accel target.
 *
 * The kernel's loop IR must be one loop nest storing, at each output
 * element, a pointwise f32 expression of input elements.  Index
 * expressions are evaluated to linear forms over the loop variables
 * with the call's concrete extents and strides, so the compiler knows
 * exactly which element each load reads.
 *
 * Layout (every tensor alike): the output's elements, row-major and
 * padded to groups of P x 4 long words (P PEs, 4 sub-cycles), are
 * spread so that group g, PE p (global number), sub-cycle c holds the
 * long word g*P*4 + p*4 + c.  That is exactly what `dma.dist` of a
 * contiguous DRAM range, then `dist` at every BM level, then `dist.L1`
 * produce (PE-major images, docs/accel-asm.md), so one DMA moves a
 * whole group and the way back is the same with `gather`.  Per group:
 * each operand is loaded into lm0 (operand o at word 8*o, or 8*(n+o)
 * in the other set of n operands), the
 * expression is evaluated one op per bundle into GRF r (temporary t at
 * word 8*t, auto-stride so each op covers the PE's 4 long words), the
 * result is copied to lm1[0] and stored.  The groups are
 * software-pipelined (cg_elem_loop.c): group g's bundles are
 * its compute, and in their free slots (the overlap engine,
 * cg_overlap.c) group g + 1's way down the tree into the other lm0 set
 * of operands, group g - 1's way up and group g + NB's DMAs, NB top BM
 * sets ahead (3 where they fit); stores are waited for once, at the
 * end (test X * 2 + b 64 x 64: 3232 -> 1464 cycles with DMAs ahead,
 * -> 788 with the tree transfers in the compute's bundles).  Where the
 * lower BMs hold two sets of the operands and the top one four or five
 * (test, mn2), a group's way down begins two groups ahead: its levels
 * above L1 (and the wait for its DMAs) in group g - 2's bundles into
 * the lower BMs' set g % 2, its dist.L1s in group g - 1's, and the
 * results alternate between two lm1 sets, so that a group's copy to
 * lm1 need not wait for the way up of the group before (test 512 x 512:
 * 16 -> 13 steps a group, 33044 -> 26972 cycles).  What is left per
 * group is the compute and the way up's chain (gather.L1, settling,
 * gather.L2, settling, the DMA) in its bundles, against 6 steps of DRAM
 * traffic (TODO(issue 6): the way up split as the way down is).  The
 * padding lanes of the last group are computed and counted as useful
 * FLOPs (TODO(issue 6): write masks from `$gpe` compares, or tag them
 * as padding).
 *
 * When the schedule distributes the stage or lays out a tensor, the
 * groups follow that layout instead (cg_elem_lay.c).
 */
#include "codegen/acc/cg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_OPERANDS = ACC_CG_MAX_OPERANDS };

typedef AccCgLin Lin;
typedef AccCg Cg;

#define unsupported acc_cg_fail
#define param_of acc_cg_param_of
#define lin acc_cg_lin
#define eval acc_cg_eval

int acc_cg_fail(Cg *g, const char *what)
{
    if (!g->failed)
        diag_error(g->s, g->loc, DIAG_ACC_CG_UNSUPPORTED, what);
    g->failed = 1;
    return -1;
}

int acc_cg_param_of(const Cg *g, const LVar *v)
{
    const LFunc *fn = g->c->ck->fn;
    for (int i = 0; i < fn->nparams; i++)
        if (fn->params[i].var == v)
            return i;
    return -1;
}

static int loop_of(const Cg *g, const LVar *v)
{
    for (int i = 0; i < g->nloops; i++)
        if (g->loops[i] == v)
            return i;
    return -1;
}

static int is_const(const Cg *g, const Lin *l)
{
    for (int i = 0; i < g->nloops; i++)
        if (l->coef[i])
            return 0;
    return 1;
}

/* e as k + sum coef * loop variable, or -1 when it is not linear. */
int acc_cg_lin(Cg *g, const LExpr *e, Lin *out)
{
    Lin a, b;
    int p;

    memset(out, 0, sizeof *out);
    switch (e->kind) {
    case LE_INT:
        out->k = e->ival;
        return 0;
    case LE_VAR:
        if ((p = loop_of(g, e->var)) >= 0) {
            out->coef[p] = 1;
            return 0;
        }
        for (int i = 0; i < g->nlets; i++)
            if (g->letv[i] == e->var) {
                out->k = (int64_t)g->letval[i];
                return 0;
            }
        p = param_of(g, e->var);
        if (p < 0 || !g->c->pknown[p])
            return -1;
        out->k = g->c->pval[p];
        return 0;
    case LE_CAST:
        if (!dt_is_int(e->type.dt))
            return -1;
        return lin(g, e->a, out);
    case LE_BINARY:
        if (lin(g, e->a, &a) || lin(g, e->b, &b))
            return -1;
        if (e->op == LO_ADD || e->op == LO_SUB) {
            int64_t sg = e->op == LO_ADD ? 1 : -1;
            for (int i = 0; i < g->nloops; i++)
                out->coef[i] = a.coef[i] + sg * b.coef[i];
            out->k = a.k + sg * b.k;
            return 0;
        }
        if (e->op == LO_MUL && (is_const(g, &a) || is_const(g, &b))) {
            const Lin *x = is_const(g, &a) ? &b : &a;
            int64_t f = is_const(g, &a) ? a.k : b.k;
            for (int i = 0; i < g->nloops; i++)
                out->coef[i] = x->coef[i] * f;
            out->k = x->k * f;
            return 0;
        }
        return -1;
    default:
        return -1;
    }
}

/* The operand for a load of input `input` at l: an existing one or a
 * new one.  -1 after reporting. */
static int operand(Cg *g, int input, const Lin *l)
{
    AccCgProgram *p = g->p;
    TlFunc *f = g->c->k->inputs[input];
    const TlTensor *x = g->c->in[input];
    int64_t lo = l->k, hi = l->k, prev = 0;
    int direct, n = 0;

    for (int i = 0; i < p->nins; i++) {
        if (p->ins[i].input != input)
            continue;
        n++;
        if (!memcmp(p->ins[i].coef, l->coef, sizeof l->coef) &&
            p->ins[i].k == l->k)
            return i;
    }
    direct = !g->mapped &&
             !memcmp(l->coef, g->store.coef, sizeof l->coef) &&
             l->k == 0 && tl_tensor_numel(x) == p->nelems;
    /* A broadcast reads a row-major sub-tensor: strides falling from
     * the outer loops to the inner ones, inside the input. */
    for (int i = g->nloops - 1; i >= 0 && !direct && !g->mapped; i--) {
        int64_t c = l->coef[i];
        if (c < 0 || (c && c < prev))
            return unsupported(g, "reads in another order than the "
                                  "output's (a transpose or a gather)");
        if (c)
            prev = c;
        hi += c * (p->ext[i] - 1);
    }
    if (!direct && !g->mapped && (lo < 0 || hi >= tl_tensor_numel(x)))
        return unsupported(g, "reads outside an input");
    if (p->nins >= MAX_OPERANDS)
        return unsupported(g, "more than 32 operands");
    AccCgIn *in = &p->ins[p->nins];
    memset(in, 0, sizeof *in);
    in->name = n ? arena_printf(&g->s->arena, "%s_%d", f->name, n)
                 : f->name;
    in->input = input;
    in->direct = direct;
    memcpy(in->coef, l->coef, sizeof l->coef);
    in->k = l->k;
    return p->nins++;
}

static double cround(LType t, double v)
{
    if (t.dt == DT_F32)
        return (double)(float)v;
    if (dt_is_int(t.dt))
        return (double)(int64_t)v;
    return v;
}

int acc_cg_const(AccCg *g, const LExpr *e, double *v)
{
    double a, b;
    int p;

    switch (e->kind) {
    case LE_INT:
        *v = (double)e->ival;
        return 0;
    case LE_FLOAT:
        *v = e->fval;
        return 0;
    case LE_VAR:
        for (int i = 0; i < g->nlets; i++)
            if (g->letv[i] == e->var) {
                *v = g->letval[i];
                return 0;
            }
        p = param_of(g, e->var);
        if (p < 0 || !g->c->pknown[p] || loop_of(g, e->var) >= 0)
            return -1;
        *v = g->c->pf ? g->c->pf[p] : (double)g->c->pval[p];
        return 0;
    case LE_CAST:
        if (acc_cg_const(g, e->a, &a))
            return -1;
        *v = cround(e->type, a);
        return 0;
    case LE_SELECT:
        if (acc_cg_const(g, e->a, &a))
            return -1;
        return acc_cg_const(g, a != 0 ? e->b : e->c, v);
    case LE_UNARY:
        if (acc_cg_const(g, e->a, &a))
            return -1;
        *v = e->op == LO_NEG ? -a : !a;
        return 0;
    case LE_BINARY:
        if (acc_cg_const(g, e->a, &a) || acc_cg_const(g, e->b, &b))
            return -1;
        switch (e->op) {
        case LO_ADD: *v = a + b; break;
        case LO_SUB: *v = a - b; break;
        case LO_MUL: *v = a * b; break;
        case LO_DIV:
            if (dt_is_int(e->type.dt) && b == 0)
                return -1;
            *v = dt_is_int(e->type.dt) ? (double)((int64_t)a / (int64_t)b)
                                       : a / b;
            break;
        case LO_MIN: *v = a < b ? a : b; break;
        case LO_MAX: *v = a > b ? a : b; break;
        case LO_EQ: *v = a == b; break;
        case LO_NE: *v = a != b; break;
        case LO_LT: *v = a < b; break;
        case LO_LE: *v = a <= b; break;
        case LO_GT: *v = a > b; break;
        case LO_GE: *v = a >= b; break;
        case LO_AND: *v = a && b; break;
        case LO_OR: *v = a || b; break;
        default: return -1;
        }
        *v = cround(e->type, *v);
        return 0;
    default:
        return -1;
    }
}

/* Evaluates e into GRF temporary t (words 8t .. 8t+7 of r). */
int acc_cg_eval(Cg *g, const LExpr *e, int t)
{
    static const struct { LOp op; const char *name; } bins[] = {
        {LO_ADD, "add"}, {LO_SUB, "sub"}, {LO_MUL, "mul"},
        {LO_MIN, "min"}, {LO_MAX, "max"},
    };
    char what[120];
    int p, lat = g->m->lat_grf > 1 ? g->m->lat_grf - 1 : 0;
    int llat = g->m->long_op_steps + g->m->lat_long - 2;
    double cv;
    Lin l;

    if (e->type.lanes != 1)
        return unsupported(g, "vector code");
    if (e->type.dt != DT_F32) {
        snprintf(what, sizeof what, "%s arithmetic (f32 only so far)",
                 dt_name(e->type.dt));
        return unsupported(g, what);
    }
    if (t >= g->max_temps)
        return unsupported(g, "expressions this deep");
    if (e->kind != LE_LOAD && e->kind != LE_FLOAT &&
        acc_cg_const(g, e, &cv) == 0) {
        if (!isfinite(cv))
            return unsupported(g, "infinite or NaN constants");
        buf_printf(g->t, "mov.f32 #%.9g -> r[%d+]\n", (double)(float)cv,
                   8 * t);
        return 0;
    }
    switch (e->kind) {
    case LE_LOAD:
        if (g->load)
            return g->load(g, e, t);
        p = param_of(g, e->var);
        if (p < 0 || e->nargs != 1 || g->c->ck->params[p].kind != CGP_BUF)
            return unsupported(g, "this read");
        for (int i = 0; i < g->c->k->ninputs; i++)
            if (g->c->k->inputs[i] == g->c->ck->params[p].f) {
                int o;
                if (lin(g, e->args[0], &l))
                    return unsupported(g, "reads at computed indices");
                if ((o = operand(g, i, &l)) < 0)
                    return -1;
                buf_printf(g->t, "mov.f32 lm0[%lld+] -> r[%d+]\n",
                           (long long)(g->op_at + o * g->op_step), 8 * t);
                return 0;
            }
        return unsupported(g, "reads of stages or top-level tensors");
    case LE_FLOAT:
        if (!isfinite(e->fval))
            return unsupported(g, "infinite or NaN constants");
        buf_printf(g->t, "mov.f32 #%.17g -> r[%d+]\n", e->fval, 8 * t);
        return 0;
    case LE_UNARY:
        if (e->op != LO_NEG)
            break;
        if (eval(g, e->a, t))
            return -1;
        buf_printf(g->t, "neg.f32 r[%d+] -> r[%d+]\n", 8 * t, 8 * t);
        if (lat)
            buf_printf(g->t, "nop/%d\n", lat);
        return 0;
    case LE_BINARY:
        if (e->op == LO_DIV) {
            /* recip (or rsqrt of a sqrt) then mul: two roundings
             * (SPEC 10.7's tolerance). */
            int rs = e->b->kind == LE_CALL && e->b->fn == LC_SQRT;
            if (eval(g, e->a, t) ||
                eval(g, rs ? e->b->args[0] : e->b, t + 1))
                return -1;
            buf_printf(g->t, "%s.f32 r[%d+] -> r[%d+]\n",
                       rs ? "rsqrt" : "recip", 8 * (t + 1), 8 * (t + 1));
            if (lat)
                buf_printf(g->t, "nop/%d\n", lat);
            buf_printf(g->t, "mul.f32 r[%d+], r[%d+] -> r[%d+]\n", 8 * t,
                       8 * (t + 1), 8 * t);
            if (lat)
                buf_printf(g->t, "nop/%d\n", lat);
            return 0;
        }
        for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
            char oa[48], ob[48];
            int ra = 1, rb = 1;
            if (bins[i].op != e->op)
                continue;
            /* A read the route can name is an operand of the op. */
            if (g->operand && (rb = g->operand(g, e->b, ob, sizeof ob)) == 1)
                ra = g->operand(g, e->a, oa, sizeof oa);
            if (ra < 0 || rb < 0)
                return -1;
            if (rb == 0) {
                if (eval(g, e->a, t))
                    return -1;
                buf_printf(g->t, "%s.f32 r[%d+], %s -> r[%d+]\n",
                           bins[i].name, 8 * t, ob, 8 * t);
            } else if (ra == 0) {
                if (eval(g, e->b, t))
                    return -1;
                buf_printf(g->t, "%s.f32 %s, r[%d+] -> r[%d+]\n",
                           bins[i].name, oa, 8 * t, 8 * t);
            } else {
                if (eval(g, e->a, t) || eval(g, e->b, t + 1))
                    return -1;
                buf_printf(g->t, "%s.f32 r[%d+], r[%d+] -> r[%d+]\n",
                           bins[i].name, 8 * t, 8 * (t + 1), 8 * t);
            }
            if (lat)
                buf_printf(g->t, "nop/%d\n", lat);
            return 0;
        }
        snprintf(what, sizeof what, "the operator '%s'", lir_op_name(e->op));
        return unsupported(g, what);
    case LE_CALL:
        if (e->fn == LC_EXP || e->fn == LC_LOG || e->fn == LC_RSQRT) {
            int lng = e->fn != LC_RSQRT;
            if (eval(g, e->args[0], t))
                return -1;
            buf_printf(g->t, "%s.f32 r[%d+] -> r[%d+]\n",
                       lir_call_name(e->fn), 8 * t, 8 * t);
            if (lng ? llat > 0 : lat > 0)
                buf_printf(g->t, "nop/%d\n", lng ? llat : lat);
            return 0;
        }
        if (e->fn == LC_SQRT) {
            /* 1 / rsqrt(x): 0 at 0, inf at inf; two roundings. */
            if (eval(g, e->args[0], t))
                return -1;
            buf_printf(g->t, "rsqrt.f32 r[%d+] -> r[%d+]\n", 8 * t, 8 * t);
            if (lat)
                buf_printf(g->t, "nop/%d\n", lat);
            buf_printf(g->t, "recip.f32 r[%d+] -> r[%d+]\n", 8 * t, 8 * t);
            if (lat)
                buf_printf(g->t, "nop/%d\n", lat);
            return 0;
        }
        snprintf(what, sizeof what, "the math function '%s'",
                 lir_call_name(e->fn));
        return unsupported(g, what);
    case LE_SELECT:
        return unsupported(g, "select");
    case LE_CAST:
        return unsupported(g, "casts");
    default:
        break;
    }
    return unsupported(g, "this expression");
}

int acc_cg_elementwise(TlSession *s, const AccMachine *m,
                       const AccCgCall *c, AccCgProgram *p, TlLoc loc)
{
    const LStmt *st = c->ck->fn->body;
    TlBuf t;
    Cg g;
    Lin l;
    int nbm = acc_bm_levels(m), par;
    int64_t run = 1, pes = acc_machine_pes(m), gw, groups;

    memset(p, 0, sizeof *p);
    buf_init(&p->text);
    p->ins = arena_alloc(&s->arena, MAX_OPERANDS * sizeof *p->ins);
    memset(&g, 0, sizeof g);
    g.s = s;
    g.m = m;
    g.c = c;
    g.loc = loc;
    g.p = p;
    g.op_step = 8;
    g.max_temps = (int)(m->grf_words / 4 < ACC_CG_MAX_TEMPS
                            ? m->grf_words / 4 : ACC_CG_MAX_TEMPS);
    p->nelems = 1;
    for (int i = 0; i < c->out_rank; i++)
        p->nelems *= c->out_shape[i];
    if (c->k->outputs[0]->dtype != DT_F32)
        return unsupported(&g, "outputs of a type other than f32");
    for (; st->kind == LS_FOR; st = st->body) {
        if (st->loop != LP_SERIAL && st->loop != LP_PARALLEL)
            return unsupported(&g, "vectorized or unrolled loops");
        if (g.nloops == TL_MAX_RANK)
            return unsupported(&g, "loop nests this deep");
        if (lin(&g, st->a, &l) || !is_const(&g, &l) || l.k != 0 ||
            lin(&g, st->b, &l) || !is_const(&g, &l))
            return unsupported(&g, "loops with computed bounds");
        p->ext[g.nloops] = l.k;
        g.loops[g.nloops++] = st->var;
    }
    p->nloops = g.nloops;
    if (st->kind == LS_IF)
        return unsupported(&g, "guarded stores (a split's tail)");
    if (st->kind != LS_STORE)
        return unsupported(&g, "kernels with several stages or statements");
    par = param_of(&g, st->var);
    if (par < 0 || c->ck->params[par].kind != CGP_BUF ||
        c->ck->params[par].f != c->k->outputs[0] || st->nargs != 1 ||
        lin(&g, st->args[0], &g.store) || g.store.k != 0)
        return unsupported(&g, "this store");
    for (int i = g.nloops - 1; i >= 0; i--) {
        if (p->ext[i] > 1 && g.store.coef[i] != run)
            return unsupported(&g, "a loop order other than the output's");
        run *= p->ext[i];
    }
    if (run != p->nelems)
        return unsupported(&g, "a store that does not cover its output");
    if (nbm < 1)
        return unsupported(&g, "a machine without BM levels");
    for (int k = 1; k <= nbm; k++) {
        int lv = acc_bm_level(m, k);
        if (acc_level_span(m, lv) * 4 > m->level[lv].bm_words)
            return unsupported(&g, "a machine whose BMs hold less than 4 "
                                   "long words per PE");
    }
    buf_init(&t);
    g.t = &t;
    if (eval(&g, st->a, 0)) {
        buf_free(&t);
        return -1;
    }
    gw = pes * 4;
    groups = (p->nelems + 2 * gw - 1) / (2 * gw);
    if (groups == 0)
        groups = 1;
    switch (acc_cg_elem_layout(&g, &groups)) {
    case -1:
        buf_free(&t);
        return -1;
    case 2:
        buf_free(&t);
        return acc_cg_lay_route(&g, g.nloops, st->a, NULL);
    default:
        break;
    }
    if ((p->nins + 1) * groups * gw > m->dram_words) {
        buf_free(&t);
        return unsupported(&g, "tensors larger than the machine's DRAM");
    }
    if (acc_cg_elem_program(&g, st->a, groups, gw)) {
        buf_free(&t);
        return -1;
    }
    buf_free(&t);
    return 0;
}
