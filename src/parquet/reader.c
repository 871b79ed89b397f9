/*
 * parquet/reader.c: opening a Parquet file for reading: the bounded footer read through the
 * tn_fs vtable, magic and encryption checks, FileMetaData decoding, schema validation (the
 * tree's shape, max definition/repetition levels per element; nested/repeated columns are
 * refused by name before any data is touched unless the file is opened for its metadata only)
 * and the mapping of physical types + annotations to tn_type; statistics as logical values and row-group
 * pruning by them; codec names. Page reading lives in scan.c, the text dump in describe.c.
 */
#include "parquet/nestedInt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct tn_parquet_file {
    tn_fs *fs;
    tn_file *fh;
    char *path;
    uint64_t size;
    tn_parquet_open_options opts;
    tn_arena *arena;                  /* owns meta's strings/lists */
    uint8_t *footer;                  /* FileMetaData bytes: pq_bytes of meta point into it */
    size_t footer_len;
    pq_file_meta meta;
    uint32_t ncols;
    tn_parquet_column_info *cols;
    uint32_t *col_leaf;               /* ncols: first leaf of each column */
    uint32_t *col_nleaves;            /* ncols: its leaves (1 for a flat column) */
    pq_nest **col_tree;               /* ncols: logical tree of a nested column, else NULL */
    uint32_t nleaves;                 /* leaf columns (= ncols in a flat file) */
    const pq_schema_element **leaves; /* nleaves */
    tn_type *leaf_types;              /* nleaves */
    const char **leaf_names;          /* nleaves: dotted paths */
    pq_rd_node *nodes;                /* meta.nschema: the schema tree */
    const char *nested;               /* first nested top-level column (metadata_only), or NULL */
    int64_t *rg_first_row;            /* nrow_groups + 1 */
    /* Footer sharing (cache.c): a file opened through the footer cache is a copy of the cache's
     * master (everything above borrowed from it, but fs, fh, path and opts its own) holding one
     * reference to it; the master counts its references (the cache's and its copies'). */
    tn_parquet_file *master;
    uint32_t refs;
    pq_page_memo *pages;              /* a small master's decompressed pages (page_memo.c) */
    /* A master's decoded OffsetIndex per (row group, leaf), nrow_groups * nleaves slots filled
     * by the first scan that reads one (atomic pointers, scan.c), freed with the master; NULL
     * when not a master. */
    pq_offset_index **oi;
};

/* ---------------------------------------------------------------------------------------------
 * Accessors for scan.c and describe.c (declared in readerInt.h).
 */
const pq_file_meta *pq_rd_meta(const tn_parquet_file *f) { return &f->meta; }
const pq_schema_element *pq_rd_leaf(const tn_parquet_file *f, uint32_t leaf) {
    return leaf < f->nleaves ? f->leaves[leaf] : NULL;
}
uint32_t pq_rd_num_leaves(const tn_parquet_file *f) { return f->nleaves; }
tn_type pq_rd_leaf_type(const tn_parquet_file *f, uint32_t leaf) { return f->leaf_types[leaf]; }
const char *pq_rd_leaf_name(const tn_parquet_file *f, uint32_t leaf) { return f->leaf_names[leaf]; }
const pq_nest *pq_rd_column_tree(const tn_parquet_file *f, uint32_t col) {
    return col < f->ncols ? f->col_tree[col] : NULL;
}
int32_t pq_rd_column_leaf(const tn_parquet_file *f, uint32_t col) {
    return col < f->ncols && !f->col_tree[col] ? (int32_t)f->col_leaf[col] : -1;
}
void pq_rd_column_leaves(const tn_parquet_file *f, uint32_t col, uint32_t *first, uint32_t *n) {
    *first = f->col_leaf[col];
    *n = f->col_nleaves[col];
}
const pq_rd_node *pq_rd_node_at(const tn_parquet_file *f, uint32_t i) {
    return i < f->meta.nschema ? &f->nodes[i] : NULL;
}
const char *pq_rd_nested(const tn_parquet_file *f) { return f->nested; }
int64_t pq_rd_row_group_first_row(const tn_parquet_file *f, uint32_t rg) {
    return rg <= f->meta.nrow_groups ? f->rg_first_row[rg] : 0;
}
tn_fs *pq_rd_fs(const tn_parquet_file *f) { return f->fs; }
tn_file *pq_rd_handle(const tn_parquet_file *f) { return f->fh; }
const tn_parquet_open_options *pq_rd_options(const tn_parquet_file *f) { return &f->opts; }

/* ---------------------------------------------------------------------------------------------
 * Codec names.
 */
static const char *const g_codec_names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                             "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};

const char *tn_parquet_codec_name(int codec) {
    static _Thread_local char buf[32];
    if (codec >= 0 && codec < (int)(sizeof g_codec_names / sizeof g_codec_names[0]))
        return g_codec_names[codec];
    snprintf(buf, sizeof buf, "UNKNOWN(%d)", codec);
    return buf;
}

int tn_parquet_codec_parse(const char *name, tn_parquet_codec *out) {
    if (!name) return tn_error_set(TN_EINVAL, "codec name is NULL");
    for (int i = 0; i < (int)(sizeof g_codec_names / sizeof g_codec_names[0]); i++) {
        if (tn_str_iequal(name, g_codec_names[i])) {
            *out = (tn_parquet_codec)i;
            return 0;
        }
    }
    if (tn_str_iequal(name, "none")) { *out = TN_CODEC_UNCOMPRESSED; return 0; }
    return tn_error_set(TN_EINVAL, "unknown Parquet codec '%s' (expected UNCOMPRESSED, SNAPPY, "
                        "GZIP, ZSTD, LZ4_RAW, BROTLI)", name);
}

