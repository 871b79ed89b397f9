/*
 * tests/unit/test_pgwire.c: unit tests of server/'s codec (pgwireInt.h): frame headers, the
 * startup packet, Parse/Bind/Execute decoding with every length validated, backend message
 * encoding, value encoding (text and binary, numeric base 10000), Bind parameter decoding,
 * SQLSTATE mapping, statement splitting and session-command recognition, and SCRAM-SHA-256
 * against RFC 7677's test vector.
 */
#include "testlib.h"

#include <openssl/evp.h>

#include "server/pgwireInt.h"

static size_t put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; return 4; }
static size_t put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; return 2; }

TEST(frame_lengths) {
    uint32_t n = 0;
    CHECK_OK(tn_pg_frame_check('Q', 4, 100, &n));
    CHECK_EQ_INT(n, 0);
    CHECK(tn_pg_frame_check('Q', 3, 100, &n) == TN_ECORRUPT);
    CHECK(tn_pg_frame_check('Q', -2147483647 - 1, 100, &n) == TN_ECORRUPT);
    CHECK(tn_pg_frame_check('Q', 2147483647, 1 << 20, &n) == TN_ELIMIT);
    CHECK(strstr(tn_error_message(), "above the server's limit") != NULL);
}

TEST(startup_packets) {
    uint8_t b[64];
    size_t k = put32(b, TN_PG_PROTOCOL_3);
    memcpy(b + k, "user\0bob\0database\0db\0\0", 22);
    tn_pg_startup st;
    CHECK_OK(tn_pg_decode_startup(b, (uint32_t)(k + 22), &st));
    CHECK_EQ_INT(st.npairs, 2);
    CHECK_EQ_STR(st.values[0], "bob");
    CHECK(tn_pg_decode_startup(b, (uint32_t)(k + 19), &st) == TN_ECORRUPT);    /* unterminated */
    put32(b, 2 << 16);
    CHECK(tn_pg_decode_startup(b, 4, &st) == TN_EUNSUPPORTED);
    CHECK(strstr(tn_error_message(), "protocol 2.0") != NULL);
    put32(b, TN_PG_SSL_REQUEST);
    CHECK_OK(tn_pg_decode_startup(b, 4, &st));
    CHECK_EQ_INT(st.kind, TN_PG_SSL);
    put32(b, TN_PG_CANCEL_REQUEST);
    put32(b + 4, 1234);
    put32(b + 8, 0xdeadbeef);
    CHECK_OK(tn_pg_decode_startup(b, 12, &st));
    CHECK_EQ_INT(st.cancel_pid, 1234);
    CHECK(tn_pg_decode_startup(b, 10, &st) == TN_ECORRUPT);
}

TEST(bind_validation) {
    uint8_t b[128];
    size_t k = 0;
    b[k++] = 0;                       /* portal "" */
    memcpy(b + k, "s1", 3); k += 3;   /* statement */
    k += put16(b + k, 1); k += put16(b + k, 1);           /* one format: binary */
    k += put16(b + k, 2);                                 /* two params */
    k += put32(b + k, 4); k += put32(b + k, 42);
    k += put32(b + k, 0xffffffff);                        /* NULL */
    k += put16(b + k, 0);
    tn_pg_bind m;
    CHECK_OK(tn_pg_decode_bind(b, (uint32_t)k, &m));
    CHECK_EQ_INT(m.nparams, 2);
    const uint8_t *d;
    int32_t l;
    tn_pg_bind_param(&m, 1, &d, &l);
    CHECK(d == NULL && l == -1);
    tn_pg_bind_param(&m, 0, &d, &l);
    CHECK(l == 4 && d[3] == 42);
    CHECK(tn_pg_decode_bind(b, (uint32_t)k - 1, &m) == TN_ECORRUPT);
    /* a parameter length past the end */
    uint8_t c[64];
    memcpy(c, b, k);
    put32(c + 3 + 3 + 2 + 2 + 2 - 0 + 0, 0x7fffffff);
    CHECK(tn_pg_decode_bind(c, (uint32_t)k, &m) == TN_ECORRUPT);
    CHECK(strstr(tn_error_message(), "exceeds") != NULL);
    /* format code 2 */
    memcpy(c, b, k);
    put16(c + 6, 2);
    CHECK(tn_pg_decode_bind(c, (uint32_t)k, &m) == TN_ECORRUPT);
    /* trailing bytes */
    memcpy(c, b, k);
    c[k] = 0;
    CHECK(tn_pg_decode_bind(c, (uint32_t)k + 1, &m) == TN_ECORRUPT);
}

