/*
 * sql/session.c: the sql/ layer's front door (sql.h): sessions (warehouse, thread pool, session
 * options), scripts (parsed statements), statement execution (bind -> optimize -> execute, or
 * EXPLAIN [ANALYZE], DESCRIBE <query>, SET), materialized results and streaming results (a
 * query of streaming operators read while it runs: the result then owns the statement's
 * arena, plan and executor until its stream ends).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/bindInt.h"
#include "sql/parse.h"
#include "sql/settings.h"
#include "sql/stmt.h"
#include "sql/stmt.h"

struct tn_sql_script {
    tn_sql_session *session;
    tn_arena *arena;
    char *sql;
    size_t len;
    tn_sql_stmt_list list;
};

struct tn_sql_result {
    uint32_t ncols;
    const char **names;
    tn_type *types;
    tn_collection rows;
    uint32_t cursor;
    bool has_rows;
    tn_sql_stats stats;
    uint64_t time_ns;
    tn_arena *arena;
    /* Streaming: the stream and what it borrows, owned until the stream ends. */
    tn_exec_stream *stream;
    tn_sql_session *session;
    tn_exec *ex;
    tn_plan *plan;
    tn_arena *stmt_arena;
    tn_sql_script *script;       /* tn_sql_execute_stream: the parsed text the plan borrows */
    uint64_t t0;
    bool streamed;               /* rows came (partly) from a stream */
    int64_t delivered;           /* rows handed out by the stream */
    int error;                   /* the execution error that ended the stream, or 0 */
    void *kept;                  /* the chunk handed out before a detach (released next fetch) */
    tn_error_state err;
};

static void stream_end(tn_sql_result *r);
static void session_detach(tn_sql_session *s);
static int execute(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                   uint32_t nparams, bool stream, bool describe);

static uint64_t default_memory_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0) return 0;
    return (uint64_t)pages * (uint64_t)psize / 10 * 8;
}

/* Put DuckDB's error class in front of a message that has none ("Parser Error: syntax error at
 * line 1, ...", "Out of Range Error: ..."), as every error leaves the session. */
static int classify(int rc) {
    if (rc >= 0 || rc == TN_ENOMEM || rc == TN_EINTERRUPT) return rc;
    const char *m = tn_error_message();
    const char *klass = tn_sql_error_class(rc);
    if (!klass || tn_error_class_len(m)) return rc;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", m);
    return tn_error_set(rc, "%s: %s", klass, msg);
}

int tn_sql_session_open(tn_sql_session **out, const char *warehouse, int threads) {
    *out = NULL;
    tn_sql_session *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    if (warehouse && !(s->warehouse = tn_strdup(warehouse))) {
        tn_free(s);
        return TN_ENOMEM;
    }
    int rc = tn_pool_create(&s->pool, threads);
    if (rc) {
        tn_free(s->warehouse);
        tn_free(s);
        return rc;
    }
    s->threads = (int)tn_pool_size(s->pool);
    s->memory_limit = default_memory_limit();
    if ((rc = tn_settings_attach(s))) {
        tn_pool_destroy(s->pool);
        tn_free(s->warehouse);
        tn_free(s);
        return rc;
    }
    pthread_mutex_init(&s->run_lock, NULL);
    *out = s;
    return 0;
}

void tn_sql_session_close(tn_sql_session *s) {
    if (!s) return;
    if (s->streaming) {
        tn_sql_result *r = s->streaming;
        stream_end(r);                    /* cancels it: the caller should have freed it */
        if (!r->error) {
            r->error = TN_EINVAL;
            snprintf(r->err.message, sizeof r->err.message, "the session was closed while the result streamed");
            r->err.code = TN_EINVAL;
        }
    }
    tn_stmt_session_free(s);
    tn_prepared_free_all(s);
    tn_sequences_free(s);
    tn_macros_free(s);
    tn_temp_views_free(s);
    tn_settings_detach(s);
    tn_bind_txn_pins_free(s);
    tn_pool_destroy(s->pool);
    pthread_mutex_destroy(&s->run_lock);
    tn_free(s->warehouse);
    tn_free(s);
}

