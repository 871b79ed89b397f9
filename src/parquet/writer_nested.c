/*
 * parquet/writer_nested.c: the writer's schema tree and the shredding of nested values (Dremel):
 * every column spec becomes schema elements and leaf columns (a flat spec one leaf), and a
 * LIST / MAP / STRUCT vector becomes, per leaf, repetition and definition levels plus the leaf's
 * non-null values. Pages and encodings stay writer_column.c's; the file and footer writer.c's.
 *
 * Layouts written (parquet-format LogicalTypes.md, as DuckDB, Spark and Arrow write them):
 *   LIST    <opt|req> group name (LIST) { repeated group list { optional <T> element; } }
 *   MAP     <opt|req> group name (MAP) { repeated group key_value { required <K> key;
 *                                                                    optional <V> value; } }
 *   STRUCT  <opt|req> group name { optional <T> field; ... }
 * The top level is required for NOT NULL columns; elements, values and struct fields are
 * optional (tarn's nested values may hold NULL anywhere but in a map key).
 * Levels: an optional node adds 1 to the definition level when present, a repeated node 1 to
 * both levels; an entry whose value stops at a NULL or an empty list records the definition
 * level reached, and a repeated node's later elements record its repetition level.
 */
#include "parquet/writerInt.h"

#include <string.h>

#define PQW_NONE UINT32_MAX            /* shredded entry that ended above the leaf */

/* ---------------------------------------------------------------------------------------------
 * Schema.
 */
static void leaf_element(const char *name, tn_type type, int repetition, int32_t field_id,
                         const pqw_col *c, pq_schema_element *e) {
    memset(e, 0, sizeof *e);
    e->type = c->phys;
    e->type_length = c->kind == PQW_FLBA ? (int32_t)c->vw : -1;
    e->repetition = repetition;
    e->name = (char *)name;
    e->converted_type = PQ_CT_NONE;
    e->scale = e->precision = -1;
    e->field_id = field_id >= 0 ? field_id : -1;
    e->logical.kind = PQ_LT_NONE;
    switch ((tn_type_id)type.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT:
        e->converted_type = type.id == TN_TYPE_TINYINT ? PQ_CT_INT_8 : PQ_CT_INT_16;
        e->logical.kind = PQ_LT_INTEGER;
        e->logical.bit_width = type.id == TN_TYPE_TINYINT ? 8 : 16;
        e->logical.is_signed = true;
        break;
    case TN_TYPE_DECIMAL:
        e->converted_type = PQ_CT_DECIMAL;
        e->scale = type.scale;
        e->precision = type.precision;
        e->logical.kind = PQ_LT_DECIMAL;
        e->logical.scale = type.scale;
        e->logical.precision = type.precision;
        break;
    case TN_TYPE_VARCHAR:
        e->converted_type = PQ_CT_UTF8;
        e->logical.kind = PQ_LT_STRING;
        break;
    case TN_TYPE_DATE:
        e->converted_type = PQ_CT_DATE;
        e->logical.kind = PQ_LT_DATE;
        break;
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        e->converted_type = PQ_CT_TIMESTAMP_MICROS;
        e->logical.kind = PQ_LT_TIMESTAMP;
        e->logical.adjusted_to_utc = type.id == TN_TYPE_TIMESTAMP_TZ;
        e->logical.unit = PQ_UNIT_MICROS;
        break;
    default:
        break;
    }
}

static void group_element(const char *name, int repetition, int32_t nchildren, int ct, int lt,
                          int32_t field_id, pq_schema_element *e) {
    memset(e, 0, sizeof *e);
    e->type = -1;
    e->type_length = -1;
    e->repetition = repetition;
    e->name = (char *)name;
    e->num_children = nchildren;
    e->converted_type = ct;
    e->scale = e->precision = -1;
    e->field_id = field_id >= 0 ? field_id : -1;
    e->logical.kind = lt;
}

