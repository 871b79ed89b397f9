/*
 * layout/bucket/spec.c: the primary-key table specification (key, bucket key, bucket count,
 * merge engine, sequence field, aggregate functions) parsed from metaData.configuration and
 * checked against the columns, with Paimon's messages where Paimon has one. Every key a
 * primary-key table is given is honoured or refused here by name; nothing else reads them.
 */
#include "layout/bucket/bucketInt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const agg_names[] = {
#define TN_AGG_NAME(id, name) name,
    TN_BUCKET_AGG_TABLE(TN_AGG_NAME)
#undef TN_AGG_NAME
};

/* Keys a primary-key table accepts besides delta.* and tarn.* (their own registries). */
static const char *const known_keys[] = {
    "primary-key", "bucket", "bucket-key", "merge-engine", "sequence.field", "changelog-producer",
    "bucket-function.type", "fields.default-aggregate-function", "target_file_size", "SALT_BUCKETS",
    "partial-update.remove-record-on-delete", "aggregation.remove-record-on-delete",
    "dynamic-bucket.target-row-num", "dynamic-bucket.max-buckets", "rowkind.field", "ignore-delete",
    "first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete",
};

static bool field_option(const char *key, const char **col, size_t *collen, const char **what) {
    if (!tn_str_iequal_n(key, 7, "fields.")) return false;
    const char *c = key + 7;
    const char *dot = strrchr(c, '.');
    if (!dot || dot == c) return false;
    static const char *const kinds[] = {"aggregate-function", "ignore-retract", "list-agg-delimiter"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (tn_str_iequal(dot + 1, kinds[i])) {
            *col = c;
            *collen = (size_t)(dot - c);
            *what = kinds[i];
            return true;
        }
    return false;
}

bool tn_bucket_option_known(const char *key) {
    for (size_t i = 0; i < sizeof known_keys / sizeof known_keys[0]; i++)
        if (tn_str_iequal(key, known_keys[i])) return true;
    const char *c, *w;
    size_t n;
    return field_option(key, &c, &n, &w);
}

static const char *conf_get(const tn_delta_kv *conf, uint32_t n, const char *key) {
    for (uint32_t i = 0; i < n; i++)
        if (conf[i].key && tn_str_iequal(conf[i].key, key)) return conf[i].value;
    return NULL;
}

static int col_index(const tn_bucket_column *cols, uint32_t ncols, const char *name, size_t len) {
    for (uint32_t i = 0; i < ncols; i++)
        if (tn_str_iequal_n(name, len, cols[i].name)) return (int)i;
    return -1;
}

/* "[a, b]" of names */
static void list_text(char *buf, size_t cap, const tn_bucket_column *cols, const uint32_t *idx, uint32_t n) {
    size_t off = 0;
    off += (size_t)snprintf(buf + off, cap - off, "[");
    for (uint32_t i = 0; i < n && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "", cols[idx[i]].name);
    if (off < cap) snprintf(buf + off, cap - off, "]");
}

static void raw_list_text(char *buf, size_t cap, const char *text) {
    /* "a, b" from "a,b" */
    size_t off = (size_t)snprintf(buf, cap, "[");
    const char *p = text;
    bool first = true;
    while (*p && off + 4 < cap) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *t = e;
        while (t > p && t[-1] == ' ') t--;
        off += (size_t)snprintf(buf + off, cap - off, "%s%.*s", first ? "" : ", ", (int)(t - p), p);
        first = false;
        p = *e ? e + 1 : e;
    }
    if (off < cap) snprintf(buf + off, cap - off, "]");
}

/* Parses "a, b" into column indexes; unknown names are reported through *bad (index into text). */
static int parse_list(const char *what, const char *key, const char *text, const tn_bucket_column *cols,
                      uint32_t ncols, uint32_t *out, uint32_t *n, const char **bad, size_t *badlen) {
    *n = 0;
    *bad = NULL;
    const char *p = text;
    if (!text || !*text) return tn_error_set(TN_EINVAL, "%s: option '%s' is empty", what, key);
    for (;;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *t = e;
        while (t > p && t[-1] == ' ') t--;
        if (t == p) return tn_error_set(TN_EINVAL, "%s: option '%s' = '%s' has an empty column name", what, key, text);
        int ci = col_index(cols, ncols, p, (size_t)(t - p));
        if (ci < 0) {
            if (!*bad) {
                *bad = p;
                *badlen = (size_t)(t - p);
            }
        } else {
            for (uint32_t k = 0; k < *n; k++)
                if (out[k] == (uint32_t)ci)
                    return tn_error_set(TN_EINVAL, "%s: option '%s' names column '%s' twice", what, key, cols[ci].name);
            if (*n >= TN_BUCKET_MAX_KEYS)
                return tn_error_set(TN_EINVAL, "%s: option '%s' has more than %d columns", what, key, TN_BUCKET_MAX_KEYS);
            out[(*n)++] = (uint32_t)ci;
        }
        if (!*e) break;
        p = e + 1;
    }
    return 0;
}

