/*
 * sql/bind.c: the binder's statement entry, its error reporting (line:column and a caret),
 * name scopes, and the FROM clause: table functions (read_parquet, read_csv, read_json),
 * subqueries, CTE references, joins (ON, USING, NATURAL, comma lists) and TABLESAMPLE.
 * Expressions are bind_expr.c's, query blocks bind_query.c's.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bindInt.h"
#include "sql/stmt.h"
#include "text/text.h"

/* ---------------------------------------------------------------------------------------------
 * Errors.
 */
static _Thread_local tn_sql_pos g_err_pos;

tn_sql_pos tn_sql_error_pos(void) { return g_err_pos; }
void tn_bind_set_pos(tn_sql_pos pos) { g_err_pos = pos; }

/* DuckDB's error class for a tarn error code, put in front of binder-time messages so that
 * users see (and search for) the same "Binder Error: ..." text as in DuckDB. */
const char *tn_sql_error_class(int code) {
    switch (code) {
    case TN_EBIND: return "Binder Error";
    case TN_ENOTFOUND: case TN_EEXISTS: return "Catalog Error";
    case TN_ESYNTAX: return "Parser Error";
    case TN_EINVAL: return "Invalid Input Error";
    case TN_ELIMIT: return "Out of Range Error";
    case TN_EUNSUPPORTED: return "Not implemented Error";
    case TN_ECONSTRAINT: return "Constraint Error";
    case TN_ECONFLICT: return "TransactionContext Error";
    case TN_EIO: return "IO Error";
    default: return NULL;
    }
}

/* "<Class>: <msg>\nat line L, column C:\n<source line>\n<caret>"; the class is the message's
 * own when it names one ("Conversion Error: ..."), else the code's. */
static int format_at(tn_binder *b, int code, tn_sql_pos pos, const char *msg) {
    tn_buf buf = TN_BUF_INIT;
    g_err_pos = pos;
    const char *klass = tn_error_class_len(msg) ? NULL : tn_sql_error_class(code);
    if (klass) tn_buf_printf(&buf, "%s: ", klass);
    tn_buf_printf(&buf, "%s", msg);
    if (pos.line != 0 && b != NULL && b->sql != NULL && pos.offset <= b->sql_len) {
        size_t start = pos.offset, end = pos.offset;
        while (start > 0 && b->sql[start - 1] != '\n') start--;
        while (end < b->sql_len && b->sql[end] != '\n' && b->sql[end] != '\r') end++;
        tn_buf_printf(&buf, "\nat line %u, column %u:\n%.*s\n", pos.line, pos.col, (int)(end - start),
                      b->sql + start);
        for (uint32_t i = 1; i < pos.col; i++) tn_buf_append_byte(&buf, ' ');
        tn_buf_append_byte(&buf, '^');
    }
    tn_buf_append_byte(&buf, 0);
    tn_error_set(code, "%s", buf.data ? (const char *)buf.data : msg);
    tn_buf_free(&buf);
    return code;
}

int tn_bind_error_code(tn_binder *b, int code, tn_sql_pos pos, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return format_at(b, code, pos, msg);
}

int tn_bind_error(tn_binder *b, tn_sql_pos pos, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return format_at(b, TN_EBIND, pos, msg);
}

int tn_bind_error_at(tn_binder *b, int code, tn_sql_pos pos) {
    const char *m = tn_error_message();
    if (code == TN_ENOMEM || strstr(m, " at line ") != NULL || strstr(m, "\nat line ") != NULL) return code;
    if (code == TN_EINTERRUPT) return tn_error_set(code, "Interrupted");   /* no context, no caret */
    char msg[900];
    snprintf(msg, sizeof msg, "%s", m);
    return format_at(b, code, pos, msg);
}

/* ---------------------------------------------------------------------------------------------
 * Plans and scopes.
 */
tn_plan *tn_plan_new(tn_arena *arena, tn_plan_kind kind, uint32_t ncols) {
    tn_plan *p = tn_arena_calloc(arena, sizeof *p);
    if (!p) return NULL;
    p->kind = kind;
    p->ncols = ncols;
    p->types = tn_arena_calloc(arena, (ncols + 1) * sizeof *p->types);
    p->names = tn_arena_calloc(arena, (ncols + 1) * sizeof *p->names);
    if (!p->types || !p->names) return NULL;
    p->est_rows = 1000;
    return p;
}

int tn_scope_add(tn_binder *b, bind_scope *s, const char *alias, uint32_t ncols,
                 const char *const *names, const tn_type *types) {
    if (s->nrels == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 4;
        bind_rel *r = tn_arena_alloc(b->arena, cap * sizeof *r);
        if (!r) return TN_ENOMEM;
        if (s->nrels) memcpy(r, s->rels, s->nrels * sizeof *r);
        s->rels = r;
        s->cap = cap;
    }
    bind_rel *r = &s->rels[s->nrels++];
    memset(r, 0, sizeof *r);
    r->alias = alias;
    r->ncols = ncols;
    r->names = tn_arena_alloc(b->arena, (ncols + 1) * sizeof *r->names);
    r->types = tn_arena_alloc(b->arena, (ncols + 1) * sizeof *r->types);
    if (!r->names || !r->types) return TN_ENOMEM;
    for (uint32_t i = 0; i < ncols; i++) {
        r->names[i] = names[i];
        r->types[i] = types[i];
    }
    r->offset = s->ncols;
    s->ncols += ncols;
    return 0;
}

