/*
 * cmd_layout.c - `tdsl layout`: draw where a tensor's elements live on
 * the accelerator, and what converting it to another layout costs
 * (codegen/acc/layout.h).
 *
 *   tdsl layout --shape f32[128,64] --layout TEXT [options]
 *   tdsl layout FILE --kernel K --tensor A [--size M=128]... [options]
 *
 * options: --machine NAME|FILE (default test), --svg OUT.svg,
 * --rows N (addresses per block shown, default 16; 0: all), --blocks N
 * (blocks shown, default 4; 0: all), --to TEXT (also show the
 * conversion to that layout and its cost per step), --asm OUT.s (with
 * --to: the conversion as assembly, docs/accel-asm.md).  In the FILE form
 * the layout is the tensor's `layout` statement in the kernel's accel
 * schedule, unless --layout gives one.
 */
#include "cli/cli.h"
#include "codegen/acc/layout.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CliLayout LayOpts;

static int parse_count(const char *opt, const char *v, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 1000000)
        return cli_usage("layout: %s needs a count, not '%s'", opt, v);
    *out = (int)n;
    return EXIT_OK;
}

static int parse_args(int argc, char **argv, LayOpts *o)
{
    memset(o, 0, sizeof *o);
    o->draw.max_rows = 16;
    o->draw.max_blocks = 4;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const withval[] = {
            "--kernel", "--tensor", "--layout", "--to", "--svg", "--shape",
            "--size", "--machine", "--rows", "--blocks", "--asm",
        };
        int k = -1, st = EXIT_OK;
        if (!cli_is_option(a)) {
            if (o->file)
                return cli_usage("layout: one file at most ('%s', '%s')",
                                 o->file, a);
            o->file = a;
            continue;
        }
        for (int j = 0; j < (int)(sizeof withval / sizeof *withval); j++)
            if (!strcmp(a, withval[j]))
                k = j;
        if (k < 0)
            return cli_usage("layout: unknown option '%s'", a);
        if (!v)
            return cli_usage("layout: %s needs a value", a);
        i++;
        switch (k) {
        case 0: o->kernel = v; break;
        case 1: o->tensor = v; break;
        case 2: o->layout = v; break;
        case 3: o->to = v; break;
        case 4: o->svg = v; break;
        case 5: o->shape = v; break;
        case 6:
            if (o->nsizes == 16)
                return cli_usage("layout: at most 16 --size options");
            o->sizes[o->nsizes++] = v;
            break;
        case 7: st = cli_set_machine(v); break;
        case 8: st = parse_count(a, v, &o->draw.max_rows); break;
        case 9: st = parse_count(a, v, &o->draw.max_blocks); break;
        case 10: o->asm_ = v; break;
        }
        if (st != EXIT_OK)
            return st;
    }
    if (o->file && (!o->kernel || !o->tensor))
        return cli_usage("layout: with a file, give --kernel K and "
                         "--tensor NAME");
    if (!o->file && !o->layout)
        return cli_usage("layout: give --layout TEXT (with --shape "
                         "f32[128,64]), or FILE --kernel K --tensor NAME");
    if (o->asm_ && !o->to)
        return cli_usage("layout: --asm writes the conversion of --to; "
                         "give --to LAYOUT");
    if (o->file && o->shape)
        return cli_usage("layout: --shape is for layouts without a file; "
                         "the file gives the tensor's shape");
    return EXIT_OK;
}

/* "f32[128,64]" */
static int parse_shape(const char *text, AccLayoutReq *r)
{
    const char *p = strchr(text, '[');
    if (!p || (r->dtype = dt_from_name(text, (size_t)(p - text))) ==
                  DT_NONE)
        return cli_usage("layout: --shape needs a dtype and sizes, like "
                         "f32[128,64]; not '%s'", text);
    p++;
    while (*p && *p != ']') {
        char *end;
        long long n = strtoll(p, &end, 10);
        if (end == p || n < 1 || r->rank == ACC_LAYOUT_MAX_RANK)
            return cli_usage("layout: bad size in --shape '%s'", text);
        r->shape[r->rank++] = n;
        p = end;
        while (*p == ',' || *p == ' ')
            p++;
    }
    if (*p != ']' || p[1])
        return cli_usage("layout: --shape '%s' should end with ']'", text);
    return EXIT_OK;
}

/* --size M=128: the value of a size variable. */
static int size_value(const LayOpts *o, const char *name, int64_t *v)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->nsizes; i++)
        if (!strncmp(o->sizes[i], name, n) && o->sizes[i][n] == '=') {
            *v = strtoll(o->sizes[i] + n + 1, NULL, 10);
            return *v > 0;
        }
    return 0;
}

static TlKernelInfo *find_kernel(TlProgram *prog, const char *name)
{
    for (int i = 0; i < prog->items.n; i++) {
        TlKernelInfo *k = tl_kernel_info(prog->items.v[i]);
        if (k && !strcmp(k->name, name))
            return k;
    }
    return NULL;
}

