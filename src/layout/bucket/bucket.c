/*
 * layout/bucket/bucket.c: the bucket layout of primary-key tables (Paimon's fixed-bucket mode).
 * Rows are hashed by their bucket key (hash.c) into the partition's buckets; a write upserts:
 * for every bucket it touches, the bucket's live files are read, merged by key with the new rows
 * (merge.c: one row per key, by the merge engine) and replaced by one rewritten file, in one
 * transaction whose read set is exactly those (partition, bucket) pairs. Copy-on-write per bucket
 * keeps every Delta reader (DuckDB over the logged files, Spark, delta-rs) at one live row per
 * key without deletion vectors. When the new keys cannot be in any of the bucket's files (their
 * key ranges against each file's add.stats), nothing needs merging: the rows go to a new file
 * of the bucket, and only the files Paimon's universal compaction would pick are merged into it
 * (pick_files: at most TN_BUCKET_RUN_TRIGGER files per bucket), so that appending new keys (a
 * stream of new orders) costs the new rows, not a rewrite of the bucket.
 *
 * Deletion-vector upserts (merge-on-write; tables with delta.enableDeletionVectors = true): the
 * files that may hold a new key are kept; only their rows whose key is new are read (mow.c),
 * those rows are marked in one DV file for the commit (the kept files re-added with their DV,
 * Delta's protocol) and the merged rows go to a new file of the bucket, so a batch costs the keys
 * it touches and a scan of the bucket's key columns, not a rewrite. The same universal pick
 * bounds the files per bucket, and a touched file with half its rows deleted is rewritten.
 *
 * Rescale: 'bucket' changes are metadata only; a partition keeps the count its files were written
 * with (AddFile tag bucketCount) until INSERT OVERWRITE rewrites it; INSERT INTO such a partition
 * fails with Paimon's message. Scans prune to one bucket per partition on equality of the whole
 * bucket key, with each file's own count. Conflicts with a concurrent writer of the same bucket
 * are retried on the new snapshot (the new rows are kept in memory, hashes too).
 *
 * Threads: rows arrive on one thread (in the query's order: the later row of a key wins); at
 * commit every (partition, bucket) written is one task on the write's pool (read its files,
 * merge, encode and write its file), all in the one transaction.
 */
#include "layout/bucket/bucketInt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bpart {
    tn_bucket_rows rows;               /* new rows (bucket[] holds the hash) */
    bool used;
} bpart;

typedef struct bucket_writer {
    tn_layout_writer base;
    tn_table *t;
    tn_layout_write_options opts;
    tn_arena *arena;
    tn_bucket_spec spec;
    tn_layout_router *router;
    tn_layout_slots parts;             /* bpart by partition id */
    int sticky;
    uint64_t target;
    int codec;
    uint64_t rows_in;
    uint64_t files_written;
    int32_t pinned;                    /* write option 'bucket' (0: the table's count) */
} bucket_writer;

static const char *const bucket_write_options[] = {"target_file_size", "compression"};
/* writes also take 'bucket': the count to write with instead of the table's (a continuous job
 * keeps the count it started with, as Flink's running writers do; Paimon's check still applies) */
static const char *const bucket_insert_options[] = {"target_file_size", "compression", "bucket"};

bool tn_bucket_file_tags(const tn_delta_file *f, int32_t *bucket, int32_t *count) {
    bool fb = false, fc = false;
    const char *b = tn_delta_kv_get(f->tags, f->ntags, TN_BUCKET_TAG, &fb);
    const char *c = tn_delta_kv_get(f->tags, f->ntags, TN_BUCKET_COUNT_TAG, &fc);
    if (!fb || !fc || !b || !c) return false;
    char *e1 = NULL, *e2 = NULL;
    long vb = strtol(b, &e1, 10), vc = strtol(c, &e2, 10);
    /* bucketCount -1: a dynamic-bucket file (any bucket id) */
    if (!*b || *e1 || !*c || *e2 || vb < 0 || vb > 65535 || (vc != -1 && (vc <= 0 || vb >= vc))) return false;
    *bucket = (int32_t)vb;
    *count = (int32_t)vc;
    return true;
}

bool tn_layout_file_bucket(const tn_delta_file *f, int32_t *bucket, int32_t *count) {
    return tn_bucket_file_tags(f, bucket, count);
}

static void writer_free(bucket_writer *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->parts.cap; i++) tn_bucket_rows_free(&((bpart *)tn_layout_slots_at(&w->parts, i))->rows);
    tn_layout_slots_free(&w->parts);
    tn_layout_router_close(w->router);
    tn_arena_destroy(w->arena);
    tn_free(w);
}

static int bucket_open(tn_layout_writer **out, tn_table *t, const tn_layout_write_options *opts) {
    *out = NULL;
    int rc = tn_layout_check_columns(t);
    if (rc) return rc;
    rc = tn_layout_options_check(t, "bucket", opts->options, opts->noptions, bucket_insert_options,
                                 sizeof bucket_insert_options / sizeof bucket_insert_options[0]);
    if (rc) return rc;
    int32_t pinned = 0;
    const char *bo = tn_layout_option(opts->options, opts->noptions, "bucket");
    if (bo) {
        char *end = NULL;
        long v = strtol(bo, &end, 10);
        const char *tb = tn_table_property(t, "bucket");
        bool dynamic = tb && strcmp(tb, "-1") == 0;
        if (dynamic ? strcmp(bo, "-1") != 0 : (!*bo || *end || v <= 0 || v > 65536))
            return tn_error_set(TN_EINVAL, "table '%s': write option 'bucket' = '%s' is not a bucket count (%s)",
                                tn_table_path(t), bo, dynamic ? "-1: the table has dynamic buckets" : "1 to 65536");
        pinned = dynamic ? 0 : (int32_t)v;
    }
    const char *append_only = tn_table_property(t, "delta.appendOnly");
    if (append_only && tn_str_iequal(append_only, "true"))
        return tn_error_set(TN_EUNSUPPORTED, "table '%s' is append-only (delta.appendOnly = true): primary-key upserts "
                            "rewrite files, refused", tn_table_path(t));
    bucket_writer *w = tn_calloc(1, sizeof *w);
    if (!w) return TN_ENOMEM;
    w->t = t;
    w->opts = *opts;
    w->pinned = pinned;
    tn_layout_slots_init(&w->parts, sizeof(bpart));
    w->arena = tn_arena_create(0);
    if (!w->arena) { rc = TN_ENOMEM; goto cleanup; }
    rc = tn_bucket_spec_of_table(&w->spec, t, w->arena);
    if (rc) goto cleanup;
    rc = tn_layout_router_open(&w->router, t, opts->partition_spec, opts->npartition_spec);
    if (rc) goto cleanup;
    rc = tn_layout_file_settings(t, opts, &w->target, &w->codec);
    if (rc) goto cleanup;
    *out = &w->base;
    w = NULL;
cleanup:
    writer_free(w);
    return rc;
}

/* The new rows of partition id. */
static int part_rows(bucket_writer *w, uint32_t id, bpart **out) {
    bpart *p = tn_layout_slots_get(&w->parts, id);
    if (!p) return TN_ENOMEM;
    if (!p->used) {
        int rc = tn_bucket_rows_init(&p->rows, w->t);
        if (rc) return rc;
        p->used = true;
    }
    *out = p;
    return 0;
}