int tn_scope_merge(tn_binder *b, bind_scope *dst, const bind_scope *right) {
    uint32_t base = dst->ncols;
    for (uint32_t i = 0; i < right->nrels; i++) {
        const bind_rel *r = &right->rels[i];
        int rc = tn_scope_add(b, dst, r->alias, r->ncols, r->names, r->types);
        if (rc) return rc;
        bind_rel *n = &dst->rels[dst->nrels - 1];
        n->offset = base + r->offset;
        n->hidden = r->hidden;
    }
    dst->ncols = base + right->ncols;
    return 0;
}

int tn_bind_project(tn_binder *b, tn_plan *child, tn_expr **exprs, const char **names,
                    uint32_t n, tn_plan **out) {
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_PROJECT, n);
    if (!p) {
        for (uint32_t i = 0; i < n; i++) tn_expr_free(exprs[i]);
        return TN_ENOMEM;
    }
    p->u.project.exprs = tn_arena_calloc(b->arena, (n + 1) * sizeof(tn_expr *));
    if (!p->u.project.exprs) {
        for (uint32_t i = 0; i < n; i++) tn_expr_free(exprs[i]);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        p->u.project.exprs[i] = exprs[i];
        p->types[i] = exprs[i]->type;
        p->names[i] = names ? names[i] : child->names[i];
    }
    p->child[0] = child;
    p->est_rows = child->est_rows;
    *out = p;
    return 0;
}

int tn_bind_cast_plan(tn_binder *b, tn_plan *plan, const tn_type *types, tn_plan **out) {
    bool same = true;
    for (uint32_t i = 0; i < plan->ncols; i++)
        if (!tn_type_equal(plan->types[i], types[i])) same = false;
    if (same) {
        *out = plan;
        return 0;
    }
    tn_expr **ex = tn_arena_calloc(b->arena, (plan->ncols + 1) * sizeof *ex);
    if (!ex) return TN_ENOMEM;
    for (uint32_t i = 0; i < plan->ncols; i++) {
        tn_expr *c = NULL;
        int rc = tn_expr_column(&c, i, plan->types[i]);
        if (!rc && !tn_type_equal(plan->types[i], types[i])) rc = tn_expr_cast(&c, c, types[i], false);
        if (rc) {
            for (uint32_t j = 0; j < i; j++) tn_expr_free(ex[j]);
            return rc;
        }
        ex[i] = c;
    }
    return tn_bind_project(b, plan, ex, plan->names, plan->ncols, out);
}

/* ---------------------------------------------------------------------------------------------
 * Table functions.
 */
static int add_path(tn_binder *b, tn_plan_scan *s, uint32_t *cap, const char *path) {
    if (s->npaths == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        char **p = tn_arena_alloc(b->arena, nc * sizeof *p);
        if (!p) return TN_ENOMEM;
        if (s->npaths) memcpy(p, s->paths, s->npaths * sizeof *p);
        s->paths = p;
        *cap = nc;
    }
    s->paths[s->npaths] = tn_arena_strdup(b->arena, path);
    if (!s->paths[s->npaths]) return TN_ENOMEM;
    s->npaths++;
    return 0;
}

static int expand_glob(tn_binder *b, tn_plan_scan *s, uint32_t *cap, const char *pattern,
                       tn_sql_pos pos) {
    tn_sql_batch *bt = b->session->batch;
    if (bt && bt->files) {          /* a continuous job's batch: its new files only (sql.h) */
        const char *const *paths = NULL;
        uint32_t n = 0;
        bool handled = false;
        int rc = bt->files(bt->ctx, pattern, &paths, &n, &handled);
        if (rc) return tn_bind_error_at(b, rc, pos);
        if (handled) {
            for (uint32_t i = 0; i < n && !rc; i++) rc = add_path(b, s, cap, paths[i]);
            return rc;
        }
    }
    if (strpbrk(pattern, "*?[") == NULL) return add_path(b, s, cap, pattern);
    glob_t g;
    memset(&g, 0, sizeof g);
    int grc = glob(pattern, 0, NULL, &g);
    if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
        globfree(&g);
        return tn_bind_error_code(b, TN_ENOTFOUND, pos, "No files found that match the pattern \"%s\"",
                                  pattern);
    }
    if (grc != 0) {
        globfree(&g);
        return tn_bind_error_code(b, TN_EIO, pos, "cannot expand \"%s\"", pattern);
    }
    int rc = 0;
    for (size_t i = 0; i < g.gl_pathc && !rc; i++) rc = add_path(b, s, cap, g.gl_pathv[i]);
    globfree(&g);
    return rc;
}

static bool opt_bool(const tn_value *v) {
    if (v->is_null) return false;
    if (v->type.id == TN_TYPE_BOOLEAN) return v->u.b;
    if (tn_type_is_integer(v->type)) return v->u.i != 0;
    if (tn_type_is_string(v->type))
        return v->u.s.len && (v->u.s.ptr[0] == 't' || v->u.s.ptr[0] == 'T' || v->u.s.ptr[0] == '1');
    return false;
}

