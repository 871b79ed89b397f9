/*
 * table/scan.c: scan planning and execution over a snapshot: logical -> physical columns
 * (column mapping by name or id), partition pruning on typed partition values, file skipping by
 * add.stats min/max/nullCount, row-group pruning by Parquet statistics, page pruning through
 * tn_parquet_scan, deletion vectors (rows removed by file row index), partition columns as
 * constant vectors, type widening (file narrower than the schema), restrictions to chosen files
 * and row groups (layouts: buckets, cubes) and --stats counters.
 * One morsel per (file, row group); morsels run independently on any thread. A scan that needs
 * no file column (count(*), partition columns only) is answered from add.stats numRecords
 * when every file has it and no deletion vector: one morsel per file, no file opened.
 * Open descriptors are bounded: planning reads each footer (through parquet's footer cache: a
 * file an earlier statement planned is not read again) and closes the file again; morsels
 * reopen their file lazily from a pool of at most min(256, RLIMIT_NOFILE / 4) descriptors per
 * scan, closing the least recently opened idle one when full.
 */
#include "table/tableInt.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ---------------------------------------------------------------------------------------------
 * Values in vectors.
 */
int tb_vector_set_value(tn_vector *v, uint32_t row, const tn_value *val) {
    if (val->is_null) return tn_vector_set_null(v, row);
    tn_value cv;
    if (!tn_type_equal(val->type, v->type) &&
        !(tn_type_is_string(val->type) && tn_type_is_string(v->type))) {
        int rc = tb_value_cast(&cv, val, v->type);
        if (rc) return rc;
        val = &cv;
    }
    if (v->validity) tn_vector_set_valid_bit(v, row, true);
    void *d = v->data;
    switch (v->type.id) {
    case TN_TYPE_BOOLEAN: ((uint8_t *)d)[row] = val->u.b ? 1 : 0; break;
    case TN_TYPE_TINYINT: ((int8_t *)d)[row] = (int8_t)val->u.i; break;
    case TN_TYPE_SMALLINT: ((int16_t *)d)[row] = (int16_t)val->u.i; break;
    case TN_TYPE_INTEGER: case TN_TYPE_DATE: ((int32_t *)d)[row] = (int32_t)val->u.i; break;
    case TN_TYPE_BIGINT: case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ:
        ((int64_t *)d)[row] = val->u.i;
        break;
    case TN_TYPE_FLOAT: ((float *)d)[row] = (float)val->u.d; break;
    case TN_TYPE_DOUBLE: ((double *)d)[row] = val->u.d; break;
    case TN_TYPE_DECIMAL:
        if (tn_type_is_decimal128(v->type)) memcpy((tn_int128 *)d + row, &val->u.i128, sizeof(tn_int128));
        else ((int64_t *)d)[row] = val->u.i;
        break;
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY:
        return tn_vector_set_str(v, row, val->u.s.ptr, val->u.s.len);
    default: return tn_vector_set_null(v, row);
    }
    return 0;
}

static bool is_int(tn_type t) { return tn_type_is_integer(t); }

int tb_value_cast(tn_value *out, const tn_value *in, tn_type to) {
    tn_type from = in->type;
    *out = *in;
    out->type = to;
    if (in->is_null) return 0;
    if (tn_type_equal(from, to)) return 0;
    if (is_int(from) && is_int(to)) return 0;
    if (is_int(from) && (to.id == TN_TYPE_DOUBLE || to.id == TN_TYPE_FLOAT)) { out->u.d = (double)in->u.i; return 0; }
    if (from.id == TN_TYPE_FLOAT && to.id == TN_TYPE_DOUBLE) {
        out->u.d = (double)(float)in->u.d;   /* exact, as Delta type widening does */
        return 0;
    }
    if ((from.id == TN_TYPE_TIMESTAMP || from.id == TN_TYPE_TIMESTAMP_TZ) &&
        (to.id == TN_TYPE_TIMESTAMP || to.id == TN_TYPE_TIMESTAMP_TZ))
        return 0;
    if (from.id == TN_TYPE_DATE && (to.id == TN_TYPE_TIMESTAMP || to.id == TN_TYPE_TIMESTAMP_TZ)) {
        out->u.i = in->u.i * 86400000000LL;
        return 0;
    }
    if (tn_type_is_string(from) && tn_type_is_string(to)) return 0;
    if (to.id == TN_TYPE_DECIMAL && (is_int(from) || from.id == TN_TYPE_DECIMAL)) {
        tn_int128 v = from.id == TN_TYPE_DECIMAL && tn_type_is_decimal128(from) ? in->u.i128 : (tn_int128)in->u.i;
        int fs = from.id == TN_TYPE_DECIMAL ? from.scale : 0;
        if (fs > to.scale) goto bad;
        for (int k = fs; k < to.scale; k++) v *= 10;
        if (tn_type_is_decimal128(to)) out->u.i128 = v;
        else out->u.i = (int64_t)v;
        return 0;
    }
    if (to.id == TN_TYPE_DOUBLE && from.id == TN_TYPE_DECIMAL) {
        tn_int128 v = tn_type_is_decimal128(from) ? in->u.i128 : (tn_int128)in->u.i;
        char buf[TN_FORMAT_BUF_SIZE];
        tn_format_decimal(buf, sizeof buf, v, from.scale);
        out->u.d = strtod(buf, NULL);
        return 0;
    }
bad: {
        char a[32], b[32];
        return tn_error_set(TN_EUNSUPPORTED, "cannot widen %s to %s", tn_type_format(from, a, sizeof a),
                            tn_type_format(to, b, sizeof b));
    }
}

/* Keeps rows keep[0..n) (ascending) in place. */
static void vec_compact(tn_vector *v, const uint32_t *keep, uint32_t n) {
    size_t w = tn_type_width(v->type);
    uint8_t *d = v->data;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = keep[k];
        if (r != k) {
            memmove(d + (size_t)k * w, d + (size_t)r * w, w);
            if (v->validity) tn_vector_set_valid_bit(v, k, tn_vector_is_valid(v, r));
        }
    }
    v->count = n;
}

/* ---------------------------------------------------------------------------------------------
 * Partition values.
 */
int tn_table_partition_value_parse(tn_value *out, tn_type type, const char *text) {
    memset(out, 0, sizeof *out);
    out->type = type;
    if (!text || !text[0] || strcmp(text, "__HIVE_DEFAULT_PARTITION__") == 0) {
        out->is_null = true;
        return 0;
    }
    size_t len = strlen(text);
    char *end = NULL;
    int rc = 0;
    switch (type.id) {
    case TN_TYPE_BOOLEAN:
        if (tn_str_iequal(text, "true")) out->u.b = true;
        else if (tn_str_iequal(text, "false")) out->u.b = false;
        else goto bad;
        return 0;
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT: {
        long long v = strtoll(text, &end, 10);
        if (*end || end == text) goto bad;
        int64_t lim = type.id == TN_TYPE_TINYINT ? 127 : type.id == TN_TYPE_SMALLINT ? 32767
                      : type.id == TN_TYPE_INTEGER ? 2147483647LL : INT64_MAX;
        if (v > lim || v < -lim - 1) goto bad;
        out->u.i = v;
        return 0;
    }
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE:
        out->u.d = strtod(text, &end);
        if (*end || end == text) goto bad;
        if (type.id == TN_TYPE_FLOAT) out->u.d = (float)out->u.d;
        return 0;
    case TN_TYPE_DECIMAL: {
        tn_int128 v;
        rc = tb_parse_decimal(text, len, type.scale, &v);
        if (rc) goto bad;
        if (tn_type_is_decimal128(type)) out->u.i128 = v;
        else out->u.i = (int64_t)v;
        return 0;
    }
    case TN_TYPE_VARCHAR: case TN_TYPE_VARBINARY:
        out->u.s.ptr = text;
        out->u.s.len = (uint32_t)len;
        return 0;
    case TN_TYPE_DATE: {
        int32_t d;
        rc = tb_parse_date(text, len, &d);
        if (rc) goto bad;
        out->u.i = d;
        return 0;
    }
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
        /* TIMESTAMP (ntz): wall clock, any zone suffix is ignored; TIMESTAMPTZ: zoneless text is
         * read as UTC (tarn's choice: the writer's zone is unknown). */
        int64_t us;
        bool zone;
        if (type.id == TN_TYPE_TIMESTAMP) {
            /* strip a zone suffix for ntz */
            size_t n = len;
            if (n && (text[n - 1] == 'Z' || text[n - 1] == 'z')) n--;
            rc = tb_parse_timestamp_us(text, n, &us, &zone);
        } else {
            rc = tb_parse_timestamp_us(text, len, &us, &zone);
        }
        if (rc) goto bad;
        out->u.i = us;
        return 0;
    }
    default: goto bad;
    }
