/*
 * layout/route.c: the partition router every layout uses to split rows by Hive partition. Rows
 * are routed by the typed bytes of their partition values (hashed, open addressing); a
 * partition's texts and canonical key are built once, when its tuple is first seen, together
 * with the NOT NULL and static-partition checks. Groups keep input order.
 *
 * Tuple bytes, per partition column: 0 (NULL) or 1 + the value (fixed-width bytes, or a u32
 * length + the bytes of a string). Equal tuples give equal directories.
 */
#include "layout/layoutInt.h"

#include <stdlib.h>
#include <string.h>

typedef struct pentry {
    uint64_t hash;
    const uint8_t *tuple;
    uint32_t tuple_len;
    uint64_t stamp;                    /* chunk in which `group` is valid */
    uint32_t group;                    /* its group in that chunk */
    tn_layout_partition p;
} pentry;

typedef struct key_ref {
    const char *key;
    uint32_t id;
} key_ref;

struct tn_layout_router {
    const tn_table *t;
    uint32_t npart;
    uint32_t *part_cols;               /* logical index per partition column */
    /* static spec, per partition column: given?, canonical text (NULL = null) */
    bool *spec_given;
    const char **spec_text;
    tn_delta_kv *spec_kv;              /* physical name -> value text */
    uint32_t nspec;
    pentry *ents;
    uint32_t nents, cap_ents;
    uint32_t *slots;                   /* entry index + 1, 0 = empty */
    uint32_t nslots;
    uint64_t stamp;
    key_ref *keys;                     /* sorted by key (tn_layout_router_find_key) */
    uint32_t nkeys;
    /* per-chunk output */
    uint32_t *sel, *start, *gpart, *group, *gent;
    uint32_t cap_rows;
    tn_arena *arena;
};

static int canon_text(tn_buf *out, const tn_value *v, bool *is_null) {
    tn_buf_clear(out);
    int rc = tn_table_partition_text(out, v, is_null);
    if (!rc) rc = tn_buf_append_byte(out, 0);
    return rc;
}

int tn_layout_router_open(tn_layout_router **out, const tn_table *t, const tn_delta_kv *spec, uint32_t nspec) {
    int rc = 0;
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    tn_buf text = TN_BUF_INIT;
    *out = NULL;
    tn_layout_router *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->t = t;
    r->arena = tn_arena_create(0);
    if (!r->arena) { rc = TN_ENOMEM; goto cleanup; }
    uint32_t n = md->ncolumns + 1;
    r->part_cols = tn_arena_alloc(r->arena, sizeof *r->part_cols * n);
    r->spec_given = tn_arena_calloc(r->arena, sizeof *r->spec_given * n);
    r->spec_text = tn_arena_calloc(r->arena, sizeof *r->spec_text * n);
    r->spec_kv = tn_arena_calloc(r->arena, sizeof *r->spec_kv * (nspec + 1));
    if (!r->part_cols || !r->spec_given || !r->spec_text || !r->spec_kv) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (md->columns[i].is_partition) r->part_cols[r->npart++] = i;
    for (uint32_t i = 0; i < nspec; i++) {
        const tn_delta_kv *kv = &spec[i];
        int ci = tn_table_column_index(t, kv->key);
        if (ci < 0 || !md->columns[ci].is_partition) {
            rc = tn_error_set(TN_EINVAL, "table '%s': '%s' is not a partition column", tn_table_path(t), kv->key);
            goto cleanup;
        }
        uint32_t k = 0;
        while (r->part_cols[k] != (uint32_t)ci) k++;
        tn_value v;
        const char *vt = kv->value ? tn_arena_strdup(r->arena, kv->value) : NULL;
        rc = tn_table_partition_value_parse(&v, md->columns[ci].type, vt);
        if (rc) {
            tn_error_prefix(rc, "table '%s': PARTITION (%s = ...)", tn_table_path(t), kv->key);
            goto cleanup;
        }
        bool is_null;
        rc = canon_text(&text, &v, &is_null);
        if (rc) goto cleanup;
        r->spec_given[k] = true;
        r->spec_text[k] = is_null ? NULL : tn_arena_strdup(r->arena, (const char *)text.data);
        r->spec_kv[r->nspec].key = md->columns[ci].physical_name;
        r->spec_kv[r->nspec].value = vt;
        r->nspec++;
        if (!is_null && !r->spec_text[k]) { rc = TN_ENOMEM; goto cleanup; }
    }
    *out = r;
    r = NULL;
cleanup:
    tn_buf_free(&text);
    tn_layout_router_close(r);
    return rc;
}

