/*
 * layout/otree/hash.c: the record weight of qbeast-spark (QbeastMurmur3Hash: Spark's Murmur3
 * x86_32 `hash` of the indexed columns, seed 42, chained, NULLs skipped, Spark's byte-tail
 * variant for strings and binary), qbeast's Weight <-> fraction conversion, and Scala's
 * MurmurHash3.bytesHash that qbeast's HashTransformation uses for coordinates (the hashes
 * themselves are types/jvm_hash.c).
 */
#include "layout/otree/otreeInt.h"

#include <math.h>
#include <string.h>

int32_t ot_weight_of_fraction(double f) {
    double x = f * 4294967295.0 + (double)INT32_MIN;
    if (!(x > (double)INT32_MIN)) return INT32_MIN;   /* NaN too: Scala's toInt gives 0, but f is checked */
    if (x >= (double)INT32_MAX) return INT32_MAX;
    return (int32_t)x;                                /* truncation toward zero, as Scala's toInt */
}

double ot_fraction_of_weight(int32_t w) { return ((double)w - (double)INT32_MIN) / 4294967295.0; }

int32_t ot_weight_row(const tn_vector *const *cols, uint32_t ncols, uint32_t r) {
    uint32_t h = 42;
    for (uint32_t k = 0; k < ncols; k++)
        if (tn_vector_is_valid(cols[k], r)) h = tn_spark_hash_value(cols[k], r, h);
    return (int32_t)h;
}

void ot_weight_chunk(const tn_vector *const *cols, uint32_t ncols, uint32_t n, int32_t *out) {
    for (uint32_t r = 0; r < n; r++) out[r] = ot_weight_row(cols, ncols, r);
}

int32_t ot_scala_bytes_hash(const uint8_t *p, uint32_t n) { return tn_scala_bytes_hash(p, n); }
