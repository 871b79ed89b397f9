/*
 * cli/parquet_cmd.c: `tarn parquet schema|meta|cat|copy`: inspect a Parquet file, print its rows
 * as CSV (DuckDB's text spelling), or rewrite it through tarn's reader and writer. Also the
 * helpers shared with `tarn demo` (CSV fields, the copy loop, schema printing). Uses only the
 * public parquet/types/base interfaces.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const char parquet_usage[] =
    "usage: tarn parquet schema FILE\n"
    "       tarn parquet meta FILE\n"
    "       tarn parquet cat [--csv] [--columns a,b] [--limit N] FILE\n"
    "       tarn parquet copy IN OUT [--codec C] [--row-group-rows N] [--page-rows N]\n"
    "                                [--no-dictionary] [--no-page-index]\n";

static int parquet_usage_error(const char *fmt, const char *arg) {
    fputs("tarn: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs(parquet_usage, stderr);
    return TN_CLI_USAGE;
}

/* ---------------------------------------------------------------------------------------------
 * Shared helpers.
 */
int tn_cli_csv_field(tn_buf *out, const char *s, size_t n) {
    bool quote = (n == 0);
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n') quote = true;
    if (!quote) return tn_buf_append(out, s, n);
    int rc = tn_buf_reserve(out, n + 2);
    if (rc != 0) return rc;
    out->data[out->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' && (rc = tn_buf_append_byte(out, '"')) != 0) return rc;
        if ((rc = tn_buf_append_byte(out, (uint8_t)s[i])) != 0) return rc;
    }
    return tn_buf_append_byte(out, '"');
}

char *tn_cli_tmp_name(const char *path) { return tn_fs_temp_name(path); }

void tn_cli_print_schema(FILE *out, const tn_parquet_file *file) {
    tn_buf buf = TN_BUF_INIT;
    if (tn_parquet_describe_schema(file, &buf) == 0) fwrite(buf.data, 1, buf.len, out);
    else tn_error_clear();
    tn_buf_free(&buf);
}

int tn_cli_copy_parquet(tn_parquet_file *in, const char *out_path,
                        const tn_parquet_writer_options *wopts, tn_cli_copy_result *out) {
    tn_fs *fs = tn_fs_default();
    uint32_t ncols = tn_parquet_num_columns(in);
    uint32_t nkv = tn_parquet_kv_count(in);
    tn_parquet_column_spec *specs = tn_calloc(ncols ? ncols : 1, sizeof *specs);
    uint32_t *cols = tn_calloc(ncols ? ncols : 1, sizeof *cols);
    tn_type *types = tn_calloc(ncols ? ncols : 1, sizeof *types);
    tn_parquet_kv_pair *kv = tn_calloc(nkv ? nkv : 1, sizeof *kv);
    char *tmp = tn_cli_tmp_name(out_path);
    tn_parquet_writer *w = NULL;
    tn_parquet_scan *scan = NULL;
    tn_chunk chunk = {0, 0, NULL};
    bool chunk_ok = false, tmp_written = false;
    tn_parquet_write_result result = {0};
    int rc = 0;
    if (!specs || !cols || !types || !kv || !tmp) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < ncols; i++) {
        const tn_parquet_column_info *c = tn_parquet_column(in, i);
        specs[i].name = c->name;
        specs[i].type = c->type;
        specs[i].nullable = c->nullable;
        specs[i].field_id = c->field_id;
        cols[i] = i;
        types[i] = c->type;
    }
    for (uint32_t i = 0; i < nkv; i++) tn_parquet_kv(in, i, &kv[i].key, &kv[i].value);
    tn_parquet_writer_options opts = *wopts;
    opts.kv = kv;
    opts.nkv = nkv;

    /* temp files killed runs left for this output go first (their pids no longer run) */
    if (tn_fs_temp_cleanup(fs, out_path, NULL) != 0) tn_error_clear();
    tn_fs_temp_track(tmp);                /* SIGINT/SIGTERM remove it (cli/main.c) */
    if ((rc = tn_parquet_writer_open(&w, fs, tmp, specs, ncols, &opts)) != 0) goto cleanup;
    tmp_written = true;
    tn_parquet_scan_options so = {cols, ncols, NULL, 0, NULL, 0, NULL};
    if ((rc = tn_parquet_scan_open(&scan, in, &so)) != 0) goto cleanup;
    if ((rc = tn_chunk_init(&chunk, ncols, types, TN_VECTOR_SIZE)) != 0) goto cleanup;
    chunk_ok = true;
    for (;;) {
        tn_chunk_reset(&chunk);
        if ((rc = tn_parquet_scan_next(scan, &chunk, NULL)) != 0) goto cleanup;
        if (chunk.count == 0) break;
        if ((rc = tn_parquet_writer_write(w, &chunk)) != 0) goto cleanup;
    }
    tn_parquet_scan_close(scan);
    scan = NULL;
    rc = tn_parquet_writer_close(w, &result);
    w = NULL;
    if (rc != 0) { tmp_written = false; goto cleanup; }   /* the writer removed it */
    if ((rc = fs->rename(fs, tmp, out_path)) != 0) goto cleanup;
    tmp_written = false;
    if (out) {
        out->rows = result.num_rows;
        out->bytes_out = result.file_bytes;
    }
