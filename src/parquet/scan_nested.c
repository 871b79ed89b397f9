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
#include "parquet/nestedInt.h"
#include "parquet/scanInt.h"

#include <strings.h>

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

/* ---------------------------------------------------------------------------------------------
 * Nested output columns: the projected tree, its leaves' readers, rows assembled into vectors.
 */
static const pq_nest *first_prim(const pq_nest *n) {
    while (n->kind != PQ_NEST_PRIM) n = n->children[0];
    return n;
}

/* A copy of n keeping only what `want` names (struct fields by name, case-insensitive). */
static int prune(tn_parquet_scan *s, const char *col, const pq_nest *n, tn_type want,
                 const pq_nest **out) {
    tn_parquet_file *f = s->file;
    const pq_nest *kids[2] = {NULL, NULL};
    int rc = 0;
    switch (n->kind) {
    case PQ_NEST_PRIM:
        if (!tn_type_equal(want, pq_rd_leaf_type(f, (uint32_t)n->leaf))) goto mismatch;
        *out = n;
        return 0;
    case PQ_NEST_LIST:
        if (want.id != TN_TYPE_LIST) goto mismatch;
        rc = prune(s, col, n->children[0], tn_type_element(want), &kids[0]);
        break;
    case PQ_NEST_MAP: {
        if (want.id != TN_TYPE_MAP) goto mismatch;
        const pq_nest *entry = n->children[0];
        if (!tn_type_equal(tn_type_map_key(want), pq_rd_leaf_type(f, (uint32_t)first_prim(entry->children[0])->leaf)) &&
            entry->children[0]->kind == PQ_NEST_PRIM)
            goto mismatch;
        const pq_nest *kv[2] = {entry->children[0], NULL};
        rc = prune(s, col, entry->children[1], tn_type_map_value(want), &kv[1]);
        if (rc) return rc;
        pq_nest *e2 = tn_arena_alloc(s->arena, sizeof *e2);
        pq_nest **ek = tn_arena_alloc(s->arena, sizeof *ek * 2);
        if (!e2 || !ek) return NOMEM();
        *e2 = *entry;
        ek[0] = (pq_nest *)kv[0];
        ek[1] = (pq_nest *)kv[1];
        e2->children = ek;
        kids[0] = e2;
        break;
    }
    default: {
        if (want.id != TN_TYPE_STRUCT) goto mismatch;
        uint32_t nf = want.nested->nchildren;
        pq_nest *c = tn_arena_alloc(s->arena, sizeof *c);
        pq_nest **ch = tn_arena_alloc(s->arena, sizeof *ch * nf);
        if (!c || !ch) return NOMEM();
        *c = *n;
        c->nchildren = nf;
        c->children = ch;
        for (uint32_t i = 0; i < nf; i++) {
            const char *name = want.nested->names[i];
            const pq_nest *src = NULL;
            for (uint32_t k = 0; k < n->nchildren && !src; k++)
                if (strcasecmp(n->children[k]->name, name) == 0) src = n->children[k];
            if (!src)
                return tn_error_set(TN_EINVAL, "%s: column '%s': no field '%s' to read", s->path,
                                    col, name);
            if (i > 0 && first_prim(src)->leaf <= first_prim(ch[i - 1])->leaf)
                return tn_error_set(TN_EINVAL, "%s: column '%s': projected fields must keep the "
                                    "file's order ('%s')", s->path, col, name);
            rc = prune(s, col, src, want.nested->children[i], (const pq_nest **)&ch[i]);
            if (rc) return rc;
        }
        *out = c;
        return 0;
    }
    }
    if (rc) return rc;
    pq_nest *c = tn_arena_alloc(s->arena, sizeof *c);
    pq_nest **ch = tn_arena_alloc(s->arena, sizeof *ch);
    if (!c || !ch) return NOMEM();
    *c = *n;
    ch[0] = (pq_nest *)kids[0];
    c->children = ch;
    *out = c;
    return 0;
mismatch: {
        char a[128];
        tn_type_format(want, a, sizeof a);
        return tn_error_set(TN_EINVAL, "%s: column '%s': cannot read '%s' as %s", s->path, col,
                            n->name, a);
    }
}

static uint32_t collect_leaves(const pq_nest *n, uint32_t *out, uint32_t k) {
    if (n->kind == PQ_NEST_PRIM) {
        out[k] = (uint32_t)n->leaf;
        return k + 1;
    }
    for (uint32_t i = 0; i < n->nchildren; i++) k = collect_leaves(n->children[i], out, k);
    return k;
}

