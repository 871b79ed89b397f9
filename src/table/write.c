/*
 * table/write.c: the write pipeline (partition split into Hive-style directories, one Parquet
 * writer per open partition with LRU closing and file rolling at a target size, add.stats),
 * the commit of appends / overwrites (whole, static partition, dynamic partition) and of
 * copy-on-write DELETE, and the optimistic commit loop shared by every table commit.
 *
 * Rows are routed by the typed bytes of their partition values (hashed); a partition's escaped
 * directory and value texts are built once, when its tuple is first seen. Row groups hold
 * 122,880 rows unless the options say otherwise.
 *
 * Data file names: <col=value/...>/part-<5-digit counter>-<uuid>-c000.<codec>.parquet.
 * add.stats: {"numRecords":N,"minValues":{..},"maxValues":{..},"nullCount":{..}} keyed by
 * physical column name; strings cut to 32 characters (max gets U+10FFFF appended when cut),
 * timestamps as ISO-8601 milliseconds (min floored, max ceiled; TIMESTAMPTZ with 'Z'), no
 * min/max for booleans, binaries, NaN/infinite floats.
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------------------------------
 * The commit loop.
 */
static void backoff(int attempt) {
    char u[37];
    tb_uuid(u);
    long jitter = (long)(strtoul(u + 28, NULL, 16) % 1000);   /* 0..999 us */
    long us = (long)(attempt < 10 ? attempt : 10) * 1000 + jitter;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* After an I/O error: did our commit land at `version`? */
static bool landed(tn_table *t, int64_t version, const tn_delta_action *actions, uint32_t n) {
    tn_buf ours = TN_BUF_INIT, theirs = TN_BUF_INIT;
    bool same = false;
    char *path = NULL;
    tn_error_state saved;
    tn_error_save(&saved);
    size_t len = strlen(t->path) + 64;
    path = tn_malloc(len);
    if (!path) goto cleanup;
    snprintf(path, len, "%s/_delta_log/%020lld.json", t->path, (long long)version);
    if (tn_delta_commit_serialize(&ours, actions, n) != 0) goto cleanup;
    if (tn_fs_read_all(t->fs, path, &theirs) != 0) goto cleanup;
    same = ours.len == theirs.len && memcmp(ours.data, theirs.data, ours.len) == 0;
cleanup:
    tn_free(path);
    tn_buf_free(&ours);
    tn_buf_free(&theirs);
    tn_error_restore(&saved);
    return same;
}

int tb_commit(tn_table *t, const tn_delta_txn_info *info, tn_delta_action *actions, uint32_t nactions,
              int max_attempts, const char *app_id, int64_t app_version, int64_t *version,
              bool *skipped, int *attempts) {
    int rc = 0;
    tn_arena *arena = NULL;
    if (max_attempts <= 0) max_attempts = 20;
    *skipped = false;
    *version = -1;
    int64_t v = info->read_version + 1;
    int attempt = 0;
    for (;;) {
        attempt++;
        if (attempts) *attempts = attempt;
        rc = tn_delta_commit(t->fs, t->path, v, actions, nactions);
        if (rc == 0) {
            *version = v;
            break;
        }
        if (rc != TN_EEXISTS) {
            if (landed(t, v, actions, nactions)) {
                tn_error_clear();
                rc = 0;
                *version = v;
            } else {
                tn_error_prefix(rc, "table '%s': commit of version %lld", t->path, (long long)v);
            }
            break;
        }
        /* Lost the race: check every winner up to the latest version. */
        tn_error_clear();
        int64_t latest = v;
        rc = tn_delta_latest_version(t->fs, t->path, &latest);
        if (rc) break;
        if (latest < v) latest = v;
        for (int64_t w = v; w <= latest; w++) {
            tn_delta_action *wa = NULL;
            uint32_t nw = 0;
            tn_arena_destroy(arena);
            arena = tn_arena_create(0);
            if (!arena) { rc = TN_ENOMEM; goto cleanup; }
            rc = tn_delta_read_commit(t->fs, t->path, w, arena, &wa, &nw);
            if (rc) goto cleanup;
            if (app_id) {
                for (uint32_t i = 0; i < nw; i++)
                    if (wa[i].kind == TN_DELTA_TXN && wa[i].u.txn.app_id &&
                        strcmp(wa[i].u.txn.app_id, app_id) == 0 && wa[i].u.txn.version >= app_version) {
                        *skipped = true;
                        rc = 0;
                        goto cleanup;
                    }
            }
            rc = tn_delta_check_conflict(info, actions, nactions, wa, nw, w);
            if (rc) {
                tn_error_prefix(rc, "table '%s'", t->path);
                goto cleanup;
            }
        }
        v = latest + 1;
        if (attempt >= max_attempts) {
            rc = tn_error_set(TN_ECONFLICT, "table '%s': gave up committing after %d attempts (concurrent writers)",
                              t->path, attempt);
            break;
        }
        if (attempt > 2) backoff(attempt);
    }
cleanup:
    tn_arena_destroy(arena);
    if (rc == 0 && *version >= 0) {
        /* checkpoints are an optimisation: a failure must not fail the committed write */
        tn_error_state saved;
        tn_error_save(&saved);
        if (tn_delta_maybe_checkpoint(t->fs, t->path, *version) != 0) tn_error_clear();
        tn_error_restore(&saved);
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Stats JSON.
 */
static int json_str(tn_buf *out, const char *s, size_t n) {
    int rc = tn_buf_append_byte(out, '"');
    for (size_t i = 0; i < n && !rc; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') rc = tn_buf_printf(out, "\\%c", c);
        else if (c < 0x20) rc = tn_buf_printf(out, "\\u%04x", c);
        else rc = tn_buf_append_byte(out, c);
    }
    if (!rc) rc = tn_buf_append_byte(out, '"');
    return rc;
}

/* Length of valid UTF-8 prefix holding at most `chars` characters; false if invalid UTF-8. */
static bool utf8_prefix(const char *s, size_t n, size_t chars, size_t *cut, bool *truncated) {
    size_t i = 0, c = 0;
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > n) return false;
        for (size_t k = 1; k < len; k++)
            if (((unsigned char)s[i + k] & 0xc0) != 0x80) return false;
        if (c == chars) {
            *cut = i;
            *truncated = true;
            /* refuse to cut before a char >= U+10FFFF-ish (tie-breaker would not bound it) */
            if (b >= 0xf4) return false;
            return true;
        }
        i += len;
        c++;
    }
    *cut = n;
    *truncated = false;
    return true;
}

static void ts_text(char *buf, size_t cap, int64_t us, bool ceil_ms, bool zulu) {
    int64_t ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
    if (ceil_ms && ms * 1000 != us) ms++;
    int64_t days = ms >= 0 ? ms / 86400000 : -((-ms + 86400000 - 1) / 86400000);
    int64_t rem = ms - days * 86400000;
    int64_t y;
    unsigned m, d;
    tn_civil_from_days(days, &y, &m, &d);
    snprintf(buf, cap, "%04lld-%02u-%02uT%02d:%02d:%02d.%03d%s", (long long)y, m, d, (int)(rem / 3600000),
             (int)(rem / 60000 % 60), (int)(rem / 1000 % 60), (int)(rem % 1000), zulu ? "Z" : "");
}

/* Appends the JSON of a stat value; returns 1 when the value is unusable (nothing appended). */
static int stat_json(tn_buf *out, const tn_value *v, bool is_max) {
    char tmp[TN_FORMAT_BUF_SIZE];
    switch (v->type.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
        return tn_buf_printf(out, "%lld", (long long)v->u.i);
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE:
        if (!isfinite(v->u.d)) return 1;
        if (v->type.id == TN_TYPE_FLOAT) tn_format_float(tmp, sizeof tmp, (float)v->u.d);
        else tn_format_double(tmp, sizeof tmp, v->u.d);
        return tn_buf_append(out, tmp, strlen(tmp));
    case TN_TYPE_DECIMAL:
        tn_format_decimal(tmp, sizeof tmp, tn_type_is_decimal128(v->type) ? v->u.i128 : (tn_int128)v->u.i,
                          v->type.scale);
        return tn_buf_append(out, tmp, strlen(tmp));
    case TN_TYPE_DATE:
        tn_format_date(tmp, sizeof tmp, (int32_t)v->u.i);
        if (tmp[0] == '-' || strchr(tmp, '(')) return 1;
        return json_str(out, tmp, strlen(tmp));
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        if (v->u.i < -62135596800000000LL || v->u.i > 253402300799000000LL) return 1;
        ts_text(tmp, sizeof tmp, v->u.i, is_max, v->type.id == TN_TYPE_TIMESTAMP_TZ);
        return json_str(out, tmp, strlen(tmp));
    case TN_TYPE_VARCHAR: {
        size_t cut;
        bool truncated;
        if (!utf8_prefix(v->u.s.ptr, v->u.s.len, 32, &cut, &truncated)) return 1;
        if (!truncated) return json_str(out, v->u.s.ptr, v->u.s.len);
        if (!is_max) return json_str(out, v->u.s.ptr, cut);
        tn_buf b = TN_BUF_INIT;
        int rc = tn_buf_append(&b, v->u.s.ptr, cut);
        if (!rc) rc = tn_buf_append(&b, "\xf4\x8f\xbf\xbf", 4);   /* U+10FFFF */
        if (!rc) rc = json_str(out, (const char *)b.data, b.len);
        tn_buf_free(&b);
        return rc;
    }
    default: return 1;
    }
}

static int build_stats(tn_buf *out, const tn_parquet_write_result *r, const tn_delta_column *const *cols,
                       uint32_t ncols) {
    int rc = tn_buf_printf(out, "{\"numRecords\":%lld", (long long)r->num_rows);
    for (int pass = 0; pass < 2 && !rc; pass++) {
        rc = tn_buf_printf(out, pass == 0 ? ",\"minValues\":{" : ",\"maxValues\":{");
        bool first = true;
        for (uint32_t i = 0; i < ncols && i < r->ncolumns && !rc; i++) {
            const tn_parquet_column_result *c = &r->columns[i];
            if (!c->has_min_max) continue;
            tn_value v = pass == 0 ? c->min : c->max;
            v.type = cols[i]->type;
            size_t mark = out->len;
            if (!first) rc = tn_buf_append_byte(out, ',');
            if (!rc) rc = json_str(out, cols[i]->physical_name, strlen(cols[i]->physical_name));
            if (!rc) rc = tn_buf_append_byte(out, ':');
            if (!rc) {
                int s = stat_json(out, &v, pass == 1);
                if (s == 1) { out->len = mark; continue; }
                rc = s;
            }
            first = false;
        }
        if (!rc) rc = tn_buf_append_byte(out, '}');
    }
    if (!rc) rc = tn_buf_printf(out, ",\"nullCount\":{");
    for (uint32_t i = 0; i < ncols && i < r->ncolumns && !rc; i++) {
        if (i) rc = tn_buf_append_byte(out, ',');
        if (!rc) rc = json_str(out, cols[i]->physical_name, strlen(cols[i]->physical_name));
        if (!rc) rc = tn_buf_printf(out, ":%lld", (long long)r->columns[i].null_count);
    }
    if (!rc) rc = tn_buf_printf(out, "}}");
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The writer.
 */
#define TB_ROW_GROUP_ROWS 122880
typedef struct part_writer {
    char *dir;                       /* escaped "a=1/b=x" ("" unpartitioned) */
    char *key;                       /* canonical typed key (for dynamic overwrite) */
    tn_delta_kv *pvals;              /* physical name -> text (NULL = null) */
    tn_parquet_writer *pw;
    char *rel_path;                  /* current file, relative */
    char *full_path;
    uint64_t est_bytes;
    uint64_t last_use;
} part_writer;

struct tn_table_writer {
    tn_table *t;
    tn_table_write_options opts;
    bool skip;
    int sticky;                      /* first error: the writer is unusable afterwards */
    uint32_t ncols;                  /* table columns */
    uint32_t *data_cols;             /* logical indexes of stored columns */
    uint32_t ndata;
    const tn_delta_column **data_col_ptrs;
    uint32_t *part_cols;
    uint32_t npart;
    tn_parquet_column_spec *specs;
    tn_value *spec_values;           /* static partition spec per partition column (or is_null + absent) */
    bool *spec_given;
    part_writer **open;
    uint32_t nopen;
    uint64_t use_clock;
    uint64_t target;
    double ratio;                    /* file bytes / estimated bytes, learnt from closed files */
    uint64_t file_counter;
    tn_delta_action *adds;
    uint32_t nadds, cap_adds;
    char **written;                  /* full paths of every file created (cleanup) */
    uint32_t nwritten, cap_written;
    char **part_keys;                /* canonical keys of partitions written */
    uint32_t npart_keys, cap_part_keys;
    uint64_t rows_written, bytes_added;
    tn_chunk stage;                  /* gathered rows of one partition (data columns) */
    tn_arena *arena;                 /* adds, paths */
    tn_arena *scratch;               /* per chunk */
    /* partition routing: distinct partition-value tuples seen so far (typed bytes -> dir) */
    struct pentry *pents;
    uint32_t npents, cap_pents;
    uint32_t *pslots;                /* open addressing: entry index + 1, 0 = empty */
    uint32_t nslots;
    uint64_t route_stamp;            /* chunks routed */
    tn_arena *parena;                /* entries' tuples and texts */
};

static const char *codec_ext(tn_parquet_codec c) {
    switch (c) {
    case TN_CODEC_UNCOMPRESSED: return "";
    case TN_CODEC_SNAPPY: return ".snappy";
    case TN_CODEC_GZIP: return ".gz";
    case TN_CODEC_LZ4_RAW: return ".lz4raw";
    case TN_CODEC_ZSTD: return ".zstd";
    default: return "";
    }
}

static uint64_t parse_size(const char *s) {
    if (!s) return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0) return 0;
    while (*end == ' ') end++;
    double mul = 1;
    if (tn_str_iequal_n(end, 1, "k")) mul = 1024;
    else if (tn_str_iequal_n(end, 1, "m")) mul = 1024.0 * 1024;
    else if (tn_str_iequal_n(end, 1, "g")) mul = 1024.0 * 1024 * 1024;
    return (uint64_t)(v * mul);
}

static int push_written(tn_table_writer *w, const char *full) {
    if (w->nwritten == w->cap_written) {
        uint32_t cap = w->cap_written ? w->cap_written * 2 : 16;
        char **p = tn_realloc(w->written, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        w->written = p;
        w->cap_written = cap;
    }
    w->written[w->nwritten] = tn_strdup(full);
    if (!w->written[w->nwritten]) return TN_ENOMEM;
    w->nwritten++;
    return 0;
}

static int push_part_key(tn_table_writer *w, const char *key) {
    for (uint32_t i = 0; i < w->npart_keys; i++)
        if (strcmp(w->part_keys[i], key) == 0) return 0;
    if (w->npart_keys == w->cap_part_keys) {
        uint32_t cap = w->cap_part_keys ? w->cap_part_keys * 2 : 16;
        char **p = tn_realloc(w->part_keys, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        w->part_keys = p;
        w->cap_part_keys = cap;
    }
    w->part_keys[w->npart_keys++] = tn_arena_strdup(w->arena, key);
    return w->part_keys[w->npart_keys - 1] ? 0 : TN_ENOMEM;
}

static int push_add(tn_table_writer *w, tn_delta_action *a) {
    if (w->nadds == w->cap_adds) {
        uint32_t cap = w->cap_adds ? w->cap_adds * 2 : 16;
        tn_delta_action *p = tn_realloc(w->adds, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        w->adds = p;
        w->cap_adds = cap;
    }
    w->adds[w->nadds++] = *a;
    return 0;
}

static void free_part(part_writer *p) {
    if (!p) return;
    if (p->pw) tn_parquet_writer_abort(p->pw);
    tn_free(p->dir);
    tn_free(p->key);
    tn_free(p->pvals);
    tn_free(p->rel_path);
    tn_free(p->full_path);
    tn_free(p);
}

/* Finishes the current file of p (if any) and records its add action. */
static int finish_file(tn_table_writer *w, part_writer *p) {
    int rc = 0;
    tn_parquet_write_result res;
    tn_buf stats = TN_BUF_INIT, enc = TN_BUF_INIT;
    memset(&res, 0, sizeof res);
    if (!p->pw) return 0;
    tn_parquet_writer *pw = p->pw;
    p->pw = NULL;
    rc = tn_parquet_writer_close(pw, &res);
    if (rc) {
        tn_error_prefix(rc, "table '%s'", w->t->path);
        goto cleanup;
    }
    if (p->est_bytes > 0 && res.file_bytes > 0) {
        double r = (double)res.file_bytes / (double)p->est_bytes;
        w->ratio = w->ratio <= 0 ? r : (w->ratio + r) / 2;
    }
    rc = build_stats(&stats, &res, w->data_col_ptrs, w->ndata);
    if (rc) goto cleanup;
    rc = tn_buf_append_byte(&stats, 0);
    if (!rc) rc = tn_delta_uri_encode(&enc, p->rel_path);
    if (!rc) rc = tn_buf_append_byte(&enc, 0);
    if (rc) goto cleanup;
    tn_delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = TN_DELTA_ADD;
    tn_delta_file *f = &a.u.file;
    f->path = tn_arena_strdup(w->arena, (const char *)enc.data);
    f->path_decoded = tn_arena_strdup(w->arena, p->rel_path);
    f->has_partition_values = true;
    f->npartition_values = w->npart;
    if (w->npart) {
        f->partition_values = tn_arena_alloc(w->arena, sizeof(tn_delta_kv) * w->npart);
        if (!f->partition_values) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < w->npart; i++) {
            f->partition_values[i].key = tn_arena_strdup(w->arena, p->pvals[i].key);
            f->partition_values[i].value = p->pvals[i].value ? tn_arena_strdup(w->arena, p->pvals[i].value) : NULL;
        }
    }
    f->has_size = true;
    f->size = (int64_t)res.file_bytes;
    f->modification_time = tb_now_ms();
    f->data_change = true;
    f->stats = tn_arena_strdup(w->arena, (const char *)stats.data);
    if (!f->path || !f->path_decoded || !f->stats) { rc = TN_ENOMEM; goto cleanup; }
    if (w->opts.ntags) {
        f->tags = tn_arena_alloc(w->arena, sizeof(tn_delta_kv) * w->opts.ntags);
        if (!f->tags) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < w->opts.ntags; i++) {
            f->tags[i].key = tn_arena_strdup(w->arena, w->opts.tags[i].key);
            f->tags[i].value = tn_arena_strdup(w->arena, w->opts.tags[i].value ? w->opts.tags[i].value : "");
            if (!f->tags[i].key || !f->tags[i].value) { rc = TN_ENOMEM; goto cleanup; }
        }
        f->ntags = w->opts.ntags;
    }
    rc = push_add(w, &a);
    w->rows_written += (uint64_t)res.num_rows;
    w->bytes_added += res.file_bytes;
cleanup:
    tn_parquet_write_result_free(&res);
    tn_buf_free(&stats);
    tn_buf_free(&enc);
    return rc;
}

static int open_file(tn_table_writer *w, part_writer *p) {
    int rc = 0;
    char uuid[37];
    tb_uuid(uuid);
    tn_buf rel = TN_BUF_INIT;
    if (p->dir[0]) rc = tn_buf_printf(&rel, "%s/", p->dir);
    if (!rc) rc = tn_buf_printf(&rel, "part-%05llu-%s-c000%s.parquet", (unsigned long long)(w->file_counter++ % 100000),
                                uuid, codec_ext(w->opts.codec));
    if (!rc) rc = tn_buf_append_byte(&rel, 0);
    if (rc) goto cleanup;
    tn_free(p->rel_path);
    tn_free(p->full_path);
    p->rel_path = tn_strdup((const char *)rel.data);
    size_t len = strlen(w->t->path) + rel.len + 2;
    p->full_path = tn_malloc(len);
    if (!p->rel_path || !p->full_path) { rc = TN_ENOMEM; goto cleanup; }
    snprintf(p->full_path, len, "%s/%s", w->t->path, p->rel_path);
    if (p->dir[0]) {
        char *dir = tn_strdup(p->full_path);
        if (!dir) { rc = TN_ENOMEM; goto cleanup; }
        *strrchr(dir, '/') = 0;
        rc = w->t->fs->mkdir_p(w->t->fs, dir);
        tn_free(dir);
        if (rc) goto cleanup;
    }
    tn_parquet_writer_options po = TN_PARQUET_WRITER_OPTIONS_INIT;
    po.codec = w->opts.codec;
    /* row groups of 122,880 rows (DuckDB's size) unless asked otherwise: units of parallelism
     * for scans of the table, small enough to skip by statistics */
    po.row_group_rows = w->opts.row_group_rows ? w->opts.row_group_rows : TB_ROW_GROUP_ROWS;
    uint64_t rgb = w->npart ? ((uint64_t)256 << 20) / (w->opts.max_open_files ? w->opts.max_open_files : 64)
                            : ((uint64_t)128 << 20);
    if (rgb < ((uint64_t)4 << 20)) rgb = (uint64_t)4 << 20;
    if (w->target && rgb > w->target) rgb = w->target;
    po.row_group_bytes = rgb;
    tn_parquet_kv_pair kv[1] = {{"writer.engine", TN_ENGINE_INFO}};
    po.kv = kv;
    po.nkv = 1;
    rc = push_written(w, p->full_path);
    if (rc) goto cleanup;
    rc = tn_parquet_writer_open(&p->pw, w->t->fs, p->full_path, w->specs, w->ndata, &po);
    if (rc) tn_error_prefix(rc, "table '%s'", w->t->path);
    p->est_bytes = 0;
cleanup:
    tn_buf_free(&rel);
    return rc;
}

int tn_table_writer_open(tn_table_writer **out, tn_table *t, const tn_table_write_options *opts) {
    int rc = 0;
    tn_table_writer *w = NULL;
    const tn_delta_metadata *md = &t->snap->metadata;
    tn_table_write_options defaults = TN_TABLE_WRITE_OPTIONS_INIT;
    *out = NULL;
    if (!opts) opts = &defaults;
    rc = tn_delta_protocol_check_write(&t->snap->protocol);
    if (rc) return tn_error_prefix(rc, "table '%s'", t->path);
    const char *append_only = tn_delta_config_get(md, "delta.appendOnly");
    if (append_only && tn_str_iequal(append_only, "true") && opts->mode != TN_WRITE_APPEND)
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): overwrite refused", t->path);
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (md->columns[i].nested)
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has a nested type: writing is not supported",
                                t->path, md->columns[i].name);
    w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->t = t;
    w->opts = *opts;
    w->arena = tn_arena_create(0);
    w->scratch = tn_arena_create(0);
    if (!w->arena || !w->scratch) { rc = TN_ENOMEM; goto cleanup; }
    if (!w->opts.max_open_files) w->opts.max_open_files = 64;
    const char *codec = tn_delta_config_get(md, "delta.parquet.compression.codec");
    if (codec && opts->codec == TN_CODEC_ZSTD) {
        tn_parquet_codec c;
        if (tn_parquet_codec_parse(codec, &c) == 0) w->opts.codec = c;
        else tn_error_clear();
    }
    w->target = opts->target_file_bytes;
    if (!w->target) w->target = parse_size(tn_delta_config_get(md, "target_file_size"));
    if (!w->target) w->target = parse_size(tn_delta_config_get(md, "delta.targetFileSize"));
    if (!w->target) w->target = TN_TABLE_DEFAULT_TARGET_FILE_BYTES;
    w->ncols = md->ncolumns;
    w->data_cols = tn_arena_alloc(w->arena, sizeof(uint32_t) * (md->ncolumns + 1));
    w->data_col_ptrs = tn_arena_alloc(w->arena, sizeof(void *) * (md->ncolumns + 1));
    w->part_cols = tn_arena_alloc(w->arena, sizeof(uint32_t) * (md->ncolumns + 1));
    w->specs = tn_arena_calloc(w->arena, sizeof(tn_parquet_column_spec) * (md->ncolumns + 1));
    w->spec_values = tn_arena_calloc(w->arena, sizeof(tn_value) * (md->ncolumns + 1));
    w->spec_given = tn_arena_calloc(w->arena, sizeof(bool) * (md->ncolumns + 1));
    if (!w->data_cols || !w->part_cols || !w->specs || !w->spec_values || !w->spec_given || !w->data_col_ptrs) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    tn_type types[512];
    if (md->ncolumns > 512) { rc = tn_error_set(TN_ELIMIT, "too many columns"); goto cleanup; }
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        const tn_delta_column *c = &md->columns[i];
        if (c->is_partition) {
            w->part_cols[w->npart++] = i;
            continue;
        }
        tn_parquet_column_spec *s = &w->specs[w->ndata];
        s->name = c->physical_name;
        s->type = c->type;
        s->nullable = c->nullable;
        s->field_id = md->column_mapping != TN_DELTA_CM_NONE ? c->field_id : -1;
        types[w->ndata] = c->type;
        w->data_col_ptrs[w->ndata] = c;
        w->data_cols[w->ndata++] = i;
    }
    rc = tn_chunk_init(&w->stage, w->ndata, types, TN_VECTOR_SIZE);
    if (rc) goto cleanup;
    /* static partition spec */
    for (uint32_t i = 0; i < opts->npartition_spec; i++) {
        const tn_delta_kv *kv = &opts->partition_spec[i];
        int ci = tn_table_column_index(t, kv->key);
        if (ci < 0 || !md->columns[ci].is_partition) {
            rc = tn_error_set(TN_EINVAL, "table '%s': '%s' is not a partition column", t->path, kv->key);
            goto cleanup;
        }
        rc = tn_table_partition_value_parse(&w->spec_values[ci], md->columns[ci].type,
                                            kv->value ? tn_arena_strdup(w->arena, kv->value) : NULL);
        if (rc) {
            tn_error_prefix(rc, "table '%s': PARTITION (%s = ...)", t->path, kv->key);
            goto cleanup;
        }
        w->spec_given[ci] = true;
    }
    if (opts->npartition_spec && opts->mode != TN_WRITE_OVERWRITE) {
        rc = tn_error_set(TN_EINVAL, "table '%s': a static partition spec needs INSERT OVERWRITE", t->path);
        goto cleanup;
    }
    if (opts->app_id && tn_delta_snapshot_txn_version(t->snap, opts->app_id) >= opts->app_version)
        w->skip = true;
    *out = w;
    w = NULL;
