/*
 * types/nested.c: LIST, STRUCT and MAP: the interned type descriptors (one per distinct type,
 * immutable, process lifetime), their DuckDB spelling, and the nested halves of the vector
 * operations (children allocation, gather/append/copy of rows, NULLs), the total order and the
 * text of nested values. The representation is documented in types.h; vector.c, value.c and
 * format.c call in here through typesInt.h for nested types only.
 */
#include "types/typesInt.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------------------------------------
 * Interning: a chained hash table under one mutex. Descriptors are never freed (they are few:
 * one per distinct nested type a process meets), so a tn_type can be copied without ownership.
 */
typedef struct intern_node {
    struct intern_node *next;
    uint8_t id;
    tn_type_nested desc;
} intern_node;

#define INTERN_BUCKETS 1024
static intern_node *g_intern[INTERN_BUCKETS];
static pthread_mutex_t g_intern_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_key(uint8_t id, uint32_t n, const char *const *names, const tn_type *types) {
    uint64_t h = tn_hash_u64((uint64_t)id * 31 + n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t = (uint64_t)types[i].id | (uint64_t)types[i].precision << 8 | (uint64_t)types[i].scale << 16;
        h = tn_hash_u64(h ^ t ^ (types[i].nested ? types[i].nested->hash : 0));
        if (names) h = tn_hash_bytes(names[i], strlen(names[i]), h);
    }
    return h;
}

static bool key_equal(const intern_node *node, uint8_t id, uint32_t n, const char *const *names,
                      const tn_type *types) {
    if (node->id != id || node->desc.nchildren != n || (node->desc.names == NULL) != (names == NULL)) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!tn_type_equal(node->desc.children[i], types[i])) return false;
        if (names && strcmp(node->desc.names[i], names[i]) != 0) return false;
    }
    return true;
}

static uint32_t type_depth(tn_type t) { return t.nested ? t.nested->depth : 0; }

static int intern(tn_type *out, uint8_t id, uint32_t n, const char *const *names, const tn_type *types) {
    uint32_t depth = 0;
    for (uint32_t i = 0; i < n; i++)
        if (type_depth(types[i]) > depth) depth = type_depth(types[i]);
    if (depth + 1 > TN_TYPE_MAX_DEPTH)
        return tn_error_set(TN_ELIMIT, "nested type deeper than %d levels", TN_TYPE_MAX_DEPTH);
    uint64_t h = hash_key(id, n, names, types);
    int rc = 0;
    pthread_mutex_lock(&g_intern_lock);
    intern_node **slot = &g_intern[h % INTERN_BUCKETS], *node;
    for (node = *slot; node; node = node->next)
        if (node->desc.hash == h && key_equal(node, id, n, names, types)) break;
    if (!node) {
        size_t names_bytes = 0;
        if (names)
            for (uint32_t i = 0; i < n; i++) names_bytes += strlen(names[i]) + 1;
        size_t bytes = sizeof *node + n * sizeof(tn_type) + (names ? n * sizeof(char *) : 0) + names_bytes;
        node = tn_calloc(1, bytes);
        if (!node) {
            rc = TN_ENOMEM;
            goto cleanup;
        }
        tn_type *children = (tn_type *)(node + 1);
        memcpy(children, types, n * sizeof(tn_type));
        if (names) {
            const char **name_ptrs = (const char **)(children + n);
            char *p = (char *)(name_ptrs + n);
            for (uint32_t i = 0; i < n; i++) {
                size_t len = strlen(names[i]) + 1;
                memcpy(p, names[i], len);
                name_ptrs[i] = p;
                p += len;
            }
            node->desc.names = name_ptrs;
        }
        node->id = id;
        node->desc.nchildren = n;
        node->desc.depth = depth + 1;
        node->desc.children = children;
        node->desc.hash = h;
        node->next = *slot;
        *slot = node;
    }
    memset(out, 0, sizeof *out);
    out->id = id;
    out->nested = &node->desc;
cleanup:
    pthread_mutex_unlock(&g_intern_lock);
    return rc;
}

