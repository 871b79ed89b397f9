/*
 * sql/stmt_ddl.c: the table statements' entry (dispatch from the session) and the catalog
 * statements: CREATE SCHEMA / TABLE [AS SELECT, in one commit] / VIEW, DROP, ALTER TABLE (SET
 * options, ADD COLUMN, RENAME TO), DESCRIBE t, DESCRIBE HISTORY t, SHOW [ALL] TABLES / SCHEMAS,
 * VACUUM; the session's table state (the catalog, opened on first use; SET options).
 * Capabilities of later layers (buckets, qbeast, OPTIMIZE, UPDATE, UPSERT) fail here with "not
 * supported yet: <what>". DML lives in stmt_dml.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/parse.h"
#include "sql/stmt.h"

struct tn_stmt_state {
    tn_catalog *cat;
    tn_delta_kv *opts;               /* SET options: keys and values tn_malloc'd */
    uint32_t nopts, cap;
};

static int state_of(tn_sql_session *s, struct tn_stmt_state **out) {
    if (!s->tables) {
        s->tables = tn_calloc(1, sizeof *s->tables);
        if (!s->tables) return TN_ENOMEM;
    }
    *out = s->tables;
    return 0;
}

void tn_stmt_session_free(tn_sql_session *s) {
    struct tn_stmt_state *st = s ? s->tables : NULL;
    if (!st) return;
    tn_catalog_close(st->cat);
    for (uint32_t i = 0; i < st->nopts; i++) {
        tn_free((char *)st->opts[i].key);
        tn_free((char *)st->opts[i].value);
    }
    tn_free(st->opts);
    tn_free(st);
    s->tables = NULL;
}

int tn_stmt_set_option(tn_sql_session *s, const tn_sql_option *o) {
    struct tn_stmt_state *st = NULL;
    int rc = state_of(s, &st);
    if (rc) return rc;
    char *v = o->value ? tn_strdup(o->value) : NULL;
    if (o->value && !v) return TN_ENOMEM;
    for (uint32_t i = 0; i < st->nopts; i++)
        if (tn_str_iequal(st->opts[i].key, o->key)) {
            tn_free((char *)st->opts[i].value);
            st->opts[i].value = v;
            return 0;
        }
    if (st->nopts == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 8;
        tn_delta_kv *n = tn_realloc(st->opts, cap * sizeof *n);
        if (!n) {
            tn_free(v);
            return TN_ENOMEM;
        }
        st->opts = n;
        st->cap = cap;
    }
    char *k = tn_strdup(o->key);
    if (!k) {
        tn_free(v);
        return TN_ENOMEM;
    }
    st->opts[st->nopts].key = k;
    st->opts[st->nopts].value = v;
    st->nopts++;
    return 0;
}

const char *tn_stmt_get_option(const tn_sql_session *s, const char *key) {
    const struct tn_stmt_state *st = s->tables;
    for (uint32_t i = 0; st && i < st->nopts; i++)
        if (tn_str_iequal(st->opts[i].key, key)) return st->opts[i].value;
    return NULL;
}

static int session_catalog(tn_sql_session *s, bool create, tn_catalog **out);

int tn_stmt_catalog(tn_binder *b, bool create, tn_catalog **out) { return session_catalog(b->session, create, out); }

static int session_catalog(tn_sql_session *s, bool create, tn_catalog **out) {
    *out = NULL;
    if (!s->warehouse)
        return tn_error_set(TN_EINVAL, "no warehouse: tables need a session opened on a warehouse directory (-w DIR)");
    struct tn_stmt_state *st = NULL;
    int rc = state_of(s, &st);
    if (rc) return rc;
    if (!st->cat) {
        struct stat sb;
        if (!create && stat(s->warehouse, &sb) != 0)
            return tn_error_set(TN_ENOTFOUND, "warehouse '%s' does not exist", s->warehouse);
        rc = tn_catalog_open(&st->cat, NULL, s->warehouse);
        if (rc) return rc;
    }
    *out = st->cat;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Outputs.
 */
int tn_stmt_output_init(tn_binder *b, tn_stmt_output *o, uint32_t ncols, const char *const *names,
                        const tn_type *types) {
    o->ncols = ncols;
    o->has_rows = true;
    o->names = tn_arena_calloc(b->arena, (ncols + 1) * sizeof *o->names);
    o->types = tn_arena_calloc(b->arena, (ncols + 1) * sizeof *o->types);
    if (!o->names || !o->types) return TN_ENOMEM;
    for (uint32_t i = 0; i < ncols; i++) {
        o->names[i] = names[i];
        o->types[i] = types[i];
    }
    return tn_collection_init(&o->rows, ncols, o->types);
}

/* Row-at-a-time building of an output. */
typedef struct rows {
    tn_stmt_output *o;
    tn_chunk c;
    uint32_t row;
} rows;

static int rows_open(rows *r, tn_stmt_output *o) {
    memset(r, 0, sizeof *r);
    r->o = o;
    return tn_chunk_init(&r->c, o->ncols, o->types, TN_VECTOR_SIZE);
}

static int rows_flush(rows *r) {
    if (r->row == 0) return 0;
    r->c.count = r->row;
    for (uint32_t i = 0; i < r->c.ncols; i++) r->c.cols[i].count = r->row;
    int rc = tn_collection_append(&r->o->rows, &r->c, NULL, r->row);
    tn_chunk_reset(&r->c);
    r->row = 0;
    return rc;
}

static int rows_str(rows *r, uint32_t col, const char *s) {
    if (!s) return tn_vector_set_null(&r->c.cols[col], r->row);
    return tn_vector_set_str(&r->c.cols[col], r->row, s, strlen(s));
}

static void rows_i64(rows *r, uint32_t col, int64_t v) { ((int64_t *)r->c.cols[col].data)[r->row] = v; }
static void rows_f64(rows *r, uint32_t col, double v) { ((double *)r->c.cols[col].data)[r->row] = v; }
static void rows_bool(rows *r, uint32_t col, bool v) { ((uint8_t *)r->c.cols[col].data)[r->row] = v; }

static int rows_next(rows *r) {
    r->row++;
    return r->row == TN_VECTOR_SIZE ? rows_flush(r) : 0;
}

static int rows_close(rows *r, int rc) {
    if (!rc) rc = rows_flush(r);
    if (r->c.cols) tn_chunk_free(&r->c);
    return rc;
}

int tn_stmt_output_count(tn_binder *b, tn_stmt_output *o, const char *name, int64_t n) {
    tn_type t = tn_type_make(TN_TYPE_BIGINT);
    int rc = tn_stmt_output_init(b, o, 1, &name, &t);
    if (rc) return rc;
    rows r;
    rc = rows_open(&r, o);
    if (!rc) {
        rows_i64(&r, 0, n);
        rc = rows_next(&r);
    }
    rc = rows_close(&r, rc);
    o->has_rows = false;
    return rc;
}

static int status(tn_binder *b, tn_stmt_output *o) {
    int rc = tn_stmt_output_init(b, o, 0, NULL, NULL);
    o->has_rows = false;
    return rc;
}

static int unsupported(tn_binder *b, tn_sql_pos pos, const char *what) {
    return tn_bind_error_code(b, TN_EUNSUPPORTED, pos, "not supported yet: %s", what);
}

static const char *fmt_name(const tn_catalog_name *n, char *buf, size_t cap) {
    return tn_catalog_name_format(n, buf, cap);
}

/* ---------------------------------------------------------------------------------------------
 * CREATE SCHEMA / TABLE / VIEW.
 */
static int create_schema(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    const tn_sql_qname *q = &stmt->u.create_schema.name;
    if (q->n != 1) return unsupported(b, q->parts[0].pos, "catalog-qualified schema names");
    tn_catalog *cat = NULL;
    int rc = tn_stmt_catalog(b, true, &cat);
    if (!rc) rc = tn_catalog_schema_create(cat, q->parts[0].name, stmt->u.create_schema.if_not_exists);
    if (rc) return tn_bind_error_at(b, rc, q->parts[0].pos);
    return status(b, out);
}

/* Options that belong to later layers. */
static int check_table_options(tn_binder *b, const tn_sql_options *opts, bool alter, bool qbeast) {
    for (int i = 0; i < opts->n; i++) {
        const tn_sql_option *o = &opts->items[i];
        if (tn_str_iequal(o->key, "SALT_BUCKETS")) {
            /* Phoenix (MetaDataClient): 0 = unsalted, else 1..256 */
            char *end = NULL;
            long v = o->value ? strtol(o->value, &end, 10) : -1;
            if (!o->value || end == o->value || *end || v < 0 || v > 256)
                return tn_bind_error(b, o->pos, "ERROR 1021 (42Y80): Salt bucket numbers should be with 1 and 256.");
        }
        if (tn_str_iequal(o->key, "columnsToIndex") || tn_str_iequal(o->key, "cubeSize")) {
            /* ALTER TABLE SET: converts a plain table (tn_layout_otree_convert) */
            if (!qbeast && !alter)
                return tn_bind_error(b, o->pos, "'%s' is an option of qbeast tables: CREATE TABLE ... USING qbeast "
                                     "OPTIONS ('columnsToIndex' = ...)", o->key);
        }
        if (tn_str_iequal_n(o->key, 7, "qbeast."))
            return tn_bind_error(b, o->pos, "table property '%s' is written by the OTree layout itself (create the "
                                 "table with USING qbeast OPTIONS ('columnsToIndex' = ...))", o->key);
        /* the layout is chosen when the table is created, from its properties */
        if (alter && tn_str_iequal(o->key, "tarn.layout"))
            return tn_bind_error(b, o->pos, "the layout of a table ('tarn.layout') is chosen at CREATE TABLE");
        if (tn_str_iequal(o->key, "tarn.layout")) {
            tn_delta_kv kv = {o->key, o->value};
            int rc = tn_layout_check_config(&kv, 1);
            if (rc) return tn_bind_error_at(b, rc, o->pos);
        }
    }
    return 0;
}

static int options_kv(tn_binder *b, const tn_sql_options *opts, tn_delta_kv **out) {
    *out = tn_arena_calloc(b->arena, ((size_t)opts->n + 1) * sizeof **out);
    if (!*out) return TN_ENOMEM;
    for (int i = 0; i < opts->n; i++) {
        const tn_sql_option *o = &opts->items[i];
        (*out)[i].key = o->key;
        (*out)[i].value = o->kind == TN_SQL_VALUE_NULL ? NULL : o->kind == TN_SQL_VALUE_NONE ? "true" : o->value;
    }
    return 0;
}

static int column_def(tn_binder *b, const tn_sql_column_def *c, tn_table_column_def *out) {
    if (!c->type || !c->type->known)
        return tn_bind_error(b, c->type ? c->type->pos : c->name.pos, "unknown type %s",
                             c->type && c->type->name ? c->type->name : "?");
    if (c->default_expr) return unsupported(b, c->default_expr->pos, "column DEFAULT values");
    tn_type_id id = (tn_type_id)c->type->type.id;
    if (id == TN_TYPE_INTERVAL || id == TN_TYPE_NULL)
        return tn_bind_error(b, c->type->pos, "a table column cannot have type %s", c->type->name);
    /* A Delta timestamp column holds microseconds and the log has no place for a precision:
     * TIMESTAMP(p) other than 6 would be rounded in DuckDB (TIMESTAMP_S/_MS) and cannot be
     * kept here, so it is refused rather than ignored. */
    if (id == TN_TYPE_TIMESTAMP && c->type->n_params == 1 && c->type->params[0] != 6)
        return tn_bind_error(b, c->type->pos,
                             "column %s: TIMESTAMP(%lld) is not supported for a table column (Delta timestamps "
                             "hold microseconds); declare it TIMESTAMP and round with CAST(x AS TIMESTAMP(%lld)) "
                             "on insert", c->name.name, (long long)c->type->params[0], (long long)c->type->params[0]);
    out->name = c->name.name;
    out->type = c->type->type;
    out->nullable = !c->not_null;
    out->comment = c->comment;
    return 0;
}

/* LOCATION rules (safe by default): a relative path resolves against the warehouse, not the
 * process's working directory; the resolved path (symlinks of its existing part resolved) must
 * lie inside the warehouse unless the session SET allow_external_locations = true; and it must
 * be missing, an empty directory, or already a Delta table (a _delta_log inside), so that no
 * later VACUUM or DROP can touch files the table does not own. *out (binder arena) gets the
 * absolute, resolved path. */
static bool setting_true(const char *v) {
    return v && (tn_str_iequal(v, "true") || tn_str_iequal(v, "on") || strcmp(v, "1") == 0);
}

static int lexical_normalize(char *p) {
    /* p is absolute; removes "." and "//", resolves ".." lexically (never above "/") */
    char *out = p, *in = p;
    while (*in) {
        while (*in == '/') in++;
        if (!*in) break;
        char *seg = in;
        while (*in && *in != '/') in++;
        size_t n = (size_t)(in - seg);
        if (n == 1 && seg[0] == '.') continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/') {}
            continue;
        }
        *out++ = '/';
        memmove(out, seg, n);
        out += n;
    }
    if (out == p) *out++ = '/';
    *out = '\0';
    return 0;
}

