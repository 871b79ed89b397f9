/*
 * sql/bind_table.c: FROM items that name data of the warehouse: catalog tables (`t`, `s.t`,
 * with `VERSION AS OF n` / `TIMESTAMP AS OF '...'`), views (their stored SELECT bound in place,
 * with column aliases) and `delta_scan('path')` for any Delta table on disk; each table becomes
 * a TN_SCAN_DELTA scan node holding its opened snapshot (op_table_scan.c reads it). Also the
 * simple `column OP constant` conjuncts of a predicate as table filters (DELETE's skipping).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/parse.h"
#include "sql/stmt.h"

static void close_table(void *t) { tn_table_close((tn_table *)t); }

static const char *qname_text(tn_binder *b, const tn_sql_qname *q) {
    char buf[600];
    size_t off = 0;
    buf[0] = 0;
    for (int i = 0; i < q->n && off < sizeof buf - 1; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? "." : "", q->parts[i].name);
    const char *r = tn_arena_strdup(b->arena, buf);
    return r ? r : "?";
}

int tn_bind_catalog_name(tn_binder *b, const tn_sql_qname *q, const char *kind, tn_catalog_name *out) {
    int rc;
    if (q->n == 1) rc = tn_catalog_name_make(out, kind, NULL, q->parts[0].name);
    else if (q->n == 2) rc = tn_catalog_name_make(out, kind, q->parts[0].name, q->parts[1].name);
    else
        return tn_bind_error_code(b, TN_EUNSUPPORTED, q->parts[0].pos,
                                  "not supported yet: catalog-qualified names (%s); use schema.%s",
                                  qname_text(b, q), kind);
    if (rc) return tn_bind_error_at(b, rc, q->parts[0].pos);
    return 0;
}

int tn_bind_table_plan(tn_binder *b, tn_table *t, const char *label, tn_plan **out) {
    *out = NULL;
    uint32_t n = tn_table_num_columns(t);
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_SCAN, n);
    if (!p) {
        tn_table_close(t);
        return TN_ENOMEM;
    }
    tn_plan_scan *s = &p->u.scan;
    s->format = TN_SCAN_DELTA;
    s->source = t;
    s->source_free = close_table;
    *out = p;                        /* tn_plan_free closes the table from here on */
    s->paths = tn_arena_calloc(b->arena, 2 * sizeof *s->paths);
    s->src_names = tn_arena_calloc(b->arena, (n + 1) * sizeof *s->src_names);
    s->src_types = tn_arena_calloc(b->arena, (n + 1) * sizeof *s->src_types);
    s->cols = tn_arena_calloc(b->arena, (n + 1) * sizeof *s->cols);
    if (!s->paths || !s->src_names || !s->src_types || !s->cols) return TN_ENOMEM;
    s->paths[0] = tn_arena_strdup(b->arena, label);
    if (!s->paths[0]) return TN_ENOMEM;
    s->npaths = 1;
    s->nsrc = s->ncols = n;
    for (uint32_t i = 0; i < n; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        s->src_names[i] = tn_arena_strdup(b->arena, c->name);
        if (!s->src_names[i]) return TN_ENOMEM;
        s->src_types[i] = c->nested && !tn_type_is_nested(c->type) ? tn_type_make(TN_TYPE_VARCHAR) : c->type;
        s->cols[i] = i;
    }
    p->types = s->src_types;
    p->names = (const char **)s->src_names;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    int64_t rows = 0;
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        int64_t r = tn_delta_file_num_records(&snap->files[i]);
        if (r < 0) {
            rows = -1;
            break;
        }
        rows += r;
    }
    s->total_rows = rows;
    p->est_rows = rows >= 0 ? (double)rows : 100000.0;
    return 0;
}

