/*
 * repl.c - the REPL: `tdsl` alone, or `tdsl repl`.
 *
 * One session lives as long as the REPL.  Each input (one or more
 * lines, until repl_scan says it is whole) is parsed into a program of
 * its own and checked with the earlier accepted programs as
 * TlCheckOpts.prior, so it sees their kernels, imports and lets; then
 * its statements run in one interpreter, which keeps the values.  An
 * input with a syntax or check error defines nothing.  An input that
 * stops at a run-time error keeps what came before the error: its
 * earlier items become a program of their own (the values bound stay
 * bound), the rest is dropped.  A bare expression prints its value.
 * Lines starting with ':' are commands (:help lists them).  `tdsl
 * repl --machine M` names the accelerator of `on accel`, :asm and
 * :layout (TDSL_MACHINE, else test, without it).
 */
#include "cli/cli.h"
#include "cli/repl.h"
#include "codegen/acc/acc.h"
#include "codegen/codegen.h"
#include "config.h"
#include "interp/interp.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Repl {
    TlSession *s;
    TlInterp *ip;
    TlVec prior;            /* TlProgram*: accepted inputs, oldest first
                             * (in the session's arena) */
    int ninputs;            /* inputs so far, naming their sources */
    int interactive;
    int failed;             /* an input had an error */
    int quit;
    char *next_line;        /* read, and the start of the next input */
} Repl;

static const char prompt_first[] = "tdsl> ";
static const char prompt_more[] = "  ...> ";

/* ====================================================================
 * Inputs: parse, check, run
 * ==================================================================== */

/* A fresh count for each input, so that the error cap applies to one
 * input and "had errors" means this one. */
static void reset_counts(TlSession *s)
{
    s->nerrors = 0;
    s->nwarnings = 0;
    s->suppressed = 0;
}

static TlProgram *parse_text(Repl *r, const char *text)
{
    TlSession *s = r->s;
    char name[32];
    jmp_buf boundary;
    TlProgram *volatile prog = NULL;
    int file;

    snprintf(name, sizeof name, "<input %d>", ++r->ninputs);
    file = tl_add_source(s, name, text, strlen(text));
    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        prog = prs_parse(s, file);
    s->fatal = NULL;
    if (!prog || s->nerrors > 0)
        return NULL;
    return prog;
}

/* Checks prog against the accepted inputs; 0 when it has no errors. */
static int check_program(Repl *r, TlProgram *prog, int redefine)
{
    TlSession *s = r->s;
    TlCheckOpts opts;
    jmp_buf boundary;

    memset(&opts, 0, sizeof opts);
    opts.allow_redefine = redefine;
    opts.prior = (TlProgram *const *)r->prior.v;
    opts.nprior = r->prior.n;
    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        tl_check_opts(s, prog, &opts);
    s->fatal = NULL;
    return s->nerrors > 0 ? -1 : 0;
}

/* A schedule the checker attached to its kernel belongs to a program
 * that is dropped: take it off again. */
static void drop_schedule(TlItem *it)
{
    TlSchedInfo *si = it->sym;
    TlKernelInfo *k;
    int j = 0;

    if (it->kind != IT_SCHEDULE || tl_ref_kind(si) != REF_SCHEDULE ||
        !(k = si->kernel))
        return;
    for (int i = 0; i < k->nschedules; i++)
        if (k->schedules[i] != si)
            k->schedules[j++] = k->schedules[i];
    k->nschedules = j;
}

static void drop_items(TlProgram *prog, int from)
{
    for (int i = from; i < prog->items.n; i++)
        if (prog->items.v[i])
            drop_schedule(prog->items.v[i]);
}

