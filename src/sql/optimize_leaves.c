/*
 * sql/optimize_leaves.c: struct-leaf projection. A STRUCT column of a Parquet or Delta scan that
 * the plan above uses only through field accesses (s.a, s.b.c; through filters, projections,
 * joins, sorts, aggregates, windows and unnests) is read with only those fields: the scan gets
 * a pruned type per output column (tn_plan_scan.read_types), reads just the leaves under the
 * kept fields (their column chunks alone) and hands the rows on in the column's full type with
 * the other fields NULL (tn_vector_swap_widen). Any other use of the column (the value itself:
 * output, comparison, grouping, hashing, casts, functions of the whole struct) keeps it whole.
 * Runs last, after pruning: column indexes are final. Changes no types and no expressions.
 */
#include <string.h>

#include "sql/optimizeInt.h"

/* Fields used below one STRUCT level: whole, or some children (NULL = unused). */
typedef struct use_node {
    bool whole;
    uint32_t nkids;
    struct use_node **kids;
} use_node;

typedef struct leaves {
    tn_arena *arena;
    int rc;
} leaves;

/* A scan output column that may be pruned, or NULL. */
typedef struct origin {
    tn_plan *scan;
    uint32_t col;
} origin;

static bool prunable_scan(const tn_plan *p) {
    return p->kind == TN_PLAN_SCAN &&
           (p->u.scan.format == TN_SCAN_PARQUET || p->u.scan.format == TN_SCAN_DELTA) && !p->u.scan.borrowed;
}

/* Where output column col of p comes from unchanged, following pass-through columns. */
static origin find_origin(tn_plan *p, uint32_t col) {
    origin none = {NULL, 0};
    for (;;) {
        if (col >= p->ncols) return none;
        switch (p->kind) {
        case TN_PLAN_SCAN:
            if (!prunable_scan(p) || p->types[col].id != TN_TYPE_STRUCT) return none;
            return (origin){p, col};
        case TN_PLAN_FILTER:
            if (p->u.filter.out_cols) col = p->u.filter.out_cols[col];
            p = p->child[0];
            break;
        case TN_PLAN_PROJECT: {
            const tn_expr *e = p->u.project.exprs[col];
            if (!e || e->kind != TN_EXPR_COLUMN) return none;
            col = e->u.column;
            p = p->child[0];
            break;
        }
        case TN_PLAN_JOIN: {
            uint32_t nl = p->child[0]->ncols;
            if (col < nl) p = p->child[0];
            else {
                col -= nl;
                p = p->child[1];
            }
            break;
        }
        case TN_PLAN_SORT:
        case TN_PLAN_LIMIT: p = p->child[0]; break;
        case TN_PLAN_WINDOW:
        case TN_PLAN_UNNEST:
            if (col >= p->child[0]->ncols) return none;
            p = p->child[0];
            break;
        default: return none;
        }
    }
}

/* The use tree of scan column (scan, col), kept in the scan's read_uses. */
static use_node *use_root(leaves *L, origin o) {
    tn_plan_scan *s = &o.scan->u.scan;
    if (!s->read_uses) {
        s->read_uses = tn_arena_calloc(L->arena, (o.scan->ncols + 1) * sizeof(void *));
        if (!s->read_uses) return NULL;
    }
    use_node **slot = (use_node **)&s->read_uses[o.col];
    if (!*slot) *slot = tn_arena_calloc(L->arena, sizeof(use_node));
    return *slot;
}

/* Records that column col of p is used along path[0..depth) of struct field indexes (depth 0:
 * the whole value). */
static void use_path(leaves *L, tn_plan *p, uint32_t col, const uint32_t *path, uint32_t depth) {
    origin o = find_origin(p, col);
    if (!o.scan || L->rc) return;
    use_node *u = use_root(L, o);
    tn_type t = o.scan->types[o.col];
    for (uint32_t d = 0; u && d < depth && !u->whole; d++) {
        if (t.id != TN_TYPE_STRUCT || path[d] >= t.nested->nchildren) {
            u->whole = true;
            return;
        }
        if (!u->kids) {
            u->nkids = t.nested->nchildren;
            u->kids = tn_arena_calloc(L->arena, u->nkids * sizeof *u->kids);
            if (!u->kids) break;
        }
        if (!u->kids[path[d]]) u->kids[path[d]] = tn_arena_calloc(L->arena, sizeof(use_node));
        u = u->kids[path[d]];
        t = t.nested->children[path[d]];
    }
    if (!u) {
        L->rc = TN_ENOMEM;
        return;
    }
    u->whole = true;
}

static bool is_struct_extract(const tn_expr *e) {
    return e->kind == TN_EXPR_FUNCTION && e->nargs == 2 && e->u.func.call.def &&
           strcmp(e->u.func.call.def->name, "struct_extract") == 0 && e->u.func.call.bind_data;
}

/* The uses in e, whose columns are those of p's inputs: col < split of child[0], the rest of
 * child[1] (joins; split = UINT32_MAX otherwise). */
static void use_expr(leaves *L, const tn_expr *e, tn_plan *p, uint32_t split) {
    if (!e || L->rc) return;
    uint32_t path[64], depth = 0;
    const tn_expr *x = e;
    while (is_struct_extract(x) && depth < 64) {
        path[depth++] = (uint32_t)(uintptr_t)x->u.func.call.bind_data - 1;
        x = x->args[0];
    }
    if (x->kind == TN_EXPR_COLUMN) {
        for (uint32_t i = 0; i < depth / 2; i++) {      /* outermost access last: reverse */
            uint32_t t = path[i];
            path[i] = path[depth - 1 - i];
            path[depth - 1 - i] = t;
        }
        uint32_t c = x->u.column;
        if (c < split) use_path(L, p->child[0], c, path, depth);
        else use_path(L, p->child[1], c - split, path, depth);
        return;
    }
    if (depth) {
        use_expr(L, x, p, split);
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++) use_expr(L, e->args[i], p, split);
}

