/*
 * sql/op_setop.c: set operations over two materialized inputs (fed as morsel 0 = left,
 * 1 = right): UNION ALL appends; UNION, INTERSECT [ALL] and EXCEPT [ALL] count each distinct
 * row per side in a group table (NULLs compare equal, as SQL set operations want) and emit
 * rows by those counts.
 */
#include <string.h>

#include "sql/exec.h"

typedef struct setop_state {
    tn_group_table t;
    int64_t *cnt[2];
    uint32_t cap;
    uint32_t gids[TN_VECTOR_SIZE];
} setop_state;

typedef struct setop_shared {
    tn_exec *ex;
    tn_plan *node;
    tn_collection *result;
} setop_shared;

static int setop_init(tn_sink *sink, void **state) {
    setop_shared *sh = sink->shared;
    setop_state *s = tn_calloc(1, sizeof *s);
    if (!s) return TN_ENOMEM;
    *state = s;
    return tn_group_table_init(&s->t, sh->node->ncols, sh->node->types);
}

static void setop_free(tn_sink *sink, void *state) {
    setop_state *s = state;
    tn_group_table_free(&s->t);
    tn_free(s->cnt[0]);
    tn_free(s->cnt[1]);
    tn_free(s);
}

static int setop_consume(tn_sink *sink, void *state, uint32_t side, const tn_chunk *in) {
    setop_shared *sh = sink->shared;
    setop_state *s = state;
    const tn_plan *node = sh->node;
    if (node->u.setop.op == TN_SETOP_UNION && node->u.setop.all)
        return tn_collection_append(sh->result, in, NULL, in->count);
    for (uint32_t off = 0; off < in->count; off += TN_VECTOR_SIZE) {
        uint32_t m = in->count - off < TN_VECTOR_SIZE ? in->count - off : TN_VECTOR_SIZE;
        tn_vector views[node->ncols + 1];
        tn_vector *vp[node->ncols + 1];
        for (uint32_t c = 0; c < node->ncols; c++) {
            views[c] = in->cols[c];
            size_t w = tn_type_width(views[c].type);
            if (views[c].data) views[c].data = (uint8_t *)views[c].data + (size_t)off * w;
            if (views[c].validity) views[c].validity += off / 64;
            views[c].count = m;
            vp[c] = &views[c];
        }
        int rc = tn_group_table_lookup(&s->t, vp, m, s->gids);
        if (rc) return rc;
        if (s->t.ngroups > s->cap) {
            uint32_t cap = s->cap ? s->cap : 256;
            while (cap < s->t.ngroups) cap *= 2;
            for (int k = 0; k < 2; k++) {
                int64_t *n = tn_realloc(s->cnt[k], (size_t)cap * sizeof *n);
                if (!n) return TN_ENOMEM;
                memset(n + s->cap, 0, (size_t)(cap - s->cap) * sizeof *n);
                s->cnt[k] = n;
            }
            s->cap = cap;
        }
        for (uint32_t i = 0; i < m; i++) s->cnt[side ? 1 : 0][s->gids[i]]++;
    }
    return 0;
}

static int setop_combine(tn_sink *sink, void **states, uint32_t n) {
    setop_shared *sh = sink->shared;
    const tn_plan *node = sh->node;
    setop_state *s = states[0];
    if (node->u.setop.op == TN_SETOP_UNION && node->u.setop.all) return 0;
    int rc = 0;
    uint32_t sel[TN_VECTOR_SIZE];
    tn_chunk keys = {node->ncols, 0, s->t.keys};
    for (uint32_t g = 0; g < s->t.ngroups && !rc;) {
        uint32_t m = 0;
        while (g < s->t.ngroups && m < TN_VECTOR_SIZE) {
            int64_t l = s->cnt[0][g], r = s->cnt[1][g], copies;
            switch (node->u.setop.op) {
            case TN_SETOP_UNION: copies = 1; break;
            case TN_SETOP_INTERSECT: copies = node->u.setop.all ? (l < r ? l : r) : (l > 0 && r > 0); break;
            default: copies = node->u.setop.all ? (l > r ? l - r : 0) : (l > 0 && r == 0); break;
            }
            /* emit the copies (spilling into the next batch when it is full) */
            while (copies > 0 && m < TN_VECTOR_SIZE) {
                sel[m++] = g;
                copies--;
            }
            if (copies > 0) {
                /* rare: many copies of one row; flush and continue this group */
                keys.count = s->t.ngroups;
                rc = tn_collection_append(sh->result, &keys, sel, m);
                m = 0;
                if (node->u.setop.op == TN_SETOP_INTERSECT) s->cnt[0][g] = s->cnt[1][g] = copies;
                else { s->cnt[0][g] = copies; s->cnt[1][g] = 0; }
                if (rc) break;
                continue;
            }
            g++;
        }
        if (m && !rc) {
            keys.count = s->t.ngroups;
            rc = tn_collection_append(sh->result, &keys, sel, m);
        }
        if (!rc) rc = tn_exec_check(sh->ex);
    }
    return rc;
}

int tn_sink_setop(tn_exec *ex, tn_plan *node, tn_collection *result, tn_sink **out) {
    tn_sink *s = tn_calloc(1, sizeof *s);
    setop_shared *sh = tn_calloc(1, sizeof *sh);
    if (!s || !sh) { tn_free(s); tn_free(sh); return TN_ENOMEM; }
    sh->ex = ex;
    sh->node = node;
    sh->result = result;
    s->name = "SET_OPERATION";
    s->shared = sh;
    s->worker_init = setop_init;
    s->worker_free = setop_free;
    s->consume = setop_consume;
    s->combine = setop_combine;
    int rc = tn_collection_init(result, node->ncols, node->types);
    if (rc) { tn_free(sh); tn_free(s); return rc; }
    *out = s;
    return 0;
}
