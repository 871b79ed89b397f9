/*
 * tests/fuzz/fuzz_parquet_reader.c: libFuzzer target for the whole Parquet read path: the input
 * bytes are served as a file by the in-memory tn_fs of memfs.h; the target opens it, walks the
 * metadata (schema, statistics, describe, row-group skipping) and scans every column to the end;
 * then again opened with metadata_only (nested schemas accepted, scans refused), where every
 * nested leaf is decoded (scan_nested.c) and assembled into records (nested.c).
 * Errors are expected; crashes, hangs, leaks and out-of-bounds reads are bugs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memfs.h"
#include "parquet/nestedInt.h"
#include "parquet/scanInt.h"

#define MEM_PATH "fuzz.parquet"

static void exercise_file(tn_parquet_file *f) {
    uint32_t ncols = tn_parquet_num_columns(f);
    uint32_t nrg = tn_parquet_num_row_groups(f);
    tn_buf buf = TN_BUF_INIT;
    (void)tn_parquet_describe(f, &buf);
    (void)tn_parquet_describe_schema(f, &buf);
    for (uint32_t i = 0; i < tn_parquet_kv_count(f); i++) {
        const char *k = NULL, *v = NULL;
        tn_parquet_kv(f, i, &k, &v);
        if (k) tn_buf_append(&buf, k, strlen(k));
        if (v) tn_buf_append(&buf, v, strlen(v));
    }
    tn_buf_free(&buf);

    uint32_t *cols = calloc(ncols ? ncols : 1, sizeof *cols);
    tn_type *types = calloc(ncols ? ncols : 1, sizeof *types);
    if (!cols || !types) goto cleanup;
    for (uint32_t c = 0; c < ncols; c++) {
        const tn_parquet_column_info *info = tn_parquet_column(f, c);
        cols[c] = c;
        types[c] = info->type;
        char tbuf[64];
        tn_type_format(info->type, tbuf, sizeof tbuf);
    }
    /* Statistics of every chunk, and skipping with an IS NOT NULL / >= min predicate. */
    for (uint32_t rg = 0; rg < nrg && rg < 64; rg++) {
        (void)tn_parquet_row_group_num_rows(f, rg);
        for (uint32_t c = 0; c < ncols && c < 64; c++) {
            tn_parquet_stats st;
            if (tn_parquet_column_stats(f, rg, c, &st) != 0) continue;
            tn_parquet_predicate pred;
            memset(&pred, 0, sizeof pred);
            pred.column = c;
            pred.op = TN_PQ_IS_NOT_NULL;
            pred.constant.type = types[c];
            pred.constant.is_null = true;
            (void)tn_parquet_row_group_may_match(f, rg, &pred, 1);
            if (st.has_min_max) {
                tn_buf t = TN_BUF_INIT;
                (void)tn_value_to_text(&t, &st.min);
                (void)tn_value_to_text(&t, &st.max);
                tn_buf_free(&t);
                pred.op = TN_PQ_GE;
                pred.constant = st.min;
                (void)tn_parquet_row_group_may_match(f, rg, &pred, 1);
            }
        }
    }

    /* Scan every column to the end, formatting each value (as `tarn parquet cat` does). */
    tn_parquet_scan *scan = NULL;
    tn_parquet_scan_options so = {cols, ncols, NULL, 0, NULL, 0, NULL};
    if (tn_parquet_scan_open(&scan, f, &so) == 0) {
        tn_chunk chunk;
        if (tn_chunk_init(&chunk, ncols, types, TN_VECTOR_SIZE) == 0) {
            tn_buf text = TN_BUF_INIT;
            for (int guard = 0; guard < 1 << 20; guard++) {
                tn_chunk_reset(&chunk);
                if (tn_parquet_scan_next(scan, &chunk, NULL) != 0 || chunk.count == 0) break;
                for (uint32_t c = 0; c < ncols; c++)
                    for (uint32_t r = 0; r < chunk.count; r++) {
                        tn_buf_clear(&text);
                        (void)tn_value_format(&text, &chunk.cols[c], r);
                    }
            }
            tn_buf_free(&text);
            tn_chunk_free(&chunk);
        }
        tn_parquet_scan_close(scan);
    }
cleanup:
    free(cols);
    free(types);
}

/* Nested leaves: each row group's chunks decoded, each column's tree built, each leaf assembled. */
static void exercise_nested(tn_parquet_file *f) {
    uint32_t ncols = tn_parquet_num_columns(f);
    const pq_file_meta *m = pq_rd_meta(f);
    uint32_t *cols = calloc(ncols ? ncols : 1, sizeof *cols);
    tn_arena *a = tn_arena_create(0);
    tn_parquet_scan *s = NULL;
    if (!cols || !a) goto cleanup;
    for (uint32_t c = 0; c < ncols; c++) cols[c] = c;
    tn_parquet_scan_options so = {cols, ncols, NULL, 0, NULL, 0, NULL};
    if (pq_sc_open(&s, f, &so) != 0) goto cleanup;
    for (uint32_t rg = 0; rg < tn_parquet_num_row_groups(f) && rg < 16; rg++) {
        if (pq_sc_row_group_begin(s, rg) != 0) continue;
        for (uint32_t e = 1; e < m->nschema; e++) {
            pq_nest *tree = NULL;
            if (pq_rd_node_at(f, e)->parent != 0) continue;
            if (pq_nest_build(&tree, a, m->schema, pq_rd_node_at(f, 0), m->nschema, e, "fuzz") != 0) continue;
            for (uint32_t c = 0; c < ncols; c++) {
                const pq_nest *path[PQ_MAX_SCHEMA_DEPTH + 1];
                uint32_t depth;
                pq_asm as;
                if (!s->cols[c].nested || !pq_nest_path(tree, (int32_t)c, path, &depth)) continue;
                (void)pq_levels_assemble(&as, a, path, depth, s->cols[c].rep, s->cols[c].def,
                                         s->cols[c].nlev);
            }
        }
        tn_arena_reset(a);
    }
cleanup:
    tn_parquet_scan_close(s);
    tn_arena_destroy(a);
    free(cols);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    memfs m;
    memfs_init(&m);
    memfs_add(&m, MEM_PATH, data, size);
    tn_parquet_open_options opts = TN_PARQUET_OPEN_OPTIONS_INIT;
    opts.max_page_bytes = (uint64_t)64 << 20;    /* keep within libFuzzer's RSS limit */
    tn_parquet_file *f = NULL;
    if (tn_parquet_open(&f, &m.fs, MEM_PATH, &opts) == 0) {
        exercise_file(f);
        tn_parquet_close(f);
    }
    /* `tarn parquet meta/schema` open nested files for their metadata (scans are refused) */
    opts.metadata_only = true;
    if (tn_parquet_open(&f, &m.fs, MEM_PATH, &opts) == 0) {
        exercise_file(f);
        exercise_nested(f);
        tn_parquet_close(f);
    }
    memfs_check_closed(&m, "fuzz_parquet_reader");
    tn_error_clear();
    return 0;
}
