/*
 * value.c - run-time values of top-level expressions and names: making,
 * copying, freeing and printing them, the table of bound names, and
 * arithmetic on scalars with the language's rules (SPEC 8).
 *
 * A scalar is held as a value of its dtype exactly, so every operation
 * is "convert the operands, compute, convert the result".  The casts
 * and the operations are those of the kernels (eval_scalar.c), called
 * on the scalar's ItpVal form, so that a scalar computes the same at
 * the top level and inside a kernel.
 */
#include "interp/eval_int.h"
#include "interp/script_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================
 * Values
 * ==================================================================== */

void itp_value_free(TlValue *v)
{
    if (!v)
        return;
    tl_tensor_unref(v->t);
    free(v->s);
    for (int i = 0; i < v->n; i++)
        itp_value_free(&v->items[i]);
    free(v->items);
    memset(v, 0, sizeof *v);
    v->kind = VAL_NONE;
}

TlValue itp_value_copy(const TlValue *v)
{
    TlValue r = *v;

    if (v->t)
        tl_tensor_ref(v->t);
    if (v->s)
        r.s = tl_xstrdup(v->s);
    if (v->items) {
        r.items = tl_xcalloc((size_t)v->n + 1, sizeof *r.items);
        for (int i = 0; i < v->n; i++)
            r.items[i] = itp_value_copy(&v->items[i]);
    }
    return r;
}

/* The VAL_NUM holding x, a value of dtype dt. */
static TlValue num_of(TlDType dt, ItpVal x)
{
    TlValue r;

    memset(&r, 0, sizeof r);
    r.kind = VAL_NUM;
    r.dtype = dt;
    if (dt_is_float(dt))
        r.f = x.f;
    else
        r.i = x.i;
    return r;
}

/* VAL_NUM v converted to dtype dt, in the kernels' form.  A str
 * scalar keeps its interned string's pointer in i (ItpVal's union). */
static ItpVal val_in(TlDType dt, const TlValue *v)
{
    ItpVal x;

    if (dt_is_float(v->dtype))
        x.f = v->f;
    else
        x.i = v->i;
    return itp_cast(dt, v->dtype, x);
}

TlValue itp_num_i64(TlDType dt, int64_t v)
{
    ItpVal x;

    x.i = v;
    return num_of(dt, itp_cast(dt, DT_I64, x));
}

TlValue itp_num_f64(TlDType dt, double v)
{
    ItpVal x;

    x.f = v;
    return num_of(dt, itp_cast(dt, DT_F64, x));
}

double itp_num_get_f64(const TlValue *v)
{
    return val_in(DT_F64, v).f;
}

int64_t itp_num_get_i64(const TlValue *v)
{
    return val_in(DT_I64, v).i;
}

TlValue itp_num_cast(const TlValue *v, TlDType to)
{
    return num_of(to, val_in(to, v));
}

TlTensor *itp_value_tensor(const TlValue *v)
{
    TlTensor *t;

    if (v->kind == VAL_TENSOR)
        return tl_tensor_ref(v->t);
    if (v->kind != VAL_NUM)
        return NULL;
    t = tl_tensor_new(v->dtype, 0, NULL, NULL, 0);
    TL_ASSERT(t);
    itp_store(v->dtype, t->data, val_in(v->dtype, v));
    return t;
}

TlValue itp_value_of_tensor(TlTensor *t)
{
    TlValue r;

    memset(&r, 0, sizeof r);
    if (t->rank == 0) {
        r = num_of(t->dtype, itp_load(t->dtype, t->data));
        tl_tensor_unref(t);
        return r;
    }
    r.kind = VAL_TENSOR;
    r.t = t;
    return r;
}

/* ====================================================================
 * Printing
 * ==================================================================== */

/* A scalar as numpy prints one: the shortest digits at its precision. */
static void print_num(TlBuf *out, const TlValue *v)
{
    TlPrintOpts o = tl_print_defaults;
    TlTensor *t = itp_value_tensor(v);

    o.header = 0;
    tl_tensor_print(out, t, &o);
    tl_tensor_unref(t);
}

static void print_string_lit(TlBuf *out, const char *s)
{
    buf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            buf_putc(out, '\\');
        if (*s == '\n')
            buf_puts(out, "\\n");
        else if (*s == '\t')
            buf_puts(out, "\\t");
        else
            buf_putc(out, *s);
    }
    buf_putc(out, '"');
}

