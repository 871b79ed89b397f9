/*
 * table/table.c: creating a table (version 0: commitInfo, protocol, metaData; or staged, for a
 * writer whose commit makes version 0 with its files: CREATE TABLE AS), opening a
 * snapshot (latest / version / timestamp), schema accessors, metadata changes (ALTER TABLE SET,
 * ADD COLUMN), and the value helpers shared by scans and writes (timestamp/decimal text,
 * cross-type comparison, partition value spelling and Hive escaping, commitInfo JSON).
 * Scans live in scan.c, writes and the commit loop in write.c.
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------------
 * Small helpers.
 */
void tb_uuid(char out[37]) {
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got < sizeof b) { /* fall back to time + address entropy */
        uint64_t x = tn_time_ns() ^ (uint64_t)(uintptr_t)out;
        for (size_t i = 0; i < sizeof b; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (uint8_t)(x >> 56);
        }
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
             b[13], b[14], b[15]);
}

int64_t tb_now_ms(void) { return tn_time_now_us() / 1000; }

int tn_table_parse_timestamp_ms(const char *text, int64_t *out) {
    int64_t us;
    int rc = tb_parse_timestamp_us(text, strlen(text), &us, NULL);
    if (rc) return rc;
    /* floor division */
    *out = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Cross-type comparison for skipping.
 */
typedef enum { FAM_NONE, FAM_INT, FAM_FLOAT, FAM_DEC, FAM_STR, FAM_BOOL, FAM_DATE, FAM_TS } fam;

static fam family(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
        return FAM_INT;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: return FAM_FLOAT;
    case TN_TYPE_DECIMAL: return FAM_DEC;
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY: return FAM_STR;
    case TN_TYPE_BOOLEAN: return FAM_BOOL;
    case TN_TYPE_DATE: return FAM_DATE;
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return FAM_TS;
    default: return FAM_NONE;
    }
}

static tn_int128 dec_unscaled(const tn_value *v) {
    return tn_type_is_decimal128(v->type) ? v->u.i128 : (tn_int128)v->u.i;
}

static double as_double(const tn_value *v) {
    switch (family(v->type)) {
    case FAM_INT: return (double)v->u.i;
    case FAM_FLOAT: return v->u.d;
    case FAM_DEC: {
        double d = (double)dec_unscaled(v);
        for (int k = 0; k < v->type.scale; k++) d /= 10;
        return d;
    }
    default: return 0;
    }
}

#define CMP3(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

bool tb_value_cmp(const tn_value *a, const tn_value *b, int *out) {
    fam fa = family(a->type), fb = family(b->type);
    if (fa == FAM_NONE || fb == FAM_NONE) return false;
    if (fa == fb) {
        switch (fa) {
        case FAM_INT: case FAM_DATE: *out = CMP3(a->u.i, b->u.i); return true;
        case FAM_TS:
            if (a->type.id != b->type.id) return false;   /* ntz vs tz: no fixed relation */
            *out = CMP3(a->u.i, b->u.i);
            return true;
        case FAM_BOOL: *out = CMP3((int)a->u.b, (int)b->u.b); return true;
        case FAM_FLOAT:
            if (a->u.d != a->u.d || b->u.d != b->u.d) return false;
            *out = CMP3(a->u.d, b->u.d);
            return true;
        case FAM_STR: *out = tn_value_compare(a, b); return true;
        case FAM_DEC: {
            tn_int128 x = dec_unscaled(a), y = dec_unscaled(b);
            int sa = a->type.scale, sb = b->type.scale;
            /* scale up the smaller scale, refusing overflow */
            while (sa < sb) { if (x > ((tn_int128)1 << 120) || x < -((tn_int128)1 << 120)) return false; x *= 10; sa++; }
            while (sb < sa) { if (y > ((tn_int128)1 << 120) || y < -((tn_int128)1 << 120)) return false; y *= 10; sb++; }
            *out = CMP3(x, y);
            return true;
        }
        default: return false;
        }
    }
    if (fa == FAM_DATE && fb == FAM_TS && b->type.id == TN_TYPE_TIMESTAMP) {
        int64_t x = a->u.i * 86400000000LL;
        *out = CMP3(x, b->u.i);
        return true;
    }
    if (fa == FAM_TS && fb == FAM_DATE && a->type.id == TN_TYPE_TIMESTAMP) {
        int64_t y = b->u.i * 86400000000LL;
        *out = CMP3(a->u.i, y);
        return true;
    }
    if ((fa == FAM_INT || fa == FAM_FLOAT || fa == FAM_DEC) &&
        (fb == FAM_INT || fb == FAM_FLOAT || fb == FAM_DEC)) {
        if ((fa == FAM_INT && fb == FAM_DEC) || (fa == FAM_DEC && fb == FAM_INT)) {
            tn_value ia = *a, ib = *b;
            if (fa == FAM_INT) { ia.type = tn_type_decimal(38, 0); ia.u.i128 = a->u.i; }
            else { ib.type = tn_type_decimal(38, 0); ib.u.i128 = b->u.i; }
            return tb_value_cmp(&ia, &ib, out);
        }
        double x = as_double(a), y = as_double(b);
        if (x != x || y != y) return false;
        *out = CMP3(x, y);
        return true;
    }
    return false;
}