/* Names that tab completion offers from now on. */
static void offer_names(const TlProgram *prog)
{
    for (int i = 0; i < prog->items.n; i++) {
        const TlItem *it = prog->items.v[i];
        const TlProgram *m;
        if (!it)
            continue;
        if (it->kind == IT_KERNEL || it->kind == IT_EXTERN)
            repl_edit_add_name(it->name);
        if (it->kind == IT_STMT && it->stmt && it->stmt->kind == ST_LET)
            for (int j = 0; j < it->stmt->names.n; j++)
                if (strcmp(it->stmt->names.v[j].name, "_"))
                    repl_edit_add_name(it->stmt->names.v[j].name);
        if (it->kind != IT_IMPORT || !(m = it->sym) || !it->path)
            continue;
        /* `import std.nn`: relu and nn.relu; `as k`: k.relu. */
        const char *alias = it->alias;
        if (!alias && !it->is_file) {
            const char *dot = strrchr(it->path, '.');
            alias = dot ? dot + 1 : it->path;
        }
        for (int j = 0; j < m->items.n; j++) {
            const TlItem *x = m->items.v[j];
            if (!x || !x->name ||
                (x->kind != IT_KERNEL && x->kind != IT_EXTERN))
                continue;
            if (!it->alias)
                repl_edit_add_name(x->name);
            if (alias) {
                TlBuf b;
                buf_init(&b);
                buf_printf(&b, "%s.%s", alias, x->name);
                repl_edit_add_name(b.s);
                buf_free(&b);
            }
        }
    }
}

/* Makes the first n items of prog part of the session. */
static void accept(Repl *r, TlProgram *prog, int n)
{
    TlProgram *kept = prog;

    if (n < prog->items.n) {
        drop_items(prog, n);
        if (n == 0)
            return;
        kept = arena_alloc(&r->s->arena, sizeof *kept);
        *kept = *prog;
        kept->items.n = n;
    }
    vec_push(&r->s->arena, &r->prior, kept);
    offer_names(kept);
}

static void put_value(const TlValue *v)
{
    TlBuf b;

    buf_init(&b);
    itp_value_print(&b, v);
    buf_putc(&b, '\n');
    fwrite(b.s, 1, b.len, stdout);
    fflush(stdout);
    buf_free(&b);
}

/* Runs one statement; a bare expression prints its value. */
static int run_stmt(Repl *r, TlStmt *st)
{
    TlValue v;

    if (st->kind != ST_EXPR)
        return itp_exec_stmt(r->ip, st);
    if (itp_eval(r->ip, st->value, &v) < 0)
        return -1;
    if (v.kind != VAL_NONE)
        put_value(&v);
    itp_value_free(&v);
    return 0;
}

/* Runs prog's statements in order and accepts what ran. */
static void run_program(Repl *r, TlProgram *prog)
{
    TlSession *s = r->s;
    jmp_buf boundary;
    volatile int i = 0;

    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        for (i = 0; i < prog->items.n; i++) {
            TlItem *it = prog->items.v[i];
            if (it && it->kind == IT_STMT && it->stmt &&
                run_stmt(r, it->stmt) < 0)
                break;
        }
    }
    s->fatal = NULL;
    fflush(stdout);
    accept(r, prog, i);
}

/* A checked program whose items are discarded. */
static void reject(Repl *r, TlProgram *prog)
{
    if (prog)
        drop_items(prog, 0);
    r->failed = 1;
}

static void eval_input(Repl *r, const char *text)
{
    TlProgram *prog;

    reset_counts(r->s);
    prog = parse_text(r, text);
    if (!prog) {
        r->failed = 1;
        return;
    }
    if (check_program(r, prog, 1) < 0) {
        reject(r, prog);
        return;
    }
    run_program(r, prog);
    if (r->s->nerrors > 0)
        r->failed = 1;
}

/* ====================================================================
 * Commands
 * ==================================================================== */

static void cmd_load(Repl *r, const char *arg)
{
    TlSession *s = r->s;
    jmp_buf boundary;
    TlProgram *volatile prog = NULL;
    int file;

    if (!*arg) {
        fprintf(stderr, "':load' needs a file: :load FILE\n");
        r->failed = 1;
        return;
    }
    reset_counts(s);
    file = tl_add_file(s, arg);
    if (file < 0) {
        r->failed = 1;
        return;
    }
    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        prog = prs_parse(s, file);
    s->fatal = NULL;
    /* A file may not define a name twice, as with `tdsl FILE`. */
    if (!prog || s->nerrors > 0 || check_program(r, prog, 0) < 0) {
        reject(r, prog);
        return;
    }
    run_program(r, prog);
    if (s->nerrors > 0)
        r->failed = 1;
}

