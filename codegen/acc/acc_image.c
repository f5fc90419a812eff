/*
 * acc_image.c - tensors whose DRAM image is not row-major (acc.h,
 * AccImgRun): the `.image` runs compressed from a map of positions,
 * printed, parsed by the assembler, checked, and applied by the host
 * when it loads an input or reads an output.  A program then declares
 * each tensor in the order the code that reads (or writes) it wants,
 * so that laying out a kernel's inputs costs nothing on the device: a
 * host copies the data in once, as a real accelerator's driver does.
 *
 * Runs are two-level strided sequences (a transposed matrix's columns,
 * a window's rows over the channels) or constants (an image's
 * padding): a few lines for the images the routes read.
 */
#include "codegen/acc/acc_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT (1LL << 40)

static int same_val(double a, double b)
{
    return !memcmp(&a, &b, sizeof a);
}

int acc_img_runs(const int64_t *elem, const double *val, int64_t n,
                 AccImgRun **runs)
{
    AccImgRun *r = tl_xcalloc((size_t)n + 1, sizeof *r);
    int nr = 0;

    /* One level: the longest stride run from each position. */
    for (int64_t d = 0; d < n;) {
        AccImgRun *x = &r[nr++];
        int64_t k = 1;
        memset(x, 0, sizeof *x);
        x->reps = 1;
        x->step = 1;
        if (elem[d] < 0) {
            x->from = -1;
            x->v = val[d];
            while (d + k < n && elem[d + k] < 0 && same_val(val[d + k],
                                                            x->v))
                k++;
        } else {
            x->from = elem[d];
            if (d + 1 < n && elem[d + 1] >= 0) {
                x->step = elem[d + 1] - elem[d];
                while (d + k < n && elem[d + k] >= 0 &&
                       elem[d + k] - elem[d + k - 1] == x->step)
                    k++;
            }
        }
        x->count = k;
        d += k;
    }
    /* Two levels: equal runs that start a constant stride apart. */
    {
        int w = 0;
        for (int i = 0; i < nr;) {
            AccImgRun x = r[i];
            int j = i + 1;
            if (x.from >= 0 && j < nr && r[j].from >= 0 &&
                r[j].count == x.count && r[j].step == x.step) {
                x.rstep = r[j].from - x.from;
                while (j < nr && r[j].from >= 0 && r[j].count == x.count &&
                       r[j].step == x.step &&
                       r[j].from == x.from + (j - i) * x.rstep)
                    j++;
                x.reps = j - i;
            }
            r[w++] = x;
            i = j;
        }
        nr = w;
    }
    *runs = r;
    return nr;
}

void acc_img_print(TlBuf *out, const char *name, const AccImgRun *r, int n)
{
    for (int i = 0; i < n; i++) {
        if (r[i].from < 0) {
            buf_printf(out, ".image %s pad %.17g count %lld\n", name,
                       r[i].v, (long long)r[i].count);
            continue;
        }
        buf_printf(out, ".image %s from %lld step %lld count %lld", name,
                   (long long)r[i].from, (long long)r[i].step,
                   (long long)r[i].count);
        if (r[i].reps != 1)
            buf_printf(out, " reps %lld rstep %lld", (long long)r[i].reps,
                       (long long)r[i].rstep);
        buf_puts(out, "\n");
    }
}

static int64_t numel(const AccIO *io)
{
    int64_t n = 1;

    for (int d = 0; d < io->rank; d++)
        n *= io->shape[d];
    return n;
}

/* Calls f(ctx, position, element or -1, run) for every position of
 * io's image, in order. */
typedef void (*Visit)(void *ctx, int64_t pos, int64_t e, const AccImgRun *r);

static void visit(const AccIO *io, Visit f, void *ctx)
{
    int64_t pos = 0;

    for (int i = 0; i < io->nimgruns; i++) {
        const AccImgRun *r = &io->img[i];
        for (int64_t q = 0; q < r->reps; q++)
            for (int64_t c = 0; c < r->count; c++, pos++)
                f(ctx, pos, r->from < 0 ? -1
                                        : r->from + q * r->rstep +
                                              c * r->step, r);
    }
}

int acc_img_check(const AccIO *io, TlBuf *why)
{
    int64_t total = 0, n = numel(io);

    for (int i = 0; i < io->nimgruns; i++) {
        const AccImgRun *r = &io->img[i];
        int64_t lo = r->from, hi = r->from;
        if (r->count < 1 || r->reps < 1 || r->count > LIMIT ||
            r->reps > LIMIT / r->count || total > LIMIT) {
            buf_printf(why, "a run of %lld x %lld positions",
                       (long long)r->reps, (long long)r->count);
            return -1;
        }
        total += r->count * r->reps;
        if (r->from < 0)
            continue;
        /* Each term within 2^40, so that the corners do not overflow. */
        if (r->from > LIMIT || r->step < -LIMIT || r->step > LIMIT ||
            r->rstep < -LIMIT || r->rstep > LIMIT ||
            (r->step && r->count - 1 > LIMIT / llabs(r->step)) ||
            (r->rstep && r->reps - 1 > LIMIT / llabs(r->rstep))) {
            buf_printf(why, "a run's elements out of range");
            return -1;
        }
        /* Linear in both counters: the extremes are at the corners. */
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                int64_t e = r->from + a * (r->reps - 1) * r->rstep +
                            b * (r->count - 1) * r->step;
                lo = e < lo ? e : lo;
                hi = e > hi ? e : hi;
            }
        if (lo < 0 || hi >= n) {
            buf_printf(why, "a run names elements %lld..%lld of %lld",
                       (long long)lo, (long long)hi, (long long)n);
            return -1;
        }
    }
    if (total != io->nimg) {
        buf_printf(why, "its runs hold %lld positions, not the image's "
                   "%lld", (long long)total, (long long)io->nimg);
        return -1;
    }
    if (io->is_output) {
        /* Every element somewhere, to be read back. */
        unsigned char *seen;
        int64_t missing = -1;
        if (n > io->nimg) {
            buf_printf(why, "an output of %lld elements in an image of "
                       "%lld", (long long)n, (long long)io->nimg);
            return -1;
        }
        seen = tl_xcalloc((size_t)n + 1, 1);
        for (int i = 0; i < io->nimgruns; i++) {
            const AccImgRun *r = &io->img[i];
            for (int64_t q = 0; r->from >= 0 && q < r->reps; q++)
                for (int64_t c = 0; c < r->count; c++)
                    seen[r->from + q * r->rstep + c * r->step] = 1;
        }
        for (int64_t e = 0; e < n && missing < 0; e++)
            if (!seen[e])
                missing = e;
        free(seen);
        if (missing >= 0) {
            buf_printf(why, "element %lld of the output is in no run",
                       (long long)missing);
            return -1;
        }
    }
    return 0;
}