int pq_sc_nested_open(tn_parquet_scan *s, colreader *cr, uint32_t col, const tn_type *type) {
    const pq_nest *tree = pq_rd_column_tree(s->file, col);
    if (!tree) return tn_error_set(TN_EINTERNAL, "column %u is not nested", col);
    nestcol *nc = tn_calloc(1, sizeof *nc);
    if (!nc) return NOMEM();
    cr->nc = nc;
    int rc = 0;
    if (type && !tn_type_equal(*type, cr->type)) {
        rc = prune(s, cr->name, tree, *type, &tree);
        if (rc) return rc;
        cr->type = *type;
        cr->width = (uint32_t)tn_type_width(*type);
    }
    nc->tree = tree;
    uint32_t first, nall;
    pq_rd_column_leaves(s->file, col, &first, &nall);
    uint32_t *leaves = tn_arena_alloc(s->arena, sizeof *leaves * (nall ? nall : 1));
    if (!leaves) return NOMEM();
    nc->nleaves = collect_leaves(tree, leaves, 0);
    uint32_t n = nc->nleaves;
    nc->leaves = tn_calloc(n, sizeof *nc->leaves);
    nc->paths = tn_arena_calloc(s->arena, sizeof *nc->paths * n);
    nc->depth = tn_arena_calloc(s->arena, sizeof *nc->depth * n);
    nc->lev_pos = tn_arena_calloc(s->arena, sizeof *nc->lev_pos * n);
    nc->val_pos = tn_arena_calloc(s->arena, sizeof *nc->val_pos * n);
    nc->asms = tn_arena_calloc(s->arena, sizeof *nc->asms * n);
    nc->arena = tn_arena_create(0);
    if (!nc->leaves || !nc->paths || !nc->depth || !nc->lev_pos || !nc->val_pos || !nc->asms ||
        !nc->arena)
        return NOMEM();
    for (uint32_t i = 0; i < n; i++) {
        colreader *lr = &nc->leaves[i];
        lr->col = col;
        lr->name = pq_rd_leaf_name(s->file, leaves[i]);
        rc = pq_sc_colreader_init(s, lr, leaves[i]);
        if (rc) return rc;
        lr->nested = true;
        nc->paths[i] = tn_arena_alloc(s->arena, sizeof(pq_nest *) * (PQ_MAX_SCHEMA_DEPTH + 1));
        if (!nc->paths[i]) return NOMEM();
        if (!pq_nest_path(tree, (int32_t)leaves[i], nc->paths[i], &nc->depth[i]))
            return tn_error_set(TN_EINTERNAL, "column '%s': leaf %u not in its tree", cr->name,
                                leaves[i]);
    }
    return 0;
}

int pq_sc_nested_rg_begin(tn_parquet_scan *s, colreader *cr, const pq_row_group *rg) {
    nestcol *nc = cr->nc;
    for (uint32_t i = 0; i < nc->nleaves; i++) {
        colreader *lr = &nc->leaves[i];
        int rc = pq_sc_chunk_load(s, lr, &rg->columns[lr->leaf], 0);
        if (rc == 0) rc = pq_sc_nested_read_chunk(s, lr);
        if (rc) return nc->nleaves > 1 ? tn_error_prefix(rc, "leaf '%s'", lr->name) : rc;
        nc->lev_pos[i] = nc->val_pos[i] = 0;
    }
    nc->row = 0;
    return 0;
}

void pq_sc_nested_free(colreader *cr) {
    nestcol *nc = cr->nc;
    if (!nc) return;
    for (uint32_t i = 0; nc->leaves && i < nc->nleaves; i++) pq_sc_colreader_free(&nc->leaves[i]);
    tn_free(nc->leaves);
    tn_arena_destroy(nc->arena);
    if (nc->tmp_init) tn_vector_free(&nc->tmp);
    tn_free(nc);
    cr->nc = NULL;
}

/* Moves a leaf's level/value cursor over `records` records. */
static int skip_records(const colreader *lr, uint32_t *pos, uint32_t *vpos, int64_t records) {
    uint32_t p = *pos, v = *vpos;
    const uint32_t max_def = (uint32_t)lr->max_def;
    for (int64_t r = 0; r < records; r++) {
        if (p >= lr->nlev)
            return tn_error_set(TN_ECORRUPT, "leaf '%s': levels end before row %lld", lr->name,
                                (long long)r);
        do {
            v += !lr->def || lr->def[p] == max_def;
            p++;
        } while (lr->rep && p < lr->nlev && lr->rep[p] != 0);
    }
    *pos = p;
    *vpos = v;
    return 0;
}

static uint32_t leaf_slot(const nestcol *nc, int32_t leaf) {
    for (uint32_t i = 0; i < nc->nleaves; i++)
        if ((int32_t)nc->leaves[i].leaf == leaf) return i;
    return 0;
}

static int grow(tn_vector *v, uint32_t need) {
    if (need <= v->capacity) return 0;
    uint32_t cap = v->capacity > need / 2 ? v->capacity * 2 : need;
    return tn_vector_reserve(v, cap < need ? need : cap);
}

