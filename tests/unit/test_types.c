/*
 * tests/unit/test_types.c: unit tests of types/: the type table, vectors (nulls, strings,
 * growth, append), chunks, value comparison, and the text spelling of values. Every expected
 * string in the formatting tables was produced by the DuckDB oracle
 * (tests/oracle/duckdb "SELECT x::VARCHAR ...", DuckDB v1.5.6), not by tarn.
 */
#include "types/types.h"
#include "testlib.h"

#include <math.h>


/* ----- types ----- */

TEST(type_table) {
    char buf[32];
    CHECK_EQ_STR(tn_type_id_name(TN_TYPE_INTEGER), "INTEGER");
    CHECK_EQ_STR(tn_type_id_name(TN_TYPE_TIMESTAMP_TZ), "TIMESTAMPTZ");
    CHECK_EQ_STR(tn_type_format(tn_type_decimal(18, 3), buf, sizeof buf), "DECIMAL(18,3)");
    CHECK_EQ_STR(tn_type_format(tn_type_make(TN_TYPE_VARBINARY), buf, sizeof buf), "VARBINARY");
    CHECK_EQ_INT(tn_type_width(tn_type_make(TN_TYPE_BOOLEAN)), 1);
    CHECK_EQ_INT(tn_type_width(tn_type_make(TN_TYPE_SMALLINT)), 2);
    CHECK_EQ_INT(tn_type_width(tn_type_make(TN_TYPE_DATE)), 4);
    CHECK_EQ_INT(tn_type_width(tn_type_make(TN_TYPE_TIMESTAMP)), 8);
    CHECK_EQ_INT(tn_type_width(tn_type_make(TN_TYPE_VARCHAR)), sizeof(tn_str));
    CHECK_EQ_INT(tn_type_width(tn_type_decimal(18, 2)), 8);
    CHECK_EQ_INT(tn_type_width(tn_type_decimal(19, 2)), 16);
    CHECK(tn_type_equal(tn_type_decimal(10, 2), tn_type_decimal(10, 2)));
    CHECK(!tn_type_equal(tn_type_decimal(10, 2), tn_type_decimal(10, 3)));
    CHECK(!tn_type_equal(tn_type_make(TN_TYPE_TIMESTAMP), tn_type_make(TN_TYPE_TIMESTAMP_TZ)));
    CHECK(tn_type_is_string(tn_type_make(TN_TYPE_VARBINARY)));
    CHECK(tn_type_is_integer(tn_type_make(TN_TYPE_TINYINT)));
    CHECK(!tn_type_is_integer(tn_type_make(TN_TYPE_DATE)));
    CHECK(tn_type_is_numeric(tn_type_decimal(5, 0)));
    CHECK(!tn_type_is_numeric(tn_type_make(TN_TYPE_BOOLEAN)));
    CHECK(tn_type_is_decimal128(tn_type_decimal(38, 10)));
    CHECK(!tn_type_is_decimal128(tn_type_decimal(18, 10)));
}

/* ----- vectors ----- */

static const char *fmt_row(tn_buf *b, const tn_vector *v, uint32_t row) {
    tn_buf_clear(b);
    int rc = tn_value_format(b, v, row);
    if (rc == 1) return "NULL";
    if (rc < 0) return "ERROR";
    tn_buf_append_byte(b, 0);
    return (const char *)b->data;
}

