/*
 * sql/stmt_merge.c: MERGE INTO target USING source ON cond WHEN ... (Delta's grammar), one
 * commit through layout/rewrite.c. The source is run once and held in memory; the equality
 * conjuncts of ON between a target-only and a source-only expression become a hash table over
 * the source (no such conjunct: every pair is tried); the whole ON condition is then evaluated
 * on the candidate pairs. Each target row chunk gets its decisions (first WHEN MATCHED / NOT
 * MATCHED BY SOURCE clause whose condition holds), and after the scan the source rows no target
 * row matched go through the WHEN NOT MATCHED clauses. Delta's rule: a target row matched by
 * two source rows is an error, unless the only MATCHED clause is an unconditional DELETE.
 */
#include "sql/stmt.h"

#include <string.h>

typedef struct mclause {
    tn_sql_merge_when when;
    tn_sql_merge_action action;
    tn_expr *cond;                     /* over the combined row; NULL = always */
    tn_expr_state *cond_state;
    tn_expr **value;                   /* per target column: UPDATE/INSERT value, NULL = unchanged / NULL */
    tn_expr_state **value_state;
    tn_sql_pos pos;
} mclause;

typedef struct merge_ctx {
    tn_binder *b;
    const char *label;
    uint32_t n, m;                     /* target and source columns; combined rows are n + m wide */
    tn_chunk src;                      /* the whole source */
    uint32_t nsrc;
    uint8_t *src_matched;
    /* hash of the source by the equality keys */
    uint32_t nkeys;
    tn_expr **tkey, **skey;            /* target keys over the target chunk; source keys over src */
    tn_expr_state **tkey_state, **skey_state;
    tn_vector *tkeyv, *skeyv;
    uint64_t *shash, *thash;
    uint32_t *head, *next, mask;
    tn_expr *on;
    tn_expr_state *on_state;
    mclause *clauses;
    uint32_t nclauses;
    bool has_by_source, has_matched, multi_match_ok;
    tn_stmt_checks *checks;
    tn_stmt_rows rows;
    tn_chunk comb, part;               /* combined pairs; a subset of them */
    tn_chunk ins;                      /* rows to insert */
    uint32_t *pi, *pj, *sel, *msel, *match_j, *match_n;
    const tn_vector **outcols;
    tn_vector *values;                 /* evaluated values, per target column */
    tn_sql_pos pos;
} merge_ctx;

/* ---------------------------------------------------------------------------------------------
 * Expressions: which side a sub-expression reads, and moving source-side keys onto the source.
 */
static void sides(const tn_expr *e, uint32_t n, bool *target, bool *source) {
    if (e->kind == TN_EXPR_COLUMN) {
        if (e->u.column < n) *target = true;
        else *source = true;
    }
    for (uint32_t i = 0; i < e->nargs; i++) sides(e->args[i], n, target, source);
}

static void shift_columns(tn_expr *e, uint32_t n) {
    if (e->kind == TN_EXPR_COLUMN) e->u.column -= n;
    for (uint32_t i = 0; i < e->nargs; i++) shift_columns(e->args[i], n);
}

static int add_key(merge_ctx *x, const tn_expr *t, const tn_expr *s) {
    tn_expr *tc = tn_expr_copy(t), *sc = tn_expr_copy(s);
    if (!tc || !sc) {
        tn_expr_free(tc);
        tn_expr_free(sc);
        return TN_ENOMEM;
    }
    shift_columns(sc, x->n);
    x->tkey[x->nkeys] = tc;
    x->skey[x->nkeys] = sc;
    x->nkeys++;
    return 0;
}

/* Equality conjuncts of ON between one side and the other become hash keys. */
static int find_keys(merge_ctx *x, const tn_expr *e) {
    if (e->kind == TN_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++) {
            int rc = find_keys(x, e->args[i]);
            if (rc) return rc;
        }
        return 0;
    }
    if (e->kind != TN_EXPR_FUNCTION || e->nargs != 2 || strcmp(e->u.func.call.def->name, "=") != 0) return 0;
    if (!tn_type_equal(e->args[0]->type, e->args[1]->type) || x->nkeys >= 16) return 0;
    bool lt = false, ls = false, rt = false, rs = false;
    sides(e->args[0], x->n, &lt, &ls);
    sides(e->args[1], x->n, &rt, &rs);
    if (lt && !ls && rs && !rt) return add_key(x, e->args[0], e->args[1]);
    if (rt && !rs && ls && !lt) return add_key(x, e->args[1], e->args[0]);
    return 0;
}

