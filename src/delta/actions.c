/*
 * delta/actions.c: Delta log actions <-> JSON (jansson): parse one line or one checkpoint row
 * into a tn_delta_action (arena strings), serialize an action back to one compact line; the
 * Spark StructType schemaString <-> tarn columns; URI encoding of paths. Unknown fields are
 * ignored. Owns no I/O.
 */
#include "delta/deltaInt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Field helpers. `what` is the action name for messages ("add: missing 'path'").
 */
static const char *dup_str(tn_arena *arena, json_t *v) {
    return tn_arena_strndup(arena, json_string_value(v), json_string_length(v));
}

/* The member `key` of obj, or NULL when it is absent or JSON null: then *rc is 0, or the
 * "missing" error when the field is required. `present` (optional) starts false; the getters set
 * it once the value has been read. */
static json_t *member(int *rc, bool *present, json_t *obj, const char *key, bool required,
                      const char *what) {
    json_t *v = json_object_get(obj, key);
    *rc = 0;
    if (present) *present = false;
    if (v && !json_is_null(v)) return v;
    if (required) *rc = tn_error_set(TN_ECORRUPT, "%s: missing '%s'", what, key);
    return NULL;
}

static int get_str(const char **out, tn_arena *arena, json_t *obj, const char *key, bool required,
                   const char *what) {
    int rc;
    json_t *v = member(&rc, NULL, obj, key, required, what);
    *out = NULL;
    if (!v) return rc;
    if (!json_is_string(v)) return tn_error_set(TN_ECORRUPT, "%s: '%s' is not a string", what, key);
    *out = dup_str(arena, v);
    return *out ? 0 : TN_ENOMEM;
}

static int get_i64(int64_t *out, bool *present, json_t *obj, const char *key, bool required,
                   const char *what) {
    int rc;
    json_t *v = member(&rc, present, obj, key, required, what);
    if (!v) return rc;
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
    } else if (json_is_string(v)) {   /* some writers quote numbers */
        char *end = NULL;
        const char *s = json_string_value(v);
        long long x = strtoll(s, &end, 10);
        if (!*s || *end) return tn_error_set(TN_ECORRUPT, "%s: '%s' is not an integer", what, key);
        *out = x;
    } else {
        return tn_error_set(TN_ECORRUPT, "%s: '%s' is not an integer", what, key);
    }
    if (present) *present = true;
    return 0;
}

static int get_bool(bool *out, bool *present, json_t *obj, const char *key, bool required,
                    const char *what) {
    int rc;
    json_t *v = member(&rc, present, obj, key, required, what);
    if (!v) return rc;
    if (!json_is_boolean(v)) return tn_error_set(TN_ECORRUPT, "%s: '%s' is not a boolean", what, key);
    *out = json_is_true(v);
    if (present) *present = true;
    return 0;
}

/* Text of a scalar map value: strings as is, numbers/booleans in JSON spelling, null -> NULL. */
static int scalar_text(const char **out, tn_arena *arena, json_t *v, const char *what,
                       const char *key) {
    *out = NULL;
    if (json_is_null(v)) return 0;
    if (json_is_string(v)) {
        *out = dup_str(arena, v);
    } else if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v)) {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        if (!s) return tn_error_set(TN_ENOMEM, "out of memory");
        *out = tn_arena_strdup(arena, s);
        free(s);
    } else {
        return tn_error_set(TN_ECORRUPT, "%s: '%s' holds a non-scalar value", what, key);
    }
    return *out ? 0 : TN_ENOMEM;
}

static int get_map(tn_delta_kv **out, uint32_t *n, bool *present, tn_arena *arena, json_t *obj,
                   const char *key, bool required, const char *what) {
    int rc;
    json_t *m = member(&rc, present, obj, key, required, what);
    *out = NULL;
    *n = 0;
    if (!m) return rc;
    if (!json_is_object(m)) return tn_error_set(TN_ECORRUPT, "%s: '%s' is not an object", what, key);
    size_t size = json_object_size(m);
    if (size) {
        *out = tn_arena_calloc(arena, size * sizeof **out);
        if (!*out) return TN_ENOMEM;
    }
    const char *k;
    json_t *v;
    uint32_t i = 0;
    json_object_foreach(m, k, v) {
        (*out)[i].key = tn_arena_strdup(arena, k);
        if (!(*out)[i].key) return TN_ENOMEM;
        rc = scalar_text(&(*out)[i].value, arena, v, what, key);
        if (rc) return rc;
        i++;
    }
    *n = i;
    if (present) *present = true;
    return 0;
}

static int get_str_array(const char ***out, uint32_t *n, bool *present, tn_arena *arena,
                         json_t *obj, const char *key, bool required, const char *what) {
    int rc;
    json_t *a = member(&rc, present, obj, key, required, what);
    *out = NULL;
    *n = 0;
    if (!a) return rc;
    if (!json_is_array(a)) return tn_error_set(TN_ECORRUPT, "%s: '%s' is not an array", what, key);
    size_t size = json_array_size(a);
    *out = tn_arena_calloc(arena, (size ? size : 1) * sizeof **out);
    if (!*out) return TN_ENOMEM;
    for (size_t i = 0; i < size; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_string(v))
            return tn_error_set(TN_ECORRUPT, "%s: '%s'[%zu] is not a string", what, key, i);
        (*out)[i] = dup_str(arena, v);
        if (!(*out)[i]) return TN_ENOMEM;
    }
    *n = (uint32_t)size;
    if (present) *present = true;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * URI paths.
 */
