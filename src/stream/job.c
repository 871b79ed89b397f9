/*
 * stream/job.c: continuous jobs (stream.h): the job directory under <warehouse>/_jobs/NAME/,
 * creation and savepoints, the run loop (lock, recovery of a pending batch against the target's
 * txn version, one micro-batch per poll through the SQL session's batch hooks, exactly-once
 * commits), stop/cancel requests, status and listing. Processes and signals are the caller's.
 */
#include "stream/streamInt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tn_stream_job {
    char *wh, *name, *dir;
    json_t *spec;                      /* job.json */
    const char *sql, *app_id;          /* borrowed from spec */
    tn_stream_options opts;
    tn_stream_source src;
    char *target;                      /* the target table's directory */
    tn_sql_session *session;
    int lock_fd;
    /* state */
    int64_t batch;                     /* last committed batch */
    tn_stream_pos pos;
    uint64_t rows;
    int64_t last_batch_ms;
    char *savepoint;
    char pin[16];                      /* bucket count the target is written with ("" none) */
    int stop, cancel;                  /* requests (atomic) */
};

static int64_t now_ms(void) { return tn_time_now_us() / 1000; }

static void logf_(const tn_stream_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(const tn_stream_job *j, const char *fmt, ...) {
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(stderr, "%s job %s: ", ts, j->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

static int job_dir(char **out, const char *wh, const char *name) {
    *out = NULL;
    int rc = tn_catalog_check_name("job", name);
    if (rc) return rc;
    size_t n = strlen(wh) + strlen(name) + sizeof TN_STREAM_JOBS_DIR + 4;
    *out = tn_malloc(n);
    if (!*out) return TN_ENOMEM;
    snprintf(*out, n, "%s/%s/%s", wh, TN_STREAM_JOBS_DIR, name);
    return 0;
}

static char *file_in(const char *dir, const char *f) {
    size_t n = strlen(dir) + strlen(f) + 2;
    char *p = tn_malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, f);
    return p;
}

static int write_in(const char *dir, const char *f, json_t *j) {
    char *p = file_in(dir, f);
    if (!p) return TN_ENOMEM;
    int rc = tn_stream_write_json(p, j);
    tn_free(p);
    return rc;
}

/* what = "<label> '<dir>/<f>'" for the decoders' messages. */
static void what_in(char *what, size_t n, const char *label, const char *dir, const char *f) {
    snprintf(what, n, "%s '%s/%s'", label, dir, f);
}

/* Reads and decodes dir/state.json. */
static int read_state(tn_stream_state *out, const char *dir) {
    memset(out, 0, sizeof *out);
    char what[PATH_MAX + 32];
    what_in(what, sizeof what, "job state", dir, "state.json");
    char *p = file_in(dir, "state.json");
    if (!p) return TN_ENOMEM;
    tn_buf b = TN_BUF_INIT;
    int rc = tn_stream_read_file(&b, p, what);
    if (!rc) rc = tn_stream_state_decode(out, (const char *)b.data, b.len, what);
    tn_buf_free(&b);
    tn_free(p);
    return rc;
}

static int write_state(const char *dir, const tn_stream_state *s) {
    json_t *j = tn_stream_state_to_json(s);
    int rc = j ? write_in(dir, "state.json", j) : TN_ENOMEM;
    json_decref(j);
    return rc;
}

static void uuid_text(char out[37]) {
    unsigned char b[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, b, sizeof b) : -1;
    if (fd >= 0) close(fd);
    if (got != (ssize_t)sizeof b) {
        uint64_t x = tn_hash_u64((uint64_t)tn_time_now_us() ^ ((uint64_t)getpid() << 32));
        for (int i = 0; i < 16; i++) {
            if (i == 8) x = tn_hash_u64(x);
            b[i] = (unsigned char)(x >> (8 * (i % 8)));
        }
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* The source and target of sql, its statement checked. */
static int resolve_sql(tn_stream_source *src, char **target, const char *wh, const char *sql) {
    tn_sql_session *s = NULL;
    tn_sql_script *script = NULL;
    int rc = tn_sql_session_open(&s, wh, 1);
    if (!rc) rc = tn_sql_script_parse(&script, s, sql, strlen(sql));
    if (!rc && tn_sql_script_count(script) != 1)
        rc = tn_error_set(TN_EINVAL, "a job runs exactly one statement (INSERT INTO ... SELECT ...), got %u",
                          tn_sql_script_count(script));
    if (!rc) rc = tn_stream_source_resolve(src, target, wh, tn_sql_script_stmt(script, 0));
    if (!rc && src->kind == TN_STREAM_TABLE) {
        char a[PATH_MAX], b[PATH_MAX];
        if (realpath(*target, a) && realpath(src->path, b) && strcmp(a, b) == 0) {
            rc = tn_error_set(TN_EINVAL, "the job's source %s is its target: each batch would read the job's own "
                              "output again", src->label);
            tn_stream_source_free(src);
            tn_free(*target);
            *target = NULL;
        }
    }
    tn_sql_script_free(script);
    tn_sql_session_close(s);
    return rc;
}

/* The target's txn version for the job (-1 none). */
static int target_txn(const char *target, const char *app_id, int64_t *out, char *pin, size_t npin) {
    tn_table *t = NULL;
    int rc = tn_table_open(&t, tn_fs_default(), target, NULL);
    if (rc) return rc;
    *out = tn_delta_snapshot_txn_version(tn_table_snapshot(t), app_id);
    if (pin) {
        /* a job killed between a commit and its checkpoint: the restarted job writes the checkpoint */
        const tn_delta_snapshot *snap = tn_table_snapshot(t);
        int64_t every = tn_delta_checkpoint_interval(&snap->metadata), last = snap->version - snap->version % every;
        if (last > 0 && tn_delta_maybe_checkpoint(tn_fs_default(), target, last, every) != 0) tn_error_clear();
        pin[0] = 0;
        bool impl = false;
        const char *lay = tn_layout_name(t, &impl);
        if (lay && strcmp(lay, "bucket") == 0) {
            const char *b = tn_table_property(t, "bucket");
            snprintf(pin, npin, "%s", b ? b : "1");
        }
    }
    tn_table_close(t);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Create, restore, drop.
 */
static int probe_dir(const char *dir, bool *exists, bool *running, long *pid) {
    *exists = *running = false;
    *pid = 0;
    struct stat st;
    char *spec = file_in(dir, "job.json");
    if (!spec) return TN_ENOMEM;
    *exists = stat(spec, &st) == 0;
    tn_free(spec);
    if (!*exists) return 0;
    char *lock = file_in(dir, "lock");
    if (!lock) return TN_ENOMEM;
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    tn_free(lock);
    if (fd >= 0) {
        if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) *running = true;
        close(fd);
    }
    char *pf = file_in(dir, "pid");
    if (!pf) return TN_ENOMEM;
    FILE *f = fopen(pf, "r");
    tn_free(pf);
    if (f) {
        if (fscanf(f, "%ld", pid) != 1) *pid = 0;
        fclose(f);
    }
    return 0;
}

int tn_stream_job_probe(const char *wh, const char *name, bool *exists, bool *running, long *pid) {
    char *dir = NULL;
    int rc = job_dir(&dir, wh, name);
    if (!rc) rc = probe_dir(dir, exists, running, pid);
    tn_free(dir);
    return rc;
}

static int make_dirs(const char *wh, const char *dir) {
    char *jobs = file_in(wh, TN_STREAM_JOBS_DIR);
    if (!jobs) return TN_ENOMEM;
    int rc = 0;
    if ((mkdir(jobs, 0755) != 0 && errno != EEXIST) || (mkdir(dir, 0755) != 0 && errno != EEXIST))
        rc = tn_error_set(TN_EIO, "%s: cannot create: %s", dir, strerror(errno));
    tn_free(jobs);
    return rc;
}

int tn_stream_job_create(const char *wh, const char *name, const char *sql, const tn_stream_kv *opts,
                         uint32_t nopts) {
    char *dir = NULL, *target = NULL;
    tn_stream_source src;
    memset(&src, 0, sizeof src);
    tn_stream_pos pos;
    memset(&pos, 0, sizeof pos);
    json_t *spec = NULL, *options = json_object();
    int rc = job_dir(&dir, wh, name);
    if (rc) goto cleanup;
    bool exists, running;
    long pid;
    rc = probe_dir(dir, &exists, &running, &pid);
    if (rc) goto cleanup;
    if (exists) {
        rc = running ? tn_error_set(TN_EEXISTS, "job '%s' already exists and is running (pid %ld)", name, pid)
                     : tn_error_set(TN_EEXISTS, "job '%s' already exists (not running): resume it with `tarn job start "
                                    "%s` (no -c), restore a savepoint with --from-savepoint, or remove it with `tarn job "
                                    "drop %s`", name, name, name);
        goto cleanup;
    }
    for (uint32_t i = 0; i < nopts; i++) json_object_set_new(options, opts[i].key, json_string(opts[i].value));
    tn_stream_options o;
    rc = tn_stream_options_parse(&o, options);
    if (rc) goto cleanup;
    rc = resolve_sql(&src, &target, wh, sql);
    if (!rc) rc = tn_stream_options_check(&src, options);
    if (rc) goto cleanup;
    rc = tn_stream_pos_start(&pos, &src, &o);
    if (rc) goto cleanup;
    char id[37], cwd[PATH_MAX];
    uuid_text(id);
    if (!getcwd(cwd, sizeof cwd)) {
        rc = tn_error_set(TN_EIO, "getcwd: %s", strerror(errno));
        goto cleanup;
    }
    char app[128];
    snprintf(app, sizeof app, "tarn-job-%s", id);
    spec = json_object();
    json_object_set_new(spec, "name", json_string(name));
    json_object_set_new(spec, "app_id", json_string(app));
    json_object_set_new(spec, "sql", json_string(sql));
    json_object_set(spec, "options", options);
    json_object_set_new(spec, "cwd", json_string(cwd));
    json_object_set_new(spec, "created_ms", json_integer(now_ms()));
    rc = make_dirs(wh, dir);
    if (rc) goto cleanup;
    tn_stream_state st;
    memset(&st, 0, sizeof st);
    st.state = "created";
    st.kind = src.kind;
    st.pos = pos;                                       /* borrowed */
    st.updated_ms = now_ms();
    rc = write_state(dir, &st);
    if (!rc) rc = write_in(dir, "job.json", spec);
cleanup:
    json_decref(spec);
    json_decref(options);
    tn_stream_pos_free(&pos);
    tn_stream_source_free(&src);
    tn_free(target);
    tn_free(dir);
    return rc;
}

int tn_stream_job_restore(const char *wh, const char *name, const char *savepoint) {
    char *dir = NULL, *target = NULL;
    tn_stream_savepoint sp;
    memset(&sp, 0, sizeof sp);
    tn_stream_source src;
    memset(&src, 0, sizeof src);
    tn_buf b = TN_BUF_INIT;
    json_t *spec = NULL;
    int rc = job_dir(&dir, wh, name);
    if (rc) goto cleanup;
    bool exists, running;
    long pid;
    rc = probe_dir(dir, &exists, &running, &pid);
    if (rc) goto cleanup;
    if (running) {
        rc = tn_error_set(TN_EEXISTS, "job '%s' is running (pid %ld): stop it before restoring a savepoint", name, pid);
        goto cleanup;
    }
    char what[PATH_MAX + 16];
    snprintf(what, sizeof what, "savepoint '%s'", savepoint);
    struct stat sb;
    if (stat(savepoint, &sb) != 0) {
        rc = tn_error_set(TN_ENOTFOUND, "%s does not exist", what);
        goto cleanup;
    }
    if (!S_ISREG(sb.st_mode)) {
        rc = tn_error_set(TN_EINVAL, "%s is not a tarn job savepoint (not a regular file)", what);
        goto cleanup;
    }
    rc = tn_stream_read_file(&b, savepoint, what);
    if (!rc) rc = tn_stream_savepoint_decode(&sp, (const char *)b.data, b.len, what);
    if (rc) goto cleanup;
    const char *app = json_string_value(json_object_get(sp.job, "app_id"));
    rc = resolve_sql(&src, &target, wh, json_string_value(json_object_get(sp.job, "sql")));
    if (rc) {
        rc = tn_error_prefix(rc, "%s: the job's statement", what);
        goto cleanup;
    }
    rc = tn_stream_pos_for_source(sp.kind, &src, what, "position");
    if (!rc) rc = tn_stream_pos_check(&src, &sp.pos, what);
    if (rc) goto cleanup;
    int64_t txn = -1;
    rc = target_txn(target, app, &txn, NULL, 0);
    if (rc) goto cleanup;
    if (txn > sp.batch) {
        rc = tn_error_set(TN_EINVAL, "savepoint '%s' is stale: the target already holds batch %lld of this job, the "
                          "savepoint only %lld (restoring it would read the batches after it again); restore the latest "
                          "savepoint", savepoint, (long long)txn, (long long)sp.batch);
        goto cleanup;
    }
    spec = json_deep_copy(sp.job);
    if (!spec) { rc = TN_ENOMEM; goto cleanup; }
    json_object_set_new(spec, "name", json_string(name));
    rc = make_dirs(wh, dir);
    if (!rc) {
        tn_stream_state st;
        memset(&st, 0, sizeof st);
        st.state = "restored";
        st.kind = sp.kind;
        st.batch = sp.batch;
        st.pos = sp.pos;                                /* borrowed */
        st.rows = sp.rows;
        st.updated_ms = now_ms();
        rc = write_state(dir, &st);
    }
    if (!rc) rc = write_in(dir, "job.json", spec);
cleanup:
    json_decref(spec);
    tn_buf_free(&b);
    tn_stream_savepoint_free(&sp);
    tn_stream_source_free(&src);
    tn_free(target);
    tn_free(dir);
    return rc;
}

int tn_stream_job_write_stop(const char *wh, const char *name, const char *savepoint) {
    char *dir = NULL;
    int rc = job_dir(&dir, wh, name);
    if (rc) return rc;
    char abs[PATH_MAX * 2];
    abs[0] = 0;
    if (savepoint && savepoint[0] != '/') {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) rc = tn_error_set(TN_EIO, "getcwd: %s", strerror(errno));
        snprintf(abs, sizeof abs, "%s/%s", cwd, savepoint);
    } else if (savepoint) {
        snprintf(abs, sizeof abs, "%s", savepoint);
    }
    char *p = file_in(dir, "stop");
    if (!rc && !p) rc = TN_ENOMEM;
    if (!rc) rc = tn_stream_write_file(p, abs, strlen(abs));
    tn_free(p);
    tn_free(dir);
    return rc;
}

int tn_stream_job_drop(const char *wh, const char *name) {
    char *dir = NULL;
    int rc = job_dir(&dir, wh, name);
    if (rc) return rc;
    bool exists, running;
    long pid;
    rc = probe_dir(dir, &exists, &running, &pid);
    if (!rc && !exists) rc = tn_error_set(TN_ENOTFOUND, "job '%s' does not exist", name);
    if (!rc && running) rc = tn_error_set(TN_EEXISTS, "job '%s' is running (pid %ld): stop or cancel it first", name, pid);
    static const char *const files[] = {"job.json", "state.json", "lock", "pid", "stop", "log"};
    for (size_t i = 0; !rc && i < sizeof files / sizeof *files; i++) {
        char *p = file_in(dir, files[i]);
        if (!p) rc = TN_ENOMEM;
        else if (unlink(p) != 0 && errno != ENOENT) rc = tn_error_set(TN_EIO, "%s: %s", p, strerror(errno));
        tn_free(p);
    }
    DIR *dd = rc ? NULL : opendir(dir);   /* temp files of state writes a kill interrupted */
    struct dirent *e;
    while (dd && (e = readdir(dd))) {
        if (!strstr(e->d_name, ".tmp-")) continue;
        char *p = file_in(dir, e->d_name);
        if (p) unlink(p);
        tn_free(p);
    }
    if (dd) closedir(dd);
    if (!rc && rmdir(dir) != 0)
        rc = tn_error_set(TN_EIO, "%s: cannot remove (files other than the job's inside?): %s", dir, strerror(errno));
    tn_free(dir);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Open and run.
 */
void tn_stream_job_close(tn_stream_job *j) {
    if (!j) return;
    tn_sql_session_close(j->session);
    if (j->lock_fd >= 0) close(j->lock_fd);
    json_decref(j->spec);
    tn_stream_source_free(&j->src);
    tn_stream_pos_free(&j->pos);
    tn_free(j->target);
    tn_free(j->savepoint);
    tn_free(j->wh);
    tn_free(j->name);
    tn_free(j->dir);
    tn_free(j);
}

int tn_stream_job_open(tn_stream_job **out, const char *wh, const char *name) {
    *out = NULL;
    tn_stream_job *j = tn_calloc(1, sizeof *j);
    if (!j) return TN_ENOMEM;
    j->lock_fd = -1;
    j->wh = tn_strdup(wh);
    j->name = tn_strdup(name);
    int rc = j->wh && j->name ? job_dir(&j->dir, wh, name) : TN_ENOMEM;
    if (rc) goto cleanup;
    {
        char what[PATH_MAX + 32];
        what_in(what, sizeof what, "job definition", j->dir, "job.json");
        char *p = file_in(j->dir, "job.json");
        tn_buf b = TN_BUF_INIT;
        rc = p ? tn_stream_read_file(&b, p, what) : TN_ENOMEM;
        if (rc == TN_ENOTFOUND) rc = tn_error_set(TN_ENOTFOUND, "job '%s' does not exist", name);
        if (!rc) rc = tn_stream_spec_decode(&j->spec, &j->opts, (const char *)b.data, b.len, what);
        tn_buf_free(&b);
        tn_free(p);
        if (rc) goto cleanup;
    }
    j->sql = json_string_value(json_object_get(j->spec, "sql"));
    j->app_id = json_string_value(json_object_get(j->spec, "app_id"));
    *out = j;
    j = NULL;
cleanup:
    tn_stream_job_close(j);
    return rc;
}

void tn_stream_job_request_stop(tn_stream_job *j) { __atomic_store_n(&j->stop, 1, __ATOMIC_RELAXED); }

void tn_stream_job_request_cancel(tn_stream_job *j) {
    __atomic_store_n(&j->cancel, 1, __ATOMIC_RELAXED);
    if (j->session) tn_sql_session_interrupt(j->session);
}

static bool want_stop(const tn_stream_job *j) { return __atomic_load_n(&j->stop, __ATOMIC_RELAXED) != 0; }
static bool want_cancel(const tn_stream_job *j) { return __atomic_load_n(&j->cancel, __ATOMIC_RELAXED) != 0; }

static int save_state(tn_stream_job *j, const char *state, const tn_stream_pos *pending_pos, int64_t pending_batch,
                      const char *err) {
    tn_stream_state st;                  /* every pointer borrowed */
    memset(&st, 0, sizeof st);
    st.state = state;
    st.kind = j->src.kind;
    st.batch = j->batch;
    st.pos = j->pos;
    if (pending_pos) {
        st.has_pending = true;
        st.pending_batch = pending_batch;
        st.pending_pos = *pending_pos;
    }
    st.rows = j->rows;
    st.updated_ms = now_ms();
    st.last_batch_ms = j->last_batch_ms;
    st.last_error = (char *)err;
    st.savepoint = j->savepoint;
    return write_state(j->dir, &st);
}

/* A failed job: state "failed" and the error, the rest of state.json (position, pending) kept. */
static void mark_failed(tn_stream_job *j, const char *msg) {
    tn_stream_state st;
    if (read_state(&st, j->dir) != 0) {   /* a state that does not decode stays as it is: that is the error */
        tn_error_clear();
        return;
    }
    st.state = "failed";
    tn_free(st.last_error);
    st.last_error = tn_strdup(msg);
    st.updated_ms = now_ms();
    if (write_state(j->dir, &st) != 0) tn_error_clear();
    tn_stream_state_free(&st);
}

/* Fault injection for the exactly-once tests: TARN_JOB_FAULT=before-commit|after-commit kills the
 * process (SIGKILL) at that point of a batch with probability TARN_JOB_FAULT_PCT percent. */
static void fault_point(const tn_stream_job *j, const char *where) {
    const char *f = getenv("TARN_JOB_FAULT");
    if (!f || !strstr(f, where)) return;
    const char *pct = getenv("TARN_JOB_FAULT_PCT");
    int p = pct ? atoi(pct) : 100;
    if ((int)(tn_hash_u64((uint64_t)tn_time_now_us() ^ (uint64_t)getpid()) % 100) >= p) return;
    logf_(j, "fault injection: SIGKILL %s of batch %lld", where, (long long)j->batch + 1);
    kill(getpid(), SIGKILL);
}

typedef struct hook_ctx {
    tn_stream_job *j;
    const tn_stream_plan *plan;
} hook_ctx;

static int hook_table(void *ctx, struct tn_table **t) {
    hook_ctx *h = ctx;
    if (h->j->src.kind != TN_STREAM_TABLE) return 0;
    char rp[PATH_MAX];
    if (!realpath(tn_table_path(*t), rp) || strcmp(rp, h->j->src.real) != 0) return 0;
    tn_table *inc = NULL;
    int rc = tn_table_open_increment(&inc, tn_fs_default(), tn_table_path(*t), h->plan->read_version, h->plan->files,
                                     h->plan->nfiles);
    if (rc) return rc;
    tn_table_close(*t);
    *t = inc;
    return 0;
}

static int hook_files(void *ctx, const char *pattern, const char *const **paths, uint32_t *n, bool *handled) {
    hook_ctx *h = ctx;
    *handled = false;
    if (h->j->src.kind != TN_STREAM_FILES || strcmp(pattern, h->j->src.pattern) != 0) return 0;
    *handled = true;
    *paths = h->plan->paths;
    *n = h->plan->npaths;
    return 0;
}

/* Recovery at start: a pending batch is committed (the target's txn says so) or planned again. */
static int recover(tn_stream_job *j, tn_stream_state *st) {
    char what[PATH_MAX + 32];
    what_in(what, sizeof what, "job state", j->dir, "state.json");
    int rc = tn_stream_pos_for_source(st->kind, &j->src, what, "position");
    if (rc) return rc;
    j->batch = st->batch;
    j->rows = st->rows;
    j->last_batch_ms = st->last_batch_ms;
    if (st->savepoint) {
        j->savepoint = tn_strdup(st->savepoint);
        if (!j->savepoint) return TN_ENOMEM;
    }
    int64_t txn = -1;
    rc = target_txn(j->target, j->app_id, &txn, j->pin, sizeof j->pin);
    if (rc) return rc;
    tn_stream_pos *take = &st->pos;
    if (st->has_pending) {
        if (txn >= st->pending_batch) {
            take = &st->pending_pos;
            j->batch = st->pending_batch;
            logf_(j, "batch %lld was committed to the target before the job stopped: its position is taken",
                  (long long)st->pending_batch);
        } else {
            logf_(j, "batch %lld was not committed before the job stopped: it is planned again",
                  (long long)st->pending_batch);
        }
    }
    if (txn > j->batch)
        return tn_error_set(TN_ECORRUPT, "job '%s': the target holds batch %lld of this job but the job's state only "
                            "%lld (a state file from elsewhere?)", j->name, (long long)txn, (long long)j->batch);
    rc = tn_stream_pos_check(&j->src, take, what);
    if (rc) return rc;
    tn_stream_pos_free(&j->pos);
    j->pos = *take;                      /* moved out of st */
    memset(take, 0, sizeof *take);
    return 0;
}

static int run_batch(tn_stream_job *j, tn_stream_plan *plan, int64_t *rows_out, int64_t *version_out) {
    int64_t n = j->batch + 1;
    int rc = save_state(j, "running", &plan->end, n, NULL);
    if (rc) return rc;
    fault_point(j, "before-commit");
    hook_ctx h = {j, plan};
    const char *keys[1] = {"bucket"}, *vals[1] = {j->pin};
    tn_sql_batch b;
    memset(&b, 0, sizeof b);
    b.ctx = &h;
    b.table = hook_table;
    b.files = hook_files;
    b.app_id = j->app_id;
    b.app_version = n;
    if (j->pin[0]) {
        b.write_keys = keys;
        b.write_values = vals;
        b.nwrite = 1;
    }
    b.version = -1;
    tn_sql_session_set_batch(j->session, &b);
    tn_sql_result *res = NULL;
    rc = tn_sql_execute(&res, j->session, j->sql);
    tn_sql_session_set_batch(j->session, NULL);
    tn_sql_result_free(res);
    if (rc) return rc;
    fault_point(j, "after-commit");
    j->batch = n;
    tn_stream_pos_free(&j->pos);
    j->pos = plan->end;
    memset(&plan->end, 0, sizeof plan->end);
    j->rows += b.rows_written;
    j->last_batch_ms = now_ms();
    *rows_out = (int64_t)b.rows_written;
    *version_out = b.skipped ? -2 : b.version;
    return save_state(j, "running", NULL, 0, NULL);
}

static int write_savepoint(tn_stream_job *j, const char *path) {
    tn_stream_savepoint s;               /* every pointer borrowed */
    memset(&s, 0, sizeof s);
    s.job = j->spec;
    s.batch = j->batch;
    s.kind = j->src.kind;
    s.pos = j->pos;
    s.rows = j->rows;
    s.created_ms = now_ms();
    json_t *sp = tn_stream_savepoint_to_json(&s);
    int rc = tn_stream_write_json(path, sp);
    json_decref(sp);
    if (rc) return rc;
    tn_free(j->savepoint);
    j->savepoint = tn_strdup(path);
    return 0;
}

/* The stop request's savepoint path ("" none); NULL when there is no request file. */
static char *read_stop(const tn_stream_job *j) {
    char *p = file_in(j->dir, "stop");
    if (!p) return NULL;
    tn_buf b = TN_BUF_INIT;
    char *out = NULL;
    if (tn_fs_read_all(tn_fs_default(), p, &b) == 0) {
        out = tn_strndup(b.data ? (const char *)b.data : "", b.len);
        unlink(p);
    } else {
        tn_error_clear();
    }
    tn_buf_free(&b);
    tn_free(p);
    return out;
}

static void sleep_ms(const tn_stream_job *j, int64_t ms) {
    int64_t end = now_ms() + ms;
    while (!want_stop(j) && !want_cancel(j)) {
        int64_t left = end - now_ms();
        if (left <= 0) break;
        struct timespec ts = {0, (long)((left < 10 ? left : 10) * 1000000)};
        nanosleep(&ts, NULL);
    }
}

int tn_stream_job_run(tn_stream_job *j, const tn_stream_run_options *ro) {
    tn_stream_run_options dflt = TN_STREAM_RUN_OPTIONS_INIT;
    if (!ro) ro = &dflt;
    bool started = false;
    tn_stream_state st;
    memset(&st, 0, sizeof st);
    int rc = 0;
    char *lock = file_in(j->dir, "lock");
    if (!lock) { rc = TN_ENOMEM; goto cleanup; }
    j->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    tn_free(lock);
    if (j->lock_fd < 0) {
        rc = tn_error_set(TN_EIO, "%s/lock: %s", j->dir, strerror(errno));
        goto cleanup;
    }
    if (flock(j->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        bool e, r;
        long pid = 0;
        probe_dir(j->dir, &e, &r, &pid);
        rc = tn_error_set(TN_EEXISTS, "job '%s' is already running (pid %ld)", j->name, pid);
        close(j->lock_fd);
        j->lock_fd = -1;
        goto cleanup;
    }
    {
        char pid[32];
        snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        char *pf = file_in(j->dir, "pid");
        rc = pf ? tn_stream_write_file(pf, pid, strlen(pid)) : TN_ENOMEM;
        tn_free(pf);
        if (rc) goto cleanup;
    }
    char *old_stop = read_stop(j);        /* a request left by a job that died */
    tn_free(old_stop);
    const char *cwd = json_string_value(json_object_get(j->spec, "cwd"));
    if (cwd && chdir(cwd) != 0) {
        rc = tn_error_set(TN_EIO, "job '%s': cannot enter its directory '%s': %s", j->name, cwd, strerror(errno));
        goto cleanup;
    }
    rc = resolve_sql(&j->src, &j->target, j->wh, j->sql);
    if (!rc) rc = tn_stream_options_check(&j->src, json_object_get(j->spec, "options"));
    if (rc) goto cleanup;
    rc = read_state(&st, j->dir);
    if (!rc) rc = recover(j, &st);
    if (!rc) rc = tn_sql_session_open(&j->session, j->wh, ro->threads);
    if (!rc) rc = save_state(j, "running", NULL, 0, NULL);
    if (rc) goto cleanup;
    started = true;
    if (ro->started) ro->started(ro->started_ctx, 0);
    {
        char *pt = tn_stream_pos_text(&j->src, &j->pos);
        logf_(j, "running (pid %ld): source %s, %s, last batch %lld%s%s", (long)getpid(), j->src.label, pt ? pt : "?",
              (long long)j->batch, j->pin[0] ? ", writing with bucket count " : "", j->pin);
        tn_free(pt);
    }
    for (;;) {
        if (want_cancel(j) || want_stop(j)) break;
        tn_stream_plan plan;
        int64_t t0 = (int64_t)(tn_time_ns() / 1000000);   /* a batch's time in the log: plan to state write */
        rc = tn_stream_plan_next(&plan, &j->src, &j->pos, &j->opts);
        if (rc) break;
        bool more = plan.more;
        if (plan.nfiles || plan.npaths) {
            int64_t rows = 0, version = -1;
            uint32_t nf = plan.nfiles + plan.npaths;
            rc = run_batch(j, &plan, &rows, &version);
            tn_stream_plan_free(&plan);
            if (rc) {
                if (rc == TN_EINTERRUPT && want_cancel(j)) {
                    tn_error_clear();
                    rc = 0;
                    save_state(j, "running", NULL, 0, NULL);   /* the batch in flight committed nothing */
                }
                break;
            }
            logf_(j, "batch %lld: %u source file%s, %lld rows, target version %lld, %lld ms", (long long)j->batch, nf,
                  nf == 1 ? "" : "s", (long long)rows, (long long)version,
                  (long long)((int64_t)(tn_time_ns() / 1000000) - t0));
        } else {
            if (plan.advanced) {
                tn_stream_pos_free(&j->pos);
                j->pos = plan.end;
                memset(&plan.end, 0, sizeof plan.end);
                rc = save_state(j, "running", NULL, 0, NULL);
            }
            tn_stream_plan_free(&plan);
            if (rc) break;
        }
        if (!more) sleep_ms(j, j->opts.poll_ms);
    }
    if (!rc) {
        const char *state = "canceled";
        if (!want_cancel(j)) {
            state = "stopped";
            char *sp = read_stop(j);
            if (sp && *sp) {
                rc = write_savepoint(j, sp);
                if (!rc) logf_(j, "savepoint written to %s (batch %lld)", sp, (long long)j->batch);
            }
            tn_free(sp);
        }
        if (!rc) {
            rc = save_state(j, state, NULL, 0, NULL);
            logf_(j, "%s at batch %lld (%llu rows written in all)", state, (long long)j->batch,
                  (unsigned long long)j->rows);
        }
    }
cleanup:
    if (rc) {
        char msg[1100];
        snprintf(msg, sizeof msg, "%s", tn_error_message());
        logf_(j, "failed: %s", msg);
        if (j->lock_fd >= 0) mark_failed(j, msg);
        tn_error_set(rc, "%s", msg);
    }
    tn_stream_state_free(&st);
    if (j->lock_fd >= 0) {
        char *pf = file_in(j->dir, "pid");
        if (pf) unlink(pf);
        tn_free(pf);
        close(j->lock_fd);
        j->lock_fd = -1;
    }
    /* last: the starter returns at this call and may change the job's files or start it again */
    if (rc && !started && ro->started) ro->started(ro->started_ctx, rc);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Status and listing.
 */
void tn_stream_info_free(tn_stream_info *i) {
    if (!i) return;
    tn_free(i->name);
    tn_free(i->state);
    tn_free(i->sql);
    tn_free(i->app_id);
    tn_free(i->source);
    tn_free(i->target);
    tn_free(i->position);
    tn_free(i->last_error);
    tn_free(i->options);
    tn_free(i->savepoint);
    memset(i, 0, sizeof *i);
}

static char *dup_or_null(const char *s) { return s ? tn_strdup(s) : NULL; }

int tn_stream_job_info(tn_stream_info *out, const char *wh, const char *name) {
    memset(out, 0, sizeof *out);
    tn_stream_job *j = NULL;
    tn_stream_state st;
    memset(&st, 0, sizeof st);
    bool exists, running;
    int rc = tn_stream_job_probe(wh, name, &exists, &running, &out->pid);
    if (!rc && !exists) rc = tn_error_set(TN_ENOTFOUND, "job '%s' does not exist", name);
    if (!rc) rc = tn_stream_job_open(&j, wh, name);
    if (!rc) rc = read_state(&st, j->dir);
    if (rc) goto cleanup;
    out->running = running;
    out->name = tn_strdup(name);
    const char *state = st.state;
    if (!running && strcmp(state, "running") == 0) state = "died";   /* killed: resume with tarn job start */
    if (running) state = "running";
    out->state = tn_strdup(state);
    out->sql = dup_or_null(j->sql);
    out->app_id = dup_or_null(j->app_id);
    out->batches = st.batch;
    out->rows = st.rows;
    out->updated_ms = st.updated_ms;
    out->last_batch_ms = st.last_batch_ms;
    out->last_error = dup_or_null(st.last_error);
    out->savepoint = dup_or_null(st.savepoint);
    char *opts = json_dumps(json_object_get(j->spec, "options"), JSON_COMPACT | JSON_SORT_KEYS);
    out->options = dup_or_null(opts);
    free(opts);
    out->lag = -1;
    const char *cwd = json_string_value(json_object_get(j->spec, "cwd"));
    char here[PATH_MAX];
    bool moved = cwd && getcwd(here, sizeof here) && chdir(cwd) == 0;
    char *target = NULL;
    if (resolve_sql(&j->src, &target, wh, j->sql) == 0) {
        out->source = tn_strdup(j->src.label);
        out->target = target;
        target = NULL;
        if (st.kind == j->src.kind) {
            out->position = tn_stream_pos_text(&j->src, &st.pos);
            tn_stream_lag(&j->src, &st.pos, &out->lag);
        }
        out->lag_unit = j->src.kind == TN_STREAM_TABLE ? "versions" : "files";
    }
    tn_error_clear();
    tn_free(target);
    if (moved && chdir(here) != 0) rc = tn_error_set(TN_EIO, "chdir: %s", strerror(errno));
cleanup:
    tn_stream_state_free(&st);
    tn_stream_job_close(j);
    if (rc) tn_stream_info_free(out);
    return rc;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int tn_stream_job_list(const char *wh, char ***names, uint32_t *n) {
    *names = NULL;
    *n = 0;
    char *jobs = file_in(wh, TN_STREAM_JOBS_DIR);
    if (!jobs) return TN_ENOMEM;
    DIR *d = opendir(jobs);
    tn_free(jobs);
    if (!d) return errno == ENOENT ? 0 : tn_error_set(TN_EIO, "%s/%s: %s", wh, TN_STREAM_JOBS_DIR, strerror(errno));
    uint32_t cap = 0;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.' || tn_catalog_check_name("job", e->d_name) != 0) {
            tn_error_clear();
            continue;
        }
        bool exists, running;
        long pid;
        if (tn_stream_job_probe(wh, e->d_name, &exists, &running, &pid) || !exists) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = tn_realloc(*names, sizeof *nn * cap);
            if (!nn) { rc = TN_ENOMEM; break; }
            *names = nn;
        }
        (*names)[*n] = tn_strdup(e->d_name);
        if (!(*names)[*n]) rc = TN_ENOMEM;
        else (*n)++;
    }
    closedir(d);
    if (*n) qsort(*names, *n, sizeof **names, cmp_name);
    return rc;
}