TEST(vector_nulls_and_growth) {
    tn_vector v;
    CHECK_OK(tn_vector_init(&v, tn_type_make(TN_TYPE_INTEGER), 4));
    CHECK(v.validity == NULL);
    for (uint32_t i = 0; i < 4; i++) ((int32_t *)v.data)[i] = (int32_t)i * 10;
    v.count = 4;
    CHECK_EQ_INT(tn_vector_null_count(&v), 0);
    CHECK_OK(tn_vector_set_null(&v, 2));
    CHECK(v.validity != NULL);
    CHECK(!tn_vector_is_valid(&v, 2));
    CHECK(tn_vector_is_valid(&v, 3));
    CHECK_EQ_INT(tn_vector_null_count(&v), 1);
    CHECK_OK(tn_vector_reserve(&v, 1000));
    CHECK_EQ_INT(v.capacity, 1000);
    CHECK_EQ_INT(((int32_t *)v.data)[3], 30);
    CHECK(!tn_vector_is_valid(&v, 2));
    for (uint32_t i = 4; i < 1000; i++) CHECK(tn_vector_is_valid(&v, i));
    CHECK_EQ_INT(((int32_t *)v.data)[999], 0); /* grown data is zeroed */
    CHECK_OK(tn_vector_set_null(&v, 999));
    v.count = 1000;
    CHECK_EQ_INT(tn_vector_null_count(&v), 2);
    tn_buf b = TN_BUF_INIT;
    CHECK_EQ_STR(fmt_row(&b, &v, 1), "10");
    CHECK_EQ_STR(fmt_row(&b, &v, 2), "NULL");
    CHECK(tn_vector_set_null(&v, 1000) < 0); /* beyond capacity */
    tn_vector_reset(&v);
    CHECK_EQ_INT(v.count, 0);
    CHECK(tn_vector_is_valid(&v, 2));
    tn_buf_free(&b);
    tn_vector_free(&v);
    tn_vector_free(&v); /* idempotent */
}

TEST(vector_strings) {
    tn_vector v;
    CHECK_OK(tn_vector_init(&v, tn_type_make(TN_TYPE_VARCHAR), 2));
    char src[16];
    strcpy(src, "hello");
    CHECK_OK(tn_vector_set_str(&v, 0, src, 5));
    strcpy(src, "XXXXX");  /* the vector copied the bytes */
    CHECK_OK(tn_vector_set_str(&v, 1, "", 0));
    v.count = 2;
    tn_value val;
    tn_vector_get_value(&v, 0, &val);
    CHECK(!val.is_null);
    CHECK_EQ_INT(val.u.s.len, 5);
    CHECK(memcmp(val.u.s.ptr, "hello", 5) == 0);
    tn_vector_get_value(&v, 1, &val);
    CHECK_EQ_INT(val.u.s.len, 0);
    /* append_from grows, copies strings and nulls */
    tn_vector w;
    CHECK_OK(tn_vector_init(&w, tn_type_make(TN_TYPE_VARCHAR), 1));
    CHECK_OK(tn_vector_set_null(&v, 1));
    for (int i = 0; i < 5000; i++) CHECK_OK(tn_vector_append_from(&w, &v, (uint32_t)(i % 2)));
    CHECK_EQ_INT(w.count, 5000);
    CHECK(w.capacity >= 5000);
    CHECK_EQ_INT(tn_vector_null_count(&w), 2500);
    tn_buf b = TN_BUF_INIT;
    CHECK_EQ_STR(fmt_row(&b, &w, 4998), "hello");
    CHECK_EQ_STR(fmt_row(&b, &w, 4999), "NULL");
    tn_vector_free(&v); /* w's strings must not point into v's heap */
    CHECK_EQ_STR(fmt_row(&b, &w, 0), "hello");
    /* set_str on a null row makes it valid again */
    CHECK_OK(tn_vector_set_str(&w, 1, "abc", 3));
    CHECK_EQ_STR(fmt_row(&b, &w, 1), "abc");
    tn_vector_reset(&w);
    CHECK_EQ_INT(w.count, 0);
    CHECK_EQ_INT(tn_vector_null_count(&w), 0);
    tn_vector x;
    CHECK_OK(tn_vector_init(&x, tn_type_make(TN_TYPE_INTEGER), 1));
    CHECK(tn_vector_append_from(&x, &w, 0) < 0); /* type mismatch */
    tn_vector_free(&x);
    tn_vector_free(&w);
    tn_buf_free(&b);
}

