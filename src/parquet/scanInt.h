/*
 * parquet/scanInt.h: private to the scan's files: the column reader and scan state shared by
 * scan.c (row groups, page-index ranges, public API), scan_page.c (pages, value decoding,
 * conversion, copying rows out) and scan_filter.c (the row filter). Not for other files.
 */
#ifndef TN_PARQUET_SCAN_INT_H
#define TN_PARQUET_SCAN_INT_H

#include "parquet/readerInt.h"

#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the scan reads PLAIN values in place and assumes a little-endian host"
#endif

/* Physical -> logical conversions (chosen once per column). */
enum {
    CV_BOOL, CV_I32_I8, CV_I32_I16, CV_I32, CV_U32_I64, CV_I32_DEC64, CV_I32_DEC128,
    CV_I64, CV_I64_MS, CV_I64_NS, CV_I64_DEC128, CV_U64_DEC128, CV_INT96, CV_F32, CV_F64,
    CV_F16, CV_FIXED_STR, CV_FIXED_DEC64, CV_FIXED_DEC128, CV_STR, CV_STR_DEC64, CV_STR_DEC128
};

typedef struct sbuf { uint8_t *p; size_t cap; } sbuf;           /* reusable scratch */
typedef struct pbuf { uint8_t *p; size_t cap; uint64_t gen; } pbuf; /* pooled page buffer */

/* Non-null values of a page in physical form, before conversion. */
typedef struct pdense {
    const uint8_t *fixed;     /* INT32/INT64/INT96/FLOAT/DOUBLE/FLBA: n * pw bytes, LE */
    const tn_str *strs;       /* BYTE_ARRAY */
    const uint8_t *bools;     /* BOOLEAN: 0/1 bytes */
} pdense;

/* A row filter term of one column (constants owned by the scan's arena). */
typedef struct fpred {
    tn_parquet_op op;
    bool in;                  /* IN (values) instead of op */
    tn_value constant;
    const tn_value *values;
    uint32_t nvalues;
    /* IN over an integer-stored type (not BOOLEAN): the values as sorted distinct int64 */
    const int64_t *ivals;
    uint32_t nivals;
    /* ... and, when their range is at most IN_BITMAP_MAX_BITS, a bitmap over [ivals[0], last] */
    const uint64_t *ibits;
    uint64_t ibits_range;
} fpred;
#define IN_BITMAP_MAX_BITS ((uint64_t)1 << 23)

typedef struct nestcol nestcol;

typedef struct colreader {
    uint32_t col;             /* file column (output column's source) */
    uint32_t leaf;            /* its leaf: the chunk index in a row group */
    nestcol *nc;              /* a nested column: its leaf readers (this reader reads nothing) */
    const char *name;
    const pq_schema_element *elem;
    tn_type type;
    uint32_t width;           /* bytes per logical value */
    uint32_t pw;              /* bytes per physical fixed-width value (0: BOOLEAN, BYTE_ARRAY) */
    int conv, phys, max_def;
    bool is_str;
    /* row group */
    const pq_column_meta *cm;
    uint8_t *chunk; size_t chunk_len, chunk_cap;
    uint64_t chunk_start;     /* file offset of chunk[0] */
    size_t pos;               /* next page header in chunk */
    int64_t next_row;         /* row (in the row group) of the next data page */
    uint32_t page_no;         /* pages walked in this chunk */
    bool seen_data;
    /* dictionary (lives for the row group) */
    bool has_dict;
    uint32_t dict_count;
    int dict_bits;            /* dict holds 1 << dict_bits entries (zero padded) */
    sbuf dict, dict_raw;
    /* current page */
    bool page_loaded;
    int64_t page_first;
    uint32_t page_rows;
    const uint8_t *vals;      /* page_rows logical values */
    const uint64_t *valid;    /* NULL when every row is valid */
    uint64_t page_gen;
    /* dictionary-encoded page: indices decoded lazily, straight into the output */
    bool dict_stream;
    uint32_t page_cursor;     /* first page row whose index has not been consumed */
    pq_rle_stream ds;
    /* scratch */
    sbuf s_defs, s_idx, s_i64, s_phys, s_strs, s_dense, s_vals, s_valid;
    /* page buffers (decompressed data, materialised strings) */
    pbuf *pool; uint32_t npool, pool_cap;       /* [0, nfree) free, [nfree, npool) in use */
    uint32_t nfree;
    /* nested leaf (max_rep > 0 or under a group): the whole chunk's levels and values */
    int max_rep;
    bool nested;
    uint32_t nlev, lev_cap;
    uint32_t *rep, *def;      /* nlev each (rep NULL when max_rep is 0, def when max_def is 0) */
    uint32_t nvals;
    sbuf nvals_buf;           /* nvals logical values of width bytes */
    /* row filter: the predicates on this column (filter_rows) */
    fpred *fp;
    uint32_t nfp;
    bool null_pass;           /* a NULL passes every predicate of the column */
    bool dpass_ok;            /* dpass is computed for the current dictionary */
    sbuf dpass;               /* per dictionary entry: 1 when it passes */
} colreader;

