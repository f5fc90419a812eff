/*
 * check.h - the checks shared by the unit tests (tests/unit/test_*.c):
 * a check that fails prints where and what, and is counted; main ends
 * with `return check_done();`.  Each test is one program, so the state
 * is static.  This is a header, not a test: the Makefile and
 * tests/run.sh only take the .c files of this folder.
 *
 * A test whose checks run over many values stops after some failures
 * instead of flooding the output: #define CHECK_MAX_FAILURES N before
 * including this header.
 */
#ifndef TL_TESTS_CHECK_H
#define TL_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

/* Ends a test: prints "N checks failed" when some did; the exit status
 * for main (0 or 1). */
static inline int check_done(void)
{
    if (check_failures) {
        fflush(stdout);
        fprintf(stderr, "%d checks failed\n", check_failures);
    }
    return check_failures != 0;
}

/* Counts one failed check; a test's own helpers call it after printing
 * what failed. */
static inline void check_failed(void)
{
    check_failures++;
#ifdef CHECK_MAX_FAILURES
    if (check_failures > CHECK_MAX_FAILURES)
        exit(check_done());
#endif
}

/* Messages go to stderr after what the test printed so far, so that
 * they keep their order in a log of both. */
static inline void check_at(int ok, const char *file, int line,
                            const char *what)
{
    if (ok)
        return;
    fflush(stdout);
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    check_failed();
}

/* got must equal want (NULL equals nothing).  One-line texts print on
 * one line each, aligned; longer ones between markers. */
static inline void check_str_at(const char *file, int line, const char *got,
                                const char *want)
{
    if (got && want && !strcmp(got, want))
        return;
    got = got ? got : "(null)";
    want = want ? want : "(null)";
    fflush(stdout);
    if (strchr(got, '\n') || strchr(want, '\n'))
        fprintf(stderr, "%s:%d: got\n%s\n--- want\n%s\n---\n", file, line,
                got, want);
    else
        fprintf(stderr, "%s:%d: got  '%s'\n%*swant '%s'\n", file, line, got,
                (int)(strlen(file) + 6), "", want);
    check_failed();
}

#define CHECK(c) check_at(!!(c), __FILE__, __LINE__, #c)
#define CHECK_STR(got, want) check_str_at(__FILE__, __LINE__, (got), (want))

#endif