/* realpath of the longest existing prefix of abs (absolute, normalized), the rest appended. */
static int resolve_existing(const char *abs, char *out, size_t cap) {
    char tmp[PATH_MAX], real[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s", abs) >= sizeof tmp) return -1;
    size_t n = strlen(tmp);
    for (int tries = 0; tries < PATH_MAX; tries++) {
        if (realpath(tmp, real)) {
            if (strcmp(real, "/") == 0) real[0] = '\0';
            const char *rest = abs + n;
            if ((size_t)snprintf(out, cap, "%s%s", real, rest) >= cap) return -1;
            if (!out[0]) snprintf(out, cap, "/");
            return 0;
        }
        char *slash = strrchr(tmp, '/');
        if (!slash || slash == tmp) {
            if (n == 0) return -1;
            snprintf(tmp, sizeof tmp, "/");
            n = 0;
            continue;
        }
        *slash = '\0';
        n = (size_t)(slash - tmp);
    }
    return -1;
}

static int resolve_location(tn_binder *b, tn_catalog *cat, const char *location, tn_sql_pos pos, const char **out) {
    char wh[PATH_MAX], abs[PATH_MAX], res[PATH_MAX];
    const char *whp = tn_catalog_path(cat);
    if (!realpath(whp, wh))
        return tn_bind_error_code(b, TN_EIO, pos, "warehouse '%s': cannot resolve the path: %s", whp, strerror(errno));
    if (!location[0]) return tn_bind_error(b, pos, "LOCATION '': an empty path");
    int w = location[0] == '/' ? snprintf(abs, sizeof abs, "%s", location)
                               : snprintf(abs, sizeof abs, "%s/%s", wh, location);
    if (w < 0 || (size_t)w >= sizeof abs)
        return tn_bind_error_code(b, TN_ELIMIT, pos, "LOCATION '%s': path too long", location);
    lexical_normalize(abs);
    if (resolve_existing(abs, res, sizeof res) != 0)
        return tn_bind_error_code(b, TN_EIO, pos, "LOCATION '%s': cannot resolve the path", location);
    size_t wl = strlen(wh);
    bool inside = strncmp(res, wh, wl) == 0 && res[wl] == '/' && res[wl + 1];
    if (!inside && !setting_true(tn_stmt_get_option(b->session, "allow_external_locations")))
        return tn_bind_error_code(b, TN_EINVAL, pos,
                                  "LOCATION '%s' (%s) is outside the warehouse %s: run SET allow_external_locations = "
                                  "true to allow tables outside it", location, res, wh);
    struct stat sb;
    if (stat(res, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return tn_bind_error_code(b, TN_EINVAL, pos, "LOCATION '%s' (%s) is not a directory", location, res);
        char lp[PATH_MAX + 16];
        snprintf(lp, sizeof lp, "%s/_delta_log", res);
        if (stat(lp, &sb) != 0) {
            DIR *d = opendir(res);
            if (!d)
                return tn_bind_error_code(b, TN_EIO, pos, "LOCATION '%s' (%s): opendir: %s", location, res, strerror(errno));
            struct dirent *de;
            char first[256] = "";
            while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
                    snprintf(first, sizeof first, "%s", de->d_name);
                    break;
                }
            closedir(d);
            if (first[0])
                return tn_bind_error_code(b, TN_EINVAL, pos,
                                          "LOCATION '%s' (%s) is neither empty nor a Delta table (it holds '%s'): use an "
                                          "empty or missing directory, or one holding a Delta table", location, res, first);
        }
    }
    *out = tn_arena_strdup(b->arena, res);
    return *out ? 0 : TN_ENOMEM;
}

/* Creates a symlink at the table's catalog path pointing to the resolved LOCATION. */
static int link_location(tn_binder *b, tn_catalog *cat, const tn_catalog_name *cn, const char *location,
                         const char *abs, tn_sql_pos pos) {
    char *dir = NULL;
    int rc = tn_catalog_table_path(cat, cn, &dir);
    if (rc) return tn_bind_error_at(b, rc, pos);
    if (symlink(abs, dir) != 0) {
        rc = tn_bind_error_code(b, errno == EEXIST ? TN_EEXISTS : TN_EIO, pos, "LOCATION '%s': cannot link %s: %s",
                                location, dir, strerror(errno));
        goto cleanup;
    }
cleanup:
    tn_free(dir);
    return rc;
}

/* CREATE TABLE name AS SELECT (no LOCATION) as one commit through a staged table. *staged
 * false (and 0): the catalog's checks are better left to tn_catalog_table_create (the schema
 * does not exist, or a schema directory has the table's name): the caller goes the two-commit
 * way, whose errors name the problem. On a failure after staging, the directory made for the
 * table is removed when it is empty. Takes *plan. */
static int ctas_staged(tn_binder *b, tn_catalog *cat, const tn_catalog_name *cn, const tn_table_create_options *o,
                       tn_plan **plan, tn_sql_pos pos, bool *staged) {
    *staged = false;
    bool ok = false;
    int rc = tn_catalog_schema_exists(cat, cn->schema, &ok);
    if (rc || !ok) {
        tn_error_clear();
        return 0;
    }
    if (!cn->schema[0]) {
        bool clash = true;
        rc = tn_catalog_schema_exists(cat, cn->name, &clash);
        if (rc || clash) {
            tn_error_clear();
            return 0;
        }
    }
    char *dir = NULL;
    rc = tn_catalog_table_path(cat, cn, &dir);
    if (rc) return tn_bind_error_at(b, rc, pos);
    tn_fs *fs = tn_catalog_fs(cat);
    tn_table *t = NULL;
    *staged = true;
    rc = tn_table_create_staged(&t, fs, dir, o);
    if (rc) {
        rc = tn_bind_error_at(b, rc, pos);
        goto cleanup;
    }
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.operation = "CREATE TABLE AS SELECT";
    tn_plan *p = *plan;
    *plan = NULL;
    rc = tn_stmt_write_plan(b, t, p, &wo, NULL);
    if (rc) {
        tn_error_state saved;
        tn_error_save(&saved);
        fs->rmdir(fs, dir);            /* empty after the writer's abort (best effort) */
        tn_error_restore(&saved);
    }
cleanup:
    tn_table_close(t);
    tn_free(dir);
    return rc;
}

/* PRIMARY KEY (...) / CONSTRAINT name PRIMARY KEY (...): the key goes into the configuration as
 * Paimon's 'primary-key' option (column names as the table spells them), which makes the table a
 * primary-key table (layout/bucket/); one bucket per partition unless 'bucket' says otherwise. */
static int pk_configuration(tn_binder *b, __typeof__(((tn_sql_stmt *)0)->u.create_table) *ct,
                            const tn_table_column_def *cols, uint32_t ncols, tn_delta_kv **conf, uint32_t *nconf) {
    tn_buf names = TN_BUF_INIT;
    int rc = 0;
    bool has_bucket = false;
    for (uint32_t i = 0; i < *nconf; i++) {
        if (tn_str_iequal((*conf)[i].key, "primary-key"))
            return tn_bind_error(b, ct->pk_columns[0].pos, "Cannot define primary key on DDL and table options at the "
                                 "same time.");
        if (tn_str_iequal((*conf)[i].key, "bucket") || tn_str_iequal((*conf)[i].key, "SALT_BUCKETS")) has_bucket = true;
    }
    for (int k = 0; k < ct->n_pk_columns && !rc; k++) {
        const char *name = NULL;
        for (uint32_t i = 0; i < ncols && !name; i++)
            if (tn_str_iequal(cols[i].name, ct->pk_columns[k].name)) name = cols[i].name;
        if (!name) {
            tn_buf_free(&names);
            return tn_bind_error(b, ct->pk_columns[k].pos, "primary key column '%s' is not a column of the table",
                                 ct->pk_columns[k].name);
        }
        rc = tn_buf_printf(&names, "%s%s", k ? "," : "", name);
    }
    tn_delta_kv *n = tn_arena_calloc(b->arena, ((size_t)*nconf + 3) * sizeof *n);
    char *text = names.data ? tn_arena_strdup(b->arena, (const char *)names.data) : NULL;
    tn_buf_free(&names);
    if (rc || !n || !text) return rc ? rc : TN_ENOMEM;
    memcpy(n, *conf, sizeof *n * *nconf);
    n[(*nconf)++] = (tn_delta_kv){"primary-key", text};
    if (!has_bucket) n[(*nconf)++] = (tn_delta_kv){"bucket", "1"};
    *conf = n;
    return 0;
}

static int create_table(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.create_table) *ct = &stmt->u.create_table;
    tn_catalog_name cn;
    char nb[2 * TN_CATALOG_NAME_MAX + 2];
    tn_plan *plan = NULL;
    tn_table *t = NULL;
    bool created = false;
    int rc = 0;
    bool qbeast = ct->using_format.name && tn_str_iequal(ct->using_format.name, "qbeast");
    if (ct->using_format.name && !tn_str_iequal(ct->using_format.name, "delta") && !qbeast) {
        char what[160];
        snprintf(what, sizeof what, "USING %s (tables are Delta tables, or qbeast OTree tables)", ct->using_format.name);
        return unsupported(b, ct->using_format.pos, what);
    }
    if (ct->temporary) return unsupported(b, stmt->pos, "TEMPORARY tables");
    rc = check_table_options(b, &ct->options, false, qbeast);
    if (rc) return rc;
    rc = tn_bind_catalog_name(b, &ct->name, "table", &cn);
    if (rc) return rc;
    tn_catalog *cat = NULL;
    rc = tn_stmt_catalog(b, true, &cat);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    bool exists = false, is_view = false;
    rc = tn_catalog_table_exists(cat, &cn, &exists);
    if (!rc) rc = tn_catalog_view_exists(cat, &cn, &is_view);
    if (rc) return tn_bind_error_at(b, rc, ct->name.parts[0].pos);
    if (is_view)
        return tn_bind_error_code(b, TN_EEXISTS, ct->name.parts[0].pos, "%s is a view; a table cannot have its name",
                                  fmt_name(&cn, nb, sizeof nb));
    if (exists && ct->if_not_exists) return status(b, out);
    if (exists && !ct->or_replace)
        return tn_bind_error_code(b, TN_EEXISTS, ct->name.parts[0].pos, "table '%s' already exists",
                                  fmt_name(&cn, nb, sizeof nb));

    tn_table_create_options o = TN_TABLE_CREATE_OPTIONS_INIT;
    tn_table_column_def *cols = NULL;
    uint32_t ncols = 0;
    if (ct->as_query) {
        if (ct->n_columns) return unsupported(b, ct->columns[0].name.pos, "a column list with CREATE TABLE ... AS");
        rc = tn_stmt_bind_query(b, ct->as_query, &plan);
        if (rc) return rc;
        ncols = plan->ncols;
        cols = tn_arena_calloc(b->arena, (ncols + 1) * sizeof *cols);
        if (!cols) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < ncols; i++) {
            cols[i].name = plan->names[i];
            cols[i].type = plan->types[i];
            cols[i].nullable = true;
            if (plan->types[i].id == TN_TYPE_NULL) {
                /* SELECT NULL AS x: a VARCHAR column, as Spark makes it a string column */
                cols[i].type = tn_type_make(TN_TYPE_VARCHAR);
            } else if (plan->types[i].id == TN_TYPE_INTERVAL) {
                rc = tn_bind_error(b, ct->as_query->pos, "column '%s' has type INTERVAL, which a table cannot store",
                                   plan->names[i]);
                goto cleanup;
            }
        }
        {
            tn_type *types = tn_arena_calloc(b->arena, (ncols + 1) * sizeof *types);
            if (!types) { rc = TN_ENOMEM; goto cleanup; }
            for (uint32_t i = 0; i < ncols; i++) types[i] = cols[i].type;
            rc = tn_bind_cast_plan(b, plan, types, &plan);
            if (rc) goto cleanup;
        }
    } else {
        ncols = (uint32_t)ct->n_columns;
        cols = tn_arena_calloc(b->arena, (ncols + 1) * sizeof *cols);
        if (!cols) return TN_ENOMEM;
        for (uint32_t i = 0; i < ncols; i++) {
            rc = column_def(b, &ct->columns[i], &cols[i]);
            if (rc) return rc;
        }
    }
    /* PRIMARY KEY without a 'bucket' option (Phoenix, plain SQL): a plain table for now; the key
     * columns are NOT NULL as Phoenix makes them. */
    for (int k = 0; k < ct->n_pk_columns; k++)
        for (uint32_t i = 0; i < ncols; i++)
            if (tn_str_iequal(cols[i].name, ct->pk_columns[k].name)) cols[i].nullable = false;
    const char **parts = NULL;
    if (ct->n_partitioned_by) {
        parts = tn_arena_calloc(b->arena, (size_t)ct->n_partitioned_by * sizeof *parts);
        if (!parts) { rc = TN_ENOMEM; goto cleanup; }
        for (int i = 0; i < ct->n_partitioned_by; i++) {
            bool found = false;
            for (uint32_t c = 0; c < ncols && !found; c++)
                if (tn_str_iequal(cols[c].name, ct->partitioned_by[i].name)) {
                    parts[i] = cols[c].name;
                    found = true;
                }
            if (!found) {
                rc = tn_bind_error(b, ct->partitioned_by[i].pos, "PARTITIONED BY column '%s' is not a column of the table",
                                   ct->partitioned_by[i].name);
                goto cleanup;
            }
        }
    }
    tn_delta_kv *conf = NULL;
    rc = options_kv(b, &ct->options, &conf);
    if (rc) goto cleanup;
    uint32_t nconf = (uint32_t)ct->options.n;
    if (ct->n_pk_columns) {
        rc = pk_configuration(b, ct, cols, ncols, &conf, &nconf);
        if (rc) goto cleanup;
    }
    o.columns = cols;
    o.ncolumns = ncols;
    o.partition_columns = parts;
    o.npartition_columns = (uint32_t)ct->n_partitioned_by;
    o.configuration = conf;
    o.nconfiguration = nconf;
    if (qbeast) {
        /* the OTree layout checks columnsToIndex / cubeSize and adds qbeast's metadata */
        tn_delta_kv *qconf = NULL;
        uint32_t nq = 0;
        rc = tn_layout_otree_table_config(cols, ncols, (uint32_t)ct->n_partitioned_by, conf, nconf,
                                          fmt_name(&cn, nb, sizeof nb), b->arena, &qconf, &nq);
        if (rc) { rc = tn_bind_error_at(b, rc, ct->using_format.pos); goto cleanup; }
        o.configuration = qconf;
        o.nconfiguration = nq;
    }
    o.name = cn.name;
    /* the layout's rules (a primary-key table's key, buckets and merge options) */
    rc = tn_layout_check_create(&o);
    if (rc) { rc = tn_bind_error_at(b, rc, ct->name.parts[0].pos); goto cleanup; }
    o.description = ct->comment;
    if (ct->as_query) o.operation = "CREATE TABLE AS SELECT";
    if (exists && ct->or_replace) {
        rc = tn_catalog_table_drop(cat, &cn, true);
        if (rc) { rc = tn_bind_error_at(b, rc, stmt->pos); goto cleanup; }
    }
    if (plan && !ct->location) {
        /* CREATE TABLE AS in one commit: version 0 holds the schema and the data, so a failed
         * query or write leaves no table */
        bool staged = false;
        rc = ctas_staged(b, cat, &cn, &o, &plan, stmt->pos, &staged);
        if (staged) {
            if (!rc) rc = status(b, out);
            goto cleanup;
        }
        if (rc) goto cleanup;
    }
    if (ct->location) {
        const char *abs = NULL;
        rc = resolve_location(b, cat, ct->location, stmt->pos, &abs);
        if (rc) goto cleanup;
        rc = tn_table_create(tn_catalog_fs(cat), abs, &o);
        if (rc == TN_EEXISTS) rc = 0;  /* an existing Delta table at LOCATION: register it */
        if (!rc) rc = link_location(b, cat, &cn, ct->location, abs, stmt->pos);
    } else {
        rc = tn_catalog_table_create(cat, &cn, &o);
    }
    if (rc) { rc = tn_bind_error_at(b, rc, ct->name.parts[0].pos); goto cleanup; }
    created = true;
    if (plan) {
        rc = tn_catalog_table_open(cat, &cn, NULL, &t);
        if (rc) goto cleanup;
        tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
        wo.operation = "CREATE TABLE AS SELECT";
        tn_plan *p = plan;
        plan = NULL;
        rc = tn_stmt_write_plan(b, t, p, &wo, NULL);
        if (rc) goto cleanup;
    }
    rc = status(b, out);