TEST(vector_fixed_width_append) {
    tn_type types[3] = {tn_type_decimal(38, 2), tn_type_make(TN_TYPE_BOOLEAN), tn_type_make(TN_TYPE_DOUBLE)};
    tn_chunk c;
    CHECK_OK(tn_chunk_init(&c, 3, types, TN_VECTOR_SIZE));
    CHECK_EQ_INT(c.ncols, 3);
    CHECK_EQ_INT(c.cols[0].capacity, TN_VECTOR_SIZE);
    ((tn_int128 *)c.cols[0].data)[0] = -(tn_int128)12345;
    ((uint8_t *)c.cols[1].data)[0] = 1;
    ((double *)c.cols[2].data)[0] = 0.5;
    c.count = c.cols[0].count = c.cols[1].count = c.cols[2].count = 1;
    tn_vector d;
    CHECK_OK(tn_vector_init(&d, tn_type_decimal(38, 2), 1));
    CHECK_OK(tn_vector_append_from(&d, &c.cols[0], 0));
    CHECK_OK(tn_vector_append_from(&d, &c.cols[0], 0));
    tn_buf b = TN_BUF_INIT;
    CHECK_EQ_STR(fmt_row(&b, &d, 1), "-123.45");
    CHECK_EQ_STR(fmt_row(&b, &c.cols[1], 0), "true");
    CHECK_EQ_STR(fmt_row(&b, &c.cols[2], 0), "0.5");
    tn_chunk_reset(&c);
    CHECK_EQ_INT(c.count, 0);
    tn_chunk_free(&c);
    tn_vector_free(&d);
    tn_buf_free(&b);
}

/* ----- comparison ----- */

static tn_value mk_i(tn_type_id id, int64_t i) { tn_value v; memset(&v, 0, sizeof v); v.type = tn_type_make(id); v.u.i = i; return v; }
static tn_value mk_d(double d) { tn_value v; memset(&v, 0, sizeof v); v.type = tn_type_make(TN_TYPE_DOUBLE); v.u.d = d; return v; }
static tn_value mk_s(const char *s, uint32_t n) {
    tn_value v; memset(&v, 0, sizeof v); v.type = tn_type_make(TN_TYPE_VARCHAR); v.u.s.ptr = s; v.u.s.len = n; return v;
}

TEST(value_compare) {
    tn_value a = mk_i(TN_TYPE_BIGINT, -5), b = mk_i(TN_TYPE_BIGINT, 3);
    CHECK(tn_value_compare(&a, &b) < 0 && tn_value_compare(&b, &a) > 0 && tn_value_compare(&a, &a) == 0);
    a = mk_i(TN_TYPE_TIMESTAMP, INT64_MIN + 1); b = mk_i(TN_TYPE_TIMESTAMP, INT64_MAX);
    CHECK(tn_value_compare(&a, &b) < 0);
    a = mk_d(NAN); b = mk_d(INFINITY);
    CHECK(tn_value_compare(&a, &b) > 0 && tn_value_compare(&b, &a) < 0 && tn_value_compare(&a, &a) == 0);
    a = mk_d(-1.5); b = mk_d(-0.5);
    CHECK(tn_value_compare(&a, &b) < 0);
    a = mk_s("ab", 2); b = mk_s("abc", 3);
    CHECK(tn_value_compare(&a, &b) < 0);
    a = mk_s("\xff", 1); b = mk_s("a", 1);           /* unsigned bytes */
    CHECK(tn_value_compare(&a, &b) > 0);
    a = mk_s(NULL, 0); b = mk_s("", 0);
    CHECK(tn_value_compare(&a, &b) == 0);
    a = mk_i(TN_TYPE_BOOLEAN, 0); a.u.b = false; b = a; b.u.b = true;
    CHECK(tn_value_compare(&a, &b) < 0);
    tn_value x, y;
    memset(&x, 0, sizeof x); memset(&y, 0, sizeof y);
    x.type = y.type = tn_type_decimal(38, 0);
    x.u.i128 = -((tn_int128)1 << 100); y.u.i128 = 1;
    CHECK(tn_value_compare(&x, &y) < 0);
    x.type = y.type = tn_type_decimal(10, 2);
    x.u.i = -100; y.u.i = -99;
    CHECK(tn_value_compare(&x, &y) < 0);
}