/* Each row's kind from the 'rowkind.field' column (Paimon's RowKind short strings), into out. */
static int rowkind_of_column(const bucket_writer *w, const tn_vector *v, uint32_t n, uint8_t *out) {
    for (uint32_t r = 0; r < n; r++) {
        if (!tn_vector_is_valid(v, r))
            return tn_error_set(TN_ECONSTRAINT, "table '%s': column '%s' ('rowkind.field'): Row kind cannot be null.",
                                tn_table_path(w->t), tn_table_column(w->t, (uint32_t)w->spec.rowkind_col)->name);
        tn_value x;
        tn_vector_get_value(v, r, &x);
        const char *p = x.u.s.ptr;
        uint32_t len = x.u.s.len;
        if (len == 2 && p[0] == '+' && (p[1] == 'I' || p[1] == 'U')) out[r] = TN_BUCKET_ADD;
        else if (len == 2 && p[0] == '-' && p[1] == 'U') out[r] = TN_BUCKET_UPDATE_BEFORE;
        else if (len == 2 && p[0] == '-' && p[1] == 'D') out[r] = TN_BUCKET_DELETE;
        else
            return tn_error_set(TN_EINVAL, "table '%s': column '%s' ('rowkind.field'), row %u: Unsupported short "
                                "string '%.*s' for row kind.", tn_table_path(w->t),
                                tn_table_column(w->t, (uint32_t)w->spec.rowkind_col)->name, r + 1,
                                (int)(len > 64 ? 64 : len), p);
    }
    return 0;
}

/* Rows of a chunk, each an add or (kinds[r], or the rowkind.field column) a retraction; with
 * 'ignore-delete' retractions are dropped here. */
static int bucket_write_kinds(tn_layout_writer *base, const tn_chunk *chunk, const uint8_t *kinds) {
    bucket_writer *w = (bucket_writer *)base;
    int rc = 0;
    uint8_t *own = NULL;
    uint32_t *keep = NULL;
    if (w->sticky) return tn_error_set(w->sticky, "table '%s': the writer failed earlier", tn_table_path(w->t));
    if (chunk->count == 0) return 0;
    rc = tn_interrupt_check(w->opts.interrupt);
    if (!rc) rc = tn_layout_check_chunk(w->t, chunk);
    if (rc) goto cleanup;
    /* keys: never NULL; hashes of the bucket keys */
    for (uint32_t k = 0; k < w->spec.nkey; k++) {
        const tn_vector *v = &chunk->cols[w->spec.key[k]];
        if (v->validity && tn_vector_null_count(v) > 0) {
            rc = tn_error_set(TN_ECONSTRAINT, "table '%s': NULL in primary key column '%s'", tn_table_path(w->t),
                              tn_table_column(w->t, w->spec.key[k])->name);
            goto cleanup;
        }
    }
    if (!kinds && w->spec.rowkind_col >= 0) {
        own = tn_malloc(chunk->count);
        if (!own) { rc = TN_ENOMEM; goto cleanup; }
        rc = rowkind_of_column(w, &chunk->cols[w->spec.rowkind_col], chunk->count, own);
        if (rc) goto cleanup;
        kinds = own;
    }
    bool retract = false;
    for (uint32_t r = 0; kinds && r < chunk->count && !retract; r++) retract = kinds[r] != TN_BUCKET_ADD;
    if (!retract) kinds = NULL;
    bool drop = retract && w->spec.ignore_delete;
    if (drop && !(keep = tn_malloc(sizeof *keep * chunk->count))) { rc = TN_ENOMEM; goto cleanup; }
    tn_layout_route route;
    rc = tn_layout_router_route(w->router, chunk, &route);
    for (uint32_t g = 0; g < route.ngroups && !rc; g++) {
        bpart *p = NULL;
        uint32_t first = route.start[g], n = route.start[g + 1] - first;
        const uint32_t *sel = route.sel + first;
        if (drop) {
            uint32_t m = 0;
            for (uint32_t k = 0; k < n; k++)
                if (kinds[sel[k]] == TN_BUCKET_ADD) keep[m++] = sel[k];
            sel = keep;
            n = m;
            if (n == 0) continue;
        }
        rc = part_rows(w, route.part[g], &p);
        if (!rc) rc = tn_bucket_rows_append(&p->rows, chunk, sel, n, NULL);
        if (!rc && kinds && !drop) rc = tn_bucket_rows_set_kinds(&p->rows, kinds, sel, n);
    }
    if (!rc) w->rows_in += chunk->count;
cleanup:
    tn_free(own);
    tn_free(keep);
    if (rc) w->sticky = rc;
    return rc;
}

static int bucket_write(tn_layout_writer *base, const tn_chunk *chunk) { return bucket_write_kinds(base, chunk, NULL); }

/* ---------------------------------------------------------------------------------------------
 * Commit.
 */
typedef struct touched {
    const char *key;                   /* canonical partition key */
    uint8_t *buckets;                  /* per bucket of the current count: read */
    int32_t nbuckets;
} touched;

typedef struct read_scope {
    const tn_table *t;
    touched *parts;
    uint32_t nparts;
    tn_buf key;
} read_scope;

/* A winner's file conflicts when it lies in a bucket we rewrote, or in a partition we wrote with
 * another layout (no bucket tags, another count). */
static bool in_scope(void *ctx, const tn_delta_file *f) {
    read_scope *s = ctx;
    if (tn_layout_file_partition_key(s->t, f, &s->key)) return true;
    for (uint32_t i = 0; i < s->nparts; i++) {
        if (strcmp(s->parts[i].key, (const char *)s->key.data) != 0) continue;
        int32_t b, n;
        if (!tn_bucket_file_tags(f, &b, &n) || n != s->parts[i].nbuckets) return true;
        /* dynamic buckets: the key index is the whole partition */
        return n == -1 || s->parts[i].buckets[b] != 0;
    }
    return false;
}

typedef struct emit_ctx {
    tn_table_file_writer *fw;
} emit_ctx;

static int emit_rows(void *ctx, const tn_chunk *chunk) {
    emit_ctx *e = ctx;
    return tn_table_file_writer_write(e->fw, chunk, NULL, chunk->count);
}

static int collect_rows(void *ctx, const tn_chunk *chunk, uint32_t file, int64_t first_row) {
    (void)file;
    (void)first_row;
    return tn_bucket_rows_append(ctx, chunk, NULL, chunk->count, NULL);
}

static void partition_text(char *buf, size_t cap, const tn_table *t, const tn_layout_partition *lp) {
    size_t off = (size_t)snprintf(buf, cap, "{");
    for (uint32_t i = 0; i < lp->nvalues && off < cap; i++) {
        const char *name = lp->values[i].key;
        for (uint32_t c = 0; c < tn_table_num_columns(t); c++)
            if (strcmp(tn_table_column(t, c)->physical_name, name) == 0) name = tn_table_column(t, c)->name;
        off += (size_t)snprintf(buf + off, cap - off, "%s%s=%s", i ? ", " : "", name,
                                lp->values[i].value ? lp->values[i].value : "__DEFAULT_PARTITION__");
    }
    if (off < cap) snprintf(buf + off, cap - off, "}");
}

/* Paimon's num-sorted-run.compaction-trigger (default 5) and compaction.size-ratio (1%). */
#define TN_BUCKET_RUN_TRIGGER 5
#define TN_BUCKET_SIZE_RATIO 1

typedef struct run_size {
    uint32_t file;
    int64_t rows;
} run_size;

