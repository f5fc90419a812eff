/*
 * repl_edit.c - how the REPL reads lines: GNU readline or libedit on a
 * terminal (the subset of the readline API both provide), with tab
 * completion and a history file; plain reading of stdin otherwise.
 *
 * Completion offers, for the word before the cursor: the REPL's
 * commands right after a ':' at the start of the line, file names after
 * `:load`, and else keywords, dtype names, builtins and the names the
 * session has defined (repl_edit_add_name).
 */
#include "cli/repl.h"
#include "config.h"
#include "lang/lang.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(HAVE_READLINE)
#include <readline/history.h>
#include <readline/readline.h>
#define HAVE_EDITING 1
#elif defined(HAVE_LIBEDIT)
#include <editline/readline.h>
#define HAVE_EDITING 1
#endif

/* Lines kept in the history file. */
enum { HISTORY_LINES = 1000 };

static struct {
    int interactive;
    char *history;          /* the history file, or NULL */
    char **names;           /* session names, for completion */
    int nnames, cap;
    char *last;             /* the last line added to the history */
} ed;

static volatile sig_atomic_t got_int;

/* ====================================================================
 * Completion candidates
 * ==================================================================== */

void repl_edit_add_name(const char *name)
{
    if (!name || !*name)
        return;
    for (int i = 0; i < ed.nnames; i++)
        if (strcmp(ed.names[i], name) == 0)
            return;
    if (ed.nnames == ed.cap) {
        ed.cap = ed.cap ? 2 * ed.cap : 32;
        ed.names = tl_xrealloc(ed.names, (size_t)ed.cap * sizeof *ed.names);
    }
    ed.names[ed.nnames++] = tl_xstrdup(name);
}

#ifdef HAVE_EDITING

static const char *const keywords[] = {
    "kernel", "schedule", "extern", "import", "let", "print", "assert",
    "time", "target", "on", "for", "in", "as", "fn", "true", "false",
    "sum", "prod", "max", "min", "argmax", "argmin", "layout", NULL,
};

/* The candidate number k of every list in turn, or NULL past the end. */
static const char *candidate(int k, int commands)
{
    static const char *builtins[] = {
#define X(id, name, lo, hi, top) name,
        TL_BUILTINS(X)
#undef X
    };
    int nb = (int)(sizeof builtins / sizeof builtins[0]);

    if (commands)
        return repl_commands[k].name;
    for (int i = 0; keywords[i]; i++, k--)
        if (k == 0)
            return keywords[i];
    for (int d = DT_NONE + 1; d < DT__COUNT; d++, k--)
        if (k == 0)
            return dt_name((TlDType)d);
    if (k < nb)
        return builtins[k];
    k -= nb;
    return k < ed.nnames ? ed.names[k] : NULL;
}

static int complete_commands;

/* readline's generator: the next candidate starting with text. */
static char *generate(const char *text, int state)
{
    static int k;
    size_t n = strlen(text);
    const char *c;

    if (state == 0)
        k = 0;
    while ((c = candidate(k++, complete_commands)))
        if (strncmp(c, text, n) == 0)
            return tl_xstrdup(c);
    return NULL;
}

static int is_keyword(const char *w)
{
    for (int i = 0; keywords[i]; i++)
        if (strcmp(keywords[i], w) == 0)
            return 1;
    return 0;
}

/* Is line a `:load FILE` command?  (Its words are file names.) */
static int is_load(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return strncmp(line, ":load", 5) == 0 &&
           (line[5] == ' ' || line[5] == '\t');
}

/* The characters that end a word: file names hold '/', '.', '-'. */
static char *word_breaks(void)
{
    static char file_breaks[] = " \t\n\"'";
    return rl_line_buffer && is_load(rl_line_buffer) ? file_breaks : NULL;
}

static char **complete(const char *text, int start, int end)
{
    const char *line = rl_line_buffer;
    int p = 0;
    char **m;

    (void)end;
    while (line[p] == ' ' || line[p] == '\t')
        p++;
    rl_attempted_completion_over = 1;   /* no file names by default */
    rl_completion_append_character = '\0';
    complete_commands = 0;
    if (line[p] == ':') {
        if (start == p + 1) {
            complete_commands = 1;
            m = rl_completion_matches(text, generate);
            if (m && !m[1])
                rl_completion_append_character = ' ';
            return m;
        }
        if (is_load(line))
            return rl_completion_matches(text,
                                         rl_filename_completion_function);
    }
    m = rl_completion_matches(text, generate);
    if (m && !m[1] && is_keyword(m[0]))
        rl_completion_append_character = ' ';
    return m;
}