int tn_sql_session_threads(const tn_sql_session *s) { return s->threads; }
void tn_sql_session_set_memory_limit(tn_sql_session *s, uint64_t bytes) { s->memory_limit = bytes; }

static void set_running(tn_sql_session *s, tn_exec *ex) {
    pthread_mutex_lock(&s->run_lock);
    s->running = ex;
    pthread_mutex_unlock(&s->run_lock);
}

void tn_sql_session_deny_files(tn_sql_session *s, bool deny) { s->files_denied = deny; }

int tn_sql_session_set_client(tn_sql_session *s, const char *user, const char *database) {
    if ((user && strlen(user) >= sizeof s->client_user) || (database && strlen(database) >= sizeof s->client_database))
        return tn_error_set(TN_EINVAL, "user and database names are limited to %zu bytes", sizeof s->client_user - 1);
    snprintf(s->client_user, sizeof s->client_user, "%s", user ? user : "");
    snprintf(s->client_database, sizeof s->client_database, "%s", database ? database : "");
    return 0;
}

void tn_sql_session_set_settings(tn_sql_session *s, tn_sql_settings_fn fn, void *ctx) {
    s->settings_fn = fn;
    s->settings_ctx = ctx;
}

const char *tn_sql_session_client(const tn_sql_session *s, const char **database) {
    if (database) *database = s->client_database;
    return s->client_user;
}
void tn_sql_session_set_batch(tn_sql_session *s, tn_sql_batch *batch) { s->batch = batch; }

void tn_sql_session_interrupt(tn_sql_session *s) {
    if (s) __atomic_store_n(&s->interrupted, 1, __ATOMIC_RELAXED);
}

bool tn_sql_session_progress(tn_sql_session *s, uint64_t *done, uint64_t *total) {
    *done = *total = 0;
    pthread_mutex_lock(&s->run_lock);
    tn_exec *ex = s->running;
    if (ex) {
        *done = __atomic_load_n(&ex->stats.rows_scanned, __ATOMIC_RELAXED) +
                __atomic_load_n(&ex->progress_inflight, __ATOMIC_RELAXED);
        *total = __atomic_load_n(&ex->stats.table_rows, __ATOMIC_RELAXED);
        uint64_t planned = __atomic_load_n(&ex->progress_rows, __ATOMIC_RELAXED);
        if (planned > *total) *total = planned;
    }
    pthread_mutex_unlock(&s->run_lock);
    return ex != NULL;
}

