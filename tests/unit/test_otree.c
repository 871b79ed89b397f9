/*
 * tests/unit/test_otree.c: the OTree model of layout/otree/ against qbeast-spark's own values:
 * Weight(fraction) checked values, the Spark Murmur3 weight against the golden table's block
 * minWeight, the cube id codec, revision JSON and blocks parsing (the golden logs, and corrupt
 * input refused with errors naming the table, key or file), and the index of the log-only
 * visualizer table (root maxWeight after two writes = Weight(500000 / 8e6)).
 */
#include "testlib.h"

#include "layout/otree/otreeInt.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *qb_path(const char *rel, char *buf, size_t n) {
    snprintf(buf, n, "%s/qbeast/%s", tn_test_data_dir(), rel);
    return buf;
}

TEST(weight_of_fraction) {
    CHECK_EQ_INT(ot_weight_of_fraction(0.1), -1717986918);
    CHECK_EQ_INT(ot_weight_of_fraction(0.125), -1610612736);
    CHECK_EQ_INT(ot_weight_of_fraction(1.0), 2147483647);
    CHECK_EQ_INT(ot_weight_of_fraction(0.0), INT32_MIN);
    CHECK_EQ_INT(ot_weight_of_fraction(500000.0 / 8e6), -1879048192);
    CHECK_EQ_INT(ot_weight_of_fraction(2.0), INT32_MAX);
    CHECK_EQ_INT(ot_weight_of_fraction(-1.0), INT32_MIN);
    CHECK(ot_fraction_of_weight(INT32_MIN) == 0.0);
    CHECK(ot_fraction_of_weight(INT32_MAX) == 1.0);
}

static tn_vector str_vec(const char *s) {
    tn_vector v;
    tn_vector_init(&v, tn_type_make(TN_TYPE_VARCHAR), 4);
    tn_vector_set_str(&v, 0, s, strlen(s));
    v.count = 1;
    return v;
}

TEST(weight_spark_hash) {
    /* the golden table's minimum weight over brand: 'withings' */
    tn_vector v = str_vec("withings");
    const tn_vector *cols[1] = {&v};
    CHECK_EQ_INT(ot_weight_row(cols, 1, 0), -2146260804);
    tn_vector_free(&v);
    /* Spark: SELECT hash(1) = -559580957, hash(1L) = -1712319331, hash(1, 2) chained */
    tn_vector i;
    tn_vector_init(&i, tn_type_make(TN_TYPE_INTEGER), 4);
    ((int32_t *)i.data)[0] = 1;
    i.count = 1;
    tn_vector l;
    tn_vector_init(&l, tn_type_make(TN_TYPE_BIGINT), 4);
    ((int64_t *)l.data)[0] = 1;
    l.count = 1;
    const tn_vector *ci[1] = {&i}, *cl[1] = {&l};
    CHECK_EQ_INT(ot_weight_row(ci, 1, 0), -559580957);
    CHECK_EQ_INT(ot_weight_row(cl, 1, 0), -1712319331);
    /* a NULL leaves the seed: hash(NULL) = 42 */
    tn_vector_set_null(&i, 0);
    CHECK_EQ_INT(ot_weight_row(ci, 1, 0), 42);
    tn_vector_free(&i);
    tn_vector_free(&l);
}

