/*
 * layout/bucket/rbm.c: Paimon's rbm32 field aggregate for the aggregation merge engine: the
 * VARBINARY values of one key (RoaringBitmap 32-bit portable bytes) OR-merge into one bitmap,
 * written with Java's container choices after runOptimize(), as Paimon's FieldRoaringBitmap32Agg
 * does; a key with a single non-NULL value keeps its bytes as written (Paimon returns it as is).
 * Every value is validated first (bitmap/): a bad one fails the write naming column and bytes.
 */
#include "layout/bucket/bucketInt.h"

#include <stdio.h>

#include "bitmap/bitmap.h"

static int bad_value(const tn_table *t, uint32_t col, const tn_value *v, int rc) {
    char hex[17] = "";
    uint32_t m = v->u.s.len < 8 ? v->u.s.len : 8;
    for (uint32_t j = 0; j < m; j++) snprintf(hex + 2 * j, 3, "%02X", (unsigned char)v->u.s.ptr[j]);
    return tn_error_prefix(rc, "table '%s': column '%s' (aggregate-function rbm32): value X'%s%s' (%u bytes)",
                           tn_table_path(t), tn_table_column(t, col)->name, hex, v->u.s.len > 8 ? "..." : "",
                           v->u.s.len);
}

int tn_bucket_rbm32_step(const tn_table *t, uint32_t col, tn_bucket_rbm *r, tn_value *accv, const tn_value *v) {
    if (v->is_null) return 0;
    tn_bitmap_info info;
    int rc = tn_bitmap_validate(v->u.s.ptr, v->u.s.len, &info);
    if (!rc && info.is64)
        rc = tn_error_set(TN_ECORRUPT, "not a 32-bit RoaringBitmap (cookie 12346 or 12347): rbm32 holds 32-bit "
                          "values only");
    if (rc) return bad_value(t, col, v, rc);
    if (accv->is_null) {             /* the first value: kept as written unless another comes */
        *accv = *v;
        return 0;
    }
    if (!r->bm && !(r->bm = tn_bitmap_create())) return TN_ENOMEM;
    if (!r->merged) {
        tn_bitmap_clear(r->bm);
        if ((rc = tn_bitmap_or_bytes(r->bm, accv->u.s.ptr, accv->u.s.len))) return rc;
        r->merged = true;
    }
    return tn_bitmap_or_bytes(r->bm, v->u.s.ptr, v->u.s.len);
}

int tn_bucket_rbm32_finish(tn_bucket_rbm *r, tn_value *accv, tn_buf *bytes) {
    if (!r->merged) return 0;
    r->merged = false;
    tn_buf_clear(bytes);
    int rc = tn_bitmap_serialize(r->bm, TN_BITMAP_32, bytes);
    if (rc) return rc;
    accv->u.s.ptr = (const char *)bytes->data;
    accv->u.s.len = (uint32_t)bytes->len;
    return 0;
}

void tn_bucket_rbm_free(tn_bucket_rbm *r) {
    tn_bitmap_free(r->bm);
    r->bm = NULL;
    r->merged = false;
}
