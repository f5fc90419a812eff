/*
 * cli.h - what the files of the `tdsl` program share: exit codes, the
 * commands, and the helpers that set up a session and parse or check a
 * file under the session's fatal-error boundary.
 *
 * The program uses only the public API (lang/lang.h, parser/parser.h);
 * it is a thin layer of argument parsing and output.
 */
#ifndef TDSL_CLI_H
#define TDSL_CLI_H

#include "lang/lang.h"
#include "parser/parser.h"

/* One --in/--out/--param of `tdsl run`: NAME (NULL when bare) and the
 * rest.  An element of a sequence (cli/run_seq.c): elem >= 0, and for
 * an input its tensor, read already. */
typedef struct Bind {
    const char *name;
    char *spec;             /* FILE[:KEY] or VALUE; owned */
    int elem;               /* -1: not a sequence's element */
    int opt;                /* an element's: the elem_type of its
                               optional (0, 1, 3), or -1 (a sequence) */
    TlTensor *value;        /* owned reference, or NULL */
} Bind;

/* run_seq.c: the sequences of an imported ONNX model ("# onnx-sequence-
 * input #0: 'xs' = xs_0, xs_1"): each --in or --out that names one (by
 * its ONNX name, or by place among the bare ones, f[n] being the
 * kernel's parameters or outputs) becomes one named bind per element;
 * an input's SequenceProto file is read here.  Optionals the same
 * ("# onnx-optional-input #0: 'x' = tensor x", an OptionalProto file);
 * the files of output optionals without an element are added to
 * none[nnone], written after the run (cli_opt_write_none).  kind:
 * "input" or "output".  EXIT_OK or a message. */
int cli_seq_expand(const TlProgram *prog, TlFunc **f, int n, Bind **b,
                   int *nb, const char *kind, char ***none, int *nnone);
/* Writes an OptionalProto without an element to each of files[n]. */
int cli_opt_write_none(char **files, int n);
/* Writes the outputs res[n] bound to the sequence file of slot[i],
 * when i is the first of them; EXIT_OK or a message. */
int cli_seq_write(TlFunc **f, int n, TlTensor **res, Bind **slot, int i);

/* Exit codes, as ARCHITECTURE.md fixes them. */
enum {
    EXIT_OK = 0,        /* success */
    EXIT_DIAG = 1,      /* a problem in the user's program or input */
    EXIT_USAGE = 2,     /* bad command line */
    EXIT_INTERNAL = 3   /* a bug in tdsl */
};

/* The commands: argv[0] is the command name, options and files
 * follow.  Each returns an exit code. */
int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_dump(int argc, char **argv);
/* cmd_run.c: `tdsl run ...` (argv[0] "run"), and `tdsl FILE.tdsl`
 * (argv[0] the script, nothing after it). */
int cmd_run(int argc, char **argv);
int cmd_script(int argc, char **argv);
/* cmd_import.c: `tdsl import MODEL.onnx ...` (parser/onnx/). */
int cmd_import(int argc, char **argv);

/* cmd_asm.c: `tdsl asm`, `tdsl disasm`; cmd_sim.c: `tdsl sim`. */
int cmd_asm(int argc, char **argv);
int cmd_disasm(int argc, char **argv);
int cmd_sim(int argc, char **argv);
/* cmd_asm.c: does s end with suffix?  The machine of a --machine
 * option (NULL for a NULL spec, or after a message); an accelerator
 * program from a .tam or an assembly file (NULL after a message). */
int cli_ends_with(const char *s, const char *suffix);
struct AccMachine;
struct AccProgram;
const struct AccMachine *cli_machine(TlSession *s, const char *spec);
struct AccProgram *cli_load_program(TlSession *s, const char *path,
                                    const struct AccMachine *m,
                                    int compress);

