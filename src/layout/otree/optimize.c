/*
 * layout/otree/optimize.c: OPTIMIZE of an OTree table (qbeast's optimize: the whole table, the
 * files of a revision holding a block of minWeight <= fraction, or unindexed files), streaming:
 * the rows are read from the files it rewrites several times instead of being held.
 *
 *   1. a pass over the indexed columns: the row count and each column's range (the revision
 *      choice of write.c; a quantiles column that starts a revision is scanned once more);
 *   2. the tree, one pass per level (indexed columns only): a cube's maxWeight depends only on
 *      the number of rows in its subspace (and, for unindexed files indexed into an existing
 *      revision, the old tree's estimate), so pass k counts the rows of every cell at depth k
 *      under a cell of depth k - 1 that keeps rows of weight above its maxWeight, and how many
 *      rows each cell of depth k - 1 takes. The cubes, their maxWeights, element counts and
 *      minWeights come out exactly as write.c's in-memory build() gives them, in the same (pre-)
 *      order, so the files are the same. (OPTIMIZE ... WHERE fraction re-places rows in the
 *      revision's current cubes: one pass.)
 *   3. rollup (write.c), then a pass over every column that stages each row by its rollup group
 *      in partition buffers (layout/spill.c: memory within a budget, the rest in a temporary
 *      file of <table>/_tarn_tmp/);
 *   4. one group at a time: its rows replayed, sorted by weight and written as one file.
 *
 * Memory: the spill budget (memory_limit / 16, 64 MiB by default), the largest output file's
 * rows (a rollup group: about cubeSize rows), the cells of the tree. Tables with nested columns
 * (which the partition buffers do not hold) are rewritten through the in-memory writer.
 */
#include "layout/otree/otreeInt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STAGE_BUDGET_DEFAULT ((uint64_t)64 << 20)

/* ---------------------------------------------------------------------------------------------
 * Passes over the rewritten files.
 */
typedef int (*pass_fn)(void *ctx, const tn_chunk *chunk, const int32_t *weight, double *coord);

typedef struct pass_ctx {
    ot_writer *w;
    ot_plan *p;
    bool all;                          /* every column (else the indexed ones, in order) */
    bool derive;                       /* compute weights and coordinates */
    pass_fn fn;
    void *ctx;
    int32_t *weight;
    double *coord;
    uint32_t cap;
} pass_ctx;

static int pass_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    pass_ctx *pc = ctx;
    ot_plan *p = pc->p;
    int rc = tn_interrupt_check(pc->w->opts.interrupt);
    if (rc || chunk->count == 0) return rc;
    uint32_t n = chunk->count;
    if (pc->derive && n > pc->cap) {
        tn_free(pc->weight);
        tn_free(pc->coord);
        pc->weight = tn_malloc(sizeof *pc->weight * n);
        pc->coord = tn_malloc(sizeof *pc->coord * (size_t)n * (p->d ? p->d : 1));
        pc->cap = pc->weight && pc->coord ? n : 0;
        if (!pc->cap) return TN_ENOMEM;
    }
    if (pc->derive) {
        const tn_vector *iv[64];
        for (uint32_t i = 0; i < p->d; i++) iv[i] = pc->all ? &chunk->cols[p->cols[i]] : &chunk->cols[i];
        ot_weight_chunk(iv, p->d, n, pc->weight);
        ot_plan_coords(p, iv, n, pc->coord);
    }
    return pc->fn(pc->ctx, chunk, pc->weight, pc->coord);
}

static int scan_files(ot_writer *w, const tn_table_scan_options *so, tn_table_chunk_fn fn, void *ctx) {
    tn_table_scan *scan = NULL;
    int rc = w->stream_files ? tn_table_scan_open_files(&scan, w->t, so, w->stream_files, w->nstream_files)
                             : tn_table_scan_open(&scan, w->t, so);
    if (!rc) rc = tn_table_scan_run(scan, fn, ctx);
    tn_table_scan_close(scan);
    return rc;
}

static int run_pass(ot_plan *p, bool all, bool derive, pass_fn fn, void *ctx) {
    pass_ctx pc = {p->w, p, all, derive, fn, ctx, NULL, NULL, 0};
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    if (all) {
        so.all_columns = true;
    } else {
        so.columns = p->cols;
        so.ncolumns = p->d;
    }
    int rc = scan_files(p->w, &so, pass_chunk, &pc);
    tn_free(pc.weight);
    tn_free(pc.coord);
    return rc;
}

