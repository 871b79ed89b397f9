/*
 * table/props.c: Delta table properties, honoured or refused (never silently ignored). Every
 * `delta.*` key given to CREATE or ALTER TABLE is looked up here: a property tarn honours is
 * validated and stored under its canonical spelling; one it does not honour is refused with a
 * message naming it; an unknown `delta.*` key is refused as Delta refuses it. Keys without the
 * `delta.` prefix are user properties, stored as given. The protocol-changing requests
 * (`delta.feature.<name> = supported`, `delta.minReaderVersion`, `delta.minWriterVersion`) are
 * consumed: they change the protocol and are not stored, as in Delta.
 *
 * The table below is the user documentation's source (README "Table properties").
 */
#include "table/tableInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum prop_kind { P_BOOL, P_POS_INT, P_NUM_COLS, P_INTERVAL, P_ENUM, P_SIZE, P_CODEC, P_ANY } prop_kind;
typedef enum prop_status { P_HONOURED, P_REFUSED, P_INTERNAL, P_PROTOCOL } prop_status;

typedef struct prop_info {
    const char *key;
    prop_kind kind;
    prop_status status;
    const char *values;              /* P_ENUM: '|'-separated; P_HONOURED with a fixed value: it */
    const char *why;                 /* P_REFUSED: what tarn lacks; P_HONOURED: how */
} prop_info;

static const prop_info props[] = {
    {"delta.appendOnly", P_BOOL, P_HONOURED, NULL, "DELETE and overwrites refused"},
    {"delta.checkpointInterval", P_POS_INT, P_HONOURED, NULL, "a checkpoint every N commits"},
    {"delta.checkpoint.writeStatsAsJson", P_BOOL, P_HONOURED, NULL, "add.stats in checkpoints"},
    {"delta.checkpoint.writeStatsAsStruct", P_BOOL, P_HONOURED, NULL,
     "add.stats_parsed and add.partitionValues_parsed in checkpoints"},
    {"delta.checkpointPolicy", P_ENUM, P_HONOURED, "classic", "classic checkpoints (v2 is refused)"},
    {"delta.columnMapping.mode", P_ENUM, P_HONOURED, "none|name|id", "physical names and field ids"},
    {"delta.columnMapping.maxColumnId", P_POS_INT, P_INTERNAL, NULL, NULL},
    {"delta.enableChangeDataFeed", P_BOOL, P_HONOURED, NULL, "_change_data files and table_changes()"},
    {"delta.enableDeletionVectors", P_BOOL, P_HONOURED, NULL, "DELETE writes deletion vectors"},
    {"delta.deletedFileRetentionDuration", P_INTERVAL, P_HONOURED, NULL, "VACUUM retention"},
    {"delta.logRetentionDuration", P_INTERVAL, P_HONOURED, NULL,
     "tarn never deletes log files, so history is kept at least this long"},
    {"delta.checkpointRetentionDuration", P_INTERVAL, P_HONOURED, NULL,
     "tarn never deletes checkpoints, so they are kept at least this long"},
    {"delta.enableExpiredLogCleanup", P_BOOL, P_HONOURED, NULL, "tarn never cleans up the log"},
    {"delta.setTransactionRetentionDuration", P_INTERVAL, P_HONOURED, NULL,
     "tarn keeps txn identifiers forever (idempotent writes stay idempotent)"},
    {"delta.targetFileSize", P_SIZE, P_HONOURED, NULL, "data files roll at this size"},
    {"delta.parquet.compression.codec", P_CODEC, P_HONOURED, NULL, "codec of new data files"},
    {"delta.parquet.format.version", P_ENUM, P_HONOURED, "1.0.0", "v1 data pages"},
    {"delta.isolationLevel", P_ENUM, P_HONOURED, "WriteSerializable",
     "tarn's conflict checks are WriteSerializable (Serializable is refused)"},
    {"delta.dataSkippingNumIndexedCols", P_NUM_COLS, P_HONOURED, NULL, "stats for the first N data columns"},
    {"delta.dataSkippingStringPrefixLength", P_ENUM, P_HONOURED, "32", "32-character string stats"},
    {"delta.minReaderVersion", P_POS_INT, P_PROTOCOL, NULL, NULL},
    {"delta.minWriterVersion", P_POS_INT, P_PROTOCOL, NULL, NULL},
    {"delta.dataSkippingStatsColumns", P_ANY, P_REFUSED, NULL, "choosing the stats columns by name"},
    {"delta.enableRowTracking", P_ANY, P_REFUSED, NULL, "row tracking"},
    {"delta.rowTracking.materializedRowIdColumnName", P_ANY, P_REFUSED, NULL, "row tracking"},
    {"delta.rowTracking.materializedRowCommitVersionColumnName", P_ANY, P_REFUSED, NULL, "row tracking"},
    {"delta.enableInCommitTimestamps", P_ANY, P_REFUSED, NULL, "in-commit timestamps"},
    {"delta.enableTypeWidening", P_ANY, P_REFUSED, NULL, "writing type changes (type widening)"},
    {"delta.enableIcebergCompatV1", P_ANY, P_REFUSED, NULL, "Iceberg compatibility"},
    {"delta.enableIcebergCompatV2", P_ANY, P_REFUSED, NULL, "Iceberg compatibility"},
    {"delta.universalFormat.enabledFormats", P_ANY, P_REFUSED, NULL, "UniForm (Iceberg/Hudi metadata)"},
    {"delta.enableVariantShredding", P_ANY, P_REFUSED, NULL, "variant shredding"},
    {"delta.randomizeFilePrefixes", P_ANY, P_REFUSED, NULL, "random file prefixes"},
    {"delta.randomPrefixLength", P_ANY, P_REFUSED, NULL, "random file prefixes"},
    {"delta.autoOptimize.optimizeWrite", P_ANY, P_REFUSED, NULL, "optimized writes"},
    {"delta.autoOptimize.autoCompact", P_ANY, P_REFUSED, NULL, "auto compaction"},
    {"delta.tuneFileSizesForRewrites", P_ANY, P_REFUSED, NULL, "file size tuning"},
    {"delta.compatibility.symlinkFormatManifest.enabled", P_ANY, P_REFUSED, NULL, "symlink manifests"},
    {"delta.timeUntilArchived", P_ANY, P_REFUSED, NULL, "archival"},
    {"delta.enableFullRetentionRollback", P_ANY, P_REFUSED, NULL, "retention rollback"},
    {"delta.coordinatedCommits.commitCoordinator-preview", P_ANY, P_REFUSED, NULL, "coordinated commits"},
    {"delta.coordinatedCommits.commitCoordinatorConf-preview", P_ANY, P_REFUSED, NULL, "coordinated commits"},
    {"delta.coordinatedCommits.tableConf-preview", P_ANY, P_REFUSED, NULL, "coordinated commits"},
};
#define NPROPS (sizeof props / sizeof props[0])