cleanup:
    if (scan) tn_parquet_scan_close(scan);
    if (w) { tn_parquet_writer_abort(w); tmp_written = false; }
    if (tmp_written) {
        tn_error_state saved;
        tn_error_save(&saved);
        (void)fs->unlink(fs, tmp);
        tn_error_restore(&saved);
    }
    tn_fs_temp_untrack(tmp);
    if (chunk_ok) tn_chunk_free(&chunk);
    tn_parquet_write_result_free(&result);
    tn_free(specs);
    tn_free(cols);
    tn_free(types);
    tn_free(kv);
    tn_free(tmp);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Subcommands.
 */
static int open_file(tn_parquet_file **out, const char *path, bool metadata_only) {
    tn_error_clear();
    tn_parquet_open_options opts = TN_PARQUET_OPEN_OPTIONS_INIT;
    opts.metadata_only = metadata_only;   /* schema/meta describe nested files too */
    if (tn_parquet_open(out, tn_fs_default(), path, &opts) != 0) return tn_cli_fail(path);
    return TN_CLI_OK;
}

static int cmd_schema(const char *path) {
    tn_parquet_file *f = NULL;
    int rc = open_file(&f, path, true);
    if (rc != 0) return rc;
    tn_cli_print_schema(stdout, f);
    tn_parquet_close(f);
    return TN_CLI_OK;
}

static int cmd_meta(const char *path) {
    tn_parquet_file *f = NULL;
    tn_buf buf = TN_BUF_INIT;
    int rc = open_file(&f, path, true);
    if (rc != 0) return rc;
    if (tn_parquet_describe(f, &buf) != 0) {
        rc = tn_cli_fail(path);
    } else {
        fwrite(buf.data, 1, buf.len, stdout);
        if (buf.len > 0 && buf.data[buf.len - 1] != '\n') fputc('\n', stdout);
    }
    tn_buf_free(&buf);
    tn_parquet_close(f);
    return rc;
}

/* Parses a non-negative decimal integer; false when malformed. */
static bool parse_count(const char *s, uint64_t *out) {
    if (s == NULL || *s < '0' || *s > '9') return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return false;
    *out = v;
    return true;
}

/* Resolves a comma-separated list of column names into file column indexes. */
static int resolve_columns(const tn_parquet_file *f, const char *path, const char *list,
                           uint32_t **out, uint32_t *nout) {
    uint32_t n = tn_parquet_num_columns(f);
    if (list == NULL) {
        *out = tn_calloc(n ? n : 1, sizeof **out);
        if (*out == NULL) return tn_cli_fail(path);
        for (uint32_t i = 0; i < n; i++) (*out)[i] = i;
        *nout = n;
        return TN_CLI_OK;
    }
    size_t cap = 1;
    for (const char *p = list; *p; p++) cap += (*p == ',');
    uint32_t *idx = tn_calloc(cap, sizeof *idx);
    if (idx == NULL) return tn_cli_fail(path);
    uint32_t k = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        uint32_t found = UINT32_MAX;
        for (uint32_t i = 0; i < n && found == UINT32_MAX; i++) {
            const char *name = tn_parquet_column(f, i)->name;
            if (strlen(name) == len && memcmp(name, p, len) == 0) found = i;
        }
        if (found == UINT32_MAX) {
            tn_free(idx);
            return tn_cli_errorf(TN_CLI_ERROR, "%s: no column named '%.*s'", path, (int)len, p);
        }
        idx[k++] = found;
        if (!comma) break;
        p = comma + 1;
    }
    *out = idx;
    *nout = k;
    return TN_CLI_OK;
}

