/*
 * sql/optimize.c: rewrites of the logical plan: filter pushdown (through projections,
 * aggregates over group columns, sorts and joins, comma joins becoming join conditions),
 * equi-join key extraction, build-side choice (the smaller estimated input builds), column
 * pruning down to the scans, and scan predicates (`col OP const`) for Parquet row-group and
 * page skipping. Estimates (optimize_cost.c) and join order (optimize_join_order.c) run
 * between pushdown and key extraction.
 */
#include <string.h>

#include "sql/optimizeInt.h"

typedef struct elist {
    tn_expr **items;
    uint32_t n, cap;
} elist;

static int el_push(elist *l, tn_expr *e) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        tn_expr **ni = tn_realloc(l->items, cap * sizeof *ni);
        if (!ni) { tn_expr_free(e); return TN_ENOMEM; }
        l->items = ni;
        l->cap = cap;
    }
    l->items[l->n++] = e;
    return 0;
}

static void el_free(elist *l) {
    for (uint32_t i = 0; i < l->n; i++) tn_expr_free(l->items[i]);
    tn_free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

static int split_conj(tn_expr *e, elist *l);
static int make_and(elist *l, tn_expr **out);
static bool has_volatile(const tn_expr *e);

static bool is_eq(const tn_expr *e);

/* Whether a and b are the same expression (deterministic ones only): their canonical texts
   (columns by index) are equal, or they are x = y and y = x. */
static bool same_expr(const tn_expr *a, const tn_expr *b) {
    if (has_volatile(a) || has_volatile(b)) return false;
    tn_buf x = TN_BUF_INIT, y = TN_BUF_INIT;
    bool same = tn_expr_to_text(&x, a) == 0 && tn_expr_to_text(&y, b) == 0 && x.len == y.len &&
                memcmp(x.data, y.data, x.len) == 0;
    tn_buf_free(&x);
    tn_buf_free(&y);
    if (!same && is_eq(a) && is_eq(b) && a->nargs == 2 && b->nargs == 2)
        same = same_expr(a->args[0], b->args[1]) && same_expr(a->args[1], b->args[0]);
    return same;
}

static bool conj_contains(const tn_expr *branch, const tn_expr *c) {
    if (branch->kind != TN_EXPR_AND) return same_expr(branch, c);
    for (uint32_t i = 0; i < branch->nargs; i++)
        if (same_expr(branch->args[i], c)) return true;
    return false;
}

/* `(a AND x) OR (a AND y)` (owned) → `a AND (x OR y)` into l: conjuncts found in every branch
   of an OR come out of it, so a join key repeated in each branch (TPC-H Q19) becomes a join
   key. When a branch is left with nothing, the OR is always true given the common part and
   goes away. */
static int split_or(tn_expr *e, elist *l) {
    const tn_expr *first = e->args[0];
    uint32_t nfirst = first->kind == TN_EXPR_AND ? first->nargs : 1;
    elist common = {0};
    int rc = 0;
    for (uint32_t k = 0; k < nfirst && !rc; k++) {
        const tn_expr *c = first->kind == TN_EXPR_AND ? first->args[k] : first;
        bool everywhere = !has_volatile(c);
        for (uint32_t b = 1; b < e->nargs && everywhere; b++) everywhere = conj_contains(e->args[b], c);
        for (uint32_t j = 0; j < common.n && everywhere; j++) everywhere = !same_expr(common.items[j], c);
        if (everywhere) {
            tn_expr *copy = tn_expr_copy(c);
            rc = copy ? el_push(&common, copy) : TN_ENOMEM;
        }
    }
    if (rc || common.n == 0) {
        el_free(&common);
        return rc ? (tn_expr_free(e), rc) : el_push(l, e);
    }
    /* Remove the common conjuncts from each branch. */
    bool some_branch_empty = false;
    for (uint32_t b = 0; b < e->nargs && !rc; b++) {
        tn_expr *br = e->args[b];
        elist rest = {0};
        e->args[b] = NULL;
        rc = split_conj(br, &rest);
        elist kept = {0};
        for (uint32_t i = 0; i < rest.n; i++) {
            bool is_common = false;
            for (uint32_t j = 0; j < common.n && !is_common; j++) is_common = same_expr(rest.items[i], common.items[j]);
            if (is_common) tn_expr_free(rest.items[i]);
            else if (!rc) rc = el_push(&kept, rest.items[i]);
            else tn_expr_free(rest.items[i]);
            rest.items[i] = NULL;
        }
        tn_free(rest.items);
        if (kept.n == 0) some_branch_empty = true;
        tn_expr *nb = NULL;
        int rc2 = make_and(&kept, &nb);
        if (!rc) rc = rc2;
        e->args[b] = nb;
    }
    for (uint32_t j = 0; j < common.n && !rc; j++) {
        rc = el_push(l, common.items[j]);
        common.items[j] = NULL;
    }
    el_free(&common);
    if (rc || some_branch_empty) {
        tn_expr_free(e);
        return rc;
    }
    return el_push(l, e);
}

/* Split e (owned) on AND into l; ORs give up the conjuncts all their branches share. */
static int split_conj(tn_expr *e, elist *l) {
    if (e->kind == TN_EXPR_OR && e->nargs >= 2) return split_or(e, l);
    if (e->kind == TN_EXPR_AND) {
        int rc = 0;
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (!rc) rc = split_conj(e->args[i], l);
            else tn_expr_free(e->args[i]);
            e->args[i] = NULL;
        }
        e->nargs = 0;
        tn_expr_free(e);
        return rc;
    }
    return el_push(l, e);
}

