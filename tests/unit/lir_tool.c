/*
 * lir_tool.c - runs loop IR passes on text files, for the IR golden
 * tests: tests/ir/PASS/NAME.lir, compared by tests/run.sh.
 *
 *   lir_tool                    self-check (what `make check` runs)
 *   lir_tool --print FILE       parse, verify and print FILE
 *   lir_tool --pass NAME FILE   the same, with pass NAME run between
 *
 * The result is verified after the pass.  Exit status: 0 success, 1 a
 * parse error or a verification failure (messages on stderr), 2 bad
 * usage.
 */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    TlBuf b;
    char chunk[4096];
    size_t n;

    if (!fp) {
        fprintf(stderr, "lir_tool: cannot open '%s'\n", path);
        return NULL;
    }
    buf_init(&b);
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        buf_putn(&b, chunk, n);
    fclose(fp);
    buf_putc(&b, 0);
    *len = b.len - 1;
    return b.s;
}

/* Parses and verifies; NULL after printing why. */
static LFunc *load(TlSession *s, const char *name, const char *text,
                   size_t len)
{
    TlBuf err;
    LFunc *f;

    buf_init(&err);
    f = lir_parse(s, name, text, len, &err);
    if (f && lir_verify(f, &err)) {
        fprintf(stderr, "%s: not well formed:\n", name);
        f = NULL;
    }
    if (!f)
        fputs(err.s ? err.s : "", stderr);
    buf_free(&err);
    return f;
}

/* Runs the pass (or none) on f and prints the result; 0 on success. */
static int run(TlSession *s, LFunc *f, const char *pass)
{
    LFunc *g = f;
    TlBuf out, err;
    int rc = 0;

    if (pass) {
        const LPass *p = lir_pass_find(pass);
        if (!p) {
            fprintf(stderr, "lir_tool: unknown pass '%s'\n", pass);
            return 2;
        }
        g = p->run(s, f);
    }
    buf_init(&out);
    buf_init(&err);
    if (lir_verify(g, &err)) {
        fprintf(stderr, "after pass '%s': not well formed:\n%s", pass,
                err.s);
        rc = 1;
    }
    lir_print_func(&out, g);
    fputs(out.s, stdout);
    buf_free(&out);
    buf_free(&err);
    return rc;
}

/* A parse, print, parse and simplify of a small function. */
static int self_check(void)
{
    static const char text[] =
        "func scale(A: f32*, B: f32*, n: i32) {\n"
        "  let two = 2.0\n"
        "  parallel for i in 0 .. n / 16 {\n"
        "    vectorized(16) for j in 0 .. 16 {\n"
        "      B[i * 16 + j] = A[(i * 16 + j + 0) * 1] * two\n"
        "    }\n"
        "  }\n"
        "}\n";
    static const char want[] =
        "func scale(A: f32*, B: f32*, n: i32) {\n"
        "  parallel for i in 0 .. n / 16 {\n"
        "    vectorized(16) for j in 0 .. 16 {\n"
        "      B[i * 16 + j] = A[i * 16 + j] * 2.0\n"
        "    }\n"
        "  }\n"
        "}\n";
    TlSession *s = tl_session_new();
    LFunc *f = load(s, "self-check", text, sizeof text - 1), *g;
    TlBuf out;
    int rc = 1;

    buf_init(&out);
    if (f) {
        g = lir_func(s, f->name, f->params, f->nparams,
                     lir_simplify(s, f->body));
        lir_print_func(&out, g);
        if (!strcmp(out.s, want))
            rc = 0;
        else
            fprintf(stderr, "self-check printed:\n%s", out.s);
    }
    buf_free(&out);
    tl_session_free(s);
    return rc;
}

int main(int argc, char **argv)
{
    const char *pass = NULL, *path;
    TlSession *s;
    char *text;
    size_t len;
    LFunc *f;
    int rc;

    if (argc == 1)
        return self_check();
    if (argc == 3 && !strcmp(argv[1], "--print")) {
        path = argv[2];
    } else if (argc == 4 && !strcmp(argv[1], "--pass")) {
        pass = argv[2];
        path = argv[3];
    } else {
        fprintf(stderr, "usage: lir_tool [--print FILE | --pass NAME "
                "FILE]\n");
        return 2;
    }
    text = read_file(path, &len);
    if (!text)
        return 1;
    s = tl_session_new();
    f = load(s, path, text, len);
    rc = f ? run(s, f, pass) : 1;
    tl_session_free(s);
    free(text);
    return rc;
}
