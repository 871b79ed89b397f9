/*
 * sql/stmt_constraints.c: a table's CHECK constraints (delta.constraints.<name>) and column
 * invariants (delta.invariants) compiled from their stored SQL text into predicates over the
 * table's logical columns, evaluated on every chunk a write adds (the table writer's row_check),
 * and the check of existing rows that ALTER TABLE ... ADD CONSTRAINT makes before it commits.
 * As in Delta, a row satisfies a constraint only when the expression is TRUE (NULL violates),
 * and the error names the constraint, its expression and the failing row's values:
 *
 *   CHECK constraint positive (x > 0) violated by row with values:
 *    - x : -1
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sql/parse.h"
#include "sql/stmt.h"

typedef struct check_item {
    const char *name;              /* constraint name, or the column of an invariant */
    const char *text;              /* SQL text as stored */
    bool invariant;
    tn_expr *pred;
    tn_expr_state *state;
    uint32_t *cols;                /* logical columns the text mentions (for the message) */
    uint32_t ncols;
} check_item;

struct tn_stmt_checks {
    tn_table *t;
    check_item *items;
    uint32_t n;
    pthread_mutex_t mu;            /* the states are not shared between threads */
};

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool mentions(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = text; *p; p++)
        if (tn_str_iequal_n(p, n, name) && (p == text || !ident_char(p[-1])) && !ident_char(p[n])) return true;
    return false;
}

/* Binds `text` (a boolean SQL expression over t's columns) into item. */
static int compile_one(tn_binder *b, tn_table *t, const char *label, check_item *it) {
    uint32_t n = tn_table_num_columns(t);
    const char **names = tn_arena_calloc(b->arena, (n + 1) * sizeof *names);
    tn_type *types = tn_arena_calloc(b->arena, (n + 1) * sizeof *types);
    it->cols = tn_arena_calloc(b->arena, (n + 1) * sizeof *it->cols);
    size_t len = strlen(it->text) + 16;
    char *sql = tn_arena_alloc(b->arena, len);
    if (!names || !types || !it->cols || !sql) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        names[i] = tn_table_column(t, i)->name;
        types[i] = tn_table_column(t, i)->type;
        if (mentions(it->text, names[i])) it->cols[it->ncols++] = i;
    }
    snprintf(sql, len, "SELECT %s", it->text);
    tn_sql_stmt_list list;
    memset(&list, 0, sizeof list);
    const char *what = it->invariant ? "invariant of column" : "CHECK constraint";
    int rc = tn_sql_parse(b->arena, sql, &list);
    if (rc) return tn_error_prefix(rc, "%s %s (%s) of table %s", what, it->name, it->text, label);
    tn_sql_query *q = list.n == 1 && list.stmts[0]->kind == TN_SQL_S_QUERY ? list.stmts[0]->u.query : NULL;
    if (!q || q->kind != TN_SQL_Q_SELECT || q->u.select.n_items != 1 || q->u.select.from)
        return tn_error_set(TN_EINVAL, "%s %s of table %s: '%s' is not one expression", what, it->name, label,
                            it->text);
    bind_scope scope;
    memset(&scope, 0, sizeof scope);
    rc = tn_scope_add(b, &scope, label, n, names, types);
    if (rc) return rc;
    const char *saved_sql = b->sql;
    size_t saved_len = b->sql_len;
    b->sql = sql;
    b->sql_len = strlen(sql);
    bind_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.scope = &scope;
    c.clause = "CHECK";
    rc = tn_bind_pred(&c, q->u.select.items[0].expr, &it->pred);
    b->sql = saved_sql;
    b->sql_len = saved_len;
    if (rc) return tn_error_prefix(rc, "%s %s (%s) of table %s", what, it->name, it->text, label);
    return tn_expr_state_create(it->pred, &it->state);
}

void tn_stmt_checks_free(tn_stmt_checks *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->n; i++) {
        tn_expr_state_free(c->items[i].state);
        tn_expr_free(c->items[i].pred);
    }
    pthread_mutex_destroy(&c->mu);
    tn_free(c->items);
    tn_free(c);
}

static int checks_new(tn_stmt_checks **out, tn_table *t, uint32_t cap) {
    tn_stmt_checks *c = tn_calloc(1, sizeof *c);
    if (!c) return TN_ENOMEM;
    c->items = tn_calloc(cap + 1, sizeof *c->items);
    if (!c->items) {
        tn_free(c);
        return TN_ENOMEM;
    }
    c->t = t;
    pthread_mutex_init(&c->mu, NULL);
    *out = c;
    return 0;
}

