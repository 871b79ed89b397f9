/*
 * sql/bind_system.c: Paimon-style system tables of a catalog table: `t$files`, `t$buckets` and
 * `t$partitions` (also quoted, "t$files", and with a schema, s.t$files; time travel applies to
 * the snapshot they describe). Each is a VALUES plan computed from the snapshot's live files
 * (numRecords from add.stats, less the rows their deletion vectors delete; bucket and
 * bucketCount from the AddFile tags of primary-key tables, NULL for files without them).
 * A real table whose name contains '$' wins over a system table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/parse.h"
#include "sql/stmt.h"

typedef enum sys_kind { SYS_FILES = 0, SYS_BUCKETS, SYS_PARTITIONS } sys_kind;

static const char *const sys_names[] = {"files", "buckets", "partitions"};

/* One live file, as the system tables see it. */
typedef struct sys_file {
    const char *partition;             /* "{dt=2022-06-22}", "{}" when unpartitioned */
    const char *path;
    int32_t bucket, count;             /* -1: no bucket tags */
    int64_t records;                   /* live rows (numRecords less deleted); -1 unknown */
    int64_t deleted;                   /* rows its deletion vector deletes */
    int64_t size;
    int64_t mtime_ms;
} sys_file;

static int sys_file_cmp(const void *a, const void *b) {
    const sys_file *x = a, *y = b;
    int r = strcmp(x->partition, y->partition);
    if (r) return r;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    if (x->count != y->count) return x->count < y->count ? -1 : 1;
    return strcmp(x->path, y->path);
}

static const char *partition_text(tn_binder *b, const tn_table *t, const tn_delta_file *f) {
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    tn_buf s = TN_BUF_INIT;
    int rc = tn_buf_printf(&s, "{");
    for (uint32_t i = 0; i < md->npartition_columns && !rc; i++) {
        const char *logical = md->partition_columns[i], *physical = logical;
        int ci = tn_table_column_index(t, logical);
        if (ci >= 0) physical = tn_table_column(t, (uint32_t)ci)->physical_name;
        bool found = false;
        const char *v = tn_delta_kv_get(f->partition_values, f->npartition_values, physical, &found);
        rc = tn_buf_printf(&s, "%s%s=%s", i ? ", " : "", logical, v ? v : "__DEFAULT_PARTITION__");
    }
    if (!rc) rc = tn_buf_printf(&s, "}");
    const char *r = rc ? NULL : tn_arena_strdup(b->arena, (const char *)s.data);
    tn_buf_free(&s);
    return r;
}

typedef struct sys_out {
    tn_plan *p;
    uint32_t row;
    int rc;
} sys_out;

static void put(sys_out *o, uint32_t col, const tn_value *v) {
    if (o->rc) return;
    tn_value x = *v;
    x.type = o->p->types[col];
    o->rc = tn_expr_constant(&o->p->u.values.exprs[(size_t)o->row * o->p->ncols + col], &x);
}

static void put_int(sys_out *o, uint32_t col, int64_t v, bool null) {
    tn_value x;
    memset(&x, 0, sizeof x);
    x.is_null = null;
    x.u.i = v;
    put(o, col, &x);
}

static void put_str(sys_out *o, uint32_t col, const char *s) {
    tn_value x;
    memset(&x, 0, sizeof x);
    x.u.s.ptr = s;
    x.u.s.len = (uint32_t)strlen(s);
    put(o, col, &x);
}

