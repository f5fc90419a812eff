#!/usr/bin/python3
# pty_driver.py - replays a REPL test against tdsl and compares what a
# user would see.
#
#   pty_driver.py TDSL FILE.transcript   tdsl in a pseudo-terminal
#   pty_driver.py TDSL FILE.pipe         tdsl repl reading a pipe
#
# --update rewrites a .transcript's expected output with what tdsl
# printed (after showing the diff), keeping its inputs and comments.
#
# Exit 0 when the output matches, 1 with a diff when not, 77 when a
# pseudo-terminal cannot be had.  Only the standard library is used.
#
# A .transcript reads like the terminal: a line starting with the
# prompt "tdsl> " or "  ...> " is typed after the REPL shows a prompt
# (the text after the prompt, then Enter); every other line is output
# expected before the next prompt.  In typed text, <KEY> sends a key
# and <KEY:TEXT> sends it and expects the terminal to show TEXT: what
# completion inserts there, the line recalled from the history, ...
#   <TAB>  <C-P> (the previous history line replaces the line)
#   <C-C> (abandons the line)  <C-D> (end of input)
# Each key is sent once the terminal shows what came before it.
# A line ending in <C-C> or <C-D> is not followed by Enter.  Lines
# starting with "## " are comments.  Directives:
#   @session [no-xdg]  the session so far must have ended; start a new
#                      one with the same home folder (no-xdg: without
#                      XDG_DATA_HOME, so the history goes under HOME)
#   @history TEXT      the history file holds the line TEXT
#   @needs readline    skip the test (77) unless tdsl uses GNU readline
#                      (libedit completes and redraws a little
#                      differently)
# tdsl runs with TERM=dumb, HOME and XDG_DATA_HOME in a fresh temporary
# folder; control sequences are removed and carriage returns applied
# before comparing, and trailing blanks are ignored.  The banner's
# version number is compared as "VERSION".
#
# A .pipe feeds the lines starting with "> " (without it) to the
# standard input of `tdsl repl`; every other line is expected output
# (stdout and stderr together), except "## " comments and a final
# "@status N" (the expected exit status, 0 when not given).

import difflib
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import termios
import time

PROMPTS = ("tdsl> ", "  ...> ")
TIMEOUT = float(os.environ.get("TDSL_PTY_TIMEOUT", "30"))
KEYS = {"TAB": b"\t", "C-P": b"\x10", "C-C": b"\x03", "C-D": b"\x04"}
KEY_RE = re.compile(r"<(TAB|C-P|C-C|C-D)(?::([^>]*))?>")
# CSI, OSC, two-byte escapes, character set selection.
ESC_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*"
                    r"(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-_]")
VERSION_RE = re.compile(r"^tdsl \d+(\.\d+)*")


class Failure(Exception):
    pass


class Skip(Exception):
    pass


# ----------------------------------------------------------------------
# What the terminal shows
# ----------------------------------------------------------------------

def screen_lines(raw):
    """The lines a terminal shows for raw output: escape sequences and
    bells dropped, carriage return and backspace applied."""
    text = ESC_RE.sub("", raw.decode("utf-8", "replace")).replace("\x07", "")
    out = []
    for piece in text.split("\n"):
        line, col = [], 0
        for ch in piece:
            if ch == "\r":
                col = 0
            elif ch == "\b":
                col = max(col - 1, 0)
            else:
                if col < len(line):
                    line[col] = ch
                else:
                    line.append(ch)
                col += 1
        out.append("".join(line))
    return out


def ends_with_prompt(raw):
    last = screen_lines(raw)[-1]
    return any(last.endswith(p) for p in PROMPTS)


# ----------------------------------------------------------------------
# One tdsl process in a pseudo-terminal
# ----------------------------------------------------------------------

