/*
 * cmd_sim.c - `tdsl sim K.tam|K.s [--machine M] [--in NAME=A.npy]...
 * [--out NAME=C.npy]... [--stats] [--lenient] [--expand]
 * [--trace OUT.svg]`: runs an
 * accelerator program on the simulator with real data.  Inputs go to
 * DRAM where the program's `.input` lines say, outputs are read back
 * from where `.output` says.  --lenient counts early reads instead of
 * stopping at the first; --expand runs `.rep` blocks expanded instead
 * of compressed (same results and cycles, slower); --trace draws the
 * run's timeline (each unit, link and DRAM channel busy, stalled or
 * idle) as SVG.
 */
#include "cli/cli.h"
#include "codegen/acc/acc.h"
#include "interp/interp.h"

#include <stdio.h>
#include <string.h>

#define MAX_IO 64

static int split_eq(const char *a, char *name, size_t n, const char **file)
{
    const char *eq = strchr(a, '=');
    if (!eq || eq == a || !eq[1] || (size_t)(eq - a) >= n)
        return -1;
    memcpy(name, a, (size_t)(eq - a));
    name[eq - a] = 0;
    *file = eq + 1;
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    const char *in = NULL, *mach = NULL, *trace = NULL;
    const char *ins[MAX_IO], *outs[MAX_IO];
    int nin = 0, nout = 0, stats = 0, lenient = 0, expand = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--in") || !strcmp(a, "--out") ||
             !strcmp(a, "--machine")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (a[2] == 'm')
                mach = v;
            else if (a[2] == 'i' && nin < MAX_IO)
                ins[nin++] = v;
            else if (a[2] == 'o' && nout < MAX_IO)
                outs[nout++] = v;
            else
                return cli_usage("sim: at most %d --in and --out", MAX_IO);
            if (a[2] != 'm' && !strchr(v, '='))
                return cli_usage("sim: %s wants NAME=FILE.npy", a);
        } else if (!strcmp(a, "--trace") && i + 1 < argc) {
            trace = argv[++i];
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (!strcmp(a, "--lenient")) {
            lenient = 1;
        } else if (!strcmp(a, "--expand")) {
            expand = 1;
        } else if (cli_is_option(a)) {
            return cli_usage("sim: unknown option '%s'", a);
        } else if (in) {
            return cli_usage("sim: one program at a time");
        } else {
            in = a;
        }
    }
    if (!in)
        return cli_usage("sim: which program? (tdsl sim K.tam --in A=a.npy "
                         "--out C=c.npy)");
    TlSession *s = cli_session();
    int rc = EXIT_DIAG;
    AccSim *sim = NULL;
    TlBuf err, out;
    buf_init(&err);
    buf_init(&out);
    const AccMachine *m = cli_machine(s, mach);
    if (mach && !m)
        goto done;
    AccProgram *p = cli_load_program(s, in, m, !expand);
    if (!p)
        goto done;
    if (expand)
        p = acc_expand(s, p);
    sim = acc_sim_new(s, p, !lenient);
    if (trace)
        acc_sim_trace(sim);
    for (int i = 0; i < nin; i++) {
        char name[128], e[400];
        const char *file;
        if (split_eq(ins[i], name, sizeof name, &file)) {
            rc = cli_usage("sim: --in wants NAME=FILE.npy");
            goto done;
        }
        TlTensor *t = tl_npy_read(file, e, sizeof e);
        if (!t) {
            fprintf(stderr, "tdsl: %s\n", e);
            goto done;
        }
        int bad = acc_sim_set_input(sim, name, t, &err);
        tl_tensor_unref(t);
        if (bad) {
            fprintf(stderr, "tdsl: %s\n", err.s);
            goto done;
        }
    }
    for (int i = 0; i < p->nio; i++) {
        /* An input the program asserts the data of must be given: the
         * zeros it would read otherwise are not that data. */
        const AccIO *io = &p->io[i];
        int given = 0;
        size_t nl = strlen(io->name);
        for (int j = 0; j < nin && io->has_hash && !given; j++)
            given = !strncmp(ins[j], io->name, nl) && ins[j][nl] == '=';
        if (io->has_hash && !given) {
            fprintf(stderr, "tdsl: the program asserts the data of input "
                    "'%s' (.assert hash(%s) == %lld): give it with --in "
                    "%s=FILE.npy\n", io->name, io->name,
                    (long long)io->hash, io->name);
            goto done;
        }
    }
    if (acc_sim_run(sim))
        goto done;
    for (int i = 0; i < nout; i++) {
        char name[128], e[400];
        const char *file;
        if (split_eq(outs[i], name, sizeof name, &file)) {
            rc = cli_usage("sim: --out wants NAME=FILE.npy");
            goto done;
        }
        err.len = 0;
        TlTensor *t = acc_sim_get_output(sim, name, &err);
        if (!t) {
            fprintf(stderr, "tdsl: %s\n", err.s);
            goto done;
        }
        int bad = tl_npy_write(file, t, e, sizeof e);
        tl_tensor_unref(t);
        if (bad) {
            fprintf(stderr, "tdsl: %s\n", e);
            goto done;
        }
    }
    if (trace) {
        FILE *f = fopen(trace, "w");
        TlBuf svg;
        int ok;
        buf_init(&svg);
        acc_sim_trace_svg(&svg, sim);
        ok = f && fwrite(svg.s, 1, svg.len, f) == svg.len;
        ok = f && fclose(f) == 0 && ok;
        buf_free(&svg);
        if (!ok) {
            fprintf(stderr, "tdsl: cannot write '%s'\n", trace);
            goto done;
        }
    }
    if (stats)
        acc_sim_print_stats(&out, sim);
    rc = cli_put(&out);
done:
    acc_sim_free(sim);
    buf_free(&err);
    buf_free(&out);
    tl_session_free(s);
    return rc;
}
