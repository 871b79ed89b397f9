/*
 * parquet/writer.c: the Parquet writer (tn_parquet_writer_*): options, the file through the
 * tn_fs vtable, row groups (flushed at row_group_rows / row_group_bytes; only the current row
 * group's compressed pages are held in memory), the page index (all ColumnIndex, then all
 * OffsetIndex, after the last row group) and the footer. Pages, dictionaries and statistics of
 * one column are writer_column.c's; the schema tree and nested values' levels writer_nested.c's. Output follows the "safe profile" of parquet-notes.md
 * (format version 1, v1 data pages, PLAIN + RLE_DICTIONARY, TypeDefinedOrder statistics).
 */
#include "parquet/writerInt.h"

#include <string.h>

#define PQW_CREATED_BY "tarn version 0.1.0 (build tarn)"

typedef struct pqw_rg_index {
    pq_column_index *ci;          /* per column; valid where ci_ok */
    bool *ci_ok;
    pq_offset_index *oi;          /* per column */
} pqw_rg_index;

struct tn_parquet_writer {
    tn_fs *fs;
    tn_file *file;
    char *path;
    pqw_config cfg;
    bool page_index;
    bool no_sync;                    /* the caller fsyncs (opts->no_sync) */
    uint64_t rg_max_rows, rg_max_bytes;
    uint32_t ncols;                 /* specs (top-level columns) */
    tn_parquet_column_spec *specs;  /* names in meta */
    pqw_schema schema;              /* elements and leaf columns */
    uint32_t nleaves;               /* == schema.ncols */
    pqw_col *cols;                  /* == schema.cols */
    int64_t *spec_nulls;            /* nested specs: NULL rows written */
    pqw_shred shred;
    pqw_scratch scratch;
    uint64_t offset;                /* bytes written */
    int64_t rg_rows, total_rows;
    tn_arena *meta;                 /* footer structures, page index, kv */
    pq_row_group *rgs;
    pqw_rg_index *rgx;
    uint32_t nrgs, rgs_cap;
    pq_kv *kv;
    uint32_t nkv;
    tn_buf out;
    bool failed;
};

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
static int wr(tn_parquet_writer *w, const void *p, size_t n) {
    if (n == 0) return 0;
    int rc = w->fs->write(w->fs, w->file, p, n);
    if (rc) return rc;
    w->offset += n;
    return 0;
}

/* Closes and removes the partial file, keeping the current error message. */
static void discard_file(tn_parquet_writer *w) {
    tn_error_state saved;
    tn_error_save(&saved);
    if (w->file) {
        (void)w->fs->close(w->fs, w->file);
        w->file = NULL;
        (void)w->fs->unlink(w->fs, w->path);
    }
    tn_error_restore(&saved);
}

static void writer_free(tn_parquet_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->schema.ncols; i++) pqw_col_free(&w->schema.cols[i]);
    tn_free(w->schema.cols);
    tn_free(w->schema.elems);
    tn_free(w->schema.choice);
    pqw_shred_free(&w->shred);
    pqw_scratch_free(&w->scratch);
    tn_free(w->rgs);
    tn_free(w->rgx);
    tn_buf_free(&w->out);
    tn_arena_destroy(w->meta);
    tn_free(w->path);
    tn_free(w);
}

static bool codec_writable(int codec) {
    return codec == TN_CODEC_UNCOMPRESSED || codec == TN_CODEC_SNAPPY || codec == TN_CODEC_GZIP ||
           codec == TN_CODEC_ZSTD || codec == TN_CODEC_LZ4_RAW || codec == TN_CODEC_BROTLI;
}

static void *arena_array(tn_arena *a, size_t n, size_t elem) {
    return tn_arena_calloc(a, n ? n * elem : 1);
}

/* ---------------------------------------------------------------------------------------------
 * Open.
 */
