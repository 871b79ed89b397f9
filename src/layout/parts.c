/*
 * layout/parts.c: what every layout writer does per partition of a write, in one place: the
 * per-partition slot table (writer state by router partition id, grown on demand), the file
 * settings a write resolves (target file size, codec: per-write option, then writer option,
 * then table property), and commitInfo's partitionBy. plain/, bucket/ and otree/ use these.
 */
#include "layout/layoutInt.h"

#include <jansson.h>
#include <string.h>

void tn_layout_slots_init(tn_layout_slots *s, size_t size) {
    memset(s, 0, sizeof *s);
    s->size = size;
}

void *tn_layout_slots_get(tn_layout_slots *s, uint32_t id) {
    if (id >= s->cap) {
        uint32_t cap = s->cap ? s->cap : 16;
        while (cap <= id) {
            if (cap > UINT32_MAX / 2) return NULL;
            cap *= 2;
        }
        char *p = tn_realloc(s->items, s->size * cap);
        if (!p) return NULL;
        memset(p + s->size * s->cap, 0, s->size * (cap - s->cap));
        s->items = p;
        s->cap = cap;
    }
    return (char *)s->items + s->size * id;
}

void *tn_layout_slots_at(const tn_layout_slots *s, uint32_t id) {
    return id < s->cap ? (char *)s->items + s->size * id : NULL;
}

void tn_layout_slots_free(tn_layout_slots *s) {
    tn_free(s->items);
    s->items = NULL;
    s->cap = 0;
}

int tn_layout_file_settings(const tn_table *t, const tn_layout_write_options *opts, uint64_t *target, int *codec) {
    const char *ts = tn_layout_option(opts->options, opts->noptions, "target_file_size");
    *target = opts->target_file_bytes;
    if (ts && !(*target = tn_table_parse_size(ts)))
        return tn_error_set(TN_EINVAL, "table '%s': write option 'target_file_size' = '%s' is not a size",
                            tn_table_path(t), ts);
    if (!*target) *target = tn_table_target_file_bytes(t);
    const char *cs = tn_layout_option(opts->options, opts->noptions, "compression");
    *codec = opts->codec == TN_CODEC_ZSTD ? -1 : (int)opts->codec;   /* ZSTD = the default: the table decides */
    if (cs) {
        tn_parquet_codec c;
        int rc = tn_parquet_codec_parse(cs, &c);
        if (rc) return tn_error_prefix(rc, "table '%s': write option 'compression'", tn_table_path(t));
        *codec = (int)c;
    }
    return 0;
}

char *tn_layout_partition_by_json(const tn_table *t) {
    const tn_delta_metadata *md = &tn_table_snapshot(t)->metadata;
    json_t *a = json_array();
    for (uint32_t i = 0; i < md->npartition_columns && a; i++) json_array_append_new(a, json_string(md->partition_columns[i]));
    char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return s;
}