static int run_cmp(const void *a, const void *b) {
    const run_size *x = a, *y = b;
    if (x->rows != y->rows) return x->rows < y->rows ? -1 : 1;
    return (x->file > y->file) - (x->file < y->file);
}

/* The bounding box of the new keys sel[0..n) as filters on the key columns (partition ones are
 * the files' own) into filters (room for 2 * TN_BUCKET_MAX_KEYS); false when there is none that
 * is safe (float keys: NaN and -0.0 have no safe range). */
static bool key_box(const tn_table *t, const tn_bucket_spec *spec, const tn_bucket_rows *rows, const uint32_t *sel,
                    uint32_t n, tn_table_filter *filters, uint32_t *nfilters) {
    *nfilters = 0;
    if (n == 0) return false;
    for (uint32_t k = 0; k < spec->nkey; k++) {
        uint32_t c = spec->key[k];
        if (rows->skip[c]) continue;
        tn_type_id ty = tn_table_column(t, c)->type.id;
        if (ty == TN_TYPE_FLOAT || ty == TN_TYPE_DOUBLE) {
            *nfilters = 0;
            return false;
        }
        tn_value mn, mx, v;
        tn_vector_get_value(&rows->cols[c], sel[0], &mn);
        mx = mn;
        for (uint32_t i = 1; i < n; i++) {
            tn_vector_get_value(&rows->cols[c], sel[i], &v);
            if (tn_value_compare(&v, &mn) < 0) mn = v;
            if (tn_value_compare(&v, &mx) > 0) mx = v;
        }
        filters[(*nfilters)++] = (tn_table_filter){c, TN_PQ_GE, mn};
        filters[(*nfilters)++] = (tn_table_filter){c, TN_PQ_LE, mx};
    }
    return true;
}

/* Live rows of a snapshot file (numRecords less its deletion vector; unknown: large). */
static int64_t live_rows(const tn_delta_file *f) {
    int64_t r = tn_delta_file_num_records(f);
    if (r < 0) return INT64_MAX / 256;
    return f->has_dv && f->dv.cardinality > 0 ? r - f->dv.cardinality : r;
}

/* Which of a bucket's nf live files (snapshot indexes fsel) a write of the new rows sel[0..n)
 * reads (reordered: the *nmerge files it rewrites first, then the ones it keeps with a deletion
 * vector, *nread in all). A file "may hold a new key" by the bounding box of the new keys
 * against its add.stats and partition values (float keys and files without usable stats: may).
 * Copy-on-write (dv false): every file when a new key may be in one of them; else the files
 * Paimon's universal compaction picks, the new file counted as one more sorted run: none below
 * TN_BUCKET_RUN_TRIGGER runs; else the smallest first while each is at most
 * TN_BUCKET_SIZE_RATIO % larger than the rows picked so far, and at least as many as bring the
 * bucket back under the trigger. Deletion vectors (dv true): the same compaction pick is
 * rewritten, plus every file that may hold a new key and has lost half its rows; the other
 * files that may hold a new key are kept (their replaced rows marked deleted). So a bucket holds
 * at most TN_BUCKET_RUN_TRIGGER files, none with a majority of deleted rows. */
static int pick_files(const tn_table *t, const tn_bucket_spec *spec, const tn_bucket_rows *rows, const uint32_t *sel,
                      uint32_t n, uint32_t *fsel, uint32_t nf, bool dv, uint32_t *nmerge, uint32_t *nread) {
    *nread = *nmerge = nf;
    if (nf == 0 || n == 0) return 0;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    tn_table_filter filters[2 * TN_BUCKET_MAX_KEYS];
    uint32_t nfl = 0;
    bool box = key_box(t, spec, rows, sel, n, filters, &nfl);
    uint8_t *cls = tn_calloc(nf, 1);             /* 1 may hold a new key, 2 rewritten */
    run_size *runs = tn_malloc(sizeof *runs * nf);
    uint32_t *tmp = tn_malloc(sizeof *tmp * nf);
    int rc = 0;
    if (!cls || !runs || !tmp) { rc = TN_ENOMEM; goto cleanup; }
    bool any = false;
    for (uint32_t i = 0; i < nf; i++) {
        cls[i] = !box || tn_table_file_may_match(t, &snap->files[fsel[i]], filters, nfl);
        any |= cls[i];
    }
    if (any && !dv) goto cleanup;                /* copy-on-write of the whole bucket */
    if (nf + 1 >= TN_BUCKET_RUN_TRIGGER) {
        for (uint32_t i = 0; i < nf; i++) runs[i] = (run_size){i, live_rows(&snap->files[fsel[i]])};
        qsort(runs, nf, sizeof *runs, run_cmp);
        uint32_t force = nf + 1 - TN_BUCKET_RUN_TRIGGER + 1;   /* runs to merge, the new one included */
        int64_t acc = n;
        uint32_t picked = 0;
        while (picked < nf && (picked + 1 < force || runs[picked].rows * 100 <= acc * (100 + TN_BUCKET_SIZE_RATIO)))
            acc += runs[picked++].rows;
        for (uint32_t i = 0; i < picked; i++) cls[runs[i].file] = 2;
    }
    for (uint32_t i = 0; i < nf; i++) {
        const tn_delta_file *f = &snap->files[fsel[i]];
        int64_t rec = tn_delta_file_num_records(f);
        if (cls[i] == 1 && f->has_dv && rec > 0 && f->dv.cardinality * 2 >= rec) cls[i] = 2;
    }
    uint32_t m = 0;
    for (uint8_t want = 3; want-- > 0;)
        for (uint32_t i = 0; i < nf; i++)
            if (cls[i] == want) tmp[m++] = fsel[i];
    uint32_t n2 = 0, n1 = 0;
    for (uint32_t i = 0; i < nf; i++) {
        n2 += cls[i] == 2;
        n1 += cls[i] == 1;
    }
    memcpy(fsel, tmp, sizeof *fsel * nf);
    *nmerge = n2;
    *nread = n2 + n1;
cleanup:
    tn_free(cls);
    tn_free(runs);
    tn_free(tmp);
    return rc;
}

/* Writes the merged rows of one (partition, bucket) into one file writer. */
static int write_bucket(bucket_writer *w, tn_table *t, tn_table_txn *txn, const tn_bucket_spec *spec,
                        const tn_layout_partition *lp, int32_t b, tn_bucket_rows *stored, tn_bucket_rows *fresh,
                        const uint32_t *rows, uint32_t nrows, tn_bucket_dv *dv, uint64_t *rows_out) {
    uint32_t nref = stored->count + nrows;
    tn_bucket_ref *refs = tn_malloc(sizeof *refs * (nref ? nref : 1));
    if (!refs) return TN_ENOMEM;
    for (uint32_t i = 0; i < stored->count; i++) refs[i] = (tn_bucket_ref){0, i};
    for (uint32_t i = 0; i < nrows; i++) refs[stored->count + i] = (tn_bucket_ref){1, rows[i]};
    char bs[16], ns[16], infix[32];
    snprintf(bs, sizeof bs, "%d", b);
    snprintf(ns, sizeof ns, "%d", spec->nbuckets);
    snprintf(infix, sizeof infix, "bucket-%d", b);
    tn_delta_kv tags[] = {{TN_BUCKET_TAG, bs}, {TN_BUCKET_COUNT_TAG, ns}};
    tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
    fo.partition_values = lp->values;
    fo.npartition_values = lp->nvalues;
    fo.tags = tags;
    fo.ntags = 2;
    fo.name_infix = infix;
    fo.target_file_bytes = w->target;
    fo.codec = w->codec;
    fo.row_group_rows = w->opts.row_group_rows;
    emit_ctx e = {NULL};
    int rc = tn_table_file_writer_open(&e.fw, txn, &fo);
    tn_bucket_rows *sets[2] = {stored, fresh};
    if (!rc) rc = tn_bucket_merge(spec, t, sets, refs, nref, dv, emit_rows, &e, rows_out);
    tn_free(refs);
    if (e.fw) {
        if (rc) tn_table_file_writer_abort(e.fw);
        else rc = tn_table_file_writer_close(e.fw);
    }
    return rc;
}