/* AND of the list (consumed); NULL when empty. */
static int make_and(elist *l, tn_expr **out) {
    *out = NULL;
    int rc = 0;
    if (l->n == 1) *out = l->items[0];
    else if (l->n > 1) rc = tn_expr_and(out, l->items, l->n);
    tn_free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
    return rc;
}

static bool has_volatile(const tn_expr *e) {
    if (!e) return false;
    if (e->kind == TN_EXPR_FUNCTION && e->u.func.call.def && (e->u.func.call.def->flags & TN_FUNC_VOLATILE))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_volatile(e->args[i])) return true;
    return false;
}

static bool is_true_const(const tn_expr *e) {
    return e->kind == TN_EXPR_CONSTANT && e->type.id == TN_TYPE_BOOLEAN && !e->u.value.is_null && e->u.value.u.b;
}

/* Replace column references in e by copies of exprs[col]. Returns a new tree (or NULL). */
static tn_expr *substitute(const tn_expr *e, tn_expr *const *exprs) {
    if (e->kind == TN_EXPR_COLUMN) return tn_expr_copy(exprs[e->u.column]);
    tn_expr *c = tn_expr_copy(e);
    if (!c) return NULL;
    for (uint32_t i = 0; i < c->nargs; i++) {
        tn_expr *s = substitute(e->args[i], exprs);
        if (!s) { tn_expr_free(c); return NULL; }
        tn_expr_free(c->args[i]);
        c->args[i] = s;
    }
    return c;
}

static int wrap_filter(tn_arena *arena, tn_plan **slot, elist *kept) {
    if (kept->n == 0) {
        el_free(kept);
        return 0;
    }
    tn_plan *child = *slot;
    tn_expr *pred = NULL;
    int rc = make_and(kept, &pred);
    if (rc) return rc;
    tn_plan *f = tn_plan_new(arena, TN_PLAN_FILTER, child->ncols);
    if (!f) { tn_expr_free(pred); return TN_ENOMEM; }
    memcpy(f->types, child->types, child->ncols * sizeof *f->types);
    memcpy(f->names, child->names, child->ncols * sizeof *f->names);
    f->u.filter.pred = pred;
    f->child[0] = child;
    f->est_rows = child->est_rows * 0.3;
    *slot = f;
    return 0;
}

/* An OR whose every branch restricts the columns [lo, hi) implies the OR of those
   restrictions, e.g. TPC-H Q7's `(n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 = 'GERMANY' AND
   n2 = 'FRANCE')` implies `n1 = 'FRANCE' OR n1 = 'GERMANY'`. Returns that new expression (over
   the same columns) or NULL; the original stays where it is, so results do not change. */
#define IMPLIED_MAX_SEL 0.25

static tn_expr *implied_or(const tn_expr *e, uint32_t lo, uint32_t hi) {
    if (e->kind != TN_EXPR_OR || has_volatile(e)) return NULL;
    tn_expr **br = tn_calloc(e->nargs + 1, sizeof *br);
    if (!br) return NULL;
    uint32_t nb = 0;
    bool ok = true;
    for (uint32_t b = 0; b < e->nargs && ok; b++) {
        const tn_expr *x = e->args[b];
        uint32_t n = x->kind == TN_EXPR_AND ? x->nargs : 1, np = 0;
        tn_expr **parts = tn_calloc(n + 1, sizeof *parts);
        if (!parts) { ok = false; break; }
        for (uint32_t i = 0; i < n && ok; i++) {
            const tn_expr *c = x->kind == TN_EXPR_AND ? x->args[i] : x;
            if (tn_expr_is_constant(c) || !tn_expr_columns_within(c, lo, hi)) continue;
            if (!(parts[np] = tn_expr_copy(c))) ok = false;
            else np++;
        }
        if (!ok || np == 0) {
            for (uint32_t i = 0; i < np; i++) tn_expr_free(parts[i]);
            ok = false;
        } else if (np == 1) br[nb++] = parts[0];
        else if (tn_expr_and(&br[nb], parts, np) == 0) nb++;
        else ok = false;
        tn_free(parts);
    }
    tn_expr *out = NULL;
    if (ok && nb == e->nargs) {
        if (tn_expr_or(&out, br, nb)) out = NULL;
    } else
        for (uint32_t i = 0; i < nb; i++) tn_expr_free(br[i]);
    tn_free(br);
    return out;
}

