/*
 * fuzz_front.c - libFuzzer target over the front end: lexer, parser,
 * checker and printer, on arbitrary bytes.  Built and run by `make
 * fuzz` with ASan and UBSan, so a crash, leak, hang or undefined
 * behaviour is a failure.  Beyond "no crash" it checks one property:
 * a program that parses prints (tdsl fmt) to text that parses again to
 * the same tree.  Imports are not followed (no loader is installed), so
 * the fuzzer never reads files.
 */
#include "lang/lang.h"
#include "parser/parser.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Diagnostics are rendered (that code is fuzzed too) but not shown. */
static FILE *sink(void)
{
    static FILE *devnull;

    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    return devnull;
}

/* Parses TEXT in a fresh session, returning its tree dump, or NULL on
 * syntax errors.  Runs the checker when CHECK is set.  Heap-owned
 * result; free it. */
static char *parse_and_dump(const char *text, size_t len, int check,
                            char **printed)
{
    TlSession *s = tl_session_new();
    jmp_buf boundary;
    char *volatile dump = NULL;

    s->diag_out = sink();
    s->fatal = &boundary;
    if (setjmp(boundary) == 0) {
        TlProgram *prog = tl_parse_string(s, "fuzz.tdsl", text, len);
        if (prog && s->nerrors == 0) {
            TlBuf b;
            buf_init(&b);
            ast_dump_program(&b, prog);
            dump = tl_xstrdup(b.s ? b.s : "");
            buf_free(&b);
            if (printed) {
                buf_init(&b);
                ast_print_program(&b, prog);
                *printed = tl_xstrdup(b.s ? b.s : "");
                buf_free(&b);
            }
            if (check)
                tl_check(s, prog);
        }
    }
    tl_session_free(s);
    return dump;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *printed = NULL;
    char *dump1 = parse_and_dump((const char *)data, size, 1, &printed);

    if (dump1) {
        char *dump2 = parse_and_dump(printed, strlen(printed), 0, NULL);
        if (!dump2 || strcmp(dump1, dump2) != 0) {
            fprintf(stderr, "fuzz_front: fmt output %s:\n%s\n",
                    dump2 ? "parses to a different tree"
                          : "does not parse",
                    printed);
            abort();
        }
        free(dump2);
    }
    free(dump1);
    free(printed);
    return 0;
}
