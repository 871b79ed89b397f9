/*
 * tests/unit/test_parquet_nested.c: parquet/nested.c: the logical tree of every golden nested
 * file's columns (three-level, legacy two-level and unannotated lists, maps), and record
 * assembly from repetition/definition levels: the levels each golden file stores (written out
 * by hand below, as the Dremel encoding of the file's values) assembled and rendered in
 * DuckDB's text must give exactly DuckDB's reading of the file (expected_duckdb/<file>/data.csv,
 * DuckDB 1.5.6). Corrupt levels and impossible schemas fail with a message saying what is wrong.
 */
#include "parquet/nestedInt.h"
#include "parquet/scanInt.h"
#include "testlib.h"

#include <stdarg.h>
#include <strings.h>
#include <unistd.h>

#define gpath tn_test_parquet_path

static tn_parquet_file *open_meta(const char *rel) {
    tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
    o.metadata_only = true;
    tn_parquet_file *f = NULL;
    if (tn_parquet_open(&f, NULL, gpath("%s", rel), &o) != 0) return NULL;
    return f;
}

/* Top-level schema elements of f, in order. */
static uint32_t top_elements(tn_parquet_file *f, uint32_t *out, uint32_t max) {
    const pq_file_meta *m = pq_rd_meta(f);
    uint32_t n = 0;
    for (uint32_t i = 1; i < m->nschema && n < max; i++)
        if (pq_rd_node_at(f, i)->parent == 0) out[n++] = i;
    return n;
}

static int build(tn_parquet_file *f, tn_arena *a, uint32_t element, pq_nest **out) {
    const pq_file_meta *m = pq_rd_meta(f);
    return pq_nest_build(out, a, m->schema, pq_rd_node_at(f, 0), m->nschema, element,
                         tn_parquet_path(f));
}

static const char *g_nested_files[] = {
    "data/nulls.snappy.parquet", "data/large_string_map.brotli.parquet",
    "data/nested_lists.snappy.parquet", "data/nested_maps.snappy.parquet",
    "data/nested_structs.rust.parquet", "data/list_columns.parquet", "data/null_list.parquet",
    "data/old_list_structure.parquet", "data/repeated_no_annotation.parquet",
    "data/repeated_primitive_no_list.parquet", "data/map_no_value.parquet",
    "data/incorrect_map_schema.parquet", "data/nonnullable.impala.parquet",
    "data/nullable.impala.parquet", "data/datapage_v2.snappy.parquet",
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet", "bad_data/ARROW-GH-45185.parquet",
};

/* Every leaf of every golden nested file is reached by its column's tree, and the tree's
 * levels at the leaf are the schema's (max def, max rep). map_no_value's key-only map is
 * refused, as DuckDB refuses it. */
