/*
 * layout/bucket/dynamic.c: Paimon's dynamic bucket mode ('bucket' = '-1'). Per partition, a key
 * goes to the bucket its hash already has there; a new key goes to the first bucket holding fewer
 * than 'dynamic-bucket.target-row-num' keys, else to the lowest unused bucket id (Paimon's
 * PartitionIndex.assign). Paimon keeps the hash -> bucket index in a HASH index file; here the
 * partition's live files are the index: it is built at commit from their bucket-key columns (so a
 * commit reads the whole partition, and its conflict scope is the partition). Files say
 * bucketCount = -1 in their tags.
 */
#include "layout/bucket/bucketInt.h"

#include <string.h>

#define DYN_MAX_BUCKETS 32767           /* Paimon's cap without dynamic-bucket.max-buckets: Short.MAX_VALUE */

void tn_bucket_dyn_free(tn_bucket_dyn_index *ix) {
    tn_free(ix->slots);
    tn_free(ix->count);
    memset(ix, 0, sizeof *ix);
}

static int grow_slots(tn_bucket_dyn_index *ix) {
    uint32_t cap = ix->mask ? (ix->mask + 1) * 2 : 1024;
    uint64_t *ns = tn_calloc(cap, sizeof *ns);
    if (!ns) return TN_ENOMEM;
    for (uint32_t i = 0; ix->mask && i <= ix->mask; i++) {
        uint64_t e = ix->slots[i];
        if (!e) continue;
        uint32_t h = (uint32_t)(e >> 32), j = (h * 2654435761u) & (cap - 1);
        while (ns[j]) j = (j + 1) & (cap - 1);
        ns[j] = e;
    }
    tn_free(ix->slots);
    ix->slots = ns;
    ix->mask = cap - 1;
    return 0;
}

static int grow_count(tn_bucket_dyn_index *ix, int32_t b) {
    if (b < ix->cap) return 0;
    int32_t cap = ix->cap ? ix->cap : 16;
    while (cap <= b) cap *= 2;
    int64_t *nc = tn_realloc(ix->count, sizeof *nc * (size_t)cap);
    if (!nc) return TN_ENOMEM;
    memset(nc + ix->cap, 0, sizeof *nc * (size_t)(cap - ix->cap));
    ix->count = nc;
    ix->cap = cap;
    return 0;
}

/* The slot of hash h (its entry, or the empty slot where it goes). */
static uint32_t find_slot(const tn_bucket_dyn_index *ix, uint32_t h) {
    uint32_t j = (h * 2654435761u) & ix->mask;
    while (ix->slots[j] && (uint32_t)(ix->slots[j] >> 32) != h) j = (j + 1) & ix->mask;
    return j;
}

/* Records hash h in bucket b (a hash seen before keeps its bucket and is not counted again). */
static int put(tn_bucket_dyn_index *ix, uint32_t h, int32_t b) {
    int rc = 0;
    if ((ix->n + 1) * 2 > (ix->mask ? ix->mask + 1 : 0) && (rc = grow_slots(ix))) return rc;
    uint32_t j = find_slot(ix, h);
    if (ix->slots[j]) return 0;
    if ((rc = grow_count(ix, b))) return rc;
    ix->slots[j] = (uint64_t)h << 32 | (uint32_t)(b + 1);
    ix->n++;
    ix->count[b]++;
    if (b + 1 > ix->nb) ix->nb = b + 1;
    return 0;
}

typedef struct build_ctx {
    tn_bucket_dyn_index *ix;
    const tn_bucket_spec *spec;
    int32_t bucket;
    int32_t *hash;
} build_ctx;

static int build_rows(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    build_ctx *c = ctx;
    const tn_vector *kc[TN_BUCKET_MAX_KEYS];
    for (uint32_t k = 0; k < c->spec->nbkey; k++) kc[k] = &chunk->cols[k];
    int rc = tn_bucket_hash_rows(kc, c->spec->nbkey, 0, chunk->count, c->hash);
    for (uint32_t r = 0; r < chunk->count && !rc; r++) rc = put(c->ix, (uint32_t)c->hash[r], c->bucket);
    return rc;
}

int tn_bucket_dyn_build(tn_bucket_dyn_index *ix, tn_table *t, const tn_bucket_spec *spec, const uint32_t *files,
                        uint32_t nfiles) {
    memset(ix, 0, sizeof *ix);
    int rc = grow_slots(ix);
    build_ctx c = {ix, spec, 0, tn_malloc(sizeof(int32_t) * TN_VECTOR_SIZE)};
    if (!rc && !c.hash) rc = TN_ENOMEM;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    /* one scan per file: its rows are its bucket's keys */
    for (uint32_t i = 0; i < nfiles && !rc; i++) {
        int32_t b, n;
        if (!tn_bucket_file_tags(&snap->files[files[i]], &b, &n) || n != -1) {
            rc = tn_error_set(TN_ECORRUPT, "table '%s': file '%s' is not a dynamic-bucket file (its bucketCount tag "
                              "is not -1)", tn_table_path(t), snap->files[files[i]].path);
            break;
        }
        if ((rc = grow_count(ix, b))) break;
        if (b + 1 > ix->nb) ix->nb = b + 1;
        c.bucket = b;
        tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
        so.columns = spec->bkey;
        so.ncolumns = spec->nbkey;
        tn_table_scan *scan = NULL;
        rc = tn_table_scan_open_files(&scan, t, &so, &files[i], 1);
        if (!rc) rc = tn_table_scan_run(scan, build_rows, &c);
        tn_table_scan_close(scan);
    }
    tn_free(c.hash);
    if (rc) tn_bucket_dyn_free(ix);
    return rc;
}

int tn_bucket_dyn_assign(tn_bucket_dyn_index *ix, const tn_bucket_spec *spec, const int32_t *hash, uint32_t n,
                         int32_t *dest) {
    int32_t max = spec->max_buckets > 0 ? spec->max_buckets : DYN_MAX_BUCKETS;
    int32_t open = 0;                  /* buckets below it are full */
    int rc = 0;
    for (uint32_t r = 0; r < n && !rc; r++) {
        uint32_t h = (uint32_t)hash[r];
        uint32_t j = find_slot(ix, h);
        if (ix->slots[j]) {
            dest[r] = (int32_t)(uint32_t)ix->slots[j] - 1;
            continue;
        }
        /* the first existing bucket that is not full, else the lowest unused id */
        while (open < ix->nb && ix->count[open] >= spec->target_rows) open++;
        int32_t b = open;
        if (b >= max)
            return tn_error_set(TN_EINVAL, "Too more bucket %d, you should increase target bucket row number %lld.",
                                max, (long long)spec->target_rows);
        rc = put(ix, h, b);
        dest[r] = b;
    }
    return rc;
}