static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int tn_delta_uri_decode(const char **out, tn_arena *arena, const char *path) {
    size_t n = strlen(path);
    char *s = tn_arena_alloc(arena, n + 1);
    if (!s) return TN_ENOMEM;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (path[i] == '%' && i + 2 < n) {
            int h = hexval((unsigned char)path[i + 1]);
            int l = hexval((unsigned char)path[i + 2]);
            if (h >= 0 && l >= 0) {
                s[j++] = (char)(h * 16 + l);
                i += 2;
                continue;
            }
        }
        s[j++] = path[i];
    }
    s[j] = 0;
    *out = s;
    return 0;
}

int tn_delta_uri_encode(tn_buf *out, const char *path) {
    static const char *keep = "-._~/=+!$&'()*,;@";
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int rc;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr(keep, *p))
            rc = tn_buf_append_byte(out, *p);
        else
            rc = tn_buf_printf(out, "%%%02X", *p);
        if (rc) return rc;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Schema (Spark StructType JSON).
 */
static int primitive_type(const char *name, tn_type *out) {
    static const struct { const char *name; tn_type_id id; } map[] = {
        {"integer", TN_TYPE_INTEGER}, {"long", TN_TYPE_BIGINT}, {"short", TN_TYPE_SMALLINT},
        {"byte", TN_TYPE_TINYINT}, {"float", TN_TYPE_FLOAT}, {"double", TN_TYPE_DOUBLE},
        {"boolean", TN_TYPE_BOOLEAN}, {"string", TN_TYPE_VARCHAR}, {"binary", TN_TYPE_VARBINARY},
        {"date", TN_TYPE_DATE}, {"timestamp", TN_TYPE_TIMESTAMP_TZ},
        {"timestamp_ntz", TN_TYPE_TIMESTAMP},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i].name) == 0) {
            *out = tn_type_make(map[i].id);
            return 0;
        }
    int p, s, consumed = 0;
    if (sscanf(name, "decimal(%d,%d)%n", &p, &s, &consumed) == 2 && name[consumed] == 0) {
        if (p < 1 || p > TN_DECIMAL_MAX_PRECISION || s < 0 || s > p) return -1;
        *out = tn_type_decimal(p, s);
        return 0;
    }
    if (sscanf(name, "decimal(%d, %d)%n", &p, &s, &consumed) == 2 && name[consumed] == 0) {
        if (p < 1 || p > TN_DECIMAL_MAX_PRECISION || s < 0 || s > p) return -1;
        *out = tn_type_decimal(p, s);
        return 0;
    }
    if (strcmp(name, "decimal") == 0) {          /* Spark's default decimal(10,0) */
        *out = tn_type_decimal(10, 0);
        return 0;
    }
    return -1;
}

const char *tn_delta_type_name(tn_type type, char *buf, size_t cap) {
    switch ((tn_type_id)type.id) {
    case TN_TYPE_INTEGER: return "integer";
    case TN_TYPE_BIGINT: return "long";
    case TN_TYPE_SMALLINT: return "short";
    case TN_TYPE_TINYINT: return "byte";
    case TN_TYPE_FLOAT: return "float";
    case TN_TYPE_DOUBLE: return "double";
    case TN_TYPE_BOOLEAN: return "boolean";
    case TN_TYPE_VARCHAR: return "string";
    case TN_TYPE_VARBINARY: return "binary";
    case TN_TYPE_DATE: return "date";
    case TN_TYPE_TIMESTAMP_TZ: return "timestamp";
    case TN_TYPE_TIMESTAMP: return "timestamp_ntz";
    case TN_TYPE_DECIMAL: snprintf(buf, cap, "decimal(%d,%d)", type.precision, type.scale); return buf;
    default: return NULL;
    }
}

/* A Spark nested type of a schemaString ({"type":"struct","fields":[...]}, {"type":"array",
 * "elementType":T,"containsNull":b}, {"type":"map","keyType":K,"valueType":V,
 * "valueContainsNull":b}) as a tn_type. The nullability flags are not part of tn_type: any
 * element, value or field may be NULL in tarn's vectors. */
static int nested_type(const json_t *t, int depth, tn_type *out) {
    if (depth > TN_TYPE_MAX_DEPTH)
        return tn_error_set(TN_ELIMIT, "schemaString: type nested deeper than %d levels", TN_TYPE_MAX_DEPTH);
    if (json_is_string(t)) {
        if (primitive_type(json_string_value(t), out) != 0)
            return tn_error_set(TN_EUNSUPPORTED, "schemaString: type '%s'", json_string_value(t));
        return 0;
    }
    const char *kind = json_string_value(json_object_get(t, "type"));
    if (!json_is_object(t) || !kind) return tn_error_set(TN_ECORRUPT, "schemaString: bad nested type");
    tn_type a, b;
    int rc;
    if (strcmp(kind, "array") == 0) {
        rc = nested_type(json_object_get(t, "elementType"), depth + 1, &a);
        return rc ? rc : tn_type_list(out, a);
    }
    if (strcmp(kind, "map") == 0) {
        rc = nested_type(json_object_get(t, "keyType"), depth + 1, &a);
        if (rc == 0) rc = nested_type(json_object_get(t, "valueType"), depth + 1, &b);
        return rc ? rc : tn_type_map(out, a, b);
    }
    if (strcmp(kind, "struct") != 0) return tn_error_set(TN_EUNSUPPORTED, "schemaString: type '%s'", kind);
    const json_t *fields = json_object_get(t, "fields");
    size_t n = json_array_size(fields);
    if (!json_is_array(fields) || n == 0) return tn_error_set(TN_ECORRUPT, "schemaString: struct without fields");
    tn_type *types = tn_calloc(n, sizeof *types);
    const char **names = tn_calloc(n, sizeof *names);
    rc = types && names ? 0 : TN_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const json_t *f = json_array_get(fields, i);
        names[i] = json_string_value(json_object_get(f, "name"));
        if (!names[i]) rc = tn_error_set(TN_ECORRUPT, "schemaString: struct field without a name");
        else rc = nested_type(json_object_get(f, "type"), depth + 1, &types[i]);
    }
    if (rc == 0) rc = tn_type_struct(out, (uint32_t)n, names, types);
    tn_free(types);
    tn_free(names);
    return rc;
}

