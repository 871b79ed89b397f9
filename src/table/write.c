/*
 * table/write.c: the optimistic commit loop shared by every table commit (tb_commit), add.stats,
 * the file-writer primitive (rows of one partition into Parquet files rolled at a target size,
 * explicit row-group boundaries, tags, file-name infix) and copy-on-write DELETE. Which rows go
 * to which file writer (partition routing, buckets, cubes) is layout/'s business.
 *
 * Row groups hold 122,880 rows unless the options say otherwise. Files roll when their
 * estimated bytes times the compression ratio learnt from the transaction's finished files
 * reach the target.
 *
 * Data file names: <col=value/...>/part-<5-digit counter>-[<infix>-]<uuid>-c000.<codec>.parquet.
 * add.stats: {"numRecords":N,"minValues":{..},"maxValues":{..},"nullCount":{..}} keyed by
 * physical column name; strings cut to 32 characters (max gets U+10FFFF appended when cut),
 * timestamps as ISO-8601 milliseconds (truncated, as the protocol says; TIMESTAMPTZ with 'Z'), no
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
    if (info->read_version == INT64_MAX)
        return tn_error_set(TN_ELIMIT, "table '%s': version %lld is the last one a Delta log can hold", t->path,
                            (long long)INT64_MAX);
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
        if (latest == INT64_MAX) {
            rc = tn_error_set(TN_ELIMIT, "table '%s': version %lld is the last one a Delta log can hold", t->path,
                              (long long)INT64_MAX);
            break;
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
        const tn_delta_metadata *md = &t->snap->metadata;
        for (uint32_t i = 0; i < nactions; i++)
            if (actions[i].kind == TN_DELTA_METADATA) md = &actions[i].u.metadata;   /* the interval it sets */
        if (tn_delta_maybe_checkpoint(t->fs, t->path, *version, tn_delta_checkpoint_interval(md)) != 0)
            tn_error_clear();
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

/* ISO-8601 milliseconds, truncated down for min and max alike (PROTOCOL.md "Per-file
 * Statistics": timestamps are truncated to milliseconds; readers widen the max by 999 us). */
