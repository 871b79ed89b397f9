/*
 * layout/otree/config.c: the table properties of a new OTree table (CREATE TABLE ... USING
 * qbeast OPTIONS ('columnsToIndex' = 'a,b:hashing', 'cubeSize' = 'N')): the spec checked against
 * the columns (transformers linear / hashing / quantiles as qbeast names them), cubeSize a
 * positive integer (default 5,000,000 as qbeast), 'columnStats' (qbeast's JSON: '<col>_min',
 * '<col>_max', '<col>_quantiles') checked against the spec, and the keys qbeast-spark writes: the plain
 * 'columnsToIndex' and 'cubeSize', 'qbeast.lastRevisionID' = 0 and the staging revision 0 JSON
 * (EmptyTransformer per column). The same keys turn a plain Delta table into an OTree table
 * (qbeast's ConvertToQbeastCommand: its files stay, in revision 0, unindexed; OPTIMIZE indexes
 * them). Also the Revision JSON writer used by the OTree writer.
 */
#include "layout/otree/otreeInt.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool linear_type(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL: case TN_TYPE_DATE:
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return true;
    default: return false;
    }
}

const char *ot_qdata_type(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: return "IntegerDataType";
    case TN_TYPE_BIGINT: return "LongDataType";
    case TN_TYPE_FLOAT: return "FloatDataType";
    case TN_TYPE_DOUBLE: return "DoubleDataType";
    case TN_TYPE_DECIMAL: return "DecimalDataType";
    case TN_TYPE_DATE: return "DateDataType";
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return "TimestampDataType";
    case TN_TYPE_VARCHAR: return "StringDataType";
    case TN_TYPE_VARBINARY: return "BinaryDataType";
    case TN_TYPE_BOOLEAN: return "BooleanDataType";
    default: return NULL;
    }
}

int ot_parse_cube_size(const char *text, const char *table, int64_t *out) {
    char *end;
    errno = 0;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || !*text || *end || errno || v <= 0)
        return tn_error_set(TN_EINVAL, "table '%s': option 'cubeSize' = '%s' is not a positive number of rows", table,
                            text ? text : "");
    *out = v;
    return 0;
}

int ot_spec_parse(const char *spec, const tn_table_column_def *cols, uint32_t ncols, const char *table, tn_arena *a,
                  ot_spec **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    if (!spec || !*spec)
        return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex' is required for a qbeast table "
                            "(e.g. 'columnsToIndex' = 'a,b')", table);
    uint32_t cap = 1;
    for (const char *p = spec; *p; p++) cap += *p == ',';
    ot_spec *s = tn_arena_calloc(a, sizeof *s * cap);
    if (!s) return TN_ENOMEM;
    const char *p = spec;
    uint32_t k = 0;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *item = tn_arena_strndup(a, p, len);
        if (!item) return TN_ENOMEM;
        /* trim */
        while (*item && isspace((unsigned char)*item)) item++;
        for (size_t l = strlen(item); l && isspace((unsigned char)item[l - 1]); l--) item[l - 1] = 0;
        char *colon = strchr(item, ':');
        const char *tr = NULL;
        if (colon) {
            *colon = 0;
            tr = colon + 1;
        }
        if (!*item)
            return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex' = '%s' has an empty column name", table, spec);
        int ci = -1;
        for (uint32_t c = 0; c < ncols; c++)
            if (tn_str_iequal(cols[c].name, item)) ci = (int)c;
        if (ci < 0)
            return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': column '%s' does not exist", table, item);
        for (uint32_t j = 0; j < k; j++)
            if (s[j].column == (uint32_t)ci)
                return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': column '%s' is listed twice", table, item);
        tn_type t = cols[ci].type;
        bool str = tn_type_is_string(t);
        if (!tr) tr = str ? "hashing" : "linear";
        if (tn_str_iequal(tr, "linear")) {
            if (!linear_type(t))
                return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': column '%s' cannot be indexed "
                                    "linearly (its type has no numeric order; use '%s:hashing')", table, item, item);
            tr = "linear";
        } else if (tn_str_iequal(tr, "hashing")) {
            if (!ot_qdata_type(t))
                return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': column '%s' cannot be indexed", table, item);
            tr = "hashing";
        } else if (tn_str_iequal(tr, "quantiles")) {
            if (!linear_type(t) && !str)
                return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': column '%s' cannot be indexed by "
                                    "quantiles (qbeast's quantiles need an ordered or a string type)", table, item);
            tr = "quantiles";
        } else if (tn_str_iequal(tr, "histogram")) {
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': option 'columnsToIndex': '%s:histogram' (qbeast's deprecated "
                                "string histogram) is read but not written; use '%s:quantiles'", table, item, item);
        } else {
            return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex': unknown transformer '%s' for column '%s' "
                                "(known: linear, hashing, quantiles)", table, tr, item);
        }
        s[k].column = (uint32_t)ci;
        s[k].name = cols[ci].name;
        s[k].transformer = tr;
        s[k].type = t;
        k++;
        if (!e) break;
        p = e + 1;
        if (!*p) return tn_error_set(TN_EINVAL, "table '%s': option 'columnsToIndex' = '%s' ends with a comma", table, spec);
    }
    *out = s;
    *n = k;
    return 0;
}

