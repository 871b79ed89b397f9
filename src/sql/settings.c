/*
 * sql/settings.c: the table of session settings (settings.h) and SET / current_setting() over
 * it. To add a setting, append a row to tn_settings[] (name, kind, default, apply/show if the
 * value acts at SET time) and read it where it matters with tn_setting_get/tn_setting_bool.
 * Values are kept normalized: a session's in its option store (stmt_ddl.c), a database's
 * global ones in the process-wide list of databases below (one per warehouse directory).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sql/exec.h"
#include "sql/settings.h"
#include "sql/stmt.h"

/* ---------------------------------------------------------------------------------------------
 * Values that act at SET time.
 */
static int apply_threads(tn_sql_session *s, const char *value) {
    int n = atoi(value);
    tn_pool *p = NULL;
    int rc = tn_pool_create(&p, n);
    if (rc) return rc;
    tn_pool_destroy(s->pool);
    s->pool = p;
    s->threads = (int)tn_pool_size(p);
    return 0;
}

static void show_threads(const tn_sql_session *s, char *buf, size_t cap) { snprintf(buf, cap, "%d", s->threads); }

/* DuckDB's sizes: KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB powers of 1024, B bytes. */
static int parse_bytes(const char *s, uint64_t *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || errno) return -1;
    while (*end == ' ') end++;
    static const struct { const char *unit; double mul; } units[] = {
        {"", 1}, {"b", 1}, {"bytes", 1}, {"k", 1e3}, {"kb", 1e3}, {"m", 1e6}, {"mb", 1e6}, {"g", 1e9}, {"gb", 1e9},
        {"t", 1e12}, {"tb", 1e12}, {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (tn_str_iequal(end, units[i].unit)) {
            double bytes = v * units[i].mul;
            if (bytes >= 18446744073709551615.0) return -1;
            *out = (uint64_t)bytes;
            return 0;
        }
    return -1;
}

static int apply_memory_limit(tn_sql_session *s, const char *value) {
    uint64_t bytes = 0;
    if (parse_bytes(value, &bytes)) return TN_EINVAL;
    s->memory_limit = bytes;
    return 0;
}

/* DuckDB's spelling: "953.6 MiB", "18.8 GiB", "512 bytes". */
static void format_bytes(uint64_t n, char *buf, size_t cap) {
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%" PRIu64 " bytes", n);
        return;
    }
    double v = (double)n / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", floor(v * 10.0) / 10.0, units[u]);   /* DuckDB truncates */
}

static void show_memory_limit(const tn_sql_session *s, char *buf, size_t cap) { format_bytes(s->memory_limit, buf, cap); }

static void show_temp_directory(const tn_sql_session *s, char *buf, size_t cap) {
    if (!tn_setting_temp_directory(s, buf, cap)) snprintf(buf, cap, "%s", "");
}

/* Unset: DuckDB's default, 90% of the space free where spill files go. */
static void show_max_temp(const tn_sql_session *s, char *buf, size_t cap) {
    uint64_t n = tn_setting_bytes(s, "max_temp_directory_size");
    if (!n) {
        char dir[4096];
        const char *d = tn_setting_temp_directory(s, dir, sizeof dir);
        n = tn_spill_default_limit(d);
    }
    format_bytes(n, buf, cap);
}

static const char *const null_orders[] = {
    "NULLS_LAST|nulls_last|last|nulls last",
    "NULLS_FIRST|nulls_first|first|nulls first",
    "NULLS_FIRST_ON_ASC_LAST_ON_DESC|sqlite|mysql",
    "NULLS_LAST_ON_ASC_FIRST_ON_DESC|postgres",
    NULL,
};
static const char *const regex_semantics[] = {"partial", "full", NULL};
static const char *const overwrite_modes[] = {"dynamic", "static", NULL};
static const char *const not_null_enforcers[] = {"ERROR|error", NULL};   /* 'drop' is not implemented */
static const char *const runtime_modes[] = {"batch", "streaming", NULL};   /* streaming INSERT: says `tarn job start` */