/* The single expression of a command's argument, checked; NULL after
 * reporting. */
static TlExpr *command_expr(Repl *r, const char *cmd, const char *arg)
{
    TlProgram *prog;
    TlStmt *st;

    if (!*arg) {
        fprintf(stderr, "':%s' needs an expression: :%s EXPR\n", cmd, cmd);
        return NULL;
    }
    reset_counts(r->s);
    prog = parse_text(r, arg);
    if (!prog)
        return NULL;
    st = prog->items.n == 1 && prog->items.v[0] &&
                 prog->items.v[0]->kind == IT_STMT
             ? prog->items.v[0]->stmt
             : NULL;
    if (!st || st->kind != ST_EXPR) {
        fprintf(stderr, "':%s' needs an expression, not a definition or "
                        "a statement\n", cmd);
        return NULL;
    }
    if (check_program(r, prog, 1) < 0) {
        reject(r, prog);
        return NULL;
    }
    /* Nothing of it is defined; it is dropped like a rejected input. */
    drop_items(prog, 0);
    return st->value;
}

/* The static type of a kernel call whose result shapes are all known
 * numbers; 0 when some is not. */
static int call_type(TlBuf *out, const TlCall *call)
{
    TlKernelInfo *k = call->callee;
    TlBuf b;

    if (!k || !call->results)
        return 0;
    buf_init(&b);
    if (k->noutputs != 1)
        buf_putc(&b, '(');
    for (int i = 0; i < k->noutputs; i++) {
        const TlFunc *f = call->results[i];
        if (!f || f->dtype == DT_NONE) {
            buf_free(&b);
            return 0;
        }
        buf_printf(&b, "%s%s", i ? ", " : "", dt_name(f->dtype));
        for (int j = 0; j < f->rank; j++) {
            int64_t n;
            if (!tl_sym_const(f->axes[j].extent, &n)) {
                buf_free(&b);
                return 0;
            }
            buf_printf(&b, "%s%lld", j ? ", " : "[", (long long)n);
        }
        if (f->rank > 0)
            buf_putc(&b, ']');
    }
    if (k->noutputs != 1)
        buf_putc(&b, ')');
    buf_puts(out, b.s);
    buf_free(&b);
    return 1;
}

/* :type EXPR - from the value of a name, from the checker when a
 * kernel call's shapes are known, else by evaluating the expression
 * (save is not run: it has no value). */
static void cmd_type(Repl *r, const char *arg)
{
    TlExpr *e = command_expr(r, "type", arg);
    TlExpr *x;
    TlBuf out;
    jmp_buf boundary;
    volatile int ok = 0;

    if (!e) {
        r->failed = 1;
        return;
    }
    x = e->kind == EX_ON && e->a ? e->a : e;
    buf_init(&out);
    r->s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        const TlValue *lv;
        TlValue v;
        if (tl_ref_kind(x->sym) == REF_LET) {
            lv = itp_let_value(r->ip, x->sym);
            if (lv) {
                itp_value_type(&out, lv);
                ok = 1;
            }
        } else if (tl_ref_kind(x->sym) == REF_BUILTIN &&
                   ((const TlBuiltin *)x->sym)->id == BI_SAVE) {
            buf_puts(&out, "none");
            ok = 1;
        } else if (tl_ref_kind(x->sym) == REF_CALL &&
                   call_type(&out, x->sym)) {
            ok = 1;
        } else if (itp_eval(r->ip, e, &v) == 0) {
            itp_value_type(&out, &v);
            itp_value_free(&v);
            ok = 1;
        }
    }
    r->s->fatal = NULL;
    if (ok) {
        buf_putc(&out, '\n');
        fwrite(out.s, 1, out.len, stdout);
        fflush(stdout);
    } else {
        r->failed = 1;
    }
    buf_free(&out);
}

/* :time EXPR - the `time` statement. */
static void cmd_time(Repl *r, const char *arg)
{
    TlBuf b;

    if (!*arg) {
        fprintf(stderr, "':time' needs an expression: :time EXPR\n");
        r->failed = 1;
        return;
    }
    buf_init(&b);
    buf_printf(&b, "time %s", arg);
    eval_input(r, b.s);
    buf_free(&b);
}

