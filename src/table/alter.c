/*
 * table/alter.c: metadata changes: ALTER TABLE SET / UNSET TBLPROPERTIES (checked by props.c),
 * ADD COLUMN, RENAME COLUMN and DROP COLUMN (metadata only, which needs column mapping), ADD /
 * DROP CONSTRAINT, and the column-mapping helpers CREATE TABLE shares. Every change commits a
 * metaData action and, when the new metadata uses a feature the protocol lacks, the protocol
 * that supports it (features.c), in the same commit.
 *
 * Column mapping (PROTOCOL.md "Column Mapping"), per column in the schema's field metadata:
 *   delta.columnMapping.id             int    unique, increasing; the Parquet field_id
 *   delta.columnMapping.physicalName   string "col-<uuid>" for new columns; the current name
 *                                             when mapping is enabled on an existing table
 * and in the configuration delta.columnMapping.maxColumnId (the largest id given so far).
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Column mapping.
 */
static int set_mapping_json(tn_delta_column *c, tn_arena *arena, int32_t id, const char *physical) {
    json_t *md = c->metadata_json ? json_loads(c->metadata_json, 0, NULL) : NULL;
    if (!json_is_object(md)) {
        json_decref(md);
        md = json_object();
    }
    if (!md) return tn_error_set(TN_ENOMEM, "out of memory");
    json_object_set_new(md, "delta.columnMapping.id", json_integer(id));
    json_object_set_new(md, "delta.columnMapping.physicalName", json_string(physical));
    char *s = json_dumps(md, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(md);
    if (!s) return tn_error_set(TN_ENOMEM, "out of memory");
    c->metadata_json = tn_arena_strdup(arena, s);
    free(s);
    c->physical_name = tn_arena_strdup(arena, physical);
    c->field_id = id;
    return c->metadata_json && c->physical_name ? 0 : TN_ENOMEM;
}

int64_t tb_max_column_id(const tn_delta_metadata *md) {
    const char *v = tn_delta_config_get(md, "delta.columnMapping.maxColumnId");
    int64_t max = v ? atoll(v) : 0;
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (md->columns[i].field_id > max) max = md->columns[i].field_id;
    return max;
}

int tb_column_mapping_assign(tn_delta_metadata *md, tn_arena *arena, uint32_t from, bool keep_names) {
    int64_t max = tb_max_column_id(md);
    for (uint32_t i = from; i < md->ncolumns; i++) {
        tn_delta_column *c = &md->columns[i];
        char phys[48], u[37];
        tb_uuid(u);
        snprintf(phys, sizeof phys, "col-%s", u);
        if (max >= 2147483647) return tn_error_set(TN_ELIMIT, "column mapping: no column id left");
        int rc = set_mapping_json(c, arena, (int32_t)++max, keep_names ? c->name : phys);
        if (rc) return rc;
    }
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", (long long)max);
    return tb_config_set(md, arena, "delta.columnMapping.maxColumnId", buf);
}

int tb_config_set(tn_delta_metadata *md, tn_arena *arena, const char *key, const char *value) {
    tn_delta_kv *kv = tn_arena_calloc(arena, sizeof *kv * (md->nconfiguration + 1));
    if (!kv) return TN_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < md->nconfiguration; i++)
        if (strcmp(md->configuration[i].key, key) != 0) kv[n++] = md->configuration[i];
    if (value) {
        kv[n].key = tn_arena_strdup(arena, key);
        kv[n].value = tn_arena_strdup(arena, value);
        if (!kv[n].key || !kv[n].value) return TN_ENOMEM;
        n++;
    }
    md->configuration = kv;
    md->nconfiguration = n;
    return 0;
}

