/*
 * stream/state.c: the formats of a job directory's files (stream.h's table): strict decoders of
 * state.json, job.json and savepoints, their encoders, and atomic file writes. These files are
 * untrusted bytes (hand-edited, truncated, from another tarn or another job): a decoder takes
 * the bytes and a name for the file, and every malformed input is refused with the file and the
 * field named; nothing is defaulted, so a damaged file never yields a wrong position. Whether a
 * position fits the source (versions, indexes) is source.c's check (tn_stream_pos_check).
 *
 *   state.json   field          type / rule
 *                state          "created" "restored" "running" "stopped" "canceled" "failed"
 *                batch          integer >= 0: the last committed batch
 *                position       a position (below)
 *                pending        null, or {"batch": batch + 1, "position": a position of the same kind}
 *                rows           integer >= 0
 *                updated_ms, last_batch_ms   integer >= 0 (optional)
 *                last_error, savepoint       null or a string (optional)
 *   position     {"kind": "table", "version": int >= 0, "index": 0..2^32-1, "snapshot": bool}
 *                {"kind": "files", "watermark_ns": int >= 0 (optional), "taken": [distinct non-empty paths]}
 *   job.json     name (a job name), app_id, sql (non-empty strings), options ({key: string}, keys
 *                as TN_STREAM_OPTION_TABLE), cwd (optional absolute path), created_ms (optional int)
 *   savepoint    tarn_savepoint = 1, job (a job.json object), batch, position, rows, created_ms (optional)
 * Unknown fields are refused (a file of a newer tarn, or not one of these files); duplicate keys too.
 */
#include "stream/streamInt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Files.
 */
int tn_stream_write_file(const char *path, const char *data, size_t n) {
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return tn_error_set(TN_ELIMIT, "path too long: '%s'", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return tn_error_set(TN_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return tn_error_set(TN_EIO, "%s: cannot write: %s", tmp, strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        unlink(tmp);
        return tn_error_set(TN_EIO, "%s: cannot sync: %s", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return tn_error_set(TN_EIO, "%s: cannot rename into place: %s", path, strerror(e));
    }
    return 0;
}

int tn_stream_write_json(const char *path, json_t *j) {
    if (!j) return TN_ENOMEM;
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (!s) return TN_ENOMEM;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return TN_ENOMEM;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    int rc = tn_stream_write_file(path, t, n + 1);
    free(t);
    return rc;
}

/* Job files are small; a bigger one is not a job file (and would only cost memory). */
#define MAX_FILE_BYTES ((size_t)256 << 20)

int tn_stream_read_file(tn_buf *out, const char *path, const char *what) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return tn_error_set(TN_ENOTFOUND, "%s does not exist", what);
        return tn_error_set(TN_EIO, "%s: %s", what, strerror(errno));
    }
    int rc = 0;
    char chunk[65536];
    size_t got;
    while (!rc && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + got > MAX_FILE_BYTES) rc = tn_error_set(TN_ELIMIT, "%s: larger than 256 MiB: not a job file", what);
        else rc = tn_buf_append(out, chunk, got);
    }
    if (!rc && ferror(f)) rc = tn_error_set(TN_EIO, "%s: %s", what, strerror(errno));
    fclose(f);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Strict field access. what names the file ("job state '/w/_jobs/j/state.json'"), at the object
 * the field is in ("" top level, "pending." ...).
 */
static const char *jtype(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static int load_object(json_t **out, const char *data, size_t n, const char *what) {
    *out = NULL;
    json_error_t err;
    if (n == 0) return tn_error_set(TN_ECORRUPT, "%s: the file is empty", what);
    json_t *j = json_loadb(data, n, JSON_REJECT_DUPLICATES, &err);
    if (!j) return tn_error_set(TN_ECORRUPT, "%s: line %d, column %d: %s", what, err.line, err.column, err.text);
    if (!json_is_object(j)) {
        int rc = tn_error_set(TN_ECORRUPT, "%s: expected a JSON object, got %s", what, jtype(j));
        json_decref(j);
        return rc;
    }
    *out = j;
    return 0;
}

/* Refuses keys of o not in allowed (NULL-terminated). */
static int only_keys(json_t *o, const char *const *allowed, const char *what, const char *at) {
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++) ok = strcmp(*a, key) == 0;
        if (!ok)
            return tn_error_set(TN_ECORRUPT, "%s: unknown field '%s%.200s' (not a file this tarn writes)", what, at, key);
    }
    return 0;
}