static void use_all(leaves *L, tn_plan *c) {
    for (uint32_t i = 0; i < c->ncols; i++) use_path(L, c, i, NULL, 0);
}

static void walk(leaves *L, tn_plan *p) {
    if (!p || L->rc) return;
    const uint32_t one = UINT32_MAX;
    switch (p->kind) {
    case TN_PLAN_FILTER: use_expr(L, p->u.filter.pred, p, one); break;
    case TN_PLAN_PROJECT:
        for (uint32_t i = 0; i < p->ncols; i++) {
            const tn_expr *e = p->u.project.exprs[i];
            if (e && e->kind != TN_EXPR_COLUMN) use_expr(L, e, p, one);   /* a bare column passes on */
        }
        break;
    case TN_PLAN_AGGREGATE:
        for (uint32_t g = 0; g < p->u.agg.ngroups; g++) use_expr(L, p->u.agg.groups[g], p, one);
        for (uint32_t k = 0; k < p->u.agg.naggs; k++) {
            use_expr(L, p->u.agg.aggs[k].arg, p, one);
            use_expr(L, p->u.agg.aggs[k].sep, p, one);
            use_expr(L, p->u.agg.aggs[k].filter, p, one);
        }
        break;
    case TN_PLAN_JOIN: {
        uint32_t nl = p->child[0]->ncols;
        use_expr(L, p->u.join.cond, p, nl);
        use_expr(L, p->u.join.residual, p, nl);
        for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
            use_expr(L, p->u.join.lkeys[k], p, one);
            use_expr(L, p->u.join.rkeys[k], p, 0);
        }
        break;
    }
    case TN_PLAN_SORT:
        for (uint32_t k = 0; k < p->u.sort.nkeys; k++) use_path(L, p->child[0], p->u.sort.keys[k], NULL, 0);
        break;
    case TN_PLAN_WINDOW:
        for (uint32_t f = 0; f < p->u.window.nfuncs; f++) {
            tn_plan_window_func *fn = &p->u.window.funcs[f];
            uint32_t ns = 2 + fn->npart + fn->norder;
            tn_expr ***sl = tn_arena_alloc(L->arena, ns * sizeof *sl);
            if (!sl) {
                L->rc = TN_ENOMEM;
                return;
            }
            uint32_t n = tn_window_func_exprs(fn, sl);
            for (uint32_t k = 0; k < n; k++) use_expr(L, *sl[k], p, one);
        }
        break;
    case TN_PLAN_UNNEST:
        for (uint32_t k = 0; k < p->u.unnest.n; k++) use_expr(L, p->u.unnest.exprs[k], p, one);
        break;
    case TN_PLAN_SETOP:
        use_all(L, p->child[0]);
        use_all(L, p->child[1]);
        break;
    default: break;
    }
    walk(L, p->child[0]);
    walk(L, p->child[1]);
}

/* The type keeping the fields u uses (t itself when u uses all of it whole), into *out. */
static int pruned_type(tn_type t, const use_node *u, tn_type *out) {
    *out = t;
    if (u->whole || t.id != TN_TYPE_STRUCT || !u->kids) return 0;
    uint32_t n = 0, nf = t.nested->nchildren;
    const char *names[256];
    tn_type types[256];
    if (nf > 256) return 0;
    bool same = true;
    for (uint32_t i = 0; i < nf; i++) {
        if (!u->kids[i]) {
            same = false;
            continue;
        }
        int rc = pruned_type(t.nested->children[i], u->kids[i], &types[n]);
        if (rc) return rc;
        if (!tn_type_equal(types[n], t.nested->children[i])) same = false;
        names[n++] = t.nested->names[i];
    }
    if (same || n == 0) return 0;
    return tn_type_struct(out, n, names, types);
}

/* Sets read_types on the scans below p from their use trees. */
static int apply(leaves *L, tn_plan *p) {
    if (!p) return 0;
    if (p->kind == TN_PLAN_SCAN && p->u.scan.read_uses) {
        tn_plan_scan *s = &p->u.scan;
        for (uint32_t i = 0; i < p->ncols; i++) {
            const use_node *u = s->read_uses[i];
            if (!u || u->whole) continue;
            bool unique = true;         /* the same source column read twice stays whole */
            for (uint32_t j = 0; j < p->ncols; j++)
                if (j != i && s->cols[j] == s->cols[i]) unique = false;
            tn_type t;
            int rc = unique ? pruned_type(p->types[i], u, &t) : 0;
            if (rc) return rc;
            if (!unique || tn_type_equal(t, p->types[i])) continue;
            if (!s->read_types) {
                s->read_types = tn_arena_calloc(L->arena, (p->ncols + 1) * sizeof *s->read_types);
                if (!s->read_types) return TN_ENOMEM;
            }
            s->read_types[i] = t;
        }
        s->read_uses = NULL;
    }
    int rc = apply(L, p->child[0]);
    return rc ? rc : apply(L, p->child[1]);
}

int tn_opt_struct_leaves(tn_arena *arena, tn_plan *root) {
    leaves L = {arena, 0};
    use_all(&L, root);           /* the result's columns are used whole */
    walk(&L, root);
    if (L.rc) return L.rc;
    return apply(&L, root);
}