TEST(tree_of_every_golden_file) {
    for (size_t fi = 0; fi < sizeof g_nested_files / sizeof g_nested_files[0]; fi++) {
        tn_parquet_file *f = open_meta(g_nested_files[fi]);
        CHECK_MSG(f, "%s: %s", g_nested_files[fi], tn_error_message());
        tn_arena *a = tn_arena_create(0);
        uint32_t tops[64], nt = top_elements(f, tops, 64);
        const pq_file_meta *m = pq_rd_meta(f);
        uint32_t leaves_seen = 0;
        bool refused = false;
        for (uint32_t t = 0; t < nt; t++) {
            pq_nest *tree = NULL;
            int rc = build(f, a, tops[t], &tree);
            if (strstr(g_nested_files[fi], "map_no_value") && strcmp(m->schema[tops[t]].name, "my_map_no_v") == 0) {
                CHECK_MSG(rc == TN_EUNSUPPORTED && strstr(tn_error_message(), "column 'my_map_no_v'") &&
                          strstr(tn_error_message(), "a key and a value are required"), "%s", tn_error_message());
                refused = true;
                for (uint32_t i = tops[t] + 1; i < m->nschema && pq_rd_node_at(f, i)->depth > 1; i++)
                    if (pq_rd_node_at(f, i)->leaf >= 0) leaves_seen++;
                continue;
            }
            CHECK_MSG(rc == 0, "%s: %s", g_nested_files[fi], tn_error_message());
            for (uint32_t i = tops[t]; i < m->nschema && (i == tops[t] || pq_rd_node_at(f, i)->depth > 1); i++) {
                const pq_rd_node *nd = pq_rd_node_at(f, i);
                if (nd->leaf < 0) continue;
                const pq_nest *path[PQ_MAX_SCHEMA_DEPTH + 1];
                uint32_t depth = 0;
                CHECK_MSG(pq_nest_path(tree, nd->leaf, path, &depth), "%s: leaf %d not under '%s'",
                          g_nested_files[fi], nd->leaf, m->schema[tops[t]].name);
                CHECK_EQ_INT(path[depth - 1]->def, nd->def);
                CHECK_EQ_INT(path[depth - 1]->slot_rep, nd->rep);
                leaves_seen++;
            }
        }
        CHECK_MSG(leaves_seen == tn_parquet_num_columns(f), "%s: %u of %u leaves",
                  g_nested_files[fi], leaves_seen, tn_parquet_num_columns(f));
        CHECK(refused == (strstr(g_nested_files[fi], "map_no_value") != NULL));
        tn_arena_destroy(a);
        tn_parquet_close(f);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Assembly rendered in DuckDB's text. A leaf's data is written "r:d r:d ..." (one pair per
 * level) and its non-NULL values "v|v|...", in file order.
 */
#define MAXL 8
typedef struct colasm {
    const pq_nest *top;
    uint32_t first_leaf, nleaves;
    pq_asm asms[MAXL];
    char **vals[MAXL];
} colasm;

static uint32_t parse_levels(const char *s, uint32_t *rep, uint32_t *def, uint32_t max) {
    uint32_t n = 0;
    while (*s && n < max) {
        char *e;
        rep[n] = (uint32_t)strtoul(s, &e, 10);
        def[n] = (uint32_t)strtoul(e + 1, &e, 10);
        n++;
        while (*e == ' ') e++;
        s = e;
    }
    return n;
}

static bool bit(const uint64_t *v, uint32_t i) { return (v[i >> 6] >> (i & 63)) & 1; }

static const pq_nest *first_prim(const pq_nest *n) {
    while (n->kind != PQ_NEST_PRIM) n = n->children[0];
    return n;
}

static void append(char *out, size_t cap, const char *s) {
    size_t l = strlen(out);
    snprintf(out + l, cap - l, "%s", s);
}

/* Renders node (at path depth k) slot j as DuckDB's ::VARCHAR does. */
static void render(const colasm *c, const pq_nest *n, uint32_t k, uint32_t j, char *out, size_t cap) {
    uint32_t li = (uint32_t)first_prim(n)->leaf - c->first_leaf;
    const pq_asm_level *L = &c->asms[li].levels[k];
    if (!bit(L->valid, j)) { append(out, cap, "NULL"); return; }
    switch (n->kind) {
    case PQ_NEST_PRIM: {
        uint32_t idx = 0;
        for (uint32_t q = 0; q < j; q++) idx += bit(L->valid, q);
        append(out, cap, c->vals[li][idx]);
        return;
    }
    case PQ_NEST_STRUCT:
        append(out, cap, "{");
        for (uint32_t f = 0; f < n->nchildren; f++) {
            char name[128];
            snprintf(name, sizeof name, "%s'%s': ", f ? ", " : "", n->children[f]->name);
            append(out, cap, name);
            render(c, n->children[f], k + 1, j, out, cap);
        }
        append(out, cap, "}");
        return;
    case PQ_NEST_LIST:
        append(out, cap, "[");
        for (uint32_t e = L->offsets[j]; e < L->offsets[j + 1]; e++) {
            if (e > L->offsets[j]) append(out, cap, ", ");
            render(c, n->children[0], k + 1, e, out, cap);
        }
        append(out, cap, "]");
        return;
    default: {                               /* MAP: {k=v, ...} */
        const pq_nest *entry = n->children[0];
        append(out, cap, "{");
        for (uint32_t e = L->offsets[j]; e < L->offsets[j + 1]; e++) {
            if (e > L->offsets[j]) append(out, cap, ", ");
            render(c, entry->children[0], k + 2, e, out, cap);
            append(out, cap, "=");
            render(c, entry->children[1], k + 2, e, out, cap);
        }
        append(out, cap, "}");
        return;
    }
    }
}

/* A CSV field as the expected files spell it: NULL empty, quoted when it holds , " or \n. */
static void csv_field(const char *v, bool is_null, char *out, size_t cap) {
    if (is_null) return;
    if (!strpbrk(v, ",\"\n") && *v) { append(out, cap, v); return; }
    append(out, cap, "\"");
    for (const char *p = v; *p; p++) {
        char ch[3] = {*p, *p == '"' ? '"' : 0, 0};
        append(out, cap, ch);
    }
    append(out, cap, "\"");
}

/* A string inside a nested value as DuckDB's ::VARCHAR spells it: quoted ('..', with \' and
 * \\) when empty, NULL-like, padded, or holding one of , ' " [ ] { } ( ) : = \ (checked against
 * the oracle: ['a b', 'x,y', '', 'it''s', 'null', ' lead', 'a=b', 'k:v']::VARCHAR). */
static char *quote_nested(tn_arena *a, const char *s, size_t n) {
    bool q = n == 0 || s[0] == ' ' || s[n - 1] == ' ' || (n == 4 && strncasecmp(s, "null", 4) == 0);
    for (size_t i = 0; i < n && !q; i++) q = strchr(",'\"[]{}():=\\", s[i]) && s[i];
    if (!q) return tn_arena_strndup(a, s, n);
    char *o = tn_arena_alloc(a, 2 * n + 3);
    size_t k = 0;
    o[k++] = '\'';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'' || s[i] == '\\') o[k++] = '\\';
        o[k++] = s[i];
    }
    o[k++] = '\'';
    o[k] = 0;
    return o;
}