void tn_layout_router_close(tn_layout_router *r) {
    if (!r) return;
    tn_free(r->ents);
    tn_free(r->slots);
    tn_free(r->keys);
    tn_free(r->sel);
    tn_free(r->start);
    tn_free(r->gpart);
    tn_free(r->group);
    tn_free(r->gent);
    tn_arena_destroy(r->arena);
    tn_free(r);
}

uint32_t tn_layout_router_num_partitions(const tn_layout_router *r) { return r->npart ? r->nents : 1; }

const tn_layout_partition *tn_layout_router_partition(const tn_layout_router *r, uint32_t id) {
    static const tn_layout_partition none = {0, NULL, 0, ""};
    if (r->npart == 0) return id == 0 ? &none : NULL;
    return id < r->nents ? &r->ents[id].p : NULL;
}

const tn_delta_kv *tn_layout_router_spec(const tn_layout_router *r, uint32_t *n) {
    *n = r->nspec;
    return r->spec_kv;
}

bool tn_layout_router_spec_matches(const tn_layout_router *r, const tn_delta_file *f) {
    const tn_delta_snapshot *snap = tn_table_snapshot(r->t);
    tn_buf text = TN_BUF_INIT;
    bool match = true;
    for (uint32_t k = 0; k < r->npart && match; k++) {
        if (!r->spec_given[k]) continue;
        const tn_delta_column *c = tn_table_column(r->t, r->part_cols[k]);
        bool is_null = false;
        const char *s = tn_delta_partition_value(snap, f, c->name, &is_null);
        tn_value v;
        if (tn_table_partition_value_parse(&v, c->type, is_null ? NULL : s) != 0) {
            tn_error_clear();
            match = false;
            break;
        }
        if (canon_text(&text, &v, &is_null) != 0) {
            tn_error_clear();
            match = false;
            break;
        }
        const char *want = r->spec_text[k];
        match = is_null ? want == NULL : want != NULL && strcmp(want, (const char *)text.data) == 0;
    }
    tn_buf_free(&text);
    return match;
}

static int tuple_of(const tn_layout_router *r, const tn_chunk *chunk, uint32_t row, tn_buf *out) {
    tn_buf_clear(out);
    for (uint32_t k = 0; k < r->npart; k++) {
        const tn_vector *v = &chunk->cols[r->part_cols[k]];
        int rc;
        if (!tn_vector_is_valid(v, row)) {
            rc = tn_buf_append_byte(out, 0);
        } else if (tn_type_is_string(v->type)) {
            const tn_str *sv = (const tn_str *)v->data + row;
            uint8_t hdr[5] = {1, (uint8_t)sv->len, (uint8_t)(sv->len >> 8), (uint8_t)(sv->len >> 16),
                              (uint8_t)(sv->len >> 24)};
            rc = tn_buf_append(out, hdr, 5);
            if (!rc) rc = tn_buf_append(out, sv->ptr, sv->len);
        } else {
            size_t wd = tn_type_width(v->type);
            rc = tn_buf_append_byte(out, 1);
            if (!rc) rc = tn_buf_append(out, (const uint8_t *)v->data + (size_t)row * wd, wd);
        }
        if (rc) return rc;
    }
    return 0;
}

/* Whether rows a and b of chunk have equal partition values (NULL equals NULL), straight from
 * the vectors: rows usually repeat the previous row's partition. */
static bool same_tuple(const tn_layout_router *r, const tn_chunk *chunk, uint32_t a, uint32_t b) {
    for (uint32_t k = 0; k < r->npart; k++) {
        const tn_vector *v = &chunk->cols[r->part_cols[k]];
        bool va = tn_vector_is_valid(v, a), vb = tn_vector_is_valid(v, b);
        if (va != vb) return false;
        if (!va) continue;
        if (tn_type_is_string(v->type)) {
            const tn_str *x = (const tn_str *)v->data + a, *y = (const tn_str *)v->data + b;
            if (x->len != y->len || (x->ptr != y->ptr && memcmp(x->ptr, y->ptr, x->len) != 0)) return false;
        } else {
            size_t wd = tn_type_width(v->type);
            if (memcmp((const uint8_t *)v->data + (size_t)a * wd, (const uint8_t *)v->data + (size_t)b * wd, wd) != 0)
                return false;
        }
    }
    return true;
}