class Session:
    def __init__(self, tdsl, env):
        import pty
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execve(tdsl, [tdsl], env)
            finally:
                os._exit(127)
        self.status = None
        self.buf = b""

    def read_while(self, going_on, what):
        """Reads while going_on(output so far) holds and tdsl runs."""
        deadline = time.monotonic() + TIMEOUT
        while going_on(self.buf):
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure("timed out waiting for %s; the output so "
                              "far:\n%s" % (what, "\n".join(
                                  screen_lines(self.buf))))
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:         # EIO: the other side has closed
                data = b""
            if not data:
                self.wait()
                break
            self.buf += data

    def read_until_prompt(self):
        """Reads until the output ends with a prompt or tdsl exits;
        returns what came."""
        self.read_while(lambda b: not (b and ends_with_prompt(b)),
                        "a prompt")
        got, self.buf = self.buf, b""
        return got

    def wait_for_editor(self):
        """Waits (a little) until the line editor has the terminal: it
        turns ECHO off, and what is typed before that would be echoed
        twice.  Plain reading without an editor never does."""
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                if not termios.tcgetattr(self.fd)[3] & termios.ECHO:
                    return
            except termios.error:
                return
            time.sleep(0.005)

    def wait_for_line(self, prompt, line):
        """Reads until the line being typed shows as prompt + line."""
        want = (prompt + line).rstrip()
        self.read_while(lambda b: screen_lines(prompt.encode() + b)[-1]
                        .rstrip() != want, repr(want))

    def send(self, data):
        os.write(self.fd, data)

    def wait(self):
        if self.status is None:
            deadline = time.monotonic() + TIMEOUT
            while True:
                pid, st = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    os.kill(self.pid, 9)
                    os.waitpid(self.pid, 0)
                    raise Failure("tdsl did not exit")
                time.sleep(0.01)
            self.status = os.waitstatus_to_exitcode(st)
            os.close(self.fd)
        return self.status


def typed(text):
    """Typed text as pieces to send: [(bytes, the line shown after
    them)], the last one ending the line (Enter, C-C or C-D)."""
    pieces, shown, pos = [], "", 0
    for m in KEY_RE.finditer(text):
        before = text[pos:m.start()]
        if before:
            shown += before
            pieces.append((before.encode(), shown))
        if m.group(1) == "C-P":
            shown = m.group(2) or ""    # the recalled line replaces it
        else:
            shown += m.group(2) or ""
        pieces.append((KEYS[m.group(1)], shown))
        pos = m.end()
    rest = text[pos:]
    shown += rest
    if re.search(r"<C-[CD](?::[^>]*)?>$", text):
        return pieces, shown
    pieces.append((rest.encode() + b"\n", shown))
    return pieces, shown


def history_file(env):
    if env.get("XDG_DATA_HOME"):
        return os.path.join(env["XDG_DATA_HOME"], "tdsl", "history")
    return os.path.join(env["HOME"], ".local", "share", "tdsl", "history")


def read_history(env):
    try:
        with open(history_file(env), encoding="utf-8") as f:
            have = f.read().split("\n")
    except OSError:
        return None
    if have[0] == "_HiStOrY_V2_":       # libedit's form: octal escapes
        have = [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)),
                       h) for h in have[1:]]
    return have


