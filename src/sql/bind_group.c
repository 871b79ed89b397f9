/*
 * sql/bind_group.c: GROUP BY GROUPING SETS / ROLLUP / CUBE (the sets come from parser_group.c)
 * and GROUPING(k, ...) / grouping_id. The aggregate runs once over an expanded input, as
 * Spark's Expand does: each input row is joined with the set numbers 0 .. nsets-1, a key
 * becomes CASE WHEN set IN (sets that hold it) THEN key END (NULL where a set rolls it up), and
 * the set number is one more group key, so every set gets its own groups in the one parallel
 * hash aggregate. The empty set () also gives a row over no input (count 0, sum NULL): one
 * extra input row per empty set carries a `real` flag that is false, and every aggregate is
 * filtered on `real`.
 */
#include <string.h>

#include "sql/bindInt.h"

bool tn_bind_is_grouping_name(const char *name) {
    return tn_str_iequal(name, "grouping") || tn_str_iequal(name, "grouping_id");
}

int tn_bind_grouping_sets(tn_binder *b, const tn_sql_select *s, bind_scope *S, agg_info *A) {
    uint32_t n = A->ngroups, nk = 0;
    uint32_t *map = tn_arena_calloc(b->arena, ((size_t)n + 1) * sizeof *map);
    if (!map) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {                   /* distinct keys, in first-seen order */
        uint32_t k = 0;
        while (k < nk && strcmp(A->group_text[k], A->group_text[i]) != 0) k++;
        map[i] = k;
        if (k < nk) {
            tn_expr_free(A->groups[i]);
            A->groups[i] = NULL;
            continue;
        }
        A->groups[nk] = A->groups[i];
        A->group_text[nk] = A->group_text[i];
        if (nk != i) A->groups[i] = NULL;
        nk++;
    }
    A->ngroups = nk;
    if (nk > 63) return tn_bind_error(b, s->group_by.items[0]->pos, "GROUPING SETS over more than 63 distinct keys are not supported");
    A->nsets = (uint32_t)s->n_grouping_sets;
    A->nkeys = nk;
    A->set_masks = tn_arena_calloc(b->arena, ((size_t)A->nsets + 1) * sizeof *A->set_masks);
    if (!A->set_masks) return TN_ENOMEM;
    for (uint32_t g = 0; g < A->nsets; g++)
        for (int j = 0; j < s->grouping_sets[g].n; j++) A->set_masks[g] |= 1ull << map[s->grouping_sets[g].items[j]];
    /* the set number: a group key after the keys (its column is placed by tn_bind_grouping_plan) */
    int rc = tn_expr_column(&A->groups[nk], S->ncols, tn_type_make(TN_TYPE_INTEGER));
    if (rc) return rc;
    if (!(A->group_text[nk] = tn_arena_strdup(b->arena, "#grouping_set"))) return TN_ENOMEM;
    A->ngroups = nk + 1;
    return 0;
}

/* set IN (the sets whose bit `want` matches) over column `col`; sets listed in vals. */
static int set_in(tn_expr **out, uint32_t col, const int32_t *sets, uint32_t n) {
    tn_value *vals = tn_calloc(n + 1, sizeof *vals);
    if (!vals) return TN_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        vals[i].type = tn_type_make(TN_TYPE_INTEGER);
        vals[i].u.i = sets[i];
    }
    tn_expr *x = NULL;
    int rc = tn_expr_column(&x, col, tn_type_make(TN_TYPE_INTEGER));
    if (!rc) rc = tn_expr_in(out, x, vals, n, false);
    tn_free(vals);
    return rc;
}

static int typed_null(tn_expr **out, tn_type t) {
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.is_null = true;
    return tn_expr_constant(out, &v);
}

