/*
 * layout/otree/index.c: the OTree index of a snapshot, from qbeast's metadata: revisions
 * ('qbeast.lastRevisionID', 'qbeast.revision.0..N'), each file's 'revision' and 'blocks' tags
 * (and the pre-0.6 one-cube tags 'cube', 'minWeight', 'maxWeight', 'elementCount', 'state'), and
 * per revision its cubes (effective maxWeight = min over the cube's blocks, elementCount summed).
 * Files without qbeast tags belong to revision 0 (unindexed), as qbeast-spark reads them.
 */
#include "layout/otree/otreeInt.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static bool parse_i64(const char *s, int64_t *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno) return false;
    *out = v;
    return true;
}

static bool json_int32(json_t *v, int32_t *out) {
    if (!json_is_integer(v)) return false;
    json_int_t x = json_integer_value(v);
    if (x < INT32_MIN || x > INT32_MAX) return false;
    *out = (int32_t)x;
    return true;
}

/* The fast path of ot_blocks_parse: the JSON qbeast-spark and tarn write (objects of the four
 * fields and an optional 'replicated' boolean, any order, whitespace allowed, cube ids without
 * escapes). Returns 1 for anything else (the JSON parser then decides and names the problem). */
static void skip_ws(const char **p) {
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r') (*p)++;
}

static bool fast_int(const char **p, int64_t lo, int64_t hi, int64_t *out) {
    const char *q = *p;
    bool neg = *q == '-';
    if (neg) q++;
    if (*q < '0' || *q > '9' || (*q == '0' && q[1] >= '0' && q[1] <= '9')) return false;
    int64_t v = 0;
    int digits = 0;
    while (*q >= '0' && *q <= '9') {
        if (++digits > 18) return false;
        v = v * 10 + (*q++ - '0');
    }
    if (*q == '.' || *q == 'e' || *q == 'E') return false;
    v = neg ? -v : v;
    if (v < lo || v > hi) return false;
    *out = v;
    *p = q;
    return true;
}

static int blocks_fast(const char *text, uint32_t dims, tn_arena *arena, ot_block **out, uint32_t *n) {
    const char *p = text;
    skip_ws(&p);
    if (*p++ != '[') return 1;
    /* entries: at most one per '{' */
    size_t cap = 0;
    for (const char *q = p; *q; q++) cap += *q == '{';
    ot_block *b = tn_arena_calloc(arena, sizeof *b * (cap ? cap : 1));
    if (!b) return TN_ENOMEM;
    uint32_t k = 0;
    skip_ws(&p);
    if (*p == ']') goto end;
    for (;;) {
        skip_ws(&p);
        if (*p++ != '{' || k >= cap) return 1;
        unsigned seen = 0;
        ot_block *o = &b[k];
        for (;;) {
            skip_ws(&p);
            if (*p++ != '"') return 1;
            const char *key = p;
            while (*p && *p != '"' && *p != '\\') p++;
            if (*p != '"') return 1;
            size_t klen = (size_t)(p++ - key);
            skip_ws(&p);
            if (*p++ != ':') return 1;
            skip_ws(&p);
            int64_t v;
            unsigned bit;
            if (klen == 6 && memcmp(key, "cubeId", 6) == 0) {
                if (*p++ != '"') return 1;
                const char *id = p;
                while (*p && *p != '"' && *p != '\\') p++;
                if (*p != '"') return 1;
                o->cube = tn_arena_strndup(arena, id, (size_t)(p++ - id));
                if (!o->cube) return TN_ENOMEM;
                if (!ot_cube_valid(o->cube, dims, NULL)) return 1;
                bit = 1;
            } else if (klen == 9 && memcmp(key, "minWeight", 9) == 0) {
                if (!fast_int(&p, INT32_MIN, INT32_MAX, &v)) return 1;
                o->min_weight = (int32_t)v;
                bit = 2;
            } else if (klen == 9 && memcmp(key, "maxWeight", 9) == 0) {
                if (!fast_int(&p, INT32_MIN, INT32_MAX, &v)) return 1;
                o->max_weight = (int32_t)v;
                bit = 4;
            } else if (klen == 12 && memcmp(key, "elementCount", 12) == 0) {
                if (!fast_int(&p, 0, INT64_MAX, &v)) return 1;
                o->count = v;
                bit = 8;
            } else if (klen == 10 && memcmp(key, "replicated", 10) == 0) {
                if (strncmp(p, "true", 4) == 0) p += 4;
                else if (strncmp(p, "false", 5) == 0) p += 5;
                else return 1;
                bit = 16;
            } else {
                return 1;
            }
            if (seen & bit) return 1;
            seen |= bit;
            skip_ws(&p);
            if (*p == ',') { p++; continue; }
            if (*p++ != '}') return 1;
            break;
        }
        if ((seen & 15) != 15) return 1;
        k++;
        skip_ws(&p);
        if (*p == ',') { p++; continue; }
        if (*p != ']') return 1;
        break;
    }
end:
    p++;
    skip_ws(&p);
    if (*p) return 1;
    *out = b;
    *n = k;
    return 0;
}

