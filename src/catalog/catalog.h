/*
 * catalog/catalog.h: the warehouse directory: schemas, tables, views, and names -> paths.
 * Depends on table/ (creating and opening tables) and below. The SQL binder resolves every
 * table and view name through this interface.
 *
 * On disk (paths relative to the warehouse root):
 *
 *   <table>/                      a table of the default schema (a directory holding _delta_log/)
 *   <schema>/                     a schema (a directory without _delta_log/)
 *   <schema>/<table>/             a table of that schema
 *   _views/<view>.json            a view of the default schema
 *   <schema>/_views/<view>.json   a view of a schema: {"name":..,"schema":..,"sql":"SELECT ..",
 *                                 "columns":[..] (optional column aliases),"createdTime":ms}
 *   [<schema>/]_sequences/<s>.json  a sequence's definition and state (sequence.c):
 *                                 {"name","start","increment","minValue","maxValue","cycle",
 *                                  "counter" (the next value handed out),"usageCount"}
 *   [<schema>/]_sequences/<s>.lock  the lock every change of <s>.json holds (never removed)
 *
 * Names: folded to lower case (identifiers are case-insensitive; quote nothing on disk), at
 * most 128 bytes, refused when they could escape or confuse the warehouse: empty, "." or "..",
 * containing '/', '\', NUL, control characters or ':' , or starting with '_' or '.' (Delta and
 * tarn ignore such directories). "default" and "main" name the default schema (the root).
 * `global_temp` is an ordinary schema.
 */
#ifndef TN_CATALOG_H
#define TN_CATALOG_H

#include "table/table.h"

#define TN_CATALOG_NAME_MAX 128

typedef struct tn_catalog tn_catalog;

/* Opens the warehouse at dir, creating it (and parents) if missing. fs NULL = tn_fs_default().
 * The warehouse path is kept as given (without trailing '/'). */
int tn_catalog_open(tn_catalog **out, tn_fs *fs, const char *dir);
void tn_catalog_close(tn_catalog *cat);
const char *tn_catalog_path(const tn_catalog *cat);
tn_fs *tn_catalog_fs(const tn_catalog *cat);

/* A resolved name: schema "" = the default schema. Lower-cased and validated. */
typedef struct tn_catalog_name {
    char schema[TN_CATALOG_NAME_MAX + 1];
    char name[TN_CATALOG_NAME_MAX + 1];
} tn_catalog_name;

/* Validates one identifier; `kind` names it in the error ("invalid table name '../x': ..."). */
int tn_catalog_check_name(const char *kind, const char *name);
/* From separate parts (schema NULL or "" = default). kind: "table" / "view". */
int tn_catalog_name_make(tn_catalog_name *out, const char *kind, const char *schema, const char *name);
/* From "s.t" or "t" (one dot at most; use tn_catalog_name_make for quoted names with dots). */
int tn_catalog_name_parse(tn_catalog_name *out, const char *kind, const char *qualified);
/* "s.t" or "t" into buf. */
const char *tn_catalog_name_format(const tn_catalog_name *n, char *buf, size_t cap);

/* Directory of a schema / table (tn_malloc'd, caller tn_free's). Does not check existence. */
int tn_catalog_schema_path(const tn_catalog *cat, const char *schema, char **out);
int tn_catalog_table_path(const tn_catalog *cat, const tn_catalog_name *name, char **out);

/* A list of names (sorted); free with tn_catalog_list_free. */
typedef struct tn_catalog_list {
    char **names;
    uint32_t count;
} tn_catalog_list;
void tn_catalog_list_free(tn_catalog_list *list);

/* ---------------------------------------------------------------------------------------------
 * Schemas.
 */
int tn_catalog_schema_exists(tn_catalog *cat, const char *schema, bool *out);
/* CREATE SCHEMA [IF NOT EXISTS]: TN_EEXISTS "schema 's' already exists" (also when a table of
 * the default schema has that name). */
int tn_catalog_schema_create(tn_catalog *cat, const char *schema, bool if_not_exists);
/* DROP SCHEMA [IF EXISTS] s [CASCADE]: without cascade a schema holding tables or views is
 * refused (TN_ECONSTRAINT). The default schema cannot be dropped. */
int tn_catalog_schema_drop(tn_catalog *cat, const char *schema, bool if_exists, bool cascade);
/* SHOW SCHEMAS: "default" first, then each schema directory. */
int tn_catalog_schema_list(tn_catalog *cat, tn_catalog_list *out);

/* ---------------------------------------------------------------------------------------------
 * Tables.
 */
int tn_catalog_table_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out);
/* CREATE TABLE: the schema must exist; a view or table of that name must not (unless
 * opts->if_not_exists and it is a table). Column names are kept as given. */
int tn_catalog_table_create(tn_catalog *cat, const tn_catalog_name *name, const tn_table_create_options *opts);
/* Opens a table (TN_ENOTFOUND "table 's.t' does not exist"). opts NULL = latest. */
int tn_catalog_table_open(tn_catalog *cat, const tn_catalog_name *name, const tn_table_open_options *opts,
                          tn_table **out);
