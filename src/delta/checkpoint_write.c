/*
 * delta/checkpoint_write.c: classic single-file V1 checkpoints (Spark's column layout) and
 * _last_checkpoint. A minimal nested Parquet writer for exactly the checkpoint schema below:
 * each action row (the JSON form of the action) is shredded into (repetition, definition, value)
 * triples per leaf, then each leaf is one PLAIN data page (v1, RLE levels, SNAPPY) in a single
 * row group. The file is written to a temp name and link()ed to %020d.checkpoint.parquet.
 *
 *   txn{appId,version,lastUpdated}
 *   add{path, partitionValues map<string,string>, size, modificationTime, dataChange,
 *       tags map, deletionVector{storageType,pathOrInlineDv,offset i32,sizeInBytes i32,
 *       cardinality}, stats}
 *   remove{path,deletionTimestamp,dataChange,extendedFileMetadata,partitionValues map,size,
 *          deletionVector{...}}
 *   metaData{id,name,description,format{provider,options map},schemaString,
 *            partitionColumns list<string>,configuration map,createdTime}
 *   protocol{minReaderVersion i32,minWriterVersion i32,readerFeatures list,writerFeatures list}
 *   domainMetadata{domain,configuration,removed}
 *
 * add.stats (the JSON text) is written unless delta.checkpoint.writeStatsAsJson is false; with
 * delta.checkpoint.writeStatsAsStruct = true, add also gets the typed columns Spark writes:
 *   partitionValues_parsed{<physical partition column>: its type}      (partitioned tables)
 *   stats_parsed{numRecords long, minValues{col: type}, maxValues{col: type},
 *                nullCount{col: long}[, tightBounds boolean]}           (data columns; min/max
 *                for numbers, strings, dates and timestamps; tightBounds on DV tables)
 * with Spark's Parquet types: byte/short/int INT32 (INT_8/INT_16), long INT64, float FLOAT,
 * double DOUBLE, decimal(p<=9) INT32 / (p<=18) INT64 / FIXED_LEN_BYTE_ARRAY, date INT32 DATE,
 * timestamp INT64 TIMESTAMP(MICROS, UTC), timestamp_ntz INT64 TIMESTAMP(MICROS, local).
 */
#include "delta/deltaInt.h"
#include "parquet/parquetInt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G = -1 };                      /* group marker for `type` */
enum { CT_NONE = PQ_CT_NONE, CT_UTF8 = PQ_CT_UTF8, CT_MAP = PQ_CT_MAP, CT_LIST = PQ_CT_LIST };

/* How a leaf's JSON value becomes its Parquet value: as is (strings, integers, booleans), or
 * converted from the stats / partition-value spelling. */
enum { CV_AS_IS = 0, CV_STR, CV_INT, CV_F32, CV_F64, CV_DATE, CV_TS, CV_DEC, CV_BOOL };

typedef struct cw_def {
    const char *name;
    int rep, type, ct, nchildren;
    int cv;                          /* CV_* */
    int precision, scale, type_length;   /* decimals */
    int lt;                          /* logical type: PQ_LT_DATE / TIMESTAMP / DECIMAL / NONE */
    bool utc;                        /* TIMESTAMP */
} cw_def;

#define CV0 0, 0, 0, 0, 0, false   /* no conversion, no decimal/logical type */
#define STR(n) {n, PQ_OPTIONAL, PQ_BYTE_ARRAY, CT_UTF8, 0, CV0}
#define I64(n) {n, PQ_OPTIONAL, PQ_INT64, CT_NONE, 0, CV0}
#define I32(n) {n, PQ_OPTIONAL, PQ_INT32, CT_NONE, 0, CV0}
#define BOOL(n) {n, PQ_OPTIONAL, PQ_BOOLEAN, CT_NONE, 0, CV0}
#define MAP(n) {n, PQ_OPTIONAL, G, CT_MAP, 1, CV0}, {"key_value", PQ_REPEATED, G, CT_NONE, 2, CV0}, \
               {"key", PQ_REQUIRED, PQ_BYTE_ARRAY, CT_UTF8, 0, CV0}, STR("value")
#define LIST(n) {n, PQ_OPTIONAL, G, CT_LIST, 1, CV0}, {"list", PQ_REPEATED, G, CT_NONE, 1, CV0}, STR("element")
#define DV {"deletionVector", PQ_OPTIONAL, G, CT_NONE, 5, CV0}, STR("storageType"), STR("pathOrInlineDv"), \
           I32("offset"), I32("sizeInBytes"), I64("cardinality")

