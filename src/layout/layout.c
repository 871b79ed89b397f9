/*
 * layout/layout.c: the dispatch of a table to its layout (a table of layouts, each recognised by
 * its metadata; see layout.h), the tn_layout_* entry points that forward to the implementation,
 * and the helpers layouts share (per-write options, chunk and column checks, canonical
 * partition keys). Implementations live in layout/<name>/.
 */
#include "layout/layoutInt.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * The layouts. First match wins (plain matches everything); impl NULL = recognised but not in
 * this build (refused for writes).
 */
static bool has_key(const tn_delta_metadata *md, const char *key) { return tn_delta_config_get(md, key) != NULL; }

static bool is_otree(const tn_delta_metadata *md) {
    for (uint32_t i = 0; i < md->nconfiguration; i++)
        if (strncmp(md->configuration[i].key, "qbeast.", 7) == 0) return true;
    return false;
}

static bool is_bucket(const tn_delta_metadata *md) {
    return has_key(md, "bucket") || has_key(md, "bucket-key") || has_key(md, "primary-key");
}

static bool is_plain(const tn_delta_metadata *md) { (void)md; return true; }

typedef struct layout_entry {
    const char *name;
    bool (*recognise)(const tn_delta_metadata *md);
    const char *why;                   /* what recognised it, for messages */
    const tn_layout_impl *impl;
    const tn_layout_impl *reader;      /* scans only, while impl is NULL (its writer not in yet) */
} layout_entry;

static const layout_entry layouts[] = {
    {"otree", is_otree, "a 'qbeast.*' table property", &tn_layout_otree, NULL},  /* layout/otree/ */
    {"bucket", is_bucket, "the 'bucket' table property", &tn_layout_bucket, NULL},  /* layout/bucket/ */
    {"plain", is_plain, "", &tn_layout_plain, NULL},
};

#define TN_LAYOUT_KEY "tarn.layout"

static const layout_entry *find_md(const tn_delta_metadata *md, const char **explicit_name) {
    const char *ex = tn_delta_config_get(md, TN_LAYOUT_KEY);
    *explicit_name = ex;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        if (ex ? tn_str_iequal(ex, layouts[i].name) : layouts[i].recognise(md)) return &layouts[i];
    }
    return NULL;   /* an explicit name this build does not know */
}

static const layout_entry *find(const tn_table *t, const char **explicit_name) {
    return find_md(&tn_table_snapshot(t)->metadata, explicit_name);
}

const char *tn_layout_name(const tn_table *t, bool *implemented) {
    const char *ex;
    const layout_entry *e = find(t, &ex);
    if (implemented) *implemented = e && e->impl;
    return e ? e->name : ex;
}

/* The implementation for md, or TN_EUNSUPPORTED naming the layout (what: "table 'x' has"). */
static int resolve_md(const tn_delta_metadata *md, const char *what, const tn_layout_impl **out) {
    const char *ex;
    const layout_entry *e = find_md(md, &ex);
    *out = e ? e->impl : NULL;
    if (*out) return 0;
    if (!e)
        return tn_error_set(TN_EUNSUPPORTED, "%s layout '%s' ('%s' table property), which this build of tarn does "
                            "not know: writing refused", what, ex, TN_LAYOUT_KEY);
    return tn_error_set(TN_EUNSUPPORTED, "%s the %s layout (%s), which this build of tarn cannot write yet: "
                        "writing refused", what, e->name, ex ? "'" TN_LAYOUT_KEY "' table property" : e->why);
}

static int resolve(const tn_table *t, const tn_layout_impl **out) {
    char what[1100];
    snprintf(what, sizeof what, "table '%s' has", tn_table_path(t));
    return resolve_md(&tn_table_snapshot(t)->metadata, what, out);
}

int tn_layout_check_config(const tn_delta_kv *conf, uint32_t nconf) {
    tn_delta_metadata md;
    memset(&md, 0, sizeof md);
    md.configuration = (tn_delta_kv *)conf;
    md.nconfiguration = nconf;
    const tn_layout_impl *impl;
    return resolve_md(&md, "these table properties give", &impl);
}

int tn_layout_check_create(const tn_table_create_options *o) {
    const tn_layout_impl *impl;
    int rc = tn_layout_check_config(o->configuration, o->nconfiguration);
    if (rc) return rc;
    tn_delta_metadata md;
    memset(&md, 0, sizeof md);
    md.configuration = (tn_delta_kv *)o->configuration;
    md.nconfiguration = o->nconfiguration;
    rc = resolve_md(&md, "these table properties give", &impl);
    return rc ? rc : impl->check_create ? impl->check_create(o) : 0;
}

