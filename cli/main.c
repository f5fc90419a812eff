/*
 * main.c - the `tdsl` program: dispatch to a command, --help and
 * --version.  The commands live in cli/cmd_*.c.
 *
 * Exit codes: 0 success, 1 a problem in the user's program, 2 bad
 * usage, 3 internal error.  A crash is an internal error too: a signal
 * handler turns it into exit 3 with a request to report it.
 */
#include "cli/cli.h"
#include "cli/repl.h"
#include "codegen/codegen.h"
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* `issue` names the issue that brings a command still to come. */
static const struct Command {
    const char *name;
    int (*run)(int argc, char **argv);
    int issue;
} commands[] = {
    {"check", cmd_check, 0},
    {"fmt", cmd_fmt, 0},
    {"dump", cmd_dump, 0},
    {"run", cmd_run, 0},
    {"repl", cmd_repl, 0},
    {"lower", cmd_lower, 0},
    {"compile", cmd_compile, 0},
    {"cache", cmd_cache, 0},
    {"bench", NULL, 4},
    {"import", cmd_import, 0},
    {"asm", cmd_asm, 0},
    {"disasm", cmd_disasm, 0},
    {"sim", cmd_sim, 0},
    {"layout", cmd_layout, 0},
};

static const char usage_text[] =
    "usage: tdsl COMMAND [ARG]...\n"
    "\n"
    "commands:\n"
    "  check FILE... [--machine M] parse and check; print every problem\n"
    "  fmt FILE                   print the canonical form ('-': stdin)\n"
    "  fmt --check FILE...        exit 1 if a file is not canonical\n"
    "  fmt -w FILE...             rewrite files in canonical form\n"
    "  dump --ast FILE            print the syntax tree\n"
    "  repl [--machine M]         the interactive REPL (:help there)\n"
    "  FILE.tdsl [--machine M]    run a script (tdsl FILE.tdsl); M, the\n"
    "                             machine of 'on accel': tiny|test|mn2|FILE\n"
    "  import MODEL.onnx [-o OUT.tdsl] [--bind NAME=1x3x8x8|FILE.pb]...\n"
    "                             ONNX model to tdsl source + weights\n"
    "  run FILE [--kernel K] [--in [NAME=]FILE[:KEY]]...\n"
    "      [--out [NAME=]FILE[:KEY]]... [--param NAME=VALUE]...\n"
    "      [--target T] [--machine M]\n"
    "                             run one kernel on .npy/.safetensors/.pb\n"
    "                             files (outputs not given: printed)\n"
    "  asm K.s [-o K.tam] [--machine M]   accelerator assembly to binary\n"
    "  disasm K.tam [-o K.s]      accelerator binary to assembly\n"
    "  sim K.tam|K.s [--machine tiny|test|mn2|FILE] [--in NAME=A.npy]...\n"
    "      [--out NAME=C.npy]... [--stats] [--lenient] [--expand]\n"
    "      [--trace OUT.svg]      run on the accelerator simulator; the\n"
    "                             trace: a timeline of each unit and link\n"
    "  layout --shape f32[128,64] --layout TEXT [--machine M] [--svg F]\n"
    "  layout FILE --kernel K --tensor A [--size M=128]... [--to TEXT]\n"
    "                             draw a tensor's accelerator layout; with\n"
    "                             --to, a conversion and its cost\n"
    "  lower FILE [--kernel K] [--target cpu] [--in [NAME=]TYPE]...\n"
    "                             the loop IR after scheduling and passes\n"
    "                             (--in X=f32[N, M]: a generic kernel's\n"
    "                             input dtypes and ranks)\n"
    "  lower FILE --kernel K --target accel --explain [--machine M]\n"
    "      [--size NAME=N]... [--simulate]\n"
    "                             the accelerator layout plan, with reasons;\n"
    "                             --simulate runs its conversions\n"
    "  compile FILE [--kernel K] [--target cpu] [--in [NAME=]TYPE]...\n"
    "      [--symbol NAME] [-o OUT.c|OUT.so|OUT.h]...\n"
    "                             an ahead-of-time kernel: C source, shared\n"
    "                             object, header (docs/c-abi.md)\n"
    "  compile FILE [--kernel K] --target accel [--machine M]\n"
    "      [--in [NAME=]f32[1024]|FILE.npy]... [-o OUT.s|OUT.tam]...\n"
    "                             the accelerator program of one call\n"
    "  cache [clear]              the compiled-kernel cache: where, how big;\n"
    "                             clear removes the compiled kernels\n"
    "\n"
    "coming:\n"
    "  bench                      benchmarks               (issue 4)\n"
    "\n"
    "options:\n"
    "  -h, --help                 show this help\n"
    "  --version                  print the version\n"
    "  --no-cache                 compile kernels without the cache (any\n"
    "                             command, e.g. tdsl --no-cache FILE.tdsl)\n"
    "\n"
    "exit status: 0 ok, 1 problems in the program, 2 bad usage,\n"
    "3 internal error (a bug in tdsl: please report it)\n";

