/*
 * bench/pg_stream.c: the result-streaming client of bench/server_bench.sh. Runs one query
 * through libpq (the same client for tarn and PostgreSQL) in single-row mode, so neither the
 * client nor the server has to hold the whole result, in text (0) or binary (1) result format,
 * and prints "ROWS BYTES MILLISECONDS" (BYTES: the sum of the field lengths received).
 *
 *   pg_stream CONNINFO FORMAT SQL
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <libpq-fe.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: pg_stream CONNINFO FORMAT(0|1) SQL\n");
        return 2;
    }
    PGconn *conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK) {
        fprintf(stderr, "pg_stream: %s", PQerrorMessage(conn));
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!PQsendQueryParams(conn, argv[3], 0, NULL, NULL, NULL, NULL, atoi(argv[2])) || !PQsetSingleRowMode(conn)) {
        fprintf(stderr, "pg_stream: %s", PQerrorMessage(conn));
        return 1;
    }
    long long rows = 0, bytes = 0;
    int failed = 0;
    PGresult *r;
    while ((r = PQgetResult(conn))) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE) {
            rows++;
            for (int i = 0, n = PQnfields(r); i < n; i++) bytes += PQgetlength(r, 0, i);
        } else if (st != PGRES_TUPLES_OK) {
            fprintf(stderr, "pg_stream: %s", PQresultErrorMessage(r));
            failed = 1;
        }
        PQclear(r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%lld %lld %.0f\n", rows, bytes, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    PQfinish(conn);
    return failed;
}