int tn_stmt_checks_compile(tn_binder *b, tn_table *t, const char *label, tn_stmt_checks **out) {
    *out = NULL;
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    uint32_t cap = md->nconfiguration + md->ncolumns;
    tn_stmt_checks *c = NULL;
    int rc = checks_new(&c, t, cap);
    if (rc) return rc;
    for (uint32_t i = 0; i < md->nconfiguration && !rc; i++) {
        const tn_delta_kv *kv = &md->configuration[i];
        if (strncmp(kv->key, "delta.constraints.", 18) != 0 || !kv->key[18] || !kv->value) continue;
        check_item *it = &c->items[c->n++];
        it->name = kv->key + 18;
        it->text = kv->value;
        rc = compile_one(b, t, label, it);
    }
    for (uint32_t i = 0; i < md->ncolumns && !rc; i++) {
        if (!md->columns[i].invariant) continue;
        check_item *it = &c->items[c->n++];
        it->name = md->columns[i].name;
        it->text = md->columns[i].invariant;
        it->invariant = true;
        rc = compile_one(b, t, label, it);
    }
    if (rc || c->n == 0) {
        tn_stmt_checks_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

int tn_stmt_checks_compile_one(tn_binder *b, tn_table *t, const char *label, const char *name, const char *expr,
                               tn_stmt_checks **out) {
    *out = NULL;
    tn_stmt_checks *c = NULL;
    int rc = checks_new(&c, t, 1);
    if (rc) return rc;
    c->items[0].name = name;
    c->items[0].text = expr;
    c->n = 1;
    rc = compile_one(b, t, label, &c->items[0]);
    if (rc) {
        tn_stmt_checks_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* The Delta message for row `row` of chunk violating it. */
static int violation(const tn_stmt_checks *c, const check_item *it, const tn_chunk *chunk, uint32_t row) {
    tn_buf m = TN_BUF_INIT;
    int rc = it->invariant ? tn_buf_printf(&m, "Invariant (%s) violated for column: %s, by row with values:", it->text,
                                           it->name)
                           : tn_buf_printf(&m, "CHECK constraint %s (%s) violated by row with values:", it->name,
                                           it->text);
    for (uint32_t k = 0; k < it->ncols && !rc; k++) {
        uint32_t col = it->cols[k];
        if (col >= chunk->ncols) continue;
        rc = tn_buf_printf(&m, "\n - %s : ", tn_table_column(c->t, col)->name);
        if (rc) break;
        if (!tn_vector_is_valid(&chunk->cols[col], row)) rc = tn_buf_printf(&m, "null");
        else rc = tn_value_format(&m, &chunk->cols[col], row) < 0 ? TN_ENOMEM : 0;
    }
    if (!rc) rc = tn_error_set(TN_ECONSTRAINT, "%.*s", (int)m.len, m.data ? (const char *)m.data : "");
    tn_buf_free(&m);
    return rc;
}

/* Evaluates every item on chunk; *bad (when not NULL) counts the violating rows of the first
 * item instead of failing. */
static int run(tn_stmt_checks *c, const tn_chunk *chunk, uint64_t *bad) {
    int rc = 0;
    tn_vector out;
    if (chunk->count == 0) return 0;
    rc = tn_vector_init(&out, tn_type_make(TN_TYPE_BOOLEAN), chunk->count);
    if (rc) return rc;
    pthread_mutex_lock(&c->mu);
    for (uint32_t i = 0; i < c->n && !rc; i++) {
        check_item *it = &c->items[i];
        rc = tn_expr_eval(it->pred, chunk, &out, it->state);
        if (rc) break;
        const uint8_t *v = out.data;
        for (uint32_t r = 0; r < chunk->count; r++) {
            if (tn_vector_is_valid(&out, r) && v[r]) continue;
            if (bad) {
                (*bad)++;
                continue;
            }
            rc = violation(c, it, chunk, r);
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    tn_vector_free(&out);
    return rc;
}

int tn_stmt_checks_run(void *ctx, const tn_chunk *chunk) { return run(ctx, chunk, NULL); }

typedef struct count_ctx {
    tn_stmt_checks *c;
    uint64_t bad;
} count_ctx;

static int count_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    count_ctx *cc = ctx;
    return run(cc->c, chunk, &cc->bad);
}

int tn_stmt_checks_count_violations(tn_stmt_checks *c, tn_table *t, uint64_t *out) {
    *out = 0;
    tn_table_scan *scan = NULL;
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    so.all_columns = true;
    int rc = tn_table_scan_open(&scan, t, &so);
    if (rc) return rc;
    count_ctx cc = {c, 0};
    rc = tn_table_scan_run(scan, count_chunk, &cc);
    tn_table_scan_close(scan);
    *out = cc.bad;
    return rc;
}
