#!/bin/sh
# gen-diag-list.sh - regenerate the list of diagnostics in lang/SPEC.md.
#
# Usage (from anywhere):  sh lang/gen-diag-list.sh [--stdout] [SPEC]
# Rewrites the text between <!-- diagnostics:begin --> and
# <!-- diagnostics:end --> in SPEC (default lang/SPEC.md) from
# lang/diag_msgs.h (id, severity, message format, by section) and one
# example per id, taken from tests/error/bad_*.tdsl (or tests/warning/,
# tests/diag/): the file whose "# expect:" message matches the format.
# --stdout prints the new section instead of writing SPEC.
# tests/cli/spec_diag_list.sh fails when the committed section is stale.
#
# The work is done by the python3 program below: it needs to escape
# raw bytes (NUL, invalid UTF-8) of the lexer tests, which sh and awk
# cannot do portably.

# A SPEC argument is relative to where the script was started.
GEN_DIAG_PWD=$(pwd)
export GEN_DIAG_PWD
cd "$(dirname "$0")/.." || exit 2
if ! command -v python3 >/dev/null 2>&1; then
    echo "gen-diag-list.sh: python3 not found" >&2
    exit 77
fi
exec python3 - "$@" <<'EOF'
import glob
import os
import re
import sys
import textwrap

BEGIN = "<!-- diagnostics:begin -->"
END = "<!-- diagnostics:end -->"
HEADER = "lang/diag_msgs.h"
MAX_SNIPPET = 8          # lines of an example shown before the error line

def die(msg):
    sys.stderr.write("gen-diag-list.sh: %s\n" % msg)
    sys.exit(2)

