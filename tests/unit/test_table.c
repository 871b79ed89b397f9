/*
 * tests/unit/test_table.c: catalog/ and table/: warehouse names and layout, create/open/drop/
 * rename, views; golden Delta tables read through the table scan against expected.jsonl;
 * writes of every type (partitioned by string and date with values needing escaping and NULL)
 * scanned back; partition pruning and stats skipping counters; overwrite (full/static/dynamic);
 * copy-on-write delete; txn idempotence; time travel; history; vacuum (writes under failure and
 * concurrent writers: test_table_faults.c). Hidden mode `--write-interop DIR` writes tables for
 * tests/interop/table_duckdb.sh.
 */
#include "table_testlib.h"

static const char *golden_tables[] = {
    "data-reader-primitives", "basic_partitioned", "delta-0.8.0-partitioned", "simple_table",
    "table-with-dv-small", "basic-dv-no-checkpoint", "dv-partitioned-with-checkpoint",
    "data-reader-timestamp_ntz", "basic-decimal-table", "data-reader-escaped-chars",
    "data-skipping-basic-stats-all-types", "delta-0.2.0", "basic-with-inserts-deletes-checkpoint",
    "basic-with-inserts-overwrite-restore", "snapshot-repartitioned", "basic-dv-with-checkpoint",
    "simple_table_with_checkpoint", "only-checkpoint-files", "multi-part-checkpoint",
    "v2-checkpoint-json", "v2-checkpoint-parquet", "app-txn-checkpoint", "app-txn-no-checkpoint",
    "with-short-dv", "log-replay-dv-key-cases", "table_with_deletion_logs",
    "type-widening", "basic-with-vacuum-protocol-check-feature",
    "log-replay-latest-metadata-protocol", "deltalog-getChanges", NULL};

TEST(golden_tables_scan_to_expected_rows) {
    char failures[4096] = "";
    int nfail = 0;
    for (int i = 0; golden_tables[i]; i++) {
        const char *name = golden_tables[i];
        char path[2048], err[512] = "";
        snprintf(path, sizeof path, "%s/delta/%s", tn_test_data_dir(), name);
        tn_table *t = NULL;
        rows got = {0}, want = {0};
        int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
        if (rc == 0) rc = scan_rows(t, NULL, 0, NULL, 0, &got, NULL);
        if (rc) snprintf(err, sizeof err, "%s", tn_error_message());
        else if (expected_rows(name, t, &want, err, sizeof err) == 0) {
            if (got.n != want.n) snprintf(err, sizeof err, "%zu rows, expected %zu", got.n, want.n);
            else
                for (size_t k = 0; k < got.n; k++)
                    if (strcmp(got.r[k], want.r[k]) != 0) {
                        snprintf(err, sizeof err, "row %zu: got [%s] expected [%s]", k, got.r[k], want.r[k]);
                        break;
                    }
        }
        if (err[0]) {
            nfail++;
            size_t l = strlen(failures);
            snprintf(failures + l, sizeof failures - l, "\n  %s: %s", name, err);
        }
        rows_free(&got);
        rows_free(&want);
        tn_table_close(t);
    }
    CHECK_MSG(nfail == 0, "%d golden tables differ:%s", nfail, failures);
}

