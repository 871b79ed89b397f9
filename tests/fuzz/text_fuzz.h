/*
 * tests/fuzz/text_fuzz.h: what the CSV and NDJSON reader targets share: rendering the columns
 * and rows a reader returns as text, and the check that a file read with the normal buffer and
 * with a tiny one gives the same rows or the same error, an error naming the file. Aborts (a
 * libFuzzer crash) when not.
 */
#ifndef TN_TEXT_FUZZ_H
#define TN_TEXT_FUZZ_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

/* Appends "name TYPE|name TYPE...\n". */
static inline void text_fuzz_render_columns(tn_buf *out, const char *const *names, const tn_type *types,
                                            uint32_t ncols) {
    for (uint32_t c = 0; c < ncols; c++) {
        char tbuf[64];
        tn_buf_printf(out, "%s%s %s", c ? "|" : "", names[c], tn_type_format(types[c], tbuf, sizeof tbuf));
    }
    tn_buf_append_byte(out, '\n');
}

/* Appends the chunk's rows, values comma-separated, NULL as \N. */
static inline void text_fuzz_render_rows(tn_buf *out, const tn_chunk *chunk, uint32_t ncols) {
    if (chunk->ncols != ncols) __builtin_trap();
    for (uint32_t row = 0; row < chunk->count; row++) {
        for (uint32_t c = 0; c < ncols; c++) {
            if (c) tn_buf_append_byte(out, ',');
            if (tn_value_format(out, &chunk->cols[c], row) == 1) tn_buf_append(out, "\\N", 2);
        }
        tn_buf_append_byte(out, '\n');
    }
}

/* rc1/msg1/big: the normal read; rc2/small: the read with a small_buffer-byte buffer (its error,
 * if any, is still the thread's current one). */
static inline void text_fuzz_check_agree(const char *target, const char *path, int rc1,
                                         const char *msg1, const tn_buf *big, int rc2,
                                         const tn_buf *small, size_t small_buffer) {
    bool same = rc1 == rc2 && (rc1 ? strcmp(msg1, tn_error_message()) == 0
                                   : big->len == small->len && memcmp(big->data, small->data, big->len) == 0);
    if (!same) {
        fprintf(stderr, "%s: 4 MiB and %zu-byte buffers disagree:\n  big:   rc %d %s\n  small: rc %d %s\n",
                target, small_buffer, rc1, msg1, rc2, rc2 ? tn_error_message() : "");
        if (rc1 == 0 && rc2 == 0)
            fprintf(stderr, "--- big\n%.*s\n--- small\n%.*s\n", (int)(big->len > 4000 ? 4000 : big->len),
                    (const char *)big->data, (int)(small->len > 4000 ? 4000 : small->len),
                    (const char *)small->data);
        abort();
    }
    if (rc1 != 0 && rc1 != TN_ENOMEM && strncmp(msg1, path, strlen(path)) != 0) {
        fprintf(stderr, "%s: error does not name the file: %s\n", target, msg1);
        abort();
    }
}

#endif
