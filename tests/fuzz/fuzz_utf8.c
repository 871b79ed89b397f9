/*
 * tests/fuzz/fuzz_utf8.c: libFuzzer target for the UTF-8 checker and replacer (base/utf8.c).
 * The checker must agree with a byte-at-a-time reference decoder (RFC 3629), the replaced text
 * must be valid, equal the input when it was valid, and keep every valid prefix unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Reference: the offset of the first ill-formed byte, decoding code points one by one. */
static size_t reference(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t c = s[i], cp, k;
        if (c < 0x80) { i++; continue; }
        if ((c & 0xE0) == 0xC0) { k = 2; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { k = 3; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { k = 4; cp = c & 0x07; }
        else return i;
        if (i + k > n) return i;
        for (uint32_t j = 1; j < k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
            cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += k;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t at = tn_utf8_check((const char *)data, size);
    if (at != reference(data, size)) abort();
    tn_buf b = TN_BUF_INIT;
    if (tn_utf8_append_replaced(&b, (const char *)data, size) == 0) {
        if (tn_utf8_check((const char *)b.data, b.len) != b.len) abort();
        if (at == size && (b.len != size || (size && memcmp(b.data, data, size)))) abort();
        if (at && (b.len < at || memcmp(b.data, data, at))) abort();
    }
    tn_buf_free(&b);
    return 0;
}