/* The inverse of nested_type: a tn_type as Spark's JSON type ("integer", {"type":"array",...});
 * every element, value and field nullable (tarn's nested values may hold NULL anywhere but in a
 * map key). NULL on an error (set). */
static json_t *type_json(tn_type t) {
    char buf[32];
    if (!tn_type_is_nested(t)) {
        const char *name = tn_delta_type_name(t, buf, sizeof buf);
        if (!name) {
            tn_error_set(TN_EUNSUPPORTED, "type %s has no Delta type", tn_type_id_name((tn_type_id)t.id));
            return NULL;
        }
        return json_string(name);
    }
    json_t *o = json_object(), *a = NULL, *b = NULL;
    if (!o) goto oom;
    if (t.id == TN_TYPE_LIST) {
        if (!(a = type_json(tn_type_element(t)))) goto fail;
        json_object_set_new(o, "type", json_string("array"));
        json_object_set_new(o, "elementType", a);
        json_object_set_new(o, "containsNull", json_true());
        return o;
    }
    if (t.id == TN_TYPE_MAP) {
        if (!(a = type_json(tn_type_map_key(t)))) goto fail;
        if (!(b = type_json(tn_type_map_value(t)))) { json_decref(a); goto fail; }
        json_object_set_new(o, "type", json_string("map"));
        json_object_set_new(o, "keyType", a);
        json_object_set_new(o, "valueType", b);
        json_object_set_new(o, "valueContainsNull", json_true());
        return o;
    }
    json_t *fields = json_array();
    if (!fields) goto oom;
    json_object_set_new(o, "type", json_string("struct"));
    json_object_set_new(o, "fields", fields);
    for (uint32_t i = 0; i < t.nested->nchildren; i++) {
        json_t *f = json_object();
        if (!f) goto oom;
        json_array_append_new(fields, f);
        if (!(a = type_json(t.nested->children[i]))) goto fail;
        json_object_set_new(f, "name", json_string(t.nested->names[i]));
        json_object_set_new(f, "type", a);
        json_object_set_new(f, "nullable", json_true());
        json_object_set_new(f, "metadata", json_object());
    }
    return o;
oom:
    tn_error_set(TN_ENOMEM, "out of memory");
fail:
    json_decref(o);
    return NULL;
}

int tn_delta_type_text(tn_arena *arena, tn_type type, const char **out) {
    json_t *j = type_json(type);
    if (!j) return tn_error_code_last();
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    *out = s ? tn_arena_strdup(arena, s) : NULL;
    free(s);
    return *out ? 0 : tn_error_set(TN_ENOMEM, "out of memory");
}

