/*
 * sql/optimize_join_order.c: cost-based order of inner-join chains. A maximal tree of INNER
 * joins is flattened into its leaves (any other node: a scan, a filtered scan, an outer, semi
 * or anti join, an aggregate...) and the conjuncts of its conditions; then up to DP_MAX leaves
 * are ordered by dynamic programming over connected subsets (DPsize with the C_out cost: the
 * sum of the estimated intermediate results plus the build sides), more by greedy operator
 * ordering (GOO: repeatedly join the connected pair with the smallest result). A subset whose
 * leaves are connected by equality predicates is never planned as a cross product. Each
 * conjunct goes to the lowest join that sees all its leaves; a projection restores the
 * original column order. Estimates come from optimize_cost.c.
 */
#include <string.h>

#include "sql/optimizeInt.h"

#define MAX_LEAVES 64
#define DP_MAX 10

typedef struct jo_conj {
    tn_expr *e;             /* over the chain's columns (the leaves side by side, in FROM order) */
    uint64_t mask;          /* leaves it references */
    uint64_t ma, mb;        /* equality: leaves of each side (disjoint, both non-empty) */
    bool eq;
    double sel;             /* selectivity used for the estimates */
} jo_conj;

typedef struct jo_node {
    uint64_t mask;
    int l, r;               /* children (node indexes); leaves: -1 */
    double rows;
} jo_node;

typedef struct jo {
    tn_arena *arena;
    tn_plan *leaf[MAX_LEAVES];
    uint32_t off[MAX_LEAVES];        /* first column of each leaf in the chain's output */
    uint32_t n, width;
    jo_conj *c;
    uint32_t nc, capc;
    jo_node node[2 * MAX_LEAVES];
    uint32_t nnodes;
} jo;

static int add_conj(jo *j, tn_expr *e) {
    if (e->kind == TN_EXPR_AND) {
        int rc = 0;
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (!rc) rc = add_conj(j, e->args[i]);
            else tn_expr_free(e->args[i]);
            e->args[i] = NULL;
        }
        e->nargs = 0;
        tn_expr_free(e);
        return rc;
    }
    if (j->nc == j->capc) {
        uint32_t cap = j->capc ? j->capc * 2 : 16;
        jo_conj *nc = tn_realloc(j->c, cap * sizeof *nc);
        if (!nc) { tn_expr_free(e); return TN_ENOMEM; }
        j->c = nc;
        j->capc = cap;
    }
    memset(&j->c[j->nc], 0, sizeof j->c[j->nc]);
    j->c[j->nc++].e = e;
    return 0;
}

static bool is_chain(const tn_plan *p) { return p->kind == TN_PLAN_JOIN && p->u.join.kind == TN_JOIN_INNER; }

static uint32_t count_leaves(const tn_plan *p) {
    return is_chain(p) ? count_leaves(p->child[0]) + count_leaves(p->child[1]) : 1;
}

/* Flatten the chain rooted at p (its columns start at offset) into leaves and conjuncts. */
static int flatten(jo *j, tn_plan *p, uint32_t offset) {
    if (!is_chain(p) || j->n + count_leaves(p) > MAX_LEAVES) {
        if (j->n == MAX_LEAVES) return tn_error_set(TN_EINTERNAL, "join chain too long");
        j->leaf[j->n] = p;
        j->off[j->n++] = offset;
        return 0;
    }
    int rc = flatten(j, p->child[0], offset);
    if (!rc) rc = flatten(j, p->child[1], offset + p->child[0]->ncols);
    if (!rc && p->u.join.cond) {
        tn_expr *cond = p->u.join.cond;
        p->u.join.cond = NULL;
        tn_expr_shift(cond, (int64_t)offset);
        rc = add_conj(j, cond);
    }
    return rc;
}

static uint32_t leaf_of(const jo *j, uint32_t col) {
    uint32_t i = 0;
    while (i + 1 < j->n && j->off[i + 1] <= col) i++;
    return i;
}

static uint64_t leaves_of(const jo *j, const tn_expr *e, bool *used) {
    memset(used, 0, j->width + 1);
    tn_expr_columns(e, used, j->width);
    uint64_t m = 0;
    for (uint32_t c = 0; c < j->width; c++)
        if (used[c]) m |= 1ull << leaf_of(j, c);
    return m;
}

/* Selectivity of the equality a = b (each side over one set of leaves): through the leaf of a
   column when both sides are columns. */
