/*
 * pipeline.c - the passes over the loop IR, by name, and the pipeline
 * that lowering runs: the passes in order, each on the result of the
 * one before.  A new pass is one line in `passes` (the pipeline runs
 * those marked so, in the order listed), and the IR golden tests can
 * run it by name (tests/unit/lir_tool.c).
 *
 * With TDSL_DEBUG containing "lower" in the environment, the function
 * is printed to stderr after lowering and after each pass.
 */
#include "codegen/codegen_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LFunc *run_simplify(TlSession *s, LFunc *f)
{
    LStmt *b = lir_simplify(s, f->body);
    return lir_func_with_body(s, f, b);
}

static LFunc *run_vectorize(TlSession *s, LFunc *f)
{
    LStmt *b = lir_vectorize(s, f->body);
    return lir_func_with_body(s, f, b);
}

static LFunc *run_accum(TlSession *s, LFunc *f)
{
    LStmt *b = lir_promote_accumulators(s, f);
    return lir_func_with_body(s, f, b);
}

/* In pipeline order.  fuse comes last: it fuses loops in the form
 * the C backend sees (constant bounds, the accumulators of
 * pass_accum.c in their blocks, the lets of pass_hoist.c). */
static const LPass passes[] = {
    {"flatten", lir_flatten, 1},
    {"simplify", run_simplify, 1},
    {"bound_tiles", lir_bound_tile_loops, 1},
    {"partition", lir_partition_loops, 1},
    {"bounds", lir_infer_bounds, 1},
    {"simplify", run_simplify, 1},
    {"vectorize", run_vectorize, 1},
    {"accum", run_accum, 1},
    {"unroll", lir_unroll, 1},
    {"stream", lir_stream_rows, 1},
    {"simplify", run_simplify, 1},
    {"hoist", lir_hoist, 1},
    {"simplify", run_simplify, 1},
    {"hoist", lir_hoist, 1},
    {"fuse", lir_fuse_loops, 1},
};

const LPass *lir_pass_find(const char *name)
{
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (!strcmp(passes[i].name, name))
            return &passes[i];
    return NULL;
}

static void log_pass(const char *pass, const LFunc *before, const LFunc *f)
{
    const char *d = getenv("TDSL_DEBUG");
    TlBuf b;

    if (!d || !strstr(d, "lower"))
        return;
    buf_init(&b);
    buf_printf(&b, "# after %s", pass);
    if (before == f) {
        buf_puts(&b, " (unchanged)\n");
    } else {
        buf_putc(&b, '\n');
        lir_print_func(&b, f);
    }
    fputs(b.s, stderr);
    buf_free(&b);
}

LFunc *lir_pipeline_before(TlSession *s, LFunc *f, const char *stop)
{
    log_pass("lowering", NULL, f);
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++) {
        LFunc *g;
        if (stop && !strcmp(passes[i].name, stop))
            break;
        if (!passes[i].in_pipeline)
            continue;
        g = passes[i].run(s, f);
        log_pass(passes[i].name, f, g);
        f = g;
    }
    return f;
}

LFunc *lir_pipeline(TlSession *s, LFunc *f)
{
    return lir_pipeline_before(s, f, NULL);
}
