/*
 * layout/otree/otreeInt.h: private to layout/otree/: qbeast-spark's OTree model as tarn reads and
 * writes it: weights (Spark Murmur3 of the indexed columns), weight <-> fraction, cube ids (the
 * Base64 string codec), revisions (the Revision JSON of 'qbeast.revision.N' with its column
 * transformations), blocks (add.tags 'blocks', and the pre-0.6 one-cube tags) and the index a
 * snapshot holds (per file: revision and blocks; per revision: cubes with their effective
 * maxWeight = min over blocks).
 */
#ifndef TN_LAYOUT_OTREE_INT_H
#define TN_LAYOUT_OTREE_INT_H

#include "layout/layoutInt.h"

#include <jansson.h>

#define OT_WEIGHT_MIN INT32_MIN
#define OT_WEIGHT_MAX INT32_MAX
#define OT_MAX_LEVELS 60              /* cube depth limit (2^-60 of a dimension) */
#define OT_DEFAULT_CUBE_SIZE 5000000  /* qbeast's spark.qbeast.index.defaultCubeSize */
#define OT_CLASS_PREFIX "io.qbeast.core.transform."
/* Parquet footer key of tarn's OTree files: {"rows":N,"pages":[[first row, its weight], ...]},
 * the files' rows being in weight order (write.c writes it, scan.c reads row limits from it) */
#define OT_PAGES_KEY "tarn.otree.pages"

/* ---------------------------------------------------------------------------------------------
 * Weights (hash.c).
 */
/* qbeast's Weight(fraction): trunc(f * (2^32 - 1) - 2^31), saturated to the int range. */
int32_t ot_weight_of_fraction(double f);
/* (w + 2^31) / (2^32 - 1), in [0, 1]. */
double ot_fraction_of_weight(int32_t w);
/* Spark's Murmur3 hash (seed 42, chained, NULLs leave the seed) of row r of the given columns,
 * as qbeast's QbeastMurmur3Hash: the record weight. */
int32_t ot_weight_row(const tn_vector *const *cols, uint32_t ncols, uint32_t r);
/* Weights of rows [0, n) of a chunk's columns (indexed columns, in columnsToIndex order). */
void ot_weight_chunk(const tn_vector *const *cols, uint32_t ncols, uint32_t n, int32_t *out);
/* scala.util.hashing.MurmurHash3.bytesHash (seed 0x3c074a61): qbeast's HashTransformation. */
int32_t ot_scala_bytes_hash(const uint8_t *p, uint32_t n);

/* ---------------------------------------------------------------------------------------------
 * Cube ids (cube.c): strings of ceil(d/6) symbols per level from the alphabet A-Za-z0-9+/;
 * dimension i of a level is bit 5 - i%6 of symbol i/6 (1 = upper half); the root is "".
 */
uint32_t ot_cube_chars_per_level(uint32_t dims);
/* Validates a cube id for d dimensions (alphabet, length, unused bits 0); depth out. */
bool ot_cube_valid(const char *id, uint32_t dims, uint32_t *depth);
/* Appends the symbols of the level below for the point coords[0..d) (each in [0,1]: doubled,
 * >= 1 is the upper half and subtracts 1). coords is updated. buf must have room. */
void ot_cube_descend(double *coords, uint32_t dims, char *buf);
/* The bounds of a cube in each dimension: from[i] <= x < to[i] (to == 1 closed). */
void ot_cube_bounds(const char *id, uint32_t dims, double *from, double *to);
/* a is a strict ancestor of b. */
bool ot_cube_is_ancestor(const char *a, const char *b, uint32_t dims);

/* ---------------------------------------------------------------------------------------------
 * Revisions (revision.c).
 */