void tb_metadata_refresh(tn_delta_metadata *md) {
    const char *mode = tn_delta_config_get(md, "delta.columnMapping.mode");
    md->column_mapping = mode && tn_str_iequal(mode, "name") ? TN_DELTA_CM_NAME
                         : mode && tn_str_iequal(mode, "id") ? TN_DELTA_CM_ID
                                                             : TN_DELTA_CM_NONE;
    if (md->column_mapping == TN_DELTA_CM_NONE)
        for (uint32_t i = 0; i < md->ncolumns; i++) md->columns[i].physical_name = md->columns[i].name;
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        md->columns[i].is_partition = false;
        for (uint32_t p = 0; p < md->npartition_columns; p++)
            if (strcmp(md->columns[i].name, md->partition_columns[p]) == 0) md->columns[i].is_partition = true;
    }
}

/* ---------------------------------------------------------------------------------------------
 * The metadata commit.
 */
int tb_metadata_commit(tn_table *t, tn_arena *arena, tn_delta_metadata *md, const tn_delta_protocol_request *req,
                       const char *operation, const tn_delta_kv *params, uint32_t nparams, int64_t *version) {
    int rc = tn_delta_protocol_check_write(&t->snap->protocol);
    if (rc) return tn_error_prefix(rc, "table '%s'", t->path);
    tb_metadata_refresh(md);
    tn_delta_action actions[3];
    uint32_t n = 0;
    tn_delta_protocol p;
    rc = tn_delta_protocol_required(&p, arena, &t->snap->protocol, md, req);
    if (!rc) rc = tn_delta_protocol_check_write(&p);
    if (rc) return tn_error_prefix(rc, "table '%s'", t->path);
    rc = tb_commit_info(&actions[n++], arena, operation, params, nparams, NULL, 0, false, t->snap->version);
    if (rc) return rc;
    if (!tn_delta_protocol_equal(&p, &t->snap->protocol)) {
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_PROTOCOL;
        actions[n].u.protocol = p;
        n++;
    }
    memset(&actions[n], 0, sizeof actions[n]);
    actions[n].kind = TN_DELTA_METADATA;
    actions[n].u.metadata = *md;
    n++;
    tn_delta_txn_info info;
    memset(&info, 0, sizeof info);
    info.read_version = t->snap->version;
    info.read_whole_table = true;
    bool skipped;
    int attempts;
    return tb_commit(t, &info, actions, n, 0, NULL, -1, version, &skipped, &attempts);
}

/* ---------------------------------------------------------------------------------------------
 * Properties and constraints.
 */
static int set_properties(tn_table *t, const tn_delta_kv *props, uint32_t nprops, bool constraints_checked,
                          const char *operation, const tn_delta_kv *params, uint32_t nparams, int64_t *version) {
    int rc = 0;
    tn_arena *arena = tn_arena_create(0);
    char *ptext = NULL;
    if (!arena) return TN_ENOMEM;
    tn_delta_metadata md = t->snap->metadata;
    tb_props_result pr;
    rc = tb_props_apply(arena, t->path, md.configuration, md.nconfiguration, props, nprops, false, &pr);
    if (rc) goto cleanup;
    if (pr.constraints_changed && !constraints_checked) {
        for (uint32_t i = 0; i < nprops; i++)
            if (tb_prop_is_constraint(props[i].key) && props[i].value) {
                rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': %s: a CHECK constraint is added with ALTER TABLE ... "
                                  "ADD CONSTRAINT, which checks the existing rows", t->path, props[i].key);
                goto cleanup;
            }
    }
    md.configuration = pr.configuration;
    md.nconfiguration = pr.nconfiguration;
    /* a column mapping mode change */
    const tn_delta_metadata *old = &t->snap->metadata;
    const char *was = tn_delta_config_get(old, "delta.columnMapping.mode");
    const char *now = tn_delta_config_get(&md, "delta.columnMapping.mode");
    if (!was) was = "none";
    if (!now) now = "none";
    if (!tn_str_iequal(was, now)) {
        if (tn_str_iequal(was, "none") && tn_str_iequal(now, "name")) {
            /* existing files hold the current names: they become the physical names */
            tn_delta_column *cols = tn_arena_calloc(arena, sizeof *cols * (md.ncolumns + 1));
            if (!cols) { rc = TN_ENOMEM; goto cleanup; }
            memcpy(cols, md.columns, sizeof *cols * md.ncolumns);
            md.columns = cols;
            md.schema_string = NULL;
            rc = tb_column_mapping_assign(&md, arena, 0, true);
            if (rc) goto cleanup;
        } else {
            rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': changing delta.columnMapping.mode from '%s' to '%s' is not "
                              "supported (an existing table can go from 'none' to 'name' only)", t->path, was, now);
            goto cleanup;
        }
    }
    json_t *po = json_object();
    for (uint32_t j = 0; j < nprops && po; j++)
        json_object_set_new(po, props[j].key, props[j].value ? json_string(props[j].value) : json_null());
    ptext = po ? json_dumps(po, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(po);
    if (!ptext) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    bool unset = nprops > 0;
    for (uint32_t j = 0; j < nprops; j++)
        if (props[j].value) unset = false;
    tn_delta_kv dparams[1] = {{"properties", ptext}};
    if (!operation) {
        operation = unset ? "UNSET TBLPROPERTIES" : "SET TBLPROPERTIES";
        params = dparams;
        nparams = 1;
    }
    rc = tb_metadata_commit(t, arena, &md, &pr.request, operation, params, nparams, version);
cleanup:
    free(ptext);
    tn_arena_destroy(arena);
    return rc;
}