static void ts_text(char *buf, size_t cap, int64_t us, bool zulu) {
    int64_t ms = us >= 0 ? us / 1000 : -((-us + 999) / 1000);
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
        /* years 0001..9999 only (as the timestamps below): Spark parses no other, nor 'infinity' */
        if (v->u.i < -719162 || v->u.i > 2932896) return 1;
        tn_format_date(tmp, sizeof tmp, (int32_t)v->u.i);
        return json_str(out, tmp, strlen(tmp));
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        if (v->u.i < -62135596800000000LL || v->u.i > 253402300799000000LL) return 1;
        ts_text(tmp, sizeof tmp, v->u.i, v->type.id == TN_TYPE_TIMESTAMP_TZ);
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
    bool first = true;
    for (uint32_t i = 0; i < ncols && i < r->ncolumns && !rc; i++) {
        if (cols[i]->type.id == TN_TYPE_STRUCT) continue;   /* Delta wants the leaves' counts */
        if (!first) rc = tn_buf_append_byte(out, ',');
        first = false;
        if (!rc) rc = json_str(out, cols[i]->physical_name, strlen(cols[i]->physical_name));
        if (!rc) rc = tn_buf_printf(out, ":%lld", (long long)r->columns[i].null_count);
    }
    if (!rc) rc = tn_buf_printf(out, "}}");
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * File writers: rows of one partition into a rolling sequence of Parquet files.
 */
#define TB_ROW_GROUP_ROWS 122880

struct tn_table_file_writer {
    tn_table_txn *txn;
    tn_table *t;
    int sticky;                      /* first error: the writer is unusable afterwards */
    char *dir;                       /* escaped "a=1/b=x" ("" unpartitioned) */
    tn_delta_kv *pvals;              /* physical name -> text (NULL = null), partition column order */
    uint32_t npart;
    tn_delta_kv *tags;
    uint32_t ntags;
    tn_delta_kv *footer;             /* extra Parquet key-value metadata of the files opened next */
    uint32_t nfooter;
    char *infix;
    uint64_t target;
    tn_parquet_codec codec;
    uint64_t rg_rows, rg_bytes;
    bool data_change;
    uint32_t *data_cols;             /* logical indexes of stored columns */
    const tn_delta_column **data_col_ptrs;
    uint32_t ndata;
    tn_parquet_column_spec *specs;
    tn_chunk stage;                  /* gathered rows (sel given), allocated on first use */
    bool has_stage;
    tn_parquet_writer *pw;           /* the open file */
    char *rel_path, *full_path;
    uint64_t est_bytes, file_rows;
    tn_delta_action *adds;           /* finished files (strings in the txn's arena) */
    uint64_t *add_rows, *add_bytes;
    uint32_t nadds, cap_adds;
    char **written;                  /* full paths of the files created (abort) */
    uint32_t nwritten, cap_written;
    tn_arena *arena;
};

static const char *codec_ext(tn_parquet_codec c) {
    switch (c) {
    case TN_CODEC_UNCOMPRESSED: return "";
    case TN_CODEC_SNAPPY: return ".snappy";
    case TN_CODEC_GZIP: return ".gz";
    case TN_CODEC_LZ4_RAW: return ".lz4raw";
    case TN_CODEC_ZSTD: return ".zstd";
    case TN_CODEC_BROTLI: return ".br";
    default: return "";
    }
}

uint64_t tn_table_parse_size(const char *s) {
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

uint64_t tn_table_target_file_bytes(const tn_table *t) {
    const tn_delta_metadata *md = &t->snap->metadata;
    uint64_t b = tn_table_parse_size(tn_delta_config_get(md, "target_file_size"));
    if (!b) b = tn_table_parse_size(tn_delta_config_get(md, "delta.targetFileSize"));
    return b ? b : TN_TABLE_DEFAULT_TARGET_FILE_BYTES;
}

static int fw_push_written(tn_table_file_writer *fw, const char *full) {
    if (fw->nwritten == fw->cap_written) {
        uint32_t cap = fw->cap_written ? fw->cap_written * 2 : 8;
        char **p = tn_realloc(fw->written, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        fw->written = p;
        fw->cap_written = cap;
    }
    fw->written[fw->nwritten] = tn_strdup(full);
    if (!fw->written[fw->nwritten]) return TN_ENOMEM;
    fw->nwritten++;
    return tb_txn_track_file(fw->txn, full);
}

static int fw_push_add(tn_table_file_writer *fw, const tn_delta_action *a, uint64_t rows, uint64_t bytes) {
    if (fw->nadds == fw->cap_adds) {
        uint32_t cap = fw->cap_adds ? fw->cap_adds * 2 : 8;
        tn_delta_action *p = tn_realloc(fw->adds, sizeof *p * cap);
        if (!p) return TN_ENOMEM;
        fw->adds = p;
        uint64_t *r = tn_realloc(fw->add_rows, sizeof *r * cap);
        if (!r) return TN_ENOMEM;
        fw->add_rows = r;
        uint64_t *b = tn_realloc(fw->add_bytes, sizeof *b * cap);
        if (!b) return TN_ENOMEM;
        fw->add_bytes = b;
        fw->cap_adds = cap;
    }
    fw->adds[fw->nadds] = *a;
    fw->add_rows[fw->nadds] = rows;
    fw->add_bytes[fw->nadds] = bytes;
    fw->nadds++;
    return 0;
}

static tn_delta_kv *kv_dup(tn_arena *arena, const tn_delta_kv *kv, uint32_t n) {
    tn_delta_kv *c = tn_arena_calloc(arena, sizeof *c * (n ? n : 1));
    if (!c) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        c[i].key = tn_arena_strdup(arena, kv[i].key);
        c[i].value = kv[i].value ? tn_arena_strdup(arena, kv[i].value) : NULL;
        if (!c[i].key || (kv[i].value && !c[i].value)) return NULL;
    }
    return c;
}

/* Finishes the open file (if any) and records its add action. */
static int finish_file(tn_table_file_writer *fw) {
    int rc = 0;
    tn_parquet_write_result res;
    tn_buf stats = TN_BUF_INIT, enc = TN_BUF_INIT;
    tn_arena *ta = fw->txn->arena;
    bool locked = false;
    memset(&res, 0, sizeof res);
    if (!fw->pw) return 0;
    rc = tn_interrupt_check(fw->txn->interrupt);
    if (rc) return rc;
    tn_parquet_writer *pw = fw->pw;
    fw->pw = NULL;
    rc = tn_parquet_writer_close(pw, &res);
    if (rc) {
        tn_error_prefix(rc, "table '%s'", fw->t->path);
        goto cleanup;
    }
    pthread_mutex_lock(&fw->txn->lock);   /* the txn's arena and ratio (other writers' threads) */
    locked = true;
    if (fw->est_bytes > 0 && res.file_bytes > 0) {
        double r = (double)res.file_bytes / (double)fw->est_bytes;
        fw->txn->ratio = fw->txn->ratio <= 0 ? r : (fw->txn->ratio + r) / 2;
    }
    /* delta.dataSkippingNumIndexedCols: statistics for the first N data columns only */
    const char *nic = tn_delta_config_get(&fw->txn->t->snap->metadata, "delta.dataSkippingNumIndexedCols");
    uint32_t nstats = nic && atoll(nic) >= 0 && (uint64_t)atoll(nic) < fw->ndata ? (uint32_t)atoll(nic) : fw->ndata;
    rc = build_stats(&stats, &res, fw->data_col_ptrs, nstats);
    if (rc) goto cleanup;
    rc = tn_buf_append_byte(&stats, 0);
    if (!rc) rc = tn_delta_uri_encode(&enc, fw->rel_path);
    if (!rc) rc = tn_buf_append_byte(&enc, 0);
    if (rc) goto cleanup;
    tn_delta_action a;
    memset(&a, 0, sizeof a);
    a.kind = TN_DELTA_ADD;
    tn_delta_file *f = &a.u.file;
    f->path = tn_arena_strdup(ta, (const char *)enc.data);
    f->path_decoded = tn_arena_strdup(ta, fw->rel_path);
    f->has_partition_values = true;
    f->npartition_values = fw->npart;
    if (fw->npart) {
        f->partition_values = kv_dup(ta, fw->pvals, fw->npart);
        if (!f->partition_values) { rc = TN_ENOMEM; goto cleanup; }
    }
    if (fw->ntags) {
        f->tags = kv_dup(ta, fw->tags, fw->ntags);
        f->ntags = fw->ntags;
        if (!f->tags) { rc = TN_ENOMEM; goto cleanup; }
    }
    f->has_size = true;
    f->size = (int64_t)res.file_bytes;
    f->modification_time = tb_now_ms();
    f->data_change = fw->data_change;
    f->stats = tn_arena_strdup(ta, (const char *)stats.data);
    if (!f->path || !f->path_decoded || !f->stats) { rc = TN_ENOMEM; goto cleanup; }
    rc = fw_push_add(fw, &a, (uint64_t)res.num_rows, res.file_bytes);
cleanup:
    if (locked) pthread_mutex_unlock(&fw->txn->lock);
    tn_parquet_write_result_free(&res);
    tn_buf_free(&stats);
    tn_buf_free(&enc);
    return rc;
}

static int open_file(tn_table_file_writer *fw) {
    int rc = 0;
    char uuid[37];
    tb_uuid(uuid);
    tn_buf rel = TN_BUF_INIT;
    pthread_mutex_lock(&fw->txn->lock);
    uint64_t counter = fw->txn->file_counter++;
    pthread_mutex_unlock(&fw->txn->lock);
    if (fw->dir[0]) rc = tn_buf_printf(&rel, "%s/", fw->dir);
    if (!rc) rc = tn_buf_printf(&rel, "part-%05llu-%s%s%s-c000%s.parquet",
                                (unsigned long long)(counter % 100000), fw->infix ? fw->infix : "",
                                fw->infix ? "-" : "", uuid, codec_ext(fw->codec));
    if (!rc) rc = tn_buf_append_byte(&rel, 0);
    if (rc) goto cleanup;
    tn_free(fw->rel_path);
    tn_free(fw->full_path);
    fw->rel_path = tn_strdup((const char *)rel.data);
    size_t len = strlen(fw->t->path) + rel.len + 2;
    fw->full_path = tn_malloc(len);
    if (!fw->rel_path || !fw->full_path) { rc = TN_ENOMEM; goto cleanup; }
    snprintf(fw->full_path, len, "%s/%s", fw->t->path, fw->rel_path);
    if (fw->dir[0]) {
        char *dir = tn_strdup(fw->full_path);
        if (!dir) { rc = TN_ENOMEM; goto cleanup; }
        *strrchr(dir, '/') = 0;
        rc = fw->t->fs->mkdir_p(fw->t->fs, dir);
        tn_free(dir);
        if (rc) goto cleanup;
    }
    tn_parquet_writer_options po = TN_PARQUET_WRITER_OPTIONS_INIT;
    po.codec = fw->codec;
    po.row_group_rows = fw->rg_rows;
    po.row_group_bytes = fw->rg_bytes;
    tn_parquet_kv_pair kv[9] = {{"writer.engine", TN_ENGINE_INFO}};
    po.kv = kv;
    po.nkv = 1;
    for (uint32_t i = 0; i < fw->nfooter && po.nkv < 9; i++) kv[po.nkv++] = (tn_parquet_kv_pair){fw->footer[i].key, fw->footer[i].value};
    po.no_sync = fw->txn->defer_sync;  /* fsynced with the others at commit (txn.c) */
    rc = fw_push_written(fw, fw->full_path);
    if (rc) goto cleanup;
    rc = tn_parquet_writer_open(&fw->pw, fw->t->fs, fw->full_path, fw->specs, fw->ndata, &po);
    if (rc) tn_error_prefix(rc, "table '%s'", fw->t->path);
    fw->est_bytes = 0;
    fw->file_rows = 0;
cleanup:
    tn_buf_free(&rel);
    return rc;
}

static bool infix_ok(const char *s) {
    size_t n = strlen(s);
    if (n > 64) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '.' || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

/* Partition values in partition-column order (keys: physical names) and the escaped directory. */
static int fw_partition(tn_table_file_writer *fw, const tn_table_file_writer_options *o) {
    const tn_delta_metadata *md = &fw->t->snap->metadata;
    int rc = 0;
    tn_buf dir = TN_BUF_INIT;
    fw->pvals = tn_arena_calloc(fw->arena, sizeof *fw->pvals * (md->npartition_columns + 1));
    if (!fw->pvals) return TN_ENOMEM;
    if (o->npartition_values != md->npartition_columns) {
        rc = tn_error_set(TN_EINVAL, "table '%s': %u partition values given, the table has %u partition columns",
                          fw->t->path, o->npartition_values, md->npartition_columns);
        goto cleanup;
    }
    for (uint32_t k = 0; k < md->npartition_columns && !rc; k++) {
        int ci = tn_table_column_index(fw->t, md->partition_columns[k]);
        if (ci < 0) {
            rc = tn_error_set(TN_ECORRUPT, "table '%s': partition column '%s' is not in the schema", fw->t->path,
                              md->partition_columns[k]);
            break;
        }
        const tn_delta_column *c = &md->columns[ci];
        const tn_delta_kv *given = NULL;
        for (uint32_t j = 0; j < o->npartition_values; j++)
            if (o->partition_values[j].key &&
                (strcmp(o->partition_values[j].key, c->physical_name) == 0 || tn_str_iequal(o->partition_values[j].key, c->name))) {
                if (given) {
                    rc = tn_error_set(TN_EINVAL, "table '%s': partition column '%s' given twice", fw->t->path, c->name);
                    goto cleanup;
                }
                given = &o->partition_values[j];
            }
        if (!given) {
            rc = tn_error_set(TN_EINVAL, "table '%s': no value for partition column '%s'", fw->t->path, c->name);
            break;
        }
        const char *v = given->value;
        if (v && !v[0]) v = NULL;
        if (!v && !c->nullable) {
            rc = tn_error_set(TN_ECONSTRAINT, "table '%s': NULL in NOT NULL column '%s'", fw->t->path, c->name);
            break;
        }
        fw->pvals[k].key = c->physical_name;
        fw->pvals[k].value = v ? tn_arena_strdup(fw->arena, v) : NULL;
        if (v && !fw->pvals[k].value) { rc = TN_ENOMEM; break; }
        if (k) rc = tn_buf_append_byte(&dir, '/');
        if (!rc) rc = tb_hive_escape(&dir, c->physical_name, strlen(c->physical_name));
        if (!rc) rc = tn_buf_append_byte(&dir, '=');
        if (!rc) rc = v ? tb_hive_escape(&dir, v, strlen(v)) : tn_buf_printf(&dir, "__HIVE_DEFAULT_PARTITION__");
    }
    fw->npart = md->npartition_columns;
    if (!rc) rc = tn_buf_append_byte(&dir, 0);
    if (!rc) {
        fw->dir = tn_arena_strdup(fw->arena, (const char *)dir.data);
        if (!fw->dir) rc = TN_ENOMEM;
    }
cleanup:
    tn_buf_free(&dir);
    return rc;
}

static void fw_free(tn_table_file_writer *fw) {
    if (!fw) return;
    if (fw->pw) tn_parquet_writer_abort(fw->pw);
    for (uint32_t i = 0; i < fw->nwritten; i++) tn_free(fw->written[i]);
    tn_free(fw->written);
    tn_free(fw->adds);
    tn_free(fw->add_rows);
    tn_free(fw->add_bytes);
    tn_free(fw->rel_path);
    tn_free(fw->full_path);
    if (fw->has_stage) tn_chunk_free(&fw->stage);
    tn_arena_destroy(fw->arena);
    tn_free(fw);
}

int tn_table_file_writer_open(tn_table_file_writer **out, tn_table_txn *txn, const tn_table_file_writer_options *opts) {
    int rc = 0;
    tn_table *t = txn->t;
    const tn_delta_metadata *md = &t->snap->metadata;
    tn_table_file_writer_options defaults = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    *out = NULL;
    if (!opts) opts = &defaults;
    for (uint32_t i = 0; i < md->ncolumns; i++)
        if (md->columns[i].nested && !tn_type_is_nested(md->columns[i].type))
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has type %s: writing is not supported",
                                t->path, md->columns[i].name, md->columns[i].type_text ? md->columns[i].type_text : "?");
    if (md->ncolumns > TN_TABLE_MAX_COLUMNS)     /* a table written by another engine */
        return tn_error_set(TN_ELIMIT, "table '%s': too many columns (%u; tarn writes at most %u)", t->path,
                            md->ncolumns, (unsigned)TN_TABLE_MAX_COLUMNS);
    rc = tb_write_check_features(t, txn->constraints_checked, txn->rows_from_table);
    if (rc) return rc;
    if (opts->name_infix && !infix_ok(opts->name_infix))
        return tn_error_set(TN_EINVAL, "table '%s': file name infix '%s' must be up to 64 of [A-Za-z0-9._-]", t->path,
                            opts->name_infix);
    tn_table_file_writer *fw = tn_calloc(1, sizeof *fw);
    if (!fw) return TN_ENOMEM;
    fw->txn = txn;
    fw->t = t;
    fw->arena = tn_arena_create(0);
    if (!fw->arena) { rc = TN_ENOMEM; goto cleanup; }
    rc = fw_partition(fw, opts);
    if (rc) goto cleanup;
    if (opts->ntags) {
        fw->tags = kv_dup(fw->arena, opts->tags, opts->ntags);
        fw->ntags = opts->ntags;
        if (!fw->tags) { rc = TN_ENOMEM; goto cleanup; }
    }
    if (opts->name_infix && opts->name_infix[0] && !(fw->infix = tn_arena_strdup(fw->arena, opts->name_infix))) {
        rc = TN_ENOMEM;
        goto cleanup;
    }
    fw->target = opts->target_file_bytes ? opts->target_file_bytes : tn_table_target_file_bytes(t);
    fw->codec = TN_CODEC_ZSTD;
    if (opts->codec >= 0) {
        fw->codec = (tn_parquet_codec)opts->codec;
    } else {
        const char *codec = tn_delta_config_get(md, "delta.parquet.compression.codec");
        tn_parquet_codec c;
        if (codec && tn_parquet_codec_parse(codec, &c) == 0) fw->codec = c;
        else if (codec) tn_error_clear();
    }
    /* row groups of 122,880 rows (DuckDB's size) unless asked otherwise: units of parallelism
     * for scans of the table, small enough to skip by statistics */
    fw->rg_rows = opts->row_group_rows ? opts->row_group_rows : TB_ROW_GROUP_ROWS;
    fw->rg_bytes = opts->row_group_bytes ? opts->row_group_bytes : ((uint64_t)128 << 20);
    if (!opts->row_group_bytes && fw->target && fw->rg_bytes > fw->target) fw->rg_bytes = fw->target;
    fw->data_change = opts->data_change;
    fw->data_cols = tn_arena_alloc(fw->arena, sizeof(uint32_t) * (md->ncolumns + 1));
    fw->data_col_ptrs = tn_arena_alloc(fw->arena, sizeof(void *) * (md->ncolumns + 1));
    fw->specs = tn_arena_calloc(fw->arena, sizeof(tn_parquet_column_spec) * (md->ncolumns + 1));
    if (!fw->data_cols || !fw->data_col_ptrs || !fw->specs) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        const tn_delta_column *c = &md->columns[i];
        if (c->is_partition) continue;
        tn_parquet_column_spec *s = &fw->specs[fw->ndata];
        s->name = c->physical_name;
        s->type = c->type;
        s->nullable = c->nullable;
        s->field_id = md->column_mapping != TN_DELTA_CM_NONE ? c->field_id : -1;
        fw->data_col_ptrs[fw->ndata] = c;
        fw->data_cols[fw->ndata++] = i;
    }
    if (fw->ndata == 0) { rc = tn_error_set(TN_EINVAL, "table '%s': no data column", t->path); goto cleanup; }
    rc = tb_txn_writer_opened(txn, fw);
    if (rc) goto cleanup;
    *out = fw;
    fw = NULL;
cleanup:
    fw_free(fw);
    return rc;
}

/* Estimated bytes of the first n rows of the data columns. */
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

static int check_chunk(const tn_table_file_writer *fw, const tn_chunk *chunk, uint32_t n) {
    const tn_delta_metadata *md = &fw->t->snap->metadata;
    if (chunk->ncols != md->ncolumns)
        return tn_error_set(TN_EINVAL, "table '%s': %u columns given, the table has %u", fw->t->path,
                            chunk->ncols, md->ncolumns);
    for (uint32_t k = 0; k < fw->ndata; k++) {
        uint32_t i = fw->data_cols[k];
        tn_type a = chunk->cols[i].type, b = md->columns[i].type;
        if (!tn_type_equal(a, b) && !(tn_type_is_string(a) && tn_type_is_string(b))) {
            char x[32], y[32];
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' is %s, a value of type %s was given",
                                fw->t->path, md->columns[i].name, tn_type_format(b, x, sizeof x),
                                tn_type_format(a, y, sizeof y));
        }
    }
    if (n > chunk->count)
        return tn_error_set(TN_EINVAL, "table '%s': %u rows asked of a chunk of %u", fw->t->path, n, chunk->count);
    return 0;
}