/* The kernel named `name` among the accepted inputs, the latest
 * definition first, kernels of imported modules too (by their name or
 * ALIAS.name); NULL when there is none. */
static TlKernelInfo *find_kernel(Repl *r, const char *name)
{
    for (int p = r->prior.n - 1; p >= 0; p--) {
        const TlProgram *prog = r->prior.v[p];
        for (int i = prog->items.n - 1; i >= 0; i--) {
            const TlItem *it = prog->items.v[i];
            const TlProgram *m;
            const char *dot = strrchr(name, '.');
            if (!it)
                continue;
            if (it->kind == IT_KERNEL && it->name &&
                !strcmp(it->name, name))
                return tl_kernel_info(it);
            if (it->kind != IT_IMPORT || !(m = it->sym))
                continue;
            for (int j = 0; j < m->items.n; j++) {
                const TlItem *x = m->items.v[j];
                const char *bare = dot ? dot + 1 : name;
                if (x && x->kind == IT_KERNEL && x->name &&
                    !strcmp(x->name, bare))
                    return tl_kernel_info(x);
            }
        }
    }
    return NULL;
}

/* Splits arg at blanks outside brackets ("relu X=f32[N, M]" is two
 * words); the words point into arg, which is cut.  Returns the count. */
static int split_words(char *arg, char **w, int max)
{
    int n = 0, depth = 0;

    while (*arg && n < max) {
        while (*arg == ' ' || *arg == '\t')
            arg++;
        if (!*arg)
            break;
        w[n++] = arg;
        for (; *arg && (depth || (*arg != ' ' && *arg != '\t')); arg++)
            depth += *arg == '[' ? 1 : *arg == ']' ? -1 : 0;
        if (*arg)
            *arg++ = '\0';
    }
    return n;
}

/* The kernel a command's first word names, the words in w (*n of
 * them); NULL after a message (usage: the command's own forms). */
static TlKernelInfo *named_kernel(Repl *r, const char *cmd, const char *usage,
                                  char *arg, char **w, int max, int *n)
{
    TlKernelInfo *k;

    *n = split_words(arg, w, max);
    if (*n == 0) {
        fprintf(stderr, "'%s' needs a kernel: %s\n", cmd, usage);
        return NULL;
    }
    if (!(k = find_kernel(r, w[0])))
        fprintf(stderr, "'%s': no kernel '%s' is defined\n", cmd, w[0]);
    return k;
}

/* The end of a command that printed into out: out on stdout when ok,
 * else the input failed. */
static void show(Repl *r, int ok, TlBuf *out)
{
    r->s->fatal = NULL;
    if (ok)
        fwrite(out->s, 1, out->len, stdout);
    else
        r->failed = 1;
    buf_free(out);
}

/* :lower KERNEL [TYPE]... and :c KERNEL [TYPE]... - the loop IR after
 * scheduling, or the C that `tdsl compile` writes, of a kernel defined
 * so far (a generic one's instance for the input types given). */
static void cmd_codegen(Repl *r, const char *cmd, char *arg)
{
    TlSession *s = r->s;
    char *w[TL_MAX_RANK + 16];
    int nw;
    TlKernelInfo *volatile k =
        named_kernel(r, cmd, cmd[1] == 'l' ? ":lower KERNEL" : ":c KERNEL",
                     arg, w, (int)(sizeof w / sizeof w[0]), &nw);
    volatile int n = nw;
    TlBuf out;
    jmp_buf boundary;
    volatile int ok = 0;

    if (!k) {
        r->failed = 1;
        return;
    }
    if (!k->generic && n > 1) {
        fprintf(stderr, "'%s': '%s' is not generic: its input types are "
                "fixed\n", cmd, k->name);
        r->failed = 1;
        return;
    }
    reset_counts(s);
    buf_init(&out);
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        int st = EXIT_OK;
        if (k->generic)
            k = cli_instance(s, cmd, k, (const char *const *)w + 1, n - 1,
                             &st);
        if (!k) {
            ok = 0;
        } else if (cmd[1] == 'l') {
            LFunc *f = cgc_lower(s, k);
            if (f)
                lir_print_func(&out, f);
            ok = f != NULL;
        } else {
            ok = cgc_aot_source(s, k, cgc_aot_symbol(s, k), &out) == 0;
        }
    }
    show(r, ok, &out);
}