int ot_blocks_parse(const char *text, uint32_t dims, tn_arena *arena, ot_block **out, uint32_t *n) {
    int fast = blocks_fast(text, dims, arena, out, n);
    if (fast != 1) return fast;
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (!root) return tn_error_set(TN_ECORRUPT, "tag 'blocks': %s", jerr.text);
    if (!json_is_array(root)) { rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': not a JSON array"); goto cleanup; }
    size_t k = json_array_size(root);
    *out = tn_arena_calloc(arena, sizeof **out * (k ? k : 1));
    if (!*out) { rc = TN_ENOMEM; goto cleanup; }
    for (size_t i = 0; i < k; i++) {
        json_t *b = json_array_get(root, i);
        ot_block *o = &(*out)[i];
        if (!json_is_object(b)) { rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': entry %zu is not an object", i); goto cleanup; }
        const char *key;
        json_t *val;
        json_object_foreach(b, key, val) {
            if (strcmp(key, "cubeId") && strcmp(key, "minWeight") && strcmp(key, "maxWeight") &&
                strcmp(key, "elementCount") && strcmp(key, "replicated")) {
                rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': entry %zu has an unknown field '%s'", i, key);
                goto cleanup;
            }
        }
        const char *cube = json_string_value(json_object_get(b, "cubeId"));
        json_t *ec = json_object_get(b, "elementCount");
        if (!cube || !ot_cube_valid(cube, dims, NULL)) {
            rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': entry %zu has no valid cubeId for %u dimension%s%s%s%s", i, dims,
                              dims == 1 ? "" : "s", cube ? " ('" : "", cube ? cube : "", cube ? "')" : "");
            goto cleanup;
        }
        if (!json_int32(json_object_get(b, "minWeight"), &o->min_weight) ||
            !json_int32(json_object_get(b, "maxWeight"), &o->max_weight)) {
            rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': entry %zu (cube '%s') has no integer minWeight/maxWeight", i, cube);
            goto cleanup;
        }
        if (!json_is_integer(ec) || json_integer_value(ec) < 0) {
            rc = tn_error_set(TN_ECORRUPT, "tag 'blocks': entry %zu (cube '%s') has no elementCount >= 0", i, cube);
            goto cleanup;
        }
        o->count = json_integer_value(ec);
        o->cube = tn_arena_strdup(arena, cube);
        if (!o->cube) { rc = TN_ENOMEM; goto cleanup; }
    }
    *n = (uint32_t)k;
cleanup:
    json_decref(root);
    return rc;
}

static const char *tag(const tn_delta_file *f, const char *key) {
    for (uint32_t i = 0; i < f->ntags; i++)
        if (f->tags[i].key && strcmp(f->tags[i].key, key) == 0) return f->tags[i].value;
    return NULL;
}

/* The pre-0.6 tags: one block per file. */
static int legacy_block(const tn_delta_file *f, uint32_t dims, tn_arena *a, ot_file *of) {
    const char *cube = tag(f, "cube");
    int64_t mn, mx, ec;
    if (!ot_cube_valid(cube, dims, NULL) || !parse_i64(tag(f, "minWeight"), &mn) || !parse_i64(tag(f, "maxWeight"), &mx) ||
        !parse_i64(tag(f, "elementCount"), &ec) || mn < INT32_MIN || mn > INT32_MAX || mx < INT32_MIN || mx > INT32_MAX ||
        ec < 0)
        return tn_error_set(TN_ECORRUPT, "pre-0.6 qbeast tags (cube, minWeight, maxWeight, elementCount) are malformed");
    of->blocks = tn_arena_calloc(a, sizeof *of->blocks);
    if (!of->blocks) return TN_ENOMEM;
    of->blocks[0] = (ot_block){tn_arena_strdup(a, cube), (int32_t)mn, (int32_t)mx, ec};
    of->nblocks = 1;
    return 0;
}

static int cmp_cube(const void *a, const void *b) { return strcmp(((const ot_cube *)a)->id, ((const ot_cube *)b)->id); }

const ot_cube *ot_rev_index_find(const ot_rev_index *ri, const char *id) {
    ot_cube key = {id, 0, 0, 0};
    return bsearch(&key, ri->cubes, ri->ncubes, sizeof *ri->cubes, cmp_cube);
}

const ot_revision *ot_index_revision(const ot_index *ix, int64_t id) {
    for (uint32_t i = 0; i < ix->nrevs; i++)
        if (ix->revs[i].id == id) return &ix->revs[i];
    return NULL;
}

const ot_rev_index *ot_index_rev_index(const ot_index *ix, int64_t id) {
    for (uint32_t i = 0; i < ix->nrevs; i++)
        if (ix->revs[i].id == id) return &ix->rindex[i];
    return NULL;
}

/* Cubes of each revision from the files' blocks: aggregated by id in a hash table (a table holds
 * many blocks of few cubes: every append adds a block to most cubes), then sorted. */
static int build_cubes(ot_index *ix) {
    for (uint32_t r = 0; r < ix->nrevs; r++) {
        ot_rev_index *ri = &ix->rindex[r];
        ri->rev = &ix->revs[r];
        uint32_t nb = 0;
        for (uint32_t f = 0; f < ix->nfiles; f++)
            if (ix->files[f].revision == ix->revs[r].id) nb += ix->files[f].nblocks;
        ri->cubes = tn_arena_calloc(ix->arena, sizeof *ri->cubes * (nb ? nb : 1));
        if (!ri->cubes) return TN_ENOMEM;
        uint32_t cap = 16;
        while (cap < 2 * nb) cap *= 2;
        uint32_t *slot = tn_malloc(sizeof *slot * cap);   /* cube index + 1; 0 = empty */
        if (!slot) return TN_ENOMEM;
        memset(slot, 0, sizeof *slot * cap);
        for (uint32_t f = 0; f < ix->nfiles; f++) {
            if (ix->files[f].revision != ix->revs[r].id) continue;
            for (uint32_t b = 0; b < ix->files[f].nblocks; b++) {
                const ot_block *bl = &ix->files[f].blocks[b];
                uint32_t h = (uint32_t)tn_hash_bytes(bl->cube, strlen(bl->cube), 0) & (cap - 1);
                while (slot[h] && strcmp(ri->cubes[slot[h] - 1].id, bl->cube) != 0) h = (h + 1) & (cap - 1);
                if (!slot[h]) {
                    ri->cubes[ri->ncubes] = (ot_cube){bl->cube, bl->max_weight, bl->count, 1};
                    slot[h] = ++ri->ncubes;
                    continue;
                }
                ot_cube *c = &ri->cubes[slot[h] - 1];
                if (bl->max_weight < c->max_weight) c->max_weight = bl->max_weight;
                c->count += bl->count;
                c->nblocks++;
            }
        }
        tn_free(slot);
        qsort(ri->cubes, ri->ncubes, sizeof *ri->cubes, cmp_cube);
    }
    return 0;
}

/* A file's blocks, cube ids included, in one allocation: files are immutable and uniquely named,
 * so the blocks parsed from a file's tags hold for every later snapshot that still has the file.
 * An index built after a commit takes a reference on the previous index's sets instead of
 * parsing every file's 'blocks' again (an append then parses only the files it added). */
struct ot_blockset {
    uint32_t refs;                     /* atomic */
    uint32_t n;
    ot_block blocks[];                 /* then the cube ids, NUL-terminated */
};

static ot_blockset *blockset_make(const ot_block *b, uint32_t n) {
    size_t strs = 0;
    for (uint32_t i = 0; i < n; i++) strs += strlen(b[i].cube) + 1;
    ot_blockset *s = tn_malloc(sizeof *s + sizeof *b * n + strs);
    if (!s) return NULL;
    s->refs = 1;
    s->n = n;
    char *p = (char *)&s->blocks[n];
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(b[i].cube) + 1;
        s->blocks[i] = b[i];
        s->blocks[i].cube = memcpy(p, b[i].cube, len);
        p += len;
    }
    return s;
}