int tn_bind_query_text(tn_binder *b, const char *sql, const char *what, tn_plan **out) {
    *out = NULL;
    char *text = tn_arena_strdup(b->arena, sql);
    if (!text) return TN_ENOMEM;
    tn_sql_stmt_list list;
    memset(&list, 0, sizeof list);
    int rc = tn_sql_parse(b->arena, text, &list);
    if (rc) return tn_error_prefix(rc, "%s", what);
    if (list.n != 1 || list.stmts[0]->kind != TN_SQL_S_QUERY)
        return tn_error_set(TN_ECORRUPT, "%s: the stored definition is not one SELECT", what);
    const char *saved_sql = b->sql;
    size_t saved_len = b->sql_len;
    cte_frame *saved_ctes = b->ctes;
    b->sql = text;
    b->sql_len = strlen(text);
    b->ctes = NULL;
    rc = tn_bind_query(b, list.stmts[0]->u.query, NULL, out);
    b->sql = saved_sql;
    b->sql_len = saved_len;
    b->ctes = saved_ctes;
    if (rc && rc != TN_ENOMEM && strncmp(tn_error_message(), "in view ", 8) != 0)
        return tn_error_prefix(rc, "in %s", what);
    if (rc) return rc;
    return 0;
}

int tn_bind_open_table(tn_binder *b, const tn_sql_qname *name, tn_catalog_name *cn, tn_table **out) {
    *out = NULL;
    tn_catalog *cat = NULL;
    int rc = tn_bind_catalog_name(b, name, "table", cn);
    if (rc) return rc;
    rc = tn_stmt_catalog(b, false, &cat);
    if (rc == TN_ENOTFOUND)
        return tn_bind_error_code(b, TN_ENOTFOUND, name->parts[0].pos, "Table with name %s does not exist",
                                  qname_text(b, name));
    if (rc) return tn_bind_error_at(b, rc, name->parts[0].pos);
    bool is_table = false, is_view = false;
    rc = tn_catalog_table_exists(cat, cn, &is_table);
    if (!rc && !is_table) rc = tn_catalog_view_exists(cat, cn, &is_view);
    if (rc) return tn_bind_error_at(b, rc, name->parts[0].pos);
    if (is_view)
        return tn_bind_error(b, name->parts[0].pos, "%s is a view, not a table", qname_text(b, name));
    if (!is_table)
        return tn_bind_error_code(b, TN_ENOTFOUND, name->parts[0].pos, "Table with name %s does not exist",
                                  qname_text(b, name));
    rc = tn_catalog_table_open_found(cat, cn, NULL, out);
    if (rc) return tn_bind_error_at(b, rc, name->parts[0].pos);
    return 0;
}

/* A continuous job's batch may replace a table it reads by the batch's increment (sql.h). */
static int batch_table(tn_binder *b, tn_table **tbl, tn_sql_pos pos) {
    tn_sql_batch *bt = b->session->batch;
    if (!bt || !bt->table) return 0;
    int rc = bt->table(bt->ctx, tbl);
    if (rc) {
        tn_table_close(*tbl);
        *tbl = NULL;
        return tn_bind_error_at(b, rc, pos);
    }
    return 0;
}

/* Dynamic options of a read (Flink/Paimon: a hint comment OPTIONS('k' = 'v') after the table name):
 * 'scan.snapshot-id' = N reads version N (tarn's snapshots are the Delta versions: DESCRIBE
 * HISTORY), 'scan.timestamp-millis' = ms the latest version committed at or before ms, and
 * 'scan.mode' = default | latest | latest-full | from-snapshot | from-snapshot-full |
 * from-timestamp (a batch read of that one snapshot). Other keys and hints are refused by name. */
