/*
 * tests/fuzz/text_fuzz.h: the check shared by the CSV and NDJSON reader targets: a file read
 * with the normal buffer and with a tiny one must give the same rows or the same error, and an
 * error must name the file. Aborts (a libFuzzer crash) when not.
 */
#ifndef TN_TEXT_FUZZ_H
#define TN_TEXT_FUZZ_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

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
