/*
 * cmd_plan.c - `tdsl lower FILE --kernel K --target accel --explain
 * [--machine M] [--size NAME=N]... [--simulate]`: the accel layout
 * planner's choice for every tensor of the kernel, with its reasons
 * (codegen/acc/plan.h), and the program code generation emits for the
 * kernel timed as the simulator times it (the plan's estimate of the
 * whole kernel); with --simulate, the plan's conversions (and
 * the naive plan's) emitted and run on the simulator (plan_sim.c).
 * Size variables the shapes leave open are given with --size; the
 * layouts of the kernel's accel schedule are kept.
 */
#include "cli/cli.h"
#include "codegen/acc/plan.h"

#include <stdlib.h>
#include <string.h>

static const TlSchedInfo *accel_schedule(const TlKernelInfo *k)
{
    for (int i = 0; i < k->nschedules; i++)
        if (k->schedules[i]->target &&
            !strcmp(k->schedules[i]->target, "accel") &&
            !k->schedules[i]->variant)
            return k->schedules[i];
    return NULL;
}

int cli_lower_accel(TlSession *s, TlKernelInfo *k, const CliKernelArgs *a)
{
    TlLoc at = k->outputs && k->noutputs ? k->outputs[0]->loc
                                         : (TlLoc){-1, 0, 0, 0, 0};
    const AccMachine *m = cli_check_machine(s);
    int64_t *sizes = tl_xcalloc((size_t)k->nsizes + 1, sizeof *sizes);
    int status = EXIT_OK;
    AccPlan *p;
    TlBuf b;

    for (int i = 0; i < a->nsizes && status == EXIT_OK; i++) {
        const char *eq = strchr(a->sizes[i], '=');
        int found = 0;
        char *end;
        long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
        if (!eq || eq == a->sizes[i] || end == eq + 1 || *end || v < 1) {
            status = cli_usage("lower: --size wants NAME=N with N at least "
                               "1, not '%s'", a->sizes[i]);
            break;
        }
        for (int j = 0; j < k->nsizes; j++)
            if (strlen(k->sizes[j]->name) == (size_t)(eq - a->sizes[i]) &&
                !strncmp(k->sizes[j]->name, a->sizes[i],
                         (size_t)(eq - a->sizes[i]))) {
                sizes[j] = v;
                found = 1;
            }
        if (!found)
            status = cli_usage("lower: '%.*s' is not a size of '%s'",
                               (int)(eq - a->sizes[i]), a->sizes[i],
                               k->name);
    }
    for (int j = 0; j < k->nsizes && status == EXIT_OK; j++)
        if (!sizes[j])
            status = cli_usage("lower: the size '%s' of '%s' is not known: "
                               "give it with --size %s=N",
                               k->sizes[j]->name, k->name,
                               k->sizes[j]->name);
    if (status != EXIT_OK || !m) {
        free(sizes);
        return status != EXIT_OK ? status : EXIT_USAGE;
    }
    p = acc_plan_kernel(s, m, k, accel_schedule(k), sizes, at);
    if (p)
        acc_cg_time_kernel(s, k, m, sizes, p);
    if (!p) {
        /* The planner cannot place it (said above), but a route may
         * compile it (the matmul route streams operands no layout
         * holds): its program and its own model all the same. */
        AccTiming t;
        const char *route = NULL;
        double est = 0;
        if (acc_cg_time_program(s, k, m, sizes, &t, &route, &est) == 0) {
            buf_init(&b);
            buf_printf(&b, "layout plan of kernel %s on machine %s: "
                       "none (the error it reports)\n", k->name, m->name);
            acc_plan_explain_program(&b, route, &t, est);
            cli_put(&b);
            buf_free(&b);
        }
        free(sizes);
        return EXIT_DIAG;
    }
    free(sizes);
    buf_init(&b);
    acc_plan_explain(&b, p);
    if (a->simulate)
        acc_plan_explain_sim(&b, p);
    status = cli_put(&b);
    buf_free(&b);
    return status;
}