/* One (partition, bucket) of a write: its new rows (order[0..nrows) of rows), and the snapshot
 * files it reads: fsel[0..nmerge) it rewrites (already removed in the transaction), then, with
 * deletion vectors, fsel[nmerge..nf) it keeps, marking its replaced rows in del_file/del_pos.
 * Tasks of one commit run on the write's pool, each into its own file writer of the one
 * transaction. */
typedef struct bucket_task {
    const tn_layout_partition *lp;
    int32_t b;
    tn_bucket_rows *rows;
    const uint32_t *order;
    uint32_t nrows;
    uint32_t *fsel;                    /* owned */
    uint32_t nf, nmerge;
    uint64_t rows_out;
    uint32_t *del_file;                /* owned: replaced rows of kept files */
    uint64_t *del_pos;
    uint32_t ndel;
} bucket_task;

typedef struct task_job {
    bucket_writer *w;
    tn_table *t;
    tn_table_txn *txn;
    const tn_bucket_spec *spec;
    bucket_task *tasks;
} task_job;

static int run_bucket_task(void *ctx, uint32_t i, uint32_t worker) {
    (void)worker;
    task_job *j = ctx;
    bucket_task *k = &j->tasks[i];
    tn_bucket_rows stored;
    tn_bucket_keyset ks;
    tn_bucket_kept kp;
    tn_bucket_dv dv = {NULL, NULL, 0};
    memset(&ks, 0, sizeof ks);
    memset(&kp, 0, sizeof kp);
    int rc = tn_interrupt_check(j->w->opts.interrupt);
    if (rc) return rc;
    rc = tn_bucket_rows_init(&stored, j->t);
    if (!rc && k->nmerge) {
        tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
        so.all_columns = true;
        tn_table_scan *scan = NULL;
        rc = tn_table_scan_open_files(&scan, j->t, &so, k->fsel, k->nmerge);
        if (!rc) rc = tn_table_scan_run(scan, collect_rows, &stored);
        tn_table_scan_close(scan);
    }
    bool kept = k->nf > k->nmerge;
    if (!rc && kept) {
        tn_table_filter filters[2 * TN_BUCKET_MAX_KEYS];
        uint32_t nfl = 0;
        key_box(j->t, j->spec, k->rows, k->order, k->nrows, filters, &nfl);
        rc = tn_bucket_keyset_build(&ks, j->t, j->spec, k->rows, k->order, k->nrows);
        /* deduplicate without a sequence field: the replaced rows' positions are all it needs */
        bool keys_only = j->spec->engine == TN_BUCKET_DEDUPLICATE &&
                         (j->spec->seq_col < 0 || stored.skip[j->spec->seq_col]) && !ks.collision;
        if (!rc && keys_only) {
            uint32_t nk = 0;
            rc = tn_bucket_read_kept_keys(j->t, k->fsel + k->nmerge, k->nf - k->nmerge, filters, nfl, &ks, &kp, &nk);
            dv.deleted = tn_malloc(sizeof *dv.deleted * (nk + 1));
            if (!rc && !dv.deleted) rc = TN_ENOMEM;
            for (uint32_t d = 0; d < nk && !rc; d++) dv.deleted[d] = d;
            dv.ndeleted = rc ? 0 : nk;
            kept = false;          /* the merge sees no kept rows */
        } else {
            /* deduplicate with a sequence field, first-row: a kept row is never emitted (it stays,
             * or is marked deleted), so its key and sequence columns are all the merge needs;
             * partial-update and aggregation fold the stored values: every column */
            int seq = -2;
            if (j->spec->engine == TN_BUCKET_DEDUPLICATE || j->spec->engine == TN_BUCKET_FIRST_ROW)
                seq = j->spec->seq_col >= 0 && !stored.skip[j->spec->seq_col] ? j->spec->seq_col : -1;
            if (!rc) rc = tn_bucket_kept_reserve(&kp, stored.count + 1);
            if (!rc)
                rc = tn_bucket_read_kept(j->t, k->fsel + k->nmerge, k->nf - k->nmerge, filters, nfl, &ks, seq, &stored,
                                         &kp);
            if (!rc) rc = tn_bucket_kept_reserve(&kp, stored.count + 1);
            dv.kept = kp.kept;
            dv.deleted = tn_malloc(sizeof *dv.deleted * (stored.count + 1));
            if (!rc && !dv.deleted) rc = TN_ENOMEM;
        }
    }
    if (!rc)
        rc = write_bucket(j->w, j->t, j->txn, j->spec, k->lp, k->b, &stored, k->rows, k->order, k->nrows,
                          kept ? &dv : NULL, &k->rows_out);
    if (!rc && dv.ndeleted) {
        k->del_file = tn_malloc(sizeof *k->del_file * dv.ndeleted);
        k->del_pos = tn_malloc(sizeof *k->del_pos * dv.ndeleted);
        if (!k->del_file || !k->del_pos) rc = TN_ENOMEM;
        for (uint32_t d = 0; d < dv.ndeleted && !rc; d++) {
            k->del_file[d] = kp.file[dv.deleted[d]];
            k->del_pos[d] = kp.pos[dv.deleted[d]];
        }
        k->ndel = rc ? 0 : dv.ndeleted;
    }
    tn_free(dv.deleted);
    tn_bucket_kept_free(&kp);
    tn_bucket_keyset_free(&ks);
    tn_bucket_rows_free(&stored);
    return rc;
}

/* Deletion-vector upserts: the rows the tasks replaced in kept files, marked in one DV file; the
 * files re-added with their new DV (a file whose every row went is removed). */
static int commit_dvs(tn_table *t, tn_table_txn *txn, tn_arena *arena, const bucket_task *tasks, uint32_t ntasks,
                      uint64_t *rows, uint64_t *files) {
    tn_table_dv_batch *b = NULL;
    uint64_t *pos = NULL;
    uint32_t cap = 0;
    int rc = 0;
    bool any = false;
    for (uint32_t i = 0; i < ntasks; i++) any |= tasks[i].ndel > 0;
    if (!any) return 0;
    rc = tn_table_dv_batch_open(&b, t);
    for (uint32_t i = 0; i < ntasks && !rc; i++) {
        const bucket_task *k = &tasks[i];
        if (k->ndel > cap) {
            tn_free(pos);
            cap = k->ndel;
            if (!(pos = tn_malloc(sizeof *pos * cap))) { rc = TN_ENOMEM; break; }
        }
        for (uint32_t f = k->nmerge; f < k->nf && !rc; f++) {     /* per kept file */
            uint32_t n = 0;
            for (uint32_t d = 0; d < k->ndel; d++)
                if (k->del_file[d] == k->fsel[f]) pos[n++] = k->del_pos[d];
            if (n) rc = tn_table_dv_batch_mark(b, k->fsel[f], pos, n);
        }
    }
    tn_table_dv_result r;
    memset(&r, 0, sizeof r);
    if (!rc) rc = tn_table_dv_batch_finish(b, arena, &r);
    if (!rc && r.dv_path) rc = tn_table_txn_track_file(txn, r.dv_path);
    for (uint32_t i = 0; i < r.nremoves && !rc; i++) rc = tn_table_txn_remove(txn, r.removes[i], true);
    for (uint32_t i = 0; i < r.nadds && !rc; i++) rc = tn_table_txn_add(txn, &r.adds[i].u.file);
    *rows = r.rows_deleted;
    *files = r.nadds;
    tn_free(pos);
    tn_table_dv_batch_free(b);
    return rc;
}