static int slots_rebuild(tn_layout_router *r, uint32_t nslots) {
    uint32_t *slots = tn_calloc(nslots, sizeof *slots);
    if (!slots) return TN_ENOMEM;
    for (uint32_t i = 0; i < r->nents; i++) {
        uint32_t h = (uint32_t)r->ents[i].hash & (nslots - 1);
        while (slots[h]) h = (h + 1) & (nslots - 1);
        slots[h] = i + 1;
    }
    tn_free(r->slots);
    r->slots = slots;
    r->nslots = nslots;
    return 0;
}

/* Builds the partition of row (checks, texts, key) into pe. */
static int build_partition(tn_layout_router *r, const tn_chunk *chunk, uint32_t row, pentry *pe) {
    const tn_table *t = r->t;
    int rc = 0;
    tn_buf key = TN_BUF_INIT, text = TN_BUF_INIT;
    tn_delta_kv *vals = tn_arena_calloc(r->arena, sizeof *vals * r->npart);
    if (!vals) return TN_ENOMEM;
    for (uint32_t k = 0; k < r->npart && !rc; k++) {
        const tn_delta_column *c = tn_table_column(t, r->part_cols[k]);
        tn_value v;
        tn_vector_get_value(&chunk->cols[r->part_cols[k]], row, &v);
        v.type = c->type;
        if (v.is_null && !c->nullable) {
            rc = tn_error_set(TN_ECONSTRAINT, "table '%s': NULL in NOT NULL column '%s'", tn_table_path(t), c->name);
            break;
        }
        bool is_null;
        rc = canon_text(&text, &v, &is_null);
        if (rc) break;
        const char *s = (const char *)text.data;
        if (r->spec_given[k]) {
            const char *want = r->spec_text[k];
            bool same = is_null ? want == NULL : want != NULL && strcmp(want, s) == 0;
            if (!same) {
                rc = tn_error_set(TN_ECONSTRAINT, "table '%s': row does not belong to the partition being overwritten (%s)",
                                  tn_table_path(t), c->name);
                break;
            }
        }
        vals[k].key = c->physical_name;
        vals[k].value = is_null ? NULL : tn_arena_strdup(r->arena, s);
        if (!is_null && !vals[k].value) { rc = TN_ENOMEM; break; }
        if (!rc) rc = is_null ? tn_buf_printf(&key, "\x01N\x02") : tn_buf_printf(&key, "\x01V%s\x02", s);
    }
    if (!rc) rc = tn_buf_append_byte(&key, 0);
    if (!rc) {
        pe->p.values = vals;
        pe->p.nvalues = r->npart;
        pe->p.key = tn_arena_strdup(r->arena, (const char *)key.data);
        if (!pe->p.key) rc = TN_ENOMEM;
    }
    tn_buf_free(&key);
    tn_buf_free(&text);
    return rc;
}

/* The entry of row's tuple: found, or built and added. */
static int entry_get(tn_layout_router *r, const tn_chunk *chunk, uint32_t row, const tn_buf *tup, uint32_t *out) {
    int rc = 0;
    uint64_t hash = tn_hash_bytes(tup->data, tup->len, 0x7461726e);
    if (r->nslots) {
        for (uint32_t h = (uint32_t)hash & (r->nslots - 1);; h = (h + 1) & (r->nslots - 1)) {
            uint32_t e = r->slots[h];
            if (!e) break;
            const pentry *pe = &r->ents[e - 1];
            if (pe->hash == hash && pe->tuple_len == tup->len && memcmp(pe->tuple, tup->data, tup->len) == 0) {
                *out = e - 1;
                return 0;
            }
        }
    }
    if (r->nents == r->cap_ents) {
        uint32_t cap = r->cap_ents ? r->cap_ents * 2 : 16;
        pentry *p = tn_realloc(r->ents, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        r->ents = p;
        r->cap_ents = cap;
    }
    if ((r->nents + 1) * 2 > r->nslots && (rc = slots_rebuild(r, r->nslots ? r->nslots * 2 : 64))) return rc;
    pentry *pe = &r->ents[r->nents];
    memset(pe, 0, sizeof *pe);
    rc = build_partition(r, chunk, row, pe);
    if (rc) return rc;
    uint8_t *tb = tn_arena_alloc(r->arena, tup->len ? tup->len : 1);
    if (!tb) return TN_ENOMEM;
    if (tup->len) memcpy(tb, tup->data, tup->len);
    pe->hash = hash;
    pe->tuple = tb;
    pe->tuple_len = (uint32_t)tup->len;
    pe->p.id = r->nents;
    uint32_t h = (uint32_t)hash & (r->nslots - 1);
    while (r->slots[h]) h = (h + 1) & (r->nslots - 1);
    r->slots[h] = r->nents + 1;
    *out = r->nents++;
    tn_free(r->keys);   /* find_key rebuilds it */
    r->keys = NULL;
    r->nkeys = 0;
    return 0;
}

static int reserve_rows(tn_layout_router *r, uint32_t n) {
    if (n <= r->cap_rows) return 0;
    uint32_t cap = n < 2048 ? 2048 : n;
    uint32_t **arrs[] = {&r->sel, &r->start, &r->gpart, &r->group, &r->gent};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) {
        uint32_t *p = tn_realloc(*arrs[i], sizeof **arrs[i] * (cap + 1));
        if (!p) return TN_ENOMEM;
        *arrs[i] = p;
    }
    r->cap_rows = cap;
    return 0;
}

