/*
 * tests/unit/test_nested.c: unit tests of the nested types of types/ (LIST, STRUCT, MAP):
 * interning and DuckDB's type names, vectors built by hand as a Parquet reader would (offsets,
 * child vectors, validity at each level), gather/append/copy, the order and the text. Every
 * expected string comes from the DuckDB oracle (tests/oracle/duckdb "SELECT x::VARCHAR",
 * "SELECT typeof(x)", DuckDB v1.5.6), not from tarn.
 */
#include "types/types.h"
#include "testlib.h"

#include <string.h>

static const char *fmt_row(tn_buf *b, const tn_vector *v, uint32_t row) {
    tn_buf_clear(b);
    int rc = tn_value_format(b, v, row);
    if (rc == 1) return "NULL";
    if (rc < 0) return "ERROR";
    tn_buf_append_byte(b, 0);
    return (const char *)b->data;
}

static tn_type T(tn_type_id id) { return tn_type_make(id); }

static const char *type_name(tn_buf *b, tn_type t) {
    tn_buf_clear(b);
    if (tn_type_append_name(b, t)) return "ERROR";
    tn_buf_append_byte(b, 0);
    return (const char *)b->data;
}

TEST(nested_type_names_and_interning) {
    tn_buf b = TN_BUF_INIT;
    tn_type li, li2, lli, st, mp, st_q;
    CHECK_OK(tn_type_list(&li, T(TN_TYPE_INTEGER)));
    CHECK_OK(tn_type_list(&li2, T(TN_TYPE_INTEGER)));
    CHECK(tn_type_equal(li, li2));
    CHECK(li.nested == li2.nested);
    CHECK_OK(tn_type_list(&lli, li));
    CHECK(!tn_type_equal(li, lli));
    CHECK_EQ_STR(type_name(&b, lli), "INTEGER[][]");
    const char *names[2] = {"a", "b"};
    tn_type ft[2] = {T(TN_TYPE_INTEGER), li};
    CHECK_OK(tn_type_struct(&st, 2, names, ft));
    CHECK_EQ_STR(type_name(&b, st), "STRUCT(a INTEGER, b INTEGER[])");
    CHECK_EQ_INT(tn_type_struct_find(st, "B", 1), 1);
    CHECK_EQ_INT(tn_type_struct_find(st, "c", 1), -1);
    CHECK_OK(tn_type_map(&mp, T(TN_TYPE_VARCHAR), li));
    CHECK_EQ_STR(type_name(&b, mp), "MAP(VARCHAR, INTEGER[])");
    CHECK(tn_type_equal(tn_type_map_value(mp), li));
    const char *qn[4] = {"A", "1x", "select", "x\"y"};
    tn_type qt[4] = {T(TN_TYPE_INTEGER), T(TN_TYPE_INTEGER), T(TN_TYPE_INTEGER), T(TN_TYPE_INTEGER)};
    CHECK_OK(tn_type_struct(&st_q, 4, qn, qt));
    CHECK_EQ_STR(type_name(&b, st_q), "STRUCT(A INTEGER, \"1x\" INTEGER, \"select\" INTEGER, \"x\"\"y\" INTEGER)");
    char small[64];
    CHECK_EQ_STR(tn_type_format(st, small, sizeof small), "STRUCT(a INTEGER, b INTEGER[])");
    /* struct names are part of the type; duplicates (any case) and empty names refused */
    const char *other[2] = {"a", "c"}, *dup[2] = {"a", "A"};
    tn_type st2;
    CHECK_OK(tn_type_struct(&st2, 2, other, ft));
    CHECK(!tn_type_equal(st, st2));
    CHECK_EQ_INT(tn_type_struct(&st2, 2, dup, ft), TN_EINVAL);
    CHECK_EQ_INT(tn_type_struct(&st2, 0, dup, ft), TN_EINVAL);
    /* depth limit: an error, not a stack overflow */
    tn_type deep = T(TN_TYPE_INTEGER);
    int rc = 0, levels = 0;
    while (levels < 10000 && (rc = tn_type_list(&deep, deep)) == 0) levels++;
    CHECK_EQ_INT(rc, TN_ELIMIT);
    CHECK_EQ_INT(levels, TN_TYPE_MAX_DEPTH);
    tn_buf_free(&b);
}