/* Appends the slots of node n (path depth k) of the batch to v; `expect` slots. */
static int build(const nestcol *nc, const pq_nest *n, tn_vector *v, uint32_t k, uint32_t expect,
                 const uint32_t *vstart) {
    uint32_t li = leaf_slot(nc, first_prim(n)->leaf);
    const colreader *lr = &nc->leaves[li];
    const pq_asm_level *L = &nc->asms[li].levels[k];
    if (L->n != expect)
        return tn_error_set(TN_ECORRUPT, "the levels of leaf '%s' disagree with its siblings' "
                            "(%u values at nesting level %u, %u expected)", lr->name, L->n, k,
                            expect);
    uint32_t base = v->count;
    int rc = grow(v, base + L->n);
    if (rc) return rc;
    bool all_valid = true;
    for (uint32_t j = 0; j < L->n && all_valid; j++) all_valid = (L->valid[j >> 6] >> (j & 63)) & 1;
    if (!all_valid || v->validity) {
        if ((rc = tn_vector_ensure_validity(v))) return rc;
        for (uint32_t j = 0; j < L->n; j++)
            tn_vector_set_valid_bit(v, base + j, (L->valid[j >> 6] >> (j & 63)) & 1);
    }
    switch (n->kind) {
    case PQ_NEST_PRIM: {
        size_t w = lr->width;
        const uint8_t *src = lr->nvals_buf.p + (size_t)vstart[li] * w;
        uint8_t *dst = (uint8_t *)v->data + (size_t)base * w;
        if (all_valid) {
            if (L->n) memcpy(dst, src, (size_t)L->n * w);
            break;
        }
        for (uint32_t j = 0; j < L->n; j++) {
            if ((L->valid[j >> 6] >> (j & 63)) & 1) {
                memcpy(dst + (size_t)j * w, src, w);
                src += w;
            } else {
                memset(dst + (size_t)j * w, 0, w);
            }
        }
        break;
    }
    case PQ_NEST_STRUCT:
        for (uint32_t c = 0; c < n->nchildren; c++) {
            rc = build(nc, n->children[c], &v->children[c], k + 1, L->n, vstart);
            if (rc) return rc;
        }
        break;
    default: {                                          /* LIST, MAP */
        tn_vector *child = &v->children[0];
        uint32_t cb = child->count;
        tn_list_entry *e = (tn_list_entry *)v->data + base;
        for (uint32_t j = 0; j < L->n; j++)
            e[j] = (tn_list_entry){cb + L->offsets[j], L->offsets[j + 1] - L->offsets[j]};
        rc = build(nc, n->children[0], child, k + 1, L->offsets[L->n], vstart);
        if (rc) return rc;
        if (n->kind == PQ_NEST_MAP) {
            const tn_vector *keys = &child->children[0];
            for (uint32_t j = cb; keys->validity && j < child->count; j++)
                if (!tn_vector_is_valid(keys, j) && tn_vector_is_valid(child, j))
                    return tn_error_set(TN_ECORRUPT, "map '%s': an entry has a NULL key", n->name);
        }
        break;
    }
    }
    v->count = base + L->n;
    return 0;
}

int pq_sc_nested_fill(tn_parquet_scan *s, colreader *cr, int64_t row, uint32_t n, tn_vector *v) {
    nestcol *nc = cr->nc;
    int rc = 0;
    tn_arena_reset(nc->arena);
    if (row < nc->row) {
        for (uint32_t i = 0; i < nc->nleaves; i++) nc->lev_pos[i] = nc->val_pos[i] = 0;
        nc->row = 0;
    }
    uint32_t *vstart = tn_arena_alloc(nc->arena, sizeof *vstart * (nc->nleaves ? nc->nleaves : 1));
    if (!vstart) return NOMEM();
    for (uint32_t i = 0; i < nc->nleaves; i++) {
        const colreader *lr = &nc->leaves[i];
        uint32_t a = nc->lev_pos[i], va = nc->val_pos[i];
        rc = skip_records(lr, &a, &va, row - nc->row);
        uint32_t b = a, vb = va;
        if (rc == 0) rc = skip_records(lr, &b, &vb, n);
        if (rc == 0)
            rc = pq_levels_assemble(&nc->asms[i], nc->arena, nc->paths[i], nc->depth[i],
                                    lr->rep ? lr->rep + a : NULL, lr->def ? lr->def + a : NULL,
                                    b - a);
        if (rc) return nc->nleaves > 1 ? tn_error_prefix(rc, "leaf '%s'", lr->name) : rc;
        vstart[i] = va;
        nc->lev_pos[i] = b;
        nc->val_pos[i] = vb;
    }
    nc->row = row + n;
    rc = build(nc, nc->tree, v, 0, n, vstart);
    (void)s;
    return rc;
}