int tn_bind_grouping(bind_ctx *c, tn_sql_expr *e, tn_expr **out) {
    tn_binder *b = c->b;
    agg_info *A = c->agg;
    int nargs = e->u.func.args.n;
    if (A->ngroups == 0) return tn_bind_error(b, e->pos, "GROUPING statement cannot be used without groups");
    if (nargs == 0 || e->u.func.star) return tn_bind_error(b, e->pos, "GROUPING requires at least one child");
    if (nargs > 63) return tn_bind_error(b, e->pos, "GROUPING statement cannot have more than 63 groups");
    if (e->u.func.distinct || e->u.func.filter || e->u.func.order_by.n)
        return tn_bind_error(b, e->pos, "DISTINCT, FILTER and ORDER BY do not apply to GROUPING");
    uint32_t nk = A->nsets ? A->nkeys : A->ngroups;
    uint32_t *keys = tn_arena_calloc(b->arena, (size_t)nargs * sizeof *keys);
    if (!keys) return TN_ENOMEM;
    for (int j = 0; j < nargs; j++) {
        tn_sql_expr *ae = e->u.func.args.items[j];
        bind_ctx pc = {b, A->pre, NULL, false, c->clause, NULL, NULL};
        tn_expr *x = NULL;
        int rc = tn_bind_expr(&pc, ae, &x);
        if (rc) return rc;
        char *text = tn_bind_expr_text(b, x);
        tn_expr_free(x);
        if (!text) return TN_ENOMEM;
        uint32_t k = 0;
        while (k < nk && strcmp(A->group_text[k], text) != 0) k++;
        if (k == nk) {
            tn_buf nm = TN_BUF_INIT;
            int nrc = tn_bind_expr_name(&nm, ae);
            if (!nrc) nrc = tn_buf_append_byte(&nm, 0);
            rc = nrc ? TN_ENOMEM
                     : tn_bind_error(b, ae->pos, "GROUPING child \"%s\" must be a grouping column", (const char *)nm.data);
            tn_buf_free(&nm);
            return rc;
        }
        keys[j] = k;
    }
    tn_value v;
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_BIGINT);
    if (!A->nsets) return tn_expr_constant(out, &v);          /* a plain GROUP BY rolls nothing up */
    /* the value of each set; CASE over the set number, sets of one value together */
    int64_t *val = tn_arena_calloc(b->arena, (size_t)A->nsets * sizeof *val);
    int32_t *sets = tn_arena_calloc(b->arena, ((size_t)A->nsets + 1) * sizeof *sets);
    tn_expr **whens = tn_arena_calloc(b->arena, ((size_t)A->nsets + 1) * sizeof *whens);
    tn_expr **thens = tn_arena_calloc(b->arena, ((size_t)A->nsets + 1) * sizeof *thens);
    bool *done = tn_arena_calloc(b->arena, (size_t)A->nsets + 1);
    if (!val || !sets || !whens || !thens || !done) return TN_ENOMEM;
    for (uint32_t s = 0; s < A->nsets; s++)
        for (int j = 0; j < nargs; j++)
            if (!(A->set_masks[s] >> keys[j] & 1)) val[s] |= 1ll << (nargs - 1 - j);
    uint32_t nw = 0;
    int rc = 0;
    for (uint32_t s = 0; s < A->nsets && !rc; s++) {
        if (done[s] || val[s] == 0) continue;
        uint32_t ns = 0;
        for (uint32_t t = s; t < A->nsets; t++)
            if (!done[t] && val[t] == val[s]) {
                done[t] = true;
                sets[ns++] = (int32_t)t;
            }
        rc = set_in(&whens[nw], nk, sets, ns);
        v.u.i = val[s];
        if (!rc) rc = tn_expr_constant(&thens[nw], &v);
        nw++;
    }
    tn_expr *zero = NULL;
    v.u.i = 0;
    if (!rc) rc = tn_expr_constant(&zero, &v);
    if (!rc && nw == 0) {
        *out = zero;
        return 0;
    }
    if (!rc) return tn_expr_case(out, whens, thens, nw, zero);
    for (uint32_t i = 0; i < nw; i++) {
        tn_expr_free(whens[i]);
        tn_expr_free(thens[i]);
    }
    tn_expr_free(zero);
    return rc;
}

/* The expanded input: child x VALUES (0), (1), ... (one row per set); with an empty set, child
 * gets a TRUE `present` column and the join is a RIGHT join, so that an empty child still gives
 * one row per set (present NULL): aggregates count only present rows, and A->post_filter (over
 * the aggregate's output) drops those groups of non-empty sets that no present row formed. */