cleanup:
    if (w) tn_table_writer_abort(w);
    return rc;
}

uint64_t tn_table_writer_num_files(const tn_table_writer *w) { return w->nwritten; }

/* Estimated bytes of rows sel of the data columns. */
static uint64_t estimate(const tn_chunk *c, uint32_t n) {
    uint64_t b = 0;
    for (uint32_t i = 0; i < c->ncols; i++) {
        const tn_vector *v = &c->cols[i];
        if (tn_type_is_string(v->type)) {
            for (uint32_t r = 0; r < n; r++) b += 4 + ((const tn_str *)v->data)[r].len;
        } else {
            b += (uint64_t)tn_type_width(v->type) * n;
        }
    }
    return b;
}

static int find_or_open_part(tn_table_writer *w, const char *dir, const char *key, const tn_delta_kv *pvals,
                             part_writer **out) {
    for (uint32_t i = 0; i < w->nopen; i++)
        if (strcmp(w->open[i]->dir, dir) == 0) {
            *out = w->open[i];
            w->open[i]->last_use = ++w->use_clock;
            return 0;
        }
    int rc = tn_interrupt_check(w->opts.interrupt);    /* files close and open within a chunk */
    if (rc) return rc;
    if (w->nopen >= w->opts.max_open_files) {
        /* close the least recently used partition's file */
        uint32_t lru = 0;
        for (uint32_t i = 1; i < w->nopen; i++)
            if (w->open[i]->last_use < w->open[lru]->last_use) lru = i;
        rc = finish_file(w, w->open[lru]);
        free_part(w->open[lru]);
        w->open[lru] = w->open[--w->nopen];
        if (rc) return rc;
    }
    if (!w->open) {
        w->open = tn_calloc(w->opts.max_open_files, sizeof *w->open);
        if (!w->open) return TN_ENOMEM;
    }
    part_writer *p = tn_calloc(1, sizeof *p);
    if (!p) return TN_ENOMEM;
    p->dir = tn_strdup(dir);
    p->key = tn_strdup(key);
    p->pvals = tn_calloc(w->npart ? w->npart : 1, sizeof *p->pvals);
    if (!p->dir || !p->key || !p->pvals) {
        free_part(p);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < w->npart; i++) {
        p->pvals[i].key = pvals[i].key;   /* physical names live in the snapshot */
        p->pvals[i].value = pvals[i].value ? tn_arena_strdup(w->arena, pvals[i].value) : NULL;
    }
    p->last_use = ++w->use_clock;
    w->open[w->nopen++] = p;
    rc = push_part_key(w, key);
    *out = p;
    return rc;
}

