/*
 * fuzz_onnx.c - libFuzzer target over the ONNX importer: each input is
 * imported as a model.onnx held in memory (tl_onnx_import_mem), which
 * reads it, builds the graph, emits tdsl text and parses and checks
 * that text, writing no file.  Built and run by `make fuzz` with ASan
 * and UBSan, so a crash, leak, hang or undefined behaviour is a
 * failure.  Beyond "no crash" it checks that a successful import gave
 * some text and that the text parses again without errors.
 */
#include "parser/parser.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink(void)
{
    static FILE *devnull;

    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    return devnull;
}

/* The canonical text must parse again cleanly. */
static void reparse(const char *text)
{
    TlSession *s = tl_session_new();
    jmp_buf boundary;
    TlProgram *prog = NULL;

    s->diag_out = sink();
    s->fatal = &boundary;
    if (setjmp(boundary) == 0)
        prog = tl_parse_string(s, "fuzz.tdsl", text, strlen(text));
    if (!prog || s->nerrors) {
        fprintf(stderr, "fuzz_onnx: imported text does not parse:\n%s\n",
                text);
        abort();
    }
    tl_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TlSession *s = tl_session_new();
    TlBuf text;

    s->diag_out = sink();
    prs_install_loader(s, NULL);
    buf_init(&text);
    if (tl_onnx_import_mem(s, data, size, "fuzz.onnx", "fuzz.tdsl",
                           &text) == 0) {
        if (!text.s || !*text.s) {
            fprintf(stderr, "fuzz_onnx: import gave no text\n");
            abort();
        }
        reparse(text.s);
    }
    buf_free(&text);
    tl_session_free(s);
    return 0;
}