static const prop_info *find_prop(const char *key) {
    for (size_t i = 0; i < NPROPS; i++)
        if (tn_str_iequal(props[i].key, key)) return &props[i];
    return NULL;
}

static bool is_constraint_key(const char *key) { return tn_str_iequal_n(key, 18, "delta.constraints."); }
static bool is_feature_key(const char *key) { return tn_str_iequal_n(key, 14, "delta.feature."); }

bool tb_prop_is_constraint(const char *key) { return strlen(key) > 18 && is_constraint_key(key); }

static bool parse_bool(const char *v) { return tn_str_iequal(v, "true") || tn_str_iequal(v, "false"); }

static bool parse_long(const char *v, long long *out) {
    char *end;
    if (!v || !*v) return false;
    long long x = strtoll(v, &end, 10);
    if (*end) return false;
    *out = x;
    return true;
}

/* "interval 7 days", "7 days", "interval 1 week", "30 minutes", ... */
static bool valid_interval(const char *v) {
    return tb_interval_hours(v) >= 0;
}

double tb_interval_hours(const char *s) {
    if (!s) return -1;
    while (*s == ' ') s++;
    if (tn_str_iequal_n(s, 8, "interval")) s += 8;
    while (*s == ' ') s++;
    char *end;
    double n = strtod(s, &end);
    if (end == s || !(n >= 0) || n > 1e15) return -1;   /* NaN, inf and 10^15 units refused */
    while (*end == ' ') end++;
    static const struct { const char *unit; double hours; } units[] = {
        {"weeks", 168}, {"week", 168}, {"days", 24}, {"day", 24}, {"hours", 1}, {"hour", 1},
        {"minutes", 1.0 / 60}, {"minute", 1.0 / 60}, {"seconds", 1.0 / 3600}, {"second", 1.0 / 3600},
        {"milliseconds", 1.0 / 3600000}, {"millisecond", 1.0 / 3600000},
        {"microseconds", 1.0 / 3600000000.0}, {"microsecond", 1.0 / 3600000000.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t len = strlen(units[i].unit);
        if (tn_str_iequal_n(end, len, units[i].unit)) {
            const char *rest = end + len;
            while (*rest == ' ') rest++;
            if (*rest) return -1;
            return n * units[i].hours;
        }
    }
    return -1;
}

static bool in_enum(const char *list, const char *v) {
    size_t n = strlen(v);
    for (const char *p = list; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && tn_str_iequal_n(p, len, v)) return true;
        if (!bar) break;
        p = bar + 1;
    }
    return false;
}