int tn_type_list(tn_type *out, tn_type element) { return intern(out, TN_TYPE_LIST, 1, NULL, &element); }

int tn_type_struct(tn_type *out, uint32_t nfields, const char *const *names, const tn_type *types) {
    if (nfields == 0) return tn_error_set(TN_EINVAL, "a STRUCT needs at least one field");
    for (uint32_t i = 0; i < nfields; i++) {
        if (!names[i] || !names[i][0]) return tn_error_set(TN_EINVAL, "STRUCT field %u has an empty name", i + 1);
        for (uint32_t j = 0; j < i; j++)
            if (strcasecmp(names[i], names[j]) == 0)
                return tn_error_set(TN_EINVAL, "duplicate STRUCT field name '%s'", names[i]);
    }
    return intern(out, TN_TYPE_STRUCT, nfields, names, types);
}

int tn_type_map(tn_type *out, tn_type key, tn_type value) {
    static const char *const kv[2] = {"key", "value"};
    tn_type parts[2] = {key, value}, entry;
    int rc = intern(&entry, TN_TYPE_STRUCT, 2, kv, parts);
    if (rc) return rc;
    return intern(out, TN_TYPE_MAP, 1, NULL, &entry);
}

int tn_type_struct_find(tn_type t, const char *name, size_t len) {
    if (t.id != TN_TYPE_STRUCT) return -1;
    for (uint32_t i = 0; i < t.nested->nchildren; i++)
        if (strncasecmp(t.nested->names[i], name, len) == 0 && t.nested->names[i][len] == '\0') return (int)i;
    return -1;
}

/* DuckDB quotes a field name in a type's text unless it is a plain identifier. */
static bool plain_identifier(const char *s) {
    static const char *const reserved[] = {"select", "from", "where", "group", "order", "by", "as", "and", "or",
                                           "not", "null", "true", "false", "table", "create", "case", "when",
                                           "then", "else", "end", "in", "is", "on", "join", "union", "all",
                                           "distinct", "limit", "having", "with", "default", "cast", "array"};
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcasecmp(s, reserved[i]) == 0) return false;
    return true;
}

int tn_type_append_name(tn_buf *out, tn_type t) {
    int rc = 0;
    char tmp[64];
    switch (t.id) {
    case TN_TYPE_LIST:
        if ((rc = tn_type_append_name(out, tn_type_element(t)))) return rc;
        return tn_buf_append(out, "[]", 2);
    case TN_TYPE_MAP:
        if ((rc = tn_buf_append(out, "MAP(", 4)) || (rc = tn_type_append_name(out, tn_type_map_key(t))) ||
            (rc = tn_buf_append(out, ", ", 2)) || (rc = tn_type_append_name(out, tn_type_map_value(t))))
            return rc;
        return tn_buf_append(out, ")", 1);
    case TN_TYPE_STRUCT:
        if ((rc = tn_buf_append(out, "STRUCT(", 7))) return rc;
        for (uint32_t i = 0; i < t.nested->nchildren; i++) {
            const char *name = t.nested->names[i];
            if (i && (rc = tn_buf_append(out, ", ", 2))) return rc;
            if (plain_identifier(name)) rc = tn_buf_append(out, name, strlen(name));
            else {
                rc = tn_buf_append_byte(out, '"');
                for (const char *p = name; !rc && *p; p++)
                    rc = *p == '"' ? tn_buf_append(out, "\"\"", 2) : tn_buf_append_byte(out, (uint8_t)*p);
                if (!rc) rc = tn_buf_append_byte(out, '"');
            }
            if (rc || (rc = tn_buf_append_byte(out, ' ')) || (rc = tn_type_append_name(out, t.nested->children[i])))
                return rc;
        }
        return tn_buf_append(out, ")", 1);
    case TN_TYPE_NULL: return tn_buf_append(out, "\"NULL\"", 6);
    default: tn_type_format(t, tmp, sizeof tmp); return tn_buf_append(out, tmp, strlen(tmp));
    }
}