cleanup:
    tn_plan_free(plan);
    tn_table_close(t);
    if (rc && created && !ct->location) {
        /* CREATE TABLE AS is one statement: no half-made table stays behind */
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", tn_error_message());
        tn_catalog_table_drop(cat, &cn, true);
        tn_error_set(rc, "%s", msg);
    }
    return rc;
}

/* CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW: bound now (as Spark checks it), kept in the session. */
static int create_temp_view(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.create_view) *cv = &stmt->u.create_view;
    const tn_sql_qname *q = &cv->name;
    if (q->n > 2 || (q->n == 2 && !(cv->global && tn_temp_view_is_global_schema(q->parts[0].name))))
        return tn_bind_error(b, q->parts[0].pos, "%s", cv->global ? "a global temporary view lives in global_temp: name it v or global_temp.v"
                                                                   : "a temporary view's name cannot be qualified");
    tn_plan *p = NULL;
    int rc = tn_bind_query(b, cv->query, NULL, &p);
    if (rc) return rc;
    uint32_t ncols = p->ncols;
    tn_plan_free(p);
    if ((uint32_t)cv->n_columns > ncols)
        return tn_bind_error(b, cv->columns[0].pos, "view has %d column names but its query gives %u columns",
                             cv->n_columns, ncols);
    const char **names = tn_arena_calloc(b->arena, ((size_t)cv->n_columns + 1) * sizeof *names);
    if (!names) return TN_ENOMEM;
    for (int i = 0; i < cv->n_columns; i++) names[i] = cv->columns[i].name;
    rc = tn_temp_view_create(b, q->parts[q->n - 1].name, cv->global, cv->query_text, names, (uint32_t)cv->n_columns,
                             cv->or_replace, cv->if_not_exists, q->parts[q->n - 1].pos);
    if (rc) return rc;
    return status(b, out);
}