TEST(golden_must_fail_tables_fail_clearly) {
    struct { const char *name, *msg; } cases[] = {
        {"deltalog-invalid-protocol-version", "99"},
        {"versions-not-contiguous", "versions are not contiguous"},
        {"deltalog-state-reconstruction-without-metadata", "No metadata found"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/delta/%s", tn_test_data_dir(), cases[i].name);
        tn_table *t = NULL;
        int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
        if (rc == 0) {
            tn_table_scan *s = NULL;
            rc = tn_table_scan_open(&s, t, NULL);
            tn_table_scan_close(s);
            tn_table_close(t);
        }
        CHECK_MSG(rc != 0, "%s opened", cases[i].name);
        CHECK_MSG(strstr(tn_error_message(), cases[i].msg) != NULL, "%s: %s", cases[i].name, tn_error_message());
    }
}

/* A struct column of the schemaString has its nested type, and the table scans (its rows are
 * checked against expected.jsonl by tests/interop/delta_golden_sql.sh). */
TEST(golden_nested_columns_typed) {
    char path[2048];
    snprintf(path, sizeof path, "%s/delta/data-reader-nested-struct", tn_test_data_dir());
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    char buf[128];
    tn_type_format(tn_table_column(t, 0)->type, buf, sizeof buf);
    tn_table_scan *s = NULL;
    int rc = tn_table_scan_open(&s, t, NULL);
    tn_table_scan_close(s);
    tn_table_close(t);
    CHECK_MSG(rc == 0, "%s", tn_error_message());
    CHECK_EQ_STR(buf, "STRUCT(aa VARCHAR, ab VARCHAR, ac STRUCT(aca INTEGER, acb BIGINT))");
}

/* Its files hold nested columns too (the Parquet reader reads them): the flat columns read,
 * found by their physical (column-mapping) names: one row per line of expected.jsonl. */
TEST(golden_column_mapping_with_nested_columns_reads_flat_columns) {
    char path[2048];
    snprintf(path, sizeof path, "%s/delta/table-with-columnmapping-mode-name", tn_test_data_dir());
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    rows got = {0};
    int rc = scan_rows(t, NULL, 0, NULL, 0, &got, NULL);   /* flat columns only */
    tn_table_close(t);
    size_t n = got.n;
    bool has_row0 = false;
    for (size_t i = 0; i < got.n; i++) has_row0 |= strncmp(got.r[i], "0|0|0|0|", 8) == 0;
    rows_free(&got);
    CHECK_MSG(rc == 0, "%s", tn_error_message());
    CHECK_EQ_INT(n, 6);
    CHECK_MSG(has_row0, "no row 0|0|0|0|...");
}

typedef struct par_ctx {
    tn_table_scan *s;
    uint64_t rows[64];
} par_ctx;

static int par_count(void *ctx, const tn_chunk *c, uint32_t file, int64_t first_row) {
    uint64_t *n = ctx;
    *n += c->count;
    return 0;
}

static int par_task(void *ctx, uint32_t task, uint32_t worker) {
    par_ctx *p = ctx;
    return tn_table_scan_run_morsel(p->s, task, par_count, &p->rows[worker]);
}

TEST(morsels_run_in_parallel_on_pool) {
    char path[2048];
    snprintf(path, sizeof path, "%s/delta/basic-dv-with-checkpoint", tn_test_data_dir());
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_pool *pool = NULL;
    CHECK_OK(tn_pool_create(&pool, 4));
    par_ctx p;
    memset(&p, 0, sizeof p);
    tn_table_scan_options o = TN_TABLE_SCAN_OPTIONS_INIT;
    o.all_columns = true;
    CHECK_OK(tn_table_scan_open(&p.s, t, &o));
    CHECK(tn_table_scan_num_morsels(p.s) > 1);
    CHECK_OK(tn_pool_run(pool, tn_table_scan_num_morsels(p.s), par_task, &p));
    uint64_t total = 0;
    for (int i = 0; i < 64; i++) total += p.rows[i];
    CHECK_EQ_INT(total, 454);
    tn_table_scan_stats st;
    tn_table_scan_get_stats(p.s, &st);
    CHECK_EQ_INT(st.rows_scanned, 500);   /* before deletion vectors */
    CHECK_EQ_INT(st.table_files, st.files_scanned);
    tn_table_scan_close(p.s);
    tn_pool_destroy(pool);
    tn_table_close(t);
}

TEST(golden_partition_pruning_and_time_travel) {
    char path[2048];
    snprintf(path, sizeof path, "%s/delta/basic_partitioned", tn_test_data_dir());
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    int li = tn_table_column_index(t, "letter");
    CHECK(li >= 0);
    tn_table_filter f = {(uint32_t)li, TN_PQ_EQ, {tn_type_make(TN_TYPE_VARCHAR), false, {.s = {"a", 1}}}};
    rows got = {0};
    tn_table_scan_stats st;
    int rc = scan_rows(t, NULL, 0, &f, 1, &got, &st);
    tn_table_close(t);
    CHECK_OK(rc);
    CHECK_EQ_INT(got.n, 2);
    CHECK_EQ_INT(st.files_scanned, 2);
    CHECK_EQ_INT(st.files_pruned, st.table_files - 2);
    rows_free(&got);
    /* IS NULL on the partition column: the __HIVE_DEFAULT_PARTITION__ file only */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    tn_table_filter fn = {(uint32_t)li, TN_PQ_IS_NULL, {tn_type_make(TN_TYPE_VARCHAR), true, {.i = 0}}};
    rc = scan_rows(t, NULL, 0, &fn, 1, &got, &st);
    tn_table_close(t);
    CHECK_OK(rc);
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_INT(st.files_scanned, 1);
    rows_free(&got);
    /* version 0 has 3 rows */
    tn_table_open_options oo = TN_TABLE_OPEN_OPTIONS_INIT;
    oo.at_version = 0;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, &oo));
    CHECK_EQ_INT(count_rows(t), 3);
    tn_table_close(t);
    snprintf(path, sizeof path, "%s/delta/simple_table", tn_test_data_dir());
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, &oo));
    rc = scan_rows(t, NULL, 0, NULL, 0, &got, NULL);
    tn_table_close(t);
    CHECK_OK(rc);
    CHECK_EQ_INT(got.n, 5);
    CHECK_EQ_STR(got.r[0], "0");
    CHECK_EQ_STR(got.r[4], "4");
    rows_free(&got);
}

/* ---------------------------------------------------------------------------------------------
 * Catalog.
 */