typedef struct column_ctx {
    tn_chunk *out;
} column_ctx;

static int column_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    tn_chunk *out = ((column_ctx *)ctx)->out;
    int rc = ot_vec_append(&out->cols[0], &chunk->cols[0], chunk->count);
    if (!rc) out->count = out->cols[0].count;
    return rc;
}

int ot_stream_column(ot_writer *w, uint32_t col, tn_chunk *out) {
    tn_type type = tn_table_column(w->t, col)->type;
    int rc = tn_chunk_init(out, 1, &type, TN_VECTOR_SIZE);
    if (rc) return rc;
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    so.columns = &col;
    so.ncolumns = 1;
    column_ctx cc = {out};
    rc = scan_files(w, &so, column_chunk, &cc);
    if (rc) tn_chunk_free(out);
    return rc;
}

static int count_rows(void *ctx, const tn_chunk *chunk, const int32_t *weight, double *coord) {
    (void)weight;
    (void)coord;
    ot_plan *p = ctx;
    if ((uint64_t)p->n + chunk->count > (uint64_t)UINT32_MAX - TN_VECTOR_SIZE)
        return tn_error_set(TN_ELIMIT, "table '%s': an OTree write holds at most 4 billion rows", tn_table_path(p->w->t));
    p->n += chunk->count;
    const tn_vector *iv[64];
    for (uint32_t i = 0; i < p->d; i++) iv[i] = &chunk->cols[i];
    ot_plan_ranges(p, iv, chunk->count);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The tree, level by level.
 */
typedef struct cell {
    const char *id;
    int32_t parent;                    /* -1: the root */
    uint32_t depth;
    uint64_t code;                     /* its cell among the parent's children */
    double nw, old_domain;             /* normalized maxWeight; the old rows' estimate */
    int32_t maxw;
    uint64_t rest;                     /* rows of weight > maxw (0: no children) */
    uint32_t taken;                    /* rows it holds (weight in (parent's maxw, maxw]) */
    int32_t min_weight;
    int32_t cube;                      /* plan cube, -1 when it holds no rows */
} cell;

/* (parent, code) -> index: open addressing, linear probing */
typedef struct cmap {
    struct cslot { uint64_t code; int32_t parent, val; } *slot;   /* val -1: empty */
    uint32_t cap, n;
} cmap;

static uint32_t cmap_hash(int32_t parent, uint64_t code) {
    uint64_t h = (code ^ ((uint64_t)(uint32_t)parent << 29)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static int32_t cmap_find(const cmap *m, int32_t parent, uint64_t code) {
    if (!m->cap) return -1;
    for (uint32_t i = cmap_hash(parent, code) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const struct cslot *s = &m->slot[i];
        if (s->val < 0) return -1;
        if (s->parent == parent && s->code == code) return s->val;
    }
}

static int cmap_put(cmap *m, int32_t parent, uint64_t code, int32_t val) {
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 1024;
        struct cslot *ns = tn_malloc(sizeof *ns * cap);
        if (!ns) return TN_ENOMEM;
        for (uint32_t i = 0; i < cap; i++) ns[i].val = -1;
        for (uint32_t k = 0; k < m->cap; k++) {
            if (m->slot[k].val < 0) continue;
            uint32_t i = cmap_hash(m->slot[k].parent, m->slot[k].code) & (cap - 1);
            while (ns[i].val >= 0) i = (i + 1) & (cap - 1);
            ns[i] = m->slot[k];
        }
        tn_free(m->slot);
        m->slot = ns;
        m->cap = cap;
    }
    uint32_t i = cmap_hash(parent, code) & (m->cap - 1);
    while (m->slot[i].val >= 0) i = (i + 1) & (m->cap - 1);
    m->slot[i] = (struct cslot){code, parent, val};
    m->n++;
    return 0;
}

static void cmap_clear(cmap *m) {
    for (uint32_t i = 0; i < m->cap; i++) m->slot[i].val = -1;
    m->n = 0;
}

typedef struct pending { int32_t parent; uint64_t code; uint64_t count; } pending;

typedef struct tree {
    ot_plan *p;
    cell *cells;
    uint32_t ncells, cap;
    cmap cells_map;                    /* children of cells with rows above their maxWeight */
    pending *pend;                     /* children of the frontier counted by the pass */
    uint32_t npend, cap_pend;
    cmap pend_map;
    uint32_t front_lo, front_hi;       /* the frontier: cells [lo, hi), all of depth `depth` */
    uint32_t depth;
} tree;

/* The next level's cell of a point (coords updated), as write.c's build() and cube.c descend. */
static inline uint64_t descend(double *c, uint32_t d) {
    uint64_t code = 0;
    for (uint32_t i = 0; i < d; i++) {
        double x = c[i] * 2;
        bool up = x >= 1;
        c[i] = up ? x - 1 : x;
        code = code << 1 | (up ? 1 : 0);
    }
    return code;
}

static int add_cell(tree *t, int32_t parent, uint64_t code, uint64_t count) {
    ot_plan *p = t->p;
    if (t->ncells == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        cell *c = tn_realloc(t->cells, sizeof *c * cap);
        if (!c) return TN_ENOMEM;
        t->cells = c;
        t->cap = cap;
    }
    cell *c = &t->cells[t->ncells];
    memset(c, 0, sizeof *c);
    c->parent = parent;
    c->code = code;
    c->cube = -1;
    c->min_weight = INT32_MAX;
    double parent_nw = 0;
    if (parent < 0) {
        int64_t own;
        c->id = "";
        c->old_domain = (double)ot_tree_size(p->old, "", &own);
    } else {
        const cell *pc = &t->cells[parent];
        uint32_t d = p->d, cpl = ot_cube_chars_per_level(d);
        size_t len = strlen(pc->id);
        char *id = tn_arena_alloc(p->arena, len + cpl + 1);
        if (!id) return TN_ENOMEM;
        memcpy(id, pc->id, len);
        int sym[11] = {0};
        for (uint32_t i = 0; i < d; i++)
            if ((code >> (d - 1 - i)) & 1) sym[i / 6] |= 1 << (5 - i % 6);
        static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (uint32_t j = 0; j < cpl; j++) id[len + j] = alphabet[sym[j]];
        id[len + cpl] = 0;
        c->id = id;
        c->depth = pc->depth + 1;
        int64_t own, cown, ts = ot_tree_size(p->old, pc->id, &own), cts = ot_tree_size(p->old, id, &cown);
        double below = (double)(ts - own);
        c->old_domain = below > 0 ? pc->old_domain * (double)cts / below : 0;
        parent_nw = pc->nw;
    }
    double domain = (double)count + c->old_domain;
    c->nw = domain <= (double)p->cube_size ? 1.0 : parent_nw + (double)p->cube_size / domain;
    if (c->depth >= OT_MAX_LEVELS) c->nw = 1.0;
    c->maxw = c->nw < 1.0 ? ot_weight_of_fraction(c->nw) : OT_WEIGHT_MAX;
    int rc = parent >= 0 ? cmap_put(&t->cells_map, parent, code, (int32_t)t->ncells) : 0;
    if (!rc) t->ncells++;
    return rc;
}

static int level_rows(void *ctx, const tn_chunk *chunk, const int32_t *weight, double *coord) {
    tree *t = ctx;
    uint32_t d = t->p->d;
    for (uint32_t r = 0; r < chunk->count; r++) {
        double *x = coord + (size_t)r * d;
        int32_t ci = 0;
        for (uint32_t k = 0; k < t->depth && ci >= 0; k++) ci = cmap_find(&t->cells_map, ci, descend(x, d));
        if (ci < 0 || (uint32_t)ci < t->front_lo) continue;   /* its path ended higher up */
        cell *c = &t->cells[ci];
        int32_t w = weight[r];
        if (w > c->maxw) {
            c->rest++;
        } else if (c->parent < 0 || w > t->cells[c->parent].maxw) {
            c->taken++;
            if (w < c->min_weight) c->min_weight = w;
        }
        if (c->maxw == OT_WEIGHT_MAX) continue;                 /* a leaf: no children */
        uint64_t code = descend(x, d);
        int32_t pi = cmap_find(&t->pend_map, ci, code);
        if (pi < 0) {
            if (t->npend == t->cap_pend) {
                uint32_t cap = t->cap_pend ? t->cap_pend * 2 : 256;
                pending *np = tn_realloc(t->pend, sizeof *np * cap);
                if (!np) return TN_ENOMEM;
                t->pend = np;
                t->cap_pend = cap;
            }
            pi = (int32_t)t->npend;
            t->pend[t->npend++] = (pending){ci, code, 0};
            int rc = cmap_put(&t->pend_map, ci, code, pi);
            if (rc) return rc;
        }
        t->pend[pi].count++;
    }
    return 0;
}

typedef struct child_ref { int32_t parent; uint64_t code; int32_t cell; } child_ref;
static int cmp_child_ref(const void *a, const void *b) {
    const child_ref *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return x->code < y->code ? -1 : x->code > y->code;
}

/* The plan's cubes from the cells that hold rows, in build()'s order: pre-order, children by
 * their cell code. */
static int tree_cubes(tree *t) {
    ot_plan *p = t->p;
    uint32_t n = t->ncells;
    child_ref *refs = tn_malloc(sizeof *refs * (n ? n : 1));
    uint32_t *first = tn_malloc(sizeof *first * (n + 1)), *stack = tn_malloc(sizeof *stack * (n ? n : 1));
    int rc = refs && first && stack ? 0 : TN_ENOMEM;
    uint32_t nr = 0, sp = 0;
    for (uint32_t i = 1; i < n && !rc; i++) refs[nr++] = (child_ref){t->cells[i].parent, t->cells[i].code, (int32_t)i};
    if (!rc) {
        qsort(refs, nr, sizeof *refs, cmp_child_ref);
        /* first[c]: where c's children start in refs */
        for (uint32_t c = 0, k = 0; c <= n; c++) {
            while (k < nr && (uint32_t)refs[k].parent < c) k++;
            first[c] = k;
        }
        if (n) stack[sp++] = 0;
    }
    while (sp && !rc) {
        uint32_t ci = stack[--sp];
        cell *c = &t->cells[ci];
        if (c->taken) {
            rc = ot_plan_add_cube(p, c->id, c->maxw, &c->cube);
            if (!rc) {
                p->cubes[c->cube].nrows = c->taken;
                p->cubes[c->cube].min_weight = c->min_weight;
            }
        }
        uint32_t a = first[ci], b = ci + 1 <= n ? first[ci + 1] : nr;
        for (uint32_t k = b; k > a && !rc; k--) stack[sp++] = (uint32_t)refs[k - 1].cell;   /* first child on top */
    }
    tn_free(refs);
    tn_free(first);
    tn_free(stack);
    return rc;
}

static int build_tree(tree *t) {
    ot_plan *p = t->p;
    int rc = add_cell(t, -1, 0, p->n);
    t->front_lo = 0;
    t->front_hi = t->ncells;
    t->depth = 0;
    while (!rc && t->front_lo < t->front_hi) {
        t->npend = 0;
        cmap_clear(&t->pend_map);
        rc = run_pass(p, false, true, level_rows, t);
        uint32_t lo = t->ncells;
        for (uint32_t k = 0; k < t->npend && !rc; k++)
            if (t->cells[t->pend[k].parent].rest) rc = add_cell(t, t->pend[k].parent, t->pend[k].code, t->pend[k].count);
        t->front_lo = lo;
        t->front_hi = t->ncells;
        t->depth++;
    }
    if (!rc) rc = tree_cubes(t);
    return rc;
}

static void tree_free(tree *t) {
    tn_free(t->cells);
    tn_free(t->cells_map.slot);
    tn_free(t->pend);
    tn_free(t->pend_map.slot);
}

/* ---------------------------------------------------------------------------------------------
 * OPTIMIZE ... WHERE fraction: rows re-placed in the revision's cubes (write.c's reassign).
 */
typedef struct place {
    ot_plan *p;
    const ot_rev_index *ri;            /* NULL: the tree */
    int32_t *known;
    tree *t;
} place;

static int cube_of(place *pl, double *x, int32_t w, int32_t *out) {
    *out = -1;
    if (pl->ri) return ot_reassign_row(pl->p, pl->ri, pl->known, x, w, out);
    const tree *t = pl->t;
    int32_t ci = 0;
    for (;;) {
        const cell *c = &t->cells[ci];
        if (w <= c->maxw) {
            *out = c->cube;
            break;
        }
        ci = cmap_find(&t->cells_map, ci, descend(x, pl->p->d));
        if (ci < 0) break;
    }
    if (ci < 0 || *out < 0)
        return tn_error_set(TN_ECORRUPT, "table '%s': OPTIMIZE: a row's cube changed between two reads of the files",
                            tn_table_path(pl->p->w->t));
    return 0;
}

static int place_rows(void *ctx, const tn_chunk *chunk, const int32_t *weight, double *coord) {
    place *pl = ctx;
    ot_plan *p = pl->p;
    for (uint32_t r = 0; r < chunk->count; r++) {
        int32_t ci;
        int rc = ot_reassign_row(p, pl->ri, pl->known, coord + (size_t)r * p->d, weight[r], &ci);
        if (rc) return rc;
        ot_pcube *c = &p->cubes[ci];
        c->nrows++;
        if (weight[r] < c->min_weight) c->min_weight = weight[r];
        p->n++;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Staging by rollup group, and the files.
 */
typedef struct stage {
    place *pl;
    tn_layout_spill *spill;
    ot_row_key *keys;
    uint32_t *sel;
    uint32_t cap;
    uint64_t rows;
} stage;

static int stage_rows(void *ctx, const tn_chunk *chunk, const int32_t *weight, double *coord) {
    stage *st = ctx;
    ot_plan *p = st->pl->p;
    uint32_t n = chunk->count;
    if (n > st->cap) {
        tn_free(st->keys);
        tn_free(st->sel);
        st->keys = tn_malloc(sizeof *st->keys * n);
        st->sel = tn_malloc(sizeof *st->sel * n);
        st->cap = st->keys && st->sel ? n : 0;
        if (!st->cap) return TN_ENOMEM;
    }
    for (uint32_t r = 0; r < n; r++) {
        int32_t ci;
        int rc = cube_of(st->pl, coord + (size_t)r * p->d, weight[r], &ci);
        if (rc) return rc;
        st->keys[r] = (ot_row_key){(uint64_t)(uint32_t)p->cubes[ci].group, r};
    }
    int rc = ot_sort_row_keys(st->keys, n);
    for (uint32_t r = 0; r < n; r++) st->sel[r] = st->keys[r].row;
    for (uint32_t a = 0; a < n && !rc;) {
        uint32_t b = a;
        while (b < n && st->keys[b].key == st->keys[a].key) b++;
        rc = tn_layout_spill_append(st->spill, (uint32_t)st->keys[a].key, chunk, st->sel + a, b - a);
        a = b;
    }
    st->rows += n;
    return rc;
}

static int collect(void *ctx, const tn_chunk *chunk) {
    tn_chunk *g = ctx;
    int rc = 0;
    for (uint32_t c = 0; c < g->ncols && !rc; c++) rc = ot_vec_append(&g->cols[c], &chunk->cols[c], chunk->count);
    if (!rc) g->count += chunk->count;
    return rc;
}

static int write_groups(ot_plan *p, tn_layout_spill *spill, uint32_t ngroups) {
    ot_writer *w = p->w;
    uint32_t nc = tn_table_num_columns(w->t);
    tn_type *types = tn_malloc(sizeof *types * (nc ? nc : 1));
    int32_t *cmin = tn_malloc(sizeof *cmin * (p->ncubes ? p->ncubes : 1));
    uint32_t *corder = NULL;
    int rc = types && cmin ? ot_cubes_by_group(p, &corder) : TN_ENOMEM;
    for (uint32_t i = 0; i < nc && !rc; i++) types[i] = tn_table_column(w->t, i)->type;
    for (uint32_t c = 0; c < p->ncubes && !rc; c++) cmin[c] = p->cubes[c].min_weight;
    tn_table_file_writer *fw = NULL;
    if (!rc) rc = ot_file_writer_open(p, &fw);
    int32_t *weight = NULL;
    uint32_t *order = NULL;
    ot_row_key *keys = NULL;
    uint32_t ci = 0;
    for (uint32_t g = 0; g < ngroups && !rc; g++) {
        uint32_t c0 = ci;
        uint64_t expect = 0;
        while (ci < p->ncubes && p->cubes[corder[ci]].group == (int32_t)g) expect += p->cubes[corder[ci++]].nrows;
        tn_chunk rows;
        if ((rc = tn_chunk_init(&rows, nc, types, TN_VECTOR_SIZE))) break;
        rc = tn_layout_spill_replay(spill, g, collect, &rows);
        uint32_t n = rows.count;
        if (!rc && n != expect)
            rc = tn_error_set(TN_ECORRUPT, "table '%s': OPTIMIZE: %u rows staged for a file of %llu", tn_table_path(w->t),
                              n, (unsigned long long)expect);
        if (!rc) {
            weight = tn_malloc(sizeof *weight * (n ? n : 1));
            order = tn_malloc(sizeof *order * (n ? n : 1));
            keys = tn_malloc(sizeof *keys * (n ? n : 1));
            if (!weight || !order || !keys) rc = TN_ENOMEM;
        }
        if (!rc) {
            const tn_vector *iv[64];
            for (uint32_t i = 0; i < p->d; i++) iv[i] = &rows.cols[p->cols[i]];
            ot_weight_chunk(iv, p->d, n, weight);
            for (uint32_t r = 0; r < n; r++) keys[r] = (ot_row_key){(uint32_t)weight[r] ^ 0x80000000u, r};
            rc = ot_sort_row_keys(keys, n);
            for (uint32_t r = 0; r < n && !rc; r++) order[r] = keys[r].row;
        }
        if (!rc) rc = tn_interrupt_check(w->opts.interrupt);
        if (!rc) rc = ot_write_file(p, fw, &rows, order, n, weight, corder + c0, ci - c0, cmin);
        tn_chunk_free(&rows);
        tn_free(weight);
        tn_free(order);
        tn_free(keys);
        weight = NULL;
        order = NULL;
        keys = NULL;
    }
    if (fw) {
        if (rc) tn_table_file_writer_abort(fw);
        else rc = tn_table_file_writer_close(fw);
    }
    tn_free(types);
    tn_free(cmin);
    tn_free(corder);
    return rc;
}

int ot_stream_write(ot_writer *w) {
    ot_plan p;
    const ot_rev_index *ri;
    tree t;
    memset(&t, 0, sizeof t);
    t.p = &p;
    place pl = {&p, NULL, NULL, &t};
    stage st;
    memset(&st, 0, sizeof st);
    st.pl = &pl;
    int rc = ot_plan_init(&p, w, &ri);
    if (!rc && ri) {
        pl.ri = ri;
        pl.known = tn_malloc(sizeof *pl.known * (ri->ncubes ? ri->ncubes : 1));
        if (!pl.known) rc = TN_ENOMEM;
        for (uint32_t i = 0; i < ri->ncubes && !rc; i++) pl.known[i] = -1;
        if (!rc) rc = run_pass(&p, false, true, place_rows, &pl);
    } else if (!rc) {
        rc = run_pass(&p, false, false, count_rows, &p);
        if (!rc) rc = ot_choose_revision(&p);
        if (!rc && p.n) rc = build_tree(&t);
    }
    uint32_t ngroups = 0;
    if (!rc && p.n) rc = ot_rollup(&p, w->rollup >= 0 ? w->rollup : p.cube_size, &ngroups);
    if (!rc && p.n) {
        uint64_t limit = w->opts.memory_limit ? w->opts.memory_limit : 0;
        rc = tn_layout_spill_open(&st.spill, w->t, limit ? limit / 16 : STAGE_BUDGET_DEFAULT);
    }
    if (!rc && p.n) rc = run_pass(&p, true, true, stage_rows, &st);
    if (!rc && p.n && st.rows != p.n)
        rc = tn_error_set(TN_ECORRUPT, "table '%s': OPTIMIZE read %llu rows, then %llu", tn_table_path(w->t),
                          (unsigned long long)p.n, (unsigned long long)st.rows);
    tn_free(st.keys);
    tn_free(st.sel);
    st.keys = NULL;
    st.sel = NULL;
    if (!rc && p.n) rc = write_groups(&p, st.spill, ngroups);
    if (!rc && p.n) rc = ot_plan_finish(&p);
    tn_layout_spill_close(st.spill);
    tn_free(pl.known);
    tree_free(&t);
    ot_plan_free(&p);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * OPTIMIZE.
 */
static int feed(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    return ot_writer_write(ctx, chunk);
}

/* OPTIMIZE ... WHERE: qbeast's selection. A revision > 0: its files with a block of minWeight
 * fraction <= f (rows re-placed in its current cubes); revision 0: unindexed files in log order
 * until f of their bytes (indexed into the latest revision as an append would be). */
static int select_files(ot_writer *w, const tn_layout_write_options *opts, uint32_t **out, uint32_t *nout) {
    const ot_index *ix = w->ix;
    const tn_delta_snapshot *snap = tn_table_snapshot(w->t);
    int64_t rev = opts->otree_revision >= 0 ? opts->otree_revision : ix->last_revision;
    double f = opts->otree_fraction;
    *out = NULL;
    *nout = 0;
    if (!(f > 0 && f <= 1))
        return tn_error_set(TN_EINVAL, "table '%s': OPTIMIZE ... WHERE fraction <= %g: the fraction must be in (0, 1]",
                            tn_table_path(w->t), f);
    if (rev > 0 && !ot_index_rev_index(ix, rev))
        return tn_error_set(TN_EINVAL, "table '%s': OPTIMIZE ... WHERE revision = %lld: the table has no such revision "
                            "(the latest is %lld)", tn_table_path(w->t), (long long)rev, (long long)ix->last_revision);
    w->select = tn_calloc(ix->nfiles ? ix->nfiles : 1, 1);
    uint32_t *only = tn_malloc(sizeof *only * (ix->nfiles ? ix->nfiles : 1));
    if (!w->select || !only) {
        tn_free(only);
        return TN_ENOMEM;
    }
    uint64_t staged = 0, covered = 0;
    for (uint32_t fi = 0; fi < ix->nfiles; fi++)
        if (ix->files[fi].revision == 0 && snap->files[fi].size > 0) staged += (uint64_t)snap->files[fi].size;
    for (uint32_t fi = 0; fi < ix->nfiles; fi++) {
        const ot_file *of = &ix->files[fi];
        if (of->revision != rev) continue;
        bool take = false;
        if (rev == 0) {
            take = (double)covered < f * (double)staged;
            if (take && snap->files[fi].size > 0) covered += (uint64_t)snap->files[fi].size;
        }
        for (uint32_t b = 0; b < of->nblocks && !take && rev > 0; b++) {
            double mf = ot_fraction_of_weight(of->blocks[b].min_weight);
            take = opts->otree_fraction_strict ? mf < f : mf <= f;
        }
        if (take) {
            w->select[fi] = 1;
            only[(*nout)++] = fi;
        }
    }
    w->reassign = rev;
    *out = only;
    return 0;
}

int tn_layout_otree_optimize(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result) {
    tn_table_scan *scan = NULL;
    if (result) {
        memset(result, 0, sizeof *result);
        result->version = -1;
    }
    if (opts->file_filter)             /* partition predicates: an OTree table has no partitions */
        return tn_error_set(TN_EUNSUPPORTED, "OPTIMIZE ... WHERE on table '%s' (otree layout): only 'revision = n' "
                            "and 'fraction <= f' select what to rewrite", tn_table_path(t));
    ot_writer *w = NULL;
    int rc = ot_open_writer(&w, t, opts);
    if (rc) return rc;
    w->optimize = true;
    uint32_t *only = NULL, nonly = 0;
    if (tn_table_snapshot(t)->nfiles == 0) {
        ot_writer_free(w);
        return 0;                      /* nothing to rewrite */
    }
    if (opts->otree_select) {
        rc = select_files(w, opts, &only, &nonly);
        if (rc || nonly == 0) {
            tn_free(only);
            ot_writer_free(w);
            return rc;                 /* nothing matches: nothing committed */
        }
    }
    bool flat = true;
    for (uint32_t i = 0; i < tn_table_num_columns(t); i++) flat = flat && !tn_type_is_nested(tn_table_column(t, i)->type);
    if (flat) {                        /* streaming: the rows are read again where needed */
        w->stream = true;
        w->stream_files = only;
        w->nstream_files = nonly;
        return ot_commit_writer(w, result);
    }
    tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
    so.all_columns = true;
    rc = only ? tn_table_scan_open_files(&scan, t, &so, only, nonly) : tn_table_scan_open(&scan, t, &so);
    tn_free(only);
    if (!rc) rc = tn_table_scan_run(scan, feed, w);
    tn_table_scan_close(scan);
    if (rc) {
        ot_writer_free(w);
        return rc;
    }
    return ot_commit_writer(w, result);
}

