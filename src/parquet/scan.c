/*
 * parquet/scan.c: reading column chunks into tn_chunk vectors (the public scan API): one pread
 * per column chunk, skipping of row groups (statistics) and pages (ColumnIndex/OffsetIndex of
 * predicate columns), scan reuse across row groups (tn_parquet_scan_reset). Pages and values
 * are decoded by scan_page.c, the row filter is scan_filter.c; both share scanInt.h.
 * VARCHAR/VARBINARY values point into page buffers that stay valid until the next
 * tn_parquet_scan_next (or close): they are not copied.
 */
#include <stdlib.h>

#include "parquet/scanInt.h"

/* ---------------------------------------------------------------------------------------------
 * Row groups: chunk reads and the page-index row ranges.
 */
/* Loads the column chunk; end > 0: only its bytes before file offset end (the pages a row limit
 * needs). */
int pq_sc_chunk_load(tn_parquet_scan *s, colreader *cr, const pq_column_chunk *cc, int64_t end) {
    const pq_column_meta *cm = &cc->meta;
    cr->cm = cm;
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0)
        start = cm->dictionary_page_offset;
    int64_t len = cm->total_compressed_size;
    if (start < 4 || len < 0 || (uint64_t)start > s->file_size ||
        (uint64_t)len > s->file_size - (uint64_t)start)
        return tn_error_set(TN_ECORRUPT, "column chunk at offset %lld, %lld bytes, lies outside "
                            "the %llu-byte file", (long long)start, (long long)len,
                            (unsigned long long)s->file_size);
    if (end > start && end - start < len) len = end - start;
    if ((size_t)len > cr->chunk_cap) {
        uint8_t *p = tn_realloc(cr->chunk, (size_t)len);
        if (!p) return NOMEM();
        cr->chunk = p;
        cr->chunk_cap = (size_t)len;
    }
    if (len > 0) {
        int rc = s->fs->pread(s->fs, s->fh, cr->chunk, (size_t)len, (uint64_t)start);
        if (rc) return rc;
    }
    s->counters.bytes_read += (uint64_t)len;
    cr->chunk_len = (size_t)len;
    cr->chunk_start = (uint64_t)start;
    cr->pos = 0;
    cr->next_row = 0;
    cr->page_no = 0;
    cr->seen_data = false;
    cr->has_dict = false;
    cr->dict_count = 0;
    cr->page_loaded = false;
    cr->valid = NULL;
    pq_sc_pool_release(cr, false);
    return 0;
}

static int ranges_push(tn_parquet_scan *s, row_range **arr, uint32_t *n, uint32_t *cap,
                       int64_t lo, int64_t hi) {
    if (lo >= hi) return 0;
    if (*n && (*arr)[*n - 1].hi >= lo) {
        if (hi > (*arr)[*n - 1].hi) (*arr)[*n - 1].hi = hi;
        return 0;
    }
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 16;
        row_range *p = tn_realloc(*arr, c * sizeof *p);
        if (!p) return NOMEM();
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = (row_range){lo, hi};
    return 0;
}

static int read_blob(tn_parquet_scan *s, int64_t off, int32_t len, uint8_t **out) {
    *out = NULL;
    if (off < 0 || len <= 0 || (uint64_t)off > s->file_size ||
        (uint64_t)len > s->file_size - (uint64_t)off)
        return 1;                                        /* unusable: ignore the index */
    uint8_t *b = tn_arena_alloc(s->rg_arena, (size_t)len);
    if (!b) return NOMEM();
    int rc = s->fs->pread(s->fs, s->fh, b, (size_t)len, (uint64_t)off);
    if (rc) return rc;
    *out = b;
    return 0;
}

/* The OffsetIndex of column chunk (rg, leaf): kept with a cached file's master once a scan has
 * decoded it (no I/O then: a sample of an OTree table touches 1,500 small files, each needing
 * the index of two columns), else read and decoded, then kept. 1: none, or unusable. */
