/*
 * catalog/macro.c: macros of the warehouse (CREATE MACRO without TEMP): one file per macro,
 * [<schema>/]_macros/<name>.json = {"name": .., "sql": "CREATE MACRO ..."} holding the statement
 * as written, which the SQL layer parses again when a query calls it (sql/macro.c). Written
 * atomically: a temp file, fsync, then link (put-if-absent) or rename (OR REPLACE). Touches
 * nothing outside _macros/.
 */
#include "catalog/catalog.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int macro_paths(tn_catalog *cat, const tn_catalog_name *name, char **dir, char **file, char **tmp) {
    char *schema = NULL;
    *dir = *file = NULL;
    if (tmp) *tmp = NULL;
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, name->schema, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "Catalog Error: Schema with name %s does not exist!", name->schema);
    if ((rc = tn_catalog_schema_path(cat, name->schema, &schema))) return rc;
    size_t n = strlen(schema) + strlen(name->name) + 64;
    *dir = tn_malloc(n);
    *file = tn_malloc(n);
    if (tmp) *tmp = tn_malloc(n);
    if (!*dir || !*file || (tmp && !*tmp)) {
        tn_free(schema);
        tn_free(*dir);
        tn_free(*file);
        if (tmp) tn_free(*tmp);
        *dir = *file = NULL;
        if (tmp) *tmp = NULL;
        return TN_ENOMEM;
    }
    snprintf(*dir, n, "%s/_macros", schema);
    snprintf(*file, n, "%s/_macros/%s.json", schema, name->name);
    if (tmp) snprintf(*tmp, n, "%s/_macros/.%s.json.tmp-%ld", schema, name->name, (long)getpid());
    tn_free(schema);
    return 0;
}

int tn_catalog_macro_put(tn_catalog *cat, const tn_catalog_name *name, const char *sql, bool or_replace,
                         bool *existed) {
    char *dir, *file, *tmp, *text = NULL;
    tn_fs *fs = tn_catalog_fs(cat);
    *existed = false;
    int rc = macro_paths(cat, name, &dir, &file, &tmp);
    if (rc) return rc;
    json_t *o = json_object();
    if (!o) { rc = TN_ENOMEM; goto cleanup; }
    json_object_set_new(o, "name", json_string(name->name));
    json_object_set_new(o, "sql", json_string(sql));
    text = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text) { rc = TN_ENOMEM; goto cleanup; }
    if ((rc = fs->mkdir_p(fs, dir))) goto cleanup;
    if ((rc = tn_fs_write_all(fs, tmp, text, strlen(text), true))) goto cleanup;
    rc = or_replace ? fs->rename(fs, tmp, file) : fs->link(fs, tmp, file);
    if (rc == TN_EEXISTS) {
        tn_error_clear();
        rc = 0;
        *existed = true;
    }
    {
        tn_error_state saved;
        tn_error_save(&saved);
        if (!or_replace || rc) fs->unlink(fs, tmp);
        tn_error_restore(&saved);
    }
    if (!rc && !*existed) {
        rc = tn_fs_sync_dir(fs, dir);
        if (rc == TN_EUNSUPPORTED) tn_error_clear(), rc = 0;
    }
cleanup:
    free(text);
    tn_free(dir);
    tn_free(file);
    tn_free(tmp);
    return rc;
}

int tn_catalog_macro_get(tn_catalog *cat, const tn_catalog_name *name, char **sql) {
    char *dir, *file;
    *sql = NULL;
    int rc = macro_paths(cat, name, &dir, &file, NULL);
    if (rc == TN_ENOTFOUND) return tn_error_clear(), 0;
    if (rc) return rc;
    tn_buf b = TN_BUF_INIT;
    rc = tn_fs_read_all(tn_catalog_fs(cat), file, &b);
    if (rc == TN_ENOTFOUND) {
        tn_error_clear();
        rc = 0;
    } else if (!rc) {
        json_error_t err;
        json_t *o = json_loadb((const char *)b.data, b.len, 0, &err);
        json_t *s = o ? json_object_get(o, "sql") : NULL;
        if (!json_is_string(s)) rc = tn_error_set(TN_ECORRUPT, "%s: not a macro (no \"sql\")", file);
        else if (!(*sql = tn_strdup(json_string_value(s)))) rc = TN_ENOMEM;
        json_decref(o);
    }
    tn_buf_free(&b);
    tn_free(dir);
    tn_free(file);
    return rc;
}

int tn_catalog_macro_drop(tn_catalog *cat, const tn_catalog_name *name, bool *dropped) {
    char *dir, *file;
    *dropped = false;
    int rc = macro_paths(cat, name, &dir, &file, NULL);
    if (rc == TN_ENOTFOUND) return tn_error_clear(), 0;
    if (rc) return rc;
    tn_fs *fs = tn_catalog_fs(cat);
    rc = fs->unlink(fs, file);
    if (rc == TN_ENOTFOUND) tn_error_clear(), rc = 0;
    else if (!rc) *dropped = true;
    tn_free(dir);
    tn_free(file);
    return rc;
}