int tn_table_file_writer_write(tn_table_file_writer *fw, const tn_chunk *chunk, const uint32_t *sel, uint32_t n) {
    int rc = 0;
    if (fw->sticky) return tn_error_set(fw->sticky, "table '%s': the file writer failed earlier", fw->t->path);
    if (n == 0) return 0;
    rc = tn_interrupt_check(fw->txn->interrupt);
    if (!rc) rc = check_chunk(fw, chunk, n);
    if (rc) goto cleanup;
    const tn_chunk *src;
    tn_vector view[512];
    tn_chunk vc;
    if (sel == NULL) {
        for (uint32_t i = 0; i < fw->ndata; i++) view[i] = chunk->cols[fw->data_cols[i]];
        vc.ncols = fw->ndata;
        vc.count = n;
        vc.cols = view;
        src = &vc;
    } else {
        if (!fw->has_stage) {
            tn_type types[512];
            for (uint32_t i = 0; i < fw->ndata; i++) types[i] = fw->data_col_ptrs[i]->type;
            rc = tn_chunk_init(&fw->stage, fw->ndata, types, TN_VECTOR_SIZE);
            if (rc) goto cleanup;
            fw->has_stage = true;
        }
        tn_chunk_reset(&fw->stage);
        for (uint32_t i = 0; i < fw->ndata && !rc; i++) {
            tn_vector *d = &fw->stage.cols[i];
            d->count = 0;
            rc = tn_vector_append_rows(d, &chunk->cols[fw->data_cols[i]], sel, n);
        }
        if (rc) goto cleanup;
        fw->stage.count = n;
        src = &fw->stage;
    }
    if (!fw->pw) {
        rc = open_file(fw);
        if (rc) goto cleanup;
    }
    rc = tn_parquet_writer_write(fw->pw, src);
    if (rc) {
        tn_error_prefix(rc, "table '%s'", fw->t->path);
        goto cleanup;
    }
    fw->est_bytes += estimate(src, n);
    fw->file_rows += n;
    pthread_mutex_lock(&fw->txn->lock);
    double ratio = fw->txn->ratio > 0 ? fw->txn->ratio : 0.5;
    pthread_mutex_unlock(&fw->txn->lock);
    if (fw->target != UINT64_MAX && (double)fw->est_bytes * ratio >= (double)fw->target) rc = finish_file(fw);
cleanup:
    if (rc) fw->sticky = rc;
    return rc;
}

