/*
 * parquet/nested.c: nested columns without pages or vectors: the logical tree of a top-level
 * column from its schema subtree (LIST / MAP annotations, the legacy two-level and unannotated
 * `repeated` forms of parquet-format's LogicalTypes.md "backward-compatibility rules"), and
 * record assembly from one leaf's repetition/definition levels (nestedInt.h has the level
 * rules). Input is untrusted: every level is checked against the schema.
 */
#include "parquet/nestedInt.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * The logical tree.
 *
 * LIST rules (LogicalTypes.md), for `<opt|req> group g (LIST) { repeated <c> }`:
 *   1. c is a primitive: c is the element (required).                    repeated int32 element
 *   2. c is a group of several fields: c is the element (a struct).      repeated group { a; b }
 *   3. c is a group of one field named "array" or "<g>_tuple": c is the element.
 *   4. otherwise (the standard 3-level form): c's only field is the element.
 * MAP (or legacy MAP_KEY_VALUE): `group m (MAP) { repeated group kv { key; value } }`.
 * A repeated field outside these is a required list of required elements (unannotated).
 */
typedef struct builder {
    tn_arena *arena;
    const pq_schema_element *schema;
    const pq_rd_node *nodes;
    uint32_t nschema;
    const char *path;               /* file, for messages */
    const char *column;             /* top-level column, for messages */
} builder;

static int conv_field(builder *b, uint32_t i, int depth, pq_nest **out);
static int conv_type(builder *b, uint32_t i, int depth, pq_nest **out);

static bool is_list_group(const pq_schema_element *e) {
    return e->converted_type == PQ_CT_LIST || e->logical.kind == PQ_LT_LIST;
}

static bool is_map_group(const pq_schema_element *e) {
    return e->converted_type == PQ_CT_MAP || e->converted_type == PQ_CT_MAP_KEY_VALUE ||
           e->logical.kind == PQ_LT_MAP;
}

static int bad(builder *b, uint32_t i, const char *what) {
    return tn_error_set(TN_ECORRUPT, "%s: column '%s': '%s' %s", b->path, b->column,
                        b->schema[i].name ? b->schema[i].name : "?", what);
}

/* Children of group i (element indexes), into an arena array. */
static int children_of(builder *b, uint32_t i, uint32_t **out, uint32_t *n) {
    uint32_t want = b->schema[i].num_children > 0 ? (uint32_t)b->schema[i].num_children : 0;
    *n = 0;
    *out = tn_arena_alloc(b->arena, sizeof **out * (want ? want : 1));
    if (!*out) return TN_ENOMEM;
    for (uint32_t j = i + 1; j < b->nschema && b->nodes[j].depth > b->nodes[i].depth; j++)
        if (b->nodes[j].parent == (int32_t)i) {
            if (*n == want) return bad(b, i, "has more children than declared");
            (*out)[(*n)++] = j;
        }
    if (*n != want) return bad(b, i, "has fewer children than declared");
    return 0;
}

static pq_nest *new_node(builder *b, int kind, uint32_t i, uint32_t nchildren) {
    pq_nest *n = tn_arena_calloc(b->arena, sizeof *n);
    if (!n) return NULL;
    n->kind = kind;
    n->element = i;
    n->name = b->schema[i].name ? b->schema[i].name : "?";
    n->def = b->nodes[i].def;
    n->nullable = b->schema[i].repetition == PQ_OPTIONAL;
    n->leaf = -1;
    n->nchildren = nchildren;
    if (nchildren) {
        n->children = tn_arena_calloc(b->arena, sizeof *n->children * nchildren);
        if (!n->children) return NULL;
    }
    return n;
}

/* A list (or map) node standing for group i whose entries are the repeated element c. */
static pq_nest *new_list(builder *b, int kind, uint32_t i, uint32_t c) {
    pq_nest *n = new_node(b, kind, i, 1);
    if (!n) return NULL;
    n->rep = b->nodes[c].rep;
    n->elem_def = b->nodes[c].def;
    return n;
}

