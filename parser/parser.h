/*
 * parser.h - text to AST.  The re2c lexer (lexer.re) produces tokens;
 * the driver (parse.c) decides which newlines matter and pushes tokens
 * into the Lemon parser (grammar.y), whose actions call the ast_
 * constructors of lang/.  Syntax errors are reported through the
 * session's diagnostics, with recovery at statement and item
 * boundaries.
 */
#ifndef TL_PARSER_H
#define TL_PARSER_H

#include "lang/lang.h"

/* Parses source `file` (an id from tl_add_source/tl_add_file) into a
 * program.  Never returns NULL: on syntax errors the program holds the
 * items that parsed, and prog->nerrors counts the errors reported
 * (lexical, syntax, and a fatal TOO_DEEP or the error cap, which end
 * the parse early).  Comments are collected in prog->comments for the
 * printer.  For each item and statement, end_line is the line of its
 * last token, and blank_before is set when a blank line (only spaces)
 * lies between it and the previous item or statement of the same list
 * (or the `{` of its body, or the start of the file), whether or not
 * comment lines lie in between too.
 *
 * prs_parse sets its own fatal-error boundary (s->fatal, restored on
 * return), so diag_fatal while parsing comes back here; everything it
 * allocates outside the arena is freed on both paths.  Sources over
 * 16 MiB are refused with INPUT_TOO_LARGE. */
TlProgram *prs_parse(TlSession *s, int file);

/* Convenience: reads the file, parses it.  NULL if unreadable. */
TlProgram *tl_parse_file(TlSession *s, const char *path);
TlProgram *tl_parse_string(TlSession *s, const char *name,
                           const char *text, size_t len);

/* Installs the parser as the session's import hook (s->load_module),
 * searching std modules under std_path (which must outlive the
 * session).  The hook resolves `std.a.b` to <std_path>/a/b.tdsl, any
 * other dotted name and any quoted path relative to the importing
 * file's folder, parses each module once per session (s->modules), and
 * loads what a new module imports in turn.  It returns NULL after
 * reporting MODULE_NOT_FOUND, IMPORT_UNREADABLE or IMPORT_CYCLE (an
 * import that leads back to the importing file) at `loc`, and also,
 * silently, for a module whose own syntax errors were reported when
 * it was loaded. */
void prs_install_loader(TlSession *s, const char *std_path);

/* ====================================================================
 * ONNX import (parser/onnx/)
 * ==================================================================== */

/* A graph input specialised on the command line: spec is a shape
 * ("1x3x224x224", "" for rank 0) or a tensor file (.pb, .npy) whose
 * shape, and value, the input takes (a bound value is folded where an
 * op needs it at import: Reshape's shape, ...). */
typedef struct TlOnnxBind {
    const char *name;
    const char *spec;
} TlOnnxBind;

/* Imports the ONNX model at `model` into tdsl source at `out` (the
 * weights, when there are any, go to `out` with .tdsl replaced by
 * .safetensors).  The text is parsed, checked and printed in canonical
 * form in session s (which must have the loader installed) before it
 * is written to a temporary file and renamed, so nothing partial is
 * left behind.  Problems are printed on stderr, one line each
 * ("model.onnx: node 'x' (NonZero, opset 13): unsupported op
 * 'NonZero'"); returns 0 or
 * -1. */
int tl_onnx_import(TlSession *s, const char *model, const char *out,
                   const TlOnnxBind *binds, int nbinds);

/* Writes the graph of the ONNX model at `model` in Graphviz DOT form to
 * `out` (stdout when NULL): ops as boxes, graph inputs and outputs as
 * ellipses with their declared shapes, an edge per tensor read.
 * Problems are printed on stderr; returns 0 or -1. */
int tl_onnx_dot(const char *model, const char *out);

/* The same for a model held in memory (named `name` in messages), with
 * no binds and no file written: the canonical text is appended to
 * `text` (naming `out` and its .safetensors, which are not written).
 * External data is refused.  For the fuzzer and tests. */
int tl_onnx_import_mem(TlSession *s, const void *data, size_t n,
                       const char *name, const char *out, TlBuf *text);

#endif