/* An element of a list: strings in quotes, so ["a, b"] stays clear. */
static void print_item(TlBuf *out, const TlValue *v)
{
    if (v->kind == VAL_STR)
        print_string_lit(out, v->s);
    else
        itp_value_print(out, v);
}

void itp_value_print(TlBuf *out, const TlValue *v)
{
    switch (v->kind) {
    case VAL_NONE:
        buf_puts(out, "none");
        return;
    case VAL_NUM:
        print_num(out, v);
        return;
    case VAL_TENSOR:
        if (v->is_shape && v->t->rank == 1) {
            buf_putc(out, '[');
            for (int64_t i = 0; i < v->t->shape[0]; i++)
                buf_printf(out, "%s%lld", i ? ", " : "",
                           (long long)tl_tensor_get_i64(v->t, &i));
            buf_putc(out, ']');
            return;
        }
        tl_tensor_print(out, v->t, NULL);
        return;
    case VAL_STR:
        buf_puts(out, v->s);
        return;
    case VAL_DTYPE:
        buf_puts(out, dt_name(v->dtype));
        return;
    case VAL_LIST:
        buf_putc(out, '[');
        for (int i = 0; i < v->n; i++) {
            if (i)
                buf_puts(out, ", ");
            print_item(out, &v->items[i]);
        }
        buf_putc(out, ']');
        return;
    case VAL_MULTI:
        for (int i = 0; i < v->n; i++) {
            if (i)
                buf_putc(out, '\n');
            itp_value_print(out, &v->items[i]);
        }
        return;
    }
}

void itp_value_type(TlBuf *out, const TlValue *v)
{
    switch (v->kind) {
    case VAL_NONE: buf_puts(out, "none"); return;
    case VAL_NUM: buf_puts(out, dt_name(v->dtype)); return;
    case VAL_TENSOR: tl_tensor_print_type(out, v->t); return;
    case VAL_STR: buf_puts(out, "string"); return;
    case VAL_DTYPE: buf_puts(out, "dtype"); return;
    case VAL_LIST: buf_puts(out, "list"); return;
    case VAL_MULTI:
        buf_putc(out, '(');
        for (int i = 0; i < v->n; i++) {
            if (i)
                buf_puts(out, ", ");
            itp_value_type(out, &v->items[i]);
        }
        buf_putc(out, ')');
        return;
    }
}

void itp_num_text(TlBuf *out, TlDType dt, double v)
{
    char tmp[40];

    if (isnan(v)) {
        buf_puts(out, "nan");
        return;
    }
    if (isinf(v)) {
        buf_puts(out, v < 0 ? "-inf" : "inf");
        return;
    }
    if (!dt_is_float(dt)) {
        buf_printf(out, "%.0f", v);
        return;
    }
    /* The fewest significant digits that give v back in dt. */
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (itp_num_f64(dt, strtod(tmp, NULL)).f == itp_num_f64(dt, v).f)
            break;
    }
    buf_puts(out, tmp);
    if (!strpbrk(tmp, ".e"))
        buf_puts(out, ".0");        /* a float looks like one: "1.0" */
}

/* ====================================================================
 * Bound names
 * ==================================================================== */

ItpBinding *itp_find_let(TlInterp *ip, const TlLet *let)
{
    for (int i = ip->nbind - 1; i >= 0; i--)
        if (ip->bind[i].let == let)
            return &ip->bind[i];
    return NULL;
}

ItpBinding *itp_find_name(TlInterp *ip, const char *name)
{
    for (int i = ip->nbind - 1; i >= 0; i--)
        if (!strcmp(ip->bind[i].name, name))
            return &ip->bind[i];
    return NULL;
}

static void drop(ItpBinding *b)
{
    free(b->name);
    itp_value_free(&b->v);
    tl_tensor_unref(b->t0);
}