static int missing(const char *what, const char *at, const char *key) {
    return tn_error_set(TN_ECORRUPT, "%s: field '%s%s' is missing", what, at, key);
}

/* An integer field in [lo, hi]; absent: *out untouched and 0 unless required. */
static int get_int(json_t *o, const char *key, bool required, int64_t lo, int64_t hi, int64_t *out, const char *what,
                   const char *at) {
    json_t *v = json_object_get(o, key);
    if (!v) return required ? missing(what, at, key) : 0;
    if (!json_is_integer(v))
        return tn_error_set(TN_ECORRUPT, "%s: field '%s%s': expected an integer, got %s", what, at, key, jtype(v));
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return tn_error_set(TN_ECORRUPT, "%s: field '%s%s' = %lld: expected %lld to %lld", what, at, key, (long long)x,
                            (long long)lo, (long long)hi);
    *out = x;
    return 0;
}

/* A string field (nonempty: refuse ""); null allowed when nullable (then *out = NULL). */
static int get_str(json_t *o, const char *key, bool required, bool nullable, bool nonempty, const char **out,
                   const char *what, const char *at) {
    *out = NULL;
    json_t *v = json_object_get(o, key);
    if (!v) return required ? missing(what, at, key) : 0;
    if (nullable && json_is_null(v)) return 0;
    if (!json_is_string(v))
        return tn_error_set(TN_ECORRUPT, "%s: field '%s%s': expected a string%s, got %s", what, at, key,
                            nullable ? " or null" : "", jtype(v));
    *out = json_string_value(v);
    if (nonempty && !**out) return tn_error_set(TN_ECORRUPT, "%s: field '%s%s' is empty", what, at, key);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Positions.
 */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

json_t *tn_stream_pos_to_json(tn_stream_source_kind kind, const tn_stream_pos *p) {
    json_t *j = json_object();
    if (!j) return NULL;
    if (kind == TN_STREAM_TABLE) {
        json_object_set_new(j, "kind", json_string("table"));
        json_object_set_new(j, "version", json_integer(p->version));
        json_object_set_new(j, "index", json_integer(p->index));
        json_object_set_new(j, "snapshot", json_boolean(p->snapshot));
    } else {
        json_object_set_new(j, "kind", json_string("files"));
        json_object_set_new(j, "watermark_ns", json_integer(p->watermark_ns));
        json_t *a = json_array();
        for (uint32_t i = 0; a && i < p->ntaken; i++) json_array_append_new(a, json_string(p->taken[i]));
        json_object_set_new(j, "taken", a);
    }
    return j;
}

static int pos_decode(tn_stream_pos *p, tn_stream_source_kind *kind, json_t *j, const char *what, const char *at) {
    memset(p, 0, sizeof *p);
    if (!json_is_object(j))
        return tn_error_set(TN_ECORRUPT, "%s: field '%.*s': expected a position object, got %s", what,
                            (int)strlen(at) - 1, at, jtype(j));
    const char *k = NULL;
    int rc = get_str(j, "kind", true, false, false, &k, what, at);
    if (rc) return rc;
    if (strcmp(k, "table") == 0) {
        static const char *const keys[] = {"kind", "version", "index", "snapshot", NULL};
        int64_t v = 0, ix = 0;
        rc = only_keys(j, keys, what, at);
        if (!rc) rc = get_int(j, "version", true, 0, INT64_MAX, &v, what, at);
        if (!rc) rc = get_int(j, "index", true, 0, UINT32_MAX, &ix, what, at);
        if (rc) return rc;
        json_t *s = json_object_get(j, "snapshot");
        if (!s) return missing(what, at, "snapshot");
        if (!json_is_boolean(s))
            return tn_error_set(TN_ECORRUPT, "%s: field '%ssnapshot': expected true or false, got %s", what, at, jtype(s));
        *kind = TN_STREAM_TABLE;
        p->version = v;
        p->index = (uint32_t)ix;
        p->snapshot = json_is_true(s);
        return 0;
    }
    if (strcmp(k, "files") != 0)
        return tn_error_set(TN_ECORRUPT, "%s: field '%skind' = \"%.100s\": expected \"table\" or \"files\"", what, at, k);
    static const char *const keys[] = {"kind", "watermark_ns", "taken", NULL};
    rc = only_keys(j, keys, what, at);
    int64_t wm = 0;   /* absent: a state written before the watermark existed */
    if (!rc) rc = get_int(j, "watermark_ns", false, 0, INT64_MAX, &wm, what, at);
    if (rc) return rc;
    json_t *a = json_object_get(j, "taken");
    if (!a) return missing(what, at, "taken");
    if (!json_is_array(a))
        return tn_error_set(TN_ECORRUPT, "%s: field '%staken': expected an array of paths, got %s", what, at, jtype(a));
    *kind = TN_STREAM_FILES;
    p->watermark_ns = wm;
    size_t n = json_array_size(a);
    if (n > UINT32_MAX / 2) return tn_error_set(TN_ELIMIT, "%s: field '%staken': too many paths", what, at);
    p->taken = tn_malloc(sizeof *p->taken * (n + 1));
    if (!p->taken) return TN_ENOMEM;
    p->cap = (uint32_t)n + 1;
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *e = json_array_get(a, i);
        const char *s = json_string_value(e);
        if (!s || !*s || json_string_length(e) >= PATH_MAX) {
            rc = tn_error_set(TN_ECORRUPT, "%s: field '%staken[%zu]': expected a file path, got %s", what, at, i,
                              !s ? jtype(e) : !*s ? "an empty string" : "a string longer than PATH_MAX");
            break;
        }
        p->taken[p->ntaken] = tn_strdup(s);
        if (!p->taken[p->ntaken]) rc = TN_ENOMEM;
        else p->ntaken++;
    }
    if (!rc && p->ntaken) {
        qsort(p->taken, p->ntaken, sizeof *p->taken, cmp_str);
        for (uint32_t i = 1; i < p->ntaken && !rc; i++)
            if (strcmp(p->taken[i - 1], p->taken[i]) == 0)
                rc = tn_error_set(TN_ECORRUPT, "%s: field '%staken' names '%.300s' twice", what, at, p->taken[i]);
    }
    if (rc) tn_stream_pos_free(p);
    return rc;
}

