/*
 * bench/parquet_bench.c: the Parquet reader/writer benchmark driven by bench/run.sh (which runs
 * DuckDB on the same file in the same run and reports ratios). Linked against libtarn.a.
 *   parquet_bench read FILE THREADS REPS   decode every column into vectors and compute
 *       min(date), max(delay), sum(distance), max(origin), max(destination) (the DuckDB query);
 *       THREADS = 1: one scan; 2+: each thread scans its own share of the row groups with its
 *       own file handle.
 *   parquet_bench write FILE OUT REPS      read every row into memory, then time only writing
 *       them to OUT (ZSTD, default options).
 * Prints "time_ms=..." per repetition, then "median_ms=... peak_rss_kb=..." and the results.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "parquet/parquet.h"

static void die(const char *what) {
    fprintf(stderr, "parquet_bench: %s: %s\n", what, tn_error_message());
    exit(1);
}

static long peak_rss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------------------------------- */
enum { C_DATE, C_DELAY, C_DISTANCE, C_ORIGIN, C_DEST, NCOLS };
static const char *col_names[NCOLS] = {"date", "delay", "distance", "origin", "destination"};

typedef struct agg {
    int64_t rows;
    bool has_date, has_delay, has_origin, has_dest;
    int64_t min_date, max_delay, sum_distance;
    char max_origin[256], max_dest[256];
    uint32_t max_origin_len, max_dest_len;
} agg;

typedef struct read_job {
    const char *path;
    uint32_t first_rg, nrg;
    agg result;
    int rc;
    tn_error_state err;
} read_job;

static void max_str(char *best, uint32_t *best_len, bool *has, tn_str s) {
    uint32_t n = s.len < 255 ? s.len : 255;
    int c = *has ? memcmp(s.ptr, best, n < *best_len ? n : *best_len) : 1;
    if (!*has || c > 0 || (c == 0 && n > *best_len)) {
        memcpy(best, s.ptr, n);
        *best_len = n;
        *has = true;
    }
}

static uint32_t find_column(tn_parquet_file *f, const char *name) {
    for (uint32_t i = 0; i < tn_parquet_num_columns(f); i++)
        if (strcmp(tn_parquet_column(f, i)->name, name) == 0) return i;
    fprintf(stderr, "parquet_bench: no column '%s'\n", name);
    exit(1);
}

static void *read_worker(void *arg) {
    read_job *job = arg;
    tn_parquet_file *f = NULL;
    tn_parquet_scan *scan = NULL;
    tn_chunk chunk;
    bool chunk_ok = false;
    uint32_t cols[NCOLS], rgs[4096];
    tn_type types[NCOLS];
    agg *a = &job->result;
    memset(a, 0, sizeof *a);
    job->rc = tn_parquet_open(&f, tn_fs_default(), job->path, NULL);
    if (job->rc != 0) goto cleanup;
    for (int c = 0; c < NCOLS; c++) {
        cols[c] = find_column(f, col_names[c]);
        types[c] = tn_parquet_column(f, cols[c])->type;
    }
    if (job->nrg > 4096) job->nrg = 4096;
    for (uint32_t i = 0; i < job->nrg; i++) rgs[i] = job->first_rg + i;
    tn_parquet_scan_options so = {cols, NCOLS, rgs, job->nrg, NULL, 0, NULL};
    if ((job->rc = tn_parquet_scan_open(&scan, f, &so)) != 0) goto cleanup;
    if ((job->rc = tn_chunk_init(&chunk, NCOLS, types, TN_VECTOR_SIZE)) != 0) goto cleanup;
    chunk_ok = true;
    for (;;) {
        tn_chunk_reset(&chunk);
        if ((job->rc = tn_parquet_scan_next(scan, &chunk, NULL)) != 0) goto cleanup;
        uint32_t n = chunk.count;
        if (n == 0) break;
        a->rows += n;
        const tn_vector *vd = &chunk.cols[C_DATE], *vdl = &chunk.cols[C_DELAY],
                        *vds = &chunk.cols[C_DISTANCE], *vo = &chunk.cols[C_ORIGIN],
                        *vde = &chunk.cols[C_DEST];
        const int64_t *date = vd->data, *delay = vdl->data, *dist = vds->data;
        const tn_str *origin = vo->data, *dest = vde->data;
        for (uint32_t r = 0; r < n; r++) {
            if (tn_vector_is_valid(vd, r) && (!a->has_date || date[r] < a->min_date)) {
                a->min_date = date[r];
                a->has_date = true;
            }
            if (tn_vector_is_valid(vdl, r) && (!a->has_delay || delay[r] > a->max_delay)) {
                a->max_delay = delay[r];
                a->has_delay = true;
            }
            if (tn_vector_is_valid(vds, r)) a->sum_distance += dist[r];
            if (tn_vector_is_valid(vo, r)) max_str(a->max_origin, &a->max_origin_len, &a->has_origin, origin[r]);
            if (tn_vector_is_valid(vde, r)) max_str(a->max_dest, &a->max_dest_len, &a->has_dest, dest[r]);
        }
    }
cleanup:
    if (job->rc != 0) tn_error_save(&job->err);
    if (chunk_ok) tn_chunk_free(&chunk);
    if (scan) tn_parquet_scan_close(scan);
    if (f) tn_parquet_close(f);
    return NULL;
}