/* ---------------------------------------------------------------------------------------------
 * The table. Append rows; keep names in DuckDB's (or Spark's/Delta's) spelling.
 */
const tn_setting_def tn_settings[] = {
    {"threads", "worker_threads", TN_SETTING_INT, NULL, NULL, 1, 1024, apply_threads, show_threads,
     "worker threads of the session's pool", false},
    {"memory_limit", "max_memory", TN_SETTING_BYTES, NULL, NULL, 0, 0, apply_memory_limit, show_memory_limit,
     "memory a statement may hold (sorts, joins, aggregates, buffered writes, regular expressions)", false},
    {"temp_directory", NULL, TN_SETTING_STRING, NULL, NULL, 0, 0, NULL, show_temp_directory,
     "where operators past their share of memory_limit spill (default <warehouse>/_tarn_tmp; '' disables spilling)",
     false},
    {"max_temp_directory_size", NULL, TN_SETTING_BYTES, NULL, NULL, 0, 0, NULL, show_max_temp,
     "the most a statement's spill files may hold (default 90% of the free disk space there)", false},
    {"default_null_order", "null_order", TN_SETTING_ENUM, "NULLS_LAST", null_orders, 0, 0, NULL, NULL,
     "where NULLs sort when ORDER BY does not say NULLS FIRST/LAST", true},
    {"spark.sql.sources.partitionOverwriteMode", NULL, TN_SETTING_ENUM, "dynamic", overwrite_modes, 0, 0, NULL, NULL,
     "INSERT OVERWRITE without PARTITION (...): replace only the partitions written (dynamic) or all (static)", false},
    {"spark.databricks.delta.retentionDurationCheck.enabled", NULL, TN_SETTING_BOOL, "true", NULL, 0, 0, NULL, NULL,
     "false lets VACUUM RETAIN go under the table's retention", false},
    {"allow_external_locations", NULL, TN_SETTING_BOOL, "false", NULL, 0, 0, NULL, NULL,
     "CREATE TABLE ... LOCATION outside the warehouse (stmt_ddl.c)", false},
    {"execution.runtime-mode", NULL, TN_SETTING_ENUM, "batch", runtime_modes, 0, 0, NULL, NULL,
     "Flink's switch: statements run in batch mode (streaming jobs run with `tarn job start`)", false},
    {"table.exec.sink.not-null-enforcer", NULL, TN_SETTING_ENUM, "ERROR", not_null_enforcers, 0, 0, NULL, NULL,
     "Flink's switch: a NULL written to a NOT NULL column is an error (DROP is not supported)", false},
    {"preserve_insertion_order", NULL, TN_SETTING_BOOL, "true", NULL, 0, 0, NULL, NULL,
     "tarn always keeps insertion order (what true asks; false only permits other orders)", true},
    {"scalar_subquery_error_on_multiple_rows", NULL, TN_SETTING_BOOL, "true", NULL, 0, 0, NULL, NULL,
     "false: a scalar subquery with several rows gives its first row instead of an error", true},
    {"order_by_non_integer_literal", NULL, TN_SETTING_BOOL, "false", NULL, 0, 0, NULL, NULL,
     "true: ORDER BY 'literal' is allowed (it orders by a constant); false: an error, as in DuckDB", true},
    {"regex_match_operator_semantics", NULL, TN_SETTING_ENUM, "partial", regex_semantics, 0, 0, NULL, NULL,
     "a ~ b matches anywhere in a (partial, regexp_matches) or all of it (full, regexp_full_match)", false},
    {NULL, NULL, 0, NULL, NULL, 0, 0, NULL, NULL, NULL, false},
};

/* ---------------------------------------------------------------------------------------------
 * Database-wide values of global settings. One mutex guards the list and every value; a value
 * replaced by a later SET is kept (in old) until the database's last session detaches, so the
 * pointer tn_setting_get returned to another session stays valid.
 */
struct tn_setting_globals {
    char *key;                       /* the warehouse's real path; NULL: a private one */
    int refs;
    tn_delta_kv *vals;               /* keys are tn_settings[] names (static); values tn_malloc'd */
    uint32_t n, cap;
    char **old;
    uint32_t nold, oldcap;
    struct tn_setting_globals *next;
};