bad: {
        char tb[32];
        return tn_error_set(TN_ECORRUPT, "invalid partition value '%s' for type %s", text,
                            tn_type_format(type, tb, sizeof tb));
    }
}

bool tb_partition_may_match(const tn_table *t, const tn_delta_file *file, const tn_table_filter *filters,
                            uint32_t nfilters) {
    const tn_delta_metadata *md = &t->snap->metadata;
    for (uint32_t i = 0; i < nfilters; i++) {
        const tn_table_filter *f = &filters[i];
        if (f->column >= md->ncolumns || !md->columns[f->column].is_partition) continue;
        const tn_delta_column *c = &md->columns[f->column];
        bool is_null = false;
        const char *text = tn_delta_partition_value(t->snap, file, c->name, &is_null);
        tn_value v;
        if (is_null) text = NULL;
        if (tn_table_partition_value_parse(&v, c->type, text) != 0) {
            tn_error_clear();
            continue;   /* unparsable: keep the file, the scan will report it */
        }
        if (!tb_filter_eval(f, &v)) return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * add.stats skipping.
 */
static size_t utf8_chars(const char *s, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) c++;
    return c;
}

/* JSON stat -> value of the column's type. is_max widens truncated bounds. false = unusable. */
static bool stat_value(json_t *j, tn_type type, bool is_max, tn_value *out) {
    memset(out, 0, sizeof *out);
    out->type = type;
    if (!j || json_is_null(j)) return false;
    switch (type.id) {
    case TN_TYPE_TINYINT: case TN_TYPE_SMALLINT: case TN_TYPE_INTEGER: case TN_TYPE_BIGINT:
        if (!json_is_integer(j)) return false;
        out->u.i = json_integer_value(j);
        return true;
    case TN_TYPE_FLOAT: case TN_TYPE_DOUBLE:
        if (!json_is_number(j)) return false;
        out->type = tn_type_make(TN_TYPE_DOUBLE);
        out->u.d = json_number_value(j);
        if (type.id == TN_TYPE_FLOAT) {  /* float stats printed as decimal text: widen a ulp */
            out->u.d = is_max ? nextafter(out->u.d, INFINITY) : nextafter(out->u.d, -INFINITY);
            out->u.d = is_max ? out->u.d + fabs(out->u.d) * 1e-6 : out->u.d - fabs(out->u.d) * 1e-6;
        }
        return true;
    case TN_TYPE_DECIMAL: {
        if (!json_is_number(j)) return false;
        double d = json_number_value(j);
        double slack = fabs(d) * 1e-12 + 1e-300;
        out->type = tn_type_make(TN_TYPE_DOUBLE);
        out->u.d = is_max ? d + slack : d - slack;
        return true;
    }
    case TN_TYPE_VARCHAR: {
        if (!json_is_string(j)) return false;
        const char *s = json_string_value(j);
        size_t n = json_string_length(j);
        if (is_max && utf8_chars(s, n) >= 32) return false;   /* maybe a truncated prefix */
        out->u.s.ptr = s;
        out->u.s.len = (uint32_t)n;
        return true;
    }
    case TN_TYPE_DATE: {
        if (!json_is_string(j)) return false;
        int32_t d;
        if (tb_parse_date(json_string_value(j), json_string_length(j), &d) != 0) {
            tn_error_clear();
            return false;
        }
        out->u.i = d;
        return true;
    }
    case TN_TYPE_TIMESTAMP: case TN_TYPE_TIMESTAMP_TZ: {
        if (!json_is_string(j)) return false;
        const char *s = json_string_value(j);
        size_t n = json_string_length(j);
        int64_t us;
        bool zone;
        if (type.id == TN_TYPE_TIMESTAMP && n && (s[n - 1] == 'Z')) n--;
        if (tb_parse_timestamp_us(s, n, &us, &zone) != 0) {
            tn_error_clear();
            return false;
        }
        if (type.id == TN_TYPE_TIMESTAMP_TZ && !zone) return false;  /* ambiguous */
        out->u.i = is_max ? us + 999 : us;   /* stats are truncated to milliseconds */
        return true;
    }
    default: return false;
    }
}

static bool file_filter_may_match(json_t *stats, const tn_delta_column *c, const tn_table_filter *f) {
    json_t *nr = json_object_get(stats, "numRecords");
    json_t *ncj = json_object_get(json_object_get(stats, "nullCount"), c->physical_name);
    bool has_n = json_is_integer(nr), has_nc = json_is_integer(ncj);
    int64_t n = has_n ? json_integer_value(nr) : -1, nc = has_nc ? json_integer_value(ncj) : -1;
    if (has_n && n == 0) return false;   /* an empty file holds no row */
    if (f->op == TN_PQ_IS_NULL) return !(has_nc && nc == 0);
    if (f->op == TN_PQ_IS_NOT_NULL) return !(has_nc && has_n && nc >= n);
    if (f->constant.is_null) return false;   /* comparison with NULL is never true */
    if (has_nc && has_n && nc >= n) return false;   /* all null */
    tn_value mn, mx;
    bool has_min = stat_value(json_object_get(json_object_get(stats, "minValues"), c->physical_name), c->type, false, &mn);
    bool has_max = stat_value(json_object_get(json_object_get(stats, "maxValues"), c->physical_name), c->type, true, &mx);
    int cmin = 0, cmax = 0;
    bool okmin = has_min && tb_value_cmp(&mn, &f->constant, &cmin);
    bool okmax = has_max && tb_value_cmp(&mx, &f->constant, &cmax);
    switch (f->op) {
    case TN_PQ_EQ: return !((okmin && cmin > 0) || (okmax && cmax < 0));
    case TN_PQ_LT: return !(okmin && cmin >= 0);
    case TN_PQ_LE: return !(okmin && cmin > 0);
    case TN_PQ_GT: return !(okmax && cmax <= 0);
    case TN_PQ_GE: return !(okmax && cmax < 0);
    case TN_PQ_NE:
        if (c->type.id == TN_TYPE_TIMESTAMP || c->type.id == TN_TYPE_TIMESTAMP_TZ ||
            c->type.id == TN_TYPE_FLOAT || c->type.id == TN_TYPE_DOUBLE || c->type.id == TN_TYPE_DECIMAL)
            return true;
        return !(okmin && okmax && cmin == 0 && cmax == 0);
    default: return true;
    }
}

bool tb_stats_may_match(const tn_table *t, const tn_delta_file *file, const tn_table_filter *filters,
                        uint32_t nfilters) {
    if (!file->stats || nfilters == 0) return true;
    const tn_delta_metadata *md = &t->snap->metadata;
    bool any = false;
    for (uint32_t i = 0; i < nfilters; i++)
        if (filters[i].column < md->ncolumns && !md->columns[filters[i].column].is_partition &&
            !md->columns[filters[i].column].nested)
            any = true;
    if (!any) return true;
    json_t *stats = json_loads(file->stats, JSON_DECODE_ANY, NULL);
    if (!json_is_object(stats)) {
        json_decref(stats);
        return true;
    }
    bool ok = true;
    for (uint32_t i = 0; i < nfilters && ok; i++) {
        const tn_table_filter *f = &filters[i];
        if (f->column >= md->ncolumns) continue;
        const tn_delta_column *c = &md->columns[f->column];
        if (c->is_partition || c->nested) continue;
        if (t->snap->type_widening && c->type_changed) continue;
        ok = file_filter_may_match(stats, c, f);
    }
    json_decref(stats);
    return ok;
}

bool tn_table_file_may_match(const tn_table *t, const tn_delta_file *f, const tn_table_filter *filters,
                             uint32_t nfilters) {
    return tb_partition_may_match(t, f, filters, nfilters) && tb_stats_may_match(t, f, filters, nfilters);
}

/* ---------------------------------------------------------------------------------------------
 * Planning.
 */
enum { SRC_FILE = 0, SRC_PARTITION, SRC_NULL };

typedef struct out_col {
    int kind;                        /* SRC_* */
    uint32_t scan_index;             /* position in the parquet scan's columns (SRC_FILE) */
    bool cast;                       /* file type differs: cast row by row */
    bool relabel;                    /* same representation, different type: swap + relabel */
    bool dup;                        /* the scan column is already taken by an earlier output */
    bool widen;                      /* read with some struct fields only (scan_types), then
                                        handed on in the full type (tn_vector_swap_widen) */
    tn_value constant;               /* SRC_PARTITION */
} out_col;

typedef struct scan_file {
    uint32_t snap_index;
    tn_parquet_file *pf;
    uint32_t *scan_cols;             /* file column indexes read */
    uint32_t nscan_cols;
    tn_type *scan_types;             /* NULL, or per scan column the type read (file names) */
    out_col *cols;                   /* per output column */
    tn_parquet_predicate *preds;
    uint32_t npreds;
    uint64_t *dv;                    /* deleted row indexes ascending (tn_malloc) */
    uint64_t ndv;
    int64_t *rg_first_row;           /* per row group */
    int64_t stats_rows;              /* pf == NULL: rows answered from add.stats numRecords */
    uint32_t users;                  /* morsels reading it now (fd pool, under fd_mu) */
} scan_file;

typedef struct morsel {
    uint32_t sf;
    uint32_t rg;
    int64_t limit;                   /* rows of the row group to read (a prefix); -1 = all */
} morsel;

struct tn_table_scan {
    tn_table *t;
    uint32_t ncols;                  /* columns read: nout output columns, then the row filter's */
    uint32_t nout;
    int (*row_filter)(void *ctx, const tn_chunk *cols, uint8_t *keep);
    void *row_filter_ctx;
    void (*row_filter_free)(void *ctx);
    uint32_t *cols;                  /* logical column per output column */
    tn_type *types;
    tn_type *read_types;             /* NULL, or per output column a pruned STRUCT (or NULL type) */
    scan_file *files;
    uint32_t nfiles;
    morsel *morsels;
    uint32_t nmorsels;
    uint32_t cap_morsels;
    tn_table_scan_stats stats;
    tn_arena *arena;
    /* the pool of open data files: fd_list holds the scan files whose handle is open, oldest
     * first; fd_max is the budget */
    pthread_mutex_t fd_mu;
    bool fd_mu_init;
    uint32_t *fd_list;
    uint32_t fd_count, fd_max;
};

/* The budget from RLIMIT_NOFILE, read once per process (every scan asked: a system call per
 * point query); a limit raised later by the process is not seen. */
static uint32_t fd_budget(void) {
    static uint32_t cached;
    uint32_t c = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (c) return c;
    struct rlimit rl;
    uint64_t soft = 4096;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) soft = (uint64_t)rl.rlim_cur;
    uint64_t b = soft / 4;
    if (b > 256) b = 256;
    if (b < 4) b = 4;
    __atomic_store_n(&cached, (uint32_t)b, __ATOMIC_RELAXED);
    return (uint32_t)b;
}

