/*
 * parquet/scan_nested.c: the page half of nested leaves: every data page of a leaf's column
 * chunk decoded whole (repetition and definition levels, then the values of the slots whose
 * definition level is the maximum) into the column reader's level arrays and dense values, for
 * record assembly (nested.c). Levels are checked against the schema here (range, records per
 * v2 page, records per row group); their shape is checked by the assembly.
 *
 * Data page v1 body: [u32 LE len + RLE rep levels] if max_rep > 0, [u32 LE len + RLE def
 * levels] if max_def > 0, values (compressed as a whole). v2: rep levels, def levels (lengths in
 * the header, never compressed), values. v2 pages hold whole records; v1 pages may split one.
 */
#include "parquet/scanInt.h"

static int grow_levels(colreader *cr, uint32_t add) {
    if ((uint64_t)cr->nlev + add > UINT32_MAX / 2)
        return tn_error_set(TN_ELIMIT, "more than %u levels in one column chunk", UINT32_MAX / 2);
    if (cr->nlev + add <= cr->lev_cap) return 0;
    uint32_t cap = cr->lev_cap ? cr->lev_cap : 1024;
    while (cap < cr->nlev + add) cap = cap > UINT32_MAX / 4 ? cr->nlev + add : cap * 2;
    if (cr->max_rep > 0) {
        uint32_t *p = tn_realloc(cr->rep, sizeof *p * cap);
        if (!p) return NOMEM();
        cr->rep = p;
    }
    if (cr->max_def > 0) {
        uint32_t *p = tn_realloc(cr->def, sizeof *p * cap);
        if (!p) return NOMEM();
        cr->def = p;
    }
    cr->lev_cap = cap;
    return 0;
}

/* v1 levels: u32 LE length, then the RLE hybrid; advances *p / *len past them. */
static int levels_v1(const uint8_t **p, size_t *len, int encoding, int max, uint32_t *out,
                     uint32_t n, const char *what) {
    if (encoding != PQ_ENC_RLE)
        return tn_error_set(TN_EUNSUPPORTED, "%s level encoding %d is not supported", what,
                            encoding);
    if (*len < 4) return tn_error_set(TN_ECORRUPT, "%s levels: missing length", what);
    uint32_t l = tn_load_u32le(*p);
    if (l > *len - 4)
        return tn_error_set(TN_ECORRUPT, "%s levels: length %u past the page", what, l);
    int rc = pq_rle_decode(*p + 4, l, pq_bit_width((uint64_t)max), out, n, NULL);
    if (rc) return tn_error_prefix(rc, "%s levels", what);
    *p += 4 + (size_t)l;
    *len -= 4 + (size_t)l;
    return 0;
}

/* Appends the values of the nn slots of the page that hold one. */
static int page_values(tn_parquet_scan *s, colreader *cr, int encoding, const uint8_t *vp,
                       size_t vlen, uint32_t nn) {
    size_t w = cr->width;
    uint8_t *buf = pq_sc_sbuf_get(&cr->nvals_buf, ((size_t)cr->nvals + nn) * w);
    if (!buf) return NOMEM();
    uint8_t *dst = buf + (size_t)cr->nvals * w;
    if (encoding == PQ_ENC_PLAIN_DICTIONARY || encoding == PQ_ENC_RLE_DICTIONARY) {
        if (!cr->has_dict)
            return tn_error_set(TN_ECORRUPT, "dictionary-encoded page without a dictionary page");
        if (nn == 0) return 0;
        if (vlen < 1) return tn_error_set(TN_ECORRUPT, "dictionary indices: missing bit width");
        if (vp[0] > 32)
            return tn_error_set(TN_ECORRUPT, "dictionary indices: bit width %d too large", vp[0]);
        pq_rle_init(&cr->ds, vp + 1, vlen - 1, vp[0]);
        return pq_sc_dict_take(cr, dst, nn);
    }
    const uint8_t *dense = NULL;
    int rc = pq_sc_decode_values(s, cr, encoding, vp, vlen, nn, &dense);
    if (rc) return rc;
    if (nn) memcpy(dst, dense, (size_t)nn * w);
    return 0;
}

