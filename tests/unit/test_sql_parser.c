/*
 * tests/unit/test_sql_parser.c: the SQL lexer/parser (src/sql/parse.h). Expected trees are
 * written by hand from what the SQL means (precedence, joins, CTEs...), not copied from the
 * printer; plus hundreds of must-parse statements, keywords used as names, source positions,
 * the error corpus tests/sql/parse_errors.txt, nesting limits, and stability properties
 * (same tree whatever the whitespace/comments/keyword case; every prefix parses or fails cleanly).
 */
#include "sql/parse.h"
#include "sql/parserInt.h"
#include "testlib.h"

#include <ctype.h>
#include <strings.h>

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
static char g_dump[65536];

/* Parse and dump all statements (without the trailing newline of the last); NULL on error. */
static const char *dump_sql(const char *sql) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    const char *res = NULL;
    if (a && tn_sql_parse(a, sql, &l) == 0) {
        tn_buf b = TN_BUF_INIT;
        if (tn_sql_print_stmts(&b, &l) == 0) {
            size_t n = b.len < sizeof g_dump ? b.len : sizeof g_dump - 1;
            if (n && b.data[n - 1] == '\n') n--;
            memcpy(g_dump, b.data, n);
            g_dump[n] = '\0';
            res = g_dump;
        }
        tn_buf_free(&b);
    }
    tn_arena_destroy(a);
    return res;
}

typedef struct dump_case {
    const char *sql;
    const char *expect;
} dump_case;

static int run_dump_cases(const dump_case *cases, size_t n) {
    int failures = 0;
    for (size_t k = 0; k < n; k++) {
        const char *got = dump_sql(cases[k].sql);
        if (!got) {
            printf("  parse failed: %s\n    %s\n", cases[k].sql, tn_error_message());
            failures++;
        } else if (strcmp(got, cases[k].expect) != 0) {
            printf("  mismatch: %s\n    got:    %s\n    expect: %s\n", cases[k].sql, got, cases[k].expect);
            failures++;
        }
    }
    printf("  # %zu dump cases\n", n);
    return failures;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------------------
 * DESIGN.md's seed statements, exactly as written.
 */
static const char *const g_design_sql =
    "CREATE TABLE IF NOT EXISTS test_binary (\n"
    "    date VARCHAR NOT NULL,\n"
    "    dist_mem VARBINARY,\n"
    "    CONSTRAINT test_binary_pk PRIMARY KEY (date)\n"
    ") SALT_BUCKETS=6;\n"
    "select date, bitmap(dist_mem) memNum from global_temp.test_binary group by date;\n"
    "\n"
    "CREATE TABLE verified_orders (\n"
    "    trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING,\n"
    "    PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED\n"
    ") PARTITIONED BY (dt) WITH ('bucket' = '16');\n"
    "INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price,\n"
    "    DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified';\n"
    "ALTER TABLE verified_orders SET ('bucket' = '32');\n"
    "INSERT OVERWRITE verified_orders PARTITION (dt = '2022-06-22')\n"
    "    SELECT trade_order_id, item_id, item_price FROM verified_orders WHERE dt = '2022-06-22';\n"
    "INSERT OVERWRITE verified_orders SELECT trade_order_id, item_id, item_price, dt\n"
    "    FROM verified_orders WHERE dt IN ('2022-06-20', '2022-06-21', '2022-06-22');\n"
    "\n"
    "CREATE TABLE t (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast\n"
    "    OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '15000');\n"
    "INSERT INTO t /*+ OPTIONS('rollupSize' = '3000') */ SELECT * FROM read_parquet('batch.parquet');\n"
    "SELECT avg(col_2) FROM t TABLESAMPLE (1 PERCENT);\n"
    "OPTIMIZE t WITH ('rollupSize' = '3000');\n";

TEST(design_statements_parse_as_written) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    CHECK_OK(tn_sql_parse(a, g_design_sql, &l));
    CHECK_EQ_INT(l.n, 11);
    static const tn_sql_stmt_kind kinds[] = {
        TN_SQL_S_CREATE_TABLE, TN_SQL_S_QUERY,  TN_SQL_S_CREATE_TABLE, TN_SQL_S_INSERT,
        TN_SQL_S_ALTER_TABLE,  TN_SQL_S_INSERT, TN_SQL_S_INSERT,       TN_SQL_S_CREATE_TABLE,
        TN_SQL_S_INSERT,       TN_SQL_S_QUERY,  TN_SQL_S_OPTIMIZE,
    };
    for (int k = 0; k < l.n; k++) CHECK_EQ_INT(l.stmts[k]->kind, kinds[k]);

    /* Phoenix DDL: `date` is a column; pk constraint named; SALT_BUCKETS kept as an option. */
    const tn_sql_stmt *s = l.stmts[0];
    CHECK(s->u.create_table.if_not_exists);
    CHECK_EQ_STR(s->u.create_table.name.parts[0].name, "test_binary");
    CHECK_EQ_INT(s->u.create_table.n_columns, 2);
    CHECK_EQ_STR(s->u.create_table.columns[0].name.name, "date");
    CHECK_EQ_INT(s->u.create_table.columns[0].type->type.id, TN_TYPE_VARCHAR);
    CHECK(s->u.create_table.columns[0].not_null);
    CHECK_EQ_INT(s->u.create_table.columns[1].type->type.id, TN_TYPE_VARBINARY);
    CHECK_EQ_STR(s->u.create_table.pk_name.name, "test_binary_pk");
    CHECK_EQ_INT(s->u.create_table.n_pk_columns, 1);
    CHECK_EQ_STR(s->u.create_table.pk_columns[0].name, "date");
    CHECK_EQ_INT(s->u.create_table.options.n, 1);
    CHECK_EQ_STR(s->u.create_table.options.items[0].key, "SALT_BUCKETS");
    CHECK_EQ_STR(s->u.create_table.options.items[0].value, "6");
    CHECK_EQ_INT(s->u.create_table.options.items[0].kind, TN_SQL_VALUE_NUMBER);

    /* Flink DDL: composite PK NOT ENFORCED, PARTITIONED BY, WITH options. */
    s = l.stmts[2];
    CHECK_EQ_INT(s->u.create_table.n_pk_columns, 3);
    CHECK_EQ_STR(s->u.create_table.pk_columns[2].name, "item_id");
    CHECK(s->u.create_table.pk_not_enforced);
    CHECK_EQ_INT(s->u.create_table.n_partitioned_by, 1);
    CHECK_EQ_STR(s->u.create_table.partitioned_by[0].name, "dt");
    CHECK_EQ_STR(s->u.create_table.options.items[0].key, "bucket");
    CHECK_EQ_STR(s->u.create_table.options.items[0].value, "16");
    CHECK_EQ_INT(s->u.create_table.columns[3].type->type.id, TN_TYPE_VARCHAR);   /* STRING */

    /* INSERT OVERWRITE ... PARTITION (dt = '...') */
    s = l.stmts[5];
    CHECK(s->u.insert.overwrite);
    CHECK_EQ_INT(s->u.insert.n_partition, 1);
    CHECK_EQ_STR(s->u.insert.partition[0].column.name, "dt");
    CHECK_EQ_STR(s->u.insert.partition[0].value->u.lit.text, "2022-06-22");

    /* The hint is kept as key/value pairs. */
    s = l.stmts[8];
    CHECK_EQ_INT(s->u.insert.n_hints, 1);
    CHECK_EQ_STR(s->u.insert.hints[0].name, "options");
    CHECK_EQ_INT(s->u.insert.hints[0].args.n, 1);
    CHECK_EQ_STR(s->u.insert.hints[0].args.items[0].key, "rollupSize");
    CHECK_EQ_STR(s->u.insert.hints[0].args.items[0].value, "3000");

    /* TABLESAMPLE (1 PERCENT) */
    s = l.stmts[9];
    const tn_sql_tableref *r = s->u.query->u.select.from;
    CHECK(r->sample != NULL);
    CHECK(!r->sample->rows);
    CHECK_EQ_INT(r->sample->size->u.lit.int_value, 1);
    CHECK_EQ_STR(l.stmts[9]->text, "SELECT avg(col_2) FROM t TABLESAMPLE (1 PERCENT)");
    tn_arena_destroy(a);
}

