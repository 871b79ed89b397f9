/*
 * stream/source.c: what a continuous job streams from and how far it has read: the source of its
 * SQL (the leftmost FROM item: a table, delta_scan, or a read_* file pattern), exact positions
 * (log version + index of the data add in it; the set of files taken) as JSON, the plan of the
 * next micro-batch (Delta streaming's rules: appends only unless ignoreDeletes/ignoreChanges),
 * the lag, and atomic JSON files. Does not run SQL (job.c does).
 */
#include "stream/streamInt.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * The source of a statement.
 */
void tn_stream_source_free(tn_stream_source *src) {
    if (!src) return;
    tn_free(src->label);
    tn_free(src->path);
    tn_free(src->real);
    tn_free(src->pattern);
    memset(src, 0, sizeof *src);
}

typedef struct cte_scope {
    const tn_sql_query *q;
    const struct cte_scope *parent;
} cte_scope;

static const tn_sql_tableref *leftmost(const tn_sql_query *q, const cte_scope *up, int depth);

static const tn_sql_tableref *leftmost_ref(const tn_sql_tableref *t, const cte_scope *sc, int depth) {
    while (t && depth < 64) {
        if (t->kind == TN_SQL_T_JOIN) {
            t = t->u.join.left;
            continue;
        }
        if (t->kind == TN_SQL_T_SUBQUERY) return leftmost(t->u.subquery.query, sc, depth + 1);
        if (t->kind == TN_SQL_T_TABLE && t->u.table.name.n == 1) {
            const char *nm = t->u.table.name.parts[0].name;
            for (const cte_scope *s = sc; s; s = s->parent)
                for (int i = 0; i < s->q->n_ctes; i++)
                    if (tn_str_iequal(s->q->ctes[i].name.name, nm)) return leftmost(s->q->ctes[i].query, s, depth + 1);
        }
        return t;
    }
    return NULL;
}

static const tn_sql_tableref *leftmost(const tn_sql_query *q, const cte_scope *up, int depth) {
    while (q && depth < 64) {
        cte_scope sc = {q, up};
        if (q->kind == TN_SQL_Q_SELECT) return leftmost_ref(q->u.select.from, &sc, depth + 1);
        if (q->kind != TN_SQL_Q_SETOP) return NULL;
        if (q->n_ctes) return leftmost(q->u.setop.left, &sc, depth + 1);
        q = q->u.setop.left;
        depth++;
    }
    return NULL;
}

static int table_path(char **out, tn_catalog *cat, const tn_sql_qname *q, const char *what) {
    *out = NULL;
    char text[600];
    size_t off = 0;
    text[0] = 0;
    for (int i = 0; i < q->n && off < sizeof text - 1; i++)
        off += (size_t)snprintf(text + off, sizeof text - off, "%s%s", i ? "." : "", q->parts[i].name);
    tn_catalog_name cn;
    if (q->n > 2 || tn_catalog_name_make(&cn, "table", q->n == 2 ? q->parts[0].name : NULL, q->parts[q->n - 1].name))
        return tn_error_set(TN_ENOTFOUND, "%s: Table with name %s does not exist", what, text);
    bool is_table = false, is_view = false;
    int rc = tn_catalog_table_exists(cat, &cn, &is_table);
    if (!rc && !is_table) rc = tn_catalog_view_exists(cat, &cn, &is_view);
    if (rc) return rc;
    if (is_view)
        return tn_error_set(TN_EUNSUPPORTED, "%s: %s is a view; a job streams from a table, delta_scan('path') or a "
                            "read_parquet/read_csv/read_json pattern", what, text);
    if (!is_table) return tn_error_set(TN_ENOTFOUND, "%s: Table with name %s does not exist", what, text);
    return tn_catalog_table_path(cat, &cn, out);
}

static const char *string_arg(const tn_sql_expr *f) {
    if (f->u.func.args.n < 1 || (f->u.func.arg_names && f->u.func.arg_names[0].name)) return NULL;
    const tn_sql_expr *a = f->u.func.args.items[0];
    if (a->kind != TN_SQL_E_LITERAL || a->u.lit.kind != TN_SQL_LIT_STRING) return NULL;
    return a->u.lit.text;
}