TEST(encode_error_response) {
    tn_pg_out o = {TN_BUF_INIT, 0};
    tn_pg_put_error(&o, 'E', "ERROR", "42P01", "no table", NULL, NULL, 15);
    CHECK_OK(o.err);
    CHECK_EQ_INT(o.buf.data[0], 'E');
    uint32_t len = ((uint32_t)o.buf.data[1] << 24) | (o.buf.data[2] << 16) | (o.buf.data[3] << 8) | o.buf.data[4];
    CHECK_EQ_INT(len, o.buf.len - 1);
    CHECK(memmem(o.buf.data, o.buf.len, "C42P01\0Mno table\0P15\0\0", 22) != NULL);
    tn_buf_free(&o.buf);
}

static void encode1(tn_type t, const void *val, int fmt, tn_buf *out) {
    tn_vector v;
    tn_vector_init(&v, t, 1);
    memcpy(v.data, val, tn_type_width(t));
    v.count = 1;
    tn_buf_clear(out);
    tn_pg_encode_value(out, &v, 0, fmt, 1);
    tn_vector_free(&v);
}

TEST(value_encoding) {
    tn_buf b = TN_BUF_INIT;
    uint8_t t = 1;
    encode1(tn_type_make(TN_TYPE_BOOLEAN), &t, 0, &b);
    CHECK(b.len == 1 && b.data[0] == 't');
    double d = 0.1;
    encode1(tn_type_make(TN_TYPE_DOUBLE), &d, 0, &b);
    CHECK(b.len == 3 && memcmp(b.data, "0.1", 3) == 0);
    d = -1.0 / 0.0;
    encode1(tn_type_make(TN_TYPE_DOUBLE), &d, 0, &b);
    CHECK(b.len == 9 && memcmp(b.data, "-Infinity", 9) == 0);
    int32_t day = 10957 + 1;                     /* 2000-01-02: 1 in PostgreSQL's epoch */
    encode1(tn_type_make(TN_TYPE_DATE), &day, 1, &b);
    CHECK(b.len == 4 && b.data[3] == 1 && b.data[0] == 0);
    /* numeric 12345.678 (scale 3): ndigits 3, weight 1, digits 1 2345 6780, dscale 3 */
    int64_t x = 12345678;
    encode1(tn_type_decimal(10, 3), &x, 1, &b);
    static const uint8_t want[] = {0, 3, 0, 1, 0, 0, 0, 3, 0, 1, 0x09, 0x29, 0x1a, 0x7c};
    CHECK_MSG(b.len == sizeof want && memcmp(b.data, want, sizeof want) == 0, "numeric binary (%zu bytes)", b.len);
    x = -5;                                      /* -0.05 at scale 2: weight -1, digit 500, sign */
    encode1(tn_type_decimal(4, 2), &x, 1, &b);
    static const uint8_t want2[] = {0, 1, 0xff, 0xff, 0x40, 0, 0, 2, 0x01, 0xf4};
    CHECK_MSG(b.len == sizeof want2 && memcmp(b.data, want2, sizeof want2) == 0, "negative numeric binary");
    tn_interval iv = {14, 3, 4 * 3600000000LL + 5 * 60000000LL + 6500000};
    tn_buf_clear(&b);
    tn_pg_format_interval(&b, iv);
    tn_buf_append_byte(&b, 0);
    CHECK_EQ_STR((const char *)b.data, "1 year 2 mons 3 days 04:05:06.5");
    tn_buf_free(&b);
}

/* The text fast paths (integers, dates, timestamps written straight into the buffer) give
 * tn_value_format's text, for random values over the whole range, each day change (the
 * thread's last-day memo) and the ends of years 1 and 9999. */
