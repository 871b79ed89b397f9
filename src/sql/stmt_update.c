/*
 * sql/stmt_update.c: UPDATE t [AS a] SET col = expr, ... [WHERE pred] on a Delta table, one
 * commit through layout/rewrite.c (copy-on-write, or deletion vectors on tables that enable
 * them; change data on CDF tables). Binds the SET expressions and the predicate over the
 * table's columns, and turns each chunk of a candidate file into row decisions and new rows.
 * Shares the row-building helpers (tn_stmt_rows_*) with MERGE (stmt_merge.c).
 */
#include "sql/stmt.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * Row building shared with MERGE: out = kept input rows, then new rows (ALL), or new rows only
 * (CHANGED), with out_is_new marking the new ones.
 */
int tn_stmt_rows_init(tn_stmt_rows *r, tn_table *t) {
    memset(r, 0, sizeof *r);
    uint32_t n = tn_table_num_columns(t);
    tn_type *types = tn_malloc(sizeof *types * (n + 1));
    if (!types) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) types[i] = tn_table_column(t, i)->type;
    int rc = tn_chunk_init(&r->out, n, types, TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&r->fresh, n, types, TN_VECTOR_SIZE);
    tn_free(types);
    r->is_new = tn_malloc(2 * TN_VECTOR_SIZE);
    r->sel = tn_malloc(sizeof(uint32_t) * TN_VECTOR_SIZE);
    if (!rc && (!r->is_new || !r->sel)) rc = TN_ENOMEM;
    r->ready = !rc;
    return rc;
}

void tn_stmt_rows_free(tn_stmt_rows *r) {
    if (r->ready) {
        tn_chunk_free(&r->out);
        tn_chunk_free(&r->fresh);
    }
    tn_free(r->is_new);
    tn_free(r->sel);
    memset(r, 0, sizeof *r);
}

void tn_stmt_rows_reset(tn_stmt_rows *r) {
    tn_chunk_reset(&r->fresh);
    for (uint32_t k = 0; k < r->fresh.ncols; k++) r->fresh.cols[k].count = 0;
    r->fresh.count = 0;
}

/* Appends the rows sel[0..n) of cols (one vector per table column) to the new rows. */
int tn_stmt_rows_add(tn_stmt_rows *r, const tn_vector *const *cols, const uint32_t *sel, uint32_t n) {
    int rc = 0;
    if (r->fresh.count + n > TN_VECTOR_SIZE)
        return tn_error_set(TN_EINTERNAL, "too many new rows for one chunk (%u)", r->fresh.count + n);
    for (uint32_t k = 0; k < r->fresh.ncols && !rc; k++) rc = tn_vector_append_rows(&r->fresh.cols[k], cols[k], sel, n);
    if (!rc) r->fresh.count += n;
    return rc;
}

/* Fills rows->out for the pass: kept rows of chunk (action KEEP) then the new rows. */
int tn_stmt_rows_finish(tn_stmt_rows *r, tn_layout_rewrite_pass pass, const tn_chunk *chunk,
                        tn_layout_rewrite_rows *rows) {
    int rc = 0;
    if (pass == TN_LAYOUT_REWRITE_MATCH) return 0;
    tn_chunk_reset(&r->out);
    uint32_t nkeep = 0;
    if (pass == TN_LAYOUT_REWRITE_ALL)
        for (uint32_t i = 0; i < chunk->count; i++)
            if (rows->action[i] == TN_LAYOUT_ROW_KEEP) r->sel[nkeep++] = i;
    for (uint32_t k = 0; k < r->out.ncols && !rc; k++) {
        tn_vector *d = &r->out.cols[k];
        d->count = 0;
        if (nkeep) rc = tn_vector_append_rows(d, &chunk->cols[k], r->sel, nkeep);
        if (!rc && r->fresh.count) rc = tn_vector_append_rows(d, &r->fresh.cols[k], NULL, r->fresh.count);
    }
    if (rc) return rc;
    r->out.count = nkeep + r->fresh.count;
    memset(r->is_new, 0, nkeep);
    memset(r->is_new + nkeep, 1, r->fresh.count);
    rows->out = &r->out;
    rows->out_is_new = r->is_new;
    return 0;
}