/* `tdsl repl --machine M`, or NULL. */
static const char *machine;

/* The machine of the accel target: --machine, else TDSL_MACHINE, else
 * test.  NULL after a message. */
static const AccMachine *repl_machine(Repl *r)
{
    const char *spec = machine ? machine : getenv("TDSL_MACHINE");
    const AccMachine *m;
    TlBuf err;

    buf_init(&err);
    m = acc_machine_get(r->s, spec && *spec ? spec : "test", &err);
    if (!m)
        fprintf(stderr, "':asm': TDSL_MACHINE: %s\n", err.s);
    buf_free(&err);
    return m;
}

/* The inputs of the kernel call e (evaluated), and the kernel (a
 * generic one's instance for them); NULL after a message. */
static TlKernelInfo *call_inputs(Repl *r, TlExpr *e, TlTensor **in)
{
    TlExpr *x = e->kind == EX_ON && e->a ? e->a : e;
    const TlCall *call = tl_ref_kind(x->sym) == REF_CALL ? x->sym : NULL;
    TlKernelInfo *k = call ? call->callee : NULL;
    char *specs[TL_MAX_RANK * 4];
    int st = EXIT_OK;

    if (!k) {
        fprintf(stderr, "':asm' needs a kernel call, like :asm f(x, y), or "
                "a kernel: :asm KERNEL [X=f32[1024]]...\n");
        return NULL;
    }
    if (k->ninputs > (int)(sizeof specs / sizeof specs[0])) {
        fprintf(stderr, "':asm': '%s' has too many inputs\n", k->name);
        return NULL;
    }
    for (int i = 0; i < k->ninputs; i++) {
        TlValue v;
        if (itp_eval(r->ip, call->args[i], &v) < 0)
            return NULL;
        in[i] = itp_value_tensor(&v);
        itp_value_free(&v);
        if (!in[i]) {
            fprintf(stderr, "':asm': argument %d of '%s' is no tensor\n",
                    i + 1, k->name);
            return NULL;
        }
    }
    if (!k->generic)
        return k;
    for (int i = 0; i < k->ninputs; i++) {
        TlBuf b;
        buf_init(&b);
        buf_printf(&b, "%s[", dt_name(in[i]->dtype));
        for (int d = 0; d < in[i]->rank; d++)
            buf_printf(&b, "%s%lld", d ? "," : "", (long long)in[i]->shape[d]);
        buf_putc(&b, ']');
        specs[i] = arena_strdup(&r->s->arena, b.s);
        buf_free(&b);
    }
    return cli_instance(r->s, ":asm", k, (const char *const *)specs,
                        k->ninputs, &st);
}

/* :asm KERNEL [TYPE]... or :asm CALL - the accelerator program of a
 * call (what `tdsl compile --target accel` writes): for the shapes of
 * the types given (with numbers), or of the call's arguments. */