int tn_layout_check_alter(const tn_table *t, const tn_delta_kv *props, uint32_t nprops) {
    /* the layout before and after: a table never changes layout by ALTER */
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    tn_delta_metadata after = *md;
    tn_delta_kv *conf = tn_calloc((size_t)md->nconfiguration + nprops + 1, sizeof *conf);
    if (!conf) return TN_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < md->nconfiguration; i++) {
        bool changed = false;
        for (uint32_t k = 0; k < nprops; k++) changed |= tn_str_iequal(props[k].key, md->configuration[i].key);
        if (!changed) conf[n++] = md->configuration[i];
    }
    for (uint32_t k = 0; k < nprops; k++)
        if (props[k].value) conf[n++] = props[k];
    after.configuration = conf;
    after.nconfiguration = n;
    const char *ex;
    const layout_entry *before_e = find_md(md, &ex), *after_e = find_md(&after, &ex);
    int rc = 0;
    if (before_e != after_e)
        rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': ALTER TABLE cannot change the layout of a table (%s -> %s): the "
                          "layout is chosen at CREATE TABLE", tn_table_path(t), before_e ? before_e->name : "?",
                          after_e ? after_e->name : "?");
    else if (before_e && before_e->impl && before_e->impl->check_alter)
        rc = before_e->impl->check_alter(t, props, nprops);
    tn_free(conf);
    return rc;
}

int tn_layout_check_delete(const tn_table *t) {
    const tn_layout_impl *impl;
    int rc = resolve(t, &impl);
    return rc ? rc : impl->check_delete ? impl->check_delete(t) : 0;
}

int tn_layout_check_update(const tn_table *t, const uint8_t *assigned) {
    const tn_layout_impl *impl;
    int rc = resolve(t, &impl);
    return rc ? rc : impl->check_update ? impl->check_update(t, assigned) : 0;
}

int tn_layout_check_merge(const tn_table *t, const uint8_t *assigned, bool deletes) {
    const tn_layout_impl *impl;
    int rc = resolve(t, &impl);
    return rc ? rc : impl->check_merge ? impl->check_merge(t, assigned, deletes) : 0;
}

int tn_layout_describe_column(const tn_table *t, uint32_t col, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    bool implemented;
    const char *name = tn_layout_name(t, &implemented);
    const tn_layout_impl *impl;
    if (!name || !implemented || resolve(t, &impl)) {
        tn_error_clear();                /* a layout this build cannot write: nothing to say */
        return 0;
    }
    return impl->describe_column ? impl->describe_column(t, col, buf, cap) : 0;
}

int tn_layout_check_writable(const tn_table *t) {
    const tn_layout_impl *impl;
    return resolve(t, &impl);
}

/* ---------------------------------------------------------------------------------------------
 * Entry points.
 */
int tn_layout_writer_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    const tn_layout_impl *impl;
    tn_layout_write_options defaults = TN_LAYOUT_WRITE_OPTIONS_INIT;
    *out = NULL;
    int rc = resolve(t, &impl);
    if (rc) return rc;
    tn_layout_spill_cleanup(tn_table_path(t));   /* what killed writers left */
    rc = impl->writer_open(out, t, opts ? opts : &defaults);
    if (!rc) (*out)->impl = impl;
    return rc;
}

int tn_layout_writer_write(tn_layout_writer *w, const tn_chunk *chunk) { return w->impl->writer_write(w, chunk); }

int tn_layout_writer_write_kinds(tn_layout_writer *w, const tn_chunk *chunk, const uint8_t *kinds) {
    if (!kinds) return w->impl->writer_write(w, chunk);
    if (!w->impl->writer_write_kinds)
        return tn_error_set(TN_EUNSUPPORTED, "the %s layout writes no retraction rows", w->impl->name);
    return w->impl->writer_write_kinds(w, chunk, kinds);
}

int tn_layout_writer_commit(tn_layout_writer *w, tn_table_commit_result *result) {
    return w->impl->writer_commit(w, result);
}

void tn_layout_writer_abort(tn_layout_writer *w) {
    if (w) w->impl->writer_abort(w);
}

uint64_t tn_layout_writer_num_files(const tn_layout_writer *w) { return w->impl->writer_num_files(w); }

int tn_layout_optimize(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result) {
    const tn_layout_impl *impl;
    tn_layout_write_options defaults = TN_LAYOUT_WRITE_OPTIONS_INIT;
    int rc = resolve(t, &impl);
    if (rc) return rc;
    if (!impl->optimize)
        return tn_error_set(TN_EUNSUPPORTED, "not supported yet: OPTIMIZE of table '%s' (%s layout)", tn_table_path(t),
                            impl->name);
    return impl->optimize(t, opts ? opts : &defaults, result);
}

uint64_t tn_layout_writer_spilled_bytes(const tn_layout_writer *w) {
    return w->impl == &tn_layout_plain ? tn_layout_plain_spilled_bytes(w) : 0;
}

