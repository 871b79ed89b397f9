/*
 * catalog/sequence.c: sequences of the warehouse (CREATE SEQUENCE, nextval) and the counter
 * arithmetic shared with the session's temporary sequences (sql/sequence.c). The state is one
 * JSON file per sequence, changed only under the sequence's lock file, so concurrent processes
 * take disjoint values; see catalog.h for the layout. Touches nothing outside _sequences/.
 */
#include "catalog/catalog.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * DuckDB's rules.
 */
int tn_seq_init(tn_seq *out, const int64_t *start, const int64_t *increment, const int64_t *min,
                const int64_t *max, bool cycle) {
    memset(out, 0, sizeof *out);
    int64_t inc = increment ? *increment : 1;
    if (inc == 0) return tn_error_set(TN_EINVAL, "Parser Error: Increment must not be zero");
    int64_t lo = min ? *min : inc > 0 ? 1 : INT64_MIN;
    int64_t hi = max ? *max : inc > 0 ? INT64_MAX : -1;
    int64_t st = start ? *start : inc > 0 ? lo : hi;
    if (lo >= hi)
        return tn_error_set(TN_EINVAL, "Parser Error: MINVALUE (%lld) must be less than MAXVALUE (%lld)", (long long)lo,
                            (long long)hi);
    if (st < lo)
        return tn_error_set(TN_EINVAL, "Parser Error: START value (%lld) cannot be less than MINVALUE (%lld)",
                            (long long)st, (long long)lo);
    if (st > hi)
        return tn_error_set(TN_EINVAL, "Parser Error: START value (%lld) cannot be greater than MAXVALUE (%lld)",
                            (long long)st, (long long)hi);
    out->start = st;
    out->increment = inc;
    out->min = lo;
    out->max = hi;
    out->cycle = cycle;
    out->counter = st;
    return 0;
}

