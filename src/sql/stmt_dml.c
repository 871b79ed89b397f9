/*
 * sql/stmt_dml.c: statements that change or move table data: INSERT INTO t [(cols)] VALUES /
 * SELECT, INSERT OVERWRITE t [PARTITION (k = v, ...)] (static partitions; dynamic partition
 * overwrite without them), DELETE FROM t [WHERE] (copy-on-write through tn_table_delete, the
 * bound WHERE evaluated per chunk), COPY t FROM 'file' (append; a CSV header matches columns
 * by name, headerless files and other formats by position) and COPY t / (query) TO 'file'
 * (CSV, Parquet, NDJSON), and the parallel writer sink CREATE TABLE AS shares. Rows are cast to
 * the table's types in a PROJECT over the query; NOT NULL is enforced by the table writer.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/stmt.h"
#include "sql/settings.h"

#include <jansson.h>
#include "text/text.h"

int tn_stmt_bind_query(tn_binder *b, tn_sql_query *q, tn_plan **out) {
    *out = NULL;
    return tn_bind_query(b, q, NULL, out);
}

/* ---------------------------------------------------------------------------------------------
 * The writer sink: every worker writes its chunks into one tn_layout_writer under a mutex (the
 * table's layout places rows into files; table/ rolls files and collects stats).
 */
typedef struct wsink {
    tn_layout_writer *w;
    pthread_mutex_t mu;
    tn_table *t;                  /* NOT NULL columns checked before the writer sees a chunk */
    tn_stmt_checks *checks;       /* CHECK constraints and invariants (NULL: none) */
} wsink;

static int ws_init(tn_sink *s, void **state) {
    (void)s;
    *state = NULL;
    return 0;
}

static void ws_free_local(tn_sink *s, void *state) { (void)s; (void)state; }

static int ws_consume(tn_sink *s, void *state, uint32_t morsel, const tn_chunk *in) {
    (void)state;
    (void)morsel;
    if (in->count == 0) return 0;
    wsink *ws = s->shared;
    for (uint32_t i = 0; i < in->ncols && i < tn_table_num_columns(ws->t); i++) {
        const tn_delta_column *c = tn_table_column(ws->t, i);
        if (!c->nullable && in->cols[i].validity && tn_vector_null_count(&in->cols[i]) > 0)
            return tn_error_set(TN_ECONSTRAINT, "NULL value in column '%s', which is NOT NULL", c->name);
    }
    if (ws->checks) {
        int crc = tn_stmt_checks_run(ws->checks, in);
        if (crc) return crc;
    }
    pthread_mutex_lock(&ws->mu);
    int rc = tn_layout_writer_write(ws->w, in);
    pthread_mutex_unlock(&ws->mu);
    return rc;
}

static int ws_combine(tn_sink *s, void **states, uint32_t n) {
    (void)s;
    (void)states;
    (void)n;
    return 0;
}

static void ws_free_shared(tn_sink *s) {
    wsink *ws = s->shared;
    if (!ws) return;
    pthread_mutex_destroy(&ws->mu);
    tn_free(ws);
    s->shared = NULL;
}

/* Rows written in the query's order (DuckDB's preserve_insertion_order), so that the table
 * reads back in that order: a streaming plan runs in parallel and hands its chunks over in
 * morsel order; an ORDER BY result streams out of its sorted rows (or, when the sort spilled,
 * out of the merge of its runs), so that it need not fit in memory_limit either. */
static int write_in_order(tn_exec *ex, tn_plan *plan, tn_sink *sink) {
    tn_exec_stream *st = NULL;
    int rc = tn_exec_stream_start(&st, ex, plan);
    while (!rc) {
        const tn_chunk *c = NULL;
        rc = tn_exec_stream_next(st, &c);
        if (rc || !c) break;
        rc = ws_consume(sink, NULL, 0, c);
    }
    tn_exec_stream_free(st);
    return rc;
}

int tn_stmt_write_plan(tn_binder *b, tn_table *t, tn_plan *plan, const tn_layout_write_options *opts,
                       tn_table_commit_result *res) {
    tn_layout_writer *w = NULL;
    tn_sink *sink = NULL;
    tn_layout_write_options o = *opts;
    if (!o.memory_limit) o.memory_limit = b->session->memory_limit;
    o.interrupt = b->ex->interrupt;           /* an interrupted write commits nothing */
    o.pool = b->ex->pool;                     /* idle by the time the layout commits */
    tn_stmt_checks *checks = NULL;
    const char *label = strrchr(tn_table_path(t), '/');
    label = label ? label + 1 : tn_table_path(t);
    int rc = tn_optimize(&plan, b->arena);
    /* CHECK constraints and invariants: every chunk is checked before the writer takes it */
    if (!rc) rc = tn_stmt_checks_compile(b, t, label, &checks);
    o.constraints_checked = true;
    if (!rc) rc = tn_layout_writer_open(&w, t, &o);
    if (rc) goto cleanup;
    sink = tn_calloc(1, sizeof *sink);
    wsink *ws = tn_calloc(1, sizeof *ws);
    if (!sink || !ws) {
        tn_free(ws);
        rc = TN_ENOMEM;
        goto cleanup;
    }
    ws->w = w;
    ws->t = t;
    ws->checks = checks;
    pthread_mutex_init(&ws->mu, NULL);
    sink->name = "TABLE_WRITE";
    sink->shared = ws;
    sink->worker_init = ws_init;
    sink->worker_free = ws_free_local;
    sink->consume = ws_consume;
    sink->combine = ws_combine;
    sink->free_shared = ws_free_shared;
    if (tn_exec_streamable(plan) || tn_exec_sort_rooted(plan)) rc = write_in_order(b->ex, plan, sink);
    else rc = tn_exec_run_sink(b->ex, plan, sink);
    if (rc) goto cleanup;
    tn_layout_writer *wc = w;
    w = NULL;
    rc = tn_layout_writer_commit(wc, res);
cleanup:
    if (w) tn_layout_writer_abort(w);
    if (sink) tn_sink_destroy(sink);
    tn_stmt_checks_free(checks);
    tn_plan_free(plan);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Filling every column of the table from a query: target[k] = the table column that query
 * column k fills; static partition columns get their constant; the rest NULL.
 */
typedef struct fill {
    const int *target;            /* ntarget table column indexes */
    uint32_t ntarget;
    const bool *is_static;        /* per table column (NULL: none) */
    const tn_value *sval;
    const char *label;            /* the table's name for messages */
    tn_sql_pos pos;
} fill;

static int fill_plan(tn_binder *b, tn_table *t, const fill *f, tn_plan **plan) {
    uint32_t n = tn_table_num_columns(t);
    tn_plan *p = *plan;
    if (p->ncols != f->ntarget)
        return tn_bind_error(b, f->pos, "table %s has %u columns to fill but %u values were supplied", f->label,
                             f->ntarget, p->ncols);
    tn_expr **ex = tn_arena_calloc(b->arena, (n + 1) * sizeof *ex);
    const char **names = tn_arena_calloc(b->arena, (n + 1) * sizeof *names);
    if (!ex || !names) return TN_ENOMEM;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        names[i] = c->name;
        if (c->nested && !tn_type_is_nested(c->type)) {
            rc = tn_bind_error_code(b, TN_EUNSUPPORTED, f->pos, "not supported yet: writing table %s, column '%s' has "
                                    "nested type %s", f->label, c->name, c->type_text);
            break;
        }
        if (f->is_static && f->is_static[i]) {
            rc = tn_expr_constant(&ex[i], &f->sval[i]);
            continue;
        }
        int k = -1;
        for (uint32_t j = 0; j < f->ntarget; j++)
            if (f->target[j] == (int)i) k = (int)j;
        if (k < 0) {
            if (!c->nullable) {
                rc = tn_bind_error_code(b, TN_ECONSTRAINT, f->pos, "column '%s' of table %s is NOT NULL and gets no value",
                                        c->name, f->label);
                break;
            }
            tn_value v;
            memset(&v, 0, sizeof v);
            v.type = c->type;
            v.is_null = true;
            rc = tn_expr_constant(&ex[i], &v);
            continue;
        }
        rc = tn_expr_column(&ex[i], (uint32_t)k, p->types[k]);
        if (!rc && !tn_type_equal(p->types[k], c->type)) {
            rc = tn_expr_cast(&ex[i], ex[i], c->type, false);
            if (rc) {
                ex[i] = NULL;
                char a[64], bt[64];
                rc = tn_bind_error(b, f->pos, "cannot insert %s into column '%s' of type %s (table %s)",
                                   tn_type_format(p->types[k], a, sizeof a), c->name,
                                   tn_type_format(c->type, bt, sizeof bt), f->label);
            }
        }
    }
    if (rc) {
        for (uint32_t i = 0; i < n; i++) tn_expr_free(ex[i]);
        return rc;
    }
    return tn_bind_project(b, p, ex, names, n, plan);
}