static bool is_true_false(const char *v) { return v && (tn_str_iequal(v, "true") || tn_str_iequal(v, "false")); }

static bool hashable(tn_type t) {
    switch ((tn_type_id)t.id) {
    case TN_TYPE_BOOLEAN: case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: case TN_TYPE_DECIMAL: case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY:
    case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return true;
    default: return false;
    }
}

/* Whether aggregate function a applies to type t. */
static bool agg_accepts(tn_bucket_agg a, tn_type t) {
    switch (a) {
    case TN_AGG_SUM: return tn_type_is_numeric(t);
    case TN_AGG_PRODUCT: return tn_type_is_numeric(t) && t.id != TN_TYPE_DECIMAL;
    case TN_AGG_COUNT: return tn_type_is_integer(t) && t.id >= TN_TYPE_INTEGER;
    case TN_AGG_MIN:
    case TN_AGG_MAX: return t.id != TN_TYPE_BOOLEAN && hashable(t);
    case TN_AGG_LISTAGG: return t.id == TN_TYPE_VARCHAR;
    case TN_AGG_BOOL_AND:
    case TN_AGG_BOOL_OR: return t.id == TN_TYPE_BOOLEAN;
    case TN_AGG_RBM32: return t.id == TN_TYPE_VARBINARY;
    default: return true;
    }
}

static int parse_agg(const char *what, const char *key, const char *v, tn_bucket_agg *out) {
    for (int i = 0; i < (int)TN_BUCKET_AGG_COUNT_; i++)
        if (v && tn_str_iequal(v, agg_names[i])) {
            *out = (tn_bucket_agg)i;
            return 0;
        }
    /* Paimon's rbm64 values are Java Roaring64Bitmap.serialize(DataOutput): HighLowContainer's tag
     * byte, its ART of the high 48 bits (node layouts and container indexes) and the container
     * arrays. RoaringBitmap documents that form as unspecified and free to change between its
     * versions; it is not the 64-bit portable format (Roaring64NavigableMap / CRoaring portable),
     * and no bytes written by Java are at hand to test a reader against. Refused until they are. */
    if (v && tn_str_iequal(v, "rbm64"))
        return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' = 'rbm64' is not supported: Paimon's rbm64 stores Java "
                            "Roaring64Bitmap's own serialization (an ART of the high 48 bits, which RoaringBitmap "
                            "documents as unspecified and version-dependent, not the 64-bit portable format); "
                            "'rbm32' merges 32-bit RoaringBitmap values", what, key);
    return tn_error_set(TN_EINVAL, "%s: option '%s': Use unsupported aggregation: %s or spell aggregate function "
                        "incorrectly!", what, key, v ? v : "");
}