/* Writes the data columns of rows sel[0..n) (NULL = all rows) of chunk into p. */
static int write_rows(tn_table_writer *w, part_writer *p, const tn_chunk *chunk, const uint32_t *sel, uint32_t n) {
    int rc = 0;
    if (!p->pw) {
        rc = open_file(w, p);
        if (rc) return rc;
    }
    const tn_chunk *src;
    tn_vector view[512];
    tn_chunk vc;
    if (sel == NULL) {
        for (uint32_t i = 0; i < w->ndata; i++) view[i] = chunk->cols[w->data_cols[i]];
        vc.ncols = w->ndata;
        vc.count = n;
        vc.cols = view;
        src = &vc;
    } else {
        tn_chunk_reset(&w->stage);
        for (uint32_t i = 0; i < w->ndata; i++) {
            tn_vector *d = &w->stage.cols[i];
            d->count = 0;
            rc = tb_vector_append(d, &chunk->cols[w->data_cols[i]], sel, n);
            if (rc) return rc;
        }
        w->stage.count = n;
        src = &w->stage;
    }
    if (w->ndata == 0) return tn_error_set(TN_EINVAL, "table '%s': no data column", w->t->path);
    rc = tn_parquet_writer_write(p->pw, src);
    if (rc) return tn_error_prefix(rc, "table '%s'", w->t->path);
    p->est_bytes += estimate(src, n);
    double ratio = w->ratio > 0 ? w->ratio : 0.5;
    if ((double)p->est_bytes * ratio >= (double)w->target) rc = finish_file(w, p);
    return rc;
}