static int create_view(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.create_view) *cv = &stmt->u.create_view;
    if (cv->temporary) return create_temp_view(b, stmt, out);
    tn_catalog_name cn;
    int rc = tn_bind_catalog_name(b, &cv->name, "view", &cn);
    if (rc) return rc;
    tn_catalog *cat = NULL;
    rc = tn_stmt_catalog(b, true, &cat);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    /* the query must bind now (DuckDB and Spark check a view's query when it is created) */
    tn_plan *p = NULL;
    rc = tn_bind_query(b, cv->query, NULL, &p);
    if (rc) return rc;
    uint32_t ncols = p->ncols;
    tn_plan_free(p);
    if ((uint32_t)cv->n_columns > ncols)
        return tn_bind_error(b, cv->columns[0].pos, "view has %d column names but its query gives %u columns",
                             cv->n_columns, ncols);
    const char **names = tn_arena_calloc(b->arena, ((size_t)cv->n_columns + 1) * sizeof *names);
    if (!names) return TN_ENOMEM;
    for (int i = 0; i < cv->n_columns; i++) names[i] = cv->columns[i].name;
    rc = tn_catalog_view_create(cat, &cn, cv->query_text, names, (uint32_t)cv->n_columns, cv->or_replace,
                                cv->if_not_exists);
    if (rc) return tn_bind_error_at(b, rc, cv->name.parts[0].pos);
    return status(b, out);
}

/* ---------------------------------------------------------------------------------------------
 * DROP, ALTER.
 */
