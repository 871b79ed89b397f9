/*
 * tests/fuzz/fuzz_csv_reader.c: libFuzzer target for the CSV reader (text/text.h). Input byte 0
 * picks the options (delimiter, header, skip_rows, escape, null string, sample size, all_varchar,
 * explicit columns, date formats, no quoting); the rest is a file in memfs.h, opened (sniffed),
 * read to the end and formatted twice: with the 4 MiB buffer and with a tiny one. Both reads
 * must give the same columns, values and error. Crashes, hangs, leaks, differences are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"
#include "text_fuzz.h"
#include "text/text.h"

#define MEM_PATH "fuzz.csv"

/* Reads the whole file into out as text: "name TYPE|..." then one line per row, NULL as \N.
 * Returns the reader's result. */
static int render(tn_fs *fs, const tn_csv_options *o, tn_buf *out) {
    tn_csv_reader *r = NULL;
    tn_chunk chunk = {0, 0, NULL};
    int rc = tn_csv_open(&r, fs, MEM_PATH, o);
    if (rc) goto cleanup;
    const char *const *names = NULL;
    const tn_type *types = NULL;
    uint32_t ncols = tn_csv_columns(r, &names, &types);
    tn_buf_printf(out, "delim=%d header=%d\n", tn_csv_delimiter(r), tn_csv_has_header(r));
    text_fuzz_render_columns(out, names, types, ncols);
    for (int guard = 0; guard < 1 << 20; guard++) {
        if ((rc = tn_csv_next(r, &chunk))) goto cleanup;
        if (chunk.count == 0) break;
        text_fuzz_render_rows(out, &chunk, ncols);
    }
cleanup:
    tn_chunk_free(&chunk);
    tn_csv_close(r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char delims[4] = {0, ',', ';', '\t'};
    static const char *const names[3] = {"x", "y", "z"};
    tn_type types[3] = {tn_type_make(TN_TYPE_INTEGER), tn_type_decimal(6, 2),
                        tn_type_make(TN_TYPE_VARCHAR)};
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

    tn_csv_options o = TN_CSV_OPTIONS_INIT;
    o.delimiter = delims[sel & 3];
    switch ((sel >> 2) & 3) {
    case 0: o.header = -1; break;
    case 1: o.header = 0; break;
    case 2: o.header = 1; break;
    case 3: o.skip_rows = 1; break;
    }
    if (sel & 16) o.escape = '\\';
    if (sel & 32) {
        o.null_string = "NA";
        o.sample_size = 3;           /* values after the sample may not parse */
    }
    switch (sel >> 6) {
    case 0: break;
    case 1: o.all_varchar = true; break;
    case 2:
        o.ncolumns = 3;
        o.column_names = names;
        o.column_types = (sel & 16) ? NULL : types;
        break;
    case 3:
        o.date_format = "%d/%m/%Y";
        o.timestamp_format = "%d/%m/%Y %H:%M:%S.%f";
        if (sel & 16) o.quote = 0;
        break;
    }

    tn_buf big = TN_BUF_INIT, small = TN_BUF_INIT;
    int rc1 = render(&m.fs, &o, &big);
    /* The whole message (a copy of a prefix would differ from the second read's message). */
    char *msg = strdup(rc1 ? tn_error_message() : "");
    if (!msg) abort();
    memfs_check_closed(&m, "fuzz_csv_reader");
    tn_error_clear();
    o.buffer_size = 16 + n % 13;
    int rc2 = render(&m.fs, &o, &small);
    memfs_check_closed(&m, "fuzz_csv_reader");
    text_fuzz_check_agree("fuzz_csv_reader", MEM_PATH, rc1, msg, &big, rc2, &small, o.buffer_size);
    tn_buf_free(&big);
    tn_buf_free(&small);
    free(msg);
    free(file);
    tn_error_clear();
    return 0;
}
