/*
 * layout/otree/revision.c: qbeast's Revision JSON ('qbeast.revision.N'): revisionID, timestamp,
 * tableID, desiredCubeSize, columnTransformers (className, columnName, dataType) and
 * transformations (className + the fields of each: LinearTransformation min/max/nullValue,
 * HashTransformation nullValue, quantiles, the legacy string histogram, Identity/Empty), parsed
 * and validated; and the coordinate of a value under a transformation.
 */
#include "layout/otree/otreeInt.h"

#include <math.h>
#include <string.h>

/* The class name after the package ("io.qbeast.core.transform.X" -> "X"); NULL if not qbeast's. */
static const char *class_simple(const char *cls) {
    if (!cls || strncmp(cls, "io.qbeast.", 10) != 0) return NULL;
    const char *dot = strrchr(cls, '.');
    return dot ? dot + 1 : NULL;
}

static int bad(const char *what, const char *detail) {
    return tn_error_set(TN_ECORRUPT, "revision JSON: %s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

static bool num(json_t *o, const char *key, double *out) {
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_number(v)) return false;
    *out = json_number_value(v);
    return true;
}

static int parse_transformer(json_t *j, ot_column *c, tn_arena *a) {
    if (!json_is_object(j)) return bad("a columnTransformers entry is not an object", NULL);
    const char *cls = class_simple(json_string_value(json_object_get(j, "className")));
    const char *name = json_string_value(json_object_get(j, "columnName"));
    if (!cls) return bad("a column transformer has no qbeast className", NULL);
    if (!name || !name[0]) return bad("a column transformer has no columnName", NULL);
    c->name = tn_arena_strdup(a, name);
    const char *dt = json_string_value(json_object_get(j, "dataType"));
    c->data_type = dt ? tn_arena_strdup(a, dt) : NULL;
    c->table_column = -1;
    if (strcmp(cls, "EmptyTransformer") == 0) c->transformer = "empty";
    else if (strcmp(cls, "LinearTransformer") == 0) c->transformer = "linear";
    else if (strcmp(cls, "HashTransformer") == 0) c->transformer = "hashing";
    else if (strstr(cls, "QuantilesTransformer")) c->transformer = "quantiles";
    else if (strstr(cls, "HistogramTransformer")) c->transformer = "histogram";
    else return bad("unknown column transformer class", cls);
    if (!c->name) return TN_ENOMEM;
    return 0;
}

static int parse_strings(json_t *arr, tn_arena *a, const char ***out, uint32_t *n) {
    size_t k = json_array_size(arr);
    *out = tn_arena_calloc(a, sizeof **out * (k ? k : 1));
    if (!*out) return TN_ENOMEM;
    for (size_t i = 0; i < k; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        if (!s) return bad("a string quantile is not a string", NULL);
        (*out)[i] = tn_arena_strdup(a, s);
    }
    *n = (uint32_t)k;
    return 0;
}

static int parse_transformation(json_t *j, ot_transform *tr, tn_arena *a) {
    memset(tr, 0, sizeof *tr);
    if (!json_is_object(j)) return bad("a transformations entry is not an object", NULL);
    const char *cls = class_simple(json_string_value(json_object_get(j, "className")));
    if (!cls) return bad("a transformation has no qbeast className", NULL);
    if (strcmp(cls, "EmptyTransformation") == 0) {
        tr->kind = OT_T_EMPTY;
    } else if (strcmp(cls, "LinearTransformation") == 0) {
        tr->kind = OT_T_LINEAR;
        if (!num(j, "minNumber", &tr->min) || !num(j, "maxNumber", &tr->max))
            return bad("LinearTransformation without numeric minNumber/maxNumber", NULL);
        if (!(tr->max > tr->min)) return bad("LinearTransformation with maxNumber <= minNumber", NULL);
        if (!num(j, "nullValue", &tr->null_value)) tr->null_value = tr->min;
    } else if (strstr(cls, "IdentityTransformation") || strstr(cls, "IdentityToZero") || strstr(cls, "NullToZero")) {
        tr->kind = OT_T_IDENTITY;
        num(j, "identityValue", &tr->min);
        tr->max = tr->min;
    } else if (strcmp(cls, "HashTransformation") == 0) {
        tr->kind = OT_T_HASH;
        double nv = 0;
        num(j, "nullValue", &nv);
        tr->hash_null = (int32_t)nv;
    } else if (strcmp(cls, "CDFNumericQuantilesTransformation") == 0) {
        tr->kind = OT_T_QUANTILES;
        json_t *q = json_object_get(j, "quantiles");
        if (!json_is_array(q) || json_array_size(q) < 2) return bad("CDFNumericQuantilesTransformation without quantiles", NULL);
        size_t k = json_array_size(q);
        tr->quantiles = tn_arena_alloc(a, sizeof(double) * k);
        if (!tr->quantiles) return TN_ENOMEM;
        for (size_t i = 0; i < k; i++) {
            json_t *v = json_array_get(q, i);
            if (!json_is_number(v)) return bad("a numeric quantile is not a number", NULL);
            tr->quantiles[i] = json_number_value(v);
        }
        tr->nquantiles = (uint32_t)k;
    } else if (strcmp(cls, "CDFStringQuantilesTransformation") == 0 || strcmp(cls, "StringHistogramTransformation") == 0) {
        tr->kind = OT_T_STRING_QUANTILES;
        json_t *q = json_object_get(j, strcmp(cls, "StringHistogramTransformation") == 0 ? "histogram" : "quantiles");
        if (!json_is_array(q) || json_array_size(q) < 2) return bad("string quantiles/histogram missing", cls);
        int rc = parse_strings(q, a, &tr->squantiles, &tr->nquantiles);
        if (rc) return rc;
    } else {
        return bad("unknown transformation class", cls);
    }
    return 0;
}

int ot_revision_parse(ot_revision *out, const char *text, tn_arena *arena) {
    memset(out, 0, sizeof *out);
    json_error_t jerr;
    json_t *root = json_loads(text ? text : "", 0, &jerr);
    if (!root) return tn_error_set(TN_ECORRUPT, "revision JSON: %s (line %d)", jerr.text, jerr.line);
    int rc = 0;
    if (!json_is_object(root)) { rc = bad("not an object", NULL); goto cleanup; }
    json_t *id = json_object_get(root, "revisionID"), *dcs = json_object_get(root, "desiredCubeSize");
    if (!json_is_integer(id) || json_integer_value(id) < 0) { rc = bad("revisionID missing or not a non-negative integer", NULL); goto cleanup; }
    if (!json_is_integer(dcs) || json_integer_value(dcs) <= 0) { rc = bad("desiredCubeSize missing or not a positive integer", NULL); goto cleanup; }
    out->id = json_integer_value(id);
    out->cube_size = json_integer_value(dcs);
    json_t *ts = json_object_get(root, "timestamp");
    out->timestamp = json_is_integer(ts) ? json_integer_value(ts) : 0;
    const char *tid = json_string_value(json_object_get(root, "tableID"));
    out->table_id = tn_arena_strdup(arena, tid ? tid : "");
    json_t *ct = json_object_get(root, "columnTransformers"), *tf = json_object_get(root, "transformations");
    if (!json_is_array(ct) || json_array_size(ct) == 0) { rc = bad("columnTransformers missing or empty", NULL); goto cleanup; }
    if (!json_is_array(tf) || json_array_size(tf) != json_array_size(ct)) {
        rc = bad("transformations missing or not one per column transformer", NULL);
        goto cleanup;
    }
    out->ncols = (uint32_t)json_array_size(ct);
    out->cols = tn_arena_calloc(arena, sizeof *out->cols * out->ncols);
    out->tr = tn_arena_calloc(arena, sizeof *out->tr * out->ncols);
    if (!out->cols || !out->tr || !out->table_id) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < out->ncols && !rc; i++) {
        rc = parse_transformer(json_array_get(ct, i), &out->cols[i], arena);
        if (!rc) rc = parse_transformation(json_array_get(tf, i), &out->tr[i], arena);
    }
cleanup:
    json_decref(root);
    return rc;
}

