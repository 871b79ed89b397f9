/*
 * delta/checkpoint_read.c: reads Delta checkpoint Parquet files (classic, multi-part, v2 and
 * sidecars), whose action columns are nested (add struct, partitionValues map, ...), with a
 * small Dremel record assembler over parquet/'s private decoders: each wanted leaf column's
 * (repetition, definition, value) triples are decoded and written into one JSON object per row,
 * shaped like the action's JSON; then MAP and LIST groups are folded into objects and arrays.
 * Only the known action columns are assembled (the *_parsed stats/partition structs are
 * skipped). The file is read whole; limits: 1 GiB pages, 64 schema levels.
 */
#include "delta/deltaInt.h"
#include "parquet/parquetInt.h"

#include <stdlib.h>
#include <string.h>

#define CK_MAX_DEPTH 64
#define CK_MAX_PAGE ((size_t)1 << 30)

typedef struct ck_node {
    const pq_schema_element *el;
    int parent;
    int *children;
    int nchildren;
    int def, rep;                    /* max levels at this node */
    bool wanted;
    int leaf;                        /* column index, -1 for groups */
} ck_node;

typedef struct ck_reader {
    const char *path;
    const uint8_t *file;
    size_t file_len;
    pq_file_meta meta;
    tn_arena *arena;
    ck_node *nodes;
    int nnodes;
    int *leaf_nodes;                 /* leaf index -> node index */
    int nleaves;
    /* per column chunk, reused */
    uint32_t *reps, *defs;
    json_t **vals;
    size_t nlev, nvals, cap_lev, cap_vals;
    json_t **dict;
    uint32_t ndict;
    uint8_t *page;                   /* decompression buffer */
    size_t page_cap;
} ck_reader;

static const char *const ck_actions[] = {"txn", "add", "remove", "metaData", "protocol",
                                         "domainMetadata", "sidecar", "checkpointMetadata"};

static bool is_map(const pq_schema_element *el) {
    return el->converted_type == PQ_CT_MAP || el->converted_type == PQ_CT_MAP_KEY_VALUE ||
           el->logical.kind == PQ_LT_MAP;
}
static bool is_list(const pq_schema_element *el) {
    return el->converted_type == PQ_CT_LIST || el->logical.kind == PQ_LT_LIST;
}