TEST(catalog_name_validation) {
    tn_catalog_name n;
    const char *bad[] = {"..", ".", "../x", "a/b", "a\\b", "/abs", "_hidden", ".dot", "", "a:b", "x\ty", NULL};
    for (int i = 0; bad[i]; i++) {
        int rc = tn_catalog_name_make(&n, "table", NULL, bad[i]);
        CHECK_MSG(rc == TN_EINVAL, "'%s' accepted", bad[i]);
        CHECK_MSG(strstr(tn_error_message(), "invalid table name") != NULL, "%s", tn_error_message());
    }
    CHECK(tn_catalog_name_parse(&n, "table", "../x") == TN_EINVAL);
    CHECK_MSG(strstr(tn_error_message(), "invalid table name '../x'") != NULL || strstr(tn_error_message(), "invalid") != NULL,
              "%s", tn_error_message());
    char longname[200];
    memset(longname, 'a', 199);
    longname[199] = 0;
    CHECK(tn_catalog_name_make(&n, "table", NULL, longname) == TN_EINVAL);
    CHECK_OK(tn_catalog_name_parse(&n, "table", "Sales.Orders"));
    CHECK_EQ_STR(n.schema, "sales");
    CHECK_EQ_STR(n.name, "orders");
    CHECK_OK(tn_catalog_name_parse(&n, "table", "main.T1"));
    CHECK_EQ_STR(n.schema, "");
    CHECK_EQ_STR(n.name, "t1");
    CHECK(tn_catalog_name_parse(&n, "table", "a.b.c") == TN_EINVAL);
}

static tn_table_column_def simple_cols[] = {
    {"id", {TN_TYPE_BIGINT, 0, 0, NULL}, true, NULL},
    {"name", {TN_TYPE_VARCHAR, 0, 0, NULL}, true, NULL},
    {"dt", {TN_TYPE_VARCHAR, 0, 0, NULL}, true, NULL},
};

TEST(catalog_create_open_drop_rename_views) {
    char *wh = make_tmpdir();
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/wh", wh);
    tn_catalog *cat = NULL;
    CHECK_OK(tn_catalog_open(&cat, NULL, sub));
    tn_catalog_name n, n2, n3;
    CHECK_OK(tn_catalog_name_make(&n, "table", NULL, "Orders"));
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    co.columns = simple_cols;
    co.ncolumns = 3;
    CHECK_OK(tn_catalog_table_create(cat, &n, &co));
    CHECK(tn_catalog_table_create(cat, &n, &co) == TN_EEXISTS);
    CHECK_MSG(strstr(tn_error_message(), "already exists"), "%s", tn_error_message());
    co.if_not_exists = true;
    CHECK_OK(tn_catalog_table_create(cat, &n, &co));
    co.if_not_exists = false;
    char p[2048];
    snprintf(p, sizeof p, "%s/orders/_delta_log/00000000000000000000.json", sub);
    CHECK(access(p, F_OK) == 0);
    /* schemas */
    CHECK_OK(tn_catalog_schema_create(cat, "global_temp", false));
    CHECK(tn_catalog_schema_create(cat, "global_temp", false) == TN_EEXISTS);
    CHECK_OK(tn_catalog_schema_create(cat, "global_temp", true));
    CHECK(tn_catalog_schema_create(cat, "orders", true) == TN_EEXISTS);
    CHECK_OK(tn_catalog_name_make(&n2, "table", "GLOBAL_TEMP", "test_binary"));
    CHECK_OK(tn_catalog_table_create(cat, &n2, &co));
    snprintf(p, sizeof p, "%s/global_temp/test_binary/_delta_log", sub);
    CHECK(access(p, F_OK) == 0);
    CHECK_OK(tn_catalog_name_make(&n3, "table", "nosuch", "t"));
    CHECK(tn_catalog_table_create(cat, &n3, &co) == TN_ENOTFOUND);
    tn_catalog_list l;
    CHECK_OK(tn_catalog_table_list(cat, NULL, &l));
    CHECK_EQ_INT(l.count, 1);
    CHECK_EQ_STR(l.names[0], "orders");
    tn_catalog_list_free(&l);
    CHECK_OK(tn_catalog_schema_list(cat, &l));
    CHECK_EQ_INT(l.count, 2);
    CHECK_EQ_STR(l.names[0], "default");
    CHECK_EQ_STR(l.names[1], "global_temp");
    tn_catalog_list_free(&l);
    /* views */
    tn_catalog_name v;
    CHECK_OK(tn_catalog_name_make(&v, "view", NULL, "v1"));
    CHECK_OK(tn_catalog_view_create(cat, &v, "SELECT 1 AS x", NULL, 0, false, false));
    CHECK(tn_catalog_view_create(cat, &v, "SELECT 2", NULL, 0, false, false) == TN_EEXISTS);
    CHECK_OK(tn_catalog_view_create(cat, &v, "SELECT 2", NULL, 0, false, true));
    const char *vc[] = {"a"};
    CHECK_OK(tn_catalog_view_create(cat, &v, "SELECT 3", vc, 1, true, false));
    tn_catalog_view vd;
    CHECK_OK(tn_catalog_view_get(cat, &v, &vd));
    CHECK_EQ_STR(vd.sql, "SELECT 3");
    CHECK_EQ_INT(vd.ncolumns, 1);
    tn_catalog_view_free(&vd);
    CHECK(tn_catalog_view_create(cat, &n, "SELECT 1", NULL, 0, true, false) == TN_EEXISTS);  /* table name */
    CHECK_OK(tn_catalog_view_list(cat, NULL, &l));
    CHECK_EQ_INT(l.count, 1);
    tn_catalog_list_free(&l);
    /* a table cannot take a view's name */
    tn_catalog_name vt;
    CHECK_OK(tn_catalog_name_make(&vt, "table", NULL, "v1"));
    CHECK(tn_catalog_table_create(cat, &vt, &co) == TN_EEXISTS);
    CHECK_OK(tn_catalog_view_drop(cat, &v, false));
    CHECK(tn_catalog_view_drop(cat, &v, false) == TN_ENOTFOUND);
    CHECK_OK(tn_catalog_view_drop(cat, &v, true));
    /* rename across schemas, then open */
    tn_catalog_name r;
    CHECK_OK(tn_catalog_name_make(&r, "table", "global_temp", "orders2"));
    CHECK_OK(tn_catalog_table_rename(cat, &n, &r));
    bool ex = true;
    CHECK_OK(tn_catalog_table_exists(cat, &n, &ex));
    CHECK(!ex);
    tn_table *t = NULL;
    CHECK_OK(tn_catalog_table_open(cat, &r, NULL, &t));
    CHECK_EQ_INT(tn_table_num_columns(t), 3);
    tn_table_close(t);
    CHECK(tn_catalog_table_open(cat, &n, NULL, &t) == TN_ENOTFOUND);
    CHECK_MSG(strstr(tn_error_message(), "table 'orders' does not exist"), "%s", tn_error_message());
    CHECK(tn_catalog_table_rename(cat, &r, &n2) == TN_EEXISTS);
    /* drop */
    CHECK(tn_catalog_schema_drop(cat, "global_temp", false, false) == TN_ECONSTRAINT);
    CHECK_OK(tn_catalog_table_drop(cat, &r, false));
    CHECK(tn_catalog_table_drop(cat, &r, false) == TN_ENOTFOUND);
    CHECK_OK(tn_catalog_table_drop(cat, &r, true));
    CHECK_OK(tn_catalog_schema_drop(cat, "global_temp", false, true));
    CHECK_OK(tn_catalog_schema_exists(cat, "global_temp", &ex));
    CHECK(!ex);
    snprintf(p, sizeof p, "%s/global_temp", sub);
    CHECK(access(p, F_OK) != 0);
    tn_catalog_close(cat);
    rm_rf(wh);
    free(wh);
}