TEST(text_fast_paths) {
    tn_buf fast = TN_BUF_INIT, slow = TN_BUF_INIT;
    static const tn_type_id ids[] = {TN_TYPE_TINYINT, TN_TYPE_SMALLINT, TN_TYPE_INTEGER, TN_TYPE_BIGINT,
                                     TN_TYPE_DATE, TN_TYPE_TIMESTAMP, TN_TYPE_TIMESTAMP_TZ};
    static const int64_t edges[] = {0, -1, 1, INT64_MIN, INT64_MAX, -INT64_MAX, INT32_MIN, INT32_MAX, -INT32_MAX,
                                    -62135596800000000LL, -62135596800000001LL, 253402300799999999LL,
                                    253402300800000000LL, -719162, -719163, 2932896, 2932897, -500000};
    uint64_t seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t x = i < (int)(sizeof edges / sizeof *edges) ? edges[i] : (int64_t)(seed >> (seed & 31));
        if (i % 3 == 0 && i >= 100) x = -x;
        for (size_t k = 0; k < sizeof ids / sizeof *ids; k++) {
            tn_type t = tn_type_make(ids[k]);
            int8_t i8 = (int8_t)x;
            int16_t i16 = (int16_t)x;
            int32_t i32 = ids[k] == TN_TYPE_DATE && i >= 100 ? (int32_t)(x % 3700000) : (int32_t)x;
            const void *val = tn_type_width(t) == 1 ? (const void *)&i8 : tn_type_width(t) == 2 ? (const void *)&i16
                              : tn_type_width(t) == 4 ? (const void *)&i32 : (const void *)&x;
            tn_vector v;
            tn_vector_init(&v, t, 1);
            memcpy(v.data, val, tn_type_width(t));
            v.count = 1;
            tn_buf_clear(&fast);
            tn_buf_clear(&slow);
            CHECK_OK(tn_pg_encode_value(&fast, &v, 0, 0, 1));
            CHECK_OK(tn_value_format(&slow, &v, 0));
            CHECK_MSG(fast.len == slow.len && memcmp(fast.data, slow.data, fast.len) == 0, "type %d %lld: '%.*s' vs '%.*s'",
                      (int)t.id, (long long)x, (int)fast.len, (const char *)fast.data, (int)slow.len,
                      (const char *)slow.data);
            tn_vector_free(&v);
        }
    }
    int64_t ts = -1;                             /* 1969-12-31 23:59:59.999999 */
    encode1(tn_type_make(TN_TYPE_TIMESTAMP), &ts, 0, &fast);
    CHECK(fast.len == 26 && memcmp(fast.data, "1969-12-31 23:59:59.999999", 26) == 0);
    ts = 1500000;                                /* 1970-01-01 00:00:01.5 */
    encode1(tn_type_make(TN_TYPE_TIMESTAMP_TZ), &ts, 0, &fast);
    CHECK(fast.len == 24 && memcmp(fast.data, "1970-01-01 00:00:01.5+00", 24) == 0);
    tn_buf_free(&fast);
    tn_buf_free(&slow);
}