static char opt_char(const tn_value *v) {
    if (v->is_null || !tn_type_is_string(v->type) || v->u.s.len == 0) return 0;
    if (v->u.s.len == 2 && v->u.s.ptr[0] == '\\' && v->u.s.ptr[1] == 't') return '\t';
    return v->u.s.ptr[0];
}

/* read_csv/read_json options that only restate what tarn does are accepted; any other value
 * is refused by name, never ignored: auto_detect = true (tarn always detects), JSON format
 * 'auto'/'newline_delimited'/'nd' (NDJSON is what it reads), records = true/'auto';
 * sample_size sets the rows the type detection reads (-1: the whole file). */
static bool opt_is(const tn_value *v, const char *const *ok) {
    if (v->is_null || !tn_type_is_string(v->type)) return false;
    for (; *ok; ok++)
        if (strlen(*ok) == v->u.s.len && tn_str_iequal_n(v->u.s.ptr, v->u.s.len, *ok)) return true;
    return false;
}

static int text_option(tn_binder *b, tn_plan_scan *sc, tn_sql_pos pos, const char *fn, const char *opt,
                       const tn_value *v) {
    static const char *const fmt_ok[] = {"auto", "newline_delimited", "nd", NULL};
    static const char *const rec_ok[] = {"auto", "true", NULL};
    bool accepted;
    if (strcmp(opt, "auto_detect") == 0) accepted = opt_bool(v);
    else if (strcmp(opt, "format") == 0) accepted = opt_is(v, fmt_ok);
    else if (strcmp(opt, "records") == 0) accepted = opt_is(v, rec_ok) || (v->type.id == TN_TYPE_BOOLEAN && opt_bool(v));
    else {                                       /* sample_size: -1 = the whole file, as DuckDB */
        if (!v->is_null && tn_type_is_integer(v->type) && (v->u.i == -1 || v->u.i >= 1)) {
            sc->text_sample_size = v->u.i == -1 || v->u.i > UINT32_MAX ? UINT32_MAX : (uint32_t)v->u.i;
            return 0;
        }
        return tn_bind_error(b, pos, "%s option sample_size must be a positive number of rows or -1 (the whole file)", fn);
    }
    if (accepted) return 0;
    return tn_bind_error_code(b, TN_EUNSUPPORTED, pos, "%s option %s: only %s is supported", fn, opt,
                              strcmp(opt, "auto_detect") == 0 ? "true (tarn always detects the format)"
                              : strcmp(opt, "format") == 0 ? "'auto' or 'newline_delimited' (one JSON object a line)"
                                                           : "true (each line is one record)");
}

static int open_parquet_files(tn_binder *b, tn_plan *p, tn_sql_pos pos) {
    tn_plan_scan *s = &p->u.scan;
    s->files = tn_arena_calloc(b->arena, s->npaths * sizeof *s->files);
    if (!s->files) return TN_ENOMEM;
    s->total_rows = 0;
    for (uint32_t i = 0; i < s->npaths; i++) {
        int rc = tn_parquet_open(&s->files[i], tn_fs_default(), s->paths[i], NULL);
        if (rc) return tn_bind_error_at(b, rc, pos);
        s->total_rows += tn_parquet_num_rows(s->files[i]);
        uint32_t nc = tn_parquet_num_columns(s->files[i]);
        if (i == 0) {
            s->nsrc = nc;
            s->src_names = tn_arena_calloc(b->arena, (nc + 1) * sizeof(char *));
            s->src_types = tn_arena_calloc(b->arena, (nc + 1) * sizeof(tn_type));
            if (!s->src_names || !s->src_types) return TN_ENOMEM;
            for (uint32_t c = 0; c < nc; c++) {
                const tn_parquet_column_info *ci = tn_parquet_column(s->files[i], c);
                s->src_names[c] = tn_arena_strdup(b->arena, ci->name);
                s->src_types[c] = ci->type;
            }
        } else {
            bool ok = nc == s->nsrc;
            for (uint32_t c = 0; ok && c < nc; c++) {
                const tn_parquet_column_info *ci = tn_parquet_column(s->files[i], c);
                ok = strcmp(ci->name, s->src_names[c]) == 0 && tn_type_equal(ci->type, s->src_types[c]);
            }
            if (!ok)
                return tn_bind_error(b, pos, "%s: schema differs from %s (tarn reads only files "
                                     "with identical schemas together)", s->paths[i], s->paths[0]);
        }
    }
    return 0;
}

/* Copies a text reader's inferred columns (borrowed from the reader) into the scan's schema. */
static int set_source_schema(tn_binder *b, tn_plan_scan *s, uint32_t nc, const char *const *names,
                             const tn_type *types) {
    s->nsrc = nc;
    s->src_names = tn_arena_calloc(b->arena, (nc + 1) * sizeof(char *));
    s->src_types = tn_arena_calloc(b->arena, (nc + 1) * sizeof(tn_type));
    if (!s->src_names || !s->src_types) return TN_ENOMEM;
    for (uint32_t c = 0; c < nc; c++) {
        if (!(s->src_names[c] = tn_arena_strdup(b->arena, names[c]))) return TN_ENOMEM;
        s->src_types[c] = types[c];
    }
    return 0;
}

