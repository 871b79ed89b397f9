/*
 * table/cdf.c: change data feed on write (PROTOCOL.md "Change Data Files", "Add CDC File"). A
 * tn_table_cdc collects the rows a commit deletes (and, with UPDATE/MERGE later, the pre- and
 * post-images) into Parquet files under _change_data/, Hive-partitioned like the data, each
 * holding the table's data columns (physical names) plus _change_type, and returns the `cdc`
 * actions the commit adds. When a version has cdc actions, change readers read only them; a
 * version without them (appends, whole-file overwrites) is read from its add/remove actions.
 *
 *   file   _change_data/[<col>=<value>/...]cdc-<5-digit counter>-<uuid>.c000.snappy.parquet
 *   cdc    {"path", "partitionValues", "size", "dataChange": false}
 */
#include "table/tableInt.h"

#include <stdio.h>
#include <string.h>

typedef struct cdc_part {
    char *key;                       /* canonical partition text (dir) */
    tn_delta_kv *pvals;              /* physical name -> text */
    char *rel_path, *full_path;
    tn_parquet_writer *pw;
} cdc_part;

struct tn_table_cdc {
    tn_table *t;
    uint32_t *data_cols, ndata;
    uint32_t *part_cols, npart;
    tn_parquet_column_spec *specs;   /* data columns + _change_type */
    tn_type *types;
    cdc_part *parts;
    uint32_t nparts, cap_parts;
    tn_delta_action *actions;
    uint32_t nactions;
    char **written;
    uint32_t nwritten;
    uint64_t counter;
    tn_arena *arena;
};

bool tn_table_cdf_enabled(const tn_table *t) {
    const char *v = tn_table_property(t, "delta.enableChangeDataFeed");
    return v && tn_str_iequal(v, "true") && tn_delta_protocol_supports(&t->snap->protocol, "changeDataFeed");
}

int tn_table_cdc_open(tn_table_cdc **out, tn_table *t) {
    *out = NULL;
    const tn_delta_metadata *md = &t->snap->metadata;
    tn_table_cdc *c = tn_calloc(1, sizeof *c);
    if (!c) return TN_ENOMEM;
    c->t = t;
    c->arena = tn_arena_create(0);
    uint32_t n = md->ncolumns;
    if (c->arena) {
        c->data_cols = tn_arena_calloc(c->arena, sizeof(uint32_t) * (n + 1));
        c->part_cols = tn_arena_calloc(c->arena, sizeof(uint32_t) * (n + 1));
        c->specs = tn_arena_calloc(c->arena, sizeof *c->specs * (n + 2));
        c->types = tn_arena_calloc(c->arena, sizeof *c->types * (n + 2));
    }
    if (!c->arena || !c->data_cols || !c->part_cols || !c->specs || !c->types) {
        tn_table_cdc_abort(c);
        return TN_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        const tn_delta_column *col = &md->columns[i];
        if (col->is_partition) {
            c->part_cols[c->npart++] = i;
            continue;
        }
        tn_parquet_column_spec *s = &c->specs[c->ndata];
        s->name = col->physical_name;
        s->type = col->type;
        s->nullable = true;
        s->field_id = md->column_mapping != TN_DELTA_CM_NONE ? col->field_id : -1;
        c->types[c->ndata] = col->type;
        c->data_cols[c->ndata++] = i;
    }
    c->specs[c->ndata] = (tn_parquet_column_spec){"_change_type", tn_type_make(TN_TYPE_VARCHAR), false, -1};
    c->types[c->ndata] = tn_type_make(TN_TYPE_VARCHAR);
    *out = c;
    return 0;
}