static void blockset_release(ot_blockset *s) {
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) tn_free(s);
}

/* prev's files by path (open addressing; slot = file index + 1). */
typedef struct prev_map {
    const ot_index *ix;
    uint32_t *slot;
    uint32_t cap;
} prev_map;

static int prev_map_build(prev_map *m, const ot_index *prev) {
    memset(m, 0, sizeof *m);
    if (!prev || !prev->nfiles) return 0;
    uint32_t cap = 16;
    while (cap < 2 * prev->nfiles) cap *= 2;
    m->slot = tn_malloc(sizeof *m->slot * cap);
    if (!m->slot) return TN_ENOMEM;
    memset(m->slot, 0, sizeof *m->slot * cap);
    m->ix = prev;
    m->cap = cap;
    for (uint32_t f = 0; f < prev->nfiles; f++) {
        if (!prev->files[f].set) continue;
        const char *path = prev->file_paths[f];
        uint32_t h = (uint32_t)tn_hash_bytes(path, strlen(path), 0) & (cap - 1);
        while (m->slot[h]) h = (h + 1) & (cap - 1);
        m->slot[h] = f + 1;
    }
    return 0;
}

static const ot_file *prev_map_get(const prev_map *m, const char *path) {
    if (!m->slot) return NULL;
    uint32_t h = (uint32_t)tn_hash_bytes(path, strlen(path), 0) & (m->cap - 1);
    for (; m->slot[h]; h = (h + 1) & (m->cap - 1))
        if (strcmp(m->ix->file_paths[m->slot[h] - 1], path) == 0) return &m->ix->files[m->slot[h] - 1];
    return NULL;
}

