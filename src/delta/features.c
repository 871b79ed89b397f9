/*
 * delta/features.c: table features and protocol versions (PROTOCOL.md "Table Features",
 * "Writer Version Requirements", "Valid Feature Names"). Which features a table's metadata uses
 * (active), whether a protocol supports a feature (by legacy version or by name), the protocol
 * a table needs for its metadata (never removing what the current protocol has), and what tarn
 * can read and write. Knows nothing of how tarn honours a feature: the table layer does that.
 *
 *   feature            kind            legacy versions   active when (metadata)
 *   appendOnly         writer          writer 2          delta.appendOnly = true
 *   invariants         writer          writer 2          a column has delta.invariants
 *   checkConstraints   writer          writer 3          a delta.constraints.<name> key
 *   changeDataFeed     writer          writer 4          delta.enableChangeDataFeed = true
 *   generatedColumns   writer          writer 4          a column has delta.generationExpression
 *   columnMapping      reader+writer   reader 2/writer 5 delta.columnMapping.mode name or id
 *   identityColumns    writer          writer 6          a column has delta.identity.*
 *   deletionVectors    reader+writer   (3, 7) only       delta.enableDeletionVectors = true
 *   timestampNtz       reader+writer   (3, 7) only       a column of type timestamp_ntz
 *
 * Writer version 3 also makes writers honour delta.checkpoint.writeStatsAsJson/AsStruct; a
 * legacy table that sets them to non-default values is given writer version 3.
 */
#include "delta/deltaInt.h"

#include <jansson.h>
#include <string.h>

typedef struct feature_info {
    const char *name;
    bool reader;                     /* a reader-writer feature (listed in both lists) */
    int legacy_reader;               /* reader version that implies it (0: none) */
    int legacy_writer;               /* writer version that implies it (0: none, only by name) */
    bool tarn_reads;                 /* tarn's reader honours it */
    bool tarn_writes;                /* tarn's writers honour it (or refuse the write by name when it
                                        is active and tarn cannot honour it) */
} feature_info;

static const feature_info features[] = {
    {"appendOnly", false, 0, 2, true, true},
    {"invariants", false, 0, 2, true, true},
    {"checkConstraints", false, 0, 3, true, true},
    {"changeDataFeed", false, 0, 4, true, true},
    {"generatedColumns", false, 0, 4, true, true},
    {"columnMapping", true, 2, 5, true, true},
    {"identityColumns", false, 0, 6, true, true},
    {"deletionVectors", true, 0, 0, true, true},
    {"timestampNtz", true, 0, 0, true, true},
    {"vacuumProtocolCheck", true, 0, 0, true, true},
    {"domainMetadata", false, 0, 0, true, true},
    {"v2Checkpoint", true, 0, 0, true, false},
    {"typeWidening", true, 0, 0, true, true},
    {"typeWidening-preview", true, 0, 0, true, true},
    {"allowColumnDefaults", false, 0, 0, true, false},
    {"rowTracking", false, 0, 0, true, false},
    {"inCommitTimestamp", false, 0, 0, true, false},
    {"icebergCompatV1", false, 0, 0, true, false},
    {"icebergCompatV2", false, 0, 0, true, false},
    {"clustering", false, 0, 0, true, false},
};
#define NFEATURES (sizeof features / sizeof features[0])

static const feature_info *find_feature(const char *name) {
    for (size_t i = 0; i < NFEATURES; i++)
        if (strcmp(features[i].name, name) == 0) return &features[i];
    return NULL;
}

static bool in_names(const char *const *list, uint32_t n, const char *s) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i] && strcmp(list[i], s) == 0) return true;
    return false;
}

bool tn_delta_feature_known(const char *name) { return find_feature(name) != NULL; }

bool tn_delta_feature_is_reader(const char *name) {
    const feature_info *f = find_feature(name);
    return f && f->reader;
}