static int write_filled(tn_binder *b, tn_table *t, const fill *f, tn_plan *plan, const tn_layout_write_options *wo,
                        tn_table_commit_result *res) {
    int rc = fill_plan(b, t, f, &plan);
    if (rc) {
        tn_plan_free(plan);
        return rc;
    }
    rc = tn_stmt_write_plan(b, t, plan, wo, res);
    if (rc && rc != TN_ENOMEM && rc != TN_EINTERRUPT) tn_error_prefix(rc, "%s into %s", wo->mode == TN_LAYOUT_APPEND ? "INSERT" : "INSERT OVERWRITE",
                                               f->label);
    return rc;
}

/* INSERT INTO t OPTIONS('k' = 'v') hints: per-write options the table's layout honours or
 * refuses. Other hints (BROADCAST, ...) are advice and do not apply to writes. */
static int hint_options(tn_binder *b, const tn_sql_hint *hints, int nhints, tn_layout_write_options *wo) {
    uint32_t n = 0;
    for (int h = 0; h < nhints; h++)
        if (tn_str_iequal(hints[h].name, "options")) n += (uint32_t)hints[h].args.n;
    if (n == 0) return 0;
    tn_delta_kv *kv = tn_arena_calloc(b->arena, sizeof *kv * n);
    if (!kv) return TN_ENOMEM;
    uint32_t k = 0;
    for (int h = 0; h < nhints; h++) {
        if (!tn_str_iequal(hints[h].name, "options")) continue;
        for (int i = 0; i < hints[h].args.n; i++) {
            const tn_sql_option *o = &hints[h].args.items[i];
            if (o->kind == TN_SQL_VALUE_NONE || o->kind == TN_SQL_VALUE_NULL)
                return tn_bind_error(b, o->pos, "write option '%s' needs a value", o->key);
            kv[k].key = o->key;
            kv[k].value = o->value;
            k++;
        }
    }
    wo->options = kv;
    wo->noptions = k;
    return 0;
}

/* A continuous job's batch (sql.h): its txn, and its write options where INSERT's OPTIONS do not
 * give the key. */
static int batch_options(tn_binder *b, const tn_sql_batch *bt, tn_layout_write_options *wo) {
    wo->app_id = bt->app_id;
    wo->app_version = bt->app_version;
    if (!bt->nwrite) return 0;
    tn_delta_kv *kv = tn_arena_calloc(b->arena, sizeof *kv * (wo->noptions + bt->nwrite));
    if (!kv) return TN_ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < wo->noptions; i++) kv[k++] = wo->options[i];
    for (uint32_t i = 0; i < bt->nwrite; i++) {
        bool given = false;
        for (uint32_t j = 0; j < wo->noptions; j++) given |= tn_str_iequal(wo->options[j].key, bt->write_keys[i]);
        if (given) continue;
        kv[k].key = bt->write_keys[i];
        kv[k++].value = bt->write_values[i];
    }
    wo->options = kv;
    wo->noptions = k;
    return 0;
}

static const char *qtext(tn_binder *b, const tn_sql_qname *q) {
    char buf[600];
    size_t off = 0;
    buf[0] = 0;
    for (int i = 0; i < q->n && off < sizeof buf - 1; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? "." : "", q->parts[i].name);
    const char *r = tn_arena_strdup(b->arena, buf);
    return r ? r : "?";
}

