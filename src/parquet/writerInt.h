/*
 * parquet/writerInt.h: private to writer.c and writer_column.c: the state of one column of a
 * Parquet writer while a row group is being built: the current page (definition levels plus
 * dictionary indices or PLAIN bytes), the chunk's dictionary, the chunk's finished (compressed)
 * pages, and the page / chunk / file statistics. writer.c owns the file, row groups and footer.
 */
#ifndef TN_PARQUET_WRITER_INT_H
#define TN_PARQUET_WRITER_INT_H

#include "parquet/parquetInt.h"

/* How a column's values are staged and encoded (one tight loop per kind). */
typedef enum pqw_kind {
    PQW_BOOL,       /* BOOLEAN: staged uint8 0/1 */
    PQW_I32,        /* INT32 (TINYINT, SMALLINT, INTEGER, DATE, DECIMAL p<=9): staged uint32 */
    PQW_I64,        /* INT64 (BIGINT, TIMESTAMP[TZ], DECIMAL p<=18): staged uint64 */
    PQW_FLOAT,      /* FLOAT: staged uint32 bit patterns */
    PQW_DOUBLE,     /* DOUBLE: staged uint64 bit patterns */
    PQW_BYTES,      /* BYTE_ARRAY (VARCHAR, VARBINARY): staged tn_str */
    PQW_FLBA,       /* FIXED_LEN_BYTE_ARRAY (DECIMAL p>18): staged tn_int128 */
} pqw_kind;

#define PQW_SEG 4096u            /* rows staged at a time */

typedef struct pqw_config {
    int codec, level;
    uint32_t page_rows;
    uint32_t page_bytes;
    uint32_t dict_max_bytes;
    bool dictionary;
    bool statistics;
} pqw_config;

/* Statistics accumulator (page, chunk or file). min/max only over non-null, non-NaN values. */
typedef struct pqw_stat {
    int64_t nulls, nans, nonnull;          /* nonnull counts NaNs too */
    bool has;                              /* min/max valid */
    int64_t imin, imax;                    /* BOOL, I32, I64 */
    double dmin, dmax;                     /* FLOAT, DOUBLE */
    tn_int128 xmin, xmax;                  /* FLBA */
    tn_buf smin, smax;                     /* BYTES: bounds, cut to 64 bytes (writer_column.c) */
    bool smin_cut, smax_cut;               /* BYTES: the bound is not a value of the column */
} pqw_stat;

/* A finished data page of the current chunk. */
typedef struct pqw_page {
    uint64_t offset;                       /* from the start of the chunk's data pages */
    int32_t size;                          /* header + stored body */
    int64_t first_row;                     /* within the row group */
    int64_t nulls;
    bool null_page;                        /* no non-null values */
    bool has_minmax;
    uint32_t min_off, min_len, max_off, max_len;   /* in pqw_col.pstat_bytes */
} pqw_page;

/* Scratch shared by all columns of a writer. */
typedef struct pqw_scratch {
    uint8_t *u8;
    uint32_t *u32;
    uint64_t *u64;
    tn_int128 *x;
    tn_str *s;
    tn_buf body;                           /* uncompressed page body */
    tn_buf comp;                           /* compressed page body */
} pqw_scratch;

typedef struct pqw_col {
    const char *name;                      /* dotted path for a nested leaf ("s.list.element") */
    tn_type type;                          /* the leaf's scalar type */
    bool nullable;                         /* has definition levels (max_def > 0) */
    uint32_t max_def, max_rep;             /* flat: nullable / 0 */
    char **path; uint32_t npath;           /* path_in_schema (in the writer's meta arena) */
    pqw_kind kind;
    int phys;                              /* PQ_INT32 ... */
    uint32_t vw;                           /* PLAIN bytes per value (0 for BYTES) */
    const pqw_config *cfg;

    /* Dictionary of the current chunk. */
    bool dict_mode;                        /* new pages use RLE_DICTIONARY */
    bool pay_checked;
    uint32_t *slots;                       /* open addressing: entry index + 1, 0 = empty */
    uint32_t slot_bits;
    uint32_t dn, dcap;
    uint64_t *dkey;                        /* I32 / I64 / FLOAT / DOUBLE: bit patterns */
    tn_int128 *dx;                         /* FLBA */
    uint32_t *doff, *dlen;                 /* BYTES: in dbytes */
    uint64_t *dhash;                       /* BYTES */
    uint32_t *dstamp;                      /* BYTES: page_seq of the entry's last use */
    uint32_t page_seq;
    tn_buf dbytes;
    size_t dict_plain_bytes;

    /* Current page. */
    uint32_t prow, pnonnull;
    uint32_t prec;                         /* records (rows) in the page; == prow when flat */
    uint32_t *defs; uint32_t defs_cap;     /* nullable only */
    uint32_t *reps; uint32_t reps_cap;     /* max_rep > 0 only */
    tn_vector gather;                      /* nested leaves: values gathered for staging */
    uint32_t *idx; uint32_t idx_cap;       /* dictionary indices */
    tn_buf plain;                          /* PLAIN values (BOOL: one byte per value) */
    size_t page_plain_bytes;               /* PLAIN size of the page's values */
    pqw_stat pst;                          /* page */
    pqw_stat prev;                         /* previous non-null page (boundary order) */
    bool prev_set, asc, desc, ci_ok;

    /* Finished pages of the current chunk. */
    tn_buf pages;                          /* PageHeader + body, back to back */
    pqw_page *plist; uint32_t npages, plist_cap;
    tn_buf pstat_bytes;
    int64_t chunk_rows;                    /* values (levels) in the chunk */
    int64_t chunk_recs;                    /* records (rows) in the chunk */
    int64_t chunk_unc;                     /* headers + uncompressed bodies of data pages */
    int32_t pages_dict, pages_plain;       /* data pages per encoding */
    pqw_stat cst;                          /* chunk */
    pqw_stat fst;                          /* file */
} pqw_col;

