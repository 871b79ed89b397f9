/*
 * cli/demo_cmd.c: `tarn demo [-w DIR]`, the quick-start job: writes <warehouse>/demo/
 * flights.parquet, either by copying the shared 3M-row flights dataset through tarn's reader
 * and writer (ZSTD) or, when the dataset is absent, from 100,000 synthetic flight rows (fixed
 * seed), and prints the schema, rows, sizes, compression ratio and time; then loads it into
 * the Delta table demo.flights with SQL (through the public API) and queries it. Idempotent:
 * the file is written under a temporary name and renamed over the previous output, and the
 * table is dropped and created again.
 */
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tarn.h"

#define DEMO_SYNTHETIC_ROWS 100000
#define DEMO_DATASET "tests/data/datasets/flights-3m.parquet"

/* Finds the flights dataset the repository carries: $TARN_DEMO_DATA when it is set (only
 * there: a path to a Parquet file, or a missing one for the synthetic flights), else
 * tests/data/... under the working directory (the repository root), then under the directory
 * above the tarn binary (build/tarn). Returns a malloc'ed path or NULL. */
static char *find_dataset(void) {
    char cand[2][PATH_MAX];
    int n = 0;
    const char *given = getenv("TARN_DEMO_DATA");
    if (given && *given) {                        /* an explicit setting is the only place */
        char real[PATH_MAX];
        if (access(given, R_OK) != 0) return NULL;
        return tn_strdup(realpath(given, real) ? real : given);
    }
    snprintf(cand[n++], PATH_MAX, "%s", DEMO_DATASET);
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        snprintf(cand[n++], PATH_MAX, "%s/../%s", dirname(exe), DEMO_DATASET);
    }
    for (int i = 0; i < n; i++) {
        char real[PATH_MAX];
        if (access(cand[i], R_OK) == 0) return tn_strdup(realpath(cand[i], real) ? real : cand[i]);
    }
    return NULL;
}

/* Prints a result as an aligned text table (values spelled as DuckDB spells them). */
static void print_result(tarn_result *r) {
    uint32_t ncols = tarn_result_column_count(r);
    enum { MAXC = 8, MAXR = 32, W = 64 };
    char cells[MAXR + 1][MAXC][W];
    size_t width[MAXC] = {0};
    uint32_t nrows = 0;
    if (ncols > MAXC) ncols = MAXC;
    for (uint32_t c = 0; c < ncols; c++) snprintf(cells[0][c], W, "%s", tarn_result_column_name(r, c));
    uint32_t n;
    while (nrows < MAXR && (n = tarn_result_next_chunk(r)) > 0)
        for (uint32_t row = 0; row < n && nrows < MAXR; row++, nrows++)
            for (uint32_t c = 0; c < ncols; c++)
                if (tarn_result_value_text(r, c, row, cells[nrows + 1][c], W) == 1)
                    snprintf(cells[nrows + 1][c], W, "NULL");
    for (uint32_t i = 0; i <= nrows; i++)
        for (uint32_t c = 0; c < ncols; c++)
            if (strlen(cells[i][c]) > width[c]) width[c] = strlen(cells[i][c]);
    for (uint32_t i = 0; i <= nrows; i++) {
        for (uint32_t c = 0; c < ncols; c++)
            printf("  %-*s", c + 1 < ncols ? (int)width[c] : 0, cells[i][c]);
        printf("\n");
        if (i == 0) {
            for (uint32_t c = 0; c < ncols; c++) {
                printf("  ");
                for (size_t k = 0; k < width[c]; k++) putchar('-');
            }
            printf("\n");
        }
    }
}

/* Loads the Parquet file into the Delta table demo.flights and runs a query on it. */
static int load_and_query(const char *warehouse, const char *parquet_path) {
    tarn_db *db = NULL;
    tarn_result *res = NULL;
    char sql[PATH_MAX + 256];
    int rc = tarn_open(warehouse, &db);
    if (rc) goto cleanup;
    uint64_t t0 = tn_time_ns();
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS demo.flights;"
             "CREATE TABLE demo.flights AS SELECT * FROM read_parquet('%s')", parquet_path);
    rc = tarn_query(db, sql, NULL);
    if (rc) goto cleanup;
    printf("\ntable demo.flights (Delta Lake, in %s/demo/flights): loaded in %.2f s\n", warehouse,
           (double)(tn_time_ns() - t0) / 1e9);
    static const char query[] =
        "SELECT origin, count(*) AS flights, round(avg(delay), 2) AS avg_delay, "
        "max(distance) AS max_distance FROM demo.flights GROUP BY origin "
        "ORDER BY flights DESC LIMIT 5";
    printf("\n%s;\n\n", query);
    t0 = tn_time_ns();
    rc = tarn_query(db, query, &res);
    if (rc) goto cleanup;
    double ms = (double)(tn_time_ns() - t0) / 1e6;
    print_result(res);
    printf("(%.1f ms)\n", ms);