int tn_delta_schema_parse(tn_delta_column **out, uint32_t *ncolumns, tn_arena *arena,
                          const char *schema_string) {
    int rc = 0;
    json_error_t jerr;
    json_t *root = json_loads(schema_string, 0, &jerr);
    *out = NULL;
    *ncolumns = 0;
    if (!root) {
        rc = tn_error_set(TN_ECORRUPT, "schemaString: invalid JSON at column %d: %s", jerr.column,
                          jerr.text);
        goto cleanup;
    }
    json_t *fields = json_object_get(root, "fields");
    if (!json_is_object(root) || !json_is_string(json_object_get(root, "type")) ||
        strcmp(json_string_value(json_object_get(root, "type")), "struct") != 0 ||
        !json_is_array(fields)) {
        rc = tn_error_set(TN_ECORRUPT, "schemaString: not a struct type with 'fields'");
        goto cleanup;
    }
    size_t n = json_array_size(fields);
    tn_delta_column *cols = tn_arena_calloc(arena, (n ? n : 1) * sizeof *cols);
    if (!cols) { rc = TN_ENOMEM; goto cleanup; }
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(fields, i);
        tn_delta_column *c = &cols[i];
        json_t *name = json_object_get(f, "name"), *type = json_object_get(f, "type");
        if (!json_is_object(f) || !json_is_string(name) || !type) {
            rc = tn_error_set(TN_ECORRUPT, "schemaString: field %zu: missing 'name' or 'type'", i);
            goto cleanup;
        }
        c->name = dup_str(arena, name);
        c->physical_name = c->name;
        c->field_id = -1;
        json_t *nullable = json_object_get(f, "nullable");
        c->nullable = nullable ? json_is_true(nullable) : true;
        if (json_is_string(type)) {
            c->type_text = dup_str(arena, type);
            if (primitive_type(c->type_text, &c->type) != 0) {
                c->nested = true;          /* void, variant, interval, ...: refused when read */
                c->type = tn_type_make(TN_TYPE_NULL);
            }
        } else if (json_is_object(type)) {
            char *s = json_dumps(type, JSON_COMPACT);
            if (!s) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
            c->type_text = tn_arena_strdup(arena, s);
            free(s);
            c->nested = true;
            if (nested_type(type, 0, &c->type) != 0) {
                tn_error_clear();          /* an unknown inner type: refused when read */
                c->type = tn_type_make(TN_TYPE_NULL);
            }
        } else {
            rc = tn_error_set(TN_ECORRUPT, "schemaString: field '%s': bad 'type'", c->name);
            goto cleanup;
        }
        json_t *md = json_object_get(f, "metadata");
        if (json_is_object(md)) {
            char *s = json_dumps(md, JSON_COMPACT);
            if (!s) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
            c->metadata_json = tn_arena_strdup(arena, s);
            free(s);
            json_t *pn = json_object_get(md, "delta.columnMapping.physicalName");
            if (json_is_string(pn)) c->physical_name = dup_str(arena, pn);
            json_t *id = json_object_get(md, "delta.columnMapping.id");
            if (json_is_integer(id)) c->field_id = (int32_t)json_integer_value(id);
            if (json_object_get(md, "delta.typeChanges")) c->type_changed = true;
            json_t *ge = json_object_get(md, "delta.generationExpression");
            if (json_is_string(ge)) c->generation_expression = dup_str(arena, ge);
            const char *k;
            json_t *val;
            json_object_foreach(md, k, val) {
                if (strncmp(k, "delta.identity.", 15) == 0) c->identity = true;
            }
            json_t *inv = json_object_get(md, "delta.invariants");
            if (json_is_string(inv)) {
                /* {"expression": {"expression": "<SQL>"}} as a JSON string */
                json_t *io = json_loads(json_string_value(inv), 0, NULL);
                json_t *e1 = json_is_object(io) ? json_object_get(io, "expression") : NULL;
                json_t *e2 = json_is_object(e1) ? json_object_get(e1, "expression") : NULL;
                c->invariant = json_is_string(e2) ? dup_str(arena, e2) : dup_str(arena, inv);
                json_decref(io);
            }
        } else {
            c->metadata_json = "{}";
        }
        if (!c->name || !c->physical_name || !c->type_text || !c->metadata_json) {
            rc = TN_ENOMEM;
            goto cleanup;
        }
        for (size_t j = 0; j < i; j++)
            if (tn_str_iequal(cols[j].name, c->name)) {
                rc = tn_error_set(TN_ECORRUPT, "schemaString: duplicate column '%s'", c->name);
                goto cleanup;
            }
    }
    *out = cols;
    *ncolumns = (uint32_t)n;
cleanup:
    json_decref(root);
    return rc;
}