static int bad_value(const char *path, const prop_info *pi, const char *value, const char *expected) {
    return tn_error_set(TN_EINVAL, "table '%s': %s = '%s' is not a valid value (%s)", path, pi->key,
                        value ? value : "NULL", expected);
}

static int validate(const char *path, const prop_info *pi, const char *v) {
    long long x;
    switch (pi->kind) {
    case P_BOOL:
        if (!parse_bool(v)) return bad_value(path, pi, v, "true or false");
        return 0;
    case P_POS_INT:
        if (!parse_long(v, &x) || x <= 0 || x > 2147483647) return bad_value(path, pi, v, "a positive integer");
        return 0;
    case P_NUM_COLS:
        if (!parse_long(v, &x) || x < -1 || x > 2147483647)
            return bad_value(path, pi, v, "-1 (every column) or a number of columns >= 0");
        return 0;
    case P_INTERVAL:
        if (!valid_interval(v)) return bad_value(path, pi, v, "an interval such as 'interval 7 days'");
        return 0;
    case P_SIZE:
        if (tn_table_parse_size(v) == 0) return bad_value(path, pi, v, "a size in bytes such as 134217728 or '128mb'");
        return 0;
    case P_CODEC: {
        tn_parquet_codec c;
        if (tn_parquet_codec_parse(v, &c) != 0) {
            tn_error_clear();
            return bad_value(path, pi, v, "uncompressed, snappy, gzip, lz4_raw, zstd or brotli");
        }
        return 0;
    }
    case P_ENUM:
        if (!in_enum(pi->values, v)) {
            char exp[160];
            snprintf(exp, sizeof exp, "tarn supports: %s", pi->values);
            for (char *p = exp; *p; p++)
                if (*p == '|') *p = ',';
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': %s = '%s' is not supported (%s)", path, pi->key, v, exp);
        }
        return 0;
    case P_ANY: return 0;
    }
    return 0;
}