static int check_chunk(tn_table_writer *w, const tn_chunk *chunk) {
    const tn_delta_metadata *md = &w->t->snap->metadata;
    if (chunk->ncols != md->ncolumns)
        return tn_error_set(TN_EINVAL, "table '%s': %u columns given, the table has %u", w->t->path,
                            chunk->ncols, md->ncolumns);
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        tn_type a = chunk->cols[i].type, b = md->columns[i].type;
        if (!tn_type_equal(a, b) && !(tn_type_is_string(a) && tn_type_is_string(b))) {
            char x[32], y[32];
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' is %s, a value of type %s was given",
                                w->t->path, md->columns[i].name, tn_type_format(b, x, sizeof x),
                                tn_type_format(a, y, sizeof y));
        }
        if (chunk->cols[i].count < chunk->count && chunk->cols[i].count != 0)
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' has %u rows, the chunk %u", w->t->path,
                                md->columns[i].name, chunk->cols[i].count, chunk->count);
    }
    return 0;
}

/* Partition dir and canonical key of one row. */
static int row_partition(tn_table_writer *w, const tn_chunk *chunk, uint32_t row, tn_buf *dir, tn_buf *key,
                         tn_delta_kv *pvals, tn_buf *texts) {
    const tn_delta_metadata *md = &w->t->snap->metadata;
    int rc = 0;
    size_t offs[512];
    bool nulls[512];
    tn_buf_clear(dir);
    tn_buf_clear(key);
    tn_buf_clear(texts);
    for (uint32_t k = 0; k < w->npart && !rc; k++) {
        uint32_t ci = w->part_cols[k];
        const tn_delta_column *c = &md->columns[ci];
        tn_value v;
        tn_vector_get_value(&chunk->cols[ci], row, &v);
        v.type = c->type;
        if (v.is_null && !c->nullable)
            return tn_error_set(TN_ECONSTRAINT, "table '%s': NULL in NOT NULL column '%s'", w->t->path, c->name);
        if (w->spec_given[ci]) {
            const tn_value *sv = &w->spec_values[ci];
            int cmp = 0;
            bool same = (v.is_null && sv->is_null) ||
                        (!v.is_null && !sv->is_null && tb_value_cmp(&v, sv, &cmp) && cmp == 0);
            if (!same)
                return tn_error_set(TN_ECONSTRAINT, "table '%s': row does not belong to the partition being overwritten (%s)",
                                    w->t->path, c->name);
        }
        offs[k] = texts->len;
        bool is_null;
        rc = tb_partition_text(texts, &v, &is_null);
        if (!rc) rc = tn_buf_append_byte(texts, 0);
        nulls[k] = is_null;
        if (rc) return rc;
        if (k) rc = tn_buf_append_byte(dir, '/');
        if (!rc) rc = tb_hive_escape(dir, c->physical_name, strlen(c->physical_name));
        if (!rc) rc = tn_buf_append_byte(dir, '=');
        if (!rc) {
            if (is_null) rc = tn_buf_printf(dir, "__HIVE_DEFAULT_PARTITION__");
            else rc = tb_hive_escape(dir, (const char *)texts->data + offs[k], strlen((const char *)texts->data + offs[k]));
        }
        if (!rc) rc = is_null ? tn_buf_printf(key, "\x01N\x02") : tn_buf_printf(key, "\x01V%s\x02", (const char *)texts->data + offs[k]);
    }
    if (!rc) rc = tn_buf_append_byte(dir, 0);
    if (!rc) rc = tn_buf_append_byte(key, 0);
    for (uint32_t k = 0; k < w->npart && !rc; k++) {
        pvals[k].key = md->columns[w->part_cols[k]].physical_name;
        pvals[k].value = nulls[k] ? NULL : (const char *)texts->data + offs[k];
    }
    return rc;
}