int tn_stream_source_resolve(tn_stream_source *src, char **target_path, const char *wh, const tn_sql_stmt *st) {
    memset(src, 0, sizeof *src);
    *target_path = NULL;
    if (!st || st->kind != TN_SQL_S_INSERT || st->u.insert.upsert)
        return tn_error_set(TN_EINVAL, "a job runs one INSERT INTO target SELECT ... FROM source ... statement");
    if (st->u.insert.overwrite)
        return tn_error_set(TN_EINVAL, "a job appends each batch: INSERT OVERWRITE cannot run continuously (use INSERT "
                            "INTO, or run the overwrite once in batch mode)");
    const tn_sql_query *q = st->u.insert.query;
    if (!q || q->kind == TN_SQL_Q_VALUES)
        return tn_error_set(TN_EINVAL, "a job runs INSERT INTO ... SELECT ... FROM a source; VALUES has no source");
    tn_catalog *cat = NULL;
    int rc = tn_catalog_open(&cat, tn_fs_default(), wh);
    if (rc) return rc;
    rc = table_path(target_path, cat, &st->u.insert.table, "job target");
    if (rc) goto cleanup;
    const tn_sql_tableref *t = leftmost(q, NULL, 0);
    if (!t) {
        rc = tn_error_set(TN_EINVAL, "the job's SELECT has no FROM: a job streams from a table or a file pattern");
        goto cleanup;
    }
    char lbuf[1200];
    if (t->kind == TN_SQL_T_TABLE) {
        rc = table_path(&src->path, cat, &t->u.table.name, "job source");
        if (rc) goto cleanup;
        if (t->u.table.travel != TN_SQL_TT_NONE) {
            rc = tn_error_set(TN_EINVAL, "job source: time travel (VERSION/TIMESTAMP AS OF) does not stream; use the "
                              "job option starting-version");
            goto cleanup;
        }
        const tn_sql_qname *n = &t->u.table.name;
        snprintf(lbuf, sizeof lbuf, "%s%s%s", n->n == 2 ? n->parts[0].name : "", n->n == 2 ? "." : "",
                 n->parts[n->n - 1].name);
        src->kind = TN_STREAM_TABLE;
    } else if (t->kind == TN_SQL_T_FUNCTION) {
        const tn_sql_expr *f = t->u.function;
        const char *fn = f->u.func.name.parts[f->u.func.name.n - 1].name;
        const char *arg = string_arg(f);
        if (!arg) {
            rc = tn_error_set(TN_EINVAL, "job source %s: the first argument must be a file pattern (a string)", fn);
            goto cleanup;
        }
        snprintf(lbuf, sizeof lbuf, "%s('%s')", fn, arg);
        if (strcmp(fn, "delta_scan") == 0) {
            src->kind = TN_STREAM_TABLE;
            src->path = tn_strdup(arg);
            if (src->path)
                for (size_t k = strlen(src->path); k > 1 && src->path[k - 1] == '/'; k--) src->path[k - 1] = 0;
        } else if (strncmp(fn, "read_parquet", 12) == 0 || strcmp(fn, "parquet_scan") == 0 ||
                   strncmp(fn, "read_csv", 8) == 0 || strncmp(fn, "read_json", 9) == 0 ||
                   strncmp(fn, "read_ndjson", 11) == 0) {
            src->kind = TN_STREAM_FILES;
            src->pattern = tn_strdup(arg);
            if (!src->pattern) { rc = TN_ENOMEM; goto cleanup; }
        } else {
            rc = tn_error_set(TN_EUNSUPPORTED, "job source %s: a job streams from a table, delta_scan, read_parquet, "
                              "read_csv or read_json", fn);
            goto cleanup;
        }
    } else {
        rc = tn_error_set(TN_EINVAL, "the job's first FROM item is not a table or a file pattern");
        goto cleanup;
    }
    src->label = tn_strdup(lbuf);
    if (!src->label || (src->kind == TN_STREAM_TABLE && !src->path)) { rc = TN_ENOMEM; goto cleanup; }
    if (src->kind == TN_STREAM_TABLE) {
        char rp[PATH_MAX];
        int64_t latest = -1;
        rc = tn_delta_latest_version(tn_fs_default(), src->path, &latest);
        if (!rc && latest < 0) rc = tn_error_set(TN_ENOTFOUND, "job source %s: no Delta table at '%s'", src->label, src->path);
        if (rc) goto cleanup;
        if (!realpath(src->path, rp)) {
            rc = tn_error_set(TN_EIO, "job source %s: %s: %s", src->label, src->path, strerror(errno));
            goto cleanup;
        }
        src->real = tn_strdup(rp);
        if (!src->real) { rc = TN_ENOMEM; goto cleanup; }
    }
cleanup:
    tn_catalog_close(cat);
    if (rc) {
        tn_stream_source_free(src);
        tn_free(*target_path);
        *target_path = NULL;
    }
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Options.
 */
static int parse_ms(const char *s, int64_t *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0)) return -1;
    double mul = 1;
    if (!*end || strcmp(end, "ms") == 0) mul = 1;
    else if (strcmp(end, "s") == 0) mul = 1000;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0) mul = 60000;
    else return -1;
    double ms = v * mul;
    if (ms > 86400000.0) return -1;
    *out = (int64_t)ms;
    return 0;
}