static double eq_sel(const jo *j, const tn_expr *a, const tn_expr *b) {
    const tn_expr *ca = a->kind == TN_EXPR_CAST ? a->args[0] : a, *cb = b->kind == TN_EXPR_CAST ? b->args[0] : b;
    if (ca->kind != TN_EXPR_COLUMN || cb->kind != TN_EXPR_COLUMN) return 0.1;
    uint32_t i = leaf_of(j, ca->u.column), k = leaf_of(j, cb->u.column);
    tn_expr *x = NULL, *y = NULL;
    if (tn_expr_column(&x, ca->u.column - j->off[i], ca->type) || tn_expr_column(&y, cb->u.column - j->off[k], cb->type)) {
        tn_expr_free(x);
        return 0.1;
    }
    double s = tn_opt_join_sel(j->leaf[i], x, j->leaf[k], y);
    tn_expr_free(x);
    tn_expr_free(y);
    return s;
}

static int classify(jo *j) {
    bool *used = tn_calloc(j->width + 1, 1);
    if (!used) return TN_ENOMEM;
    for (uint32_t k = 0; k < j->nc; k++) {
        jo_conj *c = &j->c[k];
        c->mask = leaves_of(j, c->e, used);
        c->sel = 0.3;
        if (!tn_opt_is_eq(c->e)) continue;
        c->ma = leaves_of(j, c->e->args[0], used);
        c->mb = leaves_of(j, c->e->args[1], used);
        if (!c->ma || !c->mb || (c->ma & c->mb)) continue;
        c->eq = true;
        c->sel = eq_sel(j, c->e->args[0], c->e->args[1]);
    }
    tn_free(used);
    /* Several equalities between the same leaves (a composite key): only the most selective
       one counts, the others mostly repeat it. */
    for (uint32_t k = 0; k < j->nc; k++) {
        if (!j->c[k].eq) continue;
        for (uint32_t m = 0; m < j->nc; m++)
            if (m != k && j->c[m].eq && j->c[m].mask == j->c[k].mask &&
                (j->c[m].sel < j->c[k].sel || (j->c[m].sel == j->c[k].sel && m < k))) {
                j->c[k].sel = 1;
                break;
            }
    }
    return 0;
}

static double card(const jo *j, uint64_t s) {
    double r = 1;
    for (uint32_t i = 0; i < j->n; i++)
        if (s >> i & 1) r *= j->leaf[i]->est_rows > 1 ? j->leaf[i]->est_rows : 1;
    for (uint32_t k = 0; k < j->nc; k++)
        if (j->c[k].mask && (j->c[k].mask & ~s) == 0) r *= j->c[k].sel;
    return r < 1 ? 1 : r;
}

static bool hashable(const jo *j, uint64_t a, uint64_t b) {
    for (uint32_t k = 0; k < j->nc; k++) {
        const jo_conj *c = &j->c[k];
        if (c->eq && (((c->ma & ~a) == 0 && (c->mb & ~b) == 0) || ((c->ma & ~b) == 0 && (c->mb & ~a) == 0)))
            return true;
    }
    return false;
}

/* Whether the leaves of s are connected by equalities that lie within s. */
static bool connected(const jo *j, uint64_t s) {
    uint64_t reach = s & (~s + 1);
    for (bool grew = true; grew;) {
        grew = false;
        for (uint32_t k = 0; k < j->nc; k++) {
            const jo_conj *c = &j->c[k];
            if (!c->eq || (c->mask & ~s) || !(c->mask & reach) || (c->mask & ~reach) == 0) continue;
            reach |= c->mask;
            grew = true;
        }
    }
    return reach == s;
}

static int new_node(jo *j, uint64_t mask, int l, int r, double rows) {
    jo_node *n = &j->node[j->nnodes];
    n->mask = mask;
    n->l = l;
    n->r = r;
    n->rows = rows;
    return (int)j->nnodes++;
}