def run_transcript(tdsl, path):
    """Returns the expected and the actual lines, and the file as it
    would be with the actual output (for --update)."""
    expected, actual, updated = [], [], []
    top = tempfile.mkdtemp(prefix="tdsl-repl-")
    home = os.path.join(top, "home")
    os.mkdir(home)
    base_env = dict(os.environ, TERM="dumb", HOME=home, COLUMNS="200",
                    LINES="50", XDG_DATA_HOME=os.path.join(top, "data"))
    base_env.pop("NO_COLOR", None)
    env, sess, prompt = None, None, None

    def shows(lines):
        actual.extend(lines)
        updated.extend(normal(s) for s in lines)

    def start(no_xdg):
        nonlocal env, sess, prompt
        env = dict(base_env)
        if no_xdg:
            env.pop("XDG_DATA_HOME")
        sess = Session(tdsl, env)
        lines = screen_lines(sess.read_until_prompt())
        prompt = lines.pop() if sess.status is None else None
        if prompt is None and lines and lines[-1] == "":
            lines.pop()
        shows(lines)

    def finish():
        if sess is None:
            return
        if sess.status is None:
            raise Failure("the session has not ended (end it with "
                          "'tdsl> <C-D>' or ':quit')")
        if sess.status != 0:
            shows(["[exit status %d]" % sess.status])

    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines:
            if line.startswith("## "):
                updated.append(line)
                continue
            if line == "@needs readline":
                with open(tdsl, "rb") as f:
                    if b"libreadline.so" not in f.read():
                        raise Skip()
                updated.append(line)
                continue
            if sess is None and not line.startswith("@session"):
                start(False)
            if line.startswith("@session"):
                updated.append(line)
                finish()
                start("no-xdg" in line.split())
                continue
            if line.startswith("@history "):
                updated.append(line)
                finish()
                want = line[len("@history "):]
                have = read_history(env)
                expected.append("[history has: %s]" % want)
                actual.append("[no history file]" if have is None else
                              "[history has: %s]" % want if want in have
                              else "[history lacks: %s]" % want)
                continue
            p = next((p for p in PROMPTS if line.startswith(p)), None)
            if p is None:
                expected.append(line)
                continue
            if prompt is None:
                raise Failure("input after tdsl has exited: " + line)
            updated.append(line)
            pieces, shown = typed(line[len(p):])
            expected.append(p + shown)
            # Each key waits for what the one before it shows, as a
            # person would; then Enter (or C-C, C-D) ends the line.
            sess.wait_for_editor()
            for i, (data, after) in enumerate(pieces):
                sess.send(data)
                if i + 1 < len(pieces):
                    sess.wait_for_line(prompt, after)
            got = screen_lines(prompt.encode() + sess.read_until_prompt())
            if line.endswith("<C-D>") and got[0].endswith("^D"):
                got[0] = got[0][:-2]        # libedit shows it
            actual.append(got[0])
            rest = got[1:]
            if sess.status is None and rest:
                prompt = rest.pop()
            else:
                prompt = None
                if rest and rest[-1] == "":
                    rest.pop()      # the newline before the exit
            shows(rest)
        finish()
    finally:
        if sess is not None and sess.status is None:
            os.kill(sess.pid, 9)
            os.waitpid(sess.pid, 0)
        shutil.rmtree(top, ignore_errors=True)
    return expected, actual, updated


# ----------------------------------------------------------------------
# Piped standard input
# ----------------------------------------------------------------------

def run_pipe(tdsl, path):
    sent, expected, status = [], [], 0
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line.startswith("## "):
                continue
            if line.startswith("@status "):
                status = int(line.split()[1])
            elif line.startswith("> ") or line == ">":
                sent.append(line[2:])
            else:
                expected.append(line)
    if expected and expected[-1] == "":
        expected.pop()
    top = tempfile.mkdtemp(prefix="tdsl-repl-")
    try:
        env = dict(os.environ, HOME=top, XDG_DATA_HOME=top)
        p = subprocess.run([tdsl, "repl"], input="".join(
            s + "\n" for s in sent).encode(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, env=env, timeout=TIMEOUT)
        if os.listdir(top):
            raise Failure("piped input wrote into the home folder: %s"
                          % os.listdir(top))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    actual = p.stdout.decode("utf-8", "replace").split("\n")
    if actual and actual[-1] == "":
        actual.pop()
    if p.returncode != status:
        actual.append("[exit status %d]" % p.returncode)
    return expected, actual


def normal(line):
    return VERSION_RE.sub("tdsl VERSION", line.rstrip())


def main():
    args = sys.argv[1:]
    update = "--update" in args
    args = [a for a in args if a != "--update"]
    if len(args) != 2:
        sys.stderr.write("usage: pty_driver.py [--update] TDSL "
                         "FILE.transcript|FILE.pipe\n")
        return 2
    tdsl, path = os.path.abspath(args[0]), args[1]
    updated = None
    try:
        if path.endswith(".pipe"):
            expected, actual = run_pipe(tdsl, path)
        else:
            try:
                import pty  # noqa: F401
            except ImportError:
                return 77
            expected, actual, updated = run_transcript(tdsl, path)
    except Failure as e:
        sys.stdout.write(str(e) + "\n")
        return 1
    except Skip:
        return 77
    except OSError as e:
        if path.endswith(".transcript") and e.errno in (2, 6, 19):
            return 77       # no pseudo-terminals here
        raise
    norm = [normal(s) for s in actual]
    want = [s.rstrip() for s in expected]
    if norm == want:
        return 0
    if update and updated is not None:
        # The inputs, comments and directives stay; the output is what
        # tdsl printed.  Read the diff before keeping it.
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(s + "\n" for s in updated))
    sys.stdout.writelines(difflib.unified_diff(
        [s + "\n" for s in want], [s + "\n" for s in norm],
        "expected", "actual"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