static void repl_asm(Repl *r, char *arg)
{
    TlSession *s = r->s;
    char *w[TL_MAX_RANK + 16];
    TlTensor *in[TL_MAX_RANK * 4 + 1];
    TlKernelInfo *volatile k = NULL;
    const AccMachine *m = repl_machine(r);
    volatile int n = 0, ok = 0, nin = 0;
    TlExpr *e = NULL;
    TlBuf out;
    jmp_buf boundary;

    memset(in, 0, sizeof in);
    if (!m) {
        r->failed = 1;
        return;
    }
    if (strchr(arg, '(')) {
        if (!(e = command_expr(r, "asm", arg))) {
            r->failed = 1;
            return;
        }
    } else {
        int nw;
        k = named_kernel(r, ":asm", ":asm KERNEL [X=f32[1024]]... or "
                         ":asm f(x, y)", arg, w,
                         (int)(sizeof w / sizeof w[0]), &nw);
        n = nw;
        if (!k) {
            r->failed = 1;
            return;
        }
    }
    reset_counts(s);
    buf_init(&out);
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        int st = EXIT_OK;
        if (e) {
            TlExpr *x = e->kind == EX_ON && e->a ? e->a : e;
            const TlCall *c = tl_ref_kind(x->sym) == REF_CALL ? x->sym : NULL;
            nin = c && c->callee ? c->callee->ninputs : 0;
            if (nin > TL_MAX_RANK * 4)
                nin = 0;
            k = call_inputs(r, e, in);
            ok = k && cli_accel_program(s, "asm", k, in, NULL, 0, m,
                                        &out) == EXIT_OK;
        } else {
            if (k->generic)
                k = cli_instance(s, ":asm", k, (const char *const *)w + 1,
                                 n - 1, &st);
            ok = k && cli_accel_program(s, "asm", k, NULL,
                                        (const char *const *)w + 1, n - 1,
                                        m, &out) == EXIT_OK;
        }
    }
    for (int i = 0; i < nin; i++)
        tl_tensor_unref(in[i]);
    show(r, ok, &out);
}

/* Where "->" splits a :layout argument outside brackets; NULL if
 * nowhere. */
static char *arrow(char *arg)
{
    int depth = 0;

    for (char *p = arg; *p; p++) {
        depth += *p == '(' || *p == '[' ? 1 : *p == ')' || *p == ']' ? -1 : 0;
        if (!depth && p[0] == '-' && p[1] == '>')
            return p;
    }
    return NULL;
}

/* One side of :layout: "KERNEL.TENSOR [N=128]..." (a kernel's layout
 * statement) or "f32[8, 16] LAYOUT" into o. -1 after a message. */
static int layout_side(Repl *r, char *text, CliLayout *o)
{
    while (*text == ' ' || *text == '\t')
        text++;
    if (!*text) {
        fprintf(stderr, "':layout' needs a tensor: :layout KERNEL.TENSOR, or "
                "a shape and a layout: :layout f32[8, 16] ((2_L1B, 4), "
                "(4_PE, 2_W, 2))\n");
        return -1;
    }
    char *br = strchr(text, '['), *dot = strrchr(text, '.');
    char *sp = text + strcspn(text, " \t");
    if (br && br < sp + 1 && (!dot || br < dot || dot > sp)) {
        char *end = strchr(br, ']');
        if (!end) {
            fprintf(stderr, "':layout': the shape '%s' has no ']'\n", text);
            return -1;
        }
        /* The shape ends at its ']'; a blank must follow it, which
         * becomes the shape's terminator. */
        end++;
        o->shape = text;
        o->layout = end + (*end == ' ' || *end == '\t');
        if (o->layout != end)
            *end = '\0';
        while (*o->layout == ' ' || *o->layout == '\t')
            o->layout++;
        if (o->layout == end || !*o->layout) {
            fprintf(stderr, "':layout': give a layout after the shape, "
                    "like ((2_L1B, 4), (4_PE, 2_W, 2))\n");
            return -1;
        }
        return 0;
    }
    char *w[18];
    int n = split_words(text, w, 18);
    dot = strrchr(w[0], '.');
    if (!dot || dot == w[0] || !dot[1]) {
        fprintf(stderr, "':layout': '%s' is not KERNEL.TENSOR\n", w[0]);
        return -1;
    }
    *dot = '\0';
    o->kobj = find_kernel(r, w[0]);
    if (!o->kobj) {
        fprintf(stderr, "':layout': no kernel '%s' is defined\n", w[0]);
        return -1;
    }
    o->kernel = o->kobj->name;
    o->tensor = dot + 1;
    for (int i = 1; i < n && i <= 16; i++)
        o->sizes[o->nsizes++] = w[i];
    return 0;
}

/* :layout SIDE [-> SIDE | -> LAYOUT] - what `tdsl layout` draws, and a
 * conversion with its cost per level. */