/* Reads a key for readline.  Ctrl-C (our handler, as readline leaves
 * SIGINT alone) interrupts the read: show it and end the line, which
 * repl_edit_read then drops. */
static int get_key(FILE *in)
{
    unsigned char c;

    for (;;) {
        ssize_t n = got_int ? -1 : read(fileno(in), &c, 1);
        if (n == 1)
            return c;
        if (n == 0 || (!got_int && errno != EINTR))
            return EOF;
        if (got_int) {
            fputs("^C", rl_outstream ? rl_outstream : stdout);
            return '\n';
        }
    }
}

/* ====================================================================
 * History
 * ==================================================================== */

/* mkdir -p of the folders above path's last '/'. */
static void make_parents(char *path)
{
    for (char *q = path + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *q = '/';
            return;
        }
        *q = '/';
    }
}

static char *history_path(void)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    TlBuf b;

    buf_init(&b);
    /* XDG: a relative path is invalid and ignored. */
    if (xdg && xdg[0] == '/')
        buf_printf(&b, "%s/tdsl/history", xdg);
    else if (home && home[0])
        buf_printf(&b, "%s/.local/share/tdsl/history", home);
    else
        return NULL;
    return b.s;
}

static void history_open(void)
{
    ed.history = history_path();
    stifle_history(HISTORY_LINES);
    if (!ed.history)
        return;
    make_parents(ed.history);
    if (read_history(ed.history) == 0 && history_length > 0) {
        /* A line typed again right after it is not added twice. */
        HIST_ENTRY *h = history_get(history_base + history_length - 1);
        if (h && h->line)
            ed.last = tl_xstrdup(h->line);
    }
}

static void history_save(void)
{
    /* At most HISTORY_LINES lines (stifle_history). */
    if (ed.history)
        (void)write_history(ed.history);
}

#endif /* HAVE_EDITING */

/* ====================================================================
 * Reading
 * ==================================================================== */

static void on_sigint(int sig)
{
    (void)sig;
    got_int = 1;
}

void repl_edit_open(int interactive)
{
    ed.interactive = interactive;
#ifdef HAVE_EDITING
    if (!interactive)
        return;
    static char breaks[] = " \t\n\"\\'`@$><=;|&{([,+-*/%!)]}:";
    rl_readline_name = "tdsl";
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = breaks;
    rl_completion_word_break_hook = word_breaks;
    rl_catch_signals = 0;
    rl_getc_function = get_key;
    history_open();
#endif
}

void repl_edit_close(void)
{
    for (int i = 0; i < ed.nnames; i++)
        free(ed.names[i]);
    free(ed.names);
    free(ed.history);
    free(ed.last);
    memset(&ed, 0, sizeof ed);
}

/* getline without the newline; NULL at the end or on an error. */
static char *plain_read(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);

    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    if (n > 0 && line[n - 1] == '\r')
        line[--n] = '\0';
    return line;
}

char *repl_edit_read(const char *prompt, int *interrupted)
{
    struct sigaction sa, old;
    char *line;

    *interrupted = 0;
    if (!ed.interactive)
        return plain_read();
    /* Ctrl-C abandons the line being typed; while an input runs it
     * keeps its usual meaning (a runaway computation can be stopped). */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    got_int = 0;
#ifdef HAVE_EDITING
    line = readline(prompt);
#else
    fputs(prompt, stdout);
    fflush(stdout);
    line = plain_read();
    if (!line && ferror(stdin) && errno == EINTR)
        clearerr(stdin);
#endif
    sigaction(SIGINT, &old, NULL);
    if (got_int) {
        free(line);
        got_int = 0;
        *interrupted = 1;
#ifndef HAVE_EDITING
        fputs("^C\n", stdout);     /* readline has ended the line */
        fflush(stdout);
#endif
        return NULL;
    }
    return line;
}

void repl_edit_remember(const char *line)
{
#ifdef HAVE_EDITING
    const char *p = line;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!ed.interactive || !*p || (ed.last && strcmp(ed.last, line) == 0))
        return;
    add_history(line);
    free(ed.last);
    ed.last = tl_xstrdup(line);
    history_save();
#else
    (void)line;
#endif
}