int tn_delta_schema_serialize(tn_buf *out, const tn_delta_column *columns, uint32_t ncolumns) {
    int rc = 0;
    json_t *root = json_object(), *fields = json_array();
    char *s = NULL;
    if (!root || !fields) { json_decref(fields); rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    json_object_set_new(root, "type", json_string("struct"));
    json_object_set_new(root, "fields", fields);
    for (uint32_t i = 0; i < ncolumns; i++) {
        const tn_delta_column *c = &columns[i];
        char buf[32];
        json_t *f = json_object(), *type = NULL, *md = NULL;
        if (!f) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
        json_array_append_new(fields, f);
        if (c->nested && c->type_text) {
            type = json_loads(c->type_text, JSON_DECODE_ANY, NULL);
        } else if (tn_type_is_nested(c->type)) {
            type = type_json(c->type);
            if (!type) { rc = tn_error_prefix(tn_error_code_last(), "column '%s'", c->name); goto cleanup; }
        } else {
            const char *tn = tn_delta_type_name(c->type, buf, sizeof buf);
            if (!tn) {
                rc = tn_error_set(TN_EUNSUPPORTED, "column '%s': type %s has no Delta type",
                                  c->name, tn_type_id_name((tn_type_id)c->type.id));
                goto cleanup;
            }
            type = json_string(tn);
        }
        if (!type) { rc = tn_error_set(TN_EINVAL, "column '%s': bad type", c->name); goto cleanup; }
        md = c->metadata_json ? json_loads(c->metadata_json, 0, NULL) : json_object();
        if (!md) md = json_object();
        json_object_set_new(f, "name", json_string(c->name));
        json_object_set_new(f, "type", type);
        json_object_set_new(f, "nullable", json_boolean(c->nullable));
        json_object_set_new(f, "metadata", md);
    }
    s = json_dumps(root, JSON_COMPACT);
    if (!s) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    rc = tn_buf_append(out, s, strlen(s));
cleanup:
    free(s);
    json_decref(root);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Action parsing.
 */
static int parse_dv(tn_delta_dv *dv, tn_arena *arena, json_t *o, const char *what) {
    int rc;
    const char *st = NULL;
    int64_t v = 0;
    bool has = false;
    if (!json_is_object(o)) return tn_error_set(TN_ECORRUPT, "%s: deletionVector is not an object", what);
    if ((rc = get_str(&st, arena, o, "storageType", true, what))) return rc;
    if (strlen(st) != 1 || !strchr("uip", st[0]))
        return tn_error_set(TN_ECORRUPT, "%s: deletionVector: unknown storageType '%s'", what, st);
    dv->storage_type = st[0];
    if ((rc = get_str(&dv->path_or_inline, arena, o, "pathOrInlineDv", true, what))) return rc;
    if ((rc = get_i64(&v, &has, o, "offset", false, what))) return rc;
    dv->has_offset = has;
    dv->offset = has ? (int32_t)v : 0;
    if (has && (v < 0 || v > INT32_MAX))
        return tn_error_set(TN_ECORRUPT, "%s: deletionVector: bad offset %" PRId64, what, v);
    if ((rc = get_i64(&v, NULL, o, "sizeInBytes", true, what))) return rc;
    if (v < 0 || v > INT32_MAX)
        return tn_error_set(TN_ECORRUPT, "%s: deletionVector: bad sizeInBytes %" PRId64, what, v);
    dv->size_in_bytes = (int32_t)v;
    if ((rc = get_i64(&dv->cardinality, NULL, o, "cardinality", true, what))) return rc;
    if (dv->cardinality < 0)
        return tn_error_set(TN_ECORRUPT, "%s: deletionVector: negative cardinality", what);
    dv->unique_id = dv->has_offset
        ? tn_arena_printf(arena, "%c%s@%d", dv->storage_type, dv->path_or_inline, dv->offset)
        : tn_arena_printf(arena, "%c%s", dv->storage_type, dv->path_or_inline);
    return dv->unique_id ? 0 : TN_ENOMEM;
}

static int parse_file(tn_delta_file *f, tn_arena *arena, json_t *o, bool is_add) {
    const char *what = is_add ? "add" : "remove";
    int rc;
    bool has;
    if ((rc = get_str(&f->path, arena, o, "path", true, what))) return rc;
    if (!f->path[0]) return tn_error_set(TN_ECORRUPT, "%s: empty 'path'", what);
    if ((rc = tn_delta_uri_decode(&f->path_decoded, arena, f->path))) return rc;
    if ((rc = get_map(&f->partition_values, &f->npartition_values, &f->has_partition_values, arena,
                      o, "partitionValues", is_add, what)))
        return rc;
    if ((rc = get_i64(&f->size, &f->has_size, o, "size", is_add, what))) return rc;
    if ((rc = get_i64(&f->modification_time, NULL, o, "modificationTime", is_add, what))) return rc;
    if ((rc = get_i64(&f->deletion_timestamp, &f->has_deletion_timestamp, o, "deletionTimestamp",
                      false, what)))
        return rc;
    f->data_change = true;
    /* dataChange is required in JSON; checkpoints (and old writers' removes) may leave it out. */
    if ((rc = get_bool(&f->data_change, &has, o, "dataChange", false, what))) return rc;
    if ((rc = get_bool(&f->extended_file_metadata, NULL, o, "extendedFileMetadata", false, what)))
        return rc;
    if ((rc = get_str(&f->stats, arena, o, "stats", false, what))) return rc;
    if ((rc = get_map(&f->tags, &f->ntags, NULL, arena, o, "tags", false, what))) return rc;
    json_t *dv = json_object_get(o, "deletionVector");
    if (dv && !json_is_null(dv)) {
        if ((rc = parse_dv(&f->dv, arena, dv, what))) return rc;
        f->has_dv = true;
    }
    if ((rc = get_i64(&f->base_row_id, &f->has_base_row_id, o, "baseRowId", false, what))) return rc;
    if ((rc = get_i64(&f->default_row_commit_version, &f->has_default_row_commit_version, o,
                      "defaultRowCommitVersion", false, what)))
        return rc;
    if ((rc = get_str(&f->clustering_provider, arena, o, "clusteringProvider", false, what))) return rc;
    if (is_add && f->size < 0) return tn_error_set(TN_ECORRUPT, "add: negative 'size'");
    return 0;
}

static int parse_metadata(tn_delta_metadata *m, tn_arena *arena, json_t *o) {
    const char *what = "metaData";
    int rc;
    if ((rc = get_str(&m->id, arena, o, "id", true, what))) return rc;
    if ((rc = get_str(&m->name, arena, o, "name", false, what))) return rc;
    if ((rc = get_str(&m->description, arena, o, "description", false, what))) return rc;
    json_t *fmt = json_object_get(o, "format");
    if (json_is_object(fmt)) {
        if ((rc = get_str(&m->format_provider, arena, fmt, "provider", false, what))) return rc;
        if ((rc = get_map(&m->format_options, &m->nformat_options, NULL, arena, fmt, "options",
                          false, what)))
            return rc;
    }
    if ((rc = get_str(&m->schema_string, arena, o, "schemaString", true, what))) return rc;
    if ((rc = get_str_array(&m->partition_columns, &m->npartition_columns, NULL, arena, o,
                            "partitionColumns", false, what)))
        return rc;
    if ((rc = get_map(&m->configuration, &m->nconfiguration, NULL, arena, o, "configuration", false,
                      what)))
        return rc;
    if ((rc = get_i64(&m->created_time, &m->has_created_time, o, "createdTime", false, what))) return rc;
    if ((rc = tn_delta_schema_parse(&m->columns, &m->ncolumns, arena, m->schema_string)))
        return tn_error_prefix(rc, "metaData");
    const char *mode = tn_delta_config_get(m, "delta.columnMapping.mode");
    if (!mode || strcmp(mode, "none") == 0) {
        m->column_mapping = TN_DELTA_CM_NONE;
        for (uint32_t i = 0; i < m->ncolumns; i++) m->columns[i].physical_name = m->columns[i].name;
    } else if (strcmp(mode, "name") == 0) {
        m->column_mapping = TN_DELTA_CM_NAME;
    } else if (strcmp(mode, "id") == 0) {
        m->column_mapping = TN_DELTA_CM_ID;
    } else {
        return tn_error_set(TN_EUNSUPPORTED, "metaData: unknown delta.columnMapping.mode '%s'", mode);
    }
    for (uint32_t p = 0; p < m->npartition_columns; p++) {
        bool found = false;
        for (uint32_t i = 0; i < m->ncolumns; i++)
            if (strcmp(m->columns[i].name, m->partition_columns[p]) == 0) {
                m->columns[i].is_partition = true;
                found = true;
            }
        if (!found)
            return tn_error_set(TN_ECORRUPT, "metaData: partition column '%s' is not in the schema",
                                m->partition_columns[p]);
    }
    return 0;
}

static int parse_protocol(tn_delta_protocol *p, tn_arena *arena, json_t *o) {
    const char *what = "protocol";
    int rc;
    int64_t r = 0, w = 0;
    if ((rc = get_i64(&r, NULL, o, "minReaderVersion", true, what))) return rc;
    if ((rc = get_i64(&w, NULL, o, "minWriterVersion", true, what))) return rc;
    if (r < 0 || r > INT32_MAX || w < 0 || w > INT32_MAX)
        return tn_error_set(TN_ECORRUPT, "protocol: version out of range");
    p->min_reader_version = (int32_t)r;
    p->min_writer_version = (int32_t)w;
    if ((rc = get_str_array(&p->reader_features, &p->nreader_features, &p->has_reader_features,
                            arena, o, "readerFeatures", false, what)))
        return rc;
    if ((rc = get_str_array(&p->writer_features, &p->nwriter_features, &p->has_writer_features,
                            arena, o, "writerFeatures", false, what)))
        return rc;
    return 0;
}

int dl_action_from_json(tn_delta_action *out, tn_arena *arena, json_t *obj) {
    static const struct { const char *key; tn_delta_action_kind kind; } keys[] = {
        {"add", TN_DELTA_ADD}, {"remove", TN_DELTA_REMOVE}, {"metaData", TN_DELTA_METADATA},
        {"protocol", TN_DELTA_PROTOCOL}, {"txn", TN_DELTA_TXN},
        {"commitInfo", TN_DELTA_COMMIT_INFO}, {"domainMetadata", TN_DELTA_DOMAIN_METADATA},
        {"sidecar", TN_DELTA_SIDECAR}, {"checkpointMetadata", TN_DELTA_CHECKPOINT_METADATA},
        {"cdc", TN_DELTA_CDC},
    };
    memset(out, 0, sizeof *out);
    if (!json_is_object(obj)) return tn_error_set(TN_ECORRUPT, "action is not a JSON object");
    json_t *a = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(obj, keys[i].key);
        if (!v || json_is_null(v)) continue;
        if (a) return tn_error_set(TN_ECORRUPT, "more than one action in one line");
        a = v;
        out->kind = keys[i].kind;
    }
    if (!a) return 0;       /* unknown action: ignored */
    const char *what = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].kind == out->kind) what = keys[i].key;
    if (!json_is_object(a)) return tn_error_set(TN_ECORRUPT, "%s: not a JSON object", what);
    int rc = 0;
    switch (out->kind) {
    case TN_DELTA_ADD: return parse_file(&out->u.file, arena, a, true);
    case TN_DELTA_REMOVE: return parse_file(&out->u.file, arena, a, false);
    case TN_DELTA_CDC: return parse_file(&out->u.file, arena, a, false);   /* path, partitionValues, size */
    case TN_DELTA_METADATA: return parse_metadata(&out->u.metadata, arena, a);
    case TN_DELTA_PROTOCOL: return parse_protocol(&out->u.protocol, arena, a);
    case TN_DELTA_TXN: {
        tn_delta_txn *t = &out->u.txn;
        if ((rc = get_str(&t->app_id, arena, a, "appId", true, what))) return rc;
        if ((rc = get_i64(&t->version, NULL, a, "version", true, what))) return rc;
        return get_i64(&t->last_updated, &t->has_last_updated, a, "lastUpdated", false, what);
    }
    case TN_DELTA_COMMIT_INFO: {
        tn_delta_commit_info *c = &out->u.commit_info;
        char *s = json_dumps(a, JSON_COMPACT);
        if (!s) return tn_error_set(TN_ENOMEM, "out of memory");
        c->json = tn_arena_strdup(arena, s);
        free(s);
        if (!c->json) return TN_ENOMEM;
        /* commitInfo is free-form: tolerate odd types by ignoring them. */
        json_t *v = json_object_get(a, "timestamp");
        if (json_is_integer(v)) { c->has_timestamp = true; c->timestamp = json_integer_value(v); }
        v = json_object_get(a, "inCommitTimestamp");
        if (json_is_integer(v)) {
            c->has_in_commit_timestamp = true;
            c->in_commit_timestamp = json_integer_value(v);
        }
        v = json_object_get(a, "operation");
        if (json_is_string(v)) c->operation = dup_str(arena, v);
        v = json_object_get(a, "isBlindAppend");
        if (json_is_boolean(v)) { c->has_is_blind_append = true; c->is_blind_append = json_is_true(v); }
        return 0;
    }
    case TN_DELTA_DOMAIN_METADATA: {
        tn_delta_domain *d = &out->u.domain;
        if ((rc = get_str(&d->domain, arena, a, "domain", true, what))) return rc;
        if ((rc = get_str(&d->configuration, arena, a, "configuration", false, what))) return rc;
        return get_bool(&d->removed, NULL, a, "removed", false, what);
    }
    case TN_DELTA_SIDECAR: {
        tn_delta_sidecar *s = &out->u.sidecar;
        if ((rc = get_str(&s->path, arena, a, "path", true, what))) return rc;
        if ((rc = get_i64(&s->size_in_bytes, NULL, a, "sizeInBytes", false, what))) return rc;
        return get_i64(&s->modification_time, NULL, a, "modificationTime", false, what);
    }
    case TN_DELTA_CHECKPOINT_METADATA:
        return get_i64(&out->u.checkpoint_version, NULL, a, "version", true, what);
    default:
        return 0;
    }
}

