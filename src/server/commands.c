/*
 * server/commands.c: what the server answers itself rather than tarn's SQL engine: splitting a
 * Query message into statements (quotes, comments, dollar quotes), recognizing the session
 * commands drivers send (BEGIN/COMMIT/ROLLBACK, SET/SHOW/RESET of PostgreSQL parameters,
 * DISCARD, DEALLOCATE), and the table of those parameters with their semantics: each one is
 * honoured, or refused with an error saying why, never silently ignored. SET of a name that is
 * not in the table goes to tarn's own SET (session options such as threads, memory_limit).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/pgwireInt.h"
#include "tarn.h"

/* ---------------------------------------------------------------------------------------------
 * Statement splitting.
 */
static size_t skip_ws_comments(const char *s, size_t n, size_t i) {
    for (;;) {
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
            while (i < n && s[i] != '\n') i++;
        } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            int depth = 0;
            while (i < n) {
                if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') { depth++; i += 2; }
                else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') { i += 2; if (--depth == 0) break; }
                else i++;
            }
        } else {
            return i;
        }
    }
}

bool tn_pg_split_next(const char *s, size_t n, size_t *pos, size_t *start, size_t *end) {
    size_t i = skip_ws_comments(s, n, *pos);
    while (i < n && s[i] == ';') i = skip_ws_comments(s, n, i + 1);
    if (i >= n) {
        *pos = n;
        return false;
    }
    *start = i;
    size_t last = i;            /* end of the last significant character */
    while (i < n && s[i] != ';') {
        char c = s[i];
        if (c == '\'' || c == '"') {
            i++;
            while (i < n) {
                if (s[i] == c) {
                    if (i + 1 < n && s[i + 1] == c) { i += 2; continue; }
                    break;
                }
                if (c == '\'' && s[i] == '\\' && i > *start && (s[*start] == 'E' || s[*start] == 'e')) i++;
                i++;
            }
            i = i < n ? i + 1 : n;
            last = i;
        } else if (c == '$' && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
            /* $tag$ ... $tag$ (a $1 parameter is not a dollar quote) */
            size_t j = i + 1;
            while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_')) j++;
            if (j < n && s[j] == '$' && !(j > i + 1 && isdigit((unsigned char)s[i + 1]))) {
                size_t tl = j - i + 1;
                const char *tag = s + i;
                size_t k = j + 1;
                while (k + tl <= n && memcmp(s + k, tag, tl) != 0) k++;
                i = k + tl <= n ? k + tl : n;
            } else {
                i = j;
            }
            last = i;
        } else if ((c == '-' && i + 1 < n && s[i + 1] == '-') || (c == '/' && i + 1 < n && s[i + 1] == '*')) {
            i = skip_ws_comments(s, n, i);
        } else {
            i++;
            if (!isspace((unsigned char)c)) last = i;
        }
    }
    *end = last;
    *pos = i < n ? i + 1 : n;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Recognizing session commands.
 */
typedef struct lex {
    const char *s;
    size_t n, i;
} lex;

/* Next word (identifier or keyword, lower-cased into buf); false when the next token is not one. */
static bool next_word(lex *l, char *buf, size_t cap) {
    l->i = skip_ws_comments(l->s, l->n, l->i);
    size_t i = l->i, k = 0;
    if (i < l->n && l->s[i] == '"') {             /* "quoted identifier" */
        i++;
        while (i < l->n && l->s[i] != '"' && k + 1 < cap) buf[k++] = l->s[i++];
        if (i >= l->n || l->s[i] != '"') return false;
        buf[k] = 0;
        l->i = i + 1;
        return true;
    }
    if (i >= l->n || !(isalpha((unsigned char)l->s[i]) || l->s[i] == '_')) return false;
    while (i < l->n && (isalnum((unsigned char)l->s[i]) || l->s[i] == '_' || l->s[i] == '.' || l->s[i] == '$')) {
        if (k + 1 >= cap) return false;
        buf[k++] = (char)tolower((unsigned char)l->s[i++]);
    }
    buf[k] = 0;
    l->i = i;
    return true;
}

static bool at_end(lex *l) {
    l->i = skip_ws_comments(l->s, l->n, l->i);
    return l->i >= l->n;
}

static bool accept_char(lex *l, char c) {
    l->i = skip_ws_comments(l->s, l->n, l->i);
    if (l->i < l->n && l->s[l->i] == c) {
        l->i++;
        return true;
    }
    return false;
}

/* A SET value: a comma list of 'strings', words or numbers, joined by ", " (malloc'd); NULL
 * for DEFAULT. Returns false when it cannot be read. */
static bool read_value(lex *l, char **out, bool *is_default) {
    tn_buf b = TN_BUF_INIT;
    *out = NULL;
    *is_default = false;
    for (int item = 0;; item++) {
        l->i = skip_ws_comments(l->s, l->n, l->i);
        if (l->i >= l->n) break;
        if (item) tn_buf_append(&b, ", ", 2);
        char c = l->s[l->i];
        if (c == '\'' || ((c == 'E' || c == 'e') && l->i + 1 < l->n && l->s[l->i + 1] == '\'')) {
            if (c != '\'') l->i++;
            l->i++;
            while (l->i < l->n) {
                if (l->s[l->i] == '\'') {
                    if (l->i + 1 < l->n && l->s[l->i + 1] == '\'') { tn_buf_append_byte(&b, '\''); l->i += 2; continue; }
                    break;
                }
                tn_buf_append_byte(&b, (uint8_t)l->s[l->i++]);
            }
            if (l->i >= l->n) goto fail;
            l->i++;
        } else {
            size_t st = l->i;
            if (c == '"') {
                l->i++;
                while (l->i < l->n && l->s[l->i] != '"') l->i++;
                if (l->i >= l->n) goto fail;
                tn_buf_append(&b, l->s + st + 1, l->i - st - 1);
                l->i++;
            } else {
                while (l->i < l->n && (isalnum((unsigned char)l->s[l->i]) || strchr("_.-+$:/", l->s[l->i]))) l->i++;
                if (l->i == st) goto fail;
                if (item == 0 && l->i - st == 7 && strncasecmp(l->s + st, "default", 7) == 0 && at_end(l)) {
                    *is_default = true;
                    tn_buf_free(&b);
                    return true;
                }
                tn_buf_append(&b, l->s + st, l->i - st);
            }
        }
        if (!accept_char(l, ',')) break;
    }
    if (!at_end(l) || !b.len) goto fail;
    tn_buf_append_byte(&b, 0);
    if (!b.data) goto fail;
    *out = (char *)b.data;
    return true;
fail:
    tn_buf_free(&b);
    return false;
}

int tn_pg_classify(const char *sql, size_t len, tn_pg_cmd *out) {
    memset(out, 0, sizeof *out);
    lex l = {sql, len, 0};
    char w[64], w2[64];
    if (at_end(&l)) { out->kind = TN_PG_CMD_EMPTY; return 0; }
    if (!next_word(&l, w, sizeof w)) return 0;
    if (strcmp(w, "begin") == 0 || strcmp(w, "start") == 0) {
        if (w[0] == 's' && !(next_word(&l, w2, sizeof w2) && strcmp(w2, "transaction") == 0)) return 0;
        out->kind = TN_PG_CMD_BEGIN;             /* isolation / read-only modifiers: see below */
        while (next_word(&l, w2, sizeof w2)) {
            if (strcmp(w2, "work") && strcmp(w2, "transaction") && strcmp(w2, "isolation") && strcmp(w2, "level") &&
                strcmp(w2, "read") && strcmp(w2, "committed") && strcmp(w2, "write") && strcmp(w2, "repeatable") &&
                strcmp(w2, "serializable") && strcmp(w2, "uncommitted") && strcmp(w2, "only") &&
                strcmp(w2, "deferrable") && strcmp(w2, "not"))
                return 0;
            if (strcmp(w2, "only") == 0) out->read_only = true;
            accept_char(&l, ',');
        }
        return at_end(&l) ? 0 : (out->kind = TN_PG_CMD_NONE, 0);
    }
    if (strcmp(w, "commit") == 0 || strcmp(w, "end") == 0 || strcmp(w, "rollback") == 0 || strcmp(w, "abort") == 0) {
        out->kind = w[0] == 'c' || w[0] == 'e' ? TN_PG_CMD_COMMIT : TN_PG_CMD_ROLLBACK;
        while (next_word(&l, w2, sizeof w2))
            if (strcmp(w2, "work") && strcmp(w2, "transaction")) { out->kind = TN_PG_CMD_NONE; return 0; }
        if (!at_end(&l)) out->kind = TN_PG_CMD_NONE;
        return 0;
    }
    if (strcmp(w, "show") == 0) {
        if (!next_word(&l, w2, sizeof w2) || !at_end(&l)) return 0;
        if (strcmp(w2, "all") != 0 && !tn_pg_setting_known(w2)) return 0;   /* SHOW TABLES: tarn's */
        if (strcmp(w2, "transaction") == 0) return 0;
        out->kind = TN_PG_CMD_SHOW;
        snprintf(out->name, sizeof out->name, "%s", w2);
        return 0;
    }
    if (strcmp(w, "reset") == 0) {
        if (!next_word(&l, w2, sizeof w2) || !at_end(&l)) return 0;
        if (strcmp(w2, "all") != 0 && !tn_pg_setting_known(w2)) return 0;
        out->kind = TN_PG_CMD_RESET;
        snprintf(out->name, sizeof out->name, "%s", w2);
        return 0;
    }
    if (strcmp(w, "discard") == 0) {
        if (next_word(&l, w2, sizeof w2) && at_end(&l) && (strcmp(w2, "all") == 0 || strcmp(w2, "plans") == 0)) {
            out->kind = TN_PG_CMD_DISCARD;
            snprintf(out->name, sizeof out->name, "%s", w2);
        }
        return 0;
    }
    if (strcmp(w, "deallocate") == 0) {
        if (!next_word(&l, w2, sizeof w2)) return 0;
        if (strcmp(w2, "prepare") == 0 && !next_word(&l, w2, sizeof w2)) return 0;
        if (!at_end(&l)) return 0;
        out->kind = TN_PG_CMD_DEALLOCATE;
        snprintf(out->name, sizeof out->name, "%s", w2);
        return 0;
    }
    if (strcmp(w, "listen") == 0 || strcmp(w, "unlisten") == 0 || strcmp(w, "notify") == 0 ||
        strcmp(w, "savepoint") == 0 || strcmp(w, "release") == 0 || strcmp(w, "lock") == 0 ||
        strcmp(w, "prepare") == 0 || strcmp(w, "execute") == 0) {
        out->kind = TN_PG_CMD_UNSUPPORTED;
        snprintf(out->name, sizeof out->name, "%s", w);
        return 0;
    }
    if (strcmp(w, "declare") == 0) {
        if (!next_word(&l, w2, sizeof w2)) return 0;
        snprintf(out->name, sizeof out->name, "%s", w2);
        bool no = false;
        while (next_word(&l, w2, sizeof w2)) {
            if (strcmp(w2, "binary") == 0) out->binary = true;
            else if (strcmp(w2, "no") == 0) no = true;
            else if (strcmp(w2, "scroll") == 0) {
                if (!no) {
                    out->kind = TN_PG_CMD_UNSUPPORTED;
                    snprintf(out->name, sizeof out->name, "DECLARE ... SCROLL CURSOR (only NO SCROLL)");
                    return 0;
                }
            } else if (strcmp(w2, "insensitive") == 0 || strcmp(w2, "asensitive") == 0) continue;
            else if (strcmp(w2, "cursor") == 0) break;
            else return 0;
        }
        if (strcmp(w2, "cursor") != 0) return 0;
        if (!next_word(&l, w2, sizeof w2)) return 0;
        if (strcmp(w2, "with") == 0 || strcmp(w2, "without") == 0) {
            out->hold = w2[4] == 0;
            if (!next_word(&l, w2, sizeof w2) || strcmp(w2, "hold") != 0 || !next_word(&l, w2, sizeof w2)) return 0;
        }
        if (strcmp(w2, "for") != 0 || at_end(&l)) return 0;
        out->value = malloc(l.n - l.i + 1);
        if (!out->value) return TN_ENOMEM;
        memcpy(out->value, l.s + l.i, l.n - l.i);
        out->value[l.n - l.i] = 0;
        out->kind = TN_PG_CMD_DECLARE;
        return 0;
    }
    if (strcmp(w, "fetch") == 0 || strcmp(w, "move") == 0) {
        out->move = w[0] == 'm';
        out->count = 1;
        size_t save = l.i;
        l.i = skip_ws_comments(l.s, l.n, l.i);
        if (l.i < l.n && isdigit((unsigned char)l.s[l.i])) {          /* FETCH 10 name */
            int64_t v = 0;
            while (l.i < l.n && isdigit((unsigned char)l.s[l.i]) && v < INT64_C(1) << 40) v = v * 10 + (l.s[l.i++] - '0');
            out->count = v;
            if (v == 0) {
                out->kind = TN_PG_CMD_UNSUPPORTED;
                snprintf(out->name, sizeof out->name, "FETCH 0 (the current row)");
                return 0;
            }
        } else if (next_word(&l, w2, sizeof w2)) {
            if (strcmp(w2, "next") == 0) out->count = 1;
            else if (strcmp(w2, "all") == 0) out->count = 0;
            else if (strcmp(w2, "forward") == 0) {
                size_t at = l.i = skip_ws_comments(l.s, l.n, l.i);
                if (l.i < l.n && isdigit((unsigned char)l.s[l.i])) {
                    int64_t v = 0;
                    while (l.i < l.n && isdigit((unsigned char)l.s[l.i]) && v < INT64_C(1) << 40) v = v * 10 + (l.s[l.i++] - '0');
                    out->count = v ? v : -1;
                } else if (next_word(&l, w2, sizeof w2) && strcmp(w2, "all") == 0) out->count = 0;
                else l.i = at;
                if (out->count < 0) {
                    out->kind = TN_PG_CMD_UNSUPPORTED;
                    snprintf(out->name, sizeof out->name, "FETCH FORWARD 0 (the current row)");
                    return 0;
                }
            } else if (strcmp(w2, "prior") == 0 || strcmp(w2, "first") == 0 || strcmp(w2, "last") == 0 ||
                       strcmp(w2, "absolute") == 0 || strcmp(w2, "relative") == 0 || strcmp(w2, "backward") == 0) {
                out->kind = TN_PG_CMD_UNSUPPORTED;
                snprintf(out->name, sizeof out->name, "FETCH %.20s (cursors only go forward)", w2);
                return 0;
            } else if (strcmp(w2, "from") != 0 && strcmp(w2, "in") != 0) l.i = save;   /* FETCH name */
            else l.i = save;
        }
        size_t before = l.i;
        if (next_word(&l, w2, sizeof w2) && strcmp(w2, "from") != 0 && strcmp(w2, "in") != 0) l.i = before;
        if (!next_word(&l, w2, sizeof w2) || !at_end(&l)) return 0;
        snprintf(out->name, sizeof out->name, "%s", w2);
        out->kind = TN_PG_CMD_FETCH;
        return 0;
    }
    if (strcmp(w, "close") == 0) {
        if (!next_word(&l, w2, sizeof w2) || !at_end(&l)) return 0;
        snprintf(out->name, sizeof out->name, "%s", w2);
        out->kind = TN_PG_CMD_CLOSE;
        return 0;
    }
    if (strcmp(w, "set") == 0) {
        size_t save = l.i;
        if (!next_word(&l, w2, sizeof w2)) return 0;              /* SET 'key' = ...: tarn's */
        if (strcmp(w2, "session") == 0 || strcmp(w2, "local") == 0) {
            out->local = w2[0] == 'l';
            save = l.i;
            if (!next_word(&l, w2, sizeof w2)) return 0;
            if (strcmp(w2, "characteristics") == 0 || strcmp(w2, "authorization") == 0) {
                out->kind = TN_PG_CMD_UNSUPPORTED;
                snprintf(out->name, sizeof out->name, "set session %.40s", w2);
                if (strcmp(w2, "characteristics") == 0) out->kind = TN_PG_CMD_SET_TXN;
                return 0;
            }
        }
        if (strcmp(w2, "transaction") == 0) { out->kind = TN_PG_CMD_SET_TXN; return 0; }
        if (strcmp(w2, "time") == 0) {
            if (!next_word(&l, w2, sizeof w2) || strcmp(w2, "zone") != 0) return 0;
            snprintf(w2, sizeof w2, "timezone");
        } else if (strcmp(w2, "names") == 0) {
            snprintf(w2, sizeof w2, "client_encoding");
        } else if (!accept_char(&l, '=')) {
            char to[8];
            if (!next_word(&l, to, sizeof to) || strcmp(to, "to") != 0) return 0;
        }
        if (!tn_pg_setting_known(w2)) { (void)save; return 0; }      /* tarn's session options */
        bool is_default = false;
        if (!read_value(&l, &out->value, &is_default)) {
            out->kind = TN_PG_CMD_BAD;
            snprintf(out->name, sizeof out->name, "%s", w2);
            return 0;
        }
        out->kind = is_default ? TN_PG_CMD_RESET : TN_PG_CMD_SET;
        snprintf(out->name, sizeof out->name, "%s", w2);
        return 0;
    }
    return 0;
}

void tn_pg_cmd_free(tn_pg_cmd *c) {
    free(c->value);
    c->value = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * PostgreSQL parameters: the table.
 */
typedef enum check {
    CK_FIXED,                    /* read-only: SET refused */
    CK_ANY,                      /* any text, stored and shown */
    CK_ONE_OF,                   /* one of `allowed` (case-insensitive) */
    CK_INT,                      /* an integer within [lo, hi] */
    CK_MS,                       /* a duration in ms (units ms, s, min, h, d; bare number = ms) */
    CK_UTC,                      /* a zone name meaning UTC */
    CK_DATESTYLE,                /* contains ISO */
    CK_SEARCH_PATH,              /* public (and pg_catalog, "$user") only */
} check;

typedef struct param_def {
    const char *name;            /* lower case */
    const char *boot;            /* default value */
    bool report;                 /* sent as ParameterStatus (GUC_REPORT) */
    check ck;
    const char *allowed;         /* CK_ONE_OF: '|'-separated */
    int lo, hi;
    const char *semantics;       /* SHOW ALL description: what the server does with it */
} param_def;

static const param_def params[] = {
    {"server_version", "15.0 (tarn " TARN_VERSION ")", true, CK_FIXED, NULL, 0, 0, "PostgreSQL protocol level this server speaks"},
    {"server_version_num", "150000", false, CK_FIXED, NULL, 0, 0, "numeric server_version"},
    {"server_encoding", "UTF8", true, CK_FIXED, NULL, 0, 0, "text is UTF-8"},
    {"client_encoding", "UTF8", true, CK_ONE_OF, "utf8|utf-8|unicode|sql_ascii", 0, 0, "UTF-8 only (SQL_ASCII: bytes as stored)"},
    {"datestyle", "ISO, MDY", true, CK_DATESTYLE, NULL, 0, 0, "dates are always written in ISO order"},
    {"intervalstyle", "postgres", true, CK_ONE_OF, "postgres", 0, 0, "intervals are written in the postgres style"},
    {"integer_datetimes", "on", true, CK_FIXED, NULL, 0, 0, "timestamps are 64-bit microseconds"},
    {"standard_conforming_strings", "on", true, CK_ONE_OF, "on|true", 0, 0, "backslashes in '...' are literal"},
    {"timezone", "UTC", true, CK_UTC, NULL, 0, 0, "timestamptz values are shown in UTC (+00)"},
    {"application_name", "", true, CK_ANY, NULL, 0, 0, "shown in the server log"},
    {"is_superuser", "off", true, CK_FIXED, NULL, 0, 0, "no superuser over the wire"},
    {"session_authorization", "", true, CK_FIXED, NULL, 0, 0, "the user of the connection"},
    {"in_hot_standby", "off", true, CK_FIXED, NULL, 0, 0, "not a standby"},
    {"default_transaction_read_only", "off", true, CK_FIXED, NULL, 0, 0, "on when the server runs --read-only"},
    {"extra_float_digits", "1", false, CK_INT, NULL, -15, 3, "> 0: shortest exact floats; <= 0: 15 + n significant digits"},
    {"search_path", "\"$user\", public", false, CK_SEARCH_PATH, NULL, 0, 0, "unqualified names resolve in the warehouse's default schema"},
    {"statement_timeout", "0", false, CK_MS, NULL, 0, 0, "statements running longer are canceled (57014)"},
    {"lock_timeout", "0", false, CK_MS, NULL, 0, 0, "tarn takes no locks: nothing waits on one"},
    {"idle_in_transaction_session_timeout", "0", false, CK_MS, NULL, 0, 0, "accepted: transaction blocks hold nothing open"},
    {"transaction_isolation", "read committed", false, CK_FIXED, NULL, 0, 0, "each statement reads the latest committed snapshot"},
    {"default_transaction_isolation", "read committed", false, CK_ONE_OF, "read committed", 0, 0, "each statement reads the latest committed snapshot"},
    {"transaction_read_only", "off", false, CK_FIXED, NULL, 0, 0, "on when the server runs --read-only"},
    {"client_min_messages", "notice", false, CK_ONE_OF, "debug5|debug4|debug3|debug2|debug1|log|notice|warning|error", 0, 0, "notices below this level are not sent"},
    {"bytea_output", "hex", false, CK_ONE_OF, "hex", 0, 0, "bytea is written as \\x hex"},
    {"max_identifier_length", "63", false, CK_FIXED, NULL, 0, 0, "as PostgreSQL"},
    {"max_index_keys", "32", false, CK_FIXED, NULL, 0, 0, "as PostgreSQL"},
    {"block_size", "8192", false, CK_FIXED, NULL, 0, 0, "as PostgreSQL"},
    {"lc_collate", "C", false, CK_FIXED, NULL, 0, 0, "strings compare byte-wise"},
    {"lc_ctype", "C", false, CK_FIXED, NULL, 0, 0, "strings compare byte-wise"},
    {"lc_messages", "C", false, CK_ANY, NULL, 0, 0, "messages are in English"},
    {"lc_monetary", "C", false, CK_ANY, NULL, 0, 0, "no money type"},
    {"lc_numeric", "C", false, CK_ANY, NULL, 0, 0, "numbers are written with a '.'"},
    {"lc_time", "C", false, CK_ANY, NULL, 0, 0, "dates are written in ISO"},
    {"max_connections", "64", false, CK_FIXED, NULL, 0, 0, "--max-connections"},
};
#define NPARAMS ((int)(sizeof params / sizeof params[0]))
_Static_assert(NPARAMS <= TN_PG_MAX_SETTINGS, "room for every parameter");

static int param_index(const char *name) {
    for (int i = 0; i < NPARAMS; i++)
        if (strcasecmp(params[i].name, name) == 0) return i;
    return -1;
}

bool tn_pg_setting_known(const char *name) { return param_index(name) >= 0; }

int tn_pg_settings_init(tn_pg_settings *s, const char *user, bool read_only, int max_connections,
                        int statement_timeout_ms) {
    memset(s, 0, sizeof *s);
    s->extra_float_digits = 1;
    s->statement_timeout_ms = statement_timeout_ms;
    for (int i = 0; i < NPARAMS; i++) {
        char num[32];
        const char *v = params[i].boot;
        if (strcmp(params[i].name, "session_authorization") == 0) v = user;
        else if (read_only && strstr(params[i].name, "read_only")) v = "on";
        else if (strcmp(params[i].name, "max_connections") == 0) { snprintf(num, sizeof num, "%d", max_connections); v = num; }
        else if (strcmp(params[i].name, "statement_timeout") == 0) { snprintf(num, sizeof num, "%d", statement_timeout_ms); v = num; }
        s->boot[i] = strdup(v);
        s->values[i] = strdup(v);
        if (!s->boot[i] || !s->values[i]) return TN_ENOMEM;
    }
    return 0;
}

void tn_pg_settings_free(tn_pg_settings *s) {
    for (int i = 0; i < NPARAMS; i++) {
        free(s->values[i]);
        free(s->boot[i]);
    }
    memset(s, 0, sizeof *s);
}

static int parse_ms(const char *v, int64_t *out) {
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || x < 0) return -1;
    while (*end == ' ') end++;
    double mul = 1;
    if (!*end || strcasecmp(end, "ms") == 0) mul = 1;
    else if (strcasecmp(end, "s") == 0) mul = 1000;
    else if (strcasecmp(end, "min") == 0) mul = 60000;
    else if (strcasecmp(end, "h") == 0) mul = 3600000;
    else if (strcasecmp(end, "d") == 0) mul = 86400000;
    else return -1;
    if (x * mul > 2147483647.0) return -1;
    *out = (int64_t)(x * mul);
    return 0;
}

static bool one_of(const char *allowed, const char *v) {
    size_t n = strlen(v);
    for (const char *p = allowed; *p;) {
        const char *e = strchr(p, '|');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (k == n && strncasecmp(p, v, n) == 0) return true;
        p += k + (e ? 1 : 0);
    }
    return false;
}

static bool is_utc(const char *v) {
    static const char *const z[] = {"utc", "etc/utc", "gmt", "etc/gmt", "z", "zulu", "uct", "universal",
                                    "etc/universal", "etc/zulu", "+00", "+00:00", "0", "gmt0", "etc/gmt0"};
    for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
        if (strcasecmp(v, z[i]) == 0) return true;
    return false;
}

int tn_pg_setting_set(tn_pg_settings *s, const char *name, const char *value, bool *reported) {
    *reported = false;
    int i = param_index(name);
    if (i < 0) return tn_error_set(TN_ENOTFOUND, "unrecognized configuration parameter \"%s\"", name);
    const param_def *d = &params[i];
    char canon[64];
    const char *v = value;
    int64_t ms = 0;
    switch (d->ck) {
    case CK_FIXED:
        if (strcasecmp(value, s->values[i]) == 0) break;
        return tn_error_set(TN_EUNSUPPORTED, "parameter \"%s\" cannot be changed (%s)", d->name, d->semantics);
    case CK_ANY:
        break;
    case CK_ONE_OF:
        if (!one_of(d->allowed, value))
            return tn_error_set(TN_EUNSUPPORTED, "%s = '%s' is not supported: %s", d->name, value, d->semantics);
        if (strcmp(d->name, "client_encoding") == 0 && strcasecmp(value, "sql_ascii") != 0) v = "UTF8";
        break;
    case CK_INT: {
        char *end = NULL;
        long x = strtol(value, &end, 10);
        if (end == value || *end || x < d->lo || x > d->hi)
            return tn_error_set(TN_EINVAL, "invalid value for parameter \"%s\": \"%s\" (an integer from %d to %d)",
                                d->name, value, d->lo, d->hi);
        if (strcmp(d->name, "extra_float_digits") == 0) s->extra_float_digits = (int)x;
        break;
    }
    case CK_MS:
        if (parse_ms(value, &ms))
            return tn_error_set(TN_EINVAL, "invalid value for parameter \"%s\": \"%s\" (a duration: 500, 500ms, 5s, 1min)",
                                d->name, value);
        if (strcmp(d->name, "statement_timeout") == 0) s->statement_timeout_ms = ms;
        snprintf(canon, sizeof canon, "%lldms", (long long)ms);
        v = ms ? canon : "0";
        break;
    case CK_UTC:
        if (!is_utc(value))
            return tn_error_set(TN_EUNSUPPORTED, "TimeZone '%s' is not supported: timestamptz values are shown in UTC",
                                value);
        v = "UTC";
        break;
    case CK_DATESTYLE: {
        char low[64];
        snprintf(low, sizeof low, "%s", value);
        for (char *p = low; *p; p++) *p = (char)tolower((unsigned char)*p);
        if (!strstr(low, "iso") && strcmp(low, "mdy") && strcmp(low, "ymd"))
            return tn_error_set(TN_EUNSUPPORTED, "DateStyle '%s' is not supported: dates are written in ISO", value);
        v = "ISO, MDY";
        break;
    }
    case CK_SEARCH_PATH: {
        /* every element must be public, pg_catalog, information_schema or "$user" */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", value);
        for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
            if (strcasecmp(tok, "public") && strcasecmp(tok, "pg_catalog") && strcasecmp(tok, "\"$user\"") &&
                strcasecmp(tok, "$user") && strcasecmp(tok, "information_schema"))
                return tn_error_set(TN_EUNSUPPORTED,
                                    "search_path '%s' is not supported: unqualified names resolve in the default schema (public); qualify other schemas",
                                    value);
        }
        break;
    }
    }
    char *copy = strdup(v);
    if (!copy) return TN_ENOMEM;
    free(s->values[i]);
    s->values[i] = copy;
    *reported = d->report;
    return 0;
}