/* ----- formatting: expected strings from the DuckDB oracle ----- */

static const struct { double d; const char *s; } g_doubles[] = {
    {1.0, "1.0"},
    {1e20, "1e+20"},
    {1.5e-7, "1.5e-07"},
    {1e15, "1000000000000000.0"},
    {1e16, "1e+16"},
    {9999999999999998.0, "9999999999999998.0"},
    {1e-4, "0.0001"},
    {1e-5, "1e-05"},
    {0.00012345, "0.00012345"},
    {123456789012345678.0, "1.2345678901234568e+17"},
    {-0.0, "-0.0"},
    {0.0, "0.0"},
    {0.1, "0.1"},
    {1.0 / 3, "0.3333333333333333"},
    {2.0 / 3, "0.6666666666666666"},
    {1.7976931348623157e308, "1.7976931348623157e+308"},
    {5e-324, "5e-324"},
    {2.2250738585072014e-308, "2.2250738585072014e-308"},
    {123.456, "123.456"},
    {-1e-300, "-1e-300"},
    {1e100, "1e+100"},
    {0.1 + 0.2, "0.30000000000000004"},
    {9007199254740993.0, "9007199254740992.0"},
    {1e16 - 2, "9999999999999998.0"},
    {12345678.9, "12345678.9"},
    {-2.5e-5, "-2.5e-05"},
    {0.001, "0.001"},
    {100.0, "100.0"},
    {1e21, "1e+21"},
    {1.2345678901234567e-5, "1.2345678901234568e-05"},
    {NAN, "nan"},
    {-NAN, "-nan"},   /* -('nan'::DOUBLE) */
    {INFINITY, "inf"},
    {-INFINITY, "-inf"},
};

static const struct { float f; const char *s; } g_floats[] = {
    {3.14f, "3.14"},
    {1.7640524f, "1.7640524"},
    {1e10f, "10000000000.0"},
    {1e16f, "1e+16"},
    {1e-5f, "1e-05"},
    {1e15f, "1000000000000000.0"},
    {16777216.0f, "16777216.0"},
    {3.4028235e38f, "3.4028235e+38"},
    {1e-45f, "1e-45"},
    {0.1f, "0.1"},
    {-0.0f, "-0.0"},
    {0.3f, "0.3"},
    {1e-7f, "1e-07"},
    {122810704.0f, "122810704.0"},
    {-3626911.25f, "-3626911.25"},
    {1e7f, "10000000.0"},
    {123456.7f, "123456.7"},
    {0.0001f, "0.0001"},
    {2.5f, "2.5"},
    {-1.5e-10f, "-1.5e-10"},
    {NAN, "nan"},
    {-NAN, "-nan"},
    {INFINITY, "inf"},
    {-INFINITY, "-inf"},
};

static const struct { int32_t days; const char *s; } g_dates[] = {
    {0, "1970-01-01"},
    {-1, "1969-12-31"},
    {11016, "2000-02-29"},
    {-25508, "1900-03-01"},
    {-719162, "0001-01-01"},
    {-719163, "0001-12-31 (BC)"},
    {-719893, "0002-01-01 (BC)"},
    {-2440588, "4714-11-24 (BC)"},
    {2932896, "9999-12-31"},
    {3789548, "12345-06-07"},
    {-141438, "1582-10-04"},
    {INT32_MAX, "infinity"},
    {-INT32_MAX, "-infinity"},
};