/* ---------------------------------------------------------------------------------------------
 * Small value helpers shared with scan.c.
 */
float pq_rd_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {                                  /* subnormal: normalise */
            int e = -1;
            do { e++; mant <<= 1; } while (!(mant & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Big-endian two's complement (any length; sign-extended) into a 128-bit integer. False when
 * the value does not fit. */
bool pq_rd_be_to_i128(const uint8_t *p, size_t len, tn_int128 *out) {
    if (len == 0) { *out = 0; return true; }
    uint8_t sign = (p[0] & 0x80) ? 0xff : 0;
    while (len > 16) {
        if (p[0] != sign) return false;
        p++;
        len--;
    }
    if (((p[0] & 0x80) ? 0xff : 0) != sign) return false;
    unsigned __int128 v = sign ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++) v = (v << 8) | p[i];
    *out = (tn_int128)v;
    return true;
}

/* Timestamp unit of an INT64 timestamp leaf (PQ_UNIT_*), 0 if it is not a timestamp. */
int pq_rd_ts_unit(const pq_schema_element *e) {
    if (e->logical.kind == PQ_LT_TIMESTAMP) return e->logical.unit;
    if (e->logical.kind == PQ_LT_NONE || e->logical.kind == PQ_LT_UNKNOWN_MEMBER) {
        if (e->converted_type == PQ_CT_TIMESTAMP_MILLIS) return PQ_UNIT_MILLIS;
        if (e->converted_type == PQ_CT_TIMESTAMP_MICROS) return PQ_UNIT_MICROS;
    }
    return 0;
}

bool pq_rd_is_unsigned(const pq_schema_element *e) {
    if (e->logical.kind == PQ_LT_INTEGER) return !e->logical.is_signed;
    if (e->logical.kind == PQ_LT_NONE || e->logical.kind == PQ_LT_UNKNOWN_MEMBER)
        return e->converted_type >= PQ_CT_UINT_8 && e->converted_type <= PQ_CT_UINT_64;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Schema: physical type + annotations -> tn_type.
 */
static const char *phys_name(int t) {
    static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                        "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t <= 7 ? names[t] : "?";
}

static bool is_nested_annotation(const pq_schema_element *e) {
    return e->converted_type == PQ_CT_LIST || e->converted_type == PQ_CT_MAP ||
           e->converted_type == PQ_CT_MAP_KEY_VALUE || e->logical.kind == PQ_LT_LIST ||
           e->logical.kind == PQ_LT_MAP;
}

static int map_decimal(const char *path, const pq_schema_element *e, int32_t precision,
                       int32_t scale, tn_type *out) {
    if (precision < 1 || precision > TN_DECIMAL_MAX_PRECISION || scale < 0 || scale > precision)
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': DECIMAL(%d,%d) is not supported",
                            path, e->name, (int)precision, (int)scale);
    switch (e->type) {
    case PQ_INT32: case PQ_INT64: case PQ_BYTE_ARRAY: break;
    case PQ_FIXED_LEN_BYTE_ARRAY: break;
    default:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': DECIMAL on %s is not supported",
                            path, e->name, phys_name(e->type));
    }
    *out = tn_type_decimal(precision, scale);
    return 0;
}

static int map_integer(const char *path, const pq_schema_element *e, int bits, bool is_signed,
                       tn_type *out) {
    if (e->type != PQ_INT32 && e->type != PQ_INT64)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': integer annotation on %s", path,
                            e->name, phys_name(e->type));
    if (e->type == PQ_INT32 && bits == 64)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': 64-bit integer annotation on INT32",
                            path, e->name);
    if (e->type == PQ_INT64 && bits != 64 && bits >= 8 && bits <= 32) {
        *out = tn_type_make(TN_TYPE_BIGINT);    /* narrow annotation on INT64: keep 64 bits */
        return 0;
    }
    switch (bits) {
    case 8: *out = tn_type_make(is_signed ? TN_TYPE_TINYINT : TN_TYPE_SMALLINT); return 0;
    case 16: *out = tn_type_make(is_signed ? TN_TYPE_SMALLINT : TN_TYPE_INTEGER); return 0;
    case 32: *out = tn_type_make(is_signed ? TN_TYPE_INTEGER : TN_TYPE_BIGINT); return 0;
    case 64: *out = is_signed ? tn_type_make(TN_TYPE_BIGINT) : tn_type_decimal(20, 0); return 0;
    default:
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': integer bit width %d", path, e->name,
                            bits);
    }
}

static int map_timestamp(const char *path, const pq_schema_element *e, bool utc, int unit,
                         tn_type *out) {
    if (e->type != PQ_INT64)
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': TIMESTAMP on %s is not supported",
                            path, e->name, phys_name(e->type));
    if (unit != PQ_UNIT_MILLIS && unit != PQ_UNIT_MICROS && unit != PQ_UNIT_NANOS)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': bad TIMESTAMP unit", path, e->name);
    *out = tn_type_make(utc ? TN_TYPE_TIMESTAMP_TZ : TN_TYPE_TIMESTAMP);
    return 0;
}

static int map_physical(const char *path, const pq_schema_element *e, tn_type *out) {
    switch (e->type) {
    case PQ_BOOLEAN: *out = tn_type_make(TN_TYPE_BOOLEAN); return 0;
    case PQ_INT32: *out = tn_type_make(TN_TYPE_INTEGER); return 0;
    case PQ_INT64: *out = tn_type_make(TN_TYPE_BIGINT); return 0;
    case PQ_INT96: *out = tn_type_make(TN_TYPE_TIMESTAMP); return 0;
    case PQ_FLOAT: *out = tn_type_make(TN_TYPE_FLOAT); return 0;
    case PQ_DOUBLE: *out = tn_type_make(TN_TYPE_DOUBLE); return 0;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY: *out = tn_type_make(TN_TYPE_VARBINARY); return 0;
    default:
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': invalid physical type %d", path,
                            e->name, e->type);
    }
}