/* Makes scan file f's handle open and counts a user; evicts the oldest idle open file when the
 * budget is reached (all busy: goes over it, by at most the number of threads). */
static int fd_acquire(tn_table_scan *s, uint32_t f) {
    int rc = 0;
    scan_file *sf = &s->files[f];
    pthread_mutex_lock(&s->fd_mu);
    if (!tn_parquet_handle_is_open(sf->pf)) {
        while (s->fd_count >= s->fd_max) {
            uint32_t k = 0;
            while (k < s->fd_count && s->files[s->fd_list[k]].users) k++;
            if (k == s->fd_count) break;
            tn_parquet_handle_close(s->files[s->fd_list[k]].pf);
            memmove(s->fd_list + k, s->fd_list + k + 1, sizeof *s->fd_list * (s->fd_count - k - 1));
            s->fd_count--;
        }
        rc = tn_parquet_handle_open(sf->pf);
        if (!rc) s->fd_list[s->fd_count++] = f;
    }
    if (!rc) sf->users++;
    pthread_mutex_unlock(&s->fd_mu);
    return rc;
}

static void fd_release(tn_table_scan *s, uint32_t f) {
    pthread_mutex_lock(&s->fd_mu);
    s->files[f].users--;
    pthread_mutex_unlock(&s->fd_mu);
}

static bool relabel_ok(tn_type file, tn_type table) {
    if (tn_type_equal(file, table)) return true;
    if ((file.id == TN_TYPE_TIMESTAMP || file.id == TN_TYPE_TIMESTAMP_TZ) &&
        (table.id == TN_TYPE_TIMESTAMP || table.id == TN_TYPE_TIMESTAMP_TZ))
        return true;
    if (tn_type_is_string(file) && tn_type_is_string(table)) return true;
    if (file.id == TN_TYPE_DECIMAL && table.id == TN_TYPE_DECIMAL && file.scale == table.scale &&
        tn_type_is_decimal128(file) == tn_type_is_decimal128(table))
        return true;
    return false;
}

/* A column-mapped nested column: the file's struct fields carry physical names
 * (delta.columnMapping.physicalName, "col-<uuid>"), the table's the logical ones; same shape
 * (kinds, field counts and order, leaf types) is the same representation. */
static bool same_shape(tn_type file, tn_type table) {
    if (!tn_type_is_nested(file) || !tn_type_is_nested(table)) return tn_type_equal(file, table);
    if (file.id != table.id || file.nested->nchildren != table.nested->nchildren) return false;
    for (uint32_t i = 0; i < file.nested->nchildren; i++)
        if (!same_shape(file.nested->children[i], table.nested->children[i])) return false;
    return true;
}

/* Sets v's type, and its children's, to t (of the same shape). */
static void retype(tn_vector *v, tn_type t) {
    v->type = t;
    if (!tn_type_is_nested(t) || !v->children) return;
    for (uint32_t i = 0; i < t.nested->nchildren; i++) retype(&v->children[i], t.nested->children[i]);
}

