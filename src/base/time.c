/*
 * base/time.c: clocks (monotonic ns, wall-clock us) and the default worker-thread count.
 */
#include "base/base.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

uint64_t tn_time_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t tn_time_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int tn_default_threads(void) {
    const char *s = getenv("TARN_THREADS");
    if (s && *s) {
        char *end;
        long n = strtol(s, &end, 10);
        if (*end == '\0' && n >= 1) return n > 1024 ? 1024 : (int)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}