static int hint_travel(tn_binder *b, const tn_sql_tableref *t, tn_table_open_options *o) {
    const char *mode = NULL;
    tn_sql_pos mode_pos = t->pos;
    bool have_id = false, have_ts = false;
    for (int h = 0; h < t->u.table.n_hints; h++) {
        const tn_sql_hint *hint = &t->u.table.hints[h];
        if (!tn_str_iequal(hint->name, "options"))
            return tn_bind_error_code(b, TN_EUNSUPPORTED, hint->pos, "hint '%s' is not supported after a table name "
                                      "(OPTIONS('key' = 'value') is)", hint->name);
        for (int i = 0; i < hint->args.n; i++) {
            const tn_sql_option *op = &hint->args.items[i];
            if (op->kind == TN_SQL_VALUE_NONE || op->kind == TN_SQL_VALUE_NULL || !op->value)
                return tn_bind_error(b, op->pos, "read option '%s' needs a value", op->key);
            char *end = NULL;
            if (tn_str_iequal(op->key, "scan.snapshot-id") || tn_str_iequal(op->key, "scan.timestamp-millis")) {
                bool id = tn_str_iequal(op->key, "scan.snapshot-id");
                long long v = strtoll(op->value, &end, 10);
                if (!*op->value || *end || v < 0)
                    return tn_bind_error(b, op->value_pos, "read option '%s' = '%s': expected a number >= 0", op->key,
                                         op->value);
                if (id) o->at_version = v, have_id = true;
                else o->has_at_timestamp = true, o->at_timestamp_ms = v, have_ts = true;
            } else if (tn_str_iequal(op->key, "scan.mode")) {
                mode = op->value;
                mode_pos = op->value_pos;
            } else {
                return tn_bind_error_code(b, TN_EUNSUPPORTED, op->pos, "read option '%s' is not supported (supported: "
                                          "'scan.snapshot-id', 'scan.timestamp-millis', 'scan.mode')", op->key);
            }
        }
    }
    if (have_id && have_ts)
        return tn_bind_error(b, t->pos, "read options 'scan.snapshot-id' and 'scan.timestamp-millis' both given");
    if (mode) {
        bool ok = false;
        if (tn_str_iequal(mode, "default")) ok = true;
        else if (tn_str_iequal(mode, "latest") || tn_str_iequal(mode, "latest-full")) ok = !have_id && !have_ts;
        else if (tn_str_iequal(mode, "from-snapshot") || tn_str_iequal(mode, "from-snapshot-full")) ok = have_id;
        else if (tn_str_iequal(mode, "from-timestamp")) ok = have_ts;
        else
            return tn_bind_error_code(b, TN_EUNSUPPORTED, mode_pos, "read option 'scan.mode' = '%s' is not supported "
                                      "(default, latest, latest-full, from-snapshot, from-snapshot-full, "
                                      "from-timestamp)", mode);
        if (!ok)
            return tn_bind_error(b, mode_pos, "read option 'scan.mode' = '%s' does not fit the other scan options "
                                 "(from-snapshot needs 'scan.snapshot-id', from-timestamp 'scan.timestamp-millis', "
                                 "latest neither)", mode);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Snapshot of a transaction: inside BEGIN ... COMMIT every read of a table sees the version its
 * first read in the transaction saw (writes of other sessions after it stay invisible, as in
 * DuckDB's snapshot isolation; the snapshot is per table, taken at its first read).
 */
struct tn_txn_pin {
    char *key;                       /* "schema.table" */
    int64_t version;
};

static bool txn_pin_get(const tn_sql_session *s, const char *key, int64_t *version) {
    for (uint32_t i = 0; i < s->npins; i++)
        if (strcmp(s->pins[i].key, key) == 0) {
            *version = s->pins[i].version;
            return true;
        }
    return false;
}

static int txn_pin_put(tn_sql_session *s, const char *key, int64_t version) {
    if (s->npins == s->pincap) {
        uint32_t cap = s->pincap ? s->pincap * 2 : 4;
        struct tn_txn_pin *n = tn_realloc(s->pins, cap * sizeof *n);
        if (!n) return TN_ENOMEM;
        s->pins = n;
        s->pincap = cap;
    }
    char *k = tn_strdup(key);
    if (!k) return TN_ENOMEM;
    s->pins[s->npins].key = k;
    s->pins[s->npins++].version = version;
    return 0;
}

void tn_bind_txn_pins_free(tn_sql_session *s) {
    for (uint32_t i = 0; i < s->npins; i++) tn_free(s->pins[i].key);
    tn_free(s->pins);
    s->pins = NULL;
    s->npins = s->pincap = 0;
}

/* VERSION AS OF n / TIMESTAMP AS OF '...' (or the read's OPTIONS hint) into open options. */
int tn_bind_travel_options(tn_binder *b, tn_sql_tableref *t, tn_table_open_options *o) {
    if (t->u.table.n_hints) {
        if (t->u.table.travel != TN_SQL_TT_NONE)
            for (int h = 0; h < t->u.table.n_hints; h++)
                for (int i = 0; i < t->u.table.hints[h].args.n; i++)
                    if (tn_str_iequal_n(t->u.table.hints[h].args.items[i].key, 5, "scan."))
                        return tn_bind_error(b, t->pos, "time travel both by VERSION/TIMESTAMP AS OF and by the read "
                                             "option '%s'", t->u.table.hints[h].args.items[i].key);
        int rc = hint_travel(b, t, o);
        if (rc) return rc;
    }
    if (t->u.table.travel == TN_SQL_TT_NONE) return 0;
    tn_sql_expr *e = t->u.table.travel_expr;
    if (t->u.table.travel == TN_SQL_TT_VERSION) {
        int64_t v;
        int rc = tn_bind_const_int(b, e, "VERSION AS OF", &v);
        if (rc) return rc;
        if (v < 0) return tn_bind_error(b, e->pos, "VERSION AS OF must be >= 0");
        o->at_version = v;
        return 0;
    }
    tn_value v;
    int rc = tn_bind_const_value(b, e, &v);
    if (rc) return rc;
    if (v.is_null) return tn_bind_error(b, e->pos, "TIMESTAMP AS OF must not be NULL");
    int64_t ms;
    if (tn_type_is_string(v.type)) {
        char *text = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
        if (!text) return TN_ENOMEM;
        rc = tn_table_parse_timestamp_ms(text, &ms);
        if (rc) return tn_bind_error_at(b, rc, e->pos);
    } else if (v.type.id == TN_TYPE_TIMESTAMP || v.type.id == TN_TYPE_TIMESTAMP_TZ) {
        ms = v.u.i >= 0 ? v.u.i / 1000 : -((-v.u.i + 999) / 1000);
    } else if (v.type.id == TN_TYPE_DATE) {
        ms = v.u.i * 86400000LL;
    } else {
        return tn_bind_error(b, e->pos, "TIMESTAMP AS OF expects a timestamp or a string");
    }
    o->has_at_timestamp = true;
    o->at_timestamp_ms = ms;
    return 0;
}

static int bind_view(tn_binder *b, tn_catalog *cat, tn_sql_tableref *t, const tn_catalog_name *cn,
                     tn_plan **out) {
    tn_catalog_view v;
    memset(&v, 0, sizeof v);
    char nb[2 * TN_CATALOG_NAME_MAX + 2], what[2 * TN_CATALOG_NAME_MAX + 16];
    snprintf(what, sizeof what, "view '%s'", tn_catalog_name_format(cn, nb, sizeof nb));
    int rc = tn_catalog_view_get(cat, cn, &v);
    if (rc) return tn_bind_error_at(b, rc, t->pos);
    if (++b->depth > 64) {
        rc = tn_bind_error_code(b, TN_ELIMIT, t->pos, "%s: views nested too deeply (a view that reads itself?)", what);
        goto cleanup;
    }
    rc = tn_bind_query_text(b, v.sql, what, out);
    if (rc) goto cleanup;
    if (v.ncolumns) {
        tn_plan *p = *out;
        if (v.ncolumns > p->ncols) {
            rc = tn_bind_error(b, t->pos, "%s has %u column names but its query gives %u columns", what,
                               v.ncolumns, p->ncols);
            goto cleanup;
        }
        const char **names = tn_arena_alloc(b->arena, (p->ncols + 1) * sizeof *names);
        if (!names) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < p->ncols; i++)
            names[i] = i < v.ncolumns ? tn_arena_strdup(b->arena, v.columns[i]) : p->names[i];
        for (uint32_t i = 0; i < v.ncolumns; i++)
            if (!names[i]) { rc = TN_ENOMEM; goto cleanup; }
        p->names = names;
    }
cleanup:
    b->depth--;
    tn_catalog_view_free(&v);
    return rc;
}

int tn_bind_table_name(tn_binder *b, tn_sql_tableref *t, tn_plan **out, const char **alias) {
    *out = NULL;
    const tn_sql_qname *q = &t->u.table.name;
    const char *text = qname_text(b, q);
    if (q->n <= 2) {   /* temporary views (temp_views.c) come before tables and stored views */
        bool found = false;
        int trc = tn_temp_view_bind(b, q->n == 2 ? q->parts[0].name : NULL, q->parts[q->n - 1].name, t->pos, out, &found);
        if (!trc && found && t->u.table.n_hints) {
            tn_plan_free(*out);
            *out = NULL;
            return tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, "dynamic options (OPTIONS hint) on view %s: they "
                                      "apply to tables", text);
        }
        if (trc || found) {
            if (!trc && alias && !*alias) *alias = q->parts[q->n - 1].name;
            return trc;
        }
    }
    {   /* t$files, t$buckets, t$partitions (bind_system.c), pg_catalog.x (pg_catalog.c) */
        bool found = false;
        int src = tn_bind_system_table(b, t, &found, out);
        if (!src && !found) src = tn_bind_pg_table(b, t, &found, out);
        if (src || found) {
            if (!src && alias && !*alias) *alias = q->parts[q->n - 1].name;
            return src;
        }
    }
    tn_catalog *cat = NULL;
    int rc = b->session->warehouse ? tn_stmt_catalog(b, false, &cat) : TN_ENOTFOUND;
    if (rc == TN_ENOTFOUND)
        return tn_bind_error_code(b, TN_ENOTFOUND, t->pos, "Table with name %s does not exist", text);
    if (rc) return tn_bind_error_at(b, rc, t->pos);
    tn_catalog_name cn;
    if (q->n > 2 || tn_catalog_name_make(&cn, "table", q->n == 2 ? q->parts[0].name : NULL,
                                         q->parts[q->n - 1].name))
        return tn_bind_error_code(b, TN_ENOTFOUND, t->pos, "Table with name %s does not exist", text);
    bool is_table = false, is_view = false;
    rc = tn_catalog_table_exists(cat, &cn, &is_table);
    if (!rc && !is_table) rc = tn_catalog_view_exists(cat, &cn, &is_view);
    if (!rc && !is_table && !is_view && q->n == 2 && tn_temp_view_is_global_schema(q->parts[0].name)) {
        /* global_temp.x without such a view: the table x itself (temp_views.c) */
        if (tn_catalog_name_make(&cn, "table", NULL, q->parts[1].name) == 0) {
            rc = tn_catalog_table_exists(cat, &cn, &is_table);
            if (!rc && !is_table) rc = tn_catalog_view_exists(cat, &cn, &is_view);
        }
    }
    if (rc) return tn_bind_error_at(b, rc, t->pos);
    if (alias && !*alias) *alias = q->parts[q->n - 1].name;
    if (is_view) {
        if (t->u.table.n_hints)
            return tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, "dynamic options (OPTIONS hint) on view %s: they "
                                      "apply to tables", text);
        if (t->u.table.travel != TN_SQL_TT_NONE)
            return tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, "time travel on view %s: views have no versions", text);
        return bind_view(b, cat, t, &cn, out);
    }
    if (!is_table) return tn_bind_error_code(b, TN_ENOTFOUND, t->pos, "Table with name %s does not exist", text);
    tn_table_open_options o = TN_TABLE_OPEN_OPTIONS_INIT;
    rc = tn_bind_travel_options(b, t, &o);
    if (rc) return rc;
    char key[2 * TN_CATALOG_NAME_MAX + 2];
    tn_catalog_name_format(&cn, key, sizeof key);
    bool pin = b->session->txn_open && o.at_version < 0 && !o.has_at_timestamp;
    bool pinned = pin && txn_pin_get(b->session, key, &o.at_version);
    tn_table *tbl = NULL;
    rc = tn_catalog_table_open_found(cat, &cn, &o, &tbl);
    if (rc) return tn_bind_error_at(b, rc, t->pos);
    if (pin && !pinned && (rc = txn_pin_put(b->session, key, tn_table_snapshot(tbl)->version))) {
        tn_table_close(tbl);
        return rc;
    }
    rc = batch_table(b, &tbl, t->pos);
    if (rc) return rc;
    return tn_bind_table_plan(b, tbl, text, out);
}