static int drop(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.drop) *d = &stmt->u.drop;
    if (d->object == TN_SQL_OBJ_VIEW && d->name.n <= 2) {   /* a temporary view first, as Spark */
        bool dropped = false;
        int trc = tn_temp_view_drop(b, d->name.n == 2 ? d->name.parts[0].name : NULL, d->name.parts[d->name.n - 1].name,
                                    &dropped);
        if (trc) return trc;
        if (dropped) return status(b, out);
    }
    tn_catalog *cat = NULL;
    int rc = tn_stmt_catalog(b, !d->if_exists, &cat);
    if (rc == TN_ENOTFOUND && d->if_exists) return status(b, out);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    tn_sql_pos pos = d->name.parts[0].pos;
    if (d->object == TN_SQL_OBJ_SCHEMA) {
        if (d->name.n != 1) return unsupported(b, pos, "catalog-qualified schema names");
        rc = tn_catalog_schema_drop(cat, d->name.parts[0].name, d->if_exists, d->cascade);
        if (rc) return tn_bind_error_at(b, rc, pos);
        return status(b, out);
    }
    tn_catalog_name cn;
    char nb[2 * TN_CATALOG_NAME_MAX + 2];
    rc = tn_bind_catalog_name(b, &d->name, d->object == TN_SQL_OBJ_VIEW ? "view" : "table", &cn);
    if (rc) return rc;
    bool is_table = false, is_view = false;
    rc = tn_catalog_table_exists(cat, &cn, &is_table);
    if (!rc) rc = tn_catalog_view_exists(cat, &cn, &is_view);
    if (rc) return tn_bind_error_at(b, rc, pos);
    if (d->object == TN_SQL_OBJ_VIEW) {
        if (!is_view && is_table)
            return tn_bind_error(b, pos, "%s is a table: use DROP TABLE", fmt_name(&cn, nb, sizeof nb));
        rc = tn_catalog_view_drop(cat, &cn, d->if_exists);
    } else {
        if (!is_table && is_view)
            return tn_bind_error(b, pos, "%s is a view: use DROP VIEW", fmt_name(&cn, nb, sizeof nb));
        char *dir = NULL;
        struct stat sb;
        rc = tn_catalog_table_path(cat, &cn, &dir);
        if (!rc && is_table && lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode)) {
            /* a table created with LOCATION: drop the name, keep the data (external table) */
            if (unlink(dir) != 0) rc = tn_error_set(TN_EIO, "cannot unlink %s: %s", dir, strerror(errno));
        } else if (!rc) {
            rc = tn_catalog_table_drop(cat, &cn, d->if_exists);
        }
        tn_free(dir);
    }
    if (rc) return tn_bind_error_at(b, rc, pos);
    return status(b, out);
}

/* ADD CONSTRAINT name CHECK (expr): binds expr against the table, checks every existing row,
 * then commits (a concurrent write of files makes the commit conflict). */
static int add_constraint(tn_binder *b, tn_table *t, const tn_catalog_name *cn, const char *name, const char *expr,
                          tn_sql_pos pos) {
    if (tn_table_constraint(t, name))   /* Delta's "already exists" text, before binding */
        return tn_bind_error_at(b, tn_table_add_constraint(t, name, expr, NULL), pos);
    tn_stmt_checks *c = NULL;
    int rc = tn_stmt_checks_compile_one(b, t, cn->name, name, expr, &c);
    if (rc) return tn_bind_error_at(b, rc, pos);
    uint64_t bad = 0;
    rc = tn_stmt_checks_count_violations(c, t, &bad);
    tn_stmt_checks_free(c);
    if (rc) return tn_bind_error_at(b, rc, pos);
    char nb[2 * TN_CATALOG_NAME_MAX + 2];
    if (bad)
        return tn_bind_error_code(b, TN_ECONSTRAINT, pos, "%llu rows in %s violate the new CHECK constraint (%s)",
                                  (unsigned long long)bad, fmt_name(cn, nb, sizeof nb), expr);
    int64_t version = -1;
    rc = tn_table_add_constraint(t, name, expr, &version);
    return rc ? tn_bind_error_at(b, rc, pos) : 0;
}

static int alter(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.alter) *a = &stmt->u.alter;
    tn_sql_pos pos = a->table.parts[0].pos;
    switch (a->action) {
    case TN_SQL_ALTER_SET_OPTIONS: {
        int rc = check_table_options(b, &a->options, true, false);
        if (rc) return rc;
        break;
    }
    default: break;
    }
    tn_catalog_name cn;
    tn_table *t = NULL;
    int rc = 0;
    if (a->action == TN_SQL_ALTER_RENAME_TO) {
        tn_catalog_name to;
        tn_catalog *cat = NULL;
        rc = tn_bind_catalog_name(b, &a->table, "table", &cn);
        if (!rc) rc = tn_bind_catalog_name(b, &a->new_name, "table", &to);
        if (rc) return rc;
        /* RENAME TO a bare name keeps the schema (Spark) */
        if (a->new_name.n == 1) memcpy(to.schema, cn.schema, sizeof to.schema);
        rc = tn_stmt_catalog(b, false, &cat);
        if (!rc) rc = tn_catalog_table_rename(cat, &cn, &to);
        if (rc) return tn_bind_error_at(b, rc, pos);
        return status(b, out);
    }
    rc = tn_bind_open_table(b, &a->table, &cn, &t);
    if (rc) return rc;
    int64_t version = -1;
    if (a->action == TN_SQL_ALTER_SET_OPTIONS || a->action == TN_SQL_ALTER_UNSET_OPTIONS) {
        tn_delta_kv *kv = NULL;
        rc = options_kv(b, &a->options, &kv);
        if (rc) goto cleanup;
        uint32_t n = 0;
        for (int i = 0; i < a->options.n; i++) {
            if (a->action == TN_SQL_ALTER_UNSET_OPTIONS) {
                if (a->if_exists && !tn_table_property(t, kv[i].key)) continue;
                if (!tn_table_property(t, kv[i].key) && !tn_str_iequal_n(kv[i].key, 14, "delta.feature.")) {
                    rc = tn_bind_error(b, a->options.items[i].pos, "Attempted to unset non-existent property '%s' in "
                                       "table %s (UNSET TBLPROPERTIES IF EXISTS ignores it)", kv[i].key, cn.name);
                    goto cleanup;
                }
                kv[i].value = NULL;
            } else if (kv[i].value && tn_str_iequal_n(kv[i].key, 18, "delta.constraints.") && kv[i].key[18]) {
                /* SET TBLPROPERTIES ('delta.constraints.c' = 'expr') is ADD CONSTRAINT c CHECK (expr) */
                rc = add_constraint(b, t, &cn, kv[i].key + 18, kv[i].value, a->options.items[i].pos);
                if (rc) goto cleanup;
                tn_table_close(t);
                t = NULL;
                rc = tn_bind_open_table(b, &a->table, &cn, &t);
                if (rc) goto cleanup;
                continue;
            }
            kv[n++] = kv[i];
        }
        bool convert = false;
        for (uint32_t i = 0; i < n && a->action == TN_SQL_ALTER_SET_OPTIONS; i++)
            convert |= tn_str_iequal(kv[i].key, "columnsToIndex") || tn_str_iequal(kv[i].key, "cubeSize");
        if (convert) {
            rc = tn_layout_otree_convert(t, kv, n, &version);
            if (rc) rc = tn_bind_error_at(b, rc, pos);
            goto cleanup;
        }
        if (n) rc = tn_layout_check_alter(t, kv, n);
        if (n && !rc) rc = tn_table_set_properties(t, kv, n, &version);
    } else if (a->action == TN_SQL_ALTER_ADD_CONSTRAINT) {
        rc = add_constraint(b, t, &cn, a->constraint_name.name, a->check_text, a->constraint_name.pos);
        if (rc) goto cleanup;
    } else if (a->action == TN_SQL_ALTER_DROP_CONSTRAINT) {
        rc = tn_table_drop_constraint(t, a->constraint_name.name, a->if_exists, &version);
    } else if (a->action == TN_SQL_ALTER_RENAME_COLUMN) {
        rc = tn_table_rename_column(t, a->column.name.name, a->new_column.name, &version);
    } else if (a->action == TN_SQL_ALTER_DROP_COLUMN) {
        rc = tn_table_drop_column(t, a->column.name.name, a->if_exists, &version);
    } else if (a->action == TN_SQL_ALTER_ADD_COLUMN) {
        tn_table_column_def c;
        memset(&c, 0, sizeof c);
        rc = column_def(b, &a->column, &c);
        if (rc) goto cleanup;
        if (!c.nullable) {
            rc = tn_bind_error(b, a->column.name.pos, "ADD COLUMN %s NOT NULL: existing rows would hold NULL",
                               c.name);
            goto cleanup;
        }
        if (a->if_exists && tn_table_column_index(t, c.name) >= 0) goto cleanup;
        rc = tn_table_add_columns(t, &c, 1, &version);
    }
    if (rc) rc = tn_bind_error_at(b, rc, pos);
cleanup:
    tn_table_close(t);
    return rc ? rc : status(b, out);
}

/* ---------------------------------------------------------------------------------------------
 * DESCRIBE, DESCRIBE HISTORY, SHOW, VACUUM.
 */