static json_t *jnum(double v, tn_type t) {
    switch (t.id) {
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL: return json_real(v);
    default: return json_integer((json_int_t)v);
    }
}

char *ot_revision_json(int64_t id, int64_t timestamp, const char *table_id, int64_t cube_size, const ot_spec *spec,
                       uint32_t n, const ot_transform *tr) {
    json_t *o = json_object(), *ct = json_array(), *tf = json_array();
    json_object_set_new(o, "revisionID", json_integer(id));
    json_object_set_new(o, "timestamp", json_integer(timestamp));
    json_object_set_new(o, "tableID", json_string(table_id));
    json_object_set_new(o, "desiredCubeSize", json_integer(cube_size));
    for (uint32_t i = 0; i < n; i++) {
        json_t *c = json_object(), *x = json_object();
        const char *dt = ot_qdata_type(spec[i].type);
        if (!tr || tr[i].kind == OT_T_EMPTY) {
            json_object_set_new(c, "className", json_string(OT_CLASS_PREFIX "EmptyTransformer"));
            json_object_set_new(c, "columnName", json_string(spec[i].name));
            json_object_set_new(x, "className", json_string(OT_CLASS_PREFIX "EmptyTransformation"));
        } else if (tr[i].kind == OT_T_HASH) {
            json_object_set_new(c, "className", json_string(OT_CLASS_PREFIX "HashTransformer"));
            json_object_set_new(c, "columnName", json_string(spec[i].name));
            json_object_set_new(c, "dataType", json_string(dt));
            json_object_set_new(x, "className", json_string(OT_CLASS_PREFIX "HashTransformation"));
            json_object_set_new(x, "nullValue", json_integer(tr[i].hash_null));
        } else if (tr[i].kind == OT_T_QUANTILES) {
            json_object_set_new(c, "className", json_string(OT_CLASS_PREFIX "CDFNumericQuantilesTransformer"));
            json_object_set_new(c, "columnName", json_string(spec[i].name));
            json_object_set_new(c, "orderedDataType", json_string(dt));
            json_object_set_new(x, "className", json_string(OT_CLASS_PREFIX "CDFNumericQuantilesTransformation"));
            json_t *q = json_array();
            for (uint32_t k = 0; k < tr[i].nquantiles; k++) json_array_append_new(q, json_real(tr[i].quantiles[k]));
            json_object_set_new(x, "quantiles", q);
            json_object_set_new(x, "dataType", json_string(dt));
        } else if (tr[i].kind == OT_T_STRING_QUANTILES) {
            json_object_set_new(c, "className", json_string(OT_CLASS_PREFIX "CDFStringQuantilesTransformer"));
            json_object_set_new(c, "columnName", json_string(spec[i].name));
            json_object_set_new(x, "className", json_string(OT_CLASS_PREFIX "CDFStringQuantilesTransformation"));
            json_t *q = json_array();
            for (uint32_t k = 0; k < tr[i].nquantiles; k++) json_array_append_new(q, json_string(tr[i].squantiles[k]));
            json_object_set_new(x, "quantiles", q);
        } else {
            json_object_set_new(c, "className", json_string(OT_CLASS_PREFIX "LinearTransformer"));
            json_object_set_new(c, "columnName", json_string(spec[i].name));
            json_object_set_new(c, "dataType", json_string(dt));
            json_object_set_new(x, "className", json_string(OT_CLASS_PREFIX "LinearTransformation"));
            json_object_set_new(x, "minNumber", jnum(tr[i].min, spec[i].type));
            json_object_set_new(x, "maxNumber", jnum(tr[i].max, spec[i].type));
            json_object_set_new(x, "nullValue", jnum(tr[i].null_value, spec[i].type));
            json_object_set_new(x, "orderedDataType", json_string(dt));
        }
        json_array_append_new(ct, c);
        json_array_append_new(tf, x);
    }
    json_object_set_new(o, "columnTransformers", ct);
    json_object_set_new(o, "transformations", tf);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    return s;
}

