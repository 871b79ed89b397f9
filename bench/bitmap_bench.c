/*
 * bench/bitmap_bench.c: the bitmap benchmark's timed parts (bench/bitmap_bench.sh drives it).
 *   bitmap_bench sql WAREHOUSE REPS SQL    median ms of a statement through the SQL engine
 *   bitmap_bench lib IDS.csv REPS          from (g, r, id) rows: one bitmap per (g, r) written by
 *       CRoaring (run-optimized, portable) into memory; then timed: the per-group OR with CRoaring
 *       alone (deserialize + or_inplace per row, the practical limit), the same with tarn's
 *       validating accumulator of bitmap() (tn_bitmap_acc_or_bytes), and serialization / validation throughput of tarn vs
 *       CRoaring over the row bitmaps. Prints key=value lines.
 */
#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "bitmap/bitmap.h"
#include "sql/sql.h"

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static double now_ms(void) { return (double)tn_time_ns() / 1e6; }

static int run_sql(const char *wh, int reps, const char *sql) {
    tn_sql_session *s = NULL;
    if (tn_sql_session_open(&s, wh, 0)) { fprintf(stderr, "%s\n", tn_error_message()); return 1; }
    double t[64];
    for (int i = 0; i <= reps && i < 63; i++) {
        tn_sql_result *r = NULL;
        double t0 = now_ms();
        if (tn_sql_execute(&r, s, sql)) { fprintf(stderr, "%s\n", tn_error_message()); return 1; }
        double t1 = now_ms();
        tn_sql_result_free(r);
        if (i) t[i - 1] = t1 - t0;
    }
    printf("ms=%.1f\n", median(t, reps));
    tn_sql_session_close(s);
    return 0;
}

typedef struct row { uint32_t g; char *bytes; size_t len; } row;