int tn_delta_action_parse(tn_delta_action *out, tn_arena *arena, const char *line, size_t len) {
    json_error_t jerr;
    memset(out, 0, sizeof *out);
    json_t *obj = json_loadb(line, len, 0, &jerr);
    if (!obj) return tn_error_set(TN_ECORRUPT, "invalid JSON at column %d: %s", jerr.column, jerr.text);
    int rc = dl_action_from_json(out, arena, obj);
    json_decref(obj);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Serialization.
 */
static json_t *kv_to_json(const tn_delta_kv *kv, uint32_t n) {
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < n; i++)
        json_object_set_new(o, kv[i].key, kv[i].value ? json_string(kv[i].value) : json_null());
    return o;
}

static json_t *strs_to_json(const char *const *s, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++) json_array_append_new(a, json_string(s[i]));
    return a;
}

static json_t *file_to_json(const tn_delta_file *f, bool is_add) {
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "path", json_string(f->path));
    if (is_add || f->has_partition_values)
        json_object_set_new(o, "partitionValues", kv_to_json(f->partition_values, f->npartition_values));
    if (is_add || f->has_size) json_object_set_new(o, "size", json_integer(f->size));
    if (is_add) json_object_set_new(o, "modificationTime", json_integer(f->modification_time));
    if (!is_add && f->has_deletion_timestamp)
        json_object_set_new(o, "deletionTimestamp", json_integer(f->deletion_timestamp));
    json_object_set_new(o, "dataChange", json_boolean(f->data_change));
    if (!is_add && f->extended_file_metadata)
        json_object_set_new(o, "extendedFileMetadata", json_true());
    if (f->stats) json_object_set_new(o, "stats", json_string(f->stats));
    if (f->ntags) json_object_set_new(o, "tags", kv_to_json(f->tags, f->ntags));
    if (f->has_dv) {
        json_t *dv = json_object();
        char st[2] = {f->dv.storage_type, 0};
        json_object_set_new(dv, "storageType", json_string(st));
        json_object_set_new(dv, "pathOrInlineDv", json_string(f->dv.path_or_inline));
        if (f->dv.has_offset) json_object_set_new(dv, "offset", json_integer(f->dv.offset));
        json_object_set_new(dv, "sizeInBytes", json_integer(f->dv.size_in_bytes));
        json_object_set_new(dv, "cardinality", json_integer(f->dv.cardinality));
        json_object_set_new(o, "deletionVector", dv);
    }
    if (f->has_base_row_id) json_object_set_new(o, "baseRowId", json_integer(f->base_row_id));
    if (f->has_default_row_commit_version)
        json_object_set_new(o, "defaultRowCommitVersion", json_integer(f->default_row_commit_version));
    if (f->clustering_provider)
        json_object_set_new(o, "clusteringProvider", json_string(f->clustering_provider));
    return o;
}

