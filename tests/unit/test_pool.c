/*
 * tests/unit/test_pool.c: the thread pool: every task runs exactly once across workers, worker
 * indexes stay in range, the first error reaches the caller with its message, and a pool runs
 * many jobs in a row.
 */
#include "base/base.h"
#include "testlib.h"

#include <stdatomic.h>

typedef struct count_ctx {
    atomic_uint *hits;
    uint32_t nworkers;
    atomic_bool bad_worker;
    int fail_at;
} count_ctx;

static int count_task(void *arg, uint32_t task, uint32_t worker) {
    count_ctx *c = arg;
    if (worker >= c->nworkers) atomic_store(&c->bad_worker, true);
    if ((int)task == c->fail_at) return tn_error_set(TN_EINVAL, "task %u refused", task);
    atomic_fetch_add(&c->hits[task], 1);
    return 0;
}

TEST(pool_runs_every_task_once) {
    for (int threads = 1; threads <= 4; threads++) {
        tn_pool *pool = NULL;
        CHECK_OK(tn_pool_create(&pool, threads));
        CHECK_EQ_INT(tn_pool_size(pool), threads);
        enum { N = 10000 };
        static atomic_uint hits[N];
        for (int i = 0; i < N; i++) atomic_store(&hits[i], 0);
        count_ctx c = {hits, tn_pool_size(pool), false, -1};
        CHECK_OK(tn_pool_run(pool, N, count_task, &c));
        for (int i = 0; i < N; i++) CHECK_MSG(atomic_load(&hits[i]) == 1, "task %d ran %u times", i, atomic_load(&hits[i]));
        CHECK(!atomic_load(&c.bad_worker));
        tn_pool_destroy(pool);
    }
}

TEST(pool_reports_first_error_to_caller) {
    tn_pool *pool = NULL;
    CHECK_OK(tn_pool_create(&pool, 3));
    static atomic_uint hits[100];
    count_ctx c = {hits, tn_pool_size(pool), false, 37};
    tn_error_clear();
    int rc = tn_pool_run(pool, 100, count_task, &c);
    CHECK_EQ_INT(rc, TN_EINVAL);
    CHECK_EQ_STR(tn_error_message(), "task 37 refused");
    /* The pool is still usable after a failed job. */
    for (int i = 0; i < 100; i++) atomic_store(&hits[i], 0);
    c.fail_at = -1;
    CHECK_OK(tn_pool_run(pool, 100, count_task, &c));
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(atomic_load(&hits[i]), 1);
    tn_pool_destroy(pool);
}

TEST(pool_many_small_jobs) {
    tn_pool *pool = NULL;
    CHECK_OK(tn_pool_create(&pool, 2));
    static atomic_uint hits[3];
    count_ctx c = {hits, tn_pool_size(pool), false, -1};
    unsigned expected[3] = {0, 0, 0};
    for (int round = 0; round < 2000; round++) {
        uint32_t ntasks = 1 + (uint32_t)round % 3;
        for (uint32_t t = 0; t < ntasks; t++) expected[t]++;
        CHECK_OK(tn_pool_run(pool, ntasks, count_task, &c));
    }
    for (int t = 0; t < 3; t++) CHECK_EQ_INT(atomic_load(&hits[t]), expected[t]);
    tn_pool_destroy(pool);
}

TEST_MAIN()