static int map_leaf_type(const char *path, const pq_schema_element *e, tn_type *out) {
    if (e->type < PQ_BOOLEAN || e->type > PQ_FIXED_LEN_BYTE_ARRAY)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': invalid physical type %d", path,
                            e->name, e->type);
    if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': FIXED_LEN_BYTE_ARRAY without a "
                            "positive type_length", path, e->name);
    if (e->type == PQ_INT96) return map_physical(path, e, out);   /* annotations meaningless */
    const pq_logical_type *lt = &e->logical;
    bool is_string_phys = e->type == PQ_BYTE_ARRAY;
    switch (lt->kind) {
    case PQ_LT_NONE:
    case PQ_LT_UNKNOWN_MEMBER:
        break;                                  /* fall back to the converted type */
    case PQ_LT_STRING: case PQ_LT_ENUM: case PQ_LT_JSON:
        if (!is_string_phys) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_VARCHAR);
        return 0;
    case PQ_LT_BSON: case PQ_LT_UUID:
        if (e->type != PQ_BYTE_ARRAY && e->type != PQ_FIXED_LEN_BYTE_ARRAY) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_VARBINARY);
        return 0;
    case PQ_LT_DECIMAL:
        return map_decimal(path, e, lt->precision, lt->scale, out);
    case PQ_LT_DATE:
        if (e->type != PQ_INT32) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_DATE);
        return 0;
    case PQ_LT_TIME:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': type TIME is not supported", path,
                            e->name);
    case PQ_LT_TIMESTAMP:
        return map_timestamp(path, e, lt->adjusted_to_utc, lt->unit, out);
    case PQ_LT_INTEGER:
        return map_integer(path, e, lt->bit_width, lt->is_signed, out);
    case PQ_LT_UNKNOWN:
        return map_physical(path, e, out);
    case PQ_LT_FLOAT16:
        if (e->type != PQ_FIXED_LEN_BYTE_ARRAY || e->type_length != 2) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_FLOAT);
        return 0;
    default:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': logical type %d is not supported",
                            path, e->name, lt->kind);
    }
    switch (e->converted_type) {
    case PQ_CT_NONE:
        return map_physical(path, e, out);
    case PQ_CT_UTF8: case PQ_CT_ENUM: case PQ_CT_JSON:
        if (!is_string_phys) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_VARCHAR);
        return 0;
    case PQ_CT_BSON:
        if (!is_string_phys) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_VARBINARY);
        return 0;
    case PQ_CT_DECIMAL:
        return map_decimal(path, e, e->precision, e->scale < 0 ? 0 : e->scale, out);
    case PQ_CT_DATE:
        if (e->type != PQ_INT32) goto bad_annotation;
        *out = tn_type_make(TN_TYPE_DATE);
        return 0;
    case PQ_CT_TIME_MILLIS: case PQ_CT_TIME_MICROS:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': type TIME is not supported", path,
                            e->name);
    case PQ_CT_TIMESTAMP_MILLIS:   /* LogicalTypes.md: converted-only => isAdjustedToUTC=true */
        return map_timestamp(path, e, true, PQ_UNIT_MILLIS, out);
    case PQ_CT_TIMESTAMP_MICROS:
        return map_timestamp(path, e, true, PQ_UNIT_MICROS, out);
    case PQ_CT_UINT_8: return map_integer(path, e, 8, false, out);
    case PQ_CT_UINT_16: return map_integer(path, e, 16, false, out);
    case PQ_CT_UINT_32: return map_integer(path, e, 32, false, out);
    case PQ_CT_UINT_64: return map_integer(path, e, 64, false, out);
    case PQ_CT_INT_8: return map_integer(path, e, 8, true, out);
    case PQ_CT_INT_16: return map_integer(path, e, 16, true, out);
    case PQ_CT_INT_32: return map_integer(path, e, 32, true, out);
    case PQ_CT_INT_64: return map_integer(path, e, 64, true, out);
    case PQ_CT_INTERVAL:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': type INTERVAL is not supported",
                            path, e->name);
    default:
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': converted type %d is not "
                            "supported", path, e->name, e->converted_type);
    }
bad_annotation:
    return tn_error_set(TN_ECORRUPT, "%s: column '%s': annotation does not fit physical type %s",
                        path, e->name, phys_name(e->type));
}

static bool is_nested_element(const pq_schema_element *e) {
    return e->num_children > 0 || e->type < 0 || e->repetition == PQ_REPEATED ||
           is_nested_annotation(e);
}

/* Walks the schema tree (depth first, as stored): parent, depth, max levels and leaf index of
 * every element; checks that the children counts fit the element list. */
