/*
 * parquet/cache.c: the process's cache of parsed Parquet footers. A table scan opens every file
 * it may read to plan its row groups; a statement that touches 1,500 small files (an OTree
 * sample before OPTIMIZE) spent most of its time re-reading and re-decoding footers that an
 * earlier statement had parsed. tn_parquet_open_cached stats the path, and when an entry of the
 * same file system, path, size, modification time (µs) and open mode is kept, returns a copy of
 * its parsed metadata without any I/O (the descriptor is opened later, by
 * tn_parquet_handle_open, which checks the size again). Entries are immutable and refcounted
 * (reader.c: masters and copies), kept in LRU order under a byte budget; it owns no descriptor.
 */
#include "parquet/readerInt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_DEFAULT_BYTES ((uint64_t)64 << 20)

typedef struct cache_entry {
    tn_parquet_file *master;           /* one reference held by the cache */
    const char *path;                  /* the master's */
    tn_fs *fs;
    uint64_t size, hash;
    int64_t mtime_us;
    bool metadata_only;
    size_t bytes;
    struct cache_entry *hnext;         /* hash chain */
    struct cache_entry *prev, *next;   /* LRU list: head = most recently used */
} cache_entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static cache_entry **g_buckets;
static uint32_t g_nbuckets;            /* power of two, or 0 */
static uint64_t g_entries, g_bytes, g_max = CACHE_DEFAULT_BYTES, g_hits, g_misses;
static cache_entry *g_head, *g_tail;

static uint64_t key_hash(tn_fs *fs, const char *path, uint64_t size, int64_t mtime_us, bool metadata_only) {
    uint64_t h = tn_hash_bytes(path, strlen(path), (uint64_t)(uintptr_t)fs);
    return tn_hash_u64(h ^ tn_hash_u64(size) ^ tn_hash_u64((uint64_t)mtime_us * 2 + metadata_only));
}