/* Builds the node tree from the flattened (pre-order) schema. */
static int build_tree(ck_reader *r) {
    const pq_file_meta *m = &r->meta;
    if (m->nschema < 1) return tn_error_set(TN_ECORRUPT, "empty schema");
    r->nnodes = (int)m->nschema;
    r->nodes = tn_arena_calloc(r->arena, sizeof(ck_node) * m->nschema);
    r->leaf_nodes = tn_arena_calloc(r->arena, sizeof(int) * m->nschema);
    if (!r->nodes || !r->leaf_nodes) return TN_ENOMEM;
    int stack[CK_MAX_DEPTH + 1], left[CK_MAX_DEPTH + 1], depth = 0;
    for (uint32_t i = 0; i < m->nschema; i++) {
        ck_node *n = &r->nodes[i];
        n->el = &m->schema[i];
        n->leaf = -1;
        if (n->el->num_children < 0 || (uint32_t)n->el->num_children >= m->nschema)
            return tn_error_set(TN_ECORRUPT, "schema element %u: bad num_children", i);
        if (i == 0) {
            n->parent = -1;
        } else {
            while (depth > 0 && left[depth - 1] == 0) depth--;
            if (depth == 0) return tn_error_set(TN_ECORRUPT, "schema: more elements than the tree holds");
            n->parent = stack[depth - 1];
            left[depth - 1]--;
            ck_node *p = &r->nodes[n->parent];
            p->children[p->nchildren++] = (int)i;
            int rep = n->el->repetition;
            n->def = p->def + (rep == PQ_OPTIONAL || rep == PQ_REPEATED ? 1 : 0);
            n->rep = p->rep + (rep == PQ_REPEATED ? 1 : 0);
        }
        if (n->el->num_children > 0) {
            if (depth >= CK_MAX_DEPTH) return tn_error_set(TN_ECORRUPT, "schema nested too deeply");
            n->children = tn_arena_calloc(r->arena, sizeof(int) * (size_t)n->el->num_children);
            if (!n->children) return TN_ENOMEM;
            stack[depth] = (int)i;
            left[depth] = n->el->num_children;
            depth++;
        } else if (i > 0) {
            n->leaf = r->nleaves;
            r->leaf_nodes[r->nleaves++] = (int)i;
        }
        if (n->el->name == NULL) return tn_error_set(TN_ECORRUPT, "schema element %u has no name", i);
    }
    for (int d = 0; d < depth; d++)
        if (left[d] != 0) return tn_error_set(TN_ECORRUPT, "schema: fewer elements than declared");
    /* wanted: top-level action columns, minus *_parsed subtrees. */
    for (int i = 1; i < r->nnodes; i++) {
        ck_node *n = &r->nodes[i];
        bool w;
        if (n->parent == 0) {
            w = false;
            for (size_t k = 0; k < sizeof ck_actions / sizeof ck_actions[0]; k++)
                if (strcmp(n->el->name, ck_actions[k]) == 0) w = true;
        } else {
            w = r->nodes[n->parent].wanted && !tn_str_ends_with(n->el->name, "_parsed");
        }
        n->wanted = w;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Values.
 */
static void free_vals(ck_reader *r) {
    for (size_t i = 0; i < r->nvals; i++) json_decref(r->vals[i]);
    r->nvals = 0;
    r->nlev = 0;
}
static void free_dict(ck_reader *r) {
    for (uint32_t i = 0; i < r->ndict; i++) json_decref(r->dict[i]);
    free(r->dict);
    r->dict = NULL;
    r->ndict = 0;
}

static int push_val(ck_reader *r, json_t *v) {
    if (!v) return tn_error_set(TN_ECORRUPT, "value is not valid UTF-8 text or out of memory");
    if (r->nvals == r->cap_vals) {
        size_t cap = r->cap_vals ? r->cap_vals * 2 : 256;
        json_t **p = tn_realloc(r->vals, cap * sizeof *p);
        if (!p) { json_decref(v); return TN_ENOMEM; }
        r->vals = p;
        r->cap_vals = cap;
    }
    r->vals[r->nvals++] = v;
    return 0;
}

/* Decodes n PLAIN values of `type` from p, calling push (into vals or dict). */
static int plain_values(ck_reader *r, int type, const uint8_t *p, size_t len, uint32_t n,
                        json_t **into, uint32_t *ninto) {
    size_t pos = 0;
    uint8_t *bools = NULL;
    int rc = 0;
    if (type == PQ_BOOLEAN) {
        bools = tn_malloc(n ? n : 1);
        if (!bools) return TN_ENOMEM;
        if ((rc = pq_plain_bool_decode(p, len, 0, n, bools))) goto cleanup;
    }
    for (uint32_t i = 0; i < n; i++) {
        json_t *v = NULL;
        switch (type) {
        case PQ_BOOLEAN: v = json_boolean(bools[i]); break;
        case PQ_INT32:
            if (len - pos < 4) goto short_input;
            v = json_integer((int32_t)tn_load_u32le(p + pos));
            pos += 4;
            break;
        case PQ_INT64:
            if (len - pos < 8) goto short_input;
            v = json_integer((json_int_t)(int64_t)tn_load_u64le(p + pos));
            pos += 8;
            break;
        case PQ_FLOAT: {
            if (len - pos < 4) goto short_input;
            float f;
            memcpy(&f, p + pos, 4);
            v = json_real(f);
            pos += 4;
            break;
        }
        case PQ_DOUBLE: {
            if (len - pos < 8) goto short_input;
            double d;
            memcpy(&d, p + pos, 8);
            v = json_real(d);
            pos += 8;
            break;
        }
        case PQ_BYTE_ARRAY: {
            if (len - pos < 4) goto short_input;
            uint32_t l = tn_load_u32le(p + pos);
            pos += 4;
            if (len - pos < l) goto short_input;
            v = json_stringn((const char *)p + pos, l);
            pos += l;
            break;
        }
        default:
            rc = tn_error_set(TN_EUNSUPPORTED, "physical type %d in a checkpoint column", type);
            goto cleanup;
        }
        if (into) {
            if (!v) { rc = tn_error_set(TN_ECORRUPT, "dictionary value is not valid text"); goto cleanup; }
            into[(*ninto)++] = v;
        } else if ((rc = push_val(r, v))) {
            goto cleanup;
        }
    }
    goto cleanup;
short_input:
    rc = tn_error_set(TN_ECORRUPT, "PLAIN values: input too short");
cleanup:
    tn_free(bools);
    return rc;
}

static int decode_values(ck_reader *r, int type, int encoding, const uint8_t *p, size_t len,
                         uint32_t n) {
    int rc = 0;
    switch (encoding) {
    case PQ_ENC_PLAIN:
        return plain_values(r, type, p, len, n, NULL, NULL);
    case PQ_ENC_PLAIN_DICTIONARY:
    case PQ_ENC_RLE_DICTIONARY: {
        if (n == 0) return 0;
        if (len < 1) return tn_error_set(TN_ECORRUPT, "dictionary indexes: empty page");
        uint32_t *idx = tn_malloc(sizeof(uint32_t) * n);
        if (!idx) return TN_ENOMEM;
        size_t used;
        rc = pq_rle_decode(p + 1, len - 1, p[0], idx, n, &used);
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            if (idx[i] >= r->ndict) {
                rc = tn_error_set(TN_ECORRUPT, "dictionary index %u out of range (%u entries)",
                                  idx[i], r->ndict);
                break;
            }
            json_incref(r->dict[idx[i]]);
            rc = push_val(r, r->dict[idx[i]]);
        }
        tn_free(idx);
        return rc;
    }
    case PQ_ENC_RLE: {
        if (type != PQ_BOOLEAN) break;
        if (len < 4 || tn_load_u32le(p) > len - 4) return tn_error_set(TN_ECORRUPT, "RLE booleans: bad length");
        uint32_t *bits = tn_malloc(sizeof(uint32_t) * (n ? n : 1));
        if (!bits) return TN_ENOMEM;
        size_t used;
        rc = pq_rle_decode(p + 4, tn_load_u32le(p), 1, bits, n, &used);
        for (uint32_t i = 0; rc == 0 && i < n; i++) rc = push_val(r, json_boolean(bits[i]));
        tn_free(bits);
        return rc;
    }
    case PQ_ENC_DELTA_BINARY_PACKED: {
        if (type != PQ_INT32 && type != PQ_INT64) break;
        int64_t *v = tn_malloc(sizeof(int64_t) * (n ? n : 1));
        if (!v) return TN_ENOMEM;
        uint32_t got = 0;
        size_t used;
        rc = pq_delta_binary_decode(p, len, v, n, &got, &used, type == PQ_INT32);
        if (rc == 0 && got < n) rc = tn_error_set(TN_ECORRUPT, "DELTA_BINARY_PACKED: too few values");
        for (uint32_t i = 0; rc == 0 && i < n; i++) rc = push_val(r, json_integer(v[i]));
        tn_free(v);
        return rc;
    }
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        if (type != PQ_BYTE_ARRAY) break;
        tn_str *s = tn_malloc(sizeof(tn_str) * (n ? n : 1));
        tn_arena *a = tn_arena_create(0);
        if (!s || !a) { tn_free(s); tn_arena_destroy(a); return TN_ENOMEM; }
        size_t used;
        rc = encoding == PQ_ENC_DELTA_LENGTH_BYTE_ARRAY
                 ? pq_delta_length_byte_array_decode(p, len, n, s, a, &used)
                 : pq_delta_byte_array_decode(p, len, n, s, a, &used);
        for (uint32_t i = 0; rc == 0 && i < n; i++) rc = push_val(r, json_stringn(s[i].ptr, s[i].len));
        tn_free(s);
        tn_arena_destroy(a);
        return rc;
    }
    default:
        break;
    }
    return tn_error_set(TN_EUNSUPPORTED, "encoding %d for physical type %d in a checkpoint", encoding, type);
}