TEST(write_every_type_partitioned_and_scan_back) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, true));
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 2500, NULL, &res));
    CHECK_EQ_INT(res.version, 1);
    CHECK_EQ_INT(res.rows_written, 2500);
    CHECK(res.files_added >= 10);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    rows got = {0}, want = {0};
    int rc = scan_rows(t, NULL, 0, NULL, 0, &got, NULL);
    CHECK_OK(rc);
    expected_range(&want, 0, 2500, NULL);
    char err[1024];
    CHECK_MSG(!rows_diff(&got, &want, err, sizeof err), "%s", err);
    rows_free(&got);
    rows_free(&want);
    /* on-disk layout: escaped Hive directories, NULLs as __HIVE_DEFAULT_PARTITION__ */
    char p[4096];
    snprintf(p, sizeof p, "%s/ps=a%%2Fb/pd=2023-12-09", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    snprintf(p, sizeof p, "%s/ps=x%%3Ay%%3Dz", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    snprintf(p, sizeof p, "%s/ps=100%%25", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    snprintf(p, sizeof p, "%s/ps=with space/pd=__HIVE_DEFAULT_PARTITION__", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    snprintf(p, sizeof p, "%s/ps=__HIVE_DEFAULT_PARTITION__/pd=2023-12-09", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    snprintf(p, sizeof p, "%s/ps=tab%%09here", path);
    CHECK_MSG(access(p, F_OK) == 0, "missing %.1000s", p);
    /* log: partition values, stats */
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    bool saw_null = false;
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        bool is_null;
        tn_delta_partition_value(snap, &snap->files[i], "ps", &is_null);
        if (is_null) saw_null = true;
        CHECK(snap->files[i].stats != NULL);
        CHECK(strstr(snap->files[i].stats, "\"numRecords\":") != NULL);
        CHECK(strstr(snap->files[i].stats, "\"ps\"") == NULL);   /* no stats for partition columns */
        CHECK(strstr(snap->files[i].path, "-c000.zstd.parquet") != NULL);
    }
    CHECK(saw_null);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(write_rolls_files_at_target_size_and_stats_skip) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.target_file_bytes = 64 * 1024;
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 20000, &wo, &res));
    CHECK_MSG(res.files_added >= 3, "%llu files", (unsigned long long)res.files_added);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(count_rows(t), 20000);
    /* id >= 19990: only the last file */
    tn_table_filter f = {C_ID, TN_PQ_GE, {tn_type_make(TN_TYPE_BIGINT), false, {.i = 19990}}};
    rows got = {0};
    tn_table_scan_stats st;
    uint32_t cols[] = {C_ID};
    CHECK_OK(scan_rows(t, cols, 1, &f, 1, &got, &st));
    CHECK_EQ_INT(st.files_scanned, 1);
    CHECK_EQ_INT(st.files_skipped, res.files_added - 1);
    CHECK_EQ_INT(st.table_rows, 20000);
    CHECK(got.n >= 10);
    rows_free(&got);
    /* an integer constant of another width, and a string filter */
    tn_table_filter f2 = {C_ID, TN_PQ_LT, {tn_type_make(TN_TYPE_INTEGER), false, {.i = 5}}};
    CHECK_OK(scan_rows(t, cols, 1, &f2, 1, &got, &st));
    CHECK_EQ_INT(st.files_scanned, 1);
    rows_free(&got);
    tn_table_filter f4 = {C_DEC, TN_PQ_LE, {tn_type_decimal(10, 2), false, {.i = -4990}}};
    CHECK_OK(scan_rows(t, cols, 1, &f4, 1, &got, &st));
    CHECK_EQ_INT(st.files_scanned, 1);
    rows_free(&got);
    tn_table_filter f5 = {C_S, TN_PQ_EQ, {tn_type_make(TN_TYPE_VARCHAR), false, {.s = {"s19999", 6}}}};
    CHECK_OK(scan_rows(t, cols, 1, &f5, 1, &got, &st));
    CHECK(st.files_scanned < res.files_added);
    rows_free(&got);
    tn_table_filter f6 = {C_TS, TN_PQ_GT, {tn_type_make(TN_TYPE_TIMESTAMP_TZ), false, {.i = 1700000000000000LL + 19995LL * 1234567LL}}};
    CHECK_OK(scan_rows(t, cols, 1, &f6, 1, &got, &st));
    CHECK_EQ_INT(st.files_scanned, 1);
    rows_free(&got);
    tn_table_filter f3 = {C_DT, TN_PQ_IS_NULL, {tn_type_make(TN_TYPE_DATE), true, {.i = 0}}};
    CHECK_OK(scan_rows(t, cols, 1, &f3, 1, &got, &st));
    CHECK_EQ_INT(st.files_scanned, res.files_added);
    rows_free(&got);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

static bool keep_odd_partitions(int64_t i) { return true; (void)i; }

TEST(overwrite_full_static_dynamic) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, true));
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 100, NULL, &res));
    tn_table *t = NULL;
    /* dynamic: rows 100..105 hold ps values for i%10 in 0..5 → those partitions replaced */
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.mode = TN_LAYOUT_OVERWRITE_DYNAMIC;
    CHECK_OK(append_range(tn_fs_default(), path, 100, 6, &wo, &res));
    CHECK(res.files_removed > 0);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    rows got = {0};
    uint32_t cols[] = {C_ID};
    CHECK_OK(scan_rows(t, cols, 1, NULL, 0, &got, NULL));
    tn_table_close(t);
    /* survivors: rows of 0..99 whose (ps, pd) pair is not among rows 100..105 pairs */
    size_t expect = 6;
    for (int64_t i = 0; i < 100; i++) {
        bool replaced = false;
        for (int64_t j = 100; j < 106; j++) {
            tn_value a, b, c, d;
            char s1[128], s2[128], s3[128], s4[128];
            gen_value(C_PS, i, &a, s1);
            gen_value(C_PS, j, &b, s2);
            gen_value(C_PD, i, &c, s3);
            gen_value(C_PD, j, &d, s4);
            bool same_s = (a.is_null && b.is_null) || (!a.is_null && !b.is_null && a.u.s.len == b.u.s.len &&
                                                       memcmp(a.u.s.ptr, b.u.s.ptr, a.u.s.len) == 0);
            bool same_d = (c.is_null && d.is_null) || (!c.is_null && !d.is_null && c.u.i == d.u.i);
            if (same_s && same_d) replaced = true;
        }
        if (!replaced) expect++;
    }
    CHECK_EQ_INT(got.n, expect);
    rows_free(&got);
    /* static: PARTITION (ps = 'plain') with rows of that partition only */
    wo.mode = TN_LAYOUT_OVERWRITE;
    tn_delta_kv spec[] = {{"ps", "plain"}};
    wo.partition_spec = spec;
    wo.npartition_spec = 1;
    /* a row of another partition is refused */
    int rc = append_range(tn_fs_default(), path, 200, 1, &wo, &res);
    CHECK(rc == TN_ECONSTRAINT);
    CHECK_OK(append_range(tn_fs_default(), path, 205, 1, &wo, &res));   /* 205 % 10 == 5: "plain" */
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    int psi = tn_table_column_index(t, "ps");
    tn_table_filter f = {(uint32_t)psi, TN_PQ_EQ, {tn_type_make(TN_TYPE_VARCHAR), false, {.s = {"plain", 5}}}};
    CHECK_OK(scan_rows(t, cols, 1, &f, 1, &got, NULL));
    CHECK_EQ_INT(got.n, 1);
    CHECK_EQ_STR(got.r[0], "205");
    rows_free(&got);
    tn_table_close(t);
    /* full overwrite */
    tn_layout_write_options full = TN_LAYOUT_WRITE_OPTIONS_INIT;
    full.mode = TN_LAYOUT_OVERWRITE;
    CHECK_OK(append_range(tn_fs_default(), path, 1000, 3, &full, &res));
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_OK(scan_rows(t, cols, 1, NULL, 0, &got, NULL));
    CHECK_EQ_INT(got.n, 3);
    CHECK_EQ_STR(got.r[0], "1000");
    rows_free(&got);
    /* history shows the operations newest first */
    tn_table_history h;
    CHECK_OK(tn_table_history_read(&h, tn_fs_default(), path, 0));
    CHECK_EQ_INT(h.count, 5);
    CHECK_EQ_INT(h.entries[0].version, 4);
    CHECK_EQ_STR(h.entries[0].operation, "WRITE");
    CHECK(strstr(h.entries[0].operation_parameters, "\"mode\":\"Overwrite\"") != NULL);
    CHECK_MSG(strstr(h.entries[1].operation_parameters, "\"partition\":\"{\\\"ps\\\":\\\"plain\\\"}\"") != NULL,
              "%s", h.entries[1].operation_parameters);
    CHECK(strstr(h.entries[2].operation_parameters, "DYNAMIC") != NULL);
    CHECK_EQ_STR(h.entries[4].operation, "CREATE TABLE");
    CHECK_EQ_STR(h.entries[4].engine_info, "tarn/0.1.0");
    CHECK(h.entries[3].is_blind_append);
    CHECK(!h.entries[2].is_blind_append);
    tn_table_history_free(&h);
    /* time travel: version 1 = the first 100 rows */
    tn_table_close(t);
    tn_table_open_options oo = TN_TABLE_OPEN_OPTIONS_INIT;
    oo.at_version = 1;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, &oo));
    rows want = {0};
    CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &got, NULL));
    expected_range(&want, 0, 100, keep_odd_partitions);
    char err[1024];
    CHECK_MSG(!rows_diff(&got, &want, err, sizeof err), "%s", err);
    rows_free(&got);
    rows_free(&want);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

