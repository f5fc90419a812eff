/*
 * gen.h - the random program and schedule generators of the random
 * differential test (tests/random/random.c).
 *
 * rg_program makes a random but valid kernel as tdsl text: several
 * stages over a few size variables, pointwise math on every dtype the
 * cpu backend compiles, broadcasts, transposes, stencils read through
 * zero_pad, clamp_edge, clamped indices or select guards, reductions
 * (sum, prod, max, min over one or more variables; argmax, argmin
 * over one), and outputs that
 * may be smaller than the inputs (valid stencils).  It carries its own
 * bounds model so that every read is legal; a program the checker
 * refuses is a bug of the generator, reported as a failure.
 *
 * rg_schedule makes a random schedule for any checked kernel (the
 * generated ones, the examples, the standard library) from its checked
 * pipeline, using only what the target applies today; a schedule the
 * backend refuses is reported as a failure too, so the generator and
 * the backend are kept in step.  Both depend on nothing but the seed.
 */
#ifndef TL_TESTS_RANDOM_GEN_H
#define TL_TESTS_RANDOM_GEN_H

#include "lang/lang.h"

#include <stdint.h>

/* splitmix64: the same sequence on every platform. */
typedef struct RgRng {
    uint64_t state;
} RgRng;

uint64_t rg_next(RgRng *r);
/* Uniform in 0 .. n - 1 (n >= 1). */
int rg_below(RgRng *r, int n);
/* 1 with probability pct / 100. */
int rg_chance(RgRng *r, int pct);

enum { RG_MAX_INPUTS = 4 };

/* A generated program: its text (kernel `k` and maybe helper
 * kernels), and the inputs a call needs. */
typedef struct RgProgram {
    TlBuf text;
    int ninputs;
    TlDType dtype[RG_MAX_INPUTS];
    int rank[RG_MAX_INPUTS];
    int64_t shape[RG_MAX_INPUTS][TL_MAX_RANK];
    /* Inputs of small integers only (-4 .. 4): sums of products of
     * them and of the generator's constants are exact in f32 in any
     * order (a target that reassociates agrees bit for bit; a sum of
     * -0 terms is -0 everywhere, sums starting at -0). */
    int small_ints;
    /* gen_accel.c: an elementwise kernel (its route follows random
     * distributes and layouts), its output's extents. */
    int accel_ew;
    int out_rank;
    int64_t out_ext[TL_MAX_RANK];
    /* gen_accel.c: a reduction the layout route may take (max, min, or
     * a sum of no product: a product of two reads may be the matrix
     * unit's), the extents of its reduced axes r, q. */
    int accel_red;
    int red_rank;
    int64_t red_ext[2];
    /* gen_accel.c: f32 outputs may differ from the interpreter's by
     * this many units in the last place (a division is a reciprocal
     * then a product on accel: two roundings, SPEC 7). */
    int ulps;
    /* gen_accel.c: a construct the target may refuse; a clean
     * ACC_CG_UNSUPPORTED error passes, and so does a run that
     * agrees with the interpreter, but never a crash or another
     * error. */
    int may_refuse;
} RgProgram;

/* Fills p (buf_free(&p->text) when done) from rng. */
void rg_program(RgRng *rng, RgProgram *p);
/* The same for the accel target (gen_accel.c): only kernels its code
 * generation takes. */
void rg_program_accel(RgRng *rng, RgProgram *p);

/* A random accel schedule for p (an accel_ew or accel_red kernel `k`
 * with output `out`) on a machine of nlevels levels named name[] with
 * fan-outs fan[], lm long words a PE: one or more distributes of out's
 * axes (and a reduction's reduced axes) over the levels (and W, S)
 * that divide them, or the same as a compact `layout out` (or, the
 * whole iteration space, `layout in0`), sometimes with a `layout in0`
 * of its own that the program converts, every place fitting a PE's
 * memory; appended to src.  Nothing when p is neither or by chance. */
void rg_accel_schedule(RgRng *rng, const RgProgram *p, int nlevels,
                       const char *const *name, const int *fan,
                       int64_t lm, TlBuf *src);

/* What the target applies (the cpu backend today), and the shapes of
 * the call the schedule will run with: shape[i] the extents of the
 * kernel's input i (NULL, or nin 0: unknown), from which `bound`
 * directives take the stages' domains as constants. */
typedef struct RgTarget {
    const char *name;       /* "cpu" */
    int nin;
    const int64_t *shape[16];
} RgTarget;

/* Appends `schedule NAME for TARGET { ... }` for checked kernel k to
 * out; name is how the schedule names the kernel (a dotted name for an
 * imported one).  Returns the number of directives written (0: an
 * empty schedule, the default). */
int rg_schedule(RgRng *rng, const RgTarget *t, TlKernelInfo *k,
                const char *name, TlBuf *out);

#endif
