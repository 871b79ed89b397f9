/*
 * layout/bucket/mow.c: merge-on-write, the reading side of deletion-vector upserts (tables with
 * delta.enableDeletionVectors = true): the set of one bucket's new keys, and the scan of the
 * bucket's kept files that collects only the stored rows whose key may be among them, with the
 * file and row position of each (what the deletion vectors mark). The merge (merge.c) and the
 * commit (bucket.c) do the rest; this file writes nothing.
 */
#include "layout/bucket/bucketInt.h"

#include <string.h>

/* A 64-bit hash of the non-partition key columns of a row (0 never: it marks an empty slot);
 * cols holds every table column, or (compact) just the key columns in ks->cols order. */
static uint64_t key_hash(const tn_bucket_keyset *ks, const tn_vector *cols, bool compact, uint32_t row) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t k = 0; k < ks->ncols; k++) {
        const tn_vector *v = compact ? &cols[k] : &cols[ks->cols[k]];
        uint64_t x;
        if (!tn_vector_is_valid(v, row)) {
            x = 0x5bd1e995u;
        } else if (ks->width[k] == 8) {
            x = ((const uint64_t *)v->data)[row];
        } else if (ks->width[k] == 4) {
            x = ((const uint32_t *)v->data)[row];
        } else {
            tn_value val;
            tn_vector_get_value(v, row, &val);
            switch ((tn_type_id)val.type.id) {
            case TN_TYPE_VARCHAR:
            case TN_TYPE_VARBINARY: x = tn_hash_bytes(val.u.s.ptr, val.u.s.len, 7); break;
            case TN_TYPE_FLOAT:
            case TN_TYPE_DOUBLE:
                if (val.u.d == 0) val.u.d = 0;       /* -0.0 = 0.0, as the key comparison has it */
                memcpy(&x, &val.u.d, sizeof x);
                break;
            case TN_TYPE_BOOLEAN: x = val.u.b; break;
            case TN_TYPE_DECIMAL:
                if (tn_type_is_decimal128(val.type)) {
                    x = tn_hash_bytes(&val.u.i128, sizeof val.u.i128, 7);
                    break;
                }
                x = (uint64_t)val.u.i;
                break;
            default: x = tn_hash_bytes(&val.u, sizeof val.u.i, 7); break;
            }
        }
        h = tn_hash_u64(h ^ x) + k;
    }
    return h ? h : 1;
}

/* Columns read straight from the vector (integers of 4 or 8 bytes, DATE, TIMESTAMP). */
static uint8_t raw_width(tn_type ty) {
    switch ((tn_type_id)ty.id) {
    case TN_TYPE_INTEGER:
    case TN_TYPE_DATE: return 4;
    case TN_TYPE_BIGINT:
    case TN_TYPE_TIMESTAMP:
    case TN_TYPE_TIMESTAMP_TZ: return 8;
    default: return 0;
    }
}

int tn_bucket_keyset_build(tn_bucket_keyset *ks, const tn_table *t, const tn_bucket_spec *spec,
                           const tn_bucket_rows *rows, const uint32_t *sel, uint32_t n) {
    memset(ks, 0, sizeof *ks);
    for (uint32_t k = 0; k < spec->nkey; k++) {
        uint32_t c = spec->key[k];
        if (rows->skip[c]) continue;           /* partition columns: equal in the whole bucket */
        ks->width[ks->ncols] = raw_width(tn_table_column(t, c)->type);
        ks->cols[ks->ncols++] = c;
    }
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n + 16) cap *= 2;
    ks->rows = rows;
    ks->slots = tn_calloc(cap, sizeof *ks->slots);
    ks->row = tn_malloc(sizeof *ks->row * cap);
    if (!ks->slots || !ks->row) return TN_ENOMEM;
    ks->mask = cap - 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = key_hash(ks, rows->cols, false, sel[i]);
        uint32_t s = (uint32_t)h & ks->mask;
        while (ks->slots[s] && ks->slots[s] != h) s = (s + 1) & ks->mask;
        if (ks->slots[s] && !ks->collision) {          /* the same hash: the same key, or a collision */
            for (uint32_t k = 0; k < ks->ncols && !ks->collision; k++) {
                tn_value a, b;
                tn_vector_get_value(&rows->cols[ks->cols[k]], ks->row[s], &a);
                tn_vector_get_value(&rows->cols[ks->cols[k]], sel[i], &b);
                ks->collision = tn_value_compare(&a, &b) != 0;
            }
        }
        ks->slots[s] = h;
        ks->row[s] = sel[i];
    }
    return 0;
}

