/*
 * sql/approx.c: approximate answers with error bounds, BlinkDB's
 *
 *     SELECT origin, avg(delay), count(*) FROM t [WHERE ...] [GROUP BY ...] [ORDER BY ...] [LIMIT n]
 *     ERROR WITHIN 2% AT CONFIDENCE 95%
 *
 * on a qbeast (OTree) table. The OTree's weights are a uniform hash of the indexed columns, so
 * `TABLESAMPLE (p PERCENT)` on it is a Bernoulli sample at rate f = p/100 whose row set grows
 * with f (the rows of a smaller f are among those of a larger one) and which reads about f of
 * the table. The statement runs as rounds of its own SELECT with a sample: the first fraction is
 * the smallest at which one group's count could meet the bound (z^2 / e^2 rows of the table's),
 * each further one is what the worst estimate of the round before asks for (from its count and
 * variance), until every estimate of every row the query returns is within the bound or the
 * whole table was read (exact answers). Per group, with n sampled rows, sum S, population
 * variance v of the sampled values and z the two-sided normal quantile of the confidence:
 *
 *     count  n/f            +- z sqrt(n (1-f)) / f
 *     sum    S/f            +- z sqrt((1-f) sum x^2) / f       (Horvitz-Thompson, Bernoulli)
 *     avg    S/n            +- z sqrt((1-f) s^2 / n)          (s^2 = v n/(n-1))
 *
 * The bound is relative: the half-width of each interval at most e * |estimate|. Each
 * aggregate column is followed at the end of the result by `<name>_low` and `<name>_high` (the
 * interval), and the last column `sampled_fraction` is the fraction of the table sampled.
 * What can be bounded this way is count, sum and avg (also with FILTER), each its own select
 * item; the other select items are the group keys. Everything else is refused by name.
 */
#include <math.h>
#include <string.h>

#include "sql/functions.h"
#include "sql/stmt.h"

typedef enum ax_kind { AX_KEY, AX_COUNT, AX_SUM, AX_AVG } ax_kind;

typedef struct ax_item {
    ax_kind kind;
    uint32_t ncol, vcol;           /* hidden count(x) / var_pop(x) columns (sum, avg) */
} ax_item;

typedef struct ax_query {
    tn_binder *b;
    tn_sql_query *q;
    tn_sql_select *sel;
    tn_sql_tableref *from;
    uint32_t nitems, naggs, ncols;  /* select items as written; columns of a round's result */
    ax_item *items;
    double e, z;                   /* relative error bound (fraction), normal quantile */
} ax_query;