int tn_bucket_spec_parse(tn_bucket_spec *out, const char *what, const tn_bucket_column *cols, uint32_t ncols,
                         const tn_delta_kv *conf, uint32_t nconf, tn_arena *arena) {
    memset(out, 0, sizeof *out);
    out->ncols = ncols;
    out->seq_col = -1;
    out->is_key = tn_arena_calloc(arena, ncols + 1);
    out->agg = tn_arena_calloc(arena, ncols + 1);
    out->delims = tn_arena_calloc(arena, (ncols + 1) * sizeof *out->delims);
    out->ignore_retract = tn_arena_calloc(arena, ncols + 1);
    out->rowkind_col = -1;
    if (!out->is_key || !out->agg || !out->delims || !out->ignore_retract) return TN_ENOMEM;
    char l1[512], l2[512];
    const char *bad;
    size_t badlen;
    int rc;
    /* every key is honoured or refused */
    for (uint32_t i = 0; i < nconf; i++) {
        const char *k = conf[i].key;
        if (!k || tn_str_iequal_n(k, 6, "delta.") || tn_str_iequal_n(k, 5, "tarn.")) continue;
        if (tn_str_iequal(k, "deletion-vectors.enabled"))
            return tn_error_set(TN_EUNSUPPORTED, "%s: option 'deletion-vectors.enabled' is spelled "
                                "'delta.enableDeletionVectors' = 'true' here (upserts then mark replaced rows in Delta "
                                "deletion vectors instead of rewriting buckets)", what);
        if (!tn_bucket_option_known(k))
            return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' is not supported for primary-key tables (supported: "
                                "'primary-key', 'bucket', 'bucket-key', 'merge-engine', 'sequence.field', "
                                "'fields.<column>.aggregate-function', 'fields.<column>.ignore-retract', "
                                "'fields.<column>.list-agg-delimiter', 'fields.default-aggregate-function', "
                                "'partial-update.remove-record-on-delete', 'aggregation.remove-record-on-delete', "
                                "'dynamic-bucket.target-row-num', 'dynamic-bucket.max-buckets', "
                                "'rowkind.field', 'ignore-delete', 'changelog-producer' = 'none', 'bucket-function.type' = 'default', "
                                "'target_file_size', delta.* properties)", what, k);
    }
    /* the key */
    const char *pk = conf_get(conf, nconf, "primary-key");
    if (!pk)
        return tn_error_set(TN_EUNSUPPORTED, "%s: a 'bucket' or 'bucket-key' option needs a primary key (PRIMARY KEY "
                            "(...) NOT ENFORCED): bucketed append tables are not supported yet", what);
    rc = parse_list(what, "primary-key", pk, cols, ncols, out->key, &out->nkey, &bad, &badlen);
    if (rc) return rc;
    if (bad) {
        char names[512];
        uint32_t all[TN_BUCKET_MAX_KEYS * 8];
        uint32_t n = 0;
        for (uint32_t i = 0; i < ncols && n < sizeof all / sizeof all[0]; i++) all[n++] = i;
        list_text(names, sizeof names, cols, all, n);
        raw_list_text(l1, sizeof l1, pk);
        return tn_error_set(TN_EINVAL, "%s: primary key column '%.*s' is not a column of the table: Table column %s "
                            "should include all primary key constraint %s", what, (int)badlen, bad, names, l1);
    }
    uint32_t part[TN_BUCKET_MAX_KEYS * 4], npart = 0;
    for (uint32_t i = 0; i < ncols && npart < sizeof part / sizeof part[0]; i++)
        if (cols[i].is_partition) part[npart++] = i;
    for (uint32_t i = 0; i < out->nkey; i++) {
        out->is_key[out->key[i]] = 1;
        if (!hashable(cols[out->key[i]].type)) {
            char tb[64];
            return tn_error_set(TN_EUNSUPPORTED, "%s: primary key column '%s' has type %s, which cannot be a key", what,
                                cols[out->key[i]].name, tn_type_format(cols[out->key[i]].type, tb, sizeof tb));
        }
    }
    /* fixed buckets need every partition column in the key (Paimon's cross-partition case) */
    const char *bucket_text = conf_get(conf, nconf, "bucket");
    bool dynamic_asked = bucket_text && strcmp(bucket_text, "-1") == 0;
    for (uint32_t i = 0; i < npart; i++)
        if (!out->is_key[part[i]]) {
            list_text(l1, sizeof l1, cols, out->key, out->nkey);
            list_text(l2, sizeof l2, cols, part, npart);
            if (dynamic_asked)
                return tn_error_set(TN_EUNSUPPORTED, "%s: cross-partition upserts (Paimon's dynamic bucket mode with a "
                                    "primary key %s that does not include all partition fields %s) are not supported: "
                                    "put the partition fields in the key", what, l1, l2);
            return tn_error_set(TN_EINVAL, "%s: You should use dynamic bucket (bucket = -1) mode in cross partition "
                                "update case (Primary key constraint %s not include all partition fields %s).", what,
                                l1, l2);
        }
    uint32_t trimmed[TN_BUCKET_MAX_KEYS], ntrimmed = 0;
    for (uint32_t i = 0; i < out->nkey; i++)
        if (!cols[out->key[i]].is_partition) trimmed[ntrimmed++] = out->key[i];
    if (ntrimmed == 0) {
        list_text(l1, sizeof l1, cols, out->key, out->nkey);
        list_text(l2, sizeof l2, cols, part, npart);
        return tn_error_set(TN_EINVAL, "%s: Primary key constraint %s should not be same with partition fields %s, "
                            "this will result in only one record in a partition", what, l1, l2);
    }
    /* the bucket count */
    const char *bs = conf_get(conf, nconf, "bucket");
    const char *bkey_name = "bucket";
    if (!bs && (bs = conf_get(conf, nconf, "SALT_BUCKETS"))) bkey_name = "SALT_BUCKETS";
    out->nbuckets = 1;
    if (bs) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(bs, &end, 10);
        while (end && *end == ' ') end++;
        if (!*bs || !end || *end || errno)
            return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key '%s'.", what, bs, bkey_name);
        if (strcmp(bkey_name, "SALT_BUCKETS") == 0 && (v < 0 || v > 256))
            return tn_error_set(TN_EINVAL, "%s: ERROR 1021 (42Y80): Salt bucket numbers should be with 1 and 256.", what);
        if (strcmp(bkey_name, "SALT_BUCKETS") == 0 && v == 0) v = 1;       /* Phoenix: 0 = unsalted */
        if (v == -2)
            return tn_error_set(TN_EUNSUPPORTED, "%s: 'bucket' = '-2' (Paimon's postpone bucket mode) is not supported: "
                                "give a fixed number of buckets > 0, or -1 (dynamic buckets)", what);
        if (v == -1 && strcmp(bkey_name, "bucket") == 0) out->dynamic = true;
        else if (v <= 0)
            return tn_error_set(TN_EINVAL, "%s: 'bucket' = '%s': The number of buckets needs to be greater than 0.",
                                what, bs);
        if (v > 65536)
            return tn_error_set(TN_EINVAL, "%s: 'bucket' = '%s': at most 65536 buckets per partition", what, bs);
        out->nbuckets = (int32_t)v;
    }
    /* dynamic buckets: Paimon's options and rules */
    out->target_rows = 2000000;
    out->max_buckets = -1;
    static const char *const dyn_keys[] = {"dynamic-bucket.target-row-num", "dynamic-bucket.max-buckets"};
    for (int i = 0; i < 2; i++) {
        const char *dv = conf_get(conf, nconf, dyn_keys[i]);
        if (!dv) continue;
        if (!out->dynamic)
            return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' needs 'bucket' = '-1' (dynamic bucket mode)", what,
                                dyn_keys[i]);
        char *end = NULL;
        errno = 0;
        long long v = strtoll(dv, &end, 10);
        if (!*dv || !end || *end || errno || (i == 0 && v <= 0) || (i == 1 && (v == 0 || v < -1 || v > 32767)))
            return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key '%s'.", what, dv, dyn_keys[i]);
        if (i == 0) out->target_rows = v;
        else out->max_buckets = (int32_t)v;
    }
    if (out->dynamic && conf_get(conf, nconf, "bucket-key"))
        return tn_error_set(TN_EINVAL, "%s: Cannot define 'bucket-key' with bucket = -1, please remove the "
                            "'bucket-key' setting or specify a bucket number.", what);
    /* the bucket key */
    const char *bk = conf_get(conf, nconf, "bucket-key");
    if (bk) {
        rc = parse_list(what, "bucket-key", bk, cols, ncols, out->bkey, &out->nbkey, &bad, &badlen);
        if (rc) return rc;
        if (bad) {
            uint32_t all[TN_BUCKET_MAX_KEYS * 8];
            uint32_t n = 0;
            for (uint32_t i = 0; i < ncols && n < sizeof all / sizeof all[0]; i++) all[n++] = i;
            list_text(l1, sizeof l1, cols, all, n);
            raw_list_text(l2, sizeof l2, bk);
            return tn_error_set(TN_EINVAL, "%s: Field names %s should contains all bucket keys %s.", what, l1, l2);
        }
        for (uint32_t i = 0; i < out->nbkey; i++)
            if (cols[out->bkey[i]].is_partition) {
                raw_list_text(l1, sizeof l1, bk);
                list_text(l2, sizeof l2, cols, part, npart);
                return tn_error_set(TN_EINVAL, "%s: Bucket keys %s should not in partition keys %s.", what, l1, l2);
            }
        for (uint32_t i = 0; i < out->nbkey; i++)
            if (!out->is_key[out->bkey[i]]) {
                list_text(l1, sizeof l1, cols, out->key, out->nkey);
                raw_list_text(l2, sizeof l2, bk);
                return tn_error_set(TN_EINVAL, "%s: Primary keys %s should contains all bucket keys %s.", what, l1, l2);
            }
    } else {
        memcpy(out->bkey, trimmed, ntrimmed * sizeof *trimmed);
        out->nbkey = ntrimmed;
    }
    /* merge engine */
    const char *me = conf_get(conf, nconf, "merge-engine");
    if (!me || tn_str_iequal(me, "deduplicate")) out->engine = TN_BUCKET_DEDUPLICATE;
    else if (tn_str_iequal(me, "partial-update")) out->engine = TN_BUCKET_PARTIAL_UPDATE;
    else if (tn_str_iequal(me, "aggregation")) out->engine = TN_BUCKET_AGGREGATION;
    else if (tn_str_iequal(me, "first-row")) out->engine = TN_BUCKET_FIRST_ROW;
    else
        return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key 'merge-engine' (deduplicate, "
                            "partial-update, aggregation, first-row).", what, me);
    /* DELETE removes a key's row: Paimon's per-engine options (checked by tn_bucket_check_delete) */
    static const struct { const char *key; tn_bucket_engine engine; const char *engine_name; } removes[] = {
        {"partial-update.remove-record-on-delete", TN_BUCKET_PARTIAL_UPDATE, "partial-update"},
        {"aggregation.remove-record-on-delete", TN_BUCKET_AGGREGATION, "aggregation"},
    };
    for (size_t i = 0; i < sizeof removes / sizeof removes[0]; i++) {
        const char *v = conf_get(conf, nconf, removes[i].key);
        if (!v) continue;
        if (!is_true_false(v))
            return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key '%s'.", what, v, removes[i].key);
        if (out->engine != removes[i].engine)
            return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' needs 'merge-engine' = '%s'", what, removes[i].key,
                                removes[i].engine_name);
        out->remove_on_delete = tn_str_iequal(v, "true");
    }
    /* Paimon's 'ignore-delete' (and its per-engine fallback keys): retract rows are dropped */
    static const struct { const char *key; int engine; } ignores[] = {
        {"ignore-delete", -1},
        {"deduplicate.ignore-delete", TN_BUCKET_DEDUPLICATE},
        {"partial-update.ignore-delete", TN_BUCKET_PARTIAL_UPDATE},
        {"first-row.ignore-delete", TN_BUCKET_FIRST_ROW},
    };
    for (size_t i = 0; i < sizeof ignores / sizeof ignores[0]; i++) {
        const char *v = conf_get(conf, nconf, ignores[i].key);
        if (!v) continue;
        if (!is_true_false(v))
            return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key '%s'.", what, v, ignores[i].key);
        if (ignores[i].engine >= 0 && (int)out->engine != ignores[i].engine)
            return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' needs 'merge-engine' = '%.*s'", what, ignores[i].key,
                                (int)(strchr(ignores[i].key, '.') - ignores[i].key), ignores[i].key);
        out->ignore_delete |= tn_str_iequal(v, "true");
    }
    /* Paimon's 'rowkind.field': a string column whose value (+I, -U, +U, -D) is each row's kind */
    const char *rk = conf_get(conf, nconf, "rowkind.field");
    if (rk) {
        int ci = col_index(cols, ncols, rk, strlen(rk));
        if (ci < 0) return tn_error_set(TN_EINVAL, "%s: Can not find rowkind %s in table schema.", what, rk);
        if (cols[ci].type.id != TN_TYPE_VARCHAR) {
            char tb[64];
            return tn_error_set(TN_EINVAL, "%s: only support string type for rowkind, but %s is %s", what,
                                cols[ci].name, tn_type_format(cols[ci].type, tb, sizeof tb));
        }
        if (out->is_key[ci])
            return tn_error_set(TN_EINVAL, "%s: rowkind field '%s' is a primary key column", what, cols[ci].name);
        out->rowkind_col = ci;
    }
    /* sequence field */
    const char *sf = conf_get(conf, nconf, "sequence.field");
    if (sf) {
        int ci = col_index(cols, ncols, sf, strlen(sf));
        if (ci < 0) return tn_error_set(TN_EINVAL, "%s: Sequence field: '%s' can not be found in table schema.", what, sf);
        if (out->engine == TN_BUCKET_FIRST_ROW)
            return tn_error_set(TN_EINVAL, "%s: Do not support use sequence field on FIRST_ROW merge engine.", what);
        tn_type t = cols[ci].type;
        if (!(tn_type_is_numeric(t) || t.id == TN_TYPE_DATE || t.id == TN_TYPE_TIMESTAMP || t.id == TN_TYPE_TIMESTAMP_TZ)) {
            char tb[64];
            return tn_error_set(TN_EINVAL, "%s: sequence field '%s' has type %s: it must be a number, a date or a "
                                "timestamp", what, cols[ci].name, tn_type_format(t, tb, sizeof tb));
        }
        out->seq_col = ci;
    }
    /* fields.* */
    tn_bucket_agg def = TN_AGG_LAST_NON_NULL;
    const char *da = conf_get(conf, nconf, "fields.default-aggregate-function");
    if (da) {
        if (out->engine != TN_BUCKET_AGGREGATION)
            return tn_error_set(TN_EUNSUPPORTED, "%s: option 'fields.default-aggregate-function' needs 'merge-engine' = "
                                "'aggregation'", what);
        rc = parse_agg(what, "fields.default-aggregate-function", da, &def);
        if (rc) return rc;
    }
    for (uint32_t i = 0; i < ncols; i++) out->agg[i] = (uint8_t)def;
    for (uint32_t i = 0; i < nconf; i++) {
        const char *c, *kind;
        size_t clen;
        if (!conf[i].key || !field_option(conf[i].key, &c, &clen, &kind)) continue;
        int ci = col_index(cols, ncols, c, clen);
        if (ci < 0)
            return tn_error_set(TN_EINVAL, "%s: option '%s': Field %.*s can not be found in table schema.", what,
                                conf[i].key, (int)clen, c);
        const char *v = conf[i].value;
        if (strcmp(kind, "ignore-retract") == 0) {
            if (!is_true_false(v))
                return tn_error_set(TN_EINVAL, "%s: Could not parse value '%s' for key '%s'.", what, v ? v : "",
                                    conf[i].key);
            /* retractions (-U/-D rows: 'rowkind.field', MERGE's deletes) meet field aggregates only
             * in the aggregation engine; elsewhere the option would have nothing to act on */
            if (out->engine != TN_BUCKET_AGGREGATION)
                return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' needs 'merge-engine' = 'aggregation' (the "
                                    "other merge engines retract whole rows, not fields)", what, conf[i].key);
            if (out->is_key[ci])
                return tn_error_set(TN_EINVAL, "%s: option '%s': '%s' is a primary key column, which is not "
                                    "aggregated", what, conf[i].key, cols[ci].name);
            out->ignore_retract[ci] = tn_str_iequal(v, "true");
            continue;
        }
        if (strcmp(kind, "list-agg-delimiter") == 0) {
            out->delims[ci] = v ? v : "";
            continue;
        }
        if (out->engine != TN_BUCKET_AGGREGATION)
            return tn_error_set(TN_EUNSUPPORTED, "%s: option '%s' needs 'merge-engine' = 'aggregation'", what,
                                conf[i].key);
        if (out->is_key[ci])
            return tn_error_set(TN_EINVAL, "%s: option '%s': '%s' is a primary key column, which is not aggregated",
                                what, conf[i].key, cols[ci].name);
        tn_bucket_agg a;
        rc = parse_agg(what, conf[i].key, v, &a);
        if (rc) return rc;
        out->agg[ci] = (uint8_t)a;
    }
    if (out->engine == TN_BUCKET_AGGREGATION)
        for (uint32_t i = 0; i < ncols; i++) {
            if (out->is_key[i] || agg_accepts((tn_bucket_agg)out->agg[i], cols[i].type)) continue;
            char tb[64];
            if (out->agg[i] == TN_AGG_RBM32)   /* Paimon's text */
                return tn_error_set(TN_EINVAL, "%s: column '%s': Data type for roaring bitmap column must be "
                                    "'VarBinaryType' but was '%s'.", what, cols[i].name,
                                    tn_type_format(cols[i].type, tb, sizeof tb));
            return tn_error_set(TN_EINVAL, "%s: aggregate function '%s' does not apply to column '%s' of type %s", what,
                                agg_names[out->agg[i]], cols[i].name, tn_type_format(cols[i].type, tb, sizeof tb));
        }
    const char *cp = conf_get(conf, nconf, "changelog-producer");
    if (cp && !tn_str_iequal(cp, "none"))
        return tn_error_set(TN_EUNSUPPORTED, "%s: 'changelog-producer' = '%s' is not supported (only 'none': tarn "
                            "writes no changelog files; Delta's change data feed is 'delta.enableChangeDataFeed')", what,
                            cp);
    const char *bf = conf_get(conf, nconf, "bucket-function.type");
    if (bf && !tn_str_iequal(bf, "default"))
        return tn_error_set(TN_EUNSUPPORTED, "%s: 'bucket-function.type' = '%s' is not supported (only 'default', "
                            "Paimon's hash)", what, bf);
    return 0;
}