TEST(cube_codec) {
    uint32_t depth = 9;
    CHECK(ot_cube_valid("", 2, &depth));
    CHECK_EQ_INT(depth, 0);
    CHECK(ot_cube_valid("gw", 2, &depth));
    CHECK_EQ_INT(depth, 2);
    CHECK(!ot_cube_valid("gB", 2, NULL));      /* unused low bits set */
    CHECK(!ot_cube_valid("g*", 2, NULL));      /* not Base64 */
    CHECK(ot_cube_valid("Ag", 7, &depth));     /* 7 dims: 2 symbols per level, 1 bit in the second */
    CHECK(!ot_cube_valid("AB", 7, NULL));
    CHECK_EQ_INT(depth, 1);
    CHECK(!ot_cube_valid("A", 7, NULL));
    double c[2] = {0.75, 0.3};
    char buf[8] = {0};
    ot_cube_descend(c, 2, buf);
    CHECK_EQ_STR(buf, "g");                    /* dim 0 upper, dim 1 lower */
    ot_cube_descend(c, 2, buf + 1);
    CHECK_EQ_STR(buf, "gw");                   /* 0.5 * 2 and 0.6 * 2 are both >= 1: upper halves */
    double from[2], to[2];
    ot_cube_bounds("gQ", 2, from, to);
    CHECK(from[0] == 0.5 && to[0] == 0.75 && from[1] == 0.25 && to[1] == 0.5);
    CHECK(ot_cube_is_ancestor("g", "gQ", 2));
    CHECK(ot_cube_is_ancestor("", "g", 2));
    CHECK(!ot_cube_is_ancestor("gQ", "gQ", 2));
}

TEST(revision_parse) {
    tn_arena *a = tn_arena_create(0);
    ot_revision r;
    CHECK_OK(ot_revision_parse(&r,
        "{\"revisionID\":1,\"timestamp\":1726222122375,\"tableID\":\"/t\",\"desiredCubeSize\":500000,"
        "\"columnTransformers\":[{\"className\":\"io.qbeast.core.transform.LinearTransformer\",\"columnName\":\"id\","
        "\"dataType\":\"IntegerDataType\"},{\"className\":\"io.qbeast.core.transform.HashTransformer\",\"columnName\":"
        "\"name\",\"dataType\":\"StringDataType\"}],\"transformations\":[{\"className\":\"io.qbeast.core.transform."
        "LinearTransformation\",\"minNumber\":1,\"maxNumber\":4000000,\"nullValue\":2836883,\"orderedDataType\":"
        "\"IntegerDataType\"},{\"className\":\"io.qbeast.core.transform.HashTransformation\",\"nullValue\":-1628776639}]}",
        a));
    CHECK_EQ_INT(r.id, 1);
    CHECK_EQ_INT(r.cube_size, 500000);
    CHECK_EQ_INT(r.ncols, 2);
    CHECK_EQ_STR(r.cols[1].transformer, "hashing");
    CHECK(r.tr[0].kind == OT_T_LINEAR && r.tr[0].min == 1 && r.tr[0].max == 4000000);
    CHECK(r.tr[1].kind == OT_T_HASH && r.tr[1].hash_null == -1628776639);
    tn_value v = {tn_type_make(TN_TYPE_INTEGER), false, {.i = 2000000}};
    double x = ot_transform_coord(&r.tr[0], &v);
    CHECK(x > 0.4999 && x < 0.5001);
    /* corrupt revisions */
    CHECK(ot_revision_parse(&r, "{\"revisionID\":1", a) == TN_ECORRUPT);
    CHECK(ot_revision_parse(&r, "{\"revisionID\":1,\"desiredCubeSize\":0,\"columnTransformers\":[],\"transformations\":[]}", a) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "desiredCubeSize"));
    CHECK(ot_revision_parse(&r, "{\"revisionID\":1,\"desiredCubeSize\":10,\"columnTransformers\":[{\"className\":"
                            "\"io.qbeast.core.transform.FooTransformer\",\"columnName\":\"a\"}],\"transformations\":[{}]}", a) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "FooTransformer"));
    tn_arena_destroy(a);
}

