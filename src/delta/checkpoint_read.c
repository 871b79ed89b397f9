/*
 * delta/checkpoint_read.c: reads Delta checkpoint Parquet files (classic, multi-part, v2 and
 * sidecars), whose action columns are nested (add struct, partitionValues map, ...), with a
 * small Dremel record assembler over parquet/'s private decoders. The add and remove columns
 * (nearly every row of a checkpoint) are decoded straight into tn_delta_file structs, checked
 * as actions.c checks a log line's; the other actions (and add/remove columns of an unexpected
 * shape) are assembled into one JSON object per row and parsed by actions.c. Only the known
 * action columns are read (the *_parsed stats/partition structs are skipped). The file is read
 * whole; limits: 1 GiB pages, 64 schema levels.
 */
#include "delta/deltaInt.h"
#include "parquet/parquetInt.h"

#include <stdlib.h>
#include <string.h>

#define CK_MAX_DEPTH 64
#define CK_MAX_PAGE ((size_t)1 << 30)

/* Fields of add/remove decoded without JSON. */
enum {
    F_PATH, F_SIZE, F_MTIME, F_DTS, F_DATA_CHANGE, F_EXT_META, F_STATS, F_BASE_ROW_ID, F_ROW_COMMIT,
    F_CLUSTERING, F_DV_TYPE, F_DV_PATH, F_DV_OFFSET, F_DV_SIZE, F_DV_CARD, F_NSCALAR,
    F_PV = F_NSCALAR, F_TAGS, F_NFIELDS
};
enum { K_STR, K_INT, K_BOOL };
static const struct { const char *name; int kind; bool in_dv; } ck_fields[F_NSCALAR] = {
    {"path", K_STR, false}, {"size", K_INT, false}, {"modificationTime", K_INT, false},
    {"deletionTimestamp", K_INT, false}, {"dataChange", K_BOOL, false},
    {"extendedFileMetadata", K_BOOL, false}, {"stats", K_STR, false}, {"baseRowId", K_INT, false},
    {"defaultRowCommitVersion", K_INT, false}, {"clusteringProvider", K_STR, false},
    {"storageType", K_STR, true}, {"pathOrInlineDv", K_STR, true}, {"offset", K_INT, true},
    {"sizeInBytes", K_INT, true}, {"cardinality", K_INT, true},
};

typedef struct ck_node {
    const pq_schema_element *el;
    int parent;
    int *children;
    int nchildren;
    int def, rep;                    /* max levels at this node */
    bool wanted;
    int leaf;                        /* column index, -1 for groups */
    /* typed add/remove leaves */
    int act;                         /* 0: JSON; 1 add, 2 remove (typed); -1 skipped */
    int field;                       /* F_* */
    int map_part;                    /* F_PV/F_TAGS leaves: 0 key, 1 value */
} ck_node;

/* One decoded value (of the column chunk's physical type); strings live in the reader's
 * per-chunk arena. */
typedef struct ck_val {
    union {
        int64_t i;
        double d;
        bool b;
        struct { const char *p; uint32_t n; } s;
    } u;
} ck_val;

/* Per-row cell of a typed scalar field: 0 parent absent, 1 null, 2 value (strings NUL-ended in
 * the destination arena). */
typedef struct ck_cell {
    uint8_t state;
    int64_t i;
    const char *s;
} ck_cell;

/* Per-row map of a typed add/remove: count < 0 = null map. */
typedef struct ck_map {
    int32_t *count;
    uint32_t *start;
    tn_delta_kv *kv;
    size_t n, cap, nvals;
} ck_map;

typedef struct ck_typed {
    int top;                         /* node of the action group; -1 when not typed */
    int dv;                          /* node of deletionVector, -1 when absent */
    uint8_t *present;                /* per row: the action is not null */
    bool have_present;
    ck_cell *cells[F_NSCALAR];       /* per row, NULL when the file has no such column */
    ck_map maps[2];
    bool has_map[2];
} ck_typed;

typedef int (*ck_action_fn)(void *ctx, const tn_delta_action *a);
typedef struct json_rows {
    dl_row_fn fn;
    void *ctx;
} json_rows;