static const struct { int64_t us; const char *s, *tz; } g_timestamps[] = {
    {INT64_C(0), "1970-01-01 00:00:00", "1970-01-01 00:00:00+00"},
    {INT64_C(1577840523500000), "2020-01-01 01:02:03.5", "2020-01-01 01:02:03.5+00"},
    {INT64_C(-1), "1969-12-31 23:59:59.999999", "1969-12-31 23:59:59.999999+00"},
    {INT64_C(-2208988800000000), "1900-01-01 00:00:00", "1900-01-01 00:00:00+00"},
    {INT64_C(-62198719199999877), "0002-01-01 (BC) 10:00:00.000123", "0002-01-01 (BC) 10:00:00.000123+00"},
    {INT64_C(1577836800120000), "2020-01-01 00:00:00.12", "2020-01-01 00:00:00.12+00"},
    {INT64_C(-9223372036854775), "1677-09-21 00:12:43.145225", "1677-09-21 00:12:43.145225+00"},
    {INT64_C(9223372036854775), "2262-04-11 23:47:16.854775", "2262-04-11 23:47:16.854775+00"},
    {INT64_C(-1000000), "1969-12-31 23:59:59", "1969-12-31 23:59:59+00"},
    {INT64_C(-62135596799999999), "0001-01-01 00:00:00.000001", "0001-01-01 00:00:00.000001+00"},
    {INT64_C(-62135596800000001), "0001-12-31 (BC) 23:59:59.999999", "0001-12-31 (BC) 23:59:59.999999+00"},
    /* DuckDB's largest TIMESTAMP; its TIMESTAMPTZ parse of this literal is off, so no tz row */
    {INT64_C(9223372036854775806), "294247-01-10 04:00:54.775806", NULL},
    {INT64_MAX, "infinity", "infinity"},
    {-INT64_MAX, "-infinity", "-infinity"},
};

TEST(format_double) {
    char buf[64];
    for (size_t i = 0; i < sizeof g_doubles / sizeof g_doubles[0]; i++) {
        int n = tn_format_double(buf, sizeof buf, g_doubles[i].d);
        CHECK_MSG(strcmp(buf, g_doubles[i].s) == 0, "double #%zu: got %s, DuckDB %s", i, buf, g_doubles[i].s);
        CHECK_EQ_INT(n, strlen(g_doubles[i].s));
    }
}

TEST(format_float) {
    char buf[64];
    for (size_t i = 0; i < sizeof g_floats / sizeof g_floats[0]; i++) {
        tn_format_float(buf, sizeof buf, g_floats[i].f);
        CHECK_MSG(strcmp(buf, g_floats[i].s) == 0, "float #%zu: got %s, DuckDB %s", i, buf, g_floats[i].s);
    }
}

TEST(format_date_timestamp) {
    char buf[64];
    for (size_t i = 0; i < sizeof g_dates / sizeof g_dates[0]; i++) {
        tn_format_date(buf, sizeof buf, g_dates[i].days);
        CHECK_MSG(strcmp(buf, g_dates[i].s) == 0, "date %d: got %s, DuckDB %s", g_dates[i].days, buf, g_dates[i].s);
    }
    tn_buf b = TN_BUF_INIT;
    for (size_t i = 0; i < sizeof g_timestamps / sizeof g_timestamps[0]; i++) {
        tn_format_timestamp(buf, sizeof buf, g_timestamps[i].us);
        CHECK_MSG(strcmp(buf, g_timestamps[i].s) == 0, "ts %lld: got %s, DuckDB %s",
                  (long long)g_timestamps[i].us, buf, g_timestamps[i].s);
        if (!g_timestamps[i].tz) continue;
        tn_value v;
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_TIMESTAMP_TZ);
        v.u.i = g_timestamps[i].us;
        tn_buf_clear(&b);
        CHECK_OK(tn_value_to_text(&b, &v));
        tn_buf_append_byte(&b, 0);
        CHECK_MSG(strcmp((char *)b.data, g_timestamps[i].tz) == 0, "tstz %lld: got %s, DuckDB %s",
                  (long long)g_timestamps[i].us, (char *)b.data, g_timestamps[i].tz);
    }
    tn_buf_free(&b);
    /* civil conversions round-trip over a wide range, including negative years */
    for (int64_t d = -800000000; d <= 800000000; d += 9999991) {
        int64_t y;
        unsigned m, dd;
        tn_civil_from_days(d, &y, &m, &dd);
        CHECK_EQ_INT(tn_days_from_civil(y, m, dd), (int32_t)d);
    }
    CHECK_EQ_INT(tn_days_from_civil(2000, 2, 29), 11016);
}

