/*
 * erf_table.c - prints the coefficient table of the AVX-512 erf helper
 * (codegen/c/emit_vmath.c, tl_erf_r) as the C string lines pasted
 * there.  Not built by make: a record of where the numbers come from.
 *
 *   cc -O2 scripts/erf_table.c -o erf_table -lm && ./erf_table
 *
 * |x| < 4 is cut into 16 pieces a quarter wide; on piece k, erf(x) / x
 * is interpolated at NTERMS Chebyshev nodes in long double (erfl: 64
 * bits, 11 more than the double result needs), the Chebyshev series
 * rewritten as powers of t = x - (k + 1/2) / 4 and rounded to double,
 * then printed as powers of w = 4 t (scaled by powers of 2: exact).
 * It also prints, to stderr, the largest relative error of |x| P_k(t)
 * against erfl on a dense grid of each piece (evaluated in long double:
 * the rounding of the coefficients counts, the helper's own rounding
 * in double does not): 2^-38.9 with 8 terms (2^-49.4 with 10).
 */
#include <math.h>
#include <stdio.h>

enum { PIECES = 16, NTERMS = 8, GRID = 50000 };

typedef long double LD;

/* erf(x) / x, 2 / sqrt(pi) at 0. */
static LD erf_over_x(LD x)
{
    return x == 0 ? 2 / sqrtl(acosl(-1.0L)) : erfl(x) / x;
}

/* The interpolant of erf(x) / x on [lo, hi] at n Chebyshev nodes, as
 * powers of t = x - c: out[0..n-1]. */
static void fit(LD lo, LD hi, LD c, int n, double *out)
{
    LD pi = acosl(-1.0L), m = (lo + hi) / 2, r = (hi - lo) / 2;
    LD f[NTERMS], ch[NTERMS], pu[NTERMS] = {0}, pt[NTERMS] = {0};
    LD t0[NTERMS] = {0}, t1[NTERMS] = {0}, t2[NTERMS];

    for (int j = 0; j < n; j++)
        f[j] = erf_over_x(m + r * cosl(pi * (j + 0.5L) / n));
    for (int k = 0; k < n; k++) {
        LD s = 0;
        for (int j = 0; j < n; j++)
            s += f[j] * cosl(pi * k * (j + 0.5L) / n);
        ch[k] = s * 2 / n;
    }
    ch[0] /= 2;
    /* sum ch[k] T_k(u), u = (x - m) / r, as powers of u */
    t0[0] = 1;
    t1[1] = 1;
    pu[0] = ch[0];
    pu[1] = ch[1];
    for (int k = 2; k < n; k++) {
        for (int i = 0; i < n; i++)
            t2[i] = 2 * (i ? t1[i - 1] : 0) - t0[i];
        for (int i = 0; i < n; i++) {
            pu[i] += ch[k] * t2[i];
            t0[i] = t1[i];
            t1[i] = t2[i];
        }
    }
    /* u = t / r + d, d = (c - m) / r */
    for (int i = 0; i < n; i++) {
        LD b = 1, d = (c - m) / r;
        for (int j = 0; j <= i; j++) {
            pt[j] += pu[i] * b * powl(1 / r, j) * powl(d, i - j);
            b = b * (i - j) / (j + 1);
        }
    }
    for (int i = 0; i < n; i++)
        out[i] = (double)pt[i];
}

int main(void)
{
    double c[PIECES][NTERMS];
    LD worst = 0;

    for (int k = 0; k < PIECES; k++) {
        LD lo = k * 0.25L, mid = lo + 0.125L;
        fit(lo, lo + 0.25L, mid, NTERMS, c[k]);
        for (int i = 1; i <= GRID; i++) {
            LD x = lo + 0.25L * i / GRID, p = c[k][NTERMS - 1], e;
            for (int j = NTERMS - 2; j >= 0; j--)
                p = p * (x - mid) + c[k][j];
            e = fabsl(x * p - erfl(x)) / erfl(x);
            worst = e > worst ? e : worst;
        }
    }
    fprintf(stderr, "largest relative error 2^%.1f\n",
            (double)log2l(worst));
    printf("    \"static const tl_ex_d8 tl_erf_r[%d][2] = {\\n\"\n", NTERMS);
    /* as powers of w = 4 t: the j-th coefficient / 4^j, exact */
    for (int j = 0; j < NTERMS; j++)
        for (int k = 0; k < PIECES; k += 2)
            printf("    \"    %s%a, %a%s\\n\"\n",
                   k == 0 ? "{{" : k == 8 ? " {" : "  ",
                   ldexp(c[k][j], -2 * j), ldexp(c[k + 1][j], -2 * j),
                   k == 6 ? "}," : k == 14 ? "}}," : ",");
    printf("    \"};\\n\"\n");
    return 0;
}