/* One attempt on table t (the writer's, or a newer snapshot after a conflict). */
static int commit_on(bucket_writer *w, tn_table *t, tn_table_commit_result *res) {
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const tn_layout_write_options *o = &w->opts;
    tn_arena *arena = tn_arena_create(0);
    tn_table_txn *txn = NULL;
    tn_buf key = TN_BUF_INIT;
    char *pby = NULL;
    int64_t *file_part = NULL;
    read_scope scope;
    memset(&scope, 0, sizeof scope);
    scope.t = t;
    uint32_t *sel = NULL;
    bucket_task *tasks = NULL;
    uint32_t ntasks = 0, cap_tasks = 0;
    int rc = 0;
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    rc = tn_bucket_spec_of_table(&spec, t, arena);
    if (rc) goto cleanup;
    if (w->pinned) spec.nbuckets = w->pinned;
    if (spec.ncols != w->spec.ncols) {
        rc = tn_error_set(TN_ECONFLICT, "conflict: the schema of table '%s' changed during the write", tn_table_path(t));
        goto cleanup;
    }
    rc = tn_table_txn_open(&txn, t, o->max_attempts);
    if (rc) goto cleanup;
    tn_table_txn_set_interrupt(txn, o->interrupt);
    tn_table_txn_set_rows_checked(txn, o->constraints_checked, false);
    tn_table_txn_set_deferred_sync(txn, true);   /* one file per bucket: fsynced together */
    if (o->app_id) {
        bool applied = false;
        rc = tn_table_txn_set_app(txn, o->app_id, o->app_version, &applied);
        if (rc) goto cleanup;
        if (applied) {
            tn_table_txn *x = txn;
            txn = NULL;
            rc = tn_table_txn_commit(x, res);
            goto cleanup;
        }
    }
    /* snapshot files by routed partition */
    file_part = tn_malloc(sizeof *file_part * (snap->nfiles + 1));
    if (!file_part) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) {
        rc = tn_layout_file_partition_key(t, &snap->files[fi], &key);
        if (!rc) file_part[fi] = tn_layout_router_find_key(w->router, (const char *)key.data);
    }
    if (rc) goto cleanup;
    uint32_t np = tn_layout_router_num_partitions(w->router);
    scope.parts = tn_arena_calloc(arena, sizeof *scope.parts * (np + 1));
    sel = tn_malloc(sizeof *sel * (snap->nfiles + 1));
    if (!scope.parts || !sel) { rc = TN_ENOMEM; goto cleanup; }
    bool overwrite = o->mode != TN_LAYOUT_APPEND;
    bool dv = !overwrite && tn_table_dv_enabled(t);   /* upserts mark replaced rows in deletion vectors */
    uint64_t dv_rows = 0, dv_files = 0;
    /* overwrites: remove what they replace, read what they replace */
    if (overwrite) {
        if (o->npartition_spec) {
            uint32_t nspec;
            const tn_delta_kv *sp = tn_layout_router_spec(w->router, &nspec);
            rc = tn_table_txn_read_partition(txn, sp, nspec);
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
                if (tn_layout_router_spec_matches(w->router, &snap->files[fi]))
                    rc = tn_table_txn_remove(txn, &snap->files[fi], true);
        } else if (o->mode == TN_LAYOUT_OVERWRITE_DYNAMIC && snap->metadata.npartition_columns > 0) {
            for (uint32_t id = 0; id < np && !rc; id++) {
                const tn_layout_partition *lp = tn_layout_router_partition(w->router, id);
                rc = tn_table_txn_read_partition(txn, lp->values, lp->nvalues);
            }
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++)
                if (file_part[fi] >= 0) rc = tn_table_txn_remove(txn, &snap->files[fi], true);
        } else {
            rc = tn_table_txn_read_table(txn);
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) rc = tn_table_txn_remove(txn, &snap->files[fi], true);
        }
        if (rc) goto cleanup;
    }
    uint64_t rows_out = 0;
    for (uint32_t id = 0; id < np && !rc; id++) {
        bpart *p = tn_layout_slots_at(&w->parts, id);
        if (!p || !p->used) continue;
        const tn_layout_partition *lp = tn_layout_router_partition(w->router, id);
        int32_t nb = spec.nbuckets;
        /* INSERT INTO a partition laid out with another count: Paimon's refusal */
        uint32_t nsel = 0;
        if (!overwrite) {
            for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) {
                if (file_part[fi] != (int64_t)id) continue;
                int32_t fb, fc;
                if (!tn_bucket_file_tags(&snap->files[fi], &fb, &fc)) {
                    rc = tn_error_set(TN_ECORRUPT, "table '%s': file '%s' has no bucket tags (bucket, bucketCount): "
                                      "INSERT OVERWRITE the partition to lay it out in buckets", tn_table_path(t),
                                      snap->files[fi].path);
                    break;
                }
                if (fc != nb) {
                    char pt[600];
                    partition_text(pt, sizeof pt, t, lp);
                    if (snap->metadata.npartition_columns)
                        rc = tn_error_set(TN_EINVAL, "Try to write partition %s with a new bucket num %d, but the "
                                          "previous bucket num is %d. Please switch to batch mode, and perform INSERT "
                                          "OVERWRITE to rescale current data layout first.", pt, nb, fc);
                    else
                        rc = tn_error_set(TN_EINVAL, "Try to write table with a new bucket num %d, but the previous "
                                          "bucket num is %d. Please switch to batch mode, and perform INSERT OVERWRITE "
                                          "to rescale current data layout first.", nb, fc);
                    break;
                }
                sel[nsel++] = fi;
            }
            if (rc) break;
        }
        touched *tp = &scope.parts[scope.nparts++];
        tn_buf kb = TN_BUF_INIT;
        rc = tn_buf_printf(&kb, "%s", lp->key);
        tp->key = kb.data ? tn_arena_strdup(arena, (const char *)kb.data) : NULL;
        tn_buf_free(&kb);
        tp->nbuckets = nb;
        if (rc || !tp->key) { rc = rc ? rc : TN_ENOMEM; break; }
        /* each row's bucket: its hash modulo the count, or (dynamic) the partition's key index */
        uint32_t n = p->rows.count;
        int32_t *dest = NULL;          /* dynamic: assigned buckets; fixed: from the hash (no array) */
        if (spec.dynamic) {
            tn_bucket_dyn_index ix;
            dest = tn_arena_alloc(arena, sizeof *dest * (n ? n : 1));
            if (!dest) { rc = TN_ENOMEM; break; }
            rc = tn_bucket_dyn_build(&ix, t, &spec, sel, nsel);       /* overwrite: nsel 0, a fresh index */
            if (!rc) rc = tn_bucket_dyn_assign(&ix, &spec, p->rows.bucket, n, dest);
            nb = ix.nb > 0 ? ix.nb : 1;
            tn_bucket_dyn_free(&ix);
            if (rc) break;
        }
