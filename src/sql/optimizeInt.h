/*
 * sql/optimizeInt.h: what the optimizer's rule files share (private to optimize*.c).
 * optimize_cost.c estimates cardinalities (est_rows of every node, distinct counts of columns,
 * predicate selectivities) from Parquet statistics and default rules; optimize_join_order.c
 * reorders inner-join chains by those estimates. optimize.c drives the passes.
 */
#ifndef TN_SQL_OPTIMIZE_INT_H
#define TN_SQL_OPTIMIZE_INT_H

#include "sql/plan.h"

/* Sets est_rows of p and of every node below it (post-order), from the scans' row counts and
 * statistics, filter selectivities, join keys (or conditions) and group columns. */
void tn_opt_estimate(tn_plan *p);
/* Estimated distinct values of p's output column col (p's est_rows must be set; at least 1,
 * at most est_rows). *known (may be NULL) says whether statistics gave it (an integer or date
 * column's min/max range) rather than the row count. */
double tn_opt_ndv(const tn_plan *p, uint32_t col, bool *known);
/* Selectivity of the equi-join key lk (over l's columns) = rk (over r's): 1 / the larger
 * distinct count; a side without statistics takes its values from the other side's domain. */
double tn_opt_join_sel(const tn_plan *l, const tn_expr *lk, const tn_plan *r, const tn_expr *rk);
/* Fraction of p's output rows for which pred (over p's output columns) is true. */
double tn_opt_selectivity(const tn_plan *p, const tn_expr *pred);
/* Whether e is `a = b` (the built-in equality). */
bool tn_opt_is_eq(const tn_expr *e);

/* `CAST(date AS TIMESTAMP) OP timestamp-constant` in filters and join conditions becomes a
 * comparison of the date with a date constant (same results; optimize_date_cast.c), so both
 * bounds of a `date + interval` range reach the scan and its statistics. */
int tn_opt_date_casts(tn_plan *p);

/* Cost-based order of inner-join chains below *slot (after filter pushdown and
 * tn_opt_estimate, before join keys are extracted). Outer, semi and anti joins stay where they
 * are (each is a leaf of the chains around it, its inputs reordered on their own). A
 * projection restores the chain's column order when it changes. */
int tn_opt_join_order(tn_arena *arena, tn_plan **slot);

/* Semi-join reduction of aggregates joined on their group keys (optimize_reduce.c): the
 * aggregate's input keeps only rows whose keys occur in a cheap superset of the other side's
 * keys (a copy of its filtered scan). After join ordering, before join keys are extracted. */
int tn_opt_reduce_groups(tn_arena *arena, tn_plan *p);

/* Struct-leaf projection (optimize_leaves.c): a STRUCT column of a Parquet or Delta scan used
 * above only through field accesses is read with just those fields (tn_plan_scan.read_types).
 * Last, after pruning. */
int tn_opt_struct_leaves(tn_arena *arena, tn_plan *root);

#endif