/* The partition of row `row`: found or opened (its file is created on first use). */
static int part_for(tn_table_cdc *c, const tn_chunk *chunk, uint32_t row, cdc_part **out) {
    const tn_delta_metadata *md = &c->t->snap->metadata;
    tn_buf dir = TN_BUF_INIT, text = TN_BUF_INIT;
    tn_delta_kv *pv = NULL;
    int rc = 0;
    if (c->npart) {
        pv = tn_arena_calloc(c->arena, sizeof *pv * c->npart);
        if (!pv) return TN_ENOMEM;
    }
    for (uint32_t k = 0; k < c->npart && !rc; k++) {
        const tn_delta_column *col = &md->columns[c->part_cols[k]];
        tn_value v;
        tn_vector_get_value(&chunk->cols[c->part_cols[k]], row, &v);
        bool is_null = false;
        tn_buf_clear(&text);
        rc = tb_partition_text(&text, &v, &is_null);
        if (rc) break;
        pv[k].key = col->physical_name;
        pv[k].value = is_null ? NULL : tn_arena_strndup(c->arena, text.data ? (const char *)text.data : "", text.len);
        if (!is_null && !pv[k].value) rc = TN_ENOMEM;
        if (!rc && k) rc = tn_buf_append_byte(&dir, '/');
        if (!rc) rc = tb_hive_escape(&dir, col->name, strlen(col->name));
        if (!rc) rc = tn_buf_append_byte(&dir, '=');
        if (!rc) {
            if (is_null) rc = tn_buf_printf(&dir, "__HIVE_DEFAULT_PARTITION__");
            else rc = tb_hive_escape(&dir, pv[k].value, strlen(pv[k].value));
        }
    }
    if (!rc) rc = tn_buf_append_byte(&dir, 0);
    if (rc) goto cleanup;
    for (uint32_t i = 0; i < c->nparts; i++)
        if (strcmp(c->parts[i].key, (const char *)dir.data) == 0) {
            *out = &c->parts[i];
            goto cleanup;
        }
    if (c->nparts == c->cap_parts) {
        uint32_t cap = c->cap_parts ? c->cap_parts * 2 : 8;
        cdc_part *np = tn_realloc(c->parts, sizeof *np * cap);
        if (!np) { rc = TN_ENOMEM; goto cleanup; }
        c->parts = np;
        c->cap_parts = cap;
    }
    cdc_part *p = &c->parts[c->nparts];
    memset(p, 0, sizeof *p);
    char uuid[37];
    tb_uuid(uuid);
    const char *d = (const char *)dir.data;
    p->key = tn_arena_strdup(c->arena, d);
    p->pvals = pv;
    p->rel_path = tn_arena_printf(c->arena, "_change_data/%s%scdc-%05llu-%s.c000.snappy.parquet", d, *d ? "/" : "",
                                  (unsigned long long)(c->counter++ % 100000), uuid);
    p->full_path = p->rel_path ? tn_arena_printf(c->arena, "%s/%s", c->t->path, p->rel_path) : NULL;
    if (!p->key || !p->rel_path || !p->full_path) { rc = TN_ENOMEM; goto cleanup; }
    char *parent = tn_arena_strdup(c->arena, p->full_path);
    if (!parent) { rc = TN_ENOMEM; goto cleanup; }
    *strrchr(parent, '/') = 0;
    rc = c->t->fs->mkdir_p(c->t->fs, parent);
    if (rc) goto cleanup;
    char **nw = tn_realloc(c->written, sizeof *nw * (c->nwritten + 1));
    if (!nw) { rc = TN_ENOMEM; goto cleanup; }
    c->written = nw;
    c->written[c->nwritten++] = p->full_path;
    tn_parquet_writer_options po = TN_PARQUET_WRITER_OPTIONS_INIT;
    po.codec = TN_CODEC_SNAPPY;
    rc = tn_parquet_writer_open(&p->pw, c->t->fs, p->full_path, c->specs, c->ndata + 1, &po);
    if (rc) goto cleanup;
    c->nparts++;
    *out = p;
cleanup:
    tn_buf_free(&dir);
    tn_buf_free(&text);
    return rc;
}

