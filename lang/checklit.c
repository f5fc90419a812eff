/*
 * checklit.c - tensor literals of a top-level `let` (SPEC 11.1):
 *
 *     let stop: str[3] = ["a", "the", "of"]
 *     let w: f32[2, 2] = [[1, -0.5], [0, 2]]
 *
 * A list nested one level per axis of the declared type, of the
 * declared sizes, whose elements are literals of its dtype (strings
 * for str; numbers, which adapt as a literal does, or true/false).
 * The type is written out, so the value's type is the declaration's
 * and nothing is inferred from the elements; the interpreter makes the
 * tensor (interp/literal.c).  This is how a small constant that no
 * weights file holds (an ONNX string initializer, tdsl import) is
 * written in the source.
 */
#include "lang/lang_int.h"

#include <stdio.h>

typedef struct Lit {
    Chk *c;
    const char *name, *decl;
    TlDType dt;
    int rank;
    int64_t want[TL_MAX_RANK];
    int64_t at[TL_MAX_RANK];
} Lit;

/* "element [1, 0] " (depth > 0). */
static void where(Lit *L, int depth, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "element [");

    for (int i = 0; i < depth && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "",
                              (long long)L->at[i]);
    if (n < len)
        snprintf(buf + n, len - n, "] ");
}

static int bad(Lit *L, TlExpr *e, const char *why)
{
    diag_error(L->c->s, e->loc, DIAG_LET_LITERAL, L->name, L->decl, why);
    return -1;
}

static int check(Lit *L, TlExpr **slot, int depth)
{
    TlExpr *e = *slot;
    char w[160], why[300];

    if (!depth)
        snprintf(w, sizeof w, "the value ");
    else
        where(L, depth, w, sizeof w);
    if (depth < L->rank) {
        if (e->kind != EX_LIST) {
            snprintf(why, sizeof why, "%sis not a list (axis %d has %lld "
                     "elements)", w, depth, (long long)L->want[depth]);
            return bad(L, e, why);
        }
        if (e->args.n != L->want[depth]) {
            snprintf(why, sizeof why, "%sis a list of %d elements, where "
                     "axis %d has %lld", w, e->args.n, depth,
                     (long long)L->want[depth]);
            return bad(L, e, why);
        }
        for (int i = 0; i < e->args.n; i++) {
            L->at[depth] = i;
            if (check(L, &e->args.v[i], depth + 1) < 0)
                return -1;
        }
        return 0;
    }
    if (e->kind == EX_LIST) {
        snprintf(why, sizeof why, "%sis a list (the type has rank %d)",
                 w, L->rank);
        return bad(L, e, why);
    }
    if (L->dt == DT_STR ? e->kind == EX_STR
                        : (e->kind == EX_BOOL || ty_weak(e)) &&
                          ty_fits(L->c, slot, L->dt))
        return 0;
    snprintf(why, sizeof why, "%sis not a literal of dtype '%s'",
             w, dt_name(L->dt));
    return bad(L, e, why);
}

int chk_let_literal(Chk *c, const char *name, TlExpr **slot, TlDType dt,
                    int rank, TlSymExpr **shape, const char *decl)
{
    Lit L = {c, name, decl, dt, rank, {0}, {0}};

    if (!*slot || !((*slot)->kind == EX_LIST ||
                    (rank == 0 && dt == DT_STR && (*slot)->kind == EX_STR)))
        return 0;
    if (rank > TL_MAX_RANK) {
        char why[100];
        snprintf(why, sizeof why, "a tensor has at most %d axes, not %d",
                 TL_MAX_RANK, rank);
        return bad(&L, *slot, why);
    }
    for (int i = 0; i < rank; i++)
        if (!shape[i] || !tl_sym_const(shape[i], &L.want[i]))
            return -1;      /* (a size that is no constant: reported) */
    return check(&L, slot, 0) < 0 ? -1 : 1;
}
