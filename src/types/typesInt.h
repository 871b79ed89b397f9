/*
 * types/typesInt.h: private to types/: the nested halves of the vector, order and text
 * operations (nested.c), called by vector.c, value.c and format.c for LIST, STRUCT and MAP.
 */
#ifndef TN_TYPES_INT_H
#define TN_TYPES_INT_H

#include "types/types.h"

int tn_nested_vector_init(tn_vector *v, uint32_t capacity);          /* allocates children */
void tn_nested_vector_free(tn_vector *v);
void tn_nested_vector_reset(tn_vector *v);
int tn_nested_vector_reserve(tn_vector *v, uint32_t capacity);       /* struct children follow */
int tn_nested_vector_set_null(tn_vector *v, uint32_t row);           /* struct children too */
int tn_nested_vector_fill_null(tn_vector *v, uint32_t from, uint32_t n);
/* After the fixed-width part (entries, validity) was copied: the children. */
int tn_nested_vector_gather(tn_vector *dst, const tn_vector *src, const uint32_t *sel, uint32_t n);
int tn_nested_vector_append_rows(tn_vector *dst, uint32_t base, const tn_vector *src, const uint32_t *sel,
                                 uint32_t n);
int tn_nested_vector_copy_row(tn_vector *dst, uint32_t drow, const tn_vector *src, uint32_t srow);
int tn_nested_vector_append_rows_at(tn_vector *dst, uint32_t drow, const tn_vector *src, const uint32_t *srow);
int tn_nested_compare(const tn_vector *a, uint32_t ra, const tn_vector *b, uint32_t rb);
int tn_nested_to_text(tn_buf *out, const tn_vector *v, uint32_t row);

#endif