static int build_tree(tn_parquet_file *f, uint32_t *nleaves) {
    const pq_file_meta *m = &f->meta;
    struct { uint32_t el; int32_t left; } stack[PQ_MAX_SCHEMA_DEPTH + 1];
    uint32_t top = 0, leaves = 0;
    f->nodes = tn_arena_calloc(f->arena, sizeof *f->nodes * m->nschema);
    if (!f->nodes) return TN_ENOMEM;
    if (m->schema[0].num_children < 0)
        return tn_error_set(TN_ECORRUPT, "%s: schema root has %d children", f->path,
                            (int)m->schema[0].num_children);
    f->nodes[0] = (pq_rd_node){-1, 0, 0, 0, -1};
    stack[0].el = 0;
    stack[0].left = m->schema[0].num_children;
    for (uint32_t i = 1; i < m->nschema; i++) {
        const pq_schema_element *e = &m->schema[i];
        while (top > 0 && stack[top].left == 0) top--;
        if (stack[top].left == 0)
            return tn_error_set(TN_ECORRUPT, "%s: schema root has %d children but %u elements "
                                "follow", f->path, (int)m->schema[0].num_children, m->nschema - 1);
        stack[top].left--;
        const pq_rd_node *parent = &f->nodes[stack[top].el];
        pq_rd_node *nd = &f->nodes[i];
        nd->parent = (int32_t)stack[top].el;
        nd->depth = parent->depth + 1;
        nd->def = parent->def + (e->repetition != PQ_REQUIRED);
        nd->rep = parent->rep + (e->repetition == PQ_REPEATED);
        nd->leaf = -1;
        if (!e->name) return tn_error_set(TN_ECORRUPT, "%s: schema element %u has no name", f->path, i);
        if (e->num_children < 0)
            return tn_error_set(TN_ECORRUPT, "%s: column '%s': %d children", f->path, e->name,
                                (int)e->num_children);
        if (e->num_children > 0) {
            if (top + 1 >= PQ_MAX_SCHEMA_DEPTH)
                return tn_error_set(TN_ECORRUPT, "%s: column '%s': schema nested deeper than %d "
                                    "levels", f->path, e->name, PQ_MAX_SCHEMA_DEPTH);
            top++;
            stack[top].el = i;
            stack[top].left = e->num_children;
        } else if (e->type < 0) {
            return tn_error_set(TN_ECORRUPT, "%s: column '%s': a leaf without a physical type",
                                f->path, e->name);
        } else {
            nd->leaf = (int32_t)leaves++;
        }
    }
    for (uint32_t k = 0; k <= top; k++)
        if (stack[k].left > 0)
            return k == 0 ? tn_error_set(TN_ECORRUPT, "%s: schema root has %d children but %u "
                                         "elements follow", f->path,
                                         (int)m->schema[0].num_children, m->nschema - 1)
                          : tn_error_set(TN_ECORRUPT, "%s: column '%s': %d children declared, "
                                         "%d missing", f->path, m->schema[stack[k].el].name,
                                         (int)m->schema[stack[k].el].num_children,
                                         (int)stack[k].left);
    *nleaves = leaves;
    return 0;
}

/* The dotted path of schema element i (below the root), in the file's arena. */
static char *element_path(tn_parquet_file *f, uint32_t i) {
    size_t len = 0;
    for (int32_t k = (int32_t)i; k > 0; k = f->nodes[k].parent) len += strlen(f->meta.schema[k].name) + 1;
    char *p = tn_arena_alloc(f->arena, len);
    if (!p) return NULL;
    size_t at = len - 1;
    p[at] = '\0';
    for (int32_t k = (int32_t)i; k > 0; k = f->nodes[k].parent) {
        size_t n = strlen(f->meta.schema[k].name);
        at -= n;
        memcpy(p + at, f->meta.schema[k].name, n);
        if (at > 0) p[--at] = '.';
    }
    return p;
}

/* Validates the schema tree and fills the leaf table and the column table: one column per
 * leaf in a flat file (and for a nested file opened for its metadata only: dotted names);
 * otherwise one column per top-level field, nested ones with their logical tree and type. */
static int load_schema(tn_parquet_file *f) {
    const pq_file_meta *m = &f->meta;
    if (m->nschema == 0)
        return tn_error_set(TN_ECORRUPT, "%s: empty schema", f->path);
    const char *nested = NULL;
    for (uint32_t i = 1; i < m->nschema && !nested; i++)
        if (is_nested_element(&m->schema[i])) nested = m->schema[i].name ? m->schema[i].name : "?";
    if (nested && f->opts.metadata_only) f->nested = nested;
    uint32_t nleaves = 0;
    int rc = build_tree(f, &nleaves);
    if (rc) return rc;
    f->nleaves = nleaves;
    size_t nl = nleaves ? nleaves : 1;
    f->leaves = tn_arena_calloc(f->arena, sizeof *f->leaves * nl);
    f->leaf_types = tn_arena_calloc(f->arena, sizeof *f->leaf_types * nl);
    f->leaf_names = tn_arena_calloc(f->arena, sizeof *f->leaf_names * nl);
    if (!f->leaves || !f->leaf_types || !f->leaf_names) return TN_ENOMEM;
    for (uint32_t i = 1; i < m->nschema; i++) {
        if (f->nodes[i].leaf < 0) continue;
        uint32_t c = (uint32_t)f->nodes[i].leaf;
        const pq_schema_element *e = &m->schema[i];
        rc = map_leaf_type(f->path, e, &f->leaf_types[c]);
        if (rc) return rc;
        f->leaf_names[c] = nested ? element_path(f, i) : e->name;
        if (!f->leaf_names[c]) return TN_ENOMEM;
        f->leaves[c] = e;
    }
    bool by_leaf = !nested || f->opts.metadata_only;
    f->ncols = by_leaf ? nleaves : (uint32_t)m->schema[0].num_children;
    size_t nc = f->ncols ? f->ncols : 1;
    f->cols = tn_arena_calloc(f->arena, sizeof *f->cols * nc);
    f->col_leaf = tn_arena_calloc(f->arena, sizeof *f->col_leaf * nc);
    f->col_nleaves = tn_arena_calloc(f->arena, sizeof *f->col_nleaves * nc);
    f->col_tree = tn_arena_calloc(f->arena, sizeof *f->col_tree * nc);
    if (!f->cols || !f->col_leaf || !f->col_nleaves || !f->col_tree) return TN_ENOMEM;
    uint32_t c = 0;
    for (uint32_t i = 1; i < m->nschema; i++) {
        const pq_schema_element *e = &m->schema[i];
        const pq_rd_node *nd = &f->nodes[i];
        if (by_leaf ? nd->leaf < 0 : nd->parent != 0) continue;
        tn_parquet_column_info *ci = &f->cols[c];
        ci->name = by_leaf ? f->leaf_names[nd->leaf] : e->name;
        ci->nullable = e->repetition == PQ_OPTIONAL;
        ci->field_id = e->field_id;
        if (nd->leaf >= 0 && (by_leaf || e->repetition != PQ_REPEATED)) {
            ci->type = f->leaf_types[nd->leaf];
            f->col_leaf[c] = (uint32_t)nd->leaf;
            f->col_nleaves[c] = 1;
        } else {
            rc = pq_nest_build(&f->col_tree[c], f->arena, m->schema, f->nodes, m->nschema, i,
                               f->path);
            if (rc == 0) rc = pq_nest_type(&ci->type, f->col_tree[c], f->leaf_types);
            if (rc) return tn_error_prefix(rc, "%s: column '%s'", f->path, e->name);
            uint32_t first = UINT32_MAX, n = 0;
            for (uint32_t j = i; j < m->nschema && (j == i || f->nodes[j].depth > 1); j++)
                if (f->nodes[j].leaf >= 0) {
                    if (first == UINT32_MAX) first = (uint32_t)f->nodes[j].leaf;
                    n++;
                }
            f->col_leaf[c] = first;
            f->col_nleaves[c] = n;
        }
        c++;
    }
    return 0;
}