/* DPsize over subsets: returns the root node. */
static int order_dp(jo *j) {
    uint32_t n = j->n;
    size_t size = (size_t)1 << n;
    double *cost = tn_malloc(size * sizeof *cost), *rows = tn_malloc(size * sizeof *rows);
    uint64_t *split = tn_malloc(size * sizeof *split);
    bool *conn = tn_malloc(size);
    int root = -1;
    if (!cost || !rows || !split || !conn) goto cleanup;
    for (uint64_t s = 1; s < size; s++) {
        rows[s] = card(j, s);
        conn[s] = connected(j, s);
        cost[s] = -1;
        split[s] = 0;
        if ((s & (s - 1)) == 0) { cost[s] = 0; continue; }
        for (int pass = 0; pass < 2 && cost[s] < 0; pass++) {
            bool strict = conn[s] && pass == 0;
            for (uint64_t a = (s - 1) & s; a; a = (a - 1) & s) {
                uint64_t b = s ^ a;
                if (a < b) continue;              /* each unordered pair once */
                if (strict && (!conn[a] || !conn[b] || !hashable(j, a, b))) continue;
                double c = cost[a] + cost[b] + rows[s] + (rows[a] < rows[b] ? rows[a] : rows[b]);
                if (cost[s] < 0 || c < cost[s]) {
                    cost[s] = c;
                    split[s] = a;
                }
            }
        }
    }
    /* Materialize the tree from the splits, top-down (an explicit stack of subsets). */
    uint64_t stack[MAX_LEAVES];
    int slot[MAX_LEAVES];
    uint32_t sp = 0;
    for (uint32_t i = 0; i < n; i++) new_node(j, 1ull << i, -1, -1, rows[1ull << i]);
    root = new_node(j, size - 1, -1, -1, rows[size - 1]);
    stack[sp] = size - 1;
    slot[sp++] = root;
    while (sp) {
        sp--;
        uint64_t s = stack[sp];
        int id = slot[sp];
        uint64_t parts[2] = {split[s], s ^ split[s]};
        int kids[2];
        for (int k = 0; k < 2; k++) {
            uint64_t p = parts[k];
            if ((p & (p - 1)) == 0) kids[k] = __builtin_ctzll(p);
            else {
                kids[k] = new_node(j, p, -1, -1, rows[p]);
                stack[sp] = p;
                slot[sp++] = kids[k];
            }
        }
        j->node[id].l = kids[0];
        j->node[id].r = kids[1];
    }
cleanup:
    tn_free(cost);
    tn_free(rows);
    tn_free(split);
    tn_free(conn);
    return root < 0 ? tn_error_set(TN_ENOMEM, "out of memory") : root;
}

/* Greedy operator ordering: join the pair with the smallest estimated result, connected pairs
   first. */
static int order_goo(jo *j) {
    int live[MAX_LEAVES];
    uint32_t nl = j->n;
    for (uint32_t i = 0; i < j->n; i++) live[i] = new_node(j, 1ull << i, -1, -1, card(j, 1ull << i));
    while (nl > 1) {
        int bi = -1, bj = -1;
        bool bconn = false;
        double best = 0;
        for (uint32_t a = 0; a < nl; a++)
            for (uint32_t b = a + 1; b < nl; b++) {
                uint64_t ma = j->node[live[a]].mask, mb = j->node[live[b]].mask;
                bool h = hashable(j, ma, mb);
                double r = card(j, ma | mb);
                if (bi < 0 || (h && !bconn) || (h == bconn && r < best)) {
                    bi = (int)a;
                    bj = (int)b;
                    bconn = h;
                    best = r;
                }
            }
        int id = new_node(j, j->node[live[bi]].mask | j->node[live[bj]].mask, live[bi], live[bj], best);
        live[bi] = id;
        live[bj] = live[--nl];
    }
    return live[0];
}