int tn_table_file_writer_flush(tn_table_file_writer *fw) {
    if (fw->sticky) return tn_error_set(fw->sticky, "table '%s': the file writer failed earlier", fw->t->path);
    if (!fw->pw) return 0;
    int rc = tn_parquet_writer_flush(fw->pw);
    if (rc) fw->sticky = tn_error_prefix(rc, "table '%s'", fw->t->path);
    return rc;
}

int tn_table_file_writer_roll(tn_table_file_writer *fw) {
    if (fw->sticky) return tn_error_set(fw->sticky, "table '%s': the file writer failed earlier", fw->t->path);
    int rc = finish_file(fw);
    if (rc) fw->sticky = rc;
    return rc;
}

int tn_table_file_writer_set_tags(tn_table_file_writer *fw, const tn_delta_kv *tags, uint32_t ntags) {
    tn_delta_kv *c = ntags ? kv_dup(fw->arena, tags, ntags) : NULL;
    if (ntags && !c) return TN_ENOMEM;
    fw->tags = c;
    fw->ntags = ntags;
    return 0;
}

int tn_table_file_writer_set_footer(tn_table_file_writer *fw, const tn_delta_kv *kv, uint32_t n) {
    if (n > 8) return tn_error_set(TN_EINVAL, "table '%s': at most 8 footer key-value pairs", fw->t->path);
    tn_delta_kv *c = n ? kv_dup(fw->arena, kv, n) : NULL;
    if (n && !c) return TN_ENOMEM;
    fw->footer = c;
    fw->nfooter = n;
    return 0;
}