/* ---------------------------------------------------------------------------------------------
 * Vectors.
 */
int tn_nested_vector_init(tn_vector *v, uint32_t capacity) {
    uint32_t n = v->type.nested->nchildren;
    v->children = tn_calloc(n, sizeof *v->children);
    if (!v->children) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        int rc = tn_vector_init(&v->children[i], v->type.nested->children[i], capacity);
        if (rc) return rc;    /* the caller frees v; untouched children are zeroed */
    }
    return 0;
}

void tn_nested_vector_free(tn_vector *v) {
    if (!v->children) return;
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) tn_vector_free(&v->children[i]);
    free(v->children);
    v->children = NULL;
}

void tn_nested_vector_reset(tn_vector *v) {
    if (!v->children) return;
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) tn_vector_reset(&v->children[i]);
}

int tn_nested_vector_reserve(tn_vector *v, uint32_t capacity) {
    if (v->type.id != TN_TYPE_STRUCT) return 0;     /* a list's child grows with its elements */
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) {
        int rc = tn_vector_reserve(&v->children[i], capacity);
        if (rc) return rc;
    }
    return 0;
}

int tn_nested_vector_set_null(tn_vector *v, uint32_t row) {
    if (v->type.id != TN_TYPE_STRUCT) return 0;     /* the entry was zeroed: length 0 */
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) {
        tn_vector *c = &v->children[i];
        int rc = tn_vector_set_null(c, row);
        if (rc) return rc;
        if (c->count <= row) c->count = row + 1;
    }
    return 0;
}

int tn_nested_vector_fill_null(tn_vector *v, uint32_t from, uint32_t n) {
    if (v->type.id != TN_TYPE_STRUCT) return 0;
    for (uint32_t i = 0; i < v->type.nested->nchildren; i++) {
        int rc = tn_vector_fill_null(&v->children[i], from, n);
        if (rc) return rc;
    }
    return 0;
}

/* The element indices of list rows sel[0..n) of src, back to back, into *out (malloc'd; NULL
 * when there are none); entries of dst from `base` get offsets child_base + running total. */
static int list_element_sel(const tn_vector *src, const uint32_t *sel, uint32_t n, tn_list_entry *dst_entries,
                            uint32_t child_base, uint32_t **out, uint32_t *total_out) {
    const tn_list_entry *se = src->data;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += se[sel ? sel[i] : i].length;
    if (total + child_base > UINT32_MAX) return tn_error_set(TN_ELIMIT, "list vector: too many elements");
    uint32_t *idx = NULL;
    if (total && !(idx = tn_malloc(total * sizeof *idx))) return TN_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        tn_list_entry e = se[sel ? sel[i] : i];
        dst_entries[i].offset = child_base + k;
        dst_entries[i].length = e.length;
        for (uint32_t j = 0; j < e.length; j++) idx[k++] = e.offset + j;
    }
    *out = idx;
    *total_out = k;
    return 0;
}

int tn_nested_vector_gather(tn_vector *dst, const tn_vector *src, const uint32_t *sel, uint32_t n) {
    int rc = 0;
    if (dst->type.id == TN_TYPE_STRUCT) {
        for (uint32_t i = 0; i < src->type.nested->nchildren; i++)
            if ((rc = tn_vector_gather(&dst->children[i], &src->children[i], sel, n))) return rc;
        return 0;
    }
    uint32_t *idx = NULL, total = 0;
    if ((rc = list_element_sel(src, sel, n, dst->data, 0, &idx, &total))) return rc;
    rc = tn_vector_gather(&dst->children[0], &src->children[0], idx, total);
    free(idx);
    return rc;
}