static bool widen_ok(tn_type file, tn_type table) {
    tn_value a, b;
    memset(&a, 0, sizeof a);
    a.type = file;
    if (file.id == TN_TYPE_VARCHAR || file.id == TN_TYPE_VARBINARY) return tn_type_is_string(table);
    if (file.id == TN_TYPE_DECIMAL && table.id == TN_TYPE_DECIMAL && file.scale > table.scale) return false;
    if (file.id == TN_TYPE_DECIMAL && table.id == TN_TYPE_DECIMAL &&
        table.precision - table.scale < file.precision - file.scale)
        return false;
    if (tn_type_is_integer(file) && tn_type_is_integer(table) &&
        tn_type_width(file) > tn_type_width(table))
        return false;
    int rc = tb_value_cast(&b, &a, table);
    if (rc) tn_error_clear();
    return rc == 0;
}

/* The file's type of a pruned read: `part` keeps some fields of the logical type `table`
 * (logical names); `file` is the file's type of the same shape (physical names under column
 * mapping). *out gets part's fields under their file names; 1 when the shapes disagree. */
static int file_part_type(tn_type file, tn_type table, tn_type part, tn_type *out) {
    if (part.id != TN_TYPE_STRUCT || tn_type_equal(part, table)) {
        *out = file;
        return 0;
    }
    if (file.id != TN_TYPE_STRUCT || table.id != TN_TYPE_STRUCT ||
        file.nested->nchildren != table.nested->nchildren || part.nested->nchildren > 256)
        return 1;
    const char *names[256];
    tn_type types[256];
    uint32_t n = part.nested->nchildren;
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = part.nested->names[i];
        int k = tn_type_struct_find(table, nm, strlen(nm));
        if (k < 0) return 1;
        int rc = file_part_type(file.nested->children[k], table.nested->children[k], part.nested->children[i], &types[i]);
        if (rc) return rc;
        names[i] = file.nested->names[k];
    }
    return tn_type_struct(out, n, names, types) ? 1 : 0;
}

/* Finds the file column for a logical column: field id (id mode), else physical name (exact,
 * then case-insensitive). -1 when the file does not hold it. */
static int find_file_column(const tn_parquet_file *pf, const tn_delta_column *c, tn_delta_column_mapping cm) {
    uint32_t n = tn_parquet_num_columns(pf);
    if (cm == TN_DELTA_CM_ID && c->field_id >= 0) {
        for (uint32_t i = 0; i < n; i++)
            if (tn_parquet_column(pf, i)->field_id == c->field_id) return (int)i;
    }
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(tn_parquet_column(pf, i)->name, c->physical_name) == 0) return (int)i;
    for (uint32_t i = 0; i < n; i++)
        if (tn_str_iequal(tn_parquet_column(pf, i)->name, c->physical_name)) return (int)i;
    return -1;
}

static int add_morsel(tn_table_scan *s, uint32_t sf, uint32_t rg, int64_t limit) {
    if (s->nmorsels == s->cap_morsels) {
        uint32_t cap = s->cap_morsels ? s->cap_morsels * 2 : 64;
        morsel *m = tn_realloc(s->morsels, sizeof *m * cap);
        if (!m) return TN_ENOMEM;
        s->morsels = m;
        s->cap_morsels = cap;
    }
    s->morsels[s->nmorsels].sf = sf;
    s->morsels[s->nmorsels].rg = rg;
    s->morsels[s->nmorsels].limit = limit;
    s->nmorsels++;
    return 0;
}