static int conv_list(builder *b, uint32_t i, int depth, pq_nest **out) {
    const pq_schema_element *g = &b->schema[i];
    uint32_t *kids, nk;
    int rc = children_of(b, i, &kids, &nk);
    if (rc) return rc;
    if (nk != 1 || b->schema[kids[0]].repetition != PQ_REPEATED)
        return bad(b, i, "is a LIST but does not have exactly one repeated child");
    uint32_t c = kids[0];
    const pq_schema_element *ce = &b->schema[c];
    pq_nest *n = new_list(b, PQ_NEST_LIST, i, c);
    if (!n) return TN_ENOMEM;
    bool two_level = ce->num_children == 0 || ce->num_children > 1;      /* rules 1, 2 */
    if (ce->num_children == 1 && ce->name && g->name) {                   /* rule 3 */
        size_t gl = strlen(g->name);
        two_level = strcmp(ce->name, "array") == 0 ||
                    (strncmp(ce->name, g->name, gl) == 0 && strcmp(ce->name + gl, "_tuple") == 0);
    }
    if (two_level) {
        rc = conv_type(b, c, depth + 1, &n->children[0]);
    } else {                                                              /* rule 4 */
        uint32_t *gk, ng;
        rc = children_of(b, c, &gk, &ng);
        if (rc == 0) rc = conv_field(b, gk[0], depth + 1, &n->children[0]);
    }
    if (rc) return rc;
    *out = n;
    return 0;
}

static int conv_map(builder *b, uint32_t i, int depth, pq_nest **out) {
    uint32_t *kids, nk, *kv, nkv;
    int rc = children_of(b, i, &kids, &nk);
    if (rc) return rc;
    if (nk != 1 || b->schema[kids[0]].repetition != PQ_REPEATED || b->schema[kids[0]].num_children == 0)
        return bad(b, i, "is a MAP but does not have exactly one repeated key/value group");
    uint32_t c = kids[0];
    rc = children_of(b, c, &kv, &nkv);
    if (rc) return rc;
    if (nkv != 2)
        return tn_error_set(TN_EUNSUPPORTED, "%s: column '%s': MAP '%s': the key/value group has "
                            "%u fields (a key and a value are required)", b->path, b->column,
                            b->schema[i].name ? b->schema[i].name : "?", nkv);
    pq_nest *n = new_list(b, PQ_NEST_MAP, i, c);
    pq_nest *entry = n ? new_node(b, PQ_NEST_STRUCT, c, 2) : NULL;
    if (!entry) return TN_ENOMEM;
    entry->nullable = false;
    n->children[0] = entry;
    for (uint32_t k = 0; k < 2; k++) {
        rc = conv_field(b, kv[k], depth + 2, &entry->children[k]);
        if (rc) return rc;
    }
    *out = n;
    return 0;
}

/* Element i as a type, whatever its repetition (its def is the node's def). */
static int conv_type(builder *b, uint32_t i, int depth, pq_nest **out) {
    const pq_schema_element *e = &b->schema[i];
    if (depth > 2 * PQ_MAX_SCHEMA_DEPTH)
        return tn_error_set(TN_ECORRUPT, "%s: column '%s': nested deeper than %d levels", b->path,
                            b->column, PQ_MAX_SCHEMA_DEPTH);
    if (b->nodes[i].leaf >= 0) {
        pq_nest *n = new_node(b, PQ_NEST_PRIM, i, 0);
        if (!n) return TN_ENOMEM;
        n->leaf = b->nodes[i].leaf;
        *out = n;
        return 0;
    }
    if (is_list_group(e)) return conv_list(b, i, depth, out);
    if (is_map_group(e)) return conv_map(b, i, depth, out);
    uint32_t *kids, nk;
    int rc = children_of(b, i, &kids, &nk);
    if (rc) return rc;
    if (nk == 0) return bad(b, i, "is a group without fields");
    pq_nest *n = new_node(b, PQ_NEST_STRUCT, i, nk);
    if (!n) return TN_ENOMEM;
    for (uint32_t k = 0; k < nk; k++) {
        rc = conv_field(b, kids[k], depth + 1, &n->children[k]);
        if (rc) return rc;
    }
    *out = n;
    return 0;
}