int tn_nested_vector_append_rows(tn_vector *dst, uint32_t base, const tn_vector *src, const uint32_t *sel,
                                 uint32_t n) {
    int rc = 0;
    if (dst->type.id == TN_TYPE_STRUCT) {
        for (uint32_t i = 0; i < src->type.nested->nchildren; i++) {
            tn_vector *c = &dst->children[i];
            if (c->count < base && (rc = tn_vector_fill_null(c, c->count, base - c->count))) return rc;
            c->count = base;
            if ((rc = tn_vector_append_rows(c, &src->children[i], sel, n))) return rc;
        }
        return 0;
    }
    tn_vector *child = &dst->children[0];
    uint32_t *idx = NULL, total = 0;
    if ((rc = list_element_sel(src, sel, n, (tn_list_entry *)dst->data + base, child->count, &idx, &total)))
        return rc;
    if (total) rc = tn_vector_append_rows(child, &src->children[0], idx, total);
    free(idx);
    return rc;
}

int tn_nested_vector_copy_row(tn_vector *dst, uint32_t drow, const tn_vector *src, uint32_t srow) {
    if (dst->validity) tn_vector_set_valid_bit(dst, drow, true);
    if (dst->type.id == TN_TYPE_STRUCT) {
        for (uint32_t i = 0; i < src->type.nested->nchildren; i++) {
            tn_vector *c = &dst->children[i];
            int rc = tn_vector_copy_row(c, drow, &src->children[i], srow);
            if (rc) return rc;
            if (c->count <= drow) c->count = drow + 1;
        }
        return 0;
    }
    uint32_t one = srow;
    return tn_nested_vector_append_rows_at(dst, drow, src, &one);
}

/* Entry drow of dst := a copy of list row *srow of src, elements appended to dst's child. */
int tn_nested_vector_append_rows_at(tn_vector *dst, uint32_t drow, const tn_vector *src, const uint32_t *srow) {
    tn_vector *child = &dst->children[0];
    uint32_t *idx = NULL, total = 0;
    int rc = list_element_sel(src, srow, 1, (tn_list_entry *)dst->data + drow, child->count, &idx, &total);
    if (rc) return rc;
    if (total) rc = tn_vector_append_rows(child, &src->children[0], idx, total);
    free(idx);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Order: element by element (lists, maps) or field by field (structs); NULL children sort above
 * every value and equal each other; a shorter list that is a prefix sorts first.
 */
static int child_compare(const tn_vector *a, uint32_t ra, const tn_vector *b, uint32_t rb) {
    bool va = tn_vector_is_valid(a, ra), vb = tn_vector_is_valid(b, rb);
    if (!va || !vb) return va == vb ? 0 : va ? -1 : 1;
    tn_value x, y;
    tn_vector_get_value(a, ra, &x);
    tn_vector_get_value(b, rb, &y);
    return tn_value_compare(&x, &y);
}

int tn_nested_compare(const tn_vector *a, uint32_t ra, const tn_vector *b, uint32_t rb) {
    if (a->type.id == TN_TYPE_STRUCT) {
        for (uint32_t i = 0; i < a->type.nested->nchildren; i++) {
            int c = child_compare(&a->children[i], ra, &b->children[i], rb);
            if (c) return c;
        }
        return 0;
    }
    tn_list_entry ea = ((const tn_list_entry *)a->data)[ra], eb = ((const tn_list_entry *)b->data)[rb];
    uint32_t n = ea.length < eb.length ? ea.length : eb.length;
    for (uint32_t i = 0; i < n; i++) {
        int c = child_compare(&a->children[0], ea.offset + i, &b->children[0], eb.offset + i);
        if (c) return c;
    }
    return ea.length < eb.length ? -1 : ea.length > eb.length ? 1 : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Text, as DuckDB's CAST(x AS VARCHAR).
 */
static bool needs_quotes(const char *s, size_t n) {
    if (n == 0) return true;
    if (n == 4 && strncasecmp(s, "null", 4) == 0) return true;
    if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])) return true;
    for (size_t i = 0; i < n; i++)
        if (memchr("[]{}(),'\":=", s[i], 11)) return true;
    return false;
}