/* Push the conjuncts in `conjs` (over (*slot)'s output; consumed) as deep as they go. */
static int push(tn_arena *arena, tn_plan **slot, elist *conjs) {
    tn_plan *node = *slot;
    elist kept = {0}, down = {0}, down2 = {0};
    int rc = 0;
    switch (node->kind) {
    case TN_PLAN_FILTER: {
        tn_expr *pred = node->u.filter.pred;
        node->u.filter.pred = NULL;
        rc = split_conj(pred, conjs);
        if (rc) break;
        *slot = node->child[0];
        node->child[0] = NULL;
        return push(arena, slot, conjs);
    }
    case TN_PLAN_PROJECT: {
        for (uint32_t i = 0; i < conjs->n && !rc; i++) {
            tn_expr *e = conjs->items[i];
            bool *used = tn_calloc(node->ncols + 1, 1);
            if (!used) { rc = TN_ENOMEM; break; }
            tn_expr_columns(e, used, node->ncols);
            bool ok = !has_volatile(e);
            for (uint32_t c = 0; c < node->ncols && ok; c++)
                if (used[c] && has_volatile(node->u.project.exprs[c])) ok = false;
            tn_free(used);
            if (ok) {
                tn_expr *s = substitute(e, node->u.project.exprs);
                if (!s) { rc = TN_ENOMEM; break; }
                tn_expr_free(e);
                rc = el_push(&down, s);
            } else rc = el_push(&kept, e);
            conjs->items[i] = NULL;
        }
        if (!rc) rc = push(arena, &node->child[0], &down);
        break;
    }
    case TN_PLAN_AGGREGATE: {
        uint32_t ng = node->u.agg.ngroups;
        for (uint32_t i = 0; i < conjs->n && !rc; i++) {
            tn_expr *e = conjs->items[i];
            conjs->items[i] = NULL;
            if (ng > 0 && tn_expr_columns_within(e, 0, ng) && !has_volatile(e) && !tn_expr_is_constant(e)) {
                tn_expr *s = substitute(e, node->u.agg.groups);
                if (!s) { tn_expr_free(e); rc = TN_ENOMEM; break; }
                tn_expr_free(e);
                rc = el_push(&down, s);
            } else rc = el_push(&kept, e);
        }
        if (!rc) rc = push(arena, &node->child[0], &down);
        break;
    }
    case TN_PLAN_SORT:
        if (node->u.sort.limit < 0) {
            for (uint32_t i = 0; i < conjs->n && !rc; i++) {
                rc = el_push(&down, conjs->items[i]);
                conjs->items[i] = NULL;
            }
        } else {
            for (uint32_t i = 0; i < conjs->n && !rc; i++) {
                rc = el_push(&kept, conjs->items[i]);
                conjs->items[i] = NULL;
            }
        }
        if (!rc) rc = push(arena, &node->child[0], &down);
        break;
    case TN_PLAN_JOIN: {
        tn_plan *l = node->child[0], *r = node->child[1];
        uint32_t nl = l->ncols, nr = r->ncols;
        tn_join_kind k = node->u.join.kind;
        bool semi = k == TN_JOIN_SEMI || k == TN_JOIN_ANTI;
        elist cond = {0};
        if ((k == TN_JOIN_INNER) && node->u.join.cond) {
            rc = split_conj(node->u.join.cond, &cond);
            node->u.join.cond = NULL;
        }
        for (uint32_t i = 0; i < conjs->n && !rc; i++) {
            tn_expr *e = conjs->items[i];
            conjs->items[i] = NULL;
            if (has_volatile(e)) { rc = el_push(&kept, e); continue; }
            bool inl = tn_expr_columns_within(e, 0, nl);
            bool inr = !semi && tn_expr_columns_within(e, nl, nl + nr);
            if (tn_expr_is_constant(e)) rc = el_push(&kept, e);
            else if (inl && (k == TN_JOIN_INNER || k == TN_JOIN_LEFT || semi)) rc = el_push(&down, e);
            else if (inr && (k == TN_JOIN_INNER || k == TN_JOIN_RIGHT)) {
                tn_expr_shift(e, -(int64_t)nl);
                rc = el_push(&down2, e);
            } else if (k == TN_JOIN_INNER) rc = el_push(&cond, e);
            else rc = el_push(&kept, e);
        }
        /* conjuncts of an inner join's own condition that touch one side go down too */
        if (!rc && k == TN_JOIN_INNER) {
            elist rest = {0};
            for (uint32_t i = 0; i < cond.n && !rc; i++) {
                tn_expr *e = cond.items[i];
                cond.items[i] = NULL;
                if (!has_volatile(e) && !tn_expr_is_constant(e) && tn_expr_columns_within(e, 0, nl))
                    rc = el_push(&down, e);
                else if (!has_volatile(e) && !tn_expr_is_constant(e) && tn_expr_columns_within(e, nl, nl + nr)) {
                    tn_expr_shift(e, -(int64_t)nl);
                    rc = el_push(&down2, e);
                } else rc = el_push(&rest, e);
            }
            el_free(&cond);
            cond = rest;
            /* ORs over both sides: what they imply for each side alone filters it early, when
               that drops most of the side's rows (else evaluating it costs more than it saves) */
            for (uint32_t i = 0; i < cond.n && !rc; i++) {
                tn_expr *dl = implied_or(cond.items[i], 0, nl), *dr = implied_or(cond.items[i], nl, nl + nr);
                if (dr) tn_expr_shift(dr, -(int64_t)nl);
                if (dl && tn_opt_selectivity(l, dl) > IMPLIED_MAX_SEL) { tn_expr_free(dl); dl = NULL; }
                if (dr && tn_opt_selectivity(r, dr) > IMPLIED_MAX_SEL) { tn_expr_free(dr); dr = NULL; }
                if (dl) rc = el_push(&down, dl);
                if (dr) {
                    if (!rc) rc = el_push(&down2, dr);
                    else tn_expr_free(dr);
                }
            }
            if (!rc) rc = make_and(&cond, &node->u.join.cond);
        } else if (!rc && (k == TN_JOIN_SEMI || k == TN_JOIN_ANTI || k == TN_JOIN_LEFT) && node->u.join.cond) {
            /* ON conjuncts over the right side only filter the build input */
            elist c2 = {0}, rest = {0};
            rc = split_conj(node->u.join.cond, &c2);
            node->u.join.cond = NULL;
            for (uint32_t i = 0; i < c2.n && !rc; i++) {
                tn_expr *e = c2.items[i];
                c2.items[i] = NULL;
                if (!has_volatile(e) && !tn_expr_is_constant(e) && tn_expr_columns_within(e, nl, nl + nr)) {
                    tn_expr_shift(e, -(int64_t)nl);
                    rc = el_push(&down2, e);
                } else rc = el_push(&rest, e);
            }
            el_free(&c2);
            if (!rc) rc = make_and(&rest, &node->u.join.cond);
            else el_free(&rest);
        }
        el_free(&cond);
        if (!rc) rc = push(arena, &node->child[0], &down);
        if (!rc) rc = push(arena, &node->child[1], &down2);
        break;
    }
    case TN_PLAN_LIMIT:
    case TN_PLAN_SETOP:
    case TN_PLAN_WINDOW:         /* a filter under a window would change its partitions */
    case TN_PLAN_UNNEST:
    case TN_PLAN_SCAN:
    case TN_PLAN_VALUES:
    case TN_PLAN_CTE:            /* the definition is shared: filters stay above */
        for (uint32_t i = 0; i < conjs->n && !rc; i++) {
            if (!is_true_const(conjs->items[i])) rc = el_push(&kept, conjs->items[i]);
            else tn_expr_free(conjs->items[i]);
            conjs->items[i] = NULL;
        }
        if (!rc && node->child[0]) {
            elist none = {0};
            rc = push(arena, &node->child[0], &none);
        }
        if (!rc && node->child[1]) {
            elist none = {0};
            rc = push(arena, &node->child[1], &none);
        }
        break;
    }
    el_free(conjs);
    el_free(&down);
    el_free(&down2);
    if (rc) {
        el_free(&kept);
        return rc;
    }
    /* drop always-true conjuncts */
    uint32_t w = 0;
    for (uint32_t i = 0; i < kept.n; i++) {
        if (is_true_const(kept.items[i])) tn_expr_free(kept.items[i]);
        else kept.items[w++] = kept.items[i];
    }
    kept.n = w;
    return wrap_filter(arena, slot, &kept);
}

