/*
 * bench/pk_bench.c: the tarn side of bench/pk_bench.sh (primary-key tables). Uses only tarn.h.
 *   pk_bench WAREHOUSE SQLFILE
 * SQLFILE holds one "name<TAB>sql" per line; each statement runs once, in order, in this process
 * (so process start-up and the warehouse open are not timed, as DuckDB's side times only its
 * statement), and "name ms" is printed per statement. Statements fail the run.
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
        double t0 = now_ms();
        if (tarn_query(db, sql, &r)) {
            fprintf(stderr, "pk_bench: %s: %s\n", line, tarn_last_error());
            rc = 1;
            break;
        }
        while (tarn_result_next_chunk(r) > 0) {}
        double ms = now_ms() - t0;
        tarn_result_free(r);
        printf("%s %.3f\n", line, ms);
        fflush(stdout);
    }
    fclose(f);
    tarn_close(db);
    return rc;
}