typedef struct build_state {
    tn_arena *meta;
    const pqw_config *cfg;
    pqw_schema *s;
    uint32_t elems_cap, cols_cap, choice_cap;
    const char *path[2 * TN_TYPE_MAX_DEPTH + 2];
    uint32_t choice[TN_TYPE_MAX_DEPTH + 1];
    uint32_t nchoice;
} build_state;

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem) {
    if (need <= *cap) return 0;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *np = tn_realloc(*p, (size_t)ncap * elem);
    if (!np) return TN_ENOMEM;
    *p = np;
    *cap = ncap;
    return 0;
}

static int add_elem(build_state *b, pq_schema_element **out) {
    int rc = grow((void **)&b->s->elems, &b->elems_cap, b->s->nelems + 1, sizeof *b->s->elems);
    if (rc) return rc;
    *out = &b->s->elems[b->s->nelems++];
    return 0;
}

/* Adds the elements of node `name` (type t, repetition rep) at path depth `depth`; def and
 * rep_level are the levels of its parent. */
static int build_node(build_state *b, const char *name, tn_type t, int rep, int32_t field_id,
                      uint32_t depth, uint32_t def, uint32_t rep_level) {
    pq_schema_element *e;
    int rc;
    b->path[depth] = name;
    if (rep == PQ_OPTIONAL) def++;
    if (!tn_type_is_nested(t)) {
        rc = grow((void **)&b->s->cols, &b->cols_cap, b->s->ncols + 1, sizeof *b->s->cols);
        if (!rc) rc = grow((void **)&b->s->choice, &b->choice_cap, b->s->ncols + 1, sizeof *b->s->choice);
        if (rc) return rc;
        uint32_t leaf = b->s->ncols;
        char **path = tn_arena_alloc(b->meta, (depth + 1) * sizeof *path);
        uint32_t *choice = tn_arena_alloc(b->meta, (b->nchoice + 1) * sizeof *choice);
        if (!path || !choice) return TN_ENOMEM;
        size_t namelen = 0;
        for (uint32_t i = 0; i <= depth; i++) {
            path[i] = (char *)b->path[i];
            namelen += strlen(b->path[i]) + 1;
        }
        char *dotted = tn_arena_alloc(b->meta, namelen);
        if (!dotted) return TN_ENOMEM;
        dotted[0] = 0;
        for (uint32_t i = 0; i <= depth; i++) {
            if (i) strcat(dotted, ".");
            strcat(dotted, b->path[i]);
        }
        memcpy(choice, b->choice, b->nchoice * sizeof *choice);
        tn_parquet_column_spec spec = {dotted, t, def > 0, -1};
        rc = pqw_col_init(&b->s->cols[leaf], &spec, b->cfg);
        if (rc) return rc;
        b->s->ncols++;
        pqw_col *c = &b->s->cols[leaf];
        c->max_def = def;
        c->max_rep = rep_level;
        c->path = path;
        c->npath = depth + 1;
        b->s->choice[leaf] = choice;
        rc = add_elem(b, &e);
        if (rc) return rc;
        leaf_element(name, t, rep, field_id, c, e);
        return 0;
    }
    if (depth + 3 >= 2 * TN_TYPE_MAX_DEPTH + 2)
        return tn_error_set(TN_ELIMIT, "column '%s': nested too deeply", b->path[0]);
    if (t.id == TN_TYPE_STRUCT) {
        rc = add_elem(b, &e);
        if (rc) return rc;
        group_element(name, rep, (int32_t)t.nested->nchildren, PQ_CT_NONE, PQ_LT_NONE, field_id, e);
        for (uint32_t i = 0; i < t.nested->nchildren; i++) {
            b->choice[b->nchoice++] = i;
            rc = build_node(b, t.nested->names[i], t.nested->children[i], PQ_OPTIONAL, -1, depth + 1, def, rep_level);
            b->nchoice--;
            if (rc) return rc;
        }
        return 0;
    }
    bool is_map = t.id == TN_TYPE_MAP;
    rc = add_elem(b, &e);
    if (rc) return rc;
    group_element(name, rep, 1, is_map ? PQ_CT_MAP : PQ_CT_LIST, is_map ? PQ_LT_MAP : PQ_LT_LIST, field_id, e);
    rc = add_elem(b, &e);
    if (rc) return rc;
    group_element(is_map ? "key_value" : "list", PQ_REPEATED, is_map ? 2 : 1, PQ_CT_NONE, PQ_LT_NONE, -1, e);
    b->path[depth + 1] = is_map ? "key_value" : "list";
    def++;
    rep_level++;
    if (!is_map) return build_node(b, "element", tn_type_element(t), PQ_OPTIONAL, -1, depth + 2, def, rep_level);
    for (uint32_t i = 0; i < 2; i++) {
        b->choice[b->nchoice++] = i;
        rc = build_node(b, i ? "value" : "key", i ? tn_type_map_value(t) : tn_type_map_key(t),
                        i ? PQ_OPTIONAL : PQ_REQUIRED, -1, depth + 2, def, rep_level);
        b->nchoice--;
        if (rc) return rc;
    }
    return 0;
}