/* Append one INTEGER element (or NULL) to a list vector's child. */
static void push_int(tn_vector *child, int32_t x, bool null) {
    if (child->count >= child->capacity) tn_vector_reserve(child, child->capacity * 2);
    if (null) tn_vector_set_null(child, child->count);
    else {
        ((int32_t *)child->data)[child->count] = x;
        if (child->validity) tn_vector_set_valid_bit(child, child->count, true);
    }
    child->count++;
}

/* rows: [1, 2, NULL], NULL, [], [NULL], [1], [1, 2], [2] */
static void build_int_lists(tn_vector *v) {
    tn_type li;
    tn_type_list(&li, T(TN_TYPE_INTEGER));
    tn_vector_init(v, li, 8);
    tn_list_entry *e = v->data;
    tn_vector *c = &v->children[0];
    e[0] = (tn_list_entry){0, 3};
    push_int(c, 1, false), push_int(c, 2, false), push_int(c, 0, true);
    tn_vector_set_null(v, 1);
    e[1] = (tn_list_entry){3, 0};
    e[2] = (tn_list_entry){3, 0};
    e[3] = (tn_list_entry){3, 1};
    push_int(c, 0, true);
    e[4] = (tn_list_entry){4, 1};
    push_int(c, 1, false);
    e[5] = (tn_list_entry){0, 2};   /* shares elements with row 0: entries may overlap */
    e[6] = (tn_list_entry){5, 1};
    push_int(c, 2, false);
    v->count = 7;
}

TEST(nested_list_text_gather_append_compare) {
    tn_buf b = TN_BUF_INIT;
    tn_vector v, g, a;
    build_int_lists(&v);
    static const char *want[7] = {"[1, 2, NULL]", "NULL", "[]", "[NULL]", "[1]", "[1, 2]", "[2]"};
    for (uint32_t i = 0; i < 7; i++) CHECK_EQ_STR(fmt_row(&b, &v, i), want[i]);
    /* gather compacts the elements: the copy no longer shares them */
    uint32_t sel[4] = {5, 1, 0, 3};
    CHECK_OK(tn_vector_init(&g, v.type, 2));
    CHECK_OK(tn_vector_gather(&g, &v, sel, 4));
    CHECK_EQ_INT(g.count, 4);
    CHECK_EQ_INT(g.children[0].count, 6);
    CHECK_EQ_STR(fmt_row(&b, &g, 0), "[1, 2]");
    CHECK_EQ_STR(fmt_row(&b, &g, 1), "NULL");
    CHECK_EQ_STR(fmt_row(&b, &g, 2), "[1, 2, NULL]");
    CHECK_EQ_STR(fmt_row(&b, &g, 3), "[NULL]");
    /* append twice, then append_from one row */
    CHECK_OK(tn_vector_init(&a, v.type, 1));
    CHECK_OK(tn_vector_append_rows(&a, &v, NULL, 7));
    CHECK_OK(tn_vector_append_rows(&a, &g, NULL, 4));
    CHECK_OK(tn_vector_append_from(&a, &v, 0));
    CHECK_EQ_INT(a.count, 12);
    for (uint32_t i = 0; i < 7; i++) CHECK_EQ_STR(fmt_row(&b, &a, i), want[i]);
    CHECK_EQ_STR(fmt_row(&b, &a, 9), "[1, 2, NULL]");
    CHECK_EQ_STR(fmt_row(&b, &a, 11), "[1, 2, NULL]");
    /* DuckDB's ORDER BY l: [] < [1] < [1, 2] < [1, NULL] < [2] < [NULL] */
    static const uint32_t order[6] = {2, 4, 5, 0, 6, 3};
    for (int i = 0; i + 1 < 6; i++) {
        tn_value x, y;
        tn_vector_get_value(&v, order[i], &x);
        tn_vector_get_value(&a, order[i + 1], &y);
        CHECK_MSG(tn_value_compare(&x, &y) < 0, "order %d", i);
    }
    tn_value x, y;
    tn_vector_get_value(&v, 0, &x);
    tn_vector_get_value(&a, 11, &y);
    CHECK_EQ_INT(tn_value_compare(&x, &y), 0);     /* [1, 2, NULL] = [1, 2, NULL] */
    /* set_value is a deep copy */
    CHECK_OK(tn_vector_set_value(&g, 1, &x));
    CHECK_EQ_STR(fmt_row(&b, &g, 1), "[1, 2, NULL]");
    tn_vector_free(&v);
    tn_vector_free(&g);
    tn_vector_free(&a);
    tn_buf_free(&b);
}