static bool parse_bool(const char *s, bool *out) {
    if (tn_str_iequal(s, "true") || strcmp(s, "1") == 0) { *out = true; return true; }
    if (tn_str_iequal(s, "false") || strcmp(s, "0") == 0) { *out = false; return true; }
    return false;
}

int tn_stream_options_parse(tn_stream_options *o, json_t *options) {
    memset(o, 0, sizeof *o);
    o->poll_ms = 1000;
    o->max_files = 1000;
    o->starting = "snapshot";
    const char *key;
    json_t *v;
    json_object_foreach(options, key, v) {
        const char *s = json_string_value(v);
        if (!s) return tn_error_set(TN_EINVAL, "job option '%s': the value must be a string", key);
        if (strcmp(key, "poll-interval") == 0) {
            if (parse_ms(s, &o->poll_ms))
                return tn_error_set(TN_EINVAL, "job option poll-interval = '%s': expected a duration (200ms, 2s, 1m; at "
                                    "most a day)", s);
        } else if (strcmp(key, "max-batch-files") == 0) {
            char *end = NULL;
            long n = strtol(s, &end, 10);
            if (!*s || *end || n < 1 || n > 10000000)
                return tn_error_set(TN_EINVAL, "job option max-batch-files = '%s': expected a count from 1 to 10000000", s);
            o->max_files = (uint32_t)n;
        } else if (strcmp(key, "starting-version") == 0) {
            char *end = NULL;
            long long n = strtoll(s, &end, 10);
            if (strcmp(s, "snapshot") != 0 && strcmp(s, "latest") != 0 && (!*s || *end || n < 0))
                return tn_error_set(TN_EINVAL, "job option starting-version = '%s': expected snapshot, latest or a "
                                    "version >= 0", s);
            o->starting = s;
        } else if (strcmp(key, "ignoreDeletes") == 0 || strcmp(key, "ignoreChanges") == 0) {
            bool b;
            if (!parse_bool(s, &b)) return tn_error_set(TN_EINVAL, "job option %s = '%s': expected true or false", key, s);
            if (key[6] == 'D') o->ignore_deletes = b;
            else o->ignore_changes = b;
        } else {
            return tn_error_set(TN_EINVAL, "unknown job option '%s' (poll-interval, max-batch-files, starting-version, "
                                "ignoreDeletes, ignoreChanges)", key);
        }
    }
    return 0;
}