int pqw_schema_build(pqw_schema *out, tn_arena *meta, const tn_parquet_column_spec *specs,
                     uint32_t nspecs, const pqw_config *cfg) {
    build_state b;
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof *out);
    b.meta = meta;
    b.cfg = cfg;
    b.s = out;
    out->spec_leaf0 = tn_arena_calloc(meta, (nspecs ? nspecs : 1) * sizeof(uint32_t));
    out->spec_nleaves = tn_arena_calloc(meta, (nspecs ? nspecs : 1) * sizeof(uint32_t));
    if (!out->spec_leaf0 || !out->spec_nleaves) return TN_ENOMEM;
    pq_schema_element *root;
    int rc = add_elem(&b, &root);
    if (rc) return rc;
    group_element("schema", -1, (int32_t)nspecs, PQ_CT_NONE, PQ_LT_NONE, -1, root);
    for (uint32_t i = 0; i < nspecs; i++) {
        out->spec_leaf0[i] = out->ncols;
        rc = build_node(&b, specs[i].name, specs[i].type, specs[i].nullable ? PQ_OPTIONAL : PQ_REQUIRED,
                        specs[i].field_id, 0, 0, 0);
        if (rc) return tn_error_prefix(rc, "column '%s'", specs[i].name);
        out->spec_nleaves[i] = out->ncols - out->spec_leaf0[i];
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Shredding. An entry is (idx, def, rep): idx the row of the current node's vector, or
 * PQW_NONE when the value ended above (then def is the level it reached).
 */
void pqw_shred_free(pqw_shred *sh) {
    for (int i = 0; i < 2; i++) { tn_free(sh->idx[i]); tn_free(sh->def[i]); tn_free(sh->rep[i]); }
    tn_free(sh->sel);
    memset(sh, 0, sizeof *sh);
}

static int shred_reserve(pqw_shred *sh, int b, uint64_t need) {
    if (need <= sh->cap[b]) return 0;
    if (need > UINT32_MAX / 2) return tn_error_set(TN_ELIMIT, "too many nested values in one batch");
    uint32_t cap = sh->cap[b] ? sh->cap[b] : 1024;
    while (cap < need) cap *= 2;
    uint32_t *a = tn_realloc(sh->idx[b], (size_t)cap * 4);
    if (a) sh->idx[b] = a;
    uint32_t *d = a ? tn_realloc(sh->def[b], (size_t)cap * 4) : NULL;
    if (d) sh->def[b] = d;
    uint32_t *r = d ? tn_realloc(sh->rep[b], (size_t)cap * 4) : NULL;
    if (!r) return TN_ENOMEM;
    sh->rep[b] = r;
    sh->cap[b] = cap;
    return 0;
}

int pqw_shred_leaf(pqw_shred *sh, const pqw_schema *schema, uint32_t leaf, pqw_scratch *s,
                   const tn_parquet_column_spec *spec, const tn_vector *v, uint32_t row0, uint32_t n) {
    pqw_col *c = &schema->cols[leaf];
    const uint32_t *choice = schema->choice[leaf];
    uint32_t nc = 0, cur = 0, cnt = n, def = 0, rl = 0;
    int rc = shred_reserve(sh, 0, n);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) { sh->idx[0][i] = row0 + i; sh->def[0][i] = 0; sh->rep[0][i] = 0; }
    tn_type t = spec->type;
    bool nullable = spec->nullable, key = false;
    const tn_vector *vec = v;
    for (;;) {
        uint32_t *idx = sh->idx[cur], *dv = sh->def[cur];
        if (nullable) {
            for (uint32_t i = 0; i < cnt; i++)
                if (idx[i] != PQW_NONE && !tn_vector_is_valid(vec, idx[i])) { idx[i] = PQW_NONE; dv[i] = def; }
            def++;
        } else if (key) {
            for (uint32_t i = 0; i < cnt; i++)
                if (idx[i] != PQW_NONE && !tn_vector_is_valid(vec, idx[i]))
                    return tn_error_set(TN_EINVAL, "column '%s': a MAP key is NULL", spec->name);
        }
        if (!tn_type_is_nested(t)) break;
        if (t.id == TN_TYPE_STRUCT) {
            uint32_t k = choice[nc++];
            vec = &vec->children[k];
            t = t.nested->children[k];
            nullable = true;
            continue;
        }
        /* LIST / MAP: one entry per element */
        const tn_list_entry *le = vec->data;
        uint64_t total = 0;
        for (uint32_t i = 0; i < cnt; i++) total += idx[i] == PQW_NONE || le[idx[i]].length == 0 ? 1 : le[idx[i]].length;
        int o = 1 - cur;
        rc = shred_reserve(sh, o, total);
        if (rc) return rc;
        idx = sh->idx[cur]; dv = sh->def[cur];
        uint32_t *rv = sh->rep[cur], *ni = sh->idx[o], *nd = sh->def[o], *nr = sh->rep[o], m = 0;
        rl++;
        for (uint32_t i = 0; i < cnt; i++) {
            if (idx[i] == PQW_NONE || le[idx[i]].length == 0) {
                ni[m] = PQW_NONE;
                nd[m] = idx[i] == PQW_NONE ? dv[i] : def;
                nr[m++] = rv[i];
                continue;
            }
            tn_list_entry e = le[idx[i]];
            if ((uint64_t)e.offset + e.length > vec->children[0].count)
                return tn_error_set(TN_EINTERNAL, "column '%s': list entry past its elements", spec->name);
            for (uint32_t j = 0; j < e.length; j++) {
                ni[m] = e.offset + j;
                nd[m] = 0;
                nr[m++] = j ? rl : rv[i];
            }
        }
        cur = o;
        cnt = m;
        def++;
        vec = &vec->children[0];
        if (t.id == TN_TYPE_LIST) {
            t = tn_type_element(t);
            nullable = true;
            key = false;
        } else {
            uint32_t k = choice[nc++];
            t = vec->type.nested->children[k];
            vec = &vec->children[k];
            nullable = k == 1;
            key = k == 0;
        }
    }
    if (def != c->max_def || rl != c->max_rep)
        return tn_error_set(TN_EINTERNAL, "column '%s': levels do not match the schema", c->name);
    uint32_t *idx = sh->idx[cur], *dv = sh->def[cur], nv = 0;
    if (cnt > sh->sel_cap) {
        uint32_t *ns = tn_realloc(sh->sel, (size_t)cnt * 4);
        if (!ns) return TN_ENOMEM;
        sh->sel = ns;
        sh->sel_cap = cnt;
    }
    for (uint32_t i = 0; i < cnt; i++) {
        if (idx[i] == PQW_NONE) continue;
        dv[i] = def;
        sh->sel[nv++] = idx[i];
    }
    return pqw_col_append_levels(c, s, dv, sh->rep[cur], cnt, vec, sh->sel, nv);
}