int tn_bucket_spec_of_table(tn_bucket_spec *out, const tn_table *t, tn_arena *arena) {
    uint32_t n = tn_table_num_columns(t);
    tn_bucket_column *cols = tn_arena_calloc(arena, (n + 1) * sizeof *cols);
    if (!cols) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        cols[i].name = c->name;
        cols[i].type = c->type;
        cols[i].is_partition = c->is_partition;
        cols[i].nullable = c->nullable;
    }
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    char what[1100];
    snprintf(what, sizeof what, "table '%s'", tn_table_path(t));
    return tn_bucket_spec_parse(out, what, cols, n, md->configuration, md->nconfiguration, arena);
}

/* ---------------------------------------------------------------------------------------------
 * CREATE and ALTER checks (the layout's check_create / check_alter).
 */
int tn_bucket_check_create(const tn_table_create_options *o) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    int rc = 0;
    tn_bucket_column *cols = tn_arena_calloc(arena, (o->ncolumns + 1) * sizeof *cols);
    if (!cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < o->ncolumns; i++) {
        cols[i].name = o->columns[i].name;
        cols[i].type = o->columns[i].type;
        cols[i].nullable = o->columns[i].nullable;
        for (uint32_t k = 0; k < o->npartition_columns; k++)
            if (tn_str_iequal(o->partition_columns[k], cols[i].name)) cols[i].is_partition = true;
    }
    char what[300];
    snprintf(what, sizeof what, "table '%s'", o->name ? o->name : "?");
    tn_bucket_spec spec;
    rc = tn_bucket_spec_parse(&spec, what, cols, o->ncolumns, o->configuration, o->nconfiguration, arena);
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

