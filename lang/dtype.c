/*
 * dtype.c - facts about element types, from the TL_DTYPES table.
 * The promotion rules themselves live with the type checker.
 */
#include "lang/lang.h"

#include <string.h>

static const struct {
    const char *name;
    int size, is_float, is_signed;
} dtypes[DT__COUNT] = {
    [DT_NONE] = {"?", 0, 0, 0},
#define X(n, s, sz, fl, sg, rk) [DT_##n] = {s, sz, fl, sg},
    TL_DTYPES(X)
#undef X
};

const char *dt_name(TlDType t)
{
    return t > DT_NONE && t < DT__COUNT ? dtypes[t].name : "?";
}

TlDType dt_from_name(const char *s, size_t n)
{
    for (int t = DT_NONE + 1; t < DT__COUNT; t++)
        if (strlen(dtypes[t].name) == n && !memcmp(dtypes[t].name, s, n))
            return (TlDType)t;
    return DT_NONE;
}

int dt_size(TlDType t)
{
    return t < DT__COUNT ? dtypes[t].size : 0;
}

int dt_is_float(TlDType t)
{
    return t < DT__COUNT && dtypes[t].is_float;
}

int dt_is_int(TlDType t)
{
    return t > DT_BOOL && t < DT_STR && !dtypes[t].is_float;
}

int dt_is_signed(TlDType t)
{
    return t < DT__COUNT && dtypes[t].is_signed;
}

int dt_is_unsigned(TlDType t)
{
    return dt_is_int(t) && !dtypes[t].is_signed;
}

int64_t tl_floor_div(int64_t a, int64_t b)
{
    int64_t q;

    if (b == 0)
        return 0;
    if (b == -1)
        return (int64_t)(0 - (uint64_t)a);
    q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0))
        q--;
    return q;
}

int64_t tl_floor_mod(int64_t a, int64_t b)
{
    int64_t r;

    if (b == 0 || b == -1)
        return 0;
    r = a % b;
    if (r != 0 && (r < 0) != (b < 0))
        r += b;
    return r;
}
