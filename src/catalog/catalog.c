/*
 * catalog/catalog.c: the warehouse directory (layout in catalog.h): name validation and
 * folding, schema directories, tables (create/open/drop/rename/list via table/), and views as
 * JSON files under _views/. A dropped table is first renamed to a hidden name so it disappears
 * atomically, then its tree is removed through the fs.
 */
#include "catalog/catalog.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

struct tn_catalog {
    tn_fs *fs;
    char *path;
};

/* Random hex name part for temp and tombstone names. */
static void random_hex(char out[33]) {
    uint8_t b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        uint64_t x = tn_time_ns() ^ (uint64_t)(uintptr_t)out;
        for (size_t i = 0; i < sizeof b; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (uint8_t)(x >> 56);
        }
    }
    for (size_t i = 0; i < sizeof b; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ---------------------------------------------------------------------------------------------
 * Names.
 */
int tn_catalog_check_name(const char *kind, const char *name) {
    const char *why = NULL;
    if (!name) return tn_error_set(TN_EINVAL, "invalid %s name: missing", kind);
    size_t n = strlen(name);
    if (n == 0) why = "empty name";
    else if (n > TN_CATALOG_NAME_MAX) why = "longer than 128 bytes";
    else if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) why = "'.' and '..' are not names";
    else if (name[0] == '/') why = "absolute paths are not names";
    else if (name[0] == '_' || name[0] == '.') why = "names may not start with '_' or '.' (Delta ignores such directories)";
    else {
        for (size_t i = 0; i < n && !why; i++) {
            unsigned char c = (unsigned char)name[i];
            if (c == '/' || c == '\\') why = "'/' and '\\' are not allowed";
            else if (c < 0x20 || c == 0x7f) why = "control characters are not allowed";
            else if (c == ':') why = "':' is not allowed";
        }
    }
    if (why) return tn_error_set(TN_EINVAL, "invalid %s name '%s': %s", kind, name, why);
    return 0;
}