int tn_stream_pos_decode(tn_stream_pos *p, tn_stream_source_kind *kind, json_t *j, const char *what, const char *field) {
    char at[64];
    snprintf(at, sizeof at, "%s.", field);
    return pos_decode(p, kind, j, what, at);
}

int tn_stream_pos_for_source(tn_stream_source_kind kind, const tn_stream_source *src, const char *what,
                             const char *field) {
    if (kind == src->kind) return 0;
    return tn_error_set(TN_ECORRUPT, "%s: field '%s' is a %s position, but the job's source %s is %s", what, field,
                        kind == TN_STREAM_TABLE ? "table" : "files", src->label,
                        src->kind == TN_STREAM_TABLE ? "a table" : "a file pattern");
}

/* ---------------------------------------------------------------------------------------------
 * state.json.
 */
static const char *const STATES[] = {"created", "restored", "running", "stopped", "canceled", "failed", NULL};

void tn_stream_state_free(tn_stream_state *s) {
    if (!s) return;
    tn_stream_pos_free(&s->pos);
    tn_stream_pos_free(&s->pending_pos);
    tn_free(s->last_error);
    tn_free(s->savepoint);
    memset(s, 0, sizeof *s);
}

static char *dup_opt(const char *s, int *rc) {
    if (!s || *rc) return NULL;
    char *d = tn_strdup(s);
    if (!d) *rc = TN_ENOMEM;
    return d;
}

