/*
 * layout/otree/write.c: the OTree writer. Buffers the write's rows; at commit computes each
 * row's weight (qbeast's hash) and point (the revision's transformations; a new revision when
 * the data leaves the current one's ranges, or the table has only the staging revision 0),
 * estimates cube maxWeights top-down as qbeast does (normalized weight = parent's + cubeSize /
 * domain, leaf when the domain fits; domains = this write's rows in the cube's subspace + the
 * existing rows' estimate from the blocks' elementCounts), puts each row in the first cube of its
 * path whose maxWeight >= its weight, groups small cubes into files by rollupSize (qbeast's
 * Rollup: deepest first, a group under the limit joins its parent's), and writes each file as
 * its rows in weight order (the blocks are in the 'blocks' tag in cube order; qbeast-spark does not
 * care where a block's rows lie in its file), so that a sample, the rows of weight < W, is a
 * prefix of every file: pages of OT_PAGE_FIRST_ROWS rows, then each 1/OT_PAGE_GROWTH of the rows
 * before it (a row group every OT_RG_ROWS rows), and the footer key OT_PAGES_KEY lists the page
 * starts with their first weight, from which the reader (scan.c) reads just that prefix. Tags:
 * 'revision' and 'blocks' (qbeast's; nothing else goes into the log).
 */
#include "layout/otree/otreeInt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OT_RG_ROWS 131072             /* row groups of a large file */
#define OT_PAGE_FIRST_ROWS 16         /* a file's first page: what the smallest sample reads of it */
#define OT_PAGE_GROWTH 8              /* later pages: 1/8 of the rows before them */


static const char *const ot_options[] = {"rollupSize"};

void ot_writer_free(ot_writer *w) {
    if (!w) return;
    tn_table_txn_abort(w->txn);
    ot_index_free(w->ix);
    if (w->has_buf) tn_chunk_free(&w->buf);
    tn_free(w->select);
    tn_free(w->stream_files);
    tn_free(w);
}

static int parse_rollup(const tn_table *t, const char *text, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno || v < 0)
        return tn_error_set(TN_EINVAL, "table '%s': write option 'rollupSize' = '%s' is not a number of rows >= 0 "
                            "(0 disables rollup)", tn_table_path(t), text);
    *out = v;
    return 0;
}

int ot_open_writer(ot_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    *out = NULL;
    int rc = tn_layout_check_columns(t);
    if (rc) return rc;
    rc = tn_layout_options_check(t, "otree", opts->options, opts->noptions, ot_options, 1);
    if (rc) return rc;
    if (opts->npartition_spec || opts->mode == TN_LAYOUT_OVERWRITE_DYNAMIC)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is a qbeast OTree table: it has no partitions", tn_table_path(t));
    if (opts->prepare_commit)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is a qbeast OTree table: UPDATE and MERGE are not supported yet",
                            tn_table_path(t));
    ot_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->t = t;
    w->opts = *opts;
    w->rollup = -1;
    const char *rs = tn_layout_option(opts->options, opts->noptions, "rollupSize");
    if (rs && (rc = parse_rollup(t, rs, &w->rollup))) goto cleanup;
    rc = ot_index_load(&w->ix, t);
    if (rc) goto cleanup;
    rc = tn_table_txn_open(&w->txn, t, opts->max_attempts);
    if (rc) goto cleanup;
    tn_table_txn_set_interrupt(w->txn, opts->interrupt);
    tn_table_txn_set_rows_checked(w->txn, opts->constraints_checked, false);
    if (opts->app_id && (rc = tn_table_txn_set_app(w->txn, opts->app_id, opts->app_version, &w->skip))) goto cleanup;
    *out = w;
    w = NULL;
cleanup:
    ot_writer_free(w);
    return rc;
}

static int ot_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    ot_writer *w = NULL;
    int rc = ot_open_writer(&w, t, opts);
    *out = w ? &w->base : NULL;
    return rc;
}

int ot_vec_append(tn_vector *dst, const tn_vector *src, uint32_t n) {
    int rc = tn_vector_reserve(dst, dst->count + n);
    if (rc) return rc;
    size_t wd = tn_type_width(dst->type);
    bool str = tn_type_is_string(dst->type);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t o = dst->count + k;
        if (!tn_vector_is_valid(src, k)) {
            if ((rc = tn_vector_set_null(dst, o))) return rc;
            continue;
        }
        if (dst->validity) tn_vector_set_valid_bit(dst, o, true);
        if (str) {
            const tn_str *s = (const tn_str *)src->data + k;
            if ((rc = tn_vector_set_str(dst, o, s->ptr, s->len))) return rc;
        } else {
            memcpy((uint8_t *)dst->data + (size_t)o * wd, (const uint8_t *)src->data + (size_t)k * wd, wd);
        }
    }
    dst->count += n;
    return 0;
}

static int ot_write(tn_layout_writer *base, const tn_chunk *chunk) { return ot_writer_write((ot_writer *)base, chunk); }