int tn_bind_grouping_plan(tn_binder *b, agg_info *A, tn_plan **child) {
    tn_plan *p = *child;
    uint32_t ns = A->nsets, nk = A->nkeys;
    uint32_t nempty = 0;
    for (uint32_t s = 0; s < ns; s++) nempty += A->set_masks[s] == 0;
    int rc = 0;
    uint32_t n0 = p->ncols;
    if (nempty) {                                /* child + present */
        tn_expr **ex = tn_arena_calloc(b->arena, ((size_t)n0 + 2) * sizeof *ex);
        const char **names = tn_arena_calloc(b->arena, ((size_t)n0 + 2) * sizeof *names);
        if (!ex || !names) return TN_ENOMEM;
        for (uint32_t c = 0; c < n0 && !rc; c++) {
            rc = tn_expr_column(&ex[c], c, p->types[c]);
            names[c] = p->names[c];
        }
        tn_value t;
        memset(&t, 0, sizeof t);
        t.type = tn_type_make(TN_TYPE_BOOLEAN);
        t.u.b = true;
        if (!rc) rc = tn_expr_constant(&ex[n0], &t);
        names[n0] = "#grouping_present";
        if (!rc) rc = tn_bind_project(b, p, ex, names, n0 + 1, &p);
        else for (uint32_t c = 0; c <= n0; c++) tn_expr_free(ex[c]);
        *child = p;
        if (rc) return rc;
    }
    uint32_t present = n0, setcol = nempty ? n0 + 1 : n0, nj = setcol + 1;
    tn_plan *v = tn_plan_new(b->arena, TN_PLAN_VALUES, 1);
    tn_plan *j = tn_plan_new(b->arena, TN_PLAN_JOIN, nj);
    if (!v || !j) return TN_ENOMEM;
    v->types[0] = tn_type_make(TN_TYPE_INTEGER);
    v->names[0] = "#grouping_set";
    v->u.values.nrows = ns;
    v->u.values.exprs = tn_arena_calloc(b->arena, ((size_t)ns + 1) * sizeof(tn_expr *));
    v->est_rows = ns;
    if (!v->u.values.exprs) return TN_ENOMEM;
    memcpy(j->types, p->types, p->ncols * sizeof *j->types);
    memcpy(j->names, p->names, p->ncols * sizeof *j->names);
    j->types[setcol] = v->types[0];
    j->names[setcol] = v->names[0];
    j->u.join.kind = nempty ? TN_JOIN_RIGHT : TN_JOIN_INNER;
    j->child[0] = p;
    j->child[1] = v;
    j->est_rows = p->est_rows * ns;
    *child = j;                                  /* from here on the tree owns v's expressions */
    for (uint32_t s = 0; s < ns && !rc; s++) {
        tn_value x;
        memset(&x, 0, sizeof x);
        x.type = v->types[0];
        x.u.i = s;
        rc = tn_expr_constant(&v->u.values.exprs[s], &x);
    }
    if (rc) return rc;
    /* keys: NULL in the sets that leave them out; the set number is one more key */
    int32_t *sets = tn_arena_calloc(b->arena, ((size_t)ns + 1) * sizeof *sets);
    if (!sets) return TN_ENOMEM;
    for (uint32_t k = 0; k < nk && !rc; k++) {
        uint32_t n = 0;
        for (uint32_t s = 0; s < ns; s++)
            if (A->set_masks[s] >> k & 1) sets[n++] = (int32_t)s;
        if (n == ns) continue;
        tn_expr *when = NULL, *then = A->groups[k], *els = NULL;
        A->groups[k] = NULL;
        rc = set_in(&when, setcol, sets, n);
        if (!rc) rc = typed_null(&els, then->type);
        if (rc) {
            tn_expr_free(when);
            tn_expr_free(then);
            break;
        }
        rc = tn_expr_case(&A->groups[k], &when, &then, 1, els);
    }
    if (rc) return rc;
    tn_expr_free(A->groups[nk]);
    A->groups[nk] = NULL;
    rc = tn_expr_column(&A->groups[nk], setcol, tn_type_make(TN_TYPE_INTEGER));
    if (rc || !nempty) return rc;
    /* only present rows feed the aggregates; one more (hidden) counts them */
    for (uint32_t a = 0; a < A->naggs && !rc; a++) {
        tn_expr *pr = NULL;
        rc = tn_expr_column(&pr, present, tn_type_make(TN_TYPE_BOOLEAN));
        if (rc) break;
        if (A->aggs[a].filter) {
            tn_expr *both[2] = {pr, A->aggs[a].filter};
            A->aggs[a].filter = NULL;
            rc = tn_expr_and(&A->aggs[a].filter, both, 2);
        } else {
            A->aggs[a].filter = pr;
        }
    }
    if (rc) return rc;
    tn_plan_agg *na = tn_arena_calloc(b->arena, ((size_t)A->naggs + 1) * sizeof *na);
    if (!na) return TN_ENOMEM;
    if (A->naggs) memcpy(na, A->aggs, A->naggs * sizeof *na);
    A->aggs = na;
    A->cap = A->naggs + 1;
    tn_plan_agg *cnt = &na[A->naggs++];
    cnt->kind = TN_AGG_COUNT;
    cnt->type = tn_type_make(TN_TYPE_BIGINT);
    rc = tn_expr_column(&cnt->arg, present, tn_type_make(TN_TYPE_BOOLEAN));
    if (rc) return rc;
    /* post filter: count > 0 OR set IN (empty sets), over the aggregate's output */
    uint32_t ne = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (!A->set_masks[s]) sets[ne++] = (int32_t)s;
    tn_expr *c = NULL, *in = NULL, *zero = NULL, *gt = NULL;
    tn_value z;
    memset(&z, 0, sizeof z);
    z.type = tn_type_make(TN_TYPE_BIGINT);
    rc = tn_expr_column(&c, nk + 1 + A->naggs - 1, cnt->type);
    if (!rc) rc = tn_expr_constant(&zero, &z);
    if (!rc) {
        tn_expr *args[2] = {c, zero};
        c = zero = NULL;
        rc = tn_expr_function(&gt, ">", args, 2);
    }
    if (!rc) rc = set_in(&in, nk, sets, ne);
    if (!rc) {
        tn_expr *either[2] = {gt, in};
        gt = in = NULL;
        rc = tn_expr_or(&A->post_filter, either, 2);
    }
    tn_expr_free(c);
    tn_expr_free(zero);
    tn_expr_free(gt);
    tn_expr_free(in);
    return rc;
}