void tn_bucket_keyset_free(tn_bucket_keyset *ks) {
    if (!ks) return;
    tn_free(ks->slots);
    tn_free(ks->row);
}

/* The slot of hash h, -1 when absent. */
static int64_t keyset_find(const tn_bucket_keyset *ks, uint64_t h) {
    for (uint32_t s = (uint32_t)h & ks->mask; ks->slots[s]; s = (s + 1) & ks->mask)
        if (ks->slots[s] == h) return s;
    return -1;
}

int tn_bucket_kept_reserve(tn_bucket_kept *kp, uint32_t n) {
    if (n <= kp->cap) return 0;
    uint32_t cap = kp->cap ? kp->cap : 256;
    while (cap < n) cap = cap > UINT32_MAX / 2 ? n : cap * 2;
    uint8_t *kept = tn_realloc(kp->kept, cap);
    if (kept) kp->kept = kept;
    uint32_t *file = tn_realloc(kp->file, sizeof *file * cap);
    if (file) kp->file = file;
    uint64_t *pos = tn_realloc(kp->pos, sizeof *pos * cap);
    if (pos) kp->pos = pos;
    if (!kept || !file || !pos) return TN_ENOMEM;
    memset(kp->kept + kp->cap, 0, cap - kp->cap);
    kp->cap = cap;
    return 0;
}

void tn_bucket_kept_free(tn_bucket_kept *kp) {
    if (!kp) return;
    tn_free(kp->kept);
    tn_free(kp->file);
    tn_free(kp->pos);
    memset(kp, 0, sizeof *kp);
}

typedef struct kept_ctx {
    const tn_bucket_keyset *ks;
    tn_bucket_rows *stored;
    tn_bucket_kept *kp;
    const uint32_t *cols;              /* the projection (NULL: every column) */
    uint32_t ncols;
    tn_table_scan *scan;
    uint32_t sel[TN_VECTOR_SIZE];
    uint64_t idx[TN_VECTOR_SIZE];
} kept_ctx;

static int collect_kept(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    kept_ctx *c = ctx;
    uint32_t n = 0;
    for (uint32_t r = 0; r < chunk->count; r++)
        if (keyset_find(c->ks, key_hash(c->ks, chunk->cols, c->cols != NULL, r)) >= 0) c->sel[n++] = r;
    if (n == 0) return 0;
    int rc = tn_table_scan_row_indexes(c->scan, file, first_row, chunk->count, c->idx);
    uint32_t base = c->stored->count;
    if (!rc && c->cols) rc = tn_bucket_rows_append_columns(c->stored, chunk, c->cols, c->ncols, c->sel, n);
    else if (!rc) rc = tn_bucket_rows_append(c->stored, chunk, c->sel, n, NULL);
    if (!rc) rc = tn_bucket_kept_reserve(c->kp, base + n);
    for (uint32_t i = 0; i < n && !rc; i++) {
        c->kp->kept[base + i] = 1;
        c->kp->file[base + i] = file;
        c->kp->pos[base + i] = c->idx[c->sel[i]];
    }
    return rc;
}