int tn_bind_delta_scan(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    *out = NULL;
    tn_sql_expr *f = t->u.function;
    if (f->u.func.args.n < 1 || (f->u.func.arg_names && f->u.func.arg_names[0].name))
        return tn_bind_error(b, f->pos, "delta_scan needs the path of a Delta table");
    tn_table_open_options o = TN_TABLE_OPEN_OPTIONS_INIT;
    for (int i = 1; i < f->u.func.args.n; i++) {
        tn_sql_expr *a = f->u.func.args.items[i];
        const char *an = f->u.func.arg_names ? f->u.func.arg_names[i].name : NULL;
        int rc;
        if (an && strcmp(an, "version") == 0) {
            int64_t v;
            rc = tn_bind_const_int(b, a, "version", &v);
            if (rc) return rc;
            o.at_version = v;
        } else if (an && strcmp(an, "timestamp") == 0) {
            tn_value v;
            rc = tn_bind_const_value(b, a, &v);
            if (rc) return rc;
            if (v.is_null || !tn_type_is_string(v.type)) return tn_bind_error(b, a->pos, "timestamp must be a string");
            char *text = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
            if (!text) return TN_ENOMEM;
            rc = tn_table_parse_timestamp_ms(text, &o.at_timestamp_ms);
            if (rc) return tn_bind_error_at(b, rc, a->pos);
            o.has_at_timestamp = true;
        } else {
            return tn_bind_error(b, a->pos, "Invalid named parameter \"%s\" for function delta_scan (version, timestamp)",
                                 an ? an : "?");
        }
    }
    tn_value v;
    tn_sql_expr *a0 = f->u.func.args.items[0];
    int rc = tn_bind_const_value(b, a0, &v);
    if (rc) return rc;
    if (v.is_null || !tn_type_is_string(v.type))
        return tn_bind_error(b, a0->pos, "delta_scan expects the table's path as a string");
    char *path = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
    if (!path) return TN_ENOMEM;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') path[--len] = 0;
    tn_table *tbl = NULL;
    rc = tn_table_open(&tbl, tn_fs_default(), path, &o);
    if (rc) {
        tn_error_prefix(rc, "delta_scan('%s')", path);
        return tn_bind_error_at(b, rc, a0->pos);
    }
    rc = batch_table(b, &tbl, a0->pos);
    if (rc) return rc;
    return tn_bind_table_plan(b, tbl, path, out);
}

