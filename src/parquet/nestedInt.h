/*
 * parquet/nestedInt.h: private to parquet/: nested columns. The logical tree of a top-level
 * column (struct / list / map / primitive) derived from its Parquet schema subtree, including
 * the legacy list and map forms of parquet-format's backward-compatibility rules, and record
 * assembly (Dremel): one leaf's repetition/definition levels -> slots, validity and list
 * offsets at every nesting level on the way to the leaf. No page reading, no vectors.
 *
 * Levels (per leaf value i: rep r_i, def d_i). A node is non-NULL at a slot iff d >= def.
 * A LIST/MAP slot is empty iff def <= d < elem_def. A node gets a new slot at pair i iff
 * r_i <= slot_rep and d_i >= slot_def, where (slot_rep, slot_def) = (0, 0) above every list
 * and (rep, elem_def) of the nearest enclosing list otherwise:
 *
 *   optional group a (LIST)            list     def 1, rep 1, elem_def 2
 *     repeated group list                       (the 3-level middle group)
 *       optional int32 element         prim     def 3, slot (1, 2)
 *   levels (r,d): [1,NULL] = (0,3) (1,2)   [] = (0,1)   NULL = (0,0)
 */
#ifndef TN_PARQUET_NESTED_INT_H
#define TN_PARQUET_NESTED_INT_H

#include "parquet/readerInt.h"

enum { PQ_NEST_PRIM, PQ_NEST_STRUCT, PQ_NEST_LIST, PQ_NEST_MAP };

/* A node of the logical tree. LIST: children[0] = the element. MAP: children[0] = the entry
 * struct, whose children are the key and the value (a map is a list of key/value structs). */
typedef struct pq_nest {
    int kind;                       /* PQ_NEST_* */
    uint32_t element;               /* schema element it stands for */
    const char *name;               /* the field's name (the element's, for list elements) */
    int32_t def;                    /* non-NULL iff definition level >= def */
    bool nullable;                  /* def exceeds the parent's: the node itself can be NULL */
    int32_t rep, elem_def;          /* LIST/MAP: repetition level and def of an entry */
    int32_t slot_rep, slot_def;     /* new slot iff r <= slot_rep && d >= slot_def */
    int32_t leaf;                   /* PRIM: file column index; else -1 */
    uint32_t nchildren;
    struct pq_nest **children;
} pq_nest;

/* Builds the logical tree of top-level schema element `element` (a child of the root) into
 * *out (allocated in arena). schema/nodes: the file's elements and the tree reader.c computed
 * (parent, depth, max def/rep per element). `path` names the file in messages. Errors:
 * TN_ECORRUPT / TN_EUNSUPPORTED naming the file and column ("x.parquet: column 'a': LIST
 * group must have exactly one repeated child"). */
int pq_nest_build(pq_nest **out, tn_arena *arena, const pq_schema_element *schema,
                  const pq_rd_node *nodes, uint32_t nschema, uint32_t element, const char *path);

/* The tn_type of a node (leaf_types: the file's, by leaf column): STRUCT(fields), LIST(elem),
 * MAP(key, value), or the leaf's type. */
int pq_nest_type(tn_type *out, const pq_nest *n, const tn_type *leaf_types);

/* The nodes from `top` down to the PRIM node of file column `leaf`: fills path[0..*depth)
 * (room for PQ_MAX_SCHEMA_DEPTH + 1). False when the leaf is not under top. */
bool pq_nest_path(const pq_nest *top, int32_t leaf, const pq_nest **path, uint32_t *depth);

/* One nesting level of an assembled leaf: n slots, validity (bit set = non-NULL) and, for
 * LIST/MAP, offsets[0..n] into the slots of the next level. */
typedef struct pq_asm_level {
    uint32_t n;
    uint64_t *valid;
    uint32_t *offsets;              /* NULL unless LIST/MAP */
} pq_asm_level;

typedef struct pq_asm {
    uint32_t depth;                 /* levels[0..depth): one per node of the path */
    pq_asm_level *levels;
    uint32_t nrows;                 /* records: pairs with r == 0 */
    uint32_t nvalues;               /* leaf slots that hold a value (d == the leaf's def) */
} pq_asm;

/* Assembles n level pairs (complete records: the first pair must have r == 0) of the leaf at
 * the end of path[0..depth) into *out, arrays from arena. rep may be NULL when the leaf's max
 * repetition level is 0, def when its max definition level is 0. Errors: TN_ECORRUPT "level
 * pair N: ..." (the caller adds column and row group): a level above the schema's maximum, a
 * first repetition level that is not 0, a repetition level continuing a list that is empty or
 * NULL, a definition level that leaves a continued list without an entry. */
int pq_levels_assemble(pq_asm *out, tn_arena *arena, const pq_nest *const *path, uint32_t depth,
                       const uint32_t *rep, const uint32_t *def, uint32_t n);

#endif