static int open_text_schema(tn_binder *b, tn_plan *p, tn_sql_pos pos) {
    tn_plan_scan *s = &p->u.scan;
    const char *const *names = NULL;
    const tn_type *types = NULL;
    uint32_t nc = 0;
    int rc = 0;
    if (s->format == TN_SCAN_CSV) {
        tn_csv_options o;
        tn_plan_scan_csv_options(s, &o);
        tn_csv_reader *r = NULL;
        rc = tn_csv_open(&r, tn_fs_default(), s->paths[0], &o);
        if (rc) return tn_bind_error_at(b, rc, pos);
        nc = tn_csv_columns(r, &names, &types);
        s->csv_delim = tn_csv_delimiter(r);
        s->csv_header = tn_csv_has_header(r) ? 1 : 0;
        rc = set_source_schema(b, s, nc, names, types);
        tn_csv_close(r);
    } else {
        tn_ndjson_reader *r = NULL;
        tn_ndjson_options jo;
        tn_plan_scan_ndjson_options(s, &jo);
        rc = tn_ndjson_open(&r, tn_fs_default(), s->paths[0], &jo);
        if (rc) return tn_bind_error_at(b, rc, pos);
        nc = tn_ndjson_columns(r, &names, &types);
        if (nc == 0) {      /* an empty file, or only blank lines / {} objects: nothing to infer */
            tn_ndjson_close(r);
            return tn_bind_error(b, pos, "read_json: %s has no columns to read (the file is empty or holds only "
                                 "empty objects)", s->paths[0]);
        }
        rc = set_source_schema(b, s, nc, names, types);
        tn_ndjson_close(r);
    }
    s->total_rows = -1;
    return rc;
}