/* One bound of table_changes: an integer version or a timestamp string. */
static int change_bound(tn_binder *b, tn_sql_expr *a, int64_t *version, bool *has_ts, int64_t *ts_ms) {
    tn_value v;
    int rc = tn_bind_const_value(b, a, &v);
    if (rc) return rc;
    if (v.is_null) return tn_bind_error(b, a->pos, "table_changes: a bound cannot be NULL");
    if (tn_type_is_string(v.type)) {
        char *text = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
        if (!text) return TN_ENOMEM;
        rc = tn_table_parse_timestamp_ms(text, ts_ms);
        if (rc) return tn_bind_error_at(b, rc, a->pos);
        *has_ts = true;
        return 0;
    }
    if (v.type.id == TN_TYPE_TIMESTAMP || v.type.id == TN_TYPE_TIMESTAMP_TZ) {
        *ts_ms = v.u.i >= 0 ? v.u.i / 1000 : -((-v.u.i + 999) / 1000);
        *has_ts = true;
        return 0;
    }
    return tn_bind_const_int(b, a, "version", version);
}

int tn_bind_table_changes(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    *out = NULL;
    tn_sql_expr *f = t->u.function;
    if (f->u.func.args.n < 2 || f->u.func.args.n > 3)
        return tn_bind_error(b, f->pos, "table_changes needs a table name, a starting version or timestamp, and "
                             "optionally an ending one");
    tn_value v;
    tn_sql_expr *a0 = f->u.func.args.items[0];
    int rc = tn_bind_const_value(b, a0, &v);
    if (rc) return rc;
    if (v.is_null || !tn_type_is_string(v.type)) return tn_bind_error(b, a0->pos, "table_changes expects the table's name as a string");
    /* 'schema.table' or 'table' */
    char *name = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
    tn_sql_qname q;
    memset(&q, 0, sizeof q);
    tn_sql_ident parts[2];
    if (!name) return TN_ENOMEM;
    char *dot = strchr(name, '.');
    q.parts = parts;
    parts[0].pos = parts[1].pos = a0->pos;
    if (dot) {
        *dot = 0;
        parts[0].name = name;
        parts[1].name = dot + 1;
        q.n = 2;
    } else {
        parts[0].name = name;
        q.n = 1;
    }
    tn_table_changes_options o;
    memset(&o, 0, sizeof o);
    o.to_version = -1;
    rc = change_bound(b, f->u.func.args.items[1], &o.from_version, &o.has_from_timestamp, &o.from_timestamp_ms);
    if (!rc && f->u.func.args.n == 3)
        rc = change_bound(b, f->u.func.args.items[2], &o.to_version, &o.has_to_timestamp, &o.to_timestamp_ms);
    if (rc) return rc;
    tn_catalog_name cn;
    tn_table *base = NULL, *ch = NULL;
    rc = tn_bind_open_table(b, &q, &cn, &base);
    if (rc) return rc;
    rc = tn_table_changes_open(&ch, tn_table_fs(base), tn_table_path(base), &o);
    tn_table_close(base);
    if (rc) return tn_bind_error_at(b, rc, f->pos);
    tn_plan *scan = NULL;
    rc = tn_bind_table_plan(b, ch, name, &scan);
    if (rc) {
        tn_plan_free(scan);
        return rc;
    }
    /* the table's columns, COALESCE(_change_type, __tn_change_type), _commit_version,
     * _commit_timestamp */
    uint32_t n = scan->ncols;             /* table columns + 4 */
    uint32_t m = n - 1;
    tn_expr **ex = tn_arena_calloc(b->arena, (m + 1) * sizeof *ex);
    const char **names = tn_arena_calloc(b->arena, (m + 1) * sizeof *names);
    if (!ex || !names) {
        tn_plan_free(scan);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0, k = 0; i < n && !rc; i++) {
        if (i == n - 3) continue;         /* __tn_change_type: merged into _change_type */
        if (i == n - 4) {
            tn_expr *args[2] = {NULL, NULL};
            rc = tn_expr_column(&args[0], i, scan->types[i]);
            if (!rc) rc = tn_expr_column(&args[1], n - 3, scan->types[n - 3]);
            if (!rc) rc = tn_expr_coalesce(&ex[k], args, 2);
        } else {
            rc = tn_expr_column(&ex[k], i, scan->types[i]);
        }
        names[k++] = scan->names[i];
    }
    if (rc) {
        for (uint32_t i = 0; i < m; i++) tn_expr_free(ex[i]);
        tn_plan_free(scan);
        return rc;
    }
    return tn_bind_project(b, scan, ex, names, m, out);
}