int tn_bind_system_table(tn_binder *b, tn_sql_tableref *t, bool *found, tn_plan **out) {
    *out = NULL;
    *found = false;
    const tn_sql_qname *q = &t->u.table.name;
    const char *last = q->parts[q->n - 1].name;
    const char *dollar = strrchr(last, '$');
    if (!dollar || dollar == last || q->n > 2) return 0;
    int kind = -1;
    for (int i = 0; i < 3; i++)
        if (tn_str_iequal(dollar + 1, sys_names[i])) kind = i;
    if (kind < 0) return 0;
    tn_catalog *cat = NULL;
    if (!b->session->warehouse || tn_stmt_catalog(b, false, &cat)) return 0;
    char *base = tn_arena_strndup(b->arena, last, (size_t)(dollar - last));
    if (!base) return TN_ENOMEM;
    tn_catalog_name cn;
    bool exists = false;
    if (tn_catalog_name_make(&cn, "table", q->n == 2 ? q->parts[0].name : NULL, last) == 0 &&
        tn_catalog_table_exists(cat, &cn, &exists) == 0 && exists)
        return 0;                      /* a table named so */
    tn_error_clear();
    if (tn_catalog_name_make(&cn, "table", q->n == 2 ? q->parts[0].name : NULL, base) ||
        tn_catalog_table_exists(cat, &cn, &exists) || !exists) {
        tn_error_clear();
        return 0;                      /* not a system table either: "does not exist" */
    }
    *found = true;
    tn_table_open_options o = TN_TABLE_OPEN_OPTIONS_INIT;
    int rc = tn_bind_travel_options(b, t, &o);
    if (rc) return rc;
    tn_table *tbl = NULL;
    rc = tn_catalog_table_open(cat, &cn, &o, &tbl);
    if (rc) return tn_bind_error_at(b, rc, t->pos);
    const tn_delta_snapshot *snap = tn_table_snapshot(tbl);
    sys_file *files = tn_arena_calloc(b->arena, sizeof *files * (snap->nfiles + 1));
    if (!files) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        const tn_delta_file *f = &snap->files[i];
        sys_file *s = &files[i];
        s->partition = partition_text(b, tbl, f);
        s->path = tn_arena_strdup(b->arena, f->path_decoded ? f->path_decoded : f->path);
        if (!s->partition || !s->path) { rc = TN_ENOMEM; goto cleanup; }
        /* untagged files: bucket -1, count -2 (NULL); -1 is a dynamic-bucket file's count */
        if (!tn_layout_file_bucket(f, &s->bucket, &s->count)) s->bucket = -1, s->count = -2;
        s->deleted = f->has_dv ? f->dv.cardinality : 0;
        s->records = tn_delta_file_num_records(f);
        if (s->records >= 0) s->records -= s->deleted;
        s->size = f->has_size ? f->size : -1;
        s->mtime_ms = f->modification_time;
    }
    qsort(files, snap->nfiles, sizeof *files, sys_file_cmp);
    /* groups: one row per file, per (partition, bucket, count), per partition */
    uint32_t ngroups = 0;
    uint32_t *gstart = tn_arena_calloc(b->arena, sizeof *gstart * (snap->nfiles + 2));
    if (!gstart) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < snap->nfiles; i++) {
        bool same = i > 0;
        if (same && kind != SYS_FILES) {
            same = strcmp(files[i].partition, files[i - 1].partition) == 0;
            if (same && kind == SYS_BUCKETS)
                same = files[i].bucket == files[i - 1].bucket && files[i].count == files[i - 1].count;
        } else if (kind == SYS_FILES) {
            same = false;
        }
        if (!same) gstart[ngroups++] = i;
    }
    gstart[ngroups] = snap->nfiles;
    static const char *const files_cols[] = {"partition", "bucket", "file_path", "file_format", "record_count",
                                             "file_size_in_bytes", "total_buckets", "deleted_record_count",
                                             "creation_time"};
    static const char *const buckets_cols[] = {"partition", "bucket", "record_count", "file_size_in_bytes",
                                               "file_count", "last_update_time", "total_buckets"};
    static const char *const parts_cols[] = {"partition", "record_count", "file_size_in_bytes", "file_count",
                                             "last_update_time", "total_buckets"};
    const char *const *cols = kind == SYS_FILES ? files_cols : kind == SYS_BUCKETS ? buckets_cols : parts_cols;
    uint32_t ncols = kind == SYS_FILES ? 9 : kind == SYS_BUCKETS ? 7 : 6;
    tn_plan *p = tn_plan_new(b->arena, TN_PLAN_VALUES, ncols);
    if (!p) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t c = 0; c < ncols; c++) {
        p->names[c] = cols[c];
        const char *n = cols[c];
        p->types[c] = strcmp(n, "partition") == 0 || strcmp(n, "file_path") == 0 || strcmp(n, "file_format") == 0
                          ? tn_type_make(TN_TYPE_VARCHAR)
                      : strcmp(n, "bucket") == 0 || strcmp(n, "total_buckets") == 0 ? tn_type_make(TN_TYPE_INTEGER)
                      : strstr(n, "_time") ? tn_type_make(TN_TYPE_TIMESTAMP)
                                           : tn_type_make(TN_TYPE_BIGINT);
    }
    p->u.values.nrows = ngroups;
    p->u.values.exprs = tn_arena_calloc(b->arena, ((size_t)ngroups * ncols + 1) * sizeof(tn_expr *));
    if (!p->u.values.exprs) { rc = TN_ENOMEM; goto cleanup; }
    p->est_rows = ngroups;
    *out = p;
    sys_out so = {p, 0, 0};
    for (uint32_t g = 0; g < ngroups && !so.rc; g++) {
        so.row = g;
        const sys_file *f0 = &files[gstart[g]];
        int64_t records = 0, size = 0, mtime = 0, nfiles = gstart[g + 1] - gstart[g];
        bool rec_null = false, size_null = false;
        int32_t count = f0->count;
        bool count_mixed = false;
        for (uint32_t i = gstart[g]; i < gstart[g + 1]; i++) {
            if (files[i].records < 0) rec_null = true;
            else records += files[i].records;
            if (files[i].size < 0) size_null = true;
            else size += files[i].size;
            if (files[i].mtime_ms > mtime) mtime = files[i].mtime_ms;
            if (files[i].count != count) count_mixed = true;
        }
        uint32_t c = 0;
        put_str(&so, c++, f0->partition);
        if (kind == SYS_FILES) {
            put_int(&so, c++, f0->bucket, f0->bucket < 0);
            put_str(&so, c++, f0->path);
            put_str(&so, c++, "parquet");
            put_int(&so, c++, records, rec_null);
            put_int(&so, c++, size, size_null);
            put_int(&so, c++, count, count < -1);
            put_int(&so, c++, f0->deleted, false);
            put_int(&so, c++, mtime * 1000, false);
        } else {
            if (kind == SYS_BUCKETS) put_int(&so, c++, f0->bucket, f0->bucket < 0);
            put_int(&so, c++, records, rec_null);
            put_int(&so, c++, size, size_null);
            put_int(&so, c++, nfiles, false);
            put_int(&so, c++, mtime * 1000, false);
            /* a partition in the middle of nothing but a rescale has one count; NULL if mixed */
            put_int(&so, c++, count, count < -1 || count_mixed);
        }
    }
    rc = so.rc;
cleanup:
    tn_table_close(tbl);
    if (rc && *out) {
        tn_plan_free(*out);
        *out = NULL;
    }
    if (rc && rc != TN_ENOMEM) return tn_bind_error_at(b, rc, t->pos);
    return rc;
}
