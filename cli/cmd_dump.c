/*
 * cmd_dump.c - `tdsl dump --ast|--pipeline FILE`: print the syntax tree
 * of a file as an indented dump without locations (ast_dump_program),
 * so that tests can compare two parses, or the checked pipeline
 * (tl_dump_pipeline).  Exit 1 on errors, with nothing on stdout.
 */
#include "cli/cli.h"

#include <string.h>

int cmd_dump(int argc, char **argv)
{
    const char *kind = NULL, *path = NULL;
    int opts = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0)
            opts = 0;
        else if (opts && strcmp(a, "--ast") == 0)
            kind = "ast";
        else if (opts && strcmp(a, "--pipeline") == 0)
            kind = "pipeline";
        else if (opts && cli_is_option(a))
            return cli_usage("dump: unknown option '%s'", a);
        else if (path)
            return cli_usage("dump: one file at a time");
        else
            path = a;
    }
    if (!kind)
        return cli_usage("dump: say what to dump (usage: tdsl dump "
                         "--ast|--pipeline FILE)");
    if (!path)
        return cli_usage("dump: no file given (usage: tdsl dump "
                         "--ast|--pipeline FILE)");

    TlSession *s = cli_session();
    TlProgram *prog = cli_parse(s, path);
    int status = EXIT_DIAG;

    if (prog && s->nerrors == 0 && strcmp(kind, "pipeline") == 0 &&
        cli_check(s, prog) != 0)
        prog = NULL;
    if (prog && s->nerrors == 0) {
        TlBuf out;
        buf_init(&out);
        if (strcmp(kind, "pipeline") == 0)
            tl_dump_pipeline(&out, s, prog);
        else
            ast_dump_program(&out, prog);
        status = cli_put(&out);
        buf_free(&out);
    }
    tl_session_free(s);
    return status;
}