int tb_props_apply(tn_arena *arena, const char *path, const tn_delta_kv *base, uint32_t nbase,
                   const tn_delta_kv *changes, uint32_t nchanges, bool create, tb_props_result *out) {
    memset(out, 0, sizeof *out);
    uint32_t cap = nbase + nchanges + 1;
    tn_delta_kv *conf = tn_arena_calloc(arena, sizeof *conf * cap);
    const char **feats = tn_arena_calloc(arena, sizeof *feats * (nchanges + 1));
    if (!conf || !feats) return TN_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nbase; i++) conf[n++] = base[i];
    for (uint32_t i = 0; i < nchanges; i++) {
        const char *key = changes[i].key, *v = changes[i].value;
        const char *canon = key;
        if (!key || !*key) return tn_error_set(TN_EINVAL, "table '%s': empty property name", path);
        if (tn_str_iequal_n(key, 6, "delta.")) {
            if (is_feature_key(key)) {
                const char *name = key + 14;
                if (!v) return tn_error_set(TN_EUNSUPPORTED, "table '%s': %s cannot be unset (Delta never removes a "
                                            "table feature; DROP FEATURE is not supported)", path, key);
                if (!tn_str_iequal(v, "supported") && !tn_str_iequal(v, "enabled"))
                    return tn_error_set(TN_EINVAL, "table '%s': %s = '%s': the value must be 'supported'", path, key, v);
                if (!tn_delta_feature_known(name))
                    return tn_error_set(TN_EUNSUPPORTED, "table '%s': unknown Delta table feature '%s' (%s)", path, name, key);
                bool rf = tn_delta_feature_is_reader(name);
                tn_delta_protocol probe = {rf ? 3 : 1, 7, rf ? &name : NULL, rf ? 1 : 0, rf, &name, 1, true};
                if (tn_delta_protocol_check_write(&probe) != 0) {
                    tn_error_clear();
                    return tn_error_set(TN_EUNSUPPORTED, "table '%s': %s: tarn does not write tables with the "
                                        "table feature '%s'", path, key, name);
                }
                feats[out->request.nfeatures++] = name;
                continue;
            }
            if (is_constraint_key(key)) {
                if (strlen(key) == 18)
                    return tn_error_set(TN_EINVAL, "table '%s': %s: a CHECK constraint needs a name", path, key);
                if (!create) out->constraints_changed = true;
                /* constraint names are stored lower-case, as Delta does */
                char *lk = tn_arena_strdup(arena, key);
                if (!lk) return TN_ENOMEM;
                for (char *p = lk; *p; p++)
                    if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
                canon = lk;
                if (v && !*v) return tn_error_set(TN_EINVAL, "table '%s': %s: empty CHECK expression", path, key);
            } else {
                const prop_info *pi = find_prop(key);
                if (!pi)
                    return tn_error_set(TN_EUNSUPPORTED, "table '%s': unknown Delta table property '%s' (tarn honours "
                                        "the delta.* properties listed in its README; others are refused)", path, key);
                canon = pi->key;
                if (pi->status == P_REFUSED)
                    return tn_error_set(TN_EUNSUPPORTED, "table '%s': table property %s is not supported by tarn (%s)",
                                        path, pi->key, pi->why);
                if (pi->status == P_INTERNAL)
                    return tn_error_set(TN_EINVAL, "table '%s': %s is maintained by the writer and cannot be set",
                                        path, pi->key);
                if (pi->status == P_PROTOCOL) {
                    long long x;
                    if (!v || !parse_long(v, &x) || x < 1 || x > 7)
                        return bad_value(path, pi, v, "a protocol version");
                    if (strcmp(pi->key, "delta.minReaderVersion") == 0) {
                        if (x > 3) return bad_value(path, pi, v, "1, 2 or 3");
                        out->request.min_reader_version = (int)x;
                    } else {
                        out->request.min_writer_version = (int)x;
                    }
                    continue;
                }
                if (v) {
                    int rc = validate(path, pi, v);
                    if (rc) return rc;
                }
                if (strcmp(pi->key, "delta.columnMapping.mode") == 0) out->column_mapping_changed = true;
            }
        }
        /* set (or unset: value NULL) canon, replacing any spelling of the same key */
        uint32_t k = 0;
        for (uint32_t j = 0; j < n; j++)
            if (!tn_str_iequal(conf[j].key, canon)) conf[k++] = conf[j];
        n = k;
        if (v) {
            conf[n].key = canon;
            conf[n].value = v;
            n++;
        }
    }
    out->request.features = feats;
    out->configuration = conf;
    out->nconfiguration = n;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * What a write must honour.
 */
int tb_write_check_features(const tn_table *t, bool constraints_checked, bool rows_from_table) {
    const tn_delta_metadata *md = &t->snap->metadata;
    if (rows_from_table) return 0;
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        const tn_delta_column *c = &md->columns[i];
        if (c->generation_expression)
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' is a generated column "
                                "(delta.generationExpression = '%s'): tarn does not compute generated columns, so it "
                                "does not write this table", t->path, c->name, c->generation_expression);
        if (c->identity)
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' is an identity column (delta.identity.*): "
                                "tarn does not generate identity values, so it does not write this table", t->path,
                                c->name);
    }
    if (constraints_checked) return 0;
    for (uint32_t i = 0; i < md->nconfiguration; i++)
        if (tb_prop_is_constraint(md->configuration[i].key))
            return tn_error_set(TN_EUNSUPPORTED, "table '%s' has CHECK constraint %s (%s): this writer does not "
                                "evaluate constraints (write through SQL)", t->path, md->configuration[i].key + 18,
                                md->configuration[i].value ? md->configuration[i].value : "");
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (md->columns[i].invariant)
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has the invariant %s (delta.invariants): "
                                "this writer does not evaluate it (write through SQL)", t->path, md->columns[i].name,
                                md->columns[i].invariant);
    return 0;
}