static int offset_index(tn_parquet_scan *s, uint32_t rg, uint32_t leaf, const pq_column_chunk *cc,
                        const pq_offset_index **out) {
    *out = NULL;
    if (!cc->has_offset_index) return 1;
    pq_offset_index **slot = pq_rd_offset_index_slot(s->file, rg, leaf);
    pq_offset_index *kept = slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
    if (kept) {
        *out = kept;
        return 0;
    }
    uint8_t *oib;
    int rc = read_blob(s, cc->offset_index_offset, cc->offset_index_length, &oib);
    if (rc) return rc;
    pq_offset_index *oi = tn_arena_alloc(s->rg_arena, sizeof *oi);
    if (!oi) return NOMEM();
    if (pq_decode_offset_index(oi, s->rg_arena, oib, (size_t)cc->offset_index_length) != 0) {
        tn_error_clear();
        return 1;
    }
    *out = oi;
    if (slot) {            /* one block: the header, then the pages (no memory: not kept) */
        pq_offset_index *copy = tn_malloc(sizeof *copy + (size_t)oi->npages * sizeof *oi->pages);
        if (!copy) {
            tn_error_clear();
            return 0;
        }
        copy->pages = (pq_page_location *)(copy + 1);
        copy->npages = oi->npages;
        if (oi->npages) memcpy(copy->pages, oi->pages, (size_t)oi->npages * sizeof *oi->pages);
        pq_offset_index *none = NULL;
        if (!__atomic_compare_exchange_n(slot, &none, copy, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            tn_free(copy);  /* another scan kept its own first */
    }
    return 0;
}

/* Row ranges of the row group's pages (of predicate p's column) that may match p. Returns 1
 * when the column has no usable page index (no restriction). */
static int page_ranges(tn_parquet_scan *s, const pq_row_group *rg, const tn_parquet_predicate *p,
                       row_range **out, uint32_t *nout, uint32_t *cap) {
    int32_t leaf = pq_rd_column_leaf(s->file, p->column);
    if (leaf < 0) return 1;                       /* nested: no page index used */
    const pq_column_chunk *cc = &rg->columns[leaf];
    if (!cc->has_column_index || !cc->has_offset_index) return 1;
    uint8_t *cib;
    int rc = read_blob(s, cc->column_index_offset, cc->column_index_length, &cib);
    if (rc) return rc;
    pq_column_index ci;
    if (pq_decode_column_index(&ci, s->rg_arena, cib, (size_t)cc->column_index_length) != 0) {
        tn_error_clear();
        return 1;
    }
    const pq_offset_index *oip;
    rc = offset_index(s, s->rg, (uint32_t)leaf, cc, &oip);
    if (rc) return rc;
    const pq_offset_index oi = *oip;
    if (ci.npages != oi.npages || ci.npages == 0) return 1;
    for (uint32_t i = 0; i < oi.npages; i++) {
        int64_t lo = oi.pages[i].first_row_index;
        int64_t hi = i + 1 < oi.npages ? oi.pages[i + 1].first_row_index : rg->num_rows;
        if (lo < 0 || hi < lo || hi > rg->num_rows || (i == 0 && lo != 0)) {
            *nout = 0;
            return 1;
        }
    }
    tn_type type = tn_parquet_column(s->file, p->column)->type;
    *nout = 0;
    for (uint32_t i = 0; i < oi.npages; i++) {
        int64_t lo = oi.pages[i].first_row_index;
        int64_t hi = i + 1 < oi.npages ? oi.pages[i + 1].first_row_index : rg->num_rows;
        tn_parquet_stats st;
        memset(&st, 0, sizeof st);
        st.num_values = hi - lo;
        if (ci.null_counts) {
            st.has_null_count = true;
            st.null_count = ci.null_counts[i];
        }
        if (ci.null_pages[i]) {
            st.has_null_count = true;
            st.null_count = st.num_values;
        } else if (ci.min_values[i].present && ci.max_values[i].present &&
                   pq_rd_decode_value(s->file, (uint32_t)leaf, ci.min_values[i].ptr,
                                      ci.min_values[i].len, &st.min) == 0 &&
                   pq_rd_decode_value(s->file, (uint32_t)leaf, ci.max_values[i].ptr,
                                      ci.max_values[i].len, &st.max) == 0) {
            st.has_min_max = true;
        }
        if (pq_rd_stats_may_match(&st, type, p)) {
            rc = ranges_push(s, out, nout, cap, lo, hi);
            if (rc) return rc;
        }
    }
    return 0;
}

/* With a row limit: the file offset where the chunk's pages past the limit start (0: read it
 * all, e.g. no OffsetIndex). */
static int64_t chunk_end(tn_parquet_scan *s, const pq_row_group *rg, uint32_t column) {
    const pq_column_chunk *cc = &rg->columns[column];
    if (s->row_limit < 0 || s->row_limit >= rg->num_rows || !cc->has_offset_index) return 0;
    const pq_offset_index *oi;
    if (offset_index(s, s->rg, column, cc, &oi) != 0) {
        tn_error_clear();
        return 0;
    }
    for (uint32_t i = 1; i < oi->npages; i++)
        if (oi->pages[i].first_row_index >= s->row_limit)
            return oi->pages[i].offset > oi->pages[i - 1].offset ? oi->pages[i].offset : 0;
    return 0;
}

static int compute_ranges(tn_parquet_scan *s, const pq_row_group *rg) {
    s->nranges = 0;
    int64_t rows = s->row_limit >= 0 && s->row_limit < rg->num_rows ? s->row_limit : rg->num_rows;
    int rc = ranges_push(s, &s->ranges, &s->nranges, &s->ranges_cap, 0, rows);
    if (rc) return rc;
    row_range *pr = NULL, *tmp = NULL;
    uint32_t npr = 0, prcap = 0, ntmp = 0, tmpcap = 0;
    for (uint32_t i = 0; i < s->npreds && s->nranges > 0; i++) {
        rc = page_ranges(s, rg, &s->preds[i], &pr, &npr, &prcap);
        if (rc < 0) goto cleanup;
        if (rc == 1) { rc = 0; continue; }
        /* intersect s->ranges with pr */
        ntmp = 0;
        uint32_t a = 0, b = 0;
        while (a < s->nranges && b < npr) {
            int64_t lo = s->ranges[a].lo > pr[b].lo ? s->ranges[a].lo : pr[b].lo;
            int64_t hi = s->ranges[a].hi < pr[b].hi ? s->ranges[a].hi : pr[b].hi;
            if (lo < hi) {
                rc = ranges_push(s, &tmp, &ntmp, &tmpcap, lo, hi);
                if (rc) goto cleanup;
            }
            if (s->ranges[a].hi < pr[b].hi) a++;
            else b++;
        }
        s->nranges = 0;
        for (uint32_t k = 0; k < ntmp; k++) {
            rc = ranges_push(s, &s->ranges, &s->nranges, &s->ranges_cap, tmp[k].lo, tmp[k].hi);
            if (rc) goto cleanup;
        }
    }
cleanup:
    tn_free(pr);
    tn_free(tmp);
    return rc;
}

int pq_sc_row_group_begin(tn_parquet_scan *s, uint32_t rg_index) {
    const pq_file_meta *m = pq_rd_meta(s->file);
    const pq_row_group *rg = &m->row_groups[rg_index];
    int rc;
    s->rg = rg_index;
    s->rg_rows = rg->num_rows;
    s->rg_first = pq_rd_row_group_first_row(s->file, rg_index);
    tn_arena_reset(s->rg_arena);
    rc = compute_ranges(s, rg);
    if (rc) return tn_error_prefix(rc, "%s: row group %u: page index", s->path, rg_index);
    s->range_i = 0;
    if (s->nranges == 0) return 0;             /* every page ruled out */
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        if (cr->nc) {
            rc = pq_sc_nested_rg_begin(s, cr, rg);
        } else {
            rc = pq_sc_chunk_load(s, cr, &rg->columns[cr->leaf],
                                  cr->nested ? 0 : chunk_end(s, rg, cr->leaf));
            if (rc == 0 && cr->nested) rc = pq_sc_nested_read_chunk(s, cr);
        }
        if (rc) return tn_error_prefix(rc, "%s: row group %u, column '%s'", s->path, rg_index,
                                       cr->name);
    }
    s->counters.row_groups_scanned++;
    s->cur = s->ranges[0].lo;
    s->rg_active = true;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Public API.
 */
static int pick_conv(colreader *cr);

int pq_sc_colreader_init(tn_parquet_scan *s, colreader *cr, uint32_t leaf) {
    tn_parquet_file *file = s->file;
    cr->leaf = leaf;
    cr->elem = pq_rd_leaf(file, leaf);
    cr->type = pq_rd_leaf_type(file, leaf);
    cr->width = (uint32_t)tn_type_width(cr->type);
    cr->phys = cr->elem->type;
    const pq_rd_node *nd = pq_rd_node_at(file, (uint32_t)(cr->elem - pq_rd_meta(file)->schema));
    cr->max_def = nd->def;
    cr->max_rep = nd->rep;
    cr->nested = nd->parent != 0 || nd->rep > 0;
    cr->is_str = tn_type_is_string(cr->type);
    return pick_conv(cr);
}

static int pick_conv(colreader *cr) {
    const pq_schema_element *e = cr->elem;
    tn_type t = cr->type;
    bool d128 = t.id == TN_TYPE_DECIMAL && t.precision > TN_DECIMAL_INT64_MAX_PRECISION;
    switch (e->type) {
    case PQ_BOOLEAN: cr->conv = CV_BOOL; cr->pw = 0; return 0;
    case PQ_INT32:
        cr->pw = 4;
        switch (t.id) {
        case TN_TYPE_TINYINT: cr->conv = CV_I32_I8; return 0;
        case TN_TYPE_SMALLINT: cr->conv = CV_I32_I16; return 0;
        case TN_TYPE_INTEGER: case TN_TYPE_DATE: cr->conv = CV_I32; return 0;
        case TN_TYPE_BIGINT: cr->conv = CV_U32_I64; return 0;
        case TN_TYPE_DECIMAL: cr->conv = d128 ? CV_I32_DEC128 : CV_I32_DEC64; return 0;
        default: break;
        }
        break;
    case PQ_INT64:
        cr->pw = 8;
        switch (t.id) {
        case TN_TYPE_BIGINT: cr->conv = CV_I64; return 0;
        case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
            int unit = pq_rd_ts_unit(e);
            cr->conv = unit == PQ_UNIT_MILLIS ? CV_I64_MS : unit == PQ_UNIT_NANOS ? CV_I64_NS : CV_I64;
            return 0;
        }
        case TN_TYPE_DECIMAL:
            cr->conv = pq_rd_is_unsigned(e) ? CV_U64_DEC128 : d128 ? CV_I64_DEC128 : CV_I64;
            return 0;
        default: break;
        }
        break;
    case PQ_INT96: cr->pw = 12; cr->conv = CV_INT96; return 0;
    case PQ_FLOAT: cr->pw = 4; cr->conv = CV_F32; return 0;
    case PQ_DOUBLE: cr->pw = 8; cr->conv = CV_F64; return 0;
    case PQ_FIXED_LEN_BYTE_ARRAY:
        cr->pw = (uint32_t)e->type_length;
        if (t.id == TN_TYPE_FLOAT) { cr->conv = CV_F16; return 0; }
        if (t.id == TN_TYPE_DECIMAL) { cr->conv = d128 ? CV_FIXED_DEC128 : CV_FIXED_DEC64; return 0; }
        cr->conv = CV_FIXED_STR;
        return 0;
    case PQ_BYTE_ARRAY:
        cr->pw = 0;
        if (t.id == TN_TYPE_DECIMAL) { cr->conv = d128 ? CV_STR_DEC128 : CV_STR_DEC64; return 0; }
        cr->conv = CV_STR;
        return 0;
    default: break;
    }
    return tn_error_set(TN_EINTERNAL, "column '%s': no conversion to its type", e->name);
}

/* Copies a constant's string bytes into the scan's arena. */
static int own_value(tn_parquet_scan *s, tn_value *v) {
    if (v->is_null || !tn_type_is_string(v->type) || v->u.s.len == 0) return 0;
    char *c = tn_arena_alloc(s->arena, v->u.s.len);
    if (!c) return TN_ENOMEM;
    memcpy(c, v->u.s.ptr, v->u.s.len);
    v->u.s.ptr = c;
    return 0;
}

/* Types whose logical values are integers (cmp_raw compares them as int64). */
static bool int_stored(tn_type t) {
    switch (t.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
    case TN_TYPE_DATE: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: return true;
    case TN_TYPE_DECIMAL: return !tn_type_is_decimal128(t);
    default: return false;
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* An IN term's values as a sorted, distinct int64 array (binary-searched per row). */
static int sorted_ints(tn_parquet_scan *s, fpred *d) {
    int64_t *iv = tn_arena_alloc(s->arena, ((size_t)d->nvalues + 1) * sizeof *iv);
    if (!iv) return TN_ENOMEM;
    for (uint32_t k = 0; k < d->nvalues; k++) iv[k] = d->values[k].u.i;
    qsort(iv, d->nvalues, sizeof *iv, cmp_i64);
    uint32_t n = 0;
    for (uint32_t k = 0; k < d->nvalues; k++)
        if (n == 0 || iv[k] != iv[n - 1]) iv[n++] = iv[k];
    d->ivals = iv;
    d->nivals = n;
    if (n == 0) return 0;
    uint64_t range = (uint64_t)iv[n - 1] - (uint64_t)iv[0] + 1;
    if (range == 0 || range > IN_BITMAP_MAX_BITS) return 0;
    uint64_t *bits = tn_arena_calloc(s->arena, (size_t)(range + 63) / 64 * sizeof *bits);
    if (!bits) return TN_ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t o = (uint64_t)iv[k] - (uint64_t)iv[0];
        bits[o >> 6] |= (uint64_t)1 << (o & 63);
    }
    d->ibits = bits;
    d->ibits_range = range;
    return 0;
}

static int add_term(tn_parquet_scan *s, uint32_t column, const fpred *t, uint32_t max_terms) {
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        if (cr->col != column) continue;
        if (!pq_sc_filter_supported(cr->type, t)) return 0;
        if (!cr->fp) {
            cr->fp = tn_calloc(max_terms, sizeof *cr->fp);
            if (!cr->fp) return TN_ENOMEM;
        }
        fpred *d = &cr->fp[cr->nfp++];
        *d = *t;
        int rc = own_value(s, &d->constant);
        if (rc) return rc;
        if (t->in) {
            tn_value *vals = tn_arena_alloc(s->arena, (t->nvalues ? t->nvalues : 1) * sizeof *vals);
            if (!vals) return TN_ENOMEM;
            for (uint32_t k = 0; k < t->nvalues; k++) {
                vals[k] = t->values[k];
                rc = own_value(s, &vals[k]);
                if (rc) return rc;
            }
            d->values = vals;
            if (int_stored(cr->type)) rc = sorted_ints(s, d);
            if (rc) return rc;
        }
        return 0;                    /* a column projected twice is filtered once */
    }
    return 0;
}

/* Attaches the row-testable terms of f to their projected columns and orders the columns:
 * filter columns first (equality and IN before ranges), then the rest. */
int tn_parquet_scan_set_filter(tn_parquet_scan *s, const tn_parquet_row_filter *f) {
    int rc = 0;
    uint32_t nf = 0;
    int *rank = NULL;
    if (s->filter || s->rg_i)
        return tn_error_set(TN_EINVAL, "%s: the row filter is set once, before reading", s->path);
    if (!f || s->ncols == 0 || f->npredicates + f->nin_lists == 0) return 0;
    uint32_t max_terms = f->npredicates + f->nin_lists;
    for (uint32_t i = 0; i < f->npredicates && !rc; i++) {
        const tn_parquet_predicate *p = &f->predicates[i];
        fpred t = {p->op, false, p->constant, NULL, 0, NULL, 0, NULL, 0};
        rc = add_term(s, p->column, &t, max_terms);
    }
    for (uint32_t i = 0; i < f->nin_lists && !rc; i++) {
        const tn_parquet_in_list *l = &f->in_lists[i];
        if (l->nvalues && !l->values) continue;
        fpred t = {TN_PQ_EQ, true, {{TN_TYPE_NULL, 0, 0, NULL}, true, {0}}, l->values, l->nvalues, NULL, 0, NULL, 0};
        rc = add_term(s, l->column, &t, max_terms);
    }
    if (rc) goto cleanup;
    s->order = tn_calloc(s->ncols, sizeof *s->order);
    rank = tn_calloc(s->ncols, sizeof *rank);
    if (!s->order || !rank) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        if (!cr->nfp) continue;
        cr->null_pass = true;
        int r = 2;
        for (uint32_t i = 0; i < cr->nfp; i++) {
            const fpred *p = &cr->fp[i];
            if (p->in || p->op != TN_PQ_IS_NULL) cr->null_pass = false;
            if (p->in || p->op == TN_PQ_EQ || p->op == TN_PQ_IS_NULL) r = 0;
            else if (r > 1 && p->op != TN_PQ_NE && p->op != TN_PQ_IS_NOT_NULL) r = 1;
        }
        uint32_t k = nf++;
        while (k > 0 && rank[k - 1] > r) { s->order[k] = s->order[k - 1]; rank[k] = rank[k - 1]; k--; }
        s->order[k] = c;
        rank[k] = r;
    }
    if (nf == 0) goto cleanup;
    s->nfcols = nf;
    uint32_t o = nf;
    for (uint32_t c = 0; c < s->ncols; c++)
        if (!s->cols[c].nfp) s->order[o++] = c;
    s->sel = tn_malloc(TN_VECTOR_SIZE * sizeof *s->sel);
    s->idx = tn_malloc(2 * TN_VECTOR_SIZE * sizeof *s->idx);
    s->keep = tn_malloc(TN_VECTOR_SIZE);
    s->ids = tn_malloc(TN_VECTOR_SIZE * sizeof *s->ids);
    if (!s->sel || !s->idx || !s->keep || !s->ids) { rc = TN_ENOMEM; goto cleanup; }
    s->filter = true;
cleanup:
    tn_free(rank);
    if (rc == TN_ENOMEM) rc = NOMEM();
    return rc;
}

