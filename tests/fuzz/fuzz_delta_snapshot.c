/*
 * tests/fuzz/fuzz_delta_snapshot.c: libFuzzer target for snapshot replay (delta/delta.h): a small
 * table t/ in memfs.h where one log file is the input (byte 0 picks which: commit 0 or 1,
 * _last_checkpoint, a classic Parquet or v2 JSON checkpoint, a v2 sidecar; and the open
 * options). tn_delta_snapshot_open must fail or give a consistent snapshot, whose files are then
 * walked (partition values, paths, stats, DVs). Crashes, hangs, leaks and disorder are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delta/delta.h"
#include "memfs.h"

#define LOG "t/_delta_log/"
#define V0 LOG "00000000000000000000.json"
#define V1 LOG "00000000000000000001.json"

static const char commit0[] =
    "{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\",\"isBlindAppend\":true}}\n"
    "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
    "{\"metaData\":{\"id\":\"fuzz\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
    "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\","
    "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},{\\\"name\\\":\\\"p\\\","
    "\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
    "\"partitionColumns\":[\"p\"],\"configuration\":{},\"createdTime\":1}}\n"
    "{\"add\":{\"path\":\"p=a/part-0.parquet\",\"partitionValues\":{\"p\":\"a\"},\"size\":10,"
    "\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":3}\"}}\n";
static const char commit1[] =
    "{\"commitInfo\":{\"timestamp\":2000,\"operation\":\"DELETE\"}}\n"
    "{\"remove\":{\"path\":\"p=a/part-0.parquet\",\"deletionTimestamp\":2000,\"dataChange\":true}}\n"
    "{\"add\":{\"path\":\"p=b/part-1.parquet\",\"partitionValues\":{\"p\":\"b\"},\"size\":20,"
    "\"modificationTime\":2,\"dataChange\":true}}\n"
    "{\"txn\":{\"appId\":\"app\",\"version\":7}}\n";
static const char last_checkpoint1[] = "{\"version\":1,\"size\":4}";

static void fail(const char *what) {
    fprintf(stderr, "fuzz_delta_snapshot: %s\n", what);
    abort();
}

/* The snapshot's order: decoded path, then DV unique id (the replay key). */
static int cmp_files(const tn_delta_file *x, const tn_delta_file *y) {
    int c = strcmp(x->path_decoded, y->path_decoded);
    if (c) return c;
    return strcmp(x->has_dv ? x->dv.unique_id : "", y->has_dv ? y->dv.unique_id : "");
}

static int cmp_file_ptrs(const void *a, const void *b) {
    return cmp_files(*(const tn_delta_file *const *)a, *(const tn_delta_file *const *)b);
}