TEST(design_statements_dump) {
    static const dump_case cases[] = {
        {"CREATE TABLE IF NOT EXISTS test_binary (\n date VARCHAR NOT NULL,\n dist_mem VARBINARY,\n"
         " CONSTRAINT test_binary_pk PRIMARY KEY (date)\n) SALT_BUCKETS=6",
         "(create-table test_binary if-not-exists (columns (col date VARCHAR not-null) (col dist_mem VARBINARY))"
         " (primary-key test_binary_pk (columns date)) (options ('SALT_BUCKETS' 6)))"},
        {"select date, bitmap(dist_mem) memNum from global_temp.test_binary group by date",
         "(select (items (col date) (as (func bitmap (col dist_mem)) memNum))"
         " (from (table global_temp.test_binary)) (group-by (col date)))"},
        {"CREATE TABLE verified_orders (trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING,"
         " PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '16')",
         "(create-table verified_orders (columns (col trade_order_id BIGINT) (col item_id BIGINT)"
         " (col item_price DOUBLE) (col dt VARCHAR)) (primary-key (columns dt trade_order_id item_id) not-enforced)"
         " (partitioned-by dt) (options ('bucket' '16')))"},
        {"INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price,\n"
         " DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified'",
         "(insert verified_orders (select (items (col trade_order_id) (col item_id) (col item_price)"
         " (as (func date_format (col gmt_create) (str 'yyyy-MM-dd')) dt)) (from (table raw_orders))"
         " (where (= (col order_status) (str 'verified')))))"},
        {"ALTER TABLE verified_orders SET ('bucket' = '32')",
         "(alter-table verified_orders (set-options ('bucket' '32')))"},
        {"INSERT OVERWRITE verified_orders PARTITION (dt = '2022-06-22')\n"
         " SELECT trade_order_id, item_id, item_price FROM verified_orders WHERE dt = '2022-06-22'",
         "(insert-overwrite verified_orders (partition (dt (str '2022-06-22'))) (select (items (col trade_order_id)"
         " (col item_id) (col item_price)) (from (table verified_orders)) (where (= (col dt) (str '2022-06-22')))))"},
        {"INSERT OVERWRITE verified_orders SELECT trade_order_id, item_id, item_price, dt\n"
         " FROM verified_orders WHERE dt IN ('2022-06-20', '2022-06-21', '2022-06-22')",
         "(insert-overwrite verified_orders (select (items (col trade_order_id) (col item_id) (col item_price)"
         " (col dt)) (from (table verified_orders)) (where (in (col dt) (str '2022-06-20') (str '2022-06-21')"
         " (str '2022-06-22')))))"},
        {"CREATE TABLE t (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast\n"
         " OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '15000')",
         "(create-table t (columns (col col_1 INTEGER) (col col_2 DOUBLE) (col payload VARCHAR)) (using qbeast)"
         " (options ('columnsToIndex' 'col_1,col_2') ('cubeSize' '15000')))"},
        {"INSERT INTO t /*+ OPTIONS('rollupSize' = '3000') */ SELECT * FROM read_parquet('batch.parquet')",
         "(insert t (hint options ('rollupSize' '3000')) (select (items *)"
         " (from (tablefunc (func read_parquet (str 'batch.parquet'))))))"},
        {"SELECT avg(col_2) FROM t TABLESAMPLE (1 PERCENT)",
         "(select (items (func avg (col col_2))) (from (table t (sample (int 1) percent))))"},
        {"OPTIMIZE t WITH ('rollupSize' = '3000')", "(optimize t (options ('rollupSize' '3000')))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Expressions: precedence and every construct, with hand-written expected trees.
 */
TEST(expression_precedence) {
    static const dump_case cases[] = {
        {"SELECT 1 + 2 * 3", "(select (items (+ (int 1) (* (int 2) (int 3)))))"},
        {"SELECT (1 + 2) * 3", "(select (items (* (+ (int 1) (int 2)) (int 3))))"},
        {"SELECT 1 - 2 - 3", "(select (items (- (- (int 1) (int 2)) (int 3))))"},
        {"SELECT 10 / 2 % 3", "(select (items (% (/ (int 10) (int 2)) (int 3))))"},
        {"SELECT a OR b AND c", "(select (items (or (col a) (and (col b) (col c)))))"},
        {"SELECT a AND b OR c", "(select (items (or (and (col a) (col b)) (col c))))"},
        {"SELECT NOT a AND b", "(select (items (and (not (col a)) (col b))))"},
        {"SELECT NOT a = b", "(select (items (not (= (col a) (col b)))))"},
        {"SELECT NOT NOT a", "(select (items (not (not (col a)))))"},
        {"SELECT a = 1 OR b <> 2 AND c != 3",
         "(select (items (or (= (col a) (int 1)) (and (<> (col b) (int 2)) (<> (col c) (int 3))))))"},
        {"SELECT a || b = c || d", "(select (items (= (|| (col a) (col b)) (|| (col c) (col d)))))"},
        {"SELECT 'a' || 1 + 2", "(select (items (|| (str 'a') (+ (int 1) (int 2)))))"},
        {"SELECT a || b || c", "(select (items (|| (|| (col a) (col b)) (col c))))"},
        {"SELECT a IS NULL AND b IS NOT NULL", "(select (items (and (is-null (col a)) (is-not-null (col b)))))"},
        {"SELECT a + 1 IS NULL", "(select (items (is-null (+ (col a) (int 1)))))"},
        {"SELECT a = b IS TRUE", "(select (items (is-true (= (col a) (col b)))))"},
        {"SELECT a IS NOT FALSE", "(select (items (is-not-false (col a))))"},
        {"SELECT NOT a IS NULL", "(select (items (not (is-null (col a)))))"},
        {"SELECT a ISNULL, b NOTNULL", "(select (items (is-null (col a)) (is-not-null (col b))))"},
        {"SELECT a BETWEEN 1 AND 2 AND b", "(select (items (and (between (col a) (int 1) (int 2)) (col b))))"},
        {"SELECT a NOT BETWEEN b + 1 AND c * 2",
         "(select (items (not-between (col a) (+ (col b) (int 1)) (* (col c) (int 2)))))"},
        {"SELECT a IN (1, 2) OR b NOT IN (3)",
         "(select (items (or (in (col a) (int 1) (int 2)) (not-in (col b) (int 3)))))"},
        {"SELECT a + 1 IN (2) = TRUE", "(select (items (= (in (+ (col a) (int 1)) (int 2)) true)))"},
        {"SELECT a LIKE 'x%' AND b NOT ILIKE 'y' ESCAPE '!'",
         "(select (items (and (like (col a) (str 'x%')) (not-ilike (col b) (str 'y') (escape (str '!'))))))"},
        {"SELECT a NOT LIKE b || '%'", "(select (items (not-like (col a) (|| (col b) (str '%')))))"},
        {"SELECT -a * b", "(select (items (* (neg (col a)) (col b))))"},
        {"SELECT +a", "(select (items (pos (col a))))"},
        {"SELECT - - 1", "(select (items (int 1)))"},
        {"SELECT -2.5e3, -0.5, -7", "(select (items (float -2.5e3) (dec -0.5) (int -7)))"},
        {"SELECT 1-1", "(select (items (- (int 1) (int 1))))"},
        {"SELECT a::INT + 1", "(select (items (+ (cast (col a) INTEGER) (int 1))))"},
        {"SELECT -x::BIGINT", "(select (items (neg (cast (col x) BIGINT))))"},
        {"SELECT a::VARCHAR::DATE", "(select (items (cast (cast (col a) VARCHAR) DATE)))"},
        {"SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM NULL",
         "(select (items (is-distinct (col a) (col b)) (is-not-distinct (col a) null)))"},
        {"SELECT NOT EXISTS (SELECT 1)", "(select (items (not (exists (select (items (int 1)))))))"},
        {"SELECT a == 1", "(select (items (= (col a) (int 1))))"},
        {"SELECT x >= 1 AND x <= 2 AND y > 3 AND y < 4",
         "(select (items (and (and (and (>= (col x) (int 1)) (<= (col x) (int 2))) (> (col y) (int 3)))"
         " (< (col y) (int 4)))))"},
        {"SELECT (a OR b) AND c", "(select (items (and (or (col a) (col b)) (col c))))"},
        {"SELECT a * (b + c) / d", "(select (items (/ (* (col a) (+ (col b) (col c))) (col d))))"},
        {"SELECT a % 2 = 0", "(select (items (= (% (col a) (int 2)) (int 0))))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

TEST(expression_literals_and_names) {
    static const dump_case cases[] = {
        {"SELECT 42, 1.50, .5, 1e10, 2.5E-3, 'it''s', X'CAFE', TRUE, FALSE, NULL",
         "(select (items (int 42) (dec 1.50) (dec .5) (float 1e10) (float 2.5E-3) (str 'it''s') (blob X'CAFE')"
         " true false null))"},
        {"SELECT '', x'', 'a\nb'", "(select (items (str '') (blob X'') (str 'a\\x0Ab')))"},
        {"SELECT DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00', TIMESTAMPTZ '2024-01-01 10:00:00+00'",
         "(select (items (lit DATE '2024-01-01') (lit TIMESTAMP '2024-01-01 10:00:00')"
         " (lit TIMESTAMPTZ '2024-01-01 10:00:00+00')))"},
        {"SELECT INTERVAL '1' DAY, INTERVAL 3 HOURS, INTERVAL '1 day', INTERVAL '1-2' YEAR TO MONTH",
         "(select (items (interval (str '1') day) (interval (int 3) hour) (interval (str '1 day'))"
         " (interval (str '1-2') year month)))"},
        {"SELECT d + INTERVAL 1 DAY", "(select (items (+ (col d) (interval (int 1) day))))"},
        {"SELECT ?, ?, $3", "(select (items (param 1) (param 2) (param 3)))"},
        {"SELECT ['a', 'b'], []", "(select (items (list (str 'a') (str 'b')) (list)))"},
        {"SELECT 99999999999999999999", "(select (items (int 99999999999999999999)))"},
        {"SELECT \"MixedCase\", `back``tick`, Foo FROM \"S\".\"T\"",
         "(select (items (col \"MixedCase\") (col \"back`tick\") (col foo)) (from (table \"S\".\"T\")))"},
        {"SELECT \"a\"\"b\"", "(select (items (col \"a\"\"b\")))"},
        {"SELECT T.Col, s.t.c FROM s.t", "(select (items (col t.col) (col s.t.c)) (from (table s.t)))"},
        {"SELECT (a, b)", "(select (items (row (col a) (col b))))"},
        {"SELECT (SELECT max(x) FROM t) AS m",
         "(select (items (as (subquery (select (items (func max (col x))) (from (table t)))) m)))"},
        {"SELECT a FROM t WHERE b IN (SELECT c FROM u)",
         "(select (items (col a)) (from (table t)) (where (in (col b) (select (items (col c)) (from (table u))))))"},
        {"SELECT a FROM t WHERE b NOT IN (VALUES (1))",
         "(select (items (col a)) (from (table t)) (where (not-in (col b) (values (row (int 1))))))"},
        {"SELECT EXISTS (SELECT * FROM t WHERE t.a = u.a)",
         "(select (items (exists (select (items *) (from (table t)) (where (= (col t.a) (col u.a)))))))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

TEST(expression_functions_case_cast) {
    static const dump_case cases[] = {
        {"SELECT count(*), count(DISTINCT x), sum(y) FILTER (WHERE y > 0) FROM t",
         "(select (items (func count *) (func count distinct (col x)) (func sum (col y) (filter (> (col y) (int 0)))))"
         " (from (table t)))"},
        {"SELECT row_number() OVER (PARTITION BY a ORDER BY b DESC) FROM t",
         "(select (items (func row_number (over (partition-by (col a)) (order-by (desc (col b)))))) (from (table t)))"},
        {"SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
         "(select (items (func sum (col x) (over (order-by (col t)) (frame rows (unbounded-preceding) (current-row)))))"
         " (from (table t)))"},
        {"SELECT avg(x) OVER (PARTITION BY a, b RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING)",
         "(select (items (func avg (col x) (over (partition-by (col a) (col b))"
         " (frame range (preceding (int 1)) (following (int 2)))))))"},
        {"SELECT rank() OVER w", "(select (items (func rank (over w))))"},
        {"SELECT string_agg(s, ',' ORDER BY s) FROM t",
         "(select (items (func string_agg (col s) (str ',') (order-by (col s)))) (from (table t)))"},
        {"SELECT CAST(a AS DECIMAL(10, 2)), TRY_CAST(b AS VARCHAR), c::DATE",
         "(select (items (cast (col a) DECIMAL(10,2)) (try-cast (col b) VARCHAR) (cast (col c) DATE)))"},
        {"SELECT CAST(x AS TIMESTAMP WITH TIME ZONE), CAST(y AS DOUBLE PRECISION)",
         "(select (items (cast (col x) TIMESTAMPTZ) (cast (col y) DOUBLE)))"},
        {"SELECT EXTRACT(YEAR FROM d), EXTRACT(epoch FROM ts)",
         "(select (items (extract year (col d)) (extract epoch (col ts))))"},
        {"SELECT CASE WHEN a > 0 THEN 'p' WHEN a < 0 THEN 'n' ELSE 'z' END",
         "(select (items (case (when (> (col a) (int 0)) (str 'p')) (when (< (col a) (int 0)) (str 'n'))"
         " (else (str 'z')))))"},
        {"SELECT CASE a WHEN 1 THEN 'one' END", "(select (items (case (operand (col a)) (when (int 1) (str 'one')))))"},
        {"SELECT CASE WHEN a THEN CASE WHEN b THEN 1 END END",
         "(select (items (case (when (col a) (case (when (col b) (int 1)))))))"},
        {"SELECT left(s, 2), right(s, 1)", "(select (items (func left (col s) (int 2)) (func right (col s) (int 1))))"},
        {"SELECT s.f(x), F(), coalesce(a, b, 0)",
         "(select (items (func s.f (col x)) (func f) (func coalesce (col a) (col b) (int 0))))"},
        {"SELECT current_date, CURRENT_TIMESTAMP", "(select (items (func current_date) (func current_timestamp)))"},
        {"SELECT struct_pack(a := 1, b => 2)", "(select (items (func struct_pack (named a (int 1)) (named b (int 2)))))"},
        {"SELECT f(a = 1)", "(select (items (func f (= (col a) (int 1)))))"},
        {"SELECT bitmap_or_agg(b), bitmap_count(bitmap_and(x, y)) FROM t",
         "(select (items (func bitmap_or_agg (col b)) (func bitmap_count (func bitmap_and (col x) (col y))))"
         " (from (table t)))"},
        {"SELECT array[1, 2]", "(select (items (list (int 1) (int 2))))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Queries.
 */
TEST(query_clauses) {
    static const dump_case cases[] = {
        {"SELECT *, t.*, s.t.* FROM t", "(select (items * (star t) (star s.t)) (from (table t)))"},
        {"SELECT a AS x, b y, c AS \"Z\", d AS date, e AS select",
         "(select (items (as (col a) x) (as (col b) y) (as (col c) \"Z\") (as (col d) date) (as (col e) select)))"},
        {"SELECT DISTINCT a FROM t", "(select distinct (items (col a)) (from (table t)))"},
        {"SELECT ALL a FROM t", "(select (items (col a)) (from (table t)))"},
        {"SELECT a FROM t GROUP BY 1 HAVING count(*) > 1 ORDER BY 1 DESC NULLS LAST, a LIMIT 10 OFFSET 5",
         "(select (items (col a)) (from (table t)) (group-by (int 1)) (having (> (func count *) (int 1)))"
         " (order-by (desc (int 1) nulls-last) (col a)) (limit (int 10)) (offset (int 5)))"},
        {"SELECT a FROM t ORDER BY a ASC NULLS FIRST", "(select (items (col a)) (from (table t)) (order-by (asc (col a) nulls-first)))"},
        {"SELECT a FROM t OFFSET 2 LIMIT 1", "(select (items (col a)) (from (table t)) (limit (int 1)) (offset (int 2)))"},
        {"SELECT a FROM t LIMIT ALL", "(select (items (col a)) (from (table t)))"},
        {"SELECT a, b, count(*) FROM t GROUP BY a, b",
         "(select (items (col a) (col b) (func count *)) (from (table t)) (group-by (col a) (col b)))"},
        {"SELECT 1 UNION ALL SELECT 2 UNION SELECT 3",
         "(union (union-all (select (items (int 1))) (select (items (int 2)))) (select (items (int 3))))"},
        {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3",
         "(union (select (items (int 1))) (intersect (select (items (int 2))) (select (items (int 3)))))"},
        {"SELECT 1 EXCEPT SELECT 2 ORDER BY 1 LIMIT 1",
         "(except (select (items (int 1))) (select (items (int 2))) (order-by (int 1)) (limit (int 1)))"},
        {"SELECT 1 UNION DISTINCT SELECT 2", "(union (select (items (int 1))) (select (items (int 2))))"},
        {"(SELECT 1) UNION (SELECT 2)", "(union (select (items (int 1))) (select (items (int 2))))"},
        {"((SELECT 1))", "(select (items (int 1)))"},
        {"(SELECT a FROM t LIMIT 1) LIMIT 2",
         "(select (items *) (from (subquery (select (items (col a)) (from (table t)) (limit (int 1))))) (limit (int 2)))"},
        {"SELECT 1 UNION ALL (SELECT 2 ORDER BY 1 LIMIT 1)",
         "(union-all (select (items (int 1))) (select (items (int 2)) (order-by (int 1)) (limit (int 1))))"},
        {"WITH x AS (SELECT 1 AS a), y(b) AS (SELECT a FROM x) SELECT b FROM y",
         "(with (x (select (items (as (int 1) a)))) (y (columns b) (select (items (col a)) (from (table x))))"
         " (select (items (col b)) (from (table y))))"},
        {"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
         "(with recursive (r (select (items (int 1)))) (select (items *) (from (table r))))"},
        {"WITH a AS (SELECT 1) SELECT * FROM a UNION ALL SELECT * FROM a",
         "(with (a (select (items (int 1)))) (union-all (select (items *) (from (table a)))"
         " (select (items *) (from (table a)))))"},
        {"SELECT * FROM (WITH q AS (SELECT 2) SELECT * FROM q) s",
         "(select (items *) (from (subquery (with (q (select (items (int 2)))) (select (items *) (from (table q))))"
         " (as s))))"},
        {"VALUES (1, 'a'), (2, 'b')", "(values (row (int 1) (str 'a')) (row (int 2) (str 'b')))"},
        {"SELECT * FROM (VALUES (1), (2)) v(x)",
         "(select (items *) (from (subquery (values (row (int 1)) (row (int 2))) (as v x))))"},
        {"SELECT 1", "(select (items (int 1)))"},
        {"SELECT a FROM t WHERE a > (SELECT avg(a) FROM t)",
         "(select (items (col a)) (from (table t)) (where (> (col a) (subquery (select (items (func avg (col a)))"
         " (from (table t)))))))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

TEST(query_from_and_joins) {
    static const dump_case cases[] = {
        {"SELECT * FROM a JOIN b ON a.id = b.id",
         "(select (items *) (from (join inner (table a) (table b) (on (= (col a.id) (col b.id))))))"},
        {"SELECT * FROM a INNER JOIN b ON TRUE", "(select (items *) (from (join inner (table a) (table b) (on true))))"},
        {"SELECT * FROM a LEFT OUTER JOIN b USING (id, k)",
         "(select (items *) (from (join left (table a) (table b) (using id k))))"},
        {"SELECT * FROM a LEFT JOIN b ON x", "(select (items *) (from (join left (table a) (table b) (on (col x)))))"},
        {"SELECT * FROM a RIGHT JOIN b ON TRUE FULL JOIN c ON FALSE",
         "(select (items *) (from (join full (join right (table a) (table b) (on true)) (table c) (on false))))"},
        {"SELECT * FROM a FULL OUTER JOIN b ON TRUE", "(select (items *) (from (join full (table a) (table b) (on true))))"},
        {"SELECT * FROM a CROSS JOIN b", "(select (items *) (from (join cross (table a) (table b))))"},
        {"SELECT * FROM a, b JOIN c ON b.x = c.x",
         "(select (items *) (from (join cross (table a) (join inner (table b) (table c) (on (= (col b.x) (col c.x)))))))"},
        {"SELECT * FROM a, b, c", "(select (items *) (from (join cross (join cross (table a) (table b)) (table c))))"},
        {"SELECT * FROM a x, b AS y(c1, c2)", "(select (items *) (from (join cross (table a (as x)) (table b (as y c1 c2)))))"},
        {"SELECT * FROM a NATURAL JOIN b", "(select (items *) (from (join natural-inner (table a) (table b))))"},
        {"SELECT * FROM a NATURAL LEFT JOIN b", "(select (items *) (from (join natural-left (table a) (table b))))"},
        {"SELECT * FROM (a JOIN b ON a.k = b.k) LEFT JOIN c ON c.k = a.k",
         "(select (items *) (from (join left (join inner (table a) (table b) (on (= (col a.k) (col b.k)))) (table c)"
         " (on (= (col c.k) (col a.k))))))"},
        {"SELECT * FROM (SELECT 1 AS one) AS s", "(select (items *) (from (subquery (select (items (as (int 1) one))) (as s))))"},
        {"SELECT * FROM ((SELECT 1) UNION ALL (SELECT 2)) u",
         "(select (items *) (from (subquery (union-all (select (items (int 1))) (select (items (int 2)))) (as u))))"},
        {"SELECT * FROM t1 JOIN (SELECT * FROM t2) s ON t1.a = s.a",
         "(select (items *) (from (join inner (table t1) (subquery (select (items *) (from (table t2))) (as s))"
         " (on (= (col t1.a) (col s.a))))))"},
        {"SELECT * FROM read_parquet(['a.parquet', 'b.parquet'])",
         "(select (items *) (from (tablefunc (func read_parquet (list (str 'a.parquet') (str 'b.parquet'))))))"},
        {"SELECT * FROM read_csv('f.csv', header = true, delim = ',') AS c",
         "(select (items *) (from (tablefunc (func read_csv (str 'f.csv') (named header true) (named delim (str ',')))"
         " (as c))))"},
        {"SELECT * FROM read_json('x.json')", "(select (items *) (from (tablefunc (func read_json (str 'x.json')))))"},
        {"SELECT * FROM delta_scan('/tmp/t') TABLESAMPLE (10 ROWS)",
         "(select (items *) (from (tablefunc (func delta_scan (str '/tmp/t')) (sample (int 10) rows))))"},
        {"SELECT * FROM t VERSION AS OF 3", "(select (items *) (from (table t (version-as-of (int 3)))))"},
        {"SELECT * FROM s.t TIMESTAMP AS OF '2024-01-01' AS x",
         "(select (items *) (from (table s.t (timestamp-as-of (str '2024-01-01')) (as x))))"},
        {"SELECT * FROM t TIMESTAMP AS OF TIMESTAMP '2024-01-01 00:00:00'",
         "(select (items *) (from (table t (timestamp-as-of (lit TIMESTAMP '2024-01-01 00:00:00')))))"},
        {"SELECT * FROM t AS x TABLESAMPLE BERNOULLI (5) REPEATABLE (42)",
         "(select (items *) (from (table t (sample (int 5) percent (method bernoulli) (repeatable (int 42))) (as x))))"},
        {"SELECT * FROM t TABLESAMPLE 10%", "(select (items *) (from (table t (sample (int 10) percent))))"},
        {"SELECT * FROM t TABLESAMPLE 10 PERCENT", "(select (items *) (from (table t (sample (int 10) percent))))"},
        {"SELECT * FROM t TABLESAMPLE (0.5 PERCENT)", "(select (items *) (from (table t (sample (dec 0.5) percent))))"},
        {"SELECT * FROM t TABLESAMPLE (10 %) x", "(select (items *) (from (table t (sample (int 10) percent) (as x))))"},
        {"SELECT * FROM t VERSION AS OF 1 TABLESAMPLE (1 PERCENT) AS x",
         "(select (items *) (from (table t (version-as-of (int 1)) (sample (int 1) percent) (as x))))"},
        {"SELECT * FROM global_temp.test_binary", "(select (items *) (from (table global_temp.test_binary)))"},
        {"SELECT * FROM c.s.t", "(select (items *) (from (table c.s.t)))"},
        {"SELECT * FROM delta.`/data/events`", "(select (items *) (from (table delta.\"/data/events\")))"},
        {"SELECT * FROM t, LATERAL (SELECT t.a) l",
         "(select (items *) (from (join cross (table t) (lateral (select (items (col t.a))) (as l)))))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Statements.
 */
TEST(statements) {
    static const dump_case cases[] = {
        {"CREATE TABLE IF NOT EXISTS s.t (a INT NOT NULL PRIMARY KEY, b DECIMAL(10,2) DEFAULT 0 COMMENT 'bee',"
         " c TIMESTAMP WITH TIME ZONE, d DOUBLE PRECISION, e CHARACTER VARYING(20), f TIMESTAMP(3), g TIMESTAMP_NTZ)",
         "(create-table s.t if-not-exists (columns (col a INTEGER not-null primary-key) (col b DECIMAL(10,2)"
         " (default (int 0)) (comment 'bee')) (col c TIMESTAMPTZ) (col d DOUBLE) (col e VARCHAR(20))"
         " (col f TIMESTAMP(3)) (col g TIMESTAMP)) (primary-key (columns a)))"},
        {"CREATE TABLE ty (a BOOLEAN, b TINYINT, c SMALLINT, d INTEGER, e BIGINT, f FLOAT, g REAL, h DOUBLE,"
         " i NUMERIC(5), j VARCHAR, k STRING, l CHAR(3), m TEXT, n VARBINARY, o BINARY, p BLOB, q BYTEA, r DATE,"
         " s TIMESTAMP, t TIMESTAMPTZ, u TIMESTAMP_LTZ, v TIMESTAMP WITHOUT TIME ZONE)",
         "(create-table ty (columns (col a BOOLEAN) (col b TINYINT) (col c SMALLINT) (col d INTEGER) (col e BIGINT)"
         " (col f FLOAT) (col g FLOAT) (col h DOUBLE) (col i DECIMAL(5)) (col j VARCHAR) (col k VARCHAR)"
         " (col l VARCHAR(3)) (col m VARCHAR) (col n VARBINARY) (col o VARBINARY) (col p VARBINARY) (col q VARBINARY)"
         " (col r DATE) (col s TIMESTAMP) (col t TIMESTAMPTZ) (col u TIMESTAMPTZ) (col v TIMESTAMP)))"},
        {"CREATE TABLE t USING delta PARTITIONED BY (p) LOCATION '/x' TBLPROPERTIES (delta.appendOnly = true)"
         " AS SELECT 1 AS a, 2 AS p",
         "(create-table t (using delta) (partitioned-by p) (options ('delta.appendOnly' true)) (location '/x')"
         " (as (select (items (as (int 1) a) (as (int 2) p)))))"},
        {"CREATE TABLE t2 AS SELECT * FROM t", "(create-table t2 (as (select (items *) (from (table t)))))"},
        {"CREATE TABLE p (k VARCHAR PRIMARY KEY, v BIGINT) SALT_BUCKETS=6, COMPRESSION='GZ'",
         "(create-table p (columns (col k VARCHAR primary-key) (col v BIGINT)) (primary-key (columns k))"
         " (options ('SALT_BUCKETS' 6) ('COMPRESSION' 'GZ')))"},
        {"CREATE TABLE ph (a VARCHAR NOT NULL, b INTEGER NOT NULL, CONSTRAINT pk PRIMARY KEY (a, b DESC))",
         "(create-table ph (columns (col a VARCHAR not-null) (col b INTEGER not-null)) (primary-key pk (columns a b)))"},
        {"CREATE TABLE c (x INT) COMMENT 'hello'", "(create-table c (columns (col x INTEGER)) (comment 'hello'))"},
        {"CREATE OR REPLACE VIEW v (x, y) AS SELECT a, b FROM t",
         "(create-view v or-replace (columns x y) (select (items (col a) (col b)) (from (table t))))"},
        {"CREATE VIEW IF NOT EXISTS s.v AS SELECT 1", "(create-view s.v if-not-exists (select (items (int 1))))"},
        {"CREATE SCHEMA IF NOT EXISTS s", "(create-schema s if-not-exists)"},
        {"CREATE SCHEMA s", "(create-schema s)"},
        {"DROP TABLE IF EXISTS s.t CASCADE", "(drop table s.t if-exists cascade)"},
        {"DROP VIEW v", "(drop view v)"},
        {"DROP SCHEMA IF EXISTS s", "(drop schema s if-exists)"},
        {"INSERT INTO t (a, b) VALUES (1, 'x'), (2, NULL)",
         "(insert t (columns a b) (values (row (int 1) (str 'x')) (row (int 2) null)))"},
        {"INSERT INTO t VALUES (1)", "(insert t (values (row (int 1))))"},
        {"INSERT INTO TABLE t SELECT 1", "(insert t (select (items (int 1))))"},
        {"INSERT INTO t (SELECT 1)", "(insert t (select (items (int 1))))"},
        {"INSERT INTO t WITH q AS (SELECT 1) SELECT * FROM q",
         "(insert t (with (q (select (items (int 1)))) (select (items *) (from (table q)))))"},
        {"INSERT OVERWRITE TABLE t PARTITION (dt = '2022-06-22', hr) SELECT * FROM s",
         "(insert-overwrite t (partition (dt (str '2022-06-22')) (hr)) (select (items *) (from (table s))))"},
        {"INSERT INTO t PARTITION (p = 1) (a) VALUES (2)",
         "(insert t (partition (p (int 1))) (columns a) (values (row (int 2))))"},
        {"UPSERT INTO t (k, v) VALUES ('a', 1)", "(upsert t (columns k v) (values (row (str 'a') (int 1))))"},
        {"UPSERT INTO t SELECT * FROM s", "(upsert t (select (items *) (from (table s))))"},
        {"DELETE FROM t WHERE a = 1", "(delete t (where (= (col a) (int 1))))"},
        {"DELETE FROM t", "(delete t)"},
        {"DELETE FROM s.t AS x WHERE x.a IS NULL", "(delete s.t (as x) (where (is-null (col x.a))))"},
        {"UPDATE t SET a = a + 1, b = 'x' WHERE c", "(update t (set (a (+ (col a) (int 1))) (b (str 'x'))) (where (col c)))"},
        {"UPDATE t u SET a = 1", "(update t (as u) (set (a (int 1))))"},
        {"ALTER TABLE t SET TBLPROPERTIES ('k' = 'v')", "(alter-table t (set-options ('k' 'v')))"},
        {"ALTER TABLE t SET OPTIONS ('bucket' = '8', 'x' = 1)", "(alter-table t (set-options ('bucket' '8') ('x' 1)))"},
        {"ALTER TABLE t ADD COLUMN c INT", "(alter-table t (add-column (col c INTEGER)))"},
        {"ALTER TABLE t ADD d VARCHAR NOT NULL", "(alter-table t (add-column (col d VARCHAR not-null)))"},
        {"ALTER TABLE t DROP COLUMN IF EXISTS d", "(alter-table t (drop-column if-exists d))"},
        {"ALTER TABLE t RENAME TO u", "(alter-table t (rename-to u))"},
        {"ALTER TABLE t RENAME COLUMN a TO b", "(alter-table t (rename-column a b))"},
        {"OPTIMIZE t", "(optimize t)"},
        {"OPTIMIZE t WHERE dt = '1' ZORDER BY (a, b)", "(optimize t (where (= (col dt) (str '1'))) (zorder a b))"},
        {"DESCRIBE HISTORY t", "(describe-history t)"},
        {"DESC t", "(describe t)"},
        {"DESCRIBE s.t", "(describe s.t)"},
        {"SHOW TBLPROPERTIES s.t", "(show-tblproperties s.t)"},
        {"SHOW TBLPROPERTIES t ('bucket')", "(show-tblproperties t (key 'bucket'))"},
        {"DESCRIBE TABLE t", "(describe t)"},
        {"DESCRIBE history", "(describe history)"},
        {"DESCRIBE SELECT 1", "(describe (select (items (int 1))))"},
        {"SHOW TABLES", "(show-tables)"},
        {"SHOW TABLES IN s", "(show-tables (in s))"},
        {"SHOW TABLES FROM s", "(show-tables (in s))"},
        {"SHOW SCHEMAS", "(show-schemas)"},
        {"SHOW DATABASES", "(show-schemas)"},
        {"COPY t FROM 'in.csv' (HEADER, DELIMITER ',')", "(copy t from 'in.csv' (options ('HEADER') ('DELIMITER' ',')))"},
        {"COPY (SELECT * FROM t) TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd)",
         "(copy (select (items *) (from (table t))) to 'out.parquet' (options ('FORMAT' parquet) ('COMPRESSION' zstd)))"},
        {"COPY t TO 'out.csv'", "(copy t to 'out.csv')"},
        {"COPY t (a, b) FROM 'x.csv' WITH (HEADER true)", "(copy t (columns a b) from 'x.csv' (options ('HEADER' true)))"},
        {"SET 'threads' = '4'", "(set (option ('threads' '4')))"},
        {"SET spark.sql.shuffle.partitions = 10", "(set (option ('spark.sql.shuffle.partitions' 10)))"},
        {"SET threads TO 2", "(set (option ('threads' 2)))"},
        {"SET search_path = main", "(set (option ('search_path' main)))"},
        {"EXPLAIN ANALYZE SELECT 1", "(explain-analyze (select (items (int 1))))"},
        {"EXPLAIN SELECT 1", "(explain (select (items (int 1))))"},
        {"EXPLAIN INSERT INTO t VALUES (1)", "(explain (insert t (values (row (int 1)))))"},
        {"VACUUM t RETAIN 168 HOURS", "(vacuum t (retain-hours 168))"},
        {"VACUUM t", "(vacuum t)"},
        {"VACUUM t DRY RUN", "(vacuum t dry-run)"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

/* Keywords that must stay usable as names. */
TEST(nonreserved_keywords_as_names) {
    static const dump_case cases[] = {
        {"select date, timestamp, version, key, partition, options, bucket, value, type, comment, first, last,"
         " percent, rows, hours from t",
         "(select (items (col date) (col timestamp) (col version) (col key) (col partition) (col options) (col bucket)"
         " (col value) (col type) (col comment) (col first) (col last) (col percent) (col rows) (col hours))"
         " (from (table t)))"},
        {"CREATE TABLE version (date DATE, key INT, type VARCHAR, value DOUBLE, comment STRING, partition INT)",
         "(create-table version (columns (col date DATE) (col key INTEGER) (col type VARCHAR) (col value DOUBLE)"
         " (col comment VARCHAR) (col partition INTEGER)))"},
        {"SELECT * FROM t version", "(select (items *) (from (table t (as version))))"},
        {"SELECT * FROM rows TABLESAMPLE (1 PERCENT)", "(select (items *) (from (table rows (sample (int 1) percent))))"},
        {"SELECT first, last FROM t ORDER BY first NULLS LAST",
         "(select (items (col first) (col last)) (from (table t)) (order-by (asc (col first) nulls-last)))"},
        {"INSERT INTO partition VALUES (1)", "(insert partition (values (row (int 1))))"},
        {"SELECT * FROM t WHERE date = DATE '2024-01-01'",
         "(select (items *) (from (table t)) (where (= (col date) (lit DATE '2024-01-01'))))"},
        {"SELECT t.date, t.key FROM tables AS t", "(select (items (col t.date) (col t.key)) (from (table tables (as t))))"},
        {"SELECT count(date) AS count FROM schema.table_x",
         "(select (items (as (func count (col date)) count)) (from (table schema.table_x)))"},
        {"SELECT a.select, b.\"from\" FROM a, b", "(select (items (col a.select) (col b.\"from\")) (from (join cross (table a) (table b))))"},
        {"SELECT interval, extract, exists, try_cast, replace FROM t",
         "(select (items (col interval) (col extract) (col exists) (col try_cast) (col replace)) (from (table t)))"},
        {"SELECT view, schema, tables, history, location, overwrite, upsert FROM set",
         "(select (items (col view) (col schema) (col tables) (col history) (col location) (col overwrite)"
         " (col upsert)) (from (table set)))"},
        {"SELECT x version FROM t", "(select (items (as (col x) version)) (from (table t)))"},
        {"UPDATE t SET key = 1, value = 'v'", "(update t (set (key (int 1)) (value (str 'v'))))"},
        {"SELECT * FROM t TIMESTAMP", "(select (items *) (from (table t (as timestamp))))"},
        {"SELECT filter, over FROM t", "(select (items (col filter) (col over)) (from (table t)))"},
    };
    int f = run_dump_cases(cases, N_OF(cases));
    CHECK_EQ_INT(f, 0);
}

/* Hundreds of statements that must parse; each also goes through the stability checks below. */
static const char *const g_must_parse[] = {
    "SELECT 1", "select 1;", "SELECT 1;;;", "  SELECT\n1  ", "SELECT a FROM t", "SELECT a, b, c FROM t",
    "SELECT * FROM t WHERE a = 1", "SELECT * FROM t WHERE a <> 1 AND b != 2", "SELECT * FROM t WHERE NOT a",
    "SELECT * FROM t WHERE a IS NULL OR b IS NOT NULL", "SELECT * FROM t WHERE a BETWEEN 1 AND 10",
    "SELECT * FROM t WHERE a NOT BETWEEN 1 AND 10", "SELECT * FROM t WHERE a IN (1,2,3)",
    "SELECT * FROM t WHERE a NOT IN ('x', 'y')", "SELECT * FROM t WHERE a IN (SELECT b FROM u)",
    "SELECT * FROM t WHERE s LIKE 'a%'", "SELECT * FROM t WHERE s NOT LIKE '%b'", "SELECT * FROM t WHERE s ILIKE 'A%'",
    "SELECT * FROM t WHERE s LIKE 'a!%' ESCAPE '!'", "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
    "SELECT * FROM t WHERE NOT EXISTS (SELECT 1)", "SELECT a + b - c * d / e % f FROM t", "SELECT a || '-' || b FROM t",
    "SELECT -a, +b, - - c FROM t", "SELECT CASE WHEN a THEN 1 ELSE 0 END FROM t", "SELECT CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' END FROM t",
    "SELECT CAST(a AS INT) FROM t", "SELECT CAST(a AS VARCHAR(10)) FROM t", "SELECT CAST(a AS DECIMAL(38, 10)) FROM t",
    "SELECT TRY_CAST(a AS DATE) FROM t", "SELECT a::TIMESTAMP FROM t", "SELECT a::DECIMAL(5,2)::VARCHAR FROM t",
    "SELECT count(*) FROM t", "SELECT count(1), count(a), count(DISTINCT a) FROM t",
    "SELECT sum(a) FILTER (WHERE a > 0) FROM t", "SELECT min(a), max(a), avg(a) FROM t GROUP BY b",
    "SELECT row_number() OVER () FROM t", "SELECT rank() OVER (ORDER BY a) FROM t",
    "SELECT lag(a, 1) OVER (PARTITION BY b ORDER BY c) FROM t",
    "SELECT sum(a) OVER (ORDER BY c ROWS 3 PRECEDING) FROM t",
    "SELECT sum(a) OVER (ORDER BY c ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t",
    "SELECT EXTRACT(YEAR FROM d), EXTRACT(MONTH FROM d), EXTRACT(DAY FROM d) FROM t",
    "SELECT EXTRACT('hour' FROM ts) FROM t", "SELECT (SELECT 1)", "SELECT (SELECT max(a) FROM t) + 1",
    "SELECT 123456789012345678901234567890", "SELECT 1.5, .5, 5., 1e5, 1E-5, 1.5e+5", "SELECT 'a''b'", "SELECT X'00ff'",
    "SELECT x'DEADbeef'", "SELECT TRUE, FALSE, NULL", "SELECT DATE '2020-02-29'", "SELECT TIMESTAMP '2020-02-29 12:00:00.123456'",
    "SELECT TIME '12:00'", "SELECT INTERVAL '1' HOUR", "SELECT INTERVAL 5 MINUTES", "SELECT INTERVAL '2' YEARS",
    "SELECT INTERVAL (1 + 1) DAY", "SELECT INTERVAL -1 DAY", "SELECT now() - INTERVAL '1 hour'",
    "SELECT ?", "SELECT $1, $2", "SELECT * FROM t WHERE a = ? AND b = ?", "SELECT \"a b\" FROM \"my table\"",
    "SELECT `a b` FROM `db`.`tbl`", "SELECT a AS \"Alias\" FROM t", "SELECT a alias FROM t", "SELECT a AS b, c d FROM t",
    "SELECT t.* FROM t", "SELECT t.*, u.a FROM t, u", "SELECT * FROM s.t", "SELECT * FROM c.s.t x",
    "SELECT * FROM t AS x(a, b)", "SELECT * FROM t x JOIN u y ON x.a = y.a",
    "SELECT * FROM t JOIN u USING (a)", "SELECT * FROM t LEFT JOIN u ON t.a = u.a", "SELECT * FROM t RIGHT OUTER JOIN u ON TRUE",
    "SELECT * FROM t FULL JOIN u ON t.a = u.a", "SELECT * FROM t CROSS JOIN u", "SELECT * FROM t, u, v",
    "SELECT * FROM t NATURAL JOIN u", "SELECT * FROM (t JOIN u ON t.a = u.a)", "SELECT * FROM t JOIN u ON t.a = u.a JOIN v ON u.b = v.b",
    "SELECT * FROM (SELECT * FROM t) s", "SELECT * FROM (SELECT * FROM t) AS s(a)", "SELECT * FROM (VALUES (1, 2)) v(a, b)",
    "SELECT * FROM read_parquet('f.parquet')", "SELECT * FROM read_parquet(['a', 'b'])", "SELECT * FROM read_parquet('d/*.parquet') p",
    "SELECT * FROM read_csv('f.csv', header = true)", "SELECT * FROM read_csv('f.csv', header = false, delim = '|', quote = '\"')",
    "SELECT * FROM read_json('f.json')", "SELECT * FROM delta_scan('/data/t')", "SELECT count(*) FROM delta_scan('/data/t') d",
    "SELECT * FROM t TABLESAMPLE (1 PERCENT)", "SELECT * FROM t TABLESAMPLE (10 ROWS)", "SELECT * FROM t TABLESAMPLE (0.01 PERCENT)",
    "SELECT * FROM t TABLESAMPLE SYSTEM (10)", "SELECT * FROM t x TABLESAMPLE (5 PERCENT)", "SELECT * FROM t VERSION AS OF 0",
    "SELECT * FROM t TIMESTAMP AS OF '2024-01-01 00:00:00'", "SELECT * FROM t VERSION AS OF 2 x",
    "SELECT a FROM t GROUP BY a", "SELECT a FROM t GROUP BY 1", "SELECT a, count(*) FROM t GROUP BY 1 HAVING count(*) > 1",
    "SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC", "SELECT a FROM t ORDER BY 1 ASC NULLS FIRST, 2 DESC NULLS LAST",
    "SELECT a FROM t LIMIT 10", "SELECT a FROM t LIMIT 10 OFFSET 20", "SELECT a FROM t OFFSET 5 ROWS",
    "SELECT 1 UNION SELECT 2", "SELECT 1 UNION ALL SELECT 2", "SELECT 1 INTERSECT SELECT 1", "SELECT 1 EXCEPT SELECT 2",
    "SELECT 1 INTERSECT ALL SELECT 1", "SELECT 1 EXCEPT ALL SELECT 1", "(SELECT 1) UNION ALL (SELECT 2) ORDER BY 1",
    "WITH a AS (SELECT 1) SELECT * FROM a", "WITH a AS (SELECT 1), b AS (SELECT * FROM a) SELECT * FROM b",
    "WITH a(x, y) AS (VALUES (1, 2)) SELECT x FROM a", "VALUES (1)", "VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "SELECT DISTINCT a, b FROM t", "SELECT * FROM t WHERE a = (SELECT max(a) FROM t)", "SELECT coalesce(a, 0) FROM t",
    "SELECT nullif(a, 0), greatest(a, b), least(a, b) FROM t", "SELECT date_format(ts, 'yyyy-MM-dd') FROM t",
    "SELECT bitmap(b) FROM t", "SELECT bitmap_count(bitmap_or(a, b)) FROM t", "SELECT upper(s), lower(s), length(s) FROM t",
    "SELECT substr(s, 1, 2), substring(s, 2) FROM t", "SELECT round(a, 2), abs(a), floor(a), ceil(a) FROM t",
    "SELECT a FROM t WHERE a IS DISTINCT FROM b", "SELECT a FROM t WHERE a IS NOT DISTINCT FROM b",
    "SELECT a FROM t WHERE (a, b) IN (SELECT c, d FROM u)", "SELECT * FROM t -- trailing comment",
    "SELECT /* inline */ 1", "SELECT /* nested /* comment */ still */ 1", "-- only a comment\nSELECT 1",
    "SELECT 1 /*+ ignored hint */", "SELECT /*+ BROADCAST(u) */ * FROM t JOIN u ON TRUE",
    "CREATE TABLE t (a INT)", "CREATE TABLE IF NOT EXISTS t (a INT, b VARCHAR)", "CREATE TABLE s.t (a BIGINT NOT NULL)",
    "CREATE TABLE t (a INT PRIMARY KEY, b DOUBLE)", "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))",
    "CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a))", "CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED)",
    "CREATE TABLE t (a INT) USING delta", "CREATE TABLE t (a INT) USING parquet LOCATION '/tmp/t'",
    "CREATE TABLE t (a INT, dt STRING) PARTITIONED BY (dt)", "CREATE TABLE t (a INT) WITH ('bucket' = '4')",
    "CREATE TABLE t (a INT) TBLPROPERTIES ('delta.appendOnly' = 'true')",
    "CREATE TABLE t (a INT) USING qbeast OPTIONS ('columnsToIndex' = 'a', 'cubeSize' = '1000')",
    "CREATE TABLE t (k VARCHAR NOT NULL, v VARBINARY CONSTRAINT pk PRIMARY KEY (k)) SALT_BUCKETS=6",
    "CREATE TABLE t (a INT) SALT_BUCKETS = 4, IMMUTABLE_ROWS = true", "CREATE TABLE t AS SELECT 1 AS a",
    "CREATE TABLE t AS (SELECT 1 AS a)", "CREATE OR REPLACE TABLE t AS SELECT 1", "CREATE TEMP TABLE t (a INT)",
    "CREATE TABLE t (a TIMESTAMP(6) WITH TIME ZONE)", "CREATE TABLE t (a DECIMAL, b NUMERIC(38), c DEC(10,0))",
    "CREATE TABLE t (a INT DEFAULT -1, b VARCHAR DEFAULT 'x' NOT NULL)", "CREATE VIEW v AS SELECT 1",
    "CREATE VIEW v (a) AS SELECT 1", "CREATE OR REPLACE VIEW s.v AS SELECT * FROM t WHERE a > 0",
    "CREATE VIEW v AS WITH q AS (SELECT 1) SELECT * FROM q", "CREATE SCHEMA s", "CREATE SCHEMA IF NOT EXISTS s",
    "CREATE DATABASE d", "DROP TABLE t", "DROP TABLE IF EXISTS t", "DROP TABLE s.t CASCADE", "DROP VIEW IF EXISTS v",
    "DROP SCHEMA s CASCADE", "DROP TABLE t RESTRICT", "INSERT INTO t VALUES (1, 2)", "INSERT INTO t (a, b) VALUES (1, 2), (3, 4)",
    "INSERT INTO t SELECT * FROM u", "INSERT INTO s.t (a) SELECT a FROM u WHERE a > 0",
    "INSERT OVERWRITE t SELECT * FROM u", "INSERT OVERWRITE TABLE t SELECT * FROM u",
    "INSERT OVERWRITE t PARTITION (dt = '2022-01-01') SELECT a FROM u",
    "INSERT OVERWRITE t PARTITION (dt = '2022-01-01', h = 3) SELECT a FROM u",
    "INSERT INTO t /*+ OPTIONS('rollupSize' = '3000') */ SELECT * FROM u",
    "INSERT INTO t /*+ OPTIONS('a' = '1', 'b' = '2') */ VALUES (1)",
    "INSERT INTO t /*+ OPTIONS('a'='1') */ /*+ OPTIONS('b'='2') */ SELECT 1",
    "INSERT INTO t VALUES (?, ?)", "INSERT INTO t VALUES ($1, $2)", "UPSERT INTO t VALUES (1, 'a')",
    "UPSERT INTO t (a, b) VALUES (1, 'a')", "UPSERT INTO t SELECT * FROM u", "DELETE FROM t", "DELETE FROM t WHERE a = 1",
    "DELETE FROM t WHERE a IN (SELECT a FROM u)", "UPDATE t SET a = 1", "UPDATE t SET a = a + 1, b = NULL WHERE c > 0",
    "ALTER TABLE t SET ('bucket' = '32')", "ALTER TABLE t SET TBLPROPERTIES ('a' = 'b', 'c' = 'd')",
    "ALTER TABLE t ADD COLUMN c INT", "ALTER TABLE t ADD COLUMN c VARCHAR NOT NULL", "ALTER TABLE t ADD c DOUBLE",
    "ALTER TABLE t RENAME TO u", "ALTER TABLE s.t RENAME TO s.u", "ALTER TABLE t DROP COLUMN c",
    "OPTIMIZE t", "OPTIMIZE s.t", "OPTIMIZE t WITH ('rollupSize' = '3000')", "OPTIMIZE t ZORDER BY a, b",
    "DESCRIBE t", "DESCRIBE s.t", "DESC t", "DESCRIBE HISTORY t", "DESCRIBE HISTORY s.t", "SHOW TABLES", "SHOW TABLES IN s",
    "SHOW SCHEMAS", "COPY t FROM 'f.csv'", "COPY t FROM 'f.csv' (HEADER)", "COPY t FROM 'f.csv' (FORMAT csv, HEADER true)",
    "COPY t TO 'f.parquet'", "COPY t TO 'f.parquet' (FORMAT parquet)", "COPY (SELECT * FROM t) TO 'f.parquet'",
    "COPY (SELECT a FROM t WHERE a > 0) TO 'f.csv' (FORMAT csv, HEADER, DELIMITER ';')",
    "COPY t TO 'f.parquet' (FORMAT parquet, COMPRESSION 'zstd', ROW_GROUP_SIZE 100000)",
    "SET 'threads' = '4'", "SET threads = 4", "SET a.b.c = 'x'", "SET x = true", "SET x TO 'y'", "SET x",
    "EXPLAIN SELECT 1", "EXPLAIN ANALYZE SELECT * FROM t", "EXPLAIN SELECT * FROM t TABLESAMPLE (1 PERCENT)",
    "VACUUM t", "VACUUM t RETAIN 0 HOURS", "VACUUM s.t RETAIN 168 HOURS DRY RUN",
    "SELECT 1; SELECT 2", "CREATE TABLE t (a INT); INSERT INTO t VALUES (1); SELECT * FROM t;",
    "select DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt from raw_orders",
    "SELECT a FROM t WHERE dt IN ('2022-06-20', '2022-06-21', '2022-06-22')",
    "SELECT avg(col_2) FROM t TABLESAMPLE (1 PERCENT) WHERE col_1 > 10",
    "SELECT date, bitmap(dist_mem) memNum from global_temp.test_binary group by date order by date",
    "SELECT 'é', \"ünïcödé\" FROM \"日本\"", "SELECT naïve FROM café",
    "SELECT a FROM t WHERE a = 1 AND (b = 2 OR c = 3) AND NOT (d = 4)",
    "SELECT CASE WHEN a IS NULL THEN 'null' WHEN a BETWEEN 0 AND 9 THEN 'digit' ELSE 'big' END AS kind FROM t",
    "SELECT a FROM t1 WHERE a IN (SELECT a FROM t2 WHERE b IN (SELECT b FROM t3))",
    "SELECT * FROM t1 JOIN t2 ON t1.a = t2.a AND t1.b = t2.b LEFT JOIN t3 USING (c) WHERE t3.c IS NULL",
    "SELECT x, count(*) AS n FROM (SELECT a % 10 AS x FROM t) s GROUP BY x HAVING n > 1 ORDER BY n DESC, x LIMIT 3",
    "SELECT sum(CASE WHEN a > 0 THEN a ELSE 0 END) FROM t", "SELECT count(*) FILTER (WHERE a IS NULL) FROM t",
    "SELECT a FROM t WHERE ts >= TIMESTAMP '2024-01-01' AND ts < TIMESTAMP '2024-01-01' + INTERVAL 1 DAY",
};

TEST(must_parse_corpus) {
    int failures = 0;
    for (size_t k = 0; k < N_OF(g_must_parse); k++) {
        if (!dump_sql(g_must_parse[k])) {
            printf("  parse failed: %s\n    %s\n", g_must_parse[k], tn_error_message());
            failures++;
        }
    }
    printf("  # %zu must-parse statements\n", N_OF(g_must_parse));
    CHECK_EQ_INT(failures, 0);
}

/* ---------------------------------------------------------------------------------------------
 * AST details the binder relies on.
 */
TEST(positions_of_names_and_literals) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    CHECK_OK(tn_sql_parse(a, "SELECT a,\n  bb + 'x'", &l));
    const tn_sql_select *s = &l.stmts[0]->u.query->u.select;
    CHECK_EQ_INT(s->items[0].expr->pos.line, 1);
    CHECK_EQ_INT(s->items[0].expr->pos.col, 8);
    CHECK_EQ_INT(s->items[0].expr->pos.offset, 7);
    const tn_sql_expr *plus = s->items[1].expr;
    CHECK_EQ_INT(plus->kind, TN_SQL_E_BINARY);
    CHECK_EQ_INT(plus->pos.line, 2);
    CHECK_EQ_INT(plus->pos.col, 6);
    const tn_sql_expr *bb = plus->u.binary.left, *x = plus->u.binary.right;
    CHECK_EQ_INT(bb->pos.line, 2);
    CHECK_EQ_INT(bb->pos.col, 3);
    CHECK_EQ_INT(bb->pos.offset, 12);
    CHECK_EQ_INT(bb->u.column.parts[0].pos.offset, 12);
    CHECK_EQ_INT(x->pos.col, 8);
    CHECK_EQ_INT(x->pos.offset, 17);

    /* Columns count characters, not bytes. */
    CHECK_OK(tn_sql_parse(a, "SELECT 'é', x", &l));
    x = l.stmts[0]->u.query->u.select.items[1].expr;
    CHECK_EQ_INT(x->pos.col, 13);
    CHECK_EQ_INT(x->pos.offset, 13);

    /* Table names, aliases and DDL columns too. */
    CHECK_OK(tn_sql_parse(a, "SELECT 1 FROM\n\ts.t AS q", &l));
    const tn_sql_tableref *r = l.stmts[0]->u.query->u.select.from;
    CHECK_EQ_INT(r->u.table.name.parts[1].pos.line, 2);
    CHECK_EQ_INT(r->u.table.name.parts[1].pos.col, 4);
    CHECK_EQ_INT(r->alias.pos.col, 9);
    CHECK_OK(tn_sql_parse(a, "CREATE TABLE t (a INT,\n  b FOO)", &l));
    const tn_sql_column_def *c = &l.stmts[0]->u.create_table.columns[1];
    CHECK_EQ_INT(c->name.pos.line, 2);
    CHECK_EQ_INT(c->type->pos.col, 5);
    CHECK(!c->type->known);
    CHECK_EQ_STR(c->type->name, "FOO");
    tn_arena_destroy(a);
}

TEST(literal_values) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    CHECK_OK(tn_sql_parse(a, "SELECT 9223372036854775807, -9223372036854775808, 9223372036854775808, 007, 1e3,"
                             " 'a''b', X'00FF', ''", &l));
    const tn_sql_select_item *it = l.stmts[0]->u.query->u.select.items;
    CHECK(it[0].expr->u.lit.fits_int64);
    CHECK(it[0].expr->u.lit.int_value == INT64_MAX);
    CHECK(it[1].expr->u.lit.fits_int64);
    CHECK(it[1].expr->u.lit.int_value == INT64_MIN);
    CHECK_EQ_INT(it[1].expr->pos.col, 29);                 /* the '-' */
    CHECK(!it[2].expr->u.lit.fits_int64);
    CHECK_EQ_STR(it[2].expr->u.lit.text, "9223372036854775808");
    CHECK_EQ_INT(it[3].expr->u.lit.int_value, 7);
    CHECK_EQ_STR(it[3].expr->u.lit.text, "007");
    CHECK_EQ_INT(it[4].expr->u.lit.kind, TN_SQL_LIT_FLOAT);
    CHECK(it[4].expr->u.lit.float_value == 1000.0);
    CHECK_EQ_STR(it[5].expr->u.lit.text, "a'b");
    CHECK_EQ_INT(it[5].expr->u.lit.len, 3);
    CHECK_EQ_INT(it[6].expr->u.lit.kind, TN_SQL_LIT_BLOB);
    CHECK_EQ_INT(it[6].expr->u.lit.len, 2);
    CHECK_EQ_INT((unsigned char)it[6].expr->u.lit.text[0], 0x00);
    CHECK_EQ_INT((unsigned char)it[6].expr->u.lit.text[1], 0xFF);
    CHECK_EQ_INT(it[7].expr->u.lit.len, 0);

    /* Strings may hold NUL bytes when the length is given. */
    static const char nul_sql[] = "SELECT 'a\0b'";
    CHECK_OK(tn_sql_parse_n(a, nul_sql, sizeof nul_sql - 1, &l));
    CHECK_EQ_INT(l.stmts[0]->u.query->u.select.items[0].expr->u.lit.len, 3);

    /* DECIMAL defaults and types. */
    CHECK_OK(tn_sql_parse(a, "SELECT CAST(a AS DECIMAL), CAST(b AS DECIMAL(20)), CAST(c AS NUMERIC(10,4)), d::FLOAT(53)", &l));
    it = l.stmts[0]->u.query->u.select.items;
    CHECK_EQ_INT(it[0].expr->u.cast.type->type.precision, 18);
    CHECK_EQ_INT(it[0].expr->u.cast.type->type.scale, 3);
    CHECK_EQ_INT(it[1].expr->u.cast.type->type.precision, 20);
    CHECK_EQ_INT(it[1].expr->u.cast.type->type.scale, 0);
    CHECK_EQ_INT(it[2].expr->u.cast.type->type.scale, 4);
    CHECK_EQ_INT(it[3].expr->u.cast.type->type.id, TN_TYPE_DOUBLE);
    tn_arena_destroy(a);
}

TEST(parameters_and_statement_text) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    CHECK_OK(tn_sql_parse(a, "SELECT ? + ?; SELECT $3;\n  SELECT ? ;", &l));
    CHECK_EQ_INT(l.n, 3);
    CHECK_EQ_INT(l.stmts[0]->n_params, 2);
    CHECK_EQ_INT(l.stmts[1]->n_params, 3);
    CHECK_EQ_INT(l.stmts[2]->n_params, 1);                /* '?' numbering restarts per statement */
    CHECK_EQ_STR(l.stmts[0]->text, "SELECT ? + ?");
    CHECK_EQ_STR(l.stmts[2]->text, "SELECT ?");
    CHECK(l.stmts[1]->u.query->u.select.items[0].expr->u.param.dollar);

    CHECK_OK(tn_sql_parse(a, "", &l));
    CHECK_EQ_INT(l.n, 0);
    CHECK_OK(tn_sql_parse(a, " ; -- nothing\n ; /* x */", &l));
    CHECK_EQ_INT(l.n, 0);

    CHECK_OK(tn_sql_parse(a, "CREATE VIEW v AS\n  SELECT a FROM t  -- c\n;", &l));
    CHECK_EQ_STR(l.stmts[0]->u.create_view.query_text, "SELECT a FROM t");
    tn_arena_destroy(a);
}

TEST(hints_kept_as_key_values) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    CHECK_OK(tn_sql_parse(a, "INSERT INTO t /*+ OPTIONS('rollupSize' = '3000', 'sink.parallelism' = '2') */"
                             " /*+ BROADCAST(u), NOOP */ SELECT 1", &l));
    const tn_sql_stmt *s = l.stmts[0];
    CHECK_EQ_INT(s->u.insert.n_hints, 3);
    CHECK_EQ_STR(s->u.insert.hints[0].name, "options");
    CHECK_EQ_INT(s->u.insert.hints[0].args.n, 2);
    CHECK_EQ_STR(s->u.insert.hints[0].args.items[1].key, "sink.parallelism");
    CHECK_EQ_STR(s->u.insert.hints[0].args.items[1].value, "2");
    CHECK_EQ_INT(s->u.insert.hints[0].args.items[1].kind, TN_SQL_VALUE_STRING);
    CHECK_EQ_STR(s->u.insert.hints[1].name, "broadcast");
    CHECK_EQ_STR(s->u.insert.hints[1].args.items[0].key, "u");
    CHECK_EQ_INT(s->u.insert.hints[1].args.items[0].kind, TN_SQL_VALUE_NONE);
    CHECK_EQ_STR(s->u.insert.hints[2].name, "noop");
    /* A hint's position is inside the comment. */
    CHECK_EQ_INT(s->u.insert.hints[0].pos.col, 19);
    /* Hints anywhere else are comments. */
    CHECK_OK(tn_sql_parse(a, "SELECT /*+ OPTIONS('a' = ) broken */ 1", &l));
    CHECK_EQ_INT(l.n, 1);
    tn_arena_destroy(a);
}

TEST(keyword_table) {
    for (int k = KW_NONE + 2; k < KW_COUNT_; k++) {
        const char *prev = tn_sql_keyword_name((tn_kw)(k - 1)), *cur = tn_sql_keyword_name((tn_kw)k);
        CHECK_MSG(strcmp(prev, cur) < 0, "keyword table not sorted at %s, %s", prev, cur);
    }
    for (int k = KW_NONE + 1; k < KW_COUNT_; k++) {
        char lower[32];
        const char *name = tn_sql_keyword_name((tn_kw)k);
        size_t n = strlen(name);
        CHECK(n < sizeof lower);
        for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)name[i]);
        CHECK_EQ_INT(tn_sql_keyword_lookup(lower, n), k);
    }
    CHECK_EQ_INT(tn_sql_keyword_lookup("selectx", 7), KW_NONE);
    CHECK_EQ_INT(tn_sql_keyword_lookup("sel", 3), KW_NONE);
    /* PostgreSQL's classes for a few words. */
    CHECK_EQ_INT(tn_sql_keyword_class(KW_SELECT), KWC_RESERVED);
    CHECK_EQ_INT(tn_sql_keyword_class(KW_FROM), KWC_RESERVED);
    CHECK_EQ_INT(tn_sql_keyword_class(KW_JOIN), KWC_FUNC);
    CHECK_EQ_INT(tn_sql_keyword_class(KW_DATE), KWC_UNRESERVED);
    CHECK_EQ_INT(tn_sql_keyword_class(KW_VERSION), KWC_UNRESERVED);
    CHECK_EQ_INT(tn_sql_keyword_class(KW_PARTITION), KWC_UNRESERVED);
}

/* ---------------------------------------------------------------------------------------------
 * Errors.
 */
static int count_lines(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* The caret line (third line) has its '^' under `col` (no tabs, no window in these cases). */
static bool caret_at(const char *msg, int col) {
    const char *l2 = strchr(msg, '\n');
    const char *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    if (!l3) return false;
    l3++;
    for (int k = 0; k < col - 1; k++)
        if (l3[k] != ' ' && l3[k] != '\t') return false;
    return l3[col - 1] == '^' && l3[col] == '\0';
}

TEST(error_message_format) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    int rc = tn_sql_parse(a, "CREATE TABLE t (a INT\nSELECT", &l);
    CHECK_EQ_INT(rc, TN_ESYNTAX);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 2, column 1: expected ')' or ',' after a column definition,"
                                     " found 'SELECT'\nSELECT\n^");
    CHECK_EQ_INT(l.n, 0);
    rc = tn_sql_parse(a, "INSERT INTO t (a, b FROM u", &l);
    CHECK_EQ_INT(rc, TN_ESYNTAX);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 1, column 21: expected ')' after the column list,"
                                     " found 'FROM'\nINSERT INTO t (a, b FROM u\n                    ^");
    rc = tn_sql_parse(a, "SELECT a FROM", &l);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 1, column 14: expected a table name, found end of input\n"
                                     "SELECT a FROM\n             ^");
    rc = tn_sql_parse(a, "SELECT 'abc", &l);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 1, column 8: unterminated string literal\nSELECT 'abc\n       ^");
    rc = tn_sql_parse(a, "SELECT a FROM select", &l);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 1, column 15: expected a table name (SELECT is a reserved word;"
                                     " quote it as \"select\"), found 'select'\nSELECT a FROM select\n              ^");
    /* Tabs in the line are copied into the caret line so the caret lines up. */
    rc = tn_sql_parse(a, "\tSELECT\t1 +", &l);
    CHECK_EQ_STR(tn_error_message(), "syntax error at line 1, column 12: expected an expression, found end of input\n"
                                     "\tSELECT\t1 +\n\t      \t   ^");
    /* Long lines are shown as a window around the error. */
    char longsql[600];
    strcpy(longsql, "SELECT ");
    for (int k = 0; k < 100; k++) strcat(longsql, "a + ");
    strcat(longsql, ")");
    rc = tn_sql_parse(a, longsql, &l);
    CHECK_EQ_INT(rc, TN_ESYNTAX);
    const char *msg = tn_error_message();
    CHECK(strstr(msg, "column 408: expected an expression, found ')'") != NULL);
    CHECK_EQ_INT(count_lines(msg), 3);
    const char *l2 = strchr(msg, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    CHECK(strncmp(l2, "...", 3) == 0);
    CHECK_EQ_INT(l2[strchr(l3, '^') - l3], ')');
    tn_arena_destroy(a);
}

TEST(error_corpus) {
    char path[1024];
    snprintf(path, sizeof path, "%s", "tests/sql/parse_errors.txt");
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "cannot open tests/sql/parse_errors.txt (run from the repository root)");
    static char stmt[8192];
    size_t len = 0;
    char line[4096];
    int cases = 0, failures = 0, lineno = 0;
    tn_arena *a = tn_arena_create(0);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned el, ec;
        if (sscanf(line, "-- error: %u:%u", &el, &ec) == 2) {
            while (len && (stmt[len - 1] == '\n')) len--;
            stmt[len] = '\0';
            cases++;
            tn_sql_stmt_list l;
            int rc = tn_sql_parse(a, stmt, &l);
            tn_sql_pos pos = tn_sql_last_error_pos();
            const char *msg = tn_error_message();
            char prefix[64];
            snprintf(prefix, sizeof prefix, "syntax error at line %u, column %u: ", el, ec);
            if (rc != TN_ESYNTAX) {
                printf("  line %d: expected a syntax error, got %d: %s\n", lineno, rc, stmt);
                failures++;
            } else if (pos.line != el || pos.col != ec || strncmp(msg, prefix, strlen(prefix)) != 0) {
                printf("  line %d: expected error at %u:%u, got %u:%u: %s\n    %s\n", lineno, el, ec, pos.line,
                       pos.col, stmt, msg);
                failures++;
            } else if (count_lines(msg) != 3 || (!strchr(stmt, '\t') && ec < 60 && !caret_at(msg, (int)ec))) {
                printf("  line %d: bad caret lines:\n%s\n", lineno, msg);
                failures++;
            }
            len = 0;
            continue;
        }
        if (len == 0 && (line[0] == '\n' || line[0] == '#')) continue;
        size_t n = strlen(line);
        if (len + n < sizeof stmt) {
            memcpy(stmt + len, line, n);
            len += n;
        }
    }
    fclose(f);
    tn_arena_destroy(a);
    printf("  # %d error cases\n", cases);
    CHECK(cases >= 50);
    CHECK_EQ_INT(failures, 0);
}

TEST(nesting_limits) {
    tn_arena *a = tn_arena_create(0);
    tn_sql_stmt_list l;
    size_t cap = 64 * 1024;
    char *sql = malloc(cap);
    CHECK(sql != NULL);
    /* 900 parentheses: fine. */
    strcpy(sql, "SELECT ");
    for (int k = 0; k < 900; k++) strcat(sql, "(");
    strcat(sql, "1");
    for (int k = 0; k < 900; k++) strcat(sql, ")");
    CHECK_OK(tn_sql_parse(a, sql, &l));
    /* 5000: too deep, an error rather than a stack overflow. */
    static const char *const openers[] = {"(", "- ", "NOT ", "(SELECT ", "[", "f(", "CASE WHEN "};
    for (size_t o = 0; o < N_OF(openers); o++) {
        size_t n = strlen(openers[o]);
        strcpy(sql, "SELECT ");
        size_t len = strlen(sql);
        for (int k = 0; k < 5000 && len + n + 2 < cap; k++) {
            memcpy(sql + len, openers[o], n);
            len += n;
        }
        sql[len] = '\0';
        tn_arena_reset(a);
        int rc = tn_sql_parse(a, sql, &l);
        CHECK_EQ_INT(rc, TN_ESYNTAX);
        CHECK_MSG(strstr(tn_error_message(), "statement nested too deeply") != NULL, "%s", tn_error_message());
    }
    /* Nested FROM parentheses and EXPLAIN chains too. */
    strcpy(sql, "SELECT * FROM ");
    for (int k = 0; k < 3000; k++) strcat(sql, "(");
    CHECK_EQ_INT(tn_sql_parse(a, sql, &l), TN_ESYNTAX);
    CHECK(strstr(tn_error_message(), "nested too deeply") != NULL);
    sql[0] = '\0';
    for (int k = 0; k < 3000; k++) strcat(sql, "EXPLAIN ");
    CHECK_EQ_INT(tn_sql_parse(a, sql, &l), TN_ESYNTAX);
    CHECK(strstr(tn_error_message(), "nested too deeply") != NULL);
    free(sql);
    tn_arena_destroy(a);
}

/* ---------------------------------------------------------------------------------------------
 * Stability properties over every statement above.
 */
/* Replace each run of spaces outside quotes and comments with a comment and newlines; with
 * mode 1/2 also lower/upper-case every letter outside quotes, comments and numbers. */
static void variant(const char *in, char *out, size_t cap, int mode) {
    size_t o = 0;
    char q = 0;
    bool in_number = false;
    for (const char *s = in; *s && o + 24 < cap; s++) {
        char c = *s;
        if (q) {
            out[o++] = c;
            if (c == q) q = 0;
            continue;
        }
        if (c == '\'' || c == '"' || c == '`') q = c;
        if (c == '/' && s[1] == '*') {               /* keep comments (and hints) as they are */
            const char *e = strstr(s + 2, "*/");
            size_t n = e ? (size_t)(e + 2 - s) : strlen(s);
            if (o + n + 24 >= cap) break;
            memcpy(out + o, s, n);
            o += n;
            s += n - 1;
            continue;
        }
        if (c == '-' && s[1] == '-') {
            while (*s && *s != '\n' && o + 24 < cap) out[o++] = *s++;
            if (!*s) break;
            c = '\n';
        }
        if (c == ' ') {
            const char *ins = " /* c */\n\t";
            memcpy(out + o, ins, strlen(ins));
            o += strlen(ins);
            while (s[1] == ' ') s++;
            in_number = false;
            continue;
        }
        bool word = isalnum((unsigned char)c) || c == '_' || c == '.';
        bool start = word && (s == in || !(isalnum((unsigned char)s[-1]) || s[-1] == '_' || s[-1] == '.'));
        if (start) in_number = isdigit((unsigned char)c) || c == '.';
        if (!word) in_number = false;
        if (mode && !in_number) c = mode == 1 ? (char)tolower((unsigned char)c) : (char)toupper((unsigned char)c);
        out[o++] = c;
    }
    out[o] = '\0';
}

/* The dump of sql, of its whitespace/comment variant and (for plain queries, whose dumps hold
 * no quoted identifiers) of its lower- and upper-case variants must be equal; the case variants
 * up to case, since output aliases keep their spelling (`memNum`). */
static int check_stable(const char *sql, bool plain) {
    static char first[65536], v[16384];
    const char *d = dump_sql(sql);
    if (!d) return 0;
    strcpy(first, d);
    int failures = 0;
    d = dump_sql(sql);
    if (!d || strcmp(d, first) != 0) failures++;
    for (int mode = 0; mode < (plain ? 3 : 1); mode++) {
        variant(sql, v, sizeof v, mode);
        d = dump_sql(v);
        if (!d || (mode ? strcasecmp(d, first) : strcmp(d, first)) != 0) {
            printf("  unstable (mode %d): %s\n    %s\n    %s\n", mode, v, first, d ? d : tn_error_message());
            failures++;
        }
    }
    return failures;
}

TEST(dump_is_stable_under_whitespace_comments_and_case) {
    int failures = 0, n = 0;
    for (size_t k = 0; k < N_OF(g_must_parse); k++) {
        const char *s = g_must_parse[k];
        bool plain = (strncmp(s, "SELECT", 6) == 0 || strncmp(s, "WITH", 4) == 0 || strncmp(s, "VALUES", 6) == 0) &&
                     !strchr(s, '"') && !strchr(s, '`');
        failures += check_stable(s, plain);
        n++;
    }
    printf("  # %d statements checked\n", n);
    CHECK_EQ_INT(failures, 0);
}

TEST(multi_statement_equals_single) {
    /* Parsing "s1; s2" gives the same trees as parsing each alone. */
    int failures = 0;
    static char both[16384], expect[65536];
    for (size_t k = 0; k + 1 < N_OF(g_must_parse); k += 2) {
        const char *a = dump_sql(g_must_parse[k]);
        if (!a) continue;
        strcpy(expect, a);
        const char *b = dump_sql(g_must_parse[k + 1]);
        if (!b) continue;
        strcat(expect, "\n");
        strcat(expect, b);
        snprintf(both, sizeof both, "%s\n;\n%s", g_must_parse[k], g_must_parse[k + 1]);
        const char *d = dump_sql(both);
        if (!d || strcmp(d, expect) != 0) {
            printf("  multi mismatch: %s\n", both);
            failures++;
        }
    }
    CHECK_EQ_INT(failures, 0);
}

/* Every prefix of every statement parses or fails with a 3-line syntax error; never crashes. */
TEST(every_prefix_fails_cleanly) {
    tn_arena *a = tn_arena_create(0);
    int bad = 0;
    long n = 0;
    for (size_t k = 0; k < N_OF(g_must_parse); k++) {
        const char *s = g_must_parse[k];
        size_t len = strlen(s);
        for (size_t cut = 0; cut <= len; cut++) {
            tn_sql_stmt_list l;
            tn_arena_reset(a);
            int rc = tn_sql_parse_n(a, s, cut, &l);
            n++;
            if (rc == 0) continue;
            if (rc != TN_ESYNTAX || count_lines(tn_error_message()) != 3) {
                printf("  prefix %zu of %s: rc %d: %s\n", cut, s, rc, tn_error_message());
                bad++;
            }
        }
    }
    printf("  # %ld prefixes\n", n);
    tn_arena_destroy(a);
    CHECK_EQ_INT(bad, 0);
}

/* Random byte mutations of the corpus (deterministic seed). */
TEST(random_mutations_never_crash) {
    tn_arena *a = tn_arena_create(0);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    static const char *const frags[] = {"(", ")", "'", "\"", "`", "/*", "*/", "--", ";", ",", "SELECT", "FROM",
                                        "JOIN", "::", "[", "]", "$1", "?", "/*+", "NOT", "\n", "\0", "\xff"};
    char buf[4096];
    int bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        const char *s = g_must_parse[seed % N_OF(g_must_parse)];
        size_t len = strlen(s);
        memcpy(buf, s, len);
        int muts = 1 + (int)(seed >> 40) % 4;
        for (int m = 0; m < muts; m++) {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            size_t at = len ? (seed >> 8) % (len + 1) : 0;
            const char *fr = frags[(seed >> 32) % N_OF(frags)];
            size_t fl = fr[0] ? strlen(fr) : 1;
            switch ((seed >> 20) % 3) {
            case 0:                                   /* insert */
                if (len + fl < sizeof buf) {
                    memmove(buf + at + fl, buf + at, len - at);
                    memcpy(buf + at, fr, fl);
                    len += fl;
                }
                break;
            case 1:                                   /* delete */
                if (at < len) {
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
                break;
            default:                                  /* flip */
                if (at < len) buf[at] = (char)(seed >> 48);
                break;
            }
        }
        tn_sql_stmt_list l;
        tn_arena_reset(a);
        int rc = tn_sql_parse_n(a, buf, len, &l);
        if (rc == 0) {
            tn_buf b = TN_BUF_INIT;
            if (tn_sql_print_stmts(&b, &l)) bad++;
            tn_buf_free(&b);
        } else if (rc != TN_ESYNTAX || count_lines(tn_error_message()) != 3) {
            printf("  rc %d: %s\n", rc, tn_error_message());
            bad++;
        }
    }
    tn_arena_destroy(a);
    CHECK_EQ_INT(bad, 0);
}

TEST_MAIN()