/* The scan's row groups: the asked ones (NULL: all), minus those the statistics rule out. */
static int select_row_groups(tn_parquet_scan *s, const uint32_t *row_groups, uint32_t nrow_groups) {
    const pq_file_meta *m = pq_rd_meta(s->file);
    uint32_t nask = row_groups ? nrow_groups : m->nrow_groups;
    tn_free(s->rgs);
    s->nrgs = 0;
    s->rgs = tn_calloc(nask ? nask : 1, sizeof *s->rgs);
    if (!s->rgs) return NOMEM();
    for (uint32_t i = 0; i < nask; i++) {
        uint32_t r = row_groups ? row_groups[i] : i;
        if (r >= m->nrow_groups || (i > 0 && row_groups && r <= row_groups[i - 1]))
            return tn_error_set(TN_EINVAL, "%s: row group list must be ascending and < %u",
                                s->path, m->nrow_groups);
        if (m->row_groups[r].num_rows == 0) continue;
        if (s->npreds && !tn_parquet_row_group_may_match(s->file, r, s->preds, s->npreds)) continue;
        s->rgs[s->nrgs++] = r;
    }
    return 0;
}

int tn_parquet_scan_reset(tn_parquet_scan *s, const uint32_t *row_groups, uint32_t nrow_groups) {
    s->rg_active = false;
    s->rg_i = 0;
    s->failed = 0;
    s->cur = 0;
    s->nranges = s->range_i = 0;
    memset(&s->counters, 0, sizeof s->counters);
    for (uint32_t c = 0; c < s->ncols; c++) {
        colreader *cr = &s->cols[c];
        cr->page_loaded = false;
        cr->has_dict = false;
        cr->dpass_ok = false;
        cr->valid = NULL;
        pq_sc_pool_release(cr, false);
    }
    int rc = select_row_groups(s, row_groups, nrow_groups);
    if (rc) s->failed = rc;
    return rc;
}