static pthread_mutex_t g_globals_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tn_setting_globals *g_globals;

int tn_settings_attach(tn_sql_session *s) {
    char real[PATH_MAX], cwd[PATH_MAX];
    const char *key = NULL;
    if (s->warehouse) {                  /* not there yet: the absolute path it will have */
        key = realpath(s->warehouse, real) ? real : s->warehouse;
        if (key[0] != '/' && getcwd(cwd, sizeof cwd) &&
            snprintf(real, sizeof real, "%s/%s", cwd, s->warehouse) < (int)sizeof real)
            key = real;
    }
    pthread_mutex_lock(&g_globals_mu);
    struct tn_setting_globals *g = NULL;
    for (g = key ? g_globals : NULL; g; g = g->next)
        if (strcmp(g->key, key) == 0) break;
    if (!g) {
        g = tn_calloc(1, sizeof *g);
        if (g && key && !(g->key = tn_strdup(key))) {
            tn_free(g);
            g = NULL;
        }
        if (g && key) {
            g->next = g_globals;
            g_globals = g;
        }
    }
    if (g) g->refs++;
    pthread_mutex_unlock(&g_globals_mu);
    s->globals = g;
    return g ? 0 : TN_ENOMEM;
}

void tn_settings_detach(tn_sql_session *s) {
    struct tn_setting_globals *g = s->globals;
    if (!g) return;
    s->globals = NULL;
    pthread_mutex_lock(&g_globals_mu);
    bool last = --g->refs == 0;
    if (last && g->key)
        for (struct tn_setting_globals **pp = &g_globals; *pp; pp = &(*pp)->next)
            if (*pp == g) {
                *pp = g->next;
                break;
            }
    pthread_mutex_unlock(&g_globals_mu);
    if (!last) return;
    for (uint32_t i = 0; i < g->n; i++) tn_free((char *)g->vals[i].value);
    for (uint32_t i = 0; i < g->nold; i++) tn_free(g->old[i]);
    tn_free(g->vals);
    tn_free(g->old);
    tn_free(g->key);
    tn_free(g);
}

/* Sets (value NULL: removes) the database's value of d. */
static int global_set(struct tn_setting_globals *g, const tn_setting_def *d, const char *value) {
    char *v = value ? tn_strdup(value) : NULL;
    if (value && !v) return TN_ENOMEM;
    int rc = 0;
    pthread_mutex_lock(&g_globals_mu);
    uint32_t i = 0;
    while (i < g->n && g->vals[i].key != d->name) i++;
    if (i == g->n && g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 4;
        tn_delta_kv *nv = tn_realloc(g->vals, cap * sizeof *nv);
        if (!nv) rc = TN_ENOMEM;
        else {
            g->vals = nv;
            g->cap = cap;
        }
    }
    if (!rc && i < g->n && g->vals[i].value && g->nold == g->oldcap) {
        uint32_t cap = g->oldcap ? g->oldcap * 2 : 4;
        char **no = tn_realloc(g->old, cap * sizeof *no);
        if (!no) rc = TN_ENOMEM;
        else {
            g->old = no;
            g->oldcap = cap;
        }
    }
    if (!rc) {
        if (i == g->n) {
            g->vals[i].key = d->name;
            g->vals[i].value = NULL;
            g->n++;
        }
        if (g->vals[i].value) g->old[g->nold++] = (char *)g->vals[i].value;
        g->vals[i].value = v;
    }
    pthread_mutex_unlock(&g_globals_mu);
    if (rc) tn_free(v);
    return rc;
}

static const char *global_get(struct tn_setting_globals *g, const tn_setting_def *d) {
    const char *v = NULL;
    if (!g) return NULL;
    pthread_mutex_lock(&g_globals_mu);
    for (uint32_t i = 0; i < g->n; i++)
        if (g->vals[i].key == d->name) v = g->vals[i].value;
    pthread_mutex_unlock(&g_globals_mu);
    return v;
}