static void walk(tn_delta_snapshot *s, memfs *m) {
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return;
    /* live files are in commit order; each (decoded path, DV id) at most once */
    const tn_delta_file **sorted = tn_calloc(s->nfiles + 1, sizeof *sorted);
    if (!sorted) { tn_arena_destroy(arena); return; }
    for (uint32_t i = 0; i < s->nfiles; i++) {
        if (!s->files[i].path || !s->files[i].path_decoded) fail("a live file without a path");
        sorted[i] = &s->files[i];
    }
    qsort(sorted, s->nfiles, sizeof *sorted, cmp_file_ptrs);
    for (uint32_t i = 1; i < s->nfiles; i++)
        if (cmp_files(sorted[i - 1], sorted[i]) == 0) fail("a live file (decoded path, DV id) repeated");
    tn_free(sorted);
    for (uint32_t i = 0; i < s->nfiles; i++) {
        const tn_delta_file *f = &s->files[i];
        for (uint32_t c = 0; c < s->metadata.npartition_columns; c++) {
            bool is_null;
            (void)tn_delta_partition_value(s, f, s->metadata.partition_columns[c], &is_null);
        }
        const char *full = NULL;
        (void)tn_delta_file_full_path(s, f, arena, &full);
        (void)tn_delta_file_num_records(f);
        if (f->has_dv) {
            uint64_t *rows = NULL, n = 0;
            (void)tn_delta_dv_read(&m->fs, s->table_path, &f->dv, &rows, &n);
            tn_free(rows);
        }
        tn_error_clear();
    }
    for (uint32_t i = 1; i < s->ntombstones; i++)
        if (cmp_files(&s->tombstones[i - 1], &s->tombstones[i]) > 0) fail("tombstones not sorted");
    for (uint32_t i = 1; i < s->ntxns; i++)
        if (strcmp(s->txns[i - 1].app_id, s->txns[i].app_id) >= 0) fail("txns not sorted and unique");
    for (uint32_t i = 0; i < s->ntxns; i++)
        if (tn_delta_snapshot_txn_version(s, s->txns[i].app_id) != s->txns[i].version)
            fail("txn lookup disagrees with the txn list");
    for (uint32_t c = 0; c < s->metadata.ncolumns; c++)
        if (!s->metadata.columns[c].name) fail("a column without a name");
    (void)tn_delta_config_get(&s->metadata, "delta.columnMapping.mode");
    tn_arena_destroy(arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > 1 << 20) return 0;
    uint8_t sel = data[0];
    size_t n = size - 1;
    uint8_t *file = malloc(n ? n : 1);           /* exact size: ASan sees reads past the end */
    if (!file) return 0;
    if (n) memcpy(file, data + 1, n);
    char v2ckpt[1024];
    memfs m;
    memfs_init(&m);
    int64_t expect_version = -1;                 /* on success with the latest version */
    switch (sel & 7) {
    case 0:
        memfs_add(&m, V0, file, n);
        expect_version = 0;
        break;
    case 1:
        memfs_add(&m, V0, commit0, sizeof commit0 - 1);
        memfs_add(&m, V1, file, n);
        expect_version = 1;
        break;
    case 2:
        memfs_add(&m, V0, commit0, sizeof commit0 - 1);
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        memfs_add(&m, LOG "_last_checkpoint", file, n);
        expect_version = 1;
        break;
    case 3:
        memfs_add(&m, V0, file, n);
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        expect_version = 1;
        break;
    case 4:
        memfs_add(&m, V0, commit0, sizeof commit0 - 1);
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        memfs_add(&m, LOG "00000000000000000001.checkpoint.parquet", file, n);
        expect_version = 1;
        break;
    case 5:
        memfs_add(&m, V0, commit0, sizeof commit0 - 1);
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        memfs_add(&m, LOG "00000000000000000001.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
                  file, n);
        expect_version = 1;
        break;
    case 6:
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        memfs_add(&m, LOG "00000000000000000001.checkpoint.parquet", file, n);
        memfs_add(&m, LOG "_last_checkpoint", last_checkpoint1, sizeof last_checkpoint1 - 1);
        expect_version = 1;
        break;
    case 7: {
        int k = snprintf(v2ckpt, sizeof v2ckpt,
                         "{\"checkpointMetadata\":{\"version\":1}}\n"
                         "{\"sidecar\":{\"path\":\"s.parquet\",\"sizeInBytes\":%zu,\"modificationTime\":1}}\n"
                         "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
                         "\"readerFeatures\":[\"v2Checkpoint\"],\"writerFeatures\":[\"v2Checkpoint\"]}}\n",
                         n);
        /* the metaData line of commit 0 */
        const char *md = strstr(commit0, "{\"metaData\"");
        const char *md_end = strchr(md, '\n');
        if (k < 0 || (size_t)k + (size_t)(md_end - md) + 2 > sizeof v2ckpt) abort();
        memcpy(v2ckpt + k, md, (size_t)(md_end - md) + 1);
        v2ckpt[k + (md_end - md) + 1] = 0;
        memfs_add(&m, V1, commit1, sizeof commit1 - 1);
        memfs_add(&m, LOG "00000000000000000001.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
                  v2ckpt, strlen(v2ckpt));
        memfs_add(&m, LOG "_sidecars/s.parquet", file, n);
        expect_version = 1;
        break;
    }
    }
    tn_delta_open_options o = TN_DELTA_OPEN_OPTIONS_INIT;
    switch ((sel >> 3) & 3) {
    case 0: break;
    case 1: o.at_version = 0; expect_version = 0; break;
    case 2: o.use_checkpoints = false; break;
    case 3: o.check_protocol = false; o.has_at_timestamp = true; o.at_timestamp_ms = 1500; expect_version = -1; break;
    }

    tn_delta_snapshot *s = NULL;
    int rc = tn_delta_snapshot_open(&s, &m.fs, "t", &o);
    memfs_check_closed(&m, "fuzz_delta_snapshot");
    if (rc == 0) {
        if (!s) fail("success without a snapshot");
        if (expect_version >= 0 && s->version != expect_version) {
            fprintf(stderr, "fuzz_delta_snapshot: opened version %lld, expected %lld\n",
                    (long long)s->version, (long long)expect_version);
            abort();
        }
        walk(s, &m);
        memfs_check_closed(&m, "fuzz_delta_snapshot");
        tn_delta_snapshot_free(s);
    } else if (s) {
        fail("an error left a snapshot");
    } else if (tn_error_message()[0] == 0) {
        fail("an error without a message");
    }
    tn_error_clear();

    /* The other entry points over the same log. */
    int64_t latest = -1;
    if (tn_delta_latest_version(&m.fs, "t", &latest) == 0 && latest >= 0) {
        tn_arena *arena = tn_arena_create(0);
        tn_delta_action *acts = NULL;
        uint32_t nacts = 0;
        if (arena) (void)tn_delta_read_commit(&m.fs, "t", latest, arena, &acts, &nacts);
        tn_arena_destroy(arena);
    }
    memfs_check_closed(&m, "fuzz_delta_snapshot");
    tn_error_clear();
    free(file);
    return 0;
}