int tn_stream_state_decode(tn_stream_state *out, const char *data, size_t n, const char *what) {
    memset(out, 0, sizeof *out);
    json_t *j = NULL;
    int rc = load_object(&j, data, n, what);
    if (rc) return rc;
    static const char *const keys[] = {"state", "batch", "position", "pending", "rows", "updated_ms",
                                       "last_batch_ms", "last_error", "savepoint", NULL};
    rc = only_keys(j, keys, what, "");
    const char *state = NULL, *err = NULL, *sp = NULL;
    int64_t rows = 0;
    if (!rc) rc = get_str(j, "state", true, false, false, &state, what, "");
    if (!rc) {
        for (const char *const *s = STATES; *s && !out->state; s++)
            if (strcmp(*s, state) == 0) out->state = *s;
        if (!out->state)
            rc = tn_error_set(TN_ECORRUPT, "%s: field 'state' = \"%.100s\": expected created, restored, running, "
                              "stopped, canceled or failed", what, state);
    }
    if (!rc) rc = get_int(j, "batch", true, 0, INT64_MAX - 1, &out->batch, what, "");
    if (!rc) rc = get_int(j, "rows", true, 0, INT64_MAX, &rows, what, "");
    if (!rc) rc = get_int(j, "updated_ms", false, 0, INT64_MAX, &out->updated_ms, what, "");
    if (!rc) rc = get_int(j, "last_batch_ms", false, 0, INT64_MAX, &out->last_batch_ms, what, "");
    if (!rc) rc = get_str(j, "last_error", false, true, false, &err, what, "");
    if (!rc) rc = get_str(j, "savepoint", false, true, true, &sp, what, "");
    out->rows = (uint64_t)rows;
    if (!rc && !json_object_get(j, "position")) rc = missing(what, "", "position");
    if (!rc) rc = pos_decode(&out->pos, &out->kind, json_object_get(j, "position"), what, "position.");
    json_t *pend = json_object_get(j, "pending");
    if (!rc && pend && !json_is_null(pend)) {
        static const char *const pkeys[] = {"batch", "position", NULL};
        int64_t pb = 0;
        tn_stream_source_kind pk = out->kind;
        if (!json_is_object(pend))
            rc = tn_error_set(TN_ECORRUPT, "%s: field 'pending': expected null or an object, got %s", what, jtype(pend));
        if (!rc) rc = only_keys(pend, pkeys, what, "pending.");
        if (!rc) rc = get_int(pend, "batch", true, 0, INT64_MAX, &pb, what, "pending.");
        if (!rc && pb != out->batch + 1)
            rc = tn_error_set(TN_ECORRUPT, "%s: field 'pending.batch' = %lld does not follow the last committed batch "
                              "%lld", what, (long long)pb, (long long)out->batch);
        if (!rc && !json_object_get(pend, "position")) rc = missing(what, "pending.", "position");
        if (!rc) rc = pos_decode(&out->pending_pos, &pk, json_object_get(pend, "position"), what, "pending.position.");
        if (!rc && pk != out->kind)
            rc = tn_error_set(TN_ECORRUPT, "%s: field 'pending.position' is not of the kind of 'position'", what);
        out->has_pending = !rc;
        out->pending_batch = pb;
    }
    out->last_error = dup_opt(err, &rc);
    out->savepoint = dup_opt(sp, &rc);
    json_decref(j);
    if (rc) tn_stream_state_free(out);
    return rc;
}

json_t *tn_stream_state_to_json(const tn_stream_state *s) {
    json_t *j = json_object();
    if (!j) return NULL;
    json_object_set_new(j, "state", json_string(s->state));
    json_object_set_new(j, "batch", json_integer(s->batch));
    json_object_set_new(j, "position", tn_stream_pos_to_json(s->kind, &s->pos));
    json_t *pending = json_null();
    if (s->has_pending) {
        pending = json_object();
        json_object_set_new(pending, "batch", json_integer(s->pending_batch));
        json_object_set_new(pending, "position", tn_stream_pos_to_json(s->kind, &s->pending_pos));
    }
    json_object_set_new(j, "pending", pending);
    json_object_set_new(j, "rows", json_integer((json_int_t)s->rows));
    json_object_set_new(j, "updated_ms", json_integer(s->updated_ms));
    json_object_set_new(j, "last_batch_ms", json_integer(s->last_batch_ms));
    json_object_set_new(j, "last_error", s->last_error ? json_string(s->last_error) : json_null());
    json_object_set_new(j, "savepoint", s->savepoint ? json_string(s->savepoint) : json_null());
    return j;
}

/* ---------------------------------------------------------------------------------------------
 * job.json and savepoints.
 */