/* The text of a reader's dense values (DuckDB's spelling), in the arena. */
static char **value_texts(const colreader *cr, tn_arena *a) {
    char **out = tn_arena_alloc(a, sizeof *out * (cr->nvals ? cr->nvals : 1));
    tn_vector v = {.type = cr->type, .count = cr->nvals, .capacity = cr->nvals, .data = cr->nvals_buf.p};
    tn_buf b = {0};
    for (uint32_t i = 0; out && i < cr->nvals; i++) {
        tn_value val;
        tn_vector_get_value(&v, i, &val);
        tn_buf_clear(&b);
        if (tn_value_to_text(&b, &val) != 0) { out = NULL; break; }
        size_t len = b.len;
        /* a converted-only TIMESTAMP_MICROS is TIMESTAMPTZ to tarn (LogicalTypes.md: adjusted to
         * UTC), TIMESTAMP to DuckDB: the same instant, spelled without the zone by DuckDB */
        if (cr->type.id == TN_TYPE_TIMESTAMP_TZ && cr->elem->logical.kind == PQ_LT_NONE && len > 3 &&
            memcmp((const char *)b.data + len - 3, "+00", 3) == 0)
            len -= 3;
        out[i] = quote_nested(a, b.len ? (const char *)b.data : "", len);
    }
    tn_buf_free(&b);
    return out;
}

/* A flat leaf of a nested file: its n rows by the flat scan, as definition levels and texts. */
static int flat_leaf(tn_parquet_scan *scan, colreader *cr, uint32_t n, tn_arena *a, uint32_t *def,
                     char ***texts, uint32_t *nv) {
    tn_vector v;
    int rc = tn_vector_init(&v, cr->type, n ? n : 1);
    if (rc) return rc;
    rc = pq_sc_fill_column(scan, cr, 0, n, &v);
    v.count = n;
    *texts = tn_arena_alloc(a, sizeof(char *) * (n ? n : 1));
    *nv = 0;
    tn_buf b = {0};
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        def[i] = tn_vector_is_valid(&v, i);
        if (!def[i]) continue;
        tn_value val;
        tn_vector_get_value(&v, i, &val);
        tn_buf_clear(&b);
        rc = tn_value_to_text(&b, &val);
        (*texts)[(*nv)++] = tn_arena_strndup(a, b.len ? (const char *)b.data : "", b.len);
    }
    tn_buf_free(&b);
    tn_vector_free(&v);
    return rc;
}

/* Assembles every column of file `rel` and compares the rendered rows with DuckDB's data.csv,
 * line by line. levels/values NULL: the file's own levels and values, read by the scan, row
 * group by row group; else levels[leaf] / values[leaf] (leaf = file column, one row group). */