TEST(param_decoding) {
    tn_arena *a = tn_arena_create(0);
    tn_value v;
    CHECK_OK(tn_pg_decode_param(&v, 23, 0, (const uint8_t *)" 42 ", 4, 1, a));
    CHECK(v.type.id == TN_TYPE_INTEGER && v.u.i == 42);
    CHECK(tn_pg_decode_param(&v, 23, 0, (const uint8_t *)"4x", 2, 2, a) == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "parameter $2") != NULL);
    CHECK(tn_pg_decode_param(&v, 21, 0, (const uint8_t *)"70000", 5, 1, a) == TN_EINVAL);
    uint8_t bin[8] = {0, 0, 0, 0, 0, 0, 0, 7};
    CHECK_OK(tn_pg_decode_param(&v, 20, 1, bin, 8, 1, a));
    CHECK(v.u.i == 7);
    CHECK(tn_pg_decode_param(&v, 20, 1, bin, 4, 1, a) == TN_EINVAL);
    /* binary numeric 12345.678 */
    static const uint8_t num[] = {0, 3, 0, 1, 0, 0, 0, 3, 0, 1, 0x09, 0x29, 0x1a, 0x7c};
    CHECK_OK(tn_pg_decode_param(&v, 1700, 1, num, sizeof num, 1, a));
    CHECK(v.type.id == TN_TYPE_DECIMAL && v.type.scale == 3 && v.u.i128 == 12345678);
    static const uint8_t badnum[] = {0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10};   /* digit 10000 */
    CHECK(tn_pg_decode_param(&v, 1700, 1, badnum, sizeof badnum, 1, a) == TN_EINVAL);
    CHECK_OK(tn_pg_decode_param(&v, 0, 0, (const uint8_t *)"2024-03-01 +00", 14, 1, a));
    CHECK(v.type.id == TN_TYPE_DATE);
    CHECK_OK(tn_pg_decode_param(&v, 17, 0, (const uint8_t *)"\\x00ff", 6, 1, a));
    CHECK(v.type.id == TN_TYPE_VARBINARY && v.u.s.len == 2 && (uint8_t)v.u.s.ptr[1] == 0xff);
    CHECK_OK(tn_pg_decode_param(&v, 25, 0, NULL, -1, 1, a));
    CHECK(v.is_null);
    CHECK(tn_pg_decode_param(&v, 3802, 1, bin, 8, 1, a) == TN_EUNSUPPORTED);   /* jsonb binary */
    tn_arena_destroy(a);
}

TEST(sqlstates) {
    CHECK_EQ_STR(tn_pg_sqlstate(TN_ESYNTAX, "syntax error at line 1, column 3: ..."), "42601");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EBIND, "Table with name x does not exist"), "42P01");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EBIND, "Referenced column \"z\" not found in FROM clause!"), "42703");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EINVAL, "Could not convert string 'a' to INT32"), "22P02");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_ECONFLICT, "gave up committing"), "40001");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EINTERRUPT, "Interrupted"), "57014");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_ENOMEM, "out of memory"), "53200");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EUNSUPPORTED, "x"), "0A000");
    CHECK_EQ_STR(tn_pg_sqlstate(TN_EIO, "Table with name"), "58030");
}

TEST(split_and_classify) {
    const char *q = "select ';' ; -- c;\n select $$a;b$$, \"x;\" /* ; */; ;  ";
    size_t pos = 0, s, e;
    int n = 0;
    while (tn_pg_split_next(q, strlen(q), &pos, &s, &e)) n++;
    CHECK_EQ_INT(n, 2);
    tn_pg_cmd c;
    tn_pg_classify("SET extra_float_digits = 3", 26, &c);
    CHECK(c.kind == TN_PG_CMD_SET && strcmp(c.name, "extra_float_digits") == 0 && strcmp(c.value, "3") == 0);
    tn_pg_cmd_free(&c);
    tn_pg_classify("set time zone 'UTC'", 19, &c);
    CHECK(c.kind == TN_PG_CMD_SET && strcmp(c.name, "timezone") == 0);
    tn_pg_cmd_free(&c);
    tn_pg_classify("SET threads = 2", 15, &c);
    CHECK(c.kind == TN_PG_CMD_NONE);          /* tarn's own option */
    tn_pg_classify("show tables", 11, &c);
    CHECK(c.kind == TN_PG_CMD_NONE);
    tn_pg_classify("BEGIN ISOLATION LEVEL READ COMMITTED", 36, &c);
    CHECK(c.kind == TN_PG_CMD_BEGIN);
    tn_pg_classify("commit work", 11, &c);
    CHECK(c.kind == TN_PG_CMD_COMMIT);
    tn_pg_classify("  /* x */ ", 10, &c);
    CHECK(c.kind == TN_PG_CMD_EMPTY);
}