/* Binds `expr` over scope for column `col` of t, cast to the column's type. */
int tn_stmt_bind_set_value(tn_binder *b, bind_scope *scope, tn_table *t, uint32_t col, tn_sql_expr *expr,
                           tn_expr **out) {
    bind_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.scope = scope;
    c.clause = "SET";
    tn_expr *e = NULL;
    int rc = tn_bind_expr(&c, expr, &e);
    if (rc) return rc;
    tn_type want = tn_table_column(t, col)->type;
    if (!tn_type_equal(e->type, want)) {
        tn_expr *cast = NULL;
        rc = tn_expr_cast(&cast, e, want, false);   /* takes e, also on failure */
        if (rc) return rc;
        e = cast;
    }
    *out = e;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * UPDATE.
 */
typedef struct update_ctx {
    uint32_t ncols;
    tn_expr *pred;                     /* NULL: every row */
    tn_expr_state *pred_state;
    tn_expr **set;                     /* per table column: new value, or NULL (unchanged) */
    tn_expr_state **set_state;
    tn_stmt_checks *checks;
    tn_stmt_rows rows;
    tn_chunk matched;                  /* views of the matched rows (strings borrowed) */
    tn_vector *values;                 /* evaluated SET values */
    const tn_vector **cols;
    uint32_t *sel;
} update_ctx;

static int update_rows(void *ctx, tn_layout_rewrite_pass pass, const tn_chunk *chunk, tn_layout_rewrite_rows *rows) {
    update_ctx *u = ctx;
    uint32_t nsel = 0;
    int rc = 0;
    if (u->pred) {
        rc = tn_expr_filter(u->pred, chunk, u->sel, &nsel, u->pred_state);
        if (rc) return rc;
    } else {
        for (uint32_t i = 0; i < chunk->count; i++) u->sel[i] = i;
        nsel = chunk->count;
    }
    for (uint32_t i = 0; i < nsel; i++) rows->action[u->sel[i]] = TN_LAYOUT_ROW_UPDATE;
    if (pass == TN_LAYOUT_REWRITE_MATCH) return 0;
    tn_stmt_rows_reset(&u->rows);
    if (nsel) {
        /* the matched rows, then each SET value over them */
        for (uint32_t k = 0; k < u->ncols && !rc; k++) rc = tn_vector_gather(&u->matched.cols[k], &chunk->cols[k], u->sel, nsel);
        u->matched.count = nsel;
        for (uint32_t k = 0; k < u->ncols && !rc; k++) {
            if (!u->set[k]) {
                u->cols[k] = &u->matched.cols[k];
                continue;
            }
            tn_vector_reset(&u->values[k]);
            rc = tn_expr_eval(u->set[k], &u->matched, &u->values[k], u->set_state[k]);
            u->cols[k] = &u->values[k];
        }
        if (!rc) rc = tn_stmt_rows_add(&u->rows, u->cols, NULL, nsel);
        if (!rc && u->checks) rc = tn_stmt_checks_run(u->checks, &u->rows.fresh);
        if (rc) return rc;
    }
    return tn_stmt_rows_finish(&u->rows, pass, chunk, rows);
}

static void update_free(update_ctx *u) {
    tn_expr_state_free(u->pred_state);
    tn_expr_free(u->pred);
    for (uint32_t k = 0; u->set && k < u->ncols; k++) {
        tn_expr_state_free(u->set_state[k]);
        tn_expr_free(u->set[k]);
        if (u->values) tn_vector_free(&u->values[k]);
    }
    if (u->matched.cols) tn_chunk_free(&u->matched);
    tn_stmt_rows_free(&u->rows);
    tn_stmt_checks_free(u->checks);
    tn_free(u->set);
    tn_free(u->set_state);
    tn_free(u->values);
    tn_free(u->cols);
    tn_free(u->sel);
}

int tn_stmt_update(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.update) *up = &stmt->u.update;
    tn_catalog_name cn;
    tn_table *t = NULL;
    update_ctx u;
    memset(&u, 0, sizeof u);
    const char *label = NULL;
    int rc = tn_bind_open_table(b, &up->table, &cn, &t);
    if (rc) goto cleanup;
    label = cn.name;
    uint32_t n = tn_table_num_columns(t);
    u.ncols = n;
    const char **names = tn_arena_calloc(b->arena, (n + 1) * sizeof *names);
    tn_type *types = tn_arena_calloc(b->arena, (n + 1) * sizeof *types);
    u.set = tn_calloc(n + 1, sizeof *u.set);
    u.set_state = tn_calloc(n + 1, sizeof *u.set_state);
    u.values = tn_calloc(n + 1, sizeof *u.values);
    u.cols = tn_calloc(n + 1, sizeof *u.cols);
    u.sel = tn_malloc(sizeof *u.sel * TN_VECTOR_SIZE);
    if (!names || !types || !u.set || !u.set_state || !u.values || !u.cols || !u.sel) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < n; i++) {
        names[i] = tn_table_column(t, i)->name;
        types[i] = tn_table_column(t, i)->type;
    }
    for (uint32_t i = 0; i < n && !rc; i++) rc = tn_vector_init(&u.values[i], types[i], TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&u.matched, n, types, TN_VECTOR_SIZE);
    if (!rc) rc = tn_stmt_rows_init(&u.rows, t);
    if (rc) goto cleanup;
    bind_scope scope;
    memset(&scope, 0, sizeof scope);
    rc = tn_scope_add(b, &scope, up->alias.name ? up->alias.name : cn.name, n, names, types);
    if (rc) goto cleanup;
    /* SET: each target once, values over the old row */
    for (int i = 0; i < up->n_sets; i++) {
        const tn_sql_ident *id = &up->set_columns[i];
        int ci = tn_table_column_index(t, id->name);
        if (ci < 0) {
            rc = tn_bind_error(b, id->pos, "UPDATE %s: table has no column named '%s'", label, id->name);
            goto cleanup;
        }
        if (u.set[ci]) {
            rc = tn_bind_error(b, id->pos, "UPDATE %s: column '%s' is assigned more than once", label, id->name);
            goto cleanup;
        }
        rc = tn_stmt_bind_set_value(b, &scope, t, (uint32_t)ci, up->set_values[i], &u.set[ci]);
        if (!rc) rc = tn_expr_state_create(u.set[ci], &u.set_state[ci]);
        if (rc) goto cleanup;
    }
    {
        /* the layout's rules (a primary-key table: engine, key columns) before any row is read */
        uint8_t *assigned = tn_arena_calloc(b->arena, n + 1);
        if (!assigned) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < n; i++) assigned[i] = u.set[i] != NULL;
        if ((rc = tn_layout_check_update(t, assigned))) {
            tn_error_prefix(rc, "UPDATE %s", label);
            rc = tn_bind_error_at(b, rc, stmt->pos);
            goto cleanup;
        }
    }
    tn_layout_rewrite_options o = TN_LAYOUT_REWRITE_OPTIONS_INIT;
    if (up->where) {
        bind_ctx c;
        memset(&c, 0, sizeof c);
        c.b = b;
        c.scope = &scope;
        c.clause = "WHERE";
        rc = tn_bind_pred(&c, up->where, &u.pred);
        if (!rc) rc = tn_expr_state_create(u.pred, &u.pred_state);
        tn_table_filter *filters = NULL;
        uint32_t nf = 0;
        if (!rc) rc = tn_bind_table_filters(b, t, u.pred, &filters, &nf);
        if (rc) goto cleanup;
        o.filters = filters;
        o.nfilters = nf;
    }
    rc = tn_stmt_checks_compile(b, t, label, &u.checks);
    if (rc) goto cleanup;
    /* commitInfo.operationParameters.predicate, as Spark writes it: a JSON array of texts */
    tn_delta_kv params[1] = {{"predicate", tn_stmt_predicate_json(b, tn_stmt_where_text(b, stmt->text))}};
    if (!params[0].value) { rc = TN_ENOMEM; goto cleanup; }
    o.operation = "UPDATE";
    o.operation_parameters = params;
    o.noperation_parameters = 1;
    o.rows = update_rows;
    o.ctx = &u;
    o.constraints_checked = true;
    o.interrupt = b->ex->interrupt;
    tn_layout_rewrite_result res;
    rc = tn_layout_rewrite_run(t, &o, &res);
    if (rc) {
        if (rc != TN_ENOMEM && rc != TN_EINTERRUPT) tn_error_prefix(rc, "UPDATE %s", label);
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    rc = tn_stmt_output_count(b, out, "count", (int64_t)res.rows_updated);
cleanup:
    update_free(&u);
    tn_table_close(t);
    return rc;
}