static TlFunc *find_tensor(TlKernelInfo *k, const char *name)
{
    TlFunc **lists[3] = {k->inputs, k->funcs, k->outputs};
    int ns[3] = {k->ninputs, k->nfuncs, k->noutputs};
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < ns[l]; i++)
            if (!strcmp(lists[l][i]->name, name))
                return lists[l][i];
    return NULL;
}

/* The sizes' names, for the message when one is unknown. */
static const char *size_names[ACC_LAYOUT_MAX_RANK];

static const TlSchedInfo *sched_of(TlKernelInfo *k, const TlSchedLayout *sl)
{
    for (int i = 0; i < k->nschedules; i++)
        for (int j = 0; j < k->schedules[i]->nlayouts; j++)
            if (k->schedules[i]->layouts[j] == sl)
                return k->schedules[i];
    return NULL;
}

static const TlSchedLayout *find_layout(TlKernelInfo *k, const TlFunc *f)
{
    for (int i = 0; i < k->nschedules; i++) {
        const TlSchedInfo *si = k->schedules[i];
        if (!si->target || strcmp(si->target, "accel") || si->variant)
            continue;
        for (int j = 0; j < si->nlayouts; j++)
            if (si->layouts[j]->func == f)
                return si->layouts[j];
    }
    return NULL;
}

/* The tensor of the file: its dtype, shape and axis names into r, its
 * layout statement into *sl.  Returns an exit code. */
static int from_file(TlSession *s, const LayOpts *o, AccLayoutReq *r,
                     const TlSchedLayout **sl)
{
    TlKernelInfo *k = o->kobj;
    TlFunc *f;

    if (!k) {
        TlProgram *prog = cli_parse(s, o->file);
        if (!prog || s->nerrors || cli_check(s, prog))
            return EXIT_DIAG;
        k = find_kernel(prog, o->kernel);
        if (!k)
            return cli_usage("layout: '%s' has no kernel '%s'", o->file,
                             o->kernel);
    }
    if (k->generic)
        return cli_usage("layout: '%s' is generic: its tensors have no "
                         "dtype yet", o->kernel);
    f = find_tensor(k, o->tensor);
    if (!f)
        return cli_usage("layout: kernel '%s' has no tensor '%s'",
                         o->kernel, o->tensor);
    if (f->rank > ACC_LAYOUT_MAX_RANK)
        return cli_usage("layout: '%s' has more than %d axes", o->tensor,
                         ACC_LAYOUT_MAX_RANK);
    r->dtype = f->dtype;
    r->rank = f->rank;
    r->tensor = f->name;
    r->axis_names = acc_layout_axis_names(s, f);
    *sl = find_layout(k, f);
    if (!*sl && !o->layout)
        return cli_usage("layout: the accel schedule of '%s' has no "
                         "layout for '%s'%s", o->kernel, o->tensor,
                         o->kobj ? "" : "; give one with --layout");
    r->where = *sl ? (*sl)->stmt->name_loc : r->where;
    acc_layout_known_shape(s, *sl ? sched_of(k, *sl) : NULL, f, r->shape);
    for (int a = 0; a < f->rank; a++) {
        int64_t c;
        const TlSymExpr *e = f->axes[a].extent;
        const char *v = e && e->n == 1 && e->c == 0 && e->t[0].coef == 1 &&
                                e->t[0].atom->kind == SYM_VAR
                            ? e->t[0].atom->var->name : NULL;
        if (v && size_value(o, v, &c))
            r->shape[a] = c;
        size_names[a] = v;
    }
    return EXIT_OK;
}

static int unknown_sizes(const LayOpts *o, const AccLayoutReq *r,
                         const TlLayout *l)
{
    if (l && l->form == LAYOUT_CANONICAL)
        return EXIT_OK;
    for (int a = 0; a < r->rank; a++)
        if (r->shape[a] < 0)
            return cli_usage("layout: the size of axis %d of '%s' is not "
                             "known; give it with --size %s=N", a,
                             o->tensor, size_names[a] ? size_names[a]
                                                      : "NAME");
    return EXIT_OK;
}

static int write_svg(const char *path, const AccLayout *L)
{
    TlBuf b;
    FILE *fp = fopen(path, "w");
    int ok;

    if (!fp) {
        fprintf(stderr, "tdsl: cannot write '%s'\n", path);
        return EXIT_DIAG;
    }
    buf_init(&b);
    acc_layout_draw_svg(&b, L);
    ok = fwrite(b.s, 1, b.len, fp) == b.len;
    ok &= fclose(fp) == 0;
    buf_free(&b);
    if (!ok) {
        fprintf(stderr, "tdsl: cannot write '%s'\n", path);
        return EXIT_DIAG;
    }
    return EXIT_OK;
}