static int push_levels(ck_reader *r, uint32_t n) {
    if (r->nlev + n > r->cap_lev) {
        size_t cap = r->cap_lev ? r->cap_lev : 256;
        while (cap < r->nlev + n) cap *= 2;
        uint32_t *a = tn_realloc(r->reps, cap * sizeof *a);
        if (!a) return TN_ENOMEM;
        r->reps = a;
        uint32_t *b = tn_realloc(r->defs, cap * sizeof *b);
        if (!b) return TN_ENOMEM;
        r->defs = b;
        r->cap_lev = cap;
    }
    return 0;
}

/* Levels of v1 pages: u32 LE length + RLE hybrid; max 0 -> all zero, no bytes. */
static int levels_v1(const uint8_t **p, size_t *len, int max, uint32_t *out, uint32_t n) {
    if (max == 0) {
        memset(out, 0, sizeof *out * n);
        return 0;
    }
    if (*len < 4) return tn_error_set(TN_ECORRUPT, "levels: page too short");
    uint32_t l = tn_load_u32le(*p);
    if (l > *len - 4) return tn_error_set(TN_ECORRUPT, "levels: length %u exceeds the page", l);
    size_t used;
    int rc = pq_rle_decode(*p + 4, l, pq_bit_width((uint64_t)max), out, n, &used);
    if (rc) return rc;
    *p += 4 + l;
    *len -= 4 + l;
    return 0;
}