static void index_destroy(ot_index *ix);

/* prev: an index of an earlier snapshot of the same table (same path and table id), or NULL. */
static int index_build(ot_index **out, const tn_table *t, const ot_index *prev) {
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const tn_delta_metadata *md = &snap->metadata;
    const char *path = tn_table_path(t);
    int rc = 0;
    prev_map pm = {0};
    tn_arena *scratch = NULL;
    *out = NULL;
    ot_index *ix = tn_calloc(1, sizeof *ix);
    if (!ix) return TN_ENOMEM;
    ix->arena = tn_arena_create(0);
    if (!ix->arena) { rc = TN_ENOMEM; goto cleanup; }
    const char *last = tn_delta_config_get(md, "qbeast.lastRevisionID");
    if (!last || !parse_i64(last, &ix->last_revision) || ix->last_revision < 0 || ix->last_revision > 100000) {
        rc = tn_error_set(TN_ECORRUPT, "table '%s': table property 'qbeast.lastRevisionID' is %s%s%s", path,
                          last ? "'" : "missing", last ? last : "", last ? "', not a revision number" : "");
        goto cleanup;
    }
    ix->revs = tn_arena_calloc(ix->arena, sizeof *ix->revs * (size_t)(ix->last_revision + 1));
    ix->rindex = tn_arena_calloc(ix->arena, sizeof *ix->rindex * (size_t)(ix->last_revision + 1));
    if (!ix->revs || !ix->rindex) { rc = TN_ENOMEM; goto cleanup; }
    for (int64_t id = 0; id <= ix->last_revision; id++) {
        char key[48];
        snprintf(key, sizeof key, "qbeast.revision.%lld", (long long)id);
        const char *text = tn_delta_config_get(md, key);
        if (!text) {
            if (id == 0) continue;     /* revision 0 is implicit in older tables */
            rc = tn_error_set(TN_ECORRUPT, "table '%s': table property '%s' is missing (qbeast.lastRevisionID is %lld)",
                              path, key, (long long)ix->last_revision);
            goto cleanup;
        }
        ot_revision *rv = &ix->revs[ix->nrevs];
        rc = ot_revision_parse(rv, text, ix->arena);
        if (!rc && rv->id != id)
            rc = tn_error_set(TN_ECORRUPT, "revision JSON: revisionID is %lld", (long long)rv->id);
        for (uint32_t c = 0; !rc && c < rv->ncols; c++) {
            rv->cols[c].table_column = tn_table_column_index(t, rv->cols[c].name);
            if (rv->cols[c].table_column < 0)
                rc = tn_error_set(TN_ECORRUPT, "revision JSON: indexed column '%s' is not a column of the table",
                                  rv->cols[c].name);
        }
        if (rc) {
            tn_error_prefix(rc, "table '%s': table property '%s'", path, key);
            goto cleanup;
        }
        ix->nrevs++;
    }
    const ot_revision *lr = ot_index_revision(ix, ix->last_revision);
    if (!lr) {
        rc = tn_error_set(TN_ECORRUPT, "table '%s': no revision JSON for qbeast.lastRevisionID %lld", path,
                          (long long)ix->last_revision);
        goto cleanup;
    }
    ix->ncols = lr->ncols;
    ix->cols = tn_arena_alloc(ix->arena, sizeof *ix->cols * ix->ncols);
    if (!ix->cols) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t c = 0; c < ix->ncols; c++) ix->cols[c] = (uint32_t)lr->cols[c].table_column;
    /* every revision indexes the same columns (qbeast refuses to change them) */
    for (uint32_t r = 0; r < ix->nrevs; r++) {
        bool same = ix->revs[r].ncols == lr->ncols;
        for (uint32_t c = 0; same && c < lr->ncols; c++) same = ix->revs[r].cols[c].table_column == lr->cols[c].table_column;
        if (!same) {
            rc = tn_error_set(TN_ECORRUPT, "table '%s': revision %lld indexes other columns than revision %lld", path,
                              (long long)ix->revs[r].id, (long long)lr->id);
            goto cleanup;
        }
    }
    if ((rc = prev_map_build(&pm, prev))) goto cleanup;
    scratch = tn_arena_create(0);
    if (!scratch) { rc = TN_ENOMEM; goto cleanup; }
    ix->nfiles = snap->nfiles;
    ix->files = tn_arena_calloc(ix->arena, sizeof *ix->files * (snap->nfiles ? snap->nfiles : 1));
    if (!ix->files) { rc = TN_ENOMEM; goto cleanup; }
    for (uint32_t f = 0; f < snap->nfiles; f++) {
        const tn_delta_file *df = &snap->files[f];
        ot_file *of = &ix->files[f];
        const char *rv = tag(df, "revision");
        if (!rv) continue;             /* not written by qbeast: revision 0, unindexed */
        const ot_revision *r = NULL;
        if (!parse_i64(rv, &of->revision) || !(r = ot_index_revision(ix, of->revision))) {
            rc = tn_error_set(TN_ECORRUPT, "table '%s': file '%s': tag 'revision' = '%s' names no revision of the table",
                              path, df->path, rv);
            goto cleanup;
        }
        const ot_file *pf = prev_map_get(&pm, df->path);
        if (pf && pf->revision == of->revision) {
            __atomic_add_fetch(&pf->set->refs, 1, __ATOMIC_ACQ_REL);
            of->set = pf->set;
            of->blocks = pf->blocks;
            of->nblocks = pf->nblocks;
            continue;
        }
        const char *blocks = tag(df, "blocks");
        ot_file parsed = {of->revision, NULL, 0, NULL};
        if (blocks) rc = ot_blocks_parse(blocks, r->ncols, scratch, &parsed.blocks, &parsed.nblocks);
        else if (tag(df, "cube")) rc = legacy_block(df, r->ncols, scratch, &parsed);
        else if (of->revision != 0)
            rc = tn_error_set(TN_ECORRUPT, "tag 'revision' = '%s' without a 'blocks' tag", rv);
        if (rc) {
            tn_error_prefix(rc, "table '%s': file '%s'", path, df->path);
            goto cleanup;
        }
        if (!(of->set = blockset_make(parsed.blocks, parsed.nblocks))) { rc = TN_ENOMEM; goto cleanup; }
        of->blocks = of->set->blocks;
        of->nblocks = of->set->n;
        tn_arena_reset(scratch);
    }
    rc = build_cubes(ix);
    if (rc) goto cleanup;
    *out = ix;
    ix = NULL;
