/*
 * sql/plan.h: logical plan nodes (private to sql/). The binder builds a tree of these from the
 * AST; optimize.c rewrites it (column pruning, filter pushdown, join keys, scan predicates);
 * exec.c turns it into pipelines. Every node's output is a list of typed, named columns and the
 * expressions in a node refer to its input columns by index (a join's input is the left
 * child's columns followed by the right child's). Nodes live in the statement's arena; the
 * tn_expr trees and opened files they hold are released by tn_plan_free.
 */
#ifndef TN_SQL_PLAN_H
#define TN_SQL_PLAN_H

#include "parquet/parquet.h"
#include "text/text.h"
#include "sql/expr.h"

typedef enum tn_plan_kind {
    TN_PLAN_SCAN,        /* a file source: Parquet files, CSV, NDJSON */
    TN_PLAN_VALUES,      /* constant rows (also the one empty row of SELECT without FROM) */
    TN_PLAN_FILTER,
    TN_PLAN_PROJECT,
    TN_PLAN_AGGREGATE,   /* output: groups, then aggregates */
    TN_PLAN_JOIN,
    TN_PLAN_SORT,        /* with a limit: top-N */
    TN_PLAN_LIMIT,
    TN_PLAN_SETOP,       /* UNION / INTERSECT / EXCEPT [ALL] of two inputs with equal types */
    TN_PLAN_WINDOW,      /* output: the input's columns, then one column per window function */
    TN_PLAN_UNNEST,      /* output: the input's columns, then one column per unnested list */
    TN_PLAN_CTE,         /* a leaf: the rows of a CTE referenced more than once, computed once */
} tn_plan_kind;

/* What an UNNEST column yields for the j-th (0-based) element of its list. */
typedef enum tn_unnest_mode {
    TN_UNNEST_VALUE,     /* the element */
    TN_UNNEST_POS0,      /* j (INTEGER), Spark's posexplode `pos` */
} tn_unnest_mode;

typedef enum tn_scan_format { TN_SCAN_PARQUET, TN_SCAN_CSV, TN_SCAN_JSON,
                              TN_SCAN_DELTA /* a Delta table (bind_table.c, op_table_scan.c) */ } tn_scan_format;

typedef enum tn_agg_kind {
    TN_AGG_COUNT_STAR,
    TN_AGG_COUNT,
    TN_AGG_SUM,
    TN_AGG_AVG,
    TN_AGG_MIN,
    TN_AGG_MAX,
    TN_AGG_STDDEV_SAMP,
    TN_AGG_STDDEV_POP,
    TN_AGG_VAR_SAMP,
    TN_AGG_VAR_POP,
    TN_AGG_BOOL_AND,
    TN_AGG_BOOL_OR,
    TN_AGG_STRING_AGG,
    TN_AGG_APPROX_COUNT_DISTINCT,
    TN_AGG_ANY_VALUE,    /* first value seen (also used for `first`) */
    TN_AGG_CUSTOM,       /* a table-defined aggregate (sql/aggregates.h): func */
} tn_agg_kind;

typedef struct tn_plan_agg {
    tn_agg_kind kind;
    tn_expr *arg;        /* NULL for count(*) */
    tn_expr *sep;        /* string_agg separator (constant VARCHAR) or NULL */
    tn_expr *filter;     /* FILTER (WHERE ...) or NULL */
    bool distinct;
    tn_type type;        /* result type */
    const struct tn_agg_func *func;   /* TN_AGG_CUSTOM: the definition */
    const char *arg_name;             /* TN_AGG_CUSTOM: the argument as written, for errors */
    const struct tn_agg_order *order; /* TN_AGG_CUSTOM: ORDER BY inside the call (tn_agg_ordered) */
} tn_plan_agg;

/* Window functions (op_window.c). */
typedef enum tn_win_kind {
    TN_WIN_ROW_NUMBER,
    TN_WIN_RANK,
    TN_WIN_DENSE_RANK,
    TN_WIN_PERCENT_RANK,
    TN_WIN_CUME_DIST,
    TN_WIN_NTILE,        /* offset = number of buckets */
    TN_WIN_LAG,          /* arg, offset, def (NULL: NULL) */
    TN_WIN_LEAD,
    TN_WIN_FIRST_VALUE,  /* over the frame */
    TN_WIN_LAST_VALUE,
    TN_WIN_NTH_VALUE,    /* offset = n (1-based) */
    TN_WIN_COUNT_STAR,   /* aggregates over the frame */
    TN_WIN_COUNT,
    TN_WIN_SUM,
    TN_WIN_AVG,
    TN_WIN_MIN,
    TN_WIN_MAX,
} tn_win_kind;

typedef enum tn_win_bound {
    TN_WIN_UNBOUNDED_PRECEDING,
    TN_WIN_PRECEDING,    /* n PRECEDING */
    TN_WIN_CURRENT_ROW,  /* RANGE: the first (start) / last (end) peer of the row */
    TN_WIN_FOLLOWING,
    TN_WIN_UNBOUNDED_FOLLOWING,
} tn_win_bound;

