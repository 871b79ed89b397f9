/*
 * base/buf.c: tn_buf, the growable heap byte buffer (doubling growth, TN_ENOMEM on failure),
 * and the small string helpers of base.h (case-insensitive compare, suffix test).
 */
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tn_buf_reserve(tn_buf *buf, size_t extra) {
    if (extra > SIZE_MAX - buf->len)
        return tn_error_set(TN_ENOMEM, "out of memory: buffer of %zu + %zu bytes", buf->len, extra);
    size_t need = buf->len + extra;
    if (need <= buf->cap) return 0;
    size_t cap = buf->cap ? buf->cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = tn_realloc(buf->data, cap);
    if (!p) return TN_ENOMEM;
    buf->data = p;
    buf->cap = cap;
    return 0;
}

int tn_buf_append(tn_buf *buf, const void *data, size_t n) {
    if (n == 0) return 0;
    int rc = tn_buf_reserve(buf, n);
    if (rc) return rc;
    memcpy(buf->data + buf->len, data, n);
    buf->len += n;
    return 0;
}

int tn_buf_append_byte(tn_buf *buf, uint8_t byte) {
    if (buf->len == buf->cap) {
        int rc = tn_buf_reserve(buf, 1);
        if (rc) return rc;
    }
    buf->data[buf->len++] = byte;
    return 0;
}

int tn_buf_printf(tn_buf *buf, const char *fmt, ...) {
    va_list ap, ap2;
    int rc = 0;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    /* Try the space we have first; reserve and retry if it did not fit (+1 for the NUL). */
    size_t room = buf->cap - buf->len;
    int n = vsnprintf(room ? (char *)buf->data + buf->len : NULL, room, fmt, ap);
    if (n < 0) {
        rc = tn_error_set(TN_EINVAL, "buffer printf: bad format");
        goto cleanup;
    }
    if ((size_t)n >= room) {
        rc = tn_buf_reserve(buf, (size_t)n + 1);
        if (rc) goto cleanup;
        vsnprintf((char *)buf->data + buf->len, (size_t)n + 1, fmt, ap2);
    }
    buf->len += (size_t)n;
cleanup:
    va_end(ap);
    va_end(ap2);
    return rc;
}

void tn_buf_free(tn_buf *buf) {
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}

void tn_buf_clear(tn_buf *buf) { buf->len = 0; }

static inline int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

bool tn_str_iequal(const char *a, const char *b) {
    for (;; a++, b++) {
        if (lower((unsigned char)*a) != lower((unsigned char)*b)) return false;
        if (*a == '\0') return true;
    }
}

bool tn_str_iequal_n(const char *a, size_t alen, const char *b) {
    for (size_t i = 0; i < alen; i++, b++) {
        if (*b == '\0') return false;
        if (lower((unsigned char)a[i]) != lower((unsigned char)*b)) return false;
    }
    return *b == '\0';
}

bool tn_str_ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return m <= n && memcmp(s + n - m, suffix, m) == 0;
}
