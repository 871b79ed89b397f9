/*
 * sql/bind_star.c: stars of a select list (DuckDB): `*` and `t.*` with EXCLUDE (names, or
 * qualified t.a), REPLACE (expr AS c: the column keeps its place and name) and RENAME (c AS x),
 * `s.*` of a STRUCT value, and COLUMNS(*) / COLUMNS('regex') / COLUMNS(* EXCLUDE ...): a select
 * item holding COLUMNS is bound once per selected column, the star binding as that column
 * (b->columns_pick), the output named as the column unless the item has an alias. The
 * syntax is parser_star.c; the select list itself bind_query.c.
 */
#include <string.h>

#include "sql/bindInt.h"

/* s.* where s is no FROM item but a STRUCT-typed expression (a column, s.t a field path): one
 * item per field, named as the field (DuckDB). */
static int expand_struct_star(tn_binder *b, bind_ctx *c, tn_sql_expr *star, sel_list *items) {
    tn_sql_expr col = *star;
    col.kind = TN_SQL_E_COLUMN;
    col.u.column = star->u.star.qual;
    tn_expr *x = NULL;
    int rc = tn_bind_expr(c, &col, &x);
    if (rc) {
        tn_error_clear();
        return tn_bind_error(b, star->pos, "Referenced table \"%s\" not found!", star->u.star.qual.parts[star->u.star.qual.n - 1].name);
    }
    if (x->type.id != TN_TYPE_STRUCT) {
        char tb[128];
        tn_type t = x->type;
        tn_expr_free(x);
        return tn_bind_error(b, star->pos, "%s.* needs a table or a STRUCT, not %s", star->u.star.qual.parts[star->u.star.qual.n - 1].name,
                             tn_type_format(t, tb, sizeof tb));
    }
    uint32_t nf = x->type.nested->nchildren;
    for (uint32_t f = 0; f < nf && !rc; f++) {
        const char *fname = x->type.nested->names[f];
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_VARCHAR);
        v.u.s.ptr = fname;
        v.u.s.len = (uint32_t)strlen(fname);
        tn_expr *args[2] = {f + 1 == nf ? x : tn_expr_copy(x), NULL};
        if (!args[0]) { rc = TN_ENOMEM; break; }
        rc = tn_expr_constant(&args[1], &v);
        if (rc) { if (args[0] != x) tn_expr_free(args[0]); break; }
        if (args[0] == x) x = NULL;
        tn_expr *fx = NULL;
        rc = tn_expr_function(&fx, "struct_extract", args, 2);
        if (!rc) rc = tn_bind_sel_push(b, items, fx, tn_arena_strdup(b->arena, fname), NULL, NULL);
    }
    tn_expr_free(x);
    return rc ? tn_bind_error_at(b, rc, star->pos) : 0;
}


static const char *qlast(const tn_sql_qname *q) { return q->parts[q->n - 1].name; }

/* Whether EXCLUDE entry e names column `name` of rel: `a` any a, `t.a` the a of FROM item t. */
static bool exclude_hits(const tn_sql_qname *e, const bind_rel *rel, const char *name) {
    if (!tn_str_iequal(qlast(e), name)) return false;
    if (e->n == 1) return true;
    return rel->alias && tn_str_iequal(rel->alias, e->parts[e->n - 2].name);
}

/* The columns a star selects, in order: (rel, column) pairs, with the REPLACE / RENAME entry
 * of each (-1 = none); entries that matched nothing are errors, as DuckDB words them. */
typedef struct star_col {
    uint32_t rel, col;
    int replace, rename;
} star_col;