json_t *dl_action_to_json(const tn_delta_action *a) {
    json_t *o = NULL, *root = NULL;
    const char *key = NULL;
    switch (a->kind) {
    case TN_DELTA_COMMIT_INFO: {
        const tn_delta_commit_info *c = &a->u.commit_info;
        key = "commitInfo";
        o = c->json ? json_loads(c->json, 0, NULL) : json_object();
        if (!o) { tn_error_set(TN_EINVAL, "commitInfo: invalid JSON"); return NULL; }
        if (!c->json) {
            if (c->has_timestamp) json_object_set_new(o, "timestamp", json_integer(c->timestamp));
            if (c->has_in_commit_timestamp)
                json_object_set_new(o, "inCommitTimestamp", json_integer(c->in_commit_timestamp));
            if (c->operation) json_object_set_new(o, "operation", json_string(c->operation));
            if (c->has_is_blind_append)
                json_object_set_new(o, "isBlindAppend", json_boolean(c->is_blind_append));
        }
        break;
    }
    case TN_DELTA_PROTOCOL: {
        const tn_delta_protocol *p = &a->u.protocol;
        key = "protocol";
        o = json_object();
        json_object_set_new(o, "minReaderVersion", json_integer(p->min_reader_version));
        json_object_set_new(o, "minWriterVersion", json_integer(p->min_writer_version));
        if (p->has_reader_features)
            json_object_set_new(o, "readerFeatures", strs_to_json(p->reader_features, p->nreader_features));
        if (p->has_writer_features)
            json_object_set_new(o, "writerFeatures", strs_to_json(p->writer_features, p->nwriter_features));
        break;
    }
    case TN_DELTA_METADATA: {
        const tn_delta_metadata *m = &a->u.metadata;
        key = "metaData";
        o = json_object();
        json_object_set_new(o, "id", json_string(m->id ? m->id : ""));
        if (m->name) json_object_set_new(o, "name", json_string(m->name));
        if (m->description) json_object_set_new(o, "description", json_string(m->description));
        json_t *fmt = json_object();
        json_object_set_new(fmt, "provider", json_string(m->format_provider ? m->format_provider : "parquet"));
        json_object_set_new(fmt, "options", kv_to_json(m->format_options, m->nformat_options));
        json_object_set_new(o, "format", fmt);
        if (m->schema_string) {
            json_object_set_new(o, "schemaString", json_string(m->schema_string));
        } else {
            tn_buf b = TN_BUF_INIT;
            if (tn_delta_schema_serialize(&b, m->columns, m->ncolumns) != 0 ||
                tn_buf_append_byte(&b, 0) != 0) {
                tn_buf_free(&b);
                json_decref(o);
                return NULL;
            }
            json_object_set_new(o, "schemaString", json_string((const char *)b.data));
            tn_buf_free(&b);
        }
        json_object_set_new(o, "partitionColumns", strs_to_json(m->partition_columns, m->npartition_columns));
        json_object_set_new(o, "configuration", kv_to_json(m->configuration, m->nconfiguration));
        if (m->has_created_time) json_object_set_new(o, "createdTime", json_integer(m->created_time));
        break;
    }
    case TN_DELTA_ADD: key = "add"; o = file_to_json(&a->u.file, true); break;
    case TN_DELTA_REMOVE: key = "remove"; o = file_to_json(&a->u.file, false); break;
    case TN_DELTA_CDC: {
        tn_delta_file f = a->u.file;   /* path, partitionValues, size, dataChange (false), tags */
        f.has_partition_values = f.has_size = true;
        f.has_deletion_timestamp = f.extended_file_metadata = f.data_change = false;
        f.stats = NULL;
        f.has_dv = false;
        key = "cdc";
        o = file_to_json(&f, false);
        break;
    }
    case TN_DELTA_TXN:
        key = "txn";
        o = json_object();
        json_object_set_new(o, "appId", json_string(a->u.txn.app_id));
        json_object_set_new(o, "version", json_integer(a->u.txn.version));
        if (a->u.txn.has_last_updated)
            json_object_set_new(o, "lastUpdated", json_integer(a->u.txn.last_updated));
        break;
    case TN_DELTA_DOMAIN_METADATA:
        key = "domainMetadata";
        o = json_object();
        json_object_set_new(o, "domain", json_string(a->u.domain.domain));
        json_object_set_new(o, "configuration", json_string(a->u.domain.configuration ? a->u.domain.configuration : ""));
        json_object_set_new(o, "removed", json_boolean(a->u.domain.removed));
        break;
    case TN_DELTA_SIDECAR:
        key = "sidecar";
        o = json_object();
        json_object_set_new(o, "path", json_string(a->u.sidecar.path));
        json_object_set_new(o, "sizeInBytes", json_integer(a->u.sidecar.size_in_bytes));
        json_object_set_new(o, "modificationTime", json_integer(a->u.sidecar.modification_time));
        break;
    case TN_DELTA_CHECKPOINT_METADATA:
        key = "checkpointMetadata";
        o = json_object();
        json_object_set_new(o, "version", json_integer(a->u.checkpoint_version));
        break;
    default:
        tn_error_set(TN_EINVAL, "cannot serialize an unknown action");
        return NULL;
    }
    if (!o) { tn_error_set(TN_ENOMEM, "out of memory"); return NULL; }
    root = json_object();
    if (!root || json_object_set_new(root, key, o) != 0) {
        json_decref(root);
        tn_error_set(TN_ENOMEM, "out of memory");
        return NULL;
    }
    return root;
}