typedef struct id_pred {
    int64_t mod;
} id_pred;

static int match_id_mod(void *ctx, const tn_chunk *c, uint8_t *match) {
    id_pred *p = ctx;
    for (uint32_t r = 0; r < c->count; r++) {
        int64_t id = ((const int64_t *)c->cols[C_ID].data)[r];
        match[r] = id % p->mod == 0 && id < 1000;
    }
    return 0;
}

static bool not_mod7_under_1000(int64_t i) { return !(i % 7 == 0 && i < 1000); }

TEST(delete_copy_on_write_leaves_other_files) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.target_file_bytes = 64 * 1024;
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 12000, &wo, &res));
    uint64_t files = res.files_added;
    CHECK(files >= 3);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    id_pred p = {7};
    tn_table_filter f = {C_ID, TN_PQ_LT, {tn_type_make(TN_TYPE_BIGINT), false, {.i = 1000}}};
    tn_table_delete_options d = TN_TABLE_DELETE_OPTIONS_INIT;
    d.filters = &f;
    d.nfilters = 1;
    d.match = match_id_mod;
    d.match_ctx = &p;
    d.predicate_text = "id % 7 = 0 AND id < 1000";
    CHECK_OK(tn_table_delete(t, &d, &res));
    tn_table_close(t);
    CHECK_EQ_INT(res.rows_deleted, 143);
    CHECK_EQ_INT(res.files_removed, 1);   /* only the first file holds ids < 1000 */
    CHECK_EQ_INT(res.files_added, 1);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(tn_table_snapshot(t)->nfiles, files);
    rows got = {0}, want = {0};
    CHECK_OK(scan_rows(t, NULL, 0, NULL, 0, &got, NULL));
    expected_range(&want, 0, 12000, not_mod7_under_1000);
    char err[1024];
    CHECK_MSG(!rows_diff(&got, &want, err, sizeof err), "%s", err);
    rows_free(&got);
    rows_free(&want);
    /* deleting again matches nothing: no commit */
    int64_t v = tn_table_version(t);
    CHECK_OK(tn_table_delete(t, &d, &res));
    CHECK_EQ_INT(res.version, -1);
    CHECK_EQ_INT(res.rows_deleted, 0);
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(tn_table_version(t), v);
    /* delete everything */
    tn_table_delete_options all = TN_TABLE_DELETE_OPTIONS_INIT;
    CHECK_OK(tn_table_delete(t, &all, &res));
    tn_table_close(t);
    CHECK_EQ_INT(res.rows_deleted, 12000 - 143);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(count_rows(t), 0);
    /* vacuum: refused under 168 h, then forced with 0 h removes the unreferenced files */
    tn_table_vacuum_result vr;
    CHECK(tn_table_vacuum(t, 1, false, false, &vr) == TN_EINVAL);
    CHECK_MSG(strstr(tn_error_message(), "168") != NULL, "%s", tn_error_message());
    CHECK_OK(tn_table_vacuum(t, 168, false, false, &vr));
    CHECK_EQ_INT(vr.files_deleted, 0);
    sleep(1);
    CHECK_OK(tn_table_vacuum(t, 0, true, true, &vr));
    CHECK_EQ_INT(vr.files_deleted, files + 1);
    CHECK_EQ_INT(count_data_files(path), files + 1);
    CHECK_OK(tn_table_vacuum(t, 0, true, false, &vr));
    CHECK_EQ_INT(vr.files_deleted, files + 1);
    CHECK_EQ_INT(count_data_files(path), 0);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(txn_idempotent_writes) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    CHECK_OK(create_all_types(path, false));
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.app_id = "stream-1";
    wo.app_version = 7;
    tn_table_commit_result res;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 10, &wo, &res));
    CHECK(!res.skipped);
    CHECK_OK(append_range(tn_fs_default(), path, 0, 10, &wo, &res));
    CHECK(res.skipped);
    CHECK_EQ_INT(res.version, -1);
    wo.app_version = 6;
    CHECK_OK(append_range(tn_fs_default(), path, 0, 10, &wo, &res));
    CHECK(res.skipped);
    CHECK_EQ_INT(count_data_files(path), 1);
    wo.app_version = 8;
    CHECK_OK(append_range(tn_fs_default(), path, 10, 10, &wo, &res));
    CHECK(!res.skipped);
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(count_rows(t), 20);
    CHECK_EQ_INT(tn_delta_snapshot_txn_version(tn_table_snapshot(t), "stream-1"), 8);
    tn_table_close(t);
    /* two writers opened on the same snapshot with the same txn: the second commit is skipped */
    tn_table *t1 = NULL, *t2 = NULL;
    tn_layout_writer *w1 = NULL, *w2 = NULL;
    wo.app_version = 9;
    CHECK_OK(tn_table_open(&t1, tn_fs_default(), path, NULL));
    CHECK_OK(tn_table_open(&t2, tn_fs_default(), path, NULL));
    CHECK_OK(tn_layout_writer_open(&w1, t1, &wo));
    CHECK_OK(tn_layout_writer_open(&w2, t2, &wo));
    tn_chunk c;
    CHECK_OK(fill_chunk(&c, 100, 5));
    CHECK_OK(tn_layout_writer_write(w1, &c));
    CHECK_OK(tn_layout_writer_write(w2, &c));
    tn_chunk_free(&c);
    tn_table_commit_result r1, r2;
    CHECK_OK(tn_layout_writer_commit(w1, &r1));
    CHECK_OK(tn_layout_writer_commit(w2, &r2));
    CHECK(!r1.skipped);
    CHECK(r2.skipped);
    tn_table_close(t1);
    tn_table_close(t2);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(count_rows(t), 25);
    CHECK_EQ_INT(count_data_files(path), 3);
    tn_table_close(t);
    rm_rf(wh);
    free(wh);
}