static int run_lib(const char *csv, int reps) {
    FILE *f = fopen(csv, "r");
    if (!f) { perror(csv); return 1; }
    char line[128];
    row *rows = NULL;
    size_t nrows = 0, cap = 0;
    roaring_bitmap_t *cur = NULL;
    long cg = -1, cr = -1, g, r, id;
    if (!fgets(line, sizeof line, f)) return 1;   /* header */
    for (;;) {
        int more = fgets(line, sizeof line, f) != NULL && sscanf(line, "%ld,%ld,%ld", &g, &r, &id) == 3;
        if (cur && (!more || g != cg || r != cr)) {
            roaring_bitmap_run_optimize(cur);
            if (nrows == cap) rows = realloc(rows, (cap = cap ? cap * 2 : 1 << 16) * sizeof *rows);
            size_t n = roaring_bitmap_portable_size_in_bytes(cur);
            rows[nrows].g = (uint32_t)cg;
            rows[nrows].bytes = malloc(n);
            rows[nrows].len = roaring_bitmap_portable_serialize(cur, rows[nrows].bytes);
            nrows++;
            roaring_bitmap_free(cur);
            cur = NULL;
        }
        if (!more) break;
        if (!cur) { cur = roaring_bitmap_create(); cg = g; cr = r; }
        roaring_bitmap_add(cur, (uint32_t)id);
    }
    fclose(f);
    size_t bytes = 0;
    uint32_t ng = 0;
    for (size_t i = 0; i < nrows; i++) { bytes += rows[i].len; if (rows[i].g + 1 > ng) ng = rows[i].g + 1; }
    double t[64];
    uint64_t sum_c = 0, sum_t = 0;
    /* CRoaring alone */
    for (int k = 0; k <= reps; k++) {
        roaring_bitmap_t **acc = calloc(ng, sizeof *acc);
        for (uint32_t i = 0; i < ng; i++) acc[i] = roaring_bitmap_create();
        double t0 = now_ms();
        for (size_t i = 0; i < nrows; i++) {
            roaring_bitmap_t *b = roaring_bitmap_portable_deserialize_safe(rows[i].bytes, rows[i].len);
            roaring_bitmap_or_inplace(acc[rows[i].g], b);
            roaring_bitmap_free(b);
        }
        sum_c = 0;
        for (uint32_t i = 0; i < ng; i++) sum_c += roaring_bitmap_get_cardinality(acc[i]);
        double t1 = now_ms();
        if (k) t[k - 1] = t1 - t0;
        for (uint32_t i = 0; i < ng; i++) roaring_bitmap_free(acc[i]);
        free(acc);
    }
    printf("croaring_merge_ms=%.1f\n", median(t, reps));
    /* tarn: validate + OR, as the bitmap() aggregate does */
    for (int k = 0; k <= reps; k++) {
        tn_bitmap_acc **acc = calloc(ng, sizeof *acc);
        for (uint32_t i = 0; i < ng; i++) acc[i] = tn_bitmap_acc_create();
        double t0 = now_ms();
        for (size_t i = 0; i < nrows; i++)
            if (tn_bitmap_acc_or_bytes(acc[rows[i].g], rows[i].bytes, rows[i].len)) { fprintf(stderr, "%s\n", tn_error_message()); return 1; }
        sum_t = 0;
        for (uint32_t i = 0; i < ng; i++) sum_t += tn_bitmap_acc_cardinality(acc[i]);
        double t1 = now_ms();
        if (k) t[k - 1] = t1 - t0;
        for (uint32_t i = 0; i < ng; i++) tn_bitmap_acc_free(acc[i]);
        free(acc);
    }
    printf("tarn_merge_ms=%.1f\n", median(t, reps));
    printf("cards_agree=%d\nrows=%zu\nbytes=%zu\n", sum_c == sum_t, nrows, bytes);
    /* validation throughput */
    for (int k = 0; k <= reps; k++) {
        double t0 = now_ms();
        for (size_t i = 0; i < nrows; i++) tn_bitmap_validate(rows[i].bytes, rows[i].len, NULL);
        double t1 = now_ms();
        if (k) t[k - 1] = t1 - t0;
    }
    printf("tarn_validate_mb_s=%.0f\n", (double)bytes / 1e6 / (median(t, reps) / 1e3));
    /* serialization: decode all row bitmaps once, then time writing them */
    tn_bitmap **tb = malloc(nrows * sizeof *tb);
    roaring_bitmap_t **cb = malloc(nrows * sizeof *cb);
    for (size_t i = 0; i < nrows; i++) {
        tn_bitmap_decode(&tb[i], rows[i].bytes, rows[i].len);
        cb[i] = roaring_bitmap_portable_deserialize_safe(rows[i].bytes, rows[i].len);
    }
    tn_buf out = TN_BUF_INIT;
    for (int k = 0; k <= reps; k++) {
        double t0 = now_ms();
        for (size_t i = 0; i < nrows; i++) { tn_buf_clear(&out); tn_bitmap_serialize(tb[i], TN_BITMAP_AUTO, &out); }
        double t1 = now_ms();
        if (k) t[k - 1] = t1 - t0;
    }
    double tarn_ser = median(t, reps);
    char *cbuf = malloc(1 << 20);
    for (int k = 0; k <= reps; k++) {
        double t0 = now_ms();
        for (size_t i = 0; i < nrows; i++) {
            roaring_bitmap_run_optimize(cb[i]);   /* what a Java-compatible CRoaring writer must do */
            roaring_bitmap_portable_serialize(cb[i], cbuf);
        }
        double t1 = now_ms();
        if (k) t[k - 1] = t1 - t0;
    }
    double cr_ser = median(t, reps);
    printf("tarn_serialize_mb_s=%.0f\ncroaring_serialize_mb_s=%.0f\n", (double)bytes / 1e6 / (tarn_ser / 1e3),
           (double)bytes / 1e6 / (cr_ser / 1e3));
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "sql") == 0) return run_sql(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "lib") == 0) return run_lib(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: bitmap_bench sql WAREHOUSE REPS SQL | lib IDS.csv REPS\n");
    return 2;
}
