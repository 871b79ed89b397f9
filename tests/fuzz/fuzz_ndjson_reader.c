/*
 * tests/fuzz/fuzz_ndjson_reader.c: libFuzzer target for the NDJSON reader (text/text.h). Input
 * byte 0 picks the options (sample size, explicit column names and types); the rest is a file in
 * memfs.h, opened (types detected), read to the end and formatted twice: with the 4 MiB buffer
 * and with a tiny one. Both reads must give the same columns, values and error. Crashes, hangs,
 * leaks and differences are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"
#include "text_fuzz.h"
#include "text/text.h"

#define MEM_PATH "fuzz.json"

/* Reads the whole file into out as text: "name TYPE|..." then one line per row, NULL as \N.
 * Returns the reader's result. */
static int render(tn_fs *fs, const tn_ndjson_options *o, tn_buf *out) {
    tn_ndjson_reader *r = NULL;
    tn_chunk chunk = {0, 0, NULL};
    int rc = tn_ndjson_open(&r, fs, MEM_PATH, o);
    if (rc) goto cleanup;
    const char *const *names = NULL;
    const tn_type *types = NULL;
    uint32_t ncols = tn_ndjson_columns(r, &names, &types);
    text_fuzz_render_columns(out, names, types, ncols);
    for (int guard = 0; guard < 1 << 20; guard++) {
        if ((rc = tn_ndjson_next(r, &chunk))) goto cleanup;
        if (chunk.count == 0) break;
        text_fuzz_render_rows(out, &chunk, ncols);
    }
cleanup:
    tn_chunk_free(&chunk);
    tn_ndjson_close(r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint32_t samples[4] = {20480, 1, 2, 5};
    static const char *const names[3] = {"a", "b", "c"};
    tn_type types1[3] = {tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_DOUBLE),
                         tn_type_make(TN_TYPE_VARCHAR)};
    tn_type types2[3] = {tn_type_make(TN_TYPE_DATE), tn_type_make(TN_TYPE_TIMESTAMP_TZ),
                         tn_type_decimal(20, 3)};
    if (size == 0) return 0;
    uint8_t sel = data[0];
    /* Copy the file into an exact-size heap block so ASan catches reads past its end. */
    size_t n = size - 1;
    uint8_t *file = malloc(n ? n : 1);
    if (!file) return 0;
    if (n) memcpy(file, data + 1, n);
    memfs m;
    memfs_init(&m);
    memfs_add(&m, MEM_PATH, file, n);

    tn_ndjson_options o = TN_NDJSON_OPTIONS_INIT;
    o.sample_size = samples[sel & 3];
    if ((sel >> 2) & 3) {
        o.ncolumns = 1 + (sel >> 4) % 3;
        o.column_names = names;
        o.column_types = ((sel >> 2) & 3) == 1 ? NULL : ((sel >> 2) & 3) == 2 ? types1 : types2;
    }

    tn_buf big = TN_BUF_INIT, small = TN_BUF_INIT;
    int rc1 = render(&m.fs, &o, &big);
    /* The whole message (a copy of a prefix would differ from the second read's message). */
    char *msg = strdup(rc1 ? tn_error_message() : "");
    if (!msg) abort();
    memfs_check_closed(&m, "fuzz_ndjson_reader");
    tn_error_clear();
    o.buffer_size = 16 + n % 13;
    int rc2 = render(&m.fs, &o, &small);
    memfs_check_closed(&m, "fuzz_ndjson_reader");
    text_fuzz_check_agree("fuzz_ndjson_reader", MEM_PATH, rc1, msg, &big, rc2, &small, o.buffer_size);
    tn_buf_free(&big);
    tn_buf_free(&small);
    free(msg);
    free(file);
    tn_error_clear();
    return 0;
}
