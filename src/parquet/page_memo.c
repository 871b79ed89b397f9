/*
 * parquet/page_memo.c: decompressed pages of a small, cached Parquet file, kept with its footer
 * (cache.c's master) so that a statement re-reading the same small table (a point query over
 * the server, a dimension table joined each time) does not decompress its pages again: a
 * profile of a prepared point query on a 1,000-row ZSTD table spent a sixth of the server's time
 * in ZSTD. A master's file is immutable for the cache (keyed by path, size and modification
 * time), so a page is named by its file offset. Lookups copy the bytes into the caller's buffer
 * (the scan's page buffers keep their own lifetime rules). Bounded: only files of at most
 * PQ_MEMO_MAX_FILE bytes get a memo, a memo holds at most PQ_MEMO_MAX_BYTES, and all memos
 * together at most PQ_MEMO_TOTAL_BYTES (past it pages are not kept; memory is returned when the
 * footer cache drops the master).
 */
#include "parquet/parquetInt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MEMO_BUCKETS 64

typedef struct memo_page {
    uint64_t offset;
    size_t len;
    struct memo_page *next;
    uint8_t bytes[];
} memo_page;

struct pq_page_memo {
    pthread_mutex_t mu;
    memo_page *buckets[MEMO_BUCKETS];
    uint64_t bytes;
};

static uint64_t g_total_bytes;   /* atomic: every memo's pages */

pq_page_memo *pq_page_memo_new(uint64_t file_size) {
    if (file_size > PQ_MEMO_MAX_FILE) return NULL;
    pq_page_memo *m = tn_calloc(1, sizeof *m);
    if (!m) return NULL;   /* no memo: pages are decompressed each time */
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void pq_page_memo_free(pq_page_memo *m) {
    if (!m) return;
    for (uint32_t i = 0; i < MEMO_BUCKETS; i++)
        for (memo_page *p = m->buckets[i], *next; p; p = next) {
            next = p->next;
            tn_free(p);
        }
    __atomic_sub_fetch(&g_total_bytes, m->bytes, __ATOMIC_RELAXED);
    pthread_mutex_destroy(&m->mu);
    tn_free(m);
}

static uint32_t bucket_of(uint64_t offset) { return (uint32_t)(tn_hash_u64(offset) % MEMO_BUCKETS); }

bool pq_page_memo_get(pq_page_memo *m, uint64_t offset, uint8_t *dst, size_t len) {
    bool hit = false;
    pthread_mutex_lock(&m->mu);
    for (memo_page *p = m->buckets[bucket_of(offset)]; p; p = p->next)
        if (p->offset == offset) {
            if (p->len == len) {
                memcpy(dst, p->bytes, len);
                hit = true;
            }
            break;
        }
    pthread_mutex_unlock(&m->mu);
    return hit;
}

void pq_page_memo_put(pq_page_memo *m, uint64_t offset, const uint8_t *src, size_t len) {
    uint64_t cost = sizeof(memo_page) + len;
    if (cost > PQ_MEMO_MAX_BYTES) return;
    uint64_t total = __atomic_add_fetch(&g_total_bytes, cost, __ATOMIC_RELAXED);
    if (total > PQ_MEMO_TOTAL_BYTES) {
        __atomic_sub_fetch(&g_total_bytes, cost, __ATOMIC_RELAXED);
        return;
    }
    memo_page *np = tn_malloc(sizeof *np + len);
    if (!np) {
        __atomic_sub_fetch(&g_total_bytes, cost, __ATOMIC_RELAXED);
        return;
    }
    np->offset = offset;
    np->len = len;
    memcpy(np->bytes, src, len);
    pthread_mutex_lock(&m->mu);
    memo_page **head = &m->buckets[bucket_of(offset)];
    bool kept = m->bytes + cost <= PQ_MEMO_MAX_BYTES;
    for (memo_page *p = *head; p && kept; p = p->next) kept = p->offset != offset;
    if (kept) {
        np->next = *head;
        *head = np;
        m->bytes += cost;
    }
    pthread_mutex_unlock(&m->mu);
    if (!kept) {
        __atomic_sub_fetch(&g_total_bytes, cost, __ATOMIC_RELAXED);
        tn_free(np);
    }
}

uint64_t pq_page_memo_total_bytes(void) { return __atomic_load_n(&g_total_bytes, __ATOMIC_RELAXED); }