static int eval_keys(tn_expr **keys, tn_expr_state **st, uint32_t nkeys, const tn_chunk *in, tn_vector *out,
                     uint64_t *hash) {
    int rc = 0;
    for (uint32_t k = 0; k < nkeys && !rc; k++) {
        tn_vector_reset(&out[k]);
        rc = tn_expr_eval(keys[k], in, &out[k], st[k]);
        if (!rc) tn_vector_hash(&out[k], in->count, hash, k == 0);
    }
    return rc;
}

static bool keys_null(const tn_vector *v, uint32_t nkeys, uint32_t row) {
    for (uint32_t k = 0; k < nkeys; k++)
        if (!tn_vector_is_valid(&v[k], row)) return true;
    return false;
}

/* Builds the hash table over the source rows (keys with a NULL never match). */
static int build_hash(merge_ctx *x) {
    uint32_t nb = 16;
    while (nb < 2 * x->nsrc && nb < (1u << 30)) nb *= 2;
    x->mask = nb - 1;
    x->head = tn_malloc(sizeof *x->head * nb);
    x->next = tn_malloc(sizeof *x->next * (x->nsrc + 1));
    x->shash = tn_malloc(sizeof *x->shash * (x->nsrc + 1));
    if (!x->head || !x->next || !x->shash) return TN_ENOMEM;
    memset(x->head, 0xff, sizeof *x->head * nb);
    int rc = eval_keys(x->skey, x->skey_state, x->nkeys, &x->src, x->skeyv, x->shash);
    for (uint32_t j = x->nsrc; j-- > 0 && !rc;) {
        if (keys_null(x->skeyv, x->nkeys, j)) continue;
        uint32_t b = (uint32_t)x->shash[j] & x->mask;
        x->next[j] = x->head[b];
        x->head[b] = j;
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Combined rows: target columns of rows ti[], source columns of rows sj[] (NULL: all NULL).
 */
static int combine(merge_ctx *x, tn_chunk *out, const tn_chunk *target, const uint32_t *ti, const uint32_t *sj,
                   uint32_t cnt) {
    int rc = 0;
    for (uint32_t k = 0; k < x->n && !rc; k++) {
        if (target) {
            rc = tn_vector_gather(&out->cols[k], &target->cols[k], ti, cnt);
        } else {
            tn_vector_reset(&out->cols[k]);
            out->cols[k].count = cnt;
            rc = tn_vector_fill_null(&out->cols[k], 0, cnt);
        }
    }
    for (uint32_t k = 0; k < x->m && !rc; k++) {
        tn_vector *v = &out->cols[x->n + k];
        if (sj) {
            rc = tn_vector_gather(v, &x->src.cols[k], sj, cnt);
        } else {
            tn_vector_reset(v);
            v->count = cnt;
            rc = tn_vector_fill_null(v, 0, cnt);
        }
    }
    out->count = cnt;
    return rc;
}

/* x->part = rows[0..n) of x->comb (views; strings borrowed). */
static int gather_part(merge_ctx *x, const uint32_t *rows, uint32_t n) {
    int rc = 0;
    for (uint32_t k = 0; k < x->n + x->m && !rc; k++) rc = tn_vector_gather(&x->part.cols[k], &x->comb.cols[k], rows, n);
    x->part.count = n;
    return rc;
}

/* Of the undecided rows sel[0..*nsel) of x->comb, those for which c's condition holds move to
 * msel[0..*nm). */
static int clause_rows(merge_ctx *x, const mclause *c, uint32_t *sel, uint32_t *nsel, uint32_t *msel, uint32_t *nm) {
    *nm = 0;
    if (*nsel == 0) return 0;
    if (!c->cond) {
        memcpy(msel, sel, sizeof *sel * *nsel);
        *nm = *nsel;
        *nsel = 0;
        return 0;
    }
    uint32_t nhit = 0;
    int rc = gather_part(x, sel, *nsel);
    if (!rc) rc = tn_expr_filter(c->cond, &x->part, x->pi, &nhit, c->cond_state);
    if (rc) return rc;
    uint32_t keep = 0, h = 0;
    for (uint32_t i = 0; i < *nsel; i++) {
        if (h < nhit && x->pi[h] == i) {
            msel[(*nm)++] = sel[i];
            h++;
        } else {
            sel[keep++] = sel[i];
        }
    }
    *nsel = keep;
    return 0;
}

/* The values of clause c for rows msel[0..nm) of x->comb: x->outcols[k] per target column
 * (UPDATE: unchanged columns keep the target's value; INSERT: unlisted columns are NULL). */
static int clause_values(merge_ctx *x, const mclause *c, const uint32_t *msel, uint32_t nm) {
    int rc = gather_part(x, msel, nm);
    for (uint32_t k = 0; k < x->n && !rc; k++) {
        tn_vector *v = &x->values[k];
        if (c->value[k]) {
            tn_vector_reset(v);
            rc = tn_expr_eval(c->value[k], &x->part, v, c->value_state[k]);
            x->outcols[k] = v;
        } else if (c->action == TN_SQL_MERGE_UPDATE) {
            x->outcols[k] = &x->part.cols[k];
        } else {
            tn_vector_reset(v);
            v->count = nm;
            rc = tn_vector_fill_null(v, 0, nm);
            x->outcols[k] = v;
        }
    }
    return rc;
}

/* Applies the clauses of kind `when` to the combined rows 0..cnt of x->comb, whose target rows
 * are target_row[]. UPDATE rows go to x->rows (when produce). */
static int decide(merge_ctx *x, tn_sql_merge_when when, uint32_t cnt, const uint32_t *target_row, uint8_t *action,
                  bool produce) {
    int rc = 0;
    uint32_t nsel = cnt, nm = 0;
    for (uint32_t i = 0; i < cnt; i++) x->sel[i] = i;
    for (uint32_t ci = 0; ci < x->nclauses && nsel && !rc; ci++) {
        const mclause *c = &x->clauses[ci];
        if (c->when != when) continue;
        rc = clause_rows(x, c, x->sel, &nsel, x->msel, &nm);
        if (rc || nm == 0) continue;
        uint8_t a = c->action == TN_SQL_MERGE_DELETE ? TN_LAYOUT_ROW_DELETE : TN_LAYOUT_ROW_UPDATE;
        for (uint32_t i = 0; i < nm; i++) action[target_row[x->msel[i]]] = a;
        if (a == TN_LAYOUT_ROW_UPDATE && produce) {
            rc = clause_values(x, c, x->msel, nm);
            if (!rc) rc = tn_stmt_rows_add(&x->rows, x->outcols, NULL, nm);
        }
    }
    return rc;
}

/* Pairs pi/pj[0..np) tried against ON: the matches counted per target row. */
static int flush_pairs(merge_ctx *x, const tn_chunk *chunk, uint32_t np) {
    if (np == 0) return 0;
    uint32_t nhit = 0;
    int rc = combine(x, &x->comb, chunk, x->pi, x->pj, np);
    if (!rc) rc = tn_expr_filter(x->on, &x->comb, x->sel, &nhit, x->on_state);
    for (uint32_t h = 0; h < nhit && !rc; h++) {
        uint32_t i = x->pi[x->sel[h]], j = x->pj[x->sel[h]];
        if (x->match_n[i]++ == 0) x->match_j[i] = j;
        x->src_matched[j] = 1;
    }
    return rc;
}

static int match_chunk(merge_ctx *x, const tn_chunk *chunk) {
    int rc = 0;
    uint32_t np = 0;
    memset(x->match_n, 0, sizeof *x->match_n * chunk->count);
    if (x->nkeys) rc = eval_keys(x->tkey, x->tkey_state, x->nkeys, chunk, x->tkeyv, x->thash);
    for (uint32_t i = 0; i < chunk->count && !rc; i++) {
        if (x->nkeys) {
            if (keys_null(x->tkeyv, x->nkeys, i)) continue;
            for (uint32_t j = x->head[(uint32_t)x->thash[i] & x->mask]; j != UINT32_MAX && !rc; j = x->next[j]) {
                if (x->shash[j] != x->thash[i]) continue;
                x->pi[np] = i;
                x->pj[np++] = j;
                if (np == TN_VECTOR_SIZE) rc = flush_pairs(x, chunk, np), np = 0;
            }
        } else {
            for (uint32_t j = 0; j < x->nsrc && !rc; j++) {
                x->pi[np] = i;
                x->pj[np++] = j;
                if (np == TN_VECTOR_SIZE) rc = flush_pairs(x, chunk, np), np = 0;
            }
        }
    }
    if (!rc) rc = flush_pairs(x, chunk, np);
    return rc;
}

static int merge_rows(void *ctx, tn_layout_rewrite_pass pass, const tn_chunk *chunk, tn_layout_rewrite_rows *rows) {
    merge_ctx *x = ctx;
    bool produce = pass != TN_LAYOUT_REWRITE_MATCH;
    int rc = match_chunk(x, chunk);
    if (rc) return rc;
    if (produce) tn_stmt_rows_reset(&x->rows);
    uint32_t nmatched = 0, nunmatched = 0;
    uint32_t *trow = x->pj;   /* target row of each combined row (pairs are flushed) */
    if (x->has_matched) {
        for (uint32_t i = 0; i < chunk->count; i++) {
            if (!x->match_n[i]) continue;
            if (x->match_n[i] > 1 && !x->multi_match_ok)
                return tn_error_set(TN_ECONSTRAINT, "Cannot perform Merge as multiple source rows matched and "
                                    "attempted to modify the same target row in the Delta table in possibly "
                                    "conflicting ways");
            trow[nmatched] = i;
            x->pi[nmatched++] = x->match_j[i];
        }
        rc = combine(x, &x->comb, chunk, trow, x->pi, nmatched);
        if (!rc) rc = decide(x, TN_SQL_MERGE_MATCHED, nmatched, trow, rows->action, produce);
    }
    if (!rc && x->has_by_source) {
        for (uint32_t i = 0; i < chunk->count; i++)
            if (!x->match_n[i]) trow[nunmatched++] = i;
        rc = combine(x, &x->comb, chunk, trow, NULL, nunmatched);
        if (!rc) rc = decide(x, TN_SQL_MERGE_NOT_MATCHED_BY_SOURCE, nunmatched, trow, rows->action, produce);
    }
    if (rc || !produce) return rc;
    if (x->checks && x->rows.fresh.count && (rc = tn_stmt_checks_run(x->checks, &x->rows.fresh))) return rc;
    return tn_stmt_rows_finish(&x->rows, pass, chunk, rows);
}

/* After the scan: source rows that matched no target row, through WHEN NOT MATCHED. */
static int merge_insert(void *ctx, tn_layout_rewrite *rw) {
    merge_ctx *x = ctx;
    int rc = 0;
    bool any = false;
    for (uint32_t ci = 0; ci < x->nclauses; ci++) any |= x->clauses[ci].when == TN_SQL_MERGE_NOT_MATCHED;
    if (!any) return 0;
    for (uint32_t j0 = 0; j0 < x->nsrc && !rc; j0 += TN_VECTOR_SIZE) {
        uint32_t cnt = 0, end = j0 + TN_VECTOR_SIZE < x->nsrc ? j0 + TN_VECTOR_SIZE : x->nsrc;
        for (uint32_t j = j0; j < end; j++)
            if (!x->src_matched[j]) x->pj[cnt++] = j;
        if (!cnt) continue;
        rc = combine(x, &x->comb, NULL, NULL, x->pj, cnt);
        uint32_t nsel = cnt, nm = 0;
        for (uint32_t i = 0; i < cnt; i++) x->sel[i] = i;
        for (uint32_t ci = 0; ci < x->nclauses && nsel && !rc; ci++) {
            const mclause *c = &x->clauses[ci];
            if (c->when != TN_SQL_MERGE_NOT_MATCHED) continue;
            rc = clause_rows(x, c, x->sel, &nsel, x->msel, &nm);
            if (rc || nm == 0) continue;
            rc = clause_values(x, c, x->msel, nm);
            tn_chunk_reset(&x->ins);
            for (uint32_t k = 0; k < x->n && !rc; k++) {
                x->ins.cols[k].count = 0;
                rc = tn_vector_append_rows(&x->ins.cols[k], x->outcols[k], NULL, nm);
            }
            x->ins.count = nm;
            if (!rc && x->checks) rc = tn_stmt_checks_run(x->checks, &x->ins);
            if (!rc) rc = tn_layout_rewrite_insert(rw, &x->ins);
        }
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Binding.
 */
/* The source column named `name` (case-insensitive) and its type, or -1. */
static int source_column(const bind_scope *src, const char *name, tn_type *type) {
    for (uint32_t r = 0; r < src->nrels; r++) {
        const bind_rel *rel = &src->rels[r];
        for (uint32_t i = 0; i < rel->ncols; i++)
            if (!(rel->hidden && rel->hidden[i]) && tn_str_iequal(rel->names[i], name)) {
                *type = rel->types[i];
                return (int)(rel->offset + i);
            }
    }
    return -1;
}

static int bind_clause(merge_ctx *x, tn_table *t, bind_scope *scope, const bind_scope *src, const tn_sql_merge_clause *c,
                       mclause *out) {
    tn_binder *b = x->b;
    int rc = 0;
    out->when = c->when;
    out->action = c->action;
    out->pos = c->pos;
    out->value = tn_calloc(x->n + 1, sizeof *out->value);
    out->value_state = tn_calloc(x->n + 1, sizeof *out->value_state);
    if (!out->value || !out->value_state) return TN_ENOMEM;
    if (c->cond) {
        bind_ctx bc;
        memset(&bc, 0, sizeof bc);
        bc.b = b;
        bc.scope = scope;
        bc.clause = "MERGE";
        rc = tn_bind_pred(&bc, c->cond, &out->cond);
        if (!rc) rc = tn_expr_state_create(out->cond, &out->cond_state);
        if (rc) return rc;
    }
    if (c->action == TN_SQL_MERGE_DELETE) return 0;
    if (c->star) {
        /* UPDATE SET * / INSERT *: every target column from the source column of its name */
        for (uint32_t k = 0; k < x->n && !rc; k++) {
            const tn_delta_column *col = tn_table_column(t, k);
            tn_type st;
            int sc = source_column(src, col->name, &st);
            if (sc < 0)
                return tn_bind_error(b, c->pos, "MERGE INTO %s: %s * needs a source column named '%s'", x->label,
                                     c->action == TN_SQL_MERGE_INSERT ? "INSERT" : "UPDATE SET", col->name);
            tn_expr *e = NULL;
            rc = tn_expr_column(&e, x->n + (uint32_t)sc, st);
            if (!rc && !tn_type_equal(e->type, col->type)) {
                tn_expr *cast = NULL;
                rc = tn_expr_cast(&cast, e, col->type, false);
                e = cast;
            }
            out->value[k] = e;
        }
    } else {
        uint32_t ncols = c->n_columns ? (uint32_t)c->n_columns : x->n;
        if (c->action == TN_SQL_MERGE_INSERT && (uint32_t)c->n_values != ncols)
            return tn_bind_error(b, c->pos, "MERGE INTO %s: INSERT has %d values for %u columns", x->label, c->n_values, ncols);
        for (uint32_t i = 0; i < ncols && !rc; i++) {
            int k = c->n_columns ? tn_table_column_index(t, c->columns[i].name) : (int)i;
            if (k < 0)
                return tn_bind_error(b, c->columns[i].pos, "MERGE INTO %s: table has no column named '%s'", x->label,
                                     c->columns[i].name);
            if (out->value[k])
                return tn_bind_error(b, c->pos, "MERGE INTO %s: column '%s' is assigned more than once", x->label,
                                     tn_table_column(t, (uint32_t)k)->name);
            rc = tn_stmt_bind_set_value(b, scope, t, (uint32_t)k, c->values[i], &out->value[k]);
        }
    }
    for (uint32_t k = 0; k < x->n && !rc; k++)
        if (out->value[k]) rc = tn_expr_state_create(out->value[k], &out->value_state[k]);
    return rc;
}

static void merge_free(merge_ctx *x) {
    for (uint32_t k = 0; k < x->nkeys; k++) {
        tn_expr_free(x->tkey[k]);
        tn_expr_free(x->skey[k]);
        tn_expr_state_free(x->tkey_state ? x->tkey_state[k] : NULL);
        tn_expr_state_free(x->skey_state ? x->skey_state[k] : NULL);
        if (x->tkeyv) tn_vector_free(&x->tkeyv[k]);
        if (x->skeyv) tn_vector_free(&x->skeyv[k]);
    }
    for (uint32_t ci = 0; x->clauses && ci < x->nclauses; ci++) {
        mclause *c = &x->clauses[ci];
        tn_expr_free(c->cond);
        tn_expr_state_free(c->cond_state);
        for (uint32_t k = 0; k < x->n; k++) {
            if (c->value) tn_expr_free(c->value[k]);
            if (c->value_state) tn_expr_state_free(c->value_state[k]);
        }
        tn_free(c->value);
        tn_free(c->value_state);
    }
    for (uint32_t k = 0; x->values && k < x->n; k++) tn_vector_free(&x->values[k]);
    tn_expr_free(x->on);
    tn_expr_state_free(x->on_state);
    if (x->src.cols) tn_chunk_free(&x->src);
    if (x->comb.cols) tn_chunk_free(&x->comb);
    if (x->part.cols) tn_chunk_free(&x->part);
    if (x->ins.cols) tn_chunk_free(&x->ins);
    tn_stmt_rows_free(&x->rows);
    tn_stmt_checks_free(x->checks);
    void *bufs[] = {x->src_matched, x->tkey, x->skey, x->tkey_state, x->skey_state, x->tkeyv, x->skeyv, x->shash,
                    x->thash, x->head, x->next, x->clauses, x->pi, x->pj, x->sel, x->msel, x->match_j, x->match_n,
                    x->outcols, x->values};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) tn_free(bufs[i]);
}

/* Runs the source once into x->src (one chunk of every row). */
static int load_source(merge_ctx *x, tn_plan *plan) {
    tn_collection rows;
    memset(&rows, 0, sizeof rows);
    int rc = tn_optimize(&plan, x->b->arena);
    if (!rc) rc = tn_exec_run(x->b->ex, plan, &rows);
    tn_plan_free(plan);
    if (rc) goto cleanup;
    if (rows.nrows >= (int64_t)UINT32_MAX / 2) {
        rc = tn_error_set(TN_EUNSUPPORTED, "MERGE INTO %s: the source has %lld rows (at most 2^31 are supported)", x->label,
                          (long long)rows.nrows);
        goto cleanup;
    }
    x->nsrc = (uint32_t)rows.nrows;
    rc = tn_chunk_init(&x->src, x->m, rows.types, x->nsrc ? x->nsrc : 1);
    for (uint32_t c = 0; c < rows.nchunks && !rc; c++)
        for (uint32_t k = 0; k < x->m && !rc; k++)
            rc = tn_vector_append_rows(&x->src.cols[k], &rows.chunks[c].cols[k], NULL, rows.chunks[c].count);
    x->src.count = x->nsrc;
cleanup:
    tn_collection_free(&rows);
    return rc;
}

static int alloc_buffers(merge_ctx *x, const tn_type *ttypes, const tn_type *ctypes) {
    int rc = 0;
    size_t V = TN_VECTOR_SIZE;
    x->pi = tn_malloc(sizeof *x->pi * V);
    x->pj = tn_malloc(sizeof *x->pj * V);
    x->sel = tn_malloc(sizeof *x->sel * V);
    x->msel = tn_malloc(sizeof *x->msel * V);
    x->match_j = tn_malloc(sizeof *x->match_j * V);
    x->match_n = tn_malloc(sizeof *x->match_n * V);
    x->thash = tn_malloc(sizeof *x->thash * V);
    x->src_matched = tn_calloc(x->nsrc + 1, 1);
    x->outcols = tn_calloc(x->n + 1, sizeof *x->outcols);
    x->values = tn_calloc(x->n + 1, sizeof *x->values);
    if (!x->pi || !x->pj || !x->sel || !x->msel || !x->match_j || !x->match_n || !x->thash || !x->src_matched ||
        !x->outcols || !x->values)
        return TN_ENOMEM;
    for (uint32_t k = 0; k < x->n && !rc; k++) rc = tn_vector_init(&x->values[k], ttypes[k], TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&x->comb, x->n + x->m, ctypes, TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&x->part, x->n + x->m, ctypes, TN_VECTOR_SIZE);
    if (!rc) rc = tn_chunk_init(&x->ins, x->n, ttypes, TN_VECTOR_SIZE);
    return rc;
}

static int bind_keys(merge_ctx *x) {
    x->tkey = tn_calloc(16, sizeof *x->tkey);
    x->skey = tn_calloc(16, sizeof *x->skey);
    if (!x->tkey || !x->skey) return TN_ENOMEM;
    int rc = find_keys(x, x->on);
    if (rc || x->nkeys == 0) return rc;
    x->tkey_state = tn_calloc(x->nkeys, sizeof *x->tkey_state);
    x->skey_state = tn_calloc(x->nkeys, sizeof *x->skey_state);
    x->tkeyv = tn_calloc(x->nkeys, sizeof *x->tkeyv);
    x->skeyv = tn_calloc(x->nkeys, sizeof *x->skeyv);
    if (!x->tkey_state || !x->skey_state || !x->tkeyv || !x->skeyv) return TN_ENOMEM;
    for (uint32_t k = 0; k < x->nkeys && !rc; k++) {
        rc = tn_expr_state_create(x->tkey[k], &x->tkey_state[k]);
        if (!rc) rc = tn_expr_state_create(x->skey[k], &x->skey_state[k]);
        if (!rc) rc = tn_vector_init(&x->tkeyv[k], x->tkey[k]->type, TN_VECTOR_SIZE);
        if (!rc) rc = tn_vector_init(&x->skeyv[k], x->skey[k]->type, x->nsrc ? x->nsrc : 1);
    }
    return rc ? rc : build_hash(x);
}

/* The column an expression reads through casts only, or -1. */
static int64_t plain_column(const tn_expr *e) {
    while (e->kind == TN_EXPR_CAST && e->nargs == 1) e = e->args[0];
    return e->kind == TN_EXPR_COLUMN ? (int64_t)e->u.column : -1;
}

/* The layout's MERGE check (a primary-key table: Paimon's rules). A column counts as assigned
 * unless its UPDATE value is the column itself or the source column ON equates it with (SET k =
 * s.k under ON t.k = s.k, as Paimon allows). */
static int check_layout(merge_ctx *x, tn_table *t) {
    uint8_t *assigned = tn_calloc(x->n + 1, 1);
    if (!assigned) return TN_ENOMEM;
    bool deletes = false;
    for (uint32_t ci = 0; ci < x->nclauses; ci++) {
        const mclause *c = &x->clauses[ci];
        deletes |= c->action == TN_SQL_MERGE_DELETE;
        if (c->action != TN_SQL_MERGE_UPDATE) continue;
        for (uint32_t k = 0; k < x->n; k++) {
            if (!c->value[k]) continue;
            int64_t col = plain_column(c->value[k]);
            bool same = col == (int64_t)k;
            for (uint32_t i = 0; i < x->nkeys && !same && col >= (int64_t)x->n; i++)
                same = plain_column(x->tkey[i]) == (int64_t)k && plain_column(x->skey[i]) == col - (int64_t)x->n;
            if (!same) assigned[k] = 1;
        }
    }
    int rc = tn_layout_check_merge(t, assigned, deletes);
    tn_free(assigned);
    return rc;
}

int tn_stmt_merge(tn_binder *b, tn_sql_stmt *stmt, tn_stmt_output *out) {
    __typeof__(stmt->u.merge) *mg = &stmt->u.merge;
    tn_catalog_name cn;
    tn_table *t = NULL;
    tn_plan *splan = NULL;
    merge_ctx x;
    memset(&x, 0, sizeof x);
    x.b = b;
    x.pos = stmt->pos;
    int rc = tn_bind_open_table(b, &mg->table, &cn, &t);
    if (rc) goto cleanup;
    x.label = cn.name;
    x.n = tn_table_num_columns(t);
    bind_scope sscope;
    memset(&sscope, 0, sizeof sscope);
    rc = tn_bind_tableref(b, mg->source, &sscope, NULL, &splan);
    if (rc) goto cleanup;
    x.m = sscope.ncols;
    tn_plan *sp = splan;
    splan = NULL;
    rc = load_source(&x, sp);
    if (rc) goto cleanup;
    /* the combined row: target columns, then source columns */
    const char **names = tn_arena_calloc(b->arena, (x.n + 1) * sizeof *names);
    tn_type *ctypes = tn_arena_calloc(b->arena, (x.n + x.m + 1) * sizeof *ctypes);
    if (!names || !ctypes) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < x.n; i++) {
        names[i] = tn_table_column(t, i)->name;
        ctypes[i] = tn_table_column(t, i)->type;
    }
    for (uint32_t k = 0; k < x.m; k++) ctypes[x.n + k] = x.src.cols[k].type;
    bind_scope scope;
    memset(&scope, 0, sizeof scope);
    rc = tn_scope_add(b, &scope, mg->alias.name ? mg->alias.name : cn.name, x.n, names, ctypes);
    if (!rc) rc = tn_scope_merge(b, &scope, &sscope);
    if (rc) goto cleanup;
    bind_ctx bc;
    memset(&bc, 0, sizeof bc);
    bc.b = b;
    bc.scope = &scope;
    bc.clause = "ON";
    rc = tn_bind_pred(&bc, mg->on, &x.on);
    if (!rc) rc = tn_expr_state_create(x.on, &x.on_state);
    if (rc) goto cleanup;
    x.clauses = tn_calloc((size_t)mg->n_clauses + 1, sizeof *x.clauses);
    if (!x.clauses) { rc = TN_ENOMEM; goto cleanup; }
    uint32_t nmatched = 0;
    bool uncond_delete = false;
    for (int i = 0; i < mg->n_clauses && !rc; i++) {
        const tn_sql_merge_clause *c = &mg->clauses[i];
        x.nclauses++;
        rc = bind_clause(&x, t, &scope, &sscope, c, &x.clauses[i]);
        if (c->when == TN_SQL_MERGE_MATCHED) {
            nmatched++;
            uncond_delete = c->action == TN_SQL_MERGE_DELETE && !c->cond;
            x.has_matched = true;
        }
        if (c->when == TN_SQL_MERGE_NOT_MATCHED_BY_SOURCE) x.has_by_source = true;
        /* only the last clause of a kind may be unconditional (Delta) */
        for (int k = i + 1; !rc && !c->cond && k < mg->n_clauses; k++)
            if (mg->clauses[k].when == c->when)
                rc = tn_bind_error(b, mg->clauses[k].pos, "MERGE INTO %s: this WHEN clause follows an unconditional one "
                                   "of the same kind and can never apply", x.label);
    }
    if (rc) goto cleanup;
    x.multi_match_ok = nmatched == 1 && uncond_delete;
    rc = alloc_buffers(&x, ctypes, ctypes);
    if (!rc) rc = tn_stmt_rows_init(&x.rows, t);
    if (!rc) rc = bind_keys(&x);
    if (!rc && (rc = check_layout(&x, t))) {
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    if (!rc) rc = tn_stmt_checks_compile(b, t, x.label, &x.checks);
    if (rc) goto cleanup;
    char *ontext = tn_bind_expr_text(b, x.on);
    tn_delta_kv params[1] = {{"predicate", tn_stmt_predicate_json(b, ontext)}};
    if (!params[0].value) { rc = TN_ENOMEM; goto cleanup; }
    tn_layout_rewrite_options o = TN_LAYOUT_REWRITE_OPTIONS_INIT;
    o.operation = "MERGE";
    o.operation_parameters = params;
    o.noperation_parameters = 1;
    o.rows = merge_rows;
    o.insert = merge_insert;
    o.ctx = &x;
    o.constraints_checked = true;
    o.interrupt = b->ex->interrupt;
    o.num_source_rows = x.nsrc;
    tn_layout_rewrite_result res;
    rc = tn_layout_rewrite_run(t, &o, &res);
    if (rc) {
        if (rc != TN_ENOMEM && rc != TN_EINTERRUPT && rc != TN_EBIND) tn_error_prefix(rc, "MERGE INTO %s", x.label);
        rc = tn_bind_error_at(b, rc, stmt->pos);
        goto cleanup;
    }
    rc = tn_stmt_output_count(b, out, "count", (int64_t)(res.rows_updated + res.rows_deleted + res.rows_inserted));
cleanup:
    tn_plan_free(splan);
    merge_free(&x);
    tn_table_close(t);
    return rc;
}