static int check_row_groups(tn_parquet_file *f) {
    const pq_file_meta *m = &f->meta;
    f->rg_first_row = tn_arena_calloc(f->arena, sizeof(int64_t) * (m->nrow_groups + 1));
    if (!f->rg_first_row) return TN_ENOMEM;
    int64_t total = 0;
    for (uint32_t r = 0; r < m->nrow_groups; r++) {
        const pq_row_group *rg = &m->row_groups[r];
        if (rg->num_rows < 0 || rg->num_rows > INT64_MAX / 2 - total)
            return tn_error_set(TN_ECORRUPT, "%s: row group %u: bad num_rows %lld", f->path, r,
                                (long long)rg->num_rows);
        if (rg->ncolumns != f->nleaves)
            return tn_error_set(TN_ECORRUPT, "%s: row group %u has %u column chunks, schema has "
                                "%u columns", f->path, r, rg->ncolumns, f->nleaves);
        for (uint32_t c = 0; c < rg->ncolumns; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            if (!cc->has_meta_data)
                return tn_error_set(TN_ECORRUPT, "%s: row group %u, column '%s': no column "
                                    "metadata", f->path, r, f->leaf_names[c]);
            if (cc->meta.type != f->leaves[c]->type)
                return tn_error_set(TN_ECORRUPT, "%s: row group %u, column '%s': chunk type %s "
                                    "differs from schema type %s", f->path, r, f->leaf_names[c],
                                    phys_name(cc->meta.type), phys_name(f->leaves[c]->type));
        }
        f->rg_first_row[r] = total;
        total += rg->num_rows;
    }
    f->rg_first_row[m->nrow_groups] = total;
    return 0;
}

int tn_parquet_open(tn_parquet_file **out, tn_fs *fs, const char *path,
                    const tn_parquet_open_options *opts) {
    int rc = 0;
    tn_parquet_file *f = NULL;
    uint8_t tail[8], head[4];
    *out = NULL;
    if (!fs) fs = tn_fs_default();
    f = tn_calloc(1, sizeof *f);
    if (!f) return TN_ENOMEM;
    f->fs = fs;
    tn_parquet_open_options defaults = TN_PARQUET_OPEN_OPTIONS_INIT;
    f->opts = opts ? *opts : defaults;
    if (f->opts.max_page_bytes == 0) f->opts.max_page_bytes = defaults.max_page_bytes;
    f->path = tn_strdup(path);
    if (!f->path) { rc = TN_ENOMEM; goto cleanup; }
    rc = fs->open_read(fs, path, &f->fh);
    if (rc) { f->fh = NULL; goto cleanup; }
    rc = fs->size(fs, f->fh, &f->size);
    if (rc) goto cleanup;
    if (f->size < 12) {
        rc = tn_error_set(TN_ECORRUPT, "%s: not a Parquet file (%llu bytes)", path,
                          (unsigned long long)f->size);
        goto cleanup;
    }
    rc = fs->pread(fs, f->fh, tail, 8, f->size - 8);
    if (rc) goto cleanup;
    if (memcmp(tail + 4, "PARE", 4) == 0) {
        rc = tn_error_set(TN_EUNSUPPORTED, "%s: encrypted Parquet files are not supported", path);
        goto cleanup;
    }
    rc = fs->pread(fs, f->fh, head, 4, 0);
    if (rc) goto cleanup;
    if (memcmp(tail + 4, "PAR1", 4) != 0 || memcmp(head, "PAR1", 4) != 0) {
        rc = tn_error_set(TN_ECORRUPT, "%s: not a Parquet file (bad magic)", path);
        goto cleanup;
    }
    uint32_t footer_len = tn_load_u32le(tail);
    if ((uint64_t)footer_len > f->size - 12 || footer_len == 0) {
        rc = tn_error_set(TN_ECORRUPT, "%s: footer length %u does not fit a %llu-byte file", path,
                          footer_len, (unsigned long long)f->size);
        goto cleanup;
    }
    /* blocks sized to the footer: the decoded metadata is a few times its bytes, and cached
     * footers of small files should not each hold a default 64 KiB block */
    size_t block = (size_t)footer_len * 4;
    f->arena = tn_arena_create(block < 4096 ? 4096 : block > 65536 ? 65536 : block);
    f->footer = tn_malloc(footer_len);
    if (!f->footer || !f->arena) { rc = TN_ENOMEM; goto cleanup; }
    f->footer_len = footer_len;
    rc = fs->pread(fs, f->fh, f->footer, footer_len, f->size - 8 - footer_len);
    if (rc) goto cleanup;
    rc = pq_decode_file_meta(&f->meta, f->arena, f->footer, footer_len);
    if (rc) { rc = tn_error_prefix(rc, "%s: footer", path); goto cleanup; }
    if (f->meta.encrypted) {
        rc = tn_error_set(TN_EUNSUPPORTED, "%s: encrypted Parquet files are not supported", path);
        goto cleanup;
    }
    for (uint32_t r = 0; r < f->meta.nrow_groups; r++)
        for (uint32_t c = 0; c < f->meta.row_groups[r].ncolumns; c++)
            if (f->meta.row_groups[r].columns[c].encrypted) {
                rc = tn_error_set(TN_EUNSUPPORTED, "%s: encrypted Parquet files are not "
                                  "supported (column chunk %u of row group %u)", path, c, r);
                goto cleanup;
            }
    rc = load_schema(f);
    if (rc) goto cleanup;
    rc = check_row_groups(f);
    if (rc) goto cleanup;
    *out = f;
    f = NULL;
cleanup:
    tn_parquet_close(f);
    return rc;
}