/* One window function: every expression is over the window node's input columns. The default
 * frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with ORDER BY (the whole partition
 * without). RANGE frames take only UNBOUNDED and CURRENT ROW bounds. */
typedef struct tn_plan_window_func {
    tn_win_kind kind;
    tn_expr *arg;        /* value argument, or NULL */
    tn_expr *def;        /* lag/lead default (of the result type), or NULL */
    int64_t offset;      /* lag/lead offset, ntile buckets, nth_value n */
    uint32_t npart;
    tn_expr **part;      /* PARTITION BY */
    uint32_t norder;
    tn_expr **order;     /* ORDER BY */
    bool *desc;
    bool *nulls_first;
    bool rows;           /* ROWS frame (false: RANGE) */
    tn_win_bound start, end;
    int64_t start_off, end_off;
    tn_type type;        /* result type */
} tn_plan_window_func;

typedef enum tn_join_kind {
    TN_JOIN_INNER, TN_JOIN_LEFT, TN_JOIN_RIGHT, TN_JOIN_FULL, TN_JOIN_SEMI, TN_JOIN_ANTI,
} tn_join_kind;

typedef enum tn_setop_kind { TN_SETOP_UNION, TN_SETOP_INTERSECT, TN_SETOP_EXCEPT } tn_setop_kind;

typedef struct tn_plan tn_plan;

typedef struct tn_plan_scan {
    tn_scan_format format;
    char **paths;                  /* files (globs expanded) */
    uint32_t npaths;
    tn_parquet_file **files;       /* Parquet: opened at bind time, closed by tn_plan_free */
    /* The source's full schema. */
    uint32_t nsrc;
    char **src_names;
    tn_type *src_types;
    /* Columns read, as source column indexes in output order. */
    uint32_t *cols;
    uint32_t ncols;
    /* Pushed-down simple predicates (source column indexes) for row-group/page skipping. */
    tn_parquet_predicate *preds;
    uint32_t npreds;
    /* CSV / NDJSON options. */
    int csv_header;                /* -1 detect */
    char csv_delim, csv_quote, csv_escape;
    const char *csv_null;
    bool csv_all_varchar;
    uint32_t csv_skip;
    bool text_replace_utf8;        /* invalid_utf8 = 'replace' (CSV and NDJSON) */
    uint32_t text_sample_size;     /* sample_size: rows for type detection, 0 = the reader's default */
    /* TABLESAMPLE: percent in (0,100] or rows (>0); 0 = none. */
    double sample_percent;
    int64_t sample_rows;
    uint64_t sample_seed;
    int64_t total_rows;            /* rows in the source (-1 unknown) */
    /* TN_SCAN_DELTA: the opened table snapshot (a tn_table; source columns = its logical
     * columns), released by tn_plan_free through source_free. */
    void *source;
    void (*source_free)(void *source);
    /* files and source belong to another scan of the same plan, of which this one is a copy
     * (optimize_reduce.c): tn_plan_free leaves them to that scan. */
    bool borrowed;
    /* Parquet: the distinct keys of a small hash-join build side, for the file column the join's
     * probe key reads (set or cleared by tn_join_scan_filter before the probe side runs): the
     * scan drops the rows whose value is not among them, before decoding the other columns. */
    bool has_join_in;
    tn_parquet_in_list join_in;
    tn_value *join_in_values;      /* heap, this node's (tn_plan_free) */
    /* Parquet and Delta: NULL, or per output column a STRUCT keeping only the fields the plan
     * uses (TN_TYPE_NULL: the whole column); the scan reads only their leaves and outputs the
     * full type with the other fields NULL (optimize_leaves.c; arena memory). read_uses is
     * that pass's scratch. */
    tn_type *read_types;
    void **read_uses;
} tn_plan_scan;

/* The reader options a CSV / NDJSON scan's settings ask for (defaults otherwise); the column
 * list is left to the caller (the binder infers it, later files of a pattern reuse it). */
void tn_plan_scan_csv_options(const tn_plan_scan *s, tn_csv_options *o);
void tn_plan_scan_ndjson_options(const tn_plan_scan *s, tn_ndjson_options *o);

/* A CTE (WITH name AS (...)) as its TN_PLAN_CTE leaves share it (optimize_cte.c). The binder
 * makes one leaf per reference; before optimizing, a definition with one leaf and no rows yet
 * is inlined into it (the leaf becomes the plan). Otherwise the plan is optimized on its own and
 * the first leaf to run computes the rows once for the statement (exec.c). */
typedef struct tn_plan_cte {
    const char *name;
    tn_plan *plan;                 /* NULL once inlined or released */
    tn_arena *arena;               /* the statement's: for optimizing plan */
    uint32_t refs;                 /* TN_PLAN_CTE leaves pointing here */
    bool held;                     /* the binder's WITH frame still holds it */
    bool optimized;
    void *result;                  /* the computed rows (a tn_collection, exec.c) */
    void (*result_free)(void *result);
    uint64_t result_rows;
} tn_plan_cte;

