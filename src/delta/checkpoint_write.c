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
 */
#include "delta/deltaInt.h"
#include "parquet/parquetInt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G = -1 };                      /* group marker for `type` */
enum { CT_NONE = PQ_CT_NONE, CT_UTF8 = PQ_CT_UTF8, CT_MAP = PQ_CT_MAP, CT_LIST = PQ_CT_LIST };

typedef struct cw_def { const char *name; int rep; int type; int ct; int nchildren; } cw_def;

#define STR(n) {n, PQ_OPTIONAL, PQ_BYTE_ARRAY, CT_UTF8, 0}
#define I64(n) {n, PQ_OPTIONAL, PQ_INT64, CT_NONE, 0}
#define I32(n) {n, PQ_OPTIONAL, PQ_INT32, CT_NONE, 0}
#define BOOL(n) {n, PQ_OPTIONAL, PQ_BOOLEAN, CT_NONE, 0}
#define MAP(n) {n, PQ_OPTIONAL, G, CT_MAP, 1}, {"key_value", PQ_REPEATED, G, CT_NONE, 2}, \
               {"key", PQ_REQUIRED, PQ_BYTE_ARRAY, CT_UTF8, 0}, STR("value")
#define LIST(n) {n, PQ_OPTIONAL, G, CT_LIST, 1}, {"list", PQ_REPEATED, G, CT_NONE, 1}, STR("element")
#define DV {"deletionVector", PQ_OPTIONAL, G, CT_NONE, 5}, STR("storageType"), STR("pathOrInlineDv"), \
           I32("offset"), I32("sizeInBytes"), I64("cardinality")

static const cw_def cw_schema[] = {
    {"spark_schema", -1, G, CT_NONE, 6},
    {"txn", PQ_OPTIONAL, G, CT_NONE, 3}, STR("appId"), I64("version"), I64("lastUpdated"),
    {"add", PQ_OPTIONAL, G, CT_NONE, 8}, STR("path"), MAP("partitionValues"), I64("size"),
        I64("modificationTime"), BOOL("dataChange"), MAP("tags"), DV, STR("stats"),
    {"remove", PQ_OPTIONAL, G, CT_NONE, 7}, STR("path"), I64("deletionTimestamp"), BOOL("dataChange"),
        BOOL("extendedFileMetadata"), MAP("partitionValues"), I64("size"), DV,
    {"metaData", PQ_OPTIONAL, G, CT_NONE, 8}, STR("id"), STR("name"), STR("description"),
        {"format", PQ_OPTIONAL, G, CT_NONE, 2}, STR("provider"), MAP("options"),
        STR("schemaString"), LIST("partitionColumns"), MAP("configuration"), I64("createdTime"),
    {"protocol", PQ_OPTIONAL, G, CT_NONE, 4}, I32("minReaderVersion"), I32("minWriterVersion"),
        LIST("readerFeatures"), LIST("writerFeatures"),
    {"domainMetadata", PQ_OPTIONAL, G, CT_NONE, 3}, STR("domain"), STR("configuration"), BOOL("removed"),
};
#define CW_N ((int)(sizeof cw_schema / sizeof cw_schema[0]))

typedef struct cw_leaf {
    tn_buf reps, defs;               /* uint32 each */
    tn_buf vals;                     /* PLAIN bytes (booleans: one byte each, packed later) */
    uint32_t nlev;
} cw_leaf;

typedef struct cw {
    int parent[CW_N], def[CW_N], rep[CW_N], leaf[CW_N], children[CW_N][8], nchildren[CW_N];
    int last_desc[CW_N];             /* last node index of the subtree */
    cw_leaf leaves[CW_N];
    int nleaves;
} cw;

static void build(cw *w) {
    int stack[16], left[16], depth = 0;
    memset(w, 0, sizeof *w);
    for (int i = 0; i < CW_N; i++) {
        w->leaf[i] = -1;
        if (i > 0) {
            while (left[depth - 1] == 0) depth--;
            int p = stack[depth - 1];
            left[depth - 1]--;
            w->parent[i] = p;
            w->children[p][w->nchildren[p]++] = i;
            w->def[i] = w->def[p] + (cw_schema[i].rep != PQ_REQUIRED);
            w->rep[i] = w->rep[p] + (cw_schema[i].rep == PQ_REPEATED);
        }
        if (cw_schema[i].nchildren) {
            stack[depth] = i;
            left[depth] = cw_schema[i].nchildren;
            depth++;
        } else {
            w->leaf[i] = w->nleaves++;
        }
    }
    for (int i = CW_N - 1; i >= 0; i--) {
        w->last_desc[i] = i;
        if (w->nchildren[i]) w->last_desc[i] = w->last_desc[w->children[i][w->nchildren[i] - 1]];
    }
}