/* z with P(|Z| <= z) = c for a standard normal Z (bisection on erf; c in (0, 1)). */
static double normal_quantile(double c) {
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (erf(mid / sqrt(2.0)) < c) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

static int refuse(ax_query *a, tn_sql_pos pos, const char *what) {
    return tn_bind_error_code(a->b, TN_EUNSUPPORTED, pos, "ERROR WITHIN ... AT CONFIDENCE: %s", what);
}

/* The query's shape: one SELECT over one table; items are keys or count/sum/avg calls. */
static int classify(ax_query *a) {
    tn_sql_query *q = a->q;
    if (q->kind != TN_SQL_Q_SELECT)
        return refuse(a, q->error_pos, "needs one SELECT over a qbeast table (not UNION, INTERSECT, EXCEPT or VALUES)");
    tn_sql_select *s = &q->u.select;
    a->sel = s;
    if (q->n_ctes) return refuse(a, q->pos, "WITH is not supported with it (name the qbeast table in FROM)");
    if (!s->from || s->from->kind != TN_SQL_T_TABLE)
        return refuse(a, s->from ? s->from->pos : q->error_pos,
                      "needs a single qbeast table in FROM (no joins, subqueries or table functions)");
    a->from = s->from;
    if (s->from->sample)
        return refuse(a, s->from->sample->pos, "chooses the sample itself: remove the TABLESAMPLE clause");
    if (s->distinct) return refuse(a, q->pos, "SELECT DISTINCT is not supported with it");
    if (s->having)
        return refuse(a, s->having->pos, "HAVING is not supported with it (it would filter groups on sampled values)");
    if (s->n_windows) return refuse(a, q->pos, "WINDOW is not supported with it");
    a->nitems = (uint32_t)s->n_items;
    a->items = tn_arena_calloc(a->b->arena, (size_t)s->n_items * sizeof *a->items + 1);
    if (!a->items) return TN_ENOMEM;
    for (int i = 0; i < s->n_items; i++) {
        tn_sql_expr *e = s->items[i].expr;
        if (e->kind == TN_SQL_E_FUNCTION && !e->u.func.over && tn_bind_is_agg_name(tn_bind_func_name(e))) {
            const char *name = tn_bind_func_name(e);
            ax_kind k = tn_str_iequal(name, "count") ? AX_COUNT
                        : tn_str_iequal(name, "sum") ? AX_SUM
                        : tn_str_iequal(name, "avg") || tn_str_iequal(name, "mean") ? AX_AVG : AX_KEY;
            if (k == AX_KEY)
                return tn_bind_error_code(a->b, TN_EUNSUPPORTED, e->pos, "ERROR WITHIN ... AT CONFIDENCE: %s() cannot "
                                          "be bounded from a sample (count, sum and avg can)", name);
            if (e->u.func.distinct)
                return tn_bind_error_code(a->b, TN_EUNSUPPORTED, e->pos, "ERROR WITHIN ... AT CONFIDENCE: %s(DISTINCT "
                                          "...) cannot be estimated from a sample (count, sum and avg can)", name);
            if (k != AX_COUNT && (e->u.func.args.n != 1 || e->u.func.star))
                return tn_bind_error(a->b, e->pos, "%s takes one argument", name);
            a->items[i].kind = k;
            a->naggs++;
        } else if (tn_bind_contains_agg(e)) {
            return refuse(a, e->pos, "each aggregate must be a select item of its own (count, sum or avg, "
                                     "optionally AS name), not part of an expression");
        } else if (tn_bind_contains_window(e)) {
            return refuse(a, e->pos, "window functions are not supported with it");
        }
    }
    if (!a->naggs) return refuse(a, q->error_pos, "needs an aggregate to estimate (count, sum or avg)");
    return 0;
}

/* A copy of the call e under another aggregate name (same argument and FILTER). */
static tn_sql_expr *renamed_call(tn_arena *arena, const tn_sql_expr *e, const char *name) {
    tn_sql_expr *c = tn_arena_alloc(arena, sizeof *c);
    tn_sql_ident *part = tn_arena_calloc(arena, sizeof *part);
    if (!c || !part) return NULL;
    *c = *e;
    part->name = name;
    part->pos = e->pos;
    c->u.func.name.parts = part;
    c->u.func.name.n = 1;
    return c;
}

/* The select list of a round: the items as written, then count(x), var_pop(x) per sum / avg. */
static int round_items(ax_query *a, tn_sql_select_item **out) {
    uint32_t n = a->nitems;
    for (uint32_t i = 0; i < a->nitems; i++) n += a->items[i].kind == AX_SUM || a->items[i].kind == AX_AVG ? 2 : 0;
    tn_sql_select_item *it = tn_arena_calloc(a->b->arena, n * sizeof *it);
    if (!it) return TN_ENOMEM;
    memcpy(it, a->sel->items, a->nitems * sizeof *it);
    uint32_t k = a->nitems;
    for (uint32_t i = 0; i < a->nitems; i++) {
        if (a->items[i].kind != AX_SUM && a->items[i].kind != AX_AVG) continue;
        const tn_sql_expr *e = a->sel->items[i].expr;
        a->items[i].ncol = k;
        if (!(it[k++].expr = renamed_call(a->b->arena, e, "count"))) return TN_ENOMEM;
        a->items[i].vcol = k;
        if (!(it[k++].expr = renamed_call(a->b->arena, e, "var_pop"))) return TN_ENOMEM;
    }
    a->ncols = n;
    *out = it;
    return 0;
}

/* A number of a round's result as double; false when NULL. */
static bool num_at(ax_query *a, const tn_chunk *ch, uint32_t col, uint32_t row, double *out) {
    tn_value v, d;
    tn_vector_get_value(&ch->cols[col], row, &v);
    if (v.is_null) return false;
    if (v.type.id == TN_TYPE_DOUBLE) d = v;
    else if (tn_cast_value(&v, tn_type_make(TN_TYPE_DOUBLE), true, a->b->arena, &d) || d.is_null) return false;
    *out = d.u.d;
    return true;
}

/* One estimate of a round at fraction f: the value, the interval's half-width (valid false when
 * there is none) and the fraction that would meet the bound (0 when this one does). */
typedef struct ax_est {
    bool null, valid;
    double value, half, need;
} ax_est;

static ax_est estimate(ax_query *a, const ax_item *it, const tn_chunk *ch, uint32_t col, uint32_t row, double f) {
    ax_est r = {.null = true};
    double z = a->z, e = a->e, x = 0, n = 0, v = 0;
    bool have = num_at(a, ch, col, row, &x);
    if (it->kind == AX_COUNT) {
        n = have ? x : 0;
        r.null = false;
        r.value = f >= 1 ? n : n / f;
    } else {
        if (!num_at(a, ch, it->ncol, row, &n)) n = 0;
        if (!num_at(a, ch, it->vcol, row, &v)) v = 0;
        if (!have) {                         /* no values in the group's sample */
            r.need = f >= 1 ? 0 : fmin(1, 8 * f);
            return r;
        }
        r.null = false;
        r.value = it->kind == AX_AVG || f >= 1 ? x : x / f;
    }
    if (f >= 1) {                            /* the whole table: exact */
        r.valid = true;
        return r;
    }
    double K = -1;                           /* bound met when (1-f)/f <= K */
    if (it->kind == AX_COUNT) {
        r.valid = true;
        r.half = z * sqrt(n * (1 - f)) / f;
        if (n > 0) K = e * e * (n / f) / (z * z);
    } else if (it->kind == AX_SUM) {
        double sq = n * (v + (x / n) * (x / n));          /* sum of squares of the sample */
        r.valid = true;
        r.half = z * sqrt((1 - f) * sq) / f;
        if (x != 0 && sq > 0) K = e * e * (x / f) * (x / f) / (z * z * sq / f);
        else if (x != 0) K = INFINITY;
    } else if (n >= 2) {
        double s2 = v * n / (n - 1);
        r.valid = true;
        r.half = z * sqrt((1 - f) * s2 / n);
        if (x != 0 && s2 > 0) K = e * e * (n / f) * x * x / (z * z * s2);
        else if (x != 0) K = INFINITY;
    }
    if (r.valid && r.half <= e * fabs(r.value) && K != -1) return r;
    r.need = K < 0 ? fmin(1, 8 * f) : fmin(1, 1 / (1 + K));
    if (r.need <= f) r.need = fmin(1, f * 1.5);   /* not met at f: always grow */
    return r;
}

/* The fraction the next round needs (0: every estimate of res meets the bound at f). */
static double next_fraction(ax_query *a, const tn_collection *res, double f) {
    double need = res->nrows == 0 ? fmin(1, 8 * f) : 0;   /* nothing sampled yet: no estimate */
    for (uint32_t c = 0; c < res->nchunks; c++)
        for (uint32_t r = 0; r < res->chunks[c].count; r++)
            for (uint32_t i = 0; i < a->nitems; i++)
                if (a->items[i].kind != AX_KEY) need = fmax(need, estimate(a, &a->items[i], &res->chunks[c], i, r, f).need);
    if (need == 0) return 0;
    need = fmax(need * 1.2, f * 1.5);        /* the estimates of the variance are noisy too */
    return need > 0.7 ? 1 : need;            /* past that, the exact answer costs little more */
}

/* The statement's result from the last round's rows at fraction f. */
static int build_output(ax_query *a, const tn_plan *plan, const tn_collection *res, double f, tn_stmt_output *out) {
    tn_arena *arena = a->b->arena;
    uint32_t nout = a->nitems + 2 * a->naggs + 1;
    const char **names = tn_arena_calloc(arena, (nout + 1) * sizeof *names);
    tn_type *types = tn_arena_calloc(arena, nout * sizeof *types);
    uint32_t *iv = tn_arena_calloc(arena, (a->nitems + 1) * sizeof *iv);   /* item -> its _low column */
    if (!names || !types || !iv) return TN_ENOMEM;
    tn_type dbl = tn_type_make(TN_TYPE_DOUBLE);
    uint32_t k = a->nitems;
    for (uint32_t i = 0; i < a->nitems; i++) {
        names[i] = plan->names[i];
        types[i] = a->items[i].kind == AX_KEY ? plan->types[i]
                   : a->items[i].kind == AX_COUNT ? tn_type_make(TN_TYPE_BIGINT) : dbl;
        if (a->items[i].kind == AX_KEY) continue;
        iv[i] = k;
        names[k] = tn_arena_printf(arena, "%s_low", plan->names[i]);
        names[k + 1] = tn_arena_printf(arena, "%s_high", plan->names[i]);
        if (!names[k] || !names[k + 1]) return TN_ENOMEM;
        types[k] = types[k + 1] = dbl;
        k += 2;
    }
    names[k] = "sampled_fraction";
    types[k] = dbl;
    int rc = tn_stmt_output_init(a->b, out, nout, names, types);
    if (rc) return rc;
    out->has_rows = true;
    tn_chunk o;
    for (uint32_t c = 0; c < res->nchunks; c++) {
        const tn_chunk *ch = &res->chunks[c];
        if (!ch->count) continue;
        if ((rc = tn_chunk_init(&o, nout, types, ch->count))) return rc;
        for (uint32_t r = 0; r < ch->count && !rc; r++) {
            for (uint32_t i = 0; i < a->nitems && !rc; i++) {
                const ax_item *it = &a->items[i];
                if (it->kind == AX_KEY) {
                    rc = tn_vector_copy_row(&o.cols[i], r, &ch->cols[i], r);
                    continue;
                }
                ax_est x = estimate(a, it, ch, i, r, f);
                tn_value v = {.type = types[i], .is_null = x.null};
                if (it->kind == AX_COUNT) v.u.i = llround(x.value);
                else v.u.d = x.value;
                rc = tn_vector_set_value(&o.cols[i], r, &v);
                tn_value lo = {.type = dbl, .is_null = x.null || !x.valid, .u.d = x.value - x.half};
                tn_value hi = {.type = dbl, .is_null = x.null || !x.valid, .u.d = x.value + x.half};
                if (!rc) rc = tn_vector_set_value(&o.cols[iv[i]], r, &lo);
                if (!rc) rc = tn_vector_set_value(&o.cols[iv[i] + 1], r, &hi);
            }
            tn_value fv = {.type = dbl, .u.d = f};
            if (!rc) rc = tn_vector_set_value(&o.cols[nout - 1], r, &fv);
        }
        o.count = ch->count;
        for (uint32_t j = 0; j < nout; j++) o.cols[j].count = ch->count;
        if (!rc) rc = tn_collection_append(&out->rows, &o, NULL, o.count);
        tn_chunk_free(&o);
        if (rc) return rc;
    }
    return 0;
}

/* Rows of the table (from the log's record counts; -1 unknown) and whether it has an OTree. */
static int table_rows(ax_query *a, int64_t *rows) {
    tn_catalog_name cn;
    tn_table *t = NULL;
    int rc = tn_bind_open_table(a->b, &a->from->u.table.name, &cn, &t);
    if (rc) return rc;
    bool impl = false;
    const char *layout = tn_layout_name(t, &impl);
    if (!layout || strcmp(layout, "otree") != 0) {
        tn_table_close(t);
        return tn_bind_error_code(a->b, TN_EUNSUPPORTED, a->from->pos, "ERROR WITHIN ... AT CONFIDENCE needs a table "
                                  "with a sampling index (CREATE TABLE ... USING qbeast, or ALTER TABLE ... SET "
                                  "TBLPROPERTIES ('columnsToIndex' = ...) then OPTIMIZE)");
    }
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    int64_t n = 0;
    for (uint32_t i = 0; i < snap->nfiles && n >= 0; i++) {
        int64_t r = tn_delta_file_num_records(&snap->files[i]);
        n = r < 0 ? -1 : n + r;
    }
    tn_table_close(t);
    *rows = n;
    return 0;
}

/* A round: the SELECT with its extra items and a sample at f (none at f = 1), bound afresh. */
static int run_round(ax_query *a, const tn_binder *b0, tn_sql_stmt *stmt, double f, tn_plan **plan,
                     tn_collection *res) {
    tn_sql_sample *smp = NULL;
    if (f < 1) {
        smp = tn_arena_calloc(a->b->arena, sizeof *smp);
        tn_sql_expr *lit = tn_arena_calloc(a->b->arena, sizeof *lit);
        char *text = tn_arena_printf(a->b->arena, "%.17g", f * 100);
        if (!smp || !lit || !text) return TN_ENOMEM;
        lit->kind = TN_SQL_E_LITERAL;
        lit->pos = a->q->error_pos;
        lit->u.lit.kind = TN_SQL_LIT_FLOAT;
        lit->u.lit.text = text;
        lit->u.lit.len = strlen(text);
        lit->u.lit.float_value = f * 100;
        smp->size = lit;
        smp->pos = a->q->error_pos;
    }
    a->from->sample = smp;
    tn_binder b = *b0;
    bool explain = false, analyze = false;
    int rc = tn_bind_statement(&b, stmt, plan, &explain, &analyze);
    if (!rc && (*plan)->ncols != a->ncols)
        rc = tn_error_set(TN_EINTERNAL, "ERROR WITHIN: a round returned %u columns, not %u", (*plan)->ncols, a->ncols);
    if (!rc) rc = tn_exec_run(b0->ex, *plan, res);
    a->from->sample = NULL;
    return rc;
}

int tn_approx_execute(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    memset(out, 0, sizeof *out);
    tn_sql_query *q = stmt->u.query;
    ax_query a = {.b = b, .q = q, .e = q->error_within / 100, .z = normal_quantile(q->confidence / 100)};
    int rc = classify(&a);
    int64_t rows = 0;
    if (!rc) rc = table_rows(&a, &rows);
    if (rc) return rc;
    /* the AST is the script's (it may run again): the rounds' changes are undone below */
    tn_sql_select_item *items0 = a.sel->items;
    int n0 = a.sel->n_items;
    double err0 = q->error_within;
    tn_sql_select_item *items = NULL;
    rc = round_items(&a, &items);
    if (rc) return rc;
    a.sel->items = items;
    a.sel->n_items = (int)a.ncols;
    q->error_within = 0;
    double f = 1;
    double first = a.z * a.z / (a.e * a.e);  /* rows for one group's count to meet the bound */
    if (rows > 0 && first < (double)rows) f = fmax(first / (double)rows, 1e-6);
    tn_plan *plan = NULL;
    tn_collection res;
    memset(&res, 0, sizeof res);
    for (;;) {
        rc = run_round(&a, b, stmt, f, &plan, &res);
        if (rc) break;
        double next = f >= 1 ? 0 : next_fraction(&a, &res, f);
        if (next == 0) break;
        tn_collection_free(&res);
        tn_plan_free(plan);
        plan = NULL;
        f = next;
    }
    if (!rc) rc = build_output(&a, plan, &res, f, out);
    tn_collection_free(&res);
    tn_plan_free(plan);
    a.sel->items = items0;
    a.sel->n_items = n0;
    q->error_within = err0;
    return rc;
}