int pqw_col_init(pqw_col *c, const tn_parquet_column_spec *spec, const pqw_config *cfg);
void pqw_col_free(pqw_col *c);
int pqw_scratch_init(pqw_scratch *s);
void pqw_scratch_free(pqw_scratch *s);

/* Appends rows [row0, row0+n) of v (type already checked, NULLs allowed only if nullable). */
int pqw_col_append(pqw_col *c, pqw_scratch *s, const tn_vector *v, uint32_t row0, uint32_t n);
/* Appends nlev levels of a nested leaf (max_rep > 0 or max_def > 1): defs[i] / reps[i] per
 * level, and for the levels whose def == max_def the values v[sel[0..nvals)], in order. The
 * levels are whole records (reps[0] == 0); pages end only where a record starts. */
int pqw_col_append_levels(pqw_col *c, pqw_scratch *s, const uint32_t *defs, const uint32_t *reps,
                          uint32_t nlev, const tn_vector *v, const uint32_t *sel, uint32_t nvals);
/* Finishes the current page, if it holds rows. */
int pqw_col_flush_page(pqw_col *c, pqw_scratch *s);
/* Appends the chunk's dictionary page (header + body) to out, if the chunk uses one; adds its
 * uncompressed size (header + body) to *unc. */
int pqw_col_dict_page(pqw_col *c, pqw_scratch *s, tn_buf *out, int64_t *unc, int32_t *nentries);
/* Merges the chunk statistics into the file statistics and starts a new chunk. */
int pqw_col_end_chunk(pqw_col *c);
/* Bytes held for the current row group (pages, current page, dictionary). */
size_t pqw_col_buffered(const pqw_col *c);

/* Statistic in the physical PLAIN encoding (no length prefix); which = 0 min, 1 max. */
int pqw_stat_bytes(const pqw_col *c, const pqw_stat *st, int which, tn_buf *out);
/* Statistic as a logical value; strings copied into arena. */
int pqw_stat_value(const pqw_col *c, const pqw_stat *st, int which, tn_arena *arena, tn_value *out);

/* ---------------------------------------------------------------------------------------------
 * writer_nested.c: the schema tree and the shredding of nested values into leaf levels.
 */
/* The schema of the file: root + every spec's elements (groups for LIST, MAP and STRUCT, with
 * the standard three-level LIST and MAP layouts), and one pqw_col per leaf, initialised. */
typedef struct pqw_schema {
    pq_schema_element *elems; uint32_t nelems;
    pqw_col *cols; uint32_t ncols;          /* leaves, in schema order (owned: pqw_col_free) */
    uint32_t *spec_leaf0, *spec_nleaves;    /* per spec: its first leaf and number of leaves */
    uint32_t **choice;                      /* per leaf: struct field picked at each STRUCT/MAP */
} pqw_schema;
int pqw_schema_build(pqw_schema *out, tn_arena *meta, const tn_parquet_column_spec *specs,
                     uint32_t nspecs, const pqw_config *cfg);

/* Reused buffers of the shredder. */
typedef struct pqw_shred {
    uint32_t *idx[2], *def[2], *rep[2];
    uint32_t cap[2];
    uint32_t *sel; uint32_t sel_cap;
} pqw_shred;
void pqw_shred_free(pqw_shred *sh);
/* Shreds rows [row0, row0+n) of v (spec's nested type) into leaf `leaf` of the schema and
 * appends them to that leaf's column. */
int pqw_shred_leaf(pqw_shred *sh, const pqw_schema *schema, uint32_t leaf, pqw_scratch *s,
                   const tn_parquet_column_spec *spec, const tn_vector *v, uint32_t row0, uint32_t n);

#endif