static bool has_partitions(const tn_table *t) {
    for (uint32_t i = 0; i < tn_table_num_columns(t); i++)
        if (tn_table_column(t, i)->is_partition) return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * INSERT.
 */
int tn_stmt_insert(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.insert) *ins = &stmt->u.insert;
    tn_catalog_name cn;
    tn_table *t = NULL;
    tn_plan *plan = NULL;
    const char *label = qtext(b, &ins->table);
    int rc = tn_bind_open_table(b, &ins->table, &cn, &t);
    if (rc) return rc;
    if (ins->upsert && !tn_table_property(t, "primary-key")) {
        /* UPSERT replaces the row with the same key: a table without one has nothing to replace by */
        rc = tn_bind_error(b, stmt->pos, "UPSERT INTO %s: the table has no primary key (CONSTRAINT name PRIMARY KEY "
                           "(...) at CREATE TABLE); use INSERT INTO", label);
        goto cleanup;
    }
    uint32_t n = tn_table_num_columns(t);
    bool *is_static = tn_arena_calloc(b->arena, n + 1);
    tn_value *sval = tn_arena_calloc(b->arena, (n + 1) * sizeof *sval);
    tn_delta_kv *spec = tn_arena_calloc(b->arena, ((size_t)ins->n_partition + 1) * sizeof *spec);
    int *target = tn_arena_calloc(b->arena, (n + 1) * sizeof *target);
    uint32_t nspec = 0, ntarget = 0;
    if (!is_static || !sval || !spec || !target) { rc = TN_ENOMEM; goto cleanup; }
    for (int i = 0; i < ins->n_partition; i++) {
        const tn_sql_partition_value *pv = &ins->partition[i];
        int idx = tn_table_column_index(t, pv->column.name);
        if (idx < 0 || !tn_table_column(t, (uint32_t)idx)->is_partition) {
            rc = tn_bind_error(b, pv->column.pos, "'%s' is not a partition column of table %s", pv->column.name, label);
            goto cleanup;
        }
        if (!pv->value) continue;     /* PARTITION (dt): dynamic, the query gives it */
        if (is_static[idx]) {
            rc = tn_bind_error(b, pv->column.pos, "partition column '%s' given twice", pv->column.name);
            goto cleanup;
        }
        const tn_delta_column *c = tn_table_column(t, (uint32_t)idx);
        tn_value v;
        rc = tn_bind_const_value(b, pv->value, &v);
        if (rc) goto cleanup;
        rc = tn_cast_value(&v, c->type, false, b->arena, &sval[idx]);
        if (rc) {
            char tb[64];
            rc = tn_bind_error(b, pv->value->pos, "PARTITION value for '%s' does not convert to %s: %s", c->name,
                               tn_type_format(c->type, tb, sizeof tb), tn_error_message());
            goto cleanup;
        }
        sval[idx].type = c->type;
        is_static[idx] = true;
        spec[nspec].key = c->name;
        spec[nspec].value = NULL;
        if (!sval[idx].is_null) {
            tn_buf tb = TN_BUF_INIT;
            rc = tn_value_to_text(&tb, &sval[idx]);
            if (rc == 1) rc = 0;
            if (!rc) spec[nspec].value = tn_arena_strndup(b->arena, tb.data ? (const char *)tb.data : "", tb.len);
            tn_buf_free(&tb);
            if (rc || !spec[nspec].value) { rc = rc ? rc : TN_ENOMEM; goto cleanup; }
        }
        nspec++;
    }
    if (ins->n_columns) {
        for (int k = 0; k < ins->n_columns; k++) {
            int idx = tn_table_column_index(t, ins->columns[k].name);
            if (idx < 0) {
                rc = tn_bind_error(b, ins->columns[k].pos, "column '%s' does not exist in table %s", ins->columns[k].name,
                                   label);
                goto cleanup;
            }
            for (uint32_t j = 0; j < ntarget; j++)
                if (target[j] == idx) {
                    rc = tn_bind_error(b, ins->columns[k].pos, "column '%s' named twice", ins->columns[k].name);
                    goto cleanup;
                }
            if (is_static[idx]) {
                rc = tn_bind_error(b, ins->columns[k].pos, "column '%s' has a value in PARTITION (...) already",
                                   ins->columns[k].name);
                goto cleanup;
            }
            target[ntarget++] = idx;
        }
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (!is_static[i]) target[ntarget++] = (int)i;
    }
    rc = tn_stmt_bind_query(b, ins->query, &plan);
    if (rc) goto cleanup;
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    rc = hint_options(b, ins->hints, ins->n_hints, &wo);
    if (rc) goto cleanup;
    tn_sql_batch *batch = b->session->batch;
    if (batch) {
        rc = batch_options(b, batch, &wo);
        if (rc) goto cleanup;
    } else if (!ins->overwrite && ins->query && ins->query->kind == TN_SQL_Q_SELECT) {
        const char *mode = tn_setting_get(b->session, "execution.runtime-mode");
        if (mode && tn_str_iequal(mode, "streaming")) {
            rc = tn_bind_error_code(b, TN_EUNSUPPORTED, stmt->pos, "INSERT INTO %s ... SELECT in streaming mode is a "
                                    "continuous job: start it with `tarn job start NAME -w WAREHOUSE -c \"<this "
                                    "statement>\"` (SET 'execution.runtime-mode' = 'batch' runs it once)", label);
            goto cleanup;
        }
    }
    if (ins->overwrite) {
        const char *mode = tn_stmt_get_option(b->session, "spark.sql.sources.partitionOverwriteMode");
        if (nspec) {
            wo.mode = TN_LAYOUT_OVERWRITE;
            wo.partition_spec = spec;
            wo.npartition_spec = nspec;
        } else if (has_partitions(t) && !(mode && tn_str_iequal(mode, "static"))) {
            wo.mode = TN_LAYOUT_OVERWRITE_DYNAMIC;
        } else {
            wo.mode = TN_LAYOUT_OVERWRITE;
        }
    }
    fill f = {target, ntarget, is_static, sval, label, ins->query->pos};
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    tn_plan *p = plan;
    plan = NULL;
    rc = write_filled(b, t, &f, p, &wo, &res);
    if (rc) {
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    if (batch) {
        batch->version = res.version;
        batch->skipped = res.skipped;
        batch->rows_written = res.rows_written;
    }
    rc = tn_stmt_output_count(b, out, "count", (int64_t)res.rows_written);
cleanup:
    tn_plan_free(plan);
    tn_table_close(t);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * DELETE.
 */
typedef struct match_ctx {
    const tn_expr *pred;
    tn_expr_state *state;
    pthread_mutex_t mu;
} match_ctx;

static int match_rows(void *ctx, const tn_chunk *chunk, uint8_t *match) {
    match_ctx *m = ctx;
    memset(match, 0, chunk->count);
    if (chunk->count == 0) return 0;
    uint32_t *sel = tn_malloc(chunk->count * sizeof *sel);
    if (!sel) return TN_ENOMEM;
    uint32_t nsel = 0;
    pthread_mutex_lock(&m->mu);
    int rc = tn_expr_filter(m->pred, chunk, sel, &nsel, m->state);
    pthread_mutex_unlock(&m->mu);
    for (uint32_t i = 0; !rc && i < nsel; i++) match[sel[i]] = 1;
    tn_free(sel);
    return rc;
}

/* The text after the statement's top-level WHERE keyword (quotes and comments skipped), trailing
 * blanks and ';' removed; NULL when there is none. */
const char *tn_stmt_where_text(tn_binder *b, const char *sql) {
    size_t n = strlen(sql);
    for (size_t i = 0; i < n; i++) {
        char c = sql[i];
        if (c == '\'' || c == '"' || c == '`') {
            for (i++; i < n && sql[i] != c; i++) {}
            continue;
        }
        if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
            while (i < n && sql[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
            const char *e = strstr(sql + i + 2, "*/");
            i = e ? (size_t)(e - sql) + 1 : n;
            continue;
        }
        bool word_start = i == 0 || !(isalnum((unsigned char)sql[i - 1]) || sql[i - 1] == '_');
        if (word_start && tn_str_iequal_n(sql + i, 5, "where") && i + 5 <= n &&
            !(isalnum((unsigned char)sql[i + 5]) || sql[i + 5] == '_')) {
            const char *p = sql + i + 5;
            while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
            char *txt = tn_arena_strdup(b->arena, p);
            if (!txt) return NULL;
            size_t len = strlen(txt);
            while (len && (txt[len - 1] == ';' || txt[len - 1] == ' ' || txt[len - 1] == '\n' || txt[len - 1] == '\t' ||
                           txt[len - 1] == '\r'))
                txt[--len] = 0;
            return txt;
        }
    }
    return NULL;
}

const char *tn_stmt_predicate_json(tn_binder *b, const char *text) {
    json_t *pa = json_array();
    if (pa && text) json_array_append_new(pa, json_string(text));
    char *s = pa ? json_dumps(pa, JSON_COMPACT) : NULL;
    json_decref(pa);
    char *copy = s ? tn_arena_strdup(b->arena, s) : NULL;
    free(s);
    return copy;
}

int tn_stmt_delete(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.delete_) *d = &stmt->u.delete_;
    tn_catalog_name cn;
    tn_table *t = NULL;
    tn_expr *pred = NULL;
    match_ctx m;
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.mu, NULL);
    const char *label = qtext(b, &d->table);
    int rc = tn_bind_open_table(b, &d->table, &cn, &t);
    if (rc) goto cleanup;
    if ((rc = tn_layout_check_delete(t))) {
        tn_error_prefix(rc, "DELETE FROM %s", label);
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    uint32_t n = tn_table_num_columns(t);
    const char **names = tn_arena_calloc(b->arena, (n + 1) * sizeof *names);
    tn_type *types = tn_arena_calloc(b->arena, (n + 1) * sizeof *types);
    if (!names || !types) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < n; i++) {
        names[i] = tn_table_column(t, i)->name;
        types[i] = tn_table_column(t, i)->type;
    }
    tn_table_delete_options o = TN_TABLE_DELETE_OPTIONS_INIT;
    o.interrupt = b->ex->interrupt;
    if (d->where) {
        bind_scope scope;
        memset(&scope, 0, sizeof scope);
        rc = tn_scope_add(b, &scope, d->alias.name ? d->alias.name : cn.name, n, names, types);
        if (rc) goto cleanup;
        bind_ctx c;
        memset(&c, 0, sizeof c);
        c.b = b;
        c.scope = &scope;
        c.clause = "WHERE";
        rc = tn_bind_pred(&c, d->where, &pred);
        if (rc) goto cleanup;
        rc = tn_expr_state_create(pred, &m.state);
        if (rc) goto cleanup;
        m.pred = pred;
        tn_table_filter *filters = NULL;
        uint32_t nf = 0;
        rc = tn_bind_table_filters(b, t, pred, &filters, &nf);
        if (rc) goto cleanup;
        o.filters = filters;
        o.nfilters = nf;
        o.match = match_rows;
        o.match_ctx = &m;
        /* the WHERE text for commitInfo.operationParameters.predicate */
        o.predicate_text = tn_stmt_where_text(b, stmt->text);
    }
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    rc = tn_table_delete(t, &o, &res);
    if (rc) {
        if (rc != TN_ENOMEM && rc != TN_EINTERRUPT) tn_error_prefix(rc, "DELETE FROM %s", label);
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    rc = tn_stmt_output_count(b, out, "count", (int64_t)res.rows_deleted);
cleanup:
    tn_expr_state_free(m.state);
    tn_expr_free(pred);
    pthread_mutex_destroy(&m.mu);
    tn_table_close(t);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * OPTIMIZE.
 */
typedef struct optimize_files {
    const tn_delta_file *files;        /* the snapshot's */
    uint32_t nfiles;
    uint8_t *match;                    /* per file: the WHERE holds on its partition values */
} optimize_files;

static bool optimize_file_filter(void *ctx, const tn_delta_file *f) {
    const optimize_files *m = ctx;
    if (f < m->files || f >= m->files + m->nfiles) return false;
    return m->match[f - m->files] != 0;
}

/* OPTIMIZE t WHERE pred: pred may reference partition columns only (Delta's rule and message);
 * it is evaluated on every snapshot file's partition values into m->match. */
static int optimize_where(tn_binder *b, tn_sql_stmt *stmt, tn_table *t, const char *name, optimize_files *m) {
    __typeof__(stmt->u.optimize) *o = &stmt->u.optimize;
    uint32_t n = tn_table_num_columns(t);
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const char **names = tn_arena_calloc(b->arena, (n + 1) * sizeof *names);
    tn_type *types = tn_arena_calloc(b->arena, (n + 1) * sizeof *types);
    bool *used = tn_arena_calloc(b->arena, (n + 1) * sizeof *used);
    m->files = snap->files;
    m->nfiles = snap->nfiles;
    m->match = tn_arena_calloc(b->arena, (size_t)snap->nfiles + 1);
    if (!names || !types || !used || !m->match) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        names[i] = tn_table_column(t, i)->name;
        types[i] = tn_table_column(t, i)->type;
    }
    bind_scope scope;
    memset(&scope, 0, sizeof scope);
    int rc = tn_scope_add(b, &scope, name, n, names, types);
    if (rc) return rc;
    bind_ctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.scope = &scope;
    c.clause = "WHERE";
    tn_expr *pred = NULL;
    tn_expr_state *state = NULL;
    uint32_t *sel = NULL;
    tn_chunk ch;
    memset(&ch, 0, sizeof ch);
    rc = tn_bind_pred(&c, o->where, &pred);
    if (rc) return rc;
    tn_expr_columns(pred, used, n);
    for (uint32_t i = 0; i < n; i++) {
        if (!used[i] || tn_table_column(t, i)->is_partition) continue;
        tn_buf parts = TN_BUF_INIT;
        for (uint32_t k = 0; k < n; k++)
            if (tn_table_column(t, k)->is_partition) tn_buf_printf(&parts, "%s%s", parts.len ? ", " : "", names[k]);
        rc = tn_bind_error(b, o->where->pos, "Predicate references non-partition column '%s'. Only the partition "
                           "columns may be referenced: [%s]", names[i], parts.len ? (const char *)parts.data : "");
        tn_buf_free(&parts);
        goto cleanup;
    }
    rc = tn_expr_state_create(pred, &state);
    if (!rc) rc = tn_chunk_init(&ch, n, types, TN_VECTOR_SIZE);
    sel = tn_malloc(sizeof *sel * TN_VECTOR_SIZE);
    if (!rc && !sel) rc = TN_ENOMEM;
    for (uint32_t first = 0; first < snap->nfiles && !rc; first += TN_VECTOR_SIZE) {
        uint32_t cnt = snap->nfiles - first < TN_VECTOR_SIZE ? snap->nfiles - first : TN_VECTOR_SIZE;
        tn_chunk_reset(&ch);
        for (uint32_t col = 0; col < n && !rc; col++) {
            const tn_delta_column *ci = tn_table_column(t, col);
            for (uint32_t r = 0; r < cnt && !rc; r++) {
                bool is_null = true;
                const char *txt = ci->is_partition ? tn_delta_partition_value(snap, &snap->files[first + r], ci->name,
                                                                              &is_null) : NULL;
                tn_value v;
                if (!ci->is_partition || is_null) {
                    rc = tn_vector_set_null(&ch.cols[col], r);
                    continue;
                }
                rc = tn_table_partition_value_parse(&v, ci->type, txt);
                if (!rc) rc = tn_vector_set_value(&ch.cols[col], r, &v);
            }
            ch.cols[col].count = cnt;
        }
        ch.count = cnt;
        uint32_t nsel = 0;
        if (!rc) rc = tn_expr_filter(pred, &ch, sel, &nsel, state);
        for (uint32_t i = 0; !rc && i < nsel; i++) m->match[first + sel[i]] = 1;
    }
cleanup:
    tn_free(sel);
    tn_chunk_free(&ch);
    tn_expr_state_free(state);
    tn_expr_free(pred);
    return rc;
}

/* OPTIMIZE t WHERE ... on an OTree table: a conjunction of `fraction <= f` (or `<`, 0 < f <= 1)
 * and `revision = n` (n >= 0), qbeast's optimize(revisionID, fraction); anything else is refused
 * at its position. */
static bool opt_is_name(const tn_sql_expr *e, const char *name) {
    return e->kind == TN_SQL_E_COLUMN && e->u.column.n == 1 && tn_str_iequal(e->u.column.parts[0].name, name);
}

static int optimize_otree_where(tn_binder *b, const tn_sql_expr *e, const char *label, tn_layout_write_options *wo) {
    if (e->kind == TN_SQL_E_BINARY && e->u.binary.op == TN_SQL_OP_AND) {
        int rc = optimize_otree_where(b, e->u.binary.left, label, wo);
        return rc ? rc : optimize_otree_where(b, e->u.binary.right, label, wo);
    }
    const tn_sql_expr *l = e->kind == TN_SQL_E_BINARY ? e->u.binary.left : NULL;
    const tn_sql_expr *r = l ? e->u.binary.right : NULL;
    bool num = r && r->kind == TN_SQL_E_LITERAL &&
               (r->u.lit.kind == TN_SQL_LIT_INTEGER || r->u.lit.kind == TN_SQL_LIT_DECIMAL ||
                r->u.lit.kind == TN_SQL_LIT_FLOAT);
    if (num && opt_is_name(l, "fraction") && (e->u.binary.op == TN_SQL_OP_LE || e->u.binary.op == TN_SQL_OP_LT)) {
        char *end;
        double f = strtod(r->u.lit.text, &end);
        if (*end || !(f > 0 && f <= 1))
            return tn_bind_error(b, r->pos, "OPTIMIZE %s WHERE fraction: %s is not a fraction in (0, 1]", label,
                                 r->u.lit.text);
        wo->otree_select = true;
        wo->otree_fraction = f;
        wo->otree_fraction_strict = e->u.binary.op == TN_SQL_OP_LT;
        return 0;
    }
    if (num && opt_is_name(l, "revision") && e->u.binary.op == TN_SQL_OP_EQ) {
        if (r->u.lit.kind != TN_SQL_LIT_INTEGER || !r->u.lit.fits_int64 || r->u.lit.int_value < 0)
            return tn_bind_error(b, r->pos, "OPTIMIZE %s WHERE revision: %s is not a revision id (an integer >= 0)",
                                 label, r->u.lit.text);
        wo->otree_select = true;
        wo->otree_revision = r->u.lit.int_value;
        return 0;
    }
    return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "OPTIMIZE ... WHERE on qbeast table %s: only "
                              "'fraction <= f' (0 < f <= 1) and 'revision = n', joined by AND, select what to rewrite "
                              "(qbeast's optimize(revision, fraction))", label);
}

int tn_stmt_optimize(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.optimize) *o = &stmt->u.optimize;
    if (o->n_zorder)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, o->zorder[0].pos, "not supported yet: OPTIMIZE ... ZORDER BY");
    tn_catalog_name cn;
    tn_table *t = NULL;
    const char *label = qtext(b, &o->table);
    int rc = tn_bind_open_table(b, &o->table, &cn, &t);
    if (rc) return rc;
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.interrupt = b->ex->interrupt;
    wo.pool = b->ex->pool;
    wo.memory_limit = b->session->memory_limit;   /* what a rewrite may hold (0: the layout's default) */
    optimize_files match;
    tn_delta_kv pred_param;
    bool impl = false;
    const char *layout = tn_layout_name(t, &impl);
    if (o->where && layout && strcmp(layout, "otree") == 0) {
        /* qbeast's optimize(revision, fraction): read from the WHERE before binding (`fraction`
         * and `revision` are no columns) */
        rc = optimize_otree_where(b, o->where, label, &wo);
        if (rc) goto cleanup;
        pred_param.key = "predicate";
        pred_param.value = tn_stmt_predicate_json(b, tn_stmt_where_text(b, stmt->text));
        if (!pred_param.value) { rc = TN_ENOMEM; goto cleanup; }
        wo.operation_parameters = &pred_param;
        wo.noperation_parameters = 1;
    } else if (o->where) {
        rc = optimize_where(b, stmt, t, cn.name, &match);
        if (rc) goto cleanup;
        wo.file_filter = optimize_file_filter;
        wo.file_filter_ctx = &match;
        /* commitInfo.operationParameters.predicate, as Delta writes it: ["<the WHERE text>"] */
        pred_param.key = "predicate";
        pred_param.value = tn_stmt_predicate_json(b, tn_stmt_where_text(b, stmt->text));
        if (!pred_param.value) { rc = TN_ENOMEM; goto cleanup; }
        wo.operation_parameters = &pred_param;
        wo.noperation_parameters = 1;
    }
    tn_delta_kv *kv = tn_arena_calloc(b->arena, ((size_t)o->options.n + 1) * sizeof *kv);
    if (!kv) { rc = TN_ENOMEM; goto cleanup; }
    for (int i = 0; i < o->options.n; i++) {
        kv[i].key = o->options.items[i].key;
        kv[i].value = o->options.items[i].value;
    }
    wo.options = kv;
    wo.noptions = (uint32_t)o->options.n;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    rc = tn_layout_optimize(t, &wo, &res);
    if (rc) {
        if (rc != TN_ENOMEM && rc != TN_EINTERRUPT) tn_error_prefix(rc, "OPTIMIZE %s", label);
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    {
        static const char *names[] = {"files_removed", "files_added"};
        tn_type ty[2] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_BIGINT)};
        rc = tn_stmt_output_init(b, out, 2, names, ty);
        if (rc) goto cleanup;
        tn_chunk c;
        rc = tn_chunk_init(&c, 2, ty, 1);
        if (rc) goto cleanup;
        ((int64_t *)c.cols[0].data)[0] = (int64_t)res.files_removed;
        ((int64_t *)c.cols[1].data)[0] = (int64_t)res.files_added;
        c.count = c.cols[0].count = c.cols[1].count = 1;
        rc = tn_collection_append(&out->rows, &c, NULL, 1);
        tn_chunk_free(&c);
    }