typedef struct ck_reader {
    const char *path;
    const uint8_t *file;
    size_t file_len;
    pq_file_meta meta;
    tn_arena *arena;
    tn_arena *out;                   /* arena of the actions handed out (typed path) */
    bool json_only;                  /* every action through JSON (dl_checkpoint_read) */
    const json_rows *json;           /* dl_checkpoint_read: rows handed out as JSON */
    ck_node *nodes;
    int nnodes;
    int *leaf_nodes;                 /* leaf index -> node index */
    int nleaves;
    ck_typed typed[2];               /* add, remove */
    int64_t row;                     /* rows handed out so far (messages) */
    /* per column chunk, reused */
    int vtype;                       /* physical type of vals/dict */
    uint32_t *reps, *defs;
    ck_val *vals;
    size_t nlev, nvals, cap_lev, cap_vals;
    ck_val *dict;
    uint32_t ndict;
    tn_arena *sarena;                /* string bytes of vals and dict (reset per chunk) */
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

static bool leaf_of_kind(const ck_node *n, int kind) {
    if (n->nchildren != 0 || n->el->num_children != 0) return false;
    int t = n->el->type;
    switch (kind) {
    case K_STR: return t == PQ_BYTE_ARRAY;
    case K_INT: return t == PQ_INT32 || t == PQ_INT64;
    case K_BOOL: return t == PQ_BOOLEAN;
    default: return false;
    }
}

/* Marks the leaves of an add/remove group for typed decoding; false (nothing marked) when a
 * known field has another shape than Delta's, so that the action goes through JSON. */
static bool plan_typed(ck_reader *r, int top, int act, ck_typed *ty) {
    ck_node *t = &r->nodes[top];
    if (t->rep != 0 || t->nchildren == 0) return false;
    bool has_path = false;     /* rows are found by their path column: without one, JSON */
    for (int c = 0; c < t->nchildren; c++) has_path = has_path || strcmp(r->nodes[t->children[c]].el->name, "path") == 0;
    if (!has_path) return false;
    ty->top = top;
    ty->dv = -1;
    /* pass 0 checks, pass 1 marks */
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < t->nchildren; c++) {
            ck_node *ch = &r->nodes[t->children[c]];
            const char *name = ch->el->name;
            if (!ch->wanted) continue;
            int f = -1;
            for (int k = 0; k < F_NSCALAR; k++)
                if (!ck_fields[k].in_dv && strcmp(name, ck_fields[k].name) == 0) f = k;
            if (f >= 0) {
                if (!leaf_of_kind(ch, ck_fields[f].kind) || ch->rep != 0) return false;
                if (pass) { ch->act = act; ch->field = f; }
                continue;
            }
            bool pv = strcmp(name, "partitionValues") == 0, tags = strcmp(name, "tags") == 0;
            if (pv || tags) {
                /* MAP: one repeated group of a string key and a string value */
                if (!is_map(ch->el) || ch->nchildren != 1) return false;
                ck_node *kvn = &r->nodes[ch->children[0]];
                if (kvn->el->repetition != PQ_REPEATED || kvn->nchildren != 2 || kvn->rep != 1) return false;
                for (int k = 0; k < 2; k++)
                    if (!leaf_of_kind(&r->nodes[kvn->children[k]], K_STR)) return false;
                if (pass)
                    for (int k = 0; k < 2; k++) {
                        ck_node *l = &r->nodes[kvn->children[k]];
                        l->act = act;
                        l->field = pv ? F_PV : F_TAGS;
                        l->map_part = k;
                    }
                continue;
            }
            if (strcmp(name, "deletionVector") == 0) {
                if (ch->nchildren == 0 || ch->rep != 0) return false;
                if (pass) ty->dv = t->children[c];
                for (int d = 0; d < ch->nchildren; d++) {
                    ck_node *l = &r->nodes[ch->children[d]];
                    int g = -1;
                    for (int k = 0; k < F_NSCALAR; k++)
                        if (ck_fields[k].in_dv && strcmp(l->el->name, ck_fields[k].name) == 0) g = k;
                    if (g < 0) {
                        if (pass) l->act = -1;         /* unknown: not read */
                        continue;
                    }
                    if (!leaf_of_kind(l, ck_fields[g].kind)) return false;
                    if (pass) { l->act = act; l->field = g; }
                }
                continue;
            }
            if (pass) {
                /* unknown field: not read (the JSON parser ignores unknown fields too) */
                int stack[CK_MAX_DEPTH * 4 + 8], sp = 0;
                stack[sp++] = t->children[c];
                while (sp > 0) {
                    ck_node *u = &r->nodes[stack[--sp]];
                    u->act = -1;
                    for (int k = 0; k < u->nchildren && sp < (int)(sizeof stack / sizeof stack[0]); k++)
                        stack[sp++] = u->children[k];
                }
            }
        }
    }
    return true;
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
    /* add and remove: typed when their shape is Delta's (one group of each at the top) */
    r->typed[0].top = r->typed[1].top = -1;
    if (!r->json_only) {
        int tops[2] = {-1, -1};
        bool dup = false;
        for (int c = 0; c < r->nodes[0].nchildren; c++) {
            int i = r->nodes[0].children[c];
            for (int a = 0; a < 2; a++)
                if (strcmp(r->nodes[i].el->name, a == 0 ? "add" : "remove") == 0) {
                    if (tops[a] >= 0) dup = true;
                    tops[a] = i;
                }
        }
        for (int a = 0; a < 2 && !dup; a++)
            if (tops[a] >= 0 && r->nodes[tops[a]].nchildren > 0 && !plan_typed(r, tops[a], a + 1, &r->typed[a]))
                r->typed[a].top = -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Values.
 */
static void free_vals(ck_reader *r) {
    r->nvals = 0;
    r->nlev = 0;
}
static void free_dict(ck_reader *r) {
    tn_free(r->dict);
    r->dict = NULL;
    r->ndict = 0;
}

static int push_val(ck_reader *r, const ck_val *v) {
    if (r->nvals == r->cap_vals) {
        size_t cap = r->cap_vals ? r->cap_vals * 2 : 256;
        ck_val *p = tn_realloc(r->vals, cap * sizeof *p);
        if (!p) return TN_ENOMEM;
        r->vals = p;
        r->cap_vals = cap;
    }
    r->vals[r->nvals++] = *v;
    return 0;
}

/* Copies string bytes that must outlive the page buffer into the chunk's arena. */
static int keep_str(ck_reader *r, ck_val *v, const uint8_t *p, uint32_t n) {
    char *c = tn_arena_alloc(r->sarena, n ? n : 1);
    if (!c) return TN_ENOMEM;
    if (n) memcpy(c, p, n);
    v->u.s.p = c;
    v->u.s.n = n;
    return 0;
}

/* The JSON value of a decoded value (new reference), NULL + error when it is not valid text. */
static json_t *val_json(const ck_reader *r, const ck_val *v) {
    json_t *j = NULL;
    switch (r->vtype) {
    case PQ_BOOLEAN: j = json_boolean(v->u.b); break;
    case PQ_INT32: case PQ_INT64: j = json_integer((json_int_t)v->u.i); break;
    case PQ_FLOAT: case PQ_DOUBLE: j = json_real(v->u.d); break;
    case PQ_BYTE_ARRAY: j = json_stringn(v->u.s.p, v->u.s.n); break;
    default: break;
    }
    if (!j) tn_error_set(TN_ECORRUPT, "value is not valid UTF-8 text or out of memory");
    return j;
}

/* Decodes n PLAIN values of `type` from p into `into` (the dictionary) or the values. */
static int plain_values(ck_reader *r, int type, const uint8_t *p, size_t len, uint32_t n,
                        ck_val *into, uint32_t *ninto) {
    size_t pos = 0;
    uint8_t *bools = NULL;
    int rc = 0;
    if (type == PQ_BOOLEAN) {
        bools = tn_malloc(n ? n : 1);
        if (!bools) return TN_ENOMEM;
        if ((rc = pq_plain_bool_decode(p, len, 0, n, bools))) goto cleanup;
    }
    for (uint32_t i = 0; i < n; i++) {
        ck_val v;
        memset(&v, 0, sizeof v);
        switch (type) {
        case PQ_BOOLEAN: v.u.b = bools[i] != 0; break;
        case PQ_INT32:
            if (len - pos < 4) goto short_input;
            v.u.i = (int32_t)tn_load_u32le(p + pos);
            pos += 4;
            break;
        case PQ_INT64:
            if (len - pos < 8) goto short_input;
            v.u.i = (int64_t)tn_load_u64le(p + pos);
            pos += 8;
            break;
        case PQ_FLOAT: {
            if (len - pos < 4) goto short_input;
            float f;
            memcpy(&f, p + pos, 4);
            v.u.d = f;
            pos += 4;
            break;
        }
        case PQ_DOUBLE: {
            if (len - pos < 8) goto short_input;
            memcpy(&v.u.d, p + pos, 8);
            pos += 8;
            break;
        }
        case PQ_BYTE_ARRAY: {
            if (len - pos < 4) goto short_input;
            uint32_t l = tn_load_u32le(p + pos);
            pos += 4;
            if (len - pos < l) goto short_input;
            if ((rc = keep_str(r, &v, p + pos, l))) goto cleanup;
            pos += l;
            break;
        }
        default:
            rc = tn_error_set(TN_EUNSUPPORTED, "physical type %d in a checkpoint column", type);
            goto cleanup;
        }
        if (into) into[(*ninto)++] = v;
        else if ((rc = push_val(r, &v))) goto cleanup;
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
            rc = push_val(r, &r->dict[idx[i]]);
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
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            ck_val v;
            v.u.b = bits[i] != 0;
            rc = push_val(r, &v);
        }
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
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            ck_val x;
            x.u.i = v[i];
            rc = push_val(r, &x);
        }
        tn_free(v);
        return rc;
    }
    case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_ENC_DELTA_BYTE_ARRAY: {
        if (type != PQ_BYTE_ARRAY) break;
        tn_str *s = tn_malloc(sizeof(tn_str) * (n ? n : 1));
        if (!s) return TN_ENOMEM;
        size_t used;
        rc = encoding == PQ_ENC_DELTA_LENGTH_BYTE_ARRAY
                 ? pq_delta_length_byte_array_decode(p, len, n, s, NULL, &used)
                 : pq_delta_byte_array_decode(p, len, n, s, r->sarena, &used);
        for (uint32_t i = 0; rc == 0 && i < n; i++) {
            ck_val v;
            /* DELTA_LENGTH_BYTE_ARRAY points into the page buffer: copy */
            if (encoding == PQ_ENC_DELTA_LENGTH_BYTE_ARRAY) rc = keep_str(r, &v, (const uint8_t *)s[i].ptr, s[i].len);
            else { v.u.s.p = s[i].ptr; v.u.s.n = s[i].len; }
            if (!rc) rc = push_val(r, &v);
        }
        tn_free(s);
        return rc;
    }
    default:
        break;
    }
    return tn_error_set(TN_EUNSUPPORTED, "encoding %d for physical type %d in a checkpoint", encoding, type);
}