/* cmd_lower.c, cmd_compile.c, cmd_cache.c: the C backend's commands. */
int cmd_lower(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_cache(int argc, char **argv);

/* The command line of `tdsl lower` and `tdsl compile` (cmd_lower.c):
 * FILE, --kernel K, --target T (default cpu), --in [NAME=]TYPE for a
 * generic kernel's inputs, and for compile -o PATH (several) and
 * --symbol NAME, and --machine M (--target accel; it is also made the
 * machine of cli_check_machine).  The strings point into argv. */
typedef struct CliKernelArgs {
    const char *cmd, *file, *kernel, *target, *symbol, *machine;
    const char **in;
    int nin;
    const char **outs;
    int nout;
    /* lower --target accel: --explain, --size NAME=N... */
    int explain;
    int simulate;           /* --simulate: the plan's conversions run */
    const char **sizes;
    int nsizes;
} CliKernelArgs;

/* Parses argv (argv[0] the command); EXIT_OK or EXIT_USAGE after a
 * message. */
int cli_kernel_args(int argc, char **argv, int compile, CliKernelArgs *a);
void cli_kernel_args_free(CliKernelArgs *a);
/* cmd_compile_accel.c: `tdsl compile --target accel` (a parsed command
 * line, target accel). */
int cli_compile_accel(const CliKernelArgs *a);
/* The accel program of a call of k (the assembly, with a `.machine`
 * line when m is a built-in) appended to text: for the inputs given
 * (only their shapes are used), else for the shapes of specs (types
 * with numbers or .npy files, "X=f32[8]" or by position) and k's
 * constant extents.  An exit status, after a message; cmd names the
 * command in them ("compile", "asm"). */
struct AccMachine;
int cli_accel_program(TlSession *s, const char *cmd, TlKernelInfo *k,
                      TlTensor *const *given, const char *const *specs,
                      int nspecs, const struct AccMachine *m, TlBuf *text);
/* The kernel a names in prog, checked and not generic (a generic one's
 * instance for --in's types); NULL after a message, *status set. */
TlKernelInfo *cli_kernel_of(TlSession *s, TlProgram *prog,
                            const CliKernelArgs *a, int *status);
/* The instance of generic kernel g for the types in[0..nin) ("X=f32[N,
 * M]", or by position "f32[N]"; a .npy file gives its tensor's);
 * NULL after a message, *status set.  cmd names the command in
 * messages ("lower", or ":lower" in the REPL). */
TlKernelInfo *cli_instance(TlSession *s, const char *cmd, TlKernelInfo *g,
                           const char *const *in, int nin, int *status);
/* Parses and checks a->file, then returns fn on its kernel (run under
 * the session's fatal boundary), or the status of what went wrong. */
int cli_with_kernel(const CliKernelArgs *a,
                    int (*fn)(TlSession *s, TlKernelInfo *k,
                              const CliKernelArgs *a));

/* `tdsl lower --target accel --explain`: the layout plan of k
 * (cmd_plan.c).  Returns an exit status. */
int cli_lower_accel(TlSession *s, TlKernelInfo *k, const CliKernelArgs *a);

/* Prints "tdsl: MESSAGE" and "try 'tdsl --help'" on stderr and returns
 * EXIT_USAGE, so a command can `return cli_usage(...)`. */
int cli_usage(const char *fmt, ...) TL_PRINTF(1, 2);

/* A new session set up for the command line: diagnostics on stderr,
 * colour only on a terminal (and not under NO_COLOR), imports of std
 * modules from the source tree's stdlib/ when this is the uninstalled
 * ./tdsl, else from the installed copy.  Free with tl_session_free. */
TlSession *cli_session(void);

/* Parses PATH ("-" is standard input) in session S.  Returns NULL when
 * the file cannot be read or a fatal diagnostic stopped the parse
 * (both already reported).  Syntax errors leave s->nerrors > 0. */
TlProgram *cli_parse(TlSession *s, const char *path);

/* Checks PROG (tl_check) under the fatal boundary, then the layouts of
 * its accel schedules against the machine of cli_set_machine.  Returns
 * the number of errors of the session. */
int cli_check(TlSession *s, TlProgram *prog);

/* The accelerator machine commands use (a --machine option: a built-in
 * name or a machine file; "test" when none is given).  Returns
 * EXIT_OK, or EXIT_USAGE after saying why SPEC is no machine. */
int cli_set_machine(const char *spec);
/* That machine, in s's arena for a file. */
const struct AccMachine *cli_check_machine(TlSession *s);
/* cmd_layout.c: `tdsl layout ...` (codegen/acc/layout.h). */
int cmd_layout(int argc, char **argv);
/* What `tdsl layout` (and the REPL's :layout) draws: the layout of
 * tensor `tensor` of kernel kobj (or of the kernel named `kernel` in
 * `file`), sizes from "N=128" strings, unless `layout` (with `shape`
 * when there is no kernel) gives one; with `to`, the conversion's
 * plan; svg and asm_ name files to write. */
typedef struct CliLayout {
    const char *file, *kernel, *tensor, *layout, *to, *svg, *shape, *asm_;
    const char *sizes[16];
    int nsizes;
    struct {
        int max_rows, max_blocks;   /* 0: all */
    } draw;
    TlKernelInfo *kobj;
} CliLayout;
/* The drawing (and the plan) appended to out; the layout alone, in
 * canonical form.  Exit statuses, after a message. */
int cli_layout_draw(TlSession *s, const CliLayout *o, TlBuf *out);
int cli_layout_text(TlSession *s, const CliLayout *o, TlBuf *out);
/* Set while the REPL runs a command: cli_usage prints ":MESSAGE" and
 * no hint to --help. */
extern int cli_repl;

/* Writes a printer's buffer to stdout and flushes it.  Returns EXIT_OK,
 * or EXIT_DIAG after a message when stdout fails (a full disk). */
int cli_put(const TlBuf *b);
/* Writes b to path whole or not at all (a temporary file renamed into
 * place).  EXIT_OK, or EXIT_DIAG after a message. */
int cli_write_file(const char *path, const TlBuf *b);

/* The kernel a command works on: `name` (in the file, else in what
 * it imports), or the file's only kernel when name is NULL.  NULL
 * after a message (*status set: EXIT_USAGE for a wrong or missing
 * name, EXIT_DIAG when the file has no kernel).  cmd names the command
 * in messages ("run"). */
TlKernelInfo *cli_find_kernel(const TlProgram *prog, const char *cmd,
                              const char *file, const char *name,
                              int *status);

/* Is ARG an option ("-x", "--xyz"), not a file ("-" is a file)? */
int cli_is_option(const char *arg);

/* Is ARG the option OPT, alone or as `OPT=VALUE`? */
int cli_opt_is(const char *arg, const char *opt);

/* The value of option argv[*i], which cli_opt_is matched against OPT:
 * after its '=', else the next argument (*i steps over it); NULL when
 * there is none. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *opt);

#endif