typedef struct row_range { int64_t lo, hi; } row_range;


struct tn_parquet_scan {
    tn_parquet_file *file;
    const char *path;
    tn_fs *fs;
    tn_file *fh;
    uint64_t file_size;
    uint64_t max_page_bytes;
    bool verify;
    uint32_t ncols;
    colreader *cols;
    uint32_t *rgs; uint32_t nrgs, rg_i;
    tn_parquet_predicate *preds; uint32_t npreds;
    tn_arena *arena;          /* predicate constants */
    tn_arena *rg_arena;       /* page index of the current row group */
    /* current row group */
    bool rg_active;
    uint32_t rg;
    int64_t rg_rows, rg_first;
    row_range *ranges; uint32_t nranges, ranges_cap, range_i;
    int64_t row_limit;        /* rows [0, row_limit) of each row group; < 0: all */
    int64_t cur;
    int failed;
    tn_parquet_scan_counters counters;
    /* row filter: column order (filter columns first), scratch of one batch */
    bool filter;
    uint32_t *order, nfcols;
    uint32_t *sel, *idx;
    uint8_t *keep;
    int64_t *ids;             /* row ids for tn_parquet_scan_next */
};

#define NOMEM() tn_error_set(TN_ENOMEM, "out of memory")

/* Set bits of bits[] in [from, to). */
static inline uint32_t count_valid(const uint64_t *bits, uint32_t from, uint32_t to) {
    uint32_t c = 0;
    while (from < to && (from & 63)) { c += (bits[from >> 6] >> (from & 63)) & 1; from++; }
    while (from + 64 <= to) { c += (uint32_t)__builtin_popcountll(bits[from >> 6]); from += 64; }
    while (from < to) { c += (bits[from >> 6] >> (from & 63)) & 1; from++; }
    return c;
}

/* scan.c: a scan of any file (tn_parquet_scan_open refuses nested files; this does not: its
 * nested leaves are read by pq_sc_nested_read_chunk), and the start of a row group (chunks
 * read, nested leaves decoded). */
int pq_sc_open(tn_parquet_scan **out, tn_parquet_file *file, const tn_parquet_scan_options *opts);
int pq_sc_row_group_begin(tn_parquet_scan *s, uint32_t rg);
/* Loads a column chunk into cr (end > 0: only its bytes before file offset end). */
int pq_sc_chunk_load(tn_parquet_scan *s, colreader *cr, const pq_column_chunk *cc, int64_t end);
/* Sets cr up to read leaf `leaf` (types, levels, conversion). */
int pq_sc_colreader_init(tn_parquet_scan *s, colreader *cr, uint32_t leaf);