def c_string(body):
    """Decodes the escapes of a C string literal's body."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"',
                        "'": "'"}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)

def read_table():
    """[(section, [(id, severity, format)])] in header order."""
    sections, cur = [], None
    sec_re = re.compile(r"/\*\s*-+\s*(.*?)\s*-+\s*\*/")
    x_re = re.compile(r'^X\((\w+),\s*(\w+),\s*"((?:[^"\\]|\\.)*)"\)')
    with open(HEADER, encoding="utf-8") as f:
        for line in f:
            m = sec_re.match(line.strip())
            if m:
                cur = (m.group(1), [])
                sections.append(cur)
                continue
            m = x_re.match(line.strip())
            if m:
                if cur is None:
                    cur = ("general", [])
                    sections.append(cur)
                cur[1].append((m.group(1), m.group(2).lower(),
                               c_string(m.group(3))))
    return [s for s in sections if s[1]]

CONV = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d+))?(hh|h|ll|l|z|j|t)?([%sdicuxXfgeEGp])")

def format_regex(fmt):
    """A regex matching what printf(fmt, ...) can print, and the number
    of literal characters (to prefer the most specific format)."""
    out, pos, lit = [], 0, 0
    for m in CONV.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]))
        lit += m.start() - pos
        conv = m.group(5)
        if conv == "%":
            out.append("%")
            lit += 1
        elif conv in "diu":
            out.append(r"[-+]?\d+")
        elif conv in "xX":
            out.append(r"[0-9a-fA-F]+")
        else:
            out.append(r".*?")
        pos = m.end()
    out.append(re.escape(fmt[pos:]))
    lit += len(fmt) - pos
    return re.compile("^" + "".join(out) + "$"), lit

EXPECT = re.compile(rb"#\s*expect:\s*(\d+):(\d+):\s*(error|warning):\s*(.*?)\s*$")

def read_examples():
    """[(path, lines (bytes), [(line, col, severity, message)])]"""
    files = sorted(glob.glob("tests/error/bad_*.tdsl"))
    files += sorted(glob.glob("tests/error/*.tdsl"))
    files += sorted(glob.glob("tests/warning/*.tdsl"))
    seen, out = set(), []
    for path in files:
        if path in seen:
            continue
        seen.add(path)
        with open(path, "rb") as f:
            data = f.read()
        lines = data.split(b"\n")
        exp = []
        for raw in lines:
            m = EXPECT.search(raw)
            if m:
                exp.append((int(m.group(1)), int(m.group(2)),
                            m.group(3).decode(),
                            m.group(4).decode("utf-8", "backslashreplace")))
        if exp:
            out.append((path, lines, exp))
    return out

def pieces(b):
    """A line of source as printable pieces, one per column as the
    lexer counts them (a UTF-8 character or a byte): control bytes and
    invalid UTF-8 become \\xNN, so the spec stays valid UTF-8 text, and
    a tab four spaces."""
    out = []
    for c in b.decode("utf-8", "surrogateescape"):
        o = ord(c)
        if c == "\t":
            out.append("    ")
        elif 0xdc80 <= o <= 0xdcff:
            out.append("\\x%02x" % (o - 0xdc00))
        elif o < 0x20 or o == 0x7f:
            out.append("\\x%02x" % o)
        else:
            out.append(c)
    return out

def show(b):
    return "".join(pieces(b))

def strip_expect(b):
    """Removes an '# expect:' comment from a line of source."""
    i = b.find(b"# expect:")
    if i < 0:
        m = re.search(rb"#\s*expect:", b)
        i = m.start() if m else -1
    return b if i < 0 else b[:i].rstrip()

def snippet(lines, line):
    """The source lines shown for an error on `line`: from the first
    line that is not a header comment or blank, at most MAX_SNIPPET
    lines before it, up to and including the error line."""
    first = 0
    while first < line - 1 and (not lines[first].strip() or
                                lines[first].lstrip().startswith(b"#")):
        first += 1
    first = max(first, line - 1 - MAX_SNIPPET)
    shown = []
    for i in range(first, min(line, len(lines))):
        b = lines[i]
        if re.match(rb"\s*#\s*expect:", b):
            continue
        shown.append((i + 1, strip_expect(b)))
    return shown

def name_distance(ident, path):
    """How well a test file's name fits an id: 0 when it is the id
    (bad_sched_arity.tdsl for SCHED_ARITY), 1 when it shares a word
    with it, 2 otherwise.  Decides between ids whose formats are the
    same."""
    base = os.path.basename(path)[:-len(".tdsl")]
    if base.startswith("bad_"):
        base = base[4:]
    words = set(ident.lower().split("_"))
    if base == ident.lower():
        return 0
    return 1 if words & set(base.split("_")) else 2

def pick(ident, regex, spec_lit, formats, examples):
    """The best example for one id: a file with a matching message for
    which no other format matches more specifically; by how well the
    file's name fits the id, then fewest expected diagnostics, then
    shortest, then by name."""
    best = None
    for path, lines, exp in examples:
        for line, col, sev, msg in exp:
            if not regex.match(msg):
                continue
            if any(o != ident and r.match(msg) and lit > spec_lit
                   for o, r, lit in formats):
                continue
            key = (name_distance(ident, path), len(exp), len(lines), path)
            if best is None or key < best[0]:
                best = (key, path, lines, line, col, sev, msg)
            break
    return best

def caret_line(b, col):
    """Spaces under the columns before col, then a caret."""
    return " " * sum(len(p) for p in pieces(b)[:col - 1]) + "^"

def generate():
    sections = read_table()
    examples = read_examples()
    formats = []
    for _, entries in sections:
        for ident, sev, fmt in entries:
            r, lit = format_regex(fmt)
            formats.append((ident, r, lit))
    total = sum(len(e) for _, e in sections)
    o = [BEGIN, ""]
    o.append("<!-- Generated by lang/gen-diag-list.sh from "
             "lang/diag_msgs.h and tests/error/; do not edit by hand. -->")
    o.append("")
    o.extend(textwrap.wrap(
        "%d diagnostics.  Each entry gives the id (as in "
        "`lang/diag_msgs.h`), the default severity, the message "
        "format (`%%s`, `%%d` and the like stand for the details "
        "filled in), and an example: the input from the test file "
        "named, and the diagnostic `tdsl check` reports for it."
        % total, 72))
    o.append("")
    for title, entries in sections:
        o.append("### %s" % title[:1].upper() + title[1:])
        o.append("")
        for ident, sev, fmt in entries:
            r, lit = format_regex(fmt)
            o.append("#### `%s` (%s)" % (ident, sev))
            o.append("")
            o.append("    %s" % fmt)
            o.append("")
            ex = pick(ident, r, lit, formats, examples)
            if ex is None:
                o.append("No example in `tests/error/` yet.")
                o.append("")
                continue
            _, path, lines, line, col, esev, msg = ex
            o.append("Example (`%s`):" % path)
            o.append("")
            o.append("```")
            shown = snippet(lines, line)
            width = len(str(line))
            for n, text in shown:
                o.append(("%*d | %s" % (width, n, show(text))).rstrip())
            if shown and shown[-1][0] == line:
                o.append("%s | %s" % (" " * width,
                                      caret_line(shown[-1][1], col)))
            o.append("")
            o.append("%s:%d:%d: %s: %s" % (os.path.basename(path), line,
                                           col, esev, msg))
            o.append("```")
            o.append("")
    o.append(END)
    return "\n".join(o) + "\n"

def main(argv):
    to_stdout = False
    spec = "lang/SPEC.md"
    for a in argv:
        if a == "--stdout":
            to_stdout = True
        elif a.startswith("-"):
            die("unknown option '%s' (usage: gen-diag-list.sh "
                "[--stdout] [SPEC])" % a)
        else:
            spec = os.path.join(os.environ.get("GEN_DIAG_PWD", "."), a)
    section = generate()
    if to_stdout:
        sys.stdout.write(section)
        return 0
    with open(spec, encoding="utf-8") as f:
        text = f.read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        die("%s has no %s ... %s markers" % (spec, BEGIN, END))
    rest = text[e + len(END):]
    if rest.startswith("\n"):
        rest = rest[1:]
    new = text[:b] + section + rest
    if new != text:
        with open(spec, "w", encoding="utf-8") as f:
            f.write(new)
    return 0

sys.exit(main(sys.argv[1:]))
EOF