TEST(settings) {
    tn_pg_settings s;
    CHECK_OK(tn_pg_settings_init(&s, "bob", false, 10, 0));
    bool rep;
    CHECK_OK(tn_pg_setting_set(&s, "statement_timeout", "2s", &rep));
    CHECK_EQ_INT(s.statement_timeout_ms, 2000);
    CHECK(tn_pg_setting_set(&s, "TimeZone", "Asia/Tokyo", &rep) == TN_EUNSUPPORTED);
    CHECK_OK(tn_pg_setting_set(&s, "TimeZone", "Etc/UTC", &rep));
    CHECK(rep);
    CHECK_EQ_STR(tn_pg_setting_get(&s, "timezone", NULL), "UTC");
    CHECK(tn_pg_setting_set(&s, "extra_float_digits", "9", &rep) == TN_EINVAL);
    CHECK_EQ_STR(tn_pg_setting_get(&s, "session_authorization", NULL), "bob");
    tn_pg_settings_free(&s);
}

/* RFC 7677 section 3: user "user", password "pencil". The salt and server nonce are fixed
 * here to the RFC's to check the proof and the server signature byte for byte. */
TEST(scram_rfc7677) {
    tn_pg_scram s;
    CHECK_OK(tn_pg_scram_init(&s, "pencil"));
    /* re-derive with the RFC's salt */
    static const char salt64[] = "W22ZaJ0SNY7soEsUEjb6gQ==";
    uint8_t salt[32];
    int n = EVP_DecodeBlock(salt, (const unsigned char *)salt64, (int)strlen(salt64));
    CHECK(n == 18);
    tn_pg_scram r;
    CHECK_OK(tn_pg_scram_init_salt(&r, "pencil", salt, 16, 4096));
    const char *cf = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(tn_pg_scram_first_nonce(&r, (const uint8_t *)cf, (int32_t)strlen(cf), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", &out));
    tn_buf_append_byte(&out, 0);
    CHECK_EQ_STR((const char *)out.data, "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
    tn_buf_clear(&out);
    const char *cfin = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    CHECK_OK(tn_pg_scram_final(&r, (const uint8_t *)cfin, (int32_t)strlen(cfin), &out));
    tn_buf_append_byte(&out, 0);
    CHECK_EQ_STR((const char *)out.data, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
    /* a wrong proof */
    tn_buf_clear(&out);
    const char *bad = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=eHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    CHECK(tn_pg_scram_final(&r, (const uint8_t *)bad, (int32_t)strlen(bad), &out) == TN_EEXISTS);
    tn_buf_free(&out);
    (void)s;
}

/* The verifier of RFC 7677's password and salt, printed and read back: the same keys, and the
 * RFC's exchange passes with keys loaded from the verifier alone. Malformed verifiers say why. */
TEST(scram_verifier) {
    static const char salt64[] = "W22ZaJ0SNY7soEsUEjb6gQ==";
    uint8_t salt[32];
    CHECK(EVP_DecodeBlock(salt, (const unsigned char *)salt64, (int)strlen(salt64)) == 18);
    tn_pg_scram k, r;
    CHECK_OK(tn_pg_scram_init_salt(&k, "pencil", salt, 16, 4096));
    char v[256];
    tn_pg_scram_verifier(&k, v, sizeof v);
    CHECK(strncmp(v, "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 44) == 0);
    CHECK_OK(tn_pg_scram_init_verifier(&r, v));
    CHECK(r.salt_len == 16 && r.iterations == 4096);
    CHECK(memcmp(r.stored_key, k.stored_key, 32) == 0 && memcmp(r.server_key, k.server_key, 32) == 0);
    const char *cf = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    tn_buf out = TN_BUF_INIT;
    CHECK_OK(tn_pg_scram_first_nonce(&r, (const uint8_t *)cf, (int32_t)strlen(cf), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", &out));
    tn_buf_clear(&out);
    const char *cfin = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    CHECK_OK(tn_pg_scram_final(&r, (const uint8_t *)cfin, (int32_t)strlen(cfin), &out));
    tn_buf_append_byte(&out, 0);
    CHECK_EQ_STR((const char *)out.data, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
    tn_buf_free(&out);
    CHECK(tn_pg_scram_init_verifier(&r, "md5abc") == TN_EINVAL);
    CHECK(tn_pg_scram_init_verifier(&r, "SCRAM-SHA-256$x:W22ZaJ0SNY7soEsUEjb6gQ==$a:b") == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "iteration count 'x'") != NULL);
    CHECK(tn_pg_scram_init_verifier(&r, "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$YWJj:YWJj") == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "32 bytes each") != NULL);
    CHECK(tn_pg_scram_init_verifier(&r, "SCRAM-SHA-256$4096") == TN_EINVAL);
}

/* SCRAM-SHA-256-PLUS (tls-server-end-point): the gs2 header must fit the mechanism and what the
 * server offers; the binding data in client-final must be the gs2 header plus the certificate
 * hash the server holds, checked before the proof. */
static int plus_first(tn_pg_scram *r, const uint8_t *cbind, uint32_t n, bool plus, const char *cf) {
    if (tn_pg_scram_init(r, "pencil")) return TN_EINTERNAL;
    if (n) memcpy(r->cbind, cbind, n);
    r->cbind_len = n;
    r->plus = plus;
    tn_buf out = TN_BUF_INIT;
    int rc = tn_pg_scram_first_nonce(r, (const uint8_t *)cf, (int32_t)strlen(cf), "srvnonce", &out);
    tn_buf_free(&out);
    return rc;
}
TEST(scram_channel_binding) {
    uint8_t h[32];
    for (int i = 0; i < 32; i++) h[i] = (uint8_t)(i * 7 + 1);
    tn_pg_scram r;
    CHECK(plus_first(&r, h, 32, false, "y,,n=user,r=abc") == TN_EINVAL);    /* a downgrade */
    CHECK(strstr(tn_error_message(), "SCRAM channel binding negotiation error") != NULL);
    CHECK(plus_first(&r, h, 32, true, "n,,n=user,r=abc") == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "does not include channel binding data") != NULL);
    CHECK(plus_first(&r, h, 32, false, "p=tls-server-end-point,,n=user,r=abc") == TN_EINVAL);
    CHECK(plus_first(&r, h, 32, true, "p=tls-unique,,n=user,r=abc") == TN_EINVAL);
    CHECK(strstr(tn_error_message(), "unsupported SCRAM channel-binding type \"tls-unique\"") != NULL);
    CHECK(plus_first(&r, NULL, 0, false, "p=tls-server-end-point,,n=user,r=abc") == TN_EUNSUPPORTED);
    CHECK_OK(plus_first(&r, NULL, 0, false, "y,,n=user,r=abc"));          /* no TLS: y is fine */
    CHECK_OK(plus_first(&r, h, 32, false, "n,,n=user,r=abc"));            /* TLS, no binding chosen */
    /* client-final with the binding: right data reaches the proof (wrong here), other data fails */
    uint8_t cb[64];
    const char *gs2 = "p=tls-server-end-point,,";
    size_t gl = strlen(gs2);
    memcpy(cb, gs2, gl);
    memcpy(cb + gl, h, 32);
    char c64[128], msg[300];
    for (int bad = 0; bad < 2; bad++) {
        CHECK_OK(plus_first(&r, h, 32, true, "p=tls-server-end-point,,n=user,r=abc"));
        cb[gl + 31] ^= (uint8_t)bad;
        EVP_EncodeBlock((unsigned char *)c64, cb, (int)(gl + 32));
        cb[gl + 31] ^= (uint8_t)bad;
        snprintf(msg, sizeof msg, "c=%s,r=abcsrvnonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", c64);
        tn_buf out = TN_BUF_INIT;
        int rc = tn_pg_scram_final(&r, (const uint8_t *)msg, (int32_t)strlen(msg), &out);
        tn_buf_free(&out);
        if (bad) {
            CHECK(rc == TN_EINVAL);
            CHECK(strstr(tn_error_message(), "SCRAM channel binding check failed") != NULL);
        } else {
            CHECK(rc == TN_EEXISTS);           /* the binding matched; the proof is not pencil's */
        }
    }
    /* plain n,, after an offer keeps "biws" as its binding data */
    CHECK_OK(plus_first(&r, h, 32, false, "n,,n=user,r=abc"));
    const char *plain = "c=biws,r=abcsrvnonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    tn_buf out = TN_BUF_INIT;
    CHECK(tn_pg_scram_final(&r, (const uint8_t *)plain, (int32_t)strlen(plain), &out) == TN_EEXISTS);
    tn_buf_free(&out);
}

TEST_MAIN()