static void merge(agg *into, const agg *a) {
    into->rows += a->rows;
    if (a->has_date && (!into->has_date || a->min_date < into->min_date)) {
        into->min_date = a->min_date;
        into->has_date = true;
    }
    if (a->has_delay && (!into->has_delay || a->max_delay > into->max_delay)) {
        into->max_delay = a->max_delay;
        into->has_delay = true;
    }
    into->sum_distance += a->sum_distance;
    if (a->has_origin) {
        tn_str s = {a->max_origin, a->max_origin_len};
        max_str(into->max_origin, &into->max_origin_len, &into->has_origin, s);
    }
    if (a->has_dest) {
        tn_str s = {a->max_dest, a->max_dest_len};
        max_str(into->max_dest, &into->max_dest_len, &into->has_dest, s);
    }
}

static int bench_read(const char *path, int threads, int reps) {
    tn_parquet_file *f = NULL;
    if (tn_parquet_open(&f, tn_fs_default(), path, NULL) != 0) die(path);
    uint32_t nrg = tn_parquet_num_row_groups(f);
    tn_parquet_close(f);
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if ((uint32_t)threads > nrg && nrg > 0) threads = (int)nrg;
    double *times = calloc((size_t)reps, sizeof *times);
    agg total;
    for (int rep = -1; rep < reps; rep++) {       /* rep -1: warm-up, not counted */
        read_job jobs[64];
        pthread_t tid[64];
        uint64_t t0 = tn_time_ns();
        for (int t = 0; t < threads; t++) {
            jobs[t].path = path;
            jobs[t].first_rg = (uint32_t)((uint64_t)nrg * (uint32_t)t / (uint32_t)threads);
            jobs[t].nrg = (uint32_t)((uint64_t)nrg * (uint32_t)(t + 1) / (uint32_t)threads) - jobs[t].first_rg;
            if (threads == 1) read_worker(&jobs[0]);
            else pthread_create(&tid[t], NULL, read_worker, &jobs[t]);
        }
        memset(&total, 0, sizeof total);
        for (int t = 0; t < threads; t++) {
            if (threads > 1) pthread_join(tid[t], NULL);
            if (jobs[t].rc != 0) {
                tn_error_restore(&jobs[t].err);
                die(path);
            }
            merge(&total, &jobs[t].result);
        }
        double ms = (double)(tn_time_ns() - t0) / 1e6;
        if (rep >= 0) {
            times[rep] = ms;
            printf("time_ms=%.1f\n", ms);
        }
    }
    char date[64] = "";
    if (total.has_date) tn_format_timestamp(date, sizeof date, total.min_date);
    printf("median_ms=%.1f peak_rss_kb=%ld threads=%d\n", median(times, reps), peak_rss_kb(), threads);
    printf("result=%" PRId64 " rows|%s|%" PRId64 "|%" PRId64 "|%.*s|%.*s\n", total.rows, date,
           total.max_delay, total.sum_distance, (int)total.max_origin_len, total.max_origin,
           (int)total.max_dest_len, total.max_dest);
    free(times);
    return 0;
}

/* ------------------------------------------------------------------------------------------- */
/* The scan's strings point into its page buffers, valid only until the next scan_next: copy
 * them into each vector's own heap so the chunk can be kept. */