const tn_setting_def *tn_setting_find(const char *name) {
    for (const tn_setting_def *d = tn_settings; d->name; d++)
        if (tn_str_iequal(d->name, name) || (d->alias && tn_str_iequal(d->alias, name))) return d;
    return NULL;
}

/* The canonical spelling of an ENUM value, or NULL. */
static const char *enum_canonical(const tn_setting_def *d, const char *v, char *buf, size_t cap) {
    for (const char *const *c = d->choices; *c; c++) {
        const char *p = *c;
        const char *bar = strchr(p, '|');
        size_t clen = bar ? (size_t)(bar - p) : strlen(p);
        while (p) {
            const char *e = strchr(p, '|');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (strlen(v) == n && tn_str_iequal_n(p, n, v)) {
                snprintf(buf, cap, "%.*s", (int)clen, *c);
                return buf;
            }
            p = e ? e + 1 : NULL;
        }
    }
    return NULL;
}

static int normalize(const tn_setting_def *d, const char *v, char *buf, size_t cap) {
    switch (d->kind) {
    case TN_SETTING_BOOL:
        if (tn_str_iequal(v, "true") || tn_str_iequal(v, "on") || tn_str_iequal(v, "1") || tn_str_iequal(v, "t")) {
            snprintf(buf, cap, "true");
            return 0;
        }
        if (tn_str_iequal(v, "false") || tn_str_iequal(v, "off") || tn_str_iequal(v, "0") || tn_str_iequal(v, "f")) {
            snprintf(buf, cap, "false");
            return 0;
        }
        return tn_error_set(TN_EBIND, "SET %s: '%s' is not a boolean (true or false)", d->name, v);
    case TN_SETTING_INT: {
        char *end = NULL;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (end == v || *end || errno || n < d->min || n > d->max)
            return tn_error_set(TN_EBIND, "SET %s: '%s' is not an integer between %" PRId64 " and %" PRId64, d->name, v,
                                d->min, d->max);
        snprintf(buf, cap, "%lld", n);
        return 0;
    }
    case TN_SETTING_BYTES: {
        uint64_t bytes;
        if (parse_bytes(v, &bytes))
            return tn_error_set(TN_EBIND, "SET %s: cannot read size '%s' (a number with KB, MB, GB, TB for 1000^i "
                                "or KiB, MiB, GiB, TiB for 1024^i bytes)", d->name, v);
        snprintf(buf, cap, "%s", v);
        return 0;
    }
    case TN_SETTING_STRING: snprintf(buf, cap, "%s", v); return 0;
    case TN_SETTING_ENUM:
        if (enum_canonical(d, v, buf, cap)) return 0;
        {
            tn_buf list = TN_BUF_INIT;
            for (const char *const *c = d->choices; *c; c++) {
                const char *bar = strchr(*c, '|');
                tn_buf_printf(&list, "%s'%.*s'", c == d->choices ? "" : ", ", (int)(bar ? bar - *c : (int)strlen(*c)), *c);
            }
            int rc = tn_error_set(TN_EBIND, "SET %s: unrecognized value '%s' (expected one of %s)", d->name, v,
                                  list.data ? (const char *)list.data : "");
            tn_buf_free(&list);
            return rc;
        }
    }
    return TN_EBIND;
}

int tn_setting_set(tn_sql_session *s, const char *name, const char *value, int scope) {
    const tn_setting_def *d = tn_setting_find(name);
    if (!d) return tn_error_set(TN_EBIND, "unrecognized configuration parameter \"%s\"", name);
    if (scope == TN_SQL_SCOPE_GLOBAL && !d->global)
        return tn_error_set(TN_EBIND, "setting \"%s\" is per session in tarn and cannot be set GLOBAL (use SET or SET SESSION)",
                            d->name);
    bool session = !d->global || scope == TN_SQL_SCOPE_SESSION;
    tn_sql_option o;
    memset(&o, 0, sizeof o);
    o.key = d->name;
    if (!value && session && (d->global || !d->default_value))
        return tn_stmt_set_option(s, &o);   /* RESET SESSION, or RESET of a setting without default: no override */
    char norm[1024];
    const char *v = value;
    if (!v) v = d->default_value;
    if (!v) return tn_error_set(TN_EBIND, "SET %s needs a value (RESET is not supported for it)", d->name);
    int rc = normalize(d, v, norm, sizeof norm);
    if (rc) return rc;
    if (d->apply && (rc = d->apply(s, norm))) return rc;
    if (!session) {
        if (!s->globals) return tn_error_set(TN_EINVAL, "SET %s: the session has no database settings", d->name);
        return global_set(s->globals, d, value ? norm : NULL);
    }
    o.value = norm;
    return tn_stmt_set_option(s, &o);
}