static const cw_def base_schema[] = {
    {"spark_schema", -1, G, CT_NONE, 6, CV0},
    {"txn", PQ_OPTIONAL, G, CT_NONE, 3, CV0}, STR("appId"), I64("version"), I64("lastUpdated"),
    {"add", PQ_OPTIONAL, G, CT_NONE, 8, CV0}, STR("path"), MAP("partitionValues"), I64("size"),
        I64("modificationTime"), BOOL("dataChange"), MAP("tags"), DV, STR("stats"),
    {"remove", PQ_OPTIONAL, G, CT_NONE, 7, CV0}, STR("path"), I64("deletionTimestamp"), BOOL("dataChange"),
        BOOL("extendedFileMetadata"), MAP("partitionValues"), I64("size"), DV,
    {"metaData", PQ_OPTIONAL, G, CT_NONE, 8, CV0}, STR("id"), STR("name"), STR("description"),
        {"format", PQ_OPTIONAL, G, CT_NONE, 2, CV0}, STR("provider"), MAP("options"),
        STR("schemaString"), LIST("partitionColumns"), MAP("configuration"), I64("createdTime"),
    {"protocol", PQ_OPTIONAL, G, CT_NONE, 4, CV0}, I32("minReaderVersion"), I32("minWriterVersion"),
        LIST("readerFeatures"), LIST("writerFeatures"),
    {"domainMetadata", PQ_OPTIONAL, G, CT_NONE, 3, CV0}, STR("domain"), STR("configuration"), BOOL("removed"),
};
#define BASE_N ((int)(sizeof base_schema / sizeof base_schema[0]))

typedef struct cw_leaf {
    tn_buf reps, defs;               /* uint32 each */
    tn_buf vals;                     /* PLAIN bytes (booleans: one byte each, packed later) */
    uint32_t nlev;
} cw_leaf;

typedef struct cw {
    const cw_def *schema;            /* DFS order; node 0 is the root */
    int n;
    int *parent, *def, *rep, *leaf, *last_desc;   /* per node (last_desc: end of its subtree) */
    cw_leaf *leaves;
    int nleaves;
} cw;