int tn_table_file_writer_end_page(tn_table_file_writer *fw) {
    if (fw->sticky) return tn_error_set(fw->sticky, "table '%s': the file writer failed earlier", fw->t->path);
    if (!fw->pw) return 0;
    int rc = tn_parquet_writer_end_page(fw->pw);
    if (rc) fw->sticky = tn_error_prefix(rc, "table '%s'", fw->t->path);
    return rc;
}

uint64_t tn_table_file_writer_file_bytes(const tn_table_file_writer *fw) {
    return fw->pw ? tn_parquet_writer_bytes_written(fw->pw) + tn_parquet_writer_bytes_buffered(fw->pw) : 0;
}
uint64_t tn_table_file_writer_file_rows(const tn_table_file_writer *fw) { return fw->pw ? fw->file_rows : 0; }
uint32_t tn_table_file_writer_num_files(const tn_table_file_writer *fw) { return fw->nwritten; }
uint64_t tn_table_file_writer_buffered_bytes(const tn_table_file_writer *fw) {
    return fw->pw ? tn_parquet_writer_bytes_buffered(fw->pw) : 0;
}

int tn_table_file_writer_close(tn_table_file_writer *fw) {
    int rc = fw->sticky ? tn_error_set(fw->sticky, "table '%s': the file writer failed earlier", fw->t->path) : 0;
    if (!rc) rc = finish_file(fw);
    for (uint32_t i = 0; i < fw->nadds && !rc; i++) rc = tb_txn_push_add(fw->txn, &fw->adds[i], fw->add_rows[i], fw->add_bytes[i]);
    if (rc) {
        for (uint32_t i = 0; i < fw->nwritten; i++) tb_remove_file(fw->t->fs, fw->written[i]);
    }
    tb_txn_writer_done(fw->txn, fw);
    fw_free(fw);
    return rc;
}

