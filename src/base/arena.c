/*
 * base/arena.c: bump allocator over a list of malloc'd blocks, 16-byte aligned, freed in one
 * call. Requests larger than a quarter block get a block of their own. With TARN_ARENA_DEBUG=1
 * (or TN_ARENA_DEBUG=1; read once per process) every allocation is its own malloc, so ASan and
 * valgrind see overflows and leaks of each allocation.
 */
#include "base/base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK (64 * 1024)

typedef struct arena_block {
    struct arena_block *next;
    size_t size;      /* usable bytes after the header */
    size_t used;
    /* payload follows, aligned */
    _Alignas(ARENA_ALIGN) unsigned char data[];
} arena_block;

struct tn_arena {
    arena_block *head;     /* current block first; in debug mode one block per allocation */
    size_t block_size;
    size_t bytes;          /* bytes handed out */
    bool debug;
};

static pthread_once_t g_debug_once = PTHREAD_ONCE_INIT;
static bool g_debug;

static void read_debug_env(void) {
    const char *s = getenv("TARN_ARENA_DEBUG");
    if (!s) s = getenv("TN_ARENA_DEBUG");
    g_debug = s && s[0] && strcmp(s, "0") != 0;
}

tn_arena *tn_arena_create(size_t block_size) {
    pthread_once(&g_debug_once, read_debug_env);
    tn_arena *a = tn_calloc(1, sizeof *a);
    if (!a) return NULL;
    a->block_size = block_size ? block_size : ARENA_DEFAULT_BLOCK;
    if (a->block_size < 256) a->block_size = 256;
    a->debug = g_debug;
    return a;
}

static void free_blocks(arena_block *b) {
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
}

void tn_arena_destroy(tn_arena *arena) {
    if (!arena) return;
    free_blocks(arena->head);
    free(arena);
}

void tn_arena_reset(tn_arena *arena) {
    if (!arena) return;
    arena->bytes = 0;
    if (arena->debug || !arena->head) {
        free_blocks(arena->head);
        arena->head = NULL;
        return;
    }
    /* Keep the first standard-sized block we find, free the rest. */
    arena_block *keep = NULL, *b = arena->head;
    while (b) {
        arena_block *next = b->next;
        if (!keep && b->size == arena->block_size) {
            keep = b;
            keep->used = 0;
            keep->next = NULL;
        } else {
            free(b);
        }
        b = next;
    }
    arena->head = keep;
}

static arena_block *new_block(size_t payload) {
    if (payload > SIZE_MAX - sizeof(arena_block)) {
        tn_error_set(TN_ENOMEM, "out of memory allocating %zu bytes", payload);
        return NULL;
    }
    arena_block *b = tn_malloc(sizeof(arena_block) + payload);
    if (!b) return NULL;
    b->next = NULL;
    b->size = payload;
    b->used = 0;
    return b;
}

void *tn_arena_alloc(tn_arena *arena, size_t size) {
    if (size > SIZE_MAX - 2 * ARENA_ALIGN) {
        tn_error_set(TN_ENOMEM, "out of memory allocating %zu bytes", size);
        return NULL;
    }
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded == 0) rounded = ARENA_ALIGN;
    if (arena->debug) {
        /* Exact size so ASan catches a one-byte overflow. */
        arena_block *b = new_block(size ? size : 1);
        if (!b) return NULL;
        b->used = b->size;
        b->next = arena->head;
        arena->head = b;
        arena->bytes += size;
        return b->data;
    }
    arena_block *cur = arena->head;
    if (cur && cur->size - cur->used >= rounded) {
        void *p = cur->data + cur->used;
        cur->used += rounded;
        arena->bytes += size;
        return p;
    }
    if (rounded > arena->block_size / 4) {
        /* A block of its own, linked behind the current one so that block stays in use. */
        arena_block *b = new_block(rounded);
        if (!b) return NULL;
        b->used = rounded;
        if (cur) {
            b->next = cur->next;
            cur->next = b;
        } else {
            arena->head = b;
        }
        arena->bytes += size;
        return b->data;
    }
    arena_block *b = new_block(arena->block_size);
    if (!b) return NULL;
    b->next = arena->head;
    arena->head = b;
    b->used = rounded;
    arena->bytes += size;
    return b->data;
}

void *tn_arena_calloc(tn_arena *arena, size_t size) {
    void *p = tn_arena_alloc(arena, size);
    if (p) memset(p, 0, size);
    return p;
}

char *tn_arena_strndup(tn_arena *arena, const char *s, size_t n) {
    size_t len = strnlen(s, n);
    char *p = tn_arena_alloc(arena, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *tn_arena_strdup(tn_arena *arena, const char *s) {
    return tn_arena_strndup(arena, s, strlen(s));
}

char *tn_arena_printf(tn_arena *arena, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = NULL;
    if (n < 0) {
        tn_error_set(TN_EINVAL, "arena printf: bad format");
        goto cleanup;
    }
    p = tn_arena_alloc(arena, (size_t)n + 1);
    if (p) vsnprintf(p, (size_t)n + 1, fmt, ap2);
cleanup:
    va_end(ap2);
    return p;
}

size_t tn_arena_bytes(const tn_arena *arena) { return arena ? arena->bytes : 0; }