#define ROW_BUCKET(r) (dest ? dest[r] : tn_bucket_of_hash(p->rows.bucket[r], nb))
        tp->buckets = tn_arena_calloc(arena, (size_t)nb);
        /* rows by bucket (counting sort keeps arrival order) */
        uint32_t *start = tn_arena_calloc(arena, ((size_t)nb + 1) * sizeof *start);
        uint32_t *pos = tn_arena_alloc(arena, ((size_t)nb + 1) * sizeof *pos);
        uint32_t *order = tn_arena_alloc(arena, sizeof *order * (n ? n : 1));
        if (!tp->buckets || !start || !pos || !order) { rc = TN_ENOMEM; break; }
        for (uint32_t r = 0; r < n; r++) start[ROW_BUCKET(r) + 1]++;
        for (int32_t b = 0; b < nb; b++) start[b + 1] += start[b];
        memcpy(pos, start, sizeof *pos * ((size_t)nb + 1));
        for (uint32_t r = 0; r < n; r++) order[pos[ROW_BUCKET(r)]++] = r;
#undef ROW_BUCKET
        for (int32_t b = 0; b < nb && !rc; b++) {
            uint32_t cnt = start[b + 1] - start[b];
            if (cnt == 0) continue;
            tp->buckets[b] = 1;
            if (ntasks == cap_tasks) {
                uint32_t cap = cap_tasks ? cap_tasks * 2 : 64;
                bucket_task *nt = tn_realloc(tasks, sizeof *nt * cap);
                if (!nt) { rc = TN_ENOMEM; break; }
                tasks = nt;
                cap_tasks = cap;
            }
            bucket_task *k = &tasks[ntasks++];
            *k = (bucket_task){lp, b, &p->rows, order + start[b], cnt, NULL, 0, 0, 0, NULL, NULL, 0};
            /* the bucket's live files it reads and replaces (read by the task) */
            if (!overwrite) {
                k->fsel = tn_malloc(sizeof *k->fsel * (nsel + 1));
                if (!k->fsel) { rc = TN_ENOMEM; break; }
                for (uint32_t f = 0; f < nsel; f++) {
                    int32_t fb, fc;
                    tn_bucket_file_tags(&snap->files[sel[f]], &fb, &fc);
                    if (fb == b) k->fsel[k->nf++] = sel[f];
                }
                rc = pick_files(t, &spec, &p->rows, k->order, cnt, k->fsel, k->nf, dv, &k->nmerge, &k->nf);
                for (uint32_t f = 0; f < k->nmerge && !rc; f++) rc = tn_table_txn_remove(txn, &snap->files[k->fsel[f]], true);
            }
        }
    }
    if (!rc && ntasks) {
        task_job job = {w, t, txn, &spec, tasks};
        if (o->pool && ntasks > 1) rc = tn_pool_run(o->pool, ntasks, run_bucket_task, &job);
        else
            for (uint32_t i = 0; i < ntasks && !rc; i++) rc = run_bucket_task(&job, i, 0);
        for (uint32_t i = 0; i < ntasks && !rc; i++) rows_out += tasks[i].rows_out;
        if (!rc) w->files_written += ntasks;
        if (!rc && dv) rc = commit_dvs(t, txn, arena, tasks, ntasks, &dv_rows, &dv_files);
    }
    if (rc) goto cleanup;
    if (!overwrite && scope.nparts) {
        rc = tn_table_txn_read_matching(txn, in_scope, &scope);
        if (rc) goto cleanup;
    }
    tn_delta_kv params[72];
    uint32_t nparams = 0;
    pby = tn_layout_partition_by_json(t);
    if (!pby) { rc = TN_ENOMEM; goto cleanup; }
    params[nparams++] = (tn_delta_kv){"mode", overwrite ? "Overwrite" : "Append"};
    params[nparams++] = (tn_delta_kv){"partitionBy", pby};
    if (o->mode == TN_LAYOUT_OVERWRITE_DYNAMIC) params[nparams++] = (tn_delta_kv){"partitionOverwriteMode", "DYNAMIC"};
    for (uint32_t i = 0; i < o->noperation_parameters && nparams < 72; i++) params[nparams++] = o->operation_parameters[i];
    char in_rows[32], out_rows[32];
    snprintf(in_rows, sizeof in_rows, "%llu", (unsigned long long)w->rows_in);
    snprintf(out_rows, sizeof out_rows, "%llu", (unsigned long long)rows_out);
    char dvr[32], dvf[32];
    snprintf(dvr, sizeof dvr, "%llu", (unsigned long long)dv_rows);
    snprintf(dvf, sizeof dvf, "%llu", (unsigned long long)dv_files);
    tn_delta_kv metrics[] = {{"numSourceRows", in_rows}, {"numOutputRows", out_rows}, {"numDeletedRows", dvr},
                             {"numDeletionVectorsAdded", dvf}};
    rc = tn_table_txn_set_commit_info(txn, o->operation ? o->operation : "WRITE", params, nparams, metrics, dv ? 4 : 2);
    if (rc) goto cleanup;
    tn_table_txn *x = txn;
    txn = NULL;
    rc = tn_table_txn_commit(x, res);
cleanup:
    for (uint32_t i = 0; i < ntasks; i++) {
        tn_free(tasks[i].fsel);
        tn_free(tasks[i].del_file);
        tn_free(tasks[i].del_pos);
    }
    tn_free(tasks);
    tn_free(sel);
    tn_buf_free(&scope.key);
    tn_table_txn_abort(txn);
    tn_free(file_part);
    free(pby);
    tn_buf_free(&key);
    tn_arena_destroy(arena);
    return rc;
}

/* The bucket-key hashes of the new rows (rows.bucket), in tasks of HASH_ROWS rows on the pool. */
#define HASH_ROWS 16384

typedef struct hash_job {
    const bucket_writer *w;
    tn_bucket_rows **parts;            /* per task */
    uint32_t *first;                   /* per task */
} hash_job;

static int hash_task(void *ctx, uint32_t i, uint32_t worker) {
    (void)worker;
    hash_job *j = ctx;
    tn_bucket_rows *rows = j->parts[i];
    const tn_bucket_spec *spec = &j->w->spec;
    uint32_t end = j->first[i] + HASH_ROWS < rows->count ? j->first[i] + HASH_ROWS : rows->count;
    const tn_vector *kc[TN_BUCKET_MAX_KEYS];
    for (uint32_t k = 0; k < spec->nbkey; k++) kc[k] = &rows->cols[spec->bkey[k]];
    return tn_bucket_hash_rows(kc, spec->nbkey, j->first[i], end, rows->bucket);
}

static int hash_rows(bucket_writer *w) {
    uint32_t ntasks = 0;
    for (uint32_t id = 0; id < w->parts.cap; id++) {
        bpart *p = tn_layout_slots_at(&w->parts, id);
        if (p && p->used) ntasks += (p->rows.count + HASH_ROWS - 1) / HASH_ROWS;
    }
    if (ntasks == 0) return 0;
    hash_job j = {w, tn_malloc(sizeof *j.parts * ntasks), tn_malloc(sizeof *j.first * ntasks)};
    int rc = 0;
    if (!j.parts || !j.first) { rc = TN_ENOMEM; goto cleanup; }
    uint32_t n = 0;
    for (uint32_t id = 0; id < w->parts.cap; id++) {
        bpart *p = tn_layout_slots_at(&w->parts, id);
        if (!p || !p->used) continue;
        for (uint32_t r = 0; r < p->rows.count; r += HASH_ROWS) {
            j.parts[n] = &p->rows;
            j.first[n++] = r;
        }
    }
    if (w->opts.pool && ntasks > 1) rc = tn_pool_run(w->opts.pool, ntasks, hash_task, &j);
    else
        for (uint32_t i = 0; i < ntasks && !rc; i++) rc = hash_task(&j, i, 0);
cleanup:
    tn_free(j.parts);
    tn_free(j.first);
    return rc;
}