/* The same, for a caller that has just seen tn_catalog_table_exists say yes (the binder): no
 * second stat(2) of the table's _delta_log (a table dropped in between fails in tn_table_open). */
int tn_catalog_table_open_found(tn_catalog *cat, const tn_catalog_name *name, const tn_table_open_options *opts,
                                tn_table **out);
/* DROP TABLE [IF EXISTS]: removes the table's directory tree. */
int tn_catalog_table_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists);
/* ALTER TABLE a RENAME TO b (may move across schemas): rename(2) of the directory; refused
 * when b exists. Concurrent writers of a keep writing to the old path (documented limit). */
int tn_catalog_table_rename(tn_catalog *cat, const tn_catalog_name *from, const tn_catalog_name *to);
/* SHOW TABLES [IN schema]: table names of a schema (schema NULL/"" = default). */
int tn_catalog_table_list(tn_catalog *cat, const char *schema, tn_catalog_list *out);

/* ---------------------------------------------------------------------------------------------
 * Views.
 */
typedef struct tn_catalog_view {
    char *sql;                       /* the SELECT text */
    char **columns;                  /* optional column aliases (NULL when none) */
    uint32_t ncolumns;
    int64_t created_ms;
} tn_catalog_view;
void tn_catalog_view_free(tn_catalog_view *v);

int tn_catalog_view_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out);
/* CREATE [OR REPLACE] VIEW [IF NOT EXISTS]: TN_EEXISTS when the view exists and neither flag is
 * set, or when a table has that name. Written atomically (temp file + rename/link). */
int tn_catalog_view_create(tn_catalog *cat, const tn_catalog_name *name, const char *sql,
                           const char *const *columns, uint32_t ncolumns, bool or_replace,
                           bool if_not_exists);
/* Reads a view definition: TN_ENOTFOUND "view 's.v' does not exist". */
int tn_catalog_view_get(tn_catalog *cat, const tn_catalog_name *name, tn_catalog_view *out);
int tn_catalog_view_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists);
int tn_catalog_view_list(tn_catalog *cat, const char *schema, tn_catalog_list *out);

/* ---------------------------------------------------------------------------------------------
 * Sequences (sequence.c), with DuckDB's rules. A sequence's state lives in the warehouse so that
 * every process sees one counter: nextval changes it under the sequence's file lock (read, write
 * a temp file, fsync, rename), so two processes never get the same value, and a value handed out
 * is durable before it is returned (a crash never hands it out again).
 */
typedef struct tn_seq {
    int64_t start, increment, min, max;
    bool cycle;
    int64_t counter;               /* the value the next nextval returns */
    uint64_t usage;                /* values handed out */
} tn_seq;
/* The definition from CREATE SEQUENCE's options (NULL = not given) with DuckDB's defaults
 * (increment 1; min 1 / max INT64_MAX, or max -1 / min INT64_MIN for a negative increment; start
 * = min, or max) and its checks ("Increment must not be zero", "START value (5) cannot be less
 * than MINVALUE (10)", ...: TN_EINVAL). */
int tn_seq_init(tn_seq *out, const int64_t *start, const int64_t *increment, const int64_t *min,
                const int64_t *max, bool cycle);
/* n values of s into out (DuckDB's nextval: cycles, or "Sequence Error: nextval: reached maximum
 * value of sequence "s" (2)"); s changes only on success. */
int tn_seq_take(tn_seq *s, const char *name, uint32_t n, int64_t *out);

/* CREATE [OR REPLACE] SEQUENCE [IF NOT EXISTS]: TN_EEXISTS `Sequence with name "s" already
 * exists!`; DROP SEQUENCE [IF EXISTS]: TN_ENOTFOUND "Sequence with name s does not exist!". */
int tn_catalog_sequence_create(tn_catalog *cat, const tn_catalog_name *name, const tn_seq *init,
                               bool or_replace, bool if_not_exists);
int tn_catalog_sequence_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists);
int tn_catalog_sequence_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out);
/* Macros (macro.c): the CREATE MACRO text of [<schema>/]_macros/<m>.json. put: *existed when
 * the name was taken (then nothing is written, unless or_replace); get: *sql NULL when none
 * (tn_free it); drop: *dropped when it existed. */
int tn_catalog_macro_put(tn_catalog *cat, const tn_catalog_name *name, const char *sql, bool or_replace,
                         bool *existed);
int tn_catalog_macro_get(tn_catalog *cat, const tn_catalog_name *name, char **sql);
int tn_catalog_macro_drop(tn_catalog *cat, const tn_catalog_name *name, bool *dropped);
/* nextval of a sequence of the warehouse: n values into out, one locked update. */
int tn_catalog_sequence_next(tn_catalog *cat, const tn_catalog_name *name, uint32_t n, int64_t *out);

#endif