int tn_parquet_handle_open(tn_parquet_file *f) {
    if (f->fh) return 0;
    uint64_t size = 0;
    int rc = f->fs->open_read(f->fs, f->path, &f->fh);
    if (rc) {
        f->fh = NULL;
        return rc;
    }
    rc = f->fs->size(f->fs, f->fh, &size);
    if (!rc && size != f->size)
        rc = tn_error_set(TN_ECORRUPT, "%s: the file changed while it was being read (%llu bytes, was %llu)", f->path,
                          (unsigned long long)size, (unsigned long long)f->size);
    if (rc) tn_parquet_handle_close(f);
    return rc;
}

void tn_parquet_handle_close(tn_parquet_file *f) {
    if (f && f->fh) {
        (void)f->fs->close(f->fs, f->fh);
        f->fh = NULL;
    }
}

bool tn_parquet_handle_is_open(const tn_parquet_file *f) { return f && f->fh; }

tn_parquet_file *pq_rd_share(tn_parquet_file *master, tn_fs *fs, const tn_parquet_open_options *opts) {
    tn_parquet_file *f = tn_malloc(sizeof *f);
    char *path = tn_strdup(master->path);
    if (!f || !path) {
        tn_free(f);
        tn_free(path);
        return NULL;
    }
    *f = *master;
    f->fs = fs;
    f->fh = NULL;
    f->path = path;
    f->opts = opts ? *opts : master->opts;
    if (f->opts.max_page_bytes == 0) f->opts.max_page_bytes = master->opts.max_page_bytes;
    f->master = master;
    f->refs = 0;
    __atomic_add_fetch(&master->refs, 1, __ATOMIC_ACQ_REL);
    return f;
}

void pq_rd_unref(tn_parquet_file *master) {
    if (master && __atomic_sub_fetch(&master->refs, 1, __ATOMIC_ACQ_REL) == 0) tn_parquet_close(master);
}

void pq_rd_make_master(tn_parquet_file *f) {
    tn_parquet_handle_close(f);
    f->refs = 1;
    f->pages = pq_page_memo_new(f->size);
    size_t n = (size_t)f->meta.nrow_groups * f->nleaves;
    f->oi = n ? tn_calloc(n, sizeof *f->oi) : NULL;   /* none: the index is read each time */
}

pq_offset_index **pq_rd_offset_index_slot(const tn_parquet_file *f, uint32_t rg, uint32_t leaf) {
    const tn_parquet_file *m = f->master ? f->master : f;
    if (!m->oi || rg >= m->meta.nrow_groups || leaf >= m->nleaves) return NULL;
    return &m->oi[(size_t)rg * m->nleaves + leaf];
}

pq_page_memo *pq_rd_page_memo(const tn_parquet_file *f) { return f->pages; }

size_t pq_rd_footer_bytes(const tn_parquet_file *f) {
    size_t oi = 0;      /* the OffsetIndexes it may keep: about 3x their encoded bytes decoded */
    for (uint32_t r = 0; f->oi && r < f->meta.nrow_groups; r++)
        for (uint32_t c = 0; c < f->meta.row_groups[r].ncolumns; c++) {
            const pq_column_chunk *cc = &f->meta.row_groups[r].columns[c];
            if (cc->has_offset_index && cc->offset_index_length > 0)
                oi += sizeof(pq_offset_index) + 3 * (size_t)cc->offset_index_length;
        }
    return sizeof *f + tn_arena_bytes(f->arena) + f->footer_len + strlen(f->path) + 1 + oi;
}

void tn_parquet_close(tn_parquet_file *f) {
    if (!f) return;
    if (f->fh) f->fs->close(f->fs, f->fh);
    if (f->master) {
        pq_rd_unref(f->master);
        tn_free(f->path);
        tn_free(f);
        return;
    }
    pq_page_memo_free(f->pages);
    if (f->oi) {
        for (size_t i = 0; i < (size_t)f->meta.nrow_groups * f->nleaves; i++) tn_free(f->oi[i]);
        tn_free(f->oi);
    }
    tn_arena_destroy(f->arena);
    tn_free(f->footer);
    tn_free(f->path);
    tn_free(f);
}