/* ---------------------------------------------------------------------------------------------
 * Join keys and build side.
 */
static bool is_eq(const tn_expr *e) { return tn_opt_is_eq(e); }

static bool refs_column(const tn_expr *e) {
    if (e->kind == TN_EXPR_COLUMN) return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (refs_column(e->args[i])) return true;
    return false;
}

static int join_keys(tn_arena *arena, tn_plan *p) {
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (p->child[i]) rc = join_keys(arena, p->child[i]);
    if (rc || p->kind != TN_PLAN_JOIN) return rc;
    tn_plan *l = p->child[0], *r = p->child[1];
    uint32_t nl = l->ncols, nr = r->ncols;
    elist c = {0}, rest = {0};
    if (p->u.join.cond) {
        rc = split_conj(p->u.join.cond, &c);
        p->u.join.cond = NULL;
        if (rc) return rc;
    }
    p->u.join.lkeys = tn_arena_calloc(arena, (c.n + 1) * sizeof(tn_expr *));
    p->u.join.rkeys = tn_arena_calloc(arena, (c.n + 1) * sizeof(tn_expr *));
    if (!p->u.join.lkeys || !p->u.join.rkeys) { el_free(&c); return TN_ENOMEM; }
    for (uint32_t i = 0; i < c.n && !rc; i++) {
        tn_expr *e = c.items[i];
        c.items[i] = NULL;
        if (is_eq(e) && refs_column(e->args[0]) && refs_column(e->args[1])) {
            tn_expr *a = e->args[0], *b = e->args[1];
            bool al = tn_expr_columns_within(a, 0, nl), ar = tn_expr_columns_within(a, nl, nl + nr);
            bool bl = tn_expr_columns_within(b, 0, nl), br = tn_expr_columns_within(b, nl, nl + nr);
            if ((al && br) || (ar && bl)) {
                tn_expr *lk = al ? a : b, *rk = al ? b : a;
                e->args[0] = e->args[1] = NULL;
                e->nargs = 0;
                tn_expr_free(e);
                tn_expr_shift(rk, -(int64_t)nl);
                p->u.join.lkeys[p->u.join.nkeys] = lk;
                p->u.join.rkeys[p->u.join.nkeys] = rk;
                p->u.join.nkeys++;
                continue;
            }
        }
        rc = el_push(&rest, e);
    }
    el_free(&c);
    if (!rc) rc = make_and(&rest, &p->u.join.residual);
    else el_free(&rest);
    /* the smaller estimated input builds; SEMI / ANTI / LEFT joins too (op_join.c then marks
       the matched build rows and emits the kept ones at the end) */
    tn_join_kind k = p->u.join.kind;
    if ((k == TN_JOIN_INNER || k == TN_JOIN_SEMI || k == TN_JOIN_ANTI || k == TN_JOIN_LEFT) && p->u.join.nkeys > 0)
        p->u.join.build_left = l->est_rows < r->est_rows;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Column pruning. prune() shrinks node's output to the columns marked in req (where the node
 * can) and fills map[old] = new index (UINT32_MAX for dropped columns).
 */