/* Whether the comma-separated key list names column (case-insensitive). */
static bool pk_has(const char *list, const char *column) {
    size_t n = strlen(column);
    for (const char *p = list; p && *p;) {
        while (*p == ' ') p++;
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && p[len - 1] == ' ') len--;
        if (len == n && tn_str_iequal_n(p, n, column)) return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* PRAGMA table_info('t'): cid, name, type, notnull, dflt_value, pk (SQLite's and DuckDB's). */
/* The type of column c (NULL: a view's or query's column) as DESCRIBE shows it: DuckDB's
 * spelling, whole however deep a nested type goes, or a Delta type tarn does not know as the
 * log spells it. NULL on out of memory. */
static const char *column_type_name(tn_binder *b, const tn_delta_column *c, tn_type t) {
    if (c && c->nested && !tn_type_is_nested(c->type)) return c->type_text;
    tn_buf buf = TN_BUF_INIT;
    const char *s = tn_type_append_name(&buf, t) || tn_buf_append_byte(&buf, 0) ? NULL
                    : tn_arena_strdup(b->arena, (const char *)buf.data);
    tn_buf_free(&buf);
    return s;
}

static int table_info(tn_binder *b, const tn_plan *p, tn_table *t, tn_stmt_output *out) {
    static const char *names[] = {"cid", "name", "type", "notnull", "dflt_value", "pk"};
    tn_type ty[6] = {tn_type_make(TN_TYPE_INTEGER), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR),
                     tn_type_make(TN_TYPE_BOOLEAN), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_BOOLEAN)};
    int rc = tn_stmt_output_init(b, out, 6, names, ty);
    rows r;
    if (rc) return rc;
    rc = rows_open(&r, out);
    for (uint32_t i = 0; i < p->ncols && !rc; i++) {
        const tn_delta_column *c = t ? tn_table_column(t, i) : NULL;
        const char *type = column_type_name(b, c, p->types[i]);
        if (!type) { rc = TN_ENOMEM; break; }
        ((int32_t *)r.c.cols[0].data)[r.row] = (int32_t)i;
        rc = rows_str(&r, 1, p->names[i]);
        if (!rc) rc = rows_str(&r, 2, type);
        rows_bool(&r, 3, c && !c->nullable);
        if (!rc) rc = rows_str(&r, 4, NULL);
        rows_bool(&r, 5, t && c && pk_has(tn_table_property(t, "primary-key"), c->name));
        if (!rc) rc = rows_next(&r);
    }
    return rows_close(&r, rc);
}

/* An identifier of SHOW CREATE TABLE's text, double-quoted when it must be to read back. */
static int put_ident(tn_buf *buf, const char *name) {
    if (!tn_sql_ident_needs_quotes(name)) return tn_buf_printf(buf, "%s", name);
    int rc = tn_buf_append_byte(buf, '"');
    for (const char *c = name; !rc && *c; c++) rc = *c == '"' ? tn_buf_printf(buf, "\"\"") : tn_buf_append_byte(buf, *c);
    return rc ? rc : tn_buf_append_byte(buf, '"');
}

static int put_literal(tn_buf *buf, const char *v) {
    int rc = tn_buf_append_byte(buf, '\'');
    for (const char *c = v; !rc && *c; c++) rc = *c == '\'' ? tn_buf_printf(buf, "''") : tn_buf_append_byte(buf, *c);
    return rc ? rc : tn_buf_append_byte(buf, '\'');
}

/* SHOW CREATE TABLE t (Spark's and Flink's): one row, createtab_stmt, a CREATE TABLE that makes
 * a table like t: its columns (NOT NULL), PRIMARY KEY (primary-key tables), PARTITIONED BY, and
 * every metaData.configuration entry but primary-key in WITH (bucket, merge settings, delta.*). */
static int show_create(tn_binder *b, tn_sql_stmt *stmt, const tn_plan *p, tn_table *t, tn_stmt_output *out) {
    static const char *name = "createtab_stmt";
    tn_type ty = tn_type_make(TN_TYPE_VARCHAR);
    if (!t) return tn_bind_error_at(b, tn_error_set(TN_EINVAL, "SHOW CREATE TABLE: not a table (a view or a file)"), stmt->pos);
    int rc = tn_stmt_output_init(b, out, 1, &name, &ty);
    if (rc) return rc;
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    tn_buf sql = TN_BUF_INIT;
    rc = tn_buf_printf(&sql, "CREATE TABLE ");
    for (int i = 0; i < stmt->u.describe.table.n && !rc; i++) {
        if (i) rc = tn_buf_append_byte(&sql, '.');
        if (!rc) rc = put_ident(&sql, stmt->u.describe.table.parts[i].name);
    }
    if (!rc) rc = tn_buf_printf(&sql, " (");
    for (uint32_t i = 0; i < p->ncols && !rc; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        const char *type = column_type_name(b, c, p->types[i]);
        rc = type ? tn_buf_printf(&sql, "%s\n  ", i ? "," : "") : TN_ENOMEM;
        if (!rc) rc = put_ident(&sql, c->name);
        if (!rc) rc = tn_buf_printf(&sql, " %s%s", type, c->nullable ? "" : " NOT NULL");
    }
    const char *pk = tn_table_property(t, "primary-key");
    if (!rc && pk) {
        rc = tn_buf_printf(&sql, ",\n  PRIMARY KEY (");
        const char *c = pk;
        for (bool first = true; !rc && *c; first = false) {
            const char *e = strchr(c, ',');
            size_t len = e ? (size_t)(e - c) : strlen(c);
            char col[256];
            snprintf(col, sizeof col, "%.*s", (int)(len < sizeof col ? len : sizeof col - 1), c);
            if (!first) rc = tn_buf_printf(&sql, ", ");
            if (!rc) rc = put_ident(&sql, col);
            c += len + (e != NULL);
        }
        if (!rc) rc = tn_buf_printf(&sql, ") NOT ENFORCED");
    }
    if (!rc) rc = tn_buf_printf(&sql, "\n)");
    for (uint32_t k = 0; k < md->npartition_columns && !rc; k++) {
        int ci = tn_table_column_index(t, md->partition_columns[k]);
        rc = tn_buf_printf(&sql, "%s", k ? ", " : "\nPARTITIONED BY (");
        if (!rc) rc = put_ident(&sql, ci >= 0 ? tn_table_column(t, (uint32_t)ci)->name : md->partition_columns[k]);
        if (!rc && k + 1 == md->npartition_columns) rc = tn_buf_append_byte(&sql, ')');
    }
    uint32_t nwith = 0;
    for (uint32_t i = 0; i < md->nconfiguration && !rc; i++) {
        const tn_delta_kv *kv = &md->configuration[i];
        if (!kv->key || strcmp(kv->key, "primary-key") == 0) continue;
        rc = tn_buf_printf(&sql, "%s", nwith++ ? ",\n  " : "\nWITH (\n  ");
        if (!rc) rc = put_literal(&sql, kv->key);
        if (!rc) rc = tn_buf_printf(&sql, " = ");
        if (!rc) rc = put_literal(&sql, kv->value ? kv->value : "");
    }
    if (!rc && nwith) rc = tn_buf_printf(&sql, "\n)");
    if (!rc) rc = tn_buf_append_byte(&sql, 0);
    rows r;
    if (!rc) rc = rows_open(&r, out);
    if (!rc) {
        rc = rows_str(&r, 0, (const char *)sql.data);
        if (!rc) rc = rows_next(&r);
        rc = rows_close(&r, rc);
    }
    tn_buf_free(&sql);
    return rc;
}

/* SHOW TBLPROPERTIES t [('key')] (Spark's, Delta's): key, value rows of metaData.configuration
 * (a primary-key table's key, bucket count, bucket key and merge settings among them), in the
 * log's order; one key that t lacks gives Spark's text as its value. */
