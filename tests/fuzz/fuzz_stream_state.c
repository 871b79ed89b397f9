/*
 * tests/fuzz/fuzz_stream_state.c: libFuzzer target for the strict decoders of a job directory's
 * files (stream/state.c). Byte 0 picks the decoder (state.json, job.json, savepoint), the rest is
 * the file. What decodes is encoded, decoded again and encoded again: the two encodings must be
 * equal (a position or batch that changes on a round trip would move a job); the position's text
 * is formatted. Errors are expected; crashes, leaks, unstable round trips and an error message
 * that does not name the file are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/streamInt.h"

#define WHAT "job file 'fuzz'"

static void fail(const char *what, const char *a, const char *b) {
    fprintf(stderr, "fuzz_stream_state: %s\n  first:  %s\n  second: %s\n  error: %s\n", what, a ? a : "",
            b ? b : "", tn_error_message());
    abort();
}

static void check_error(int rc) {
    if (rc != TN_ENOMEM && strncmp(tn_error_message(), WHAT, strlen(WHAT)) != 0) fail("the error does not name the file", NULL, NULL);
}

/* dump of j (compact, keys sorted), freed by the caller */
static char *dump(json_t *j) {
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    return s;
}

static void pos_text(tn_stream_source_kind kind, const tn_stream_pos *p) {
    tn_stream_source src;
    memset(&src, 0, sizeof src);
    src.kind = kind;
    src.label = "src";
    char *t = tn_stream_pos_text(&src, p);
    tn_free(t);
}

static void fuzz_state(const char *data, size_t n) {
    tn_stream_state a, b;
    int rc = tn_stream_state_decode(&a, data, n, WHAT);
    if (rc) {
        check_error(rc);
        return;
    }
    pos_text(a.kind, &a.pos);
    if (a.has_pending) pos_text(a.kind, &a.pending_pos);
    char *s1 = dump(tn_stream_state_to_json(&a));
    if (!s1) fail("a decoded state does not encode", NULL, NULL);
    if (tn_stream_state_decode(&b, s1, strlen(s1), WHAT) != 0) fail("the encoded state does not decode", s1, NULL);
    char *s2 = dump(tn_stream_state_to_json(&b));
    if (!s2 || strcmp(s1, s2) != 0) fail("encode(decode(encode(decode(state)))) differs", s1, s2);
    free(s1);
    free(s2);
    tn_stream_state_free(&a);
    tn_stream_state_free(&b);
}

static void fuzz_spec(const char *data, size_t n) {
    json_t *a = NULL, *b = NULL;
    tn_stream_options o1, o2;
    int rc = tn_stream_spec_decode(&a, &o1, data, n, WHAT);
    if (rc) {
        check_error(rc);
        return;
    }
    char *s1 = dump(json_incref(a));
    if (!s1) fail("a decoded job definition does not encode", NULL, NULL);
    if (tn_stream_spec_decode(&b, &o2, s1, strlen(s1), WHAT) != 0) fail("the encoded definition does not decode", s1, NULL);
    if (o1.poll_ms != o2.poll_ms || o1.max_files != o2.max_files || o1.ignore_deletes != o2.ignore_deletes ||
        o1.ignore_changes != o2.ignore_changes)
        fail("the options changed on a round trip", s1, NULL);
    char *s2 = dump(json_incref(b));
    if (!s2 || strcmp(s1, s2) != 0) fail("the job definition changed on a round trip", s1, s2);
    free(s1);
    free(s2);
    json_decref(a);
    json_decref(b);
}

static void fuzz_savepoint(const char *data, size_t n) {
    tn_stream_savepoint a, b;
    int rc = tn_stream_savepoint_decode(&a, data, n, WHAT);
    if (rc) {
        check_error(rc);
        return;
    }
    pos_text(a.kind, &a.pos);
    char *s1 = dump(tn_stream_savepoint_to_json(&a));
    if (!s1) fail("a decoded savepoint does not encode", NULL, NULL);
    if (tn_stream_savepoint_decode(&b, s1, strlen(s1), WHAT) != 0) fail("the encoded savepoint does not decode", s1, NULL);
    char *s2 = dump(tn_stream_savepoint_to_json(&b));
    if (!s2 || strcmp(s1, s2) != 0) fail("the savepoint changed on a round trip", s1, s2);
    free(s1);
    free(s2);
    tn_stream_savepoint_free(&a);
    tn_stream_savepoint_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1 << 20)) return 0;
    /* an exact-size copy, so ASan sees a read past the end (the decoders take a length) */
    size_t n = size - 1;
    char *copy = malloc(n ? n : 1);
    if (!copy) return 0;
    if (n) memcpy(copy, data + 1, n);
    switch (data[0] % 3) {
    case 0: fuzz_state(copy, n); break;
    case 1: fuzz_spec(copy, n); break;
    default: fuzz_savepoint(copy, n); break;
    }
    free(copy);
    tn_error_clear();
    return 0;
}