bool tb_filter_eval(const tn_table_filter *f, const tn_value *v) {
    if (f->op == TN_PQ_IS_NULL) return v->is_null;
    if (f->op == TN_PQ_IS_NOT_NULL) return !v->is_null;
    if (v->is_null || f->constant.is_null) return false;
    int c;
    if (!tb_value_cmp(v, &f->constant, &c)) return true;  /* unknown: keep */
    switch (f->op) {
    case TN_PQ_EQ: return c == 0;
    case TN_PQ_NE: return c != 0;
    case TN_PQ_LT: return c < 0;
    case TN_PQ_LE: return c <= 0;
    case TN_PQ_GT: return c > 0;
    case TN_PQ_GE: return c >= 0;
    default: return true;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Partition value text and Hive escaping.
 */
int tb_partition_text(tn_buf *out, const tn_value *v, bool *is_null) {
    char tmp[TN_FORMAT_BUF_SIZE];
    *is_null = v->is_null;
    if (v->is_null) return 0;
    switch (v->type.id) {
    case TN_TYPE_VARCHAR:
    case TN_TYPE_VARBINARY:
        if (v->u.s.len == 0) { *is_null = true; return 0; }   /* Spark: "" is null */
        return tn_buf_append(out, v->u.s.ptr, v->u.s.len);
    case TN_TYPE_TIMESTAMP_TZ: {
        /* ISO-8601 UTC, as the protocol recommends */
        int64_t us = v->u.i;
        int64_t days = us >= 0 ? us / 86400000000LL : -((-us + 86400000000LL - 1) / 86400000000LL);
        int64_t rem = us - days * 86400000000LL;
        int64_t y;
        unsigned m, d;
        tn_civil_from_days(days, &y, &m, &d);
        return tn_buf_printf(out, "%04lld-%02u-%02uT%02d:%02d:%02d.%06dZ", (long long)y, m, d,
                             (int)(rem / 3600000000LL), (int)(rem / 60000000LL % 60),
                             (int)(rem / 1000000 % 60), (int)(rem % 1000000));
    }
    case TN_TYPE_TIMESTAMP:
        tn_format_timestamp(tmp, sizeof tmp, v->u.i);
        return tn_buf_append(out, tmp, strlen(tmp));
    case TN_TYPE_DATE:
        tn_format_date(tmp, sizeof tmp, (int32_t)v->u.i);
        return tn_buf_append(out, tmp, strlen(tmp));
    case TN_TYPE_DECIMAL:
        tn_format_decimal(tmp, sizeof tmp, dec_unscaled(v), v->type.scale);
        return tn_buf_append(out, tmp, strlen(tmp));
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE:
        /* Spark spells the non-finite values as Java does */
        if (v->u.d != v->u.d) return tn_buf_printf(out, "NaN");
        if (isinf(v->u.d)) return tn_buf_printf(out, v->u.d > 0 ? "Infinity" : "-Infinity");
        __attribute__((fallthrough));
    default: {
        /* integers, booleans, floats: the DuckDB/Java spelling */
        tn_vector vec;
        int rc = tn_vector_init(&vec, v->type, 1);
        if (rc) return rc;
        vec.count = 1;
        switch (v->type.id) {
        case TN_TYPE_BOOLEAN: ((uint8_t *)vec.data)[0] = v->u.b; break;
        case TN_TYPE_TINYINT: ((int8_t *)vec.data)[0] = (int8_t)v->u.i; break;
        case TN_TYPE_SMALLINT: ((int16_t *)vec.data)[0] = (int16_t)v->u.i; break;
        case TN_TYPE_INTEGER: ((int32_t *)vec.data)[0] = (int32_t)v->u.i; break;
        case TN_TYPE_BIGINT: ((int64_t *)vec.data)[0] = v->u.i; break;
        case TN_TYPE_FLOAT: ((float *)vec.data)[0] = (float)v->u.d; break;
        case TN_TYPE_DOUBLE: ((double *)vec.data)[0] = v->u.d; break;
        default: break;
        }
        rc = tn_value_format(out, &vec, 0);
        tn_vector_free(&vec);
        return rc < 0 ? rc : 0;
    }
    }
}

int tn_table_partition_text(tn_buf *out, const tn_value *v, bool *is_null) { return tb_partition_text(out, v, is_null); }

/* Spark's ExternalCatalogUtils.escapePathName set (Unix): control chars, " # % ' * / : = ? \
 * 0x7F { [ ] ^. */
static bool needs_escape(unsigned char c) {
    if (c < 0x20 || c == 0x7f) return true;
    return strchr("\"#%'*/:=?\\{[]^", c) != NULL && c != 0;
}

int tb_hive_escape(tn_buf *out, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int rc = needs_escape(c) ? tn_buf_printf(out, "%%%02X", c) : tn_buf_append_byte(out, c);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * commitInfo.
 */
int tb_commit_info(tn_delta_action *out, tn_arena *arena, const char *operation,
                   const tn_delta_kv *params, uint32_t nparams, const tn_delta_kv *metrics,
                   uint32_t nmetrics, bool is_blind_append, int64_t read_version) {
    int rc = 0;
    json_t *o = json_object(), *p = json_object();
    char *text = NULL;
    char uuid[37];
    if (!o || !p) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    int64_t now = tb_now_ms();
    json_object_set_new(o, "timestamp", json_integer(now));
    json_object_set_new(o, "operation", json_string(operation));
    for (uint32_t i = 0; i < nparams; i++)
        json_object_set_new(p, params[i].key, params[i].value ? json_string(params[i].value) : json_null());
    json_object_set(o, "operationParameters", p);
    if (nmetrics) {
        json_t *m = json_object();
        for (uint32_t i = 0; i < nmetrics && m; i++)
            json_object_set_new(m, metrics[i].key, json_string(metrics[i].value ? metrics[i].value : ""));
        if (m) json_object_set_new(o, "operationMetrics", m);
    }
    if (read_version >= 0) json_object_set_new(o, "readVersion", json_integer(read_version));
    json_object_set_new(o, "isolationLevel", json_string("Serializable"));
    json_object_set_new(o, "isBlindAppend", json_boolean(is_blind_append));
    json_object_set_new(o, "engineInfo", json_string(TN_ENGINE_INFO));
    tb_uuid(uuid);
    json_object_set_new(o, "txnId", json_string(uuid));
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    memset(out, 0, sizeof *out);
    out->kind = TN_DELTA_COMMIT_INFO;
    out->u.commit_info.has_timestamp = true;
    out->u.commit_info.timestamp = now;
    out->u.commit_info.operation = tn_arena_strdup(arena, operation);
    out->u.commit_info.has_is_blind_append = true;
    out->u.commit_info.is_blind_append = is_blind_append;
    out->u.commit_info.json = tn_arena_strdup(arena, text);
    if (!out->u.commit_info.json || !out->u.commit_info.operation) rc = TN_ENOMEM;
cleanup:
    free(text);
    json_decref(o);
    json_decref(p);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Create.
 */
static bool is_valid_column_type(tn_type t) {
    return t.id != TN_TYPE_NULL && t.id < TN_TYPE_COUNT;
}

/* JSON array text of names: ["a","b"]. */
static char *names_json(const char *const *names, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < n && a; i++) json_array_append_new(a, json_string(names[i]));
    char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return s;
}

/* Validates opts and builds the actions of version 0 (commitInfo, protocol, metaData) into
 * arena. *exists: a table is already at path (with if_not_exists: success, nothing built). */
static int create_actions(tn_fs *fs, const char *path, const tn_table_create_options *opts, tn_arena *arena,
                          tn_delta_action actions[3], bool *exists) {
    int rc = 0;
    tn_buf schema = TN_BUF_INIT;
    char *parts = NULL, *props = NULL;
    tn_delta_column *cols = NULL;
    *exists = false;
    if (!opts || opts->ncolumns == 0) {
        rc = tn_error_set(TN_EINVAL, "table '%s': a table needs at least one column", path);
        goto cleanup;
    }
    if (opts->ncolumns > TN_TABLE_MAX_COLUMNS) {
        rc = tn_error_set(TN_ELIMIT, "table '%s': too many columns (%u; the limit is %u)", path, opts->ncolumns,
                          (unsigned)TN_TABLE_MAX_COLUMNS);
        goto cleanup;
    }
    int64_t latest = -1;
    rc = tn_delta_latest_version(fs, path, &latest);
    if (rc) goto cleanup;
    if (latest >= 0) {
        *exists = true;
        if (opts->if_not_exists) goto cleanup;
        rc = tn_error_set(TN_EEXISTS, "table '%s' already exists", path);
        goto cleanup;
    }
    cols = tn_arena_calloc(arena, sizeof *cols * opts->ncolumns);
    if (!cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < opts->ncolumns; i++) {
        const tn_table_column_def *d = &opts->columns[i];
        if (!d->name || !d->name[0]) {
            rc = tn_error_set(TN_EINVAL, "table '%s': column %u has no name", path, i + 1);
            goto cleanup;
        }
        if (!is_valid_column_type(d->type)) {
            rc = tn_error_set(TN_EINVAL, "table '%s': column '%s' has no storable type", path, d->name);
            goto cleanup;
        }
        for (uint32_t j = 0; j < i; j++)
            if (tn_str_iequal(opts->columns[j].name, d->name)) {
                rc = tn_error_set(TN_EINVAL, "table '%s': duplicate column name '%s'", path, d->name);
                goto cleanup;
            }
        cols[i].name = d->name;
        cols[i].physical_name = d->name;
        cols[i].field_id = -1;
        cols[i].type = d->type;
        cols[i].nullable = d->nullable;
        for (uint32_t k = 0; k < opts->npartition_columns; k++)
            if (strcmp(opts->partition_columns[k], d->name) == 0) cols[i].is_partition = true;
        if (tn_type_is_nested(d->type)) {
            char tb[64];
            if (cols[i].is_partition) {
                rc = tn_error_set(TN_EINVAL, "table '%s': partition column '%s' has nested type %s (partition "
                                  "values must be of a primitive type)", path, d->name,
                                  tn_type_format(d->type, tb, sizeof tb));
                goto cleanup;
            }
            cols[i].nested = true;
            rc = tn_delta_type_text(arena, d->type, &cols[i].type_text);
            if (rc) { rc = tn_error_prefix(rc, "table '%s': column '%s'", path, d->name); goto cleanup; }
        }
        if (d->comment) {
            json_t *md = json_pack("{s:s}", "comment", d->comment);
            char *s = md ? json_dumps(md, JSON_COMPACT) : NULL;
            json_decref(md);
            cols[i].metadata_json = s ? tn_arena_strdup(arena, s) : NULL;
            free(s);
        }
    }
    for (uint32_t i = 0; i < opts->npartition_columns; i++) {
        bool found = false;
        for (uint32_t j = 0; j < opts->ncolumns; j++)
            if (strcmp(opts->columns[j].name, opts->partition_columns[i]) == 0) found = true;
        if (!found) {
            rc = tn_error_set(TN_EINVAL, "table '%s': partition column '%s' is not a column of the table",
                              path, opts->partition_columns[i]);
            goto cleanup;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(opts->partition_columns[j], opts->partition_columns[i]) == 0) {
                rc = tn_error_set(TN_EINVAL, "table '%s': partition column '%s' given twice", path,
                                  opts->partition_columns[i]);
                goto cleanup;
            }
    }
    if (opts->npartition_columns == opts->ncolumns) {
        rc = tn_error_set(TN_EINVAL, "table '%s': cannot partition by every column (no data column left)", path);
        goto cleanup;
    }
    tb_props_result pr;
    rc = tb_props_apply(arena, path, NULL, 0, opts->configuration, opts->nconfiguration, true, &pr);
    if (rc) goto cleanup;
    rc = tn_delta_schema_serialize(&schema, cols, opts->ncolumns);
    if (rc) goto cleanup;
    rc = tn_buf_append_byte(&schema, 0);
    if (rc) goto cleanup;

    /* commitInfo */
    parts = names_json(opts->partition_columns, opts->npartition_columns);
    {
        json_t *po = json_object();
        for (uint32_t i = 0; i < opts->nconfiguration && po; i++)
            json_object_set_new(po, opts->configuration[i].key,
                                json_string(opts->configuration[i].value ? opts->configuration[i].value : ""));
        props = po ? json_dumps(po, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        json_decref(po);
    }
    if (!parts || !props) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    tn_delta_kv params[4] = {{"isManaged", "false"}, {"description", opts->description},
                             {"partitionBy", parts}, {"properties", props}};
    rc = tb_commit_info(&actions[0], arena, opts->operation ? opts->operation : "CREATE TABLE",
                        params, 4, NULL, 0, true, -1);
    if (rc) goto cleanup;

    memset(&actions[2], 0, sizeof actions[2]);
    actions[2].kind = TN_DELTA_METADATA;
    tn_delta_metadata *md = &actions[2].u.metadata;
    char id[37];
    tb_uuid(id);
    md->id = tn_arena_strdup(arena, id);
    md->name = opts->name;
    md->description = opts->description;
    md->format_provider = "parquet";
    md->schema_string = tn_arena_strdup(arena, (const char *)schema.data);
    if (!md->schema_string) { rc = TN_ENOMEM; goto cleanup; }
    md->columns = cols;
    md->ncolumns = opts->ncolumns;
    md->partition_columns = (const char **)opts->partition_columns;
    md->npartition_columns = opts->npartition_columns;
    md->configuration = pr.configuration;
    md->nconfiguration = pr.nconfiguration;
    md->has_created_time = true;
    md->created_time = tb_now_ms();
    tb_metadata_refresh(md);
    if (md->column_mapping != TN_DELTA_CM_NONE) {
        rc = tb_column_mapping_assign(md, arena, 0, false);
        if (rc) goto cleanup;
        md->schema_string = NULL;   /* serialized from the columns, with their mapping */
    }
    memset(&actions[1], 0, sizeof actions[1]);
    actions[1].kind = TN_DELTA_PROTOCOL;
    rc = tn_delta_protocol_required(&actions[1].u.protocol, arena, NULL, md, &pr.request);
    if (!rc) rc = tn_delta_protocol_check_write(&actions[1].u.protocol);
    if (rc) tn_error_prefix(rc, "table '%s'", path);
cleanup:
    free(parts);
    free(props);
    tn_buf_free(&schema);
    return rc;
}

int tn_table_create(tn_fs *fs, const char *path, const tn_table_create_options *opts) {
    tn_arena *arena = tn_arena_create(0);
    tn_delta_action actions[3];
    bool exists = false;
    if (!arena) return TN_ENOMEM;
    int rc = create_actions(fs, path, opts, arena, actions, &exists);
    if (rc || exists) goto cleanup;
    rc = fs->mkdir_p(fs, path);
    if (rc) goto cleanup;
    rc = tn_delta_commit(fs, path, 0, actions, 3);
    if (rc == TN_EEXISTS) {
        if (opts->if_not_exists) { rc = 0; tn_error_clear(); goto cleanup; }
        rc = tn_error_set(TN_EEXISTS, "table '%s' already exists", path);
    }
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

static const char *adup(tn_arena *arena, const char *s, bool *oom) {
    if (!s) return NULL;
    const char *d = tn_arena_strdup(arena, s);
    if (!d) *oom = true;
    return d;
}

/* A table whose version 0 is not written yet: its snapshot (version -1, no files) holds the
 * protocol and metaData that the first writer commit writes along with its files. */
int tn_table_create_staged(tn_table **out, tn_fs *fs, const char *path, const tn_table_create_options *opts) {
    *out = NULL;
    tn_arena *arena = tn_arena_create(0);
    tn_table *t = tn_calloc(1, sizeof *t);
    tn_delta_action actions[3];
    bool exists = false;
    int rc = 0;
    if (!arena || !t) { rc = TN_ENOMEM; goto cleanup; }
    if (opts && opts->if_not_exists) {
        rc = tn_error_set(TN_EINVAL, "table '%s': a staged create cannot be IF NOT EXISTS", path);
        goto cleanup;
    }
    rc = create_actions(fs, path, opts, arena, actions, &exists);
    if (rc) goto cleanup;
    tn_delta_snapshot *snap = tn_arena_calloc(arena, sizeof *snap);
    size_t plen = strlen(path);
    char *log = tn_arena_alloc(arena, plen + 16);
    t->path = tn_strdup(path);
    if (!snap || !log || !t->path) { rc = TN_ENOMEM; goto cleanup; }
    for (size_t n = strlen(t->path); n > 1 && t->path[n - 1] == '/'; n--) t->path[n - 1] = 0;
    snprintf(log, plen + 16, "%s/_delta_log", t->path);
    snap->table_path = tn_arena_strdup(arena, t->path);
    snap->log_path = log;
    snap->version = -1;
    snap->timestamp = -1;
    snap->protocol = actions[1].u.protocol;
    snap->metadata = actions[2].u.metadata;
    /* the snapshot outlives opts: copy what the metadata borrows from it */
    tn_delta_metadata *md = &snap->metadata;
    tn_delta_column *mc = tn_arena_calloc(arena, sizeof *mc * (md->ncolumns + 1));
    const char **pc = tn_arena_calloc(arena, sizeof *pc * (md->npartition_columns + 1));
    tn_delta_kv *kv = tn_arena_calloc(arena, sizeof *kv * (md->nconfiguration + 1));
    if (!mc || !pc || !kv) { rc = TN_ENOMEM; goto cleanup; }
    bool oom = false;
#define ADUP(x) adup(arena, (x), &oom)
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        mc[i] = md->columns[i];
        mc[i].name = ADUP(md->columns[i].name);
        mc[i].physical_name = md->columns[i].physical_name != md->columns[i].name
                                  ? ADUP(md->columns[i].physical_name) : mc[i].name;
        mc[i].metadata_json = ADUP(md->columns[i].metadata_json);
    }
    for (uint32_t i = 0; i < md->npartition_columns; i++) pc[i] = ADUP(md->partition_columns[i]);
    for (uint32_t i = 0; i < md->nconfiguration; i++) {
        kv[i].key = ADUP(md->configuration[i].key);
        kv[i].value = ADUP(md->configuration[i].value);
    }
    md->name = ADUP(md->name);
    md->description = ADUP(md->description);
#undef ADUP
    if (oom) { rc = TN_ENOMEM; goto cleanup; }
    md->columns = mc;
    md->partition_columns = pc;
    md->configuration = kv;
    snap->checkpoint_version = -1;
    snap->arena = arena;
    if (!snap->table_path) { rc = TN_ENOMEM; goto cleanup; }
    rc = fs->mkdir_p(fs, path);
    if (rc) goto cleanup;
    t->fs = fs;
    t->snap = snap;
    arena = NULL;
    *out = t;
    t = NULL;
cleanup:
    if (t) tn_free(t->path);
    tn_free(t);
    tn_arena_destroy(arena);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Open and accessors.
 */
int tn_table_open(tn_table **out, tn_fs *fs, const char *path, const tn_table_open_options *opts) {
    int rc = 0;
    tn_table *t = NULL;
    *out = NULL;
    t = tn_calloc(1, sizeof *t);
    if (!t) { rc = TN_ENOMEM; goto cleanup; }
    t->fs = fs;
    t->path = tn_strdup(path);
    if (!t->path) { rc = TN_ENOMEM; goto cleanup; }
    for (size_t n = strlen(t->path); n > 1 && t->path[n - 1] == '/'; n--) t->path[n - 1] = 0;
    path = t->path;
    tn_delta_open_options o = TN_DELTA_OPEN_OPTIONS_INIT;
    if (opts) {
        o.at_version = opts->at_version;
        o.has_at_timestamp = opts->has_at_timestamp;
        o.at_timestamp_ms = opts->at_timestamp_ms;
    }
    rc = tn_delta_snapshot_open(&t->snap, fs, path, &o);
    if (rc == TN_ENOTFOUND) {
        /* the log is listed only now, to tell "no table" from "no such version" */
        tn_error_state saved;
        tn_error_save(&saved);
        int64_t latest = -1;
        if (tn_delta_latest_version(fs, path, &latest) == 0 && latest < 0) {
            rc = tn_error_set(TN_ENOTFOUND, "no Delta table at '%s'", path);
        } else {
            tn_error_restore(&saved);
        }
    }
    if (rc) goto cleanup;
    *out = t;
    t = NULL;
cleanup:
    tn_table_close(t);
    return rc;
}

void tn_table_close(tn_table *t) {
    if (!t) return;
    tn_delta_snapshot_free(t->snap);
    tn_free(t->path);
    tn_free(t);
}

int tn_table_own_snapshot(tn_table *t) {
    tn_delta_snapshot *own;
    int rc = tn_delta_snapshot_fork(&own, t->snap);
    if (rc) return rc;
    tn_delta_snapshot_free(t->snap);
    t->snap = own;
    return 0;
}

const tn_delta_snapshot *tn_table_snapshot(const tn_table *t) { return t->snap; }
const char *tn_table_path(const tn_table *t) { return t->path; }
tn_fs *tn_table_fs(const tn_table *t) { return t->fs; }
int64_t tn_table_version(const tn_table *t) { return t->snap->version; }
uint32_t tn_table_num_columns(const tn_table *t) { return t->snap->metadata.ncolumns; }
const tn_delta_column *tn_table_column(const tn_table *t, uint32_t i) {
    return i < t->snap->metadata.ncolumns ? &t->snap->metadata.columns[i] : NULL;
}
int tn_table_column_index(const tn_table *t, const char *name) {
    for (uint32_t i = 0; i < t->snap->metadata.ncolumns; i++)
        if (tn_str_iequal(t->snap->metadata.columns[i].name, name)) return (int)i;
    return -1;
}
const char *tn_table_property(const tn_table *t, const char *key) {
    return tn_delta_config_get(&t->snap->metadata, key);
}