static int plan_file(tn_table_scan *s, uint32_t fi, const tn_table_scan_options *opts) {
    int rc = 0;
    tn_table *t = s->t;
    const tn_delta_snapshot *snap = t->snap;
    const tn_delta_file *file = &snap->files[fi];
    const tn_delta_metadata *md = &snap->metadata;
    scan_file *sf = &s->files[s->nfiles];
    const char *full = NULL;
    memset(sf, 0, sizeof *sf);
    sf->snap_index = fi;
    rc = tn_delta_file_full_path(snap, file, s->arena, &full);
    if (rc) goto cleanup;
    /* data files are immutable: the log's size and modificationTime key the footer cache */
    if (file->has_size && file->size > 0)
        rc = tn_parquet_open_cached_known(&sf->pf, t->fs, full, (uint64_t)file->size, file->modification_time, NULL);
    else rc = tn_parquet_open_cached(&sf->pf, t->fs, full, NULL);
    if (rc) {
        /* the Parquet reader refuses files with nested columns: name the table's column */
        for (uint32_t i = 0; i < md->ncolumns && rc == TN_EUNSUPPORTED; i++)
            if (md->columns[i].nested) {
                rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has nested type %s: not supported (%s)",
                                  t->path, md->columns[i].name,
                                  md->columns[i].type_text ? md->columns[i].type_text : "?", full);
                goto cleanup;
            }
        tn_error_prefix(rc, "table '%s'", t->path);
        goto cleanup;
    }
    s->nfiles++;   /* owned from here (closed by scan_close) */
    int64_t nrec = tn_delta_file_num_records(file);
    if (nrec < 0) __atomic_add_fetch(&s->stats.table_rows, (uint64_t)tn_parquet_num_rows(sf->pf), __ATOMIC_RELAXED);

    sf->cols = tn_arena_calloc(s->arena, sizeof *sf->cols * (s->ncols ? s->ncols : 1));
    sf->scan_cols = tn_arena_calloc(s->arena, sizeof *sf->scan_cols * (s->ncols ? s->ncols : 1));
    if (!sf->cols || !sf->scan_cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t o = 0; o < s->ncols; o++) {
        const tn_delta_column *c = &md->columns[s->cols[o]];
        out_col *oc = &sf->cols[o];
        if (c->is_partition) {
            bool is_null = false;
            const char *text = tn_delta_partition_value(snap, file, c->name, &is_null);
            oc->kind = SRC_PARTITION;
            rc = tn_table_partition_value_parse(&oc->constant, c->type, is_null ? NULL : text);
            if (rc) {
                tn_error_prefix(rc, "%s: partition column '%s'", full, c->name);
                goto cleanup;
            }
            continue;
        }
        int fc = find_file_column(sf->pf, c, md->column_mapping);
        if (fc < 0) {
            oc->kind = SRC_NULL;   /* column added after this file was written */
            continue;
        }
        tn_type ft = tn_parquet_column(sf->pf, (uint32_t)fc)->type;
        oc->kind = SRC_FILE;
        if (!tn_type_equal(ft, c->type)) {
            if (relabel_ok(ft, c->type)) oc->relabel = true;
            else if (md->column_mapping != TN_DELTA_CM_NONE && tn_type_is_nested(ft) && same_shape(ft, c->type))
                oc->relabel = true;
            else if (widen_ok(ft, c->type)) oc->cast = true;
            else {
                char a[32], b[32];
                rc = tn_error_set(TN_ECORRUPT, "%s: column '%s' has type %s in the file but %s in the table schema",
                                  full, c->name, tn_type_format(ft, a, sizeof a), tn_type_format(c->type, b, sizeof b));
                goto cleanup;
            }
        }
        uint32_t k;
        for (k = 0; k < sf->nscan_cols; k++)
            if (sf->scan_cols[k] == (uint32_t)fc) break;
        if (k == sf->nscan_cols) sf->scan_cols[sf->nscan_cols++] = (uint32_t)fc;
        else oc->dup = true;
        oc->scan_index = k;
        tn_type pt;
        if (s->read_types && s->read_types[o].id == TN_TYPE_STRUCT && !oc->dup && !oc->cast &&
            file_part_type(ft, c->type, s->read_types[o], &pt) == 0) {
            if (!sf->scan_types) {
                sf->scan_types = tn_arena_calloc(s->arena, sizeof *sf->scan_types * (s->ncols ? s->ncols : 1));
                if (!sf->scan_types) { rc = TN_ENOMEM; goto cleanup; }
            }
            sf->scan_types[k] = pt;
            oc->widen = true;
        }
    }
    if (sf->scan_types)      /* the other scan columns: the file's own types */
        for (uint32_t k = 0; k < sf->nscan_cols; k++)
            if (sf->scan_types[k].id == TN_TYPE_NULL) sf->scan_types[k] = tn_parquet_column(sf->pf, sf->scan_cols[k])->type;
    /* predicates on file columns of the same type */
    sf->preds = tn_arena_calloc(s->arena, sizeof *sf->preds * (opts->nfilters ? opts->nfilters : 1));
    if (!sf->preds) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < opts->nfilters; i++) {
        const tn_table_filter *f = &opts->filters[i];
        if (f->column >= md->ncolumns) continue;
        const tn_delta_column *c = &md->columns[f->column];
        if (c->is_partition || c->nested) continue;
        int fc = find_file_column(sf->pf, c, md->column_mapping);
        if (fc < 0) continue;
        tn_type ft = tn_parquet_column(sf->pf, (uint32_t)fc)->type;
        tn_parquet_predicate *p = &sf->preds[sf->npreds];
        p->column = (uint32_t)fc;
        p->op = f->op;
        if (f->op == TN_PQ_IS_NULL || f->op == TN_PQ_IS_NOT_NULL) {
            memset(&p->constant, 0, sizeof p->constant);
            p->constant.type = ft;
        } else {
            if (f->constant.is_null) continue;
            if (!tn_type_equal(ft, f->constant.type)) {
                /* convert the constant exactly when it is a widening, else skip the predicate */
                if (tn_type_is_integer(ft) && tn_type_is_integer(f->constant.type)) {
                    p->constant = f->constant;
                    p->constant.type = ft;
                    int64_t lo = ft.id == TN_TYPE_TINYINT ? -128 : ft.id == TN_TYPE_SMALLINT ? -32768
                                 : ft.id == TN_TYPE_INTEGER ? INT32_MIN : INT64_MIN;
                    int64_t hi = ft.id == TN_TYPE_TINYINT ? 127 : ft.id == TN_TYPE_SMALLINT ? 32767
                                 : ft.id == TN_TYPE_INTEGER ? INT32_MAX : INT64_MAX;
                    if (f->constant.u.i < lo || f->constant.u.i > hi) continue;
                } else if (ft.id == TN_TYPE_DOUBLE && f->constant.type.id == TN_TYPE_FLOAT) {
                    p->constant = f->constant;
                    p->constant.type = ft;
                } else if (tn_type_is_string(ft) && tn_type_is_string(f->constant.type)) {
                    p->constant = f->constant;
                    p->constant.type = ft;
                } else {
                    continue;
                }
            } else {
                p->constant = f->constant;
            }
        }
        sf->npreds++;
    }
    /* row groups (the deletion vector is read only when one passes the statistics: a point
     * lookup on a deletion-vector table reads no DV for the files its key's range excludes) */
    uint32_t nrg = tn_parquet_num_row_groups(sf->pf);
    sf->rg_first_row = tn_arena_alloc(s->arena, sizeof(int64_t) * (nrg ? nrg : 1));
    if (!sf->rg_first_row) { rc = TN_ENOMEM; goto cleanup; }
    uint8_t *rg_keep = tn_arena_alloc(s->arena, nrg ? nrg : 1);
    if (!rg_keep) { rc = TN_ENOMEM; goto cleanup; }
    int64_t acc = 0;
    bool any = false, dv_read = false;
    for (uint32_t rg = 0; rg < nrg; rg++) {
        sf->rg_first_row[rg] = acc;
        int64_t rows = tn_parquet_row_group_num_rows(sf->pf, rg);
        acc += rows;
        rg_keep[rg] = 0;
        if (rows == 0) continue;
        if (sf->npreds && !tn_parquet_row_group_may_match(sf->pf, rg, sf->preds, sf->npreds)) {
            s->stats.row_groups_skipped++;
            continue;
        }
        if (file->has_dv && !opts->ignore_dvs && !dv_read) {
            dv_read = true;
            rc = tn_delta_dv_read(t->fs, t->path, &file->dv, &sf->dv, &sf->ndv);
            if (rc) {
                tn_error_prefix(rc, "%s: deletion vector", full);
                goto cleanup;
            }
        }
        /* a row group entirely deleted by the DV */
        if (sf->ndv) {
            uint64_t lo = (uint64_t)sf->rg_first_row[rg], hi = lo + (uint64_t)rows, cnt = 0;
            for (uint64_t k = 0; k < sf->ndv; k++)
                if (sf->dv[k] >= lo && sf->dv[k] < hi) cnt++;
            if (cnt == (uint64_t)rows) continue;
        }
        rg_keep[rg] = 1;
    }
    if (opts->row_group_filter) {
        uint32_t before = 0, after = 0;
        for (uint32_t rg = 0; rg < nrg; rg++) before += rg_keep[rg];
        rc = opts->row_group_filter(opts->row_group_filter_ctx, fi, file, sf->pf, rg_keep, nrg);
        if (rc) goto cleanup;
        for (uint32_t rg = 0; rg < nrg; rg++) after += rg_keep[rg] ? 1 : 0;
        if (after < before) s->stats.row_groups_excluded += before - after;
    }
    int64_t *limit = NULL;
    if (opts->row_group_limit) {
        limit = tn_arena_alloc(s->arena, sizeof *limit * (nrg ? nrg : 1));
        if (!limit) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t rg = 0; rg < nrg; rg++) limit[rg] = -1;
        rc = opts->row_group_limit(opts->row_group_limit_ctx, fi, file, sf->pf, rg_keep, limit, nrg);
        if (rc) goto cleanup;
        for (uint32_t rg = 0; rg < nrg; rg++)
            if (rg_keep[rg] && limit[rg] == 0) {
                rg_keep[rg] = 0;
                s->stats.row_groups_excluded++;
            }
    }
    for (uint32_t rg = 0; rg < nrg; rg++) {
        if (!rg_keep[rg]) continue;
        rc = add_morsel(s, s->nfiles - 1, rg, limit ? limit[rg] : -1);
        if (rc) goto cleanup;
        any = true;
    }
    if (any) s->stats.files_scanned++;
cleanup:
    /* the footer is parsed: the descriptor goes back until a morsel needs it (fd_acquire) */
    if (sf->pf) tn_parquet_handle_close(sf->pf);
    return rc;
}

/* Partition constants of the output columns for file (every output column is one). */
static int plan_partition_cols(tn_table_scan *s, scan_file *sf, const tn_delta_file *file, const char *label) {
    const tn_delta_snapshot *snap = s->t->snap;
    const tn_delta_metadata *md = &snap->metadata;
    sf->cols = tn_arena_calloc(s->arena, sizeof *sf->cols * (s->ncols ? s->ncols : 1));
    sf->scan_cols = tn_arena_calloc(s->arena, sizeof *sf->scan_cols);
    if (!sf->cols || !sf->scan_cols) return TN_ENOMEM;
    for (uint32_t o = 0; o < s->ncols; o++) {
        const tn_delta_column *c = &md->columns[s->cols[o]];
        out_col *oc = &sf->cols[o];
        bool is_null = false;
        const char *text = tn_delta_partition_value(snap, file, c->name, &is_null);
        oc->kind = SRC_PARTITION;
        int rc = tn_table_partition_value_parse(&oc->constant, c->type, is_null ? NULL : text);
        if (rc) return tn_error_prefix(rc, "%s: partition column '%s'", label, c->name);
    }
    return 0;
}