/* A distinct partition-value tuple: its typed bytes (row_tuple) and what the writer needs. */
struct pentry {
    uint64_t hash;
    const uint8_t *tuple;
    uint32_t tuple_len;
    const char *dir;                 /* escaped "a=1/b=x" */
    const char *key;                 /* canonical typed key (dynamic overwrite) */
    tn_delta_kv *pvals;              /* physical name -> text (NULL = null) */
    uint64_t stamp;                  /* chunk in which `group` is valid */
    uint32_t group;                  /* its group in that chunk */
};

/* Routing memory is bounded: past this many distinct tuples the table starts afresh (at the
 * start of a chunk, so entry indexes stay valid while a chunk is routed). */
#define PENTRY_MAX 65536

/* The typed bytes of row's partition values: per column 0 (NULL) or 1 + the value (fixed-width
 * bytes, or a u32 length + the bytes of a string). Equal tuples give equal directories. */
static int row_tuple(tn_table_writer *w, const tn_chunk *chunk, uint32_t row, tn_buf *out) {
    tn_buf_clear(out);
    for (uint32_t k = 0; k < w->npart; k++) {
        const tn_vector *v = &chunk->cols[w->part_cols[k]];
        int rc;
        if (!tn_vector_is_valid(v, row)) {
            rc = tn_buf_append_byte(out, 0);
        } else if (tn_type_is_string(v->type)) {
            const tn_str *sv = (const tn_str *)v->data + row;
            uint8_t hdr[5] = {1, (uint8_t)sv->len, (uint8_t)(sv->len >> 8), (uint8_t)(sv->len >> 16),
                              (uint8_t)(sv->len >> 24)};
            rc = tn_buf_append(out, hdr, 5);
            if (!rc) rc = tn_buf_append(out, sv->ptr, sv->len);
        } else {
            size_t wd = tn_type_width(v->type);
            rc = tn_buf_append_byte(out, 1);
            if (!rc) rc = tn_buf_append(out, (const uint8_t *)v->data + (size_t)row * wd, wd);
        }
        if (rc) return rc;
    }
    return 0;
}

static int pslots_rebuild(tn_table_writer *w, uint32_t nslots) {
    uint32_t *slots = tn_calloc(nslots, sizeof *slots);
    if (!slots) return TN_ENOMEM;
    for (uint32_t i = 0; i < w->npents; i++) {
        uint32_t h = (uint32_t)w->pents[i].hash & (nslots - 1);
        while (slots[h]) h = (h + 1) & (nslots - 1);
        slots[h] = i + 1;
    }
    tn_free(w->pslots);
    w->pslots = slots;
    w->nslots = nslots;
    return 0;
}

/* The entry of row's tuple (tup, from row_tuple): found, or built from the row (NOT NULL and
 * static partition checks, partition texts, escaped directory) and added. */
static int pentry_get(tn_table_writer *w, const tn_chunk *chunk, uint32_t row, const tn_buf *tup, uint32_t *out) {
    int rc = 0;
    uint64_t hash = tn_hash_bytes(tup->data, tup->len, 0x7461726e);
    if (w->nslots) {
        for (uint32_t h = (uint32_t)hash & (w->nslots - 1);; h = (h + 1) & (w->nslots - 1)) {
            uint32_t e = w->pslots[h];
            if (!e) break;
            const struct pentry *pe = &w->pents[e - 1];
            if (pe->hash == hash && pe->tuple_len == tup->len && memcmp(pe->tuple, tup->data, tup->len) == 0) {
                *out = e - 1;
                return 0;
            }
        }
    }
    if (!w->parena && !(w->parena = tn_arena_create(0))) return TN_ENOMEM;
    if (w->npents == w->cap_pents) {
        uint32_t cap = w->cap_pents ? w->cap_pents * 2 : 16;
        struct pentry *p = tn_realloc(w->pents, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        w->pents = p;
        w->cap_pents = cap;
    }
    if ((w->npents + 1) * 2 > w->nslots && (rc = pslots_rebuild(w, w->nslots ? w->nslots * 2 : 64))) return rc;
    tn_buf dir = TN_BUF_INIT, key = TN_BUF_INIT, texts = TN_BUF_INIT;
    tn_delta_kv pvals[512];
    rc = row_partition(w, chunk, row, &dir, &key, pvals, &texts);
    if (rc) goto cleanup;
    struct pentry *pe = &w->pents[w->npents];
    pe->hash = hash;
    pe->tuple_len = (uint32_t)tup->len;
    uint8_t *t = tn_arena_alloc(w->parena, tup->len ? tup->len : 1);
    pe->dir = tn_arena_strdup(w->parena, (const char *)dir.data);
    pe->key = tn_arena_strdup(w->parena, (const char *)key.data);
    pe->pvals = tn_arena_calloc(w->parena, sizeof *pe->pvals * (w->npart ? w->npart : 1));
    if (!t || !pe->dir || !pe->key || !pe->pvals) { rc = TN_ENOMEM; goto cleanup; }
    if (tup->len) memcpy(t, tup->data, tup->len);
    pe->tuple = t;
    pe->stamp = 0;
    for (uint32_t k = 0; k < w->npart; k++) {
        pe->pvals[k].key = pvals[k].key;
        pe->pvals[k].value = pvals[k].value ? tn_arena_strdup(w->parena, pvals[k].value) : NULL;
        if (pvals[k].value && !pe->pvals[k].value) { rc = TN_ENOMEM; goto cleanup; }
    }
    uint32_t h = (uint32_t)hash & (w->nslots - 1);
    while (w->pslots[h]) h = (h + 1) & (w->nslots - 1);
    w->pslots[h] = w->npents + 1;
    *out = w->npents++;
cleanup:
    tn_buf_free(&dir);
    tn_buf_free(&key);
    tn_buf_free(&texts);
    return rc;
}

int tn_table_writer_write(tn_table_writer *w, const tn_chunk *chunk) {
    int rc = 0;
    if (w->sticky) return tn_error_set(w->sticky, "table '%s': the writer failed earlier", w->t->path);
    if (w->skip || chunk->count == 0) return 0;
    rc = tn_interrupt_check(w->opts.interrupt);
    if (!rc) rc = check_chunk(w, chunk);
    if (rc) return rc;
    if (w->npart == 0) {
        part_writer *p;
        tn_delta_kv none[1] = {{NULL, NULL}};
        rc = find_or_open_part(w, "", "", none, &p);
        if (!rc) rc = write_rows(w, p, chunk, NULL, chunk->count);
        goto cleanup;
    }
    {
        /* route rows by their partition-value tuple (typed bytes); the directory name and the
         * partition texts are built once per distinct tuple (pentry_get) */
        uint32_t n = chunk->count;
        uint32_t *group = tn_malloc(sizeof(uint32_t) * n);
        uint32_t *sel = tn_malloc(sizeof(uint32_t) * n);
        uint32_t *gent = tn_malloc(sizeof(uint32_t) * n);     /* group -> entry */
        uint32_t *gcount = tn_calloc(n + 1, sizeof(uint32_t));
        tn_buf tup = TN_BUF_INIT, prev = TN_BUF_INIT;
        uint32_t ngroups = 0, prev_group = 0;
        uint64_t stamp = ++w->route_stamp;
        if (!group || !sel || !gent || !gcount) rc = TN_ENOMEM;
        if (w->npents >= PENTRY_MAX) {
            /* forget every entry (part writers are found by directory, not by entry) */
            w->npents = 0;
            memset(w->pslots, 0, sizeof *w->pslots * w->nslots);
            tn_arena_reset(w->parena);
        }
        for (uint32_t r = 0; r < n && !rc; r++) {
            rc = row_tuple(w, chunk, r, &tup);
            if (rc) break;
            /* rows usually repeat the previous row's partition */
            if (r > 0 && tup.len == prev.len && memcmp(tup.data, prev.data, tup.len) == 0) {
                group[r] = prev_group;
                gcount[prev_group]++;
                continue;
            }
            uint32_t e;
            rc = pentry_get(w, chunk, r, &tup, &e);
            if (rc) break;
            struct pentry *pe = &w->pents[e];
            if (pe->stamp != stamp) {
                pe->stamp = stamp;
                pe->group = ngroups;
                gent[ngroups++] = e;
            }
            uint32_t g = pe->group;
            group[r] = prev_group = g;
            gcount[g]++;
            tn_buf tmp = prev;
            prev = tup;
            tup = tmp;
        }
        if (!rc && ngroups > 1) {
            /* counting sort of the rows by group (stable: rows stay in order within a group) */
            uint32_t acc = 0;
            for (uint32_t g = 0; g < ngroups; g++) {
                uint32_t c = gcount[g];
                gcount[g] = acc;
                acc += c;
            }
            for (uint32_t r = 0; r < n; r++) sel[gcount[group[r]]++] = r;
            for (uint32_t g = ngroups; g-- > 1;) gcount[g] = gcount[g - 1];
            gcount[0] = 0;
        }
        for (uint32_t g = 0; g < ngroups && !rc; g++) {
            const struct pentry *pe = &w->pents[gent[g]];
            uint32_t first = ngroups == 1 ? 0 : gcount[g];
            uint32_t m = ngroups == 1 ? n : (g + 1 < ngroups ? gcount[g + 1] : n) - first;
            part_writer *p = NULL;
            rc = find_or_open_part(w, pe->dir, pe->key, pe->pvals, &p);
            if (!rc) rc = write_rows(w, p, chunk, m == n ? NULL : sel + first, m);
        }
        tn_free(group);
        tn_free(sel);
        tn_free(gent);
        tn_free(gcount);
        tn_buf_free(&tup);
        tn_buf_free(&prev);
    }
cleanup:
    if (rc) w->sticky = rc;
    return rc;
}

static void remove_written(tn_table_writer *w) {
    for (uint32_t i = 0; i < w->nwritten; i++) {
        tn_error_state saved;
        tn_error_save(&saved);
        (void)w->t->fs->unlink(w->t->fs, w->written[i]);   /* one already gone is fine */
        tn_error_restore(&saved);
    }
}

static void writer_free(tn_table_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->nopen; i++) free_part(w->open[i]);
    tn_free(w->open);
    for (uint32_t i = 0; i < w->nwritten; i++) tn_free(w->written[i]);
    tn_free(w->written);
    tn_free(w->adds);
    tn_free(w->part_keys);
    tn_chunk_free(&w->stage);
    tn_free(w->pents);
    tn_free(w->pslots);
    tn_arena_destroy(w->parena);
    tn_arena_destroy(w->arena);
    tn_arena_destroy(w->scratch);
    tn_free(w);
}