static int fold(char *dst, const char *kind, const char *src) {
    int rc = tn_catalog_check_name(kind, src);
    if (rc) return rc;
    size_t n = strlen(src);
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        dst[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    dst[n] = 0;
    return 0;
}

static bool is_default_schema(const char *s) {
    return !s || !s[0] || tn_str_iequal(s, "default") || tn_str_iequal(s, "main");
}

int tn_catalog_name_make(tn_catalog_name *out, const char *kind, const char *schema, const char *name) {
    memset(out, 0, sizeof *out);
    if (!is_default_schema(schema)) {
        int rc = fold(out->schema, "schema", schema);
        if (rc) return rc;
    }
    return fold(out->name, kind, name);
}

int tn_catalog_name_parse(tn_catalog_name *out, const char *kind, const char *qualified) {
    if (!qualified) return tn_error_set(TN_EINVAL, "invalid %s name: missing", kind);
    const char *dot = strchr(qualified, '.');
    if (!dot || dot == qualified) return tn_catalog_name_make(out, kind, NULL, qualified);
    if (strchr(dot + 1, '.'))
        return tn_error_set(TN_EINVAL, "invalid %s name '%s': at most schema.name", kind, qualified);
    size_t sl = (size_t)(dot - qualified);
    char schema[TN_CATALOG_NAME_MAX + 2];
    if (sl > TN_CATALOG_NAME_MAX)
        return tn_error_set(TN_EINVAL, "invalid schema name in '%s': longer than 128 bytes", qualified);
    memcpy(schema, qualified, sl);
    schema[sl] = 0;
    int rc = tn_catalog_name_make(out, kind, schema, dot + 1);
    if (rc && strstr(tn_error_message(), "'.' and '..'"))
        return tn_error_set(TN_EINVAL, "invalid %s name '%s': '.' and '..' are not names", kind, qualified);
    return rc;
}

const char *tn_catalog_name_format(const tn_catalog_name *n, char *buf, size_t cap) {
    if (n->schema[0]) snprintf(buf, cap, "%s.%s", n->schema, n->name);
    else snprintf(buf, cap, "%s", n->name);
    return buf;
}

/* ---------------------------------------------------------------------------------------------
 * Paths and helpers.
 */
static char *join3(const char *a, const char *b, const char *c) {
    size_t len = strlen(a) + (b ? strlen(b) + 1 : 0) + (c ? strlen(c) + 1 : 0) + 1;
    char *p = tn_malloc(len);
    if (!p) return NULL;
    snprintf(p, len, "%s%s%s%s%s", a, b ? "/" : "", b ? b : "", c ? "/" : "", c ? c : "");
    return p;
}

int tn_catalog_open(tn_catalog **out, tn_fs *fs, const char *dir) {
    int rc = 0;
    *out = NULL;
    if (!fs) fs = tn_fs_default();
    if (!dir || !dir[0]) return tn_error_set(TN_EINVAL, "warehouse directory not given");
    tn_catalog *c = tn_calloc(1, sizeof *c);
    if (!c) return TN_ENOMEM;
    c->fs = fs;
    c->path = tn_strdup(dir);
    if (!c->path) { rc = TN_ENOMEM; goto cleanup; }
    for (size_t n = strlen(c->path); n > 1 && c->path[n - 1] == '/'; n--) c->path[n - 1] = 0;
    rc = fs->mkdir_p(fs, c->path);
    if (rc) {
        tn_error_prefix(rc, "warehouse '%s'", c->path);
        goto cleanup;
    }
    *out = c;
    c = NULL;
cleanup:
    tn_catalog_close(c);
    return rc;
}

void tn_catalog_close(tn_catalog *cat) {
    if (!cat) return;
    tn_free(cat->path);
    tn_free(cat);
}

const char *tn_catalog_path(const tn_catalog *cat) { return cat->path; }
tn_fs *tn_catalog_fs(const tn_catalog *cat) { return cat->fs; }

int tn_catalog_schema_path(const tn_catalog *cat, const char *schema, char **out) {
    *out = NULL;
    if (is_default_schema(schema)) {
        *out = tn_strdup(cat->path);
        return *out ? 0 : TN_ENOMEM;
    }
    char s[TN_CATALOG_NAME_MAX + 1];
    int rc = fold(s, "schema", schema);
    if (rc) return rc;
    *out = join3(cat->path, s, NULL);
    return *out ? 0 : TN_ENOMEM;
}

int tn_catalog_table_path(const tn_catalog *cat, const tn_catalog_name *name, char **out) {
    *out = join3(cat->path, name->schema[0] ? name->schema : NULL, name->name);
    return *out ? 0 : TN_ENOMEM;
}

static int path_exists(tn_fs *fs, const char *path, bool *out) {
    *out = false;
    return fs->exists(fs, path, out);
}

static int is_table_dir(tn_fs *fs, const char *dir, bool *out) {
    char *log = join3(dir, "_delta_log", NULL);
    if (!log) return TN_ENOMEM;
    int rc = path_exists(fs, log, out);
    tn_free(log);
    return rc;
}

void tn_catalog_list_free(tn_catalog_list *list) {
    if (!list) return;
    for (uint32_t i = 0; i < list->count; i++) tn_free(list->names[i]);
    tn_free(list->names);
    list->names = NULL;
    list->count = 0;
}

typedef struct list_ctx {
    tn_fs *fs;
    const char *dir;
    int want;                        /* 0 schemas, 1 tables, 2 view files */
    tn_catalog_list *out;
    uint32_t cap;
} list_ctx;

static int list_push(list_ctx *l, const char *name, size_t len) {
    if (l->out->count == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 16;
        char **p = tn_realloc(l->out->names, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        l->out->names = p;
        l->cap = cap;
    }
    l->out->names[l->out->count] = tn_strndup(name, len);
    if (!l->out->names[l->out->count]) return TN_ENOMEM;
    l->out->count++;
    return 0;
}

static int list_fn(void *ctx, const char *name, bool is_dir) {
    list_ctx *l = ctx;
    if (l->want == 2) {
        size_t n = strlen(name);
        if (is_dir || name[0] == '.' || n <= 5 || strcmp(name + n - 5, ".json") != 0) return 0;
        return list_push(l, name, n - 5);
    }
    if (!is_dir || name[0] == '_' || name[0] == '.') return 0;
    char *p = join3(l->dir, name, NULL);
    if (!p) return TN_ENOMEM;
    bool table = false;
    int rc = is_table_dir(l->fs, p, &table);
    tn_free(p);
    if (rc) return rc;
    if ((l->want == 1) == table) return list_push(l, name, strlen(name));
    return 0;
}

static int list_dir(tn_catalog *cat, const char *dir, int want, tn_catalog_list *out) {
    memset(out, 0, sizeof *out);
    list_ctx l = {cat->fs, dir, want, out, 0};
    bool ex = false;
    int rc = path_exists(cat->fs, dir, &ex);
    if (rc || !ex) return rc;
    rc = cat->fs->list_dir(cat->fs, dir, list_fn, &l);
    if (rc) tn_catalog_list_free(out);
    return rc;
}

/* Removes a directory tree through the fs: symlinks are unlinked, never followed, and a
 * directory below the top holding its own _delta_log (another table) is refused before anything
 * is deleted (what: "table" or "schema", for the message). */
static int remove_tree(tn_fs *fs, const char *dir, int table_depth, const char *what, const char *name) {
    char *nested = NULL;
    int rc = tn_fs_remove_tree(fs, dir, table_depth, true, &nested);
    if (!rc && nested) {
        rc = tn_error_set(TN_ECONSTRAINT, "cannot drop %s '%s': %s holds another table (its own _delta_log); "
                          "move or drop it first", what, name, nested);
    }
    tn_free(nested);
    if (!rc) rc = tn_fs_remove_tree(fs, dir, table_depth, false, NULL);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Schemas.
 */
int tn_catalog_schema_exists(tn_catalog *cat, const char *schema, bool *out) {
    *out = false;
    if (is_default_schema(schema)) {
        *out = true;
        return 0;
    }
    char *dir = NULL;
    int rc = tn_catalog_schema_path(cat, schema, &dir);
    if (rc) return rc;
    bool ex = false, table = false;
    rc = path_exists(cat->fs, dir, &ex);
    if (!rc && ex) rc = is_table_dir(cat->fs, dir, &table);
    *out = ex && !table;
    tn_free(dir);
    return rc;
}

int tn_catalog_schema_create(tn_catalog *cat, const char *schema, bool if_not_exists) {
    char *dir = NULL;
    int rc = 0;
    if (is_default_schema(schema)) {
        if (if_not_exists) return 0;
        return tn_error_set(TN_EEXISTS, "schema '%s' already exists", schema && schema[0] ? schema : "default");
    }
    rc = tn_catalog_schema_path(cat, schema, &dir);
    if (rc) return rc;
    bool ex = false, table = false;
    rc = path_exists(cat->fs, dir, &ex);
    if (!rc && ex) rc = is_table_dir(cat->fs, dir, &table);
    if (rc) goto cleanup;
    if (ex && table) {
        rc = tn_error_set(TN_EEXISTS, "cannot create schema '%s': a table of that name exists", schema);
    } else if (ex) {
        if (!if_not_exists) rc = tn_error_set(TN_EEXISTS, "schema '%s' already exists", schema);
    } else {
        rc = cat->fs->mkdir_p(cat->fs, dir);
    }
cleanup:
    tn_free(dir);
    return rc;
}

int tn_catalog_schema_drop(tn_catalog *cat, const char *schema, bool if_exists, bool cascade) {
    int rc = 0;
    char *dir = NULL, *views = NULL;
    tn_catalog_list tables = {NULL, 0}, vl = {NULL, 0};
    if (is_default_schema(schema)) return tn_error_set(TN_EINVAL, "cannot drop the default schema");
    bool ex = false;
    rc = tn_catalog_schema_exists(cat, schema, &ex);
    if (rc) return rc;
    if (!ex) {
        if (if_exists) return 0;
        return tn_error_set(TN_ENOTFOUND, "schema '%s' does not exist", schema);
    }
    rc = tn_catalog_schema_path(cat, schema, &dir);
    if (rc) goto cleanup;
    views = join3(dir, "_views", NULL);
    if (!views) { rc = TN_ENOMEM; goto cleanup; }
    rc = list_dir(cat, dir, 1, &tables);
    if (!rc) rc = list_dir(cat, views, 2, &vl);
    if (rc) goto cleanup;
    if (!cascade && (tables.count || vl.count)) {
        rc = tn_error_set(TN_ECONSTRAINT, "schema '%s' is not empty (%u tables, %u views): use DROP SCHEMA ... CASCADE",
                          schema, tables.count, vl.count);
        goto cleanup;
    }
    rc = remove_tree(cat->fs, dir, 1, "schema", schema);
cleanup:
    tn_catalog_list_free(&tables);
    tn_catalog_list_free(&vl);
    tn_free(dir);
    tn_free(views);
    return rc;
}

int tn_catalog_schema_list(tn_catalog *cat, tn_catalog_list *out) {
    int rc = list_dir(cat, cat->path, 0, out);
    if (rc) return rc;
    /* prepend "default" */
    char **p = tn_realloc(out->names, sizeof *p * (out->count + 1));
    if (!p) {
        tn_catalog_list_free(out);
        return TN_ENOMEM;
    }
    memmove(p + 1, p, sizeof *p * out->count);
    p[0] = tn_strdup("default");
    out->names = p;
    out->count++;
    if (!p[0]) {
        tn_catalog_list_free(out);
        return TN_ENOMEM;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Tables.
 */
static int require_schema(tn_catalog *cat, const tn_catalog_name *name) {
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, name->schema, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "schema '%s' does not exist", name->schema);
    return 0;
}

int tn_catalog_table_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out) {
    char *dir = NULL;
    *out = false;
    int rc = tn_catalog_table_path(cat, name, &dir);
    if (rc) return rc;
    rc = is_table_dir(cat->fs, dir, out);
    tn_free(dir);
    return rc;
}

static int view_path(tn_catalog *cat, const tn_catalog_name *name, char **dir_out, char **file_out) {
    char *sdir = NULL;
    int rc = tn_catalog_schema_path(cat, name->schema[0] ? name->schema : NULL, &sdir);
    if (rc) return rc;
    *dir_out = join3(sdir, "_views", NULL);
    size_t len = strlen(sdir) + strlen(name->name) + 16;
    *file_out = tn_malloc(len);
    if (*file_out) snprintf(*file_out, len, "%s/_views/%s.json", sdir, name->name);
    tn_free(sdir);
    if (!*dir_out || !*file_out) {
        tn_free(*dir_out);
        tn_free(*file_out);
        return TN_ENOMEM;
    }
    return 0;
}

int tn_catalog_view_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out) {
    char *dir = NULL, *file = NULL;
    *out = false;
    int rc = view_path(cat, name, &dir, &file);
    if (rc) return rc;
    rc = path_exists(cat->fs, file, out);
    tn_free(dir);
    tn_free(file);
    return rc;
}

int tn_catalog_table_create(tn_catalog *cat, const tn_catalog_name *name, const tn_table_create_options *opts) {
    char *dir = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    int rc = require_schema(cat, name);
    if (rc) return rc;
    bool ex = false;
    rc = tn_catalog_view_exists(cat, name, &ex);
    if (rc) return rc;
    if (ex) return tn_error_set(TN_EEXISTS, "cannot create table '%s': a view of that name exists",
                                tn_catalog_name_format(name, buf, sizeof buf));
    rc = tn_catalog_table_path(cat, name, &dir);
    if (rc) return rc;
    if (!name->schema[0]) {
        /* a schema directory of that name? */
        bool sch = false;
        rc = tn_catalog_schema_exists(cat, name->name, &sch);
        if (!rc && sch) {
            tn_catalog_list l;
            rc = list_dir(cat, dir, 1, &l);
            if (!rc) {
                bool empty_schema = l.count == 0;
                tn_catalog_list_free(&l);
                /* an empty directory that is not a table may be a half-created table: allow */
                if (!empty_schema)
                    rc = tn_error_set(TN_EEXISTS, "cannot create table '%s': a schema of that name exists", name->name);
            }
        }
        if (rc) goto cleanup;
    }
    rc = tn_table_create(cat->fs, dir, opts);
    if (rc == TN_EEXISTS)
        rc = tn_error_set(TN_EEXISTS, "table '%s' already exists", tn_catalog_name_format(name, buf, sizeof buf));
cleanup:
    tn_free(dir);
    return rc;
}

int tn_catalog_table_open(tn_catalog *cat, const tn_catalog_name *name, const tn_table_open_options *opts,
                          tn_table **out) {
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    *out = NULL;
    bool ex = false;
    int rc = tn_catalog_table_exists(cat, name, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "table '%s' does not exist", tn_catalog_name_format(name, buf, sizeof buf));
    return tn_catalog_table_open_found(cat, name, opts, out);
}

int tn_catalog_table_open_found(tn_catalog *cat, const tn_catalog_name *name, const tn_table_open_options *opts,
                                tn_table **out) {
    char *dir = NULL;
    *out = NULL;
    int rc = tn_catalog_table_path(cat, name, &dir);
    if (rc) return rc;
    rc = tn_table_open(out, cat->fs, dir, opts);
    tn_free(dir);
    return rc;
}

int tn_catalog_table_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists) {
    char *dir = NULL, *tomb = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    bool ex = false;
    int rc = tn_catalog_table_exists(cat, name, &ex);
    if (rc) return rc;
    if (!ex) {
        if (if_exists) return 0;
        return tn_error_set(TN_ENOTFOUND, "table '%s' does not exist", tn_catalog_name_format(name, buf, sizeof buf));
    }
    rc = tn_catalog_table_path(cat, name, &dir);
    if (rc) return rc;
    /* a nested table (a directory below holding its own _delta_log) is refused before anything
     * moves */
    char *nested = NULL;
    rc = tn_fs_remove_tree(cat->fs, dir, 0, true, &nested);
    if (!rc && nested)
        rc = tn_error_set(TN_ECONSTRAINT, "cannot drop table '%s': %s holds another table (its own _delta_log); "
                          "move or drop it first", tn_catalog_name_format(name, buf, sizeof buf), nested);
    tn_free(nested);
    if (rc) goto cleanup;
    /* rename to a hidden name first: the table disappears in one step */
    char uuid[33];
    random_hex(uuid);
    size_t len = strlen(dir) + 64;
    tomb = tn_malloc(len);
    if (!tomb) { rc = TN_ENOMEM; goto cleanup; }
    char *slash = strrchr(dir, '/');
    snprintf(tomb, len, "%.*s/.dropped-%s", slash ? (int)(slash - dir) : 0, dir, uuid);
    rc = cat->fs->rename(cat->fs, dir, tomb);
    if (rc) goto cleanup;
    rc = remove_tree(cat->fs, tomb, 0, "table", tn_catalog_name_format(name, buf, sizeof buf));
cleanup:
    tn_free(dir);
    tn_free(tomb);
    return rc;
}

int tn_catalog_table_rename(tn_catalog *cat, const tn_catalog_name *from, const tn_catalog_name *to) {
    char *a = NULL, *b = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    bool ex = false;
    int rc = tn_catalog_table_exists(cat, from, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "table '%s' does not exist", tn_catalog_name_format(from, buf, sizeof buf));
    rc = require_schema(cat, to);
    if (rc) return rc;
    rc = tn_catalog_table_path(cat, from, &a);
    if (!rc) rc = tn_catalog_table_path(cat, to, &b);
    if (rc) goto cleanup;
    bool tex = false, vex = false;
    rc = path_exists(cat->fs, b, &tex);
    if (!rc) rc = tn_catalog_view_exists(cat, to, &vex);
    if (rc) goto cleanup;
    if (tex || vex) {
        rc = tn_error_set(TN_EEXISTS, "cannot rename to '%s': it already exists", tn_catalog_name_format(to, buf, sizeof buf));
        goto cleanup;
    }
    rc = cat->fs->rename(cat->fs, a, b);
cleanup:
    tn_free(a);
    tn_free(b);
    return rc;
}

int tn_catalog_table_list(tn_catalog *cat, const char *schema, tn_catalog_list *out) {
    char *dir = NULL;
    memset(out, 0, sizeof *out);
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, schema, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "schema '%s' does not exist", schema);
    rc = tn_catalog_schema_path(cat, schema, &dir);
    if (rc) return rc;
    rc = list_dir(cat, dir, 1, out);
    tn_free(dir);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Views.
 */
void tn_catalog_view_free(tn_catalog_view *v) {
    if (!v) return;
    tn_free(v->sql);
    for (uint32_t i = 0; i < v->ncolumns; i++) tn_free(v->columns[i]);
    tn_free(v->columns);
    memset(v, 0, sizeof *v);
}

int tn_catalog_view_create(tn_catalog *cat, const tn_catalog_name *name, const char *sql,
                           const char *const *columns, uint32_t ncolumns, bool or_replace, bool if_not_exists) {
    char *dir = NULL, *file = NULL, *tmp = NULL, *text = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    json_t *o = NULL;
    int rc = require_schema(cat, name);
    if (rc) return rc;
    bool tex = false;
    rc = tn_catalog_table_exists(cat, name, &tex);
    if (rc) return rc;
    if (tex) return tn_error_set(TN_EEXISTS, "cannot create view '%s': a table of that name exists",
                                 tn_catalog_name_format(name, buf, sizeof buf));
    if (!sql || !sql[0]) return tn_error_set(TN_EINVAL, "view '%s': empty definition", name->name);
    rc = view_path(cat, name, &dir, &file);
    if (rc) return rc;
    o = json_object();
    json_t *cols = json_array();
    if (!o || !cols) { json_decref(cols); rc = TN_ENOMEM; goto cleanup; }
    json_object_set_new(o, "name", json_string(name->name));
    json_object_set_new(o, "schema", json_string(name->schema[0] ? name->schema : "default"));
    json_object_set_new(o, "sql", json_string(sql));
    for (uint32_t i = 0; i < ncolumns; i++) json_array_append_new(cols, json_string(columns[i]));
    json_object_set_new(o, "columns", cols);
    json_object_set_new(o, "createdTime", json_integer(tn_time_now_us() / 1000));
    text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (!text || !json_object_get(o, "sql") || json_is_null(json_object_get(o, "sql"))) {
        rc = tn_error_set(TN_EINVAL, "view '%s': the definition is not valid UTF-8", name->name);
        goto cleanup;
    }
    rc = cat->fs->mkdir_p(cat->fs, dir);
    if (rc) goto cleanup;
    char uuid[33];
    random_hex(uuid);
    size_t len = strlen(dir) + 64;
    tmp = tn_malloc(len);
    if (!tmp) { rc = TN_ENOMEM; goto cleanup; }
    snprintf(tmp, len, "%s/.tmp-%s", dir, uuid);
    rc = tn_fs_write_all(cat->fs, tmp, text, strlen(text), true);
    if (rc) goto cleanup;
    if (or_replace) {
        rc = cat->fs->rename(cat->fs, tmp, file);
    } else {
        rc = cat->fs->link(cat->fs, tmp, file);
        if (rc == TN_EEXISTS) {
            if (if_not_exists) {
                tn_error_clear();
                rc = 0;
            } else {
                rc = tn_error_set(TN_EEXISTS, "view '%s' already exists", tn_catalog_name_format(name, buf, sizeof buf));
            }
        }
        tn_error_state saved;
        tn_error_save(&saved);
        cat->fs->unlink(cat->fs, tmp);
        tn_error_restore(&saved);
    }
    if (rc && or_replace) {
        tn_error_state saved;
        tn_error_save(&saved);
        cat->fs->unlink(cat->fs, tmp);
        tn_error_restore(&saved);
    }
cleanup:
    free(text);
    json_decref(o);
    tn_free(dir);
    tn_free(file);
    tn_free(tmp);
    return rc;
}

int tn_catalog_view_get(tn_catalog *cat, const tn_catalog_name *name, tn_catalog_view *out) {
    char *dir = NULL, *file = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    tn_buf b = TN_BUF_INIT;
    json_t *o = NULL;
    memset(out, 0, sizeof *out);
    int rc = view_path(cat, name, &dir, &file);
    if (rc) return rc;
    bool ex = false;
    rc = path_exists(cat->fs, file, &ex);
    if (rc) goto cleanup;
    if (!ex) {
        rc = tn_error_set(TN_ENOTFOUND, "view '%s' does not exist", tn_catalog_name_format(name, buf, sizeof buf));
        goto cleanup;
    }
    rc = tn_fs_read_all(cat->fs, file, &b);
    if (rc) goto cleanup;
    json_error_t err;
    o = json_loadb((const char *)b.data, b.len, 0, &err);
    json_t *sql = o ? json_object_get(o, "sql") : NULL;
    if (!json_is_string(sql)) {
        rc = tn_error_set(TN_ECORRUPT, "%s: not a view definition (%s)", file, o ? "missing 'sql'" : err.text);
        goto cleanup;
    }
    out->sql = tn_strdup(json_string_value(sql));
    if (!out->sql) { rc = TN_ENOMEM; goto cleanup; }
    json_t *cols = json_object_get(o, "columns");
    if (json_is_array(cols) && json_array_size(cols)) {
        out->columns = tn_calloc(json_array_size(cols), sizeof(char *));
        if (!out->columns) { rc = TN_ENOMEM; goto cleanup; }
        for (size_t i = 0; i < json_array_size(cols); i++) {
            json_t *c = json_array_get(cols, i);
            if (!json_is_string(c)) continue;
            out->columns[out->ncolumns] = tn_strdup(json_string_value(c));
            if (!out->columns[out->ncolumns]) { rc = TN_ENOMEM; goto cleanup; }
            out->ncolumns++;
        }
    }
    json_t *ct = json_object_get(o, "createdTime");
    out->created_ms = json_is_integer(ct) ? json_integer_value(ct) : 0;
cleanup:
    if (rc) tn_catalog_view_free(out);
    json_decref(o);
    tn_buf_free(&b);
    tn_free(dir);
    tn_free(file);
    return rc;
}

int tn_catalog_view_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists) {
    char *dir = NULL, *file = NULL;
    char buf[2 * TN_CATALOG_NAME_MAX + 2];
    int rc = view_path(cat, name, &dir, &file);
    if (rc) return rc;
    bool ex = false;
    rc = path_exists(cat->fs, file, &ex);
    if (!rc && !ex && !if_exists)
        rc = tn_error_set(TN_ENOTFOUND, "view '%s' does not exist", tn_catalog_name_format(name, buf, sizeof buf));
    if (!rc && ex) rc = cat->fs->unlink(cat->fs, file);
    tn_free(dir);
    tn_free(file);
    return rc;
}

int tn_catalog_view_list(tn_catalog *cat, const char *schema, tn_catalog_list *out) {
    char *sdir = NULL, *dir = NULL;
    memset(out, 0, sizeof *out);
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, schema, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "schema '%s' does not exist", schema);
    rc = tn_catalog_schema_path(cat, schema, &sdir);
    if (rc) return rc;
    dir = join3(sdir, "_views", NULL);
    if (!dir) rc = TN_ENOMEM;
    else rc = list_dir(cat, dir, 2, out);
    tn_free(sdir);
    tn_free(dir);
    return rc;
}