int tn_layout_otree_table_config(const tn_table_column_def *cols, uint32_t ncols, uint32_t npartition_columns,
                                 const tn_delta_kv *conf, uint32_t nconf, const char *table, tn_arena *arena,
                                 tn_delta_kv **out, uint32_t *nout) {
    const char *spec_text = NULL, *cs = NULL, *stats = NULL;
    for (uint32_t i = 0; i < nconf; i++) {
        if (tn_str_iequal(conf[i].key, "columnsToIndex")) spec_text = conf[i].value;
        else if (tn_str_iequal(conf[i].key, "cubeSize")) cs = conf[i].value;
        else if (tn_str_iequal(conf[i].key, "columnStats")) stats = conf[i].value;
        else if (tn_str_iequal(conf[i].key, "rollupSize"))
            return tn_error_set(TN_EINVAL, "table '%s': 'rollupSize' is a write option (INSERT ... /*+ OPTIONS('rollupSize' "
                                "= 'N') */ or OPTIMIZE ... WITH), never stored in the table", table);
        else if (strncmp(conf[i].key, "qbeast.", 7) == 0)
            return tn_error_set(TN_EINVAL, "table '%s': table property '%s' is written by the OTree layout itself", table,
                                conf[i].key);
    }
    if (npartition_columns)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s': qbeast tables cannot be partitioned (PARTITIONED BY refused, "
                            "as qbeast-spark does)", table);
    ot_spec *spec;
    uint32_t n;
    int rc = ot_spec_parse(spec_text, cols, ncols, table, arena, &spec, &n);
    if (rc) return rc;
    int64_t cube_size = OT_DEFAULT_CUBE_SIZE;
    if (cs && (rc = ot_parse_cube_size(cs, table, &cube_size))) return rc;
    if (stats) {
        ot_column_stats st;
        for (uint32_t i = 0; i < n && !rc; i++) rc = ot_column_stats_get(&st, stats, &spec[i], table, arena);
        if (rc) return rc;
    }
    char *rev0 = ot_revision_json(0, tn_time_now_us() / 1000, table, cube_size, spec, n, NULL);
    if (!rev0) return TN_ENOMEM;
    char *rev0a = tn_arena_strdup(arena, rev0);
    free(rev0);
    tn_delta_kv *o = tn_arena_calloc(arena, sizeof *o * (nconf + 4));
    if (!o || !rev0a) return TN_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nconf; i++) o[k++] = conf[i];
    if (!cs) o[k++] = (tn_delta_kv){"cubeSize", tn_arena_printf(arena, "%lld", (long long)cube_size)};
    o[k++] = (tn_delta_kv){"qbeast.lastRevisionID", "0"};
    o[k++] = (tn_delta_kv){"qbeast.revision.0", rev0a};
    *out = o;
    *nout = k;
    return 0;
}

int tn_layout_otree_convert(tn_table *t, const tn_delta_kv *props, uint32_t nprops, int64_t *version) {
    const char *path = tn_table_path(t);
    *version = -1;
    bool impl = false;
    const char *layout = tn_layout_name(t, &impl);
    if (layout && strcmp(layout, "otree") == 0)
        return tn_error_set(TN_EUNSUPPORTED, "not supported yet: changing the OTree index of table '%s' ('columnsToIndex', "
                            "'cubeSize'; qbeast-spark refuses other columns, and a new cubeSize is a new revision)", path);
    if (!layout || strcmp(layout, "plain") != 0)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' has the %s layout: only a plain Delta table converts to a qbeast "
                            "OTree table", path, layout ? layout : "unknown");
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    uint32_t nc = tn_table_num_columns(t);
    tn_arena *a = tn_arena_create(0);
    if (!a) return TN_ENOMEM;
    int rc = 0;
    tn_table_column_def *defs = tn_arena_calloc(a, sizeof *defs * (nc ? nc : 1));
    tn_delta_kv *conf = tn_arena_calloc(a, sizeof *conf * (nprops + 1));
    if (!defs || !conf) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < nc; i++) {
        defs[i].name = tn_table_column(t, i)->name;
        defs[i].type = tn_table_column(t, i)->type;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < nprops; i++)
        if (props[i].value) conf[n++] = props[i];
    tn_delta_kv *out = NULL;
    uint32_t nout = 0;
    rc = tn_layout_otree_table_config(defs, nc, md->npartition_columns, conf, n, path, a, &out, &nout);
    if (rc) goto cleanup;
    /* an explicit 'tarn.layout' = 'plain' would keep the table plain */
    tn_delta_kv *all = tn_arena_calloc(a, sizeof *all * (nout + 1));
    if (!all) { rc = TN_ENOMEM; goto cleanup; }
    memcpy(all, out, sizeof *all * nout);
    if (tn_delta_config_get(md, "tarn.layout")) all[nout++] = (tn_delta_kv){"tarn.layout", NULL};
    rc = tn_table_set_properties(t, all, nout, version);