void tn_table_file_writer_abort(tn_table_file_writer *fw) {
    if (!fw) return;
    if (fw->pw) {
        tn_parquet_writer_abort(fw->pw);
        fw->pw = NULL;
    }
    for (uint32_t i = 0; i < fw->nwritten; i++) tb_remove_file(fw->t->fs, fw->written[i]);
    tb_txn_writer_done(fw->txn, fw);
    fw_free(fw);
}
/* ---------------------------------------------------------------------------------------------
 * DELETE (copy-on-write): each file holding a matching row is rewritten without those rows
 * into a new file of the same partition with the same add.tags (a bucket stays a bucket). On
 * tables with delta.enableDeletionVectors the matching rows are marked in a deletion vector
 * instead (dv.c: the file is removed with its old DV and re-added with the new one); on tables
 * with delta.enableChangeDataFeed they are also written to _change_data as "delete" (cdf.c).
 */
typedef struct del_ctx {
    const tn_table_delete_options *o;
    uint8_t *match;
    uint32_t *sel, *msel;            /* kept / matched rows of the chunk */
    uint64_t *rows;                  /* file row index per chunk row (deletion vectors) */
    uint64_t matched, seen;
    tn_table_file_writer *w;         /* NULL in the counting pass */
    tn_table_cdc *cdc;               /* change data feed: matched rows (counting pass) */
    tn_table_dv_batch *dvb;          /* deletion vectors: matched rows marked (counting pass) */
    tn_table_scan *scan;
} del_ctx;