static int bucket_commit(tn_layout_writer *base, tn_table_commit_result *result) {
    bucket_writer *w = (bucket_writer *)base;
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    int rc = 0;
    if (w->sticky) {
        rc = tn_error_set(w->sticky, "table '%s': the writer failed earlier; nothing committed", tn_table_path(w->t));
        goto cleanup;
    }
    rc = hash_rows(w);
    if (rc) goto cleanup;
    int attempts = w->opts.max_attempts > 0 ? w->opts.max_attempts : 20;
    tn_table *cur = w->t, *fresh = NULL;
    for (int a = 0; a < attempts; a++) {
        memset(&res, 0, sizeof res);
        res.version = -1;
        rc = commit_on(w, cur, &res);
        if (rc != TN_ECONFLICT || a + 1 == attempts || tn_table_version(w->t) < 0) break;
        /* a concurrent writer rewrote one of our buckets: merge again on its snapshot */
        tn_error_state saved;
        tn_error_save(&saved);
        tn_table *next = NULL;
        int orc = tn_table_open(&next, tn_table_fs(w->t), tn_table_path(w->t), NULL);
        if (orc) {
            tn_error_restore(&saved);
            break;
        }
        tn_error_clear();
        tn_table_close(fresh);
        fresh = next;
        cur = fresh;
    }
    if (!rc) res.rows_written = w->rows_in;
    tn_table_close(fresh);
cleanup:
    if (rc) res.version = -1;
    if (result) *result = res;
    writer_free(w);
    return rc;
}

static void bucket_abort(tn_layout_writer *base) { writer_free((bucket_writer *)base); }

static uint64_t bucket_num_files(const tn_layout_writer *base) { return ((const bucket_writer *)base)->files_written; }

/* ---------------------------------------------------------------------------------------------
 * OPTIMIZE: every (partition, bucket) with more than one live file, or a file with a deletion
 * vector, is rewritten into one file (rows merged by key, ordered by key), dataChange = false;
 * one pool task per bucket.
 * OPTIMIZE ... WHERE: only the files opts->file_filter accepts (whole partitions: the SQL layer
 * allows partition predicates only, so a bucket is taken whole or not at all).
 * Files without bucket tags are left alone (INSERT OVERWRITE lays them out).
 */
static int file_cmp_group(const void *a, const void *b, void *ctx) {
    const char *const *keys = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int r = strcmp(keys[x], keys[y]);
    return r ? r : (x > y) - (x < y);
}

/* One (partition, bucket, count) group of files: read, merged by key into one new file. */
typedef struct opt_group {
    const uint32_t *files;             /* snapshot indexes */
    uint32_t nfiles;
    uint32_t added;                    /* 1 when the merge wrote a file */
} opt_group;

typedef struct opt_job {
    bucket_writer *w;
    tn_table *t;
    tn_table_txn *txn;
    opt_group *groups;
} opt_job;

static int optimize_task(void *ctx, uint32_t i, uint32_t worker) {
    (void)worker;
    opt_job *j = ctx;
    opt_group *g = &j->groups[i];
    const tn_delta_snapshot *snap = tn_table_snapshot(j->t);
    const tn_delta_file *f0 = &snap->files[g->files[0]];
    tn_bucket_rows stored;
    int rc = tn_interrupt_check(j->w->opts.interrupt);
    if (rc) return rc;
    rc = tn_bucket_rows_init(&stored, j->t);
    if (!rc) {
        tn_table_scan_options so = TN_TABLE_SCAN_OPTIONS_INIT;
        so.all_columns = true;
        tn_table_scan *scan = NULL;
        rc = tn_table_scan_open_files(&scan, j->t, &so, g->files, g->nfiles);
        if (!rc) rc = tn_table_scan_run(scan, collect_rows, &stored);
        tn_table_scan_close(scan);
    }
    if (!rc && stored.count) {
        int32_t b, c;
        tn_bucket_file_tags(f0, &b, &c);
        tn_bucket_ref *refs = tn_malloc(sizeof *refs * stored.count);
        if (!refs) rc = TN_ENOMEM;
        for (uint32_t r = 0; !rc && r < stored.count; r++) refs[r] = (tn_bucket_ref){0, r};
        char bs[16], ns[16], infix[32];
        snprintf(bs, sizeof bs, "%d", b);
        snprintf(ns, sizeof ns, "%d", c);
        snprintf(infix, sizeof infix, "bucket-%d", b);
        tn_delta_kv tags[] = {{TN_BUCKET_TAG, bs}, {TN_BUCKET_COUNT_TAG, ns}};
        tn_table_file_writer_options fo = TN_TABLE_FILE_WRITER_OPTIONS_INIT;
        fo.partition_values = f0->partition_values;
        fo.npartition_values = f0->npartition_values;
        fo.tags = tags;
        fo.ntags = 2;
        fo.name_infix = infix;
        fo.target_file_bytes = j->w->target;
        fo.codec = j->w->codec;
        fo.data_change = false;
        emit_ctx ec = {NULL};
        if (!rc) rc = tn_table_file_writer_open(&ec.fw, j->txn, &fo);
        tn_bucket_rows *sets[2] = {&stored, &stored};
        uint64_t nout = 0;
        if (!rc) rc = tn_bucket_merge(&j->w->spec, j->t, sets, refs, stored.count, NULL, emit_rows, &ec, &nout);
        if (ec.fw) {
            if (rc) tn_table_file_writer_abort(ec.fw);
            else rc = tn_table_file_writer_close(ec.fw);
        }
        tn_free(refs);
        g->added = 1;
    }
    tn_bucket_rows_free(&stored);
    return rc;
}