static void repl_layout(Repl *r, char *arg)
{
    TlSession *s = r->s;
    char *volatile to = arrow(arg);
    CliLayout o, d;
    TlBuf out, text;
    jmp_buf boundary;
    volatile int st = EXIT_DIAG;

    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    o.draw.max_rows = d.draw.max_rows = 16;
    o.draw.max_blocks = d.draw.max_blocks = 4;
    if (to) {
        *to = '\0';
        to += 2;
        while (*to == ' ' || *to == '\t')
            to++;
    }
    if (layout_side(r, arg, &o) < 0) {
        r->failed = 1;
        return;
    }
    reset_counts(s);
    buf_init(&out);
    buf_init(&text);
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        st = EXIT_OK;
        /* A kernel's tensor on the right: its layout, as text. */
        if (to && !strchr(to, '(')) {
            if (layout_side(r, to, &d) < 0)
                st = EXIT_USAGE;
            else if ((st = cli_layout_text(s, &d, &text)) == EXIT_OK)
                to = text.s;
        } else if (to && !*to) {
            fprintf(stderr, "':layout': give a layout after '->'\n");
            st = EXIT_USAGE;
        }
        o.to = to;
        if (st == EXIT_OK)
            st = cli_layout_draw(s, &o, &out);
    }
    show(r, st == EXIT_OK, &out);
    buf_free(&text);
}

static const char help_text[] =
    "commands:\n"
    "  :load FILE       parse, check and run FILE in this session\n"
    "  :type EXPR       the type of EXPR, e.g. f32[256, 128]\n"
    "  :time EXPR       time EXPR: the median of several runs\n"
    "  :lower KERNEL    the loop IR after its cpu schedule and the passes\n"
    "  :c KERNEL        the C that `tdsl compile` writes for it\n"
    "                   (a generic kernel: give its input types after the\n"
    "                   name, :lower relu X=f32[N, M])\n"
    "  :asm KERNEL      its accelerator program, for the shapes given\n"
    "                   (:asm f X=f32[1024]) or of a call (:asm f(x, y))\n"
    "  :layout K.TENSOR which PE holds which element of a kernel's tensor\n"
    "                   (or :layout f32[8, 16] LAYOUT); with -> LAYOUT (or\n"
    "                   -> K.TENSOR) also the conversion and its cost\n"
    "  :help            this help\n"
    "  :quit            leave (Ctrl-D too)\n"
    "the language in five lines (lang/SPEC.md has it all):\n"
    "  kernel add1(X: f32[N]) -> (Y: f32[N]) { Y[i] = X[i] + 1.0 }\n"
    "  let a = rand(f32, [2, 3], seed = 1)  # zeros ones full arange load\n"
    "  let s = sum(i, j) a[i, j]            # prod max min argmax argmin\n"
    "  print add1(a[0, :])                  # a bare expression prints too\n"
    "  assert allclose(a, load(\"a.npy\"))    # save(a, \"a.npy\"), time EXPR\n"
    "an input goes on over several lines while brackets are open; Tab\n"
    "completes names; an error keeps everything defined before it\n";

/* command() runs them by position. */
const ReplCommand repl_commands[] = {
    {"load", 0}, {"type", 0}, {"time", 0}, {"help", 0}, {"quit", 0},
    {"lower", 0}, {"c", 0}, {"asm", 0}, {"layout", 0}, {NULL, 0},
};