static int del_chunk(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    del_ctx *d = ctx;
    memset(d->match, 0, chunk->count);
    int rc = tn_interrupt_check(d->o->interrupt);
    if (!rc && d->o->match) rc = d->o->match(d->o->match_ctx, chunk, d->match);
    if (rc) return rc;
    uint32_t keep = 0, nm = 0;
    for (uint32_t i = 0; i < chunk->count; i++) {
        if (d->match[i]) d->msel[nm++] = i;
        else d->sel[keep++] = i;
    }
    d->matched += nm;
    d->seen += chunk->count;
    if (!d->w && nm) {
        if (d->cdc && (rc = tn_table_cdc_write(d->cdc, chunk, d->msel, nm, "delete"))) return rc;
        if (d->dvb) {
            rc = tn_table_scan_row_indexes(d->scan, file, first_row, chunk->count, d->rows);
            for (uint32_t i = 0; i < nm && !rc; i++) d->rows[i] = d->rows[d->msel[i]];
            if (!rc) rc = tn_table_dv_batch_mark(d->dvb, file, d->rows, nm);
            if (rc) return rc;
        }
    }
    if (!d->w || keep == 0) return 0;
    return tn_table_file_writer_write(d->w, chunk, keep == chunk->count ? NULL : d->sel, keep);
}

/* Runs del_chunk over every row of snapshot file fi (no row-group filtering: a rewrite needs
 * every row). */
static int del_scan(tn_table *t, uint32_t fi, del_ctx *d) {
    tn_table_scan *scan = NULL;
    tn_table_scan_options all = TN_TABLE_SCAN_OPTIONS_INIT;
    all.all_columns = true;
    d->matched = d->seen = 0;
    int rc = tn_table_scan_open_files(&scan, t, &all, &fi, 1);
    d->scan = scan;
    if (!rc) rc = tn_table_scan_run(scan, del_chunk, d);
    d->scan = NULL;
    tn_table_scan_close(scan);
    return rc;
}

/* Rewrites the survivors of snapshot file fi into a new file of its partition (same tags). */
static int del_rewrite(tn_table_txn *txn, uint32_t fi, del_ctx *d) {
    tn_table *t = txn->t;
    const tn_delta_file *f = &t->snap->files[fi];
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = f->partition_values;
    fo.npartition_values = f->npartition_values;
    fo.tags = f->tags;
    fo.ntags = f->ntags;
    int rc = tn_table_file_writer_open(&d->w, txn, &fo);
    if (rc) return rc;
    rc = del_scan(t, fi, d);
    tn_table_file_writer *w = d->w;
    d->w = NULL;
    if (rc) {
        tn_table_file_writer_abort(w);
        return rc;
    }
    return tn_table_file_writer_close(w);
}