int tn_seq_take(tn_seq *s, const char *name, uint32_t n, int64_t *out) {
    tn_seq t = *s;
    for (uint32_t i = 0; i < n; i++) {
        int64_t result = t.counter, next;
        bool overflow = __builtin_add_overflow(t.counter, t.increment, &next);
        if (t.cycle) {
            if (overflow) next = t.increment < 0 ? t.max : t.min;
            else if (next < t.min) next = t.max;
            else if (next > t.max) next = t.min;
        } else {
            if (result < t.min || (overflow && t.increment < 0))
                return tn_error_set(TN_ELIMIT, "Sequence Error: nextval: reached minimum value of sequence \"%s\" (%lld)",
                                    name, (long long)t.min);
            if (result > t.max || overflow)
                return tn_error_set(TN_ELIMIT, "Sequence Error: nextval: reached maximum value of sequence \"%s\" (%lld)",
                                    name, (long long)t.max);
        }
        t.counter = next;
        t.usage++;
        out[i] = result;
    }
    *s = t;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Files.
 */
typedef struct seq_paths {
    char *dir, *file, *lock, *tmp;
} seq_paths;

static void paths_free(seq_paths *p) {
    tn_free(p->dir);
    tn_free(p->file);
    tn_free(p->lock);
    tn_free(p->tmp);
    memset(p, 0, sizeof *p);
}

static int paths_make(tn_catalog *cat, const tn_catalog_name *name, seq_paths *out) {
    memset(out, 0, sizeof *out);
    char *schema = NULL;
    int rc = tn_catalog_schema_path(cat, name->schema, &schema);
    if (rc) return rc;
    size_t n = strlen(schema) + strlen(name->name) + 64;
    out->dir = tn_malloc(n);
    out->file = tn_malloc(n);
    out->lock = tn_malloc(n);
    out->tmp = tn_malloc(n);
    if (!out->dir || !out->file || !out->lock || !out->tmp) {
        tn_free(schema);
        paths_free(out);
        return TN_ENOMEM;
    }
    snprintf(out->dir, n, "%s/_sequences", schema);
    snprintf(out->file, n, "%s/_sequences/%s.json", schema, name->name);
    snprintf(out->lock, n, "%s/_sequences/%s.lock", schema, name->name);
    snprintf(out->tmp, n, "%s/_sequences/.%s.json.tmp-%ld", schema, name->name, (long)getpid());
    tn_free(schema);
    return 0;
}

static int not_found(const tn_catalog_name *name) {
    return tn_error_set(TN_ENOTFOUND, "Sequence with name %s does not exist!", name->name);
}

/* Reads the state; *found false when the sequence has no file. */
static int seq_read(tn_fs *fs, const seq_paths *p, tn_seq *out, bool *found) {
    tn_buf b = TN_BUF_INIT;
    *found = false;
    int rc = tn_fs_read_all(fs, p->file, &b);
    if (rc == TN_ENOTFOUND) {
        tn_error_clear();
        tn_buf_free(&b);
        return 0;
    }
    if (rc) {
        tn_buf_free(&b);
        return rc;
    }
    json_error_t err;
    json_t *o = json_loadb((const char *)b.data, b.len, 0, &err);
    tn_buf_free(&b);
    json_t *f[7];
    static const char *keys[7] = {"start", "increment", "minValue", "maxValue", "counter", "usageCount", "cycle"};
    bool ok = o != NULL;
    for (int k = 0; k < 7 && ok; k++) {
        f[k] = json_object_get(o, keys[k]);
        ok = k < 6 ? json_is_integer(f[k]) : json_is_boolean(f[k]);
    }
    if (!ok) {
        json_decref(o);
        return tn_error_set(TN_ECORRUPT, "%s: not a sequence state (%s)", p->file, o ? "missing or mistyped field" : err.text);
    }
    out->start = json_integer_value(f[0]);
    out->increment = json_integer_value(f[1]);
    out->min = json_integer_value(f[2]);
    out->max = json_integer_value(f[3]);
    out->counter = json_integer_value(f[4]);
    out->usage = (uint64_t)json_integer_value(f[5]);
    out->cycle = json_is_true(f[6]);
    json_decref(o);
    if (out->increment == 0 || out->min >= out->max)
        return tn_error_set(TN_ECORRUPT, "%s: not a sequence state (increment 0 or MINVALUE >= MAXVALUE)", p->file);
    *found = true;
    return 0;
}

/* Writes the state: temp file, fsync, rename over the old one, fsync of the directory. */
static int seq_write(tn_fs *fs, const seq_paths *p, const char *name, const tn_seq *s) {
    json_t *o = json_object();
    if (!o) return TN_ENOMEM;
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "start", json_integer(s->start));
    json_object_set_new(o, "increment", json_integer(s->increment));
    json_object_set_new(o, "minValue", json_integer(s->min));
    json_object_set_new(o, "maxValue", json_integer(s->max));
    json_object_set_new(o, "cycle", json_boolean(s->cycle));
    json_object_set_new(o, "counter", json_integer(s->counter));
    json_object_set_new(o, "usageCount", json_integer((json_int_t)s->usage));
    char *text = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text) return TN_ENOMEM;
    int rc = tn_fs_write_all(fs, p->tmp, text, strlen(text), true);
    free(text);
    if (!rc) rc = fs->rename(fs, p->tmp, p->file);
    if (rc) {
        tn_error_state saved;
        tn_error_save(&saved);
        fs->unlink(fs, p->tmp);
        tn_error_restore(&saved);
        return rc;
    }
    rc = tn_fs_sync_dir(fs, p->dir);
    if (rc == TN_EUNSUPPORTED) {
        tn_error_clear();
        rc = 0;
    }
    return rc;
}