int tn_delta_action_serialize(tn_buf *out, const tn_delta_action *action) {
    json_t *j = dl_action_to_json(action);
    if (!j) return tn_error_code_last() ? tn_error_code_last() : TN_EINVAL;
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) return tn_error_set(TN_ENOMEM, "out of memory");
    int rc = tn_buf_append(out, s, strlen(s));
    free(s);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Lookups.
 */
const char *tn_delta_kv_get(const tn_delta_kv *kv, uint32_t n, const char *key, bool *found) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0) {
            if (found) *found = true;
            return kv[i].value;
        }
    if (found) *found = false;
    return NULL;
}

const char *tn_delta_config_get(const tn_delta_metadata *md, const char *key) {
    return tn_delta_kv_get(md->configuration, md->nconfiguration, key, NULL);
}

int64_t tn_delta_file_num_records(const tn_delta_file *file) {
    if (!file->stats) return -1;
    /* Writers (tarn, Spark, delta-rs) put numRecords first: read it without a JSON parse
     * (this runs for every file in planning, row estimates and --stats). */
    static const char prefix[] = "{\"numRecords\":";
    if (strncmp(file->stats, prefix, sizeof prefix - 1) == 0) {
        const char *p = file->stats + sizeof prefix - 1;
        int64_t n = 0;
        int digits = 0;
        while (p[digits] >= '0' && p[digits] <= '9' && digits < 18) n = n * 10 + (p[digits++] - '0');
        if (digits > 0 && (p[digits] == ',' || p[digits] == '}') && (digits == 1 || p[0] != '0')) return n;
    }
    json_t *j = json_loads(file->stats, 0, NULL);
    int64_t n = -1;
    json_t *v = json_object_get(j, "numRecords");
    if (json_is_integer(v)) n = json_integer_value(v);
    json_decref(j);
    return n;
}
