/*
 * strconv.h - the text of numbers and the numbers of text (SPEC 8.6),
 * written once for the interpreter (lang/str.c, as C) and for the
 * compiled kernels (the same text, stringified into the prelude of a
 * kernel that computes with strings by codegen/c/emit.c), so that a
 * compiled `str(x)` or `f32(s)` gives exactly the interpreter's text
 * and bits, ahead-of-time kernels included (their .c builds alone).
 *
 * Only libc: <ctype.h>, <errno.h>, <math.h>, <stdio.h>, <stdlib.h>,
 * <string.h>, <stdint.h>.  Each function is declared with TL_SC, which
 * the includer defines (`static`; the kernel prelude makes it the
 * kernel's TL_HELPER).  Q(...) receives the text: an identity macro
 * gives the functions, a stringifying one gives their source.  No
 * comments inside: they would not survive as text.
 *
 * tl_sc_float writes numpy's str() of a float of the precision that
 * `same` compares at (it says whether r and v are the same value
 * there), maxd the most significant digits that precision needs (17
 * f64, 9 f32, 5 f16 and bf16): the shortest "%.*e" that reads back,
 * which is the nearest such decimal (Dragon4, as numpy), positional
 * for 1e-4 <= |v| < 1e16, else scientific with two exponent digits at
 * least.  tl_sc_parse_f/_i/_u read as Python's float() and int() do
 * (spaces around, no hex, no "nan(...)"), 0 or -1 when s is no such
 * number; tl_sc_case maps the ASCII letters of s's n bytes into t.
 */
#ifndef TL_STRCONV_H
#define TL_STRCONV_H

#define TL_STRCONV_DEF(Q) Q(                                             \
TL_SC const char *tl_sc_skip(const char *s)                              \
{                                                                        \
    while (*s && isspace((unsigned char)*s))                             \
        s++;                                                             \
    return s;                                                            \
}                                                                        \
TL_SC void tl_sc_shortest(double v, int maxd,                            \
                          int (*same)(double, double), char *s,          \
                          size_t size)                                   \
{                                                                        \
    int n;                                                               \
    for (n = 1; n < maxd; n++) {                                         \
        snprintf(s, size, "%.*e", n - 1, v);                             \
        if (same(strtod(s, NULL), v))                                    \
            return;                                                      \
    }                                                                    \
    snprintf(s, size, "%.*e", maxd - 1, v);                              \
}                                                                        \
TL_SC void tl_sc_float(double v, int maxd, int (*same)(double, double),  \
                       char *out, size_t size)                           \
{                                                                        \
    char e[48], digits[24];                                              \
    int nd = 0, dexp, neg = v < 0;                                       \
    char *p = out, *end = out + size - 1;                                \
    if (isnan(v)) {                                                      \
        snprintf(out, size, "nan");                                      \
        return;                                                          \
    }                                                                    \
    if (isinf(v)) {                                                      \
        snprintf(out, size, neg ? "-inf" : "inf");                       \
        return;                                                          \
    }                                                                    \
    if (v == 0) {                                                        \
        snprintf(out, size, signbit(v) ? "-0.0" : "0.0");                \
        return;                                                          \
    }                                                                    \
    tl_sc_shortest(fabs(v), maxd, same, e, sizeof e);                    \
    for (const char *q = e; *q && *q != 'e'; q++)                        \
        if (isdigit((unsigned char)*q))                                  \
            digits[nd++] = *q;                                           \
    while (nd > 1 && digits[nd - 1] == '0')                              \
        nd--;                                                            \
    digits[nd] = 0;                                                      \
    dexp = atoi(strchr(e, 'e') + 1);                                     \
    if (neg)                                                             \
        *p++ = '-';                                                      \
    if (fabs(v) >= 1e16 || fabs(v) < 1e-4) {                             \
        *p++ = digits[0];                                                \
        if (nd > 1) {                                                    \
            *p++ = '.';                                                  \
            for (int i = 1; i < nd && p < end; i++)                      \
                *p++ = digits[i];                                        \
        }                                                                \
        snprintf(p, (size_t)(end - p) + 1, "e%c%02d",                    \
                 dexp < 0 ? '-' : '+', abs(dexp));                       \
        return;                                                          \
    }                                                                    \
    if (dexp < 0) {                                                      \
        *p++ = '0';                                                      \
        *p++ = '.';                                                      \
        for (int i = -1; i > dexp && p < end; i--)                       \
            *p++ = '0';                                                  \
        for (int i = 0; i < nd && p < end; i++)                          \
            *p++ = digits[i];                                            \
    } else {                                                             \
        for (int i = 0; i <= dexp && p < end; i++)                       \
            *p++ = i < nd ? digits[i] : '0';                             \
        *p++ = '.';                                                      \
        if (nd <= dexp + 1)                                              \
            *p++ = '0';                                                  \
        for (int i = dexp + 1; i < nd && p < end; i++)                   \
            *p++ = digits[i];                                            \
    }                                                                    \
    *p = 0;                                                              \
}                                                                        \
TL_SC int tl_sc_parse_f(const char *s, double *v)                        \
{                                                                        \
    const char *q = tl_sc_skip(s);                                       \
    char *end;                                                           \
    if (*q == '+' || *q == '-')                                          \
        q++;                                                             \
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))                     \
        return -1;                                                       \
    q = tl_sc_skip(s);                                                   \
    errno = 0;                                                           \
    *v = strtod(q, &end);                                                \
    if (end == q)                                                        \
        return -1;                                                       \
    if (strchr(q, '(') && strchr(q, '(') < end)                          \
        return -1;                                                       \
    return *tl_sc_skip(end) ? -1 : 0;                                    \
}                                                                        \
TL_SC int tl_sc_parse_i(const char *s, int64_t *v)                       \
{                                                                        \
    const char *q = tl_sc_skip(s);                                       \
    char *end;                                                           \
    long long x;                                                         \
    if (!isdigit((unsigned char)q[*q == '+' || *q == '-']))              \
        return -1;                                                       \
    errno = 0;                                                           \
    x = strtoll(q, &end, 10);                                            \
    if (errno == ERANGE || *tl_sc_skip(end))                             \
        return -1;                                                       \
    *v = x;                                                              \
    return 0;                                                            \
}                                                                        \
TL_SC int tl_sc_parse_u(const char *s, uint64_t *v)                      \
{                                                                        \
    const char *q = tl_sc_skip(s);                                       \
    char *end;                                                           \
    unsigned long long x;                                                \
    if (!isdigit((unsigned char)q[*q == '+']))                           \
        return -1;                                                       \
    errno = 0;                                                           \
    x = strtoull(q, &end, 10);                                           \
    if (errno == ERANGE || *tl_sc_skip(end))                             \
        return -1;                                                       \
    *v = x;                                                              \
    return 0;                                                            \
}                                                                        \
TL_SC void tl_sc_case(const char *s, char *t, size_t n, int up)          \
{                                                                        \
    for (size_t i = 0; i < n; i++) {                                     \
        unsigned char c = (unsigned char)s[i];                           \
        if (up && c >= 'a' && c <= 'z')                                  \
            c = (unsigned char)(c - 'a' + 'A');                          \
        else if (!up && c >= 'A' && c <= 'Z')                            \
            c = (unsigned char)(c - 'A' + 'a');                          \
        t[i] = (char)c;                                                  \
    }                                                                    \
})

#endif