int tn_table_delete(tn_table *t, const tn_table_delete_options *opts, tn_table_commit_result *result) {
    int rc = 0;
    tn_table_delete_options defaults = TN_TABLE_DELETE_OPTIONS_INIT;
    tn_table_commit_result res;
    const tn_delta_snapshot *snap = t->snap;
    uint32_t nremoves = 0;
    tn_table_txn *txn = NULL;
    tn_arena *arena = NULL;
    char *ptext = NULL;
    del_ctx d;
    memset(&d, 0, sizeof d);
    memset(&res, 0, sizeof res);
    res.version = -1;
    if (!opts) opts = &defaults;
    if (tn_table_property(t, "delta.appendOnly") && tn_str_iequal(tn_table_property(t, "delta.appendOnly"), "true")) {
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): DELETE refused", t->path);
        goto cleanup;
    }
    if (opts->app_id && tn_delta_snapshot_txn_version(snap, opts->app_id) >= opts->app_version) {
        res.skipped = true;
        goto cleanup;
    }
    d.match = tn_malloc(TN_VECTOR_SIZE);
    d.sel = tn_malloc(sizeof(uint32_t) * TN_VECTOR_SIZE);
    d.msel = tn_malloc(sizeof(uint32_t) * TN_VECTOR_SIZE);
    d.rows = tn_malloc(sizeof(uint64_t) * TN_VECTOR_SIZE);
    if (!d.match || !d.sel || !d.msel || !d.rows) { rc = TN_ENOMEM; goto cleanup; }
    d.o = opts;
    rc = tn_table_txn_open(&txn, t, opts->max_attempts);
    if (rc) goto cleanup;
    tn_table_txn_set_interrupt(txn, opts->interrupt);
    tn_table_txn_set_rows_checked(txn, false, true);   /* survivors are the table's own rows */
    /* rows matched by a predicate: their changes go to _change_data (CDF tables), and they are
     * deleted by deletion vectors (DV tables) instead of rewriting their files */
    if (opts->match && tn_table_cdf_enabled(t) && (rc = tn_table_cdc_open(&d.cdc, t))) goto cleanup;
    if (opts->match && tn_table_dv_enabled(t) && (rc = tn_table_dv_batch_open(&d.dvb, t))) goto cleanup;
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
                rc = tn_table_txn_remove(txn, f, true);
                if (rc) goto cleanup;
                nremoves++;
                res.rows_deleted += (uint64_t)(nr > 0 ? nr : 0);
            }
            continue;
        }
        if (!tb_stats_may_match(t, f, opts->filters, opts->nfilters)) continue;
        /* pass 1: count matches */
        d.w = NULL;
        rc = del_scan(t, fi, &d);
        if (rc) goto cleanup;
        if (d.matched == 0 || d.dvb) continue;   /* deletion vectors: from the batch below */
        rc = tn_table_txn_remove(txn, f, true);
        if (rc) goto cleanup;
        nremoves++;
        res.rows_deleted += d.matched;
        /* pass 2: rewrite the survivors */
        if (d.matched < d.seen && (rc = del_rewrite(txn, fi, &d))) goto cleanup;
    }
    if (d.dvb) {
        tn_table_dv_result dvr;
        arena = tn_arena_create(0);
        if (!arena) { rc = TN_ENOMEM; goto cleanup; }
        rc = tn_table_dv_batch_finish(d.dvb, arena, &dvr);
        if (!rc && dvr.dv_path) rc = tb_txn_track_file(txn, dvr.dv_path);
        for (uint32_t i = 0; i < dvr.nremoves && !rc; i++) rc = tn_table_txn_remove(txn, dvr.removes[i], true);
        for (uint32_t i = 0; i < dvr.nadds && !rc; i++) rc = tn_table_txn_add(txn, &dvr.adds[i].u.file);
        if (rc) goto cleanup;
        nremoves += dvr.nremoves;
        res.rows_deleted += dvr.rows_deleted;
    }
    if (d.cdc) {
        tn_delta_action *cdcs = NULL;
        uint32_t ncdcs = 0;
        if (!arena && !(arena = tn_arena_create(0))) { rc = TN_ENOMEM; goto cleanup; }
        rc = tn_table_cdc_finish(d.cdc, arena, &cdcs, &ncdcs);
        for (uint32_t i = 0; i < ncdcs && !rc; i++) {
            const char *full = tn_arena_printf(arena, "%s/%s", t->path, cdcs[i].u.file.path_decoded);
            rc = full ? tb_txn_track_file(txn, full) : TN_ENOMEM;
            if (!rc) rc = tn_table_txn_add_cdc(txn, &cdcs[i].u.file);
        }
        if (rc) goto cleanup;
    }
    if (nremoves == 0) goto cleanup;   /* nothing matched: no commit */
    rc = tn_table_txn_read_table(txn);
    if (rc) goto cleanup;
    if (opts->app_id && (rc = tn_table_txn_set_app(txn, opts->app_id, opts->app_version, NULL))) goto cleanup;
    json_t *pa = json_array();   /* Spark: the predicates' SQL texts, [] for a DELETE without WHERE */
    if (opts->predicate_text) json_array_append_new(pa, json_string(opts->predicate_text));
    ptext = json_dumps(pa, JSON_COMPACT);
    json_decref(pa);
    tn_delta_kv params[1] = {{"predicate", ptext ? ptext : "[]"}};
    rc = tn_table_txn_set_commit_info(txn, "DELETE", params, 1, NULL, 0);
    if (rc) goto cleanup;
    uint64_t deleted = res.rows_deleted;
    tn_table_txn *tc = txn;
    txn = NULL;
    rc = tn_table_txn_commit(tc, &res);
    res.rows_deleted = rc || res.skipped ? 0 : deleted;
cleanup:
    tn_table_txn_abort(txn);     /* removes the change data and DV files it tracks */
    if (rc) res.version = -1;
    if (res.version < 0) tn_table_cdc_abort(d.cdc);
    else tn_table_cdc_free(d.cdc);
    tn_table_dv_batch_free(d.dvb);
    tn_arena_destroy(arena);
    if (result) *result = res;
    free(ptext);
    tn_free(d.match);
    tn_free(d.sel);
    tn_free(d.msel);
    tn_free(d.rows);
    return rc;
}