int ot_writer_write(ot_writer *w, const tn_chunk *chunk) {
    if (w->sticky) return tn_error_set(w->sticky, "table '%s': the writer failed earlier", tn_table_path(w->t));
    if (w->skip || chunk->count == 0) return 0;
    int rc = tn_interrupt_check(w->opts.interrupt);
    if (!rc) rc = tn_layout_check_chunk(w->t, chunk);
    if (!rc && w->nrows + chunk->count > (uint64_t)UINT32_MAX - TN_VECTOR_SIZE)
        rc = tn_error_set(TN_ELIMIT, "table '%s': an OTree write holds at most 4 billion rows", tn_table_path(w->t));
    if (!rc && !w->has_buf) {
        uint32_t nc = tn_table_num_columns(w->t);
        tn_type types[512];
        if (nc > 512)
            rc = tn_error_set(TN_ELIMIT, "table '%s': too many columns (%u; tarn writes at most 512)",
                              tn_table_path(w->t), nc);
        for (uint32_t i = 0; i < nc && !rc; i++) types[i] = tn_table_column(w->t, i)->type;
        if (!rc) rc = tn_chunk_init(&w->buf, nc, types, TN_VECTOR_SIZE);
        if (!rc) w->has_buf = true;
    }
    for (uint32_t c = 0; c < chunk->ncols && !rc; c++) {
        tn_vector *d = &w->buf.cols[c];
        uint32_t before = d->count;
        if (chunk->cols[c].count == 0 && chunk->count) {   /* a constant-less empty column: NULLs */
            rc = tn_vector_reserve(d, before + chunk->count);
            for (uint32_t k = 0; k < chunk->count && !rc; k++) rc = tn_vector_set_null(d, before + k);
            d->count = before + chunk->count;
        } else {
            rc = ot_vec_append(d, &chunk->cols[c], chunk->count);
        }
    }
    if (!rc) {
        w->nrows += chunk->count;
        w->buf.count = (uint32_t)w->nrows;
    }
    if (rc) w->sticky = rc;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Revision choice.
 */

static bool value_num(const tn_vector *v, uint32_t r, double *out) {
    tn_value x;
    tn_vector_get_value(v, r, &x);
    if (x.is_null) return false;
    /* the numeric view the coordinates use (revision.c): dates and timestamps in ms */
    switch (x.type.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT: *out = (double)x.u.i; return true;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE: *out = x.u.d; return x.u.d == x.u.d;
    case TN_TYPE_DECIMAL: *out = (tn_type_is_decimal128(x.type) ? (double)x.u.i128 : (double)x.u.i) / pow(10, x.type.scale); return true;
    case TN_TYPE_DATE: *out = (double)x.u.i * 86400000.0; return true;
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: *out = floor((double)x.u.i / 1000.0); return true;
    default: return false;
    }
}

static int32_t name_hash(const char *s) { return ot_scala_bytes_hash((const uint8_t *)s, (uint32_t)strlen(s)); }

/* The spec of the table: 'columnsToIndex' when stored, else from the last revision. */
static int table_spec(ot_plan *p) {
    tn_table *t = p->w->t;
    uint32_t nc = tn_table_num_columns(t);
    tn_table_column_def *defs = tn_arena_calloc(p->arena, sizeof *defs * (nc ? nc : 1));
    if (!defs) return TN_ENOMEM;
    for (uint32_t i = 0; i < nc; i++) {
        defs[i].name = tn_table_column(t, i)->name;
        defs[i].type = tn_table_column(t, i)->type;
    }
    const char *spec = tn_table_property(t, "columnsToIndex");
    char *built = NULL;
    if (!spec) {
        const ot_revision *r = ot_index_revision(p->w->ix, p->w->ix->last_revision);
        tn_buf b = TN_BUF_INIT;
        for (uint32_t i = 0; i < r->ncols; i++) {
            const char *tr = strcmp(r->cols[i].transformer, "empty") == 0 ? NULL : r->cols[i].transformer;
            tn_buf_printf(&b, "%s%s%s%s", i ? "," : "", r->cols[i].name, tr ? ":" : "", tr ? tr : "");
        }
        tn_buf_append_byte(&b, 0);
        built = tn_arena_strdup(p->arena, b.data ? (const char *)b.data : "");
        tn_buf_free(&b);
        spec = built;
    }
    uint32_t n;
    int rc = ot_spec_parse(spec, defs, nc, tn_table_path(t), p->arena, &p->spec, &n);
    if (rc) return rc;
    if (n != p->w->ix->ncols)
        return tn_error_set(TN_ECORRUPT, "table '%s': 'columnsToIndex' names %u columns, the revisions index %u",
                            tn_table_path(t), n, p->w->ix->ncols);
    for (uint32_t i = 0; i < n; i++)
        if (p->spec[i].column != p->w->ix->cols[i])
            return tn_error_set(TN_ECORRUPT, "table '%s': 'columnsToIndex' does not match the revisions' columns",
                                tn_table_path(t));
    p->d = n;
    p->cols = p->w->ix->cols;
    return 0;
}

/* Quantiles of the write's values of column c (qbeast computes them with QbeastUtils; tarn does
 * it for the write that starts the revision when 'columnStats' gives none): OT_QUANTILES evenly
 * spaced order statistics, duplicates dropped, at least two strictly increasing values. */
#define OT_QUANTILES 50
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static int cmp_str(const void *a, const void *b) {
    const tn_str *x = a, *y = b;
    uint32_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, m);
    return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static int data_quantiles(ot_plan *p, const tn_vector *v, bool str, ot_transform *tr) {
    uint32_t n = 0, nv = v->count;
    int rc = 0;
    if (str) {
        tn_str *vals = tn_malloc(sizeof *vals * (nv ? nv : 1));
        if (!vals) return TN_ENOMEM;
        for (uint32_t r = 0; r < nv; r++)
            if (tn_vector_is_valid(v, r)) vals[n++] = ((const tn_str *)v->data)[r];
        qsort(vals, n, sizeof *vals, cmp_str);
        tr->squantiles = tn_arena_calloc(p->arena, sizeof *tr->squantiles * OT_QUANTILES);
        if (!tr->squantiles) { tn_free(vals); return TN_ENOMEM; }
        uint32_t k = 0;
        for (uint32_t i = 0; i < OT_QUANTILES && n; i++) {
            const tn_str *x = &vals[(uint64_t)i * (n - 1) / (OT_QUANTILES - 1)];
            if (k && cmp_str(x, &vals[(uint64_t)(i - 1) * (n - 1) / (OT_QUANTILES - 1)]) == 0) continue;
            if (!(tr->squantiles[k++] = tn_arena_strndup(p->arena, x->ptr, x->len))) { rc = TN_ENOMEM; break; }
        }
        tn_free(vals);
        if (rc) return rc;
        if (k == 0) tr->squantiles[k++] = "";
        if (k == 1) tr->squantiles[k++] = tn_arena_printf(p->arena, "%s~", tr->squantiles[0]);
        if (!tr->squantiles[k - 1]) return TN_ENOMEM;
        tr->kind = OT_T_STRING_QUANTILES;
        tr->nquantiles = k;
        return 0;
    }
    double *vals = tn_malloc(sizeof *vals * (nv ? nv : 1)), x;
    if (!vals) return TN_ENOMEM;
    for (uint32_t r = 0; r < nv; r++)
        if (value_num(v, r, &x)) vals[n++] = x;
    qsort(vals, n, sizeof *vals, cmp_double);
    tr->quantiles = tn_arena_alloc(p->arena, sizeof *tr->quantiles * OT_QUANTILES);
    if (!tr->quantiles) { tn_free(vals); return TN_ENOMEM; }
    uint32_t k = 0;
    for (uint32_t i = 0; i < OT_QUANTILES && n; i++) {
        double q = vals[(uint64_t)i * (n - 1) / (OT_QUANTILES - 1)];
        if (!k || q > tr->quantiles[k - 1]) tr->quantiles[k++] = q;
    }
    tn_free(vals);
    if (k == 0) tr->quantiles[k++] = 0;
    if (k == 1) { tr->quantiles[1] = tr->quantiles[0] + 1; k = 2; }
    tr->kind = OT_T_QUANTILES;
    tr->nquantiles = k;
    return 0;
}

/* The quantiles of indexed column i from the rows written (a streaming OPTIMIZE scans them). */
static int plan_quantiles(ot_plan *p, uint32_t i, bool str, ot_transform *tr) {
    if (!p->w->stream) return data_quantiles(p, &p->w->buf.cols[p->cols[i]], str, tr);
    tn_chunk c;
    int rc = ot_stream_column(p->w, p->cols[i], &c);
    if (rc) return rc;
    rc = data_quantiles(p, &c.cols[0], str, tr);
    tn_chunk_free(&c);
    return rc;
}

static bool same_quantiles(const ot_transform *a, const ot_column_stats *st, bool str) {
    if (a->nquantiles != st->nquantiles) return false;
    for (uint32_t k = 0; k < a->nquantiles; k++)
        if (str ? strcmp(a->squantiles[k], st->squantiles[k]) != 0 : a->quantiles[k] != st->quantiles[k]) return false;
    return true;
}

int ot_choose_revision(ot_plan *p) {
    ot_writer *w = p->w;
    const ot_index *ix = w->ix;
    const ot_revision *cur = ot_index_revision(ix, ix->last_revision);
    int rc = table_spec(p);
    if (rc) return rc;
    p->cube_size = cur->cube_size;
    const char *cs = tn_table_property(w->t, "cubeSize");
    if (cs && (rc = ot_parse_cube_size(cs, tn_table_path(w->t), &p->cube_size))) return rc;
    p->tr = tn_arena_calloc(p->arena, sizeof *p->tr * p->d);
    if (!p->tr) return TN_ENOMEM;
    bool overwrite = w->opts.mode != TN_LAYOUT_APPEND;
    bool fresh = (overwrite && !w->optimize) || cur->id == 0 || cur->cube_size != p->cube_size;
    bool superseded = false;
    const char *stats = tn_table_property(w->t, "columnStats");
    for (uint32_t i = 0; i < p->d; i++) {
        ot_transform *tr = &p->tr[i];
        const ot_transform *old = fresh ? NULL : &cur->tr[i];
        ot_column_stats st;
        memset(&st, 0, sizeof st);
        if (stats && (rc = ot_column_stats_get(&st, stats, &p->spec[i], tn_table_path(w->t), p->arena))) return rc;
        if (strcmp(p->spec[i].transformer, "quantiles") == 0) {
            /* qbeast: quantiles are superseded only by a different list; data beyond them maps to
             * 0 or 1, so appends keep the revision's quantiles */
            bool str = tn_type_is_string(p->spec[i].type);
            ot_transform_kind kind = str ? OT_T_STRING_QUANTILES : OT_T_QUANTILES;
            if (old && old->kind == kind && (!st.nquantiles || same_quantiles(old, &st, str))) {
                *tr = *old;
                continue;
            }
            if (old && old->kind == kind) superseded = true;
            else if (old) fresh = true;
            if (st.nquantiles) {
                tr->kind = kind;
                tr->quantiles = st.quantiles;
                tr->squantiles = st.squantiles;
                tr->nquantiles = st.nquantiles;
            } else if ((rc = plan_quantiles(p, i, str, tr))) {
                return rc;
            }
            continue;
        }
        if (strcmp(p->spec[i].transformer, "hashing") == 0) {
            if (old && old->kind != OT_T_HASH) fresh = true;
            tr->kind = OT_T_HASH;
            tr->hash_null = old && old->kind == OT_T_HASH ? old->hash_null : name_hash(p->spec[i].name);
            continue;
        }
        double mn = p->dmin[i], mx = p->dmax[i];
        if (st.has_min && st.min < mn) mn = st.min;   /* columnStats widen the data's range, as qbeast's union */
        if (st.has_max && st.max > mx) mx = st.max;
        tr->kind = OT_T_LINEAR;
        if (old && old->kind == OT_T_LINEAR) {
            if (mn < old->min || mx > old->max) superseded = true;
            tr->min = mn < old->min ? mn : old->min;
            tr->max = mx > old->max ? mx : old->max;
        } else {
            if (old) fresh = true;
            if (mn > mx) { mn = 0; mx = 1; }   /* only NULLs */
            tr->min = mn;
            tr->max = mx;
        }
        if (!(tr->max > tr->min)) tr->max = tr->min + 1;   /* one value: a range qbeast accepts */
        bool integral = p->spec[i].type.id != TN_TYPE_FLOAT && p->spec[i].type.id != TN_TYPE_DOUBLE &&
                        p->spec[i].type.id != TN_TYPE_DECIMAL;
        tr->null_value = old && old->kind == OT_T_LINEAR ? old->null_value
                         : integral ? floor((tr->min + tr->max) / 2) : (tr->min + tr->max) / 2;
    }
    p->new_revision = fresh || superseded;
    if (p->new_revision) {
        p->rev_id = ix->last_revision + 1;
        p->old = NULL;
    } else {
        p->rev_id = cur->id;
        memcpy(p->tr, cur->tr, sizeof *p->tr * p->d);
        /* OPTIMIZE rewrites every row: the tree is built from exact counts alone (a partial one,
         * indexing some unindexed files, estimates with the rows that stay, as an append) */
        p->old = w->optimize && !w->select ? NULL : ot_index_rev_index(ix, cur->id);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Cube estimation and assignment.
 */
int64_t ot_tree_size(const ot_rev_index *ri, const char *id, int64_t *own) {
    *own = 0;
    if (!ri) return 0;
    size_t n = strlen(id);
    uint32_t lo = 0, hi = ri->ncubes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (strcmp(ri->cubes[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    int64_t s = 0;
    for (uint32_t i = lo; i < ri->ncubes && strncmp(ri->cubes[i].id, id, n) == 0; i++) {
        s += ri->cubes[i].count;
        if (ri->cubes[i].id[n] == 0) *own = ri->cubes[i].count;
    }
    return s;
}

int ot_plan_add_cube(ot_plan *p, const char *id, int32_t maxw, int32_t *out) {
    if (p->ncubes == p->cap_cubes) {
        uint32_t cap = p->cap_cubes ? p->cap_cubes * 2 : 64;
        ot_pcube *c = tn_realloc(p->cubes, sizeof *c * cap);
        if (!c) return TN_ENOMEM;
        p->cubes = c;
        p->cap_cubes = cap;
    }
    char *s = tn_arena_strdup(p->arena, id);
    if (!s) return TN_ENOMEM;
    p->cubes[p->ncubes] = (ot_pcube){s, maxw, 0, -1, INT32_MAX};
    *out = (int32_t)p->ncubes++;
    return 0;
}

typedef struct child_key { uint64_t code; uint32_t row; } child_key;
static int cmp_child(const void *a, const void *b) {
    const child_key *x = a, *y = b;
    return x->code < y->code ? -1 : x->code > y->code ? 1 : (x->row < y->row ? -1 : x->row > y->row);
}

/* Cube `id` (depth `depth`) with the write's rows of its subspace rows[0..nr), the existing rows'
 * domain estimate old_domain, and the parent's normalized weight. */
static int build(ot_plan *p, char *id, uint32_t depth, uint32_t *rows, uint32_t nr, double old_domain, double parent_nw) {
    if (nr == 0) return 0;
    double domain = (double)nr + old_domain;
    double nw = domain <= (double)p->cube_size ? 1.0 : parent_nw + (double)p->cube_size / domain;
    if (depth >= OT_MAX_LEVELS) nw = 1.0;
    int32_t maxw = nw < 1.0 ? ot_weight_of_fraction(nw) : OT_WEIGHT_MAX;
    int32_t ci = -1;
    uint32_t rest = 0;
    for (uint32_t k = 0; k < nr; k++) {
        uint32_t r = rows[k];
        if (p->cube[r] >= 0) continue;
        if (p->weight[r] <= maxw) {
            if (ci < 0) {
                int rc = ot_plan_add_cube(p, id, maxw, &ci);
                if (rc) return rc;
            }
            p->cube[r] = ci;
            p->cubes[ci].nrows++;
        } else {
            rest++;
        }
    }
    if (rest == 0) return 0;
    /* the children: rows (all of the subspace: domains count them) by their next-level cell */
    uint32_t cpl = ot_cube_chars_per_level(p->d);
    child_key *keys = tn_malloc(sizeof *keys * nr);
    if (!keys) return TN_ENOMEM;
    for (uint32_t k = 0; k < nr; k++) {
        uint32_t r = rows[k];
        double *c = &p->coord[(size_t)r * p->d];
        uint64_t code = 0;
        for (uint32_t i = 0; i < p->d; i++) {
            double x = c[i] * 2;
            bool up = x >= 1;
            c[i] = up ? x - 1 : x;
            code = code << 1 | (up ? 1 : 0);
        }
        keys[k] = (child_key){code, r};
    }
    qsort(keys, nr, sizeof *keys, cmp_child);
    for (uint32_t k = 0; k < nr; k++) rows[k] = keys[k].row;
    int64_t own, ts = ot_tree_size(p->old, id, &own);
    double below = (double)(ts - own);
    size_t idlen = strlen(id);
    int rc = 0;
    for (uint32_t a = 0; a < nr && !rc;) {
        uint32_t b = a;
        while (b < nr && keys[b].code == keys[a].code) b++;
        /* the child's id: this level's symbols from the code */
        int sym[11] = {0};
        for (uint32_t i = 0; i < p->d; i++)
            if ((keys[a].code >> (p->d - 1 - i)) & 1) sym[i / 6] |= 1 << (5 - i % 6);
        static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (uint32_t j = 0; j < cpl; j++) id[idlen + j] = alphabet[sym[j]];
        id[idlen + cpl] = 0;
        int64_t cown, cts = ot_tree_size(p->old, id, &cown);
        double cold = below > 0 ? old_domain * (double)cts / below : 0;
        rc = build(p, id, depth + 1, rows + a, b - a, cold, nw);
        id[idlen] = 0;
        a = b;
    }
    tn_free(keys);
    return rc;
}

/* OPTIMIZE ... WHERE fraction (qbeast's optimize of a revision: PointWeightIndexer against the
 * current cube weights, no new estimation): each row goes to the first cube of its path whose
 * effective maxWeight (min over its blocks) is >= its weight, keeping that maxWeight, so no cube's
 * effective maxWeight changes and the rows of the files that stay remain reachable. A cell the
 * revision has no cube for is descended through when cubes lie below it (an internal cube whose
 * rows all went deeper), and accepts the row as a leaf (maxWeight Int.MaxValue) otherwise. */
static bool has_descendants(const ot_rev_index *ri, const char *id) {
    size_t n = strlen(id);
    uint32_t lo = 0, hi = ri->ncubes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (strcmp(ri->cubes[mid].id, id) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < ri->ncubes && strncmp(ri->cubes[lo].id, id, n) == 0;
}

int ot_reassign_row(ot_plan *p, const ot_rev_index *ri, int32_t *known, double *c, int32_t weight, int32_t *out) {
    uint32_t cpl = ot_cube_chars_per_level(p->d);
    char id[OT_MAX_LEVELS * 11 + 12];
    size_t len = 0;
    id[0] = 0;
    for (uint32_t depth = 0;; depth++) {
        const ot_cube *cu = ot_rev_index_find(ri, id);
        bool last = depth >= OT_MAX_LEVELS;
        int32_t maxw = cu ? cu->max_weight : OT_WEIGHT_MAX;
        if ((cu && weight <= maxw) || (!cu && !has_descendants(ri, id)) || last) {
            int32_t ci = -1;
            if (cu && known[cu - ri->cubes] >= 0) {
                ci = known[cu - ri->cubes];
            } else {
                for (uint32_t k = 0; k < p->ncubes && ci < 0; k++)   /* cells beyond the tree: few */
                    if (strcmp(p->cubes[k].id, id) == 0) ci = (int32_t)k;
                int rc = ci < 0 ? ot_plan_add_cube(p, id, maxw, &ci) : 0;
                if (rc) return rc;
                if (cu) known[cu - ri->cubes] = ci;
            }
            *out = ci;
            return 0;
        }
        ot_cube_descend(c, p->d, id + len);
        len += cpl;
        id[len] = 0;
    }
}

static int reassign(ot_plan *p, const ot_rev_index *ri) {
    int32_t *known = tn_malloc(sizeof *known * (ri->ncubes ? ri->ncubes : 1));
    if (!known) return TN_ENOMEM;
    for (uint32_t i = 0; i < ri->ncubes; i++) known[i] = -1;
    int rc = 0;
    for (uint32_t r = 0; r < p->n && !rc; r++) {
        rc = ot_reassign_row(p, ri, known, &p->coord[(size_t)r * p->d], p->weight[r], &p->cube[r]);
        if (!rc) p->cubes[p->cube[r]].nrows++;
    }
    tn_free(known);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Rollup (qbeast's Rollup: deepest groups first; a group smaller than the limit joins its
 * parent's group, or becomes the parent's group when it has none; the root never moves).
 */
typedef struct rgroup {
    char *id;
    uint64_t size;
    int32_t merged_into;               /* -1: alive */
} rgroup;

static int find_group(rgroup *g, uint32_t n, const char *id, uint32_t except) {
    for (uint32_t i = 0; i < n; i++)
        if (i != except && g[i].merged_into < 0 && strcmp(g[i].id, id) == 0) return (int)i;
    return -1;
}

int ot_rollup(ot_plan *p, int64_t limit, uint32_t *ngroups_out) {
    rgroup *g = tn_calloc(p->ncubes ? p->ncubes : 1, sizeof *g);
    if (!g) return TN_ENOMEM;
    uint32_t cpl = ot_cube_chars_per_level(p->d);
    size_t maxlen = 0;
    for (uint32_t i = 0; i < p->ncubes; i++) {
        g[i] = (rgroup){tn_arena_strdup(p->arena, p->cubes[i].id), p->cubes[i].nrows, -1};
        if (!g[i].id) { tn_free(g); return TN_ENOMEM; }
        if (strlen(g[i].id) > maxlen) maxlen = strlen(g[i].id);
    }
    for (size_t len = maxlen; len > 0; len -= cpl) {
        for (uint32_t i = 0; i < p->ncubes; i++) {
            if (g[i].merged_into >= 0 || strlen(g[i].id) != len || (int64_t)g[i].size >= limit) continue;
            g[i].id[len - cpl] = 0;           /* the parent's: joins its group, or becomes it */
            int j = find_group(g, p->ncubes, g[i].id, i);
            if (j >= 0) {
                g[j].size += g[i].size;
                g[i].merged_into = j;
            }
        }
        if (len < cpl) break;
    }
    /* each cube's final group: follow the merges; number the live groups */
    int32_t *num = tn_malloc(sizeof *num * (p->ncubes ? p->ncubes : 1));
    if (!num) { tn_free(g); return TN_ENOMEM; }
    uint32_t ng = 0;
    for (uint32_t i = 0; i < p->ncubes; i++) num[i] = g[i].merged_into < 0 ? (int32_t)ng++ : -1;
    for (uint32_t i = 0; i < p->ncubes; i++) {
        int32_t j = (int32_t)i;
        while (g[j].merged_into >= 0) j = g[j].merged_into;
        p->cubes[i].group = num[j];
    }
    tn_free(num);
    tn_free(g);
    *ngroups_out = ng;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Files.
 */

/* keys ascending, rows ascending among equal keys (the order a comparison sort on (key, row) gives): a stable
 * LSD radix sort on 11-bit digits, skipping digits no key sets (the group's high bits) */
#define RADIX_BITS 11
int ot_sort_row_keys(ot_row_key *keys, uint32_t n) {
    ot_row_key *tmp = tn_malloc(sizeof *tmp * (n ? n : 1));
    uint32_t *cnt = tn_malloc(sizeof *cnt * (1u << RADIX_BITS));
    if (!tmp || !cnt) {
        tn_free(tmp);
        tn_free(cnt);
        return TN_ENOMEM;
    }
    uint64_t any = 0, all = ~(uint64_t)0;
    for (uint32_t r = 0; r < n; r++) {
        any |= keys[r].key;
        all &= keys[r].key;
    }
    ot_row_key *src = keys, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        uint64_t mask = ((uint64_t)1 << RADIX_BITS) - 1;
        if ((((any ^ all) >> shift) & mask) == 0) continue;   /* every key has the same digit */
        memset(cnt, 0, sizeof *cnt * (1u << RADIX_BITS));
        for (uint32_t r = 0; r < n; r++) cnt[(src[r].key >> shift) & mask]++;
        uint32_t sum = 0;
        for (uint32_t d = 0; d < (1u << RADIX_BITS); d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (uint32_t r = 0; r < n; r++) dst[cnt[(src[r].key >> shift) & mask]++] = src[r];
        ot_row_key *t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) memcpy(keys, src, sizeof *keys * n);
    tn_free(tmp);
    tn_free(cnt);
    return 0;
}

static __thread const ot_plan *t_sort_plan;   /* qsort's context */
static int cmp_cube_in_group(const void *a, const void *b) {
    const ot_pcube *x = &t_sort_plan->cubes[*(const uint32_t *)a], *y = &t_sort_plan->cubes[*(const uint32_t *)b];
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return strcmp(x->id, y->id);
}

/* Page starts of a file of n rows (weight order): OT_PAGE_FIRST_ROWS, then pages of 1 /
 * OT_PAGE_GROWTH of the rows before them, and a boundary at every row group. */
static uint32_t next_page_start(uint32_t s, uint32_t n) {
    uint32_t k = s / OT_PAGE_GROWTH;
    if (k < OT_PAGE_FIRST_ROWS) k = OT_PAGE_FIRST_ROWS;
    uint32_t e = s + k, rg_end = (s / OT_RG_ROWS + 1) * OT_RG_ROWS;
    if (e > rg_end) e = rg_end;
    return e < n ? e : n;
}

int ot_cubes_by_group(const ot_plan *p, uint32_t **out) {
    uint32_t *corder = tn_malloc(sizeof *corder * (p->ncubes ? p->ncubes : 1));
    *out = corder;
    if (!corder) return TN_ENOMEM;
    for (uint32_t c = 0; c < p->ncubes; c++) corder[c] = c;
    t_sort_plan = p;
    qsort(corder, p->ncubes, sizeof *corder, cmp_cube_in_group);
    t_sort_plan = NULL;
    return 0;
}

int ot_file_writer_open(ot_plan *p, tn_table_file_writer **out) {
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.target_file_bytes = UINT64_MAX;
    fo.row_group_rows = UINT64_MAX;
    fo.row_group_bytes = UINT64_MAX;
    fo.codec = p->w->opts.codec == TN_CODEC_ZSTD ? -1 : (int)p->w->opts.codec;
    fo.data_change = !p->w->optimize;
    return tn_table_file_writer_open(out, p->w->txn, &fo);
}

int ot_write_file(ot_plan *p, tn_table_file_writer *fw, const tn_chunk *src, const uint32_t *order, uint32_t n,
                  const int32_t *weight, const uint32_t *cidx, uint32_t nc, const int32_t *cmin) {
    char rev[32];
    snprintf(rev, sizeof rev, "%lld", (long long)p->rev_id);
    tn_buf blocks = TN_BUF_INIT, pages = TN_BUF_INIT;
    /* its blocks (tag) in cube order */
    int rc = tn_buf_append_byte(&blocks, '[');
    for (uint32_t k = 0; k < nc && !rc; k++) {
        const ot_pcube *c = &p->cubes[cidx[k]];
        rc = tn_buf_printf(&blocks, "%s{\"cubeId\":\"%s\",\"minWeight\":%d,\"maxWeight\":%d,\"elementCount\":%u}",
                           k ? "," : "", c->id, cmin[cidx[k]], c->max_weight, c->nrows);
    }
    if (!rc) rc = tn_buf_append_byte(&blocks, ']');
    if (!rc) rc = tn_buf_append_byte(&blocks, 0);
    /* footer: where the pages start and their first weight (the reader's row limits) */
    if (!rc) rc = tn_buf_printf(&pages, "{\"rows\":%u,\"pages\":[", n);
    for (uint32_t s0 = 0; s0 < n && !rc; s0 = next_page_start(s0, n))
        rc = tn_buf_printf(&pages, "%s[%u,%d]", s0 ? "," : "", s0, weight[order[s0]]);
    if (!rc) rc = tn_buf_printf(&pages, "]}");
    if (!rc) rc = tn_buf_append_byte(&pages, 0);
    if (!rc) {
        tn_delta_kv kv[1] = {{OT_PAGES_KEY, (const char *)pages.data}};
        rc = tn_table_file_writer_set_footer(fw, kv, 1);
    }
    for (uint32_t s0 = 0, e; s0 < n && !rc; s0 = e) {
        e = next_page_start(s0, n);
        rc = tn_table_file_writer_write(fw, src, order + s0, e - s0);
        if (!rc) rc = e % OT_RG_ROWS == 0 ? tn_table_file_writer_flush(fw) : tn_table_file_writer_end_page(fw);
    }
    if (!rc) {
        tn_delta_kv tags[2] = {{"revision", rev}, {"blocks", (const char *)blocks.data}};
        rc = tn_table_file_writer_set_tags(fw, tags, 2);
    }
    if (!rc) rc = tn_table_file_writer_roll(fw);
    if (!rc) p->w->files++;
    tn_buf_free(&blocks);
    tn_buf_free(&pages);
    return rc;
}

static int write_files(ot_plan *p) {
    ot_writer *w = p->w;
    int rc = 0;
    p->row_order = tn_malloc(sizeof *p->row_order * (p->n ? p->n : 1));
    ot_row_key *keys = tn_malloc(sizeof *keys * (p->n ? p->n : 1));
    uint32_t *corder = NULL;
    int32_t *cmin = tn_malloc(sizeof *cmin * (p->ncubes ? p->ncubes : 1));
    if (!p->row_order || !keys || !cmin) {
        tn_free(keys);
        tn_free(cmin);
        return TN_ENOMEM;
    }
    /* each file's rows in weight order (qbeast does not order rows inside a file; its blocks are
     * the cube's rows wherever they lie), so the rows of a sample are a prefix of every file */
    for (uint32_t r = 0; r < p->n; r++)
        keys[r] = (ot_row_key){(uint64_t)(uint32_t)p->cubes[p->cube[r]].group << 32 | ((uint32_t)p->weight[r] ^ 0x80000000u), r};
    rc = ot_sort_row_keys(keys, p->n);
    for (uint32_t r = 0; r < p->n && !rc; r++) p->row_order[r] = keys[r].row;
    tn_free(keys);
    if (!rc) rc = ot_cubes_by_group(p, &corder);
    if (rc) {
        tn_free(corder);
        tn_free(cmin);
        return rc;
    }
    for (uint32_t c = 0; c < p->ncubes; c++) cmin[c] = INT32_MAX;
    for (uint32_t r = 0; r < p->n; r++)
        if (p->weight[r] < cmin[p->cube[r]]) cmin[p->cube[r]] = p->weight[r];
    tn_table_file_writer *fw = NULL;
    rc = ot_file_writer_open(p, &fw);
    if (rc) goto done;
    uint32_t ci = 0;
    for (uint32_t a = 0; a < p->n && !rc;) {
        int32_t grp = p->cubes[p->cube[p->row_order[a]]].group;
        uint32_t b = a, c0 = ci;
        while (b < p->n && p->cubes[p->cube[p->row_order[b]]].group == grp) b++;
        while (ci < p->ncubes && p->cubes[corder[ci]].group == grp) ci++;
        rc = ot_write_file(p, fw, &w->buf, p->row_order + a, b - a, p->weight, corder + c0, ci - c0, cmin);
        a = b;
    }
    if (rc) tn_table_file_writer_abort(fw);
    else rc = tn_table_file_writer_close(fw);
done:
    tn_free(corder);
    tn_free(cmin);
    return rc;
}

void ot_plan_ranges(ot_plan *p, const tn_vector *const *iv, uint32_t n) {
    double x;
    for (uint32_t i = 0; i < p->d; i++)
        for (uint32_t r = 0; r < n; r++)
            if (value_num(iv[i], r, &x)) {
                if (x < p->dmin[i]) p->dmin[i] = x;
                if (x > p->dmax[i]) p->dmax[i] = x;
            }
}

void ot_plan_coords(const ot_plan *p, const tn_vector *const *iv, uint32_t n, double *out) {
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t i = 0; i < p->d; i++) {
            tn_value v;
            tn_vector_get_value(iv[i], r, &v);
            out[(size_t)r * p->d + i] = ot_transform_coord(&p->tr[i], &v);
        }
}

int ot_plan_finish(ot_plan *p) {
    if (!p->new_revision) return 0;
    ot_writer *w = p->w;
    char *json = ot_revision_json(p->rev_id, tn_time_now_us() / 1000, tn_table_path(w->t), p->cube_size, p->spec, p->d, p->tr);
    char key[48], last[32];
    snprintf(key, sizeof key, "qbeast.revision.%lld", (long long)p->rev_id);
    snprintf(last, sizeof last, "%lld", (long long)p->rev_id);
    tn_delta_kv kv[2] = {{"qbeast.lastRevisionID", last}, {key, json}};
    int rc = json ? tn_table_txn_set_configuration(w->txn, kv, 2) : TN_ENOMEM;
    free(json);
    return rc;
}

void ot_plan_free(ot_plan *p) {
    tn_free(p->weight);
    tn_free(p->coord);
    tn_free(p->cube);
    tn_free(p->cubes);
    tn_free(p->row_order);
    tn_arena_destroy(p->arena);
}

/* The plan's revision and ranges (dmin/dmax: infinities, widened by the caller's rows). */
int ot_plan_init(ot_plan *p, ot_writer *w, const ot_rev_index **ri) {
    memset(p, 0, sizeof *p);
    p->w = w;
    p->arena = tn_arena_create(0);
    if (!p->arena) return TN_ENOMEM;
    *ri = w->reassign > 0 ? ot_index_rev_index(w->ix, w->reassign) : NULL;
    if (*ri) {                         /* the revision as it is: its transformations and cubes */
        p->d = (*ri)->rev->ncols;
        p->cols = w->ix->cols;
        p->tr = (*ri)->rev->tr;
        p->rev_id = (*ri)->rev->id;
        p->cube_size = (*ri)->rev->cube_size;
    } else {
        p->d = w->ix->ncols;
        p->cols = w->ix->cols;
    }
    p->dmin = tn_arena_alloc(p->arena, sizeof *p->dmin * (p->d ? p->d : 1));
    p->dmax = tn_arena_alloc(p->arena, sizeof *p->dmax * (p->d ? p->d : 1));
    if (!p->dmin || !p->dmax) return TN_ENOMEM;
    for (uint32_t i = 0; i < p->d; i++) {
        p->dmin[i] = INFINITY;
        p->dmax[i] = -INFINITY;
    }
    if (p->d > 64) return tn_error_set(TN_ELIMIT, "more than 64 indexed columns");
    return 0;
}

static int plan_and_write(ot_writer *w) {
    ot_plan p;
    const ot_rev_index *ri;
    int rc = ot_plan_init(&p, w, &ri);
    if (rc) goto cleanup;
    p.n = (uint32_t)w->nrows;
    const tn_vector *iv[64];
    for (uint32_t i = 0; i < p.d; i++) iv[i] = &w->buf.cols[p.cols[i]];
    if (!ri) {
        ot_plan_ranges(&p, iv, p.n);
        rc = ot_choose_revision(&p);
    }
    if (rc) goto cleanup;
    p.weight = tn_malloc(sizeof *p.weight * (p.n ? p.n : 1));
    p.coord = tn_malloc(sizeof *p.coord * (size_t)(p.n ? p.n : 1) * p.d);
    p.cube = tn_malloc(sizeof *p.cube * (p.n ? p.n : 1));
    uint32_t *rows = tn_malloc(sizeof *rows * (p.n ? p.n : 1));
    if (!p.weight || !p.coord || !p.cube || !rows) { tn_free(rows); rc = TN_ENOMEM; goto cleanup; }
    ot_weight_chunk(iv, p.d, p.n, p.weight);
    ot_plan_coords(&p, iv, p.n, p.coord);
    for (uint32_t r = 0; r < p.n; r++) {
        p.cube[r] = -1;
        rows[r] = r;
    }
    char id[OT_MAX_LEVELS * 11 + 12];
    id[0] = 0;
    int64_t own;
    double old_root = (double)ot_tree_size(p.old, "", &own);
    rc = ri ? reassign(&p, ri) : build(&p, id, 0, rows, p.n, old_root, 0.0);
    tn_free(rows);
    if (rc) goto cleanup;
    uint32_t ngroups = 0;
    int64_t limit = w->rollup >= 0 ? w->rollup : p.cube_size;
    rc = ot_rollup(&p, limit, &ngroups);
    if (!rc) rc = write_files(&p);
    if (!rc) rc = ot_plan_finish(&p);
cleanup:
    ot_plan_free(&p);
    return rc;
}

int ot_commit_writer(ot_writer *w, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    if (w->sticky) {
        rc = tn_error_set(w->sticky, "table '%s': the writer failed earlier; nothing committed", tn_table_path(w->t));
        goto cleanup;
    }
    if (!w->skip) {
        if (w->stream) rc = ot_stream_write(w);
        else if (w->nrows) rc = plan_and_write(w);
        if (rc) goto cleanup;
        rc = tn_interrupt_check(w->opts.interrupt);
        if (rc) goto cleanup;
        bool overwrite = w->opts.mode != TN_LAYOUT_APPEND;
        if (w->optimize) {
            /* the files rewritten (read implicitly: a concurrent delete of one conflicts; a
             * concurrent append does not, and keeps its files) */
            const tn_delta_snapshot *snap = tn_table_snapshot(w->t);
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
                if (!w->select || w->select[fi]) rc = tn_table_txn_remove(w->txn, &snap->files[fi], false);
            if (rc) goto cleanup;
        } else if (overwrite) {
            const tn_delta_snapshot *snap = tn_table_snapshot(w->t);
            rc = tn_table_txn_read_table(w->txn);
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) rc = tn_table_txn_remove(w->txn, &snap->files[fi], true);
            if (rc) goto cleanup;
        }
        tn_delta_kv params[40];
        uint32_t np = 0;
        bool has_pred = false;
        for (uint32_t i = 0; i < w->opts.noperation_parameters; i++)
            has_pred = has_pred || strcmp(w->opts.operation_parameters[i].key, "predicate") == 0;
        if (w->optimize) {
            if (!has_pred) params[np++] = (tn_delta_kv){"predicate", "[]"};
            params[np++] = (tn_delta_kv){"zOrderBy", "[]"};
        } else {
            params[np++] = (tn_delta_kv){"mode", overwrite ? "Overwrite" : "Append"};
            params[np++] = (tn_delta_kv){"partitionBy", "[]"};
        }
        for (uint32_t i = 0; i < w->opts.noperation_parameters && np < 40; i++) params[np++] = w->opts.operation_parameters[i];
        rc = tn_table_txn_set_commit_info(w->txn, w->optimize ? "OPTIMIZE" : w->opts.operation ? w->opts.operation : "WRITE",
                                          params, np, NULL, 0);
        if (rc) goto cleanup;
    }
    tn_table_txn *txn = w->txn;
    w->txn = NULL;
    rc = tn_table_txn_commit(txn, &res);
cleanup:
    if (rc) res.version = -1;
    if (result) *result = res;
    ot_writer_free(w);
    return rc;
}

static int ot_commit(tn_layout_writer *base, tn_table_commit_result *result) {
    return ot_commit_writer((ot_writer *)base, result);
}

static void ot_abort(tn_layout_writer *base) { ot_writer_free((ot_writer *)base); }

static uint64_t ot_num_files(const tn_layout_writer *base) {
    const ot_writer *w = (const ot_writer *)base;
    return w->txn ? tn_table_txn_num_files_written(w->txn) : w->files;
}

const tn_layout_impl tn_layout_otree = {
    "otree", ot_open, ot_write, ot_commit, ot_abort, ot_num_files, ot_scan_open, NULL, NULL, tn_layout_otree_optimize, NULL, NULL, NULL,
    NULL, NULL,
};
