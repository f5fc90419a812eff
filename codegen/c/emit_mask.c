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
 *
 * The same masks, where every comparison is of a ramp of stride 1,
 * also have a bitmask of 16 lanes computed from scalars (cgc_kmask):
 * the lanes below n of ramp(b, 1) are the first n - b.  The masked
 * load of a zero_pad border then takes that bitmask (tl_mldkf16, one
 * instruction), where the vector mask of 64-bit lane indices, compared
 * and narrowed lane by lane (tl_i64x16_ramp, __builtin_convertvector),
 * was half of gcc's time on matmul's packing of B and conv2d's padding
 * of X (0.04 s of cc CPU time each; bench/README.md 2026-11-29 12:20),
 * for code that runs only at a border.
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

/* A comparison of a ramp of stride 1 with a broadcast, or NULL. */
static const LExpr *cmp_ramp1(const LExpr *m, const LExpr **other)
{
    const LExpr *r;

    if (m->kind != LE_BINARY || !is_cmp(m->op))
        return NULL;
    r = cmp_ramp(m, other);
    return r && r->b->ival == 1 && r->type.lanes == 16 ? r : NULL;
}

static int has_load_expr(LVisitor *v, const LExpr *e)
{
    if (e->kind == LE_LOAD)
        *(int *)v->ctx = 1;
    return 1;
}

int cgc_kmask_ok(const LExpr *m)
{
    const LExpr *o;
    int load = 0;
    LVisitor v = {&load, has_load_expr, NULL};

    if (m->type.lanes != 16)
        return 0;
    switch (m->kind) {
    case LE_BROADCAST:
        lir_visit_expr(&v, m->a);
        return !load;
    case LE_BINARY:
        if (m->op == LO_AND || m->op == LO_OR)
            return cgc_kmask_ok(m->a) && cgc_kmask_ok(m->b);
        if (!cmp_ramp1(m, &o))
            return 0;
        lir_visit_expr(&v, m);
        return !load;
    default:
        return 0;
    }
}

/* The op code of tl_kcmp16: 0 <, 1 <=, 2 >, 3 >=, for ramp op n. */
static int kop(LOp op)
{
    switch (op) {
    case LO_LT:
        return 0;
    case LO_LE:
        return 1;
    case LO_GT:
        return 2;
    default:
        return 3;
    }
}

/* n op ramp as ramp op' n. */
static LOp kflip(LOp op)
{
    switch (op) {
    case LO_LT:
        return LO_GT;
    case LO_LE:
        return LO_GE;
    case LO_GT:
        return LO_LT;
    default:
        return LO_LE;
    }
}

void cgc_kmask(TlBuf *b, const LExpr *m)
{
    const LExpr *r, *o;

    switch (m->kind) {
    case LE_BROADCAST:
        buf_puts(b, "((");
        cgc_expr(b, m->a);
        buf_puts(b, ") ? 0xffffu : 0u)");
        return;
    case LE_BINARY:
        if (m->op == LO_AND || m->op == LO_OR) {
            buf_puts(b, "(");
            cgc_kmask(b, m->a);
            buf_puts(b, m->op == LO_AND ? " & " : " | ");
            cgc_kmask(b, m->b);
            buf_puts(b, ")");
            return;
        }
        break;
    default:
        tl_unreachable();
    }
    r = cmp_ramp1(m, &o);
    TL_ASSERT(r);
    buf_puts(b, "(unsigned)tl_kcmp16((int64_t)(");
    cgc_expr(b, r->a);
    buf_puts(b, "), (int64_t)(");
    cgc_expr(b, o->a);
    buf_printf(b, "), INT64_C(%lld), %d)",
               (long long)signed_max(r->type.dt),
               kop(r == m->a ? m->op : kflip(m->op)));
}

/* The prelude's tl_kcmp16.  Without wrapping the lanes are monotonic,
 * so those below n (or up to n) are a run from lane 0 and the others
 * the rest; a ramp that wraps within its 16 lanes (b within 15 of its
 * type's largest value) is taken lane by lane, out of line. */
const char cgc_kmask_helper[] =
    "/* The lanes l of ramp(b, 1), of a type whose largest value is top,\n"
    " * for which b + l op n (op: 0 <, 1 <=, 2 >, 3 >=), as a bitmask\n"
    " * (codegen/c/emit_mask.c). */\n"
    "#if defined(__GNUC__)\n"
    "__attribute__((unused, noinline, cold))\n"
    "#endif\n"
    "static unsigned short tl_kcmp16w(int64_t b, int64_t n, int64_t top,\n"
    "                                 int op)\n"
    "{\n"
    "    unsigned short k = 0;\n"
    "    for (int l = 0; l < 16; l++) {\n"
    "        int64_t v = top == INT64_MAX\n"
    "                    ? (int64_t)((uint64_t)b + (uint64_t)l)\n"
    "                    : b + l > top ? b + l - 2 * (top + 1) : b + l;\n"
    "        int t = op == 0 ? v < n : op == 1 ? v <= n : op == 2 ? v > n\n"
    "                                                           : v >= n;\n"
    "        k |= (unsigned short)((unsigned)t << l);\n"
    "    }\n"
    "    return k;\n"
    "}\n"
    "TL_HELPER unsigned short tl_kcmp16(int64_t b, int64_t n, int64_t top,\n"
    "                                   int op)\n"
    "{\n"
    "    unsigned lt = 0, le = 0, c;\n"
    "    unsigned short k;\n"
    "    if (b > top - 15) return tl_kcmp16w(b, n, top, op);\n"
    "    if (n >= b) {\n"
    "        uint64_t d = (uint64_t)n - (uint64_t)b;\n"
    "        lt = d >= 16 ? 16 : (unsigned)d;\n"
    "        le = d >= 15 ? 16 : (unsigned)d + 1;\n"
    "    }\n"
    "    c = op == 0 || op == 3 ? lt : le;\n"
    "    k = c >= 16 ? (unsigned short)0xffff\n"
    "                : (unsigned short)((1u << c) - 1u);\n"
    "    return op < 2 ? k : (unsigned short)~k;\n"
    "}\n";