/* ---------------------------------------------------------------------------------------------
 * Table filters from a predicate over the table's logical columns.
 */
static int cmp_op(const char *name, bool flip, tn_parquet_op *op) {
    static const struct { const char *n; tn_parquet_op op, flipped; } m[] = {
        {"=", TN_PQ_EQ, TN_PQ_EQ}, {"<", TN_PQ_LT, TN_PQ_GT}, {"<=", TN_PQ_LE, TN_PQ_GE},
        {">", TN_PQ_GT, TN_PQ_LT}, {">=", TN_PQ_GE, TN_PQ_LE}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (strcmp(name, m[i].n) == 0) {
            *op = flip ? m[i].flipped : m[i].op;
            return 0;
        }
    return -1;
}

static void collect(tn_binder *b, const tn_table *t, const tn_expr *e, tn_table_filter *out, uint32_t *n,
                    uint32_t cap) {
    if (*n >= cap) return;
    if (e->kind == TN_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++) collect(b, t, e->args[i], out, n, cap);
        return;
    }
    uint32_t ncols = tn_table_num_columns(t);
    if ((e->kind == TN_EXPR_IS_NULL || e->kind == TN_EXPR_IS_NOT_NULL) && e->args[0]->kind == TN_EXPR_COLUMN) {
        if (e->args[0]->u.column >= ncols) return;
        tn_table_filter *f = &out[(*n)++];
        memset(f, 0, sizeof *f);
        f->column = e->args[0]->u.column;
        f->op = e->kind == TN_EXPR_IS_NULL ? TN_PQ_IS_NULL : TN_PQ_IS_NOT_NULL;
        return;
    }
    if (e->kind != TN_EXPR_FUNCTION || e->nargs != 2 || !e->u.func.call.def) return;
    const tn_expr *a = e->args[0], *c = e->args[1];
    bool flip = false;
    if (a->kind == TN_EXPR_CONSTANT && c->kind == TN_EXPR_COLUMN) {
        const tn_expr *x = a;
        a = c;
        c = x;
        flip = true;
    }
    if (a->kind != TN_EXPR_COLUMN || c->kind != TN_EXPR_CONSTANT || c->u.value.is_null) return;
    if (a->u.column >= ncols || !tn_type_equal(a->type, c->type)) return;
    if (!tn_type_equal(tn_table_column(t, a->u.column)->type, a->type)) return;
    tn_parquet_op op;
    if (cmp_op(e->u.func.call.def->name, flip, &op)) return;
    tn_table_filter *f = &out[(*n)++];
    memset(f, 0, sizeof *f);
    f->column = a->u.column;
    f->op = op;
    f->constant = c->u.value;
    if (tn_type_is_string(f->constant.type)) {
        char *copy = tn_arena_alloc(b->arena, c->u.value.u.s.len + 1);
        if (!copy) {
            (*n)--;
            return;
        }
        memcpy(copy, c->u.value.u.s.ptr, c->u.value.u.s.len);
        f->constant.u.s.ptr = copy;
    }
}

int tn_bind_table_filters(tn_binder *b, const tn_table *t, const tn_expr *pred, tn_table_filter **out,
                          uint32_t *n) {
    *out = NULL;
    *n = 0;
    if (!pred) return 0;
    uint32_t cap = 64;
    tn_table_filter *f = tn_arena_calloc(b->arena, cap * sizeof *f);
    if (!f) return TN_ENOMEM;
    collect(b, t, pred, f, n, cap);
    *out = f;
    return 0;
}
