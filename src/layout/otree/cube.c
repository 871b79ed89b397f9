/*
 * layout/otree/cube.c: qbeast's cube ids in their string form: ceil(d/6) Base64 symbols
 * (A-Z a-z 0-9 + /) per level, dimension i of a level in bit 5 - i%6 of symbol i/6 (set = upper
 * half), the root "". Validation, descent of a point, bounds and ancestry.
 */
#include "layout/otree/otreeInt.h"

#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int sym_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

uint32_t ot_cube_chars_per_level(uint32_t dims) { return (dims + 5) / 6; }

bool ot_cube_valid(const char *id, uint32_t dims, uint32_t *depth) {
    if (dims == 0) return false;
    uint32_t cpl = ot_cube_chars_per_level(dims);
    size_t n = strlen(id);
    if (n % cpl) return false;
    if (n / cpl > OT_MAX_LEVELS) return false;
    for (size_t i = 0; i < n; i++) {
        int v = sym_value(id[i]);
        if (v < 0) return false;
        /* symbol j of a level holds dimensions 6j .. 6j+5; the last one may use fewer bits */
        uint32_t j = (uint32_t)(i % cpl), used = dims - 6 * j < 6 ? dims - 6 * j : 6;
        if (v & ((1 << (6 - used)) - 1)) return false;
    }
    if (depth) *depth = (uint32_t)(n / cpl);
    return true;
}

void ot_cube_descend(double *coords, uint32_t dims, char *buf) {
    uint32_t cpl = ot_cube_chars_per_level(dims);
    int sym[16] = {0};
    for (uint32_t i = 0; i < dims; i++) {
        double x = coords[i] * 2;
        if (x >= 1) {
            sym[i / 6] |= 1 << (5 - i % 6);
            x -= 1;
        }
        coords[i] = x;
    }
    for (uint32_t j = 0; j < cpl; j++) buf[j] = alphabet[sym[j]];
}

void ot_cube_bounds(const char *id, uint32_t dims, double *from, double *to) {
    uint32_t cpl = ot_cube_chars_per_level(dims);
    size_t n = strlen(id);
    for (uint32_t i = 0; i < dims; i++) {
        from[i] = 0;
        to[i] = 1;
    }
    for (size_t lvl = 0; lvl * cpl < n; lvl++) {
        for (uint32_t i = 0; i < dims; i++) {
            int v = sym_value(id[lvl * cpl + i / 6]);
            double mid = (from[i] + to[i]) / 2;
            if (v >= 0 && (v >> (5 - i % 6)) & 1) from[i] = mid;
            else to[i] = mid;
        }
    }
}

bool ot_cube_is_ancestor(const char *a, const char *b, uint32_t dims) {
    (void)dims;
    size_t na = strlen(a), nb = strlen(b);
    return na < nb && memcmp(a, b, na) == 0;
}