typedef struct Lay {
    const AccIO *io;
    const char *src;
    char *dst;
    size_t es;
} Lay;

static void lay_one(void *ctx, int64_t pos, int64_t e, const AccImgRun *r)
{
    Lay *l = ctx;

    if (e < 0)
        tl_dt_store_f64(l->io->dt, l->dst + l->es * (size_t)pos, r->v);
    else
        memcpy(l->dst + l->es * (size_t)pos, l->src + l->es * (size_t)e,
               l->es);
}

void acc_img_lay(const AccIO *io, const void *src, void *dst)
{
    Lay l = {io, src, dst, dt_size(io->dt)};

    visit(io, lay_one, &l);
}

typedef struct Unlay {
    const char *src;
    char *dst;
    size_t es;
    unsigned char *done;
} Unlay;

static void unlay_one(void *ctx, int64_t pos, int64_t e, const AccImgRun *r)
{
    Unlay *u = ctx;

    (void)r;
    if (e < 0 || u->done[e])
        return;
    u->done[e] = 1;
    memcpy(u->dst + u->es * (size_t)e, u->src + u->es * (size_t)pos, u->es);
}

void acc_img_unlay(const AccIO *io, const void *src, void *dst)
{
    Unlay u = {src, dst, dt_size(io->dt), NULL};

    u.done = tl_xcalloc((size_t)numel(io) + 1, 1);
    visit(io, unlay_one, &u);
    free(u.done);
}

/* --- the assembler's `.image` directive ------------------------------ */

static int word(Asm *A, const char *want)
{
    char w[16];
    const char *at = A->p;

    if (acc_asm_ident(A, w, sizeof w) && !strcmp(w, want))
        return 1;
    A->p = at;
    return 0;
}

static int number(Asm *A, const char *name, int64_t *v)
{
    if (!word(A, name)) {
        char what[64];
        snprintf(what, sizeof what, "'%s' and a number", name);
        return acc_asm_expected(A, what);
    }
    return acc_asm_expr(A, v);
}

int acc_asm_image(Asm *A)
{
    char name[64];
    const char *at = A->p;
    AccIO *io = NULL;
    AccImgRun r;

    memset(&r, 0, sizeof r);
    r.reps = 1;
    if (!acc_asm_ident(A, name, sizeof name))
        return acc_asm_expected(A, "the tensor's name");
    for (int i = 0; i < A->nio; i++)
        if (!strcmp(A->io[i].name, name))
            io = &A->io[i];
    if (!io || !io->nimg)
        return acc_asm_err(A, at, (int)strlen(name), DIAG_ACC_DIRECTIVE,
                           "'%s' is not declared before with an image "
                           "(.input/.output %s TYPE d[ADDR] image N)", name,
                           name);
    acc_asm_skip_ws(A);
    if (word(A, "pad")) {
        char *e;
        acc_asm_skip_ws(A);
        r.from = -1;
        r.v = strtod(A->p, &e);
        if (e == A->p)
            return acc_asm_expected(A, "the pad's value");
        A->p = e;
        if (number(A, "count", &r.count))
            return -1;
    } else {
        if (number(A, "from", &r.from) || number(A, "step", &r.step) ||
            number(A, "count", &r.count))
            return -1;
        if (r.from < 0)
            return acc_asm_err(A, at, 0, DIAG_ACC_DIRECTIVE,
                               "a run from element %lld", (long long)r.from);
        acc_asm_skip_ws(A);
        if (!acc_asm_at_end(A) &&
            (number(A, "reps", &r.reps) || number(A, "rstep", &r.rstep)))
            return -1;
    }
    if (!acc_asm_at_end(A))
        return acc_asm_expected(A, "the end of the line");
    if (r.count < 1 || r.reps < 1)
        return acc_asm_err(A, at, 0, DIAG_ACC_DIRECTIVE, "a run of %lld x "
                           "%lld positions", (long long)r.reps,
                           (long long)r.count);
    /* The array grows by doubling (its room is the next power of two
     * from 8): a window image has tens of thousands of runs, and one
     * realloc a run copied the array each time (quadratic; minutes
     * under AddressSanitizer, whose realloc always moves). */
    size_t n = (size_t)io->nimgruns;
    if (n >= 8 ? !(n & (n - 1)) : !n)
        io->img = tl_xrealloc(io->img, (n ? 2 * n : 8) * sizeof *io->img);
    io->img[io->nimgruns++] = r;
    return 0;
}