int tn_bucket_check_alter(const tn_table *t, const tn_delta_kv *props, uint32_t nprops) {
    static const char *const fixed[] = {"primary-key", "bucket-key", "merge-engine", "sequence.field",
                                        "bucket-function.type"};
    for (uint32_t k = 0; k < nprops; k++)
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            if (tn_str_iequal(props[k].key, fixed[i])) {
                const char *old = tn_table_property(t, fixed[i]);
                if (old && props[k].value && strcmp(old, props[k].value) == 0) continue;
                return tn_error_set(TN_EUNSUPPORTED, "table '%s': '%s' cannot be changed by ALTER TABLE (it decides where "
                                    "rows are and how they merge): create a new table and INSERT INTO it",
                                    tn_table_path(t), fixed[i]);
            }
    /* dynamic and fixed buckets place keys differently: no switch between them */
    for (uint32_t k = 0; k < nprops; k++) {
        if (!tn_str_iequal(props[k].key, "bucket")) continue;
        const char *old = tn_table_property(t, "bucket");
        bool was = old && strcmp(old, "-1") == 0, is = props[k].value && strcmp(props[k].value, "-1") == 0;
        if (was != is)
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': 'bucket' cannot change between dynamic (-1) and a fixed "
                                "count by ALTER TABLE: create a new table and INSERT INTO it", tn_table_path(t));
    }
    /* the configuration after the change must still be a valid primary-key table */
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    tn_delta_kv *conf = tn_calloc((size_t)md->nconfiguration + nprops + 1, sizeof *conf);
    tn_arena *arena = tn_arena_create(0);
    tn_bucket_column *cols = arena ? tn_arena_calloc(arena, (tn_table_num_columns(t) + 1) * sizeof *cols) : NULL;
    int rc = 0;
    if (!conf || !cols) { rc = TN_ENOMEM; goto cleanup; }
    uint32_t n = 0;
    for (uint32_t i = 0; i < md->nconfiguration; i++) {
        bool changed = false;
        for (uint32_t k = 0; k < nprops; k++) changed |= tn_str_iequal(props[k].key, md->configuration[i].key);
        if (!changed) conf[n++] = md->configuration[i];
    }
    for (uint32_t k = 0; k < nprops; k++)
        if (props[k].value) conf[n++] = props[k];
    for (uint32_t i = 0; i < tn_table_num_columns(t); i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        cols[i] = (tn_bucket_column){c->name, c->type, c->is_partition, c->nullable};
    }
    char what[1100];
    snprintf(what, sizeof what, "table '%s'", tn_table_path(t));
    tn_bucket_spec spec;
    rc = tn_bucket_spec_parse(&spec, what, cols, tn_table_num_columns(t), conf, n, arena);
