/*
 * emit_mask.c - a scalar condition under which every lane of a vector
 * mask is set.  A select whose branches read memory (a zero_pad border,
 * a guarded tail) is emitted lane by lane under its mask (emit_vec.c),
 * which costs a loop over the lanes for every vector; but inside the
 * domain every lane is set, and that is decided by comparing the two
 * ends of a ramp instead of every lane.  The select then takes the plain
 * vector branch there and the lane-by-lane one only at the borders.
 *
 * The condition is sufficient, not necessary: a && b gives both
 * conditions, a || b either, broadcast(c) gives c, and a comparison of
 * an integer ramp(base, s) with a broadcast n holds on every lane when
 * base + s * (W - 1) does not wrap (the lanes are then monotonic) and
 * both end lanes compare true.  Anything else has no condition.
 */
#include "codegen/c/cgc.h"
#include "codegen/codegen_int.h"

/* The largest value of a signed integer dtype, or 0 for the others. */
static int64_t signed_max(TlDType dt)
{
    switch (dt) {
    case DT_I8:
        return INT8_MAX;
    case DT_I16:
        return INT16_MAX;
    case DT_I32:
        return INT32_MAX;
    case DT_I64:
        return INT64_MAX;
    default:
        return 0;
    }
}

static int is_cmp(LOp op)
{
    return op == LO_LT || op == LO_LE || op == LO_GT || op == LO_GE;
}

/* The ramp side of a comparison of a ramp with a constant stride and a
 * broadcast, or NULL. */
static const LExpr *cmp_ramp(const LExpr *e, const LExpr **other)
{
    const LExpr *r = NULL, *o = NULL;

    if (e->a->kind == LE_RAMP && e->b->kind == LE_BROADCAST) {
        r = e->a;
        o = e->b;
    } else if (e->b->kind == LE_RAMP && e->a->kind == LE_BROADCAST) {
        r = e->b;
        o = e->a;
    }
    /* The span s * (W - 1) must be a value of the type. */
    if (!r || r->b->kind != LE_INT || !signed_max(r->type.dt) ||
        r->b->ival < -(INT64_C(1) << 32) || r->b->ival > INT64_C(1) << 32 ||
        r->b->ival * (r->type.lanes - 1) > signed_max(r->type.dt) ||
        r->b->ival * (r->type.lanes - 1) < -signed_max(r->type.dt))
        return NULL;
    *other = o;
    return r;
}

int cgc_all_lanes_ok(const LExpr *m)
{
    const LExpr *o;

    switch (m->kind) {
    case LE_BROADCAST:
        return 1;
    case LE_BINARY:
        if (m->op == LO_AND || m->op == LO_OR)
            return cgc_all_lanes_ok(m->a) && cgc_all_lanes_ok(m->b);
        return is_cmp(m->op) && cmp_ramp(m, &o) != NULL;
    default:
        return 0;
    }
}

/* The C operator of op with its operands swapped. */
static const char *flipped(LOp op)
{
    switch (op) {
    case LO_LT:
        return ">";
    case LO_LE:
        return ">=";
    case LO_GT:
        return "<";
    default:
        return "<=";
    }
}

void cgc_all_lanes(TlBuf *b, const LExpr *m)
{
    const LExpr *r, *o;
    const char *op;
    TlBuf ty;

    switch (m->kind) {
    case LE_BROADCAST:
        buf_puts(b, "(");
        cgc_expr(b, m->a);
        buf_puts(b, ")");
        return;
    case LE_BINARY:
        if (m->op == LO_AND || m->op == LO_OR) {
            buf_puts(b, "(");
            cgc_all_lanes(b, m->a);
            buf_puts(b, m->op == LO_AND ? " && " : " || ");
            cgc_all_lanes(b, m->b);
            buf_puts(b, ")");
            return;
        }
        break;
    default:
        tl_unreachable();
    }
    r = cmp_ramp(m, &o);
    TL_ASSERT(r && is_cmp(m->op));
    /* ramp op n, or n op ramp written as ramp flipped(op) n. */
    op = r == m->a ? lir_op_name(m->op) : flipped(m->op);
    buf_init(&ty);
    cgc_type_name(&ty, lir_type(r->type.dt, 1));
    buf_printf(b, "({ %s tl_rb = ", ty.s);
    cgc_expr(b, r->a);
    buf_puts(b, ", tl_rn = ");
    cgc_expr(b, o->a);
    buf_printf(b, ", tl_re; !__builtin_add_overflow(tl_rb, "
               "(%s)INT64_C(%lld), &tl_re) && tl_rb %s tl_rn && "
               "tl_re %s tl_rn; })", ty.s,
               (long long)(r->b->ival * (r->type.lanes - 1)), op, op);
    buf_free(&ty);
}