TEST(alter_properties_and_add_column) {
    char *wh = make_tmpdir();
    char path[1024];
    snprintf(path, sizeof path, "%s/t", wh);
    tn_table_create_options co = TN_TABLE_CREATE_OPTIONS_INIT;
    tn_delta_kv conf[] = {{"bucket", "16"}};
    co.columns = simple_cols;
    co.ncolumns = 3;
    co.configuration = conf;
    co.nconfiguration = 1;
    const char *parts[] = {"dt"};
    co.partition_columns = parts;
    co.npartition_columns = 1;
    CHECK_OK(tn_table_create(tn_fs_default(), path, &co));
    tn_table *t = NULL;
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_STR(tn_table_property(t, "bucket"), "16");
    CHECK(tn_table_column(t, 2)->is_partition);
    tn_delta_kv set[] = {{"bucket", "32"}, {"x", "y"}};
    int64_t v;
    CHECK_OK(tn_table_set_properties(t, set, 2, &v));
    CHECK_EQ_INT(v, 1);
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_STR(tn_table_property(t, "bucket"), "32");
    CHECK_EQ_STR(tn_table_property(t, "x"), "y");
    tn_table_column_def add[] = {{"extra", {TN_TYPE_INTEGER, 0, 0, NULL}, true, NULL}};
    CHECK_OK(tn_table_add_columns(t, add, 1, &v));
    tn_table_close(t);
    CHECK_OK(tn_table_open(&t, tn_fs_default(), path, NULL));
    CHECK_EQ_INT(tn_table_num_columns(t), 4);
    CHECK(tn_table_column(t, 2)->is_partition);
    tn_table_close(t);
    /* creation errors */
    co.npartition_columns = 0;
    CHECK(tn_table_create(tn_fs_default(), path, &co) == TN_EEXISTS);
    char p2[1100];
    snprintf(p2, sizeof p2, "%s/t2", wh);
    const char *badp[] = {"nope"};
    co.partition_columns = badp;
    co.npartition_columns = 1;
    CHECK(tn_table_create(tn_fs_default(), p2, &co) == TN_EINVAL);
    CHECK_MSG(strstr(tn_error_message(), "'nope'") != NULL, "%s", tn_error_message());
    rm_rf(wh);
    free(wh);
}