/* scan_page.c: buffers, pages, values. */
void *pq_sc_sbuf_get(sbuf *b, size_t size);
void pq_sc_pool_release(colreader *cr, bool keep_current);
void pq_sc_colreader_free(colreader *cr);
int pq_sc_dict_take(colreader *cr, uint8_t *dst, uint32_t k);
int pq_sc_load_page(tn_parquet_scan *s, colreader *cr, int64_t row);
/* The next data page of the chunk, loading dictionary pages on the way (index and unknown pages
 * are skipped): header and body checked against the chunk and the page limit. 1 at the end of
 * the chunk. The CRC of a data page is checked by pq_sc_check_crc (pages may be skipped). */
int pq_sc_next_page(tn_parquet_scan *s, colreader *cr, pq_page_header *h, const uint8_t **body,
                    uint32_t *page_no);
int pq_sc_check_crc(tn_parquet_scan *s, const pq_page_header *h, const uint8_t *body,
                    uint32_t page_no);
/* A page body decompressed (into a pooled buffer) unless stored uncompressed. */
int pq_sc_page_data(tn_parquet_scan *s, colreader *cr, const uint8_t *src, size_t slen,
                    size_t ulen, bool compressed, const uint8_t **out, size_t *out_len);
/* The values section of a page: nn non-NULL values decoded to logical dense values. */
int pq_sc_decode_values(tn_parquet_scan *s, colreader *cr, int encoding, const uint8_t *p,
                        size_t len, uint32_t nn, const uint8_t **dense);
int pq_sc_copy_out(colreader *cr, uint32_t from, uint32_t n, tn_vector *v, uint32_t at);
int pq_sc_fill_column(tn_parquet_scan *s, colreader *cr, int64_t row, uint32_t n, tn_vector *v);

/* A nested output column: the (projected) tree, one nested-leaf reader per projected leaf and
 * where each stands in its chunk. */
struct nestcol {
    const struct pq_nest *tree;
    uint32_t nleaves;
    colreader *leaves;
    const struct pq_nest ***paths;   /* per leaf: the nodes from the top down to it */
    uint32_t *depth;
    uint32_t *lev_pos, *val_pos;     /* per leaf: first level / value of row `row` */
    int64_t row;                     /* row (in the row group) the cursors stand at */
    struct pq_asm *asms;             /* per leaf, of the current batch */
    tn_arena *arena;                 /* the current batch's assembly */
    tn_vector tmp;                   /* rows of a filtered batch before selection */
    bool tmp_init;
};

/* scan_nested.c: nested leaves. Reads every page of cr's loaded chunk into cr->rep/def/
 * nvals_buf (strings point into the chunk's page buffers, kept for the row group); checks the
 * levels against the schema and counts the records, which must be the row group's rows. */
int pq_sc_nested_read_chunk(tn_parquet_scan *s, colreader *cr);
/* Sets cr up as file column col (nested), projected to type (NULL: the file's type; else a
 * type with only some struct fields: only their leaves are read). */
int pq_sc_nested_open(tn_parquet_scan *s, colreader *cr, uint32_t col, const tn_type *type);
/* Reads and decodes the chunks of every projected leaf of row group rg. */
int pq_sc_nested_rg_begin(tn_parquet_scan *s, colreader *cr, const pq_row_group *rg);
/* Assembles rows [row, row+n) of the row group into v (appended at v->count = 0 for a fresh
 * vector); rows ascend from call to call within a row group. */
int pq_sc_nested_fill(tn_parquet_scan *s, colreader *cr, int64_t row, uint32_t n, tn_vector *v);
void pq_sc_nested_free(colreader *cr);

/* scan_filter.c: the row filter. */
bool pq_sc_filter_supported(tn_type t, const fpred *p);
int pq_sc_filter_batch(tn_parquet_scan *s, int64_t row0, uint32_t n, tn_chunk *out,
                        int64_t *row_ids);

#endif