static int show_properties(tn_binder *b, tn_sql_stmt *stmt, tn_table *t, tn_stmt_output *out) {
    static const char *names[] = {"key", "value"};
    tn_type ty[2] = {tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
    if (!t)
        return tn_bind_error_at(b, tn_error_set(TN_EINVAL, "SHOW TBLPROPERTIES: not a table (a view or a file)"),
                                stmt->pos);
    int rc = tn_stmt_output_init(b, out, 2, names, ty);
    rows r;
    if (rc || (rc = rows_open(&r, out))) return rc;
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    const char *want = stmt->u.describe.property;
    bool found = false;
    for (uint32_t i = 0; i < md->nconfiguration && !rc; i++) {
        const tn_delta_kv *kv = &md->configuration[i];
        if (!kv->key || (want && strcmp(kv->key, want) != 0)) continue;
        found = true;
        rc = rows_str(&r, 0, kv->key);
        if (!rc) rc = rows_str(&r, 1, kv->value ? kv->value : "");
        if (!rc) rc = rows_next(&r);
    }
    if (!rc && want && !found) {
        const char *msg = tn_arena_printf(b->arena, "Table %s does not have property: %s",
                                          stmt->u.describe.table.parts[stmt->u.describe.table.n - 1].name, want);
        rc = msg ? rows_str(&r, 0, want) : TN_ENOMEM;
        if (!rc) rc = rows_str(&r, 1, msg);
        if (!rc) rc = rows_next(&r);
    }
    return rows_close(&r, rc);
}

static int describe_table(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    static const char *names[] = {"column_name", "column_type", "null", "key", "default", "extra"};
    tn_type ty[6];
    for (int i = 0; i < 6; i++) ty[i] = tn_type_make(TN_TYPE_VARCHAR);
    tn_sql_tableref tr;
    memset(&tr, 0, sizeof tr);
    tr.kind = TN_SQL_T_TABLE;
    tr.pos = stmt->u.describe.table.parts[0].pos;
    tr.u.table.name = stmt->u.describe.table;
    tn_plan *p = NULL;
    const char *alias = NULL;
    int rc = tn_bind_table_name(b, &tr, &p, &alias);
    if (rc) return rc;
    tn_table *t = p->kind == TN_PLAN_SCAN && p->u.scan.format == TN_SCAN_DELTA ? p->u.scan.source : NULL;
    if (stmt->u.describe.table_info || stmt->u.describe.show_create || stmt->u.describe.show_properties) {
        rc = stmt->u.describe.table_info ? table_info(b, p, t, out)
             : stmt->u.describe.show_create ? show_create(b, stmt, p, t, out)
                                            : show_properties(b, stmt, t, out);
        tn_plan_free(p);
        return rc;
    }
    rc = tn_stmt_output_init(b, out, 6, names, ty);
    rows r;
    if (!rc) rc = rows_open(&r, out);
    else { tn_plan_free(p); return rc; }
    for (uint32_t i = 0; i < p->ncols && !rc; i++) {
        const tn_delta_column *c = t ? tn_table_column(t, i) : NULL;
        const char *type = column_type_name(b, c, p->types[i]);
        if (!type) { rc = TN_ENOMEM; break; }
        rc = rows_str(&r, 0, p->names[i]);
        if (!rc) rc = rows_str(&r, 1, type);
        if (!rc) rc = rows_str(&r, 2, c && !c->nullable ? "NO" : "YES");
        bool pri = t && c && pk_has(tn_table_property(t, "primary-key"), c->name);
        if (!rc) rc = rows_str(&r, 3, pri && c->is_partition ? "PRI PARTITION" : pri ? "PRI"
                                      : c && c->is_partition ? "PARTITION" : NULL);
        if (!rc) rc = rows_str(&r, 4, NULL);
        char note[256] = "";
        if (!rc && t && c) rc = tn_layout_describe_column(t, i, note, sizeof note);
        if (!rc) rc = rows_str(&r, 5, note[0] ? note : NULL);
        if (!rc) rc = rows_next(&r);
    }
    rc = rows_close(&r, rc);
    tn_plan_free(p);
    return rc;
}

static int describe_history(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    static const char *names[] = {"version", "timestamp", "operation", "operationParameters", "isBlindAppend",
                                  "engineInfo"};
    tn_type ty[6] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_TIMESTAMP), tn_type_make(TN_TYPE_VARCHAR),
                     tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_BOOLEAN), tn_type_make(TN_TYPE_VARCHAR)};
    tn_catalog_name cn;
    tn_table *t = NULL;
    int rc = tn_bind_open_table(b, &stmt->u.describe.table, &cn, &t);
    if (rc) return rc;
    tn_table_history h;
    memset(&h, 0, sizeof h);
    rc = tn_table_history_read(&h, tn_table_fs(t), tn_table_path(t), 0);
    if (rc) rc = tn_bind_error_at(b, rc, stmt->pos);
    if (!rc) rc = tn_stmt_output_init(b, out, 6, names, ty);
    rows r;
    memset(&r, 0, sizeof r);
    if (!rc) rc = rows_open(&r, out);
    for (uint32_t i = 0; i < h.count && !rc; i++) {
        const tn_table_history_entry *e = &h.entries[i];
        rows_i64(&r, 0, e->version);
        if (e->timestamp_ms >= 0) rows_i64(&r, 1, e->timestamp_ms * 1000);
        else rc = tn_vector_set_null(&r.c.cols[1], r.row);
        if (!rc) rc = rows_str(&r, 2, e->operation);
        if (!rc) rc = rows_str(&r, 3, e->operation_parameters);
        if (!rc) {
            if (e->has_is_blind_append) rows_bool(&r, 4, e->is_blind_append);
            else rc = tn_vector_set_null(&r.c.cols[4], r.row);
        }
        if (!rc) rc = rows_str(&r, 5, e->engine_info);
        if (!rc) rc = rows_next(&r);
    }
    if (r.c.cols) rc = rows_close(&r, rc);
    tn_table_history_free(&h);
    tn_table_close(t);
    return rc;
}

/* DESCRIBE INDEX t: qbeast's getIndexMetrics of an OTree table, one row per revision with files. */
static int describe_index(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    static const char *names[] = {"revision", "columns", "dimensions", "cube_size", "elements", "cubes", "blocks",
                                  "files", "bytes", "avg_file_bytes", "height", "min_height", "avg_fanout",
                                  "cube_elements_min", "cube_elements_q1", "cube_elements_median", "cube_elements_q3",
                                  "cube_elements_max", "cube_elements_avg"};
    enum { NCOL = 19 };
    tn_type ty[NCOL];
    for (uint32_t i = 0; i < NCOL; i++) ty[i] = tn_type_make(TN_TYPE_BIGINT);
    ty[1] = tn_type_make(TN_TYPE_VARCHAR);
    ty[9] = ty[12] = ty[18] = tn_type_make(TN_TYPE_DOUBLE);
    tn_catalog_name cn;
    tn_table *t = NULL;
    int rc = tn_bind_open_table(b, &stmt->u.describe.table, &cn, &t);
    if (rc) return rc;
    tn_arena *a = tn_arena_create(0);
    tn_layout_otree_metrics *m = NULL;
    uint32_t n = 0;
    rc = a ? tn_layout_otree_metrics_get(t, a, &m, &n) : TN_ENOMEM;
    if (rc) rc = tn_bind_error_at(b, rc, stmt->pos);
    if (!rc) rc = tn_stmt_output_init(b, out, NCOL, names, ty);
    rows r;
    memset(&r, 0, sizeof r);
    if (!rc) rc = rows_open(&r, out);
    for (uint32_t i = 0; i < n && !rc; i++) {
        const tn_layout_otree_metrics *x = &m[i];
        int64_t iv[NCOL] = {x->revision, 0, x->dimensions, x->desired_cube_size, x->elements, x->cubes, x->blocks,
                            x->files, x->bytes, 0, x->height, x->min_height, 0, x->cube_min, x->cube_q1,
                            x->cube_median, x->cube_q3, x->cube_max, 0};
        for (uint32_t c = 0; c < NCOL; c++)
            if (ty[c].id == TN_TYPE_BIGINT) rows_i64(&r, c, iv[c]);
        rows_f64(&r, 9, x->avg_file_bytes);
        rows_f64(&r, 12, x->avg_fanout);
        rows_f64(&r, 18, x->cube_avg);
        rc = rows_str(&r, 1, x->columns);
        if (!rc) rc = rows_next(&r);
    }
    if (r.c.cols) rc = rows_close(&r, rc);
    tn_arena_destroy(a);
    tn_table_close(t);
    return rc;
}

