/*
 * bench/pk_bench.c: the tarn side of bench/pk_bench.sh (primary-key tables). Uses only tarn.h.
 *   pk_bench WAREHOUSE SQLFILE
 * SQLFILE holds one "name<TAB>sql" per line; each statement runs once, in order, in this process
 * (so process start-up and the warehouse open are not timed, as DuckDB's side times only its
 * statement), and "name wall_ms cpu_ms" is printed per statement (cpu: user + system time of
 * the process, every thread: the cost of a statement whatever else shares the cores).
 * Statements fail the run.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tarn.h"

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: pk_bench WAREHOUSE SQLFILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    tarn_db *db = NULL;
    if (tarn_open(argv[1], &db)) {
        fprintf(stderr, "pk_bench: open: %s\n", tarn_last_error());
        return 1;
    }
    static char line[1 << 16];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        char *sql = tab + 1;
        size_t n = strlen(sql);
        while (n && (sql[n - 1] == '\n' || sql[n - 1] == '\r')) sql[--n] = 0;
        tarn_result *r = NULL;
        double t0 = now_ms(), c0 = cpu_ms();
        if (tarn_query(db, sql, &r)) {
            fprintf(stderr, "pk_bench: %s: %s\n", line, tarn_last_error());
            rc = 1;
            break;
        }
        while (tarn_result_next_chunk(r) > 0) {}
        double ms = now_ms() - t0, cpu = cpu_ms() - c0;
        tarn_result_free(r);
        printf("%s %.3f %.1f\n", line, ms, cpu);
        fflush(stdout);
    }
    fclose(f);
    tarn_close(db);
    return rc;
}