static int ensure_page(ck_reader *r, size_t n) {
    if (n > CK_MAX_PAGE) return tn_error_set(TN_ELIMIT, "page of %zu bytes is too large", n);
    if (n <= r->page_cap) return 0;
    uint8_t *p = tn_realloc(r->page, n ? n : 1);
    if (!p) return TN_ENOMEM;
    r->page = p;
    r->page_cap = n;
    return 0;
}

/* Decodes every page of one column chunk into reps/defs/vals. */
static int read_chunk(ck_reader *r, const pq_column_chunk *cc, const ck_node *leaf) {
    const pq_column_meta *cm = &cc->meta;
    int rc = 0;
    if (!cc->has_meta_data) return tn_error_set(TN_ECORRUPT, "column chunk without metadata");
    int64_t start = cm->data_page_offset;
    if (cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
        cm->dictionary_page_offset < start)
        start = cm->dictionary_page_offset;
    int64_t clen = cm->total_compressed_size;
    if (start < 4 || clen < 0 || (uint64_t)start > r->file_len || (uint64_t)clen > r->file_len - (uint64_t)start)
        return tn_error_set(TN_ECORRUPT, "column chunk lies outside the file");
    const uint8_t *chunk = r->file + start;
    size_t pos = 0, len = (size_t)clen;
    int64_t seen = 0;
    free_vals(r);
    free_dict(r);
    while (seen < cm->num_values && pos < len) {
        pq_page_header h;
        size_t hlen;
        if ((rc = pq_decode_page_header(&h, chunk + pos, len - pos, &hlen))) return rc;
        pos += hlen;
        if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
            (size_t)h.compressed_page_size > len - pos)
            return tn_error_set(TN_ECORRUPT, "page size out of range");
        const uint8_t *body = chunk + pos;
        size_t blen = (size_t)h.compressed_page_size, ulen = (size_t)h.uncompressed_page_size;
        pos += blen;
        if (h.type == PQ_PAGE_DICTIONARY && h.has_dictionary) {
            if ((rc = ensure_page(r, ulen))) return rc;
            if ((rc = pq_decompress(cm->codec, body, blen, r->page, ulen))) return rc;
            int32_t nd = h.dictionary.num_values;
            if (nd < 0 || (size_t)nd > ulen + 1) return tn_error_set(TN_ECORRUPT, "bad dictionary size");
            free_dict(r);
            r->dict = calloc((size_t)nd + 1, sizeof(json_t *));
            if (!r->dict) return tn_error_set(TN_ENOMEM, "out of memory");
            if ((rc = plain_values(r, cm->type, r->page, ulen, (uint32_t)nd, r->dict, &r->ndict))) return rc;
        } else if (h.type == PQ_PAGE_DATA && h.has_data) {
            int32_t n = h.data.num_values;
            if (n < 0 || n > cm->num_values - seen) return tn_error_set(TN_ECORRUPT, "bad page value count");
            if ((rc = ensure_page(r, ulen))) return rc;
            if ((rc = pq_decompress(cm->codec, body, blen, r->page, ulen))) return rc;
            const uint8_t *p = r->page;
            size_t plen = ulen;
            if ((rc = push_levels(r, (uint32_t)n))) return rc;
            if ((rc = levels_v1(&p, &plen, leaf->rep, r->reps + r->nlev, (uint32_t)n))) return rc;
            if ((rc = levels_v1(&p, &plen, leaf->def, r->defs + r->nlev, (uint32_t)n))) return rc;
            uint32_t nn = 0;
            for (int32_t i = 0; i < n; i++) nn += r->defs[r->nlev + (size_t)i] == (uint32_t)leaf->def;
            r->nlev += (size_t)n;
            if ((rc = decode_values(r, cm->type, h.data.encoding, p, plen, nn))) return rc;
            seen += n;
        } else if (h.type == PQ_PAGE_DATA_V2 && h.has_data_v2) {
            const pq_data_page_header_v2 *v2 = &h.data_v2;
            int32_t n = v2->num_values;
            if (n < 0 || n > cm->num_values - seen) return tn_error_set(TN_ECORRUPT, "bad page value count");
            if (v2->repetition_levels_byte_length < 0 || v2->definition_levels_byte_length < 0 ||
                (size_t)v2->repetition_levels_byte_length + (size_t)v2->definition_levels_byte_length > blen ||
                (size_t)v2->repetition_levels_byte_length + (size_t)v2->definition_levels_byte_length > ulen)
                return tn_error_set(TN_ECORRUPT, "bad level lengths in a v2 page");
            size_t rl = (size_t)v2->repetition_levels_byte_length, dl = (size_t)v2->definition_levels_byte_length;
            if ((rc = push_levels(r, (uint32_t)n))) return rc;
            size_t used;
            if (leaf->rep == 0) memset(r->reps + r->nlev, 0, sizeof(uint32_t) * (size_t)n);
            else if ((rc = pq_rle_decode(body, rl, pq_bit_width((uint64_t)leaf->rep), r->reps + r->nlev, (uint32_t)n, &used))) return rc;
            if (leaf->def == 0) memset(r->defs + r->nlev, 0, sizeof(uint32_t) * (size_t)n);
            else if ((rc = pq_rle_decode(body + rl, dl, pq_bit_width((uint64_t)leaf->def), r->defs + r->nlev, (uint32_t)n, &used))) return rc;
            uint32_t nn = 0;
            for (int32_t i = 0; i < n; i++) nn += r->defs[r->nlev + (size_t)i] == (uint32_t)leaf->def;
            r->nlev += (size_t)n;
            const uint8_t *vp = body + rl + dl;
            size_t vlen = blen - rl - dl, vulen = ulen - rl - dl;
            if (v2->is_compressed && cm->codec != TN_CODEC_UNCOMPRESSED) {
                if ((rc = ensure_page(r, vulen))) return rc;
                if ((rc = pq_decompress(cm->codec, vp, vlen, r->page, vulen))) return rc;
                vp = r->page;
                vlen = vulen;
            }
            if ((rc = decode_values(r, cm->type, v2->encoding, vp, vlen, nn))) return rc;
            seen += n;
        }
        /* index pages and unknown pages are skipped */
    }
    if (seen != cm->num_values)
        return tn_error_set(TN_ECORRUPT, "column chunk holds %lld values, expected %lld",
                            (long long)seen, (long long)cm->num_values);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Assembly of one leaf's triples into the row objects.
 */