cleanup:
    tn_arena_destroy(a);
    return rc;
}

/* 'columnStats' = {"a_min": 0, "a_max": 10, "s_quantiles": ["b", "m", "t"], ...} (qbeast's option):
 * what it says of one indexed column. Errors name the table, the option and the key. */
int ot_column_stats_get(ot_column_stats *out, const char *text, const ot_spec *col, const char *table, tn_arena *a) {
    memset(out, 0, sizeof *out);
    json_error_t jerr;
    json_t *root = json_loads(text ? text : "", 0, &jerr);
    int rc = 0;
    if (!root || !json_is_object(root)) {
        rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats' is not a JSON object%s%s", table, root ? "" : ": ",
                          root ? "" : jerr.text);
        goto cleanup;
    }
    bool str = tn_type_is_string(col->type);
    const char *key;
    json_t *v;
    size_t nl = strlen(col->name);
    json_object_foreach(root, key, v) {
        if (strncmp(key, col->name, nl) != 0 || key[nl] != '_') continue;
        const char *what = key + nl + 1;
        if (strcmp(what, "min") == 0 || strcmp(what, "max") == 0) {
            if (col->type.id == TN_TYPE_DATE || col->type.id == TN_TYPE_TIMESTAMP || col->type.id == TN_TYPE_TIMESTAMP_TZ) {
                rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': option 'columnStats': '%s' on a date or timestamp column "
                                  "is not supported yet", table, key);
                goto cleanup;
            }
            if (!json_is_number(v) || str) {
                rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s' must be a number (for a numeric "
                                  "indexed column)", table, key);
                goto cleanup;
            }
            if (what[1] == 'i') { out->has_min = true; out->min = json_number_value(v); }
            else { out->has_max = true; out->max = json_number_value(v); }
        } else if (strcmp(what, "quantiles") == 0) {
            size_t k = json_array_size(v);
            if (!json_is_array(v) || k < 2) {
                rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s' must be an array of at least 2 "
                                  "values", table, key);
                goto cleanup;
            }
            if (str) out->squantiles = tn_arena_calloc(a, sizeof *out->squantiles * k);
            else out->quantiles = tn_arena_alloc(a, sizeof *out->quantiles * k);
            if (str ? !out->squantiles : !out->quantiles) { rc = TN_ENOMEM; goto cleanup; }
            for (size_t i = 0; i < k; i++) {
                json_t *q = json_array_get(v, i);
                if (str ? !json_is_string(q) : !json_is_number(q)) {
                    rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s' entry %zu is not a %s", table, key,
                                      i, str ? "string" : "number");
                    goto cleanup;
                }
                if (str && !(out->squantiles[i] = tn_arena_strdup(a, json_string_value(q)))) { rc = TN_ENOMEM; goto cleanup; }
                if (!str) out->quantiles[i] = json_number_value(q);
                bool up = i == 0 || (str ? strcmp(out->squantiles[i - 1], out->squantiles[i]) < 0
                                         : out->quantiles[i - 1] < out->quantiles[i]);
                if (!up) {
                    rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s' is not strictly increasing "
                                      "(entry %zu)", table, key, i);
                    goto cleanup;
                }
            }
            out->nquantiles = (uint32_t)k;
        }
    }
    if (out->has_min && out->has_max && !(out->min <= out->max))
        rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s_min' is above '%s_max'", table, col->name,
                          col->name);
    if (!rc && out->nquantiles && strcmp(col->transformer, "quantiles") != 0)
        rc = tn_error_set(TN_EINVAL, "table '%s': option 'columnStats': '%s_quantiles' given but column '%s' is indexed "
                          "'%s', not 'quantiles'", table, col->name, col->name, col->transformer);
cleanup:
    json_decref(root);
    return rc;
}
