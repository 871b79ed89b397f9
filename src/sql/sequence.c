/*
 * sql/sequence.c: CREATE [TEMP] SEQUENCE, DROP SEQUENCE and nextval/currval (DuckDB's).
 *
 * Where a sequence lives: a plain CREATE SEQUENCE belongs to the warehouse (catalog/sequence.c:
 * one state file per sequence, changed under its file lock with fsync before a value is handed
 * out), because tables that take ids from it are shared by every process that opens the
 * warehouse, so their values must be unique across processes and survive crashes. A TEMP one
 * lives in this session's memory only (DuckDB's temp catalog) and dies with it; its name hides a
 * warehouse sequence of the same name, as temp objects do in DuckDB.
 *
 * nextval('s') binds to a call holding a handle id (a hidden BIGINT constant): the handle is
 * found in a process-wide registry by the function's bind callback, so copies of the expression
 * share it, and a made-up id finds nothing. currval is the last value nextval gave in this
 * session.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/expr.h"
#include "sql/stmt.h"

typedef struct tn_seq_handle {
    uint64_t id;
    int refs;                          /* under g_lock */
    pthread_mutex_t mu;                /* state (temp), last */
    bool temp;
    tn_seq state;                      /* temp: the sequence itself */
    tn_catalog *cat;                   /* warehouse: the session's catalog */
    tn_catalog_name name;
    bool has_last;
    int64_t last;
    struct tn_seq_handle *next_all;    /* g_all */
    struct tn_seq_handle *next;        /* the session's list */
} tn_seq_handle;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static tn_seq_handle *g_all;
static uint64_t g_next_id;

static tn_seq_handle *handle_new(void) {
    tn_seq_handle *h = tn_calloc(1, sizeof *h);
    if (!h) return NULL;
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_lock(&g_lock);
    h->id = ++g_next_id;
    h->refs = 1;
    h->next_all = g_all;
    g_all = h;
    pthread_mutex_unlock(&g_lock);
    return h;
}

static tn_seq_handle *handle_ref(uint64_t id) {
    pthread_mutex_lock(&g_lock);
    tn_seq_handle *h = g_all;
    while (h && h->id != id) h = h->next_all;
    if (h) h->refs++;
    pthread_mutex_unlock(&g_lock);
    return h;
}

static void handle_unref(void *p) {
    tn_seq_handle *h = p;
    if (!h) return;
    pthread_mutex_lock(&g_lock);
    bool last = --h->refs == 0;
    if (last) {
        tn_seq_handle **pp = &g_all;
        while (*pp != h) pp = &(*pp)->next_all;
        *pp = h->next_all;
    }
    pthread_mutex_unlock(&g_lock);
    if (last) {
        pthread_mutex_destroy(&h->mu);
        tn_free(h);
    }
}

void tn_sequences_free(tn_sql_session *s) {
    while (s->sequences) {
        tn_seq_handle *h = s->sequences;
        s->sequences = h->next;
        handle_unref(h);
    }
}

/* The session's handle of name (temp: a temp sequence; else a warehouse one), or NULL. */
static tn_seq_handle **session_find(tn_sql_session *s, const tn_catalog_name *n, bool temp) {
    tn_seq_handle **pp = &s->sequences;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->temp == temp && strcmp((*pp)->name.schema, n->schema) == 0 && strcmp((*pp)->name.name, n->name) == 0)
            return pp;
    return pp;
}

static void session_drop(tn_sql_session *s, tn_seq_handle **pp) {
    tn_seq_handle *h = *pp;
    *pp = h->next;
    handle_unref(h);
}

static int seq_name(tn_binder *b, const tn_sql_qname *q, tn_sql_pos pos, tn_catalog_name *out) {
    if (q->n > 2) return tn_bind_error(b, pos, "a sequence name has at most two parts (schema.name)");
    int rc = tn_catalog_name_make(out, "sequence", q->n == 2 ? q->parts[0].name : NULL, q->parts[q->n - 1].name);
    return rc ? tn_bind_error_at(b, rc, pos) : 0;
}

static int opt_int(tn_binder *b, tn_sql_expr *e, const char *what, int64_t *v, const int64_t **out) {
    *out = NULL;
    if (!e) return 0;
    int rc = tn_bind_const_int(b, e, what, v);
    if (!rc) *out = v;
    return rc;
}

