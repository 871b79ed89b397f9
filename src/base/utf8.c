/*
 * base/utf8.c: UTF-8 validation (RFC 3629, as DuckDB's readers apply it: no overlong forms,
 * no surrogates, nothing past U+10FFFF) and replacement of ill-formed sequences by U+FFFD.
 * Used by the text readers, the SQL parser and the public API to keep VARCHAR values valid;
 * and the code-point decoder/encoder of the string functions.
 */
#include <string.h>

#include "base/base.h"

/* Length of the well-formed sequence at s[0, n), or 0 when s[0] starts none. */
static size_t seq_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;          /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0;         /* surrogate */
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;          /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0;         /* > U+10FFFF */
        return 4;
    }
    return 0;
}

size_t tn_utf8_check(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII runs, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        if (p[i] < 0x80) { i++; continue; }
        size_t k = seq_len(p + i, n - i);
        if (k == 0) return i;
        i += k;
    }
    return n;
}

/* Length of the maximal ill-formed subsequence at s (at least 1): the longest prefix of a
 * valid sequence's shape, so "\xE2\x82" followed by 'a' is one replacement, then 'a'. */
static size_t bad_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t want = c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 1;
    size_t k = 1;
    while (k < want && k < n && (s[k] & 0xC0) == 0x80) {
        if (k == 1 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) ||
                       (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)))
            break;
        k++;
    }
    return k;
}

int tn_utf8_append_replaced(tn_buf *b, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t ok = tn_utf8_check(s + i, n - i);
        if (ok && tn_buf_append(b, s + i, ok)) return TN_ENOMEM;
        i += ok;
        if (i >= n) break;
        if (tn_buf_append(b, "\xEF\xBF\xBD", 3)) return TN_ENOMEM;
        i += bad_len(p + i, n - i);
    }
    return 0;
}

uint32_t tn_utf8_next(const char *p, uint32_t n, uint32_t *i) {
    unsigned char c = (unsigned char)p[*i];
    uint32_t cp, len;
    if (c < 0x80) cp = c, len = 1;
    else if ((c & 0xE0) == 0xC0) cp = c & 0x1F, len = 2;
    else if ((c & 0xF0) == 0xE0) cp = c & 0x0F, len = 3;
    else if ((c & 0xF8) == 0xF0) cp = c & 0x07, len = 4;
    else cp = c, len = 1;
    if (*i + len > n) len = 1, cp = c;
    for (uint32_t k = 1; k < len; k++) {
        unsigned char d = (unsigned char)p[*i + k];
        if ((d & 0xC0) != 0x80) {
            len = 1;
            cp = c;
            break;
        }
        cp = (cp << 6) | (d & 0x3F);
    }
    *i += len;
    return cp;
}

size_t tn_utf8_encode(uint32_t cp, char t[4]) {
    if (cp < 0x80) return t[0] = (char)cp, 1;
    if (cp < 0x800) return t[0] = (char)(0xC0 | (cp >> 6)), t[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return t[0] = (char)(0xE0 | (cp >> 12)), t[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
               t[2] = (char)(0x80 | (cp & 0x3F)), 3;
    return t[0] = (char)(0xF0 | (cp >> 18)), t[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
           t[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), t[3] = (char)(0x80 | (cp & 0x3F)), 4;
}