TEST(blocks_parse) {
    tn_arena *a = tn_arena_create(0);
    ot_block *b;
    uint32_t n;
    CHECK_OK(ot_blocks_parse("[{\"cubeId\":\"gw\",\"minWeight\":-800322436,\"maxWeight\":2147483647,\"elementCount\":169364,"
                             "\"replicated\":false},{\"cubeId\":\"\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":3}]",
                             2, a, &b, &n));
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_STR(b[0].cube, "gw");
    CHECK_EQ_INT(b[0].min_weight, -800322436);
    CHECK_EQ_INT(b[1].count, 3);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"gw\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":3,\"x\":1}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "unknown field 'x'"));
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g!\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":3}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":1e3,\"maxWeight\":2,\"elementCount\":3}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":-3}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("{}", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":2147483648,\"maxWeight\":2,\"elementCount\":3}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":1,\"elementCount\":3}]", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":3}", 2, a, &b, &n) == TN_ECORRUPT);
    CHECK(ot_blocks_parse("[{\"cubeId\":\"g\",\"minWeight\":1,\"maxWeight\":2,\"elementCount\":3}] x", 2, a, &b, &n) == TN_ECORRUPT);
    /* the fast parser (the JSON tarn and qbeast write) and the JSON parser (whitespace, key
     * order, escapes, duplicates) give the same blocks */
    static const char *const same[][2] = {
        {"[]", " [ ]\n"},
        {"[{\"cubeId\":\"gA\",\"minWeight\":-5,\"maxWeight\":7,\"elementCount\":0}]",
         " [ { \"elementCount\" : 0 , \"maxWeight\" : 7, \"replicated\": true, \"minWeight\":-5,\"cubeId\":\"g\\u0041\" } ] "},
        {"[{\"cubeId\":\"/\",\"minWeight\":-2147483648,\"maxWeight\":2147483647,\"elementCount\":9007199254740993}]",
         "[{\"cubeId\":\"\\/\",\"minWeight\":-2147483648,\"maxWeight\":2147483647,\"elementCount\":9007199254740993}]"},
        {"[{\"cubeId\":\"/\",\"minWeight\":1,\"maxWeight\":3,\"elementCount\":4}]",
         "[{\"cubeId\":\"/\",\"minWeight\":1,\"maxWeight\":2,\"maxWeight\":3,\"elementCount\":4}]"},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        ot_block *x, *y;
        uint32_t nx, ny;
        uint32_t dims = i == 1 ? 2 : 6;
        CHECK_OK(ot_blocks_parse(same[i][0], dims, a, &x, &nx));
        CHECK_OK(ot_blocks_parse(same[i][1], dims, a, &y, &ny));
        CHECK_EQ_INT(nx, ny);
        for (uint32_t k = 0; k < nx && k < ny; k++) {
            CHECK_EQ_STR(x[k].cube, y[k].cube);
            CHECK_EQ_INT(x[k].min_weight, y[k].min_weight);
            CHECK_EQ_INT(x[k].max_weight, y[k].max_weight);
            CHECK_EQ_INT(x[k].count, y[k].count);
        }
    }
    tn_arena_destroy(a);
}

TEST(index_visualizer_table) {
    char p[1024];
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), qb_path("visualizer-test_table", p, sizeof p), NULL));
    ot_index *ix = NULL;
    int rc = ot_index_load(&ix, t);
    if (rc) tn_table_close(t);
    CHECK_OK(rc);
    CHECK_EQ_INT(ix->last_revision, 1);
    CHECK_EQ_INT(ix->ncols, 2);
    const ot_rev_index *ri = ot_index_rev_index(ix, 1);
    CHECK(ri != NULL);
    const ot_cube *root = ot_rev_index_find(ri, "");
    CHECK(root != NULL);
    /* the root's effective maxWeight is the min over its blocks: the second write's */
    CHECK_EQ_INT(root->max_weight, ot_weight_of_fraction(500000.0 / 8e6));
    CHECK_EQ_INT(root->nblocks, 2);
    int64_t total = 0;
    for (uint32_t i = 0; i < ri->ncubes; i++) total += ri->cubes[i].count;
    CHECK_EQ_INT(total, 8000000);
    for (uint32_t i = 0; i < ri->ncubes; i++) CHECK(ot_cube_valid(ri->cubes[i].id, 2, NULL));
    ot_index_free(ix);
    tn_table_close(t);
}

/* The last index is shared by the statements on the same snapshot, rebuilt for another one;
 * a reference outlives the cache's. */