int tn_table_set_properties(tn_table *t, const tn_delta_kv *props, uint32_t nprops, int64_t *version) {
    return set_properties(t, props, nprops, false, NULL, NULL, 0, version);
}

static void constraint_key(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "delta.constraints.%s", name);
    for (char *p = buf; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
}

const char *tn_table_constraint(const tn_table *t, const char *name) {
    char key[512];
    constraint_key(key, sizeof key, name);
    return tn_delta_config_get(&t->snap->metadata, key);
}

int tn_table_add_constraint(tn_table *t, const char *name, const char *expr, int64_t *version) {
    char key[512];
    if (!name || !*name || strlen(name) > 400)
        return tn_error_set(TN_EINVAL, "table '%s': invalid constraint name", t->path);
    constraint_key(key, sizeof key, name);
    const char *old = tn_delta_config_get(&t->snap->metadata, key);
    if (old)
        return tn_error_set(TN_EEXISTS, "Constraint '%s' already exists. Please delete the old constraint first.\n"
                            "Old constraint:\n%s", key + 18, old);
    tn_delta_kv kv[1] = {{key, expr}};
    tn_delta_kv params[2] = {{"name", key + 18}, {"expr", expr}};
    return set_properties(t, kv, 1, true, "ADD CONSTRAINT", params, 2, version);
}

int tn_table_drop_constraint(tn_table *t, const char *name, bool if_exists, int64_t *version) {
    char key[512];
    constraint_key(key, sizeof key, name);
    const char *old = tn_delta_config_get(&t->snap->metadata, key);
    if (!old) {
        if (if_exists) {
            *version = -1;
            return 0;
        }
        return tn_error_set(TN_ENOTFOUND, "Cannot drop nonexistent constraint %s from table %s. To avoid throwing an "
                            "error, provide the parameter IF EXISTS", key + 18, t->path);
    }
    tn_delta_kv kv[1] = {{key, NULL}};
    tn_delta_kv params[2] = {{"name", key + 18}, {"expr", old}};
    return set_properties(t, kv, 1, true, "DROP CONSTRAINT", params, 2, version);
}

/* ---------------------------------------------------------------------------------------------
 * Columns.
 */
static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether SQL text mentions the identifier `name` (case-insensitive, as a whole word or
 * back-quoted); conservative: a string literal holding the word counts too. */
static bool mentions(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p++) {
        if (!tn_str_iequal_n(p, n, name)) continue;
        bool before = p == text || !is_ident_char(p[-1]);
        bool after = !is_ident_char(p[n]);
        if (before && after) return true;
    }
    return false;
}