static void lru_unlink(cache_entry *e) {
    if (e->prev) e->prev->next = e->next;
    else g_head = e->next;
    if (e->next) e->next->prev = e->prev;
    else g_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(cache_entry *e) {
    e->next = g_head;
    e->prev = NULL;
    if (g_head) g_head->prev = e;
    g_head = e;
    if (!g_tail) g_tail = e;
}

/* Removes e from the table and list; returns its master for pq_rd_unref outside the lock. */
static tn_parquet_file *drop(cache_entry *e) {
    cache_entry **pp = &g_buckets[e->hash & (g_nbuckets - 1)];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    lru_unlink(e);
    g_entries--;
    g_bytes -= e->bytes;
    tn_parquet_file *m = e->master;
    tn_free(e);
    return m;
}

static cache_entry *find(tn_fs *fs, const char *path, uint64_t size, int64_t mtime_us, bool metadata_only,
                         uint64_t h) {
    if (!g_nbuckets) return NULL;
    for (cache_entry *e = g_buckets[h & (g_nbuckets - 1)]; e; e = e->hnext)
        if (e->hash == h && e->fs == fs && e->size == size && e->mtime_us == mtime_us &&
            e->metadata_only == metadata_only && strcmp(e->path, path) == 0)
            return e;
    return NULL;
}

static void grow(void) {
    uint32_t n = g_nbuckets ? g_nbuckets * 2 : 256;
    cache_entry **b = tn_calloc(n, sizeof *b);
    if (!b) return;   /* longer chains, still correct */
    for (uint32_t i = 0; i < g_nbuckets; i++)
        for (cache_entry *e = g_buckets[i], *next; e; e = next) {
            next = e->hnext;
            e->hnext = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    tn_free(g_buckets);
    g_buckets = b;
    g_nbuckets = n;
}

/* Masters evicted under the lock, released after it (closing one frees memory only). */
typedef struct evicted {
    tn_parquet_file *m[16];
    uint32_t n;
} evicted;

static void evict_to(uint64_t budget, evicted *ev) {
    while (g_tail && g_bytes > budget && ev->n < 16) ev->m[ev->n++] = drop(g_tail);
}

static void release(evicted *ev) {
    for (uint32_t i = 0; i < ev->n; i++) pq_rd_unref(ev->m[i]);
    ev->n = 0;
}

/* The lookup and the insertion, keyed by st's size and mtime_us (from a stat, or a log). */
static int open_keyed(tn_parquet_file **out, tn_fs *fs, const char *path, const tn_parquet_open_options *opts,
                      uint64_t max, tn_fs_stat st) {
    tn_parquet_open_options defaults = TN_PARQUET_OPEN_OPTIONS_INIT;
    const tn_parquet_open_options *o = opts ? opts : &defaults;
    uint64_t h = key_hash(fs, path, st.size, st.mtime_us, o->metadata_only);
    pthread_mutex_lock(&g_mu);
    cache_entry *e = find(fs, path, st.size, st.mtime_us, o->metadata_only, h);
    if (e) {
        tn_parquet_file *f = pq_rd_share(e->master, fs, opts);
        if (f) {
            lru_unlink(e);
            lru_push(e);
            g_hits++;
        }
        pthread_mutex_unlock(&g_mu);
        if (!f) return TN_ENOMEM;
        *out = f;
        return 0;
    }
    g_misses++;
    pthread_mutex_unlock(&g_mu);

    tn_parquet_file *m = NULL;
    int rc = tn_parquet_open(&m, fs, path, opts);
    if (rc) return rc;
    size_t bytes = pq_rd_footer_bytes(m) + sizeof(cache_entry);
    /* a file that changed between the stat and the open, or a footer too large to keep (a
     * checkpoint's): used uncached */
    if (tn_parquet_file_size(m) != st.size || bytes > max / 8) {
        *out = m;
        return 0;
    }
    pq_rd_make_master(m);
    tn_parquet_file *f = pq_rd_share(m, fs, opts);
    if (!f) {
        pq_rd_unref(m);
        return TN_ENOMEM;
    }
    cache_entry *ne = tn_calloc(1, sizeof *ne);
    evicted ev = {{0}, 0};
    pthread_mutex_lock(&g_mu);
    if (ne && !find(fs, path, st.size, st.mtime_us, o->metadata_only, h)) {
        if (g_entries >= g_nbuckets) grow();
        if (g_nbuckets) {
            ne->master = m;
            ne->path = tn_parquet_path(m);
            ne->fs = fs;
            ne->size = st.size;
            ne->hash = h;
            ne->mtime_us = st.mtime_us;
            ne->metadata_only = o->metadata_only;
            ne->bytes = bytes;
            ne->hnext = g_buckets[h & (g_nbuckets - 1)];
            g_buckets[h & (g_nbuckets - 1)] = ne;
            lru_push(ne);
            g_entries++;
            g_bytes += bytes;
            m = NULL;   /* the cache's reference now */
            ne = NULL;
            evict_to(g_max, &ev);
        }
    }
    pthread_mutex_unlock(&g_mu);
    tn_free(ne);
    pq_rd_unref(m);     /* not kept (a racing open kept its own): only the copy holds it */
    release(&ev);
    *out = f;
    return 0;
}

static uint64_t budget(void) {
    pthread_mutex_lock(&g_mu);
    uint64_t max = g_max;
    pthread_mutex_unlock(&g_mu);
    return max;
}

int tn_parquet_open_cached(tn_parquet_file **out, tn_fs *fs, const char *path, const tn_parquet_open_options *opts) {
    *out = NULL;
    if (!fs) fs = tn_fs_default();
    tn_fs_stat st;
    uint64_t max = budget();
    if (max == 0 || tn_fs_stat_path(fs, path, &st) != 0 || st.is_dir) {
        tn_error_clear();   /* no stat (a test file system), or missing: the plain open's error */
        return tn_parquet_open(out, fs, path, opts);
    }
    return open_keyed(out, fs, path, opts, max, st);
}

int tn_parquet_open_cached_known(tn_parquet_file **out, tn_fs *fs, const char *path, uint64_t size,
                                 int64_t version, const tn_parquet_open_options *opts) {
    *out = NULL;
    if (!fs) fs = tn_fs_default();
    uint64_t max = budget();
    if (max == 0) return tn_parquet_open(out, fs, path, opts);
    tn_fs_stat st;
    memset(&st, 0, sizeof st);
    st.size = size;
    st.mtime_us = version;
    return open_keyed(out, fs, path, opts, max, st);
}

void tn_parquet_cache_configure(uint64_t max_bytes) {
    evicted ev = {{0}, 0};
    pthread_mutex_lock(&g_mu);
    g_max = max_bytes;
    for (;;) {
        evict_to(max_bytes, &ev);
        if (!ev.n) break;
        pthread_mutex_unlock(&g_mu);
        release(&ev);
        pthread_mutex_lock(&g_mu);
    }
    if (!g_entries) {
        tn_free(g_buckets);
        g_buckets = NULL;
        g_nbuckets = 0;
    }
    pthread_mutex_unlock(&g_mu);
}

void tn_parquet_cache_clear(void) {
    pthread_mutex_lock(&g_mu);
    uint64_t max = g_max;
    pthread_mutex_unlock(&g_mu);
    tn_parquet_cache_configure(0);
    tn_parquet_cache_configure(max);
}

void tn_parquet_cache_get_stats(tn_parquet_cache_stats *out) {
    pthread_mutex_lock(&g_mu);
    out->hits = g_hits;
    out->misses = g_misses;
    out->entries = g_entries;
    out->bytes = g_bytes;
    out->max_bytes = g_max;
    pthread_mutex_unlock(&g_mu);
    out->page_memo_bytes = pq_page_memo_total_bytes();
}