int tn_layout_router_route(tn_layout_router *r, const tn_chunk *chunk, tn_layout_route *out) {
    int rc = 0;
    uint32_t n = chunk->count;
    memset(out, 0, sizeof *out);
    rc = reserve_rows(r, n);
    if (rc) return rc;
    if (n == 0) return 0;
    if (r->npart == 0) {
        for (uint32_t i = 0; i < n; i++) r->sel[i] = i;
        r->gpart[0] = 0;
        r->start[0] = 0;
        r->start[1] = n;
        out->ngroups = 1;
        goto done;
    }
    tn_buf tup = TN_BUF_INIT;
    uint32_t ngroups = 0, prev_group = 0;
    uint64_t stamp = ++r->stamp;
    uint32_t *gcount = r->start;       /* counts, then offsets */
    for (uint32_t rr = 0; rr < n && !rc; rr++) {
        if (rr > 0 && same_tuple(r, chunk, rr - 1, rr)) {
            r->group[rr] = prev_group;
            gcount[prev_group]++;
            continue;
        }
        rc = tuple_of(r, chunk, rr, &tup);
        if (rc) break;
        uint32_t e;
        rc = entry_get(r, chunk, rr, &tup, &e);
        if (rc) break;
        pentry *pe = &r->ents[e];
        if (pe->stamp != stamp) {
            pe->stamp = stamp;
            pe->group = ngroups;
            r->gent[ngroups] = e;
            gcount[ngroups] = 0;
            ngroups++;
        }
        uint32_t g = pe->group;
        r->group[rr] = prev_group = g;
        gcount[g]++;
    }
    tn_buf_free(&tup);
    if (rc) return rc;
    /* counting sort of the rows by group (stable) */
    uint32_t acc = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
        uint32_t c = gcount[g];
        gcount[g] = acc;
        acc += c;
    }
    gcount[ngroups] = n;
    for (uint32_t rr = 0; rr < n; rr++) r->sel[gcount[r->group[rr]]++] = rr;
    for (uint32_t g = ngroups; g-- > 1;) gcount[g] = gcount[g - 1];
    gcount[0] = 0;
    for (uint32_t g = 0; g < ngroups; g++) r->gpart[g] = r->gent[g];
    out->ngroups = ngroups;
done:
    out->part = r->gpart;
    out->start = r->start;
    out->sel = r->sel;
    return 0;
}

static int key_cmp(const void *a, const void *b) {
    return strcmp(((const key_ref *)a)->key, ((const key_ref *)b)->key);
}

int64_t tn_layout_router_find_key(tn_layout_router *r, const char *key) {
    uint32_t np = tn_layout_router_num_partitions(r);
    if (!r->keys) {
        r->keys = tn_malloc(sizeof *r->keys * (np ? np : 1));
        if (!r->keys) return -1;
        for (uint32_t i = 0; i < np; i++) {
            r->keys[i].key = tn_layout_router_partition(r, i)->key;
            r->keys[i].id = i;
        }
        r->nkeys = np;
        qsort(r->keys, np, sizeof *r->keys, key_cmp);
    }
    key_ref want = {key, 0};
    const key_ref *k = bsearch(&want, r->keys, r->nkeys, sizeof *r->keys, key_cmp);
    return k ? (int64_t)k->id : -1;
}