/* Fails when a CHECK constraint or generated column refers to the column (Delta refuses such
 * renames and drops). */
static int check_not_referenced(const tn_table *t, const char *column, const char *what) {
    const tn_delta_metadata *md = &t->snap->metadata;
    for (uint32_t i = 0; i < md->nconfiguration; i++)
        if (tb_prop_is_constraint(md->configuration[i].key) && md->configuration[i].value &&
            mentions(md->configuration[i].value, column))
            return tn_error_set(TN_EINVAL, "table '%s': cannot %s column %s because this column is referenced by "
                                "the CHECK constraint %s (%s)", t->path, what, column, md->configuration[i].key + 18,
                                md->configuration[i].value);
    return 0;
}

static int need_mapping(const tn_table *t, const char *what) {
    if (t->snap->metadata.column_mapping != TN_DELTA_CM_NONE) return 0;
    return tn_error_set(TN_EUNSUPPORTED, "table '%s': %s needs column mapping (it changes metadata only): ALTER TABLE "
                        "... SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name') first", t->path, what);
}

static int copy_columns(tn_delta_metadata *md, tn_arena *arena, uint32_t extra) {
    tn_delta_column *cols = tn_arena_calloc(arena, sizeof *cols * (md->ncolumns + extra + 1));
    if (!cols) return TN_ENOMEM;
    memcpy(cols, md->columns, sizeof *cols * md->ncolumns);
    md->columns = cols;
    md->schema_string = NULL;
    return 0;
}

int tn_table_rename_column(tn_table *t, const char *from, const char *to, int64_t *version) {
    int rc = need_mapping(t, "RENAME COLUMN");
    if (rc) return rc;
    int idx = tn_table_column_index(t, from);
    if (idx < 0) return tn_error_set(TN_ENOTFOUND, "table '%s': column '%s' does not exist", t->path, from);
    if (!to || !*to) return tn_error_set(TN_EINVAL, "table '%s': a column needs a name", t->path);
    int other = tn_table_column_index(t, to);
    if (other >= 0 && other != idx)
        return tn_error_set(TN_EEXISTS, "table '%s': column '%s' already exists", t->path, to);
    rc = check_not_referenced(t, t->snap->metadata.columns[idx].name, "rename");
    if (rc) return rc;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_delta_metadata md = t->snap->metadata;
    const char *old = md.columns[idx].name;
    rc = copy_columns(&md, arena, 0);
    if (rc) goto cleanup;
    md.columns[idx].name = tn_arena_strdup(arena, to);
    const char **pc = tn_arena_calloc(arena, sizeof *pc * (md.npartition_columns + 1));
    if (!md.columns[idx].name || !pc) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < md.npartition_columns; i++)
        pc[i] = strcmp(md.partition_columns[i], old) == 0 ? md.columns[idx].name : md.partition_columns[i];
    md.partition_columns = pc;
    tn_delta_kv params[2] = {{"oldColumnPath", old}, {"newColumnPath", to}};
    rc = tb_metadata_commit(t, arena, &md, NULL, "RENAME COLUMN", params, 2, version);
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