/* A file answered from the log: its numRecords rows, partition columns only, no I/O (not
 * counted as scanned). */
static int plan_file_stats(tn_table_scan *s, uint32_t fi, int64_t rows) {
    const tn_delta_file *file = &s->t->snap->files[fi];
    scan_file *sf = &s->files[s->nfiles];
    memset(sf, 0, sizeof *sf);
    sf->snap_index = fi;
    sf->stats_rows = rows;
    sf->rg_first_row = tn_arena_calloc(s->arena, sizeof(int64_t));
    if (!sf->rg_first_row) return TN_ENOMEM;
    int rc = plan_partition_cols(s, sf, file, file->path);
    if (rc) return rc;
    s->nfiles++;
    return rows > 0 ? add_morsel(s, s->nfiles - 1, 0, -1) : 0;
}

/* Partition-only filters could be answered from the log too (their pruning is exact), but
 * tests/unit/test_sql_tables.c (create_insert_select_history) expects a partition-pruned
 * count(*) to scan files: off until that test is updated. */
#define TB_STATS_WITH_PARTITION_FILTERS 0

/* Whether the scan can be answered from add.stats alone: no output column and no filter needs
 * file data (partition columns only), and every file left after pruning has numRecords and no
 * deletion vector. */
static bool answer_from_stats(const tn_table_scan *s, const tn_table_scan_options *opts,
                              const uint8_t *keep, uint32_t nkeep_of, const uint32_t *only) {
    const tn_delta_snapshot *snap = s->t->snap;
    const tn_delta_metadata *md = &snap->metadata;
    if (opts->nfilters && !TB_STATS_WITH_PARTITION_FILTERS) return false;
    for (uint32_t i = 0; i < s->ncols; i++)
        if (!md->columns[s->cols[i]].is_partition) return false;
    for (uint32_t i = 0; i < opts->nfilters; i++)
        if (!md->columns[opts->filters[i].column].is_partition) return false;
    for (uint32_t k = 0; k < nkeep_of; k++) {
        if (!keep[k]) continue;
        const tn_delta_file *f = &snap->files[only ? only[k] : k];
        if ((f->has_dv && !opts->ignore_dvs) || tn_delta_file_num_records(f) < 0) return false;
    }
    return true;
}

int tn_table_scan_open(tn_table_scan **out, tn_table *t, const tn_table_scan_options *opts) {
    return tn_table_scan_open_files(out, t, opts, NULL, 0);
}

int tn_table_scan_open_files(tn_table_scan **out, tn_table *t, const tn_table_scan_options *opts,
                             const uint32_t *only, uint32_t nonly) {
    int rc = 0;
    tn_table_scan *s = NULL;
    uint8_t *keep = NULL;
    tn_table_scan_options defaults = TN_TABLE_SCAN_OPTIONS_INIT;
    const tn_delta_snapshot *snap = t->snap;
    const tn_delta_metadata *md = &snap->metadata;
    *out = NULL;
    if (!opts) {
        defaults.all_columns = true;
        opts = &defaults;
    }
    s = tn_calloc(1, sizeof *s);
    if (!s) {
        if (opts->row_filter_free) opts->row_filter_free(opts->row_filter_ctx);
        return TN_ENOMEM;
    }
    s->t = t;
    s->row_filter_free = opts->row_filter_free;
    s->row_filter_ctx = opts->row_filter_ctx;
    s->arena = tn_arena_create(0);
    if (!s->arena) { rc = TN_ENOMEM; goto cleanup; }
    s->nout = opts->all_columns ? md->ncolumns : opts->ncolumns;
    s->row_filter = opts->row_filter;
    s->ncols = s->nout + (opts->row_filter ? opts->nrow_filter_columns : 0);
    s->cols = tn_arena_alloc(s->arena, sizeof *s->cols * (s->ncols ? s->ncols : 1));
    s->types = tn_arena_alloc(s->arena, sizeof *s->types * (s->ncols ? s->ncols : 1));
    if (!s->cols || !s->types) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t i = 0; i < s->ncols; i++) {
        uint32_t c = i >= s->nout ? opts->row_filter_columns[i - s->nout] : opts->all_columns ? i : opts->columns[i];
        if (c >= md->ncolumns) {
            rc = tn_error_set(TN_EINVAL, "table '%s': column index %u out of range", t->path, c);
            goto cleanup;
        }
        if (md->columns[c].nested && !tn_type_is_nested(md->columns[c].type)) {
            rc = tn_error_set(TN_EUNSUPPORTED, "table '%s': column '%s' has type %s: not supported",
                              t->path, md->columns[c].name, md->columns[c].type_text ? md->columns[c].type_text : "?");
            goto cleanup;
        }
        s->cols[i] = c;
        s->types[i] = md->columns[c].type;
    }
    if (opts->read_types && !opts->all_columns) {
        s->read_types = tn_arena_calloc(s->arena, sizeof *s->read_types * (s->ncols ? s->ncols : 1));
        if (!s->read_types) { rc = TN_ENOMEM; goto cleanup; }
        for (uint32_t i = 0; i < s->nout; i++) {
            bool unique = true;      /* a column read twice stays whole */
            for (uint32_t j = 0; j < s->ncols; j++)
                if (j != i && s->cols[j] == s->cols[i]) unique = false;
            if (unique && opts->read_types[i].id == TN_TYPE_STRUCT && s->types[i].id == TN_TYPE_STRUCT)
                s->read_types[i] = opts->read_types[i];
        }
    }
    for (uint32_t i = 0; i < opts->nfilters; i++)
        if (opts->filters[i].column >= md->ncolumns) {
            rc = tn_error_set(TN_EINVAL, "table '%s': filter column index %u out of range", t->path,
                              opts->filters[i].column);
            goto cleanup;
        }
    rc = tn_delta_protocol_check_read(&snap->protocol);
    if (rc) goto cleanup;
    s->files = tn_calloc(snap->nfiles ? snap->nfiles : 1, sizeof *s->files);
    if (!s->files) { rc = TN_ENOMEM; goto cleanup; }
    s->fd_max = fd_budget();
    s->fd_list = tn_malloc(sizeof *s->fd_list * ((size_t)snap->nfiles + 1));
    if (!s->fd_list) { rc = TN_ENOMEM; goto cleanup; }
    if (pthread_mutex_init(&s->fd_mu, NULL) != 0) { rc = tn_error_set(TN_EIO, "scan: cannot create a mutex"); goto cleanup; }
    s->fd_mu_init = true;
    s->stats.table_files = snap->nfiles;
    for (uint32_t fi = 0; fi < snap->nfiles; fi++) {
        const tn_delta_file *file = &snap->files[fi];
        int64_t nrec = tn_delta_file_num_records(file);
        if (nrec >= 0) s->stats.table_rows += (uint64_t)nrec;
        if (file->has_size && file->size > 0) s->stats.table_bytes += (uint64_t)file->size;
    }
    uint32_t nof = only ? nonly : snap->nfiles;
    keep = tn_malloc(nof ? nof : 1);
    if (!keep) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t k = 0; k < nof; k++) {
        uint32_t fi = only ? only[k] : k;
        keep[k] = 0;
        if (fi >= snap->nfiles) continue;
        const tn_delta_file *file = &snap->files[fi];
        if (!tb_partition_may_match(t, file, opts->filters, opts->nfilters) ||
            (opts->file_filter && !opts->file_filter(opts->file_filter_ctx, file))) {
            s->stats.files_pruned++;
            continue;
        }
        if (!tb_stats_may_match(t, file, opts->filters, opts->nfilters)) {
            s->stats.files_skipped++;
            continue;
        }
        keep[k] = 1;
    }
    /* count(*) and partition-only queries: rows from numRecords, no data file opened */
    bool from_stats = !opts->row_group_filter && !opts->row_group_limit && !opts->row_filter &&
                      answer_from_stats(s, opts, keep, nof, only);
    for (uint32_t k = 0; k < nof; k++) {
        if (!keep[k]) continue;
        uint32_t fi = only ? only[k] : k;
        rc = from_stats ? plan_file_stats(s, fi, tn_delta_file_num_records(&snap->files[fi])) : plan_file(s, fi, opts);
        if (rc) goto cleanup;
    }
    *out = s;
    s = NULL;
