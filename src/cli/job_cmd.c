/*
 * cli/job_cmd.c: `tarn job start|stop|cancel|status|list|drop`: the process side of continuous
 * jobs (stream/stream.h does the work): the daemon (double fork, setsid, stdin from /dev/null,
 * stdout/stderr appended to _jobs/NAME/log, a pipe telling the parent whether it started), the
 * signals a running job obeys (SIGUSR1: stop after the batch in flight; SIGTERM/SIGINT: cancel
 * now), and waiting for a stopped job's process to end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stream/stream.h"
#include "text/text.h"

static const char job_usage[] =
    "usage: tarn job start NAME [-w DIR] -c \"INSERT INTO t SELECT ... FROM source ...\" [--option K=V]...\n"
    "                      [--poll-interval D] [--max-batch-files N] [--foreground]\n"
    "       tarn job start NAME [-w DIR] [--foreground]            resume a stopped, canceled or failed job\n"
    "       tarn job start NAME [-w DIR] --from-savepoint PATH [--foreground]\n"
    "       tarn job stop NAME [-w DIR] [--savepoint PATH]         finish the batch in flight, then stop\n"
    "       tarn job cancel NAME [-w DIR]                          stop now (the batch in flight commits nothing)\n"
    "       tarn job status NAME [-w DIR] [--json]\n"
    "       tarn job list [-w DIR]\n"
    "       tarn job drop NAME [-w DIR]                            remove a job that is not running\n"
    "Options (--option K=V): poll-interval (1s), max-batch-files (1000), starting-version (snapshot |\n"
    "latest | N), ignoreDeletes (false), ignoreChanges (false).\n";

static tn_stream_job *g_job;

static void on_stop(int sig) {
    (void)sig;
    if (g_job) tn_stream_job_request_stop(g_job);
}

static void on_cancel(int sig) {
    (void)sig;
    if (g_job) tn_stream_job_request_cancel(g_job);
}

static void job_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_cancel;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
}

static int usage(const char *msg) {
    if (msg) fprintf(stderr, "tarn: %s\n", msg);
    fputs(job_usage, stderr);
    return TN_CLI_USAGE;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The started callback of a daemon: one line on the pipe, "ok PID" or "error MESSAGE". */
static void report_started(void *ctx, int rc) {
    int fd = *(int *)ctx;
    if (fd < 0) return;
    char line[1200];
    if (rc == 0) snprintf(line, sizeof line, "ok %ld\n", (long)getpid());
    else snprintf(line, sizeof line, "error %s\n", tn_error_message());
    ssize_t w = write(fd, line, strlen(line));
    (void)w;
    close(fd);
    *(int *)ctx = -1;
}

static int run_here(const char *wh, const char *name, int *report_fd) {
    tn_stream_job *j = NULL;
    int rc = tn_stream_job_open(&j, wh, name);
    if (rc) {
        report_started(report_fd, rc);
        return tn_cli_fail(NULL);
    }
    g_job = j;
    job_signals();
    tn_stream_run_options ro = TN_STREAM_RUN_OPTIONS_INIT;
    ro.started = report_started;
    ro.started_ctx = report_fd;
    rc = tn_stream_job_run(j, &ro);
    g_job = NULL;
    tn_stream_job_close(j);
    if (rc) return tn_cli_fail(NULL);
    return TN_CLI_OK;
}