static int set_if_absent(json_t *obj, const char *key, json_t *v) {
    if (json_object_get(obj, key)) { json_decref(v); return 0; }
    return json_object_set_new(obj, key, v) == 0 ? 0 : tn_error_set(TN_ENOMEM, "out of memory");
}

static int assemble_leaf(ck_reader *r, int leaf_node, json_t **rows, int64_t nrows) {
    int path[CK_MAX_DEPTH + 1], k = 0;
    for (int n = leaf_node; n > 0; n = r->nodes[n].parent) path[k++] = n;
    for (int i = 0; i < k / 2; i++) { int t = path[i]; path[i] = path[k - 1 - i]; path[k - 1 - i] = t; }
    int64_t idx[CK_MAX_DEPTH + 1];
    int64_t row = -1;
    size_t vi = 0;
    for (size_t t = 0; t < r->nlev; t++) {
        uint32_t rep = r->reps[t], def = r->defs[t];
        if (rep == 0) {
            row++;
            for (int i = 0; i < k; i++) idx[i] = -1;
        }
        if (row < 0 || row >= nrows) return tn_error_set(TN_ECORRUPT, "column holds more rows than the row group");
        json_t *cur = rows[row];
        json_t *value = NULL;
        if (def == (uint32_t)r->nodes[leaf_node].def) {
            if (vi >= r->nvals) return tn_error_set(TN_ECORRUPT, "fewer values than levels say");
            value = r->vals[vi++];
        }
        for (int i = 0; i < k; i++) {
            const ck_node *n = &r->nodes[path[i]];
            const char *name = n->el->name;
            bool last = i == k - 1;
            if (n->el->repetition == PQ_REPEATED) {
                json_t *arr = json_object_get(cur, name);
                if (!arr || !json_is_array(arr)) {
                    arr = json_array();
                    if (!arr || json_object_set_new(cur, name, arr) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
                }
                if (def < (uint32_t)n->def) break;                 /* empty list */
                if (rep <= (uint32_t)n->rep) {
                    idx[i]++;
                    for (int j = i + 1; j < k; j++) idx[j] = -1;
                }
                if (idx[i] < 0 || (size_t)idx[i] > json_array_size(arr))
                    return tn_error_set(TN_ECORRUPT, "inconsistent repetition levels");
                if (last) {
                    if ((size_t)idx[i] != json_array_size(arr))
                        return tn_error_set(TN_ECORRUPT, "inconsistent repetition levels");
                    if (json_array_append(arr, value ? value : json_null()) != 0)
                        return tn_error_set(TN_ENOMEM, "out of memory");
                    break;
                }
                if ((size_t)idx[i] == json_array_size(arr)) {
                    json_t *o = json_object();
                    if (!o || json_array_append_new(arr, o) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
                }
                cur = json_array_get(arr, (size_t)idx[i]);
                if (!json_is_object(cur)) return tn_error_set(TN_ECORRUPT, "inconsistent nesting");
            } else if (last) {
                int rc = def >= (uint32_t)n->def ? (json_object_set(cur, name, value) == 0 ? 0 : TN_ENOMEM)
                                                 : set_if_absent(cur, name, json_null());
                if (rc) return tn_error_set(rc, "out of memory");
            } else {
                if (def < (uint32_t)n->def) {
                    if (i > 0) {
                        int rc = set_if_absent(cur, name, json_null());
                        if (rc) return rc;
                    }
                    break;
                }
                json_t *o = json_object_get(cur, name);
                if (!o || !json_is_object(o)) {
                    o = json_object();
                    if (!o || json_object_set_new(cur, name, o) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
                }
                cur = o;
            }
        }
    }
    if (row != nrows - 1)
        return tn_error_set(TN_ECORRUPT, "column holds %lld rows, the row group %lld",
                            (long long)(row + 1), (long long)nrows);
    return 0;
}

/* Folds MAP groups into objects and LIST groups into arrays, below node (whose value is obj). */
static int fold(ck_reader *r, int node, json_t *obj) {
    const ck_node *n = &r->nodes[node];
    for (int c = 0; c < n->nchildren; c++) {
        const ck_node *ch = &r->nodes[n->children[c]];
        if (!ch->wanted) continue;
        const char *name = ch->el->name;
        json_t *v = json_object_get(obj, name);
        if (!v || json_is_null(v)) continue;
        if ((is_map(ch->el) || is_list(ch->el)) && ch->nchildren == 1 && json_is_object(v)) {
            const ck_node *rep = &r->nodes[ch->children[0]];
            json_t *arr = json_object_get(v, rep->el->name);
            json_t *res = is_map(ch->el) ? json_object() : json_array();
            if (!res) return tn_error_set(TN_ENOMEM, "out of memory");
            for (size_t i = 0; arr && i < json_array_size(arr); i++) {
                json_t *e = json_array_get(arr, i);
                if (is_map(ch->el)) {
                    if (rep->nchildren != 2 || !json_is_object(e)) continue;
                    json_t *key = json_object_get(e, r->nodes[rep->children[0]].el->name);
                    json_t *val = json_object_get(e, r->nodes[rep->children[1]].el->name);
                    if (!json_is_string(key)) { json_decref(res); return tn_error_set(TN_ECORRUPT, "map key is not a string"); }
                    json_object_set(res, json_string_value(key), val ? val : json_null());
                } else if (rep->nchildren == 1 && json_is_object(e)) {
                    json_t *x = json_object_get(e, r->nodes[rep->children[0]].el->name);
                    json_array_append(res, x ? x : json_null());
                } else {
                    json_array_append(res, e);
                }
            }
            if (json_object_set_new(obj, name, res) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
        } else if (ch->nchildren > 0 && json_is_object(v)) {
            int rc = fold(r, n->children[c], v);
            if (rc) return rc;
        } else if (ch->nchildren > 0 && json_is_array(v)) {
            for (size_t i = 0; i < json_array_size(v); i++) {
                json_t *e = json_array_get(v, i);
                if (json_is_object(e)) {
                    int rc = fold(r, n->children[c], e);
                    if (rc) return rc;
                }
            }
        }
    }
    return 0;
}

static int read_row_group(ck_reader *r, uint32_t g, dl_row_fn fn, void *ctx) {
    const pq_row_group *rg = &r->meta.row_groups[g];
    int rc = 0;
    int64_t nrows = rg->num_rows;
    json_t **rows = NULL;
    if (nrows < 0 || (uint64_t)nrows > r->file_len)     /* every row takes at least a bit */
        return tn_error_set(TN_ECORRUPT, "row group %u: bad row count", g);
    if ((int)rg->ncolumns != r->nleaves)
        return tn_error_set(TN_ECORRUPT, "row group %u: %u columns, schema has %d", g, rg->ncolumns, r->nleaves);
    rows = tn_calloc((size_t)nrows + 1, sizeof *rows);
    if (!rows) return TN_ENOMEM;
    for (int64_t i = 0; i < nrows; i++)
        if (!(rows[i] = json_object())) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
    for (int l = 0; l < r->nleaves; l++) {
        int node = r->leaf_nodes[l];
        if (!r->nodes[node].wanted) continue;
        const ck_node *leaf = &r->nodes[node];
        if ((rc = read_chunk(r, &rg->columns[l], leaf)) ||
            (rc = assemble_leaf(r, node, rows, nrows))) {
            rc = tn_error_prefix(rc, "row group %u, column '%s'", g, leaf->el->name);
            goto cleanup;
        }
    }
    for (int64_t i = 0; i < nrows; i++) {
        if ((rc = fold(r, 0, rows[i]))) goto cleanup;
        if ((rc = fn(ctx, rows[i]))) goto cleanup;
    }
cleanup:
    free_vals(r);
    free_dict(r);
    if (rows)
        for (int64_t i = 0; i < nrows; i++) json_decref(rows[i]);
    tn_free(rows);
    return rc;
}

int dl_checkpoint_read(tn_fs *fs, const char *path, dl_row_fn fn, void *ctx) {
    tn_buf file = TN_BUF_INIT;
    ck_reader r;
    int rc;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.arena = tn_arena_create(0);
    if (!r.arena) return TN_ENOMEM;
    if ((rc = tn_fs_read_all(fs, path, &file))) goto cleanup;
    r.file = file.data;
    r.file_len = file.len;
    if (file.len < 12 || memcmp(file.data, "PAR1", 4) != 0 || memcmp(file.data + file.len - 4, "PAR1", 4) != 0) {
        rc = tn_error_set(TN_ECORRUPT, "%s: not a Parquet file", path);
        goto cleanup;
    }
    uint32_t flen = tn_load_u32le(file.data + file.len - 8);
    if ((uint64_t)flen > file.len - 12) {
        rc = tn_error_set(TN_ECORRUPT, "%s: bad footer length %u", path, flen);
        goto cleanup;
    }
    if ((rc = pq_decode_file_meta(&r.meta, r.arena, file.data + file.len - 8 - flen, flen)) ||
        (rc = build_tree(&r))) {
        rc = tn_error_prefix(rc, "%s: footer", path);
        goto cleanup;
    }
    for (uint32_t g = 0; g < r.meta.nrow_groups; g++)
        if ((rc = read_row_group(&r, g, fn, ctx))) {
            rc = tn_error_prefix(rc, "%s", path);
            goto cleanup;
        }
cleanup:
    free_vals(&r);
    free_dict(&r);
    tn_free(r.vals);
    tn_free(r.reps);
    tn_free(r.defs);
    tn_free(r.page);
    tn_arena_destroy(r.arena);
    tn_buf_free(&file);
    return rc;
}