/* SHOW ALL TABLES: (schema, name, kind) of every table and view of every schema, sorted. */
static int show_all_tables(tn_binder *b, tn_sql_stmt *stmt, tn_catalog *cat, bool empty,
                           tn_stmt_output *out) {
    static const char *names[] = {"schema", "name", "kind"};
    tn_type ty[3] = {tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
    int rc = tn_stmt_output_init(b, out, 3, names, ty);
    if (rc || empty) return rc;
    tn_catalog_list schemas = {0};
    rc = tn_catalog_schema_list(cat, &schemas);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    rows r;
    rc = rows_open(&r, out);
    for (uint32_t si = 0; si < schemas.count && !rc; si++) {
        tn_catalog_list tables = {0}, views = {0};
        rc = tn_catalog_table_list(cat, schemas.names[si], &tables);
        if (!rc) rc = tn_catalog_view_list(cat, schemas.names[si], &views);
        uint32_t i = 0, k = 0;
        while (!rc && (i < tables.count || k < views.count)) {
            bool tab = k >= views.count || (i < tables.count && strcmp(tables.names[i], views.names[k]) <= 0);
            rc = rows_str(&r, 0, schemas.names[si]);
            if (!rc) rc = rows_str(&r, 1, tab ? tables.names[i++] : views.names[k++]);
            if (!rc) rc = rows_str(&r, 2, tab ? "table" : "view");
            if (!rc) rc = rows_next(&r);
        }
        tn_catalog_list_free(&tables);
        tn_catalog_list_free(&views);
    }
    rc = rows_close(&r, rc);
    tn_catalog_list_free(&schemas);
    return rc;
}

static int show(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    tn_catalog *cat = NULL;
    tn_catalog_list tables = {0}, views = {0};
    int rc = tn_stmt_catalog(b, false, &cat);
    bool empty = rc == TN_ENOTFOUND;     /* no warehouse directory yet: nothing to show */
    if (rc && !empty) return tn_bind_error_at(b, rc, stmt->pos);
    rc = 0;
    if (stmt->u.show.what == TN_SQL_SHOW_SCHEMAS) {
        const char *name = "schema_name";
        tn_type t = tn_type_make(TN_TYPE_VARCHAR);
        rc = tn_stmt_output_init(b, out, 1, &name, &t);
        if (rc) return rc;
        if (!empty) rc = tn_catalog_schema_list(cat, &tables);
        else {
            static char def[] = "default";
            static char *one[] = {def};
            tables.names = one;
            tables.count = 1;
        }
        rows r;
        if (!rc) rc = rows_open(&r, out);
        else return tn_bind_error_at(b, rc, stmt->pos);
        for (uint32_t i = 0; i < tables.count && !rc; i++) {
            rc = rows_str(&r, 0, tables.names[i]);
            if (!rc) rc = rows_next(&r);
        }
        rc = rows_close(&r, rc);
        if (!empty) tn_catalog_list_free(&tables);
        return rc;
    }
    if (stmt->u.show.all) return show_all_tables(b, stmt, cat, empty, out);
    const char *schema = NULL;
    if (stmt->u.show.in.n > 1) return unsupported(b, stmt->u.show.in.parts[0].pos, "catalog-qualified schema names");
    if (stmt->u.show.in.n == 1) schema = stmt->u.show.in.parts[0].name;
    static const char *names[] = {"name", "kind"};
    tn_type ty[2] = {tn_type_make(TN_TYPE_VARCHAR), tn_type_make(TN_TYPE_VARCHAR)};
    rc = tn_stmt_output_init(b, out, 2, names, ty);
    if (rc || empty) return rc;
    rc = tn_catalog_table_list(cat, schema, &tables);
    if (!rc) rc = tn_catalog_view_list(cat, schema, &views);
    if (rc) {
        tn_catalog_list_free(&tables);
        return tn_bind_error_at(b, rc, stmt->u.show.in.n ? stmt->u.show.in.parts[0].pos : stmt->pos);
    }
    rows r;
    rc = rows_open(&r, out);
    /* merge the two sorted lists */
    uint32_t i = 0, k = 0;
    while (!rc && (i < tables.count || k < views.count)) {
        bool tab = k >= views.count || (i < tables.count && strcmp(tables.names[i], views.names[k]) <= 0);
        rc = rows_str(&r, 0, tab ? tables.names[i++] : views.names[k++]);
        if (!rc) rc = rows_str(&r, 1, tab ? "table" : "view");
        if (!rc) rc = rows_next(&r);
    }
    rc = rows_close(&r, rc);
    tn_catalog_list_free(&tables);
    tn_catalog_list_free(&views);
    return rc;
}

static int vacuum(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    static const char *names[] = {"files_deleted", "bytes_deleted", "dirs_deleted", "files_not_owned", "not_owned"};
    tn_type ty[5] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_BIGINT),
                     tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR)};
    tn_catalog_name cn;
    tn_table *t = NULL;
    int rc = tn_bind_open_table(b, &stmt->u.vacuum.table, &cn, &t);
    if (rc) return rc;
    double hours = -1;
    if (stmt->u.vacuum.retain) {
        char *end = NULL;
        hours = strtod(stmt->u.vacuum.retain, &end);
        if (!end || *end || hours < 0) {
            tn_table_close(t);
            return tn_bind_error(b, stmt->pos, "RETAIN %s HOURS: not a number of hours", stmt->u.vacuum.retain);
        }
    }
    /* Delta's switch for retentions under 7 days */
    const char *check = tn_stmt_get_option(b->session, "spark.databricks.delta.retentionDurationCheck.enabled");
    bool force = check && (tn_str_iequal(check, "false") || strcmp(check, "0") == 0);
    tn_table_vacuum_result res;
    memset(&res, 0, sizeof res);
    rc = tn_table_vacuum(t, hours, force, stmt->u.vacuum.dry_run, &res);
    tn_table_close(t);
    if (rc) {
        tn_table_vacuum_result_free(&res);
        return tn_bind_error_at(b, rc, stmt->pos);
    }
    /* files the table does not own are kept and named: "a/x.txt (why); ..." */
    tn_buf list = TN_BUF_INIT;
    for (uint32_t i = 0; i < res.nnot_owned && !rc; i++) rc = tn_buf_printf(&list, "%s%s", i ? "; " : "", res.not_owned[i]);
    if (!rc && res.files_not_owned > res.nnot_owned)
        rc = tn_buf_printf(&list, "; and %llu more", (unsigned long long)(res.files_not_owned - res.nnot_owned));
    if (!rc) rc = tn_buf_append_byte(&list, 0);
    tn_table_vacuum_result_free(&res);
    if (!rc) rc = tn_stmt_output_init(b, out, 5, names, ty);
    rows r;
    if (!rc) rc = rows_open(&r, out);
    if (rc) {
        tn_buf_free(&list);
        return rc;
    }
    rows_i64(&r, 0, (int64_t)res.files_deleted);
    rows_i64(&r, 1, (int64_t)res.bytes_deleted);
    rows_i64(&r, 2, (int64_t)res.dirs_deleted);
    rows_i64(&r, 3, (int64_t)res.files_not_owned);
    rc = rows_str(&r, 4, (const char *)list.data);
    tn_buf_free(&list);
    if (!rc) rc = rows_next(&r);
    return rows_close(&r, rc);
}

/* ---------------------------------------------------------------------------------------------
 * Dispatch.
 */
bool tn_stmt_is_table(const tn_sql_stmt *stmt) {
    switch (stmt->kind) {
    case TN_SQL_S_CREATE_TABLE:
    case TN_SQL_S_CREATE_VIEW:
    case TN_SQL_S_CREATE_SCHEMA:
    case TN_SQL_S_DROP:
    case TN_SQL_S_INSERT:
    case TN_SQL_S_DELETE:
    case TN_SQL_S_UPDATE:
    case TN_SQL_S_MERGE:
    case TN_SQL_S_ALTER_TABLE:
    case TN_SQL_S_OPTIMIZE:
    case TN_SQL_S_SHOW:
    case TN_SQL_S_COPY:
    case TN_SQL_S_VACUUM: return true;
    case TN_SQL_S_DESCRIBE: return stmt->u.describe.table.n > 0;
    default: return false;
    }
}

int tn_stmt_table_execute(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    memset(out, 0, sizeof *out);
    switch (stmt->kind) {
    case TN_SQL_S_CREATE_SCHEMA: return create_schema(b, stmt, out);
    case TN_SQL_S_CREATE_TABLE: return create_table(b, stmt, out);
    case TN_SQL_S_CREATE_VIEW: return create_view(b, stmt, out);
    case TN_SQL_S_DROP: return drop(b, stmt, out);
    case TN_SQL_S_ALTER_TABLE: return alter(b, stmt, out);
    case TN_SQL_S_DESCRIBE:
        return stmt->u.describe.history ? describe_history(b, stmt, out)
               : stmt->u.describe.index ? describe_index(b, stmt, out) : describe_table(b, stmt, out);
    case TN_SQL_S_SHOW: return show(b, stmt, out);
    case TN_SQL_S_VACUUM: return vacuum(b, stmt, out);
    case TN_SQL_S_INSERT: return tn_stmt_insert(b, stmt, out);
    case TN_SQL_S_DELETE: return tn_stmt_delete(b, stmt, out);
    case TN_SQL_S_COPY: return tn_stmt_copy(b, stmt, out);
    case TN_SQL_S_UPDATE: return tn_stmt_update(b, stmt, out);
    case TN_SQL_S_MERGE: return tn_stmt_merge(b, stmt, out);
    case TN_SQL_S_OPTIMIZE: return tn_stmt_optimize(b, stmt, out);   /* stmt_dml.c: the table's layout compacts */
    default: return unsupported(b, stmt->pos, "this statement");
    }
}
