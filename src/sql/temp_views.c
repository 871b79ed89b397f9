/*
 * sql/temp_views.c: Spark's temporary views, kept in the session and never written to the
 * warehouse: CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW v [(cols)] AS query. A temporary view
 * is found by its bare name before tables and stored views; a global one as global_temp.v
 * (Spark's reserved schema). When global_temp.x names no global temporary view (and the
 * warehouse has no schema global_temp), it is the table or view x of the default schema: what a
 * Spark job exposes as global_temp.x over JDBC is, in tarn, that table itself (the seed's
 * `FROM global_temp.test_binary` reads the Phoenix table test_binary).
 */
#include <stdio.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/stmt.h"

typedef struct tn_temp_view {
    struct tn_temp_view *next;
    char *name;
    bool global;
    char *sql;
    char **columns;
    uint32_t ncolumns;
} tn_temp_view;

static void view_free(tn_temp_view *v) {
    if (!v) return;
    for (uint32_t i = 0; i < v->ncolumns; i++) tn_free(v->columns[i]);
    tn_free(v->columns);
    tn_free(v->name);
    tn_free(v->sql);
    tn_free(v);
}

void tn_temp_views_free(tn_sql_session *s) {
    for (tn_temp_view *v = s->temp_views, *n; v; v = n) {
        n = v->next;
        view_free(v);
    }
    s->temp_views = NULL;
}

static tn_temp_view **find(tn_sql_session *s, const char *name, bool global) {
    for (tn_temp_view **p = &s->temp_views; *p; p = &(*p)->next)
        if ((*p)->global == global && tn_str_iequal((*p)->name, name)) return p;
    return NULL;
}

bool tn_temp_view_is_global_schema(const char *schema) { return schema && tn_str_iequal(schema, "global_temp"); }

int tn_temp_view_create(tn_binder *b, const char *name, bool global, const char *sql, const char *const *columns,
                        uint32_t ncolumns, bool or_replace, bool if_not_exists, tn_sql_pos pos) {
    tn_sql_session *s = b->session;
    tn_temp_view **old = find(s, name, global);
    if (old && if_not_exists) return 0;
    if (old && !or_replace)
        return tn_bind_error_code(b, TN_EEXISTS, pos, "Temporary view '%s' already exists", name);
    tn_temp_view *v = tn_calloc(1, sizeof *v);
    if (!v) return TN_ENOMEM;
    v->name = tn_strdup(name);
    v->sql = tn_strdup(sql);
    v->global = global;
    v->columns = tn_calloc((size_t)ncolumns + 1, sizeof *v->columns);
    int rc = v->name && v->sql && v->columns ? 0 : TN_ENOMEM;
    for (uint32_t i = 0; i < ncolumns && !rc; i++, v->ncolumns++)
        if (!(v->columns[i] = tn_strdup(columns[i]))) rc = TN_ENOMEM;
    if (rc) {
        view_free(v);
        return rc;
    }
    if (old) {
        tn_temp_view *o = *old;
        v->next = o->next;
        *old = v;
        view_free(o);
    } else {
        v->next = s->temp_views;
        s->temp_views = v;
    }
    return 0;
}

int tn_temp_view_drop(tn_binder *b, const char *schema, const char *name, bool *dropped) {
    bool global = tn_temp_view_is_global_schema(schema);
    *dropped = false;
    if (schema && !global) return 0;
    tn_temp_view **p = find(b->session, name, global);
    if (!p) return 0;
    tn_temp_view *v = *p;
    *p = v->next;
    view_free(v);
    *dropped = true;
    return 0;
}

int tn_temp_view_bind(tn_binder *b, const char *schema, const char *name, tn_sql_pos pos, tn_plan **out,
                      bool *found) {
    bool global = tn_temp_view_is_global_schema(schema);
    *found = false;
    if (schema && !global) return 0;
    tn_temp_view **p = find(b->session, name, global);
    if (!p) return 0;
    const tn_temp_view *v = *p;
    *found = true;
    char what[300];
    snprintf(what, sizeof what, "temporary view '%s%s'", global ? "global_temp." : "", v->name);
    if (++b->depth > 64) {
        b->depth--;
        return tn_bind_error_code(b, TN_ELIMIT, pos, "%s: views nested too deeply (a view that reads itself?)", what);
    }
    int rc = tn_bind_query_text(b, v->sql, what, out);
    b->depth--;
    if (rc || !v->ncolumns) return rc;
    tn_plan *pl = *out;
    if (v->ncolumns > pl->ncols)
        return tn_bind_error(b, pos, "%s has %u column names but its query gives %u columns", what, v->ncolumns,
                             pl->ncols);
    const char **names = tn_arena_alloc(b->arena, (pl->ncols + 1) * sizeof *names);
    if (!names) return TN_ENOMEM;
    for (uint32_t i = 0; i < pl->ncols; i++)
        names[i] = i < v->ncolumns ? tn_arena_strdup(b->arena, v->columns[i]) : pl->names[i];
    pl->names = names;
    return 0;
}