int tn_parquet_scan_open(tn_parquet_scan **out, tn_parquet_file *file,
                         const tn_parquet_scan_options *opts) {
    *out = NULL;
    if (pq_rd_nested(file))
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': nested columns are not supported",
                            tn_parquet_path(file), pq_rd_nested(file));
    return pq_sc_open(out, file, opts);
}

int pq_sc_open(tn_parquet_scan **out, tn_parquet_file *file, const tn_parquet_scan_options *opts) {
    int rc = 0;
    *out = NULL;
    /* a file whose descriptor was released (or never opened: a cached footer) opens it again */
    rc = tn_parquet_handle_open(file);
    if (rc) return rc;
    tn_parquet_scan *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    uint32_t nfcols = tn_parquet_num_columns(file);
    s->file = file;
    s->path = tn_parquet_path(file);
    s->fs = pq_rd_fs(file);
    s->fh = pq_rd_handle(file);
    s->file_size = tn_parquet_file_size(file);
    s->max_page_bytes = pq_rd_options(file)->max_page_bytes;
    s->verify = pq_rd_options(file)->verify_checksums;
    s->row_limit = -1;
    s->arena = tn_arena_create(0);
    s->rg_arena = tn_arena_create(0);
    if (!s->arena || !s->rg_arena) { rc = TN_ENOMEM; goto cleanup; }
    /* columns */
    s->ncols = opts ? opts->ncolumns : 0;
    s->cols = tn_calloc(s->ncols ? s->ncols : 1, sizeof *s->cols);
    if (!s->cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < s->ncols; i++) {
        uint32_t c = opts->columns[i];
        if (c >= nfcols) {
            rc = tn_error_set(TN_EINVAL, "%s: no column %u (file has %u)", s->path, c, nfcols);
            goto cleanup;
        }
        colreader *cr = &s->cols[i];
        const tn_parquet_column_info *ci = tn_parquet_column(file, c);
        cr->col = c;
        cr->name = ci->name;
        int32_t leaf = pq_rd_column_leaf(file, c);
        if (leaf >= 0) {
            rc = pq_sc_colreader_init(s, cr, (uint32_t)leaf);
        } else {
            cr->type = ci->type;
            cr->width = (uint32_t)tn_type_width(ci->type);
            rc = pq_sc_nested_open(s, cr, c, opts->column_types ? &opts->column_types[i] : NULL);
        }
        if (rc) goto cleanup;
        if (leaf >= 0 && opts->column_types && !tn_type_equal(opts->column_types[i], cr->type)) {
            rc = tn_error_set(TN_EINVAL, "%s: column '%s' is not nested: its projected type must "
                              "be its own", s->path, cr->name);
            goto cleanup;
        }
    }
    /* predicates (constants copied) */
    if (opts && opts->npredicates) {
        s->preds = tn_arena_alloc(s->arena, opts->npredicates * sizeof *s->preds);
        if (!s->preds) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < opts->npredicates; i++) {
            tn_parquet_predicate p = opts->predicates[i];
            if (p.column >= nfcols || pq_rd_column_leaf(file, p.column) < 0) continue;
            if (!p.constant.is_null && tn_type_is_string(p.constant.type) && p.constant.u.s.len) {
                char *c = tn_arena_alloc(s->arena, p.constant.u.s.len);
                if (!c) { rc = TN_ENOMEM; goto cleanup; }
                memcpy(c, p.constant.u.s.ptr, p.constant.u.s.len);
                p.constant.u.s.ptr = c;
            }
            s->preds[s->npreds++] = p;
        }
    }
    rc = select_row_groups(s, opts ? opts->row_groups : NULL, opts ? opts->nrow_groups : 0);
    if (rc) goto cleanup;
    *out = s;
    s = NULL;
