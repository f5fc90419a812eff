/*
 * main.c - tests/cli/cpu_pool.sh: an ahead-of-time kernel with
 * parallel loops (pool.tdsl) called many times from two threads at
 * once, each with its own matrices and sizes: every result must be the
 * plain C loops' (small integers, so every sum is exact in f32).  A
 * pool that let a call return before its chunks were done, ran a chunk
 * twice or for the wrong job, or lost one, gives a wrong Y or S here;
 * one that deadlocks hangs the test.
 */
#include "k.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { CALLS = 1000, MAXM = 167, MAXN = 231 };

typedef struct {
    int id, bad, calls;
} Host;

static void *host(void *arg)
{
    Host *h = arg;
    static float bufs[2][3][MAXM * MAXN];
    float *X = bufs[h->id][0], *Y = bufs[h->id][1], *S = bufs[h->id][2];

    for (int c = 0; c < h->calls; c++) {
        int64_t m = 1 + (c * 7 + h->id * 13) % MAXM;
        int64_t n = 1 + (c * 11 + h->id * 5) % MAXN;
        int64_t xs[2] = {m, n}, ss[1] = {m};
        for (int64_t i = 0; i < m * n; i++)
            X[i] = (float)((i * 31 + c + h->id) % 17) - 8.0f;
        if (tdsl_pool(X, xs, NULL, Y, xs, NULL, S, ss, NULL) != TDSL_OK) {
            h->bad++;
            continue;
        }
        for (int64_t i = 0; i < m; i++) {
            float s = 0;
            for (int64_t j = 0; j < n; j++) {
                float x = X[i * n + j], y = 3 * x + 2;
                h->bad += Y[i * n + j] != y;
                s += y;
            }
            h->bad += S[i] != s;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    /* Fewer calls under ThreadSanitizer, which sees a race in one. */
    int calls = argc > 1 ? atoi(argv[1]) : CALLS;
    Host h[2] = {{0, 0, calls}, {1, 0, calls}};
    pthread_t t;

    if (pthread_create(&t, NULL, host, &h[1]))
        return 2;
    host(&h[0]);
    pthread_join(t, NULL);
    printf("%d %d\n", h[0].bad, h[1].bad);
    return h[0].bad || h[1].bad;
}
