/*
 * base/alloc.c: heap allocation wrappers that record TN_ENOMEM (with the size asked for) in the
 * thread's error instead of aborting. Callers check for NULL and return tn_error_code_last().
 */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

void *tn_malloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) tn_error_set(TN_ENOMEM, "out of memory allocating %zu bytes", size);
    return p;
}

void *tn_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) {
        tn_error_set(TN_ENOMEM, "out of memory allocating %zu x %zu bytes", count, size);
        return NULL;
    }
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) tn_error_set(TN_ENOMEM, "out of memory allocating %zu bytes", count * size);
    return p;
}

void *tn_realloc(void *ptr, size_t size) {
    void *p = realloc(ptr, size ? size : 1);
    if (!p) tn_error_set(TN_ENOMEM, "out of memory allocating %zu bytes", size);
    return p;
}

char *tn_strdup(const char *s) {
    return tn_strndup(s, strlen(s));
}

char *tn_strndup(const char *s, size_t n) {
    size_t len = strnlen(s, n);
    char *p = tn_malloc(len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void tn_free(void *ptr) { free(ptr); }