static int bind_table_function(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    tn_sql_expr *f = t->u.function;
    const char *name = f->u.func.name.parts[f->u.func.name.n - 1].name;
    tn_scan_format fmt;
    if (tn_bind_is_range_function(name)) return tn_bind_range(b, t, out);      /* bind_range.c */
    if (tn_bind_is_unnest_bitmap(name)) return tn_bind_unnest_bitmap(b, t, out);   /* bind_unnest_bitmap.c */
    if (tn_bind_is_unnest_name(name)) return tn_bind_unnest_table(b, t, out);      /* bind_unnest.c */
    if (b->session->files_denied && strcmp(name, "table_changes") != 0)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, f->pos,
                                  "%s reads files by path, which this session does not allow (tarn serve --allow-file-access)",
                                  name);
    if (strcmp(name, "read_parquet") == 0 || strcmp(name, "parquet_scan") == 0) fmt = TN_SCAN_PARQUET;
    else if (strcmp(name, "read_csv") == 0 || strcmp(name, "read_csv_auto") == 0) fmt = TN_SCAN_CSV;
    else if (strcmp(name, "read_json") == 0 || strcmp(name, "read_ndjson") == 0 ||
             strcmp(name, "read_json_auto") == 0 || strcmp(name, "read_ndjson_auto") == 0)
        fmt = TN_SCAN_JSON;
    else if (strcmp(name, "delta_scan") == 0)
        return tn_bind_delta_scan(b, t, out);          /* bind_table.c */
    else if (strcmp(name, "table_changes") == 0)
        return tn_bind_table_changes(b, t, out);       /* bind_table.c */
    else {
        int mrc = tn_macro_table(b, t, out);             /* macro.c: 1 = no table macro of that name */
        if (mrc <= 0) return mrc;
        return tn_bind_error_code(b, TN_ENOTFOUND, f->pos, "Table Function with name %s does not exist",
                                  name);
    }
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_SCAN, 0);
    if (!p) return TN_ENOMEM;
    tn_plan_scan *s = &p->u.scan;
    s->format = fmt;
    s->csv_header = -1;
    s->csv_quote = '"';
    *out = p;                      /* tn_plan_free closes what is opened so far */
    uint32_t cap = 0;
    int rc = 0;
    bool have_files = false;
    for (int i = 0; i < f->u.func.args.n; i++) {
        tn_sql_expr *a = f->u.func.args.items[i];
        const char *aname = f->u.func.arg_names ? f->u.func.arg_names[i].name : NULL;
        if (aname == NULL && !have_files) {
            have_files = true;
            if (a->kind == TN_SQL_E_LIST) {
                for (int k = 0; k < a->u.list.n && !rc; k++) {
                    tn_value v;
                    rc = tn_bind_const_value(b, a->u.list.items[k], &v);
                    if (!rc && (v.is_null || !tn_type_is_string(v.type)))
                        rc = tn_bind_error(b, a->u.list.items[k]->pos, "%s expects file names as strings", name);
                    if (!rc) {
                        char *path = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
                        rc = path ? expand_glob(b, s, &cap, path, a->pos) : TN_ENOMEM;
                    }
                }
            } else {
                tn_value v;
                rc = tn_bind_const_value(b, a, &v);
                if (!rc && (v.is_null || !tn_type_is_string(v.type)))
                    rc = tn_bind_error(b, a->pos, "%s expects a file name or a list of file names", name);
                if (!rc) {
                    char *path = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
                    rc = path ? expand_glob(b, s, &cap, path, a->pos) : TN_ENOMEM;
                }
            }
            if (rc) return rc;
            continue;
        }
        if (aname == NULL) return tn_bind_error(b, a->pos, "%s takes one positional argument", name);
        tn_value v;
        rc = tn_bind_const_value(b, a, &v);
        if (rc) return rc;
        if (fmt != TN_SCAN_PARQUET && strcmp(aname, "invalid_utf8") == 0) {
            /* not UTF-8: 'error' (default, names file, line and column) or 'replace' (U+FFFD) */
            if (!v.is_null && tn_type_is_string(v.type) && v.u.s.len == 7 && !memcmp(v.u.s.ptr, "replace", 7))
                s->text_replace_utf8 = true;
            else if (!v.is_null && tn_type_is_string(v.type) && v.u.s.len == 5 && !memcmp(v.u.s.ptr, "error", 5))
                s->text_replace_utf8 = false;
            else return tn_bind_error(b, a->pos, "%s: invalid_utf8 must be 'error' or 'replace'", name);
            continue;
        }
        if (fmt == TN_SCAN_PARQUET) {
            if (strcmp(aname, "binary_as_string") == 0 || strcmp(aname, "hive_partitioning") == 0 ||
                strcmp(aname, "union_by_name") == 0 || strcmp(aname, "filename") == 0 ||
                strcmp(aname, "file_row_number") == 0) {
                if (opt_bool(&v)) return tn_bind_error_code(b, TN_EUNSUPPORTED, a->pos,
                                                            "read_parquet option %s is not supported yet", aname);
                continue;
            }
        } else if (fmt == TN_SCAN_CSV) {
            if (strcmp(aname, "header") == 0) { s->csv_header = opt_bool(&v) ? 1 : 0; continue; }
            if (strcmp(aname, "delim") == 0 || strcmp(aname, "sep") == 0 || strcmp(aname, "delimiter") == 0) {
                s->csv_delim = opt_char(&v);
                continue;
            }
            if (strcmp(aname, "quote") == 0) { s->csv_quote = opt_char(&v); continue; }
            if (strcmp(aname, "escape") == 0) { s->csv_escape = opt_char(&v); continue; }
            if (strcmp(aname, "nullstr") == 0 || strcmp(aname, "null") == 0) {
                if (!v.is_null && tn_type_is_string(v.type))
                    s->csv_null = tn_arena_strndup(b->arena, v.u.s.ptr, v.u.s.len);
                continue;
            }
            if (strcmp(aname, "all_varchar") == 0) { s->csv_all_varchar = opt_bool(&v); continue; }
            if (strcmp(aname, "skip") == 0) { s->csv_skip = v.is_null ? 0 : (uint32_t)v.u.i; continue; }
            if (strcmp(aname, "auto_detect") == 0 || strcmp(aname, "sample_size") == 0) {
                rc = text_option(b, s, a->pos, name, aname, &v);
                if (rc) return rc;
                continue;
            }
        } else {
            if (strcmp(aname, "format") == 0 || strcmp(aname, "records") == 0 ||
                strcmp(aname, "sample_size") == 0 || strcmp(aname, "auto_detect") == 0) {
                rc = text_option(b, s, a->pos, name, aname, &v);
                if (rc) return rc;
                continue;
            }
        }
        return tn_bind_error(b, a->pos, "Invalid named parameter \"%s\" for function %s", aname, name);
    }
    if (!have_files || s->npaths == 0)
        return tn_bind_error(b, f->pos, "%s needs a file name", name);
    rc = fmt == TN_SCAN_PARQUET ? open_parquet_files(b, p, f->pos) : open_text_schema(b, p, f->pos);
    if (rc) return rc;
    /* output = every source column */
    p->ncols = s->nsrc;
    p->types = s->src_types;
    p->names = (const char **)s->src_names;
    s->ncols = s->nsrc;
    s->cols = tn_arena_alloc(b->arena, (s->nsrc + 1) * sizeof *s->cols);
    if (!s->cols) return TN_ENOMEM;
    for (uint32_t i = 0; i < s->nsrc; i++) s->cols[i] = i;
    p->est_rows = s->total_rows >= 0 ? (double)s->total_rows : 100000.0;
    return 0;
}