#define GONE UINT32_MAX

static int prune(tn_arena *arena, tn_plan *p, const bool *req, uint32_t *map);

static int prune_child_all(tn_arena *arena, tn_plan *c, uint32_t **map_out) {
    bool *req = tn_arena_alloc(arena, c->ncols + 1);
    uint32_t *map = tn_arena_alloc(arena, (c->ncols + 1) * sizeof *map);
    if (!req || !map) return TN_ENOMEM;
    memset(req, 1, c->ncols + 1);
    *map_out = map;
    return prune(arena, c, req, map);
}

static void set_identity(tn_plan *p, uint32_t *map) {
    for (uint32_t i = 0; i < p->ncols; i++) map[i] = i;
}

static int reshape(tn_arena *arena, tn_plan *p, const tn_type *types, const char **names, uint32_t n) {
    tn_type *t = tn_arena_alloc(arena, (n + 1) * sizeof *t);
    const char **nm = tn_arena_alloc(arena, (n + 1) * sizeof *nm);
    if (!t || !nm) return TN_ENOMEM;
    memcpy(t, types, n * sizeof *t);
    memcpy(nm, names, n * sizeof *nm);
    p->types = t;
    p->names = nm;
    p->ncols = n;
    return 0;
}

static int prune(tn_arena *arena, tn_plan *p, const bool *req, uint32_t *map) {
    int rc = 0;
    switch (p->kind) {
    case TN_PLAN_SCAN: {
        tn_plan_scan *s = &p->u.scan;
        uint32_t n = 0;
        uint32_t *cols = tn_arena_alloc(arena, (s->ncols + 1) * sizeof *cols);
        tn_type *types = tn_arena_alloc(arena, (s->ncols + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (s->ncols + 1) * sizeof *names);
        if (!cols || !types || !names) return TN_ENOMEM;
        for (uint32_t i = 0; i < s->ncols; i++) {
            if (req[i]) {
                map[i] = n;
                types[n] = p->types[i];
                names[n] = p->names[i];
                cols[n++] = s->cols[i];
            } else map[i] = GONE;
        }
        s->cols = cols;
        s->ncols = n;
        p->types = types;
        p->names = names;
        p->ncols = n;
        return 0;
    }
    case TN_PLAN_VALUES:
    case TN_PLAN_CTE:
        set_identity(p, map);
        return 0;
    case TN_PLAN_FILTER: {
        tn_plan *c = p->child[0];
        bool *creq = tn_arena_calloc(arena, c->ncols + 1);
        uint32_t *cmap = tn_arena_alloc(arena, (c->ncols + 1) * sizeof *cmap);
        if (!creq || !cmap) return TN_ENOMEM;
        for (uint32_t i = 0; i < p->ncols; i++) creq[i] = req[i];
        tn_expr_columns(p->u.filter.pred, creq, c->ncols);
        rc = prune(arena, c, creq, cmap);
        if (rc) return rc;
        tn_expr_remap(p->u.filter.pred, cmap);
        uint32_t n = 0;
        uint32_t *out = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *out);
        tn_type *types = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *names);
        if (!out || !types || !names) return TN_ENOMEM;
        for (uint32_t i = 0; i < p->ncols; i++) {
            if (req[i]) {
                out[n] = cmap[i];
                types[n] = p->types[i];
                names[n] = p->names[i];
                map[i] = n++;
            } else map[i] = GONE;
        }
        bool ident = n == c->ncols;
        for (uint32_t i = 0; i < n && ident; i++) ident = out[i] == i;
        p->u.filter.out_cols = ident ? NULL : out;
        p->u.filter.nout = n;
        p->types = types;
        p->names = names;
        p->ncols = n;
        return 0;
    }
    case TN_PLAN_PROJECT: {
        tn_plan *c = p->child[0];
        bool *creq = tn_arena_calloc(arena, c->ncols + 1);
        uint32_t *cmap = tn_arena_alloc(arena, (c->ncols + 1) * sizeof *cmap);
        tn_expr **ex = tn_arena_calloc(arena, (p->ncols + 1) * sizeof *ex);
        tn_type *types = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *names);
        if (!creq || !cmap || !ex || !types || !names) return TN_ENOMEM;
        uint32_t n = 0;
        for (uint32_t i = 0; i < p->ncols; i++) {
            if (req[i]) {
                tn_expr_columns(p->u.project.exprs[i], creq, c->ncols);
                ex[n] = p->u.project.exprs[i];
                types[n] = p->types[i];
                names[n] = p->names[i];
                map[i] = n++;
            } else {
                tn_expr_free(p->u.project.exprs[i]);
                map[i] = GONE;
            }
            p->u.project.exprs[i] = NULL;
        }
        p->u.project.exprs = ex;
        p->types = types;
        p->names = names;
        p->ncols = n;
        rc = prune(arena, c, creq, cmap);
        if (rc) return rc;
        for (uint32_t i = 0; i < n; i++) tn_expr_remap(ex[i], cmap);
        return 0;
    }
    case TN_PLAN_AGGREGATE: {
        tn_plan *c = p->child[0];
        uint32_t ng = p->u.agg.ngroups;
        bool *creq = tn_arena_calloc(arena, c->ncols + 1);
        uint32_t *cmap = tn_arena_alloc(arena, (c->ncols + 1) * sizeof *cmap);
        tn_type *types = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (p->ncols + 1) * sizeof *names);
        if (!creq || !cmap || !types || !names) return TN_ENOMEM;
        for (uint32_t g = 0; g < ng; g++) {
            tn_expr_columns(p->u.agg.groups[g], creq, c->ncols);
            map[g] = g;
            types[g] = p->types[g];
            names[g] = p->names[g];
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < p->u.agg.naggs; k++) {
            tn_plan_agg *a = &p->u.agg.aggs[k];
            if (!req[ng + k]) {
                tn_expr_free(a->arg);
                tn_expr_free(a->sep);
                tn_expr_free(a->filter);
                map[ng + k] = GONE;
                continue;
            }
            tn_expr_columns(a->arg, creq, c->ncols);
            tn_expr_columns(a->filter, creq, c->ncols);
            p->u.agg.aggs[n] = *a;
            types[ng + n] = p->types[ng + k];
            names[ng + n] = p->names[ng + k];
            map[ng + k] = ng + n;
            n++;
        }
        p->u.agg.naggs = n;
        p->types = types;
        p->names = names;
        p->ncols = ng + n;
        rc = prune(arena, c, creq, cmap);
        if (rc) return rc;
        for (uint32_t g = 0; g < ng; g++) tn_expr_remap(p->u.agg.groups[g], cmap);
        for (uint32_t k = 0; k < n; k++) {
            tn_expr_remap(p->u.agg.aggs[k].arg, cmap);
            tn_expr_remap(p->u.agg.aggs[k].filter, cmap);
        }
        return 0;
    }
    case TN_PLAN_JOIN: {
        tn_plan *l = p->child[0], *r = p->child[1];
        uint32_t nl = l->ncols, nr = r->ncols;
        bool semi = p->u.join.kind == TN_JOIN_SEMI || p->u.join.kind == TN_JOIN_ANTI;
        bool *all = tn_arena_calloc(arena, nl + nr + 1);
        uint32_t *lmap = tn_arena_alloc(arena, (nl + 1) * sizeof *lmap);
        uint32_t *rmap = tn_arena_alloc(arena, (nr + 1) * sizeof *rmap);
        if (!all || !lmap || !rmap) return TN_ENOMEM;
        for (uint32_t i = 0; i < p->ncols; i++) all[i] = req[i];
        for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
            tn_expr_columns(p->u.join.lkeys[k], all, nl);
            tn_expr_columns(p->u.join.rkeys[k], all + nl, nr);
        }
        tn_expr_columns(p->u.join.residual, all, nl + nr);
        tn_expr_columns(p->u.join.cond, all, nl + nr);
        rc = prune(arena, l, all, lmap);
        if (!rc) rc = prune(arena, r, all + nl, rmap);
        if (rc) return rc;
        uint32_t *cmb = tn_arena_alloc(arena, (nl + nr + 1) * sizeof *cmb);
        if (!cmb) return TN_ENOMEM;
        for (uint32_t i = 0; i < nl; i++) cmb[i] = lmap[i];
        for (uint32_t i = 0; i < nr; i++) cmb[nl + i] = rmap[i] == GONE ? GONE : l->ncols + rmap[i];
        for (uint32_t k = 0; k < p->u.join.nkeys; k++) {
            tn_expr_remap(p->u.join.lkeys[k], lmap);
            tn_expr_remap(p->u.join.rkeys[k], rmap);
        }
        tn_expr_remap(p->u.join.residual, cmb);
        tn_expr_remap(p->u.join.cond, cmb);
        uint32_t n = semi ? l->ncols : l->ncols + r->ncols;
        tn_type *types = tn_arena_alloc(arena, (n + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (n + 1) * sizeof *names);
        if (!types || !names) return TN_ENOMEM;
        for (uint32_t i = 0; i < l->ncols; i++) { types[i] = l->types[i]; names[i] = l->names[i]; }
        if (!semi)
            for (uint32_t i = 0; i < r->ncols; i++) {
                types[l->ncols + i] = r->types[i];
                names[l->ncols + i] = r->names[i];
            }
        for (uint32_t i = 0; i < p->ncols; i++) map[i] = cmb[i];
        p->types = types;
        p->names = names;
        p->ncols = n;
        return 0;
    }
    case TN_PLAN_SORT: {
        tn_plan *c = p->child[0];
        bool *creq = tn_arena_calloc(arena, c->ncols + 1);
        if (!creq) return TN_ENOMEM;
        for (uint32_t i = 0; i < p->ncols; i++) creq[i] = req[i];
        for (uint32_t k = 0; k < p->u.sort.nkeys; k++) creq[p->u.sort.keys[k]] = true;
        rc = prune(arena, c, creq, map);
        if (rc) return rc;
        for (uint32_t k = 0; k < p->u.sort.nkeys; k++) p->u.sort.keys[k] = map[p->u.sort.keys[k]];
        return reshape(arena, p, c->types, c->names, c->ncols);
    }
    case TN_PLAN_LIMIT: {
        tn_plan *c = p->child[0];
        rc = prune(arena, c, req, map);
        if (rc) return rc;
        return reshape(arena, p, c->types, c->names, c->ncols);
    }
    case TN_PLAN_WINDOW: {
        tn_plan *c = p->child[0];
        uint32_t nin = c->ncols, nf = p->u.window.nfuncs;
        bool *creq = tn_arena_calloc(arena, nin + 1);
        uint32_t *cmap = tn_arena_alloc(arena, (nin + 1) * sizeof *cmap);
        if (!creq || !cmap) return TN_ENOMEM;
        for (uint32_t i = 0; i < nin; i++) creq[i] = req[i];
        uint32_t kept = 0;
        for (uint32_t f = 0; f < nf; f++) {
            tn_plan_window_func *fn = &p->u.window.funcs[f];
            tn_expr **slots[TN_FUNC_MAX_ARGS + 2];
            tn_expr ***sl = slots;
            uint32_t ns = 2 + fn->npart + fn->norder;
            if (ns > TN_FUNC_MAX_ARGS + 2) sl = tn_arena_alloc(arena, ns * sizeof *sl);
            if (!sl) return TN_ENOMEM;
            uint32_t n = tn_window_func_exprs(fn, sl);
            if (!req[nin + f]) {
                for (uint32_t k = 0; k < n; k++) tn_plan_set_expr(sl[k], NULL);
                fn->npart = fn->norder = 0;
                map[nin + f] = GONE;
                continue;
            }
            for (uint32_t k = 0; k < n; k++) tn_expr_columns(*sl[k], creq, nin);
            map[nin + f] = kept;      /* fixed below once the child's width is known */
            p->u.window.funcs[kept++] = *fn;
        }
        rc = prune(arena, c, creq, cmap);
        if (rc) return rc;
        uint32_t n = c->ncols + kept;
        tn_type *types = tn_arena_alloc(arena, (n + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (n + 1) * sizeof *names);
        if (!types || !names) return TN_ENOMEM;
        memcpy(types, c->types, c->ncols * sizeof *types);
        memcpy(names, c->names, c->ncols * sizeof *names);
        for (uint32_t f = 0; f < kept; f++) {
            tn_plan_window_func *fn = &p->u.window.funcs[f];
            tn_expr **slots[TN_FUNC_MAX_ARGS + 2];
            tn_expr ***sl = slots;
            uint32_t ns = 2 + fn->npart + fn->norder;
            if (ns > TN_FUNC_MAX_ARGS + 2) sl = tn_arena_alloc(arena, ns * sizeof *sl);
            if (!sl) return TN_ENOMEM;
            uint32_t ne = tn_window_func_exprs(fn, sl);
            for (uint32_t k = 0; k < ne; k++) tn_expr_remap(*sl[k], cmap);
            types[c->ncols + f] = fn->type;
            names[c->ncols + f] = "#window";
        }
        for (uint32_t f = 0; f < nf; f++)
            if (map[nin + f] != GONE) map[nin + f] += c->ncols;
        for (uint32_t i = 0; i < nin; i++) map[i] = cmap[i];
        p->u.window.nfuncs = kept;
        p->types = types;
        p->names = names;
        p->ncols = n;
        return 0;
    }
    case TN_PLAN_UNNEST: {       /* every list stays: each one decides the row count */
        tn_plan *c = p->child[0];
        uint32_t nin = c->ncols, nu = p->u.unnest.n;
        bool *creq = tn_arena_calloc(arena, nin + 1);
        uint32_t *cmap = tn_arena_alloc(arena, (nin + 1) * sizeof *cmap);
        if (!creq || !cmap) return TN_ENOMEM;
        for (uint32_t i = 0; i < nin; i++) creq[i] = req[i];
        for (uint32_t k = 0; k < nu; k++) tn_expr_columns(p->u.unnest.exprs[k], creq, nin);
        rc = prune(arena, c, creq, cmap);
        if (rc) return rc;
        for (uint32_t k = 0; k < nu; k++) tn_expr_remap(p->u.unnest.exprs[k], cmap);
        uint32_t n = c->ncols + nu;
        tn_type *types = tn_arena_alloc(arena, (n + 1) * sizeof *types);
        const char **names = tn_arena_alloc(arena, (n + 1) * sizeof *names);
        if (!types || !names) return TN_ENOMEM;
        memcpy(types, c->types, c->ncols * sizeof *types);
        memcpy(names, c->names, c->ncols * sizeof *names);
        memcpy(types + c->ncols, p->types + nin, nu * sizeof *types);
        memcpy(names + c->ncols, p->names + nin, nu * sizeof *names);
        for (uint32_t i = 0; i < nin; i++) map[i] = cmap[i];
        for (uint32_t k = 0; k < nu; k++) map[nin + k] = c->ncols + k;
        p->types = types;
        p->names = names;
        p->ncols = n;
        return 0;
    }
    case TN_PLAN_SETOP: {
        uint32_t *m0, *m1;
        rc = prune_child_all(arena, p->child[0], &m0);
        if (!rc) rc = prune_child_all(arena, p->child[1], &m1);
        set_identity(p, map);
        return rc;
    }
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Scan predicates.
 */
static int cmp_op(const char *name, bool flip, tn_parquet_op *op) {
    static const struct { const char *n; tn_parquet_op op, flipped; } t[] = {
        {"=", TN_PQ_EQ, TN_PQ_EQ}, {"<>", TN_PQ_NE, TN_PQ_NE}, {"<", TN_PQ_LT, TN_PQ_GT},
        {"<=", TN_PQ_LE, TN_PQ_GE}, {">", TN_PQ_GT, TN_PQ_LT}, {">=", TN_PQ_GE, TN_PQ_LE}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(name, t[i].n) == 0) {
            *op = flip ? t[i].flipped : t[i].op;
            return 0;
        }
    return -1;
}

static void collect_preds(tn_arena *arena, tn_plan *scan, const tn_expr *e, tn_parquet_predicate *out,
                          uint32_t *n, uint32_t cap) {
    if (*n >= cap) return;
    if (e->kind == TN_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++) collect_preds(arena, scan, e->args[i], out, n, cap);
        return;
    }
    tn_plan_scan *s = &scan->u.scan;
    if ((e->kind == TN_EXPR_IS_NULL || e->kind == TN_EXPR_IS_NOT_NULL) && e->args[0]->kind == TN_EXPR_COLUMN) {
        uint32_t c = e->args[0]->u.column;
        if (c >= s->ncols) return;
        tn_parquet_predicate *p = &out[(*n)++];
        memset(p, 0, sizeof *p);
        p->column = s->cols[c];
        p->op = e->kind == TN_EXPR_IS_NULL ? TN_PQ_IS_NULL : TN_PQ_IS_NOT_NULL;
        return;
    }
    /* `col IN (sorted constants)`: skipping by the range [first, last] (a superset) */
    if (e->kind == TN_EXPR_IN && e->args[0]->kind == TN_EXPR_COLUMN && e->u.in.nvalues && *n + 2 <= cap &&
        e->args[0]->u.column < s->ncols && !tn_type_is_string(e->args[0]->type) &&
        e->args[0]->type.id != TN_TYPE_FLOAT && e->args[0]->type.id != TN_TYPE_DOUBLE &&
        tn_type_equal(e->args[0]->type, s->src_types[s->cols[e->args[0]->u.column]])) {
        for (int k = 0; k < 2; k++) {
            tn_parquet_predicate *p = &out[(*n)++];
            memset(p, 0, sizeof *p);
            p->column = s->cols[e->args[0]->u.column];
            p->op = k ? TN_PQ_LE : TN_PQ_GE;
            p->constant = e->u.in.values[k ? e->u.in.nvalues - 1 : 0];
        }
        return;
    }
    if (e->kind != TN_EXPR_FUNCTION || e->nargs != 2 || !e->u.func.call.def) return;
    const tn_expr *a = e->args[0], *b = e->args[1];
    bool flip = false;
    if (a->kind == TN_EXPR_CONSTANT && b->kind == TN_EXPR_COLUMN) {
        const tn_expr *t = a;
        a = b;
        b = t;
        flip = true;
    }
    if (a->kind != TN_EXPR_COLUMN || b->kind != TN_EXPR_CONSTANT || b->u.value.is_null) return;
    if (!tn_type_equal(a->type, b->type)) return;
    tn_parquet_op op;
    if (cmp_op(e->u.func.call.def->name, flip, &op)) return;
    uint32_t c = a->u.column;
    if (c >= s->ncols) return;
    tn_parquet_predicate *p = &out[(*n)++];
    memset(p, 0, sizeof *p);
    p->column = s->cols[c];
    p->op = op;
    p->constant = b->u.value;
    p->constant.type = s->src_types[p->column];
    if (tn_type_is_string(p->constant.type)) {
        char *copy = tn_arena_alloc(arena, b->u.value.u.s.len + 1);
        if (!copy) { (*n)--; return; }
        memcpy(copy, b->u.value.u.s.ptr, b->u.value.u.s.len);
        p->constant.u.s.ptr = copy;
    }
}