typedef enum ot_transform_kind {
    OT_T_EMPTY,                        /* revision 0 (staging): every coordinate 0 */
    OT_T_LINEAR,                       /* (v - min) / (max - min), nulls at null_value */
    OT_T_IDENTITY,                     /* min == max: coordinate 0 */
    OT_T_HASH,                         /* scala bytesHash of the text, & 0x7fffffff / INT_MAX */
    OT_T_QUANTILES,                    /* CDF over numeric quantiles */
    OT_T_STRING_QUANTILES,             /* CDF over string quantiles / the legacy histogram */
} ot_transform_kind;

typedef struct ot_transform {
    ot_transform_kind kind;
    double min, max;                   /* linear; as qbeast orders them (timestamps in ms) */
    double null_value;                 /* linear */
    int32_t hash_null;                 /* hash: the nullValue */
    double *quantiles;                 /* numeric quantiles */
    const char **squantiles;           /* string quantiles / histogram */
    uint32_t nquantiles;
} ot_transform;

typedef struct ot_column {
    const char *name;                  /* as in columnTransformers */
    const char *transformer;           /* "linear", "hashing", "quantiles", "histogram", "empty" */
    const char *data_type;             /* qbeast's QDataType name, or NULL */
    int table_column;                  /* logical index in the table, -1 if absent */
} ot_column;

typedef struct ot_revision {
    int64_t id;
    int64_t timestamp;
    const char *table_id;
    int64_t cube_size;                 /* desiredCubeSize */
    ot_column *cols;
    ot_transform *tr;
    uint32_t ncols;
} ot_revision;

/* Parses a Revision JSON (text of 'qbeast.revision.N'): errors are TN_ECORRUPT naming what
 * (the caller prefixes the table and key). Allocated in arena. */
int ot_revision_parse(ot_revision *out, const char *json_text, tn_arena *arena);
/* The coordinate of value v under a transformation (0 for null where qbeast maps nulls so). */
double ot_transform_coord(const ot_transform *tr, const tn_value *v);

/* ---------------------------------------------------------------------------------------------
 * The index of a snapshot (index.c).
 */
typedef struct ot_block {
    const char *cube;
    int32_t min_weight, max_weight;
    int64_t count;
} ot_block;

typedef struct ot_blockset ot_blockset;   /* index.c: a file's parsed blocks, shared by indexes */

typedef struct ot_file {
    int64_t revision;                  /* 0 = unindexed (staging, or no qbeast tags) */
    ot_block *blocks;                  /* in set */
    uint32_t nblocks;
    ot_blockset *set;                  /* refcounted: an index built after a commit reuses the
                                        * blocks of the files the previous index had parsed */
} ot_file;

typedef struct ot_cube {
    const char *id;
    int32_t max_weight;                /* min over its blocks' maxWeight */
    int64_t count;                     /* sum of elementCount */
    uint32_t nblocks;
} ot_cube;

typedef struct ot_rev_index {
    const ot_revision *rev;
    ot_cube *cubes;                    /* sorted by id (pre-order: ancestors first) */
    uint32_t ncubes;
} ot_rev_index;

typedef struct ot_index {
    tn_arena *arena;
    ot_revision *revs;                 /* by position; ids 0..last */
    uint32_t nrevs;
    int64_t last_revision;
    ot_file *files;                    /* per snapshot file */
    uint32_t nfiles;
    ot_rev_index *rindex;              /* per revision (same order as revs) */
    /* the indexed columns (of the last revision), as table logical indexes */
    uint32_t *cols;
    uint32_t ncols;
    /* the snapshot it was built from (index.c keeps the last index for the next statements) */
    const char *path, *table_id;
    int64_t version;
    const char **file_paths;
    uint32_t refs;
} ot_index;

/* Loads and validates the qbeast metadata and every file's tags of t's snapshot. Errors name the
 * table and the key or file. The index is read-only and may be shared: the last one built is
 * reused while the snapshot is the same (path, table id, version, files); ot_index_free
 * releases a reference. */