/* A new leaf for def (refs + 1), with def's output columns. */
tn_plan *tn_plan_cte_leaf(tn_arena *arena, tn_plan_cte *def);
/* Drops one leaf's (leaf) or the binder's hold on def; the last one frees plan and rows. */
void tn_plan_cte_release(tn_plan_cte *def, bool leaf);

struct tn_plan {
    tn_plan_kind kind;
    uint32_t ncols;
    tn_type *types;
    const char **names;
    tn_plan *child[2];
    double est_rows;               /* estimate for join ordering */
    union {
        tn_plan_scan scan;
        struct {
            uint32_t nrows;
            tn_expr **exprs;       /* nrows * ncols, evaluated over one empty row */
            /* range()/generate_series() (bind_range.c): one column, no exprs. BIGINT rows
             * start + i*step for i < count; TIMESTAMP rows start, start+iv, ... while before
             * (or, inclusive, not after) stop in the step's direction. */
            bool is_range, range_ts, range_inclusive;
            int64_t range_start, range_step, range_stop;
            uint64_t range_count;
            tn_interval range_iv;
        } values;
        struct {
            tn_expr *pred;
            uint32_t *out_cols;    /* columns passed on after filtering; NULL = all */
            uint32_t nout;
        } filter;
        struct {
            tn_expr **exprs;       /* ncols */
        } project;
        struct {
            uint32_t ngroups;
            tn_expr **groups;
            uint32_t naggs;
            tn_plan_agg *aggs;
        } agg;
        struct {
            tn_join_kind kind;
            tn_expr *cond;         /* before key extraction (over left ++ right), or NULL */
            uint32_t nkeys;
            tn_expr **lkeys;       /* over the left columns */
            tn_expr **rkeys;       /* over the right columns */
            tn_expr *residual;     /* over left ++ right, or NULL */
            bool build_left;       /* build the hash table on the left input (INNER, SEMI, ANTI) */
        } join;
        struct {
            uint32_t nkeys;
            uint32_t *keys;        /* input column indexes */
            bool *desc;
            bool *nulls_first;
            int64_t limit;         /* -1: sort everything */
            int64_t offset;
        } sort;
        struct {
            int64_t limit;         /* -1: none */
            int64_t offset;
        } limit;
        struct {
            tn_setop_kind op;
            bool all;
        } setop;
        struct {
            uint32_t nfuncs;
            tn_plan_window_func *funcs;
        } window;
        /* Each input row becomes max(length of its lists) rows (0 for NULL and empty lists);
         * a shorter list's columns are NULL past its end (DuckDB's unnest, op_unnest.c). */
        struct {
            uint32_t n;
            tn_expr **exprs;       /* LIST-typed, over the input columns */
            uint8_t *modes;        /* tn_unnest_mode */
        } unnest;
        struct {
            tn_plan_cte *def;
        } cte;
    } u;
    /* EXPLAIN ANALYZE counters (filled by the executor). */
    uint64_t rows_out;
    uint64_t time_ns;
    uint64_t spilled;              /* bytes the operator wrote to spill files (atomic) */
};

/* Allocate a node of `kind` with ncols output columns (types/names arrays zeroed). */
tn_plan *tn_plan_new(tn_arena *arena, tn_plan_kind kind, uint32_t ncols);
/* Free the expressions and files held by the tree (the nodes themselves are arena memory). */
void tn_plan_free(tn_plan *plan);
/* Replace *slot with a new expression, freeing the old one. */
void tn_plan_set_expr(tn_expr **slot, tn_expr *e);
/* Rewrite the column indexes of e: map[old] = new (every referenced column must map). */
void tn_expr_remap(tn_expr *e, const uint32_t *map);
/* Add the column indexes e references to used[] (bools of size >= max index + 1). */
void tn_expr_columns(const tn_expr *e, bool *used, uint32_t nused);
/* Whether e references only columns in [lo, hi). */
bool tn_expr_columns_within(const tn_expr *e, uint32_t lo, uint32_t hi);
/* Shift every column index by delta. */
void tn_expr_shift(tn_expr *e, int64_t delta);

const char *tn_agg_kind_name(tn_agg_kind kind);
const char *tn_join_kind_name(tn_join_kind kind);
const char *tn_win_kind_name(tn_win_kind kind);
/* Every expression of window function f, in a fixed order (args, default, partition, order);
 * returns the count and stores pointers to the slots in out (room for 2 + npart + norder). */
uint32_t tn_window_func_exprs(tn_plan_window_func *f, tn_expr ***out);

/* Inlines the CTE leaves of p whose definition has one reference and no rows, and optimizes
 * (once) the definitions of the others, setting their estimates (optimize_cte.c). */
int tn_opt_ctes(tn_arena *arena, tn_plan *p);

/* The optimizer (optimize.c): rewrites the tree in place; may allocate nodes in arena. */
int tn_optimize(tn_plan **root, tn_arena *arena);

/* EXPLAIN text of a plan (explain.c); with analyze, rows and time per operator. */
int tn_plan_explain(tn_buf *out, const tn_plan *plan, bool analyze);

#endif