static tn_int128 i128_from(const char *s) {
    bool neg = *s == '-';
    if (neg) s++;
    tn_int128 v = 0;
    for (; *s; s++) v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

TEST(format_decimal) {
    static const struct { const char *value; int p, s; const char *text; } cases[] = {
        {"150", 3, 2, "1.50"},
        {"-5", 5, 2, "-0.05"},
        {"0", 10, 3, "0.000"},
        {"5", 3, 0, "5"},
        {"-5", 4, 1, "-0.5"},
        {"-500", 3, 3, "-.500"},
        {"0", 3, 3, ".000"},
        {"500000000000000000", 18, 18, ".500000000000000000"},
        {"12345678901234567890123456789123456789", 38, 9, "12345678901234567890123456789.123456789"},
        {"-99999999999999999999999999999999999999", 38, 0, "-99999999999999999999999999999999999999"},
        {"10000000000000000000000000000000000000", 38, 38, ".10000000000000000000000000000000000000"},
        {"-100000000000000000000000000000000", 38, 37, "-0.0000100000000000000000000000000000000"},
    };
    char buf[64];
    tn_buf b = TN_BUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tn_int128 v = i128_from(cases[i].value);
        tn_format_decimal_p(buf, sizeof buf, v, cases[i].p, cases[i].s);
        CHECK_MSG(strcmp(buf, cases[i].text) == 0, "decimal #%zu: got %s, DuckDB %s", i, buf, cases[i].text);
        tn_value val;
        memset(&val, 0, sizeof val);
        val.type = tn_type_decimal(cases[i].p, cases[i].s);
        if (cases[i].p > 18) val.u.i128 = v;
        else val.u.i = (int64_t)v;
        tn_buf_clear(&b);
        CHECK_OK(tn_value_to_text(&b, &val));
        CHECK(b.len == strlen(cases[i].text) && memcmp(b.data, cases[i].text, b.len) == 0);
    }
    tn_buf_free(&b);
    tn_format_decimal(buf, sizeof buf, 5, 3);
    CHECK_EQ_STR(buf, "0.005");
    /* truncation is snprintf-like */
    int n = tn_format_decimal(buf, 4, 123456, 2);
    CHECK_EQ_INT(n, 7);
    CHECK_EQ_STR(buf, "123");
}

TEST(text_to_decimal_limits) {
    /* 38 digits is the widest DECIMAL; one more digit, or a scale that pushes the value
       to 10^38, is out of range, never a wrapped __int128 (fuzz_pgwire found the wrap). */
    tn_int128 v = 0;
    const char *max38 = "99999999999999999999999999999999999999";
    CHECK_OK(tn_text_to_decimal(max38, strlen(max38), 0, &v));
    CHECK(v == i128_from(max38));
    CHECK(tn_text_to_decimal("999999999999999999999999999999999999999", 39, 0, &v) < 0);
    CHECK(tn_text_to_decimal(max38, strlen(max38), 1, &v) < 0);
    const char *big = "3a837482f1137c5eeaf9";  /* not digits at all */
    CHECK(tn_text_to_decimal(big, strlen(big), 2, &v) < 0);
    CHECK_OK(tn_text_to_decimal("1.5", 3, 37, &v));
    CHECK(v == i128_from("15000000000000000000000000000000000000"));
    CHECK(tn_text_to_decimal("10", 2, 37, &v) < 0);
    CHECK_OK(tn_text_to_decimal("-0.25", 5, 2, &v));
    CHECK(v == -25);
    CHECK(tn_text_to_decimal("1E9999", 6, 0, &v) < 0);
    CHECK_OK(tn_text_to_decimal("0E-10", 5, 3, &v));
    CHECK(v == 0);
}