static int bucket_optimize(tn_table *t, const tn_layout_write_options *opts, tn_table_commit_result *result) {
    tn_table_commit_result res;
    memset(&res, 0, sizeof res);
    res.version = -1;
    int rc = tn_layout_options_check(t, "bucket", opts->options, opts->noptions, bucket_write_options,
                                     sizeof bucket_write_options / sizeof bucket_write_options[0]);
    if (rc) return rc;
    bucket_writer *w = NULL;
    tn_layout_writer *base = NULL;
    rc = bucket_open(&base, t, opts);
    if (rc) return rc;
    w = (bucket_writer *)base;
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    tn_table_txn *txn = NULL;
    tn_buf key = TN_BUF_INIT;
    char **keys = tn_calloc(snap->nfiles + 1, sizeof *keys);
    uint32_t *order = tn_calloc(snap->nfiles + 1, sizeof *order);
    uint32_t n = 0, removed = 0, added = 0, ngroups = 0;
    opt_group *groups = NULL;
    if (!keys || !order) { rc = TN_ENOMEM; goto cleanup; }
    /* group files by (partition, bucket, count) */
    for (uint32_t fi = 0; fi < snap->nfiles && !rc; fi++) {
        int32_t b, c;
        if (!tn_bucket_file_tags(&snap->files[fi], &b, &c)) continue;
        if (opts->file_filter && !opts->file_filter(opts->file_filter_ctx, &snap->files[fi])) continue;
        rc = tn_layout_file_partition_key(t, &snap->files[fi], &key);
        if (!rc && key.len) key.len--;  /* the key's NUL: "|b|c" goes before it (a bucket per group) */
        if (!rc) rc = tn_buf_printf(&key, "|%d|%d", b, c);
        if (!rc && !(keys[fi] = tn_strdup((const char *)key.data))) rc = TN_ENOMEM;
        order[n++] = fi;
    }
    if (rc) goto cleanup;
    qsort_r(order, n, sizeof *order, file_cmp_group, keys);
    rc = tn_table_txn_open(&txn, t, opts->max_attempts);
    if (rc) goto cleanup;
    tn_table_txn_set_interrupt(txn, opts->interrupt);
    tn_table_txn_set_rows_checked(txn, false, true);
    tn_table_txn_set_deferred_sync(txn, true);
    /* the groups to compact (their files removed here), then one pool task per group */
    groups = tn_malloc(sizeof *groups * (n + 1));
    if (!groups) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t a = 0; a < n && !rc;) {
        uint32_t e = a + 1;
        while (e < n && strcmp(keys[order[a]], keys[order[e]]) == 0) e++;
        bool dv = false;
        for (uint32_t k = a; k < e; k++) dv |= snap->files[order[k]].has_dv;
        if (e - a < 2 && !dv) { a = e; continue; }
        groups[ngroups++] = (opt_group){order + a, e - a, 0};
        for (uint32_t k = a; k < e && !rc; k++) {
            rc = tn_table_txn_remove(txn, &snap->files[order[k]], false);
            removed++;
        }
        a = e;
    }
    if (!rc && ngroups) {
        opt_job job = {w, t, txn, groups};
        if (opts->pool && ngroups > 1) rc = tn_pool_run(opts->pool, ngroups, optimize_task, &job);
        else
            for (uint32_t i = 0; i < ngroups && !rc; i++) rc = optimize_task(&job, i, 0);
        for (uint32_t i = 0; i < ngroups; i++) added += groups[i].added;
    }
    if (rc || removed == 0) goto cleanup;     /* nothing to compact: nothing committed */
    char rs[32], as[32];
    snprintf(rs, sizeof rs, "%u", removed);
    snprintf(as, sizeof as, "%u", added);
    const char *pred = "[]";           /* Delta's OPTIMIZE parameters; the SQL layer gives the WHERE */
    for (uint32_t i = 0; i < opts->noperation_parameters; i++)
        if (strcmp(opts->operation_parameters[i].key, "predicate") == 0) pred = opts->operation_parameters[i].value;
    tn_delta_kv params[] = {{"predicate", pred}, {"zOrderBy", "[]"}};
    tn_delta_kv metrics[] = {{"numRemovedFiles", rs}, {"numAddedFiles", as}};
    rc = tn_table_txn_set_commit_info(txn, "OPTIMIZE", params, 2, metrics, 2);
    if (rc) goto cleanup;
    tn_table_txn *x = txn;
    txn = NULL;
    rc = tn_table_txn_commit(x, &res);
cleanup:
    tn_free(groups);
    tn_table_txn_abort(txn);
    for (uint32_t i = 0; keys && i < snap->nfiles; i++) tn_free(keys[i]);
    tn_free(keys);
    tn_free(order);
    tn_buf_free(&key);
    writer_free(w);
    if (rc) res.version = -1;
    if (result) *result = res;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Scans: equality on every bucket-key column prunes each partition to the files of one bucket
 * (computed with each file's own bucketCount).
 */
typedef struct prune_ctx {
    int32_t hash;
    bool (*inner)(void *ctx, const tn_delta_file *file);
    void *inner_ctx;
} prune_ctx;

static bool prune_file(void *ctx, const tn_delta_file *f) {
    prune_ctx *p = ctx;
    if (p->inner && !p->inner(p->inner_ctx, f)) return false;
    int32_t b, n;
    if (!tn_bucket_file_tags(f, &b, &n) || n == -1) return true;   /* dynamic: any bucket may hold the key */
    return tn_bucket_of_hash(p->hash, n) == b;
}

/* The constant of filter f as a value of column type ty, when it converts exactly. */
static bool key_constant(const tn_table_filter *f, tn_type ty, tn_value *out) {
    const tn_value *c = &f->constant;
    if (c->is_null) return false;
    *out = *c;
    out->type = ty;
    if (tn_type_equal(c->type, ty)) return true;
    if (tn_type_is_integer(ty) && tn_type_is_integer(c->type)) {
        switch ((tn_type_id)ty.id) {
        case TN_TYPE_TINYINT: return c->u.i >= INT8_MIN && c->u.i <= INT8_MAX;
        case TN_TYPE_SMALLINT: return c->u.i >= INT16_MIN && c->u.i <= INT16_MAX;
        case TN_TYPE_INTEGER: return c->u.i >= INT32_MIN && c->u.i <= INT32_MAX;
        default: return true;
        }
    }
    if (tn_type_is_string(ty) && tn_type_is_string(c->type)) return true;
    return false;
}

static int bucket_scan_open(tn_table_scan **out, bool *sampled, tn_table *t, const tn_layout_scan_options *opts) {
    (void)sampled;
    tn_arena *arena = tn_arena_create(0);
    if (!arena) return TN_ENOMEM;
    tn_bucket_spec spec;
    tn_table_scan_options so = opts->scan;
    prune_ctx pc;
    memset(&pc, 0, sizeof pc);
    int rc = tn_bucket_spec_of_table(&spec, t, arena);
    if (rc) {
        /* a table this build cannot interpret is still a Delta table */
        tn_error_clear();
        tn_arena_destroy(arena);
        return tn_table_scan_open(out, t, &opts->scan);
    }
    tn_value vals[TN_BUCKET_MAX_KEYS];
    uint32_t found = 0;
    for (uint32_t k = 0; k < spec.nbkey; k++) {
        bool ok = false;
        for (uint32_t i = 0; i < so.nfilters && !ok; i++) {
            const tn_table_filter *f = &so.filters[i];
            if (f->column == spec.bkey[k] && f->op == TN_PQ_EQ)
                ok = key_constant(f, tn_table_column(t, spec.bkey[k])->type, &vals[k]);
        }
        if (ok) found++;
    }
    if (found == spec.nbkey && spec.nbkey > 0) {
        rc = tn_bucket_hash_values(vals, spec.nbkey, &pc.hash);
        if (!rc) {
            pc.inner = so.file_filter;
            pc.inner_ctx = so.file_filter_ctx;
            so.file_filter = prune_file;
            so.file_filter_ctx = &pc;
        }
        tn_error_clear();
        rc = 0;
    }
    rc = tn_table_scan_open(out, t, &so);
    tn_arena_destroy(arena);
    return rc;
}

const tn_layout_impl tn_layout_bucket = {
    "bucket", bucket_open, bucket_write, bucket_commit, bucket_abort, bucket_num_files, bucket_scan_open,
    tn_bucket_check_create, tn_bucket_check_alter, bucket_optimize, tn_bucket_check_delete,
    tn_bucket_check_update, tn_bucket_describe_column, bucket_write_kinds, tn_bucket_check_merge,
};