static int build(cw *w, tn_arena *arena, const cw_def *schema, int n) {
    int stack[16], left[16], depth = 0;
    memset(w, 0, sizeof *w);
    w->schema = schema;
    w->n = n;
    w->parent = tn_arena_calloc(arena, sizeof(int) * (size_t)n);
    w->def = tn_arena_calloc(arena, sizeof(int) * (size_t)n);
    w->rep = tn_arena_calloc(arena, sizeof(int) * (size_t)n);
    w->leaf = tn_arena_calloc(arena, sizeof(int) * (size_t)n);
    w->last_desc = tn_arena_calloc(arena, sizeof(int) * (size_t)n);
    w->leaves = tn_calloc((size_t)n, sizeof *w->leaves);
    if (!w->parent || !w->def || !w->rep || !w->leaf || !w->last_desc || !w->leaves) return TN_ENOMEM;
    for (int i = 0; i < n; i++) {
        w->leaf[i] = -1;
        if (i > 0) {
            while (left[depth - 1] == 0) depth--;
            int p = stack[depth - 1];
            left[depth - 1]--;
            w->parent[i] = p;
            w->def[i] = w->def[p] + (schema[i].rep != PQ_REQUIRED);
            w->rep[i] = w->rep[p] + (schema[i].rep == PQ_REPEATED);
        }
        if (schema[i].nchildren) {
            if (depth == 16) return tn_error_set(TN_EINTERNAL, "checkpoint: schema too deep");
            stack[depth] = i;
            left[depth] = schema[i].nchildren;
            depth++;
        } else {
            w->leaf[i] = w->nleaves++;
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        w->last_desc[i] = i;
        if (schema[i].nchildren) {
            int c = i + 1, last = c;
            for (int k = 0; k < schema[i].nchildren; k++) {
                last = c;
                c = w->last_desc[c] + 1;
            }
            w->last_desc[i] = w->last_desc[last];
        }
    }
    return 0;
}

/* The k-th child of node (DFS order: a child's subtree ends where its next sibling starts). */
static int child(const cw *w, int node, int k) {
    int c = node + 1;
    while (k-- > 0) c = w->last_desc[c] + 1;
    return c;
}

/* The Parquet PLAIN bytes of JSON value v for leaf d; *ok false when v does not convert (a
 * stats or partition text that is not of the column's type: written as null). */
static int leaf_bytes(const cw_def *d, json_t *v, uint8_t *b, size_t *len, bool *ok) {
    *ok = true;
    const char *txt = json_is_string(v) ? json_string_value(v) : NULL;
    size_t tl = txt ? json_string_length(v) : 0;
    switch (d->cv) {
    case CV_INT: {
        long long x;
        if (json_is_integer(v)) x = json_integer_value(v);
        else if (txt) {
            char *end;
            x = strtoll(txt, &end, 10);
            if (tl == 0 || *end) { *ok = false; return 0; }
        } else { *ok = false; return 0; }
        tn_store_u64le(b, (uint64_t)x);
        *len = d->type == PQ_INT32 ? 4 : 8;
        return 0;
    }
    case CV_F32: case CV_F64: {
        double x;
        if (json_is_number(v)) x = json_number_value(v);
        else if (txt) {
            char *end;
            x = strtod(txt, &end);
            if (tl == 0 || *end) { *ok = false; return 0; }
        } else { *ok = false; return 0; }
        if (d->cv == CV_F32) {
            float f = (float)x;
            memcpy(b, &f, 4);
            *len = 4;
        } else {
            memcpy(b, &x, 8);
            *len = 8;
        }
        return 0;
    }
    case CV_BOOL:
        if (json_is_boolean(v)) b[0] = json_is_true(v);
        else if (txt && (strcmp(txt, "true") == 0 || strcmp(txt, "false") == 0)) b[0] = txt[0] == 't';
        else { *ok = false; return 0; }
        *len = 1;
        return 0;
    case CV_DATE: {
        int32_t days;
        if (!txt || tn_text_to_date(txt, tl, &days) != 0) { tn_error_clear(); *ok = false; return 0; }
        tn_store_u32le(b, (uint32_t)days);
        *len = 4;
        return 0;
    }
    case CV_TS: {
        int64_t us;
        bool zone;
        if (!txt || tn_text_to_timestamp_us(txt, tl, &us, &zone) != 0) { tn_error_clear(); *ok = false; return 0; }
        tn_store_u64le(b, (uint64_t)us);
        *len = 8;
        return 0;
    }
    case CV_DEC: {
        char tmp[64];
        tn_int128 u;
        if (txt && tl < sizeof tmp) {
            memcpy(tmp, txt, tl);
            tmp[tl] = 0;
        } else if (json_is_integer(v)) {
            snprintf(tmp, sizeof tmp, "%lld", (long long)json_integer_value(v));
        } else if (json_is_real(v) && d->precision <= 15) {
            snprintf(tmp, sizeof tmp, "%.*f", d->scale, json_real_value(v));   /* exact at <= 15 digits */
        } else {
            *ok = false;
            return 0;
        }
        if (tn_text_to_decimal(tmp, strlen(tmp), d->scale, &u) != 0) { tn_error_clear(); *ok = false; return 0; }
        if (d->type == PQ_INT32 || d->type == PQ_INT64) {
            tn_store_u64le(b, (uint64_t)(int64_t)u);
            *len = d->type == PQ_INT32 ? 4 : 8;
        } else {
            for (int k = d->type_length - 1; k >= 0; k--) {   /* big-endian two's complement */
                b[k] = (uint8_t)(u & 0xff);
                u >>= 8;
            }
            *len = (size_t)d->type_length;
        }
        return 0;
    }
    default: break;
    }
    switch (d->type) {
    case PQ_INT32:
    case PQ_INT64:
        if (!json_is_integer(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not an integer", d->name);
        tn_store_u64le(b, (uint64_t)json_integer_value(v));
        *len = d->type == PQ_INT32 ? 4 : 8;
        return 0;
    case PQ_BOOLEAN:
        if (!json_is_boolean(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a boolean", d->name);
        b[0] = json_is_true(v);
        *len = 1;
        return 0;
    default:
        return tn_error_set(TN_EINTERNAL, "checkpoint: bad schema type");
    }
}

static int emit(cw *w, int node, uint32_t r, uint32_t d, json_t *v) {
    cw_leaf *l = &w->leaves[w->leaf[node]];
    const cw_def *sd = &w->schema[node];
    int rc;
    uint8_t b[32];
    size_t len = 0;
    bool ok = true;
    if (v && sd->type == PQ_BYTE_ARRAY) {
        if (!json_is_string(v)) {
            if (sd->cv == CV_AS_IS) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a string", sd->name);
            ok = false;              /* a stats value of another type: no value */
        }
    } else if (v) {
        if ((rc = leaf_bytes(sd, v, b, &len, &ok))) return rc;
    }
    if (v && !ok) {
        v = NULL;
        if (d >= (uint32_t)w->def[node]) d = (uint32_t)w->def[node] - 1;
    }
    if ((rc = tn_buf_append(&l->reps, &r, 4)) || (rc = tn_buf_append(&l->defs, &d, 4))) return rc;
    l->nlev++;
    if (!v) {
        if (sd->rep == PQ_REQUIRED && d >= (uint32_t)w->def[node])
            return tn_error_set(TN_EINVAL, "checkpoint: required field '%s' is null", sd->name);
        return 0;
    }
    if (sd->type == PQ_BYTE_ARRAY) {
        size_t n = json_string_length(v);
        tn_store_u32le(b, (uint32_t)n);
        if ((rc = tn_buf_append(&l->vals, b, 4))) return rc;
        return tn_buf_append(&l->vals, json_string_value(v), n);
    }
    return tn_buf_append(&l->vals, b, len);
}

static int emit_nulls(cw *w, int node, uint32_t r, uint32_t d) {
    for (int i = node; i <= w->last_desc[node]; i++)
        if (w->leaf[i] >= 0) {
            int rc = emit(w, i, r, d, NULL);
            if (rc) return rc;
        }
    return 0;
}

static int shred(cw *w, int node, json_t *v, uint32_t r, uint32_t d) {
    const cw_def *s = &w->schema[node];
    int rc = 0;
    if (v && json_is_null(v)) v = NULL;
    if (w->leaf[node] >= 0) return v ? emit(w, node, r, (uint32_t)w->def[node], v) : emit(w, node, r, d, NULL);
    if (!v) return emit_nulls(w, node, r, d);
    if (s->ct == CT_MAP || s->ct == CT_LIST) {
        int kv = child(w, node, 0);
        uint32_t kd = (uint32_t)w->def[kv], kr = (uint32_t)w->rep[kv];
        size_t i = 0;
        if (s->ct == CT_MAP) {
            if (!json_is_object(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a map", s->name);
            if (json_object_size(v) == 0) return emit_nulls(w, kv, r, (uint32_t)w->def[node]);
            const char *key;
            json_t *val;
            json_object_foreach(v, key, val) {
                uint32_t rr = i++ == 0 ? r : kr;
                json_t *k = json_string(key);
                if (!k) return tn_error_set(TN_ENOMEM, "out of memory");
                rc = emit(w, child(w, kv, 0), rr, kd, k);
                json_decref(k);
                if (rc || (rc = shred(w, child(w, kv, 1), val, rr, kd))) return rc;
            }
        } else {
            if (!json_is_array(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a list", s->name);
            if (json_array_size(v) == 0) return emit_nulls(w, kv, r, (uint32_t)w->def[node]);
            for (i = 0; i < json_array_size(v); i++)
                if ((rc = shred(w, child(w, kv, 0), json_array_get(v, i), i == 0 ? r : kr, kd))) return rc;
        }
        return 0;
    }
    if (!json_is_object(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not an object", s->name);
    for (int c = 0; c < s->nchildren; c++) {
        int ch = child(w, node, c);
        if ((rc = shred(w, ch, json_object_get(v, w->schema[ch].name), r, (uint32_t)w->def[node]))) return rc;
    }
    return 0;
}

/* One action row; with `parsed`, an add also gets stats_parsed (its stats JSON) and
 * partitionValues_parsed (its partition values), converted to the typed leaves by emit. */
static int add_row(cw *w, const tn_delta_action *a, bool parsed, int64_t *nrows) {
    json_t *row = dl_action_to_json(a);
    if (!row) return tn_error_code_last() ? tn_error_code_last() : TN_ENOMEM;
    if (parsed && a->kind == TN_DELTA_ADD) {
        json_t *add = json_object_get(row, "add");
        json_t *pv = json_object_get(add, "partitionValues");
        if (pv) json_object_set_new(add, "partitionValues_parsed", json_deep_copy(pv));
        json_t *st = a->u.file.stats ? json_loads(a->u.file.stats, JSON_DECODE_ANY, NULL) : NULL;
        if (json_is_object(st)) json_object_set_new(add, "stats_parsed", st);
        else json_decref(st);
    }
    int rc = shred(w, 0, row, 0, 0);
    json_decref(row);
    if (rc == 0) (*nrows)++;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The schema of one checkpoint: the base layout, add.stats as writeStatsAsJson says, and the
 * typed add.partitionValues_parsed / add.stats_parsed when writeStatsAsStruct is true.
 */
static bool leaf_for(cw_def *d, const char *name, tn_type t) {
    memset(d, 0, sizeof *d);
    d->name = name;
    d->rep = PQ_OPTIONAL;
    d->ct = CT_NONE;
    switch (t.id) {
    case TN_TYPE_TINYINT: d->type = PQ_INT32; d->ct = PQ_CT_INT_8; d->cv = CV_INT; return true;
    case TN_TYPE_SMALLINT: d->type = PQ_INT32; d->ct = PQ_CT_INT_16; d->cv = CV_INT; return true;
    case TN_TYPE_INTEGER: d->type = PQ_INT32; d->cv = CV_INT; return true;
    case TN_TYPE_BIGINT: d->type = PQ_INT64; d->cv = CV_INT; return true;
    case TN_TYPE_FLOAT: d->type = PQ_FLOAT; d->cv = CV_F32; return true;
    case TN_TYPE_DOUBLE: d->type = PQ_DOUBLE; d->cv = CV_F64; return true;
    case TN_TYPE_BOOLEAN: d->type = PQ_BOOLEAN; d->cv = CV_BOOL; return true;
    case TN_TYPE_VARCHAR: d->type = PQ_BYTE_ARRAY; d->ct = CT_UTF8; d->cv = CV_STR; return true;
    case TN_TYPE_VARBINARY: d->type = PQ_BYTE_ARRAY; d->cv = CV_STR; return true;
    case TN_TYPE_DATE: d->type = PQ_INT32; d->ct = PQ_CT_DATE; d->lt = PQ_LT_DATE; d->cv = CV_DATE; return true;
    case TN_TYPE_TIMESTAMP_TZ:
        d->type = PQ_INT64; d->ct = PQ_CT_TIMESTAMP_MICROS; d->lt = PQ_LT_TIMESTAMP; d->utc = true; d->cv = CV_TS;
        return true;
    case TN_TYPE_TIMESTAMP: d->type = PQ_INT64; d->lt = PQ_LT_TIMESTAMP; d->utc = false; d->cv = CV_TS; return true;
    case TN_TYPE_DECIMAL: {
        d->precision = t.precision;
        d->scale = t.scale;
        d->ct = PQ_CT_DECIMAL;
        d->lt = PQ_LT_DECIMAL;
        d->cv = CV_DEC;
        if (t.precision <= 9) d->type = PQ_INT32;
        else if (t.precision <= 18) d->type = PQ_INT64;
        else {
            d->type = PQ_FIXED_LEN_BYTE_ARRAY;
            int n = 1;                       /* Spark's minBytesForPrecision */
            while (pow(2.0, 8.0 * n - 1) < pow(10.0, t.precision)) n++;
            d->type_length = n;
        }
        return true;
    }
    default: return false;
    }
}

static bool has_min_max(tn_type t) {
    return t.id != TN_TYPE_BOOLEAN && t.id != TN_TYPE_VARBINARY;
}

static int checkpoint_schema(const tn_delta_snapshot *snap, tn_arena *arena, cw_def **out, int *nout, bool *parsed) {
    const tn_delta_metadata *md = &snap->metadata;
    const char *js = tn_delta_config_get(md, "delta.checkpoint.writeStatsAsJson");
    const char *ss = tn_delta_config_get(md, "delta.checkpoint.writeStatsAsStruct");
    bool as_json = !(js && tn_str_iequal(js, "false"));
    bool as_struct = ss && tn_str_iequal(ss, "true");
    bool tight = tn_delta_protocol_supports(&snap->protocol, "deletionVectors");
    *parsed = as_struct;
    cw base;
    tn_arena *tmp = tn_arena_create(0);
    if (!tmp) return TN_ENOMEM;
    int rc = build(&base, tmp, base_schema, BASE_N);
    int add = rc ? 0 : child(&base, 0, 1), stats = rc ? 0 : base.last_desc[add];
    tn_free(base.leaves);
    tn_arena_destroy(tmp);
    if (rc) return rc;
    uint32_t nc = md->ncolumns;
    cw_def *d = tn_arena_calloc(arena, sizeof *d * (size_t)(BASE_N + 8 + 4 * nc));
    if (!d) return TN_ENOMEM;
    int n = 0;
    for (int i = 0; i < stats; i++) d[n++] = base_schema[i];
    int add_children = base_schema[add].nchildren - 1;
    if (as_json) {
        d[n++] = base_schema[stats];
        add_children++;
    }
    if (as_struct) {
        /* partitionValues_parsed */
        int at = n++, k = 0;
        for (uint32_t p = 0; p < md->npartition_columns; p++)
            for (uint32_t i = 0; i < nc; i++)
                if (strcmp(md->columns[i].name, md->partition_columns[p]) == 0 && !md->columns[i].nested &&
                    leaf_for(&d[n], md->columns[i].physical_name, md->columns[i].type)) {
                    n++;
                    k++;
                }
        if (k) {
            d[at] = (cw_def){"partitionValues_parsed", PQ_OPTIONAL, G, CT_NONE, k, 0, 0, 0, 0, 0, false};
            add_children++;
        } else {
            n = at;
        }
        /* stats_parsed */
        int sp = n++, spk = 0;
        d[n++] = (cw_def){"numRecords", PQ_OPTIONAL, PQ_INT64, CT_NONE, 0, CV_INT, 0, 0, 0, 0, false};
        spk++;
        for (int pass = 0; pass < 3; pass++) {
            static const char *const groups[] = {"minValues", "maxValues", "nullCount"};
            int g = n++, gk = 0;
            for (uint32_t i = 0; i < nc; i++) {
                const tn_delta_column *c = &md->columns[i];
                if (c->is_partition || c->nested) continue;
                if (pass < 2) {
                    if (!has_min_max(c->type) || !leaf_for(&d[n], c->physical_name, c->type)) continue;
                } else {
                    d[n] = (cw_def){c->physical_name, PQ_OPTIONAL, PQ_INT64, CT_NONE, 0, CV_INT, 0, 0, 0, 0, false};
                }
                n++;
                gk++;
            }
            if (gk) {
                d[g] = (cw_def){groups[pass], PQ_OPTIONAL, G, CT_NONE, gk, 0, 0, 0, 0, 0, false};
                spk++;
            } else {
                n = g;
            }
        }
        if (tight) {
            d[n++] = (cw_def){"tightBounds", PQ_OPTIONAL, PQ_BOOLEAN, CT_NONE, 0, CV_BOOL, 0, 0, 0, 0, false};
            spk++;
        }
        d[sp] = (cw_def){"stats_parsed", PQ_OPTIONAL, G, CT_NONE, spk, 0, 0, 0, 0, 0, false};
        add_children++;
    }
    for (int i = stats + 1; i < BASE_N; i++) d[n++] = base_schema[i];
    d[add].nchildren = add_children;
    *out = d;
    *nout = n;
    return 0;
}

static void fill_element(pq_schema_element *e, const cw_def *d) {
    memset(e, 0, sizeof *e);
    e->type = d->type;
    e->type_length = d->type == PQ_FIXED_LEN_BYTE_ARRAY ? d->type_length : -1;
    e->repetition = d->rep;
    e->name = (char *)d->name;
    e->num_children = d->nchildren;
    e->converted_type = d->ct;
    e->scale = e->precision = -1;
    e->field_id = -1;
    e->logical.kind = d->ct == CT_UTF8 ? PQ_LT_STRING : d->ct == CT_MAP ? PQ_LT_MAP
                    : d->ct == CT_LIST ? PQ_LT_LIST : d->lt;
    if (d->lt == PQ_LT_DECIMAL) {
        e->scale = e->logical.scale = d->scale;
        e->precision = e->logical.precision = d->precision;
    } else if (d->lt == PQ_LT_TIMESTAMP) {
        e->logical.unit = PQ_UNIT_MICROS;
        e->logical.adjusted_to_utc = d->utc;
    }
}

/* Encodes the whole file into out. */
static int encode_file(cw *w, tn_arena *arena, int64_t nrows, tn_buf *out) {
    int rc;
    pq_file_meta fm;
    pq_row_group rg;
    tn_buf page = TN_BUF_INIT, comp = TN_BUF_INIT, hdr = TN_BUF_INIT;
    memset(&fm, 0, sizeof fm);
    memset(&rg, 0, sizeof rg);
    if ((rc = tn_buf_append(out, "PAR1", 4))) goto cleanup;
    fm.version = 1;
    fm.nschema = (uint32_t)w->n;
    fm.schema = tn_arena_calloc(arena, sizeof *fm.schema * (size_t)w->n);
    rg.columns = tn_arena_calloc(arena, sizeof *rg.columns * (size_t)w->nleaves);
    if (!fm.schema || !rg.columns) { rc = TN_ENOMEM; goto cleanup; }
    for (int i = 0; i < w->n; i++) fill_element(&fm.schema[i], &w->schema[i]);
    fm.schema[0].repetition = -1;
    rg.ncolumns = (uint32_t)w->nleaves;
    rg.num_rows = nrows;
    int64_t total = 0;
    for (int node = 0; node < w->n; node++) {
        if (w->leaf[node] < 0) continue;
        cw_leaf *l = &w->leaves[w->leaf[node]];
        pq_column_chunk *cc = &rg.columns[w->leaf[node]];
        tn_buf_clear(&page);
        tn_buf_clear(&comp);
        tn_buf_clear(&hdr);
        for (int pass = 0; pass < 2; pass++) {          /* repetition, then definition levels */
            int max = pass == 0 ? w->rep[node] : w->def[node];
            if (max == 0) continue;
            size_t at = page.len;
            uint8_t zero[4] = {0, 0, 0, 0};
            if ((rc = tn_buf_append(&page, zero, 4))) goto cleanup;
            if ((rc = pq_rle_encode(&page, pq_bit_width((uint64_t)max),
                                    (const uint32_t *)(pass == 0 ? l->reps.data : l->defs.data), l->nlev)))
                goto cleanup;
            tn_store_u32le(page.data + at, (uint32_t)(page.len - at - 4));
        }
        if (w->schema[node].type == PQ_BOOLEAN) {
            if ((rc = pq_plain_bool_encode(&page, l->vals.data, (uint32_t)l->vals.len))) goto cleanup;
        } else if (l->vals.len && (rc = tn_buf_append(&page, l->vals.data, l->vals.len))) {
            goto cleanup;
        }
        if ((rc = pq_compress(TN_CODEC_SNAPPY, 0, page.data, page.len, &comp))) goto cleanup;
        pq_page_header h;
        memset(&h, 0, sizeof h);
        h.type = PQ_PAGE_DATA;
        h.uncompressed_page_size = (int32_t)page.len;
        h.compressed_page_size = (int32_t)comp.len;
        h.has_data = true;
        h.data.num_values = (int32_t)l->nlev;
        h.data.encoding = PQ_ENC_PLAIN;
        h.data.definition_level_encoding = PQ_ENC_RLE;
        h.data.repetition_level_encoding = PQ_ENC_RLE;
        if ((rc = pq_encode_page_header(&hdr, &h))) goto cleanup;
        int64_t offset = (int64_t)out->len;
        if ((rc = tn_buf_append(out, hdr.data, hdr.len)) || (rc = tn_buf_append(out, comp.data, comp.len))) goto cleanup;
        pq_column_meta *m = &cc->meta;
        cc->file_offset = offset;
        cc->has_meta_data = true;
        m->type = w->schema[node].type;
        m->encodings = tn_arena_alloc(arena, 2 * sizeof(int));
        int depth = 0;
        for (int n = node; n > 0; n = w->parent[n]) depth++;
        m->path = tn_arena_alloc(arena, sizeof(char *) * (size_t)depth);
        if (!m->encodings || !m->path) { rc = TN_ENOMEM; goto cleanup; }
        m->encodings[0] = PQ_ENC_PLAIN;
        m->encodings[1] = PQ_ENC_RLE;
        m->nencodings = 2;
        m->npath = (uint32_t)depth;
        for (int n = node, k = depth; n > 0; n = w->parent[n]) m->path[--k] = (char *)w->schema[n].name;
        m->codec = TN_CODEC_SNAPPY;
        m->num_values = l->nlev;
        m->total_uncompressed_size = (int64_t)(hdr.len + page.len);
        m->total_compressed_size = (int64_t)(hdr.len + comp.len);
        m->data_page_offset = offset;
        total += m->total_compressed_size;
    }
    rg.total_byte_size = total;
    fm.num_rows = nrows;
    fm.row_groups = &rg;
    fm.nrow_groups = 1;
    fm.created_by = (char *)"tarn delta checkpoint writer";
    size_t at = out->len;
    if ((rc = pq_encode_file_meta(out, &fm))) goto cleanup;
    uint8_t tail[8];
    tn_store_u32le(tail, (uint32_t)(out->len - at));
    memcpy(tail + 4, "PAR1", 4);
    rc = tn_buf_append(out, tail, 8);
cleanup:
    tn_buf_free(&page);
    tn_buf_free(&comp);
    tn_buf_free(&hdr);
    return rc;
}

/* temp + fsync + link (put-if-absent); *existed when the target was already there. */
static int write_new_file(tn_fs *fs, const char *log, const char *final, const tn_buf *data, bool *existed) {
    char rnd[17], tmp[4096];
    tn_file *f = NULL;
    dl_random_hex(rnd, 16);
    snprintf(tmp, sizeof tmp, "%s/.tarn-%s.tmp", log, rnd);
    *existed = false;
    int rc = fs->open_write(fs, tmp, true, &f);
    if (rc) return rc;
    if ((rc = fs->write(fs, f, data->data, data->len)) == 0) rc = fs->sync(fs, f);
    int rc2 = fs->close(fs, f);
    if (rc == 0) rc = rc2;
    if (rc == 0) {
        rc = fs->link(fs, tmp, final);
        if (rc == TN_EEXISTS) { *existed = true; rc = 0; tn_error_clear(); }
    }
    tn_error_state saved;
    tn_error_save(&saved);
    fs->unlink(fs, tmp);
    tn_error_restore(&saved);
    if (rc == 0) tn_error_clear();
    return rc;
}

int tn_delta_checkpoint_write(tn_fs *fs, const tn_delta_snapshot *snap) {
    cw *w = tn_calloc(1, sizeof *w);
    tn_arena *arena = tn_arena_create(0);
    tn_buf file = TN_BUF_INIT, lc = TN_BUF_INIT;
    int64_t nrows = 0;
    int rc = 0;
    if (!w || !arena) { rc = TN_ENOMEM; goto cleanup; }
    cw_def *schema = NULL;
    int nschema = 0;
    bool parsed = false;
    if ((rc = checkpoint_schema(snap, arena, &schema, &nschema, &parsed))) goto cleanup;
    if ((rc = build(w, arena, schema, nschema))) goto cleanup;
    tn_delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = TN_DELTA_PROTOCOL;
    a.u.protocol = snap->protocol;
    if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    a.kind = TN_DELTA_METADATA;
    a.u.metadata = snap->metadata;
    if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    for (uint32_t i = 0; i < snap->ntxns; i++) {
        a.kind = TN_DELTA_TXN;
        a.u.txn = snap->txns[i];
        if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    }
    for (uint32_t i = 0; i < snap->ndomains; i++) {
        a.kind = TN_DELTA_DOMAIN_METADATA;
        a.u.domain = snap->domains[i];
        if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    }
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        a.kind = TN_DELTA_ADD;
        a.u.file = snap->files[i];
        a.u.file.data_change = false;
        a.u.file.has_base_row_id = a.u.file.has_default_row_commit_version = false;
        a.u.file.clustering_provider = NULL;
        if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    }
    /* Tombstones younger than delta.deletedFileRetentionDuration (7 days; fixed here). */
    int64_t cutoff = tn_time_now_us() / 1000 - (int64_t)7 * 24 * 3600 * 1000;
    for (uint32_t i = 0; i < snap->ntombstones; i++) {
        const tn_delta_file *t = &snap->tombstones[i];
        if (t->has_deletion_timestamp && t->deletion_timestamp < cutoff) continue;
        a.kind = TN_DELTA_REMOVE;
        a.u.file = *t;
        a.u.file.data_change = false;
        a.u.file.stats = NULL;
        a.u.file.ntags = 0;
        a.u.file.has_base_row_id = a.u.file.has_default_row_commit_version = false;
        a.u.file.clustering_provider = NULL;
        if ((rc = add_row(w, &a, parsed, &nrows))) goto cleanup;
    }
    if ((rc = encode_file(w, arena, nrows, &file))) goto cleanup;
    const char *final = tn_arena_printf(arena, "%s/%020" PRId64 ".checkpoint.parquet", snap->log_path, snap->version);
    if (!final) { rc = TN_ENOMEM; goto cleanup; }
    bool existed;
    if ((rc = write_new_file(fs, snap->log_path, final, &file, &existed))) goto cleanup;

    /* _last_checkpoint: never move it backwards. */
    {
        tn_buf old = TN_BUF_INIT;
        const char *lp = tn_arena_printf(arena, "%s/_last_checkpoint", snap->log_path);
        if (!lp) { rc = TN_ENOMEM; goto cleanup; }
        if (tn_fs_read_all(fs, lp, &old) == 0) {
            json_t *j = json_loadb((const char *)old.data, old.len, 0, NULL);
            json_t *v = json_object_get(j, "version");
            bool newer = json_is_integer(v) && json_integer_value(v) >= snap->version;
            json_decref(j);
            tn_buf_free(&old);
            if (newer) goto cleanup;
        }
        tn_buf_free(&old);
        tn_error_clear();
        if ((rc = tn_buf_printf(&lc, "{\"version\":%" PRId64 ",\"size\":%" PRId64 ",\"sizeInBytes\":%zu,"
                                "\"numOfAddFiles\":%u}\n", snap->version, nrows, file.len, snap->nfiles)))
            goto cleanup;
        char rnd[17];
        dl_random_hex(rnd, 16);
        const char *tmp = tn_arena_printf(arena, "%s/.tarn-%s.tmp", snap->log_path, rnd);
        if (!tmp) { rc = TN_ENOMEM; goto cleanup; }
        if ((rc = tn_fs_write_all(fs, tmp, lc.data, lc.len, true)) == 0)
            rc = fs->rename(fs, tmp, lp);            /* a hint file: replacing it is the point */
        if (rc) {
            tn_error_state saved;
            tn_error_save(&saved);
            fs->unlink(fs, tmp);
            tn_error_restore(&saved);
        }
    }
cleanup:
    if (w && w->leaves)
        for (int i = 0; i < w->nleaves; i++) {
            tn_buf_free(&w->leaves[i].reps);
            tn_buf_free(&w->leaves[i].defs);
            tn_buf_free(&w->leaves[i].vals);
        }
    if (w) tn_free(w->leaves);
    tn_free(w);
    tn_buf_free(&file);
    tn_buf_free(&lc);
    tn_arena_destroy(arena);
    return rc;
}

int64_t tn_delta_checkpoint_interval(const tn_delta_metadata *md) {
    const char *iv = md ? tn_delta_config_get(md, "delta.checkpointInterval") : NULL;
    long long n = iv ? atoll(iv) : 0;
    return n > 0 ? n : 10;
}

int tn_delta_maybe_checkpoint(tn_fs *fs, const char *table_path, int64_t version, int64_t interval) {
    /* No I/O unless the table's interval divides the version: the caller passes the interval in
     * force at `version` (the committed metaData's, else the snapshot's it read). */
    if (interval <= 0) interval = 10;
    if (version <= 0 || version % interval != 0) return 0;
    tn_delta_snapshot *snap = NULL;
    tn_delta_open_options o = TN_DELTA_OPEN_OPTIONS_INIT;
    o.at_version = version;
    int rc = tn_delta_snapshot_open(&snap, fs, table_path, &o);
    if (rc) return rc;
    /* also when the checkpoint exists but _last_checkpoint is behind it (a writer killed between
     * the two): checkpoint_write keeps the existing file and moves the hint up */
    bool hint_behind = !snap->last_checkpoint.present || snap->last_checkpoint.version < version;
    if (snap->checkpoint_version != version || hint_behind) rc = tn_delta_checkpoint_write(fs, snap);
    tn_delta_snapshot_free(snap);
    return rc;
}