static int apply_sample(tn_binder *b, tn_sql_tableref *t, tn_plan *p) {
    tn_sql_sample *smp = t->sample;
    if (p->kind != TN_PLAN_SCAN)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, smp->pos,
                                  "TABLESAMPLE is supported on tables and table functions only");
    tn_value v;
    int rc = tn_bind_const_value(b, smp->size, &v);
    if (rc) return rc;
    tn_value d;
    tn_arena *a = b->arena;
    rc = tn_cast_value(&v, tn_type_make(TN_TYPE_DOUBLE), false, a, &d);
    if (rc || d.is_null) return tn_bind_error(b, smp->pos, "TABLESAMPLE size must be a number");
    if (smp->rows) {
        if (d.u.d < 0) return tn_bind_error(b, smp->pos, "TABLESAMPLE rows must be >= 0");
        p->u.scan.sample_rows = (int64_t)d.u.d;
        if (p->u.scan.sample_rows == 0) p->u.scan.sample_rows = -1;   /* zero rows */
    } else {
        if (d.u.d < 0 || d.u.d > 100)
            return tn_bind_error(b, smp->pos, "Sample percentage must be between 0 and 100");
        p->u.scan.sample_percent = d.u.d > 0 ? d.u.d : 1e-300;
    }
    if (smp->seed) {
        int64_t seed;
        rc = tn_bind_const_int(b, smp->seed, "REPEATABLE", &seed);
        if (rc) return rc;
        p->u.scan.sample_seed = (uint64_t)seed;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * FROM items.
 */
static tn_sql_cte *find_cte(tn_binder *b, const char *name, cte_frame *frame_out, tn_plan_cte ***slot) {
    for (cte_frame *f = b->ctes; f; f = f->parent)
        for (int i = f->n - 1; i >= 0; i--)
            if (tn_str_iequal(f->ctes[i].name.name, name)) {
                frame_out->ctes = f->ctes;
                frame_out->n = i;      /* a CTE sees the ones defined before it */
                frame_out->shared = f->shared;
                frame_out->parent = f->parent;
                *slot = f->shared ? &f->shared[i] : NULL;
                return &f->ctes[i];
            }
    return NULL;
}

static int rename_columns(tn_binder *b, tn_sql_tableref *t, tn_plan *p, const char **names) {
    if (t->n_col_aliases > (int)p->ncols)
        return tn_bind_error(b, t->pos, "table \"%s\" has %u columns available but %d columns specified",
                             t->alias.name ? t->alias.name : "?", p->ncols, t->n_col_aliases);
    for (int i = 0; i < t->n_col_aliases; i++) names[i] = t->col_aliases[i].name;
    return 0;
}

static const char **copy_names(tn_binder *b, const char **names, uint32_t n) {
    const char **r = tn_arena_alloc(b->arena, (n + 1) * sizeof *r);
    if (r) memcpy(r, names, n * sizeof *r);
    return r;
}

static int bind_join(tn_binder *b, tn_sql_tableref *t, bind_scope *scope, bind_scope *outer,
                     tn_plan **out) {
    bind_scope ls = {0}, rs = {0};
    tn_plan *l = NULL, *r = NULL;
    int rc = tn_bind_tableref(b, t->u.join.left, &ls, outer, &l);
    if (rc) return rc;
    rc = tn_bind_tableref(b, t->u.join.right, &rs, outer, &r);
    if (rc) {
        tn_plan_free(l);
        return rc;
    }
    bool semi = t->u.join.kind == TN_SQL_JOIN_SEMI || t->u.join.kind == TN_SQL_JOIN_ANTI;
    tn_plan *j = tn_plan_new(b->arena, TN_PLAN_JOIN, l->ncols + r->ncols);
    if (!j) {
        tn_plan_free(l);
        tn_plan_free(r);
        return TN_ENOMEM;
    }
    j->child[0] = l;
    j->child[1] = r;
    *out = j;
    for (uint32_t i = 0; i < l->ncols; i++) { j->types[i] = l->types[i]; j->names[i] = l->names[i]; }
    for (uint32_t i = 0; i < r->ncols; i++) {
        j->types[l->ncols + i] = r->types[i];
        j->names[l->ncols + i] = r->names[i];
    }
    switch (t->u.join.kind) {
    case TN_SQL_JOIN_LEFT: j->u.join.kind = TN_JOIN_LEFT; break;
    case TN_SQL_JOIN_RIGHT: j->u.join.kind = TN_JOIN_RIGHT; break;
    case TN_SQL_JOIN_FULL: j->u.join.kind = TN_JOIN_FULL; break;
    case TN_SQL_JOIN_SEMI: j->u.join.kind = TN_JOIN_SEMI; break;
    case TN_SQL_JOIN_ANTI: j->u.join.kind = TN_JOIN_ANTI; break;
    default: j->u.join.kind = TN_JOIN_INNER; break;
    }
    /* merged scope (SEMI/ANTI: the right side is visible in ON only) */
    rc = tn_scope_merge(b, scope, &ls);
    uint32_t left_rels = scope->nrels, left_cols = scope->ncols;
    if (!rc) rc = tn_scope_merge(b, scope, &rs);
    if (rc) return rc;
    scope->parent = outer;
    double le = l->est_rows, re = r->est_rows;
    j->est_rows = t->u.join.kind == TN_SQL_JOIN_CROSS ? le * re : (le > re ? le : re);
    /* USING / NATURAL: equality of same-named columns; the right copies are hidden from * */
    int nusing = t->u.join.n_using;
    const char **using_names = NULL;
    if (t->u.join.natural) {
        using_names = tn_arena_alloc(b->arena, (ls.ncols + 1) * sizeof *using_names);
        if (!using_names) return TN_ENOMEM;
        nusing = 0;
        for (uint32_t i = 0; i < ls.nrels; i++)
            for (uint32_t c = 0; c < ls.rels[i].ncols; c++) {
                const char *nm = ls.rels[i].names[c];
                bool inright = false;
                for (uint32_t k = 0; k < rs.nrels && !inright; k++)
                    for (uint32_t m = 0; m < rs.rels[k].ncols; m++)
                        if (tn_str_iequal(rs.rels[k].names[m], nm)) { inright = true; break; }
                bool dup = false;
                for (int k = 0; k < nusing; k++) if (tn_str_iequal(using_names[k], nm)) dup = true;
                if (inright && !dup) using_names[nusing++] = nm;
            }
    } else if (nusing > 0) {
        using_names = tn_arena_alloc(b->arena, (size_t)nusing * sizeof *using_names);
        if (!using_names) return TN_ENOMEM;
        for (int k = 0; k < nusing; k++) using_names[k] = t->u.join.using_cols[k].name;
    }
    tn_expr *cond = NULL;
    if (using_names) {
        tn_expr **eqs = tn_arena_calloc(b->arena, ((size_t)nusing + 1) * sizeof *eqs);
        if (!eqs) return TN_ENOMEM;
        for (int k = 0; k < nusing; k++) {
            int li = -1, ri = -1;
            for (uint32_t i = 0; i < ls.nrels && li < 0; i++)
                for (uint32_t c = 0; c < ls.rels[i].ncols; c++)
                    if (tn_str_iequal(ls.rels[i].names[c], using_names[k])) { li = (int)(ls.rels[i].offset + c); break; }
            for (uint32_t i = 0; i < rs.nrels && ri < 0; i++)
                for (uint32_t c = 0; c < rs.rels[i].ncols; c++)
                    if (tn_str_iequal(rs.rels[i].names[c], using_names[k])) {
                        ri = (int)(rs.rels[i].offset + c);
                        /* hide the right copy */
                        bind_rel *mr = &scope->rels[ls.nrels + i];
                        if (!mr->hidden) {
                            mr->hidden = tn_arena_calloc(b->arena, mr->ncols + 1);
                            if (!mr->hidden) return TN_ENOMEM;
                        }
                        mr->hidden[c] = true;
                        break;
                    }
            tn_sql_pos pos = t->u.join.using_cols ? t->u.join.using_cols[k].pos : t->pos;
            if (li < 0 || ri < 0)
                return tn_bind_error(b, pos, "column \"%s\" specified in USING does not exist on both sides",
                                     using_names[k]);
            tn_expr *a = NULL, *c2 = NULL, *eq = NULL;
            rc = tn_expr_column(&a, (uint32_t)li, l->types[li]);
            if (!rc) rc = tn_expr_column(&c2, l->ncols + (uint32_t)ri, r->types[ri]);
            else c2 = NULL;
            if (rc) { tn_expr_free(a); return rc; }
            tn_expr *args[2] = {a, c2};
            rc = tn_expr_function(&eq, "=", args, 2);
            if (rc) return tn_bind_error_at(b, rc, pos);
            eqs[k] = eq;
        }
        if (nusing == 1) cond = eqs[0];
        else if (nusing > 1) {
            rc = tn_expr_and(&cond, eqs, (uint32_t)nusing);
            if (rc) return rc;
        }
    } else if (t->u.join.on) {
        bind_ctx c = {b, scope, NULL, false, "ON", NULL, NULL};
        rc = tn_bind_pred(&c, t->u.join.on, &cond);
        if (rc) return rc;
    }
    j->u.join.cond = cond;
    if (semi) {
        if (!cond) return tn_bind_error(b, t->pos, "SEMI and ANTI joins need ON, USING or NATURAL");
        j->ncols = l->ncols;
        j->est_rows = le * 0.5;
        scope->nrels = left_rels;
        scope->ncols = left_cols;
    }
    return 0;
}

int tn_bind_tableref(tn_binder *b, tn_sql_tableref *t, bind_scope *scope, bind_scope *outer,
                     tn_plan **out) {
    int rc = 0;
    tn_plan *p = NULL;
    const char *alias = t->alias.name;
    *out = NULL;
    if (++b->depth > 200) {
        b->depth--;
        return tn_bind_error_code(b, TN_ELIMIT, t->pos, "query nested too deeply");
    }
    switch (t->kind) {
    case TN_SQL_T_JOIN:
        rc = bind_join(b, t, scope, outer, &p);
        b->depth--;
        *out = p;
        return rc;
    case TN_SQL_T_FUNCTION:
        rc = bind_table_function(b, t, &p);
        if (!alias && !rc) alias = t->u.function->u.func.name.parts[t->u.function->u.func.name.n - 1].name;
        break;
    case TN_SQL_T_SUBQUERY:
        if (t->u.subquery.lateral) {
            rc = tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, "LATERAL subqueries are not supported yet");
            break;
        }
        rc = tn_bind_query(b, t->u.subquery.query, NULL, &p);
        break;
    case TN_SQL_T_TABLE: {
        const tn_sql_qname *q = &t->u.table.name;
        cte_frame fr;
        tn_plan_cte **slot = NULL;
        tn_sql_cte *cte = q->n == 1 ? find_cte(b, q->parts[0].name, &fr, &slot) : NULL;
        if (cte) {
            if (t->u.table.travel != TN_SQL_TT_NONE || t->u.table.n_hints) {
                rc = tn_bind_error_code(b, TN_EUNSUPPORTED, t->pos, t->u.table.n_hints ? "dynamic options (OPTIONS "
                                        "hint) on a CTE" : "time travel on a CTE");
                break;
            }
            if (slot && *slot && (*slot)->plan) {
                /* referenced again: a leaf sharing the definition (optimize_cte.c) */
                p = tn_plan_cte_leaf(b->arena, *slot);
                if (!p) { rc = TN_ENOMEM; break; }
            } else {
                cte_frame *saved = b->ctes;
                b->ctes = &fr;
                rc = tn_bind_query(b, cte->query, NULL, &p);
                b->ctes = saved;
                if (!rc && slot) {
                    tn_plan_cte *def = tn_arena_calloc(b->arena, sizeof *def);
                    if (!def) rc = TN_ENOMEM;
                    else {
                        def->name = cte->name.name;
                        def->plan = p;
                        def->arena = b->arena;
                        def->held = true;
                        *slot = def;
                        p = tn_plan_cte_leaf(b->arena, def);
                        if (!p) rc = TN_ENOMEM;
                    }
                }
            }
            if (!rc && cte->n_columns > 0) {
                if ((uint32_t)cte->n_columns > p->ncols) {
                    rc = tn_bind_error(b, cte->name.pos, "CTE \"%s\" has %u columns but %d column names",
                                       cte->name.name, p->ncols, cte->n_columns);
                    break;
                }
                const char **nn = copy_names(b, p->names, p->ncols);
                if (!nn) { rc = TN_ENOMEM; break; }
                for (int i = 0; i < cte->n_columns; i++) nn[i] = cte->columns[i].name;
                p->names = nn;
            }
            if (!alias) alias = cte->name.name;
            break;
        }
        rc = tn_bind_table_name(b, t, &p, &alias);     /* bind_table.c: catalog tables and views */
        break;
    }
    }
    b->depth--;
    if (rc) {
        tn_plan_free(p);
        return rc;
    }
    if (t->sample) {
        rc = apply_sample(b, t, p);
        if (rc) { tn_plan_free(p); return rc; }
    }
    const char **names = copy_names(b, p->names, p->ncols);
    if (!names) { tn_plan_free(p); return TN_ENOMEM; }
    if (t->n_col_aliases) {
        rc = rename_columns(b, t, p, names);
        if (rc) { tn_plan_free(p); return rc; }
        p->names = names;
    }
    rc = tn_scope_add(b, scope, alias, p->ncols, names, p->types);
    scope->parent = outer;
    if (rc) { tn_plan_free(p); return rc; }
    *out = p;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Statements.
 */
const char *tn_bind_stmt_name(const tn_sql_stmt *s) {
    switch (s->kind) {
    case TN_SQL_S_CREATE_TABLE: return s->u.create_table.as_query ? "CREATE TABLE AS" : "CREATE TABLE";
    case TN_SQL_S_CREATE_VIEW: return "CREATE VIEW";
    case TN_SQL_S_CREATE_SCHEMA: return "CREATE SCHEMA";
    case TN_SQL_S_DROP: return "DROP";
    case TN_SQL_S_INSERT:
        return s->u.insert.upsert ? "UPSERT" : s->u.insert.overwrite ? "INSERT OVERWRITE" : "INSERT";
    case TN_SQL_S_DELETE: return "DELETE";
    case TN_SQL_S_UPDATE: return "UPDATE";
    case TN_SQL_S_MERGE: return "MERGE";
    case TN_SQL_S_ALTER_TABLE: return "ALTER TABLE";
    case TN_SQL_S_OPTIMIZE: return "OPTIMIZE";
    case TN_SQL_S_DESCRIBE: return s->u.describe.history ? "DESCRIBE HISTORY" : "DESCRIBE";
    case TN_SQL_S_SHOW: return "SHOW";
    case TN_SQL_S_COPY: return "COPY";
    case TN_SQL_S_SET: return "SET";
    case TN_SQL_S_VACUUM: return "VACUUM";
    case TN_SQL_S_EXPLAIN: return "EXPLAIN";
    default: return "statement";
    }
}

int tn_bind_statement(tn_binder *b, tn_sql_stmt *stmt, tn_plan **out, bool *explain,
                      bool *analyze) {
    *out = NULL;
    *explain = false;
    *analyze = false;
    if (stmt->kind == TN_SQL_S_EXPLAIN) {
        *explain = true;
        *analyze = stmt->u.explain.analyze;
        stmt = stmt->u.explain.stmt;
    }
    if (stmt->kind == TN_SQL_S_DESCRIBE && stmt->u.describe.table.n == 0 && stmt->u.describe.query) {
        /* DESCRIBE <query>: handled by the session (column names and types). */
        tn_plan *p = NULL;
        int rc = tn_bind_query(b, stmt->u.describe.query, NULL, &p);
        if (rc) return rc;
        *out = p;
        return 0;
    }
    if (stmt->kind != TN_SQL_S_QUERY)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, stmt->pos, "%s is not supported yet",
                                  tn_bind_stmt_name(stmt));
    tn_plan *p = NULL;
    int rc = tn_bind_query(b, stmt->u.query, NULL, &p);
    if (rc) return rc;
    rc = tn_optimize(&p, b->arena);
    if (rc) {
        tn_plan_free(p);
        return rc;
    }
    *out = p;
    return 0;
}