cleanup:
    tn_free(conf);
    tn_arena_destroy(arena);
    return rc;
}

int tn_bucket_check_delete(const tn_table *t) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    int rc = tn_bucket_spec_of_table(&spec, t, arena);
    if (rc) goto cleanup;
    /* Paimon's validation of a batch delete (Flink's SupportsRowLevelDelete), its texts */
    if (spec.engine == TN_BUCKET_FIRST_ROW)
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': Merge engine first-row can not support batch delete.",
                          tn_table_path(t));
    else if ((spec.engine == TN_BUCKET_PARTIAL_UPDATE || spec.engine == TN_BUCKET_AGGREGATION) && !spec.remove_on_delete) {
        const char *name = spec.engine == TN_BUCKET_AGGREGATION ? "aggregation" : "partial-update";
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': Merge engine %s doesn't support batch delete by default. To "
                          "support batch delete, please set %s.remove-record-on-delete to true.", tn_table_path(t), name,
                          name);
    }
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

int tn_bucket_check_update(const tn_table *t, const uint8_t *assigned) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    int rc = tn_bucket_spec_of_table(&spec, t, arena);
    if (rc) goto cleanup;
    /* Paimon's validation of a batch update (Flink's SupportsRowLevelUpdate), its texts */
    bool key_assigned = false;
    for (uint32_t i = 0; i < spec.nkey; i++) key_assigned |= assigned[spec.key[i]] != 0;
    if (key_assigned) {
        tn_bucket_column *cols = tn_arena_calloc(arena, (spec.ncols + 1) * sizeof *cols);
        uint32_t *set = tn_arena_calloc(arena, (spec.ncols + 1) * sizeof *set);
        if (!cols || !set) { rc = TN_ENOMEM; goto cleanup; }
        uint32_t nset = 0;
        for (uint32_t i = 0; i < spec.ncols; i++) {
            cols[i].name = tn_table_column(t, i)->name;
            if (assigned[i]) set[nset++] = i;
        }
        char keys[512], sets[512];
        list_text(keys, sizeof keys, cols, spec.key, spec.nkey);
        list_text(sets, sizeof sets, cols, set, nset);
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': Updates to primary keys are not supported, primaryKeys (%s), "
                          "updatedColumns (%s)", tn_table_path(t), keys, sets);
    } else if (spec.engine == TN_BUCKET_AGGREGATION || spec.engine == TN_BUCKET_FIRST_ROW) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': Merge engine %s can not support batch update.",
                          tn_table_path(t), spec.engine == TN_BUCKET_AGGREGATION ? "aggregation" : "first-row");
    }
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