int ot_index_load(ot_index **out, const tn_table *t);
void ot_index_free(ot_index *ix);
const ot_revision *ot_index_revision(const ot_index *ix, int64_t id);
const ot_rev_index *ot_index_rev_index(const ot_index *ix, int64_t id);
/* Binary search of a cube in a revision's index, or NULL. */
const ot_cube *ot_rev_index_find(const ot_rev_index *ri, const char *id);
/* Parses a 'blocks' tag (JSON array text). */
int ot_blocks_parse(const char *text, uint32_t dims, tn_arena *arena, ot_block **out, uint32_t *n);

/* ---------------------------------------------------------------------------------------------
 * Table options and revision JSON (config.c).
 */
typedef struct ot_spec {
    uint32_t column;                   /* table logical column */
    const char *name;
    const char *transformer;           /* "linear", "hashing" or "quantiles" */
    tn_type type;
} ot_spec;
/* Parses 'columnsToIndex' against the columns; errors name the table and option. */
int ot_spec_parse(const char *spec, const tn_table_column_def *cols, uint32_t ncols, const char *table, tn_arena *a,
                  ot_spec **out, uint32_t *n);
int ot_parse_cube_size(const char *text, const char *table, int64_t *out);
/* What qbeast's 'columnStats' JSON says of one indexed column (ranges for linear, quantiles). */
typedef struct ot_column_stats {
    bool has_min, has_max;
    double min, max;
    double *quantiles;                 /* numeric columns */
    const char **squantiles;           /* string columns */
    uint32_t nquantiles;               /* 0: none given */
} ot_column_stats;
int ot_column_stats_get(ot_column_stats *out, const char *text, const ot_spec *col, const char *table, tn_arena *a);
/* qbeast's QDataType name of a type, NULL if none. */
const char *ot_qdata_type(tn_type t);
/* Revision JSON as qbeast-spark writes it (tr NULL: revision 0, EmptyTransformer); malloc'd. */
char *ot_revision_json(int64_t id, int64_t timestamp, const char *table_id, int64_t cube_size, const ot_spec *spec,
                       uint32_t n, const ot_transform *tr);

/* ---------------------------------------------------------------------------------------------
 * The writer (write.c) and OPTIMIZE (optimize.c, which streams: it re-reads the files it
 * rewrites instead of holding their rows).
 */
typedef struct ot_writer {
    tn_layout_writer base;
    tn_table *t;
    tn_layout_write_options opts;
    tn_table_txn *txn;
    ot_index *ix;
    bool skip;
    int sticky;
    int64_t rollup;                    /* rollupSize; -1 = cubeSize */
    tn_chunk buf;                      /* every row written, all logical columns */
    bool has_buf;
    uint64_t nrows;
    uint64_t files;
    bool optimize;                     /* OPTIMIZE: rewrites files (dataChange false) */
    uint8_t *select;                   /* OPTIMIZE ... WHERE: per snapshot file, rewritten (NULL: all) */
    int64_t reassign;                  /* > 0: rows re-placed in this revision's current cubes */
    bool stream;                       /* OPTIMIZE: rows read from the table (optimize.c), not buf */
    uint32_t *stream_files;            /* the snapshot files it rewrites (NULL: all) */
    uint32_t nstream_files;
} ot_writer;

typedef struct ot_pcube {
    char *id;
    int32_t max_weight;
    uint32_t nrows;
    int32_t group;                     /* rollup group */
    int32_t min_weight;                /* of its rows (optimize.c) */
} ot_pcube;

typedef struct ot_plan {
    ot_writer *w;
    uint32_t d;                        /* dimensions */
    const uint32_t *cols;              /* table columns, indexed order */
    ot_spec *spec;
    ot_transform *tr;                  /* the revision written */
    int64_t rev_id;
    int64_t cube_size;
    bool new_revision;
    const ot_rev_index *old;           /* existing cubes of the revision (same revision appends) */
    uint32_t n;
    double *dmin, *dmax;               /* per indexed column: the rows' range (numeric view) */
    int32_t *weight;
    double *coord;                     /* n * d, updated in place while descending */
    int32_t *cube;                     /* per row: index into cubes */
    ot_pcube *cubes;                   /* cubes with rows */
    uint32_t ncubes, cap_cubes;
    uint32_t *row_order;               /* rows sorted by (cube, weight) */
    tn_arena *arena;
} ot_plan;

