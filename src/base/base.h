/*
 * base/base.h: the bottom layer every other layer builds on: error codes and the thread-local
 * error message, arenas, growable byte buffers, string helpers, hashing, and the file-system
 * vtable through which all I/O goes (so tests can inject faults). Includes nothing of tarn's.
 */
#ifndef TN_BASE_H
#define TN_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---------------------------------------------------------------------------------------------
 * Errors. Functions return 0 on success or a negative TN_E* code; the message (with context,
 * e.g. "f.parquet: row group 2, column 'x': page 3: bad RLE run") is kept per thread.
 * tn_error_set() records a new message and returns the code, so `return tn_error_set(...)`.
 * tn_error_prefix() prepends context to the current message while propagating it up.
 */
#define TN_ERROR_TABLE(X)                                          \
    X(TN_OK, 0, "ok")                                              \
    X(TN_ENOMEM, -1, "out of memory")                              \
    X(TN_EIO, -2, "I/O error")                                     \
    X(TN_EINVAL, -3, "invalid argument")                           \
    X(TN_ECORRUPT, -4, "corrupt data")                             \
    X(TN_EUNSUPPORTED, -5, "not supported")                        \
    X(TN_ENOTFOUND, -6, "not found")                               \
    X(TN_EEXISTS, -7, "already exists")                            \
    X(TN_ESYNTAX, -8, "syntax error")                              \
    X(TN_EBIND, -9, "binder error")                                \
    X(TN_ECONFLICT, -10, "commit conflict")                        \
    X(TN_ELIMIT, -11, "limit exceeded")                            \
    X(TN_ECONSTRAINT, -12, "constraint violated")                  \
    X(TN_EINTERNAL, -13, "internal error")                         \
    X(TN_ECHECKSUM, -14, "checksum mismatch")                      \
    X(TN_EINTERRUPT, -15, "Interrupted")

enum tn_error_code {
#define TN_ERROR_ENUM(name, value, text) name = value,
    TN_ERROR_TABLE(TN_ERROR_ENUM)
#undef TN_ERROR_ENUM
};

int tn_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tn_error_setv(int code, const char *fmt, va_list ap);
/* Prepend "<context>: " to the current message; returns code unchanged. */
int tn_error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Length of a leading DuckDB error class ("Binder Error: ", "Out of Range Error: ") in m, or 0. */
size_t tn_error_class_len(const char *m);
const char *tn_error_message(void);   /* borrowed; valid until the next error on this thread */
int tn_error_code_last(void);
const char *tn_error_code_name(int code);
void tn_error_clear(void);
/* The input value the current error is about (the string a cast could not convert), for a caller
 * that knows where its input came from (a file scan then names file and line). Note it right
 * after tn_error_set; the next tn_error_set or tn_error_clear forgets it (tn_error_prefix keeps
 * it). tn_error_value: false when there is none or it was longer than 256 bytes. */
void tn_error_note_value(const char *s, size_t n);
bool tn_error_value(const char **s, size_t *n);
/* Copy another thread's error into this thread (workers hand errors to the caller). */
typedef struct tn_error_state {
    int code;
    char message[1024];
} tn_error_state;
void tn_error_save(tn_error_state *out);
int tn_error_restore(const tn_error_state *state);

/* Cancellation. A flag (an int owned by whoever may cancel, e.g. a SQL session) is set with an
 * atomic store from any thread or a signal handler; long loops poll it at their natural steps
 * (a chunk, a morsel, a block of a sort) through tn_interrupt_check, which returns 0 or records
 * TN_EINTERRUPT "Interrupted". A NULL flag never interrupts. */
static inline bool tn_interrupt_pending(const int *flag) {
    return flag && __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}
int tn_interrupt_check(const int *flag);

/* Allocation that records TN_ENOMEM on failure (returns NULL). Never abort(). */
void *tn_malloc(size_t size);
void *tn_calloc(size_t count, size_t size);
void *tn_realloc(void *ptr, size_t size);
char *tn_strdup(const char *s);
char *tn_strndup(const char *s, size_t n);
void tn_free(void *ptr);

/* ---------------------------------------------------------------------------------------------
 * Arena: bump allocation freed in one call (per statement, per batch). With TN_ARENA_DEBUG=1
 * in the environment each allocation goes to malloc, so ASan and valgrind see every block.
 */