int tn_parquet_writer_open(tn_parquet_writer **out, tn_fs *fs, const char *path,
                           const tn_parquet_column_spec *columns, uint32_t ncolumns,
                           const tn_parquet_writer_options *opts) {
    tn_parquet_writer_options defaults = TN_PARQUET_WRITER_OPTIONS_INIT;
    tn_parquet_writer *w = NULL;
    int rc = 0;
    if (!out || !fs || !path || (!columns && ncolumns)) return tn_error_set(TN_EINVAL, "parquet writer: NULL argument");
    *out = NULL;
    if (!opts) opts = &defaults;
    if (opts->version != TN_PARQUET_WRITER_OPTIONS_VERSION)
        return tn_error_set(TN_EINVAL, "%s: unknown writer options version %d", path, opts->version);
    if (!codec_writable(opts->codec))
        return tn_error_set(TN_EUNSUPPORTED, "%s: codec %d cannot be written (use UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW or BROTLI)",
                            path, (int)opts->codec);
    if (ncolumns == 0) return tn_error_set(TN_EINVAL, "%s: a Parquet file needs at least one column", path);
    if (opts->nkv && !opts->kv) return tn_error_set(TN_EINVAL, "%s: key-value metadata is NULL", path);
    for (uint32_t i = 0; i < ncolumns; i++) {
        if (!columns[i].name || !columns[i].name[0])
            return tn_error_set(TN_EINVAL, "%s: column %u has no name", path, i);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(columns[i].name, columns[j].name) == 0)
                return tn_error_set(TN_EINVAL, "%s: duplicate column name '%s'", path, columns[i].name);
    }

    w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->fs = fs;
    w->path = tn_strdup(path);
    w->meta = tn_arena_create(0);
    if (!w->path || !w->meta) { rc = TN_ENOMEM; goto cleanup; }
    w->cfg.codec = opts->codec;
    w->cfg.level = opts->compression_level;
    w->cfg.page_rows = opts->page_rows ? opts->page_rows : defaults.page_rows;
    if (w->cfg.page_rows > (1u << 30)) w->cfg.page_rows = 1u << 30;   /* header counts are i32 */
    w->cfg.page_bytes = opts->page_bytes ? opts->page_bytes : defaults.page_bytes;
    if (w->cfg.page_bytes > (1u << 30)) w->cfg.page_bytes = 1u << 30;
    w->cfg.dict_max_bytes = opts->dictionary_max_bytes ? opts->dictionary_max_bytes : defaults.dictionary_max_bytes;
    w->cfg.dictionary = opts->dictionary;
    w->cfg.statistics = opts->statistics;
    w->page_index = opts->page_index;
    w->no_sync = opts->no_sync;
    w->rg_max_rows = opts->row_group_rows ? opts->row_group_rows : defaults.row_group_rows;
    w->rg_max_bytes = opts->row_group_bytes ? opts->row_group_bytes : defaults.row_group_bytes;
    if (w->rg_max_rows > INT64_MAX / 2) w->rg_max_rows = INT64_MAX / 2;

    w->ncols = ncolumns;
    w->specs = arena_array(w->meta, ncolumns, sizeof *w->specs);
    w->spec_nulls = arena_array(w->meta, ncolumns, sizeof *w->spec_nulls);
    if (!w->specs || !w->spec_nulls) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < ncolumns; i++) {
        w->specs[i] = columns[i];
        w->specs[i].name = tn_arena_strdup(w->meta, columns[i].name);
        if (!w->specs[i].name) { rc = TN_ENOMEM; goto cleanup; }
    }
    rc = pqw_schema_build(&w->schema, w->meta, w->specs, ncolumns, &w->cfg);
    w->cols = w->schema.cols;
    w->nleaves = w->schema.ncols;
    if (rc) { rc = tn_error_prefix(rc, "%s", path); goto cleanup; }
    rc = pqw_scratch_init(&w->scratch);
    if (rc) goto cleanup;
    if (opts->nkv) {
        w->kv = arena_array(w->meta, opts->nkv, sizeof *w->kv);
        if (!w->kv) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < opts->nkv; i++) {
            if (!opts->kv[i].key) { rc = tn_error_set(TN_EINVAL, "%s: key-value pair %u has no key", path, i); goto cleanup; }
            w->kv[i].key = tn_arena_strdup(w->meta, opts->kv[i].key);
            w->kv[i].value = opts->kv[i].value ? tn_arena_strdup(w->meta, opts->kv[i].value) : NULL;
            if (!w->kv[i].key || (opts->kv[i].value && !w->kv[i].value)) { rc = TN_ENOMEM; goto cleanup; }
        }
        w->nkv = opts->nkv;
    }

    rc = fs->open_write(fs, path, true, &w->file);
    if (rc) { w->file = NULL; goto cleanup; }
    rc = wr(w, "PAR1", 4);
    if (rc) goto cleanup;
    *out = w;
    w = NULL;
