/*
 * sql/settings.h: private to sql/: the session settings that `SET name = value` accepts, as one
 * table (settings.c) of name, kind, default and the callback that makes a value take effect.
 * A name not in the table is refused (DuckDB: unrecognized configuration parameter "x"); an
 * accepted value is validated and normalized. current_setting() reads here.
 *
 * Scope, as in DuckDB: a GLOBAL setting (default_null_order, ...) set by a plain SET or SET
 * GLOBAL holds for every session of the database, i.e. every session opened on the same
 * warehouse directory in this process; SET SESSION/LOCAL overrides it for one session (RESET
 * SESSION drops the override). A session setting (threads, Spark's and Flink's switches) is
 * per session; SET GLOBAL on it is refused.
 */
#ifndef TN_SQL_SETTINGS_H
#define TN_SQL_SETTINGS_H

#include "sql/bindInt.h"

typedef enum tn_setting_kind {
    TN_SETTING_BOOL,        /* true/false/on/off/1/0; current_setting gives BOOLEAN */
    TN_SETTING_INT,         /* a 64-bit integer in [min, max]; BIGINT */
    TN_SETTING_BYTES,       /* a size: 1000, '4GB', '512 MiB'; VARCHAR ("953.6 MiB") */
    TN_SETTING_STRING,      /* any text; VARCHAR */
    TN_SETTING_ENUM,        /* one of choices ("canonical|synonym|..."); VARCHAR */
} tn_setting_kind;

typedef struct tn_setting_def {
    const char *name;              /* compared case-insensitively */
    const char *alias;             /* another accepted name (DuckDB's), or NULL */
    tn_setting_kind kind;
    const char *default_value;     /* text of the default (NULL: from show) */
    const char *const *choices;    /* ENUM: NULL-terminated "CANONICAL|synonym|..." */
    int64_t min, max;              /* INT bounds */
    /* Makes the normalized value take effect (threads: a new pool); NULL = stored only and
     * read where it matters through tn_setting_get. */
    int (*apply)(tn_sql_session *s, const char *value);
    /* The current value as text into buf (threads, memory_limit), or NULL = stored/default. */
    void (*show)(const tn_sql_session *s, char *buf, size_t cap);
    const char *description;
    bool global;                   /* database-wide (see above); false: per session */
} tn_setting_def;

/* A session's database-wide settings: attached at tn_sql_session_open (shared with the other
 * sessions on the same warehouse directory; a session without warehouse has its own), detached
 * at close (the last one frees them). */
int tn_settings_attach(tn_sql_session *s);
void tn_settings_detach(tn_sql_session *s);

/* The definition of name (or of its alias), or NULL. */
const tn_setting_def *tn_setting_find(const char *name);
/* SET [scope] name = value (scope TN_SQL_SCOPE_*): 0, or TN_EBIND with "unrecognized
 * configuration parameter \"x\"" or a message naming the setting and the accepted values.
 * value NULL is RESET: the default (global), or no override (SESSION). */
int tn_setting_set(tn_sql_session *s, const char *name, const char *value, int scope);
/* The setting's value as text: the session's, else the database's (global settings), else its
 * default; NULL when name is not a setting. The returned pointer is valid until the session's
 * next SET of that name (a global value lives as long as the database). */
const char *tn_setting_get(const tn_sql_session *s, const char *name);
/* current_setting(name) as a typed value (strings in arena); TN_EBIND for unknown names. */
int tn_setting_value(const tn_sql_session *s, const char *name, tn_arena *arena, tn_value *out);
/* Typed readers of a registered setting (false / 0 when unset and without default). */
bool tn_setting_bool(const tn_sql_session *s, const char *name);
/* A BYTES setting's value (0 when unset). */
uint64_t tn_setting_bytes(const tn_sql_session *s, const char *name);
/* Where the session's spill files go: temp_directory, else <warehouse>/_tarn_tmp, else $TMPDIR
 * or /tmp, into buf; NULL when temp_directory is '' (spilling disabled, as in DuckDB). */
const char *tn_setting_temp_directory(const tn_sql_session *s, char *buf, size_t cap);
/* The table (terminated by a NULL name), for listing. */
extern const tn_setting_def tn_settings[];

/* default_null_order applied to one ORDER BY item: nulls 0 = default, 1 = FIRST, 2 = LAST. */
bool tn_setting_nulls_first(const tn_sql_session *s, bool desc, int nulls);

#endif