/* Field i of a struct (or a list element of rule 4): a repeated field is a required list. */
static int conv_field(builder *b, uint32_t i, int depth, pq_nest **out) {
    if (b->schema[i].repetition != PQ_REPEATED) return conv_type(b, i, depth, out);
    pq_nest *n = new_list(b, PQ_NEST_LIST, i, i);
    if (!n) return TN_ENOMEM;
    n->def = b->nodes[i].def - 1;          /* the parent's: the list itself is never NULL */
    n->nullable = false;
    int rc = conv_type(b, i, depth + 1, &n->children[0]);
    if (rc) return rc;
    n->children[0]->nullable = false;
    *out = n;
    return 0;
}

static void set_slots(pq_nest *n, int32_t srep, int32_t sdef) {
    n->slot_rep = srep;
    n->slot_def = sdef;
    bool list = n->kind == PQ_NEST_LIST || n->kind == PQ_NEST_MAP;
    for (uint32_t k = 0; k < n->nchildren; k++)
        set_slots(n->children[k], list ? n->rep : srep, list ? n->elem_def : sdef);
}

int pq_nest_build(pq_nest **out, tn_arena *arena, const pq_schema_element *schema,
                  const pq_rd_node *nodes, uint32_t nschema, uint32_t element, const char *path) {
    *out = NULL;
    if (element == 0 || element >= nschema || nodes[element].parent != 0)
        return tn_error_set(TN_EINTERNAL, "%s: schema element %u is not a top-level column", path,
                            element);
    builder b = {arena, schema, nodes, nschema, path, schema[element].name ? schema[element].name : "?"};
    int rc = conv_field(&b, element, 0, out);
    if (rc) {
        *out = NULL;
        return rc;
    }
    set_slots(*out, 0, 0);
    return 0;
}

int pq_nest_type(tn_type *out, const pq_nest *n, const tn_type *leaf_types) {
    tn_type kids[2];
    int rc;
    switch (n->kind) {
    case PQ_NEST_PRIM:
        *out = leaf_types[n->leaf];
        return 0;
    case PQ_NEST_LIST:
        rc = pq_nest_type(&kids[0], n->children[0], leaf_types);
        return rc ? rc : tn_type_list(out, kids[0]);
    case PQ_NEST_MAP:
        for (int k = 0; k < 2; k++) {
            rc = pq_nest_type(&kids[k], n->children[0]->children[k], leaf_types);
            if (rc) return rc;
        }
        return tn_type_map(out, kids[0], kids[1]);
    default: {
        tn_type *types = tn_calloc(n->nchildren, sizeof *types);
        const char **names = tn_calloc(n->nchildren, sizeof *names);
        rc = types && names ? 0 : TN_ENOMEM;
        for (uint32_t k = 0; rc == 0 && k < n->nchildren; k++) {
            names[k] = n->children[k]->name;
            rc = pq_nest_type(&types[k], n->children[k], leaf_types);
        }
        if (rc == 0) rc = tn_type_struct(out, n->nchildren, names, types);
        tn_free(types);
        tn_free(names);
        return rc;
    }
    }
}

