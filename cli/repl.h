/*
 * repl.h - the REPL (`tdsl`, `tdsl repl`) and what its files share:
 * the session loop and the commands (repl.c), reading lines with
 * editing, history and completion (repl_edit.c), and telling when the
 * lines typed so far make a whole input (repl_scan.c).
 */
#ifndef TDSL_REPL_H
#define TDSL_REPL_H

/* `tdsl` and `tdsl repl` (argv[0] "repl"; nothing may follow).  On a
 * terminal: prompts, line editing and history.  Otherwise stdin is
 * read line by line with the same meaning and no prompts, and the exit
 * status is 1 when some input had an error. */
int cmd_repl(int argc, char **argv);

/* ====================================================================
 * repl_scan.c - is the input complete?
 * ==================================================================== */

enum { REPL_MAX_OPEN = 64 };

/* What the lines of an input so far leave open. */
typedef struct ReplScan {
    char open[REPL_MAX_OPEN];   /* open brackets: ( [ { or r, the ( of
                                 * a sum/prod/argmax/argmin header */
    int depth;                  /* may exceed REPL_MAX_OPEN (counted) */
    int header;                 /* starts with kernel/schedule and no
                                 * '{' yet: the header goes on */
    int cont;                   /* the last line ends with an operator,
                                 * ',' or a reduction header */
    int tokens;                 /* tokens seen (0: blank so far) */
    int words;                  /* words seen, to spot the first */
} ReplScan;

void repl_scan_init(ReplScan *sc);
/* Takes in one more line (without its newline; a pasted block may hold
 * several).  Brackets are counted outside strings and comments. */
void repl_scan_line(ReplScan *sc, const char *line);
/* 1 when the lines so far make a whole input: brackets balance (or
 * close too much, which the parser reports), no kernel or schedule
 * header waits for its '{', and the last line does not go on. */
int repl_scan_done(const ReplScan *sc);
/* 1 when line cannot go on an unfinished input and starts a new one:
 * it begins with a statement keyword (let, print, kernel, ...) or a
 * ':' command while an expression or a header is open.  The unfinished
 * input is then run as it is, so that the parser reports it. */
int repl_scan_breaks(const ReplScan *sc, const char *line);

/* ====================================================================
 * repl_edit.c - reading lines
 * ==================================================================== */

/* Starts reading stdin.  interactive: line editing (readline or
 * libedit, when built with one), tab completion, and history kept in
 * $XDG_DATA_HOME/tdsl/history (~/.local/share/tdsl/history), read now;
 * a history that cannot be read or written is silently skipped. */
void repl_edit_open(int interactive);
void repl_edit_close(void);
/* The next line without its newline (the caller frees it), or NULL at
 * the end of input.  Interactive reading shows prompt; Ctrl-C there
 * abandons the line: the result is NULL and *interrupted is set. */
char *repl_edit_read(const char *prompt, int *interrupted);
/* Adds a line typed at the terminal to the history and saves it. */
void repl_edit_remember(const char *line);
/* A name the session defines, offered by tab completion. */
void repl_edit_add_name(const char *name);

/* The REPL's commands (repl.c), for completion too; the list ends with
 * a NULL name.  issue: the issue that brings one still to come, or 0. */
typedef struct ReplCommand {
    const char *name;
    int issue;
} ReplCommand;
extern const ReplCommand repl_commands[];

#endif
