# cpu_keep.sh - the stage buffers of a kernel's top level (compute_root)
# are blocks the kernel keeps between calls (codegen/c/emit_keep.c:
# tl_take and tl_give), not malloc'd and freed every call: with glibc
# told to give every freed block back to the system (as it does on its
# own depending on what the process freed before), a kernel whose
# stage buffer is 1 MB faulted its 256 pages in again on every call.
# Here 40 calls of the ahead-of-time kernel fault fewer than 8 pages
# each; a 40 MB buffer, above what a kernel keeps (32 MiB), is freed
# (its pages fault in again); two threads calling the kernel at once
# both get the right results;
# a kernel with buffers inside its loops still frees those there; the
# C builds warning-free with gcc and, where installed, clang.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null 2>&1 || exit 77

cat >k.tdsl <<'EOT'
kernel two(X: f32[N]) -> (Y: f32[N]) {
    T[i] = X[i] * 2.0
    Y[i] = T[i] + 1.0
}

schedule two for cpu {
    T.compute_root()
}
EOT
"$TDSL" compile k.tdsl --kernel two --target cpu -o k.c -o k.h 2>err ||
    fail "compile: $(cat err)"
grep -q '^    float \*T____[0-9]* = tl_take(' k.c || fail "T is not a kept block"
grep -q '^    tl_give(T____[0-9]*);' k.c || fail "T is not given back"
grep -q 'T____[0-9]* = malloc(\|free(T____' k.c && fail "T still goes to malloc"
# Built here without sanitizers: under ASan the blocks are malloc's
# (so that it sees reads past a buffer), and this test counts faults.
for c in cc clang; do
    command -v $c >/dev/null 2>&1 || continue
    $c -std=c11 -O2 -march=native -fopenmp -Wall -Wextra -Werror -shared -fPIC k.c \
        -o k_$c.so -lm 2>err || fail "$c: $(cat err)"
done
cp k_cc.so k.so
cat >main.c <<'EOT'
#define _POSIX_C_SOURCE 200809L
#include "k.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

enum { N = 262144, CALLS = 40, BIG = 10485760 };

static long faults(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

/* CALLS calls on inputs of its own; the number of wrong outputs. */
static void *calls(void *arg)
{
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    int64_t n[1] = {N};
    long bad = 0, seed = (long)(size_t)arg;

    for (int c = 0; c < CALLS; c++) {
        for (int i = 0; i < N; i++)
            x[i] = (float)((i + c + seed) % 1000);
        if (tdsl_two(x, n, NULL, y, n, NULL) != TDSL_OK)
            bad++;
        for (int i = 0; i < N; i++)
            bad += y[i] != 2 * x[i] + 1;
    }
    free(x);
    free(y);
    return (void *)(size_t)bad;
}

int main(void)
{
    float *x = calloc(N, sizeof *x), *y = calloc(N, sizeof *y);
    int64_t n[1] = {N};
    pthread_t t[2];
    void *r[2];
    long f;

    tdsl_two(x, n, NULL, y, n, NULL);   /* the first call: its faults */
    f = faults();
    for (int c = 0; c < CALLS; c++)
        tdsl_two(x, n, NULL, y, n, NULL);
    f = faults() - f;
    printf("faults a call: %.1f\n", (double)f / CALLS);
    {   /* 40 MB: given back (10240 pages a call) */
        int64_t nb[1] = {BIG};
        float *bx = calloc(BIG, sizeof *bx), *by = calloc(BIG, sizeof *by);
        long fb;
        tdsl_two(bx, nb, NULL, by, nb, NULL);
        fb = faults();
        for (int c = 0; c < 3; c++)
            tdsl_two(bx, nb, NULL, by, nb, NULL);
        fb = faults() - fb;
        printf("faults a call at 40 MB: %.1f\n", (double)fb / 3);
        free(bx);
        free(by);
        if (fb < 3 * 5000)
            return 1;
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, calls, (void *)(size_t)(i * 7));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], &r[i]);
    printf("wrong: %ld %ld\n", (long)(size_t)r[0], (long)(size_t)r[1]);
    free(x);
    free(y);
    return f >= 8 * CALLS || r[0] || r[1];
}
EOT
cc -std=c11 -O2 -Wall -Wextra -Werror -I. main.c -L. -l:k.so \
    -Wl,-rpath,"$TMP" -lpthread -o main 2>err ||
    fail "building main.c: $(cat err)"
MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=0 ./main >out 2>&1 ||
    fail "main: $(cat out)"

# Inside a loop a buffer is the stack's or malloc's, freed there.
cat >r.tdsl <<'EOT'
kernel rows(X: f32[M, N]) -> (Y: f32[M, N]) {
    E[i, j] = X[i, j] * 3.0
    Y[i, j] = E[i, j] - 1.0
}

schedule rows for cpu {
    E.compute_at(Y, i)
}
EOT
"$TDSL" compile r.tdsl --kernel rows --target cpu -o r.c 2>err ||
    fail "compile rows: $(cat err)"
grep -q 'tl_take(((size_t)' r.c && fail "a buffer inside a loop is kept"
grep -q '__sb) free(' r.c || fail "rows: no buffer freed in its loop"
exit 0