TEST(nested_struct_and_map_text) {
    tn_buf b = TN_BUF_INIT;
    tn_type ls, st, mp;
    CHECK_OK(tn_type_list(&ls, T(TN_TYPE_VARCHAR)));
    const char *names[3] = {"a", "it's", "l"};
    tn_type ft[3] = {T(TN_TYPE_INTEGER), T(TN_TYPE_VARCHAR), ls};
    CHECK_OK(tn_type_struct(&st, 3, names, ft));
    tn_vector s;
    CHECK_OK(tn_vector_init(&s, st, 2));
    ((int32_t *)s.children[0].data)[0] = 1;
    CHECK_OK(tn_vector_set_str(&s.children[1], 0, "a,b", 3));
    tn_vector *l = &s.children[2], *lc = &l->children[0];
    static const char *strs[6] = {"a b", "", "null", " x", "it's", "a\\,b"};
    for (uint32_t i = 0; i < 6; i++) {
        CHECK_OK(tn_vector_reserve(lc, i + 1));
        CHECK_OK(tn_vector_set_str(lc, i, strs[i], strlen(strs[i])));
    }
    lc->count = 6;
    ((tn_list_entry *)l->data)[0] = (tn_list_entry){0, 6};
    CHECK_OK(tn_vector_set_null(&s, 1));       /* a NULL struct: children NULL too */
    s.count = 2;
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(s.children[i].count, 2);
    CHECK(!tn_vector_is_valid(&s.children[0], 1));
    CHECK_EQ_STR(fmt_row(&b, &s, 0), "{'a': 1, 'it\\'s': 'a,b', 'l': [a b, '', 'null', ' x', 'it\\'s', 'a\\\\,b']}");
    CHECK_EQ_STR(fmt_row(&b, &s, 1), "NULL");
    /* gather / append of structs keep children aligned */
    tn_vector g;
    uint32_t sel[3] = {1, 0, 0};
    CHECK_OK(tn_vector_init(&g, st, 1));
    CHECK_OK(tn_vector_append_rows(&g, &s, sel, 3));
    CHECK_EQ_INT(g.count, 3);
    CHECK_EQ_INT(g.children[1].count, 3);
    CHECK_EQ_STR(fmt_row(&b, &g, 0), "NULL");
    CHECK_EQ_STR(fmt_row(&b, &g, 2), "{'a': 1, 'it\\'s': 'a,b', 'l': [a b, '', 'null', ' x', 'it\\'s', 'a\\\\,b']}");
    tn_value x, y;
    tn_vector_get_value(&g, 2, &x);
    tn_vector_get_value(&s, 0, &y);
    CHECK_EQ_INT(tn_value_compare(&x, &y), 0);
    /* MAP(VARCHAR, INTEGER): {k=1, 'a=b'=NULL}, {} */
    CHECK_OK(tn_type_map(&mp, T(TN_TYPE_VARCHAR), T(TN_TYPE_INTEGER)));
    tn_vector m;
    CHECK_OK(tn_vector_init(&m, mp, 2));
    tn_vector *ent = &m.children[0];
    CHECK_OK(tn_vector_set_str(&ent->children[0], 0, "k", 1));
    ((int32_t *)ent->children[1].data)[0] = 1;
    CHECK_OK(tn_vector_set_str(&ent->children[0], 1, "a=b", 3));
    CHECK_OK(tn_vector_set_null(&ent->children[1], 1));
    ent->count = ent->children[0].count = ent->children[1].count = 2;
    ((tn_list_entry *)m.data)[0] = (tn_list_entry){0, 2};
    ((tn_list_entry *)m.data)[1] = (tn_list_entry){2, 0};
    m.count = 2;
    CHECK_EQ_STR(fmt_row(&b, &m, 0), "{k=1, 'a=b'=NULL}");
    CHECK_EQ_STR(fmt_row(&b, &m, 1), "{}");
    tn_vector_reset(&m);
    CHECK_EQ_INT(m.children[0].count, 0);
    tn_vector_free(&m);
    tn_vector_free(&g);
    tn_vector_free(&s);
    tn_buf_free(&b);
}