TEST(format_other_types) {
    /* from_hex('005C7F80FF41'), from_hex('0A0D09'), from_hex('1F207E2227') */
    static const struct { const char *bytes; uint32_t n; const char *text; } blobs[] = {
        {"\x00\x5C\x7F\x80\xFF\x41", 6, "\\x00\\x5C\\x7F\\x80\\xFFA"},
        {"\x0A\x0D\x09", 3, "\\x0A\\x0D\\x09"},
        {"\x1F\x20\x7E\x22\x27", 5, "\\x1F ~\\x22\\x27"},
        {"", 0, ""},
    };
    tn_buf b = TN_BUF_INIT;
    tn_value v;
    for (size_t i = 0; i < sizeof blobs / sizeof blobs[0]; i++) {
        memset(&v, 0, sizeof v);
        v.type = tn_type_make(TN_TYPE_VARBINARY);
        v.u.s.ptr = blobs[i].bytes;
        v.u.s.len = blobs[i].n;
        tn_buf_clear(&b);
        CHECK_OK(tn_value_to_text(&b, &v));
        tn_buf_append_byte(&b, 0);
        CHECK_EQ_STR((char *)b.data, blobs[i].text);
    }
    v.type = tn_type_make(TN_TYPE_VARCHAR);
    v.u.s.ptr = "a\\b\x01";
    v.u.s.len = 4;
    tn_buf_clear(&b);
    CHECK_OK(tn_value_to_text(&b, &v));
    CHECK(b.len == 4 && memcmp(b.data, "a\\b\x01", 4) == 0);
    v = mk_i(TN_TYPE_TINYINT, -128);
    tn_buf_clear(&b);
    CHECK_OK(tn_value_to_text(&b, &v));
    v = mk_i(TN_TYPE_BIGINT, INT64_MIN);
    CHECK_OK(tn_value_to_text(&b, &v));
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "-128-9223372036854775808");
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_BOOLEAN);
    tn_buf_clear(&b);
    CHECK_OK(tn_value_to_text(&b, &v));
    v.u.b = true;
    CHECK_OK(tn_value_to_text(&b, &v));
    v.is_null = true;
    CHECK_EQ_INT(tn_value_to_text(&b, &v), 1);
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "falsetrue");
    v = mk_i(TN_TYPE_DATE, -719893);
    tn_buf_clear(&b);
    CHECK_OK(tn_value_to_text(&b, &v));
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "0002-01-01 (BC)");
    memset(&v, 0, sizeof v);
    v.type = tn_type_make(TN_TYPE_FLOAT);
    v.u.d = 3.14f;
    tn_buf_clear(&b);
    CHECK_OK(tn_value_to_text(&b, &v));
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((char *)b.data, "3.14");
    tn_buf_free(&b);
}

TEST(vector_set_value_is_inverse_of_get_value) {
    tn_value in[5];
    memset(in, 0, sizeof in);
    in[0].type = tn_type_make(TN_TYPE_SMALLINT); in[0].u.i = -1234;
    in[1].type = tn_type_decimal(30, 4); in[1].u.i128 = -((tn_int128)1 << 100);
    in[2].type = tn_type_make(TN_TYPE_VARCHAR); in[2].u.s.ptr = "héllo"; in[2].u.s.len = 6;
    in[3].type = tn_type_make(TN_TYPE_FLOAT); in[3].u.d = 1.5;
    in[4].type = tn_type_make(TN_TYPE_DATE); in[4].is_null = true;
    for (int k = 0; k < 5; k++) {
        tn_vector v;
        CHECK_OK(tn_vector_init(&v, in[k].type, 4));
        CHECK_OK(tn_vector_set_null(&v, 2));           /* a NULL row that set_value must revive */
        CHECK_OK(tn_vector_set_value(&v, 2, &in[k]));
        tn_value out;
        tn_vector_get_value(&v, 2, &out);
        bool null_ok = out.is_null == in[k].is_null;
        bool same = in[k].is_null || tn_value_compare(&in[k], &out) == 0;
        tn_vector_free(&v);
        CHECK_MSG(null_ok && same, "type %s: value did not round-trip", tn_type_id_name((tn_type_id)in[k].type.id));
    }
}

TEST_MAIN()
