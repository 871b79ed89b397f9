/*
 * tests/fuzz/fuzz_delta_action.c: libFuzzer target for Delta log lines (delta/delta.h): every
 * line of the input goes to tn_delta_action_parse; what parses is serialized, parsed again and
 * serialized again (the two serializations must be equal), and a metaData's schemaString must
 * re-parse. The whole input is also given to tn_delta_schema_parse as a schemaString. Errors
 * are expected; crashes, leaks and unstable round trips are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"

static void fail(const char *what, const char *line, size_t len, const tn_buf *a, const tn_buf *b) {
    fprintf(stderr, "fuzz_delta_action: %s\n  line: %.*s\n", what, (int)len, line);
    if (a) fprintf(stderr, "  first:  %.*s\n", (int)a->len, (const char *)a->data);
    if (b) fprintf(stderr, "  second: %.*s\n", (int)b->len, (const char *)b->data);
    fprintf(stderr, "  error: %s\n", tn_error_message());
    abort();
}

static void check_line(tn_arena *arena, const char *line, size_t len) {
    tn_delta_action a, b;
    tn_buf s1 = TN_BUF_INIT, s2 = TN_BUF_INIT;
    if (tn_delta_action_parse(&a, arena, line, len) != 0) goto cleanup;
    /* Unknown actions and cdc are parsed (and skipped) but never written. */
    if (a.kind == TN_DELTA_UNKNOWN || a.kind == TN_DELTA_CDC) goto cleanup;
    if (tn_delta_action_serialize(&s1, &a) != 0) fail("a parsed action does not serialize", line, len, NULL, NULL);
    /* Copy into an exact-size block so ASan sees reads past the end (the parser takes a length). */
    char *copy = malloc(s1.len ? s1.len : 1);
    if (!copy) goto cleanup;
    if (s1.len) memcpy(copy, s1.data, s1.len);
    int rc = tn_delta_action_parse(&b, arena, copy, s1.len);
    if (rc != 0) {
        free(copy);
        fail("the serialization does not parse", line, len, &s1, NULL);
    }
    free(copy);
    if (a.kind != b.kind) fail("the action kind changed", line, len, &s1, NULL);
    if (tn_delta_action_serialize(&s2, &b) != 0) fail("the re-parsed action does not serialize", line, len, &s1, NULL);
    if (s1.len != s2.len || memcmp(s1.data, s2.data, s1.len) != 0)
        fail("serialize(parse(serialize(parse(line)))) differs", line, len, &s1, &s2);
    if (a.kind == TN_DELTA_METADATA && a.u.metadata.schema_string) {
        tn_delta_column *cols = NULL;
        uint32_t ncols = 0;
        if (tn_delta_schema_parse(&cols, &ncols, arena, a.u.metadata.schema_string) != 0)
            fail("a metaData's schemaString parsed with the action but not alone", line, len, &s1, NULL);
        if (ncols != a.u.metadata.ncolumns) fail("schemaString column count differs", line, len, &s1, NULL);
    }
    if (a.kind == TN_DELTA_ADD || a.kind == TN_DELTA_REMOVE) {
        (void)tn_delta_file_num_records(&a.u.file);
        const char *dec = NULL;
        (void)tn_delta_uri_decode(&dec, arena, a.u.file.path);
        tn_buf enc = TN_BUF_INIT;
        if (a.u.file.path_decoded) (void)tn_delta_uri_encode(&enc, a.u.file.path_decoded);
        tn_buf_free(&enc);
    }
cleanup:
    tn_buf_free(&s1);
    tn_buf_free(&s2);
    tn_error_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 20) return 0;
    tn_arena *arena = tn_arena_create(0);
    char *text = malloc(size + 1);
    if (!arena || !text) goto cleanup;
    if (size) memcpy(text, data, size);
    text[size] = 0;

    /* Each line (LF-separated; CR kept) in its own exact-size heap block. */
    for (size_t pos = 0; pos <= size;) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - text) : size;
        size_t len = end - pos;
        char *line = malloc(len ? len : 1);
        if (!line) break;
        if (len) memcpy(line, text + pos, len);
        check_line(arena, line, len);
        free(line);
        pos = end + 1;
    }

    /* The whole input as a schemaString (NUL-terminated: text stops at an embedded NUL). */
    tn_delta_column *cols = NULL;
    uint32_t ncols = 0;
    if (tn_delta_schema_parse(&cols, &ncols, arena, text) == 0) {
        tn_buf s = TN_BUF_INIT;
        for (uint32_t i = 0; i < ncols; i++) {
            char tbuf[64];
            (void)tn_type_format(cols[i].type, tbuf, sizeof tbuf);
            (void)tn_delta_type_name(cols[i].type, tbuf, sizeof tbuf);
        }
        /* A parsed schema serializes and parses back to the same columns. */
        if (tn_delta_schema_serialize(&s, cols, ncols) == 0) {
            tn_buf_append_byte(&s, 0);
            tn_delta_column *cols2 = NULL;
            uint32_t ncols2 = 0;
            if (tn_delta_schema_parse(&cols2, &ncols2, arena, (const char *)s.data) != 0)
                fail("a serialized schema does not parse", text, size, &s, NULL);
            if (ncols2 != ncols) fail("a serialized schema has another column count", text, size, &s, NULL);
            for (uint32_t i = 0; i < ncols; i++)
                if (strcmp(cols[i].name, cols2[i].name) != 0 || !tn_type_equal(cols[i].type, cols2[i].type) ||
                    cols[i].nullable != cols2[i].nullable || cols[i].nested != cols2[i].nested ||
                    strcmp(cols[i].physical_name, cols2[i].physical_name) != 0 ||
                    cols[i].field_id != cols2[i].field_id)
                    fail("a serialized schema parses to other columns", text, size, &s, NULL);
        }
        tn_buf_free(&s);
    }
cleanup:
    free(text);
    tn_arena_destroy(arena);
    tn_error_clear();
    return 0;
}