static int check_file(const char *rel, const char *const *levels, const char *const *values,
                      char *err, size_t errcap) {
    tn_parquet_file *f = open_meta(rel);
    if (!f) { snprintf(err, errcap, "open: %s", tn_error_message()); return -1; }
    tn_arena *a = tn_arena_create(0);
    uint32_t tops[64], nt = top_elements(f, tops, 64);
    static colasm cols[64];
    int rc = -1;
    FILE *fp = NULL;
    tn_parquet_scan *scan = NULL;
    uint32_t ncols = tn_parquet_num_columns(f), all[512];
    for (uint32_t i = 0; i < ncols && i < 512; i++) all[i] = i;
    if (!levels) {
        tn_parquet_scan_options o = {.columns = all, .ncolumns = ncols};
        if (pq_sc_open(&scan, f, &o)) { snprintf(err, errcap, "scan: %s", tn_error_message()); goto out; }
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/parquet/expected_duckdb/%s/data.csv", tn_test_data_dir(), rel);
    fp = fopen(path, "r");
    if (!fp) { snprintf(err, errcap, "no %s", path); goto out; }
    static char line[16384], want[16384];
    if (!fgets(want, sizeof want, fp)) want[0] = 0;             /* header */
    uint32_t nrg = levels ? 1 : tn_parquet_num_row_groups(f);
    for (uint32_t rg = 0; rg < nrg; rg++) {
        if (scan && pq_sc_row_group_begin(scan, rg)) {
            snprintf(err, errcap, "row group %u: %s", rg, tn_error_message());
            goto out;
        }
        uint32_t nrows = 0;
        memset(cols, 0, sizeof cols);
        for (uint32_t t = 0; t < nt; t++) {
            pq_nest *tree = NULL;
            if (build(f, a, tops[t], &tree)) { snprintf(err, errcap, "build: %s", tn_error_message()); goto out; }
            colasm *c = &cols[t];
            c->top = tree;
            c->first_leaf = (uint32_t)first_prim(tree)->leaf;
            for (int32_t leaf = (int32_t)c->first_leaf; leaf < (int32_t)ncols; leaf++) {
                const pq_nest *path_[PQ_MAX_SCHEMA_DEPTH + 1];
                uint32_t depth;
                if (!pq_nest_path(tree, leaf, path_, &depth)) break;
                uint32_t li = c->nleaves++;
                if (li >= MAXL) { snprintf(err, errcap, "too many leaves"); goto out; }
                static uint32_t rep_[512], def_[512];
                const uint32_t *rep = rep_, *def = def_;
                uint32_t n, nv = 0;
                if (levels) {
                    n = parse_levels(levels[leaf], rep_, def_, 512);
                    char *vs = tn_arena_strdup(a, values[leaf]);
                    c->vals[li] = tn_arena_alloc(a, sizeof(char *) * 64);
                    for (char *tok = vs; tok && *vs && nv < 64; nv++) {
                        char *bar = strchr(tok, '|');
                        if (bar) *bar = 0;
                        c->vals[li][nv] = tok;
                        tok = bar ? bar + 1 : NULL;
                    }
                } else {
                    const colreader *cr = &scan->cols[leaf];
                    n = cr->nested ? cr->nlev : (uint32_t)scan->rg_rows;
                    rep = cr->rep;
                    def = cr->def;
                    if (!cr->nested) {          /* flat: read as vectors, levels made from them */
                        if (n > 512 || flat_leaf(scan, &scan->cols[leaf], n, a, def_, &c->vals[li], &nv)) {
                            snprintf(err, errcap, "leaf %d: %s", leaf, tn_error_message());
                            goto out;
                        }
                        rep = NULL;
                        def = cr->max_def ? def_ : NULL;
                    } else {
                        c->vals[li] = value_texts(cr, a);
                        nv = cr->nvals;
                    }
                }
                if (pq_levels_assemble(&c->asms[li], a, path_, depth, rep, def, n)) {
                    snprintf(err, errcap, "row group %u, leaf %d: %s", rg, leaf, tn_error_message());
                    goto out;
                }
                if (nv != c->asms[li].nvalues) {
                    snprintf(err, errcap, "leaf %d: %u values given, levels say %u", leaf, nv, c->asms[li].nvalues);
                    goto out;
                }
                if (t == 0 && li == 0) nrows = c->asms[li].nrows;
                if (c->asms[li].nrows != nrows) { snprintf(err, errcap, "leaf %d: %u rows", leaf, c->asms[li].nrows); goto out; }
            }
        }
        for (uint32_t r = 0; r < nrows; r++) {
            line[0] = 0;
            for (uint32_t t = 0; t < nt; t++) {
                const colasm *c = &cols[t];
                static char cell[16384];
                cell[0] = 0;
                bool is_null = !bit(c->asms[(uint32_t)first_prim(c->top)->leaf - c->first_leaf].levels[0].valid, r);
                if (!is_null) render(c, c->top, 0, r, cell, sizeof cell);
                if (t) append(line, sizeof line, ",");
                csv_field(cell, is_null, line, sizeof line);
            }
            if (!fgets(want, sizeof want, fp)) { snprintf(err, errcap, "data.csv ends at row %u", r); goto out; }
            want[strcspn(want, "\r\n")] = 0;
            if (strcmp(line, want) != 0) {
                size_t at = 0;
                while (line[at] && line[at] == want[at]) at++;
                size_t from = at > 60 ? at - 60 : 0;
                snprintf(err, errcap, "row group %u, row %u, byte %zu: got  ...%.120s\n      want ...%.120s",
                         rg, r, at, line + from, want + from);
                goto out;
            }
        }
    }
    if (fgets(want, sizeof want, fp)) { snprintf(err, errcap, "data.csv has more rows"); goto out; }
    rc = 0;
out:
    if (fp) fclose(fp);
    tn_parquet_scan_close(scan);
    tn_arena_destroy(a);
    tn_parquet_close(f);
    return rc;
}

#define CHECK_FILE(rel, levels, values)                                                      \
    do { char err_[1024];                                                                   \
         CHECK_MSG(check_file(rel, levels, values, err_, sizeof err_) == 0, "%s: %s", rel, err_); } while (0)

/* three-level lists of optional elements: [1, 2, 3] [NULL, 1] [4] | [abc, efg, hij] NULL [...] */
TEST(assemble_list_columns) {
    const char *levels[] = {"0:3 1:3 1:3 0:2 1:3 0:3", "0:3 1:3 1:3 0:0 0:3 1:2 1:3 1:3"};
    const char *values[] = {"1|2|3|1|4", "abc|efg|hij|efg|hij|xyz"};
    CHECK_FILE("data/list_columns.parquet", levels, values);
}

TEST(assemble_empty_list) {
    const char *levels[] = {"0:1"}, *values[] = {""};
    CHECK_FILE("data/null_list.parquet", levels, values);
}

/* legacy: `repeated group array (LIST) { repeated int32 array }` (rules 3 and 1) */
TEST(assemble_old_list_structure) {
    const char *levels[] = {"0:2 2:2 1:2 2:2"}, *values[] = {"1|2|3|4"};
    CHECK_FILE("data/old_list_structure.parquet", levels, values);
}

/* unannotated repeated group inside an optional struct: NULL, NULL, {'phone': []}, ... */
TEST(assemble_repeated_no_annotation) {
    const char *levels[] = {
        "0:0 0:0 0:0 0:0 0:0 0:0",
        "0:0 0:0 0:1 0:2 0:2 0:2 1:2 1:2",
        "0:0 0:0 0:1 0:2 0:3 0:3 1:2 1:3",
    };
    const char *values[] = {"1|2|3|4|5|6",
                            "5555555555|1111111111|1111111111|2222222222|3333333333",
                            "home|home|mobile"};
    CHECK_FILE("data/repeated_no_annotation.parquet", levels, values);
}

/* repeated primitives at the top and inside a required group: required lists, [] when d = 0 */
TEST(assemble_repeated_primitive_no_list) {
    const char *l1 = "0:1 1:1 1:1 1:1 0:0 0:1 0:1 1:1 1:1 1:1";
    const char *l2 = "0:1 1:1 1:1 1:1 0:1 0:1 0:1 1:1 1:1 1:1";
    const char *levels[] = {l1, l2, l1, l2};
    const char *v1 = "0|1|2|3|4|5|6|7|8", *v2 = "foo|zero|one|two|three|four|five|six|seven|eight";
    const char *values[] = {v1, v2, v1, v2};
    CHECK_FILE("data/repeated_primitive_no_list.parquet", levels, values);
}

/* MAP<STRING, MAP<INT32, BOOLEAN>>: {c=NULL} (value map NULL), {d={}} (empty inner map) */
TEST(assemble_nested_maps) {
    const char *inner = "0:4 2:4 0:4 0:2 0:3 0:4 0:4 2:4 2:4";
    const char *levels[] = {"0:2 0:2 0:2 0:2 0:2 0:2", inner, inner,
                            "0:0 0:0 0:0 0:0 0:0 0:0", "0:0 0:0 0:0 0:0 0:0 0:0"};
    const char *values[] = {"a|b|c|d|e|f", "1|2|1|1|3|4|5", "true|false|true|true|true|false|true",
                            "1|1|1|1|1|1", "1.0|1.0|1.0|1.0|1.0|1.0"};
    CHECK_FILE("data/nested_maps.snappy.parquet", levels, values);
}

/* LIST<LIST<LIST<STRING>>> with a NULL middle list: [[[a, b], [c]], [NULL, [d]]] */
TEST(assemble_nested_lists) {
    const char *levels[] = {"0:7 3:7 2:7 1:4 2:7 0:7 3:7 2:7 3:7 1:4 2:7 0:7 3:7 2:7 3:7 2:7 1:4 2:7",
                            "0:0 0:0 0:0"};
    const char *values[] = {"a|b|c|d|a|b|c|d|e|a|b|c|d|e|f", "1|1|1"};
    CHECK_FILE("data/nested_lists.snappy.parquet", levels, values);
}

/* an optional struct present in every row, its optional field NULL */
TEST(assemble_struct_of_nulls) {
    const char *levels[] = {"0:1 0:1 0:1 0:1 0:1 0:1 0:1 0:1"}, *values[] = {""};
    CHECK_FILE("data/nulls.snappy.parquet", levels, values);
}

/* Presto's map with an optional key (DuckDB reads it; so do we) */
TEST(assemble_incorrect_map_schema) {
    const char *levels[] = {"0:3 1:3", "0:3 1:3"}, *values[] = {"parent|name", "another|report"};
    CHECK_FILE("data/incorrect_map_schema.parquet", levels, values);
}

/* Every golden nested file DuckDB reads, decoded by the scan (pages, levels, values) and
 * assembled: DuckDB's values. Not here: map_no_value (DuckDB refuses it, so does the tree),
 * large_string_map.brotli (2 GiB of pages; its schema is in tree_of_every_golden_file). */
static const char *g_readable[] = {
    "data/nulls.snappy.parquet", "data/nested_lists.snappy.parquet",
    "data/nested_maps.snappy.parquet", "data/nested_structs.rust.parquet",
    "data/list_columns.parquet", "data/null_list.parquet", "data/old_list_structure.parquet",
    "data/repeated_no_annotation.parquet", "data/repeated_primitive_no_list.parquet",
    "data/incorrect_map_schema.parquet", "data/nonnullable.impala.parquet",
    "data/nullable.impala.parquet", "data/datapage_v2.snappy.parquet",
};
TEST(golden_files_read_to_duckdb_values) {
    for (size_t i = 0; i < sizeof g_readable / sizeof g_readable[0]; i++) CHECK_FILE(g_readable[i], NULL, NULL);
}

/* SELECT * of a golden nested file through the public scan (nested vectors, formatted as the
 * CLI formats them) against DuckDB's data.csv, line by line; filtered: through a row filter
 * that keeps every row (the filtered scan path), skipped when there is no required flat column. */
static int check_scan(const char *rel, bool filtered, char *err, size_t errcap) {
    tn_parquet_file *f = NULL;
    tn_parquet_scan *s = NULL;
    tn_chunk ch = {0};
    FILE *fp = NULL;
    int rc = -1;
    if (tn_parquet_open(&f, NULL, gpath("%s", rel), NULL)) { snprintf(err, errcap, "open: %s", tn_error_message()); goto out; }
    uint32_t nc = tn_parquet_num_columns(f), cols[64];
    tn_type types[64];
    for (uint32_t c = 0; c < nc; c++) { cols[c] = c; types[c] = tn_parquet_column(f, c)->type; }
    tn_parquet_scan_options o = {.columns = cols, .ncolumns = nc};
    if (tn_parquet_scan_open(&s, f, &o) || tn_chunk_init(&ch, nc, types, TN_VECTOR_SIZE)) {
        snprintf(err, errcap, "scan: %s", tn_error_message());
        goto out;
    }
    if (filtered) {                  /* IS NOT NULL on a required flat column: keeps every row */
        int32_t flat = -1;
        for (uint32_t c = 0; c < nc && flat < 0; c++)
            if (!tn_type_is_nested(types[c]) && !tn_parquet_column(f, c)->nullable) flat = (int32_t)c;
        if (flat < 0) { rc = 0; goto out; }
        tn_parquet_predicate p = {.column = (uint32_t)flat, .op = TN_PQ_IS_NOT_NULL};
        p.constant.type = types[flat];
        p.constant.is_null = true;
        tn_parquet_row_filter rf = {&p, 1, NULL, 0};
        if (tn_parquet_scan_set_filter(s, &rf)) { snprintf(err, errcap, "filter: %s", tn_error_message()); goto out; }
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/parquet/expected_duckdb/%s/data.csv", tn_test_data_dir(), rel);
    fp = fopen(path, "r");
    if (!fp) { snprintf(err, errcap, "no %s", path); goto out; }
    static char line[16384], want[16384];
    if (!fgets(want, sizeof want, fp)) want[0] = 0;
    tn_buf b = {0};
    uint32_t row = 0;
    for (;;) {
        if (tn_parquet_scan_next(s, &ch, NULL)) { snprintf(err, errcap, "row %u: %s", row, tn_error_message()); tn_buf_free(&b); goto out; }
        if (ch.count == 0) break;
        for (uint32_t r = 0; r < ch.count; r++, row++) {
            line[0] = 0;
            for (uint32_t c = 0; c < nc; c++) {
                tn_buf_clear(&b);
                bool is_null = !tn_vector_is_valid(&ch.cols[c], r);
                if (!is_null) (void)tn_value_format(&b, &ch.cols[c], r);
                tn_buf_append(&b, "", 1);
                if (c) append(line, sizeof line, ",");
                csv_field((const char *)b.data, is_null, line, sizeof line);
            }
            if (!fgets(want, sizeof want, fp)) { snprintf(err, errcap, "data.csv ends at row %u", row); tn_buf_free(&b); goto out; }
            want[strcspn(want, "\r\n")] = 0;
            if (strstr(rel, "nested_structs.rust")) {
                /* its converted-only TIMESTAMP_MICROS leaves are TIMESTAMPTZ to tarn
                 * (LogicalTypes.md: adjusted to UTC), TIMESTAMP to DuckDB: same instants */
                char *z;
                while ((z = strstr(line, "+00'"))) memmove(z, z + 3, strlen(z + 3) + 1);
            }
            if (strcmp(line, want) != 0) {
                size_t at = 0;
                while (line[at] && line[at] == want[at]) at++;
                size_t from = at > 60 ? at - 60 : 0;
                snprintf(err, errcap, "row %u, byte %zu: got  ...%.120s\n      want ...%.120s", row, at,
                         line + from, want + from);
                tn_buf_free(&b);
                goto out;
            }
        }
    }
    tn_buf_free(&b);
    if (fgets(want, sizeof want, fp)) { snprintf(err, errcap, "data.csv has more than %u rows", row); goto out; }
    rc = 0;
out:
    if (fp) fclose(fp);
    tn_chunk_free(&ch);
    tn_parquet_scan_close(s);
    tn_parquet_close(f);
    return rc;
}

/* SELECT * of every golden nested file DuckDB reads: DuckDB's values, plain and filtered. */
TEST(golden_files_select_star) {
    for (size_t i = 0; i < sizeof g_readable / sizeof g_readable[0]; i++)
        for (int filtered = 0; filtered < 2; filtered++) {
            char err[1024];
            CHECK_MSG(check_scan(g_readable[i], filtered, err, sizeof err) == 0, "%s%s: %s",
                      g_readable[i], filtered ? " (filtered)" : "", err);
        }
}

/* The golden files with corrupt levels (DuckDB reads both leniently, to values the files do
 * not hold): errors naming file, row group, column, page and what is wrong. */
TEST(golden_bad_levels) {
    static const struct { const char *file, *msg; } cases[] = {
        {"bad_data/ARROW-RS-GH-6229-LEVELS.parquet",         /* 21 values, 1 repetition level */
         "row group 0, column 'outer.list.item.c': page 1: repetition levels: after 1 of 21 values"},
        {"bad_data/ARROW-GH-45185.parquet",                   /* the first record starts at r=1 */
         "row group 0, column 'x.list.element': page 0: the first repetition level is 1, not 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024];
        CHECK_MSG(check_file(cases[i].file, NULL, NULL, err, sizeof err) != 0, "%s: read", cases[i].file);
        CHECK_MSG(strstr(err, cases[i].msg) && strstr(err, cases[i].file), "%s: %s", cases[i].file, err);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Bad levels.
 */
static int assemble_leaf(const char *rel, uint32_t leaf, const char *levels, tn_arena *a, pq_asm *out) {
    tn_parquet_file *f = open_meta(rel);
    if (!f) return -100;
    uint32_t tops[64], nt = top_elements(f, tops, 64);
    int rc = -101;
    for (uint32_t t = 0; t < nt; t++) {
        pq_nest *tree;
        const pq_nest *path[PQ_MAX_SCHEMA_DEPTH + 1];
        uint32_t depth;
        if (build(f, a, tops[t], &tree) || !pq_nest_path(tree, (int32_t)leaf, path, &depth)) continue;
        uint32_t rep[64], def[64];
        uint32_t n = parse_levels(levels, rep, def, 64);
        rc = pq_levels_assemble(out, a, path, depth, rep, def, n);
        break;
    }
    tn_parquet_close(f);
    return rc;
}

TEST(assemble_bad_levels) {
    static const struct { const char *levels, *msg; } cases[] = {
        {"1:3 0:3", "level pair 0: the first repetition level is 1, not 0"},      /* ARROW-GH-45185 */
        {"0:3 0:4", "level pair 1: definition level 4 exceeds the column's maximum 3"},
        {"0:3 2:3", "level pair 1: repetition level 2 exceeds the column's maximum 1"},
        {"0:1 1:3", "level pair 1: repetition level 1 continues a list that is empty or NULL"},
        {"0:0 1:3", "level pair 1: repetition level 1 continues a list that is empty or NULL"},
        {"0:3 1:1", "level pair 1: repetition level 1 adds an entry to a list but definition level 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tn_arena *a = tn_arena_create(0);
        pq_asm as;
        int rc = assemble_leaf("data/list_columns.parquet", 0, cases[i].levels, a, &as);
        tn_arena_destroy(a);
        CHECK_MSG(rc == TN_ECORRUPT && strstr(tn_error_message(), cases[i].msg), "'%s': rc %d: %s",
                  cases[i].levels, rc, tn_error_message());
    }
    /* a list inside a list: continuing the inner list of an empty outer entry */
    tn_arena *a = tn_arena_create(0);
    pq_asm as;
    int rc = assemble_leaf("data/old_list_structure.parquet", 0, "0:1 2:2", a, &as);
    tn_arena_destroy(a);
    CHECK_MSG(rc == TN_ECORRUPT && strstr(tn_error_message(), "continues a list that is empty or NULL (list level 2)"),
              "rc %d: %s", rc, tn_error_message());
}

/* A schema 10,000 groups deep: refused at open, naming the column, no recursion blow-up. */
TEST(deep_schema_refused) {
    enum { DEPTH = 10000 };
    pq_schema_element *se = calloc(DEPTH + 2, sizeof *se);
    char (*names)[16] = calloc(DEPTH + 2, 16);
    for (uint32_t i = 0; i <= DEPTH + 1; i++) {
        pq_schema_element *e = &se[i];
        e->type = -1; e->type_length = -1; e->repetition = i ? PQ_OPTIONAL : -1;
        e->converted_type = PQ_CT_NONE; e->scale = -1; e->precision = -1; e->field_id = -1;
        snprintf(names[i], 16, i ? "g%u" : "schema", i);
        e->name = names[i];
        e->num_children = 1;
    }
    se[DEPTH + 1].type = PQ_INT32;
    se[DEPTH + 1].num_children = 0;
    pq_file_meta m = {.version = 1, .schema = se, .nschema = DEPTH + 2};
    tn_buf b = {0};
    CHECK_OK(pq_encode_file_meta(&b, &m));
    char path[] = "/tmp/tarn_deep_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    uint8_t len[4] = {(uint8_t)b.len, (uint8_t)(b.len >> 8), (uint8_t)(b.len >> 16), (uint8_t)(b.len >> 24)};
    CHECK(write(fd, "PAR1", 4) == 4 && write(fd, b.data, b.len) == (ssize_t)b.len &&
          write(fd, len, 4) == 4 && write(fd, "PAR1", 4) == 4);
    close(fd);
    tn_buf_free(&b);
    for (int meta_only = 0; meta_only < 2; meta_only++) {
        tn_parquet_open_options o = TN_PARQUET_OPEN_OPTIONS_INIT;
        o.metadata_only = meta_only;
        tn_parquet_file *f = NULL;
        int rc = tn_parquet_open(&f, NULL, path, &o);
        tn_parquet_close(f);
        CHECK_MSG(rc != 0 && strstr(tn_error_message(), "column 'g"), "rc %d: %s", rc, tn_error_message());
    }
    unlink(path);
    free(se);
    free(names);
}

TEST_MAIN()