TEST(index_cache) {
    char p[1024], q[1024];
    tn_table *t = NULL, *u = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), qb_path("visualizer-test_table", p, sizeof p), NULL));
    CHECK_OK(tn_table_open(&u, tn_fs_default(), qb_path("string-histogram-table", q, sizeof q), NULL));
    ot_index *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    CHECK_OK(ot_index_load(&a, t));
    CHECK_OK(ot_index_load(&b, t));
    CHECK(a == b);                                   /* same snapshot: shared */
    CHECK_OK(ot_index_load(&c, u));                  /* another table: its own, now the cached one */
    CHECK(c != a && c->nfiles == 1);
    ot_index_free(a);
    CHECK_EQ_INT(b->ncols, 2);                       /* b still holds it */
    CHECK_EQ_INT(ot_index_rev_index(b, 1)->ncubes > 0, 1);
    ot_index_free(b);
    CHECK_OK(ot_index_load(&d, u));
    CHECK(d == c);
    ot_index_free(c);
    ot_index_free(d);
    tn_table_close(t);
    tn_table_close(u);
}

TEST(index_golden_tables) {
    char p[1024];
    const char *tables[] = {"string-histogram-table", "pre-0.6-table_with_remove"};
    for (int k = 0; k < 2; k++) {
        tn_table *t = NULL;
        CHECK_OK(tn_table_open(&t, tn_fs_default(), qb_path(tables[k], p, sizeof p), NULL));
        ot_index *ix = NULL;
        int rc = ot_index_load(&ix, t);
        if (rc) tn_table_close(t);
        CHECK_OK(rc);
        CHECK_EQ_INT(ix->last_revision, 1);
        const ot_rev_index *ri = ot_index_rev_index(ix, 1);
        CHECK(ri && ri->ncubes >= 1);
        if (k == 0) {
            CHECK_EQ_INT(ri->ncubes, 1);
            CHECK_EQ_INT(ri->cubes[0].count, 100000);
            CHECK_EQ_INT(ix->files[0].blocks[0].min_weight, -2146260804);
            CHECK(ix->revs[1].tr[0].kind == OT_T_STRING_QUANTILES && ix->revs[1].tr[0].nquantiles == 50);
        }
        ot_index_free(ix);
        tn_table_close(t);
    }
}

/* A log written by someone else with a corrupt blocks tag: the error names the table and file. */
TEST(index_corrupt_log) {
    char dir[] = "/tmp/otree-unit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char log[1200], file[1300], cmd[2600];
    snprintf(log, sizeof log, "%s/_delta_log", dir);
    mkdir(log, 0755);
    snprintf(file, sizeof file, "%s/00000000000000000000.json", log);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    fputs("{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
          "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":\"{\\\"type\\\":"
          "\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
          "\"partitionColumns\":[],\"configuration\":{\"qbeast.lastRevisionID\":\"1\",\"qbeast.revision.1\":\"{\\\"revisionID\\\":1,"
          "\\\"desiredCubeSize\\\":10,\\\"columnTransformers\\\":[{\\\"className\\\":\\\"io.qbeast.core.transform.LinearTransformer\\\","
          "\\\"columnName\\\":\\\"a\\\"}],\\\"transformations\\\":[{\\\"className\\\":\\\"io.qbeast.core.transform.LinearTransformation\\\","
          "\\\"minNumber\\\":0,\\\"maxNumber\\\":9}]}\"}}}\n"
          "{\"add\":{\"path\":\"f1.parquet\",\"partitionValues\":{},\"size\":1,\"modificationTime\":0,\"dataChange\":true,"
          "\"tags\":{\"revision\":\"1\",\"blocks\":\"[{\\\"cubeId\\\":\\\"\\\",\\\"minWeight\\\":\\\"x\\\"}]\"}}}\n", f);
    fclose(f);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), dir, NULL));
    ot_index *ix = NULL;
    int rc = ot_index_load(&ix, t);
    tn_table_close(t);
    ot_index_free(ix);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* best effort */ }
    CHECK(rc == TN_ECORRUPT);
    CHECK_MSG(strstr(tn_error_message(), "f1.parquet") && strstr(tn_error_message(), dir) &&
              strstr(tn_error_message(), "minWeight"), "message: %s", tn_error_message());
}

TEST_MAIN()