static void own_strings(tn_chunk *c) {
    for (uint32_t k = 0; k < c->ncols; k++) {
        tn_vector *v = &c->cols[k];
        if (!tn_type_is_string(v->type)) continue;
        tn_str *s = v->data;
        for (uint32_t r = 0; r < v->count; r++)
            if (tn_vector_is_valid(v, r) && tn_vector_set_str(v, r, s[r].ptr, s[r].len) != 0)
                die("copy strings");
    }
}

static int bench_write(const char *path, const char *out, int reps) {
    tn_parquet_file *f = NULL;
    tn_parquet_scan *scan = NULL;
    if (tn_parquet_open(&f, tn_fs_default(), path, NULL) != 0) die(path);
    uint32_t ncols = tn_parquet_num_columns(f);
    uint32_t *cols = calloc(ncols, sizeof *cols);
    tn_type *types = calloc(ncols, sizeof *types);
    tn_parquet_column_spec *specs = calloc(ncols, sizeof *specs);
    for (uint32_t i = 0; i < ncols; i++) {
        const tn_parquet_column_info *c = tn_parquet_column(f, i);
        cols[i] = i;
        types[i] = c->type;
        specs[i].name = c->name;
        specs[i].type = c->type;
        specs[i].nullable = c->nullable;
        specs[i].field_id = c->field_id;
    }
    /* Load every row into memory: one chunk per scan call. */
    size_t nchunks = 0, cap = 1024;
    tn_chunk *chunks = malloc(cap * sizeof *chunks);
    tn_parquet_scan_options so = {cols, ncols, NULL, 0, NULL, 0, NULL};
    if (tn_parquet_scan_open(&scan, f, &so) != 0) die(path);
    int64_t rows = 0;
    for (;;) {
        if (nchunks == cap) chunks = realloc(chunks, (cap *= 2) * sizeof *chunks);
        if (tn_chunk_init(&chunks[nchunks], ncols, types, TN_VECTOR_SIZE) != 0) die("chunk");
        if (tn_parquet_scan_next(scan, &chunks[nchunks], NULL) != 0) die(path);
        if (chunks[nchunks].count == 0) {
            tn_chunk_free(&chunks[nchunks]);
            break;
        }
        own_strings(&chunks[nchunks]);
        rows += chunks[nchunks].count;
        nchunks++;
    }
    tn_parquet_scan_close(scan);
    long rss_loaded = peak_rss_kb();
    double *times = calloc((size_t)reps, sizeof *times);
    uint64_t bytes = 0;
    for (int rep = -1; rep < reps; rep++) {
        tn_parquet_writer *w = NULL;
        tn_parquet_write_result res = {0};
        tn_parquet_writer_options opts = TN_PARQUET_WRITER_OPTIONS_INIT;
        opts.codec = TN_CODEC_ZSTD;
        unlink(out);
        uint64_t t0 = tn_time_ns();
        if (tn_parquet_writer_open(&w, tn_fs_default(), out, specs, ncols, &opts) != 0) die(out);
        for (size_t i = 0; i < nchunks; i++)
            if (tn_parquet_writer_write(w, &chunks[i]) != 0) die(out);
        if (tn_parquet_writer_close(w, &res) != 0) die(out);
        double ms = (double)(tn_time_ns() - t0) / 1e6;
        bytes = res.file_bytes;
        tn_parquet_write_result_free(&res);
        if (rep >= 0) {
            times[rep] = ms;
            printf("time_ms=%.1f\n", ms);
        }
    }
    printf("median_ms=%.1f peak_rss_kb=%ld loaded_rss_kb=%ld\n", median(times, reps),
           peak_rss_kb(), rss_loaded);
    printf("result=%" PRId64 " rows|%" PRIu64 " bytes\n", rows, bytes);
    for (size_t i = 0; i < nchunks; i++) tn_chunk_free(&chunks[i]);
    free(chunks);
    free(times);
    free(cols);
    free(types);
    free(specs);
    tn_parquet_close(f);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "read") == 0)
        return bench_read(argv[2], atoi(argv[3]), atoi(argv[4]) > 0 ? atoi(argv[4]) : 5);
    if (argc == 5 && strcmp(argv[1], "write") == 0)
        return bench_write(argv[2], argv[3], atoi(argv[4]) > 0 ? atoi(argv[4]) : 5);
    fprintf(stderr, "usage: parquet_bench read FILE THREADS REPS\n"
                    "       parquet_bench write FILE OUT REPS\n");
    return 2;
}