cleanup:
    tn_table_close(t);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * COPY.
 */
typedef enum copy_format { FMT_CSV, FMT_PARQUET, FMT_JSON } copy_format;

typedef struct copy_opts {
    copy_format format;
    int header;                   /* -1 default */
    char delim, quote, escape;
    const char *null_str;
    tn_parquet_codec codec;
    bool has_codec;
    uint64_t row_group_rows;
} copy_opts;

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), n = strlen(suffix);
    return a >= n && tn_str_iequal(s + a - n, suffix);
}

static int opt_bool(tn_binder *b, const tn_sql_option *o, int *out) {
    if (o->kind == TN_SQL_VALUE_NONE) { *out = 1; return 0; }
    const char *v = o->value ? o->value : "";
    if (tn_str_iequal(v, "true") || strcmp(v, "1") == 0 || tn_str_iequal(v, "on")) *out = 1;
    else if (tn_str_iequal(v, "false") || strcmp(v, "0") == 0 || tn_str_iequal(v, "off")) *out = 0;
    else return tn_bind_error(b, o->value_pos, "COPY option %s expects true or false", o->key);
    return 0;
}

static int opt_char(tn_binder *b, const tn_sql_option *o, char *out) {
    const char *v = o->value ? o->value : "";
    if (strcmp(v, "\\t") == 0) { *out = '\t'; return 0; }
    if (strlen(v) != 1) return tn_bind_error(b, o->value_pos, "COPY option %s expects one character", o->key);
    *out = v[0];
    return 0;
}