/* ---------------------------------------------------------------------------------------------
 * Hidden mode for tests/interop/table_duckdb.sh: writes tables into DIR and, for each, prints
 * "TABLE <name>" then "FILE <full path>" lines then "ROW <csv>" lines (DuckDB spelling).
 */
static int print_table(const char *name, const char *path) {
    tn_table *t = NULL;
    int rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (rc) return rc;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    printf("TABLE %s %s\n", name, path);
    printf("COLS");
    for (uint32_t i = 0; i < tn_table_num_columns(t); i++) printf(" %s", tn_table_column(t, i)->name);
    printf("\n");
    tn_arena *a = tn_arena_create(0);
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        const char *full;
        if (tn_delta_file_full_path(snap, &snap->files[i], a, &full) == 0) printf("FILE %s\n", full);
    }
    tn_arena_destroy(a);
    tn_table_close(t);
    return rc;
}

static int print_rows_cb(void *ctx, const tn_chunk *c, uint32_t file, int64_t first_row) {
    tn_buf b = TN_BUF_INIT;
    for (uint32_t r = 0; r < c->count; r++) {
        json_t *a = json_array();
        for (uint32_t k = 0; k < c->ncols; k++) {
            tn_buf_clear(&b);
            int isnull = tn_value_format(&b, &c->cols[k], r) == 1;
            json_array_append_new(a, isnull ? json_string("<NULL>") : json_stringn((const char *)b.data, b.len));
        }
        char *s = json_dumps(a, JSON_COMPACT);
        printf("ROW %s\n", s ? s : "[]");
        free(s);
        json_decref(a);
    }
    tn_buf_free(&b);
    return 0;
}