int tn_stream_spec_check(json_t *spec, tn_stream_options *opts, const char *what, const char *at) {
    static const char *const keys[] = {"name", "app_id", "sql", "options", "cwd", "created_ms", NULL};
    const char *name = NULL, *s = NULL, *cwd = NULL;
    int64_t created = 0;
    int rc = only_keys(spec, keys, what, at);
    if (!rc) rc = get_str(spec, "name", true, false, true, &name, what, at);
    if (!rc && tn_catalog_check_name("job", name) != 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s", tn_error_message());
        rc = tn_error_set(TN_ECORRUPT, "%s: field '%sname': %s", what, at, msg);
    }
    if (!rc) rc = get_str(spec, "app_id", true, false, true, &s, what, at);
    if (!rc) rc = get_str(spec, "sql", true, false, true, &s, what, at);
    if (!rc) rc = get_str(spec, "cwd", false, false, true, &cwd, what, at);
    if (!rc && cwd && cwd[0] != '/')
        rc = tn_error_set(TN_ECORRUPT, "%s: field '%scwd' = \"%.200s\": expected an absolute path", what, at, cwd);
    if (!rc) rc = get_int(spec, "created_ms", false, 0, INT64_MAX, &created, what, at);
    json_t *o = json_object_get(spec, "options");
    if (!rc && !o) rc = missing(what, at, "options");
    if (!rc && !json_is_object(o))
        rc = tn_error_set(TN_ECORRUPT, "%s: field '%soptions': expected an object, got %s", what, at, jtype(o));
    tn_stream_options tmp;
    if (!rc && tn_stream_options_parse(opts ? opts : &tmp, o) != 0)
        rc = tn_error_prefix(TN_ECORRUPT, "%s: field '%soptions'", what, at);
    return rc;
}

int tn_stream_spec_decode(json_t **out, tn_stream_options *opts, const char *data, size_t n, const char *what) {
    int rc = load_object(out, data, n, what);
    if (!rc) rc = tn_stream_spec_check(*out, opts, what, "");
    if (rc) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}

void tn_stream_savepoint_free(tn_stream_savepoint *s) {
    if (!s) return;
    json_decref(s->job);
    tn_stream_pos_free(&s->pos);
    memset(s, 0, sizeof *s);
}

int tn_stream_savepoint_decode(tn_stream_savepoint *out, const char *data, size_t n, const char *what) {
    memset(out, 0, sizeof *out);
    json_t *j = NULL;
    int rc = load_object(&j, data, n, what);
    if (rc) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s", tn_error_message());
        return tn_error_set(TN_EINVAL, "%s (not a tarn job savepoint)", msg);
    }
    json_t *mark = json_object_get(j, "tarn_savepoint");
    if (!mark) {
        json_decref(j);
        return tn_error_set(TN_EINVAL, "%s is not a tarn job savepoint (no 'tarn_savepoint' field; expected the JSON "
                            "file `tarn job stop NAME --savepoint PATH` writes)", what);
    }
    static const char *const keys[] = {"tarn_savepoint", "job", "batch", "position", "rows", "created_ms", NULL};
    int64_t version = 0, rows = 0, created = 0;
    rc = only_keys(j, keys, what, "");
    if (!rc) rc = get_int(j, "tarn_savepoint", true, 1, INT64_MAX, &version, what, "");
    if (!rc && version != 1)
        rc = tn_error_set(TN_EUNSUPPORTED, "%s: savepoint format %lld (this tarn reads format 1)", what, (long long)version);
    json_t *job = json_object_get(j, "job");
    if (!rc && !job) rc = missing(what, "", "job");
    if (!rc && !json_is_object(job))
        rc = tn_error_set(TN_ECORRUPT, "%s: field 'job': expected the job's definition (an object), got %s", what,
                          jtype(job));
    if (!rc) rc = tn_stream_spec_check(job, NULL, what, "job.");
    if (!rc) rc = get_int(j, "batch", true, 0, INT64_MAX - 1, &out->batch, what, "");
    if (!rc) rc = get_int(j, "rows", true, 0, INT64_MAX, &rows, what, "");
    if (!rc) rc = get_int(j, "created_ms", false, 0, INT64_MAX, &created, what, "");
    if (!rc && !json_object_get(j, "position")) rc = missing(what, "", "position");
    if (!rc) rc = pos_decode(&out->pos, &out->kind, json_object_get(j, "position"), what, "position.");
    out->rows = (uint64_t)rows;
    out->created_ms = created;
    if (!rc) out->job = json_incref(job);
    json_decref(j);
    if (rc) tn_stream_savepoint_free(out);
    return rc;
}

json_t *tn_stream_savepoint_to_json(const tn_stream_savepoint *s) {
    json_t *sp = json_object();
    if (!sp) return NULL;
    json_object_set_new(sp, "tarn_savepoint", json_integer(1));
    json_object_set(sp, "job", s->job);
    json_object_set_new(sp, "batch", json_integer(s->batch));
    json_object_set_new(sp, "position", tn_stream_pos_to_json(s->kind, &s->pos));
    json_object_set_new(sp, "rows", json_integer((json_int_t)s->rows));
    json_object_set_new(sp, "created_ms", json_integer(s->created_ms));
    return sp;
}
