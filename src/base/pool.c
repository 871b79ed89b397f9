/*
 * base/pool.c: a fixed thread pool running one parallel-for job at a time (tn_pool_run): the
 * caller and N-1 workers claim task indexes from an atomic counter until they run out or a task
 * fails. Carries the first failing task's error back to the caller's thread.
 */
#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>

struct tn_pool {
    uint32_t nthreads;              /* workers incl. the caller */
    pthread_t *threads;             /* nthreads - 1 background workers */
    pthread_mutex_t lock;
    pthread_cond_t job_ready;       /* a new job (generation changed) or shutdown */
    pthread_cond_t job_done;        /* a worker finished its part of the job */
    uint64_t generation;
    bool shutdown;
    /* the current job */
    tn_pool_task_fn fn;
    void *ctx;
    uint32_t ntasks;
    atomic_uint next_task;
    atomic_bool failed;
    uint32_t busy_workers;          /* background workers still in the current job */
    tn_error_state error;           /* first failure, guarded by lock */
    int error_code;
};

/* Claims and runs tasks until none are left or one has failed. */
static void run_tasks(tn_pool *pool, uint32_t worker) {
    for (;;) {
        if (atomic_load(&pool->failed)) return;
        uint32_t task = atomic_fetch_add(&pool->next_task, 1);
        if (task >= pool->ntasks) return;
        int rc = pool->fn(pool->ctx, task, worker);
        if (rc != 0) {
            pthread_mutex_lock(&pool->lock);
            if (!atomic_load(&pool->failed)) {
                if (tn_error_code_last() == TN_OK) tn_error_set(rc, "task %u failed", task);
                tn_error_save(&pool->error);
                pool->error_code = rc;
                atomic_store(&pool->failed, true);
            }
            pthread_mutex_unlock(&pool->lock);
            return;
        }
    }
}

typedef struct worker_arg { tn_pool *pool; uint32_t index; } worker_arg;

static void *worker_main(void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    tn_free(arg);
    tn_pool *pool = wa.pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->shutdown && pool->generation == seen) pthread_cond_wait(&pool->job_ready, &pool->lock);
        if (pool->shutdown) break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, wa.index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy_workers == 0) pthread_cond_signal(&pool->job_done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int tn_pool_create(tn_pool **out, int threads) {
    *out = NULL;
    if (threads <= 0) threads = tn_default_threads();
    tn_pool *pool = tn_calloc(1, sizeof *pool);
    if (!pool) return TN_ENOMEM;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->job_ready, NULL);
    pthread_cond_init(&pool->job_done, NULL);
    pool->nthreads = 1;
    if (threads > 1) {
        pool->threads = tn_calloc((size_t)threads - 1, sizeof(pthread_t));
        if (!pool->threads) { tn_pool_destroy(pool); return TN_ENOMEM; }
    }
    for (int i = 1; i < threads; i++) {
        worker_arg *wa = tn_malloc(sizeof *wa);
        if (!wa) { tn_pool_destroy(pool); return TN_ENOMEM; }
        wa->pool = pool;
        wa->index = (uint32_t)i;
        if (pthread_create(&pool->threads[i - 1], NULL, worker_main, wa) != 0) {
            tn_free(wa);
            break;                  /* run with the workers we got */
        }
        pool->nthreads++;
    }
    *out = pool;
    return 0;
}

void tn_pool_destroy(tn_pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->job_ready);
    pthread_mutex_unlock(&pool->lock);
    for (uint32_t i = 0; i + 1 < pool->nthreads; i++) pthread_join(pool->threads[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->job_ready);
    pthread_cond_destroy(&pool->job_done);
    tn_free(pool->threads);
    tn_free(pool);
}

uint32_t tn_pool_size(const tn_pool *pool) { return pool->nthreads; }

int tn_pool_run(tn_pool *pool, uint32_t ntasks, tn_pool_task_fn fn, void *ctx) {
    if (ntasks == 0) return 0;
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->ntasks = ntasks;
    atomic_store(&pool->next_task, 0);
    atomic_store(&pool->failed, false);
    pool->error_code = 0;
    /* With a single task there is no point waking the workers. */
    pool->busy_workers = ntasks > 1 ? pool->nthreads - 1 : 0;
    if (pool->busy_workers) {
        pool->generation++;
        pthread_cond_broadcast(&pool->job_ready);
    }
    pthread_mutex_unlock(&pool->lock);

    run_tasks(pool, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->busy_workers > 0) pthread_cond_wait(&pool->job_done, &pool->lock);
    int rc = pool->error_code;
    pthread_mutex_unlock(&pool->lock);
    if (rc != 0) return tn_error_restore(&pool->error);
    return 0;
}