static int append_quoted(tn_buf *out, const char *s, size_t n) {
    int rc = tn_buf_append_byte(out, '\'');
    for (size_t i = 0; !rc && i < n; i++) {
        if ((s[i] == '\'' || s[i] == '\\') && (rc = tn_buf_append_byte(out, '\\'))) break;
        rc = tn_buf_append_byte(out, (uint8_t)s[i]);
    }
    return rc ? rc : tn_buf_append_byte(out, '\'');
}

/* One element, field or key/value: NULL, a nested value as is, a scalar quoted when needed. */
static int append_child(tn_buf *out, const tn_vector *v, uint32_t row) {
    if (!tn_vector_is_valid(v, row) || v->type.id == TN_TYPE_NULL) return tn_buf_append(out, "NULL", 4);
    if (tn_type_is_nested(v->type)) return tn_nested_to_text(out, v, row);
    size_t start = out->len;
    int rc = tn_value_format(out, v, row);
    if (rc < 0) return rc;
    if (!needs_quotes((const char *)out->data + start, out->len - start)) return 0;
    size_t n = out->len - start;
    char *copy = tn_malloc(n ? n : 1);
    if (!copy) return TN_ENOMEM;
    memcpy(copy, out->data + start, n);
    out->len = start;
    rc = append_quoted(out, copy, n);
    free(copy);
    return rc;
}

int tn_nested_to_text(tn_buf *out, const tn_vector *v, uint32_t row) {
    int rc = 0;
    if (v->type.id == TN_TYPE_STRUCT) {
        if ((rc = tn_buf_append_byte(out, '{'))) return rc;
        for (uint32_t i = 0; i < v->type.nested->nchildren; i++) {
            const char *name = v->type.nested->names[i];
            if ((i && (rc = tn_buf_append(out, ", ", 2))) || (rc = append_quoted(out, name, strlen(name))) ||
                (rc = tn_buf_append(out, ": ", 2)) || (rc = append_child(out, &v->children[i], row)))
                return rc;
        }
        return tn_buf_append_byte(out, '}');
    }
    tn_list_entry e = ((const tn_list_entry *)v->data)[row];
    const tn_vector *child = &v->children[0];
    bool map = v->type.id == TN_TYPE_MAP;
    if ((rc = tn_buf_append_byte(out, map ? '{' : '['))) return rc;
    for (uint32_t i = 0; i < e.length; i++) {
        if (i && (rc = tn_buf_append(out, ", ", 2))) return rc;
        if (map) {
            if ((rc = append_child(out, &child->children[0], e.offset + i)) || (rc = tn_buf_append_byte(out, '=')) ||
                (rc = append_child(out, &child->children[1], e.offset + i)))
                return rc;
        } else if ((rc = append_child(out, child, e.offset + i))) return rc;
    }
    return tn_buf_append_byte(out, map ? '}' : ']');
}

/* ---------------------------------------------------------------------------------------------
 * Arena copies (folded constants).
 */
