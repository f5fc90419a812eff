/*
 * main.c - calling tdsl kernels compiled ahead of time from C.
 *
 * Build and run (tests/cli/aot_example.sh does this):
 *
 *   tdsl compile kernels.tdsl --kernel matmul -o matmul.so -o matmul.h
 *   tdsl compile kernels.tdsl --kernel bias_leaky -o bias_leaky.so \
 *       -o bias_leaky.h
 *   tdsl compile kernels.tdsl --kernel normalize -o normalize.so \
 *       -o normalize.h
 *   cc -std=c11 -Wall -Wextra -I. main.c -L. -l:matmul.so \
 *       -l:bias_leaky.so -l:normalize.so -Wl,-rpath,'$ORIGIN' -o main
 *   ./main
 *
 * Each kernel is one function, int tdsl_NAME(...): per tensor its data,
 * shape and strides (NULL: row-major), the scalars by value, and
 * TDSL_OK or an error code back (docs/c-abi.md).  The results are
 * compared with plain C loops.  A kernel's `assert` is checked by its
 * entry: normalize refuses a matrix that is not positive with
 * TDSL_ERR_ASSERT.
 */
#include "bias_leaky.h"
#include "matmul.h"
#include "normalize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { M = 37, K = 53, N = 70 };

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    failures += !ok;
}

/* A small deterministic generator, so the run is the same each time. */
static float next(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (float)((*state >> 8) & 0xffff) / 65536.0f - 0.5f;
}

static int close_to(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (fabsf(a[i] - b[i]) > 1e-5f * (1.0f + fabsf(b[i])))
            return 0;
    return 1;
}

/* Is t (N x M) the transpose of r (M x N)? */
static int transposed(const float *t, const float *r)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            if (fabsf(t[j * M + i] - r[i * N + j]) >
                1e-5f * (1.0f + fabsf(r[i * N + j])))
                return 0;
    return 1;
}

int main(void)
{
    static float A[M * K], B[K * N], Bt[N * K], C[M * N], ref[M * N];
    static float bias[N], Y[M * N], yref[M * N], Ct[N * M];
    const int64_t a_shape[2] = {M, K}, b_shape[2] = {K, N};
    const int64_t c_shape[2] = {M, N}, bias_shape[1] = {N};
    const int64_t bt_strides[2] = {1, K};   /* B stored transposed */
    const int64_t ct_strides[2] = {1, M};   /* C written transposed */
    const int step = 2, ny = (N + step - 1) / step;
    const int64_t y_shape[2] = {M, ny}, bad_shape[2] = {M, N + 1};
    unsigned seed = 1;

    for (int i = 0; i < M * K; i++)
        A[i] = next(&seed);
    for (int i = 0; i < K * N; i++)
        B[i] = next(&seed);
    for (int i = 0; i < N; i++)
        bias[i] = next(&seed);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            Bt[j * K + k] = B[k * N + j];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++)
                s += A[i * K + k] * B[k * N + j];
            ref[i * N + j] = s;
        }

    check(tdsl_matmul(A, a_shape, NULL, B, b_shape, NULL, C, c_shape,
                      NULL) == TDSL_OK && close_to(C, ref, M * N),
          "matmul, row-major");
    check(tdsl_matmul(A, a_shape, NULL, Bt, b_shape, bt_strides, C,
                      c_shape, NULL) == TDSL_OK && close_to(C, ref, M * N),
          "matmul, B given by strides over its transpose");
    check(tdsl_matmul(A, a_shape, NULL, B, b_shape, NULL, Ct, c_shape,
                      ct_strides) == TDSL_OK && transposed(Ct, ref),
          "matmul, C written by strides into its transpose");
    check(tdsl_matmul(A, a_shape, NULL, B, b_shape, NULL, C, bad_shape,
                      NULL) == TDSL_ERR_SHAPE,
          "matmul refuses an output of the wrong shape");
    check(tdsl_matmul(A, b_shape, NULL, B, b_shape, NULL, C, c_shape,
                      NULL) == TDSL_ERR_SHAPE,
          "matmul refuses inputs whose sizes disagree");

    for (int i = 0; i < M; i++)
        for (int j = 0; j < ny; j++) {
            float t = ref[i * N + j * step] + bias[j * step];
            yref[i * ny + j] = t > 0 ? t : 0.5f * t;
        }
    check(tdsl_bias_leaky(ref, c_shape, NULL, bias, bias_shape, NULL, 0.5f,
                          step, Y, y_shape, NULL) == TDSL_OK &&
              close_to(Y, yref, M * ny),
          "bias_leaky with alpha 0.5 and step 2");
    check(tdsl_bias_leaky(ref, c_shape, NULL, bias, bias_shape, NULL, 0.5f,
                          1, Y, y_shape, NULL) == TDSL_ERR_SHAPE,
          "bias_leaky's output shape follows its scalar 'step'");

    /* normalize's precondition: every element positive. */
    for (int i = 0; i < M; i++) {
        float s = 0;
        for (int j = 0; j < N; j++)
            s += C[i * N + j] = ref[i * N + j] * ref[i * N + j] + 1.0f;
        for (int j = 0; j < N; j++)
            yref[i * N + j] = C[i * N + j] / s;
    }
    check(tdsl_normalize(C, c_shape, NULL, Y, c_shape, NULL) == TDSL_OK &&
              close_to(Y, yref, M * N),
          "normalize of a positive matrix");
    C[3 * N + 5] = 0.0f;
    check(tdsl_normalize(C, c_shape, NULL, Y, c_shape, NULL) ==
              TDSL_ERR_ASSERT,
          "normalize refuses a matrix with a zero (its assert)");
    return failures ? 1 : 0;
}
