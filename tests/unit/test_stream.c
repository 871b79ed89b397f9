/*
 * tests/unit/test_stream.c: the strict decoders of a job directory's files (stream/state.c):
 * state.json, job.json and savepoints decode and re-encode to the same JSON; every malformed
 * case is refused with the file and the problem named (one table row per case).
 */
#include "testlib.h"

#include "stream/streamInt.h"

#define W "job state '/w/_jobs/j/state.json'"

static const char *TABLE_POS = "{\"kind\": \"table\", \"version\": 3, \"index\": 2, \"snapshot\": false}";

/* A good state.json with one field replaced (or added) by repl, as JSON text. */
static char *state_with(const char *field, const char *value) {
    static char buf[4096];
    const char *fields[][2] = {
        {"state", "\"running\""}, {"batch", "7"}, {"position", TABLE_POS}, {"pending", "null"}, {"rows", "70"},
        {"updated_ms", "1764750000000"}, {"last_batch_ms", "1764750000000"}, {"last_error", "null"},
        {"savepoint", "null"},
    };
    size_t off = 0;
    bool seen = false;
    off += (size_t)snprintf(buf + off, sizeof buf - off, "{");
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        const char *v = fields[i][1];
        if (field && strcmp(field, fields[i][0]) == 0) {
            seen = true;
            if (!value) continue;   /* removed */
            v = value;
        }
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s\"%s\": %s", off > 1 ? ", " : "", fields[i][0], v);
    }
    if (field && !seen && value) off += (size_t)snprintf(buf + off, sizeof buf - off, ", \"%s\": %s", field, value);
    snprintf(buf + off, sizeof buf - off, "}");
    return buf;
}

static int decode_state(tn_stream_state *st, const char *text) {
    return tn_stream_state_decode(st, text, strlen(text), W);
}

TEST(state_good_round_trip) {
    char *texts[6];
    int nt = 0;
    texts[nt++] = strdup(state_with(NULL, NULL));
    texts[nt++] = strdup(state_with("pending", "{\"batch\": 8, \"position\": {\"kind\": \"table\", \"version\": 5, \"index\": 0, "
                              "\"snapshot\": false}}"));
    texts[nt++] = strdup(state_with("position", "{\"kind\": \"files\", \"watermark_ns\": 12, \"taken\": [\"in/b.csv\", "
                                               "\"in/a.csv\"]}"));
    /* before the watermark existed */
    texts[nt++] = strdup(state_with("position", "{\"kind\": \"files\", \"taken\": []}"));
    texts[nt++] = strdup(state_with("last_error", "\"boom\""));
    texts[nt++] = strdup(state_with("updated_ms", NULL));
    for (int i = 0; i < nt; i++) {
        char *text = texts[i];
        tn_stream_state a, b;
        int rc = decode_state(&a, text);
        CHECK_MSG(rc == 0, "case %d: %s: %s", i, text, tn_error_message());
        json_t *j1 = tn_stream_state_to_json(&a);
        char *s1 = json_dumps(j1, JSON_COMPACT);
        CHECK_OK(decode_state(&b, s1));
        json_t *j2 = tn_stream_state_to_json(&b);
        char *s2 = json_dumps(j2, JSON_COMPACT);
        CHECK_EQ_STR(s2, s1);
        if (i == 1) {
            CHECK(a.has_pending);
            CHECK_EQ_INT(a.pending_batch, 8);
            CHECK_EQ_INT(a.pending_pos.version, 5);
        }
        if (i == 2) {
            CHECK_EQ_INT(a.kind, TN_STREAM_FILES);
            CHECK_EQ_INT(a.pos.ntaken, 2);
            CHECK_EQ_STR(a.pos.taken[0], "in/a.csv");   /* sorted */
            CHECK_EQ_INT(a.pos.watermark_ns, 12);
        }
        if (i == 0) {
            CHECK_EQ_STR(a.state, "running");
            CHECK_EQ_INT(a.batch, 7);
            CHECK_EQ_INT(a.rows, 70);
            CHECK_EQ_INT(a.pos.version, 3);
            CHECK_EQ_INT(a.pos.index, 2);
            CHECK(!a.pos.snapshot && !a.has_pending);
        }
        free(s1);
        free(s2);
        json_decref(j1);
        json_decref(j2);
        tn_stream_state_free(&a);
        tn_stream_state_free(&b);
        free(text);
    }
}