cleanup:
    tn_parquet_scan_close(s);
    return rc;
}

/* scan_next with the row filter: batches of the current row group until out is nearly full. */
static int scan_next_filtered(tn_parquet_scan *s, tn_chunk *out, int64_t *row_ids) {
    int rc = 0;
    for (;;) {
        if (!s->rg_active) {
            if (out->count > 0) return 0;          /* strings may point into this row group */
            if (s->rg_i >= s->nrgs) return 0;
            rc = pq_sc_row_group_begin(s, s->rgs[s->rg_i++]);
            if (rc) return rc;
            continue;
        }
        if (s->range_i >= s->nranges) { s->rg_active = false; continue; }
        row_range *r = &s->ranges[s->range_i];
        if (s->cur < r->lo) s->cur = r->lo;
        if (s->cur >= r->hi) { s->range_i++; continue; }
        int64_t left = r->hi - s->cur;
        uint32_t room = TN_VECTOR_SIZE - out->count;
        uint32_t n = left < room ? (uint32_t)left : room;
        rc = pq_sc_filter_batch(s, s->cur, n, out, row_ids);
        if (rc) return rc;
        s->cur += n;
        s->counters.rows_scanned += n;
        if (out->count + 256 > TN_VECTOR_SIZE) return 0;
    }
}