uint32_t tn_parquet_num_columns(const tn_parquet_file *f) { return f->ncols; }
const tn_parquet_column_info *tn_parquet_column(const tn_parquet_file *f, uint32_t column) {
    return column < f->ncols ? &f->cols[column] : NULL;
}
int64_t tn_parquet_num_rows(const tn_parquet_file *f) {
    return f->rg_first_row[f->meta.nrow_groups];
}
uint32_t tn_parquet_num_row_groups(const tn_parquet_file *f) { return f->meta.nrow_groups; }
int64_t tn_parquet_row_group_num_rows(const tn_parquet_file *f, uint32_t row_group) {
    return row_group < f->meta.nrow_groups ? f->meta.row_groups[row_group].num_rows : 0;
}
uint64_t tn_parquet_file_size(const tn_parquet_file *f) { return f->size; }
const char *tn_parquet_path(const tn_parquet_file *f) { return f->path; }
uint32_t tn_parquet_kv_count(const tn_parquet_file *f) { return f->meta.nkv; }
void tn_parquet_kv(const tn_parquet_file *f, uint32_t index, const char **key, const char **value) {
    if (index >= f->meta.nkv) { *key = NULL; *value = NULL; return; }
    *key = f->meta.kv[index].key;
    *value = f->meta.kv[index].value;
}

/* ---------------------------------------------------------------------------------------------
 * Statistics.
 */

/* Decodes one PLAIN value (no BYTE_ARRAY length prefix), as stored in statistics and the column
 * index, into a logical value of the column's type. Returns 0, or -1 when the value cannot be
 * used (NaN, wrong size, INT96, out of range) - no error message is set. */
int pq_rd_decode_value(const tn_parquet_file *f, uint32_t leaf, const uint8_t *p, size_t n,
                       tn_value *out) {
    const pq_schema_element *e = f->leaves[leaf];
    tn_type t = f->leaf_types[leaf];
    memset(out, 0, sizeof *out);
    out->type = t;
    switch (e->type) {
    case PQ_BOOLEAN:
        if (n < 1) return -1;
        out->u.b = p[0] != 0;
        return 0;
    case PQ_INT32: {
        if (n != 4) return -1;
        int32_t v = (int32_t)tn_load_u32le(p);
        if (t.id == TN_TYPE_BIGINT) out->u.i = (int64_t)(uint32_t)v;   /* UINT_32 */
        else if (t.id == TN_TYPE_DECIMAL && t.precision > 18) out->u.i128 = v;
        else out->u.i = v;
        return 0;
    }
    case PQ_INT64: {
        if (n != 8) return -1;
        int64_t v = (int64_t)tn_load_u64le(p);
        if (t.id == TN_TYPE_DECIMAL) {
            if (pq_rd_is_unsigned(e)) out->u.i128 = (tn_int128)(uint64_t)v;
            else if (t.precision > 18) out->u.i128 = v;
            else out->u.i = v;
            return 0;
        }
        if (t.id == TN_TYPE_TIMESTAMP || t.id == TN_TYPE_TIMESTAMP_TZ) {
            int unit = pq_rd_ts_unit(e);
            if (unit == PQ_UNIT_MILLIS) {
                if (__builtin_mul_overflow(v, 1000, &out->u.i)) return -1;
                return 0;
            }
            if (unit == PQ_UNIT_NANOS) { out->u.i = v / 1000; return 0; }
        }
        out->u.i = v;
        return 0;
    }
    case PQ_FLOAT:
    case PQ_DOUBLE: {
        double x;
        if (n != (e->type == PQ_FLOAT ? 4u : 8u)) return -1;
        if (e->type == PQ_FLOAT) {
            float fv;
            memcpy(&fv, p, 4);
            x = fv;
        } else {
            memcpy(&x, p, 8);
        }
        if (isnan(x)) return -1;
        out->u.d = x;
        return 0;
    }
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY:
        if (t.id == TN_TYPE_FLOAT) {                       /* FLOAT16 */
            if (n != 2) return -1;
            float x = pq_rd_half_to_float((uint16_t)(p[0] | (p[1] << 8)));
            if (isnan(x)) return -1;
            out->u.d = x;
            return 0;
        }
        if (t.id == TN_TYPE_DECIMAL) {
            tn_int128 v;
            if (!pq_rd_be_to_i128(p, n, &v)) return -1;
            if (t.precision > 18) out->u.i128 = v;
            else {
                if (v > INT64_MAX || v < INT64_MIN) return -1;
                out->u.i = (int64_t)v;
            }
            return 0;
        }
        if (n > UINT32_MAX) return -1;
        out->u.s.ptr = (const char *)p;
        out->u.s.len = (uint32_t)n;
        return 0;
    default:
        return -1;                                          /* INT96: no usable order */
    }
}

/* May the deprecated min/max (fields 1/2, signed order) be trusted for this column? */
static bool legacy_stats_usable(const pq_schema_element *e) {
    switch (e->type) {
    case PQ_BOOLEAN: case PQ_FLOAT: case PQ_DOUBLE: return true;
    case PQ_INT32: case PQ_INT64: return !pq_rd_is_unsigned(e);
    default: return false;                  /* BYTE_ARRAY/FLBA: unsigned order, INT96: none */
    }
}