/* Build the plan of node id; fills map[chain column] = column of the built plan. */
static int build(jo *j, int id, uint32_t *map, tn_plan **out) {
    jo_node *nd = &j->node[id];
    if (nd->l < 0) {
        uint32_t i = (uint32_t)__builtin_ctzll(nd->mask);
        for (uint32_t c = 0; c < j->leaf[i]->ncols; c++) map[j->off[i] + c] = c;
        *out = j->leaf[i];
        return 0;
    }
    tn_plan *l = NULL, *r = NULL;
    int rc = build(j, nd->l, map, &l);
    if (!rc) rc = build(j, nd->r, map, &r);
    if (rc) return rc;
    uint64_t ml = j->node[nd->l].mask, mr = j->node[nd->r].mask;
    for (uint32_t i = 0; i < j->n; i++)
        if (mr >> i & 1)
            for (uint32_t c = 0; c < j->leaf[i]->ncols; c++) map[j->off[i] + c] += l->ncols;
    tn_plan *p = tn_plan_new(j->arena, TN_PLAN_JOIN, l->ncols + r->ncols);
    if (!p) return TN_ENOMEM;
    memcpy(p->types, l->types, l->ncols * sizeof *p->types);
    memcpy(p->types + l->ncols, r->types, r->ncols * sizeof *p->types);
    memcpy(p->names, l->names, l->ncols * sizeof *p->names);
    memcpy(p->names + l->ncols, r->names, r->ncols * sizeof *p->names);
    p->child[0] = l;
    p->child[1] = r;
    p->u.join.kind = TN_JOIN_INNER;
    p->est_rows = nd->rows;
    /* conjuncts first seeing all their leaves here (constant ones at the top) */
    tn_expr *items[64];
    uint32_t ni = 0;
    for (uint32_t k = 0; k < j->nc && !rc; k++) {
        jo_conj *c = &j->c[k];
        if (!c->e || (c->mask & ~nd->mask) || (c->mask && ((c->mask & ~ml) == 0 || (c->mask & ~mr) == 0)))
            continue;
        if (!c->mask && (uint32_t)id != j->nnodes - 1) continue;
        if (ni == 64) {
            rc = tn_expr_and(&items[0], items, ni);
            ni = rc ? 0 : 1;
            if (rc) break;
        }
        tn_expr_remap(c->e, map);
        items[ni++] = c->e;
        c->e = NULL;
    }
    if (!rc && ni == 1) p->u.join.cond = items[0];
    else if (!rc && ni > 1) rc = tn_expr_and(&p->u.join.cond, items, ni);
    *out = p;
    return rc;
}

static int reorder_chain(tn_arena *arena, tn_plan **slot) {
    tn_plan *top = *slot;
    jo *j = tn_calloc(1, sizeof *j);
    uint32_t *map = NULL;
    if (!j) return TN_ENOMEM;
    j->arena = arena;
    j->width = top->ncols;
    int rc = flatten(j, top, 0);
    for (uint32_t i = 0; i < j->n && !rc; i++) rc = tn_opt_join_order(arena, &j->leaf[i]);
    if (!rc) rc = classify(j);
    int root = -1;
    if (!rc) {
        root = j->n <= DP_MAX ? order_dp(j) : order_goo(j);
        if (root < 0) rc = root;
    }
    /* the root must be the last node for the constant conjuncts */
    if (!rc && (uint32_t)root != j->nnodes - 1) {
        j->node[j->nnodes] = j->node[root];
        root = (int)j->nnodes++;
    }
    map = tn_malloc((j->width + 1) * sizeof *map);
    if (!map && !rc) rc = TN_ENOMEM;
    tn_plan *p = NULL;
    if (!rc) rc = build(j, root, map, &p);
    bool ident = true;
    for (uint32_t c = 0; c < j->width && !rc && ident; c++) ident = map[c] == c;
    if (!rc && !ident) {
        tn_plan *pr = tn_plan_new(arena, TN_PLAN_PROJECT, j->width);
        tn_expr **ex = pr ? tn_arena_calloc(arena, (j->width + 1) * sizeof *ex) : NULL;
        if (!ex) rc = TN_ENOMEM;
        for (uint32_t c = 0; c < j->width && !rc; c++) rc = tn_expr_column(&ex[c], map[c], top->types[c]);
        if (!rc) {
            memcpy(pr->types, top->types, j->width * sizeof *pr->types);
            memcpy(pr->names, top->names, j->width * sizeof *pr->names);
            pr->u.project.exprs = ex;
            pr->child[0] = p;
            pr->est_rows = p->est_rows;
            p = pr;
        } else if (ex) {
            for (uint32_t c = 0; c < j->width; c++) tn_expr_free(ex[c]);
        }
    }
    if (!rc) *slot = p;
    for (uint32_t k = 0; k < j->nc; k++) tn_expr_free(j->c[k].e);
    tn_free(j->c);
    tn_free(map);
    tn_free(j);
    return rc;
}

int tn_opt_join_order(tn_arena *arena, tn_plan **slot) {
    tn_plan *p = *slot;
    if (is_chain(p) && count_leaves(p) >= 3) return reorder_chain(arena, slot);
    for (int i = 0; i < 2; i++)
        if (p->child[i]) {
            int rc = tn_opt_join_order(arena, &p->child[i]);
            if (rc) return rc;
        }
    return 0;
}