int tn_parquet_scan_next_rows(tn_parquet_scan *s, tn_chunk *out, int64_t *row_ids) {
    int rc = 0;
    if (s->failed) return s->failed;
    if (!s->filter) {
        int64_t first = 0;
        rc = tn_parquet_scan_next(s, out, &first);
        if (!rc && row_ids)
            for (uint32_t i = 0; i < out->count; i++) row_ids[i] = first + i;
        return rc;
    }
    tn_chunk_reset(out);
    if (out->ncols != s->ncols)
        return tn_error_set(TN_EINVAL, "%s: scan has %u columns, chunk has %u", s->path, s->ncols,
                            out->ncols);
    for (uint32_t c = 0; c < s->ncols; c++) {
        pq_sc_pool_release(&s->cols[c], true);
        if (out->cols[c].capacity < TN_VECTOR_SIZE || !tn_type_equal(out->cols[c].type, s->cols[c].type))
            return tn_error_set(TN_EINVAL, "%s: output column %u has the wrong type or capacity",
                                s->path, c);
    }
    rc = scan_next_filtered(s, out, row_ids);
    if (rc) {
        s->failed = rc;
        tn_chunk_reset(out);
    }
    return rc;
}

int tn_parquet_scan_next(tn_parquet_scan *s, tn_chunk *out, int64_t *first_row) {
    int rc = 0;
    if (s->filter) {
        rc = tn_parquet_scan_next_rows(s, out, s->ids);
        if (first_row) *first_row = !rc && out->count ? s->ids[0] : tn_parquet_num_rows(s->file);
        return rc;
    }
    if (s->failed) return s->failed;
    tn_chunk_reset(out);
    if (out->ncols != s->ncols)
        return tn_error_set(TN_EINVAL, "%s: scan has %u columns, chunk has %u", s->path, s->ncols,
                            out->ncols);
    for (uint32_t c = 0; c < s->ncols; c++) {
        pq_sc_pool_release(&s->cols[c], true);
        if (out->cols[c].capacity < TN_VECTOR_SIZE || !tn_type_equal(out->cols[c].type, s->cols[c].type))
            return tn_error_set(TN_EINVAL, "%s: output column %u has the wrong type or capacity",
                                s->path, c);
    }
    for (;;) {
        if (!s->rg_active) {
            if (s->rg_i >= s->nrgs) {
                if (first_row) *first_row = tn_parquet_num_rows(s->file);
                return 0;
            }
            rc = pq_sc_row_group_begin(s, s->rgs[s->rg_i++]);
            if (rc) goto fail;
            continue;
        }
        if (s->range_i >= s->nranges) { s->rg_active = false; continue; }
        row_range *r = &s->ranges[s->range_i];
        if (s->cur < r->lo) s->cur = r->lo;
        if (s->cur >= r->hi) { s->range_i++; continue; }
        int64_t left = r->hi - s->cur;
        uint32_t n = left < TN_VECTOR_SIZE ? (uint32_t)left : TN_VECTOR_SIZE;
        for (uint32_t c = 0; c < s->ncols; c++) {
            rc = s->cols[c].nc ? pq_sc_nested_fill(s, &s->cols[c], s->cur, n, &out->cols[c])
                               : pq_sc_fill_column(s, &s->cols[c], s->cur, n, &out->cols[c]);
            if (rc) {
                rc = tn_error_prefix(rc, "%s: row group %u, column '%s'", s->path, s->rg,
                                     s->cols[c].name);
                goto fail;
            }
            out->cols[c].count = n;
        }
        out->count = n;
        if (first_row) *first_row = s->rg_first + s->cur;
        s->cur += n;
        s->counters.rows_scanned += n;
        return 0;
    }
fail:
    s->failed = rc;
    tn_chunk_reset(out);
    return rc;
}

void tn_parquet_scan_set_row_limit(tn_parquet_scan *s, int64_t limit) { s->row_limit = limit < 0 ? -1 : limit; }

const tn_parquet_scan_counters *tn_parquet_scan_stats(const tn_parquet_scan *s) {
    return &s->counters;
}

void tn_parquet_scan_close(tn_parquet_scan *s) {
    if (!s) return;
    for (uint32_t c = 0; c < s->ncols && s->cols; c++) {
        pq_sc_nested_free(&s->cols[c]);
        pq_sc_colreader_free(&s->cols[c]);
    }
    tn_free(s->cols);
    tn_free(s->order);
    tn_free(s->sel);
    tn_free(s->idx);
    tn_free(s->keep);
    tn_free(s->ids);
    tn_free(s->rgs);
    tn_free(s->ranges);
    tn_arena_destroy(s->arena);
    tn_arena_destroy(s->rg_arena);
    tn_free(s);
}
