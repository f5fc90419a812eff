/*
 * cmd_check.c - `tdsl check FILE...`: parse and check each file and
 * print every problem as file:line:col: error: message, with the source
 * line and a caret.  Prints nothing for a clean file.  The layouts of
 * accel schedules are checked against `--machine NAME|FILE` (default
 * test).  Exit 1 when any file has an error (warnings alone do not
 * count), 0 otherwise.
 */
#include "cli/cli.h"

#include <string.h>

/* Checks one file in a session of its own, so that one file's arena
 * and error count do not leak into the next. */
static int check_file(const char *path)
{
    TlSession *s = cli_session();
    TlProgram *prog = cli_parse(s, path);
    int status;

    /* With syntax errors the tree is partial: checking it would only
     * add follow-on errors about the parts that did not parse. */
    if (prog && s->nerrors == 0)
        cli_check(s, prog);
    status = (!prog || s->nerrors > 0) ? EXIT_DIAG : EXIT_OK;
    tl_session_free(s);
    return status;
}

int cmd_check(int argc, char **argv)
{
    int status = EXIT_OK, nfiles = 0, opts = 1;

    for (int i = 1; i < argc; i++) {
        if (opts && strcmp(argv[i], "--") == 0) {
            opts = 0;
        } else if (opts && strcmp(argv[i], "--machine") == 0) {
            if (i + 1 == argc)
                return cli_usage("check: --machine needs a machine name "
                                 "or file");
            if (cli_set_machine(argv[++i]) != EXIT_OK)
                return EXIT_USAGE;
            argv[i - 1] = argv[i] = NULL;
        } else if (opts && cli_is_option(argv[i])) {
            return cli_usage("check: unknown option '%s'", argv[i]);
        } else {
            nfiles++;
        }
    }
    if (nfiles == 0)
        return cli_usage("check: no file given (usage: tdsl check "
                         "FILE...)");
    opts = 1;
    for (int i = 1; i < argc; i++) {
        if (!argv[i])
            continue;
        if (opts && strcmp(argv[i], "--") == 0) {
            opts = 0;
            continue;
        }
        if (check_file(argv[i]) != EXIT_OK)
            status = EXIT_DIAG;
    }
    return status;
}