int tn_layout_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts) {
    tn_layout_scan_options defaults = TN_LAYOUT_SCAN_OPTIONS_INIT;
    bool dummy;
    if (!opts) {
        defaults.scan.all_columns = true;
        opts = &defaults;
    }
    if (!sampled) sampled = &dummy;
    *sampled = false;
    const char *ex;
    const layout_entry *e = find(t, &ex);
    /* a layout this build cannot write is still a Delta table: read it as one */
    if (e && e->impl && e->impl->scan_open) return e->impl->scan_open(out, sampled, t, opts);
    if (e && !e->impl && e->reader && e->reader->scan_open) return e->reader->scan_open(out, sampled, t, opts);
    return tn_table_scan_open(out, t, &opts->scan);
}

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */
const char *tn_layout_option(const tn_delta_kv *options, uint32_t noptions, const char *key) {
    for (uint32_t i = 0; i < noptions; i++)
        if (options[i].key && tn_str_iequal(options[i].key, key)) return options[i].value;
    return NULL;
}

int tn_layout_options_check(const tn_table *t, const char *layout, const tn_delta_kv *options, uint32_t noptions,
                            const char *const *known, uint32_t nknown) {
    for (uint32_t i = 0; i < noptions; i++) {
        bool ok = false;
        for (uint32_t k = 0; k < nknown && !ok; k++) ok = options[i].key && tn_str_iequal(options[i].key, known[k]);
        if (ok) continue;
        char list[256];
        size_t n = 0;
        list[0] = 0;
        for (uint32_t k = 0; k < nknown && n + 1 < sizeof list; k++) {
            int wr = snprintf(list + n, sizeof list - n, "%s'%s'", k ? ", " : "", known[k]);
            if (wr < 0) break;
            n += (size_t)wr;
        }
        return tn_error_set(TN_EUNSUPPORTED, "table '%s': write option '%s' is not supported by the %s layout%s%s%s",
                            tn_table_path(t), options[i].key ? options[i].key : "", layout, nknown ? " (supported: " : "",
                            list, nknown ? ")" : "");
    }
    return 0;
}

int tn_layout_check_columns(const tn_table *t) {
    for (uint32_t i = 0; i < tn_table_num_columns(t); i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        if (c->nested && !tn_type_is_nested(c->type))
            return tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has type %s: writing is not supported",
                                tn_table_path(t), c->name, c->type_text ? c->type_text : "?");
    }
    return 0;
}

int tn_layout_check_chunk(const tn_table *t, const tn_chunk *chunk) {
    uint32_t ncols = tn_table_num_columns(t);
    if (chunk->ncols != ncols)
        return tn_error_set(TN_EINVAL, "table '%s': %u columns given, the table has %u", tn_table_path(t), chunk->ncols,
                            ncols);
    for (uint32_t i = 0; i < ncols; i++) {
        const tn_delta_column *c = tn_table_column(t, i);
        tn_type a = chunk->cols[i].type, b = c->type;
        if (!tn_type_equal(a, b) && !(tn_type_is_string(a) && tn_type_is_string(b))) {
            char x[32], y[32];
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' is %s, a value of type %s was given",
                                tn_table_path(t), c->name, tn_type_format(b, x, sizeof x), tn_type_format(a, y, sizeof y));
        }
        if (chunk->cols[i].count < chunk->count && chunk->cols[i].count != 0)
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' has %u rows, the chunk %u", tn_table_path(t),
                                c->name, chunk->cols[i].count, chunk->count);
    }
    return 0;
}

int tn_layout_partition_key_append(tn_buf *key, tn_type type, const char *text) {
    tn_value v;
    int rc = tn_table_partition_value_parse(&v, type, text);
    if (rc) return rc;
    tn_buf canon = TN_BUF_INIT;
    bool is_null = false;
    rc = tn_table_partition_text(&canon, &v, &is_null);
    if (!rc && !is_null) rc = tn_buf_append_byte(&canon, 0);
    if (!rc) rc = is_null ? tn_buf_printf(key, "\x01N\x02") : tn_buf_printf(key, "\x01V%s\x02", (const char *)canon.data);
    tn_buf_free(&canon);
    return rc;
}

int tn_layout_file_partition_key(const tn_table *t, const tn_delta_file *f, tn_buf *key) {
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const tn_delta_metadata *md = &snap->metadata;
    int rc = 0;
    tn_buf_clear(key);
    for (uint32_t k = 0; k < md->npartition_columns && !rc; k++) {
        int ci = tn_table_column_index(t, md->partition_columns[k]);
        if (ci < 0) return tn_error_set(TN_ECORRUPT, "table '%s': partition column '%s' is not in the schema",
                                        tn_table_path(t), md->partition_columns[k]);
        const tn_delta_column *c = tn_table_column(t, (uint32_t)ci);
        bool is_null = false;
        const char *s = tn_delta_partition_value(snap, f, c->name, &is_null);
        rc = tn_layout_partition_key_append(key, c->type, is_null ? NULL : s);
    }
    if (!rc) rc = tn_buf_append_byte(key, 0);
    return rc;
}