static int cmd_cat(int argc, char **argv) {
    const char *path = NULL, *columns = NULL;
    uint64_t limit = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--csv") == 0) {
            /* CSV is also the default for now. */
        } else if (strcmp(a, "--columns") == 0 || strcmp(a, "--limit") == 0) {
            if (i + 1 >= argc) return parquet_usage_error("option %s needs an argument", a);
            if (a[2] == 'c') columns = argv[++i];
            else if (!parse_count(argv[++i], &limit))
                return parquet_usage_error("bad --limit '%s'", argv[i]);
        } else if (a[0] == '-' && a[1] != '\0') {
            return parquet_usage_error("unknown option %s", a);
        } else if (path == NULL) {
            path = a;
        } else {
            return parquet_usage_error("unexpected argument '%s'", a);
        }
    }
    if (path == NULL) return parquet_usage_error("%s", "cat: missing FILE");

    tn_parquet_file *f = NULL;
    tn_parquet_scan *scan = NULL;
    uint32_t *cols = NULL, ncols = 0;
    tn_type *types = NULL;
    tn_chunk chunk = {0, 0, NULL};
    bool chunk_ok = false;
    tn_buf out = TN_BUF_INIT, field = TN_BUF_INIT;
    uint64_t printed = 0;
    int rc = open_file(&f, path, false);
    if (rc != 0) return rc;
    if ((rc = resolve_columns(f, path, columns, &cols, &ncols)) != 0) goto cleanup;
    types = tn_calloc(ncols ? ncols : 1, sizeof *types);
    if (types == NULL) { rc = tn_cli_fail(path); goto cleanup; }
    for (uint32_t i = 0; i < ncols; i++) {
        const char *name = tn_parquet_column(f, cols[i])->name;
        types[i] = tn_parquet_column(f, cols[i])->type;
        if (i > 0) tn_buf_append_byte(&out, ',');
        tn_cli_csv_field(&out, name, strlen(name));
    }
    tn_buf_append_byte(&out, '\n');
    tn_parquet_scan_options so = {cols, ncols, NULL, 0, NULL, 0, NULL};
    if (tn_parquet_scan_open(&scan, f, &so) != 0) { rc = tn_cli_fail(path); goto cleanup; }
    if (tn_chunk_init(&chunk, ncols, types, TN_VECTOR_SIZE) != 0) {
        rc = tn_cli_fail(path);
        goto cleanup;
    }
    chunk_ok = true;
    while (printed < limit) {
        tn_chunk_reset(&chunk);
        if (tn_parquet_scan_next(scan, &chunk, NULL) != 0) { rc = tn_cli_fail(path); break; }
        if (chunk.count == 0) break;
        uint32_t nrows = chunk.count;
        if ((uint64_t)nrows > limit - printed) nrows = (uint32_t)(limit - printed);
        for (uint32_t r = 0; r < nrows && rc == 0; r++) {
            for (uint32_t c = 0; c < ncols; c++) {
                if (c > 0) tn_buf_append_byte(&out, ',');
                tn_buf_clear(&field);
                int frc = tn_value_format(&field, &chunk.cols[c], r);
                if (frc < 0) { rc = tn_cli_fail(path); break; }
                if (frc == 1) continue;                   /* NULL: empty unquoted field */
                tn_cli_csv_field(&out, (const char *)field.data, field.len);
            }
            if (tn_buf_append_byte(&out, '\n') != 0 && rc == 0) rc = tn_cli_fail(path);
        }
        printed += nrows;
        if (out.len >= (1u << 16)) {
            fwrite(out.data, 1, out.len, stdout);
            tn_buf_clear(&out);
        }
        if (rc != 0) break;
    }