static int scan_preds(tn_arena *arena, tn_plan *p) {
    for (int i = 0; i < 2; i++)
        if (p->child[i]) {
            int rc = scan_preds(arena, p->child[i]);
            if (rc) return rc;
        }
    if (p->kind != TN_PLAN_FILTER || p->child[0]->kind != TN_PLAN_SCAN) return 0;
    tn_plan *scan = p->child[0];
    if (scan->u.scan.format != TN_SCAN_PARQUET && scan->u.scan.format != TN_SCAN_DELTA) return 0;
    uint32_t cap = 64;
    tn_parquet_predicate *preds = tn_arena_calloc(arena, cap * sizeof *preds);
    if (!preds) return TN_ENOMEM;
    uint32_t n = 0;
    collect_preds(arena, scan, p->u.filter.pred, preds, &n, cap);
    scan->u.scan.preds = preds;
    scan->u.scan.npreds = n;
    return 0;
}

int tn_optimize(tn_plan **root, tn_arena *arena) {
    elist none = {0};
    int rc = tn_opt_ctes(arena, *root);
    if (!rc) rc = push(arena, root, &none);
    if (!rc) rc = tn_opt_date_casts(*root);
    if (!rc) {
        tn_opt_estimate(*root);
        rc = tn_opt_join_order(arena, root);
        if (!rc) rc = tn_opt_reduce_groups(arena, *root);
        if (!rc) tn_opt_estimate(*root);
    }
    if (!rc) rc = join_keys(arena, *root);
    if (!rc) {
        tn_plan *r = *root;
        bool *req = tn_arena_alloc(arena, r->ncols + 1);
        uint32_t *map = tn_arena_alloc(arena, (r->ncols + 1) * sizeof *map);
        if (!req || !map) return TN_ENOMEM;
        memset(req, 1, r->ncols + 1);
        rc = prune(arena, r, req, map);
    }
    if (!rc) rc = scan_preds(arena, *root);
    if (!rc) rc = tn_opt_struct_leaves(arena, *root);
    return rc;
}