cleanup:
    if (w) {
        discard_file(w);
        writer_free(w);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Row groups.
 */
static int copy_bytes(tn_arena *a, const uint8_t *p, size_t n, pq_bytes *out) {
    uint8_t *q = tn_arena_alloc(a, n ? n : 1);
    if (!q) return TN_ENOMEM;
    if (n) memcpy(q, p, n);
    out->ptr = q;
    out->len = (uint32_t)n;
    out->present = true;
    return 0;
}

static int chunk_meta(tn_parquet_writer *w, pqw_col *c, pq_column_chunk *cc, uint64_t chunk_start,
                      uint64_t data_off, int64_t dict_unc, size_t dict_len, int32_t dict_entries) {
    tn_arena *a = w->meta;
    pq_column_meta *m = &cc->meta;
    cc->file_offset = 0;
    cc->has_meta_data = true;
    m->type = c->phys;
    m->encodings = arena_array(a, 3, sizeof(int));
    m->encoding_stats = arena_array(a, 3, sizeof(pq_page_encoding_stats));
    if (!m->encodings || !m->encoding_stats) return TN_ENOMEM;
    m->encodings[m->nencodings++] = PQ_ENC_PLAIN;
    if (c->nullable || c->max_rep) m->encodings[m->nencodings++] = PQ_ENC_RLE;
    if (c->pages_dict) m->encodings[m->nencodings++] = PQ_ENC_RLE_DICTIONARY;
    m->path = c->path;
    m->npath = c->npath;
    m->codec = w->cfg.codec;
    m->num_values = c->chunk_rows;
    m->total_uncompressed_size = dict_unc + c->chunk_unc;
    m->total_compressed_size = (int64_t)(dict_len + c->pages.len);
    m->data_page_offset = (int64_t)data_off;
    if (dict_len) {
        m->has_dictionary_page_offset = true;
        m->dictionary_page_offset = (int64_t)chunk_start;
        m->encoding_stats[m->nencoding_stats++] = (pq_page_encoding_stats){PQ_PAGE_DICTIONARY, PQ_ENC_PLAIN, 1};
    }
    (void)dict_entries;
    if (c->pages_dict)
        m->encoding_stats[m->nencoding_stats++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_RLE_DICTIONARY, c->pages_dict};
    if (c->pages_plain)
        m->encoding_stats[m->nencoding_stats++] = (pq_page_encoding_stats){PQ_PAGE_DATA, PQ_ENC_PLAIN, c->pages_plain};
    if (w->cfg.statistics) {
        pq_statistics *st = &m->statistics;
        m->has_statistics = true;
        st->has_null_count = true;
        st->null_count = c->cst.nulls;
        if (c->kind == PQW_FLOAT || c->kind == PQW_DOUBLE) {
            st->has_nan_count = true;
            st->nan_count = c->cst.nans;
        }
        if (c->cst.has) {
            tn_buf *b = &w->out;
            tn_buf_clear(b);
            int rc = pqw_stat_bytes(c, &c->cst, 0, b);
            size_t mid = b->len;
            if (!rc) rc = pqw_stat_bytes(c, &c->cst, 1, b);
            if (!rc) rc = copy_bytes(a, b->data, mid, &st->min_value);
            if (!rc) rc = copy_bytes(a, b->data + mid, b->len - mid, &st->max_value);
            if (rc) return rc;
            /* Deprecated min/max (signed order) for old readers, only where that order is the
             * type's order: never for BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY. */
            if (c->kind != PQW_BYTES && c->kind != PQW_FLBA) {
                st->min = st->min_value;
                st->max = st->max_value;
            }
            st->has_is_min_exact = st->has_is_max_exact = true;
            st->is_min_value_exact = !c->cst.smin_cut;
            st->is_max_value_exact = !c->cst.smax_cut;
        }
    }
    return 0;
}

static int chunk_page_index(tn_parquet_writer *w, pqw_col *c, uint64_t data_off, pq_column_index *ci,
                            bool *ci_ok, pq_offset_index *oi) {
    tn_arena *a = w->meta;
    uint32_t n = c->npages;
    oi->pages = arena_array(a, n, sizeof *oi->pages);
    if (!oi->pages) return TN_ENOMEM;
    oi->npages = n;
    for (uint32_t i = 0; i < n; i++) {
        oi->pages[i].offset = (int64_t)(data_off + c->plist[i].offset);
        oi->pages[i].compressed_page_size = c->plist[i].size;
        oi->pages[i].first_row_index = c->plist[i].first_row;
    }
    *ci_ok = w->cfg.statistics && c->ci_ok;
    if (!*ci_ok) return 0;
    uint8_t *sb = tn_arena_alloc(a, c->pstat_bytes.len ? c->pstat_bytes.len : 1);
    ci->null_pages = arena_array(a, n, sizeof(bool));
    ci->min_values = arena_array(a, n, sizeof(pq_bytes));
    ci->max_values = arena_array(a, n, sizeof(pq_bytes));
    ci->null_counts = arena_array(a, n, sizeof(int64_t));
    if (!sb || !ci->null_pages || !ci->min_values || !ci->max_values || !ci->null_counts) return TN_ENOMEM;
    if (c->pstat_bytes.len) memcpy(sb, c->pstat_bytes.data, c->pstat_bytes.len);
    ci->npages = n;
    for (uint32_t i = 0; i < n; i++) {
        const pqw_page *p = &c->plist[i];
        ci->null_pages[i] = p->null_page;
        ci->null_counts[i] = p->nulls;
        ci->min_values[i] = (pq_bytes){sb, 0, true};
        ci->max_values[i] = (pq_bytes){sb, 0, true};
        if (p->has_minmax) {
            ci->min_values[i] = (pq_bytes){sb + p->min_off, p->min_len, true};
            ci->max_values[i] = (pq_bytes){sb + p->max_off, p->max_len, true};
        }
    }
    ci->boundary_order = c->asc ? 1 : c->desc ? 2 : 0;
    return 0;
}

static int flush_row_group(tn_parquet_writer *w) {
    int rc = 0;
    if (w->rg_rows == 0) return 0;
    if (w->nrgs == w->rgs_cap) {
        uint32_t cap = w->rgs_cap ? w->rgs_cap * 2 : 8;
        pq_row_group *nr = tn_realloc(w->rgs, cap * sizeof *nr);
        if (!nr) return TN_ENOMEM;
        w->rgs = nr;
        pqw_rg_index *nx = tn_realloc(w->rgx, cap * sizeof *nx);
        if (!nx) return TN_ENOMEM;
        w->rgx = nx;
        w->rgs_cap = cap;
    }
    pq_row_group *rg = &w->rgs[w->nrgs];
    pqw_rg_index *ix = &w->rgx[w->nrgs];
    memset(rg, 0, sizeof *rg);
    memset(ix, 0, sizeof *ix);
    rg->columns = arena_array(w->meta, w->nleaves, sizeof *rg->columns);
    ix->ci = arena_array(w->meta, w->nleaves, sizeof *ix->ci);
    ix->ci_ok = arena_array(w->meta, w->nleaves, sizeof *ix->ci_ok);
    ix->oi = arena_array(w->meta, w->nleaves, sizeof *ix->oi);
    if (!rg->columns || !ix->ci || !ix->ci_ok || !ix->oi) return TN_ENOMEM;
    uint64_t rg_start = w->offset;
    int64_t unc_total = 0, comp_total = 0;
    for (uint32_t i = 0; i < w->nleaves; i++) {
        pqw_col *c = &w->cols[i];
        rc = pqw_col_flush_page(c, &w->scratch);
        if (rc) return rc;
        uint64_t chunk_start = w->offset;
        tn_buf *dict = &w->out;
        tn_buf_clear(dict);
        int64_t dict_unc = 0;
        int32_t entries = 0;
        rc = pqw_col_dict_page(c, &w->scratch, dict, &dict_unc, &entries);
        if (rc) return rc;
        size_t dict_len = dict->len;
        rc = wr(w, dict->data, dict->len);
        if (rc) return rc;
        uint64_t data_off = w->offset;
        rc = wr(w, c->pages.data, c->pages.len);
        if (rc) return rc;
        rc = chunk_meta(w, c, &rg->columns[i], chunk_start, data_off, dict_unc, dict_len, entries);
        if (!rc && w->page_index) rc = chunk_page_index(w, c, data_off, &ix->ci[i], &ix->ci_ok[i], &ix->oi[i]);
        if (rc) return rc;
        unc_total += rg->columns[i].meta.total_uncompressed_size;
        comp_total += rg->columns[i].meta.total_compressed_size;
        rc = pqw_col_end_chunk(c);
        if (rc) return rc;
    }
    rg->ncolumns = w->nleaves;
    rg->num_rows = w->rg_rows;
    rg->total_byte_size = unc_total;
    rg->has_file_offset = true;
    rg->file_offset = (int64_t)rg_start;
    rg->has_total_compressed_size = true;
    rg->total_compressed_size = comp_total;
    if (w->nrgs <= INT16_MAX) {
        rg->has_ordinal = true;
        rg->ordinal = (int16_t)w->nrgs;
    }
    w->nrgs++;
    w->total_rows += w->rg_rows;
    w->rg_rows = 0;
    return 0;
}

static size_t buffered_bytes(const tn_parquet_writer *w) {
    size_t n = 0;
    for (uint32_t i = 0; i < w->nleaves; i++) n += pqw_col_buffered(&w->cols[i]);
    return n;
}

/* ---------------------------------------------------------------------------------------------
 * Write.
 */
static bool has_null(const tn_vector *v, uint32_t count) {
    if (!v->validity) return false;
    uint32_t full = count / 64;
    for (uint32_t i = 0; i < full; i++)
        if (v->validity[i] != ~(uint64_t)0) return true;
    uint32_t rest = count % 64;
    if (rest && (v->validity[full] & (((uint64_t)1 << rest) - 1)) != (((uint64_t)1 << rest) - 1)) return true;
    return false;
}

int tn_parquet_writer_write(tn_parquet_writer *w, const tn_chunk *chunk) {
    int rc = 0;
    if (!w || !chunk) return tn_error_set(TN_EINVAL, "parquet writer: NULL argument");
    if (w->failed) return tn_error_set(TN_EINVAL, "%s: the writer failed earlier; abort it", w->path);
    if (chunk->ncols != w->ncols)
        return tn_error_set(TN_EINVAL, "%s: chunk has %u columns, the file %u", w->path, chunk->ncols, w->ncols);
    for (uint32_t i = 0; i < w->ncols; i++) {
        const tn_vector *v = &chunk->cols[i];
        if (!tn_type_equal(v->type, w->specs[i].type)) {
            char a[32], b[32];
            return tn_error_set(TN_EINVAL, "%s: column '%s': chunk has type %s, expected %s", w->path,
                                w->specs[i].name, tn_type_format(v->type, a, sizeof a),
                                tn_type_format(w->specs[i].type, b, sizeof b));
        }
        if (chunk->count > v->capacity || (chunk->count && !v->data))
            return tn_error_set(TN_EINVAL, "%s: column '%s': vector holds fewer rows than the chunk", w->path,
                                w->specs[i].name);
        if (!w->specs[i].nullable && has_null(v, chunk->count))
            return tn_error_set(TN_ECONSTRAINT, "%s: column '%s': NULL value in a column declared NOT NULL",
                                w->path, w->specs[i].name);
    }
    uint32_t r = 0;
    while (r < chunk->count) {
        uint64_t room = w->rg_max_rows - (uint64_t)w->rg_rows;
        uint32_t n = chunk->count - r;
        if (n > PQW_SEG) n = PQW_SEG;
        if (n > room) n = (uint32_t)room;
        for (uint32_t i = 0; i < w->ncols; i++) {
            const tn_vector *v = &chunk->cols[i];
            uint32_t l0 = w->schema.spec_leaf0[i];
            if (!tn_type_is_nested(v->type)) {
                rc = pqw_col_append(&w->cols[l0], &w->scratch, v, r, n);
                if (rc) goto cleanup;
                continue;
            }
            for (uint32_t l = l0; l < l0 + w->schema.spec_nleaves[i]; l++) {
                rc = pqw_shred_leaf(&w->shred, &w->schema, l, &w->scratch, &w->specs[i], v, r, n);
                if (rc) goto cleanup;
            }
            if (v->validity)
                for (uint32_t k = r; k < r + n; k++) w->spec_nulls[i] += !tn_vector_is_valid(v, k);
        }
        w->rg_rows += n;
        r += n;
        if ((uint64_t)w->rg_rows >= w->rg_max_rows || buffered_bytes(w) >= w->rg_max_bytes) {
            rc = flush_row_group(w);
            if (rc) goto cleanup;
        }
    }
cleanup:
    if (rc) {
        w->failed = true;
        rc = tn_error_prefix(rc, "%s", w->path);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Close: page index, footer, fsync.
 */
static int write_page_index(tn_parquet_writer *w) {
    tn_buf *b = &w->out;
    tn_buf_clear(b);
    uint64_t base = w->offset;
    int rc = 0;
    for (uint32_t g = 0; g < w->nrgs; g++)
        for (uint32_t i = 0; i < w->nleaves; i++) {
            if (!w->rgx[g].ci_ok[i]) continue;
            size_t at = b->len;
            rc = pq_encode_column_index(b, &w->rgx[g].ci[i]);
            if (rc) return tn_error_prefix(rc, "column '%s': ColumnIndex", w->cols[i].name);
            pq_column_chunk *cc = &w->rgs[g].columns[i];
            cc->has_column_index = true;
            cc->column_index_offset = (int64_t)(base + at);
            cc->column_index_length = (int32_t)(b->len - at);
        }
    for (uint32_t g = 0; g < w->nrgs; g++)
        for (uint32_t i = 0; i < w->nleaves; i++) {
            size_t at = b->len;
            rc = pq_encode_offset_index(b, &w->rgx[g].oi[i]);
            if (rc) return tn_error_prefix(rc, "column '%s': OffsetIndex", w->cols[i].name);
            pq_column_chunk *cc = &w->rgs[g].columns[i];
            cc->has_offset_index = true;
            cc->offset_index_offset = (int64_t)(base + at);
            cc->offset_index_length = (int32_t)(b->len - at);
        }
    return wr(w, b->data, b->len);
}

static int write_footer(tn_parquet_writer *w) {
    pq_file_meta fm;
    memset(&fm, 0, sizeof fm);
    fm.version = 1;
    fm.nschema = w->schema.nelems;
    fm.schema = w->schema.elems;
    fm.column_orders = arena_array(w->meta, w->nleaves, sizeof(int));
    if (!fm.column_orders) return TN_ENOMEM;
    for (uint32_t i = 0; i < w->nleaves; i++) fm.column_orders[i] = 1;   /* TypeDefinedOrder */
    fm.ncolumn_orders = w->nleaves;
    fm.num_rows = w->total_rows;
    fm.row_groups = w->rgs;
    fm.nrow_groups = w->nrgs;
    fm.kv = w->kv;
    fm.nkv = w->nkv;
    fm.created_by = (char *)PQW_CREATED_BY;
    tn_buf *b = &w->out;
    tn_buf_clear(b);
    int rc = pq_encode_file_meta(b, &fm);
    if (rc) return tn_error_prefix(rc, "FileMetaData");
    if (b->len > UINT32_MAX) return tn_error_set(TN_ELIMIT, "footer too large");
    uint8_t tail[8];
    tn_store_u32le(tail, (uint32_t)b->len);
    memcpy(tail + 4, "PAR1", 4);
    rc = tn_buf_append(b, tail, 8);
    if (rc) return rc;
    return wr(w, b->data, b->len);
}

static int fill_result(tn_parquet_writer *w, tn_parquet_write_result *r) {
    memset(r, 0, sizeof *r);
    r->arena = tn_arena_create(0);
    if (!r->arena) return TN_ENOMEM;
    r->columns = arena_array(r->arena, w->ncols, sizeof *r->columns);
    if (!r->columns) return TN_ENOMEM;
    r->ncolumns = w->ncols;
    r->num_rows = w->total_rows;
    r->file_bytes = w->offset;
    for (uint32_t i = 0; i < w->ncols; i++) {
        tn_parquet_column_result *cr = &r->columns[i];
        if (tn_type_is_nested(w->specs[i].type)) {   /* nested: NULL rows only, no min/max */
            cr->null_count = w->spec_nulls[i];
            cr->min.type = cr->max.type = w->specs[i].type;
            cr->min.is_null = cr->max.is_null = true;
            continue;
        }
        pqw_col *c = &w->cols[w->schema.spec_leaf0[i]];
        cr->null_count = c->fst.nulls;
        cr->has_min_max = c->fst.has;
        cr->min.type = cr->max.type = c->type;
        cr->min.is_null = cr->max.is_null = !c->fst.has;
        if (c->fst.has) {
            int rc = pqw_stat_value(c, &c->fst, 0, r->arena, &cr->min);
            if (!rc) rc = pqw_stat_value(c, &c->fst, 1, r->arena, &cr->max);
            if (rc) return rc;
        }
    }
    return 0;
}

int tn_parquet_writer_close(tn_parquet_writer *w, tn_parquet_write_result *result) {
    int rc = 0;
    if (result) memset(result, 0, sizeof *result);
    if (!w) return tn_error_set(TN_EINVAL, "parquet writer: NULL argument");
    if (w->failed) { rc = tn_error_set(TN_EINVAL, "%s: the writer failed earlier; nothing written", w->path); goto cleanup; }
    rc = flush_row_group(w);
    if (!rc && w->page_index) rc = write_page_index(w);
    if (!rc) rc = write_footer(w);
    if (!rc && result) rc = fill_result(w, result);
    if (!rc && !w->no_sync) rc = w->fs->sync(w->fs, w->file);
    if (!rc) {
        tn_file *f = w->file;
        w->file = NULL;
        rc = w->fs->close(w->fs, f);
        if (rc) (void)w->fs->unlink(w->fs, w->path);
    }
    if (rc) rc = tn_error_prefix(rc, "%s", w->path);
cleanup:
    if (rc) {
        discard_file(w);
        if (result) tn_parquet_write_result_free(result);
    }
    writer_free(w);
    return rc;
}

int tn_parquet_writer_flush(tn_parquet_writer *w) {
    if (!w) return tn_error_set(TN_EINVAL, "parquet writer: NULL argument");
    if (w->failed) return tn_error_set(TN_EINVAL, "%s: the writer failed earlier; abort it", w->path);
    int rc = flush_row_group(w);
    if (rc) {
        w->failed = true;
        rc = tn_error_prefix(rc, "%s", w->path);
    }
    return rc;
}

int tn_parquet_writer_end_page(tn_parquet_writer *w) {
    if (!w) return tn_error_set(TN_EINVAL, "parquet writer: NULL argument");
    if (w->failed) return tn_error_set(TN_EINVAL, "%s: the writer failed earlier; abort it", w->path);
    for (uint32_t i = 0; i < w->nleaves; i++) {
        int rc = pqw_col_flush_page(&w->cols[i], &w->scratch);
        if (rc) {
            w->failed = true;
            return tn_error_prefix(rc, "%s", w->path);
        }
    }
    return 0;
}

uint64_t tn_parquet_writer_bytes_written(const tn_parquet_writer *w) { return w->offset; }
uint64_t tn_parquet_writer_bytes_buffered(const tn_parquet_writer *w) { return buffered_bytes(w); }
uint32_t tn_parquet_writer_num_row_groups(const tn_parquet_writer *w) { return w->nrgs; }

void tn_parquet_writer_abort(tn_parquet_writer *w) {
    if (!w) return;
    discard_file(w);
    writer_free(w);
}

void tn_parquet_write_result_free(tn_parquet_write_result *r) {
    if (!r) return;
    tn_arena_destroy(r->arena);
    memset(r, 0, sizeof *r);
}