static int nested_page(tn_parquet_scan *s, colreader *cr, const pq_page_header *h,
                       const uint8_t *body, int64_t *records) {
    size_t csize = (size_t)h->compressed_page_size, usize = (size_t)h->uncompressed_page_size;
    uint32_t n = (uint32_t)(h->type == PQ_PAGE_DATA ? h->data.num_values : h->data_v2.num_values);
    int rc = grow_levels(cr, n);
    if (rc) return rc;
    uint32_t *rep = cr->rep ? cr->rep + cr->nlev : NULL, *def = cr->def ? cr->def + cr->nlev : NULL;
    const uint8_t *vp;
    size_t vlen;
    int encoding;
    if (h->type == PQ_PAGE_DATA) {
        encoding = h->data.encoding;
        rc = pq_sc_page_data(s, cr, body, csize, usize, true, &vp, &vlen);
        if (rc) return rc;
        if (rep) rc = levels_v1(&vp, &vlen, h->data.repetition_level_encoding, cr->max_rep, rep, n,
                                "repetition");
        if (!rc && def) rc = levels_v1(&vp, &vlen, h->data.definition_level_encoding, cr->max_def,
                                       def, n, "definition");
        if (rc) return rc;
    } else {
        const pq_data_page_header_v2 *v2 = &h->data_v2;
        encoding = v2->encoding;
        if (v2->repetition_levels_byte_length < 0 || v2->definition_levels_byte_length < 0 ||
            (uint64_t)v2->repetition_levels_byte_length +
                    (uint64_t)v2->definition_levels_byte_length > (csize < usize ? csize : usize))
            return tn_error_set(TN_ECORRUPT, "v2 level lengths exceed the page");
        size_t rl = (size_t)v2->repetition_levels_byte_length;
        size_t dl = (size_t)v2->definition_levels_byte_length;
        if (rep && (rc = pq_rle_decode(body, rl, pq_bit_width((uint64_t)cr->max_rep), rep, n, NULL)))
            return tn_error_prefix(rc, "repetition levels");
        if (def && (rc = pq_rle_decode(body + rl, dl, pq_bit_width((uint64_t)cr->max_def), def, n, NULL)))
            return tn_error_prefix(rc, "definition levels");
        rc = pq_sc_page_data(s, cr, body + rl + dl, csize - rl - dl, usize - rl - dl,
                             v2->is_compressed, &vp, &vlen);
        if (rc) return rc;
    }
    uint32_t nn = 0, recs = rep ? 0 : n;
    const uint32_t max_def = (uint32_t)cr->max_def, max_rep = (uint32_t)cr->max_rep;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = def ? def[i] : max_def;
        if (d > max_def)
            return tn_error_set(TN_ECORRUPT, "value %u: definition level %u exceeds the column's "
                                "maximum %u", i, d, max_def);
        if (rep) {
            if (rep[i] > max_rep)
                return tn_error_set(TN_ECORRUPT, "value %u: repetition level %u exceeds the "
                                    "column's maximum %u", i, rep[i], max_rep);
            recs += rep[i] == 0;
        }
        nn += d == max_def;
    }
    if (rep && n > 0 && rep[0] != 0) {
        if (cr->nlev == 0)
            return tn_error_set(TN_ECORRUPT, "the first repetition level is %u, not 0 (a record "
                                "cannot start inside a list)", rep[0]);
        if (h->type == PQ_PAGE_DATA_V2)
            return tn_error_set(TN_ECORRUPT, "v2 page starts inside a record (repetition level "
                                "%u): a list runs past its page", rep[0]);
    }
    if (h->type == PQ_PAGE_DATA_V2 && h->data_v2.num_rows != (int32_t)recs)
        return tn_error_set(TN_ECORRUPT, "v2 page header says %d rows, its levels hold %u records",
                            (int)h->data_v2.num_rows, recs);
    rc = page_values(s, cr, encoding, vp, vlen, nn);
    if (rc) return rc;
    cr->nlev += n;
    cr->nvals += nn;
    *records += recs;
    return 0;
}

int pq_sc_nested_read_chunk(tn_parquet_scan *s, colreader *cr) {
    int64_t records = 0;
    cr->nlev = 0;
    cr->nvals = 0;
    for (;;) {
        pq_page_header h;
        const uint8_t *body;
        uint32_t page_no;
        int rc = pq_sc_next_page(s, cr, &h, &body, &page_no);
        if (rc == 1) break;
        if (rc) return rc;
        rc = pq_sc_check_crc(s, &h, body, page_no);
        if (rc == 0) rc = nested_page(s, cr, &h, body, &records);
        if (rc) return tn_error_prefix(rc, "page %u", page_no);
        s->counters.pages_read++;
        if (records > s->rg_rows)
            return tn_error_set(TN_ECORRUPT, "page %u: the column holds more records than the "
                                "row group's %lld rows", page_no, (long long)s->rg_rows);
    }
    if (records != s->rg_rows)
        return tn_error_set(TN_ECORRUPT, "the column chunk holds %lld records, the row group has "
                            "%lld rows", (long long)records, (long long)s->rg_rows);
    return 0;
}