/* Runs the command of line (starting with ':'). */
static void command(Repl *r, const char *line)
{
    const char *p = line + 1, *arg;
    size_t n = 0;
    int found = -1, nfound = 0;
    char *a;

    while (p[n] && p[n] != ' ' && p[n] != '\t')
        n++;
    arg = p + n;
    while (*arg == ' ' || *arg == '\t')
        arg++;
    /* A command may be shortened to a prefix that names only it. */
    for (int i = 0; repl_commands[i].name; i++) {
        if (n == 0 || strncmp(repl_commands[i].name, p, n) != 0)
            continue;
        if (strlen(repl_commands[i].name) == n) {
            found = i;
            nfound = 1;
            break;
        }
        found = i;
        nfound++;
    }
    if (nfound != 1) {
        fprintf(stderr, "%s command ':%.*s'; :help lists the commands\n",
                nfound ? "ambiguous" : "unknown", (int)n, p);
        r->failed = 1;
        return;
    }
    if (repl_commands[found].issue) {
        fprintf(stderr, "':%s' is not available yet (issue %d)\n",
                repl_commands[found].name, repl_commands[found].issue);
        r->failed = 1;
        return;
    }
    /* The argument without trailing blanks. */
    a = tl_xstrdup(arg);
    for (size_t k = strlen(a); k > 0 && (a[k - 1] == ' ' || a[k - 1] == '\t');)
        a[--k] = '\0';
    cli_repl = 1;
    switch (found) {
    case 0: cmd_load(r, a); break;
    case 1: cmd_type(r, a); break;
    case 2: cmd_time(r, a); break;
    case 3: fputs(help_text, stdout); break;
    case 4: r->quit = 1; break;
    case 5: cmd_codegen(r, ":lower", a); break;
    case 6: cmd_codegen(r, ":c", a); break;
    case 7: repl_asm(r, a); break;
    default: repl_layout(r, a); break;
    }
    cli_repl = 0;
    fflush(stdout);
    free(a);
}

/* ====================================================================
 * The loop
 * ==================================================================== */

static int is_command(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return *line == ':';
}

/* Reads one whole input into *text (lines joined by '\n'); 0 at the
 * end of input with nothing read. */
static int read_input(Repl *r, TlBuf *text)
{
    ReplScan sc;
    int interrupted = 0;
    char *line;

    repl_scan_init(&sc);
    for (;;) {
        if (r->next_line) {
            line = r->next_line;
            r->next_line = NULL;
        } else {
            line = repl_edit_read(text->len ? prompt_more : prompt_first,
                                  &interrupted);
            if (line)
                repl_edit_remember(line);
        }
        if (interrupted) {
            /* Ctrl-C: forget the input being typed. */
            text->len = 0;
            if (text->s)
                text->s[0] = '\0';
            repl_scan_init(&sc);
            continue;
        }
        if (!line)
            return text->len > 0;
        if (text->len > 0 && repl_scan_breaks(&sc, line)) {
            r->next_line = line;
            return 1;
        }
        if (text->len == 0 && is_command(line)) {
            buf_puts(text, line);
            free(line);
            return 1;
        }
        repl_scan_line(&sc, line);
        if (sc.tokens == 0 && text->len == 0) {
            free(line);         /* nothing yet: ask again */
            continue;
        }
        buf_puts(text, line);
        buf_putc(text, '\n');
        free(line);
        if (repl_scan_done(&sc))
            return 1;
    }
}

int cmd_repl(int argc, char **argv)
{
    Repl r;
    TlBuf text;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--machine") || i + 1 == argc)
            return cli_usage("unexpected argument '%s' after 'repl' (it "
                             "takes --machine tiny|test|mn2|FILE)",
                             argv[i]);
        if (cli_set_machine(argv[++i]) != EXIT_OK)
            return EXIT_USAGE;
        acc_cg_set_machine(argv[i]);
        machine = argv[i];
    }
    memset(&r, 0, sizeof r);
    r.interactive = isatty(STDIN_FILENO);
    r.s = cli_session();
    r.ip = itp_new(r.s);
    repl_edit_open(r.interactive);
    if (r.interactive)
        printf("tdsl %s - :help for help, :quit or Ctrl-D to leave\n",
               TDSL_VERSION);
    buf_init(&text);
    while (!r.quit) {
        text.len = 0;
        if (!read_input(&r, &text))
            break;
        fflush(stdout);
        if (is_command(text.s)) {
            const char *c = text.s;
            while (*c == ' ' || *c == '\t')
                c++;
            command(&r, c);
        } else {
            eval_input(&r, text.s);
        }
        fflush(stdout);
        fflush(stderr);
    }
    if (r.interactive && !r.quit)
        putchar('\n');          /* Ctrl-D: end the prompt's line */
    buf_free(&text);
    free(r.next_line);
    repl_edit_close();
    itp_free(r.ip);
    tl_session_free(r.s);
    if (fflush(stdout) != 0)
        return EXIT_DIAG;
    return !r.interactive && r.failed ? EXIT_DIAG : EXIT_OK;
}