/* Room for n more levels; allocates even for n = 0 so the arrays are never NULL
 * (a page of zero values still computes reps + nlev). */
static int push_levels(ck_reader *r, uint32_t n) {
    if (r->nlev + n > r->cap_lev || !r->reps) {
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
    tn_arena_reset(r->sarena);
    r->vtype = cm->type;
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
            r->dict = tn_calloc((size_t)nd + 1, sizeof *r->dict);
            if (!r->dict) return TN_ENOMEM;
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
        const ck_val *value = NULL;
        if (def == (uint32_t)r->nodes[leaf_node].def) {
            if (vi >= r->nvals) return tn_error_set(TN_ECORRUPT, "fewer values than levels say");
            value = &r->vals[vi++];
        }
        if (!rows[row]) {
            /* row objects are made when a row has something (most rows are adds) */
            const ck_node *top = &r->nodes[path[0]];
            if (top->el->repetition != PQ_REPEATED && def < (uint32_t)top->def) continue;
            if (!(rows[row] = json_object())) return tn_error_set(TN_ENOMEM, "out of memory");
        }
        json_t *cur = rows[row];
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
                    json_t *jv = value ? val_json(r, value) : json_null();
                    if (!jv) return tn_error_code_last();
                    if (json_array_append_new(arr, jv) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
                    break;
                }
                if ((size_t)idx[i] == json_array_size(arr)) {
                    json_t *o = json_object();
                    if (!o || json_array_append_new(arr, o) != 0) return tn_error_set(TN_ENOMEM, "out of memory");
                }
                cur = json_array_get(arr, (size_t)idx[i]);
                if (!json_is_object(cur)) return tn_error_set(TN_ECORRUPT, "inconsistent nesting");
            } else if (last) {
                int rc;
                if (def >= (uint32_t)n->def) {
                    json_t *jv = value ? val_json(r, value) : json_null();
                    if (!jv) return tn_error_code_last();
                    rc = json_object_set_new(cur, name, jv) == 0 ? 0 : TN_ENOMEM;
                } else {
                    rc = set_if_absent(cur, name, json_null());
                }
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

/* ---------------------------------------------------------------------------------------------
 * Typed add/remove: each leaf's triples scattered into per-row cells and maps, then one
 * tn_delta_file per row.
 */
static void typed_reset(ck_typed *ty) {
    for (int f = 0; f < F_NSCALAR; f++) {
        tn_free(ty->cells[f]);
        ty->cells[f] = NULL;
    }
    for (int m = 0; m < 2; m++) {
        tn_free(ty->maps[m].count);
        tn_free(ty->maps[m].start);
        tn_free(ty->maps[m].kv);
        memset(&ty->maps[m], 0, sizeof ty->maps[m]);
        ty->has_map[m] = false;
    }
    tn_free(ty->present);
    ty->present = NULL;
    ty->have_present = false;
}

static int typed_leaf(ck_reader *r, int node, int64_t nrows) {
    const ck_node *leaf = &r->nodes[node];
    ck_typed *ty = &r->typed[leaf->act - 1];
    const ck_node *top = &r->nodes[ty->top];
    const ck_node *parent = &r->nodes[leaf->parent];
    size_t vi = 0;
    int64_t row = -1;
    if (!ty->present) {
        ty->present = tn_calloc((size_t)nrows + 1, 1);
        if (!ty->present) return TN_ENOMEM;
    }
    bool set_present = !ty->have_present;
    ty->have_present = true;
    if (leaf->field < F_NSCALAR) {
        ck_cell *cells = tn_calloc((size_t)nrows + 1, sizeof *cells);
        if (!cells) return TN_ENOMEM;
        tn_free(ty->cells[leaf->field]);
        ty->cells[leaf->field] = cells;
        for (size_t t = 0; t < r->nlev; t++) {
            uint32_t def = r->defs[t];
            if (r->reps[t] != 0 || ++row >= nrows)
                return tn_error_set(TN_ECORRUPT, "column holds more rows than the row group");
            if (set_present) ty->present[row] = def >= (uint32_t)top->def;
            ck_cell *c = &cells[row];
            c->state = def >= (uint32_t)parent->def ? 1 : 0;
            if (def != (uint32_t)leaf->def) continue;
            if (vi >= r->nvals) return tn_error_set(TN_ECORRUPT, "fewer values than levels say");
            const ck_val *v = &r->vals[vi++];
            c->state = 2;
            if (r->vtype == PQ_BYTE_ARRAY) {
                c->s = tn_arena_strndup(r->out, v->u.s.p, v->u.s.n);
                if (!c->s) return TN_ENOMEM;
            } else if (r->vtype == PQ_BOOLEAN) {
                c->i = v->u.b;
            } else {
                c->i = v->u.i;
            }
        }
    } else {
        /* map leaves: key (first) then value, entry by entry in the same order */
        ck_map *m = &ty->maps[leaf->field - F_PV];
        const ck_node *kvn = parent, *map = &r->nodes[kvn->parent];
        ty->has_map[leaf->field - F_PV] = true;
        bool is_key = leaf->map_part == 0;
        if (is_key) {
            m->count = tn_calloc((size_t)nrows + 1, sizeof *m->count);
            m->start = tn_calloc((size_t)nrows + 1, sizeof *m->start);
            if (!m->count || !m->start) return TN_ENOMEM;
        } else if (!m->count) {
            return tn_error_set(TN_ECORRUPT, "map value column without its key column");
        }
        size_t e = 0;
        for (size_t t = 0; t < r->nlev; t++) {
            uint32_t def = r->defs[t], rep = r->reps[t];
            if (rep == 0) {
                if (++row >= nrows) return tn_error_set(TN_ECORRUPT, "column holds more rows than the row group");
                if (set_present) ty->present[row] = def >= (uint32_t)top->def;
                if (is_key) {
                    m->count[row] = def >= (uint32_t)map->def ? 0 : -1;
                    m->start[row] = (uint32_t)m->n;
                }
            } else if (row < 0 || rep > 1) {
                return tn_error_set(TN_ECORRUPT, "inconsistent repetition levels");
            }
            if (def < (uint32_t)kvn->def) continue;            /* null or empty map */
            const ck_val *v = NULL;
            if (def == (uint32_t)leaf->def) {
                if (vi >= r->nvals) return tn_error_set(TN_ECORRUPT, "fewer values than levels say");
                v = &r->vals[vi++];
            }
            const char *text = v ? tn_arena_strndup(r->out, v->u.s.p, v->u.s.n) : NULL;
            if (v && !text) return TN_ENOMEM;
            if (is_key) {
                if (!text) return tn_error_set(TN_ECORRUPT, "map key is not a string");
                if (m->n == m->cap) {
                    size_t cap = m->cap ? m->cap * 2 : 64;
                    tn_delta_kv *kv = tn_realloc(m->kv, cap * sizeof *kv);
                    if (!kv) return TN_ENOMEM;
                    m->kv = kv;
                    m->cap = cap;
                }
                m->kv[m->n].key = text;
                m->kv[m->n].value = NULL;
                m->n++;
                m->count[row]++;
            } else {
                if (e >= m->n || (uint32_t)row >= (uint32_t)nrows || m->count[row] < 0 ||
                    e >= (size_t)m->start[row] + (size_t)m->count[row] || e < m->start[row])
                    return tn_error_set(TN_ECORRUPT, "map keys and values do not line up");
                m->kv[e++].value = text;
            }
        }
        if (!is_key && e != m->n) return tn_error_set(TN_ECORRUPT, "map keys and values do not line up");
    }
    if (row != nrows - 1)
        return tn_error_set(TN_ECORRUPT, "column holds %lld rows, the row group %lld",
                            (long long)(row + 1), (long long)nrows);
    return 0;
}

/* The file of row `row` (present), with actions.c's checks of a log line. */
static int typed_file(ck_reader *r, const ck_typed *ty, int64_t row, bool is_add, tn_delta_file *f) {
    const char *what = is_add ? "add" : "remove";
    tn_arena *a = r->out;
    const ck_cell *c[F_NSCALAR];
    static const ck_cell none = {0, 0, NULL};
    memset(f, 0, sizeof *f);
    for (int k = 0; k < F_NSCALAR; k++) c[k] = ty->cells[k] ? &ty->cells[k][row] : &none;
#define HAS(k) (c[k]->state == 2)
    if (!HAS(F_PATH)) return tn_error_set(TN_ECORRUPT, "%s: missing 'path'", what);
    f->path = c[F_PATH]->s;
    if (!f->path[0]) return tn_error_set(TN_ECORRUPT, "%s: empty 'path'", what);
    int rc = tn_delta_uri_decode(&f->path_decoded, a, f->path);
    if (rc) return rc;
    for (int m = 0; m < 2; m++) {
        const ck_map *mp = &ty->maps[m];
        bool has = ty->has_map[m] && mp->count[row] >= 0;
        if (!has) {
            if (m == 0 && is_add) return tn_error_set(TN_ECORRUPT, "%s: missing 'partitionValues'", what);
            continue;
        }
        uint32_t n = (uint32_t)mp->count[row];
        tn_delta_kv *kv = n ? tn_arena_alloc(a, sizeof *kv * n) : NULL;
        if (n && !kv) return TN_ENOMEM;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            const tn_delta_kv *e = &mp->kv[mp->start[row] + i];
            uint32_t j;   /* a repeated key keeps its first place and its last value (as JSON) */
            for (j = 0; j < k && strcmp(kv[j].key, e->key) != 0; j++) {}
            if (j == k) k++;
            kv[j] = *e;
        }
        if (m == 0) {
            f->partition_values = kv;
            f->npartition_values = k;
            f->has_partition_values = true;
        } else {
            f->tags = kv;
            f->ntags = k;
        }
    }
    if (HAS(F_SIZE)) { f->size = c[F_SIZE]->i; f->has_size = true; }
    else if (is_add) return tn_error_set(TN_ECORRUPT, "%s: missing 'size'", what);
    if (HAS(F_MTIME)) f->modification_time = c[F_MTIME]->i;
    else if (is_add) return tn_error_set(TN_ECORRUPT, "%s: missing 'modificationTime'", what);
    if (HAS(F_DTS)) { f->deletion_timestamp = c[F_DTS]->i; f->has_deletion_timestamp = true; }
    f->data_change = HAS(F_DATA_CHANGE) ? c[F_DATA_CHANGE]->i != 0 : true;
    f->extended_file_metadata = HAS(F_EXT_META) && c[F_EXT_META]->i != 0;
    f->stats = HAS(F_STATS) ? c[F_STATS]->s : NULL;
    /* deletionVector: present when its struct is */
    bool dv = false;
    for (int k = F_DV_TYPE; k <= F_DV_CARD; k++) dv = dv || c[k]->state >= 1;
    if (dv) {
        tn_delta_dv *d = &f->dv;
        if (!HAS(F_DV_TYPE)) return tn_error_set(TN_ECORRUPT, "%s: missing 'storageType'", what);
        const char *st = c[F_DV_TYPE]->s;
        if (strlen(st) != 1 || !strchr("uip", st[0]))
            return tn_error_set(TN_ECORRUPT, "%s: deletionVector: unknown storageType '%s'", what, st);
        d->storage_type = st[0];
        if (!HAS(F_DV_PATH)) return tn_error_set(TN_ECORRUPT, "%s: missing 'pathOrInlineDv'", what);
        d->path_or_inline = c[F_DV_PATH]->s;
        d->has_offset = HAS(F_DV_OFFSET);
        int64_t off = d->has_offset ? c[F_DV_OFFSET]->i : 0;
        if (d->has_offset && (off < 0 || off > INT32_MAX))
            return tn_error_set(TN_ECORRUPT, "%s: deletionVector: bad offset %lld", what, (long long)off);
        d->offset = (int32_t)off;
        if (!HAS(F_DV_SIZE)) return tn_error_set(TN_ECORRUPT, "%s: missing 'sizeInBytes'", what);
        if (c[F_DV_SIZE]->i < 0 || c[F_DV_SIZE]->i > INT32_MAX)
            return tn_error_set(TN_ECORRUPT, "%s: deletionVector: bad sizeInBytes %lld", what,
                                (long long)c[F_DV_SIZE]->i);
        d->size_in_bytes = (int32_t)c[F_DV_SIZE]->i;
        if (!HAS(F_DV_CARD)) return tn_error_set(TN_ECORRUPT, "%s: missing 'cardinality'", what);
        d->cardinality = c[F_DV_CARD]->i;
        if (d->cardinality < 0) return tn_error_set(TN_ECORRUPT, "%s: deletionVector: negative cardinality", what);
        d->unique_id = d->has_offset ? tn_arena_printf(a, "%c%s@%d", d->storage_type, d->path_or_inline, d->offset)
                                     : tn_arena_printf(a, "%c%s", d->storage_type, d->path_or_inline);
        if (!d->unique_id) return TN_ENOMEM;
        f->has_dv = true;
    }
    if (HAS(F_BASE_ROW_ID)) { f->base_row_id = c[F_BASE_ROW_ID]->i; f->has_base_row_id = true; }
    if (HAS(F_ROW_COMMIT)) {
        f->default_row_commit_version = c[F_ROW_COMMIT]->i;
        f->has_default_row_commit_version = true;
    }
    f->clustering_provider = HAS(F_CLUSTERING) ? c[F_CLUSTERING]->s : NULL;
    if (is_add && f->size < 0) return tn_error_set(TN_ECORRUPT, "add: negative 'size'");
#undef HAS
    return 0;
}

/* Hands out row i: the typed add/remove, or the JSON row's action. */
static int emit_row(ck_reader *r, int64_t i, json_t *row, ck_action_fn fn, void *ctx) {
    tn_delta_action a, j;
    int rc = 0;
    int nact = 0;
    memset(&a, 0, sizeof a);
    memset(&j, 0, sizeof j);
    for (int k = 0; k < 2; k++) {
        const ck_typed *ty = &r->typed[k];
        if (ty->top < 0 || !ty->have_present || !ty->present[i]) continue;
        if (nact++) return tn_error_set(TN_ECORRUPT, "more than one action in one line");
        a.kind = k == 0 ? TN_DELTA_ADD : TN_DELTA_REMOVE;
        if ((rc = typed_file(r, ty, i, k == 0, &a.u.file))) return rc;
    }
    if (row && json_object_size(row) > 0) {
        if ((rc = dl_action_from_json(&j, r->out, row))) return rc;
        if (j.kind != TN_DELTA_UNKNOWN && nact++) return tn_error_set(TN_ECORRUPT, "more than one action in one line");
        if (j.kind != TN_DELTA_UNKNOWN || a.kind == TN_DELTA_UNKNOWN) a = j;
    }
    return fn(ctx, &a);
}

static int read_row_group(ck_reader *r, uint32_t g, ck_action_fn fn, void *ctx) {
    const pq_row_group *rg = &r->meta.row_groups[g];
    int rc = 0;
    int64_t nrows = rg->num_rows;
    json_t **rows = NULL;
    if (nrows < 0 || (uint64_t)nrows > r->file_len)     /* every row takes at least a bit */
        return tn_error_set(TN_ECORRUPT, "row group %u: bad row count", g);
    if ((int)rg->ncolumns != r->nleaves)
        return tn_error_set(TN_ECORRUPT, "row group %u: %u columns, schema has %d", g, rg->ncolumns, r->nleaves);
    rows = tn_calloc((size_t)nrows + 1, sizeof *rows);     /* made on demand (assemble_leaf) */
    if (!rows) return TN_ENOMEM;
    for (int l = 0; l < r->nleaves; l++) {
        int node = r->leaf_nodes[l];
        const ck_node *leaf = &r->nodes[node];
        if (!leaf->wanted || leaf->act < 0) continue;
        if ((rc = read_chunk(r, &rg->columns[l], leaf)) ||
            (rc = leaf->act > 0 ? typed_leaf(r, node, nrows) : assemble_leaf(r, node, rows, nrows))) {
            rc = tn_error_prefix(rc, "row group %u, column '%s'", g, leaf->el->name);
            goto cleanup;
        }
    }
    for (int64_t i = 0; i < nrows; i++) {
        if (!rows[i] && r->json && !(rows[i] = json_object())) { rc = tn_error_set(TN_ENOMEM, "out of memory"); goto cleanup; }
        if (rows[i] && (rc = fold(r, 0, rows[i]))) goto cleanup;
        if (r->json) {
            if ((rc = r->json->fn(r->json->ctx, rows[i]))) goto cleanup;
            continue;
        }
        if ((rc = emit_row(r, i, rows[i], fn, ctx))) {
            rc = tn_error_prefix(rc, "row %lld", (long long)r->row);
            goto cleanup;
        }
        r->row++;
    }
cleanup:
    free_vals(r);
    free_dict(r);
    for (int k = 0; k < 2; k++) typed_reset(&r->typed[k]);
    if (rows)
        for (int64_t i = 0; i < nrows; i++) json_decref(rows[i]);
    tn_free(rows);
    return rc;
}

static int read_checkpoint(tn_fs *fs, const char *path, tn_arena *out, const json_rows *json, ck_action_fn fn,
                           void *ctx) {
    tn_buf file = TN_BUF_INIT;
    ck_reader r;
    int rc;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.out = out;
    r.json = json;
    r.json_only = json != NULL;
    r.arena = tn_arena_create(0);
    r.sarena = tn_arena_create(0);
    if (!r.arena || !r.sarena) { rc = TN_ENOMEM; goto cleanup; }
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
    for (int k = 0; k < 2; k++) typed_reset(&r.typed[k]);
    tn_free(r.vals);
    tn_free(r.reps);
    tn_free(r.defs);
    tn_free(r.page);
    tn_arena_destroy(r.sarena);
    tn_arena_destroy(r.arena);
    tn_buf_free(&file);
    return rc;
}

int dl_checkpoint_read_actions(tn_fs *fs, const char *path, tn_arena *arena,
                               int (*fn)(void *ctx, const tn_delta_action *a), void *ctx) {
    return read_checkpoint(fs, path, arena, NULL, fn, ctx);
}

/* The rows as JSON objects, every action column assembled (the reader before typed add/remove
 * decoding; kept for callers that want JSON). */
int dl_checkpoint_read(tn_fs *fs, const char *path, dl_row_fn fn, void *ctx) {
    json_rows jr = {fn, ctx};
    return read_checkpoint(fs, path, NULL, &jr, NULL, NULL);
}