int tn_bucket_read_kept(tn_table *t, const uint32_t *files, uint32_t nfiles, const tn_table_filter *filters,
                        uint32_t nfilters, const tn_bucket_keyset *ks, int seq_col, tn_bucket_rows *stored,
                        tn_bucket_kept *kp) {
    if (nfiles == 0) return 0;
    kept_ctx *c = tn_malloc(sizeof *c);
    if (!c) return TN_ENOMEM;
    c->ks = ks;
    c->stored = stored;
    c->kp = kp;
    c->scan = NULL;
    c->cols = NULL;
    c->ncols = 0;
    uint32_t cols[TN_BUCKET_MAX_KEYS + 1];
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    if (seq_col == -2) {
        so.all_columns = true;
    } else {
        /* the key columns (in the key set's order: key_hash reads them compact), then the
         * sequence field when it is not one of them */
        memcpy(cols, ks->cols, sizeof *cols * ks->ncols);
        uint32_t nc = ks->ncols;
        bool have = seq_col < 0;
        for (uint32_t k = 0; k < nc && !have; k++) have = cols[k] == (uint32_t)seq_col;
        if (!have) cols[nc++] = (uint32_t)seq_col;
        c->cols = cols;
        c->ncols = nc;
        so.columns = cols;
        so.ncolumns = nc;
    }
    so.filters = filters;
    so.nfilters = nfilters;
    int rc = tn_table_scan_open_files(&c->scan, t, &so, files, nfiles);
    if (!rc) rc = tn_table_scan_run(c->scan, collect_kept, c);
    tn_table_scan_close(c->scan);
    tn_free(c);
    return rc;
}

/* Keys only (deduplicate without a sequence field: a stored row never survives a new row of its
 * key, so only where the replaced rows are matters): the kept files' key columns are read and
 * the positions of rows equal to a new key are appended to kp (kept = 1, file, pos), n rows. */
typedef struct keys_ctx {
    const tn_bucket_keyset *ks;
    tn_bucket_kept *kp;
    uint32_t n;
    tn_table_scan *scan;
    uint64_t idx[TN_VECTOR_SIZE];
} keys_ctx;

static int collect_keys(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    keys_ctx *c = ctx;
    const tn_bucket_keyset *ks = c->ks;
    bool have_idx = false;
    for (uint32_t r = 0; r < chunk->count; r++) {
        int64_t s = keyset_find(ks, key_hash(ks, chunk->cols, true, r));
        if (s < 0) continue;
        bool same = true;
        for (uint32_t k = 0; k < ks->ncols && same; k++) {
            tn_value a, b;
            tn_vector_get_value(&chunk->cols[k], r, &a);
            tn_vector_get_value(&ks->rows->cols[ks->cols[k]], ks->row[s], &b);
            same = tn_value_compare(&a, &b) == 0;
        }
        if (!same) continue;
        int rc = 0;
        if (!have_idx) rc = tn_table_scan_row_indexes(c->scan, file, first_row, chunk->count, c->idx);
        have_idx = true;
        if (!rc) rc = tn_bucket_kept_reserve(c->kp, c->n + 1);
        if (rc) return rc;
        c->kp->kept[c->n] = 1;
        c->kp->file[c->n] = file;
        c->kp->pos[c->n++] = c->idx[r];
    }
    return 0;
}

int tn_bucket_read_kept_keys(tn_table *t, const uint32_t *files, uint32_t nfiles, const tn_table_filter *filters,
                             uint32_t nfilters, const tn_bucket_keyset *ks, tn_bucket_kept *kp, uint32_t *n) {
    *n = 0;
    if (nfiles == 0) return 0;
    keys_ctx *c = tn_malloc(sizeof *c);
    if (!c) return TN_ENOMEM;
    c->ks = ks;
    c->kp = kp;
    c->n = 0;
    c->scan = NULL;
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    so.columns = ks->cols;
    so.ncolumns = ks->ncols;
    so.filters = filters;
    so.nfilters = nfilters;
    int rc = tn_table_scan_open_files(&c->scan, t, &so, files, nfiles);
    if (!rc) rc = tn_table_scan_run(c->scan, collect_keys, c);
    tn_table_scan_close(c->scan);
    *n = c->n;
    tn_free(c);
    return rc;
}