static int star_columns(tn_binder *b, bind_scope *S, tn_sql_expr *star, star_col **out, uint32_t *nout) {
    const tn_sql_qname *q = &star->u.star.qual;
    const tn_sql_star_opts *o = star->u.star.opts;
    const char *tab = q->n ? qlast(q) : NULL;
    int nex = o ? o->n_exclude : 0, nrep = o ? o->n_replace : 0, nren = o ? o->n_rename : 0;
    bool *used = tn_arena_calloc(b->arena, (size_t)(nex + nrep + nren + 1));
    star_col *cols = tn_arena_calloc(b->arena, ((size_t)S->ncols + 1) * sizeof *cols);
    if (!used || !cols) return TN_ENOMEM;
    uint32_t n = 0;
    tn_regex *re = NULL;
    if (o && o->pattern) {
        const tn_sql_expr *pe = o->pattern;
        int rc = tn_regex_compile(&re, pe->u.lit.text, pe->u.lit.len, 0);
        if (rc) {
            tn_error_clear();
            return tn_bind_error(b, pe->pos, "Failed to compile regex \"%.*s\"", (int)pe->u.lit.len, pe->u.lit.text);
        }
    }
    for (uint32_t r = 0; r < S->nrels; r++) {
        bind_rel *rel = &S->rels[r];
        if (tab && (!rel->alias || !tn_str_iequal(rel->alias, tab))) continue;
        for (uint32_t i = 0; i < rel->ncols; i++) {
            bool excluded = false;
            for (int k = 0; k < nex; k++)
                if (exclude_hits(&o->exclude[k], rel, rel->names[i])) used[k] = excluded = true;
            if (excluded || (!tab && rel->hidden && rel->hidden[i])) continue;
            if (re && !tn_regex_search(re, rel->names[i], strlen(rel->names[i]))) continue;
            star_col *sc = &cols[n++];
            sc->rel = r;
            sc->col = i;
            sc->replace = sc->rename = -1;
            for (int k = 0; k < nrep; k++)
                if (tn_str_iequal(o->replace[k].name.name, rel->names[i])) {
                    sc->replace = k;
                    used[nex + k] = true;
                }
            for (int k = 0; k < nren; k++)
                if (tn_str_iequal(o->rename[k].name.name, rel->names[i])) {
                    sc->rename = k;
                    used[nex + nrep + k] = true;
                }
        }
    }
    tn_regex_free(re);
    for (int k = 0; k < nex + nrep + nren; k++) {
        if (used[k]) continue;
        const char *list = k < nex ? "EXCLUDE" : k < nex + nrep ? "REPLACE" : "RENAME";
        const char *col = k < nex ? qlast(&o->exclude[k]) : k < nex + nrep ? o->replace[k - nex].name.name
                                                                       : o->rename[k - nex - nrep].name.name;
        tn_sql_pos pos = k < nex ? o->exclude[k].parts[0].pos : k < nex + nrep ? o->replace[k - nex].name.pos
                                                                           : o->rename[k - nex - nrep].name.pos;
        if (tab) return tn_bind_error(b, pos, "Column \"%s\" in %s list not found in %s", col, list, tab);
        return tn_bind_error(b, pos, "Column \"%s\" in %s list not found in FROM clause", col, list);
    }
    if (o && o->pattern && n == 0)
        return tn_bind_error(b, star->pos, "No matching columns found that match regex \"%.*s\"",
                             (int)o->pattern->u.lit.len, o->pattern->u.lit.text);
    *out = cols;
    *nout = n;
    return 0;
}

/* Column i of rel as a select item: itself, or the aggregate's group it is (c->agg). */
static int star_column(tn_binder *b, bind_ctx *c, bind_scope *S, tn_sql_expr *star, const star_col *sc, tn_expr **out) {
    bind_rel *rel = &S->rels[sc->rel];
    tn_expr *x = NULL;
    int rc = tn_expr_column(&x, rel->offset + sc->col, rel->types[sc->col]);
    if (rc || !c->agg) {
        *out = x;
        return rc;
    }
    char *text = tn_bind_expr_text(b, x);
    tn_expr_free(x);
    if (!text) return TN_ENOMEM;
    for (uint32_t g = 0; g < c->agg->ngroups; g++)
        if (strcmp(text, c->agg->group_text[g]) == 0) return tn_expr_column(out, g, rel->types[sc->col]);
    return tn_bind_error(b, star->pos, "column \"%s\" must appear in the GROUP BY clause or must "
                         "be part of an aggregate function.", rel->names[sc->col]);
}

