/*
 * sql/bind_window.c: binding of window function calls (f(...) OVER (...)): the function table,
 * argument/offset/default checks and result types, PARTITION BY / ORDER BY and the frame bounds.
 * Each distinct call becomes one tn_plan_window_func in the SELECT's late columns (c->late; one
 * WINDOW node per SELECT, placed by bind_query.c) and the call itself a marker column.
 */
#include <string.h>

#include "sql/bindInt.h"
#include "sql/settings.h"

static void free_args(tn_expr **args, int n) {
    for (int i = 0; i < n; i++) tn_expr_free(args[i]);
}

/* ---------------------------------------------------------------------------------------------
 * Window functions: bound into c->late (one WINDOW node per SELECT, placed by bind_query.c);
 * the call becomes a marker column.
 */
static const struct { const char *name; tn_win_kind kind; int min_args, max_args; } g_wins[] = {
    {"row_number", TN_WIN_ROW_NUMBER, 0, 0},   {"rank", TN_WIN_RANK, 0, 0},
    {"dense_rank", TN_WIN_DENSE_RANK, 0, 0},   {"percent_rank", TN_WIN_PERCENT_RANK, 0, 0},
    {"cume_dist", TN_WIN_CUME_DIST, 0, 0},     {"ntile", TN_WIN_NTILE, 1, 1},
    {"lag", TN_WIN_LAG, 1, 3},                 {"lead", TN_WIN_LEAD, 1, 3},
    {"first_value", TN_WIN_FIRST_VALUE, 1, 1}, {"last_value", TN_WIN_LAST_VALUE, 1, 1},
    {"nth_value", TN_WIN_NTH_VALUE, 2, 2},     {"count", TN_WIN_COUNT, 0, 1},
    {"sum", TN_WIN_SUM, 1, 1},                 {"avg", TN_WIN_AVG, 1, 1},
    {"mean", TN_WIN_AVG, 1, 1},                {"min", TN_WIN_MIN, 1, 1},
    {"max", TN_WIN_MAX, 1, 1},
};

static int win_bound(tn_binder *b, tn_sql_frame_bound_kind k, tn_sql_expr *off, bool rows,
                     tn_win_bound *out, int64_t *out_off) {
    *out_off = 0;
    switch (k) {
    case TN_SQL_BOUND_UNBOUNDED_PRECEDING: *out = TN_WIN_UNBOUNDED_PRECEDING; return 0;
    case TN_SQL_BOUND_UNBOUNDED_FOLLOWING: *out = TN_WIN_UNBOUNDED_FOLLOWING; return 0;
    case TN_SQL_BOUND_NONE:
    case TN_SQL_BOUND_CURRENT_ROW: *out = TN_WIN_CURRENT_ROW; return 0;
    case TN_SQL_BOUND_PRECEDING:
    case TN_SQL_BOUND_FOLLOWING: {
        *out = k == TN_SQL_BOUND_PRECEDING ? TN_WIN_PRECEDING : TN_WIN_FOLLOWING;
        if (!off) return tn_bind_error(b, (tn_sql_pos){0, 0, 0}, "frame offset missing");
        if (!rows)
            return tn_bind_error_code(b, TN_EUNSUPPORTED, off->pos,
                                      "RANGE frames with an offset are not supported yet (use ROWS)");
        int rc = tn_bind_const_int(b, off, "frame offset", out_off);
        if (rc) return rc;
        if (*out_off < 0) return tn_bind_error(b, off->pos, "Frame offset must be non-negative");
        return 0;
    }
    }
    return 0;
}