static int copy_options(tn_binder *b, tn_sql_stmt *stmt, copy_opts *co) {
    const char *path = stmt->u.copy.path;
    memset(co, 0, sizeof *co);
    co->header = -1;
    co->format = ends_with(path, ".parquet") || ends_with(path, ".pq") ? FMT_PARQUET
                 : ends_with(path, ".json") || ends_with(path, ".ndjson") || ends_with(path, ".jsonl") ? FMT_JSON
                                                                                                       : FMT_CSV;
    const tn_sql_options *os = &stmt->u.copy.options;
    for (int i = 0; i < os->n; i++) {
        const tn_sql_option *o = &os->items[i];
        const char *v = o->value ? o->value : "";
        int rc = 0;
        if (tn_str_iequal(o->key, "format")) {
            if (tn_str_iequal(v, "csv")) co->format = FMT_CSV;
            else if (tn_str_iequal(v, "parquet")) co->format = FMT_PARQUET;
            else if (tn_str_iequal(v, "json") || tn_str_iequal(v, "ndjson") || tn_str_iequal(v, "newline_delimited"))
                co->format = FMT_JSON;
            else return tn_bind_error(b, o->value_pos, "unknown COPY format '%s' (csv, parquet, json)", v);
        } else if (tn_str_iequal(o->key, "header")) {
            rc = opt_bool(b, o, &co->header);
        } else if (tn_str_iequal(o->key, "delimiter") || tn_str_iequal(o->key, "delim") || tn_str_iequal(o->key, "sep")) {
            rc = opt_char(b, o, &co->delim);
        } else if (tn_str_iequal(o->key, "quote")) {
            rc = opt_char(b, o, &co->quote);
        } else if (tn_str_iequal(o->key, "escape")) {
            rc = opt_char(b, o, &co->escape);
        } else if (tn_str_iequal(o->key, "null") || tn_str_iequal(o->key, "nullstr")) {
            co->null_str = o->value;
        } else if (tn_str_iequal(o->key, "compression") || tn_str_iequal(o->key, "codec")) {
            co->has_codec = true;
            if (tn_str_iequal(v, "zstd")) co->codec = TN_CODEC_ZSTD;
            else if (tn_str_iequal(v, "snappy")) co->codec = TN_CODEC_SNAPPY;
            else if (tn_str_iequal(v, "gzip")) co->codec = TN_CODEC_GZIP;
            else if (tn_str_iequal(v, "lz4") || tn_str_iequal(v, "lz4_raw")) co->codec = TN_CODEC_LZ4_RAW;
            else if (tn_str_iequal(v, "brotli")) co->codec = TN_CODEC_BROTLI;
            else if (tn_str_iequal(v, "uncompressed") || tn_str_iequal(v, "none")) co->codec = TN_CODEC_UNCOMPRESSED;
            else return tn_bind_error(b, o->value_pos, "unknown compression '%s'", v);
        } else if (tn_str_iequal(o->key, "row_group_size")) {
            long long x = atoll(v);
            if (x <= 0) return tn_bind_error(b, o->value_pos, "ROW_GROUP_SIZE must be a positive number");
            co->row_group_rows = (uint64_t)x;
        } else if (tn_str_iequal(o->key, "partition_by")) {
            return tn_bind_error_code(b, TN_EUNSUPPORTED, o->pos, "not supported yet: COPY ... (PARTITION_BY ...)");
        } else {
            return tn_bind_error(b, o->pos, "unknown COPY option %s", o->key);
        }
        if (rc) return rc;
    }
    return 0;
}