static int not_yet(const char *what, int issue)
{
    fprintf(stderr, "tdsl: '%s' is not implemented yet (see issue %d)\n",
            what, issue);
    return EXIT_USAGE;
}

/* Removes every --no-cache before a "--" from argv (a global option,
 * accepted before the command or among its arguments) and turns the
 * cache off when there was one.  Returns the new argc. */
static int take_no_cache(int argc, char **argv)
{
    int n = 1, off = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < argc)
                argv[n++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--no-cache"))
            off = 1;
        else
            argv[n++] = argv[i];
    }
    argv[n] = NULL;
    if (off)
        cgc_cache_enable(0);
    return n;
}

/* --------------------------------------------------------------------
 * Crashes.  Only async-signal-safe calls in the handler: write, _exit.
 * -------------------------------------------------------------------- */

static void on_crash(int sig)
{
    static const char msg[] =
        "tdsl: internal error: crashed (signal ";
    static const char tail[] =
        ")\nthis is a bug in tdsl; please report it with the input that "
        "triggered it\n";
    char num[4];
    int n = 0;

    /* tl_internal_error has already explained an abort. */
    if (sig != SIGABRT) {
        if (sig >= 100)
            num[n++] = (char)('0' + sig / 100);
        if (sig >= 10)
            num[n++] = (char)('0' + sig / 10 % 10);
        num[n++] = (char)('0' + sig % 10);
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)!write(STDERR_FILENO, num, (size_t)n);
        (void)!write(STDERR_FILENO, tail, sizeof tail - 1);
    }
    _exit(EXIT_INTERNAL);
}

/* AddressSanitizer reports a crash better than we can; leave the
 * faults to it in sanitizer builds. */
#if defined(__SANITIZE_ADDRESS__)
#define TDSL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TDSL_ASAN 1
#endif
#endif

static void catch_crashes(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, NULL);
#ifndef TDSL_ASAN
    /* A stack overflow can only be reported from a separate stack. */
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    if (sigaltstack(&ss, NULL) == 0)
        sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
#endif
}

/* -------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *cmd;

    catch_crashes();
    cgc_register_targets();
    argc = take_no_cache(argc, argv);
    acc_cg_register_target();
    if (argc < 2)
        return cmd_repl(0, NULL);
    cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tdsl %s\n", TDSL_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct Command *c = &commands[i];
        if (strcmp(cmd, c->name) != 0)
            continue;
        if (!c->run)
            return not_yet(c->name, c->issue);
        /* `tdsl fmt --help` shows the help, as people try that first. */
        for (int j = 2; j < argc && strcmp(argv[j], "--") != 0; j++)
            if (strcmp(argv[j], "-h") == 0 ||
                strcmp(argv[j], "--help") == 0) {
                fputs(usage_text, stdout);
                return EXIT_OK;
            }
        return c->run(argc - 1, argv + 1);
    }
    if (cli_is_option(cmd))
        return cli_usage("unknown option '%s'", cmd);
    /* `tdsl FILE.tdsl` runs a script; anything else with a path look
     * is taken for one too, so a typo'd file name is not reported as
     * an unknown command. */
    size_t n = strlen(cmd);
    if ((n > 5 && strcmp(cmd + n - 5, ".tdsl") == 0) || strchr(cmd, '/'))
        return cmd_script(argc - 1, argv + 1);
    return cli_usage("unknown command '%s'", cmd);
}
