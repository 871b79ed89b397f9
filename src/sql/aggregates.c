/*
 * sql/aggregates.c: lookup in the table-defined aggregate registry (sql/aggregates.h): the
 * family tables, searched in order; names compare case-insensitively.
 */
#include "sql/aggregates.h"

static const tn_agg_func *const g_families[] = {tn_aggs_bitmap, tn_aggs_list};

const tn_agg_func *tn_agg_func_lookup(const char *name) {
    for (size_t t = 0; t < sizeof g_families / sizeof g_families[0]; t++)
        for (const tn_agg_func *f = g_families[t]; f->name; f++)
            if (tn_str_iequal(name, f->name)) return f;
    return NULL;
}