int tn_bucket_check_merge(const tn_table *t, const uint8_t *assigned, bool deletes) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    int rc = tn_bucket_spec_of_table(&spec, t, arena);
    if (rc) goto cleanup;
    /* Paimon's checks of MERGE INTO (Spark's RowLevelOp MergeInto and PaimonMergeInto), its texts */
    if (spec.engine == TN_BUCKET_AGGREGATION || spec.engine == TN_BUCKET_FIRST_ROW) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': merge engine %s can not support MergeInto, currently only "
                          "deduplicate, partial-update can support MergeInto.", tn_table_path(t),
                          spec.engine == TN_BUCKET_AGGREGATION ? "aggregation" : "first-row");
        goto cleanup;
    }
    for (uint32_t i = 0; i < spec.nkey; i++)
        if (assigned[spec.key[i]]) {
            rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': Can't update the primary key column in update clause. "
                              "(column '%s')", tn_table_path(t), tn_table_column(t, spec.key[i])->name);
            goto cleanup;
        }
    if (deletes) rc = tn_bucket_check_delete(t);
cleanup:
    tn_arena_destroy(arena);
    return rc;
}

int tn_bucket_describe_column(const tn_table *t, uint32_t col, char *buf, size_t cap) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    int rc = tn_bucket_spec_of_table(&spec, t, arena);
    size_t off = 0;
    if (cap) buf[0] = 0;
    if (!rc && col < spec.ncols && cap) {
        for (uint32_t i = 0; i < spec.nbkey; i++)
            if (spec.bkey[i] == col) off += (size_t)snprintf(buf + off, cap - off, "bucket key");
        if ((int)col == spec.seq_col && off < cap)
            off += (size_t)snprintf(buf + off, cap - off, "%ssequence field", off ? "; " : "");
        if (spec.engine == TN_BUCKET_AGGREGATION && !spec.is_key[col] && !tn_table_column(t, col)->is_partition && off < cap)
            snprintf(buf + off, cap - off, "%saggregate-function %s", off ? "; " : "", agg_names[spec.agg[col]]);
    }
    tn_arena_destroy(arena);
    return rc;
}