int tn_table_drop_column(tn_table *t, const char *name, bool if_exists, int64_t *version) {
    int idx = tn_table_column_index(t, name);
    if (idx < 0) {
        if (if_exists) {
            *version = -1;
            return 0;
        }
        return tn_error_set(TN_ENOTFOUND, "table '%s': column '%s' does not exist", t->path, name);
    }
    int rc = need_mapping(t, "DROP COLUMN");
    if (rc) return rc;
    const tn_delta_metadata *cur = &t->snap->metadata;
    const tn_delta_column *c = &cur->columns[idx];
    if (c->is_partition)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s': cannot drop partition column '%s'", t->path, c->name);
    uint32_t ndata = 0;
    for (uint32_t i = 0; i < cur->ncolumns; i++)
        if (!cur->columns[i].is_partition) ndata++;
    if (ndata <= 1)
        return tn_error_set(TN_EINVAL, "table '%s': cannot drop column '%s': a table needs a data column", t->path,
                            c->name);
    rc = check_not_referenced(t, c->name, "drop");
    if (rc) return rc;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_delta_metadata md = *cur;
    json_t *names = json_array();
    char *ntext = NULL;
    rc = copy_columns(&md, arena, 0);
    if (rc) goto cleanup;
    memmove(&md.columns[idx], &md.columns[idx + 1], sizeof *md.columns * (md.ncolumns - (uint32_t)idx - 1));
    md.ncolumns--;
    if (names) json_array_append_new(names, json_string(c->name));
    ntext = names ? json_dumps(names, JSON_COMPACT) : NULL;
    if (!ntext) { rc = TN_ENOMEM; goto cleanup; }
    tn_delta_kv params[1] = {{"columns", ntext}};
    rc = tb_metadata_commit(t, arena, &md, NULL, "DROP COLUMNS", params, 1, version);
cleanup:
    free(ntext);
    json_decref(names);
    tn_arena_destroy(arena);
    return rc;
}

int tn_table_add_columns(tn_table *t, const tn_table_column_def *defs, uint32_t ndefs, int64_t *version) {
    int rc = 0;
    tn_arena *arena = tn_arena_create(0);
    json_t *names = json_array();
    char *ntext = NULL;
    if (!arena || !names) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    tn_delta_metadata md = t->snap->metadata;
    uint32_t first = md.ncolumns;
    if ((uint64_t)md.ncolumns + ndefs > TN_TABLE_MAX_COLUMNS) {
        rc = tn_error_set(TN_ELIMIT, "table '%s': too many columns (%llu; the limit is %u)", t->path,
                          (unsigned long long)md.ncolumns + ndefs, (unsigned)TN_TABLE_MAX_COLUMNS);
        goto cleanup;
    }
    rc = copy_columns(&md, arena, ndefs);
    if (rc) goto cleanup;
    for (uint32_t i = 0; i < ndefs; i++) {
        const tn_table_column_def *d = &defs[i];
        for (uint32_t j = 0; j < md.ncolumns; j++)
            if (tn_str_iequal(md.columns[j].name, d->name)) {
                rc = tn_error_set(TN_EINVAL, "table '%s': column '%s' already exists", t->path, d->name);
                goto cleanup;
            }
        if (d->type.id == TN_TYPE_NULL || d->type.id >= TN_TYPE_COUNT) {
            rc = tn_error_set(TN_EINVAL, "table '%s': column '%s' has no storable type", t->path, d->name);
            goto cleanup;
        }
        tn_delta_column *c = &md.columns[md.ncolumns++];
        memset(c, 0, sizeof *c);
        c->name = tn_arena_strdup(arena, d->name);
        c->physical_name = c->name;
        c->field_id = -1;
        c->type = d->type;
        c->nullable = true;
        c->metadata_json = "{}";
        if (d->comment) {
            json_t *cm = json_pack("{s:s}", "comment", d->comment);
            char *s = cm ? json_dumps(cm, JSON_COMPACT) : NULL;
            json_decref(cm);
            c->metadata_json = s ? tn_arena_strdup(arena, s) : NULL;
            free(s);
        }
        if (!c->name || !c->metadata_json) { rc = TN_ENOMEM; goto cleanup; }
        json_array_append_new(names, json_string(d->name));
    }
    if (md.column_mapping != TN_DELTA_CM_NONE) {
        rc = tb_column_mapping_assign(&md, arena, first, false);
        if (rc) goto cleanup;
    }
    ntext = json_dumps(names, JSON_COMPACT);
    if (!ntext) { rc = TN_ENOMEM; goto cleanup; }
    tn_delta_kv params[1] = {{"columns", ntext}};
    rc = tb_metadata_commit(t, arena, &md, NULL, "ADD COLUMNS", params, 1, version);
cleanup:
    free(ntext);
    json_decref(names);
    tn_arena_destroy(arena);
    return rc;
}
