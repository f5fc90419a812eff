/*
 * literal.c - the tensor of a top-level `let` written as a literal
 * (SPEC 11.1; checked by lang/checklit.c): `let stop: str[3] = ["a",
 * "the", "of"]` evaluates its list as any list, and the let binds the
 * tensor made from it in row-major order, each number converted to
 * the declared dtype as a literal of that dtype is.
 */
#include "interp/script_int.h"

#include <string.h>

/* Stores the leaves of v (nested `depth` levels more) from element *k
 * on. */
static void fill(TlTensor *t, const TlValue *v, int depth, int64_t *k)
{
    char *p;

    if (depth > 0) {
        for (int i = 0; i < v->n; i++)
            fill(t, &v->items[i], depth - 1, k);
        return;
    }
    p = (char *)t->data + *k * (int64_t)dt_size(t->dtype);
    (*k)++;
    if (t->dtype == DT_STR) {
        const char *s = v->s ? v->s : "";
        tl_str_put(p, tl_str_intern(s, strlen(s)));
    } else {
        TlValue n = itp_num_cast(v, t->dtype);
        if (dt_is_float(t->dtype))
            tl_dt_store_f64(t->dtype, p, n.f);
        else
            tl_dt_store_i64(t->dtype, p, n.i);
    }
}

int itp_literal_tensor(TlValue *v, const TlLet *l)
{
    int64_t shape[TL_MAX_RANK], k = 0;
    TlTensor *t;

    if (!(v->kind == VAL_LIST || (v->kind == VAL_STR && l->rank == 0)))
        return 0;
    for (int i = 0; i < l->rank; i++)
        TL_ASSERT(l->shape && tl_sym_const(l->shape[i], &shape[i]));
    t = tl_tensor_new(l->dtype, l->rank, shape, NULL, 0);
    if (!t)
        return -1;
    fill(t, v, l->rank, &k);
    itp_value_free(v);
    v->kind = VAL_TENSOR;
    v->t = t;
    return 0;
}