/* Opens the paths of name and takes its lock (creating _sequences/ when create). */
static int seq_lock(tn_catalog *cat, const tn_catalog_name *name, bool create, seq_paths *p, tn_file **lock) {
    tn_fs *fs = tn_catalog_fs(cat);
    *lock = NULL;
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, name->schema, &ex);
    if (rc) return rc;
    if (!ex) return tn_error_set(TN_ENOTFOUND, "Catalog Error: Schema with name %s does not exist!", name->schema);
    if ((rc = paths_make(cat, name, p))) return rc;
    if (!create) {
        if ((rc = fs->exists(fs, p->file, &ex))) goto fail;
        if (!ex) {
            rc = not_found(name);
            goto fail;
        }
    } else if ((rc = fs->mkdir_p(fs, p->dir))) {
        goto fail;
    }
    if ((rc = tn_fs_open_lock(fs, p->lock, lock))) goto fail;
    return 0;
fail:
    paths_free(p);
    return rc;
}

static void seq_unlock(tn_catalog *cat, seq_paths *p, tn_file *lock) {
    tn_error_state saved;
    tn_error_save(&saved);
    tn_fs *fs = tn_catalog_fs(cat);
    if (lock) fs->close(fs, lock);
    paths_free(p);
    tn_error_restore(&saved);
}

int tn_catalog_sequence_create(tn_catalog *cat, const tn_catalog_name *name, const tn_seq *init,
                               bool or_replace, bool if_not_exists) {
    seq_paths p;
    tn_file *lock = NULL;
    int rc = seq_lock(cat, name, true, &p, &lock);
    if (rc) return rc;
    tn_seq old;
    bool found = false;
    rc = seq_read(tn_catalog_fs(cat), &p, &old, &found);
    if (!rc && found && !or_replace) {
        if (!if_not_exists) rc = tn_error_set(TN_EEXISTS, "Sequence with name \"%s\" already exists!", name->name);
    } else if (!rc) {
        rc = seq_write(tn_catalog_fs(cat), &p, name->name, init);
    }
    seq_unlock(cat, &p, lock);
    return rc;
}

int tn_catalog_sequence_drop(tn_catalog *cat, const tn_catalog_name *name, bool if_exists) {
    seq_paths p;
    tn_file *lock = NULL;
    int rc = seq_lock(cat, name, false, &p, &lock);
    if (rc == TN_ENOTFOUND && if_exists) {
        tn_error_clear();
        return 0;
    }
    if (rc) return rc;
    /* the lock file stays: a process waiting on it must still exclude the next holder */
    tn_fs *fs = tn_catalog_fs(cat);
    rc = fs->unlink(fs, p.file);
    if (rc == TN_ENOTFOUND) rc = if_exists ? (tn_error_clear(), 0) : not_found(name);
    seq_unlock(cat, &p, lock);
    return rc;
}

int tn_catalog_sequence_exists(tn_catalog *cat, const tn_catalog_name *name, bool *out) {
    seq_paths p;
    *out = false;
    bool ex = false;
    int rc = tn_catalog_schema_exists(cat, name->schema, &ex);
    if (rc || !ex) return rc;
    if ((rc = paths_make(cat, name, &p))) return rc;
    tn_fs *fs = tn_catalog_fs(cat);
    rc = fs->exists(fs, p.file, out);
    paths_free(&p);
    return rc;
}

int tn_catalog_sequence_next(tn_catalog *cat, const tn_catalog_name *name, uint32_t n, int64_t *out) {
    seq_paths p;
    tn_file *lock = NULL;
    int rc = seq_lock(cat, name, false, &p, &lock);
    if (rc) return rc;
    tn_seq s;
    bool found = false;
    rc = seq_read(tn_catalog_fs(cat), &p, &s, &found);
    if (!rc && !found) rc = not_found(name);      /* dropped while we waited for the lock */
    if (!rc) rc = tn_seq_take(&s, name->name, n, out);
    if (!rc) rc = seq_write(tn_catalog_fs(cat), &p, name->name, &s);
    seq_unlock(cat, &p, lock);
    return rc;
}