static int clone_into(tn_arena *a, tn_vector *dst, const tn_vector *src) {
    memset(dst, 0, sizeof *dst);
    dst->type = src->type;
    dst->count = src->count;
    dst->capacity = src->count ? src->count : 1;
    size_t w = tn_type_width(src->type);
    if (!(dst->data = tn_arena_calloc(a, (size_t)dst->capacity * (w ? w : 1)))) return TN_ENOMEM;
    if (w && src->count) memcpy(dst->data, src->data, (size_t)src->count * w);
    if (src->validity) {
        size_t words = ((size_t)dst->capacity + 63) / 64;
        if (!(dst->validity = tn_arena_alloc(a, words * 8))) return TN_ENOMEM;
        memcpy(dst->validity, src->validity, words * 8);
    }
    if (tn_type_is_string(src->type))
        for (uint32_t i = 0; i < src->count; i++) {
            tn_str *s = (tn_str *)dst->data + i;
            if (!s->len) { s->ptr = ""; continue; }
            char *p = tn_arena_alloc(a, s->len);
            if (!p) return TN_ENOMEM;
            memcpy(p, s->ptr, s->len);
            s->ptr = p;
        }
    if (src->children) {
        uint32_t n = src->type.nested->nchildren;
        if (!(dst->children = tn_arena_calloc(a, n * sizeof *dst->children))) return TN_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            int rc = clone_into(a, &dst->children[i], &src->children[i]);
            if (rc) return rc;
        }
    }
    return 0;
}

int tn_vector_row_to_arena(tn_arena *arena, const tn_vector *src, uint32_t row, const tn_vector **out) {
    tn_vector tmp, *dst = tn_arena_alloc(arena, sizeof *dst);
    if (!dst) return TN_ENOMEM;
    int rc = tn_vector_init(&tmp, src->type, 1);
    if (rc) return rc;
    rc = tn_vector_copy_row(&tmp, 0, src, row);
    tmp.count = 1;
    if (!rc) rc = clone_into(arena, dst, &tmp);
    tn_vector_free(&tmp);
    if (!rc) *out = dst;
    return rc;
}

/* ----- handing a pruned STRUCT's rows to a vector of the full type ----- */

/* Swap the buffers (not the types or children arrays) of two vectors of the same shape, level
 * by level. */
static void swap_bufs(tn_vector *a, tn_vector *b) {
    tn_vector t = *a;
    a->count = b->count, a->capacity = b->capacity, a->data = b->data, a->validity = b->validity, a->heap = b->heap;
    b->count = t.count, b->capacity = t.capacity, b->data = t.data, b->validity = t.validity, b->heap = t.heap;
    if (a->children && b->children)
        for (uint32_t i = 0; i < a->type.nested->nchildren; i++) swap_bufs(&a->children[i], &b->children[i]);
}

/* Whether rows [0, n) of v are NULL already (a field left NULL by an earlier call). */
static bool all_null(const tn_vector *v, uint32_t n) {
    if (!v->validity || v->count < n) return false;
    for (uint32_t w = 0; w < n / 64; w++)
        if (v->validity[w]) return false;
    if ((n & 63) && (v->validity[n / 64] & (((uint64_t)1 << (n & 63)) - 1))) return false;
    return true;
}

int tn_vector_swap_widen(tn_vector *full, tn_vector *part, uint32_t n) {
    if (full->type.id != TN_TYPE_STRUCT || part->type.id != TN_TYPE_STRUCT || tn_type_equal(full->type, part->type)) {
        swap_bufs(full, part);
        full->count = n;
        return 0;
    }
    tn_vector t = *full;
    full->count = n, full->capacity = part->capacity, full->data = part->data, full->validity = part->validity;
    full->heap = part->heap;
    part->count = t.count, part->capacity = t.capacity, part->data = t.data, part->validity = t.validity;
    part->heap = t.heap;
    const struct tn_type_nested *fn = full->type.nested;
    for (uint32_t i = 0; i < fn->nchildren; i++) {
        tn_vector *c = &full->children[i];
        int j = tn_type_struct_find(part->type, fn->names[i], strlen(fn->names[i]));
        int rc;
        if (j >= 0) rc = tn_vector_swap_widen(c, &part->children[j], n);
        else if (all_null(c, n)) {
            c->count = n;
            rc = 0;
        } else {
            tn_vector_reset(c);
            rc = tn_vector_fill_null(c, 0, n);
        }
        if (rc) return rc;
    }
    return 0;
}