typedef struct bad_case {
    const char *field, *value;         /* replaced field (value NULL: removed) */
    const char *want;                  /* substring of the error after the file name */
} bad_case;

TEST(state_malformed_each_case) {
    const bad_case cases[] = {
        {"state", NULL, "field 'state' is missing"},
        {"state", "\"sleeping\"", "field 'state' = \"sleeping\": expected created, restored"},
        {"state", "3", "field 'state': expected a string, got an integer"},
        {"batch", NULL, "field 'batch' is missing"},
        {"batch", "\"7\"", "field 'batch': expected an integer, got a string"},
        {"batch", "-1", "field 'batch' = -1: expected 0 to"},
        {"batch", "7.5", "field 'batch': expected an integer, got a real number"},
        {"batch", "null", "field 'batch': expected an integer, got null"},
        {"batch", "99999999999999999999", "too big"},
        {"rows", NULL, "field 'rows' is missing"},
        {"rows", "-5", "field 'rows' = -5"},
        {"updated_ms", "true", "field 'updated_ms': expected an integer, got a boolean"},
        {"last_error", "42", "field 'last_error': expected a string or null, got an integer"},
        {"savepoint", "\"\"", "field 'savepoint' is empty"},
        {"speed", "1", "unknown field 'speed'"},
        {"position", NULL, "field 'position' is missing"},
        {"position", "[]", "field 'position': expected a position object, got an array"},
        {"position", "{}", "field 'position.kind' is missing"},
        {"position", "{\"kind\": \"stream\"}", "field 'position.kind' = \"stream\": expected \"table\" or \"files\""},
        {"position", "{\"kind\": \"table\", \"index\": 0, \"snapshot\": true}", "field 'position.version' is missing"},
        {"position", "{\"kind\": \"table\", \"version\": -2, \"index\": 0, \"snapshot\": true}",
         "field 'position.version' = -2"},
        {"position", "{\"kind\": \"table\", \"version\": 1, \"index\": 4294967296, \"snapshot\": true}",
         "field 'position.index' = 4294967296: expected 0 to 4294967295"},
        {"position", "{\"kind\": \"table\", \"version\": 1, \"snapshot\": true}", "field 'position.index' is missing"},
        {"position", "{\"kind\": \"table\", \"version\": 1, \"index\": 0}", "field 'position.snapshot' is missing"},
        {"position", "{\"kind\": \"table\", \"version\": 1, \"index\": 0, \"snapshot\": \"yes\"}",
         "field 'position.snapshot': expected true or false, got a string"},
        {"position", "{\"kind\": \"table\", \"version\": 1, \"index\": 0, \"snapshot\": true, \"taken\": []}",
         "unknown field 'position.taken'"},
        {"position", "{\"kind\": \"files\"}", "field 'position.taken' is missing"},
        {"position", "{\"kind\": \"files\", \"taken\": {}}", "field 'position.taken': expected an array of paths, got an object"},
        {"position", "{\"kind\": \"files\", \"taken\": [\"a\", 3]}", "field 'position.taken[1]': expected a file path, got an integer"},
        {"position", "{\"kind\": \"files\", \"taken\": [\"\"]}", "field 'position.taken[0]': expected a file path, got an empty string"},
        {"position", "{\"kind\": \"files\", \"taken\": [\"a\", \"b\", \"a\"]}", "field 'position.taken' names 'a' twice"},
        {"position", "{\"kind\": \"files\", \"taken\": [], \"watermark_ns\": -1}", "field 'position.watermark_ns' = -1"},
        {"position", "{\"kind\": \"files\", \"taken\": [], \"watermark_ns\": \"now\"}",
         "field 'position.watermark_ns': expected an integer, got a string"},
        {"position", "{\"kind\": \"files\", \"taken\": [], \"version\": 3}", "unknown field 'position.version'"},
        {"pending", "7", "field 'pending': expected null or an object, got an integer"},
        {"pending", "{\"position\": {\"kind\": \"table\", \"version\": 5, \"index\": 0, \"snapshot\": false}}",
         "field 'pending.batch' is missing"},
        {"pending", "{\"batch\": 8}", "field 'pending.position' is missing"},
        {"pending", "{\"batch\": 9, \"position\": {\"kind\": \"table\", \"version\": 5, \"index\": 0, \"snapshot\": false}}",
         "field 'pending.batch' = 9 does not follow the last committed batch 7"},
        {"pending", "{\"batch\": 8, \"position\": {\"kind\": \"files\", \"taken\": []}}",
         "field 'pending.position' is not of the kind of 'position'"},
        {"pending", "{\"batch\": 8, \"position\": {\"kind\": \"table\", \"version\": 5, \"index\": 0}}",
         "field 'pending.position.snapshot' is missing"},
        {"pending", "{\"batch\": 8, \"position\": {\"kind\": \"table\", \"version\": 5, \"index\": 0, \"snapshot\": false}, "
                    "\"rows\": 1}", "unknown field 'pending.rows'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = strdup(state_with(cases[i].field, cases[i].value));
        tn_stream_state st;
        int rc = decode_state(&st, text);
        CHECK_MSG(rc != 0, "case %zu decoded: %s", i, text);
        const char *m = tn_error_message();
        CHECK_MSG(strncmp(m, W ": ", strlen(W) + 2) == 0 && strstr(m, cases[i].want), "case %zu: %s\n  got: %s", i, text, m);
        free(text);
    }
}

TEST(state_malformed_bytes) {
    const bad_case cases[] = {
        {"", NULL, "the file is empty"},
        {"{\"state\": \"running\", \"batch\": 7", NULL, "line 1"},   /* truncated */
        {"[1, 2]", NULL, "expected a JSON object, got an array"},
        {"\"running\"", NULL, "'[' or '{' expected"},
        {"{\"state\": \"running\", \"state\": \"stopped\"}", NULL, "duplicate object key"},
        {"{\"state\": \"run\\u0000ning\"}", NULL, "\\u0000 is not allowed"},
        {"\xff\xfe{}", NULL, "line 1"},
        {"{} {}", NULL, "end of file expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tn_stream_state st;
        int rc = tn_stream_state_decode(&st, cases[i].field, strlen(cases[i].field), W);
        CHECK_MSG(rc == TN_ECORRUPT, "case %zu: rc %d", i, rc);
        const char *m = tn_error_message();
        CHECK_MSG(strncmp(m, W ": ", strlen(W) + 2) == 0 && strstr(m, cases[i].want), "case %zu: got: %s", i, m);
    }
}

#define SPEC "{\"name\": \"j\", \"app_id\": \"tarn-job-1\", \"sql\": \"INSERT INTO t SELECT * FROM s\", " \
             "\"options\": {\"poll-interval\": \"200ms\"}, \"cwd\": \"/tmp\", \"created_ms\": 1}"

TEST(spec_decode) {
    json_t *spec = NULL;
    tn_stream_options o;
    CHECK_OK(tn_stream_spec_decode(&spec, &o, SPEC, strlen(SPEC), "job definition 'job.json'"));
    CHECK_EQ_INT(o.poll_ms, 200);
    json_decref(spec);
    const bad_case cases[] = {
        {"{\"app_id\": \"a\", \"sql\": \"x\", \"options\": {}}", NULL, "field 'name' is missing"},
        {"{\"name\": \"../x\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {}}", NULL, "field 'name': invalid job name"},
        {"{\"name\": \"j\", \"sql\": \"x\", \"options\": {}}", NULL, "field 'app_id' is missing"},
        {"{\"name\": \"j\", \"app_id\": \"\", \"sql\": \"x\", \"options\": {}}", NULL, "field 'app_id' is empty"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"options\": {}}", NULL, "field 'sql' is missing"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": 5, \"options\": {}}", NULL, "field 'sql': expected a string"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\"}", NULL, "field 'options' is missing"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": []}", NULL, "field 'options': expected an object"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {\"speed\": \"1\"}}", NULL,
         "field 'options': unknown job option 'speed'"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {\"poll-interval\": 5}}", NULL,
         "field 'options': job option 'poll-interval': the value must be a string"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {\"max-batch-files\": \"0\"}}", NULL,
         "max-batch-files = '0'"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {}, \"cwd\": \"rel\"}", NULL,
         "field 'cwd' = \"rel\": expected an absolute path"},
        {"{\"name\": \"j\", \"app_id\": \"a\", \"sql\": \"x\", \"options\": {}, \"owner\": \"me\"}", NULL,
         "unknown field 'owner'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = tn_stream_spec_decode(&spec, NULL, cases[i].field, strlen(cases[i].field), "job definition 'job.json'");
        CHECK_MSG(rc != 0 && spec == NULL, "case %zu decoded", i);
        const char *m = tn_error_message();
        CHECK_MSG(strncmp(m, "job definition 'job.json': ", 27) == 0 && strstr(m, cases[i].want), "case %zu: got: %s",
                  i, m);
    }
}

#define SP(job, rest) "{\"tarn_savepoint\": 1, \"job\": " job ", " rest "}"
#define GOODREST "\"batch\": 4, \"position\": {\"kind\": \"files\", \"watermark_ns\": 0, \"taken\": [\"a.csv\"]}, \"rows\": 40"

TEST(savepoint_decode) {
    const char *good = SP(SPEC, GOODREST ", \"created_ms\": 5");
    tn_stream_savepoint sp, sp2;
    CHECK_OK(tn_stream_savepoint_decode(&sp, good, strlen(good), "savepoint 'sp'"));
    CHECK_EQ_INT(sp.batch, 4);
    CHECK_EQ_INT(sp.rows, 40);
    CHECK_EQ_INT(sp.kind, TN_STREAM_FILES);
    CHECK_EQ_INT(sp.pos.ntaken, 1);
    json_t *j = tn_stream_savepoint_to_json(&sp);
    char *s1 = json_dumps(j, JSON_COMPACT);
    CHECK_OK(tn_stream_savepoint_decode(&sp2, s1, strlen(s1), "savepoint 'sp'"));
    json_t *j2 = tn_stream_savepoint_to_json(&sp2);
    char *s2 = json_dumps(j2, JSON_COMPACT);
    CHECK_EQ_STR(s2, s1);
    free(s1);
    free(s2);
    json_decref(j);
    json_decref(j2);
    tn_stream_savepoint_free(&sp);
    tn_stream_savepoint_free(&sp2);
    const bad_case cases[] = {
        {"{\"hello\": 1}", NULL, "is not a tarn job savepoint (no 'tarn_savepoint' field"},
        {"id,name\n1,a\n", NULL, "(not a tarn job savepoint)"},
        {"", NULL, "the file is empty (not a tarn job savepoint)"},
        {"{\"tarn_savepoint\": 2, \"job\": " SPEC ", " GOODREST "}", NULL, "savepoint format 2"},
        {"{\"tarn_savepoint\": \"1\", \"job\": " SPEC ", " GOODREST "}", NULL, "field 'tarn_savepoint': expected an integer"},
        {"{\"tarn_savepoint\": 1, " GOODREST "}", NULL, "field 'job' is missing"},
        {SP("\"j\"", GOODREST), NULL, "field 'job': expected the job's definition (an object), got a string"},
        {SP("{\"name\": \"j\", \"sql\": \"x\", \"options\": {}}", GOODREST), NULL, "field 'job.app_id' is missing"},
        {SP(SPEC, "\"position\": {\"kind\": \"files\", \"taken\": []}, \"rows\": 1"), NULL, "field 'batch' is missing"},
        {SP(SPEC, "\"batch\": 1, \"rows\": 1"), NULL, "field 'position' is missing"},
        {SP(SPEC, "\"batch\": 1, \"position\": {\"kind\": \"files\", \"taken\": []}"), NULL, "field 'rows' is missing"},
        {SP(SPEC, "\"batch\": 1, \"rows\": 1, \"position\": {\"kind\": \"table\", \"version\": 1, \"index\": 0}"), NULL,
         "field 'position.snapshot' is missing"},
        {SP(SPEC, GOODREST ", \"pending\": null"), NULL, "unknown field 'pending'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = tn_stream_savepoint_decode(&sp, cases[i].field, strlen(cases[i].field), "savepoint 'sp'");
        CHECK_MSG(rc != 0 && sp.job == NULL, "case %zu decoded", i);
        const char *m = tn_error_message();
        CHECK_MSG(strncmp(m, "savepoint 'sp'", 14) == 0 && strstr(m, cases[i].want), "case %zu: got: %s", i, m);
    }
}

TEST(position_kind_for_source) {
    tn_stream_source src;
    memset(&src, 0, sizeof src);
    src.kind = TN_STREAM_TABLE;
    src.label = "raw_orders";
    CHECK_OK(tn_stream_pos_for_source(TN_STREAM_TABLE, &src, W, "position"));
    CHECK(tn_stream_pos_for_source(TN_STREAM_FILES, &src, W, "position") == TN_ECORRUPT);
    CHECK_EQ_STR(tn_error_message(), W ": field 'position' is a files position, but the job's source raw_orders is a "
                 "table");
}

TEST_MAIN()