static int emit(cw *w, int node, uint32_t r, uint32_t d, json_t *v) {
    cw_leaf *l = &w->leaves[w->leaf[node]];
    int rc;
    if ((rc = tn_buf_append(&l->reps, &r, 4)) || (rc = tn_buf_append(&l->defs, &d, 4))) return rc;
    l->nlev++;
    if (!v) {
        if (cw_schema[node].rep == PQ_REQUIRED && d >= (uint32_t)w->def[node])
            return tn_error_set(TN_EINVAL, "checkpoint: required field '%s' is null", cw_schema[node].name);
        return 0;
    }
    uint8_t b[8];
    switch (cw_schema[node].type) {
    case PQ_BYTE_ARRAY: {
        if (!json_is_string(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a string", cw_schema[node].name);
        size_t n = json_string_length(v);
        tn_store_u32le(b, (uint32_t)n);
        if ((rc = tn_buf_append(&l->vals, b, 4))) return rc;
        return tn_buf_append(&l->vals, json_string_value(v), n);
    }
    case PQ_INT32:
    case PQ_INT64:
        if (!json_is_integer(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not an integer", cw_schema[node].name);
        tn_store_u64le(b, (uint64_t)json_integer_value(v));
        return tn_buf_append(&l->vals, b, cw_schema[node].type == PQ_INT32 ? 4 : 8);
    case PQ_BOOLEAN:
        if (!json_is_boolean(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a boolean", cw_schema[node].name);
        return tn_buf_append_byte(&l->vals, json_is_true(v));
    default:
        return tn_error_set(TN_EINTERNAL, "checkpoint: bad schema type");
    }
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
    const cw_def *s = &cw_schema[node];
    int rc = 0;
    if (v && json_is_null(v)) v = NULL;
    if (w->leaf[node] >= 0) return v ? emit(w, node, r, (uint32_t)w->def[node], v) : emit(w, node, r, d, NULL);
    if (!v) return emit_nulls(w, node, r, d);
    if (s->ct == CT_MAP || s->ct == CT_LIST) {
        int kv = w->children[node][0];
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
                rc = emit(w, w->children[kv][0], rr, kd, k);
                json_decref(k);
                if (rc || (rc = shred(w, w->children[kv][1], val, rr, kd))) return rc;
            }
        } else {
            if (!json_is_array(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not a list", s->name);
            if (json_array_size(v) == 0) return emit_nulls(w, kv, r, (uint32_t)w->def[node]);
            for (i = 0; i < json_array_size(v); i++)
                if ((rc = shred(w, w->children[kv][0], json_array_get(v, i), i == 0 ? r : kr, kd))) return rc;
        }
        return 0;
    }
    if (!json_is_object(v)) return tn_error_set(TN_EINVAL, "checkpoint: '%s' is not an object", s->name);
    for (int c = 0; c < w->nchildren[node]; c++) {
        int ch = w->children[node][c];
        if ((rc = shred(w, ch, json_object_get(v, cw_schema[ch].name), r, (uint32_t)w->def[node]))) return rc;
    }
    return 0;
}

static int add_row(cw *w, const tn_delta_action *a, int64_t *nrows) {
    json_t *row = dl_action_to_json(a);
    if (!row) return tn_error_code_last() ? tn_error_code_last() : TN_ENOMEM;
    int rc = shred(w, 0, row, 0, 0);
    json_decref(row);
    if (rc == 0) (*nrows)++;
    return rc;
}

static void fill_element(pq_schema_element *e, const cw_def *d) {
    memset(e, 0, sizeof *e);
    e->type = d->type;
    e->type_length = -1;
    e->repetition = d->rep;
    e->name = (char *)d->name;
    e->num_children = d->nchildren;
    e->converted_type = d->ct;
    e->scale = e->precision = -1;
    e->field_id = -1;
    e->logical.kind = d->ct == CT_UTF8 ? PQ_LT_STRING : d->ct == CT_MAP ? PQ_LT_MAP
                    : d->ct == CT_LIST ? PQ_LT_LIST : PQ_LT_NONE;
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
    fm.nschema = CW_N;
    fm.schema = tn_arena_calloc(arena, sizeof *fm.schema * CW_N);
    rg.columns = tn_arena_calloc(arena, sizeof *rg.columns * (size_t)w->nleaves);
    if (!fm.schema || !rg.columns) { rc = TN_ENOMEM; goto cleanup; }
    for (int i = 0; i < CW_N; i++) fill_element(&fm.schema[i], &cw_schema[i]);
    fm.schema[0].repetition = -1;
    rg.ncolumns = (uint32_t)w->nleaves;
    rg.num_rows = nrows;
    int64_t total = 0;
    for (int node = 0; node < CW_N; node++) {
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
        if (cw_schema[node].type == PQ_BOOLEAN) {
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
        m->type = cw_schema[node].type;
        m->encodings = tn_arena_alloc(arena, 2 * sizeof(int));
        int depth = 0;
        for (int n = node; n > 0; n = w->parent[n]) depth++;
        m->path = tn_arena_alloc(arena, sizeof(char *) * (size_t)depth);
        if (!m->encodings || !m->path) { rc = TN_ENOMEM; goto cleanup; }
        m->encodings[0] = PQ_ENC_PLAIN;
        m->encodings[1] = PQ_ENC_RLE;
        m->nencodings = 2;
        m->npath = (uint32_t)depth;
        for (int n = node, k = depth; n > 0; n = w->parent[n]) m->path[--k] = (char *)cw_schema[n].name;
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
    build(w);
    tn_delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = TN_DELTA_PROTOCOL;
    a.u.protocol = snap->protocol;
    if ((rc = add_row(w, &a, &nrows))) goto cleanup;
    a.kind = TN_DELTA_METADATA;
    a.u.metadata = snap->metadata;
    if ((rc = add_row(w, &a, &nrows))) goto cleanup;
    for (uint32_t i = 0; i < snap->ntxns; i++) {
        a.kind = TN_DELTA_TXN;
        a.u.txn = snap->txns[i];
        if ((rc = add_row(w, &a, &nrows))) goto cleanup;
    }
    for (uint32_t i = 0; i < snap->ndomains; i++) {
        a.kind = TN_DELTA_DOMAIN_METADATA;
        a.u.domain = snap->domains[i];
        if ((rc = add_row(w, &a, &nrows))) goto cleanup;
    }
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        a.kind = TN_DELTA_ADD;
        a.u.file = snap->files[i];
        a.u.file.data_change = false;
        a.u.file.has_base_row_id = a.u.file.has_default_row_commit_version = false;
        a.u.file.clustering_provider = NULL;
        if ((rc = add_row(w, &a, &nrows))) goto cleanup;
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
        if ((rc = add_row(w, &a, &nrows))) goto cleanup;
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
    if (w)
        for (int i = 0; i < w->nleaves; i++) {
            tn_buf_free(&w->leaves[i].reps);
            tn_buf_free(&w->leaves[i].defs);
            tn_buf_free(&w->leaves[i].vals);
        }
    tn_free(w);
    tn_buf_free(&file);
    tn_buf_free(&lc);
    tn_arena_destroy(arena);
    return rc;
}

int tn_delta_maybe_checkpoint(tn_fs *fs, const char *table_path, int64_t version) {
    /* Cheap for 9 commits in 10: the snapshot (and its delta.checkpointInterval) is only read
     * at multiples of 10; there a checkpoint is written when the table's interval (default 10)
     * also divides the version. Tables with another interval get fewer checkpoints, which is
     * allowed (checkpoints are optional). */
    if (version <= 0 || version % 10 != 0) return 0;
    tn_delta_snapshot *snap = NULL;
    tn_delta_open_options o = TN_DELTA_OPEN_OPTIONS_INIT;
    o.at_version = version;
    int rc = tn_delta_snapshot_open(&snap, fs, table_path, &o);
    if (rc) return rc;
    int64_t interval = 10;
    const char *iv = tn_delta_config_get(&snap->metadata, "delta.checkpointInterval");
    if (iv && atoll(iv) > 0) interval = atoll(iv);
    if (version % interval == 0 && snap->checkpoint_version != version) rc = tn_delta_checkpoint_write(fs, snap);
    tn_delta_snapshot_free(snap);
    return rc;
}