void tn_table_writer_abort(tn_table_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->nopen; i++)
        if (w->open[i]->pw) {
            tn_parquet_writer_abort(w->open[i]->pw);
            w->open[i]->pw = NULL;
        }
    remove_written(w);
    writer_free(w);
}

/* Closes every open file (adds recorded). */
static int writer_finish(tn_table_writer *w) {
    int rc = 0;
    for (uint32_t i = 0; i < w->nopen && !rc; i++) {
        rc = tn_interrupt_check(w->opts.interrupt);
        if (!rc) rc = finish_file(w, w->open[i]);
    }
    return rc;
}

int tn_table_writer_finish(tn_table_writer *w, const tn_delta_action **adds, uint32_t *nadds) {
    *adds = NULL;
    *nadds = 0;
    if (w->sticky) return tn_error_set(w->sticky, "table '%s': the writer failed earlier", w->t->path);
    int rc = writer_finish(w);
    if (rc) {
        w->sticky = rc;
        return rc;
    }
    *adds = w->adds;
    *nadds = w->nadds;
    return 0;
}

void tn_table_writer_release(tn_table_writer *w) { writer_free(w); }

/* Canonical typed key of a snapshot file's partition values (as the writer spells them). */
static int file_part_key(const tn_table *t, const tn_delta_file *f, tn_buf *key, const uint32_t *part_cols,
                         uint32_t npart) {
    const tn_delta_metadata *md = &t->snap->metadata;
    tn_buf text = TN_BUF_INIT;
    int rc = 0;
    tn_buf_clear(key);
    for (uint32_t k = 0; k < npart && !rc; k++) {
        const tn_delta_column *c = &md->columns[part_cols[k]];
        bool is_null = false;
        const char *s = tn_delta_partition_value(t->snap, f, c->name, &is_null);
        tn_value v;
        rc = tn_table_partition_value_parse(&v, c->type, is_null ? NULL : s);
        if (rc) break;
        tn_buf_clear(&text);
        bool n2;
        rc = tb_partition_text(&text, &v, &n2);
        if (!rc) rc = tn_buf_append_byte(&text, 0);
        if (!rc) rc = n2 ? tn_buf_printf(key, "\x01N\x02") : tn_buf_printf(key, "\x01V%s\x02", (const char *)text.data);
    }
    if (!rc) rc = tn_buf_append_byte(key, 0);
    tn_buf_free(&text);
    return rc;
}

int tb_make_remove(tn_delta_action *out, const tn_delta_file *f, int64_t now) {
    memset(out, 0, sizeof *out);
    out->kind = TN_DELTA_REMOVE;
    out->u.file = *f;
    tn_delta_file *r = &out->u.file;
    r->has_deletion_timestamp = true;
    r->deletion_timestamp = now;
    r->data_change = true;
    r->extended_file_metadata = true;
    r->has_partition_values = true;
    r->tags = NULL;
    r->ntags = 0;
    r->stats = NULL;
    return 0;
}

/* Version 0 of a staged table: commitInfo, protocol, metaData, then the rest of actions[1..n).
 * Never retried: a table created meanwhile makes it fail. */
static int commit_create(tn_table *t, const tn_delta_action *actions, uint32_t n, tn_table_commit_result *res) {
    tn_delta_action *all = tn_malloc(sizeof *all * (n + 2));
    if (!all) return TN_ENOMEM;
    all[0] = actions[0];
    memset(&all[1], 0, sizeof all[1] * 2);
    all[1].kind = TN_DELTA_PROTOCOL;
    all[1].u.protocol = t->snap->protocol;
    all[2].kind = TN_DELTA_METADATA;
    all[2].u.metadata = t->snap->metadata;
    for (uint32_t i = 1; i < n; i++) all[i + 2] = actions[i];
    int rc = tn_delta_commit(t->fs, t->path, 0, all, n + 2);
    if (rc == TN_EEXISTS) rc = tn_error_set(TN_EEXISTS, "table '%s' already exists (created concurrently)", t->path);
    else if (rc) tn_error_prefix(rc, "table '%s': commit of version 0", t->path);
    tn_free(all);
    if (rc) return rc;
    res->version = 0;
    res->attempts = 1;
    return 0;
}