static int sql_quote(tn_buf *out, const char *s) {
    int rc = tn_buf_append_byte(out, '\'');
    for (const char *p = s; *p && !rc; p++) {
        if (*p == '\'') rc = tn_buf_append_byte(out, '\'');
        if (!rc) rc = tn_buf_append_byte(out, (uint8_t)*p);
    }
    if (!rc) rc = tn_buf_append_byte(out, '\'');
    return rc;
}

/* Whether plan reads a CSV file whose first line is a header (given or detected). */
static bool csv_has_header(const tn_plan *plan) {
    while (plan && plan->kind != TN_PLAN_SCAN) plan = plan->child[0];
    return plan && plan->u.scan.format == TN_SCAN_CSV && plan->u.scan.csv_header == 1;
}

/* COPY t FROM a CSV file with a header: target[k] = the table column named like the file's
 * column k (case-insensitive). A file column the table lacks, or a table column the file lacks,
 * is an error naming it. */
static int match_header(tn_binder *b, tn_table *t, const tn_plan *plan, const char *label, const char *path,
                        tn_sql_pos pos, int *target) {
    uint32_t n = tn_table_num_columns(t);
    bool *seen = tn_arena_calloc(b->arena, (size_t)n + 1);
    if (!seen) return TN_ENOMEM;
    for (uint32_t k = 0; k < plan->ncols; k++) {
        int idx = tn_table_column_index(t, plan->names[k]);
        if (idx < 0)
            return tn_bind_error(b, pos, "COPY %s FROM '%s': the file's column \"%s\" (header field %u) is not a "
                                 "column of table %s (HEADER false if the file has no header line)", label, path, plan->names[k], k + 1,
                                 label);
        if (seen[idx])
            return tn_bind_error(b, pos, "COPY %s FROM '%s': the file names column \"%s\" twice", label, path,
                                 plan->names[k]);
        seen[idx] = true;
        target[k] = idx;
    }
    tn_buf missing = TN_BUF_INIT;
    uint32_t nmissing = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && !rc; i++)
        if (!seen[i]) rc = tn_buf_printf(&missing, "%s\"%s\"", nmissing++ ? ", " : "", tn_table_column(t, i)->name);
    if (!rc && nmissing)
        rc = tn_bind_error(b, pos, "COPY %s FROM '%s': the file's header has no column %.*s of table %s "
                           "(name the columns to load: COPY %s (col, ...) FROM ...)", label, path, (int)missing.len,
                           missing.data ? (const char *)missing.data : "", label, label);
    tn_buf_free(&missing);
    return rc;
}