cleanup:
    if (rc) fprintf(stderr, "tarn: demo: %s\n", tarn_last_error());
    tarn_result_free(res);
    tarn_close(db);
    return rc ? TN_CLI_ERROR : TN_CLI_OK;
}

static uint64_t rng_next(uint64_t *s) {           /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* Writes DEMO_SYNTHETIC_ROWS synthetic flights to out_path (via a temporary name).
 * *raw_bytes = the size of the values in memory (8 bytes per number + string bytes). */
static int write_synthetic(const char *out_path, tn_cli_copy_result *res, uint64_t *raw_bytes) {
    static const char *airports[] = {"ATL", "ORD", "DFW", "LAX", "DEN", "PHX", "IAH", "LAS",
                                     "DTW", "MSP", "SFO", "EWR", "STL", "BOS", "CLT", "SEA",
                                     "MCO", "PHL", "LGA", "BWI", "SLC", "MIA", "CVG", "PIT",
                                     "SAN", "TPA", "MDW", "DCA", "OAK", "HOU"};
    const uint32_t nairports = sizeof airports / sizeof airports[0];
    static const char *names[] = {"date", "delay", "distance", "origin", "destination"};
    tn_type types[5] = {tn_type_make(TN_TYPE_TIMESTAMP), tn_type_make(TN_TYPE_BIGINT),
                        tn_type_make(TN_TYPE_BIGINT), tn_type_make(TN_TYPE_VARCHAR),
                        tn_type_make(TN_TYPE_VARCHAR)};
    tn_parquet_column_spec specs[5];
    for (int i = 0; i < 5; i++) {
        specs[i].name = names[i];
        specs[i].type = types[i];
        specs[i].nullable = true;
        specs[i].field_id = -1;
    }
    tn_fs *fs = tn_fs_default();
    char *tmp = tn_cli_tmp_name(out_path);
    tn_parquet_writer *w = NULL;
    tn_chunk chunk = {0, 0, NULL};
    bool chunk_ok = false;
    tn_parquet_write_result result = {0};
    tn_parquet_writer_options opts = TN_PARQUET_WRITER_OPTIONS_INIT;
    uint64_t seed = 0x7461726eULL;          /* "tarn" */
    int64_t base_us = (int64_t)tn_days_from_civil(2001, 1, 1) * 86400 * 1000000;
    int rc = 0;
    *raw_bytes = 0;
    if (tmp == NULL) { rc = TN_ENOMEM; goto cleanup; }
    (void)fs->unlink(fs, tmp);
    tn_error_clear();
    if ((rc = tn_parquet_writer_open(&w, fs, tmp, specs, 5, &opts)) != 0) goto cleanup;
    if ((rc = tn_chunk_init(&chunk, 5, types, TN_VECTOR_SIZE)) != 0) goto cleanup;
    chunk_ok = true;
    for (uint32_t done = 0; done < DEMO_SYNTHETIC_ROWS;) {
        uint32_t n = DEMO_SYNTHETIC_ROWS - done;
        if (n > TN_VECTOR_SIZE) n = TN_VECTOR_SIZE;
        tn_chunk_reset(&chunk);
        int64_t *date = chunk.cols[0].data, *delay = chunk.cols[1].data, *dist = chunk.cols[2].data;
        for (uint32_t r = 0; r < n; r++) {
            /* Flights ordered by time over the first half of 2001, one every ~2.6 minutes. */
            uint64_t row = done + r;
            date[r] = base_us + (int64_t)(row * 156 + rng_next(&seed) % 60) * 1000000;
            uint64_t x = rng_next(&seed);
            delay[r] = (x % 4 == 0) ? (int64_t)(x % 240) - 10 : (int64_t)(x % 25) - 12;
            uint32_t o = (uint32_t)(rng_next(&seed) % nairports);
            uint32_t d = (uint32_t)((o + 1 + rng_next(&seed) % (nairports - 1)) % nairports);
            dist[r] = 150 + (int64_t)((o * 97 + d * 61) % 2400);
            if ((rc = tn_vector_set_str(&chunk.cols[3], r, airports[o], 3)) != 0) goto cleanup;
            if ((rc = tn_vector_set_str(&chunk.cols[4], r, airports[d], 3)) != 0) goto cleanup;
            *raw_bytes += 3 * 8 + 3 + 3;
        }
        for (int c = 0; c < 5; c++) chunk.cols[c].count = n;
        chunk.count = n;
        if ((rc = tn_parquet_writer_write(w, &chunk)) != 0) goto cleanup;
        done += n;
    }
    rc = tn_parquet_writer_close(w, &result);
    w = NULL;
    if (rc != 0) goto cleanup;
    if ((rc = fs->rename(fs, tmp, out_path)) != 0) {
        tn_error_state saved;
        tn_error_save(&saved);
        (void)fs->unlink(fs, tmp);
        tn_error_restore(&saved);
        goto cleanup;
    }
    res->rows = result.num_rows;
    res->bytes_out = result.file_bytes;
cleanup:
    if (w) tn_parquet_writer_abort(w);
    if (chunk_ok) tn_chunk_free(&chunk);
    tn_parquet_write_result_free(&result);
    tn_free(tmp);
    return rc;
}

int tn_cli_demo(int argc, char **argv, const char *warehouse) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) {
            warehouse = argv[++i];
        } else {
            fprintf(stderr, "tarn: demo: unexpected argument '%s'\nusage: tarn demo [-w DIR]\n",
                    argv[i]);
            return TN_CLI_USAGE;
        }
    }
    if (warehouse == NULL) warehouse = getenv("TARN_WAREHOUSE");
    if (warehouse == NULL || *warehouse == '\0') warehouse = "./warehouse";

    tn_fs *fs = tn_fs_default();
    char dir[PATH_MAX], out_path[PATH_MAX + 32];
    if (strlen(warehouse) > PATH_MAX - 16) {
        fprintf(stderr, "tarn: demo: warehouse path too long\n");
        return TN_CLI_USAGE;
    }
    snprintf(dir, sizeof dir, "%s/demo", warehouse);
    snprintf(out_path, sizeof out_path, "%s/flights.parquet", dir);
    char *dataset = find_dataset();
    tn_parquet_file *in = NULL, *check = NULL;
    tn_cli_copy_result res = {0, 0};
    uint64_t in_bytes = 0;
    int rc = TN_CLI_OK;
    uint64_t t0 = tn_time_ns();
    tn_error_clear();
    if (fs->mkdir_p(fs, dir) != 0) { rc = tn_cli_fail(dir); goto cleanup; }
    if (dataset != NULL) {
        tn_parquet_writer_options opts = TN_PARQUET_WRITER_OPTIONS_INIT;
        opts.codec = TN_CODEC_ZSTD;
        if (tn_parquet_open(&in, fs, dataset, NULL) != 0) { rc = tn_cli_fail(dataset); goto cleanup; }
        in_bytes = tn_parquet_file_size(in);
        if (tn_cli_copy_parquet(in, out_path, &opts, &res) != 0) {
            rc = tn_cli_fail(out_path);
            goto cleanup;
        }
    } else if (write_synthetic(out_path, &res, &in_bytes) != 0) {
        rc = tn_cli_fail(out_path);
        goto cleanup;
    }
    double secs = (double)(tn_time_ns() - t0) / 1e9;
    if (tn_parquet_open(&check, fs, out_path, NULL) != 0) { rc = tn_cli_fail(out_path); goto cleanup; }
    printf("tarn demo: wrote %s\n", out_path);
    if (dataset != NULL)
        printf("source: %s (%" PRIu64 " bytes), copied through tarn's reader and writer (ZSTD)\n",
               dataset, in_bytes);
    else
        printf("source: %d synthetic flights (fixed seed; %s not found)\n", DEMO_SYNTHETIC_ROWS,
               DEMO_DATASET);
    printf("\nschema:\n");
    tn_cli_print_schema(stdout, check);
    printf("\nrows:        %" PRId64 "\n", res.rows);
    printf("%-12s %" PRIu64 " bytes\n", dataset ? "input file:" : "raw values:", in_bytes);
    printf("output file: %" PRIu64 " bytes\n", res.bytes_out);
    printf("compression: %.2fx %s\n", res.bytes_out ? (double)in_bytes / (double)res.bytes_out : 0.0,
           dataset ? "(input file / output file)" : "(raw values / output file)");
    printf("time:        %.2f s\n", secs);
    char abs_path[PATH_MAX];
    rc = load_and_query(warehouse, realpath(out_path, abs_path) ? abs_path : out_path);
cleanup:
    if (check) tn_parquet_close(check);
    if (in) tn_parquet_close(in);
    tn_free(dataset);
    return rc;
}