cleanup:
    tn_buf_free(&field);
    if (out.len > 0) fwrite(out.data, 1, out.len, stdout);
    fflush(stdout);
    tn_buf_free(&out);
    if (chunk_ok) tn_chunk_free(&chunk);
    if (scan) tn_parquet_scan_close(scan);
    tn_free(types);
    tn_free(cols);
    tn_parquet_close(f);
    return rc;
}

static int cmd_copy(int argc, char **argv) {
    const char *in_path = NULL, *out_path = NULL;
    tn_parquet_writer_options wopts = TN_PARQUET_WRITER_OPTIONS_INIT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--codec") == 0 || strcmp(a, "--row-group-rows") == 0 ||
            strcmp(a, "--page-rows") == 0) {
            if (i + 1 >= argc) return parquet_usage_error("option %s needs an argument", a);
            const char *v = argv[++i];
            uint64_t n = 0;
            if (strcmp(a, "--codec") == 0) {
                tn_parquet_codec codec;
                if (tn_str_iequal(v, "none")) codec = TN_CODEC_UNCOMPRESSED;
                else if (tn_parquet_codec_parse(v, &codec) != 0)
                    return parquet_usage_error("unknown codec '%s' (zstd, snappy, gzip, lz4_raw, brotli, none)", v);
                wopts.codec = codec;
            } else if (!parse_count(v, &n) || n == 0 || (a[2] == 'p' && n > UINT32_MAX)) {
                return parquet_usage_error("bad number '%s'", v);
            } else if (a[2] == 'p') {
                wopts.page_rows = (uint32_t)n;
            } else {
                wopts.row_group_rows = n;
            }
        } else if (strcmp(a, "--no-dictionary") == 0) {
            wopts.dictionary = false;
        } else if (strcmp(a, "--no-page-index") == 0) {
            wopts.page_index = false;
        } else if (a[0] == '-' && a[1] != '\0') {
            return parquet_usage_error("unknown option %s", a);
        } else if (in_path == NULL) {
            in_path = a;
        } else if (out_path == NULL) {
            out_path = a;
        } else {
            return parquet_usage_error("unexpected argument '%s'", a);
        }
    }
    if (in_path == NULL || out_path == NULL) return parquet_usage_error("%s", "copy: need IN and OUT");

    tn_parquet_file *f = NULL;
    int rc = open_file(&f, in_path, false);
    if (rc != 0) return rc;
    uint64_t t0 = tn_time_ns();
    tn_cli_copy_result res = {0, 0};
    if (tn_cli_copy_parquet(f, out_path, &wopts, &res) != 0) {
        rc = tn_cli_fail(out_path);
    } else {
        double secs = (double)(tn_time_ns() - t0) / 1e9;
        uint64_t in_bytes = tn_parquet_file_size(f);
        fprintf(stderr, "copied %" PRId64 " rows: %" PRIu64 " bytes in, %" PRIu64
                " bytes out (%s), %.2f s\n", res.rows, in_bytes, res.bytes_out,
                tn_parquet_codec_name(wopts.codec), secs);
    }
    tn_parquet_close(f);
    return rc;
}

int tn_cli_parquet(int argc, char **argv) {
    if (argc < 2) return parquet_usage_error("%s", "parquet: missing subcommand");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        fputs(parquet_usage, stdout);
        return TN_CLI_OK;
    }
    if (strcmp(sub, "schema") == 0 || strcmp(sub, "meta") == 0) {
        if (argc != 3 || (argv[2][0] == '-' && argv[2][1] != '\0'))
            return parquet_usage_error("%s: expects exactly one FILE", sub);
        return sub[0] == 's' ? cmd_schema(argv[2]) : cmd_meta(argv[2]);
    }
    if (strcmp(sub, "cat") == 0) return cmd_cat(argc - 1, argv + 1);
    if (strcmp(sub, "copy") == 0) return cmd_copy(argc - 1, argv + 1);
    return parquet_usage_error("parquet: unknown subcommand '%s'", sub);
}