void itp_bind(TlInterp *ip, const char *name, const TlLet *let, TlValue v)
{
    ItpBinding *old = let ? itp_find_let(ip, let) : NULL;

    if (!old) {
        old = itp_find_name(ip, name);
        /* A kernel checked against that definition may still read it
         * (the REPL defines names again); anything else can go. */
        if (old && old->let && old->let->func)
            old = NULL;
    }
    if (old) {
        drop(old);
        memmove(old, old + 1,
                (size_t)(ip->bind + ip->nbind - old - 1) * sizeof *old);
        ip->nbind--;
    }
    if (ip->nbind == ip->bind_cap) {
        ip->bind_cap = ip->bind_cap ? 2 * ip->bind_cap : 16;
        ip->bind = tl_xrealloc(ip->bind,
                               (size_t)ip->bind_cap * sizeof *ip->bind);
    }
    ip->bind[ip->nbind].name = tl_xstrdup(name);
    ip->bind[ip->nbind].let = let;
    ip->bind[ip->nbind].v = v;
    ip->bind[ip->nbind].t0 = NULL;
    ip->nbind++;
}

void itp_bindings_free(TlInterp *ip)
{
    for (int i = 0; i < ip->nbind; i++)
        drop(&ip->bind[i]);
    free(ip->bind);
    ip->bind = NULL;
    ip->nbind = ip->bind_cap = 0;
}

/* ====================================================================
 * Scalar arithmetic: the kernels' operations (eval_scalar.c)
 * ==================================================================== */

/* Orders float dtypes by width (f16 and bf16 tie). */
static int float_rank(TlDType t)
{
    switch (t) {
    case DT_F16: case DT_BF16: return 1;
    case DT_F32: return 2;
    default: return 3;
    }
}

TlDType itp_promote(TlDType a, TlDType b)
{
    if (a == b)
        return a;
    if (a == DT_BOOL)
        return b;
    if (b == DT_BOOL)
        return a;
    if (dt_is_float(a) || dt_is_float(b)) {
        if (!dt_is_float(b))
            return a;
        if (!dt_is_float(a))
            return b;
        /* f16 with bf16: neither holds the other. */
        if (float_rank(a) == float_rank(b))
            return DT_F32;
        return float_rank(a) > float_rank(b) ? a : b;
    }
    /* Two integers: the wider; a signed one of twice the width when an
     * unsigned meets a signed of its own width (u8 with i8: i16). */
    {
        int sa = dt_size(a), sb = dt_size(b);
        int signd = dt_is_signed(a) || dt_is_signed(b);
        int size = sa > sb ? sa : sb;
        if (signd && ((!dt_is_signed(a) && sa == size) ||
                      (!dt_is_signed(b) && sb == size)))
            size *= 2;
        if (!signd)
            return size == 1 ? DT_U8 : size == 2 ? DT_U16
                   : size == 4 ? DT_U32 : DT_U64;
        switch (size) {
        case 1: return DT_I8;
        case 2: return DT_I16;
        case 4: return DT_I32;
        default: return DT_I64;
        }
    }
}

TlValue itp_num_binary(TlOp op, TlDType dt, const TlValue *a,
                       const TlValue *b)
{
    ItpVal r = itp_binary(itp_op_of(op), dt, val_in(dt, a), val_in(dt, b));

    /* Comparisons, && and || give bool. */
    return num_of(op >= OP_EQ && op <= OP_OR ? DT_BOOL : dt, r);
}

TlValue itp_num_unary(TlOp op, TlDType dt, const TlValue *a)
{
    return num_of(dt, itp_unary(itp_op_of(op), dt, val_in(dt, a)));
}

TlValue itp_num_builtin(TlBuiltinId id, TlDType dt, const TlValue *args,
                        int n)
{
    ItpOp op = itp_builtin_op(id);
    ItpVal v[3];

    TL_ASSERT(n >= 1 && n <= 3);
    if (op == I_UNIFORM || op == I_NORMAL) {
        for (int i = 0; i < 2; i++)
            v[i] = val_in(DT_I64, &args[i]);
        return num_of(DT_F32, itp_random(op, v[0].i, v[1].i));
    }
    for (int i = 0; i < n; i++)
        v[i] = val_in(dt, &args[i]);
    if (n == 3) {
        TL_ASSERT(op == I_CLAMP);
        return num_of(dt, itp_clamp(dt, v[0], v[1], v[2]));
    }
    if (n == 2)         /* min, max, pow */
        return num_of(dt, itp_binary(op, dt, v[0], v[1]));
    return num_of(dt, itp_unary(op, dt, v[0]));
}