int tn_stream_options_check(const tn_stream_source *src, json_t *options) {
    static const char *const table_only[] = {"starting-version", "ignoreDeletes", "ignoreChanges"};
    if (src->kind != TN_STREAM_FILES) return 0;
    for (size_t i = 0; i < sizeof table_only / sizeof *table_only; i++)
        if (json_object_get(options, table_only[i]))
            return tn_error_set(TN_EINVAL, "job option %s applies to a table source; the job's source %s is a file "
                                "pattern (every file it matches is taken once, from the first poll)", table_only[i],
                                src->label);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Positions.
 */
void tn_stream_pos_free(tn_stream_pos *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->ntaken; i++) tn_free(p->taken[i]);
    tn_free(p->taken);
    memset(p, 0, sizeof *p);
}

static int taken_push(tn_stream_pos *p, const char *path) {
    if (p->ntaken == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 64;
        char **n = tn_realloc(p->taken, sizeof *n * cap);
        if (!n) return TN_ENOMEM;
        p->taken = n;
        p->cap = cap;
    }
    p->taken[p->ntaken] = tn_strdup(path);
    if (!p->taken[p->ntaken]) return TN_ENOMEM;
    p->ntaken++;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool taken_has(const tn_stream_pos *p, const char *path) {
    return p->ntaken && bsearch(&path, p->taken, p->ntaken, sizeof *p->taken, cmp_str) != NULL;
}

int tn_stream_pos_copy(tn_stream_pos *dst, const tn_stream_pos *src) {
    memset(dst, 0, sizeof *dst);
    dst->version = src->version;
    dst->index = src->index;
    dst->snapshot = src->snapshot;
    dst->watermark_ns = src->watermark_ns;
    for (uint32_t i = 0; i < src->ntaken; i++) {
        int rc = taken_push(dst, src->taken[i]);
        if (rc) {
            tn_stream_pos_free(dst);
            return rc;
        }
    }
    return 0;
}

int tn_stream_pos_start(tn_stream_pos *p, const tn_stream_source *src, const tn_stream_options *o) {
    memset(p, 0, sizeof *p);
    if (src->kind == TN_STREAM_FILES) return 0;
    int64_t latest = -1;
    int rc = tn_delta_latest_version(tn_fs_default(), src->path, &latest);
    if (rc) return rc;
    if (strcmp(o->starting, "snapshot") == 0) {
        p->version = latest;
        p->snapshot = true;
    } else if (strcmp(o->starting, "latest") == 0) {
        p->version = latest + 1;
    } else {
        p->version = strtoll(o->starting, NULL, 10);
        if (p->version > latest + 1)
            return tn_error_set(TN_EINVAL, "job option starting-version = %lld: source %s is at version %lld",
                                (long long)p->version, src->label, (long long)latest);
    }
    return 0;
}

char *tn_stream_pos_text(const tn_stream_source *src, const tn_stream_pos *p) {
    char buf[160];
    if (src->kind == TN_STREAM_FILES && p->watermark_ns > 0) {
        time_t sec = (time_t)(p->watermark_ns / 1000000000);
        struct tm tm;
        char ts[40];
        gmtime_r(&sec, &tm);
        strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
        snprintf(buf, sizeof buf, "files changed before %s UTC taken, and %u later file%s", ts, p->ntaken,
                 p->ntaken == 1 ? "" : "s");
    } else if (src->kind == TN_STREAM_FILES)
        snprintf(buf, sizeof buf, "%u file%s taken", p->ntaken, p->ntaken == 1 ? "" : "s");
    else if (p->snapshot)
        snprintf(buf, sizeof buf, "snapshot of version %lld, %u files read", (long long)p->version, p->index);
    else if (p->index)
        snprintf(buf, sizeof buf, "version %lld read up to data file %u", (long long)p->version, p->index);
    else
        snprintf(buf, sizeof buf, "read through version %lld", (long long)p->version - 1);
    return tn_strdup(buf);
}

/* ---------------------------------------------------------------------------------------------
 * Batch plans.
 */
void tn_stream_plan_free(tn_stream_plan *plan) {
    if (!plan) return;
    tn_table_close(plan->hold);
    tn_stream_pos_free(&plan->end);
    tn_arena_destroy(plan->arena);
    memset(plan, 0, sizeof *plan);
}

static int plan_push(tn_stream_plan *pl, const tn_delta_file *f) {
    if (pl->nfiles == pl->cap) {
        uint32_t cap = pl->cap ? pl->cap * 2 : 64;
        tn_delta_file *n = tn_arena_alloc(pl->arena, sizeof *n * cap);
        if (!n) return TN_ENOMEM;
        if (pl->nfiles) memcpy(n, pl->files, sizeof *n * pl->nfiles);
        pl->files = n;
        pl->cap = cap;
    }
    pl->files[pl->nfiles++] = *f;
    return 0;
}

static int plan_table(tn_stream_plan *pl, const tn_stream_source *src, const tn_stream_pos *pos,
                      const tn_stream_options *o) {
    tn_fs *fs = tn_fs_default();
    int64_t latest = -1;
    int rc = tn_delta_latest_version(fs, src->path, &latest);
    if (rc) return rc;
    /* a position no state of this source can hold (another table's, or the table re-created) */
    if (pos->version > latest + 1 || (pos->snapshot && pos->version > latest))
        return tn_error_set(TN_ECORRUPT, "job source %s: the position (%s %lld) is past the source's latest "
                            "version %lld: a state of another table, or the table was re-created", src->label,
                            pos->snapshot ? "snapshot of version" : "version", (long long)pos->version, (long long)latest);
    pl->end.version = pos->version;
    pl->end.index = pos->index;
    pl->end.snapshot = pos->snapshot;
    pl->first_version = pl->last_version = -1;
    if (pos->snapshot) {
        tn_table_open_options oo = TN_TABLE_OPEN_OPTIONS_INIT;
        oo.at_version = pos->version;
        rc = tn_table_open(&pl->hold, fs, src->path, &oo);
        if (rc) return tn_error_prefix(rc, "job source %s", src->label);
        const tn_delta_snapshot *snap = tn_table_snapshot(pl->hold);
        if (pos->index > snap->nfiles)
            return tn_error_set(TN_ECORRUPT, "job source %s: the position (file %u of the snapshot of version %lld) is "
                                "past that snapshot's %u files: a state of another table", src->label, pos->index,
                                (long long)pos->version, snap->nfiles);
        uint32_t i = pos->index;
        for (; i < snap->nfiles && pl->nfiles < o->max_files && !rc; i++) rc = plan_push(pl, &snap->files[i]);
        if (rc) return rc;
        pl->read_version = pos->version;
        pl->first_version = pl->last_version = pos->version;
        if (i >= snap->nfiles) {
            pl->end.version = pos->version + 1;
            pl->end.index = 0;
            pl->end.snapshot = false;
        } else {
            pl->end.index = i;
            pl->more = true;
        }
        pl->advanced = true;
        return 0;
    }
    for (int64_t v = pos->version; v <= latest; v++) {
        tn_delta_action *acts = NULL;
        uint32_t nacts = 0;
        rc = tn_delta_read_commit(fs, src->path, v, pl->arena, &acts, &nacts);
        if (rc) return tn_error_prefix(rc, "job source %s: version %lld", src->label, (long long)v);
        uint32_t nadds = 0, nremoves = 0;
        for (uint32_t i = 0; i < nacts; i++) {
            if (acts[i].kind == TN_DELTA_ADD && acts[i].u.file.data_change) nadds++;
            if (acts[i].kind == TN_DELTA_REMOVE && acts[i].u.file.data_change) nremoves++;
        }
        if (nremoves && !o->ignore_changes && (nadds || !o->ignore_deletes)) {
            if (pl->nfiles) {          /* the appends before it are a batch; the next plan fails here */
                pl->more = true;
                break;
            }
            if (nadds)
                return tn_error_set(TN_EUNSUPPORTED, "job source %s: version %lld rewrites data (%u files removed, %u "
                                    "added: an UPDATE, MERGE, overwrite or upsert); a job streams appends only. Start it "
                                    "with --option ignoreChanges=true to take the rewritten files too (their unchanged "
                                    "rows are read again)", src->label, (long long)v, nremoves, nadds);
            return tn_error_set(TN_EUNSUPPORTED, "job source %s: version %lld deletes data (%u files removed); a job "
                                "streams appends only. Start it with --option ignoreDeletes=true to skip commits that only "
                                "delete", src->label, (long long)v, nremoves);
        }
        uint32_t k = 0, skip = v == pos->version ? pos->index : 0;
        if (skip > nadds)
            return tn_error_set(TN_ECORRUPT, "job source %s: the position (data file %u of version %lld) is past that "
                                "version's %u data files: a state of another table", src->label, skip, (long long)v,
                                nadds);
        bool full = false;
        for (uint32_t i = 0; i < nacts && !rc; i++) {
            if (acts[i].kind != TN_DELTA_ADD || !acts[i].u.file.data_change) continue;
            if (k++ < skip) continue;
            if (pl->nfiles >= o->max_files) {
                full = true;
                break;
            }
            rc = plan_push(pl, &acts[i].u.file);
            if (pl->first_version < 0) pl->first_version = v;
            pl->last_version = v;
        }
        if (rc) return rc;
        pl->advanced = true;
        if (full) {
            pl->end.version = v;
            pl->end.index = k - 1;
            pl->more = true;
            break;
        }
        pl->end.version = v + 1;
        pl->end.index = 0;
        if (pl->nfiles >= o->max_files) {
            pl->more = v < latest;
            break;
        }
    }
    pl->read_version = pl->last_version >= 0 ? pl->last_version : latest;
    return 0;
}

static int64_t ctime_ns(const struct stat *st) {
    return (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

/* Whether a listed file was taken by position p. */
static bool file_taken(const tn_stream_pos *p, const char *path, const struct stat *st) {
    return ctime_ns(st) < p->watermark_ns || taken_has(p, path);
}

static int64_t settle_ns(void) {
    const char *e = getenv("TARN_JOB_FILE_SETTLE_MS");
    long long ms = e && *e ? strtoll(e, NULL, 10) : TN_STREAM_FILES_SETTLE_MS;
    return (ms < 0 ? 0 : ms) * 1000000;
}

/* The files of a pattern that are regular files, sorted by name (glob's order), with their
 * status. */
typedef struct listing {
    glob_t g;
    struct stat *st;
    bool *ok;                          /* a regular file */
} listing;

static void listing_free(listing *l) {
    globfree(&l->g);
    tn_free(l->st);
    tn_free(l->ok);
}

static int list_files(listing *l, const tn_stream_source *src) {
    memset(l, 0, sizeof *l);
    int grc = glob(src->pattern, 0, NULL, &l->g);
    if (grc == GLOB_NOMATCH) return 0;
    if (grc != 0) return tn_error_set(TN_EIO, "job source %s: cannot list \"%s\"", src->label, src->pattern);
    l->st = tn_malloc(sizeof *l->st * (l->g.gl_pathc + 1));
    l->ok = tn_calloc(l->g.gl_pathc + 1, sizeof *l->ok);
    if (!l->st || !l->ok) return TN_ENOMEM;
    for (size_t i = 0; i < l->g.gl_pathc; i++)
        l->ok[i] = stat(l->g.gl_pathv[i], &l->st[i]) == 0 && S_ISREG(l->st[i].st_mode);
    return 0;
}

/* The next batch of a pattern: the files not taken (up to max_files, in name order); the end
 * position's watermark moves up to the oldest ctime of a file still not taken, at most to the
 * listing's start minus the settle time; names it covers, and names of files gone, are dropped. */
static int plan_files(tn_stream_plan *pl, const tn_stream_source *src, const tn_stream_pos *pos,
                      const tn_stream_options *o) {
    int64_t start_ns = tn_time_now_us() * 1000;
    listing l;
    int rc = list_files(&l, src);
    size_t n = l.g.gl_pathc;
    if (!rc) {
        pl->paths = tn_arena_alloc(pl->arena, sizeof *pl->paths * (n + 1));
        if (!pl->paths) rc = TN_ENOMEM;
    }
    int64_t wm = start_ns - settle_ns();   /* the new watermark: below every file not taken */
    bool *take = rc ? NULL : tn_calloc(n + 1, sizeof *take);
    if (!rc && !take) rc = TN_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!l.ok[i] || file_taken(pos, l.g.gl_pathv[i], &l.st[i])) continue;
        if (pl->npaths >= o->max_files) {
            pl->more = true;
            if (ctime_ns(&l.st[i]) < wm) wm = ctime_ns(&l.st[i]);
            continue;
        }
        take[i] = true;
        pl->paths[pl->npaths] = tn_arena_strdup(pl->arena, l.g.gl_pathv[i]);
        if (!pl->paths[pl->npaths]) rc = TN_ENOMEM;
        pl->npaths++;
    }
    if (wm < pos->watermark_ns) wm = pos->watermark_ns;
    memset(&pl->end, 0, sizeof pl->end);
    pl->end.watermark_ns = wm;
    /* taken after the batch: listed files taken before or now, unless the watermark covers them */
    for (size_t i = 0; i < n && !rc; i++) {
        if (!l.ok[i] || ctime_ns(&l.st[i]) < wm) continue;
        if (take[i] || taken_has(pos, l.g.gl_pathv[i])) rc = taken_push(&pl->end, l.g.gl_pathv[i]);
    }
    tn_free(take);
    listing_free(&l);
    if (rc) return rc;
    if (pl->end.ntaken) qsort(pl->end.taken, pl->end.ntaken, sizeof *pl->end.taken, cmp_str);
    /* a batch, or a position that shrank (moving the watermark alone is not worth a state write) */
    pl->advanced = pl->npaths > 0 || pl->end.ntaken != pos->ntaken;
    return 0;
}

int tn_stream_plan_next(tn_stream_plan *plan, const tn_stream_source *src, const tn_stream_pos *pos,
                        const tn_stream_options *o) {
    memset(plan, 0, sizeof *plan);
    plan->arena = tn_arena_create(0);
    if (!plan->arena) return TN_ENOMEM;
    int rc = src->kind == TN_STREAM_TABLE ? plan_table(plan, src, pos, o) : plan_files(plan, src, pos, o);
    if (rc) tn_stream_plan_free(plan);
    return rc;
}

int tn_stream_lag(const tn_stream_source *src, const tn_stream_pos *pos, int64_t *out) {
    *out = -1;
    if (src->kind == TN_STREAM_TABLE) {
        int64_t latest = -1;
        int rc = tn_delta_latest_version(tn_fs_default(), src->path, &latest);
        if (rc) return rc;
        int64_t lag = latest - pos->version + 1;
        *out = lag < 0 ? 0 : lag;
        return 0;
    }
    listing l;
    int rc = list_files(&l, src);
    int64_t n = 0;
    for (size_t i = 0; !rc && i < l.g.gl_pathc; i++)
        if (l.ok[i] && !file_taken(pos, l.g.gl_pathv[i], &l.st[i])) n++;
    listing_free(&l);
    if (rc) return rc;
    *out = n;
    return 0;
}

int tn_stream_pos_check(const tn_stream_source *src, const tn_stream_pos *pos, const char *what) {
    if (src->kind != TN_STREAM_TABLE) return 0;
    tn_stream_options o;
    memset(&o, 0, sizeof o);
    o.max_files = 1;
    o.ignore_deletes = o.ignore_changes = true;   /* the source's commits are the run's business */
    o.starting = "snapshot";
    tn_stream_plan plan;
    int rc = tn_stream_plan_next(&plan, src, pos, &o);
    if (rc) return tn_error_prefix(rc, "%s", what);
    tn_stream_plan_free(&plan);
    return 0;
}
