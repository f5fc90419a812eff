/*
 * diffcase.h - one differential case: a checked kernel run in the
 * reference interpreter and on a compiled target with the same
 * inputs, the outputs compared bit for bit (tests/random/random.c).
 */
#ifndef TL_TESTS_RANDOM_DIFFCASE_H
#define TL_TESTS_RANDOM_DIFFCASE_H

#include "gen.h"

typedef struct DcOpts {
    const char *target;     /* "cpu" (later "accel") */
    const char *file;       /* -f: a program whose kernels are tested */
    int verbose;            /* print every case's program */
    int timeout;            /* seconds per case before it counts as hung */
    uint64_t first_seed;    /* the first case's seed */
} DcOpts;

/* Once per process: registers the compiled targets, installs the
 * handlers that report a crash or a hang with the case's seed. */
void dc_init(const DcOpts *o);

/* Checks generated program p, gives kernel `k` a random schedule from
 * rng, runs both ways and compares; prints a report on failure.
 * Returns 0 (passed) or 1. */
int dc_run_generated(const DcOpts *o, uint64_t seed, RgRng *rng,
                     const RgProgram *p);

/* Runs every kernel that o->file's script calls, with the inputs of
 * its first call, under a random schedule made from seed (seed ==
 * the first seed: also under the file's own schedule).  Returns the
 * number of failures. */
int dc_run_file(const DcOpts *o, uint64_t seed);

#endif