cleanup:
    tn_free(pm.slot);
    tn_arena_destroy(scratch);
    index_destroy(ix);
    return rc;
}

/* The last index built, kept for the statements that follow on the same snapshot (a table's
 * version never changes once committed: same path, table id, version and files = same index).
 * Shared read-only; refs counts its users, the cache's own reference included. */
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;
static ot_index *g_cache;

static bool cache_fits(const ot_index *ix, const tn_table *t) {
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    const char *id = snap->metadata.id ? snap->metadata.id : "";
    if (!ix || ix->version != snap->version || ix->nfiles != snap->nfiles || strcmp(ix->path, tn_table_path(t)) != 0 ||
        strcmp(ix->table_id, id) != 0)
        return false;
    for (uint32_t f = 0; f < snap->nfiles; f++)
        if (strcmp(ix->file_paths[f], snap->files[f].path) != 0) return false;
    return true;
}

static void index_destroy(ot_index *ix) {
    if (!ix) return;
    for (uint32_t f = 0; f < ix->nfiles && ix->files; f++) blockset_release(ix->files[f].set);
    tn_arena_destroy(ix->arena);
    tn_free(ix);
}

int ot_index_load(ot_index **out, const tn_table *t) {
    *out = NULL;
    pthread_mutex_lock(&g_cache_mu);
    if (cache_fits(g_cache, t)) {
        g_cache->refs++;
        *out = g_cache;
        pthread_mutex_unlock(&g_cache_mu);
        return 0;
    }
    /* an index of an earlier (or other) snapshot of the same table: its parsed blocks are reused */
    const tn_delta_snapshot *snap = tn_table_snapshot(t);
    ot_index *prev = g_cache;
    if (prev && (strcmp(prev->path, tn_table_path(t)) != 0 ||
                 strcmp(prev->table_id, snap->metadata.id ? snap->metadata.id : "") != 0))
        prev = NULL;
    if (prev) prev->refs++;
    pthread_mutex_unlock(&g_cache_mu);
    ot_index *ix = NULL;
    int rc = index_build(&ix, t, prev);
    ot_index_free(prev);
    if (rc) return rc;
    /* the key, in the index's arena */
    ix->version = snap->version;
    ix->path = tn_arena_strdup(ix->arena, tn_table_path(t));
    ix->table_id = tn_arena_strdup(ix->arena, snap->metadata.id ? snap->metadata.id : "");
    ix->file_paths = tn_arena_alloc(ix->arena, sizeof *ix->file_paths * (snap->nfiles ? snap->nfiles : 1));
    bool keyed = ix->path && ix->table_id && ix->file_paths;
    for (uint32_t f = 0; f < snap->nfiles && keyed; f++) keyed = (ix->file_paths[f] = tn_arena_strdup(ix->arena, snap->files[f].path)) != NULL;
    ix->refs = 1;
    if (keyed) {
        pthread_mutex_lock(&g_cache_mu);
        ot_index *old = g_cache;
        g_cache = ix;
        ix->refs++;                    /* the cache's */
        if (old && --old->refs == 0) index_destroy(old);
        pthread_mutex_unlock(&g_cache_mu);
    }
    *out = ix;
    return 0;
}

void ot_index_free(ot_index *ix) {
    if (!ix) return;
    pthread_mutex_lock(&g_cache_mu);
    bool last = --ix->refs == 0;
    pthread_mutex_unlock(&g_cache_mu);
    if (last) index_destroy(ix);
}
