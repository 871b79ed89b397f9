/*
 * sql/prepared.c: the SQL statements PREPARE / EXECUTE / DEALLOCATE (DuckDB's), per session:
 * each prepared statement is its own parsed script (tn_sql_script), kept by name until
 * DEALLOCATE or the session's end; EXECUTE evaluates its values as constants and the session
 * runs the script's statement with them as $1..$n (session.c). The pgwire server's protocol-level
 * prepared statements are separate (server/) and do not see these, as in PostgreSQL.
 */
#include <stdio.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/stmt.h"

typedef struct tn_prepared {
    char *name;
    tn_sql_script *script;
    struct tn_prepared *next;
} tn_prepared;

static tn_prepared **find(tn_sql_session *s, const char *name) {
    tn_prepared **pp = &s->prepared;
    while (*pp && !tn_str_iequal((*pp)->name, name)) pp = &(*pp)->next;
    return pp;
}

static void drop_one(tn_prepared **pp) {
    tn_prepared *p = *pp;
    *pp = p->next;
    tn_sql_script_free(p->script);
    tn_free(p->name);
    tn_free(p);
}

void tn_prepared_free_all(tn_sql_session *s) {
    while (s->prepared) drop_one(&s->prepared);
}

/* "2, 3": the parameter numbers from..to (1-based) as DuckDB lists them. */
static void number_list(char *buf, size_t cap, uint32_t from, uint32_t to) {
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t k = from; k <= to && o + 16 < cap; k++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%u", k > from ? ", " : "", k);
}

int tn_prepared_statement(tn_binder *b, tn_sql_stmt *stmt, tn_sql_script **exec, tn_value **vals, uint32_t *nvals) {
    tn_sql_session *s = b->session;
    *exec = NULL;
    *vals = NULL;
    *nvals = 0;
    if (stmt->kind == TN_SQL_S_DEALLOCATE) {
        if (stmt->u.deallocate.all) tn_prepared_free_all(s);
        else {
            tn_prepared **pp = find(s, stmt->u.deallocate.name.name);
            if (*pp) drop_one(pp);        /* an unknown name is no error (DuckDB) */
        }
        return 0;
    }
    if (stmt->kind == TN_SQL_S_PREPARE) {
        tn_sql_script *sc = NULL;
        const char *text = stmt->u.prepare.text;
        int rc = tn_sql_script_parse(&sc, s, text, strlen(text));
        if (rc) return rc;
        tn_prepared **pp = find(s, stmt->u.prepare.name.name);
        if (*pp) {                        /* PREPARE of a name in use replaces it (DuckDB) */
            tn_sql_script_free((*pp)->script);
            (*pp)->script = sc;
            return 0;
        }
        tn_prepared *p = tn_calloc(1, sizeof *p);
        if (!p || !(p->name = tn_strdup(stmt->u.prepare.name.name))) {
            tn_free(p);
            tn_sql_script_free(sc);
            return TN_ENOMEM;
        }
        p->script = sc;
        p->next = s->prepared;
        s->prepared = p;
        return 0;
    }
    /* EXECUTE */
    tn_prepared *p = *find(s, stmt->u.execute.name.name);
    if (!p) return tn_bind_error(b, stmt->u.execute.name.pos, "Prepared statement \"%s\" does not exist",
                                 stmt->u.execute.name.name);
    uint32_t need = tn_sql_script_nparams(p->script, 0), given = (uint32_t)stmt->u.execute.n_args;
    char list[256];
    if (given < need) {
        number_list(list, sizeof list, given + 1, need);
        return tn_bind_error_code(b, TN_EINVAL, stmt->pos,
                                  "Values were not provided for the following prepared statement parameters: %s", list);
    }
    if (given > need) {
        number_list(list, sizeof list, need + 1, given);
        return tn_bind_error_code(b, TN_EINVAL, stmt->pos,
                                  "Parameter argument/count mismatch, identifiers of the excess parameters: %s", list);
    }
    tn_value *v = given ? tn_arena_calloc(b->arena, given * sizeof *v) : NULL;
    if (given && !v) return TN_ENOMEM;
    for (uint32_t i = 0; i < given; i++) {
        tn_sql_expr *a = stmt->u.execute.args[i];
        if (a->kind == TN_SQL_E_SUBQUERY || a->kind == TN_SQL_E_EXISTS)
            return tn_bind_error_code(b, TN_EINVAL, a->pos,
                                      "Only scalar parameters, named parameters or NULL supported for EXECUTE");
        int rc = tn_bind_const_value(b, a, &v[i]);
        if (rc) return rc;
    }
    *exec = p->script;
    *vals = v;
    *nvals = given;
    return 0;
}