bool tn_sql_session_progress_bytes(tn_sql_session *s, uint64_t *done, uint64_t *total) {
    *done = *total = 0;
    pthread_mutex_lock(&s->run_lock);
    tn_exec *ex = s->running;
    if (ex) {
        *done = __atomic_load_n(&ex->stats.bytes_scanned, __ATOMIC_RELAXED);
        *total = __atomic_load_n(&ex->stats.table_bytes, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&s->run_lock);
    return ex != NULL;
}

int tn_sql_script_parse(tn_sql_script **out, tn_sql_session *s, const char *sql, size_t len) {
    *out = NULL;
    tn_sql_script *sc = tn_calloc(1, sizeof *sc);
    if (!sc) return TN_ENOMEM;
    sc->session = s;
    sc->arena = tn_arena_create(0);
    sc->sql = tn_malloc(len + 1);
    if (!sc->arena || !sc->sql) {
        tn_sql_script_free(sc);
        return TN_ENOMEM;
    }
    memcpy(sc->sql, sql, len);
    sc->sql[len] = 0;
    sc->len = len;
    int rc = tn_sql_parse_n(sc->arena, sc->sql, len, &sc->list);
    if (rc) {
        tn_bind_set_pos(tn_sql_last_error_pos());
        tn_sql_script_free(sc);
        return classify(rc);
    }
    *out = sc;
    return 0;
}

void tn_sql_script_free(tn_sql_script *sc) {
    if (!sc) return;
    tn_arena_destroy(sc->arena);
    tn_free(sc->sql);
    tn_free(sc);
}

uint32_t tn_sql_script_count(const tn_sql_script *sc) { return (uint32_t)sc->list.n; }
const char *tn_sql_script_text(const tn_sql_script *sc, uint32_t i) {
    return i < (uint32_t)sc->list.n ? sc->list.stmts[i]->text : NULL;
}
const tn_sql_stmt *tn_sql_script_stmt(const tn_sql_script *sc, uint32_t i) {
    return i < (uint32_t)sc->list.n ? sc->list.stmts[i] : NULL;
}
int tn_sql_script_describe(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                           uint32_t nparams) {
    *out = NULL;
    if (i >= (uint32_t)sc->list.n || sc->list.stmts[i]->kind != TN_SQL_S_QUERY)
        return tn_error_set(TN_EINVAL, "only a query can be described without running it");
    return execute(out, sc, i, params, nparams, false, true);
}
uint32_t tn_sql_script_nparams(const tn_sql_script *sc, uint32_t i) {
    return i < (uint32_t)sc->list.n ? (uint32_t)sc->list.stmts[i]->n_params : 0;
}

/* ---------------------------------------------------------------------------------------------
 * Results.
 */
static int result_new(tn_sql_result **out, uint32_t ncols, const char *const *names, const tn_type *types) {
    tn_sql_result *r = tn_calloc(1, sizeof *r);
    if (!r) return TN_ENOMEM;
    r->arena = tn_arena_create(0);
    if (!r->arena) { tn_free(r); return TN_ENOMEM; }
    r->ncols = ncols;
    r->names = tn_arena_calloc(r->arena, (ncols + 1) * sizeof *r->names);
    r->types = tn_arena_calloc(r->arena, (ncols + 1) * sizeof *r->types);
    if (!r->names || !r->types) { tn_sql_result_free(r); return TN_ENOMEM; }
    for (uint32_t i = 0; i < ncols; i++) {
        r->names[i] = tn_arena_strdup(r->arena, names[i] ? names[i] : "");
        r->types[i] = types[i];
        if (!r->names[i]) { tn_sql_result_free(r); return TN_ENOMEM; }
    }
    r->has_rows = true;
    *out = r;
    return 0;
}

/* A result of VARCHAR lines (EXPLAIN). */
static int text_result(tn_sql_result **out, const char *colname, const char *text) {
    tn_type t = tn_type_make(TN_TYPE_VARCHAR);
    int rc = result_new(out, 1, &colname, &t);
    if (rc) return rc;
    tn_sql_result *r = *out;
    rc = tn_collection_init(&r->rows, 1, &t);
    tn_chunk c;
    memset(&c, 0, sizeof c);
    if (!rc) rc = tn_chunk_init(&c, 1, &t, TN_VECTOR_SIZE);
    const char *p = text;
    while (!rc && *p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (c.count == TN_VECTOR_SIZE) {
            rc = tn_collection_append(&r->rows, &c, NULL, c.count);
            tn_chunk_reset(&c);
            c.count = 0;
        }
        if (!rc) rc = tn_vector_set_str(&c.cols[0], c.count, p, n);
        c.count++;
        c.cols[0].count = c.count;
        p = e ? e + 1 : p + n;
    }
    if (!rc && c.count) rc = tn_collection_append(&r->rows, &c, NULL, c.count);
    if (c.cols) tn_chunk_free(&c);
    if (rc) {
        tn_sql_result_free(r);
        *out = NULL;
    }
    return rc;
}

uint32_t tn_sql_result_ncols(const tn_sql_result *r) { return r->ncols; }
const char *tn_sql_result_name(const tn_sql_result *r, uint32_t col) { return col < r->ncols ? r->names[col] : NULL; }
tn_type tn_sql_result_type(const tn_sql_result *r, uint32_t col) {
    return col < r->ncols ? r->types[col] : tn_type_make(TN_TYPE_NULL);
}
int64_t tn_sql_result_nrows(const tn_sql_result *r) { return r->delivered + r->rows.nrows; }
bool tn_sql_result_streaming(const tn_sql_result *r) { return r->stream != NULL; }
int tn_sql_result_error(const tn_sql_result *r) { return r->error; }

/* Ends the stream of r (cancelling the producer if it still runs) and releases what it
 * borrowed; the statistics and time become final. */
static void stream_end(tn_sql_result *r) {
    if (!r->stream && !r->ex) return;
    tn_exec_stream_free(r->stream);
    r->stream = NULL;
    if (r->ex) {
        r->stats = r->ex->stats;
        r->time_ns = tn_time_ns() - r->t0;
    }
    tn_sql_session *s = r->session;
    if (s) {
        pthread_mutex_lock(&s->run_lock);
        if (s->running == r->ex) s->running = NULL;
        pthread_mutex_unlock(&s->run_lock);
        if (s->streaming == r) s->streaming = NULL;
    }
    r->session = NULL;
    tn_plan_free(r->plan);
    r->plan = NULL;
    tn_arena_destroy(r->stmt_arena);
    r->stmt_arena = NULL;
    tn_free(r->ex);
    r->ex = NULL;
}

/* Another statement is about to run on s: the result still streaming reads its remaining rows
 * into memory now (the pool runs one query at a time), then serves them as a materialized one.
 * An error is kept and reported by its next tn_sql_result_next. */
static void session_detach(tn_sql_session *s) {
    tn_sql_result *r = s->streaming;
    if (!r) return;
    tn_error_state saved;
    tn_error_save(&saved);
    /* the caller may still read the chunk it got last: keep it until its next fetch */
    tn_exec_stream_release(r->kept);
    r->kept = tn_exec_stream_keep_current(r->stream);
    const tn_chunk *c = NULL;
    int rc = 0;
    for (;;) {
        rc = tn_exec_stream_next(r->stream, &c);
        if (rc || !c) break;
        rc = tn_collection_append(&r->rows, c, NULL, c->count);
        if (rc) break;
    }
    if (rc) {
        r->error = rc;
        tn_error_save(&r->err);
    }
    stream_end(r);
    tn_error_restore(&saved);
}

int tn_sql_result_fetch(tn_sql_result *r, const tn_chunk **out) {
    *out = NULL;
    tn_exec_stream_release(r->kept);
    r->kept = NULL;
    if (r->stream) {
        const tn_chunk *c = NULL;
        int rc = tn_exec_stream_next(r->stream, &c);
        if (rc) {
            r->error = classify(rc);
            tn_error_save(&r->err);
        } else if (c) {
            r->delivered += c->count;
            *out = c;
            return 0;
        }
        stream_end(r);
        if (rc) return tn_error_restore(&r->err);
    }
    while (r->cursor < r->rows.nchunks) {
        const tn_chunk *c = &r->rows.chunks[r->cursor++];
        if (c->count) {
            *out = c;
            return 0;
        }
    }
    if (r->error) return tn_error_restore(&r->err);
    return 0;
}

const tn_chunk *tn_sql_result_next(tn_sql_result *r) {
    const tn_chunk *c = NULL;
    return tn_sql_result_fetch(r, &c) ? NULL : c;
}
void tn_sql_result_rewind(tn_sql_result *r) {
    if (!r->streamed) r->cursor = 0;
}
bool tn_sql_result_has_rows(const tn_sql_result *r) { return r->has_rows; }
const tn_sql_stats *tn_sql_result_stats(const tn_sql_result *r) { return &r->stats; }
uint64_t tn_sql_result_time_ns(const tn_sql_result *r) { return r->time_ns; }

void tn_sql_result_free(tn_sql_result *r) {
    if (!r) return;
    stream_end(r);
    tn_exec_stream_release(r->kept);
    tn_sql_script_free(r->script);
    tn_collection_free(&r->rows);
    tn_arena_destroy(r->arena);
    tn_free(r);
}

/* ---------------------------------------------------------------------------------------------
 * Execution.
 */
static int exec_set(tn_binder *b, tn_sql_stmt *stmt, tn_sql_result **out) {
    const tn_sql_option *o = &stmt->u.set;
    int rc = tn_setting_set(b->session, o->key, o->value, o->scope);       /* settings.c */
    if (rc) return tn_bind_error_at(b, rc, o->value && tn_setting_find(o->key) ? o->value_pos : o->pos);
    rc = result_new(out, 0, NULL, NULL);
    if (!rc) (*out)->has_rows = false;
    return rc;
}

/* Statements that change the warehouse (or write a file) and cannot be undone by ROLLBACK. */
static bool stmt_writes(const tn_sql_stmt *stmt) {
    if (stmt->kind == TN_SQL_S_EXPLAIN && stmt->u.explain.analyze) return stmt_writes(stmt->u.explain.stmt);
    switch (stmt->kind) {
    case TN_SQL_S_CREATE_TABLE: case TN_SQL_S_CREATE_VIEW: case TN_SQL_S_CREATE_SCHEMA: case TN_SQL_S_DROP:
    case TN_SQL_S_INSERT: case TN_SQL_S_DELETE: case TN_SQL_S_UPDATE: case TN_SQL_S_MERGE:
    case TN_SQL_S_ALTER_TABLE: case TN_SQL_S_OPTIMIZE: case TN_SQL_S_COPY: case TN_SQL_S_VACUUM: return true;
    case TN_SQL_S_CREATE_SEQUENCE: return !stmt->u.create_sequence.temporary;
    case TN_SQL_S_CREATE_MACRO: return !stmt->u.create_macro.temporary;
    default: return false;
    }
}

/* BEGIN / COMMIT / ROLLBACK with DuckDB's messages. tarn commits every statement on its own (one
 * Delta commit each), so a transaction holds only reads: execute() refuses a write while one is
 * open, and COMMIT and ROLLBACK then have nothing to do. CHECKPOINT: every commit is durable
 * (fsync and link of the log entry) when it returns, so there is nothing to do either. */
static int exec_txn(tn_binder *b, tn_sql_stmt *stmt, tn_sql_result **out) {
    tn_sql_session *s = b->session;
    int rc = 0;
    if (stmt->kind == TN_SQL_S_TRANSACTION) {
        bool open = s->txn_open;
        switch (stmt->u.txn) {
        case TN_SQL_TXN_BEGIN:
            if (open)
                return tn_bind_error(b, stmt->pos,
                                     "TransactionContext Error: cannot start a transaction within a transaction");
            s->txn_open = true;
            break;
        case TN_SQL_TXN_COMMIT:
            if (!open) return tn_bind_error(b, stmt->pos, "TransactionContext Error: cannot commit - no transaction is active");
            s->txn_open = false;
            tn_bind_txn_pins_free(s);
            break;
        case TN_SQL_TXN_ROLLBACK:
            if (!open)
                return tn_bind_error(b, stmt->pos, "TransactionContext Error: cannot rollback - no transaction is active");
            s->txn_open = false;
            tn_bind_txn_pins_free(s);
            break;
        }
    }
    rc = result_new(out, 0, NULL, NULL);
    if (!rc) (*out)->has_rows = false;
    return rc;
}

static int describe_result(tn_plan *p, tn_sql_result **out) {
    static const char *names[] = {"column_name", "column_type", "null", "key", "default", "extra"};
    tn_type t[6];
    for (int i = 0; i < 6; i++) t[i] = tn_type_make(TN_TYPE_VARCHAR);
    int rc = result_new(out, 6, names, t);
    if (rc) return rc;
    tn_sql_result *r = *out;
    tn_chunk c;
    memset(&c, 0, sizeof c);
    rc = tn_collection_init(&r->rows, 6, t);
    if (!rc) rc = tn_chunk_init(&c, 6, t, p->ncols ? p->ncols : 1);
    for (uint32_t i = 0; i < p->ncols && !rc; i++) {
        char tb[64];
        tn_type_format(p->types[i], tb, sizeof tb);
        rc = tn_vector_set_str(&c.cols[0], i, p->names[i], strlen(p->names[i]));
        if (!rc) rc = tn_vector_set_str(&c.cols[1], i, tb, strlen(tb));
        if (!rc) rc = tn_vector_set_str(&c.cols[2], i, "YES", 3);
        for (int k = 3; k < 6 && !rc; k++) rc = tn_vector_set_null(&c.cols[k], i);
    }
    for (int k = 0; k < 6; k++) c.cols[k].count = p->ncols;
    c.count = p->ncols;
    if (!rc) rc = tn_collection_append(&r->rows, &c, NULL, c.count);
    if (c.cols) tn_chunk_free(&c);
    return rc;
}

static int execute_one(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                       uint32_t nparams, bool stream, bool describe);

static int execute(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                   uint32_t nparams, bool stream, bool describe) {
    return classify(execute_one(out, sc, i, params, nparams, stream, describe));
}

static int execute_one(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                       uint32_t nparams, bool stream, bool describe) {
    *out = NULL;
    if (i >= (uint32_t)sc->list.n) return tn_error_set(TN_EINVAL, "no statement %u", i);
    tn_sql_stmt *stmt = sc->list.stmts[i];
    tn_sql_session *s = sc->session;
    session_detach(s);
    __atomic_store_n(&s->interrupted, 0, __ATOMIC_RELAXED);   /* a new statement starts */
    uint64_t t0 = tn_time_ns();
    tn_bind_set_pos((tn_sql_pos){0, 0, 0});
    tn_arena *arena = tn_arena_create(0);
    tn_exec *exp = tn_calloc(1, sizeof *exp);
    if (!arena || !exp) {
        tn_arena_destroy(arena);
        tn_free(exp);
        return TN_ENOMEM;
    }
    exp->pool = s->pool;
    exp->nworkers = tn_pool_size(s->pool);
    exp->arena = arena;
    exp->memory_limit = s->memory_limit;
    exp->interrupt = &s->interrupted;
    char tdir[4096];
    const char *td = tn_setting_temp_directory(s, tdir, sizeof tdir);
    exp->temp_dir = td ? tn_arena_strdup(arena, td) : NULL;
    exp->temp_limit = tn_setting_bytes(s, "max_temp_directory_size");
    tn_binder b;
    memset(&b, 0, sizeof b);
    b.session = s;
    b.arena = arena;
    b.sql = sc->sql;
    b.sql_len = sc->len;
    b.params = params;
    b.nparams = nparams;
    b.ex = exp;
    if ((uint32_t)stmt->n_params > nparams) {
        tn_arena_destroy(arena);
        tn_free(exp);
        return tn_bind_error(&b, stmt->pos, "statement needs %d parameters, %u given", stmt->n_params, nparams);
    }
    tn_func_set_statement_time(tn_time_now_us());
    tn_regex_set_max_mem(s->memory_limit);     /* RE2 programs stay within memory_limit */
    set_running(s, exp);
    int rc = 0;
    tn_plan *plan = NULL;
    tn_sql_result *r = NULL;
    bool explain = false, analyze = false;
    if (stmt->kind == TN_SQL_S_SET) {
        rc = exec_set(&b, stmt, &r);
        goto done;
    }
    if (stmt->kind == TN_SQL_S_TRANSACTION || stmt->kind == TN_SQL_S_CHECKPOINT) {
        rc = exec_txn(&b, stmt, &r);
        goto done;
    }
    if (stmt->kind == TN_SQL_S_PREPARE || stmt->kind == TN_SQL_S_EXECUTE || stmt->kind == TN_SQL_S_DEALLOCATE) {
        tn_sql_script *prep = NULL;
        tn_value *vals = NULL;
        uint32_t nvals = 0;
        rc = tn_prepared_statement(&b, stmt, &prep, &vals, &nvals);     /* prepared.c */
        if (!rc && prep) {
            /* EXECUTE: the prepared statement runs as a statement of its own (materialized: its
               values live in this statement's arena) */
            rc = execute_one(&r, prep, 0, vals, nvals, false, describe);
            if (!rc) exp->stats = r->stats;
        } else if (!rc && !(rc = result_new(&r, 0, NULL, NULL))) {
            r->has_rows = false;
        }
        goto done;
    }
    if (s->txn_open && stmt_writes(stmt)) {
        /* Each statement is its own Delta commit, visible at once: inside BEGIN that would
           break both isolation and ROLLBACK, so the write is refused before it happens. */
        rc = tn_bind_error_code(&b, TN_EUNSUPPORTED, stmt->pos,
                                "TransactionContext Error: writes inside BEGIN ... COMMIT are not supported yet "
                                "(tarn commits each statement on its own): run the statement outside the transaction");
        goto done;
    }
    bool approx = stmt->kind == TN_SQL_S_QUERY && stmt->u.query->error_within > 0;
    if (stmt->kind == TN_SQL_S_CREATE_SEQUENCE ||
        (stmt->kind == TN_SQL_S_DROP && stmt->u.drop.object == TN_SQL_OBJ_SEQUENCE)) {
        rc = tn_sequence_statement(&b, stmt);                          /* sequence.c */
        if (!rc && !(rc = result_new(&r, 0, NULL, NULL))) r->has_rows = false;
        goto done;
    }
    if (stmt->kind == TN_SQL_S_CREATE_MACRO ||
        (stmt->kind == TN_SQL_S_DROP && (stmt->u.drop.object == TN_SQL_OBJ_MACRO || stmt->u.drop.object == TN_SQL_OBJ_MACRO_TABLE))) {
        rc = tn_macro_statement(&b, stmt);                             /* macro.c */
        if (!rc && !(rc = result_new(&r, 0, NULL, NULL))) r->has_rows = false;
        goto done;
    }
    if (tn_stmt_is_table(stmt) || approx) {  /* stmt.h: DDL, DML, DESCRIBE t, SHOW, COPY, VACUUM */
        tn_stmt_output so;
        rc = approx ? tn_approx_execute(&b, stmt, &so) : tn_stmt_table_execute(&b, stmt, &so);
        if (!rc) rc = result_new(&r, so.ncols, so.names, so.types);
        if (!rc) {
            r->rows = so.rows;
            memset(&so.rows, 0, sizeof so.rows);
            r->has_rows = so.has_rows;
        }
        tn_collection_free(&so.rows);
        goto done;
    }
    if (stmt->kind == TN_SQL_S_EXPLAIN && stmt->u.explain.analyze && tn_stmt_is_table(stmt->u.explain.stmt)) {
        /* EXPLAIN ANALYZE of INSERT / UPDATE / DELETE / MERGE / DDL runs it (as DuckDB does; the
           statement's own commit happens) and reports what ran and how long it took */
        tn_sql_stmt *inner = stmt->u.explain.stmt;
        tn_stmt_output so;
        rc = tn_stmt_table_execute(&b, inner, &so);
        if (!rc) {
            tn_buf text = TN_BUF_INIT;
            rc = tn_buf_printf(&text, "%s\ntotal time: %.3f ms\n", tn_bind_stmt_name(inner),
                               (double)(tn_time_ns() - t0) / 1e6);
            if (!rc) rc = tn_buf_append_byte(&text, 0);
            if (!rc) rc = text_result(&r, "explain_analyze", (const char *)text.data);
            tn_buf_free(&text);
        }
        tn_collection_free(&so.rows);
        goto done;
    }
    rc = tn_bind_statement(&b, stmt, &plan, &explain, &analyze);
    if (rc) goto done;
    tn_sql_stmt *inner = stmt->kind == TN_SQL_S_EXPLAIN ? stmt->u.explain.stmt : stmt;
    if (inner->kind == TN_SQL_S_DESCRIBE) {
        rc = describe_result(plan, &r);
        goto done;
    }
    if (explain) {
        tn_buf text = TN_BUF_INIT;
        if (analyze) {
            int64_t rows = 0;
            exp->analyze = true;
            rc = tn_exec_run_count(exp, plan, &rows);
            if (!rc) plan->rows_out = (uint64_t)rows;
        }
        if (!rc) rc = tn_plan_explain(&text, plan, analyze);
        if (!rc && analyze)
            rc = tn_buf_printf(&text, "total time: %.3f ms\n", (double)(tn_time_ns() - t0) / 1e6);
        if (!rc) rc = tn_buf_append_byte(&text, 0);
        if (!rc) rc = text_result(&r, analyze ? "explain_analyze" : "explain", (const char *)text.data);
        tn_buf_free(&text);
        goto done;
    }
    rc = result_new(&r, plan->ncols, plan->names, plan->types);
    if (!rc && describe) {
        rc = tn_collection_init(&r->rows, plan->ncols, plan->types);   /* bound, never run */
    } else if (!rc && stream && (tn_exec_streamable(plan) || tn_exec_sort_rooted(plan) || tn_exec_group_rooted(plan)) &&
               !tn_exec_small(plan)) {
        rc = tn_collection_init(&r->rows, plan->ncols, plan->types);
        if (!rc) rc = tn_exec_stream_start(&r->stream, exp, plan);
        if (!rc) {
            /* the result owns the statement from here on (stream_end releases it) */
            r->streamed = true;
            r->session = s;
            r->ex = exp;
            r->plan = plan;
            r->stmt_arena = arena;
            r->t0 = t0;
            s->streaming = r;
            *out = r;
            return 0;
        }
    } else if (!rc) rc = tn_exec_run(exp, plan, &r->rows);
done:
    if (rc) {
        tn_sql_result_free(r);
        r = NULL;
    } else if (r) {
        r->stats = exp->stats;
        r->time_ns = tn_time_ns() - t0;
        *out = r;
    }
    set_running(s, NULL);
    tn_plan_free(plan);
    tn_arena_destroy(arena);
    tn_free(exp);
    return rc;
}

int tn_sql_script_execute(tn_sql_result **out, tn_sql_script *sc, uint32_t i, const tn_value *params,
                          uint32_t nparams) {
    return execute(out, sc, i, params, nparams, false, false);
}

int tn_sql_script_execute_stream(tn_sql_result **out, tn_sql_script *sc, uint32_t i,
                                 const tn_value *params, uint32_t nparams) {
    return execute(out, sc, i, params, nparams, true, false);
}

static int execute_text(tn_sql_result **out, tn_sql_session *s, const char *sql, bool stream) {
    *out = NULL;
    tn_sql_script *sc = NULL;
    int rc = tn_sql_script_parse(&sc, s, sql, strlen(sql));
    if (rc) return rc;
    uint32_t n = tn_sql_script_count(sc);
    for (uint32_t i = 0; i < n && !rc; i++) {
        tn_sql_result_free(*out);
        *out = NULL;
        rc = execute(out, sc, i, NULL, 0, stream && i + 1 == n, false);
    }
    if (!rc && *out && (*out)->stream) (*out)->script = sc;   /* its plan borrows the AST */
    else tn_sql_script_free(sc);
    return rc;
}

int tn_sql_execute(tn_sql_result **out, tn_sql_session *s, const char *sql) {
    return execute_text(out, s, sql, false);
}

int tn_sql_execute_stream(tn_sql_result **out, tn_sql_session *s, const char *sql) {
    return execute_text(out, s, sql, true);
}