/* A numeric view of a value, as qbeast orders it (dates and timestamps in milliseconds). */
static bool value_number(const tn_value *v, double *out) {
    switch (v->type.id) {
    case TN_TYPE_TINYINT:
    case TN_TYPE_SMALLINT:
    case TN_TYPE_INTEGER:
    case TN_TYPE_BIGINT: *out = (double)v->u.i; return true;
    case TN_TYPE_FLOAT:
    case TN_TYPE_DOUBLE: *out = v->u.d; return true;
    case TN_TYPE_DECIMAL: {
        double x = tn_type_is_decimal128(v->type) ? (double)v->u.i128 : (double)v->u.i;
        *out = x / pow(10, v->type.scale);
        return true;
    }
    case TN_TYPE_DATE: *out = (double)v->u.i * 86400000.0; return true;
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: *out = floor((double)v->u.i / 1000.0); return true;
    default: return false;
    }
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

double ot_transform_coord(const ot_transform *tr, const tn_value *v) {
    switch (tr->kind) {
    case OT_T_EMPTY:
    case OT_T_IDENTITY: return 0;
    case OT_T_LINEAR: {
        double x = tr->null_value;
        if (!v->is_null && !value_number(v, &x)) return 0;
        /* qbeast's LinearTransformation: (v - min) * scale with scale = 1 / (max - min) (not a
         * division: the same double as qbeast's, so a row lands in the cube qbeast computes) */
        return clamp01((x - tr->min) * (1.0 / (tr->max - tr->min)));
    }
    case OT_T_HASH: {
        int32_t h;
        if (v->is_null) h = tr->hash_null;
        else if (tn_type_is_string(v->type) || v->type.id == TN_TYPE_VARBINARY) {
            h = ot_scala_bytes_hash((const uint8_t *)v->u.s.ptr, v->u.s.len);
        } else {
            tn_buf b = TN_BUF_INIT;
            if (tn_value_to_text(&b, v)) return 0;
            h = ot_scala_bytes_hash(b.data, (uint32_t)b.len);
            tn_buf_free(&b);
        }
        return (double)(h & 0x7fffffff) / 2147483647.0;
    }
    case OT_T_QUANTILES: {
        double x;
        if (v->is_null || !value_number(v, &x)) return 0;
        const double *q = tr->quantiles;
        uint32_t n = tr->nquantiles;
        if (x <= q[0]) return 0;
        if (x >= q[n - 1]) return 1;
        uint32_t lo = 0, hi = n - 1;   /* q[lo] < x < q[hi] after the search */
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (q[mid] == x) return (double)mid / (n - 1);
            if (q[mid] < x) lo = mid;
            else hi = mid;
        }
        double f = (x - q[lo]) / (q[hi] - q[lo]);
        return ((double)lo + f) / (n - 1);
    }
    case OT_T_STRING_QUANTILES: {
        if (v->is_null || !tn_type_is_string(v->type)) return 0;
        uint32_t n = tr->nquantiles, lo = 0, hi = n;   /* first quantile >= v */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            const char *s = tr->squantiles[mid];
            size_t sl = strlen(s), m = sl < v->u.s.len ? sl : v->u.s.len;
            int c = memcmp(s, v->u.s.ptr, m);
            if (c == 0) c = sl < v->u.s.len ? -1 : sl > v->u.s.len ? 1 : 0;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < n && strlen(tr->squantiles[lo]) == v->u.s.len && memcmp(tr->squantiles[lo], v->u.s.ptr, v->u.s.len) == 0)
            return (double)lo / (n - 1);
        return clamp01(((double)lo - 1) / (n - 1));
    }
    }
    return 0;
}