cleanup:
    tn_free(keep);
    tn_table_scan_close(s);
    return rc;
}

void tn_table_scan_close(tn_table_scan *s) {
    if (!s) return;
    if (s->row_filter_free) s->row_filter_free(s->row_filter_ctx);
    for (uint32_t i = 0; i < s->nfiles; i++) {
        tn_parquet_close(s->files[i].pf);
        tn_free(s->files[i].dv);
    }
    tn_free(s->files);
    tn_free(s->fd_list);
    if (s->fd_mu_init) pthread_mutex_destroy(&s->fd_mu);
    tn_free(s->morsels);
    tn_arena_destroy(s->arena);
    tn_free(s);
}

uint32_t tn_table_scan_num_columns(const tn_table_scan *s) { return s->nout; }
const tn_type *tn_table_scan_types(const tn_table_scan *s) { return s->types; }
uint32_t tn_table_scan_num_morsels(const tn_table_scan *s) { return s->nmorsels; }
void tn_table_scan_morsel_info(const tn_table_scan *s, uint32_t m, uint32_t *file, uint32_t *rg) {
    if (file) *file = s->files[s->morsels[m].sf].snap_index;
    if (rg) *rg = s->morsels[m].rg;
}
void tn_table_scan_get_stats(const tn_table_scan *s, tn_table_scan_stats *out) {
    out->files_scanned = s->stats.files_scanned;
    out->row_groups_scanned = __atomic_load_n(&s->stats.row_groups_scanned, __ATOMIC_RELAXED);
    out->rows_scanned = __atomic_load_n(&s->stats.rows_scanned, __ATOMIC_RELAXED);
    out->bytes_scanned = __atomic_load_n(&s->stats.bytes_scanned, __ATOMIC_RELAXED);
    out->table_files = s->stats.table_files;
    out->table_rows = __atomic_load_n(&s->stats.table_rows, __ATOMIC_RELAXED);
    out->table_bytes = s->stats.table_bytes;
    out->files_pruned = s->stats.files_pruned;
    out->files_skipped = s->stats.files_skipped;
    out->row_groups_skipped = s->stats.row_groups_skipped;
    out->row_groups_excluded = s->stats.row_groups_excluded;
}

/* ---------------------------------------------------------------------------------------------
 * Execution.
 */

/* Fills rows [0, n) of v with a constant (or NULL). */
static int fill_constant(tn_vector *v, const tn_value *val, uint32_t n) {
    tn_vector_reset(v);
    int rc = tn_vector_reserve(v, n ? n : 1);
    if (rc) return rc;
    if (n == 0) { v->count = 0; return 0; }
    if (val->is_null) {
        for (uint32_t i = 0; i < n; i++) {
            rc = tn_vector_set_null(v, i);
            if (rc) return rc;
        }
    } else {
        rc = tb_vector_set_value(v, 0, val);
        if (rc) return rc;
        size_t w = tn_type_width(v->type);
        for (uint32_t i = 1; i < n; i++) memcpy((uint8_t *)v->data + (size_t)i * w, v->data, w);
    }
    v->count = n;
    return 0;
}

static int cast_vector(tn_vector *dst, const tn_vector *src, uint32_t n) {
    tn_vector_reset(dst);
    int rc = tn_vector_reserve(dst, n ? n : 1);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) {
        tn_value v, cv;
        tn_vector_get_value(src, i, &v);
        if (v.is_null) {
            rc = tn_vector_set_null(dst, i);
        } else {
            rc = tb_value_cast(&cv, &v, dst->type);
            if (!rc) rc = tb_vector_set_value(dst, i, &cv);
        }
        if (rc) return rc;
    }
    dst->count = n;
    return 0;
}

/* Rows of [first, first+n) not deleted by the DV -> keep (returns count). */
static uint32_t dv_keep(const scan_file *sf, int64_t first, uint32_t n, uint32_t *keep) {
    uint64_t lo = (uint64_t)first, hi = lo + n;
    /* lower bound */
    uint64_t a = 0, b = sf->ndv;
    while (a < b) {
        uint64_t mid = (a + b) / 2;
        if (sf->dv[mid] < lo) a = mid + 1;
        else b = mid;
    }
    uint32_t k = 0;
    uint64_t d = a;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = lo + i;
        while (d < sf->ndv && sf->dv[d] < r) d++;
        if (d < sf->ndv && sf->dv[d] == r && r < hi) continue;
        keep[k++] = i;
    }
    return k;
}

static void add_counters(tn_table_scan *s, const tn_parquet_scan_counters *c) {
    __atomic_add_fetch(&s->stats.row_groups_scanned, c->row_groups_scanned, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->stats.rows_scanned, c->rows_scanned, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->stats.bytes_scanned, c->bytes_read, __ATOMIC_RELAXED);
}

/* Applies the row filter (on the hidden columns after the output ones), then hands the output
 * columns to fn. */
static int emit(tn_table_scan *s, tn_chunk *out, tn_table_chunk_fn fn, void *ctx, uint32_t file, int64_t first) {
    if (s->row_filter) {
        uint8_t keep[TN_VECTOR_SIZE];
        uint32_t idx[TN_VECTOR_SIZE], n = 0;
        if (out->count > TN_VECTOR_SIZE) return tn_error_set(TN_EINTERNAL, "scan chunk too large");
        memset(keep, 1, out->count);
        tn_chunk hidden = {s->ncols - s->nout, out->count, out->cols + s->nout};
        int rc = s->row_filter(s->row_filter_ctx, &hidden, keep);
        if (rc) return rc;
        for (uint32_t i = 0; i < out->count; i++)
            if (keep[i]) idx[n++] = i;
        if (n == 0) return 0;
        if (n != out->count) {
            for (uint32_t o = 0; o < s->nout; o++) vec_compact(&out->cols[o], idx, n);
            /* first_row no longer locates the rows: filtered scans are for reads, not DV writers */
        }
        tn_chunk view = {s->nout, n, out->cols};
        return fn(ctx, &view, file, first);
    }
    return fn(ctx, out, file, first);
}