static int copy_from(tn_binder *b, tn_sql_stmt *stmt, const copy_opts *co, tn_stmt_output *out) {
    __typeof__(stmt->u.copy) *cp = &stmt->u.copy;
    tn_catalog_name cn;
    tn_table *t = NULL;
    tn_plan *plan = NULL;
    tn_buf sql = TN_BUF_INIT;
    const char *label = qtext(b, &cp->table);
    int rc = tn_bind_open_table(b, &cp->table, &cn, &t);
    if (rc) return rc;
    const char *fn = co->format == FMT_PARQUET ? "read_parquet" : co->format == FMT_JSON ? "read_json" : "read_csv";
    rc = tn_buf_printf(&sql, "SELECT * FROM %s(", fn);
    if (!rc) rc = sql_quote(&sql, cp->path);
    if (!rc && co->format == FMT_CSV) {
        char c[2] = {0, 0};
        if (co->header >= 0) rc = tn_buf_printf(&sql, ", header = %s", co->header ? "true" : "false");
        if (!rc && co->delim) { c[0] = co->delim; rc = tn_buf_printf(&sql, ", delim = "); if (!rc) rc = sql_quote(&sql, c); }
        if (!rc && co->quote) { c[0] = co->quote; rc = tn_buf_printf(&sql, ", quote = "); if (!rc) rc = sql_quote(&sql, c); }
        if (!rc && co->escape) { c[0] = co->escape; rc = tn_buf_printf(&sql, ", escape = "); if (!rc) rc = sql_quote(&sql, c); }
        if (!rc && co->null_str) { rc = tn_buf_printf(&sql, ", nullstr = "); if (!rc) rc = sql_quote(&sql, co->null_str); }
    }
    if (!rc) rc = tn_buf_printf(&sql, ")");
    if (!rc) rc = tn_buf_append_byte(&sql, 0);
    if (rc) goto cleanup;
    rc = tn_bind_query_text(b, (const char *)sql.data, "COPY FROM", &plan);
    if (rc) {
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    uint32_t n = tn_table_num_columns(t);
    int *target = tn_arena_calloc(b->arena, (n + 1) * sizeof *target);
    uint32_t ntarget = 0;
    if (!target) { rc = TN_ENOMEM; goto cleanup; }
    if (cp->n_columns) {
        for (int k = 0; k < cp->n_columns; k++) {
            int idx = tn_table_column_index(t, cp->columns[k].name);
            if (idx < 0) {
                rc = tn_bind_error(b, cp->columns[k].pos, "column '%s' does not exist in table %s", cp->columns[k].name, label);
                goto cleanup;
            }
            target[ntarget++] = idx;
        }
    } else if (csv_has_header(plan)) {
        /* a header names the file's columns: match them with the table's by name */
        rc = match_header(b, t, plan, label, cp->path, stmt->pos, target);
        if (rc) goto cleanup;
        ntarget = plan->ncols;
    } else {
        for (uint32_t i = 0; i < n; i++) target[ntarget++] = (int)i;
    }
    if (plan->ncols != ntarget) {
        rc = tn_bind_error(b, stmt->pos, "COPY %s FROM '%s': the file has %u columns, the table %u", label, cp->path,
                           plan->ncols, ntarget);
        goto cleanup;
    }
    fill f = {target, ntarget, NULL, NULL, label, stmt->pos};
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.operation = "COPY INTO";
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    tn_plan *p = plan;
    plan = NULL;
    rc = write_filled(b, t, &f, p, &wo, &res);
    if (rc) {
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    rc = tn_stmt_output_count(b, out, "count", (int64_t)res.rows_written);
cleanup:
    tn_buf_free(&sql);
    tn_plan_free(plan);
    tn_table_close(t);
    return rc;
}

/* Writes rows to path (a new file); on failure (an interrupt included) the partial file is
 * removed. */
static int write_file_to(tn_exec *ex, const copy_opts *co, const char *path, const tn_collection *rows,
                         const char *const *names, const tn_type *types) {
    tn_fs *fs = tn_fs_default();
    uint32_t n = rows->ncols;
    int rc = 0;
    bool opened = false;
    if (co->format == FMT_CSV) {
        tn_csv_writer *w = NULL;
        tn_csv_write_options o = TN_CSV_WRITE_OPTIONS_INIT;
        if (co->delim) o.delimiter = co->delim;
        if (co->quote) o.quote = co->quote;
        if (co->header == 0) o.header = false;
        o.null_string = co->null_str;
        rc = tn_csv_writer_open(&w, fs, path, n, names, types, &o);
        for (uint32_t i = 0; !rc && i < rows->nchunks; i++)
            if (!(rc = tn_exec_check(ex))) rc = tn_csv_writer_write(w, &rows->chunks[i]);
        if (w) {
            opened = true;
            int crc = tn_csv_writer_close(w);
            if (!rc) rc = crc;
        }
    } else if (co->format == FMT_JSON) {
        tn_ndjson_writer *w = NULL;
        rc = tn_ndjson_writer_open(&w, fs, path, n, names, types);
        for (uint32_t i = 0; !rc && i < rows->nchunks; i++)
            if (!(rc = tn_exec_check(ex))) rc = tn_ndjson_writer_write(w, &rows->chunks[i]);
        if (w) {
            opened = true;
            int crc = tn_ndjson_writer_close(w);
            if (!rc) rc = crc;
        }
    } else {
        tn_parquet_column_spec *specs = tn_calloc(n + 1, sizeof *specs);
        if (!specs) return TN_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            specs[i].name = names[i];
            specs[i].type = types[i];
            specs[i].nullable = true;
            specs[i].field_id = -1;
        }
        tn_parquet_writer_options o = TN_PARQUET_WRITER_OPTIONS_INIT;
        if (co->has_codec) o.codec = co->codec;
        if (co->row_group_rows) o.row_group_rows = co->row_group_rows;
        tn_parquet_writer *w = NULL;
        rc = tn_parquet_writer_open(&w, fs, path, specs, n, &o);
        for (uint32_t i = 0; !rc && i < rows->nchunks; i++)
            if (!(rc = tn_exec_check(ex))) rc = tn_parquet_writer_write(w, &rows->chunks[i]);
        if (w) {
            if (rc) tn_parquet_writer_abort(w);
            else rc = tn_parquet_writer_close(w, NULL);
        }
        tn_free(specs);
    }
    if (rc && opened) {
        tn_error_state saved;
        tn_error_save(&saved);
        fs->unlink(fs, path);
        tn_error_restore(&saved);
    }
    return rc;
}

/* COPY ... TO path appears whole or not at all: the rows go to a temp file beside it
 * (tn_fs_temp_name; temp files killed runs left are removed first, SIGINT/SIGTERM remove this
 * one), which is fsynced and renamed over path, then the directory is fsynced. A failed or
 * killed COPY leaves path as it was. */
static int write_file(tn_exec *ex, const copy_opts *co, const char *path, const tn_collection *rows,
                      const char *const *names, const tn_type *types) {
    tn_fs *fs = tn_fs_default();
    char *tmp = tn_fs_temp_name(path);
    tn_file *f = NULL;
    if (!tmp) return TN_ENOMEM;
    if (tn_fs_temp_cleanup(fs, path, NULL) != 0) tn_error_clear();
    tn_fs_temp_track(tmp);
    int rc = write_file_to(ex, co, tmp, rows, names, types);
    if (!rc) rc = fs->open_read(fs, tmp, &f);
    if (!rc) rc = fs->sync(fs, f);
    if (f) {
        int crc = fs->close(fs, f);
        if (!rc) rc = crc;
    }
    if (!rc) rc = fs->rename(fs, tmp, path);
    if (!rc) {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? tn_strdup(path) : tn_strdup(".");
        if (dir && slash) dir[slash == path ? 1 : slash - path] = '\0';
        if (dir && tn_fs_sync_dir(fs, dir) != 0) tn_error_clear();   /* best effort: the file is whole */
        tn_free(dir);
    } else {
        tn_error_state saved;
        tn_error_save(&saved);
        bool ex_tmp = false;
        if (fs->exists(fs, tmp, &ex_tmp) == 0 && ex_tmp) fs->unlink(fs, tmp);
        tn_error_restore(&saved);
    }
    tn_fs_temp_untrack(tmp);
    tn_free(tmp);
    return rc;
}

static int copy_to(tn_binder *b, tn_sql_stmt *stmt, const copy_opts *co, tn_stmt_output *out) {
    __typeof__(stmt->u.copy) *cp = &stmt->u.copy;
    tn_plan *plan = NULL;
    tn_collection rows;
    memset(&rows, 0, sizeof rows);
    int rc = 0;
    if (cp->query) {
        rc = tn_stmt_bind_query(b, cp->query, &plan);
    } else {
        tn_sql_tableref tr;
        memset(&tr, 0, sizeof tr);
        tr.kind = TN_SQL_T_TABLE;
        tr.pos = cp->table.parts[0].pos;
        tr.u.table.name = cp->table;
        const char *alias = NULL;
        rc = tn_bind_table_name(b, &tr, &plan, &alias);
        if (!rc && cp->n_columns) {
            tn_expr **ex = tn_arena_calloc(b->arena, ((size_t)cp->n_columns + 1) * sizeof *ex);
            const char **names = tn_arena_calloc(b->arena, ((size_t)cp->n_columns + 1) * sizeof *names);
            if (!ex || !names) rc = TN_ENOMEM;
            for (int k = 0; !rc && k < cp->n_columns; k++) {
                int idx = -1;
                for (uint32_t i = 0; i < plan->ncols; i++)
                    if (tn_str_iequal(plan->names[i], cp->columns[k].name)) idx = (int)i;
                if (idx < 0) {
                    rc = tn_bind_error(b, cp->columns[k].pos, "column '%s' does not exist", cp->columns[k].name);
                    break;
                }
                names[k] = plan->names[idx];
                rc = tn_expr_column(&ex[k], (uint32_t)idx, plan->types[idx]);
            }
            if (!rc) rc = tn_bind_project(b, plan, ex, names, (uint32_t)cp->n_columns, &plan);
            else
                for (int k = 0; ex && k < cp->n_columns; k++) tn_expr_free(ex[k]);
        }
    }
    if (!rc) rc = tn_optimize(&plan, b->arena);
    if (!rc) rc = tn_exec_run(b->ex, plan, &rows);
    if (!rc) {
        rc = write_file(b->ex, co, cp->path, &rows, plan->names, plan->types);
        if (rc && rc != TN_EINTERRUPT) rc = tn_bind_error_at(b, tn_error_prefix(rc, "COPY TO '%s'", cp->path), stmt->pos);
    }
    int64_t n = rows.nrows;
    tn_collection_free(&rows);
    tn_plan_free(plan);
    if (rc) return rc;
    return tn_stmt_output_count(b, out, "count", n);
}

int tn_stmt_copy(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    if (stmt->u.copy.stdio)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, stmt->pos,
                                  "COPY %s needs a client that streams the rows (psql's \\copy, a driver's COPY over "
                                  "tarn serve); here, name a file", stmt->u.copy.to ? "TO STDOUT" : "FROM STDIN");
    if (b->session->files_denied)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, stmt->pos,
                                  "COPY %s a file, which this session does not allow (tarn serve --allow-file-access)",
                                  stmt->u.copy.to ? "writes" : "reads");
    copy_opts co;
    int rc = copy_options(b, stmt, &co);
    if (rc) return rc;
    return stmt->u.copy.to ? copy_to(b, stmt, &co, out) : copy_from(b, stmt, &co, out);
}