int tn_table_cdc_write(tn_table_cdc *c, const tn_chunk *chunk, const uint32_t *sel, uint32_t n,
                       const char *change_type) {
    int rc = 0;
    tn_chunk stage;
    if (n == 0) return 0;
    rc = tn_chunk_init(&stage, c->ndata + 1, c->types, n);
    if (rc) return rc;
    uint32_t *rows = tn_malloc(sizeof *rows * n);
    bool *done = tn_calloc(n, sizeof *done);
    if (!rows || !done) { rc = TN_ENOMEM; goto cleanup; }
    size_t tlen = strlen(change_type);
    /* one partition at a time: rows of the first unwritten row's partition */
    for (uint32_t first = 0; first < n && !rc; first++) {
        if (done[first]) continue;
        cdc_part *p = NULL;
        rc = part_for(c, chunk, sel ? sel[first] : first, &p);
        if (rc) break;
        uint32_t m = 0;
        for (uint32_t i = first; i < n && !rc; i++) {
            if (done[i]) continue;
            cdc_part *q = p;
            if (i != first && c->npart) rc = part_for(c, chunk, sel ? sel[i] : i, &q);
            if (!rc && q == p) {
                rows[m++] = sel ? sel[i] : i;
                done[i] = true;
            }
        }
        if (rc) break;
        tn_chunk_reset(&stage);
        for (uint32_t k = 0; k < c->ndata && !rc; k++) {
            stage.cols[k].count = 0;
            rc = tn_vector_append_rows(&stage.cols[k], &chunk->cols[c->data_cols[k]], rows, m);
        }
        tn_value ct;
        memset(&ct, 0, sizeof ct);
        ct.type = tn_type_make(TN_TYPE_VARCHAR);
        ct.u.s.ptr = change_type;
        ct.u.s.len = (uint32_t)tlen;
        for (uint32_t i = 0; i < m && !rc; i++) rc = tb_vector_set_value(&stage.cols[c->ndata], i, &ct);
        stage.cols[c->ndata].count = m;
        stage.count = m;
        if (!rc) rc = tn_parquet_writer_write(p->pw, &stage);
    }
cleanup:
    tn_free(rows);
    tn_free(done);
    tn_chunk_free(&stage);
    if (rc) tn_error_prefix(rc, "table '%s': change data", c->t->path);
    return rc;
}

int tn_table_cdc_finish(tn_table_cdc *c, tn_arena *arena, tn_delta_action **out, uint32_t *nout) {
    int rc = 0;
    *out = NULL;
    *nout = 0;
    tn_delta_action *acts = tn_arena_calloc(arena, sizeof *acts * (c->nparts + 1));
    tn_buf enc = TN_BUF_INIT;
    if (!acts) return TN_ENOMEM;
    for (uint32_t i = 0; i < c->nparts && !rc; i++) {
        cdc_part *p = &c->parts[i];
        tn_parquet_write_result res;
        memset(&res, 0, sizeof res);
        tn_parquet_writer *pw = p->pw;
        p->pw = NULL;
        rc = tn_parquet_writer_close(pw, &res);
        uint64_t size = res.file_bytes;
        tn_parquet_write_result_free(&res);
        if (rc) break;
        tn_buf_clear(&enc);
        rc = tn_delta_uri_encode(&enc, p->rel_path);
        if (!rc) rc = tn_buf_append_byte(&enc, 0);
        if (rc) break;
        tn_delta_action *a = &acts[i];
        a->kind = TN_DELTA_CDC;
        tn_delta_file *f = &a->u.file;
        f->path = tn_arena_strdup(arena, (const char *)enc.data);
        f->path_decoded = tn_arena_strdup(arena, p->rel_path);
        f->has_partition_values = true;
        f->npartition_values = c->npart;
        f->partition_values = tn_arena_calloc(arena, sizeof(tn_delta_kv) * (c->npart + 1));
        if (!f->path || !f->path_decoded || !f->partition_values) { rc = TN_ENOMEM; break; }
        for (uint32_t k = 0; k < c->npart; k++) {
            f->partition_values[k].key = tn_arena_strdup(arena, p->pvals[k].key);
            f->partition_values[k].value = p->pvals[k].value ? tn_arena_strdup(arena, p->pvals[k].value) : NULL;
        }
        f->has_size = true;
        f->size = (int64_t)size;
        f->data_change = false;
    }
    tn_buf_free(&enc);
    if (rc) return tn_error_prefix(rc, "table '%s': change data", c->t->path);
    *out = acts;
    *nout = c->nparts;
    return 0;
}

void tn_table_cdc_remove_files(tn_table_cdc *c) {
    tn_error_state saved;
    tn_error_save(&saved);
    for (uint32_t i = 0; i < c->nwritten; i++) c->t->fs->unlink(c->t->fs, c->written[i]);
    tn_error_restore(&saved);
}

void tn_table_cdc_abort(tn_table_cdc *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->nparts; i++)
        if (c->parts[i].pw) tn_parquet_writer_abort(c->parts[i].pw);
    tn_table_cdc_remove_files(c);
    tn_table_cdc_free(c);
}

void tn_table_cdc_free(tn_table_cdc *c) {
    if (!c) return;
    for (uint32_t i = 0; i < c->nparts; i++)
        if (c->parts[i].pw) tn_parquet_writer_abort(c->parts[i].pw);
    tn_free(c->parts);
    tn_free(c->written);
    tn_arena_destroy(c->arena);
    tn_free(c);
}