int tn_pg_setting_reset(tn_pg_settings *s, const char *name, bool *reported) {
    *reported = false;
    if (strcasecmp(name, "all") == 0) {
        for (int i = 0; i < NPARAMS; i++) {
            if (params[i].ck == CK_FIXED) continue;
            bool r;
            int rc = tn_pg_setting_set(s, params[i].name, s->boot[i], &r);
            if (rc) return rc;
            *reported |= r;
        }
        return 0;
    }
    int i = param_index(name);
    if (i < 0) return tn_error_set(TN_ENOTFOUND, "unrecognized configuration parameter \"%s\"", name);
    if (params[i].ck == CK_FIXED) return tn_error_set(TN_EUNSUPPORTED, "parameter \"%s\" cannot be changed", params[i].name);
    return tn_pg_setting_set(s, params[i].name, s->boot[i], reported);
}

const char *tn_pg_setting_get(const tn_pg_settings *s, const char *name, const char **canonical_name) {
    int i = param_index(name);
    if (i < 0) return NULL;
    if (canonical_name) *canonical_name = params[i].name;
    return s->values[i];
}

int tn_pg_setting_count(void) { return NPARAMS; }

void tn_pg_setting_at(const tn_pg_settings *s, int i, const char **name, const char **value,
                      const char **description, bool *report) {
    *name = params[i].name;
    *value = s->values[i];
    *description = params[i].semantics;
    *report = params[i].report;
}

/* The spelling PostgreSQL reports in ParameterStatus (mixed case for a few). */
const char *tn_pg_setting_wire_name(const char *name) {
    if (strcmp(name, "datestyle") == 0) return "DateStyle";
    if (strcmp(name, "timezone") == 0) return "TimeZone";
    if (strcmp(name, "intervalstyle") == 0) return "IntervalStyle";
    return name;
}