int tn_bind_star(tn_binder *b, bind_ctx *c, bind_scope *S, tn_sql_expr *star, sel_list *items) {
    const tn_sql_qname *q = &star->u.star.qual;
    const tn_sql_star_opts *o = star->u.star.opts;
    const char *tab = q->n ? qlast(q) : NULL;
    bool named = false;
    for (uint32_t r = 0; r < S->nrels && tab && !named; r++)
        named = S->rels[r].alias && tn_str_iequal(S->rels[r].alias, tab);
    if (tab && !named) {
        if (o && (o->n_exclude || o->n_replace || o->n_rename))
            return tn_bind_error_code(b, TN_EUNSUPPORTED, star->pos,
                                      "EXCLUDE / REPLACE / RENAME after a STRUCT's .* are not supported yet");
        return expand_struct_star(b, c, star, items);
    }
    star_col *cols = NULL;
    uint32_t n = 0;
    int rc = star_columns(b, S, star, &cols, &n);
    if (rc) return rc;
    if (n == 0 && !(o && o->n_exclude)) {
        if (tab) return tn_bind_error(b, star->pos, "Referenced table \"%s\" not found!", tab);
        return tn_bind_error(b, star->pos, "SELECT * with no tables specified is not valid");
    }
    for (uint32_t k = 0; k < n; k++) {
        const star_col *sc = &cols[k];
        const char *name = S->rels[sc->rel].names[sc->col];
        tn_expr *x = NULL;
        tn_sql_expr *ast = NULL;
        if (sc->replace >= 0) {
            ast = o->replace[sc->replace].expr;
            rc = tn_bind_expr(c, ast, &x);
            if (!rc) rc = tn_bind_fold(b, &x);
            if (rc) {
                tn_expr_free(x);
                return rc;
            }
            name = o->replace[sc->replace].name.name;
        } else if ((rc = star_column(b, c, S, star, sc, &x))) {
            return rc;
        }
        if (sc->rename >= 0) name = o->rename[sc->rename].new_name.name;
        rc = tn_bind_sel_push(b, items, x, name, sc->rename >= 0 ? name : NULL, ast);
        if (rc) return rc;
    }
    return 0;
}

int tn_bind_columns_item(tn_binder *b, bind_ctx *c, bind_scope *S, tn_sql_select_item *it, sel_list *items) {
    /* the first COLUMNS(...) of the item decides the columns; every COLUMNS in it binds as the
     * same column (DuckDB: COLUMNS(*) + COLUMNS(*) is 2 * each column) */
    tn_sql_expr *star = NULL;
    tn_sql_expr *stack[64];
    int sp = 0;
    stack[sp++] = it->expr;
    while (sp && !star) {        /* find it: the binder's own walk is private, a small one here */
        tn_sql_expr *e = stack[--sp];
        if (!e) continue;
        if (e->kind == TN_SQL_E_STAR && e->u.star.opts && e->u.star.opts->columns) { star = e; break; }
        switch (e->kind) {
        case TN_SQL_E_UNARY: stack[sp++] = e->u.unary.arg; break;
        case TN_SQL_E_BINARY:
            if (sp < 62) { stack[sp++] = e->u.binary.right; stack[sp++] = e->u.binary.left; }
            break;
        case TN_SQL_E_CAST: stack[sp++] = e->u.cast.arg; break;
        case TN_SQL_E_IS: stack[sp++] = e->u.is.arg; break;
        case TN_SQL_E_FUNCTION:
            for (int i = e->u.func.args.n - 1; i >= 0 && sp < 63; i--) stack[sp++] = e->u.func.args.items[i];
            break;
        default: break;
        }
    }
    if (!star) return tn_bind_error_code(b, TN_EUNSUPPORTED, it->expr->pos, "COLUMNS(...) is not supported in this position yet");
    star_col *cols = NULL;
    uint32_t n = 0;
    bind_scope *names = c->agg ? c->agg->pre : S;
    int rc = star_columns(b, names, star, &cols, &n);
    if (rc) return rc;
    if (star->u.star.opts->n_replace || star->u.star.opts->n_rename)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, star->pos, "REPLACE / RENAME inside COLUMNS(...) are not supported yet");
    tn_sql_expr *saved = b->columns_pick;
    for (uint32_t k = 0; k < n && !rc; k++) {
        const bind_rel *rel = &names->rels[cols[k].rel];
        tn_sql_expr *col = tn_arena_calloc(b->arena, sizeof *col);
        tn_sql_ident *parts = tn_arena_calloc(b->arena, 2 * sizeof *parts);
        if (!col || !parts) { rc = TN_ENOMEM; break; }
        col->kind = TN_SQL_E_COLUMN;
        col->pos = star->pos;
        int np = 0;
        if (rel->alias) parts[np++] = (tn_sql_ident){rel->alias, true, star->pos};
        parts[np++] = (tn_sql_ident){rel->names[cols[k].col], true, star->pos};
        col->u.column.parts = parts;
        col->u.column.n = np;
        b->columns_pick = col;
        tn_expr *x = NULL;
        rc = tn_bind_expr(c, it->expr, &x);
        if (!rc) rc = tn_bind_fold(b, &x);
        if (rc) {
            tn_expr_free(x);
            break;
        }
        const char *name = it->alias.name ? it->alias.name : rel->names[cols[k].col];
        rc = tn_bind_sel_push(b, items, x, name, it->alias.name, it->expr);
    }
    b->columns_pick = saved;
    return rc;
}