int tn_sequence_statement(tn_binder *b, tn_sql_stmt *stmt) {
    tn_sql_session *s = b->session;
    tn_catalog_name n;
    int rc;
    if (stmt->kind == TN_SQL_S_DROP) {
        if ((rc = seq_name(b, &stmt->u.drop.name, stmt->pos, &n))) return rc;
        tn_seq_handle **pp = session_find(s, &n, true);
        if (*pp) {                                   /* a temp sequence hides the warehouse's */
            session_drop(s, pp);
            return 0;
        }
        tn_catalog *cat = NULL;
        rc = tn_stmt_catalog(b, false, &cat);
        if (rc == TN_ENOTFOUND) {
            if (stmt->u.drop.if_exists) return tn_error_clear(), 0;
            return tn_bind_error_code(b, TN_ENOTFOUND, stmt->pos, "Sequence with name %s does not exist!", n.name);
        }
        if (!rc) rc = tn_catalog_sequence_drop(cat, &n, stmt->u.drop.if_exists);
        if (rc) return tn_bind_error_at(b, rc, stmt->u.drop.name.parts[0].pos);
        pp = session_find(s, &n, false);
        if (*pp) session_drop(s, pp);
        return 0;
    }
    /* CREATE SEQUENCE */
    if ((rc = seq_name(b, &stmt->u.create_sequence.name, stmt->pos, &n))) return rc;
    int64_t v[4];
    const int64_t *start, *inc, *lo, *hi;
    if ((rc = opt_int(b, stmt->u.create_sequence.start, "START", &v[0], &start)) ||
        (rc = opt_int(b, stmt->u.create_sequence.increment, "INCREMENT", &v[1], &inc)) ||
        (rc = opt_int(b, stmt->u.create_sequence.minvalue, "MINVALUE", &v[2], &lo)) ||
        (rc = opt_int(b, stmt->u.create_sequence.maxvalue, "MAXVALUE", &v[3], &hi)))
        return rc;
    tn_seq init;
    if ((rc = tn_seq_init(&init, start, inc, lo, hi, stmt->u.create_sequence.cycle)))
        return tn_bind_error_at(b, rc, stmt->pos);
    bool or_replace = stmt->u.create_sequence.or_replace, if_not_exists = stmt->u.create_sequence.if_not_exists;
    if (stmt->u.create_sequence.temporary) {
        if (n.schema[0] && strcmp(n.schema, "temp") != 0)
            return tn_bind_error(b, stmt->pos, "TEMPORARY sequences cannot have a schema (%s)", n.schema);
        n.schema[0] = 0;
        tn_seq_handle **pp = session_find(s, &n, true);
        if (*pp && !or_replace) {
            if (if_not_exists) return 0;
            return tn_bind_error_code(b, TN_EEXISTS, stmt->pos, "Sequence with name \"%s\" already exists!", n.name);
        }
        if (*pp) session_drop(s, pp);
        tn_seq_handle *h = handle_new();
        if (!h) return TN_ENOMEM;
        h->temp = true;
        h->state = init;
        h->name = n;
        h->next = s->sequences;
        s->sequences = h;
        return 0;
    }
    tn_catalog *cat = NULL;
    if ((rc = tn_stmt_catalog(b, true, &cat))) return tn_bind_error_at(b, rc, stmt->pos);
    rc = tn_catalog_sequence_create(cat, &n, &init, or_replace, if_not_exists);
    if (rc) return tn_bind_error_at(b, rc, stmt->pos);
    tn_seq_handle **pp = session_find(s, &n, false);
    if (*pp && or_replace) session_drop(s, pp);      /* currval starts over with the new sequence */
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * nextval / currval.
 */
int tn_sequence_call(tn_binder *b, const char *fname, tn_expr **args, uint32_t n, tn_sql_pos pos, tn_expr **out) {
    tn_sql_session *s = b->session;
    bool next = tn_str_iequal(fname, "nextval");
    int rc = 0;
    if (n != 1) {
        for (uint32_t i = 0; i < n; i++) tn_expr_free(args[i]);
        return tn_bind_error(b, pos, "%s takes one argument (the sequence's name)", next ? "nextval" : "currval");
    }
    tn_expr *a = args[0];
    if (a->kind != TN_EXPR_CONSTANT || (!a->u.value.is_null && a->u.value.type.id != TN_TYPE_VARCHAR)) {
        tn_expr_free(a);
        return tn_bind_error_code(b, TN_EUNSUPPORTED, pos,
                                  "currval/nextval requires a constant sequence - non-constant sequences are no longer "
                                  "supported");
    }
    if (a->u.value.is_null) {                        /* nextval(NULL) is NULL */
        tn_expr_free(a);
        tn_value v = {0};
        v.type = tn_type_make(TN_TYPE_BIGINT);
        v.is_null = true;
        return tn_expr_constant(out, &v);
    }
    char text[2 * TN_CATALOG_NAME_MAX + 2];
    snprintf(text, sizeof text, "%.*s", (int)a->u.value.u.s.len, a->u.value.u.s.ptr);
    tn_catalog_name nm;
    rc = tn_catalog_name_parse(&nm, "sequence", text);
    if (rc) {
        tn_expr_free(a);
        return tn_bind_error_at(b, rc, pos);
    }
    tn_seq_handle *h = NULL;
    if (!nm.schema[0]) h = *session_find(s, &nm, true);
    if (!h) {
        tn_catalog *cat = NULL;
        bool ex = false;
        rc = tn_stmt_catalog(b, false, &cat);
        if (!rc) rc = tn_catalog_sequence_exists(cat, &nm, &ex);
        if (rc == TN_ENOTFOUND) tn_error_clear(), rc = 0;
        if (rc || !ex) {
            tn_expr_free(a);
            if (rc) return tn_bind_error_at(b, rc, pos);
            return tn_bind_error_code(b, TN_ENOTFOUND, pos, "Sequence with name %s does not exist!", nm.name);
        }
        h = *session_find(s, &nm, false);
        if (!h) {
            if (!(h = handle_new())) {
                tn_expr_free(a);
                return TN_ENOMEM;
            }
            h->cat = cat;
            h->name = nm;
            h->next = s->sequences;
            s->sequences = h;
        }
    }
    tn_value idv = {0};
    idv.type = tn_type_make(TN_TYPE_BIGINT);
    idv.u.i = (int64_t)h->id;
    tn_expr *ide = NULL;
    if ((rc = tn_expr_constant(&ide, &idv))) {
        tn_expr_free(a);
        return rc;
    }
    tn_expr *two[2] = {a, ide};
    rc = tn_expr_function(out, next ? "nextval" : "currval", two, 2);
    return rc ? tn_bind_error_at(b, rc, pos) : 0;
}

static int bind_handle(tn_func_binding *bd, const tn_value *const *consts, void **bind_data) {
    (void)bd;
    if (!consts || !consts[1] || consts[1]->is_null)
        return tn_error_set(TN_EUNSUPPORTED, "nextval/currval take the sequence's name as a constant");
    tn_seq_handle *h = handle_ref((uint64_t)consts[1]->u.i);
    if (!h) return tn_error_set(TN_EINVAL, "the sequence handle %lld is gone", (long long)consts[1]->u.i);
    *bind_data = h;
    return 0;
}

static int f_nextval(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out) {
    (void)args;
    (void)nargs;
    tn_seq_handle *h = call->bind_data;
    int64_t *v = (int64_t *)out->data;
    if (!h) return tn_error_set(TN_EINTERNAL, "nextval without its sequence");
    if (n == 0) return 0;
    int rc;
    char disp[2 * TN_CATALOG_NAME_MAX + 2];
    if (h->temp) {
        pthread_mutex_lock(&h->mu);
        rc = tn_seq_take(&h->state, tn_catalog_name_format(&h->name, disp, sizeof disp), n, v);
        pthread_mutex_unlock(&h->mu);
    } else {
        rc = tn_catalog_sequence_next(h->cat, &h->name, n, v);
    }
    if (rc) return rc;
    pthread_mutex_lock(&h->mu);
    h->has_last = true;
    h->last = v[n - 1];
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int f_currval(const tn_func_call *call, tn_vector *const *args, uint32_t nargs, uint32_t n, tn_vector *out) {
    (void)args;
    (void)nargs;
    tn_seq_handle *h = call->bind_data;
    if (!h) return tn_error_set(TN_EINTERNAL, "currval without its sequence");
    pthread_mutex_lock(&h->mu);
    bool has = h->has_last;
    int64_t last = h->last;
    pthread_mutex_unlock(&h->mu);
    if (!has) return tn_error_set(TN_EINVAL, "Sequence Error: currval: sequence is not yet defined in this session");
    for (uint32_t i = 0; i < n; i++) ((int64_t *)out->data)[i] = last;
    return 0;
}

#define N TN_SIG_NONE
const tn_func_def tn_funcs_sequence[] = {
    {"nextval", {TN_TYPE_VARCHAR, TN_TYPE_BIGINT, N}, TN_TYPE_BIGINT, TN_FUNC_VOLATILE | TN_FUNC_PER_ROW, f_nextval,
     bind_handle, handle_unref},
    {"currval", {TN_TYPE_VARCHAR, TN_TYPE_BIGINT, N}, TN_TYPE_BIGINT, TN_FUNC_VOLATILE | TN_FUNC_PER_ROW, f_currval,
     bind_handle, handle_unref},
    {NULL, {N}, 0, 0, NULL, NULL, NULL},
};