/* The conversion as assembly: through a DRAM scratch area at d[0]. */
static int write_asm(const char *path, const AccLayout *L,
                     const AccLayout *T)
{
    TlBuf b, why;
    FILE *fp;
    int ok;

    buf_init(&b);
    buf_init(&why);
    buf_printf(&b, "# %s tensor, converted on machine '%s' (assemble with "
               "--machine %s)\n# from ", dt_name(L->dtype), L->m->name,
               L->m->name);
    acc_layout_print(&b, L);
    buf_puts(&b, "\n# to   ");
    acc_layout_print(&b, T);
    buf_putc(&b, '\n');
    if (acc_layout_emit_convert(&b, L, T, 0, NULL, &why) < 0) {
        fprintf(stderr, "tdsl: layout: cannot write the conversion as "
                "instructions yet: %s\n", why.s);
        buf_free(&b);
        buf_free(&why);
        return EXIT_DIAG;
    }
    buf_puts(&b, "halt\n");
    fp = fopen(path, "w");
    ok = fp && fwrite(b.s, 1, b.len, fp) == b.len;
    ok &= fp && fclose(fp) == 0;
    buf_free(&b);
    buf_free(&why);
    if (!ok) {
        fprintf(stderr, "tdsl: cannot write '%s'\n", path);
        return EXIT_DIAG;
    }
    return EXIT_OK;
}

/* The layout o names, checked (NULL with *st set after a message). */
static AccLayout *layout_of(TlSession *s, const LayOpts *o,
                            AccLayoutReq *rq, int *st)
{
    AccLayoutReq r;
    const TlSchedLayout *sl = NULL;
    AccLayout *L;

    memset(&r, 0, sizeof r);
    r.where.file = -1;
    r.dtype = DT_F32;
    if (o->file || o->kobj) {
        *st = from_file(s, o, &r, &sl);
        if (*st != EXIT_OK)
            return NULL;
    } else if (o->shape && (*st = parse_shape(o->shape, &r)) != EXIT_OK) {
        return NULL;
    }
    r.m = cli_check_machine(s);
    if (o->layout) {
        L = acc_layout_from_text(s, o->kobj ? "layout" : "--layout",
                                 o->layout, &r);
    } else {
        if ((*st = unknown_sizes(o, &r, sl->layout)) != EXIT_OK)
            return NULL;
        L = acc_layout_check(s, sl->layout, &r);
    }
    *st = L ? EXIT_OK : EXIT_DIAG;
    *rq = r;
    return L;
}

int cli_layout_text(TlSession *s, const CliLayout *o, TlBuf *out)
{
    AccLayoutReq r;
    int st;
    AccLayout *L = layout_of(s, o, &r, &st);

    if (L)
        acc_layout_print(out, L);
    return st;
}

int cli_layout_draw(TlSession *s, const CliLayout *o, TlBuf *out)
{
    AccLayoutReq r;
    AccDrawOpts draw;
    int st;
    AccLayout *L = layout_of(s, o, &r, &st);

    if (!L)
        return st;
    memset(&draw, 0, sizeof draw);
    draw.max_rows = o->draw.max_rows;
    draw.max_blocks = o->draw.max_blocks;
    acc_layout_draw_text(out, L, &draw);
    if (o->to) {
        AccLayoutReq r2 = r;
        AccLayout *T;
        r2.rank = L->rank;
        memcpy(r2.shape, L->shape, sizeof r2.shape);
        r2.has_place = 0;
        r2.where.file = -1;
        T = acc_layout_from_text(s, o->kobj ? "->" : "--to", o->to, &r2);
        if (!T)
            return EXIT_DIAG;
        if (T->nelems * T->ncopies > ((int64_t)1 << 27)) {
            fprintf(stderr, "tdsl: layout: %lld element copies are too "
                    "many to plan a conversion for\n",
                    (long long)(T->nelems * T->ncopies));
            return EXIT_DIAG;
        }
        buf_puts(out, "conversion to ");
        acc_layout_print(out, T);
        buf_putc(out, '\n');
        acc_conv_plan_print(out, acc_layout_convert_plan(&s->arena, L, T));
        if (o->asm_ && (st = write_asm(o->asm_, L, T)) != EXIT_OK)
            return st;
    }
    if (o->svg)
        return write_svg(o->svg, L);
    return EXIT_OK;
}

static int run(TlSession *s, const LayOpts *o)
{
    TlBuf out;
    int st;

    buf_init(&out);
    st = cli_layout_draw(s, o, &out);
    if (st == EXIT_OK)
        st = cli_put(&out);
    buf_free(&out);
    return st;
}

int cmd_layout(int argc, char **argv)
{
    LayOpts o;
    TlSession *s;
    int st = parse_args(argc, argv, &o);

    if (st != EXIT_OK)
        return st;
    s = cli_session();
    {
        jmp_buf boundary;
        s->fatal = &boundary;
        if (setjmp(boundary) == 0)
            st = run(s, &o);
        else
            st = EXIT_DIAG;
        s->fatal = NULL;
    }
    tl_session_free(s);
    return st;
}