/* The revision written (new or the last one): needs n, dmin and dmax; the quantiles of a column
 * that starts a revision come from w->buf, or for a streaming OPTIMIZE from a scan of it. */
int ot_choose_revision(ot_plan *p);
/* Widens dmin/dmax (per indexed column) by rows [0, n) of the indexed columns iv. */
void ot_plan_ranges(ot_plan *p, const tn_vector *const *iv, uint32_t n);
int ot_plan_add_cube(ot_plan *p, const char *id, int32_t maxw, int32_t *out);
/* Rows of the old tree under cube id (and in id itself: own). */
int64_t ot_tree_size(const ot_rev_index *ri, const char *id, int64_t *own);
/* OPTIMIZE ... WHERE fraction: the cube of a row (coords c, updated) among ri's current cubes;
 * known caches cube -> plan cube (ri->ncubes entries, -1 initially). */
int ot_reassign_row(ot_plan *p, const ot_rev_index *ri, int32_t *known, double *c, int32_t weight, int32_t *out);
/* qbeast's Rollup of the plan's cubes into groups (cubes[].group), limit = rollupSize. */
int ot_rollup(ot_plan *p, int64_t limit, uint32_t *ngroups);
int ot_file_writer_open(ot_plan *p, tn_table_file_writer **out);
/* One file: rows order[0..n) of src (weight order; weight[] per src row), the blocks of cubes
 * cidx[0..nc) (id order, minWeight cmin[cube]). */
int ot_write_file(ot_plan *p, tn_table_file_writer *fw, const tn_chunk *src, const uint32_t *order, uint32_t n,
                  const int32_t *weight, const uint32_t *cidx, uint32_t nc, const int32_t *cmin);
/* Rows [0, n) in (key, row) order: keys[r] = {group << 32 | (weight ^ 2^31), r}. */
typedef struct ot_row_key { uint64_t key; uint32_t row; } ot_row_key;
int ot_sort_row_keys(ot_row_key *keys, uint32_t n);
/* Appends rows [0, n) of src to dst (same type). */
int ot_vec_append(tn_vector *dst, const tn_vector *src, uint32_t n);
/* After the files: the new revision into the commit's configuration. */
int ot_plan_finish(ot_plan *p);
void ot_plan_free(ot_plan *p);
/* The coordinates of rows [0, n) of the indexed columns iv: out[r * d + i]. */
void ot_plan_coords(const ot_plan *p, const tn_vector *const *iv, uint32_t n, double *out);
/* The plan's start: revision (ri: OPTIMIZE ... WHERE fraction re-places rows in it) or the
 * indexed columns, dmin/dmax empty. ot_plan_free frees it even when it fails. */
int ot_plan_init(ot_plan *p, ot_writer *w, const ot_rev_index **ri);
/* The plan's cubes ordered by (group, id): a group's blocks, in the order its file lists them. */
int ot_cubes_by_group(const ot_plan *p, uint32_t **out);
/* Buffers rows for plan_and_write (the INSERT path). */
int ot_writer_write(ot_writer *w, const tn_chunk *chunk);
/* Streaming OPTIMIZE (optimize.c): plans and writes w's files from w->stream_files. */
int ot_stream_write(ot_writer *w);
/* Every value of table column col in the files OPTIMIZE rewrites: a one-column chunk (*out,
 * initialised by the call; tn_chunk_free it). */
int ot_stream_column(ot_writer *w, uint32_t col, tn_chunk *out);
int ot_commit_writer(ot_writer *w, tn_table_commit_result *result);
int ot_open_writer(ot_writer **out, tn_table *t, const tn_layout_write_options *opts);
void ot_writer_free(ot_writer *w);

/* Scan planning (scan.c). */
int ot_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts);

#endif
