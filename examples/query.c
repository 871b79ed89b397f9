/*
 * examples/query.c: using libtarn through its public header only. Opens a warehouse, runs a
 * parameterized query over a Parquet file and prints the result, reading typed columns chunk
 * by chunk (and the text of values as DuckDB spells them).
 *
 *   cc examples/query.c $(pkg-config --cflags --libs tarn) -o query     (after make install)
 *   ./query tests/data/datasets/flights-3m.parquet 1000
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tarn.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE.parquet MIN_DISTANCE\n", argv[0]);
        return 2;
    }
    tarn_db *db = NULL;
    tarn_stmt *stmt = NULL;
    tarn_result *res = NULL;
    int status = 1;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT origin, count(*) AS flights, avg(delay) AS avg_delay FROM read_parquet('%s') "
             "WHERE distance >= $1 GROUP BY origin ORDER BY flights DESC, origin LIMIT 5", argv[1]);
    if (tarn_open(NULL, &db) != 0) goto fail;
    if (tarn_prepare(db, sql, &stmt) != 0) goto fail;
    if (tarn_bind_int64(stmt, 1, strtoll(argv[2], NULL, 10)) != 0) goto fail;
    if (tarn_execute(stmt, &res) != 0) goto fail;

    uint32_t ncols = tarn_result_column_count(res);
    for (uint32_t c = 0; c < ncols; c++) printf("%s%s", c ? "," : "", tarn_result_column_name(res, c));
    printf("\n");
    int64_t total = 0;
    uint32_t rows;
    while ((rows = tarn_result_next_chunk(res)) > 0) {
        tarn_column flights;
        if (tarn_result_column(res, 1, &flights) != 0 || flights.type != TARN_TYPE_BIGINT) goto fail;
        for (uint32_t r = 0; r < rows; r++) {
            total += ((const int64_t *)flights.data)[r];
            for (uint32_t c = 0; c < ncols; c++) {
                char buf[128];
                tarn_result_value_text(res, c, r, buf, sizeof buf);
                printf("%s%s", c ? "," : "", buf);
            }
            printf("\n");
        }
    }
    tarn_stats st;
    tarn_result_stats(res, &st);
    printf("total=%" PRId64 " rows_scanned=%" PRIu64 "\n", total, st.rows_scanned);
    status = 0;
    goto done;
fail:
    fprintf(stderr, "error: %s\n", tarn_last_error());
done:
    tarn_result_free(res);
    tarn_finalize(stmt);
    tarn_close(db);
    return status;
}