int tn_bind_window(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    const char *name = tn_bind_func_name(e);
    tn_sql_window *w = e->u.func.over;
    late_info *L = c->late;
    int kind = -1, mina = 0, maxa = 0;
    for (size_t i = 0; i < sizeof g_wins / sizeof g_wins[0]; i++)
        if (tn_str_iequal(name, g_wins[i].name)) {
            kind = (int)g_wins[i].kind;
            mina = g_wins[i].min_args;
            maxa = g_wins[i].max_args;
            break;
        }
    if (kind < 0) {
        if (tn_bind_is_agg_name(name))
            return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "%s() as a window function is not supported yet", name);
        return tn_bind_error(b, e->pos, "Function %s is not a window function or an aggregate", name);
    }
    if (c->in_agg) return tn_bind_error(b, e->pos, "aggregate function calls cannot contain window function calls");
    if (!L || !L->allow_windows)
        return tn_bind_error(b, e->pos, "%s clause cannot contain window functions!", c->clause ? c->clause : "this");
    if (w->name.name) {             /* OVER w: the SELECT's WINDOW w AS (...) */
        const tn_sql_window *named = NULL;
        for (int i = 0; i < b->n_windows && !named; i++)
            if (tn_str_iequal(b->windows[i].name.name, w->name.name)) named = b->windows[i].spec;
        if (!named) return tn_bind_error(b, w->name.pos, "window \"%s\" does not exist", w->name.name);
        w = (tn_sql_window *)named;
    }
    if (e->u.func.distinct || e->u.func.filter || e->u.func.order_by.n)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "DISTINCT, FILTER and ORDER BY in window function %s are not supported yet", name);
    if (w->frame_mode == 3)
        return tn_bind_error_code(b, TN_EUNSUPPORTED, e->pos, "GROUPS frames are not supported yet");
    int n = e->u.func.args.n;
    if (kind == TN_WIN_COUNT && (e->u.func.star || n == 0)) kind = TN_WIN_COUNT_STAR;
    else if (n < mina || n > maxa)
        return tn_bind_error(b, e->pos, "%s takes %d%s%d argument%s", name, mina, mina == maxa ? "" : " to ",
                             maxa, maxa == 1 ? "" : "s");
    if (kind == TN_WIN_COUNT_STAR) mina = maxa = n = 0;

    tn_plan_window_func f;
    memset(&f, 0, sizeof f);
    f.kind = (tn_win_kind)kind;
    f.offset = 1;
    bind_ctx ac = *c;
    ac.late = NULL;              /* no window calls inside window calls */
    int rc = 0;
    tn_buf key = TN_BUF_INIT;
    /* the value argument */
    bool value_arg = kind != TN_WIN_NTILE && n >= 1;
    if (value_arg) {
        rc = tn_bind_expr(&ac, e->u.func.args.items[0], &f.arg);
        if (!rc) rc = tn_bind_fold(b, &f.arg);
        if (rc) goto fail;
    }
    if (kind == TN_WIN_NTILE || kind == TN_WIN_NTH_VALUE || ((kind == TN_WIN_LAG || kind == TN_WIN_LEAD) && n >= 2)) {
        tn_sql_expr *oe = e->u.func.args.items[kind == TN_WIN_NTILE ? 0 : 1];
        rc = tn_bind_const_int(b, oe, kind == TN_WIN_NTILE ? "ntile bucket count" : "offset", &f.offset);
        if (rc) goto fail;
        if (f.offset < (kind == TN_WIN_LAG || kind == TN_WIN_LEAD ? 0 : 1)) {
            rc = tn_bind_error(b, oe->pos, kind == TN_WIN_NTILE ? "Argument for ntile must be greater than zero"
                                                                 : "%s offset must not be negative", name);
            goto fail;
        }
    }
    tn_type at = f.arg ? f.arg->type : tn_type_make(TN_TYPE_BIGINT);
    tn_type want = at;
    switch (f.kind) {
    case TN_WIN_ROW_NUMBER:
    case TN_WIN_RANK:
    case TN_WIN_DENSE_RANK:
    case TN_WIN_NTILE:
    case TN_WIN_COUNT_STAR:
    case TN_WIN_COUNT: f.type = tn_type_make(TN_TYPE_BIGINT); break;
    case TN_WIN_PERCENT_RANK:
    case TN_WIN_CUME_DIST: f.type = tn_type_make(TN_TYPE_DOUBLE); break;
    case TN_WIN_SUM:
    case TN_WIN_AVG:
        if (at.id == TN_TYPE_NULL || at.id == TN_TYPE_BOOLEAN || tn_type_is_integer(at)) want = tn_type_make(TN_TYPE_BIGINT);
        else if (at.id == TN_TYPE_DECIMAL) want = at;
        else if (at.id == TN_TYPE_FLOAT || at.id == TN_TYPE_DOUBLE) want = tn_type_make(TN_TYPE_DOUBLE);
        else {
            char tb[64];
            rc = tn_bind_error(b, e->pos, "No function matches the given name and argument types '%s(%s)'", name,
                               tn_type_format(at, tb, sizeof tb));
            goto fail;
        }
        if (f.kind == TN_WIN_AVG) f.type = tn_type_make(TN_TYPE_DOUBLE);
        else if (want.id == TN_TYPE_BIGINT) f.type = tn_type_decimal(38, 0);
        else if (want.id == TN_TYPE_DECIMAL) f.type = tn_type_decimal(38, want.scale);
        else f.type = want;
        break;
    default:
        if (at.id == TN_TYPE_NULL) want = tn_type_make(TN_TYPE_INTEGER);
        f.type = want;
        break;
    }
    if (f.arg && !tn_type_equal(want, at) && f.kind != TN_WIN_COUNT) {
        rc = tn_expr_cast(&f.arg, f.arg, want, false);
        if (rc) { rc = tn_bind_error_at(b, rc, e->pos); goto fail; }
    }
    if ((f.kind == TN_WIN_LAG || f.kind == TN_WIN_LEAD) && n == 3) {
        rc = tn_bind_expr(&ac, e->u.func.args.items[2], &f.def);
        if (!rc && !tn_type_equal(f.def->type, f.type)) rc = tn_expr_cast(&f.def, f.def, f.type, false);
        if (!rc) rc = tn_bind_fold(b, &f.def);
        if (rc) { rc = tn_bind_error_at(b, rc, e->u.func.args.items[2]->pos); goto fail; }
    }
    /* PARTITION BY / ORDER BY */
    f.part = tn_arena_calloc(b->arena, ((size_t)w->partition_by.n + 1) * sizeof *f.part);
    f.order = tn_arena_calloc(b->arena, ((size_t)w->order_by.n + 1) * sizeof *f.order);
    f.desc = tn_arena_calloc(b->arena, (size_t)w->order_by.n + 1);
    f.nulls_first = tn_arena_calloc(b->arena, (size_t)w->order_by.n + 1);
    if (!f.part || !f.order || !f.desc || !f.nulls_first) { rc = TN_ENOMEM; goto fail; }
    for (int i = 0; i < w->partition_by.n; i++) {
        rc = tn_bind_expr(&ac, w->partition_by.items[i], &f.part[i]);
        if (!rc) rc = tn_bind_fold(b, &f.part[i]);
        if (rc) goto fail;
        f.npart++;
    }
    for (int i = 0; i < w->order_by.n; i++) {
        tn_sql_order_item *it = &w->order_by.items[i];
        rc = tn_bind_expr(&ac, it->expr, &f.order[i]);
        if (!rc) rc = tn_bind_fold(b, &f.order[i]);
        if (rc) goto fail;
        f.desc[i] = it->desc;
        f.nulls_first[i] = tn_setting_nulls_first(b->session, it->desc, it->nulls);
        f.norder++;
    }
    /* frame */
    if (w->frame_mode == 0) {
        f.rows = false;
        f.start = TN_WIN_UNBOUNDED_PRECEDING;
        f.end = f.norder ? TN_WIN_CURRENT_ROW : TN_WIN_UNBOUNDED_FOLLOWING;
    } else {
        f.rows = w->frame_mode == 1;
        rc = win_bound(b, w->start_kind, w->start_offset, f.rows, &f.start, &f.start_off);
        if (!rc) rc = win_bound(b, w->end_kind, w->end_offset, f.rows, &f.end, &f.end_off);
        if (rc) goto fail;
        if (f.start == TN_WIN_UNBOUNDED_FOLLOWING) {
            rc = tn_bind_error(b, e->pos, "Frame start cannot be UNBOUNDED FOLLOWING");
            goto fail;
        }
        if (f.end == TN_WIN_UNBOUNDED_PRECEDING) {
            rc = tn_bind_error(b, e->pos, "Frame end cannot be UNBOUNDED PRECEDING");
            goto fail;
        }
    }
    /* identity for de-duplication */
    tn_buf_printf(&key, "%d|%lld|%d|%d|%d|%lld|%lld|", (int)f.kind, (long long)f.offset, f.rows, (int)f.start,
                  (int)f.end, (long long)f.start_off, (long long)f.end_off);
    if (f.arg) tn_expr_to_text(&key, f.arg);
    tn_buf_printf(&key, "|");
    if (f.def) tn_expr_to_text(&key, f.def);
    for (uint32_t i = 0; i < f.npart; i++) {
        tn_buf_printf(&key, "|p");
        tn_expr_to_text(&key, f.part[i]);
    }
    for (uint32_t i = 0; i < f.norder; i++) {
        tn_buf_printf(&key, "|o%d%d", f.desc[i], f.nulls_first[i]);
        tn_expr_to_text(&key, f.order[i]);
    }
    if ((rc = tn_buf_append_byte(&key, 0))) goto fail;
    for (uint32_t i = 0; i < L->nwins; i++)
        if (strcmp(L->win_text[i], (const char *)key.data) == 0) {
            tn_buf_free(&key);
            tn_type t = L->wins[i].type;
            tn_expr_free(f.arg);
            tn_expr_free(f.def);
            free_args(f.part, (int)f.npart);
            free_args(f.order, (int)f.norder);
            return tn_expr_column(out, TN_BIND_LATE_MARK + L->win_mark[i], t);
        }
    if (L->nwins == L->wcap) {
        uint32_t cap = L->wcap ? L->wcap * 2 : 4;
        tn_plan_window_func *nw = tn_arena_calloc(b->arena, cap * sizeof *nw);
        char **nt = tn_arena_calloc(b->arena, cap * sizeof *nt);
        uint32_t *nm = tn_arena_calloc(b->arena, cap * sizeof *nm);
        if (!nw || !nt || !nm) { rc = TN_ENOMEM; goto fail; }
        if (L->nwins) {
            memcpy(nw, L->wins, L->nwins * sizeof *nw);
            memcpy(nt, L->win_text, L->nwins * sizeof *nt);
            memcpy(nm, L->win_mark, L->nwins * sizeof *nm);
        }
        L->wins = nw;
        L->win_text = nt;
        L->win_mark = nm;
        L->wcap = cap;
    }
    L->win_text[L->nwins] = tn_arena_strdup(b->arena, (const char *)key.data);
    tn_buf_free(&key);
    if (!L->win_text[L->nwins]) { rc = TN_ENOMEM; goto fail; }
    L->wins[L->nwins] = f;
    L->win_mark[L->nwins] = L->nmarks++;
    L->nwins++;
    return tn_expr_column(out, TN_BIND_LATE_MARK + L->win_mark[L->nwins - 1], f.type);
fail:
    tn_buf_free(&key);
    tn_expr_free(f.arg);
    tn_expr_free(f.def);
    if (f.part) free_args(f.part, (int)f.npart);
    if (f.order) free_args(f.order, (int)f.norder);
    return rc;
}