/* Assembles commitInfo + txn + removes + adds and commits. */
static int commit_actions(tn_table *t, tn_arena *arena, const char *operation, const tn_delta_kv *params,
                          uint32_t nparams, bool blind, const tn_delta_file *const *removes, uint32_t nremoves,
                          const tn_delta_action *adds, uint32_t nadds, const char *app_id, int64_t app_version,
                          const tn_delta_txn_info *info_in, int max_attempts, tn_table_commit_result *res) {
    int rc = 0;
    uint32_t n = 0, cap = 2 + nremoves + nadds;
    tn_delta_action *actions = tn_malloc(sizeof *actions * cap);
    const char **read_files = tn_malloc(sizeof(char *) * (nremoves + 1));
    if (!actions || !read_files) { rc = TN_ENOMEM; goto cleanup; }
    rc = tb_commit_info(&actions[n++], arena, operation, params, nparams, blind, t->snap->version);
    if (rc) goto cleanup;
    if (app_id) {
        memset(&actions[n], 0, sizeof actions[n]);
        actions[n].kind = TN_DELTA_TXN;
        actions[n].u.txn.app_id = app_id;
        actions[n].u.txn.version = app_version;
        actions[n].u.txn.has_last_updated = true;
        actions[n].u.txn.last_updated = tb_now_ms();
        n++;
    }
    int64_t now = tb_now_ms();
    for (uint32_t i = 0; i < nremoves; i++) {
        tb_make_remove(&actions[n++], removes[i], now);
        read_files[i] = removes[i]->path;
    }
    for (uint32_t i = 0; i < nadds; i++) actions[n++] = adds[i];
    if (t->snap->version < 0) {
        /* a staged table (tn_table_create_staged): version 0 creates it with these files */
        rc = commit_create(t, actions, n, res);
        goto cleanup;
    }
    tn_delta_txn_info info = *info_in;
    info.read_version = t->snap->version;
    info.read_files = read_files;
    info.nread_files = nremoves;
    const char *ids[1] = {app_id};
    if (app_id) {
        info.app_ids = ids;
        info.napp_ids = 1;
    }
    bool skipped = false;
    rc = tb_commit(t, &info, actions, n, max_attempts, app_id, app_version, &res->version, &skipped, &res->attempts);
    res->skipped = skipped;
cleanup:
    tn_free(actions);
    tn_free(read_files);
    return rc;
}

static char *part_by_json(const tn_table *t) {
    const tn_delta_metadata *md = &t->snap->metadata;
    json_t *a = json_array();
    for (uint32_t i = 0; i < md->npartition_columns && a; i++) json_array_append_new(a, json_string(md->partition_columns[i]));
    char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return s;
}

int tn_table_writer_commit(tn_table_writer *w, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    tn_table *t = w->t;
    const tn_delta_snapshot *snap = t->snap;
    const tn_delta_file **removes = NULL;
    uint32_t nremoves = 0;
    tn_buf key = TN_BUF_INIT;
    char *pby = NULL, *spec_json = NULL;
    tn_delta_partition_spec *pspecs = NULL;
    tn_delta_kv *pspec_kv = NULL;
    if (w->sticky) {
        rc = tn_error_set(w->sticky, "table '%s': the writer failed earlier; nothing committed", t->path);
        goto cleanup;
    }
    if (w->skip) {
        res.skipped = true;
        goto cleanup;
    }
    rc = writer_finish(w);
    if (rc) goto cleanup;
    removes = tn_malloc(sizeof *removes * (snap->nfiles + 1));
    if (!removes) { rc = TN_ENOMEM; goto cleanup; }
    tn_delta_txn_info info;
    memset(&info, 0, sizeof info);
    tn_delta_kv params[4];
    uint32_t nparams = 0;
    pby = part_by_json(t);
    if (!pby) { rc = TN_ENOMEM; goto cleanup; }
    const tn_table_write_options *o = &w->opts;
    bool dynamic = o->mode == TN_WRITE_OVERWRITE_DYNAMIC && w->npart > 0;
    if (o->mode == TN_WRITE_APPEND) {
        info.is_blind_append = true;
        params[nparams++] = (tn_delta_kv){"mode", "Append"};
        params[nparams++] = (tn_delta_kv){"partitionBy", pby};
    } else if (o->npartition_spec) {
        /* static partition overwrite: files whose values match the spec */
        json_t *sj = json_object();
        pspec_kv = tn_calloc(o->npartition_spec, sizeof *pspec_kv);
        pspecs = tn_calloc(1, sizeof *pspecs);
        if (!sj || !pspec_kv || !pspecs) { json_decref(sj); rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < o->npartition_spec; i++) {
            int ci = tn_table_column_index(t, o->partition_spec[i].key);
            json_object_set_new(sj, snap->metadata.columns[ci].name,
                                o->partition_spec[i].value ? json_string(o->partition_spec[i].value) : json_null());
            pspec_kv[i].key = snap->metadata.columns[ci].physical_name;
            pspec_kv[i].value = o->partition_spec[i].value;
        }
        spec_json = json_dumps(sj, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(sj);
        if (!spec_json) { rc = TN_ENOMEM; goto cleanup; }
        pspecs->values = pspec_kv;
        pspecs->nvalues = o->npartition_spec;
        info.read_partitions = pspecs;
        info.nread_partitions = 1;
        for (uint32_t fi = 0; fi < snap->nfiles; fi++) {
            const tn_delta_file *f = &snap->files[fi];
            bool match = true;
            for (uint32_t k = 0; k < w->npart && match; k++) {
                uint32_t ci = w->part_cols[k];
                if (!w->spec_given[ci]) continue;
                const tn_delta_column *c = &snap->metadata.columns[ci];
                bool is_null = false;
                const char *s = tn_delta_partition_value(snap, f, c->name, &is_null);
                tn_value v;
                if (tn_table_partition_value_parse(&v, c->type, is_null ? NULL : s) != 0) {
                    tn_error_clear();
                    match = false;
                    break;
                }
                const tn_value *sv = &w->spec_values[ci];
                int cmp = 0;
                match = (v.is_null && sv->is_null) || (!v.is_null && !sv->is_null && tb_value_cmp(&v, sv, &cmp) && cmp == 0);
            }
            if (match) removes[nremoves++] = f;
        }
        params[nparams++] = (tn_delta_kv){"mode", "Overwrite"};
        params[nparams++] = (tn_delta_kv){"partitionBy", pby};
        params[nparams++] = (tn_delta_kv){"partition", spec_json};
    } else if (dynamic) {
        pspecs = tn_calloc(w->npart_keys + 1, sizeof *pspecs);
        pspec_kv = tn_calloc((size_t)(w->npart_keys + 1) * w->npart, sizeof *pspec_kv);
        if (!pspecs || !pspec_kv) { rc = TN_ENOMEM; goto cleanup; }
        /* partitions present in the new data, from the adds */
        uint32_t np = 0;
        for (uint32_t a = 0; a < w->nadds; a++) {
            const tn_delta_file *af = &w->adds[a].u.file;
            bool seen = false;
            for (uint32_t q = 0; q < a && !seen; q++) {
                const tn_delta_file *bf = &w->adds[q].u.file;
                bool same = true;
                for (uint32_t k = 0; k < w->npart && same; k++) {
                    const char *x = af->partition_values[k].value, *y = bf->partition_values[k].value;
                    same = (x == NULL && y == NULL) || (x && y && strcmp(x, y) == 0);
                }
                seen = same;
            }
            if (seen) continue;
            pspecs[np].values = &pspec_kv[(size_t)np * w->npart];
            pspecs[np].nvalues = w->npart;
            for (uint32_t k = 0; k < w->npart; k++) pspec_kv[(size_t)np * w->npart + k] = af->partition_values[k];
            np++;
        }
        info.read_partitions = pspecs;
        info.nread_partitions = np;
        for (uint32_t fi = 0; fi < snap->nfiles; fi++) {
            const tn_delta_file *f = &snap->files[fi];
            rc = file_part_key(t, f, &key, w->part_cols, w->npart);
            if (rc) goto cleanup;
            for (uint32_t k = 0; k < w->npart_keys; k++)
                if (strcmp(w->part_keys[k], (const char *)key.data) == 0) {
                    removes[nremoves++] = f;
                    break;
                }
        }
        params[nparams++] = (tn_delta_kv){"mode", "Overwrite"};
        params[nparams++] = (tn_delta_kv){"partitionBy", pby};
        params[nparams++] = (tn_delta_kv){"partitionOverwriteMode", "DYNAMIC"};
    } else {
        info.read_whole_table = true;
        for (uint32_t fi = 0; fi < snap->nfiles; fi++) removes[nremoves++] = &snap->files[fi];
        params[nparams++] = (tn_delta_kv){"mode", "Overwrite"};
        params[nparams++] = (tn_delta_kv){"partitionBy", pby};
    }
    /* user parameters */
    tn_delta_kv allp[64];
    uint32_t na = 0;
    for (uint32_t i = 0; i < nparams; i++) allp[na++] = params[i];
    for (uint32_t i = 0; i < o->noperation_parameters && na < 64; i++) allp[na++] = o->operation_parameters[i];
    res.files_added = w->nadds;
    res.files_removed = nremoves;
    res.rows_written = w->rows_written;
    res.bytes_added = w->bytes_added;
    rc = tn_interrupt_check(o->interrupt);     /* the last point at which nothing is committed */
    if (rc) goto cleanup;
    rc = commit_actions(t, w->arena, o->operation ? o->operation : "WRITE", allp, na, o->mode == TN_WRITE_APPEND,
                        removes, nremoves, w->adds, w->nadds, o->app_id, o->app_version, &info, o->max_attempts, &res);
    if (rc == 0 && res.skipped) {
        res.files_added = res.files_removed = res.rows_written = res.bytes_added = 0;
        res.version = -1;
        remove_written(w);   /* a concurrent writer already applied this txn */
    }
cleanup:
    if (rc) {
        for (uint32_t i = 0; i < w->nopen; i++)
            if (w->open[i]->pw) {
                tn_parquet_writer_abort(w->open[i]->pw);
                w->open[i]->pw = NULL;
            }
        remove_written(w);
        res.version = -1;
    }
    if (result) *result = res;
    tn_free(removes);
    tn_free(pspecs);
    tn_free(pspec_kv);
    free(pby);
    free(spec_json);
    tn_buf_free(&key);
    writer_free(w);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * DELETE (copy-on-write).
 */
typedef struct del_ctx {
    const tn_table_delete_options *o;
    uint8_t *match;
    uint32_t *sel;
    uint64_t matched, seen;
    tn_table_writer *w;              /* NULL in the counting pass */
} del_ctx;

static int del_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    del_ctx *d = ctx;
    memset(d->match, 0, chunk->count);
    int rc = tn_interrupt_check(d->o->interrupt);
    if (!rc && d->o->match) rc = d->o->match(d->o->match_ctx, chunk, d->match);
    if (rc) return rc;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < chunk->count; i++) {
        if (d->match[i]) d->matched++;
        else d->sel[keep++] = i;
    }
    d->seen += chunk->count;
    if (!d->w || keep == 0) return 0;
    if (keep == chunk->count) return tn_table_writer_write(d->w, chunk);
    /* gather survivors */
    tn_chunk sub;
    tn_type types[512];
    for (uint32_t c = 0; c < chunk->ncols; c++) types[c] = chunk->cols[c].type;
    rc = tn_chunk_init(&sub, chunk->ncols, types, keep);
    for (uint32_t c = 0; c < chunk->ncols && !rc; c++) rc = tb_vector_append(&sub.cols[c], &chunk->cols[c], d->sel, keep);
    sub.count = keep;
    if (!rc) rc = tn_table_writer_write(d->w, &sub);
    tn_chunk_free(&sub);
    return rc;
}

