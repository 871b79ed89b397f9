/*
 * parquet/readerInt.h: private to the reader's files (reader.c, scan.c, describe.c): accessors
 * of an open tn_parquet_file and the value helpers reader.c shares with the scan.
 */
#ifndef TN_PARQUET_READER_INT_H
#define TN_PARQUET_READER_INT_H

#include "parquet/parquetInt.h"

const pq_file_meta *pq_rd_meta(const tn_parquet_file *f);
/* The schema tree: one node per schema element (0 = the root). */
#define PQ_MAX_SCHEMA_DEPTH 64
typedef struct pq_rd_node {
    int32_t parent;                 /* element index, -1 for the root */
    int32_t depth;                  /* 0 for the root */
    int32_t def, rep;               /* max definition / repetition level */
    int32_t leaf;                   /* column index, -1 for groups and the root */
} pq_rd_node;
const pq_rd_node *pq_rd_node_at(const tn_parquet_file *f, uint32_t element);
/* NULL for a flat file; else the first nested top-level column's name (files opened with
 * metadata_only: their columns are the leaves, named by dotted path, and cannot be scanned). */
const char *pq_rd_nested(const tn_parquet_file *f);
/* Leaves (leaf columns: one column chunk each per row group, depth first). In a flat file (and
 * one opened metadata_only) file column i is leaf i; otherwise columns are the top-level
 * fields, a nested one spanning several leaves. */
const pq_schema_element *pq_rd_leaf(const tn_parquet_file *f, uint32_t leaf);
uint32_t pq_rd_num_leaves(const tn_parquet_file *f);
tn_type pq_rd_leaf_type(const tn_parquet_file *f, uint32_t leaf);
const char *pq_rd_leaf_name(const tn_parquet_file *f, uint32_t leaf);   /* dotted path */
/* The leaf of a flat column, -1 for a nested one. */
int32_t pq_rd_column_leaf(const tn_parquet_file *f, uint32_t col);
void pq_rd_column_leaves(const tn_parquet_file *f, uint32_t col, uint32_t *first, uint32_t *n);
/* The logical tree of a nested column (nestedInt.h), NULL for a flat one. */
struct pq_nest;
const struct pq_nest *pq_rd_column_tree(const tn_parquet_file *f, uint32_t col);
/* File row index of the first row of row group rg. */
int64_t pq_rd_row_group_first_row(const tn_parquet_file *f, uint32_t rg);
tn_fs *pq_rd_fs(const tn_parquet_file *f);
tn_file *pq_rd_handle(const tn_parquet_file *f);
const tn_parquet_open_options *pq_rd_options(const tn_parquet_file *f);
/* PQ_UNIT_* of a timestamp leaf (MICROS when it has no unit). */
int pq_rd_ts_unit(const pq_schema_element *e);
bool pq_rd_is_unsigned(const pq_schema_element *e);
/* Decodes a PLAIN-encoded statistics value (no length prefix) of a leaf into out. */
int pq_rd_decode_value(const tn_parquet_file *f, uint32_t leaf, const uint8_t *p, size_t n,
                       tn_value *out);
/* Whether statistics st allow a row satisfying p. */
bool pq_rd_stats_may_match(const tn_parquet_stats *st, tn_type type, const tn_parquet_predicate *p);
float pq_rd_half_to_float(uint16_t h);
/* Big-endian two's complement (len <= 16) to int128; false when it does not fit. */
bool pq_rd_be_to_i128(const uint8_t *p, size_t len, tn_int128 *out);

/* Footer sharing (cache.c). A copy of master for another open (its own fs, no descriptor, its
 * own path and opts; the metadata borrowed), holding a reference; NULL on out of memory. */
tn_parquet_file *pq_rd_share(tn_parquet_file *master, tn_fs *fs, const tn_parquet_open_options *opts);
/* Drops a reference to a master: the last one closes it. */
void pq_rd_unref(tn_parquet_file *master);
/* Turns a freshly opened file into a master: descriptor closed, one reference (the caller's). */
void pq_rd_make_master(tn_parquet_file *f);
/* The decompressed-page memo a file shares with its master (NULL: none). */
pq_page_memo *pq_rd_page_memo(const tn_parquet_file *f);
/* The slot of column chunk (rg, leaf)'s decoded OffsetIndex in f's master (f itself when it
 * is one): an atomic pointer, NULL until a scan stores one (one heap block, freed with the
 * master). NULL when f was not opened through the cache. */
pq_offset_index **pq_rd_offset_index_slot(const tn_parquet_file *f, uint32_t rg, uint32_t leaf);
/* The memory a master holds (what the cache counts against its budget). */
size_t pq_rd_footer_bytes(const tn_parquet_file *f);

#endif