static int start_daemon(const char *wh, const char *name) {
    int fds[2];
    if (pipe(fds) != 0) return tn_cli_errorf(TN_CLI_ERROR, "pipe: %s", strerror(errno));
    char log[PATH_MAX * 2 + 64];
    snprintf(log, sizeof log, "%s/%s/%s/log", wh, TN_STREAM_JOBS_DIR, name);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) return tn_cli_errorf(TN_CLI_ERROR, "fork: %s", strerror(errno));
    if (child == 0) {
        close(fds[0]);
        setsid();
        pid_t g = fork();
        if (g != 0) _exit(g < 0 ? 1 : 0);
        int in = open("/dev/null", O_RDONLY);
        int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in < 0 || out < 0) {
            char msg[sizeof log + 128];
            snprintf(msg, sizeof msg, "error %s: %s\n", log, strerror(errno));
            ssize_t w = write(fds[1], msg, strlen(msg));
            (void)w;
            _exit(1);
        }
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        close(in);
        close(out);
        int fd = fds[1];
        int rc = run_here(wh, name, &fd);
        fflush(stderr);
        _exit(rc);
    }
    close(fds[1]);
    int st = 0;
    waitpid(child, &st, 0);
    char buf[1300];
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fds[0], buf + n, sizeof buf - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
        if (n >= sizeof buf - 1 || memchr(buf, '\n', n)) break;
    }
    close(fds[0]);
    buf[n] = 0;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
    if (strncmp(buf, "ok ", 3) == 0) {
        printf("job %s started (pid %s); log: %s\n", name, buf + 3, log);
        return TN_CLI_OK;
    }
    if (strncmp(buf, "error ", 6) == 0) return tn_cli_errorf(TN_CLI_ERROR, "%s", buf + 6);
    return tn_cli_errorf(TN_CLI_ERROR, "job %s: the daemon ended before it started (see %s)", name, log);
}

/* Waits until job NAME's process has ended (its lock is free). */
static int wait_ended(const char *wh, const char *name, int kill_after_ms) {
    int waited = 0;
    for (;;) {
        bool exists, running;
        long pid;
        if (tn_stream_job_probe(wh, name, &exists, &running, &pid)) return tn_cli_fail(NULL);
        if (!running) return TN_CLI_OK;
        if (kill_after_ms > 0 && waited >= kill_after_ms && pid > 0) {
            kill((pid_t)pid, SIGKILL);
            kill_after_ms = 0;
        }
        sleep_ms(20);
        waited += 20;
    }
}

static long running_pid(const char *wh, const char *name, bool *exists, bool *running) {
    long pid = 0;
    for (int i = 0; i < 100; i++) {   /* the pid file follows the lock by a moment */
        if (tn_stream_job_probe(wh, name, exists, running, &pid)) return -1;
        if (!*running || pid > 0) break;
        sleep_ms(10);
    }
    return pid;
}

static int cmd_stop(const char *wh, const char *name, const char *savepoint, bool cancel) {
    bool exists, running;
    long pid = running_pid(wh, name, &exists, &running);
    if (pid < 0) return tn_cli_fail(NULL);
    if (!exists) return tn_cli_errorf(TN_CLI_ERROR, "job '%s' does not exist", name);
    if (!running) {
        tn_stream_info info;
        const char *state = "stopped";
        bool have = tn_stream_job_info(&info, wh, name) == 0;
        if (have) state = info.state;
        tn_cli_errorf(TN_CLI_ERROR, "job '%s' is not running (state: %s)", name, state);
        if (have) tn_stream_info_free(&info);
        return TN_CLI_ERROR;
    }
    if (!cancel && tn_stream_job_write_stop(wh, name, savepoint)) return tn_cli_fail(NULL);
    if (pid > 0 && kill((pid_t)pid, cancel ? SIGTERM : SIGUSR1) != 0 && errno != ESRCH)
        return tn_cli_errorf(TN_CLI_ERROR, "job '%s': cannot signal pid %ld: %s", name, pid, strerror(errno));
    int rc = wait_ended(wh, name, cancel ? 30000 : 0);
    if (rc) return rc;
    tn_stream_info info;
    if (tn_stream_job_info(&info, wh, name)) return tn_cli_fail(NULL);
    if (strcmp(info.state, "failed") == 0) {
        tn_cli_errorf(TN_CLI_ERROR, "job '%s' failed: %s", name, info.last_error ? info.last_error : "?");
        tn_stream_info_free(&info);
        return TN_CLI_ERROR;
    }
    printf("job %s %s at batch %lld (%llu rows written)\n", name, info.state, (long long)info.batches,
           (unsigned long long)info.rows);
    if (!cancel && savepoint) {
        if (!info.savepoint) {
            tn_stream_info_free(&info);
            return tn_cli_errorf(TN_CLI_ERROR, "job '%s' stopped without writing its savepoint (see its log)", name);
        }
        printf("savepoint: %s\n", info.savepoint);
    }
    tn_stream_info_free(&info);
    return TN_CLI_OK;
}