typedef struct tn_arena tn_arena;
tn_arena *tn_arena_create(size_t block_size);          /* 0 = default (64 KiB) */
void tn_arena_destroy(tn_arena *arena);                 /* frees everything; NULL ok */
void tn_arena_reset(tn_arena *arena);                   /* frees all but keeps the arena */
void *tn_arena_alloc(tn_arena *arena, size_t size);     /* 16-byte aligned; NULL + TN_ENOMEM */
void *tn_arena_calloc(tn_arena *arena, size_t size);
char *tn_arena_strdup(tn_arena *arena, const char *s);
char *tn_arena_strndup(tn_arena *arena, const char *s, size_t n);
char *tn_arena_printf(tn_arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t tn_arena_bytes(const tn_arena *arena);           /* bytes handed out so far */

/* ---------------------------------------------------------------------------------------------
 * Growable byte buffer (heap). Owner frees with tn_buf_free.
 */
typedef struct tn_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} tn_buf;
#define TN_BUF_INIT {NULL, 0, 0}
int tn_buf_reserve(tn_buf *buf, size_t extra);          /* ensure cap >= len + extra */
int tn_buf_append(tn_buf *buf, const void *data, size_t n);
int tn_buf_append_byte(tn_buf *buf, uint8_t byte);
int tn_buf_printf(tn_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tn_buf_free(tn_buf *buf);
void tn_buf_clear(tn_buf *buf);                         /* len = 0, keeps memory */

/* ---------------------------------------------------------------------------------------------
 * Strings and little-endian helpers.
 */
bool tn_str_iequal(const char *a, const char *b);
bool tn_str_iequal_n(const char *a, size_t alen, const char *b);
bool tn_str_ends_with(const char *s, const char *suffix);

static inline uint32_t tn_load_u32le(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t tn_load_u64le(const uint8_t *p) {
    return (uint64_t)tn_load_u32le(p) | ((uint64_t)tn_load_u32le(p + 4) << 32);
}
static inline void tn_store_u32le(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void tn_store_u64le(uint8_t *p, uint64_t v) {
    tn_store_u32le(p, (uint32_t)v);
    tn_store_u32le(p + 4, (uint32_t)(v >> 32));
}

/* ---------------------------------------------------------------------------------------------
 * Hashing: XXH3-64 (libxxhash) for hash tables; XXH64 seed 0 (Parquet bloom filters);
 * Murmur3 x86_32 (Spark's hash(), used by qbeast weights and Paimon-style buckets); crc32.
 */
uint64_t tn_hash_bytes(const void *data, size_t n, uint64_t seed);
uint64_t tn_hash_u64(uint64_t v);
uint64_t tn_xxh64(const void *data, size_t n, uint64_t seed);
uint32_t tn_murmur3_32(const void *data, size_t n, uint32_t seed);
/* tn_murmur3_32's steps, for loops that hash a fixed layout without building the bytes: the mix of
 * one 4-byte block (or of the tail) into k, a whole block into h, and the finalizer over length n. */
static inline uint32_t tn_murmur3_mix_k(uint32_t k) {
    k *= 0xcc9e2d51;
    k = (k << 15) | (k >> 17);
    return k * 0x1b873593;
}
static inline uint32_t tn_murmur3_block(uint32_t h, uint32_t k) {
    h ^= tn_murmur3_mix_k(k);
    h = (h << 13) | (h >> 19);
    return h * 5 + 0xe6546b64;
}
static inline uint32_t tn_murmur3_final(uint32_t h, uint32_t n) {
    h ^= n;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >> 16);
}
uint32_t tn_crc32(uint32_t crc, const void *data, size_t n);

/* ---------------------------------------------------------------------------------------------
 * File system vtable. All file I/O in tarn goes through a tn_fs so tests can inject faults
 * (short writes, failed fsync, ENOSPC, failed link). tn_fs_default() is the POSIX one.
 * Every function returns 0 or a negative TN_E* code with a message naming the path.
 */
typedef struct tn_file tn_file;                         /* opaque, owned by the fs */
typedef struct tn_fs tn_fs;
typedef struct tn_fs_stat {
    uint64_t size;
    int64_t mtime_us;                                   /* modification time, µs since epoch */
    bool is_dir;
    bool is_link;                                       /* set by lstat only */
} tn_fs_stat;
struct tn_fs {
    int (*open_read)(tn_fs *fs, const char *path, tn_file **out);
    int (*open_write)(tn_fs *fs, const char *path, bool exclusive, tn_file **out); /* create/trunc */
    int (*size)(tn_fs *fs, tn_file *file, uint64_t *out);
    int (*pread)(tn_fs *fs, tn_file *file, void *buf, size_t n, uint64_t offset); /* all n or error */
    int (*write)(tn_fs *fs, tn_file *file, const void *buf, size_t n);           /* all n or error */
    int (*sync)(tn_fs *fs, tn_file *file);
    int (*close)(tn_fs *fs, tn_file *file);
    int (*link)(tn_fs *fs, const char *from, const char *to);   /* TN_EEXISTS if `to` exists */
    int (*rename)(tn_fs *fs, const char *from, const char *to);
    int (*unlink)(tn_fs *fs, const char *path);
    int (*mkdir_p)(tn_fs *fs, const char *path);
    int (*exists)(tn_fs *fs, const char *path, bool *out);
    /* Calls fn for each entry name (not "." or "..") of a directory; sorted by name. */
    int (*list_dir)(tn_fs *fs, const char *path, int (*fn)(void *ctx, const char *name, bool is_dir),
                    void *ctx);
    void *state;
    /* Optional operations, after `state` so that older positional initializers still compile:
     * NULL means unsupported, and the tn_fs_* wrappers below then return TN_EUNSUPPORTED. */
    int (*stat)(tn_fs *fs, const char *path, tn_fs_stat *out);  /* TN_ENOTFOUND if missing */
    int (*rmdir)(tn_fs *fs, const char *path);                  /* an empty directory */
    int (*sync_dir)(tn_fs *fs, const char *path);               /* fsync a directory */
    int (*lstat)(tn_fs *fs, const char *path, tn_fs_stat *out); /* a symlink itself: is_link */
    /* Removes the tree at path without ever following a symlink (a symlink is unlinked, its
     * target untouched) and keeps every directory below the top that holds a _delta_log (another
     * table) together with its ancestors; table_depth 1: the top's children may be tables and go
     * (a schema), their nested tables stay. *nested (tn_malloc'd, may be NULL) gets the first
     * kept table's path. dry_run: deletes nothing, only finds the nested tables. */
    int (*remove_tree)(tn_fs *fs, const char *path, int table_depth, bool dry_run, char **nested);
    /* Opens (creating) path and holds an exclusive advisory lock on it until close (POSIX: flock,
     * which the kernel drops when the process dies); waits while another holder has it. */
    int (*open_lock)(tn_fs *fs, const char *path, tn_file **out);
};
tn_fs *tn_fs_default(void);
int tn_fs_stat_path(tn_fs *fs, const char *path, tn_fs_stat *out);
int tn_fs_rmdir(tn_fs *fs, const char *path);
/* A directory's change stamp (local file system only, else TN_EUNSUPPORTED): equal stamps of one
 * directory mean no entry was added, removed or renamed in between -- when trusted. A stamp is
 * trusted when it was taken well after the directory's last change (TN_FS_STAMP_MARGIN_US:
 * a change made after it then gets a later mtime, whatever the clock's tick) and the file system
 * keeps sub-second times; an untrusted stamp proves nothing. */
#define TN_FS_STAMP_MARGIN_US 100000
typedef struct tn_fs_stamp {
    uint64_t dev, ino;
    int64_t mtime_ns, ctime_ns;
    bool trusted;
} tn_fs_stamp;
int tn_fs_dir_stamp(tn_fs *fs, const char *path, tn_fs_stamp *out);
bool tn_fs_stamp_same(const tn_fs_stamp *a, const tn_fs_stamp *b);   /* both trusted and equal */
int tn_fs_sync_dir(tn_fs *fs, const char *path);
int tn_fs_lstat_path(tn_fs *fs, const char *path, tn_fs_stat *out);
int tn_fs_remove_tree(tn_fs *fs, const char *path, int table_depth, bool dry_run, char **nested);
int tn_fs_open_lock(tn_fs *fs, const char *path, tn_file **out);
/* Temporary files beside a target (fs_temp.c): a name "<dir>/.<base>.tarn-tmp-<pid>-<n>"
 * (tn_malloc'd); the removal of the ones processes that no longer run left for that target;
 * and the temp files this process has open, which tn_fs_temp_unlink_tracked (async-signal-safe,
 * for SIGINT/SIGTERM handlers) removes. */
char *tn_fs_temp_name(const char *path);
int tn_fs_temp_cleanup(tn_fs *fs, const char *path, uint32_t *removed);
void tn_fs_temp_track(const char *tmp);
void tn_fs_temp_untrack(const char *tmp);
void tn_fs_temp_unlink_tracked(void);
/* A read-write file with no name in the directory dfd (O_TMPFILE: freed by the kernel on close
 * or when the process dies); where the file system lacks O_TMPFILE, created as
 * "<prefix><pid>-<hex>.tmp" and unlinked at once. The fd, or -1 with errno set. */
int tn_fs_anon_temp_open(int dfd, const char *prefix);
/* Convenience wrappers over the vtable. */
int tn_fs_read_all(tn_fs *fs, const char *path, tn_buf *out);
int tn_fs_write_all(tn_fs *fs, const char *path, const void *data, size_t n, bool do_sync);

/* Monotonic time in nanoseconds; wall-clock time in microseconds since the epoch. */
uint64_t tn_time_ns(void);
int64_t tn_time_now_us(void);

/* Number of worker threads to use by default (online cores, or $TARN_THREADS). */
int tn_default_threads(void);

/* ---------------------------------------------------------------------------------------------
 * Thread pool for morsel-driven parallelism. tn_pool_run() runs fn for task = 0..ntasks-1 on
 * the pool's workers and the calling thread (which takes part), each task claimed from a shared
 * counter, and returns when all are done. Tasks after a failing one are not started; the first
 * error (code and message) is carried to the caller's thread and returned. `worker` is a dense
 * index in 0..tn_pool_size(pool)-1, for per-worker state. A pool runs one job at a time.
 */
typedef struct tn_pool tn_pool;
typedef int (*tn_pool_task_fn)(void *ctx, uint32_t task, uint32_t worker);
int tn_pool_create(tn_pool **out, int threads);         /* threads <= 0: tn_default_threads() */
void tn_pool_destroy(tn_pool *pool);                    /* NULL ok; joins the workers */
uint32_t tn_pool_size(const tn_pool *pool);             /* workers incl. the calling thread */
int tn_pool_run(tn_pool *pool, uint32_t ntasks, tn_pool_task_fn fn, void *ctx);

/* ---------------------------------------------------------------------------------------------
 * UTF-8 (base/utf8.c). tn_utf8_check: the offset of the first byte of s[0, n) that starts no
 * well-formed UTF-8 sequence (RFC 3629: no overlongs, surrogates or code points past
 * U+10FFFF), or n when all of it is valid. tn_utf8_append_replaced: appends s to b with each
 * maximal ill-formed subsequence replaced by U+FFFD (as the Unicode standard recommends).
 */
size_t tn_utf8_check(const char *s, size_t n);
int tn_utf8_append_replaced(tn_buf *b, const char *s, size_t n);
/* The code point at p[*i] of p[0, n), *i moved past it; a byte that starts no complete sequence
 * decodes as itself (one byte). tn_utf8_encode: the UTF-8 bytes of cp (<= U+10FFFF) into t,
 * returning their count (1..4). */
uint32_t tn_utf8_next(const char *p, uint32_t n, uint32_t *i);
size_t tn_utf8_encode(uint32_t cp, char t[4]);

/* ---------------------------------------------------------------------------------------------
 * Regular expressions (base/regex.cc, RE2: linear-time matching, DuckDB's syntax). A compiled
 * pattern is immutable and may be shared by threads. Compilation errors are TN_EINVAL with
 * "Invalid regular expression '<pattern>': <RE2's reason>" (e.g. "bad repetition operator").
 * tn_regex_set_max_mem bounds the memory of one pattern (program + DFA; the session sets it
 * from memory_limit, capped at 64 MiB; 0 = the cap). Spans are byte offsets; start -1 = a
 * group that did not take part.
 */
enum { TN_REGEX_ICASE = 1, TN_REGEX_LITERAL = 2, TN_REGEX_DOT_NL = 4 };
typedef struct tn_regex tn_regex;
typedef struct tn_regex_span {
    int64_t start, len;
} tn_regex_span;
void tn_regex_set_max_mem(uint64_t bytes);
int tn_regex_compile(tn_regex **out, const char *pattern, size_t len, int flags);
void tn_regex_free(tn_regex *re);                       /* NULL ok */
int tn_regex_ngroups(const tn_regex *re);               /* capturing groups, without group 0 */
bool tn_regex_search(const tn_regex *re, const char *s, size_t len);      /* anywhere in s */
bool tn_regex_full_match(const tn_regex *re, const char *s, size_t len);  /* all of s */
/* First match at or after start; groups[0] = the match, groups[1..ngroups-1] = groups. */
bool tn_regex_find(const tn_regex *re, const char *s, size_t len, size_t start, tn_regex_span *groups,
                   int ngroups);
/* Appends s with the first (or every, global) match replaced by rewrite (\1 .. \9, \0). */
int tn_regex_replace(const tn_regex *re, const char *s, size_t len, const char *rewrite, size_t rlen,
                     bool global, tn_buf *out);

#endif
