/*
 * sql/bind_range.c: the table functions range(...) and generate_series(...) with DuckDB's
 * signatures: (stop), (start, stop), (start, stop, step) over BIGINT, and (start, stop, interval)
 * over TIMESTAMP (DATE arguments are cast). range excludes stop, generate_series includes it.
 * Binds to a TN_PLAN_VALUES node in range mode; op_values.c generates the rows, in order.
 */
#include <stdio.h>
#include <string.h>

#include "sql/functions.h"
#include "sql/stmt.h"

bool tn_bind_is_range_function(const char *name) {
    return strcmp(name, "range") == 0 || strcmp(name, "generate_series") == 0;
}

static int no_match(tn_binder *b, tn_sql_expr *f, const char *name, const tn_value *v, int n) {
    char sig[256];
    size_t off = 0;
    sig[0] = 0;
    for (int i = 0; i < n && off < sizeof sig - 1; i++)
        off += (size_t)snprintf(sig + off, sizeof sig - off, "%s%s", i ? ", " : "", tn_type_id_name(v[i].type.id));
    return tn_bind_error(b, f->pos,
                         "No function matches the given name and argument types '%s(%s)'. Candidate functions: "
                         "%s(BIGINT), %s(BIGINT, BIGINT), %s(BIGINT, BIGINT, BIGINT), "
                         "%s(TIMESTAMP, TIMESTAMP, INTERVAL)", name, sig, name, name, name, name);
}

/* Count of start, start+step, ... before stop (inclusive: up to stop), without overflow. */
static uint64_t int_count(int64_t start, int64_t stop, int64_t step, bool inclusive) {
    if (step > 0) {
        if (inclusive ? start > stop : start >= stop) return 0;
        uint64_t span = (uint64_t)stop - (uint64_t)start;          /* > 0, fits: stop > start */
        if (!inclusive) span -= 1;
        uint64_t c = span / (uint64_t)step;
        return c == UINT64_MAX ? c : c + 1;                         /* 2^64 rows: clamp */
    }
    if (inclusive ? start < stop : start <= stop) return 0;
    uint64_t span = (uint64_t)start - (uint64_t)stop;
    if (!inclusive) span -= 1;
    uint64_t mag = step == INT64_MIN ? (uint64_t)1 << 63 : (uint64_t)(-step);
    uint64_t c = span / mag;
    return c == UINT64_MAX ? c : c + 1;
}

int tn_bind_range(tn_binder *b, tn_sql_tableref *t, tn_plan **out) {
    tn_sql_expr *f = t->u.function;
    const char *name = f->u.func.name.parts[f->u.func.name.n - 1].name;
    bool inclusive = strcmp(name, "generate_series") == 0;
    int n = f->u.func.args.n;
    tn_value v[3];
    if (n < 1 || n > 3) {
        memset(v, 0, sizeof v);
        for (int i = 0; i < n && i < 3; i++) {
            int rc = tn_bind_const_value(b, f->u.func.args.items[i], &v[i]);
            if (rc) return rc;
        }
        return no_match(b, f, name, v, n > 3 ? 3 : n);
    }
    for (int i = 0; i < n; i++) {
        if (f->u.func.arg_names && f->u.func.arg_names[i].name)
            return tn_bind_error(b, f->u.func.args.items[i]->pos, "%s takes no named parameters", name);
        int rc = tn_bind_const_value(b, f->u.func.args.items[i], &v[i]);
        if (rc) return rc;
    }
    bool ts = false, any_null = false;
    for (int i = 0; i < n; i++) {
        tn_type_id id = v[i].type.id;
        if (v[i].is_null) any_null = true;
        if (id == TN_TYPE_TIMESTAMP || id == TN_TYPE_DATE) ts = true;
    }
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, 1);
    if (!p) return TN_ENOMEM;
    p->u.values.is_range = true;
    p->u.values.range_inclusive = inclusive;
    p->names[0] = inclusive ? "generate_series" : "range";
    if (ts) {
        /* (TIMESTAMP, TIMESTAMP, INTERVAL); DATE is cast to TIMESTAMP as DuckDB does */
        if (n != 3) return no_match(b, f, name, v, n);
        tn_value c[2];
        for (int i = 0; i < 2; i++) {
            tn_type_id id = v[i].type.id;
            if (id != TN_TYPE_TIMESTAMP && id != TN_TYPE_DATE && id != TN_TYPE_NULL && id != TN_TYPE_VARCHAR)
                return no_match(b, f, name, v, n);
            if (v[i].is_null) { c[i] = v[i]; continue; }
            int rc = tn_cast_value(&v[i], tn_type_make(TN_TYPE_TIMESTAMP), false, b->arena, &c[i]);
            if (rc) return tn_bind_error_at(b, rc, f->u.func.args.items[i]->pos);
            /* 'infinity' would make ~10^8 rows per day of step up to the largest timestamp */
            if (!tn_ts_is_finite(c[i].u.i))
                return tn_bind_error(b, f->u.func.args.items[i]->pos, "RANGE with infinite bounds is not supported");
        }
        if (v[2].type.id != TN_TYPE_INTERVAL && v[2].type.id != TN_TYPE_NULL) return no_match(b, f, name, v, n);
        p->types[0] = tn_type_make(TN_TYPE_TIMESTAMP);
        p->u.values.range_ts = true;
        if (any_null) return *out = p, 0;            /* no rows */
        tn_interval iv = v[2].u.iv;
        bool pos = iv.months >= 0 && iv.days >= 0 && iv.micros >= 0;
        bool neg = iv.months <= 0 && iv.days <= 0 && iv.micros <= 0;
        if (pos && neg) return tn_bind_error(b, f->u.func.args.items[2]->pos, "interval cannot be 0!");
        if (!pos && !neg)
            return tn_bind_error(b, f->u.func.args.items[2]->pos,
                                 "Interval with mixed signs is not supported as the step of %s", name);
        p->u.values.range_start = c[0].u.i;
        p->u.values.range_stop = c[1].u.i;
        p->u.values.range_iv = iv;
        p->est_rows = 1000;
        *out = p;
        return 0;
    }
    int64_t iv[3] = {0, 0, 1};
    for (int i = 0; i < n; i++) {
        tn_type_id id = v[i].type.id;
        if (id == TN_TYPE_NULL || v[i].is_null) continue;
        if (!tn_type_is_integer(v[i].type)) return no_match(b, f, name, v, n);
        iv[i] = v[i].u.i;
    }
    p->types[0] = tn_type_make(TN_TYPE_BIGINT);
    if (n == 1) { iv[1] = iv[0]; iv[0] = 0; }
    if (any_null) return *out = p, 0;                /* range(NULL): no rows */
    if (iv[2] == 0) return tn_bind_error(b, f->u.func.args.items[2]->pos, "interval cannot be 0!");
    p->u.values.range_start = iv[0];
    p->u.values.range_stop = iv[1];
    p->u.values.range_step = iv[2];
    p->u.values.range_count = int_count(iv[0], iv[1], iv[2], inclusive);
    p->est_rows = (double)p->u.values.range_count;
    *out = p;
    return 0;
}