static void print_ms(const char *label, int64_t ms) {
    if (ms <= 0) {
        printf("%-12s-\n", label);
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char b[40];
    strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%-12s%s.%03d UTC\n", label, b, (int)(ms % 1000));
}

static void json_str(const char *k, const char *v, bool last) {
    tn_buf b = TN_BUF_INIT;
    if (v) tn_json_append_string(&b, v, strlen(v));
    printf("\"%s\":%.*s%s", k, v ? (int)b.len : 4, v ? (const char *)b.data : "null", last ? "" : ",");
    tn_buf_free(&b);
}

static int cmd_status(const char *wh, const char *name, bool json) {
    tn_stream_info i;
    if (tn_stream_job_info(&i, wh, name)) return tn_cli_fail(NULL);
    if (json) {
        printf("{");
        json_str("name", i.name, false);
        json_str("state", i.state, false);
        printf("\"pid\":%ld,\"batches\":%lld,\"rows\":%llu,\"lag\":%lld,", i.running ? i.pid : 0L, (long long)i.batches,
               (unsigned long long)i.rows, (long long)i.lag);
        json_str("lag_unit", i.lag_unit, false);
        json_str("source", i.source, false);
        json_str("target", i.target, false);
        json_str("position", i.position, false);
        json_str("savepoint", i.savepoint, false);
        json_str("last_error", i.last_error, false);
        printf("\"last_batch_ms\":%lld,", (long long)i.last_batch_ms);
        json_str("sql", i.sql, true);
        printf("}\n");
    } else {
        printf("%-12s%s\n", "job:", i.name);
        if (i.running) printf("%-12s%s (pid %ld)\n", "state:", i.state, i.pid);
        else printf("%-12s%s\n", "state:", i.state);
        printf("%-12s%s\n", "source:", i.source ? i.source : "?");
        printf("%-12s%s\n", "target:", i.target ? i.target : "?");
        printf("%-12s%s\n", "position:", i.position ? i.position : "?");
        printf("%-12s%lld\n", "batches:", (long long)i.batches);
        printf("%-12s%llu\n", "rows:", (unsigned long long)i.rows);
        if (i.lag >= 0) printf("%-12s%lld %s\n", "lag:", (long long)i.lag, i.lag_unit);
        else printf("%-12s?\n", "lag:");
        print_ms("last batch:", i.last_batch_ms);
        printf("%-12s%s\n", "options:", i.options ? i.options : "{}");
        if (i.savepoint) printf("%-12s%s\n", "savepoint:", i.savepoint);
        printf("%-12s%s\n", "last error:", i.last_error ? i.last_error : "-");
        printf("%-12s%s\n", "sql:", i.sql ? i.sql : "?");
    }
    tn_stream_info_free(&i);
    return TN_CLI_OK;
}

static int cmd_list(const char *wh) {
    char **names = NULL;
    uint32_t n = 0;
    if (tn_stream_job_list(wh, &names, &n)) return tn_cli_fail(NULL);
    printf("%-24s %-9s %8s %12s  %s\n", "NAME", "STATE", "BATCHES", "ROWS", "SOURCE");
    for (uint32_t k = 0; k < n; k++) {
        tn_stream_info i;
        if (tn_stream_job_info(&i, wh, names[k]) == 0) {
            printf("%-24s %-9s %8lld %12llu  %s\n", i.name, i.state, (long long)i.batches, (unsigned long long)i.rows,
                   i.source ? i.source : "?");
            tn_stream_info_free(&i);
        } else {
            printf("%-24s %-9s %8s %12s  %s\n", names[k], "broken", "-", "-", tn_error_message());
        }
        tn_free(names[k]);
    }
    tn_free(names);
    return TN_CLI_OK;
}

int tn_cli_job(int argc, char **argv, const char *warehouse) {
    if (argc < 2) return usage(NULL);
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 || strcmp(verb, "help") == 0) {
        fputs(job_usage, stdout);
        return TN_CLI_OK;
    }
    const char *name = NULL, *sql = NULL, *savepoint = NULL, *from = NULL;
    bool foreground = false, json = false;
    tn_stream_kv opts[32];
    uint32_t nopts = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool has = i + 1 < argc;
        if ((!strcmp(a, "-w") || !strcmp(a, "--warehouse")) && has) warehouse = argv[++i];
        else if (!strcmp(a, "-c") && has) sql = argv[++i];
        else if (!strcmp(a, "--savepoint") && has) savepoint = argv[++i];
        else if (!strcmp(a, "--from-savepoint") && has) from = argv[++i];
        else if (!strcmp(a, "--foreground")) foreground = true;
        else if (!strcmp(a, "--json")) json = true;
        else if ((!strcmp(a, "--option") || !strcmp(a, "-o")) && has) {
            char *kv = argv[++i], *eq = strchr(kv, '=');
            if (!eq || eq == kv) return usage("--option takes KEY=VALUE");
            if (nopts == 32) return usage("too many --option");
            *eq = 0;
            opts[nopts].key = kv;
            opts[nopts++].value = eq + 1;
        } else if ((!strcmp(a, "--poll-interval") || !strcmp(a, "--max-batch-files") ||
                    !strcmp(a, "--starting-version")) && has) {
            if (nopts == 32) return usage("too many options");
            opts[nopts].key = a + 2;
            opts[nopts++].value = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "tarn: job %s: unknown option %s\n", verb, a);
            return usage(NULL);
        } else if (!name) name = a;
        else return usage("one job name only");
    }
    /* a flag of another verb is refused, never ignored */
    bool is_start = strcmp(verb, "start") == 0;
    const char *stray = !is_start && sql ? "-c" : !is_start && from ? "--from-savepoint"
                      : !is_start && foreground ? "--foreground" : !is_start && nopts ? "job options"
                      : strcmp(verb, "stop") != 0 && savepoint ? "--savepoint"
                      : strcmp(verb, "status") != 0 && json ? "--json" : NULL;
    if (stray) {
        fprintf(stderr, "tarn: job %s: %s does not apply to it\n", verb, stray);
        return usage(NULL);
    }
    if (!warehouse) warehouse = getenv("TARN_WAREHOUSE");
    if (!warehouse) warehouse = "warehouse";
    char wh[PATH_MAX];
    if (!realpath(warehouse, wh)) return tn_cli_errorf(TN_CLI_ERROR, "warehouse '%s': %s", warehouse, strerror(errno));
    if (strcmp(verb, "list") == 0) return name ? usage("job list takes no name") : cmd_list(wh);
    if (!name) return usage("a job name is needed");
    if (strcmp(verb, "status") == 0) return cmd_status(wh, name, json);
    if (strcmp(verb, "stop") == 0) return cmd_stop(wh, name, savepoint, false);
    if (strcmp(verb, "cancel") == 0) return cmd_stop(wh, name, NULL, true);
    if (strcmp(verb, "drop") == 0) {
        if (tn_stream_job_drop(wh, name)) return tn_cli_fail(NULL);
        printf("job %s dropped\n", name);
        return TN_CLI_OK;
    }
    if (strcmp(verb, "start") != 0) return usage("unknown job command");
    if (sql && from) return usage("-c and --from-savepoint: a savepoint holds the job's statement already");
    if (nopts && !sql) return usage("options are given with -c when the job is created");
    bool exists, running;
    long pid = 0;
    if (tn_stream_job_probe(wh, name, &exists, &running, &pid)) return tn_cli_fail(NULL);
    if (running) return tn_cli_errorf(TN_CLI_ERROR, "job '%s' is already running (pid %ld)", name, pid);
    if (sql) {
        if (tn_stream_job_create(wh, name, sql, opts, nopts)) return tn_cli_fail(NULL);
    } else if (from) {
        if (tn_stream_job_restore(wh, name, from)) return tn_cli_fail(NULL);
    } else if (!exists) {
        return tn_cli_errorf(TN_CLI_ERROR, "job '%s' does not exist: create it with -c \"INSERT INTO ... SELECT ...\"", name);
    }
    if (foreground) {
        int fd = -1;
        return run_here(wh, name, &fd);
    }
    return start_daemon(wh, name);
}