const char *tn_setting_get(const tn_sql_session *s, const char *name) {
    const tn_setting_def *d = tn_setting_find(name);
    if (!d) return NULL;
    const char *v = tn_stmt_get_option(s, d->name);
    if (!v && d->global) v = global_get(s->globals, d);
    return v ? v : d->default_value;
}

uint64_t tn_setting_bytes(const tn_sql_session *s, const char *name) {
    const char *v = tn_setting_get(s, name);
    uint64_t n = 0;
    if (!v || parse_bytes(v, &n)) return 0;
    return n;
}

const char *tn_setting_temp_directory(const tn_sql_session *s, char *buf, size_t cap) {
    const char *v = tn_setting_get(s, "temp_directory");
    if (v) {
        if (!*v) return NULL;
        snprintf(buf, cap, "%s", v);
        return buf;
    }
    struct stat st;
    if (s->warehouse && (s->warehouse_is_dir || (stat(s->warehouse, &st) == 0 && S_ISDIR(st.st_mode)))) {
        ((tn_sql_session *)s)->warehouse_is_dir = true;   /* a cache: every statement asks */
        snprintf(buf, cap, "%s/_tarn_tmp", s->warehouse);
        return buf;
    }
    const char *t = getenv("TMPDIR");
    snprintf(buf, cap, "%s", t && *t ? t : "/tmp");
    return buf;
}

bool tn_setting_bool(const tn_sql_session *s, const char *name) {
    const char *v = tn_setting_get(s, name);
    return v && strcmp(v, "true") == 0;
}

int tn_setting_value(const tn_sql_session *s, const char *name, tn_arena *arena, tn_value *out) {
    memset(out, 0, sizeof *out);
    const tn_setting_def *d = tn_setting_find(name);
    if (!d) return tn_error_set(TN_EBIND, "unrecognized configuration parameter \"%s\"", name);
    char buf[256];
    const char *v;
    if (d->show) {
        d->show(s, buf, sizeof buf);
        v = buf;
    } else {
        v = tn_setting_get(s, d->name);
    }
    if (!v) {
        out->type = tn_type_make(TN_TYPE_VARCHAR);
        out->is_null = true;
        return 0;
    }
    switch (d->kind) {
    case TN_SETTING_BOOL:
        out->type = tn_type_make(TN_TYPE_BOOLEAN);
        out->u.b = strcmp(v, "true") == 0;
        return 0;
    case TN_SETTING_INT:
        out->type = tn_type_make(TN_TYPE_BIGINT);
        out->u.i = strtoll(v, NULL, 10);
        return 0;
    default: {
        size_t n = strlen(v);
        char *c = tn_arena_alloc(arena, n + 1);
        if (!c) return TN_ENOMEM;
        memcpy(c, v, n + 1);
        out->type = tn_type_make(TN_TYPE_VARCHAR);
        out->u.s.ptr = c;
        out->u.s.len = (uint32_t)n;
        return 0;
    }
    }
}

bool tn_setting_nulls_first(const tn_sql_session *s, bool desc, int nulls) {
    if (nulls) return nulls == 1;
    const char *v = s ? tn_setting_get(s, "default_null_order") : NULL;
    if (!v || strcmp(v, "NULLS_LAST") == 0) return false;
    if (strcmp(v, "NULLS_FIRST") == 0) return true;
    if (strcmp(v, "NULLS_FIRST_ON_ASC_LAST_ON_DESC") == 0) return !desc;
    return desc;                         /* NULLS_LAST_ON_ASC_FIRST_ON_DESC */
}
