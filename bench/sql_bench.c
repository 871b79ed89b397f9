/*
 * bench/sql_bench.c: the SQL benchmark's tarn side, driven by bench/sql_bench.sh (which runs
 * DuckDB on the same queries in the same run and reports ratios). Uses only include/tarn.h.
 *   sql_bench QUERIES THREADS REPS OUTDIR
 * QUERIES holds one "name<TAB>sql" per line; a line named @setup runs once, untimed (views the
 * queries use). For each query: `SET threads = THREADS`, one
 * warm-up run, then REPS timed runs of tarn_query (parse + bind + plan + execute + reading
 * every chunk of the result) in this process, so process start-up is not timed (as DuckDB's
 * side, bench/duck_bench.mjs, times only its query). Prints "name median_ms min_ms" per query
 * and writes the result's rows (DuckDB's text spelling, '|'-separated) to OUTDIR/name.txt.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tarn.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs sql once; touches every column of every chunk; writes rows to out when not NULL. */
static int run_once(tarn_db *db, const char *sql, FILE *out, double *ms) {
    tarn_result *r = NULL;
    double t0 = now_ms();
    int rc = tarn_query(db, sql, &r);
    if (rc) return rc;
    uint32_t nc = tarn_result_column_count(r);
    uint64_t touch = 0;
    uint32_t rows;
    while ((rows = tarn_result_next_chunk(r)) > 0) {
        for (uint32_t c = 0; c < nc; c++) {
            tarn_column col;
            if (tarn_result_column(r, c, &col) == 0) touch += (uintptr_t)col.data;
        }
        if (out)
            for (uint32_t i = 0; i < rows; i++) {
                for (uint32_t c = 0; c < nc; c++) {
                    char buf[4096];
                    if (tarn_result_value_text(r, c, i, buf, sizeof buf) < 0) buf[0] = 0;
                    fprintf(out, "%s%s", c ? "|" : "", buf);
                }
                fputc('\n', out);
            }
    }
    *ms = now_ms() - t0;
    tarn_result_free(r);
    return touch == 1 ? 1 : 0;   /* keeps `touch` alive; never 1 in practice */
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: sql_bench QUERIES THREADS REPS OUTDIR\n");
        return 2;
    }
    int threads = atoi(argv[2]), reps = atoi(argv[3]);
    if (reps < 1 || reps > 1000 || threads < 1) return 2;
    FILE *qf = fopen(argv[1], "r");
    if (!qf) { perror(argv[1]); return 1; }
    tarn_db *db = NULL;
    if (tarn_open(NULL, &db)) {
        fprintf(stderr, "sql_bench: open: %s\n", tarn_last_error());
        return 1;
    }
    char set[64];
    snprintf(set, sizeof set, "SET threads = %d", threads);
    if (tarn_query(db, set, NULL)) {
        fprintf(stderr, "sql_bench: %s: %s\n", set, tarn_last_error());
        return 1;
    }
    static char line[65536];
    double *times = calloc((size_t)reps, sizeof *times);
    int status = 0;
    while (times && fgets(line, sizeof line, qf)) {
        line[strcspn(line, "\r\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!tab || line[0] == '#') continue;
        *tab = 0;
        const char *name = line, *sql = tab + 1;
        if (strcmp(name, "@setup") == 0) {
            if (tarn_query(db, sql, NULL)) {
                fprintf(stderr, "sql_bench: setup: %s\n", tarn_last_error());
                status = 1;
                break;
            }
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.txt", argv[4], name);
        FILE *out = fopen(path, "w");
        double ms = 0;
        int rc = run_once(db, sql, out, &ms);          /* warm-up, writes the result */
        if (out) fclose(out);
        for (int i = 0; i < reps && !rc; i++) rc = run_once(db, sql, NULL, &times[i]);
        if (rc) {
            fprintf(stderr, "sql_bench: %s: %s\n", name, tarn_last_error());
            printf("%s nan nan\n", name);
            status = 1;
            continue;
        }
        double med = median(times, reps);
        printf("%s %.1f %.1f\n", name, med, times[0]);
        fflush(stdout);
    }
    free(times);
    fclose(qf);
    tarn_close(db);
    return status;
}
