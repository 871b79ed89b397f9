/*
 * tests/fuzz/fuzz_parquet_thrift.c: libFuzzer target for the Thrift compact decoders of
 * parquet/ (FileMetaData, PageHeader, ColumnIndex, OffsetIndex) on raw bytes. Whatever decodes
 * is re-encoded (the encoders must accept anything the decoders produce). Errors are expected;
 * crashes, leaks and out-of-bounds reads are bugs.
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/parquetInt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Copy into an exact-size heap block so ASan catches any read past the end. */
    uint8_t *buf = malloc(size ? size : 1);
    if (buf == NULL) return 0;
    if (size) memcpy(buf, data, size);
    tn_arena *arena = tn_arena_create(0);
    tn_buf out = TN_BUF_INIT;
    if (arena == NULL) goto cleanup;

    pq_file_meta meta;
    memset(&meta, 0, sizeof meta);
    if (pq_decode_file_meta(&meta, arena, buf, size) == 0) (void)pq_encode_file_meta(&out, &meta);
    tn_arena_reset(arena);

    /* A sequence of page headers, as in a column chunk. */
    size_t off = 0;
    for (int i = 0; i < 64 && off < size; i++) {
        pq_page_header ph;
        size_t consumed = 0;
        memset(&ph, 0, sizeof ph);
        if (pq_decode_page_header(&ph, buf + off, size - off, &consumed) != 0) break;
        tn_buf_clear(&out);
        (void)pq_encode_page_header(&out, &ph);
        if (consumed == 0 || consumed > size - off) break;
        off += consumed;
    }

    pq_column_index ci;
    memset(&ci, 0, sizeof ci);
    if (pq_decode_column_index(&ci, arena, buf, size) == 0) {
        tn_buf_clear(&out);
        (void)pq_encode_column_index(&out, &ci);
    }
    pq_offset_index oi;
    memset(&oi, 0, sizeof oi);
    if (pq_decode_offset_index(&oi, arena, buf, size) == 0) {
        tn_buf_clear(&out);
        (void)pq_encode_offset_index(&out, &oi);
    }
cleanup:
    tn_buf_free(&out);
    tn_arena_destroy(arena);
    free(buf);
    tn_error_clear();
    return 0;
}