bool pq_nest_path(const pq_nest *top, int32_t leaf, const pq_nest **path, uint32_t *depth) {
    uint32_t d = 0;
    const pq_nest *n = top;
    for (;;) {
        if (d > PQ_MAX_SCHEMA_DEPTH) return false;
        path[d++] = n;
        if (n->kind == PQ_NEST_PRIM) {
            *depth = d;
            return n->leaf == leaf;
        }
        /* leaves are numbered depth first: the child holding `leaf` is the last one whose
         * first leaf is <= leaf */
        const pq_nest *next = NULL;
        for (uint32_t k = 0; k < n->nchildren; k++) {
            const pq_nest *c = n->children[k];
            while (c->kind != PQ_NEST_PRIM) c = c->children[0];
            if (c->leaf <= leaf) next = n->children[k];
        }
        if (!next) return false;
        n = next;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Record assembly.
 */
static int level_error(uint32_t i, const char *fmt, uint32_t a, uint32_t b2) {
    char msg[160];
    snprintf(msg, sizeof msg, fmt, a, b2);
    return tn_error_set(TN_ECORRUPT, "level pair %u: %s", i, msg);
}

int pq_levels_assemble(pq_asm *out, tn_arena *arena, const pq_nest *const *path, uint32_t depth,
                       const uint32_t *rep, const uint32_t *def, uint32_t n) {
    memset(out, 0, sizeof *out);
    if (depth == 0 || depth > PQ_MAX_SCHEMA_DEPTH + 1 || path[depth - 1]->kind != PQ_NEST_PRIM)
        return tn_error_set(TN_EINTERNAL, "level assembly: bad path");
    const pq_nest *leaf = path[depth - 1];
    uint32_t max_def = (uint32_t)leaf->def, max_rep = (uint32_t)leaf->slot_rep;
    if ((!rep && max_rep > 0) || (!def && max_def > 0))
        return tn_error_set(TN_EINTERNAL, "level assembly: levels missing");
    bool has_elem[PQ_MAX_SCHEMA_DEPTH + 1] = {false};
    int32_t list_at_rep[PQ_MAX_SCHEMA_DEPTH + 2];      /* path index of the list with rep r */
    size_t words = ((size_t)n + 63) / 64;
    out->levels = tn_arena_calloc(arena, sizeof *out->levels * depth);
    if (!out->levels) return TN_ENOMEM;
    out->depth = depth;
    for (uint32_t k = 0; k < depth; k++) {
        pq_asm_level *L = &out->levels[k];
        L->valid = tn_arena_calloc(arena, sizeof(uint64_t) * (words ? words : 1));
        if (!L->valid) return TN_ENOMEM;
        if (path[k]->kind == PQ_NEST_LIST || path[k]->kind == PQ_NEST_MAP) {
            if (k + 1 >= depth || path[k]->rep < 1 || path[k]->rep > (int32_t)max_rep)
                return tn_error_set(TN_EINTERNAL, "level assembly: bad list node");
            list_at_rep[path[k]->rep] = (int32_t)k;
            L->offsets = tn_arena_alloc(arena, sizeof(uint32_t) * ((size_t)n + 1));
            if (!L->offsets) return TN_ENOMEM;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rep ? rep[i] : 0, d = def ? def[i] : max_def;
        if (r > max_rep)
            return level_error(i, "repetition level %u exceeds the column's maximum %u", r, max_rep);
        if (d > max_def)
            return level_error(i, "definition level %u exceeds the column's maximum %u", d, max_def);
        if (i == 0 && r != 0)
            return level_error(i, "the first repetition level is %u, not 0 (a record cannot "
                               "start inside a list)", r, 0);
        if (r == 0) out->nrows++;
        if (r > 0) {
            /* continuing the lists with rep 1..r: each must hold an entry, and d must reach
             * the entry of the innermost one */
            for (uint32_t q = 1; q <= r; q++)
                if (!has_elem[list_at_rep[q]])
                    return level_error(i, "repetition level %u continues a list that is empty "
                                       "or NULL (list level %u)", r, q);
            const pq_nest *lst = path[list_at_rep[r]];
            if (d < (uint32_t)lst->elem_def)
                return level_error(i, "repetition level %u adds an entry to a list but "
                                   "definition level %u says there is none", r, d);
        }
        for (uint32_t k = 0; k < depth; k++) {
            const pq_nest *nd = path[k];
            pq_asm_level *L = &out->levels[k];
            bool slot = r <= (uint32_t)nd->slot_rep && d >= (uint32_t)nd->slot_def;
            if (!L->offsets) {
                if (slot) {
                    if (d >= (uint32_t)nd->def) L->valid[L->n >> 6] |= (uint64_t)1 << (L->n & 63);
                    L->n++;
                }
                continue;
            }
            if (slot) {
                if (d >= (uint32_t)nd->def) L->valid[L->n >> 6] |= (uint64_t)1 << (L->n & 63);
                L->offsets[L->n++] = out->levels[k + 1].n;    /* before its entry's slot */
                has_elem[k] = d >= (uint32_t)nd->elem_def;
            } else if (r < (uint32_t)nd->rep) {
                has_elem[k] = false;    /* absent: an enclosing list is empty or NULL here */
            }
        }
        if (d == max_def) out->nvalues++;
    }
    for (uint32_t k = 0; k < depth; k++)
        if (out->levels[k].offsets) out->levels[k].offsets[out->levels[k].n] = out->levels[k + 1].n;
    return 0;
}