/* tn_vector_swap_widen: a STRUCT(a, b VARCHAR, n STRUCT(x, y)) read as STRUCT(a, n STRUCT(y))
 * is handed on in the full type, the fields not read NULL; text as DuckDB spells
 * {'a': 7, 'b': NULL::VARCHAR, 'n': {'x': NULL::INTEGER, 'y': 'q'}}::VARCHAR. */
TEST(nested_swap_widen) {
    tn_buf b = TN_BUF_INIT;
    tn_type nt, nyt, full, part;
    const char *nn[2] = {"x", "y"};
    tn_type ntt[2] = {T(TN_TYPE_INTEGER), T(TN_TYPE_VARCHAR)};
    CHECK_OK(tn_type_struct(&nt, 2, nn, ntt));
    CHECK_OK(tn_type_struct(&nyt, 1, nn + 1, ntt + 1));
    const char *fnames[3] = {"a", "b", "n"}, *pnames[2] = {"a", "n"};
    tn_type ft[3] = {T(TN_TYPE_INTEGER), T(TN_TYPE_VARCHAR), nt}, pt[2] = {T(TN_TYPE_INTEGER), nyt};
    CHECK_OK(tn_type_struct(&full, 3, fnames, ft));
    CHECK_OK(tn_type_struct(&part, 2, pnames, pt));
    tn_vector f, p;
    CHECK_OK(tn_vector_init(&f, full, 4));
    CHECK_OK(tn_vector_init(&p, part, 4));
    for (uint32_t round = 0; round < 2; round++) {     /* twice: the swapped buffers are reused */
        tn_vector_reset(&p);
        ((int32_t *)p.children[0].data)[0] = 7;
        CHECK_OK(tn_vector_set_str(&p.children[1].children[0], 0, "q", 1));
        CHECK_OK(tn_vector_set_null(&p, 1));
        p.count = p.children[0].count = p.children[1].count = p.children[1].children[0].count = 2;
        CHECK_OK(tn_vector_swap_widen(&f, &p, 2));
        CHECK_EQ_INT(f.count, 2);
        CHECK_EQ_STR(fmt_row(&b, &f, 0), "{'a': 7, 'b': NULL, 'n': {'x': NULL, 'y': q}}");
        CHECK_EQ_STR(fmt_row(&b, &f, 1), "NULL");
        CHECK(!tn_vector_is_valid(&f.children[1], 0));
        CHECK(!tn_vector_is_valid(&f.children[2].children[0], 0));
    }
    tn_vector_free(&p);
    tn_vector_free(&f);
    tn_buf_free(&b);
}

TEST_MAIN()