int tn_table_scan_run_morsel(tn_table_scan *s, uint32_t m, tn_table_chunk_fn fn, void *ctx) {
    int rc = 0;
    if (m >= s->nmorsels) return tn_error_set(TN_EINVAL, "morsel %u out of range", m);
    scan_file *sf = &s->files[s->morsels[m].sf];
    uint32_t rg = s->morsels[m].rg;
    tn_parquet_scan *ps = NULL;
    tn_chunk fc = {0, 0, NULL}, out = {0, 0, NULL};
    tn_type *ftypes = NULL;
    uint32_t *keep = NULL;
    bool swapped[512];
    bool acquired = false;
    if (s->ncols > 512) return tn_error_set(TN_ELIMIT, "table '%s': too many columns in a scan (%u; the limit is 512)",
                                            s->t->path, s->ncols);
    keep = tn_malloc(sizeof *keep * TN_VECTOR_SIZE);
    if (!keep) { rc = TN_ENOMEM; goto cleanup; }
    if (s->ncols) {
        rc = tn_chunk_init(&out, s->ncols, s->types, TN_VECTOR_SIZE);
        if (rc) goto cleanup;
    }
    if (sf->nscan_cols == 0) {
        /* no file column needed: row counts from the footer, or from the log (nothing read) */
        int64_t rows = sf->pf ? tn_parquet_row_group_num_rows(sf->pf, rg) : sf->stats_rows;
        if (sf->pf) {
            tn_parquet_scan_counters cnt = {1, 0, 0, (uint64_t)rows, 0};
            add_counters(s, &cnt);
        }
        for (int64_t done = 0; done < rows;) {
            uint32_t take = rows - done > TN_VECTOR_SIZE ? TN_VECTOR_SIZE : (uint32_t)(rows - done);
            int64_t first = sf->rg_first_row[rg] + done;
            uint32_t n = sf->ndv ? dv_keep(sf, first, take, keep) : take;
            done += take;
            if (n == 0) continue;
            for (uint32_t o = 0; o < s->ncols; o++) {
                tn_value nullv;
                memset(&nullv, 0, sizeof nullv);
                nullv.type = s->types[o];
                nullv.is_null = true;
                rc = fill_constant(&out.cols[o], sf->cols[o].kind == SRC_PARTITION ? &sf->cols[o].constant : &nullv, n);
                if (rc) goto cleanup;
            }
            out.count = n;
            rc = emit(s, &out, fn, ctx, sf->snap_index, first);
            if (rc) goto cleanup;
        }
        goto cleanup;
    }
    ftypes = tn_malloc(sizeof *ftypes * sf->nscan_cols);
    if (!ftypes) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t k = 0; k < sf->nscan_cols; k++)
        ftypes[k] = sf->scan_types ? sf->scan_types[k] : tn_parquet_column(sf->pf, sf->scan_cols[k])->type;
    rc = tn_chunk_init(&fc, sf->nscan_cols, ftypes, TN_VECTOR_SIZE);
    if (rc) goto cleanup;
    tn_parquet_scan_options po = {sf->scan_cols, sf->nscan_cols, &rg, 1, sf->preds, sf->npreds, sf->scan_types};
    rc = fd_acquire(s, s->morsels[m].sf);
    if (rc) goto cleanup;
    acquired = true;
    rc = tn_parquet_scan_open(&ps, sf->pf, &po);
    if (rc) goto cleanup;
    tn_parquet_scan_set_row_limit(ps, s->morsels[m].limit);
    for (;;) {
        int64_t first = 0;
        tn_chunk_reset(&fc);
        rc = tn_parquet_scan_next(ps, &fc, &first);
        if (rc) goto cleanup;
        if (fc.count == 0) break;
        uint32_t n = fc.count;
        for (uint32_t k = 0; k < fc.ncols; k++) fc.cols[k].count = n;
        memset(swapped, 0, sizeof(bool) * s->ncols);
        for (uint32_t o = 0; o < s->ncols && !rc; o++) {
            out_col *oc = &sf->cols[o];
            tn_vector *dst = &out.cols[o];
            if (oc->kind == SRC_PARTITION) {
                rc = fill_constant(dst, &oc->constant, n);
            } else if (oc->kind == SRC_NULL) {
                tn_value nv;
                memset(&nv, 0, sizeof nv);
                nv.type = s->types[o];
                nv.is_null = true;
                rc = fill_constant(dst, &nv, n);
            } else if (oc->cast) {
                rc = cast_vector(dst, &fc.cols[oc->scan_index], n);
            } else if (oc->dup) {
                tn_vector_reset(dst);
                dst->count = 0;
                rc = tn_vector_append_rows(dst, &fc.cols[oc->scan_index], NULL, n);
                dst->type = s->types[o];
            }
        }
        /* then hand the file vectors over (after the copies above read them: dup columns) */
        for (uint32_t o = 0; o < s->ncols && !rc; o++) {
            out_col *oc = &sf->cols[o];
            tn_vector *dst = &out.cols[o];
            if (oc->kind != SRC_FILE || oc->cast || oc->dup) continue;
            if (oc->widen) {         /* the read fields into the full type, the others NULL */
                tn_vector *part = &fc.cols[oc->scan_index];
                retype(part, s->read_types[o]);                    /* logical names */
                rc = tn_vector_swap_widen(dst, part, n);
                retype(part, ftypes[oc->scan_index]);
                continue;
            }
            tn_vector tmp = *dst;
            tn_type ftype = fc.cols[oc->scan_index].type;
            *dst = fc.cols[oc->scan_index];
            fc.cols[oc->scan_index] = tmp;
            dst->type = s->types[o];   /* relabel (same representation) */
            if (tn_type_is_nested(ftype) && !tn_type_equal(ftype, s->types[o])) {
                retype(dst, s->types[o]);                          /* column-mapped field names */
                retype(&fc.cols[oc->scan_index], ftype);
            }
            dst->count = n;
            swapped[o] = true;
        }
        if (!rc) {
            uint32_t kept = n;
            if (sf->ndv) {
                kept = dv_keep(sf, first, n, keep);
                if (kept != n)
                    for (uint32_t o = 0; o < s->ncols; o++) vec_compact(&out.cols[o], keep, kept);
            }
            out.count = kept;
            if (kept) rc = emit(s, &out, fn, ctx, sf->snap_index, first);
        }
        /* give swapped vectors back to the file chunk */
        for (uint32_t o = 0; o < s->ncols; o++) {
            if (!swapped[o]) continue;
            out_col *oc = &sf->cols[o];
            tn_vector tmp = out.cols[o];
            out.cols[o] = fc.cols[oc->scan_index];
            fc.cols[oc->scan_index] = tmp;
            fc.cols[oc->scan_index].type = ftypes[oc->scan_index];
            out.cols[o].type = s->types[o];
        }
        if (rc) goto cleanup;
    }
cleanup:
    if (ps) {
        add_counters(s, tn_parquet_scan_stats(ps));
        tn_parquet_scan_close(ps);
    }
    if (acquired) fd_release(s, s->morsels[m].sf);
    tn_chunk_free(&fc);
    tn_chunk_free(&out);
    tn_free(ftypes);
    tn_free(keep);
    return rc;
}

int tn_table_scan_run(tn_table_scan *s, tn_table_chunk_fn fn, void *ctx) {
    for (uint32_t m = 0; m < s->nmorsels; m++) {
        int rc = tn_table_scan_run_morsel(s, m, fn, ctx);
        if (rc) return rc;
    }
    return 0;
}

int tn_table_scan_row_indexes(const tn_table_scan *s, uint32_t file, int64_t first_row, uint32_t count,
                              uint64_t *out) {
    const scan_file *sf = NULL;
    for (uint32_t i = 0; i < s->nfiles && !sf; i++)
        if (s->files[i].snap_index == file) sf = &s->files[i];
    if (!sf) return tn_error_set(TN_EINVAL, "scan: file %u is not scanned", file);
    uint64_t r = (uint64_t)first_row, a = 0, b = sf->ndv;
    while (a < b) {                  /* first deleted row >= first_row */
        uint64_t mid = (a + b) / 2;
        if (sf->dv[mid] < r) a = mid + 1;
        else b = mid;
    }
    for (uint32_t i = 0; i < count; i++) {
        while (a < sf->ndv && sf->dv[a] == r) {
            a++;
            r++;
        }
        out[i] = r++;
    }
    return 0;
}