int tn_parquet_column_stats(const tn_parquet_file *f, uint32_t row_group, uint32_t column,
                            tn_parquet_stats *out) {
    memset(out, 0, sizeof *out);
    if (row_group >= f->meta.nrow_groups || column >= f->ncols)
        return tn_error_set(TN_EINVAL, "%s: no row group %u / column %u", f->path, row_group,
                            column);
    out->min.type = out->max.type = f->cols[column].type;
    out->min.is_null = out->max.is_null = true;
    if (f->col_tree[column]) {        /* nested: the bytes of its leaves; no statistics yet */
        out->num_values = f->meta.row_groups[row_group].num_rows;
        for (uint32_t k = 0; k < f->col_nleaves[column]; k++) {
            int64_t b = f->meta.row_groups[row_group].columns[f->col_leaf[column] + k].meta.total_compressed_size;
            out->compressed_bytes += b > 0 ? (uint64_t)b : 0;
        }
        return 0;
    }
    uint32_t leaf = f->col_leaf[column];
    const pq_column_meta *cm = &f->meta.row_groups[row_group].columns[leaf].meta;
    out->num_values = cm->num_values;
    out->compressed_bytes = cm->total_compressed_size > 0 ? (uint64_t)cm->total_compressed_size : 0;
    if (!cm->has_statistics) return 0;
    const pq_statistics *st = &cm->statistics;
    if (st->has_null_count && st->null_count >= 0) {
        out->has_null_count = true;
        out->null_count = st->null_count;
    }
    if (st->has_distinct_count && st->distinct_count >= 0 && st->distinct_count <= cm->num_values) {
        out->has_distinct_count = true;
        out->distinct_count = st->distinct_count;
    }
    const pq_bytes *mn = NULL, *mx = NULL;
    bool exact_min = false, exact_max = false;
    if (st->min_value.present && st->max_value.present) {
        mn = &st->min_value;
        mx = &st->max_value;
        exact_min = st->has_is_min_exact ? st->is_min_value_exact : false;
        exact_max = st->has_is_max_exact ? st->is_max_value_exact : false;
    } else if (st->min.present && st->max.present &&
               legacy_stats_usable(f->leaves[leaf])) {
        mn = &st->min;
        mx = &st->max;
    }
    if (mn && pq_rd_decode_value(f, leaf, mn->ptr, mn->len, &out->min) == 0 &&
        pq_rd_decode_value(f, leaf, mx->ptr, mx->len, &out->max) == 0) {
        out->has_min_max = true;
        out->min_exact = exact_min;
        out->max_exact = exact_max;
    }
    if (!out->has_min_max) {
        memset(&out->min, 0, sizeof out->min);
        memset(&out->max, 0, sizeof out->max);
        out->min.type = out->max.type = f->cols[column].type;
        out->min.is_null = out->max.is_null = true;
    }
    return 0;
}

/* Compares a column value with a predicate constant. Returns false in *ok when the two cannot be
 * compared (different type families). */
static int cmp_values(const tn_value *col, const tn_value *c, bool *ok) {
    *ok = true;
    tn_type a = col->type, b = c->type;
    bool af = a.id == TN_TYPE_FLOAT || a.id == TN_TYPE_DOUBLE;
    bool bf = b.id == TN_TYPE_FLOAT || b.id == TN_TYPE_DOUBLE;
    /* numeric compare: -0.0 == +0.0, so a zero bound prunes nothing it should keep */
    if (af && bf) return col->u.d < c->u.d ? -1 : col->u.d > c->u.d;
    if (tn_type_equal(a, b)) return tn_value_compare(col, c);
    if (tn_type_is_integer(a) && tn_type_is_integer(b))
        return col->u.i < c->u.i ? -1 : col->u.i > c->u.i;
    if (tn_type_is_string(a) && tn_type_is_string(b)) {
        uint32_t n = col->u.s.len < c->u.s.len ? col->u.s.len : c->u.s.len;
        int r = n ? memcmp(col->u.s.ptr, c->u.s.ptr, n) : 0;
        if (r) return r < 0 ? -1 : 1;
        return col->u.s.len < c->u.s.len ? -1 : col->u.s.len > c->u.s.len;
    }
    *ok = false;
    return 0;
}

bool pq_rd_stats_may_match(const tn_parquet_stats *st, tn_type type, const tn_parquet_predicate *p) {
    bool all_null = st->has_null_count && st->num_values >= 0 && st->null_count >= st->num_values;
    switch (p->op) {
    case TN_PQ_IS_NULL:
        return !(st->has_null_count && st->null_count == 0);
    case TN_PQ_IS_NOT_NULL:
        return !all_null;
    default:
        break;
    }
    if (all_null) return false;                 /* a comparison with NULL is never true */
    if (p->constant.is_null || !st->has_min_max) return true;
    bool is_float = type.id == TN_TYPE_FLOAT || type.id == TN_TYPE_DOUBLE;
    if (is_float && isnan(p->constant.u.d)) return true;
    bool ok1, ok2;
    int cmin = cmp_values(&st->min, &p->constant, &ok1);   /* min vs c */
    int cmax = cmp_values(&st->max, &p->constant, &ok2);   /* max vs c */
    if (!ok1 || !ok2) return true;
    switch (p->op) {
    case TN_PQ_EQ: return !(cmin > 0 || cmax < 0);
    case TN_PQ_LT: return cmin < 0;
    case TN_PQ_LE: return cmin <= 0;
    /* NaN rows sort above every value but are not in min/max: never prune floats upward. */
    case TN_PQ_GT: return is_float || cmax > 0;
    case TN_PQ_GE: return is_float || cmax >= 0;
    case TN_PQ_NE:
        return is_float || !(st->min_exact && st->max_exact && cmin == 0 && cmax == 0);
    default: return true;
    }
}

bool tn_parquet_row_group_may_match(const tn_parquet_file *f, uint32_t row_group,
                                    const tn_parquet_predicate *preds, uint32_t npreds) {
    if (row_group >= f->meta.nrow_groups) return false;
    for (uint32_t i = 0; i < npreds; i++) {
        if (preds[i].column >= f->ncols) continue;
        tn_parquet_stats st;
        if (tn_parquet_column_stats(f, row_group, preds[i].column, &st) != 0) continue;
        if (!pq_rd_stats_may_match(&st, f->cols[preds[i].column].type, &preds[i])) return false;
    }
    return true;
}
