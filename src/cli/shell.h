/*
 * cli/shell.h: private to the SQL front end of the `tarn` command (cli/shell*.c): the shell's
 * state (output mode and settings the dot-commands change), the result renderers
 * (shell_render.c), the dot-commands (shell_dot.c) and the statement runner they share
 * (shell.c).
 */
#ifndef TN_CLI_SHELL_H
#define TN_CLI_SHELL_H

#include <stdbool.h>
#include <stdio.h>

#include "sql/sql.h"

typedef enum {
    MODE_TABLE, MODE_BOX, MODE_CSV, MODE_JSON, MODE_JSONLINES, MODE_LINE, MODE_LIST,
    MODE_MARKDOWN, MODE_TABS
} sh_mode;

#define SH_MAX_WIDTHS 64

typedef struct shell {
    tn_sql_session *session;
    const char *warehouse;
    sh_mode mode;
    bool headers;                /* .headers: header line in csv/list/tabs/table/box/markdown */
    bool stats, timer, bail, echo;
    bool interactive;            /* reading a terminal: .shell allowed, Ctrl-C cancels */
    bool progress;               /* progress bar on stderr (a terminal only) */
    char *nullvalue;             /* .nullvalue (NULL: the mode's default) */
    char separator[16];          /* list mode's column separator ("|") */
    int widths[SH_MAX_WIDTHS];   /* .width: 0 = automatic, < 0 = right-aligned */
    int nwidths;
    FILE *out;                   /* stdout or the .output / .once file */
    bool out_once;               /* .once: back to stdout after the next statement */
    int errors;                  /* statements and commands that failed */
    volatile int quit;           /* .quit seen */
} shell;

/* Outcome of running input: 0 ok, 1 something failed (printed), 2 stop (bail or .quit). */
enum { SH_OK = 0, SH_FAILED = 1, SH_STOP = 2 };

/* shell.c */
void sh_print_error(void);
int sh_run_sql(shell *sh, const char *text, size_t len);      /* one chunk of statements */
int sh_run_file(shell *sh, const char *path);                 /* lines, dot-commands too */
void sh_reset_output(shell *sh);                              /* after .once */

/* shell_render.c: prints every row of r in sh->mode (table modes buffer the first rows). */
int sh_render(shell *sh, tn_sql_result *r);
/* Display width (terminal columns) of UTF-8 text: wide CJK and emoji 2, combining marks 0. */
size_t sh_display_width(const char *s, size_t n);
const char *sh_mode_name(sh_mode m);
bool sh_mode_parse(const char *name, sh_mode *out);

/* shell_dot.c: one dot-command line; SH_OK / SH_FAILED / SH_STOP (.quit, or failed under bail). */
int sh_dot_command(shell *sh, const char *line);

#endif