static int print_table_rows(const char *name, const char *path) {
    int rc = print_table(name, path);
    if (rc) return rc;
    tn_table *t = NULL;
    rc = tn_table_open(&t, tn_fs_default(), path, NULL);
    if (rc) return rc;
    tn_table_scan *s = NULL;
    rc = tn_table_scan_open(&s, t, NULL);
    if (!rc) rc = tn_table_scan_run(s, print_rows_cb, NULL);
    tn_table_scan_close(s);
    tn_table_close(t);
    printf("END\n");
    return rc;
}

/* Interop rows avoid values whose text DuckDB spells differently only by design (none known). */
static int write_interop(const char *dir) {
    char path[2048];
    int rc = 0;
    tn_table_commit_result res;
    /* 1: every type, partitioned by string and date with escaping and NULLs, several commits */
    snprintf(path, sizeof path, "%s/all_types_part", dir);
    rc = create_all_types(path, true);
    if (!rc) rc = append_range(tn_fs_default(), path, 0, 3000, NULL, &res);
    if (!rc) rc = append_range(tn_fs_default(), path, 3000, 500, NULL, &res);
    if (!rc) rc = print_table_rows("all_types_part", path);
    if (rc) return rc;
    /* 2: unpartitioned, rolled files, then a delete and a dynamic overwrite */
    snprintf(path, sizeof path, "%s/all_types_flat", dir);
    rc = create_all_types(path, false);
    tn_layout_write_options wo = TN_LAYOUT_WRITE_OPTIONS_INIT;
    wo.target_file_bytes = 64 * 1024;
    if (!rc) rc = append_range(tn_fs_default(), path, 0, 12000, &wo, &res);
    if (!rc) {
        tn_table *t = NULL;
        rc = tn_table_open(&t, tn_fs_default(), path, NULL);
        id_pred p = {7};
        tn_table_delete_options d = TN_TABLE_DELETE_OPTIONS_INIT;
        d.match = match_id_mod;
        d.match_ctx = &p;
        if (!rc) rc = tn_table_delete(t, &d, &res);
        tn_table_close(t);
    }
    if (!rc) rc = print_table_rows("all_types_flat", path);
    if (rc) return rc;
    /* 3: partitioned, overwritten dynamically and statically */
    snprintf(path, sizeof path, "%s/overwritten", dir);
    rc = create_all_types(path, true);
    if (!rc) rc = append_range(tn_fs_default(), path, 0, 200, NULL, &res);
    tn_layout_write_options dyn = TN_LAYOUT_WRITE_OPTIONS_INIT;
    dyn.mode = TN_LAYOUT_OVERWRITE_DYNAMIC;
    if (!rc) rc = append_range(tn_fs_default(), path, 500, 3, &dyn, &res);
    if (!rc) rc = print_table_rows("overwritten", path);
    return rc;
}

/* TEST_MAIN with one hidden mode (argv[1] == "--write-interop DIR"). */
struct tn_test_entry tn_tests[512];
int tn_test_count;
int tn_test_failed_flag;
char tn_test_fail_msg[2048];
int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "--write-interop") == 0) {
        int rc = write_interop(argv[2]);
        if (rc) fprintf(stderr, "error: %s\n", tn_error_message());
        return rc ? 1 : 0;
    }
    int passed = 0, failed = 0;
    for (int i = 0; i < tn_test_count; i++) {
        if (argc > 1 && !strstr(tn_tests[i].name, argv[1])) continue;
        tn_test_failed_flag = 0;
        tn_tests[i].fn();
        if (tn_test_failed_flag) { failed++; printf("FAIL %s: %s\n", tn_tests[i].name, tn_test_fail_msg); }
        else { passed++; printf("ok %s\n", tn_tests[i].name); }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
