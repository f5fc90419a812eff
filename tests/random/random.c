/*
 * random.c - the random differential test: random kernels (gen.h)
 * under random valid schedules, run in the reference interpreter and
 * on a compiled target, whose outputs must be the same bits.
 *
 *   build/tests/random [-n COUNT] [-s SEED] [-j JOBS] [-t TARGET] [-v]
 *   build/tests/random -f FILE.tdsl [-n SCHEDULES] ...   (tests/diff)
 *
 * With -t accel the kernels are those the accel target compiles
 * (gen_accel.c), run on the simulator of machine tiny or test (picked
 * by the seed).  Case i uses seed SEED + i; everything about it
 * (program, schedule, inputs) follows from that seed, so `-s SEED -n 1`
 * replays it (the environment variables TDSL_RANDOM_SEED,
 * TDSL_RANDOM_COUNT and TDSL_RANDOM_JOBS give the defaults).  A failure
 * prints the seed, the program with its schedule and what went wrong; a
 * crash or a hang (TDSL_RANDOM_TIMEOUT seconds, default 120) prints the
 * same before the worker dies.  A program the checker refuses, a
 * schedule the target refuses and a run-time error are failures too:
 * the generators promise valid programs.
 *
 * The comparison is exact: the same bits for every element, except
 * that any NaN equals any NaN (NaN payloads are not part of the
 * language).  No schedule made here reassociates a reduction (SPEC
 * 10.5), so there is no tolerance, but for accel's divisions and
 * square roots, two roundings there (within 2 ulp, gen.h's ulps), and
 * the sign of a zero on accel.  An accel kernel made to hold something
 * the target may refuse passes when the target refuses it by name
 * (ACC_CG_UNSUPPORTED) or runs it right.
 *
 * Each case runs in a process of its own, JOBS at a time; compiled
 * kernels go to a fresh cache folder that is removed at the end
 * (TDSL_RANDOM_KEEP_CACHE: the usual one).  Kernels are compiled with
 * the target's flags, then TDSL_CFLAGS_EXTRA (the tests give -Wall
 * -Werror), then -O2, since compiling is most of the time of a case
 * and -O3 takes seconds on unrolled, vectorized loops
 * (TDSL_RANDOM_OPT gives another level; empty: the target's own
 * -O3).  Exit status: 0 when every case passed.
 */
#include "gen.h"
#include "diffcase.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int64_t env_int(const char *name, int64_t dflt)
{
    const char *v = getenv(name);

    return v && *v ? strtoll(v, NULL, 0) : dflt;
}

static double now(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void usage(void)
{
    fprintf(stderr, "usage: random [-n COUNT] [-s SEED] [-j JOBS] "
            "[-t TARGET] [-v] [-f FILE.tdsl]\n");
    exit(2);
}

/* One random case; 0 passed, 1 failed. */
static int random_case(const DcOpts *o, uint64_t seed)
{
    RgRng r = {seed};
    RgProgram p;
    int rc;

    if (!strcmp(o->target, "accel"))
        rg_program_accel(&r, &p);
    else
        rg_program(&r, &p);
    rc = dc_run_generated(o, seed, &r, &p);
    buf_free(&p.text);
    return rc;
}

/* Runs one case in a child process, so that a crash or a hang ends
 * only that case. */
static pid_t start_case(const DcOpts *o, uint64_t seed)
{
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid != 0)
        return pid;
    {
        int rc = o->file ? dc_run_file(o, seed) != 0 : random_case(o, seed);
        fflush(stdout);
        _exit(rc);
    }
}

/* Runs cases seed .. seed + n - 1, at most jobs at a time; returns
 * the number that failed. */
static int run_cases(const DcOpts *o, uint64_t seed, int n, int jobs)
{
    pid_t pids[64];
    uint64_t seeds[64];
    int running = 0, fails = 0, next = 0;

    if (jobs > 64)
        jobs = 64;
    while (next < n || running) {
        int st;
        pid_t pid;
        if (next < n && running < jobs && fails < 20) {
            pid = start_case(o, seed + (uint64_t)next);
            if (pid < 0) {
                perror("random: fork");
                return fails + 1;
            }
            pids[running] = pid;
            seeds[running++] = seed + (uint64_t)next++;
            continue;
        }
        if (next < n && fails >= 20) {
            printf("random: stopping after %d failures\n", fails);
            n = next;
        }
        if (!running)
            break;
        while ((pid = wait(&st)) < 0 && errno == EINTR)
            ;
        if (pid < 0)
            break;
        for (int i = 0; i < running; i++) {
            if (pids[i] != pid)
                continue;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fails++;
                if (!WIFEXITED(st))
                    printf("random: FAIL seed %llu: killed by signal %d\n",
                           (unsigned long long)seeds[i], WTERMSIG(st));
            }
            pids[i] = pids[running - 1];
            seeds[i] = seeds[--running];
            break;
        }
    }
    return fails;
}

int main(int argc, char **argv)
{
    DcOpts o;
    uint64_t seed = (uint64_t)env_int("TDSL_RANDOM_SEED", 1);
    int n = (int)env_int("TDSL_RANDOM_COUNT", 100);
    int jobs = (int)env_int("TDSL_RANDOM_JOBS", 1), c, fails = 0;
    char cache[] = "/tmp/tdsl-random.XXXXXX";
    double t0 = now();

    memset(&o, 0, sizeof o);
    o.target = "cpu";
    o.timeout = (int)env_int("TDSL_RANDOM_TIMEOUT", 120);
    while ((c = getopt(argc, argv, "n:s:j:t:f:v")) != -1) {
        switch (c) {
        case 'n': n = atoi(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'j': jobs = atoi(optarg); break;
        case 't': o.target = optarg; break;
        case 'f': o.file = optarg; break;
        case 'v': o.verbose = 1; break;
        default: usage();
        }
    }
    if (optind != argc || n < 0 || jobs < 1)
        usage();
    {
        const char *opt = getenv("TDSL_RANDOM_OPT");
        const char *extra = getenv("TDSL_CFLAGS_EXTRA");
        char flags[512];
        if (!opt)
            opt = "-O2";
        if (*opt) {
            snprintf(flags, sizeof flags, "%s %s", extra ? extra : "", opt);
            setenv("TDSL_CFLAGS_EXTRA", flags, 1);
        }
    }
    if (!getenv("TDSL_RANDOM_KEEP_CACHE")) {
        if (!mkdtemp(cache)) {
            perror("random: mkdtemp");
            return 2;
        }
        setenv("XDG_CACHE_HOME", cache, 1);
    }
    o.first_seed = seed;
    dc_init(&o);
    fails = run_cases(&o, seed, n, jobs);
    if (!getenv("TDSL_RANDOM_KEEP_CACHE")) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
        if (system(cmd) != 0)
            fprintf(stderr, "random: could not remove %s\n", cache);
    }
    printf("random: %d %s (seeds %llu..%llu, target %s, %d jobs): %d "
           "failed, %.1f s\n", n, o.file ? "schedules" : "cases",
           (unsigned long long)seed,
           (unsigned long long)(seed + (uint64_t)(n ? n - 1 : 0)), o.target,
           jobs, fails, now() - t0);
    return fails != 0;
}