bool tn_delta_protocol_supports(const tn_delta_protocol *p, const char *name) {
    const feature_info *f = find_feature(name);
    if (p->min_writer_version >= 7) return in_names(p->writer_features, p->nwriter_features, name);
    if (!f) return false;
    if (f->legacy_writer == 0 || p->min_writer_version < f->legacy_writer) return false;
    if (f->reader && f->legacy_reader && p->min_reader_version < f->legacy_reader) return false;
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Protocol checks: what tarn reads and writes.
 */
int tn_delta_protocol_check_read(const tn_delta_protocol *p) {
    if (p->min_reader_version < 1)
        return tn_error_set(TN_ECORRUPT, "protocol: invalid minReaderVersion %d", p->min_reader_version);
    if (p->min_reader_version > 3)
        return tn_error_set(TN_EUNSUPPORTED, "unsupported Delta protocol: minReaderVersion %d "
                            "(tarn reads versions 1 to 3)", p->min_reader_version);
    if (p->min_reader_version == 3)
        for (uint32_t i = 0; i < p->nreader_features; i++) {
            const feature_info *f = find_feature(p->reader_features[i]);
            if (!f || !f->reader || !f->tarn_reads)
                return tn_error_set(TN_EUNSUPPORTED, "unsupported Delta reader feature '%s'",
                                    p->reader_features[i]);
        }
    return 0;
}

int tn_delta_protocol_check_write(const tn_delta_protocol *p) {
    int rc = tn_delta_protocol_check_read(p);
    if (rc) return rc;
    if (p->min_writer_version < 1 || p->min_writer_version > 7)
        return tn_error_set(TN_EUNSUPPORTED, "unsupported Delta protocol: minWriterVersion %d",
                            p->min_writer_version);
    if (p->min_writer_version == 7)
        for (uint32_t i = 0; i < p->nwriter_features; i++) {
            const feature_info *f = find_feature(p->writer_features[i]);
            if (!f || !f->tarn_writes)
                return tn_error_set(TN_EUNSUPPORTED, "unsupported Delta writer feature '%s'",
                                    p->writer_features[i]);
        }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Active features.
 */
static bool config_true(const tn_delta_metadata *md, const char *key) {
    const char *v = tn_delta_config_get(md, key);
    return v && tn_str_iequal(v, "true");
}

static bool has_ntz(const tn_delta_column *c) {
    if (!c->nested) return c->type.id == TN_TYPE_TIMESTAMP;
    return c->type_text && strstr(c->type_text, "\"timestamp_ntz\"") != NULL;
}

int tn_delta_active_features(const tn_delta_metadata *md, const char **out, uint32_t cap, uint32_t *n) {
    *n = 0;
#define ADD(name)                                                                              \
    do {                                                                                       \
        if (*n >= cap) return tn_error_set(TN_ELIMIT, "too many table features");             \
        out[(*n)++] = (name);                                                                  \
    } while (0)
    if (config_true(md, "delta.appendOnly")) ADD("appendOnly");
    bool inv = false, gen = false, ident = false, ntz = false;
    for (uint32_t i = 0; i < md->ncolumns; i++) {
        const tn_delta_column *c = &md->columns[i];
        if (c->invariant) inv = true;
        if (c->generation_expression) gen = true;
        if (c->identity) ident = true;
        if (has_ntz(c)) ntz = true;
    }
    if (inv) ADD("invariants");
    for (uint32_t i = 0; i < md->nconfiguration; i++)
        if (strncmp(md->configuration[i].key, "delta.constraints.", 18) == 0) {
            ADD("checkConstraints");
            break;
        }
    if (config_true(md, "delta.enableChangeDataFeed")) ADD("changeDataFeed");
    if (gen) ADD("generatedColumns");
    if (md->column_mapping != TN_DELTA_CM_NONE) ADD("columnMapping");
    if (ident) ADD("identityColumns");
    if (config_true(md, "delta.enableDeletionVectors")) ADD("deletionVectors");
    if (ntz) ADD("timestampNtz");
#undef ADD
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The protocol a table needs.
 */
typedef struct names {
    const char *v[64];
    uint32_t n;
} names;

static void names_add(names *s, const char *name) {
    if (s->n < 64 && !in_names(s->v, s->n, name)) s->v[s->n++] = name;
}

static int copy_names(const char ***out, tn_arena *arena, const names *s) {
    *out = tn_arena_alloc(arena, sizeof **out * (s->n + 1));
    if (!*out) return TN_ENOMEM;
    for (uint32_t i = 0; i < s->n; i++) {
        (*out)[i] = tn_arena_strdup(arena, s->v[i]);
        if (!(*out)[i]) return TN_ENOMEM;
    }
    return 0;
}

int tn_delta_protocol_required(tn_delta_protocol *out, tn_arena *arena, const tn_delta_protocol *current,
                               const tn_delta_metadata *md, const tn_delta_protocol_request *req) {
    static const tn_delta_protocol fresh = {1, 2, NULL, 0, false, NULL, 0, false};
    const tn_delta_protocol *cur = current ? current : &fresh;
    const char *active[32];
    uint32_t nactive = 0;
    int rc = tn_delta_active_features(md, active, 32, &nactive);
    if (rc) return rc;
    names want;
    memset(&want, 0, sizeof want);
    for (uint32_t i = 0; i < nactive; i++) names_add(&want, active[i]);
    int min_reader = cur->min_reader_version, min_writer = cur->min_writer_version;
    bool by_name = cur->min_writer_version >= 7;
    if (req) {
        for (uint32_t i = 0; i < req->nfeatures; i++) {
            if (!find_feature(req->features[i]))
                return tn_error_set(TN_EUNSUPPORTED, "unknown Delta table feature '%s'", req->features[i]);
            names_add(&want, req->features[i]);
            by_name = true;              /* delta.feature.<name> = supported: table features */
        }
        if (req->min_reader_version > min_reader) min_reader = req->min_reader_version;
        if (req->min_writer_version > min_writer) min_writer = req->min_writer_version;
    }
    if (min_writer >= 7) by_name = true;
    if (min_reader >= 3) by_name = true;
    /* legacy versions, when every wanted feature has one */
    int lr = min_reader, lw = min_writer;
    for (uint32_t i = 0; i < want.n && !by_name; i++) {
        const feature_info *f = find_feature(want.v[i]);
        if (!f->legacy_writer) { by_name = true; break; }
        if (f->legacy_writer > lw) lw = f->legacy_writer;
        if (f->legacy_reader > lr) lr = f->legacy_reader;
    }
    bool stats_conf = (tn_delta_config_get(md, "delta.checkpoint.writeStatsAsJson") &&
                       !config_true(md, "delta.checkpoint.writeStatsAsJson")) ||
                      config_true(md, "delta.checkpoint.writeStatsAsStruct");
    memset(out, 0, sizeof *out);
    if (!by_name) {
        if (stats_conf && lw < 3) lw = 3;
        out->min_reader_version = lr;
        out->min_writer_version = lw;
        return 0;
    }
    /* table features: every feature the current protocol supports stays, the legacy ones by the
     * versions that implied them (PROTOCOL.md: assume a supported feature was used) */
    names w, r;
    memset(&w, 0, sizeof w);
    memset(&r, 0, sizeof r);
    if (cur->min_writer_version >= 7) {
        for (uint32_t i = 0; i < cur->nwriter_features; i++) names_add(&w, cur->writer_features[i]);
    } else if (current) {          /* a new table lists only the features it uses */
        for (size_t i = 0; i < NFEATURES; i++)
            if (features[i].legacy_writer && features[i].legacy_writer <= cur->min_writer_version &&
                (!features[i].reader || cur->min_reader_version >= features[i].legacy_reader))
                names_add(&w, features[i].name);
    }
    if (cur->min_reader_version >= 3)
        for (uint32_t i = 0; i < cur->nreader_features; i++) names_add(&r, cur->reader_features[i]);
    for (uint32_t i = 0; i < want.n; i++) names_add(&w, want.v[i]);
    for (uint32_t i = 0; i < w.n; i++)
        if (tn_delta_feature_is_reader(w.v[i])) names_add(&r, w.v[i]);
    /* reader version: 3 with its list when a reader feature needs it; a reader-v2 table keeps 2
     * when its only reader feature is columnMapping (v2 implies it) */
    bool need_r3 = min_reader >= 3;
    for (uint32_t i = 0; i < r.n && !need_r3; i++)
        if (!(strcmp(r.v[i], "columnMapping") == 0 && min_reader >= 2)) need_r3 = true;
    out->min_writer_version = 7;
    out->has_writer_features = true;
    out->nwriter_features = w.n;
    rc = copy_names(&out->writer_features, arena, &w);
    if (rc) return rc;
    if (need_r3) {
        out->min_reader_version = 3;
        out->has_reader_features = true;
        out->nreader_features = r.n;
        rc = copy_names(&out->reader_features, arena, &r);
    } else {
        out->min_reader_version = min_reader < 1 ? 1 : min_reader;
    }
    return rc;
}

bool tn_delta_protocol_equal(const tn_delta_protocol *a, const tn_delta_protocol *b) {
    if (a->min_reader_version != b->min_reader_version || a->min_writer_version != b->min_writer_version)
        return false;
    if (a->nreader_features != b->nreader_features || a->nwriter_features != b->nwriter_features) return false;
    for (uint32_t i = 0; i < a->nreader_features; i++)
        if (!in_names(b->reader_features, b->nreader_features, a->reader_features[i])) return false;
    for (uint32_t i = 0; i < a->nwriter_features; i++)
        if (!in_names(b->writer_features, b->nwriter_features, a->writer_features[i])) return false;
    return true;
}

/* Whether every feature active in md is supported by p (a writer must not commit metadata that
 * uses a feature the protocol lacks). */
int tn_delta_protocol_check_metadata(const tn_delta_protocol *p, const tn_delta_metadata *md) {
    const char *active[32];
    uint32_t n = 0;
    int rc = tn_delta_active_features(md, active, 32, &n);
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++)
        if (!tn_delta_protocol_supports(p, active[i]))
            return tn_error_set(TN_ECORRUPT, "the table uses feature '%s' but its protocol (%d, %d) does not "
                                "support it", active[i], p->min_reader_version, p->min_writer_version);
    return 0;
}