int tn_table_delete(tn_table *t, const tn_table_delete_options *opts, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_delete_options defaults = TN_TABLE_DELETE_OPTIONS_INIT;
    tn_table_commit_result res;
    const tn_delta_snapshot *snap = t->snap;
    const tn_delta_file **removes = NULL;
    uint32_t nremoves = 0;
    tn_table_writer *w = NULL;
    tn_table_scan *scan = NULL;
    del_ctx d;
    memset(&d, 0, sizeof d);
    memset(&res, 0, sizeof res);
    res.version = -1;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    if (!opts) opts = &defaults;
    if (tn_table_property(t, "delta.appendOnly") && tn_str_iequal(tn_table_property(t, "delta.appendOnly"), "true")) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): DELETE refused", t->path);
        goto cleanup;
    }
    if (opts->app_id && tn_delta_snapshot_txn_version(snap, opts->app_id) >= opts->app_version) {
        res.skipped = true;
        goto cleanup;
    }
    removes = tn_malloc(sizeof *removes * (snap->nfiles + 1));
    d.match = tn_malloc(TN_VECTOR_SIZE);
    d.sel = tn_malloc(sizeof(uint32_t) * TN_VECTOR_SIZE);
    if (!removes || !d.match || !d.sel) { rc = TN_ENOMEM; goto cleanup; }
    d.o = opts;
    tn_table_write_options wo = TN_TABLE_WRITE_OPTIONS_INIT;
    wo.interrupt = opts->interrupt;
    rc = tn_table_writer_open(&w, t, &wo);
    if (rc) goto cleanup;
    for (uint32_t fi = 0; fi < snap->nfiles; fi++) {
        const tn_delta_file *f = &snap->files[fi];
        if ((rc = tn_interrupt_check(opts->interrupt))) goto cleanup;
        if (!tb_partition_may_match(t, f, opts->filters, opts->nfilters)) continue;
        if (!opts->match) {
            /* every row of the remaining files */
            int64_t nr = tn_delta_file_num_records(f);
            if (nr < 0) nr = 0;
            if (f->has_dv) nr -= f->dv.cardinality;
            if (tb_stats_may_match(t, f, opts->filters, opts->nfilters)) {
                removes[nremoves++] = f;
                res.rows_deleted += (uint64_t)(nr > 0 ? nr : 0);
            }
            continue;
        }
        if (!tb_stats_may_match(t, f, opts->filters, opts->nfilters)) continue;
        /* pass 1: count matches (no row-group filtering: we need every row to rewrite) */
        tn_table_scan_options all = TN_TABLE_SCAN_OPTIONS_INIT;
        all.all_columns = true;
        rc = tn_table_scan_open_files(&scan, t, &all, &fi, 1);
        if (rc) goto cleanup;
        d.w = NULL;
        d.matched = d.seen = 0;
        rc = tn_table_scan_run(scan, del_chunk, &d);
        if (rc) goto cleanup;
        if (d.matched == 0) {
            tn_table_scan_close(scan);
            scan = NULL;
            continue;
        }
        removes[nremoves++] = f;
        res.rows_deleted += d.matched;
        if (d.matched < d.seen) {
            /* pass 2: rewrite the survivors */
            tn_table_scan_close(scan);
            scan = NULL;
            rc = tn_table_scan_open_files(&scan, t, &all, &fi, 1);
            if (rc) goto cleanup;
            d.w = w;
            d.matched = d.seen = 0;
            rc = tn_table_scan_run(scan, del_chunk, &d);
            if (rc) goto cleanup;
        }
        tn_table_scan_close(scan);
        scan = NULL;
    }
    rc = writer_finish(w);
    if (rc) goto cleanup;
    if (nremoves == 0) goto cleanup;   /* nothing matched: no commit */
    tn_delta_txn_info info;
    memset(&info, 0, sizeof info);
    info.read_whole_table = true;
    tn_delta_kv params[1] = {{"predicate", opts->predicate_text ? opts->predicate_text : "true"}};
    json_t *pa = json_array();
    json_array_append_new(pa, json_string(opts->predicate_text ? opts->predicate_text : "true"));
    char *ptext = json_dumps(pa, JSON_COMPACT);
    json_decref(pa);
    if (ptext) params[0].value = ptext;
    res.files_added = w->nadds;
    res.files_removed = nremoves;
    res.rows_written = w->rows_written;
    res.bytes_added = w->bytes_added;
    rc = tn_interrupt_check(opts->interrupt);
    if (rc) {
        free(ptext);
        goto cleanup;
    }
    rc = commit_actions(t, arena, "DELETE", params, 1, false, removes, nremoves, w->adds, w->nadds, opts->app_id,
                        opts->app_version, &info, opts->max_attempts, &res);
    free(ptext);
    if (rc == 0 && res.skipped) {
        remove_written(w);
        res.files_added = res.files_removed = res.rows_written = res.rows_deleted = 0;
        res.version = -1;
    }
cleanup:
    tn_table_scan_close(scan);
    if (w) {
        if (rc || res.version < 0) {
            tn_table_writer_abort(w);
        } else {
            writer_free(w);
        }
    }
    if (rc) res.version = -1;
    if (result) *result = res;
    tn_free(removes);
    tn_free(d.match);
    tn_free(d.sel);
    tn_arena_destroy(arena);
    return rc;
}
